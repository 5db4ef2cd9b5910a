/*
 * pipeopt search-validate SUITE...: the GA against certified optima, for
 * researchers who must report how good their search is.
 *
 * Each instance NAME.json comes with NAME.cert.json, the result of
 * `pipeopt solve --json`. Before any search, every certificate is checked:
 * it says certified, its instance digest is this instance's, and its
 * schedule, simulated here, has exactly the objective it claims. Then the
 * GA runs on each instance (by default without the exact seed, so that the
 * numbers measure the search, not the solver) and stops at the optimum or
 * the time limit.
 */
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "methods/settings.h"
#include "ga/ga.h"

static const char usage_text[] =
	"usage: pipeopt search-validate SUITE... [options]\n\n"
	"Run the GA ('pipeopt search') on instances whose optimum is certified\n"
	"and print a table: per instance the optimum, the best seed, the GA's\n"
	"objective, its gap and its time to best; then the share solved to\n"
	"optimality, the mean and worst gap, and the times to best. SUITE is a\n"
	"directory (every NAME.json in it except *.cert.json) or an instance\n"
	"file; the certificate of NAME.json is NAME.cert.json ('pipeopt solve\n"
	"--json' output). Certificates are re-checked before any search.\n\n"
	"  --time-limit S           seconds per instance (default 1)\n"
	"  --seed N                 random seed (default 1)\n"
	"  --threads T              decoding threads per instance (default 1)\n"
	"  --population P           individuals per generation (default 64)\n"
	"  --exact-seed             also seed with a reduced instance's exact optimum\n"
	"  --min-share X            fail unless at least this share is optimal\n"
	"  --max-gap X              fail if any gap exceeds X (a fraction)\n"
	"  --json                   print one JSON object\n";

#define MAX_CASES 4096

struct vcase {
	char *path;             /* the instance file */
	struct instance *in;
	int64_t optimum;        /* time units, certified */
	struct ga_result r;
	bool done;
};

struct validate_opts {
	struct ga_options ga;
	double min_share, max_gap;
	bool json;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* Append the instance files of `path` (a directory or a file). */
static enum status list_cases(const char *path, char **out, int *n, struct error *err)
{
	struct stat st;
	if (stat(path, &st))
		return err_set(err, "suite '%s': no such file or directory", path);
	if (!S_ISDIR(st.st_mode)) {
		if (!ends_with(path, ".json") || ends_with(path, ".cert.json"))
			return err_set(err, "suite '%s': expected a directory or an instance NAME.json (with its NAME.cert.json)",
				       path);
		if (*n == MAX_CASES)
			return err_set(err, "suite: more than %d instances", MAX_CASES);
		out[(*n)++] = strdup(path);
		return STATUS_OK;
	}
	DIR *dir = opendir(path);
	if (!dir)
		return err_set(err, "suite '%s': cannot open the directory", path);
	int first = *n;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (!ends_with(e->d_name, ".json") || ends_with(e->d_name, ".cert.json"))
			continue;
		if (*n == MAX_CASES) {
			closedir(dir);
			return err_set(err, "suite '%s': more than %d instances", path, MAX_CASES);
		}
		char *p = malloc(strlen(path) + strlen(e->d_name) + 2);
		sprintf(p, "%s/%s", path, e->d_name);
		out[(*n)++] = p;
	}
	closedir(dir);
	if (*n == first)
		return err_set(err, "suite '%s': no instance files (*.json) in it", path);
	qsort(out + first, *n - first, sizeof *out, cmp_str);
	return STATUS_OK;
}

/* The certified optimum of c, re-checked against the instance. */
static enum status check_certificate(struct vcase *c, struct error *err)
{
	char *cert = malloc(strlen(c->path) + 16);
	strcpy(cert, c->path);
	strcpy(cert + strlen(cert) - 5, ".cert.json");
	json_error_t je;
	json_t *j = json_load_file(cert, 0, &je);
	struct schedule *s = NULL;
	struct sim *sim = NULL;
	struct sim_result sr;
	enum status st = STATUS_OK;
	char digest[65];
	instance_digest(c->in, digest);
	const json_t *certified = json_object_get(j, "certified");
	const json_t *objective = json_object_get(j, "objective");
	const char *sha = json_string_value(json_object_get(json_object_get(j, "certificate"),
							 "instance_sha256"));
	if (!j)
		st = err_set(err, "certificate '%s': line %d, column %d: %s", cert, je.line,
			     je.column, je.text);
	else if (!json_is_true(certified))
		st = err_set(err, "certificate '%s': certified: not true", cert);
	else if (!json_is_integer(objective))
		st = err_set(err, "certificate '%s': objective: missing or not an integer", cert);
	else if (!sha || strcmp(sha, digest))
		st = err_set(err, "certificate '%s': certificate.instance_sha256 does not match instance '%s'",
			     cert, c->path);
	else if (schedule_from_json(json_object_get(j, "schedule"), cert, &s, err) ||
		 cli_simulate(c->in, s, "the certified schedule", &sim, &sr, err))
		st = err_prefix(err, "certificate '%s'", cert);
	else if (sr.objective != json_integer_value(objective))
		st = err_set(err, "certificate '%s': objective %" PRId64 " but its schedule simulates to %" PRId64,
			     cert, (int64_t)json_integer_value(objective), sr.objective);
	else
		c->optimum = sr.objective;
	sim_free(sim);
	schedule_free(s);
	json_decref(j);
	free(cert);
	return st;
}

static double gap_of(const struct vcase *c)
{
	return (double)(c->r.best.objective - c->optimum) / (double)c->r.best.objective;
}

struct summary {
	int n, optimal, improved;
	double mean_gap, worst_gap, mean_ttb, max_ttb, seconds;
	const struct vcase *worst;
};

static struct summary summarise(const struct vcase *v, int n)
{
	struct summary s = {.n = n};
	for (int i = 0; i < n; i++) {
		double g = gap_of(&v[i]);
		s.optimal += v[i].r.best.objective == v[i].optimum;
		s.improved += v[i].r.best.objective < v[i].r.best_seed;
		s.mean_gap += g / n;
		s.mean_ttb += v[i].r.time_to_best / n;
		s.seconds += v[i].r.seconds;
		if (!s.worst || g > s.worst_gap) {
			s.worst_gap = g;
			s.worst = &v[i];
		}
		s.max_ttb = v[i].r.time_to_best > s.max_ttb ? v[i].r.time_to_best : s.max_ttb;
	}
	return s;
}

static void print_table(const struct vcase *v, int n, const struct summary *s)
{
	printf("| instance | ops | optimum | best seed | GA | gap | time to best (s) | generations |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		const struct vcase *c = &v[i];
		printf("| %s | %d | %" PRId64 " | %s %" PRId64 " | %" PRId64 " | %.2f %% | %.3f | %ld |\n",
		       c->in->name, inst_nops(c->in), c->optimum, c->r.best_seed_name,
		       c->r.best_seed, c->r.best.objective, 100 * gap_of(c), c->r.time_to_best,
		       c->r.generations);
	}
	printf("\n%d instances: %d optimal (%.1f %%), %d better than every seed; gap mean %.3f %%, worst %.3f %% (%s); time to best mean %.3f s, max %.3f s; %.1f s in all\n",
	       s->n, s->optimal, 100.0 * s->optimal / s->n, s->improved, 100 * s->mean_gap,
	       100 * s->worst_gap, s->worst->in->name, s->mean_ttb, s->max_ttb, s->seconds);
}

static json_t *table_json(const struct vcase *v, int n, const struct summary *s,
			  const struct validate_opts *o)
{
	json_t *rows = json_array();
	for (int i = 0; i < n; i++) {
		const struct vcase *c = &v[i];
		json_array_append_new(rows, json_pack("{s:s,s:s,s:i,s:I,s:s,s:I,s:I,s:f,s:b,s:f,s:I,s:I,s:s}",
			"instance", c->in->name, "file", c->path, "ops", inst_nops(c->in),
			"optimum", (json_int_t)c->optimum, "best_seed", c->r.best_seed_name,
			"best_seed_objective", (json_int_t)c->r.best_seed,
			"objective", (json_int_t)c->r.best.objective, "gap", gap_of(c),
			"optimal", c->r.best.objective == c->optimum,
			"time_to_best", c->r.time_to_best, "generations", (json_int_t)c->r.generations,
			"evaluations", (json_int_t)c->r.evaluations, "seed_from", c->r.origin));
	}
	return json_pack("{s:o,s:{s:i,s:i,s:f,s:i,s:f,s:f,s:s,s:f,s:f,s:f},s:{s:f,s:I,s:i,s:i,s:b}}",
		"instances", rows,
		"summary", "instances", s->n, "optimal", s->optimal,
		"share_optimal", (double)s->optimal / s->n, "improved_on_seeds", s->improved,
		"mean_gap", s->mean_gap, "worst_gap", s->worst_gap,
		"worst_instance", s->worst->in->name, "mean_time_to_best", s->mean_ttb,
		"max_time_to_best", s->max_ttb, "seconds", s->seconds,
		"options", "time_limit", o->ga.time_limit, "seed", (json_int_t)o->ga.seed,
		"threads", o->ga.threads, "population", o->ga.population,
		"exact_seed", o->ga.exact_seed);
}

static int parse(int argc, char **argv, struct validate_opts *o)
{
	static const struct option opts[] = {
		{"time-limit", required_argument, 0, 't'},
		{"seed", required_argument, 0, 's'},
		{"threads", required_argument, 0, 'T'},
		{"population", required_argument, 0, 'P'},
		{"exact-seed", no_argument, 0, 'X'},
		{"min-share", required_argument, 0, 'm'},
		{"max-gap", required_argument, 0, 'g'},
		{"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'}, {0}};
	int c;
	memset(o, 0, sizeof *o);
	ga_options_init(&o->ga);
	o->ga.exact_solve = search_exact_seed;   /* methods/search.c */
	o->ga.time_limit = 1;
	o->ga.exact_seed = false;
	o->min_share = 0;
	o->max_gap = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		double v = 0;
		switch (c) {
		case 't':
			if (!cli_number(optarg, 1e-3, 1e6, false, &v))
				return cli_usage("search-validate", "--time-limit needs seconds > 0");
			o->ga.time_limit = v;
			break;
		case 's':
			if (!cli_seed(optarg, &o->ga.seed))
				return cli_usage("search-validate", "--seed needs a whole number from 0 to 2^63 - 1");
			break;
		case 'T':
			if (!cli_number(optarg, 1, 256, true, &v))
				return cli_usage("search-validate", "--threads needs 1 to 256");
			o->ga.threads = (int)v;
			break;
		case 'P':
			if (!cli_number(optarg, 4, 100000, true, &v))
				return cli_usage("search-validate", "--population needs 4 to 100000");
			o->ga.population = (int)v;
			break;
		case 'X': o->ga.exact_seed = true; break;
		case 'm':
			if (!cli_number(optarg, 0, 1, false, &v))
				return cli_usage("search-validate", "--min-share needs a fraction from 0 to 1");
			o->min_share = v;
			break;
		case 'g':
			if (!cli_number(optarg, 0, 1, false, &v))
				return cli_usage("search-validate", "--max-gap needs a fraction from 0 to 1");
			o->max_gap = v;
			break;
		case 'j': o->json = true; break;
		case 'h': fputs(usage_text, stdout); return -1;
		default:
			return cli_usage("search-validate", "unknown option or missing value in '%s'",
					 argv[optind - 1]);
		}
	}
	if (optind == argc)
		return cli_usage("search-validate", "expected at least one SUITE directory or instance file");
	return 0;
}

/* Load every case and check its certificate; then search each. */
static enum status run_cases(struct vcase *v, int n, const struct validate_opts *o,
			     struct error *err)
{
	for (int i = 0; i < n; i++)
		if (instance_read(v[i].path, &v[i].in, err) || check_certificate(&v[i], err))
			return STATUS_ERROR;
	for (int i = 0; i < n; i++) {
		struct ga_options ga = o->ga;
		ga.target = v[i].optimum;
		if (ga_run(v[i].in, &ga, &v[i].r, err))
			return err_prefix(err, "instance '%s'", v[i].path);
		v[i].done = true;
		if (v[i].r.best.objective < v[i].optimum)
			return err_set(err, "instance '%s': the GA found %" PRId64 ", below the certified optimum %" PRId64 ": the certificate or the simulator is wrong",
				       v[i].path, v[i].r.best.objective, v[i].optimum);
	}
	return STATUS_OK;
}

static enum status check_thresholds(const struct summary *s, const struct validate_opts *o,
				    struct error *err)
{
	if ((double)s->optimal / s->n < o->min_share)
		return err_set(err, "search-validate: %d of %d instances optimal (%.1f %%), below --min-share %.1f %%",
			       s->optimal, s->n, 100.0 * s->optimal / s->n, 100 * o->min_share);
	if (s->worst_gap > o->max_gap)
		return err_set(err, "search-validate: worst gap %.3f %% on '%s' exceeds --max-gap %.3f %%",
			       100 * s->worst_gap, s->worst->in->name, 100 * o->max_gap);
	return STATUS_OK;
}

int cmd_search_validate(int argc, char **argv)
{
	struct validate_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	char **paths = calloc(MAX_CASES, sizeof *paths);
	struct vcase *v = NULL;
	int n = 0;
	enum status st = paths ? STATUS_OK : err_set(&err, "search-validate: out of memory");
	for (int i = optind; !st && i < argc; i++)
		st = list_cases(argv[i], paths, &n, &err);
	if (!st && !(v = calloc(n, sizeof *v)))
		st = err_set(&err, "search-validate: out of memory");
	for (int i = 0; !st && i < n; i++)
		v[i].path = paths[i];
	if (!st)
		st = run_cases(v, n, &o, &err);
	if (st) {
		rc = cli_fail(o.json, &err);
	} else {
		struct summary s = summarise(v, n);
		if (o.json)
			cli_print_json(table_json(v, n, &s, &o));
		else
			print_table(v, n, &s);
		if (check_thresholds(&s, &o, &err))
			rc = cli_fail(false, &err);
	}
	for (int i = 0; v && i < n; i++) {
		instance_free(v[i].in);
		ga_result_release(&v[i].r);
	}
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(v);
	return rc;
}
