build-dev/analyze/analyze.o: analyze/analyze.c analyze/analyze.h \
 analyze/capture.h analyze/db.h lib/srvmetric.h lib/result.h \
 lib/toolcall.h analyze/compare.h analyze/verdict.h lib/summary.h \
 lib/metric.h lib/result.h lib/stats.h lib/table.h lib/table.h \
 analyze/options.h analyze/plot.h lib/metric.h analyze/foreign.h \
 analyze/report.h lib/capacity.h lib/turns.h analyze/shards.h lib/cli.h \
 lib/tracefile.h
analyze/analyze.h:
analyze/capture.h:
analyze/db.h:
lib/srvmetric.h:
lib/result.h:
lib/toolcall.h:
analyze/compare.h:
analyze/verdict.h:
lib/summary.h:
lib/metric.h:
lib/result.h:
lib/stats.h:
lib/table.h:
lib/table.h:
analyze/options.h:
analyze/plot.h:
lib/metric.h:
analyze/foreign.h:
analyze/report.h:
lib/capacity.h:
lib/turns.h:
analyze/shards.h:
lib/cli.h:
lib/tracefile.h:
