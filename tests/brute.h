/*
 * Brute-force optimum of tiny instances, independent of sched/sim.c: it
 * enumerates every combination of per-device orders that respects the
 * same-device part of the dependency order, times each combination with
 * its own longest-path evaluation, and keeps the best valid one.
 *
 * Used to check lower bounds (never above the optimum) and, later, exact
 * solvers. Sizes: keep the product of per-device linear extensions under
 * about 10^5 (e.g. 2-3 devices, 2-3 micro-batches).
 */
#ifndef PIPEOPT_TEST_BRUTE_H
#define PIPEOPT_TEST_BRUTE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sched/instance.h"

#define BRUTE_MAX_OPS 40

struct brute {
	const struct instance *in;
	int n;                               /* ops */
	int kind[BRUTE_MAX_OPS], stage[BRUTE_MAX_OPS], mb[BRUTE_MAX_OPS];
	int64_t dur[BRUTE_MAX_OPS];
	/* dependency edges: dep[o][i] must end lag[o][i] before o starts */
	int ndep[BRUTE_MAX_OPS], dep[BRUTE_MAX_OPS][8];
	int64_t lag[BRUTE_MAX_OPS][8];
	bool reach[BRUTE_MAX_OPS][BRUTE_MAX_OPS];   /* transitive closure */
	int dev_ops[64][BRUTE_MAX_OPS], dev_n[64];
	int order[64][BRUTE_MAX_OPS];        /* the combination being built */
	bool placed[BRUTE_MAX_OPS];
	int64_t best;                        /* INT64_MAX: none valid */
	long evaluated;
	int64_t start[BRUTE_MAX_OPS];        /* the last valid combination's */
	/* devices that run any number of ops at once with no memory limit
	 * (a relaxation: each op starts when its inputs have arrived), or
	 * NULL: none */
	const bool *relaxed;
	/* called with every valid combination (start[] set), or NULL */
	void (*visit)(const struct brute *b, int64_t objective, void *ctx);
	void *visit_ctx;
};

static inline int brute_index(const struct brute *b, int k, int l, int j)
{
	return (k * b->in->stages + l) * b->in->microbatches + j;
}

static inline void brute_add_dep(struct brute *b, int o, int x, int64_t lag)
{
	b->dep[o][b->ndep[o]] = x;
	b->lag[o][b->ndep[o]++] = lag;
}

static inline int64_t brute_edge_lag(const struct instance *in, int e)
{
	int u = in->edges[e][0], v = in->edges[e][1];
	return in->stage_device[u] != in->stage_device[v] ? in->edge_comm[e] : 0;
}

/* Dependencies straight from docs/design.md, written from the edge list. */
static inline void brute_build(struct brute *b, const struct instance *in)
{
	memset(b, 0, sizeof *b);
	b->in = in;
	b->n = in->kinds * in->stages * in->microbatches;
	for (int k = 0; k < in->kinds; k++)
		for (int l = 0; l < in->stages; l++)
			for (int j = 0; j < in->microbatches; j++) {
				int o = brute_index(b, k, l, j);
				b->kind[o] = k;
				b->stage[o] = l;
				b->mb[o] = j;
				b->dur[o] = in->cost[k][l];
				int d = in->stage_device[l];
				b->dev_ops[d][b->dev_n[d]++] = o;
			}
	for (int j = 0; j < in->microbatches; j++)
		for (int e = 0; e < in->nedges; e++) {
			int u = in->edges[e][0], v = in->edges[e][1];
			int64_t lag = brute_edge_lag(in, e);
			brute_add_dep(b, brute_index(b, OP_F, v, j), brute_index(b, OP_F, u, j), lag);
			brute_add_dep(b, brute_index(b, OP_B, u, j), brute_index(b, OP_B, v, j), lag);
		}
	for (int l = 0; l < in->stages; l++)
		for (int j = 0; j < in->microbatches; j++) {
			brute_add_dep(b, brute_index(b, OP_B, l, j), brute_index(b, OP_F, l, j), 0);
			if (in->split_backward)
				brute_add_dep(b, brute_index(b, OP_W, l, j), brute_index(b, OP_B, l, j), 0);
		}
	for (int o = 0; o < b->n; o++)
		for (int i = 0; i < b->ndep[o]; i++)
			b->reach[b->dep[o][i]][o] = true;
	for (int m = 0; m < b->n; m++)
		for (int x = 0; x < b->n; x++)
			if (b->reach[x][m])
				for (int y = 0; y < b->n; y++)
					if (b->reach[m][y])
						b->reach[x][y] = true;
}

/* Time the current combination; returns the objective or -1 if it
 * deadlocks or breaks a memory limit. */
static inline int64_t brute_evaluate(struct brute *b)
{
	const struct instance *in = b->in;
	int64_t start[BRUTE_MAX_OPS], end[BRUTE_MAX_OPS];
	int prev[BRUTE_MAX_OPS];
	bool done[BRUTE_MAX_OPS] = {0};
	for (int d = 0; d < in->devices; d++) {
		int64_t mem = 0;
		bool relaxed = b->relaxed && b->relaxed[d];
		for (int i = 0; i < b->dev_n[d]; i++) {
			int o = b->order[d][i];
			prev[o] = i && !relaxed ? b->order[d][i - 1] : -1;
			if (relaxed)
				continue;
			mem += in->has_memory ? in->mem[b->kind[o]][b->stage[o]] : 0;
			if (in->has_limit && mem > in->limit[d])
				return -1;
		}
	}
	/* Repeatedly time any op whose predecessors are all timed. */
	for (int count = 0; count < b->n;) {
		int progress = 0;
		for (int o = 0; o < b->n; o++) {
			if (done[o])
				continue;
			int64_t t = 0;
			bool ready = true;
			if (prev[o] >= 0) {
				ready = done[prev[o]];
				t = ready ? end[prev[o]] : 0;
			}
			for (int i = 0; i < b->ndep[o] && ready; i++) {
				int x = b->dep[o][i];
				ready = done[x];
				if (ready && end[x] + b->lag[o][i] > t)
					t = end[x] + b->lag[o][i];
			}
			if (!ready)
				continue;
			start[o] = b->start[o] = t;
			end[o] = t + b->dur[o];
			done[o] = true;
			count++;
			progress = 1;
		}
		if (!progress)
			return -1;
	}
	int64_t makespan = 0, span = 0;
	for (int d = 0; d < in->devices; d++) {
		if (!b->dev_n[d])
			continue;
		int64_t first = start[b->order[d][0]];
		int64_t last = end[b->order[d][b->dev_n[d] - 1]];
		for (int i = 0; b->relaxed && b->relaxed[d] && i < b->dev_n[d]; i++) {
			/* any order: the first to start and the last to end */
			int o = b->order[d][i];
			first = start[o] < first ? start[o] : first;
			last = end[o] > last ? end[o] : last;
		}
		makespan = last > makespan ? last : makespan;
		span = last - first > span ? last - first : span;
	}
	return in->objective == OBJ_SPAN ? span : makespan;
}

/* Enumerate linear extensions of device d's ops, then of the next device. */
static inline void brute_enumerate(struct brute *b, int d, int pos)
{
	if (d == b->in->devices) {
		int64_t v = brute_evaluate(b);
		b->evaluated++;
		if (v >= 0 && b->visit)
			b->visit(b, v, b->visit_ctx);
		if (v >= 0 && v < b->best)
			b->best = v;
		return;
	}
	if (pos == b->dev_n[d]) {
		brute_enumerate(b, d + 1, 0);
		return;
	}
	for (int i = 0; i < b->dev_n[d]; i++) {
		int o = b->dev_ops[d][i];
		if (b->placed[o])
			continue;
		bool free_now = true;
		for (int k = 0; k < b->dev_n[d] && free_now; k++) {
			int x = b->dev_ops[d][k];
			if (!b->placed[x] && x != o && b->reach[x][o])
				free_now = false;
		}
		if (!free_now)
			continue;
		b->placed[o] = true;
		b->order[d][pos] = o;
		brute_enumerate(b, d, pos + 1);
		b->placed[o] = false;
		if (b->relaxed && b->relaxed[d])
			break;   /* its order does not matter: one of them */
	}
}

/* The optimum of the relaxation in which the devices marked in `relaxed`
 * (NULL: none, the instance itself) run any number of ops at once and
 * have no memory limit; INT64_MAX if no schedule is valid. `evaluated`
 * (may be NULL) receives the number of combinations. */
static inline int64_t brute_relaxed_optimum(const struct instance *in, const bool *relaxed,
					    long *evaluated)
{
	struct brute *b = malloc(sizeof *b);
	brute_build(b, in);
	b->best = INT64_MAX;
	b->relaxed = relaxed;
	brute_enumerate(b, 0, 0);
	int64_t best = b->best;
	if (evaluated)
		*evaluated = b->evaluated;
	free(b);
	return best;
}

/* The optimum of the instance's objective, or INT64_MAX if no schedule is
 * valid. `evaluated` (may be NULL) receives the number of combinations. */
static inline int64_t brute_optimum(const struct instance *in, long *evaluated)
{
	return brute_relaxed_optimum(in, NULL, evaluated);
}

/* Call visit with every valid combination; returns how many combinations
 * were evaluated (valid or not). */
static inline long brute_visit_all(const struct instance *in,
				   void (*visit)(const struct brute *b, int64_t objective, void *ctx),
				   void *ctx)
{
	struct brute *b = malloc(sizeof *b);
	brute_build(b, in);
	b->best = INT64_MAX;
	b->visit = visit;
	b->visit_ctx = ctx;
	b->evaluated = 0;
	brute_enumerate(b, 0, 0);
	long n = b->evaluated;
	free(b);
	return n;
}

#endif
