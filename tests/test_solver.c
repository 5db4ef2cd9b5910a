/*
 * Solver backends (solvers/): every backend in the registry gets the same
 * tiny MILPs and must reach the same, hand-computed answers; knapsacks are
 * also checked against dynamic programming or brute force. Limits, gaps,
 * starts, bad models, output streams, progress and concurrent solves are
 * checked the same way for every backend. The LP and MPS
 * writers (formulate/milp.c) are checked by solving their files with the
 * command-line programs glpsol and cbc.
 *
 * Set SOLVER_TIMES=1 to print the wall time of each test's solves.
 */
#include "test_helpers.h"
#include "crash_backends.h"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formulate/milp.h"
#include "solvers/backend.h"
#include "solvers/solver.h"

#define TOL 1e-6

/* ---- models ------------------------------------------------------------------ */

/* max sum v x  s.t.  sum w x <= cap, x binary; as min -sum v x. */
static struct milp *knapsack(int n, const double *v, const double *w, double cap)
{
	struct milp *m = milp_new();
	int col[64];
	for (int j = 0; j < n; j++)
		col[j] = milp_add_col(m, 0, 1, -v[j], true, "x%d", j);
	milp_add_row(m, n, col, w, -MILP_INF, cap, "cap");
	return m;
}

static const double KV[] = {10, 13, 7, 8}, KW[] = {4, 6, 3, 5};

/* Pairs within capacity 10: {0,1} weighs 10 and is worth 23, the best; no
 * triple fits (the lightest, {0,2,3}, weighs 12). */
static struct milp *model_knapsack(void)
{
	return knapsack(4, KV, KW, 10);
}

/* Costs [[4,1,3],[2,0,5],[3,2,2]]: of the six permutations (0,1,2)=6,
 * (0,2,1)=11, (1,0,2)=5, (1,2,0)=9, (2,0,1)=7, (2,1,0)=6 the best is 5:
 * x01, x10, x22. Equality rows. */
static struct milp *model_assignment(void)
{
	static const double cost[3][3] = {{4, 1, 3}, {2, 0, 5}, {3, 2, 2}};
	static const double one[3] = {1, 1, 1};
	struct milp *m = milp_new();
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			milp_add_col(m, 0, 1, cost[i][k], true, "x%d%d", i, k);
	for (int i = 0; i < 3; i++) {
		int row[3] = {3 * i, 3 * i + 1, 3 * i + 2}, col[3] = {i, 3 + i, 6 + i};
		milp_add_row(m, 3, row, one, 1, 1, "worker%d", i);
		milp_add_row(m, 3, col, one, 1, 1, "job%d", i);
	}
	return m;
}

/* max x + y  s.t.  2x + 2y <= 3: the LP reaches 1.5, integers only 1. */
static struct milp *gap_model(bool integer)
{
	struct milp *m = milp_new();
	int col[2] = {milp_add_col(m, 0, MILP_INF, -1, integer, "x"),
		      milp_add_col(m, 0, MILP_INF, -1, integer, "y")};
	milp_add_row(m, 2, col, (double[]){2, 2}, -MILP_INF, 3, "half");
	return m;
}
static struct milp *model_integral_gap(void) { return gap_model(true); }
static struct milp *model_integral_gap_lp(void) { return gap_model(false); }

/* x + y >= 3 with x, y in [0, 1]: already the LP is infeasible. */
static struct milp *infeasible_model(bool integer)
{
	struct milp *m = milp_new();
	int col[2] = {milp_add_col(m, 0, 1, 1, integer, "x"),
		      milp_add_col(m, 0, 1, 1, integer, "y")};
	milp_add_row(m, 2, col, (double[]){1, 1}, 3, MILP_INF, "three");
	return m;
}
static struct milp *model_infeasible_lp(void) { return infeasible_model(false); }
static struct milp *model_infeasible_mip(void) { return infeasible_model(true); }

/* 2x - 2y = 1 with x, y integer in [0, 5]: x = y + 1/2, so the LP is
 * feasible and no integer point is. */
static struct milp *model_infeasible_integer(void)
{
	struct milp *m = milp_new();
	int col[2] = {milp_add_col(m, 0, 5, 1, true, "x"),
		      milp_add_col(m, 0, 5, 0, true, "y")};
	milp_add_row(m, 2, col, (double[]){2, -2}, 1, 1, "odd");
	return m;
}

/* min -x - y  s.t.  x - y >= 0, x >= 0 continuous: x grows without end.
 * With y integer in [0, 3] the MILP is unbounded too. */
static struct milp *unbounded_model(bool integer)
{
	struct milp *m = milp_new();
	int col[2] = {milp_add_col(m, 0, MILP_INF, -1, false, "x"),
		      milp_add_col(m, 0, integer ? 3 : MILP_INF, -1, integer, "y")};
	milp_add_row(m, 2, col, (double[]){1, -1}, 0, MILP_INF, "r");
	return m;
}
static struct milp *model_unbounded_lp(void) { return unbounded_model(false); }
static struct milp *model_unbounded_mip(void) { return unbounded_model(true); }

/*
 * Equality and ranged rows, plus a free row and an empty one:
 *     min x + 2y + 3z,  x + y + z = 4,  1 <= x - y <= 2,  2 <= y + z <= 3,
 *     x, y, z integer in [0, 10].
 * y + z >= 2 gives x <= 2 and x - y >= 1 gives x >= 1. x = 1 forces y = 0,
 * z = 3 (cost 10); x = 2 leaves y + z = 2 with y in {0, 1}: (2,0,2) costs 8,
 * (2,1,1) costs 7, the optimum.
 */
static void add_eq_ranged(struct milp *m)
{
	int x = milp_add_col(m, 0, 10, 1, true, "x");
	int y = milp_add_col(m, 0, 10, 2, true, "y");
	int z = milp_add_col(m, 0, 10, 3, true, "z");
	milp_add_row(m, 3, (int[]){x, y, z}, (double[]){1, 1, 1}, 4, 4, "eq");
	milp_add_row(m, 2, (int[]){x, y}, (double[]){1, -1}, 1, 2, "rng1");
	milp_add_row(m, 2, (int[]){y, z}, (double[]){1, 1}, 2, 3, "rng2");
	milp_add_row(m, 2, (int[]){x, z}, (double[]){1, 1}, -MILP_INF, MILP_INF, "free");
	milp_add_row(m, 0, NULL, NULL, -1, 1, "empty");
}

/*
 * Negative lower bounds and free columns:
 *     min a + b + c - w,  b - a >= -2.5,  c >= -3.7,
 *     a integer in [-5, 5], b free, c free integer, w <= 2 (no lower bound).
 * b >= a - 2.5 makes a + b >= 2a - 2.5 >= -12.5 at a = -5, b = -7.5; c = -3;
 * w = 2. Optimum -12.5 - 3 - 2 = -17.5.
 */
static void add_negative_free(struct milp *m)
{
	int a = milp_add_col(m, -5, 5, 1, true, "a");
	int b = milp_add_col(m, -MILP_INF, MILP_INF, 1, false, "b");
	int c = milp_add_col(m, -MILP_INF, MILP_INF, 1, true, "c");
	milp_add_col(m, -MILP_INF, 2, -1, false, "w");   /* in no row */
	milp_add_row(m, 2, (int[]){b, a}, (double[]){1, -1}, -2.5, MILP_INF, "lnk1");
	milp_add_row(m, 1, (int[]){c}, (double[]){1}, -3.7, MILP_INF, "lnk2");
}

static struct milp *model_eq_ranged(void)
{
	struct milp *m = milp_new();
	add_eq_ranged(m);
	return m;
}

static struct milp *model_negative_free(void)
{
	struct milp *m = milp_new();
	add_negative_free(m);
	return m;
}

/* Both blocks and an offset: 7 - 17.5 + 100 = 89.5. */
static struct milp *model_mixed(void)
{
	struct milp *m = milp_new();
	add_eq_ranged(m);
	add_negative_free(m);
	m->obj_offset = 100;
	return m;
}

/* No rows; bounds that are not integers on an integer column (x <= 3.5
 * means x <= 3) and a fixed column: min -x - y + 2z, y <= 2.5, z = 1.5:
 * -3 - 2.5 + 3 = -2.5. */
static struct milp *model_no_rows(void)
{
	struct milp *m = milp_new();
	milp_add_col(m, 0, 3.5, -1, true, "x");
	milp_add_col(m, 0, 2.5, -1, false, "y");
	milp_add_col(m, 1.5, 1.5, 2, false, "z");
	return m;
}

/* An integer column with no integer between its bounds. */
static struct milp *model_empty_domain(void)
{
	struct milp *m = milp_new();
	int col[2] = {milp_add_col(m, 0.2, 0.8, 1, true, "x"),
		      milp_add_col(m, 0, 1, 1, false, "y")};
	milp_add_row(m, 2, col, (double[]){1, 1}, -MILP_INF, 5, "r");
	return m;
}

/* The knapsack with a constant: -23 + 100. */
static struct milp *model_offset(void)
{
	struct milp *m = model_knapsack();
	m->obj_offset = 100;
	return m;
}

/* ---- running every backend ----------------------------------------------------- */

static const char *current_test = "";
static double solve_seconds[8], solve_max[8];
static int solve_count[8];

static void times_begin(const char *name)
{
	current_test = name;
	memset(solve_seconds, 0, sizeof solve_seconds);
	memset(solve_max, 0, sizeof solve_max);
	memset(solve_count, 0, sizeof solve_count);
}

static void times_end(void)
{
	if (!getenv("SOLVER_TIMES"))
		return;
	for (int i = 0; i < solver_count(); i++)
		if (solve_count[i])
			print_message("time %-24s %-5s %3d solves, %8.4f s total, %8.4f s max\n",
				      current_test, solver_at(i)->name, solve_count[i],
				      solve_seconds[i], solve_max[i]);
}

static int backend_index(const struct solver_backend *b)
{
	for (int i = 0; i < solver_count(); i++)
		if (solver_at(i) == b)
			return i;
	return 0;
}

/* What every result must satisfy, whatever the outcome. */
static void check_result(const struct solver_backend *b, const struct milp *m,
			 const struct solver_result *r)
{
	if (r->has_solution) {
		int row;
		if (!r->x)
			fail_msg("%s: has_solution without x", b->name);
		if (!milp_feasible(m, r->x, TOL, &row))
			fail_msg("%s: solution violates %s", b->name,
				 row >= 0 ? m->rows[row].name : "a column bound");
		assert_double_near(r->objective, milp_objective(m, r->x),
				   TOL * (1 + fabs(r->objective)));
		if (!(r->bound <= r->objective + TOL * (1 + fabs(r->objective))))
			fail_msg("%s: bound %.17g above objective %.17g", b->name,
				 r->bound, r->objective);
	} else if (r->x) {
		fail_msg("%s: x without has_solution", b->name);
	}
	assert_true(r->seconds >= 0);
	assert_true(r->nodes >= 0);
	assert_false(isnan(r->bound));
}

static void solve_ok(const struct solver_backend *b, const struct milp *m,
		     const struct solver_options *o, struct solver_result *r)
{
	struct error err = {{0}};
	if (b->solve(m, o, r, &err))
		fail_msg("%s: solve failed: %s", b->name, err.msg);
	int i = backend_index(b);
	solve_seconds[i] += r->seconds;
	solve_count[i]++;
	if (r->seconds > solve_max[i])
		solve_max[i] = r->seconds;
	check_result(b, m, r);
}

static void expect_optimal(const struct solver_backend *b, const struct solver_result *r,
			   double obj)
{
	if (r->outcome != OUTCOME_OPTIMAL)
		fail_msg("%s: outcome %s, expected optimal", b->name, outcome_name(r->outcome));
	assert_true(r->has_solution);
	assert_double_near(r->objective, obj, TOL);
	assert_double_near(r->bound, obj, TOL);
}

/* ---- the table of tiny models -------------------------------------------------- */

struct model_case {
	const char *name;
	struct milp *(*build)(void);
	enum outcome want;
	double objective;         /* when optimal */
	int nx;                   /* how many of x are known (0: not unique) */
	double x[9];
};

static const struct model_case model_cases[] = {
	{"knapsack", model_knapsack, OUTCOME_OPTIMAL, -23, 4, {1, 1, 0, 0}},
	{"assignment", model_assignment, OUTCOME_OPTIMAL, 5, 9, {0, 1, 0, 1, 0, 0, 0, 0, 1}},
	{"integral_gap", model_integral_gap, OUTCOME_OPTIMAL, -1, 0, {0}},
	{"integral_gap_lp", model_integral_gap_lp, OUTCOME_OPTIMAL, -1.5, 0, {0}},
	{"infeasible_lp", model_infeasible_lp, OUTCOME_INFEASIBLE, 0, 0, {0}},
	{"infeasible_mip", model_infeasible_mip, OUTCOME_INFEASIBLE, 0, 0, {0}},
	{"infeasible_integer", model_infeasible_integer, OUTCOME_INFEASIBLE, 0, 0, {0}},
	{"empty_int_domain", model_empty_domain, OUTCOME_INFEASIBLE, 0, 0, {0}},
	{"unbounded_lp", model_unbounded_lp, OUTCOME_UNBOUNDED, 0, 0, {0}},
	{"unbounded_mip", model_unbounded_mip, OUTCOME_UNBOUNDED, 0, 0, {0}},
	{"eq_ranged_free_empty_rows", model_eq_ranged, OUTCOME_OPTIMAL, 7, 3, {2, 1, 1}},
	{"negative_and_free_columns", model_negative_free, OUTCOME_OPTIMAL, -17.5, 4,
	 {-5, -7.5, -3, 2}},
	{"no_rows_fractional_bounds", model_no_rows, OUTCOME_OPTIMAL, -2.5, 3, {3, 2.5, 1.5}},
	{"obj_offset", model_offset, OUTCOME_OPTIMAL, 77, 4, {1, 1, 0, 0}},
	{"mixed_with_offset", model_mixed, OUTCOME_OPTIMAL, 89.5, 7,
	 {2, 1, 1, -5, -7.5, -3, 2}},
};

static void test_model_case(void **state)
{
	const struct model_case *c = *state;
	times_begin(c->name);
	struct milp *m = c->build();
	struct solver_options o = {.threads = 1};
	for (int i = 0; i < solver_count(); i++) {
		const struct solver_backend *b = solver_at(i);
		struct solver_result r;
		solve_ok(b, m, &o, &r);
		if (r.outcome != c->want)
			fail_msg("%s: outcome %s, expected %s", b->name,
				 outcome_name(r.outcome), outcome_name(c->want));
		if (c->want == OUTCOME_OPTIMAL)
			expect_optimal(b, &r, c->objective);
		else
			assert_false(r.has_solution);
		if (c->want == OUTCOME_INFEASIBLE)
			assert_true(r.bound == INFINITY);
		for (int j = 0; j < c->nx; j++)
			if (fabs(r.x[j] - c->x[j]) > TOL)
				fail_msg("%s: x[%d] = %.17g, expected %g", b->name, j,
					 r.x[j], c->x[j]);
		solver_result_release(&r);
	}
	milp_free(m);
	times_end();
}

/* ---- knapsacks with an independent answer ---------------------------------------- */

static unsigned long lcg_next(unsigned long *s)
{
	*s = *s * 6364136223846793005UL + 1442695040888963407UL;
	return *s >> 33;
}

/* Strongly correlated: value = weight + 100, weights 1..1000, capacity
 * half the total weight. */
static void random_knapsack(int n, unsigned long seed, double *v, double *w, double *cap)
{
	double sum = 0;
	for (int j = 0; j < n; j++) {
		w[j] = 1 + lcg_next(&seed) % 1000;
		v[j] = w[j] + 100;
		sum += w[j];
	}
	*cap = floor(sum / 2);
}

/* The optimum by dynamic programming over capacities (integer weights). */
static double knapsack_dp(int n, const double *v, const double *w, double cap)
{
	int C = (int)cap;
	double *best = calloc(C + 1, sizeof *best);
	for (int j = 0; j < n; j++)
		for (int c = C; c >= (int)w[j]; c--)
			if (best[c - (int)w[j]] + v[j] > best[c])
				best[c] = best[c - (int)w[j]] + v[j];
	double b = best[C];
	free(best);
	return b;
}

/* The optimum by trying all subsets (n <= 20). */
static double knapsack_brute(int n, const double *v, const double *w, double cap)
{
	double best = 0;
	for (unsigned long s = 0; s < (1UL << n); s++) {
		double vs = 0, ws = 0;
		for (int j = 0; j < n; j++)
			if (s >> j & 1) {
				vs += v[j];
				ws += w[j];
			}
		if (ws <= cap && vs > best)
			best = vs;
	}
	return best;
}

static void test_knapsack_against_dp(void **state)
{
	times_begin("knapsack_against_dp");
	for (unsigned long seed = 1; seed <= 3; seed++) {
		double v[12], w[12], cap;
		random_knapsack(12, seed, v, w, &cap);
		double opt = knapsack_dp(12, v, w, cap);
		assert_double_near(opt, knapsack_brute(12, v, w, cap), 0);
		struct milp *m = knapsack(12, v, w, cap);
		for (int i = 0; i < solver_count(); i++) {
			struct solver_result r;
			solve_ok(solver_at(i), m, &(struct solver_options){.threads = 1}, &r);
			expect_optimal(solver_at(i), &r, -opt);
			solver_result_release(&r);
		}
		milp_free(m);
	}
	times_end();
}

/* ---- MIP starts ---------------------------------------------------------------------- */

/* An optimal, a feasible and an infeasible start: the result is the
 * optimum every time (an infeasible start is ignored). */
static void test_mip_start(void **state)
{
	static const double starts[][4] = {{1, 1, 0, 0}, {0, 0, 1, 1}, {1, 1, 1, 1}};
	times_begin("mip_start");
	struct milp *m = model_knapsack();
	for (int i = 0; i < solver_count(); i++)
		for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++) {
			struct solver_options o = {.threads = 1, .start = starts[s]};
			struct solver_result r;
			solve_ok(solver_at(i), m, &o, &r);
			expect_optimal(solver_at(i), &r, -23);
			solver_result_release(&r);
		}
	milp_free(m);
	times_end();
}

/* A start with continuous, free and negative columns. */
static void test_mip_start_mixed(void **state)
{
	static const double opt[] = {2, 1, 1, -5, -7.5, -3, 2};
	times_begin("mip_start_mixed");
	struct milp *m = model_mixed();
	assert_true(milp_feasible(m, opt, TOL, NULL));
	assert_double_near(milp_objective(m, opt), 89.5, TOL);
	for (int i = 0; i < solver_count(); i++) {
		struct solver_result r;
		solve_ok(solver_at(i), m, &(struct solver_options){.threads = 1, .start = opt}, &r);
		expect_optimal(solver_at(i), &r, 89.5);
		solver_result_release(&r);
	}
	milp_free(m);
	times_end();
}

/*
 * A multi-dimensional knapsack: 40 binaries, 5 random weight rows at half
 * capacity, values near the mean weight. GLPK needs over 20 s for it and CBC
 * over 1 s (one thread), so a 0.05 s limit stops both. Integer data.
 */
static struct milp *hard_model(double *greedy_x)
{
	enum { N = 40, K = 5 };
	unsigned long seed = 1;
	double w[K][N], value[N];
	int col[N];
	for (int i = 0; i < K; i++)
		for (int j = 0; j < N; j++)
			w[i][j] = 1 + lcg_next(&seed) % 1000;
	struct milp *m = milp_new();
	for (int j = 0; j < N; j++) {
		double s = 0;
		for (int i = 0; i < K; i++)
			s += w[i][j];
		value[j] = floor(s / K) + lcg_next(&seed) % 100;
		col[j] = milp_add_col(m, 0, 1, -value[j], true, "x%d", j);
	}
	double cap[K];
	for (int i = 0; i < K; i++) {
		double s = 0;
		for (int j = 0; j < N; j++)
			s += w[i][j];
		cap[i] = floor(s / 2);
		milp_add_row(m, N, col, w[i], -MILP_INF, cap[i], "cap%d", i);
	}
	/* greedy: items in index order while every row has room */
	for (int j = 0; j < N && greedy_x; j++) {
		bool fits = true;
		for (int i = 0; i < K; i++)
			fits &= w[i][j] <= cap[i];
		greedy_x[j] = fits;
		for (int i = 0; i < K && fits; i++)
			cap[i] -= w[i][j];
	}
	return m;
}

/* Under a 0.05 s limit on the hard model the result is at least as good as
 * the start. */
static void test_mip_start_under_time_limit(void **state)
{
	double x[40];
	times_begin("mip_start_time_limit");
	struct milp *m = hard_model(x);
	assert_true(milp_feasible(m, x, TOL, NULL));
	double start_obj = milp_objective(m, x);
	for (int i = 0; i < solver_count(); i++) {
		struct solver_options o = {.threads = 1, .start = x, .time_limit = 0.05};
		struct solver_result r;
		solve_ok(solver_at(i), m, &o, &r);
		if (!r.has_solution)
			fail_msg("%s: no solution (%s) despite the start", solver_at(i)->name,
				 outcome_name(r.outcome));
		assert_true(r.objective <= start_obj + TOL);
		assert_true(r.outcome == OUTCOME_OPTIMAL || r.outcome == OUTCOME_TIME_LIMIT);
		solver_result_release(&r);
	}
	milp_free(m);
	times_end();
}

/* A 30x30 assignment whose unique optimum, 0, is the diagonal (every other
 * cost is 1 to 10); x [900] gets the diagonal. */
enum { ASSIGN_N = 30 };
static struct milp *assignment30(double *x)
{
	enum { N = ASSIGN_N };
	double one[N];
	struct milp *m = milp_new();
	for (int i = 0; i < N; i++)
		for (int k = 0; k < N; k++)
			milp_add_col(m, 0, 1, i == k ? 0 : 1 + (7 * i + 13 * k) % 10, true,
				     "x%d_%d", i, k);
	for (int i = 0; i < N * N; i++)
		x[i] = i / N == i % N;
	for (int i = 0; i < N; i++)
		one[i] = 1;
	for (int i = 0; i < N; i++) {
		int row[N], col[N];
		for (int k = 0; k < N; k++) {
			row[k] = i * N + k;
			col[k] = k * N + i;
		}
		milp_add_row(m, N, row, one, 1, 1, "worker%d", i);
		milp_add_row(m, N, col, one, 1, 1, "job%d", i);
	}
	return m;
}

/*
 * The assignment with its optimum as the start, under time limits from
 * 1 ms to 0.2 s: never infeasible, and optimal means 0. CBC 2.10.8 with
 * its preprocessor on called it infeasible at some limits (see cbc.c).
 */
static void test_optimal_start_under_time_limits(void **state)
{
	static double x[ASSIGN_N * ASSIGN_N];
	times_begin("optimal_start_limits");
	struct milp *m = assignment30(x);
	for (int i = 0; i < solver_count(); i++)
		for (double t = 0.001; t < 0.2; t *= 1.3) {
			const struct solver_backend *b = solver_at(i);
			struct solver_options o = {.threads = 1, .start = x, .time_limit = t,
						   .abs_gap = 0.999};
			struct solver_result r;
			solve_ok(b, m, &o, &r);
			if (r.outcome != OUTCOME_OPTIMAL && r.outcome != OUTCOME_TIME_LIMIT &&
			    r.outcome != OUTCOME_FEASIBLE)
				fail_msg("%s: limit %.4f s: outcome %s", b->name, t,
					 outcome_name(r.outcome));
			if (r.outcome == OUTCOME_OPTIMAL)
				assert_double_near(r.objective, 0, TOL);
			solver_result_release(&r);
		}
	milp_free(m);
	times_end();
}

/*
 * A market split problem (Cornuejols and Dawande) with a planted solution:
 *     sum_j a[i][j] x[j] = b[i]  for 6 rows,  x binary in 50 columns,
 * a[i][j] in [0, 99] from the LCG and b = A x* for a planted x* (every
 * third column). Feasible by construction, so "infeasible" is always
 * false; and its LP relaxation is near every b, so branch and bound finds
 * an integer point only after a long search: under a limit of a few
 * milliseconds no backend has a solution.
 */
static struct milp *market_split(double *planted)
{
	enum { K = 6, N = 50 };
	unsigned long seed = 7;
	double a[N];
	int col[N];
	struct milp *m = milp_new();
	for (int j = 0; j < N; j++)
		col[j] = milp_add_col(m, 0, 1, (double)(lcg_next(&seed) % 10), true, "x%d", j);
	for (int i = 0; i < K; i++) {
		double b = 0;
		for (int j = 0; j < N; j++) {
			a[j] = (double)(lcg_next(&seed) % 100);
			b += j % 3 == 0 ? a[j] : 0;
		}
		milp_add_row(m, N, col, a, b, b, "split%d", i);
	}
	for (int j = 0; planted && j < N; j++)
		planted[j] = j % 3 == 0;
	return m;
}

/*
 * No false verdicts: a limit that strikes before any solution is
 * time_limit without a solution, never infeasible, on every backend. CBC
 * 2.10.8 stopped by its time limit in preprocessing says status 0,
 * secondary status 1, "proven infeasible", no limit flag: without a start,
 * the assignment at limits of 1.4 to 3.1 ms on the 2-core development
 * machine (and any model under valgrind). A truly infeasible model under a
 * limit is still proven infeasible.
 */
static void test_no_false_verdict_under_limits(void **state)
{
	double x[50];
	static double diagonal[ASSIGN_N * ASSIGN_N];
	times_begin("no_false_verdict");
	struct milp *m = assignment30(diagonal);
	for (int i = 0; i < solver_count(); i++)
		for (double t = 0.0005; t < 0.05; t *= 1.3) {
			const struct solver_backend *b = solver_at(i);
			struct solver_result r;
			solve_ok(b, m, &(struct solver_options){.threads = 1, .time_limit = t}, &r);
			if (r.outcome == OUTCOME_OPTIMAL)
				assert_double_near(r.objective, 0, TOL);
			else if (r.outcome != OUTCOME_TIME_LIMIT && r.outcome != OUTCOME_FEASIBLE)
				fail_msg("%s: assignment, limit %.4f s: outcome %s", b->name, t,
					 outcome_name(r.outcome));
			if (!r.has_solution && r.outcome != OUTCOME_TIME_LIMIT)
				fail_msg("%s: assignment, limit %.4f s: %s without a solution",
					 b->name, t, outcome_name(r.outcome));
			solver_result_release(&r);
		}
	milp_free(m);

	m = market_split(x);
	assert_true(milp_feasible(m, x, TOL, NULL));
	for (int i = 0; i < solver_count(); i++)
		for (double t = 0.001; t < 0.02; t *= 2) {
			const struct solver_backend *b = solver_at(i);
			struct solver_result r;
			solve_ok(b, m, &(struct solver_options){.threads = 1, .time_limit = t}, &r);
			if (r.outcome != OUTCOME_TIME_LIMIT || r.has_solution)
				fail_msg("%s: limit %.3f s: outcome %s%s, expected time_limit without a solution",
					 b->name, t, outcome_name(r.outcome),
					 r.has_solution ? " with a solution" : "");
			if (!(r.bound < INFINITY))
				fail_msg("%s: limit %.3f s: bound %g on a feasible model", b->name, t,
					 r.bound);
			solver_result_release(&r);
		}
	/* the same through the isolated solve, as the partition MILP runs it */
	for (int i = 0; i < solver_count(); i++) {
		const struct solver_backend *b = solver_at(i);
		struct solver_result r;
		struct error err = {{0}};
		if (solver_solve_isolated(b, m, &(struct solver_options){.threads = 1,
			.time_limit = 0.001}, &r, &err))
			fail_msg("%s: isolated solve failed: %s", b->name, err.msg);
		if (r.outcome != OUTCOME_TIME_LIMIT || r.has_solution)
			fail_msg("%s: isolated, limit 0.001 s: outcome %s", b->name,
				 outcome_name(r.outcome));
		solver_result_release(&r);
	}
	milp_free(m);
	/* LP-infeasible, and LP-feasible but integer-infeasible, under a limit */
	struct milp *(*const infeasible[])(void) = {model_infeasible_mip,
						      model_infeasible_integer};
	for (int i = 0; i < solver_count(); i++)
		for (size_t k = 0; k < sizeof infeasible / sizeof *infeasible; k++) {
			const struct solver_backend *b = solver_at(i);
			struct solver_result r;
			m = infeasible[k]();
			solve_ok(b, m, &(struct solver_options){.threads = 1, .time_limit = 10}, &r);
			if (r.outcome != OUTCOME_INFEASIBLE)
				fail_msg("%s: infeasible model %zu: outcome %s", b->name, k,
					 outcome_name(r.outcome));
			assert_false(r.has_solution);
			assert_true(r.bound == INFINITY);
			solver_result_release(&r);
			milp_free(m);
		}
	times_end();
}

/* ---- limits and tolerances -------------------------------------------------------------- */

/* The LP relaxation's optimum, by the first backend. */
static double lp_relaxation(const struct milp *mip)
{
	struct milp *m = hard_model(NULL);
	m->obj_offset = mip->obj_offset;
	for (int j = 0; j < m->ncols; j++)
		m->cols[j].integer = false;
	struct solver_result r;
	solve_ok(solver_at(0), m, &(struct solver_options){.threads = 1}, &r);
	assert_int_equal(r.outcome, OUTCOME_OPTIMAL);
	double v = r.objective;
	solver_result_release(&r);
	milp_free(m);
	return v;
}

/*
 * A 0.05 s limit on the hard model: optimal or time_limit, well within the
 * limit; every backend's bound is below every backend's solution and, when
 * known, above the LP relaxation (branching only raises it), which also
 * shows that the offset is in the bound.
 */
static void test_time_limit(void **state)
{
	enum { MAXB = 8 };
	struct solver_result r[MAXB];
	times_begin("time_limit");
	struct milp *m = hard_model(NULL);
	m->obj_offset = 1000;
	double lp = lp_relaxation(m);
	int n = solver_count() < MAXB ? solver_count() : MAXB;
	for (int i = 0; i < n; i++) {
		const struct solver_backend *b = solver_at(i);
		solve_ok(b, m, &(struct solver_options){.threads = 1, .time_limit = 0.05}, &r[i]);
		if (r[i].outcome != OUTCOME_OPTIMAL && r[i].outcome != OUTCOME_TIME_LIMIT)
			fail_msg("%s: outcome %s", b->name, outcome_name(r[i].outcome));
		if (r[i].seconds > 2.0)
			fail_msg("%s: %.3f s for a 0.05 s limit", b->name, r[i].seconds);
		if (isfinite(r[i].bound) && r[i].bound < lp - TOL * (1 + fabs(lp)))
			fail_msg("%s: bound %.17g below the LP relaxation %.17g", b->name,
				 r[i].bound, lp);
		if (getenv("SOLVER_TIMES"))
			print_message("%s: %s, objective %.1f, bound %.1f (LP %.1f), %ld nodes, %.3f s\n",
				      b->name, outcome_name(r[i].outcome), r[i].objective,
				      r[i].bound, lp, r[i].nodes, r[i].seconds);
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++)
			if (r[k].has_solution && r[i].bound > r[k].objective + TOL)
				fail_msg("%s's bound %.17g is above %s's solution %.17g",
					 solver_at(i)->name, r[i].bound, solver_at(k)->name,
					 r[k].objective);
	for (int i = 0; i < n; i++)
		solver_result_release(&r[i]);
	milp_free(m);
	times_end();
}

