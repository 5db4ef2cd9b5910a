/* Shared parts of the schedule formulations: building, the objective's
 * columns, MIP-start points and decoding (see schedule_milp.h). */
#include "formulate/schedule_milp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *formulation_name(enum formulation f)
{
	return f == FORM_TIME_INDEXED ? "time-indexed" : "disjunctive";
}

struct sched_milp *sched_milp_build(const struct instance *in,
				    const struct opgraph *g,
				    enum formulation form, int64_t horizon,
				    int64_t lower, int64_t upper,
				    struct error *err)
{
	struct sched_milp *sm = calloc(1, sizeof *sm);
	if (!sm) {
		err_set(err, "formulation: out of memory");
		return NULL;
	}
	sm->in = in;
	sm->g = g;
	sm->form = form;
	sm->horizon = horizon;
	sm->lower = lower;
	sm->upper = upper;
	sm->milp = milp_new();
	sm->first_col = malloc(in->devices * sizeof(int));
	sm->last_col = malloc(in->devices * sizeof(int));
	if (!sm->milp || !sm->first_col || !sm->last_col) {
		sched_milp_free(sm);
		err_set(err, "formulation: out of memory");
		return NULL;
	}
	for (int d = 0; d < in->devices; d++)
		sm->first_col[d] = sm->last_col[d] = -1;
	enum status st = form == FORM_TIME_INDEXED ?
		time_indexed_build(sm, err) : disjunctive_build(sm, err);
	if (st == STATUS_OK && milp_check(sm->milp, err))
		st = STATUS_ERROR;
	if (st) {
		sched_milp_free(sm);
		return NULL;
	}
	return sm;
}

void sched_milp_objective_columns(struct sched_milp *sm)
{
	double lower = (double)sm->lower, upper = (double)sm->upper;
	struct milp *m = sm->milp;
	double H = (double)sm->horizon;
	if (sm->in->objective == OBJ_MAKESPAN) {
		sm->obj_col = milp_add_col(m, lower, upper, 1, false, "Cmax");
		return;
	}
	for (int d = 0; d < sm->in->devices; d++) {
		bool any = false;
		for (int o = 0; o < sm->g->n && !any; o++)
			any = sm->g->device[o] == d;
		if (!any)
			continue;
		sm->first_col[d] = milp_add_col(m, 0, H, 0, false, "first_%d", d);
		sm->last_col[d] = milp_add_col(m, 0, H, 0, false, "last_%d", d);
	}
	sm->obj_col = milp_add_col(m, lower, upper, 1, false, "Span");
}

void sched_milp_free(struct sched_milp *sm)
{
	if (!sm)
		return;
	milp_free(sm->milp);
	free(sm->first_col);
	free(sm->last_col);
	free(sm->end_col);
	free(sm->pair);
	free(sm->pair_col);
	free(sm->x_first);
	free(sm->t_lo);
	free(sm->t_hi);
	free(sm);
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

static void span_point(const struct sched_milp *sm, const struct schedule *s,
		       const struct sim_result *r, double *x)
{
	for (int d = 0; d < s->devices; d++) {
		if (sm->first_col[d] < 0 || !s->rows[d].len)
			continue;
		const struct op *f = &s->rows[d].ops[0];
		const struct op *l = &s->rows[d].ops[s->rows[d].len - 1];
		x[sm->first_col[d]] = (double)r->start[inst_op_id(sm->in, f->kind, f->stage, f->mb)];
		x[sm->last_col[d]] = (double)r->end[inst_op_id(sm->in, l->kind, l->stage, l->mb)];
	}
}

bool sched_milp_point(const struct sched_milp *sm, const struct schedule *s,
		      const struct sim_result *r, double *x)
{
	const struct milp *m = sm->milp;
	int *pos = positions(sm, s);
	if (!pos)
		return false;
	memset(x, 0, m->ncols * sizeof *x);
	if (sm->form == FORM_DISJUNCTIVE) {
		for (int o = 0; o < sm->g->n; o++)
			x[sm->end_col[o]] = (double)r->end[o];
		for (int p = 0; p < sm->npairs; p++)
			x[sm->pair_col[p]] = pos[sm->pair[p][0]] < pos[sm->pair[p][1]];
	} else {
		for (int o = 0; o < sm->g->n; o++) {
			int64_t t = r->start[o];
			if (t < sm->t_lo[o] || t > sm->t_hi[o]) {
				free(pos);
				return false;
			}
			x[sm->x_first[o] + (t - sm->t_lo[o])] = 1;
		}
	}
	free(pos);
	x[sm->obj_col] = (double)r->objective;
	if (sm->in->objective == OBJ_SPAN)
		span_point(sm, s, r, x);
	return milp_feasible(m, x, 1e-6, NULL);
}

/* Start and end time of op o in a solution. */
static void op_times(const struct sched_milp *sm, const double *x, int o,
		     double *start, double *end)
{
	if (sm->form == FORM_DISJUNCTIVE) {
		*end = x[sm->end_col[o]];
		*start = *end - (double)sm->g->dur[o];
		return;
	}
	double best = -1;
	int64_t t_best = sm->t_lo[o];
	for (int64_t t = sm->t_lo[o]; t <= sm->t_hi[o]; t++) {
		double v = x[sm->x_first[o] + (t - sm->t_lo[o])];
		if (v > best) {
			best = v;
			t_best = t;
		}
	}
	*start = (double)t_best;
	*end = *start + (double)sm->g->dur[o];
}

struct keyed_op {
	int op;
	double start, end;
};

/* Whether the solution puts a before b, for ops that start together. */
static int tie_order(const struct sched_milp *sm, const double *x, int a, int b)
{
	if (opgraph_precedes(sm->g, a, b))
		return -1;
	if (opgraph_precedes(sm->g, b, a))
		return 1;
	for (int p = 0; sm->form == FORM_DISJUNCTIVE && p < sm->npairs; p++) {
		if (sm->pair[p][0] == a && sm->pair[p][1] == b)
			return x[sm->pair_col[p]] > 0.5 ? -1 : 1;
		if (sm->pair[p][0] == b && sm->pair[p][1] == a)
			return x[sm->pair_col[p]] > 0.5 ? 1 : -1;
	}
	return (a > b) - (a < b);
}

/* By start time; among equal starts, zero-length ops (which free their
 * memory at once) first, then the solution's order. */
static int by_start(const struct sched_milp *sm, const double *x,
		    const struct keyed_op *a, const struct keyed_op *b)
{
	double ds = a->start - b->start;
	if (fabs(ds) > 1e-6)
		return ds < 0 ? -1 : 1;
	double da = a->end - a->start, db = b->end - b->start;
	if ((da < 1e-9) != (db < 1e-9))
		return da < 1e-9 ? -1 : 1;
	return tie_order(sm, x, a->op, b->op);
}

/* Insertion sort (a device has at most a few hundred ops here), with the
 * solution as context: no global state, so decoding is thread-safe. */
static void sort_ops(const struct sched_milp *sm, const double *x,
		     struct keyed_op *ops, int n)
{
	for (int i = 1; i < n; i++) {
		struct keyed_op v = ops[i];
		int j = i;
		while (j > 0 && by_start(sm, x, &ops[j - 1], &v) > 0) {
			ops[j] = ops[j - 1];
			j--;
		}
		ops[j] = v;
	}
}

enum status sched_milp_decode(const struct sched_milp *sm, const double *x,
			      struct schedule **out, struct error *err)
{
	const struct instance *in = sm->in;
	int n = sm->g->n, M = in->microbatches, L = in->stages;
	struct keyed_op *ops = malloc(n * sizeof *ops);
	struct schedule *s = schedule_new(in->devices);
	*out = NULL;
	if (!ops || !s) {
		free(ops);
		schedule_free(s);
		return err_set(err, "decode: out of memory");
	}
	for (int d = 0; d < in->devices; d++) {
		int k = 0;
		for (int o = 0; o < n; o++)
			if (sm->g->device[o] == d) {
				ops[k].op = o;
				op_times(sm, x, o, &ops[k].start, &ops[k].end);
				k++;
			}
		sort_ops(sm, x, ops, k);
		for (int i = 0; i < k; i++) {
			int o = ops[i].op;
			schedule_push(s, d, o / (L * M), o / M % L, o % M);
		}
	}
	free(ops);
	*out = s;
	return STATUS_OK;
}
