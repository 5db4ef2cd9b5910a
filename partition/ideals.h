/*
 * The exact partitioner's own engine (ideals.c): the minimum bottleneck of
 * the partition MILP (formulate/partition_milp.h) at one micro-batch size,
 * found by a dynamic program over the graph's upsets instead of a MILP
 * solver. Same space (every convex partition with an acyclic stage graph,
 * power-of-two degrees, at most D devices), same cost model (the pmilp_*
 * terms), same memory rule (in flight = stages on the longest stage path
 * to a sink; a chain: the stages after it, plus one).
 */
#ifndef PIPEOPT_PARTITION_IDEALS_H
#define PIPEOPT_PARTITION_IDEALS_H

#include <stdbool.h>

#include "formulate/partition_milp.h"
#include "graph/graph.h"

/* Graphs with more operators than this are left to the MILP. */
#define IDEALS_MAX_OPS 64

enum ideals_outcome {
	IDEALS_OPTIMAL,      /* the minimum bottleneck (<= ub) and a plan */
	IDEALS_NONE,         /* proven: no plan with bottleneck <= ub fits */
	IDEALS_STOPPED,      /* the deadline or an interrupt came first */
	IDEALS_TOO_BIG,      /* too many upsets or states: use the MILP */
};

/* A plan: stages in label order. */
struct ideals_plan {
	int nstages;
	int stage_of[IDEALS_MAX_OPS];    /* [nops] the stage of every op (monotone) */
	int degree_of[IDEALS_MAX_OPS];   /* [nstages] devices per stage */
};

struct ideals_result {
	enum ideals_outcome outcome;
	double bottleneck;   /* us per micro-batch, when optimal */
	/* plans at the optimum bottleneck, for the caller to simulate: the
	 * first pass's, then the one of least total stage time (sum_s t_s) */
	int nplans;
	struct ideals_plan plan[2];
	long states;         /* DP states solved */
	double seconds;
};

/* Solve pm's problem (pmilp_terms or pmilp_build for D devices) for plans
 * with bottleneck <= ub (INFINITY: any), until deadline (clock_seconds; 0:
 * none) or stop_requested(). busy_only: the relaxation without comm and
 * memory, whose optimum is the least possible busy time per micro-batch
 * of the busiest stage (see partition_ilp's iteration bound). */
void ideals_solve(const struct graph *g, const struct pmilp *pm, int D, double ub,
		  double deadline, bool busy_only, struct ideals_result *r);

#endif
