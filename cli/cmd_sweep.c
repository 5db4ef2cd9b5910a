/* pipeopt sweep SPEC: batch runs over a parameter grid (sweep/README.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/mpi.h"
#include "sweep/report.h"
#include "sweep/results.h"
#include "sweep/spec.h"
#include "sweep/sweep.h"

static const char usage_text[] =
	"usage: pipeopt sweep SPEC [-o RESULTS] [--jobs N] [options]\n"
	"       mpirun -np R pipeopt sweep SPEC [-o RESULTS] [--jobs N]\n\n"
	"Expand the spec (sweep/README.md: instance grids, instance files or model\n"
	"graphs x device counts; methods: families, exact solve, GA search,\n"
	"partition; repetitions) into tasks and run those not yet in RESULTS, on N\n"
	"worker threads, or spread over MPI ranks when started by mpirun. Each\n"
	"task's row is appended to RESULTS (JSON Lines) and synced as it\n"
	"completes, so rerunning the same command resumes. Prints a summary per\n"
	"method at the end.\n\n"
	"  -o, --output RESULTS     results file (default: SPEC's name + .jsonl)\n"
	"  --jobs N                 worker threads per process (default: all cores)\n"
	"  --csv FILE               also write every row as CSV\n"
	"  --markdown               the summary as a markdown table\n"
	"  --no-progress            no progress line (default: on when stderr is a terminal)\n"
	"  --limit N                run at most N pending tasks, then stop\n"
	"  --json                   print one JSON object (counts and summary)\n";

struct sopts {
	struct sweep_options s;
	const char *csv;
	char *output_owned;
	bool json, markdown;
};

/* Launched by mpirun (OpenMPI, or a PMI launcher)? */
static bool under_mpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

static int parse(int argc, char **argv, struct sopts *o)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'}, {"jobs", required_argument, 0, 'J'},
		{"csv", required_argument, 0, 'c'}, {"markdown", no_argument, 0, 'm'},
		{"no-progress", no_argument, 0, 'n'}, {"limit", required_argument, 0, 'l'},
		{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0}};
	int c;
	double v;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	memset(o, 0, sizeof *o);
	o->s.jobs = cores > 0 ? (int)cores : 1;
	o->s.progress = isatty(2);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o->s.output = optarg; break;
		case 'J':
			if (!cli_number(optarg, 1, 1024, true, &v))
				return cli_usage("sweep", "--jobs needs 1 to 1024");
			o->s.jobs = (int)v;
			break;
		case 'c': o->csv = optarg; break;
		case 'm': o->markdown = true; break;
		case 'n': o->s.progress = false; break;
		case 'l':
			if (!cli_number(optarg, 1, 1e9, true, &v))
				return cli_usage("sweep", "--limit needs a whole number >= 1");
			o->s.limit = (int)v;
			break;
		case 'j': o->json = true; break;
		case 'h': fputs(usage_text, stdout); return -1;
		default:
			return cli_usage("sweep", "unknown option or missing value in '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage("sweep", "expected one SPEC file");
	if (!o->s.output) {   /* SPEC's base name without .json, + .jsonl */
		const char *spec = argv[optind], *base = strrchr(spec, '/');
		base = base ? base + 1 : spec;
		size_t n = strlen(base);
		if (n > 5 && !strcmp(base + n - 5, ".json"))
			n -= 5;
		if (!(o->output_owned = malloc(n + 7)))
			return cli_usage("sweep", "out of memory");
		snprintf(o->output_owned, n + 7, "%.*s.jsonl", (int)n, base);
		o->s.output = o->output_owned;
	}
	o->s.mpi = under_mpirun() && mpi_available();
	if (o->s.mpi && o->json)
		o->s.progress = false;
	return 0;
}

static void print_text(const struct sweep_spec *sp, const struct sopts *o,
		       const struct sweep_stats *st, const json_t *summary)
{
	printf("sweep       %s: %d tasks (%d points x %d methods x %d repetitions, seeds counted)\n",
	       sp->name, sp->ntasks, sp->npoints, sp->nmethods, sp->reps);
	if (st->torn)
		printf("resume      a torn last line in %s (%ld bytes) was cut off\n", o->s.output,
		       st->torn_bytes);
	printf("ran         %d now (%d done before) in %.2f s on %d %s x %d threads; %d failed\n",
	       st->ran, st->done_before, st->seconds, st->ranks, st->ranks > 1 ? "ranks" : "process",
	       o->s.jobs, st->failed);
	printf("results     %s%s%s\n\n", o->s.output, o->csv ? ", " : "", o->csv ? o->csv : "");
	report_print(stdout, summary, o->markdown);
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
	int rc = parse(argc, argv, &o);
	if (rc) {
		free(o.output_owned);
		return rc < 0 ? 0 : rc;
	}
	struct error err;
	struct sweep_spec *sp = NULL;
	struct sweep_stats st;
	json_t *rows = NULL, *summary = NULL;
	int rank = o.s.mpi ? mpi_rank() : 0;
	if (sweep_spec_read(argv[optind], &sp, &err) || sweep_run(sp, &o.s, &st, &err)) {
		rc = rank == 0 ? cli_fail(o.json, &err) : EXIT_FAILED;
		goto out;
	}
	if (rank != 0)
		goto out;
	if (results_load(o.s.output, &rows, &err) ||
	    (o.csv && results_write_csv(rows, o.csv, &err))) {
		rc = cli_fail(o.json, &err);
		goto out;
	}
	summary = in_spec_order(sp, report_summary(rows));
	if (o.json) {
		cli_print_json(json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:b,s:I,s:f,s:f,s:i,s:i,s:O}",
			"sweep", sp->name, "results", o.s.output, "tasks", sp->ntasks,
			"points", sp->npoints, "done_before", st.done_before, "ran", st.ran,
			"failed", st.failed, "rows", (int)json_array_size(rows), "torn_line_cut", st.torn,
			"torn_bytes", (json_int_t)st.torn_bytes, "seconds", st.seconds, "task_seconds", st.task_seconds, "ranks", st.ranks,
			"jobs", o.s.jobs, "summary", summary));
	} else {
		print_text(sp, &o, &st, summary);
	}
out:
	if (o.s.mpi)
		mpi_end();
	json_decref(summary);
	json_decref(rows);
	sweep_spec_free(sp);
	free(o.output_owned);
	return rc;
}
