/*
 * The shortest 1-periodic schedule (formulate/periodic.h) that a MILP
 * backend finds within a time limit, unrolled and simulated: a seed for
 * large m, where the whole-instance models are out of reach and the
 * families keep their own steady state (bench/results/deepseek.md: on the
 * DeepSeek-like instance at v-min's memory, period 245 against v-min's
 * 246).
 *
 * The search over P: from the hint (a seed's steady-state period), down
 * by 1, 2, 4, ... while each period has a schedule; if the hint (or the
 * least period, periodic_min_period) has none, up by eighths of the least
 * until one has; then bisection between the last period without one and
 * the shortest with one. Each probe gets a fifth of the time, the first
 * half. A probe stopped by its cap counts as "none" (so a shorter period
 * may exist: a seed, not a claim). A hint at the least period asks
 * nothing: no 1-periodic schedule repeats faster. Every schedule found is unrolled and simulated; the one with the
 * smallest makespan is returned.
 */
#ifndef PIPEOPT_PERIODIC_H
#define PIPEOPT_PERIODIC_H

#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

struct periodic_options {
	double time_limit;   /* seconds in all (> 0) */
	const char *solver;  /* backend name; NULL: cbc */
	int64_t hint;        /* a period to start from (a known schedule's
	                        steady state), or 0: the least */
};

struct periodic_result {
	struct schedule *schedule;   /* owned; NULL when no period had one */
	int64_t period;              /* of that schedule */
	int64_t shortest;            /* the shortest period with a schedule
	                                found (its makespan may tie or lose
	                                to a longer one's at small m) */
	int64_t makespan;            /* simulated */
	bool taken;                  /* periodic_takes: else nothing asked */
	int64_t least;               /* periodic_min_period */
	int64_t first;               /* the first period asked */
	int probes;                  /* periods asked */
	bool seed_at_least;          /* none asked: the hint is the least
	                                period already */
	double seconds;
};

/* Fails only on a solver or allocation error; an instance the model does
 * not take (periodic_takes) or no period found is a result without a
 * schedule. */
enum status periodic_search(const struct instance *in, const struct periodic_options *o,
			    struct periodic_result *r, struct error *err);

void periodic_result_release(struct periodic_result *r);

#endif
