/*
 * GraphPipe's partitioner: cut a model graph into stages that form a DAG,
 * with devices per stage and a micro-batch size, minimising the bottleneck
 * time per sample under the memory limit. The cost model (partition.c):
 *
 *   a stage s with ops V_s, data-parallel degree k_s (a power of two) and
 *   micro-batch size b (samples, the same on every stage) runs b / k_s
 *   samples per device per micro-batch and takes, per micro-batch,
 *     t_s = sum_{v in V_s} (fwd + bwd + wgrad)(v, b / k_s)
 *         + sum over edges (u, v) into V_s from another stage of
 *               2 (latency + out_bytes(u) * b / bandwidth)      [activation + gradient]
 *         + allreduce(weights of V_s, k_s) / m,      m = batch / b micro-batches,
 *     allreduce(W, k) = 2 (k - 1) (latency + W / (k * bandwidth))  (ring; 0 for k = 1)
 *   time per sample TPS_s = t_s / b; the objective is max_s TPS_s.
 *   Memory per device: weights, gradients and optimizer state plus the
 *   activations of the micro-batches in flight,
 *     mem_s = 2 W_s + (W_s / bytes_per_param) * optimizer_bytes_per_param
 *           + n_s * (b / k_s) * sum_{v in V_s} act_bytes(v)  <=  memory_bytes,
 *   n_s = the number of stages on the longest stage path from s to a sink
 *   (1F1B on a DAG: GraphPipe's in-flight rule; a chain gives S - i + 1).
 *
 * The DP (after GraphPipe's Algorithm 1) works on the series-parallel tree:
 * a segment (an SP node, a run of consecutive SERIES children, or a run of
 * PARALLEL children) is one stage, or splits in series (later part first,
 * its entry in-flight count becoming the earlier part's exit), or in
 * parallel (both sides share the exit count; the larger entry count
 * holds); memoised on (segment, devices, exit in-flight count). It returns
 * the smallest entry in-flight count meeting a target TPS, and a binary
 * search finds the smallest feasible target, for each micro-batch size;
 * among sizes the shortest iteration-time estimate wins (TPS alone would
 * pick one micro-batch per iteration: no pipelining). Stages are SP segments, a
 * subset of all convex partitions: the ILP (partition_milp.c) searches all.
 */
#ifndef PIPEOPT_PARTITION_H
#define PIPEOPT_PARTITION_H

#include <stdbool.h>

#include "graph/graph.h"
#include "graph/sp.h"
#include "common/error.h"
#include "sched/verdict.h"

struct stage {
	int nops;
	int *ops;                /* [nops] sorted */
	int degree;              /* devices (data-parallel replicas) */
	int inflight;            /* micro-batches in flight (1F1B on the DAG) */
	double time;             /* microseconds per micro-batch (t_s) */
	double memory;           /* bytes per device */
	double fwd, bwd, wgrad;  /* microseconds per micro-batch, compute only */
	double act;              /* bytes per micro-batch per device, activations */
	double allreduce;        /* microseconds per micro-batch: the ring allreduce
	                            of the stage's weights over its replicas / m */
};

struct partition {
	int nstages;
	struct stage *stages;    /* [nstages] in a topological order */
	int nedges;
	int (*edges)[2];         /* [nedges] stage DAG */
	int microbatch;          /* samples per micro-batch */
	int microbatches;        /* batch / microbatch */
	int devices_used;
	double bottleneck;       /* microseconds per micro-batch: max_s t_s */
	double time_per_sample;  /* microseconds: bottleneck / microbatch */
	double estimate;         /* microseconds: GraphPipe's closed form,
	                            (m - 1) bottleneck + the longest stage path's
	                            sum of t_s (fill and drain, comm charged
	                            serially); partition_evaluate fills it */
	double iteration_time;   /* microseconds: the simulated makespan of
	                            1f1b-dag on the partition's schedule instance
	                            (bridge.h), the number plan and exec see;
	                            partition_simulate fills it, 0 before */
	int depth;               /* stages on the longest path */
	bool chain;              /* sequential: consecutive stages depend */
};

struct partition_options {
	int devices;             /* devices to use (<= the machine's) */
	bool sequential;         /* stages form a chain (PipeDream/Piper-style) */
	int nsizes;              /* micro-batch sizes to try; 0: the graph's */
	const int *sizes;
	bool no_simulate;        /* partition_dp: leave iteration_time 0 (the
	                            search simulates its seeds itself) */
};

