build-dev/mock/mock.o: mock/mock.c mock/mock.h mock/server.h \
 mock/options.h mock/noise.h lib/cli.h lib/clock.h lib/httpserver.h \
 lib/random.h lib/strbuf.h
mock/mock.h:
mock/server.h:
mock/options.h:
mock/noise.h:
lib/cli.h:
lib/clock.h:
lib/httpserver.h:
lib/random.h:
lib/strbuf.h:
