/*
 * pipeopt plan GRAPH --devices D: partition the graph three ways (the
 * default search, the sequential pipeline, GraphPipe's DP), then schedule
 * each stage DAG with GraphPipe's fixed 1F1B on the DAG (family 1f1b-dag)
 * and with the GA, both simulated; the best is the shortest simulated
 * iteration of the six. GraphPipe's DP + 1F1B is one of them, so plan is
 * never slower than it; the gains over it and over the search's partition
 * + 1F1B are reported.
 */
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/stop.h"
#include "common/clock.h"
#include "methods/method.h"
#include "methods/settings.h"
#include "ga/ga.h"
#include "partition/bridge.h"
#include "partition/partition.h"
#include "sched/family.h"

static const char usage_text[] =
	"usage: pipeopt plan GRAPH --devices D [options]\n\n"
	"Partition a model graph three ways: a DAG of stages by the default search\n"
	"('pipeopt partition'), a sequential chain, and GraphPipe's DP (--method\n"
	"dp); turn each plan into a schedule instance and schedule each twice:\n"
	"GraphPipe's fixed 1F1B on the DAG (family 1f1b-dag) and the GA ('pipeopt\n"
	"search'), both simulated. Reports time per sample and iteration times\n"
	"(makespans, microseconds); the best combination is the shortest simulated\n"
	"iteration, never slower than GraphPipe's DP + 1F1B, and its gain over\n"
	"that and over the search's partition + 1F1B. --time-limit is the whole\n"
	"command's, shared among the partitions and the GA runs; --threads the\n"
	"GA's decoding threads.\n";

struct plan_opts {
	struct plan_settings s;
	struct run_opts run;
	struct partition_options p;
};

static int parse(int argc, char **argv, struct plan_opts *o, char **path)
{
	memset(o, 0, sizeof *o);
	int rc = cli_parse_graph_command(&method_plan, &o->s, &o->s.devices, &o->run,
					 CLI_OUTPUT | CLI_JSON, usage_text, argc, argv, path);
	if (rc)
		return rc;
	o->p.devices = (int)o->s.devices;
	o->p.sequential = o->s.sequential;
	return 0;
}

enum row_kind { ROW_GRAPH, ROW_SEQUENTIAL, ROW_GRAPHPIPE, ROWS };

struct plan_row {
	const char *pipeline;     /* "graph", "sequential" or "graphpipe" */
	struct partition p;
	struct instance *in;      /* the schedule instance (what -o writes) */
	const char *partition_stopped_by;   /* the search cut short: "time_limit" or
	                                       "interrupt"; NULL when it finished */
	int64_t onefb, search, bound;   /* microseconds, simulated */
	char origin[64];
};

/* Partition (the search, sequential, or GraphPipe's DP), then schedule
 * with 1f1b-dag and the GA; the partition and the GA share `seconds`. */
static enum status plan_one(const struct graph *g, const struct plan_opts *o, enum row_kind kind,
			    double seconds, struct plan_row *row, struct error *err)
{
	static const char *const names[ROWS] = {"graph", "sequential", "graphpipe"};
	double t0 = clock_seconds();
	struct search_info si;
	struct partition_options po = o->p;
	struct schedule *fixed = NULL;
	struct sim *sim = NULL;
	struct sim_result sr;
	struct ga_result gr = {0};
	struct ga_options ga;
	ga_options_init(&ga);
	ga.exact_solve = search_exact_seed;   /* methods/search.c */
	ga.seed = o->s.seed;
	ga.threads = run_opts_threads_value(&o->run);
	po.sequential = kind == ROW_SEQUENTIAL;
	row->pipeline = names[kind];
	/* the partition may take half of the share; the GA gets what is left */
	enum status st = kind == ROW_GRAPHPIPE ? partition_dp(g, &po, &row->p, err) :
			 partition_search(g, &po, seconds / 2, &row->p, &si, err);
	row->partition_stopped_by = !st && kind != ROW_GRAPHPIPE ? si.stopped_by : NULL;
	double left = seconds - (clock_seconds() - t0);
	ga.time_limit = left > 1e-3 ? left : 1e-3;
	if (!st)
		st = partition_instance(g, &row->p, g->name, &row->in, err);
	if (!st)
		st = family_generate("1f1b-dag", row->in, &fixed, err);
	if (!st)
		st = cli_simulate(row->in, fixed, "the 1f1b-dag schedule", &sim, &sr, err);
	if (!st)
		st = ga_run(row->in, &ga, &gr, err);
	if (!st) {
		row->onefb = sr.makespan;
		row->search = gr.makespan;
		row->bound = gr.lower_bound;
		snprintf(row->origin, sizeof row->origin, "%s", gr.origin);
	}
	ga_result_release(&gr);
	sim_free(sim);
	schedule_free(fixed);
	return st;
}

/* The row's shorter schedule: the GA's (it is seeded with 1f1b-dag, so
 * never longer unless it ran out of time before its seeds). */
static int64_t best_of(const struct plan_row *r)
{
	return r->search < r->onefb ? r->search : r->onefb;
}

static const char *best_schedule(const struct plan_row *r)
{
	return r->search < r->onefb ? "search" : "1f1b-dag";
}

static double gain(int64_t base, int64_t x)
{
	return base > 0 ? (double)(base - x) / (double)base : 0.0;
}

static json_t *row_json(const struct plan_row *r)
{
	const struct partition *p = &r->p;
	json_t *j = json_pack("{s:s,s:i,s:i,s:i,s:f,s:f,s:I,s:I,s:I,s:f,s:s}",
		"pipeline", r->pipeline, "stages", p->nstages, "microbatch_size", p->microbatch,
		"depth", p->depth, "time_per_sample", p->time_per_sample,
		"iteration_time_estimate", p->estimate,
		"iteration_time_1f1b", (json_int_t)r->onefb,
		"iteration_time_search", (json_int_t)r->search, "lower_bound", (json_int_t)r->bound,
		"search_gain", r->onefb > 0 ? (double)(r->onefb - r->search) / r->onefb : 0.0,
		"search_from", r->origin);
	json_object_set_new(j, "partition_stopped_by", r->partition_stopped_by ?
			    json_string(r->partition_stopped_by) : json_null());
	return j;
}

static void print_row(const struct plan_row *r)
{
	const struct partition *p = &r->p;
	printf("%-10s  %d stages, depth %d, micro-batch %d x %d: %.4g us per sample, estimate %.6g us\n",
	       r->pipeline, p->nstages, p->depth, p->microbatch, p->microbatches,
	       p->time_per_sample, p->estimate);
	printf("            1f1b-dag %" PRId64 " us; search %" PRId64 " us (from %s, %.2f %% better; lower bound %" PRId64 ")\n",
	       r->onefb, r->search, r->origin,
	       r->onefb > 0 ? 100.0 * (double)(r->onefb - r->search) / (double)r->onefb : 0,
	       r->bound);
}

int cmd_plan(int argc, char **argv)
{
	struct plan_opts o;
	char *path;
	int rc = parse(argc, argv, &o, &path);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct graph *g = NULL;
	struct plan_row rows[ROWS] = {{0}};
	int n = o.p.sequential ? 1 : ROWS, best = 0;
	double deadline = clock_seconds() + o.run.time_limit;
	enum status st = graph_read(path, &g, &err);
	if (!st && o.s.costs)
		st = graph_apply_costs(g, o.s.costs, &err);
	for (int i = 0; !st && i < n; i++) {
		/* after an interrupt, the plans made so far are the result */
		if (i > 0 && stop_requested()) {
			n = i;
			break;
		}
		/* --time-limit is the whole command's: each GA run gets an equal
		 * share of what is left (at least a millisecond: a GA run always
		 * returns its best seed) */
		double share = (deadline - clock_seconds()) / (n - i);
		enum row_kind kind = o.p.sequential ? ROW_SEQUENTIAL : (enum row_kind)i;
		st = plan_one(g, &o, kind, share > 1e-3 ? share : 1e-3, &rows[i], &err);
	}
	for (int i = 1; !st && i < n; i++)
		if (best_of(&rows[i]) < best_of(&rows[best]))
			best = i;
	if (!st && o.run.output)
		st = instance_write(rows[best].in, o.run.output, &err);
	if (st) {
		rc = cli_fail(o.run.json, &err);
	} else if (o.run.json) {
		json_t *a = json_array();
		for (int i = 0; i < n; i++)
			json_array_append_new(a, row_json(&rows[i]));
		json_t *j = json_pack("{s:s,s:s,s:o,s:s,s:s,s:I}", "status", "ok", "graph", g->name,
			"plans", a, "best", rows[best].pipeline,
			"best_schedule", best_schedule(&rows[best]),
			"iteration_time", (json_int_t)best_of(&rows[best]));
		if (n == ROWS) {
			json_object_set_new(j, "gain_over_partition_1f1b",
				json_real(gain(rows[ROW_GRAPH].onefb, best_of(&rows[best]))));
			json_object_set_new(j, "gain_over_graphpipe_1f1b",
				json_real(gain(rows[ROW_GRAPHPIPE].onefb, best_of(&rows[best]))));
		}
		if (stop_requested())
			json_object_set_new(j, "stopped_by", json_string("interrupt"));
		cli_print_json(j);
	} else {
		printf("model       %s on %d devices\n", g->name, o.p.devices);
		for (int i = 0; i < n; i++)
			print_row(&rows[i]);
		printf("best        %s partition, %s schedule: iteration %" PRId64 " us%s\n",
		       rows[best].pipeline, best_schedule(&rows[best]), best_of(&rows[best]),
		       stop_requested() ? " (stopped by interrupt)" : "");
		if (n == ROWS)
			printf("gain        %.2f %% over the search's partition + 1f1b-dag, %.2f %% over GraphPipe's DP + 1f1b-dag\n",
			       100 * gain(rows[ROW_GRAPH].onefb, best_of(&rows[best])),
			       100 * gain(rows[ROW_GRAPHPIPE].onefb, best_of(&rows[best])));
	}
	for (int i = 0; i < ROWS; i++) {
		partition_release(&rows[i].p);
		instance_free(rows[i].in);
	}
	graph_free(g);
	return rc;
}
