/*
 * The exact solver's procedure (see exact.h):
 *
 *  1. lower bound LB from sched/bound.c;
 *  2. upper bound UB: every family that supports the instance (and the
 *     caller's schedule), simulated; the best valid one. If none is valid,
 *     the serial schedule (one micro-batch after another) as a last resort;
 *  3. UB = LB: optimal, certified by the bound, no MILP;
 *  4. otherwise a MILP with the horizon from UB and UB's schedule as the
 *     MIP start; its solution is decoded, re-simulated, and certified when
 *     the solver's bound proves it.
 */
#include "solvers/exact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/bound.h"
#include "common/clock.h"
#include "sched/family.h"
#include "sched/sim.h"


/* Keep s if it is valid and better than the best so far (takes s). */
static void consider(struct sim *sim, struct schedule *s, const char *name,
		     struct exact_result *r)
{
	struct sim_result sr;
	if (!s)
		return;
	if (sim_run(sim, s, &sr, NULL) ||
	    (r->schedule && sr.objective >= r->heuristic_objective)) {
		schedule_free(s);
		return;
	}
	schedule_free(r->schedule);
	r->schedule = s;
	r->objective = r->heuristic_objective = sr.objective;
	snprintf(r->heuristic, sizeof r->heuristic, "%s", name);
}

static void best_heuristic(const struct instance *in, const struct schedule *extra,
			   struct sim *sim, struct exact_result *r)
{
	for (int i = 0; i < family_count(); i++) {
		const struct family *f = family_at(i);
		struct schedule *s = NULL;
		if (family_run(f, in, &s, NULL) == STATUS_OK)
			consider(sim, s, f->name, r);
	}
	if (extra)
		consider(sim, schedule_copy(extra), "given", r);
	if (!r->schedule)
		consider(sim, family_serial(in), "serial", r);
}

/*
 * The horizon every op of some optimal schedule ends by. For the makespan
 * it is UB. For the span, take an optimal-span schedule timed earliest:
 * device d's first op waits for an input from a device that started
 * earlier, so the first starts form a chain over at most D devices, each
 * link at most that device's span plus the largest lag:
 *     makespan <= D * UB_span + (D - 1) * max lag.
 */
int64_t exact_horizon(const struct instance *in, int64_t ub)
{
	if (in->objective == OBJ_MAKESPAN)
		return ub;
	int64_t lag = 0;
	for (int e = 0; e < in->nedges; e++)
		lag = in->edge_comm[e] > lag ? in->edge_comm[e] : lag;
	return (int64_t)in->devices * ub + (int64_t)(in->devices - 1) * lag;
}

static enum status export_model(const struct milp *m, const char *path, bool lp,
				struct error *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return err_set(err, "output '%s': cannot create", path);
	enum status st = lp ? milp_write_lp(m, f, err) : milp_write_mps(m, f, err);
	if (fclose(f) && !st)
		st = err_set(err, "output '%s': write failed", path);
	if (st)
		remove(path);
	return st;
}

struct attempt {
	struct solver_result res;
	struct schedule *decoded;
	int64_t decoded_objective;
	bool decoded_ok;
};

/* Solve the model with one backend; decode and re-simulate its solution. */
static enum status run_backend(const struct solver_backend *b,
			       const struct sched_milp *sm, const double *start,
			       const struct exact_options *o, double time_limit,
			       struct sim *sim, struct attempt *a, struct error *err)
{
	struct solver_options so = {
		.time_limit = time_limit, .threads = o->threads > 0 ? o->threads : 1,
		.abs_gap = 0.999, .start = start, .verbose = o->verbose,
		.progress = o->progress, .progress_ctx = o->progress_ctx};
	memset(a, 0, sizeof *a);
	if (solver_solve_isolated(b, sm->milp, &so, &a->res, err))
		return STATUS_ERROR;
	if (!a->res.has_solution)
		return STATUS_OK;
	struct sim_result sr;
	if (sched_milp_decode(sm, a->res.x, &a->decoded, err))
		return STATUS_ERROR;
	/* Earliest times from the decoded orders are never later than the
	 * solution's, so the simulated objective is at most the solver's. */
	if (sim_run(sim, a->decoded, &sr, NULL) == STATUS_OK &&
	    (double)sr.objective <= a->res.objective + 1e-6) {
		a->decoded_ok = true;
		a->decoded_objective = sr.objective;
	}
	return STATUS_OK;
}

static void attempt_release(struct attempt *a)
{
	solver_result_release(&a->res);
	schedule_free(a->decoded);
}

/* Time-indexed models beyond this many binaries are not tried by auto. */
#define AUTO_TIME_INDEXED_MAX 20000
/*
 * Take a solver attempt's result into r: a better decoded schedule (already
 * re-simulated) replaces the heuristic one; the solver's bound, rounded up
 * (objectives are integers), raises the proven lower bound.
 */
static enum status absorb(struct exact_result *r, struct attempt *a,
			  const struct solver_backend *b, struct error *err)
{
	if (a->res.outcome == OUTCOME_INFEASIBLE || a->res.outcome == OUTCOME_UNBOUNDED)
		return err_set(err, "%s reports the model %s, but the schedule of '%s' (objective %lld) lies in it: a solver or formulation defect",
			       b->name, outcome_name(a->res.outcome), r->heuristic,
			       (long long)r->heuristic_objective);
	if (a->decoded_ok && a->decoded_objective < r->objective) {
		schedule_free(r->schedule);
		r->schedule = a->decoded;
		a->decoded = NULL;
		r->objective = a->decoded_objective;
	}
	if (isfinite(a->res.bound)) {
		int64_t bound = (int64_t)ceil(a->res.bound - 1e-6);
		if (bound > r->objective)
			bound = r->objective;
		if (bound > r->bound)
			r->bound = bound;
	}
	r->solved = true;
	snprintf(r->solver, sizeof r->solver, "%s", b->name);
	snprintf(r->solver_version, sizeof r->solver_version, "%s", b->version());
	r->solver_outcome = outcome_name(a->res.outcome);
	r->nodes += a->res.nodes;
	r->solver_seconds += a->res.seconds;
	return STATUS_OK;
}

/* Solve the same model with the other backend and compare. */
static enum status cross_check(const struct solver_backend *first,
			       const struct sched_milp *sm, const double *start,
			       const struct exact_options *o, double time_limit,
			       struct sim *sim, const struct attempt *a1,
			       struct exact_result *r, struct error *err)
{
	const struct solver_backend *b = NULL;
	for (int i = 0; i < solver_count(); i++)
		if (solver_at(i) != first)
			b = solver_at(i);
	r->cross_check = "inconclusive";
	if (!b)
		return STATUS_OK;
	struct attempt a2;
	enum status st = run_backend(b, sm, start, o, time_limit, sim, &a2, err);
	if (st == STATUS_OK && a1->res.outcome == OUTCOME_OPTIMAL &&
	    a2.res.outcome == OUTCOME_OPTIMAL) {
		if (fabs(a1->res.objective - a2.res.objective) > 0.5)
			st = err_set(err, "cross-check failed: %s proves %.6g optimal, %s proves %.6g",
				     first->name, a1->res.objective, b->name, a2.res.objective);
		else
			r->cross_check = "agreed";
	}
	snprintf(r->cross_detail, sizeof r->cross_detail, "%s %s %.10g, %s %s %.10g",
		 first->name, outcome_name(a1->res.outcome), a1->res.objective,
		 b->name, outcome_name(a2.res.outcome), a2.res.objective);
	attempt_release(&a2);
	return st;
}

/* One MILP pass: build the formulation with the current best schedule as
 * the horizon's source and MIP start, solve, absorb. */
static enum status milp_pass(const struct instance *in, const struct opgraph *g,
			     enum formulation form, const struct solver_backend *b,
			     const struct exact_options *o, double time_limit,
			     bool first, struct sim *sim, struct exact_result *r,
			     struct error *err)
{
	r->horizon = exact_horizon(in, r->objective);
	struct sched_milp *sm = sched_milp_build(in, g, form, r->horizon, r->bound,
						 r->objective, err);
	if (!sm)
		return STATUS_ERROR;
	enum status st = STATUS_OK;
	double *start = malloc(sm->milp->ncols * sizeof(double));
	struct attempt a = {0};
	r->formulation = formulation_name(form);
	r->columns = sm->milp->ncols;
	r->rows = sm->milp->nrows;
	r->binaries = milp_binaries(sm->milp);
	if (first && o->write_lp)
		st = export_model(sm->milp, o->write_lp, true, err);
	if (!st && first && o->write_mps)
		st = export_model(sm->milp, o->write_mps, false, err);
	if (!st && start) {
		struct sim_result sr;
		sim_run(sim, r->schedule, &sr, NULL);
		if (!sched_milp_point(sm, r->schedule, &sr, start)) {
			free(start);
			start = NULL;   /* outside the model (e.g. not FIFO): no start */
		}
	}
	if (!st)
		st = run_backend(b, sm, start, o, time_limit, sim, &a, err);
	if (!st)
		st = absorb(r, &a, b, err);
	if (!st && o->cross_check)
		st = cross_check(b, sm, start, o, time_limit, sim, &a, r, err);
	attempt_release(&a);
	free(start);
	sched_milp_free(sm);
	return st;
}

static double remaining(const struct exact_options *o, double t0)
{
	if (o->time_limit <= 0)
		return 0;   /* no limit */
	double left = o->time_limit - (clock_seconds() - t0);
	return left < 0.05 ? 0.05 : left;
}

/*
 * The MILP stage. A fixed formulation gets the whole time. `auto` plays to
 * each model's strength (measured in bench/solve.sh): the disjunctive model
 * with the heuristic start searches well and is small; the time-indexed
 * model's LP bound is far stronger near the optimum but grows with the
 * horizon. So: the disjunctive model for a third of the time; if that has
 * not proven optimality and the time-indexed model at the new (smaller)
 * horizon is small enough, it gets the rest, started from the best
 * schedule so far; otherwise the disjunctive model continues.
 */
static enum status solve_milp(const struct instance *in, const struct exact_options *o,
			      struct sim *sim, struct exact_result *r, double t0,
			      struct error *err)
{
	const struct solver_backend *b = solver_find(o->solver ? o->solver : "cbc");
	if (!b)
		return err_set(err, "unknown solver '%s' (known: cbc, glpk)", o->solver);
	struct opgraph *g = opgraph_new(in, err);
	if (!g)
		return STATUS_ERROR;
	enum status st;
	if (o->formulation != CHOOSE_AUTO) {
		st = milp_pass(in, g, (enum formulation)o->formulation, b, o,
			       remaining(o, t0), true, sim, r, err);
	} else {
		double share = o->time_limit > 0 ? remaining(o, t0) / 3 : 0;
		st = milp_pass(in, g, FORM_DISJUNCTIVE, b, o, share, true, sim, r, err);
		if (!st && r->bound < r->objective) {
			long size = time_indexed_size(g, exact_horizon(in, r->objective));
			enum formulation next = size > 0 && size <= AUTO_TIME_INDEXED_MAX ?
				FORM_TIME_INDEXED : FORM_DISJUNCTIVE;
			st = milp_pass(in, g, next, b, o, remaining(o, t0), false, sim, r, err);
			r->formulation = next == FORM_TIME_INDEXED ?
				"disjunctive, then time-indexed" : "disjunctive";
		}
	}
	opgraph_free(g);
	return st;
}

enum status exact_solve(const struct instance *in, const struct exact_options *o,
			struct exact_result *r, struct error *err)
{
	double t0 = clock_seconds();
	struct bounds lb;
	memset(r, 0, sizeof *r);
	r->cross_check = "not run";
	if (bound_compute(in, &lb, err))
		return STATUS_ERROR;
	struct sim *sim = sim_new(in);
	if (!sim)
		return err_set(err, "exact: out of memory");
	r->lower_bound = r->bound = lb.best;
	best_heuristic(in, o->start, sim, r);
	enum status st = STATUS_OK;
	if (!r->schedule) {
		st = err_set(err, "instance '%s': no valid schedule known (every family and the serial order break the memory limit); the instance may be infeasible",
			     in->name);
	} else if (r->objective <= r->bound && !o->always_milp) {
		r->bound = r->objective;
		r->certified_by = "bound";
	} else {
		st = solve_milp(in, o, sim, r, t0, err);
	}
	sim_free(sim);
	if (st) {
		exact_result_release(r);
		return STATUS_ERROR;
	}
	/* Proven: the bound meets the objective of a simulated schedule. The
	 * schedule kept is always a simulated one (heuristic or decoded). */
	if (r->bound >= r->objective) {
		r->certified = true;
		if (!r->certified_by)
			r->certified_by = "solver";
		r->status = "optimal";
	} else {
		r->status = r->solver_outcome && !strcmp(r->solver_outcome, "time_limit") ?
			"time_limit" : "feasible";
	}
	r->gap = r->objective > 0 ? (double)(r->objective - r->bound) / (double)r->objective : 0;
	r->seconds = clock_seconds() - t0;
	return STATUS_OK;
}

int64_t exact_upper_bound(const struct instance *in, const struct schedule *extra)
{
	struct exact_result r = {0};
	struct sim *sim = sim_new(in);
	if (sim)
		best_heuristic(in, extra, sim, &r);
	sim_free(sim);
	int64_t ub = r.schedule ? r.objective : INT64_MAX;
	exact_result_release(&r);
	return ub;
}

void exact_result_release(struct exact_result *r)
{
	schedule_free(r->schedule);
	r->schedule = NULL;
}
