build-dev/lib/json.o: lib/json.c lib/json.h
lib/json.h:
