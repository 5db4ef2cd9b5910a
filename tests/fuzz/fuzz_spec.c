/*
 * libFuzzer harness: sweep specs (sweep/spec.c, sweep_spec_parse), with
 * relative paths resolved against datasets/sweeps, so the seeds' instance
 * files and graphs are found. Every task must name a point and a method
 * of the spec.
 */
#include "fuzz.h"

#include "sweep/spec.h"

#ifndef PIPEOPT_SOURCE_DIR
#error "PIPEOPT_SOURCE_DIR: the source tree (CMakeLists.txt defines it)"
#endif

static bool tasks_ok(const struct sweep_spec *s)
{
	bool ok = s->ntasks >= 0 && s->ntasks <= SWEEP_MAX_TASKS;
	for (int t = 0; ok && t < s->ntasks; t++)
		ok = s->tasks[t].point >= 0 && s->tasks[t].point < s->npoints &&
		     s->tasks[t].method >= 0 && s->tasks[t].method < s->nmethods &&
		     s->tasks[t].key != NULL;
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct sweep_spec *s = NULL;
	struct error err = {{0}};
	if (text && sweep_spec_parse(text, "fuzz", PIPEOPT_SOURCE_DIR "/datasets/sweeps", &s,
				     &err) == STATUS_OK)
		fuzz_check(tasks_ok(s), "a task names no point or method of the spec", s->name);
	sweep_spec_free(s);
	free(text);
	return 0;
}
