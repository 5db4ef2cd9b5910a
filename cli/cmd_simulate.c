/* pipeopt simulate INSTANCE (--family NAME | --schedule FILE): time and
 * validate a schedule, print its result and a timeline. */
#include <stddef.h>
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
	"op, deadlock, memory over the limit) is an error naming device and op.\n";

struct simulate_opts {
	const char *family, *schedule, *format;
};

#define OFF(f) offsetof(struct simulate_opts, f)
static const struct opt simulate_table[] = {
	{.name = "family", .type = OPT_STRING, .arg = "NAME", .offset = OFF(family),
	 .where = OPT_CLI, .help = "a predefined family (see 'pipeopt families') or a schedule-language program file"},
	{.name = "schedule", .type = OPT_STRING, .arg = "FILE", .offset = OFF(schedule),
	 .where = OPT_CLI, .help = "a schedule file: JSON, or torch CSV (*.csv)"},
	{.name = "format", .type = OPT_CHOICE, .choice = cli_format_at, .offset = OFF(format),
	 .where = OPT_CLI, .dflt = "from -o's extension", .help = "the format of -o"},
	{0}};

static int parse(int argc, char **argv, struct simulate_opts *o, struct run_opts *ro,
		 char **instance)
{
	struct opt_set set = {.cmd = "simulate",
			      .tables = {simulate_table, run_opts_json, run_opts_output,
					 run_opts_timeline},
			      .base = {o, ro, ro, ro}};
	int npos, rc = cli_parse(&set, usage_text, argc, argv, instance, 1, 1, &npos,
				 "expected one INSTANCE file");
	if (rc)
		return rc;
	if (!o->family == !o->schedule)
		return cli_usage("simulate", "give exactly one of --family and --schedule");
	if (o->format && !ro->output)
		return cli_usage("simulate", "--format needs -o FILE");
	return 0;
}

static int report(const struct simulate_opts *o, const struct run_opts *ro,
		  const struct instance *in, const struct schedule *s,
		  const struct sim_result *r, int64_t lb, double t0)
{
	struct error err;
	enum sched_format fmt = o->format ? cli_format_parse(o->format) :
			        ro->output ? cli_format_guess(ro->output) : FMT_NONE;
	if (ro->output && cli_write_schedule(ro->output, fmt, in, s, r, in->split_backward, &err))
		return cli_fail(ro->json, &err);
	if (ro->json) {
		json_t *res = cli_result_json(in, r, lb);
		json_object_set_new(res, "family", o->family ? json_string(o->family) : json_null());
		json_object_set_new(res, "schedule_file", o->schedule ? json_string(o->schedule) :
				    json_null());
		schedule_json_set(res, s);
		json_object_set_new(res, "seconds", json_real(cli_now() - t0));
		cli_print_json(res);
		return 0;
	}
	cli_print_instance(in);
	printf("schedule    %s %s\n", o->family ? "family" : "file",
	       o->family ? o->family : o->schedule);
	cli_print_result(in, r, lb);
	if (ro->timeline) {
		char *text = render_ascii(in, s, r, (int)ro->width);
		if (text)
			fputs(text, stdout);
		free(text);
	}
	return 0;
}

int cmd_simulate(int argc, char **argv)
{
	struct simulate_opts o;
	struct run_opts ro;
	char *path;
	int rc = parse(argc, argv, &o, &ro, &path);
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
	if (instance_read(path, &in, &err) ||
	    (o.family ? cli_family_schedule(o.family, in, &s, &err) :
			cli_read_schedule(o.schedule, FMT_NONE, in, &s, &err)) ||
	    cli_simulate(in, s, what, &sim, &r, &err) ||
	    bound_compute(in, &b, &err))
		rc = cli_fail(ro.json, &err);
	else
		rc = report(&o, &ro, in, s, &r, b.best, t0);
	sim_free(sim);
	schedule_free(s);
	instance_free(in);
	return rc;
}
