/*
 * Tests for sched/schedule.c: construction, comparison, the layout of a
 * torch CSV, the JSON form {"schedule": [[["F",0,0], ...], ...]} of
 * docs/formats.md with its optional "torch_csv" key, and the shape check
 * against an instance.
 */
#include "test_helpers.h"

#include <jansson.h>

#include "sched/instance.h"
#include "sched/schedule.h"
#include "sched/family.h"
#include "sched/sim.h"

/* One op as a literal, for tables. */
struct lit {
	int kind, stage, mb;
};

/* Build a schedule from rows of literal ops; each row ends at kind -1. */
static struct schedule *build(int devices, const struct lit *const *rows)
{
	struct schedule *s = schedule_new(devices);
	assert_non_null(s);
	for (int d = 0; d < devices; d++)
		for (const struct lit *o = rows[d]; o->kind >= 0; o++)
			assert_int_equal(schedule_push(s, d, o->kind, o->stage,
						       o->mb),
					 STATUS_OK);
	return s;
}

#define END {-1, 0, 0}

static void assert_op(const struct schedule *s, int d, int i, int kind,
		      int stage, int mb)
{
	if (i >= s->rows[d].len)
		fail_msg("device %d has %d ops, wanted op %d", d, s->rows[d].len, i);
	const struct op *o = &s->rows[d].ops[i];
	if (o->kind != kind || o->stage != stage || o->mb != mb)
		fail_msg("device %d op %d: (%d,%d,%d), expected (%d,%d,%d)", d,
			 i, o->kind, o->stage, o->mb, kind, stage, mb);
}

static void test_new_push_free(void **state)
{
	struct schedule *s = schedule_new(3);
	assert_non_null(s);
	assert_int_equal(s->devices, 3);
	for (int d = 0; d < 3; d++)
		assert_int_equal(s->rows[d].len, 0);
	assert_int_equal(schedule_nops(s), 0);
	assert_false(schedule_has_w(s));

	assert_int_equal(schedule_push(s, 2, OP_F, 2, 0), STATUS_OK);
	assert_int_equal(schedule_push(s, 0, OP_F, 0, 0), STATUS_OK);
	assert_int_equal(schedule_push(s, 2, OP_B, 2, 0), STATUS_OK);
	assert_int_equal(s->rows[0].len, 1);
	assert_int_equal(s->rows[1].len, 0);
	assert_int_equal(s->rows[2].len, 2);
	assert_op(s, 0, 0, OP_F, 0, 0);
	assert_op(s, 2, 0, OP_F, 2, 0);
	assert_op(s, 2, 1, OP_B, 2, 0);
	assert_int_equal(schedule_nops(s), 3);
	assert_false(schedule_has_w(s));

	assert_int_equal(schedule_push(s, 1, OP_W, 1, 4), STATUS_OK);
	assert_true(schedule_has_w(s));
	assert_int_equal(schedule_nops(s), 4);
	schedule_free(s);
}

/* Rows grow past any initial capacity and keep their order. */
static void test_push_many(void **state)
{
	struct schedule *s = schedule_new(2);
	for (int j = 0; j < 1000; j++) {
		assert_int_equal(schedule_push(s, 1, OP_F, 1, j), STATUS_OK);
		assert_int_equal(schedule_push(s, 1, OP_B, 1, j), STATUS_OK);
	}
	assert_int_equal(s->rows[1].len, 2000);
	assert_int_equal(s->rows[0].len, 0);
	assert_int_equal(schedule_nops(s), 2000);
	for (int j = 0; j < 1000; j++) {
		assert_op(s, 1, 2 * j, OP_F, 1, j);
		assert_op(s, 1, 2 * j + 1, OP_B, 1, j);
	}
	schedule_free(s);
}

static void test_free_null(void **state)
{
	schedule_free(NULL);   /* must not crash */
}

static void test_equal(void **state)
{
	static const struct lit a0[] = {{OP_F, 0, 0}, {OP_B, 0, 0}, END};
	static const struct lit a1[] = {{OP_F, 1, 0}, {OP_B, 1, 0}, {OP_W, 1, 0}, END};
	static const struct lit none[] = {END};
	static const struct lit kind[] = {{OP_F, 1, 0}, {OP_B, 1, 0}, {OP_B, 1, 0}, END};
	static const struct lit stage[] = {{OP_F, 1, 0}, {OP_B, 2, 0}, {OP_W, 1, 0}, END};
	static const struct lit mb[] = {{OP_F, 1, 0}, {OP_B, 1, 0}, {OP_W, 1, 1}, END};
	static const struct lit shorter[] = {{OP_F, 1, 0}, {OP_B, 1, 0}, END};
	static const struct lit order[] = {{OP_B, 1, 0}, {OP_F, 1, 0}, {OP_W, 1, 0}, END};
	static const struct {
		const char *name;
		int devices;
		const struct lit *rows[3];
		int equal;   /* to {a0, a1} */
	} cases[] = {
		{"same", 2, {a0, a1}, 1},
		{"extra empty device", 3, {a0, a1, none}, 0},
		{"rows swapped", 2, {a1, a0}, 0},
		{"kind differs", 2, {a0, kind}, 0},
		{"stage differs", 2, {a0, stage}, 0},
		{"micro-batch differs", 2, {a0, mb}, 0},
		{"row shorter", 2, {a0, shorter}, 0},
		{"order differs", 2, {a0, order}, 0},
		{"one row empty", 2, {a0, none}, 0},
	};
	static const struct lit *const ref_rows[] = {a0, a1};
	struct schedule *ref = build(2, ref_rows);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct schedule *s = build(cases[i].devices, cases[i].rows);
		if (schedule_equal(ref, s) != cases[i].equal ||
		    schedule_equal(s, ref) != cases[i].equal)
			fail_msg("case '%s': schedule_equal should be %d",
				 cases[i].name, cases[i].equal);
		schedule_free(s);
	}
	assert_true(schedule_equal(ref, ref));
	schedule_free(ref);

	struct schedule *e1 = schedule_new(2), *e2 = schedule_new(2);
	assert_true(schedule_equal(e1, e2));
	schedule_free(e1);
	schedule_free(e2);
}

/* The docs/formats.md example, in both directions. */
static const char formats_schedule[] =
	"{\"schedule\": [[[\"F\",0,0],[\"F\",0,1],[\"B\",0,0]],"
	" [[\"F\",1,0],[\"B\",1,0],[\"F\",1,1]]]}";

static void test_parse_formats_example(void **state)
{
	struct schedule *s = NULL;
	struct error err = {{0}};
	if (schedule_parse(formats_schedule, "test.json", &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s->devices, 2);
	assert_int_equal(s->rows[0].len, 3);
	assert_int_equal(s->rows[1].len, 3);
	assert_op(s, 0, 0, OP_F, 0, 0);
	assert_op(s, 0, 1, OP_F, 0, 1);
	assert_op(s, 0, 2, OP_B, 0, 0);
	assert_op(s, 1, 0, OP_F, 1, 0);
	assert_op(s, 1, 1, OP_B, 1, 0);
	assert_op(s, 1, 2, OP_F, 1, 1);
	assert_int_equal(schedule_nops(s), 6);
	assert_false(schedule_has_w(s));
	schedule_free(s);
}

static void test_to_json(void **state)
{
	static const struct lit r0[] = {{OP_F, 0, 0}, {OP_F, 0, 1}, {OP_B, 0, 0}, END};
	static const struct lit r1[] = {{OP_F, 1, 0}, {OP_B, 1, 0}, {OP_W, 1, 0}, END};
	static const struct lit none[] = {END};
	static const struct lit *const rows[] = {r0, r1, none};
	struct schedule *s = build(3, rows);
	json_t *j = schedule_to_json(s);
	assert_non_null(j);
	char *text = json_dumps(j, JSON_COMPACT);
	assert_string_equal(text, "[[[\"F\",0,0],[\"F\",0,1],[\"B\",0,0]],"
				  "[[\"F\",1,0],[\"B\",1,0],[\"W\",1,0]],[]]");
	free(text);
	json_decref(j);
	schedule_free(s);
}

/* to_json, wrapped as {"schedule": ...}, dumped and parsed gives back an
 * equal schedule, including a device with no ops. */
static void test_round_trip(void **state)
{
	static const struct lit r0[] = {{OP_F, 0, 0}, {OP_F, 0, 1}, {OP_B, 0, 0},
					{OP_W, 0, 0}, {OP_B, 0, 1}, {OP_W, 0, 1}, END};
	static const struct lit none[] = {END};
	static const struct lit r2[] = {{OP_F, 5, 1048575}, {OP_B, 16383, 7}, END};
	static const struct lit *const rows[] = {r0, none, r2};
	struct schedule *s = build(3, rows);
	json_t *root = json_pack("{s:o, s:i}", "schedule", schedule_to_json(s),
				 "makespan", 42);
	char *text = json_dumps(root, JSON_INDENT(2));
	json_decref(root);

	struct schedule *back = NULL;
	struct error err = {{0}};
	if (schedule_parse(text, "round.json", &back, &err))
		fail_msg("%s\n%s", err.msg, text);
	free(text);
	assert_true(schedule_equal(s, back));
	assert_int_equal(back->rows[1].len, 0);
	assert_int_equal(schedule_nops(back), 8);
	assert_true(schedule_has_w(back));
	schedule_free(back);
	schedule_free(s);
}

/* A command's --json result carries other keys beside "schedule". */
static void test_parse_result_object(void **state)
{
	const char *text =
		"{\"status\": \"optimal\", \"makespan\": 12, \"span\": 11,"
		" \"peak_memory\": [2, 1], \"bubble_ratio\": 0.25,"
		" \"schedule\": [[[\"F\",0,0],[\"B\",0,0]], [[\"F\",1,0],[\"B\",1,0],"
		" [\"W\",1,0]]], \"certified\": true, \"solver\": \"cbc\"}";
	struct schedule *s = NULL;
	struct error err = {{0}};
	if (schedule_parse(text, "result.json", &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s->devices, 2);
	assert_op(s, 0, 1, OP_B, 0, 0);
	assert_op(s, 1, 2, OP_W, 1, 0);
	schedule_free(s);
}

/* schedule_from_json takes the object or the bare list under "schedule". */
static void test_from_json_forms(void **state)
{
	json_error_t jerr;
	json_t *obj = json_loads(formats_schedule, 0, &jerr);
	assert_non_null(obj);
	struct schedule *a = NULL, *b = NULL;
	struct error err = {{0}};
	assert_int_equal(schedule_from_json(obj, "obj", &a, &err), STATUS_OK);
	assert_int_equal(schedule_from_json(json_object_get(obj, "schedule"),
					    "list", &b, &err),
			 STATUS_OK);
	assert_true(schedule_equal(a, b));
	assert_int_equal(a->devices, 2);
	schedule_free(a);
	schedule_free(b);
	json_decref(obj);
}

/* "I", torch's name for the input-gradient backward, reads as B. */
static void test_parse_kind_i(void **state)
{
	struct schedule *s = NULL;
	struct error err = {{0}};
	if (schedule_parse("{\"schedule\": [[[\"F\",0,0],[\"I\",0,0],[\"W\",0,0]]]}",
			   "test.json", &s, &err))
		fail_msg("%s", err.msg);
	assert_op(s, 0, 0, OP_F, 0, 0);
	assert_op(s, 0, 1, OP_B, 0, 0);
	assert_op(s, 0, 2, OP_W, 0, 0);
	json_t *j = schedule_to_json(s);
	char *text = json_dumps(j, JSON_COMPACT);
	assert_string_equal(text, "[[[\"F\",0,0],[\"B\",0,0],[\"W\",0,0]]]");
	free(text);
	json_decref(j);
	schedule_free(s);
}

/* The layout: cells hold each row's ops, copies keep it, and it stops
 * describing the schedule when a row changes. */
static void test_layout(void **state)
{
	static const struct lit r0[] = {{OP_F, 0, 0}, {OP_B, 0, 0}, {OP_W, 0, 0}, END};
	static const struct lit r1[] = {{OP_F, 1, 0}, END};
	static const struct lit *const rows[] = {r0, r1};
	struct schedule *s = build(2, rows);
	assert_null(s->layout);
	assert_false(schedule_layout_ok(s));
	assert_int_equal(schedule_layout_new(s), STATUS_OK);
	assert_false(schedule_layout_ok(s));   /* no cells yet: 0 of 3 ops */
	schedule_cell_push(s, 0, 1, NULL);
	schedule_cell_push(s, 0, 0, "0SEND_F0");
	schedule_cell_push(s, 0, 0, "");
	schedule_cell_push(s, 0, 2, NULL);
	assert_false(schedule_layout_ok(s));   /* device 1: 0 of 1 */
	schedule_cell_push(s, 1, 0, NULL);
	schedule_cell_push(s, 1, 1, NULL);
	assert_true(schedule_layout_ok(s));
	assert_int_equal(s->layout->rows[0].len, 4);
	assert_string_equal(s->layout->rows[0].cells[1].text, "0SEND_F0");
	assert_int_equal(s->layout->rows[0].cells[3].ops, 2);

	struct schedule *c = schedule_copy(s);
	assert_true(schedule_layout_ok(c));
	assert_true(schedule_equal(s, c));
	assert_int_equal(c->layout->rows[1].len, 2);
	assert_int_equal(c->layout->rows[1].cells[1].ops, 1);
	assert_string_equal(c->layout->rows[0].cells[1].text, "0SEND_F0");

	schedule_push(c, 1, OP_B, 1, 0);
	assert_false(schedule_layout_ok(c));
	assert_true(schedule_layout_ok(s));
	schedule_free(c);
	schedule_free(s);
}

/* schedule_json_set writes "torch_csv" only for a schedule with a layout
 * that matches, and it reads back; hand-written expected text. */
static void test_layout_json(void **state)
{
	const char *text =
		"{\"schedule\": [[[\"F\",0,0],[\"B\",0,0],[\"W\",0,0]], [[\"F\",1,0]]],"
		" \"torch_csv\": {\"cells\": [[1, 0, \"0SEND_F0\", 2], [0, 1, \"1REDUCE_GRAD\"]],"
		" \"crlf\": true}}";
	struct schedule *s = NULL;
	struct error err = {{0}};
	if (schedule_parse(text, "test.json", &s, &err))
		fail_msg("%s", err.msg);
	assert_true(schedule_layout_ok(s));
	assert_true(s->layout->crlf);
	assert_int_equal(s->layout->rows[0].len, 4);
	assert_int_equal(s->layout->rows[0].cells[1].ops, 0);
	assert_string_equal(s->layout->rows[0].cells[1].text, "");
	assert_string_equal(s->layout->rows[0].cells[2].text, "0SEND_F0");
	assert_int_equal(s->layout->rows[0].cells[3].ops, 2);
	assert_string_equal(s->layout->rows[1].cells[2].text, "1REDUCE_GRAD");

	json_t *obj = json_object();
	schedule_json_set(obj, s);
	char *out = json_dumps(obj, JSON_COMPACT);
	assert_string_equal(out,
		"{\"schedule\":[[[\"F\",0,0],[\"B\",0,0],[\"W\",0,0]],[[\"F\",1,0]]],"
		"\"torch_csv\":{\"cells\":[[1,0,\"0SEND_F0\",2],[0,1,\"1REDUCE_GRAD\"]],"
		"\"crlf\":true}}");
	free(out);
	json_decref(obj);

	/* crlf false is left out; no layout, no key (the JSON of before) */
	s->layout->crlf = false;
	obj = json_object();
	schedule_json_set(obj, s);
	out = json_dumps(json_object_get(obj, "torch_csv"), JSON_COMPACT);
	assert_string_equal(out, "{\"cells\":[[1,0,\"0SEND_F0\",2],[0,1,\"1REDUCE_GRAD\"]]}");
	free(out);
	json_decref(obj);
	schedule_push(s, 1, OP_B, 1, 0);
	obj = json_object();
	schedule_json_set(obj, s);
	out = json_dumps(obj, JSON_COMPACT);
	assert_string_equal(out,
		"{\"schedule\":[[[\"F\",0,0],[\"B\",0,0],[\"W\",0,0]],[[\"F\",1,0],[\"B\",1,0]]]}");
	free(out);
	json_decref(obj);
	schedule_free(s);
}

struct reject_case {
	const char *name;
	const char *text;
	const char *where;   /* substring: the place named */
	const char *what;    /* substring: what is wrong */
};

static const struct reject_case reject_cases[] = {
	{"not an object", "[[[\"F\",0,0]]]", "schedule 'test.json'", "object"},
	{"missing schedule", "{\"makespan\": 3}", "schedule", "missing"},
	{"schedule not a list", "{\"schedule\": 5}", "schedule", "list"},
	{"schedule an object", "{\"schedule\": {\"0\": []}}", "schedule", "list"},
	{"no devices", "{\"schedule\": []}", "schedule", "list"},
	{"bad kind X", "{\"schedule\": [[[\"X\",0,0]]]}", "schedule[0][0]", "kind"},
	{"lower-case kind", "{\"schedule\": [[[\"f\",0,0]]]}", "schedule[0][0]", "kind"},
	{"lower-case torch kind i", "{\"schedule\": [[[\"i\",0,0]]]}", "schedule[0][0]", "kind"},
	{"kind not a string", "{\"schedule\": [[[0,0,0]]]}", "schedule[0][0]", "kind"},
	{"negative stage", "{\"schedule\": [[[\"F\",-1,0]]]}", "schedule[0][0]",
	 "stage"},
	{"negative mb", "{\"schedule\": [[[\"F\",0,0],[\"B\",0,-2]]]}",
	 "schedule[0][1]", "micro-batch"},
	{"non-integer mb", "{\"schedule\": [[[\"F\",0,1.5]]]}", "schedule[0][0]",
	 "micro-batch"},
	{"string stage", "{\"schedule\": [[[\"F\",\"0\",0]]]}", "schedule[0][0]",
	 "stage"},
	{"stage beyond int", "{\"schedule\": [[[\"F\",4294967296,0]]]}",
	 "schedule[0][0]", "range"},
	{"op a pair", "{\"schedule\": [[[\"F\",0]]]}", "schedule[0][0]",
	 "[kind, stage, micro-batch]"},
	{"op of four", "{\"schedule\": [[[\"F\",0,0,0]]]}", "schedule[0][0]",
	 "the fourth entry may only be \"recompute\""},
	{"F marked recompute", "{\"schedule\": [[[\"F\",0,0,\"recompute\"]]]}", "schedule[0][0]",
	 "only a B can be marked"},
	{"op of five", "{\"schedule\": [[[\"B\",0,0,\"recompute\",1]]]}", "schedule[0][0]",
	 "[kind, stage, micro-batch]"},
	{"op an object", "{\"schedule\": [[{\"kind\":\"F\"}]]}", "schedule[0][0]",
	 "[kind, stage, micro-batch]"},
	{"row not a list", "{\"schedule\": [[[\"F\",0,0]], 5]}", "schedule[1]",
	 "list of ops"},
	{"bad op in second row",
	 "{\"schedule\": [[[\"F\",0,0]], [[\"F\",1,0],[\"Q\",1,0]]]}",
	 "schedule[1][1]", "kind"},
	{"malformed JSON",
	 "{\"schedule\": [\n  [[\"F\", 0, 0]],\n  [[\"F\", 1, 0] [\"B\", 1, 0]]\n]}\n",
	 "line 3", "column"},
	{"duplicate key",
	 "{\"schedule\": [[[\"F\",0,0]]], \"schedule\": [[[\"B\",0,0]]]}",
	 "schedule", "duplicate"},
	/* the layout (torch_csv): F(0,0), B(0,0) on device 0, F(1,0) on 1 */
#define TWO_ROWS "{\"schedule\": [[[\"F\",0,0],[\"B\",0,0]], [[\"F\",1,0]]], "
	{"torch_csv not an object", TWO_ROWS "\"torch_csv\": [1]}", "torch_csv",
	 "object"},
	{"torch_csv unknown key", TWO_ROWS "\"torch_csv\": {\"cells\": [[2],[1]], \"steps\": 1}}",
	 "torch_csv.steps", "unknown key"},
	{"cells missing", TWO_ROWS "\"torch_csv\": {\"crlf\": true}}", "torch_csv.cells",
	 "one list of cells per device"},
	{"cells one row short", TWO_ROWS "\"torch_csv\": {\"cells\": [[2]]}}",
	 "torch_csv.cells", "per device"},
	{"row not a list", TWO_ROWS "\"torch_csv\": {\"cells\": [[2], 1]}}",
	 "torch_csv.cells[1]", "list of cells"},
	{"negative count", TWO_ROWS "\"torch_csv\": {\"cells\": [[1,-1,1],[1]]}}",
	 "torch_csv.cells[0][1]", "op count"},
	{"count a real", TWO_ROWS "\"torch_csv\": {\"cells\": [[1.5,1],[1]]}}",
	 "torch_csv.cells[0][0]", "op count"},
	{"compute action as text", TWO_ROWS "\"torch_csv\": {\"cells\": [[1,1],[\"1F0\"]]}}",
	 "torch_csv.cells[1][0]", "op count"},
	{"unknown action", TWO_ROWS "\"torch_csv\": {\"cells\": [[2],[\"1SEND_X0\",1]]}}",
	 "torch_csv.cells[1][0]", "1SEND_X0"},
	{"too few ops", TWO_ROWS "\"torch_csv\": {\"cells\": [[1,0],[1]]}}",
	 "torch_csv.cells[0]", "hold 1 ops, the device runs 2"},
	{"too many ops", TWO_ROWS "\"torch_csv\": {\"cells\": [[2],[1,1]]}}",
	 "torch_csv.cells[1]", "hold 2 ops, the device runs 1"},
	{"crlf not a boolean", TWO_ROWS "\"torch_csv\": {\"cells\": [[2],[1]], \"crlf\": 1}}",
	 "torch_csv.crlf", "true or false"},
#undef TWO_ROWS
};

static void test_parse_rejects(void **state)
{
	for (size_t i = 0; i < sizeof reject_cases / sizeof *reject_cases; i++) {
		const struct reject_case *rc = &reject_cases[i];
		struct schedule *s = (struct schedule *)&s;
		struct error err = {{0}};
		if (schedule_parse(rc->text, "test.json", &s, &err) != STATUS_ERROR) {
			schedule_free(s);
			fail_msg("case '%s': accepted", rc->name);
		}
		if (s)
			fail_msg("case '%s': *out not NULL after an error", rc->name);
		check_error_message(rc->name, err.msg, "schedule 'test.json'", rc->where,
				    rc->what);
	}
}

static void test_read_missing_file(void **state)
{
	const char *path = "/nonexistent/no-such-schedule.json";
	struct schedule *s = (struct schedule *)&s;
	struct error err = {{0}};
	assert_int_equal(schedule_read(path, &s, &err), STATUS_ERROR);
	assert_null(s);
	assert_contains(err.msg, path);
}

/*
 * The shape check against an instance: 2 devices, 2 micro-batches, split
 * backward (linear, so stage l runs on device l). Each case is the full
 * 12-op schedule edited to look like one for another instance; the message
 * names the first mismatch in the order devices, stages, micro-batches, W.
 */
static void test_check_shape(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 1, \"B\": 1, \"W\": 1}}");
	static const struct lit full0[] = {{OP_F, 0, 0}, {OP_F, 0, 1}, {OP_B, 0, 0},
					   {OP_W, 0, 0}, {OP_B, 0, 1}, {OP_W, 0, 1}, END},
				full1[] = {{OP_F, 1, 0}, {OP_B, 1, 0}, {OP_W, 1, 0},
					   {OP_F, 1, 1}, {OP_B, 1, 1}, {OP_W, 1, 1}, END},
				short1[] = {{OP_F, 1, 0}, {OP_B, 1, 0}, {OP_W, 1, 0},
					    {OP_F, 1, 1}, {OP_B, 1, 1}, END},
				fused1[] = {{OP_F, 1, 0}, {OP_B, 1, 0}, {OP_F, 1, 1}, {OP_B, 1, 1}, END},
				mb3[] = {{OP_F, 1, 0}, {OP_F, 1, 2}, END},
				mb1[] = {{OP_F, 0, 0}, {OP_B, 0, 0}, {OP_W, 0, 0}, END},
				mb1b[] = {{OP_F, 1, 0}, {OP_B, 1, 0}, {OP_W, 1, 0}, END},
				stage2[] = {{OP_F, 2, 0}, END},
				fused0[] = {{OP_F, 0, 0}, {OP_F, 0, 1}, {OP_B, 0, 0}, {OP_B, 0, 1}, END},
				none[] = {END};
	static const struct {
		const char *name;
		int devices;
		const struct lit *rows[3];
		const char *want;   /* NULL: the shape fits */
	} cases[] = {
		{"fits", 2, {full0, full1}, NULL},
		/* a missing op is the simulator's business, not a mismatch */
		{"one op short", 2, {full0, short1}, NULL},
		{"three rows", 3, {full0, full1, none}, "the schedule has 3 device rows, the instance 2 devices"},
		{"one row", 1, {full0}, "the schedule has 1 device rows, the instance 2 devices"},
		{"stage 2", 2, {full0, stage2}, "the schedule has 3 stages, the instance 2"},
		{"one stage", 2, {full0, none}, "the schedule has 1 stages, the instance 2"},
		{"micro-batch 2", 2, {full0, mb3}, "the schedule has 3 micro-batches, the instance 2"},
		{"one micro-batch", 2, {mb1, mb1b}, "the schedule has 1 micro-batches, the instance 2"},
		{"fused", 2, {fused0, fused1}, "the schedule has no W ops, the instance splits the backward"},
		{"empty", 2, {none, none}, "the schedule has 0 stages, the instance 2"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct schedule *s = build(cases[i].devices, cases[i].rows);
		struct error err = {{0}};
		enum status st = schedule_check_shape(in, s, &err);
		if (!cases[i].want && st != STATUS_OK)
			fail_msg("case '%s': refused: %s", cases[i].name, err.msg);
		if (cases[i].want && st != STATUS_ERROR)
			fail_msg("case '%s': accepted", cases[i].name);
		if (cases[i].want && !strstr(err.msg, cases[i].want))
			fail_msg("case '%s': '%s' does not say '%s'", cases[i].name, err.msg,
				 cases[i].want);
		schedule_free(s);
	}
	instance_free(in);

	/* a fused instance: a W op is the mismatch */
	in = parse_instance_ok("{\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 1, \"B\": 1}}");
	struct schedule *s = build(2, (const struct lit *const[]){fused0, fused1});
	assert_int_equal(schedule_check_shape(in, s, NULL), STATUS_OK);
	schedule_free(s);
	s = build(2, (const struct lit *const[]){fused0, full1});
	struct error err = {{0}};
	assert_int_equal(schedule_check_shape(in, s, &err), STATUS_ERROR);
	assert_contains(err.msg, "the schedule has W ops, the instance fuses the backward");
	schedule_free(s);
	instance_free(in);
}

/* A copy keeps the overlapped pairs (GA and solve return copies of seeds
 * and families: dualpipev lost its pairs that way before, 1074050 ->
 * 1112436 us on a GPT 1.5B V instance with overlap 0.5). */
static void test_copy_keeps_pairs(void **state)
{
	(void)state;
	struct schedule *s = schedule_new(1);
	schedule_push(s, 0, OP_F, 0, 0);
	schedule_push(s, 0, OP_F, 0, 1);
	schedule_push(s, 0, OP_B, 0, 0);
	assert_int_equal(schedule_join_last(s, 0), STATUS_OK);
	schedule_push(s, 0, OP_B, 0, 1);
	struct schedule *c = schedule_copy(s);
	assert_true(c->rows[0].ops[2].with_prev);
	assert_false(c->rows[0].ops[1].with_prev || c->rows[0].ops[3].with_prev);
	assert_true(schedule_equal(s, c));
	c->rows[0].ops[2].with_prev = false;
	assert_false(schedule_equal(s, c));
	assert_true(schedule_same_orders(s, c));
	schedule_free(c);
	schedule_free(s);
}

/* A recomputed B: ["B", 0, 1, "recompute"] in JSON, both ways; copy and
 * equality keep the mark. */
static void test_recompute_mark(void **state)
{
	(void)state;
	struct schedule *s = schedule_new(1), *back = NULL, *c;
	struct error err;
	schedule_push(s, 0, OP_F, 0, 0);
	schedule_push(s, 0, OP_F, 0, 1);
	schedule_push(s, 0, OP_B, 0, 0);
	schedule_push(s, 0, OP_B, 0, 1);
	s->rows[0].ops[3].recompute = true;
	assert_true(schedule_has_recompute(s));
	json_t *j = schedule_to_json(s);
	char *text = json_dumps(j, JSON_COMPACT);
	assert_string_equal(text, "[[[\"F\",0,0],[\"F\",0,1],[\"B\",0,0],[\"B\",0,1,\"recompute\"]]]");
	json_t *obj = json_pack("{s:O}", "schedule", j);
	char *whole = json_dumps(obj, 0);
	assert_int_equal(schedule_parse(whole, "t", &back, &err), STATUS_OK);
	assert_true(back->rows[0].ops[3].recompute);
	assert_false(back->rows[0].ops[2].recompute);
	assert_true(schedule_equal(s, back));
	c = schedule_copy(s);
	assert_true(c->rows[0].ops[3].recompute);
	c->rows[0].ops[3].recompute = false;
	assert_false(schedule_equal(s, c));
	assert_true(schedule_same_orders(s, c));   /* marks aside */
	assert_false(schedule_has_recompute(c));
	free(text);
	free(whole);
	json_decref(j);
	json_decref(obj);
	schedule_free(c);
	schedule_free(back);
	schedule_free(s);
}

/* The row's ops as text, "F0.0 F0.1 B0.0 ...". */
static void row_text(const struct sched_row *r, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < r->len && at < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%s%s%d.%d", i ? " " : "",
				       op_kind_name(r->ops[i].kind), r->ops[i].stage, r->ops[i].mb);
}

/*
 * schedule_defer_weights by hand: 2 devices, F +2, B -1, W -1, limit 4
 * (two activations), 3 micro-batches, each W right after its B.
 * Device 0: F0.0 F0.1 B0.0 W0.0 F0.2 B0.1 W0.1 B0.2 W0.2. Before F0.2 the
 * memory without W0.0 would be 2 + 2 - 1 + 2 = 5 > 4, so W0.0 goes in
 * first (4); W0.1 and W0.2 wait to the end. Device 1: F1.0 B1.0 W1.0 ...:
 * before F1.1 the memory is 1 (+2 = 3), before F1.2 it is 2 (+2 = 4),
 * both fit: every W goes to the end. With upto 1, device 1's row is kept.
 * Without W, or with a W that takes memory, it does not apply.
 */
static void test_defer_weights(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"name\":\"dw\",\"devices\":2,\"microbatches\":3,"
		"\"cost\":{\"F\":1,\"B\":1,\"W\":1},"
		"\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":4}}");
	struct schedule *s = NULL, *d;
	struct error err = {{0}};
	if (schedule_parse("{\"schedule\":["
			   "[[\"F\",0,0],[\"F\",0,1],[\"B\",0,0],[\"W\",0,0],[\"F\",0,2],"
			   "[\"B\",0,1],[\"W\",0,1],[\"B\",0,2],[\"W\",0,2]],"
			   "[[\"F\",1,0],[\"B\",1,0],[\"W\",1,0],[\"F\",1,1],[\"B\",1,1],"
			   "[\"W\",1,1],[\"F\",1,2],[\"B\",1,2],[\"W\",1,2]]]}",
			   "dw.json", &s, &err))
		fail_msg("%s", err.msg);
	assert_non_null(d = schedule_defer_weights(in, s, 2));
	char buf[256];
	row_text(&d->rows[0], buf, sizeof buf);
	assert_string_equal(buf, "F0.0 F0.1 B0.0 W0.0 F0.2 B0.1 B0.2 W0.1 W0.2");
	row_text(&d->rows[1], buf, sizeof buf);
	assert_string_equal(buf, "F1.0 B1.0 F1.1 B1.1 F1.2 B1.2 W1.0 W1.1 W1.2");
	schedule_free(d);
	assert_non_null(d = schedule_defer_weights(in, s, 1));   /* device 0's alone */
	row_text(&d->rows[0], buf, sizeof buf);
	assert_string_equal(buf, "F0.0 F0.1 B0.0 W0.0 F0.2 B0.1 B0.2 W0.1 W0.2");
	row_text(&d->rows[1], buf, sizeof buf);
	assert_string_equal(buf, "F1.0 B1.0 W1.0 F1.1 B1.1 W1.1 F1.2 B1.2 W1.2");
	schedule_free(d);
	instance_free(in);
	in = parse_instance_ok(   /* a W that takes memory back */
		"{\"name\":\"dw2\",\"devices\":2,\"microbatches\":3,"
		"\"cost\":{\"F\":1,\"B\":1,\"W\":1},"
		"\"memory\":{\"F\":1,\"B\":-2,\"W\":1,\"limit\":4}}");
	assert_null(schedule_defer_weights(in, s, 2));
	instance_free(in);
	schedule_free(s);
	in = parse_instance_ok("{\"name\":\"fu\",\"devices\":2,\"microbatches\":1,"
			       "\"cost\":{\"F\":1,\"B\":1}}");
	if (schedule_parse("{\"schedule\":[[[\"F\",0,0],[\"B\",0,0]],[[\"F\",1,0],[\"B\",1,0]]]}",
			   "fu.json", &s, &err))
		fail_msg("%s", err.msg);
	assert_null(schedule_defer_weights(in, s, 2));   /* no W */
	schedule_free(s);
	instance_free(in);
	(void)state;
}

