build-dev/analyze/db.o: analyze/db.c analyze/db.h lib/srvmetric.h \
 lib/result.h lib/toolcall.h lib/errmsg.h lib/clock.h lib/json.h \
 lib/tracefile.h
analyze/db.h:
lib/srvmetric.h:
lib/result.h:
lib/toolcall.h:
lib/errmsg.h:
lib/clock.h:
lib/json.h:
lib/tracefile.h:
