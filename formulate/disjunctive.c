/*
 * The disjunctive formulation: a continuous end time E_o per op, and an
 * ordering binary y_ab for every pair a < b of ops on one device whose order
 * the precedence graph (with FIFO and memory windows) leaves open; y_ab = 1
 * when a runs first. The closure keeps the binaries to the open pairs only.
 */
#include <stdlib.h>
#include <string.h>

#include "formulate/disjunctive.h"
#include "formulate/objective.h"
#include "formulate/schedule_milp.h"

static void op_label(const struct instance *in, int o, char *buf, size_t len)
{
	int M = in->microbatches, L = in->stages;
	snprintf(buf, len, "%s%d_%d", op_kind_name(o / (L * M)), o / M % L, o % M);
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
	if (sm->lower < sm->upper)
		return STATUS_OK;   /* not a target */
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
 *     E_k - E_i >= T_k + l
 * One row per arc.
 */
static void precedence_rows(struct sched_milp *sm)
{
	const struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	for (int k = 0; k < g->n; k++)
		for (int e = g->pred_start[k]; e < g->pred_start[k + 1]; e++) {
			int i = g->pred[e].op;
			int cols[2] = {dj->end_col[k], dj->end_col[i]};
			double vals[2] = {1, -1};
			milp_add_row(sm->milp, 2, cols, vals,
				     (double)(g->dur[k] + g->pred[e].lag), MILP_INF,
				     "prec_%d_%d", i, k);
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

/*
 * Device order: for an open pair (a, b), y = 1 when a runs first, and
 *     E_b - E_a >= T_b - M1 (1 - y)        (a first: b ends T_b after a)
 *     E_a - E_b >= T_a - M2 y              (b first)
 * with M1 = T_b + ub(E_a) - lb(E_b) and M2 = T_a + ub(E_b) - lb(E_a), the
 * least that makes a row vacuous when it does not apply (the columns'
 * bounds come from the horizon, never from a loose sum). One binary and
 * two rows per open pair.
 */
static void order_rows(struct sched_milp *sm)
{
	struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	struct milp *m = sm->milp;
	dj->pair_col = malloc((dj->npairs + 1) * sizeof(int));
	if (!dj->pair_col) {
		m->failed = true;
		return;
	}
	for (int p = 0; p < dj->npairs; p++) {
		int a = dj->pair[p][0], b = dj->pair[p][1];
		int ca = dj->end_col[a], cb = dj->end_col[b];
		double Ta = (double)g->dur[a], Tb = (double)g->dur[b];
		double M1 = Tb + m->cols[ca].ub - m->cols[cb].lb;
		double M2 = Ta + m->cols[cb].ub - m->cols[ca].lb;
		M1 = M1 > 0 ? M1 : 0;
		M2 = M2 > 0 ? M2 : 0;
		double lo = dj->fixed[p] == 1 ? 1 : 0, hi = dj->fixed[p] == 0 ? 0 : 1;
		int y = dj->pair_col[p] = milp_add_col(m, lo, hi, 0, true, "y_%d_%d", a, b);
		int c1[3] = {cb, ca, y}, c2[3] = {ca, cb, y};
		double v1[3] = {1, -1, -M1}, v2[3] = {1, -1, M2};
		milp_add_row(m, 3, c1, v1, Tb - M1, MILP_INF, "ord_%d_%d", a, b);
		milp_add_row(m, 3, c2, v2, Ta, MILP_INF, "ord_%d_%d_r", a, b);
	}
}

/* For each op, the open pairs it belongs to (CSR over ops). */
struct pair_index {
	int *start, *list;
};

static bool index_pairs(const struct sched_milp *sm, struct pair_index *ix)
{
	const struct disjunctive *dj = sm->data;
	int n = sm->g->n;
	ix->start = calloc(n + 1, sizeof(int));
	ix->list = malloc((2 * dj->npairs + 1) * sizeof(int));
	int *fill = calloc(n, sizeof(int));
	if (!ix->start || !ix->list || !fill) {
		free(fill);
		return false;
	}
	for (int p = 0; p < dj->npairs; p++) {
		ix->start[dj->pair[p][0] + 1]++;
		ix->start[dj->pair[p][1] + 1]++;
	}
	for (int o = 0; o < n; o++)
		ix->start[o + 1] += ix->start[o];
	for (int p = 0; p < dj->npairs; p++)
		for (int s = 0; s < 2; s++) {
			int o = dj->pair[p][s];
			ix->list[ix->start[o] + fill[o]++] = p;
		}
	free(fill);
	return true;
}

/*
 * Memory, right after op k starts (deltas are charged at the start):
 *     D_k + sum_{i precedes k} D_i + sum_{open pairs} D_i [i before k] <= limit
 * where [a before b] is y_ab and [b before a] is 1 - y_ab. Peaks follow
 * ops with a positive delta, so one row per such op, skipped when even the
 * worst order stays within the limit.
 */
static void memory_rows(struct sched_milp *sm, const struct pair_index *ix)
{
	const struct disjunctive *dj = sm->data;
	const struct instance *in = sm->in;
	const struct opgraph *g = sm->g;
	if (!in->has_limit || !in->has_memory)
		return;
	int M = in->microbatches, L = in->stages;
	int *cols = malloc((dj->npairs + 1) * sizeof(int));
	double *vals = malloc((dj->npairs + 1) * sizeof(double));
	if (!cols || !vals) {
		sm->milp->failed = true;
		free(cols);
		free(vals);
		return;
	}
	for (int k = 0; k < g->n; k++) {
		int64_t dk = inst_delta(in, k / (L * M), k / M % L);
		if (dk <= 0)
			continue;
		int d = g->device[k], n = 0;
		double fixed = (double)dk, worst;
		for (int i = 0; i < g->n; i++)
			if (g->device[i] == d && opgraph_precedes(g, i, k))
				fixed += (double)inst_delta(in, i / (L * M), i / M % L);
		for (int e = ix->start[k]; e < ix->start[k + 1]; e++) {
			int p = ix->list[e];
			int other = dj->pair[p][0] == k ? dj->pair[p][1] : dj->pair[p][0];
			double di = (double)inst_delta(in, other / (L * M), other / M % L);
			cols[n] = dj->pair_col[p];
			if (dj->pair[p][1] == k) {
				vals[n++] = di;          /* other = a: y */
			} else {
				fixed += di;             /* other = b: 1 - y */
				vals[n++] = -di;
			}
		}
		worst = fixed;
		for (int e = 0; e < n; e++)
			worst += vals[e] > 0 ? vals[e] : 0;
		if (worst <= (double)in->limit[d])
			continue;
		milp_add_row(sm->milp, n, cols, vals, -MILP_INF,
			     (double)in->limit[d] - fixed, "mem_%d", k);
	}
	free(cols);
	free(vals);
}

/*
 * Objective rows. Makespan: C >= E_o for every op no arc leaves.
 * Span: first_d <= E_o - T_o for ops that may start device d, last_d >= E_o
 * for ops that may end it, S >= last_d - first_d.
 */
static void objective_rows(struct sched_milp *sm)
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
		if (g->dev_first[o]) {
			int c[2] = {dj->end_col[o], sm->first_col[d]};
			double v[2] = {1, -1};
			milp_add_row(m, 2, c, v, (double)g->dur[o], MILP_INF, "first_%d", o);
		}
		if (g->dev_last[o]) {
			int c[2] = {sm->last_col[d], dj->end_col[o]};
			double v[2] = {1, -1};
			milp_add_row(m, 2, c, v, 0, MILP_INF, "last_%d", o);
		}
	}
	objective_span_rows(sm);
}

/*
 * Energetic cut (Zero Bubble's): everything that follows op i on its
 * device still runs after E_i, so
 *     C >= E_i + sum_{k after i, fixed} T_k + sum_{open (i,k)} T_k [i before k]
 * (for the span, C is S + first_d). One row per op; with the device's
 * provably first op it is the device-load bound first start + load.
 */
static void energetic_rows(struct sched_milp *sm, const struct pair_index *ix)
{
	const struct disjunctive *dj = sm->data;
	const struct opgraph *g = sm->g;
	struct milp *m = sm->milp;
	int *cols = malloc((dj->npairs + 3) * sizeof(int));
	double *vals = malloc((dj->npairs + 3) * sizeof(double));
	if (!cols || !vals) {
		m->failed = true;
		free(cols);
		free(vals);
		return;
	}
	for (int i = 0; i < g->n; i++) {
		int d = g->device[i], n = 0;
		double rhs = 0;
		for (int k = 0; k < g->n; k++)
			if (g->device[k] == d && opgraph_precedes(g, i, k))
				rhs += (double)g->dur[k];
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
			double T = (double)g->dur[other];
			cols[n] = dj->pair_col[p];
			if (dj->pair[p][0] == i) {
				vals[n++] = -T;          /* i = a runs first when y = 1 */
			} else {
				vals[n++] = T;           /* i = b runs first when y = 0 */
				rhs += T;
			}
		}
		if (rhs > 0)
			milp_add_row(m, n, cols, vals, rhs, MILP_INF, "energy_%d", i);
	}
	free(cols);
	free(vals);
}

static enum status disjunctive_build(struct sched_milp *sm, struct error *err)
{
	struct pair_index ix = {0};
	if (!(sm->data = calloc(1, sizeof(struct disjunctive))))
		return err_set(err, "formulation: out of memory");
	if (open_pairs(sm, err) || window_pairs(sm, err) || end_columns(sm, err))
		return STATUS_ERROR;
	objective_columns(sm);
	precedence_rows(sm);
	order_rows(sm);
	if (!index_pairs(sm, &ix)) {
		free(ix.start);
		free(ix.list);
		return err_set(err, "formulation: out of memory");
	}
	memory_rows(sm, &ix);
	objective_rows(sm);
	energetic_rows(sm, &ix);
	free(ix.start);
	free(ix.list);
	return STATUS_OK;
}

/* Position of each op in its device's order; -1 if absent. */
static int *positions(const struct sched_milp *sm, const struct schedule *s)
{
	int *pos = malloc(sm->g->n * sizeof(int));
	if (!pos)
		return NULL;
	for (int i = 0; i < sm->g->n; i++)
		pos[i] = -1;
	for (int d = 0; d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			pos[inst_op_id(sm->in, o->kind, o->stage, o->mb)] = i;
		}
	return pos;
}

/* A schedule's point: its end times, and y_ab = 1 when a comes first on
 * the device. */
