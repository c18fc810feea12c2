build-dev/lib/chain.o: lib/chain.c lib/chain.h lib/trace.h
lib/chain.h:
lib/trace.h:
