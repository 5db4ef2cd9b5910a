/*
 * End-to-end tests of `pipeopt sweep`: the real binary (PIPEOPT_BIN) run
 * from a mkdtemp directory on specs written there. One row per task key
 * after a run, after a rerun (nothing to do), after a SIGKILL and a torn
 * write followed by a resume, and across MPI ranks (the same rows as the
 * threads); bad input fails with one line naming the file and leaves no
 * results or CSV behind.
 *
 * The expected task keys are written out from the spec text (POINT|METHOD|
 * REP[|SEED], POINT the params as sorted compact JSON), not taken from the
 * binary.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json_get.h"
#include "run_helpers.h"
#include "tmpdir.h"


static char tmpdir[PATH_MAX];

/* ---- running a program -------------------------------------------------------- */

/* pipeopt with these arguments */
#define RUN(r, ...) run_spawn((r), tmpdir, (const char *const[]){PIPEOPT_BIN, __VA_ARGS__, NULL})

/* ---- small helpers --------------------------------------------------------------- */

static void append_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "ab");
	if (!f)
		fail_msg("cannot append to '%s': %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static int count_char(const char *path, char c)
{
	char *text = slurp(path, NULL);
	int n = 0;
	for (const char *p = text; p && *p; p++)
		n += *p == c;
	free(text);
	return n;
}

/* A failure: exit 1 and stderr exactly one line "error: ..." that names
 * `needle`. */
static void assert_one_error_line(const struct run *r, const char *needle)
{
	if (r->status != 1)
		fail_msg("exit %d, expected 1; stderr: %s", r->status, r->err);
	if (strncmp(r->err, "error: ", 7))
		fail_msg("stderr does not start with 'error: ': '%s'", r->err);
	const char *nl = strchr(r->err, '\n');
	if (!nl || nl[1])
		fail_msg("stderr is not exactly one line: '%s'", r->err);
	assert_contains(r->err, needle);
}

/*
 * The results file as key -> row, checking that every line is one JSON
 * object ending in a newline, that no key repeats, and that the keys are
 * exactly `want` (n of them).
 */
static json_t *rows_by_key(const char *path, const char *const *want, int n)
{
	char *text = slurp(path, NULL);
	if (!text)
		fail_msg("no results file '%s'", path);
	size_t len = strlen(text);
	if (len && text[len - 1] != '\n')
		fail_msg("'%s' does not end with a newline", path);
	json_t *by = json_object();
	int line = 0;
	for (char *at = text, *nl; (nl = strchr(at, '\n')); at = nl + 1) {
		line++;
		json_error_t je;
		json_t *row = json_loadb(at, nl - at, 0, &je);
		if (!json_is_object(row))
			fail_msg("'%s' line %d is not a JSON object: %.*s", path, line, (int)(nl - at), at);
		const char *full = json_string_value(json_object_get(row, "key"));
		if (!full)
			fail_msg("'%s' line %d has no key", path, line);
		/* the key ends in |SETTINGS-INPUT, the row's two digests */
		char k[1024], tail[64];
		snprintf(tail, sizeof tail, "|%s-%s",
			 json_string_value(json_object_get(row, "settings_digest")) ?: "?",
			 json_string_value(json_object_get(row, "input_digest")) ?: "?");
		size_t lf = strlen(full), lt = strlen(tail);
		if (lt != 26 || lf <= lt || strcmp(full + lf - lt, tail) || lf - lt >= sizeof k)
			fail_msg("'%s' line %d: key '%s' does not end in its digests '%s'", path, line,
				 full, tail);
		memcpy(k, full, lf - lt);
		k[lf - lt] = 0;
		if (json_object_get(by, k))
			fail_msg("'%s': key '%s' twice (second on line %d)", path, k, line);
		json_object_set_new(by, k, row);
	}
	free(text);
	for (int i = 0; i < n; i++)
		if (!json_object_get(by, want[i]))
			fail_msg("'%s': no row for task '%s'", path, want[i]);
	if ((int)json_object_size(by) != n)
		fail_msg("'%s': %zu rows, expected %d tasks", path, json_object_size(by), n);
	return by;
}

/* The keys of a grid over devices x microbatches (both lists given) of
 * chains with one stage per device,
 * methods in order, each search method with nseeds seeds 1..nseeds.
 * Returns the count; keys are malloc'ed into out. */
static int grid_keys(char **out, const int *dev, int nd, const int *mb, int nm,
		     const char *const *methods, const int *seeds_of)
{
	int n = 0;
	for (int d = 0; d < nd; d++)
		for (int m = 0; m < nm; m++)
			for (int k = 0; methods[k]; k++)
				for (int s = 0; s < (seeds_of[k] ? seeds_of[k] : 1); s++) {
					char key[256];
					/* params: the grid's keys and the stages (a chain:
					 * one per device) */
					int at = snprintf(key, sizeof key,
							  "{\"devices\":%d,\"microbatches\":%d,\"stages\":%d}|%s|0",
							  dev[d], mb[m], dev[d], methods[k]);
					if (seeds_of[k])
						snprintf(key + at, sizeof key - at, "|%d", s + 1);
					out[n++] = strdup(key);
				}
	return n;
}

static void free_keys(char **keys, int n)
{
	for (int i = 0; i < n; i++)
		free(keys[i]);
}

/* ---- a run, then a rerun ---------------------------------------------------------- */

#define FAMILY_SPEC                                                                               \
	"{\"name\": \"fam\",\n"                                                                    \
	" \"instances\": {\"base\": {\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 2, \"B\": 2, \"W\": 1}},\n" \
	"               \"grid\": {\"devices\": [2, 3], \"microbatches\": [2, 4]}},\n"             \
	" \"methods\": [{\"name\": \"1f1b\", \"family\": \"1f1b\"}, {\"name\": \"gpipe\", \"family\": \"gpipe\"},\n" \
	"             {\"name\": \"zb-h1\", \"family\": \"zb-h1\"}]}\n"

static const int fam_dev[] = {2, 3}, fam_mb[] = {2, 4};
static const char *const fam_methods[] = {"1f1b", "gpipe", "zb-h1", NULL};
static const int fam_seeds[] = {0, 0, 0};

/* 2 x 2 points x 3 families: 12 rows, one per key; the rerun runs none
 * and leaves the file as it was; the CSV has a header and 12 lines. */
static void test_run_then_rerun(void **state)
{
	char *keys[12];
	int n = grid_keys(keys, fam_dev, 2, fam_mb, 2, fam_methods, fam_seeds);
	assert_int_equal(n, 12);
	write_file("fam.json", FAMILY_SPEC);
	struct run r;
	RUN(&r, "sweep", "fam.json", "-o", "fam.jsonl", "--jobs", "2", "--csv", "fam.csv", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "tasks"), 12);
	assert_int_equal(get_int(j, "points"), 4);
	assert_int_equal(get_int(j, "done_before"), 0);
	assert_int_equal(get_int(j, "ran"), 12);
	assert_int_equal(get_int(j, "rows"), 12);
	assert_int_equal(get_int(j, "failed"), 0);
	assert_int_equal(get_int(j, "threads"), 2);
	json_decref(j);
	run_free(&r);
	json_t *rows = rows_by_key("fam.jsonl", (const char *const *)keys, n);
	const char *k;
	json_t *row;
	json_object_foreach(rows, k, row) {
		const char *st = json_string_value(json_object_get(row, "status"));
		if (!st || (strcmp(st, "optimal") && strcmp(st, "feasible") && strcmp(st, "unsupported")))
			fail_msg("row '%s': status %s", k, st ? st : "(none)");
		assert_string_equal(json_string_value(json_object_get(row, "kind")), "family");
	}
	json_decref(rows);
	assert_int_equal(count_char("fam.csv", '\n'), 13);
	char *before = slurp("fam.jsonl", NULL);

	RUN(&r, "sweep", "fam.json", "-o", "fam.jsonl", "--threads", "2", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "ran"), 0);
	assert_int_equal(get_int(j, "done_before"), 12);
	assert_int_equal(get_int(j, "rows"), 12);
	json_decref(j);
	run_free(&r);
	char *after = slurp("fam.jsonl", NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);

	/* the text output says so too */
	RUN(&r, "sweep", "fam.json", "-o", "fam.jsonl", "--jobs", "1");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "ran         0 now (12 done before)");
	run_free(&r);
	free_keys(keys, n);
}

/* --limit runs a prefix; the next run the rest, one row per key. */
static void test_limit_then_resume(void **state)
{
	char *keys[12];
	int n = grid_keys(keys, fam_dev, 2, fam_mb, 2, fam_methods, fam_seeds);
	write_file("lim.json", FAMILY_SPEC);
	struct run r;
	RUN(&r, "sweep", "lim.json", "-o", "lim.jsonl", "--jobs", "2", "--limit", "5", "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "ran"), 5);
	assert_int_equal(get_int(j, "rows"), 5);
	json_decref(j);
	run_free(&r);
	assert_int_equal(count_char("lim.jsonl", '\n'), 5);
	RUN(&r, "sweep", "lim.json", "-o", "lim.jsonl", "--jobs", "2", "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "done_before"), 5);
	assert_int_equal(get_int(j, "ran"), 7);
	json_decref(j);
	run_free(&r);
	json_decref(rows_by_key("lim.jsonl", (const char *const *)keys, n));
	free_keys(keys, n);
}

/* ---- resume after SIGKILL and a torn write ------------------------------------------ */

/* 4 points x 5 GA seeds, each stopped by its 0.2 s time limit (the
 * instances have memory limits, so the GA does not meet the lower bound
 * and stop early): 20 tasks, ~4 s on one thread. */
/* Tasks that run their whole 0.2 s: tight memory (6 activations) with
 * comm, where no seed meets the bound (measured: 3-8 % above it), so no
 * task ends early by the gap and a signal finds the sweep mid-run. */
#define SLOW_SPEC                                                                                 \
	"{\"name\": \"slow\",\n"                                                                   \
	" \"instances\": {\"base\": {\"devices\": 6, \"microbatches\": 16, \"cost\": {\"F\": 1, \"B\": 2},\n" \
	"                          \"comm\": 1, \"memory\": {\"F\": 2, \"B\": -2, \"limit\": 12}},\n" \
	"               \"grid\": {\"devices\": [6, 8], \"microbatches\": [16, 24]}},\n"             \
	" \"methods\": [{\"name\": \"ga\", \"search\": {\"time_limit\": 0.2, \"seeds\": [1, 2, 3, 4, 5]}}]}\n"

#define TORN_FRAGMENT "{\"key\":\"TORN-FRAGMENT\",\"sweep\":\"slo"

static void test_resume_after_sigkill(void **state)
{
	static const int dev[] = {6, 8}, mb[] = {16, 24}, seeds[] = {5};
	static const char *const methods[] = {"ga", NULL};
	char *keys[20];
	int n = grid_keys(keys, dev, 2, mb, 2, methods, seeds);
	assert_int_equal(n, 20);
	write_file("slow.json", SLOW_SPEC);

	pid_t pid = run_start((const char *const[]){PIPEOPT_BIN, "sweep", "slow.json", "-o",
				"slow.jsonl", "--jobs", "1", "--no-progress", NULL}, NULL);
	run_wait_lines(pid, "slow.jsonl", 2, 60);
	int ws = run_signal(pid, SIGKILL, NULL);
	if (!WIFSIGNALED(ws) || WTERMSIG(ws) != SIGKILL)
		fail_msg("the sweep was not killed mid-run (status %d): too fast to interrupt", ws);
	int done = count_char("slow.jsonl", '\n');   /* complete rows at the kill */
	assert_true(done >= 2);
	assert_true(done < 20);
	append_file("slow.jsonl", TORN_FRAGMENT);   /* a write cut short */

	struct run r;
	RUN(&r, "sweep", "slow.json", "-o", "slow.jsonl", "--jobs", "1", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_true(json_is_true(json_object_get(j, "torn_line_cut")));
	assert_int_equal(get_int(j, "torn_bytes"), strlen(TORN_FRAGMENT));
	assert_int_equal(get_int(j, "done_before"), done);
	assert_int_equal(get_int(j, "ran"), 20 - done);
	assert_int_equal(get_int(j, "rows"), 20);
	json_decref(j);
	run_free(&r);

	json_decref(rows_by_key("slow.jsonl", (const char *const *)keys, n));
	char *text = slurp("slow.jsonl", NULL);
	if (strstr(text, "TORN-FRAGMENT") || strstr(text, "\"slo\n"))
		fail_msg("the torn fragment is still in the file");
	free(text);

	/* and once more: nothing left to do, nothing cut */
	RUN(&r, "sweep", "slow.json", "-o", "slow.jsonl", "--jobs", "1", "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "ran"), 0);
	assert_false(json_is_true(json_object_get(j, "torn_line_cut")));
	json_decref(j);
	run_free(&r);
	free_keys(keys, n);
}

/* ---- MPI ranks against threads ---------------------------------------------------------- */

static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	char *copy = strdup(path), *save = NULL;
	bool found = false;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char full[PATH_MAX];
		snprintf(full, sizeof full, "%s/%s", *dir ? dir : ".", name);
		found = access(full, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* Deterministic: families, an exact solve on tiny instances (optimal
 * long before its limit), and the GA stopped by generations. 4 points x
 * (3 + 1 + 3 seeds) = 28 tasks. */
/* SIGINT mid-sweep: exit 130 within seconds, a line saying how many rows
 * were kept and that a rerun resumes; every row kept is a finished task
 * (none cut short by the interrupt), and the rerun runs exactly the rest. */
static void test_interrupt_keeps_rows(void **state)
{
	(void)state;
	static const int dev[] = {6, 8}, mb[] = {16, 24}, seeds[] = {5};
	static const char *const methods[] = {"ga", NULL};
	char *keys[20];
	int n = grid_keys(keys, dev, 2, mb, 2, methods, seeds);
	write_file("int.json", SLOW_SPEC);
	pid_t pid = run_start((const char *const[]){PIPEOPT_BIN, "sweep", "int.json", "-o",
				"int.jsonl", "--jobs", "1", "--no-progress", NULL}, "int.out");
	run_wait_lines(pid, "int.jsonl", 2, 60);
	double waited;
	int ws = run_signal(pid, SIGINT, &waited);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 130)
		fail_msg("SIGINT: status %d, expected exit 130", ws);
	if (waited > 3)
		fail_msg("the sweep took %.1f s to stop after SIGINT", waited);
	int kept = count_char("int.jsonl", '\n');
	assert_true(kept >= 2 && kept < 20);
	char *text = slurp("int.out", NULL), want[160];
	snprintf(want, sizeof want, "interrupted kept %d rows (%d now, 0 before); rerun the same command to resume the other %d tasks",
		 kept, kept, 20 - kept);
	if (!strstr(text, want))
		fail_msg("stdout lacks '%s':\n%s", want, text);
	free(text);
	text = slurp("int.jsonl", NULL);
	if (strstr(text, "\"interrupt\""))
		fail_msg("a row cut short by the interrupt was kept");
	free(text);

	struct run r;
	RUN(&r, "sweep", "int.json", "-o", "int.jsonl", "--jobs", "1", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "done_before"), kept);
	assert_int_equal(get_int(j, "ran"), 20 - kept);
	json_decref(j);
	run_free(&r);
	json_decref(rows_by_key("int.jsonl", (const char *const *)keys, n));
	free_keys(keys, n);
}

#define TWO_METHOD_SPEC                                                                           \
	"{\"name\": \"set\",\n"                                                                    \
	" \"instances\": {\"base\": {\"devices\": 2, \"microbatches\": 3, \"cost\": {\"F\": 2, \"B\": 2, \"W\": 1}},\n" \
	"               \"grid\": {\"devices\": [2, 3]}},\n"                                      \
	" \"methods\": [{\"name\": \"1f1b\", \"family\": \"1f1b\"},\n"                            \
	"             {\"name\": \"ga\", \"search\": {\"generations\": %d, \"seeds\": [1, 2]}}]}\n"

/* Rows of the file whose method is `method`, and how many distinct
 * settings digests they carry. */
static int rows_of(const char *path, const char *method, int *digests)
{
	char *text = slurp(path, NULL);
	json_t *seen = json_object();
	int n = 0;
	for (char *at = text, *nl; (nl = strchr(at, '\n')); at = nl + 1) {
		json_t *row = json_loadb(at, nl - at, 0, NULL);
		const char *m = json_string_value(json_object_get(row, "method"));
		if (m && !strcmp(m, method)) {
			n++;
			json_object_set_new(seen, json_string_value(json_object_get(row, "settings_digest")),
					    json_true());
		}
		json_decref(row);
	}
	*digests = (int)json_object_size(seen);
	json_decref(seen);
	free(text);
	return n;
}

/* A setting changed between runs into one results file: that method's
 * tasks run again (new keys), the unchanged method's rows are reused, the
 * old rows stay, distinct, and the summary covers this spec's rows only;
 * `plot` tells the two settings apart. */
static void test_changed_setting_runs_again(void **state)
{
	(void)state;
	char spec[1024];
	snprintf(spec, sizeof spec, TWO_METHOD_SPEC, 20);
	write_file("set.json", spec);
	struct run r;
	RUN(&r, "sweep", "set.json", "-o", "set.jsonl", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "ran"), 2 + 4);   /* 2 points x (1f1b + 2 ga seeds) */
	json_decref(j);
	run_free(&r);

	snprintf(spec, sizeof spec, TWO_METHOD_SPEC, 30);   /* ga's generations 20 -> 30 */
	write_file("set.json", spec);
	RUN(&r, "sweep", "set.json", "-o", "set.jsonl", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "done_before"), 2);   /* the 1f1b rows, reused */
	assert_int_equal(get_int(j, "ran"), 4);           /* ga again */
	assert_int_equal(get_int(j, "rows"), 6);
	assert_int_equal(get_int(j, "other_rows"), 4);    /* the old ga rows */
	json_decref(j);
	run_free(&r);
	int digests;
	assert_int_equal(rows_of("set.jsonl", "ga", &digests), 8);
	assert_int_equal(digests, 2);
	assert_int_equal(rows_of("set.jsonl", "1f1b", &digests), 2);
	assert_int_equal(digests, 1);

	RUN(&r, "plot", "set.jsonl", "--json");
	if (r.status)
		fail_msg("plot: exit %d: %s", r.status, r.err);
	int labelled = 0;
	for (const char *at = r.out; (at = strstr(at, "\"ga@")); at++)
		labelled++;
	if (labelled < 2)
		fail_msg("plot's summary does not tell the two ga settings apart:\n%s", r.out);
	if (strstr(r.out, "\"1f1b@"))
		fail_msg("plot labels 1f1b, which has one setting:\n%s", r.out);
	run_free(&r);
}

#define MPI_SPEC                                                                                  \
	"{\"name\": \"mpi\",\n"                                                                    \
	" \"instances\": {\"base\": {\"devices\": 2, \"microbatches\": 3, \"cost\": {\"F\": 3, \"B\": 3, \"W\": 2},\n" \
	"                          \"comm\": 1, \"memory\": {\"F\": 1, \"B\": 0, \"W\": -1, \"limit\": 2}},\n" \
	"               \"grid\": {\"devices\": [2, 3], \"microbatches\": [2, 3]}},\n"             \
	" \"methods\": [{\"name\": \"1f1b\", \"family\": \"1f1b\"}, {\"name\": \"zb-h1\", \"family\": \"zb-h1\"},\n" \
	"             {\"name\": \"gpipe\", \"family\": \"gpipe\"},\n"                             \
	"             {\"name\": \"exact\", \"solve\": {\"solver\": \"cbc\", \"time_limit\": 60}},\n" \
	"             {\"name\": \"ga\", \"search\": {\"generations\": 30, \"population\": 16, \"seeds\": [1, 2, 3]}}]}\n"

static void mpirun_sweep(struct run *r, const char *np, const char *out)
{
	run_spawn(r, tmpdir, (const char *const[]){"mpirun", "-np", np, "--oversubscribe", PIPEOPT_BIN, "sweep",
					  "mpi.json", "-o", out, "--jobs", "1", "--json", NULL});
	if (r->status)
		fail_msg("mpirun -np %s: exit %d: %s", np, r->status, r->err);
}

/* Same status and objective per key in both files. */
static void assert_same_rows(const json_t *a, const json_t *b)
{
	const char *k;
	json_t *ra;
	json_object_foreach((json_t *)a, k, ra) {
		json_t *rb = json_object_get(b, k);
		assert_non_null(rb);
		const char *sa = json_string_value(json_object_get(ra, "status"));
		const char *sb = json_string_value(json_object_get(rb, "status"));
		json_t *oa = json_object_get(ra, "objective"), *ob = json_object_get(rb, "objective");
		if (!sa || !sb || strcmp(sa, sb) || !json_equal(oa, ob))
			fail_msg("task '%s': %s %lld against %s %lld", k, sa, (long long)json_integer_value(oa),
				 sb, (long long)json_integer_value(ob));
	}
}

static void test_mpi_matches_threads(void **state)
{
#ifdef PIPEOPT_SANITIZED
	fprintf(stderr, "test_mpi_matches_threads: skipped: sanitizer build (OpenMPI's allocations look like leaks)\n");
	skip();
#endif
#ifndef PIPEOPT_HAVE_MPI
	fprintf(stderr, "test_mpi_matches_threads: skipped: pipeopt built without MPI\n");
	skip();
#endif
	if (!on_path("mpirun")) {
		fprintf(stderr, "test_mpi_matches_threads: skipped: no mpirun on PATH\n");
		skip();
	}
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	setenv("OMPI_MCA_mpi_warn_on_fork", "0", 1);
	static const int dev[] = {2, 3}, mb[] = {2, 3}, seeds[] = {0, 0, 0, 0, 3};
	static const char *const methods[] = {"1f1b", "zb-h1", "gpipe", "exact", "ga", NULL};
	char *keys[28];
	int n = grid_keys(keys, dev, 2, mb, 2, methods, seeds);
	assert_int_equal(n, 28);
	write_file("mpi.json", MPI_SPEC);

	struct run r;
	mpirun_sweep(&r, "2", "r1.jsonl");
	json_t *j = parse_json(r.out);   /* rank 0 alone prints */
	assert_int_equal(get_int(j, "ranks"), 2);
	assert_int_equal(get_int(j, "ran"), 28);
	assert_int_equal(get_int(j, "rows"), 28);
	json_decref(j);
	run_free(&r);

	RUN(&r, "sweep", "mpi.json", "-o", "r2.jsonl", "--jobs", "2", "--json");
	if (r.status)
		fail_msg("threads: exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "ranks"), 1);
	assert_int_equal(get_int(j, "ran"), 28);
	json_decref(j);
	run_free(&r);

	json_t *r1 = rows_by_key("r1.jsonl", (const char *const *)keys, n);
	json_t *r2 = rows_by_key("r2.jsonl", (const char *const *)keys, n);
	assert_same_rows(r1, r2);
	/* the exact solves are certified on every point */
	for (int i = 0; i < n; i++)
		if (strstr(keys[i], "|exact|")) {
			json_t *row = json_object_get(r1, keys[i]);
			assert_true(json_is_true(json_object_get(row, "certified")));
		}

	/* a rerun under mpirun has nothing to do */
	mpirun_sweep(&r, "2", "r1.jsonl");
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "ran"), 0);
	assert_int_equal(get_int(j, "done_before"), 28);
	json_decref(j);
	run_free(&r);

	/* resume on 3 ranks from 10 rows and a torn line */
	char *text = slurp("r1.jsonl", NULL), *at = text;
	for (int i = 0; i < 10; i++)
		at = strchr(at, '\n') + 1;
	*at = 0;
	write_file("r3.jsonl", text);
	append_file("r3.jsonl", TORN_FRAGMENT);
	free(text);
	mpirun_sweep(&r, "3", "r3.jsonl");
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "ranks"), 3);
	assert_int_equal(get_int(j, "done_before"), 10);
	assert_int_equal(get_int(j, "ran"), 18);
	assert_true(json_is_true(json_object_get(j, "torn_line_cut")));
	json_decref(j);
	run_free(&r);
	json_t *r3 = rows_by_key("r3.jsonl", (const char *const *)keys, n);
	assert_same_rows(r3, r2);
	json_decref(r1);
	json_decref(r2);
	json_decref(r3);
	free_keys(keys, n);
}

/* ---- bad input ------------------------------------------------------------------------- */

#define GOOD_SPEC                                                                                 \
	"{\"instances\": {\"base\": {\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 1, \"B\": 1}}},\n" \
	" \"methods\": [{\"name\": \"1f1b\", \"family\": \"1f1b\"}, {\"name\": \"gpipe\", \"family\": \"gpipe\"}]}\n"

/* A missing spec, malformed JSON, an unknown key, an unwritable results
 * path: exit 1, one line naming the file, no results file. */
static void test_bad_input(void **state)
{
	struct run r = {0};
	RUN(&r, "sweep", "missing.json", "-o", "bad1.jsonl");
	assert_one_error_line(&r, "'missing.json'");
	assert_int_equal(r.out_len, 0);
	assert_false(file_exists("bad1.jsonl"));
	run_free(&r);

	write_file("malformed.json", "{\"instances\": {\n  \"base\": {\"devices\": 2,,}}}\n");
	RUN(&r, "sweep", "malformed.json", "-o", "bad2.jsonl");
	assert_one_error_line(&r, "'malformed.json'");
	assert_contains(r.err, "line 2");
	assert_false(file_exists("bad2.jsonl"));
	run_free(&r);
	/* the default results name (SPEC's name + .jsonl) is not created either */
	RUN(&r, "sweep", "malformed.json");
	assert_one_error_line(&r, "'malformed.json'");
	assert_false(file_exists("malformed.jsonl"));
	run_free(&r);

	write_file("unknown.json", "{\"instances\": {\"base\": {\"devices\": 2, \"microbatches\": 2,"
				   " \"cost\": {\"F\": 1, \"B\": 1}}}, \"methods\": [{\"name\": \"a\","
				   " \"family\": \"1f1b\", \"colour\": \"red\"}]}");
	RUN(&r, "sweep", "unknown.json", "-o", "bad3.jsonl");
	assert_one_error_line(&r, "'unknown.json'");
	assert_contains(r.err, "methods[0].colour");
	assert_false(file_exists("bad3.jsonl"));
	run_free(&r);

	write_file("good.json", GOOD_SPEC);
	RUN(&r, "sweep", "good.json", "-o", "/nonexistent-dir/r.jsonl");
	assert_one_error_line(&r, "'/nonexistent-dir/r.jsonl'");
	assert_int_equal(r.out_len, 0);
	assert_false(file_exists("/nonexistent-dir/r.jsonl"));
	assert_false(file_exists("good.jsonl"));
	run_free(&r);
	/* --json: the same line, and the error as JSON on stdout */
	RUN(&r, "sweep", "good.json", "-o", "/nonexistent-dir/r.jsonl", "--json");
	assert_one_error_line(&r, "'/nonexistent-dir/r.jsonl'");
	json_t *j = parse_json(r.out);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "error");
	assert_contains(json_string_value(json_object_get(j, "error")), "/nonexistent-dir/r.jsonl");
	json_decref(j);
	run_free(&r);

	/* no SPEC: a usage error */
	RUN(&r, "sweep", "-o", "bad4.jsonl");
	assert_int_equal(r.status, 2);
	assert_false(file_exists("bad4.jsonl"));
	run_free(&r);
}

/* --csv to a path that cannot be written: exit 1, one line naming it, no
 * CSV and no temporary file; the results themselves are complete. */
static void test_csv_unwritable(void **state)
{
	write_file("csv.json", GOOD_SPEC);
	struct run r;
	RUN(&r, "sweep", "csv.json", "-o", "csv.jsonl", "--csv", "/nonexistent-dir/out.csv");
	assert_one_error_line(&r, "'/nonexistent-dir/out.csv'");
	assert_false(file_exists("/nonexistent-dir/out.csv"));
	run_free(&r);
	assert_int_equal(count_char("csv.jsonl", '\n'), 2);

	/* a folder where the CSV should go: the rename fails, nothing is left */
	assert_int_equal(mkdir("csvdir", 0755), 0);
	RUN(&r, "sweep", "csv.json", "-o", "csv.jsonl", "--csv", "csvdir");
	assert_one_error_line(&r, "'csvdir'");
	run_free(&r);
	assert_int_equal(dir_count(".", ".tmp."), 0);
	struct stat st;
	assert_int_equal(stat("csvdir", &st), 0);
	assert_true(S_ISDIR(st.st_mode));

	/* and a writable path works, replacing an older file whole */
	write_file("ok.csv", "old contents\n");
	RUN(&r, "sweep", "csv.json", "-o", "csv.jsonl", "--csv", "ok.csv");
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *csv = slurp("ok.csv", NULL);
	assert_int_equal(strncmp(csv, "key,", 4), 0);
	assert_null(strstr(csv, "old contents"));
	free(csv);
	assert_int_equal(count_char("ok.csv", '\n'), 3);
	assert_int_equal(dir_count(".", ".tmp."), 0);
}

/* ---- setup ------------------------------------------------------------------------------- */

static int group_setup(void **state)
{
	if (tmpdir_make(tmpdir, sizeof tmpdir, "pipeopt-sweep-cli"))
		return -1;
	return chdir(tmpdir);
}

static int group_teardown(void **state)
{
	if (chdir("/"))
		return -1;
	return tmpdir_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_then_rerun),
		cmocka_unit_test(test_limit_then_resume),
		cmocka_unit_test(test_resume_after_sigkill),
		cmocka_unit_test(test_interrupt_keeps_rows),
		cmocka_unit_test(test_changed_setting_runs_again),
		cmocka_unit_test(test_mpi_matches_threads),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_csv_unwritable),
	};
	return cmocka_run_group_tests_name("sweep_cli", tests, group_setup, group_teardown);
}
