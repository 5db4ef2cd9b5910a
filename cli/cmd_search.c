/* pipeopt search INSTANCE: the genetic algorithm (ga/), with its gap. */
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/clock.h"
#include "ga/ga.h"
#include "methods/method.h"
#include "methods/settings.h"
#include "sched/render.h"

static const char usage_text[] =
	"usage: pipeopt search INSTANCE [options]\n\n"
	"Search the schedule space with the genetic algorithm (Koala's dynamic\n"
	"try-test GA): genomes are per-device sequences of op kinds, decoded by\n"
	"event simulation with repairs. Seeds: every family that supports the\n"
	"instance (zb-auto among them), the serial order, --seed-schedule files,\n"
	"and an exact solve: of the instance itself up to 600 ops (its proven\n"
	"bound then also stops the search), else of a reduced instance (fewer\n"
	"micro-batches) stretched to full length, and beside it the shortest\n"
	"1-periodic schedule a MILP finds (every micro-batch the same timetable\n"
	"shifted by the period), unrolled, then a search over K-periodic orders\n"
	"(K = 1 to 3 micro-batches per cycle, simulated annealing) from the\n"
	"best seed. In runs bounded by time alone\n"
	"a local search by exact neighbourhoods (the exact search over one\n"
	"stretch of time or two or three devices, every other op's order kept)\n"
	"polishes the best four seeds with orders of their own, and the best at\n"
	"each restart. With recompute or offload a third of the time first\n"
	"searches without them, its best a seed. The result is never worse than\n"
	"the best seed and is re-simulated; its gap is to the proven lower\n"
	"bound. With several threads the result is the same for any count\n"
	"unless the time limit stops it.\n";

struct search_opts {
	struct search_settings s;
	struct run_opts run;
	struct opt_list seed_files;
	struct ga_options ga;
};

static const struct opt cli_table[] = {
	{.name = "seed-schedule", .type = OPT_LIST, .arg = "FILE",
	 .offset = offsetof(struct search_opts, seed_files), .where = OPT_CLI,
	 .help = "an extra seed (json or torch csv; repeatable)"},
	{0}};

static int parse(int argc, char **argv, struct search_opts *o, char **instance)
{
	struct opt_set set;
	memset(o, 0, sizeof *o);
	method_opt_set(&method_search, &o->s, &o->run, &set);
	opts_add(&set, cli_table, o);
	cli_shared(&set, &o->run, CLI_JSON | CLI_OUTPUT | CLI_PROGRESS | CLI_TIMELINE);
	int npos, rc = cli_parse(&set, usage_text, argc, argv, instance, 1, 1, &npos,
				 "expected one INSTANCE file");
	if (rc)
		return rc;
	search_ga_options(&o->s, &o->run, &o->ga);
	return 0;
}

static void progress(void *ctx, const struct ga_progress *p)
{
	(void)ctx;
	fprintf(stderr, "generation %ld: best %" PRId64 ", bound %" PRId64 ", gap %.2f %%, %ld evaluations, %.1f s\n",
		p->generation, p->best, p->bound, 100 * p->gap, p->evaluations, p->seconds);
}

static json_t *seeds_json(const struct ga_result *r)
{
	json_t *a = json_array();
	for (int i = 0; i < r->nseeds; i++) {
		const struct ga_seed_report *s = &r->seeds[i];
		json_t *o = json_pack("{s:s}", "name", s->name);
		json_object_set_new(o, "objective", s->objective == INT64_MAX ? json_null() :
				    json_integer(s->objective));
		json_object_set_new(o, "decoded", s->decoded == INT64_MAX ? json_null() :
				    json_integer(s->decoded));
		if (s->note[0])
			json_object_set_new(o, "note", json_string(s->note));
		json_array_append_new(a, o);
	}
	return a;
}

/* Every setting the run used (the search's table and the shared options). */
static json_t *settings_json(const struct search_opts *o)
{
	struct opt_set set;
	struct search_opts copy = *o;
	method_opt_set(&method_search, &copy.s, &copy.run, &set);
	json_t *j = opts_to_json(&set);
	json_object_set_new(j, "seed", json_integer((json_int_t)o->s.seed));
	json_object_set_new(j, "threads", json_integer(o->ga.threads));
	return j;
}

static json_t *result_json(const struct instance *in, const struct search_opts *o,
			   const struct ga_result *r, const struct sim_result *sr)
{
	json_t *j = cli_result_json(in, sr, r->lower_bound);
	if (sr->objective == r->lower_bound)
		json_object_set_new(j, "certified_by", json_string("bound"));
	json_object_set_new(j, "lower_bound_by", json_string(r->lower_bound_by));
	json_object_set_new(j, "seed_from", json_string(r->origin));
	json_object_set_new(j, "best_seed", json_pack("{s:s,s:I}", "name", r->best_seed_name,
		"objective", (json_int_t)r->best_seed));
	json_object_set_new(j, "improvement_over_best_seed", json_real(
		r->best_seed > 0 ? (double)(r->best_seed - sr->objective) / (double)r->best_seed : 0));
	json_object_set_new(j, "seeds", seeds_json(r));
	json_object_set_new(j, "generations", json_integer(r->generations));
	json_object_set_new(j, "evaluations", json_integer(r->evaluations));
	json_object_set_new(j, "evaluations_per_second", json_real(r->evals_per_second));
	json_object_set_new(j, "time_to_best", json_real(r->time_to_best));
	json_object_set_new(j, "local_search", json_pack("{s:i,s:i,s:f}", "runs", r->polish_runs,
		"improvements", r->polish_improvements, "seconds", r->polish_seconds));
	if (in->has_overlap)
		json_object_set_new(j, "pairs_added", json_integer(r->pairs_added));
	json_object_set_new(j, "stopped_by", json_string(r->stopped_by));
	json_object_set_new(j, "settings", settings_json(o));
	json_object_set_new(j, "seed", json_integer((json_int_t)o->ga.seed));
	json_object_set_new(j, "threads", json_integer(o->ga.threads));
	json_object_set_new(j, "population", json_integer(o->ga.population));
	json_object_set_new(j, "repairs", json_pack("{s:I,s:I,s:I}",
		"memory", (json_int_t)r->repairs.memory_repairs,
		"deadlock", (json_int_t)r->repairs.deadlock_repairs,
		"w_fills", (json_int_t)r->repairs.w_fills));
	json_object_set_new(j, "schedule", schedule_to_json(r->schedule));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	return j;
}

static void print_human(const struct instance *in, const struct run_opts *ro,
			const struct ga_result *r, const struct sim_result *sr)
{
	cli_print_instance(in);
	printf("seeds      ");
	for (int i = 0; i < r->nseeds; i++) {
		const struct ga_seed_report *s = &r->seeds[i];
		if (s->objective != INT64_MAX)
			printf(" %s %" PRId64 ";", s->name, s->objective);
		else
			printf(" %s (%s);", s->name, s->note[0] ? s->note : "not valid");
	}
	printf("\nsearch      %ld generations, %ld evaluations (%.0f per second), best after %.2f s of %.2f s, stopped by %s\n",
	       r->generations, r->evaluations, r->evals_per_second, r->time_to_best,
	       r->seconds, r->stopped_by);
	printf("best        %" PRId64 " from seed %s (best seed %s %" PRId64 ", %.2f %% better)\n",
	       sr->objective, r->origin, r->best_seed_name, r->best_seed,
	       r->best_seed > 0 ? 100.0 * (double)(r->best_seed - sr->objective) /
				      (double)r->best_seed : 0);
	cli_print_result(in, sr, r->lower_bound);
	if (ro->timeline) {
		char *text = render_ascii(in, r->schedule, sr, (int)ro->width);
		if (text)
			fputs(text, stdout);
		free(text);
	}
}

/* The --seed-schedule files, read for in (the caller frees each). */
static enum status read_seed_files(const struct search_opts *o, const struct instance *in,
				   struct schedule **v, struct error *err)
{
	for (int i = 0; i < o->seed_files.n; i++)
		if (cli_read_schedule(o->seed_files.v[i], FMT_NONE, in, &v[i], err))
			return STATUS_ERROR;
	return STATUS_OK;
}

/* Seconds per op to re-simulate and print the result after the GA
 * (measured: 0.5 s for the 196,608 ops of datasets/ga/scale's p64 m1024). */
#define OUTPUT_SECONDS_PER_OP 2.5e-6

/* The GA's options with the time limit less what reading took and what
 * writing the result will take (at most a quarter of the limit): the
 * limit is the whole command's. */
static const struct ga_options *limit_left(struct ga_options *g, const struct instance *in,
					   double t0)
{
	if (g->time_limit > 0) {
		double out = OUTPUT_SECONDS_PER_OP * (double)inst_nops(in);
		if (out > 0.25 * g->time_limit)
			out = 0.25 * g->time_limit;
		g->time_limit -= clock_seconds() - t0 + out;
		if (g->time_limit < 1e-3)
			g->time_limit = 1e-3;
	}
	return g;
}

int cmd_search(int argc, char **argv)
{
	struct search_opts o;
	char *path;
	int rc = parse(argc, argv, &o, &path);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct instance *in = NULL;
	struct schedule *extra[OPT_LIST_MAX] = {0};
	struct ga_result r = {0};
	struct sim *sim = NULL;
	struct sim_result sr;
	if (run_opts_progress_on(&o.run))
		o.ga.progress = progress;
	o.ga.nextra = o.seed_files.n;
	o.ga.extra = (const struct schedule *const *)extra;
	o.ga.extra_names = o.seed_files.v;
	double t0 = clock_seconds();
	if (instance_read(path, &in, &err) || read_seed_files(&o, in, extra, &err) ||
	    ga_run(in, limit_left(&o.ga, in, t0), &r, &err) ||
	    cli_simulate(in, r.schedule, "the best schedule", &sim, &sr, &err) ||
	    (o.run.output && cli_write_schedule(o.run.output, cli_format_guess(o.run.output), in,
					    r.schedule, &sr, in->split_backward, &err))) {
		rc = cli_fail(o.run.json, &err);
		goto out;
	}
	if (o.run.json)
		cli_print_json(result_json(in, &o, &r, &sr));
	else
		print_human(in, &o.run, &r, &sr);
out:
	sim_free(sim);
	ga_result_release(&r);
	for (int i = 0; i < o.seed_files.n; i++)
		schedule_free(extra[i]);
	instance_free(in);
	return rc;
}
