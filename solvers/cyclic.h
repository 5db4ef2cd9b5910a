/*
 * A local search over K-periodic orders (cyclic orders).
 *
 * A K-periodic order repeats every K micro-batches. Device d holds a
 * cyclic sequence of its nodes: a node v = (o, r) is one of d's op types
 * o = (kind, stage) for the micro-batch class r in [0, K), with an
 * integer offset k_v. In cycle n the device runs its sequence once, and
 * node v stands for op o of micro-batch j = (n - k_v) K + r. Unrolled to
 * the instance's m micro-batches (dropping the j outside [0, m)), the
 * cycles give each device's order, which the simulator times and checks
 * (memory, deadlock): the result is an ordinary schedule, its objective
 * the simulated one, so nothing here is a claim beyond that schedule.
 *
 * Why: the families' steady states (v-min's on a V placement) are
 * 1-periodic, and a local search over whole orders finds them locally
 * optimal, since improving the steady state means changing every period
 * at once. A move here (one node to another place in its device's
 * sequence, its offset kept or moved by one cycle) changes every cycle
 * at once, and with K >= 2 the cycles of the micro-batch classes may
 * differ (a steady state that no 1-periodic schedule has). The search
 * space does not grow with m: 3 x stages x K nodes.
 *
 * The start is read off a schedule's middle: the positions of micro-batches
 * cK .. cK + K - 1 (c = m / K / 2) in each device's order give the nodes'
 * places and offsets (cyc_from_schedule in cyclic.c); for a schedule that
 * is K-periodic there, the unrolling gives its middle back exactly.
 * The search is simulated annealing over block moves (cyclic.c, anneal),
 * in runs restarted from the best found.
 *
 * Measured (one core, 10 s, from v-min at v-min's memory, V placement,
 * comm 1, K = 1): p8 m48 (F, B, W) = (3, 4, 2) 1504 -> 1405 (the 1-periodic
 * MILP finds 1458 at its shortest period 28 in 17 s); p12 m32 (3, 4, 2)
 * 1132 -> 1082; GPT 1.5B costs p8 m32 2129461 -> 2111431. On the
 * DeepSeek-like 16-device instance, where CBC proves v-min's period the
 * shortest of any 1-periodic schedule, it finds nothing (K = 1 or 2).
 */
#ifndef PIPEOPT_CYCLIC_H
#define PIPEOPT_CYCLIC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

struct cyclic_options {
	int K_max;            /* rounds K = 1 .. K_max micro-batches per cycle */
	double time_limit;    /* seconds in all: half for K = 1 (with K_max >
	                         1), the rest shared equally by the others */
	long max_evaluations; /* in all, shared likewise; 0: no limit (with
	                         one, a run is the same on every machine) */
	uint64_t seed;        /* the annealing's random moves (0: 1) */
};

struct cyclic_result {
	struct schedule *schedule;  /* the best unrolled schedule found (valid),
	                               below the start's objective; NULL when
	                               none is */
	int64_t objective;          /* its simulated objective */
	int64_t start_objective;    /* the start's own 1-periodic unrolling,
	                               simulated (INT64_MAX: not valid) */
	int K;                      /* the round that found the schedule */
	long evaluations;           /* unrolled schedules simulated */
	long moves;                 /* moves taken */
	double seconds;
};

/* The rounds worth running on in (K_max): 3 on up to 3 devices, where
 * K = 2 and 3 find what K = 1 cannot (V p2 m8 (2, 3, 1) at v-min's
 * memory, 2 s each from v-min's 144: K = 1 nothing, K = 2 135, K = 3
 * 132), else 1: on V p8 m48 (3, 4, 2), p12 m32 (3, 4, 2) and GPT-cost p8
 * m32 at v-min's memory, K = 2 never beat K = 1 and halving K = 1's time
 * lost its find (2.5 s, 3 seeds each). */
int cyclic_default_rounds(const struct instance *in);

/* Whether the search applies: no recompute, offload or F&B overlap (the
 * nodes carry none of those decisions), m >= 2K, and a split or fused
 * backward. */
bool cyclic_takes(const struct instance *in, int K);

/* From the valid schedule `start`, search K-periodic orders for a
 * schedule better than start: a round for each K = 1 .. K_max, each
 * from start. r->schedule: the best found if it beats start, else NULL. */
enum status cyclic_search(const struct instance *in, const struct schedule *start,
			  const struct cyclic_options *o, struct cyclic_result *r,
			  struct error *err);

void cyclic_result_release(struct cyclic_result *r);

#endif
