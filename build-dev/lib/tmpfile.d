build-dev/lib/tmpfile.o: lib/tmpfile.c lib/tmpfile.h
lib/tmpfile.h:
