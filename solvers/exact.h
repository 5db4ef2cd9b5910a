/*
 * Exact solution of a schedule instance: the best heuristic schedule as
 * the upper bound and MIP start, the lower bounds of sched/bound.h, and a
 * MILP (formulate/) solved by a backend (solver.h) when the two differ.
 *
 * A result is certified only when optimality is proven (the heuristic
 * meets the lower bound, or the solver's bound is within one time unit of
 * the integer objective) and the schedule, re-simulated, has exactly that
 * objective.
 */
#ifndef PIPEOPT_EXACT_H
#define PIPEOPT_EXACT_H

#include <stdbool.h>
#include <stdint.h>

#include "formulate/formulation.h"
#include "sched/instance.h"
#include "sched/schedule.h"
#include "solvers/solver.h"

struct exact_options {
	const char *solver;                 /* a registry name (solver.h); NULL: "cbc" */
	const char *formulation;            /* a registry name (formulation.h), or
	                                       NULL or "auto": the automatic choice */
	double time_limit;                  /* seconds for the whole solve; <= 0: none */
	double kill_at;                     /* monotonic time (clock.h) past which no
	                                       solver child runs; 0: the limit plus
	                                       half its allowance (common/stop.h) */
	int threads;
	bool cross_check;                   /* also solve with the other backend */
	const struct schedule *start;       /* an extra candidate schedule, or NULL */
	const char *start_name;             /* what it is ("ga"); NULL: "given" */
	const char *write_lp, *write_mps;   /* export the (first) model, or NULL */
	bool verbose;
	bool always_milp;                   /* solve the MILP even when the best
	                                       heuristic meets the lower bound */
	double search_share;                /* fraction of the time left for the
	                                       exact search before the MILP;
	                                       <= 0: a tenth (makespan), half
	                                       (span) */
	/* Tests only: the MILP stage starts from the proven lower bound minus
	 * this many units (not below 0), as if sched/bound.c were that much
	 * weaker, so that the time-indexed targets must prove those units
	 * back by infeasible answers (on instances small enough to brute-force
	 * the bound meets the optimum, and that branch is never reached).
	 * A weaker start loses no proof: every bound stays valid. */
	int64_t test_bound_slack;
	/* Tests only: solve every MILP with this backend (backend.h) instead
	 * of `solver`'s. */
	const struct solver_backend *test_backend;
	void (*progress)(void *ctx, double incumbent, double bound);
	void *progress_ctx;
	/* Beyond the exact search (more than BNB_MAX_OPS ops) and with a time
	 * limit: a heuristic search from the best schedule after the local
	 * search, given `seconds`, the solve's `threads` and the bound it may
	 * stop at; *out a schedule or NULL (exact.c simulates it and keeps it
	 * only if valid and better). methods/solve.c gives `search`'s GA with
	 * its seeds. NULL: no such step. */
	enum status (*improve)(void *ctx, const struct instance *in, double seconds,
			       int threads, const struct schedule *start, int64_t bound,
			       struct schedule **out, struct error *err);
	void *improve_ctx;
};

struct exact_result {
	const char *status;          /* "optimal", "feasible", "time_limit" */
	const char *stopped_by;      /* when not proven: "interrupt" (common/stop.h),
	                                "time_limit", "recompute_not_modelled" or
	                                "offload_not_modelled" (no MILP models
	                                those decisions: beyond the exact search
	                                only the bound proves), "model_too_large"
	                                (exact.c, MILP_MAX_PAIR_UNITS); NULL when
	                                proven */
	const char *unproven;        /* one of the above, or NULL */
	bool certified;
	const char *certified_by;    /* "bound", "solver", "search" (bnb.h), or NULL */
	struct schedule *schedule;   /* the best schedule found (owned) */
	int64_t objective;           /* of that schedule, simulated */
	int64_t bound;               /* best proven lower bound (integer) */
	double gap;                  /* (objective - bound) / objective */
	int64_t lower_bound;         /* from sched/bound.c, the shaving and
	                                the window bounds (shave.h, relax.h),
	                                before any search */
	long search_nodes;           /* the exact search's (span), 0 if not run */
	double search_seconds;
	const char *lower_bound_by;  /* which of its arguments gave it (bound.h),
	                                "shaving" (shave.h) or "window" (relax.h) */
	int window_lo, window_hi;    /* the window of devices whose relaxation
	                                gave lower_bound, -1 if none */
	int window_windows;          /* windows searched (0: none) */
	double window_seconds;
	bool shave_ran;              /* the shaving bound (shave.h) ran */
	int shave_refuted;           /* targets it refuted */
	long shave_propagations;
	long shave_nodes;            /* its search's (shave.h), 0 if not run */
	int64_t shave_objective;     /* the search's schedule, 0 if none kept */
	double shave_seconds;
	char heuristic[64];          /* the family that gave the best start */
	int64_t heuristic_objective;
	/* the local search from it (lns.h), when run (lns_windows > 0) */
	int solver_crashes;          /* MILP passes whose solver process crashed
	                                before its limit: each lost that pass
	                                only (exact.c, run_backend) */
	/* the heuristic search (exact_options.improve), when run */
	bool improve_ran;
	int64_t improve_from;        /* the objective it started from */
	int64_t improve_objective;   /* its best, 0 if none beat its start */
	double improve_seconds;
	/* the search over K-periodic orders (cyclic.h), when run */
	bool cyclic_ran;
	int cyclic_K;                /* the round of its schedule */
	long cyclic_evaluations;
	int64_t cyclic_objective;    /* its best, 0 if none beat its start */
	double cyclic_seconds;
	int lns_windows, lns_improvements;
	double lns_seconds;
	int64_t lns_from;            /* the objective it started from */
	int64_t lns_objective;       /* its best */
	/* the MILP, when one was solved */
	bool solved;
	char solver[16], solver_version[32];
	const char *formulation;     /* the formulation's name, or "disjunctive,
	                                then time-indexed" (auto) */
	const char *solver_outcome;
	long nodes;
	double solver_seconds;
	int columns, rows, binaries;
	int64_t horizon;
	/* checks */
	const char *cross_check;     /* "agreed", "inconclusive", "not run" */
	char cross_detail[160];
	double seconds;              /* wall time of the whole solve */
};

enum status exact_solve(const struct instance *in, const struct exact_options *o,
			struct exact_result *r, struct error *err);
void exact_result_release(struct exact_result *r);

/* The best objective of a valid schedule among the families, `extra` (may
 * be NULL) and the serial order: the upper bound the procedure starts
 * from; INT64_MAX when none is valid. */
int64_t exact_upper_bound(const struct instance *in, const struct schedule *extra);

/* A horizon every op of some optimal schedule ends by, given the upper
 * bound ub on the objective (argued in exact.c). */
int64_t exact_horizon(const struct instance *in, int64_t ub);

#endif
