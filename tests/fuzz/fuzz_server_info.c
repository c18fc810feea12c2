/*
 * fuzz_server_info.c - libFuzzer target for what replay keeps of a
 * server's description of itself (replay/server_info.c): a /v1/models
 * answer and a version answer, the input's two parts split at its first
 * NUL byte.
 *
 * Whatever the bytes, what is kept must hold to the caps the header
 * promises: at most SERVER_INFO_MAX_FIELDS model ids and version fields,
 * no string over SERVER_INFO_MAX_STRING bytes, only scalars in the
 * version object, and never the API key the probe sent. A breach aborts,
 * which libFuzzer reports as a crash.
 */
#include "replay/server_info.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KEY "sk-fuzz-key-0123"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const cJSON *s)
{
	if (cJSON_IsString(s) && strlen(s->valuestring) > SERVER_INFO_MAX_STRING)
		abort();
	if (cJSON_IsString(s) && strstr(s->valuestring, KEY))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *version;
	cJSON *out, *in, *kept;
	const cJSON *it;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	version = text + strlen(text) + (strlen(text) < size ? 1 : 0);
	out = cJSON_CreateObject();
	if (out && server_info_read_models(out, text, KEY) > 0) {
		const cJSON *models = cJSON_GetObjectItemCaseSensitive(out, "models");
		const cJSON *len = cJSON_GetObjectItemCaseSensitive(out, "max_model_len");

		if (cJSON_GetArraySize(models) > SERVER_INFO_MAX_FIELDS)
			abort();
		cJSON_ArrayForEach(it, models) {
			check_string(it);
		}
		if (len && !(cJSON_IsNumber(len) && len->valuedouble > 0 && len->valuedouble < 1e12))
			abort();
	}
	cJSON_Delete(out);
	in = cJSON_ParseWithLength(version, (size_t)(text + size - version));
	kept = in ? server_info_keep(in, KEY) : NULL;
	if (kept) {
		if (cJSON_GetArraySize(kept) > SERVER_INFO_MAX_FIELDS)
			abort();
		cJSON_ArrayForEach(it, kept) {
			if (cJSON_IsObject(it) || cJSON_IsArray(it) || cJSON_IsNull(it))
				abort();
			check_string(it);
		}
	}
	cJSON_Delete(kept);
	cJSON_Delete(in);
	free(text);
	return 0;
}
