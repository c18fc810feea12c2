build-dev/analyze/options.o: analyze/options.c analyze/options.h \
 analyze/plot.h analyze/db.h lib/srvmetric.h lib/result.h lib/toolcall.h \
 lib/metric.h lib/result.h lib/table.h analyze/verdict.h lib/cli.h
analyze/options.h:
analyze/plot.h:
analyze/db.h:
lib/srvmetric.h:
lib/result.h:
lib/toolcall.h:
lib/metric.h:
lib/result.h:
lib/table.h:
analyze/verdict.h:
lib/cli.h:
