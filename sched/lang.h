/*
 * The schedule language: small per-device programs from which every
 * predefined family is generated (docs/language.md describes it, with the
 * families of datasets/schedules/ as examples).
 *
 * A program runs once per device d. Its statements emit ops F, B and W on a
 * chunk (the c-th stage the device hosts, in stage order); micro-batch
 * numbers are assigned in order per stage and kind, so programs never spell
 * them out. W is skipped when the instance's backward is fused.
 *
 * Ownership: program_parse()/program_read() return a program the caller
 * frees with program_free(); program_run() returns a new schedule.
 */
#ifndef PIPEOPT_LANG_H
#define PIPEOPT_LANG_H

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

struct program;

/* Parse program text; `source` names it in messages (file, line, column). */
enum status program_parse(const char *text, const char *source,
			  struct program **out, struct error *err);
enum status program_read(const char *path, struct program **out,
			 struct error *err);
void program_free(struct program *pg);

/* Header fields: `family NAME "summary"` and `supports "..."`; NULL (name)
 * or "" when the program has none. */
const char *program_name(const struct program *pg);
const char *program_summary(const struct program *pg);
const char *program_supports(const struct program *pg);

/* Run the program for every device. A failed `require` refuses the
 * instance with the program's message; runtime errors name the line,
 * column and device. The schedule is not validated here (see family.c). */
enum status program_run(const struct program *pg, const struct instance *in,
			struct schedule **out, struct error *err);

#endif
