build-dev/record/csv.o: record/csv.c record/csv.h
record/csv.h:
