build-dev/lib/clock.o: lib/clock.c lib/clock.h
lib/clock.h:
