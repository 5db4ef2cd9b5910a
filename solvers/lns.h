/*
 * Local search by exact neighbourhoods (large neighbourhood search): keep
 * each device's order of a schedule but for one segment of it, and let the
 * exact search (bnb.h, `fixed`) find the best orders of the segments. A
 * neighbourhood frees the ops that start in a stretch of time on every
 * device, or two or three consecutive devices' whole orders. A better
 * schedule found replaces the current one and the neighbourhoods start
 * again. Where none improves, a kick: the same schedule with its weight
 * passes deferred (schedule_defer_weights: every device's, then the first
 * half's) is descended from, and replaces the local optimum if it ends
 * below it. The search stops when neither improves, or at its time limit.
 *
 * Why: the GA's mutations change one device's order a few ops at a time,
 * and its decoder times every device greedily; an improvement that needs
 * several devices' orders changed at once, each change alone making the
 * schedule worse, it rarely finds (p8 m24, fused backward, p activations,
 * comm 1: 141 for the whole of a 60 s search). A neighbourhood
 * re-optimises every op of a stretch of time, or two or three devices'
 * whole orders, exactly: the same instance goes to 140 in 0.01 s. It
 * stays a local search: on p8 m16 fused with uneven costs the GA's 385
 * is a local optimum of every neighbourhood here, where 383 exists (its
 * optimum differs from 385 on seven of eight devices).
 *
 * Every schedule it returns is re-simulated; it never claims optimality
 * (a window's optimum is an upper bound of the instance's).
 */
#ifndef PIPEOPT_LNS_H
#define PIPEOPT_LNS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

/* Whether the neighbourhoods apply: the makespan, the exact search with
 * fixed orders takes the instance (up to BNB_FIXED_MAX_OPS ops), FIFO holds (no recompute, offload or F&B overlap), at
 * least two devices. */
bool lns_takes(const struct instance *in);

struct lns_options {
	double time_limit;       /* seconds in all; <= 0: none */
	double window_time;      /* seconds per window search; <= 0: 1 */
	int max_width;           /* widest window, in devices; <= 0: 3 */
	int64_t lower_bound;     /* a proven bound: stop when the schedule meets it */
};

struct lns_result {
	int improvements;        /* windows that found a better schedule */
	int windows;             /* window searches run */
	long nodes;
	double seconds;
	double time_to_best;     /* seconds to the last improvement */
	int from;                /* lns_improve_starts: the start that gave
	                            the schedule returned, -1: none better */
	bool local_optimum;      /* the schedule returned is a local optimum
	                            of every neighbourhood and of the kick:
	                            its run ended on a whole round without
	                            improvement and a kick refuted, not on
	                            the clock, the bound or a stop (with
	                            lns_improve_starts and no start better:
	                            start 0's run); true when lns_takes
	                            refuses the instance */
};

/* Improve *sc (objective *obj, a valid schedule of `in`) in place: on
 * return *sc is the best schedule found, re-simulated, and *obj its
 * objective. */
enum status lns_improve(const struct instance *in, const struct lns_options *o,
			struct schedule **sc, int64_t *obj, struct lns_result *r,
			struct error *err);

/*
 * Multi-start: the local search from each of starts[0..n) (valid
 * schedules of `in` with orders of their own, best first: the callers keep
 * their lists so, schedule_orders_among), each given an equal share of the
 * time still left for the starts after it (a start that ends early, a local optimum refuted,
 * leaves its time to the rest). *best (of objective *obj, valid) is
 * replaced by a better schedule found, r->from says from which start;
 * r sums the runs. It stops at o->lower_bound.
 *
 * Why: the families' best is often a local optimum of every
 * neighbourhood while a slightly worse family is not. Measured (p8 m16,
 * p activations, one core, 3 s searches from one seed each): split
 * backward, costs (2, 3, 1), comm 1: 1f1b's 158 is refuted, backward-
 * first's 159 goes to 155 (the optimum is 153); costs (4, 4, 3), comm 2:
 * 273 stays, backward-first's 275 goes to 268 (bound 267); fused, costs
 * (2, 3, 1): 178 stays, backward-first's 178 goes to 172.
 */
enum status lns_improve_starts(const struct instance *in, const struct lns_options *o,
			       struct schedule *const *starts, int n, struct schedule **best,
			       int64_t *obj, struct lns_result *r, struct error *err);

#endif
