build-dev/lib/errmsg.o: lib/errmsg.c lib/errmsg.h
lib/errmsg.h:
