/*
 * End-to-end tests of the pipeopt binary: every case spawns PIPEOPT_BIN
 * (no shell), captures stdout and stderr in full, and checks the exit status,
 * the one-line error grammar and the --json contracts of docs/formats.md.
 *
 * Known answers come from hand arithmetic and closed forms (worked out in
 * the comments next to them), or from the small independent simulator
 * below (chain_sim), never from the binary itself.
 *
 * The tests run with the repository root as working directory, so instance
 * paths are the relative ones a user would type; outputs go to a mkdtemp
 * directory that the group teardown removes.
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
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json_get.h"
#include "run_helpers.h"
#include "tmpdir.h"
#include "torch_ref.h"


#define ZB "datasets/instances/zb-1p-example.json"
#define FUSED "datasets/instances/fused-4x8.json"
#define FUSED_LIM "datasets/instances/fused-4x8-limit4.json"
#define TINY "datasets/instances/tiny-split-2x2.json"
#define DAG "datasets/instances/dag-3.json"

static char tmpdir[PATH_MAX];

/* ---- running the binary ------------------------------------------------- */

/* pipeopt with args (NULL-terminated, without argv[0]) */
static void run_argv(struct run *r, const char *const *args)
{
	int n = 0;
	while (args[n])
		n++;
	const char **argv = calloc(n + 2, sizeof *argv);
	assert_non_null(argv);
	argv[0] = PIPEOPT_BIN;
	memcpy(argv + 1, args, n * sizeof *argv);
	run_spawn(r, tmpdir, argv);
	free(argv);
}

/* pipeopt with these arguments */
#define RUN(r, ...) run_spawn((r), tmpdir, (const char *const[]){PIPEOPT_BIN, __VA_ARGS__, NULL})

/* path of `name` inside the temp directory */
#define tmp(name) path_join(tmpdir, (name))

/* ---- small helpers -------------------------------------------------------- */

static void assert_int_list(const json_t *arr, const int64_t *want, size_t n)
{
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), n);
	for (size_t i = 0; i < n; i++) {
		assert_true(json_is_integer(json_array_get(arr, i)));
		assert_int_equal(json_integer_value(json_array_get(arr, i)), want[i]);
	}
}

/* stderr is exactly one line "error: ...\n". */
static void assert_one_error_line(const struct run *r)
{
	if (strncmp(r->err, "error: ", 7))
		fail_msg("stderr does not start with 'error: ': '%s'", r->err);
	const char *nl = strchr(r->err, '\n');
	if (!nl || nl[1])
		fail_msg("stderr is not exactly one line: '%s'", r->err);
}

/* A failure (exit 1) with one error line on stderr containing each needle
 * and nothing on stdout. */
static void assert_failed(const struct run *r, const char *const *needles)
{
	if (r->status != 1)
		fail_msg("exit %d, expected 1; stderr: %s", r->status, r->err);
	assert_one_error_line(r);
	assert_int_equal(r->out_len, 0);
	for (int i = 0; needles && needles[i]; i++)
		assert_contains(r->err, needles[i]);
}

/* The --json twin of a failure: exit 1, the same line on stderr, and on
 * stdout an object with status "error" and that message. */
static void assert_failed_json(const struct run *r, const char *const *needles)
{
	if (r->status != 1)
		fail_msg("exit %d, expected 1; stderr: %s", r->status, r->err);
	assert_one_error_line(r);
	for (int i = 0; needles && needles[i]; i++)
		assert_contains(r->err, needles[i]);
	json_t *j = parse_json(r->out);
	assert_true(json_is_object(j));
	assert_string_equal(get_str(j, "status"), "error");
	size_t n = strlen(r->err);
	char *msg = strndup(r->err + 7, n - 8);   /* drop "error: " and '\n' */
	assert_string_equal(get_str(j, "error"), msg);
	free(msg);
	json_decref(j);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A usage error: exit 2, one line on stderr, nothing on stdout. */
static void assert_usage(const struct run *r)
{
	if (r->status != 2)
		fail_msg("exit %d, expected 2; stderr: %s", r->status, r->err);
	assert_one_error_line(r);
	assert_int_equal(r->out_len, 0);
}

static size_t count_substr(const char *s, const char *needle)
{
	size_t n = 0, k = strlen(needle);
	for (const char *p = strstr(s, needle); p; p = strstr(p + k, needle))
		n++;
	return n;
}

/* ---- an independent simulator for chains with one stage per device --------
 *
 * Written from the semantics in sim.h, not from sim.c: repeated sweeps over
 * the devices, each running its order as far as the inputs allow. Stage s
 * runs on device s; every stage edge crosses devices, so it costs comm.
 *   F(s,j) <- F(s-1,j) + c;  B(s,j) <- F(s,j), B(s+1,j) + c;  W(s,j) <- B(s,j)
 */
struct chain {
	int p, m;
	int64_t cost[3]; /* F, B, W; W < 0 when the backward is fused */
	int64_t comm;
};

static int kind_of(const char *k)
{
	return !strcmp(k, "F") ? 0 : !strcmp(k, "B") ? 1 : !strcmp(k, "W") ? 2 : -1;
}

#define CH_ID(ch, k, s, j) (((k) * (ch)->p + (s)) * (ch)->m + (j))

/* Fills start/end [3*p*m] by CH_ID; returns the makespan, *span the span. */
static int64_t chain_sim(const struct chain *ch, const json_t *sched,
			 int64_t *start, int64_t *end, int64_t *span)
{
	int n = 3 * ch->p * ch->m, done = 0, total = 0;
	size_t *pos = calloc(ch->p, sizeof *pos);
	int64_t *free_at = calloc(ch->p, sizeof *free_at);
	assert_non_null(pos);
	assert_non_null(free_at);
	for (int i = 0; i < n; i++)
		start[i] = end[i] = -1;
	assert_int_equal(json_array_size(sched), ch->p);
	for (int d = 0; d < ch->p; d++)
		total += (int)json_array_size(json_array_get(sched, d));
	for (bool progress = true; progress;) {
		progress = false;
		for (int d = 0; d < ch->p; d++) {
			const json_t *row = json_array_get(sched, d);
			while (pos[d] < json_array_size(row)) {
				const json_t *op = json_array_get(row, pos[d]);
				int k = kind_of(json_string_value(json_array_get(op, 0)));
				int s = (int)json_integer_value(json_array_get(op, 1));
				int j = (int)json_integer_value(json_array_get(op, 2));
				assert_int_equal(s, d);
				int64_t t = free_at[d];
				int dep[2], lag[2], nd = 0;
				if (k == 0 && s > 0) {
					dep[nd] = CH_ID(ch, 0, s - 1, j);
					lag[nd++] = (int)ch->comm;
				}
				if (k == 1) {
					dep[nd] = CH_ID(ch, 0, s, j);
					lag[nd++] = 0;
					if (s + 1 < ch->p) {
						dep[nd] = CH_ID(ch, 1, s + 1, j);
						lag[nd++] = (int)ch->comm;
					}
				}
				if (k == 2) {
					dep[nd] = CH_ID(ch, 1, s, j);
					lag[nd++] = 0;
				}
				bool ready = true;
				for (int i = 0; i < nd; i++) {
					if (end[dep[i]] < 0)
						ready = false;
					else if (end[dep[i]] + lag[i] > t)
						t = end[dep[i]] + lag[i];
				}
				if (!ready)
					break;
				int id = CH_ID(ch, k, s, j);
				start[id] = t;
				end[id] = free_at[d] = t + ch->cost[k];
				pos[d]++;
				done++;
				progress = true;
			}
		}
	}
	assert_int_equal(done, total);   /* no deadlock */
	int64_t mk = 0, sp = 0;
	for (int d = 0; d < ch->p; d++) {
		const json_t *row = json_array_get(sched, d);
		size_t len = json_array_size(row);
		if (!len)
			continue;
		const json_t *a = json_array_get(row, 0), *b = json_array_get(row, len - 1);
		int ia = CH_ID(ch, kind_of(json_string_value(json_array_get(a, 0))),
			       (int)json_integer_value(json_array_get(a, 1)),
			       (int)json_integer_value(json_array_get(a, 2)));
		int ib = CH_ID(ch, kind_of(json_string_value(json_array_get(b, 0))),
			       (int)json_integer_value(json_array_get(b, 1)),
			       (int)json_integer_value(json_array_get(b, 2)));
		if (end[ib] > mk)
			mk = end[ib];
		if (end[ib] - start[ia] > sp)
			sp = end[ib] - start[ia];
	}
	free(pos);
	free(free_at);
	*span = sp;
	return mk;
}

/* The 1F1B order by its definition: stage s runs w = min(p-s-1, m) warm-up
 * forwards, then alternates F(w+i) with the backward of i, then drains. */
static json_t *one_f_one_b(int p, int m, bool split)
{
	json_t *all = json_array();
	for (int s = 0; s < p; s++) {
		json_t *row = json_array();
		int w = p - s - 1 < m ? p - s - 1 : m;
		for (int j = 0; j < w; j++)
			json_array_append_new(row, json_pack("[sii]", "F", s, j));
		for (int i = 0; i < m - w; i++) {
			json_array_append_new(row, json_pack("[sii]", "F", s, w + i));
			json_array_append_new(row, json_pack("[sii]", "B", s, i));
			if (split)
				json_array_append_new(row, json_pack("[sii]", "W", s, i));
		}
		for (int j = m - w; j < m; j++) {
			json_array_append_new(row, json_pack("[sii]", "B", s, j));
			if (split)
				json_array_append_new(row, json_pack("[sii]", "W", s, j));
		}
		json_array_append_new(all, row);
	}
	return all;
}

/* ---- the zb-1p-example instance: p = 4, m = 8, F 18522, B 18086, W 9337,
 * comm 601, memory F +2, B -1, W -1, limit 16. --------------------------- */

static const struct chain zb = {4, 8, {18522, 18086, 9337}, 601};

static void test_simulate_zb_1f1b_json(void **state)
{
	struct run r;
	RUN(&r, "simulate", ZB, "--family", "1f1b", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	assert_int_equal(r.err_len, 0);
	json_t *j = parse_json(r.out);
	static const char *const keys[] = {
		"makespan", "span", "objective", "peak_memory", "bubble_ratio",
		"lower_bound", "gap", "status", "certified", "schedule", "seconds"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		get(j, keys[i]);

	/* Device 3 cannot start before the forward chain reaches it, then must
	 * run all its work: (p-1)(F+comm) + m(F+B+W). */
	int64_t lb = 3 * (18522 + 601) + 8 * (18522 + 18086 + 9337);
	assert_int_equal(lb, 424929);
	assert_int_equal(get_int(j, "lower_bound"), lb);

	/* 1F1B keeps min(p-s, m) micro-batches in flight on stage s, each
	 * holding F's +2 until its B and W release it. */
	static const int64_t peak[] = {8, 6, 4, 2};
	assert_int_list(get(j, "peak_memory"), peak, 4);

	/* the schedule is 1F1B by definition */
	json_t *want = one_f_one_b(4, 8, true);
	assert_true(json_equal(get(j, "schedule"), want));

	/* makespan and span from the independent simulator */
	int64_t start[96], end[96], span;
	int64_t mk = chain_sim(&zb, want, start, end, &span);
	json_decref(want);
	assert_int_equal(get_int(j, "makespan"), mk);
	assert_int_equal(get_int(j, "span"), span);
	assert_int_equal(get_int(j, "objective"), mk);
	assert_true(mk >= lb);

	/* bubble = 1 - busy / (D * makespan), busy = D * m * (F+B+W) */
	double busy = 4.0 * 8 * (18522 + 18086 + 9337);
	assert_double_near(get_real(j, "bubble_ratio"), 1.0 - busy / (4.0 * mk), 1e-9);
	assert_double_near(get_real(j, "gap"), (double)(mk - lb) / (double)mk, 1e-9);
	bool optimal = mk == lb;
	assert_string_equal(get_str(j, "status"), optimal ? "optimal" : "feasible");
	assert_true(json_is_boolean(get(j, "certified")));
	assert_int_equal(json_is_true(get(j, "certified")), optimal);
	assert_true(get_real(j, "seconds") >= 0);
	json_decref(j);
	run_free(&r);
}

/* Human output: the same numbers in words, and an ASCII timeline. */
static void test_simulate_zb_human(void **state)
{
	struct run r;
	RUN(&r, "simulate", ZB, "--family", "1f1b");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "424929");
	assert_contains(r.out, "[8, 6, 4, 2]");
	assert_contains(r.out, "dev   3 |");
	run_free(&r);
	RUN(&r, "simulate", ZB, "--family", "1f1b", "--no-timeline");
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "dev   0 |"));
	run_free(&r);
}

/* ---- a fused-backward chain: p = 4, m = 8, F 3, B 5, comm 0 --------------
 * Both GPipe and 1F1B take (m + p - 1)(F + B) = 11 * 8 = 88, which is also
 * device 3's bound: its first F waits (p-1)F = 9, then it runs mF + mB = 64,
 * then the gradient of its last micro-batch crosses 3 more stages, 3B = 15:
 * 9 + 64 + 15 = 88. */

static void check_fused(const char *family, const int64_t *peak)
{
	struct run r;
	RUN(&r, "simulate", FUSED, "--family", family, "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "makespan"), 88);
	assert_int_equal(get_int(j, "objective"), 88);
	assert_int_equal(get_int(j, "lower_bound"), 88);
	assert_string_equal(get_str(j, "status"), "optimal");
	assert_true(json_is_true(get(j, "certified")));
	assert_double_near(get_real(j, "gap"), 0.0, 1e-12);
	/* busy 4 * 8 * 8 = 256 of 4 * 88 = 352 */
	assert_double_near(get_real(j, "bubble_ratio"), 1.0 - 256.0 / 352.0, 1e-9);
	assert_int_list(get(j, "peak_memory"), peak, 4);
	/* span: device 0 runs from 0 to the end, 88 */
	assert_int_equal(get_int(j, "span"), 88);
	json_decref(j);
	run_free(&r);
}

static void test_fused_families_optimal(void **state)
{
	/* GPipe holds all m forwards; 1F1B holds min(p-s, m). */
	static const int64_t gpipe_peak[] = {8, 8, 8, 8};
	static const int64_t ofob_peak[] = {4, 3, 2, 1};
	check_fused("gpipe", gpipe_peak);
	check_fused("1f1b", ofob_peak);
}

/* ---- the tiny split instance: D = 2, m = 2, F 2, B 3, W 1, comm 1,
 * memory F +2, B -1, W -1, limit [4, 3]. A hand-written schedule:
 *   device 0: F(0,0) F(0,1) B(0,0) W(0,0) B(0,1) W(0,1)
 *   device 1: F(1,0) B(1,0) F(1,1) W(1,0) B(1,1) W(1,1)
 * Times by hand:
 *   F(0,0) 0-2, F(0,1) 2-4; F(1,0) 2+1=3-5, B(1,0) 5-8,
 *   F(1,1) max(8, 4+1)=8-10, W(1,0) 10-11, B(1,1) 11-14, W(1,1) 14-15;
 *   B(0,0) max(4, 8+1)=9-12, W(0,0) 12-13, B(0,1) max(13, 14+1)=15-18,
 *   W(0,1) 18-19.
 * makespan 19, span max(19-0, 15-3) = 19, busy 2*2*6 = 24,
 * bubble 1 - 24/38, peak memory [4 (F,F), 3 (F,B,F)]. */

static const char tiny_json[] =
	"{\"schedule\": [\n"
	"  [[\"F\",0,0],[\"F\",0,1],[\"B\",0,0],[\"W\",0,0],[\"B\",0,1],[\"W\",0,1]],\n"
	"  [[\"F\",1,0],[\"B\",1,0],[\"F\",1,1],[\"W\",1,0],[\"B\",1,1],[\"W\",1,1]]\n"
	"]}\n";

static const struct {
	const char *kind;
	int stage, mb;
	int64_t start, end;
} tiny_times[] = {
	{"F", 0, 0, 0, 2},   {"F", 0, 1, 2, 4},   {"B", 0, 0, 9, 12},
	{"W", 0, 0, 12, 13}, {"B", 0, 1, 15, 18}, {"W", 0, 1, 18, 19},
	{"F", 1, 0, 3, 5},   {"B", 1, 0, 5, 8},   {"F", 1, 1, 8, 10},
	{"W", 1, 0, 10, 11}, {"B", 1, 1, 11, 14}, {"W", 1, 1, 14, 15},
};
#define TINY_OPS (int)(sizeof tiny_times / sizeof *tiny_times)

static void check_tiny_result(const struct run *r)
{
	if (r->status)
		fail_msg("exit %d: %s", r->status, r->err);
	json_t *j = parse_json(r->out);
	assert_int_equal(get_int(j, "makespan"), 19);
	assert_int_equal(get_int(j, "span"), 19);
	assert_int_equal(get_int(j, "objective"), 19);
	static const int64_t peak[] = {4, 3};
	assert_int_list(get(j, "peak_memory"), peak, 2);
	assert_double_near(get_real(j, "bubble_ratio"), 1.0 - 24.0 / 38.0, 1e-9);
	assert_true(get_int(j, "lower_bound") <= 19);
	json_t *want = parse_json(tiny_json);
	assert_true(json_equal(get(j, "schedule"), get(want, "schedule")));
	json_decref(want);
	json_decref(j);
}

static void test_simulate_hand_schedule_json(void **state)
{
	struct run r;
	write_file(tmp("tiny.json"), tiny_json);
	RUN(&r, "simulate", TINY, "--schedule", tmp("tiny.json"), "--json");
	check_tiny_result(&r);
	run_free(&r);
}

/* The same schedule as torch CSV, with what the importer must skip: idle
 * cells, spaces, passive actions, CRLF line ends and no final newline. */
static void test_simulate_torch_csv(void **state)
{
	struct run r;
	write_file(tmp("tiny.csv"),
		   "0F0, 0F1,,0I0,0W0,0SEND_B0,0I1,0W1\r\n"
		   "1RECV_F0,1F0,1I0, 1F1 ,1W0,1I1,1W1,");
	RUN(&r, "simulate", TINY, "--schedule", tmp("tiny.csv"), "--json");
	check_tiny_result(&r);
	run_free(&r);
}

/* A command's --json result is itself a schedule file (other keys ignored). */
static void test_simulate_reads_back_result(void **state)
{
	struct run r;
	write_file(tmp("tiny-rb.json"), tiny_json);
	RUN(&r, "simulate", TINY, "--schedule", tmp("tiny-rb.json"), "--json");
	assert_int_equal(r.status, 0);
	write_file(tmp("tiny-result.json"), r.out);
	run_free(&r);
	RUN(&r, "simulate", TINY, "--schedule", tmp("tiny-result.json"), "--json");
	check_tiny_result(&r);
	run_free(&r);
}

/* ---- generate and convert -------------------------------------------------- */

static void test_generate_then_simulate(void **state)
{
	struct run r;
	const char *out = tmp("gen-1f1b.json");
	RUN(&r, "generate", "1f1b", ZB, "-o", out);
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	assert_int_equal(r.out_len, 0);
	assert_int_equal(dir_count(tmpdir, ".tmp."), 0);
	char *text = slurp(out, NULL);
	assert_non_null(text);
	json_t *file = parse_json(text);
	free(text);
	json_t *want = one_f_one_b(4, 8, true);
	assert_true(json_equal(get(file, "schedule"), want));
	json_decref(want);
	json_decref(file);
	run_free(&r);

	RUN(&r, "simulate", ZB, "--schedule", out, "--json");
	assert_int_equal(r.status, 0);
	json_t *a = parse_json(r.out);
	run_free(&r);
	RUN(&r, "simulate", ZB, "--family", "1f1b", "--json");
	assert_int_equal(r.status, 0);
	json_t *b = parse_json(r.out);
	run_free(&r);
	assert_int_equal(get_int(a, "makespan"), get_int(b, "makespan"));
	assert_int_equal(get_int(a, "span"), get_int(b, "span"));
	json_decref(a);
	json_decref(b);

	/* without -o the schedule goes to stdout */
	RUN(&r, "generate", "gpipe", FUSED);
	assert_int_equal(r.status, 0);
	json_t *g = parse_json(r.out);
	json_t *rows = get(g, "schedule");
	assert_int_equal(json_array_size(rows), 4);
	for (int d = 0; d < 4; d++) {
		json_t *row = json_array_get(rows, d);
		assert_int_equal(json_array_size(row), 16);   /* 8 F, 8 B */
		for (int i = 0; i < 16; i++) {
			json_t *op = json_array_get(row, i);
			assert_string_equal(json_string_value(json_array_get(op, 0)),
					    i < 8 ? "F" : "B");
			assert_int_equal(json_integer_value(json_array_get(op, 1)), d);
			assert_int_equal(json_integer_value(json_array_get(op, 2)), i % 8);
		}
	}
	json_decref(g);
	run_free(&r);
}

static char *read_ok(const char *path)
{
	char *t = slurp(path, NULL);
	if (!t)
		fail_msg("'%s' was not written", path);
	return t;
}

static void test_csv_roundtrip(void **state)
{
	struct run r;
	const char *x = tmp("rt-x.csv"), *y = tmp("rt-y.json"), *z = tmp("rt-z.csv");
	RUN(&r, "generate", "1f1b", ZB, "--format", "torch-csv", "-o", x);
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	run_free(&r);
	char *xs = read_ok(x);
	/* Step-aligned (sched/torch_csv.h), one op a step: stage 0 warms up
	 * with F0..F3 at steps 0-3; its B0 (exported as I) waits for B(1,0)
	 * at step 6: B(3,0) runs at 4 (after F(3,0) at 3), B(2,0) at 5, so
	 * three idle steps. Stage 3 starts at step 3. 4 rows of 3 * 8 ops. */
	assert_true(!strncmp(xs, "0F0,0F1,0F2,0F3,,,,0I0,0W0,0F4,", 31));
	assert_int_equal(count_substr(xs, "\n"), 4);
	assert_int_equal(count_substr(xs, "F"), 32);
	assert_int_equal(count_substr(xs, "I"), 32);
	assert_int_equal(count_substr(xs, "W"), 32);
	assert_contains(xs, "\n,,,3F0,3I0,3W0,3F1,");

	RUN(&r, "convert", x, y);
	assert_int_equal(r.status, 0);
	run_free(&r);
	RUN(&r, "convert", y, z);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *zs = read_ok(z);
	assert_string_equal(xs, zs);
	free(xs);
	free(zs);

	/* fused backward exports as B; --from overrides the extension */
	const char *fx = tmp("rt-fused.dat");
	RUN(&r, "generate", "1f1b", FUSED, "--format", "torch-csv", "-o", fx);
	assert_int_equal(r.status, 0);
	run_free(&r);
	xs = read_ok(fx);
	assert_contains(xs, "\n,,,3F0,3B0,3F1,3B1,");
	assert_null(strstr(xs, "I"));
	RUN(&r, "convert", fx, tmp("rt-fused.json"), "--from", "torch-csv");
	assert_int_equal(r.status, 0);
	run_free(&r);
	RUN(&r, "convert", tmp("rt-fused.json"), "-", "--to", "torch-csv");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, xs);
	free(xs);
	run_free(&r);
}

/* torch's own CSVs through the binary: convert CSV -> CSV and CSV -> JSON
 * -> CSV give back the same bytes. The vectors: the zb 2-rank golden file
 * of torch's tests and DualPipeV (OVERLAP_F_B, full B) from torch's
 * algorithms (tests/torch_ref.h), and a hand-written one with
 * communication actions, idle cells and CRLF. */
static void test_csv_torch_bytes(void **state)
{
	struct tref *zbt = tref_interleaved(2, 2, 8, true), *dp = tref_dualpipev(4, 10);
	char *texts[] = {
		tref_csv(zbt, "\n"), tref_csv(dp, "\n"), tref_csv(dp, "\r\n"),
		strdup("0F0,0SEND_F0,,0I0,0W0,0REDUCE_GRAD\r\n,1RECV_F0,1F0,1I0,1SEND_B0,1W0,\r\n"),
	};
	free(zbt);
	free(dp);
	assert_int_equal(strlen(texts[0]), 386);
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		const char *in = tmp("torch-in.csv"), *x = tmp("torch-x.csv"),
			   *y = tmp("torch-y.json"), *z = tmp("torch-z.csv");
		struct run r;
		write_file(in, texts[i]);
		RUN(&r, "convert", in, x);
		if (r.status)
			fail_msg("vector %zu: %s", i, r.err);
		run_free(&r);
		RUN(&r, "convert", in, y);
		assert_int_equal(r.status, 0);
		run_free(&r);
		RUN(&r, "convert", y, z);
		assert_int_equal(r.status, 0);
		run_free(&r);
		char *xs = read_ok(x), *zs = read_ok(z), *ys = read_ok(y);
		if (strcmp(xs, texts[i]) || strcmp(zs, texts[i]))
			fail_msg("vector %zu: CSV -> CSV or CSV -> JSON -> CSV changed it:\n%s\n%s\n%s",
				 i, texts[i], xs, zs);
		assert_contains(ys, "\"torch_csv\"");
		free(xs);
		free(ys);
		free(zs);
		free(texts[i]);
	}
}

static json_t *trace_events(const char *path)
{
	char *text = read_ok(path);
	json_t *doc = parse_json(text);
	free(text);
	json_t *ev = get(doc, "traceEvents");
	assert_true(json_is_array(ev));
	json_incref(ev);
	json_decref(doc);
	return ev;
}

static void test_convert_trace(void **state)
{
	struct run r;
	write_file(tmp("tr.json"), tiny_json);
	RUN(&r, "convert", tmp("tr.json"), tmp("tr.trace.json"), "--instance", TINY);
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	run_free(&r);
	json_t *ev = trace_events(tmp("tr.trace.json"));
	int seen[TINY_OPS] = {0}, nx = 0;
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e) {
		if (strcmp(get_str(e, "ph"), "X"))
			continue;
		nx++;
		json_t *args = get(e, "args");
		const char *k = get_str(args, "kind");
		int s = (int)get_int(args, "stage"), m = (int)get_int(args, "microbatch");
		int t;
		for (t = 0; t < TINY_OPS; t++)
			if (!strcmp(tiny_times[t].kind, k) && tiny_times[t].stage == s &&
			    tiny_times[t].mb == m)
				break;
		if (t == TINY_OPS)
			fail_msg("unexpected op %s(%d,%d)", k, s, m);
		seen[t]++;
		assert_int_equal(get_int(e, "ts"), tiny_times[t].start);
		assert_int_equal(get_int(e, "dur"), tiny_times[t].end - tiny_times[t].start);
		assert_int_equal(get_int(e, "tid"), s);   /* stage s on device s */
	}
	assert_int_equal(nx, TINY_OPS);
	for (int t = 0; t < TINY_OPS; t++)
		assert_int_equal(seen[t], 1);
	json_decref(ev);

	/* a larger one against the independent simulator: zb with 1F1B */
	RUN(&r, "generate", "1f1b", ZB, "--format", "trace", "-o", tmp("zb.trace.json"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	json_t *sched = one_f_one_b(4, 8, true);
	int64_t start[96], end[96], span;
	chain_sim(&zb, sched, start, end, &span);
	json_decref(sched);
	ev = trace_events(tmp("zb.trace.json"));
	nx = 0;
	json_array_foreach(ev, i, e) {
		if (strcmp(get_str(e, "ph"), "X"))
			continue;
		nx++;
		json_t *args = get(e, "args");
		int id = CH_ID(&zb, kind_of(get_str(args, "kind")),
			       (int)get_int(args, "stage"), (int)get_int(args, "microbatch"));
		assert_int_equal(get_int(e, "ts"), start[id]);
		assert_int_equal(get_int(e, "dur"), end[id] - start[id]);
	}
	assert_int_equal(nx, 96);
	json_decref(ev);
}

static void test_convert_svg(void **state)
{
	struct run r;
	write_file(tmp("svg.json"), tiny_json);
	RUN(&r, "convert", tmp("svg.json"), tmp("tiny.svg"), "--instance", TINY);
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	run_free(&r);
	char *svg = read_ok(tmp("tiny.svg"));
	assert_true(!strncmp(svg, "<svg", 4));
	assert_contains(svg, "</svg>");
	/* one box with a tooltip per op, and only those */
	assert_int_equal(count_substr(svg, "<title>"), TINY_OPS);
	size_t boxes = 0;
	for (const char *p = strstr(svg, "<rect "); p; p = strstr(p + 1, "<rect ")) {
		const char *close = strchr(p, '>');
		assert_non_null(close);
		boxes += !strncmp(close, "><title>", 8);
	}
	assert_int_equal(boxes, TINY_OPS);
	for (int t = 0; t < TINY_OPS; t++) {
		char title[64];
		snprintf(title, sizeof title, "<title>%s(%d,%d) %d-%d</title>",
			 tiny_times[t].kind, tiny_times[t].stage, tiny_times[t].mb,
			 (int)tiny_times[t].start, (int)tiny_times[t].end);
		assert_contains(svg, title);
	}
	free(svg);
}

static void test_convert_ascii(void **state)
{
	struct run r;
	write_file(tmp("asc.json"), tiny_json);
	RUN(&r, "convert", tmp("asc.json"), tmp("tiny.txt"), "--instance", TINY);
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	run_free(&r);
	char *txt = read_ok(tmp("tiny.txt"));
	for (int d = 0; d < 2; d++) {
		char head[16];
		snprintf(head, sizeof head, "dev   %d |", d);
		const char *p = strstr(txt, head);
		if (!p)
			fail_msg("no line '%s' in:\n%s", head, txt);
		p += strlen(head);
		const char *bar = strchr(p, '|');
		assert_non_null(bar);
		assert_int_equal(bar - p, 100);   /* default width */
	}
	assert_null(strstr(txt, "dev   2 |"));
	/* device 0 starts with F(0,0) at time 0; device 1 idles until 3 */
	assert_contains(txt, "dev   0 |F");
	assert_contains(txt, "dev   1 |.");
	free(txt);

	/* to stdout with --to */
	RUN(&r, "convert", tmp("asc.json"), "-", "--to", "ascii", "--instance", TINY);
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "dev   1 |");
	run_free(&r);
}

/* trace, svg and ascii need times, hence --instance. */
static void test_convert_timed_needs_instance(void **state)
{
	struct run r;
	write_file(tmp("ni.json"), tiny_json);
	static const char *const outs[] = {"ni.svg", "ni.trace.json", "ni.txt"};
	for (int i = 0; i < 3; i++) {
		RUN(&r, "convert", tmp("ni.json"), tmp(outs[i]));
		assert_usage(&r);
		assert_contains(r.err, "--instance");
		assert_false(file_exists(tmp(outs[i])));
		run_free(&r);
	}
	RUN(&r, "convert", tmp("ni.json"), "-", "--to", "svg");
	assert_usage(&r);
	run_free(&r);
}

/* solve INSTANCE --time-limit LIMIT --json: exits 0 with `opt`, certified
 * by the bound and re-simulated to it; the result (the caller frees it). */
static json_t *solve_certifies_by_bound(const char *instance, const char *limit, int64_t opt)
{
	struct run r;
	RUN(&r, "solve", instance, "--json", "--time-limit", limit);
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	run_free(&r);
	assert_true(json_is_true(get(j, "certified")));
	assert_int_equal(get_int(j, "objective"), opt);
	assert_int_equal(get_int(j, "makespan"), opt);
	assert_string_equal(get_str(j, "certified_by"), "bound");
	return j;
}

/* ---- bound and families ----------------------------------------------------- */

static void test_bound_json(void **state)
{
	struct run r;
	RUN(&r, "bound", ZB, "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "lower_bound"), 424929);
	json_t *b = get(j, "bounds");
	assert_true(json_is_object(b));
	/* one micro-batch's chain: 4F + 4B + W + 6 comm crossings
	 * = 74088 + 72344 + 9337 + 3606 */
	assert_int_equal(get_int(b, "critical_path"), 159375);
	assert_int_equal(get_int(b, "device"), 424929);
	assert_int_equal(get_int(b, "device_at"), 3);
	/* memory: the limit 16 admits all 8 warm-up forwards (8 * 2), so the
	 * memory bound adds no idle time to device 3's 424929 */
	assert_int_equal(get_int(b, "memory"), 424929);
	assert_int_equal(get_int(b, "memory_at"), 3);
	assert_true(get_real(j, "seconds") >= 0);
	json_decref(j);
	run_free(&r);

	RUN(&r, "bound", FUSED, "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "lower_bound"), 88);
	b = get(j, "bounds");
	assert_int_equal(get_int(b, "critical_path"), 4 * 3 + 4 * 5);
	/* device bounds 67, 72, 80, 88 for devices 0..3 */
	assert_int_equal(get_int(b, "device"), 88);
	assert_int_equal(get_int(b, "device_at"), 3);
	assert_int_equal(get_int(b, "memory"), 0);      /* no limit */
	assert_int_equal(get_int(b, "memory_at"), -1);
	json_decref(j);
	run_free(&r);

	RUN(&r, "bound", ZB);
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "lower bound");
	assert_contains(r.out, "424929");
	run_free(&r);
}

/* With F&B overlap (datasets/instances/overlap-4x7-limit6.json, factor 0,
 * limit 6): `bound` gives 108, the optimum that the disjunctive MILP proved
 * independently with the cut-cost bounds (79) at 4d5d239; `solve`
 * certifies it by the bound, and its schedule, re-simulated, ends at 108. */
static void test_bound_overlap(void **state)
{
	(void)state;
	struct run r;
	RUN(&r, "bound", "datasets/instances/overlap-4x7-limit6.json", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "lower_bound"), 108);
	json_decref(j);
	run_free(&r);
	json_decref(solve_certifies_by_bound("datasets/instances/overlap-4x7-limit6.json", "20", 108));
}

/* What bound --windows and --shave share, on the window example
 * fused-3x12-limit3 (the closed forms stop below 60, at 58; 60 is the
 * optimum, proven with a forced MILP in tests/test_exact.c): `opt` 10
 * proves 60, named `by` in bound_by and under bounds.`key` (returned,
 * owned by the caller's json *out); on a span instance the `key` line
 * says it does not apply; a negative time is a usage error. */
static json_t *check_bound_option(const char *opt, const char *key, const char *by,
				  const char *span_line, json_t **out)
{
	struct run r;
	RUN(&r, "bound", "datasets/instances/fused-3x12-limit3.json", opt, "10", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "lower_bound"), 60);
	assert_string_equal(get_str(j, "bound_by"), by);
	json_t *x = get(get(j, "bounds"), key);
	assert_int_equal(get_int(x, "value"), 60);
	run_free(&r);
	RUN(&r, "bound", "datasets/instances/v-4x2-span.json", opt, "1");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, span_line);
	run_free(&r);
	char neg[64];
	snprintf(neg, sizeof neg, "%s -1", opt);
	RUN(&r, "bound", "datasets/instances/fused-3x12-limit3.json", opt, "-1");
	assert_usage(&r);
	assert_contains(r.err, neg);
	run_free(&r);
	*out = j;
	return x;
}

/* bound --windows: the relaxation of devices 0-1 proves 60; without the
 * option the closed forms stay below and no window is reported. */
static void test_bound_windows(void **state)
{
	json_t *j, *w = check_bound_option("--windows", "window", "window",
					   "window         -  (the makespan only", &j);
	assert_int_equal(json_integer_value(json_array_get(get(w, "devices"), 0)), 0);
	assert_int_equal(json_integer_value(json_array_get(get(w, "devices"), 1)), 1);
	json_decref(j);
	struct run r;
	RUN(&r, "bound", "datasets/instances/fused-3x12-limit3.json", "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_true(get_int(j, "lower_bound") < 60);   /* the closed forms alone: 58 */
	assert_null(json_object_get(get(j, "bounds"), "window"));   /* not asked */
	json_decref(j);
	run_free(&r);
}

/* bound --shave proves 60 there too, and on the held-out
 * fused-8x16-comm2-limit8 its optimum 272 (CBC's disjunctive MILP, 3 min
 * 37 s at 4d5d239; the closed forms give less), which solve certifies
 * by it with the schedule its search finds. */
static void test_bound_shave(void **state)
{
	json_t *j;
	check_bound_option("--shave", "shaving", "shaving", "shaving        -  (the makespan only",
			   &j);
	json_decref(j);
	struct run r;
	RUN(&r, "bound", "datasets/instances/fused-8x16-comm2-limit8.json", "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_true(get_int(j, "lower_bound") < 272);
	json_decref(j);
	run_free(&r);
	RUN(&r, "bound", "datasets/instances/fused-8x16-comm2-limit8.json", "--shave", "30");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "lower bound    272 on the makespan, by the shaving bound");
	run_free(&r);
	j = solve_certifies_by_bound("datasets/instances/fused-8x16-comm2-limit8.json", "120", 272);
	assert_string_equal(get_str(j, "lower_bound_by"), "shaving");
	json_decref(j);
	(void)state;
}

static void test_families_list_json(void **state)
{
	struct run r;
	RUN(&r, "families", "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	json_t *fams = get(j, "families");
	assert_true(json_is_array(fams));
	bool gpipe = false, ofob = false;
	size_t i;
	json_t *f;
	json_array_foreach(fams, i, f) {
		const char *n = get_str(f, "name");
		gpipe |= !strcmp(n, "gpipe");
		ofob |= !strcmp(n, "1f1b");
		get_str(f, "summary");
		get_str(f, "supports");
	}
	assert_true(gpipe && ofob);
	json_decref(j);
	run_free(&r);

	RUN(&r, "families");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "gpipe");
	assert_contains(r.out, "1f1b");
	run_free(&r);
}

static json_t *family_result(json_t *results, const char *name)
{
	size_t i;
	json_t *row;
	json_array_foreach(results, i, row)
		if (!strcmp(get_str(row, "family"), name))
			return row;
	fail_msg("no result for family '%s'", name);
	return NULL;
}

static void test_families_instance_json(void **state)
{
	struct run r;
	RUN(&r, "families", FUSED, "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "lower_bound"), 88);
	json_t *res = get(j, "results");
	assert_true(json_array_size(res) >= 2);   /* one per family */
	for (int k = 0; k < 2; k++) {
		json_t *row = family_result(res, k ? "1f1b" : "gpipe");
		assert_int_equal(get_int(row, "makespan"), 88);
		assert_string_equal(get_str(row, "status"), "optimal");
		assert_true(json_is_true(get(row, "certified")));
	}
	json_decref(j);
	run_free(&r);

	/* limit 4: GPipe's fifth forward on device 0 holds 5 > 4; 1F1B holds
	 * at most min(p, m) = 4 and is still optimal (its bound stays 88) */
	RUN(&r, "families", FUSED_LIM, "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	res = get(j, "results");
	assert_true(json_array_size(res) >= 2);   /* one per family */
	json_t *g = family_result(res, "gpipe");
	/* a refused family is "unsupported" in every command (as in sweeps) */
	assert_string_equal(get_str(g, "status"), "unsupported");
	assert_contains(get_str(g, "error"), "memory over the limit");
	assert_contains(get_str(g, "error"), "device 0");
	assert_contains(get_str(g, "error"), "F(0,4)");
	json_t *o = family_result(res, "1f1b");
	assert_string_equal(get_str(o, "status"), "optimal");
	assert_int_equal(get_int(o, "makespan"), 88);
	json_decref(j);
	run_free(&r);
}

static void test_families_dag(void **state)
{
	struct run r;
	RUN(&r, "families", DAG, "--json");
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	get_int(j, "lower_bound");
	json_t *res = get(j, "results");
	assert_true(json_array_size(res) >= 2);   /* one per family */
	for (int k = 0; k < 2; k++) {
		json_t *row = family_result(res, k ? "1f1b" : "gpipe");
		assert_string_equal(get_str(row, "status"), "unsupported");
		assert_contains(get_str(row, "error"), "does not support");
		assert_contains(get_str(row, "error"), "chain");
	}
	json_decref(j);
	run_free(&r);

	RUN(&r, "families", DAG);
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "refused");
	run_free(&r);

	RUN(&r, "simulate", DAG, "--family", "1f1b");
	assert_failed(&r, NEEDLES("1f1b", "does not support"));
	run_free(&r);
}

/* ---- bad instances ------------------------------------------------------------ */

/* bound and simulate both fail on path with one line naming it and each
 * needle; their --json twins print the same message as an error object. */
static void check_bad_instance(const char *path, const char *const *needles)
{
	const char *all[8] = {path};
	int n = 1;
	for (int i = 0; needles && needles[i] && n < 7; i++)
		all[n++] = needles[i];
	all[n] = NULL;
	struct run r;
	RUN(&r, "bound", path);
	assert_failed(&r, all);
	run_free(&r);
	RUN(&r, "simulate", path, "--family", "1f1b");
	assert_failed(&r, all);
	run_free(&r);
	RUN(&r, "bound", path, "--json");
	assert_failed_json(&r, all);
	run_free(&r);
	RUN(&r, "simulate", path, "--family", "1f1b", "--json");
	assert_failed_json(&r, all);
	run_free(&r);
}

/* Trim spaces and backticks from both ends, in place. */
static char *trim_cell(char *s)
{
	while (*s && strchr(" \t`", *s))
		s++;
	char *e = s + strlen(s);
	while (e > s && strchr(" \t`\r\n", e[-1]))
		*--e = 0;
	return s;
}

/* From datasets/bad/README.md's table "file | key named | message contains",
 * the key and substring expected for `file` (empty when not listed). */
static void bad_expectations(const char *readme, const char *file, char *key,
			     char *msg, size_t cap)
{
	key[0] = msg[0] = 0;
	if (!readme)
		return;
	char *copy = strdup(readme), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != '|')
			continue;
		char *cells[4] = {0}, *p = line + 1;
		int nc = 0;
		while (nc < 4 && p && *p) {
			char *bar = strchr(p, '|');
			if (bar)
				*bar = 0;
			cells[nc++] = p;
			p = bar ? bar + 1 : NULL;
		}
		if (nc < 3)
			continue;
		if (strcmp(trim_cell(cells[0]), file))
			continue;
		char *k = trim_cell(cells[1]), *m = trim_cell(cells[2]);
		if (strcmp(k, "-") && strcmp(k, "—"))
			snprintf(key, cap, "%s", k);
		if (strcmp(m, "-") && strcmp(m, "—"))
			snprintf(msg, cap, "%s", m);
		break;
	}
	free(copy);
}

static void test_bad_dataset_files(void **state)
{
	DIR *d = opendir("datasets/bad");
	if (!d) {
		print_message("datasets/bad does not exist yet; only inline cases run\n");
		return;
	}
	char *readme = slurp("datasets/bad/README.md", NULL);
	int checked = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof path, "datasets/bad/%s", e->d_name);
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md") ||
		    stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		char key[256], msg[256], named[PATH_MAX + 300];
		bad_expectations(readme, e->d_name, key, msg, sizeof key);
		print_message("datasets/bad/%s: key '%s', message '%s'\n",
			      e->d_name, key, msg);
		/* the grammar: instance 'PATH': KEY: what is wrong (JSON syntax
		 * errors, duplicate keys included, give line and column instead
		 * of KEY, so the key is only required somewhere in the line) */
		snprintf(named, sizeof named, "instance '%s': ", path);
		check_bad_instance(path, NEEDLES(named, key, msg));
		checked++;
	}
	closedir(d);
	free(readme);
	print_message("%d files in datasets/bad checked\n", checked);
}

/* Inline bad instances, one rule of docs/formats.md each. Base: 4 devices. */
static const struct {
	const char *name, *json, *key, *msg;
} bad_inline[] = {
	{"unknown-key", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":1},\"colour\":1}",
	 "colour", "unknown key"},
	{"unknown-cost-key", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":1,\"X\":1}}",
	 "cost.X", "unknown key"},
	{"missing-devices", "{\"microbatches\":8,\"cost\":{\"F\":1,\"B\":1}}",
	 "devices", "missing"},
	{"float-devices", "{\"devices\":2.5,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":1}}",
	 "devices", "integer"},
	{"string-mb", "{\"devices\":4,\"microbatches\":\"8\",\"cost\":{\"F\":1,\"B\":1}}",
	 "microbatches", "integer"},
	{"negative-B", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":-3}}",
	 "cost.B", "negative"},
	{"negative-comm", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":1},\"comm\":-1}",
	 "comm", "negative"},
	{"zero-F", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":0,\"B\":1}}",
	 "cost.F", "0"},
	{"short-list", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":[1,2,3],\"B\":1}}",
	 "cost.F", "list has 3 entries, expected 4"},
	{"limit-list", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":1},"
		       "\"memory\":{\"F\":1,\"B\":-1,\"limit\":[4,4]}}",
	 "memory.limit", "list has 2 entries, expected 4"},
	{"delta-sum", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":1,\"W\":1},"
		      "\"memory\":{\"F\":2,\"B\":-1,\"W\":0}}",
	 "memory", "sum to 1"},
	{"cycle", "{\"devices\":3,\"microbatches\":2,\"edges\":[[0,1],[1,2],[2,0]],"
		  "\"cost\":{\"F\":1,\"B\":1}}",
	 "edges", "cycle"},
	{"no-device", "{\"devices\":2,\"microbatches\":2,\"placement\":[0,1,5],"
		      "\"cost\":{\"F\":1,\"B\":1}}",
	 "placement[2]", "device 5"},
	{"limit-too-small", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":1},"
			    "\"memory\":{\"F\":3,\"B\":-3,\"limit\":2}}",
	 "memory.limit", "below"},
	{"W-without-split", "{\"devices\":4,\"microbatches\":8,\"split_backward\":false,"
			    "\"cost\":{\"F\":1,\"B\":1,\"W\":1}}",
	 "cost.W", "split_backward"},
	{"bad-objective", "{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":1},"
			  "\"objective\":\"speed\"}",
	 "objective", "speed"},
	{"not-object", "[1, 2, 3]", "", "object"},
	/* JSON syntax: the error is on line 3 */
	{"syntax", "{\n  \"devices\": 4,\n  \"microbatches\": 8,,\n}", "line 3", "column"},
};

static void test_bad_inline_instances(void **state)
{
	for (size_t i = 0; i < sizeof bad_inline / sizeof *bad_inline; i++) {
		char name[64];
		snprintf(name, sizeof name, "bad-%s.json", bad_inline[i].name);
		const char *path = tmp(name);
		write_file(path, bad_inline[i].json);
		print_message("%s\n", bad_inline[i].name);
		check_bad_instance(path, NEEDLES(bad_inline[i].key, bad_inline[i].msg));
	}
}

static void test_nonexistent_instance(void **state)
{
	const char *path = "datasets/instances/no-such-instance.json";
	check_bad_instance(path, NEEDLES("instance", "No such file"));
	struct run r;
	RUN(&r, "families", path);
	assert_failed(&r, NEEDLES(path));
	run_free(&r);
	RUN(&r, "families", path, "--json");
	assert_failed_json(&r, NEEDLES(path));
	run_free(&r);
	RUN(&r, "generate", "1f1b", path, "-o", tmp("never.json"));
	assert_failed(&r, NEEDLES(path));
	assert_false(file_exists(tmp("never.json")));
	run_free(&r);
	write_file(tmp("ne.json"), tiny_json);
	RUN(&r, "convert", tmp("ne.json"), tmp("ne.svg"), "--instance", path);
	assert_failed(&r, NEEDLES(path));
	assert_false(file_exists(tmp("ne.svg")));
	run_free(&r);
}

/* A path with a newline must not split the error over two lines. */
static void test_error_one_line_newline_in_path(void **state)
{
	struct run r;
	RUN(&r, "bound", "datasets/no\nsuch.json");
	assert_failed(&r, NEEDLES("no"));
	run_free(&r);
}

static void test_nonexistent_schedule(void **state)
{
	struct run r;
	const char *path = tmp("no-such-schedule.json");
	RUN(&r, "simulate", TINY, "--schedule", path);
	assert_failed(&r, NEEDLES(path));
	run_free(&r);
	RUN(&r, "convert", path, tmp("out.csv"));
	assert_failed(&r, NEEDLES(path));
	assert_false(file_exists(tmp("out.csv")));
	run_free(&r);
}

/* ---- invalid schedules on the tiny instance ------------------------------------- */

static const struct {
	const char *name, *text, *needles[4];
} bad_schedules[] = {
	{"missing",
	 "{\"schedule\": [[[\"F\",0,0],[\"F\",0,1],[\"B\",0,0],[\"W\",0,0],[\"B\",0,1],[\"W\",0,1]],"
	 "[[\"F\",1,0],[\"B\",1,0],[\"F\",1,1],[\"W\",1,0],[\"B\",1,1]]]}",
	 {"device 1", "missing", "W(1,1)"}},
	{"duplicate",
	 "{\"schedule\": [[[\"F\",0,0],[\"F\",0,1],[\"F\",0,0],[\"B\",0,0],[\"W\",0,0],[\"B\",0,1],[\"W\",0,1]],"
	 "[[\"F\",1,0],[\"B\",1,0],[\"F\",1,1],[\"W\",1,0],[\"B\",1,1],[\"W\",1,1]]]}",
	 {"device 0", "duplicate", "F(0,0)"}},
	{"wrong-device",
	 "{\"schedule\": [[[\"F\",0,0],[\"F\",1,0],[\"F\",0,1],[\"B\",0,0],[\"W\",0,0],[\"B\",0,1],[\"W\",0,1]],"
	 "[[\"B\",1,0],[\"F\",1,1],[\"W\",1,0],[\"B\",1,1],[\"W\",1,1]]]}",
	 {"device 0", "F(1,0)", "device 1"}},
	/* an op of micro-batch 2 makes it a schedule for 3 micro-batches: the
	 * shape check names that before the simulator looks at ops */
	{"micro-batches",
	 "{\"schedule\": [[[\"F\",0,0],[\"F\",0,1],[\"F\",0,2],[\"B\",0,0],[\"W\",0,0],[\"B\",0,1],[\"W\",0,1]],"
	 "[[\"F\",1,0],[\"B\",1,0],[\"F\",1,1],[\"W\",1,0],[\"B\",1,1],[\"W\",1,1]]]}",
	 {"does not match instance 'tiny-split-2x2'", "the schedule has 3 micro-batches, the instance 2"}},
	/* B(0,1) needs B(1,1), which needs F(1,1) on device 1, which waits
	 * for F(0,1), which device 0 runs after B(0,1): a cycle (memory stays
	 * within the limits, so the deadlock is what gets reported) */
	{"deadlock",
	 "{\"schedule\": [[[\"F\",0,0],[\"B\",0,0],[\"W\",0,0],[\"B\",0,1],[\"F\",0,1],[\"W\",0,1]],"
	 "[[\"F\",1,0],[\"B\",1,0],[\"F\",1,1],[\"W\",1,0],[\"B\",1,1],[\"W\",1,1]]]}",
	 {"deadlock", "device 0", "B(0,1)", "F(1,1)"}},
	/* device 1's limit is 3: F(1,0), F(1,1) hold 2 + 2 = 4 */
	{"memory",
	 "{\"schedule\": [[[\"F\",0,0],[\"F\",0,1],[\"B\",0,0],[\"W\",0,0],[\"B\",0,1],[\"W\",0,1]],"
	 "[[\"F\",1,0],[\"F\",1,1],[\"B\",1,0],[\"W\",1,0],[\"B\",1,1],[\"W\",1,1]]]}",
	 {"device 1", "F(1,1)", "memory", "4 > 3"}},
	{"rows",
	 "{\"schedule\": [[[\"F\",0,0]]]}",
	 {"1 device rows", "2 devices"}},
};

static void test_invalid_schedules(void **state)
{
	for (size_t i = 0; i < sizeof bad_schedules / sizeof *bad_schedules; i++) {
		char name[64];
		snprintf(name, sizeof name, "badsched-%s.json", bad_schedules[i].name);
		const char *path = tmp(name);
		write_file(path, bad_schedules[i].text);
		print_message("%s\n", bad_schedules[i].name);
		const char *needles[6] = {path};
		for (int k = 0; k < 4 && bad_schedules[i].needles[k]; k++)
			needles[k + 1] = bad_schedules[i].needles[k];
		struct run r;
		RUN(&r, "simulate", TINY, "--schedule", path);
		assert_failed(&r, needles);
		run_free(&r);
		RUN(&r, "simulate", TINY, "--schedule", path, "--json");
		assert_failed_json(&r, needles);
		run_free(&r);
		/* convert with an instance validates too, and writes nothing */
		RUN(&r, "convert", path, tmp("bad-out.csv"), "--instance", TINY);
		assert_failed(&r, needles);
		assert_false(file_exists(tmp("bad-out.csv")));
		run_free(&r);
	}
}

/*
 * A schedule for another instance is refused by every command that reads
 * one for an instance, with one line naming the mismatch and no output.
 * ZB5 is the bundled example with 5 micro-batches and limit 7; 1f1b's
 * 8-micro-batch order puts F(0,0..3) on device 0 before any backward, so
 * 4 x 2 = 8 > 7: without the shape check the first fault met in device
 * order is a memory overflow at F(0,3), an op both instances have (and
 * solve ignored the start, search only noted it). zb-auto's order for ZB5
 * itself, which honours the limit, passes.
 */
#define ZB5_TEXT "{\"name\": \"zb-5mb\", \"devices\": 4, \"microbatches\": 5," \
	" \"cost\": {\"F\": 18522, \"B\": 18086, \"W\": 9337}, \"comm\": 601," \
	" \"memory\": {\"F\": 2, \"B\": -1, \"W\": -1, \"limit\": 7}}"

static void test_schedule_for_another_instance(void **state)
{
	struct run r;
	const char *zb5 = tmp("zb5.json"), *s8 = tmp("s8.json"), *s5 = tmp("s5.json"),
		   *out = tmp("mismatch-out.json");
	write_file(zb5, ZB5_TEXT);
	RUN(&r, "generate", "1f1b", ZB, "-o", s8);
	assert_int_equal(r.status, 0);
	run_free(&r);
	RUN(&r, "generate", "zb-auto", zb5, "-o", s5);
	assert_int_equal(r.status, 0);
	run_free(&r);
	/* the right shape passes the check (the test can fail) */
	RUN(&r, "simulate", zb5, "--schedule", s5, "--json");
	assert_int_equal(r.status, 0);
	run_free(&r);

	const char *const *mb = NEEDLES("schedule '", "s8.json' does not match instance 'zb-5mb'",
					"the schedule has 8 micro-batches, the instance 5");
	RUN(&r, "simulate", zb5, "--schedule", s8);
	assert_failed(&r, mb);
	assert_null(strstr(r.err, "memory"));
	run_free(&r);
	RUN(&r, "simulate", zb5, "--schedule", s8, "--json");
	assert_failed_json(&r, mb);
	run_free(&r);
	RUN(&r, "solve", zb5, "--start", s8, "-o", out);
	assert_failed(&r, mb);
	assert_false(file_exists(out));
	run_free(&r);
	RUN(&r, "solve", zb5, "--start", s8, "-o", out, "--json");
	assert_failed_json(&r, mb);
	assert_false(file_exists(out));
	run_free(&r);
	RUN(&r, "search", zb5, "--seed-schedule", s5, "--seed-schedule", s8,
	    "--time-limit", "1", "-o", out);
	assert_failed(&r, mb);
	assert_false(file_exists(out));
	run_free(&r);
	RUN(&r, "search", zb5, "--seed-schedule", s8, "--time-limit", "1", "--json");
	assert_failed_json(&r, mb);
	run_free(&r);
	RUN(&r, "convert", s8, tmp("mismatch.svg"), "--instance", zb5);
	assert_failed(&r, mb);
	assert_false(file_exists(tmp("mismatch.svg")));
	run_free(&r);
	RUN(&r, "exec", zb5, "--schedule", s8);
	assert_failed(&r, mb);
	run_free(&r);

	/* the other mismatches, each named: devices, stages, split backward */
	static const struct {
		const char *inst, *needle;
	} other[] = {
		{TINY, "the schedule has 4 device rows, the instance 2 devices"},
		{"datasets/instances/interleaved-4x2.json", "the schedule has 4 stages, the instance 8"},
		{FUSED, "the schedule has W ops, the instance fuses the backward"},
	};
	for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
		RUN(&r, "solve", other[i].inst, "--start", s8);
		assert_failed(&r, NEEDLES("s8.json' does not match instance", other[i].needle));
		run_free(&r);
	}
	RUN(&r, "generate", "1f1b", FUSED, "-o", tmp("f8.json"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	RUN(&r, "search", ZB, "--seed-schedule", tmp("f8.json"), "--time-limit", "1");
	assert_failed(&r, NEEDLES("the schedule has no W ops, the instance splits the backward"));
	run_free(&r);
}

static void test_malformed_schedule_json(void **state)
{
	struct run r;
	const char *path = tmp("malformed.json");
	write_file(path, "{\"schedule\": [\n"
			 "  [[\"F\",0,0],[\"F\",0,1]],\n"
			 "  [[\"F\",1,0] [\"B\",1,0]]\n"
			 "]}\n");
	RUN(&r, "simulate", TINY, "--schedule", path);
	assert_failed(&r, NEEDLES(path, "line 3", "column"));
	run_free(&r);
	RUN(&r, "convert", path, tmp("malformed.csv"));
	assert_failed(&r, NEEDLES(path, "line 3", "column"));
	assert_false(file_exists(tmp("malformed.csv")));
	run_free(&r);

	/* well-formed JSON, wrong shape: the place is named */
	write_file(path, "{\"schedule\": [[[\"F\",0,0],[\"X\",0,1]]]}");
	RUN(&r, "simulate", TINY, "--schedule", path);
	assert_failed(&r, NEEDLES(path, "schedule[0][1]", "kind"));
	run_free(&r);
}

static void test_malformed_csv(void **state)
{
	struct run r;
	const char *path = tmp("malformed.csv");
	/* line 2, second cell: unknown type X */
	write_file(path, "0F0,0F1,0I0,0W0,0I1,0W1\n1F0,1X0,1F1\n");
	RUN(&r, "simulate", TINY, "--schedule", path);
	assert_failed(&r, NEEDLES(path, "line 2, column 2", "1X0"));
	run_free(&r);
	RUN(&r, "convert", path, tmp("malformed-out.json"));
	assert_failed(&r, NEEDLES(path, "line 2, column 2"));
	assert_false(file_exists(tmp("malformed-out.json")));
	run_free(&r);
	/* line 1, third cell: no stage number */
	write_file(path, "0F0,0F1,F0\n");
	RUN(&r, "simulate", TINY, "--schedule", path);
	assert_failed(&r, NEEDLES(path, "line 1, column 3"));
	run_free(&r);
	/* a full B is B then W, so W(1,0) again on line 2 */
	write_file(path, "0F0,0I0,0W0\n1F0,1B0,1W0\n");
	RUN(&r, "simulate", TINY, "--schedule", path);
	assert_failed(&r, NEEDLES(path, "line 2, column 3", "W(1,0)"));
	run_free(&r);
}

/* ---- no partial output ------------------------------------------------------ */

/* A fresh, empty subdirectory of the temp directory. */
static const char *fresh_dir(const char *name)
{
	const char *dir = tmp(name);
	assert_int_equal(mkdir(dir, 0700), 0);
	return dir;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_generate_no_partial_output(void **state)
{
	struct run r;
	char out[PATH_MAX];
	const char *dir = fresh_dir("partial");
	snprintf(out, sizeof out, "%s/out.json", dir);

	/* a family that refuses the instance */
	RUN(&r, "generate", "gpipe", DAG, "-o", out);
	assert_failed(&r, NEEDLES("gpipe", "does not support"));
	run_free(&r);
	/* a schedule over the memory limit */
	RUN(&r, "generate", "gpipe", FUSED_LIM, "-o", out);
	assert_failed(&r, NEEDLES("gpipe", "device 0", "F(0,4)", "memory"));
	run_free(&r);
	/* an unknown family */
	RUN(&r, "generate", "zigzag", FUSED, "-o", out);
	assert_failed(&r, NEEDLES("zigzag", "gpipe", "1f1b"));
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);

	/* a directory that does not exist */
	char missing[PATH_MAX];
	snprintf(missing, sizeof missing, "%s/no-such-dir/out.json", dir);
	RUN(&r, "generate", "1f1b", FUSED, "-o", missing);
	assert_failed(&r, NEEDLES(missing));
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);

	/* the output path is a directory: the temp file can be written, the
	 * rename cannot, and the temp file must go */
	char sub[PATH_MAX];
	snprintf(sub, sizeof sub, "%s/taken", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	RUN(&r, "generate", "1f1b", FUSED, "-o", sub);
	assert_failed(&r, NEEDLES(sub));
	run_free(&r);
	assert_int_equal(count_entries(dir), 1);   /* only "taken" */
	assert_int_equal(count_entries(sub), 0);
	assert_int_equal(dir_count(dir, ".tmp."), 0);

	/* and a successful write leaves only the file */
	RUN(&r, "generate", "1f1b", FUSED, "-o", out);
	assert_int_equal(r.status, 0);
	run_free(&r);
	assert_int_equal(count_entries(dir), 2);
	assert_true(file_exists(out));
	assert_int_equal(dir_count(dir, ".tmp."), 0);
}

static void test_simulate_output(void **state)
{
	struct run r;
	const char *dir = fresh_dir("simout");
	char out[PATH_MAX];
	snprintf(out, sizeof out, "%s/no-such-dir/x.svg", dir);
	RUN(&r, "simulate", FUSED, "--family", "1f1b", "-o", out);
	assert_failed(&r, NEEDLES(out));
	run_free(&r);
	RUN(&r, "simulate", FUSED, "--family", "1f1b", "-o", out, "--json");
	assert_failed_json(&r, NEEDLES(out));
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);

	snprintf(out, sizeof out, "%s/x.csv", dir);
	RUN(&r, "simulate", FUSED, "--family", "1f1b", "-o", out, "--json");
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *csv = read_ok(out);
	assert_contains(csv, "\n,,,3F0,3B0,3F1,3B1,");
	free(csv);
	assert_int_equal(dir_count(dir, ".tmp."), 0);
}

/* ---- usage ------------------------------------------------------------------- */

static void test_usage_errors(void **state)
{
	struct run r;
	static const char *const cases[][8] = {
		{"frobnicate"},
		{"simulate", "--family", "1f1b"},          /* no instance */
		{"simulate", FUSED},                        /* neither source */
		{"simulate", FUSED, "--family", "1f1b", "--schedule", "x.json"},
		{"simulate", FUSED, FUSED, "--family", "1f1b"},
		{"simulate", FUSED, "--family", "1f1b", "--format", "svg"},
		{"simulate", FUSED, "--family", "1f1b", "--width", "5"},
		{"generate", "1f1b"},                       /* no instance */
		{"generate", "1f1b", FUSED, "--format", "pdf"},
		{"convert", "x.json"},                      /* no OUT */
		{"convert", "x.json", "y.json", "--to", "pdf"},
		{"bound"},                                  /* no instance */
		{"bound", FUSED, FUSED},
		{"families", FUSED, FUSED},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int n = 0;
		while (n < 8 && cases[i][n])
			n++;
		const char *args[9] = {0};
		memcpy(args, cases[i], n * sizeof *args);
		print_message("case %zu: %s %s\n", i, args[0], args[1] ? args[1] : "");
		run_argv(&r, args);
		assert_usage(&r);
		run_free(&r);
	}
}

/* No arguments at all is a usage error too: one line, not the whole usage
 * text. */
static void test_usage_no_args(void **state)
{
	struct run r;
	run_argv(&r, (const char *const[]){NULL});
	assert_usage(&r);
	run_free(&r);
}

/* Unknown options and options missing their value: getopt_long's own
 * diagnostic must not add a second line to cli_usage's (opterr = 0). */
static void test_usage_unknown_option(void **state)
{
	struct run r;
	static const char *const cases[][6] = {
		{"simulate", FUSED, "--family", "1f1b", "--bogus"},
		{"simulate", FUSED, "--family"},   /* missing argument */
		{"generate", "1f1b", FUSED, "--bogus"},
		{"convert", "a.json", "b.json", "--bogus"},
		{"bound", FUSED, "--bogus"},
		{"families", "--bogus"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int n = 0;
		while (n < 6 && cases[i][n])
			n++;
		const char *args[7] = {0};
		memcpy(args, cases[i], n * sizeof *args);
		print_message("case %zu: %s\n", i, args[0]);
		run_argv(&r, args);
		assert_usage(&r);
		run_free(&r);
	}
}

/* README.md's option tables are exactly `pipeopt help --options` (the
 * method table's own markdown), so a changed option cannot leave them
 * stale; and every method and shared option is in them. */
/* The exported model is the one behind the certificate: its header names
 * the instance's SHA-256 (the certificate's) and the formulation solve
 * reports, and its column map lists exactly the model's columns. */
static void test_solve_export_is_the_certified_model(void **state)
{
	static const char *const forms[] = {"time-indexed", "disjunctive"};
	for (int k = 0; k < 2; k++) {
		struct run r;
		RUN(&r, "solve", TINY, "--always-milp", "--formulation", forms[k], "--write-lp",
		    tmp("c.lp"), "--json");
		assert_int_equal(r.status, 0);
		json_t *j = parse_json(r.out);
		assert_string_equal(get_str(j, "formulation"), forms[k]);
		const char *sha = get_str(get(j, "certificate"), "instance_sha256");
		FILE *f = fopen(tmp("c.lp"), "r");
		assert_non_null(f);
		char line[512], want[256];
		assert_non_null(fgets(line, sizeof line, f));
		snprintf(want, sizeof want, "sha256 %s", sha);
		assert_contains(line, want);
		assert_non_null(fgets(line, sizeof line, f));
		snprintf(want, sizeof want, "formulation %s,", forms[k]);
		assert_contains(line, want);
		fclose(f);
		json_error_t e;
		json_t *map = json_load_file(tmp("c.lp.map.json"), 0, &e);
		assert_non_null(map);
		assert_string_equal(get_str(map, "instance_sha256"), sha);
		assert_int_equal((json_int_t)json_array_size(get(map, "columns")), get_int(j, "columns"));
		/* 2 devices x 2 micro-batches x F, B, W: 12 ops, each listed */
		assert_int_equal(json_array_size(get(map, "ops")), 12);
		const char *first = json_string_value(json_array_get(get(map, "columns"), 0));
		assert_int_equal(first[0], k == 0 ? 'x' : 'E');
		json_decref(map);
		json_decref(j);
		run_free(&r);
	}
}

static void test_readme_options_current(void **state)
{
	struct run r;
	RUN(&r, "help", "--options");
	assert_int_equal(r.status, 0);
	FILE *f = fopen(PIPEOPT_SOURCE_DIR "/README.md", "r");
	assert_non_null(f);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = 0;
	const char *begin = strstr(text, "<!-- options:begin -->\n");
	const char *end = strstr(text, "<!-- options:end -->");
	assert_non_null(begin);
	assert_non_null(end);
	begin += strlen("<!-- options:begin -->\n");
	if ((size_t)(end - begin) != strlen(r.out) || strncmp(begin, r.out, (size_t)(end - begin)))
		fail_msg("README.md's option tables are stale: run scripts/readme-options.sh");
	static const char *const must[] = {"`--threads N`", "`--time-limit S`", "`--json`",
		"`-o, --output FILE`", "`--[no-]progress`", "`--[no-]timeline`", "`--width N`",
		"`solve`", "`search`", "`partition`", "`family`", "`--solver cbc\\|glpk`",
		"`--[no-]exact-seed`"};
	for (size_t i = 0; i < sizeof must / sizeof *must; i++)
		assert_contains(r.out, must[i]);
	run_free(&r);
}

/* A mistyped command, option or choice names the closest one. */
static void test_did_you_mean(void **state)
{
	struct run r;
	RUN(&r, "slove", FUSED);
	assert_usage(&r);
	assert_contains(r.err, "did you mean 'solve'");
	run_free(&r);
	RUN(&r, "solve", FUSED, "--time-limt", "3");
	assert_usage(&r);
	assert_contains(r.err, "did you mean '--time-limit'");
	run_free(&r);
	RUN(&r, "solve", FUSED, "--solver", "glkp");
	assert_usage(&r);
	assert_contains(r.err, "did you mean 'glpk'");
	run_free(&r);
	RUN(&r, "search", FUSED, "--no-exact-sed");
	assert_usage(&r);
	assert_contains(r.err, "did you mean '--no-exact-seed'");
	run_free(&r);
}

static void test_help(void **state)
{
	static const char *const cmds[] = {"simulate", "generate", "convert",
					   "bound", "families"};
	struct run r;
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		RUN(&r, cmds[i], "--help");
		assert_int_equal(r.status, 0);
		assert_contains(r.out, "usage:");
		assert_contains(r.out, cmds[i]);
		run_free(&r);
		RUN(&r, "help", cmds[i]);
		assert_int_equal(r.status, 0);
		assert_contains(r.out, "usage:");
		run_free(&r);
	}
	RUN(&r, "--help");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "usage:");
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		assert_contains(r.out, cmds[i]);
	run_free(&r);
}

/* ---- setup -------------------------------------------------------------------- */

static int group_setup(void **state)
{
	if (chdir(PIPEOPT_SOURCE_DIR))
		return -1;
	return tmpdir_make(tmpdir, sizeof tmpdir, "pipeopt-cli");
}

static int group_teardown(void **state)
{
	return tmpdir_remove(tmpdir);
}

/* ---- the schedule language through the CLI ------------------------------ */

/* A family named by its program file gives the same schedule as by name. */
static void test_generate_program_file(void **state)
{
	struct run a, b;
	RUN(&a, "generate", "1f1b", ZB);
	RUN(&b, "generate", "datasets/schedules/1f1b.sched", ZB);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_string_equal(a.out, b.out);
	run_free(&a);
	run_free(&b);
}

/* A user program: errors carry file, line and column; a valid one runs. */
static void test_program_file_errors(void **state)
{
	struct run r;
	write_file(tmp("bad.sched"), "# a comment\nrepeat m {\n  F B W\n");
	RUN(&r, "simulate", TINY, "--family", tmp("bad.sched"));
	assert_failed(&r, NEEDLES("bad.sched", "line 4, column 1", "'}'"));
	run_free(&r);

	write_file(tmp("neg.sched"), "repeat m - 5 { F }\n");
	RUN(&r, "generate", tmp("neg.sched"), TINY);
	assert_failed(&r, NEEDLES("neg.sched", "line 1, column 1", "device 0", "negative"));
	run_free(&r);

	/* A valid program whose orders are not a schedule: only forwards. The
	 * simulator names the first missing op in op order, B(0,0). (On the
	 * bundled example 8 forwards hold 16, within the limit 16.) */
	write_file(tmp("fwd.sched"), "repeat m { F }\n");
	RUN(&r, "simulate", ZB, "--family", tmp("fwd.sched"));
	assert_failed(&r, NEEDLES("fwd.sched", "missing op", "B(0,0)"));
	run_free(&r);

	/* Micro-batches one after the other: F B W in turn on both devices.
	 * With F=2, B=3, W=1, comm 1 (tiny-split-2x2), micro-batch 0 runs
	 * F(0,0) [0,2], F(1,0) [3,5], B(1,0) [5,8], W(1,0) [8,9],
	 * B(0,0) [9,12], W(0,0) [12,13]; micro-batch 1 starts F(0,1) at 13
	 * and repeats the same 13-long pattern: makespan 26. */
	write_file(tmp("seq.sched"), "repeat m { F B W }\n");
	RUN(&r, "simulate", TINY, "--family", tmp("seq.sched"), "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "makespan"), 26);
	json_decref(j);
	run_free(&r);
}

/* All families are listed, in the documented order. */
static void test_families_all_listed(void **state)
{
	static const char *const want[] = {
		"gpipe", "1f1b", "interleaved", "looped-bfs", "zb-h1", "zb-h2",
		"zb-v", "v-half", "v-min", "dualpipev", "dualpipe", "bitpipe", "hanayo", "torch-interleaved-zb",
		"1f1b-dag", "zb-auto", "zb-warm", "backward-first"};
	struct run r;
	RUN(&r, "families", "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out), *fams = get(j, "families");
	assert_int_equal(json_array_size(fams), sizeof want / sizeof *want);
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		assert_string_equal(get_str(json_array_get(fams, i), "name"), want[i]);
	json_decref(j);
	run_free(&r);
}

/* zb-auto meets the hand-computed lower bound on the bundled example:
 * (p-1)(F+c) + m(F+B) + max((p-1)(B+c) + W, mW) = 57369 + 292864 + 74696
 * = 424929, so it is certified optimal. */
/* The certificate files of datasets/ga/zb-gpt/certified re-check from the
 * files alone: each schedule, re-simulated, has the certificate's stated
 * objective and meets the lower bound. Nothing is pinned to a number the
 * code once printed: the agreement of the simulator, the bound and the
 * file is the check (a bound that drops, a simulator that times a
 * schedule differently or a stale file fails it). */
static void test_zb_gpt_2p_certificates(void **state)
{
	static const char *const names[] = {"zb-gpt-1.5b-p8-m24-2p", "zb-gpt-1.5b-p8-m32-2p",
					    "zb-gpt-1.5b-p8-m64-2p", "zb-gpt-6.2b-p8-m24-2p"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char inst[512], cert[512];
		snprintf(inst, sizeof inst, PIPEOPT_SOURCE_DIR "/datasets/ga/zb-gpt/%s.json", names[i]);
		snprintf(cert, sizeof cert, PIPEOPT_SOURCE_DIR "/datasets/ga/zb-gpt/certified/%s.cert.json",
			 names[i]);
		json_t *c = json_load_file(cert, 0, NULL);
		assert_non_null(c);
		assert_true(json_is_true(get(c, "certified")));
		int64_t stated = get_int(c, "objective");
		json_decref(c);
		struct run r;
		RUN(&r, "simulate", inst, "--schedule", cert, "--json");
		assert_int_equal(r.status, 0);
		json_t *j = parse_json(r.out);
		assert_int_equal(get_int(j, "span"), stated);
		assert_int_equal(get_int(j, "lower_bound"), stated);
		assert_true(json_is_true(get(j, "certified")));
		json_decref(j);
		run_free(&r);
	}
}

/* zb-warm on every 2p instance of Zero Bubble's GPT set: re-simulated,
 * its span meets the lower bound, so each is certified by the family
 * alone. Neither number is zb-warm's own: the span is the simulator's,
 * the bound sched/bound.c's (brute-forced in test_bound.c); zb-auto's
 * warm-up leaves eleven of the twelve 0.03-0.35 % above it. */
static void test_zb_warm_certifies_2p(void **state)
{
	static const char *const names[] = {
		"1.5b-p8-m24", "1.5b-p8-m32", "1.5b-p8-m64", "6.2b-p8-m24", "6.2b-p8-m32",
		"6.2b-p8-m64", "14.6b-p16-m48", "14.6b-p16-m64", "14.6b-p16-m128",
		"28.3b-p32-m96", "28.3b-p32-m128", "28.3b-p32-m256"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char inst[512];
		snprintf(inst, sizeof inst, PIPEOPT_SOURCE_DIR "/datasets/ga/zb-gpt/zb-gpt-%s-2p.json",
			 names[i]);
		struct run r;
		RUN(&r, "simulate", inst, "--family", "zb-warm", "--json");
		assert_int_equal(r.status, 0);
		json_t *j = parse_json(r.out);
		if (get_int(j, "span") != get_int(j, "lower_bound"))
			fail_msg("zb-warm on %s: span %lld, lower bound %lld", names[i],
				 (long long)get_int(j, "span"), (long long)get_int(j, "lower_bound"));
		assert_true(json_is_true(get(j, "certified")));
		json_decref(j);
		run_free(&r);
	}
}

static void test_zb_auto_certified(void **state)
{
	struct run r;
	RUN(&r, "simulate", ZB, "--family", "zb-auto", "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "makespan"), 424929);
	assert_int_equal(get_int(j, "lower_bound"), 424929);
	assert_string_equal(get_str(j, "status"), "optimal");
	assert_true(json_is_true(get(j, "certified")));
	json_decref(j);
	run_free(&r);
}

/* ---- pipeopt solve -------------------------------------------------------- */

#include "brute.h"

/* Run a command line through the shell (for glpsol/cbc re-checks). */
static bool have_program(const char *name)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "command -v %s > /dev/null 2>&1", name);
	return system(cmd) == 0;
}

/* The fused example meets its bound (m+p-1)(F+B) = 88: certified by the
 * bound, no MILP, with a certificate naming the instance by its digest. */
/* The GA start: p 4, m 16, fused, F 1, B 2, comm 2, 5 activations per
 * device. Device 0 can start the forward of micro-batch j + 5 only once the
 * backward of j has freed its memory, and that round trip takes at least
 * 4F + 4B + 6c = 24; so F(0,15) starts at 3 x 24 = 72 at the earliest and
 * B(0,15) ends at 72 + 24 = 96 or later: the bound is 96. Every family
 * stays above it (zb-auto 102); the GA start reaches it, so solve
 * certifies 96 by the bound at once and names the GA as the schedule's
 * source. */
static void test_solve_ga_start(void **state)
{
	struct run r;
	write_file(tmp("f2p.json"),
		   "{\"devices\":4,\"microbatches\":16,\"cost\":{\"F\":1,\"B\":2},\"comm\":2,"
		   "\"memory\":{\"F\":2,\"B\":-2,\"limit\":10}}");
	RUN(&r, "solve", tmp("f2p.json"), "--time-limit", "60", "--json");   /* GA start: 1000 generations, capped at 2 s */
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "objective"), 96);
	assert_int_equal(get_int(j, "lower_bound"), 96);
	assert_string_equal(get_str(j, "certified_by"), "bound");
	assert_string_equal(get_str(get(j, "heuristic"), "family"), "ga");
	json_decref(j);
	run_free(&r);
	RUN(&r, "solve", tmp("f2p.json"), "--no-ga-start", "--time-limit", "1", "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_string_not_equal(get_str(get(j, "heuristic"), "family"), "ga");
	assert_true(get_int(get(j, "heuristic"), "objective") > 96);
	json_decref(j);
	run_free(&r);
	(void)state;
}

/* Start argv (PIPEOPT_BIN first) with stdout into out_path, wait `after`
 * seconds, send sig; the exit status and the seconds from the signal to
 * the exit. */
static int run_interrupted(const char *const *argv, const char *out_path, double after, int sig,
			   double *waited)
{
	pid_t pid = run_start(argv, out_path);
	usleep((useconds_t)(after * 1e6));
	return run_signal(pid, sig, waited);
}

/* The interrupted command's JSON on stdout: exit 130, stopped_by
 * "interrupt", and its -o schedule valid under the simulator with the
 * objective it reports. */
static void check_interrupted(int ws, double waited, const char *out_path,
			      const char *instance, const char *schedule)
{
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 130)
		fail_msg("status %d after the signal, expected exit 130", ws);
	if (waited > 5)
		fail_msg("%.1f s from the signal to the exit", waited);
	char *text = slurp(out_path, NULL);
	json_t *j = parse_json(text);
	free(text);
	assert_string_equal(get_str(j, "stopped_by"), "interrupt");
	long long obj = get_int(j, "objective");
	json_decref(j);
	struct run r;
	RUN(&r, "simulate", instance, "--schedule", schedule, "--json");
	if (r.status)
		fail_msg("the -o schedule does not simulate: %s", r.err);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "objective"), obj);
	json_decref(j);
	run_free(&r);
}

/* SIGINT and SIGTERM to search and solve mid-run (a hard instance, a
 * long limit): each stops within seconds with its best schedule on stdout
 * and in the -o file. */
static void test_interrupt_search_and_solve(void **state)
{
	const char *hard = tmp("hard.json");
	/* open after a minute (181/180 at 60 s, and after 15 min of the
	 * shaving search at 180; the fused p8 m24 and split p8 m32 tried
	 * before are now certified in seconds, by the shaving bound) */
	write_file(hard, "{\"devices\":8,\"microbatches\":32,\"cost\":{\"F\":1,\"B\":2},\"comm\":1,"
			 "\"memory\":{\"F\":2,\"B\":-2,\"limit\":16}}");
	double waited;
	int ws = run_interrupted((const char *const[]){PIPEOPT_BIN, "search", hard, "--time-limit",
				  "120", "--json", "-o", tmp("int-search.json"), NULL},
				 tmp("int-search.out"), 1.5, SIGINT, &waited);
	check_interrupted(ws, waited, tmp("int-search.out"), hard, tmp("int-search.json"));
	ws = run_interrupted((const char *const[]){PIPEOPT_BIN, "solve", hard, "--time-limit",
			      "120", "--json", "-o", tmp("int-solve.json"), NULL},
			     tmp("int-solve.out"), 3, SIGINT, &waited);
	check_interrupted(ws, waited, tmp("int-solve.out"), hard, tmp("int-solve.json"));
	ws = run_interrupted((const char *const[]){PIPEOPT_BIN, "solve", hard, "--time-limit",
			      "120", "--json", "-o", tmp("term-solve.json"), NULL},
			     tmp("term-solve.out"), 1, SIGTERM, &waited);
	check_interrupted(ws, waited, tmp("term-solve.out"), hard, tmp("term-solve.json"));
	(void)state;
}

static void test_solve_certified_by_bound(void **state)
{
	struct run r;
	RUN(&r, "solve", FUSED, "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out), *c = get(j, "certificate");
	assert_int_equal(get_int(j, "objective"), 88);
	assert_string_equal(get_str(j, "status"), "optimal");
	assert_true(json_is_true(get(j, "certified")));
	assert_string_equal(get_str(j, "certified_by"), "bound");
	assert_int_equal(strlen(get_str(c, "instance_sha256")), 64);
	assert_true(json_is_true(get(c, "certified")));
	json_decref(j);
	run_free(&r);
	/* no MILP solved: an export asked for is not written, and stderr says so */
	const char *lp = tmp("by-bound.lp");
	remove(lp);
	RUN(&r, "solve", FUSED, "--write-lp", lp);
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "no MILP was solved (certified without one)");
	assert_false(file_exists(lp));
	run_free(&r);
}

/* A decision end to end (recompute, offload): solve certifies `opt` on
 * the bundled instance and counts the decisions under `count_key`; the
 * schedule re-simulates to it with `sim_needle` in the output; its Chrome
 * trace holds `trace_needle`; torch CSV is refused with `csv_error` and no
 * file is left. */
struct decision_case {
	const char *instance, *tag;
	int64_t opt;
	const char *certified_by;   /* NULL: any */
	const char *count_key, *sim_needle, *trace_needle, *csv_error;
};

static void check_decision_end_to_end(const struct decision_case *c)
{
	char out[64], trace_path[64], csv[64], sim_want[32];
	snprintf(out, sizeof out, "%s.json", c->tag);
	snprintf(trace_path, sizeof trace_path, "%s.trace.json", c->tag);
	snprintf(csv, sizeof csv, "%s.csv", c->tag);
	snprintf(sim_want, sizeof sim_want, "makespan    %lld", (long long)c->opt);
	struct run r;
	RUN(&r, "solve", c->instance, "--json", "-o", tmp(out));
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "objective"), c->opt);
	assert_string_equal(get_str(j, "status"), "optimal");
	if (c->certified_by)
		assert_string_equal(get_str(j, "certified_by"), c->certified_by);
	assert_true(get_int(j, c->count_key) > 0);
	json_decref(j);
	run_free(&r);
	RUN(&r, "simulate", c->instance, "--schedule", tmp(out));
	assert_int_equal(r.status, 0);
	assert_contains(r.out, sim_want);
	assert_contains(r.out, c->sim_needle);
	run_free(&r);
	RUN(&r, "convert", tmp(out), tmp(trace_path), "--instance", c->instance);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *trace = slurp(tmp(trace_path), NULL);
	assert_non_null(trace);
	assert_contains(trace, c->trace_needle);
	free(trace);
	RUN(&r, "convert", tmp(out), tmp(csv), "--instance", c->instance);
	assert_failed(&r, (const char *const[]){c->csv_error, NULL});
	assert_int_equal(access(tmp(csv), F_OK), -1);
	run_free(&r);
}

/* Recomputation on datasets/instances/recompute-3x4.json: solve certifies
 * 23 through the exact search (tests/ref/recompute_dp.py, an independent
 * search over every order and mark, gives 23, and 29 where recomputing
 * gains nothing); the trace names a recomputed B's recompute time (R = 1). */
static void test_solve_recompute(void **state)
{
	check_decision_end_to_end(&(struct decision_case){
		"datasets/instances/recompute-3x4.json", "rc", 23, "search", "recomputed",
		"recomputed  ",
		"\"recompute\":1", "torch CSV has no action for a recomputed backward"});
}

/* Offload on datasets/instances/offload-3x4.json: 22 is the optimum of the
 * same chain with no memory limit at all (its critical path and loads: 3
 * devices, 4 micro-batches, F 1, B 2, comm 1), so no schedule under the
 * limit does better, and solve finds one at 22 by offloading (29 without
 * the key: every family stays at or above it); the bound says 22; the
 * timeline has a copy line and the trace a thread for the copies. */
static void test_solve_offload(void **state)
{
	check_decision_end_to_end(&(struct decision_case){
		"datasets/instances/offload-3x4.json", "off", 22, NULL, "offloaded", "    copy|",
		"device 0 copy", "torch CSV has no action for an offload"});
	struct run r;
	RUN(&r, "bound", "datasets/instances/offload-3x4.json");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "lower bound    22");
	run_free(&r);
}

/* The MILP path on the tiny instance: the certified optimum equals the
 * brute-force optimum, with both solvers; the exported LP and MPS models,
 * solved by the glpsol and cbc programs, give the same optimum. */
static void test_solve_milp_matches_brute_force(void **state)
{
	struct instance *in = NULL;
	struct error err;
	assert_int_equal(instance_read(TINY, &in, &err), STATUS_OK);
	int64_t opt = brute_optimum(in, NULL);
	instance_free(in);
	static const char *const solvers[] = {"cbc", "glpk"};
	for (int s = 0; s < 2; s++) {
		struct run r;
		RUN(&r, "solve", TINY, "--solver", solvers[s], "--always-milp",
		    "--write-lp", tmp("t.lp"), "--write-mps", tmp("t.mps"), "--json");
		assert_int_equal(r.status, 0);
		json_t *j = parse_json(r.out);
		assert_int_equal(get_int(j, "objective"), opt);
		assert_true(json_is_true(get(j, "certified")));
		assert_string_equal(get_str(j, "certified_by"), "solver");
		assert_string_equal(get_str(j, "solver"), solvers[s]);
		json_decref(j);
		run_free(&r);
	}
	char cmd[1024], line[256];
	bool found = false;
	if (have_program("glpsol")) {
		snprintf(cmd, sizeof cmd, "glpsol --lp %s -o %s > /dev/null && grep 'Objective' %s",
			 tmp("t.lp"), tmp("glp.out"), tmp("glp.out"));
		FILE *p = popen(cmd, "r");
		while (p && fgets(line, sizeof line, p)) {
			long long v;
			if (sscanf(line, " Objective: obj = %lld", &v) == 1) {
				assert_int_equal(v, opt);
				found = true;
			}
		}
		if (p)
			pclose(p);
		assert_true(found);
	}
	if (have_program("cbc")) {
		found = false;
		snprintf(cmd, sizeof cmd, "cbc %s solve 2>&1 | grep 'Objective value'", tmp("t.mps"));
		FILE *p = popen(cmd, "r");
		while (p && fgets(line, sizeof line, p)) {
			double v;
			if (sscanf(line, "Objective value: %lf", &v) == 1) {
				assert_int_equal((long long)(v + 0.5), opt);
				found = true;
			}
		}
		if (p)
			pclose(p);
		assert_true(found);
	}
}

/* --progress shows the solve's incumbent and bound, not a pass's: on an
 * instance whose bound (64) is below its optimum, the MILP's time-indexed
 * targets answer "infeasible" (a pass's bound of inf) before the
 * optimum is found; every line is a finite incumbent and bound with the
 * bound below or at the incumbent, the incumbent never rises, the bound
 * never falls, and the last line is the result's. */
static void test_solve_progress_is_the_solves(void **state)
{
	write_file(tmp("progress.json"),
		   "{\"name\": \"progress\", \"devices\": 3, \"microbatches\": 6, "
		   "\"cost\": {\"F\": 2, \"B\": 4}, \"comm\": 2, "
		   "\"memory\": {\"F\": 2, \"B\": -2, \"limit\": 6}}");
	static const char *const solvers[] = {"cbc", "glpk"};
	for (int s = 0; s < 2; s++) {
		struct run r;
		RUN(&r, "solve", tmp("progress.json"), "--solver", solvers[s], "--always-milp",
		    "--progress", "--json");
		assert_int_equal(r.status, 0);
		json_t *j = parse_json(r.out);
		long long objective = get_int(j, "objective"), bound = get_int(j, "bound");
		json_decref(j);
		assert_null(strstr(r.err, "inf"));
		assert_null(strstr(r.err, "e+"));
		double inc = INFINITY, lb = -INFINITY, last_inc = NAN, last_lb = NAN;
		int lines = 0;
		for (char *p = strstr(r.err, "incumbent"); p; p = strstr(p + 1, "incumbent")) {
			double a, b;
			assert_int_equal(sscanf(p, "incumbent %lf, bound %lf", &a, &b), 2);
			assert_true(b <= a);
			assert_true(a <= inc);
			assert_true(b >= lb);
			inc = last_inc = a;
			lb = last_lb = b;
			lines++;
		}
		assert_true(lines >= 2);
		assert_true(last_inc == (double)objective);
		assert_true(last_lb == (double)bound);
		run_free(&r);
	}
}

/* An output path that is a named pipe (or /dev/null) is written in place,
 * not replaced by a regular file: the atomic rename of a normal output
 * would replace it (as root, /dev/null itself). The schedule (-o) and the
 * exported model (--write-lp) arrive through the pipe, which stays a pipe;
 * the model comes without its column map (no pipe.lp.map.json beside). */
static void test_output_to_a_pipe_stays_a_pipe(void **state)
{
	static const char *const flags[] = {"-o", "--write-lp"};
	for (int k = 0; k < 2; k++) {
		const char *fifo = tmp(k ? "pipe.lp" : "pipe.json");
		unlink(fifo);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		int fd = open(fifo, O_RDONLY | O_NONBLOCK);   /* the reader, first */
		assert_true(fd >= 0);
		struct run r;
		RUN(&r, "solve", TINY, "--always-milp", "--json", flags[k], fifo);
		assert_int_equal(r.status, 0);
		struct stat st;
		assert_int_equal(stat(fifo, &st), 0);
		assert_true(S_ISFIFO(st.st_mode));
		char buf[4096];
		ssize_t n = read(fd, buf, sizeof buf - 1);
		assert_true(n > 0);
		buf[n] = 0;
		assert_non_null(strstr(buf, k ? "Minimize" : "\"schedule\""));
		if (k) {   /* the model alone: no column map beside a pipe */
			char map[4096];
			snprintf(map, sizeof map, "%s.map.json", fifo);
			assert_int_equal(access(map, F_OK), -1);
			assert_non_null(strstr(buf, "columns: no map"));
		}
		close(fd);
		unlink(fifo);
		run_free(&r);
	}
}

/* Never a certificate above a known schedule. Found by
 * bench/crosscheck.py: on this interleaved instance the time-indexed
 * targets, forced (--always-milp), certified 112 where the schedule below
 * has makespan 107. The target at 106, a feasibility question, was
 * stopped by the time limit after its root cuts, and CBC's "best
 * possible" was that of the random objective it makes up for such
 * questions (150.09), taken as a bound. The schedule's 107 is the
 * simulator's; whatever the solve proves in 10 s must lie at or below it. */
static void test_no_certificate_above_a_known_schedule(void **state)
{
	write_file(tmp("x13-64.json"),
		   "{\"name\": \"x13-64\", \"devices\": 3, \"microbatches\": 4, "
		   "\"cost\": {\"F\": [3, 3, 4, 4, 2, 3], \"B\": [2, 3, 2, 3, 2, 3], "
		   "\"W\": [4, 2, 3, 5, 3, 4]}, \"comm\": 2, \"chunks\": 2, "
		   "\"placement\": \"interleaved\", "
		   "\"memory\": {\"F\": 2, \"B\": -1, \"W\": -1, \"limit\": 10}}");
	write_file(tmp("x13-64-107.json"),
		   "{\"schedule\":["
		   "[[\"F\",0,0],[\"F\",0,1],[\"F\",0,2],[\"F\",3,0],[\"F\",3,1],[\"B\",3,0],[\"W\",3,0],[\"F\",0,3],[\"B\",3,1],[\"W\",3,1],[\"F\",3,2],[\"B\",0,0],[\"B\",0,1],[\"F\",3,3],[\"W\",0,0],[\"W\",0,1],[\"B\",3,2],[\"W\",3,2],[\"B\",3,3],[\"W\",3,3],[\"B\",0,2],[\"W\",0,2],[\"B\",0,3],[\"W\",0,3]],"
		   "[[\"F\",1,0],[\"F\",1,1],[\"F\",1,2],[\"F\",4,0],[\"F\",4,1],[\"B\",4,0],[\"W\",4,0],[\"B\",4,1],[\"W\",4,1],[\"B\",1,0],[\"F\",1,3],[\"W\",1,0],[\"B\",1,1],[\"W\",1,1],[\"F\",4,2],[\"F\",4,3],[\"B\",4,2],[\"W\",4,2],[\"B\",4,3],[\"W\",4,3],[\"B\",1,2],[\"W\",1,2],[\"B\",1,3],[\"W\",1,3]],"
		   "[[\"F\",2,0],[\"F\",2,1],[\"F\",2,2],[\"F\",5,0],[\"B\",5,0],[\"F\",5,1],[\"B\",5,1],[\"W\",5,0],[\"W\",5,1],[\"B\",2,0],[\"W\",2,0],[\"B\",2,1],[\"W\",2,1],[\"F\",2,3],[\"F\",5,2],[\"B\",5,2],[\"F\",5,3],[\"B\",5,3],[\"W\",5,2],[\"B\",2,2],[\"W\",2,2],[\"B\",2,3],[\"W\",2,3],[\"W\",5,3]]"
		   "]}");
	struct run r;
	RUN(&r, "simulate", tmp("x13-64.json"), "--schedule", tmp("x13-64-107.json"), "--json",
	    "--no-timeline");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "makespan"), 107);
	json_decref(j);
	run_free(&r);
	RUN(&r, "solve", tmp("x13-64.json"), "--always-milp", "--formulation", "time-indexed",
	    "--time-limit", "10", "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_true(get_int(j, "bound") <= 107);
	if (json_is_true(get(j, "certified")))
		assert_int_equal(get_int(j, "objective"), 107);
	json_decref(j);
	run_free(&r);
}

/* --cross-check solves with both backends; they agree on the tiny case. */
static void test_solve_cross_check(void **state)
{
	struct run r;
	RUN(&r, "solve", TINY, "--always-milp", "--cross-check", "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_string_equal(get_str(get(j, "cross_check"), "result"), "agreed");
	assert_string_equal(get_str(get(get(j, "certificate"), "checks"), "cross_check"), "agreed");
	json_decref(j);
	run_free(&r);
}

/* A short time limit still returns a valid schedule and an honest status;
 * -o writes it. */
static void test_solve_time_limit_and_output(void **state)
{
	struct run r;
	RUN(&r, "solve", ZB, "--always-milp", "--time-limit", "0.2", "-o", tmp("zb-sol.json"),
	    "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	const char *st = get_str(j, "status");
	assert_true(!strcmp(st, "optimal") || !strcmp(st, "time_limit") || !strcmp(st, "feasible"));
	assert_true(get_int(j, "bound") <= get_int(j, "objective"));
	assert_true(get_int(j, "objective") <= 424929 || !strcmp(st, "time_limit"));
	json_decref(j);
	run_free(&r);
	RUN(&r, "simulate", ZB, "--schedule", tmp("zb-sol.json"), "--json");
	assert_int_equal(r.status, 0);
	run_free(&r);
}

static void test_solve_usage(void **state)
{
	struct run r;
	RUN(&r, "solve", TINY, "--solver", "gurobi");
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "solve", TINY, "--formulation", "magic");
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "solve", TINY, "--time-limit", "-3");
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "solve", "datasets/bad/malformed.json");
	assert_failed(&r, NEEDLES("malformed.json", "line"));
	run_free(&r);
}

/* ---- pipeopt search and search-validate ------------------------------------ */

#define ZB_SMALL "datasets/ga/zb-small/zb-small-p4-m8-unit-comm1-1p.json"

/* Zero Bubble's small case (p = 4, m = 8, unit costs, comm 1, 1p): the
 * research notes' CBC run proves 39 optimal and measures ZB's heuristic at
 * 41. The lower bound meets it by hand: load 24; device 0's first B waits
 * for the trip R = 4 F + 3 B + 6 comm = 13 while memory holds 4 forwards
 * (fill idle 9); after its last forward at least R + B + W = 15 pass while
 * F and at most 8 pending B and W run (drain idle 6): 24 + 9 + 6 = 39.
 * The family backward-first meets 39 itself, so the GA runs here without
 * the family seeds, from 1f1b's schedule (41) and the serial order. It,
 * stopped by generations (deterministic), lands between the
 * optimum and the best seed (test_ga checks how often it reaches 39), and
 * is optimal exactly when it reaches the bound. Every key of the result
 * is there, and the schedule re-simulates to the reported objective. */
static void test_search_zb_small(void **state)
{
	struct run r;
	RUN(&r, "simulate", ZB_SMALL, "--family", "1f1b", "-o", tmp("1f1b.json"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	RUN(&r, "search", ZB_SMALL, "--generations", "400", "--population", "32",
	    "--no-exact-seed", "--no-family-seeds", "--seed-schedule", tmp("1f1b.json"),
	    "--threads", "1", "--seed", "1", "-o", tmp("ga.json"), "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	json_int_t obj = get_int(j, "objective");
	assert_true(obj >= 39 && obj <= 41);
	assert_int_equal(get_int(j, "makespan"), obj);
	assert_int_equal(get_int(j, "lower_bound"), 39);
	assert_double_near(get_real(j, "gap"), (obj - 39.0) / obj, 1e-9);
	assert_string_equal(get_str(j, "status"), obj == 39 ? "optimal" : "feasible");
	assert_true(json_is_boolean(get(j, "certified")) &&
		    json_is_true(get(j, "certified")) == (obj == 39));
	assert_int_equal(get_int(get(j, "best_seed"), "objective"), 41);
	if (obj > 39) {   /* reaching the bound stops it early */
		assert_int_equal(get_int(j, "generations"), 400);
		assert_string_equal(get_str(j, "stopped_by"), "generations");
		assert_true(get_int(j, "evaluations") >= 400 * 28);
	}
	assert_true(get_real(j, "evaluations_per_second") > 0);
	assert_true(json_array_size(get(j, "seeds")) == 2);   /* the given 1f1b and the serial order */
	assert_true(strlen(get_str(j, "seed_from")) > 0);
	json_decref(j);
	run_free(&r);
	RUN(&r, "simulate", ZB_SMALL, "--schedule", tmp("ga.json"), "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "makespan"), obj);
	json_decref(j);
	run_free(&r);
}

/* With every seed, zb-small reaches its optimum 39 (the hand bound above
 * meets CBC's schedule in the research notes) and stops there, certified
 * by the bound; the schedule re-simulates to it. */
static void test_search_zb_small_certified(void **state)
{
	struct run r;
	/* generations, not time, stop it (one thread, no exact seed): the same
	 * run on any machine, fast or loaded, plain or under ASan */
	RUN(&r, "search", ZB_SMALL, "--threads", "1", "--no-exact-seed", "--generations", "20000",
	    "--time-limit", "600", "-o", tmp("ga39.json"), "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "objective"), 39);
	assert_int_equal(get_int(j, "lower_bound"), 39);
	assert_string_equal(get_str(j, "status"), "optimal");
	assert_true(json_is_true(get(j, "certified")));
	assert_string_equal(get_str(j, "stopped_by"), "gap");
	json_decref(j);
	run_free(&r);
	RUN(&r, "simulate", ZB_SMALL, "--schedule", tmp("ga39.json"), "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "makespan"), 39);
	json_decref(j);
	run_free(&r);
	(void)state;
}

/* Where a seed meets the lower bound the search stops at once, optimal by
 * the bound. */
static void test_search_stops_at_bound(void **state)
{
	struct run r;
	RUN(&r, "search", FUSED, "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_int_equal(get_int(j, "objective"), 88);   /* (m+p-1)(F+B) = 11 * 8 */
	assert_string_equal(get_str(j, "status"), "optimal");
	assert_true(json_is_true(get(j, "certified")));
	assert_string_equal(get_str(j, "certified_by"), "bound");
	assert_string_equal(get_str(j, "stopped_by"), "gap");
	assert_int_equal(get_int(j, "generations"), 0);
	json_decref(j);
	run_free(&r);
}

/* The same seed gives the same schedule, whatever the thread count. */
static void test_search_deterministic(void **state)
{
	struct run a, b;
	RUN(&a, "search", ZB, "--generations", "30", "--population", "16", "--threads", "1",
	    "--seed", "7", "--no-exact-seed", "--json");
	RUN(&b, "search", ZB, "--generations", "30", "--population", "16", "--threads", "2",
	    "--seed", "7", "--no-exact-seed", "--json");
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	json_t *x = parse_json(a.out), *y = parse_json(b.out);
	assert_true(json_equal(get(x, "schedule"), get(y, "schedule")));
	assert_int_equal(get_int(x, "objective"), get_int(y, "objective"));
	assert_int_equal(get_int(x, "evaluations"), get_int(y, "evaluations"));
	json_decref(x);
	json_decref(y);
	run_free(&a);
	run_free(&b);
}

/* The GA's local search (solvers/lns.h through ga_options.polish) on the
 * best seed: p8 m24, fused backward (F 1, B 2), room for 8 activations per
 * device, comm 1, where every family ends at 141 or later. The search
 * must end below the best seed, say that the local search did it, and
 * its schedule must re-simulate to its objective. The window bound below
 * 140 holds for every schedule, so the objective stays above it. */
static void test_search_local_search(void **state)
{
	write_file(tmp("p8m24.json"),
		   "{\"name\":\"p8-m24-fused\",\"devices\":8,\"microbatches\":24,"
		   "\"cost\":{\"F\":1,\"B\":2},\"comm\":1,"
		   "\"memory\":{\"F\":2,\"B\":-2,\"limit\":16}}");
	struct run r;
	RUN(&r, "search", tmp("p8m24.json"), "--time-limit", "6", "--threads", "1",
	    "--no-exact-seed", "-o", tmp("p8m24-ga.json"), "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	json_int_t obj = get_int(j, "objective"), seed = get_int(get(j, "best_seed"), "objective");
	assert_true(obj < seed);
	assert_true(obj >= 136);   /* the window bound (bench/results/relax.md) */
	json_t *ls = get(j, "local_search");
	assert_true(get_int(ls, "runs") >= 1 && get_int(ls, "improvements") >= 1);
	assert_non_null(strstr(get_str(j, "seed_from"), "local search"));
	json_decref(j);
	run_free(&r);
	RUN(&r, "simulate", tmp("p8m24.json"), "--schedule", tmp("p8m24-ga.json"), "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_int_equal(get_int(j, "makespan"), obj);
	json_decref(j);
	run_free(&r);
	(void)state;
}

/* The periodic seed (solvers/periodic.h) on an instance beyond the
 * whole-instance exact solve: 2 devices, 200 micro-batches (800 ops),
 * F 1, B 1, room for one activation per stage, comm 1. Device 0 holds a
 * micro-batch from F(0, j) to the end of B(0, j), a round trip of
 * 1 + 1 + 1 + 1 + 2 comm = 6, so every schedule spaces device 0's forwards
 * 6 apart: the shortest period is 6 (the search must find it, and 5 must
 * fail), and every valid schedule, the seed's too, ends at exactly
 * 199 * 6 + 6 = 1200 (each device's order is forced: F, B of one
 * micro-batch after the other). */
/* `search --json` of the instance text written to tmp(file), one thread,
 * `seconds`: its parsed output (it must succeed). */
static json_t *search_json(const char *file, const char *instance, const char *seconds)
{
	write_file(tmp(file), instance);
	struct run r;
	RUN(&r, "search", tmp(file), "--time-limit", seconds, "--threads", "1", "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	run_free(&r);
	return j;
}

/* The seed called name in a search's JSON output; NULL when absent. */
static json_t *seed_named(json_t *j, const char *name)
{
	json_t *seeds = get(j, "seeds");
	for (size_t i = 0; i < json_array_size(seeds); i++)
		if (!strcmp(get_str(json_array_get(seeds, i), "name"), name))
			return json_array_get(seeds, i);
	return NULL;
}

/* A seed's objective, 0 when it is absent or not valid (null). */
static json_int_t seed_objective(json_t *j, const char *name)
{
	json_t *s = seed_named(j, name), *obj = s ? json_object_get(s, "objective") : NULL;
	return json_is_integer(obj) ? json_integer_value(obj) : 0;
}

static void test_search_periodic_seed(void **state)
{
	json_t *j = search_json("rt200.json",
				"{\"name\":\"rt200\",\"devices\":2,\"microbatches\":200,"
				"\"cost\":{\"F\":1,\"B\":1},\"comm\":1,"
				"\"memory\":{\"F\":1,\"B\":-1,\"limit\":1}}", "8");
	json_t *s = seed_named(j, "periodic");
	assert_non_null(s);
	assert_int_equal(get_int(s, "objective"), 1200);   /* valid */
	assert_non_null(strstr(get_str(s, "note"), "shortest found 6,"));
	assert_int_equal(get_int(j, "objective"), 1200);
	json_decref(j);
	(void)state;
}

/* The cyclic seed (solvers/cyclic.h) on a V instance beyond the exact
 * seed (768 ops) at v-min's memory: v-min is a local optimum of the local
 * search, and no 1-periodic schedule the MILP finds beats it by much;
 * the K-periodic orders from the best seed do, every time (845 from
 * v-min's 938 for seeds 1-6 in 0.5 s, scratch driver). Asserted: the seed
 * is there, valid, below v-min's and the periodic seed's objectives, and
 * the result no worse. */
static void test_search_cyclic_seed(void **state)
{
	json_t *j = search_json("v4m32.json",
				"{\"name\":\"v4m32\",\"devices\":4,\"microbatches\":32,\"chunks\":2,"
				"\"placement\":\"v\",\"cost\":{\"F\":3,\"B\":4,\"W\":2},\"comm\":1,"
				"\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":8}}", "6");
	json_int_t vmin = seed_objective(j, "v-min"), periodic = seed_objective(j, "periodic"),
		   cyclic = seed_objective(j, "cyclic");
	assert_non_null(seed_named(j, "cyclic"));
	assert_contains(get_str(seed_named(j, "cyclic"), "note"),
			"1-periodic orders from the best seed");
	assert_true(vmin > 0);   /* v-min is valid at its own peak */
	assert_true(cyclic > 0);
	assert_true(cyclic < vmin);
	assert_true(periodic == 0 || cyclic < periodic);
	assert_true(get_int(j, "objective") <= cyclic);
	json_decref(j);
	(void)state;
}

static void test_search_errors(void **state)
{
	struct run r;
	static const char *const bad[][2] = {
		{"--population", "2"}, {"--threads", "0"}, {"--gap", "2"},
		{"--seed", "-1"}, {"--time-limit", "0"}, {"--generations", "1.5"},
		{"--target", "x"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		RUN(&r, "search", TINY, bad[i][0], bad[i][1]);
		assert_usage(&r);
		assert_contains(r.err, bad[i][0]);
		run_free(&r);
	}
	RUN(&r, "search", TINY, "--frobnicate");
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "search");
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "search", "datasets/bad/malformed.json");
	assert_failed(&r, NEEDLES("malformed.json", "line"));
	run_free(&r);
	RUN(&r, "search", TINY, "--seed-schedule", tmp("no-such-seed.json"));
	assert_failed(&r, NEEDLES("no-such-seed.json"));
	run_free(&r);
	/* an unwritable output: one line naming it, no file left behind */
	RUN(&r, "search", TINY, "--generations", "2", "-o", tmp("no-dir/out.json"), "--json");
	assert_failed_json(&r, NEEDLES("no-dir/out.json"));
	assert_false(file_exists(tmp("no-dir/out.json")));
	run_free(&r);
}

/* A suite of one: the tiny instance and its certificate from `solve`. */
static void make_suite(const char *dir, const char *cert_text)
{
	char path[PATH_MAX];
	mkdir(dir, 0700);
	char *inst = slurp(TINY, NULL);
	snprintf(path, sizeof path, "%s/tiny.json", dir);
	write_file(path, inst);
	snprintf(path, sizeof path, "%s/tiny.cert.json", dir);
	write_file(path, cert_text);
	free(inst);
}

/* Replace the first occurrence of `from` in text by `to` (new string). */
static char *replace_once(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	assert_non_null(p);
	char *out = malloc(strlen(text) + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
	return out;
}

/* A suite whose certificate is the good one with `from` replaced by `to`
 * is refused, naming the certificate and `what`. */
static void expect_cert_refused(const char *cert, const char *from, const char *to,
				const char *dir, const char *what)
{
	struct run r;
	char *bad = replace_once(cert, from, to);
	make_suite(tmp(dir), bad);
	RUN(&r, "search-validate", tmp(dir));
	assert_failed(&r, NEEDLES("tiny.cert.json", what));
	run_free(&r);
	free(bad);
}

/* search-validate: the GA reaches the brute-force optimum of the tiny
 * instance; tampered certificates are refused before any search. */
static void test_search_validate(void **state)
{
	struct instance *in = NULL;
	struct error err;
	assert_int_equal(instance_read(TINY, &in, &err), STATUS_OK);
	int64_t opt = brute_optimum(in, NULL);
	instance_free(in);
	struct run r, cert;
	RUN(&cert, "solve", TINY, "--json");
	assert_int_equal(cert.status, 0);
	make_suite(tmp("suite-ok"), cert.out);
	RUN(&r, "search-validate", tmp("suite-ok"), "--json", "--min-share", "1");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out), *s = get(j, "summary");
	assert_string_equal(get_str(j, "status"), "ok");
	/* its documented defaults: 1 s per instance, 1 thread, no exact seed */
	json_t *opts = get(j, "options");
	assert_double_near(get_real(opts, "time_limit"), 1, 0);
	assert_int_equal(get_int(opts, "threads"), 1);
	assert_false(get_bool(opts, "exact_seed"));
	json_t *row = json_array_get(get(j, "instances"), 0);
	assert_int_equal(get_int(row, "optimum"), opt);
	assert_int_equal(get_int(row, "objective"), opt);
	assert_int_equal(get_int(s, "instances"), 1);
	assert_int_equal(get_int(s, "optimal"), 1);
	assert_double_near(get_real(s, "worst_gap"), 0, 0);
	json_decref(j);
	run_free(&r);

	/* the stated objective is not what the schedule gives */
	char from[64], to[64];
	json_t *c = parse_json(cert.out);
	snprintf(from, sizeof from, "\"objective\": %lld", (long long)get_int(c, "objective"));
	snprintf(to, sizeof to, "\"objective\": %lld", (long long)get_int(c, "objective") - 1);
	json_decref(c);
	expect_cert_refused(cert.out, from, to, "suite-obj", "simulates to");
	/* a certificate of another instance */
	expect_cert_refused(cert.out, "\"instance_sha256\": \"", "\"instance_sha256\": \"0",
			    "suite-sha", "instance_sha256");
	/* not certified */
	expect_cert_refused(cert.out, "\"certified\": true", "\"certified\": false",
			    "suite-unc", "certified");
	/* malformed */
	make_suite(tmp("suite-bad"), "{\"certified\": tru");
	RUN(&r, "search-validate", tmp("suite-bad"), "--json");
	assert_failed_json(&r, NEEDLES("tiny.cert.json", "line 1"));
	run_free(&r);
	run_free(&cert);
	/* no certificate, no directory, usage */
	RUN(&r, "search-validate", ZB);
	assert_failed(&r, NEEDLES("zb-1p-example.cert.json"));
	run_free(&r);
	RUN(&r, "search-validate", tmp("nowhere"));
	assert_failed(&r, NEEDLES("nowhere"));
	run_free(&r);
	RUN(&r, "search-validate");
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "search-validate", tmp("suite-ok"), "--min-share", "2");
	assert_usage(&r);
	run_free(&r);
}

/* ---- pipeopt graph sp and partition ---------------------------------------- */

#define CANDLE "datasets/graphs/candle-uno-a100.json"

/* The N graph (0->2, 1->2, 1->3) is not series-parallel; the only level cut
 * puts {n0, n1} before {n2, n3}, which adds n0->n3 (n1->n2 and n1->n3 and
 * n0->n2 exist): S(P(n0, n1), P(n2, n3)). */
static void test_graph_sp(void **state)
{
	const char *n_graph =
		"{\"name\":\"N\",\"batch\":4,\"microbatch_sizes\":[1],"
		"\"machine\":{\"devices\":2,\"memory_bytes\":1e9,\"link_latency_us\":1,\"link_bandwidth\":100},"
		"\"ops\":[{\"name\":\"n0\",\"fwd\":1,\"bwd\":1},{\"name\":\"n1\",\"fwd\":1,\"bwd\":1},"
		"{\"name\":\"n2\",\"fwd\":1,\"bwd\":1},{\"name\":\"n3\",\"fwd\":1,\"bwd\":1}],"
		"\"edges\":[[\"n0\",\"n2\"],[\"n1\",\"n2\"],[\"n1\",\"n3\"]]}";
	write_file(tmp("n.json"), n_graph);
	struct run r;
	RUN(&r, "graph", "sp", tmp("n.json"), "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_true(json_is_false(get(j, "series_parallel")));
	assert_string_equal(get_str(j, "tree"), "S(P(n0, n1), P(n2, n3))");
	json_t *added = get(j, "added_edges");
	assert_int_equal(json_array_size(added), 1);
	assert_string_equal(json_string_value(json_array_get(json_array_get(added, 0), 0)), "n0");
	assert_string_equal(json_string_value(json_array_get(json_array_get(added, 0), 1)), "n3");
	json_decref(j);
	run_free(&r);
	/* CANDLE-Uno: input, then 7 parallel 4-layer branches, then the head */
	RUN(&r, "graph", "sp", CANDLE);
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "tree        S(input, P(S(b0.ff0, b0.ff1, b0.ff2, b0.ff3), S(b1.ff0");
	assert_contains(r.out, "concat, head.ff0, head.ff1, head.ff2, head.ff3, head.out)");
	run_free(&r);
	RUN(&r, "graph", "sp", "datasets/bad/malformed.json");
	assert_failed(&r, NEEDLES("malformed.json"));
	run_free(&r);
	RUN(&r, "graph", "frobnicate", CANDLE);
	assert_usage(&r);
	run_free(&r);
}

/* partition: the JSON keys, a consistent plan (every operator in exactly
 * one stage, in-flight = stages on the longest path to the sink, devices
 * within the budget), the instance it writes simulates with 1f1b-dag. */
static void test_partition(void **state)
{
	struct run r;
	RUN(&r, "partition", CANDLE, "--devices", "8", "--json", "-o", tmp("candle.inst.json"));
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	json_t *stages = get(j, "stages"), *inflight = get(j, "inflight"), *edges = get(j, "stage_edges");
	size_t S = json_array_size(stages), ops = 0;
	for (size_t s = 0; s < S; s++)
		ops += json_array_size(json_array_get(stages, s));
	assert_int_equal(ops, 35);   /* input, 28 branch layers, concat, 5 head ops */
	json_int_t devices = 0;
	for (size_t s = 0; s < S; s++)
		devices += json_integer_value(json_array_get(get(j, "devices_per_stage"), s));
	assert_true(devices <= 8);
	/* in-flight: 1 at sinks, else 1 + max over successors */
	for (size_t s = 0; s < S; s++) {
		json_int_t want = 1;
		for (size_t e = 0; e < json_array_size(edges); e++) {
			json_t *p = json_array_get(edges, e);
			if ((size_t)json_integer_value(json_array_get(p, 0)) == s) {
				json_int_t t = json_integer_value(json_array_get(inflight,
					json_integer_value(json_array_get(p, 1))));
				want = t + 1 > want ? t + 1 : want;
			}
		}
		assert_int_equal(json_integer_value(json_array_get(inflight, s)), want);
	}
	assert_true(get_real(j, "time_per_sample") > 0);
	assert_true(get_real(j, "iteration_time") >= get_real(j, "bottleneck_us"));
	assert_int_equal(1024 % get_int(j, "microbatch_size"), 0);
	json_decref(j);
	run_free(&r);
	RUN(&r, "simulate", tmp("candle.inst.json"), "--family", "1f1b-dag", "--json");
	assert_int_equal(r.status, 0);
	run_free(&r);
	/* sequential: a chain of stages */
	RUN(&r, "partition", CANDLE, "--devices", "4", "--sequential", "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	S = json_array_size(get(j, "stages"));
	for (size_t s = 0; s < S; s++)
		assert_int_equal(json_integer_value(json_array_get(get(j, "inflight"), s)), S - s);
	json_decref(j);
	run_free(&r);
	RUN(&r, "partition", CANDLE, "--devices", "0");
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "partition", CANDLE);
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "partition", CANDLE, "--devices", "4", "--microbatch-sizes", "3,x");
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "partition", CANDLE, "--devices", "64");
	assert_failed(&r, NEEDLES("candle-uno", "devices"));
	run_free(&r);
	RUN(&r, "partition", CANDLE, "--devices", "4", "-o", tmp("no-dir/x.json"));
	assert_failed(&r, NEEDLES("no-dir/x.json"));
	assert_false(file_exists(tmp("no-dir/x.json")));
	run_free(&r);
}

/* profile: an analytic cost table equals the costs the graph was written
 * with (scripts/make-graphs.sh uses the same formulas), partition reads it
 * with --costs and gives the same plan; cuda without a GPU: one line. */
static void test_profile(void **state)
{
	struct run r, a, b;
	RUN(&r, "profile", CANDLE, "--device", "analytic:a100", "-o", tmp("costs.json"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	json_t *t = json_load_file(tmp("costs.json"), 0, NULL), *g = json_load_file(CANDLE, 0, NULL);
	assert_non_null(t);
	json_t *row = json_array_get(get(t, "ops"), 1), *op = json_array_get(get(g, "ops"), 1);
	assert_string_equal(get_str(row, "name"), get_str(op, "name"));
	for (size_t i = 0; i < json_array_size(get(op, "fwd")); i++)
		assert_double_near(json_number_value(json_array_get(get(row, "fwd"), i)),
				   json_number_value(json_array_get(get(op, "fwd"), i)), 1e-3);
	json_decref(t);
	json_decref(g);
	RUN(&a, "partition", CANDLE, "--devices", "8", "--json");
	RUN(&b, "partition", CANDLE, "--devices", "8", "--costs", tmp("costs.json"), "--json");
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	json_t *x = parse_json(a.out), *y = parse_json(b.out);
	assert_true(json_equal(get(x, "stages"), get(y, "stages")));
	json_decref(x);
	json_decref(y);
	run_free(&a);
	run_free(&b);
	/* without nvcc at build time a usage error; with it but without a GPU
	 * (these machines), one line saying there is no CUDA device */
	RUN(&r, "profile", CANDLE, "--device", "cuda", "--sizes", "1");
	if (r.status == 2) {
		assert_usage(&r);
		assert_contains(r.err, "without CUDA");
	} else if (r.status == 1) {
		assert_failed(&r, NEEDLES("CUDA"));
	} else {
		assert_int_equal(r.status, 0);   /* a GPU: a table */
		assert_contains(r.out, "b0.ff0");
	}
	run_free(&r);
	RUN(&r, "profile", CANDLE);
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "partition", CANDLE, "--devices", "4", "--costs", tmp("no-such-costs.json"));
	assert_failed(&r, NEEDLES("no-such-costs.json"));
	run_free(&r);
}

/* exec: the keys, exact gradients and equal peaks for a family; a trace
 * file; a deadlocking schedule refused in one line. */
static void test_exec(void **state)
{
	struct run r;
	RUN(&r, "exec", TINY, "--family", "1f1b", "--hidden", "32", "--rows", "8",
	    "--trace", tmp("exec.trace.json"), "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_string_equal(get_str(j, "status"), "ok");
	assert_true(get_real(j, "grad_max_rel_err") <= 1e-5);
	assert_true(json_is_true(get(j, "peaks_equal")));
	assert_true(json_equal(get(j, "peak_live_activations"), get(j, "predicted_peak")));
	assert_true(get_real(j, "measured_makespan_s") > 0);
	json_decref(j);
	run_free(&r);
	json_t *t = json_load_file(tmp("exec.trace.json"), 0, NULL);
	assert_non_null(t);
	assert_int_equal(json_array_size(get(t, "traceEvents")), 12);   /* 3 kinds x 2 stages x 2 */
	json_decref(t);
	write_file(tmp("dead.json"), "{\"schedule\": [[[\"B\",0,0],[\"F\",0,0],[\"W\",0,0],"
		   "[\"F\",0,1],[\"B\",0,1],[\"W\",0,1]],[[\"F\",1,0],[\"B\",1,0],[\"W\",1,0],"
		   "[\"F\",1,1],[\"B\",1,1],[\"W\",1,1]]]}");
	RUN(&r, "exec", TINY, "--schedule", tmp("dead.json"));
	assert_failed(&r, NEEDLES("refused", "deadlock"));
	run_free(&r);
	RUN(&r, "exec", TINY);
	assert_usage(&r);
	run_free(&r);
}

/* exec on a partitioned model graph: the instance `partition -o` writes
 * names each stage's operators ("model"), and exec builds the stages from
 * them: CANDLE-Uno is 33 linear operators plus input and concat (no
 * layers), so 33 linear layers; gradients exactly the reference's, peaks
 * as predicted. A kind the executor cannot build fails in one line naming
 * the operator and its key. */
static void test_exec_model_graph(void **state)
{
	struct run r;
	const char *inst = tmp("candle-seq.inst.json");
	RUN(&r, "partition", CANDLE, "--devices", "4", "--sequential", "-o", inst);
	assert_int_equal(r.status, 0);
	run_free(&r);
	json_t *j = json_load_file(inst, 0, NULL);
	assert_non_null(j);
	json_t *model = get(j, "model");
	assert_string_equal(get_str(model, "graph"), "candle-uno-a100");
	size_t ops = 0;
	for (size_t s = 0; s < json_array_size(get(model, "stages")); s++)
		ops += json_array_size(json_array_get(get(model, "stages"), s));
	assert_int_equal(ops, 35);
	assert_int_equal(json_array_size(get(model, "stages")), get_int(j, "devices"));
	json_decref(j);

	RUN(&r, "exec", inst, "--family", "1f1b", "--hidden", "32", "--rows", "8", "--json");
	if (r.status != 0)
		fail_msg("exec: exit %d: %s", r.status, r.err);
	j = parse_json(r.out);
	if (get_real(j, "grad_max_rel_err") != 0)
		fail_msg("grad_max_rel_err %g, expected exactly 0", get_real(j, "grad_max_rel_err"));
	assert_true(json_is_true(get(j, "peaks_equal")));
	assert_true(json_equal(get(j, "peak_live_activations"), get(j, "predicted_peak")));
	assert_string_equal(get_str(j, "model"), "candle-uno-a100");
	json_t *layers = get(j, "layers");
	assert_int_equal(get_int(layers, "linear"), 33);
	assert_int_equal(get_int(layers, "gelu"), 0);
	assert_int_equal(get_int(layers, "layernorm"), 0);
	assert_int_equal(get_int(layers, "attention"), 0);
	json_decref(j);
	run_free(&r);

	write_file(tmp("conv3d.json"),
		   "{\"name\":\"vol\",\"devices\":2,\"microbatches\":2,"
		   "\"cost\":{\"F\":1,\"B\":1,\"W\":1},\"model\":{\"graph\":\"v\",\"stages\":["
		   "[{\"name\":\"stem\",\"kind\":\"linear\"}],"
		   "[{\"name\":\"act\",\"kind\":\"gelu\"},{\"name\":\"vox\",\"kind\":\"conv3d\"}]]}}");
	RUN(&r, "exec", tmp("conv3d.json"), "--family", "1f1b");
	assert_failed(&r, NEEDLES("'vox'", "conv3d", "model.stages[1][1]"));
	run_free(&r);
	RUN(&r, "exec", tmp("conv3d.json"), "--family", "1f1b", "--json");
	assert_failed_json(&r, NEEDLES("'vox'", "conv3d", "model.stages[1][1]"));
	run_free(&r);
}

/* BUG: an instance's "model" may leave out "graph" (sched/instance.c
 * accepts it), and exec then builds and runs that model, but its report
 * says "linear + gelu per stage" (cli/cmd_exec.c keys the label on the
 * graph name alone) next to counts of attention and layernorm layers. */
/* exec --device cuda: on a GPU the same checks (gradients within fp32
 * summation-order error, equal peaks); without one (these machines) or
 * without a CUDA build, exit 1 with one line naming CUDA and no trace
 * file; with --workers mpi a usage error. */
static void test_exec_cuda(void **state)
{
	struct run r;
	const char *inst = PIPEOPT_SOURCE_DIR "/datasets/instances/exec-transformer-4.json";
	remove(tmp("cuda-trace.json"));
	RUN(&r, "exec", inst, "--family", "1f1b", "--device", "cuda", "--hidden", "32", "--rows", "8",
	    "--trace", tmp("cuda-trace.json"), "--json");
	if (r.status == 0) {   /* a GPU */
		json_t *j = json_loads(r.out, 0, NULL);
		assert_non_null(j);
		assert_true(json_real_value(json_object_get(j, "grad_max_rel_err")) <= 1e-4);
		assert_true(json_is_true(json_object_get(j, "peaks_equal")));
		json_decref(j);
	} else {
		assert_failed_json(&r, NEEDLES("CUDA"));
		assert_false(access(tmp("cuda-trace.json"), F_OK) == 0);
	}
	run_free(&r);
	RUN(&r, "exec", inst, "--family", "1f1b", "--device", "cuda", "--workers", "mpi");
	assert_usage(&r);
	run_free(&r);
	RUN(&r, "exec", inst, "--family", "1f1b", "--device", "tpu");
	assert_usage(&r);
	run_free(&r);
}

static void test_exec_model_unnamed_graph(void **state)
{
	struct run r;
	write_file(tmp("unnamed.json"),
		   "{\"name\":\"ng\",\"devices\":2,\"microbatches\":2,"
		   "\"cost\":{\"F\":1,\"B\":1,\"W\":1},\"model\":{\"stages\":["
		   "[{\"name\":\"a\",\"kind\":\"attention\"}],[{\"name\":\"b\",\"kind\":\"layernorm\"}]]}}");
	RUN(&r, "exec", tmp("unnamed.json"), "--family", "1f1b", "--hidden", "16", "--rows", "4");
	int status = r.status;
	bool counted = strstr(r.out, "1 attention") != NULL;
	bool mislabelled = !strstr(r.out, "the instance's model");
	run_free(&r);   /* before failing: no leak reported under the sanitizers */
	assert_int_equal(status, 0);
	assert_true(counted);
	if (mislabelled)
		fail_msg("the report says 'linear + gelu per stage' for a model of attention and layernorm");
}

/* exec on MPI ranks (mpirun -np 2, as root needs it): the same exact
 * gradients and equal peaks as the threads. Skipped, saying so, where
 * mpirun is missing, the binary has no MPI, or under the sanitizers
 * (OpenMPI's own allocations look like leaks to LeakSanitizer). */
static void test_exec_mpi(void **state)
{
#ifdef PIPEOPT_SANITIZED
	skip();
#endif
	if (!have_program("mpirun")) {
		fprintf(stderr, "test_exec_mpi: skipped: no mpirun\n");
		skip();
	}
	struct run r;
	RUN(&r, "exec", TINY, "--family", "1f1b", "--workers", "mpi");
	if (r.status == 2 && strstr(r.err, "without MPI")) {
		fprintf(stderr, "test_exec_mpi: skipped: %s", r.err);
		run_free(&r);
		skip();
	}
	run_free(&r);
	char cmd[PATH_MAX * 2];
	snprintf(cmd, sizeof cmd,
		 "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 "
		 "%s exec %s --family zb-h1 --workers mpi --hidden 32 --rows 8 --json > %s 2>%s",
		 PIPEOPT_BIN, TINY, tmp("mpi.json"), tmp("mpi.err"));
	int rc = system(cmd);
	if (rc != 0) {
		char *e = slurp(tmp("mpi.err"), NULL);
		fail_msg("mpirun failed (%d): %s", rc, e ? e : "");
	}
	char *out = slurp(tmp("mpi.json"), NULL);
	json_t *j = parse_json(out);
	assert_string_equal(get_str(j, "workers"), "mpi");
	assert_true(get_real(j, "grad_max_rel_err") <= 1e-5);
	assert_true(json_is_true(get(j, "peaks_equal")));
	json_decref(j);
	free(out);
}

/* plot: a sweep's results with a torn last line (an interrupted append,
 * skipped), plots into RESULTS without its extension + "-plots", --json
 * with the summary and the files. By hand: point 0's reference is GA's
 * certified 10 (above the bounds 9): 1f1b 12 has gap 2/12, the GA wins.
 * Point 1's is the bound 16: both have 20 (gap 4/20) and tie for the win.
 * 1f1b: wins 1, bubble (0.25 + 0.15) / 2, gaps mean (1/6 + 1/5) / 2, worst
 * 1/5; ga: wins 2, bubble (0.1 + 0.15) / 2, certified 1/2, gaps 0 and 1/5. */
static void test_plot(void **state)
{
	struct run r;
	const char *results = tmp("sweep.jsonl");
	static const char rows[] =
		"{\"sweep\":\"t\",\"point\":0,\"rep\":0,\"params\":{\"microbatches\":2},\"method\":\"1f1b\","
		"\"kind\":\"family\",\"status\":\"feasible\",\"objective\":12,\"bubble_ratio\":0.25,"
		"\"lower_bound\":9,\"bound\":9,\"certified\":false}\n"
		"{\"sweep\":\"t\",\"point\":0,\"rep\":0,\"params\":{\"microbatches\":2},\"method\":\"ga\","
		"\"kind\":\"search\",\"seed\":1,\"status\":\"optimal\",\"objective\":10,\"bubble_ratio\":0.1,"
		"\"lower_bound\":9,\"bound\":9,\"certified\":true}\n"
		"{\"sweep\":\"t\",\"point\":1,\"rep\":0,\"params\":{\"microbatches\":4},\"method\":\"1f1b\","
		"\"kind\":\"family\",\"status\":\"feasible\",\"objective\":20,\"bubble_ratio\":0.15,"
		"\"lower_bound\":16,\"bound\":16,\"certified\":false}\n"
		"{\"sweep\":\"t\",\"point\":1,\"rep\":0,\"params\":{\"microbatches\":4},\"method\":\"ga\","
		"\"kind\":\"search\",\"seed\":1,\"status\":\"feasible\",\"objective\":20,\"bubble_ratio\":0.15,"
		"\"lower_bound\":16,\"bound\":16,\"certified\":false}\n"
		"{\"sweep\":\"t\",\"point\":1,\"rep\":0,\"params\":{\"microbatches\":4},\"method\":\"torn\","
		"\"kind\":\"fam";
	write_file(results, rows);
	RUN(&r, "plot", results, "--json");
	if (r.status != 0)
		fail_msg("plot: exit %d: %s", r.status, r.err);
	json_t *j = parse_json(r.out), *sum = get(j, "summary"), *plots = get(j, "plots");
	assert_string_equal(get_str(j, "status"), "ok");
	assert_int_equal(json_array_size(sum), 2);   /* the torn line's method is not there */
	static const struct {
		const char *method;
		int wins;
		double bubble, certified, mean_gap, worst_gap;
	} want[] = {{"1f1b", 1, 0.2, 0, (1.0 / 6 + 0.2) / 2, 0.2}, {"ga", 2, 0.125, 0.5, 0.1, 0.2}};
	for (size_t i = 0; i < 2; i++) {
		json_t *s = json_array_get(sum, i);
		assert_string_equal(get_str(s, "method"), want[i].method);
		assert_int_equal(get_int(s, "rows"), 2);
		assert_int_equal(get_int(s, "failures"), 0);
		assert_int_equal(get_int(s, "points"), 2);
		assert_int_equal(get_int(s, "wins"), want[i].wins);
		assert_double_near(get_real(s, "mean_bubble_ratio"), want[i].bubble, 1e-9);
		assert_double_near(get_real(s, "share_certified"), want[i].certified, 1e-9);
		assert_double_near(get_real(s, "mean_gap"), want[i].mean_gap, 1e-9);
		assert_double_near(get_real(s, "worst_gap"), want[i].worst_gap, 1e-9);
	}
	assert_int_equal(json_array_size(plots), 2);
	assert_string_equal(json_string_value(json_array_get(plots, 0)), tmp("sweep-plots/objective.svg"));
	assert_string_equal(json_string_value(json_array_get(plots, 1)), tmp("sweep-plots/gap.svg"));
	for (size_t i = 0; i < 2; i++) {
		char *svg = read_ok(json_string_value(json_array_get(plots, i)));
		assert_int_equal(strncmp(svg, "<svg", 4), 0);
		assert_contains(svg, "</svg>\n");
		if (i == 0)
			assert_int_equal(count_substr(svg, "<polyline"), 2);
		free(svg);
	}
	json_decref(j);
	run_free(&r);
	assert_int_equal(dir_count(tmp("sweep-plots"), ".tmp."), 0);

	/* human output: the files, then the table */
	RUN(&r, "plot", results, "-o", tmp("md"), "--y", "bubble_ratio", "--markdown");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, tmp("md/objective.svg"));
	assert_contains(r.out, "| method |");
	assert_contains(r.out, "| ga ");
	run_free(&r);
	char *svg = read_ok(tmp("md/objective.svg"));
	assert_contains(svg, "bubble ratio");
	free(svg);

	/* errors name the file or the key; --json has the same message */
	RUN(&r, "plot", tmp("no-such.jsonl"));
	assert_failed(&r, NEEDLES(tmp("no-such.jsonl")));
	run_free(&r);
	RUN(&r, "plot", results, "--x", "file");
	assert_failed(&r, NEEDLES("'params.file'", "numeric"));
	run_free(&r);
	RUN(&r, "plot", results, "--x", "file", "--json");
	assert_failed_json(&r, NEEDLES("'params.file'"));
	run_free(&r);
	RUN(&r, "plot", results, "-o", results);   /* the directory is a file */
	assert_failed(&r, NEEDLES(results, "not a directory"));
	run_free(&r);
	char *text = read_ok(results);
	assert_string_equal(text, rows);
	free(text);

	static const char *const usage[][5] = {
		{"plot"}, {"plot", "a.jsonl", "b.jsonl"}, {"plot", "a.jsonl", "--y", "makespan"},
		{"plot", "a.jsonl", "--bogus"}, {"plot", "a.jsonl", "-o"},
	};
	for (size_t i = 0; i < sizeof usage / sizeof *usage; i++) {
		const char *args[6] = {0};
		memcpy(args, usage[i], sizeof usage[i]);
		run_argv(&r, args);
		assert_usage(&r);
		run_free(&r);
	}
	RUN(&r, "plot", "--help");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "usage: pipeopt plot");
	run_free(&r);
}

/* profile, exec, plot, search-validate and graph parse from option tables:
 * --help lists each command's options (its own, its method's and the
 * shared ones it takes); a typo gets "did you mean", a missing value, a
 * value out of range and a choice not in the list are one-line usage
 * errors; --json objects carry "status" ("ok" here). */
static void test_table_commands(void **state)
{
	static const char *const help[][2] = {
		{"profile", "--max-seconds S"}, {"exec", "--workers threads|mpi"},
		{"plot", "-o, --output DIR"}, {"search-validate", "--[no-]exact-seed"},
		{"graph", "--json"},
	};
	struct run r;
	for (size_t i = 0; i < sizeof help / sizeof *help; i++) {
		RUN(&r, help[i][0], "--help");
		assert_int_equal(r.status, 0);
		assert_contains(r.out, "usage: pipeopt ");
		assert_contains(r.out, "options:\n");
		assert_contains(r.out, help[i][1]);
		run_free(&r);
	}
	static const char *const typos[][5] = {
		{"profile", CANDLE, "--devcie", "cpu", "--device"},
		{"exec", TINY, "--famly", "1f1b", "--family"},
		{"plot", "a.jsonl", "--sumary", NULL, "--summary"},
		{"search-validate", "suite", "--min-shar", "1", "--min-share"},
		{"graph", "sp", CANDLE, "--jsn", "--json"},
	};
	for (size_t i = 0; i < sizeof typos / sizeof *typos; i++) {
		const char *args[5] = {typos[i][0], typos[i][1], typos[i][2], typos[i][3]};
		char want[64];
		snprintf(want, sizeof want, "did you mean '%s'", typos[i][4]);
		print_message("typo %zu: %s\n", i, args[0]);
		run_argv(&r, args);
		assert_usage(&r);
		assert_contains(r.err, want);
		run_free(&r);
	}
	static const char *const bad[][7] = {
		{"profile", CANDLE, "--warmup"},
		{"profile", CANDLE, "--device", "cpu", "--repeats", "0"},
		{"profile", CANDLE, "--device", "analytic"},
		{"exec", TINY, "--family"},
		{"exec", TINY, "--family", "1f1b", "--rows", "0"},
		{"exec", TINY, "--family", "1f1b", "--workers", "ranks"},
		{"plot", "a.jsonl", "--x"},
		{"search-validate", "suite", "--time-limit"},
		{"search-validate", "suite", "--population", "3"},
		{"search-validate", "suite", "--target", "3"},
		{"graph", "sp", CANDLE, "--json=yes"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		print_message("bad %zu: %s %s\n", i, bad[i][0], bad[i][2]);
		run_argv(&r, bad[i]);
		assert_usage(&r);
		run_free(&r);
	}
	RUN(&r, "graph", "sp", CANDLE, "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out);
	assert_string_equal(get_str(j, "status"), "ok");
	json_decref(j);
	run_free(&r);
	/* profile --json: the cost table -o writes, with "status" */
	RUN(&r, "profile", CANDLE, "--device", "analytic:v100", "--sizes", "1,2", "--json",
	    "-o", tmp("v100.json"));
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	json_t *file = json_load_file(tmp("v100.json"), 0, NULL);
	assert_non_null(file);
	assert_string_equal(get_str(j, "status"), "ok");
	assert_null(json_object_get(file, "status"));
	json_object_del(j, "status");
	assert_true(json_equal(j, file));
	json_decref(file);
	json_decref(j);
	run_free(&r);
}

/* plan: the search's schedule is never worse than 1F1B on the same DAG,
 * and never below the lower bound; the best is never slower than
 * GraphPipe's DP + 1F1B (the graphpipe row's 1f1b-dag) nor than the
 * search's partition + 1F1B (the graph row's), with the gains reported.
 * Rows: graph (rank 1), sequential, graphpipe, then the search's next
 * ranks (its best at other micro-batch sizes, so other sizes, and in its
 * order: 1f1b-dag iterations not decreasing); --partitions 1 leaves 3. */
static void test_plan(void **state)
{
	struct run r;
	RUN(&r, "plan", CANDLE, "--devices", "4", "--time-limit", "2", "--json");
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out), *plans = get(j, "plans");
	size_t n = json_array_size(plans);
	/* 8 sizes: --partitions 3 fills, unless the search was cut short
	 * before it had seeded three (under ASan on a loaded machine) */
	assert_true(n >= 3 && n <= 5);
	if (json_is_null(get(json_array_get(plans, 0), "partition_stopped_by")))
		assert_int_equal(n, 5);
	assert_string_equal(get_str(json_array_get(plans, 0), "pipeline"), "graph");
	assert_int_equal(get_int(json_array_get(plans, 0), "rank"), 1);
	assert_true(json_is_null(get(json_array_get(plans, 1), "rank")));
	assert_string_equal(get_str(json_array_get(plans, 2), "pipeline"), "graphpipe");
	for (size_t i = 3; i < n; i++) {
		json_t *p = json_array_get(plans, i), *prev = json_array_get(plans, i == 3 ? 0 : i - 1);
		assert_string_equal(get_str(p, "pipeline"), "graph");
		assert_int_equal(get_int(p, "rank"), (json_int_t)i - 1);
		assert_true(get_int(p, "iteration_time_1f1b") >= get_int(prev, "iteration_time_1f1b"));
		assert_int_not_equal(get_int(p, "microbatch_size"), get_int(prev, "microbatch_size"));
	}
	json_t *bp = json_array_get(plans, (size_t)get_int(j, "best_plan"));
	assert_string_equal(get_str(bp, "pipeline"), get_str(j, "best"));
	assert_int_equal(get_int(bp, "iteration_time_search") < get_int(bp, "iteration_time_1f1b") ?
			 get_int(bp, "iteration_time_search") : get_int(bp, "iteration_time_1f1b"),
			 get_int(j, "iteration_time"));
	json_int_t graph1f1b = get_int(json_array_get(plans, 0), "iteration_time_1f1b");
	json_int_t gp1f1b = get_int(json_array_get(plans, 2), "iteration_time_1f1b");
	assert_true(get_int(j, "iteration_time") <= gp1f1b);
	assert_true(get_int(j, "iteration_time") <= graph1f1b);
	assert_double_near(get_real(j, "gain_over_graphpipe_1f1b"),
			   (double)(gp1f1b - get_int(j, "iteration_time")) / gp1f1b, 1e-9);
	assert_double_near(get_real(j, "gain_over_partition_1f1b"),
			   (double)(graph1f1b - get_int(j, "iteration_time")) / graph1f1b, 1e-9);
	json_int_t best = INT64_MAX;
	for (size_t i = 0; i < n; i++) {
		json_t *p = json_array_get(plans, i);
		assert_true(get_int(p, "iteration_time_search") <= get_int(p, "iteration_time_1f1b"));
		assert_true(get_int(p, "iteration_time_search") >= get_int(p, "lower_bound"));
		assert_true(get_int(p, "stages") >= 1);
		best = get_int(p, "iteration_time_search") < best ? get_int(p, "iteration_time_search") : best;
	}
	assert_int_equal(get_int(j, "iteration_time"), best);
	json_decref(j);
	run_free(&r);
	RUN(&r, "plan", CANDLE, "--devices", "4", "--time-limit", "1", "--partitions", "1", "--json");
	assert_int_equal(r.status, 0);
	j = parse_json(r.out);
	assert_int_equal(json_array_size(get(j, "plans")), 3);
	json_decref(j);
	run_free(&r);
	RUN(&r, "plan", CANDLE, "--devices", "4", "--partitions", "0");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--partitions"));
	run_free(&r);
	RUN(&r, "plan", CANDLE);
	assert_usage(&r);
	run_free(&r);
}

#include "sched/bound.h"
#include "sched/family.h"
#include "sched/sim.h"

/*
 * plan -o writes the best plan's instance. Read back by the parser (plan
 * itself builds it in code), its 1f1b-dag simulation and lower bound are
 * the numbers plan reports for that plan, and `partition -o` of the same
 * pipeline writes the same bytes. Before plan built instances in code (at
 * 2923abc, through JSON text) it printed, on 4 devices, for GraphPipe's DP
 * (then plan's graph row, now its graphpipe row): 1f1b-dag 13875 us and
 * bound 12850 us; the recomputation from the file gives the same, so they
 * are kept here.
 */
static void test_plan_instance(void **state)
{
	(void)state;
	struct run r;
	RUN(&r, "plan", CANDLE, "--devices", "4", "--time-limit", "4", "--json", "-o",
	    tmp("plan.inst.json"));
	assert_int_equal(r.status, 0);
	json_t *j = parse_json(r.out), *plans = get(j, "plans"), *row = NULL;
	static const char *const pipelines[] = {"graph", "sequential", "graphpipe"};
	assert_true(json_array_size(plans) >= 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(get_str(json_array_get(plans, i), "pipeline"), pipelines[i]);
	row = json_array_get(plans, (size_t)get_int(j, "best_plan"));
	assert_int_equal(get_int(json_array_get(plans, 2), "iteration_time_1f1b"), 13875);
	assert_int_equal(get_int(json_array_get(plans, 2), "lower_bound"), 12850);
	assert_non_null(row);
	struct instance *in = NULL;
	struct error err = {{0}};
	if (instance_read(tmp("plan.inst.json"), &in, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(in->stages, get_int(row, "stages"));
	struct schedule *sc = NULL;
	struct sim *sim = NULL;
	struct sim_result sr;
	struct bounds b;
	assert_int_equal(family_generate("1f1b-dag", in, &sc, &err), STATUS_OK);
	assert_non_null(sim = sim_new(in));
	assert_int_equal(sim_run(sim, sc, &sr, &err), STATUS_OK);
	assert_int_equal(sr.makespan, get_int(row, "iteration_time_1f1b"));
	assert_int_equal(bound_compute(in, &b, &err), STATUS_OK);
	assert_int_equal(b.best, get_int(row, "lower_bound"));
	sim_free(sim);
	schedule_free(sc);
	instance_free(in);
	bool seq = !strcmp(get_str(j, "best"), "sequential");
	bool dp = !strcmp(get_str(j, "best"), "graphpipe");
	/* a search the time limit cut short (a slow or loaded machine, ASan)
	 * need not match an uncut one: then only the checks above hold */
	bool cut = !json_is_null(get(row, "partition_stopped_by"));
	json_decref(j);
	run_free(&r);
	if (cut)
		return;
	if (seq)
		RUN(&r, "partition", CANDLE, "--devices", "4", "--sequential", "-o",
		    tmp("part.inst.json"));
	else if (dp)
		RUN(&r, "partition", CANDLE, "--devices", "4", "--method", "dp", "-o",
		    tmp("part.inst.json"));
	else
		RUN(&r, "partition", CANDLE, "--devices", "4", "-o", tmp("part.inst.json"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	size_t n1, n2;
	char *a = slurp(tmp("plan.inst.json"), &n1), *c = slurp(tmp("part.inst.json"), &n2);
	assert_true(a && c && n1 == n2 && !memcmp(a, c, n1));
	free(a);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simulate_zb_1f1b_json),
		cmocka_unit_test(test_simulate_zb_human),
		cmocka_unit_test(test_fused_families_optimal),
		cmocka_unit_test(test_simulate_hand_schedule_json),
		cmocka_unit_test(test_simulate_torch_csv),
		cmocka_unit_test(test_simulate_reads_back_result),
		cmocka_unit_test(test_generate_then_simulate),
		cmocka_unit_test(test_csv_roundtrip),
		cmocka_unit_test(test_csv_torch_bytes),
		cmocka_unit_test(test_convert_trace),
		cmocka_unit_test(test_convert_svg),
		cmocka_unit_test(test_convert_ascii),
		cmocka_unit_test(test_convert_timed_needs_instance),
		cmocka_unit_test(test_bound_json),
		cmocka_unit_test(test_bound_windows),
		cmocka_unit_test(test_bound_shave),
		cmocka_unit_test(test_bound_overlap),
		cmocka_unit_test(test_families_list_json),
		cmocka_unit_test(test_families_instance_json),
		cmocka_unit_test(test_families_dag),
		cmocka_unit_test(test_bad_dataset_files),
		cmocka_unit_test(test_bad_inline_instances),
		cmocka_unit_test(test_nonexistent_instance),
		cmocka_unit_test(test_nonexistent_schedule),
		cmocka_unit_test(test_error_one_line_newline_in_path),
		cmocka_unit_test(test_invalid_schedules),
		cmocka_unit_test(test_schedule_for_another_instance),
		cmocka_unit_test(test_malformed_schedule_json),
		cmocka_unit_test(test_malformed_csv),
		cmocka_unit_test(test_generate_no_partial_output),
		cmocka_unit_test(test_simulate_output),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_usage_no_args),
		cmocka_unit_test(test_usage_unknown_option),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_readme_options_current),
		cmocka_unit_test(test_solve_export_is_the_certified_model),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_generate_program_file),
		cmocka_unit_test(test_program_file_errors),
		cmocka_unit_test(test_families_all_listed),
		cmocka_unit_test(test_zb_auto_certified),
		cmocka_unit_test(test_zb_gpt_2p_certificates),
		cmocka_unit_test(test_zb_warm_certifies_2p),
		cmocka_unit_test(test_solve_ga_start),
		cmocka_unit_test(test_interrupt_search_and_solve),
		cmocka_unit_test(test_solve_certified_by_bound),
		cmocka_unit_test(test_solve_recompute),
		cmocka_unit_test(test_solve_offload),
		cmocka_unit_test(test_solve_milp_matches_brute_force),
		cmocka_unit_test(test_solve_progress_is_the_solves),
		cmocka_unit_test(test_output_to_a_pipe_stays_a_pipe),
		cmocka_unit_test(test_no_certificate_above_a_known_schedule),
		cmocka_unit_test(test_solve_cross_check),
		cmocka_unit_test(test_solve_time_limit_and_output),
		cmocka_unit_test(test_solve_usage),
		cmocka_unit_test(test_search_zb_small),
		cmocka_unit_test(test_search_zb_small_certified),
		cmocka_unit_test(test_search_stops_at_bound),
		cmocka_unit_test(test_search_deterministic),
		cmocka_unit_test(test_search_local_search),
		cmocka_unit_test(test_search_periodic_seed),
		cmocka_unit_test(test_search_cyclic_seed),
		cmocka_unit_test(test_search_errors),
		cmocka_unit_test(test_search_validate),
		cmocka_unit_test(test_graph_sp),
		cmocka_unit_test(test_partition),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_instance),
		cmocka_unit_test(test_plot),
		cmocka_unit_test(test_table_commands),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_exec_model_graph),
		cmocka_unit_test(test_exec_model_unnamed_graph),
		cmocka_unit_test(test_exec_cuda),
		cmocka_unit_test(test_exec_mpi),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
