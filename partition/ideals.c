/*
 * The minimum bottleneck over every convex partition, by a dynamic
 * program over upsets (ideals.h).
 *
 * Why upsets. Give the stages labels 0..S-1 in a topological order of the
 * (acyclic) stage graph, so that labels never decrease along an edge: the
 * MILP's monotone labels. Then U_s = {v : label(v) >= s} is an upset (a
 * set closed under successors) for every s, and U_0 = V > U_1 > ... > U_S
 * = {} is a chain of upsets whose differences are the stages. Conversely
 * every such chain gives monotone labels. So the partitions are the
 * chains of upsets, and the stages are cut off the sink side one at a
 * time: from an upset U (the stages placed so far), the next stage is
 * S = U' \ U for an upset U' > U.
 *
 * What a stage costs depends on U only through a few numbers:
 *   - its time at degree k, sum_{v in S} c_v(k) + sum_{e into S} comm_e +
 *     ar0(k): an edge into S comes from a predecessor, which is outside
 *     U (U is an upset), so the comm charged to S is fixed by S alone;
 *   - its in-flight count j = 1 + the largest count of a stage it feeds
 *     (the stages on its longest path to a sink): those stages hold the
 *     successors in U of S's ops, which all lie on U's frontier (ops of U
 *     with a predecessor outside U). So the state is (U, devices used,
 *     the count of every frontier op), and only the frontier when memory
 *     can bind (pm->memory); a chain (sequential) needs only the number
 *     of stages placed, j = that + 1.
 * f(state) = min over (S, k) of max(t(S, k), f(U + S, d + k, ...)), with
 * f = 0 when U = V: the bottleneck is a max, and the max of the rest does
 * not depend on how U was cut. Memoised on the state; each state is
 * solved once because U grows strictly.
 *
 * Pruning, each a bound that cannot cut an optimal plan:
 *   - ub: only plans with bottleneck <= ub are wanted (the warm start's
 *     bottleneck, or infinity), so a stage with t > ub is skipped and a
 *     state whose value exceeds ub is recorded as infinity. Every state's
 *     value is then min(f, inf if f > ub), the same function throughout
 *     the run, so the memo stays exact.
 *   - a state whose rest cannot fit under ub: every op v left lies on
 *     some stage, so f >= max_v min_k c_v(k); a stage of degree k has
 *     k t >= sum_{v in it} k c_v(k), and the devices left D - d hold them
 *     all, so (D - d) f >= sum_v min_k k c_v(k) (the MILP's bound_T on
 *     the rest).
 *   - while S grows (ops added sinks first, in a reverse topological
 *     order, so an op joins only after all its successors are placed),
 *     sum c_v(k) + ar0(k) and the bytes only grow (comm may fall, so it
 *     is left out): once no degree keeps them under ub, the best stage
 *     found so far and the memory, no larger S can do better.
 */
#include "partition/ideals.h"
#include "common/clock.h"
#include "common/stop.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UPSETS (1L << 17)   /* upsets of the whole graph */
#define MAX_STATES (1L << 19)   /* memo entries (a table of about 75 MiB) */
#define MAX_FRONTIER 38         /* frontier ops in a state's key (no padding) */
#define MAX_DEGREES 16

struct key {
	uint64_t U;
	uint8_t d, placed;              /* devices used; stages placed (a chain) */
	uint8_t lv[MAX_FRONTIER];       /* in-flight count of each frontier op */
};
/* keys are hashed and compared as bytes */
_Static_assert(sizeof(struct key) == 48, "struct key has padding");

struct slot {
	struct key k;
	bool used;
	int8_t deg;                     /* the best stage's degree index */
	uint8_t j;                      /* and its in-flight count */
	uint64_t S;                     /* the best stage */
	double val;
};

struct arc {
	int op;
	double comm;
};

struct ctx {
	int n, D, nk;
	int degree[MAX_DEGREES];
	uint64_t all, succ[IDEALS_MAX_OPS], pred[IDEALS_MAX_OPS];
	int order[IDEALS_MAX_OPS];      /* reverse topological: sinks first */
	struct arc *in[IDEALS_MAX_OPS], *out[IDEALS_MAX_OPS];
	int nin[IDEALS_MAX_OPS], nout[IDEALS_MAX_OPS];
	double cost[IDEALS_MAX_OPS][MAX_DEGREES];   /* c_v(k) */
	double act[IDEALS_MAX_OPS][MAX_DEGREES];    /* bytes per micro-batch in flight */
	double stat[IDEALS_MAX_OPS];                 /* bytes with none in flight */
	double minc[IDEALS_MAX_OPS], minkc[IDEALS_MAX_OPS];
	double ar0[MAX_DEGREES];
	double mem_limit, ub, deadline;
	bool memory, sequential;
	bool sum;                       /* the second pass: minimise sum_s t_s */
	struct slot *tab;
	long cap, used, leaves;
	bool stop, too_big;
};

/* A stage being grown: its ops and the sums the bounds need. */
struct cand {
	uint64_t S;
	int j;                          /* its in-flight count so far */
	double comm, stat;
	double cost[MAX_DEGREES], act[MAX_DEGREES];
};

/* The state being solved and the best stage found for it. */
struct node {
	uint64_t U;
	int d, placed;
	const uint8_t *lev;             /* [n] in-flight count of each op of U */
	double best;
	uint64_t S;
	int deg, j;
};

static double solve_state(struct ctx *x, uint64_t U, int d, int placed, const uint8_t *lev);

static uint64_t bit(int v)
{
	return (uint64_t)1 << v;
}

/* ---- the memo: open addressing on the whole key ---- */

static uint64_t key_hash(const struct key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < sizeof *k; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static struct slot *find(struct ctx *x, const struct key *k)
{
	for (uint64_t i = key_hash(k) & (x->cap - 1);; i = (i + 1) & (x->cap - 1))
		if (!x->tab[i].used || !memcmp(&x->tab[i].k, k, sizeof *k))
			return &x->tab[i];
}

static bool grow_table(struct ctx *x)
{
	long cap = x->cap ? 2 * x->cap : 4096;
	struct slot *old = x->tab, *t = calloc(cap, sizeof *t);
	if (!t)
		return false;
	long oldcap = x->cap;
	x->tab = t;
	x->cap = cap;
	for (long i = 0; i < oldcap; i++)
		if (old[i].used)
			memcpy(find(x, &old[i].k), &old[i], sizeof old[i]);
	free(old);
	return true;
}

static void remember(struct ctx *x, const struct key *k, const struct node *nd)
{
	if (2 * (x->used + 1) > x->cap && (x->used + 1 > MAX_STATES || !grow_table(x))) {
		x->too_big = true;
		return;
	}
	struct slot *s = find(x, k);
	memcpy(&s->k, k, sizeof *k);
	s->used = true;
	s->deg = (int8_t)nd->deg;
	s->j = (uint8_t)nd->j;
	s->S = nd->S;
	s->val = nd->best;
	x->used++;
}

/* The key of (U, d, ...): the frontier's counts only when memory binds. */
static bool make_key(const struct ctx *x, uint64_t U, int d, int placed, const uint8_t *lev,
		     struct key *k)
{
	memset(k, 0, sizeof *k);
	k->U = U;
	k->d = (uint8_t)d;
	if (!x->memory)
		return true;
	if (x->sequential) {
		k->placed = (uint8_t)placed;
		return true;
	}
	int f = 0;
	for (int v = 0; v < x->n; v++)
		if ((U & bit(v)) && (x->pred[v] & ~U)) {
			if (f == MAX_FRONTIER)
				return false;
			k->lv[f++] = lev[v];
		}
	return true;
}

/* ---- bounds ---- */

/* A lower bound on f of a state: the rest's longest op and its work over
 * the devices left (the argument is at the top of the file). */
static double rest_bound(const struct ctx *x, uint64_t U, int d)
{
	double one = 0, work = 0;
	bool any = false;
	for (int v = 0; v < x->n; v++)
		if (!(U & bit(v))) {
			any = true;
			one = x->minc[v] > one ? x->minc[v] : one;
			work += x->minkc[v];
		}
	if (!any)
		return 0;
	if (d >= x->D)
		return INFINITY;
	return one > work / (x->D - d) ? one : work / (x->D - d);
}

/* Can S, or any stage grown from it, still beat the state's best within
 * ub and memory at some degree? */
static bool viable(const struct ctx *x, const struct node *nd, const struct cand *c)
{
	for (int k = 0; k < x->nk && x->degree[k] <= x->D - nd->d; k++) {
		double t = c->cost[k] + x->ar0[k];
		if (t > x->ub || t >= nd->best)
			continue;
		if (x->memory && c->stat + c->j * c->act[k] > x->mem_limit)
			continue;
		return true;
	}
	return false;
}

/* ---- the stages of a state ---- */

/* lev with every op of S at in-flight count j: the counts of U + S. */
static void set_levels(const struct ctx *x, uint8_t *lev, uint64_t S, int j)
{
	for (int v = 0; v < x->n; v++)
		if (S & bit(v))
			lev[v] = (uint8_t)j;
}

/* S complete: try it at every degree against the best so far. */
static void try_stage(struct ctx *x, struct node *nd, const struct cand *c)
{
	if ((++x->leaves & 1023) == 0 &&
	    (stop_requested() || (x->deadline > 0 && clock_seconds() > x->deadline)))
		x->stop = true;
	if (x->stop || x->too_big)
		return;
	uint8_t lev[IDEALS_MAX_OPS];
	const uint8_t *next = nd->lev;
	if (x->memory && !x->sequential) {
		next = lev;
		memcpy(lev, nd->lev, x->n);
		set_levels(x, lev, c->S, c->j);
	}
	for (int k = 0; k < x->nk && x->degree[k] <= x->D - nd->d; k++) {
		double t = c->cost[k] + c->comm + x->ar0[k];
		if (t > x->ub || t >= nd->best)
			continue;
		if (x->memory && c->stat + c->j * c->act[k] > x->mem_limit)
			continue;
		double rest = solve_state(x, nd->U | c->S, nd->d + x->degree[k], nd->placed + 1, next);
		double val = x->sum ? t + rest : t > rest ? t : rest;
		if (val < nd->best) {
			nd->best = val;
			nd->S = c->S;
			nd->deg = k;
			nd->j = c->j;
		}
	}
}

/* Add op v (all its successors are in U + S) to the stage. */
static void add_op(const struct ctx *x, const struct node *nd, struct cand *c, int v)
{
	c->S |= bit(v);
	for (int i = 0; i < x->nin[v]; i++)
		c->comm += x->in[v][i].comm;   /* cut until its tail joins S */
	for (int i = 0; i < x->nout[v]; i++) {
		int w = x->out[v][i].op;
		if (c->S & bit(w))
			c->comm -= x->out[v][i].comm;   /* now inside S */
		else if (x->memory && !x->sequential && nd->lev[w] + 1 > c->j)
			c->j = nd->lev[w] + 1;          /* w in U: a later stage */
	}
	c->stat += x->stat[v];
	for (int k = 0; k < x->nk; k++) {
		c->cost[k] += x->cost[v][k];
		c->act[k] += x->act[v][k];
	}
}

/* Every upset U' > U in turn, S = U' \ U: the ops left, sinks first, each
 * in or out; an op may join only when its successors are all placed. */
static void grow(struct ctx *x, struct node *nd, const int *rem, int nrem, int pos,
		 const struct cand *c)
{
	if (x->stop || x->too_big)
		return;
	if (pos == nrem) {
		if (c->S)
			try_stage(x, nd, c);
		return;
	}
	int v = rem[pos];
	grow(x, nd, rem, nrem, pos + 1, c);
	if (x->succ[v] & ~(nd->U | c->S))
		return;
	struct cand with = *c;
	add_op(x, nd, &with, v);
	if (viable(x, nd, &with))
		grow(x, nd, rem, nrem, pos + 1, &with);
}

static double solve_state(struct ctx *x, uint64_t U, int d, int placed, const uint8_t *lev)
{
	if (U == x->all)
		return 0;
	struct key k;
	if (!make_key(x, U, d, placed, lev, &k)) {
		x->too_big = true;
		return INFINITY;
	}
	struct slot *s = find(x, &k);
	if (s->used)
		return s->val;
	struct node nd = {.U = U, .d = d, .placed = placed, .lev = lev, .best = INFINITY,
			  .deg = -1};
	if (rest_bound(x, U, d) <= x->ub) {
		int rem[IDEALS_MAX_OPS], nrem = 0;
		for (int i = 0; i < x->n; i++)
			if (!(U & bit(x->order[i])))
				rem[nrem++] = x->order[i];
		struct cand c = {.j = x->sequential ? placed + 1 : 1};
		grow(x, &nd, rem, nrem, 0, &c);
	}
	if (x->stop || x->too_big)
		return INFINITY;   /* not remembered: unfinished */
	remember(x, &k, &nd);
	return nd.best;
}

/* ---- set-up ---- */

/* The graph's upsets, counted up to cap (the same include-or-exclude walk
 * as grow's, from the empty set). */
static long count_upsets(const struct ctx *x, int pos, uint64_t U, long cap)
{
	if (pos == x->n)
		return 1;
	int v = x->order[pos];
	long n = count_upsets(x, pos + 1, U, cap);
	if (n < cap && !(x->succ[v] & ~U))
		n += count_upsets(x, pos + 1, U | bit(v), cap - n);
	return n;
}

/* Ops sinks first (Kahn's algorithm on the reversed graph); false on a
 * cycle, which graph_read already refuses. */
static bool reverse_topological(struct ctx *x)
{
	uint64_t placed = 0;
	for (int i = 0; i < x->n; i++) {
		int v = 0;
		while (v < x->n && ((placed & bit(v)) || (x->succ[v] & ~placed)))
			v++;
		if (v == x->n)
			return false;
		x->order[i] = v;
		placed |= bit(v);
	}
	return true;
}

static bool setup(struct ctx *x, const struct graph *g, const struct pmilp *pm, int D,
		  bool busy_only)
{
	x->n = g->nops;
	x->D = D;
	x->nk = pm->nk < MAX_DEGREES ? pm->nk : MAX_DEGREES;
	x->all = x->n == 64 ? ~(uint64_t)0 : bit(x->n) - 1;
	x->mem_limit = g->machine.memory_bytes;
	x->memory = pm->memory && !busy_only;
	x->sequential = pm->sequential;
	for (int k = 0; k < x->nk; k++) {
		x->degree[k] = pm->degree[k];
		x->ar0[k] = pmilp_stage_latency(g, pm, k);
	}
	for (int e = 0; e < g->nedges; e++) {
		int u = g->edges[e][0], v = g->edges[e][1];
		x->succ[u] |= bit(v);
		x->pred[v] |= bit(u);
		x->nin[v]++;
		x->nout[u]++;
	}
	for (int v = 0; v < x->n; v++) {
		x->in[v] = malloc((x->nin[v] + 1) * sizeof *x->in[v]);
		x->out[v] = malloc((x->nout[v] + 1) * sizeof *x->out[v]);
		if (!x->in[v] || !x->out[v])
			return false;
		x->nin[v] = x->nout[v] = 0;
	}
	for (int e = 0; e < g->nedges; e++) {
		int u = g->edges[e][0], v = g->edges[e][1];
		double c = busy_only ? 0 : pmilp_edge_comm(g, e, pm->b);
		x->in[v][x->nin[v]++] = (struct arc){u, c};
		x->out[u][x->nout[u]++] = (struct arc){v, c};
	}
	for (int v = 0; v < x->n; v++) {
		x->stat[v] = pmilp_op_bytes(g, pm, v, 0, 0);
		x->minc[v] = x->minkc[v] = INFINITY;
		for (int k = 0; k < x->nk; k++) {
			x->cost[v][k] = pmilp_op_cost(g, pm, v, k);
			x->act[v][k] = pmilp_op_bytes(g, pm, v, k, 1) - x->stat[v];
			if (x->degree[k] > D)
				continue;
			x->minc[v] = fmin(x->minc[v], x->cost[v][k]);
			x->minkc[v] = fmin(x->minkc[v], x->degree[k] * x->cost[v][k]);
		}
	}
	return reverse_topological(x);
}

/* The plan: follow the best stages from the empty upset. */
static void reconstruct(const struct ctx *x, struct ideals_plan *r)
{
	uint64_t U = 0, stage[IDEALS_MAX_OPS];
	int deg[IDEALS_MAX_OPS], d = 0, placed = 0;
	uint8_t lev[IDEALS_MAX_OPS] = {0};
	while (U != x->all) {
		struct key k;
		make_key(x, U, d, placed, lev, &k);
		const struct slot *s = find((struct ctx *)x, &k);
		if (!s->used || !s->S)
			break;   /* cannot happen for an optimal state */
		set_levels(x, lev, s->S, s->j);
		stage[placed] = s->S;
		deg[placed++] = x->degree[s->deg];
		d += x->degree[s->deg];
		U |= s->S;
	}
	/* cut off the sink side first: the last cut is label 0 */
	r->nstages = placed;
	for (int i = 0; i < placed; i++) {
		int label = placed - 1 - i;
		r->degree_of[label] = deg[i];
		for (int v = 0; v < x->n; v++)
			if (stage[i] & bit(v))
				r->stage_of[v] = label;
	}
}

void ideals_solve(const struct graph *g, const struct pmilp *pm, int D, double ub,
		  double deadline, bool busy_only, struct ideals_result *r)
{
	double t0 = clock_seconds();
	memset(r, 0, sizeof *r);
	r->outcome = IDEALS_TOO_BIG;
	if (g->nops < 1 || g->nops > IDEALS_MAX_OPS || pm->nk < 1 || pm->nk > MAX_DEGREES ||
	    D > 255)
		return;
	struct ctx *x = calloc(1, sizeof *x);
	if (!x)
		return;
	x->ub = ub;
	x->deadline = deadline;
	if (setup(x, g, pm, D, busy_only) && count_upsets(x, 0, 0, MAX_UPSETS + 1) <= MAX_UPSETS &&
	    grow_table(x)) {
		uint8_t lev[IDEALS_MAX_OPS] = {0};
		double best = solve_state(x, 0, 0, 0, lev);
		r->states = x->used;
		if (!x->stop && !x->too_big && !isinf(best)) {
			r->bottleneck = best;
			reconstruct(x, &r->plan[r->nplans++]);
		}
		if (!busy_only && !x->stop && !x->too_big && !isinf(best)) {
			/* a second plan at the optimum: the least total stage
			 * time (sum_s t_s), by the same DP with + for max under
			 * ub = the optimum (a hair above, as the MILP's cutoff
			 * is); which of the two runs shorter is the simulator's
			 * to say (neither criterion is the iteration time) */
			memset(x->tab, 0, x->cap * sizeof *x->tab);
			x->used = 0;
			x->sum = true;
			x->ub = best * (1 + 1e-9) + 1e-9;
			double total = solve_state(x, 0, 0, 0, lev);
			r->states += x->used;
			if (!x->stop && !x->too_big && !isinf(total))
				reconstruct(x, &r->plan[r->nplans++]);
			else if (!x->stop && !x->too_big)
				x->too_big = true;   /* cannot happen: the optimum is under ub */
		}
		if (x->stop)
			r->outcome = IDEALS_STOPPED;
		else if (x->too_big)
			r->outcome = IDEALS_TOO_BIG;
		else if (isinf(best))
			r->outcome = IDEALS_NONE;
		else
			r->outcome = IDEALS_OPTIMAL;
	}
	for (int v = 0; v < x->n; v++) {
		free(x->in[v]);
		free(x->out[v]);
	}
	free(x->tab);
	free(x);
	r->seconds = clock_seconds() - t0;
}
