/*
 * The time-indexed formulation's own columns (time_indexed.c), behind
 * sm->data of its struct sched_milp. Internal: for time_indexed.c and its
 * white-box tests; everyone else goes through the registry (formulation.h).
 */
#ifndef PIPEOPT_TIME_INDEXED_H
#define PIPEOPT_TIME_INDEXED_H

#include <stdint.h>

#include "formulate/opgraph.h"

struct time_indexed {
	int *x_first;           /* [n] column of x_{o, t_lo[o]} */
	int64_t *t_lo, *t_hi;   /* [n] time units: start window, inclusive */
};

/* Limit on time-indexed binaries (build refuses beyond it). */
#define TIME_INDEXED_MAX_BINARIES 400000

/* Number of time-indexed binaries for a horizon (the table's `size`): -1
 * when the horizon is below an op's longest path. */
long time_indexed_size(const struct opgraph *g, int64_t horizon);

#endif
