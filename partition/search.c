/*
 * The default partitioner (partition_search; the argument is in
 * partition/README.md): a local search over every convex partition with an
 * acyclic stage graph, each candidate timed as plan and exec will time it
 * (partition_simulate: 1f1b-dag on its schedule instance, simulated).
 *
 * A candidate is a labelling: the stage of every operator, the degree of
 * every stage, one micro-batch size. Its stage graph must be acyclic, which
 * also makes every stage convex (a path leaving a stage and coming back
 * would be a cycle of stages). Seeds, at every micro-batch size: GraphPipe's
 * DP (SP segments) and the sequential DP (a chain); both are timed, so the
 * result is never slower than either. From the best seeds a descent moves:
 *   - one operator to the stage of a neighbour (or, with few stages, to any
 *     stage), or onto a new stage of its own on a spare device;
 *   - a stage's degree doubled (spare devices) or halved;
 *   - two stages merged (their devices pooled, to a power of two);
 *   - a stage split: a prefix of its operators in topological order, or one
 *     of its weakly connected parts, onto a spare device or half its own.
 * Each neighbour is screened in O(ops + edges): acyclic, memory (the cost
 * model's bytes, partition.h), and a lower bound m * max_s (F + B + W)_s
 * (some device is busy that long); the survivors are simulated in the order
 * of the closed form (m - 1) max_s c_s + the longest stage path with
 * overlapped comm, at most SIMS_PER_STEP of them, and the first that is
 * shorter (or as short and better balanced: smaller sum of c_s^2) is taken.
 */
#include "partition/partition.h"
#include "partition/bridge.h"
#include "partition/ideals.h"
#include "graph/cost.h"
#include "common/clock.h"
#include "common/stop.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SIMS_PER_STEP 16   /* simulations per descent step, best-ranked first, */
#define SIM_OPS_PER_STEP 400000   /* or as many as this many simulated ops */
#define DESCENTS 3         /* starts descended from at least, best first, */
#define DESCENT_OPS 10000000   /* and more while the simulated ops stay below this */
#define KICK_OPS 8000000      /* perturb-and-descend rounds while below this, */
#define KICK_ROUNDS 40         /* at most this many rounds without a gain */
#define KICK_MOVES 3           /* random moves per kick */
#define SMALL_STAGES 8     /* up to this many stages, moves go to any stage */

struct lab {
	int S;              /* stages */
	int *of;            /* [nops] stage of each op, 0..S-1 */
	int *deg;           /* [nops + 1] degree of each stage */
	bool chain;         /* consecutive stages also depend (a sequential seed) */
	double lb;          /* us: m * max_s c_s, below any schedule */
	double rank;        /* us: the closed form with overlapped comm */
	double spread;      /* us^2: sum_s c_s^2, the tie-break */
	double value;       /* us: simulated iteration; INFINITY when not timed */
};

/* The labellings timed so far, by canonical key (the size, the chain flag,
 * each op's stage renumbered in order of first appearance, and those
 * stages' degrees), so a labelling the kicks and descents revisit (a third
 * or more of them) is not built and simulated again. Exact: keys are
 * compared whole, the hash only finds them. */
struct memo {
	uint64_t *hash;     /* [cap], 0 empty */
	int *at;            /* [cap] offset of the entry's key in keys */
	double *value;      /* [cap] its time, INFINITY when infeasible */
	int cap, n;
	int *keys, nkeys, keycap;
	int *key;           /* scratch: the key being looked up [nops + 3 + nops] */
};

struct search {
	const struct graph *g;
	int D, b, m;
	double deadline;    /* clock_seconds(); 0: none */
	int sims, moves, cached;
	double sim_ops;     /* ops simulated in all (3 S m per simulation,
	                       a cached one charged as if run) */
	struct memo memo;   /* labellings timed so far */
	uint64_t rng;       /* xorshift64 state for the kicks (fixed seed) */
	bool stopped;       /* interrupt or time limit */
	/* scratch for screening, sized once */
	int *indeg, *queue, *depth, *topo, *mark;
	char *adj;          /* [cap * cap] */
	double *c, *path, *bytes, *wsum, *asum, *F, *B, *W;
	int cap;            /* nops + 1 */
};

/* ---- labellings ------------------------------------------------------------- */

static bool lab_init(struct lab *l, int nops)
{
	memset(l, 0, sizeof *l);
	l->of = calloc(nops ? nops : 1, sizeof *l->of);
	l->deg = calloc(nops + 1, sizeof *l->deg);
	l->value = INFINITY;
	return l->of && l->deg;
}

static void lab_release(struct lab *l)
{
	free(l->of);
	free(l->deg);
	memset(l, 0, sizeof *l);
}

static void lab_copy(struct lab *to, const struct lab *from, int nops)
{
	int *of = to->of, *deg = to->deg;
	*to = *from;
	to->of = of;
	to->deg = deg;
	memcpy(of, from->of, nops * sizeof *of);
	memcpy(deg, from->deg, (nops + 1) * sizeof *deg);
}

/* Drop empty stages, keeping the others' order. */
static void lab_compact(struct lab *l, int nops, int *map)
{
	int S = 0;
	for (int s = 0; s < l->S; s++)
		map[s] = -1;
	for (int v = 0; v < nops; v++)
		map[l->of[v]] = 0;
	for (int s = 0; s < l->S; s++)
		if (map[s] == 0) {
			l->deg[S] = l->deg[s];
			map[s] = S++;
		}
	for (int v = 0; v < nops; v++)
		l->of[v] = map[l->of[v]];
	l->S = S;
}

static int lab_devices(const struct lab *l)
{
	int n = 0;
	for (int s = 0; s < l->S; s++)
		n += l->deg[s];
	return n;
}

static void lab_from_partition(struct lab *l, const struct partition *p)
{
	l->S = p->nstages;
	l->chain = p->chain;
	for (int s = 0; s < p->nstages; s++) {
		l->deg[s] = p->stages[s].degree;
		for (int i = 0; i < p->stages[s].nops; i++)
			l->of[p->stages[s].ops[i]] = s;
	}
	l->value = INFINITY;
}

/* ---- screening ----------------------------------------------------------------- */

static int64_t up(double x, int64_t lo)
{
	int64_t v = (int64_t)ceil(x - 1e-9);
	return v < lo ? lo : v;
}

/* Stage graph, acyclicity (Kahn), in-flight counts (stages on the longest
 * path to a sink), memory, per-stage busy time c_s as the bridge rounds it,
 * and lb, rank, spread. False when cyclic, a degree has no cost entry, or
 * memory does not fit. sr->topo gets the stage order. */
static bool screen(struct search *sr, struct lab *l)
{
	const struct graph *g = sr->g;
	const struct machine *mc = &g->machine;
	int S = l->S;
	if (S < 1 || lab_devices(l) > sr->D)
		return false;
	memset(sr->adj, 0, (size_t)S * S);
	for (int s = 0; s < S; s++) {
		sr->indeg[s] = 0;
		sr->wsum[s] = sr->asum[s] = 0;
		sr->c[s] = 0;
	}
	for (int s = 0; s < S; s++) {
		int k = l->deg[s];
		if (k < 1 || sr->b % k || graph_size_index(g, sr->b / k) < 0)
			return false;
	}
	double *F = sr->F, *B = sr->B, *W = sr->W;
	for (int s = 0; s < S; s++)
		F[s] = B[s] = W[s] = 0;
	for (int v = 0; v < g->nops; v++) {
		int s = l->of[v], i = graph_size_index(g, sr->b / l->deg[s]);
		F[s] += g->ops[v].fwd[i];
		B[s] += g->ops[v].bwd[i];
		W[s] += g->ops[v].wgrad[i];
		sr->wsum[s] += g->ops[v].weight_bytes;
		sr->asum[s] += g->ops[v].act_bytes;
	}
	for (int s = 0; s < S * S; s++)
		sr->bytes[s] = 0;
	for (int e = 0; e < g->nedges; e++) {
		int a = l->of[g->edges[e][0]], c = l->of[g->edges[e][1]];
		if (a == c)
			continue;
		if (!sr->adj[a * S + c]) {
			sr->adj[a * S + c] = 1;
			sr->indeg[c]++;
		}
		sr->bytes[a * S + c] += g->ops[g->edges[e][0]].out_bytes * sr->b;
	}
	for (int s = 0; l->chain && s + 1 < S; s++)
		if (!sr->adj[s * S + s + 1]) {
			sr->adj[s * S + s + 1] = 1;
			sr->indeg[s + 1]++;
		}
	int head = 0, tail = 0;
	for (int s = 0; s < S; s++)
		if (!sr->indeg[s])
			sr->queue[tail++] = s;
	while (head < tail) {
		int a = sr->queue[head++];
		for (int c = 0; c < S; c++)
			if (sr->adj[a * S + c] && !--sr->indeg[c])
				sr->queue[tail++] = c;
	}
	if (tail < S)
		return false;   /* a cycle of stages */
	memcpy(sr->topo, sr->queue, S * sizeof *sr->topo);
	double cmax = 0, spread = 0;
	for (int s = 0; s < S; s++) {
		double ar = graph_allreduce(mc, sr->wsum[s], l->deg[s]) / sr->m;
		sr->c[s] = (double)(up(F[s], 1) + up(B[s], 1) + up(W[s] + ar, 0));
		cmax = sr->c[s] > cmax ? sr->c[s] : cmax;
		spread += sr->c[s] * sr->c[s];
	}
	/* in-flight counts, sinks first */
	for (int i = S - 1; i >= 0; i--) {
		int a = sr->topo[i], best = 0;
		for (int c = 0; c < S; c++)
			if (sr->adj[a * S + c] && sr->depth[c] > best)
				best = sr->depth[c];
		sr->depth[a] = best + 1;
		double mem = graph_static_bytes(mc, sr->wsum[a]) +
			     (double)sr->depth[a] * (sr->b / l->deg[a]) * sr->asum[a];
		if (mem > mc->memory_bytes)
			return false;
	}
	/* the longest stage path, comm overlapped (lag on the edge) */
	double longest = 0;
	for (int i = 0; i < S; i++) {
		int c = sr->topo[i];
		double best = 0;
		for (int a = 0; a < S; a++)
			if (sr->adj[a * S + c]) {
				double lag = (double)up(mc->link_latency_us +
							sr->bytes[a * S + c] / mc->link_bandwidth, 0);
				double t = sr->path[a] + lag;
				best = t > best ? t : best;
			}
		sr->path[c] = best + sr->c[c];
		longest = sr->path[c] > longest ? sr->path[c] : longest;
	}
	l->lb = sr->m * cmax;
	l->rank = (sr->m - 1) * cmax + longest;
	l->spread = spread;
	return true;
}

/* The partition of l at sr->b, stages in the screened topological order
 * (a chain keeps its own), evaluated; false when it does not evaluate or
 * does not fit in memory. */
static bool to_partition(struct search *sr, struct lab *l, struct partition *p)
{
	const struct graph *g = sr->g;
	memset(p, 0, sizeof *p);
	if (!screen(sr, l))
		return false;
	int S = l->S;
	p->stages = calloc(S, sizeof *p->stages);
	if (!p->stages)
		return false;
	p->nstages = S;
	p->microbatch = sr->b;
	p->microbatches = sr->m;
	p->chain = l->chain;
	for (int i = 0; i < S; i++)
		sr->mark[l->chain ? i : sr->topo[i]] = i;   /* old stage -> new index */
	for (int s = 0; s < S; s++)
		p->stages[sr->mark[s]].degree = l->deg[s];
	for (int v = 0; v < g->nops; v++)
		p->stages[sr->mark[l->of[v]]].nops++;
	bool ok = true;
	for (int s = 0; s < S; s++) {
		p->stages[s].ops = malloc(p->stages[s].nops * sizeof(int));
		ok = ok && p->stages[s].ops;
		p->stages[s].nops = 0;
	}
	for (int v = 0; ok && v < g->nops; v++) {
		struct stage *st = &p->stages[sr->mark[l->of[v]]];
		st->ops[st->nops++] = v;
	}
	ok = ok && partition_evaluate(g, p);
	for (int s = 0; ok && s < S; s++)
		ok = p->stages[s].memory <= g->machine.memory_bytes;
	if (!ok)
		partition_release(p);
	return ok;
}

/* l's canonical key into mo->key; its length. */
static int memo_key(struct memo *mo, const struct search *sr, const struct lab *l, int *map)
{
	int nops = sr->g->nops, S = 0, n = 3, *k = mo->key;
	for (int s = 0; s < l->S; s++)
		map[s] = -1;
	k[0] = sr->b;
	k[1] = l->chain;
	for (int v = 0; v < nops; v++) {
		int a = l->of[v];
		if (map[a] < 0) {
			map[a] = S++;
			k[3 + nops + map[a]] = l->deg[a];
		}
		k[n++] = map[a];
	}
	k[2] = S;
	memmove(&k[n], &k[3 + nops], S * sizeof *k);
	return n + S;
}

static uint64_t memo_hash(const int *k, int n)
{
	uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
	for (int i = 0; i < n; i++)
		h = (h ^ (uint32_t)k[i]) * 1099511628211ULL;
	return h ? h : 1;
}

/* The slot of key k (its hash h): the entry's, or the empty one to fill. */
static int memo_slot(const struct memo *mo, const int *k, int n, uint64_t h)
{
	int i = (int)(h & (uint64_t)(mo->cap - 1));
	while (mo->hash[i] && !(mo->hash[i] == h && mo->keys[mo->at[i]] == n &&
				!memcmp(&mo->keys[mo->at[i] + 1], k, n * sizeof *k)))
		i = (i + 1) & (mo->cap - 1);
	return i;
}

static bool memo_grow(struct memo *mo)
{
	struct memo old = *mo;
	int cap = old.cap ? 2 * old.cap : 1024;
	mo->hash = calloc(cap, sizeof *mo->hash);
	mo->at = malloc(cap * sizeof *mo->at);
	mo->value = malloc(cap * sizeof *mo->value);
	mo->cap = cap;
	if (!mo->hash || !mo->at || !mo->value) {
		free(mo->hash);
		free(mo->at);
		free(mo->value);
		*mo = old;
		return false;
	}
	for (int i = 0; i < old.cap; i++)
		if (old.hash[i]) {
			int j = (int)(old.hash[i] & (uint64_t)(cap - 1));
			while (mo->hash[j])
				j = (j + 1) & (cap - 1);
			mo->hash[j] = old.hash[i];
			mo->at[j] = old.at[i];
			mo->value[j] = old.value[i];
		}
	free(old.hash);
	free(old.at);
	free(old.value);
	return true;
}

/* Remember the time of key k (length n, hash h); silently not when out of
 * memory (the memo only saves work). */
static void memo_put(struct memo *mo, const int *k, int n, uint64_t h, double value)
{
	if (2 * (mo->n + 1) > mo->cap && !memo_grow(mo))
		return;
	if (mo->nkeys + n + 1 > mo->keycap) {
		int cap = 2 * (mo->nkeys + n + 1);
		int *keys = realloc(mo->keys, cap * sizeof *keys);
		if (!keys)
			return;
		mo->keys = keys;
		mo->keycap = cap;
	}
	int i = memo_slot(mo, k, n, h);
	mo->hash[i] = h;
	mo->at[i] = mo->nkeys;
	mo->value[i] = value;
	mo->keys[mo->nkeys] = n;
	memcpy(&mo->keys[mo->nkeys + 1], k, n * sizeof *k);
	mo->nkeys += n + 1;
	mo->n++;
}

static void memo_release(struct memo *mo)
{
	free(mo->hash);
	free(mo->at);
	free(mo->value);
	free(mo->keys);
	free(mo->key);
}

/* Time l (l->value); false when infeasible or the simulator refuses. */
static bool simulate(struct search *sr, struct lab *l)
{
	struct partition p;
	struct error err;
	struct memo *mo = &sr->memo;
	int n = mo->key ? memo_key(mo, sr, l, sr->mark) : 0;
	uint64_t h = n ? memo_hash(mo->key, n) : 0;
	l->value = INFINITY;
	if (n && mo->cap) {
		int i = memo_slot(mo, mo->key, n, h);
		if (mo->hash[i]) {   /* screen still sets lb, rank and spread */
			l->value = screen(sr, l) ? mo->value[i] : INFINITY;
			sr->cached++;
			sr->sim_ops += 3.0 * l->S * sr->m;   /* the same trajectory as without */
			return isfinite(l->value);
		}
	}
	if (to_partition(sr, l, &p)) {
		sr->sims++;
		sr->sim_ops += 3.0 * p.nstages * p.microbatches;
		if (!partition_simulate(sr->g, &p, &err))
			l->value = p.iteration_time;
		partition_release(&p);
	}
	if (n)
		memo_put(mo, mo->key, n, h, l->value);
	return isfinite(l->value);
}

/* a is better than b: shorter, or as short and better balanced. */
static bool better(const struct lab *a, const struct lab *b)
{
	if (a->value != b->value)
		return a->value < b->value;
	return a->spread < b->spread * (1 - 1e-12);
}

/* ---- moves ------------------------------------------------------------------------- */

struct moves {
	struct lab *l;      /* [cap] */
	int n, cap;
	int nops;
};

static struct lab *push(struct moves *mv, const struct lab *from)
{
	if (mv->n == mv->cap) {
		int cap = mv->cap ? 2 * mv->cap : 64;
		struct lab *l = realloc(mv->l, cap * sizeof *l);
		if (!l)
			return NULL;
		for (int i = mv->cap; i < cap; i++)
			if (!lab_init(&l[i], mv->nops)) {
				mv->l = l;
				mv->cap = i;
				return NULL;
			}
		mv->l = l;
		mv->cap = cap;
	}
	struct lab *to = &mv->l[mv->n++];
	lab_copy(to, from, mv->nops);
	to->chain = false;
	to->value = INFINITY;
	return to;
}

static int pow2_floor(int x)
{
	int p = 1;
	while (2 * p <= x)
		p *= 2;
	return p;
}

static void moves_ops(struct search *sr, const struct lab *cur, int spare, struct moves *mv)
{
	const struct graph *g = sr->g;
	int *seen = sr->mark;
	for (int v = 0; v < g->nops; v++) {
		int a = cur->of[v];
		for (int s = 0; s <= cur->S; s++)
			seen[s] = 0;
		seen[a] = 1;
		for (int k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
			seen[cur->of[g->pred[k]]] |= 2;
		for (int k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
			seen[cur->of[g->succ[k]]] |= 2;
		for (int t = 0; t < cur->S; t++) {
			if (seen[t] & 1 || (!(seen[t] & 2) && cur->S > SMALL_STAGES))
				continue;
			struct lab *n = push(mv, cur);
			if (!n)
				return;
			n->of[v] = t;
		}
		if (spare >= 1 && cur->S < sr->cap - 1) {   /* a stage of its own */
			struct lab *n = push(mv, cur);
			if (!n)
				return;
			n->of[v] = n->S;
			n->deg[n->S++] = 1;
		}
	}
}

static void moves_degrees(const struct lab *cur, int spare, struct moves *mv)
{
	for (int s = 0; s < cur->S; s++) {
		struct lab *n;
		if (spare >= cur->deg[s] && (n = push(mv, cur)))
			n->deg[s] *= 2;
		if (cur->deg[s] > 1 && (n = push(mv, cur)))
			n->deg[s] /= 2;
	}
}

static void moves_merge(struct search *sr, const struct lab *cur, struct moves *mv)
{
	const struct graph *g = sr->g;
	int S = cur->S;
	char *pair = sr->adj;   /* reused: screening rebuilds it */
	memset(pair, 0, (size_t)S * S);
	for (int e = 0; e < g->nedges; e++) {
		int a = cur->of[g->edges[e][0]], c = cur->of[g->edges[e][1]];
		if (a != c)
			pair[(a < c ? a : c) * S + (a < c ? c : a)] = 1;
	}
	for (int a = 0; a < S; a++)
		for (int c = a + 1; c < S; c++) {
			if (!pair[a * S + c] && S > SMALL_STAGES)
				continue;
			struct lab *n = push(mv, cur);
			if (!n)
				return;
			for (int v = 0; v < g->nops; v++)
				if (n->of[v] == c)
					n->of[v] = a;
			n->deg[a] = pow2_floor(cur->deg[a] + cur->deg[c]);
		}
}

/* Split off the ops with side[v] set from stage s (both sides non-empty). */
static void split(struct search *sr, const struct lab *cur, int s, const char *side, int spare,
		  struct moves *mv)
{
	int d = cur->deg[s];
	for (int how = 0; how < 2; how++) {
		if ((how == 0 && spare < 1) || (how == 1 && d < 2))
			continue;
		if (cur->S >= sr->cap - 1)
			return;
		struct lab *n = push(mv, cur);
		if (!n)
			return;
		for (int v = 0; v < sr->g->nops; v++)
			if (cur->of[v] == s && side[v])
				n->of[v] = n->S;
		n->deg[n->S] = how == 0 ? 1 : d / 2;
		if (how == 1)
			n->deg[s] = d / 2;
		n->S++;
	}
}

/* Union-find root. */
static int root(int *up, int v)
{
	while (up[v] != v)
		v = up[v] = up[up[v]];
	return v;
}

static void moves_split(struct search *sr, const struct lab *cur, int spare, struct moves *mv)
{
	const struct graph *g = sr->g;
	size_t nops = g->nops > 0 ? (size_t)g->nops : 1;
	char *side = malloc(nops);
	int *uf = malloc(nops * sizeof *uf);
	if (!side || !uf) {
		free(side);
		free(uf);
		return;
	}
	for (int s = 0; s < cur->S; s++) {
		/* prefixes in topological order: the suffix moves */
		int n = 0, seen = 0;
		for (int i = 0; i < g->nops; i++)
			n += cur->of[g->topo[i]] == s;
		memset(side, 0, nops);
		for (int i = g->nops - 1; i >= 0 && n > 1; i--) {
			int v = g->topo[i];
			if (cur->of[v] != s)
				continue;
			side[v] = 1;
			if (++seen < n)
				split(sr, cur, s, side, spare, mv);
		}
		/* weakly connected parts inside the stage */
		for (int v = 0; v < g->nops; v++)
			uf[v] = v;
		for (int e = 0; e < g->nedges; e++) {
			int a = g->edges[e][0], c = g->edges[e][1];
			if (cur->of[a] == s && cur->of[c] == s)
				uf[root(uf, a)] = root(uf, c);
		}
		int parts = 0;
		for (int v = 0; v < g->nops; v++)
			parts += cur->of[v] == s && root(uf, v) == v;
		for (int r = 0; parts > 1 && r < g->nops; r++) {
			if (cur->of[r] != s || root(uf, r) != r)
				continue;
			for (int v = 0; v < g->nops; v++)
				side[v] = cur->of[v] == s && root(uf, v) == r;
			split(sr, cur, s, side, spare, mv);
		}
	}
	free(side);
	free(uf);
}

static int by_rank(const void *x, const void *y)
{
	const struct lab *a = x, *b = y;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->spread > b->spread) - (a->spread < b->spread);
}

static bool out_of_time(struct search *sr)
{
	if (stop_requested() || (sr->deadline > 0 && clock_seconds() > sr->deadline))
		sr->stopped = true;
	return sr->stopped;
}

/* The neighbours of cur that pass screening (and, when bound, whose lower
 * bound is not above cur's time), first in mv->l; returns their count. */
static int neighbours(struct search *sr, const struct lab *cur, bool bound, struct moves *mv,
		      int *map)
{
	int spare = sr->D - lab_devices(cur), kept = 0;
	mv->n = 0;
	if (cur->chain)   /* the same stages, without the chain's extra edges */
		push(mv, cur);
	moves_ops(sr, cur, spare, mv);
	moves_degrees(cur, spare, mv);
	moves_merge(sr, cur, mv);
	moves_split(sr, cur, spare, mv);
	for (int i = 0; i < mv->n; i++) {
		struct lab *n = &mv->l[i];
		lab_compact(n, sr->g->nops, map);
		if (!screen(sr, n) || (bound && n->lb > cur->value))
			continue;
		if (kept != i) {   /* swap, keeping both buffers owned */
			struct lab t = mv->l[kept];
			mv->l[kept] = *n;
			*n = t;
		}
		kept++;
	}
	return kept;
}

/* Descend from cur (timed) while a neighbour is better. */
static void descend(struct search *sr, struct lab *cur, struct moves *mv)
{
	int nops = sr->g->nops, *map = malloc((nops + 2) * sizeof *map);
	if (!map)
		return;
	while (!out_of_time(sr)) {
		int kept = neighbours(sr, cur, true, mv, map);
		if (kept > 1)   /* qsort(NULL, 0, ...) is undefined */
			qsort(mv->l, kept, sizeof *mv->l, by_rank);
		bool moved = false;
		int ops = 3 * cur->S * sr->m, sims = SIM_OPS_PER_STEP / (ops ? ops : 1);
		sims = sims > SIMS_PER_STEP ? sims : SIMS_PER_STEP;
		for (int i = 0; i < kept && i < sims && !out_of_time(sr); i++) {
			struct lab *n = &mv->l[i];
			if (simulate(sr, n) && better(n, cur)) {
				lab_copy(cur, n, nops);
				sr->moves++;
				moved = true;
				break;
			}
		}
		if (!moved)
			break;
	}
	free(map);
}

static uint64_t next_random(struct search *sr)
{
	uint64_t x = sr->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return sr->rng = x;
}

/* Iterated local search from best (timed) at the current size: KICK_MOVES
 * random feasible moves, a descent, kept when better; until KICK_ROUNDS
 * rounds in a row gain nothing or the simulation budget is spent. */
static void kick_and_descend(struct search *sr, struct lab *best, struct moves *mv,
			     struct lab *cur)
{
	int nops = sr->g->nops, *map = malloc((nops + 2) * sizeof *map);
	for (int idle = 0; map && idle < KICK_ROUNDS && sr->sim_ops < KICK_OPS &&
			   !out_of_time(sr); idle++) {
		lab_copy(cur, best, nops);
		bool moved = true;
		for (int k = 0; k < KICK_MOVES && moved; k++) {
			int n = neighbours(sr, cur, false, mv, map);
			moved = n > 0;
			if (moved)
				lab_copy(cur, &mv->l[next_random(sr) % n], nops);
		}
		if (!moved || !simulate(sr, cur))
			continue;
		descend(sr, cur, mv);
		if (better(cur, best)) {
			lab_copy(best, cur, nops);
			idle = -1;
		}
	}
	free(map);
}

/* ---- the driver -------------------------------------------------------------------- */

struct size_best {
	int b;
	struct lab best;    /* the best labelling found at b */
	struct lab alt;     /* the other seeds' best at b (descended too) */
	struct lab exact;   /* the exact engine's best at b, descended last:
	                       kept apart so that it displaces no DP seed */
};

static bool search_init(struct search *sr, const struct graph *g, int D, double deadline)
{
	sr->g = g;
	sr->D = D;
	sr->deadline = deadline;
	int cap = sr->cap = g->nops + 1;
	sr->indeg = malloc(cap * sizeof(int));
	sr->queue = malloc(cap * sizeof(int));
	sr->depth = malloc(cap * sizeof(int));
	sr->topo = malloc(cap * sizeof(int));
	sr->mark = malloc((cap + 1) * sizeof(int));
	sr->adj = malloc((size_t)cap * cap);
	sr->c = malloc(cap * sizeof(double));
	sr->path = malloc(cap * sizeof(double));
	sr->bytes = malloc((size_t)cap * cap * sizeof(double));
	sr->wsum = malloc(cap * sizeof(double));
	sr->asum = malloc(cap * sizeof(double));
	sr->F = malloc(cap * sizeof(double));
	sr->B = malloc(cap * sizeof(double));
	sr->W = malloc(cap * sizeof(double));
	sr->memo.key = malloc((2 * (size_t)g->nops + 3) * sizeof(int));   /* NULL: no memo */
	return sr->indeg && sr->queue && sr->depth && sr->topo && sr->mark && sr->adj && sr->c &&
	       sr->path && sr->bytes && sr->wsum && sr->asum && sr->F && sr->B && sr->W;
}

static void search_release(struct search *sr)
{
	free(sr->indeg);
	free(sr->queue);
	free(sr->depth);
	free(sr->topo);
	free(sr->mark);
	free(sr->adj);
	free(sr->c);
	free(sr->path);
	free(sr->bytes);
	free(sr->wsum);
	free(sr->asum);
	free(sr->F);
	free(sr->B);
	free(sr->W);
	memo_release(&sr->memo);
}

static void set_size(struct search *sr, int b)
{
	sr->b = b;
	sr->m = sr->g->batch / b;
}

/* Keep tmp (timed) as best, demoting best to alt, or as alt. */
static void keep(struct search *sr, struct size_best *at, const struct lab *tmp)
{
	int nops = sr->g->nops;
	if (!isfinite(tmp->value))
		return;
	if (!isfinite(at->best.value) || better(tmp, &at->best)) {
		lab_copy(&at->alt, &at->best, nops);
		lab_copy(&at->best, tmp, nops);
	} else if (!isfinite(at->alt.value) || better(tmp, &at->alt)) {
		lab_copy(&at->alt, tmp, nops);
	}
}

/* A seed that needs no DP: the topological order cut into min(D, ops)
 * runs of about equal compute (contiguous in a topological order, so
 * convex with an acyclic stage graph), one device each. */
static void seed_topo(struct search *sr, struct size_best *at, struct lab *tmp)
{
	const struct graph *g = sr->g;
	int S = sr->D < g->nops ? sr->D : g->nops, i = graph_size_index(g, sr->b);
	double total = 0, run = 0;
	for (int v = 0; v < g->nops; v++)
		total += graph_op_time(g, v, i);
	tmp->S = S;
	tmp->chain = false;
	for (int s = 0; s < S; s++)
		tmp->deg[s] = 1;
	for (int k = 0, s = 0; k < g->nops; k++) {
		int v = g->topo[k];
		/* the next stage when this stage has its share, or when the ops
		 * left are only as many as the stages left */
		if (s < S - 1 && (run >= total * (s + 1) / S || g->nops - k <= S - 1 - s))
			s++;
		tmp->of[v] = s;
		run += graph_op_time(g, v, i);
	}
	if (simulate(sr, tmp))
		keep(sr, at, tmp);
}

/* A seed from the DP (graph or sequential) at size b, timed and kept. */
static void seed(struct search *sr, const struct partition_options *o, bool sequential,
		 struct size_best *at, struct lab *tmp)
{
	struct partition_options po = *o;
	struct partition p;
	struct error err;
	int b = sr->b;
	po.sequential = sequential;
	po.nsizes = 1;
	po.sizes = &b;
	po.no_simulate = true;
	if (partition_dp(sr->g, &po, &p, &err))
		return;
	lab_from_partition(tmp, &p);
	partition_release(&p);
	if (simulate(sr, tmp))
		keep(sr, at, tmp);
}

/* Seeds from the exact engine on small graphs (at most EXACT_SEED_OPS
 * operators, where it takes milliseconds): the plans of minimum
 * bottleneck at b (ideals.c), each timed and kept; the DP gets at most
 * EXACT_SEED_SECONDS, or a tenth of the time left. The minimum bottleneck
 * is not the shortest iteration, but it is a start the SP and sequential
 * DPs cannot give when the best stages cut across branches. */
#define EXACT_SEED_OPS 24
#define EXACT_SEED_SECONDS 0.25
static void seed_exact(struct search *sr, struct lab *best, struct lab *tmp)
{
	struct pmilp pm;
	struct error err;
	if (sr->g->nops > EXACT_SEED_OPS || pmilp_terms(sr->g, sr->D, sr->b, false, &pm, &err))
		return;
	double now = clock_seconds(), give = EXACT_SEED_SECONDS;
	if (sr->deadline > 0 && 0.1 * (sr->deadline - now) < give)
		give = 0.1 * (sr->deadline - now);
	struct ideals_result ir;
	ideals_solve(sr->g, &pm, sr->D, INFINITY, now + give, false, &ir);
	pmilp_release(&pm);
	for (int i = 0; ir.outcome == IDEALS_OPTIMAL && i < ir.nplans; i++) {
		tmp->S = ir.plan[i].nstages;
		tmp->chain = false;
		memcpy(tmp->of, ir.plan[i].stage_of, sr->g->nops * sizeof *tmp->of);
		memcpy(tmp->deg, ir.plan[i].degree_of, tmp->S * sizeof *tmp->deg);
		tmp->value = INFINITY;
		if (simulate(sr, tmp) && (!isfinite(best->value) || better(tmp, best)))
			lab_copy(best, tmp, sr->g->nops);
	}
}

/* The labelling l moved to size b: degrees halved until b / k is listed. */
static bool adapt(struct search *sr, struct lab *l)
{
	for (int s = 0; s < l->S; s++) {
		while (l->deg[s] > 1 &&
		       (sr->b % l->deg[s] || graph_size_index(sr->g, sr->b / l->deg[s]) < 0))
			l->deg[s] /= 2;
		if (sr->b % l->deg[s] || graph_size_index(sr->g, sr->b / l->deg[s]) < 0)
			return false;
	}
	return true;
}

static int by_value(const void *x, const void *y)
{
	const struct size_best *a = x, *b = y;
	if (a->best.value != b->best.value)
		return a->best.value < b->best.value ? -1 : 1;
	return a->b - b->b;
}

enum status partition_search(const struct graph *g, const struct partition_options *o,
			     double time_limit, struct partition *out, struct search_info *info,
			     struct error *err)
{
	int n;
	return partition_search_top(g, o, time_limit, 1, out, &n, info, err);
}

enum status partition_search_top(const struct graph *g, const struct partition_options *o,
				 double time_limit, int max, struct partition *out, int *nout,
				 struct search_info *info, struct error *err)
{
	*nout = 0;
	for (int i = 0; i < max; i++)
		memset(&out[i], 0, sizeof out[i]);
	memset(info, 0, sizeof *info);
	if (o->devices < 1 || o->devices > g->machine.devices)
		return err_set(err, "graph '%s': --devices %d: the machine has %d", g->name,
			       o->devices, g->machine.devices);
	double t0 = clock_seconds();
	struct search sr = {0};
	struct moves mv = {.nops = g->nops};
	struct lab tmp;
	int nsizes = o->nsizes ? o->nsizes : g->nsizes;
	const int *sizes = o->nsizes ? o->sizes : g->microbatch_sizes;
	struct size_best *at = calloc(nsizes, sizeof *at);
	bool ok = at && search_init(&sr, g, o->devices, time_limit > 0 ? t0 + time_limit : 0) &&
		  lab_init(&tmp, g->nops);
	int n = 0;
	sr.rng = 0x9e3779b97f4a7c15ULL;
	/* seeds at every size: the DP's and the sequential DP's plans (and,
	 * for the graph pipeline, the topological order in D runs and, on
	 * small graphs, the exact engine's plans) */
	for (int i = 0; ok && i < nsizes && !out_of_time(&sr); i++) {
		if (sizes[i] < 1 || g->batch % sizes[i] || graph_size_index(g, sizes[i]) < 0)
			continue;
		at[n].b = sizes[i];
		ok = lab_init(&at[n].best, g->nops) && lab_init(&at[n].alt, g->nops) &&
		     lab_init(&at[n].exact, g->nops);
		set_size(&sr, sizes[i]);
		if (ok && !o->sequential) {
			seed(&sr, o, false, &at[n], &tmp);
			seed_topo(&sr, &at[n], &tmp);
			seed_exact(&sr, &at[n].exact, &tmp);
		}
		if (ok)
			seed(&sr, o, true, &at[n], &tmp);
		if (ok && !isfinite(at[n].best.value) && isfinite(at[n].exact.value)) {
			lab_copy(&at[n].best, &at[n].exact, g->nops);
			at[n].exact.value = INFINITY;
		}
		if (ok && isfinite(at[n].best.value))
			n++;
		else if (ok) {
			lab_release(&at[n].best);
			lab_release(&at[n].alt);
			lab_release(&at[n].exact);
		}
	}
	info->seed_sims = sr.sims;
	if (ok && n)
		qsort(at, n, sizeof *at, by_value);
	/* descend from the best sizes' seeds (both DP seeds kept per size),
	 * at least DESCENTS of them, more while the budget lasts */
	for (int i = 0, k = 0; ok && !o->sequential && i < 2 * n && !out_of_time(&sr); i++) {
		struct size_best *a = &at[i % n];
		struct lab *l = i < n ? &a->best : &a->alt;
		if (!isfinite(l->value) || (k >= DESCENTS && sr.sim_ops > DESCENT_OPS))
			continue;
		set_size(&sr, a->b);
		descend(&sr, l, &mv);
		k++;
		if (l != &a->best && better(l, &a->best)) {
			lab_copy(&tmp, &a->best, g->nops);
			lab_copy(&a->best, l, g->nops);
			lab_copy(l, &tmp, g->nops);
		}
	}
	if (ok && n)
		qsort(at, n, sizeof *at, by_value);
	/* the best labelling at every other size, descended where better */
	for (int i = 1; ok && !o->sequential && i < n && !out_of_time(&sr); i++) {
		set_size(&sr, at[i].b);
		lab_copy(&tmp, &at[0].best, g->nops);
		tmp.chain = false;
		if (adapt(&sr, &tmp) && simulate(&sr, &tmp) && better(&tmp, &at[0].best)) {
			descend(&sr, &tmp, &mv);
			lab_copy(&at[i].best, &tmp, g->nops);
		}
	}
	if (ok && n)
		qsort(at, n, sizeof *at, by_value);
	/* perturb and descend at the best size */
	if (ok && n && !o->sequential) {
		set_size(&sr, at[0].b);
		kick_and_descend(&sr, &at[0].best, &mv, &tmp);
	}
	/* last, the exact engine's seeds, descended at every size and taken
	 * where better: after the rest, so that they take no budget from it
	 * and the result is never worse than without them */
	for (int i = 0; ok && !o->sequential && i < n && !out_of_time(&sr); i++) {
		if (!isfinite(at[i].exact.value))
			continue;
		set_size(&sr, at[i].b);
		descend(&sr, &at[i].exact, &mv);
		if (better(&at[i].exact, &at[i].best))
			lab_copy(&at[i].best, &at[i].exact, g->nops);
	}
	if (ok && n)
		qsort(at, n, sizeof *at, by_value);
	enum status st = STATUS_OK;
	if (!ok)
		st = err_set(err, "graph '%s': out of memory for the partition search", g->name);
	else if (!n)
		st = err_set(err, "graph '%s': no partition onto %d devices fits in %.4g bytes per device at any micro-batch size",
			     g->name, o->devices, g->machine.memory_bytes);
	for (int i = 0; !st && i < n && i < max; i++) {
		set_size(&sr, at[i].b);
		if (!to_partition(&sr, &at[i].best, &out[i]) || partition_simulate(g, &out[i], err))
			st = err_set(err, "graph '%s': the search's plan does not evaluate: a defect",
				     g->name);
		else
			*nout = i + 1;
	}
	if (st) {
		for (int i = 0; i < max; i++)
			partition_release(&out[i]);
		*nout = 0;
	}
	info->sims = sr.sims;
	info->cached = sr.cached;
	info->moves = sr.moves;
	info->stopped_by = stop_requested() ? "interrupt" : sr.stopped ? "time_limit" : NULL;
	for (int i = 0; at && i < nsizes; i++) {
		lab_release(&at[i].best);
		lab_release(&at[i].alt);
		lab_release(&at[i].exact);
	}
	free(at);
	for (int i = 0; i < mv.cap; i++)
		lab_release(&mv.l[i]);
	free(mv.l);
	lab_release(&tmp);
	search_release(&sr);
	return st;
}
