/*
 * Shaving bounds: lower bounds on the makespan by constraint propagation,
 * destructively. For a target T, "does some schedule end by T?": every op
 * gets a window, its earliest start and latest end (heads, and T minus its
 * tail), and the windows propagate through the precedence arcs, the pairs'
 * orders they decide and edge finding on each device (opgraph_windows,
 * formulate/opgraph.h). If a window empties, no schedule ends by T.
 *
 * Shaving (Carlier and Pinson's, and Martin and Shmoys's for the job
 * shop) asks more of each op: could it start within its first delta time
 * units, [s_o, s_o + delta]? If propagation with its window cut to that
 * empties some window, no schedule ending by T starts it there, so its
 * earliest start rises past s_o + delta (the largest such delta by
 * bisection: a smaller cut only empties more); the mirror question cuts
 * the latest end. Each shave is a proof by itself, so the shrunk windows
 * hold for every schedule that ends by T, propagate in turn, and shaving
 * repeats until no window shrinks (T stands) or one empties (T + 1 is a
 * bound). The bound takes the targets from a known bound up, galloping
 * (shave.c climb).
 *
 * Measured (bench/results/shave.md): on p8 m16 fused backward, p
 * activations, comm 1 and 2 (held-out costs), the bound meets the
 * optimum in 0.2-1.2 s on all six, where CBC's bound after 60 s was 2-4
 * units short on five; p8 m32 fused, comm 1, unit costs: 180 in about
 * 7 s (the closed forms 173, CBC after 60 s 176). On split backward it
 * raised nothing until the windows took the memory the weight passes
 * free (formulate/opgraph.c, windows_memory); since, p4 m32 and
 * p8 m32 split, p activations, comm 1 are proven 131 and 147 (open at
 * 131/130 and 147/146 after 60 s of MILP).
 */
#ifndef PIPEOPT_SHAVE_H
#define PIPEOPT_SHAVE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

/* Whether shaving bounds apply: the makespan, and one op at a time on
 * every device (no F&B pairs that gain; recompute and offload neither,
 * whose ops the windows do not model), at most 20,000 ops (shave.c
 * SHAVE_MAX_OPS). */
bool shave_takes(const struct instance *in);

/* Whether the search at a standing target is worth its time: where the
 * windows hold memory well enough that its leaves keep the limit: no
 * memory limit, or one stage per device whose F takes memory and whose
 * B (and W, split) give it back, so that the memory arcs (fused) and the
 * split backward's releases (formulate/opgraph.c) decide when each
 * forward fits. Without the releases the weight passes freed memory that
 * nothing counted, and on p8 m16 split the search wandered 60 s among
 * leaves that broke the limit; with them it finds the optimum of all six
 * held-out p8 m16 split classes but one within seconds. */
bool shave_search_takes(const struct instance *in);

struct shave_options {
	double time_limit;       /* seconds; <= 0: none */
	int64_t lower_bound;     /* a proven bound to start from */
	int64_t upper_bound;     /* a known schedule's objective: no target
	                            is asked at or beyond it; INT64_MAX: none */
	bool search;             /* at the first target that shaving leaves
	                            standing, search it (shave.c
	                            search_target): a schedule, or a proof */
	double search_time;      /* seconds for each such search, within
	                            time_limit; <= 0: no cap of its own */
};

struct shave_result {
	int64_t bound;           /* the best bound proven, >= lower_bound */
	int refuted;             /* targets ruled out, bound - lower_bound */
	bool finished;           /* shaving reached a fixpoint at the target
	                            `bound` without emptying a window (or
	                            the bound met upper_bound): more time
	                            would not raise it */
	long propagations;
	long search_nodes;
	struct schedule *schedule;   /* the search's, ending by `bound` (owned:
	                                the caller frees), or NULL */
	int64_t objective;           /* its simulated objective */
	double seconds;
};

enum status shave_bound(const struct instance *in, const struct shave_options *o,
			struct shave_result *r, struct error *err);

#endif
