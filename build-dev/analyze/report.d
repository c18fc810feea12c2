build-dev/analyze/report.o: analyze/report.c analyze/report.h \
 analyze/db.h lib/srvmetric.h lib/result.h lib/toolcall.h lib/capacity.h \
 lib/metric.h lib/result.h lib/summary.h lib/metric.h lib/stats.h \
 lib/table.h lib/turns.h analyze/foreign.h analyze/shards.h lib/errmsg.h
analyze/report.h:
analyze/db.h:
lib/srvmetric.h:
lib/result.h:
lib/toolcall.h:
lib/capacity.h:
lib/metric.h:
lib/result.h:
lib/summary.h:
lib/metric.h:
lib/stats.h:
lib/table.h:
lib/turns.h:
analyze/foreign.h:
analyze/shards.h:
lib/errmsg.h:
