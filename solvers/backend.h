/*
 * The backend table behind solver.h: private to solvers/ (and to the
 * conformance tests, which run every backend directly). Everyone else
 * holds a backend as the opaque handle solver_find() and solver_at()
 * return.
 *
 * Adding a backend (HiGHS, SCIP) is one new file, solvers/NAME.c, that
 * defines `const struct solver_backend solver_NAME = {...}`, its extern
 * line below, and its entry in the registry in solver.c.
 */
#ifndef PIPEOPT_BACKEND_H
#define PIPEOPT_BACKEND_H

#include "solvers/solver.h"

struct solver_backend {
	const char *name;                 /* "glpk", "cbc" */
	const char *(*version)(void);     /* e.g. "5.0", "2.10.8" */
	enum status (*solve)(const struct milp *m, const struct solver_options *o,
			     struct solver_result *r, struct error *err);
	/* The exact solver's `auto` order (exact.c, milp_auto): with split
	 * backward the time-indexed targets go first; with fused backward
	 * too when their model at the incumbent less one has at most this
	 * many binaries; 0: never. */
	long fused_targets_max;
	/* The disjunctive model's targets (exact.c, target_loop) are each
	 * capped at this share of the time limit: with fused backward beyond
	 * fused_targets_max before the model with the incumbent, with split
	 * backward before the time-indexed targets. */
	double target_share;
};

/* The backends (one file each). */
extern const struct solver_backend solver_glpk;
extern const struct solver_backend solver_cbc;

#endif
