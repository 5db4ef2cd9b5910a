/* Running one sweep task in process (run.h). */
#include "sweep/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "graph/graph.h"
#include "methods/method.h"
#include "sched/bound.h"
#include "sched/instance.h"

#ifndef PIPEOPT_VERSION
#define PIPEOPT_VERSION "unknown"
#endif

/* The row's fixed keys, outputs null until set. */
static json_t *row_new(const struct sweep_spec *s, const struct sweep_task *t)
{
	const struct sweep_method *m = &s->methods[t->method];
	return json_pack("{s:s,s:s,s:i,s:i,s:O,s:n,s:s,s:s,s:O,s:s,s:s,s:o,s:s,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:b,s:n,s:f,s:n,s:n,s:s}",
		"key", t->key, "sweep", s->name, "point", t->point, "rep", t->rep,
		"params", s->points[t->point].params, "instance", "method", m->name,
		"kind", m->method->name, "settings", m->settings_json,
		"settings_digest", m->digest, "input_digest", s->points[t->point].digest,
		"seed", t->has_seed ? json_integer((json_int_t)t->seed) : json_null(),
		"status", "error", "objective", "makespan", "span", "bubble_ratio", "lower_bound",
		"bound", "gap", "certified", false, "certified_by", "seconds", 0.0, "solver",
		"solver_version", "pipeopt_version", PIPEOPT_VERSION);
}

/* The method's result into the row: the verdict (sched/verdict.h's one
 * writer), the simulated times of a schedule, the method's own keys. */
static void row_result(json_t *row, const struct method_result *r, bool schedule)
{
	verdict_json(&r->v, row);
	if (r->v.outcome == OUTCOME_ERROR || r->v.outcome == OUTCOME_UNSUPPORTED)
		json_object_set_new(row, "error", json_string(r->error));
	if (schedule && r->v.has_objective) {
		json_object_set_new(row, "makespan", json_integer(r->makespan));
		json_object_set_new(row, "span", json_integer(r->span));
		json_object_set_new(row, "bubble_ratio", json_real(r->bubble_ratio));
	}
	if (r->extra)
		json_object_update(row, r->extra);
}

/* An instance point: parse, bound, run. */
static void run_on_instance(json_t *row, const struct sweep_method *m, const struct sweep_point *p,
			    struct method_call *call)
{
	struct instance *in = NULL;
	struct bounds b;
	struct error err;
	struct method_result r = {0};
	if (instance_parse(p->instance, p->key, &in, &err) || bound_compute(in, &b, &err)) {
		json_object_set_new(row, "error", json_string(err.msg));
	} else {
		json_object_set_new(row, "instance", json_string(in->name));
		json_object_set_new(row, "lower_bound", json_integer(b.best));
		call->in = in;
		call->lower_bound = b.best;
		if (m->method->run(call, &r, &err))
			json_object_set_new(row, "error", json_string(err.msg));
		else
			row_result(row, &r, true);
	}
	method_result_release(&r);
	instance_free(in);
}

static void run_on_graph(json_t *row, const struct sweep_method *m, const struct sweep_point *p,
			 struct method_call *call)
{
	struct graph *g = NULL;
	struct error err;
	struct method_result r = {0};
	if (graph_read(p->graph, &g, &err)) {
		json_object_set_new(row, "error", json_string(err.msg));
	} else {
		json_object_set_new(row, "instance", json_string(g->name));
		call->g = g;
		call->devices = p->devices;
		if (m->method->run(call, &r, &err))
			json_object_set_new(row, "error", json_string(err.msg));
		else
			row_result(row, &r, false);
	}
	method_result_release(&r);
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
	struct method_call call = {.settings = m->settings, .run = &m->run, .seed = t->seed};
	if (m->method->on_graph)
		run_on_graph(row, m, p, &call);
	else
		run_on_instance(row, m, p, &call);
	json_object_set_new(row, "seconds", json_real(clock_seconds() - t0));
	return row;
}
