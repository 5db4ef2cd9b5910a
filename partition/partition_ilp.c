/*
 * The exact partitioner: the MILP of formulate/partition_milp.c at every
 * micro-batch size, solved by a backend (solvers/), decoded and evaluated
 * with the same cost model as the DP (partition_evaluate). A size's result
 * is certified when the solver proves optimality and the decoded plan,
 * evaluated independently, has exactly the solver's bottleneck.
 */
#include "partition/partition.h"
#include "partition/bridge.h"
#include "common/clock.h"
#include "common/stop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulate/partition_milp.h"
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

/* No size gave a partition: say why, and only what the solver proved. */
static enum status no_partition(const struct graph *g, int devices, struct ilp_info *info,
				struct error *err)
{
	if (info->stopped) {
		info->outcome = OUTCOME_TIME_LIMIT;
		return err_set(err, "graph '%s': no partition onto %d devices found by the MILP within the time limit (%d micro-batch sizes stopped before a solution)",
			       g->name, devices, info->stopped);
	}
	if (info->infeasible && info->infeasible == info->solves) {
		info->outcome = OUTCOME_INFEASIBLE;
		return err_set(err, "graph '%s': no partition onto %d devices: the MILP is infeasible at each of the %d micro-batch sizes tried (memory too tight)",
			       g->name, devices, info->solves);
	}
	info->outcome = OUTCOME_NO_SOLUTION;
	return err_set(err, "graph '%s': no partition onto %d devices found by the MILP (%d micro-batch sizes solved, %d proven infeasible)",
		       g->name, devices, info->solves, info->infeasible);
}

enum status partition_ilp(const struct graph *g, const struct partition_options *o,
			  const char *solver, double time_limit, struct partition *best,
			  struct ilp_info *info, struct error *err)
{
	const struct solver_backend *be = solver_find(solver ? solver : "cbc");
	memset(best, 0, sizeof *best);
	memset(info, 0, sizeof *info);
	info->certified = true;
	info->outcome = OUTCOME_ERROR;
	if (!be)
		return err_set(err, "unknown solver '%s'", solver);
	if (o->devices < 1 || o->devices > g->machine.devices)
		return err_set(err, "graph '%s': --devices %d: the machine has %d", g->name,
			       o->devices, g->machine.devices);
	int nsizes = o->nsizes ? o->nsizes : g->nsizes;
	const int *sizes = o->nsizes ? o->sizes : g->microbatch_sizes;
	bool any = false;
	/* time_limit is for the whole partition: each size gets an equal share
	 * of what is left, so time a size does not use goes to the next */
	double t0 = clock_seconds();
	double deadline = time_limit > 0 ? t0 + time_limit : 0;
	double kill_at = time_limit > 0 ? stop_kill_at(t0, time_limit) : 0;
	for (int i = 0; i < nsizes; i++) {
		struct pmilp pm;
		struct solver_result sr = {0};
		double share = deadline > 0 ? (deadline - clock_seconds()) / (nsizes - i) : 0;
		if (stop_requested() || (deadline > 0 && share < 1e-3)) {
			info->certified = false;   /* sizes left unsolved */
			info->stopped_by = stop_requested() ? "interrupt" : "time_limit";
			info->stopped += nsizes - i;
			break;
		}
		struct solver_options so = {.time_limit = share, .threads = 1, .rel_gap = 1e-9,
					    .kill_at = kill_at};
		struct partition p;
		struct error why;
		if (sizes[i] < 1 || g->batch % sizes[i] ||
		    pmilp_build(g, o->devices, sizes[i], o->sequential, &pm, &why))
			continue;
		info->columns += pm.m->ncols;
		info->rows += pm.m->nrows;
		if (solver_solve_isolated(be, pm.m, &so, &sr, err)) {
			pmilp_release(&pm);
			partition_release(best);
			return STATUS_ERROR;
		}
		info->seconds += sr.seconds;
		info->solves++;
		if (sr.outcome != OUTCOME_OPTIMAL) {
			info->certified = false;
			info->stopped_by = stop_requested() ? "interrupt" :
					   sr.outcome == OUTCOME_TIME_LIMIT ? "time_limit" : info->stopped_by;
		}
		info->infeasible += sr.outcome == OUTCOME_INFEASIBLE;
		info->stopped += sr.outcome == OUTCOME_TIME_LIMIT && !sr.has_solution;
		if (!sr.has_solution) {
			solver_result_release(&sr);
			pmilp_release(&pm);
			continue;
		}
		enum status st = decode_plan(g, &pm, sr.x, o->sequential, &p, err);
		double obj = sr.objective;
		solver_result_release(&sr);
		pmilp_release(&pm);
		if (st) {
			partition_release(best);
			return STATUS_ERROR;
		}
		/* the plan, evaluated on its own, must have the solver's bottleneck */
		if (fabs(p.bottleneck - obj) > 1e-6 * (obj > 1 ? obj : 1) + 1e-6)
			info->certified = false;
		/* sizes compete on the simulated iteration (the number plan and
		 * exec see); a plan 1f1b-dag cannot run in memory is skipped */
		struct error serr;
		if (partition_simulate(g, &p, &serr)) {
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
	if (!any && info->stopped_by && !strcmp(info->stopped_by, "interrupt"))
		return err_set(err, "graph '%s': interrupted before the MILP found a partition",
			       g->name);
	if (!any)
		return no_partition(g, o->devices, info, err);
	info->outcome = info->certified ? OUTCOME_OPTIMAL : OUTCOME_FEASIBLE;
	return STATUS_OK;
}
