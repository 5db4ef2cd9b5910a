/*
 * Series-parallel decomposition and SP-ization (see sp.h).
 *
 * Reachability decides both splits. With desc(v) the descendants of v:
 *  - PARALLEL: the weakly connected components of the part (edges inside
 *    it); more than one component splits it;
 *  - SERIES: along one topological order of the part, the prefix A (first
 *    i operators) and the rest Z split it iff every a in A is an ancestor of
 *    every z in Z, i.e. Z is inside the intersection of desc(a) over A (no
 *    a is its own descendant, so that intersection never meets A). Every
 *    series split of the part shows up as such a prefix, because an
 *    ancestor comes before its descendants in every topological order; so
 *    all cuts are found at once and the pieces between cuts have none left.
 * Transitive edges change no reachability, so no reduction is needed first.
 * Reachability costs n^2 / 8 bytes, hence SP_MAX_OPS.
 */
#include "graph/sp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

#define SP_MAX_OPS 16384

struct reach {
	int n, words;
	uint64_t *desc;     /* [n * words] descendants of each operator */
};

static uint64_t *row(const struct reach *r, int v)
{
	return r->desc + (size_t)v * r->words;
}

static int reach_build(struct reach *r, const struct graph *g)
{
	r->n = g->nops;
	r->words = (g->nops + 63) / 64;
	r->desc = calloc((size_t)r->n * r->words, sizeof *r->desc);
	if (!r->desc)
		return -1;
	for (int i = g->nops - 1; i >= 0; i--) {
		int v = g->topo[i];
		uint64_t *d = row(r, v);
		for (int k = g->succ_start[v]; k < g->succ_start[v + 1]; k++) {
			int s = g->succ[k];
			const uint64_t *ds = row(r, s);
			for (int w = 0; w < r->words; w++)
				d[w] |= ds[w];
			d[s / 64] |= 1ULL << (s % 64);
		}
	}
	return 0;
}

/* Operators of a part: sorted ascending, with a membership mask. */
struct part {
	int n;
	int *ops;
};

static struct sp_node *leaf_or_node(enum sp_kind kind, const struct part *p)
{
	struct sp_node *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->kind = kind;
	t->op = p->n == 1 ? p->ops[0] : -1;
	t->nops = p->n;
	t->ops = malloc(p->n * sizeof *t->ops);
	if (!t->ops) {
		free(t);
		return NULL;
	}
	memcpy(t->ops, p->ops, p->n * sizeof *t->ops);
	return t;
}

/* Weakly connected components of the part: comp[i] for p->ops[i]; returns
 * their number. in[] marks the part's operators by position + 1. */
static int components(const struct graph *g, const struct part *p, const int *in, int *comp)
{
	int nc = 0, *stack = malloc(p->n * sizeof *stack);
	if (!stack)
		return -1;
	for (int i = 0; i < p->n; i++)
		comp[i] = -1;
	for (int i = 0; i < p->n; i++) {
		if (comp[i] >= 0)
			continue;
		int top = 0;
		comp[i] = nc;
		stack[top++] = p->ops[i];
		while (top) {
			int v = stack[--top];
			const int *lists[2] = {g->succ, g->pred};
			const int *starts[2] = {g->succ_start, g->pred_start};
			for (int dir = 0; dir < 2; dir++)
				for (int k = starts[dir][v]; k < starts[dir][v + 1]; k++) {
					int u = lists[dir][k], pos = in[u] - 1;
					if (pos >= 0 && comp[pos] < 0) {
						comp[pos] = nc;
						stack[top++] = u;
					}
				}
		}
		nc++;
	}
	free(stack);
	return nc;
}

static struct sp_node *decompose(const struct graph *g, const struct reach *r, struct part *p,
				 int *in, struct part *bad);

/* Add child part q (taken) to t. */
static int add_child(struct sp_node *t, struct sp_node *c)
{
	struct sp_node **k = realloc(t->children, (t->nchildren + 1) * sizeof *k);
	if (!k)
		return -1;
	t->children = k;
	t->children[t->nchildren++] = c;
	return 0;
}

/* Decompose the sub-part of p whose positions are sel[0..m). */
static struct sp_node *sub(const struct graph *g, const struct reach *r, const struct part *p,
			   const int *sel, int m, int *in, struct part *bad)
{
	struct part q = {m, malloc(m * sizeof(int))};
	if (!q.ops)
		return NULL;
	for (int i = 0; i < m; i++)
		q.ops[i] = p->ops[sel[i]];
	struct sp_node *c = decompose(g, r, &q, in, bad);
	free(q.ops);
	return c;
}

/* The part's operators in topological order (positions into p->ops). */
static void topo_positions(const struct graph *g, const struct part *p, const int *in, int *out)
{
	int k = 0;
	for (int i = 0; i < g->nops; i++) {
		int pos = in[g->topo[i]] - 1;
		if (pos >= 0)
			out[k++] = pos;
	}
}

/* Series cuts: cut[i] = 1 when the first i + 1 operators (in order) come
 * before all the others. Returns the number of cuts. */
static int series_cuts(const struct reach *r, const struct part *p, const int *order, char *cut)
{
	uint64_t *common = malloc(r->words * sizeof *common);
	if (!common)
		return -1;
	memset(common, 0xff, r->words * sizeof *common);
	int ncuts = 0;
	for (int i = 0; i + 1 < p->n; i++) {
		const uint64_t *d = row(r, p->ops[order[i]]);
		for (int w = 0; w < r->words; w++)
			common[w] &= d[w];
		int rest = 0;   /* operators after position i that are common descendants */
		for (int j = i + 1; j < p->n; j++) {
			int v = p->ops[order[j]];
			rest += common[v / 64] >> (v % 64) & 1;
		}
		cut[i] = rest == p->n - 1 - i;
		ncuts += cut[i];
	}
	free(common);
	return ncuts;
}

static struct sp_node *split_parallel(const struct graph *g, const struct reach *r,
				      struct part *p, int *in, int nc, const int *comp,
				      struct part *bad)
{
	struct sp_node *t = leaf_or_node(SP_PARALLEL, p);
	int *sel = malloc(p->n * sizeof *sel);
	for (int c = 0; t && sel && c < nc; c++) {
		int m = 0;
		for (int i = 0; i < p->n; i++)
			if (comp[i] == c)
				sel[m++] = i;
		struct sp_node *ch = sub(g, r, p, sel, m, in, bad);
		if (!ch || add_child(t, ch)) {
			sp_free(ch);
			sp_free(t);
			t = NULL;
		}
	}
	free(sel);
	return t;
}

static struct sp_node *split_series(const struct graph *g, const struct reach *r,
				    struct part *p, int *in, const int *order, const char *cut,
				    struct part *bad)
{
	struct sp_node *t = leaf_or_node(SP_SERIES, p);
	int *sel = malloc(p->n * sizeof *sel), m = 0;
	for (int i = 0; t && sel && i < p->n; i++) {
		sel[m++] = order[i];
		if (i + 1 < p->n && !cut[i])
			continue;
		/* positions must be ascending for the part's sorted list */
		for (int a = 1; a < m; a++)
			for (int b = a; b > 0 && sel[b - 1] > sel[b]; b--) {
				int x = sel[b];
				sel[b] = sel[b - 1];
				sel[b - 1] = x;
			}
		struct sp_node *ch = sub(g, r, p, sel, m, in, bad);
		if (!ch || add_child(t, ch)) {
			sp_free(ch);
			sp_free(t);
			t = NULL;
		}
		m = 0;
	}
	free(sel);
	return t;
}

/* Decompose part p; NULL when it (or a piece of it) is not SP, with the
 * smallest failing piece copied into *bad (if bad->ops is NULL so far). */
static struct sp_node *decompose(const struct graph *g, const struct reach *r, struct part *p,
				 int *in, struct part *bad)
{
	if (p->n == 1)
		return leaf_or_node(SP_LEAF, p);
	for (int i = 0; i < p->n; i++)
		in[p->ops[i]] = i + 1;
	int *comp = malloc(p->n * sizeof *comp), *order = malloc(p->n * sizeof *order);
	char *cut = calloc(p->n, 1);
	struct sp_node *t = NULL;
	int nc = comp ? components(g, p, in, comp) : -1, ncuts = 0;
	if (nc == 1 && order && cut) {
		topo_positions(g, p, in, order);
		ncuts = series_cuts(r, p, order, cut);
	}
	for (int i = 0; i < p->n; i++)   /* the pieces mark their own */
		in[p->ops[i]] = 0;
	if (nc > 1) {
		t = split_parallel(g, r, p, in, nc, comp, bad);
	} else if (ncuts > 0) {
		t = split_series(g, r, p, in, order, cut, bad);
	} else if (nc == 1 && ncuts == 0 && !bad->ops && (bad->ops = malloc(p->n * sizeof(int)))) {
		bad->n = p->n;
		memcpy(bad->ops, p->ops, p->n * sizeof(int));
	}
	free(comp);
	free(order);
	free(cut);
	return t;
}

/* The whole graph's decomposition; NULL with *bad filled when not SP. */
static enum status decompose_all(const struct graph *g, struct sp_node **out, struct part *bad,
				 struct error *err)
{
	struct reach r;
	*out = NULL;
	if (g->nops > SP_MAX_OPS)
		return err_set(err, "graph '%s': %d operators, more than the %d the SP decomposition handles",
			       g->name, g->nops, SP_MAX_OPS);
	struct part all = {g->nops, malloc(g->nops * sizeof(int))};
	int *in = calloc(g->nops, sizeof *in);
	if (!all.ops || !in || reach_build(&r, g)) {
		free(all.ops);
		free(in);
		return err_set(err, "graph '%s': out of memory for the SP decomposition", g->name);
	}
	for (int v = 0; v < g->nops; v++)
		all.ops[v] = v;
	*out = decompose(g, &r, &all, in, bad);
	free(all.ops);
	free(in);
	free(r.desc);
	return STATUS_OK;
}

enum status sp_decompose(const struct graph *g, struct sp_node **out, struct error *err)
{
	struct part bad = {0, NULL};
	enum status st = decompose_all(g, out, &bad, err);
	free(bad.ops);
	return st;
}

double sp_critical_path(const struct graph *g, const double *w)
{
	double *f = calloc(g->nops, sizeof *f), best = 0;
	if (!f)
		return -1;
	for (int i = 0; i < g->nops; i++) {
		int v = g->topo[i];
		double s = 0;
		for (int k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
			s = f[g->pred[k]] > s ? f[g->pred[k]] : s;
		f[v] = s + w[v];
		best = f[v] > best ? f[v] : best;
	}
	free(f);
	return best;
}

/* Levels inside the part: longest path (in edges) from the part's sources. */
static int part_levels(const struct graph *g, const struct part *bad, const char *inpart, int *level)
{
	int top = 0;
	for (int i = 0; i < g->nops; i++) {
		int v = g->topo[i];
		if (!inpart[v])
			continue;
		level[v] = 0;
		for (int k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
			if (inpart[g->pred[k]] && level[g->pred[k]] + 1 > level[v])
				level[v] = level[g->pred[k]] + 1;
		top = level[v] > top ? level[v] : top;
	}
	(void)bad;
	return top;
}

static bool has_edge(const struct graph *g, int u, int v)
{
	for (int k = g->succ_start[u]; k < g->succ_start[u + 1]; k++)
		if (g->succ[k] == v)
			return true;
	return false;
}

/* Append to g the edges making levels < k of the part precede the rest
 * (every operator below k to every one at or above, when not already an
 * edge); returns how many, or -1 when out of memory. */
static int add_cut_edges(struct graph *g, const struct part *bad, const int *level, int k)
{
	int added = 0;
	for (int i = 0; i < bad->n; i++)
		for (int j = 0; j < bad->n; j++) {
			int u = bad->ops[i], v = bad->ops[j];
			if (level[u] >= k || level[v] < k || has_edge(g, u, v))
				continue;
			int (*e)[2] = realloc(g->edges, (g->nedges + 1) * sizeof *e);
			if (!e)
				return -1;
			g->edges = e;
			g->edges[g->nedges][0] = u;
			g->edges[g->nedges][1] = v;
			g->nedges++;
			added++;
		}
	return added;
}

/* Fix one non-SP part: try every level cut, keep the one with the shortest
 * critical path afterwards. */
static enum status fix_part(struct graph *g, const struct part *bad, const double *w,
			    int *added, struct error *err)
{
	char *inpart = calloc(g->nops, 1);
	int *level = calloc(g->nops, sizeof *level);
	if (!inpart || !level) {
		free(inpart);
		free(level);
		return err_set(err, "graph '%s': out of memory", g->name);
	}
	for (int i = 0; i < bad->n; i++)
		inpart[bad->ops[i]] = 1;
	int top = part_levels(g, bad, inpart, level), best_k = -1, m0 = g->nedges;
	double best = 0;
	enum status st = STATUS_OK;
	for (int k = 1; !st && k <= top; k++) {
		if (add_cut_edges(g, bad, level, k) < 0 || graph_derive(g, g->name, err)) {
			st = err_set(err, "graph '%s': out of memory", g->name);
			break;
		}
		double cp = sp_critical_path(g, w);
		if (best_k < 0 || cp < best) {
			best = cp;
			best_k = k;
		}
		g->nedges = m0;   /* undo */
		st = graph_derive(g, g->name, err);
	}
	if (!st) {
		int n = add_cut_edges(g, bad, level, best_k);
		st = n < 0 ? err_set(err, "graph '%s': out of memory", g->name) : graph_derive(g, g->name, err);
		*added += n > 0 ? n : 0;
	}
	free(inpart);
	free(level);
	return st;
}

enum status sp_make_sp(struct graph *g, int *added, struct error *err)
{
	double *w = malloc(g->nops * sizeof *w);
	if (!w)
		return err_set(err, "graph '%s': out of memory", g->name);
	for (int v = 0; v < g->nops; v++)
		w[v] = g->ops[v].fwd[0] + g->ops[v].bwd[0] + g->ops[v].wgrad[0];
	*added = 0;
	enum status st = STATUS_OK;
	for (;;) {
		struct sp_node *t = NULL;
		struct part bad = {0, NULL};
		st = decompose_all(g, &t, &bad, err);
		sp_free(t);
		if (st || t) {
			free(bad.ops);
			break;
		}
		if (!bad.ops) {
			st = err_set(err, "graph '%s': out of memory", g->name);
			break;
		}
		st = fix_part(g, &bad, w, added, err);
		free(bad.ops);
		if (st)
			break;
	}
	free(w);
	return st;
}

void sp_free(struct sp_node *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nchildren; i++)
		sp_free(t->children[i]);
	free(t->children);
	free(t->ops);
	free(t);
}

static void format_node(struct strbuf *b, const struct graph *g, const struct sp_node *t)
{
	if (t->kind == SP_LEAF) {
		sb_printf(b, "%s", g->ops[t->op].name);
		return;
	}
	sb_printf(b, "%s(", t->kind == SP_SERIES ? "S" : "P");
	for (int i = 0; i < t->nchildren; i++) {
		if (i)
			sb_printf(b, ", ");
		format_node(b, g, t->children[i]);
	}
	sb_printf(b, ")");
}

char *sp_format(const struct graph *g, const struct sp_node *t)
{
	struct strbuf b = {0};
	format_node(&b, g, t);
	return sb_finish(&b);
}
