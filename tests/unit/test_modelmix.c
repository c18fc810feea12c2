/*
 * test_modelmix.c - the model mix of replay --model-mix and mock --models
 * (lib/modelmix.c): what a spec may be, what is refused and why, and the
 * draw: the same for the same seed and key, whatever else was drawn,
 * near the weights over many keys, one model per session.
 */
#include "harness.h"
#include "lib/modelmix.h"
#include "lib/result.h"

static int parses(const char *spec, struct modelmix *m)
{
	char err[256];

	return modelmix_parse(m, spec, err, sizeof(err));
}

/* The reason spec is refused, "" when it is not. */
static const char *refusal(const char *spec)
{
	static char err[256];
	struct modelmix m;

	err[0] = '\0';
	if (modelmix_parse(&m, spec, err, sizeof(err)) == 0)
		return "";
	return err;
}

TEST(parses_names_and_weights)
{
	struct modelmix m;

	CHECK_EQ_INT(parses("base:3,lora-1:1", &m), 0);
	CHECK_EQ_INT((int)m.n, 2);
	CHECK_STR(m.e[0].name, "base");
	CHECK_NEAR(m.e[0].weight, 3, 0);
	CHECK_STR(m.e[1].name, "lora-1");
	CHECK_NEAR(m.total, 4, 0);
	/* a weight left out is 1; fractions; a name may hold colons (the
	 * last one splits) and slashes */
	CHECK_EQ_INT(parses("a,b:0.5,org/adapter:v2:2", &m), 0);
	CHECK_EQ_INT((int)m.n, 3);
	CHECK_NEAR(m.e[0].weight, 1, 0);
	CHECK_NEAR(m.e[1].weight, 0.5, 0);
	CHECK_STR(m.e[2].name, "org/adapter:v2");
	CHECK_NEAR(m.e[2].weight, 2, 0);
	CHECK_EQ_INT(modelmix_find(&m, "b"), 1);
	CHECK_EQ_INT(modelmix_find(&m, "org/adapter"), -1);
	CHECK_EQ_INT(parses("only", &m), 0);
	CHECK_EQ_INT((int)m.n, 1);
}

TEST(refuses_bad_specs_naming_the_entry)
{
	char many[MODELMIX_MAX * 4 + 8] = "", longname[MODELMIX_NAME_MAX + 8];
	size_t i;

	CHECK(strstr(refusal(""), "entry 1: empty model name") != NULL);
	CHECK(strstr(refusal("a,,b"), "entry 2: empty model name") != NULL);
	CHECK(strstr(refusal("a,"), "entry 2: empty model name") != NULL);
	CHECK(strstr(refusal(":3"), "entry 1: empty model name") != NULL);
	CHECK(strstr(refusal("a:0"), "entry 1: weight '0'") != NULL);
	CHECK(strstr(refusal("a,b:-1"), "entry 2: weight '-1'") != NULL);
	CHECK(strstr(refusal("a:x"), "weight 'x'") != NULL);
	CHECK(strstr(refusal("a:"), "weight ''") != NULL);
	CHECK(strstr(refusal("a:1e10"), "weight") != NULL);
	CHECK(strstr(refusal("a:nan"), "weight") != NULL);
	CHECK(strstr(refusal("a:inf"), "weight") != NULL);
	CHECK(strstr(refusal("a:2 "), "weight") != NULL);
	CHECK(strstr(refusal("a: 2"), "weight") != NULL);
	CHECK(strstr(refusal("a:\n2"), "weight '?2'") != NULL);   /* shown on one line */
	CHECK(strstr(refusal(" a"), "space or a control byte") != NULL);
	CHECK(strstr(refusal("a b"), "space or a control byte") != NULL);
	CHECK(strstr(refusal("a\tb"), "space or a control byte") != NULL);
	CHECK(strstr(refusal("a,b,a:2"), "model 'a' given twice") != NULL);
	for (i = 0; i < MODELMIX_MAX + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%zu", i ? "," : "", i);
	CHECK(strstr(refusal(many), "more than") != NULL);
	many[strlen(many) - 3] = '\0';   /* MODELMIX_MAX of them: kept */
	CHECK_STR(refusal(many), "");
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK(strstr(refusal(longname), "too long") != NULL);
	longname[MODELMIX_NAME_MAX - 1] = '\0';   /* the longest kept */
	CHECK_STR(refusal(longname), "");
	/* a name fits a result's model field */
	CHECK_EQ_INT(MODELMIX_NAME_MAX <= RESULT_MODEL_MAX, 1);
}

TEST(the_draw_is_a_function_of_seed_and_key)
{
	struct modelmix m;
	size_t counts[3] = { 0 }, i, first[64];

	CHECK_EQ_INT(parses("a:2,b:1,c:1", &m), 0);
	for (i = 0; i < 64; i++)
		first[i] = modelmix_pick(&m, 1, modelmix_key((long)i, -1));
	/* in another order, after other draws: the same */
	for (i = 64; i-- > 0;) {
		(void)modelmix_pick(&m, 7, (uint64_t)i);
		CHECK_EQ_INT((int)modelmix_pick(&m, 1, modelmix_key((long)i, -1)), (int)first[i]);
	}
	/* another seed: another assignment */
	for (i = 0; i < 64; i++)
		if (modelmix_pick(&m, 2, modelmix_key((long)i, -1)) != first[i])
			break;
	CHECK(i < 64);
	/* shares near the weights: 1/2, 1/4, 1/4 of 20000 within 5 sd */
	for (i = 0; i < 20000; i++)
		counts[modelmix_pick(&m, 1, modelmix_key((long)i, -1))]++;
	CHECK(counts[0] > 10000 - 354 && counts[0] < 10000 + 354);
	CHECK(counts[1] > 5000 - 307 && counts[1] < 5000 + 307);
	CHECK(counts[2] > 5000 - 307 && counts[2] < 5000 + 307);
}

TEST(a_session_is_one_key)
{
	/* every turn of a session draws by the session, whatever its trace id;
	 * session keys and request keys never meet */
	CHECK(modelmix_key(5, 3) == modelmix_key(9, 3));
	CHECK(modelmix_key(3, -1) != modelmix_key(0, 3));
	CHECK(modelmix_key(3, -1) != modelmix_key(4, -1));
}

TEST(one_model_takes_every_draw)
{
	struct modelmix m;
	size_t i;

	CHECK_EQ_INT(parses("solo:0.001", &m), 0);
	for (i = 0; i < 100; i++)
		CHECK_EQ_INT((int)modelmix_pick(&m, i, i * 31), 0);
}

/* r as a results file holds it: printed and parsed again (its int64
 * fields are raw numbers until then). */
static cJSON *as_written(const struct result *r)
{
	cJSON *o = result_to_json(r), *back;
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;

	back = text ? cJSON_Parse(text) : NULL;
	free(text);
	cJSON_Delete(o);
	return back;
}

TEST(results_keep_their_model)
{
	struct result r, back;
	char err[128];
	cJSON *j;

	result_init(&r);
	r.level = 1;
	r.status = 200;
	r.sched_ns = r.send_ns = 0;
	r.e2e_ns = 1000;
	r.output_tokens = 1;
	result_set_model(&r, "lora-1");
	j = as_written(&r);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "model")), "lora-1");
	result_init(&back);
	CHECK_EQ_INT(result_from_json(&back, j, err, sizeof(err)), 0);
	CHECK_STR(back.model, "lora-1");
	cJSON_Delete(j);
	result_release(&back);
	/* none: no field, and a file with none reads as none */
	result_set_model(&r, NULL);
	j = as_written(&r);
	CHECK(cJSON_GetObjectItem(j, "model") == NULL);
	result_init(&back);
	CHECK_EQ_INT(result_from_json(&back, j, err, sizeof(err)), 0);
	CHECK_STR(back.model, "");
	/* a model not a name is refused, naming the field */
	cJSON_AddNumberToObject(j, "model", 3);
	result_release(&back);
	result_init(&back);
	CHECK_EQ_INT(result_from_json(&back, j, err, sizeof(err)), -1);
	CHECK(strstr(err, "'model'") != NULL);
	cJSON_Delete(j);
	result_release(&back);
	result_release(&r);
}

int main(void)
{
	RUN(parses_names_and_weights);
	RUN(refuses_bad_specs_naming_the_entry);
	RUN(the_draw_is_a_function_of_seed_and_key);
	RUN(a_session_is_one_key);
	RUN(one_model_takes_every_draw);
	RUN(results_keep_their_model);
	return harness_done();
}
