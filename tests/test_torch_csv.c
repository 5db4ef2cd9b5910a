/*
 * Tests for sched/torch_csv.c: PyTorch pipelining CSV schedules.
 *
 * "Column" in messages is the CSV column: the 1-based index of the cell in
 * its row (what a spreadsheet shows), not a character offset.
 */
#include "test_helpers.h"

#include "sched/schedule.h"
#include "sched/torch_csv.h"

static struct schedule *parse_ok(const char *text)
{
	struct schedule *s = NULL;
	struct error err = {{0}};
	if (torch_csv_parse(text, "test.csv", &s, &err))
		fail_msg("rejected: %s", err.msg);
	assert_non_null(s);
	return s;
}

static void assert_op(const struct schedule *s, int d, int i, int kind,
		      int stage, int mb)
{
	if (d >= s->devices || i >= s->rows[d].len)
		fail_msg("no op %d on device %d", i, d);
	const struct op *o = &s->rows[d].ops[i];
	if (o->kind != kind || o->stage != stage || o->mb != mb)
		fail_msg("device %d op %d: (%d,%d,%d), expected (%d,%d,%d)", d,
			 i, o->kind, o->stage, o->mb, kind, stage, mb);
}

static void test_parse_split(void **state)
{
	struct schedule *s = parse_ok("0F0,0F1,0I0,0W0\n1F0,1I0,1W0\n");
	assert_int_equal(s->devices, 2);
	assert_int_equal(s->rows[0].len, 4);
	assert_int_equal(s->rows[1].len, 3);
	assert_op(s, 0, 0, OP_F, 0, 0);
	assert_op(s, 0, 1, OP_F, 0, 1);
	assert_op(s, 0, 2, OP_B, 0, 0);   /* I is the input-gradient B */
	assert_op(s, 0, 3, OP_W, 0, 0);
	assert_op(s, 1, 0, OP_F, 1, 0);
	assert_op(s, 1, 1, OP_B, 1, 0);
	assert_op(s, 1, 2, OP_W, 1, 0);
	assert_true(schedule_has_w(s));
	schedule_free(s);
}

static void test_parse_fused(void **state)
{
	struct schedule *s = parse_ok("0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
	assert_int_equal(s->devices, 2);
	assert_op(s, 0, 2, OP_B, 0, 0);
	assert_op(s, 0, 3, OP_B, 0, 1);
	assert_op(s, 1, 1, OP_B, 1, 0);
	assert_op(s, 1, 2, OP_F, 1, 1);
	assert_false(schedule_has_w(s));
	assert_int_equal(schedule_nops(s), 8);
	schedule_free(s);
}

/* Multi-digit stages and micro-batches, last row without a newline. */
static void test_parse_numbers(void **state)
{
	struct schedule *s = parse_ok("12F345,12B345\n7F0");
	assert_int_equal(s->devices, 2);
	assert_op(s, 0, 0, OP_F, 12, 345);
	assert_op(s, 0, 1, OP_B, 12, 345);
	assert_op(s, 1, 0, OP_F, 7, 0);
	assert_int_equal(s->rows[1].len, 1);
	schedule_free(s);
}

/* Empty cells are idle steps; spaces around cells and CRLF are tolerated. */
static void test_parse_whitespace_idle_crlf(void **state)
{
	static const char *const texts[] = {
		"0F0,,0B0,\n,1F0,,1B0\n",
		" 0F0 ,\t0B0\t\n 1F0,  ,1B0 \n",
		"0F0,0B0\r\n1F0,1B0\r\n",
		"0F0, ,0B0\r\n,,1F0,1B0,,",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		struct schedule *s = parse_ok(texts[i]);
		if (s->devices != 2 || s->rows[0].len != 2 || s->rows[1].len != 2)
			fail_msg("text %zu: shape %d rows, %d and %d ops", i,
				 s->devices, s->rows[0].len,
				 s->devices > 1 ? s->rows[1].len : -1);
		assert_op(s, 0, 0, OP_F, 0, 0);
		assert_op(s, 0, 1, OP_B, 0, 0);
		assert_op(s, 1, 0, OP_F, 1, 0);
		assert_op(s, 1, 1, OP_B, 1, 0);
		schedule_free(s);
	}
}

/* Communication and sharding actions carry no compute and are dropped. */
static void test_parse_comm_dropped(void **state)
{
	struct schedule *s = parse_ok(
		"0UNSHARD,0F0,0SEND_F0,0RECV_B0,0I0,0W0,0RESHARD,0REDUCE_GRAD\n"
		"1RECV_F0,1F0,1I0,1SEND_B0,1W0\n");
	assert_int_equal(s->rows[0].len, 3);
	assert_op(s, 0, 0, OP_F, 0, 0);
	assert_op(s, 0, 1, OP_B, 0, 0);
	assert_op(s, 0, 2, OP_W, 0, 0);
	assert_int_equal(s->rows[1].len, 3);
	assert_op(s, 1, 0, OP_F, 1, 0);
	assert_op(s, 1, 1, OP_B, 1, 0);
	assert_op(s, 1, 2, OP_W, 1, 0);
	schedule_free(s);

	/* The same with a fused backward. */
	s = parse_ok("0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n");
	assert_int_equal(s->rows[0].len, 2);
	assert_int_equal(s->rows[1].len, 2);
	assert_op(s, 0, 1, OP_B, 0, 0);
	assert_op(s, 1, 0, OP_F, 1, 0);
	assert_false(schedule_has_w(s));
	schedule_free(s);
}

/* A blank line is a rank with no ops, in the middle or at either end. */
static void test_parse_blank_rows(void **state)
{
	struct schedule *s = parse_ok("0F0,0B0\n\n2F0,2B0\n");
	assert_int_equal(s->devices, 3);
	assert_int_equal(s->rows[0].len, 2);
	assert_int_equal(s->rows[1].len, 0);
	assert_int_equal(s->rows[2].len, 2);
	assert_op(s, 2, 1, OP_B, 2, 0);
	schedule_free(s);

	s = parse_ok("\n1F0,1B0\n\n");
	assert_int_equal(s->devices, 3);
	assert_int_equal(s->rows[0].len, 0);
	assert_int_equal(s->rows[1].len, 2);
	assert_int_equal(s->rows[2].len, 0);
	schedule_free(s);
}

struct reject_case {
	const char *name;
	const char *text;
	const char *where;   /* "line L, column C" */
	const char *what;    /* another substring */
};

static const struct reject_case reject_cases[] = {
	{"B after I", "0F0,0B0\n1F0,1F1,1I0\n", "line 2, column 3", "1I0"},
	{"W after B", "0F0,0B0,0W0\n", "line 1, column 3", "mixed"},
	{"B after I/W in one row", "0F0,0I0,0W0,0B1\n", "line 1, column 4", "mixed"},
	{"unknown type", "0F0\n1F0,0X1\n", "line 2, column 2", "0X1"},
	{"no stage", "0F0\n1F0,F0\n", "line 2, column 2", "F0"},
	{"no micro-batch", "0F0\n1F0,0F\n", "line 2, column 2", "0F"},
	{"not an action", "0F0\n1F0,abc\n", "line 2, column 2", "abc"},
	{"trailing junk", "0F0,0F0x\n", "line 1, column 2", "0F0x"},
	{"negative micro-batch", "0F-1\n", "line 1, column 1", "0F-1"},
	{"stage too large", "99999999999F0\n", "line 1, column 1", "action"},
	{"micro-batch too large", "0F2000000\n", "line 1, column 1", "range"},
	{"error after CRLF", "0F0\r\n1F0\r\n2Q0\r\n", "line 3, column 1", "2Q0"},
	{"error after a blank line", "0F0\n\n, 2F0 , 2Z0\n", "line 3, column 3",
	 "2Z0"},
	{"over-long cell",
	 "0F0\n1F0,1F1,000000000000000000000000000000000000000000000000000000000000000000000F0\n",
	 "line 2, column 3", "too long"},
	{"empty text", "", "test.csv", "no rows"},
};

static void test_parse_rejects(void **state)
{
	for (size_t i = 0; i < sizeof reject_cases / sizeof *reject_cases; i++) {
		const struct reject_case *rc = &reject_cases[i];
		struct schedule *s = (struct schedule *)&s;
		struct error err = {{0}};
		if (torch_csv_parse(rc->text, "test.csv", &s, &err) != STATUS_ERROR) {
			schedule_free(s);
			fail_msg("case '%s': accepted", rc->name);
		}
		if (s)
			fail_msg("case '%s': *out not NULL after an error", rc->name);
		check_error_message(rc->name, err.msg, "'test.csv'", rc->where,
				    rc->what);
	}
}

/*
 * Regression, fixed (sched/torch_csv.c, parse_cell, the loop over `passive`): a
 * communication action is recognised by its prefix only, so anything after
 * "SEND_F", "UNSHARD", ... is silently dropped with it. PyTorch writes
 * "0SEND_F3" and "0UNSHARD"; "0SEND_Fxyz" or "0UNSHARD9Q" are typos that
 * should be reported like "0X1" is.
 * Input: "0F0,0SEND_Fxyz,0B0\n". Expected: error at line 1, column 2.
 * Was: accepted, the cell dropped.
 */
static void test_parse_comm_suffix_checked(void **state)
{
	static const struct {
		const char *text, *where;
	} cases[] = {
		{"0F0,0SEND_Fxyz,0B0\n", "line 1, column 2"},
		{"0F0,0RECV_B1x,0B0\n", "line 1, column 2"},
		{"0UNSHARD9Q,0F0,0B0\n", "line 1, column 1"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct schedule *s = NULL;
		struct error err = {{0}};
		if (!torch_csv_parse(cases[i].text, "test.csv", &s, &err)) {
			schedule_free(s);
			fail_msg("accepted: %s", cases[i].text);
		}
		assert_contains(err.msg, cases[i].where);
	}
}

/* format writes compact rows, I/W or B as asked; hand-written expected. */
static void test_format_text(void **state)
{
	struct schedule *s = schedule_new(3);
	schedule_push(s, 0, OP_F, 0, 0);
	schedule_push(s, 0, OP_B, 0, 0);
	schedule_push(s, 0, OP_W, 0, 0);
	schedule_push(s, 2, OP_F, 2, 11);
	char *text = torch_csv_format(s, true);
	assert_string_equal(text, "0F0,0I0,0W0\n\n2F11\n");
	free(text);
	schedule_free(s);

	s = schedule_new(2);
	schedule_push(s, 0, OP_F, 0, 0);
	schedule_push(s, 0, OP_F, 0, 1);
	schedule_push(s, 0, OP_B, 0, 0);
	schedule_push(s, 1, OP_F, 1, 0);
	schedule_push(s, 1, OP_B, 1, 0);
	text = torch_csv_format(s, false);
	assert_string_equal(text, "0F0,0F1,0B0\n1F0,1B0\n");
	free(text);
	schedule_free(s);
}

/* format -> parse -> schedule_equal, for split and fused schedules, with
 * devices that run nothing first, in the middle and last. */
static void round_trip(struct schedule *s, bool split)
{
	char *text = torch_csv_format(s, split);
	assert_non_null(text);
	struct schedule *back = NULL;
	struct error err = {{0}};
	if (torch_csv_parse(text, "round.csv", &back, &err))
		fail_msg("%s\n%s", err.msg, text);
	if (!schedule_equal(s, back))
		fail_msg("round trip changed the schedule:\n%s", text);
	free(text);
	schedule_free(back);
}

static void test_round_trip(void **state)
{
	/* 1F1B-like split schedule on devices 1 and 3 of 5; 0, 2, 4 idle. */
	struct schedule *s = schedule_new(5);
	for (int j = 0; j < 3; j++)
		schedule_push(s, 1, OP_F, 0, j);
	for (int j = 0; j < 3; j++) {
		schedule_push(s, 1, OP_B, 0, j);
		schedule_push(s, 1, OP_W, 0, j);
	}
	for (int j = 0; j < 3; j++) {
		schedule_push(s, 3, OP_F, 1, j);
		schedule_push(s, 3, OP_B, 1, j);
		schedule_push(s, 3, OP_W, 1, j);
	}
	round_trip(s, true);
	schedule_free(s);

	/* Fused: GPipe on 3 devices plus an idle last device. */
	s = schedule_new(4);
	for (int d = 0; d < 3; d++) {
		for (int j = 0; j < 4; j++)
			schedule_push(s, d, OP_F, d, j);
		for (int j = 3; j >= 0; j--)
			schedule_push(s, d, OP_B, d, j);
	}
	round_trip(s, false);
	schedule_free(s);

	/* Large numbers. */
	s = schedule_new(1);
	schedule_push(s, 0, OP_F, 16383, 1048575);
	schedule_push(s, 0, OP_B, 16383, 1048575);
	round_trip(s, false);
	schedule_free(s);
}

static void test_read_missing_file(void **state)
{
	const char *path = "/nonexistent/no-such-schedule.csv";
	struct schedule *s = (struct schedule *)&s;
	struct error err = {{0}};
	assert_int_equal(torch_csv_read(path, &s, &err), STATUS_ERROR);
	assert_null(s);
	assert_contains(err.msg, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_split),
		cmocka_unit_test(test_parse_fused),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_parse_whitespace_idle_crlf),
		cmocka_unit_test(test_parse_comm_dropped),
		cmocka_unit_test(test_parse_blank_rows),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_parse_comm_suffix_checked),
		cmocka_unit_test(test_format_text),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_read_missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
