build-dev/lib/httpserver.o: lib/httpserver.c lib/httpserver.h lib/clock.h \
 lib/errmsg.h lib/tmpfile.h
lib/httpserver.h:
lib/clock.h:
lib/errmsg.h:
lib/tmpfile.h:
