build-dev/lib/result.o: lib/result.c lib/result.h lib/toolcall.h \
 lib/json.h lib/redact.h
lib/result.h:
lib/toolcall.h:
lib/json.h:
lib/redact.h:
