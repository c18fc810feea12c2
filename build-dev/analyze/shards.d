build-dev/analyze/shards.o: analyze/shards.c analyze/shards.h \
 analyze/db.h lib/srvmetric.h lib/result.h lib/toolcall.h \
 analyze/report.h lib/capacity.h lib/metric.h lib/result.h lib/summary.h \
 lib/metric.h lib/stats.h lib/table.h lib/turns.h lib/errmsg.h \
 lib/stats.h lib/table.h
analyze/shards.h:
analyze/db.h:
lib/srvmetric.h:
lib/result.h:
lib/toolcall.h:
analyze/report.h:
lib/capacity.h:
lib/metric.h:
lib/result.h:
lib/summary.h:
lib/metric.h:
lib/stats.h:
lib/table.h:
lib/turns.h:
lib/errmsg.h:
lib/stats.h:
lib/table.h:
