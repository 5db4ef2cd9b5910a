/*
 * libFuzzer harness: schedule-language programs (sched/lang_parse.c,
 * program_parse). Parsing only: running a program (lang_run.c) needs an
 * instance and is not a reader.
 */
#include "fuzz.h"

#include "sched/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct program *pg = NULL;
	struct error err = {{0}};
	if (text && program_parse(text, "fuzz", &pg, &err) == STATUS_OK)
		fuzz_check(program_summary(pg) && program_supports(pg),
			   "an accepted program without summary or supports text", NULL);
	program_free(pg);
	free(text);
	return 0;
}
