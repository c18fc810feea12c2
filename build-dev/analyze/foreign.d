build-dev/analyze/foreign.o: analyze/foreign.c analyze/foreign.h \
 analyze/db.h lib/srvmetric.h lib/result.h lib/toolcall.h lib/errmsg.h
analyze/foreign.h:
analyze/db.h:
lib/srvmetric.h:
lib/result.h:
lib/toolcall.h:
lib/errmsg.h:
