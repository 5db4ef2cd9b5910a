/* The 1-periodic schedule model (periodic.h). */
#include "formulate/periodic.h"

#include <math.h>
#include <stdlib.h>

bool periodic_takes(const struct instance *in)
{
	if (in->objective != OBJ_MAKESPAN || inst_has_decisions(in))
		return false;
	for (int l = 0; l < in->stages; l++) {
		int64_t f = inst_delta(in, OP_F, l), b = inst_delta(in, OP_B, l);
		int64_t w = in->kinds == 3 ? inst_delta(in, OP_W, l) : 0;
		if (f < 0 || f + b < 0 || f + b + w != 0)
			return false;
	}
	return true;
}

int64_t periodic_min_period(const struct instance *in)
{
	int64_t best = 1;
	int64_t *work = calloc(in->devices, sizeof *work);
	for (int k = 0; k < in->kinds; k++)
		for (int l = 0; l < in->stages; l++) {
			int64_t d = inst_duration(in, k, l);
			best = d > best ? d : best;
			if (work)
				work[in->stage_device[l]] += d;
		}
	for (int d = 0; work && d < in->devices; d++)
		best = work[d] > best ? work[d] : best;
	free(work);
	return best;
}

static int op_kind(const struct periodic_milp *pm, int o)
{
	return o / pm->in->stages;
}

static int op_stage(const struct periodic_milp *pm, int o)
{
	return o % pm->in->stages;
}

static int64_t op_dur(const struct periodic_milp *pm, int o)
{
	return inst_duration(pm->in, op_kind(pm, o), op_stage(pm, o));
}

static int op_device(const struct periodic_milp *pm, int o)
{
	return pm->in->stage_device[op_stage(pm, o)];
}

/* t_b - t_a >= lag, with t = theta_d + phi + P k. */
static void after(struct periodic_milp *pm, int a, int b, int64_t lag)
{
	double P = (double)pm->period;
	int cols[6] = {pm->theta[op_device(pm, b)], pm->phi[b], pm->k[b],
		       pm->theta[op_device(pm, a)], pm->phi[a], pm->k[a]};
	double vals[6] = {1, 1, P, -1, -1, -P};
	milp_add_row(pm->m, 6, cols, vals, (double)lag, MILP_INF, "dep_%d_%d", a, b);
}

/* The dependencies of one micro-batch (periodic.h). */
static void dependencies(struct periodic_milp *pm)
{
	const struct instance *in = pm->in;
	int L = in->stages;
	for (int l = 0; l < L; l++) {
		for (int i = in->succ_start[l]; i < in->succ_start[l + 1]; i++) {
			int s = in->succ[i].stage;
			after(pm, OP_F * L + l, OP_F * L + s, inst_duration(in, OP_F, l) + in->succ[i].lag);
			after(pm, OP_B * L + s, OP_B * L + l, inst_duration(in, OP_B, s) + in->succ[i].lag);
		}
		after(pm, OP_F * L + l, OP_B * L + l, inst_duration(in, OP_F, l));
		if (in->kinds == 3)
			after(pm, OP_B * L + l, OP_W * L + l, inst_duration(in, OP_B, l));
	}
}

/*
 * One device's ordering binaries and memory rows. ops[0..n) are its ops;
 * y[i * n + j] (i < j) the binary "ops[i] before ops[j]" in the period.
 */
static void device_rows(struct periodic_milp *pm, int d, const int *ops, int n, int *y)
{
	const struct instance *in = pm->in;
	double P = (double)pm->period;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			int a = ops[i], b = ops[j];
			int c = y[i * n + j] = milp_add_col(pm->m, 0, 1, 0, true, "y_%d_%d", a, b);
			/* phi_b - phi_a - P y >= dur_a - P; phi_a - phi_b + P y >= dur_b */
			int c1[3] = {pm->phi[b], pm->phi[a], c};
			double v1[3] = {1, -1, -P};
			milp_add_row(pm->m, 3, c1, v1, (double)op_dur(pm, a) - P, MILP_INF,
				     "order_%d_%d", a, b);
			double v2[3] = {-1, 1, P};
			milp_add_row(pm->m, 3, c1, v2, (double)op_dur(pm, b), MILP_INF,
				     "order_%d_%d_", a, b);
		}
	if (!in->has_limit)
		return;
	int *cols = malloc(2 * n * sizeof *cols);
	double *vals = malloc(2 * n * sizeof *vals);
	if (!cols || !vals) {
		pm->m->failed = true;
		free(cols);
		free(vals);
		return;
	}
	for (int x = 0; x < n; x++) {
		/* sum_o -delta_o k_o + sum_{o != x} delta_o [o before x]
		 *   <= limit - delta_x - (the constant parts of [o before x]) */
		int len = 0;
		double rhs = (double)in->limit[d];
		for (int i = 0; i < n; i++) {
			int o = ops[i];
			double dl = (double)inst_delta(in, op_kind(pm, o), op_stage(pm, o));
			cols[len] = pm->k[o];
			vals[len++] = -dl;
			if (i == x) {
				rhs -= dl;
			} else if (i < x) {            /* o before x iff y[i][x] */
				cols[len] = y[i * n + x];
				vals[len++] = dl;
			} else {                       /* o before x iff not y[x][i] */
				rhs -= dl;
				cols[len] = y[x * n + i];
				vals[len++] = -dl;
			}
		}
		milp_add_row(pm->m, len, cols, vals, -MILP_INF, rhs, "mem_%d_%d", d, ops[x]);
	}
	free(cols);
	free(vals);
}

struct periodic_milp *periodic_milp_build(const struct instance *in, int64_t period,
					  struct error *err)
{
	struct periodic_milp *pm = calloc(1, sizeof *pm);
	if (!pm)
		goto oom;
	pm->in = in;
	pm->period = period;
	pm->nops = in->kinds * in->stages;
	pm->m = milp_new();
	pm->theta = malloc(in->devices * sizeof *pm->theta);
	pm->phi = malloc(pm->nops * sizeof *pm->phi);
	pm->k = malloc(pm->nops * sizeof *pm->k);
	int *ops = malloc(pm->nops * sizeof *ops);
	int *y = malloc((size_t)pm->nops * pm->nops * sizeof *y);
	if (!pm->m || !pm->theta || !pm->phi || !pm->k || !ops || !y) {
		free(ops);
		free(y);
		goto oom;
	}
	double P = (double)period;
	/* k_o: the period an op falls in, up to 4 L. A bound restricts the
	 * model (a latency beyond 4 L periods, with lags far above P, is
	 * left out), never its validity. Bounds from the serial latency S
	 * (S / P + 4 L, S / P + L) were tried: CBC's path changed and the
	 * 10 s search missed period 246 on the DeepSeek-like instance,
	 * which it finds with 4 L */
	double kmax = 4.0 * in->stages;
	for (int d = 0; d < in->devices; d++)
		pm->theta[d] = milp_add_col(pm->m, 0, P, 0, false, "theta_%d", d);
	for (int o = 0; o < pm->nops; o++) {
		pm->phi[o] = milp_add_col(pm->m, 0, P - (double)op_dur(pm, o), 0, false, "phi_%d", o);
		pm->k[o] = milp_add_col(pm->m, 0, kmax, 0, true, "k_%d", o);
	}
	pm->z = milp_add_col(pm->m, 0, MILP_INF, 1, false, "Z");
	dependencies(pm);
	for (int o = 0; o < pm->nops; o++) {   /* Z >= t_o + dur_o */
		int cols[4] = {pm->z, pm->theta[op_device(pm, o)], pm->phi[o], pm->k[o]};
		double vals[4] = {1, -1, -1, -P};
		milp_add_row(pm->m, 4, cols, vals, (double)op_dur(pm, o), MILP_INF, "latency_%d", o);
	}
	for (int d = 0; d < in->devices; d++) {
		int n = 0;
		for (int o = 0; o < pm->nops; o++)
			if (op_device(pm, o) == d)
				ops[n++] = o;
		device_rows(pm, d, ops, n, y);
	}
	free(ops);
	free(y);
	if (milp_check(pm->m, err)) {
		periodic_milp_free(pm);
		return NULL;
	}
	return pm;
oom:
	periodic_milp_free(pm);
	err_set(err, "periodic model: out of memory");
	return NULL;
}

void periodic_milp_free(struct periodic_milp *pm)
{
	if (!pm)
		return;
	milp_free(pm->m);
	free(pm->theta);
	free(pm->phi);
	free(pm->k);
	free(pm);
}

struct unrolled {
	double start;
	int kind, stage, mb;
};

static int cmp_unrolled(const void *a, const void *b)
{
	const struct unrolled *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->stage != y->stage)
		return x->stage - y->stage;
	return x->mb - y->mb;
}

struct schedule *periodic_unroll(const struct periodic_milp *pm, const double *x)
{
	const struct instance *in = pm->in;
	int M = in->microbatches;
	struct unrolled *u = malloc((size_t)pm->nops * M * sizeof *u);
	struct schedule *s = schedule_new(in->devices);
	if (!u || !s)
		goto fail;
	for (int d = 0; d < in->devices; d++) {
		int n = 0;
		for (int o = 0; o < pm->nops; o++) {
			if (op_device(pm, o) != d)
				continue;
			double t = x[pm->theta[d]] + x[pm->phi[o]] +
				   (double)pm->period * round(x[pm->k[o]]);
			for (int j = 0; j < M; j++)
				u[n++] = (struct unrolled){t + (double)pm->period * j, op_kind(pm, o),
							   op_stage(pm, o), j};
		}
		qsort(u, n, sizeof *u, cmp_unrolled);
		for (int i = 0; i < n; i++)
			if (schedule_push(s, d, u[i].kind, u[i].stage, u[i].mb))
				goto fail;
	}
	free(u);
	return s;
fail:
	free(u);
	schedule_free(s);
	return NULL;
}
