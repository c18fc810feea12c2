build-dev/lib/random.o: lib/random.c lib/random.h
lib/random.h:
