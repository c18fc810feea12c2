build-dev/analyze/compare_print.o: analyze/compare_print.c \
 analyze/compare.h analyze/db.h lib/srvmetric.h lib/result.h \
 lib/toolcall.h analyze/verdict.h lib/summary.h lib/metric.h lib/result.h \
 lib/stats.h lib/table.h lib/table.h lib/metric.h
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
lib/metric.h:
