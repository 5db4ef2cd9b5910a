/*
 * Tests for sched/verdict (the one gap, the one verdict, its JSON) and the
 * method table of methods/: the registry, each method's option set with
 * its time-limit and threads defaults, and each instance method's run()
 * on tiny instances whose optimum is worked out by hand (and checked with
 * the brute force of brute.h).
 *
 * Expected values come from hand arithmetic (schedules timed in the
 * comments), closed forms and the brute force, never from the code under
 * test.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <unistd.h>

#include "test_helpers.h"

#include "brute.h"
#include "tiny_instances.h"
#include "methods/method.h"
#include "methods/settings.h"
#include "sched/verdict.h"

/* ---- verdicts --------------------------------------------------------------- */

static void test_gap(void **state)
{
	(void)state;
	assert_double_near(verdict_gap(10, 8), 0.2, 1e-15);      /* (10 - 8) / 10 */
	assert_double_near(verdict_gap(8, 6), 0.25, 1e-15);      /* (8 - 6) / 8 */
	assert_double_near(verdict_gap(7, 7), 0, 0);
	assert_double_near(verdict_gap(5, 0), 1, 0);             /* a bound of 0: all gap */
	assert_double_near(verdict_gap(0, 0), 0, 0);             /* objective 0 */
	assert_double_near(verdict_gap(INFINITY, 3), 1, 0);      /* nothing found */
	assert_double_near(verdict_gap(NAN, 3), 1, 0);
	assert_double_near(verdict_gap(-INFINITY, 3), 1, 0);
	assert_double_near(verdict_gap(8, 10), 0, 0);            /* bound above: no gap, not < 0 */
	assert_double_near(verdict_gap(1000.5, 999.5), 1 / 1000.5, 1e-15);
}

static void test_verdict_of(void **state)
{
	(void)state;
	/* met without a proof: certified by the bound */
	struct verdict v = verdict_of(6, 6, false, NULL, OUTCOME_FEASIBLE);
	assert_int_equal(v.outcome, OUTCOME_OPTIMAL);
	assert_true(v.certified);
	assert_string_equal(v.certified_by, "bound");
	assert_true(v.has_objective && v.has_bound);
	assert_double_near(v.objective, 6, 0);
	assert_double_near(v.bound, 6, 0);
	assert_double_near(v.gap, 0, 0);
	v = verdict_of(6, 6, false, "solver", OUTCOME_TIME_LIMIT);   /* `by` needs a proof */
	assert_int_equal(v.outcome, OUTCOME_OPTIMAL);
	assert_string_equal(v.certified_by, "bound");
	v = verdict_of(5, 6, false, NULL, OUTCOME_FEASIBLE);          /* below the bound: met */
	assert_int_equal(v.outcome, OUTCOME_OPTIMAL);
	assert_string_equal(v.certified_by, "bound");
	assert_double_near(v.gap, 0, 0);
	/* met and proven: the proof's name (verdict.h: "when proven (by `by`)") */
	v = verdict_of(6, 6, true, "solver", OUTCOME_TIME_LIMIT);
	assert_int_equal(v.outcome, OUTCOME_OPTIMAL);
	assert_string_equal(v.certified_by, "solver");
	/* proven without a name: "bound" when met, else no name */
	v = verdict_of(6, 6, true, NULL, OUTCOME_FEASIBLE);
	assert_string_equal(v.certified_by, "bound");
	v = verdict_of(7, 6, true, NULL, OUTCOME_FEASIBLE);
	assert_true(v.certified);
	assert_int_equal(v.outcome, OUTCOME_OPTIMAL);
	assert_null(v.certified_by);

	/* proven below the bound: certified by the given name, the gap kept */
	v = verdict_of(10, 8, true, "solver", OUTCOME_FEASIBLE);
	assert_int_equal(v.outcome, OUTCOME_OPTIMAL);
	assert_true(v.certified);
	assert_string_equal(v.certified_by, "solver");
	assert_double_near(v.gap, 0.2, 1e-15);

	/* not proven: the outcome passes through, uncertified */
	const enum outcome through[] = {OUTCOME_FEASIBLE, OUTCOME_TIME_LIMIT, OUTCOME_NO_SOLUTION,
					OUTCOME_ERROR, OUTCOME_UNSUPPORTED};
	for (size_t i = 0; i < sizeof through / sizeof through[0]; i++) {
		v = verdict_of(10, 8, false, "solver", through[i]);
		assert_int_equal(v.outcome, through[i]);
		assert_false(v.certified);
		assert_null(v.certified_by);
		assert_double_near(v.gap, 0.2, 1e-15);
		assert_double_near(v.objective, 10, 0);
		assert_double_near(v.bound, 8, 0);
	}
	/* "optimal" without a proof is only feasible */
	v = verdict_of(10, 8, false, "solver", OUTCOME_OPTIMAL);
	assert_int_equal(v.outcome, OUTCOME_FEASIBLE);
	assert_false(v.certified);
	assert_null(v.certified_by);

	/* verdict_none: no result, all gap */
	v = verdict_none(OUTCOME_UNSUPPORTED);
	assert_int_equal(v.outcome, OUTCOME_UNSUPPORTED);
	assert_false(v.has_objective);
	assert_false(v.has_bound);
	assert_false(v.certified);
	assert_null(v.certified_by);
	assert_double_near(v.gap, 1, 0);
}

static void test_outcome_names(void **state)
{
	(void)state;
	const char *want[] = {"optimal", "feasible", "time_limit", "infeasible", "unbounded",
			      "no_solution", "unsupported", "error"};
	assert_int_equal(OUTCOME_COUNT, 8);
	for (int o = 0; o < OUTCOME_COUNT; o++)
		assert_string_equal(outcome_name((enum outcome)o), want[o]);
	assert_int_equal(OUTCOME_OPTIMAL, 0);
	assert_int_equal(OUTCOME_ERROR, 7);
}

static void test_verdict_json(void **state)
{
	(void)state;
	/* integral: objective and bound as integers, the gap a real */
	struct verdict v = verdict_of(11, 10, false, NULL, OUTCOME_FEASIBLE);
	v.integral = true;
	json_t *pre = json_pack("{s:s}", "method", "family");
	json_t *j = verdict_json(&v, pre);
	assert_ptr_equal(j, pre);
	assert_int_equal(json_object_size(j), 7);   /* the 6 keys and the one there */
	assert_string_equal(json_string_value(json_object_get(j, "method")), "family");
	assert_string_equal(json_string_value(json_object_get(j, "status")), "feasible");
	assert_true(json_is_integer(json_object_get(j, "objective")));
	assert_int_equal(json_integer_value(json_object_get(j, "objective")), 11);
	assert_true(json_is_integer(json_object_get(j, "bound")));
	assert_int_equal(json_integer_value(json_object_get(j, "bound")), 10);
	assert_true(json_is_real(json_object_get(j, "gap")));
	assert_double_near(json_real_value(json_object_get(j, "gap")), 1.0 / 11, 1e-15);
	assert_true(json_is_false(json_object_get(j, "certified")));
	assert_true(json_is_null(json_object_get(j, "certified_by")));
	json_decref(j);

	/* not integral: reals (a partition's microseconds) */
	v = verdict_of(2.5, 2.5, false, NULL, OUTCOME_FEASIBLE);
	j = verdict_json(&v, json_object());
	assert_int_equal(json_object_size(j), 6);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "optimal");
	assert_true(json_is_real(json_object_get(j, "objective")));
	assert_double_near(json_real_value(json_object_get(j, "objective")), 2.5, 0);
	assert_true(json_is_real(json_object_get(j, "bound")));
	assert_double_near(json_real_value(json_object_get(j, "gap")), 0, 0);
	assert_true(json_is_true(json_object_get(j, "certified")));
	assert_string_equal(json_string_value(json_object_get(j, "certified_by")), "bound");
	json_decref(j);

	/* no result: nulls */
	v = verdict_none(OUTCOME_ERROR);
	j = verdict_json(&v, json_object());
	assert_int_equal(json_object_size(j), 6);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "error");
	assert_true(json_is_null(json_object_get(j, "objective")));
	assert_true(json_is_null(json_object_get(j, "bound")));
	assert_true(json_is_null(json_object_get(j, "gap")));
	assert_true(json_is_false(json_object_get(j, "certified")));
	assert_true(json_is_null(json_object_get(j, "certified_by")));
	json_decref(j);

	/* an objective without a bound: no gap */
	v = (struct verdict){.outcome = OUTCOME_FEASIBLE, .has_objective = true, .objective = 4,
			     .integral = true, .gap = 1};
	j = verdict_json(&v, json_object());
	assert_int_equal(json_integer_value(json_object_get(j, "objective")), 4);
	assert_true(json_is_null(json_object_get(j, "bound")));
	assert_true(json_is_null(json_object_get(j, "gap")));
	json_decref(j);
}

/* ---- the registry --------------------------------------------------------------- */

static void test_registry(void **state)
{
	(void)state;
	/* the four this file runs; the table may hold more (others add theirs) */
	assert_ptr_equal(method_find("family"), &method_family);
	assert_ptr_equal(method_find("solve"), &method_solve);
	assert_ptr_equal(method_find("search"), &method_search);
	assert_ptr_equal(method_find("partition"), &method_partition);
	assert_string_equal(method_family.name, "family");
	assert_string_equal(method_solve.name, "solve");
	assert_string_equal(method_search.name, "search");
	assert_string_equal(method_partition.name, "partition");
	assert_null(method_find("nope"));
	assert_null(method_find("Solve"));
	assert_null(method_find(""));
	assert_null(method_find("solver"));
	assert_null(method_find("sol"));
	/* the enumerator: one name per entry, in table order, then NULL */
	int n = method_count();
	assert_true(n >= 4);
	for (int i = 0; i < n; i++) {
		assert_non_null(method_name_at(i));
		assert_string_equal(method_name_at(i), method_at(i)->name);
		assert_ptr_equal(method_find(method_name_at(i)), method_at(i));   /* names unique */
		assert_non_null(method_at(i)->opts);
		assert_non_null(method_at(i)->summary);
		assert_null(strchr(method_at(i)->summary, '\n'));
	}
	assert_null(method_name_at(n));
	assert_null(method_name_at(-1));
	/* family, solve, search and partition run on their own (the sweep calls run()) */
	assert_non_null(method_family.run);
	assert_non_null(method_solve.run);
	assert_non_null(method_search.run);
	assert_non_null(method_partition.run);
	assert_false(method_family.on_graph || method_solve.on_graph || method_search.on_graph);
	assert_true(method_partition.on_graph);
	assert_int_equal(method_family.size, sizeof(struct family_settings));
	assert_int_equal(method_solve.size, sizeof(struct solve_settings));
	assert_int_equal(method_search.size, sizeof(struct search_settings));
	assert_int_equal(method_partition.size, sizeof(struct partition_settings));
}

/* ---- option sets --------------------------------------------------------------- */

static int cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

static bool set_has(const struct opt_set *s, const struct opt *table)
{
	for (int t = 0; t < OPT_TABLES; t++)
		if (s->tables[t] == table)
			return true;
	return false;
}

static void test_opt_set_defaults(void **state)
{
	(void)state;
	struct run_opts run;
	struct opt_set set;

	struct solve_settings so;
	memset(&so, 0x5a, sizeof so);
	memset(&run, 0x5a, sizeof run);
	method_opt_set(&method_solve, &so, &run, &set);
	opts_defaults(&set);
	assert_string_equal(set.cmd, "solve");
	assert_double_near(run.time_limit, 60, 0);
	assert_int_equal(run.threads, 1);
	assert_int_equal(run_opts_threads_value(&run), 1);
	assert_string_equal(so.solver, "cbc");
	assert_string_equal(so.formulation, "auto");
	assert_false(so.cross_check);
	assert_false(so.always_milp);

	struct search_settings se;
	memset(&se, 0x5a, sizeof se);
	memset(&run, 0x5a, sizeof run);
	method_opt_set(&method_search, &se, &run, &set);
	opts_defaults(&set);
	assert_double_near(run.time_limit, 20, 0);
	assert_int_equal(run.threads, 0);                  /* "all cores" */
	assert_int_equal(run_opts_threads_value(&run), cores());
	assert_int_equal(se.seed, 1);
	assert_int_equal(se.population, 64);
	assert_int_equal(se.generations, 0);               /* "none" */
	assert_int_equal(se.stall, 0);
	assert_int_equal(se.target, 0);
	assert_double_near(se.gap, 0, 0);
	assert_int_equal(se.family_seeds, 1);
	assert_int_equal(se.exact_seed, 1);
	assert_double_near(se.exact_seed_time, 0, 0);      /* in words */

	/* the family method takes neither a time limit nor threads */
	struct family_settings fa;
	memset(&fa, 0x5a, sizeof fa);
	method_opt_set(&method_family, &fa, &run, &set);
	opts_defaults(&set);
	assert_null(fa.family);
	assert_false(set_has(&set, run_opts_time_limit));
	assert_false(set_has(&set, run_opts_threads));
	assert_null(set.tables[1]);

	/* partition: a time limit (60), no threads */
	struct partition_settings pa;
	memset(&pa, 0x5a, sizeof pa);
	memset(&run, 0x5a, sizeof run);
	method_opt_set(&method_partition, &pa, &run, &set);
	opts_defaults(&set);
	assert_true(set_has(&set, run_opts_time_limit));
	assert_false(set_has(&set, run_opts_threads));
	assert_double_near(run.time_limit, 60, 0);
	assert_string_equal(pa.method, "search");
	assert_string_equal(pa.solver, "auto");
	assert_false(pa.sequential);
	assert_null(pa.sizes);     /* "the graph's": words, so NULL (settings.h) */
}

/* Run a method's command line with stderr to a file; returns the status
 * and stderr's text (malloc'd) in *err_text. */
static int parse_method(const struct opt_set *set, int argc, char **argv, char **err_text)
{
	char path[] = "/tmp/test_methods-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	close(fd);
	char *pos[1];
	int npos;
	int rc = opts_parse(set, "usage", argc, argv, pos, 1, &npos);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 4096);
	size_t n = fread(buf, 1, 4095, f);
	buf[n] = 0;
	fclose(f);
	unlink(path);
	*err_text = buf;
	return rc;
}

