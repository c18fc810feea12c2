build-dev/lib/cli.o: lib/cli.c lib/cli.h
lib/cli.h:
