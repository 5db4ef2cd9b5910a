/*
 * The time-indexed formulation: x_{o,t} = 1 when op o starts at time t, for
 * t in o's window [head_o, H - T_o - tail_o] (integer times suffice: all
 * data are integers, and so are the times of an earliest-start schedule).
 * Its LP relaxation is far tighter than the big-M one when H is close to
 * the optimum; its size grows with H, so it suits small durations.
 */
#include <stdlib.h>
#include <string.h>

#include "formulate/objective.h"
#include "formulate/schedule_milp.h"
#include "formulate/time_indexed.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

long time_indexed_size(const struct opgraph *g, int64_t horizon)
{
	long n = 0;
	for (int o = 0; o < g->n; o++) {
		int64_t w = horizon - g->dur[o] - g->tail[o] - g->head[o] + 1;
		if (w < 1)
			return -1;   /* the horizon is infeasible */
		n += w;
		if (n > (1L << 40))
			break;
	}
	return n;
}

static int xcol(const struct sched_milp *sm, int o, int64_t t)
{
	const struct time_indexed *ti = sm->data;
	return ti->x_first[o] + (int)(t - ti->t_lo[o]);
}

/* Start windows and columns; sum_t x_{o,t} = 1 for each op (one row). */
static enum status start_columns(struct sched_milp *sm, struct error *err)
{
	struct time_indexed *ti = sm->data;
	const struct opgraph *g = sm->g;
	const struct instance *in = sm->in;
	int M = in->microbatches, L = in->stages;
	ti->x_first = malloc(g->n * sizeof(int));
	ti->t_lo = malloc(g->n * sizeof(int64_t));
	ti->t_hi = malloc(g->n * sizeof(int64_t));
	int64_t wmax = 1;
	for (int o = 0; o < g->n; o++)
		wmax = max64(wmax, sm->horizon - g->dur[o] - g->tail[o] - g->head[o] + 1);
	int *cols = malloc(wmax * sizeof(int));
	double *ones = malloc(wmax * sizeof(double));
	if (!ti->x_first || !ti->t_lo || !ti->t_hi || !cols || !ones) {
		free(cols);
		free(ones);
		return err_set(err, "formulation: out of memory");
	}
	for (int o = 0; o < g->n; o++) {
		ti->t_lo[o] = g->head[o];
		ti->t_hi[o] = sm->horizon - g->dur[o] - g->tail[o];
		if (ti->t_hi[o] < ti->t_lo[o]) {
			free(cols);
			free(ones);
			return err_set(err, "formulation: horizon %lld is below the longest path through an op",
				       (long long)sm->horizon);
		}
		int n = 0;
		for (int64_t t = ti->t_lo[o]; t <= ti->t_hi[o]; t++) {
			int c = milp_add_col(sm->milp, 0, 1, 0, true, "x_%s%d_%d_t%lld",
					     op_kind_name(o / (L * M)), o / M % L, o % M,
					     (long long)t);
			if (t == ti->t_lo[o])
				ti->x_first[o] = c;
			cols[n] = c;
			ones[n++] = 1;
		}
		milp_add_row(sm->milp, n, cols, ones, 1, 1, "assign_%d", o);
	}
	free(cols);
	free(ones);
	return STATUS_OK;
}

/*
 * Precedence, disaggregated: for every arc i -> k with lag l and every t in
 * k's window, k can have started by t only if i started by t - T_i - l:
 *     sum_{tau <= t} x_{k,tau} - sum_{tau <= t - T_i - l} x_{i,tau} <= 0
 * Rows where the second sum already covers i's whole window are vacuous
 * and skipped. Up to one row per arc and time slot.
 */
static void precedence_rows(struct sched_milp *sm, int *cols, double *vals)
{
	const struct time_indexed *ti = sm->data;
	const struct opgraph *g = sm->g;
	for (int k = 0; k < g->n; k++)
		for (int e = g->pred_start[k]; e < g->pred_start[k + 1]; e++) {
			int i = g->pred[e].op;
			int64_t shift = g->dur[i] + g->pred[e].lag;
			for (int64_t t = ti->t_lo[k]; t <= ti->t_hi[k]; t++) {
				if (t - shift >= ti->t_hi[i])
					break;
				int n = 0;
				for (int64_t tau = ti->t_lo[k]; tau <= t; tau++) {
					cols[n] = xcol(sm, k, tau);
					vals[n++] = 1;
				}
				for (int64_t tau = ti->t_lo[i]; tau <= t - shift; tau++) {
					cols[n] = xcol(sm, i, tau);
					vals[n++] = -1;
				}
				milp_add_row(sm->milp, n, cols, vals, -MILP_INF, 0,
					     "prec_%d_%d_t%lld", i, k, (long long)t);
			}
		}
}

