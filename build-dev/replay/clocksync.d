build-dev/replay/clocksync.o: replay/clocksync.c replay/clocksync.h \
 lib/clock.h
replay/clocksync.h:
lib/clock.h:
