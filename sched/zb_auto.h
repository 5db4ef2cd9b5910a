/*
 * zb-auto: Zero Bubble's greedy schedule heuristic (Qi et al., ICLR 2024,
 * section 3.1), written in C rather than in the schedule language because
 * it is a search: each step looks at the times the partial schedule has
 * reached on neighbouring devices, which a program of fixed phases cannot.
 */
#ifndef PIPEOPT_ZB_AUTO_H
#define PIPEOPT_ZB_AUTO_H

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

/* Runs the 8 variants (3 switches) and keeps the valid schedule with the
 * best objective, timed by the simulator. Chains with one stage per device;
 * honours memory limits (a variant that cannot fit is dropped) and comm. */
enum status zb_auto_generate(const struct instance *in, struct schedule **out,
			     struct error *err);

/* zb-warm: zb-auto with every stage's warm-up from the warm-up bound
 * (zb_auto.c). */
enum status zb_warm_generate(const struct instance *in, struct schedule **out,
			     struct error *err);

#endif