static bool disjunctive_point(const struct sched_milp *sm, const struct schedule *s,
			      const struct sim_result *r, double *x)
{
	const struct disjunctive *dj = sm->data;
	int *pos = positions(sm, s);
	if (!pos)
		return false;
	for (int o = 0; o < sm->g->n; o++)
		x[dj->end_col[o]] = (double)r->end[o];
	for (int p = 0; p < dj->npairs; p++)
		x[dj->pair_col[p]] = pos[dj->pair[p][0]] < pos[dj->pair[p][1]];
	free(pos);
	return true;
}

/* A solution's times: E_o, and E_o - T_o. */
static void disjunctive_times(const struct sched_milp *sm, const double *x, int o,
			      double *start, double *end)
{
	const struct disjunctive *dj = sm->data;
	*end = x[dj->end_col[o]];
	*start = *end - (double)sm->g->dur[o];
}

/* The order of an open pair is its binary: y_ab = 1 puts a first. */
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
	free(dj);
}

const struct formulation formulation_disjunctive = {
	.name = "disjunctive",
	.summary = "end times and an ordering binary per open same-device pair (big-M)",
	.build = disjunctive_build,
	.point = disjunctive_point,
	.times = disjunctive_times,
	.tie = disjunctive_tie,
	.free_data = disjunctive_free,
};
