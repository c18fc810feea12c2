build-dev/replay/body.o: replay/body.c replay/body.h
replay/body.h:
