build-dev/lib/capacity.o: lib/capacity.c lib/capacity.h
lib/capacity.h:
