build-dev/lib/decode.o: lib/decode.c lib/decode.h
lib/decode.h:
