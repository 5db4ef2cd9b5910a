/*
 * The simulator and validator (sched/sim.c).
 *
 * Known answers come from timelines drawn by hand in the comments, and from
 * an independent, deliberately naive evaluator written below (repeated
 * relaxation of start(o) = max(end(prev on device), end(dep) + lag) until
 * nothing changes) that is run on random instances and schedules.
 *
 * Timeline pictures: one character per time unit; for micro-batch 0 the op
 * kind in capitals (F, B, W), for micro-batch 1 in lower case (f, b, w);
 * '.' is idle. Zero-length ops do not appear in the pictures.
 */
#include "test_helpers.h"

#include "sched/schedule.h"
#include "sched/family.h"
#include "sched/pairing.h"
#include "sched/sim.h"
#include "test_schedules.h"
#include "timeline.h"
#include "xorshift.h"

/* ---- helpers -------------------------------------------------------------- */

/* Whether msg holds the integer x as a whole number (not inside another). */
static int has_number(const char *msg, long long x)
{
	char num[32];
	snprintf(num, sizeof num, "%lld", x);
	size_t n = strlen(num);
	for (const char *p = strstr(msg, num); p; p = strstr(p + 1, num)) {
		int before = p > msg && (p[-1] >= '0' && p[-1] <= '9');
		int after = p[n] >= '0' && p[n] <= '9';
		if (!before && !after)
			return 1;
	}
	return 0;
}

/* ---- hand-drawn timelines -------------------------------------------------- */

/*
 * 2 devices, 2 micro-batches, split backward F=2, B=3, W=1, comm 1,
 * memory F=+2, B=-1, W=-1 (Zero Bubble's units).
 *
 *   time   0         1
 *          0123456789012345678
 *   dev0   FFff.....BBBW..bbbw
 *   dev1   ...FFBBBWffbbbw....
 *
 * F(0,0) ends 2, +1 comm: F(1,0) at 3. F(0,1) ends 4, +1 = 5, but dev1 is
 * busy until 9 (W(1,0)): F(1,1) at 9. B(1,0) ends 8, +1: B(0,0) at 9.
 * B(1,1) ends 14, +1: B(0,1) at 15. Makespan 19 = span (dev0 0..19; dev1
 * 3..15 is 12). busy = 2 stages x 2 mb x (2+3+1) = 24;
 * bubble = 1 - 24/(2*19) = 14/38.
 * Memory dev0: 2,4,3,2,1,0 -> peak 4; dev1: 2,1,0,2,1,0 -> peak 2.
 */
static const struct timeline split_comm = {
	"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3,\"W\":1},"
	"\"comm\":1,\"memory\":{\"F\":2,\"B\":-1,\"W\":-1}}",
	2,
	{"F(0,0) F(0,1) B(0,0) W(0,0) B(0,1) W(0,1)",
	 "F(1,0) B(1,0) W(1,0) F(1,1) B(1,1) W(1,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 2, 4}, {"B(0,0)", 9, 12},
	 {"W(0,0)", 12, 13}, {"B(0,1)", 15, 18}, {"W(0,1)", 18, 19},
	 {"F(1,0)", 3, 5}, {"B(1,0)", 5, 8}, {"W(1,0)", 8, 9},
	 {"F(1,1)", 9, 11}, {"B(1,1)", 11, 14}, {"W(1,1)", 14, 15}},
	19, 19, 19, 24, 1.0 - 24.0 / 38.0, {4, 2},
	"split comm",
};

static void test_timeline_split_comm(void **state)
{
	check_timeline(&split_comm);
}

/*
 * Comm only across devices: 3 stages, placement [0, 0, 1], fused backward,
 * F=2, B=3, comm per edge [7, 5]: edge 0->1 stays on device 0, so its 7 must
 * not apply; edge 1->2 crosses and costs 5 each way.
 *
 *   time   0         1         2
 *          0123456789012345678901234
 *   dev0   FFFF...............BBBBBB     F(0,0) F(1,0) ... B(1,0) B(0,0)
 *   dev1   .........FFBBB...........
 *
 * F(0,0) [0,2), F(1,0) [2,4) (no lag), F(2,0) at 4+5 = 9, B(2,0) [11,14),
 * B(1,0) at 14+5 = 19, B(0,0) [22,25) (no lag). busy = 3 x 5 = 15;
 * bubble = 1 - 15/50 = 0.7. Span: dev0 25, dev1 14-9 = 5.
 */
static const struct timeline same_device_no_lag = {
	"{\"devices\":2,\"microbatches\":1,\"placement\":[0,0,1],"
	"\"cost\":{\"F\":2,\"B\":3},\"comm\":[7,5]}",
	2,
	{"F(0,0) F(1,0) B(1,0) B(0,0)", "F(2,0) B(2,0)"},
	{{"F(0,0)", 0, 2}, {"F(1,0)", 2, 4}, {"F(2,0)", 9, 11},
	 {"B(2,0)", 11, 14}, {"B(1,0)", 19, 22}, {"B(0,0)", 22, 25}},
	25, 25, 25, 15, 0.7, {0, 0},
	"same device no lag",
};

static void test_timeline_comm_cross_device_only(void **state)
{
	check_timeline(&same_device_no_lag);
}

/*
 * Diamond stage DAG 0->1, 0->2, 1->3, 2->3 on 3 devices, placement
 * [0, 1, 2, 0]: stages 1 and 2 run side by side on devices 1 and 2.
 * F = [1,2,4,1], B = [2,3,5,2], comm 1 (every edge crosses devices).
 *
 *   time   0         1
 *          0123456789012345678
 *   dev0   F......FBB.......BB     F(0) F(3) B(3) B(0)
 *   dev1   ..FF.......BBB.....     F(1) B(1)
 *   dev2   ..FFFF.....BBBBB...     F(2) B(2)
 *
 * F(1), F(2) both at 1+1 = 2. F(3) waits for both: max(4, 6) + 1 = 7.
 * B(3) [8,10); B(1), B(2) both at 10+1 = 11; B(0) at max(14, 16) + 1 = 17.
 * busy = 8 + 12 = 20; bubble = 1 - 20/57. Spans 19, 12, 14.
 */
static const struct timeline diamond = {
	"{\"devices\":3,\"microbatches\":1,\"placement\":[0,1,2,0],"
	"\"edges\":[[0,1],[0,2],[1,3],[2,3]],"
	"\"cost\":{\"F\":[1,2,4,1],\"B\":[2,3,5,2]},\"comm\":1}",
	3,
	{"F(0,0) F(3,0) B(3,0) B(0,0)", "F(1,0) B(1,0)", "F(2,0) B(2,0)"},
	{{"F(0,0)", 0, 1}, {"F(1,0)", 2, 4}, {"F(2,0)", 2, 6},
	 {"F(3,0)", 7, 8}, {"B(3,0)", 8, 10}, {"B(1,0)", 11, 14},
	 {"B(2,0)", 11, 16}, {"B(0,0)", 17, 19}},
	19, 19, 19, 20, 1.0 - 20.0 / 57.0, {0, 0, 0},
	"diamond",
};

static void test_timeline_diamond_dag(void **state)
{
	check_timeline(&diamond);
}

/*
 * Interleaved: 2 devices, chunks 2, stages 0,2 on dev0 and 1,3 on dev1;
 * 2 micro-batches, fused, F=1, B=2, comm 1; memory F=+1, B=-1.
 *
 *   time   0         1         2
 *          012345678901234567890
 *   dev0   Ff..Ff....BB.bb.BB.bb     F0 f0 F2 f2 B2 b2 B0 b0
 *   dev1   ..Ff..FBBfbb.BB.bb...     F1 f1 F3 B3 f3 b3 B1 b1
 *
 * (digits after the letter: the stage.) Each crossing adds 1: F(1,0) at 2,
 * F(1,1) 3, F(2,0) 4, F(2,1) 5, F(3,0) 6, B(3,0) [7,9), F(3,1) [9,10),
 * B(3,1) [10,12), B(2,0) at 9+1 = 10, B(2,1) at 12+1 = 13, B(1,0) at
 * 12+1 = 13, B(1,1) at 15+1 = 16, B(0,0) at 15+1 = 16, B(0,1) at 18+1 = 19.
 * busy = 4 x 2 x 3 = 24; bubble = 1 - 24/42. Spans: 21 and 18-2 = 16.
 * Memory dev0: 1,2,3,4,3,2,1,0 -> 4; dev1: 1,2,3,2,3,2,1,0 -> 3.
 */
static const struct timeline interleaved = {
	"{\"devices\":2,\"microbatches\":2,\"chunks\":2,"
	"\"placement\":\"interleaved\",\"cost\":{\"F\":1,\"B\":2},\"comm\":1,"
	"\"memory\":{\"F\":1,\"B\":-1}}",
	2,
	{"F(0,0) F(0,1) F(2,0) F(2,1) B(2,0) B(2,1) B(0,0) B(0,1)",
	 "F(1,0) F(1,1) F(3,0) B(3,0) F(3,1) B(3,1) B(1,0) B(1,1)"},
	{{"F(0,0)", 0, 1}, {"F(0,1)", 1, 2}, {"F(1,0)", 2, 3},
	 {"F(1,1)", 3, 4}, {"F(2,0)", 4, 5}, {"F(2,1)", 5, 6},
	 {"F(3,0)", 6, 7}, {"B(3,0)", 7, 9}, {"F(3,1)", 9, 10},
	 {"B(3,1)", 10, 12}, {"B(2,0)", 10, 12}, {"B(2,1)", 13, 15},
	 {"B(1,0)", 13, 15}, {"B(1,1)", 16, 18}, {"B(0,0)", 16, 18},
	 {"B(0,1)", 19, 21}},
	21, 21, 21, 24, 1.0 - 24.0 / 42.0, {4, 3},
	"interleaved",
};

static void test_timeline_interleaved(void **state)
{
	check_timeline(&interleaved);
}

/*
 * V placement: 2 devices, chunks 2: stages 0,3 on dev0 and 1,2 on dev1, so
 * edge 1->2 stays on dev1 (no lag) while 0->1 and 2->3 cross (comm 3).
 * 1 micro-batch, fused, F=1, B=2.
 *
 *   time   0         1         2
 *          012345678901234567890123
 *   dev0   F........FBB..........BB     F0 F3 B3 B0
 *   dev1   ....FF.........BBBB.....     F1 F2 B2 B1
 *
 * F(1) at 1+3 = 4, F(2) at 5 (no lag), F(3) at 6+3 = 9, B(3) [10,12),
 * B(2) at 12+3 = 15, B(1) at 17 (no lag), B(0) at 19+3 = 22.
 * busy 12; bubble = 1 - 12/48 = 0.75. Spans 24 and 19-4 = 15.
 */
static const struct timeline vshape = {
	"{\"devices\":2,\"microbatches\":1,\"chunks\":2,\"placement\":\"v\","
	"\"cost\":{\"F\":1,\"B\":2},\"comm\":3}",
	2,
	{"F(0,0) F(3,0) B(3,0) B(0,0)", "F(1,0) F(2,0) B(2,0) B(1,0)"},
	{{"F(0,0)", 0, 1}, {"F(1,0)", 4, 5}, {"F(2,0)", 5, 6},
	 {"F(3,0)", 9, 10}, {"B(3,0)", 10, 12}, {"B(2,0)", 15, 17},
	 {"B(1,0)", 17, 19}, {"B(0,0)", 22, 24}},
	24, 24, 24, 12, 0.75, {0, 0},
	"vshape",
};

static void test_timeline_v_placement(void **state)
{
	check_timeline(&vshape);
}

/*
 * Fused backward, GPipe order, per-stage costs F=[1,2], B=[2,3], no comm,
 * 3 micro-batches (third shown as 'x' for F and 'y' for B); memory
 * F=[3,2], B=[-3,-2] with limits [9,6] met exactly (allowed: the limit is
 * "never exceed").
 *
 *   time   0         1
 *          012345678901234567
 *   dev0   Ffx.......BB.bb.yy
 *   dev1   .FFffxxBBBbbbyyy..
 *
 * F(1,j) at 1, 3, 5; B(1,j) back to back from 7: [7,10) [10,13) [13,16);
 * B(0,j) each right after B(1,j): 10, 13, 16. busy = 3 x (1+2+2+3) = 24;
 * bubble = 1 - 24/36. Peaks 3+3+3 = 9 and 2+2+2 = 6. Spans 18, 15.
 */
static const struct timeline fused_gpipe = {
	"{\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":[1,2],\"B\":[2,3]},"
	"\"memory\":{\"F\":[3,2],\"B\":[-3,-2],\"limit\":[9,6]}}",
	2,
	{"F(0,0) F(0,1) F(0,2) B(0,0) B(0,1) B(0,2)",
	 "F(1,0) F(1,1) F(1,2) B(1,0) B(1,1) B(1,2)"},
	{{"F(0,0)", 0, 1}, {"F(0,1)", 1, 2}, {"F(0,2)", 2, 3},
	 {"F(1,0)", 1, 3}, {"F(1,1)", 3, 5}, {"F(1,2)", 5, 7},
	 {"B(1,0)", 7, 10}, {"B(1,1)", 10, 13}, {"B(1,2)", 13, 16},
	 {"B(0,0)", 10, 12}, {"B(0,1)", 13, 15}, {"B(0,2)", 16, 18}},
	18, 18, 18, 24, 1.0 - 24.0 / 36.0, {9, 6},
	"fused gpipe",
};

static void test_timeline_fused_memory_limit_met(void **state)
{
	check_timeline(&fused_gpipe);
}

/*
 * W of duration 0: 2 devices, 2 micro-batches, F=2, B=3, W=0, no comm;
 * memory F=+1, B=0, W=-1.
 *
 *   time   0         1
 *          012345678901234
 *   dev0   FFff...BBB..bbb
 *   dev1   ..FFBBBffbbb...
 *
 * W(1,0) sits at [7,7), W(1,1) at [12,12), W(0,0) at [10,10), W(0,1) at
 * [15,15): a zero-length op starts when its B ends and adds no time.
 * busy = 2 x 2 x 5 = 20; bubble = 1 - 20/30. Spans 15 and 12-2 = 10.
 * Memory dev0: 1,2,2,1,1,0 -> 2; dev1: 1,1,0,1,1,0 -> 1.
 */
static const struct timeline zero_w = {
	"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3,\"W\":0},"
	"\"memory\":{\"F\":1,\"B\":0,\"W\":-1}}",
	2,
	{"F(0,0) F(0,1) B(0,0) W(0,0) B(0,1) W(0,1)",
	 "F(1,0) B(1,0) W(1,0) F(1,1) B(1,1) W(1,1)"},
	{{"F(0,0)", 0, 2}, {"F(0,1)", 2, 4}, {"B(0,0)", 7, 10},
	 {"W(0,0)", 10, 10}, {"B(0,1)", 12, 15}, {"W(0,1)", 15, 15},
	 {"F(1,0)", 2, 4}, {"B(1,0)", 4, 7}, {"W(1,0)", 7, 7},
	 {"F(1,1)", 7, 9}, {"B(1,1)", 9, 12}, {"W(1,1)", 12, 12}},
	15, 15, 15, 20, 1.0 - 20.0 / 30.0, {2, 1},
	"zero w",
};

static void test_timeline_zero_w(void **state)
{
	check_timeline(&zero_w);
}

/*
 * Span objective: dev1 starts late (at 1) and its long W (5) ends last.
 * 2 devices, 1 micro-batch, F=1, B=1, W=[1,5], no comm.
 *
 *   time   01234567
 *   dev0   F..BW...
 *   dev1   .FBWWWWW
 *
 * makespan 8; spans: dev0 5-0 = 5, dev1 8-1 = 7, so span 7 < makespan and
 * the objective is 7. busy = 1+1+1+1+1+5 = 10; bubble = 1 - 10/16.
 */
static const struct timeline span_late = {
	"{\"devices\":2,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1,\"W\":[1,5]},"
	"\"objective\":\"span\"}",
	2,
	{"F(0,0) B(0,0) W(0,0)", "F(1,0) B(1,0) W(1,0)"},
	{{"F(0,0)", 0, 1}, {"B(0,0)", 3, 4}, {"W(0,0)", 4, 5},
	 {"F(1,0)", 1, 2}, {"B(1,0)", 2, 3}, {"W(1,0)", 3, 8}},
	8, 7, 7, 10, 1.0 - 10.0 / 16.0, {0, 0},
	"span late",
};

static void test_timeline_span_objective(void **state)
{
	check_timeline(&span_late);
}

/* ---- errors ----------------------------------------------------------------- */

/* The instance of split_comm, with and without a memory limit. */
#define SPLIT2 "{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1}"
#define FUSED2 "{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":1}}"
#define ROW0 "F(0,0) F(0,1) B(0,0) W(0,0) B(0,1) W(0,1)"
#define ROW1 "F(1,0) B(1,0) W(1,0) F(1,1) B(1,1) W(1,1)"

static void test_error_missing_op(void **state)
{
	struct error err;
	const char *rows[] = {ROW0, "F(1,0) B(1,0) W(1,0) F(1,1) B(1,1)"};
	expect_sim_error(SPLIT2, 2, rows, &err);
	assert_contains(err.msg, "missing");
	assert_contains(err.msg, "device 1");
	assert_contains(err.msg, "W(1,1)");

	const char *rows0[] = {"F(0,0) F(0,1) B(0,0) W(0,0) W(0,1)", ROW1};
	expect_sim_error(SPLIT2, 2, rows0, &err);
	assert_contains(err.msg, "missing");
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "B(0,1)");
}

static void test_error_duplicate_op(void **state)
{
	struct error err;
	const char *rows[] = {"F(0,0) F(0,1) F(0,0) B(0,0) W(0,0) B(0,1) W(0,1)",
			      ROW1};
	expect_sim_error(SPLIT2, 2, rows, &err);
	assert_contains(err.msg, "duplicate");
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "F(0,0)");
}

static void test_error_wrong_device(void **state)
{
	struct error err;
	/* W(1,1) moved from device 1 to the end of device 0. */
	const char *rows[] = {ROW0 " W(1,1)", "F(1,0) B(1,0) W(1,0) F(1,1) B(1,1)"};
	expect_sim_error(SPLIT2, 2, rows, &err);
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "W(1,1)");
	assert_contains(err.msg, "device 1");   /* where stage 1 runs */
}

static void test_error_not_in_instance(void **state)
{
	struct error err;
	/* Stage 2 of a 2-stage instance. */
	const char *stage[] = {ROW0 " F(2,0)", ROW1};
	expect_sim_error(SPLIT2, 2, stage, &err);
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "F(2,0)");

	/* Micro-batch 2 of 2, first on device 0 (numbered densely, F(0,2)
	 * would alias F(1,0) if let through, and fail later on device 1). */
	const char *mb[] = {"F(0,2) " ROW0, ROW1};
	expect_sim_error(SPLIT2, 2, mb, &err);
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "F(0,2)");
	const char *mb1[] = {ROW0, "B(1,2) " ROW1};
	expect_sim_error(SPLIT2, 2, mb1, &err);
	assert_contains(err.msg, "device 1");
	assert_contains(err.msg, "B(1,2)");

	/* A negative micro-batch. */
	const char *neg[] = {"F(0,-1) " ROW0, ROW1};
	expect_sim_error(SPLIT2, 2, neg, &err);
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "F(0,-1)");

	/* W in a fused instance. */
	const char *w[] = {"F(0,0) F(0,1) B(0,0) B(0,1)",
			   "F(1,0) B(1,0) W(1,0) F(1,1) B(1,1)"};
	expect_sim_error(FUSED2, 2, w, &err);
	assert_contains(err.msg, "device 1");
	assert_contains(err.msg, "W(1,0)");
}

static void test_error_memory_limit(void **state)
{
	struct error err;
	/* F=+2 twice on device 0 reaches 4 > 3. */
	const char *json =
		"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3,\"W\":1},"
		"\"comm\":1,\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":3}}";
	const char *rows[] = {ROW0, ROW1};
	expect_sim_error(json, 2, rows, &err);
	assert_contains(err.msg, "memory");
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "F(0,1)");
	assert_true(has_number(err.msg, 4));
	assert_true(has_number(err.msg, 3));

	/* Per-device limits [4, 2]: the 1F1B rows fit (peaks 4 and 2) ... */
	const char *json2 =
		"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3,\"W\":1},"
		"\"comm\":1,\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":[4,2]}}";
	struct instance *in = parse_instance_ok(json2);
	struct schedule *sc = make_schedule(2, rows);
	struct sim *s = sim_new(in);
	struct sim_result r;
	assert_int_equal(sim_run(s, sc, &r, &err), STATUS_OK);
	assert_int_equal(r.peak_memory[0], 4);
	assert_int_equal(r.peak_memory[1], 2);
	sim_free(s);
	schedule_free(sc);
	instance_free(in);

	/* ... but GPipe order on device 1 reaches 2+2 = 4 > 2 at F(1,1). */
	const char *gp[] = {ROW0, "F(1,0) F(1,1) B(1,0) W(1,0) B(1,1) W(1,1)"};
	expect_sim_error(json2, 2, gp, &err);
	assert_contains(err.msg, "device 1");
	assert_contains(err.msg, "F(1,1)");
	assert_true(has_number(err.msg, 4));
	assert_true(has_number(err.msg, 2));
}

/*
 * Two devices wait on each other: dev0 runs F(0,0), then B(0,0) needs
 * B(1,0), which dev1 runs only after F(1,1), which needs F(0,1), which dev0
 * runs only after B(0,0).
 */
static void test_error_deadlock_two_devices(void **state)
{
	struct error err;
	const char *rows[] = {"F(0,0) B(0,0) F(0,1) B(0,1)",
			      "F(1,1) F(1,0) B(1,0) B(1,1)"};
	expect_sim_error(FUSED2, 2, rows, &err);
	assert_contains(err.msg, "deadlock");
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "device 1");
	assert_contains(err.msg, "B(0,0)");
	assert_contains(err.msg, "F(1,1)");
}

static void test_error_deadlock_one_device(void **state)
{
	struct error err;
	const char *rows[] = {"B(0,0) F(0,0)"};
	expect_sim_error("{\"devices\":1,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1}}",
		     1, rows, &err);
	assert_contains(err.msg, "deadlock");
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "B(0,0)");

	/* W before its own B. */
	const char *w[] = {"F(0,0) W(0,0) B(0,0)"};
	expect_sim_error("{\"devices\":1,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1,\"W\":1}}",
		     1, w, &err);
	assert_contains(err.msg, "deadlock");
	assert_contains(err.msg, "device 0");
	assert_contains(err.msg, "W(0,0)");
}

static void test_error_wrong_row_count(void **state)
{
	struct error err;
	const char *rows3[] = {ROW0, ROW1, NULL};
	expect_sim_error(SPLIT2, 3, rows3, &err);
	assert_true(has_number(err.msg, 3));
	assert_true(has_number(err.msg, 2));
	assert_contains(err.msg, "device");

	const char *rows1[] = {ROW0};
	expect_sim_error(SPLIT2, 1, rows1, &err);
	assert_true(has_number(err.msg, 1));
	assert_true(has_number(err.msg, 2));
}

/* With err == NULL, invalid schedules still fail (expect_error checks this
 * on every case above; here a valid one still succeeds without err). */
static void test_null_err(void **state)
{
	struct instance *in = parse_instance_ok(SPLIT2);
	const char *rows[] = {ROW0, ROW1};
	const char *bad[] = {ROW0, "F(1,0) B(1,0) W(1,0) F(1,1) B(1,1)"};
	struct schedule *sc = make_schedule(2, rows), *sb = make_schedule(2, bad);
	struct sim *s = sim_new(in);
	struct sim_result r;
	assert_int_equal(sim_run(s, sb, &r, NULL), STATUS_ERROR);
	assert_int_equal(sim_run(s, sc, &r, NULL), STATUS_OK);
	assert_int_equal(r.makespan, 19);
	sim_free(s);
	schedule_free(sc);
	schedule_free(sb);
	instance_free(in);
}

/* One struct sim: valid, invalid (several kinds), valid again: the same. */
static void test_reuse(void **state)
{
	struct instance *in = parse_instance_ok(split_comm.json);
	struct schedule *good = make_schedule(2, split_comm.rows);
	const char *const bad_rows[][2] = {
		{ROW0, "F(1,0) B(1,0) W(1,0) F(1,1) B(1,1)"},           /* missing */
		{"F(0,0) B(0,0) F(0,1) W(0,0) B(0,1) W(0,1)",
		 "F(1,1) F(1,0) B(1,0) W(1,0) B(1,1) W(1,1)"},          /* deadlock */
		{ROW0 " F(0,0)", ROW1},                                 /* duplicate */
	};
	struct sim *s = sim_new(in);
	struct sim_result r;
	struct error err;
	int n = inst_nops(in);
	int64_t start[12], end[12], peak[2];
	assert_int_equal(n, 12);
	assert_int_equal(sim_run(s, good, &r, &err), STATUS_OK);
	memcpy(start, r.start, sizeof start);
	memcpy(end, r.end, sizeof end);
	memcpy(peak, r.peak_memory, sizeof peak);
	int64_t makespan = r.makespan, span = r.span;
	for (size_t b = 0; b < sizeof bad_rows / sizeof bad_rows[0]; b++) {
		struct schedule *bad = make_schedule(2, bad_rows[b]);
		assert_int_equal(sim_run(s, bad, &r, &err), STATUS_ERROR);
		schedule_free(bad);
		memset(&r, 0, sizeof r);
		assert_int_equal(sim_run(s, good, &r, &err), STATUS_OK);
		assert_memory_equal(r.start, start, sizeof start);
		assert_memory_equal(r.end, end, sizeof end);
		assert_memory_equal(r.peak_memory, peak, sizeof peak);
		assert_int_equal(r.makespan, makespan);
		assert_int_equal(r.span, span);
	}
	assert_int_equal(makespan, 19);   /* split_comm's hand timeline */
	sim_free(s);
	schedule_free(good);
	instance_free(in);
}

/* ---- randomized cross-check against a naive evaluator ----------------------- */

#define GMAX_L 16
#define GMAX_E 64
#define GMAX_OPS (3 * GMAX_L * 4)

/* A random instance described independently of the parser. */
struct gen {
	int D, M, L, chunks, split, has_mem, span_obj;
	int placement;           /* 0 linear, 1 interleaved, 2 v, 3 list */
	int explicit_edges;
	int random_dag;          /* edges drawn at random (not the chain) */
	int dev[GMAX_L];
	int nedges, edge[GMAX_E][2];
	int comm_list;
	int64_t comm[GMAX_E];
	int64_t cost[3][GMAX_L];
	int64_t mem[3][GMAX_L];
};

static uint64_t rng_state;

static uint64_t rng_next(void)   /* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int rnd(int lo, int hi)   /* inclusive */
{
	return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1));
}

static void gen_random(struct gen *g)
{
	memset(g, 0, sizeof *g);
	g->D = rnd(1, 4);
	g->M = rnd(1, 4);
	g->placement = rnd(0, 3);
	g->chunks = g->placement == 1 || g->placement == 2 ? rnd(1, 3) : 1;
	if (g->placement == 3)
		g->L = rnd(1, 7);
	else
		g->L = g->D * g->chunks;
	for (int l = 0; l < g->L; l++) {
		int pass = l / g->D, pos = l % g->D;
		if (g->placement == 3)
			g->dev[l] = rnd(0, g->D - 1);
		else if (g->placement == 2 && pass % 2)
			g->dev[l] = g->D - 1 - pos;
		else
			g->dev[l] = pos;
	}
	if (rnd(0, 1)) {   /* the chain, implicit or written out */
		g->explicit_edges = rnd(0, 1);
		g->nedges = g->L - 1;
		for (int e = 0; e < g->nedges; e++) {
			g->edge[e][0] = e;
			g->edge[e][1] = e + 1;
		}
	} else {           /* a random DAG over a random stage order */
		int perm[GMAX_L];
		g->explicit_edges = 1;
		g->random_dag = 1;
		for (int l = 0; l < g->L; l++)
			perm[l] = l;
		for (int l = g->L - 1; l > 0; l--) {
			int k = rnd(0, l), t = perm[l];
			perm[l] = perm[k];
			perm[k] = t;
		}
		for (int a = 0; a < g->L; a++)
			for (int b = a + 1; b < g->L; b++)
				if (rnd(0, 99) < 40 && g->nedges < GMAX_E) {
					g->edge[g->nedges][0] = perm[a];
					g->edge[g->nedges][1] = perm[b];
					g->nedges++;
				}
	}
	g->comm_list = g->nedges > 0 && rnd(0, 1);
	int64_t c = rnd(0, 4);
	for (int e = 0; e < g->nedges; e++)
		g->comm[e] = g->comm_list ? rnd(0, 4) : c;
	g->split = rnd(0, 1);
	for (int l = 0; l < g->L; l++) {
		g->cost[OP_F][l] = rnd(1, 5);
		g->cost[OP_B][l] = rnd(1, 5);
		g->cost[OP_W][l] = g->split ? rnd(0, 3) : 0;
	}
	g->has_mem = rnd(0, 1);
	for (int l = 0; l < g->L && g->has_mem; l++) {
		/* Keep every partial sum of a stage's deltas >= 0. */
		int64_t f = rnd(0, 3), w = g->split ? rnd(0, (int)f) : 0;
		g->mem[OP_F][l] = f;
		g->mem[OP_B][l] = -(f - w);
		g->mem[OP_W][l] = -w;
	}
	g->span_obj = rnd(0, 1);
}

static int gen_append(char *buf, int len, int cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int gen_append(char *buf, int len, int cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && len + n < cap);
	return len + n;
}

static int gen_list(char *buf, int len, int cap, const int64_t *a, int n)
{
	len = gen_append(buf, len, cap, "[");
	for (int i = 0; i < n; i++)
		len = gen_append(buf, len, cap, "%s%lld", i ? "," : "",
				 (long long)a[i]);
	return gen_append(buf, len, cap, "]");
}

/* The instance as JSON; limits, when not NULL, is one limit per device. */
static void gen_json(const struct gen *g, const int64_t *limits, char *buf,
		     int cap)
{
	static const char *const names[] = {"linear", "interleaved", "v"};
	int len = gen_append(buf, 0, cap, "{\"devices\":%d,\"microbatches\":%d",
			     g->D, g->M);
	if (g->placement == 3) {
		len = gen_append(buf, len, cap, ",\"placement\":[");
		for (int l = 0; l < g->L; l++)
			len = gen_append(buf, len, cap, "%s%d", l ? "," : "",
					 g->dev[l]);
		len = gen_append(buf, len, cap, "]");
	} else {
		len = gen_append(buf, len, cap, ",\"placement\":\"%s\"",
				 names[g->placement]);
		if (g->placement)
			len = gen_append(buf, len, cap, ",\"chunks\":%d", g->chunks);
	}
	if (g->explicit_edges) {
		len = gen_append(buf, len, cap, ",\"edges\":[");
		for (int e = 0; e < g->nedges; e++)
			len = gen_append(buf, len, cap, "%s[%d,%d]", e ? "," : "",
					 g->edge[e][0], g->edge[e][1]);
		len = gen_append(buf, len, cap, "]");
	}
	len = gen_append(buf, len, cap, ",\"cost\":{\"F\":");
	len = gen_list(buf, len, cap, g->cost[OP_F], g->L);
	len = gen_append(buf, len, cap, ",\"B\":");
	len = gen_list(buf, len, cap, g->cost[OP_B], g->L);
	if (g->split) {
		len = gen_append(buf, len, cap, ",\"W\":");
		len = gen_list(buf, len, cap, g->cost[OP_W], g->L);
	}
	len = gen_append(buf, len, cap, "},\"comm\":");
	if (g->comm_list)
		len = gen_list(buf, len, cap, g->comm, g->nedges);
	else
		len = gen_append(buf, len, cap, "%lld",
				 (long long)(g->nedges ? g->comm[0] : 3));
	if (g->has_mem) {
		len = gen_append(buf, len, cap, ",\"memory\":{\"F\":");
		len = gen_list(buf, len, cap, g->mem[OP_F], g->L);
		len = gen_append(buf, len, cap, ",\"B\":");
		len = gen_list(buf, len, cap, g->mem[OP_B], g->L);
		if (g->split) {
			len = gen_append(buf, len, cap, ",\"W\":");
			len = gen_list(buf, len, cap, g->mem[OP_W], g->L);
		}
		if (limits) {
			len = gen_append(buf, len, cap, ",\"limit\":");
			len = gen_list(buf, len, cap, limits, g->D);
		}
		len = gen_append(buf, len, cap, "}");
	}
	gen_append(buf, len, cap, ",\"objective\":\"%s\"}",
		   g->span_obj ? "span" : "makespan");
}

/* Op numbering of the reference: its own, (kind, stage, mb) -> index. */
static int gid(const struct gen *g, int k, int l, int j)
{
	return (k * g->L + l) * g->M + j;
}

static int gen_nops(const struct gen *g)
{
	return (g->split ? 3 : 2) * g->L * g->M;
}

/* Dependencies of op (k,l,j) with their lags, read from the generator's
 * own edge list. Returns their number. */
static int gen_deps(const struct gen *g, int k, int l, int j, int *dep,
		    int64_t *lag)
{
	int n = 0;
	if (k == OP_F) {
		for (int e = 0; e < g->nedges; e++)
			if (g->edge[e][1] == l) {
				int p = g->edge[e][0];
				dep[n] = gid(g, OP_F, p, j);
				lag[n++] = g->dev[p] != g->dev[l] ? g->comm[e] : 0;
			}
	} else if (k == OP_B) {
		dep[n] = gid(g, OP_F, l, j);
		lag[n++] = 0;
		for (int e = 0; e < g->nedges; e++)
			if (g->edge[e][0] == l) {
				int s = g->edge[e][1];
				dep[n] = gid(g, OP_B, s, j);
				lag[n++] = g->dev[s] != g->dev[l] ? g->comm[e] : 0;
			}
	} else {
		dep[n] = gid(g, OP_B, l, j);
		lag[n++] = 0;
	}
	return n;
}

/* A random topological interleaving: repeatedly append a random op whose
 * dependencies are all placed to its stage's device. */
static struct schedule *gen_schedule(const struct gen *g)
{
	int n = gen_nops(g), kinds = g->split ? 3 : 2;
	uint8_t placed[GMAX_OPS] = {0};
	int ready[GMAX_OPS], dep[GMAX_E + 1];
	int64_t lag[GMAX_E + 1];
	struct schedule *sc = schedule_new(g->D);
	for (int step = 0; step < n; step++) {
		int nr = 0;
		for (int k = 0; k < kinds; k++)
			for (int l = 0; l < g->L; l++)
				for (int j = 0; j < g->M; j++) {
					int id = gid(g, k, l, j), ok = !placed[id];
					int nd = gen_deps(g, k, l, j, dep, lag);
					for (int i = 0; i < nd && ok; i++)
						ok = placed[dep[i]];
					if (ok)
						ready[nr++] = id;
				}
		assert_true(nr > 0);
		int id = ready[rnd(0, nr - 1)];
		int k = id / (g->L * g->M), l = id / g->M % g->L, j = id % g->M;
		placed[id] = 1;
		assert_int_equal(schedule_push(sc, g->dev[l], k, l, j), STATUS_OK);
	}
	return sc;
}

