/*
 * pipeopt plot RESULTS: SVG plots and the summary table of a sweep's
 * results (sweep/report.h), read from its JSON Lines file.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sweep/report.h"
#include "sweep/results.h"

static const char usage_text[] =
	"usage: pipeopt plot RESULTS [options]\n\n"
	"Draw a sweep's results (the JSON Lines file of 'pipeopt sweep') as SVG:\n"
	"DIR/objective.svg, the mean of y against one parameter, one line per\n"
	"method; DIR/gap.svg, a histogram of the GA's gaps to each point's best\n"
	"proven bound (when there are GA rows). Prints the files written. A torn\n"
	"last line (an interrupted write) is skipped. -o names DIR, --json prints\n"
	"{\"status\": \"ok\", \"summary\": [...], \"plots\": [...]}.\n";

struct plot_opts {
	const char *results, *x, *y;
	bool summary, markdown;
	struct run_opts run;
};

static const char *plot_y_at(int i)
{
	static const char *const names[] = {"objective", "bubble_ratio"};
	return i >= 0 && i < 2 ? names[i] : NULL;
}

#define OFF(f) offsetof(struct plot_opts, f)
static const struct opt plot_table[] = {
	{.name = "output", .short_name = 'o', .type = OPT_STRING, .arg = "DIR",
	 .dflt = "RESULTS without its extension + \"-plots\"", .offset = OFF(run.output),
	 .where = OPT_CLI, .help = "the plots' directory, created if missing"},
	{.name = "x", .type = OPT_STRING, .arg = "PARAM", .dflt = "microbatches, else devices",
	 .offset = OFF(x), .where = OPT_CLI, .help = "x: a numeric parameter"},
	{.name = "y", .type = OPT_CHOICE, .choice = plot_y_at, .dflt = "objective", .offset = OFF(y),
	 .where = OPT_CLI, .help = "what y is"},
	{.name = "summary", .type = OPT_FLAG, .offset = OFF(summary), .where = OPT_CLI,
	 .help = "also print the summary per method: rows, failures, mean bubble, wins, share certified, gaps"},
	{.name = "markdown", .type = OPT_FLAG, .offset = OFF(markdown), .where = OPT_CLI,
	 .help = "the summary as a GitHub markdown table (implies --summary)"},
	{0}};

static int parse(int argc, char **argv, struct plot_opts *o)
{
	memset(o, 0, sizeof *o);
	struct opt_set set = {.cmd = "plot", .tables = {plot_table, run_opts_json},
			      .base = {o, &o->run}};
	char *pos[2];
	int npos, rc = cli_parse(&set, usage_text, argc, argv, pos, 1, 2, &npos,
				 "expected a RESULTS file");
	if (rc)
		return rc;
	if (npos == 2)
		return cli_usage("plot", "expected one RESULTS file, got '%s' too", pos[1]);
	if (o->run.output && !*o->run.output)
		return cli_usage("plot", "-o needs a directory");
	if (o->x && !*o->x)
		return cli_usage("plot", "--x needs a parameter name");
	o->summary |= o->markdown;
	o->results = pos[0];
	return 0;
}

/* RESULTS without its extension (in the file's own name) + "-plots". */
static char *default_dir(const char *results)
{
	size_t n = strlen(results);
	char *dir = malloc(n + sizeof "-plots");
	if (!dir)
		return NULL;
	strcpy(dir, results);
	char *slash = strrchr(dir, '/'), *dot = strrchr(dir, '.');
	const char *name = slash ? slash + 1 : dir;
	if (dot && dot > name)   /* not a leading dot: ".hidden" keeps its name */
		*dot = 0;
	strcat(dir, "-plots");
	return dir;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	json_t *rows = NULL, *summary = NULL, *written = json_array();
	char *dir = o.run.output ? strdup(o.run.output) : default_dir(o.results);
	enum status st = dir && written ? STATUS_OK : err_set(&err, "plot: out of memory");
	if (!st)
		st = results_load(o.results, &rows, &err);
	if (!st && !json_array_size(rows))
		st = err_set(&err, "results '%s': no rows", o.results);
	if (!st && !(summary = report_summary(rows)))
		st = err_set(&err, "plot: out of memory");
	if (!st)
		st = report_plots(rows, dir, o.x, o.y, written, &err);
	if (st) {
		rc = cli_fail(o.run.json, &err);
	} else if (o.run.json) {
		cli_print_json(json_pack("{s:s,s:O,s:O}", "status", "ok", "summary", summary,
					 "plots", written));
	} else {
		size_t i;
		json_t *path;
		json_array_foreach(written, i, path)
			printf("wrote %s\n", json_string_value(path));
		if (o.summary) {
			printf("\n");
			report_print(stdout, summary, o.markdown);
		}
	}
	json_decref(rows);
	json_decref(summary);
	json_decref(written);
	free(dir);
	return rc;
}
