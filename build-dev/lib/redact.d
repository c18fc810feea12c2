build-dev/lib/redact.o: lib/redact.c lib/redact.h lib/strbuf.h
lib/redact.h:
lib/strbuf.h:
