/*
 * Activation offload: the instance key "offload": {"O", "L", "keep",
 * "host_limit"} or {"bandwidth", ...} (sched/instance.c), the channel ops
 * ["O", l, j] and ["L", l, j] in schedule rows (sched/schedule.c), their
 * timing and memory in the simulator (sched/sim.c), the bounds on such
 * instances (sched/bound.c) and the exact solve (solvers/exact.c through
 * the branch and bound of solvers/bnb.c).
 *
 * The semantics under test (docs/formats.md, key `offload`; docs/design.md,
 * Offload), as this file reads them:
 *   - Each device has two resources: compute runs its F, B, W one at a
 *     time in row order; the copy channel runs its O, L one at a time in
 *     row order. O(l,j) lasts offload cost O[l], L(l,j) reload cost L[l]
 *     (L defaults to O; with "bandwidth": ceil((memory.F - keep) / rate)).
 *   - Dependencies: F(l,j) after F(l-1,j), B(l,j) after F(l,j) and
 *     B(l+1,j), W(l,j) after B(l,j) (+ comm across devices); O(l,j) after
 *     F(l,j) ends; B(l,j) after L(l,j) ends.
 *   - Memory: the running sum in ROW ORDER (both resources' ops as
 *     listed): F +memory.F, B and W their deltas, O -(F - keep), L +(F -
 *     keep); every prefix <= memory.limit. Host, per device: the running sum
 *     over the row's channel ops, O +(F - keep), L -(F - keep), every
 *     prefix <= host_limit.
 *   - The two timing rules: an op that takes memory (delta > 0: F, L)
 *     starts no earlier than the start of every op listed before it on
 *     the other resource that takes memory, and no earlier than the end of
 *     every op listed before it (either resource) that frees memory (delta
 *     < 0: O, and B, W with a negative delta). Otherwise as early as
 *     possible.
 *   - Listing rules: both or neither of O(l,j), L(l,j), in the order
 *     F(l,j) < O(l,j) < L(l,j) < B(l,j), on stage l's device; only on an
 *     instance with the key.
 *   - makespan: the end of the last compute op; span: max over devices of
 *     last compute end - first compute start. sim_result.offloaded counts
 *     the offloaded (stage, micro-batch)s; copy_start / copy_end, indexed
 *     [(c * L + l) * M + j], c = 0 for O and 1 for L, are -1 where (l, j)
 *     is not offloaded.
 *
 * Known answers come from timelines drawn by hand in the comments, and from
 * a brute force written here (every subset of offloads and every listing
 * of every device's row, up to exact reductions argued where they are
 * made) with its own evaluator of the rules above (ol_row_finish,
 * ol_time_rows), independent of sched/sim.c; the simulator is compared
 * with it on samples, and its optimum is the known answer for exact_solve
 * and bound_compute.
 *
 * Rows in this file: "F(0,1) O(0,1) L(0,1) B(0,1)" (ol_make_schedule).
 * Timeline pictures: one character per time unit; compute and channel on
 * two lines per device; micro-batch 0 in capitals, 1 in lower case, 2 as
 * digits ('2' for any op of micro-batch 2); '.' idle.
 */
#include "test_helpers.h"
#include "milp_alone.h"

#include "sched/bound.h"
#include "sched/sim.h"
#include "solvers/bnb.h"
#include "solvers/exact.h"
#include "chain_deps.h"
#include "xorshift.h"

/* ---- helpers -------------------------------------------------------------- */

/* Parse "O(1,2)" (kinds F, B, W, O, L) at *p; advances *p past it. */
static int ol_parse_op(const char **p, int *kind, int *stage, int *mb)
{
	char k;
	int n = 0;
	if (sscanf(*p, " %c(%d,%d)%n", &k, stage, mb, &n) != 3 || n == 0)
		return 0;
	const char *names = "FBWOL", *at = strchr(names, k);
	if (!at || !k)
		fail_msg("bad op kind '%c' in test data", k);
	*kind = (int)(at - names);   /* OP_F .. OP_L in that order */
	*p += n;
	return 1;
}

/* A schedule of D rows written as "F(0,0) O(0,0) L(0,0) B(0,0)". */
static struct schedule *ol_make_schedule(int D, const char *const *rows)
{
	struct schedule *sc = schedule_new(D);
	assert_non_null(sc);
	for (int d = 0; d < D; d++) {
		const char *p = rows[d];
		int k, l, j;
		while (p && ol_parse_op(&p, &k, &l, &j))
			assert_int_equal(schedule_push(sc, d, k, l, j), STATUS_OK);
		while (p && *p == ' ')
			p++;
		if (p && *p)
			fail_msg("trailing text in test row: '%s'", p);
	}
	return sc;
}

/* A schedule as compact JSON (the caller frees it). */
static char *ol_schedule_text(const struct schedule *sc)
{
	if (!sc)
		return strdup("(none)");
	json_t *j = schedule_to_json(sc);
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	return text ? text : strdup("(schedule_to_json failed)");
}

/* Simulate (json, rows) expecting failure with a one-line message that
 * contains every string of `all` (up to 3, NULL-terminated early) and, when
 * `any` is given, at least one of its (up to 3). Fails twice (with and
 * without an error record). */
static void expect_ol_error(const char *json, int D, const char *const *rows,
			    const char *const *all, const char *const *any)
{
	struct instance *in = parse_instance_ok(json);
	struct schedule *sc = ol_make_schedule(D, rows);
	struct sim *s = sim_new(in);
	assert_non_null(s);
	struct sim_result r;
	struct error err = {{0}};
	if (sim_run(s, sc, &r, &err) != STATUS_ERROR)
		fail_msg("accepted: instance %s, rows '%s' | '%s'", json, rows[0],
			 D > 1 ? rows[1] : "");
	if (!err.msg[0] || strchr(err.msg, '\n'))
		fail_msg("not a one-line message: '%s'", err.msg);
	for (int i = 0; i < 3 && all[i]; i++)
		if (!strstr(err.msg, all[i]))
			fail_msg("'%s' does not contain '%s' (rows '%s')", err.msg, all[i], rows[0]);
	if (any) {
		bool found = false;
		for (int i = 0; i < 3 && any[i]; i++)
			found |= strstr(err.msg, any[i]) != NULL;
		if (!found)
			fail_msg("'%s' contains none of '%s', '%s' (rows '%s')", err.msg, any[0],
				 any[1] ? any[1] : "", rows[0]);
	}
	assert_int_equal(sim_run(s, sc, &r, NULL), STATUS_ERROR);
	sim_free(s);
	schedule_free(sc);
	instance_free(in);
}

/* exact_solve certified at `want`, its schedule re-simulating to it. */
static void expect_exact(const char *json, int64_t want)
{
	struct instance *in = parse_instance_ok(json);
	struct exact_options o = {.time_limit = 20, .threads = 1};
	struct exact_result res;
	struct error err = {{0}};
	if (exact_solve(in, &o, &res, &err))
		fail_msg("exact_solve: %s\ninstance %s", err.msg, json);
	if (!res.certified || res.objective != want || strcmp(res.status, "optimal"))
		fail_msg("exact_solve: %s %lld (bound %lld, %s), expected %lld\ninstance %s",
			 res.status, (long long)res.objective, (long long)res.bound,
			 res.certified ? "certified" : "not certified", (long long)want, json);
	struct sim *s = sim_new(in);
	struct sim_result r;
	assert_non_null(res.schedule);
	if (sim_run(s, res.schedule, &r, &err))
		fail_msg("exact's schedule does not simulate: %s", err.msg);
	assert_int_equal(r.objective, want);
	struct bounds bd;
	assert_int_equal(bound_compute(in, &bd, &err), STATUS_OK);
	if (bd.best > want)
		fail_msg("bound %lld (%s) above the optimum %lld\ninstance %s", (long long)bd.best,
			 bd.by, (long long)want, json);
	sim_free(s);
	exact_result_release(&res);
	instance_free(in);
}

/* ---- 1. hand-drawn timelines ------------------------------------------------- */

struct ol_op_time {
	const char *op;          /* "F(0,1)" or "O(0,1)" */
	int64_t start, end;
};

struct ol_timeline {
	const char *json;
	int devices;
	const char *rows[2];
	struct ol_op_time ops[32];   /* every compute op, and every channel op listed */
	int64_t makespan, span, objective;
	int64_t peak[2];
	const char *name;
};

/* Simulate t: every compute op's and channel op's start and end as drawn,
 * no copy times for the (l, j) not offloaded, the offloaded count,
 * makespan, span, objective and peaks. */
static void check_ol_timeline(const struct ol_timeline *t)
{
	struct instance *in = parse_instance_ok(t->json);
	struct schedule *sc = ol_make_schedule(t->devices, t->rows);
	struct sim *s = sim_new(in);
	assert_non_null(s);
	struct sim_result r;
	struct error err = {{0}};
	if (sim_run(s, sc, &r, &err))
		fail_msg("%s: sim_run failed: %s", t->name, err.msg);
	int L = in->stages, M = in->microbatches, ncompute = 0, nchannel = 0;
	bool listed[2 * 16 * 4] = {0};
	assert_true(2 * L * M <= (int)(sizeof listed / sizeof *listed));
	for (int i = 0; i < 32 && t->ops[i].op; i++) {
		const char *p = t->ops[i].op;
		int k = 0, l = 0, j = 0;
		assert_true(ol_parse_op(&p, &k, &l, &j));
		int64_t a, b;
		if (k == OP_O || k == OP_L) {
			int c = k - OP_O, x = (c * L + l) * M + j;
			assert_non_null(r.copy_start);
			assert_non_null(r.copy_end);
			a = r.copy_start[x];
			b = r.copy_end[x];
			listed[x] = true;
			nchannel++;
		} else {
			int id = inst_op_id(in, k, l, j);
			a = r.start[id];
			b = r.end[id];
			ncompute++;
		}
		if (a != t->ops[i].start || b != t->ops[i].end)
			fail_msg("%s: %s: got [%lld, %lld), expected [%lld, %lld)", t->name, t->ops[i].op,
				 (long long)a, (long long)b, (long long)t->ops[i].start,
				 (long long)t->ops[i].end);
	}
	if (ncompute != inst_nops(in))
		fail_msg("%s: the test names %d compute ops, the instance has %d", t->name, ncompute,
			 inst_nops(in));
	for (int x = 0; x < 2 * L * M; x++)
		if (!listed[x] && (r.copy_start[x] != -1 || r.copy_end[x] != -1))
			fail_msg("%s: copy op %d (c %d, stage %d, mb %d) not listed, times [%lld, %lld)",
				 t->name, x, x / (L * M), x / M % L, x % M, (long long)r.copy_start[x],
				 (long long)r.copy_end[x]);
	if (r.offloaded != nchannel / 2)
		fail_msg("%s: offloaded %d, expected %d", t->name, r.offloaded, nchannel / 2);
	if (r.makespan != t->makespan || r.span != t->span || r.objective != t->objective)
		fail_msg("%s: makespan %lld span %lld objective %lld, expected %lld %lld %lld",
			 t->name, (long long)r.makespan, (long long)r.span, (long long)r.objective,
			 (long long)t->makespan, (long long)t->span, (long long)t->objective);
	for (int d = 0; d < t->devices; d++)
		if (r.peak_memory[d] != t->peak[d])
			fail_msg("%s: device %d peak %lld, expected %lld", t->name, d,
				 (long long)r.peak_memory[d], (long long)t->peak[d]);
	assert_int_equal(r.recomputed, 0);
	sim_free(s);
	schedule_free(sc);
	instance_free(in);
}

/*
 * Two devices (stage l on device l), 2 micro-batches, F = B = 2, comm 0,
 * memory F = 2, B = -2, limit [2, 4]: device 0 holds one activation.
 *
 * Without offload device 0's only order is F(0,0) B(0,0) F(0,1) B(0,1)
 * (F(0,1) before B(0,0): 2 + 2 > 2), and each micro-batch waits the whole
 * round trip:
 *
 *   time   0123456789012345
 *   dev0   FF....BBff....bb
 *   dev1   ..FFBB....ffbb..
 *
 * F(0,0) [0,2), F(1,0) [2,4), B(1,0) [4,6), B(0,0) [6,8), F(0,1) [8,10),
 * F(1,1) [10,12), B(1,1) [12,14), B(0,1) [14,16): makespan 16 (span: dev0
 * 16, dev1 14 - 2 = 12), the optimum without offload (B(0,0) ends at 8 at
 * the earliest; F(0,1), F(1,1), B(1,1), B(0,1) follow one another).
 *
 * (A) offload O = 1 (L defaults to O), keep 0. Device 0 offloads both:
 * F(0,0) O(0,0) F(0,1) O(0,1) L(0,0) B(0,0) L(0,1) B(0,1); device 1 1F1B.
 *
 *   time   012345678901
 *   dev0   FF.ff..BB.bb
 *    chan  ..O..oL..l..
 *   dev1   ..FFBBffbb..
 *
 * F(0,0) [0,2); O(0,0) after it, [2,3); F(0,1) takes memory and is listed
 * after O(0,0), which frees it: it waits for its end, [3,5) (compute is
 * free at 2); O(0,1) after F(0,1), [5,6); L(0,0): the channel is free at
 * 6, the O's before it ended at 3 and 6, the F's listed before it started
 * at 0 and 3: [6,7); B(0,0) after L(0,0) (7) and B(1,0) (6): [7,9);
 * L(0,1) after the end of B(0,0), listed before it, which frees memory:
 * [9,10); B(0,1) after L(0,1) (10) and B(1,1) (10): [10,12). Device 1:
 * F(1,0) [2,4), B(1,0) [4,6), F(1,1) [6,8) (F(0,1) ended at 5), B(1,1)
 * [8,10). Makespan 12, span 12 (dev1 10 - 2 = 8). Memory on device 0 in
 * row order: 2, 0, 2, 0, 2, 0, 2, 0: peak 2; host 2, 4, 2, 0. The brute
 * force below finds 12 the optimum.
 *
 * (B) the same with L = 2: the reload delays B(0,0) past B(1,0)'s end.
 *
 *   time   01234567890123
 *   dev0   FF.ff...BB..bb
 *    chan  ..O..oLL..ll..
 *   dev1   ..FFBBffbb....
 *
 * As (A) up to O(0,1) [5,6); L(0,0) [6,8); B(0,0): its input B(1,0) came
 * at 6, the reload ends at 8: [8,10); L(0,1) after B(0,0) ends: [10,12);
 * B(0,1) [12,14). Makespan 14 = span (dev1 8). Optimum 14 (brute force).
 *
 * (C) O = 2, L = 1: F(0,1) waits for the O listed before it to end.
 *
 *   time   01234567890123
 *   dev0   FF..ff...BB.bb
 *    chan  ..OO..ooL..l..
 *   dev1   ..FFBBffbb....
 *
 * F(0,0) [0,2), O(0,0) [2,4); F(0,1): compute is free at 2, O(0,0) ends
 * at 4: [4,6) (listed before O(0,0) it would find 2 + 2 > 2); O(0,1)
 * [6,8); L(0,0) [8,9); B(0,0) [9,11); L(0,1) after B(0,0): [11,12);
 * B(0,1) [12,14). Device 1: F(1,0) [2,4), B(1,0) [4,6), F(1,1) [6,8),
 * B(1,1) [8,10). Makespan 14 = span. Optimum 14 (brute force).
 *
 * (D) (A) with host_limit 2: the host holds one activation. (A)'s rows
 * are invalid (host 2 after O(0,0), 4 > 2 at O(0,1), device 0 position
 * 3). Offloading micro-batch 0 only, with device 1 running micro-batch 1's
 * backward first:
 *
 *   time   01234567890123
 *   dev0   FF.ff....bb.BB      F(0,0) O(0,0) F(0,1) B(0,1) L(0,0) B(0,0)
 *    chan  ..O........L..
 *   dev1   ..FF.ffbbBB...      F(1,0) F(1,1) B(1,1) B(1,0)
 *
 * F(0,0) [0,2), O(0,0) [2,3), F(0,1) [3,5); F(1,0) [2,4), F(1,1) [5,7),
 * B(1,1) [7,9), B(1,0) [9,11); B(0,1) [9,11); L(0,0) after the end of
 * B(0,1), listed before it: [11,12); B(0,0) [12,14). Makespan 14; span
 * dev0 14, dev1 11 - 2 = 9. Peaks: dev0 2 (2, 0, 2, 0, 2, 0), dev1 4
 * (2, 4, 2, 0); host 2, 2, 0. Optimum 14 (brute force).
 */
#define OL_PIPE(key)                                                            \
	"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2},\"comm\":0,"     \
	"\"memory\":{\"F\":2,\"B\":-2,\"limit\":[2,4]}" key "}"
#define OL_PIPE_A OL_PIPE(",\"offload\":{\"O\":1}")
#define OL_PIPE_B OL_PIPE(",\"offload\":{\"O\":1,\"L\":2}")
#define OL_PIPE_C OL_PIPE(",\"offload\":{\"O\":2,\"L\":1}")
#define OL_PIPE_D OL_PIPE(",\"offload\":{\"O\":1,\"host_limit\":2}")
#define OL_ROW_BOTH "F(0,0) O(0,0) F(0,1) O(0,1) L(0,0) B(0,0) L(0,1) B(0,1)"
#define OL_ROW_1F1B "F(1,0) B(1,0) F(1,1) B(1,1)"

static const struct ol_timeline pipe_plain = {
	OL_PIPE(",\"offload\":{\"O\":1}"),
	2,
	{"F(0,0) B(0,0) F(0,1) B(0,1)", OL_ROW_1F1B},
	{{"F(0,0)", 0, 2}, {"B(0,0)", 6, 8}, {"F(0,1)", 8, 10}, {"B(0,1)", 14, 16},
	 {"F(1,0)", 2, 4}, {"B(1,0)", 4, 6}, {"F(1,1)", 10, 12}, {"B(1,1)", 12, 14}},
	16, 16, 16, {2, 2},
	"the pipeline without offloads",
};

static const struct ol_timeline pipe_a = {
	OL_PIPE_A,
	2,
	{OL_ROW_BOTH, OL_ROW_1F1B},
	{{"F(0,0)", 0, 2}, {"O(0,0)", 2, 3}, {"F(0,1)", 3, 5}, {"O(0,1)", 5, 6},
	 {"L(0,0)", 6, 7}, {"B(0,0)", 7, 9}, {"L(0,1)", 9, 10}, {"B(0,1)", 10, 12},
	 {"F(1,0)", 2, 4}, {"B(1,0)", 4, 6}, {"F(1,1)", 6, 8}, {"B(1,1)", 8, 10}},
	12, 12, 12, {2, 2},
	"(A) both micro-batches offloaded",
};

static const struct ol_timeline pipe_b = {
	OL_PIPE_B,
	2,
	{OL_ROW_BOTH, OL_ROW_1F1B},
	{{"F(0,0)", 0, 2}, {"O(0,0)", 2, 3}, {"F(0,1)", 3, 5}, {"O(0,1)", 5, 6},
	 {"L(0,0)", 6, 8}, {"B(0,0)", 8, 10}, {"L(0,1)", 10, 12}, {"B(0,1)", 12, 14},
	 {"F(1,0)", 2, 4}, {"B(1,0)", 4, 6}, {"F(1,1)", 6, 8}, {"B(1,1)", 8, 10}},
	14, 14, 14, {2, 2},
	"(B) the reload delays B",
};

static const struct ol_timeline pipe_c = {
	OL_PIPE_C,
	2,
	{OL_ROW_BOTH, OL_ROW_1F1B},
	{{"F(0,0)", 0, 2}, {"O(0,0)", 2, 4}, {"F(0,1)", 4, 6}, {"O(0,1)", 6, 8},
	 {"L(0,0)", 8, 9}, {"B(0,0)", 9, 11}, {"L(0,1)", 11, 12}, {"B(0,1)", 12, 14},
	 {"F(1,0)", 2, 4}, {"B(1,0)", 4, 6}, {"F(1,1)", 6, 8}, {"B(1,1)", 8, 10}},
	14, 14, 14, {2, 2},
	"(C) an F waits for the O before it",
};

static const struct ol_timeline pipe_d = {
	OL_PIPE_D,
	2,
	{"F(0,0) O(0,0) F(0,1) B(0,1) L(0,0) B(0,0)", "F(1,0) F(1,1) B(1,1) B(1,0)"},
	{{"F(0,0)", 0, 2}, {"O(0,0)", 2, 3}, {"F(0,1)", 3, 5}, {"B(0,1)", 9, 11},
	 {"L(0,0)", 11, 12}, {"B(0,0)", 12, 14},
	 {"F(1,0)", 2, 4}, {"F(1,1)", 5, 7}, {"B(1,1)", 7, 9}, {"B(1,0)", 9, 11}},
	14, 14, 14, {2, 4},
	"(D) host_limit 2, one offload",
};

/*
 * Allocations in row order: 1 device, 3 micro-batches, F = B = 1, memory
 * F = 1, B = -1, limit 3; offload O = 1, L = 2. Two L's run back to back
 * on the channel, and an F listed after the second waits for its START
 * (an op taking memory starts no earlier than every op taking memory listed
 * before it on the other resource), not for the first L's end only:
 *
 *   F(0,0) O(0,0) F(0,1) O(0,1) L(0,0) L(0,1) F(0,2) B(0,0) B(0,1) B(0,2)
 *
 *   time   0123456789
 *   dev0   F.f...2Bb2
 *    chan  .O.oLLll..
 *
 * F(0,0) [0,1), O(0,0) [1,2), F(0,1) after O(0,0)'s end [2,3), O(0,1)
 * [3,4), L(0,0) [4,6), L(0,1) [6,8) (the channel); F(0,2): compute free at
 * 3, the O's ended by 4, L(0,0) started at 4, L(0,1) at 6: [6,7); B(0,0)
 * [7,8) (L(0,0) ended at 6); B(0,1) after L(0,1): [8,9); B(0,2) [9,10).
 * Makespan 10. Memory 1, 0, 1, 0, 1, 2, 3, 2, 1, 0: peak 3.
 *
 * Listing F(0,2) before L(0,1) instead, it waits for L(0,0)'s start only:
 *
 *   F(0,0) O(0,0) F(0,1) O(0,1) L(0,0) F(0,2) L(0,1) B(0,0) B(0,1) B(0,2)
 *
 *   time   0123456789
 *   dev0   F.f.2.B.b2
 *    chan  .O.oLLll..
 *
 * F(0,2) [4,5); L(0,1) [6,8) (the channel; F(0,2) started at 4); B(0,0)
 * [6,7); B(0,1) [8,9); B(0,2) [9,10). Makespan 10, the same peak 3 (1, 0,
 * 1, 0, 1, 2, 3, 2, 1, 0). The optimum is 6, the busy time, by F B F B F B
 * without offloads (peak 1).
 */
#define OL_ROWORDER                                                             \
	"{\"devices\":1,\"microbatches\":3,\"cost\":{\"F\":1,\"B\":1},"                \
	"\"memory\":{\"F\":1,\"B\":-1,\"limit\":3},\"offload\":{\"O\":1,\"L\":2}}"

static const struct ol_timeline roworder_late = {
	OL_ROWORDER,
	1,
	{"F(0,0) O(0,0) F(0,1) O(0,1) L(0,0) L(0,1) F(0,2) B(0,0) B(0,1) B(0,2)"},
	{{"F(0,0)", 0, 1}, {"O(0,0)", 1, 2}, {"F(0,1)", 2, 3}, {"O(0,1)", 3, 4},
	 {"L(0,0)", 4, 6}, {"L(0,1)", 6, 8}, {"F(0,2)", 6, 7}, {"B(0,0)", 7, 8},
	 {"B(0,1)", 8, 9}, {"B(0,2)", 9, 10}},
	10, 10, 10, {3},
	"an F after two L's waits for the second's start",
};

static const struct ol_timeline roworder_early = {
	OL_ROWORDER,
	1,
	{"F(0,0) O(0,0) F(0,1) O(0,1) L(0,0) F(0,2) L(0,1) B(0,0) B(0,1) B(0,2)"},
	{{"F(0,0)", 0, 1}, {"O(0,0)", 1, 2}, {"F(0,1)", 2, 3}, {"O(0,1)", 3, 4},
	 {"L(0,0)", 4, 6}, {"F(0,2)", 4, 5}, {"L(0,1)", 6, 8}, {"B(0,0)", 6, 7},
	 {"B(0,1)", 8, 9}, {"B(0,2)", 9, 10}},
	10, 10, 10, {3},
	"an F between two L's waits for the first's start",
};

/*
 * Split backward and keep: 1 device, 2 micro-batches, F = B = W = 1,
 * memory F = 3, B = -1, W = -2, limit 4; offload O = 1, keep 1 (an O
 * moves 2). F(0,0) O(0,0) F(0,1) B(0,1) W(0,1) L(0,0) B(0,0) W(0,0):
 *
 *   time   01234567
 *   dev0   F.fbw.BW
 *    chan  .O...L..
 *
 * F(0,0) [0,1), O(0,0) [1,2), F(0,1) after O(0,0)'s end [2,3), B(0,1)
 * [3,4), W(0,1) [4,5); L(0,0) after the ends of B(0,1) and W(0,1), listed
 * before it and freeing memory: [5,6); B(0,0) [6,7), W(0,0) [7,8).
 * Makespan 8. Memory: 3, 1, 4, 3, 1, 3, 2, 0: peak 4. With L(0,0) listed
 * before W(0,1): 3, 1, 4, 3, then 5 > 4 at L(0,0) (position 4): invalid.
 * The optimum is 6, F B W F B W without offloads (peak 3).
 */
#define OL_SPLIT                                                                \
	"{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":1,\"W\":1},"        \
	"\"memory\":{\"F\":3,\"B\":-1,\"W\":-2,\"limit\":4},\"offload\":{\"O\":1,\"keep\":1}}"

static const struct ol_timeline split_keep = {
	OL_SPLIT,
	1,
	{"F(0,0) O(0,0) F(0,1) B(0,1) W(0,1) L(0,0) B(0,0) W(0,0)"},
	{{"F(0,0)", 0, 1}, {"O(0,0)", 1, 2}, {"F(0,1)", 2, 3}, {"B(0,1)", 3, 4},
	 {"W(0,1)", 4, 5}, {"L(0,0)", 5, 6}, {"B(0,0)", 6, 7}, {"W(0,0)", 7, 8}},
	8, 8, 8, {4},
	"split backward, keep 1: the L waits for the B and W before it",
};

/*
 * Valid only with offload: two stages on one device (placement [0, 0]),
 * one micro-batch, F = B = 1, memory F = 2, B = -2, limit 2, O = 1.
 * Without offload F(1,0) runs while F(0,0)'s activations are held (B(0,0)
 * needs B(1,0)): 2 + 2 > 2. With F(0,0)'s offloaded:
 *
 *   time   012345
 *   dev0   F.fb.B      F(0,0) O(0,0) F(1,0) B(1,0) L(0,0) B(0,0)
 *    chan  .O..L.      (f, b: stage 1's F and B)
 *
 * F(0,0) [0,1), O(0,0) [1,2), F(1,0) after O(0,0)'s end [2,3), B(1,0)
 * [3,4), L(0,0) after B(1,0)'s end [4,5), B(0,0) [5,6). Memory 2, 0, 2, 0,
 * 2, 0. Optimal: every valid schedule offloads F(0,0) before F(1,0)
 * (offloading F(1,0) cannot help: it needs 2 + 2 when it starts), so
 * F(1,0) waits for O(0,0)'s end; L(0,0) comes after B(1,0) (2 + 2 > 2
 * otherwise), so after its end; B(0,0) after L(0,0): the chain F, O, F, B,
 * L, B of six unit ops. No family is valid here (they keep every
 * activation), so exact_solve must find and prove 6 on its own.
 */
#define OL_STACKED                                                              \
	"{\"devices\":1,\"microbatches\":1,\"placement\":[0,0],\"edges\":[[0,1]],"     \
	"\"cost\":{\"F\":1,\"B\":1},\"memory\":{\"F\":2,\"B\":-2,\"limit\":2},"        \
	"\"offload\":{\"O\":1}}"

static const struct ol_timeline stacked = {
	OL_STACKED,
	1,
	{"F(0,0) O(0,0) F(1,0) B(1,0) L(0,0) B(0,0)"},
	{{"F(0,0)", 0, 1}, {"O(0,0)", 1, 2}, {"F(1,0)", 2, 3}, {"B(1,0)", 3, 4},
	 {"L(0,0)", 4, 5}, {"B(0,0)", 5, 6}},
	6, 6, 6, {2},
	"two stages on one device, valid by offload only",
};

static void test_timelines(void **state)
{
	(void)state;
	const struct ol_timeline *all[] = {
		&pipe_plain, &pipe_a, &pipe_b, &pipe_c, &pipe_d, &roworder_late,
		&roworder_early, &split_keep, &stacked,
	};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		check_ol_timeline(all[i]);

	/* the invalid variants drawn above */
	expect_ol_error(OL_PIPE_D, 2, (const char *const[]){OL_ROW_BOTH, OL_ROW_1F1B},
			(const char *const[]){"device 0", "O(0,1)", "4 > 2"},
			(const char *const[]){"host", "host_limit", NULL});
	expect_ol_error(OL_SPLIT, 1,
			(const char *const[]){"F(0,0) O(0,0) F(0,1) B(0,1) L(0,0) W(0,1) B(0,0) W(0,0)"},
			(const char *const[]){"position 4", "L(0,0)", "5 > 4"}, NULL);
	expect_ol_error(OL_STACKED, 1, (const char *const[]){"F(0,0) F(1,0) B(1,0) B(0,0)"},
			(const char *const[]){"F(1,0)", "4 > 2", NULL}, NULL);
	/* F(0,1) listed before the O that makes room for it */
	expect_ol_error(OL_PIPE_C, 2,
			(const char *const[]){"F(0,0) F(0,1) O(0,0) O(0,1) L(0,0) B(0,0) L(0,1) B(0,1)",
					      OL_ROW_1F1B},
			(const char *const[]){"position 1", "F(0,1)", "4 > 2"}, NULL);
	/* both reloads before the first B */
	expect_ol_error(OL_PIPE_A, 2,
			(const char *const[]){"F(0,0) O(0,0) F(0,1) O(0,1) L(0,0) L(0,1) B(0,0) B(0,1)",
					      OL_ROW_1F1B},
			(const char *const[]){"position 5", "L(0,1)", "4 > 2"}, NULL);

	/* the optima: the brute force's on (A)-(D), argued above otherwise */
	expect_exact(OL_PIPE_A, 12);
	expect_exact(OL_PIPE_B, 14);
	expect_exact(OL_PIPE_C, 14);
	expect_exact(OL_PIPE_D, 14);
	expect_exact(OL_PIPE(""), 16);
	expect_exact(OL_ROWORDER, 6);
	expect_exact(OL_SPLIT, 6);
	expect_exact(OL_STACKED, 6);
}

/* ---- 2. the instance key ----------------------------------------------------------- */

static void test_instance_key(void **state)
{
	(void)state;
	static const char *const mem = ",\"memory\":{\"F\":2,\"B\":-2}";
	static const struct {
		const char *name, *memory, *extra, *offload, *what;
	} bad[] = {
		{"without memory", "", "", "{\"O\":1}", "memory"},
		{"with recompute", NULL, ",\"recompute\":{\"R\":1}", "{\"O\":1}", "recompute"},
		{"with overlap", NULL, ",\"overlap\":{\"factor\":0.5}", "{\"O\":1}", "overlap"},
		{"bandwidth and O", NULL, "", "{\"O\":1,\"bandwidth\":2}", "bandwidth"},
		{"negative keep", NULL, "", "{\"O\":1,\"keep\":-1}", "keep"},
		{"keep above F", NULL, "", "{\"O\":1,\"keep\":3}", "keep"},
		{"keep above F, a list", NULL, "", "{\"O\":1,\"keep\":[3]}", "keep"},
		{"bandwidth 0", NULL, "", "{\"bandwidth\":0}", "bandwidth"},
		{"negative bandwidth", NULL, "", "{\"bandwidth\":-1}", "bandwidth"},
		{"bandwidth a string", NULL, "", "{\"bandwidth\":\"2\"}", "bandwidth"},
		{"negative O", NULL, "", "{\"O\":-1}", "O"},
		{"negative L", NULL, "", "{\"O\":1,\"L\":-2}", "L"},
		{"O list too long", NULL, "", "{\"O\":[1,2]}", "O"},
		{"negative host_limit", NULL, "", "{\"O\":1,\"host_limit\":-1}", "host_limit"},
		{"host_limit list too long", NULL, "", "{\"O\":1,\"host_limit\":[1,2]}", "host_limit"},
		{"unknown key", NULL, "", "{\"O\":1,\"drop\":1}", "drop"},
		{"neither O nor bandwidth", NULL, "", "{\"keep\":0}", "offload"},
		{"not an object", NULL, "", "5", "offload"},
		{"a list", NULL, "", "[1,1]", "offload"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char json[400];
		snprintf(json, sizeof json,
			 "{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3}%s%s,"
			 "\"offload\":%s}", bad[i].memory ? bad[i].memory : mem, bad[i].extra,
			 bad[i].offload);
		struct instance *in = NULL;
		struct error err = {{0}};
		if (instance_parse(json, "test.json", &in, &err) != STATUS_ERROR)
			fail_msg("case '%s' was accepted: %s", bad[i].name, json);
		assert_null(in);
		check_error_message(bad[i].name, err.msg, "test.json", "offload", bad[i].what);
	}

	/* accepted: L defaults to O, keep to 0, the host to unlimited */
	struct instance *in = parse_instance_ok(
		"{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"
		"\"memory\":{\"F\":2,\"B\":-2},\"offload\":{\"O\":3}}");
	assert_true(in->has_offload);
	assert_false(in->has_recompute);
	assert_int_equal(in->offload_cost[0], 3);
	assert_int_equal(in->reload_cost[0], 3);
	assert_int_equal(in->offload_keep[0], 0);
	assert_int_equal(inst_moved(in, 0), 2);
	assert_false(in->has_host_limit);
	assert_true(op_on_channel(OP_O) && op_on_channel(OP_L));
	assert_false(op_on_channel(OP_F) || op_on_channel(OP_B) || op_on_channel(OP_W));
	instance_free(in);
	/* keep = F: nothing moves; O = 0 */
	in = parse_instance_ok("{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"
			       "\"memory\":{\"F\":2,\"B\":-2},\"offload\":{\"O\":0,\"keep\":2}}");
	assert_int_equal(inst_moved(in, 0), 0);
	assert_int_equal(in->offload_cost[0], 0);
	instance_free(in);
	/* bandwidth: ceil((F - keep) / rate), a rate that is not whole too */
	static const struct {
		const char *rate;
		int64_t want[2];
	} bw[] = {{"1", {4, 3}}, {"2", {2, 2}}, {"3", {2, 1}}, {"1.5", {3, 2}}, {"10", {1, 1}}};
	for (size_t i = 0; i < sizeof bw / sizeof *bw; i++) {
		char json[300];
		snprintf(json, sizeof json,
			 "{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"
			 "\"memory\":{\"F\":[5,3],\"B\":[-5,-3]},"
			 "\"offload\":{\"bandwidth\":%s,\"keep\":[1,0]}}", bw[i].rate);
		in = parse_instance_ok(json);
		for (int l = 0; l < 2; l++) {
			if (in->offload_cost[l] != bw[i].want[l] || in->reload_cost[l] != bw[i].want[l])
				fail_msg("bandwidth %s, stage %d: O %lld L %lld, expected %lld", bw[i].rate,
					 l, (long long)in->offload_cost[l], (long long)in->reload_cost[l],
					 (long long)bw[i].want[l]);
		}
		assert_int_equal(inst_moved(in, 0), 4);
		instance_free(in);
	}
	/* per-stage lists and a per-device host limit */
	in = parse_instance_ok(
		"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"
		"\"memory\":{\"F\":[2,3],\"B\":[-2,-3]},"
		"\"offload\":{\"O\":[1,2],\"L\":[3,0],\"keep\":[1,0],\"host_limit\":[5,6]}}");
	assert_int_equal(in->offload_cost[0], 1);
	assert_int_equal(in->offload_cost[1], 2);
	assert_int_equal(in->reload_cost[0], 3);
	assert_int_equal(in->reload_cost[1], 0);
	assert_int_equal(in->offload_keep[0], 1);
	assert_int_equal(in->offload_keep[1], 0);
	assert_int_equal(inst_moved(in, 0), 1);
	assert_int_equal(inst_moved(in, 1), 3);
	assert_true(in->has_host_limit);
	assert_non_null(in->host_limit);
	assert_int_equal(in->host_limit[0], 5);
	assert_int_equal(in->host_limit[1], 6);
	/* the key survives instance_to_json and parses back to the same digest */
	json_t *j = instance_to_json(in);
	assert_non_null(json_object_get(j, "offload"));
	char *text = json_dumps(j, JSON_COMPACT);
	struct instance *back = parse_instance_ok(text);
	char a[65], b[65];
	instance_digest(in, a);
	instance_digest(back, b);
	assert_string_equal(a, b);
	assert_true(back->has_offload && back->has_host_limit);
	assert_int_equal(back->reload_cost[0], 3);
	assert_int_equal(back->offload_keep[0], 1);
	assert_int_equal(back->host_limit[1], 6);
	free(text);
	json_decref(j);
	instance_free(back);
	/* the canonical JSON: O, L and keep as lists */
	j = instance_canonical_json(in);
	json_t *o = json_object_get(j, "offload");
	assert_non_null(o);
	assert_true(json_is_array(json_object_get(o, "O")) && json_is_array(json_object_get(o, "L")) &&
		    json_is_array(json_object_get(o, "keep")));
	json_decref(j);
	instance_free(in);
	/* a single number for host_limit means every device */
	in = parse_instance_ok("{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"
			       "\"memory\":{\"F\":[2,3],\"B\":[-2,-3]},"
			       "\"offload\":{\"O\":1,\"host_limit\":4}}");
	assert_int_equal(in->host_limit[0], 4);
	assert_int_equal(in->host_limit[1], 4);
	instance_free(in);
	/* the same problem written with bandwidth or with O and L: one digest */
	in = parse_instance_ok("{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"
			       "\"memory\":{\"F\":4,\"B\":-4},\"offload\":{\"bandwidth\":2}}");
	back = parse_instance_ok("{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"
				 "\"memory\":{\"F\":4,\"B\":-4},\"offload\":{\"O\":2,\"L\":2,\"keep\":0}}");
	instance_digest(in, a);
	instance_digest(back, b);
	assert_string_equal(a, b);
	instance_free(back);
	/* without the key: no "offload" in the JSON, another digest */
	back = parse_instance_ok("{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"
				 "\"memory\":{\"F\":4,\"B\":-4}}");
	assert_false(back->has_offload);
	j = instance_to_json(back);
	assert_null(json_object_get(j, "offload"));
	json_decref(j);
	instance_digest(back, b);
	assert_string_not_equal(a, b);
	instance_free(back);
	instance_free(in);
}

/* ---- 3. schedules: JSON and invalid listings -------------------------------------- */

#define OL_LOOSE(key)                                                           \
	"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2},\"comm\":0,"     \
	"\"memory\":{\"F\":2,\"B\":-2,\"limit\":4}" key "}"
#define OL_LOOSE_KEY ",\"offload\":{\"O\":1}"

static void test_schedule_ops(void **state)
{
	(void)state;
	const char *rows = "[[[\"F\",0,0],[\"O\",0,0],[\"F\",0,1],[\"L\",0,0],[\"B\",0,0],"
			   "[\"B\",0,1]]]";
	char text[256];
	snprintf(text, sizeof text, "{\"schedule\":%s}", rows);
	struct schedule *a = NULL;
	struct error err = {{0}};
	if (schedule_parse(text, "test.json", &a, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(a->rows[0].len, 6);
	static const int kinds[] = {OP_F, OP_O, OP_F, OP_L, OP_B, OP_B};
	for (int i = 0; i < 6; i++)
		assert_int_equal(a->rows[0].ops[i].kind, kinds[i]);
	assert_int_equal(a->rows[0].ops[3].stage, 0);
	assert_int_equal(a->rows[0].ops[3].mb, 0);
	json_t *j = schedule_to_json(a);
	char *out = json_dumps(j, JSON_COMPACT);
	assert_string_equal(out, rows);
	free(out);
	json_decref(j);
	struct schedule *b = ol_make_schedule(1, (const char *const[]){
		"F(0,0) O(0,0) F(0,1) L(0,0) B(0,0) B(0,1)"});
	assert_true(schedule_equal(a, b));
	schedule_free(b);
	b = ol_make_schedule(1, (const char *const[]){"F(0,0) F(0,1) B(0,0) B(0,1)"});
	assert_false(schedule_equal(a, b));
	schedule_free(b);
	b = schedule_copy(a);
	assert_true(schedule_equal(a, b));
	schedule_free(b);
	schedule_free(a);
	char name[16];
	assert_string_equal(op_format(name, sizeof name, OP_O, 0, 1), "O(0,1)");
	assert_string_equal(op_format(name, sizeof name, OP_L, 1, 2), "L(1,2)");
	assert_string_equal(op_kind_name(OP_O), "O");
	assert_string_equal(op_kind_name(OP_L), "L");

	/* the simulator's verdicts on listings, on an instance whose memory
	 * never binds (limit 4 holds both micro-batches) */
	const char *ok1 = OL_ROW_1F1B;
	struct {
		const char *name, *row, *all[3], *any[3];
	} bad[] = {
		{"O without L", "F(0,0) O(0,0) F(0,1) B(0,0) B(0,1)", {"device 0", "(0,0)"},
		 {"L(0,0)", "O(0,0)"}},
		{"L without O", "F(0,0) L(0,0) F(0,1) B(0,0) B(0,1)", {"device 0", "(0,0)"},
		 {"L(0,0)", "O(0,0)"}},
		{"L before O", "F(0,0) L(0,0) O(0,0) B(0,0) F(0,1) B(0,1)", {"device 0", "(0,0)"},
		 {"L(0,0)", "O(0,0)"}},
		{"O before its F", "O(0,0) F(0,0) L(0,0) B(0,0) F(0,1) B(0,1)", {"device 0", "O(0,0)"},
		 {NULL}},
		{"L after its B", "F(0,0) O(0,0) B(0,0) L(0,0) F(0,1) B(0,1)", {"device 0", "(0,0)"},
		 {"L(0,0)", "B(0,0)"}},
		{"duplicate O", "F(0,0) O(0,0) O(0,0) L(0,0) B(0,0) F(0,1) B(0,1)",
		 {"device 0", "O(0,0)", "duplicate"}, {NULL}},
		{"duplicate L", "F(0,0) O(0,0) L(0,0) L(0,0) B(0,0) F(0,1) B(0,1)",
		 {"device 0", "L(0,0)", "duplicate"}, {NULL}},
		{"O on the wrong device", "F(0,0) B(0,0) F(0,1) B(0,1) O(1,0) L(1,0)",
		 {"device 0", "O(1,0)", "device 1"}, {NULL}},
		{"O of no micro-batch", "F(0,0) B(0,0) F(0,1) B(0,1) O(0,5) L(0,5)",
		 {"device 0", "O(0,5)"}, {NULL}},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		expect_ol_error(OL_LOOSE(OL_LOOSE_KEY), 2, (const char *const[]){bad[i].row, ok1},
				bad[i].all, bad[i].any[0] ? bad[i].any : NULL);
	/* the wrong device, the other way round: device 1 lists device 0's */
	expect_ol_error(OL_LOOSE(OL_LOOSE_KEY), 2,
			(const char *const[]){"F(0,0) B(0,0) F(0,1) B(0,1)",
					      "F(1,0) O(0,0) L(0,0) B(1,0) F(1,1) B(1,1)"},
			(const char *const[]){"device 1", "O(0,0)", NULL}, NULL);
	/* O and L on an instance without the key, with memory and without */
	expect_ol_error(OL_LOOSE(""), 2,
			(const char *const[]){"F(0,0) O(0,0) L(0,0) B(0,0) F(0,1) B(0,1)", ok1},
			(const char *const[]){"device 0", "O(0,0)", "offload"}, NULL);
	expect_ol_error("{\"devices\":1,\"microbatches\":1,\"cost\":{\"F\":2,\"B\":3}}", 1,
			(const char *const[]){"F(0,0) O(0,0) L(0,0) B(0,0)"},
			(const char *const[]){"O(0,0)", "offload", NULL}, NULL);
	/* the same listing is fine with the key */
	struct instance *in = parse_instance_ok(OL_LOOSE(OL_LOOSE_KEY));
	struct schedule *sc = ol_make_schedule(2, (const char *const[]){
		"F(0,0) O(0,0) L(0,0) B(0,0) F(0,1) B(0,1)", ok1});
	struct sim *s = sim_new(in);
	struct sim_result r;
	if (sim_run(s, sc, &r, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(r.offloaded, 1);
	/* F(0,0) [0,2), O [2,3), L [3,4); B(1,0) ends at 6: B(0,0) [6,8) */
	assert_int_equal(r.copy_start[0], 2);
	assert_int_equal(r.copy_end[0], 3);
	assert_int_equal(r.copy_start[2 * 2], 3);
	assert_int_equal(r.copy_end[2 * 2], 4);
	assert_int_equal(r.start[inst_op_id(in, OP_B, 0, 0)], 6);
	sim_free(s);
	schedule_free(sc);
	instance_free(in);
}

/* ---- 4. an evaluator of the rules, and every listing ------------------------------ */

/*
 * Written from the rules of the file comment, not from sched/sim.c. A
 * device's row is turned into, per position, the set of positions of the
 * same row whose end (the previous op on its resource, its same-device
 * inputs, its F or L, and, when it takes memory, every op before it that
 * frees memory) or start (when it takes memory: every op before it on the
 * other resource that takes memory) it waits for; ops of other devices
 * are waited for by id, with the comm lag. The rows are then timed by
 * repeated passes until nothing moves: each op whose waits are all timed
 * starts at the latest of them. An op never timed is a deadlock. Memory
 * and host are prefix sums along the row.
 */

#define OL_MAXL 2
#define OL_MAXM 3
#define OL_MAX_OPS 18                                    /* compute: 3 kinds x 2 x 3 */
#define OL_MAX_IDS (OL_MAX_OPS + 2 * OL_MAXL * OL_MAXM)   /* + O and L of each (l, j) */
#define OL_ROW 24                                        /* ops in one device's row */

/* A tiny chain instance with offload. Ops have "unified ids": a compute op
 * (k, l, j) its instance id chain_id(L, M, k, l, j) < n; a channel op
 * n + (c * L + l) * M + j, c = 0 for O(l,j) and 1 for L(l,j). */
struct ol {
	int D, L, M, kinds;
	int dev[OL_MAXL];                   /* stage -> device */
	int64_t cost[3][OL_MAXL], comm;
	int64_t mem[3][OL_MAXL], limit[2];
	int64_t O[OL_MAXL], Lr[OL_MAXL];    /* the durations in effect */
	int64_t keep[OL_MAXL];
	int form;                           /* JSON: 0 "O" and "L"; 1 "O" only; 2 "bandwidth" */
	int64_t bw;
	bool has_host;
	int64_t host[2];
	bool span;
	/* derived by ol_deps */
	int n;
	int kind[OL_MAX_OPS], stage[OL_MAX_OPS], mb[OL_MAX_OPS], ndep[OL_MAX_OPS];
	int dep[OL_MAX_OPS][2];
	int64_t lag[OL_MAX_OPS][2];
};

static int ol_cid(const struct ol *b, int k, int l, int j)
{
	return (k * b->L + l) * b->M + j;
}

static int ol_hid(const struct ol *b, int c, int l, int j)
{
	return b->n + (c * b->L + l) * b->M + j;
}

/* Kind (OP_F .. OP_L), stage and micro-batch of a unified id. */
static void ol_decode(const struct ol *b, int id, int *k, int *l, int *j)
{
	if (id < b->n) {
		*k = b->kind[id];
		*l = b->stage[id];
		*j = b->mb[id];
	} else {
		int h = id - b->n;
		*k = OP_O + h / (b->L * b->M);
		*l = h / b->M % b->L;
		*j = h % b->M;
	}
}

static int64_t ol_moved(const struct ol *b, int l)
{
	return b->mem[OP_F][l] - b->keep[l];
}

static int64_t ol_dur(const struct ol *b, int id)
{
	int k, l, j;
	ol_decode(b, id, &k, &l, &j);
	return k == OP_O ? b->O[l] : k == OP_L ? b->Lr[l] : b->cost[k][l];
}

/* Device memory delta: F, B, W theirs; O -(F - keep); L +(F - keep). */
static int64_t ol_delta(const struct ol *b, int id)
{
	int k, l, j;
	ol_decode(b, id, &k, &l, &j);
	return k == OP_O ? -ol_moved(b, l) : k == OP_L ? ol_moved(b, l) : b->mem[k][l];
}

/* One device's row: its listing (unified ids) and which of its (l, j) are
 * offloaded (bit l * M + j), with what the rules make of it alone:
 * wait_end[p] / wait_start[p], the positions of this row whose end / start
 * position p waits for (resource sequencing, same-device dependencies, the
 * two memory rules); memory and host checks; the row timed alone (other
 * devices' inputs taken as there at 0: a lower bound on every time). */
struct ol_row {
	unsigned char n;
	unsigned char id[OL_ROW];
	uint32_t wait_end[OL_ROW], wait_start[OL_ROW];
	uint16_t offl;
	bool mem_ok, host_ok, iso_ok;
	int64_t peak, iso;
};

static bool ol_offloaded(const struct ol *b, unsigned offl, int l, int j)
{
	return offl >> (l * b->M + j) & 1;
}

/* Fill a row's waits, memory and host verdicts from its listing (n, id,
 * offl set). Returns false when the listing breaks a row-order rule of
 * the format (both or neither O and L; F < O < L < B; every op of the
 * device once): only for rows read back from a schedule, the generator
 * makes none. */
static bool ol_row_finish(const struct ol *b, int d, struct ol_row *w)
{
	int pos[OL_MAX_IDS];
	for (int i = 0; i < OL_MAX_IDS; i++)
		pos[i] = -1;
	for (int p = 0; p < w->n; p++) {
		if (pos[w->id[p]] >= 0)
			return false;
		pos[w->id[p]] = p;
	}
	/* the listing rules */
	int want = 0;
	for (int l = 0; l < b->L; l++) {
		if (b->dev[l] != d)
			continue;
		for (int j = 0; j < b->M; j++) {
			int f = pos[ol_cid(b, OP_F, l, j)], bb = pos[ol_cid(b, OP_B, l, j)];
			int o = pos[ol_hid(b, 0, l, j)], r = pos[ol_hid(b, 1, l, j)];
			bool off = ol_offloaded(b, w->offl, l, j);
			want += b->kinds + (off ? 2 : 0);
			if (f < 0 || bb < 0 || (b->kinds == 3 && pos[ol_cid(b, OP_W, l, j)] < 0))
				return false;
			if (off != (o >= 0) || off != (r >= 0))
				return false;
			if (off && !(f < o && o < r && r < bb))
				return false;
		}
	}
	if (want != w->n)
		return false;

	int64_t mem = 0, host = 0;
	w->mem_ok = w->host_ok = true;
	w->peak = 0;
	for (int p = 0; p < w->n; p++) {
		int id = w->id[p], k, l, j;
		ol_decode(b, id, &k, &l, &j);
		bool chan = id >= b->n;
		int64_t delta = ol_delta(b, id);
		uint32_t we = 0, ws = 0;
		for (int q = p - 1; q >= 0; q--)   /* the previous op on its resource */
			if ((w->id[q] >= b->n) == chan) {
				we |= 1u << q;
				break;
			}
		/* same-device inputs (a later-listed one deadlocks, as it should) */
		if (!chan)
			for (int i = 0; i < b->ndep[id]; i++)
				if (b->dev[b->stage[b->dep[id][i]]] == d)
					we |= 1u << pos[b->dep[id][i]];
		if (k == OP_B && ol_offloaded(b, w->offl, l, j))
			we |= 1u << pos[ol_hid(b, 1, l, j)];
		if (k == OP_O)
			we |= 1u << pos[ol_cid(b, OP_F, l, j)];
		if (delta > 0)   /* it takes memory: the two rules */
			for (int q = 0; q < p; q++) {
				int64_t dq = ol_delta(b, w->id[q]);
				if (dq < 0)
					we |= 1u << q;
				else if (dq > 0 && (w->id[q] >= b->n) != chan)
					ws |= 1u << q;
			}
		w->wait_end[p] = we;
		w->wait_start[p] = ws;
		mem += delta;
		if (mem > w->peak)
			w->peak = mem;
		if (mem > b->limit[d])
			w->mem_ok = false;
		if (chan) {
			host -= delta;
			if (b->has_host && host > b->host[d])
				w->host_ok = false;
		}
	}
	return true;
}

struct ol_time {
	bool ok;                            /* false: deadlock */
	int64_t st[OL_MAX_IDS], en[OL_MAX_IDS];
	int64_t makespan, span, objective;
};

/* Alone, a row takes an input x from another device as ending no
 * earlier than this (L <= 2, so x is F(0,j) or B(1,j)): F(0,j) after
 * F(0,0) .. F(0,j-1), which the generator lists in order (ol_may_come);
 * B(1,j) after F(1,j) and the F(0,j) before it, here on the row's device
 * and timed (the inputs of B(0,j) are both placed before it). */
static int64_t ol_iso_input(const struct ol *b, const struct ol_time *t, int x)
{
	int k = b->kind[x], l = b->stage[x], j = b->mb[x];
	if (k == OP_F)
		return (int64_t)(j + 1) * b->cost[OP_F][l];
	int f = ol_cid(b, OP_F, l - 1, j);
	return t->en[f] + b->lag[ol_cid(b, OP_F, l, j)][0] + b->cost[OP_F][l] + b->cost[OP_B][l];
}

/* Time the rows: each op starts at the latest of what it waits for,
 * repeated until nothing moves. With `cross` false a single row (the
 * others NULL) is timed alone, each input from another device taken at
 * ol_iso_input: every time then is a lower bound on its time in any
 * combination with that row on a canonical device 0 (the waits are
 * max-plus and monotone). */
static void ol_time_rows(const struct ol *b, const struct ol_row *const *rows, bool cross,
			 struct ol_time *t)
{
	bool done[OL_MAX_IDS] = {0};
	uint32_t dmask[2] = {0, 0};
	int left = 0;
	for (int d = 0; d < b->D; d++)
		if (rows[d])
			left += rows[d]->n;
	for (bool progress = true; progress && left > 0;) {
		progress = false;
		for (int d = 0; d < b->D; d++) {
			const struct ol_row *w = rows[d];
			if (!w)
				continue;
			for (int p = 0; p < w->n; p++) {
				if (dmask[d] >> p & 1)
					continue;
				uint32_t need = w->wait_end[p] | w->wait_start[p];
				if ((dmask[d] & need) != need)
					continue;
				int id = w->id[p];
				int64_t s = 0;
				bool ready = true;
				if (id < b->n)
					for (int i = 0; i < b->ndep[id] && ready; i++) {
						int x = b->dep[id][i];
						if (b->dev[b->stage[x]] == d)
							continue;
						int64_t e = cross ? t->en[x] : ol_iso_input(b, t, x);
						ready = !cross || done[x];
						if (ready && e + b->lag[id][i] > s)
							s = e + b->lag[id][i];
					}
				if (!ready)
					continue;
				for (int q = 0; q < w->n; q++) {
					if ((w->wait_end[p] >> q & 1) && t->en[w->id[q]] > s)
						s = t->en[w->id[q]];
					if ((w->wait_start[p] >> q & 1) && t->st[w->id[q]] > s)
						s = t->st[w->id[q]];
				}
				t->st[id] = s;
				t->en[id] = s + ol_dur(b, id);
				done[id] = true;
				dmask[d] |= 1u << p;
				left--;
				progress = true;
			}
		}
	}
	t->ok = left == 0;
	t->makespan = t->span = 0;
	if (!t->ok)
		return;
	for (int d = 0; d < b->D; d++) {
		const struct ol_row *w = rows[d];
		if (!w)
			continue;
		int64_t first = INT64_MAX, last = 0;
		for (int p = 0; p < w->n; p++)
			if (w->id[p] < b->n) {
				first = t->st[w->id[p]] < first ? t->st[w->id[p]] : first;
				last = t->en[w->id[p]] > last ? t->en[w->id[p]] : last;
			}
		if (last > t->makespan)
			t->makespan = last;
		if (last - first > t->span)
			t->span = last - first;
	}
	t->objective = b->span ? t->span : t->makespan;
}

/* The compute ops' dependencies (chain_deps.h, from design.md). */
static void ol_deps(struct ol *b)
{
	b->n = b->kinds * b->L * b->M;
	chain_deps(b->kinds, b->L, b->M, b->dev, b->comm, b->kind, b->stage, b->mb, b->ndep,
		   b->dep, b->lag);
}

/* ---- row generation ---- */

struct ol_rows {
	struct ol_row *v;
	int n, cap;
};

static void ol_rows_push(struct ol_rows *out, const struct ol_row *w)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? 2 * out->cap : 256;
		out->v = realloc(out->v, out->cap * sizeof *out->v);
		if (!out->v)
			abort();
	}
	out->v[out->n++] = *w;
}

struct ol_gen {
	const struct ol *b;
	int d, nitems;
	int items[OL_ROW];
	bool placed[OL_MAX_IDS];
	bool canonical;        /* the exact reductions below */
	int64_t mem, host;     /* the prefix sums so far */
	/* One device only (bnb): a prefix's times are final (each op waits
	 * for ops listed before it only), so a prefix whose compute ends at
	 * cfree with `rest` compute time to come ends no earlier than cfree +
	 * rest, the makespan (and the span: the first F starts at 0) of every
	 * completion; it is cut when that is no better than *best. */
	bool bnb;
	int64_t *best;
	int64_t st[OL_MAX_IDS], en[OL_MAX_IDS], cfree, hfree, rest;
	struct ol_row cur;
	struct ol_rows *out;
};

/* Whether id may come next: its row-order predecessors are placed. */
static bool ol_may_come(const struct ol_gen *g, int id)
{
	const struct ol *b = g->b;
	int k, l, j;
	ol_decode(b, id, &k, &l, &j);
	const bool *pl = g->placed;
	switch (k) {
	case OP_F:
		/* on one device, F(l-1,j) after F(l,j) deadlocks */
		if (l > 0 && b->dev[l - 1] == g->d && !pl[ol_cid(b, OP_F, l - 1, j)])
			return false;
		/* micro-batches are alike: device 0's F(0, .) in order */
		return !(g->canonical && l == 0 && j > 0 && !pl[ol_cid(b, OP_F, 0, j - 1)]);
	case OP_B:
		if (!pl[ol_cid(b, OP_F, l, j)])
			return false;
		if (ol_offloaded(b, g->cur.offl, l, j) && !pl[ol_hid(b, 1, l, j)])
			return false;
		return !(l + 1 < b->L && b->dev[l + 1] == g->d && !pl[ol_cid(b, OP_B, l + 1, j)]);
	case OP_W:
		return pl[ol_cid(b, OP_B, l, j)];
	case OP_O:
		return pl[ol_cid(b, OP_F, l, j)];
	default:
		return pl[ol_hid(b, 0, l, j)];
	}
}

/* The start of id placed next on a one-device row (bnb): the rules of
 * ol_row_finish, on the prefix. */
static int64_t ol_prefix_start(const struct ol_gen *g, int id)
{
	const struct ol *b = g->b;
	const struct ol_row *w = &g->cur;
	int k, l, j;
	ol_decode(b, id, &k, &l, &j);
	bool chan = id >= b->n;
	int64_t t = chan ? g->hfree : g->cfree;
#define OL_AFTER(x) (t = g->en[x] > t ? g->en[x] : t)
	if (!chan)
		for (int i = 0; i < b->ndep[id]; i++)
			OL_AFTER(b->dep[id][i]);   /* one device: no lags */
	if (k == OP_B && ol_offloaded(b, w->offl, l, j))
		OL_AFTER(ol_hid(b, 1, l, j));
	if (k == OP_O)
		OL_AFTER(ol_cid(b, OP_F, l, j));
	if (ol_delta(b, id) > 0)
		for (int q = 0; q < w->n; q++) {
			int x = w->id[q];
			int64_t dq = ol_delta(b, x);
			if (dq < 0)
				OL_AFTER(x);
			else if (dq > 0 && (x >= b->n) != chan && g->st[x] > t)
				t = g->st[x];
		}
#undef OL_AFTER
	return t;
}

static void ol_gen_rec(struct ol_gen *g)
{
	const struct ol *b = g->b;
	struct ol_row *w = &g->cur;
	if (w->n == g->nitems) {
		ol_row_finish(b, g->d, w);
		const struct ol_row *rows[2] = {NULL, NULL};
		rows[g->d] = w;
		struct ol_time t;
		ol_time_rows(b, rows, false, &t);
		w->iso_ok = t.ok;
		w->iso = t.ok ? t.makespan : INT64_MAX;
		ol_rows_push(g->out, w);
		if (g->bnb && w->iso_ok && w->mem_ok && w->host_ok && w->iso < *g->best)
			*g->best = w->iso;
		return;
	}
	int last = w->n ? w->id[w->n - 1] : -1;
	for (int i = 0; i < g->nitems; i++) {
		int id = g->items[i];
		if (g->placed[id] || !ol_may_come(g, id))
			continue;
		/* A compute op c right before a channel op h that it commutes
		 * with: c neutral (delta 0: neither rule involves it, and the
		 * memory prefixes are the same values), or c freeing and h an
		 * O (neither takes memory: no rule between them; both prefixes
		 * in between are below the one before). Swapping them changes no
		 * time, no verdict and no peak, and moves h up; repeated, it
		 * ends in a listing without such a pair: keeping only those
		 * loses nothing. */
		if (g->canonical && last >= 0 && last < b->n && id >= b->n) {
			int64_t dc = ol_delta(b, last);
			int hk, hl, hj;
			ol_decode(b, id, &hk, &hl, &hj);
			if (dc == 0 || (dc < 0 && hk == OP_O))
				continue;
		}
		/* a prefix over a limit: every listing that starts so is
		 * invalid */
		int64_t delta = ol_delta(b, id), mem = g->mem, host = g->host;
		g->mem += delta;
		if (id >= b->n)
			g->host -= delta;
		bool keep = !g->canonical || (g->mem <= b->limit[g->d] &&
					      (!b->has_host || g->host <= b->host[g->d]));
		int64_t cfree = g->cfree, hfree = g->hfree, rest = g->rest;
		if (keep && g->bnb) {
			int64_t t = ol_prefix_start(g, id);
			g->st[id] = t;
			g->en[id] = t + ol_dur(b, id);
			if (id < b->n) {
				g->cfree = g->en[id];
				g->rest -= ol_dur(b, id);
			} else {
				g->hfree = g->en[id];
			}
			keep = g->cfree + g->rest < *g->best;
		}
		if (keep) {
			g->placed[id] = true;
			w->id[w->n++] = (unsigned char)id;
			ol_gen_rec(g);
			w->n--;
			g->placed[id] = false;
		}
		g->cfree = cfree;
		g->hfree = hfree;
		g->rest = rest;
		g->mem = mem;
		g->host = host;
	}
}

/* Every listing of device d's ops, for every subset of its offloads,
 * the subsets in increasing order (the empty one first). canonical: with
 * the reductions of ol_may_come and ol_gen_rec, which keep (at least) one
 * listing of every class of equal results and every valid row of an
 * optimum; on one device with the cut of struct ol_gen, which keeps every
 * row better than the rows before it, so the first optimum without
 * offload and the first with. */
static void ol_gen_rows(const struct ol *b, int d, bool canonical, struct ol_rows *out)
{
	int64_t best = INT64_MAX;
	int pairs[OL_MAXL * OL_MAXM], np = 0, base[OL_ROW], nb = 0;
	for (int o = 0; o < b->n; o++)
		if (b->dev[b->stage[o]] == d)
			base[nb++] = o;
	for (int l = 0; l < b->L; l++)
		if (b->dev[l] == d)
			for (int j = 0; j < b->M; j++)
				pairs[np++] = l * b->M + j;
	for (unsigned s = 0; s < 1u << np; s++) {
		struct ol_gen g;
		memset(&g, 0, sizeof g);
		g.b = b;
		g.d = d;
		g.out = out;
		g.canonical = canonical;
		g.bnb = canonical && b->D == 1;
		g.best = &best;
		for (int i = 0; i < nb; i++)
			g.rest += ol_dur(b, base[i]);
		g.cur.offl = 0;
		for (int i = 0; i < nb; i++)
			g.items[g.nitems++] = base[i];
		for (int i = 0; i < np; i++)
			if (s >> i & 1) {
				int l = pairs[i] / b->M, j = pairs[i] % b->M;
				g.cur.offl |= (uint16_t)(1u << pairs[i]);
				g.items[g.nitems++] = ol_hid(b, 0, l, j);
				g.items[g.nitems++] = ol_hid(b, 1, l, j);
			}
		ol_gen_rec(&g);
	}
}

/* One random listing of device d's ops with offloads offl (every row-order
 * rule kept, no reduction): for the simulator to see listings the
 * reductions leave out. */
static void ol_random_row(const struct ol *b, int d, unsigned offl, uint64_t *rng,
			  struct ol_row *w)
{
	struct ol_gen g;
	memset(&g, 0, sizeof g);
	g.b = b;
	g.d = d;
	g.cur.offl = (uint16_t)offl;
	for (int o = 0; o < b->n; o++)
		if (b->dev[b->stage[o]] == d)
			g.items[g.nitems++] = o;
	for (int l = 0; l < b->L; l++)
		for (int j = 0; j < b->M; j++)
			if (b->dev[l] == d && ol_offloaded(b, offl, l, j)) {
				g.items[g.nitems++] = ol_hid(b, 0, l, j);
				g.items[g.nitems++] = ol_hid(b, 1, l, j);
			}
	while (g.cur.n < g.nitems) {
		int avail[OL_ROW], na = 0;
		for (int i = 0; i < g.nitems; i++)
			if (!g.placed[g.items[i]] && ol_may_come(&g, g.items[i]))
				avail[na++] = g.items[i];
		int id = avail[xorshift_in(rng, 0, na - 1)];
		g.placed[id] = true;
		g.cur.id[g.cur.n++] = (unsigned char)id;
	}
	*w = g.cur;
	ol_row_finish(b, d, w);
	const struct ol_row *rows[2] = {NULL, NULL};
	rows[d] = w;
	struct ol_time t;
	ol_time_rows(b, rows, false, &t);
	w->iso_ok = t.ok;
	w->iso = t.ok ? t.makespan : INT64_MAX;
}

/* One random instance of a shape: D devices, L stages on dev[], M
 * micro-batches, fused or split. Costs F 1-3, B 1-3, W 0-2, comm 0-1;
 * memory F 1-3, B = -F (fused) or B = -x, W = -(F - x) (split); keep 0 or
 * 1, below F (so every O frees and every L takes memory); O, L 0-3, given
 * as both, O only, or a bandwidth 1-3; a host limit on one in three; the
 * device limit between its largest F and the peak of every forward first,
 * the lower of two draws (tight limits are the interesting ones); the
 * span objective on one in span_one_in. */
static void ol_random(struct ol *b, uint64_t *rng, int D, int L, const int *dev, int M,
		      bool split, int span_one_in)
{
	memset(b, 0, sizeof *b);
	b->D = D;
	b->L = L;
	b->M = M;
	b->kinds = split ? 3 : 2;
	b->form = xorshift_in(rng, 0, 2);
	b->bw = xorshift_in(rng, 1, 3);
	for (int l = 0; l < L; l++) {
		b->dev[l] = dev[l];
		b->cost[OP_F][l] = xorshift_in(rng, 1, 3);
		b->cost[OP_B][l] = xorshift_in(rng, 1, 3);
		if (split)
			b->cost[OP_W][l] = xorshift_in(rng, 0, 2);
		int64_t a = xorshift_in(rng, 1, 3);
		int64_t x = split ? xorshift_in(rng, 0, (int)a) : a;
		b->mem[OP_F][l] = a;
		b->mem[OP_B][l] = -x;
		if (split)
			b->mem[OP_W][l] = -(a - x);
		b->keep[l] = a > 1 ? xorshift_in(rng, 0, 1) : 0;
		b->O[l] = xorshift_in(rng, 0, 3);
		b->Lr[l] = b->form == 0 ? xorshift_in(rng, 0, 3) : b->O[l];
		if (b->form == 2)
			b->O[l] = b->Lr[l] = (ol_moved(b, l) + b->bw - 1) / b->bw;
	}
	b->comm = xorshift_in(rng, 0, 1);
	b->span = span_one_in > 0 && xorshift_in(rng, 1, span_one_in) == 1;
	b->has_host = xorshift_in(rng, 1, 3) == 1;
	for (int d = 0; d < D; d++) {
		int64_t lo = 0, hi = 0, moved = 0;
		for (int l = 0; l < L; l++)
			if (dev[l] == d) {
				lo = b->mem[OP_F][l] > lo ? b->mem[OP_F][l] : lo;
				hi += M * b->mem[OP_F][l];
				moved += M * ol_moved(b, l);
			}
		int x = xorshift_in(rng, 0, (int)(hi - lo)), y = xorshift_in(rng, 0, (int)(hi - lo));
		b->limit[d] = lo + (x < y ? x : y);
		b->host[d] = xorshift_in(rng, 0, (int)moved);
	}
}


/* The instance as JSON text, with the offload key in b's form. */
static void ol_json(const struct ol *b, char *buf, size_t size)
{
	int len = chain_json(buf, size, b->D, b->L, b->M, b->dev, b->kinds, b->cost, b->comm,
			     b->mem, b->limit, b->span);
#define OL_PUT(...) (len += snprintf(buf + len, len < (int)size ? size - len : 0, __VA_ARGS__))
#define OL_LIST(v, n)                                                          \
	do {                                                                   \
		OL_PUT("[");                                                   \
		for (int i_ = 0; i_ < (n); i_++)                               \
			OL_PUT("%s%lld", i_ ? "," : "", (long long)(v)[i_]);   \
		OL_PUT("]");                                                   \
	} while (0)
	OL_PUT(",\"offload\":{");
	if (b->form == 2) {
		OL_PUT("\"bandwidth\":%lld", (long long)b->bw);
	} else {
		OL_PUT("\"O\":");
		OL_LIST(b->O, b->L);
		if (b->form == 0) {
			OL_PUT(",\"L\":");
			OL_LIST(b->Lr, b->L);
		}
	}
	bool keep = false;
	for (int l = 0; l < b->L; l++)
		keep |= b->keep[l] != 0;
	if (keep) {
		OL_PUT(",\"keep\":");
		OL_LIST(b->keep, b->L);
	}
	if (b->has_host) {
		OL_PUT(",\"host_limit\":");
		OL_LIST(b->host, b->D);
	}
	OL_PUT("}}");
#undef OL_LIST
#undef OL_PUT
	assert_true(len < (int)size);
}

/* Load a combination of rows into a new schedule. */
static struct schedule *ol_schedule(const struct ol *b, const struct ol_row *const *rows)
{
	struct schedule *sc = schedule_new(b->D);
	assert_non_null(sc);
	for (int d = 0; d < b->D; d++)
		for (int p = 0; p < rows[d]->n; p++) {
			int k, l, j;
			ol_decode(b, rows[d]->id[p], &k, &l, &j);
			assert_int_equal(schedule_push(sc, d, k, l, j), STATUS_OK);
		}
	return sc;
}

/* A schedule's rows as this file's rows; false when a listing rule is
 * broken (or an op is not one of the instance's). */
static bool ol_rows_of(const struct ol *b, const struct schedule *sc, struct ol_row *rows)
{
	if (sc->devices != b->D)
		return false;
	for (int d = 0; d < b->D; d++) {
		const struct sched_row *sr = &sc->rows[d];
		struct ol_row *w = &rows[d];
		memset(w, 0, sizeof *w);
		if (sr->len > OL_ROW)
			return false;
		for (int i = 0; i < sr->len; i++) {
			const struct op *p = &sr->ops[i];
			if (p->stage < 0 || p->stage >= b->L || p->mb < 0 || p->mb >= b->M ||
			    p->kind < 0 || p->kind > OP_L || (p->kind == OP_W && b->kinds < 3) ||
			    b->dev[p->stage] != d || p->recompute || p->with_prev)
				return false;
			int id = p->kind >= OP_O ? ol_hid(b, p->kind - OP_O, p->stage, p->mb) :
						   ol_cid(b, p->kind, p->stage, p->mb);
			w->id[w->n++] = (unsigned char)id;
			if (p->kind == OP_O)
				w->offl |= (uint16_t)(1u << (p->stage * b->M + p->mb));
		}
		if (!ol_row_finish(b, d, w))
			return false;
	}
	return true;
}

static int ol_popcount(unsigned x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

/* Fail, naming the instance and the schedule, when the simulator's verdict
 * differs from this file's evaluator on a combination of rows. */
static void ol_compare(const struct ol *b, const char *json, const struct ol_row *const *rows,
		       struct sim *s)
{
	struct ol_time t;
	ol_time_rows(b, rows, true, &t);
	bool valid = t.ok;
	int offloaded = 0;
	for (int d = 0; d < b->D; d++) {
		valid &= rows[d]->mem_ok && rows[d]->host_ok;
		offloaded += ol_popcount(rows[d]->offl);
	}
	struct schedule *sc = ol_schedule(b, rows);
	struct sim_result r;
	struct error err = {{0}};
	enum status st = sim_run(s, sc, &r, &err);
	char why[200] = "";
	if ((st == STATUS_OK) != valid) {
		snprintf(why, sizeof why, "%s (the evaluator: %s)",
			 valid ? "the simulator rejects a valid schedule" :
				 "the simulator accepts an invalid schedule",
			 valid ? "valid" : !t.ok ? "deadlock" : "memory or host over its limit");
	} else if (valid) {
		for (int o = 0; o < b->n && !why[0]; o++)
			if (r.start[o] != t.st[o] || r.end[o] != t.en[o])
				snprintf(why, sizeof why, "%s(%d,%d): sim [%lld,%lld), expected [%lld,%lld)",
					 op_kind_name(b->kind[o]), b->stage[o], b->mb[o],
					 (long long)r.start[o], (long long)r.end[o], (long long)t.st[o],
					 (long long)t.en[o]);
		for (int x = 0; x < 2 * b->L * b->M && !why[0]; x++) {
			int c = x / (b->L * b->M), l = x / b->M % b->L, j = x % b->M;
			bool off = ol_offloaded(b, rows[b->dev[l]]->offl, l, j);
			int64_t a = off ? t.st[b->n + x] : -1, e = off ? t.en[b->n + x] : -1;
			if (!r.copy_start || !r.copy_end)
				snprintf(why, sizeof why, "no copy_start / copy_end");
			else if (r.copy_start[x] != a || r.copy_end[x] != e)
				snprintf(why, sizeof why, "%c(%d,%d): sim [%lld,%lld), expected [%lld,%lld)",
					 c ? 'L' : 'O', l, j, (long long)r.copy_start[x],
					 (long long)r.copy_end[x], (long long)a, (long long)e);
		}
		if (!why[0] && (r.makespan != t.makespan || r.span != t.span ||
				r.objective != t.objective))
			snprintf(why, sizeof why, "makespan %lld span %lld objective %lld, expected "
				 "%lld %lld %lld", (long long)r.makespan, (long long)r.span,
				 (long long)r.objective, (long long)t.makespan, (long long)t.span,
				 (long long)t.objective);
		for (int d = 0; d < b->D && !why[0]; d++)
			if (r.peak_memory[d] != rows[d]->peak)
				snprintf(why, sizeof why, "device %d peak %lld, expected %lld", d,
					 (long long)r.peak_memory[d], (long long)rows[d]->peak);
		if (!why[0] && r.offloaded != offloaded)
			snprintf(why, sizeof why, "offloaded %d, expected %d", r.offloaded, offloaded);
	}
	if (why[0]) {
		char *text = ol_schedule_text(sc);
		fail_msg("%s\ninstance %s\nschedule %s\nsim: %s", why, json, text,
			 st ? err.msg : "ok");
	}
	schedule_free(sc);
}

struct ol_stats {
	int instances, span_instances, infeasible, exact;
	int below;          /* OPT < OPT without offloads */
	int rescued;        /* valid schedules only with offloads */
	int rescued_exact;  /* of those, certified by exact_solve */
	int bound_tight;
	int disagree;       /* exact_solve against the brute force */
	struct milp_counts milp;   /* the MILP alone (tests/milp_alone.h) */
	long rows, combos, sim_checked;
};

/* A disagreement of exact_solve with the brute force: printed in full and
 * counted (each test asserts none at its end, so one run shows them all). */
#define OL_DISAGREE(st, ...)                                                   \
	do {                                                                   \
		printf("DISAGREEMENT: " __VA_ARGS__);                           \
		printf("\n");                                                  \
		(st)->disagree++;                                              \
	} while (0)


/* exact_solve and bound_compute on in against the brute force's opt. */
static void ol_exact(const struct ol *b, const struct instance *in, const char *json,
		     int64_t opt, int64_t opt_plain, struct ol_stats *st)
{
	struct bounds bd;
	struct error err = {{0}};
	if (bound_compute(in, &bd, &err))
		fail_msg("bound: %s\ninstance %s", err.msg, json);
	if (opt != INT64_MAX && bd.best > opt)
		OL_DISAGREE(st, "bound %lld (%s) above the optimum %lld\ninstance %s",
			    (long long)bd.best, bd.by, (long long)opt, json);
	st->bound_tight += opt != INT64_MAX && bd.best == opt;

	struct exact_options o = {.time_limit = 20, .threads = 1};
	struct exact_result res;
	memset(&err, 0, sizeof err);
	enum status s = exact_solve(in, &o, &res, &err);
	if (opt == INT64_MAX) {
		if (s == STATUS_OK) {
			char *text = ol_schedule_text(res.schedule);
			OL_DISAGREE(st, "exact_solve returned %lld (%s) on an instance without a valid "
				    "schedule\ninstance %s\nits schedule %s", (long long)res.objective,
				    res.status, json, text);
			free(text);
			exact_result_release(&res);
		}
		return;
	}
	if (s != STATUS_OK) {
		/* what the search alone makes of it, for the report */
		struct bnb_options bo = {.time_limit = 20, .incumbent = INT64_MAX,
					 .memo = in->objective == OBJ_MAKESPAN};
		struct bnb_result br = {0};
		struct error e2 = {{0}};
		enum status bs = bnb_solve(in, &bo, &br, &e2);
		char *text = ol_schedule_text(br.schedule);
		OL_DISAGREE(st, "exact_solve failed: %s\ninstance %s (brute force: optimum %lld, %lld "
			    "without offloads)\nbnb_solve alone: %s, %s %lld, schedule %s", err.msg,
			    json, (long long)opt, (long long)opt_plain, bs ? e2.msg : "ok",
			    br.proved ? "proved" : "not proved", (long long)br.objective, text);
		free(text);
		schedule_free(br.schedule);
		return;
	}
	struct sim *sim = sim_new(in);
	struct sim_result r = {0};
	enum status ss = res.schedule ? sim_run(sim, res.schedule, &r, &err) : STATUS_ERROR;
	struct ol_row rows[2];
	bool listed = res.schedule && ol_rows_of(b, res.schedule, rows);
	struct ol_time t = {0};
	bool mine = false;
	if (listed) {
		const struct ol_row *pick[2] = {&rows[0], &rows[1]};
		ol_time_rows(b, pick, true, &t);
		mine = t.ok;
		for (int d = 0; d < b->D; d++)
			mine &= rows[d].mem_ok && rows[d].host_ok;
	}
	if (!res.certified || strcmp(res.status, "optimal") || res.objective != opt || ss ||
	    r.objective != opt || !mine || t.objective != opt) {
		char *text = ol_schedule_text(res.schedule);
		OL_DISAGREE(st, "exact_solve: %s %lld (%s, bound %lld, by %s), brute force %lld "
			    "(%lld without offloads)\ninstance %s\nexact's schedule %s: sim_run %s "
			    "%lld; this file's evaluator: %s %lld",
			    res.status, (long long)res.objective,
			    res.certified ? "certified" : "not certified", (long long)res.bound,
			    res.certified_by ? res.certified_by : "-", (long long)opt,
			    (long long)opt_plain, json, text, ss ? err.msg : "ok",
			    (long long)r.objective,
			    !listed ? "breaks a listing rule" : mine ? "valid" : "invalid",
			    (long long)t.objective);
		free(text);
	} else {
		st->exact++;
		st->rescued_exact += opt_plain == INT64_MAX;
	}
	sim_free(sim);
	exact_result_release(&res);
}

static int ol_cmp_iso(const void *x, const void *y)
{
	const struct ol_row *a = x, *c = y;
	return a->iso < c->iso ? -1 : a->iso > c->iso;
}

/* Device rows for the search: every canonical row (ol_gen_rows), then the
 * valid ones only, sorted by their time alone. Returns how many were made. */
static long ol_prepare(const struct ol *b, struct ol_rows *rows)
{
	long made = 0;
	for (int d = 0; d < b->D; d++) {
		memset(&rows[d], 0, sizeof rows[d]);
		ol_gen_rows(b, d, true, &rows[d]);
		made += rows[d].n;
		int k = 0;
		for (int i = 0; i < rows[d].n; i++)
			if (rows[d].v[i].mem_ok && rows[d].v[i].host_ok && rows[d].v[i].iso_ok)
				rows[d].v[k++] = rows[d].v[i];
		rows[d].n = k;
		if (k > 1)
			qsort(rows[d].v, k, sizeof *rows[d].v, ol_cmp_iso);
	}
	return made;
}

/* The optimum over every combination of a row per device (opt[0] among
 * rows without offloads, opt[1] among all; INT64_MAX: none valid), and a
 * combination attaining each (best[pass], NULL rows where none). With the
 * makespan, a combination is cut when one of its rows alone already ends
 * no earlier than the best so far (a row alone is a lower bound,
 * ol_time_rows; rows sorted so, the rest of the loop goes too). Returns the
 * number of combinations timed. */
static long ol_search(const struct ol *b, const struct ol_rows *rows, int64_t *opt,
		      const struct ol_row *(*best)[2])
{
	long combos = 0;
	int n1 = b->D > 1 ? rows[1].n : 1;
	for (int pass = 0; pass < 2; pass++) {
		int64_t cut = pass ? opt[0] : INT64_MAX;
		best[pass][0] = pass ? best[0][0] : NULL;
		best[pass][1] = pass ? best[0][1] : NULL;
		for (int a = 0; a < rows[0].n; a++) {
			const struct ol_row *r0 = &rows[0].v[a];
			if (!pass && r0->offl)
				continue;
			if (!b->span && r0->iso >= cut)
				break;
			for (int c = 0; c < n1; c++) {
				const struct ol_row *r1 = b->D > 1 ? &rows[1].v[c] : NULL;
				if (r1 && !pass && r1->offl)
					continue;
				if (r1 && !b->span && r1->iso >= cut)
					break;
				const struct ol_row *pick[2] = {r0, r1};
				struct ol_time t;
				ol_time_rows(b, pick, true, &t);
				combos++;
				if (t.ok && t.objective < cut) {
					cut = t.objective;
					best[pass][0] = r0;
					best[pass][1] = r1;
				}
			}
		}
		opt[pass] = cut;
	}
	return combos;
}

#ifdef PIPEOPT_SANITIZED
#define OL_RANDOM_SIMS 15
#else
#define OL_RANDOM_SIMS 40
#endif

/*
 * Enumerate, check and solve one instance; returns its OPT (INT64_MAX: no
 * valid schedule), *plain the OPT without offloads.
 *
 * Rows per device by ol_prepare, combinations by ol_search. The simulator
 * sees the optimal combinations and OL_RANDOM_SIMS random ones, rows drawn
 * without the reductions (ol_random_row: any listing, any offloads, valid
 * or not).
 */
static int64_t ol_instance(struct ol *b, uint64_t *rng, struct ol_stats *st, int64_t *plain)
{
	char json[1024];
	ol_deps(b);
	assert_true(b->n <= OL_MAX_OPS);
	ol_json(b, json, sizeof json);
	struct instance *in = parse_instance_ok(json);
	assert_int_equal(inst_nops(in), b->n);
	assert_true(in->has_offload);
	for (int l = 0; l < b->L; l++)
		if (in->offload_cost[l] != b->O[l] || in->reload_cost[l] != b->Lr[l] ||
		    in->offload_keep[l] != b->keep[l])
			fail_msg("stage %d: O %lld L %lld keep %lld, expected %lld %lld %lld\ninstance %s",
				 l, (long long)in->offload_cost[l], (long long)in->reload_cost[l],
				 (long long)in->offload_keep[l], (long long)b->O[l],
				 (long long)b->Lr[l], (long long)b->keep[l], json);
	struct sim *s = sim_new(in);
	assert_non_null(s);

	struct ol_rows rows[2] = {{0}};
	int64_t opt[2];
	const struct ol_row *best[2][2];
	st->rows += ol_prepare(b, rows);
	st->combos += ol_search(b, rows, opt, best);
	for (int pass = 0; pass < 2; pass++)
		if (best[pass][0]) {
			ol_compare(b, json, best[pass], s);
			st->sim_checked++;
		}
	for (int i = 0; i < OL_RANDOM_SIMS; i++) {
		struct ol_row w[2];
		const struct ol_row *pick[2] = {&w[0], &w[1]};
		for (int d = 0; d < b->D; d++) {
			unsigned offl = 0;
			for (int l = 0; l < b->L; l++)
				for (int j = 0; j < b->M; j++)
					if (b->dev[l] == d && xorshift_in(rng, 0, 1))
						offl |= 1u << (l * b->M + j);
			ol_random_row(b, d, offl, rng, &w[d]);
		}
		ol_compare(b, json, pick, s);
		st->sim_checked++;
	}

	st->instances++;
	st->span_instances += b->span;
	st->infeasible += opt[1] == INT64_MAX;
	if (opt[1] > opt[0])
		fail_msg("OPT %lld above %lld without offloads\ninstance %s", (long long)opt[1],
			 (long long)opt[0], json);
	st->below += opt[1] < opt[0] && opt[0] != INT64_MAX;
	st->rescued += opt[1] != INT64_MAX && opt[0] == INT64_MAX;

	ol_exact(b, in, json, opt[1], opt[0], st);
	if (opt[1] != INT64_MAX) {
		milp_alone_count(in, json, opt[1], "cbc", &st->milp);
		milp_alone_count(in, json, opt[1], "glpk", &st->milp);
	}

	for (int d = 0; d < b->D; d++)
		free(rows[d].v);
	sim_free(s);
	instance_free(in);
	*plain = opt[0];
	return opt[1];
}

struct ol_shape {
	int D, L, dev[2], mlo, mhi;
	bool split;
	int count;          /* instances per micro-batch count */
	int span_one_in;    /* the span objective on one in this many; 0: never */
};

static void ol_shapes(const struct ol_shape *shapes, size_t n, uint64_t seed,
		      struct ol_stats *st)
{
	uint64_t rng = seed;
	for (size_t s = 0; s < n; s++)
		for (int M = shapes[s].mlo; M <= shapes[s].mhi; M++)
			for (int i = 0; i < shapes[s].count; i++) {
				struct ol b;
				int64_t plain;
				ol_random(&b, &rng, shapes[s].D, shapes[s].L, shapes[s].dev, M,
					  shapes[s].split, shapes[s].span_one_in);
				ol_instance(&b, &rng, st, &plain);
			}
}

/* ---- 5. the brute force's reductions ----------------------------------------------- */

/*
 * The reductions of ol_gen_rows (device 0's F(0, .) in micro-batch order,
 * no compute op right before a channel op it commutes with, prefixes over
 * a limit cut, the cut on one device) and the cut of ol_instance (a row
 * alone ending no earlier than the best so far) are argued where they are
 * made; here they are checked as well: on small instances of every shape
 * the optimum with and without offloads is the same as over every listing
 * of every subset, every combination timed.
 */
static void ol_full(const struct ol *b, int64_t *opt, int64_t *plain)
{
	struct ol_rows rows[2] = {{0}};
	for (int d = 0; d < b->D; d++)
		ol_gen_rows(b, d, false, &rows[d]);
	*opt = *plain = INT64_MAX;
	int n1 = b->D > 1 ? rows[1].n : 1;
	for (int a = 0; a < rows[0].n; a++)
		for (int c = 0; c < n1; c++) {
			const struct ol_row *pick[2] = {&rows[0].v[a], b->D > 1 ? &rows[1].v[c] : NULL};
			bool ok = true, off = false;
			for (int d = 0; d < b->D; d++) {
				ok &= pick[d]->mem_ok && pick[d]->host_ok && pick[d]->iso_ok;
				off |= pick[d]->offl != 0;
			}
			if (!ok)
				continue;
			struct ol_time t;
			ol_time_rows(b, pick, true, &t);
			if (!t.ok)
				continue;
			if (t.objective < *opt)
				*opt = t.objective;
			if (!off && t.objective < *plain)
				*plain = t.objective;
		}
	for (int d = 0; d < b->D; d++)
		free(rows[d].v);
}

static void test_reductions(void **state)
{
	(void)state;
	static const struct ol_shape shapes[] = {
		{1, 1, {0}, 1, 2, false, 40, 3},
		{1, 1, {0}, 1, 2, true, 20, 3},
		{2, 2, {0, 1}, 1, 1, true, 40, 3},
		{2, 2, {0, 1}, 2, 2, false, 40, 3},
		{2, 2, {0, 1}, 2, 2, true, 6, 3},
		{1, 2, {0, 0}, 1, 1, false, 40, 3},
		{1, 2, {0, 0}, 1, 1, true, 20, 3},
	};
	uint64_t rng = 0x5851f42d4c957f2dULL;
	int n = 0, below = 0;
	for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
		for (int M = shapes[s].mlo; M <= shapes[s].mhi; M++)
			for (int i = 0; i < shapes[s].count; i++) {
				struct ol b;
				ol_random(&b, &rng, shapes[s].D, shapes[s].L, shapes[s].dev, M,
					  shapes[s].split, shapes[s].span_one_in);
				ol_deps(&b);
				int64_t opt, plain;
				ol_full(&b, &opt, &plain);
				/* the reduced search, as ol_instance runs it */
				struct ol_rows rows[2];
				int64_t got[2];
				const struct ol_row *best[2][2];
				ol_prepare(&b, rows);
				ol_search(&b, rows, got, best);
				for (int d = 0; d < b.D; d++)
					free(rows[d].v);
				if (got[1] != opt || got[0] != plain) {
					char json[1024];
					ol_json(&b, json, sizeof json);
					fail_msg("reduced search %lld (%lld without offloads), every listing %lld "
						 "(%lld)\ninstance %s", (long long)got[1], (long long)got[0],
						 (long long)opt, (long long)plain, json);
				}
				n++;
				below += opt < plain;
			}
	printf("offload brute force, reductions: %d instances, the same optima over every listing "
	       "(%d better with offloads)\n", n, below);
	assert_true(below > 0);
}

/* ---- 6. the brute force against the simulator, exact_solve and the bound --------- */

#ifdef PIPEOPT_SANITIZED
#define OL_COUNT(n) (((n) + 2) / 3)
#else
#define OL_COUNT(n) (n)
#endif

/*
 * The key test. Shapes: 1 device with 1 stage (fused, M 1-3; split, M
 * 1-3), 2 devices with a stage each (fused, M 1-3; split, M 1-2), one
 * device with 2 stages (fused, M 1-2; split, M 1-2); the random instances
 * of ol_random, the span objective on one in four. On each, OPT being the
 * least objective of a valid schedule over every subset of offloads and
 * every listing:
 *   (a) sim_run agrees with this file's evaluator on the optimal
 *       combinations and on random listings (valid or not): validity, every
 *       compute and copy time, makespan, span, objective, peaks, offloaded;
 *   (b) exact_solve certifies OPT ("optimal"), its schedule re-simulating
 *       to OPT in sim_run and in the evaluator (listing rules included);
 *       where no schedule is valid it certifies nothing;
 *   (c) bound_compute's best <= OPT;
 *   (d) OPT <= OPT without offloads; over all, some instances have OPT
 *       below it, and some have valid schedules only with offloads.
 * Disagreements of exact_solve or the bound are printed in full and
 * counted; the test asserts there are none at its end.
 */
static void test_brute_force(void **state)
{
	(void)state;
	static const struct ol_shape shapes[] = {
		{1, 1, {0}, 1, 3, false, OL_COUNT(40), 4},
		{1, 1, {0}, 1, 3, true, OL_COUNT(30), 4},
		{2, 2, {0, 1}, 1, 2, false, OL_COUNT(180), 4},
		{2, 2, {0, 1}, 3, 3, false, OL_COUNT(24), 0},
		{2, 2, {0, 1}, 1, 2, true, OL_COUNT(135), 4},
		{1, 2, {0, 0}, 1, 2, false, OL_COUNT(75), 4},
		{1, 2, {0, 0}, 1, 2, true, OL_COUNT(36), 4},
	};
	struct ol_stats st = {0};
	ol_shapes(shapes, sizeof shapes / sizeof *shapes, 0x9e3779b97f4a7c15ULL, &st);
	printf("offload brute force: %d instances (%d span, %d without any valid schedule), %ld "
	       "rows, %ld combinations timed, %ld checked against sim_run; OPT below the OPT "
	       "without offloads on %d; valid only with offloads on %d (exact_solve certified "
	       "%d); bound = OPT on %d; exact_solve certified OPT on %d; the MILP alone (CBC, "
	       "GLPK) certified %d of %d solves (no schedule to start from in %d); "
	       "disagreements %d\n",
	       st.instances, st.span_instances, st.infeasible, st.rows, st.combos, st.sim_checked,
	       st.below, st.rescued, st.rescued_exact, st.bound_tight, st.exact,
	       st.milp.certified, st.milp.solves, st.milp.no_start, st.disagree + st.milp.disagree);
	assert_int_equal(st.disagree, 0);
	assert_int_equal(st.milp.disagree, 0);
	assert_int_equal(st.milp.solves + st.milp.no_start, 2 * (st.instances - st.infeasible));
	assert_int_equal(st.exact, st.instances - st.infeasible);
	assert_true(st.below > 0);
	assert_true(st.rescued > 0);
	assert_int_equal(st.rescued_exact, st.rescued);
	assert_true(st.span_instances > 0);
}

/* The span objective on its own: every instance "objective": "span". */
static void test_brute_force_span(void **state)
{
	(void)state;
	static const struct ol_shape shapes[] = {
		{1, 1, {0}, 2, 3, false, OL_COUNT(10), 1},
		{2, 2, {0, 1}, 1, 2, false, OL_COUNT(90), 1},
		{2, 2, {0, 1}, 1, 2, true, OL_COUNT(60), 1},
		{1, 2, {0, 0}, 1, 2, false, OL_COUNT(30), 1},
		{1, 2, {0, 0}, 1, 1, true, OL_COUNT(30), 1},
	};
	struct ol_stats st = {0};
	ol_shapes(shapes, sizeof shapes / sizeof *shapes, 0x2545f4914f6cdd1dULL, &st);
	printf("offload brute force, span: %d instances (%d without any valid schedule), %ld "
	       "combinations timed, %ld checked against sim_run; OPT below the OPT without "
	       "offloads on %d; valid only with offloads on %d; exact_solve certified OPT on %d; "
	       "disagreements %d\n",
	       st.instances, st.infeasible, st.combos, st.sim_checked, st.below, st.rescued,
	       st.exact, st.disagree);
	assert_int_equal(st.disagree, 0);
	assert_int_equal(st.milp.disagree, 0);
	assert_int_equal(st.span_instances, st.instances);
	assert_int_equal(st.exact, st.instances - st.infeasible);
	assert_true(st.below > 0);
}

/* Only a formulation that holds offload choices may solve an instance
 * with them: the time-indexed model is refused by name, and auto takes
 * the disjunctive one, which alone (always_milp) certifies the brute
 * force's optimum, 17, of an instance test_brute_force met (zero-length
 * copies on stage 0: its decode once listed a reload before an offload
 * that started at the same instant, 2 > 1 in memory; channel ties now
 * follow the model's binaries). */
static void test_milp_formulation_with_offload(void **state)
{
	(void)state;
	struct schedule *s = milp_refuses_then_certifies(
		"{\"devices\":2,\"microbatches\":2,\"placement\":[0,1],\"split_backward\":true,"
		"\"cost\":{\"F\":[2,3],\"B\":[2,3],\"W\":[1,0]},\"edges\":[[0,1]],\"comm\":0,"
		"\"memory\":{\"F\":[1,3],\"B\":[0,-1],\"W\":[-1,-2],\"limit\":[1,4]},"
		"\"offload\":{\"O\":[0,1]}}",
		"offload choices", 17, "solver");
	assert_true(schedule_has_offload(s));
	schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timelines),
		cmocka_unit_test(test_instance_key),
		cmocka_unit_test(test_schedule_ops),
		cmocka_unit_test(test_reductions),
		cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_brute_force_span),
		cmocka_unit_test(test_milp_formulation_with_offload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
