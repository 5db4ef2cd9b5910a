/*
 * F&B overlap: the instance key "overlap": {"factor": rho} (sched/instance.c),
 * overlapped pairs in schedules (struct op's with_prev; JSON in
 * sched/schedule.c, torch CSV in sched/torch_csv.c), their timing, memory
 * and rules in the simulator (sched/sim.c) and the bounds on instances with
 * overlap (sched/bound.c, bound_compute and overlap_relaxed).
 *
 * The semantics under test (instance.h, sim.h): a device may run one F and
 * one B (of different micro-batches, possibly of different stages) as one
 * pair; both start when both are ready and the device is free, and both end
 * max(a, b) + ceil(rho min(a, b)) later (a, b their costs). Without the
 * overlap key a pair's ops run back to back as two ops. A pair's F delta
 * counts in memory before its B's, whatever the listed order; busy time
 * counts a pair once, at its pair cost.
 *
 * Known answers come from timelines drawn by hand in the comments, and from
 * a brute force written here (every order of every device's ops and every
 * grouping of adjacent F/B ops into pairs), timed by the simulator and
 * cross-checked, schedule by schedule, by an evaluator of the semantics
 * above written independently in this file.
 *
 * Rows in this file: ops as "F(0,1)"; a '+' before an op joins it with the
 * op before it as one overlapped pair ("F(0,1) +B(0,0)").
 *
 * Timeline pictures: one character per time unit; for micro-batch 0 the op
 * kind in capitals (F, B, W), for micro-batch 1 in lower case (f, b, w), an
 * overlapped pair as 'x' over its interval (each picture names its ops);
 * '.' is idle.
 */
#include "test_helpers.h"
#include "milp_alone.h"

#include "common/sha256.h"
#include "sched/bound.h"
#include "sched/sim.h"
#include "sched/torch_csv.h"
#include "solvers/bnb.h"
#include "solvers/exact.h"
#include "test_schedules.h"
#include "timeline.h"
#include "chain_deps.h"
#include "xorshift.h"

/* ---- helpers -------------------------------------------------------------- */

/* ---- 1. hand-drawn timelines ------------------------------------------------- */

#define ONE_DEV(f, b, overlap)                                                 \
	"{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":" #f ",\"B\":" #b "}" \
	overlap "}"

/*
 * 1 device, 1 stage, 2 micro-batches, F = 2, B = 3, rho = 0.5; schedule
 * F(0,0), (F(0,1), B(0,0)), B(0,1). The pair lasts max(2, 3) + ceil(0.5 * 2)
 * = 3 + 1 = 4 and starts when both are ready: F(0,1) at 2 (device free),
 * B(0,0) at 2 (F(0,0) done).
 *
 *   time   0123456789
 *   dev0   FFxxxxbbb      x = the pair F(0,1)+B(0,0), [2, 6)
 *
 * makespan 9 = span; busy 2 + 4 + 3 = 9 (the pair once), bubble 0.
 */
static const struct timeline one_dev_half = {
	ONE_DEV(2, 3, ",\"overlap\":{\"factor\":0.5}"),
	1,
	{"F(0,0) F(0,1) +B(0,0) B(0,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 2, 6}, {"B(0,0)", 2, 6}, {"B(0,1)", 6, 9}},
	9, 9, 9, 9, 0.0, {0},
	"one device, rho 0.5",
};

/* The same pair listed (B, F): a pair is unordered, the same times. */
static const struct timeline one_dev_half_bf = {
	ONE_DEV(2, 3, ",\"overlap\":{\"factor\":0.5}"),
	1,
	{"F(0,0) B(0,0) +F(0,1) B(0,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 2, 6}, {"B(0,0)", 2, 6}, {"B(0,1)", 6, 9}},
	9, 9, 9, 9, 0.0, {0},
	"one device, rho 0.5, listed (B, F)",
};

/*
 * The same rows without the overlap key: the pair's ops run back to back
 * as two ops, in the listed order.
 *
 *   time   0123456789
 *   dev0   FFffBBBbbb      F(0,0) [0,2) F(0,1) [2,4) B(0,0) [4,7) B(0,1) [7,10)
 *
 * makespan 10, busy 2 + 2 + 3 + 3 = 10.
 */
static const struct timeline one_dev_plain = {
	ONE_DEV(2, 3, ""),
	1,
	{"F(0,0) F(0,1) +B(0,0) B(0,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 2, 4}, {"B(0,0)", 4, 7}, {"B(0,1)", 7, 10}},
	10, 10, 10, 10, 0.0, {0},
	"one device, no overlap key",
};

/* Listed (B, F) without the key: B(0,0) [2,5) then F(0,1) [5,7). */
static const struct timeline one_dev_plain_bf = {
	ONE_DEV(2, 3, ""),
	1,
	{"F(0,0) B(0,0) +F(0,1) B(0,1)"},
	{{"F(0,0)", 0, 2}, {"B(0,0)", 2, 5}, {"F(0,1)", 5, 7}, {"B(0,1)", 7, 10}},
	10, 10, 10, 10, 0.0, {0},
	"one device, no overlap key, listed (B, F)",
};

/* rho = 0: the pair is max(2, 3) = 3, [2, 5); B(0,1) [5, 8). busy 8. */
static const struct timeline one_dev_zero = {
	ONE_DEV(2, 3, ",\"overlap\":{\"factor\":0}"),
	1,
	{"F(0,0) F(0,1) +B(0,0) B(0,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 2, 5}, {"B(0,0)", 2, 5}, {"B(0,1)", 5, 8}},
	8, 8, 8, 8, 0.0, {0},
	"one device, rho 0",
};

/* rho = 1: the pair is 3 + 2 = 5 (no gain), [2, 7); B(0,1) [7, 10): the
 * makespan of running them back to back, but F(0,1) now ends at 7, not 4. */
static const struct timeline one_dev_one = {
	ONE_DEV(2, 3, ",\"overlap\":{\"factor\":1}"),
	1,
	{"F(0,0) F(0,1) +B(0,0) B(0,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 2, 7}, {"B(0,0)", 2, 7}, {"B(0,1)", 7, 10}},
	10, 10, 10, 10, 0.0, {0},
	"one device, rho 1",
};

/* F = 3, B = 5, rho = 0.3: pair 5 + ceil(0.9) = 6, [3, 9); B(0,1) [9, 14).
 * (0.3 * 3 is 0.8999999999999999 in binary: the ceiling is still 1.) */
static const struct timeline one_dev_03 = {
	ONE_DEV(3, 5, ",\"overlap\":{\"factor\":0.3}"),
	1,
	{"F(0,0) F(0,1) +B(0,0) B(0,1)"},
	{{"F(0,0)", 0, 3}, {"F(0,1)", 3, 9}, {"B(0,0)", 3, 9}, {"B(0,1)", 9, 14}},
	14, 14, 14, 14, 0.0, {0},
	"one device, rho 0.3",
};

/* F = 3, B = 5, rho = 0.7: pair 5 + ceil(2.1) = 8, [3, 11); B(0,1) [11, 16).
 * (0.7 * 3 is 2.0999999999999996 in binary: the ceiling is 3.) */
static const struct timeline one_dev_07 = {
	ONE_DEV(3, 5, ",\"overlap\":{\"factor\":0.7}"),
	1,
	{"F(0,0) F(0,1) +B(0,0) B(0,1)"},
	{{"F(0,0)", 0, 3}, {"F(0,1)", 3, 11}, {"B(0,0)", 3, 11}, {"B(0,1)", 11, 16}},
	16, 16, 16, 16, 0.0, {0},
	"one device, rho 0.7",
};

#define TWO_DEV(cost, overlap)                                                 \
	"{\"devices\":2,\"microbatches\":2,\"cost\":" cost ",\"comm\":1" overlap "}"

/*
 * 2 devices (stage l on device l), 2 micro-batches, F = 2, B = 3, comm 1,
 * rho = 0.5. Device 0 pairs F(0,1) with B(0,0); the pair waits for the
 * later of its inputs, B(0,0)'s (B(1,0) ends 8, + comm 1 = 9), although
 * F(0,1) could start at 2.
 *
 *   time   0         1         2
 *          01234567890123456789012
 *   dev0   FF.......xxxx.......bbb      x = F(0,1)+B(0,0) [9, 13)
 *   dev1   ...FFBBB......ffbbb
 *
 * F(0,0) [0,2); F(1,0) at 2+1 = 3, [3,5); B(1,0) [5,8); pair at
 * max(2, 8+1) = 9, 3 + ceil(0.5*2) = 4 long: [9,13); F(1,1) at 13+1 = 14,
 * [14,16); B(1,1) [16,19); B(0,1) at 19+1 = 20, [20,23). makespan 23;
 * span: dev0 23 - 0 = 23, dev1 19 - 3 = 16 -> 23. busy: dev0 2+4+3 = 9,
 * dev1 2+3+2+3 = 10 -> 19; bubble 1 - 19/46.
 */
static const struct timeline two_dev_b_late = {
	TWO_DEV("{\"F\":2,\"B\":3}", ",\"overlap\":{\"factor\":0.5}"),
	2,
	{"F(0,0) F(0,1) +B(0,0) B(0,1)", "F(1,0) B(1,0) F(1,1) B(1,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 9, 13}, {"B(0,0)", 9, 13}, {"B(0,1)", 20, 23},
	 {"F(1,0)", 3, 5}, {"B(1,0)", 5, 8}, {"F(1,1)", 14, 16}, {"B(1,1)", 16, 19}},
	23, 23, 23, 19, 1.0 - 19.0 / 46.0, {0, 0},
	"two devices, the pair waits for its B's input",
};

/*
 * The same without the overlap key: back to back, here better (17).
 *
 *   time   0         1
 *          012345678901234567
 *   dev0   FFff.....BBB..bbb
 *   dev1   ...FFBBBffbbb
 *
 * F(0,1) [2,4); F(1,1) at max(8, 4+1) = 8, [8,10); B(0,0) at 8+1 = 9,
 * [9,12); B(1,1) [10,13); B(0,1) at 13+1 = 14, [14,17). span: dev0 17,
 * dev1 13 - 3 = 10. busy 20; bubble 1 - 20/34.
 */
static const struct timeline two_dev_b_late_plain = {
	TWO_DEV("{\"F\":2,\"B\":3}", ""),
	2,
	{"F(0,0) F(0,1) +B(0,0) B(0,1)", "F(1,0) B(1,0) F(1,1) B(1,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 2, 4}, {"B(0,0)", 9, 12}, {"B(0,1)", 14, 17},
	 {"F(1,0)", 3, 5}, {"B(1,0)", 5, 8}, {"F(1,1)", 8, 10}, {"B(1,1)", 10, 13}},
	17, 17, 17, 20, 1.0 - 20.0 / 34.0, {0, 0},
	"two devices, no overlap key",
};

/*
 * 2 devices, F = [3, 1] (per stage), B = 3, comm 1, rho = 0.5. Device 1
 * pairs F(1,1) with B(1,0); this time the F's input is the later one:
 * B(1,0) is ready at 5 (F(1,0) done), F(1,1) at 6+1 = 7 (F(0,1) ends 6).
 *
 *   time   0         1
 *          012345678901234567
 *   dev0   FFFfff......BBBbbb
 *   dev1   ....F..xxxxbbb        x = F(1,1)+B(1,0) [7, 11)
 *
 * F(0,0) [0,3); F(0,1) [3,6); F(1,0) at 3+1 = 4, [4,5); pair at 7, max(1, 3)
 * + ceil(0.5 * 1) = 4 long: [7,11); B(1,1) [11,14); B(0,0) at 11+1 = 12,
 * [12,15); B(0,1) at 14+1 = 15, [15,18). makespan 18; span: dev0 18,
 * dev1 14 - 4 = 10. busy: dev0 12, dev1 1+4+3 = 8 -> 20; bubble 1 - 20/36.
 */
static const struct timeline two_dev_f_late = {
	TWO_DEV("{\"F\":[3,1],\"B\":3}", ",\"overlap\":{\"factor\":0.5}"),
	2,
	{"F(0,0) F(0,1) B(0,0) B(0,1)", "F(1,0) F(1,1) +B(1,0) B(1,1)"},
	{{"F(0,0)", 0, 3}, {"F(0,1)", 3, 6}, {"B(0,0)", 12, 15}, {"B(0,1)", 15, 18},
	 {"F(1,0)", 4, 5}, {"F(1,1)", 7, 11}, {"B(1,0)", 7, 11}, {"B(1,1)", 11, 14}},
	18, 18, 18, 20, 1.0 - 20.0 / 36.0, {0, 0},
	"two devices, the pair waits for its F's input",
};

/*
 * A pair of two stages on one device: 1 device holding stages 0 and 1
 * (placement [0, 0]: no lag between them, comm 5 applies across devices
 * only), 2 micro-batches, F = 1, B = 2, rho = 0.5; the pair (F(1,1),
 * B(0,0)) lasts max(1, 2) + ceil(0.5 * 1) = 3.
 *
 *   time   0         1
 *          012345678901
 *   dev0   FFBBfxxxbbbb      x = F(1,1)+B(0,0) [5, 8)
 *
 * F(0,0) [0,1), F(1,0) [1,2), B(1,0) [2,4), F(0,1) [4,5); the pair waits
 * for F(1,1)'s input F(0,1) (B(0,0)'s, B(1,0), ended at 4): [5,8);
 * B(1,1) [8,10), B(0,1) [10,12). makespan 12, busy 1+1+2+1+3+2+2 = 12.
 */
static const struct timeline one_dev_two_stages = {
	"{\"devices\":1,\"microbatches\":2,\"placement\":[0,0],\"edges\":[[0,1]],"
	"\"cost\":{\"F\":1,\"B\":2},\"comm\":5,\"overlap\":{\"factor\":0.5}}",
	1,
	{"F(0,0) F(1,0) B(1,0) F(0,1) F(1,1) +B(0,0) B(1,1) B(0,1)"},
	{{"F(0,0)", 0, 1}, {"F(1,0)", 1, 2}, {"B(1,0)", 2, 4}, {"B(0,0)", 5, 8},
	 {"F(0,1)", 4, 5}, {"F(1,1)", 5, 8}, {"B(1,1)", 8, 10}, {"B(0,1)", 10, 12}},
	12, 12, 12, 12, 0.0, {0},
	"one device, two stages, a pair across stages",
};

/*
 * Split backward: a pair of an F and an input backward B, W on its own.
 * 1 device, 2 micro-batches, F = 2, B = 2, W = 1, rho = 0.5: pair 2 + 1 = 3.
 *
 *   time   0123456789
 *   dev0   FFxxxWbbw       x = F(0,1)+B(0,0) [2,5)
 *
 * F(0,0) [0,2), pair [2,5), W(0,0) [5,6), B(0,1) [6,8), W(0,1) [8,9).
 * makespan 9, busy 2+3+1+2+1 = 9.
 */
static const struct timeline one_dev_split = {
	"{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2,\"W\":1},"
	"\"overlap\":{\"factor\":0.5}}",
	1,
	{"F(0,0) F(0,1) +B(0,0) W(0,0) B(0,1) W(0,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 2, 5}, {"B(0,0)", 2, 5}, {"W(0,0)", 5, 6},
	 {"B(0,1)", 6, 8}, {"W(0,1)", 8, 9}},
	9, 9, 9, 9, 0.0, {0},
	"one device, split backward",
};

static void test_timelines(void **state)
{
	(void)state;
	const struct timeline *all[] = {
		&one_dev_half, &one_dev_half_bf, &one_dev_plain, &one_dev_plain_bf,
		&one_dev_zero, &one_dev_one, &one_dev_03, &one_dev_07,
		&two_dev_b_late, &two_dev_b_late_plain, &two_dev_f_late,
		&one_dev_two_stages, &one_dev_split,
	};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		check_timeline(all[i]);
}

/* inst_pair_cost by hand: max(a, b) + ceil(rho min(a, b)), symmetric. */
static void test_pair_cost(void **state)
{
	(void)state;
	static const struct {
		const char *factor;
		int64_t a, b, cost;
	} cases[] = {
		{"0", 2, 3, 3},     {"0.5", 2, 3, 4},   {"1", 2, 3, 5},
		{"0.5", 3, 3, 5},   {"0.25", 3, 4, 5},  {"0.25", 4, 4, 5},
		{"0.25", 1, 4, 5},  {"0.3", 3, 5, 6},   {"0.7", 3, 5, 8},
		{"0.1", 30, 40, 43}, {"0.5", 7, 1, 8},  {"1", 4, 4, 8},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char json[160];
		snprintf(json, sizeof json,
			 "{\"devices\":1,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1},"
			 "\"overlap\":{\"factor\":%s}}", cases[i].factor);
		struct instance *in = parse_instance_ok(json);
		int64_t x = inst_pair_cost(in, cases[i].a, cases[i].b);
		int64_t y = inst_pair_cost(in, cases[i].b, cases[i].a);
		if (x != cases[i].cost || y != cases[i].cost)
			fail_msg("rho %s, %lld and %lld: got %lld / %lld, expected %lld",
				 cases[i].factor, (long long)cases[i].a, (long long)cases[i].b,
				 (long long)x, (long long)y, (long long)cases[i].cost);
		instance_free(in);
	}
}

/* ---- 2. memory ---------------------------------------------------------------------- */

/*
 * 1 device, 2 micro-batches, F = 2, B = 3, memory F = +2, B = -2. Rows
 * listed (B, F): F(0,0), (B(0,0), F(0,1)), B(0,1).
 *   - listed order: 2, 0, 2, 0 -> peak 2;
 *   - the pair's F first (with overlap): 2, then F(0,1) 4, B(0,0) 2, then
 *     0 -> peak 4.
 * With limit 3 the pair breaks it (4 > 3, at F(0,1), counted at the pair's
 * position 1), while the same rows without the overlap key (back to back,
 * listed order, peak 2) fit. Listed (F, B) the peak is 4 either way.
 */
#define MEM_JSON(limit, overlap)                                               \
	"{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"        \
	"\"memory\":{\"F\":2,\"B\":-2" limit "}" overlap "}"

static void peak_of(const char *json, const char *row, int64_t peak, int64_t makespan)
{
	struct instance *in = parse_instance_ok(json);
	struct schedule *sc = make_schedule(1, (const char *const[]){row});
	struct sim *s = sim_new(in);
	struct sim_result r;
	struct error err = {{0}};
	if (sim_run(s, sc, &r, &err))
		fail_msg("%s / %s: %s", json, row, err.msg);
	if (r.peak_memory[0] != peak || r.makespan != makespan)
		fail_msg("%s / %s: peak %lld makespan %lld, expected %lld %lld", json, row,
			 (long long)r.peak_memory[0], (long long)r.makespan, (long long)peak,
			 (long long)makespan);
	sim_free(s);
	schedule_free(sc);
	instance_free(in);
}

static void test_memory_f_first(void **state)
{
	(void)state;
	const char *bf = "F(0,0) B(0,0) +F(0,1) B(0,1)";
	const char *fb = "F(0,0) F(0,1) +B(0,0) B(0,1)";
	const char *seq = "F(0,0) B(0,0) F(0,1) B(0,1)";
	/* peaks without a limit; makespans: pair 9 (one_dev_half), 10 else */
	peak_of(MEM_JSON("", ",\"overlap\":{\"factor\":0.5}"), bf, 4, 9);
	peak_of(MEM_JSON("", ",\"overlap\":{\"factor\":0.5}"), fb, 4, 9);
	peak_of(MEM_JSON("", ""), bf, 2, 10);
	peak_of(MEM_JSON("", ""), fb, 4, 10);
	peak_of(MEM_JSON("", ",\"overlap\":{\"factor\":0.5}"), seq, 2, 10);
	/* limit 3: the pair is over it, back to back fits */
	peak_of(MEM_JSON(",\"limit\":3", ""), bf, 2, 10);
	peak_of(MEM_JSON(",\"limit\":3", ",\"overlap\":{\"factor\":0.5}"), seq, 2, 10);
	struct error err;
	expect_sim_error(MEM_JSON(",\"limit\":3", ",\"overlap\":{\"factor\":0.5}"), 1,
			 (const char *const[]){bf}, &err);
	assert_contains(err.msg, "memory");
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "F(0,1)");
	assert_contains(err.msg, "4 > 3");
	expect_sim_error(MEM_JSON(",\"limit\":3", ",\"overlap\":{\"factor\":0.5}"), 1,
			 (const char *const[]){fb}, &err);
	assert_contains(err.msg, "memory");
	assert_contains(err.msg, "4 > 3");
	/* limit 4 holds the pair */
	peak_of(MEM_JSON(",\"limit\":4", ",\"overlap\":{\"factor\":0.5}"), bf, 4, 9);
}

/*
 * Two stages on one device (placement [0, 0]), 2 micro-batches, F = 1,
 * B = 2, rho = 0.5, memory F = [1, 3], B = [-1, -3], limit 4 (the reader's
 * least: stage 1's F alone is 3).
 *
 * Rows P: F(0,0) F(1,0) B(1,0) F(0,1) (B(0,0), F(1,1)) B(1,1) B(0,1).
 *   - back to back (no key), listed order: 1, 4, 1, 2, 1 (B(0,0)), 4
 *     (F(1,1)), 1, 0 -> peak 4, fits; F(0,0) [0,1) F(1,0) [1,2) B(1,0)
 *     [2,4) F(0,1) [4,5) B(0,0) [5,7) F(1,1) [7,8) B(1,1) [8,10) B(0,1)
 *     [10,12): makespan 12;
 *   - with the key the pair's F counts first: 1, 4, 1, 2, then F(1,1)
 *     5 > 4: over the limit, at F(1,1).
 * Rows Q: F(0,0) F(1,0) B(1,0) (B(0,0), F(0,1)) F(1,1) B(1,1) B(0,1), with
 * the key: 1, 4, 1, F(0,1) 2, B(0,0) 1, F(1,1) 4, 1, 0 -> peak 4, fits.
 * Times: pair at 4 (B(1,0) ends 4), max(1, 2) + ceil(0.5) = 3: [4,7);
 * F(1,1) [7,8) B(1,1) [8,10) B(0,1) [10,12): makespan 12.
 */
#define TWO_STAGE_MEM(overlap)                                                 \
	"{\"devices\":1,\"microbatches\":2,\"placement\":[0,0],\"edges\":[[0,1]],"   \
	"\"cost\":{\"F\":1,\"B\":2},\"memory\":{\"F\":[1,3],\"B\":[-1,-3],\"limit\":4}" \
	overlap "}"

static void test_memory_two_stages(void **state)
{
	(void)state;
	const char *p = "F(0,0) F(1,0) B(1,0) F(0,1) B(0,0) +F(1,1) B(1,1) B(0,1)";
	const char *q = "F(0,0) F(1,0) B(1,0) B(0,0) +F(0,1) F(1,1) B(1,1) B(0,1)";
	peak_of(TWO_STAGE_MEM(""), p, 4, 12);
	struct error err;
	expect_sim_error(TWO_STAGE_MEM(",\"overlap\":{\"factor\":0.5}"), 1,
			 (const char *const[]){p}, &err);
	assert_contains(err.msg, "memory");
	assert_contains(err.msg, "device 0, position 4");
	assert_contains(err.msg, "F(1,1)");
	assert_contains(err.msg, "5 > 4");
	peak_of(TWO_STAGE_MEM(",\"overlap\":{\"factor\":0.5}"), q, 4, 12);
}

/* ---- 3. invalid pairs ------------------------------------------------------------- */

static void test_invalid_pairs(void **state)
{
	(void)state;
	struct error err;
	const char *fused = ONE_DEV(2, 3, ",\"overlap\":{\"factor\":0.5}");
	/* two F's */
	expect_sim_error(fused, 1, (const char *const[]){"F(0,0) +F(0,1) B(0,0) B(0,1)"}, &err);
	assert_contains(err.msg, "device 0, position 0");
	assert_contains(err.msg, "one F and one B");
	/* two B's */
	expect_sim_error(fused, 1, (const char *const[]){"F(0,0) F(0,1) B(0,0) +B(0,1)"}, &err);
	assert_contains(err.msg, "device 0, position 2");
	assert_contains(err.msg, "one F and one B");
	/* an F and a W (split) */
	expect_sim_error("{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2,\"W\":1},"
			 "\"overlap\":{\"factor\":0.5}}",
			 1, (const char *const[]){"F(0,0) B(0,0) F(0,1) +W(0,0) B(0,1) W(0,1)"},
			 &err);
	assert_contains(err.msg, "device 0, position 2");
	assert_contains(err.msg, "one F and one B");
	assert_contains(err.msg, "W(0,0)");
	/* a B and a W of another micro-batch, on device 1 of two */
	expect_sim_error("{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2,\"W\":1},"
			 "\"overlap\":{\"factor\":0.5}}",
			 2, (const char *const[]){"F(0,0) F(0,1) B(0,0) W(0,0) B(0,1) W(0,1)",
						   "F(1,0) B(1,0) F(1,1) B(1,1) +W(1,0) W(1,1)"},
			 &err);
	assert_contains(err.msg, "device 1, position 3");
	/* three ops chained: F(0,1) B(0,0) F(0,2) */
	expect_sim_error("{\"devices\":1,\"microbatches\":3,\"cost\":{\"F\":2,\"B\":3},"
			 "\"overlap\":{\"factor\":0.5}}",
			 1, (const char *const[]){"F(0,0) F(0,1) +B(0,0) +F(0,2) B(0,1) B(0,2)"},
			 &err);
	assert_contains(err.msg, "device 0, position 3");
	assert_contains(err.msg, "third op");
	/* F and B of the same (stage, micro-batch): B needs F's output */
	expect_sim_error(fused, 1, (const char *const[]){"F(0,0) +B(0,0) F(0,1) B(0,1)"}, &err);
	assert_contains(err.msg, "deadlock");
	/* the same listed (B, F) */
	expect_sim_error(fused, 1, (const char *const[]){"F(0,0) B(0,0) B(0,1) +F(0,1)"}, &err);
	assert_contains(err.msg, "deadlock");
	/* across stages on one device: B(0,0) needs B(1,0), which needs F(1,0) */
	expect_sim_error("{\"devices\":1,\"microbatches\":1,\"placement\":[0,0],"
			 "\"edges\":[[0,1]],\"cost\":{\"F\":1,\"B\":2},\"overlap\":{\"factor\":0.5}}",
			 1, (const char *const[]){"F(0,0) F(1,0) +B(0,0) B(1,0)"}, &err);
	assert_contains(err.msg, "deadlock");
	/* a pair across devices' dependency: device 0 pairs F(0,1) with B(0,0),
	 * device 1 runs F(1,1) before B(1,0): F(1,1) waits for the pair, the
	 * pair for B(1,0) behind F(1,1) */
	expect_sim_error(TWO_DEV("{\"F\":2,\"B\":3}", ",\"overlap\":{\"factor\":0.5}"), 2,
			 (const char *const[]){"F(0,0) F(0,1) +B(0,0) B(0,1)",
					       "F(1,0) F(1,1) B(1,0) B(1,1)"},
			 &err);
	assert_contains(err.msg, "deadlock");
	/* ... and the same rows without the key run back to back: valid */
	{
		struct instance *in = parse_instance_ok(TWO_DEV("{\"F\":2,\"B\":3}", ""));
		struct schedule *sc = make_schedule(2, (const char *const[]){
			"F(0,0) F(0,1) +B(0,0) B(0,1)", "F(1,0) F(1,1) B(1,0) B(1,1)"});
		struct sim *s = sim_new(in);
		struct sim_result r;
		assert_int_equal(sim_run(s, sc, &r, NULL), STATUS_OK);
		sim_free(s);
		schedule_free(sc);
		instance_free(in);
	}

	/* with_prev on position 0 (built in code: schedule_join_last refuses a
	 * row of one op) */
	struct instance *in = parse_instance_ok(fused);
	struct schedule *sc = schedule_new(1);
	assert_int_equal(schedule_push(sc, 0, OP_F, 0, 0), STATUS_OK);
	assert_int_equal(schedule_join_last(sc, 0), STATUS_ERROR);
	assert_false(sc->rows[0].ops[0].with_prev);
	push_row(sc, 0, "B(0,0) F(0,1) B(0,1)");
	sc->rows[0].ops[0].with_prev = true;
	struct sim *s = sim_new(in);
	struct sim_result r;
	memset(&err, 0, sizeof err);
	assert_int_equal(sim_run(s, sc, &r, &err), STATUS_ERROR);
	assert_contains(err.msg, "device 0, position 0");
	assert_contains(err.msg, "F(0,0)");
	sim_free(s);
	schedule_free(sc);
	instance_free(in);
}

/* ---- 4. schedule JSON -------------------------------------------------------------- */

static struct schedule *parse_schedule_ok(const char *text)
{
	struct schedule *s = NULL;
	struct error err = {{0}};
	if (schedule_parse(text, "test.json", &s, &err))
		fail_msg("schedule rejected: %s", err.msg);
	return s;
}

static void test_schedule_json(void **state)
{
	(void)state;
	/* one pair (F, B) inside a row, one (B, F) at a row's end, split ops */
	const char *rows =
		"[[[\"F\",0,0],[[\"F\",0,1],[\"B\",0,0]],[\"W\",0,0],[\"B\",0,1],[\"W\",0,1]],"
		"[[\"F\",1,0],[\"F\",1,1],[[\"B\",1,0],[\"F\",1,2]],[\"W\",1,0],"
		"[[\"B\",1,1],[\"F\",1,3]]]]";
	char text[512];
	snprintf(text, sizeof text, "{\"schedule\":%s}", rows);
	struct schedule *a = parse_schedule_ok(text);
	/* what was read, by hand */
	assert_int_equal(a->devices, 2);
	assert_int_equal(a->rows[0].len, 6);
	assert_int_equal(a->rows[1].len, 7);
	static const bool wp0[] = {0, 0, 1, 0, 0, 0}, wp1[] = {0, 0, 0, 1, 0, 0, 1};
	for (int i = 0; i < 6; i++)
		assert_int_equal(a->rows[0].ops[i].with_prev, wp0[i]);
	for (int i = 0; i < 7; i++)
		assert_int_equal(a->rows[1].ops[i].with_prev, wp1[i]);
	assert_int_equal(a->rows[0].ops[2].kind, OP_B);
	assert_int_equal(a->rows[0].ops[2].mb, 0);
	assert_int_equal(a->rows[1].ops[3].kind, OP_F);
	assert_int_equal(a->rows[1].ops[3].mb, 2);
	assert_true(schedule_has_pairs(a));
	/* written back: the same text, and parsed again: equal */
	json_t *j = schedule_to_json(a);
	char *out = json_dumps(j, JSON_COMPACT);
	assert_string_equal(out, rows);
	free(out);
	json_decref(j);
	json_t *obj = json_object();
	schedule_json_set(obj, a);
	out = json_dumps(obj, JSON_COMPACT);
	struct schedule *b = parse_schedule_ok(out);
	assert_true(schedule_equal(a, b));
	free(out);
	json_decref(obj);
	/* with_prev matters for equality */
	b->rows[1].ops[6].with_prev = false;
	assert_false(schedule_equal(a, b));
	schedule_free(b);
	/* the same ops without pairs */
	b = parse_schedule_ok("{\"schedule\":[[[\"F\",0,0],[\"F\",0,1],[\"B\",0,0]]]}");
	assert_false(schedule_has_pairs(b));
	schedule_free(b);
	schedule_free(a);

	/* "I" reads as B inside a pair too */
	a = parse_schedule_ok("{\"schedule\":[[[\"F\",0,0],[[\"F\",0,1],[\"I\",0,0]],[\"B\",0,1]]]}");
	b = parse_schedule_ok("{\"schedule\":[[[\"F\",0,0],[[\"F\",0,1],[\"B\",0,0]],[\"B\",0,1]]]}");
	assert_true(schedule_equal(a, b));
	schedule_free(a);
	schedule_free(b);

	/* malformed pairs: one-line errors naming schedule[d][i] */
	static const struct {
		const char *name, *text, *where;
	} bad[] = {
		{"a pair of three ops",
		 "{\"schedule\":[[[\"F\",0,0],[[\"F\",0,1],[\"B\",0,0],[\"B\",0,1]]]]}", "schedule[0][1]"},
		{"a pair of one op", "{\"schedule\":[[[[\"F\",0,0]]]]}", "schedule[0][0]"},
		{"a pair with a number", "{\"schedule\":[[],[[\"F\",1,0],[[\"F\",1,1],5]]]}",
		 "schedule[1][1]"},
		{"a pair with a string", "{\"schedule\":[[[[\"F\",0,1],\"B\"]]]}", "schedule[0][0]"},
		{"a pair with a bad op", "{\"schedule\":[[[\"F\",0,0],[[\"F\",0,1],[\"X\",0,0]]]]}",
		 "schedule[0][1]"},
		{"a pair of pairs",
		 "{\"schedule\":[[[[[\"F\",0,1],[\"B\",0,0]],[[\"F\",0,2],[\"B\",0,1]]]]]}",
		 "schedule[0][0]"},
		{"an empty pair", "{\"schedule\":[[[\"F\",0,0],[]]]}", "schedule[0][1]"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct schedule *s = NULL;
		struct error err = {{0}};
		if (schedule_parse(bad[i].text, "test.json", &s, &err) != STATUS_ERROR)
			fail_msg("case '%s' was accepted", bad[i].name);
		assert_null(s);
		check_error_message(bad[i].name, err.msg, "test.json", bad[i].where, "");
	}
}

/* torch CSV: (F;B)OVERLAP_F_B is a pair, written back the same way. */
static void test_torch_csv_pair(void **state)
{
	(void)state;
	struct schedule *s = NULL;
	struct error err = {{0}};
	const char *csv = "0F0,(0F1;0B0)OVERLAP_F_B,0B1\n";
	if (torch_csv_parse(csv, "t.csv", &s, &err))
		fail_msg("%s", err.msg);
	struct schedule *want = make_schedule(1, (const char *const[]){
		"F(0,0) F(0,1) +B(0,0) B(0,1)"});
	assert_true(schedule_equal(s, want));
	char *text = torch_csv_format(s, NULL, false);   /* from the layout */
	assert_string_equal(text, csv);
	free(text);
	/* without a layout (the JSON schedule), step-aligned: F(0,0) step 0,
	 * the pair one cell at step 1, B(0,1) next */
	text = torch_csv_format(want, NULL, false);
	struct schedule *back = NULL;
	if (torch_csv_parse(text, "t.csv", &back, &err))
		fail_msg("%s: %s", text, err.msg);
	assert_true(schedule_equal(back, want));
	assert_contains(text, "(0F1;0B0)OVERLAP_F_B");
	free(text);
	schedule_free(back);
	schedule_free(s);
	schedule_free(want);

	/* (B;F) of a fused schedule: a pair listed (B, F) */
	if (torch_csv_parse("0F0,(0B0;0F1)OVERLAP_F_B,0B1\n", "t.csv", &s, &err))
		fail_msg("%s", err.msg);
	want = make_schedule(1, (const char *const[]){"F(0,0) B(0,0) +F(0,1) B(0,1)"});
	assert_true(schedule_equal(s, want));
	schedule_free(s);
	schedule_free(want);
	/* split, written with I and W: the pair (F, I) or (I, F) reads back as
	 * the same pair, W on its own */
	static const char *const split_rows[] = {
		"F(0,0) F(0,1) +B(0,0) W(0,0) B(0,1) W(0,1)",
		"F(0,0) B(0,0) +F(0,1) W(0,0) B(0,1) W(0,1)",
	};
	for (int i = 0; i < 2; i++) {
		want = make_schedule(1, &split_rows[i]);
		text = torch_csv_format(want, NULL, true);
		if (torch_csv_parse(text, "t.csv", &s, &err))
			fail_msg("%s: %s", text, err.msg);
		if (!schedule_equal(s, want))
			fail_msg("%s read back as another schedule", text);
		assert_contains(text, "OVERLAP_F_B");
		free(text);
		schedule_free(s);
		schedule_free(want);
	}
	/* two forwards in one OVERLAP_F_B: back to back, no pair */
	if (torch_csv_parse("(0F0;0F1)OVERLAP_F_B,0B0,0B1\n", "t.csv", &s, &err))
		fail_msg("%s", err.msg);
	assert_false(schedule_has_pairs(s));
	schedule_free(s);
}

/* ---- 5. the instance key ----------------------------------------------------------- */

static void test_instance_overlap_key(void **state)
{
	(void)state;
	static const struct {
		const char *name, *overlap, *where, *what;
	} bad[] = {
		{"negative", "{\"factor\":-0.1}", "overlap.factor", "outside [0, 1]"},
		{"above one", "{\"factor\":1.5}", "overlap.factor", "outside [0, 1]"},
		{"a string", "{\"factor\":\"x\"}", "overlap.factor", "a string"},
		{"null", "{\"factor\":null}", "overlap.factor", "null"},
		{"missing", "{}", "overlap.factor", "missing"},
		{"unknown key", "{\"factor\":0.5,\"extra\":1}", "overlap.extra", "unknown key"},
		{"not an object", "0.5", "overlap", "expected an object"},
		{"a list", "[0.5]", "overlap", "expected an object"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char json[200];
		snprintf(json, sizeof json,
			 "{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},\"overlap\":%s}",
			 bad[i].overlap);
		struct instance *in = NULL;
		struct error err = {{0}};
		if (instance_parse(json, "test.json", &in, &err) != STATUS_ERROR)
			fail_msg("case '%s' was accepted", bad[i].name);
		assert_null(in);
		char where[64];
		snprintf(where, sizeof where, "': %s: ", bad[i].where);   /* the key, as named */
		check_error_message(bad[i].name, err.msg, "test.json", where, bad[i].what);
	}
	/* accepted: the ends of [0, 1], integer or not */
	static const struct {
		const char *text;
		double rho;
	} good[] = {{"0", 0}, {"1", 1}, {"0.0", 0}, {"1.0", 1}, {"0.25", 0.25}};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		char json[200];
		snprintf(json, sizeof json,
			 "{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},"
			 "\"overlap\":{\"factor\":%s}}", good[i].text);
		struct instance *in = parse_instance_ok(json);
		assert_true(in->has_overlap);
		assert_double_near(in->overlap, good[i].rho, 0);
		instance_free(in);
	}
	struct instance *in = parse_instance_ok(ONE_DEV(2, 3, ""));
	assert_false(in->has_overlap);
	json_t *j = instance_to_json(in);
	assert_null(json_object_get(j, "overlap"));
	json_decref(j);
	instance_free(in);
}

/* instance_to_json keeps the factor; parsed back it is the same instance. */
static void test_instance_round_trip(void **state)
{
	(void)state;
	struct instance *in = parse_instance_ok(
		"{\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1,"
		"\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":6},\"objective\":\"span\","
		"\"overlap\":{\"factor\":0.25}}");
	json_t *j = instance_to_json(in);
	json_t *o = json_object_get(j, "overlap");
	assert_non_null(o);
	assert_double_near(json_number_value(json_object_get(o, "factor")), 0.25, 0);
	char *text = json_dumps(j, JSON_COMPACT);
	struct instance *back = parse_instance_ok(text);
	assert_true(back->has_overlap);
	assert_double_near(back->overlap, 0.25, 0);
	assert_int_equal(back->objective, OBJ_SPAN);
	char a[65], b[65];
	instance_digest(in, a);
	instance_digest(back, b);
	assert_string_equal(a, b);
	free(text);
	json_decref(j);
	instance_free(back);
	instance_free(in);

	/* built in code: instance_finish checks the factor as the parser does */
	struct instance_size size = {.devices = 1, .stages = 1, .microbatches = 2};
	in = instance_new("built", &size);
	assert_non_null(in);
	in->cost[OP_F][0] = 2;
	in->cost[OP_B][0] = 3;
	in->has_overlap = true;
	in->overlap = 1.5;
	struct error err = {{0}};
	assert_int_equal(instance_finish(in, "built", &err), STATUS_ERROR);
	assert_contains(err.msg, "overlap.factor");
	in->overlap = 0.5;
	if (instance_finish(in, "built", &err))
		fail_msg("%s", err.msg);
	struct instance *file = parse_instance_ok(ONE_DEV(2, 3, ",\"overlap\":{\"factor\":0.5}"));
	instance_digest(in, a);
	instance_digest(file, b);
	assert_string_equal(a, b);
	instance_free(file);
	instance_free(in);
}

/*
 * The digest: without the key it is the SHA-256 of the canonical text as
 * it was before overlap existed (written out here by hand from the
 * canonical format: every field explicit, sorted keys, compact), so
 * certificates of older instances stay valid; with the key the canonical
 * text gains "overlap" (between "objective" and "placement" in key order),
 * and different factors give different digests.
 */
static void test_digest(void **state)
{
	(void)state;
	const char *base = "{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3},\"comm\":1";
	const char *canon_head =
		"{\"comm\":[1],\"cost\":{\"B\":[3,3],\"F\":[2,2]},\"devices\":2,"
		"\"edges\":[[0,1]],\"microbatches\":2,\"objective\":\"makespan\"";
	const char *canon_tail = "\"placement\":[0,1],\"split_backward\":false}";
	char json[256], canon[512], want[65], got[65];

	snprintf(json, sizeof json, "%s}", base);
	snprintf(canon, sizeof canon, "%s,%s", canon_head, canon_tail);
	struct instance *in = parse_instance_ok(json);
	sha256_hex(canon, strlen(canon), want);
	instance_digest(in, got);
	assert_string_equal(got, want);
	instance_free(in);

	snprintf(json, sizeof json, "%s,\"overlap\":{\"factor\":0.5}}", base);
	snprintf(canon, sizeof canon, "%s,\"overlap\":{\"factor\":0.5},%s", canon_head, canon_tail);
	in = parse_instance_ok(json);
	sha256_hex(canon, strlen(canon), want);
	char half[65];
	instance_digest(in, half);
	assert_string_equal(half, want);
	instance_free(in);

	/* factor 1 (no gain, but said) and 0.25: other digests again */
	const char *factors[] = {"1", "0.25", "0"};
	char seen[4][65];
	strcpy(seen[0], half);
	snprintf(json, sizeof json, "%s}", base);
	in = parse_instance_ok(json);
	instance_digest(in, seen[1]);
	instance_free(in);
	for (int i = 0; i < 3; i++) {
		char d[65];
		snprintf(json, sizeof json, "%s,\"overlap\":{\"factor\":%s}}", base, factors[i]);
		in = parse_instance_ok(json);
		instance_digest(in, d);
		instance_free(in);
		for (int k = 0; k < 2 + i; k++)
			if (!strcmp(d, seen[k]))
				fail_msg("factor %s: the digest of another instance", factors[i]);
		if (i < 2)
			strcpy(seen[2 + i], d);
	}
}

/* ---- 6. brute force ------------------------------------------------------------------ */

/*
 * Every schedule of tiny instances: per device every order of its ops and
 * every way to join adjacent F/B ops into pairs (an op in at most one
 * pair), each timed by sim_run; the least valid objective is OPT. Orders
 * in which an op precedes one of its inputs on the same device are left
 * out when a device has more than 4 ops (they deadlock: the op waits for
 * an input behind it, in a pair too); with 4 ops or fewer every
 * permutation is run, so the simulator's rejections are checked as well.
 *
 * Every schedule is also timed by bf_eval below, written from the
 * semantics in the file comment alone (repeated passes: a unit, one op or
 * a pair, starts when its device is done with the previous unit and every
 * input of its ops has arrived); the simulator must agree on validity,
 * every start and end, makespan, span, busy time and peak memory.
 */

#define BF_MAX_OPS 16     /* per instance */
#define BF_DEV_OPS 8      /* per device */

struct bf {
	int D, L, M, kinds;
	int dev[2];                 /* stage -> device */
	int64_t cost[3][2], comm;
	int rho4;                   /* rho * 4 */
	bool overlap;               /* the key given (bf_eval honours pairs) */
	bool has_mem, has_limit;
	int64_t mem[3][2], limit[2];
	bool span;
	int n;                      /* ops */
	int kind[BF_MAX_OPS], stage[BF_MAX_OPS], mb[BF_MAX_OPS];
	int ndep[BF_MAX_OPS], dep[BF_MAX_OPS][2];
	int64_t lag[BF_MAX_OPS][2];
};

/* The dependencies (chain_deps.h). */
static void bf_deps(struct bf *b)
{
	b->n = b->kinds * b->L * b->M;
	chain_deps(b->kinds, b->L, b->M, b->dev, b->comm, b->kind, b->stage, b->mb, b->ndep,
		   b->dep, b->lag);
}

/* One device's row: ops by index, wp[i] = joined with op i-1. */
struct bf_row {
	int n;
	int op[BF_DEV_OPS];
	bool wp[BF_DEV_OPS];
	bool pairs;
};

struct bf_result {
	bool valid;
	int64_t start[BF_MAX_OPS], end[BF_MAX_OPS];
	int64_t makespan, span, busy, peak[2];
};

/* The semantics, independently of sim.c. */
static void bf_eval(const struct bf *b, const struct bf_row *rows, struct bf_result *r)
{
	memset(r, 0, sizeof *r);
	/* units: a pair (only with the key) or one op */
	int ustart[2][BF_DEV_OPS], ulen[2][BF_DEV_OPS], nu[2] = {0, 0};
	for (int d = 0; d < b->D; d++) {
		const struct bf_row *w = &rows[d];
		for (int i = 0; i < w->n; i++) {
			if (b->overlap && w->wp[i]) {
				ulen[d][nu[d] - 1]++;
				continue;
			}
			ustart[d][nu[d]] = i;
			ulen[d][nu[d]++] = 1;
		}
		/* memory: running sum in unit order, a pair's F first */
		int64_t mem = 0;
		for (int u = 0; u < nu[d]; u++) {
			int a = w->op[ustart[d][u]], c = ulen[d][u] == 2 ? w->op[ustart[d][u] + 1] : -1;
			if (c >= 0 && b->kind[a] != OP_F) {
				int t = a;
				a = c;
				c = t;
			}
			for (int q = 0; q < 2; q++) {
				int o = q ? c : a;
				if (o < 0)
					continue;
				mem += b->has_mem ? b->mem[b->kind[o]][b->stage[o]] : 0;
				if (mem > r->peak[d])
					r->peak[d] = mem;
				if (b->has_limit && mem > b->limit[d])
					return;   /* invalid */
			}
		}
	}
	/* the timing: chain_time over the units, a pair lasting
	 * max(p, q) + ceil(rho min(p, q)) */
	struct chain_order ord[2];
	for (int d = 0; d < b->D; d++) {
		ord[d].n = nu[d];
		for (int u = 0; u < nu[d]; u++) {
			int x = rows[d].op[ustart[d][u]], y = ulen[d][u] == 2 ? rows[d].op[ustart[d][u] + 1] : -1;
			int64_t p = b->cost[b->kind[x]][b->stage[x]];
			int64_t q = y >= 0 ? b->cost[b->kind[y]][b->stage[y]] : 0;
			int64_t hi = p > q ? p : q, lo = p > q ? q : p;
			ord[d].op[u][0] = x;
			ord[d].op[u][1] = y;
			ord[d].dur[u] = y < 0 ? p : hi + (b->rho4 * lo + 3) / 4;   /* ceil(rho lo) */
		}
	}
	r->valid = chain_time(b->D, ord, b->ndep, b->dep, b->lag, r->start, r->end,
			      &r->busy, &r->makespan, &r->span);
}

/* All rows of device d: orders (every permutation, or those keeping each
 * op after its inputs on d) times pairings. */
struct bf_rows {
	struct bf_row *v;
	int n, cap;
};

static void bf_rows_rec(const struct bf *b, int d, const int *ops, int nops, bool prune,
			bool pairs, struct bf_row *cur, bool *placed, struct bf_rows *out)
{
	if (cur->n == nops) {
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 256;
			out->v = realloc(out->v, out->cap * sizeof *out->v);
			assert_non_null(out->v);
		}
		cur->pairs = false;
		for (int i = 0; i < cur->n; i++)
			cur->pairs |= cur->wp[i];
		out->v[out->n++] = *cur;
		return;
	}
	for (int i = 0; i < nops; i++) {
		int o = ops[i];
		if (placed[o])
			continue;
		bool ok = true;
		for (int e = 0; prune && e < b->ndep[o] && ok; e++) {
			int x = b->dep[o][e];
			ok = b->dev[b->stage[x]] != d || placed[x];
		}
		if (!ok)
			continue;
		placed[o] = true;
		int pos = cur->n++;
		cur->op[pos] = o;
		cur->wp[pos] = false;
		bf_rows_rec(b, d, ops, nops, prune, pairs, cur, placed, out);
		/* joined with the op before: that one in no pair, one F and one B */
		if (pairs && pos > 0 && !cur->wp[pos - 1] &&
		    ((b->kind[o] == OP_F && b->kind[cur->op[pos - 1]] == OP_B) ||
		     (b->kind[o] == OP_B && b->kind[cur->op[pos - 1]] == OP_F))) {
			cur->wp[pos] = true;
			bf_rows_rec(b, d, ops, nops, prune, pairs, cur, placed, out);
			cur->wp[pos] = false;
		}
		cur->n--;
		placed[o] = false;
	}
}

/* The instance as JSON text (with or without the overlap key). */
static void bf_json(const struct bf *b, bool overlap, char *buf, size_t size)
{
	int len = chain_json(buf, size, b->D, b->L, b->M, b->dev, b->kinds, b->cost, b->comm,
			     b->has_mem ? b->mem : NULL, b->has_mem && b->has_limit ? b->limit : NULL,
			     b->span);
	if (overlap)
		len += snprintf(buf + len, size - len, ",\"overlap\":{\"factor\":%g}", b->rho4 / 4.0);
	snprintf(buf + len, size - len, "}");
}

/* Load a combination of rows into sc (whose rows have room). */
static void bf_load(struct schedule *sc, const struct bf *b, const struct bf_row *const *rows)
{
	for (int d = 0; d < b->D; d++) {
		struct sched_row *r = &sc->rows[d];
		r->len = rows[d]->n;
		for (int i = 0; i < rows[d]->n; i++) {
			int o = rows[d]->op[i];
			r->ops[i] = (struct op){.kind = b->kind[o], .stage = b->stage[o], .mb = b->mb[o], .with_prev = rows[d]->wp[i]};
		}
	}
}

/* Fail, naming the instance and the schedule, when sim and bf_eval differ. */
static void bf_compare(const struct bf *b, const char *json, const struct schedule *sc,
		       enum status st, const struct sim_result *r, const struct error *err,
		       const struct bf_result *e)
{
	struct chain_expect x = {e->valid, e->start, e->end, e->makespan, e->span, e->busy, e->peak};
	chain_compare(b->n, b->D, b->kind, b->stage, b->mb, json, sc, st, r, err, &x);
}

/* The exact search's proof on in equals the brute force's opt. */
static void bnb_check(const struct instance *in, int64_t opt, const char *json)
{
	struct bnb_options o = {.time_limit = 0, .incumbent = INT64_MAX, .lower_bound = 0,
				.memo = in->objective == OBJ_MAKESPAN};
	struct bnb_result r;
	struct error err = {{0}};
	if (bnb_solve(in, &o, &r, &err))
		fail_msg("bnb: %s\ninstance %s", err.msg, json);
	if (!r.proved || r.objective != opt)
		fail_msg("bnb %s %lld, brute force %lld\ninstance %s", r.proved ? "proved" : "stopped at",
			 (long long)r.objective, (long long)opt, json);
	/* its schedule, re-simulated, has that objective */
	struct sim *s = sim_new(in);
	struct sim_result sr;
	assert_non_null(r.schedule);
	if (sim_run(s, r.schedule, &sr, &err) || sr.objective != opt)
		fail_msg("bnb's schedule simulates to %lld (%s), expected %lld\ninstance %s",
			 (long long)sr.objective, err.msg, (long long)opt, json);
	sim_free(s);
	schedule_free(r.schedule);
}

/* (f) The MILP alone (tests/milp_alone.h; the disjunctive model holds the
 * pairs) with `solver`: it certifies the brute force's optimum on the
 * makespan, nothing wrong on the span. */
static void milp_proof_check(const struct instance *in, int64_t opt, const char *json,
			     const char *solver, int *certified)
{
	char msg[8192];
	bool cert;
	if (milp_alone(in, opt, solver, &cert, msg, sizeof msg) != MILP_AGREES)
		fail_msg("%s\ninstance %s", msg, json);
	*certified += cert;
}

struct bf_stats {
	int bnb, milp, milp_certified;
	int instances, infeasible, below, bound_tight, span_instances;
	long schedules, valid;
};

/* OPT with pairs (the key given) and OPT back to back (no key), and the
 * checks (a)-(c) of test_brute_force. */
static void bf_instance(struct bf *b, struct bf_stats *st)
{
	char json[1024], plain_json[1024];
	bf_deps(b);
	bf_json(b, true, json, sizeof json);
	bf_json(b, false, plain_json, sizeof plain_json);
	struct instance *in = parse_instance_ok(json), *plain = parse_instance_ok(plain_json);
	assert_int_equal(inst_nops(in), b->n);
	struct sim *s = sim_new(in), *sp = sim_new(plain);
	assert_non_null(s);
	assert_non_null(sp);

	struct bf_rows rows[2] = {{0}};
	for (int d = 0; d < b->D; d++) {
		int ops[BF_DEV_OPS], n = 0;
		for (int o = 0; o < b->n; o++)
			if (b->dev[b->stage[o]] == d)
				ops[n++] = o;
		assert_true(n <= BF_DEV_OPS);
		struct bf_row cur = {0};
		bool placed[BF_MAX_OPS] = {0};
		bf_rows_rec(b, d, ops, n, n > 4, true, &cur, placed, &rows[d]);
	}
	struct schedule *sc = schedule_new(b->D);
	for (int d = 0; d < b->D; d++)
		for (int i = 0; i < rows[d].v[0].n; i++)
			schedule_push(sc, d, OP_F, 0, 0);   /* room; overwritten */

	int64_t opt = INT64_MAX, opt_plain = INT64_MAX;
	int n1 = b->D > 1 ? rows[1].n : 1;
	for (int i0 = 0; i0 < rows[0].n; i0++)
		for (int i1 = 0; i1 < n1; i1++) {
			const struct bf_row *combo[2] = {&rows[0].v[i0], b->D > 1 ? &rows[1].v[i1] : NULL};
			const struct bf_row pick[2] = {*combo[0], b->D > 1 ? *combo[1] : (struct bf_row){0}};
			bool pairs = combo[0]->pairs || (b->D > 1 && combo[1]->pairs);
			bf_load(sc, b, combo);
			struct sim_result r;
			struct error err = {{0}};
			struct bf_result e;
			/* with the key */
			b->overlap = true;
			enum status stat = sim_run(s, sc, &r, &err);
			bf_eval(b, pick, &e);
			bf_compare(b, json, sc, stat, &r, &err, &e);
			st->schedules++;
			if (stat == STATUS_OK) {
				st->valid++;
				if (r.objective < opt)
					opt = r.objective;
			}
			/* without it: pairs run back to back (all of them checked
			 * against bf_eval; only the rows without pairs are the
			 * no-overlap schedules, the others repeat them) */
			b->overlap = false;
			stat = sim_run(sp, sc, &r, &err);
			bf_eval(b, pick, &e);
			bf_compare(b, plain_json, sc, stat, &r, &err, &e);
			if (!pairs && stat == STATUS_OK && r.objective < opt_plain)
				opt_plain = r.objective;
		}
	st->instances++;
	st->span_instances += b->span;
	if (opt_plain == INT64_MAX) {
		/* memory admits nothing: nothing admits pairs either */
		assert_true(opt == INT64_MAX);
		st->infeasible++;
	} else {
		struct bounds bd, bp;
		struct error err = {{0}};
		if (bound_compute(in, &bd, &err) || bound_compute(plain, &bp, &err))
			fail_msg("%s: bound: %s", json, err.msg);
		/* (a) the bounds hold with pairs; and without (the old ones) */
		if (bd.best > opt)
			fail_msg("bound %lld (%s) above the optimum %lld with pairs (%lld without)\n"
				 "instance %s", (long long)bd.best, bd.by, (long long)opt,
				 (long long)opt_plain, json);
		if (bp.best > opt_plain)
			fail_msg("bound %lld (%s) above the optimum %lld\ninstance %s",
				 (long long)bp.best, bp.by, (long long)opt_plain, plain_json);
		/* (c) pairs never lose: every schedule without them is one */
		if (opt > opt_plain)
			fail_msg("optimum %lld with pairs above %lld without\ninstance %s",
				 (long long)opt, (long long)opt_plain, json);
		/* (b) rho = 1: a pair is no shorter than its ops back to back
		 * and starts no earlier, so it gains nothing */
		if (b->rho4 == 4 && opt != opt_plain)
			fail_msg("rho 1: optimum %lld with pairs, %lld without\ninstance %s",
				 (long long)opt, (long long)opt_plain, json);
		st->below += opt < opt_plain;
		st->bound_tight += bd.best == opt;
		/* (e) the exact search (solvers/bnb.c, which places pairs) proves
		 * the brute force's optimum, with pairs and without */
		bnb_check(in, opt, json);
		bnb_check(plain, opt_plain, plain_json);
		st->bnb += 2;
		/* (f) and so does the MILP, with either backend */
		milp_proof_check(in, opt, json, "cbc", &st->milp_certified);
		milp_proof_check(in, opt, json, "glpk", &st->milp_certified);
		st->milp += 2;
	}
	schedule_free(sc);
	for (int d = 0; d < b->D; d++)
		free(rows[d].v);
	sim_free(s);
	sim_free(sp);
	instance_free(in);
	instance_free(plain);
}

/* One random instance of a shape: D devices, L stages (placement dev),
 * M micro-batches, fused or split. */
static void bf_random(struct bf *b, uint64_t *rng, int D, int L, const int *dev, int M,
		      bool split, bool limits)
{
	memset(b, 0, sizeof *b);
	static const int rho4s[] = {0, 1, 2, 4};
	b->D = D;
	b->L = L;
	b->M = M;
	b->kinds = split ? 3 : 2;
	for (int l = 0; l < L; l++) {
		b->dev[l] = dev[l];
		for (int k = 0; k < b->kinds; k++)
			b->cost[k][l] = xorshift_in(rng, 1, 4);
	}
	b->comm = xorshift_in(rng, 0, 2);
	b->rho4 = rho4s[xorshift_in(rng, 0, 3)];
	b->span = xorshift_in(rng, 0, 3) == 0;
	b->has_mem = xorshift_in(rng, 0, 2) == 0;
	if (b->has_mem) {
		b->has_limit = xorshift_in(rng, 0, 2) > 0 && limits;
		for (int l = 0; l < L; l++) {
			int64_t a = xorshift_in(rng, 1, 3);
			int64_t x = split ? xorshift_in(rng, 0, (int)a) : a;
			b->mem[OP_F][l] = a;
			b->mem[OP_B][l] = -x;
			if (split)
				b->mem[OP_W][l] = -(a - x);
		}
		for (int d = 0; d < D; d++) {
			/* at least every stage's F delta (the reader's minimum),
			 * often room for one more micro-batch, or two */
			int64_t most = 0;
			for (int l = 0; l < L; l++)
				if (dev[l] == d && b->mem[OP_F][l] > most)
					most = b->mem[OP_F][l];
			b->limit[d] = most + xorshift_in(rng, 0, (int)(2 * most));
		}
	}
}

struct bf_shape {
	int D, L, dev[2], mlo, mhi;
	bool split, limits;
	int count;   /* instances per micro-batch count */
};

static void bf_shapes(const struct bf_shape *shapes, size_t n, uint64_t seed,
		      struct bf_stats *st)
{
	uint64_t rng = seed;
	for (size_t s = 0; s < n; s++)
		for (int M = shapes[s].mlo; M <= shapes[s].mhi; M++)
			for (int i = 0; i < shapes[s].count; i++) {
				struct bf b;
				bf_random(&b, &rng, shapes[s].D, shapes[s].L, shapes[s].dev, M,
					  shapes[s].split, shapes[s].limits);
				bf_instance(&b, st);
			}
}

/* A bound by hand: bound_compute gives `best` by `by`, attained at device
 * `at` (round_trip_at when round_trip, else device_at), with the critical
 * path `cp`, and the exact search (solvers/bnb.c, its own pruning) proves
 * `best` optimal. */
static void bound_by_hand(const char *json, int64_t best, const char *by, bool round_trip,
			  int at, int64_t cp)
{
	struct instance *in = parse_instance_ok(json);
	struct bounds bd;
	struct error err = {{0}};
	assert_int_equal(bound_compute(in, &bd, &err), STATUS_OK);
	assert_int_equal(bd.best, best);
	assert_string_equal(bd.by, by);
	assert_int_equal(round_trip ? bd.round_trip_at : bd.device_at, at);
	assert_int_equal(bd.critical_path, cp);
	bnb_check(in, best, json);
	instance_free(in);
}

/*
 * One side of the pairs at full cost (bound.c, bound_plain with pairs), by
 * hand. Two devices, one stage each, F 1, B 4, comm 0, rho 0 (a pair
 * lasts max(1, 4) = 4), m 3. Device 0's backwards cannot start before
 * micro-batch 0 has gone forward and come back through the last stage
 * (F 1 + F 1 + B 4 = 6); no two of them share a pair, so the three take
 * 3 x 4 = 12 after that: makespan >= 18. The cut-cost instances alone
 * give 10 (the critical path, 1 + 1 + 4 + 4). 18 is reached: device 1
 * runs F(0), the pairs (F(1), B(0)) and (F(2), B(1)), then B(2), ending
 * 2, 6, 10, 14; device 0 runs its forwards at 0, 1, 2 and its backwards
 * from 6, 10 and 14, ending 18. The exact search proves 18 as well.
 */
static void test_side_bound_by_hand(void **state)
{
	(void)state;
	bound_by_hand("{\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":1,\"B\":4},"
		      "\"overlap\":{\"factor\":0}}", 18, "device", false, 0, 10);
}

/*
 * The round trip with pairs (bound.c, bound_plain with pairs), by hand.
 * Two devices, one stage each, F 1, B 4, comm 0, rho 0, m 2, room for one
 * activation per device (F +1, B -1, limit 1). Device 0's second forward
 * waits until its first backward has ended, and that one waits for the
 * trip F 1 + F 1 + B 4 + B 4 = 10; the second micro-batch's trip takes 10
 * more: makespan >= 20, and the serial schedule ends at 20 (the critical
 * path, one trip, is 10). No pair helps:
 * a pair's F counts first in memory, so pairing the second forward with
 * the first backward on either device would hold 2 > 1. The cut-cost
 * instances give 10 (costs halved, rho 0: every trip 5).
 */
static void test_round_trip_with_pairs_by_hand(void **state)
{
	(void)state;
	bound_by_hand("{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":4},"
		      "\"overlap\":{\"factor\":0},\"memory\":{\"F\":1,\"B\":-1,\"limit\":1}}",
		      20, "round_trip", true, 0, 10);
}

/*
 * The key test. Shapes: 1 device with 1 stage (fused, M 1-3; split, M
 * 1-2), 2 devices with a stage each (fused, M 1-3; split, M 1-2), and one
 * device with 2 stages (fused, M 1-2: pairs across stages; memory deltas
 * but no limit there, see test_brute_force_shared_limit). Costs 1-4, comm
 * 0-2, rho in {0, 1/4, 1/2, 1}, memory (and often a limit) on a third, the
 * span objective on a quarter. Checks, on each instance:
 *   (a) bound_compute(in).best <= OPT (the bounds stay valid with pairs),
 *       and the bound of the instance without the key <= its OPT;
 *   (b) rho = 1: OPT = OPT of the instance without the key;
 *   (c) OPT <= OPT without the key;
 *   (d) over all, some instances have OPT below OPT without the key;
 * and on every schedule, sim_run against bf_eval (with and without the key).
 */
static void test_brute_force(void **state)
{
	(void)state;
	static const struct bf_shape shapes[] = {
		{1, 1, {0}, 1, 3, false, true, 16},
		{1, 1, {0}, 1, 2, true, true, 16},
		{2, 2, {0, 1}, 1, 2, false, true, 24},
		{2, 2, {0, 1}, 3, 3, false, true, 6},
		{2, 2, {0, 1}, 1, 2, true, true, 16},
		{1, 2, {0, 0}, 1, 2, false, false, 16},
	};
	struct bf_stats st = {0};
	bf_shapes(shapes, sizeof shapes / sizeof *shapes, 0x9e3779b97f4a7c15ULL, &st);
	printf("overlap brute force: %d instances (%d span, %d infeasible), %ld schedules "
	       "(%ld valid); OPT below the no-overlap OPT on %d; bound = OPT on %d; "
	       "the exact search proved OPT on %d instance variants; the MILP certified "
	       "OPT in %d of %d solves (the rest: span, bound <= OPT)\n",
	       st.instances, st.span_instances, st.infeasible, st.schedules, st.valid, st.below,
	       st.bound_tight, st.bnb, st.milp_certified, st.milp);
	assert_int_equal(st.bnb, 2 * (st.instances - st.infeasible));
	assert_int_equal(st.milp, 2 * (st.instances - st.infeasible));
	/* (d) the test exercises pairs that pay */
	assert_true(st.below > 0);
	assert_true(st.instances - st.infeasible > st.instances / 2);
}

/*
 * The same with two stages on one device and a memory limit. This one
 * also meets a bug older than overlap: bound_plain sizes its job arrays
 * (w.r, w.p, w.q, ...) for max(kinds * L, kinds * M) jobs, "one job per op
 * type, or every op of one stage", but round_trip_bound, which runs only
 * with a memory limit, puts one job per op of EVERY stage of the device,
 * kinds * M * (stages on it), and writes past them when a device holds
 * two or more stages (interleaved, V, list placements). Here (2 stages,
 * kinds 2, M 2: 8 jobs in arrays of 4) glibc aborts in free(); under
 * -DPIPEOPT_SANITIZE=ON ASan names the write in bounds_for/round_trip_bound.
 */
static void test_brute_force_shared_limit(void **state)
{
	(void)state;
	/* the smallest case first: bound_compute alone */
	struct instance *in = parse_instance_ok(
		"{\"devices\":1,\"microbatches\":2,\"placement\":[0,0],\"edges\":[[0,1]],"
		"\"cost\":{\"F\":1,\"B\":1},\"memory\":{\"F\":1,\"B\":-1,\"limit\":2}}");
	struct bounds bd;
	struct error err = {{0}};
	for (int i = 0; i < 4; i++)
		assert_int_equal(bound_compute(in, &bd, &err), STATUS_OK);
	instance_free(in);
	static const struct bf_shape shapes[] = {
		{1, 2, {0, 0}, 1, 2, false, true, 24},
	};
	struct bf_stats st = {0};
	bf_shapes(shapes, 1, 0x2545f4914f6cdd1dULL, &st);
	printf("overlap brute force, two stages on a device with limits: %d instances "
	       "(%d infeasible); OPT below the no-overlap OPT on %d\n",
	       st.instances, st.infeasible, st.below);
}

/* Only a formulation that holds the pairs may solve an instance where
 * they gain: the time-indexed model is refused by name, auto takes the
 * disjunctive one and certifies the hand optimum (one device, F = B = 2,
 * two micro-batches, rho 0: F0, (F1 & B0), B1 ends at 6). */
static void test_milp_formulation_with_pairs(void **state)
{
	(void)state;
	struct schedule *s = milp_refuses_then_certifies(
		"{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2},"
		"\"overlap\":{\"factor\":0}}",
		"overlapped F&B pairs", 6, NULL);
	assert_true(schedule_has_pairs(s));
	schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timelines),
		cmocka_unit_test(test_pair_cost),
		cmocka_unit_test(test_memory_f_first),
		cmocka_unit_test(test_memory_two_stages),
		cmocka_unit_test(test_invalid_pairs),
		cmocka_unit_test(test_schedule_json),
		cmocka_unit_test(test_torch_csv_pair),
		cmocka_unit_test(test_instance_overlap_key),
		cmocka_unit_test(test_instance_round_trip),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_side_bound_by_hand),
		cmocka_unit_test(test_round_trip_with_pairs_by_hand),
		cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_brute_force_shared_limit),
		cmocka_unit_test(test_milp_formulation_with_pairs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
