/*
 * Predefined schedule families (sched/family.c): gpipe and 1f1b.
 *
 * Known answers are closed forms derived in the comments (timelines drawn
 * by hand for the small cases), and counts read directly off the schedule
 * rows; the simulator is used only to time and validate.
 */
#include "test_helpers.h"

#include "sched/family.h"
#include "sched/schedule.h"
#include "sched/sim.h"

static const char *const names[] = {"gpipe", "1f1b"};
#define NFAM 2

/* Not NULL: a refused generate must reset *out to NULL. */
static struct schedule sentinel;

/* A linear chain of p stages on p devices; W < 0 means fused backward. */
static struct instance *chain(int p, int m, int64_t F, int64_t B, int64_t W,
			      int64_t c, const char *extra)
{
	char json[512], w[64] = "";
	if (W >= 0)
		snprintf(w, sizeof w, ",\"W\":%lld", (long long)W);
	snprintf(json, sizeof json,
		 "{\"devices\":%d,\"microbatches\":%d,\"cost\":{\"F\":%lld,\"B\":%lld%s},\"comm\":%lld%s}",
		 p, m, (long long)F, (long long)B, w, (long long)c, extra);
	return parse_instance_ok(json);
}

static struct schedule *generate_ok(const char *name,
				    const struct instance *in)
{
	struct schedule *sc = NULL;
	struct error err = {{0}};
	if (family_generate(name, in, &sc, &err))
		fail_msg("family '%s' failed: %s", name, err.msg);
	assert_non_null(sc);
	assert_int_equal(sc->devices, in->devices);
	return sc;
}

/* Simulate, failing the test on an invalid schedule. */
static struct sim_result run_ok(struct sim *s, const struct schedule *sc,
				const char *what)
{
	struct sim_result r;
	struct error err = {{0}};
	if (sim_run(s, sc, &r, &err))
		fail_msg("%s: invalid schedule: %s", what, err.msg);
	return r;
}

/* Max over the device's order of (#F started - #B started). */
static int max_in_flight(const struct sched_row *row)
{
	int cur = 0, max = 0;
	for (int i = 0; i < row->len; i++) {
		cur += row->ops[i].kind == OP_F ? 1 : row->ops[i].kind == OP_B ? -1 : 0;
		max = cur > max ? cur : max;
	}
	return max;
}

static void test_registry(void **state)
{
	assert_true(family_count() >= NFAM);
	for (int i = 0; i < family_count(); i++) {
		const struct family *f = family_at(i);
		assert_non_null(f->name);
		assert_true(f->program != NULL || f->generate != NULL);
		assert_true(f->summary && f->summary[0]);
		assert_true(f->supports && f->supports[0]);
		assert_ptr_equal(family_find(f->name), f);
	}
	for (int i = 0; i < NFAM; i++) {
		const struct family *f = family_find(names[i]);
		assert_non_null(f);
		assert_string_equal(f->name, names[i]);
	}
	assert_null(family_find("nope"));
	assert_null(family_find(""));
	assert_null(family_find("GPIPE"));
}

/*
 * No comm, fused, uniform F and B: both families take (m+p-1)(F+B).
 * GPipe: F(s,j) starts at (s+j)F, so the last stage's forwards end at
 * (p-1+m)F; its backwards follow back to back, and B(s,j) ends at
 * (m+p-1)F + (j+1+p-1-s)B (each B(s,j) waits only for B(s+1,j), whose
 * device is never ahead of it). Stage 0, j = m-1: (m+p-1)(F+B).
 * 1F1B: the same; drawn for p=2, m=2, F=3, B=1:
 *
 *   time   0         1
 *          012345678901
 *   dev0   FFFfff.B...b     F0 F1 B0 B1
 *   dev1   ...FFFBfffb.     F0 B0 F1 B1
 *
 * 12 = 3 x 4. With every device busy m(F+B) out of (m+p-1)(F+B), the
 * bubble ratio is (p-1)/(m+p-1).
 */
static void test_closed_form_no_comm(void **state)
{
	static const int cases[][4] = {
		/* p, m, F, B */
		{1, 1, 1, 1}, {1, 5, 2, 3}, {4, 1, 2, 3}, {4, 2, 1, 2},
		{4, 4, 2, 3}, {4, 8, 1, 2}, {3, 3, 3, 1}, {2, 2, 3, 1},
		{2, 7, 5, 4}, {6, 3, 1, 1}, {5, 12, 2, 5}, {6, 6, 7, 3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int p = cases[i][0], m = cases[i][1];
		int64_t F = cases[i][2], B = cases[i][3];
		struct instance *in = chain(p, m, F, B, -1, 0, "");
		struct sim *s = sim_new(in);
		for (int f = 0; f < NFAM; f++) {
			struct schedule *sc = generate_ok(names[f], in);
			struct sim_result r = run_ok(s, sc, names[f]);
			if (r.makespan != (m + p - 1) * (F + B))
				fail_msg("%s p=%d m=%d F=%lld B=%lld: makespan %lld, expected %lld",
					 names[f], p, m, (long long)F, (long long)B,
					 (long long)r.makespan,
					 (long long)((m + p - 1) * (F + B)));
			assert_double_near(r.bubble_ratio,
					   (double)(p - 1) / (double)(m + p - 1), 1e-12);
			schedule_free(sc);
		}
		sim_free(s);
		instance_free(in);
	}
}

/*
 * In flight: 1F1B's stage s runs min(p-s-1, m) warm-up forwards and then
 * one more before its first backward, so it holds min(p-s, m); GPipe holds
 * all m. Counted off the rows, and measured by the simulator with memory
 * deltas F=+1, B=-1 (and W=0 when split).
 */
static void test_in_flight(void **state)
{
	for (int split = 0; split < 2; split++)
		for (int p = 1; p <= 6; p++)
			for (int m = 1; m <= 9; m++) {
				char json[256];
				snprintf(json, sizeof json,
					 "{\"devices\":%d,\"microbatches\":%d,\"cost\":{\"F\":2,\"B\":3%s},"
					 "\"memory\":{\"F\":1,\"B\":-1%s}}",
					 p, m, split ? ",\"W\":1" : "",
					 split ? ",\"W\":0" : "");
				struct instance *in = parse_instance_ok(json);
				struct sim *s = sim_new(in);
				for (int f = 0; f < NFAM; f++) {
					struct schedule *sc = generate_ok(names[f], in);
					struct sim_result r = run_ok(s, sc, names[f]);
					for (int d = 0; d < p; d++) {
						int want = f == 0 ? m : (p - d < m ? p - d : m);
						int got = max_in_flight(&sc->rows[d]);
						if (got != want || r.peak_memory[d] != want)
							fail_msg("%s p=%d m=%d split=%d device %d: rows give %d, sim peak %lld, expected %d",
								 names[f], p, m, split, d, got,
								 (long long)r.peak_memory[d], want);
					}
					schedule_free(sc);
				}
				sim_free(s);
				instance_free(in);
			}
}

/* With split backward, each W(l,j) comes right after its B(l,j). */
static void test_split_w_after_b(void **state)
{
	for (int p = 1; p <= 5; p++)
		for (int m = 1; m <= 7; m++) {
			struct instance *in = chain(p, m, 2, 2, 1, 1, "");
			struct sim *s = sim_new(in);
			for (int f = 0; f < NFAM; f++) {
				struct schedule *sc = generate_ok(names[f], in);
				run_ok(s, sc, names[f]);
				int nw = 0;
				for (int d = 0; d < p; d++) {
					const struct sched_row *row = &sc->rows[d];
					for (int i = 0; i < row->len; i++) {
						const struct op *o = &row->ops[i];
						if (o->kind == OP_B) {
							assert_true(i + 1 < row->len);
							assert_int_equal(row->ops[i + 1].kind, OP_W);
							assert_int_equal(row->ops[i + 1].stage, o->stage);
							assert_int_equal(row->ops[i + 1].mb, o->mb);
						}
						if (o->kind == OP_W) {
							nw++;
							assert_true(i > 0);
							assert_int_equal(row->ops[i - 1].kind, OP_B);
							assert_int_equal(row->ops[i - 1].mb, o->mb);
						}
					}
				}
				assert_int_equal(nw, p * m);
				schedule_free(sc);
			}
			sim_free(s);
			instance_free(in);
		}
}

/*
 * GPipe with comm c, fused, uniform F and B. Forward: F(s,j) starts at
 * s(F+c) + jF (the input F(s-1,j) ends at (s-1)(F+c) + (j+1)F, plus c; the
 * device frees at the end of F(s,j-1), the same time). The last stage's
 * forwards end at (p-1)(F+c) + mF, its backwards run back to back, and
 * B(s,j) ends at (p-1)(F+c) + mF + (p-1-s)(B+c) + (j+1)B (its device
 * finished its forwards at s(F+c) + mF, earlier). Stage 0, j = m-1:
 *     makespan = (m+p-1)(F+B) + 2(p-1)c.
 * p=2, m=2, F=2, B=3, c=1 drawn out: 3 x 5 + 2 = 17.
 *
 *   time   0         1
 *          01234567890123456
 *   dev0   FFff.......BBBbbb
 *   dev1   ...FFffBBBbbb....
 *
 * dev1: F(1,0) at 2+1 = 3, F(1,1) at 4+1 = 5, B(1,0) [7,10), B(1,1)
 * [10,13); dev0: B(0,0) at 10+1 = 11, B(0,1) at 13+1 = 14, ends 17.
 */
static void test_gpipe_comm_closed_form(void **state)
{
	static const int cases[][5] = {
		/* p, m, F, B, c */
		{2, 2, 2, 3, 1}, {2, 1, 1, 1, 5}, {2, 6, 3, 2, 4}, {3, 4, 2, 3, 1},
		{4, 8, 3, 5, 7}, {5, 2, 1, 4, 2}, {6, 9, 2, 2, 3}, {1, 4, 2, 3, 9},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int p = cases[i][0], m = cases[i][1];
		int64_t F = cases[i][2], B = cases[i][3], c = cases[i][4];
		struct instance *in = chain(p, m, F, B, -1, c, "");
		struct sim *s = sim_new(in);
		struct schedule *sc = generate_ok("gpipe", in);
		struct sim_result r = run_ok(s, sc, "gpipe");
		int64_t want = (m + p - 1) * (F + B) + 2 * (p - 1) * c;
		if (r.makespan != want)
			fail_msg("gpipe p=%d m=%d F=%lld B=%lld c=%lld: makespan %lld, expected %lld",
				 p, m, (long long)F, (long long)B, (long long)c,
				 (long long)r.makespan, (long long)want);
		schedule_free(sc);
		sim_free(s);
		instance_free(in);
	}
}

/*
 * 1F1B on p=2 with comm c: dev0 runs F0 F1 B0 F2 B1 ... B(m-1), dev1 runs
 * F0 B0 F1 B1 ... . Worked out for m=3 (any F, B > 0, c >= 0):
 *   F(0,0) [0,F)            F(0,1) [F,2F)
 *   F(1,0) [F+c, 2F+c)      B(1,0) [2F+c, 2F+c+B)
 *   B(0,0) at 2F+2c+B (needs B(1,0)+c), ends 2F+2c+2B
 *   F(1,1) at 2F+c+B (dev1 free; input came at 2F+c), ends 3F+c+B
 *   B(1,1) ends 3F+c+2B
 *   F(0,2) at 2F+2c+2B (after B(0,0)), ends 3F+2c+2B
 *   B(0,1) at max(3F+c+2B+c, 3F+2c+2B) = 3F+2c+2B, ends 3F+2c+3B
 *   F(1,2) at max(3F+2c+2B+c, 3F+c+2B) = 3F+3c+2B, ends 4F+3c+2B
 *   B(1,2) ends 4F+3c+3B; B(0,2) at 4F+4c+3B, ends 4F+4c+4B.
 * Each pair of micro-batches after the first costs one round trip 2c more
 * (F(0,j+2) waits for B(0,j), which waits for the round trip of j):
 *   m=1: 2(F+B)+2c, m=2: 3(F+B)+2c, m=3: 4(F+B)+4c, m=4: 5(F+B)+4c,
 *   m=5: 6(F+B)+6c, i.e. (m+1)(F+B) + 2c*ceil(m/2).
 * (m=2: B(0,1) at max(3F+c+2B+c, 2F+2c+2B) = 3F+2c+2B, ends 3F+2c+3B.)
 */
static void test_1f1b_comm_p2(void **state)
{
	static const int fbc[][3] = {{2, 3, 1}, {3, 1, 4}, {1, 1, 0}, {5, 2, 3}};
	for (size_t i = 0; i < sizeof fbc / sizeof fbc[0]; i++)
		for (int m = 1; m <= 5; m++) {
			int64_t F = fbc[i][0], B = fbc[i][1], c = fbc[i][2];
			struct instance *in = chain(2, m, F, B, -1, c, "");
			struct sim *s = sim_new(in);
			struct schedule *sc = generate_ok("1f1b", in);
			struct sim_result r = run_ok(s, sc, "1f1b");
			int64_t want = (m + 1) * (F + B) + 2 * c * ((m + 1) / 2);
			if (r.makespan != want)
				fail_msg("1f1b p=2 m=%d F=%lld B=%lld c=%lld: makespan %lld, expected %lld",
					 m, (long long)F, (long long)B, (long long)c,
					 (long long)r.makespan, (long long)want);
			schedule_free(sc);
			sim_free(s);
			instance_free(in);
		}
}

/* The families follow stage_device: stages 0,1,2 on devices 2,0,1. */
static void test_permuted_placement(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\":3,\"microbatches\":4,\"placement\":[2,0,1],"
		"\"cost\":{\"F\":2,\"B\":3}}");
	struct sim *s = sim_new(in);
	for (int f = 0; f < NFAM; f++) {
		struct schedule *sc = generate_ok(names[f], in);
		struct sim_result r = run_ok(s, sc, names[f]);
		assert_int_equal(r.makespan, (4 + 3 - 1) * (2 + 3));
		for (int d = 0; d < 3; d++)
			for (int i = 0; i < sc->rows[d].len; i++)
				assert_int_equal(in->stage_device[sc->rows[d].ops[i].stage], d);
		schedule_free(sc);
	}
	sim_free(s);
	instance_free(in);
}

static void expect_refusal(const char *json, const char *reason)
{
	struct instance *in = parse_instance_ok(json);
	for (int f = 0; f < NFAM; f++) {
		struct schedule *sc = &sentinel;
		struct error err = {{0}};
		assert_int_equal(family_generate(names[f], in, &sc, &err),
				 STATUS_ERROR);
		assert_null(sc);
		assert_contains(err.msg, names[f]);
		assert_contains(err.msg, reason);
		/* Also through the registry entry. */
		sc = &sentinel;
		memset(&err, 0, sizeof err);
		assert_int_equal(family_run(family_find(names[f]), in, &sc, &err),
				 STATUS_ERROR);
		assert_null(sc);
		assert_contains(err.msg, reason);
	}
	instance_free(in);
}

static void test_refusals(void **state)
{
	/* A stage DAG (diamond). */
	expect_refusal("{\"devices\":4,\"microbatches\":2,"
		       "\"edges\":[[0,1],[0,2],[1,3],[2,3]],\"cost\":{\"F\":1,\"B\":1}}",
		       "chain");
	/* Interleaved: 4 stages on 2 devices. */
	expect_refusal("{\"devices\":2,\"microbatches\":2,\"chunks\":2,"
		       "\"placement\":\"interleaved\",\"cost\":{\"F\":1,\"B\":1}}",
		       "one stage per device");
	/* V: the same count problem. */
	expect_refusal("{\"devices\":2,\"microbatches\":2,\"chunks\":2,"
		       "\"placement\":\"v\",\"cost\":{\"F\":1,\"B\":1}}",
		       "one stage per device");
	/* Explicit placement: 3 stages on 3 devices, but 1 and 2 share one. */
	expect_refusal("{\"devices\":3,\"microbatches\":2,\"placement\":[0,1,1],"
		       "\"cost\":{\"F\":1,\"B\":1}}",
		       "one stage per device");
}

/*
 * Regression, fixed (sched/instance.c, build_adjacency: is_chain compares edges[e] with
 * (e, e+1) position by position): the chain 0->1->2 written as edges
 * [[1,2],[0,1]] is the same stage DAG as the default chain, but is_chain
 * comes out false, so inst_is_simple_chain() and both families refuse it
 * with "the stages do not form the chain 0 -> 1 -> ... -> 2", which is not
 * true. Expected: accepted, and the same makespan as the default chain,
 * (m+p-1)(F+B) = (2+3-1)(1+1) = 8. (Fixed: the edge set is compared, not the list order.)
 */
static void test_chain_edges_in_any_order(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\":3,\"microbatches\":2,\"edges\":[[1,2],[0,1]],"
		"\"cost\":{\"F\":1,\"B\":1}}");
	struct sim *s = sim_new(in);
	for (int f = 0; f < NFAM; f++) {
		struct schedule *sc = generate_ok(names[f], in);
		struct sim_result r = run_ok(s, sc, names[f]);
		assert_int_equal(r.makespan, 8);
		schedule_free(sc);
	}
	sim_free(s);
	instance_free(in);
}

static void test_unknown_family(void **state)
{
	struct instance *in = chain(2, 2, 1, 1, -1, 0, "");
	struct schedule *sc = &sentinel;
	struct error err = {{0}};
	assert_int_equal(family_generate("zerobubble-9", in, &sc, &err),
			 STATUS_ERROR);
	assert_null(sc);
	assert_contains(err.msg, "zerobubble-9");
	for (int i = 0; i < family_count(); i++)
		assert_contains(err.msg, family_at(i)->name);
	assert_contains(err.msg, "gpipe");
	assert_contains(err.msg, "1f1b");
	instance_free(in);
}