/*
 * Device capacity: at every time t, at most one op of positive length runs
 * on device d:
 *     sum_{o on d} sum_{tau = t - T_o + 1 .. t} x_{o,tau} <= 1
 * (a zero-length op occupies no time; it is ordered first among the ops
 * starting with it). One row per device and time slot with two or more
 * candidates.
 */
static void capacity_rows(struct sched_milp *sm, int *cols, double *vals)
{
	const struct time_indexed *ti = sm->data;
	const struct opgraph *g = sm->g;
	for (int d = 0; d < sm->in->devices; d++)
		for (int64_t t = 0; t < sm->horizon; t++) {
			int n = 0, ops = 0;
			for (int o = 0; o < g->n; o++) {
				if (g->device[o] != d || g->dur[o] == 0)
					continue;
				int64_t a = max64(ti->t_lo[o], t - g->dur[o] + 1);
				int64_t b = min64(ti->t_hi[o], t);
				ops += a <= b;
				for (int64_t tau = a; tau <= b; tau++) {
					cols[n] = xcol(sm, o, tau);
					vals[n++] = 1;
				}
			}
			if (ops >= 2)
				milp_add_row(sm->milp, n, cols, vals, -MILP_INF, 1,
					     "cap_%d_t%lld", d, (long long)t);
		}
}

/*
 * Memory: the deltas of all ops of device d started by time t stay within
 * the limit:
 *     sum_{o on d} D_o sum_{tau <= t} x_{o,tau} <= limit_d
 * Only at times a positive-delta op can start (the peaks). Ops starting
 * together are ordered zero-length (freeing) ones first, so the state
 * after the last of them is the highest; this needs zero-length ops to
 * have no positive delta, which the caller checks.
 */
static void memory_rows(struct sched_milp *sm, int *cols, double *vals)
{
	const struct time_indexed *ti = sm->data;
	const struct opgraph *g = sm->g;
	const struct instance *in = sm->in;
	if (!in->has_limit || !in->has_memory)
		return;
	int M = in->microbatches, L = in->stages;
	for (int d = 0; d < in->devices; d++)
		for (int64_t t = 0; t < sm->horizon; t++) {
			bool peak = false;
			int n = 0;
			double worst = 0;
			for (int o = 0; o < g->n; o++) {
				if (g->device[o] != d)
					continue;
				int64_t delta = inst_delta(in, o / (L * M), o / M % L);
				if (delta > 0 && ti->t_lo[o] <= t && t <= ti->t_hi[o])
					peak = true;
				if (delta == 0 || ti->t_lo[o] > t)
					continue;
				worst += delta > 0 ? (double)delta : 0;
				for (int64_t tau = ti->t_lo[o]; tau <= min64(t, ti->t_hi[o]); tau++) {
					cols[n] = xcol(sm, o, tau);
					vals[n++] = (double)delta;
				}
			}
			if (peak && worst > (double)in->limit[d])
				milp_add_row(sm->milp, n, cols, vals, -MILP_INF,
					     (double)in->limit[d], "mem_%d_t%lld", d, (long long)t);
		}
}

/*
 * Objective. Makespan: C >= sum_t (t + T_o) x_{o,t} for ops no arc leaves.
 * Span: first_d <= sum_t t x_{o,t} for ops that may start d, last_d >=
 * sum_t (t + T_o) x_{o,t} for ops that may end it, S >= last_d - first_d.
 */
static void objective_rows(struct sched_milp *sm, int *cols, double *vals)
{
	const struct time_indexed *ti = sm->data;
	const struct opgraph *g = sm->g;
	bool span = sm->in->objective == OBJ_SPAN;
	for (int o = 0; o < g->n; o++) {
		int d = g->device[o];
		bool is_sink = g->succ_start[o] == g->succ_start[o + 1];
		for (int side = 0; side < 2; side++) {
			bool want = span ? (side ? g->dev_last[o] : g->dev_first[o]) :
					   (side && is_sink);
			if (!want)
				continue;
			int n = 0;
			cols[n] = span ? (side ? sm->last_col[d] : sm->first_col[d]) : sm->obj_col;
			vals[n++] = side ? 1 : -1;
			for (int64_t t = ti->t_lo[o]; t <= ti->t_hi[o]; t++) {
				cols[n] = xcol(sm, o, t);
				vals[n++] = side ? -(double)(t + g->dur[o]) : (double)t;
			}
			milp_add_row(sm->milp, n, cols, vals, 0, MILP_INF, "%s_%d",
				     side ? "end" : "start", o);
		}
	}
	objective_span_rows(sm);
}

static enum status time_indexed_build(struct sched_milp *sm, struct error *err)
{
	const struct instance *in = sm->in;
	const struct opgraph *g = sm->g;
	long size = time_indexed_size(g, sm->horizon);
	if (size < 0)
		return err_set(err, "formulation: horizon %lld is below the longest path through an op",
			       (long long)sm->horizon);
	if (size > TIME_INDEXED_MAX_BINARIES)
		return err_set(err, "instance '%s': the time-indexed model would need %ld binaries (limit %d); durations are too long for it, use the disjunctive formulation",
			       in->name, size, TIME_INDEXED_MAX_BINARIES);
	for (int o = 0; o < g->n && in->has_limit; o++) {
		int M = in->microbatches, L = in->stages;
		if (g->dur[o] == 0 && inst_delta(in, o / (L * M), o / M % L) > 0)
			return err_set(err, "instance '%s': a zero-length op with a positive memory delta; the time-indexed model cannot order it, use the disjunctive formulation",
				       in->name);
	}
	if (!(sm->data = calloc(1, sizeof(struct time_indexed))))
		return err_set(err, "formulation: out of memory");
	if (start_columns(sm, err))
		return STATUS_ERROR;
	objective_columns(sm);
	/* scratch for the longest row: a capacity or memory row spans every
	 * op's window on a device */
	long cap = 2 * (size + 2) + 8;
	int *cols = malloc(cap * sizeof(int));
	double *vals = malloc(cap * sizeof(double));
	if (!cols || !vals) {
		free(cols);
		free(vals);
		return err_set(err, "formulation: out of memory");
	}
	precedence_rows(sm, cols, vals);
	capacity_rows(sm, cols, vals);
	memory_rows(sm, cols, vals);
	objective_rows(sm, cols, vals);
	free(cols);
	free(vals);
	return STATUS_OK;
}

/* A schedule's point: x_{o,t} = 1 at each op's start; outside the model
 * when a start lies outside its window (e.g. beyond the horizon). */
static bool time_indexed_point(const struct sched_milp *sm, const struct schedule *s,
			       const struct sim_result *r, double *x)
{
	const struct time_indexed *ti = sm->data;
	for (int o = 0; o < sm->g->n; o++) {
		int64_t t = r->start[o];
		if (t < ti->t_lo[o] || t > ti->t_hi[o])
			return false;
		x[ti->x_first[o] + (t - ti->t_lo[o])] = 1;
	}
	return true;
}

/* A solution's times: the start slot with the largest x_{o,t} (the one
 * set to 1 in an integer solution), and that plus T_o. */
static void time_indexed_times(const struct sched_milp *sm, const double *x, int o,
			       double *start, double *end)
{
	const struct time_indexed *ti = sm->data;
	double best = -1;
	int64_t t_best = ti->t_lo[o];
	for (int64_t t = ti->t_lo[o]; t <= ti->t_hi[o]; t++) {
		double v = x[ti->x_first[o] + (t - ti->t_lo[o])];
		if (v > best) {
			best = v;
			t_best = t;
		}
	}
	*start = (double)t_best;
	*end = *start + (double)sm->g->dur[o];
}

static void time_indexed_free(void *data)
{
	struct time_indexed *ti = data;
	if (!ti)
		return;
	free(ti->x_first);
	free(ti->t_lo);
	free(ti->t_hi);
	free(ti);
}

const struct formulation formulation_time_indexed = {
	.name = "time-indexed",
	.summary = "a start-time binary per op and time slot (strong bound, for short durations)",
	.build = time_indexed_build,
	.point = time_indexed_point,
	.times = time_indexed_times,
	.free_data = time_indexed_free,
	.size = time_indexed_size,
};