static void test_opt_set_parse(void **state)
{
	(void)state;
	struct run_opts run;
	struct opt_set set;
	char *err;

	/* the shared options come with the method's own */
	struct search_settings se;
	method_opt_set(&method_search, &se, &run, &set);
	opts_defaults(&set);
	char *a1[] = {"search", "--threads", "3", "--time-limit", "1.5", "--population", "8",
		      "--no-exact-seed", NULL};
	assert_int_equal(parse_method(&set, 8, a1, &err), 0);
	free(err);
	assert_int_equal(run.threads, 3);
	assert_double_near(run.time_limit, 1.5, 0);
	assert_int_equal(se.population, 8);
	assert_int_equal(se.exact_seed, 0);

	/* family: --time-limit is not one of its options */
	struct family_settings fa;
	method_opt_set(&method_family, &fa, &run, &set);
	opts_defaults(&set);
	char *a2[] = {"family", "--time-limit", "5", NULL};
	assert_int_equal(parse_method(&set, 3, a2, &err), 2);
	assert_contains(err, "error: pipeopt family: unknown option '--time-limit'");
	free(err);
	/* its choice is the family registry, with a did-you-mean */
	char *a3[] = {"family", "--family", "1f1c", NULL};
	assert_int_equal(parse_method(&set, 3, a3, &err), 2);
	assert_contains(err, "--family 1f1c: expected ");
	assert_contains(err, "1f1b");
	assert_contains(err, "(did you mean '1f1b'?)");
	free(err);
	char *a4[] = {"family", "--family", "zb-h1", NULL};
	assert_int_equal(parse_method(&set, 3, a4, &err), 0);
	free(err);
	assert_string_equal(fa.family, "zb-h1");

	/* the settings a row records: solve's */
	struct solve_settings so;
	method_opt_set(&method_solve, &so, &run, &set);
	opts_defaults(&set);
	json_t *j = opts_to_json(&set);
	json_error_t je;
	json_t *want = json_loads("{\"solver\": \"cbc\", \"formulation\": \"auto\","
				  " \"cross_check\": false, \"always_milp\": false, \"ga_start\": true,"
				  " \"time_limit\": 60.0, \"threads\": 1}", 0, &je);
	assert_non_null(want);
	if (!json_equal(j, want))
		fail_msg("got %s", json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS));
	json_decref(want);
	json_decref(j);
}

/* ---- running the instance methods -------------------------------------------------- */

/* 2 devices, 2 micro-batches, split backward, F = 2, B = W = 1, no comm.
 * 1F1B (device 0: F0 F1 B0 W0 B1 W1; device 1: F0 B0 W0 F1 B1 W1):
 *   d0 F(0,0) [0,2] F(0,1) [2,4]
 *   d1 F(1,0) [2,4] B(1,0) [4,5] W(1,0) [5,6] F(1,1) [6,8] B(1,1) [8,9] W(1,1) [9,10]
 *   d0 B(0,0) [5,6] W(0,0) [6,7] B(0,1) [9,10] W(0,1) [10,11]
 * makespan 11; span: d0 0..11, d1 2..10, so 11; busy 8 + 8 of 2 x 11:
 * bubble 6/22. The optimum is 10: device 1 cannot start before F(0,0)
 * ends at 2 and has 8 units of work, and d1 F0 B0 F1 B1 W0 W1 (with d0
 * F0 F1 B0 W0 B1 W1) ends both devices at 10. */
#define SPLIT22 "{\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 2, \"B\": 1, \"W\": 1}}"
/* Fused, F = 1, B = 2: 1F1B
 *   d0 F0 [0,1] F1 [1,2]; d1 F0 [1,2] B0 [2,4] F1 [4,5] B1 [5,7]; d0 B0 [4,6] B1 [7,9]
 * makespan 9 = (m + p - 1)(F + B), and 9 is a bound: device 1 starts at
 * 1, works 2 x 3, and device 0's last B (2) follows its last B. */
#define FUSED22 "{\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 1, \"B\": 2}}"

struct run_case {
	struct instance *in;
	struct run_opts run;
	struct method_call call;
	struct method_result r;
	struct error err;
};

/* The time limit of the next run_method (seconds). */
static double time_limit = 60;

static enum status run_method(struct run_case *k, const struct method *m, const char *instance,
			      const void *settings, int64_t lower_bound)
{
	memset(k, 0, sizeof *k);
	k->in = parse_instance_ok(instance);
	k->run.threads = 1;
	k->run.time_limit = time_limit;
	k->call = (struct method_call){.in = k->in, .lower_bound = lower_bound,
				       .settings = settings, .run = &k->run, .seed = 7};
	return m->run(&k->call, &k->r, &k->err);
}

static void run_case_release(struct run_case *k)
{
	method_result_release(&k->r);
	instance_free(k->in);
}

static void test_run_family(void **state)
{
	(void)state;
	struct run_case k;
	struct family_settings fs = {.family = "1f1b"};

	/* the hand optimum of SPLIT22 */
	struct instance *in = parse_instance_ok(SPLIT22);
	assert_int_equal(brute_optimum(in, NULL), 10);
	instance_free(in);

	/* against the (tight) bound 10: feasible, gap 1/11 */
	assert_int_equal(run_method(&k, &method_family, SPLIT22, &fs, 10), STATUS_OK);
	assert_int_equal(k.r.v.outcome, OUTCOME_FEASIBLE);
	assert_true(k.r.v.has_objective && k.r.v.has_bound && k.r.v.integral);
	assert_double_near(k.r.v.objective, 11, 0);
	assert_double_near(k.r.v.bound, 10, 0);
	assert_double_near(k.r.v.gap, 1.0 / 11, 1e-15);
	assert_false(k.r.v.certified);
	assert_null(k.r.v.certified_by);
	assert_int_equal(k.r.makespan, 11);
	assert_int_equal(k.r.span, 11);
	assert_double_near(k.r.bubble_ratio, 6.0 / 22, 1e-12);
	assert_non_null(k.r.schedule);
	assert_string_equal(k.r.error, "");
	run_case_release(&k);

	/* the verdict is against the caller's bound: 11 meets a bound of 11 */
	assert_int_equal(run_method(&k, &method_family, SPLIT22, &fs, 11), STATUS_OK);
	assert_int_equal(k.r.v.outcome, OUTCOME_OPTIMAL);
	assert_true(k.r.v.certified);
	assert_string_equal(k.r.v.certified_by, "bound");
	assert_double_near(k.r.v.gap, 0, 0);
	run_case_release(&k);

	/* fused: 1F1B is 9 and meets the bound 9 */
	in = parse_instance_ok(FUSED22);
	assert_int_equal(brute_optimum(in, NULL), 9);
	instance_free(in);
	assert_int_equal(run_method(&k, &method_family, FUSED22, &fs, 9), STATUS_OK);
	assert_int_equal(k.r.v.outcome, OUTCOME_OPTIMAL);
	assert_double_near(k.r.v.objective, 9, 0);
	assert_true(k.r.v.certified);
	assert_string_equal(k.r.v.certified_by, "bound");
	assert_int_equal(k.r.makespan, 9);
	/* busy 6 + 6 of 2 x 9 */
	assert_double_near(k.r.bubble_ratio, 6.0 / 18, 1e-12);
	run_case_release(&k);

	/* GPipe on FUSED22 (all F, then all B):
	 *   d0 F0 [0,1] F1 [1,2]; d1 F0 [1,2] F1 [2,3], its two B [3,5] [5,7]
	 *   d0's two B [5,7] [7,9]: also 9, in either B order */
	struct family_settings gp = {.family = "gpipe"};
	assert_int_equal(run_method(&k, &method_family, FUSED22, &gp, 9), STATUS_OK);
	assert_int_equal(k.r.v.outcome, OUTCOME_OPTIMAL);
	assert_int_equal(k.r.makespan, 9);
	run_case_release(&k);
}

static void test_run_family_unsupported(void **state)
{
	(void)state;
	struct run_case k;
	/* zb-v needs the V placement; SPLIT22 is linear */
	struct family_settings fs = {.family = "zb-v"};
	assert_int_equal(run_method(&k, &method_family, SPLIT22, &fs, 10), STATUS_OK);
	assert_int_equal(k.r.v.outcome, OUTCOME_UNSUPPORTED);
	assert_false(k.r.v.has_objective);
	assert_false(k.r.v.certified);
	assert_null(k.r.schedule);
	assert_true(strlen(k.r.error) > 0);
	assert_null(strchr(k.r.error, '\n'));
	assert_contains(k.r.error, "zb-v");
	run_case_release(&k);

	/* a memory limit 1F1B breaks: one activation (F +1, B -1) allowed,
	 * but 1F1B's device 0 runs F0 and F1 before B0 */
	const char *mem = "{\"devices\": 2, \"microbatches\": 3, \"cost\": {\"F\": 1, \"B\": 1},"
			  " \"memory\": {\"F\": 1, \"B\": -1, \"limit\": 1}}";
	fs.family = "1f1b";
	assert_int_equal(run_method(&k, &method_family, mem, &fs, 1), STATUS_OK);
	assert_int_equal(k.r.v.outcome, OUTCOME_UNSUPPORTED);
	assert_false(k.r.v.has_objective);
	assert_true(strlen(k.r.error) > 0);
	assert_null(strchr(k.r.error, '\n'));
	run_case_release(&k);
}

/* The solve method's defaults with one thread. */
static void solve_defaults(struct solve_settings *so)
{
	struct run_opts run;
	struct opt_set set;
	method_opt_set(&method_solve, so, &run, &set);
	opts_defaults(&set);
}

static void check_solve(const char *name, const char *json, int64_t hand, bool milp)
{
	struct instance *in = parse_instance_ok(json);
	int64_t opt = brute_optimum(in, NULL);
	bool span = in->objective == OBJ_SPAN;
	instance_free(in);
	if (hand >= 0 && opt != hand)
		fail_msg("%s: brute force %lld, by hand %lld", name, (long long)opt, (long long)hand);
	struct solve_settings so;
	solve_defaults(&so);
	so.always_milp = milp;
	struct run_case k;
	/* a weak but valid bound: the solve must not depend on it */
	assert_int_equal(run_method(&k, &method_solve, json, &so, 1), STATUS_OK);
	if (k.r.v.outcome != OUTCOME_OPTIMAL || !k.r.v.certified || k.r.v.objective != (double)opt)
		fail_msg("%s: %s, objective %g, certified %d (%s); brute force %lld", name,
			 outcome_name(k.r.v.outcome), k.r.v.objective, k.r.v.certified, k.r.error,
			 (long long)opt);
	assert_non_null(k.r.v.certified_by);
	if (milp)   /* the MILP ran: its proof certifies, even at the bound */
		assert_string_equal(k.r.v.certified_by, "solver");
	else
		assert_true(!strcmp(k.r.v.certified_by, "bound") ||
			    !strcmp(k.r.v.certified_by, "solver") ||
			    !strcmp(k.r.v.certified_by, "search"));   /* span: solvers/bnb.c */
	assert_true(k.r.v.integral && k.r.v.has_bound);
	assert_true(k.r.v.bound <= k.r.v.objective);
	assert_double_near(k.r.v.gap, (k.r.v.objective - k.r.v.bound) / k.r.v.objective, 1e-12);
	assert_non_null(k.r.schedule);
	assert_int_equal(span ? k.r.span : k.r.makespan, opt);
	assert_non_null(k.r.extra);
	assert_string_equal(json_string_value(json_object_get(k.r.extra, "solver")), "cbc");
	run_case_release(&k);
}

static void test_run_solve(void **state)
{
	(void)state;
	check_solve("split22", SPLIT22, 10, false);
	check_solve("fused22", FUSED22, 9, false);
	check_solve("split22 milp", SPLIT22, 10, true);
	const char *some[] = {"chain2 split mem", "interleaved 2x2 fused", "diamond dag",
			      "chain2 split span"};
	for (int i = 0; i < NTINY; i++)
		for (size_t s = 0; s < sizeof some / sizeof some[0]; s++)
			if (!strcmp(tiny_instances[i].name, some[s]))
				check_solve(tiny_instances[i].name, tiny_instances[i].json, -1, false);
}

static void test_run_search(void **state)
{
	(void)state;
	struct search_settings se;
	struct run_opts run;
	struct opt_set set;
	method_opt_set(&method_search, &se, &run, &set);
	opts_defaults(&set);
	se.population = 8;
	se.generations = 5;
	se.seed = 999;   /* the call's seed (7) is the one used */
	time_limit = 8;

	/* against the tight bound 10: 1F1B (11) seeds it, so 10 or 11 */
	const int64_t bounds[] = {10, 1};
	for (int b = 0; b < 2; b++) {
		struct run_case k;
		assert_int_equal(run_method(&k, &method_search, SPLIT22, &se, bounds[b]), STATUS_OK);
		if (k.r.v.outcome == OUTCOME_ERROR)
			fail_msg("search failed: %s", k.r.error);
		double obj = k.r.v.objective;
		assert_true(k.r.v.has_objective && k.r.v.integral);
		assert_true(obj >= 10 && obj <= 11);
		assert_non_null(k.r.schedule);
		assert_int_equal(k.r.makespan, (int64_t)obj);
		assert_double_near(k.r.v.bound, (double)bounds[b], 0);
		assert_double_near(k.r.v.gap, (obj - bounds[b]) / obj, 1e-12);
		bool met = obj == (double)bounds[b];
		assert_int_equal(k.r.v.certified, met);
		assert_int_equal(k.r.v.outcome, met ? OUTCOME_OPTIMAL : OUTCOME_FEASIBLE);
		if (met)
			assert_string_equal(k.r.v.certified_by, "bound");
		else
			assert_null(k.r.v.certified_by);
		assert_non_null(k.r.extra);
		json_t *gens = json_object_get(k.r.extra, "generations");
		assert_true(json_is_integer(gens));
		assert_true(json_integer_value(gens) >= 0 && json_integer_value(gens) <= 5);
		run_case_release(&k);
	}

	/* a tiny instance from the shared set: never below the brute force */
	for (int i = 0; i < 3; i++) {
		struct instance *in = parse_instance_ok(tiny_instances[i].json);
		int64_t opt = brute_optimum(in, NULL);
		instance_free(in);
		struct run_case k;
		assert_int_equal(run_method(&k, &method_search, tiny_instances[i].json, &se, opt),
				 STATUS_OK);
		if (k.r.v.outcome == OUTCOME_ERROR)
			fail_msg("%s: %s", tiny_instances[i].name, k.r.error);
		assert_true(k.r.v.objective >= (double)opt);
		assert_int_equal(k.r.v.certified, k.r.v.objective == (double)opt);
		run_case_release(&k);
	}

	/* 4 devices, 8 micro-batches, F = 1, B = 2: 1F1B takes the closed form
	 * (m + p - 1)(F + B) = 11 x 3 = 33, which is also a bound (the last
	 * device starts at 3F = 3, works 8 x 3 = 24, then 3 more B of 2 follow
	 * on devices 2, 1, 0). With the family seeds, even one generation of
	 * 4 without the exact seed has it: 33, certified. */
	const char *p4m8 = "{\"devices\": 4, \"microbatches\": 8, \"cost\": {\"F\": 1, \"B\": 2}}";
	se.population = 4;
	se.generations = 1;
	se.exact_seed = 0;
	struct run_case k;
	assert_int_equal(run_method(&k, &method_search, p4m8, &se, 33), STATUS_OK);
	if (k.r.v.outcome != OUTCOME_OPTIMAL || k.r.v.objective != 33)
		fail_msg("%s, objective %g: %s", outcome_name(k.r.v.outcome), k.r.v.objective,
			 k.r.error);
	assert_true(k.r.v.certified);
	assert_string_equal(k.r.v.certified_by, "bound");
	assert_int_equal(k.r.makespan, 33);
	/* busy 8 x 3 per device of 4 x 33: bubble 1 - 96/132 = 3/11 */
	assert_double_near(k.r.bubble_ratio, 3.0 / 11, 1e-12);
	run_case_release(&k);
	time_limit = 60;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_verdict_of),
		cmocka_unit_test(test_outcome_names),
		cmocka_unit_test(test_verdict_json),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_opt_set_defaults),
		cmocka_unit_test(test_opt_set_parse),
		cmocka_unit_test(test_run_family),
		cmocka_unit_test(test_run_family_unsupported),
		cmocka_unit_test(test_run_solve),
		cmocka_unit_test(test_run_search),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
