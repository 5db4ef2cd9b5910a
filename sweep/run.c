/* Running one sweep task in process (run.h). */
#include "sweep/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga/ga.h"
#include "graph/graph.h"
#include "partition/partition.h"
#include "sched/bound.h"
#include "common/clock.h"
#include "sched/family.h"
#include "sched/instance.h"
#include "sched/sim.h"
#include "solvers/exact.h"
#include "solvers/solver.h"

#ifndef PIPEOPT_VERSION
#define PIPEOPT_VERSION "unknown"
#endif

static const char *kind_name(enum method_kind k)
{
	static const char *const names[] = {"family", "solve", "search", "partition"};
	return names[k];
}

/* The row's fixed keys, outputs null until set. */
static json_t *row_new(const struct sweep_spec *s, const struct sweep_task *t)
{
	const struct sweep_method *m = &s->methods[t->method];
	return json_pack("{s:s,s:s,s:i,s:i,s:O,s:n,s:s,s:s,s:o,s:s,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:b,s:f,s:n,s:n,s:s}",
		"key", t->key, "sweep", s->name, "point", t->point, "rep", t->rep,
		"params", s->points[t->point].params, "instance", "method", m->name,
		"kind", kind_name(m->kind),
		"seed", t->has_seed ? json_integer((json_int_t)t->seed) : json_null(),
		"status", "error", "objective", "makespan", "span", "bubble_ratio", "lower_bound",
		"bound", "gap", "certified", false, "seconds", 0.0, "solver", "solver_version",
		"pipeopt_version", PIPEOPT_VERSION);
}

static void row_fail(json_t *row, const char *status, const char *msg)
{
	json_object_set_new(row, "status", json_string(status));
	json_object_set_new(row, "error", json_string(msg));
}

/* The schedule's simulated outputs into the row; false (row failed) if the
 * simulator refuses it. */
static bool row_schedule(json_t *row, const struct instance *in, const struct schedule *sc,
			 const char *refused, int64_t *objective)
{
	struct sim *sim = sim_new(in);
	struct sim_result r;
	struct error err;
	if (!sim || sim_run(sim, sc, &r, &err)) {
		row_fail(row, sim ? refused : "error", sim ? err.msg : "out of memory");
		sim_free(sim);
		return false;
	}
	json_object_set_new(row, "objective", json_integer(r.objective));
	json_object_set_new(row, "makespan", json_integer(r.makespan));
	json_object_set_new(row, "span", json_integer(r.span));
	json_object_set_new(row, "bubble_ratio", json_real(r.bubble_ratio));
	*objective = r.objective;
	sim_free(sim);
	return true;
}

/* bound, gap, certified, status from a proven bound. */
static void row_bound(json_t *row, int64_t objective, int64_t bound, bool solver_certified)
{
	json_object_set_new(row, "bound", json_integer(bound));
	json_object_set_new(row, "gap", json_real(objective > 0 ? (double)(objective - bound) / objective : 0));
	bool certified = objective <= bound || solver_certified;
	json_object_set_new(row, "certified", json_boolean(certified));
	json_object_set_new(row, "status", json_string(certified ? "optimal" : "feasible"));
}

static void run_family(json_t *row, const struct sweep_method *m, const struct instance *in,
		       int64_t lb)
{
	struct schedule *sc = NULL;
	struct error err;
	int64_t obj;
	if (family_generate(m->family, in, &sc, &err)) {
		row_fail(row, "unsupported", err.msg);
		return;
	}
	/* a family's order that breaks the memory limit: the family does not
	 * support this instance (not a failure of the run) */
	if (row_schedule(row, in, sc, "unsupported", &obj))
		row_bound(row, obj, lb, false);
	schedule_free(sc);
}

static void run_solve(json_t *row, const struct sweep_spec *s, const struct sweep_method *m,
		      const struct instance *in)
{
	struct exact_options o = {.solver = m->solver, .threads = 1,
				  .time_limit = fmin(m->time_limit, s->time_limit)};
	o.formulation = !strcmp(m->formulation, "disjunctive") ? CHOOSE_DISJUNCTIVE :
			!strcmp(m->formulation, "time-indexed") ? CHOOSE_TIME_INDEXED : CHOOSE_AUTO;
	struct exact_result r;
	struct error err;
	int64_t obj;
	json_object_set_new(row, "solver", json_string(m->solver));
	if (exact_solve(in, &o, &r, &err)) {
		row_fail(row, "error", err.msg);
		return;
	}
	if (r.solved)
		json_object_set_new(row, "solver_version", json_string(r.solver_version));
	if (r.schedule && row_schedule(row, in, r.schedule, "error", &obj)) {
		/* exact.c certifies only after its own re-simulation; ours must agree */
		bool agree = obj == r.objective;
		row_bound(row, obj, r.bound, r.certified && agree);
		if (!r.certified)
			json_object_set_new(row, "status", json_string(r.status));
		if (!agree)
			row_fail(row, "error", "the solver's objective and the re-simulation disagree");
	}
	exact_result_release(&r);
}

static void run_search(json_t *row, const struct sweep_spec *s, const struct sweep_method *m,
		       const struct sweep_task *t, const struct instance *in, int64_t lb)
{
	struct ga_options o;
	struct ga_result r;
	struct error err;
	int64_t obj;
	ga_options_init(&o);
	o.seed = t->seed;
	o.threads = 1;
	o.time_limit = fmin(m->time_limit, s->time_limit);
	if (m->population)
		o.population = m->population;
	o.generations = m->generations;
	if (ga_run(in, &o, &r, &err)) {
		row_fail(row, "error", err.msg);
		return;
	}
	if (row_schedule(row, in, r.schedule, "error", &obj))
		row_bound(row, obj, lb, false);
	json_object_set_new(row, "generations", json_integer(r.generations));
	json_object_set_new(row, "time_to_best", json_real(r.time_to_best));
	ga_result_release(&r);
}

static void run_partition(json_t *row, const struct sweep_spec *s, const struct sweep_method *m,
			  const struct sweep_point *p)
{
	struct graph *g = NULL;
	struct partition part;
	struct ilp_info info = {0};
	struct error err;
	struct partition_options o = {.devices = p->devices, .sequential = m->sequential};
	memset(&part, 0, sizeof part);
	if (graph_read(p->graph, &g, &err)) {
		row_fail(row, "error", err.msg);
		return;
	}
	json_object_set_new(row, "instance", json_string(g->name));
	enum status st = m->ilp ? partition_ilp(g, &o, m->solver, fmin(m->time_limit, s->time_limit),
						 &part, &info, &err)
				: partition_dp(g, &o, &part, &err);
	if (st) {
		row_fail(row, "error", err.msg);
	} else {
		json_object_set_new(row, "objective", json_real(part.iteration_time));
		json_object_set_new(row, "time_per_sample", json_real(part.time_per_sample));
		json_object_set_new(row, "stages", json_integer(part.nstages));
		json_object_set_new(row, "depth", json_integer(part.depth));
		json_object_set_new(row, "microbatch", json_integer(part.microbatch));
		json_object_set_new(row, "certified", json_boolean(m->ilp && info.certified));
		json_object_set_new(row, "status", json_string(m->ilp && info.certified ? "optimal" : "feasible"));
		if (m->ilp)
			json_object_set_new(row, "solver", json_string(m->solver));
	}
	partition_release(&part);
	graph_free(g);
}

json_t *sweep_run_task(const struct sweep_spec *s, const struct sweep_task *t)
{
	const struct sweep_method *m = &s->methods[t->method];
	const struct sweep_point *p = &s->points[t->point];
	json_t *row = row_new(s, t);
	if (!row)
		return NULL;
	double t0 = clock_seconds();
	if (m->kind == METHOD_PARTITION) {
		run_partition(row, s, m, p);
	} else {
		struct instance *in = NULL;
		struct bounds b;
		struct error err;
		if (instance_parse(p->instance, p->key, &in, &err) || bound_compute(in, &b, &err)) {
			row_fail(row, "error", err.msg);
		} else {
			json_object_set_new(row, "instance", json_string(in->name));
			json_object_set_new(row, "lower_bound", json_integer(b.best));
			if (m->kind == METHOD_FAMILY)
				run_family(row, m, in, b.best);
			else if (m->kind == METHOD_SOLVE)
				run_solve(row, s, m, in);
			else
				run_search(row, s, m, t, in, b.best);
		}
		instance_free(in);
	}
	json_object_set_new(row, "seconds", json_real(clock_seconds() - t0));
	return row;
}
