/*
 * The search over K-periodic orders (solvers/cyclic.h). Known answers:
 *  - 1F1B on a chain is the unrolling of a 1-periodic order (device d:
 *    F of micro-batch n, then B of micro-batch n - w_d, cycle n), so the
 *    order read off its middle unrolls to 1F1B again, of makespan
 *    (m + p - 1)(F + B) with comm 0; that is also the lower bound
 *    (p - 1) F + m (F + B) + (p - 1) B, so nothing beats it;
 *  - on the V placement at v-min's memory (p 2, costs (2, 3, 1), comm 1,
 *    limit 6) the certified optima are 68 (m 4) and 128 (m 8), where
 *    v-min takes 76 and 144 (bench/results/vfamilies-small.md: `solve`
 *    certifies both). The search must land in [optimum, v-min).
 * Every schedule returned is checked by the simulator.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_helpers.h"

#include "sched/family.h"
#include "sched/sim.h"
#include "solvers/cyclic.h"

static struct schedule *family(const struct instance *in, const char *name)
{
	struct schedule *s = NULL;
	struct error err;
	assert_int_equal(family_run(family_find(name), in, &s, &err), STATUS_OK);
	return s;
}

static int64_t simulated(const struct instance *in, const struct schedule *s)
{
	struct sim *sim = sim_new(in);
	struct sim_result r;
	struct error err;
	assert_int_equal(sim_run(sim, s, &r, &err), STATUS_OK);
	int64_t obj = r.objective;
	sim_free(sim);
	return obj;
}

static void search(const struct instance *in, const struct schedule *start, int K_max,
		   long evaluations, struct cyclic_result *r)
{
	struct cyclic_options o = {.K_max = K_max, .time_limit = 600,
				   .max_evaluations = evaluations, .seed = 1};
	struct error err;
	assert_int_equal(cyclic_search(in, start, &o, r, &err), STATUS_OK);
	assert_true(r->evaluations <= evaluations);
	if (r->schedule) {
		assert_int_equal(simulated(in, r->schedule), r->objective);
		assert_true(r->objective < simulated(in, start));
	}
}

static void test_1f1b_unrolls_to_itself(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"name\":\"c4\",\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":2}}");
	struct schedule *s = family(in, "1f1b");
	assert_int_equal(simulated(in, s), (8 + 4 - 1) * 3);
	struct cyclic_result r;
	search(in, s, 1, 1, &r);   /* the start's unrolling only */
	assert_int_equal(r.start_objective, 33);
	assert_null(r.schedule);
	search(in, s, 3, 20000, &r);   /* 33 is the bound: nothing beats it */
	assert_null(r.schedule);
	schedule_free(s);
	instance_free(in);
	(void)state;
}

static void test_beats_vmin_not_the_optimum(void **state)
{
	static const struct {
		int m;
		int64_t optimum, vmin;
	} cases[] = {{4, 68, 76}, {8, 128, 144}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char json[320];
		snprintf(json, sizeof json,
			 "{\"name\":\"v2\",\"devices\":2,\"microbatches\":%d,\"chunks\":2,"
			 "\"placement\":\"v\",\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1,"
			 "\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":6}}",
			 cases[i].m);
		struct instance *in = parse_instance_ok(json);
		struct schedule *s = family(in, "v-min");
		assert_int_equal(simulated(in, s), cases[i].vmin);
		struct cyclic_result r;
		search(in, s, 3, 150000, &r);
		assert_int_equal(r.start_objective, cases[i].vmin);   /* v-min is 1-periodic */
		assert_non_null(r.schedule);
		assert_true(r.objective < cases[i].vmin);
		assert_true(r.objective >= cases[i].optimum);
		cyclic_result_release(&r);
		schedule_free(s);
		instance_free(in);
	}
	(void)state;
}

static void test_decisions_not_taken(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"name\":\"rc\",\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":1,\"B\":2},"
		"\"memory\":{\"F\":1,\"B\":-1,\"limit\":2},\"recompute\":{\"R\":1}}");
	assert_false(cyclic_takes(in, 1));
	struct schedule *s = family(in, "1f1b");
	struct cyclic_result r;
	search(in, s, 2, 1000, &r);
	assert_null(r.schedule);
	assert_int_equal(r.evaluations, 0);
	schedule_free(s);
	instance_free(in);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_1f1b_unrolls_to_itself),
		cmocka_unit_test(test_beats_vmin_not_the_optimum),
		cmocka_unit_test(test_decisions_not_taken),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
