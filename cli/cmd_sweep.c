/* pipeopt sweep SPEC: batch runs over a parameter grid (sweep/README.md). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/stop.h"
#include "common/mpi.h"
#include "sweep/report.h"
#include "sweep/results.h"
#include "sweep/spec.h"
#include "sweep/sweep.h"

static const char usage_text[] =
	"usage: pipeopt sweep SPEC [-o RESULTS] [--threads N] [options]\n"
	"       mpirun -np R pipeopt sweep SPEC [-o RESULTS] [--threads N]\n\n"
	"Expand the spec (sweep/README.md: instance grids, instance files or model\n"
	"graphs x device counts; methods: families, exact solve, GA search,\n"
	"partition; repetitions) into tasks and run those not yet in RESULTS, on N\n"
	"worker threads, or spread over MPI ranks when started by mpirun. Each\n"
	"task's row is appended to RESULTS (JSON Lines) and synced as it\n"
	"completes, so rerunning the same command resumes. Prints a summary per\n"
	"method at the end. -o names the results file (default: SPEC's name +\n"
	".jsonl); --threads is the worker threads per process.\n";

struct sopts {
	struct sweep_options s;
	struct run_opts run;
	const char *csv;
	char *output_owned;
	bool markdown;
	long limit;
};

#define OFF(f) offsetof(struct sopts, f)
static const struct opt sweep_table[] = {
	{.name = "csv", .type = OPT_STRING, .arg = "FILE", .offset = OFF(csv), .where = OPT_CLI,
	 .help = "also write every row as CSV"},
	{.name = "markdown", .type = OPT_FLAG, .offset = OFF(markdown), .where = OPT_CLI,
	 .help = "the summary as a markdown table"},
	{.name = "limit", .type = OPT_INT, .arg = "N", .dflt = "none", .lo = 1, .hi = 1e9,
	 .offset = OFF(limit), .where = OPT_CLI, .help = "run at most N pending tasks, then stop"},
	{.name = "jobs", .type = OPT_INT, .arg = "N", .lo = 1, .hi = 256,
	 .offset = OFF(run.threads), .where = OPT_CLI | OPT_HIDDEN, .alias_of = "threads",
	 .help = "the old name of --threads"},
	{0}};

/* Launched by mpirun (OpenMPI, or a PMI launcher)? */
static bool under_mpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

static int parse(int argc, char **argv, struct sopts *o, char **spec)
{
	memset(o, 0, sizeof *o);
	struct opt_set set = {.cmd = "sweep",
			      .tables = {sweep_table, run_opts_output, run_opts_threads,
					 run_opts_progress, run_opts_json},
			      .base = {o, &o->run, &o->run, &o->run, &o->run}};
	int npos, rc = cli_parse(&set, usage_text, argc, argv, spec, 1, 1, &npos,
				 "expected one SPEC file");
	if (rc)
		return rc;
	o->s.output = o->run.output;
	o->s.jobs = run_opts_threads_value(&o->run);
	/* as before: on a terminal even with --json (the summary goes to stdout) */
	o->s.progress = o->run.progress >= 0 ? o->run.progress : isatty(2);
	o->s.limit = (int)o->limit;
	if (!o->s.output) {   /* SPEC's base name without .json, + .jsonl */
		const char *base = strrchr(*spec, '/');
		base = base ? base + 1 : *spec;
		size_t n = strlen(base);
		if (n > 5 && !strcmp(base + n - 5, ".json"))
			n -= 5;
		if (!(o->output_owned = malloc(n + 7)))
			return cli_usage("sweep", "out of memory");
		snprintf(o->output_owned, n + 7, "%.*s.jsonl", (int)n, base);
		o->s.output = o->output_owned;
	}
	o->s.mpi = under_mpirun() && mpi_available();
	if (o->s.mpi && o->run.json)
		o->s.progress = false;
	return 0;
}

static void print_text(const struct sweep_spec *sp, const struct sopts *o,
		       const struct sweep_stats *st, const json_t *summary, int other)
{
	printf("sweep       %s: %d tasks (%d points x %d methods x %d repetitions, seeds counted)\n",
	       sp->name, sp->ntasks, sp->npoints, sp->nmethods, sp->reps);
	if (st->torn)
		printf("resume      a torn last line in %s (%ld bytes) was cut off\n", o->s.output,
		       st->torn_bytes);
	printf("ran         %d now (%d done before) in %.2f s on %d %s x %d threads; %d failed\n",
	       st->ran, st->done_before, st->seconds, st->ranks, st->ranks > 1 ? "ranks" : "process",
	       o->s.jobs, st->failed);
	printf("results     %s%s%s\n", o->s.output, o->csv ? ", " : "", o->csv ? o->csv : "");
	if (other)
		printf("other rows  %d rows in %s are of other settings or inputs: kept, not summarised\n",
		       other, o->s.output);
	if (stop_requested())
		printf("interrupted kept %d rows (%d now, %d before); rerun the same command to resume the other %d tasks\n",
		       st->done_before + st->ran, st->ran, st->done_before,
		       st->total - st->done_before - st->ran);
	printf("\n");
	report_print(stdout, summary, o->markdown);
}

/* The rows of this spec's tasks (keys carry the settings' and inputs'
 * digests); *other counts the rest, which the summary leaves out. New
 * reference. */
static json_t *this_spec_rows(const struct sweep_spec *sp, const json_t *rows, int *other)
{
	json_t *keys = json_object(), *out = json_array();
	for (int t = 0; t < sp->ntasks; t++)
		json_object_set_new(keys, sp->tasks[t].key, json_true());
	size_t i;
	json_t *row;
	*other = 0;
	json_array_foreach(rows, i, row) {
		const char *k = json_string_value(json_object_get(row, "key"));
		if (k && json_object_get(keys, k))
			json_array_append(out, row);
		else
			(*other)++;
	}
	json_decref(keys);
	return out;
}

/* The summary's methods in the spec's order (the file has them in
 * completion order). */
static json_t *in_spec_order(const struct sweep_spec *sp, json_t *summary)
{
	json_t *out = json_array();
	for (int m = 0; m < sp->nmethods; m++) {
		size_t i;
		json_t *e;
		json_array_foreach(summary, i, e)
			if (!strcmp(json_string_value(json_object_get(e, "method")) ?: "", sp->methods[m].name))
				json_array_append(out, e);
	}
	json_decref(summary);
	return out;
}

int cmd_sweep(int argc, char **argv)
{
	struct sopts o;
	char *spec;
	int rc = parse(argc, argv, &o, &spec);
	if (rc) {
		free(o.output_owned);
		return rc < 0 ? 0 : rc;
	}
	struct error err;
	struct sweep_spec *sp = NULL;
	struct sweep_stats st;
	json_t *rows = NULL, *summary = NULL;
	int rank = o.s.mpi ? mpi_rank() : 0;
	if (sweep_spec_read(spec, &sp, &err) || sweep_run(sp, &o.s, &st, &err)) {
		rc = rank == 0 ? cli_fail(o.run.json, &err) : EXIT_FAILED;
		goto out;
	}
	if (rank != 0)
		goto out;
	if (results_load(o.s.output, &rows, &err) ||
	    (o.csv && results_write_csv(rows, o.csv, &err))) {
		rc = cli_fail(o.run.json, &err);
		goto out;
	}
	int other;
	json_t *mine = this_spec_rows(sp, rows, &other);
	summary = in_spec_order(sp, report_summary(mine));
	if (o.run.json) {
		json_t *j = json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:b,s:I,s:f,s:f,s:i,s:i,s:O}",
			"status", st.failed ? "failed" : "ok", "sweep", sp->name, "results", o.s.output, "tasks", sp->ntasks,
			"points", sp->npoints, "done_before", st.done_before, "ran", st.ran,
			"failed", st.failed, "rows", (int)json_array_size(mine), "other_rows", other,
			"torn_line_cut", st.torn,
			"torn_bytes", (json_int_t)st.torn_bytes, "seconds", st.seconds, "task_seconds", st.task_seconds, "ranks", st.ranks,
			"threads", o.s.jobs, "summary", summary);
		if (stop_requested()) {
			json_object_set_new(j, "stopped_by", json_string("interrupt"));
			json_object_set_new(j, "not_run", json_integer(st.total - st.done_before - st.ran));
			fprintf(stderr, "sweep: interrupted: kept %d rows in %s; rerun the same command to resume\n",
				st.done_before + st.ran, o.s.output);
		}
		cli_print_json(j);
	} else {
		print_text(sp, &o, &st, summary, other);
	}
	json_decref(mine);
out:
	if (o.s.mpi)
		mpi_end();
	json_decref(summary);
	json_decref(rows);
	sweep_spec_free(sp);
	free(o.output_owned);
	return rc;
}
