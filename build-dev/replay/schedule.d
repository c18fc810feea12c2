build-dev/replay/schedule.o: replay/schedule.c replay/schedule.h \
 lib/arrival.h lib/random.h
replay/schedule.h:
lib/arrival.h:
lib/random.h:
