/*
 * pipeopt plan GRAPH --devices D: partition the graph (the default
 * search's best few partitions, the sequential pipeline, GraphPipe's DP),
 * then schedule each stage DAG with GraphPipe's fixed 1F1B on the DAG
 * (family 1f1b-dag) and with the GA, both simulated; the best is the
 * shortest simulated iteration of them all. GraphPipe's DP + 1F1B is one of them, so plan is
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
	"Partition a model graph: DAGs of stages by the default search ('pipeopt\n"
	"partition': its best at each of its --partitions best micro-batch sizes),\n"
	"a sequential chain, and GraphPipe's DP (--method dp); turn each plan\n"
	"into a schedule instance and schedule each twice:\n"
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
	int rank;                 /* graph rows: the search's rank of the partition
	                             (1 its best; k its best at the k-th best size);
	                             0 for the others */
	struct partition p;
	struct instance *in;      /* the schedule instance (what -o writes) */
	const char *partition_stopped_by;   /* the search cut short: "time_limit" or
	                                       "interrupt"; NULL when it finished */
	int64_t onefb, search, bound;   /* microseconds, simulated */
	char origin[64];
};

/* The partition of a sequential or GraphPipe row (graph rows get theirs
 * from one partition_search_top); at most `seconds`. */
static enum status partition_row(const struct graph *g, const struct plan_opts *o,
				 enum row_kind kind, double seconds, struct plan_row *row,
				 struct error *err)
{
	static const char *const names[ROWS] = {"graph", "sequential", "graphpipe"};
	struct search_info si;
	struct partition_options po = o->p;
	po.sequential = kind == ROW_SEQUENTIAL;
	row->pipeline = names[kind];
	enum status st = kind == ROW_GRAPHPIPE ? partition_dp(g, &po, &row->p, err) :
			 partition_search(g, &po, seconds, &row->p, &si, err);
	row->partition_stopped_by = !st && kind != ROW_GRAPHPIPE ? si.stopped_by : NULL;
	return st;
}

/* Schedule the row's partition with 1f1b-dag and the GA (its seeds include
 * the exact solver's schedule on small instances) within `seconds`. */
static enum status schedule_row(const struct graph *g, const struct plan_opts *o,
				double seconds, struct plan_row *row, struct error *err)
{
	struct schedule *fixed = NULL;
	struct sim *sim = NULL;
	struct sim_result sr;
	struct ga_result gr = {0};
	struct ga_options ga;
	ga_options_init(&ga);
	ga.exact_solve = search_exact_seed;   /* methods/search.c */
	ga.exact_alongside = true;
	ga.seed = o->s.seed;
	ga.threads = run_opts_threads_value(&o->run);
	ga.time_limit = seconds > 1e-3 ? seconds : 1e-3;
	enum status st = partition_instance(g, &row->p, g->name, &row->in, err);
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
	json_object_set_new(j, "rank", r->rank ? json_integer(r->rank) : json_null());
	json_object_set_new(j, "partition_stopped_by", r->partition_stopped_by ?
			    json_string(r->partition_stopped_by) : json_null());
	return j;
}

static void print_row(const struct plan_row *r)
{
	const struct partition *p = &r->p;
	char label[32];
	snprintf(label, sizeof label, r->rank > 1 ? "%s #%d" : "%s", r->pipeline, r->rank);
	printf("%-10s  %d stages, depth %d, micro-batch %d x %d: %.4g us per sample, estimate %.6g us\n",
	       label, p->nstages, p->depth, p->microbatch, p->microbatches,
	       p->time_per_sample, p->estimate);
	printf("            1f1b-dag %" PRId64 " us; search %" PRId64 " us (from %s, %.2f %% better; lower bound %" PRId64 ")\n",
	       r->onefb, r->search, r->origin,
	       r->onefb > 0 ? 100.0 * (double)(r->onefb - r->search) / (double)r->onefb : 0,
	       r->bound);
}

/* Partition, then schedule: the search's best partitions (one search,
 * its best at each of --partitions sizes), the sequential pipeline and
 * GraphPipe's DP. --time-limit is the whole command's: each step gets an
 * equal share of what is left (a partition at most half of its row's; at
 * least a millisecond: a GA run always returns its best seed). After an
 * interrupt the plans made so far are the result. */
static enum status plan_rows(const struct graph *g, const struct plan_opts *o,
			     struct plan_row *rows, int *n, struct error *err)
{
	double deadline = clock_seconds() + o->run.time_limit;
	int want = o->p.sequential ? 1 : 2 + (int)o->s.partitions, made = 0, ntop = 0;
	struct partition *top = o->p.sequential ? NULL : calloc(o->s.partitions, sizeof *top);
	enum status st = !o->p.sequential && !top ?
		err_set(err, "graph '%s': out of memory for the plans", g->name) : STATUS_OK;
	#define SHARE() ((deadline - clock_seconds()) / (want - made))
	if (!st && !o->p.sequential) {
		struct search_info si;
		st = partition_search_top(g, &o->p, SHARE() / 2, (int)o->s.partitions, top, &ntop,
					  &si, err);
		if (!st) {
			want = 2 + ntop;
			for (int k = 0; k < ntop; k++) {
				struct plan_row *r = &rows[k ? ROWS + k - 1 : ROW_GRAPH];
				r->pipeline = "graph";
				r->rank = k + 1;
				r->p = top[k];
				r->partition_stopped_by = si.stopped_by;
			}
		}
	}
	free(top);
	/* graph (rank 1), sequential, graphpipe, then the other graph ranks */
	for (int i = 0; !st && i < want; i++) {
		if (i > 0 && stop_requested())
			break;
		struct plan_row *r = &rows[i];
		double t0 = clock_seconds(), share = SHARE();
		if (o->p.sequential || i == ROW_SEQUENTIAL || i == ROW_GRAPHPIPE)
			st = partition_row(g, o, o->p.sequential ? ROW_SEQUENTIAL : (enum row_kind)i,
					   share / 2, r, err);
		if (!st)
			st = schedule_row(g, o, share - (clock_seconds() - t0), r, err);
		made++;
		if (!st)
			*n = made;
	}
	#undef SHARE
	return st;   /* the caller releases every row, scheduled or not */
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
	int cap = ROWS + (int)o.s.partitions, n = 0, best = 0;
	struct plan_row *rows = calloc(cap, sizeof *rows);
	enum status st = rows ? graph_read(path, &g, &err) :
		err_set(&err, "out of memory for the plans");
	if (!st && o.s.costs)
		st = graph_apply_costs(g, o.s.costs, &err);
	if (!st)
		st = plan_rows(g, &o, rows, &n, &err);
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
		json_t *j = json_pack("{s:s,s:s,s:o,s:s,s:i,s:s,s:I}", "status", "ok", "graph", g->name,
			"plans", a, "best", rows[best].pipeline, "best_plan", best,
			"best_schedule", best_schedule(&rows[best]),
			"iteration_time", (json_int_t)best_of(&rows[best]));
		if (n >= ROWS) {
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
		if (n >= ROWS)
			printf("gain        %.2f %% over the search's partition + 1f1b-dag, %.2f %% over GraphPipe's DP + 1f1b-dag\n",
			       100 * gain(rows[ROW_GRAPH].onefb, best_of(&rows[best])),
			       100 * gain(rows[ROW_GRAPHPIPE].onefb, best_of(&rows[best])));
	}
	for (int i = 0; rows && i < cap; i++) {
		partition_release(&rows[i].p);
		instance_free(rows[i].in);
	}
	free(rows);
	graph_free(g);
	return rc;
}
