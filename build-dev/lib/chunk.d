build-dev/lib/chunk.o: lib/chunk.c lib/chunk.h
lib/chunk.h:
