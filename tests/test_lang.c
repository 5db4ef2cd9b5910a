/*
 * The schedule language (sched/lang_parse.c, sched/lang_run.c): parsing, headers, evaluation,
 * emitted orders, and every parse and run-time rejection.
 *
 * Known answers come from docs/language.md and hand arithmetic: expected
 * device orders are written out op by op, line and column numbers are
 * counted by hand in the program texts (a tab counts as one column), and
 * expression values are worked out in the comments of the tables.
 *
 * Tests named * document defects in the language; each says where,
 * on what input, and what is expected versus what happens. Those that can
 * crash or hang run in a forked child so the other tests still run.
 */
#include "test_helpers.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sched/lang.h"
#include "sched/schedule.h"

#define SRC "test.sched"
#define MAXDEV 4

/* Not NULL: a failed parse or run must reset *out to NULL. */
static _Alignas(16) char pg_sentinel_storage[16];   /* opaque, never read */
static struct schedule sc_sentinel;
#define PG_SENTINEL ((struct program *)pg_sentinel_storage)

/* ---- instances ------------------------------------------------------------- */

/* Chain of 2 stages on 2 devices, split backward, 4 micro-batches. */
#define I_CHAIN2 "{\"name\":\"chain-2\",\"devices\":2,\"microbatches\":4," \
	"\"cost\":{\"F\":1,\"B\":1,\"W\":1}}"
/* The same, backward fused (no W). */
#define I_CHAIN2F "{\"name\":\"chain-2f\",\"devices\":2,\"microbatches\":4," \
	"\"cost\":{\"F\":1,\"B\":1}}"
/* One device, one micro-batch, split / fused. */
#define I_ONE1 "{\"name\":\"one-1\",\"devices\":1,\"microbatches\":1," \
	"\"cost\":{\"F\":1,\"B\":1,\"W\":1}}"
#define I_ONE1F "{\"name\":\"one-1f\",\"devices\":1,\"microbatches\":1," \
	"\"cost\":{\"F\":1,\"B\":1}}"
/* Chain of 4 on 4 devices, split, 8 micro-batches. */
#define I_CHAIN4 "{\"name\":\"chain-4\",\"devices\":4,\"microbatches\":8," \
	"\"cost\":{\"F\":1,\"B\":1,\"W\":1}}"
/* Interleaved, 2 devices x 2 chunks: device d runs stages d, d+2. */
#define I_INTER2 "{\"name\":\"inter-2x2\",\"devices\":2,\"microbatches\":4," \
	"\"chunks\":2,\"placement\":\"interleaved\",\"cost\":{\"F\":1,\"B\":1,\"W\":1}}"
/* The same with 2 micro-batches. */
#define I_INTER2M2 "{\"name\":\"inter-2x2-m2\",\"devices\":2,\"microbatches\":2," \
	"\"chunks\":2,\"placement\":\"interleaved\",\"cost\":{\"F\":1,\"B\":1,\"W\":1}}"
/* V, 2 devices x 2 chunks: device 0 runs 0, 3; device 1 runs 1, 2. */
#define I_V2 "{\"name\":\"v-2x2\",\"devices\":2,\"microbatches\":4," \
	"\"chunks\":2,\"placement\":\"v\",\"cost\":{\"F\":1,\"B\":1,\"W\":1}}"
/* Listed: stages 0..2 on devices 1, 0, 1 (device 0: stage 1; device 1:
 * stages 0 and 2). */
#define I_LIST2 "{\"name\":\"list-2\",\"devices\":2,\"microbatches\":4," \
	"\"placement\":[1,0,1],\"cost\":{\"F\":1,\"B\":1}}"
/* Listed: both stages on device 0, device 1 runs none. */
#define I_LIST0 "{\"name\":\"list-0\",\"devices\":2,\"microbatches\":4," \
	"\"placement\":[0,0],\"cost\":{\"F\":1,\"B\":1}}"
/* Interleaved, 2 devices x 3 chunks (L = 6), fused, 8 micro-batches:
 * device d runs stages d, d+2, d+4. */
#define I_INTER3 "{\"name\":\"inter-2x3\",\"devices\":2,\"microbatches\":8," \
	"\"chunks\":3,\"placement\":\"interleaved\",\"cost\":{\"F\":1,\"B\":1}}"
/* V, 3 devices x 2 chunks (L = 6), split, 6 micro-batches: device d runs
 * stages d and 5-d. */
#define I_V3 "{\"name\":\"v-3x2\",\"devices\":3,\"microbatches\":6," \
	"\"chunks\":2,\"placement\":\"v\",\"cost\":{\"F\":1,\"B\":1,\"W\":1}}"
/* Listed: stages 0..3 on devices 2, 1, 0, 2 (v = 1, 1, 2), fused, chain. */
#define I_LIST3 "{\"name\":\"list-3\",\"devices\":3,\"microbatches\":8," \
	"\"placement\":[2,1,0,2],\"cost\":{\"F\":1,\"B\":1}}"
/* Diamond DAG 0->1, 0->2, 1->3, 2->3, one stage per device. */
#define I_DIAMOND "{\"name\":\"diamond\",\"devices\":4,\"microbatches\":8," \
	"\"edges\":[[0,1],[0,2],[1,3],[2,3]],\"cost\":{\"F\":1,\"B\":1}}"
/* One device, 128 micro-batches: room to count expression values. */
#define I_WIDE "{\"name\":\"wide\",\"devices\":1,\"microbatches\":128," \
	"\"cost\":{\"F\":1,\"B\":1}}"

/* ---- helpers -------------------------------------------------------------- */

static struct program *parse_ok(const char *name, const char *text)
{
	struct program *pg = PG_SENTINEL;
	struct error err = {{0}};
	if (program_parse(text, SRC, &pg, &err))
		fail_msg("case '%s': program rejected: %s", name, err.msg);
	assert_non_null(pg);
	assert_ptr_not_equal(pg, PG_SENTINEL);
	return pg;
}

/* The message of a rejected parse; *out must be NULL. */
static const char *parse_err(const char *name, const char *text,
			     struct error *err)
{
	struct program *pg = PG_SENTINEL;
	if (program_parse(text, SRC, &pg, err) == STATUS_OK) {
		program_free(pg);
		fail_msg("case '%s': program accepted, expected an error", name);
	}
	if (pg != NULL)
		fail_msg("case '%s': *out is not NULL after a rejection", name);
	return err->msg;
}

static struct schedule *run_ok(const char *name, const struct program *pg,
			       const struct instance *in)
{
	struct schedule *sc = &sc_sentinel;
	struct error err = {{0}};
	if (program_run(pg, in, &sc, &err))
		fail_msg("case '%s': run failed: %s", name, err.msg);
	assert_non_null(sc);
	assert_ptr_not_equal(sc, &sc_sentinel);
	if (sc->devices != in->devices)
		fail_msg("case '%s': schedule has %d devices, instance %d", name,
			 sc->devices, in->devices);
	return sc;
}

/* The message of a failed run; *out must be NULL. */
static const char *run_err(const char *name, const struct program *pg,
			   const struct instance *in, struct error *err)
{
	struct schedule *sc = &sc_sentinel;
	if (program_run(pg, in, &sc, err) == STATUS_OK) {
		schedule_free(sc);
		fail_msg("case '%s': run succeeded, expected an error", name);
	}
	if (sc != NULL)
		fail_msg("case '%s': *out is not NULL after a failed run", name);
	return err->msg;
}

/* Parse "F0,1 B2,0 ..." (kind, stage, micro-batch) into ops; returns count. */
static int parse_row(const char *name, const char *text, struct op *ops,
		     int cap)
{
	int n = 0;
	const char *p = text;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			return n;
		if (n == cap)
			fail_msg("case '%s': expected row too long", name);
		char k = *p++;
		char *end;
		ops[n].kind = k == 'F' ? OP_F : k == 'B' ? OP_B : k == 'W' ? OP_W : -1;
		ops[n].stage = (int)strtol(p, &end, 10);
		if (ops[n].kind < 0 || end == p || *end != ',')
			fail_msg("case '%s': bad expected op in '%s'", name, text);
		p = end + 1;
		ops[n].mb = (int)strtol(p, &end, 10);
		if (end == p)
			fail_msg("case '%s': bad expected op in '%s'", name, text);
		p = end;
		n++;
	}
}

/* Compare every device's order with the hand-written rows, op by op. */
static void expect_rows(const char *name, const struct schedule *sc,
			int devices, const char *const *rows)
{
	char buf[32];
	struct op want[64];
	if (sc->devices != devices)
		fail_msg("case '%s': %d devices, expected %d", name, sc->devices,
			 devices);
	for (int d = 0; d < devices; d++) {
		const struct sched_row *row = &sc->rows[d];
		int n = parse_row(name, rows[d], want, 64);
		for (int i = 0; i < n && i < row->len; i++) {
			const struct op *o = &row->ops[i];
			if (o->kind != want[i].kind || o->stage != want[i].stage ||
			    o->mb != want[i].mb)
				fail_msg("case '%s': device %d op %d is %s, expected %s",
					 name, d, i,
					 op_format(buf, sizeof buf, o->kind, o->stage, o->mb),
					 rows[d]);
		}
		if (row->len != n)
			fail_msg("case '%s': device %d runs %d ops, expected %d (%s)",
				 name, d, row->len, n, rows[d]);
	}
}

/* Parse, run, and compare with the expected rows. */
static void check_orders(const char *name, const char *inst_json,
			 const char *text, const char *const *rows)
{
	struct instance *in = parse_instance_ok(inst_json);
	struct program *pg = parse_ok(name, text);
	struct schedule *sc = run_ok(name, pg, in);
	expect_rows(name, sc, in->devices, rows);
	schedule_free(sc);
	program_free(pg);
	instance_free(in);
}

/* ---- emitted orders -------------------------------------------------------- */

struct order_case {
	const char *name, *inst, *text;
	const char *rows[MAXDEV];
};

static void test_orders(void **state)
{
	static const struct order_case cases[] = {
		/* Micro-batches count per (stage, kind) in emission order. */
		{"numbering", I_CHAIN2, "F F B F W B W",
		 {"F0,0 F0,1 B0,0 F0,2 W0,0 B0,1 W0,1",
		  "F1,0 F1,1 B1,0 F1,2 W1,0 B1,1 W1,1"}},
		/* Interleaved: chunk c of device d is stage 2c + d. */
		{"interleaved chunks", I_INTER2, "F F[1] F[1] F B[1] B W[1] W",
		 {"F0,0 F2,0 F2,1 F0,1 B2,0 B0,0 W2,0 W0,0",
		  "F1,0 F3,0 F3,1 F1,1 B3,0 B1,0 W3,0 W1,0"}},
		/* V: chunk 0 is stage d, chunk 1 is stage 3 - d. */
		{"v chunks", I_V2, "F F[1] B[1] F[1] B",
		 {"F0,0 F3,0 B3,0 F3,1 B0,0",
		  "F1,0 F2,0 B2,0 F2,1 B1,0"}},
		/* Listed [1,0,1]: device 0 runs stage 1 (v = 1); device 1
		 * runs stages 0 and 2, chunk 0 = 0, chunk 1 = 2 (v = 2). */
		{"listed chunks", I_LIST2, "F[v - 1] F F[v - 1]",
		 {"F1,0 F1,1 F1,2",
		  "F2,0 F0,0 F2,1"}},
		/* Chunk expressions from loop variables. */
		{"chunk loop", I_INTER2,
		 "for c in 0 .. v { F[c] }\nfor c in 0 .. v { B[v - 1 - c] }",
		 {"F0,0 F2,0 B2,0 B0,0",
		  "F1,0 F3,0 B3,0 B1,0"}},
		/* Fused backward: every W is skipped. */
		{"fused skips W", I_CHAIN2F, "F B W W F B W",
		 {"F0,0 B0,0 F0,1 B0,1",
		  "F1,0 B1,0 F1,1 B1,1"}},
		/* A skipped W does not count toward the m limit (m = 1). */
		{"fused W uncounted", I_ONE1F, "F B W W W",
		 {"F0,0 B0,0"}},
		{"repeat", I_CHAIN2, "repeat 2 { F }\nrepeat 1 + d { B W }",
		 {"F0,0 F0,1 B0,0 W0,0",
		  "F1,0 F1,1 B1,0 W1,0 B1,1 W1,1"}},
		{"repeat zero", I_CHAIN2, "repeat 0 { F }\nrepeat d { F }\nB",
		 {"B0,0", "F1,0 B1,0"}},
		/* i = 1: F B; i = 2: F F B. */
		{"for half-open", I_CHAIN2, "for i in 1 .. 3 { repeat i { F } B }",
		 {"F0,0 B0,0 F0,1 F0,2 B0,1",
		  "F1,0 B1,0 F1,1 F1,2 B1,1"}},
		/* 3 .. 3 and 5 .. 2 are empty; d .. 1 runs once on device 0. */
		{"for empty", I_CHAIN2,
		 "for i in 3 .. 3 { F }\nfor i in 5 .. 2 { F }\nfor i in d .. 1 { F }\nB",
		 {"F0,0 B0,0", "B1,0"}},
		/* i = 0: j = 0, 1 -> F F, then B B; i = 1: j = 1 -> F, then B. */
		{"nested for", I_CHAIN2,
		 "for i in 0 .. 2 {\n  for j in i .. 2 { F }\n  repeat 2 - i { B }\n}",
		 {"F0,0 F0,1 B0,0 B0,1 F0,2 B0,2",
		  "F1,0 F1,1 B1,0 B1,1 F1,2 B1,2"}},
		{"nested repeat", I_CHAIN2, "repeat 2 { repeat 2 { F } B }",
		 {"F0,0 F0,1 B0,0 F0,2 F0,3 B0,1",
		  "F1,0 F1,1 B1,0 F1,2 F1,3 B1,1"}},
		{"if else", I_CHAIN2, "if d == 0 { F } else { B }\nif d == 1 { W }",
		 {"F0,0", "B1,0 W1,0"}},
		{"else if chain", I_CHAIN4,
		 "if d == 0 { F }\nelse if d == 1 { B }\nelse if d == 2 { W }\nelse { F F }",
		 {"F0,0", "B1,0", "W2,0", "F3,0 F3,1"}},
		/* x = 1, then x = 3. */
		{"let reassignment", I_CHAIN2,
		 "let x = 1\nrepeat x { F }\nlet x = x + 2\nrepeat x { B }",
		 {"F0,0 B0,0 B0,1 B0,2", "F1,0 B1,0 B1,1 B1,2"}},
		/* g(1, 0, d) = f(d, 1) + 0 = 2d + 1: 1 on device 0, 3 on 1. */
		{"defs", I_CHAIN2,
		 "def f(a, b) = a * 2 + b\ndef g(a, b, c) = f(c, a) + b\nrepeat g(1, 0, d) { F }",
		 {"F0,0", "F1,0 F1,1 F1,2"}},
		/* Comments and newlines are white space. */
		{"comments", I_CHAIN2, "# head\nF # one\n\n  # two\nB\t# three",
		 {"F0,0 B0,0", "F1,0 B1,0"}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_orders(cases[i].name, cases[i].inst, cases[i].text,
			     cases[i].rows);
}

/* ---- expressions ----------------------------------------------------------- */

struct expr_case {
	const char *prelude, *expr;
	int value;   /* -64 .. 63 */
};

/* Run "PRELUDE; repeat 64 + (EXPR) { F }" on one device and read the value
 * back as the number of ops minus 64. */
static void check_expr(const struct expr_case *c, const struct instance *in)
{
	char text[1024];
	snprintf(text, sizeof text, "%s\nrepeat 64 + (%s) { F }\n",
		 c->prelude ? c->prelude : "", c->expr);
	struct program *pg = parse_ok(c->expr, text);
	struct schedule *sc = run_ok(c->expr, pg, in);
	int got = sc->rows[0].len - 64;
	if (got != c->value)
		fail_msg("expression '%s' (prelude '%s'): got %d, expected %d",
			 c->expr, c->prelude ? c->prelude : "", got, c->value);
	schedule_free(sc);
	program_free(pg);
}

static void test_expressions(void **state)
{
	static const struct expr_case cases[] = {
		/* Floor division and its remainder. */
		{NULL, "7 / 2", 3}, {NULL, "7 % 2", 1},
		{NULL, "-7 / 2", -4}, {NULL, "-7 % 2", 1},     /* -7 = -4*2 + 1 */
		{NULL, "7 / -2", -4}, {NULL, "7 % -2", -1},    /* 7 = -4*-2 - 1 */
		{NULL, "-7 / -2", 3}, {NULL, "-7 % -2", -1},   /* -7 = 3*-2 - 1 */
		{NULL, "-8 / 2", -4}, {NULL, "-8 % 2", 0},
		{NULL, "-1 / 5", -1}, {NULL, "-1 % 5", 4},
		{NULL, "0 / -3", 0},
		/* Ceiling division. */
		{NULL, "cdiv(7, 2)", 4}, {NULL, "cdiv(6, 3)", 2},
		{NULL, "cdiv(-7, 2)", -3}, {NULL, "cdiv(7, -2)", -3},
		{NULL, "cdiv(-7, -2)", 4}, {NULL, "cdiv(0, 5)", 0},
		{NULL, "cdiv(1, 8)", 1},
		/* min, max with several arguments, abs. */
		{NULL, "min(5, 3, 9, 4)", 3}, {NULL, "max(5, 3, 9, 4)", 9},
		{NULL, "min(7)", 7}, {NULL, "max(-2, -9)", -2},
		{NULL, "min(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)", 1},
		{NULL, "max(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)", 16},
		{NULL, "abs(-5)", 5}, {NULL, "abs(5)", 5}, {NULL, "abs(0)", 0},
		/* if() evaluates only the branch taken. */
		{NULL, "if(1, 5, 1 / 0)", 5}, {NULL, "if(0, 1 / 0, 6)", 6},
		{NULL, "if(2, 3, 4)", 3}, {NULL, "if(-1, 3, 4)", 3},
		/* and / or short-circuit and give 1 or 0. */
		{NULL, "0 and 1 / 0", 0}, {NULL, "1 or 1 / 0", 1},
		{NULL, "0 and 1 % 0", 0}, {NULL, "3 or cdiv(1, 0)", 1},
		{NULL, "2 and 3", 1}, {NULL, "1 and 0", 0},
		{NULL, "0 or 0", 0}, {NULL, "0 or 7", 1},
		{NULL, "not 0", 1}, {NULL, "not 5", 0}, {NULL, "not not 3", 1},
		/* Comparisons. */
		{NULL, "3 == 3", 1}, {NULL, "3 != 3", 0}, {NULL, "2 < 3", 1},
		{NULL, "3 < 3", 0}, {NULL, "3 <= 3", 1}, {NULL, "4 > 3", 1},
		{NULL, "3 >= 4", 0}, {NULL, "4 >= 4", 1}, {NULL, "2 != 3", 1},
		/* Precedence and associativity. */
		{NULL, "2 + 3 * 4", 14}, {NULL, "(2 + 3) * 4", 20},
		{NULL, "10 - 3 - 2", 5}, {NULL, "40 / 4 / 5", 2},
		{NULL, "1 + 2 == 3", 1}, {NULL, "1 < 2 and 2 < 3", 1},
		{NULL, "1 or 0 and 0", 1},      /* and binds tighter than or */
		{NULL, "0 and 1 or 1", 1},
		{NULL, "-(3 - 5)", 2}, {NULL, "- 3 * 2", -6}, {NULL, "10 - -3", 13},
		{NULL, "3 +\n 4", 7}, {NULL, "3 + # comment\n 4", 7},
		/* Large values that stay in range. */
		{NULL, "9223372036854775799 - 9223372036854775790", 9},
		{NULL, "4611686018427387903 * 2 - 9223372036854775799", 7},
		{NULL, "-9223372036854775799 - 9 + 9223372036854775799 + 9", 0},
		/* def: several parameters, a def calling a def, globals. */
		{"def f(a, b) = a * 10 + b", "f(2, 1)", 21},
		{"def f(a, b) = a - b\ndef g(x, y, z) = f(z, x) * y",
		 "g(1, 3, 5)", 12},                       /* (5 - 1) * 3 */
		{"def f(a, b, c) = a * 100 + b * 10 + c", "f(0, 2, 7)", 27},
		{"let k = 4\ndef f(a) = a + k", "f(3)", 7},
		{"let k = 4\ndef f(a) = a + k\nlet k = 40", "f(3)", 43},
		{"def sq(a) = a * a\ndef f(a, b) = sq(a) - sq(b)", "f(5, 3)", 16},
		/* let, repeat, for, if as computation. */
		{"let x = 2\nlet x = x * 3", "x", 6},
		{"let s = 1\nrepeat 4 { let s = s * 2 }", "s", 16},
		{"let s = 0\nfor i in 1 .. 5 { let s = s + i }", "s", 10},
		{"let s = 7\nfor i in 5 .. 2 { let s = 0 }", "s", 7},
		{"let s = 7\nfor i in 2 .. 2 { let s = 0 }", "s", 7},
		{"let s = 0\nfor i in -2 .. 1 { let s = s + i }", "s", -3},
		{"let s = 0\nfor i in 0 .. 3 { for j in i .. 3 { let s = s + 1 } }",
		 "s", 6},
		{"let s = 0\nlet k = 2\nif k == 1 { let s = 10 } else if k == 2 { let s = 20 } else { let s = 30 }",
		 "s", 20},
		{"let s = 0\nlet k = 5\nif k == 1 { let s = 10 } else if k == 2 { let s = 20 } else { let s = 30 }",
		 "s", 30},
		{"let s = 0\nlet k = 1\nif k == 1 { let s = 10 } else if k == 2 { let s = 20 } else { let s = 30 }",
		 "s", 10},
		{"let s = 3\nif 0 { let s = 9 }", "s", 3},
		{"let s = 3\nif 0 { let s = 9 } else if 0 { let s = 8 }", "s", 3},
	};
	struct instance *in = parse_instance_ok(I_WIDE);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_expr(&cases[i], in);
	instance_free(in);
}

/* ---- built-in variables and functions --------------------------------------- */

struct builtin_case {
	const char *inst, *expr;
	int devices;
	int count[MAXDEV];   /* value of expr on each device */
};

static void test_builtins(void **state)
{
	static const struct builtin_case cases[] = {
		{I_CHAIN4, "p", 4, {4, 4, 4, 4}},
		{I_INTER3, "p", 2, {2, 2}},
		{I_CHAIN4, "d", 4, {0, 1, 2, 3}},
		{I_V3, "d", 3, {0, 1, 2}},
		{I_CHAIN4, "m", 4, {8, 8, 8, 8}},
		{I_V3, "m", 3, {6, 6, 6}},
		{I_CHAIN4, "v", 4, {1, 1, 1, 1}},
		{I_INTER3, "v", 2, {3, 3}},
		{I_V3, "v", 3, {2, 2, 2}},
		{I_LIST3, "v", 3, {1, 1, 2}},
		{I_CHAIN4, "L", 4, {4, 4, 4, 4}},
		{I_INTER3, "L", 2, {6, 6}},
		{I_LIST3, "L", 3, {4, 4, 4}},
		{I_CHAIN4, "chunks", 4, {1, 1, 1, 1}},
		{I_INTER3, "chunks", 2, {3, 3}},
		{I_V3, "chunks", 3, {2, 2, 2}},
		{I_LIST3, "chunks", 3, {1, 1, 1}},
		{I_INTER3, "vmin", 2, {3, 3}},
		{I_INTER3, "vmax", 2, {3, 3}},
		{I_LIST3, "vmin", 3, {1, 1, 1}},
		{I_LIST3, "vmax", 3, {2, 2, 2}},
		{I_CHAIN4, "split", 4, {1, 1, 1, 1}},
		{I_INTER3, "split", 2, {0, 0}},
		{I_CHAIN4, "chain", 4, {1, 1, 1, 1}},
		{I_LIST3, "chain", 3, {1, 1, 1}},
		{I_INTER3, "chain", 2, {1, 1}},
		{I_DIAMOND, "chain", 4, {0, 0, 0, 0}},
		{I_CHAIN4, "linear", 4, {1, 1, 1, 1}},
		{I_INTER3, "linear", 2, {0, 0}},
		{I_V3, "linear", 3, {0, 0, 0}},
		{I_LIST3, "linear", 3, {0, 0, 0}},
		{I_INTER3, "interleaved", 2, {1, 1}},
		{I_CHAIN4, "interleaved", 4, {0, 0, 0, 0}},
		{I_V3, "interleaved", 3, {0, 0, 0}},
		{I_V3, "vshape", 3, {1, 1, 1}},
		{I_INTER3, "vshape", 2, {0, 0}},
		{I_CHAIN4, "vshape", 4, {0, 0, 0, 0}},
		{I_LIST3, "listed", 3, {1, 1, 1}},
		{I_CHAIN4, "listed", 4, {0, 0, 0, 0}},
		{I_V3, "listed", 3, {0, 0, 0}},
		/* stage(c): interleaved 2c + d; V d and 5 - d; listed. */
		{I_INTER3, "stage(0)", 2, {0, 1}},
		{I_INTER3, "stage(1)", 2, {2, 3}},
		{I_INTER3, "stage(2)", 2, {4, 5}},
		{I_V3, "stage(0)", 3, {0, 1, 2}},
		{I_V3, "stage(1)", 3, {5, 4, 3}},
		{I_LIST3, "stage(0)", 3, {2, 1, 0}},
		{I_LIST3, "stage(v - 1)", 3, {2, 1, 3}},
		{I_CHAIN4, "stage(0)", 4, {0, 1, 2, 3}},
		/* depth(c): stages on the longest path to a sink. Diamond:
		 * 3 -> 1; 1, 2 -> 2; 0 -> 3. Chains: L - s. */
		{I_DIAMOND, "depth(0)", 4, {3, 2, 2, 1}},
		{I_CHAIN4, "depth(0)", 4, {4, 3, 2, 1}},
		{I_INTER3, "depth(0)", 2, {6, 5}},
		{I_INTER3, "depth(1)", 2, {4, 3}},
		{I_INTER3, "depth(2)", 2, {2, 1}},
		{I_V3, "depth(0)", 3, {6, 5, 4}},
		{I_V3, "depth(1)", 3, {1, 2, 3}},
		{I_LIST3, "depth(v - 1)", 3, {2, 3, 1}},
		{I_CHAIN4, "p - stage(0)", 4, {4, 3, 2, 1}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct builtin_case *c = &cases[i];
		char text[256];
		snprintf(text, sizeof text, "repeat %s { F }", c->expr);
		struct instance *in = parse_instance_ok(c->inst);
		assert_int_equal(in->devices, c->devices);
		struct program *pg = parse_ok(c->expr, text);
		struct schedule *sc = run_ok(c->expr, pg, in);
		for (int d = 0; d < c->devices; d++) {
			if (sc->rows[d].len != c->count[d])
				fail_msg("'%s' on %s, device %d: %d, expected %d", c->expr,
					 in->name, d, sc->rows[d].len, c->count[d]);
			/* each op is F on chunk 0, numbered 0, 1, ... */
			for (int k = 0; k < sc->rows[d].len; k++) {
				const struct op *o = &sc->rows[d].ops[k];
				assert_int_equal(o->kind, OP_F);
				assert_int_equal(o->mb, k);
			}
		}
		schedule_free(sc);
		program_free(pg);
		instance_free(in);
	}
}

/* A device with no stage: v = 0 and vmin = 0 there. Listed [0, 0]: device 0
 * runs stages 0 and 1 (v = 2), device 1 none; vmin = 0, vmax = 2. */
static void test_device_without_stage(void **state)
{
	static const char *const rows[] = {"F0,0 F0,1 F0,2 F0,3 F1,0 B1,0 B0,0", ""};
	check_orders("no stage", I_LIST0,
		     "if v > 0 {\n  repeat vmin + 2 * vmax { F }\n  F[1] B[1] B\n}",
		     rows);
}

/* `pad` (a top-level statement): ops numbered m or more are dropped instead
 * of failing; m = 4 here. */
static void test_pad(void **state)
{
	static const char *const rows[] = {"F0,0 F0,1 F0,2 F0,3 B0,0",
					   "F1,0 F1,1 F1,2 F1,3 B1,0"};
	check_orders("pad", I_CHAIN2F, "pad\nrepeat 6 { F }\nB", rows);
	struct error err = {{0}};
	check_error_message("pad in block",
			    parse_err("pad in block", "F\nif 1 { pad }", &err), SRC,
			    "schedule program '" SRC "': line 2, column 8: ",
			    "'pad' belongs at the top level");
}

/* ---- header -------------------------------------------------------------------- */

static void test_header(void **state)
{
	struct program *pg = parse_ok("header",
		"# comment first\nfamily zb-h1 \"one F, one B\"\n"
		"supports \"chains with one stage per device\"\nF B W\n");
	assert_string_equal(program_name(pg), "zb-h1");
	assert_string_equal(program_summary(pg), "one F, one B");
	assert_string_equal(program_supports(pg), "chains with one stage per device");
	program_free(pg);

	/* Digits first, '-' and '_'; escapes in the summary. */
	pg = parse_ok("digits", "family 1f1b_x-2 \"a \\\"b\\\" c\\\\\"\nF\n");
	assert_string_equal(program_name(pg), "1f1b_x-2");
	assert_string_equal(program_summary(pg), "a \"b\" c\\");
	assert_string_equal(program_supports(pg), "");
	program_free(pg);

	/* No summary. */
	pg = parse_ok("no summary", "family gpipe\nF\n");
	assert_string_equal(program_name(pg), "gpipe");
	assert_string_equal(program_summary(pg), "");
	program_free(pg);

	/* No family line: NULL name, empty summary and supports. */
	pg = parse_ok("no family", "F B\n");
	assert_null(program_name(pg));
	assert_string_equal(program_summary(pg), "");
	assert_string_equal(program_supports(pg), "");
	program_free(pg);

	/* supports without family. */
	pg = parse_ok("supports only", "supports \"anything\"\nF\n");
	assert_null(program_name(pg));
	assert_string_equal(program_supports(pg), "anything");
	program_free(pg);

	/* Header lines after the ops are still header lines. */
	pg = parse_ok("late header", "F\nfamily late \"s\"\n");
	assert_string_equal(program_name(pg), "late");
	assert_string_equal(program_summary(pg), "s");
	program_free(pg);

	program_free(NULL);   /* a no-op */
}

/* ---- parse errors ------------------------------------------------------------- */

struct perr_case {
	const char *name, *text;
	int line, col;
	const char *what;
};

/* Each case fails to parse with one message naming the file, its line and
 * column, and what. */
static void check_parse_errors(const struct perr_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct perr_case *c = &cases[i];
		struct error err = {{0}};
		char where[128];
		snprintf(where, sizeof where, "schedule program '" SRC "': line %d, column %d: ",
			 c->line, c->col);
		check_error_message(c->name, parse_err(c->name, c->text, &err), SRC, where, c->what);
	}
}

static void test_parse_errors(void **state)
{
	static const struct perr_case cases[] = {
		{"unclosed brace", "F\nrepeat 2 {\n  F\n", 4, 1,
		 "expected '}' before the end of the file"},
		{"unclosed brace no newline", "repeat 2 {\n  F", 2, 4,
		 "expected '}' before the end of the file"},
		{"unclosed else", "if 1 { F } else", 1, 16, "expected '{'"},
		{"stray brace", "F }", 1, 3, "expected a statement"},
		{"unknown statement", "F\n\n  jump 3\n", 3, 3,
		 "unknown statement 'jump'"},
		{"unknown name", "F\nrepeat  q { B }", 2, 9, "unknown name 'q'"},
		{"let used before", "F\nrepeat n { B }\nlet n = 2\n", 2, 8,
		 "unknown name 'n'"},
		{"let x = x", "F\nlet x = x + 1\n", 2, 9, "unknown name 'x'"},
		{"let builtin", "F\n  let p = 1\n", 2, 7,
		 "'p' is a built-in variable and cannot be set"},
		{"for builtin", "for d in 0 .. 2 { F }", 1, 5,
		 "'d' is a built-in variable and cannot be set"},
		{"let keyword", "F\nlet repeat = 1\n", 2, 5,
		 "'repeat' is a keyword or function, not a variable"},
		{"let op keyword", "let F = 1\nF", 1, 5,
		 "'F' is a keyword or function, not a variable"},
		{"for keyword", "for if in 0 .. 1 { F }", 1, 5,
		 "'if' is a keyword or function, not a variable"},
		{"let def name", "def f(a) = a\nlet f = 1\nF", 2, 5,
		 "'f' is a keyword or function, not a variable"},
		{"keyword as value", "let x = else\nF", 1, 9,
		 "expected a value, got 'else'"},
		{"unknown function", "F\nlet x = 1 + foo(2)\n", 2, 13,
		 "unknown function 'foo'"},
		{"abs two args", "F\nlet x = abs(1, 2)", 2, 9,
		 "abs() takes 1 argument, got 2"},
		{"cdiv one arg", "F\nlet x = cdiv(1)", 2, 9,
		 "cdiv() takes 2 arguments, got 1"},
		{"if two args", "F\nlet x = if(1, 2)", 2, 9,
		 "if() takes 3 arguments, got 2"},
		{"min no args", "F\nlet x = min()", 2, 9, "got 0"},
		{"max 17 args", "F\nlet x = max(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)",
		 2, 9, "got 17"},
		{"stage no args", "F\nlet x = stage()", 2, 9,
		 "stage() takes 1 argument, got 0"},
		{"def args", "def f(a, b) = a + b\nF\nlet x = f(1)", 3, 9,
		 "f() takes 2 arguments, got 1"},
		{"require no else", "F\nrequire p > 1 \"why\"", 2, 15,
		 "expected 'else \"reason\"' after the condition"},
		{"require else no string", "require 1 else 5\nF", 1, 16,
		 "expected 'else \"reason\"' after the condition"},
		{"unclosed string", "F\nsupports \"chains\nF", 2, 10,
		 "string not closed on its line"},
		{"unclosed summary", "family x \"abc", 1, 10,
		 "string not closed on its line"},
		{"dollar", "F\nlet x = 2 $ 3", 2, 11, "unexpected character '$'"},
		{"lone dot", "F\nlet x = 1.5", 2, 10, "unexpected character '.'"},
		{"number too large", "F\nrepeat 99999999999999999999 { F }", 2, 8,
		 "number too large"},
		{"digit name", "F\nlet y = 3x", 2, 9,
		 "a name cannot start with a digit"},
		{"def in block", "F\nrepeat 1 {\n  def f(a) = a\n}", 3, 3,
		 "'def' belongs at the top level"},
		{"family in block", "if 1 {\n\tfamily x\n}\nF", 2, 2,
		 "'family' belongs at the top level"},
		{"supports in block", "repeat 1 { supports \"x\" }\nF", 1, 12,
		 "'supports' belongs at the top level"},
		{"second family", "family a\nF\nfamily b\n", 3, 1,
		 "a second 'family' line"},
		{"family no name", "family \"x\"\nF", 1, 8, "expected a family name"},
		{"no ops", "let x = 1\nrequire 1 else \"r\"\n", 3, 1,
		 "the program emits no ops"},
		{"no ops no newline", "let x = 1", 1, 10, "the program emits no ops"},
		{"only comments", "# nothing\n", 2, 1, "the program emits no ops"},
		{"empty", "", 1, 1, "the program emits no ops"},
		{"non-ascii", "F\nlet x = 1 \xc3\xa9", 2, 11, "unexpected byte 0xc3"},
		{"control byte", "F\x01", 1, 2, "unexpected byte 0x01"},
		{"del byte", "F \x7f", 1, 3, "unexpected byte 0x7f"},
		{"missing paren", "let x = (1 + 2\nF", 2, 1, "expected ')', got F"},
		{"missing bracket", "F[1", 1, 4, "expected ']', got end of file"},
		{"for no dots", "for i in 0 2 { F }", 1, 12, "expected '..'"},
		{"def not new", "def f(a) = a\ndef f(b) = b\nF", 2, 5,
		 "'f' is already a keyword, variable or function"},
		{"def builtin var", "def m(a) = a\nF", 1, 5,
		 "'m' is already a keyword, variable or function"},
		{"param out of scope", "def f(a) = a\nlet x = a\nF", 2, 9,
		 "unknown name 'a'"},
		{"def later", "let x = g(1)\ndef g(a) = a\nF", 1, 9,
		 "unknown function 'g'"},
	};
	check_parse_errors(cases, sizeof cases / sizeof cases[0]);
}

/* ---- run-time errors -------------------------------------------------------- */

struct rerr_case {
	const char *name, *inst, *text;
	int line, col, device;
	const char *what;
};

/* Overlapped pairs "F & B": the second op is marked with_prev (the op
 * before it in the order is its partner); both count micro-batches as
 * ops; a fused backward's W and a padded program's dropped op leave the
 * other op alone, unpaired. */
static void test_pairs(void **state)
{
	(void)state;
	struct instance *in = parse_instance_ok(I_CHAIN2);
	struct program *pg = parse_ok("pairs", "F F & B[0] W B & F W F B W B W");
	struct schedule *sc = run_ok("pairs", pg, in);
	/* F0 (F1 B0) W0 (B1 F2) W1 F3 B2 W2 B3 W3 on each device */
	static const bool paired[] = {0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
	for (int d = 0; d < in->devices; d++) {
		assert_int_equal(sc->rows[d].len, 12);
		for (int i = 0; i < 12; i++)
			if (sc->rows[d].ops[i].with_prev != paired[i])
				fail_msg("device %d op %d: with_prev %d, expected %d", d, i,
					 sc->rows[d].ops[i].with_prev, paired[i]);
	}
	assert_int_equal(sc->rows[0].ops[1].kind, OP_F);
	assert_int_equal(sc->rows[0].ops[1].mb, 1);
	assert_int_equal(sc->rows[0].ops[2].kind, OP_B);
	assert_int_equal(sc->rows[0].ops[2].mb, 0);
	schedule_free(sc);
	program_free(pg);
	program_free(parse_ok("pairs, padded", "pad\nrepeat 4 { F & B }"));
	instance_free(in);
	/* m = 4 and pad: the fifth F is dropped, so its B stays single */
	in = parse_instance_ok(I_CHAIN2F);
	pg = parse_ok("pad pair", "pad\nF repeat 4 { F & B }");
	sc = run_ok("pad pair", pg, in);
	static const bool paired_pad[] = {0, 0, 1, 0, 1, 0, 1, 0};
	assert_int_equal(sc->rows[0].len, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(sc->rows[0].ops[i].with_prev, paired_pad[i]);
	schedule_free(sc);
	program_free(pg);
	instance_free(in);
	static const struct perr_case bad[] = {
		{"F & F", "F & F", 1, 5, "an overlapped pair is one F and one B, not F & F"},
		{"B & W", "F B & W", 1, 7, "an overlapped pair is one F and one B, not B & W"},
		{"three", "F & B & F", 1, 7, "an overlapped pair has two ops, not three"},
		{"& nothing", "F &\n", 2, 1, "expected an op (F or B) after '&'"},
		{"& repeat", "F & repeat 2 { B }", 1, 5, "expected an op (F or B) after '&', got repeat"},
		{"leading &", "& B", 1, 1, "expected a statement"},
	};
	check_parse_errors(bad, sizeof bad / sizeof bad[0]);
}

/* INT64_MIN: the literal 9223372036854775808 is out of range. */
#define MIN64 "let m8 = -9223372036854775799 - 9\n"

static void test_run_errors(void **state)
{
	static const struct rerr_case cases[] = {
		/* 2 - d is -1 first on device 3. */
		{"negative repeat", I_CHAIN4, "F\nrepeat 2 - d { F }", 2, 1, 3,
		 "repeat count -1 is negative"},
		{"division by zero", I_CHAIN2, "F\nlet x = 7 / (d - 1)", 2, 11, 1,
		 "division by zero"},
		{"modulo by zero", I_CHAIN2, "F\nlet x = 7 % (1 - d)", 2, 11, 1,
		 "division by zero"},
		{"cdiv by zero", I_CHAIN2, "F\nlet y = 1 + cdiv(5, d - 1)", 2, 13, 1,
		 "division by zero"},
		{"if taken branch", I_CHAIN2, "F\nlet y = if(d, 1 / 0, 2)", 2, 17, 1,
		 "division by zero"},
		{"and right side", I_CHAIN2, "F\nlet y = d and 1 / 0", 2, 17, 1,
		 "division by zero"},
		{"def body", I_CHAIN2, "def f(a) = 10 / a\nF\nlet y = f(1 - d)", 1, 15, 1,
		 "division by zero"},
		{"add overflow", I_CHAIN2, "F\nlet x = 9223372036854775799 + 9 * d",
		 2, 29, 1, "arithmetic overflow"},
		{"mul overflow", I_CHAIN2, "F\nlet x = 4611686018427387904 * (d + 1)",
		 2, 29, 1, "arithmetic overflow"},
		{"sub overflow", I_CHAIN2, "F\nlet x = -9223372036854775799 - 10 * d",
		 2, 30, 1, "arithmetic overflow"},
		{"neg overflow", I_CHAIN2, "F\n" MIN64 "let x = -m8", 3, 9, 0,
		 "arithmetic overflow"},
		{"abs overflow", I_CHAIN2, "F\n" MIN64 "let x = abs(m8)", 3, 9, 0,
		 "arithmetic overflow"},
		{"div overflow", I_CHAIN2, "F\n" MIN64 "let x = m8 / -1", 3, 12, 0,
		 "arithmetic overflow"},
		{"chunk too large", I_INTER2, "F\n  F[v]", 2, 3, 0,
		 "chunk 2 does not exist"},
		{"chunk on one-chunk device", I_CHAIN2, "F[1]", 1, 1, 0,
		 "chunk 1 does not exist"},
		{"chunk negative", I_CHAIN2, "B\nF[-1]", 2, 1, 0,
		 "chunk -1 does not exist"},
		{"device with no stage", I_LIST0, "F F[1]\nB", 1, 1, 1,
		 "this device runs no stage"},
		{"stage out of range", I_CHAIN2, "F\nlet s = stage(1)", 2, 9, 0,
		 "chunk 1 does not exist"},
		{"depth out of range", I_CHAIN2, "F\nlet s = depth(d - 1)", 2, 9, 0,
		 "chunk -1 does not exist"},
		/* m = 2: chunks 0 and 1 count separately; the fifth F is the
		 * third on stage 0. */
		{"more than m", I_INTER2M2, "F F F[1] F[1] F", 1, 15, 0,
		 "would be micro-batch 2 of stage 0, but there are only 2"},
		/* m = 1: one of each kind is fine, a second B is not. */
		{"more than m per kind", I_ONE1, "F B W\nB", 2, 1, 0,
		 "would be micro-batch 1 of stage 0, but there are only 1"},
		{"more than m on device 1", I_CHAIN2, "F\nrepeat 4 * d { F }", 2, 16, 1,
		 "would be micro-batch 4 of stage 1, but there are only 4"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct rerr_case *c = &cases[i];
		struct error err = {{0}};
		char where[128];
		snprintf(where, sizeof where,
			 "schedule program '" SRC "': line %d, column %d, device %d: ",
			 c->line, c->col, c->device);
		struct instance *in = parse_instance_ok(c->inst);
		struct program *pg = parse_ok(c->name, c->text);
		const char *msg = run_err(c->name, pg, in, &err);
		check_error_message(c->name, msg, SRC, where, c->what);
		program_free(pg);
		instance_free(in);
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A loop that would run 10^12 times is stopped by the step limit; every
 * iteration counts, so the error names the loop (line 2, column 1). */
static void test_runaway(void **state)
{
	static const char *const texts[] = {
		"F\nrepeat 1000000000000 { let x = 1 }",
		"F\nfor i in 0 .. 1000000000000 { let x = i }",
	};
	static const char *const wheres[] = {
		"line 2, column 1, device 0: ",
		"line 2, column 1, device 0: ",
	};
	struct instance *in = parse_instance_ok(I_CHAIN2);
	for (int i = 0; i < 2; i++) {
		struct error err = {{0}};
		struct program *pg = parse_ok("runaway", texts[i]);
		double t0 = now_s();
		const char *msg = run_err("runaway", pg, in, &err);
		double dt = now_s() - t0;
		check_error_message("runaway", msg, SRC, wheres[i], "does not finish");
		if (dt > 30)
			fail_msg("runaway loop took %.1f s to stop", dt);
		program_free(pg);
	}
	instance_free(in);
}

/* ---- require ------------------------------------------------------------------ */

static void test_require(void **state)
{
	struct instance *fused = parse_instance_ok(I_CHAIN2F);
	struct instance *split = parse_instance_ok(I_CHAIN2);
	struct error err = {{0}};

	struct program *pg = parse_ok("require",
		"family zb-x \"s\"\nrequire split else \"it needs a split backward (cost.W)\"\nF B W");
	const char *msg = run_err("require fused", pg, fused, &err);
	assert_string_equal(msg,
		"family 'zb-x' does not support instance 'chain-2f': it needs a split backward (cost.W)");
	/* The same program accepts the split instance. */
	static const char *const rows[] = {"F0,0 B0,0 W0,0", "F1,0 B1,0 W1,0"};
	struct schedule *sc = run_ok("require split", pg, split);
	expect_rows("require split", sc, 2, rows);
	schedule_free(sc);
	program_free(pg);

	/* No family line: the source is named. Device 1 fails, device 0
	 * already emitted ops: still no schedule. */
	pg = parse_ok("require no family",
		      "F\nrequire d == 0 and p >= 1 else \"one device only\"\nB");
	msg = run_err("require no family", pg, split, &err);
	assert_string_equal(msg,
		"family '" SRC "' does not support instance 'chain-2': one device only");
	program_free(pg);

	/* A require inside a taken branch; escapes in the reason. */
	pg = parse_ok("require in block",
		      "if not split { require 0 else \"needs \\\"W\\\"\" }\nF B");
	msg = run_err("require in block", pg, fused, &err);
	assert_string_equal(msg,
		"family '" SRC "' does not support instance 'chain-2f': needs \"W\"");
	sc = run_ok("require not reached", pg, split);
	assert_int_equal(schedule_nops(sc), 4);
	schedule_free(sc);
	program_free(pg);

	instance_free(fused);
	instance_free(split);
}

/* ---- program_read -------------------------------------------------------------- */

static void test_read(void **state)
{
	struct program *pg = PG_SENTINEL;
	struct error err = {{0}};
	const char *missing = "/tmp/pipeopt-test-lang-no-such-dir/missing.sched";
	assert_int_equal(program_read(missing, &pg, &err), STATUS_ERROR);
	assert_null(pg);
	check_error_message("missing", err.msg, missing, "schedule program '", "cannot open");

	char path[] = "/tmp/test_lang_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("family from-file \"read from disk\"\nsupports \"chains\"\n"
	      "repeat 2 { F }\nB W\n", f);
	fclose(f);
	pg = PG_SENTINEL;
	if (program_read(path, &pg, &err))
		fail_msg("program_read: %s", err.msg);
	assert_string_equal(program_name(pg), "from-file");
	assert_string_equal(program_summary(pg), "read from disk");
	assert_string_equal(program_supports(pg), "chains");
	struct instance *in = parse_instance_ok(I_CHAIN2);
	static const char *const rows[] = {"F0,0 F0,1 B0,0 W0,0",
					   "F1,0 F1,1 B1,0 W1,0"};
	struct schedule *sc = run_ok("read", pg, in);
	expect_rows("read", sc, 2, rows);
	schedule_free(sc);
	program_free(pg);

	/* A syntax error in a file names the path, line and column. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("F\n  frobnicate\n", f);
	fclose(f);
	pg = PG_SENTINEL;
	assert_int_equal(program_read(path, &pg, &err), STATUS_ERROR);
	assert_null(pg);
	char where[128];
	snprintf(where, sizeof where, "schedule program '%s': line 2, column 3: ", path);
	check_error_message("file syntax", err.msg, path, where,
			    "unknown statement 'frobnicate'");

	/* A run-time error of a file program without family names the path. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("F\nF[1]\n", f);
	fclose(f);
	pg = NULL;
	if (program_read(path, &pg, &err))
		fail_msg("program_read: %s", err.msg);
	snprintf(where, sizeof where, "schedule program '%s': line 2, column 1, device 0: ",
		 path);
	check_error_message("file run", run_err("file run", pg, in, &err), path,
			    where, "chunk 1 does not exist");
	program_free(pg);
	instance_free(in);
	assert_int_equal(remove(path), 0);
}

/* ---- bugs ----------------------------------------------------------------------- */

/* Run fn in a forked child with a time limit; returns its wait status.
 * fn returns 0 when the behaviour is right. No cmocka calls in fn. */
static int in_child(int (*fn)(void), unsigned seconds)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* cmocka catches these to fail a test; here a crash must end
		 * the child, not resume the test runner inside it. */
		static const int sigs[] = {SIGFPE, SIGSEGV, SIGILL, SIGBUS, SIGABRT};
		for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
			signal(sigs[i], SIG_DFL);
		alarm(seconds);
		_exit(fn());
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void expect_child_ok(const char *name, int status)
{
	if (WIFSIGNALED(status))
		fail_msg("%s: child killed by signal %d (%s)", name, WTERMSIG(status),
			 WTERMSIG(status) == SIGALRM ? "did not finish in time" :
			 "crashed");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("%s: child exited with status %d", name, WEXITSTATUS(status));
}

/* Parse and run text on I_CHAIN2; 0 when the run fails with a message
 * containing want (or, want NULL, whenever the call returns at all). */
static int child_run(const char *text, const char *want)
{
	struct program *pg = NULL;
	struct instance *in = NULL;
	struct schedule *sc = NULL;
	struct error err = {{0}};
	if (instance_parse(I_CHAIN2, "test.json", &in, &err))
		return 3;
	if (program_parse(text, SRC, &pg, &err))
		return want ? 4 : 0;
	enum status st = program_run(pg, in, &sc, &err);
	schedule_free(sc);
	program_free(pg);
	instance_free(in);
	if (!want)
		return 0;
	return st == STATUS_ERROR && strstr(err.msg, want) ? 0 : 5;
}

/*
 * Regression, fixed: sched/lang_parse.c lex_number (line 145): the guard
 *     if (v > (INT64_MAX - 9) / 10) "number too large"
 * rejects 9223372036854775800 .. 9223372036854775807, which are 64-bit
 * integers. Input `repeat 9223372036854775807 - 9223372036854775806 { F }`:
 * expected one F per device; was "line 1, column 8: number too large".
 */
static void test_int64_max_literal(void **state)
{
	static const char *const rows[] = {"F0,0", "F1,0"};
	check_orders("INT64_MAX literal", I_CHAIN2,
		     "repeat 9223372036854775807 - 9223372036854775806 { F }", rows);
}

/*
 * Regression, fixed: sched/lang_run.c eval_call, FN_CDIV (line 152):
 *     return -floor_div(-a[0], a[1]);
 * With a = INT64_MIN, -a overflows (undefined), and for b = -1 floor_div
 * then divides INT64_MIN by -1, which traps (SIGFPE) on x86-64. Input
 * `cdiv(m8, -1)` with m8 = INT64_MIN: expected the run-time error
 * "arithmetic overflow" (the quotient 2^63 does not fit); was: the
 * process is killed by SIGFPE.
 */
static int child_cdiv_min(void)
{
	return child_run("F\n" MIN64 "let x = cdiv(m8, -1)", "arithmetic overflow");
}

static void test_cdiv_int64_min(void **state)
{
	expect_child_ok("cdiv(INT64_MIN, -1)", in_child(child_cdiv_min, 20));
}

/*
 * Regression, fixed: sched/lang_run.c exec_stmt, S_REPEAT / S_FOR (lines 253-272): the step
 * limit counts statements, so a loop with an empty body never reaches it.
 * Input `repeat 1000000000000000000 { }` (or `for i in 0 .. 10^18 { }`):
 * expected to finish quickly, either stopped with "does not finish" or
 * skipped; was: the loop spins 10^18 times (the child is killed by
 * the 5 s alarm).
 */
static int child_empty_loops(void)
{
	int a = child_run("F\nrepeat 1000000000000000000 { }", NULL);
	int b = child_run("F\nfor i in 0 .. 1000000000000000000 { }", NULL);
	return a || b;
}

static void test_empty_loop_runaway(void **state)
{
	expect_child_ok("empty loop body", in_child(child_empty_loops, 5));
}

/*
 * Regression, fixed: sched/lang_parse.c parse_primary / parse_binary (lines 397, 490)
 * recurse once per nesting level with no depth limit. Input `let x = ((((...1...))))` with 10^6
 * parentheses, then F: expected a parse error (too deeply nested) or a
 * parse; was: the stack overflows and the process crashes (SIGSEGV).
 * A program file is user input, so this is a crash on bad input.
 */
static int child_deep_nesting(void)
{
	const int n = 1000000;
	char *text = malloc(2 * (size_t)n + 32);
	if (!text)
		return 6;
	char *p = text;
	p += sprintf(p, "let x = ");
	memset(p, '(', n);
	p += n;
	*p++ = '1';
	memset(p, ')', n);
	p += n;
	strcpy(p, "\nF\n");
	int r = child_run(text, NULL);
	free(text);
	return r;
}

static void test_deep_nesting(void **state)
{
	expect_child_ok("deep nesting", in_child(child_deep_nesting, 20));
}

/*
 * Regression, fixed: sched/lang_parse.c parse_def (line 673): parameter names are copied into
 * char store[8][64] with snprintf, so a parameter name of 64 or more
 * characters is truncated and the body's use of the full name no longer
 * resolves (the lexer accepts names up to 255). Input
 * `def f(<70 x's>) = <70 x's>` then `repeat f(2) { F }`: expected 2 F's per
 * device; was: "unknown name 'xxx...'".
 */
static void test_long_param_name(void **state)
{
	char name[71], text[512];
	memset(name, 'x', 70);
	name[70] = 0;
	snprintf(text, sizeof text, "def f(%s) = %s\nrepeat f(2) { F }", name, name);
	static const char *const rows[] = {"F0,0 F0,1", "F1,0 F1,1"};
	check_orders("long parameter name", I_CHAIN2, text, rows);
}

/*
 * Regression, fixed: sched/lang_parse.c parse_def (line 669) accepts a def named like a built-in
 * function (min, max, abs, cdiv, stage, depth), and parse_call then
 * silently calls the built-in instead (line 352: builtin_fns overrides e->fn).
 * Input `def abs(a) = a + 2` then `repeat abs(1) { F }`: expected either a
 * parse error naming abs, or the def used (3 F's); was: 1 F, the def
 * ignored.
 */
static void test_def_shadows_builtin(void **state)
{
	const char *text = "def abs(a) = a + 2\nrepeat abs(1) { F }";
	struct program *pg = PG_SENTINEL;
	struct error err = {{0}};
	if (program_parse(text, SRC, &pg, &err)) {
		check_error_message("def abs", err.msg, SRC, "line 1, column 5", "abs");
		return;
	}
	struct instance *in = parse_instance_ok(I_CHAIN2);
	struct schedule *sc = run_ok("def abs", pg, in);
	static const char *const rows[] = {"F0,0 F0,1 F0,2", "F1,0 F1,1 F1,2"};
	expect_rows("def abs", sc, 2, rows);
	schedule_free(sc);
	program_free(pg);
	instance_free(in);
}

/*
 * Regression, fixed (undefined behaviour, caught only under -DPIPEOPT_SANITIZE=ON): with
 * m8 = INT64_MIN, `cdiv(m8, 1)` negates INT64_MIN (sched/lang_run.c:152,
 * eval_call, FN_CDIV) and `m8 % 9223372036854775799` overflows in
 * `a - x * b` (sched/lang_run.c:100, eval_bin, x = -2).
 * Both values fit: cdiv(m8, 1) = m8, and m8 mod 9223372036854775799 =
 * m8 + 2 * 9223372036854775799 = 9223372036854775790. A wrapping build
 * happens to get them right; a sanitized build aborts.
 */
static int child_min_edges(void)
{
	return child_run("F\n" MIN64
			 "require cdiv(m8, 1) == m8 else \"cdiv\"\n"
			 "require m8 % 9223372036854775799 == 9223372036854775790 else \"mod\"\n"
			 "require 0 else \"reached\"",
			 "reached");
}

static void test_int64_min_edges_ub(void **state)
{
	expect_child_ok("INT64_MIN edges", in_child(child_min_edges, 20));
}

/*
 * Regression, fixed (a leak, caught only under -DPIPEOPT_SANITIZE=ON, where
 * LeakSanitizer fails the run; found by fuzzing, issue 16):
 * sched/lang_parse.c parse_block dropped a statement that parse_stmt had
 * built whole when the token after it failed to lex, and ignored the failure
 * of its own trailing next(). Input `repeat m {\n  if true { F } @\n}`:
 * expected the error at the '@' and nothing left allocated; was: the if
 * statement and its block lost. A require followed by a bad byte in a
 * block lost its statement the same way.
 */
static void test_error_after_statement_in_block(void **state)
{
	static const struct perr_case cases[] = {
		{"after a nested block", "repeat m {\n  if true { F } @\n}\nF", 2, 17,
		 "unexpected character '@'"},
		{"after an else block", "for i in 0 .. 2 {\n  if 1 { F } else { B } $\n}", 2, 25,
		 "unexpected character '$'"},
		{"after a require", "if 1 {\n  require 1 else \"r\" \x01\n}\nF", 2, 22,
		 "unexpected byte 0x01"},
		{"after the closing brace", "repeat 2 { F } @", 1, 16, "unexpected character '@'"},
	};
	check_parse_errors(cases, sizeof cases / sizeof cases[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_expressions),
		cmocka_unit_test(test_builtins),
		cmocka_unit_test(test_device_without_stage),
		cmocka_unit_test(test_pad),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_run_errors),
		cmocka_unit_test(test_runaway),
		cmocka_unit_test(test_require),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_int64_max_literal),
		cmocka_unit_test(test_cdiv_int64_min),
		cmocka_unit_test(test_empty_loop_runaway),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_long_param_name),
		cmocka_unit_test(test_def_shadows_builtin),
		cmocka_unit_test(test_int64_min_edges_ub),
		cmocka_unit_test(test_error_after_statement_in_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
