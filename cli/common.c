/* Helpers shared by the subcommands. */
#include "cli/cli.h"

#include <errno.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/options.h"
#include "sched/family.h"
#include "common/fileio.h"
#include "sched/lang.h"
#include "sched/render.h"
#include "sched/torch_csv.h"

int cli_fail(bool json, const struct error *err)
{
	fprintf(stderr, "error: %s\n", err->msg);
	if (json)
		cli_print_json(json_pack("{s:s,s:s}", "status", "error", "error",
					 err->msg));
	return EXIT_FAILED;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = opts_vusage(cmd, fmt, ap);
	va_end(ap);
	return rc;
}

void cli_print_json(json_t *obj)
{
	json_dumpf(obj, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				JSON_REAL_PRECISION(10));
	fputc('\n', stdout);
	json_decref(obj);
}

double cli_now(void)
{
	return clock_seconds();
}

static const char *const format_names[] = {
	[FMT_NONE] = "none", [FMT_JSON] = "json", [FMT_TORCH_CSV] = "torch-csv",
	[FMT_TRACE] = "trace", [FMT_SVG] = "svg", [FMT_ASCII] = "ascii"};

enum sched_format cli_format_parse(const char *s)
{
	for (int f = FMT_JSON; f <= FMT_ASCII; f++)
		if (!strcmp(s, format_names[f]))
			return (enum sched_format)f;
	return FMT_NONE;
}

const char *cli_format_at(int i)
{
	return i >= 0 && FMT_JSON + i <= FMT_ASCII ? format_names[FMT_JSON + i] : NULL;
}

int cli_parse(const struct opt_set *s, const char *usage, int argc, char **argv,
	      char **pos, int lo, int hi, int *npos, const char *expected)
{
	opts_defaults(s);
	int rc = opts_parse(s, usage, argc, argv, pos, hi, npos);
	if (rc)
		return rc;
	if (*npos < lo)
		return cli_usage(s->cmd, "%s", expected);
	return 0;
}

void cli_shared(struct opt_set *set, struct run_opts *run, unsigned which)
{
	static const struct {
		unsigned bit;
		const struct opt *table;
	} shared[] = {
		{CLI_JSON, run_opts_json}, {CLI_OUTPUT, run_opts_output},
		{CLI_PROGRESS, run_opts_progress}, {CLI_TIMELINE, run_opts_timeline},
		{CLI_THREADS, run_opts_threads}, {CLI_TIME_LIMIT, run_opts_time_limit}};
	for (size_t i = 0; i < sizeof shared / sizeof *shared; i++)
		if (which & shared[i].bit)
			opts_add(set, shared[i].table, run);
}

int cli_parse_graph_command(const struct method *m, void *settings, const long *devices,
			    struct run_opts *run, unsigned which, const char *usage, int argc,
			    char **argv, char **path)
{
	struct opt_set set;
	method_opt_set(m, settings, run, &set);
	cli_shared(&set, run, which);
	int npos, rc = cli_parse(&set, usage, argc, argv, path, 1, 1, &npos,
				 "expected one GRAPH file");
	if (!rc && !*devices)
		rc = cli_usage(m->name, "--devices is required");
	return rc;
}

const char *cli_format_name(enum sched_format f)
{
	return format_names[f];
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

enum sched_format cli_format_guess(const char *path)
{
	if (ends_with(path, ".csv"))
		return FMT_TORCH_CSV;
	if (ends_with(path, ".svg"))
		return FMT_SVG;
	if (ends_with(path, ".txt"))
		return FMT_ASCII;
	if (ends_with(path, ".trace.json"))
		return FMT_TRACE;
	return FMT_JSON;
}

enum status cli_family_schedule(const char *name_or_file,
				const struct instance *in,
				struct schedule **out, struct error *err)
{
	*out = NULL;
	bool is_file = strchr(name_or_file, '/') || ends_with(name_or_file, ".sched") ||
		       (!family_find(name_or_file) && access(name_or_file, R_OK) == 0);
	if (!is_file)
		return family_generate(name_or_file, in, out, err);
	struct program *pg;
	if (program_read(name_or_file, &pg, err))
		return STATUS_ERROR;
	enum status st = program_run(pg, in, out, err);
	program_free(pg);
	return st;
}

static enum status read_schedule(const char *path, enum sched_format fmt,
				 struct schedule **out, struct error *err)
{
	if (fmt == FMT_NONE)
		fmt = cli_format_guess(path);
	if (fmt == FMT_TORCH_CSV)
		return torch_csv_read(path, out, err);
	if (fmt == FMT_JSON)
		return schedule_read(path, out, err);
	*out = NULL;
	return err_set(err, "schedule '%s': cannot read the %s format (read json or torch-csv)",
		       path, cli_format_name(fmt));
}

enum status cli_read_schedule(const char *path, enum sched_format fmt,
			      const struct instance *in, struct schedule **out,
			      struct error *err)
{
	if (read_schedule(path, fmt, out, err))
		return STATUS_ERROR;
	if (!in || !schedule_check_shape(in, *out, err))
		return STATUS_OK;
	schedule_free(*out);
	*out = NULL;
	return err_prefix(err, "schedule '%s' does not match instance '%s'", path, in->name);
}

char *cli_render(enum sched_format fmt, const struct instance *in,
		 const struct schedule *s, const struct sim_result *r,
		 bool split)
{
	switch (fmt) {
	case FMT_TORCH_CSV:
		return torch_csv_format(s, in, split);
	case FMT_TRACE:
		return render_trace(in, s, r);
	case FMT_SVG:
		return render_svg(in, s, r);
	case FMT_ASCII:
		return render_ascii(in, s, r, 100);
	default: {
		json_t *obj = json_object();
		schedule_json_set(obj, s);
		char *text = json_dumps(obj, JSON_COMPACT);
		json_decref(obj);
		if (!text)
			return NULL;
		/* one device per line keeps files readable and diffable; a list
		 * per device under "schedule" and again under "torch_csv" */
		size_t n = strlen(text);
		char *out = malloc(n + 4 * (size_t)s->devices + 6);
		if (!out) {
			free(text);
			return NULL;
		}
		size_t k = 0;
		int depth = 0;
		for (size_t i = 0; i < n; i++) {
			if (text[i] == '[')
				depth++;
			if (text[i] == '[' && depth == 2)
				out[k++] = '\n';
			if (text[i] == ']' && depth == 1)
				out[k++] = '\n';
			if (text[i] == ']')
				depth--;
			out[k++] = text[i];
		}
		out[k++] = '\n';
		out[k] = 0;
		free(text);
		return out;
	}
	}
}

enum status cli_write(const char *path, const char *text, struct error *err)
{
	if (!text)
		return err_set(err, "output '%s': out of memory", path);
	return file_write_atomic(path, text, strlen(text), err);
}

enum status cli_write_schedule(const char *path, enum sched_format fmt,
			       const struct instance *in,
			       const struct schedule *s,
			       const struct sim_result *r, bool split,
			       struct error *err)
{
	if (fmt == FMT_TORCH_CSV && schedule_has_offload(s))
		return err_set(err, "output '%s': torch CSV has no action for an offload or a reload; write the schedule as JSON",
			       path);
	if (fmt == FMT_TORCH_CSV && schedule_has_recompute(s))
		return err_set(err, "output '%s': torch CSV has no action for a recomputed backward; write the schedule as JSON",
			       path);
	char *text = cli_render(fmt, in, s, r, split);
	enum status st = cli_write(path, text, err);
	free(text);
	return st;
}

int cli_json_flag(const char *cmd, const char *usage_text, int argc, char **argv,
		  char **pos, int lo, int hi, int *npos, const char *expected, bool *json)
{
	struct run_opts run;
	struct opt_set set = {.cmd = cmd, .tables = {run_opts_json}, .base = {&run}};
	int rc = cli_parse(&set, usage_text, argc, argv, pos, lo, hi, npos, expected);
	*json = run.json;
	return rc;
}

enum status cli_simulate(const struct instance *in, const struct schedule *s,
			 const char *what, struct sim **sim,
			 struct sim_result *r, struct error *err)
{
	*sim = sim_new(in);
	if (!*sim)
		return err_set(err, "%s: out of memory", what);
	if (sim_run(*sim, s, r, err)) {
		err_prefix(err, "%s is invalid for instance '%s'", what, in->name);
		sim_free(*sim);
		*sim = NULL;
		return STATUS_ERROR;
	}
	return STATUS_OK;
}

json_t *cli_result_json(const struct instance *in, const struct sim_result *r,
			int64_t lb)
{
	json_t *peak = json_array();
	for (int d = 0; d < in->devices; d++)
		json_array_append_new(peak, json_integer(r->peak_memory[d]));
	json_t *j = json_pack("{s:s,s:s,s:I,s:I,s:o,s:f,s:I}",
			      "instance", in->name,
			      "objective_name", in->objective == OBJ_SPAN ? "span" : "makespan",
			      "makespan", (json_int_t)r->makespan,
			      "span", (json_int_t)r->span,
			      "peak_memory", peak,
			      "bubble_ratio", r->bubble_ratio,
			      "lower_bound", (json_int_t)lb);
	if (j && in->has_recompute)
		json_object_set_new(j, "recomputed", json_integer(r->recomputed));
	if (j && in->has_offload)
		json_object_set_new(j, "offloaded", json_integer(r->offloaded));
	struct verdict v = verdict_of((double)r->objective, (double)lb, false, NULL,
				      OUTCOME_FEASIBLE);
	v.integral = true;
	return verdict_json(&v, j);
}

void cli_print_instance(const struct instance *in)
{
	printf("instance    %s: %d devices, %d stages (%s%s), %d micro-batches, %s backward",
	       in->name, in->devices, in->stages, in->placement,
	       in->is_chain ? ", chain" : ", DAG", in->microbatches,
	       in->split_backward ? "split" : "fused");
	if (in->has_limit)
		printf(", memory limit");
	printf(", objective %s\n", in->objective == OBJ_SPAN ? "span" : "makespan");
}

void cli_print_result(const struct instance *in, const struct sim_result *r,
		      int64_t lb)
{
	printf("makespan    %" PRId64 "\n", r->makespan);
	printf("span        %" PRId64 "\n", r->span);
	printf("bubble      %.2f %%\n", 100.0 * r->bubble_ratio);
	printf("peak memory [");
	for (int d = 0; d < in->devices; d++)
		printf("%s%" PRId64, d ? ", " : "", r->peak_memory[d]);
	printf("]");
	if (in->has_limit) {
		printf("  limit [");
		for (int d = 0; d < in->devices; d++)
			printf("%s%" PRId64, d ? ", " : "", in->limit[d]);
		printf("]");
	}
	printf("\n");
	if (in->has_recompute)
		printf("recomputed  %d backwards (marked \"recompute\" in the schedule)\n", r->recomputed);
	if (in->has_offload)
		printf("offloaded   %d activations (O and L ops on the copy channels)\n", r->offloaded);
	printf("objective   %s %" PRId64 ", lower bound %" PRId64 ", gap %.2f %%%s\n",
	       in->objective == OBJ_SPAN ? "span" : "makespan", r->objective, lb,
	       100.0 * verdict_gap((double)r->objective, (double)lb),
	       r->objective == lb ? "  (optimal: meets the lower bound)" : "");
}

bool cli_number(const char *s, double lo, double hi, bool whole, double *v)
{
	char *end;
	*v = strtod(s, &end);
	return !*end && end != s && *v >= lo && *v <= hi && (!whole || *v == (double)(long long)*v);
}

bool cli_seed(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (!*s || *end || errno || strspn(s, "0123456789") != strlen(s) || x > INT64_MAX)
		return false;
	*v = x;
	return true;
}

bool cli_sizes(const char *s, int max, int hi, int *out, int *n)
{
	char *copy = strdup(s), *save = NULL;
	bool ok = copy != NULL;
	double v;
	*n = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && ok;
	     t = strtok_r(NULL, ",", &save)) {
		ok = *n < max && cli_number(t, 1, hi, true, &v) && (!*n || v > out[*n - 1]);
		if (ok)
			out[(*n)++] = (int)v;
	}
	free(copy);
	return ok && *n > 0;
}
