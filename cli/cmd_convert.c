/* pipeopt convert IN OUT: between schedule formats. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char usage_text[] =
	"usage: pipeopt convert IN OUT [--from FMT] [--to FMT] [--instance FILE]\n\n"
	"Convert a schedule between formats. IN is json or torch-csv; OUT is\n"
	"json, torch-csv, trace (Chrome trace, opens in Perfetto), svg (Gantt\n"
	"chart) or ascii. Formats default to the files' extensions (.csv,\n"
	".svg, .txt, .trace.json, else json). trace, svg and ascii need times,\n"
	"so they need --instance; with an instance the schedule is validated.\n"
	"OUT '-' writes to stdout. A torch CSV keeps its steps (idle cells,\n"
	"actions that run no op), in json under \"torch_csv\", so it converts\n"
	"back byte for byte; other schedules are written to torch CSV step-aligned\n"
	"(each op one step, after its inputs' steps).\n";

struct convert_opts {
	const char *from, *to, *instance;
	struct run_opts run;
};

#define OFF(f) offsetof(struct convert_opts, f)
static const struct opt convert_table[] = {
	{.name = "from", .type = OPT_CHOICE, .choice = cli_format_at, .dflt = "from IN's extension",
	 .offset = OFF(from), .where = OPT_CLI, .help = "the format of IN"},
	{.name = "to", .type = OPT_CHOICE, .choice = cli_format_at, .dflt = "from OUT's extension",
	 .offset = OFF(to), .where = OPT_CLI, .help = "the format of OUT"},
	{.name = "instance", .type = OPT_STRING, .arg = "FILE", .offset = OFF(instance),
	 .where = OPT_CLI, .help = "the instance, for times (and validation)"},
	{0}};

/* --json: what was converted, as one object. */
static void print_json(const struct convert_opts *o, const char *src, const char *dst,
		       enum sched_format from, enum sched_format to, const struct schedule *s)
{
	cli_print_json(json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:b}", "status", "ok",
				 "input", src, "output", dst,
				 "from", cli_format_name(from == FMT_NONE ? cli_format_guess(src) : from),
				 "to", cli_format_name(to), "ops", (json_int_t)schedule_nops(s),
				 "validated", o->instance != NULL));
}

int cmd_convert(int argc, char **argv)
{
	struct convert_opts o = {0};
	struct opt_set set = {.cmd = "convert", .tables = {convert_table, run_opts_json},
			      .base = {&o, &o.run}};
	char *pos[2];
	int npos, rc = cli_parse(&set, usage_text, argc, argv, pos, 2, 2, &npos,
				 "expected IN and OUT");
	if (rc)
		return rc < 0 ? 0 : rc;
	const char *src = pos[0], *dst = pos[1];
	enum sched_format from = o.from ? cli_format_parse(o.from) : FMT_NONE;
	enum sched_format to = o.to ? cli_format_parse(o.to) : cli_format_guess(dst);
	bool timed = to == FMT_TRACE || to == FMT_SVG || to == FMT_ASCII;
	if (timed && !o.instance)
		return cli_usage("convert", "the %s format needs --instance FILE for the times",
				 cli_format_name(to));
	if (o.run.json && !strcmp(dst, "-"))
		return cli_usage("convert", "--json prints the result on stdout: give OUT a file");
	struct error err;
	struct instance *in = NULL;
	struct schedule *s = NULL;
	struct sim *sim = NULL;
	struct sim_result r;
	char what[300];
	snprintf(what, sizeof what, "schedule '%s'", src);
	if ((o.instance && instance_read(o.instance, &in, &err)) ||
	    cli_read_schedule(src, from, in, &s, &err) ||
	    (in && cli_simulate(in, s, what, &sim, &r, &err))) {
		rc = cli_fail(o.run.json, &err);
	} else if (cli_write_schedule(dst, to, in, s, in ? &r : NULL,
				      in ? in->split_backward : schedule_has_w(s),
				      &err)) {
		rc = cli_fail(o.run.json, &err);
	} else if (o.run.json) {
		print_json(&o, src, dst, from, to, s);
	}
	sim_free(sim);
	schedule_free(s);
	instance_free(in);
	return rc;
}
