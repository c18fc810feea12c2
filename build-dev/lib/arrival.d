build-dev/lib/arrival.o: lib/arrival.c lib/arrival.h lib/random.h
lib/arrival.h:
lib/random.h:
