build-dev/lib/curlev.o: lib/curlev.c lib/curlev.h
lib/curlev.h:
