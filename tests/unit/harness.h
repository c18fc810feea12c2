/*
 * harness.h - the unit test harness: a few macros, no framework.
 *
 * Each test binary prints one line per test, "PASS name" or "FAIL name"
 * preceded by the failed checks (file:line: expression). tests/run.sh adds
 * the lines of every binary and script up into
 * "N passed, N failed, N skipped".
 *
 * A check that cannot run here (gnuplot not installed, ...) is not left
 * out silently: SKIP("reason") prints "SKIP name: reason" and the test goes
 * on with what it can check. A test that ran no check at all before or
 * after its SKIP prints no PASS line: it was skipped, not passed.
 *
 *   TEST(parses_empty) { CHECK_EQ_INT(parse(""), 0); }
 *   TEST(renders) { if (!have_gnuplot()) { SKIP("gnuplot not installed"); return; } ... }
 *   int main(void) { RUN(parses_empty); RUN(renders); return harness_done(); }
 */
#ifndef TB_HARNESS_H
#define TB_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int harness_checks, harness_failed_checks;
static int harness_passed, harness_failed, harness_skipped;
static const char *harness_test = "";   /* the test RUN is running */

#define TEST(name) static void name(void)

#define CHECK(cond) do { \
	harness_checks++; \
	if (!(cond)) { \
		harness_failed_checks++; \
		fprintf(stdout, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ_INT(a, b) do { \
	harness_checks++; \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) { \
		harness_failed_checks++; \
		fprintf(stdout, "  %s:%d: %s == %lld, expected %s == %lld\n", \
			__FILE__, __LINE__, #a, a_, #b, b_); \
	} \
} while (0)

#define CHECK_NEAR(a, b, tol) do { \
	harness_checks++; \
	double a_ = (double)(a), b_ = (double)(b); \
	if (!(fabs(a_ - b_) <= (tol))) { \
		harness_failed_checks++; \
		fprintf(stdout, "  %s:%d: %s == %.9g, expected %.9g (tolerance %g)\n", \
			__FILE__, __LINE__, #a, a_, b_, (double)(tol)); \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	harness_checks++; \
	const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_) != 0) { \
		harness_failed_checks++; \
		fprintf(stdout, "  %s:%d: %s == \"%s\", expected \"%s\"\n", \
			__FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} \
} while (0)

/* Reports checks of the running test that cannot run here, and why. */
#define SKIP(reason) do { \
	harness_skipped++; \
	printf("SKIP %s: %s\n", harness_test, (reason)); \
} while (0)

#define RUN(name) do { \
	int before_ = harness_failed_checks, checks_ = harness_checks; \
	int skipped_ = harness_skipped; \
	harness_test = #name; \
	name(); \
	if (harness_checks == checks_ && harness_skipped > skipped_) { \
		/* skipped whole: its SKIP line says so */ \
	} else if (harness_failed_checks == before_) { \
		harness_passed++; \
		printf("PASS %s\n", #name); \
	} else { \
		harness_failed++; \
		printf("FAIL %s\n", #name); \
	} \
	fflush(stdout); \
} while (0)

static inline int harness_done(void)
{
	return harness_failed ? 1 : 0;
}

/*
 * Runs parse(o, argc, argv) on the NULL-terminated list (at most 31
 * arguments) with stderr into a temporary file: what a command's option
 * parser says. *err gets that text (free it), or NULL.
 */
static inline int harness_run_parse(int (*parse)(void *o, int argc, char **argv), void *o,
				    const char **list, char **err)
{
	char *argv[32];
	FILE *f = tmpfile();
	int argc = 0, saved = dup(2), rc;
	long len;

	while (argc < 31 && list[argc]) {
		argv[argc] = (char *)list[argc];   /* getopt may permute argv, not the strings */
		argc++;
	}
	argv[argc] = NULL;
	fflush(stderr);
	if (f)
		dup2(fileno(f), 2);
	rc = parse(o, argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	*err = NULL;
	if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    (*err = calloc(1, (size_t)len + 1)) != NULL) {
		rewind(f);
		if (fread(*err, 1, (size_t)len, f) != (size_t)len)
			(*err)[0] = '\0';
	}
	if (f)
		fclose(f);
	return rc;
}

/* Reads dir/name whole, a fixture of at most 64 KiB, NUL-terminated into
 * *len bytes: NULL when it cannot be read or is empty. The caller frees it. */
static inline char *harness_slurp(const char *dir, const char *name, size_t *len)
{
	char path[256];
	FILE *f;
	char *buf = calloc(1, 1 << 16);

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	*len = 0;
	if (f && buf)
		*len = fread(buf, 1, (1 << 16) - 1, f);
	if (f)
		fclose(f);
	if (!*len) {
		free(buf);
		return NULL;
	}
	return buf;
}

#endif
