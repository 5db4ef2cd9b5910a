/*
 * The disjunctive formulation: a continuous end time E_o per op, and an
 * ordering binary y_ab for every pair a < b of ops on one device whose order
 * the precedence graph (with FIFO and memory windows) leaves open; y_ab = 1
 * when a runs first. The closure keeps the binaries to the open pairs only.
 *
 * With F&B overlap (instance `overlap`, rho < 1; docs/design.md) a binary
 * z_q per candidate pair q (an open pair of one F and one B whose
 * overlapped pair gains, pair_candidates) says that the two run as one
 * overlapped pair: both end together (so, lasting the same, they start
 * together), each lasting the pair's D_q = inst_pair_cost(T_F, T_B). An
 * op's duration is then the linear expression
 *     dur_o = T_o + sum_{q containing o} (D_q - T_o) z_q,
 *     sum_{q containing o} z_q <= 1,
 * and every row that used T_o uses dur_o. A pair charges its F's memory
 * first (the simulator's rule), so z_q forces y to "F first" and the
 * memory rows stay as they are. The energetic rows subtract what pairs
 * may save, and the windows' fixings are left out (their rule assumes
 * one op at a time).
 *
 * With recompute (instance `recompute`, not together with pairs that
 * gain) a binary r per (stage, micro-batch) whose drop frees memory says
 * that F(l,j) holds only the kept part and B(l,j) lasts R_l longer and
 * first takes the rebuilt part delta_l back: dur_B = T_B + R_l r, and the
 * memory rows count F's net a - delta r and B's net b + delta r, with a
 * row at each B that may rebuild. Where a row counts an op i only when it
 * runs before k, the product [i before k] r_i is a column w = y r
 * (w <= y, w <= r, w >= y + r - 1). FIFO holds for the first stage's
 * forwards only (opgraph.c).
 *
 * With offload (instance `offload`, makespan) a binary u per (stage,
 * micro-batch), the copies' end columns, channel and listing binaries:
 * the section "Offload" below has the rows and the argument.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulate/disjunctive.h"
#include "sched/instance.h"
#include "formulate/objective.h"
#include "formulate/schedule_milp.h"

static void op_label(const struct instance *in, int o, char *buf, size_t len)
{
	int M = in->microbatches, L = in->stages;
	snprintf(buf, len, "%s%d_%d", op_kind_name(o / (L * M)), o / M % L, o % M);
}

static int kind_of(const struct sched_milp *sm, int o)
{
	return o / (sm->in->stages * sm->in->microbatches);
}

static void csr_free(struct csr *c)
{
	free(c->start);
	free(c->list);
}

/*
 * Items 0..m-1 grouped by key (0..k-1), each listed under `per` keys
 * key[i * per + t], t < per, into c (in item order within a key; start
 * [k + 1] and list malloc'd); false out of memory (both freed and NULL).
 */
static bool csr_build(int k, int m, int per, const int *key, struct csr *c)
{
	c->start = calloc(k + 1, sizeof *c->start);
	c->list = malloc(((size_t)m * per + 1) * sizeof *c->list);
	int *fill = calloc(k + 1, sizeof *fill);
	if (!c->start || !c->list || !fill) {
		free(c->start);
		free(c->list);
		free(fill);
		c->start = c->list = NULL;
		return false;
	}
	for (int i = 0; i < m * per; i++)
		c->start[key[i] + 1]++;
	for (int x = 0; x < k; x++)
		c->start[x + 1] += c->start[x];
	for (int i = 0; i < m * per; i++)
		c->list[c->start[key[i]] + fill[key[i]]++] = i / per;
	free(fill);
	return true;
}

/*
 * Overlapped-pair candidates: the open pairs (a, b) of one F and one B
 * (any stages of one device, neither preceding the other) whose pair
 * lasts less than the two back to back, D = inst_pair_cost(T_F, T_B) <
 * T_F + T_B. A pair that gains nothing is no better than its F and then
 * its B: the F starts no later, the B ends no later, the memory is
 * charged in the same order. Also each op's longest duration, for the
 * big-M's. Must follow open_pairs.
 */
static enum status pair_candidates(struct sched_milp *sm, struct error *err)
{
	struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	int n = g->n;
	dj->max_dur = malloc(n * sizeof *dj->max_dur);
	dj->fb_of = malloc((dj->npairs + 1) * sizeof *dj->fb_of);
	if (!dj->max_dur || !dj->fb_of)
		return err_set(err, "formulation: out of memory");
	for (int o = 0; o < n; o++)
		dj->max_dur[o] = g->dur[o];
	for (int p = 0; p < dj->npairs; p++)
		dj->fb_of[p] = -1;
	if (!inst_pairs_gain(sm->in))
		return STATUS_OK;
	dj->fb = malloc((dj->npairs + 1) * sizeof *dj->fb);
	dj->fb_dur = malloc((dj->npairs + 1) * sizeof *dj->fb_dur);
	dj->fb_col = malloc((dj->npairs + 1) * sizeof *dj->fb_col);
	if (!dj->fb || !dj->fb_dur || !dj->fb_col)
		return err_set(err, "formulation: out of memory");
	int *ends = malloc((2 * (size_t)dj->npairs + 1) * sizeof *ends);   /* each candidate's ops */
	if (!ends)
		return err_set(err, "formulation: out of memory");
	for (int p = 0; p < dj->npairs; p++) {
		int a = dj->pair[p][0], b = dj->pair[p][1];
		int ka = kind_of(sm, a), kb = kind_of(sm, b);
		if (!((ka == OP_F && kb == OP_B) || (ka == OP_B && kb == OP_F)))
			continue;
		int64_t D = inst_pair_cost(sm->in, g->dur[a], g->dur[b]);
		if (D >= g->dur[a] + g->dur[b])
			continue;
		ends[2 * dj->nfb] = a;
		ends[2 * dj->nfb + 1] = b;
		dj->fb_of[p] = dj->nfb;
		dj->fb[dj->nfb] = p;
		dj->fb_dur[dj->nfb++] = D;
		dj->max_dur[a] = D > dj->max_dur[a] ? D : dj->max_dur[a];
		dj->max_dur[b] = D > dj->max_dur[b] ? D : dj->max_dur[b];
	}
	bool ok = csr_build(n, dj->nfb, 2, ends, &dj->fb_of_op);
	free(ends);
	return ok ? STATUS_OK : err_set(err, "formulation: out of memory");
}

/* Op o's stage and micro-batch. */
static int stage_of(const struct sched_milp *sm, int o)
{
	return o / sm->in->microbatches % sm->in->stages;
}

/*
 * Recompute columns: r for every (stage, micro-batch) whose drop frees
 * memory on a device with a limit (elsewhere dropping only lengthens its
 * B: r = 0 loses nothing), shared by its F and its B. Also the B's longest
 * duration, T_B + R_l. Must follow pair_candidates (max_dur).
 */
static enum status recompute_columns(struct sched_milp *sm, struct error *err)
{
	struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	int M = in->microbatches;
	dj->rc_col = malloc(sm->g->n * sizeof *dj->rc_col);
	if (!dj->rc_col)
		return err_set(err, "formulation: out of memory");
	for (int o = 0; o < sm->g->n; o++)
		dj->rc_col[o] = -1;
	if (!in->has_recompute || !in->has_memory || !in->has_limit)
		return STATUS_OK;
	for (int l = 0; l < in->stages; l++) {
		if (inst_rebuilt(in, l) <= 0)
			continue;
		for (int j = 0; j < M; j++) {
			int f = inst_op_id(in, OP_F, l, j), b = inst_op_id(in, OP_B, l, j);
			dj->rc_col[f] = dj->rc_col[b] =
				milp_add_col(sm->milp, 0, 1, 0, true, "r%d_%d", l, j);
			dj->max_dur[b] += in->recompute_cost[l];
		}
	}
	return STATUS_OK;
}

/* Whether op o is a B that may rebuild (its duration and memory vary). */
static bool rebuilds(const struct sched_milp *sm, int o)
{
	const struct disjunctive *dj = sm->data;
	return dj->rc_col[o] >= 0 && kind_of(sm, o) == OP_B;
}

/* The candidates op o belongs to. */
static int pairs_of(const struct disjunctive *dj, int o)
{
	return dj->nfb ? dj->fb_of_op.start[o + 1] - dj->fb_of_op.start[o] : 0;
}

/* The most candidates any op belongs to (row buffers). */
static int most_pairs(const struct sched_milp *sm)
{
	const struct disjunctive *dj = sm->data;
	int most = 0;
	for (int o = 0; o < sm->g->n; o++)
		most = pairs_of(dj, o) > most ? pairs_of(dj, o) : most;
	return most;
}

/* Append -(D_q - T_o) z_q for every candidate q of op o, and -R_l r for
 * a B that may rebuild, to a row at n: "E_o - dur_o" is E_o - T_o plus
 * these terms. The new length. */
static int dur_terms(const struct sched_milp *sm, int o, int *cols, double *vals, int n)
{
	const struct disjunctive *dj = sm->data;
	for (int e = 0; e < pairs_of(dj, o); e++) {
		int q = dj->fb_of_op.list[dj->fb_of_op.start[o] + e];
		cols[n] = dj->fb_col[q];
		vals[n++] = -(double)(dj->fb_dur[q] - sm->g->dur[o]);
	}
	if (rebuilds(sm, o)) {
		cols[n] = dj->rc_col[o];
		vals[n++] = -(double)sm->in->recompute_cost[stage_of(sm, o)];
	}
	return n;
}

/* Op o's duration in a solution x. */
static double dur_at(const struct sched_milp *sm, const double *x, int o)
{
	const struct disjunctive *dj = sm->data;
	for (int e = 0; e < pairs_of(dj, o); e++) {
		int q = dj->fb_of_op.list[dj->fb_of_op.start[o] + e];
		if (x[dj->fb_col[q]] > 0.5)
			return (double)dj->fb_dur[q];
	}
	if (rebuilds(sm, o) && x[dj->rc_col[o]] > 0.5)
		return (double)(sm->g->dur[o] + sm->in->recompute_cost[stage_of(sm, o)]);
	return (double)sm->g->dur[o];
}

/*
 * End-time columns: head_o + T_o <= E_o <= H - tail_o. Heads and tails are
 * longest paths in the precedence graph, so every schedule within the
 * horizon satisfies them. One column per op.
 */
static enum status end_columns(struct sched_milp *sm, struct error *err)
{
	struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	dj->end_col = malloc(g->n * sizeof(int));
	if (!dj->end_col)
		return err_set(err, "formulation: out of memory");
	for (int o = 0; o < g->n; o++) {
		char name[64];
		int64_t lb = g->head[o] + g->dur[o], ub = sm->horizon - g->tail[o];
		if (lb > ub)
			return err_set(err, "formulation: horizon %lld is below the longest path through an op (%lld)",
				       (long long)sm->horizon, (long long)(lb + g->tail[o]));
		if (dj->start_lb) {   /* the windows' tightening, never looser */
			lb = dj->start_lb[o] + g->dur[o];
			ub = dj->end_ub[o];
		}
		op_label(sm->in, o, name, sizeof name);
		dj->end_col[o] = milp_add_col(sm->milp, (double)lb, (double)ub, 0, false,
					      "E_%s", name);
	}
	return STATUS_OK;
}

/* The windows' fixings on a target (opgraph_windows; formulate/README.md):
 * only there, measured on p8 m16 fused, p memory, comm 1, costs 5 and 10
 * (bench/results/solve-fused-targets.md): GLPK's target at 383 finds the
 * optimum in 16 s with them and nothing in 120 s without (GLPK has no
 * preprocessor that finds these orders); CBC's model with the incumbent
 * as start proved the same instance in 25.9 s without them and 55.1 s
 * with them (one run each: its branch and bound takes another path), so
 * the model with a start is left as it was. */
static enum status window_pairs(struct sched_milp *sm, struct error *err)
{
	struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	dj->fixed = malloc(dj->npairs + 1);
	if (!dj->fixed)
		return err_set(err, "formulation: out of memory");
	memset(dj->fixed, -1, dj->npairs + 1);
	if (sm->lower < sm->upper || dj->nfb)
		return STATUS_OK;   /* not a target, or ops that may overlap */
	dj->start_lb = malloc(g->n * sizeof *dj->start_lb);
	dj->end_ub = malloc(g->n * sizeof *dj->end_ub);
	if (!dj->start_lb || !dj->end_ub)
		return err_set(err, "formulation: out of memory");
	if (!opgraph_windows(g, sm->horizon, dj->npairs, (const int (*)[2])dj->pair, dj->fixed,
			     dj->start_lb, dj->end_ub, &sm->fixed_binaries)) {
		free(dj->start_lb);   /* empty: left to the solver */
		free(dj->end_ub);
		dj->start_lb = dj->end_ub = NULL;
		memset(dj->fixed, -1, dj->npairs + 1);
		sm->fixed_binaries = 0;
	}
	return STATUS_OK;
}

/*
 * Precedence: for every arc i -> k with lag l,
 *     E_k - E_i >= dur_k + l
 * One row per arc. With pairs also each candidate's op's start at or
 * after its head, E_o - dur_o >= head_o (without them the column's lower
 * bound says it).
 */
static void precedence_rows(struct sched_milp *sm, int *cols, double *vals)
{
	const struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	for (int k = 0; k < g->n; k++) {
		for (int e = g->pred_start[k]; e < g->pred_start[k + 1]; e++) {
			int i = g->pred[e].op;
			cols[0] = dj->end_col[k];
			cols[1] = dj->end_col[i];
			vals[0] = 1;
			vals[1] = -1;
			int n = dur_terms(sm, k, cols, vals, 2);
			milp_add_row(sm->milp, n, cols, vals,
				     (double)(g->dur[k] + g->pred[e].lag), MILP_INF,
				     "prec_%d_%d", i, k);
		}
		if (pairs_of(dj, k) || rebuilds(sm, k)) {
			cols[0] = dj->end_col[k];
			vals[0] = 1;
			int n = dur_terms(sm, k, cols, vals, 1);
			milp_add_row(sm->milp, n, cols, vals, (double)(g->head[k] + g->dur[k]),
				     MILP_INF, "head_%d", k);
		}
	}
}

/* Open pairs: same device, neither must precede the other. */
static enum status open_pairs(struct sched_milp *sm, struct error *err)
{
	struct disjunctive *dj = sm->data;
	dj->npairs = opgraph_open_pairs(sm->g, &dj->pair);
	if (dj->npairs < 0) {
		dj->npairs = 0;
		return err_set(err, "formulation: out of memory");
	}
	return STATUS_OK;
}

/* The product column w = a b of two binaries: w <= a, w <= b, w >= a + b - 1. */
static int product_column(struct milp *m, int a, int b, const char *name)
{
	int w = milp_add_col(m, 0, 1, 0, false, "%s", name);
	int c[3] = {w, a, b};
	double le[2] = {1, -1}, ge[3] = {1, -1, -1};
	int cb[2] = {w, b};
	milp_add_row(m, 2, c, le, -MILP_INF, 0, "%s_a", name);
	milp_add_row(m, 2, cb, le, -MILP_INF, 0, "%s_b", name);
	milp_add_row(m, 3, c, ge, -1, MILP_INF, "%s_ab", name);
	return w;
}

/*
 * Recompute products: for an open pair p and each of its ops o with an r,
 * w = y_p r_o (product_column). The memory rows read them (memory_rows).
 */
static void product_columns(struct sched_milp *sm)
{
	struct disjunctive *dj = sm->data;
	struct milp *m = sm->milp;
	dj->w_col = malloc((dj->npairs + 1) * sizeof *dj->w_col);
	if (!dj->w_col) {
		m->failed = true;
		return;
	}
	for (int p = 0; p < dj->npairs; p++)
		for (int s = 0; s < 2; s++) {
			int o = dj->pair[p][s], r = dj->rc_col[o], y = dj->pair_col[p];
			dj->w_col[p][s] = -1;
			if (r < 0)
				continue;
			char name[64];
			snprintf(name, sizeof name, "w_%d_%d_%d", dj->pair[p][0], dj->pair[p][1], o);
			dj->w_col[p][s] = product_column(m, y, r, name);
		}
}

/*
 * Device order: for an open pair (a, b), y = 1 when a runs first, and
 *     E_b - E_a >= dur_b - M1 (1 - y)      (a first: b ends dur_b after a)
 *     E_a - E_b >= dur_a - M2 y            (b first)
 * with M1 = max dur_b + ub(E_a) - lb(E_b) and M2 = max dur_a + ub(E_b) -
 * lb(E_a), the least that makes a row vacuous when it does not apply (the
 * columns' bounds come from the horizon, never from a loose sum). One
 * binary and two rows per open pair. A candidate pair q of the two also
 * has its z_q, which lifts both rows (- M z_q) and when 1 makes them end
 * together,
 *     E_a - E_b <= (ub(E_a) - lb(E_b)) (1 - z_q), and the same mirrored,
 * with the F first for memory: z_q <= y (a the F) or z_q <= 1 - y.
 */
/* The pairs' binaries, y and z, and the recompute products: before any
 * row that reads them (a z or an r enters every duration). Without pairs
 * or recompute the columns and rows come in the order they always had. */
static void binary_columns(struct sched_milp *sm)
{
	struct disjunctive *dj = sm->data;
	struct milp *m = sm->milp;
	dj->pair_col = malloc((dj->npairs + 1) * sizeof(int));
	if (!dj->pair_col) {
		m->failed = true;
		return;
	}
	for (int p = 0; p < dj->npairs; p++) {
		int a = dj->pair[p][0], b = dj->pair[p][1], q = dj->fb_of[p];
		double lo = dj->fixed[p] == 1 ? 1 : 0, hi = dj->fixed[p] == 0 ? 0 : 1;
		dj->pair_col[p] = milp_add_col(m, lo, hi, 0, true, "y_%d_%d", a, b);
		if (q >= 0)
			dj->fb_col[q] = milp_add_col(m, 0, 1, 0, true, "z_%d_%d", a, b);
	}
	product_columns(sm);
}

static void order_rows(struct sched_milp *sm, int *cols, double *vals)
{
	struct disjunctive *dj = sm->data;
	struct milp *m = sm->milp;
	if (!dj->pair_col)
		return;   /* out of memory, marked */
	for (int p = 0; p < dj->npairs; p++) {
		int a = dj->pair[p][0], b = dj->pair[p][1];
		int ca = dj->end_col[a], cb = dj->end_col[b], q = dj->fb_of[p];
		double M1 = (double)dj->max_dur[b] + m->cols[ca].ub - m->cols[cb].lb;
		double M2 = (double)dj->max_dur[a] + m->cols[cb].ub - m->cols[ca].lb;
		M1 = M1 > 0 ? M1 : 0;
		M2 = M2 > 0 ? M2 : 0;
		int y = dj->pair_col[p], z = q < 0 ? -1 : dj->fb_col[q];
		int n = 0;
		cols[n] = cb, vals[n++] = 1;
		cols[n] = ca, vals[n++] = -1;
		cols[n] = y, vals[n++] = -M1;
		if (z >= 0)
			cols[n] = z, vals[n++] = M1;
		n = dur_terms(sm, b, cols, vals, n);   /* z_q twice: milp_add_row adds them */
		milp_add_row(m, n, cols, vals, (double)sm->g->dur[b] - M1, MILP_INF, "ord_%d_%d", a, b);
		n = 0;
		cols[n] = ca, vals[n++] = 1;
		cols[n] = cb, vals[n++] = -1;
		cols[n] = y, vals[n++] = M2;
		if (z >= 0)
			cols[n] = z, vals[n++] = M2;
		n = dur_terms(sm, a, cols, vals, n);
		milp_add_row(m, n, cols, vals, (double)sm->g->dur[a], MILP_INF, "ord_%d_%d_r", a, b);
		if (z < 0)
			continue;
		double Mab = m->cols[ca].ub - m->cols[cb].lb, Mba = m->cols[cb].ub - m->cols[ca].lb;
		Mab = Mab > 0 ? Mab : 0;
		Mba = Mba > 0 ? Mba : 0;
		int cs[3] = {ca, cb, z}, cf[2] = {z, y};
		double vs[3] = {1, -1, Mab}, ws[3] = {-1, 1, Mba};
		milp_add_row(m, 3, cs, vs, -MILP_INF, Mab, "pair_%d_%d", a, b);
		milp_add_row(m, 3, cs, ws, -MILP_INF, Mba, "pair_%d_%d_r", a, b);
		bool a_is_f = kind_of(sm, a) == OP_F;   /* its F is charged first */
		double vf[2] = {1, a_is_f ? -1 : 1};
		milp_add_row(m, 2, cf, vf, -MILP_INF, a_is_f ? 0 : 1, "pairf_%d_%d", a, b);
	}
}

/* Each op in at most one overlapped pair. */
static void one_pair_rows(struct sched_milp *sm, int *cols, double *vals)
{
	const struct disjunctive *dj = sm->data;
	for (int o = 0; o < sm->g->n; o++) {
		if (pairs_of(dj, o) < 2)
			continue;
		for (int e = 0; e < pairs_of(dj, o); e++) {
			cols[e] = dj->fb_col[dj->fb_of_op.list[dj->fb_of_op.start[o] + e]];
			vals[e] = 1;
		}
		milp_add_row(sm->milp, pairs_of(dj, o), cols, vals, -MILP_INF, 1, "one_%d", o);
	}
}

/* For each op, the open pairs it belongs to. */
static bool index_pairs(const struct sched_milp *sm, struct csr *ix)
{
	const struct disjunctive *dj = sm->data;
	return csr_build(sm->g->n, dj->npairs, 2, dj->npairs ? &dj->pair[0][0] : NULL, ix);
}

/* ---- Offload (instance `offload`, makespan) --------------------------------------- */

/*
 * The copies of offloaded activations, on each device's copy channel
 * (docs/design.md, Offload). Per (stage l, micro-batch j) whose offload
 * frees memory (inst_moved > 0) a binary u: its O(l,j) and L(l,j) exist,
 * with end columns. Their rules, each applying only when u = 1 (and its
 * other conditions; a row then relaxed by big-M):
 *   S_O >= E_F(l,j),  S_L >= E_O,  S_B(l,j) >= E_L      (the copies' chain)
 *   two copies of a device do not overlap (a binary v per pair);
 *   the listing order (the device row) of a compute op k and a copy h is
 *   a binary x (1: k listed first) where a rule or a memory sum reads it:
 *     k takes memory (an F), h a reload:  x ? S_L >= S_k : S_k >= S_L;
 *     k takes memory, h an offload:       x = 0 => S_k >= E_O;
 *     k frees memory (a B or W), h a reload: x = 1 => S_L >= E_k
 *   (the simulator's rules: an op that takes memory starts no earlier than
 *   every op listed before it on the other resource that takes memory, and
 *   after every listed op that frees memory has ended).
 * Memory, as row sums in listing order: an F's row adds each copy's
 * -moved u (O) or +moved u (L) when the copy is listed first,
 * delta_h u (1 - x), with w = x u; each reload has its own row (the
 * compute ops listed before it, x delta_k, and the copies before it, by
 * v, with products v u), plus what it takes back; with a host limit each
 * offload has a row of the channel's running sum. FIFO holds only for the
 * first stage's forwards (opgraph.c). The decoded row lists each copy
 * where its key falls among the compute ops' (a reload at its start, an
 * offload at its end; a B or W at its end, an F at its start), which the
 * rules above make a listing whose simulated times are the solution's or
 * earlier and whose row sums are at most the rows'.
 */
/* A memory row being built: its terms and its constant part. */
struct mem_row {
	int *cols;
	double *vals;
	int n;
	double fixed;
};

static bool offload_modelled(const struct sched_milp *sm)
{
	const struct instance *in = sm->in;
	return in->has_offload && in->has_memory && in->has_limit &&
	       in->objective == OBJ_MAKESPAN;
}

static bool copy_is_reload(const struct sched_milp *sm, int h)
{
	return h >= sm->in->stages * sm->in->microbatches;
}

static int copy_stage(const struct sched_milp *sm, int h)
{
	return h / sm->in->microbatches % sm->in->stages;
}

static int copy_mb(const struct sched_milp *sm, int h)
{
	return h % sm->in->microbatches;
}

static int copy_device(const struct sched_milp *sm, int h)
{
	return sm->in->stage_device[copy_stage(sm, h)];
}

static int64_t copy_dur(const struct sched_milp *sm, int h)
{
	int l = copy_stage(sm, h);
	return copy_is_reload(sm, h) ? sm->in->reload_cost[l] : sm->in->offload_cost[l];
}

/* The copy's memory change when it exists: an offload frees, a reload takes. */
static double copy_delta(const struct sched_milp *sm, int h)
{
	double moved = (double)inst_moved(sm->in, copy_stage(sm, h));
	return copy_is_reload(sm, h) ? moved : -moved;
}

static int copy_u(const struct sched_milp *sm, int h)
{
	const struct disjunctive *dj = sm->data;
	return dj->u_col[copy_stage(sm, h) * sm->in->microbatches + copy_mb(sm, h)];
}

