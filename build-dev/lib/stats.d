build-dev/lib/stats.o: lib/stats.c lib/stats.h lib/random.h
lib/stats.h:
lib/random.h:
