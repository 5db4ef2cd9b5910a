/* pipeopt search INSTANCE: the genetic algorithm (ga/), with its gap. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "ga/ga.h"
#include "sched/render.h"

static const char usage_text[] =
	"usage: pipeopt search INSTANCE [options]\n\n"
	"Search the schedule space with the genetic algorithm (Koala's dynamic\n"
	"try-test GA): genomes are per-device sequences of op kinds, decoded by\n"
	"event simulation with repairs. Seeds: every family that supports the\n"
	"instance (zb-auto among them), the serial order, --seed-schedule files,\n"
	"and the exact optimum of a reduced instance (fewer micro-batches)\n"
	"stretched to full length. The result is never worse than the best seed\n"
	"and is re-simulated; its gap is to the proven lower bound.\n\n"
	"  --time-limit S           seconds for the whole search (default 20)\n"
	"  --generations G          stop after G generations\n"
	"  --stall G                stop after G generations without improvement\n"
	"  --gap EPS                stop when (best - bound) / best <= EPS (default 0)\n"
	"  --target N               stop when the objective is <= N (a known optimum)\n"
	"  --seed N                 random seed (default 1)\n"
	"  --threads T              decoding threads (default: all cores); the result\n"
	"                           is the same for any T unless the time limit stops it\n"
	"  --population P           individuals per generation (default 64)\n"
	"  --seed-schedule FILE     an extra seed (json or torch csv; repeatable)\n"
	"  --no-family-seeds        do not seed with the predefined families\n"
	"  --no-exact-seed          do not seed with a reduced instance's exact optimum\n"
	"  --exact-seed-time S      seconds for that solve (default: 1/4 of the limit, <= 10)\n"
	"  -o, --output FILE        write the schedule (format from the extension)\n"
	"  --json                   print one JSON object\n"
	"  --progress               progress on stderr even when it is not a terminal\n";

#define MAX_SEED_FILES 64
#define UNKNOWN_OPTION (-2)

struct search_opts {
	struct ga_options ga;
	const char *output;
	const char *seed_files[MAX_SEED_FILES];
	int nseed_files;
	bool json, progress;
};

static int parse_option(int c, struct search_opts *o)
{
	double v;
	switch (c) {
	case 't':
		if (!cli_number(optarg, 1e-3, 1e7, false, &v))
			return cli_usage("search", "--time-limit needs seconds > 0");
		o->ga.time_limit = v;
		return 0;
	case 'g':
		if (!cli_number(optarg, 1, 1e12, true, &v))
			return cli_usage("search", "--generations needs a whole number >= 1");
		o->ga.generations = (long)v;
		return 0;
	case 'S':
		if (!cli_number(optarg, 1, 1e12, true, &v))
			return cli_usage("search", "--stall needs a whole number >= 1");
		o->ga.stall = (long)v;
		return 0;
	case 'G':
		if (!cli_number(optarg, 0, 1, false, &v))
			return cli_usage("search", "--gap needs a fraction from 0 to 1");
		o->ga.gap = v;
		return 0;
	case 'x':
		if (!cli_number(optarg, 1, 9e18, true, &v))
			return cli_usage("search", "--target needs a whole number >= 1");
		o->ga.target = (int64_t)v;
		return 0;
	case 's':
		if (!cli_seed(optarg, &o->ga.seed))
			return cli_usage("search", "--seed needs a whole number from 0 to 2^63 - 1");
		return 0;
	case 'T':
		if (!cli_number(optarg, 1, 256, true, &v))
			return cli_usage("search", "--threads needs 1 to 256");
		o->ga.threads = (int)v;
		return 0;
	case 'P':
		if (!cli_number(optarg, 4, 100000, true, &v))
			return cli_usage("search", "--population needs 4 to 100000");
		o->ga.population = (int)v;
		return 0;
	case 'E':
		if (!cli_number(optarg, 1e-3, 1e7, false, &v))
			return cli_usage("search", "--exact-seed-time needs seconds > 0");
		o->ga.exact_seed_time = v;
		return 0;
	case 'F':
		if (o->nseed_files == MAX_SEED_FILES)
			return cli_usage("search", "at most %d --seed-schedule files", MAX_SEED_FILES);
		o->seed_files[o->nseed_files++] = optarg;
		return 0;
	case 'f': o->ga.family_seeds = false; return 0;
	case 'X': o->ga.exact_seed = false; return 0;
	case 'o': o->output = optarg; return 0;
	case 'j': o->json = true; return 0;
	case 'p': o->progress = true; return 0;
	case 'h': fputs(usage_text, stdout); return -1;
	default:
		return UNKNOWN_OPTION;
	}
}

static int parse(int argc, char **argv, struct search_opts *o)
{
	static const struct option opts[] = {
		{"time-limit", required_argument, 0, 't'},
		{"generations", required_argument, 0, 'g'},
		{"stall", required_argument, 0, 'S'},
		{"gap", required_argument, 0, 'G'},
		{"target", required_argument, 0, 'x'},
		{"seed", required_argument, 0, 's'},
		{"threads", required_argument, 0, 'T'},
		{"population", required_argument, 0, 'P'},
		{"exact-seed-time", required_argument, 0, 'E'},
		{"seed-schedule", required_argument, 0, 'F'},
		{"no-family-seeds", no_argument, 0, 'f'},
		{"no-exact-seed", no_argument, 0, 'X'},
		{"output", required_argument, 0, 'o'},
		{"json", no_argument, 0, 'j'},
		{"progress", no_argument, 0, 'p'},
		{"help", no_argument, 0, 'h'}, {0}};
	int c, rc;
	memset(o, 0, sizeof *o);
	ga_options_init(&o->ga);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	o->ga.threads = cores < 1 ? 1 : cores > 256 ? 256 : (int)cores;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		rc = parse_option(c, o);
		if (rc == UNKNOWN_OPTION)
			return cli_usage("search", "unknown option or missing value in '%s'",
					 argv[optind - 1]);
		if (rc)
			return rc;
	}
	if (argc - optind != 1)
		return cli_usage("search", "expected one INSTANCE file");
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

static json_t *result_json(const struct instance *in, const struct search_opts *o,
			   const struct ga_result *r, const struct sim_result *sr)
{
	json_t *j = cli_result_json(in, sr, r->lower_bound);
	if (sr->objective == r->lower_bound)
		json_object_set_new(j, "certified_by", json_string("bound"));
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
	json_object_set_new(j, "stopped_by", json_string(r->stopped_by));
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

static void print_human(const struct instance *in, const struct ga_result *r,
			const struct sim_result *sr)
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
	char *text = render_ascii(in, r->schedule, sr, 100);
	if (text)
		fputs(text, stdout);
	free(text);
}

/* The --seed-schedule files, read (the caller frees each). */
static enum status read_seed_files(const struct search_opts *o, struct schedule **v,
				   struct error *err)
{
	for (int i = 0; i < o->nseed_files; i++)
		if (cli_read_schedule(o->seed_files[i], FMT_NONE, &v[i], err))
			return STATUS_ERROR;
	return STATUS_OK;
}

