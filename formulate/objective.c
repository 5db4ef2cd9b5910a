/* The objective's columns, rows and point, shared by the formulations
 * (objective.h). */
#include "formulate/objective.h"

void objective_columns(struct sched_milp *sm)
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

void objective_span_rows(struct sched_milp *sm)
{
	for (int d = 0; d < sm->in->devices && sm->in->objective == OBJ_SPAN; d++) {
		if (sm->first_col[d] < 0)
			continue;
		int c[3] = {sm->obj_col, sm->last_col[d], sm->first_col[d]};
		double v[3] = {1, -1, 1};
		milp_add_row(sm->milp, 3, c, v, 0, MILP_INF, "span_%d", d);
	}
}

void objective_point(const struct sched_milp *sm, const struct schedule *s,
		     const struct sim_result *r, double *x)
{
	x[sm->obj_col] = (double)r->objective;
	if (sm->in->objective != OBJ_SPAN)
		return;
	for (int d = 0; d < s->devices; d++) {
		if (sm->first_col[d] < 0 || !s->rows[d].len)
			continue;
		const struct op *f = &s->rows[d].ops[0];
		const struct op *l = &s->rows[d].ops[s->rows[d].len - 1];
		x[sm->first_col[d]] = (double)r->start[inst_op_id(sm->in, f->kind, f->stage, f->mb)];
		x[sm->last_col[d]] = (double)r->end[inst_op_id(sm->in, l->kind, l->stage, l->mb)];
	}
}
