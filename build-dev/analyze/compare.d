build-dev/analyze/compare.o: analyze/compare.c analyze/compare.h \
 analyze/db.h lib/srvmetric.h lib/result.h lib/toolcall.h \
 analyze/verdict.h lib/summary.h lib/metric.h lib/result.h lib/stats.h \
 lib/table.h lib/table.h analyze/foreign.h analyze/shards.h \
 analyze/report.h lib/capacity.h lib/metric.h lib/turns.h lib/errmsg.h
analyze/compare.h:
analyze/db.h:
lib/srvmetric.h:
lib/result.h:
lib/toolcall.h:
analyze/verdict.h:
lib/summary.h:
lib/metric.h:
lib/result.h:
lib/stats.h:
lib/table.h:
lib/table.h:
analyze/foreign.h:
analyze/shards.h:
analyze/report.h:
lib/capacity.h:
lib/metric.h:
lib/turns.h:
lib/errmsg.h:
