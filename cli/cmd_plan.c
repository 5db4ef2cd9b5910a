/*
 * pipeopt plan GRAPH --devices D: partition the graph (GraphPipe's DP),
 * then schedule the stage DAG: GraphPipe's fixed 1F1B on the DAG
 * (family 1f1b-dag) and the GA's search, both simulated; report time per
 * sample and the iteration time of each.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "ga/ga.h"
#include "graph/bridge.h"
#include "graph/partition.h"
#include "sched/family.h"

static const char usage_text[] =
	"usage: pipeopt plan GRAPH --devices D [options]\n\n"
	"Partition a model graph into a DAG of stages ('pipeopt partition'), turn\n"
	"the plan into a schedule instance, and schedule it twice: GraphPipe's\n"
	"fixed 1F1B on the DAG (family 1f1b-dag) and the GA ('pipeopt search').\n"
	"Both are simulated; the iteration times (makespans, microseconds) and\n"
	"the time per sample are reported.\n\n"
	"  --devices D              devices to use (required)\n"
	"  --sequential             a chain of stages instead (baseline)\n"
	"  --time-limit S           seconds for the GA (default 10)\n"
	"  --seed N                 GA random seed (default 1)\n"
	"  -o, --output INSTANCE    write the schedule instance\n"
	"  --json                   print one JSON object\n";

struct plan_opts {
	struct partition_options p;
	double time_limit;
	uint64_t seed;
	const char *output;
	bool json;
};

static int parse(int argc, char **argv, struct plan_opts *o)
{
	static const struct option opts[] = {
		{"devices", required_argument, 0, 'd'}, {"sequential", no_argument, 0, 's'},
		{"time-limit", required_argument, 0, 't'}, {"seed", required_argument, 0, 'S'},
		{"output", required_argument, 0, 'o'}, {"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'}, {0}};
	int c;
	double v;
	memset(o, 0, sizeof *o);
	o->time_limit = 10;
	o->seed = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!cli_number(optarg, 1, 4096, true, &v))
				return cli_usage("plan", "--devices needs 1 to 4096");
			o->p.devices = (int)v;
			break;
		case 's': o->p.sequential = true; break;
		case 't':
			if (!cli_number(optarg, 1e-3, 1e7, false, &o->time_limit))
				return cli_usage("plan", "--time-limit needs seconds > 0");
			break;
		case 'S':
			if (!cli_seed(optarg, &o->seed))
				return cli_usage("plan", "--seed needs a whole number from 0 to 2^63 - 1");
			break;
		case 'o': o->output = optarg; break;
		case 'j': o->json = true; break;
		case 'h': fputs(usage_text, stdout); return -1;
		default:
			return cli_usage("plan", "unknown option or missing value in '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage("plan", "expected one GRAPH file");
	if (!o->p.devices)
		return cli_usage("plan", "--devices is required");
	return 0;
}

/* The instance of the plan, parsed back (so it is exactly what -o writes). */
static enum status plan_instance(const struct graph *g, const struct partition *p,
				 char **text, struct instance **in, struct error *err)
{
	json_t *j = partition_instance_json(g, p, g->name);
	*text = json_dumps(j, JSON_INDENT(1));
	json_decref(j);
	if (!*text)
		return err_set(err, "plan: out of memory");
	return instance_parse(*text, g->name, in, err);
}

int cmd_plan(int argc, char **argv)
{
	struct plan_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct graph *g = NULL;
	struct partition p = {0};
	struct instance *in = NULL;
	struct schedule *fixed = NULL;
	struct sim *sim = NULL;
	struct sim_result sr;
	struct ga_result gr = {0};
	struct ga_options ga;
	char *text = NULL;
	ga_options_init(&ga);
	ga.time_limit = o.time_limit;
	ga.seed = o.seed;
	if (graph_read(argv[optind], &g, &err) || partition_dp(g, &o.p, &p, &err) ||
	    plan_instance(g, &p, &text, &in, &err) ||
	    (o.output && cli_write(o.output, text, &err)) ||
	    family_generate("1f1b-dag", in, &fixed, &err) ||
	    cli_simulate(in, fixed, "the 1f1b-dag schedule", &sim, &sr, &err) ||
	    ga_run(in, &ga, &gr, &err)) {
		rc = cli_fail(o.json, &err);
		goto out;
	}
	int64_t onefb = sr.makespan;
	if (o.json) {
		cli_print_json(json_pack("{s:s,s:s,s:i,s:i,s:i,s:f,s:f,s:I,s:I,s:I,s:f,s:s}",
			"graph", g->name, "pipeline", o.p.sequential ? "sequential" : "graph",
			"stages", p.nstages, "microbatch_size", p.microbatch, "depth", p.depth,
			"time_per_sample", p.time_per_sample, "iteration_time_estimate", p.iteration_time,
			"iteration_time_1f1b", (json_int_t)onefb,
			"iteration_time_search", (json_int_t)gr.makespan,
			"lower_bound", (json_int_t)gr.lower_bound,
			"search_gain", onefb > 0 ? (double)(onefb - gr.makespan) / onefb : 0.0,
			"search_from", gr.origin));
	} else {
		printf("graph       %s: %d stages (%s pipeline, depth %d), micro-batch %d x %d\n",
		       g->name, p.nstages, o.p.sequential ? "sequential" : "graph", p.depth,
		       p.microbatch, p.microbatches);
		printf("partition   %.4g us per sample; iteration estimate %.6g us\n",
		       p.time_per_sample, p.iteration_time);
		printf("1f1b-dag    iteration %" PRId64 " us (GraphPipe's fixed schedule, simulated)\n", onefb);
		printf("search      iteration %" PRId64 " us (GA, %.0f s, from %s; %.2f %% better; lower bound %" PRId64 ")\n",
		       gr.makespan, o.time_limit, gr.origin,
		       onefb > 0 ? 100.0 * (double)(onefb - gr.makespan) / (double)onefb : 0,
		       gr.lower_bound);
	}
out:
	free(text);
	ga_result_release(&gr);
	sim_free(sim);
	schedule_free(fixed);
	instance_free(in);
	partition_release(&p);
	graph_free(g);
	return rc;
}
