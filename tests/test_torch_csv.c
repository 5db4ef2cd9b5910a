/*
 * Tests for sched/torch_csv.c: PyTorch pipelining CSV schedules.
 *
 * "Column" in messages is the CSV column: the 1-based index of the cell in
 * its row (what a spreadsheet shows), not a character offset. Expected
 * texts are written by hand or come from tests/torch_ref.h, torch's
 * algorithms re-implemented for the tests.
 */
#include "test_helpers.h"

#include <jansson.h>

#include "sched/schedule.h"
#include "sched/torch_csv.h"
#include "torch_ref.h"

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

/* Communication and sharding actions run no op. */
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
	/* ... but kept in the layout, as torch's canonical text */
	assert_true(schedule_layout_ok(s));
	assert_int_equal(s->layout->rows[0].len, 8);
	assert_string_equal(s->layout->rows[0].cells[0].text, "0UNSHARD");
	assert_int_equal(s->layout->rows[0].cells[1].ops, 1);
	assert_string_equal(s->layout->rows[0].cells[3].text, "0RECV_B0");
	assert_string_equal(s->layout->rows[0].cells[7].text, "0REDUCE_GRAD");
	assert_string_equal(s->layout->rows[1].cells[3].text, "1SEND_B0");
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
	assert_int_equal(s->layout->rows[0].len, 0);
	assert_int_equal(s->layout->rows[1].len, 2);
	schedule_free(s);
}

/* torch's full backward B: in a schedule with an I or a W anywhere (even
 * after it, even on another rank) it is B then W in one step; with none,
 * the fused B. */
static void test_parse_full_backward(void **state)
{
	struct schedule *s = parse_ok("0F0,0B0\n1F0,1F1,1I0,1W0,1B1\n");
	assert_int_equal(s->rows[0].len, 3);
	assert_op(s, 0, 1, OP_B, 0, 0);
	assert_op(s, 0, 2, OP_W, 0, 0);
	assert_int_equal(s->rows[1].len, 6);
	assert_op(s, 1, 2, OP_B, 1, 0);
	assert_op(s, 1, 3, OP_W, 1, 0);
	assert_op(s, 1, 4, OP_B, 1, 1);
	assert_op(s, 1, 5, OP_W, 1, 1);
	assert_int_equal(s->layout->rows[0].cells[1].ops, 2);
	assert_int_equal(s->layout->rows[1].cells[4].ops, 2);
	assert_int_equal(s->layout->rows[1].cells[2].ops, 1);
	schedule_free(s);

	s = parse_ok("0F0,0B0\n1F0,1B0\n");
	assert_int_equal(schedule_nops(s), 4);
	assert_false(schedule_has_w(s));
	assert_int_equal(s->layout->rows[1].cells[1].ops, 1);
	schedule_free(s);
}

/* OVERLAP_F_B: the sub-actions back to back in one step; spaces inside and
 * an empty sub-action (torch skips it) are tolerated. */
static void test_parse_overlap(void **state)
{
	struct schedule *s = parse_ok("0F0,(0F1;7I0)OVERLAP_F_B,( 7F1 ; 0B0 ;)OVERLAP_F_B,7W0\n");
	assert_int_equal(s->rows[0].len, 7);
	assert_op(s, 0, 0, OP_F, 0, 0);
	assert_op(s, 0, 1, OP_F, 0, 1);
	assert_op(s, 0, 2, OP_B, 7, 0);
	assert_op(s, 0, 3, OP_F, 7, 1);
	assert_op(s, 0, 4, OP_B, 0, 0);   /* full B of a split schedule */
	assert_op(s, 0, 5, OP_W, 0, 0);
	assert_op(s, 0, 6, OP_W, 7, 0);
	const struct sched_cells *r = &s->layout->rows[0];
	assert_int_equal(r->len, 4);
	assert_int_equal(r->cells[0].ops, 1);
	assert_int_equal(r->cells[1].ops, 2);
	assert_int_equal(r->cells[2].ops, 3);
	assert_int_equal(r->cells[3].ops, 1);
	schedule_free(s);

	/* fused: F then B */
	s = parse_ok("(0F1;1B0)OVERLAP_F_B\n");
	assert_int_equal(s->rows[0].len, 2);
	assert_op(s, 0, 0, OP_F, 0, 1);
	assert_op(s, 0, 1, OP_B, 1, 0);
	assert_false(schedule_has_w(s));
	schedule_free(s);
}

/* The layout keeps idle cells (leading, inner, trailing), `""`, blank rows
 * and whether every row ended in CRLF. */
static void test_parse_layout(void **state)
{
	struct schedule *s = parse_ok(",0F0,,0B0,,\n\"\"\n\n");
	assert_int_equal(s->devices, 3);
	const struct sched_cells *r = &s->layout->rows[0];
	static const int ops[] = {0, 1, 0, 1, 0, 0};
	assert_int_equal(r->len, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(r->cells[i].ops, ops[i]);
		assert_string_equal(r->cells[i].text, "");
	}
	assert_int_equal(s->layout->rows[1].len, 1);   /* `""`: one idle step */
	assert_int_equal(s->layout->rows[1].cells[0].ops, 0);
	assert_int_equal(s->layout->rows[2].len, 0);
	assert_false(s->layout->crlf);
	schedule_free(s);

	static const struct {
		const char *text;
		bool crlf;
	} ends[] = {
		{"0F0\r\n1F0\r\n", true},
		{"0F0\r\n1F0", true},     /* the last row need not end */
		{"0F0\r\n1F0\n", false},
		{"0F0\n1F0\r\n", false},
		{"0F0", false},
	};
	for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
		s = parse_ok(ends[i].text);
		if (s->layout->crlf != ends[i].crlf)
			fail_msg("text %zu: crlf %d", i, s->layout->crlf);
		schedule_free(s);
	}
}

struct reject_case {
	const char *name;
	const char *text;
	const char *where;   /* "line L, column C" */
	const char *what;    /* another substring */
};

#define LONG10 ";0F0;0F0;0F0;0F0;0F0;0F0;0F0;0F0;0F0;0F0"
#define LONG LONG10 LONG10 LONG10 LONG10 LONG10 LONG10 LONG10

static const struct reject_case reject_cases[] = {
	{"W after a full B", "0F0,0B0,0W0\n", "line 1, column 3",
	 "W(0,0) a second time (first at line 1, column 2)"},
	{"F twice", "0F0,0F0\n", "line 1, column 2", "F(0,0) a second time"},
	{"twice on two rows", "0F0,1F1\n1F1,0F0\n", "line 2, column 1",
	 "F(1,1) a second time (first at line 1, column 2)"},
	{"I after a full B", "0F0,0B0\n1F0,0I0\n", "line 2, column 2", "B(0,0)"},
	{"twice in an overlap", "(0F0;0F0)OVERLAP_F_B\n", "line 1, column 1",
	 "F(0,0) a second time"},
	{"overlap, bad sub-action", "0F0,(0F1;0X1)OVERLAP_F_B\n", "line 1, column 2",
	 "sub-action '0X1': type must be"},
	{"overlap of a send", "(0F1;0SEND_F1)OVERLAP_F_B\n", "line 1, column 1",
	 "only compute actions"},
	{"overlap of nothing", "0F0,()OVERLAP_F_B\n", "line 1, column 2", "no actions"},
	{"overlap of spaces", "0F0,( ; )OVERLAP_F_B\n", "line 1, column 2", "no actions"},
	{"overlap unclosed", "(0F1;1B0OVERLAP_F_B\n", "line 1, column 1",
	 "(action;action)OVERLAP_F_B"},
	{"overlap, other type", "(0F1;1B0)OVERLAP\n", "line 1, column 1",
	 "(action;action)OVERLAP_F_B"},
	{"overlap, trailing junk", "(0F1;1B0)OVERLAP_F_Bx\n", "line 1, column 1",
	 "(action;action)OVERLAP_F_B"},
	{"send, micro-batch too large", "0F0,0SEND_F2000000\n", "line 1, column 2",
	 "range"},
	{"quoted action", "\"0F0\"\n", "line 1, column 1", "expected"},
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
	 "0F0\n1F0,1F1,(0F0" LONG ")OVERLAP_F_B\n", "line 2, column 3", "too long"},
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

/* format aligns rows (torch_csv.h), I/W or B as asked; hand-derived. */
static void test_format_text(void **state)
{
	/* 2F11's input F(1,11) is not in the schedule: it does not wait */
	struct schedule *s = schedule_new(3);
	schedule_push(s, 0, OP_F, 0, 0);
	schedule_push(s, 0, OP_B, 0, 0);
	schedule_push(s, 0, OP_W, 0, 0);
	schedule_push(s, 2, OP_F, 2, 11);
	char *text = torch_csv_format(s, NULL, true);
	assert_string_equal(text, "0F0,0I0,0W0\n\n2F11\n");
	free(text);
	schedule_free(s);

	/* F(0,0) 0, F(0,1) 1; F(1,0) 1; B(1,0) 2 (after F(1,0)); B(0,0) 3 */
	s = schedule_new(2);
	schedule_push(s, 0, OP_F, 0, 0);
	schedule_push(s, 0, OP_F, 0, 1);
	schedule_push(s, 0, OP_B, 0, 0);
	schedule_push(s, 1, OP_F, 1, 0);
	schedule_push(s, 1, OP_B, 1, 0);
	text = torch_csv_format(s, NULL, false);
	assert_string_equal(text, "0F0,0F1,,0B0\n,1F0,1B0\n");
	free(text);
	schedule_free(s);
}

/* A schedule from rows of "kind stage mb" triples, e.g. {"F00 B00", ...}. */
static struct schedule *rows_of(int devices, const char *const *rows)
{
	struct schedule *s = schedule_new(devices);
	for (int d = 0; d < devices; d++)
		for (const char *p = rows[d]; *p; p += p[3] ? 4 : 3) {
			int kind = *p == 'F' ? OP_F : *p == 'B' ? OP_B : OP_W;
			schedule_push(s, d, kind, p[1] - '0', p[2] - '0');
		}
	return s;
}

static void check_format(const struct schedule *s, const struct instance *in,
			 bool split, const char *want)
{
	char *text = torch_csv_format(s, in, split);
	if (strcmp(text, want))
		fail_msg("wrote\n%s\nexpected\n%s", text, want);
	free(text);
}

/* Steps by hand: each op one step after its device's previous op and
 * after its inputs (the chain, or the instance's DAG). */
static void test_format_aligned(void **state)
{
	/* GPipe, 3 devices, m = 2, fused: F(d,j) at d + j; B(2,0) 4, B(2,1)
	 * 5; B(1,0) 5, B(1,1) 6; B(0,0) 6, B(0,1) 7. */
	static const char *const gpipe[] = {"F00 F01 B00 B01", "F10 F11 B10 B11",
					    "F20 F21 B20 B21"};
	struct schedule *s = rows_of(3, gpipe);
	check_format(s, NULL, false, "0F0,0F1,,,,,0B0,0B1\n,1F0,1F1,,,1B0,1B1\n"
				     ",,2F0,2F1,2B0,2B1\n");
	schedule_free(s);

	/* A diamond 0 -> {1, 2} -> 3, one stage a device, split: F0 0; F1, F2
	 * 1; F3 2 (after both); B3 3, W3 4; B1, B2 4; W1, W2 5; B0 5 (after
	 * both); W0 6. */
	static const char *const diamond[] = {"F00 B00 W00", "F10 B10 W10",
					      "F20 B20 W20", "F30 B30 W30"};
	struct instance *in = parse_instance_ok(
		"{\"devices\": 4, \"microbatches\": 1, \"placement\": [0, 1, 2, 3],"
		" \"edges\": [[0, 1], [0, 2], [1, 3], [2, 3]],"
		" \"cost\": {\"F\": 1, \"B\": 1, \"W\": 1}}");
	s = rows_of(4, diamond);
	check_format(s, in, true, "0F0,,,,,0I0,0W0\n,1F0,,,1I0,1W0\n"
				  ",2F0,,,2I0,2W0\n,,3F0,3I0,3W0\n");
	/* without the instance, the chain 0 -> 1 -> 2 -> 3: F(l) at l, B3 4,
	 * W3 5, B2 5, W2 6, B1 6, W1 7, B0 7, W0 8 */
	check_format(s, NULL, true, "0F0,,,,,,,0I0,0W0\n,1F0,,,,,1I0,1W0\n"
				    ",,2F0,,,2I0,2W0\n,,,3F0,3I0,3W0\n");
	schedule_free(s);
	instance_free(in);

	/* Deadlock: device 0's B(0,1) waits for F(0,1) after it. F(0,0) 0,
	 * F(1,0) 1; then nothing moves, so device 0 runs B(0,1) at 1 as if
	 * its inputs had run, and alignment goes on: F(0,1) 2, F(1,1) 3,
	 * B(1,0) 4, B(1,1) 5. */
	static const char *const stuck[] = {"F00 B01 F01", "F10 F11 B10 B11"};
	s = rows_of(2, stuck);
	check_format(s, NULL, false, "0F0,0B1,0F1\n,1F0,,1F1,1B0,1B1\n");
	schedule_free(s);
}

/* A layout's composites: B W of one micro-batch is B in a split schedule,
 * several actions an OVERLAP_F_B; a lone idle cell is `""`; CRLF. */
static void test_format_composites(void **state)
{
	static const char *const rows[] = {"F07 B73 W73 B00 W00 F11 B11", "", "F10"};
	struct schedule *s = rows_of(3, rows);
	assert_int_equal(schedule_layout_new(s), STATUS_OK);
	schedule_cell_push(s, 0, 3, NULL);
	schedule_cell_push(s, 0, 2, NULL);
	schedule_cell_push(s, 0, 0, NULL);
	schedule_cell_push(s, 0, 2, NULL);
	schedule_cell_push(s, 0, 0, "0UNSHARD");
	schedule_cell_push(s, 1, 0, NULL);
	schedule_cell_push(s, 2, 1, NULL);
	check_format(s, NULL, true,
		     "(0F7;7B3)OVERLAP_F_B,0B0,,(1F1;1I1)OVERLAP_F_B,0UNSHARD\n\"\"\n1F0\n");
	/* fused, nothing pairs */
	check_format(s, NULL, false,
		     "(0F7;7B3;7W3)OVERLAP_F_B,(0B0;0W0)OVERLAP_F_B,,(1F1;1B1)OVERLAP_F_B,"
		     "0UNSHARD\n\"\"\n1F0\n");
	s->layout->crlf = true;
	check_format(s, NULL, true,
		     "(0F7;7B3)OVERLAP_F_B,0B0,,(1F1;1I1)OVERLAP_F_B,0UNSHARD\r\n\"\"\r\n1F0\r\n");
	/* once the orders change the layout no longer applies: aligned (no
	 * input is in the schedule but W73's B73, W00's B00, B11's F11) */
	schedule_push(s, 1, OP_F, 1, 2);
	check_format(s, NULL, true, "0F7,7I3,7W3,0I0,0W0,1F1,1I1\n1F2\n1F0\n");
	schedule_free(s);
}

/* format -> parse -> schedule_equal, for split and fused schedules, with
 * devices that run nothing first, in the middle and last. */
static void round_trip(struct schedule *s, bool split)
{
	char *text = torch_csv_format(s, NULL, split);
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

/* text -> parse -> format, and text -> parse -> schedule JSON -> parse ->
 * format, both byte for byte; the backward style as convert chooses it
 * (split when the schedule has a W). Returns the parsed schedule. */
static struct schedule *bytes_round_trip(const char *name, const char *text)
{
	struct schedule *s = NULL, *back = NULL;
	struct error err = {{0}};
	if (torch_csv_parse(text, "bytes.csv", &s, &err))
		fail_msg("%s: %s", name, err.msg);
	char *out = torch_csv_format(s, NULL, schedule_has_w(s));
	if (strcmp(out, text))
		fail_msg("%s: CSV -> CSV wrote\n%s\nexpected\n%s", name, out, text);
	free(out);
	json_t *obj = json_object();
	schedule_json_set(obj, s);
	char *json = json_dumps(obj, JSON_COMPACT);
	json_decref(obj);
	if (schedule_parse(json, "bytes.json", &back, &err))
		fail_msg("%s: %s\n%s", name, err.msg, json);
	out = torch_csv_format(back, NULL, schedule_has_w(back));
	if (strcmp(out, text))
		fail_msg("%s: CSV -> JSON -> CSV wrote\n%s\nexpected\n%s\nvia %s", name,
			 out, text, json);
	assert_true(schedule_equal(s, back));
	free(out);
	free(json);
	schedule_free(back);
	return s;
}

/* Hand-written files in torch's form round-trip byte for byte. */
static void test_round_trip_bytes(void **state)
{
	static const char *const texts[] = {
		"0F0,,0F1,0I0,0W0,0I1,0W1\n,1F0,1I0,1W0,1F1,1I1,1W1,,\n",
		"0F0,0B0\r\n,1F0,1B0\r\n",
		"0F0,0B0\n\n\"\"\n,,,3F0,3B0\n",
		"0UNSHARD,0F0,0SEND_F0,0RECV_B0,0I0,0W0,0RESHARD,0REDUCE_GRAD\n"
		"1RECV_F0,1F0,1I0,1SEND_B0,1W0\n",
		"0F0,0F1,(0F2;3B0)OVERLAP_F_B,,0B1,0I2,0W2\n"
		"1F0,3F1,3I1,3W1,(1F1;2I0)OVERLAP_F_B,1B0,2W0\n",
		"(0F0;1B0)OVERLAP_F_B,,0B0\n",
		"12F345,12SEND_F345,,16383RECV_B1048575,16383REDUCE_GRAD\n",
		",\n",
		"\n",
		/* fuzz_torch_csv's finding: a rank whose only cell runs no op has
		 * no ops to step through (clang's UBSan, in scripts/fuzz.sh: zero
		 * offset applied to a null pointer) */
		"7REDUCE_GRAD\n",
		"0SEND_F0\n1F0\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		char name[32];
		snprintf(name, sizeof name, "text %zu", i);
		schedule_free(bytes_round_trip(name, texts[i]));
	}
}

/*
 * ScheduleInterleavedZeroBubble, 2 ranks x 2 stages, m = 2, by hand from
 * torch's algorithm: g = 2; rank 0 warms up with 3 forwards (0F0 0F1 2F0)
 * and 1 idle step, then 2F1 2I0 2W0 and the cool-down 2I1 2W1 0I0 0W0 0I1
 * 0W1; rank 1 starts with 1 idle step and 2 forwards, then F, I and, from
 * its second backward on, the W of the backward before; then 1I0 3W1 1I1
 * 1W0 and the last W. The bubble pass adds nothing.
 */
static const char zb_2x2_m2[] =
	"0F0,0F1,2F0,,2F1,2I0,2W0,2I1,2W1,0I0,0W0,0I1,0W1\n"
	",1F0,1F1,3F0,3I0,3F1,3I1,3W0,1I0,3W1,1I1,1W0,1W1\n";

static void check_vector(const char *name, const struct tref *t)
{
	for (int crlf = 0; crlf < 2; crlf++) {
		char *text = tref_csv(t, crlf ? "\r\n" : "\n"), label[96];
		snprintf(label, sizeof label, "%s%s", name, crlf ? " crlf" : "");
		struct schedule *s = bytes_round_trip(label, text);
		struct schedule *want = tref_schedule(t, schedule_has_w(s));
		if (!schedule_equal(s, want))
			fail_msg("%s: orders differ from torch's", label);
		schedule_free(want);
		schedule_free(s);
		free(text);
	}
}

/* torch's schedules as its _dump_csv writes them (tests/torch_ref.h)
 * round-trip byte for byte, with "\n" (its artifacts) and "\r\n" (Python's
 * csv default), and read as torch's compute orders. */
static void test_torch_vectors(void **state)
{
	char name[96];
	/* the reference generator against the hand derivation */
	struct tref *t = tref_interleaved(2, 2, 2, true);
	char *text = tref_csv(t, "\n");
	assert_string_equal(text, zb_2x2_m2);
	free(text);
	free(t);
	/* the golden CSV of torch's tests: 2 ranks x 2 stages, m = 8, 386
	 * bytes with two idle cells (rank 0 step 3, rank 1 step 0) */
	t = tref_interleaved(2, 2, 8, true);
	text = tref_csv(t, "\n");
	assert_int_equal(strlen(text), 386);
	assert_true(!strncmp(text, "0F0,0F1,2F0,,2F1,2I0,", 21));
	assert_contains(text, "\n,1F0,1F1,3F0,3I0,");
	assert_int_equal(t->len[0], 49);   /* 48 ops and an idle step each */
	assert_int_equal(t->len[1], 49);
	free(text);
	check_vector("zb 2x2 m=8", t);
	free(t);

	for (int p = 1; p <= 4; p++)
		for (int v = 1; v <= 3; v++)
			for (int m = 1; m <= 12; m++)
				for (int zb = 0; zb < 2; zb++) {
					t = tref_interleaved(p, v, m, zb);
					if (!t)
						continue;
					snprintf(name, sizeof name, "%s p=%d v=%d m=%d",
						 zb ? "interleaved-zb" : "interleaved-1f1b", p, v, m);
					check_vector(name, t);
					free(t);
				}
	for (int p = 1; p <= 4; p++)
		for (int v = 1; v <= 2; v++)
			for (int m = 1; m <= 4; m++) {
				t = tref_looped_bfs(p, v, m);
				snprintf(name, sizeof name, "looped-bfs p=%d v=%d m=%d", p, v, m);
				check_vector(name, t);
				free(t);
			}
	for (int p = 1; p <= 4; p++)
		for (int m = 1; m <= 9; m++) {
			t = tref_zbv(p, m);
			snprintf(name, sizeof name, "zbv p=%d m=%d", p, m);
			check_vector(name, t);
			free(t);
		}
	for (int p = 1; p <= 4; p++)
		for (int m = 2 * p; m <= 2 * p + 3; m++) {
			t = tref_dualpipev(p, m);
			snprintf(name, sizeof name, "dualpipev p=%d m=%d", p, m);
			check_vector(name, t);
			free(t);
		}
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
		cmocka_unit_test(test_parse_full_backward),
		cmocka_unit_test(test_parse_overlap),
		cmocka_unit_test(test_parse_layout),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_parse_comm_suffix_checked),
		cmocka_unit_test(test_format_text),
		cmocka_unit_test(test_format_aligned),
		cmocka_unit_test(test_format_composites),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_bytes),
		cmocka_unit_test(test_torch_vectors),
		cmocka_unit_test(test_read_missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
