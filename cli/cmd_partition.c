/* pipeopt partition GRAPH --devices D: GraphPipe's partitioner. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "methods/method.h"
#include "methods/settings.h"
#include "partition/bridge.h"
#include "partition/partition.h"
#include "common/clock.h"
#include "solvers/solver.h"

static const char usage_text[] =
	"usage: pipeopt partition GRAPH --devices D [options]\n\n"
	"Cut a model graph into pipeline stages that form a DAG (GraphPipe), with\n"
	"devices per stage (data parallel, powers of two) and a micro-batch size,\n"
	"under the memory limit (the model is in partition/partition.h). The default\n"
	"--method search minimises the iteration time plan and exec see (1f1b-dag on\n"
	"the stage DAG, simulated) over every convex partition, by a local search\n"
	"from GraphPipe's DP and the sequential DP, never slower than either;\n"
	"--method dp is GraphPipe's DP (bottleneck time per sample over series-\n"
	"parallel segments), --method ilp the exact minimum of that objective\n"
	"(--solver: a DP over the graph's upsets, or the MILP; auto: the DP where\n"
	"the graph is small enough, else CBC). Reports\n"
	"the stages, the stage DAG, in-flight micro-batches, time per sample, the\n"
	"simulated iteration time and GraphPipe's estimate (m - 1) * bottleneck +\n"
	"the longest stage path.\n"
	"--method ilp certifies the bottleneck, not the iteration: at every size\n"
	"solved, no convex partition has a smaller bottleneck; warm-started by the\n"
	"search and the DPs (their bottleneck is the cutoff), sizes in order of\n"
	"promise, a size skipped when m x its lower bound cannot beat the plan.\n"
	"--time-limit is for the whole partition (the warm start takes at most a\n"
	"tenth, each size an equal share of what is left). -o writes the\n"
	"partition as a schedule instance.\n";

#define MAX_SIZES 16

struct popts {
	struct partition_settings s;
	struct run_opts run;
	struct partition_options p;
	int sizes[MAX_SIZES];
	bool ilp, dp;
};

static int parse(int argc, char **argv, struct popts *o, char **path)
{
	memset(o, 0, sizeof *o);
	int rc = cli_parse_graph_command(&method_partition, &o->s, &o->s.devices, &o->run,
					 CLI_OUTPUT | CLI_JSON, usage_text, argc, argv, path);
	if (rc)
		return rc;
	o->p.devices = (int)o->s.devices;
	o->p.sequential = o->s.sequential;
	o->ilp = !strcmp(o->s.method, "ilp");
	o->dp = !strcmp(o->s.method, "dp");
	if (o->s.sizes) {
		if (!cli_sizes(o->s.sizes, MAX_SIZES, 1 << 24, o->sizes, &o->p.nsizes))
			return cli_usage("partition", "--microbatch-sizes needs up to %d ascending whole numbers >= 1, comma-separated",
					 MAX_SIZES);
		o->p.sizes = o->sizes;
	}
	return 0;
}

static json_t *result_json(const struct graph *g, const struct partition *p, double seconds,
			   bool sequential, const char *method)
{
	json_t *stages = json_array(), *edges = json_array(), *dev = json_array();
	json_t *inflight = json_array(), *times = json_array(), *mem = json_array();
	for (int s = 0; s < p->nstages; s++) {
		json_t *ops = json_array();
		for (int i = 0; i < p->stages[s].nops; i++)
			json_array_append_new(ops, json_string(g->ops[p->stages[s].ops[i]].name));
		json_array_append_new(stages, ops);
		json_array_append_new(dev, json_integer(p->stages[s].degree));
		json_array_append_new(inflight, json_integer(p->stages[s].inflight));
		json_array_append_new(times, json_real(p->stages[s].time));
		json_array_append_new(mem, json_real(p->stages[s].memory));
	}
	for (int e = 0; e < p->nedges; e++)
		json_array_append_new(edges, json_pack("[i,i]", p->edges[e][0], p->edges[e][1]));
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:i,s:i,s:o,s:o,s:o,s:f,s:f,s:f,s:i,s:i,s:f}",
		"graph", g->name, "method", method, "pipeline", sequential ? "sequential" : "graph",
		"stages", stages, "stage_edges", edges, "devices_per_stage", dev,
		"microbatch_size", p->microbatch, "microbatches", p->microbatches,
		"inflight", inflight, "stage_time_us", times, "stage_memory_bytes", mem,
		"bottleneck_us", p->bottleneck, "time_per_sample", p->time_per_sample,
		"iteration_time", p->iteration_time, "depth", p->depth,
		"devices_used", p->devices_used, "seconds", seconds);
}

static void print_human(const struct graph *g, const struct partition *p, double seconds,
			bool sequential)
{
	printf("graph       %s: %d operators on %d of %d devices, %s pipeline\n", g->name, g->nops,
	       p->devices_used, g->machine.devices, sequential ? "sequential" : "graph");
	printf("micro-batch %d samples, %d micro-batches; depth %d stages\n", p->microbatch,
	       p->microbatches, p->depth);
	for (int s = 0; s < p->nstages; s++) {
		const struct stage *st = &p->stages[s];
		printf("stage %-4d x%-3d in flight %-3d %10.1f us/micro-batch %10.3g bytes:", s,
		       st->degree, st->inflight, st->time, st->memory);
		for (int i = 0; i < st->nops && i < 8; i++)
			printf(" %s", g->ops[st->ops[i]].name);
		if (st->nops > 8)
			printf(" ... (%d ops)", st->nops);
		printf("\n");
	}
	printf("time/sample %.4g us (bottleneck %.4g us per micro-batch)\n", p->time_per_sample,
	       p->bottleneck);
	printf("iteration   %.6g us (1f1b-dag on the stage DAG, simulated: what plan and exec see); %.3f s search\n",
	       p->iteration_time, seconds);
	printf("estimate    %.6g us (GraphPipe's: (m - 1) bottleneck + longest stage path)\n",
	       p->estimate);
}

int cmd_partition(int argc, char **argv)
{
	struct popts o;
	char *path;
	int rc = parse(argc, argv, &o, &path);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct graph *g = NULL;
	struct partition p = {0};
	struct ilp_info info = {0};
	struct search_info si = {0};
	double t0 = clock_seconds();
	if (graph_read(path, &g, &err) ||
	    (o.s.costs && graph_apply_costs(g, o.s.costs, &err)) ||
	    (o.ilp ? partition_ilp(g, &o.p, o.s.solver, o.run.time_limit, &p, &info, &err)
		   : o.dp ? partition_dp(g, &o.p, &p, &err)
		   : partition_search(g, &o.p, o.run.time_limit, &p, &si, &err))) {
		rc = cli_fail(o.run.json, &err);
		goto out;
	}
	double seconds = clock_seconds() - t0;
	if (o.run.output) {
		struct instance *in = NULL;
		enum status st = partition_instance(g, &p, g->name, &in, &err);
		if (!st)
			st = instance_write(in, o.run.output, &err);
		instance_free(in);
		if (st) {
			rc = cli_fail(o.run.json, &err);
			goto out;
		}
	}
	if (o.run.json) {
		json_t *j = result_json(g, &p, seconds, o.p.sequential, o.s.method);
		json_object_set_new(j, "iteration_time_estimate", json_real(p.estimate));
		bool proven = o.ilp && info.certified;
		json_object_set_new(j, "status", json_string(outcome_name(proven ? OUTCOME_OPTIMAL :
									 OUTCOME_FEASIBLE)));
		if (o.ilp) {
			json_object_set_new(j, "certified", json_boolean(info.certified));
			json_object_set_new(j, "solver", json_string(o.s.solver));
			json_object_set_new(j, "milp", json_pack("{s:i,s:i,s:i,s:i,s:i,s:I,s:f,s:i,s:i,s:i,s:s}",
				"solves", info.solves, "milp_solves", info.milp_solves,
				"columns", info.columns, "rows", info.rows,
				"ideal_solves", info.ideal_solves, "ideal_states", (json_int_t)info.ideal_states,
				"solver_seconds", info.seconds, "warm_starts", info.warm_starts,
				"cutoffs", info.cutoffs, "sizes_pruned", info.pruned,
				"certifies", "the minimum bottleneck_us at each size solved"));
			if (isfinite(info.iteration_bound)) {
				json_object_set_new(j, "iteration_bound_us", json_real(info.iteration_bound));
				json_object_set_new(j, "iteration_bound_exact", json_boolean(info.iteration_bound_exact));
				json_object_set_new(j, "iteration_gap",
						    json_real(verdict_gap(p.iteration_time, info.iteration_bound)));
			}
			if (info.stopped_by)
				json_object_set_new(j, "stopped_by", json_string(info.stopped_by));
		} else if (!o.dp) {
			json_object_set_new(j, "search", json_pack("{s:i,s:i,s:i,s:i}", "simulations", si.sims,
				"seed_simulations", si.seed_sims, "moves", si.moves, "repeats_cached", si.cached));
			if (si.stopped_by)
				json_object_set_new(j, "stopped_by", json_string(si.stopped_by));
		}
		cli_print_json(j);
	} else {
		print_human(g, &p, seconds, o.p.sequential);
		if (o.ilp)
			printf("exact       %s: %d sizes solved (%d by the DP over upsets, %ld states; %d by a MILP, %d columns, %d rows), %.2f s; %s\n",
			       o.s.solver, info.solves, info.ideal_solves, info.ideal_states,
			       info.milp_solves, info.columns, info.rows, info.seconds,
			       info.certified ? "bottleneck certified minimal at each size (the iteration is not proven)" :
			       "bottleneck not proven minimal");
		if (o.ilp && isfinite(info.iteration_bound))
			printf("bound       %.6g us: no partition at any size tried runs a shorter iteration (m x the least busy time of the busiest stage, comm and memory relaxed%s); this plan is %.2f %% above it\n",
			       info.iteration_bound, info.iteration_bound_exact ? "" : "; bound_T at some sizes",
			       100 * (p.iteration_time / info.iteration_bound - 1));
		if (!o.ilp && !o.dp)
			printf("search      %d simulations (%d of the DP seeds), %d repeats answered from memory, %d moves\n",
			       si.sims, si.seed_sims, si.cached, si.moves);
		if (info.stopped_by || si.stopped_by)
			printf("stopped by  %s\n", info.stopped_by ? info.stopped_by : si.stopped_by);
	}
out:
	partition_release(&p);
	graph_free(g);
	return rc;
}
