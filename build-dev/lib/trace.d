build-dev/lib/trace.o: lib/trace.c lib/trace.h lib/json.h lib/redact.h
lib/trace.h:
lib/json.h:
lib/redact.h:
