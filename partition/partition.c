/*
 * GraphPipe's DP partitioner (the model and the recursion are in
 * partition.h).
 *
 * Segments. For an SP node with children c_0..c_{n-1}, the DP works on the
 * suffix runs R_i = c_i..c_{n-1} (a LEAF is one run of itself). A run is
 * one stage, or its first stage(s) come from:
 *   SERIES:   the whole of c_i..c_m as one stage, then R_{m+1}; or c_i split
 *             on its own (recursively), then R_{i+1}. Scanning stages left
 *             to right, the first stage either covers whole children or lies
 *             inside c_i, so every partition into stages that are runs of
 *             whole children or lie inside one child is reached;
 *   PARALLEL: c_i..c_m as one stage, or c_i split on its own, side by side
 *             with R_{m+1} (R_{i+1}) on the remaining devices; both sides
 *             feed the same consumers (exit count n_out) and the run's
 *             entry count is the larger of theirs.
 * In series the later part is solved first: its entry count is the earlier
 * part's exit count.
 */
#include "partition/partition.h"
#include "graph/cost.h"
#include "partition/bridge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INF 1000000

/* A run c_i..c_j of a node as one stage, costs per size index. */
struct runcost {
	double *time;     /* [nsizes] compute, us per micro-batch at that per-device size */
	double weight;    /* bytes */
	double act;       /* bytes per sample */
	double in_bytes;  /* out_bytes per sample of the edges entering from outside */
	int in_edges;
	int row;          /* its row of dp->kmin */
};

struct seg {          /* one SP node and its suffix runs */
	const struct sp_node *node;
	int n;            /* children (1 for a leaf) */
	struct runcost *cost;   /* [n * n] run i..j at i * n + j */
	int first;        /* index of R_0 in the state table */
	struct seg **kids;      /* [n] the children's segments (NULL for a leaf) */
};

struct dp {
	const struct graph *g;
	int D, b, m, sz;          /* devices, micro-batch, micro-batches, */
	int nsizes;               /* size index count */
	double target;            /* us per sample */
	struct seg *segs;
	int nsegs, nruns;
	int *memo;                /* [nruns][D + 1][D + 2] entry count, -1 unknown */
	int *kmin;                /* [ncosts][D + 2] by run and exit count: the
	                             smallest degree meeting the target as one
	                             stage, -1 none, 0 not yet known (reset with
	                             each target) */
	int ncosts;
	struct choice *choice;    /* same shape: how that count was reached */
	char *mark;               /* [nops] scratch */
	bool sequential;
};

/* ---- stage cost -------------------------------------------------------------- */

/* Time per micro-batch and memory per device of a stage with costs c and
 * degree k at micro-batch b, m micro-batches, n in flight; false if b / k
 * has no cost entry. */
static bool stage_metrics(const struct graph *g, const struct runcost *c, int k, int b, int m,
			  int n, double *time, double *mem)
{
	if (b % k)
		return false;
	int i = graph_size_index(g, b / k);
	if (i < 0)
		return false;
	const struct machine *mc = &g->machine;
	*time = c->time[i] + graph_comm(mc, c->in_edges, c->in_bytes, b) +
		graph_allreduce(mc, c->weight, k) / m;
	*mem = graph_static_bytes(mc, c->weight) + (double)n * (b / k) * c->act;
	return true;
}

/* Costs of ops (marked in mark[]) as one stage. */
static int run_cost(const struct graph *g, const int *ops, int nops, char *mark,
		    struct runcost *c)
{
	c->time = calloc(g->nsizes, sizeof *c->time);
	if (!c->time)
		return -1;
	for (int i = 0; i < nops; i++)
		mark[ops[i]] = 1;
	for (int i = 0; i < nops; i++) {
		int v = ops[i];
		for (int s = 0; s < g->nsizes; s++)
			c->time[s] += graph_op_time(g, v, s);
		c->weight += g->ops[v].weight_bytes;
		c->act += g->ops[v].act_bytes;
		for (int k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
			if (!mark[g->pred[k]]) {
				c->in_bytes += g->ops[g->pred[k]].out_bytes;
				c->in_edges++;
			}
	}
	for (int i = 0; i < nops; i++)
		mark[ops[i]] = 0;
	return 0;
}

/* ---- segments ---------------------------------------------------------------- */

static int count_nodes(const struct sp_node *t)
{
	int n = 1;
	for (int i = 0; i < t->nchildren; i++)
		n += count_nodes(t->children[i]);
	return n;
}

/* Ops of children i..j of t, concatenated into buf; returns the count. */
static int run_ops(const struct sp_node *t, int i, int j, int *buf)
{
	if (t->kind == SP_LEAF) {
		buf[0] = t->op;
		return 1;
	}
	int n = 0;
	for (int c = i; c <= j; c++) {
		memcpy(buf + n, t->children[c]->ops, t->children[c]->nops * sizeof *buf);
		n += t->children[c]->nops;
	}
	return n;
}

static int add_segs(struct dp *dp, const struct sp_node *t, int *buf)
{
	struct seg *s = &dp->segs[dp->nsegs++];
	s->node = t;
	s->n = t->kind == SP_LEAF ? 1 : t->nchildren;
	s->first = dp->nruns;
	dp->nruns += s->n;
	s->cost = calloc((size_t)s->n * s->n, sizeof *s->cost);
	if (!s->cost)
		return -1;
	for (int k = 0; k < s->n * s->n; k++)
		s->cost[k].row = dp->ncosts++;
	for (int i = 0; i < s->n; i++)
		for (int j = i; j < s->n; j++) {
			int n = run_ops(t, i, j, buf);
			if (run_cost(dp->g, buf, n, dp->mark, &s->cost[i * s->n + j]))
				return -1;
		}
	s->kids = calloc(s->n, sizeof *s->kids);
	if (!s->kids)
		return -1;
	for (int c = 0; c < t->nchildren; c++) {
		s->kids[c] = &dp->segs[dp->nsegs];   /* segs never moves: sized up front */
		if (add_segs(dp, t->children[c], buf))
			return -1;
	}
	return 0;
}

/* ---- the recursion ------------------------------------------------------------ */

enum how { HOW_STAGE = 1, HOW_WHOLE = 2, HOW_CHILD = 3 };

struct choice {
	enum how how;
	int arg;     /* HOW_STAGE: the degree; HOW_WHOLE: the last child of the stage */
	int d1;      /* devices of the first part */
};

static struct choice encode(enum how how, int arg, int d1)
{
	return (struct choice){how, arg, d1};
}

static int solve(struct dp *dp, struct seg *s, int i, int d, int nout);

/* The run i..j of s as one stage with at most d devices: its entry count,
 * or INF; the smallest fitting degree in *k_out. That degree does not
 * depend on d (only whether it is <= d), so it is found once per (run,
 * exit count, target) and kept in dp->kmin. */
static int one_stage(struct dp *dp, const struct runcost *c, int d, int nout, int *k_out)
{
	int *kmin = &dp->kmin[(size_t)c->row * (dp->D + 2) + nout];
	if (*kmin == 0) {
		*kmin = -1;
		for (int k = 1; k <= dp->D; k *= 2) {
			double t, mem;
			if (!stage_metrics(dp->g, c, k, dp->b, dp->m, nout + 1, &t, &mem))
				continue;
			if (t / dp->b <= dp->target && mem <= dp->g->machine.memory_bytes) {
				*kmin = k;
				break;
			}
		}
	}
	if (*kmin < 0 || *kmin > d)
		return INF;
	*k_out = *kmin;
	return nout + 1;
}

/* First part = children i..m as one stage (mm >= 0), or child i split on its
 * own (mm < 0); then the rest R_{next} in series or in parallel.
 *
 * A single stage needs only d1 = a power of two. solve(.., d, ..) is the
 * best with AT MOST d devices, so it does not increase with d (a plan for d
 * is one for d + 1). A stage of degree k <= d1 therefore does no worse with
 * d1 = k and the rest on d - k >= d2 devices: the rest's entry count can only
 * drop, and with it the stage's in-flight count and memory, so its smallest
 * degree stays <= k. That makes a chain's DP O(log D) per split, not O(D). */
static int combine(struct dp *dp, struct seg *s, int i, int mm, int d, int nout, int *d1_out)
{
	bool series = s->node->kind == SP_SERIES || dp->sequential;
	int next = mm >= 0 ? mm + 1 : i + 1, best = INF;
	for (int d1 = 1; d1 < d; d1 = mm >= 0 ? 2 * d1 : d1 + 1) {
		int d2 = d - d1, rest = solve(dp, s, next, d2, nout), first, k;
		if (rest >= INF)
			continue;
		int exit1 = series ? rest : nout;
		if (mm >= 0)
			first = one_stage(dp, &s->cost[i * s->n + mm], d1, exit1, &k);
		else
			first = solve(dp, s->kids[i], 0, d1, exit1);
		if (first >= INF)
			continue;
		int entry = series ? first : (first > rest ? first : rest);
		if (entry < best) {
			best = entry;
			*d1_out = d1;
		}
	}
	return best;
}

static size_t cell(const struct dp *dp, const struct seg *s, int i, int d, int nout)
{
	return ((size_t)(s->first + i) * (dp->D + 1) + d) * (dp->D + 2) + nout;
}

/* Smallest entry in-flight count of run R_i of s on d devices with exit
 * count nout, meeting the target; INF if none. */
static int solve(struct dp *dp, struct seg *s, int i, int d, int nout)
{
	if (d < 1 || nout > dp->D)
		return INF;
	int *memo = &dp->memo[cell(dp, s, i, d, nout)];
	if (*memo >= 0)
		return *memo;
	int last = s->n - 1, best = INF, k;
	struct choice how = {0, 0, 0};
	int v = one_stage(dp, &s->cost[i * s->n + last], d, nout, &k);
	if (v < best) {
		best = v;
		how = encode(HOW_STAGE, k, 0);
	}
	for (int mm = i; mm < last; mm++) {
		int d1;
		v = combine(dp, s, i, mm, d, nout, &d1);
		if (v < best) {
			best = v;
			how = encode(HOW_WHOLE, mm, d1);
		}
	}
	if (s->node->kind != SP_LEAF && s->node->children[i]->kind != SP_LEAF) {
		int d1;
		v = i < last ? combine(dp, s, i, -1, d, nout, &d1) : INF;
		if (v < best) {
			best = v;
			how = encode(HOW_CHILD, 0, d1);
		}
		if (i == last) {   /* the last child alone: split inside it */
			v = solve(dp, s->kids[i], 0, d, nout);
			if (v < best) {
				best = v;
				how = encode(HOW_CHILD, 0, d);
			}
		}
	}
	*memo = best;
	dp->choice[cell(dp, s, i, d, nout)] = how;
	return best;
}

/* ---- reconstruction ------------------------------------------------------------ */

static int push_stage(struct partition *p, const int *ops, int n, int k)
{
	struct stage *st = realloc(p->stages, (p->nstages + 1) * sizeof *st);
	if (!st)
		return -1;
	p->stages = st;
	st = &p->stages[p->nstages++];
	memset(st, 0, sizeof *st);
	st->ops = malloc(n * sizeof *st->ops);
	if (!st->ops)
		return -1;
	memcpy(st->ops, ops, n * sizeof *ops);
	st->nops = n;
	st->degree = k;
	return 0;
}

static int build(struct dp *dp, struct seg *s, int i, int d, int nout, struct partition *p,
		 int *buf)
{
	struct choice how = dp->choice[cell(dp, s, i, d, nout)];
	int last = s->n - 1, kind = how.how, mm = how.arg, d1 = how.d1;
	bool series = s->node->kind == SP_SERIES || dp->sequential;
	if (kind == HOW_STAGE) {
		int n = run_ops(s->node, i, last, buf);
		return push_stage(p, buf, n, mm);
	}
	if (kind == HOW_CHILD && i == last)
		return build(dp, s->kids[i], 0, d, nout, p, buf);
	int next = kind == HOW_WHOLE ? mm + 1 : i + 1, d2 = d - d1;
	int rest = solve(dp, s, next, d2, nout), exit1 = series ? rest : nout;
	if (kind == HOW_WHOLE) {
		int k, n = run_ops(s->node, i, mm, buf);
		one_stage(dp, &s->cost[i * s->n + mm], d1, exit1, &k);
		if (push_stage(p, buf, n, k))
			return -1;
	} else {
		solve(dp, s->kids[i], 0, d1, exit1);
		if (build(dp, s->kids[i], 0, d1, exit1, p, buf))
			return -1;
	}
	return build(dp, s, next, d2, nout, p, buf);
}

/* ---- evaluation (shared with the ILP and the checks) ----------------------------- */

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Stage of every op, stage edges (from op edges, plus the chain in
 * sequential mode), a topological order; false on a cycle. */
static bool stage_graph(const struct graph *g, struct partition *p, bool chain, int *of)
{
	int S = p->nstages;
	char *adj = calloc((size_t)S * S, 1);
	if (!adj)
		return false;
	for (int e = 0; e < g->nedges; e++) {
		int a = of[g->edges[e][0]], b = of[g->edges[e][1]];
		if (a != b)
			adj[a * S + b] = 1;
	}
	for (int s = 0; chain && s + 1 < S; s++)
		adj[s * S + s + 1] = 1;
	free(p->edges);
	p->nedges = 0;
	p->edges = malloc(((size_t)S * S + 1) * sizeof *p->edges);
	for (int a = 0; p->edges && a < S; a++)
		for (int b = 0; b < S; b++)
			if (adj[a * S + b]) {
				p->edges[p->nedges][0] = a;
				p->edges[p->nedges++][1] = b;
			}
	free(adj);
	return p->edges != NULL;
}

/* In-flight counts: stages on the longest path to a sink (Bellman on the
 * stage DAG, S rounds); false if it does not settle (a cycle). */
static bool inflight(struct partition *p)
{
	int S = p->nstages;
	for (int s = 0; s < S; s++)
		p->stages[s].inflight = 1;
	for (int round = 0; round <= S; round++) {
		bool changed = false;
		for (int e = 0; e < p->nedges; e++) {
			struct stage *a = &p->stages[p->edges[e][0]], *b = &p->stages[p->edges[e][1]];
			if (b->inflight + 1 > a->inflight) {
				a->inflight = b->inflight + 1;
				changed = true;
			}
		}
		if (!changed)
			return true;
		if (round == S)
			return false;
	}
	return true;
}

bool partition_evaluate(const struct graph *g, struct partition *p)
{
	int *of = malloc(g->nops * sizeof *of);
	char *mark = calloc(g->nops, 1);
	bool ok = of && mark;
	for (int v = 0; ok && v < g->nops; v++)
		of[v] = -1;
	for (int s = 0; ok && s < p->nstages; s++)
		for (int i = 0; i < p->stages[s].nops; i++)
			of[p->stages[s].ops[i]] = s;
	for (int v = 0; ok && v < g->nops; v++)
		ok = of[v] >= 0;
	ok = ok && stage_graph(g, p, p->chain, of) && inflight(p);
	p->bottleneck = 0;
	p->devices_used = 0;
	p->depth = 0;
	double *path = ok ? calloc(p->nstages, sizeof *path) : NULL;
	for (int s = 0; ok && s < p->nstages; s++) {
		struct stage *st = &p->stages[s];
		struct runcost c = {0};
		qsort(st->ops, st->nops, sizeof *st->ops, cmp_int);
		ok = !run_cost(g, st->ops, st->nops, mark, &c) &&
		     stage_metrics(g, &c, st->degree, p->microbatch, p->microbatches, st->inflight,
				   &st->time, &st->memory);
		int i = ok ? graph_size_index(g, p->microbatch / st->degree) : 0;
		st->fwd = st->bwd = st->wgrad = 0;
		for (int k = 0; ok && k < st->nops; k++) {
			st->fwd += g->ops[st->ops[k]].fwd[i];
			st->bwd += g->ops[st->ops[k]].bwd[i];
			st->wgrad += g->ops[st->ops[k]].wgrad[i];
		}
		st->act = c.act * (p->microbatch / st->degree);
		st->allreduce = ok ? graph_allreduce(&g->machine, c.weight, st->degree) /
					     p->microbatches : 0;
		free(c.time);
		p->bottleneck = st->time > p->bottleneck ? st->time : p->bottleneck;
		p->devices_used += st->degree;
		p->depth = st->inflight > p->depth ? st->inflight : p->depth;
	}
	/* longest stage path by time: stages are not topologically ordered in
	 * general, so relax S times */
	for (int s = 0; ok && s < p->nstages; s++)
		path[s] = p->stages[s].time;
	for (int round = 0; ok && round < p->nstages; round++) {
		bool changed = false;
		for (int e = 0; e < p->nedges; e++) {
			int a = p->edges[e][0], c = p->edges[e][1];
			if (path[a] + p->stages[c].time > path[c]) {
				path[c] = path[a] + p->stages[c].time;
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	double longest = 0;
	for (int s = 0; ok && s < p->nstages; s++)
		longest = path[s] > longest ? path[s] : longest;
	p->time_per_sample = p->bottleneck / p->microbatch;
	p->estimate = (p->microbatches - 1) * p->bottleneck + longest;
	p->iteration_time = 0;   /* partition_simulate's */
	free(path);
	free(of);
	free(mark);
	return ok;
}

void partition_release(struct partition *p)
{
	for (int s = 0; p->stages && s < p->nstages; s++)
		free(p->stages[s].ops);
	free(p->stages);
	free(p->edges);
	memset(p, 0, sizeof *p);
}

/* ---- the search ------------------------------------------------------------------ */

static void dp_release(struct dp *dp)
{
	for (int i = 0; dp->segs && i < dp->nsegs; i++) {
		struct seg *s = &dp->segs[i];
		for (int k = 0; s->cost && k < s->n * s->n; k++)
			free(s->cost[k].time);
		free(s->cost);
		free(s->kids);
	}
	free(dp->segs);
	free(dp->memo);
	free(dp->kmin);
	free(dp->choice);
	free(dp->mark);
}

/* A chain of leaves in topological order: the sequential pipeline's tree. */
static struct sp_node *chain_tree(const struct graph *g)
{
	struct sp_node *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->kind = g->nops > 1 ? SP_SERIES : SP_LEAF;
	t->op = g->nops > 1 ? -1 : 0;
	t->nops = g->nops;
	t->ops = malloc(g->nops * sizeof *t->ops);
	t->children = calloc(g->nops, sizeof *t->children);
	if (!t->ops || !t->children) {
		sp_free(t);
		return NULL;
	}
	for (int v = 0; v < g->nops; v++)
		t->ops[v] = v;
	for (int i = 0; g->nops > 1 && i < g->nops; i++) {
		struct sp_node *c = calloc(1, sizeof *c);
		if (!c || !(c->ops = malloc(sizeof *c->ops))) {
			free(c);
			sp_free(t);
			return NULL;
		}
		c->kind = SP_LEAF;
		c->op = c->ops[0] = g->topo[i];
		c->nops = 1;
		t->children[t->nchildren++] = c;
	}
	return t;
}

static bool feasible(struct dp *dp, struct seg *root, double target)
{
	size_t cells = (size_t)dp->nruns * (dp->D + 1) * (dp->D + 2);
	memset(dp->memo, 0xff, cells * sizeof *dp->memo);
	memset(dp->kmin, 0, (size_t)dp->ncosts * (dp->D + 2) * sizeof *dp->kmin);
	dp->target = target;
	return solve(dp, root, 0, dp->D, 0) < INF;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Every value the target can take at micro-batch b: a stage meets the
 * target iff its time per sample t(run, k) / b is at most it, so whether a
 * target is feasible changes only at those values, and the smallest feasible
 * target is one of them. Sorted, without repeats; *n their count, NULL if
 * out of memory. */
static double *target_values(struct dp *dp, int b, int *n)
{
	int degrees = 0;
	for (int k = 1; k <= dp->D; k *= 2)
		degrees++;
	double *v = malloc(((size_t)dp->ncosts * degrees + 1) * sizeof *v), t, mem;
	if (!v)
		return NULL;
	int c = 0;
	for (int si = 0; si < dp->nsegs; si++) {
		const struct seg *s = &dp->segs[si];
		for (int i = 0; i < s->n; i++)
			for (int j = i; j < s->n; j++)
				for (int k = 1; k <= dp->D; k *= 2)
					if (stage_metrics(dp->g, &s->cost[i * s->n + j], k, b, dp->m, 1, &t, &mem))
						v[c++] = t / b;
	}
	qsort(v, c, sizeof *v, cmp_double);
	int u = 0;
	for (int i = 0; i < c; i++)
		if (u == 0 || v[i] != v[u - 1])
			v[u++] = v[i];
	*n = u;
	return v;
}

/* The smallest feasible target at micro-batch b, found exactly by a binary
 * search over target_values (log2 of their count DP runs); true with *p
 * filled when one is feasible. */
static bool search_size(struct dp *dp, struct seg *root, int b, struct partition *p)
{
	const struct graph *g = dp->g;
	dp->b = b;
	dp->m = g->batch / b;
	int n;
	double *v = target_values(dp, b, &n);
	if (!v || n == 0 || !feasible(dp, root, v[n - 1])) {
		free(v);
		return false;
	}
	int lo = 0, hi = n - 1;   /* v[hi] feasible; every v below lo infeasible */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (feasible(dp, root, v[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	double target = v[hi];
	free(v);
	feasible(dp, root, target);
	int *buf = malloc(g->nops * sizeof *buf);
	memset(p, 0, sizeof *p);
	p->microbatch = b;
	p->microbatches = dp->m;
	p->chain = dp->sequential;
	bool ok = buf && !build(dp, root, 0, dp->D, 0, p, buf) && partition_evaluate(g, p);
	free(buf);
	if (!ok)
		partition_release(p);
	return ok;
}

/* Among micro-batch sizes: the shorter iteration (the DP has minimised the
 * time per sample at each size; with a fixed mini-batch, time per sample
 * alone would favour one giant micro-batch and no pipelining at all). */
static bool better(const struct partition *a, const struct partition *b)
{
	if (a->estimate != b->estimate)
		return a->estimate < b->estimate;
	return a->time_per_sample < b->time_per_sample;
}

enum status partition_dp(const struct graph *g, const struct partition_options *o,
			 struct partition *best, struct error *err)
{
	struct dp dp = {.g = g, .D = o->devices, .sequential = o->sequential};
	struct sp_node *tree = NULL;
	memset(best, 0, sizeof *best);
	if (o->devices < 1 || o->devices > g->machine.devices)
		return err_set(err, "graph '%s': --devices %d: the machine has %d", g->name,
			       o->devices, g->machine.devices);
	if (o->sequential)
		tree = chain_tree(g);
	else if (sp_decompose(g, &tree, err))
		return STATUS_ERROR;
	if (!tree)
		return err_set(err, "graph '%s': not series-parallel (run 'pipeopt graph sp' to see the edges that make it so)",
			       g->name);
	enum status st = STATUS_OK;
	int nodes = count_nodes(tree), *buf = malloc(g->nops * sizeof *buf);
	dp.segs = calloc(nodes, sizeof *dp.segs);
	dp.mark = calloc(g->nops, 1);
	if (!buf || !dp.segs || !dp.mark || add_segs(&dp, tree, buf))
		st = err_set(err, "graph '%s': out of memory for the partitioner", g->name);
	size_t cells = (size_t)dp.nruns * (dp.D + 1) * (dp.D + 2);
	if (!st && (!(dp.memo = malloc(cells * sizeof *dp.memo)) ||
		    !(dp.choice = calloc(cells, sizeof *dp.choice))))
		st = err_set(err, "graph '%s': out of memory for the partitioner (%zu states)", g->name,
			     cells);
	if (!st && !(dp.kmin = calloc((size_t)dp.ncosts * (dp.D + 2), sizeof *dp.kmin)))
		st = err_set(err, "graph '%s': out of memory for the partitioner", g->name);

	int nsizes = o->nsizes ? o->nsizes : g->nsizes;
	const int *sizes = o->nsizes ? o->sizes : g->microbatch_sizes;
	bool any = false;
	for (int i = 0; !st && i < nsizes; i++) {
		struct partition p;
		if (sizes[i] < 1 || g->batch % sizes[i] || graph_size_index(g, sizes[i]) < 0)
			continue;
		if (!search_size(&dp, &dp.segs[0], sizes[i], &p))
			continue;
		if (!any || better(&p, best)) {
			partition_release(best);
			*best = p;
			any = true;
		} else {
			partition_release(&p);
		}
	}
	if (!st && !any)
		st = err_set(err, "graph '%s': no partition onto %d devices fits in %.4g bytes per device at any micro-batch size",
			     g->name, o->devices, g->machine.memory_bytes);
	if (!st && !o->no_simulate)
		st = partition_simulate(g, best, err);
	if (st)
		partition_release(best);
	free(buf);
	dp_release(&dp);
	sp_free(tree);
	return st;
}
