/*
 * fuzz_tokenize.c - libFuzzer target for the reader of a server's
 * /tokenize answer (tokenize_parse_answer in lib/tokenize.c), which
 * record synth and record import believe when they fit prompts.
 *
 * The input is the answer's bytes. The rules checked: a count read is a
 * whole number from 0 to TOKENIZE_MAX_COUNT; a refusal leaves the count
 * as it was and says why in one line; a second read of the same bytes
 * gives the same result; an error buffer of one byte still ends in NUL.
 * A broken rule aborts.
 */
#include "lib/tokenize.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_tokenize: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], tiny[1];
	long count = -7, again = -7;
	int rc, rc2;

	err[0] = '\0';
	rc = tokenize_parse_answer((const char *)data, size, &count, err, sizeof(err));
	if (rc == 0 && (count < 0 || count > TOKENIZE_MAX_COUNT))
		fail("a count out of range was read");
	if (rc < 0 && count != -7)
		fail("a refusal changed the count");
	if (rc < 0 && (!err[0] || strchr(err, '\n')))
		fail("a refusal without a one-line reason");
	if (rc != 0 && rc != -1)
		fail("a return that is neither 0 nor -1");
	tiny[0] = 'x';
	rc2 = tokenize_parse_answer((const char *)data, size, &again, tiny, sizeof(tiny));
	if (rc2 != rc || (rc == 0 && again != count))
		fail("two reads of the same answer differ");
	if (rc2 < 0 && tiny[0] != '\0')
		fail("a one-byte error buffer not NUL-terminated");
	return 0;
}
