build-dev/mock/options.o: mock/options.c mock/options.h mock/noise.h \
 lib/cli.h lib/clock.h lib/httpserver.h
mock/options.h:
mock/noise.h:
lib/cli.h:
lib/clock.h:
lib/httpserver.h:
