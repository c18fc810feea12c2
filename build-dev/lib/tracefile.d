build-dev/lib/tracefile.o: lib/tracefile.c lib/tracefile.h lib/errmsg.h \
 lib/clock.h
lib/tracefile.h:
lib/errmsg.h:
lib/clock.h:
