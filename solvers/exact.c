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
#include <jansson.h>
#include "common/fileio.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulate/schedule_milp.h"
#include "sched/bound.h"
#include "sched/pairing.h"
#include "common/clock.h"
#include "common/stop.h"
#include "sched/family.h"
#include "sched/sim.h"
#include "solvers/backend.h"
#include "solvers/bnb.h"
#include "solvers/cyclic.h"
#include "solvers/lns.h"
#include "solvers/relax.h"
#include "solvers/shave.h"


/* The local search's starts (lns_improve_starts): the best LNS_STARTS
 * valid schedules of the families, best first. */
#define LNS_STARTS 4
struct starts {
	struct schedule *s[LNS_STARTS];
	int64_t obj[LNS_STARTS];
	int n;
};

/* Put a copy of s (objective obj) among the starts if it is one of the
 * best LNS_STARTS so far with orders of its own (families often agree:
 * 1f1b, interleaved and 1f1b-dag on a chain). */
static void starts_add(struct starts *st, const struct schedule *s, int64_t obj)
{
	if (!st || (st->n == LNS_STARTS && obj >= st->obj[LNS_STARTS - 1]))
		return;
	if (schedule_orders_among(st->s, st->n, s))
		return;
	struct schedule *c = schedule_copy(s);
	if (!c)
		return;
	if (st->n == LNS_STARTS)
		schedule_free(st->s[--st->n]);
	int i = st->n++;
	for (; i > 0 && st->obj[i - 1] > obj; i--) {
		st->s[i] = st->s[i - 1];
		st->obj[i] = st->obj[i - 1];
	}
	st->s[i] = c;
	st->obj[i] = obj;
}

static void starts_release(struct starts *st)
{
	for (int i = 0; i < st->n; i++)
		schedule_free(st->s[i]);
	st->n = 0;
}

/* Keep s if it is valid and better than the best so far (takes s); a
 * valid one goes among the starts too. */
static void consider(struct sim *sim, struct schedule *s, const char *name,
		     struct exact_result *r, struct starts *st)
{
	struct sim_result sr;
	if (!s)
		return;
	if (sim_run(sim, s, &sr, NULL)) {
		schedule_free(s);
		return;
	}
	starts_add(st, s, sr.objective);
	if (r->schedule && sr.objective >= r->heuristic_objective) {
		schedule_free(s);
		return;
	}
	schedule_free(r->schedule);
	r->schedule = s;
	r->objective = r->heuristic_objective = sr.objective;
	snprintf(r->heuristic, sizeof r->heuristic, "%s", name);
}

/* With F&B overlap: s, and s with the greedy pairs (sched/pairing.h). */
static void consider_paired(const struct instance *in, struct sim *sim, struct schedule *s,
			    const char *name, struct exact_result *r, struct starts *st)
{
	if (s && inst_pairs_gain(in)) {
		struct schedule *p = schedule_copy(s);
		char paired[sizeof r->heuristic];
		snprintf(paired, sizeof paired, "%s, pairs added", name);
		if (p && schedule_pair_greedy(in, p, sim, 5e7) > 0)
			consider(sim, p, paired, r, st);
		else
			schedule_free(p);
	}
	consider(sim, s, name, r, st);
}

