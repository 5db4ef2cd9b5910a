/*
 * Predefined schedule families. Most are programs in the schedule language
 * (datasets/schedules/NAME.sched, embedded into the binary at build time); a
 * family that is a search rather than a pattern (zb-auto) is C code behind
 * the same entry. Each builds a schedule for the instances it supports and
 * refuses the others with the reason.
 */
#ifndef PIPEOPT_FAMILY_H
#define PIPEOPT_FAMILY_H

#include "common/error.h"
#include "sched/instance.h"
#include "sched/lang.h"
#include "sched/schedule.h"

struct family {
	const char *name;
	const char *summary;     /* one line for `pipeopt families` */
	const char *supports;    /* which instances, in words */
	const char *file;        /* "datasets/schedules/NAME.sched", or NULL */
	const struct program *program;   /* a language family, or NULL */
	enum status (*generate)(const struct instance *in,
				struct schedule **out, struct error *err);
};

/* An embedded program file (generated from datasets/schedules/). */
struct builtin_program {
	const char *file;
	const char *text;
};
extern const struct builtin_program builtin_programs[];

/* Registry, in the order `pipeopt families` lists them. The first call
 * parses the embedded programs; an embedded program that does not parse is
 * a build defect and aborts with its message. Thread-safe. */
int family_count(void);
const struct family *family_at(int i);
const struct family *family_find(const char *name);

/* Build family `name` for the instance (a new schedule the caller frees).
 * The schedule is not simulated here: callers validate with sim_run(). */
enum status family_generate(const char *name, const struct instance *in,
			    struct schedule **out, struct error *err);

/* One micro-batch after another: forwards in topological order, then
 * backwards in reverse. Never deadlocks and holds one micro-batch per
 * device at a time; the last-resort schedule (NULL when out of memory). */
struct schedule *family_serial(const struct instance *in);

/* GPipe in groups of g micro-batches: the forwards of a group (in
 * topological order), then its backwards (each W right after its B), then
 * the next group. g = 1 is the serial schedule, g = M GPipe. Valid when g
 * micro-batches fit in memory. NULL when out of memory. */
struct schedule *family_grouped(const struct instance *in, int g);

/* Build from family f. */
enum status family_run(const struct family *f, const struct instance *in,
		       struct schedule **out, struct error *err);

#endif
