/*
 * body.c - the request body replay sends: a trace's body with the
 * command line's overrides and include_usage; see body.h.
 */
#include "body.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Replaces obj[key] with a new item (taking ownership of it). */
static void set_field(cJSON *obj, const char *key, cJSON *item)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddItemToObject(obj, key, item);
}

int body_rewrite(const char *body, size_t len, const struct body_overrides *ov,
		 char **out, size_t *out_len)
{
	cJSON *json = cJSON_ParseWithLength(body, len);
	char *s;

	if (cJSON_IsObject(json)) {
		if (ov->model)
			set_field(json, "model", cJSON_CreateString(ov->model));
		if (ov->max_tokens > 0) {
			set_field(json, "max_tokens", cJSON_CreateNumber((double)ov->max_tokens));
			if (cJSON_HasObjectItem(json, "max_completion_tokens"))
				set_field(json, "max_completion_tokens",
					  cJSON_CreateNumber((double)ov->max_tokens));
		}
		if (ov->ignore_eos)
			set_field(json, "ignore_eos", cJSON_CreateTrue());
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "stream"))) {
			cJSON *opts = cJSON_GetObjectItemCaseSensitive(json, "stream_options");

			if (!cJSON_IsObject(opts)) {
				opts = cJSON_CreateObject();
				set_field(json, "stream_options", opts);
			}
			set_field(opts, "include_usage", cJSON_CreateTrue());
		}
		s = cJSON_PrintUnformatted(json);
	} else {
		s = strdup(body);
	}
	cJSON_Delete(json);
	if (!s)
		return BODY_ENOMEM;
	*out = s;
	*out_len = strlen(s);
	return BODY_OK;
}

const char *body_strerror(int rc)
{
	switch (rc) {
	case BODY_OK:
		return "success";
	case BODY_ENOMEM:
		return "out of memory";
	default:
		return "unknown error";
	}
}
