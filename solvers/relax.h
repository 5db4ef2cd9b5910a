/*
 * Window bounds: lower bounds on the makespan from exact searches of
 * relaxations of the instance.
 *
 * A window is a range of consecutive devices [lo, hi]. Its relaxation keeps
 * the window's devices as they are (one op at a time, memory limits) and
 * relaxes every other device: it runs any number of ops at once and has no
 * memory limit, so each of its ops starts as soon as its inputs have
 * arrived. Every schedule of the instance is a schedule of the relaxation
 * with the same or an earlier makespan (the same device orders on the
 * window, the other ops no later), so the relaxation's optimum is a lower
 * bound on the instance's. The relaxation keeps the dependencies, their
 * lags and every duration, so the memory round trips through the relaxed
 * devices and the window's own F/B interleaving across micro-batches are
 * still in it: the phase conflicts of a stage between its backwards and
 * its next forwards, which the closed forms of sched/bound.c treat one
 * stage at a time, are counted exactly for the window's stages.
 *
 * The optimum of a relaxation is found by the exact search (bnb.h) with
 * the relaxed devices marked, destructively: for T from the bound known,
 * "is there a schedule of the relaxation ending by T?"; a finished search
 * with none proves T + 1. It stops at the first T with a schedule, or that
 * the search does not finish within its slice of time.
 *
 * Measured (bench/results/relax.md): the two-device window at the head of
 * a chain of 4 devices, 12 micro-batches, split backward, p activations,
 * comm 1 proves 55 (the optimum; sched/bound.c: 54) in 0.03 s.
 */
#ifndef PIPEOPT_RELAX_H
#define PIPEOPT_RELAX_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"

/* Whether window bounds apply: the makespan, at least two devices, the
 * exact search takes it, no F&B overlap, recompute or offload. */
bool relax_takes(const struct instance *in);

struct relax_options {
	double time_limit;       /* seconds for all windows; <= 0: none */
	int64_t lower_bound;     /* a proven bound to start from */
	int64_t upper_bound;     /* the objective of a known schedule: no
	                            window is asked beyond it; INT64_MAX: none */
	int max_width;           /* widest window, in devices; <= 0: D - 1 */
};

struct relax_result {
	int64_t bound;           /* the best bound proven, >= lower_bound */
	int lo, hi;              /* the window that proved it; -1 if none
	                            raised the bound */
	int windows;             /* windows searched */
	int finished;            /* of them, those whose search finished at
	                            every target asked */
	long nodes;
	double seconds;
};

/* The window bounds, up to max_width devices wide, every position (the
 * prefixes [0, w - 1] first, each allowed what is left of the time; then
 * the others, an equal share each), until the bound meets the upper bound
 * or the time is up. */
enum status relax_bound(const struct instance *in, const struct relax_options *o,
			struct relax_result *r, struct error *err);

/* The bound of one window [lo, hi], asked from `from` (a bound already
 * proven) up to `upper` (exclusive): the larger of `from` and the optimum
 * of its relaxation when the search finishes (*proved), else the last
 * target it refuted plus one. A window of every device is the instance. */
enum status relax_window(const struct instance *in, int lo, int hi, int64_t from,
			 int64_t upper, double seconds, int64_t *bound, bool *proved,
			 long *nodes, struct error *err);

#endif
