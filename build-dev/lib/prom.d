build-dev/lib/prom.o: lib/prom.c lib/prom.h lib/errmsg.h
lib/prom.h:
lib/errmsg.h:
