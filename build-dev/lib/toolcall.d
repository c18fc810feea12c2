build-dev/lib/toolcall.o: lib/toolcall.c lib/toolcall.h lib/strbuf.h
lib/toolcall.h:
lib/strbuf.h:
