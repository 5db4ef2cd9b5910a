/* The partition method: a model graph cut into a DAG of stages, by the
 * search (the default), GraphPipe's DP or the exact MILP (partition/). */
#include "methods/method.h"
#include "methods/settings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *partition_method_at(int i)
{
	static const char *const names[] = {"search", "dp", "ilp"};
	return i >= 0 && i < 3 ? names[i] : NULL;
}

/* The exact partitioner's engines: the DP over upsets, auto (that DP, or
 * CBC where the graph is too big for it), then every MILP backend. */
static const char *partition_solver_at(int i)
{
	static const char *const own[] = {"auto", "ideals"};
	return i >= 0 && i < 2 ? own[i] : solve_solver_at(i - 2);
}

#define OFF(f) offsetof(struct partition_settings, f)
const struct opt partition_opts[] = {
	{.name = "method", .type = OPT_CHOICE, .choice = partition_method_at, .dflt = "search",
	 .offset = OFF(method), .where = OPT_BOTH,
	 .help = "a local search over every convex partition timed by simulation, seeded by the DP's; GraphPipe's DP over the series-parallel tree; or the exact partitioner (small graphs: a DP over upsets or the MILP)"},
	{.name = "sequential", .type = OPT_FLAG, .offset = OFF(sequential), .where = OPT_BOTH,
	 .help = "stages form a chain (the sequential pipeline baseline)"},
	{.name = "solver", .type = OPT_CHOICE, .choice = partition_solver_at, .dflt = "auto",
	 .offset = OFF(solver), .where = OPT_BOTH,
	 .help = "the exact engine (ilp): ideals (a DP over the graph's upsets), a MILP backend, or auto (the DP, the MILP with CBC where the graph is too big for it)"},
	{.name = "devices", .type = OPT_INT, .arg = "D", .lo = 1, .hi = 4096,
	 .offset = OFF(devices), .where = OPT_CLI,
	 .help = "devices to use (required; in a sweep, the point's)"},
	{.name = "microbatch-sizes", .type = OPT_STRING, .arg = "L", .dflt = "the graph's",
	 .offset = OFF(sizes), .where = OPT_CLI,
	 .help = "comma-separated micro-batch sizes to try, ascending"},
	{.name = "costs", .type = OPT_STRING, .arg = "COSTS", .offset = OFF(costs),
	 .where = OPT_CLI, .help = "a cost table ('pipeopt profile') instead of the graph's costs"},
	{0}};

static enum status run(const struct method_call *c, struct method_result *r, struct error *err)
{
	const struct partition_settings *s = c->settings;
	struct partition p;
	struct ilp_info info = {0};
	struct partition_options o = {.devices = c->devices, .sequential = s->sequential};
	struct error why;
	struct search_info si;
	bool ilp = !strcmp(s->method, "ilp");
	memset(&p, 0, sizeof p);
	enum status st = ilp ? partition_ilp(c->g, &o, s->solver, c->run->time_limit, &p, &info, &why)
			 : !strcmp(s->method, "dp") ? partition_dp(c->g, &o, &p, &why)
			 : partition_search(c->g, &o, c->run->time_limit, &p, &si, &why);
	if (st) {
		/* the MILP's verdict when it ran and found none; else an error */
		method_refuse(r, ilp ? info.outcome : OUTCOME_ERROR, why.msg);
		return STATUS_OK;
	}
	/* the objective is the simulated iteration: the exact partitioner
	 * certifies the minimum bottleneck at each size (bottleneck_certified),
	 * not the iteration; its iteration bound (m x the least busy time of
	 * the busiest stage, partition_ilp.c) is a proven lower bound on every
	 * partition's, so it is the verdict's bound (certified only when the
	 * plan meets it); the search and the DP claim none */
	r->v = (struct verdict){.outcome = OUTCOME_FEASIBLE, .has_objective = true,
				.objective = p.iteration_time, .gap = 1};
	if (ilp && isfinite(info.iteration_bound))
		r->v = verdict_of(p.iteration_time, info.iteration_bound, false, NULL, OUTCOME_FEASIBLE);
	r->extra = json_pack("{s:f,s:i,s:i,s:i,s:f}", "time_per_sample", p.time_per_sample,
			     "stages", p.nstages, "depth", p.depth, "microbatch", p.microbatch,
			     "iteration_time_estimate", p.estimate);
	if (ilp) {
		json_object_set_new(r->extra, "solver", json_string(s->solver));
		json_object_set_new(r->extra, "bottleneck_certified", json_boolean(info.certified));
		json_object_set_new(r->extra, "bottleneck_us", json_real(p.bottleneck));
	}
	partition_release(&p);
	return STATUS_OK;
}

const struct method method_partition = {
	.name = "partition",
	.summary = "cut a model graph into a DAG of pipeline stages (a search timed by simulation, GraphPipe's DP or the MILP)",
	.opts = partition_opts,
	.size = sizeof(struct partition_settings),
	.on_graph = true,
	.time_limit = "60",   /* the whole partition (ilp: shared among the sizes) */
	.run = run,
};
