/* pipeopt families [INSTANCE]: list the families, or compare them on an
 * instance against its lower bound. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "sched/bound.h"
#include "sched/family.h"

static const char usage_text[] =
	"usage: pipeopt families [INSTANCE] [--json]\n\n"
	"Without INSTANCE, list the predefined schedule families. With INSTANCE,\n"
	"build and simulate each family on it and print one row per family:\n"
	"objective, makespan, span, bubble ratio, highest peak memory, and the gap\n"
	"to the lower bound (or why the family refused the instance).\n";

/* The width of the name column: the longest family name, at least 12. */
static int name_width(void)
{
	int w = 12;
	for (int i = 0; i < family_count(); i++) {
		int n = (int)strlen(family_at(i)->name);
		w = n > w ? n : w;
	}
	return w;
}

static int list_families(bool json)
{
	if (json) {
		json_t *arr = json_array();
		for (int i = 0; i < family_count(); i++) {
			const struct family *f = family_at(i);
			json_array_append_new(arr, json_pack("{s:s,s:s,s:s}", "name", f->name,
				"summary", f->summary, "supports", f->supports));
		}
		cli_print_json(json_pack("{s:s,s:o}", "status", "ok", "families", arr));
		return 0;
	}
	int w = name_width();
	for (int i = 0; i < family_count(); i++) {
		const struct family *f = family_at(i);
		printf("%-*s %s\n%-*s supports: %s\n", w, f->name, f->summary, w, "",
		       f->supports);
	}
	return 0;
}

/* Generate and simulate one family; a JSON row either way. */
static json_t *family_row(const struct family *f, const struct instance *in,
			  int64_t lb)
{
	struct error err;
	struct schedule *s = NULL;
	struct sim *sim = NULL;
	struct sim_result r;
	char what[100];
	json_t *row;
	snprintf(what, sizeof what, "family '%s'", f->name);
	if (family_run(f, in, &s, &err) ||
	    cli_simulate(in, s, what, &sim, &r, &err))
		/* the family does not support the instance (or breaks its memory
		 * limit): "unsupported", as in a sweep's row */
		row = json_pack("{s:s,s:s}", "status", outcome_name(OUTCOME_UNSUPPORTED),
				"error", err.msg);
	else
		row = cli_result_json(in, &r, lb);
	json_object_set_new(row, "family", json_string(f->name));
	sim_free(sim);
	schedule_free(s);
	return row;
}

static void print_row(const json_t *row, bool has_memory)
{
	const char *name = json_string_value(json_object_get(row, "family"));
	int w = name_width();
	if (json_object_get(row, "error")) {
		printf("%-*s refused: %s\n", w, name,
		       json_string_value(json_object_get(row, "error")));
		return;
	}
	int64_t peak = 0;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(row, "peak_memory"), i, v)
		peak = json_integer_value(v) > peak ? json_integer_value(v) : peak;
	char peak_text[24] = "-";
	if (has_memory)
		snprintf(peak_text, sizeof peak_text, "%" PRId64, peak);
	printf("%-*s %12" PRId64 " %12" PRId64 " %12" PRId64 " %8.2f %% %10s %8.2f %%%s\n",
	       w, name, (int64_t)json_integer_value(json_object_get(row, "objective")),
	       (int64_t)json_integer_value(json_object_get(row, "makespan")),
	       (int64_t)json_integer_value(json_object_get(row, "span")),
	       100.0 * json_real_value(json_object_get(row, "bubble_ratio")), peak_text,
	       100.0 * json_real_value(json_object_get(row, "gap")),
	       json_is_true(json_object_get(row, "certified")) ? "  optimal" : "");
}

static int compare(const char *path, bool json)
{
	double t0 = cli_now();
	struct error err;
	struct instance *in;
	struct bounds b;
	if (instance_read(path, &in, &err))
		return cli_fail(json, &err);
	if (bound_compute(in, &b, &err)) {
		instance_free(in);
		return cli_fail(json, &err);
	}
	json_t *rows = json_array();
	for (int i = 0; i < family_count(); i++)
		json_array_append_new(rows, family_row(family_at(i), in, b.best));
	if (json) {
		cli_print_json(json_pack("{s:s,s:s,s:I,s:o,s:f}", "status", "ok", "instance", in->name,
					 "lower_bound", (json_int_t)b.best, "results", rows,
					 "seconds", cli_now() - t0));
	} else {
		cli_print_instance(in);
		printf("lower bound %" PRId64 " on the %s\n\n", b.best,
		       in->objective == OBJ_SPAN ? "span" : "makespan");
		printf("%-*s %12s %12s %12s %10s %10s %10s\n", name_width(), "family", "objective",
		       "makespan", "span", "bubble", "max peak", "gap");
		size_t i;
		json_t *row;
		json_array_foreach(rows, i, row)
			print_row(row, in->has_memory);
		json_decref(rows);
	}
	instance_free(in);
	return 0;
}

int cmd_families(int argc, char **argv)
{
	bool json;
	char *path;
	int npos, rc = cli_json_flag("families", usage_text, argc, argv, &path, 0, 1, &npos,
				     "expected at most one INSTANCE file", &json);
	if (rc)
		return rc < 0 ? 0 : rc;
	return npos == 1 ? compare(path, json) : list_families(json);
}
