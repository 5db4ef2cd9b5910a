/*
 * libFuzzer harness: schedule JSON (sched/schedule.c, schedule_parse). An
 * accepted schedule written back with schedule_to_json must read back equal.
 */
#include "fuzz.h"

#include "sched/schedule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct schedule *s = NULL, *back = NULL;
	struct error err = {{0}};
	if (text && schedule_parse(text, "fuzz", &s, &err) == STATUS_OK) {
		json_t *j = json_pack("{s:o}", "schedule", schedule_to_json(s));
		fuzz_check(j && schedule_from_json(j, "fuzz (written back)", &back, &err) == STATUS_OK,
			   "schedule_to_json output rejected", err.msg);
		fuzz_check(schedule_equal(s, back), "schedule changed through schedule_to_json", NULL);
		json_decref(j);
	}
	schedule_free(back);
	schedule_free(s);
	free(text);
	return 0;
}
