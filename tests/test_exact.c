/*
 * The exact solver end to end: on tiny instances its certified optimum
 * equals the brute-force optimum of tests/brute.h (an independent
 * enumeration of device orders with its own timing), for every solver
 * backend and every registered formulation, with the MILP forced even where the
 * heuristics already meet the lower bound.
 */
#include "test_helpers.h"

#include "brute.h"
#include "xorshift.h"
#include "tiny_instances.h"
#include "formulate/formulation.h"
#include "formulate/opgraph.h"
#include "formulate/schedule_milp.h"
#include "crash_backends.h"
#include "solvers/bnb.h"
#include "solvers/cyclic.h"
#include "solvers/exact.h"
#include "solvers/lns.h"
#include "solvers/relax.h"
#include "solvers/shave.h"
#include "sched/bound.h"
#include "solvers/solver.h"
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

/*
 * A solver process that crashes loses its pass only: the solve returns the
 * heuristic's schedule with the closed-form bound, counts the crashes, and
 * says the solver answered "error". Fused chain, p 4, m 8, F 3, B 5, no
 * memory: 1f1b's 88 meets the bound, so with the MILP forced it is still
 * certified, by the bound. With 4 activations per device, comm 1 and
 * F 1, B 2 no family meets the bound, and with every pass crashed the
 * solve ends unproven, with its schedule, not as an error.
 */
static void test_solver_crash_loses_one_pass(void **state)
{
	(void)state;
	static const struct solver_backend crashing = {"crashing", fake_version, crash_at_once,
						       0, 0.1};
	struct exact_options o = {.solver = "cbc", .formulation = "auto", .time_limit = 5,
				  .always_milp = true, .test_backend = &crashing};
	struct exact_result r;
	struct error err;
	struct instance *in = parse_instance_ok(
		"{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":3,\"B\":5}}");
	assert_int_equal(exact_solve(in, &o, &r, &err), STATUS_OK);
	assert_true(r.solver_crashes >= 1);
	assert_string_equal(r.solver_outcome, "error");
	assert_int_equal(r.objective, 88);
	assert_true(r.certified);
	assert_string_equal(r.certified_by, "bound");
	exact_result_release(&r);
	instance_free(in);
	in = parse_instance_ok(
		"{\"devices\":4,\"microbatches\":8,\"cost\":{\"F\":1,\"B\":2},\"comm\":1,"
		"\"memory\":{\"F\":2,\"B\":-2,\"limit\":8}}");
	assert_int_equal(exact_solve(in, &o, &r, &err), STATUS_OK);
	assert_true(r.solver_crashes >= 1);
	assert_non_null(r.schedule);
	assert_false(r.certified);
	assert_true(r.bound < r.objective);
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

/* Deterministic small random numbers for the span cases. */
static uint64_t span_rng = 0x2545f4914f6cdd1dULL;
static int rnd(int lo, int hi)
{
	return xorshift_in(&span_rng, lo, hi);
}

/* A shape's JSON body with its costs drawn from 1 to 5 (up to 9 of them),
 * the generator seeded with `seed` (draws after it go on from there). */
static void shape_body(const char *fmt, uint64_t seed, char *body, size_t n)
{
	int v[9];
	span_rng = seed;
	for (int i = 0; i < 9; i++)
		v[i] = rnd(1, 5);
	snprintf(body, n, fmt, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
}

/* A random tiny instance (chains of 2 or 3 devices, interleaved, V, a
 * diamond DAG; split or fused; comm; sometimes memory) with objective obj. */
static void span_instance_json(int shape, const char *obj, char *json, size_t n, int seedpos)
{
	static const char *const shapes[] = {
		"\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":[%d,%d],\"B\":[%d,%d],\"W\":[%d,%d]}",
		"\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":[%d,%d],\"B\":[%d,%d]}",
		"\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":[%d,%d,%d],\"B\":[%d,%d,%d]}",
		"\"devices\":2,\"microbatches\":2,\"chunks\":2,\"placement\":\"v\",\"cost\":{\"F\":%d,\"B\":%d}",
		"\"devices\":2,\"microbatches\":2,\"chunks\":2,\"placement\":\"interleaved\",\"cost\":{\"F\":%d,\"B\":%d}",
		"\"devices\":3,\"microbatches\":2,\"placement\":[0,1,2,0],\"edges\":[[0,1],[0,2],[1,3],[2,3]],\"cost\":{\"F\":%d,\"B\":%d}",
	};
	char body[512];
	shape_body(shapes[shape], 0x2545f4914f6cdd1dULL + (uint64_t)seedpos * 7919, body,
		   sizeof body);
	int comm = rnd(0, 2);
	const char *mem = shape == 1 && rnd(0, 1) ? ",\"memory\":{\"F\":1,\"B\":-1,\"limit\":2}" : "";
	snprintf(json, n, "{%s,\"comm\":%d%s,\"objective\":\"%s\"}", body, comm, mem, obj);
}

/* The span solved exactly: on random tiny instances the certified span
 * equals the brute force (which times each order as the simulator does),
 * and among them are instances where the two objectives part: the
 * certified makespan-optimal schedule has a longer span than the optimum,
 * or the span-optimal one a longer makespan than its optimum. */
static void test_span_exact_against_brute_force(void **state)
{
	int total = 0, not_makespan_optimal = 0, by_search = 0, improved = 0;
	for (int shape = 0; shape < 6; shape++)
		for (int rep = 0; rep < 6; rep++) {
			char json[1024], mk[1024];
			span_instance_json(shape, "span", json, sizeof json, shape * 100 + rep);
			span_instance_json(shape, "makespan", mk, sizeof mk, shape * 100 + rep);
			struct instance *in = parse_instance_ok(json), *inm = parse_instance_ok(mk);
			int64_t opt = brute_optimum(in, NULL), opt_makespan = brute_optimum(inm, NULL);
			if (opt == INT64_MAX) {
				instance_free(in);
				instance_free(inm);
				continue;
			}
			struct exact_options o = {.solver = "cbc", .time_limit = 30, .threads = 1};
			struct exact_result r;
			struct error err = {{0}};
			if (exact_solve(in, &o, &r, &err))
				fail_msg("%s: %s", json, err.msg);
			if (!r.certified || r.objective != opt)
				fail_msg("%s: span %lld (certified %d by %s), brute force %lld", json,
					 (long long)r.objective, r.certified,
					 r.certified_by ? r.certified_by : "-", (long long)opt);
			struct sim *sim = sim_new(in);
			struct sim_result sr;
			assert_int_equal(sim_run(sim, r.schedule, &sr, &err), STATUS_OK);
			assert_int_equal(sr.span, opt);
			/* a makespan-optimal schedule, certified, whose span is longer */
			struct exact_result rm;
			struct sim_result srm;
			if (exact_solve(inm, &o, &rm, &err))
				fail_msg("%s: %s", mk, err.msg);
			assert_true(rm.certified);
			assert_int_equal(rm.objective, opt_makespan);
			struct sim *simm = sim_new(in);
			assert_int_equal(sim_run(simm, rm.schedule, &srm, &err), STATUS_OK);
			not_makespan_optimal += srm.span > opt || sr.makespan > opt_makespan;
			sim_free(simm);
			exact_result_release(&rm);
			by_search += r.certified_by && !strcmp(r.certified_by, "search");
			improved += r.heuristic_objective > r.objective;
			total++;
			sim_free(sim);
			exact_result_release(&r);
			instance_free(in);
			instance_free(inm);
		}
	print_message("span: %d instances certified = brute force; %d by the search, %d of them below the best heuristic; %d where makespan and span optima part\n",
		      total, by_search, improved, not_makespan_optimal);
	assert_true(total >= 30);
	assert_true(by_search > 0);
	assert_true(not_makespan_optimal > 0);
}

/*
 * The target passes (exact.c target_pass: horizon and makespan bounded by
 * a target, from the proven bound up) of the time-indexed model, of the
 * disjunctive one (its targets, then the model with the start, exact.c
 * disjunctive_passes), and auto's order (with split backward the
 * disjunctive targets, capped, then the time-indexed ones): on random tiny
 * instances, with the exact search left out (always_milp), so that the
 * MILP decides, the certified makespan is the brute force's, with both
 * backends, from the heuristics and from the optimum as a start; among
 * them passes that found a shorter schedule than the heuristics'. Here
 * the bound meets the optimum, so no target is answered infeasible; each
 * instance is therefore solved once more from a bound 2 units weaker
 * (exact_options.test_bound_slack), which the targets must climb back by
 * infeasible answers, to the heuristic's schedule or to a shorter one
 * found at OPT. (A bound set to target + 2 on an infeasible answer would
 * certify a schedule 1 above OPT there.) The next test checks what such
 * an answer rests on.
 */
static void test_target_passes_against_brute_force(void **state)
{
	static const char *const solvers[] = {"cbc", "glpk"};
	static const char *const forms[] = {"time-indexed", "disjunctive", "auto"};
	int dj_infeasible = 0;
	int total = 0, improved = 0, climbed = 0, below_incumbent = 0;
	for (int shape = 0; shape < 6; shape++)
		for (int rep = 0; rep < 12; rep++) {
			char json[1024];
			span_instance_json(shape, "makespan", json, sizeof json, 5000 + shape * 100 + rep);
			struct instance *in = parse_instance_ok(json);
			int64_t opt = brute_optimum(in, NULL);
			for (int k = 0; k < 6 && opt < INT64_MAX; k++) {
				const char *form = forms[k / 2];
				struct exact_options o = {.solver = solvers[k % 2], .formulation = form,
							  .time_limit = 30, .threads = 1,
							  .always_milp = true};
				struct exact_result r;
				struct error err = {{0}};
				if (exact_solve(in, &o, &r, &err))
					fail_msg("%s, %s: %s", json, solvers[k % 2], err.msg);
				if (!r.certified || r.objective != opt)
					fail_msg("%s, %s: makespan %lld, bound %lld (certified %d); brute force %lld",
						 json, solvers[k % 2], (long long)r.objective, (long long)r.bound,
						 r.certified, (long long)opt);
				struct sim *sim = sim_new(in);
				struct sim_result sr;
				assert_int_equal(sim_run(sim, r.schedule, &sr, &err), STATUS_OK);
				assert_int_equal(sr.makespan, opt);
				sim_free(sim);
				improved += r.solved && r.heuristic_objective > r.objective;
				total++;
				/* again with the bound 2 units weaker: the targets must
				 * prove them back, by infeasible answers (bound = target
				 * + 1, capped at the incumbent), and stop exactly at OPT */
				struct exact_result rw;
				o.test_bound_slack = 2;
				if (exact_solve(in, &o, &rw, &err))
					fail_msg("%s, %s, bound - 2: %s", json, solvers[k % 2], err.msg);
				if (!rw.certified || rw.objective != opt || rw.bound != opt)
					fail_msg("%s, %s, bound - 2: makespan %lld, bound %lld (certified %d); brute force %lld",
						 json, solvers[k % 2], (long long)rw.objective, (long long)rw.bound,
						 rw.certified, (long long)opt);
				/* the disjunctive model with a start never answers
				 * infeasible: such an answer came from its targets */
				dj_infeasible += k >= 2 && k < 4 && rw.solver_outcome &&
						 strstr(rw.solver_outcome, "infeasible");
				if (!rw.formulation || (k < 4 && strncmp(rw.formulation, form, strlen(form))))
					fail_msg("%s, %s: formulation %s, solved %d, outcome %s", json, solvers[k % 2], rw.formulation ? rw.formulation : "none", rw.solved, rw.solver_outcome ? rw.solver_outcome : "none");
				climbed += rw.lower_bound - 2 < opt;
				below_incumbent += rw.heuristic_objective == opt;
				exact_result_release(&rw);
				o.test_bound_slack = 0;
				/* again from the optimum as a start: still certified at it */
				struct exact_result r2;
				o.start = r.schedule;
				if (exact_solve(in, &o, &r2, &err))
					fail_msg("%s, %s, from the optimum: %s", json, solvers[k % 2], err.msg);
				if (!r2.certified || r2.objective != opt)
					fail_msg("%s, %s, from the optimum: makespan %lld, bound %lld (certified %d); brute force %lld",
						 json, solvers[k % 2], (long long)r2.objective, (long long)r2.bound,
						 r2.certified, (long long)opt);
				exact_result_release(&r2);
				exact_result_release(&r);
			}
			instance_free(in);
		}
	print_message("targets: %d solves = brute force; %d shorter than the heuristics; %d climbed from a bound 2 below (%d of them to the heuristic's schedule; %d decided by a disjunctive target's infeasible answer)\n",
		      total, improved, climbed, below_incumbent, dj_infeasible);
	assert_true(dj_infeasible > 0);
	assert_true(total >= 100);
	assert_true(improved > 0);
	/* both ends of the climb: it met the heuristic (infeasible below the
	 * incumbent), and it found a shorter schedule after infeasible answers */
	assert_true(below_incumbent > 0 && climbed > below_incumbent);
}

/*
 * What an infeasible target proves rests on one property: the model with
 * horizon and makespan bounded by H holds a schedule exactly when one ends
 * by H. On the same random instances (where the bound meets the optimum,
 * so that the solve above never needs the infeasible branch), for the
 * time-indexed model and the disjunctive one built as exact.c builds a
 * target (objective fixed to H, so the windows fix the pair orders they
 * decide): at H = OPT - 1 (brute force) both backends say infeasible, at
 * H = OPT they find a point of objective OPT. A fixing that cut off every
 * optimum would fail the second; the fixings must happen for the test to
 * mean anything, so they are counted.
 */
static void test_target_model_infeasible_below_optimum(void **state)
{
	static const char *const solvers[] = {"cbc", "glpk"};
	const struct formulation *forms[] = {formulation_find("time-indexed"),
					     formulation_find("disjunctive")};
	int checked = 0, fixed = 0;
	for (int shape = 0; shape < 6; shape++)
		for (int rep = 0; rep < 6; rep++) {
			char json[1024];
			span_instance_json(shape, "makespan", json, sizeof json, 5000 + shape * 100 + rep);
			struct instance *in = parse_instance_ok(json);
			int64_t opt = brute_optimum(in, NULL);
			struct error err = {{0}};
			struct opgraph *g = opgraph_new(in, &err);
			assert_non_null(g);
			for (int f = 0; f < 2; f++)
			for (int64_t H = opt - 1; H <= opt && opt < INT64_MAX; H++) {
				bool dj = f == 1;
				struct sched_milp *sm = sched_milp_build(in, g, forms[f], H, dj ? H : 0, H, &err);
				if (!sm && H < opt && strstr(err.msg, "below the longest path")) {
					checked++;   /* refused: no op fits, the model's own proof */
					continue;
				}
				if (!sm)
					fail_msg("%s %s H %lld: %s", forms[f]->name, json, (long long)H, err.msg);
				if (dj)
					fixed += sm->fixed_binaries;
				for (int k = 0; k < 2; k++) {
					struct solver_options so = {.time_limit = 30, .threads = 1};
					struct solver_result res;
					assert_int_equal(solver_solve_isolated(solver_find(solvers[k]), sm->milp,
									       &so, &res, &err), STATUS_OK);
					if (H < opt && res.outcome != OUTCOME_INFEASIBLE)
						fail_msg("%s, %s, %s: horizon %lld = OPT - 1 is not infeasible (%s)",
							 forms[f]->name, json, solvers[k], (long long)H,
							 outcome_name(res.outcome));
					if (H == opt && (res.outcome != OUTCOME_OPTIMAL ||
							 fabs(res.objective - opt) > 1e-6))
						fail_msg("%s, %s, %s: horizon OPT = %lld: %s %.6g", forms[f]->name,
							 json, solvers[k], (long long)H,
							 outcome_name(res.outcome), res.objective);
					solver_result_release(&res);
					checked++;
				}
				sched_milp_free(sm);
			}
			opgraph_free(g);
			instance_free(in);
		}
	printf("target models: %d answers checked, %d pair orders fixed by the windows\n", checked,
	       fixed);
	assert_true(checked >= 200);
	assert_true(fixed > 0);
}

/* Never a wrong certificate: on random tiny instances of every shape,
 * both objectives, the exact search alone (no incumbent, no bound) and
 * the MILP of every formulation with every backend (makespan, where it is
 * exact) agree with the brute force, and every schedule re-simulates to
 * the claimed objective. */
static void test_search_and_milps_against_brute_force(void **state)
{
	int total = 0, milps = 0, memos = 0;
	for (int shape = 0; shape < 6; shape++)
		for (int rep = 0; rep < 20; rep++)
			for (int span = 0; span < 2; span++) {
				char json[1024];
				span_instance_json(shape, span ? "span" : "makespan", json, sizeof json,
						   1000 + shape * 100 + rep);
				struct instance *in = parse_instance_ok(json);
				int64_t opt = brute_optimum(in, NULL);
				struct bnb_options bo = {.incumbent = INT64_MAX, .lower_bound = 0};
				struct bnb_result br;
				struct error err = {{0}};
				/* the dominance mode (makespan) must agree as well */
				bo.memo = true;
				assert_int_equal(bnb_solve(in, &bo, &br, &err), STATUS_OK);
				assert_true(br.proved);
				if (opt != INT64_MAX && br.objective != opt)
					fail_msg("%s: search with dominance %lld, brute force %lld", json,
						 (long long)br.objective, (long long)opt);
				memos += !span;
				schedule_free(br.schedule);
				/* and with Jackson's device bound */
				bo.jackson = true;
				assert_int_equal(bnb_solve(in, &bo, &br, &err), STATUS_OK);
				assert_true(br.proved);
				if (opt != INT64_MAX && br.objective != opt)
					fail_msg("%s: search with Jackson's bound %lld, brute force %lld", json,
						 (long long)br.objective, (long long)opt);
				schedule_free(br.schedule);
				bo.jackson = false;
				bo.memo = false;
				assert_int_equal(bnb_solve(in, &bo, &br, &err), STATUS_OK);
				assert_true(br.proved);
				if (opt == INT64_MAX) {   /* infeasible: the search finds nothing */
					assert_null(br.schedule);
					instance_free(in);
					continue;
				}
				if (br.objective != opt)
					fail_msg("%s: search %lld, brute force %lld", json,
						 (long long)br.objective, (long long)opt);
				struct sim *sim = sim_new(in);
				struct sim_result sr;
				assert_int_equal(sim_run(sim, br.schedule, &sr, &err), STATUS_OK);
				assert_int_equal(sr.objective, opt);
				sim_free(sim);
				schedule_free(br.schedule);
				total++;
				for (int f = 0; !span && rep % 4 == 0 && f < formulation_count(); f++)
					for (int b = 0; b < solver_count(); b++) {
						struct exact_options o = {.solver = solver_name_at(b),
							.formulation = formulation_at(f)->name, .time_limit = 30,
							.threads = 1, .always_milp = true};
						struct exact_result r;
						if (exact_solve(in, &o, &r, &err))
							fail_msg("%s: %s", json, err.msg);
						if (!r.certified || r.objective != opt)
							fail_msg("%s, %s, %s: %lld (certified %d), brute force %lld",
								 json, o.solver, o.formulation,
								 (long long)r.objective, r.certified, (long long)opt);
						exact_result_release(&r);
						milps++;
					}
				instance_free(in);
			}
	print_message("search = brute force on %d instances (%d with dominance); %d MILP solves agree\n",
		      total, memos, milps);
	assert_true(total >= 200);
}

/* A random tiny makespan instance for the window bounds, with memory
 * limits that bind (half the split chains with a W that takes memory
 * back: B frees more than F took): chains of 2 or 3 devices, V and
 * interleaved placements, a fork-join DAG; per-stage costs 1-5, comm 0-2,
 * a limit of 1 to 3 activations where memory is on. */
static void window_instance_json(int shape, int seedpos, char *json, size_t n)
{
	static const char *const shapes[] = {
		"\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":[%d,%d],\"B\":[%d,%d]}",
		"\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":[%d,%d,%d],\"B\":[%d,%d,%d]}",
		"\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":[%d,%d,%d],\"B\":[%d,%d,%d],\"W\":[%d,%d,%d]}",
		"\"devices\":2,\"microbatches\":2,\"chunks\":2,\"placement\":\"v\",\"cost\":{\"F\":%d,\"B\":%d}",
		"\"devices\":2,\"microbatches\":2,\"chunks\":2,\"placement\":\"interleaved\",\"cost\":{\"F\":%d,\"B\":%d}",
		"\"devices\":3,\"microbatches\":2,\"placement\":[0,1,2,0],\"edges\":[[0,1],[0,2],[1,3],[2,3]],\"cost\":{\"F\":%d,\"B\":%d}",
	};
	char body[512], mem[128] = "";
	shape_body(shapes[shape], 0x9e3779b97f4a7c15ULL + (uint64_t)seedpos * 104729, body,
		   sizeof body);
	int acts = rnd(0, 3);   /* 0: no memory limit */
	if (acts && shape == 2 && seedpos % 2)   /* a W that takes memory back */
		snprintf(mem, sizeof mem, ",\"memory\":{\"F\":1,\"B\":-2,\"W\":1,\"limit\":%d}", acts);
	else if (acts && shape == 2)
		snprintf(mem, sizeof mem, ",\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":%d}", 2 * acts);
	else if (acts)
		snprintf(mem, sizeof mem, ",\"memory\":{\"F\":1,\"B\":-1,\"limit\":%d}", acts);
	snprintf(json, n, "{%s,\"comm\":%d%s}", body, rnd(0, 2), mem);
}

/* One random tiny instance of window_instance_json, with what the tests
 * below compare against. */
struct tiny_case {
	const char *json;
	struct instance *in;
	int64_t opt;            /* the brute force's optimum */
	struct bounds cb;       /* the closed forms */
};

/* check() on every instance of the six shapes, `reps` each from seed
 * position `seedbase`, whose limit admits a schedule; how many. */
static int each_window_instance(int reps, int seedbase,
				void (*check)(const struct tiny_case *c, void *ctx), void *ctx)
{
	int n = 0;
	for (int shape = 0; shape < 6; shape++)
		for (int rep = 0; rep < reps; rep++) {
			char json[1024];
			window_instance_json(shape, seedbase + shape * 100 + rep, json, sizeof json);
			struct tiny_case c = {.json = json, .in = parse_instance_ok(json)};
			c.opt = brute_optimum(c.in, NULL);
			if (c.opt != INT64_MAX) {
				struct error err = {{0}};
				assert_int_equal(bound_compute(c.in, &c.cb, &err), STATUS_OK);
				check(&c, ctx);
				n++;
			}
			instance_free(c.in);
		}
	return n;
}

/* Window bounds (relax.h) never above the optimum: on random tiny
 * instances every window's relaxation, solved by the exact search, equals
 * the brute force of the same relaxation (tests/brute.h with those
 * devices relaxed: any number of ops at once, no memory limit), never
 * exceeds the brute-force optimum of the instance, and the window of every
 * device is the instance itself. relax_bound from the closed-form bound
 * stays at or below the optimum too. Some windows must raise a bound
 * above both the closed forms and every narrower window (the test fails
 * if the relaxations never matter). */
struct window_counts {
	int windows, above_closed_form;
};

static void check_windows(const struct tiny_case *c, void *ctx)
{
	struct window_counts *k = ctx;
	struct instance *in = c->in;
	struct error err = {{0}};
	int D = in->devices;
	bool relaxed[8];
	for (int w = 1; w <= D; w++)
		for (int lo = 0; lo + w <= D; lo++) {
			for (int d = 0; d < D; d++)
				relaxed[d] = d < lo || d >= lo + w;
			int64_t want = brute_relaxed_optimum(in, relaxed, NULL), got;
			bool proved;
			long nodes;
			/* from a few units below: the targets it must refute */
			int64_t from = want > 3 ? want - 3 : 0;
			assert_int_equal(relax_window(in, lo, lo + w - 1, from, INT64_MAX, 0, &got,
						      &proved, &nodes, &err), STATUS_OK);
			assert_true(proved);
			if (got != want || got > c->opt)
				fail_msg("%s: window %d-%d: search %lld, brute force of the relaxation %lld, optimum %lld",
					 c->json, lo, lo + w - 1, (long long)got, (long long)want,
					 (long long)c->opt);
			if (w == D)
				assert_int_equal(got, c->opt);
			else if (got > c->cb.best)
				k->above_closed_form++;
			k->windows++;
		}
	struct relax_options ro = {.lower_bound = c->cb.best, .upper_bound = c->opt,
				   .time_limit = 10};
	struct relax_result rr;
	assert_int_equal(relax_bound(in, &ro, &rr, &err), STATUS_OK);
	assert_true(rr.bound >= c->cb.best && rr.bound <= c->opt);
}

static void test_window_bounds_against_brute_force(void **state)
{
	struct window_counts k = {0};
	int instances = each_window_instance(25, 500, check_windows, &k);
	print_message("window bounds = brute force of their relaxations on %d windows of %d instances; %d above the closed-form bound\n",
		      k.windows, instances, k.above_closed_form);
	assert_true(instances >= 100);
	assert_true(k.above_closed_form > 0);
	(void)state;
}

/* The shaving bound and its search (shave.h) against the brute force on
 * the window bounds' random tiny instances (every shape: chains, split
 * with a W that takes memory back, V, interleaved, a fork-join DAG;
 * limits that bind), from 0 so that every target below the optimum must
 * be refuted: the bound alone never exceeds the optimum; with the search
 * (on every shape, also where shave_search_takes says it wanders) it
 * ends at the optimum with a schedule that simulates to it, every target
 * below refuted. Shaving must prove more than the closed forms somewhere. */
struct shave_counts {
	int above_closed_form, at_optimum;
};

static void check_shave(const struct tiny_case *c, void *ctx)
{
	struct shave_counts *k = ctx;
	struct error err = {{0}};
	struct shave_options so = {.time_limit = 20, .upper_bound = INT64_MAX};
	struct shave_result sr;
	assert_true(shave_takes(c->in));
	assert_int_equal(shave_bound(c->in, &so, &sr, &err), STATUS_OK);
	if (sr.bound > c->opt)
		fail_msg("%s: shaving bound %lld above the optimum %lld", c->json,
			 (long long)sr.bound, (long long)c->opt);
	k->above_closed_form += sr.bound > c->cb.best;
	k->at_optimum += sr.bound == c->opt;
	so.search = true;
	assert_int_equal(shave_bound(c->in, &so, &sr, &err), STATUS_OK);
	if (!sr.schedule || sr.objective != c->opt || sr.bound != c->opt || !sr.finished)
		fail_msg("%s: shaving search ends at %lld with bound %lld (finished %d), brute force %lld",
			 c->json, sr.schedule ? (long long)sr.objective : -1LL, (long long)sr.bound,
			 sr.finished, (long long)c->opt);
	struct sim *sim = sim_new(c->in);
	struct sim_result res;
	assert_int_equal(sim_run(sim, sr.schedule, &res, NULL), STATUS_OK);
	assert_int_equal(res.objective, c->opt);
	sim_free(sim);
	schedule_free(sr.schedule);
}

static void test_shave_against_brute_force(void **state)
{
	struct shave_counts k = {0};
	int instances = each_window_instance(30, 2000, check_shave, &k);
	print_message("shaving: bound at the optimum on %d of %d instances (%d above the closed forms); the search = brute force on all\n",
		      k.at_optimum, instances, k.above_closed_form);
	assert_true(instances >= 120);
	assert_true(k.above_closed_form > 0);
	(void)state;
}

/* ---- neighbourhoods (bnb.h `fixed`) and the local search (lns.h) ---- */

/* What the brute-force visits of the neighbourhood test share: the base
 * combination (each device's order, brute.h op indices), its free
 * segments, and the extremes seen. */
struct hood_ctx {
	int base[8][BRUTE_MAX_OPS];
	int from[8], to[8];
	bool restrict_to_hood;       /* false: any FIFO combination */
	int64_t best, worst;
	int worst_order[8][BRUTE_MAX_OPS];
};

/* Every (kind, stage) of each device in micro-batch order (the search's
 * FIFO rule, bnb.h). */
static bool brute_fifo(const struct brute *b)
{
	for (int d = 0; d < b->in->devices; d++)
		for (int i = 0; i < b->dev_n[d]; i++)
			for (int k = i + 1; k < b->dev_n[d]; k++) {
				int x = b->order[d][i], y = b->order[d][k];
				if (b->kind[x] == b->kind[y] && b->stage[x] == b->stage[y] &&
				    b->mb[x] > b->mb[y])
					return false;
			}
	return true;
}

static void hood_visit(const struct brute *b, int64_t objective, void *ctx)
{
	struct hood_ctx *h = ctx;
	if (!brute_fifo(b))
		return;
	for (int d = 0; h->restrict_to_hood && d < b->in->devices; d++)
		for (int i = 0; i < b->dev_n[d]; i++)
			if ((i < h->from[d] || i >= h->to[d]) && b->order[d][i] != h->base[d][i])
				return;   /* a kept position changed */
	if (objective < h->best)
		h->best = objective;
	if (objective > h->worst) {
		h->worst = objective;
		memcpy(h->worst_order, b->order, sizeof h->worst_order);
	}
}

static struct schedule *orders_to_schedule(const struct instance *in, int order[8][BRUTE_MAX_OPS])
{
	struct schedule *sc = schedule_new(in->devices);
	int M = in->microbatches, L = in->stages;
	for (int d = 0; d < in->devices; d++) {
		int n = 0;
		for (int o = 0; o < inst_nops(in); o++)
			n += in->stage_device[o / M % L] == d;
		for (int i = 0; i < n; i++) {
			int o = order[d][i];
			assert_int_equal(schedule_push(sc, d, o / (L * M), o / M % L, o % M), STATUS_OK);
		}
	}
	return sc;
}

/*
 * The exact search over a neighbourhood (each device's order kept but for
 * one segment) equals a brute force of the same neighbourhood: every FIFO
 * combination whose kept positions hold the base's ops. The base is the
 * worst valid FIFO combination of each random tiny instance, so most
 * neighbourhoods hold better ones; the test fails if none does. Then the
 * local search from that base ends at or above the brute-force optimum,
 * at or below the base, re-simulated to what it reports, and improves
 * some bases.
 */
static void test_neighbourhoods_against_brute_force(void **state)
{
	(void)state;
	int hoods = 0, better_hoods = 0, improved = 0, instances = 0;
	struct hood_ctx *h = malloc(sizeof *h);
	for (int shape = 0; shape < 6; shape++)
		for (int rep = 0; rep < 8; rep++) {
			char json[1024];
			window_instance_json(shape, 900 + shape * 100 + rep, json, sizeof json);
			struct instance *in = parse_instance_ok(json);
			memset(h, 0, sizeof *h);
			h->best = INT64_MAX;
			h->worst = -1;
			brute_visit_all(in, hood_visit, h);
			if (h->worst < 0) {   /* no valid FIFO schedule */
				instance_free(in);
				continue;
			}
			int64_t opt = h->best, base_obj = h->worst;
			memcpy(h->base, h->worst_order, sizeof h->base);
			struct schedule *base = orders_to_schedule(in, h->base);
			struct error err = {{0}};
			int D = in->devices, from[8], to[8];
			for (int rep2 = 0; rep2 < 4; rep2++) {
				for (int d = 0; d < D; d++) {
					int len = base->rows[d].len;
					int a = rnd(0, len), c = rnd(0, len);
					from[d] = h->from[d] = a < c ? a : c;
					to[d] = h->to[d] = a < c ? c : a;
				}
				h->restrict_to_hood = true;
				h->best = INT64_MAX;
				h->worst = -1;
				brute_visit_all(in, hood_visit, h);
				assert_true(h->best <= base_obj);   /* the base is in it */
				for (int jack = 0; jack < 2; jack++) {
					struct bnb_options bo = {.incumbent = INT64_MAX, .memo = true,
								 .jackson = jack, .fixed = base,
								 .free_from = from, .free_to = to};
					struct bnb_result br;
					assert_int_equal(bnb_solve(in, &bo, &br, &err), STATUS_OK);
					assert_true(br.proved);
					if (br.objective != h->best)
						fail_msg("%s: neighbourhood search %lld (Jackson %d), brute force %lld",
							 json, (long long)br.objective, jack, (long long)h->best);
					schedule_free(br.schedule);
				}
				hoods++;
				better_hoods += h->best < base_obj;
			}
			struct schedule *sc = schedule_copy(base);
			int64_t obj = base_obj;
			struct lns_options lo = {.time_limit = 10};
			struct lns_result lr;
			assert_int_equal(lns_improve(in, &lo, &sc, &obj, &lr, &err), STATUS_OK);
			assert_true(obj >= opt && obj <= base_obj);
			/* tiny instances: a whole round without improvement ends it
			 * long before the clock */
			assert_true(lr.local_optimum);
			/* a run the clock stops at once proves no local optimum */
			struct schedule *cut = schedule_copy(base);
			int64_t cut_obj = base_obj;
			struct lns_options at_once = {.time_limit = 1e-9};
			assert_int_equal(lns_improve(in, &at_once, &cut, &cut_obj, &lr, &err), STATUS_OK);
			assert_false(lr.local_optimum);
			assert_int_equal(cut_obj, base_obj);
			schedule_free(cut);
			struct sim *sim = sim_new(in);
			struct sim_result sr;
			assert_int_equal(sim_run(sim, sc, &sr, &err), STATUS_OK);
			assert_int_equal(sr.objective, obj);
			improved += obj < base_obj;
			sim_free(sim);
			schedule_free(sc);
			schedule_free(base);
			instance_free(in);
			instances++;
		}
	free(h);
	{   /* one device: no neighbourhood applies, so a rerun finds nothing */
		struct instance *one = parse_instance_ok(
			"{\"name\":\"one\",\"devices\":1,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1}}");
		struct schedule *sc = NULL;
		struct error err = {{0}};
		assert_int_equal(schedule_parse("{\"schedule\":[[[\"F\",0,0],[\"B\",0,0]]]}",
						"one.json", &sc, &err), STATUS_OK);
		int64_t obj = 2;
		struct lns_options lo = {.time_limit = 1};
		struct lns_result lr;
		assert_false(lns_takes(one));
		assert_int_equal(lns_improve(one, &lo, &sc, &obj, &lr, &err), STATUS_OK);
		assert_true(lr.local_optimum);
		assert_int_equal(obj, 2);
		schedule_free(sc);
		instance_free(one);
	}
	print_message("neighbourhood searches = brute force on %d neighbourhoods of %d instances (%d hold a better schedule); the local search improved %d of %d worst schedules\n",
		      hoods, instances, better_hoods, improved, instances);
	assert_true(instances >= 30);
	assert_true(better_hoods > 0 && improved > 0);
}

/* A W that takes memory back (B frees more than F took, W takes the rest
 * back) lets F(l, j + K) run before B(l, j) with room for K activations:
 * F 1, B -2, W +1, room for one, F0 B0 F1 B1 F2 F3 holds at most 1. The
 * search's memory arcs must not assume otherwise (without that guard it
 * claimed 52 on the first chain below, whose optimum is 49). On such
 * chains of 2 devices (the first with room for one or two activations,
 * the second unlimited), 4 micro-batches, too many orders for the brute
 * force, the exact search with dominance, with and without Jackson's
 * bound, agrees with the MILP (CBC, disjunctive, forced), whose memory
 * rows count every delta as it is. */
static void test_search_positive_w_delta(void **state)
{
	for (int rep = 0; rep < 13; rep++) {
		char json[512];
		if (rep == 0) {
			snprintf(json, sizeof json, "%s",
				 "{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":[3,3],\"B\":[4,1],"
				 "\"W\":[2,4]},\"comm\":2,\"memory\":{\"F\":1,\"B\":-2,\"W\":1,"
				 "\"limit\":[1,100]}}");
		} else {
			span_rng = 0x51ed2701ULL + (uint64_t)rep * 977;
			int f0 = rnd(1, 3), f1 = rnd(1, 3), b0 = rnd(1, 4), b1 = rnd(1, 4);
			int w0 = rnd(1, 4), w1 = rnd(1, 4), comm = rnd(0, 2), lim = rnd(1, 2);
			snprintf(json, sizeof json,
				 "{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":[%d,%d],\"B\":[%d,%d],"
				 "\"W\":[%d,%d]},\"comm\":%d,\"memory\":{\"F\":1,\"B\":-2,\"W\":1,"
				 "\"limit\":[%d,100]}}", f0, f1, b0, b1, w0, w1, comm, lim);
		}
		struct instance *in = parse_instance_ok(json);
		struct error err = {{0}};
		struct exact_options o = {.solver = "cbc", .formulation = "disjunctive",
					  .time_limit = 60, .threads = 1, .always_milp = true};
		struct exact_result r;
		if (exact_solve(in, &o, &r, &err))
			fail_msg("%s: %s", json, err.msg);
		assert_true(r.certified);
		for (int jk = 0; jk < 2; jk++) {
			struct bnb_options bo = {.incumbent = INT64_MAX, .memo = true, .jackson = jk};
			struct bnb_result br;
			assert_int_equal(bnb_solve(in, &bo, &br, &err), STATUS_OK);
			assert_true(br.proved);
			if (br.objective != r.objective)
				fail_msg("%s: search%s %lld, MILP %lld", json, jk ? " with Jackson" : "",
					 (long long)br.objective, (long long)r.objective);
			schedule_free(br.schedule);
		}
		exact_result_release(&r);
		instance_free(in);
	}
}

/* A chain of 3 devices, 12 micro-batches, F 1, B 2 (fused), comm 1, room
 * for 3 activations: sched/bound.c's closed forms stop at 58 (the memory
 * round trips of stage 0: F(0, j + 3) waits for B(0, j), a trip of
 * 3 x (1 + 2) + 4 x 1 = 13). The optimum is 60, proven here by the MILP
 * (CBC, time-indexed, forced: a method independent of the search) and by
 * the exact search. The window of devices 0 and 1, device 2 relaxed,
 * proves 60 alone: stage 1's backward of one micro-batch takes the slot
 * its forward of a later one needs, which no closed form sees; so does
 * the shaving bound. */
static void test_window_bound_by_hand(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\":3,\"microbatches\":12,\"cost\":{\"F\":1,\"B\":2},\"comm\":1,"
		"\"memory\":{\"F\":2,\"B\":-2,\"limit\":6}}");
	struct error err = {{0}};
	struct bounds cb;
	assert_int_equal(bound_compute(in, &cb, &err), STATUS_OK);
	assert_true(cb.best < 60);   /* 58 today: what matters is that it is below */
	int64_t got;
	bool proved;
	long nodes;
	assert_int_equal(relax_window(in, 0, 1, cb.best, INT64_MAX, 0, &got, &proved, &nodes, &err),
			 STATUS_OK);
	assert_true(proved);
	assert_int_equal(got, 60);
	/* the instance's own optimum: the MILP, and the search without relaxation */
	struct exact_options mo = {.solver = "cbc", .formulation = "time-indexed",
				   .time_limit = 60, .threads = 1, .always_milp = true};
	struct exact_result mr;
	assert_int_equal(exact_solve(in, &mo, &mr, &err), STATUS_OK);
	assert_true(mr.certified);
	assert_string_equal(mr.certified_by, "solver");
	assert_int_equal(mr.objective, 60);
	exact_result_release(&mr);
	struct bnb_options bo = {.incumbent = INT64_MAX, .memo = true};
	struct bnb_result br;
	assert_int_equal(bnb_solve(in, &bo, &br, &err), STATUS_OK);
	assert_true(br.proved);
	assert_int_equal(br.objective, 60);
	schedule_free(br.schedule);
	/* the shaving bound (shave.h) proves 60 too, from the closed forms'
	 * bound, and solve, which runs it before the windows, certifies 60 by
	 * it: the windows are not needed */
	struct shave_options so = {.lower_bound = cb.best, .upper_bound = INT64_MAX};
	struct shave_result sr;
	assert_int_equal(shave_bound(in, &so, &sr, &err), STATUS_OK);
	assert_int_equal(sr.bound, 60);
	assert_true(sr.finished);
	struct exact_options o = {.time_limit = 20, .threads = 1};
	struct exact_result r;
	assert_int_equal(exact_solve(in, &o, &r, &err), STATUS_OK);
	assert_true(r.certified);
	assert_int_equal(r.objective, 60);
	assert_string_equal(r.certified_by, "bound");
	assert_string_equal(r.lower_bound_by, "shaving");
	assert_int_equal(r.window_windows, 0);
	exact_result_release(&r);
	instance_free(in);
}

/*
 * exact_options.improve (the heuristic search `solve` hands in): called
 * once, after the local search, only beyond the exact search (more than
 * BNB_MAX_OPS ops) and with a time limit, with at most IMPROVE_SHARE
 * (0.6) of the limit, the best schedule so far and the bound; a valid
 * better schedule it returns is kept, an invalid one is dropped. The
 * third hook runs the K-periodic search (cyclic.h, another module) from
 * the start it is given, K = 2, and whatever it returns must be what the
 * solve reports and keeps.
 */
enum hook_mode { HOOK_NONE, HOOK_INVALID, HOOK_CYCLIC };
struct hook {
	enum hook_mode mode;
	int calls;
	double seconds;
	int64_t bound, start_objective, returned;
};

static enum status improve_hook(void *ctx, const struct instance *in, double seconds,
				int threads, const struct schedule *start, int64_t bound,
				struct schedule **out, struct error *err)
{
	struct hook *h = ctx;
	assert_int_equal(threads, 1);   /* the solve's */
	struct sim *sim = sim_new(in);
	struct sim_result sr;
	assert_int_equal(sim_run(sim, start, &sr, err), STATUS_OK);
	sim_free(sim);
	h->calls++;
	h->seconds = seconds;
	h->bound = bound;
	h->start_objective = sr.objective;
	*out = NULL;
	if (h->mode == HOOK_INVALID) {
		*out = schedule_new(in->devices);   /* no ops: invalid */
	} else if (h->mode == HOOK_CYCLIC) {
		struct cyclic_options co = {.K_max = 2, .time_limit = 600,
					    .max_evaluations = 200000, .seed = 1};
		struct cyclic_result cr;
		assert_int_equal(cyclic_search(in, start, &co, &cr, err), STATUS_OK);
		h->returned = cr.schedule ? cr.objective : 0;
		*out = cr.schedule;
		cr.schedule = NULL;
		cyclic_result_release(&cr);
	}
	return STATUS_OK;
}

static void solve_with_hook(const char *json, double limit, struct hook *h,
			    struct exact_result *r)
{
	struct instance *in = parse_instance_ok(json);
	struct exact_options o = {.solver = "cbc", .formulation = "auto", .time_limit = limit,
				  .threads = 1, .improve = improve_hook, .improve_ctx = h};
	struct error err;
	assert_int_equal(exact_solve(in, &o, r, &err), STATUS_OK);
	struct sim *sim = sim_new(in);
	struct sim_result sr;
	assert_int_equal(sim_run(sim, r->schedule, &sr, &err), STATUS_OK);
	assert_int_equal(sr.objective, r->objective);
	assert_true(r->bound <= r->objective);
	sim_free(sim);
	instance_free(in);
}

#define V4M32 "{\"name\":\"v4m32\",\"devices\":4,\"microbatches\":32,\"chunks\":2," \
	"\"placement\":\"v\",\"cost\":{\"F\":3,\"B\":4,\"W\":2},\"comm\":1," \
	"\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":8}}"

