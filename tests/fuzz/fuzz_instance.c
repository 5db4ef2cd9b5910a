/*
 * libFuzzer harness: schedule instances (sched/instance.c, instance_parse).
 * An accepted instance written back with instance_to_json must read back as
 * the same instance (instance.h: "equals, field by field"): same digest.
 */
#include "fuzz.h"

#include "sched/instance.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct instance *in = NULL, *back = NULL;
	struct error err = {{0}};
	if (text && instance_parse(text, "fuzz", &in, &err) == STATUS_OK) {
		json_t *j = instance_to_json(in);
		fuzz_check(j && instance_from_json(j, "fuzz (written back)", &back, &err) == STATUS_OK,
			   "instance_to_json output rejected", err.msg);
		char a[65], b[65];
		instance_digest(in, a);
		instance_digest(back, b);
		fuzz_check(!strcmp(a, b), "instance changed through instance_to_json", NULL);
		json_decref(j);
	}
	instance_free(back);
	instance_free(in);
	free(text);
	return 0;
}