/* u and the copies' end columns, within the windows the chain F -> O ->
 * L -> B leaves under the horizon; a (stage, micro-batch) whose copies do
 * not fit there gets none (no schedule within the horizon offloads it). */
static enum status offload_columns(struct sched_milp *sm, struct error *err)
{
	struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	const struct opgraph *g = sm->g;
	int L = in->stages, M = in->microbatches;
	dj->u_col = malloc(L * M * sizeof *dj->u_col);
	dj->copy_col = malloc(2 * L * M * sizeof *dj->copy_col);
	if (!dj->u_col || !dj->copy_col)
		return err_set(err, "formulation: out of memory");
	for (int i = 0; i < L * M; i++)
		dj->u_col[i] = dj->copy_col[i] = dj->copy_col[L * M + i] = -1;
	if (!offload_modelled(sm))
		return STATUS_OK;
	for (int l = 0; l < L; l++) {
		if (inst_moved(in, l) <= 0)
			continue;
		for (int j = 0; j < M; j++) {
			int f = inst_op_id(in, OP_F, l, j), b = inst_op_id(in, OP_B, l, j);
			int64_t dO = in->offload_cost[l], dL = in->reload_cost[l];
			int64_t lo = g->head[f] + g->dur[f] + dO;
			int64_t hi = sm->horizon - g->tail[b] - g->dur[b];
			if (lo + dL > hi)
				continue;
			dj->u_col[l * M + j] = milp_add_col(sm->milp, 0, 1, 0, true, "u%d_%d", l, j);
			dj->copy_col[inst_copy_index(in, false, l, j)] =
				milp_add_col(sm->milp, (double)lo, (double)(hi - dL), 0, false,
					     "EO%d_%d", l, j);
			dj->copy_col[inst_copy_index(in, true, l, j)] =
				milp_add_col(sm->milp, (double)(lo + dL), (double)hi, 0, false,
					     "EL%d_%d", l, j);
		}
	}
	return STATUS_OK;
}

/* Grow an array of n elements of size sz by one, doubling its capacity. */
static bool grow_one(void **a, int n, int *cap, size_t sz)
{
	if (n < *cap)
		return true;
	int c = *cap ? 2 * *cap : 64;
	void *p = realloc(*a, (size_t)c * sz);
	if (!p)
		return false;
	*a = p;
	*cap = c;
	return true;
}

/* The cross pairs of each compute op and of each copy, the channel pairs
 * of each copy (the rows and the decoding look them up). */
static bool index_copies(struct sched_milp *sm)
{
	struct disjunctive *dj = sm->data;
	int H = 2 * sm->in->stages * sm->in->microbatches;
	size_t n = 2 * (size_t)(dj->ncross > dj->nchan ? dj->ncross : dj->nchan) + 1;
	int *ops = malloc(n * sizeof *ops), *copies = malloc(n * sizeof *copies);
	bool ok = ops && copies;
	for (int i = 0; ok && i < dj->ncross; i++) {
		ops[i] = dj->cross[i].op;
		copies[i] = dj->cross[i].copy;
	}
	ok = ok && csr_build(sm->g->n, dj->ncross, 1, ops, &dj->cross_of_op) &&
	     csr_build(H, dj->ncross, 1, copies, &dj->cross_of_copy);
	for (int i = 0; ok && i < dj->nchan; i++) {
		copies[2 * i] = dj->chan[i].a;
		copies[2 * i + 1] = dj->chan[i].b;
	}
	ok = ok && csr_build(H, dj->nchan, 2, copies, &dj->chan_of_copy);
	free(ops);
	free(copies);
	return ok;
}

/* The listing pair of compute op k and copy h, or NULL. */
static const struct cross_pair *cross_of(const struct disjunctive *dj, int k, int h)
{
	for (int e = dj->cross_of_op.start[k]; e < dj->cross_of_op.start[k + 1]; e++)
		if (dj->cross[dj->cross_of_op.list[e]].copy == h)
			return &dj->cross[dj->cross_of_op.list[e]];
	return NULL;
}

/* The cross pairs (compute op, copy) and the channel pairs of each device,
 * with their binaries and products. */
static enum status offload_pairs(struct sched_milp *sm, struct error *err)
{
	struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	const struct opgraph *g = sm->g;
	struct milp *m = sm->milp;
	int L = in->stages, M = in->microbatches, H = 2 * L * M, ccap = 0, hcap = 0;
	char name[96];
	if (!offload_modelled(sm))
		return STATUS_OK;
	for (int k = 0; k < g->n; k++) {
		int kk = kind_of(sm, k), l = stage_of(sm, k), j = k % M;
		int64_t dk = inst_delta(in, kk, l);
		if (dk == 0)
			continue;
		for (int h = 0; h < H; h++) {
			if (dj->copy_col[h] < 0 || copy_device(sm, h) != g->device[k] ||
			    (dk < 0 && !copy_is_reload(sm, h)))
				continue;
			if (!grow_one((void **)&dj->cross, dj->ncross, &ccap, sizeof *dj->cross))
				return err_set(err, "formulation: out of memory");
			bool own = copy_stage(sm, h) == l && copy_mb(sm, h) == j;
			/* an F is listed before its own copies, a B or W after its reload */
			double lo = own && kk == OP_F ? 1 : 0, hi = own && kk != OP_F ? 0 : 1;
			struct cross_pair *c = &dj->cross[dj->ncross++];
			c->op = k;
			c->copy = h;
			c->x = milp_add_col(m, lo, hi, 0, true, "x_%d_c%d", k, h);
			snprintf(name, sizeof name, "wx_%d_c%d", k, h);
			c->w = dk > 0 ? product_column(m, c->x, copy_u(sm, h), name) : -1;
		}
	}
	for (int a = 0; a < H; a++)
		for (int b = a + 1; b < H; b++) {
			if (dj->copy_col[a] < 0 || dj->copy_col[b] < 0 ||
			    copy_device(sm, a) != copy_device(sm, b))
				continue;
			if (!grow_one((void **)&dj->chan, dj->nchan, &hcap, sizeof *dj->chan))
				return err_set(err, "formulation: out of memory");
			/* an offload runs before its own reload */
			bool own = b == a + L * M;
			struct chan_pair *c = &dj->chan[dj->nchan++];
			c->a = a;
			c->b = b;
			c->v = milp_add_col(m, own ? 1 : 0, 1, 0, true, "v_c%d_c%d", a, b);
			snprintf(name, sizeof name, "wa_c%d_c%d", a, b);
			c->wa = product_column(m, c->v, copy_u(sm, a), name);
			snprintf(name, sizeof name, "wb_c%d_c%d", a, b);
			c->wb = product_column(m, c->v, copy_u(sm, b), name);
		}
	return index_copies(sm) ? STATUS_OK : err_set(err, "formulation: out of memory");
}

/* A condition of a rule: binary col at value one (1) or 0. */
struct cond {
	int col;
	bool one;
};

/*
 * E_late - E_early >= gap when every condition holds:
 *     E_late - E_early + sum_{need 1} M (1 - z) + sum_{need 0} M z >= gap,
 * M = gap + ub(E_early) - lb(E_late), the least that makes the row vacuous
 * when a condition fails.
 */
static void rule_row(struct sched_milp *sm, int late, int early, double gap,
		     const struct cond *c, int nc, const char *name)
{
	struct milp *m = sm->milp;
	double M = gap + m->cols[early].ub - m->cols[late].lb;
	if (M <= 0)
		return;   /* holds whatever the binaries say */
	int cols[8];
	double vals[8], rhs = gap;
	int n = 0;
	cols[n] = late, vals[n++] = 1;
	cols[n] = early, vals[n++] = -1;
	for (int i = 0; i < nc; i++) {
		cols[n] = c[i].col;
		vals[n++] = c[i].one ? -M : M;
		if (c[i].one)
			rhs -= M;
	}
	milp_add_row(m, n, cols, vals, rhs, MILP_INF, "%s", name);
}

/* The copies' rules (above): their chain, the channel, and the listing. */
static void offload_rows(struct sched_milp *sm)
{
	const struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	const struct opgraph *g = sm->g;
	int L = in->stages, M = in->microbatches;
	char name[96];
	if (!offload_modelled(sm))
		return;
	for (int l = 0; l < L; l++)
		for (int j = 0; j < M; j++) {
			int u = dj->u_col[l * M + j];
			if (u < 0)
				continue;
			int eo = dj->copy_col[inst_copy_index(in, false, l, j)];
			int el = dj->copy_col[inst_copy_index(in, true, l, j)];
			int ef = dj->end_col[inst_op_id(in, OP_F, l, j)];
			int b = inst_op_id(in, OP_B, l, j);
			struct cond on = {u, true};
			snprintf(name, sizeof name, "oF_%d_%d", l, j);
			rule_row(sm, eo, ef, (double)in->offload_cost[l], &on, 1, name);
			snprintf(name, sizeof name, "lO_%d_%d", l, j);
			rule_row(sm, el, eo, (double)in->reload_cost[l], &on, 1, name);
			snprintf(name, sizeof name, "bL_%d_%d", l, j);
			rule_row(sm, dj->end_col[b], el, (double)g->dur[b], &on, 1, name);
		}
	for (int i = 0; i < dj->nchan; i++) {
		const struct chan_pair *c = &dj->chan[i];
		int ea = dj->copy_col[c->a], eb = dj->copy_col[c->b];
		struct cond first[3] = {{c->v, true}, {copy_u(sm, c->a), true}, {copy_u(sm, c->b), true}};
		snprintf(name, sizeof name, "ch_c%d_c%d", c->a, c->b);
		rule_row(sm, eb, ea, (double)copy_dur(sm, c->b), first, 3, name);
		first[0].one = false;
		snprintf(name, sizeof name, "ch_c%d_c%d_r", c->a, c->b);
		rule_row(sm, ea, eb, (double)copy_dur(sm, c->a), first, 3, name);
	}
	for (int i = 0; i < dj->ncross; i++) {
		const struct cross_pair *c = &dj->cross[i];
		int k = c->op, h = c->copy, ek = dj->end_col[k], eh = dj->copy_col[h];
		double Tk = (double)g->dur[k], dh = (double)copy_dur(sm, h);
		bool takes = inst_delta(in, kind_of(sm, k), stage_of(sm, k)) > 0;
		struct cond cs[2] = {{c->x, true}, {copy_u(sm, h), true}};
		snprintf(name, sizeof name, "lst_%d_c%d", k, h);
		if (takes && copy_is_reload(sm, h)) {
			rule_row(sm, eh, ek, dh - Tk, cs, 2, name);          /* x: S_L >= S_k */
			cs[0].one = false;
			snprintf(name, sizeof name, "lst_%d_c%d_r", k, h);
			rule_row(sm, ek, eh, Tk - dh, cs, 2, name);          /* !x: S_k >= S_L */
		} else if (takes) {
			cs[0].one = false;
			rule_row(sm, ek, eh, Tk, cs, 2, name);               /* !x: S_k >= E_O */
		} else {
			rule_row(sm, eh, ek, dh, cs, 2, name);               /* x: S_L >= E_k */
		}
	}
}

/* An F's memory row (memory_row): each copy of its device listed before
 * it, delta_h u (1 - x) = delta_h (u - w). */
static void copies_before_op(const struct sched_milp *sm, int k, struct mem_row *row)
{
	const struct disjunctive *dj = sm->data;
	if (!dj->cross_of_op.start)
		return;   /* no copies in the model */
	for (int e = dj->cross_of_op.start[k]; e < dj->cross_of_op.start[k + 1]; e++) {
		const struct cross_pair *c = &dj->cross[dj->cross_of_op.list[e]];
		if (c->w < 0)
			continue;
		double dh = copy_delta(sm, c->copy);
		row->cols[row->n] = copy_u(sm, c->copy);
		row->vals[row->n++] = dh;
		row->cols[row->n] = c->w;
		row->vals[row->n++] = -dh;
	}
}

/* The copies of h's device listed before it, [a before h] u_a, by the
 * channel pairs: `delta` gives each one's contribution. */
static void copies_before_copy(const struct sched_milp *sm, int h, struct mem_row *row,
			       double (*delta)(const struct sched_milp *, int))
{
	const struct disjunctive *dj = sm->data;
	for (int e = dj->chan_of_copy.start[h]; e < dj->chan_of_copy.start[h + 1]; e++) {
		const struct chan_pair *c = &dj->chan[dj->chan_of_copy.list[e]];
		if (c->b == h) {            /* a before b: v u_a */
			row->cols[row->n] = c->wa;
			row->vals[row->n++] = delta(sm, c->a);
		} else {                    /* h = a; b before a: (1 - v) u_b */
			double db = delta(sm, c->b);
			row->cols[row->n] = copy_u(sm, c->b);
			row->vals[row->n++] = db;
			row->cols[row->n] = c->wb;
			row->vals[row->n++] = -db;
		}
	}
}

/* What the host holds per copy: an offload adds, a reload takes back. */
static double host_delta(const struct sched_milp *sm, int h)
{
	return -copy_delta(sm, h);
}

/* A reload's memory row and, with a host limit, an offload's host row. */
static void copy_rows(struct sched_milp *sm, struct mem_row *row)
{
	const struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	int H = 2 * in->stages * in->microbatches;
	for (int h = 0; h < H; h++) {
		if (dj->copy_col[h] < 0)
			continue;
		int d = copy_device(sm, h);
		bool reload = copy_is_reload(sm, h);
		if (!reload && !(in->has_host_limit && in->host_limit))
			continue;
		row->n = 0;
		row->fixed = 0;
		row->cols[row->n] = copy_u(sm, h);
		row->vals[row->n++] = reload ? copy_delta(sm, h) : host_delta(sm, h);
		const struct csr *cc = &dj->cross_of_copy;
		for (int e = cc->start[h]; reload && e < cc->start[h + 1]; e++) {
			const struct cross_pair *c = &dj->cross[cc->list[e]];   /* compute op listed first */
			row->cols[row->n] = c->x;
			row->vals[row->n++] = (double)inst_delta(in, kind_of(sm, c->op),
								 stage_of(sm, c->op));
		}
		copies_before_copy(sm, h, row, reload ? copy_delta : host_delta);
		double limit = (double)(reload ? in->limit[d] : in->host_limit[d]);
		milp_add_row(sm->milp, row->n, row->cols, row->vals, -MILP_INF, limit,
			     "%s_c%d", reload ? "memL" : "host", h);
	}
}

/*
 * Memory, right after op k starts (deltas are charged at the start):
 *     D_k + sum_{i precedes k} D_i + sum_{open pairs} D_i [i before k] <= limit
 * where [a before b] is y_ab and [b before a] is 1 - y_ab. Peaks follow
 * ops with a positive delta, so one row per such op, skipped when even the
 * worst order stays within the limit.
 *
 * With recompute an op's net is D_i + s_i delta_i r_i (s = -1 for an F,
 * which then holds only the kept part; +1 for a B, which takes the
 * rebuilt part back), an F charges D_k - delta_k r_k, and a B that may
 * rebuild has a row of its own: what runs before it plus delta_k r_k (the
 * rebuild is charged before its own delta). [i before k] r_i is the
 * product column w (product_columns).
 */
/* Add op i's net times [i before k] to the row: `pair` -1 when i precedes
 * k, else the open pair p of i and k (side: i's place in it). */
static void add_net(const struct sched_milp *sm, struct mem_row *row, int i, int p, int side)
{
	const struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	int k = kind_of(sm, i), l = stage_of(sm, i);
	double c = (double)inst_delta(in, k, l);
	double rd = dj->rc_col[i] < 0 ? 0 : (k == OP_F ? -1.0 : k == OP_B ? 1.0 : 0.0) *
		    (double)inst_rebuilt(in, l);
	if (p < 0 || side == 1) {   /* indicator 1, or 1 - y (i = b runs first when y = 0) */
		row->fixed += c;
		if (rd != 0) {
			row->cols[row->n] = dj->rc_col[i];
			row->vals[row->n++] = rd;
		}
	}
	if (p < 0)
		return;
	double sign = side == 0 ? 1 : -1;   /* + y, or - y */
	row->cols[row->n] = dj->pair_col[p];
	row->vals[row->n++] = sign * c;
	if (rd != 0) {
		row->cols[row->n] = dj->w_col[p][side];
		row->vals[row->n++] = sign * rd;
	}
}

