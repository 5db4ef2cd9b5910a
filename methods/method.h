/*
 * The method table: every way pipeopt computes a result, as one entry —
 * its name, its settings (declared once as an option table, so the
 * command line, --help, the sweep spec reader, the README's tables and the
 * settings a result row records all come from it) and a run() that gives
 * a typed verdict.
 *
 * Adding a method is one new file (methods/NAME.c defining
 * `const struct method method_NAME`) and one line in methods/method.c.
 * The sweep runs every entry with a run(); the commands (cli/) parse the
 * same tables and call the same procedures, adding what only a terminal
 * needs (files to write, timelines).
 */
#ifndef PIPEOPT_METHOD_H
#define PIPEOPT_METHOD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/options.h"
#include "graph/graph.h"
#include "sched/instance.h"
#include "sched/schedule.h"
#include "sched/verdict.h"

/* What one run works on, and how. */
struct method_call {
	const struct instance *in;   /* instance methods */
	int64_t lower_bound;         /* of in (sched/bound.h), time units */
	const struct graph *g;       /* graph methods */
	int devices;                 /* graph methods: devices to use */
	const void *settings;        /* the method's settings struct */
	const struct run_opts *run;  /* the shared options (threads, time limit) */
	uint64_t seed;               /* a search's seed (a sweep's per-task seed) */
};

struct method_result {
	struct verdict v;
	struct schedule *schedule;   /* instance methods: the schedule (owned), re-simulated */
	json_t *extra;               /* the method's own row keys (owned), or NULL */
	char error[512];             /* v.outcome error or unsupported: why, one line */
	int64_t makespan, span;      /* of the schedule, simulated (time units) */
	double bubble_ratio;
};

struct method {
	const char *name;            /* "solve" */
	const char *summary;         /* one line */
	const struct opt *opts;      /* its settings, ended by {0} */
	size_t size;                 /* bytes of its settings struct */
	bool on_graph;               /* runs on a model graph (else an instance) */
	const char *time_limit;      /* its default --time-limit, or NULL: it takes none */
	const char *threads;         /* its default --threads, or NULL: it takes none */
	/* one run: fills r (the verdict is OUTCOME_ERROR with r->error when the
	 * method could not run; STATUS_ERROR only when r itself could not be
	 * made, e.g. out of memory) */
	enum status (*run)(const struct method_call *c, struct method_result *r,
			   struct error *err);
};

int method_count(void);
const struct method *method_at(int i);
/* NULL for an unknown name. */
const struct method *method_find(const char *name);
/* The i-th method's name, NULL past the end (an OPT_CHOICE enumerator). */
const char *method_name_at(int i);

/* The option set of method m over its settings and the shared options
 * (time limit and threads where it takes them, its defaults applied). */
void method_opt_set(const struct method *m, void *settings, struct run_opts *run,
		    struct opt_set *set);

void method_result_release(struct method_result *r);

/* A result without a schedule: outcome o (error, unsupported, ...) and
 * why, one line. */
void method_refuse(struct method_result *r, enum outcome o, const char *why);

/* Simulate r->schedule on c->in into r->v (objective against c's lower
 * bound), r->makespan, span and bubble ratio; false when the simulator
 * refuses it (r->v's outcome is then `refused`, r->error why). */
bool method_simulate(const struct method_call *c, struct method_result *r, enum outcome refused);

/* The registered methods (one file each). */
extern const struct method method_family, method_solve, method_search, method_partition;
extern const struct method method_plan;
extern const struct method method_profile, method_exec;

#endif
