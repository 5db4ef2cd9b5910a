/* The op-level precedence graph (see opgraph.h). */
#include "formulate/opgraph.h"

#include "sched/bound.h"
#include "sched/jackson.h"

#include <stdlib.h>
#include <string.h>

struct arc_list {
	int *from, *to;
	int64_t *lag;
	int n, cap;
};

static bool arc_add(struct arc_list *a, int from, int to, int64_t lag)
{
	if (a->n == a->cap) {
		int cap = a->cap ? 2 * a->cap : 1024;
		int *f = realloc(a->from, cap * sizeof *f);
		if (f)
			a->from = f;
		int *t = realloc(a->to, cap * sizeof *t);
		if (t)
			a->to = t;
		int64_t *l = realloc(a->lag, cap * sizeof *l);
		if (l)
			a->lag = l;
		if (!f || !t || !l)
			return false;
		a->cap = cap;
	}
	a->from[a->n] = from;
	a->to[a->n] = to;
	a->lag[a->n++] = lag;
	return true;
}

/* Whether every stage on device d holds memory >= 0 at every point of any
 * order: a stage's memory is (nF - nB) F + (nB - nW) (F + B) + nW (F + B
 * + W) with nW <= nB <= nF, so its prefix sums F, F + B, F + B + W must
 * be >= 0 (the memory windows and the memory releases, windows_memory,
 * count one stage, or a stage and its ancestors, against the whole
 * device's limit on it). */
static bool device_memory_nonneg(const struct instance *in, int d)
{
	for (int z = 0; z < in->stages; z++) {
		int64_t a = in->mem[OP_F][z], b = in->mem[OP_B][z];
		int64_t w = in->split_backward ? in->mem[OP_W][z] : 0;
		if (in->stage_device[z] == d && (a < 0 || a + b < 0 || a + b + w < 0))
			return false;
	}
	return true;
}

/*
 * Memory windows. On the device of stage l, consider the moment F(l,j+K)
 * starts while B(l,j) has not started. Stage l then holds j+K+1 forwards,
 * at most j backwards and at most as many W's, so its share of memory is
 *     (j+K+1) a + nB b + nW w  >=  (j+K+1) a + j (b + w)  =  (K+1) a
 * when a = F delta > 0 and b, w <= 0 (so more B's and W's only lower it;
 * the deltas sum to 0, instance.c). Every other stage on the device holds
 * memory >= 0 (device_memory_nonneg, above). With K = floor(limit / a),
 * (K+1) a exceeds the limit: B(l,j) must start before F(l,j+K), an arc. With
 * F&B overlap the two cannot run as one pair either: a pair charges its F
 * first, at the same count. So F(l,j+K) starts after B(l,j), or the pair
 * B(l,j) runs in, has ended.
 */
static bool window_arcs(const struct instance *in, struct arc_list *a, int *count)
{
	if (!in->has_limit || !in->has_memory || in->has_recompute || in->has_offload)
		return true;   /* then F(l, 0..j+K) need not all have started, and
		                  an offloaded F holds less */
	int L = in->stages, M = in->microbatches;
	for (int l = 0; l < L; l++) {
		int d = in->stage_device[l];
		int64_t fa = in->mem[OP_F][l], b = in->mem[OP_B][l];
		int64_t w = in->split_backward ? in->mem[OP_W][l] : 0;
		if (!device_memory_nonneg(in, d) || fa <= 0 || b > 0 || w > 0)
			continue;
		int64_t K = in->limit[d] / fa;
		for (int j = 0; j + K < M; j++) {
			if (!arc_add(a, inst_op_id(in, OP_B, l, j),
				     inst_op_id(in, OP_F, l, (int)(j + K)), 0))
				return false;
			(*count)++;
		}
	}
	return true;
}

/*
 * Whether the FIFO arcs of op kind k on stage l are kept (opgraph.h has
 * the argument). With recompute FIFO loses optima (solvers/bnb.h has the
 * instance): relabelling the two micro-batches downstream of stage l
 * swaps the labels of B(l', .) but not of F(l', .) on the stages l' above
 * it, whose drop marks may differ; offload marks are per (stage,
 * micro-batch) too, and their copies keep their labels. Only a relabelling of whole
 * micro-batches stays valid there (every op and mark moves with its
 * micro-batch), and it can sort one sequence: the forwards of the first
 * stage in topological order, a source.
 */
static bool fifo_holds(const struct instance *in, int k, int l)
{
	return !(in->has_recompute || in->has_offload) || (k == OP_F && l == in->topo[0]);
}

static bool build_arcs(const struct instance *in, struct arc_list *a, int *windows)
{
	int L = in->stages, M = in->microbatches;
	bool ok = true;
	for (int l = 0; l < L && ok; l++)
		for (int j = 0; j < M && ok; j++) {
			int f = inst_op_id(in, OP_F, l, j), b = inst_op_id(in, OP_B, l, j);
			for (int e = in->pred_start[l]; e < in->pred_start[l + 1] && ok; e++)
				ok = arc_add(a, inst_op_id(in, OP_F, in->pred[e].stage, j), f,
					     in->pred[e].lag);
			for (int e = in->succ_start[l]; e < in->succ_start[l + 1] && ok; e++)
				ok = arc_add(a, inst_op_id(in, OP_B, in->succ[e].stage, j), b,
					     in->succ[e].lag);
			ok = ok && arc_add(a, f, b, 0);
			if (in->split_backward)
				ok = ok && arc_add(a, b, inst_op_id(in, OP_W, l, j), 0);
			for (int k = 0; k < in->kinds && j > 0 && ok; k++)
				if (fifo_holds(in, k, l))
					ok = arc_add(a, inst_op_id(in, k, l, j - 1),
						     inst_op_id(in, k, l, j), 0);
		}
	return ok && window_arcs(in, a, windows);
}

/* CSR in both directions from the arc list. */
static bool build_csr(struct opgraph *g, const struct arc_list *a)
{
	int n = g->n;
	g->pred_start = calloc(n + 1, sizeof(int));
	g->succ_start = calloc(n + 1, sizeof(int));
	g->pred = malloc((a->n + 1) * sizeof *g->pred);
	g->succ = malloc((a->n + 1) * sizeof *g->succ);
	int *fp = calloc(n, sizeof(int)), *fs = calloc(n, sizeof(int));
	bool ok = g->pred_start && g->succ_start && g->pred && g->succ && fp && fs;
	if (ok) {
		for (int e = 0; e < a->n; e++) {
			g->pred_start[a->to[e] + 1]++;
			g->succ_start[a->from[e] + 1]++;
		}
		for (int i = 0; i < n; i++) {
			g->pred_start[i + 1] += g->pred_start[i];
			g->succ_start[i + 1] += g->succ_start[i];
		}
		for (int e = 0; e < a->n; e++) {
			int t = a->to[e], f = a->from[e];
			g->pred[g->pred_start[t] + fp[t]++] = (struct op_arc){f, a->lag[e]};
			g->succ[g->succ_start[f] + fs[f]++] = (struct op_arc){t, a->lag[e]};
		}
		g->narcs = a->n;
	}
	free(fp);
	free(fs);
	return ok;
}

/* Each device's ops (CSR) and the edge finding's scratch. */
static bool device_lists(struct opgraph *g)
{
	int D = g->in->devices;
	g->devices = D;
	g->dev_start = calloc(D + 1, sizeof *g->dev_start);
	g->dev_ops = malloc((g->n + 1) * sizeof *g->dev_ops);
	if (!g->dev_start || !g->dev_ops)
		return false;
	for (int o = 0; o < g->n; o++)
		g->dev_start[g->device[o] + 1]++;
	for (int d = 0; d < D; d++) {
		int m = g->dev_start[d + 1];
		g->dev_most = m > g->dev_most ? m : g->dev_most;
		g->dev_start[d + 1] += g->dev_start[d];
	}
	int *fill = calloc(D + 1, sizeof *fill);
	g->ef_ord = malloc((4 * (size_t)g->n + g->dev_most + 1) * sizeof *g->ef_ord);
	g->ef_buf = malloc((8 * (size_t)g->dev_most + 1) * sizeof *g->ef_buf);
	g->ef_dirty = malloc((D + 1) * sizeof *g->ef_dirty);
	if (!fill || !g->ef_ord || !g->ef_buf || !g->ef_dirty) {
		free(fill);
		return false;
	}
	for (int o = 0; o < g->n; o++)
		g->dev_ops[g->dev_start[g->device[o]] + fill[g->device[o]]++] = o;
	free(fill);
	/* the four sorted orders of each device (by start and by end, and the
	 * mirror's), kept between calls: the identity to begin with */
	for (int d = 0; d < D; d++) {
		int m = g->dev_start[d + 1] - g->dev_start[d];
		for (int t = 0; t < 4 * m; t++)
			g->ef_ord[4 * g->dev_start[d] + t] = t % m;
	}
	return true;
}

/* The memory releases' credit lists (windows_memory): for each stage y
 * whose forward takes memory, y and its ancestors on y's device, when
 * every stage there holds memory >= 0 (device_memory_nonneg); an empty
 * list where the rule is off. */
static bool memory_credits(struct opgraph *g)
{
	const struct instance *in = g->in;
	int L = in->stages, M = in->microbatches;
	g->mem_credit_start = NULL;
	if (!in->has_limit || !in->has_memory || in->has_recompute || in->has_offload)
		return true;
	g->mem_credit_start = calloc(L + 1, sizeof *g->mem_credit_start);
	g->mem_credit = malloc(((size_t)L * L + 1) * sizeof *g->mem_credit);
	g->mem_t = malloc((2 * (size_t)L * M + 1) * sizeof *g->mem_t);
	g->mem_f = malloc((2 * (size_t)L * M + 1) * sizeof *g->mem_f);
	if (!g->mem_credit_start || !g->mem_credit || !g->mem_t || !g->mem_f)
		return false;
	int n = 0;
	for (int y = 0; y < L; y++) {
		int d = in->stage_device[y];
		bool holds = in->mem[OP_F][y] > 0 && device_memory_nonneg(in, d);
		g->mem_credit_start[y] = n;
		for (int z = 0; z < L && holds; z++)
			if (z == y || (in->stage_device[z] == d &&
				       opgraph_precedes(g, inst_op_id(in, OP_F, z, 0),
							inst_op_id(in, OP_F, y, 0))))
				g->mem_credit[n++] = z;
	}
	g->mem_credit_start[L] = n;
	return true;
}

/* Kahn's order; false on a cycle (impossible for a valid instance: every
 * arc goes forward in (micro-batch, dependency) order). */
static bool order_ops(struct opgraph *g)
{
	int n = g->n, head = 0, tail = 0;
	int *indeg = malloc(n * sizeof(int));
	g->topo = malloc(n * sizeof(int));
	if (!indeg || !g->topo) {
		free(indeg);
		return false;
	}
	for (int i = 0; i < n; i++) {
		indeg[i] = g->pred_start[i + 1] - g->pred_start[i];
		if (!indeg[i])
			g->topo[tail++] = i;
	}
	while (head < tail) {
		int u = g->topo[head++];
		for (int e = g->succ_start[u]; e < g->succ_start[u + 1]; e++)
			if (--indeg[g->succ[e].op] == 0)
				g->topo[tail++] = g->succ[e].op;
	}
	free(indeg);
	return tail == n;
}

/* Heads from the releases (bound_releases; 0 without), then the arcs;
 * tails from the arcs. */
static void heads_tails(struct opgraph *g, const int64_t *rel)
{
	for (int t = 0; t < g->n; t++) {
		int k = g->topo[t];
		int64_t h = rel ? rel[k] : 0;
		for (int e = g->pred_start[k]; e < g->pred_start[k + 1]; e++) {
			int64_t v = g->head[g->pred[e].op] + g->dur[g->pred[e].op] + g->pred[e].lag;
			h = v > h ? v : h;
		}
		g->head[k] = h;
	}
	for (int t = g->n - 1; t >= 0; t--) {
		int i = g->topo[t];
		int64_t q = 0;
		for (int e = g->succ_start[i]; e < g->succ_start[i + 1]; e++) {
			int k = g->succ[e].op;
			int64_t v = g->succ[e].lag + g->dur[k] + g->tail[k];
			q = v > q ? v : q;
		}
		g->tail[i] = q;
	}
}

/* reach[i] = union over successors k of {k} and reach[k], in reverse
 * topological order. */
static void closure(struct opgraph *g)
{
	for (int t = g->n - 1; t >= 0; t--) {
		int i = g->topo[t];
		uint64_t *ri = &g->reach[(long)i * g->words];
		for (int e = g->succ_start[i]; e < g->succ_start[i + 1]; e++) {
			int k = g->succ[e].op;
			const uint64_t *rk = &g->reach[(long)k * g->words];
			ri[k >> 6] |= 1ULL << (k & 63);
			for (int w = 0; w < g->words; w++)
				ri[w] |= rk[w];
		}
	}
}

/* Ops that may come first or last on their device. */
static void device_ends(struct opgraph *g)
{
	for (int o = 0; o < g->n; o++) {
		g->dev_first[o] = g->dev_last[o] = true;
		for (int i = 0; i < g->n; i++) {
			if (i == o || g->device[i] != g->device[o])
				continue;
			if (opgraph_precedes(g, i, o))
				g->dev_first[o] = false;
			if (opgraph_precedes(g, o, i))
				g->dev_last[o] = false;
		}
	}
}

struct opgraph *opgraph_new(const struct instance *in, struct error *err)
{
	struct opgraph *g = calloc(1, sizeof *g);
	struct arc_list a = {0};
	if (!g) {
		err_set(err, "opgraph: out of memory");
		return NULL;
	}
	g->in = in;
	g->n = inst_nops(in);
	g->words = (g->n + 63) / 64;
	if ((long)g->n * g->words > (1L << 27)) {
		free(g);
		err_set(err, "instance '%s': %d ops is too many for an exact formulation",
			in->name, inst_nops(in));
		return NULL;
	}
	g->dur = malloc(g->n * sizeof *g->dur);
	g->device = malloc(g->n * sizeof *g->device);
	g->head = malloc(g->n * sizeof *g->head);
	g->tail = malloc(g->n * sizeof *g->tail);
	g->reach = calloc((size_t)g->n * g->words, sizeof *g->reach);
	g->dev_first = malloc(g->n * sizeof(bool));
	g->dev_last = malloc(g->n * sizeof(bool));
	bool ok = g->dur && g->device && g->head && g->tail && g->reach &&
		  g->dev_first && g->dev_last &&
		  build_arcs(in, &a, &g->window_arcs) && build_csr(g, &a);
	free(a.from);
	free(a.to);
	free(a.lag);
	if (!ok) {
		opgraph_free(g);
		err_set(err, "opgraph: out of memory");
		return NULL;
	}
	for (int id = 0; id < g->n; id++) {
		int M = in->microbatches, L = in->stages;
		int k = id / (L * M), l = id / M % L;
		g->dur[id] = in->cost[k][l];
		g->device[id] = in->stage_device[l];
	}
	if (!device_lists(g)) {
		opgraph_free(g);
		err_set(err, "opgraph: out of memory");
		return NULL;
	}
	if (!order_ops(g)) {
		opgraph_free(g);
		err_set(err, "opgraph: the precedence arcs form a cycle (a bug)");
		return NULL;
	}
	/* the ranks' releases (sched/bound.c) hold for FIFO schedules, which
	 * the FIFO arcs above make every solution; if they cannot be computed
	 * the arcs alone give the heads. Where F&B pairs gain, the ranks'
	 * memory rule counts each side of the pairs apart (a pair runs an F
	 * and a B at once). Not with recompute or offload, whose ops are not
	 * FIFO (the arcs' heads and tails hold: a recomputed op lasts at least
	 * its own cost) */
	int64_t *rel = in->has_recompute || in->has_offload ? NULL : malloc(g->n * sizeof *rel);
	struct error ignored;
	if (rel && bound_releases(in, rel, &ignored)) {
		free(rel);
		rel = NULL;
	}
	heads_tails(g, rel);
	free(rel);
	closure(g);
	device_ends(g);
	if (!memory_credits(g)) {
		opgraph_free(g);
		err_set(err, "opgraph: out of memory");
		return NULL;
	}
	return g;
}

void opgraph_free(struct opgraph *g)
{
	if (!g)
		return;
	free(g->dur);
	free(g->device);
	free(g->pred_start);
	free(g->pred);
	free(g->succ_start);
	free(g->succ);
	free(g->topo);
	free(g->head);
	free(g->tail);
	free(g->reach);
	free(g->dev_first);
	free(g->dev_last);
	free(g->dev_start);
	free(g->dev_ops);
	free(g->ef_ord);
	free(g->ef_buf);
	free(g->ef_dirty);
	free(g->mem_credit_start);
	free(g->mem_credit);
	free(g->mem_t);
	free(g->mem_f);
	free(g);
}

int opgraph_open_pairs(const struct opgraph *g, int (**pairs)[2])
{
	int cap = 1024, n = 0;
	int (*p)[2] = pairs ? malloc(cap * sizeof *p) : NULL;
	if (pairs && !p)
		return -1;
	for (int a = 0; a < g->n; a++)
		for (int b = a + 1; b < g->n; b++) {
			if (g->device[a] != g->device[b] || opgraph_precedes(g, a, b) ||
			    opgraph_precedes(g, b, a))
				continue;
			if (!pairs) {
				n++;
				continue;
			}
			if (n == cap) {
				cap *= 2;
				int (*q)[2] = realloc(p, cap * sizeof *q);
				if (!q) {
					free(p);
					return -1;
				}
				p = q;
			}
			p[n][0] = a;
			p[n][1] = b;
			n++;
		}
	if (pairs)
		*pairs = p;
	return n;
}

#define WINDOW_ROUNDS 64

/* Raise a start or lower an end, marking the op's device for edge
 * finding; whether it moved. */
static bool raise_start(const struct opgraph *g, int64_t *s, int o, int64_t v, bool *dirty)
{
	if (v <= s[o])
		return false;
	s[o] = v;
	dirty[g->device[o]] = true;
	return true;
}

static bool lower_end(const struct opgraph *g, int64_t *e, int o, int64_t v, bool *dirty)
{
	if (v >= e[o])
		return false;
	e[o] = v;
	dirty[g->device[o]] = true;
	return true;
}

/* The arcs' part of opgraph_windows: one pass forward, one backward. */
static bool windows_relax_arcs(const struct opgraph *g, int64_t *s, int64_t *e, bool *dirty)
{
	bool changed = false;
	for (int t = 0; t < g->n; t++) {
		int k = g->topo[t];
		for (int a = g->pred_start[k]; a < g->pred_start[k + 1]; a++) {
			int i = g->pred[a].op;
			changed |= raise_start(g, s, k, s[i] + g->dur[i] + g->pred[a].lag, dirty);
		}
	}
	for (int t = g->n - 1; t >= 0; t--) {
		int i = g->topo[t];
		for (int a = g->succ_start[i]; a < g->succ_start[i + 1]; a++) {
			int k = g->succ[a].op;
			changed |= lower_end(g, e, i, e[k] - g->dur[k] - g->succ[a].lag, dirty);
		}
	}
	return changed;
}

/* The pairs' part: decide what the windows decide, and apply the decided
 * orders to the windows. */
static bool windows_relax_pairs(const struct opgraph *g, int npairs, const int (*pairs)[2],
				signed char *fixed, int64_t *s, int64_t *e, int *nfixed,
				bool *dirty)
{
	bool changed = false;
	for (int p = 0; p < npairs; p++) {
		int a = pairs[p][0], b = pairs[p][1];
		if (fixed[p] < 0) {
			bool a_first = s[b] + g->dur[b] + g->dur[a] > e[a];
			bool b_first = s[a] + g->dur[a] + g->dur[b] > e[b];
			if (a_first == b_first)
				continue;   /* open, or no order fits (an empty window follows) */
			fixed[p] = a_first;
			(*nfixed)++;
		}
		int x = fixed[p] ? a : b, y = fixed[p] ? b : a;   /* x first */
		changed |= raise_start(g, s, y, s[x] + g->dur[x], dirty);
		changed |= lower_end(g, e, x, e[y] - g->dur[y], dirty);
	}
	return changed;
}

/* Edge finding on every marked device, starts then ends
 * (sched/jackson.h edge_find_starts);
 * false on an overload. A device it changes stays marked (another round
 * may find more there), and so do those the arcs reach next round. */
static bool windows_edge_find(const struct opgraph *g, int64_t *s, int64_t *e, bool *dirty,
			      bool *changed)
{
	int most = g->dev_most;
	int *set = g->ef_ord + 4 * g->n;
	int64_t *buf = g->ef_buf, *p = buf + 4 * most, *r = p + most, *dl = r + most,
		*out = dl + most;
	for (int d = 0; d < g->devices; d++) {
		if (!dirty[d])
			continue;
		dirty[d] = false;
		int m = g->dev_start[d + 1] - g->dev_start[d];
		const int *ops = g->dev_ops + g->dev_start[d];
		int *ord = g->ef_ord + 4 * g->dev_start[d];   /* by r, by d; the mirror's */
		for (int t = 0; t < m; t++) {
			p[t] = g->dur[ops[t]];
			r[t] = s[ops[t]];
			dl[t] = e[ops[t]];
		}
		if (edge_find_starts(m, p, r, dl, out, ord, ord + m, set, buf) < 0)
			return false;
		for (int t = 0; t < m; t++) {
			*changed |= raise_start(g, s, ops[t], out[t], dirty);
			r[t] = -e[ops[t]];   /* the mirror */
			dl[t] = -s[ops[t]];
		}
		if (edge_find_starts(m, p, r, dl, out, ord + 2 * m, ord + 3 * m, set, buf) < 0)
			return false;
		for (int t = 0; t < m; t++)
			*changed |= lower_end(g, e, ops[t], -out[t], dirty);
	}
	return true;
}

/*
 * Memory releases. On the device of stage y (every stage there holding
 * memory >= 0 at every point, FIFO), F(y,i) starts only when the device's
 * memory with it is within the limit. By then y holds i forwards and each
 * ancestor z of y on the device i + 1 (F(z,j) precedes F(y,j)), less what
 * their B's and W's of micro-batches j < i gave back (a later one waits
 * for F(y,j), j >= i); the device's other stages hold >= 0. So the frees
 * that ended before F(y,i) starts must sum to at least
 *     need = (i + 1) (a_y + sum_z a_z) - limit,
 * and each of them ended no sooner than its earliest end: the start is at
 * least the earliest t at which the frees whose earliest ends are <= t
 * sum to need. On a device of one stage this is the mix of
 * B's and W's a split backward needs (the memory-window arcs are its
 * extreme choices); on a V or interleaved placement it counts the earlier
 * chunk's activations too. False when all the frees cannot reach need.
 */
static bool windows_memory(const struct opgraph *g, int64_t *s, bool *dirty, bool *changed)
{
	const struct instance *in = g->in;
	if (!g->mem_credit_start)
		return true;
	int L = in->stages, M = in->microbatches;
	int64_t *t = g->mem_t, *f = g->mem_f;   /* the frees by earliest end */
	for (int y = 0; y < L; y++) {
		int c0 = g->mem_credit_start[y], c1 = g->mem_credit_start[y + 1], len = 0;
		if (c0 == c1)
			continue;
		int64_t per = 0, lim = in->limit[in->stage_device[y]];
		for (int c = c0; c < c1; c++)
			per += in->mem[OP_F][g->mem_credit[c]];
		for (int i = 0; i < M; i++) {
			for (int c = c0; c < c1 && i > 0; c++)
				for (int k = OP_B; k < in->kinds && k <= OP_W; k++) {
					int z = g->mem_credit[c], o = inst_op_id(in, k, z, i - 1);
					int64_t fr = -in->mem[k][z], end = s[o] + g->dur[o];
					if (fr <= 0)
						continue;
					int x = len++;
					for (; x > 0 && t[x - 1] > end; x--) {
						t[x] = t[x - 1];
						f[x] = f[x - 1];
					}
					t[x] = end;
					f[x] = fr;
				}
			int64_t need = (i + 1) * per - lim, got = 0, at = 0;
			if (need <= 0)
				continue;
			for (int x = 0; x < len && got < need; x++) {
				got += f[x];
				at = t[x];
			}
			if (got < need)
				return false;
			*changed |= raise_start(g, s, inst_op_id(in, OP_F, y, i), at, dirty);
		}
	}
	return true;
}

bool opgraph_propagate(const struct opgraph *g, int npairs, const int (*pairs)[2],
		       signed char *fixed, int64_t *start_lb, int64_t *end_ub, int *nfixed,
		       int from)
{
	bool *dirty = g->ef_dirty;
	for (int d = 0; d < g->devices; d++)
		dirty[d] = from < 0 || g->device[from] == d;
	bool changed = true;
	for (int r = 0; r < WINDOW_ROUNDS && changed; r++) {
		changed = windows_relax_pairs(g, npairs, pairs, fixed, start_lb, end_ub, nfixed,
					      dirty);
		changed |= windows_relax_arcs(g, start_lb, end_ub, dirty);
		if (!windows_memory(g, start_lb, dirty, &changed) ||
		    !windows_edge_find(g, start_lb, end_ub, dirty, &changed))
			return false;
	}
	for (int o = 0; o < g->n; o++)
		if (start_lb[o] + g->dur[o] > end_ub[o])
			return false;
	return true;
}

bool opgraph_windows(const struct opgraph *g, int64_t horizon, int npairs,
		     const int (*pairs)[2], signed char *fixed, int64_t *start_lb,
		     int64_t *end_ub, int *nfixed)
{
	for (int o = 0; o < g->n; o++) {
		start_lb[o] = g->head[o];
		end_ub[o] = horizon - g->tail[o];
	}
	memset(fixed, -1, npairs);
	*nfixed = 0;
	return opgraph_propagate(g, npairs, pairs, fixed, start_lb, end_ub, nfixed, -1);
}
