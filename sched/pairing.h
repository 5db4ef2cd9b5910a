/*
 * Overlapped F&B pairs chosen greedily (instance.h, `overlap`): which of a
 * schedule's adjacent forward/backward ops should run as one pair. A pair
 * shortens the device's busy time but starts when its later op is ready,
 * so it can delay the earlier one; each candidate is therefore tried on
 * the simulator and kept only when the schedule gets no worse.
 */
#ifndef PIPEOPT_PAIRING_H
#define PIPEOPT_PAIRING_H

#include "sched/instance.h"
#include "sched/schedule.h"
#include "sched/sim.h"

/* On an instance with overlap (rho < 1; else nothing to gain: 0), join
 * adjacent F/B ops of s into pairs, device by device, position by
 * position, keeping each join whose simulated (objective, sum of the
 * devices' last ends) is not worse than before it. Stops trying after
 * about max_ops simulated ops in all (<= 0: no cap). s must be valid for
 * in; it stays valid. Returns the pairs formed, -1 if s does not simulate. */
int schedule_pair_greedy(const struct instance *in, struct schedule *s, struct sim *sim,
			 double max_ops);

#endif
