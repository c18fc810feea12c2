build-dev/record/capture.o: record/capture.c record/capture.h \
 lib/redact.h lib/json.h lib/trace.h lib/tracefile.h
record/capture.h:
lib/redact.h:
lib/json.h:
lib/trace.h:
lib/tracefile.h:
