/*
 * The terms of the partition cost model (partition/partition.h), in one place
 * for the DP (partition/partition.c) and the MILP (formulate/partition_milp.c),
 * which must agree to the last bit for the MILP's certificate to hold.
 * Units: microseconds, bytes, samples.
 */
#ifndef PIPEOPT_GRAPH_COST_H
#define PIPEOPT_GRAPH_COST_H

#include "graph/graph.h"

/* Index of per-device size q in the graph's size list, or -1. */
static inline int graph_size_index(const struct graph *g, int q)
{
	for (int i = 0; i < g->nsizes; i++)
		if (g->microbatch_sizes[i] == q)
			return i;
	return -1;
}

/* Transfers into a stage per micro-batch of b samples: for `edges` edges
 * carrying `bytes` per sample in all, an activation forward and a
 * gradient back: 2 (edges latency + bytes b / bandwidth). */
static inline double graph_comm(const struct machine *mc, double edges, double bytes, int b)
{
	return 2 * (edges * mc->link_latency_us + bytes * b / mc->link_bandwidth);
}

/* Ring allreduce of w bytes of weights over k replicas, per iteration:
 * 2 (k - 1) (latency + w / (k bandwidth)); 0 for k = 1. */
static inline double graph_allreduce(const struct machine *mc, double w, int k)
{
	return k <= 1 ? 0 : 2.0 * (k - 1) * (mc->link_latency_us + w / (k * mc->link_bandwidth));
}

/* Bytes per device for w bytes of weights: weights, gradients, optimizer
 * state. */
static inline double graph_static_bytes(const struct machine *mc, double w)
{
	return 2 * w + w / mc->bytes_per_param * mc->optimizer_bytes_per_param;
}

#endif
