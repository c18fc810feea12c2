build-dev/replay/session.o: replay/session.c replay/session.h \
 lib/toolcall.h lib/trace.h
replay/session.h:
lib/toolcall.h:
lib/trace.h:
