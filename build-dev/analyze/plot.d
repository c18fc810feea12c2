build-dev/analyze/plot.o: analyze/plot.c analyze/plot.h analyze/db.h \
 lib/srvmetric.h lib/result.h lib/toolcall.h lib/errmsg.h \
 analyze/report.h lib/capacity.h lib/metric.h lib/result.h lib/summary.h \
 lib/metric.h lib/stats.h lib/table.h lib/turns.h lib/stats.h \
 lib/tmpfile.h
analyze/plot.h:
analyze/db.h:
lib/srvmetric.h:
lib/result.h:
lib/toolcall.h:
lib/errmsg.h:
analyze/report.h:
lib/capacity.h:
lib/metric.h:
lib/result.h:
lib/summary.h:
lib/metric.h:
lib/stats.h:
lib/table.h:
lib/turns.h:
lib/stats.h:
lib/tmpfile.h:
