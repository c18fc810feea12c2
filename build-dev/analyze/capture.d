build-dev/analyze/capture.o: analyze/capture.c analyze/capture.h \
 analyze/db.h lib/srvmetric.h lib/result.h lib/toolcall.h lib/errmsg.h \
 lib/trace.h lib/tracefile.h
analyze/capture.h:
analyze/db.h:
lib/srvmetric.h:
lib/result.h:
lib/toolcall.h:
lib/errmsg.h:
lib/trace.h:
lib/tracefile.h:
