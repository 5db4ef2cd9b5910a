/*
 * libFuzzer harness: PyTorch pipelining CSV schedules (sched/torch_csv.c,
 * torch_csv_parse). torch_csv.h: "export followed by import gives back the
 * same schedule", so an accepted schedule exported (I/W when it has a W,
 * fused B otherwise) must import equal.
 */
#include "fuzz.h"

#include "sched/torch_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *csv = NULL;
	struct schedule *s = NULL, *back = NULL;
	struct error err = {{0}};
	if (text && torch_csv_parse(text, "fuzz", &s, &err) == STATUS_OK) {
		csv = torch_csv_format(s, NULL, schedule_has_w(s));
		fuzz_check(csv && torch_csv_parse(csv, "fuzz (exported)", &back, &err) == STATUS_OK,
			   "torch_csv_format output rejected", err.msg);
		fuzz_check(schedule_equal(s, back), "schedule changed through torch_csv_format", NULL);
	}
	schedule_free(back);
	schedule_free(s);
	free(csv);
	free(text);
	return 0;
}
