/*
 * The schedule formulations behind one small table, chosen by name at run
 * time (`pipeopt solve --formulation NAME`), like the solver backends
 * (solvers/solver.h) and the families (sched/family.h).
 *
 * A formulation turns the common data of a struct sched_milp (instance,
 * precedence graph, horizon, bounds; schedule_milp.h) into columns and
 * rows, keeps its own columns in a private struct behind sm->data, and
 * knows the way from a schedule to a point and from a solution back to
 * start times. The objective's columns are shared (objective.h).
 *
 * Adding a formulation is one new file, formulate/NAME.c, that defines
 *     const struct formulation formulation_NAME = {.name = "NAME", ...};
 * and its line in the registry in formulation.c (a declaration and an
 * entry in the table).
 */
#ifndef PIPEOPT_FORMULATION_H
#define PIPEOPT_FORMULATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct opgraph;
struct sched_milp;
struct schedule;
struct sim_result;

struct formulation {
	const char *name;      /* "disjunctive", "time-indexed" */
	const char *summary;   /* one line for help texts */
	/* Add the columns and rows to sm->milp; the formulation's columns go
	 * in sm->data, which free_data releases (also after a failed build).
	 * Calls objective_columns() once (objective.h). */
	enum status (*build)(struct sched_milp *sm, struct error *err);
	/* Set the formulation's columns of x (zeroed, [ncols]) to the point
	 * of a simulated schedule; false when it lies outside the model. The
	 * objective's columns are set by the caller (sched_milp_point). */
	bool (*point)(const struct sched_milp *sm, const struct schedule *s,
		      const struct sim_result *r, double *x);
	/* Start and end of op o (time units) in a solution x. */
	void (*times)(const struct sched_milp *sm, const double *x, int o,
		      double *start, double *end);
	/* Optional (NULL: no opinion): for ops a and b of one device that
	 * start together in x and whose order the graph leaves open, < 0 when
	 * x runs a first, > 0 when it runs b first, 0 when x does not say. */
	int (*tie)(const struct sched_milp *sm, const double *x, int a, int b);
	/* Optional (NULL: never): the op that runs with op o as one
	 * overlapped F&B pair in x, or -1. */
	int (*partner)(const struct sched_milp *sm, const double *x, int o);
	/* Optional (NULL: never): whether B op o rebuilds its micro-batch's
	 * dropped activations in x (instance `recompute`). */
	bool (*recomputed)(const struct sched_milp *sm, const double *x, int o);
	/* Optional (NULL: none): put the copies (offloads, reloads) x runs on
	 * device d into s's row d, which holds its compute ops in order
	 * (instance `offload`); non-zero out of memory. */
	enum status (*copies)(const struct sched_milp *sm, const double *x,
			      struct schedule *s, int d);
	void (*free_data)(void *data);   /* accepts NULL */
	/* Optional: the binaries the model would have at `horizon` (to decide
	 * beforehand), or -1 when the horizon is below an op's longest path. */
	long (*size)(const struct opgraph *g, int64_t horizon);
	/* Whether the model holds overlapped F&B pairs (instance `overlap`):
	 * only such a formulation may solve an instance where pairs gain. */
	bool pairs;
	/* Whether it holds recompute choices (instance `recompute`): only
	 * such a formulation may solve an instance with them. */
	bool recompute;
	/* Whether it holds offload choices (instance `offload`, makespan). */
	bool offload;
};

/* Registry, in the order help texts list it. formulation_at asserts
 * 0 <= i < formulation_count(); formulation_find returns NULL for an
 * unknown name (or NULL). */
int formulation_count(void);
const struct formulation *formulation_at(int i);
const struct formulation *formulation_find(const char *name);

/* The registered names joined by sep ("disjunctive, time-indexed" for
 * ", "), for help texts and errors; truncated to fit buf [n]. Returns buf. */
const char *formulation_names(char *buf, size_t n, const char *sep);

#endif
