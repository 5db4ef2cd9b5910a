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
	int *y, *h;         /* [K] columns of y[s], h[s] */
	int *eta;           /* [K * K] column of eta[s][j - 1] */
	int *c;             /* [nedges * K] column of c[e][s] */
	double T_lower;     /* us: the constant lower bound on T (bound_T) */
	bool sequential;    /* stages form a chain */
	bool memory;        /* memory can bind: h, eta and their rows exist */
};

/* Build the MILP for D devices at micro-batch b (sequential: stages form a
 * chain). Fails when b does not divide the batch or no degree is usable. */
enum status pmilp_build(const struct graph *g, int D, int b, bool sequential,
			struct pmilp *p, struct error *err);

/* Only the terms of that model (b, mb, K, degrees, memory, T_lower,
 * sequential), no MILP: what the DP over upsets needs. Released by
 * pmilp_release too. */
enum status pmilp_terms(const struct graph *g, int D, int b, bool sequential,
			struct pmilp *p, struct error *err);

/* Encode a partition at p's micro-batch size as a point x [ncols] of p's
 * model (a MIP start): S stages, stage_of [nops] with labels monotone on
 * every edge, degree_of [S], its bottleneck T (us per micro-batch, the
 * cost model's); in-flight counts are the longest stage path to a sink
 * (a chain: S - i).
 * False when it does not fit the model (more than K stages, a degree with
 * no column, non-monotone labels); whether it is feasible is
 * milp_feasible's to say. */
bool pmilp_start(const struct graph *g, const struct pmilp *p, int S, const int *stage_of,
		 const int *degree_of, double T, double *x);

/* Decode a solution: stage slot of every op ([nops]) and degree of every
 * slot ([K], 0 when unused). */
void pmilp_decode(const struct graph *g, const struct pmilp *p, const double *x,
		  int *stage_of, int *degree_of);

void pmilp_release(struct pmilp *p);

/* The cost model's terms at p's micro-batch size, shared by the MILP's
 * rows and the DP over upsets (partition/ideals.c): a stage S of degree
 * index k takes, per micro-batch,
 *   sum_{v in S} pmilp_op_cost(v, k) + sum_{e into S} pmilp_edge_comm(e)
 *   + pmilp_stage_latency(k)
 * and holds sum_{v in S} pmilp_op_bytes(v, k, j) bytes per device with j
 * micro-batches in flight. */
double pmilp_op_cost(const struct graph *g, const struct pmilp *p, int v, int k);
double pmilp_edge_comm(const struct graph *g, int e, int b);
double pmilp_stage_latency(const struct graph *g, const struct pmilp *p, int k);
double pmilp_op_bytes(const struct graph *g, const struct pmilp *p, int v, int k, int j);

#endif