/* Partition g; fails (one line) when no partition fits in memory. */
enum status partition_dp(const struct graph *g, const struct partition_options *o,
			 struct partition *p, struct error *err);

struct ilp_info {
	bool certified;          /* every size solved to optimality and re-evaluated */
	const char *stopped_by;  /* "interrupt" or "time_limit" when a size was cut
	                            short or left unsolved; NULL otherwise */
	int solves, columns, rows;
	int ideal_solves;        /* sizes solved by the DP over upsets */
	long ideal_states;       /* its states, all sizes */
	int milp_solves;         /* sizes solved by a MILP backend */
	double iteration_bound;  /* us: no partition at any size tried has a
	                            shorter simulated iteration (partition_ilp.c
	                            iteration_bound: m x the least busy time of
	                            the busiest stage, comm and memory relaxed) */
	bool iteration_bound_exact;   /* that least busy time by the DP at every
	                                 size (else bound_T at some) */
	int infeasible;          /* sizes the solver proved infeasible */
	int stopped;             /* sizes a limit stopped before a solution, or
	                            left unsolved when the time ran out */
	int warm_starts;         /* sizes with a start from the search or a DP */
	int cutoffs;             /* of them, feasible in the model: the start's
	                            bottleneck is T's upper bound there */
	int pruned;              /* sizes skipped: their lower bound on the
	                            simulated iteration is no shorter than the
	                            best plan's */
	double seconds;
	enum outcome outcome;    /* optimal (certified) or feasible; when no
	                            partition is found, infeasible only when
	                            every size solved was proven so, time_limit
	                            when the limit stopped any, else
	                            no_solution; error when it could not run */
};

/* The exact partitioner (partition_ilp.c): the MILP of
 * formulate/partition_milp.c at each micro-batch size, solved by `solver`:
 * "ideals" (the DP over upsets, ideals.h), "auto" (that DP, or CBC at a
 * size too big for it; NULL means auto), "cbc" or "glpk", within
 * time_limit seconds in all (each size an equal
 * share of what is left; <= 0: none; no solver child outlives the limit
 * by more than half its allowance, common/stop.h); the shortest
 * iteration among sizes, like the DP. An interrupt ends it with the best
 * found so far. When no size gives a partition it fails with a message
 * that says why (info->outcome). */
enum status partition_ilp(const struct graph *g, const struct partition_options *o,
			  const char *solver, double time_limit, struct partition *p,
			  struct ilp_info *info, struct error *err);

struct search_info {
	int seed_sims;           /* simulations of the DP seeds */
	int sims;                /* simulations in all */
	int cached;              /* labellings timed again, answered by the memo */
	int moves;               /* improving moves taken */
	const char *stopped_by;  /* "interrupt" or "time_limit", or NULL */
};

/* The default partitioner (search.c): a local search over every convex
 * partition with an acyclic stage graph, seeded at every micro-batch size
 * by the DP's and the sequential DP's plans, each candidate timed by
 * partition_simulate; p->iteration_time is the simulated 1f1b-dag
 * iteration, never above either seed's. With o->sequential, the
 * sequential DP's plans only, the size chosen by the simulated iteration.
 * Within time_limit seconds (<= 0: none); an interrupt or the limit ends
 * it with the best so far (info->stopped_by). */
enum status partition_search(const struct graph *g, const struct partition_options *o,
			     double time_limit, struct partition *p, struct search_info *info,
			     struct error *err);

/* The same search, returning its best partition at each of up to `max`
 * micro-batch sizes, shortest first (p[0] is partition_search's answer):
 * the candidates a scheduler that beats 1f1b-dag may rank differently.
 * p has room for max; *n the count filled (>= 1 on success). */
enum status partition_search_top(const struct graph *g, const struct partition_options *o,
				 double time_limit, int max, struct partition *p, int *n,
				 struct search_info *info, struct error *err);

/* Fill the stage metrics, stage edges, in-flight counts and times of p
 * from its stages' op sets, degrees and p->microbatch (shared by the DP and
 * the ILP, and the check of both). False if a stage's ops are not convex or
 * the stage graph has a cycle. */
bool partition_evaluate(const struct graph *g, struct partition *p);

void partition_release(struct partition *p);

#endif
