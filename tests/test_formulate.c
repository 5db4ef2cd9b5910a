/*
 * formulate/: the op precedence graph (opgraph.c), the schedule MILP in every
 * registered formulation (formulation.c, disjunctive.c, time_indexed.c,
 * objective.c, schedule_milp.c), the
 * solver-neutral MILP (milp.c), and the digests certificates rest on
 * (common/sha256.c, instance_digest).
 *
 * Known answers are worked out by hand in the comments (arc counts, heads,
 * tails, open pairs, window arcs, time-indexed sizes, an optimum with its
 * lower-bound argument), or come from independent methods: the brute-force
 * enumeration of tests/brute.h, an independent FIFO check of schedules,
 * and the FIPS 180-4 test vectors.
 */
#include "test_helpers.h"

#include "brute.h"
#include "tiny_instances.h"
#include "test_schedules.h"
#include "formulate/disjunctive.h"
#include "formulate/formulation.h"
#include "formulate/milp.h"
#include "formulate/opgraph.h"
#include "formulate/schedule_milp.h"
#include "formulate/time_indexed.h"
#include "solvers/exact.h"
#include "sched/family.h"
#include "common/sha256.h"
#include "sched/sim.h"
#include "solvers/backend.h"
#include "solvers/solver.h"

/* The tests loop over the registry: every formulation must pass them. */
#define NFORMS formulation_count()

/* A registered formulation by name (the white-box tests need a given one). */
static const struct formulation *form_named(const char *name)
{
	const struct formulation *f = formulation_find(name);
	if (!f)
		fail_msg("formulation '%s' is not registered", name);
	return f;
}

/* ---- helpers ----------------------------------------------------------------- */

static struct opgraph *graph_ok(const struct instance *in)
{
	struct error err = {{0}};
	struct opgraph *g = opgraph_new(in, &err);
	if (!g)
		fail_msg("opgraph_new: %s", err.msg);
	return g;
}

static struct sched_milp *build_ok(const struct instance *in, const struct opgraph *g,
				   const struct formulation *form, int64_t horizon,
				   int64_t lower, int64_t upper)
{
	struct error err = {{0}};
	struct sched_milp *sm = sched_milp_build(in, g, form, horizon, lower, upper, &err);
	if (!sm)
		fail_msg("%s model, horizon %lld: %s", form->name,
			 (long long)horizon, err.msg);
	return sm;
}

/* The lag of arc from -> to, or -1 when there is no such arc. */
static int64_t arc_lag(const struct opgraph *g, int from, int to)
{
	for (int e = g->succ_start[from]; e < g->succ_start[from + 1]; e++)
		if (g->succ[e].op == to)
			return g->succ[e].lag;
	return -1;
}

static int rows_named(const struct milp *m, const char *prefix)
{
	int n = 0;
	for (int i = 0; i < m->nrows; i++)
		n += !strncmp(m->rows[i].name, prefix, strlen(prefix));
	return n;
}

/* Independent FIFO check: on every device, each (kind, stage) appears in
 * increasing micro-batch order. */
static bool is_fifo(const struct instance *in, const struct schedule *s)
{
	for (int d = 0; d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++)
			for (int k = i + 1; k < s->rows[d].len; k++) {
				const struct op *a = &s->rows[d].ops[i], *b = &s->rows[d].ops[k];
				if (a->kind == b->kind && a->stage == b->stage && a->mb > b->mb)
					return false;
			}
	(void)in;
	return true;
}

/* Build a schedule from a compact text: devices separated by '|', ops as
 * "F0.1" (kind, stage, micro-batch) separated by spaces. */
static struct schedule *sched_text(int devices, const char *text)
{
	struct schedule *s = schedule_new(devices);
	int d = 0;
	for (const char *p = text; *p;) {
		if (*p == ' ') {
			p++;
		} else if (*p == '|') {
			d++;
			p++;
		} else {
			int kind = *p == 'F' ? OP_F : *p == 'B' ? OP_B : OP_W, stage, mb, used;
			if (sscanf(p + 1, "%d.%d%n", &stage, &mb, &used) != 2)
				fail_msg("bad schedule text at '%s'", p);
			schedule_push(s, d, kind, stage, mb);
			p += 1 + used;
		}
	}
	return s;
}

/* The heuristic upper bound the exact solver starts from. */
static int64_t heuristic_objective(const struct instance *in)
{
	return exact_upper_bound(in, NULL);
}

static int64_t horizon_for(const struct instance *in, int64_t ub)
{
	return exact_horizon(in, ub);
}

/* ---- 1. the op graph of a tiny chain, by hand ----------------------------------- */

/*
 * p = 2 devices, m = 2, split backward, F = 2, B = 3, W = 1, comm 1.
 * Op ids (kind * L + stage) * M + mb:
 *     F00 0  F01 1  F10 2  F11 3  B00 4  B01 5  B10 6  B11 7
 *     W00 8  W01 9  W10 10 W11 11          (Xlj = X(stage l, mb j))
 */
static const char *const TINY_CHAIN =
	"{\"name\":\"tiny-chain\",\"devices\":2,\"microbatches\":2,"
	"\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1}";

enum { F00, F01, F10, F11, B00, B01, B10, B11, W00, W01, W10, W11 };

/*
 * Arcs. Dependencies, per micro-batch j (2 of them): F0j -> F1j (lag 1),
 * B1j -> B0j (lag 1), Flj -> Blj (2 stages), Blj -> Wlj (2 stages): 6 per
 * j, 12 in all. FIFO: X(l,0) -> X(l,1) for 3 kinds and 2 stages: 6. No
 * memory, no windows. Total 18.
 *
 * Heads (longest path from time 0 to the op's start, over all arcs):
 *     F00 0; F01 = F00 + 2 = 2; F10 = F00 + 2 + 1 = 3;
 *     F11 = max(F01 + 2 + 1, F10 + 2) = 5; B10 = F10 + 2 = 5;
 *     B11 = max(F11 + 2, B10 + 3) = 8; B00 = max(F00 + 2, B10 + 3 + 1) = 9;
 *     B01 = max(F01 + 2, B11 + 3 + 1, B00 + 3) = 12; W00 = B00 + 3 = 12;
 *     W01 = max(B01 + 3, W00 + 1) = 15; W10 = B10 + 3 = 8;
 *     W11 = max(B11 + 3, W10 + 1) = 11.
 * Tails (longest path from the op's end to the end):
 *     W01 0, W11 0, W00 = 1 (W01), W10 = 1 (W11),
 *     B01 = 1 + 0 = 1 (W01); B00 = max(1 + 1, 3 + 1) = 4 (W00, B01);
 *     B11 = max(1 + 3 + 1, 1 + 0) = 5 (B01 over comm, W11);
 *     B10 = max(1 + 3 + 4, 1 + 1, 3 + 5) = 8 (B00, W10, B11);
 *     F11 = 3 + 5 = 8 (B11); F10 = max(3 + 8, 2 + 8) = 11 (B10, F11);
 *     F01 = max(1 + 2 + 8, 3 + 1) = 11 (F11 over comm, B01);
 *     F00 = max(1 + 2 + 11, 3 + 4, 2 + 11) = 14 (F10, B00, F01).
 * Critical path: head + dur + tail of F00 = 16 (also of W01: 15 + 1 + 0).
 */
static void test_opgraph_tiny_chain(void **state)
{
	struct instance *in = parse_instance_ok(TINY_CHAIN);
	struct opgraph *g = graph_ok(in);
	static const int64_t head[12] = {0, 2, 3, 5, 9, 12, 5, 8, 12, 15, 8, 11};
	static const int64_t tail[12] = {14, 11, 11, 8, 4, 1, 8, 5, 1, 0, 1, 0};
	static const int64_t dur[12] = {2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1};
	assert_int_equal(g->n, 12);
	assert_int_equal(g->narcs, 18);
	assert_int_equal(g->window_arcs, 0);
	for (int o = 0; o < 12; o++) {
		if (g->head[o] != head[o] || g->tail[o] != tail[o] || g->dur[o] != dur[o])
			fail_msg("op %d: head %lld tail %lld dur %lld, expected %lld %lld %lld", o,
				 (long long)g->head[o], (long long)g->tail[o], (long long)g->dur[o],
				 (long long)head[o], (long long)tail[o], (long long)dur[o]);
		assert_int_equal(g->device[o], o % 4 >= 2);   /* stage l on device l */
	}
	/* arcs with their lags; comm only across devices */
	assert_int_equal(arc_lag(g, F00, F10), 1);
	assert_int_equal(arc_lag(g, B10, B00), 1);
	assert_int_equal(arc_lag(g, F00, B00), 0);
	assert_int_equal(arc_lag(g, B11, W11), 0);
	assert_int_equal(arc_lag(g, W00, W01), 0);   /* FIFO */
	assert_int_equal(arc_lag(g, F10, F00), -1);  /* no arc backwards */
	assert_int_equal(arc_lag(g, F00, W11), -1);  /* implied, not an arc */
	/* pred lists mirror succ lists */
	int npred = g->pred_start[g->n], nsucc = g->succ_start[g->n];
	assert_int_equal(npred, 18);
	assert_int_equal(nsucc, 18);
	/* closure: F00 -> F10 -> B10 -> W10 -> W11 */
	assert_true(opgraph_precedes(g, F00, W11));
	assert_false(opgraph_precedes(g, W11, F00));
	/* B10 -> B00 -> B01 (comm, then FIFO) */
	assert_true(opgraph_precedes(g, B10, B01));
	assert_false(opgraph_precedes(g, B01, B10));
	assert_false(opgraph_precedes(g, F00, F00));
	/*
	 * Same-device pairs left open. Device 0 (F00 F01 B00 B01 W00 W01):
	 * F00 precedes all; F01 precedes B01, W01; B00 precedes B01, W00, W01;
	 * W00 and B01 precede W01. Open: (F01, B00), (F01, W00), (W00, B01):
	 * B00's ancestors are F00, B10, F10 (no F01), and W00's descendants are
	 * W01 only. Device 1 mirrors it: (F11, B10), (F11, W10), (W10, B11).
	 */
	static const int open_pairs[6][2] = {{F01, B00}, {F01, W00}, {B01, W00},
				       {F11, B10}, {F11, W10}, {B11, W10}};
	int nopen = 0;
	for (int a = 0; a < 12; a++)
		for (int b = a + 1; b < 12; b++) {
			if (g->device[a] != g->device[b] || opgraph_precedes(g, a, b) ||
			    opgraph_precedes(g, b, a))
				continue;
			bool listed = false;
			for (int p = 0; p < 6; p++)
				listed |= (open_pairs[p][0] == a && open_pairs[p][1] == b) ||
					  (open_pairs[p][0] == b && open_pairs[p][1] == a);
			if (!listed)
				fail_msg("pair (%d, %d) is open, expected ordered", a, b);
			nopen++;
		}
	assert_int_equal(nopen, 6);
	/* only F00, F10 can start a device; only W01, W11 can end one */
	for (int o = 0; o < 12; o++) {
		assert_int_equal(g->dev_first[o], o == F00 || o == F10);
		assert_int_equal(g->dev_last[o], o == W01 || o == W11);
	}
	/* topological order respects every arc */
	int where[12];
	for (int t = 0; t < 12; t++)
		where[g->topo[t]] = t;
	for (int i = 0; i < 12; i++)
		for (int e = g->succ_start[i]; e < g->succ_start[i + 1]; e++)
			assert_true(where[i] < where[g->succ[e].op]);
	opgraph_free(g);
	opgraph_free(NULL);
	instance_free(in);
}

/* ---- 2. memory windows ----------------------------------------------------------- */

/*
 * p = 2, m = 4, deltas F = 2, B = -1, W = -1, limit 4: K = floor(4 / 2) = 2.
 * If F(l,j+2) starts before B(l,j), stage l holds j + 3 forwards and at
 * most j B's and j W's: (j + 3) 2 - 2 j = 6 > 4. So B(l,j) -> F(l,j+2) for
 * j + 2 < 4, j = 0, 1: 2 arcs per stage, 4 in all. Dependencies: 6 per
 * micro-batch (as in the tiny chain) = 24; FIFO 2 stages x 3 kinds x 3 = 18.
 * Total 24 + 18 + 4 = 46, and 42 without the limit.
 */
static const char *const WINDOW_CHAIN =
	"{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1,"
	"\"memory\":{\"F\":2,\"B\":-1,\"W\":-1%s}}";

static struct instance *window_instance(const char *limit)
{
	char json[512];
	snprintf(json, sizeof json, WINDOW_CHAIN, limit);
	return parse_instance_ok(json);
}

static void test_opgraph_window_arcs(void **state)
{
	struct instance *in = window_instance(",\"limit\":4");
	struct opgraph *g = graph_ok(in);
	assert_int_equal(g->window_arcs, 4);
	assert_int_equal(g->narcs, 46);
	for (int l = 0; l < 2; l++) {
		for (int j = 0; j < 2; j++) {
			assert_int_equal(arc_lag(g, inst_op_id(in, OP_B, l, j),
						 inst_op_id(in, OP_F, l, j + 2)), 0);
			assert_true(opgraph_precedes(g, inst_op_id(in, OP_B, l, j),
						     inst_op_id(in, OP_F, l, j + 2)));
		}
		/* j = 2 would need F(l,4): none; B(l,2) does not bind F(l,3) */
		assert_false(opgraph_precedes(g, inst_op_id(in, OP_B, l, 2),
					      inst_op_id(in, OP_F, l, 3)));
		/* a window K = 2, not 1: B(l,0) does not bind F(l,1) */
		assert_false(opgraph_precedes(g, inst_op_id(in, OP_B, l, 0),
					      inst_op_id(in, OP_F, l, 1)));
	}
	/*
	 * The windows and memory raise heads. B(0,0) starts after B(1,0): F00
	 * 0-2, comm, F10 3-5, B10 5-8, comm, B00 9-12; so F(0,2) >= 12 by the
	 * window. Memory says more (sched/bound.c's ranks): F(0,2) needs
	 * 2*3 - nB - nW <= 4, so B00 and W00 (or B01, which ends >= 15) before
	 * it: W00 runs 12-13 at the earliest, F(0,2) >= 13; then
	 * F(1,2) >= F(0,2) 13 + 2 + comm 1 = 16.
	 */
	assert_int_equal(g->head[inst_op_id(in, OP_F, 0, 2)], 13);
	assert_int_equal(g->head[inst_op_id(in, OP_F, 1, 2)], 16);
	opgraph_free(g);
	instance_free(in);

	/* the same without a limit: no windows, 42 arcs */
	in = window_instance("");
	g = graph_ok(in);
	assert_int_equal(g->window_arcs, 0);
	assert_int_equal(g->narcs, 42);
	assert_false(opgraph_precedes(g, inst_op_id(in, OP_B, 0, 0), inst_op_id(in, OP_F, 0, 2)));
	/* without windows F(0,2) waits only for F(0,0), F(0,1): head 4; F(1,2)
	 * for F(1,1) (head 5, + 2) and F(0,2) (4 + 2 + 1): 7 */
	assert_int_equal(g->head[inst_op_id(in, OP_F, 0, 2)], 4);
	assert_int_equal(g->head[inst_op_id(in, OP_F, 1, 2)], 7);
	opgraph_free(g);
	instance_free(in);
}

/* A positive W delta breaks the argument (a W adds memory back), so the
 * device gets no windows; fused deltas work as W = 0. */
static void test_opgraph_window_cases(void **state)
{
	/* F = 1, B = -2, W = +1, limit 2: would give K = 2, but W > 0 */
	struct instance *in = parse_instance_ok(
		"{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":2,\"B\":3,\"W\":1},"
		"\"memory\":{\"F\":1,\"B\":-2,\"W\":1,\"limit\":2}}");
	struct opgraph *g = graph_ok(in);
	assert_int_equal(g->window_arcs, 0);
	assert_int_equal(g->narcs, 42);
	opgraph_free(g);
	instance_free(in);

	/* fused, F = 1, B = -1, limit 1: K = 1, B(l,j) -> F(l,j+1) for j = 0..2,
	 * 3 per stage, 6 in all; arcs 4 per micro-batch (16) + FIFO 2 x 2 x 3
	 * (12) + 6 = 34 */
	in = parse_instance_ok("{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":1,\"B\":1},"
			       "\"memory\":{\"F\":1,\"B\":-1,\"limit\":1}}");
	g = graph_ok(in);
	assert_int_equal(g->window_arcs, 6);
	assert_int_equal(g->narcs, 34);
	assert_true(opgraph_precedes(g, inst_op_id(in, OP_B, 1, 2), inst_op_id(in, OP_F, 1, 3)));
	opgraph_free(g);
	instance_free(in);

	/* interleaved, one stage of device 0 has W > 0: no windows on device 0
	 * (stages 0 and 2), stage 1 and 3 on device 1 keep theirs: K = 4 / 2 = 2,
	 * m = 3: j = 0 only, one arc each, 2 in all */
	in = parse_instance_ok(
		"{\"devices\":2,\"microbatches\":3,\"chunks\":2,\"placement\":\"interleaved\","
		"\"cost\":{\"F\":1,\"B\":1,\"W\":1},"
		"\"memory\":{\"F\":2,\"B\":[-1,-1,-3,-1],\"W\":[-1,-1,1,-1],\"limit\":4}}");
	g = graph_ok(in);
	assert_int_equal(g->window_arcs, 2);
	assert_true(opgraph_precedes(g, inst_op_id(in, OP_B, 1, 0), inst_op_id(in, OP_F, 1, 2)));
	assert_true(opgraph_precedes(g, inst_op_id(in, OP_B, 3, 0), inst_op_id(in, OP_F, 3, 2)));
	assert_int_equal(arc_lag(g, inst_op_id(in, OP_B, 0, 0), inst_op_id(in, OP_F, 0, 2)), -1);
	assert_int_equal(arc_lag(g, inst_op_id(in, OP_B, 2, 0), inst_op_id(in, OP_F, 2, 2)), -1);
	opgraph_free(g);
	instance_free(in);
}

/* ---- 3. the disjunctive model, points and decoding ------------------------------- */

/*
 * Tiny chain, disjunctive, horizon 18 (its optimum, see test 5): 12 end
 * columns, the 6 open pairs of test 1 as binaries, Cmax: 19 columns. Rows:
 * 18 precedence (one per arc), 12 order rows (two per pair), Cmax >= E
 * for the 2 ops no arc leaves (W01, W11), and energetic rows for the 10
 * ops with something after them on their device or in an open pair (all
 * but W01 and W11).
 */
static void test_disjunctive_tiny_chain(void **state)
{
	struct instance *in = parse_instance_ok(TINY_CHAIN);
	struct opgraph *g = graph_ok(in);
	struct sched_milp *sm = build_ok(in, g, form_named("disjunctive"), 18, 0, 18);
	struct milp *m = sm->milp;
	const struct disjunctive *dj = sm->data;
	assert_int_equal(dj->npairs, 6);
	assert_int_equal(milp_binaries(m), 6);
	assert_int_equal(m->ncols, 12 + 6 + 1);
	static const int want[6][2] = {{F01, B00}, {F01, W00}, {F11, B10},
				       {F11, W10}, {B01, W00}, {B11, W10}};
	for (int p = 0; p < 6; p++) {
		bool found = false;
		for (int q = 0; q < dj->npairs; q++)
			found |= dj->pair[q][0] == want[p][0] && dj->pair[q][1] == want[p][1];
		if (!found)
			fail_msg("pair (%d, %d) missing", want[p][0], want[p][1]);
	}
	/* end columns: distinct, bounds head + T .. H - tail */
	for (int o = 0; o < 12; o++) {
		const struct milp_col *c = &m->cols[dj->end_col[o]];
		assert_false(c->integer);
		assert_double_near(c->lb, (double)(g->head[o] + g->dur[o]), 0);
		assert_double_near(c->ub, (double)(18 - g->tail[o]), 0);
	}
	assert_double_near(m->cols[dj->end_col[F00]].ub, 4, 0);   /* 18 - 14 */
	assert_double_near(m->cols[dj->end_col[W10]].lb, 9, 0);   /* 8 + 1 */
	assert_double_near(m->cols[sm->obj_col].lb, 0, 0);
	assert_double_near(m->cols[sm->obj_col].ub, 18, 0);
	assert_double_near(m->cols[sm->obj_col].obj, 1, 0);
	assert_int_equal(rows_named(m, "prec_"), 18);
	assert_int_equal(rows_named(m, "ord_"), 12);
	assert_int_equal(rows_named(m, "cmax_"), 2);
	assert_int_equal(rows_named(m, "energy_"), 10);
	assert_int_equal(rows_named(m, "mem_"), 0);
	assert_int_equal(m->nrows, 42);
	assert_string_equal(formulation_at(0)->name, "disjunctive");
	assert_string_equal(formulation_at(1)->name, "time-indexed");
	sched_milp_free(sm);
	sched_milp_free(NULL);
	opgraph_free(g);
	instance_free(in);
}

/* The 1f1b schedule's point lies in both models; an order that runs F(0,1)
 * before F(0,0) (valid, but not FIFO) lies in neither. */
static void test_point_fifo_and_not(void **state)
{
	struct instance *in = parse_instance_ok(TINY_CHAIN);
	struct opgraph *g = graph_ok(in);
	struct sim *sim = sim_new(in);
	struct sim_result sr;
	struct error err = {{0}};
	struct schedule *good = NULL;
	if (family_generate("1f1b", in, &good, &err))
		fail_msg("1f1b: %s", err.msg);
	struct schedule *swapped = sched_text(2, "F0.1 F0.0 B0.0 W0.0 B0.1 W0.1 | "
						 "F1.0 B1.0 W1.0 F1.1 B1.1 W1.1");
	assert_false(is_fifo(in, swapped));
	assert_true(is_fifo(in, good));
	/* a horizon both fit in */
	assert_int_equal(sim_run(sim, swapped, &sr, &err), STATUS_OK);
	int64_t H = sr.makespan;
	assert_int_equal(sim_run(sim, good, &sr, &err), STATUS_OK);
	H = sr.makespan > H ? sr.makespan : H;
	for (int f = 0; f < NFORMS; f++) {
		struct sched_milp *sm = build_ok(in, g, formulation_at(f), H, 0, H);
		double *x = calloc(sm->milp->ncols, sizeof *x);
		assert_int_equal(sim_run(sim, good, &sr, &err), STATUS_OK);
		if (!sched_milp_point(sm, good, &sr, x))
			fail_msg("%s: the 1f1b point is rejected", formulation_at(f)->name);
		assert_true(milp_feasible(sm->milp, x, 1e-9, NULL));
		assert_double_near(milp_objective(sm->milp, x), (double)sr.makespan, 1e-9);
		assert_int_equal(sim_run(sim, swapped, &sr, &err), STATUS_OK);
		if (sched_milp_point(sm, swapped, &sr, x))
			fail_msg("%s: a non-FIFO point is accepted", formulation_at(f)->name);
		free(x);
		sched_milp_free(sm);
	}
	/* beyond the horizon: at 16 (the critical path) the 1f1b schedule,
	 * which ends later (the optimum is 18, test 5), lies outside both */
	assert_int_equal(sim_run(sim, good, &sr, &err), STATUS_OK);
	assert_true(sr.makespan > 16);
	for (int f = 0; f < NFORMS; f++) {
		struct sched_milp *sm = build_ok(in, g, formulation_at(f), 16, 0, 16);
		double *x = calloc(sm->milp->ncols, sizeof *x);
		if (sched_milp_point(sm, good, &sr, x))
			fail_msg("%s: a point beyond the horizon is accepted",
				 formulation_at(f)->name);
		free(x);
		sched_milp_free(sm);
	}
	schedule_free(good);
	schedule_free(swapped);
	sim_free(sim);
	opgraph_free(g);
	instance_free(in);
}

struct roundtrip_case {
	const char *name;
	const char *json;
	const char *must[3];   /* families that must apply and round-trip */
};

static const struct roundtrip_case roundtrips[] = {
	{"tiny chain", NULL, {"1f1b", "zb-h1", "gpipe"}},
	{"chain3 fused uneven",
	 "{\"devices\":3,\"microbatches\":3,\"cost\":{\"F\":[3,1,2],\"B\":[2,4,1]},\"comm\":1}",
	 {"1f1b", "gpipe", NULL}},
	{"interleaved 2x2",
	 "{\"devices\":2,\"microbatches\":4,\"chunks\":2,\"placement\":\"interleaved\","
	 "\"cost\":{\"F\":[1,2,1,2],\"B\":[2,2,1,3]},\"comm\":1}",
	 {"interleaved", "looped-bfs", NULL}},
	{"v 2x2 split",
	 "{\"devices\":2,\"microbatches\":4,\"chunks\":2,\"placement\":\"v\","
	 "\"cost\":{\"F\":2,\"B\":2,\"W\":1},\"comm\":1}",
	 {"zb-v", NULL, NULL}},
	{"diamond dag",
	 "{\"devices\":4,\"microbatches\":2,\"edges\":[[0,1],[0,2],[1,3],[2,3]],"
	 "\"cost\":{\"F\":[1,2,3,1],\"B\":[1,2,2,1]},\"comm\":1}",
	 {"1f1b-dag", NULL, NULL}},
	{"chain2 memory windows",
	 "{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1,"
	 "\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":4}}",
	 {"zb-h1", "1f1b", NULL}},
	{"chain3 span",
	 "{\"devices\":3,\"microbatches\":3,\"cost\":{\"F\":2,\"B\":2,\"W\":1},\"comm\":1,"
	 "\"objective\":\"span\"}",
	 {"1f1b", "zb-h1", NULL}},
	/* zero-length W's start together with the op after them: decoding must
	 * put them first, as the simulated order does */
	{"chain3 split W=0",
	 "{\"devices\":3,\"microbatches\":3,\"cost\":{\"F\":2,\"B\":1,\"W\":0},\"comm\":1}",
	 {"1f1b", "zb-h1", NULL}},
};

/* One family's schedule through both models: point, then decode. Returns
 * whether it was a FIFO schedule (and so had to round-trip). */
static bool roundtrip_one(const char *what, const struct instance *in,
			  const struct opgraph *g, struct sim *sim, const struct schedule *s)
{
	struct sim_result sr;
	struct error err = {{0}};
	if (sim_run(sim, s, &sr, &err))
		fail_msg("%s: does not simulate: %s", what, err.msg);
	bool fifo = is_fifo(in, s);
	int64_t makespan = sr.makespan, objective = sr.objective;
	for (int f = 0; f < NFORMS; f++) {
		struct sched_milp *sm = build_ok(in, g, formulation_at(f), makespan, 0, objective);
		double *x = calloc(sm->milp->ncols, sizeof *x);
		sim_run(sim, s, &sr, &err);   /* arrays stay valid until the next run */
		bool ok = sched_milp_point(sm, s, &sr, x);
		if (ok != fifo)
			fail_msg("%s, %s: point %s for a %sFIFO schedule", what,
				 formulation_at(f)->name, ok ? "accepted" : "rejected",
				 fifo ? "" : "non-");
		if (ok) {
			assert_double_near(milp_objective(sm->milp, x), (double)objective, 1e-9);
			struct schedule *back = NULL;
			assert_int_equal(sched_milp_decode(sm, x, &back, &err), STATUS_OK);
			/* orders: none of these instances has overlap, so no pairs (those: test_disjunctive_pairs_by_hand) */
			if (!schedule_same_orders(back, s))
				fail_msg("%s, %s: decoding the point gives another schedule", what,
					 formulation_at(f)->name);
			schedule_free(back);
		}
		free(x);
		sched_milp_free(sm);
	}
	return fifo;
}

/*
 * Overlapped F&B pairs in the disjunctive model, by hand. One device, one
 * stage, two micro-batches, F = B = 2, overlap rho 0 (a pair lasts
 * max(2, 2) = 2). FIFO and F -> B close every order but F(0,1) against
 * B(0,0): one open pair, one candidate, so two binaries (y and z). The
 * schedule F0, (F1 & B0), B1 ends at 2 + 2 + 2 = 6 (8 back to back): its
 * point lies in the model and decodes to itself, pair and all. With
 * memory F +1, B -1 and limit 1 the pair is invalid (its F is charged
 * first: F0's and F1's activations, 2 > 1); the memory window B(0,0) ->
 * F(0,1) (opgraph.c) then orders the two, so no pair is open and the
 * model has no z.
 */
static void test_disjunctive_pairs_by_hand(void **state)
{
	(void)state;
	static const char *const json[2] = {
		"{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2},"
		"\"overlap\":{\"factor\":0}}",
		"{\"devices\":1,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2},"
		"\"overlap\":{\"factor\":0},\"memory\":{\"F\":1,\"B\":-1,\"limit\":1}}"};
	for (int k = 0; k < 2; k++) {
		struct instance *in = parse_instance_ok(json[k]);
		struct opgraph *g = graph_ok(in);
		struct sched_milp *sm = build_ok(in, g, form_named("disjunctive"), 8, 0, 8);
		const struct disjunctive *dj = sm->data;
		assert_int_equal(dj->npairs, 1 - k);
		assert_int_equal(dj->nfb, 1 - k);
		assert_int_equal(milp_binaries(sm->milp), 2 - 2 * k);
		struct schedule *s = schedule_new(1);
		push_row(s, 0, "F(0,0) F(0,1) +B(0,0) B(0,1)");
		struct sim *sim = sim_new(in);
		struct sim_result sr;
		struct error err = {{0}};
		double *x = calloc(sm->milp->ncols, sizeof *x);
		if (k == 0) {
			assert_int_equal(dj->fb_dur[0], 2);
			assert_int_equal(sim_run(sim, s, &sr, &err), STATUS_OK);
			assert_int_equal(sr.makespan, 6);
			assert_true(sched_milp_point(sm, s, &sr, x));
			assert_double_near(milp_objective(sm->milp, x), 6, 1e-9);
			struct schedule *back = NULL;
			assert_int_equal(sched_milp_decode(sm, x, &back, &err), STATUS_OK);
			assert_true(schedule_equal(back, s));
			schedule_free(back);
		} else {
			/* the simulator refuses it too; the model has no z to hold it */
			assert_int_equal(sim_run(sim, s, &sr, &err), STATUS_ERROR);
			assert_non_null(strstr(err.msg, "memory"));
		}
		free(x);
		sim_free(sim);
		schedule_free(s);
		sched_milp_free(sm);
		opgraph_free(g);
		instance_free(in);
	}
}

static void test_point_decode_roundtrip(void **state)
{
	int checked = 0;
	for (size_t c = 0; c < sizeof roundtrips / sizeof roundtrips[0]; c++) {
		const struct roundtrip_case *rc = &roundtrips[c];
		struct instance *in = parse_instance_ok(rc->json ? rc->json : TINY_CHAIN);
		struct opgraph *g = graph_ok(in);
		struct sim *sim = sim_new(in);
		bool seen[3] = {false, false, false};
		for (int i = 0; i < family_count(); i++) {
			const struct family *fam = family_at(i);
			struct schedule *s = NULL;
			struct sim_result sr;
			if (family_run(fam, in, &s, NULL) || sim_run(sim, s, &sr, NULL)) {
				schedule_free(s);
				continue;
			}
			char what[128];
			snprintf(what, sizeof what, "%s / %s", rc->name, fam->name);
			bool fifo = roundtrip_one(what, in, g, sim, s);
			for (int k = 0; k < 3; k++)
				if (rc->must[k] && !strcmp(rc->must[k], fam->name)) {
					if (!fifo)
						fail_msg("%s is not FIFO", what);
					seen[k] = true;
				}
			checked += fifo;
			schedule_free(s);
		}
		/* and the serial order, FIFO by construction */
		struct schedule *s = family_serial(in);
		char what[128];
		snprintf(what, sizeof what, "%s / serial", rc->name);
		assert_true(roundtrip_one(what, in, g, sim, s));
		schedule_free(s);
		checked++;
		for (int k = 0; k < 3; k++)
			if (rc->must[k] && !seen[k])
				fail_msg("%s: family %s did not apply", rc->name, rc->must[k]);
		sim_free(sim);
		opgraph_free(g);
		instance_free(in);
	}
	/* at least the 15 required families and the 8 serial orders */
	assert_true(checked >= 15 + 8);
}

/* ---- 4. the time-indexed model's size and refusals -------------------------------- */

/*
 * A window per op [head, H - T - tail] holds H - (head + T + tail) + 1
 * starts. From test 1, head + T + tail per op:
 *     F00 16  F01 15  F10 16  F11 15  B00 16  B01 16  B10 16  B11 16
 *     W00 14  W01 16  W10 10  W11 12     (sum 178)
 * so size(H) = 12 (H + 1) - 178 for H >= 16: 26 at 16, 50 at 18, and
 * 12 x 33349 - 178 = 400010 at 33348, just above the 400000 limit, while
 * 12 x 33348 - 178 = 399998 at 33347 is just within.
 */
static void test_time_indexed_size(void **state)
{
	struct instance *in = parse_instance_ok(TINY_CHAIN);
	struct opgraph *g = graph_ok(in);
	assert_int_equal(time_indexed_size(g, 16), 26);
	assert_int_equal(time_indexed_size(g, 18), 50);
	assert_int_equal(time_indexed_size(g, 33347), 399998);
	assert_int_equal(time_indexed_size(g, 33348), 400010);
	assert_true(time_indexed_size(g, 15) < 0);
	/* the model at 16 has those 26 binaries plus Cmax, one assignment
	 * row per op, and the one start the critical ops allow */
	struct sched_milp *sm = build_ok(in, g, form_named("time-indexed"), 16, 0, 16);
	assert_int_equal(milp_binaries(sm->milp), 26);
	assert_int_equal(sm->milp->ncols, 27);
	assert_int_equal(rows_named(sm->milp, "assign_"), 12);
	const struct time_indexed *ti = sm->data;
	assert_int_equal(ti->t_lo[W10], 8);
	assert_int_equal(ti->t_hi[W10], 14);   /* 16 - 1 - 1 */
	assert_int_equal(ti->t_lo[F00], 0);
	assert_int_equal(ti->t_hi[F00], 0);
	sched_milp_free(sm);
	opgraph_free(g);
	instance_free(in);
}

static void test_time_indexed_refuses_large(void **state)
{
	struct instance *in = parse_instance_ok(TINY_CHAIN);
	struct opgraph *g = graph_ok(in);
	struct error err = {{0}};
	struct sched_milp *sm = sched_milp_build(in, g, form_named("time-indexed"), 33348, 0, 33348, &err);
	assert_null(sm);
	check_error_message("time-indexed too large", err.msg, "'tiny-chain'", "400010",
			    "400000");
	assert_contains(err.msg, "disjunctive");
	/* the disjunctive model does not depend on the horizon's size */
	sm = build_ok(in, g, form_named("disjunctive"), 33348, 0, 33348);
	assert_int_equal(((const struct disjunctive *)sm->data)->npairs, 6);
	sched_milp_free(sm);
	opgraph_free(g);
	instance_free(in);
}

/* The critical path is 16 (test 1): at 15 both builds fail and say so. */
static void test_horizon_below_critical_path(void **state)
{
	struct instance *in = parse_instance_ok(TINY_CHAIN);
	struct opgraph *g = graph_ok(in);
	for (int f = 0; f < NFORMS; f++) {
		struct error err = {{0}};
		struct sched_milp *sm = sched_milp_build(in, g, formulation_at(f), 15, 0, 15, &err);
		if (sm)
			fail_msg("%s: built below the critical path", formulation_at(f)->name);
		assert_contains(err.msg, "horizon 15");
		assert_null(strchr(err.msg, '\n'));
		sm = build_ok(in, g, formulation_at(f), 16, 0, 16);
		sched_milp_free(sm);
	}
	opgraph_free(g);
	instance_free(in);
}

/* A zero-length W that adds memory cannot be placed by the time-indexed
 * capacity rows; the build refuses it, the disjunctive one does not. */
static void test_time_indexed_zero_length_positive_delta(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"name\":\"zero-w\",\"devices\":2,\"microbatches\":2,"
		"\"cost\":{\"F\":1,\"B\":1,\"W\":0},"
		"\"memory\":{\"F\":1,\"B\":-2,\"W\":1,\"limit\":3}}");
	struct opgraph *g = graph_ok(in);
	struct error err = {{0}};
	assert_null(sched_milp_build(in, g, form_named("time-indexed"), 20, 0, 20, &err));
	assert_contains(err.msg, "'zero-w'");
	assert_contains(err.msg, "zero-length");
	struct sched_milp *sm = build_ok(in, g, form_named("disjunctive"), 20, 0, 20);
	sched_milp_free(sm);
	opgraph_free(g);
	instance_free(in);
}

/* ---- 5. solving the built models against brute force ------------------------------- */

/*
 * Memory limits that the window arcs do not capture, so that only the
 * models' memory rows keep the solution valid (the shared instances'
 * limits are all implied by their windows).
 *
 * "chain2 split mem B=0": deltas F 1, B 0, W -1, limit 1: K = 1 gives
 * B(l,0) -> F(l,1), but F(l,1) must also wait for W(l,0) (1 + 0 + 1 > 1).
 * Each device runs F B W F B W: F00 0-1, F10 2-3, B10 3-5, W10 5-6,
 * B00 6-8, W00 8-9, F01 9-10, F11 11-12, B11 12-14, W11 14-15, B01 15-17,
 * W01 17-18: optimum 18. Without the limit 12: the later B on stage 1
 * starts >= 2 + 1 + 1 + 2 = 6 (device 1 first runs both F's and the other
 * B, from F(0,x) 0-1 + comm), so stage 0's last B ends >= 8 + 1 + 2 = 11
 * and its W >= 12; device 1 F10 B10 F11 B11 W10 W11 attains it. Brute
 * force agrees on both.
 * "interleaved 2x2 fused mem": F 1, B -1, limit 2 per device: windows are
 * per stage (K = 2 >= m, none), yet stages 0 and 2 share device 0.
 */
static const struct tiny memory_tinies[] = {
	{"chain2 split mem B=0",
	 "{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":2,\"W\":1},\"comm\":1,"
	 "\"memory\":{\"F\":1,\"B\":0,\"W\":-1,\"limit\":1}}"},
	{"interleaved 2x2 fused mem",
	 "{\"devices\":2,\"microbatches\":2,\"chunks\":2,\"placement\":\"interleaved\","
	 "\"cost\":{\"F\":[1,2,1,2],\"B\":[2,2,1,3]},\"comm\":1,"
	 "\"memory\":{\"F\":1,\"B\":-1,\"limit\":2}}"},
};
#define NMEMORY (int)(sizeof memory_tinies / sizeof memory_tinies[0])

/* Instance 0 is the tiny chain worked out by hand; then the shared ones,
 * then the memory ones above. */
static const struct tiny *tiny_at(int i)
{
	static const struct tiny hand = {"tiny chain", NULL};
	return i == 0 ? &hand : i <= NTINY ? &tiny_instances[i - 1] :
		&memory_tinies[i - 1 - NTINY];
}

static const char *tiny_name(int i)
{
	return tiny_at(i)->name;
}

#define NTINIES (NTINY + 1 + NMEMORY)

static struct instance *tiny_instance(int i)
{
	return parse_instance_ok(i == 0 ? TINY_CHAIN : tiny_at(i)->json);
}

/* The memory instances really need their memory rows: the first one's
 * optimum is 18 with the limit and 12 without (hand schedule above). */
static void test_memory_tinies_bind(void **state)
{
	struct instance *in = parse_instance_ok(memory_tinies[0].json);
	assert_int_equal(brute_optimum(in, NULL), 18);
	struct opgraph *g = graph_ok(in);
	assert_int_equal(g->window_arcs, 2);
	opgraph_free(g);
	instance_free(in);
	in = parse_instance_ok(
		"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":2,\"W\":1},\"comm\":1}");
	assert_int_equal(brute_optimum(in, NULL), 12);
	instance_free(in);
	for (int i = 0; i < NMEMORY; i++) {
		in = parse_instance_ok(memory_tinies[i].json);
		int64_t with = brute_optimum(in, NULL);
		in->has_limit = false;   /* the same instance, unconstrained */
		int64_t without = brute_optimum(in, NULL);
		in->has_limit = true;
		if (!(with > without))
			fail_msg("%s: the limit does not bind (%lld, %lld)", memory_tinies[i].name,
				 (long long)with, (long long)without);
		instance_free(in);
	}
}

static void solve_model(const struct solver_backend *b, const struct milp *m,
			struct solver_result *r, const char *what)
{
	struct solver_options o = {.time_limit = 60, .threads = 1};
	struct error err = {{0}};
	memset(r, 0, sizeof *r);
	if (b->solve(m, &o, r, &err))
		fail_msg("%s, %s: solve failed: %s", what, b->name, err.msg);
}

/* The tiny chain's optimum is 18, by hand. Lower bound: device 1 starts
 * no earlier than F(0,x) + comm = 3, and before the later of its two B's
 * it runs both F's and the other B: that B starts >= 3 + 2 + 2 + 3 = 10,
 * ends >= 13; its B on stage 0 starts >= 14, ends >= 17, and that stage's
 * W ends >= 18. Achieved by
 *     device 0: F00 0-2, F01 2-4, B00 9-12, W00 12-13, B01 14-17, W01 17-18
 *     device 1: F10 3-5, B10 5-8, F11 8-10, B11 10-13, W10 13-14, W11 14-15.
 * The brute force must agree, and so the comparisons below are anchored. */
static void test_tiny_chain_optimum_by_hand(void **state)
{
	struct instance *in = parse_instance_ok(TINY_CHAIN);
	assert_int_equal(brute_optimum(in, NULL), 18);
	struct sim *sim = sim_new(in);
	struct sim_result sr;
	struct error err = {{0}};
	struct schedule *s = sched_text(2, "F0.0 F0.1 B0.0 W0.0 B0.1 W0.1 | "
					   "F1.0 B1.0 F1.1 B1.1 W1.0 W1.1");
	assert_int_equal(sim_run(sim, s, &sr, &err), STATUS_OK);
	assert_int_equal(sr.makespan, 18);
	schedule_free(s);
	sim_free(sim);
	instance_free(in);
}

/*
 * For each tiny instance, each formulation and each backend: the model
 * built with the heuristic's horizon and objective as upper bound, and 0
 * as lower bound, solves to the brute-force optimum.
 */
static void test_models_reach_brute_force_optimum(void **state)
{
	for (int i = 0; i < NTINIES; i++) {
		struct instance *in = tiny_instance(i);
		int64_t opt = brute_optimum(in, NULL);
		int64_t ub = heuristic_objective(in);
		assert_true(opt < INT64_MAX);
		if (ub < opt)
			fail_msg("%s: heuristic %lld below the brute-force optimum %lld",
				 tiny_name(i), (long long)ub, (long long)opt);
		struct opgraph *g = graph_ok(in);
		for (int f = 0; f < NFORMS; f++) {
			struct sched_milp *sm = build_ok(in, g, formulation_at(f), horizon_for(in, ub), 0, ub);
			for (int k = 0; k < solver_count(); k++) {
				const struct solver_backend *b = solver_at(k);
				struct solver_result r;
				char what[160];
				snprintf(what, sizeof what, "%s, %s", tiny_name(i),
					 formulation_at(f)->name);
				solve_model(b, sm->milp, &r, what);
				if (r.outcome != OUTCOME_OPTIMAL || !r.has_solution ||
				    fabs(r.objective - (double)opt) > 1e-6)
					fail_msg("%s, %s: outcome %s, objective %.10g; brute force %lld",
						 what, b->name, outcome_name(r.outcome), r.objective,
						 (long long)opt);
				/* the solution decodes to a schedule with that objective */
				struct schedule *s = NULL;
				struct error err = {{0}};
				struct sim *sim = sim_new(in);
				struct sim_result sr;
				assert_int_equal(sched_milp_decode(sm, r.x, &s, &err), STATUS_OK);
				if (sim_run(sim, s, &sr, &err))
					fail_msg("%s, %s: decoded schedule invalid: %s", what, b->name,
						 err.msg);
				if (sr.objective != opt)
					fail_msg("%s, %s: decoded schedule has objective %lld, optimum %lld",
						 what, b->name, (long long)sr.objective, (long long)opt);
				sim_free(sim);
				schedule_free(s);
				solver_result_release(&r);
			}
			sched_milp_free(sm);
		}
		opgraph_free(g);
		instance_free(in);
	}
}

/*
 * Destructive lower bound: with horizon and upper bound opt - 1 (makespan
 * objective), no schedule fits, so every model is infeasible. Where opt - 1
 * is below the critical path the build itself refuses (also a proof); the
 * tiny chain (critical path 16, optimum 18) must reach the solvers.
 */
static void test_models_infeasible_below_optimum(void **state)
{
	int solved = 0;
	for (int i = 0; i < NTINIES; i++) {
		struct instance *in = tiny_instance(i);
		if (in->objective != OBJ_MAKESPAN) {
			instance_free(in);
			continue;
		}
		int64_t opt = brute_optimum(in, NULL);
		struct opgraph *g = graph_ok(in);
		for (int f = 0; f < NFORMS; f++) {
			struct error err = {{0}};
			struct sched_milp *sm = sched_milp_build(in, g, formulation_at(f), opt - 1, 0,
								 opt - 1, &err);
			char what[160];
			snprintf(what, sizeof what, "%s, %s, horizon %lld", tiny_name(i),
				 formulation_at(f)->name, (long long)(opt - 1));
			if (!sm) {
				if (i == 0)
					fail_msg("%s: build failed: %s", what, err.msg);
				assert_contains(err.msg, "horizon");
				continue;
			}
			for (int k = 0; k < solver_count(); k++) {
				struct solver_result r;
				solve_model(solver_at(k), sm->milp, &r, what);
				if (r.outcome != OUTCOME_INFEASIBLE)
					fail_msg("%s, %s: outcome %s (objective %.10g), expected infeasible",
						 what, solver_at(k)->name, outcome_name(r.outcome),
						 r.objective);
				solver_result_release(&r);
				solved++;
			}
			sched_milp_free(sm);
		}
		opgraph_free(g);
		instance_free(in);
	}
	assert_true(solved >= 2 * solver_count());
}

/*
 * The span objective: docs/design.md times a schedule earliest, and the span is
 * measured on those times; the models let a device's first op start later
 * than its earliest time (first_d <= E_o - T_o), which can only shorten a
 * span. So for the span the MILP is a relaxation: its optimum is a lower
 * bound, and pipeopt solve certifies only when an earliest-timed schedule
 * meets it (solvers/README.md).
 *
 * Two source stages feeding one, each on its own device, one micro-batch,
 * fused, no comm: F = [1, 10, 1], B = [5, 1, 1], edges 0 -> 2, 1 -> 2.
 * Earliest: F00 0-1, F10 0-10, F20 10-11, B20 11-12, B00 12-17, B10 12-13;
 * spans 17, 13, 2: the optimum is 17 (brute force agrees; there is one
 * order per device). Delaying F00 to start at 9 gives spans 8, 13, 2: the
 * relaxation's optimum is 13.
 */
static void test_span_milp_is_a_relaxation(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\":3,\"microbatches\":1,\"edges\":[[0,2],[1,2]],"
		"\"cost\":{\"F\":[1,10,1],\"B\":[5,1,1]},\"objective\":\"span\"}");
	assert_int_equal(brute_optimum(in, NULL), 17);
	int64_t ub = heuristic_objective(in);
	assert_int_equal(ub, 17);
	struct opgraph *g = graph_ok(in);
	for (int f = 0; f < NFORMS; f++) {
		struct sched_milp *sm = build_ok(in, g, formulation_at(f), horizon_for(in, ub), 0, ub);
		for (int k = 0; k < solver_count(); k++) {
			struct solver_result r;
			solve_model(solver_at(k), sm->milp, &r, "two sources, span");
			assert_int_equal(r.outcome, OUTCOME_OPTIMAL);
			assert_double_near(r.objective, 13, 1e-6);
			solver_result_release(&r);
		}
		sched_milp_free(sm);
	}
	opgraph_free(g);
	/* the MILP alone claims nothing it cannot prove: forced (--always-milp
	 * skips the exact search), its bound stays the relaxation's 13 */
	struct exact_options o = {.solver = "cbc", .formulation = "disjunctive",
				  .time_limit = 30, .always_milp = true};
	struct exact_result x;
	struct error err = {{0}};
	assert_int_equal(exact_solve(in, &o, &x, &err), STATUS_OK);
	assert_int_equal(x.objective, 17);
	assert_false(x.certified);
	assert_true(x.bound <= 17);
	assert_int_equal(x.bound, 13);
	exact_result_release(&x);
	/* by default the exact search (solvers/bnb.c), which times ops
	 * earliest, proves the optimum 17 */
	o.always_milp = false;
	assert_int_equal(exact_solve(in, &o, &x, &err), STATUS_OK);
	assert_int_equal(x.objective, 17);
	assert_true(x.certified);
	assert_int_equal(x.bound, 17);
	assert_string_equal(x.certified_by, "search");
	exact_result_release(&x);
	instance_free(in);
}

/* ---- 5b. the formulation registry ------------------------------------------------ */

/* Both formulations are registered, with their tables filled in; an
 * unknown name is NULL; the name list reads as help texts print it. */
static void test_formulation_registry(void **state)
{
	assert_int_equal(formulation_count(), 2);
	const struct formulation *dj = formulation_find("disjunctive");
	const struct formulation *ti = formulation_find("time-indexed");
	assert_non_null(dj);
	assert_non_null(ti);
	assert_ptr_not_equal(dj, ti);
	assert_string_equal(dj->name, "disjunctive");
	assert_string_equal(ti->name, "time-indexed");
	static const char *const unknown[] = {"magic", "", "auto", "Disjunctive",
					      "time_indexed", "disjunctive "};
	for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
		if (formulation_find(unknown[i]))
			fail_msg("formulation_find(\"%s\") is not NULL", unknown[i]);
	assert_null(formulation_find(NULL));
	for (int i = 0; i < formulation_count(); i++) {
		const struct formulation *f = formulation_at(i);
		assert_ptr_equal(formulation_find(f->name), f);
		assert_true(f->name[0] && f->summary && f->summary[0]);
		assert_true(f->build && f->point && f->times && f->free_data);
		f->free_data(NULL);
	}
	/* the time-indexed size is the count worked out in test 4 */
	struct instance *in = parse_instance_ok(TINY_CHAIN);
	struct opgraph *g = graph_ok(in);
	assert_non_null(ti->size);
	assert_int_equal(ti->size(g, 16), 26);
	assert_true(ti->size(g, 15) < 0);
	opgraph_free(g);
	instance_free(in);
	char buf[64];
	assert_string_equal(formulation_names(buf, sizeof buf, ", "), "disjunctive, time-indexed");
	assert_string_equal(formulation_names(buf, sizeof buf, "|"), "disjunctive|time-indexed");
	assert_string_equal(formulation_names(buf, 8, ", "), "disjunc");   /* truncated */
	assert_string_equal(formulation_names(buf, 15, ", "), "disjunctive, t");
}

struct known_optimum {
	const char *name;
	const char *json;
	int64_t optimum;   /* by hand (see the comment above the table) */
};

/*
 * Optima by hand arithmetic:
 *  - the tiny chain: 18 (test 5's argument and schedule);
 *  - fused chain, p = 2, m = 2, F = B = 1, no comm: the last device starts
 *    at (p-1) F, runs m (F + B) of work, and the last B passes back through
 *    p-1 devices: (m + p - 1)(F + B) = 6, which 1F1B meets;
 *  - fused chain, p = 2, m = 3, F = B = 1, memory F +1, B -1, limit 1:
 *    device 0 can hold one activation, so F(0,j+1) starts after B(0,j)
 *    ends, and F(0,j) F(1,j) B(1,j) B(0,j) is a chain of 4: 3 x 4 = 12,
 *    which the serial order meets.
 * The brute force of brute.h must agree, so the table cannot drift.
 */
static const struct known_optimum known_optima[] = {
	{"tiny chain", NULL, 18},
	{"fused chain p2 m2",
	 "{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":1}}", 6},
	{"fused chain p2 m3 limit 1",
	 "{\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":1,\"B\":1},"
	 "\"memory\":{\"F\":1,\"B\":-1,\"limit\":1}}", 12},
};

/* Every registered formulation, chosen by name through the exact
 * procedure (MILP forced) with every backend, certifies the same known
 * optimum; so does the automatic choice ("auto" and NULL alike). */
static void test_every_formulation_same_optimum(void **state)
{
	for (size_t c = 0; c < sizeof known_optima / sizeof known_optima[0]; c++) {
		const struct known_optimum *k = &known_optima[c];
		struct instance *in = parse_instance_ok(k->json ? k->json : TINY_CHAIN);
		assert_int_equal(brute_optimum(in, NULL), k->optimum);
		for (int f = -2; f < formulation_count(); f++) {
			const char *form = f == -2 ? NULL : f == -1 ? "auto" : formulation_at(f)->name;
			/* the automatic choice with the first backend only: it starts
			 * with the disjunctive model, which the registry's turn runs
			 * with every backend */
			for (int b = 0; b < (f < 0 ? 1 : solver_count()); b++) {
				struct exact_options o = {.solver = solver_at(b)->name,
							  .formulation = form, .time_limit = 60,
							  .threads = 1, .always_milp = true};
				struct exact_result r;
				struct error err = {{0}};
				if (exact_solve(in, &o, &r, &err))
					fail_msg("%s, %s, %s: %s", k->name, form ? form : "NULL",
						 o.solver, err.msg);
				if (!r.solved || !r.certified || r.objective != k->optimum ||
				    r.bound != k->optimum)
					fail_msg("%s, %s, %s: objective %lld, bound %lld, certified %d; known optimum %lld",
						 k->name, form ? form : "NULL", o.solver,
						 (long long)r.objective, (long long)r.bound, r.certified,
						 (long long)k->optimum);
				if (f >= 0)
					assert_string_equal(r.formulation, form);
				exact_result_release(&r);
			}
		}
		instance_free(in);
	}
}

/* An unknown formulation is an error that names it and lists the known
 * ones; an unknown solver likewise. */
static void test_unknown_formulation_lists_names(void **state)
{
	struct instance *in = parse_instance_ok(TINY_CHAIN);
	struct exact_options o = {.solver = "cbc", .formulation = "magic", .time_limit = 10,
				  .always_milp = true};
	struct exact_result r;
	struct error err = {{0}};
	assert_int_equal(exact_solve(in, &o, &r, &err), STATUS_ERROR);
	check_error_message("unknown formulation", err.msg, "'magic'", "disjunctive",
			    "time-indexed");
	assert_contains(err.msg, "auto");
	o = (struct exact_options){.solver = "gurobi", .formulation = "disjunctive",
				   .time_limit = 10, .always_milp = true};
	assert_int_equal(exact_solve(in, &o, &r, &err), STATUS_ERROR);
	check_error_message("unknown solver", err.msg, "'gurobi'", "cbc", "glpk");
	instance_free(in);
}

/* ---- 6. the solver-neutral MILP ----------------------------------------------------- */

static void test_milp_add_row_merges(void **state)
{
	struct milp *m = milp_new();
	for (int j = 0; j < 3; j++)
		assert_int_equal(milp_add_col(m, 0, 10, 0, false, "x%d", j), j);
	/* x0 + 2 x1 + 3 x0 + 0 x2 - 2 x1 = 4 x0: x1 cancels, x2 is zero */
	int c1[5] = {0, 1, 0, 2, 1};
	double v1[5] = {1, 2, 3, 0, -2};
	assert_int_equal(milp_add_row(m, 5, c1, v1, 0, 8, "r%d", 0), 0);
	assert_int_equal(m->rows[0].len, 1);
	assert_int_equal(m->nz_col[m->rows[0].start], 0);
	assert_double_near(m->nz_val[m->rows[0].start], 4, 0);
	/* x0 + 0 x1 + x2 + x2: two entries, x2 with 2, in first-seen order */
	int c2[4] = {0, 1, 2, 2};
	double v2[4] = {1, 0, 1, 1};
	assert_int_equal(milp_add_row(m, 4, c2, v2, -MILP_INF, 5, "r%d", 1), 1);
	assert_int_equal(m->rows[1].len, 2);
	assert_int_equal(m->rows[1].start, 1);
	assert_int_equal(m->nz_col[1], 0);
	assert_int_equal(m->nz_col[2], 2);
	assert_double_near(m->nz_val[2], 2, 0);
	/* everything cancels: an empty row */
	int c3[2] = {1, 1};
	double v3[2] = {1, -1};
	milp_add_row(m, 2, c3, v3, -MILP_INF, 0, "empty");
	assert_int_equal(m->rows[2].len, 0);
	assert_int_equal(m->nnz, 3);
	assert_int_equal(m->nrows, 3);
	assert_string_equal(m->rows[1].name, "r1");
	assert_string_equal(m->cols[2].name, "x2");
	struct error err = {{0}};
	assert_int_equal(milp_check(m, &err), STATUS_OK);
	milp_free(m);
	milp_free(NULL);
}

static void test_milp_check_rejects(void **state)
{
	struct error err = {{0}};
	struct milp *m = milp_new();
	assert_int_equal(milp_check(m, &err), STATUS_ERROR);   /* no columns */
	milp_free(m);

	/* NaN coefficient */
	m = milp_new();
	milp_add_col(m, 0, 1, 0, false, "x");
	milp_add_row(m, 1, (int[]){0}, (double[]){NAN}, 0, 1, "nanrow");
	assert_int_equal(milp_check(m, &err), STATUS_ERROR);
	assert_contains(err.msg, "'nanrow'");
	milp_free(m);

	/* lb > ub on a column */
	m = milp_new();
	milp_add_col(m, 2, 1, 0, false, "backwards");
	assert_int_equal(milp_check(m, &err), STATUS_ERROR);
	assert_contains(err.msg, "'backwards'");
	milp_free(m);

	/* a row whose lower bound is +inf */
	m = milp_new();
	milp_add_col(m, 0, 1, 0, false, "x");
	milp_add_row(m, 1, (int[]){0}, (double[]){1}, MILP_INF, MILP_INF, "toohigh");
	assert_int_equal(milp_check(m, &err), STATUS_ERROR);
	assert_contains(err.msg, "'toohigh'");
	milp_free(m);

	/* an infinite objective, a column index out of range, an upper bound
	 * of -inf */
	m = milp_new();
	milp_add_col(m, 0, 1, INFINITY, false, "inf_obj");
	assert_int_equal(milp_check(m, &err), STATUS_ERROR);
	assert_contains(err.msg, "'inf_obj'");
	milp_free(m);
	m = milp_new();
	milp_add_col(m, 0, 1, 0, false, "x");
	milp_add_row(m, 1, (int[]){3}, (double[]){1}, 0, 1, "badcol");
	assert_int_equal(milp_check(m, &err), STATUS_ERROR);
	assert_contains(err.msg, "'badcol'");
	milp_free(m);
	m = milp_new();
	milp_add_col(m, -MILP_INF, -MILP_INF, 0, false, "down");
	assert_int_equal(milp_check(m, &err), STATUS_ERROR);
	milp_free(m);

	/* and a sane model passes, infinite sides included */
	m = milp_new();
	milp_add_col(m, -MILP_INF, MILP_INF, 1, false, "free");
	milp_add_row(m, 1, (int[]){0}, (double[]){1}, -MILP_INF, MILP_INF, "unbounded_row");
	assert_int_equal(milp_check(m, &err), STATUS_OK);
	milp_free(m);
}

/*
 * min 3x + 2y + 1.5  s.t.  r0: x + y >= 2,  r1: x - y <= 1,
 * x, y integer in [0, 5]; plus a continuous z in [0, 1] (cost 0).
 *   (1, 1): r0 = 2, r1 = 0: feasible, objective 3 + 2 + 1.5 = 6.5.
 *   (2, 0): r1 = 2 > 1: row 1 violated.
 *   (0.5, 1.5): rows hold (2, -1) but x is fractional.
 *   (6, 0): above x's bound.
 *   (1, 0.9999999): within tolerance 1e-6 (r0 = 1.9999999).
 */
static void test_milp_feasible_objective(void **state)
{
	struct milp *m = milp_new();
	milp_add_col(m, 0, 5, 3, true, "x");
	milp_add_col(m, 0, 5, 2, true, "y");
	milp_add_col(m, 0, 1, 0, false, "z");
	m->obj_offset = 1.5;
	milp_add_row(m, 2, (int[]){0, 1}, (double[]){1, 1}, 2, MILP_INF, "r0");
	milp_add_row(m, 2, (int[]){0, 1}, (double[]){1, -1}, -MILP_INF, 1, "r1");
	int row = 99;
	assert_true(milp_feasible(m, (double[]){1, 1, 0}, 1e-6, &row));
	assert_int_equal(row, -1);
	assert_double_near(milp_objective(m, (double[]){1, 1, 0}), 6.5, 1e-12);
	assert_double_near(milp_objective(m, (double[]){2, 0, 1}), 7.5, 1e-12);
	assert_false(milp_feasible(m, (double[]){2, 0, 0}, 1e-6, &row));
	assert_int_equal(row, 1);
	assert_false(milp_feasible(m, (double[]){0.5, 1.5, 0}, 1e-6, &row));
	assert_int_equal(row, -1);
	assert_false(milp_feasible(m, (double[]){6, 0, 0}, 1e-6, &row));
	assert_true(milp_feasible(m, (double[]){1, 0.9999999, 0.5}, 1e-6, NULL));
	assert_false(milp_feasible(m, (double[]){1, 0.9, 0.5}, 1e-6, &row));
	milp_free(m);
}

/* Integer columns within [0, 1] are binaries: x [0,1] and w [0,0] count;
 * y integer [0,5], z continuous [0,1] and v integer [-1,1] do not. */
static void test_milp_binaries(void **state)
{
	struct milp *m = milp_new();
	milp_add_col(m, 0, 1, 0, true, "x");
	milp_add_col(m, 0, 5, 0, true, "y");
	milp_add_col(m, 0, 1, 0, false, "z");
	milp_add_col(m, 0, 0, 0, true, "w");
	milp_add_col(m, -1, 1, 0, true, "v");
	assert_int_equal(milp_binaries(m), 2);
	milp_free(m);
}

static char *write_to_string(const struct milp *m, bool lp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct error err = {{0}};
	assert_non_null(f);
	enum status st = lp ? milp_write_lp(m, f, &err) : milp_write_mps(m, f, &err);
	fclose(f);
	if (st)
		fail_msg("writer: %s", err.msg);
	return buf;
}

/* Each needle appears, in the order given. */
static void assert_in_order(const char *text, const char *const *needles)
{
	const char *at = text;
	for (int i = 0; needles[i]; i++) {
		const char *hit = strstr(at, needles[i]);
		if (!hit)
			fail_msg("'%s' missing (or out of order) in:\n%s", needles[i], text);
		at = hit + strlen(needles[i]);
	}
}

/*
 * min x + 2y  s.t.  c1: x + y >= 1,  c2: 1 <= x - y <= 3,  c3: x + z = 2;
 * x integer in [0, 10], y in (-inf, 5], z free.
 */
static struct milp *writer_model(void)
{
	struct milp *m = milp_new();
	milp_add_col(m, 0, 10, 1, true, "x");
	milp_add_col(m, -MILP_INF, 5, 2, false, "y");
	milp_add_col(m, -MILP_INF, MILP_INF, 0, false, "z");
	milp_add_row(m, 2, (int[]){0, 1}, (double[]){1, 1}, 1, MILP_INF, "c1");
	milp_add_row(m, 2, (int[]){0, 1}, (double[]){1, -1}, 1, 3, "c2");
	milp_add_row(m, 2, (int[]){0, 2}, (double[]){1, 1}, 2, 2, "c3");
	return m;
}

static void test_milp_writers(void **state)
{
	struct milp *m = writer_model();
	char *lp = write_to_string(m, true);
	static const char *const lp_parts[] = {
		"Minimize", "obj:", "+ 1 x", "+ 2 y", "Subject To",
		"c1:", ">= 1", "c2:", ">= 1", "c2_ub:", "<= 3", "c3:", "= 2",
		"Bounds", "0 <= x <= 10", "-inf <= y <= 5", "z free",
		"General", "x", "End", NULL};
	assert_in_order(lp, lp_parts);
	assert_null(strstr(lp, "c1_ub"));   /* one-sided rows write one side */
	free(lp);

	char *mps = write_to_string(m, false);
	static const char *const mps_parts[] = {
		"NAME", "ROWS", " N obj", " G c1", " G c2", " E c3",
		"COLUMNS", "MARKER 'MARKER' 'INTORG'", " x obj 1", " x c1 1",
		"MARKER 'MARKER' 'INTEND'", " y obj 2", " y c2 -1", " z c3 1",
		"RHS", " rhs c1 1", " rhs c2 1", " rhs c3 2",
		"RANGES", " rng c2 2",
		"BOUNDS", " UP bnd x 10", " MI bnd y", " UP bnd y 5", " FR bnd z",
		"ENDATA", NULL};
	assert_in_order(mps, mps_parts);
	free(mps);

	/* an objective constant becomes a column fixed at 1 in both */
	m->obj_offset = 4;
	lp = write_to_string(m, true);
	assert_contains(lp, "+ 4 objective_constant");
	assert_contains(lp, "objective_constant = 1");
	free(lp);
	mps = write_to_string(m, false);
	assert_contains(mps, " objective_constant obj 4");
	assert_contains(mps, " FX bnd objective_constant 1");
	free(mps);
	milp_free(m);
}

/* ---- 7. digests ------------------------------------------------------------------- */

/* FIPS 180-4 (and its examples document) test vectors. */
static void test_sha256_vectors(void **state)
{
	char out[65];
	sha256_hex("", 0, out);
	assert_string_equal(out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, out);
	assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* 56 bytes: the padding needs a second block */
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	assert_int_equal(strlen(two), 56);
	sha256_hex(two, strlen(two), out);
	assert_string_equal(out, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* 112 bytes: one full block plus a tail */
	const char *four = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
			   "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	assert_int_equal(strlen(four), 112);
	sha256_hex(four, strlen(four), out);
	assert_string_equal(out, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	char *million = malloc(1000000);
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, out);
	assert_string_equal(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
	assert_int_equal(strlen(out), 64);
}

static void digest_of(const char *json, char out[65])
{
	struct instance *in = parse_instance_ok(json);
	instance_digest(in, out);
	instance_free(in);
}

static void test_instance_digest(void **state)
{
	char a[65], b[65], c[65];
	/* defaults: linear placement, chain edges, split from W, comm one
	 * number, objective makespan */
	digest_of("{\"name\":\"one\",\"devices\":2,\"microbatches\":2,"
		  "\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1}", a);
	/* the same, every field explicit, lists for the per-stage costs and
	 * per-edge comm, keys in another order, another name */
	digest_of("{\"objective\":\"makespan\",\"comm\":[1],\"split_backward\":true,"
		  "\"edges\":[[0,1]],\"placement\":\"linear\",\"chunks\":1,"
		  "\"cost\":{\"W\":[1,1],\"B\":3,\"F\":[2,2]},"
		  "\"microbatches\":2,\"devices\":2,\"name\":\"two\"}", b);
	assert_string_equal(a, b);
	/* the placement as an explicit list */
	digest_of("{\"devices\":2,\"microbatches\":2,\"placement\":[0,1],"
		  "\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1}", c);
	assert_string_equal(a, c);
	/* one cost changed */
	digest_of("{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":[2,3],\"B\":3,\"W\":1},"
		  "\"comm\":1}", c);
	assert_string_not_equal(a, c);
	/* comm, objective, micro-batches, memory: each changes the digest */
	static const char *const others[] = {
		"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":2}",
		"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1,"
		"\"objective\":\"span\"}",
		"{\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1}",
		"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1,"
		"\"memory\":{\"F\":2,\"B\":-1,\"W\":-1}}",
	};
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
		digest_of(others[i], c);
		if (!strcmp(a, c))
			fail_msg("same digest for %s", others[i]);
	}
	/* the interleaved placement and its resolved list are one instance */
	digest_of("{\"devices\":2,\"microbatches\":2,\"chunks\":2,\"placement\":\"interleaved\","
		  "\"cost\":{\"F\":1,\"B\":2}}", a);
	digest_of("{\"devices\":2,\"microbatches\":2,\"placement\":[0,1,0,1],"
		  "\"cost\":{\"F\":[1,1,1,1],\"B\":2}}", b);
	assert_string_equal(a, b);
	/* the digest is the SHA-256 of the canonical text, which has no name */
	struct instance *in = parse_instance_ok(
		"{\"name\":\"named\",\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":2}}");
	json_t *j = instance_canonical_json(in);
	assert_null(json_object_get(j, "name"));
	char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	sha256_hex(text, strlen(text), b);
	instance_digest(in, a);
	assert_string_equal(a, b);
	free(text);
	json_decref(j);
	instance_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opgraph_tiny_chain),
		cmocka_unit_test(test_opgraph_window_arcs),
		cmocka_unit_test(test_opgraph_window_cases),
		cmocka_unit_test(test_disjunctive_tiny_chain),
		cmocka_unit_test(test_point_fifo_and_not),
		cmocka_unit_test(test_point_decode_roundtrip),
		cmocka_unit_test(test_disjunctive_pairs_by_hand),
		cmocka_unit_test(test_time_indexed_size),
		cmocka_unit_test(test_time_indexed_refuses_large),
		cmocka_unit_test(test_horizon_below_critical_path),
		cmocka_unit_test(test_time_indexed_zero_length_positive_delta),
		cmocka_unit_test(test_tiny_chain_optimum_by_hand),
		cmocka_unit_test(test_memory_tinies_bind),
		cmocka_unit_test(test_models_reach_brute_force_optimum),
		cmocka_unit_test(test_models_infeasible_below_optimum),
		cmocka_unit_test(test_span_milp_is_a_relaxation),
		cmocka_unit_test(test_formulation_registry),
		cmocka_unit_test(test_every_formulation_same_optimum),
		cmocka_unit_test(test_unknown_formulation_lists_names),
		cmocka_unit_test(test_milp_add_row_merges),
		cmocka_unit_test(test_milp_check_rejects),
		cmocka_unit_test(test_milp_feasible_objective),
		cmocka_unit_test(test_milp_binaries),
		cmocka_unit_test(test_milp_writers),
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_instance_digest),
	};
	return cmocka_run_group_tests_name("formulate", tests, NULL, NULL);
}
