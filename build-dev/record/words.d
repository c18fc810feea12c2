build-dev/record/words.o: record/words.c record/words.h lib/random.h
record/words.h:
lib/random.h:
