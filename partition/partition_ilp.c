/*
 * The exact partitioner: the problem of formulate/partition_milp.c at
 * every micro-batch size, solved by the DP over upsets (ideals.c) or by a
 * MILP backend (solvers/), decoded and evaluated with the same cost model
 * as GraphPipe's DP (partition_evaluate). What it proves is the
 * bottleneck: a size's result is certified when the engine proves its
 * minimum bottleneck (or that no partition fits) and the decoded plan,
 * evaluated independently, has exactly the engine's bottleneck. Among
 * sizes the shortest simulated iteration wins.
 *
 * Warm start: the search (search.c, a small share of the time) and the
 * DPs at each size give plans; at each size the one with the smallest
 * bottleneck is the MIP start, and its bottleneck the cutoff (T's upper
 * bound). Sizes go in order of promise (the starts' simulated iteration);
 * a size is skipped, as proven unable to win, when m T_lower (a lower
 * bound on any of its plans' simulated iteration: some device is busy m
 * times its stage's compute and allreduce) is not below the best MILP
 * plan's simulated iteration so far.
 */
#include "partition/partition.h"
#include "partition/bridge.h"
#include "graph/cost.h"
#include "common/clock.h"
#include "common/stop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulate/partition_milp.h"
#include "partition/ideals.h"
#include "solvers/solver.h"

/* The plan of a MILP solution: used slots in label order. */
static enum status decode_plan(const struct graph *g, const struct pmilp *pm, const double *x,
			       bool sequential, struct partition *p, struct error *err)
{
	int *of = malloc(g->nops * sizeof *of), *deg = malloc(pm->K * sizeof *deg);
	int *buf = malloc(g->nops * sizeof *buf);
	memset(p, 0, sizeof *p);
	p->microbatch = pm->b;
	p->microbatches = pm->mb;
	p->chain = sequential;
	enum status st = of && deg && buf ? STATUS_OK : err_set(err, "out of memory");
	if (!st)
		pmilp_decode(g, pm, x, of, deg);
	for (int s = 0; !st && s < pm->K; s++) {
		int n = 0;
		for (int v = 0; v < g->nops; v++)
			if (of[v] == s)
				buf[n++] = v;
		if (!n)
			continue;
		struct stage *t = realloc(p->stages, (p->nstages + 1) * sizeof *t);
		if (!t) {
			st = err_set(err, "out of memory");
			break;
		}
		p->stages = t;
		t = &p->stages[p->nstages++];
		memset(t, 0, sizeof *t);
		t->ops = malloc(n * sizeof *t->ops);
		if (!t->ops) {
			st = err_set(err, "out of memory");
			break;
		}
		memcpy(t->ops, buf, n * sizeof *buf);
		t->nops = n;
		t->degree = deg[s] ? deg[s] : 1;
	}
	if (!st && !partition_evaluate(g, p))
		st = err_set(err, "graph '%s': the MILP's plan does not evaluate (not convex or cyclic): a formulation defect",
			     g->name);
	free(of);
	free(deg);
	free(buf);
	return st;
}

/* Whether a plan's bottleneck is the engine's objective obj (the start's
 * cutoff sits a hair above its bottleneck). */
static bool at_objective(double bottleneck, double obj)
{
	return fabs(bottleneck - obj) <= 1e-6 * (obj > 1 ? obj : 1) + 1e-6;
}

/* p's simulated iteration, or infinity when 1f1b-dag cannot run it. */
static void simulate_or_never(const struct graph *g, struct partition *p)
{
	struct error why;
	if (partition_simulate(g, p, &why))
		p->iteration_time = INFINITY;
}

/* Of two plans, the shorter iteration into *p; the other is released. */
static void keep_shorter(struct partition *p, struct partition *q)
{
	if (q->iteration_time < p->iteration_time) {
		partition_release(p);
		*p = *q;
	} else {
		partition_release(q);
	}
	memset(q, 0, sizeof *q);
}

/* No size gave a partition: say why, and only what the solver proved. */
static enum status no_partition(const struct graph *g, int devices, struct ilp_info *info,
				struct error *err)
{
	if (info->stopped) {
		info->outcome = OUTCOME_TIME_LIMIT;
		return err_set(err, "graph '%s': no partition onto %d devices found within the time limit (%d micro-batch sizes stopped before a solution)",
			       g->name, devices, info->stopped);
	}
	if (info->infeasible && info->infeasible == info->solves) {
		info->outcome = OUTCOME_INFEASIBLE;
		return err_set(err, "graph '%s': no partition onto %d devices: proven infeasible at each of the %d micro-batch sizes tried (memory too tight)",
			       g->name, devices, info->solves);
	}
	info->outcome = OUTCOME_NO_SOLUTION;
	return err_set(err, "graph '%s': no partition onto %d devices found (%d micro-batch sizes solved, %d proven infeasible)",
		       g->name, devices, info->solves, info->infeasible);
}

/* A plan at size b for the MIP start: q re-sized (degrees halved until
 * b / k is listed), evaluated, in memory; false when it is not. */
static bool resize(const struct graph *g, const struct partition *q, int b, struct partition *p)
{
	memset(p, 0, sizeof *p);
	p->stages = calloc(q->nstages, sizeof *p->stages);
	if (!p->stages)
		return false;
	p->nstages = q->nstages;
	p->microbatch = b;
	p->microbatches = g->batch / b;
	p->chain = q->chain;
	bool ok = true;
	for (int s = 0; s < q->nstages && ok; s++) {
		struct stage *t = &p->stages[s];
		t->ops = malloc(q->stages[s].nops * sizeof *t->ops);
		ok = t->ops != NULL;
		if (!ok)
			break;
		memcpy(t->ops, q->stages[s].ops, q->stages[s].nops * sizeof *t->ops);
		t->nops = q->stages[s].nops;
		t->degree = q->stages[s].degree;
		while (t->degree > 1 && (b % t->degree || graph_size_index(g, b / t->degree) < 0))
			t->degree /= 2;
		ok = b % t->degree == 0 && graph_size_index(g, b / t->degree) >= 0;
	}
	ok = ok && partition_evaluate(g, p);
	for (int s = 0; ok && s < p->nstages; s++)
		ok = p->stages[s].memory <= g->machine.memory_bytes;
	if (!ok)
		partition_release(p);
	return ok;
}

/* The warm start of one size: the plan with the smallest bottleneck among
 * the search's (re-sized) and the DPs' at b, simulated; false if none. */
static bool warm_start(const struct graph *g, const struct partition_options *o,
		       const struct partition *searched, int b, struct partition *best)
{
	struct partition_options po = *o;
	struct partition cand[3];
	struct error why;
	int n = 0;
	po.nsizes = 1;
	po.sizes = &b;
	po.no_simulate = true;
	if (searched && searched->nstages && resize(g, searched, b, &cand[n]))
		n++;
	if (!o->sequential && !partition_dp(g, &po, &cand[n], &why))
		n++;
	po.sequential = true;
	if (!partition_dp(g, &po, &cand[n], &why)) {
		/* a chain is a graph pipeline too, without the chain's edges */
		cand[n].chain = o->sequential;
		if (o->sequential || partition_evaluate(g, &cand[n]))
			n++;
		else
			partition_release(&cand[n]);
	}
	int k = -1;
	for (int i = 0; i < n; i++)
		if (k < 0 || cand[i].bottleneck < cand[k].bottleneck)
			k = i;
	for (int i = 0; i < n; i++)
		if (i != k)
			partition_release(&cand[i]);
	if (k < 0)
		return false;
	*best = cand[k];
	if (partition_simulate(g, best, &why))
		best->iteration_time = INFINITY;   /* a start still, though unrunnable */
	return true;
}

/* One size to solve: its start (if any) and the order of promise. */
struct size_job {
	int b;
	bool has_start;
	struct partition start;
};

static int by_promise(const void *x, const void *y)
{
	const struct size_job *a = x, *c = y;
	double ta = a->has_start ? a->start.iteration_time : INFINITY;
	double tc = c->has_start ? c->start.iteration_time : INFINITY;
	if (ta != tc)
		return ta < tc ? -1 : 1;
	return a->b - c->b;
}

/* The start of job j as a point of pm's model, with T's cutoff; NULL when
 * it does not encode. */
static double *encode_start(const struct graph *g, struct pmilp *pm, const struct partition *q)
{
	double *x = malloc(pm->m->ncols * sizeof *x);
	int *of = malloc(g->nops * sizeof *of), *deg = malloc((q->nstages + 1) * sizeof *deg);
	bool ok = x && of && deg;
	for (int s = 0; ok && s < q->nstages; s++) {
		deg[s] = q->stages[s].degree;
		for (int i = 0; i < q->stages[s].nops; i++)
			of[q->stages[s].ops[i]] = s;
	}
	ok = ok && pmilp_start(g, pm, q->nstages, of, deg, q->bottleneck, x);
	free(of);
	free(deg);
	if (!ok) {
		free(x);
		return NULL;
	}
	/* the cutoff: no plan with a larger bottleneck is of interest (a
	 * hair above the start, which stays feasible) */
	pm->m->cols[pm->T].ub = x[pm->T] * (1 + 1e-9) + 1e-9;
	x[pm->T] = pm->m->cols[pm->T].ub;
	if (!milp_feasible(pm->m, x, 1e-6, NULL)) {
		pm->m->cols[pm->T].ub = MILP_INF;
		free(x);
		return NULL;
	}
	return x;
}

/*
 * One size by the DP over upsets (ideals.c), its answer in the shape of a
 * solver's: the plan encoded as a point of pm's model (so that decoding
 * and the independent re-evaluation are the MILP's), optimal, none below
 * ub (infeasible), or stopped. False when the graph is too big for it.
 */
static double *encode_plan(const struct graph *g, const struct pmilp *pm,
			   const struct ideals_plan *q, double T)
{
	double *x = malloc(pm->m->ncols * sizeof *x);
	if (x && pmilp_start(g, pm, q->nstages, q->stage_of, q->degree_of, T, x))
		return x;
	free(x);
	return NULL;
}

static bool solve_by_ideals(const struct graph *g, const struct pmilp *pm, int D, double ub,
			    double deadline, struct solver_result *sr, double **alt,
			    struct ilp_info *info)
{
	struct ideals_result ir;
	ideals_solve(g, pm, D, ub, deadline, false, &ir);
	if (ir.outcome == IDEALS_TOO_BIG)
		return false;
	memset(sr, 0, sizeof *sr);
	sr->seconds = ir.seconds;
	info->ideal_solves++;
	info->ideal_states += ir.states;
	if (ir.outcome == IDEALS_STOPPED) {
		sr->outcome = OUTCOME_TIME_LIMIT;
		return true;
	}
	if (ir.outcome == IDEALS_NONE) {
		sr->outcome = OUTCOME_INFEASIBLE;
		return true;
	}
	sr->x = encode_plan(g, pm, &ir.plan[0], ir.bottleneck);
	if (sr->x) {
		sr->outcome = OUTCOME_OPTIMAL;
		sr->has_solution = true;
		sr->objective = ir.bottleneck;
		sr->bound = ir.bottleneck;
		*alt = ir.nplans > 1 ? encode_plan(g, pm, &ir.plan[1], ir.bottleneck) : NULL;
	} else {
		sr->outcome = OUTCOME_ERROR;   /* out of memory: no proof */
	}
	return true;
}

/*
 * A lower bound on the simulated iteration of every partition the exact
 * partitioner and the search consider (convex, acyclic stage graph,
 * power-of-two degrees, at most D devices) at every size: in the schedule
 * instance (bridge.c) a stage's device runs F, B and W of each of the m
 * micro-batches, each its ops' time at b / k rounded up, W with the
 * stage's allreduce share, so the iteration is at least m max_s busy_s;
 * and max_s busy_s >= T0(b), the least busy time of the busiest stage over
 * all partitions, the DP's optimum with comm and memory left out (a
 * relaxation; where the DP does not finish by the deadline, bound_T,
 * which is below T0). The minimum over sizes of m T0(b) bounds every plan.
 * *exact: every size's T0 came from the DP.
 */
static double iteration_bound(const struct graph *g, const struct partition_options *o,
			      int nsizes, const int *sizes, double deadline, bool *exact)
{
	double lb = INFINITY;
	*exact = true;
	for (int i = 0; i < nsizes; i++) {
		struct pmilp pm;
		struct error why;
		if (pmilp_terms(g, o->devices, sizes[i], o->sequential, &pm, &why) || !pm.nk)
			continue;
		struct ideals_result ir;
		ideals_solve(g, &pm, o->devices, INFINITY, deadline, true, &ir);
		double T0 = pm.T_lower;
		if (ir.outcome == IDEALS_OPTIMAL && ir.bottleneck > T0)
			T0 = ir.bottleneck;
		*exact = *exact && ir.outcome == IDEALS_OPTIMAL;
		if (pm.mb * T0 < lb)
			lb = pm.mb * T0;
		pmilp_release(&pm);
	}
	return lb;
}

enum status partition_ilp(const struct graph *g, const struct partition_options *o,
			  const char *solver, double time_limit, struct partition *best,
			  struct ilp_info *info, struct error *err)
{
	/* auto: the DP over upsets, the MILP (CBC) at a size too big for it */
	if (!solver)
		solver = "auto";
	bool ideals = !strcmp(solver, "auto") || !strcmp(solver, "ideals");
	bool milp = strcmp(solver, "ideals") != 0;
	const struct solver_backend *be = milp ? solver_find(ideals ? "cbc" : solver) : NULL;
	memset(best, 0, sizeof *best);
	memset(info, 0, sizeof *info);
	info->certified = true;
	info->outcome = OUTCOME_ERROR;
	if (milp && !be)
		return err_set(err, "unknown solver '%s'", solver);
	if (o->devices < 1 || o->devices > g->machine.devices)
		return err_set(err, "graph '%s': --devices %d: the machine has %d", g->name,
			       o->devices, g->machine.devices);
	int nsizes = o->nsizes ? o->nsizes : g->nsizes;
	const int *sizes = o->nsizes ? o->sizes : g->microbatch_sizes;
	bool any = false;
	/* time_limit is for the whole partition: the warm start takes at most
	 * a tenth, then each size gets an equal share of what is left, so
	 * time a size does not use goes to the next */
	double t0 = clock_seconds();
	double deadline = time_limit > 0 ? t0 + time_limit : 0;
	double kill_at = time_limit > 0 ? stop_kill_at(t0, time_limit) : 0;
	struct partition searched = {0};
	struct search_info si;
	struct error why;
	double budget = time_limit > 0 ? 0.1 * time_limit : 5;
	if (partition_search(g, o, budget < 5 ? budget : 5, &searched, &si, &why))
		memset(&searched, 0, sizeof searched);
	struct size_job *job = calloc(nsizes ? nsizes : 1, sizeof *job);
	if (!job) {
		partition_release(&searched);
		return err_set(err, "out of memory");
	}
	int njobs = 0;
	for (int i = 0; i < nsizes; i++) {
		if (sizes[i] < 1 || g->batch % sizes[i] || graph_size_index(g, sizes[i]) < 0)
			continue;
		job[njobs].b = sizes[i];
		job[njobs].has_start = !stop_requested() &&
				       warm_start(g, o, &searched, sizes[i], &job[njobs].start);
		info->warm_starts += job[njobs].has_start;
		njobs++;
	}
	partition_release(&searched);
	qsort(job, njobs, sizeof *job, by_promise);
	enum status st = STATUS_OK;
	for (int i = 0; i < njobs; i++) {
		struct pmilp pm;
		struct solver_result sr = {0};
		double share = deadline > 0 ? (deadline - clock_seconds()) / (njobs - i) : 0;
		if (stop_requested() || (deadline > 0 && share < 1e-3)) {
			info->certified = false;   /* sizes left unsolved */
			info->stopped_by = stop_requested() ? "interrupt" : "time_limit";
			info->stopped += njobs - i;
			break;
		}
		struct partition p;
		if (pmilp_build(g, o->devices, job[i].b, o->sequential, &pm, &why))
			continue;
		if (any && pm.mb * pm.T_lower >= best->iteration_time) {
			info->pruned++;   /* no plan at this size can be shorter */
			pmilp_release(&pm);
			continue;
		}
		double *start = job[i].has_start ? encode_start(g, &pm, &job[i].start) : NULL;
		info->cutoffs += start != NULL;
		/* the start sets the cutoff (T's upper bound) and is the answer
		 * if the solver has none; it is not handed over as a MIP start:
		 * CBC then solves without its preprocessor (cbc.c), 2x slower here */
		double ub = start ? pm.m->cols[pm.T].ub : INFINITY, *alt = NULL;
		bool done = ideals && solve_by_ideals(g, &pm, o->devices, ub,
						      deadline > 0 ? clock_seconds() + share : 0, &sr,
						      &alt, info);
		if (!done && !milp) {
			st = err_set(err, "graph '%s': too big for the DP over upsets (more than 64 operators, or too many upsets or states at %d devices): use --solver cbc or glpk",
				     g->name, o->devices);
		} else if (!done) {
			struct solver_options so = {.time_limit = share, .threads = 1, .rel_gap = 1e-9,
						    .kill_at = kill_at};
			info->columns += pm.m->ncols;
			info->rows += pm.m->nrows;
			info->milp_solves++;
			st = solver_solve_isolated(be, pm.m, &so, &sr, err);
		}
		if (st) {
			free(start);
			pmilp_release(&pm);
			break;
		}
		info->seconds += sr.seconds;
		info->solves++;
		if (sr.outcome != OUTCOME_OPTIMAL && sr.outcome != OUTCOME_INFEASIBLE) {
			info->certified = false;
			info->stopped_by = stop_requested() ? "interrupt" :
					   sr.outcome == OUTCOME_TIME_LIMIT ? "time_limit" : info->stopped_by;
		}
		/* infeasible below a feasible start's cutoff: no proof */
		if (sr.outcome == OUTCOME_INFEASIBLE && start)
			info->certified = false;
		info->infeasible += sr.outcome == OUTCOME_INFEASIBLE && !start;
		info->stopped += sr.outcome == OUTCOME_TIME_LIMIT && !sr.has_solution && !start;
		if (!sr.has_solution && !start) {
			solver_result_release(&sr);
			pmilp_release(&pm);
			continue;
		}
		const double *x = sr.has_solution ? sr.x : start;
		double obj = sr.has_solution ? sr.objective : milp_objective(pm.m, start);
		st = decode_plan(g, &pm, x, o->sequential, &p, err);
		struct partition second = {0};
		bool has_second = !st && alt && !decode_plan(g, &pm, alt, o->sequential, &second, &why);
		free(alt);
		solver_result_release(&sr);
		free(start);
		pmilp_release(&pm);
		if (st)
			break;
		/* the plan, evaluated on its own, must have the engine's bottleneck */
		if (!at_objective(p.bottleneck, obj))
			info->certified = false;
		/* sizes compete on the simulated iteration (the number plan and
		 * exec see); a plan 1f1b-dag cannot run in memory never wins.
		 * Of the plans at the optimum (the engine's, the DP's second,
		 * the start when its bottleneck is the optimum too) the shortest
		 * is kept */
		simulate_or_never(g, &p);
		if (has_second && at_objective(second.bottleneck, obj)) {
			simulate_or_never(g, &second);
			keep_shorter(&p, &second);
		} else if (has_second) {
			partition_release(&second);
		}
		if (job[i].has_start && job[i].start.bottleneck <= p.bottleneck * (1 + 1e-9)) {
			keep_shorter(&p, &job[i].start);
			job[i].has_start = false;
		}
		if (!isfinite(p.iteration_time)) {
			partition_release(&p);
			continue;
		}
		if (!any || p.iteration_time < best->iteration_time) {
			partition_release(best);
			*best = p;
			any = true;
		} else {
			partition_release(&p);
		}
	}
	for (int i = 0; i < njobs; i++)
		if (job[i].has_start)
			partition_release(&job[i].start);
	free(job);
	if (st) {
		partition_release(best);
		return STATUS_ERROR;
	}
	if (!any && info->stopped_by && !strcmp(info->stopped_by, "interrupt"))
		return err_set(err, "graph '%s': interrupted before the exact partitioner found a partition",
			       g->name);
	if (!any)
		return no_partition(g, o->devices, info, err);
	info->iteration_bound = iteration_bound(g, o, nsizes, sizes, deadline,
						&info->iteration_bound_exact);
	info->outcome = info->certified ? OUTCOME_OPTIMAL : OUTCOME_FEASIBLE;
	return STATUS_OK;
}
