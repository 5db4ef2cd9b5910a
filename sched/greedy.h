/*
 * backward-first: list scheduling by a fixed priority, in C because each
 * step reads the times the partial schedule has reached (as zb-auto does).
 *
 * Time runs forward; whenever a device is free it starts, of the next op
 * of each of its slots (FIFO per kind and stage) whose inputs have
 * arrived:
 *     1. a backward B, the oldest micro-batch first (then the later stage);
 *     2. else a forward F whose memory fits under the device's limit,
 *        oldest first (then the later stage);
 *     3. else a weight gradient W, oldest first;
 * and otherwise waits for the next arrival or end. So a device never idles
 * while it could run something, backwards go through at once (they free
 * memory and lead the critical drain), forwards take whatever memory the
 * limit leaves, and W fills only what nothing else can use.
 *
 * Why it is in the registry: under tight memory with comm (p activations
 * per device, comm 1) its first wave of forwards fills the memory on every
 * stage and the next waves follow the backwards as they free it, the
 * structure of the MILP's optima there; at p = 8, split backward, unit
 * costs, it gives m = 12, 16, 24: 71, 83, 115, each the proven optimum
 * (bench/results/solve-cbc-auto-60s.md), where the other families and the
 * GA stopped at 73, 88, 120.
 */
#ifndef PIPEOPT_GREEDY_H
#define PIPEOPT_GREEDY_H

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

/* Any placement and stage DAG. Fails (naming the instance) when the rule
 * deadlocks: every device waits, none can start, under the memory limit. */
enum status backward_first_generate(const struct instance *in, struct schedule **out,
				    struct error *err);

#endif
