/*
 * Local search by exact neighbourhoods (large neighbourhood search): keep
 * each device's order of a schedule but for one segment of it, and let the
 * exact search (bnb.h, `fixed`) find the best orders of the segments. A
 * neighbourhood frees the ops that start in a stretch of time on every
 * device, or two or three consecutive devices' whole orders. A better
 * schedule found replaces the current one and the neighbourhoods start
 * again; the search stops when none improves, or at its time limit.
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
};

/* Improve *sc (objective *obj, a valid schedule of `in`) in place: on
 * return *sc is the best schedule found, re-simulated, and *obj its
 * objective. */
enum status lns_improve(const struct instance *in, const struct lns_options *o,
			struct schedule **sc, int64_t *obj, struct lns_result *r,
			struct error *err);

#endif