int cmd_search(int argc, char **argv)
{
	struct search_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct instance *in = NULL;
	struct schedule *extra[MAX_SEED_FILES] = {0};
	struct ga_result r = {0};
	struct sim *sim = NULL;
	struct sim_result sr;
	if (o.progress || (!o.json && isatty(2)))
		o.ga.progress = progress;
	o.ga.nextra = o.nseed_files;
	o.ga.extra = (const struct schedule *const *)extra;
	o.ga.extra_names = o.seed_files;
	if (instance_read(argv[optind], &in, &err) || read_seed_files(&o, extra, &err) ||
	    ga_run(in, &o.ga, &r, &err) ||
	    cli_simulate(in, r.schedule, "the best schedule", &sim, &sr, &err) ||
	    (o.output && cli_write_schedule(o.output, cli_format_guess(o.output), in,
					    r.schedule, &sr, in->split_backward, &err))) {
		rc = cli_fail(o.json, &err);
		goto out;
	}
	if (o.json)
		cli_print_json(result_json(in, &o, &r, &sr));
	else
		print_human(in, &r, &sr);
out:
	sim_free(sim);
	ga_result_release(&r);
	for (int i = 0; i < o.nseed_files; i++)
		schedule_free(extra[i]);
	instance_free(in);
	return rc;
}
