build-dev/record/traceout.o: record/traceout.c record/traceout.h \
 lib/tracefile.h lib/errmsg.h
record/traceout.h:
lib/tracefile.h:
lib/errmsg.h:
