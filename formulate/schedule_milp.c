/* The parts every schedule formulation shares: building, MIP-start
 * points and decoding (see schedule_milp.h); the formulation's own parts
 * are reached through its table (formulation.h). */
#include "formulate/schedule_milp.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulate/objective.h"

struct sched_milp *sched_milp_build(const struct instance *in,
				    const struct opgraph *g,
				    const struct formulation *form, int64_t horizon,
				    int64_t lower, int64_t upper,
				    struct error *err)
{
	assert(form);
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
	enum status st = form->build(sm, err);
	if (st == STATUS_OK && milp_check(sm->milp, err))
		st = STATUS_ERROR;
	if (st) {
		sched_milp_free(sm);
		return NULL;
	}
	return sm;
}

void sched_milp_free(struct sched_milp *sm)
{
	if (!sm)
		return;
	milp_free(sm->milp);
	free(sm->first_col);
	free(sm->last_col);
	sm->form->free_data(sm->data);
	free(sm);
}

bool sched_milp_point(const struct sched_milp *sm, const struct schedule *s,
		      const struct sim_result *r, double *x)
{
	memset(x, 0, sm->milp->ncols * sizeof *x);
	if (!sm->form->point(sm, s, r, x))
		return false;
	objective_point(sm, s, r, x);
	return milp_feasible(sm->milp, x, 1e-6, NULL);
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
	int t = sm->form->tie ? sm->form->tie(sm, x, a, b) : 0;
	if (t)
		return t < 0 ? -1 : 1;
	return (a > b) - (a < b);
}

/* By start time; among equal starts, zero-length ops (which free their
 * memory at once) first, then the solution's order (an overlapped pair's
 * two ops start together, its F first: decode joins them). */
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
				sm->form->times(sm, x, o, &ops[k].start, &ops[k].end);
				k++;
			}
		sort_ops(sm, x, ops, k);
		for (int i = 0; i < k; i++) {
			int o = ops[i].op;
			if (schedule_push(s, d, o / (L * M), o / M % L, o % M) ||
			    (i > 0 && sm->form->partner &&
			     sm->form->partner(sm, x, o) == ops[i - 1].op &&
			     schedule_join_last(s, d))) {
				free(ops);
				schedule_free(s);
				return err_set(err, "decode: out of memory");
			}
			if (sm->form->recomputed && sm->form->recomputed(sm, x, o))
				s->rows[d].ops[s->rows[d].len - 1].recompute = true;
		}
		if (sm->form->copies && sm->form->copies(sm, x, s, d)) {
			free(ops);
			schedule_free(s);
			return err_set(err, "decode: out of memory");
		}
	}
	free(ops);
	*out = s;
	return STATUS_OK;
}

json_t *sched_milp_map_json(const struct sched_milp *sm)
{
	const struct instance *in = sm->in;
	const int L = in->stages, M = in->microbatches;
	char digest[65];
	instance_digest(in, digest);
	json_t *ops = json_array(), *cols = json_array();
	for (int o = 0; o < sm->g->n; o++)
		json_array_append_new(ops, json_pack("{s:i,s:s,s:i,s:i,s:i,s:I}", "index", o,
			"kind", op_kind_name(o / (L * M)), "stage", o / M % L, "microbatch", o % M,
			"device", sm->g->device[o], "duration", (json_int_t)sm->g->dur[o]));
	for (int c = 0; c < sm->milp->ncols; c++)
		json_array_append_new(cols, json_string(sm->milp->cols[c].name));
	json_t *names = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}",
		"E_<kind><stage>_<microbatch>", "disjunctive: the end time of that op",
		"y_<a>_<b>", "disjunctive: 1 when op a runs before op b on their device (op indices)",
		"z_<a>_<b>", "disjunctive with F&B overlap: 1 when ops a and b run as one overlapped pair",
		"r<stage>_<microbatch>", "disjunctive with recompute: 1 when that micro-batch drops its activations on that stage after F and its B rebuilds them",
		"w_<a>_<b>_<o>", "disjunctive with recompute: y_<a>_<b> times op o's r (o is a or b)",
		"u<stage>_<microbatch>", "disjunctive with offload: 1 when that micro-batch's activations on that stage are offloaded and reloaded",
		"EO<stage>_<microbatch> | EL<stage>_<microbatch>", "disjunctive with offload: the end time of that offload or reload",
		"x_<op>_c<copy> | v_c<a>_c<b>", "disjunctive with offload: 1 when the op (the copy a) is listed before the copy (b); copy = (c * stages + stage) * microbatches + microbatch, c 0 for O, 1 for L",
		"wx_* | wa_* | wb_*", "disjunctive with offload: a listing binary times a copy's u",
		"x_<kind><stage>_<microbatch>_t<T>", "time-indexed: 1 when that op starts at time T",
		"Cmax | Span", "the objective: the makespan, or the longest per-device span",
		"first_<d> | last_<d>", "span: device d's first start and last end");
	return json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:s,s:o,s:o,s:o}",
		"instance", in->name, "instance_sha256", digest, "formulation", sm->form->name,
		"objective", in->objective == OBJ_SPAN ? "span" : "makespan",
		"horizon", (json_int_t)sm->horizon, "lower", (json_int_t)sm->lower,
		"upper", (json_int_t)sm->upper,
		"op_index", "index = kind * (stages * microbatches) + stage * microbatches + microbatch; kinds F = 0, B = 1, W = 2",
		"ops", ops, "columns", cols, "names", names);
}
