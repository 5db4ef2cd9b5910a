/*
 * One small interface to MILP solvers, with a backend per file (glpk.c,
 * cbc.c) chosen by name at run time. A solve has an outcome (optimal,
 * feasible, infeasible, ...), which is a result, not an error: only a
 * failure to run the solver at all returns STATUS_ERROR.
 *
 * Adding a solver (HiGHS, SCIP) is one new file and one line in solver.c.
 */
#ifndef PIPEOPT_SOLVER_H
#define PIPEOPT_SOLVER_H

#include <stdbool.h>

#include "formulate/milp.h"
#include "common/error.h"

enum outcome {
	OUTCOME_OPTIMAL,      /* proven optimal (within the gap tolerance) */
	OUTCOME_FEASIBLE,     /* stopped with a solution, not proven optimal */
	OUTCOME_TIME_LIMIT,   /* the time limit stopped it (solution or not) */
	OUTCOME_INFEASIBLE,   /* proven infeasible */
	OUTCOME_UNBOUNDED,    /* unbounded (or infeasible-or-unbounded) */
	OUTCOME_NO_SOLUTION,  /* stopped otherwise without a solution */
};

const char *outcome_name(enum outcome o);   /* "optimal", "time_limit", ... */

struct solver_options {
	double time_limit;        /* seconds of wall-clock time; <= 0: none */
	int threads;              /* 1 by default */
	double rel_gap;           /* stop when (obj - bound)/|obj| <= this; 0 = exact */
	double abs_gap;           /* or obj - bound <= this (e.g. 0.999 for integer
	                             objectives); 0 = none */
	const double *start;      /* [ncols] a feasible point (MIP start), or NULL */
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
};

void solver_result_release(struct solver_result *r);   /* frees x */

struct solver_backend {
	const char *name;                 /* "glpk", "cbc" */
	const char *(*version)(void);     /* e.g. "5.0", "2.10.8" */
	enum status (*solve)(const struct milp *m, const struct solver_options *o,
			     struct solver_result *r, struct error *err);
};

/* Run b->solve in a child process (isolate.c): a crash or a solver that
 * overruns its time limit (killed after a grace period: outcome
 * time_limit, nothing known) cannot take the caller down, and solves in
 * different threads cannot share solver state. */
enum status solver_solve_isolated(const struct solver_backend *b,
				  const struct milp *m,
				  const struct solver_options *o,
				  struct solver_result *r, struct error *err);

/* Registry. solver_find returns NULL for an unknown name. */
int solver_count(void);
const struct solver_backend *solver_at(int i);
const struct solver_backend *solver_find(const char *name);

/* The backends (one file each). */
extern const struct solver_backend solver_glpk;
extern const struct solver_backend solver_cbc;

#endif