/* The row of op k: what runs before it, and `charge` plus charge_r r_k. */
static void memory_row(struct sched_milp *sm, const struct csr *ix, int k,
		       double charge, double charge_r, struct mem_row *row, const char *what)
{
	const struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	int d = g->device[k];
	row->n = 0;
	row->fixed = charge;
	if (charge_r != 0) {
		row->cols[row->n] = dj->rc_col[k];
		row->vals[row->n++] = charge_r;
	}
	for (int i = 0; i < g->n; i++)
		if (g->device[i] == d && opgraph_precedes(g, i, k))
			add_net(sm, row, i, -1, 0);
	for (int e = ix->start[k]; e < ix->start[k + 1]; e++) {
		int p = ix->list[e];
		bool k_is_a = dj->pair[p][0] == k;
		add_net(sm, row, k_is_a ? dj->pair[p][1] : dj->pair[p][0], p, k_is_a ? 1 : 0);
	}
	copies_before_op(sm, k, row);
	double worst = row->fixed;
	for (int e = 0; e < row->n; e++)
		worst += row->vals[e] > 0 ? row->vals[e] : 0;
	if (worst <= (double)sm->in->limit[d])
		return;
	milp_add_row(sm->milp, row->n, row->cols, row->vals, -MILP_INF,
		     (double)sm->in->limit[d] - row->fixed, "%s_%d", what, k);
}

static void memory_rows(struct sched_milp *sm, const struct csr *ix)
{
	const struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	const struct opgraph *g = sm->g;
	if (!in->has_limit || !in->has_memory || !dj->pair_col || !dj->w_col)
		return;   /* (out of memory: binary_columns marked the model failed) */
	/* room for an F's pairs and copies, or a reload's cross and channel pairs */
	size_t width = 3 * (size_t)dj->npairs + g->n + 2 * (size_t)dj->ncross +
		       2 * (size_t)dj->nchan + 2;
	struct mem_row row = {malloc(width * sizeof(int)), malloc(width * sizeof(double)), 0, 0};
	if (!row.cols || !row.vals) {
		sm->milp->failed = true;
		free(row.cols);
		free(row.vals);
		return;
	}
	for (int k = 0; k < g->n; k++) {
		int kind = kind_of(sm, k), l = stage_of(sm, k);
		int64_t dk = inst_delta(in, kind, l);
		if (dk > 0)
			memory_row(sm, ix, k, (double)dk,
				   dj->rc_col[k] >= 0 && kind == OP_F ? -(double)inst_rebuilt(in, l) : 0,
				   &row, "mem");
		if (rebuilds(sm, k))
			memory_row(sm, ix, k, 0, (double)inst_rebuilt(in, l), &row, "rebuild");
	}
	copy_rows(sm, &row);
	free(row.cols);
	free(row.vals);
}

/*
 * Objective rows. Makespan: C >= E_o for every op no arc leaves.
 * Span: first_d <= E_o - T_o for ops that may start device d, last_d >= E_o
 * for ops that may end it, S >= last_d - first_d.
 */
static void objective_rows(struct sched_milp *sm, int *cols, double *vals)
{
	const struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	struct milp *m = sm->milp;
	for (int o = 0; o < g->n; o++) {
		int d = g->device[o];
		if (sm->in->objective == OBJ_MAKESPAN) {
			if (g->succ_start[o] != g->succ_start[o + 1])
				continue;
			int c[2] = {sm->obj_col, dj->end_col[o]};
			double v[2] = {1, -1};
			milp_add_row(m, 2, c, v, 0, MILP_INF, "cmax_%d", o);
			continue;
		}
		if (g->dev_first[o]) {   /* first_d <= E_o - dur_o */
			cols[0] = dj->end_col[o];
			cols[1] = sm->first_col[d];
			vals[0] = 1;
			vals[1] = -1;
			int n = dur_terms(sm, o, cols, vals, 2);
			milp_add_row(m, n, cols, vals, (double)g->dur[o], MILP_INF, "first_%d", o);
		}
		if (g->dev_last[o]) {
			int c[2] = {sm->last_col[d], dj->end_col[o]};
			double v[2] = {1, -1};
			milp_add_row(m, 2, c, v, 0, MILP_INF, "last_%d", o);
		}
	}
	objective_span_rows(sm);
}

/* Savings terms of the energetic rows in all, past which each device's
 * pairs' savings go into one column (savings_columns). Measured: zb-gpt
 * 28.3b p32 m256 with overlap has some 7,400 candidates on each of its 32
 * devices of 768 ops, 180 million terms written out. */
#define ENERGY_SAVING_TERMS 4000000L

/* The candidates of each device, for the energetic rows; false when
 * memory runs out. */
static bool device_candidates(const struct sched_milp *sm, struct csr *c)
{
	const struct disjunctive *dj = sm->data;
	int *dev = malloc((dj->nfb + 1) * sizeof *dev);
	if (!dev)
		return false;
	for (int q = 0; q < dj->nfb; q++)
		dev[q] = sm->g->device[dj->pair[dj->fb[q]][0]];
	bool ok = csr_build(sm->in->devices, dj->nfb, 1, dev, c);
	free(dev);
	return ok;
}

/* One column per device with candidates, sav_d = sum_q s_q z_q over its
 * candidates (an equality row); -1 for the others. */
static int *savings_columns(struct sched_milp *sm, const struct csr *devc)
{
	const struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	int D = sm->in->devices;
	int *col = malloc(D * sizeof *col);
	int *cols = malloc((dj->nfb + 1) * sizeof *cols);
	double *vals = malloc((dj->nfb + 1) * sizeof *vals);
	if (!col || !cols || !vals) {
		free(col);
		free(cols);
		free(vals);
		return NULL;
	}
	for (int d = 0; d < D; d++) {
		col[d] = -1;
		if (devc->start[d] == devc->start[d + 1])
			continue;
		int n = 0;
		double most = 0;
		cols[n] = col[d] = milp_add_col(sm->milp, 0, MILP_INF, 0, false, "sav_%d", d);
		vals[n++] = 1;
		for (int e = devc->start[d]; e < devc->start[d + 1]; e++) {
			int q = devc->list[e], a = dj->pair[dj->fb[q]][0], b = dj->pair[dj->fb[q]][1];
			double save = (double)(g->dur[a] + g->dur[b] - dj->fb_dur[q]);
			cols[n] = dj->fb_col[q];
			vals[n++] = -save;
			most += save;
		}
		sm->milp->cols[col[d]].ub = most;
		milp_add_row(sm->milp, n, cols, vals, 0, 0, "sav_%d", d);
	}
	free(cols);
	free(vals);
	return col;
}

/*
 * Energetic cut (Zero Bubble's): everything that follows op i on its
 * device still runs after E_i, so
 *     C >= E_i + sum_{k after i, fixed} T_k + sum_{open (i,k)} T_k [i before k]
 * (for the span, C is S + first_d). One row per op; with the device's
 * provably first op it is the device-load bound first start + load.
 *
 * With overlapped pairs the ops after i take at least their costs less
 * what their pairs save, s_q = T_a + T_b - D_q for each pair q of two of
 * them; the row subtracts s_q z_q for every candidate whose two ops may
 * both follow i (neither precedes i nor is i: a superset, so still a
 * bound). And when i is the F of a pair with k, k runs with i, not after
 * it (z_q forces y to "i first"): its term is T_k ([i before k] - z_q).
 * Past ENERGY_SAVING_TERMS such terms in all, each row subtracts its
 * device's whole savings column instead (a larger superset, one term).
 *
 * And with candidates, two more rows per op, one per side of the pairs
 * (energetic_rows): a pair is one F and one B, so the device's ops other than
 * its F's (or other than its B's) never share an interval, and with i
 * among them
 *     C >= E_i + sum_{k after i, fixed, kind(k) != X} T_k
 *              + sum_{open (i,k), kind(k) != X} T_k [i before k],
 * X = F (energy_nf_i) or B (energy_nb_i): full costs, no savings
 * (sched/bound.c's argument for the device bound with pairs). Where the
 * pairs may save much, one side alone is the stronger count.
 */
/* The terms of op i's energetic row (above) in cols, vals, its right-hand
 * side in *rhs; the count. skip < 0: every op of the device, less what
 * pairs may save; skip = F or B: the side without that kind. */
static int energetic_row(const struct sched_milp *sm, const struct csr *ix,
			 const struct csr *devc, const int *sav, int i, int skip, int *cols,
			 double *vals, double *rhs)
{
	const struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	int d = g->device[i], n = 0;
	*rhs = 0;
	for (int k = 0; k < g->n; k++)
		if (g->device[k] == d && kind_of(sm, k) != skip && opgraph_precedes(g, i, k))
			*rhs += (double)g->dur[k];
	cols[n] = sm->obj_col;
	vals[n++] = 1;
	cols[n] = dj->end_col[i];
	vals[n++] = -1;
	if (sm->in->objective == OBJ_SPAN) {
		cols[n] = sm->first_col[d];
		vals[n++] = 1;
	}
	for (int e = ix->start[i]; e < ix->start[i + 1]; e++) {
		int p = ix->list[e];
		int other = dj->pair[p][0] == i ? dj->pair[p][1] : dj->pair[p][0];
		if (kind_of(sm, other) == skip)
			continue;
		double T = (double)g->dur[other];
		cols[n] = dj->pair_col[p];
		if (dj->pair[p][0] == i) {
			vals[n++] = -T;          /* i = a runs first when y = 1 */
		} else {
			vals[n++] = T;           /* i = b runs first when y = 0 */
			*rhs += T;
		}
		if (skip < 0 && dj->fb_of[p] >= 0 && kind_of(sm, i) == OP_F) {
			cols[n] = dj->fb_col[dj->fb_of[p]];
			vals[n++] = T;   /* paired with i: not after it */
		}
	}
	if (skip >= 0)
		return n;   /* one side: no pair among its ops */
	if (sav && sav[d] >= 0) {   /* every pair of the device: a superset */
		cols[n] = sav[d];
		vals[n++] = 1;
	}
	for (int e = devc->start[d]; !sav && e < devc->start[d + 1]; e++) {
		int q = devc->list[e], a = dj->pair[dj->fb[q]][0], b = dj->pair[dj->fb[q]][1];
		if (a == i || b == i || opgraph_precedes(g, a, i) || opgraph_precedes(g, b, i))
			continue;
		cols[n] = dj->fb_col[q];
		vals[n++] = (double)(g->dur[a] + g->dur[b] - dj->fb_dur[q]);
	}
	return n;
}

static void energetic_rows(struct sched_milp *sm, const struct csr *ix)
{
	const struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	struct milp *m = sm->milp;
	if (!dj->pair_col)
		return;   /* out of memory, marked */
	struct csr devc;
	if (!device_candidates(sm, &devc)) {
		m->failed = true;
		return;
	}
	long terms = 0;
	for (int o = 0; o < g->n; o++)
		terms += devc.start[g->device[o] + 1] - devc.start[g->device[o]];
	int *sav = terms > ENERGY_SAVING_TERMS ? savings_columns(sm, &devc) : NULL;
	int width = dj->npairs + dj->nfb + 4;
	int *cols = malloc(width * sizeof(int));
	double *vals = malloc(width * sizeof(double));
	if (!cols || !vals || (terms > ENERGY_SAVING_TERMS && !sav)) {
		m->failed = true;
		free(cols);
		free(vals);
		csr_free(&devc);
		free(sav);
		return;
	}
	static const int skips[] = {-1, OP_F, OP_B};   /* every op; each side alone */
	static const char *const names[] = {"energy_%d", "energy_nf_%d", "energy_nb_%d"};
	/* the sides on every device, also where no pair can form and they are
	 * subsets of the first row: measured, CBC certifies bench/overlap-
	 * exact.sh's ov03 (83) in 15.9 s with them, and ends 84/83 at 60 s
	 * without the 30 implied ones */
	int sides = dj->nfb > 0 ? 3 : 1;
	for (int i = 0; i < g->n; i++)
		for (int side = 0; side < sides; side++) {
			if (kind_of(sm, i) == skips[side])
				continue;
			double rhs;
			int n = energetic_row(sm, ix, &devc, sav, i, skips[side], cols, vals, &rhs);
			if (rhs > 0)
				milp_add_row(m, n, cols, vals, rhs, MILP_INF, names[side], i);
		}
	free(cols);
	free(vals);
	csr_free(&devc);
	free(sav);
}

static enum status disjunctive_build(struct sched_milp *sm, struct error *err)
{
	struct csr ix = {0};
	struct disjunctive *dj = sm->data = calloc(1, sizeof(struct disjunctive));
	if (!dj)
		return err_set(err, "formulation: out of memory");
	if (open_pairs(sm, err) || pair_candidates(sm, err) || window_pairs(sm, err) ||
	    end_columns(sm, err) || recompute_columns(sm, err) || offload_columns(sm, err))
		return STATUS_ERROR;
	/* row buffers: three ops' columns, a binary or two, and one op's z's */
	int width = most_pairs(sm) + 6;
	int *cols = malloc(width * sizeof *cols);
	double *vals = malloc(width * sizeof *vals);
	if (!cols || !vals || !index_pairs(sm, &ix)) {
		free(cols);
		free(vals);
		csr_free(&ix);
		return err_set(err, "formulation: out of memory");
	}
	objective_columns(sm);
	binary_columns(sm);
	if (offload_pairs(sm, err)) {
		free(cols);
		free(vals);
		csr_free(&ix);
		return STATUS_ERROR;
	}
	precedence_rows(sm, cols, vals);
	order_rows(sm, cols, vals);
	offload_rows(sm);
	one_pair_rows(sm, cols, vals);
	memory_rows(sm, &ix);
	objective_rows(sm, cols, vals);
	energetic_rows(sm, &ix);
	free(cols);
	free(vals);
	csr_free(&ix);
	return STATUS_OK;
}

/* Whether ops a and b are listed as one overlapped pair: next to each
 * other on their device (pos from positions()), the later marked with_prev. */
static bool paired_in(const struct sched_milp *sm, const struct schedule *s, int a, int b,
		      const int *pos)
{
	if (pos[a] < 0 || pos[b] < 0 || (pos[a] - pos[b] != 1 && pos[b] - pos[a] != 1))
		return false;
	int later = pos[a] > pos[b] ? a : b;
	return s->rows[sm->g->device[later]].ops[pos[later]].with_prev;
}

/* Position of each op in its device's order, and of each copy (offload or
 * reload) at n + its index; -1 if absent. */
static int *positions(const struct sched_milp *sm, const struct schedule *s)
{
	const struct instance *in = sm->in;
	int n = sm->g->n, copies = 2 * in->stages * in->microbatches;
	int *pos = malloc((n + copies) * sizeof(int));
	if (!pos)
		return NULL;
	for (int i = 0; i < n + copies; i++)
		pos[i] = -1;
	for (int d = 0; d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			pos[op_on_channel(o->kind) ? n + inst_copy_index(in, o->kind == OP_L, o->stage, o->mb) :
						     inst_op_id(in, o->kind, o->stage, o->mb)] = i;
		}
	return pos;
}

/* A schedule's point: its end times, and y_ab = 1 when a comes first on
 * the device; an overlapped pair of the schedule sets its z and puts its F
 * first (its two ops are next to each other in the row, so every other
 * op's y is the same either way). */
/* The copies' part of a schedule's point (pos from positions()): u and
 * the copies' ends from the run, the listing binaries from the row, the
 * products. A copy not listed takes its column's lower bound, is listed
 * before every op it may be (the rules that read it are relaxed by u = 0,
 * and its reload's memory row then counts only its own F); an offload of
 * a (stage, micro-batch) without a u lies outside. */
static bool offload_point(const struct sched_milp *sm, const struct sim_result *r,
			  const int *pos, double *x)
{
	const struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	const struct milp *m = sm->milp;
	int n = sm->g->n, LM = in->stages * in->microbatches;
	for (int i = 0; i < LM; i++) {
		bool listed = pos[n + i] >= 0;
		if (dj->u_col[i] < 0) {
			if (listed)
				return false;
			continue;
		}
		x[dj->u_col[i]] = listed;
		for (int c = 0; c < 2; c++) {
			int h = c * LM + i;
			x[dj->copy_col[h]] = listed ? (double)r->copy_end[h] : m->cols[dj->copy_col[h]].lb;
		}
	}
	for (int i = 0; i < dj->ncross; i++) {
		const struct cross_pair *c = &dj->cross[i];
		bool listed = pos[n + c->copy] >= 0;
		x[c->x] = listed ? pos[c->op] < pos[n + c->copy] : m->cols[c->x].lb;
		if (c->w >= 0)
			x[c->w] = x[c->x] * x[copy_u(sm, c->copy)];
	}
	for (int i = 0; i < dj->nchan; i++) {
		const struct chan_pair *c = &dj->chan[i];
		bool la = pos[n + c->a] >= 0, lb = pos[n + c->b] >= 0;
		/* a copy not listed goes first: its reload row counts nothing */
		x[c->v] = la && lb ? pos[n + c->a] < pos[n + c->b] : la != lb ? !la :
			  m->cols[c->v].lb;
		x[c->wa] = x[c->v] * x[copy_u(sm, c->a)];
		x[c->wb] = x[c->v] * x[copy_u(sm, c->b)];
	}
	return true;
}

static bool disjunctive_point(const struct sched_milp *sm, const struct schedule *s,
			      const struct sim_result *r, double *x)
{
	const struct disjunctive *dj = sm->data;
	int *pos = positions(sm, s);
	bool ok = true;
	if (!pos)
		return false;
	for (int o = 0; o < sm->g->n; o++)
		x[dj->end_col[o]] = (double)r->end[o];
	for (int p = 0; p < dj->npairs; p++) {
		int a = dj->pair[p][0], b = dj->pair[p][1], q = dj->fb_of[p];
		bool together = q >= 0 && paired_in(sm, s, a, b, pos);
		x[dj->pair_col[p]] = together ? kind_of(sm, a) == OP_F : pos[a] < pos[b];
		if (q >= 0)
			x[dj->fb_col[q]] = together;
	}
	/* recompute: r from the B's mark, w = y r */
	for (int d = 0; d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			if (op_on_channel(o->kind))
				continue;
			int id = inst_op_id(sm->in, o->kind, o->stage, o->mb);
			if (o->kind == OP_B && dj->rc_col[id] >= 0)
				x[dj->rc_col[id]] = o->recompute;
			else if (o->recompute)
				ok = false;   /* a mark the model cannot hold */
		}
	for (int p = 0; p < dj->npairs && dj->w_col; p++)
		for (int t = 0; t < 2; t++)
			if (dj->w_col[p][t] >= 0)
				x[dj->w_col[p][t]] = x[dj->pair_col[p]] * x[dj->rc_col[dj->pair[p][t]]];
	if (ok && offload_modelled(sm))
		ok = offload_point(sm, r, pos, x);
	free(pos);
	return ok;
}

/* A solution's times: E_o, and E_o - dur_o. */
static void disjunctive_times(const struct sched_milp *sm, const double *x, int o,
			      double *start, double *end)
{
	const struct disjunctive *dj = sm->data;
	*end = x[dj->end_col[o]];
	*start = *end - dur_at(sm, x, o);
}

/* The op that runs with o as one overlapped pair in x, or -1. */
static int disjunctive_partner(const struct sched_milp *sm, const double *x, int o)
{
	const struct disjunctive *dj = sm->data;
	for (int e = 0; e < pairs_of(dj, o); e++) {
		int q = dj->fb_of_op.list[dj->fb_of_op.start[o] + e];
		if (x[dj->fb_col[q]] > 0.5) {
			const int *p = dj->pair[dj->fb[q]];
			return p[0] == o ? p[1] : p[0];
		}
	}
	return -1;
}

/* Whether copy h goes before compute op o in device d's decoded row: by
 * their keys (a reload at its start, an offload at its end; a compute op
 * that frees memory at its end, another at its start), ties by the
 * listing binary, else an op's own copies in the chain's order, else a
 * copy that frees first. */
static bool copy_before(const struct sched_milp *sm, const double *x, int h, const struct op *o)
{
	const struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	int k = inst_op_id(in, o->kind, o->stage, o->mb);
	double ek = x[dj->end_col[k]], eh = x[dj->copy_col[h]];
	double key_k = inst_delta(in, o->kind, o->stage) < 0 ? ek : ek - (double)sm->g->dur[k];
	double key_h = copy_is_reload(sm, h) ? eh - (double)copy_dur(sm, h) : eh;
	if (fabs(key_h - key_k) > 1e-6)
		return key_h < key_k;
	const struct cross_pair *c = cross_of(dj, k, h);
	if (c)
		return x[c->x] < 0.5;
	if (copy_stage(sm, h) == o->stage && copy_mb(sm, h) == o->mb)
		return o->kind != OP_F;
	return !copy_is_reload(sm, h);
}

/* Whether copy a runs before copy b on their channel in x: by start, and
 * at equal starts (zero-length copies) by their binary v. */
static bool channel_before(const struct sched_milp *sm, const double *x, int a, int b)
{
	const struct disjunctive *dj = sm->data;
	double sa = x[dj->copy_col[a]] - (double)copy_dur(sm, a);
	double sb = x[dj->copy_col[b]] - (double)copy_dur(sm, b);
	if (fabs(sa - sb) > 1e-6)
		return sa < sb;
	for (int e = dj->chan_of_copy.start[a]; e < dj->chan_of_copy.start[a + 1]; e++) {
		const struct chan_pair *c = &dj->chan[dj->chan_of_copy.list[e]];
		if (c->b == b || c->a == b)   /* the pair of a and b */
			return (x[c->v] > 0.5) == (c->a == a);
	}
	return a < b;
}

/* Device d's copies in x, merged into its decoded row of compute ops. */
static enum status disjunctive_copies(const struct sched_milp *sm, const double *x,
				      struct schedule *s, int d)
{
	const struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	if (!offload_modelled(sm))
		return STATUS_OK;
	int H = 2 * in->stages * in->microbatches, nh = 0;
	struct sched_row *row = &s->rows[d];
	int *hs = malloc(H * sizeof *hs);
	struct op *ops = malloc((row->len + 1) * sizeof *ops);
	if (!hs || !ops) {
		free(hs);
		free(ops);
		return STATUS_ERROR;
	}
	for (int h = 0; h < H; h++)
		if (dj->copy_col[h] >= 0 && copy_device(sm, h) == d && x[copy_u(sm, h)] > 0.5)
			hs[nh++] = h;
	for (int a = 1; a < nh; a++)   /* in the channel's order */
		for (int b = a; b > 0 && channel_before(sm, x, hs[b], hs[b - 1]); b--) {
			int t = hs[b];
			hs[b] = hs[b - 1];
			hs[b - 1] = t;
		}
	int n = row->len, i = 0, q = 0;
	memcpy(ops, row->ops, n * sizeof *ops);
	row->len = 0;
	enum status st = STATUS_OK;
	while (!st && (i < n || q < nh)) {
		if (q < nh && (i == n || copy_before(sm, x, hs[q], &ops[i]))) {
			int h = hs[q++];
			st = schedule_push(s, d, copy_is_reload(sm, h) ? OP_L : OP_O,
					   copy_stage(sm, h), copy_mb(sm, h));
		} else {
			st = schedule_push(s, d, ops[i].kind, ops[i].stage, ops[i].mb);
			i++;
		}
	}
	free(hs);
	free(ops);
	return st;
}

/* Whether B op o rebuilds its dropped activations in x. */
static bool disjunctive_recomputed(const struct sched_milp *sm, const double *x, int o)
{
	return rebuilds(sm, o) && x[((const struct disjunctive *)sm->data)->rc_col[o]] > 0.5;
}

/* The order of an open pair is its binary: y_ab = 1 puts a first (an
 * overlapped pair's F first, as its z forces). */
static int disjunctive_tie(const struct sched_milp *sm, const double *x, int a, int b)
{
	const struct disjunctive *dj = sm->data;
	for (int p = 0; p < dj->npairs; p++) {
		if (dj->pair[p][0] == a && dj->pair[p][1] == b)
			return x[dj->pair_col[p]] > 0.5 ? -1 : 1;
		if (dj->pair[p][0] == b && dj->pair[p][1] == a)
			return x[dj->pair_col[p]] > 0.5 ? 1 : -1;
	}
	return 0;
}

static void disjunctive_free(void *data)
{
	struct disjunctive *dj = data;
	if (!dj)
		return;
	free(dj->end_col);
	free(dj->pair);
	free(dj->pair_col);
	free(dj->start_lb);
	free(dj->end_ub);
	free(dj->fixed);
	free(dj->fb);
	free(dj->fb_of);
	free(dj->fb_col);
	free(dj->fb_dur);
	csr_free(&dj->fb_of_op);
	free(dj->max_dur);
	free(dj->rc_col);
	free(dj->w_col);
	free(dj->u_col);
	free(dj->copy_col);
	free(dj->cross);
	free(dj->chan);
	csr_free(&dj->cross_of_op);
	csr_free(&dj->cross_of_copy);
	csr_free(&dj->chan_of_copy);
	free(dj);
}

const struct formulation formulation_disjunctive = {
	.name = "disjunctive",
	.summary = "end times and an ordering binary per open same-device pair (big-M)",
	.build = disjunctive_build,
	.point = disjunctive_point,
	.times = disjunctive_times,
	.tie = disjunctive_tie,
	.partner = disjunctive_partner,
	.recomputed = disjunctive_recomputed,
	.copies = disjunctive_copies,
	.free_data = disjunctive_free,
	.pairs = true,
	.recompute = true,
	.offload = true,
};
