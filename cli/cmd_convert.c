/* pipeopt convert IN OUT: between schedule formats. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

static const char usage_text[] =
	"usage: pipeopt convert IN OUT [--from FMT] [--to FMT] [--instance FILE]\n\n"
	"Convert a schedule between formats. IN is json or torch-csv; OUT is\n"
	"json, torch-csv, trace (Chrome trace, opens in Perfetto), svg (Gantt\n"
	"chart) or ascii. Formats default to the files' extensions (.csv,\n"
	".svg, .txt, .trace.json, else json). trace, svg and ascii need times,\n"
	"so they need --instance; with an instance the schedule is validated.\n"
	"OUT '-' writes to stdout.\n";

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{"from", required_argument, 0, 'f'},
		{"to", required_argument, 0, 't'},
		{"instance", required_argument, 0, 'i'},
		{"help", no_argument, 0, 'h'}, {0}};
	enum sched_format from = FMT_NONE, to = FMT_NONE;
	const char *inst_path = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'f' || c == 't') {
			enum sched_format f = cli_format_parse(optarg);
			if (f == FMT_NONE)
				return cli_usage("convert", "unknown format '%s'", optarg);
			*(c == 'f' ? &from : &to) = f;
		} else if (c == 'i') {
			inst_path = optarg;
		} else if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		} else
			return cli_usage("convert", "unknown option or missing value in '%s'", argv[optind - 1]);
	}
	if (argc - optind != 2)
		return cli_usage("convert", "expected IN and OUT");
	const char *src = argv[optind], *dst = argv[optind + 1];
	if (to == FMT_NONE)
		to = cli_format_guess(dst);
	bool timed = to == FMT_TRACE || to == FMT_SVG || to == FMT_ASCII;
	if (timed && !inst_path)
		return cli_usage("convert", "the %s format needs --instance FILE for the times",
				 cli_format_name(to));
	struct error err;
	struct instance *in = NULL;
	struct schedule *s = NULL;
	struct sim *sim = NULL;
	struct sim_result r;
	char what[300];
	int rc = 0;
	snprintf(what, sizeof what, "schedule '%s'", src);
	if (cli_read_schedule(src, from, &s, &err) ||
	    (inst_path && (instance_read(inst_path, &in, &err) ||
			   cli_simulate(in, s, what, &sim, &r, &err)))) {
		rc = cli_fail(false, &err);
	} else if (cli_write_schedule(dst, to, in, s, in ? &r : NULL,
				      in ? in->split_backward : schedule_has_w(s),
				      &err)) {
		rc = cli_fail(false, &err);
	}
	sim_free(sim);
	schedule_free(s);
	instance_free(in);
	return rc;
}