static void best_heuristic(const struct instance *in, const struct schedule *extra,
			   const char *extra_name, struct sim *sim, struct exact_result *r,
			   struct starts *st)
{
	for (int i = 0; i < family_count(); i++) {
		const struct family *f = family_at(i);
		struct schedule *s = NULL;
		if (family_run(f, in, &s, NULL) == STATUS_OK)
			consider_paired(in, sim, s, f->name, r, st);
	}
	if (extra)
		consider(sim, schedule_copy(extra), extra_name ? extra_name : "given", r, st);
	if (!r->schedule)
		consider(sim, family_serial(in), "serial", r, st);
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

/* The model's header: what it is and what was built into it, as comment
 * lines ("\\ " in LP, "* " in MPS). */
static void export_header(FILE *f, const struct sched_milp *sm, const char *by, bool lp,
			  const char *map)
{
	char digest[65];
	const char *c = lp ? "\\" : "*";
	instance_digest(sm->in, digest);
	fprintf(f, "%s pipeopt schedule MILP, instance '%s', sha256 %s\n", c, sm->in->name, digest);
	fprintf(f, "%s formulation %s, objective %s; horizon %lld; objective bounded to [%lld, %lld]\n",
		c, sm->form->name, sm->in->objective == OBJ_SPAN ? "span" : "makespan",
		(long long)sm->horizon, (long long)sm->lower, (long long)sm->upper);
	fprintf(f, "%s built in: the lower bound (sched/bound.c, by %s) and a schedule's objective as the column's bounds; %d memory-window arcs; %d binaries fixed by the time windows\n",
		c, by ? by : "-", sm->g->window_arcs, sm->fixed_binaries);
	if (map)
		fprintf(f, "%s columns: %s (docs/milp-export.md)\n", c, map);
	else
		fprintf(f, "%s columns: no map (the model went to a device or pipe; write it to a file for its map, docs/milp-export.md)\n",
			c);
}

/* Write the column map of sm to path map (docs/milp-export.md). */
static enum status write_map(const struct sched_milp *sm, const char *map, struct error *err)
{
	json_t *j = sched_milp_map_json(sm);
	char *text = j ? json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(j);
	if (!text)
		return err_set(err, "output '%s': out of memory", map);
	enum status st = file_write_atomic(map, text, strlen(text), err);
	free(text);
	return st;
}

/* Write sm's model to path (LP or MPS) with its header, and its column map
 * to path.map.json; a failure leaves neither. A device or pipe (/dev/null,
 * a FIFO) gets the model alone: no map beside it in /dev. The model is
 * written in memory first, then into place as one file (file_write_atomic:
 * no partial file, and /dev/null stays a device). */
static enum status export_model(const struct sched_milp *sm, const char *path, bool lp,
				const char *by, struct error *err)
{
	char map[4096];
	snprintf(map, sizeof map, "%s.map.json", path);
	bool with_map = !file_is_stream(path);
	if (with_map && write_map(sm, map, err))
		return STATUS_ERROR;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	enum status st = STATUS_OK;
	if (!f) {
		st = err_set(err, "output '%s': out of memory", path);
	} else {
		const char *base = strrchr(map, '/');
		export_header(f, sm, by, lp, !with_map ? NULL : base ? base + 1 : map);
		st = lp ? milp_write_lp(sm->milp, f, err) : milp_write_mps(sm->milp, f, err);
		if (fclose(f) && !st)
			st = err_set(err, "output '%s': out of memory", path);
		if (!st)
			st = file_write_atomic(path, buf, len, err);
		free(buf);
	}
	if (st && with_map)
		remove(map);
	return st;
}

/*
 * One exact solve's context: what every step of the MILP stage reads, and
 * the model of the pass under way.
 */
struct exact_run {
	const struct instance *in;
	const struct exact_options *o;
	struct sim *sim;
	struct exact_result *r;
	struct error *err;
	double t0;                        /* seconds: clock_seconds() at the start */
	const struct solver_backend *b;   /* the chosen backend */
	const struct opgraph *g;
	/* the current pass (milp_pass) */
	const struct sched_milp *sm;
	const double *start;              /* [ncols] MIP start, or NULL */
	double time_limit;                /* seconds for the pass; 0: none */
	double kill_at;                   /* no solver child past this; 0: none */
	/* the model to export (--write-lp, --write-mps): the pass that proved
	 * the optimum, else the last one */
	struct sched_milp *kept;
	bool kept_proved;
};

/* Keep the pass's model for export: the first that proved the optimum
 * wins; until one does, the latest. Without an export nothing is kept. */
static void keep_model(struct exact_run *x, struct sched_milp *sm)
{
	bool proved = x->r->bound >= x->r->objective;
	if (!(x->o->write_lp || x->o->write_mps) || x->kept_proved) {
		sched_milp_free(sm);
		return;
	}
	sched_milp_free(x->kept);
	x->kept = sm;
	x->kept_proved = proved;
}

/* Export the kept model (the one behind the result). */
static enum status export_kept(struct exact_run *x)
{
	enum status st = STATUS_OK;
	if (x->kept && x->o->write_lp)
		st = export_model(x->kept, x->o->write_lp, true, x->r->lower_bound_by, x->err);
	if (!st && x->kept && x->o->write_mps)
		st = export_model(x->kept, x->o->write_mps, false, x->r->lower_bound_by, x->err);
	sched_milp_free(x->kept);
	x->kept = NULL;
	return st;
}

struct attempt {
	struct solver_result res;
	struct schedule *decoded;
	int64_t decoded_objective;
	bool decoded_ok;
};

/*
 * What a pass's bound b (on its model's objective) proves for the
 * instance. The model holds the schedules with an objective of at most
 * sm->upper (the incumbent's for the model with the start; H for a
 * target, "a schedule that ends by H?"), and the others are above it, so
 * min(b, upper + 1) holds for every schedule: a target's b above H says
 * that none ends by H, nothing more. Rounded up: objectives are integers.
 */
static double pass_bound(const struct exact_run *x, double b)
{
	double cap = (double)x->sm->upper + 1;
	return b < cap ? ceil(b - 1e-6) : cap;
}

/*
 * The progress a user sees is the solve's, not the pass's: the best
 * schedule so far (a MILP pass runs only with one, exact_solve) and the
 * bound proven so far, improved by what the pass's solver reports. Its
 * incumbent is a schedule's objective (every model's objective column is
 * the makespan or span); its bound counts as pass_bound says (a target's
 * "inf", when infeasible, proves its H + 1; a GLPK tree's -DBL_MAX before
 * its first bound proves nothing new).
 */
static void pass_progress(void *ctx, double incumbent, double bound)
{
	const struct exact_run *x = ctx;
	double inc = (double)x->r->objective, b = (double)x->r->bound;
	if (incumbent < inc)   /* false for NaN: no point yet */
		inc = incumbent;
	if (!isnan(bound))
		b = fmax(b, pass_bound(x, bound));
	x->o->progress(x->o->progress_ctx, inc, fmin(b, inc));
}

/* Solve the pass's model with backend b; decode and re-simulate its
 * solution. */
static enum status run_backend(const struct exact_run *x, const struct solver_backend *b,
			       struct attempt *a)
{
	const struct exact_options *o = x->o;
	struct solver_options so = {
		.time_limit = x->time_limit, .threads = o->threads > 0 ? o->threads : 1,
		.abs_gap = 0.999, .start = x->start, .verbose = o->verbose,
		.progress = o->progress ? pass_progress : NULL, .progress_ctx = (void *)x};
	/* killed at the pass's own allowance or the solve's, whichever first */
	if (x->time_limit > 0)
		so.kill_at = stop_kill_at(clock_seconds(), x->time_limit);
	if (x->kill_at > 0 && (so.kill_at <= 0 || x->kill_at < so.kill_at))
		so.kill_at = x->kill_at;
	memset(a, 0, sizeof *a);
	if (solver_solve_isolated(b, x->sm->milp, &so, &a->res, x->err)) {
		if (!a->res.crash_signal)
			return STATUS_ERROR;
		/* The solver's process crashed before its limit (CBC 2.10.8:
		 * an assertion in ClpPrimalColumnSteepest on a V p4 m8
		 * disjunctive model, seen once): that pass answers nothing, as
		 * if stopped at once; the incumbent, the bound and the other
		 * passes stand, and the result counts the crash. */
		x->r->solver_crashes++;
		a->res.outcome = OUTCOME_ERROR;
		a->res.bound = -INFINITY;
		return STATUS_OK;
	}
	if (!a->res.has_solution)
		return STATUS_OK;
	struct sim_result sr;
	if (sched_milp_decode(x->sm, a->res.x, &a->decoded, x->err))
		return STATUS_ERROR;
	/* Earliest times from the decoded orders are never later than the
	 * solution's, so the simulated objective is at most the solver's. */
	if (sim_run(x->sim, a->decoded, &sr, NULL) == STATUS_OK &&
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
/* That a backend solved a model: which, its verdict, its nodes and time. */
static void record_solve(const struct exact_run *x, const struct attempt *a,
			 const char *outcome)
{
	struct exact_result *r = x->r;
	r->solved = true;
	snprintf(r->solver, sizeof r->solver, "%s", x->b->name);
	snprintf(r->solver_version, sizeof r->solver_version, "%s", x->b->version());
	r->solver_outcome = outcome;
	r->nodes += a->res.nodes;
	r->solver_seconds += a->res.seconds;
}

/* The model a pass solves: its size into r, and into x for run_backend. */
static void use_model(struct exact_run *x, struct sched_milp *sm, const struct formulation *form,
		      int64_t horizon, double *start, double time_limit)
{
	struct exact_result *r = x->r;
	r->horizon = horizon;
	r->formulation = form->name;
	r->columns = sm->milp->ncols;
	r->rows = sm->milp->nrows;
	r->binaries = milp_binaries(sm->milp);
	x->sm = sm;
	x->start = start;
	x->time_limit = time_limit;
}

/*
 * Take a solver attempt's result into r: a better decoded schedule (already
 * re-simulated) replaces the heuristic one; the solver's bound, as far as
 * it holds for the instance (pass_bound), raises the proven lower bound.
 */
static enum status absorb(const struct exact_run *x, struct attempt *a)
{
	struct exact_result *r = x->r;
	const struct solver_backend *b = x->b;
	if (a->res.outcome == OUTCOME_INFEASIBLE || a->res.outcome == OUTCOME_UNBOUNDED)
		return err_set(x->err, "%s reports the model %s, but the schedule of '%s' (objective %lld) lies in it: a solver or formulation defect",
			       b->name, outcome_name(a->res.outcome), r->heuristic,
			       (long long)r->heuristic_objective);
	if (a->decoded_ok && a->decoded_objective < r->objective) {
		schedule_free(r->schedule);
		r->schedule = a->decoded;
		a->decoded = NULL;
		r->objective = a->decoded_objective;
	}
	if (isfinite(a->res.bound)) {
		/* compared as doubles: a backend's -DBL_MAX has no int64_t */
		double bound = fmin(pass_bound(x, a->res.bound), (double)r->objective);
		if (bound > (double)r->bound)
			r->bound = (int64_t)bound;
	}
	record_solve(x, a, outcome_name(a->res.outcome));
	return STATUS_OK;
}

/* Solve the same model with the other backend and compare. */
static enum status cross_check(const struct exact_run *x, const struct attempt *a1)
{
	const struct solver_backend *first = x->b, *b = NULL;
	struct exact_result *r = x->r;
	for (int i = 0; i < solver_count(); i++)
		if (solver_at(i) != first)
			b = solver_at(i);
	r->cross_check = "inconclusive";
	if (!b)
		return STATUS_OK;
	struct attempt a2;
	enum status st = run_backend(x, b, &a2);
	if (st == STATUS_OK && a1->res.outcome == OUTCOME_OPTIMAL &&
	    a2.res.outcome == OUTCOME_OPTIMAL) {
		if (fabs(a1->res.objective - a2.res.objective) > 0.5)
			st = err_set(x->err, "cross-check failed: %s proves %.6g optimal, %s proves %.6g",
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

/* The MIP start: the current best schedule's point, or NULL when it lies
 * outside the model (e.g. not FIFO) or memory runs out. */
static double *start_point(const struct exact_run *x, const struct sched_milp *sm)
{
	double *start = malloc(sm->milp->ncols * sizeof(double));
	struct sim_result sr;
	if (!start)
		return NULL;
	sim_run(x->sim, x->r->schedule, &sr, NULL);
	if (!sched_milp_point(sm, x->r->schedule, &sr, start)) {
		free(start);
		return NULL;
	}
	return start;
}

/* One MILP pass: build the formulation with the current best schedule as
 * the horizon's source and MIP start, solve, absorb; the model is kept
 * for export (keep_model). */
static enum status target_pass(struct exact_run *x, const struct formulation *form,
			       double time_limit, int64_t target, bool *improved);
static bool may_start_pass(const struct exact_run *x);
static double remaining(const struct exact_run *x);

/* The longest path through any op: head + length + tail. */
static int64_t longest_through(const struct opgraph *g)
{
	int64_t v = 0;
	for (int o = 0; o < g->n; o++)
		if (g->head[o] + g->dur[o] + g->tail[o] > v)
			v = g->head[o] + g->dur[o] + g->tail[o];
	return v;
}

/*
 * Target passes (makespan, below) from the proven bound up, while each
 * proves one more unit or finds a schedule, for at most time_limit in all
 * (<= 0: none). pass_cap > 0 caps each pass, the last question (bound =
 * incumbent - 1) only with cap_last: the loop then stops at the first
 * question that is not settled quickly, leaving the rest of the time to
 * the caller's next pass.
 */
static enum status target_loop(struct exact_run *x, const struct formulation *form,
			       double time_limit, double pass_cap, bool cap_last)
{
	struct exact_result *r = x->r;
	double end = time_limit > 0 ? clock_seconds() + time_limit : 0;
	enum status st = STATUS_OK;
	int64_t longest = longest_through(x->g);
	while (!st && r->bound < r->objective && may_start_pass(x) &&
	       (end <= 0 || clock_seconds() < end - 0.05)) {
		int64_t before = r->bound;
		bool improved;
		/* One question left (bound = incumbent - 1): any model that
		 * follows (auto's disjunctive pass) would ask the same "is there
		 * a schedule that ends by the bound?", with a weaker LP, so the
		 * target keeps the solve's whole time. Measured: p8 m16 fused, p
		 * memory, comm 1, unit costs, 8 s: the target at 99 needs 4.7 s,
		 * two thirds of what the exact search leaves is 4.8 s: 99 in 1
		 * run of 6 (else 100/99, then disjunctive). */
		bool last = r->bound + 1 == r->objective;
		if (end > 0 && last)
			end = clock_seconds() + remaining(x);
		if (r->bound < longest) {
			/* some op's head + length + tail exceeds the target:
			 * nothing ends by it (the windows' own proof, a
			 * longest-path bound: no solver is asked) */
			r->bound++;
			r->formulation = form->name;
			continue;
		}
		double pass = end > 0 ? end - clock_seconds() : 0;
		if (pass_cap > 0 && (!last || cap_last) && (pass <= 0 || pass > pass_cap))
			pass = pass_cap;
		st = target_pass(x, form, pass, r->bound, &improved);
		if (r->bound == before && !improved)
			break;   /* the pass ran out of time */
	}
	return st;
}

static enum status milp_pass(struct exact_run *x, const struct formulation *form,
			     double time_limit)
{
	const struct exact_options *o = x->o;
	struct exact_result *r = x->r;
	/* the time-indexed model for the makespan: target passes from the
	 * proven bound up; not with --cross-check, which compares two
	 * backends on one model that holds the incumbent */
	if (!strcmp(form->name, "time-indexed") && x->in->objective == OBJ_MAKESPAN &&
	    !o->cross_check && r->bound < r->objective)
		return target_loop(x, form, time_limit, 0, false);
	r->horizon = exact_horizon(x->in, r->objective);
	struct sched_milp *sm = sched_milp_build(x->in, x->g, form, r->horizon, r->bound,
						 r->objective, x->err);
	if (!sm)
		return STATUS_ERROR;
	enum status st = STATUS_OK;
	double *start = NULL;
	struct attempt a = {0};
	start = start_point(x, sm);
	use_model(x, sm, form, r->horizon, start, time_limit);
	if (!st)
		st = run_backend(x, x->b, &a);
	if (!st)
		st = absorb(x, &a);
	if (!st && o->cross_check)
		st = cross_check(x, &a);
	x->sm = NULL;
	x->start = NULL;
	attempt_release(&a);
	free(start);
	keep_model(x, sm);
	return st;
}

/*
 * A target pass (makespan only): the time-indexed model with horizon and
 * makespan bounded by a target H, "is there a schedule that ends by H?".
 * The model holds every schedule that ends by H, as it holds every one
 * that ends by its horizon, so infeasible proves the bound H + 1; a
 * solution is a schedule that ends by H (decoded and re-simulated); a
 * bound b' without either holds for the schedules that end by H, the rest
 * end later, so min(b', H + 1) is proven (pass_bound; before 2026-12-05
 * the cap was the incumbent, and CBC's bound of its own random objective
 * on a stopped feasibility question, solvers/cbc.c, certified a wrong
 * optimum: bench/results/crosscheck.md). milp_pass asks bottom-up, H =
 * the proven bound: each infeasible answer raises the bound by one, and
 * the first schedule found ends at the bound, so it is optimal. Near the
 * bound the windows are narrow and the LP tight, and the question is
 * often settled by the LP or the preprocessor (solvers/README.md has the
 * measurements).
 * *improved: a shorter schedule was found.
 */
static enum status target_pass(struct exact_run *x, const struct formulation *form,
			       double time_limit, int64_t target, bool *improved)
{
	struct exact_result *r = x->r;
	int64_t ub = r->objective;
	*improved = false;
	struct sched_milp *sm = sched_milp_build(x->in, x->g, form, target, r->bound, target,
						 x->err);
	if (!sm)
		return STATUS_ERROR;
	struct attempt a = {0};
	use_model(x, sm, form, target, NULL, time_limit);
	enum status st = run_backend(x, x->b, &a);
	if (!st && a.res.outcome == OUTCOME_INFEASIBLE) {
		r->bound = target + 1 < ub ? target + 1 : ub;   /* nothing ends by the target */
		record_solve(x, &a, r->bound == ub ? "infeasible below the incumbent" :
						       "infeasible at the target");
	} else if (!st) {
		st = absorb(x, &a);
		*improved = r->objective < ub;
	}
	x->sm = NULL;
	attempt_release(&a);
	keep_model(x, sm);
	return st;
}

static double remaining(const struct exact_run *x)
{
	if (x->o->time_limit <= 0)
		return 0;   /* no limit */
	double left = x->o->time_limit - (clock_seconds() - x->t0);
	return left < 0.05 ? 0.05 : left;
}

/* Whether another pass may start: not after an interrupt, nor with less
 * than a tenth of a second of the limit left. */
static bool may_start_pass(const struct exact_run *x)
{
	if (stop_requested())
		return false;
	return x->o->time_limit <= 0 ||
	       x->o->time_limit - (clock_seconds() - x->t0) >= 0.1;
}

/* The formulation the caller named, or NULL for the automatic choice;
 * an unknown name is an error that lists the known ones. */
static enum status chosen_formulation(const struct exact_run *x,
				      const struct formulation **form)
{
	const char *name = x->o->formulation;
	char known[128];
	*form = NULL;
	if (!name || !strcmp(name, "auto"))
		return STATUS_OK;
	if ((*form = formulation_find(name)))
		return STATUS_OK;
	return err_set(x->err, "unknown formulation '%s' (known: %s, auto)", name,
		       formulation_names(known, sizeof known, ", "));
}

/* The cap on each disjunctive target (target_share in backend.h); 0
 * without a time limit. */
static double target_cap(const struct exact_run *x)
{
	return x->o->time_limit > 0 ? x->o->time_limit * x->b->target_share : 0;
}

/*
 * The disjunctive model for the rest of the time. For the makespan (not
 * with --cross-check) its targets go first, each capped
 * (target_share in backend.h): the questions below the optimum but
 * one are settled within a second or two each (p8 m16 fused, p memory,
 * comm 1, costs 3 and 6: the bound 235 -> 241 in 1.5 s, where the model
 * with the start had 236 after 60 s), then the model with the incumbent
 * as start gets the rest, knowing the raised bound.
 */
static enum status disjunctive_passes(struct exact_run *x, const struct formulation *dj)
{
	struct exact_result *r = x->r;
	r->formulation = dj->name;
	if (x->in->objective == OBJ_MAKESPAN && r->bound < r->objective && !x->o->cross_check) {
		enum status st = target_loop(x, dj, x->o->time_limit > 0 ? remaining(x) : 0,
					     target_cap(x), false);
		if (st || r->bound >= r->objective || !may_start_pass(x))
			return st;
		r->formulation = "disjunctive targets, then disjunctive";
	}
	return milp_pass(x, dj, remaining(x));
}

/*
 * The MILP stage. A fixed formulation gets the whole time. `auto` plays to
 * each model's strength (measured in bench/solve.sh): the disjunctive model
 * with the heuristic start searches well and is small; the time-indexed
 * model's LP bound is far stronger near the optimum but grows with the
 * horizon. So, for the makespan: the time-indexed targets for two thirds
 * of the time where their model is small (split backward up to
 * AUTO_TIME_INDEXED_MAX binaries, fused up to the backend's
 * fused_targets_max), then the disjunctive model. Otherwise, fused: the
 * disjunctive model for the whole time, its targets first
 * (disjunctive_passes); split: the disjunctive model for
 * a third of the time, then, if the time-indexed model at the new
 * (smaller) horizon is small enough, it gets the rest, started from the
 * best schedule so far; else the disjunctive model continues.
 */
static enum status milp_auto(struct exact_run *x)
{
	const struct formulation *dj = formulation_find("disjunctive");
	const struct formulation *ti = formulation_find("time-indexed");
	struct exact_result *r = x->r;
	assert(dj && ti && ti->size && dj->pairs && dj->recompute && dj->offload);
	/* F&B pairs, recompute or offload: the disjunctive model alone holds them */
	if (inst_has_decisions(x->in))
		return disjunctive_passes(x, dj);
	/* split backward (F, B, W), makespan: the time-indexed targets first,
	 * for two thirds of the time, then the disjunctive model. Measured
	 * (CBC, 60 s, p activations, comm 1, unit costs): targets alone prove
	 * p4 m8 / m12 / m16 and p8 m12 split in 6.6 / 8.4 / 21.2 / 21.3 s,
	 * the disjunctive-first order in 14.9 / 16.3 / 57.4 / 37.9 s. Fused
	 * backward: the targets first too while their model is small
	 * (fused_targets_max in backend.h), the disjunctive model first
	 * beyond. Measured with CBC, 60 s, once backward-first gave the
	 * incumbents: targets first prove p8 m12 / m16 fused (unit costs) in
	 * 4.7 / 5.7 s, the disjunctive-first order in 8.3 / 17.4 s; with
	 * costs 5 and 10 (p8 m12, 7,744 binaries at the last target) the
	 * disjunctive model proves it in 3.2 s, the targets in 30.7 s; and
	 * there the disjunctive model keeps the whole time: alone it proves
	 * p8 m16 and m24 fused at those costs (383 in 49.3 s, 519 in 21.7 s),
	 * which a third of the time and then the targets leave open at 60 s
	 * (385/376, 519/512). */
	/* split backward (F, B, W), makespan: the disjunctive model's targets
	 * first (with a time limit, which the caps need), every pass capped
	 * (target_share), the last question
	 * too, then the order below. Measured (CBC, 60 s, p4 m16 split, p
	 * activations, comm 2, costs (2, 3, 1) and (3, 4, 2), costs the bench
	 * grid does not have): 153 and 199 certified in 10.9 and 11.2 s by
	 * the disjunctive targets, 34.7 and 56.2 s by the time-indexed ones;
	 * GLPK at 120 s: 9.8 and 15.7 s, open at 156/153 and 199/198 without */
	if (x->in->kinds == 3 && x->in->objective == OBJ_MAKESPAN && r->bound < r->objective &&
	    !x->o->cross_check && x->o->time_limit > 0) {
		enum status st = target_loop(x, dj, remaining(x), target_cap(x), true);
		if (st || r->bound >= r->objective || !may_start_pass(x))
			return st;
	}
	long ti_size = ti->size(x->g, r->objective - 1);
	bool targets_first = x->in->kinds == 3 ||
			     (ti_size > 0 && ti_size <= x->b->fused_targets_max);
	if (x->in->objective == OBJ_MAKESPAN && targets_first && r->bound < r->objective &&
	    ti_size > 0 && ti_size <= AUTO_TIME_INDEXED_MAX && !x->o->cross_check) {
		double first = x->o->time_limit > 0 ? remaining(x) * 2 / 3 : 0;
		enum status st = milp_pass(x, ti, first);
		r->formulation = "time-indexed";
		if (!st && r->bound < r->objective && may_start_pass(x)) {
			st = milp_pass(x, dj, remaining(x));
			r->formulation = "time-indexed, then disjunctive";
		}
		return st;
	}
	if (x->in->kinds == 2)
		return disjunctive_passes(x, dj);
	double share = x->o->time_limit > 0 ? remaining(x) / 3 : 0;
	enum status st = milp_pass(x, dj, share);
	if (!st && r->bound < r->objective && may_start_pass(x)) {
		long size = ti->size(x->g, exact_horizon(x->in, r->objective));
		const struct formulation *next = size > 0 && size <= AUTO_TIME_INDEXED_MAX ?
			ti : dj;
		st = milp_pass(x, next, remaining(x));
		r->formulation = next == ti ? "disjunctive, then time-indexed" : "disjunctive";
	}
	return st;
}

/*
 * The disjunctive model grows with the open pairs of same-device ops:
 * measured, about 1.4 KB per pair (zb-gpt 28.3b p32 m256 1p, 2.3 million
 * pairs: 3.3 GB resident with CBC), 4.6 KB with recompute, whose model has
 * no FIFO arcs to close pairs and two products per pair (the DeepSeek-like
 * V instance, 16 devices, m 32, with recompute: 283,744 pairs, 1.35 GB),
 * and more than 2.5 KB with F&B pairs (the zb-gpt instance with overlap:
 * 6.3 GB and still growing when an 8 GB address limit stopped CBC). Past
 * MILP_MAX_PAIR_UNITS (a pair counting 3 with recompute, 2 with pairs
 * that gain) no model is built (stopped_by "model_too_large"): such a
 * model would take gigabytes, and at these sizes no MILP proves anything
 * within a limit anyway (the bound does, where anything does). Every class
 * of the bench grids is far below it; the largest model measured below it
 * is the DeepSeek-like V instance of 16 devices with recompute, 283,744
 * pairs (851,232 units).
 */
#define MILP_MAX_PAIR_UNITS 1000000L

static bool too_large(const struct exact_run *x, const struct opgraph *g)
{
	long pairs = opgraph_open_pairs(g, NULL);
	long weight = x->in->has_recompute || x->in->has_offload ? 3 :
		      inst_pairs_gain(x->in) ? 2 : 1;
	return pairs * weight > MILP_MAX_PAIR_UNITS;
}

/* The instance's decisions that formulation f does not hold, or NULL. */
static const char *unmodelled(const struct formulation *f, const struct instance *in)
{
	if (!f->pairs && inst_pairs_gain(in))
		return "overlapped F&B pairs";
	if (!f->recompute && in->has_recompute)
		return "recompute choices";
	if (!f->offload && in->has_offload)
		return "offload choices";
	return NULL;
}

static enum status solve_milp(struct exact_run *x)
{
	const char *solver = x->o->solver ? x->o->solver : "cbc";
	const struct formulation *form;
	char known[64];
	if (!(x->b = x->o->test_backend ? x->o->test_backend : solver_find(solver)))
		return err_set(x->err, "unknown solver '%s' (known: %s)", x->o->solver,
			       solver_names(known, sizeof known, ", "));
	if (chosen_formulation(x, &form))
		return STATUS_ERROR;
	const char *lacks = form ? unmodelled(form, x->in) : NULL;
	if (lacks)
		return err_set(x->err, "formulation '%s' does not model %s (instance '%s' has them): use disjunctive or auto",
			       form->name, lacks, x->in->name);
	struct opgraph *g = opgraph_new(x->in, x->err);
	if (!g)
		return STATUS_ERROR;
	if (too_large(x, g)) {
		x->r->unproven = "model_too_large";
		opgraph_free(g);
		return STATUS_OK;
	}
	x->g = g;
	enum status st = !may_start_pass(x) ? STATUS_OK :
			 !form ? milp_auto(x) :
			 !strcmp(form->name, "disjunctive") ? disjunctive_passes(x, form) :
			 milp_pass(x, form, remaining(x));
	enum status ex = export_kept(x);   /* after the passes: the deciding model */
	if (!st)
		st = ex;
	x->g = NULL;
	opgraph_free(g);
	return st;
}

/* Whether a MILP models the instance's decisions: F&B pairs, recompute
 * choices or offloads (the disjunctive model; not recompute and pairs
 * together, offload for the makespan only). */
static bool milp_models(const struct instance *in)
{
	return !(in->has_offload && in->objective != OBJ_MAKESPAN) &&
	       !(in->has_recompute && inst_pairs_gain(in));
}

/*
 * The exact search (bnb.h) before any MILP, on instances of at most
 * BNB_SPAN_MAX_OPS (span) or BNB_MAX_OPS (makespan) ops. For the span it is the exact method: the MILPs time ops
 * freely, so for the span they only give a relaxation (a later first
 * start shrinks it), while the search times every op earliest, as the
 * simulator does; it gets half the time limit. For the makespan it runs
 * with dominance (bnb.md), a tenth of the limit and at most
 * BNB_MAKESPAN_CAP seconds when a MILP follows: on the
 * bench grid's 96 small classes it proved 85 within 2 s, each equal to the
 * certified MILP optimum. Beyond its size or time, the MILP follows. The schedule it
 * returns is re-simulated before it is kept.
 */
#define BNB_MAKESPAN_CAP 3.0   /* seconds */

static enum status exact_search(const struct instance *in, const struct exact_options *o,
				double t0, struct sim *sim, struct exact_result *r,
				struct error *err)
{
	bool span = in->objective == OBJ_SPAN;
	if (inst_nops(in) > (span ? BNB_SPAN_MAX_OPS : BNB_MAX_OPS) || !bnb_takes(in))
		return STATUS_OK;
	/* The search's time. Span: half (the MILP only relaxes it). With
	 * recompute or offload half too (the search takes every order, the
	 * MILP's model has FIFO arcs on the first stage only and is the
	 * weaker). Where no MILP follows (recompute and F&B pairs together,
	 * offload with the span): 95 %. Makespan
	 * with a MILP to follow: a tenth, and at most BNB_MAKESPAN_CAP s, also
	 * without a limit. Its proofs come fast or not at all: every one on
	 * the bench grid and the new classes came within 2.3 s of the whole
	 * solve (bench/results/solve-*.md), and past that the time went to the
	 * MILP's loss (p4 m12 split, p memory, comm 1: proven in 8.5 s at a
	 * 60 s limit, 6 s of it search; in 2.9 s at an 8 s limit). A given
	 * search_share replaces the share and lifts the cap; without a limit
	 * the uncapped makespan search gets 10 s. */
	double left = o->time_limit > 0 ? o->time_limit - (clock_seconds() - t0) : 0;
	bool no_milp = !milp_models(in);
	bool given = o->search_share > 0 && o->search_share <= 1;
	bool every_order = in->has_recompute || in->has_offload;
	bool capped = !span && !no_milp && !given && !every_order;
	double share = given ? o->search_share : no_milp ? 0.95 :
		       span || every_order ? 0.5 : 0.1;
	double limit = left * share;
	if (!span && o->time_limit <= 0)
		limit = capped ? BNB_MAKESPAN_CAP : 10;
	else if (capped && limit > BNB_MAKESPAN_CAP)
		limit = BNB_MAKESPAN_CAP;
	struct bnb_options bo = {.time_limit = limit > 0.01 || limit == 0 ? limit : 0.01,
				 .incumbent = r->objective, .lower_bound = r->bound, .memo = !span};
	struct bnb_result br;
	if (bnb_solve(in, &bo, &br, err))
		return STATUS_ERROR;
	bool better;   /* without a schedule, nothing better: the incumbent stands */
	if (bnb_adopt(in, sim, &br, &r->schedule, &r->objective, &better, err))
		return STATUS_ERROR;
	if (br.proved) {
		r->bound = r->objective;
		r->certified_by = "search";
	}
	r->search_nodes = br.nodes;
	r->search_seconds = br.seconds;
	return STATUS_OK;
}

/*
 * Window bounds (relax.h) between the heuristics and the exact search:
 * a tenth of the time left and at most RELAX_CAP seconds (also without a
 * limit). Each window's proof is a lower bound of the instance, so a
 * window that meets the best schedule certifies it (by the bound), and
 * the search and the MILP's targets start from the raised bound. Measured
 * (bench/results/relax.md): p4 m16 split, p memory, comm 1 is certified
 * by the window of devices 0-2 after about 6 s of window time, which GLPK
 * does not prove in 120 s; where no window helps (p8 m12 fused) the
 * windows cost their whole share.
 *
 * A round that raised the bound earns another (a tenth of what is left
 * then), until RELAX_CAP seconds in all: a window cut short while still
 * refuting targets goes on from the raised bound, and windows that had
 * found a schedule of their relaxation find it again at once. Where no
 * window raises the bound, the first round is all they cost. Measured:
 * V p3 m6 (3, 4, 2), v-min's memory, comm 1, 30 s: the first round (3 s)
 * raises the closed form's 128 to 135-139 (runs differ) and the MILP did
 * not prove 142, the optimum, in the 24 s left; now the second round
 * proves it (bench/results/relax.md, vfamilies-small.md).
 */
#define RELAX_CAP 10.0   /* seconds, all rounds */

/* A step's seconds: `share` of the time left, at most `cap` (cap also
 * without a limit); 0 when too little is left to start it. */
static double step_time(const struct exact_options *o, double t0, double share, double cap)
{
	double limit = cap;
	if (o->time_limit > 0) {
		double part = share * (o->time_limit - (clock_seconds() - t0));
		limit = part < limit ? part : limit;
	}
	return limit > 0.01 ? limit : 0;
}

static enum status window_bounds(const struct instance *in, const struct exact_options *o,
				 double t0, struct exact_result *r, struct error *err)
{
	if (!relax_takes(in) || !r->schedule)
		return STATUS_OK;
	double limit;
	while ((limit = step_time(o, t0, 0.1, RELAX_CAP - r->window_seconds)) > 0 &&
	       !stop_requested()) {
		struct relax_options ro = {.time_limit = limit, .lower_bound = r->bound,
					   .upper_bound = r->objective};
		struct relax_result rr;
		if (relax_bound(in, &ro, &rr, err))
			return STATUS_ERROR;
		r->window_windows += rr.windows;
		r->window_seconds += rr.seconds;
		bool raised = rr.bound > r->bound;
		if (raised) {
			r->window_lo = rr.lo;
			r->window_hi = rr.hi;
			r->bound = r->lower_bound = rr.bound;
			r->lower_bound_by = "window";
		}
		if (r->bound >= r->objective) {
			r->certified_by = "bound";
			break;
		}
		if (!raised)
			break;
	}
	return STATUS_OK;
}

/*
 * The shaving bound (shave.h), first when no family meets the bound:
 * a quarter of the time left, at most SHAVE_CAP seconds (also without a
 * limit), from the bound known up to the best schedule, its search at
 * the first target left standing at most SHAVE_SEARCH_CAP of them. Its
 * proofs are propagation alone, seconds where the MILP's targets take
 * minutes: on the held-out p8 m16 classes (p activations, comm 1 and 2)
 * it certifies 11 of 12 in 0.1-1 s of its own time, six of which CBC
 * left open at 60 s (bench/results/shave.md). Before the local search,
 * which it makes moot where it certifies (measured: p8 m16 split, comm 2,
 * (3, 4, 2) certified in 1.6 s of solve, 13.7 s with the local search
 * first). Where its search fails (p8 m16 split, comm 1, (2, 3, 1): the
 * bound is the optimum, 153, but the search finds no schedule of it in
 * a minute), the cap leaves the rest to the local search, which finds
 * one.
 */
#define SHAVE_CAP 15.0         /* seconds */
#define SHAVE_SHARE 0.25       /* of the time left */
#define SHAVE_SEARCH_CAP 3.0   /* seconds */

static enum status shave_bounds(const struct instance *in, const struct exact_options *o,
				double t0, struct exact_result *r, struct error *err)
{
	double limit = step_time(o, t0, SHAVE_SHARE, SHAVE_CAP);
	if (!shave_takes(in) || !r->schedule || !limit || stop_requested())
		return STATUS_OK;
	struct shave_options so = {.time_limit = limit, .lower_bound = r->bound,
				   .upper_bound = r->objective, .search = shave_search_takes(in),
				   .search_time = SHAVE_SEARCH_CAP};
	struct shave_result sr;
	if (shave_bound(in, &so, &sr, err))
		return STATUS_ERROR;
	r->shave_ran = true;
	r->shave_refuted = sr.refuted;
	r->shave_propagations = sr.propagations;
	r->shave_nodes = sr.search_nodes;
	r->shave_seconds = sr.seconds;
	if (sr.bound > r->bound) {
		r->bound = r->lower_bound = sr.bound;
		r->lower_bound_by = "shaving";
	}
	if (sr.schedule && sr.objective < r->objective) {
		schedule_free(r->schedule);
		r->schedule = sr.schedule;
		r->objective = r->shave_objective = sr.objective;
	} else {
		schedule_free(sr.schedule);
	}
	if (r->bound >= r->objective)
		r->certified_by = "bound";
	return STATUS_OK;
}

/* A heuristic step's schedule s (owned; NULL: none) of objective obj:
 * if below the best, it becomes the best and joins the starts, else it
 * is freed. Either way the best is certified by the bound if it meets
 * it. Returns whether s was taken. */
static bool adopt(struct exact_result *r, struct starts *st, struct schedule *s, int64_t obj)
{
	bool take = s && obj < r->objective;
	if (take) {
		schedule_free(r->schedule);
		r->schedule = s;
		r->objective = obj;
		starts_add(st, s, obj);
	} else {
		schedule_free(s);
	}
	if (r->objective <= r->bound)
		r->certified_by = "bound";
	return take;
}

/*
 * The caller's heuristic search (exact_options.improve; `search`'s GA in
 * `solve`) from the best schedule, after the local search, on instances
 * beyond the exact search (BNB_MAX_OPS) with a time limit: IMPROVE_SHARE
 * of the time left. There the whole-instance MILPs rarely move within a
 * limit (V p16 m7, 40/40/20, comm 1, v-min's memory, 672 ops: the
 * disjunctive model ran 47 nodes in 95 s and kept v-min's 4112), so the
 * schedule is what the solve makes, and the GA's own seeds (the exact
 * solve of a reduced instance stretched, the shortest 1-periodic
 * schedule, the K-periodic orders) reach where the steps below do not:
 * that instance 4112 -> 4070 (solvers/README.md has the table). After the
 * shaving bound, so that it stops as soon as it meets it (p8 m32 split,
 * p activations: a search blind to it spent its whole share on a proven
 * optimum), and after the local search, which descends further in the
 * same time where it can (p12 m16 (3, 4, 2): 656 -> 621, where this
 * search first ended at 638). Its schedule is simulated here and joins
 * the starts.
 */
#define IMPROVE_SHARE 0.6   /* of the time left */

static enum status improve_step(const struct instance *in, const struct exact_options *o,
				double t0, struct sim *sim, struct starts *st,
				struct exact_result *r, struct error *err)
{
	double limit = step_time(o, t0, IMPROVE_SHARE, 1e9);
	if (!o->improve || o->time_limit <= 0 || !r->schedule || inst_nops(in) <= BNB_MAX_OPS ||
	    !limit || stop_requested())
		return STATUS_OK;
	double t = clock_seconds();
	struct schedule *s = NULL;
	if (o->improve(o->improve_ctx, in, limit, o->threads, r->schedule, r->bound, &s, err))
		return STATUS_ERROR;
	r->improve_ran = true;
	r->improve_seconds = clock_seconds() - t;
	r->improve_from = r->objective;
	struct sim_result sr;
	bool valid = s && !sim_run(sim, s, &sr, NULL);
	if (adopt(r, st, s, valid ? sr.objective : INT64_MAX))
		r->improve_objective = r->objective;
	return STATUS_OK;
}

/*
 * The search over K-periodic orders (cyclic.h) from the best schedule,
 * before the local search, on instances beyond the exact search
 * (BNB_MAX_OPS): a tenth of the time left, at most CYCLIC_CAP seconds.
 * The families' steady states are local optima of the local search's
 * neighbourhoods (v-min at its memory); moves that change every cycle at
 * once are not. Measured: V p8 m48 (3, 4, 2), comm 1, v-min's memory, 3 s
 * from v-min's 1504: 1458. Its schedule joins the local search's starts.
 */
#define CYCLIC_CAP 4.0   /* seconds */

static enum status cyclic_step(const struct instance *in, const struct exact_options *o,
			       double t0, struct starts *st, struct exact_result *r,
			       struct error *err)
{
	double limit = step_time(o, t0, 0.1, CYCLIC_CAP);
	if (!r->schedule || inst_nops(in) <= BNB_MAX_OPS || !cyclic_takes(in, 1) || !limit)
		return STATUS_OK;
	struct cyclic_options co = {.K_max = cyclic_default_rounds(in), .time_limit = limit, .seed = 1};
	struct cyclic_result cr;
	if (cyclic_search(in, r->schedule, &co, &cr, err))
		return STATUS_ERROR;
	r->cyclic_ran = true;
	r->cyclic_seconds = cr.seconds;
	r->cyclic_evaluations = cr.evaluations;
	r->cyclic_objective = cr.schedule ? cr.objective : 0;
	r->cyclic_K = cr.K;
	adopt(r, st, cr.schedule, cr.objective);   /* below r's: cyclic_search's contract */
	return STATUS_OK;
}

/*
 * The local search (lns.h) from the families' best LNS_STARTS schedules
 * (lns_improve_starts), before the window bounds: a tenth of the time
 * left and at most LNS_CAP seconds (also without a limit). A better
 * start gives the window bounds, the exact search and the MILP a lower
 * incumbent to prove. Measured (bench/results/solve-new-classes-60s.md,
 * tenth session): p8 m24 fused, p activations, comm 1 starts the MILP
 * from 140 instead of 141 (found after 0.01 s) and ends 140/139 at 60 s,
 * 141/139 before. From several starts (fifteenth session): where the
 * best family is a local optimum of every neighbourhood, a worse one
 * often is not (lns.h has the numbers).
 */
#define LNS_CAP 4.0   /* seconds */
#define LNS_WINDOW_TIME 0.1   /* seconds per neighbourhood */
#define LNS_MORE_SHARE 0.3    /* of the limit, for all runs */

/*
 * A run cut by the clock that improved the schedule is taken up again
 * from its best, with twice the last run's time, while each such run
 * improves, at most LNS_MORE_SHARE of the limit in all: where the local
 * search still finds better schedules, they are worth more than the
 * MILP's time (which searches the same orders far more slowly), and a
 * run that ends on a local optimum or finds nothing stops it. Measured
 * (held-out kinds: p8 m16 split, p activations, comm 2, costs (4, 4, 3)):
 * the first 4 s took 273 to 271, and the MILP ended 271/267 at 60 s and
 * at 540 s; taken up again, the local search reaches 267, the bound, and
 * certifies it at 6.0 s of a 60 s solve.
 */
static enum status local_search(const struct instance *in, const struct exact_options *o,
				double t0, const struct starts *st, struct exact_result *r,
				struct error *err)
{
	double limit = step_time(o, t0, 0.1, LNS_CAP);
	if (!lns_takes(in) || !r->schedule || !limit)
		return STATUS_OK;
	struct lns_options lo = {.time_limit = limit, .window_time = LNS_WINDOW_TIME,
				 .lower_bound = r->bound};
	struct lns_result lr;
	int64_t before = r->lns_from = r->objective;
	if (lns_improve_starts(in, &lo, st->s, st->n, &r->schedule, &r->objective, &lr, err))
		return STATUS_ERROR;
	r->lns_windows = lr.windows;
	r->lns_improvements = lr.improvements;
	r->lns_seconds = lr.seconds;
	double budget = o->time_limit > 0 ? LNS_MORE_SHARE * o->time_limit : 2 * LNS_CAP;
	while (!lr.local_optimum && r->objective < before && r->objective > r->bound &&
	       !stop_requested()) {
		double left = o->time_limit > 0 ? o->time_limit - (clock_seconds() - t0) : 0;
		lo.time_limit = 2 * lo.time_limit;
		if (lo.time_limit > budget - r->lns_seconds)
			lo.time_limit = budget - r->lns_seconds;
		if (o->time_limit > 0 && lo.time_limit > left / 2)
			lo.time_limit = left / 2;
		if (lo.time_limit < 0.1)
			break;
		before = r->objective;
		if (lns_improve(in, &lo, &r->schedule, &r->objective, &lr, err))
			return STATUS_ERROR;
		r->lns_windows += lr.windows;
		r->lns_improvements += lr.improvements;
		r->lns_seconds += lr.seconds;
	}
	r->lns_objective = r->objective;
	if (r->objective <= r->bound)
		r->certified_by = "bound";
	return STATUS_OK;
}

enum status exact_solve(const struct instance *in, const struct exact_options *o,
			struct exact_result *r, struct error *err)
{
	double t0 = clock_seconds();
	struct bounds lb;
	memset(r, 0, sizeof *r);
	r->cross_check = "not run";
	r->window_lo = r->window_hi = -1;
	if (bound_compute(in, &lb, err))
		return STATUS_ERROR;
	struct sim *sim = sim_new(in);
	if (!sim)
		return err_set(err, "exact: out of memory");
	r->lower_bound = r->bound = lb.best;
	r->lower_bound_by = lb.by;
	struct starts starts = {0};
	best_heuristic(in, o->start, o->start_name, sim, r, &starts);
	/* every family keeps every activation: with recompute the exact
	 * search may find a schedule where none of theirs is valid */
	bool search_only = !r->schedule && (in->has_recompute || in->has_offload);
	if (search_only)
		r->objective = INT64_MAX;
	enum status st = STATUS_OK;
	if (!r->schedule && !search_only) {
		st = err_set(err, "instance '%s': no valid schedule known (every family and the serial order break the memory limit); the instance may be infeasible",
			     in->name);
	} else if (r->schedule && r->objective <= r->bound && !o->always_milp) {
		r->bound = r->objective;
		r->certified_by = "bound";
	} else if (!o->always_milp && shave_bounds(in, o, t0, r, err)) {
		st = STATUS_ERROR;
	} else if (r->certified_by) {
		/* the shaving bound meets the best schedule */
	} else if (!o->always_milp && cyclic_step(in, o, t0, &starts, r, err)) {
		st = STATUS_ERROR;
	} else if (r->certified_by) {
		/* the K-periodic orders met the bound */
	} else if (!o->always_milp && local_search(in, o, t0, &starts, r, err)) {
		st = STATUS_ERROR;
	} else if (r->certified_by) {
		/* the local search met the bound */
	} else if (!o->always_milp && improve_step(in, o, t0, sim, &starts, r, err)) {
		st = STATUS_ERROR;
	} else if (r->certified_by) {
		/* the heuristic search met the bound */
	} else if (!o->always_milp && window_bounds(in, o, t0, r, err)) {
		st = STATUS_ERROR;
	} else if (r->certified_by) {
		/* a window's bound meets the best schedule */
	} else if (!o->always_milp && exact_search(in, o, t0, sim, r, err)) {
		st = STATUS_ERROR;
	} else if (!r->schedule) {
		/* a finished search without an incumbent proves there is none */
		st = err_set(err, r->certified_by ?
			     "instance '%s': no valid schedule exists: every family and the serial order break the memory limit, and the exact search over every order and recompute or offload choice found none" :
			     "instance '%s': no valid schedule known (every family and the serial order break the memory limit, and the exact search, which may recompute or offload, found none before it stopped or the instance is beyond it); the instance may be infeasible",
			     in->name);
	} else if (r->certified_by) {
		/* the exact search proved it (it places overlapped pairs too) */
	} else if (!milp_models(in)) {
		/* recompute with F&B pairs (the disjunctive model holds either,
		 * not both), or offload with the span (its copies are for the
		 * makespan): beyond the exact search no proof but the bound's,
		 * which relaxes them */
		r->unproven = in->has_offload ? "offload_not_modelled" : "recompute_not_modelled";
	} else {
		/* with F&B pairs, recompute or offload too: the disjunctive
		 * model holds them */
		if (o->test_bound_slack > 0)
			r->bound = r->bound > o->test_bound_slack ? r->bound - o->test_bound_slack : 0;
		struct exact_run x = {.in = in, .o = o, .sim = sim, .r = r, .err = err,
				      .t0 = t0, .kill_at = o->kill_at > 0 ? o->kill_at :
				      o->time_limit > 0 ? stop_kill_at(t0, o->time_limit) : 0};
		st = solve_milp(&x);
	}
	starts_release(&starts);
	sim_free(sim);
	if (st) {
		exact_result_release(r);
		return STATUS_ERROR;
	}
	/* Proven: the bound meets the objective of a simulated schedule. The
	 * schedule kept is always a simulated one (heuristic or decoded). */
	if (r->bound >= r->objective) {
		r->certified = true;
		if (!r->certified_by)   /* a MILP's proof, or else the bounds' (a
		                           crashed last pass proved nothing) */
			r->certified_by = r->solved && strcmp(r->solver_outcome, "error") ?
					  "solver" : "bound";
		r->status = "optimal";
	} else {
		r->status = r->solver_outcome && !strcmp(r->solver_outcome, "time_limit") ?
			"time_limit" : "feasible";
		r->stopped_by = stop_requested() ? "interrupt" : r->unproven ? r->unproven :
				o->time_limit > 0 ? "time_limit" : NULL;
		if (stop_requested())
			r->status = "feasible";   /* a schedule, not a verdict */
	}
	r->gap = verdict_gap((double)r->objective, (double)r->bound);
	r->seconds = clock_seconds() - t0;
	return STATUS_OK;
}

int64_t exact_upper_bound(const struct instance *in, const struct schedule *extra)
{
	struct exact_result r = {0};
	struct sim *sim = sim_new(in);
	if (sim)
		best_heuristic(in, extra, NULL, sim, &r, NULL);
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
