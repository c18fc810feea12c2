build-dev/lib/strbuf.o: lib/strbuf.c lib/strbuf.h
lib/strbuf.h:
