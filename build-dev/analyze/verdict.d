build-dev/analyze/verdict.o: analyze/verdict.c analyze/verdict.h \
 lib/random.h lib/stats.h
analyze/verdict.h:
lib/random.h:
lib/stats.h:
