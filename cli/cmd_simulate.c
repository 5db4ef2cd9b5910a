/* pipeopt simulate INSTANCE (--family NAME | --schedule FILE): time and
 * validate a schedule, print its result and a timeline. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sched/bound.h"
#include "sched/family.h"
#include "sched/render.h"

static const char usage_text[] =
	"usage: pipeopt simulate INSTANCE (--family NAME | --schedule FILE) [options]\n\n"
	"Validate a schedule on an instance and compute its exact times: every op\n"
	"starts when its device is free and its inputs have arrived. Prints the\n"
	"makespan, span, bubble ratio, peak memory per device, the lower bound and\n"
	"an ASCII timeline. An invalid schedule (missing, duplicate or misplaced\n"
	"op, deadlock, memory over the limit) is an error naming device and op.\n\n"
	"  --family NAME      a predefined family (see 'pipeopt families'), or a\n"
	"                     schedule-language program file (docs/language.md)\n"
	"  --schedule FILE    a schedule file: JSON, or torch CSV (*.csv)\n"
	"  --json             print one JSON object (FORMATS.md keys)\n"
	"  --width N          timeline width in columns (default 100)\n"
	"  --no-timeline      omit the timeline\n"
	"  -o, --output FILE  also write the schedule or a picture to FILE\n"
	"  --format FMT       for -o: json, torch-csv, trace, svg, ascii\n"
	"                     (default: guessed from FILE's extension)\n";

struct simulate_opts {
	const char *family, *schedule, *output;
	enum sched_format format;
	bool json, timeline;
	int width;
};

static int parse(int argc, char **argv, struct simulate_opts *o)
{
	static const struct option opts[] = {
		{"family", required_argument, 0, 'f'},
		{"schedule", required_argument, 0, 's'},
		{"output", required_argument, 0, 'o'},
		{"format", required_argument, 0, 'F'},
		{"width", required_argument, 0, 'w'},
		{"json", no_argument, 0, 'j'},
		{"no-timeline", no_argument, 0, 'n'},
		{"help", no_argument, 0, 'h'}, {0}};
	int c;
	*o = (struct simulate_opts){.timeline = true, .width = 100};
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'f': o->family = optarg; break;
		case 's': o->schedule = optarg; break;
		case 'o': o->output = optarg; break;
		case 'j': o->json = true; break;
		case 'n': o->timeline = false; break;
		case 'w': {
			char *end;
			long w = strtol(optarg, &end, 10);
			if (*end || w < 20 || w > 1000)
				return cli_usage("simulate", "--width must be 20 to 1000");
			o->width = (int)w;
			break;
		}
		case 'F':
			o->format = cli_format_parse(optarg);
			if (o->format == FMT_NONE)
				return cli_usage("simulate", "unknown format '%s'", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return -1;
		default: return cli_usage("simulate", "unknown option or missing value in '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage("simulate", "expected one INSTANCE file");
	if (!o->family == !o->schedule)
		return cli_usage("simulate", "give exactly one of --family and --schedule");
	if (o->format && !o->output)
		return cli_usage("simulate", "--format needs -o FILE");
	if (o->output && !o->format)
		o->format = cli_format_guess(o->output);
	return 0;
}

static int report(const struct simulate_opts *o, const struct instance *in,
		  const struct schedule *s, const struct sim_result *r,
		  int64_t lb, double t0)
{
	struct error err;
	if (o->output && cli_write_schedule(o->output, o->format, in, s, r,
					    in->split_backward, &err))
		return cli_fail(o->json, &err);
	if (o->json) {
		json_t *res = cli_result_json(in, r, lb);
		json_object_set_new(res, "source", json_string(o->family ? o->family : o->schedule));
		json_object_set_new(res, "schedule", schedule_to_json(s));
		json_object_set_new(res, "seconds", json_real(cli_now() - t0));
		cli_print_json(res);
		return 0;
	}
	cli_print_instance(in);
	printf("schedule    %s %s\n", o->family ? "family" : "file",
	       o->family ? o->family : o->schedule);
	cli_print_result(in, r, lb);
	if (o->timeline) {
		char *text = render_ascii(in, s, r, o->width);
		if (text)
			fputs(text, stdout);
		free(text);
	}
	return 0;
}

int cmd_simulate(int argc, char **argv)
{
	struct simulate_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	double t0 = cli_now();
	struct error err;
	struct instance *in = NULL;
	struct schedule *s = NULL;
	struct sim *sim = NULL;
	struct sim_result r;
	struct bounds b;
	char what[300];
	snprintf(what, sizeof what, o.family ? "family '%s'" : "schedule '%s'",
		 o.family ? o.family : o.schedule);
	if (instance_read(argv[optind], &in, &err) ||
	    (o.family ? cli_family_schedule(o.family, in, &s, &err) :
			cli_read_schedule(o.schedule, FMT_NONE, &s, &err)) ||
	    cli_simulate(in, s, what, &sim, &r, &err) ||
	    bound_compute(in, &b, &err))
		rc = cli_fail(o.json, &err);
	else
		rc = report(&o, in, s, &r, b.best, t0);
	sim_free(sim);
	schedule_free(s);
	instance_free(in);
	return rc;
}
