/*
 * The 1-periodic model (formulate/periodic.h) and the search over periods
 * (solvers/periodic.h). Known answers by hand:
 *  - without a memory limit a chain's least period is its busiest
 *    device's work per micro-batch (F + B = 3 below), and a schedule of
 *    that period exists: each device repeats F, B every 3 units;
 *  - with room for one activation per stage (F +1, B -1, limit 1),
 *    device 0 holds micro-batch j from F(0, j) to the end of B(0, j), a
 *    round trip of F0 + F1 + B1 + B0 = 4 (plus twice the comm), and the
 *    next forward waits for it: the least period is the round trip, 4
 *    (comm 0) or 6 (comm 1), above the work bound 2.
 * Every unrolled schedule is checked by the simulator.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_helpers.h"

#include "formulate/periodic.h"
#include "sched/sim.h"
#include "solvers/periodic.h"
#include "solvers/solver.h"

/* Solve the model at P with CBC; the outcome. */
static enum outcome solve_at(const struct instance *in, int64_t P)
{
	struct error err;
	struct periodic_milp *pm = periodic_milp_build(in, P, &err);
	assert_non_null(pm);
	struct solver_options so = {.time_limit = 20, .threads = 1};
	struct solver_result r = {0};
	assert_int_equal(solver_solve_isolated(solver_find("cbc"), pm->m, &so, &r, &err), STATUS_OK);
	enum outcome out = r.outcome;
	if (r.has_solution) {   /* every solution unrolls to a valid schedule */
		struct schedule *s = periodic_unroll(pm, r.x);
		struct sim *sim = sim_new(in);
		struct sim_result sr;
		assert_non_null(s);
		assert_int_equal(sim_run(sim, s, &sr, &err), STATUS_OK);
		sim_free(sim);
		schedule_free(s);
	}
	solver_result_release(&r);
	periodic_milp_free(pm);
	return out;
}

static void search(const struct instance *in, int64_t hint, struct periodic_result *r)
{
	struct periodic_options o = {.time_limit = 20, .hint = hint};
	struct error err;
	assert_int_equal(periodic_search(in, &o, r, &err), STATUS_OK);
}

static void test_no_limit_period_is_the_work(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"name\":\"c2\",\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":1,\"B\":2}}");
	assert_true(periodic_takes(in));
	assert_int_equal(periodic_min_period(in), 3);
	struct periodic_result r;
	search(in, 0, &r);
	assert_true(r.taken);
	assert_non_null(r.schedule);
	assert_int_equal(r.period, 3);
	assert_int_equal(r.shortest, 3);
	/* (m - 1) P + the one micro-batch latency 1 + 1 + 2 + 2 */
	assert_true(r.makespan <= 3 * 3 + 6);
	periodic_result_release(&r);
	search(in, 3, &r);   /* a seed already at the least period: nothing asked */
	assert_true(r.seed_at_least);
	assert_int_equal(r.probes, 0);
	assert_null(r.schedule);
	instance_free(in);
	(void)state;
}

static void test_memory_round_trip_sets_the_period(void **state)
{
	static const struct {
		int comm;
		int64_t period;
	} cases[] = {{0, 4}, {1, 6}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char json[256];
		snprintf(json, sizeof json,
			 "{\"name\":\"rt\",\"devices\":2,\"microbatches\":5,\"cost\":{\"F\":1,\"B\":1},"
			 "\"comm\":%d,\"memory\":{\"F\":1,\"B\":-1,\"limit\":1}}", cases[i].comm);
		struct instance *in = parse_instance_ok(json);
		assert_int_equal(periodic_min_period(in), 2);
		assert_int_equal(solve_at(in, cases[i].period - 1), OUTCOME_INFEASIBLE);
		assert_int_equal(solve_at(in, cases[i].period), OUTCOME_OPTIMAL);
		struct periodic_result r;
		search(in, 0, &r);   /* up from 2: the first period with one */
		assert_non_null(r.schedule);
		assert_int_equal(r.period, cases[i].period);
		periodic_result_release(&r);
		search(in, 9, &r);   /* down from a hint */
		assert_int_equal(r.shortest, cases[i].period);
		assert_true(r.period >= r.shortest);
		periodic_result_release(&r);
		instance_free(in);
	}
	(void)state;
}

static void test_takes(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"name\":\"w\",\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":1,\"B\":1,\"W\":1},"
		"\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":4}}");
	assert_true(periodic_takes(in));
	instance_free(in);
	in = parse_instance_ok(   /* B frees more than F took: not taken */
		"{\"name\":\"w\",\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":1,\"B\":1,\"W\":1},"
		"\"memory\":{\"F\":1,\"B\":-2,\"W\":1,\"limit\":4}}");
	assert_false(periodic_takes(in));
	struct periodic_result r;
	search(in, 0, &r);
	assert_false(r.taken);
	assert_null(r.schedule);
	instance_free(in);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_limit_period_is_the_work),
		cmocka_unit_test(test_memory_round_trip_sets_the_period),
		cmocka_unit_test(test_takes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