static void test_improve_hook(void **state)
{
	struct exact_result r;
	for (int mode = HOOK_NONE; mode <= HOOK_CYCLIC; mode++) {
		struct hook h = {.mode = mode};
		solve_with_hook(V4M32, 3, &h, &r);   /* 768 ops */
		assert_int_equal(h.calls, 1);
		assert_true(r.improve_ran);
		assert_true(h.seconds > 0 && h.seconds <= 0.6 * 3);
		assert_true(h.bound > 0 && h.bound <= r.bound);
		assert_int_equal(h.start_objective, r.improve_from);
		assert_true(r.objective <= r.improve_from);
		if (mode == HOOK_CYCLIC) {
			/* its start is past solve's own K-periodic step and
			 * local search, which may have left nothing to find */
			assert_int_equal(r.improve_objective, h.returned);
			if (h.returned)
				assert_true(r.objective <= h.returned);
		} else {
			assert_int_equal(r.improve_objective, 0);
		}
		exact_result_release(&r);
	}
	/* within the exact search (V p2 m8: 96 ops), or without a limit: never */
	struct hook h = {.mode = HOOK_CYCLIC};
	solve_with_hook("{\"name\":\"v2m8\",\"devices\":2,\"microbatches\":8,\"chunks\":2,"
			"\"placement\":\"v\",\"cost\":{\"F\":3,\"B\":4,\"W\":2},\"comm\":1,"
			"\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":6}}", 5, &h, &r);
	assert_int_equal(h.calls, 0);
	assert_false(r.improve_ran);
	exact_result_release(&r);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_brute_force),
		cmocka_unit_test(test_certified_by_bound),
		cmocka_unit_test(test_solver_crash_loses_one_pass),
		cmocka_unit_test(test_cross_check),
		cmocka_unit_test(test_span_exact_against_brute_force),
		cmocka_unit_test(test_search_and_milps_against_brute_force),
		cmocka_unit_test(test_window_bounds_against_brute_force),
		cmocka_unit_test(test_shave_against_brute_force),
		cmocka_unit_test(test_window_bound_by_hand),
		cmocka_unit_test(test_neighbourhoods_against_brute_force),
		cmocka_unit_test(test_search_positive_w_delta),
		cmocka_unit_test(test_target_passes_against_brute_force),
		cmocka_unit_test(test_target_model_infeasible_below_optimum),
		cmocka_unit_test(test_improve_hook),
	};
	return cmocka_run_group_tests_name("exact", tests, NULL, NULL);
}