/* A relative gap of 20% and an absolute gap: the answer is within the
 * tolerance of the DP optimum, and the bound is below it. */
static void test_gap_tolerances(void **state)
{
	double v[40], w[40], cap;
	times_begin("gap_tolerances");
	random_knapsack(40, 99, v, w, &cap);
	double opt = -knapsack_dp(40, v, w, cap);
	struct milp *m = knapsack(40, v, w, cap);
	struct solver_options opts[] = {{.threads = 1, .rel_gap = 0.2},
					{.threads = 1, .abs_gap = 2000}};
	for (int i = 0; i < solver_count(); i++)
		for (int k = 0; k < 2; k++) {
			const struct solver_backend *b = solver_at(i);
			struct solver_result r;
			solve_ok(b, m, &opts[k], &r);
			if (r.outcome != OUTCOME_OPTIMAL)
				fail_msg("%s: outcome %s", b->name, outcome_name(r.outcome));
			double gap = r.objective - r.bound;
			assert_true(r.objective >= opt - TOL && r.bound <= opt + TOL);
			assert_true(gap <= opts[k].rel_gap * fabs(r.objective) + opts[k].abs_gap + TOL);
			solver_result_release(&r);
		}
	milp_free(m);
	times_end();
}

/* abs_gap 0.999 on an integer objective still proves the optimum. */
static void test_abs_gap_integer_objective(void **state)
{
	double v[14], w[14], cap;
	times_begin("abs_gap_integer");
	random_knapsack(14, 5, v, w, &cap);
	double opt = -knapsack_dp(14, v, w, cap);
	struct milp *m = knapsack(14, v, w, cap);
	for (int i = 0; i < solver_count(); i++) {
		struct solver_result r;
		solve_ok(solver_at(i), m, &(struct solver_options){.threads = 1, .abs_gap = 0.999}, &r);
		assert_int_equal(r.outcome, OUTCOME_OPTIMAL);
		assert_double_near(r.objective, opt, TOL);
		solver_result_release(&r);
	}
	milp_free(m);
	times_end();
}

/* ---- bad models --------------------------------------------------------------------------- */

struct bad_case {
	const char *name;
	void (*spoil)(struct milp *m);
	const char *what;         /* in the message, besides the backend's name */
};

static void spoil_nan_coef(struct milp *m) { m->nz_val[1] = NAN; }
static void spoil_inf_coef(struct milp *m) { m->nz_val[0] = INFINITY; }
static void spoil_col_bounds(struct milp *m) { m->cols[2].lb = 2; m->cols[2].ub = 1; }
static void spoil_row_bounds(struct milp *m) { m->rows[0].lb = 11; m->rows[0].ub = 10; }
static void spoil_nan_obj(struct milp *m) { m->cols[0].obj = NAN; }
static void spoil_inf_obj(struct milp *m) { m->cols[0].obj = -INFINITY; }
static void spoil_nan_bound(struct milp *m) { m->cols[3].ub = NAN; }
static void spoil_inf_lb(struct milp *m) { m->cols[1].lb = MILP_INF; }
static void spoil_col_index(struct milp *m) { m->nz_col[2] = 99; }
static void spoil_row_nan(struct milp *m) { m->rows[0].ub = NAN; }
/* milp_add_row merges repeats, so only a hand-built model has one; it
 * passes milp_check and reaches the library (GLPK's error hook). */
static void spoil_duplicate(struct milp *m) { m->nz_col[1] = m->nz_col[0]; }

static const struct bad_case bad_cases[] = {
	{"nan coefficient", spoil_nan_coef, "'cap'"},
	{"infinite coefficient", spoil_inf_coef, "'cap'"},
	{"column lb > ub", spoil_col_bounds, "'x2'"},
	{"row lb > ub", spoil_row_bounds, "'cap'"},
	{"nan objective", spoil_nan_obj, "'x0'"},
	{"infinite objective", spoil_inf_obj, "'x0'"},
	{"nan bound", spoil_nan_bound, "'x3'"},
	{"infinite lower bound", spoil_inf_lb, "'x1'"},
	{"column index", spoil_col_index, "'cap'"},
	{"nan row bound", spoil_row_nan, "'cap'"},
	{"duplicate entry", spoil_duplicate, ""},
};

static void expect_error(const struct solver_backend *b, const struct milp *m,
			 const char *name, const char *what)
{
	struct error err = {{0}};
	struct solver_result r;
	if (!b->solve(m, &(struct solver_options){.threads = 1}, &r, &err))
		fail_msg("%s: case '%s' solved (%s)", b->name, name, outcome_name(r.outcome));
	if (strncmp(err.msg, b->name, strlen(b->name)) != 0 || !strstr(err.msg, what) ||
	    strchr(err.msg, '\n'))
		fail_msg("%s: case '%s': message '%s'", b->name, name, err.msg);
	assert_null(r.x);
	assert_false(r.has_solution);
	solver_result_release(&r);
}

static void test_bad_models_rejected(void **state)
{
	for (int i = 0; i < solver_count(); i++) {
		for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; k++) {
			struct milp *m = model_knapsack();
			bad_cases[k].spoil(m);
			expect_error(solver_at(i), m, bad_cases[k].name, bad_cases[k].what);
			milp_free(m);
		}
		struct milp *empty = milp_new();
		expect_error(solver_at(i), empty, "no columns", "no columns");
		milp_free(empty);
		/* the backend still works after a rejected model */
		struct milp *m = model_knapsack();
		struct solver_result r;
		solve_ok(solver_at(i), m, &(struct solver_options){.threads = 1}, &r);
		expect_optimal(solver_at(i), &r, -23);
		solver_result_release(&r);
		milp_free(m);
	}
}

/* ---- registry, output, progress ---------------------------------------------------------- */

static void test_registry(void **state)
{
	assert_true(solver_count() >= 2);
	assert_ptr_equal(solver_find("glpk"), &solver_glpk);
	assert_ptr_equal(solver_find("cbc"), &solver_cbc);
	assert_null(solver_find("gurobi"));
	assert_null(solver_find(""));
	assert_null(solver_find("GLPK"));
	for (int i = 0; i < solver_count(); i++) {
		const struct solver_backend *b = solver_at(i);
		assert_ptr_equal(solver_find(b->name), b);
		const char *v = b->version();
		if (!v || !(v[0] >= '0' && v[0] <= '9') || !strchr(v, '.'))
			fail_msg("%s: version '%s'", b->name, v ? v : "(null)");
		assert_string_equal(v, b->version());
	}
}

/* The name list of help texts and errors: every registered name, in
 * registry order, truncated to the buffer. */
static void test_solver_names(void **state)
{
	char buf[64], want[64] = "";
	for (int i = 0; i < solver_count(); i++)
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i ? "|" : "",
			 solver_at(i)->name);
	assert_string_equal(solver_names(buf, sizeof buf, "|"), want);
	assert_string_equal(want, "cbc|glpk");
	assert_string_equal(solver_names(buf, sizeof buf, " or "), "cbc or glpk");
	assert_string_equal(solver_names(buf, 3, ", "), "cb");
}

/* Run solve with stdout and stderr captured; returns the bytes written
 * to each. */
static void solve_captured(const struct solver_backend *b, const struct milp *m,
			   const struct solver_options *o, long *out, long *err)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	assert_non_null(fo);
	assert_non_null(fe);
	fflush(stdout);
	fflush(stderr);
	int so = dup(STDOUT_FILENO), se = dup(STDERR_FILENO);
	dup2(fileno(fo), STDOUT_FILENO);
	dup2(fileno(fe), STDERR_FILENO);
	struct solver_result r;
	struct error e = {{0}};
	enum status st = b->solve(m, o, &r, &e);
	fflush(stdout);
	fflush(stderr);
	dup2(so, STDOUT_FILENO);
	dup2(se, STDERR_FILENO);
	close(so);
	close(se);
	struct stat s;
	fstat(fileno(fo), &s);
	*out = s.st_size;
	fstat(fileno(fe), &s);
	*err = s.st_size;
	fclose(fo);
	fclose(fe);
	if (st)
		fail_msg("%s: %s", b->name, e.msg);
	solver_result_release(&r);
}

/* Silent by default; with verbose the log goes to stderr, never stdout. */
static void test_output_streams(void **state)
{
	struct milp *(*models[])(void) = {model_mixed, model_integral_gap_lp,
					  model_infeasible_integer, model_unbounded_mip};
	double v[20], w[20], cap;
	random_knapsack(20, 3, v, w, &cap);
	struct milp *hard = knapsack(20, v, w, cap);
	for (int i = 0; i < solver_count(); i++) {
		const struct solver_backend *b = solver_at(i);
		long out, err;
		for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
			struct milp *m = models[k]();
			solve_captured(b, m, &(struct solver_options){.threads = 2}, &out, &err);
			if (out || err)
				fail_msg("%s: model %zu printed %ld + %ld bytes", b->name, k, out, err);
			milp_free(m);
		}
		solve_captured(b, hard, &(struct solver_options){.threads = 2}, &out, &err);
		if (out || err)
			fail_msg("%s: knapsack printed %ld + %ld bytes", b->name, out, err);
		solve_captured(b, hard, &(struct solver_options){.threads = 1, .verbose = true},
			       &out, &err);
		if (out || !err)
			fail_msg("%s: verbose wrote %ld bytes to stdout, %ld to stderr", b->name,
				 out, err);
	}
	milp_free(hard);
}

struct progress_log {
	int calls;
	double incumbent, bound;
	bool bad;                 /* a bound above its incumbent */
};

static void on_progress(void *ctx, double incumbent, double bound)
{
	struct progress_log *p = ctx;
	p->calls++;
	p->incumbent = incumbent;
	p->bound = bound;
	if (!isnan(incumbent) && bound > incumbent + TOL)
		p->bad = true;
}

static void test_progress(void **state)
{
	struct milp *m = model_offset();
	for (int i = 0; i < solver_count(); i++) {
		struct progress_log p = {0};
		struct solver_options o = {.threads = 1, .progress = on_progress,
					   .progress_ctx = &p};
		struct solver_result r;
		solve_ok(solver_at(i), m, &o, &r);
		assert_true(p.calls >= 1);
		assert_false(p.bad);
		assert_double_near(p.incumbent, r.objective, TOL);
		assert_double_near(p.bound, r.bound, TOL);
		solver_result_release(&r);
	}
	milp_free(m);
}

/* ---- threads ------------------------------------------------------------------------------- */

struct worker {
	const struct solver_backend *b;
	int first;                /* capacity offset, so the threads differ */
	int wrong;
	char why[256];
};

/* 8 knapsacks of different capacities, each checked by brute force. */
static void *solve_many(void *arg)
{
	struct worker *wk = arg;
	double v[10], w[10], cap;
	random_knapsack(10, 11, v, w, &cap);
	for (int k = 0; k < 8; k++) {
		double c = cap * (0.3 + 0.08 * ((wk->first + k) % 8));
		double opt = knapsack_brute(10, v, w, c);
		struct milp *m = knapsack(10, v, w, c);
		struct solver_result r;
		struct error err = {{0}};
		if (wk->b->solve(m, &(struct solver_options){.threads = 1}, &r, &err) ||
		    r.outcome != OUTCOME_OPTIMAL || fabs(r.objective + opt) > TOL ||
		    !milp_feasible(m, r.x, TOL, NULL)) {
			wk->wrong++;
			snprintf(wk->why, sizeof wk->why, "capacity %g: %s %s %.17g vs %g",
				 c, err.msg, outcome_name(r.outcome), r.objective, -opt);
		}
		solver_result_release(&r);
		milp_free(m);
	}
	return NULL;
}

static void test_concurrent_solves(void **state)
{
	for (int i = 0; i < solver_count(); i++) {
		struct worker wk[2] = {{solver_at(i), 0, 0, ""}, {solver_at(i), 4, 0, ""}};
		pthread_t t[2];
		for (int k = 0; k < 2; k++)
			assert_int_equal(pthread_create(&t[k], NULL, solve_many, &wk[k]), 0);
		for (int k = 0; k < 2; k++)
			pthread_join(t[k], NULL);
		for (int k = 0; k < 2; k++)
			if (wk[k].wrong)
				fail_msg("%s: thread %d: %d wrong, last %s", solver_at(i)->name, k,
					 wk[k].wrong, wk[k].why);
	}
}

/* ---- the LP and MPS writers, through glpsol and cbc ------------------------------------------ */

static bool have_program(const char *name)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

/* Write the mixed model, with or without its offset, to a temp file. */
static void write_model(bool lp, bool offset, char *path, size_t size)
{
	const char *suffix = lp ? ".lp" : ".mps";
	snprintf(path, size, "/tmp/pipeopt_solver_XXXXXX%s", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	struct milp *m = model_mixed();
	m->obj_offset = offset ? 100 : 0;
	struct error err = {{0}};
	enum status st = lp ? milp_write_lp(m, f, &err) : milp_write_mps(m, f, &err);
	fclose(f);
	milp_free(m);
	if (st)
		fail_msg("writer: %s", err.msg);
}

/* The number after `key` in a file (the line left in `line`), or NAN. */
static double number_after(const char *path, const char *key, char *line, size_t size)
{
	FILE *f = fopen(path, "r");
	double v = NAN;
	if (!f)
		return v;
	while (fgets(line, (int)size, f)) {
		char *at = strstr(line, key);
		if (at) {
			v = strtod(at + strlen(key), NULL);
			break;
		}
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return v;
}

struct writer_case {
	const char *name;
	const char *program;      /* glpsol or cbc */
	bool lp;                  /* else free MPS */
	bool offset;              /* obj_offset 100, else 0 */
};

static const struct writer_case writer_cases[] = {
	{"lp_glpsol", "glpsol", true, false},
	{"mps_glpsol", "glpsol", false, false},
	{"lp_cbc", "cbc", true, false},
	{"mps_cbc", "cbc", false, false},
	{"lp_glpsol_offset", "glpsol", true, true},
	{"mps_glpsol_offset", "glpsol", false, true},
	{"lp_cbc_offset", "cbc", true, true},
	{"mps_cbc_offset", "cbc", false, true},
};

/* The written file solved by the program reaches the optimum the C API
 * reaches (the mixed model's 89.5, or -10.5 without the offset). */
static void test_writer_case(void **state)
{
	const struct writer_case *c = *state;
	if (!have_program(c->program)) {
		print_message("note: '%s' not found, skipping the writer check\n", c->program);
		skip();
	}
	char model[64], out[80], cmd[256], line[512] = "";
	double want = c->offset ? 89.5 : -10.5, obj;
	write_model(c->lp, c->offset, model, sizeof model);
	snprintf(out, sizeof out, "%s.out", model);
	int rc;
	if (!strcmp(c->program, "glpsol")) {
		snprintf(cmd, sizeof cmd, "glpsol %s %s -o %s >/dev/null 2>&1",
			 c->lp ? "--lp" : "--freemps", model, out);
		rc = system(cmd);
		obj = number_after(out, "obj = ", line, sizeof line);
		if (rc != 0 || !strstr(line, "MINimum"))
			obj = NAN;
	} else {
		snprintf(cmd, sizeof cmd, "cbc %s solve solu %s >/dev/null 2>&1", model, out);
		rc = system(cmd);
		obj = number_after(out, "objective value", line, sizeof line);
		if (rc != 0 || strncmp(line, "Optimal", 7) != 0)
			obj = NAN;
	}
	if (!(fabs(obj - want) <= TOL))
		fail_msg("%s on %s: exit %d, '%s', expected objective %g (file kept)",
			 c->program, model, rc, line, want);
	unlink(model);
	unlink(out);
}

/* A crash past the limit is a stop at the limit, nothing known; a crash
 * before it is an error naming the solver and the signal. */
static void test_isolated_crash(void **state)
{
	(void)state;
	struct milp *m = model_infeasible_mip();
	const struct solver_backend late = {"fake", fake_version, crash_after_limit, 0, 0};
	const struct solver_backend early = {"fake", fake_version, crash_at_once, 0, 0};
	struct solver_result r;
	struct error err = {{0}};
	if (solver_solve_isolated(&late, m, &(struct solver_options){.threads = 1,
		.time_limit = 0.2}, &r, &err))
		fail_msg("crash after the limit: error '%s', expected a stop at the limit", err.msg);
	assert_int_equal(r.outcome, OUTCOME_TIME_LIMIT);
	assert_false(r.has_solution);
	assert_true(r.bound == -INFINITY);
	assert_true(r.seconds >= 0.2);
	solver_result_release(&r);
	assert_int_equal(solver_solve_isolated(&early, m, &(struct solver_options){.threads = 1,
		.time_limit = 10}, &r, &err), STATUS_ERROR);
	assert_non_null(strstr(err.msg, "fake crashed (signal 11)"));
	solver_result_release(&r);
	milp_free(m);
}

/* ---- main ---------------------------------------------------------------------------------- */

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		/* first: a backend's first solves in a process are the likeliest
		 * to race (CBC without its lock gets one wrong here) */
		cmocka_unit_test(test_concurrent_solves),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_solver_names),
		cmocka_unit_test(test_knapsack_against_dp),
		cmocka_unit_test(test_mip_start),
		cmocka_unit_test(test_mip_start_mixed),
		cmocka_unit_test(test_mip_start_under_time_limit),
		cmocka_unit_test(test_optimal_start_under_time_limits),
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_no_false_verdict_under_limits),
		cmocka_unit_test(test_gap_tolerances),
		cmocka_unit_test(test_abs_gap_integer_objective),
		cmocka_unit_test(test_bad_models_rejected),
		cmocka_unit_test(test_output_streams),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_isolated_crash),
	};
	enum { NCASES = sizeof model_cases / sizeof model_cases[0],
	       NFIXED = sizeof fixed / sizeof fixed[0],
	       NWRITERS = sizeof writer_cases / sizeof writer_cases[0],
	       NTESTS = NCASES + NFIXED + NWRITERS };
	struct CMUnitTest tests[NTESTS];
	memcpy(tests, fixed, sizeof fixed);
	for (int k = 0; k < NCASES; k++)
		tests[NFIXED + k] = (struct CMUnitTest){model_cases[k].name, test_model_case,
							NULL, NULL, (void *)&model_cases[k]};
	for (int k = 0; k < NWRITERS; k++)
		tests[NCASES + NFIXED + k] = (struct CMUnitTest){
			writer_cases[k].name, test_writer_case, NULL, NULL,
			(void *)&writer_cases[k]};
	return _cmocka_run_group_tests("solver", tests, NTESTS, NULL, NULL);
}
