build-dev/lib/srvmetric.o: lib/srvmetric.c lib/srvmetric.h
lib/srvmetric.h:
