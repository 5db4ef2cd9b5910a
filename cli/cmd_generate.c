/* pipeopt generate NAME INSTANCE: a family's schedule, checked by the
 * simulator, written as a schedule or a picture. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "sched/bound.h"
#include "sched/family.h"

static const char usage_text[] =
	"usage: pipeopt generate NAME|FILE INSTANCE [-o OUT] [--format FMT] [--json]\n\n"
	"Build the schedule of family NAME (see 'pipeopt families'), or of the\n"
	"schedule-language program FILE (docs/language.md), for INSTANCE,\n"
	"check it with the simulator, and write it to OUT (default: stdout).\n"
	"A family that does not support the instance, or whose schedule breaks\n"
	"the memory limit, is an error with the reason. With --json the result\n"
	"(the simulated schedule's keys and the schedule) is printed as one JSON\n"
	"object; the schedule goes to OUT only when -o names a file.\n";

struct generate_opts {
	const char *format;
	struct run_opts run;
};

static const struct opt generate_table[] = {
	{.name = "format", .type = OPT_CHOICE, .choice = cli_format_at, .dflt = "from OUT's extension",
	 .offset = offsetof(struct generate_opts, format), .where = OPT_CLI,
	 .help = "the format of OUT"},
	{0}};

int cmd_generate(int argc, char **argv)
{
	struct generate_opts o = {0};
	struct opt_set set = {.cmd = "generate",
			      .tables = {generate_table, run_opts_output, run_opts_json},
			      .base = {&o, &o.run, &o.run}};
	char *pos[2];
	int npos, rc = cli_parse(&set, usage_text, argc, argv, pos, 2, 2, &npos,
				 "expected NAME and INSTANCE");
	if (rc)
		return rc < 0 ? 0 : rc;
	const char *out = o.run.output ? o.run.output : o.run.json ? NULL : "-";
	enum sched_format fmt = o.format ? cli_format_parse(o.format) :
				out ? cli_format_guess(out) : FMT_JSON;
	const char *name = pos[0];
	struct error err;
	struct instance *in = NULL;
	struct schedule *s = NULL;
	struct sim *sim = NULL;
	struct sim_result r;
	struct bounds b;
	char what[200];
	snprintf(what, sizeof what, "family '%s'", name);
	if (instance_read(pos[1], &in, &err) ||
	    cli_family_schedule(name, in, &s, &err) ||
	    cli_simulate(in, s, what, &sim, &r, &err) ||
	    (o.run.json && bound_compute(in, &b, &err)) ||
	    (out && cli_write_schedule(out, fmt, in, s, &r, in->split_backward, &err))) {
		rc = cli_fail(o.run.json, &err);
	} else if (o.run.json) {
		json_t *j = cli_result_json(in, &r, b.best);
		json_object_set_new(j, "family", json_string(name));
		json_object_set_new(j, "schedule", schedule_to_json(s));
		cli_print_json(j);
	}
	sim_free(sim);
	schedule_free(s);
	instance_free(in);
	return rc;
}
