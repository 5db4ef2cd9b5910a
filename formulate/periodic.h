/*
 * The 1-periodic schedule at a fixed period P as a MILP: every
 * micro-batch runs the same timetable, shifted by P from the one before
 * (modulo scheduling). Its solution, unrolled to the instance's m
 * micro-batches, is a valid schedule whose makespan grows by P per
 * micro-batch: a seed for large m, where the whole-instance models are
 * out of reach (solvers/periodic.h searches P).
 *
 * The model. Each op o = (kind, stage) of micro-batch 0 starts at
 *     t_o = theta_d + phi_o + P k_o,
 * theta_d in [0, P] the origin of o's device d, phi_o in [0, P - dur_o]
 * the op's phase within the period (no op wraps), k_o >= 0 an integer
 * (the period it falls in). Micro-batch j's op o starts at t_o + j P.
 *  - Dependencies (one micro-batch), with the stage DAG's lags:
 *    F(b) >= F(a) + dur + lag for an edge a -> b, B(a) >= B(b) + dur +
 *    lag, B(l) >= F(l) + dur, W(l) >= B(l) + dur.
 *  - One op at a time: a binary y_ab per pair of one device's ops orders
 *    their phases, phi_b >= phi_a + dur_a - P (1 - y_ab) and phi_a >=
 *    phi_b + dur_b - P y_ab. Each period window [theta_d + nP, theta_d +
 *    (n+1) P) then holds exactly one instance of each of d's ops, apart.
 *  - Memory, in the simulator's terms (a running sum over the device's
 *    order): in period n, just after op x, op o has run n - k_o times
 *    before the period, and once more if it comes before x in it (or is
 *    x), so the memory in use is
 *        sum_o delta_o (n - k_o + [o before x] + [o = x])  <= limit_d;
 *    the n terms cancel (the deltas of a stage sum to 0), and [o before x]
 *    is y_ox or 1 - y_xo: the rows are linear. The unrolled schedule holds
 *    no more at any point: it has a subset of the periodic schedule's
 *    micro-batches, and each holds a non-negative amount at any point
 *    (periodic_takes asks F >= 0, F + B >= 0).
 *  - Objective: the latency Z >= t_o + dur_o, so that the unrolled
 *    makespan is at most (m - 1) P + Z (the simulator re-times it as
 *    early as its orders allow, which is never later).
 */
#ifndef PIPEOPT_PERIODIC_MILP_H
#define PIPEOPT_PERIODIC_MILP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "formulate/milp.h"
#include "sched/instance.h"
#include "sched/schedule.h"

/* Whether the model applies: makespan, no recompute, offload or F&B
 * overlap, and per stage the deltas F >= 0, F + B >= 0, F + B (+ W) = 0
 * (or no memory at all). */
bool periodic_takes(const struct instance *in);

struct periodic_milp {
	struct milp *m;
	const struct instance *in;
	int64_t period;
	int nops;          /* kinds * stages: op o = kind * stages + stage */
	int *theta;        /* [devices] columns */
	int *phi, *k;      /* [nops] columns */
	int z;             /* the latency column */
};

/* The model at period P (> 0, at least every op's duration); NULL with
 * err on failure. */
struct periodic_milp *periodic_milp_build(const struct instance *in, int64_t period,
					  struct error *err);
void periodic_milp_free(struct periodic_milp *pm);

/* The unrolled schedule of a solution x: each device's ops of all m
 * micro-batches in the order of their periodic starts. NULL: out of
 * memory. */
struct schedule *periodic_unroll(const struct periodic_milp *pm, const double *x);

/* The least period any 1-periodic schedule can have: the most work one
 * device does per micro-batch (and at least the longest op). */
int64_t periodic_min_period(const struct instance *in);

#endif
