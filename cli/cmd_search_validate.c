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
#include <assert.h>
#include <dirent.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "ga/ga.h"
#include "methods/method.h"
#include "methods/settings.h"

static const char usage_text[] =
	"usage: pipeopt search-validate SUITE... [options]\n\n"
	"Run the GA ('pipeopt search') on instances whose optimum is certified\n"
	"and print a table: per instance the optimum, the best seed, the GA's\n"
	"objective, its gap and its time to best; then the share solved to\n"
	"optimality, the mean and worst gap, and the times to best. SUITE is a\n"
	"directory (every NAME.json in it except *.cert.json) or an instance\n"
	"file; the certificate of NAME.json is NAME.cert.json ('pipeopt solve\n"
	"--json' output). Certificates are re-checked before any search.\n"
	"The GA's options are those of 'pipeopt search', except that\n"
	"--time-limit is per instance (default 1 s), --threads defaults to 1,\n"
	"the exact seed is off unless --exact-seed (so that the numbers measure\n"
	"the search, not the solver), and each search stops at its instance's\n"
	"certified optimum (so --target does not apply). --json prints one\n"
	"object; its \"status\" is \"failed\" when --min-share or --max-gap fails.\n";

#define MAX_CASES 4096

struct vcase {
	char *path;             /* the instance file */
	struct instance *in;
	int64_t optimum;        /* time units, certified */
	struct ga_result r;
	bool done;
};

struct validate_opts {
	struct search_settings s;
	struct run_opts run;
	double min_share, max_gap;
	struct ga_options ga;
};

#define OFF(f) offsetof(struct validate_opts, f)
static const struct opt validate_table[] = {
	{.name = "min-share", .type = OPT_NUMBER, .arg = "X", .dflt = "0", .lo = 0, .hi = 1,
	 .offset = OFF(min_share), .where = OPT_CLI,
	 .help = "fail unless at least this share is optimal"},
	{.name = "max-gap", .type = OPT_NUMBER, .arg = "X", .dflt = "1", .lo = 0, .hi = 1,
	 .offset = OFF(max_gap), .where = OPT_CLI,
	 .help = "fail if any gap exceeds X (a fraction)"},
	{0}};

/* search-validate's defaults of the GA's options (the usage says why). */
static const struct opt_default validate_defaults[] = {
	{"time-limit", "1"}, {"threads", "1"}, {"exact-seed", "false"}};

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
	return verdict_gap((double)c->r.best.objective, (double)c->optimum);
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
			  const struct validate_opts *o, const char *status)
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
	return json_pack("{s:s,s:o,s:{s:i,s:i,s:f,s:i,s:f,s:f,s:s,s:f,s:f,s:f},s:{s:f,s:I,s:i,s:i,s:b}}",
		"status", status, "instances", rows,
		"summary", "instances", s->n, "optimal", s->optimal,
		"share_optimal", (double)s->optimal / s->n, "improved_on_seeds", s->improved,
		"mean_gap", s->mean_gap, "worst_gap", s->worst_gap,
		"worst_instance", s->worst->in->name, "mean_time_to_best", s->mean_ttb,
		"max_time_to_best", s->max_ttb, "seconds", s->seconds,
		"options", "time_limit", o->ga.time_limit, "seed", (json_int_t)o->ga.seed,
		"threads", o->ga.threads, "population", o->ga.population,
		"exact_seed", o->ga.exact_seed);
}

/* Put the default d of option `name` into s (replacing the method's). */
static void set_default(struct opt_set *s, const struct opt_default *d)
{
	int i = 0;
	while (i < 4 && s->defaults[i].name && strcmp(s->defaults[i].name, d->name))
		i++;
	assert(i < 4);
	s->defaults[i] = *d;
}

static int parse(int argc, char **argv, struct validate_opts *o, char **suites, int *nsuites)
{
	struct opt_set set;
	memset(o, 0, sizeof *o);
	method_opt_set(&method_search, &o->s, &o->run, &set);
	set.cmd = "search-validate";
	opts_add(&set, validate_table, o);
	cli_shared(&set, &o->run, CLI_JSON);
	for (size_t i = 0; i < sizeof validate_defaults / sizeof *validate_defaults; i++)
		set_default(&set, &validate_defaults[i]);
	int rc = cli_parse(&set, usage_text, argc, argv, suites, 1, argc, nsuites,
			   "expected at least one SUITE directory or instance file");
	if (rc)
		return rc;
	if (o->s.target)
		return cli_usage("search-validate",
				 "--target does not apply: each search stops at its certified optimum");
	search_ga_options(&o->s, &o->run, &o->ga);
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
	struct error err;
	char **suites = calloc((size_t)argc, sizeof *suites);   /* the positionals */
	int nsuites = 0, rc;
	if (!suites) {
		err_set(&err, "search-validate: out of memory");
		return cli_fail(false, &err);
	}
	if ((rc = parse(argc, argv, &o, suites, &nsuites))) {
		free(suites);
		return rc < 0 ? 0 : rc;
	}
	char **paths = calloc(MAX_CASES, sizeof *paths);
	struct vcase *v = NULL;
	int n = 0;
	enum status st = paths ? STATUS_OK : err_set(&err, "search-validate: out of memory");
	for (int i = 0; !st && i < nsuites; i++)
		st = list_cases(suites[i], paths, &n, &err);
	if (!st && !(v = calloc(n, sizeof *v)))
		st = err_set(&err, "search-validate: out of memory");
	for (int i = 0; !st && i < n; i++)
		v[i].path = paths[i];
	if (!st)
		st = run_cases(v, n, &o, &err);
	if (st) {
		rc = cli_fail(o.run.json, &err);
	} else {
		struct summary s = summarise(v, n);
		bool passed = !check_thresholds(&s, &o, &err);
		if (o.run.json)
			cli_print_json(table_json(v, n, &s, &o, passed ? "ok" : "failed"));
		else
			print_table(v, n, &s);
		if (!passed)
			rc = cli_fail(false, &err);
	}
	for (int i = 0; v && i < n; i++) {
		instance_free(v[i].in);
		ga_result_release(&v[i].r);
	}
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(suites);
	free(v);
	return rc;
}
