/*
 * Lower bounds on the objective (makespan or span) of every valid schedule
 * of an instance. Each is argued where it is computed (bound.c). None uses
 * the FIFO micro-batch order, so they hold for any schedule.
 */
#ifndef PIPEOPT_BOUND_H
#define PIPEOPT_BOUND_H

#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"

struct bounds {
	int64_t critical_path;  /* time units: longest dependency chain */
	int64_t device;         /* time units: one-device head-body-tail bound */
	int device_at;          /* the device attaining it */
	int64_t memory;         /* time units: memory-limited fill and drain,
	                           0 without a limit */
	int memory_at;          /* the device attaining it, -1 if none */
	int64_t round_trip;     /* time units: memory round trips (every K
	                           forwards of a stage wait one trip through
	                           the later stages), 0 without a limit */
	int round_trip_at;      /* the device attaining it, -1 if none */
	int64_t memory_time;    /* time units: a device's activations held
	                           over their trips fit under its limit times
	                           its busy span, 0 without a limit */
	int memory_time_at;     /* the device attaining it, -1 if none */
	int64_t warmup;         /* time units: whole forwards before each
	                           device's first backward (one stage per
	                           device), 0 where it does not apply */
	int64_t best;           /* the largest of the above */
	const char *by;         /* which gave best: "critical_path", "device",
	                           "memory", "round_trip", "memory_time",
	                           "warmup" */
};

/* Compute all bounds for the instance's objective. */
enum status bound_compute(const struct instance *in, struct bounds *b,
			  struct error *err);

/* rel[op id]: a lower bound on the start of op (k, l, j) in every schedule
 * that runs each (kind, stage)'s micro-batches in order (FIFO, as the MILPs
 * and the exact search do): the release of rank j + 1 (bound.c), which
 * counts the FIFO spacing, the trips and, with a memory limit, the device
 * work that memory forces before each forward. The MILPs raise their
 * heads to it. */
enum status bound_releases(const struct instance *in, int64_t *rel, struct error *err);

/* tail[k * L + l]: the longest path from the end of op (k, l) of one
 * micro-batch to the end of the work (durations and lags after it), as
 * the makespan bounds use it; an exact search prunes with end + tail. */
enum status bound_tails(const struct instance *in, int64_t *tail, struct error *err);

/* forwards[l], for every stage l: how many whole forwards the warm-up
 * bound's extremal choice lets stage l's device run before its first
 * backward, min(K_l, floor(x_l / F_l)) (bound.c, warmup_bound); all 0 where
 * that bound does not apply (not one stage per device). Computed on the
 * instance as given (no overlap or recompute relaxation): a warm-up for
 * building schedules (zb-warm), not a claim. */
enum status bound_warmup_forwards(const struct instance *in, int *forwards, struct error *err);

#endif