struct ref {
	int deadlock;
	int64_t start[GMAX_OPS], end[GMAX_OPS];
	int64_t makespan, span, busy, peak[4];
};

static int64_t gen_dur(const struct gen *g, int id)
{
	return g->cost[id / (g->L * g->M)][id / g->M % g->L];
}

/*
 * The naive evaluator: start everything at 0 and relax
 *     start(o) = max(end(prev on device), end(dep) + lag)
 * over all ops until nothing changes. Longest paths in an acyclic graph
 * settle within n passes; every cycle holds a B (duration >= 1), so a
 * deadlocked schedule keeps growing and is caught by the pass limit.
 */
static void ref_eval(const struct gen *g, const struct schedule *sc,
		     struct ref *out)
{
	int n = gen_nops(g), dep[GMAX_E + 1], changed = 1, pass = 0;
	int64_t lag[GMAX_E + 1];
	memset(out, 0, sizeof *out);
	while (changed && pass++ <= n + 1) {
		changed = 0;
		for (int d = 0; d < g->D; d++) {
			const struct sched_row *row = &sc->rows[d];
			for (int i = 0; i < row->len; i++) {
				const struct op *o = &row->ops[i];
				int id = gid(g, o->kind, o->stage, o->mb);
				int64_t t = 0;
				if (i > 0) {
					const struct op *q = &row->ops[i - 1];
					int pid = gid(g, q->kind, q->stage, q->mb);
					t = out->start[pid] + gen_dur(g, pid);
				}
				int nd = gen_deps(g, o->kind, o->stage, o->mb, dep, lag);
				for (int x = 0; x < nd; x++) {
					int64_t a = out->start[dep[x]] +
						    gen_dur(g, dep[x]) + lag[x];
					t = a > t ? a : t;
				}
				if (t > out->start[id]) {
					out->start[id] = t;
					changed = 1;
				}
			}
		}
	}
	out->deadlock = changed;
	for (int id = 0; id < n; id++) {
		out->end[id] = out->start[id] + gen_dur(g, id);
		out->busy += gen_dur(g, id);
		if (out->end[id] > out->makespan)
			out->makespan = out->end[id];
	}
	for (int d = 0; d < g->D; d++) {
		const struct sched_row *row = &sc->rows[d];
		int64_t lo = INT64_MAX, hi = 0, mem = 0;
		out->peak[d] = 0;
		for (int i = 0; i < row->len; i++) {
			const struct op *o = &row->ops[i];
			int id = gid(g, o->kind, o->stage, o->mb);
			lo = out->start[id] < lo ? out->start[id] : lo;
			hi = out->end[id] > hi ? out->end[id] : hi;
			mem += g->has_mem ? g->mem[o->kind][o->stage] : 0;
			out->peak[d] = mem > out->peak[d] ? mem : out->peak[d];
		}
		if (row->len && hi - lo > out->span)
			out->span = hi - lo;
	}
}

static void compare(const struct gen *g, const struct instance *in,
		    const struct sim_result *r, const struct ref *ref,
		    int iter, const char *json)
{
	int n = gen_nops(g);
	assert_int_equal(inst_nops(in), n);
	for (int id = 0; id < n; id++)
		if (r->start[id] != ref->start[id] || r->end[id] != ref->end[id])
			fail_msg("case %d, op id %d: sim [%lld,%lld), reference [%lld,%lld); %s",
				 iter, id, (long long)r->start[id],
				 (long long)r->end[id], (long long)ref->start[id],
				 (long long)ref->end[id], json);
	assert_int_equal(r->makespan, ref->makespan);
	assert_int_equal(r->span, ref->span);
	assert_int_equal(r->objective, g->span_obj ? ref->span : ref->makespan);
	assert_int_equal(r->busy, ref->busy);
	assert_double_near(r->bubble_ratio,
			   1.0 - (double)ref->busy / ((double)g->D * (double)ref->makespan),
			   1e-12);
	for (int d = 0; d < g->D; d++)
		assert_int_equal(r->peak_memory[d], ref->peak[d]);
}

static void test_random_cross_check(void **state)
{
	char json[4096];
	int valid = 0, dags = 0, deadlocks = 0, limit_fails = 0;
	rng_state = 20240611;
	for (int iter = 0; iter < 400; iter++) {
		struct gen g;
		gen_random(&g);
		gen_json(&g, NULL, json, sizeof json);
		struct instance *in = parse_instance_ok(json);
		struct sim *s = sim_new(in);
		struct sim_result r;
		struct error err;
		struct ref ref;
		assert_non_null(s);
		dags += g.random_dag;

		/* A valid schedule: times agree exactly. */
		struct schedule *sc = gen_schedule(&g);
		ref_eval(&g, sc, &ref);
		assert_false(ref.deadlock);
		if (sim_run(s, sc, &r, &err))
			fail_msg("case %d: %s; %s", iter, err.msg, json);
		compare(&g, in, &r, &ref, iter, json);
		valid++;

		/* Swap two ops of one device: valid or deadlocked as the
		 * reference says; if valid, the same times. */
		int d = rnd(0, g.D - 1);
		struct sched_row *row = &sc->rows[d];
		if (row->len >= 2) {
			int a = rnd(0, row->len - 1), b = rnd(0, row->len - 1);
			struct op t = row->ops[a];
			row->ops[a] = row->ops[b];
			row->ops[b] = t;
			ref_eval(&g, sc, &ref);
			enum status st = sim_run(s, sc, &r, &err);
			if (ref.deadlock) {
				assert_int_equal(st, STATUS_ERROR);
				assert_contains(err.msg, "deadlock");
				deadlocks++;
			} else {
				if (st)
					fail_msg("case %d (swapped): %s; %s", iter,
						 err.msg, json);
				compare(&g, in, &r, &ref, iter, json);
			}
		}
		sim_free(s);
		instance_free(in);

		/* Memory limits at the reference peaks fit exactly; one less on
		 * a device fails there (when the parser allows that limit). */
		if (g.has_mem) {
			struct schedule *ok = gen_schedule(&g);
			ref_eval(&g, ok, &ref);
			int64_t lim[4];
			memcpy(lim, ref.peak, sizeof lim);
			gen_json(&g, lim, json, sizeof json);
			in = parse_instance_ok(json);
			s = sim_new(in);
			if (sim_run(s, ok, &r, &err))
				fail_msg("case %d (limit = peak): %s; %s", iter,
					 err.msg, json);
			compare(&g, in, &r, &ref, iter, json);
			sim_free(s);
			instance_free(in);
			int64_t maxf = 0;
			d = rnd(0, g.D - 1);
			for (int l = 0; l < g.L; l++)
				if (g.dev[l] == d && g.mem[OP_F][l] > maxf)
					maxf = g.mem[OP_F][l];
			if (lim[d] - 1 >= maxf) {
				lim[d]--;
				gen_json(&g, lim, json, sizeof json);
				in = parse_instance_ok(json);
				s = sim_new(in);
				assert_int_equal(sim_run(s, ok, &r, &err), STATUS_ERROR);
				assert_contains(err.msg, "memory");
				char dev[32];
				snprintf(dev, sizeof dev, "device %d", d);
				assert_contains(err.msg, dev);
				limit_fails++;
				sim_free(s);
				instance_free(in);
			}
			schedule_free(ok);
		}
		schedule_free(sc);
	}
	/* The generator covered what it should. */
	assert_int_equal(valid, 400);
	assert_true(dags > 50);
	assert_true(deadlocks > 20);
	assert_true(limit_fails > 20);
}

/*
 * The greedy pairing pass (sched/pairing.h). By hand: one device, m = 2,
 * F = 2, B = 3, rho = 0.5 (a pair lasts 3 + 1 = 4): from F0 F1 B0 B1
 * (makespan 10) it can only join F1 and B0 (F0 F1 are two forwards, B0 B1
 * two backwards), giving F0 [0,2], pair [2,6], B1 [6,9]: 9. On random
 * chains with overlap it never makes a valid schedule worse or invalid,
 * forms no pair without overlap, and with rho = 0 and equal F and B costs
 * on one device it must find some pair to join.
 */
static void test_pair_greedy(void **state)
{
	(void)state;
	struct instance *in = parse_instance_ok(
		"{\"name\":\"ov\",\"devices\":1,\"microbatches\":2,"
		"\"cost\":{\"F\":2,\"B\":3},\"overlap\":{\"factor\":0.5}}");
	struct schedule *s = schedule_new(1);
	schedule_push(s, 0, OP_F, 0, 0);
	schedule_push(s, 0, OP_F, 0, 1);
	schedule_push(s, 0, OP_B, 0, 0);
	schedule_push(s, 0, OP_B, 0, 1);
	struct sim *sim = sim_new(in);
	struct sim_result r;
	assert_int_equal(schedule_pair_greedy(in, s, sim, 0), 1);
	assert_true(s->rows[0].ops[2].with_prev);
	assert_false(s->rows[0].ops[1].with_prev || s->rows[0].ops[3].with_prev);
	assert_int_equal(sim_run(sim, s, &r, NULL), STATUS_OK);
	assert_int_equal(r.makespan, 9);
	schedule_free(s);
	sim_free(sim);
	instance_free(in);
	uint64_t seed = 77;
	int joined = 0;
	for (int t = 0; t < 60; t++) {
		int p = xorshift_in(&seed, 1, 3), m = xorshift_in(&seed, 1, 4);
		int F = xorshift_in(&seed, 1, 4), B = xorshift_in(&seed, 1, 4);
		int rho4 = xorshift_in(&seed, 0, 4), c = xorshift_in(&seed, 0, 2);
		bool overlap = t % 6 != 5;   /* every sixth: the chain without it */
		char json[256], ov[64] = "";
		if (overlap)
			snprintf(ov, sizeof ov, ",\"overlap\":{\"factor\":%.2f}", rho4 / 4.0);
		snprintf(json, sizeof json,
			 "{\"devices\":%d,\"microbatches\":%d,\"cost\":{\"F\":%d,\"B\":%d},"
			 "\"comm\":%d%s}", p, m, F, B, c, ov);
		in = parse_instance_ok(json);
		sim = sim_new(in);
		struct error err;
		assert_int_equal(family_generate("1f1b", in, &s, &err), STATUS_OK);
		struct sim_result before, after;
		assert_int_equal(sim_run(sim, s, &before, NULL), STATUS_OK);
		int64_t was = before.objective;
		int k = schedule_pair_greedy(in, s, sim, 0);
		assert_true(k >= 0);
		if (!overlap || rho4 == 4)
			assert_int_equal(k, 0);
		joined += k;
		assert_int_equal(sim_run(sim, s, &after, NULL), STATUS_OK);
		assert_true(after.objective <= was);
		schedule_free(s);
		sim_free(sim);
		instance_free(in);
	}
	assert_true(joined > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeline_split_comm),
		cmocka_unit_test(test_timeline_comm_cross_device_only),
		cmocka_unit_test(test_timeline_diamond_dag),
		cmocka_unit_test(test_timeline_interleaved),
		cmocka_unit_test(test_timeline_v_placement),
		cmocka_unit_test(test_timeline_fused_memory_limit_met),
		cmocka_unit_test(test_timeline_zero_w),
		cmocka_unit_test(test_timeline_span_objective),
		cmocka_unit_test(test_error_missing_op),
		cmocka_unit_test(test_error_duplicate_op),
		cmocka_unit_test(test_error_wrong_device),
		cmocka_unit_test(test_error_not_in_instance),
		cmocka_unit_test(test_error_memory_limit),
		cmocka_unit_test(test_error_deadlock_two_devices),
		cmocka_unit_test(test_error_deadlock_one_device),
		cmocka_unit_test(test_error_wrong_row_count),
		cmocka_unit_test(test_null_err),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_random_cross_check),
		cmocka_unit_test(test_pair_greedy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
