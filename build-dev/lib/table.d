build-dev/lib/table.o: lib/table.c lib/table.h
lib/table.h:
