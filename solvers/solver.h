/*
 * One small interface to MILP solvers, with a backend per file (glpk.c,
 * cbc.c) chosen by name at run time. A solve has an outcome (optimal,
 * feasible, infeasible, ...), which is a result, not an error: only a
 * failure to run the solver at all returns STATUS_ERROR.
 *
 * A backend is an opaque handle here; its table is private (backend.h,
 * which also says how to add one).
 */
#ifndef PIPEOPT_SOLVER_H
#define PIPEOPT_SOLVER_H

#include <stdbool.h>
#include <stddef.h>

#include "formulate/milp.h"
#include "common/error.h"
#include "sched/verdict.h"

/* enum outcome and outcome_name: sched/verdict.h (one vocabulary for
 * solves, searches, families and sweeps). */

struct solver_options {
	double time_limit;        /* seconds of wall-clock time; <= 0: none */
	int threads;              /* 1 by default */
	double rel_gap;           /* stop when (obj - bound)/|obj| <= this; 0 = exact */
	double abs_gap;           /* or obj - bound <= this (e.g. 0.999 for integer
	                             objectives); 0 = none */
	const double *start;      /* [ncols] a feasible point (MIP start), or NULL */
	double kill_at;           /* isolated solves: the monotonic time (clock.h)
	                             at which the child is killed; 0: the limit
	                             plus half its allowance (common/stop.h) */
	bool verbose;             /* solver log on stderr; silent by default */
	/* Called now and then with the incumbent (or NAN) and the bound. */
	void (*progress)(void *ctx, double incumbent, double bound);
	void *progress_ctx;
};

struct solver_result {
	enum outcome outcome;
	bool has_solution;
	double objective;         /* of the solution, when has_solution */
	double bound;             /* best proven lower bound (minimisation) */
	double *x;                /* [ncols] the solution, malloc'ed; NULL if none */
	long nodes;               /* branch-and-bound nodes */
	double seconds;           /* wall time of the solve */
	int crash_signal;         /* isolated solves: the signal that ended the
	                             solver's process before its limit (the
	                             call then fails), else 0 */
};

void solver_result_release(struct solver_result *r);   /* frees x */

struct solver_backend;   /* a backend (backend.h), from the registry below */

/* Run b->solve in a child process (isolate.c): a crash or a solver that
 * overruns its time limit (killed at o->kill_at: outcome time_limit,
 * nothing known) cannot take the caller down, and solves in different
 * threads cannot share solver state. On an interrupt (common/stop.h) the
 * child gets SIGINT and half a second to answer with what it has; then it
 * is killed. */
enum status solver_solve_isolated(const struct solver_backend *b,
				  const struct milp *m,
				  const struct solver_options *o,
				  struct solver_result *r, struct error *err);

/* Registry. solver_at asserts 0 <= i < solver_count(); solver_find
 * returns NULL for an unknown name. */
int solver_count(void);
const struct solver_backend *solver_at(int i);
const struct solver_backend *solver_find(const char *name);

/* The registered names joined by sep ("cbc|glpk" for "|"), for help
 * texts and errors; truncated to fit buf [n]. Returns buf. */
const char *solver_names(char *buf, size_t n, const char *sep);
/* The i-th backend's name, NULL past the end (an OPT_CHOICE enumerator). */
const char *solver_name_at(int i);

#endif
