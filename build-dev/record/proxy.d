build-dev/record/proxy.o: record/proxy.c record/proxy.h record/capture.h \
 lib/redact.h record/options.h record/import.h record/synth.h \
 record/dist.h lib/random.h lib/arrival.h lib/random.h lib/chain.h \
 lib/cli.h lib/clock.h lib/curlev.h lib/httpserver.h lib/result.h \
 lib/toolcall.h lib/trace.h lib/tracefile.h lib/decode.h lib/transfer.h \
 lib/meter.h lib/result.h lib/sse.h
record/proxy.h:
record/capture.h:
lib/redact.h:
record/options.h:
record/import.h:
record/synth.h:
record/dist.h:
lib/random.h:
lib/arrival.h:
lib/random.h:
lib/chain.h:
lib/cli.h:
lib/clock.h:
lib/curlev.h:
lib/httpserver.h:
lib/result.h:
lib/toolcall.h:
lib/trace.h:
lib/tracefile.h:
lib/decode.h:
lib/transfer.h:
lib/meter.h:
lib/result.h:
lib/sse.h:
