build-dev/mock/noise.o: mock/noise.c mock/noise.h lib/random.h
mock/noise.h:
lib/random.h:
