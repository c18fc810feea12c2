build-dev/record/dist.o: record/dist.c record/dist.h lib/random.h \
 lib/cli.h
record/dist.h:
lib/random.h:
lib/cli.h:
