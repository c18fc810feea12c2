build-dev/mock/stream.o: mock/stream.c mock/server.h mock/options.h \
 mock/noise.h lib/clock.h lib/httpserver.h lib/random.h lib/strbuf.h
mock/server.h:
mock/options.h:
mock/noise.h:
lib/clock.h:
lib/httpserver.h:
lib/random.h:
lib/strbuf.h:
