/* pipeopt generate NAME INSTANCE: a family's schedule, checked by the
 * simulator, written as a schedule or a picture. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "sched/family.h"

static const char usage_text[] =
	"usage: pipeopt generate NAME|FILE INSTANCE [-o OUT] [--format FMT]\n\n"
	"Build the schedule of family NAME (see 'pipeopt families'), or of the\n"
	"schedule-language program FILE (docs/language.md), for INSTANCE,\n"
	"check it with the simulator, and write it to OUT (default: stdout).\n"
	"A family that does not support the instance, or whose schedule breaks\n"
	"the memory limit, is an error with the reason.\n\n"
	"  -o, --output OUT  output file ('-' = stdout)\n"
	"  --format FMT      json (default), torch-csv, trace, svg, ascii;\n"
	"                    default: guessed from OUT's extension\n";

int cmd_generate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'},
		{"format", required_argument, 0, 'F'},
		{"help", no_argument, 0, 'h'}, {0}};
	const char *out = "-";
	enum sched_format fmt = FMT_NONE;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'F') {
			fmt = cli_format_parse(optarg);
			if (fmt == FMT_NONE)
				return cli_usage("generate", "unknown format '%s'", optarg);
		} else if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		} else
			return cli_usage("generate", "unknown option or missing value in '%s'", argv[optind - 1]);
	}
	if (argc - optind != 2)
		return cli_usage("generate", "expected NAME and INSTANCE");
	if (fmt == FMT_NONE)
		fmt = cli_format_guess(out);
	const char *name = argv[optind];
	struct error err;
	struct instance *in = NULL;
	struct schedule *s = NULL;
	struct sim *sim = NULL;
	struct sim_result r;
	char what[200];
	int rc = 0;
	snprintf(what, sizeof what, "family '%s'", name);
	if (instance_read(argv[optind + 1], &in, &err) ||
	    cli_family_schedule(name, in, &s, &err) ||
	    cli_simulate(in, s, what, &sim, &r, &err)) {
		rc = cli_fail(false, &err);
	} else if (cli_write_schedule(out, fmt, in, s, &r, in->split_backward,
				      &err)) {
		rc = cli_fail(false, &err);
	}
	sim_free(sim);
	schedule_free(s);
	instance_free(in);
	return rc;
}
