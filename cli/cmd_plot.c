/*
 * pipeopt plot RESULTS: SVG plots and the summary table of a sweep's
 * results (sweep/report.h), read from its JSON Lines file.
 */
#include <getopt.h>
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
	"last line (an interrupted write) is skipped.\n\n"
	"  -o, --output DIR         the plots' directory, created if missing\n"
	"                           (default: RESULTS without its extension + \"-plots\")\n"
	"  --x PARAM                x: a numeric parameter (default microbatches,\n"
	"                           else devices)\n"
	"  --y objective|bubble_ratio  y (default objective)\n"
	"  --summary                also print the summary per method: rows,\n"
	"                           failures, mean bubble, wins, share certified, gaps\n"
	"  --markdown               the summary as a GitHub markdown table (implies\n"
	"                           --summary)\n"
	"  --json                   print {\"summary\": [...], \"plots\": [...]}\n";

struct plot_opts {
	const char *results, *dir, *x, *y;
	bool summary, markdown, json;
};

static int parse(int argc, char **argv, struct plot_opts *o)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'},
		{"x", required_argument, 0, 'x'},
		{"y", required_argument, 0, 'y'},
		{"summary", no_argument, 0, 's'},
		{"markdown", no_argument, 0, 'm'},
		{"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'}, {0}};
	int c;
	memset(o, 0, sizeof *o);
	o->y = "objective";
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return cli_usage("plot", "-o needs a directory");
			o->dir = optarg;
			break;
		case 'x':
			if (!*optarg)
				return cli_usage("plot", "--x needs a parameter name");
			o->x = optarg;
			break;
		case 'y':
			if (strcmp(optarg, "objective") && strcmp(optarg, "bubble_ratio"))
				return cli_usage("plot", "--y needs objective or bubble_ratio, not '%s'",
						 optarg);
			o->y = optarg;
			break;
		case 's': o->summary = true; break;
		case 'm': o->summary = o->markdown = true; break;
		case 'j': o->json = true; break;
		case 'h': fputs(usage_text, stdout); return -1;
		default:
			return cli_usage("plot", "unknown option or missing value in '%s'",
					 argv[optind - 1]);
		}
	}
	if (optind == argc)
		return cli_usage("plot", "expected a RESULTS file");
	if (optind + 1 < argc)
		return cli_usage("plot", "expected one RESULTS file, got '%s' too", argv[optind + 1]);
	o->results = argv[optind];
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
	char *dir = o.dir ? strdup(o.dir) : default_dir(o.results);
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
		rc = cli_fail(o.json, &err);
	} else if (o.json) {
		cli_print_json(json_pack("{s:O,s:O}", "summary", summary, "plots", written));
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