/*
 * Every op exactly once, counted independently of the simulator, for p in
 * 1..6, m in 1..9, split and fused; the simulator accepts the schedule; and
 * each stage runs each kind in micro-batch order (FIFO).
 */
static void test_grid_every_op_once(void **state)
{
	for (int split = 0; split < 2; split++)
		for (int p = 1; p <= 6; p++)
			for (int m = 1; m <= 9; m++) {
				struct instance *in = chain(p, m, 3, 4, split ? 2 : -1,
							    1, "");
				struct sim *s = sim_new(in);
				int kinds = split ? 3 : 2;
				for (int f = 0; f < NFAM; f++) {
					struct schedule *sc = generate_ok(names[f], in);
					int count[3][6][9] = {{{0}}};
					int next[3][6] = {{0}};
					assert_int_equal(schedule_nops(sc), kinds * p * m);
					for (int d = 0; d < p; d++)
						for (int i = 0; i < sc->rows[d].len; i++) {
							const struct op *o = &sc->rows[d].ops[i];
							assert_true(o->kind >= 0 && o->kind < kinds);
							assert_int_equal(o->stage, d);
							assert_true(o->mb >= 0 && o->mb < m);
							count[o->kind][o->stage][o->mb]++;
							assert_int_equal(o->mb, next[o->kind][o->stage]);
							next[o->kind][o->stage]++;
						}
					for (int k = 0; k < kinds; k++)
						for (int l = 0; l < p; l++)
							for (int j = 0; j < m; j++)
								assert_int_equal(count[k][l][j], 1);
					run_ok(s, sc, names[f]);
					schedule_free(sc);
				}
				sim_free(s);
				instance_free(in);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_closed_form_no_comm),
		cmocka_unit_test(test_in_flight),
		cmocka_unit_test(test_split_w_after_b),
		cmocka_unit_test(test_gpipe_comm_closed_form),
		cmocka_unit_test(test_1f1b_comm_p2),
		cmocka_unit_test(test_permuted_placement),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_chain_edges_in_any_order),
		cmocka_unit_test(test_unknown_family),
		cmocka_unit_test(test_grid_every_op_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