/* schedule_defer_weights keeps every valid schedule valid and runs the same
 * ops: every family that is valid on split chains, V and interleaved
 * placements with memory limits, each deferred and re-simulated. */
static void test_defer_weights_valid(void **state)
{
	static const char *const inst[] = {
		"{\"name\":\"c\",\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":2,\"B\":3,\"W\":1},"
		"\"comm\":1,\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":8}}",
		"{\"name\":\"v\",\"devices\":3,\"microbatches\":6,\"chunks\":2,\"placement\":\"v\","
		"\"cost\":{\"F\":1,\"B\":2,\"W\":1},\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":8}}",
		"{\"name\":\"i\",\"devices\":2,\"microbatches\":4,\"chunks\":2,"
		"\"placement\":\"interleaved\",\"cost\":{\"F\":[1,2,1,3],\"B\":[2,2,1,1],"
		"\"W\":[1,1,2,1]},\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":10}}",
	};
	int checked = 0;
	for (size_t k = 0; k < sizeof inst / sizeof *inst; k++) {
		struct instance *in = parse_instance_ok(inst[k]);
		struct sim *sim = sim_new(in);
		for (int f = 0; f < family_count(); f++) {
			struct schedule *s = NULL, *d;
			struct error err = {{0}};
			struct sim_result r;
			if (family_run(family_at(f), in, &s, &err) || sim_run(sim, s, &r, NULL)) {
				schedule_free(s);
				continue;
			}
			assert_non_null(d = schedule_defer_weights(in, s, f % 2 ? in->devices : 1));
			if (sim_run(sim, d, &r, &err))
				fail_msg("%s on %s: deferred schedule invalid: %s",
					 family_at(f)->name, in->name, err.msg);
			for (int dv = 0; dv < in->devices; dv++)
				assert_int_equal(d->rows[dv].len, s->rows[dv].len);
			checked++;
			schedule_free(s);
			schedule_free(d);
		}
		sim_free(sim);
		instance_free(in);
	}
	assert_true(checked >= 6);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_push_free),
		cmocka_unit_test(test_push_many),
		cmocka_unit_test(test_free_null),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_parse_formats_example),
		cmocka_unit_test(test_to_json),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_result_object),
		cmocka_unit_test(test_from_json_forms),
		cmocka_unit_test(test_parse_kind_i),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_layout_json),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_read_missing_file),
		cmocka_unit_test(test_check_shape),
		cmocka_unit_test(test_copy_keeps_pairs),
		cmocka_unit_test(test_recompute_mark),
		cmocka_unit_test(test_defer_weights),
		cmocka_unit_test(test_defer_weights_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
