build-dev/mock/request.o: mock/request.c mock/server.h mock/options.h \
 mock/noise.h
mock/server.h:
mock/options.h:
mock/noise.h:
