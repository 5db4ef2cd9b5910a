/*
 * The exact partition problem as a MILP (for small graphs): the cost model
 * of partition/partition.h at one micro-batch size b, over every convex
 * partition with an acyclic stage graph (monotone labels), not only the
 * series-parallel segments the DP searches. The mathematics is at each
 * family of rows in partition_milp.c.
 */
#ifndef PIPEOPT_PARTITION_MILP_H
#define PIPEOPT_PARTITION_MILP_H

#include <stdbool.h>

#include "formulate/milp.h"
#include "graph/graph.h"
#include "common/error.h"

struct pmilp {
	struct milp *m;
	int K;              /* stage slots */
	int nk;             /* candidate degrees */
	int degree[16];     /* [nk] powers of two */
	int b, mb;          /* micro-batch size and count */
	int T;              /* column of T (microseconds per micro-batch) */
	int *x;             /* [nops * K] column of x[v][s] */
	int *g;             /* [K * nk] column of g[s][k] */
};

/* Build the MILP for D devices at micro-batch b (sequential: stages form a
 * chain). Fails when b does not divide the batch or no degree is usable. */
enum status pmilp_build(const struct graph *g, int D, int b, bool sequential,
			struct pmilp *p, struct error *err);

/* Decode a solution: stage slot of every op ([nops]) and degree of every
 * slot ([K], 0 when unused). */
void pmilp_decode(const struct graph *g, const struct pmilp *p, const double *x,
		  int *stage_of, int *degree_of);

void pmilp_release(struct pmilp *p);

#endif
