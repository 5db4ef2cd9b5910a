/*
 * The exact solver end to end: on tiny instances its certified optimum
 * equals the brute-force optimum of tests/brute.h (an independent
 * enumeration of device orders with its own timing), for every solver
 * backend and every registered formulation, with the MILP forced even where the
 * heuristics already meet the lower bound.
 */
#include "test_helpers.h"

#include "brute.h"
#include "tiny_instances.h"
#include "formulate/formulation.h"
#include "solvers/exact.h"
#include "sched/sim.h"

static void check_one(const struct tiny *t, const char *solver,
		      const char *form, int64_t opt)
{
	struct instance *in = parse_instance_ok(t->json);
	struct exact_options o = {.solver = solver, .formulation = form,
				  .time_limit = 60, .threads = 1, .always_milp = true};
	struct exact_result r;
	struct error err = {{0}};
	if (exact_solve(in, &o, &r, &err))
		fail_msg("%s, %s: %s", t->name, solver, err.msg);
	if (!r.certified || r.objective != opt)
		fail_msg("%s, %s, %s: objective %lld, bound %lld, certified %d; brute force %lld",
			 t->name, solver, form,
			 (long long)r.objective, (long long)r.bound, r.certified, (long long)opt);
	assert_true(r.solved);
	/* the returned schedule really has that objective */
	struct sim *sim = sim_new(in);
	struct sim_result sr;
	assert_int_equal(sim_run(sim, r.schedule, &sr, &err), STATUS_OK);
	assert_int_equal(sr.objective, opt);
	sim_free(sim);
	exact_result_release(&r);
	instance_free(in);
}

static void test_against_brute_force(void **state)
{
	static const char *const solvers[] = {"cbc", "glpk"};
	for (int i = 0; i < NTINY; i++) {
		struct instance *in = parse_instance_ok(tiny_instances[i].json);
		long evaluated = 0;
		int64_t opt = brute_optimum(in, &evaluated);
		instance_free(in);
		assert_true(opt < INT64_MAX);
		for (int s = 0; s < 2; s++)
			for (int f = 0; f < formulation_count(); f++)
				check_one(&tiny_instances[i], solvers[s], formulation_at(f)->name, opt);
	}
}

/* Without forcing the MILP, an instance whose heuristic meets the bound
 * is certified by the bound: fused chain, no comm, (m+p-1)(F+B) = 88. */
static void test_certified_by_bound(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":3,\"B\":5}}");
	struct exact_options o = {.solver = "cbc", .formulation = "auto", .time_limit = 10};
	struct exact_result r;
	struct error err;
	assert_int_equal(exact_solve(in, &o, &r, &err), STATUS_OK);
	assert_true(r.certified);
	assert_string_equal(r.certified_by, "bound");
	assert_false(r.solved);
	assert_int_equal(r.objective, 88);
	exact_result_release(&r);
	instance_free(in);
}

/* Cross-checking runs the other backend; on a tiny instance they agree. */
static void test_cross_check(void **state)
{
	struct instance *in = parse_instance_ok(tiny_instances[3].json);   /* chain3 split mem comm */
	struct exact_options o = {.solver = "cbc", .formulation = "disjunctive",
				  .time_limit = 30, .cross_check = true, .always_milp = true};
	struct exact_result r;
	struct error err;
	assert_int_equal(exact_solve(in, &o, &r, &err), STATUS_OK);
	assert_string_equal(r.cross_check, "agreed");
	exact_result_release(&r);
	instance_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_brute_force),
		cmocka_unit_test(test_certified_by_bound),
		cmocka_unit_test(test_cross_check),
	};
	return cmocka_run_group_tests_name("exact", tests, NULL, NULL);
}
