/*
 * The default partitioner (partition/search.c) against a brute force
 * written here: every partition of the operators into at most D blocks
 * (restricted growth strings), kept when the blocks' graph is acyclic
 * (which is exactly "convex blocks, acyclic stage graph"), every degree
 * assignment (powers of two, total <= D, b / k a listed size) and every
 * micro-batch size, each fitting memory and timed as the search times it:
 * partition_evaluate, then partition_simulate (1f1b-dag on the bridge's
 * instance, the number plan and exec see; both are checked by hand in
 * test_partition.c). The search must be within 5 % of that optimum, never
 * below it (it searches the same space), and never above the sequential
 * pipeline's or GraphPipe's DP's plan.
 */
#include "test_helpers.h"

#include <jansson.h>
#include <math.h>

#include "graph/graph.h"
#include "small_graph.h"
#include "partition/bridge.h"
#include "partition/partition.h"

#define MAXN 12

struct shape {
	const char *name;
	int n, m;
	int e[20][2];
};

/* fork-joins and diamonds of 9 to 12 operators */
static const struct shape shapes[] = {
	{"fork-join9", 9, 10,
	 {{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 5}, {5, 6}, {3, 7}, {6, 7}, {7, 8}, {0, 8}}},
	{"three-branch10", 10, 12,
	 {{0, 1}, {1, 2}, {0, 3}, {3, 4}, {0, 5}, {5, 6}, {2, 7}, {4, 7}, {6, 7}, {7, 8}, {8, 9},
	  {1, 9}}},
	{"two-diamonds9", 9, 10,
	 {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {3, 5}, {4, 6}, {5, 6}, {6, 7}, {7, 8}}},
	{"fork-join12", 12, 13,
	 {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 5}, {5, 6}, {6, 7}, {7, 8}, {4, 9}, {8, 9}, {9, 10},
	  {10, 11}, {0, 11}}},
};

/* A graph of the shape with costs drawn from seed: sizes 2 and 4, batch
 * 16 (m = 8 or 4), so that degree 2 is possible at b = 4. */
static struct graph *make_graph(const struct shape *sh, unsigned seed, double memory)
{
	return small_graph(sh->name, sh->n, sh->m, (const int (*)[2])sh->e, seed, memory, true);
}

struct brute {
	const struct shape *sh;
	const struct graph *g;
	int D;
	int label[MAXN];
	int blocks;
	double best;
	long partitions;   /* acyclic block graphs seen */
};

/* The blocks' graph is acyclic (Kahn's algorithm on the blocks). */
static bool blocks_acyclic(const struct brute *bf)
{
	int K = bf->blocks, indeg[MAXN] = {0}, queue[MAXN], n = 0;
	bool adj[MAXN][MAXN] = {{false}};
	for (int e = 0; e < bf->sh->m; e++) {
		int a = bf->label[bf->sh->e[e][0]], c = bf->label[bf->sh->e[e][1]];
		if (a != c && !adj[a][c]) {
			adj[a][c] = true;
			indeg[c]++;
		}
	}
	for (int k = 0; k < K; k++)
		if (!indeg[k])
			queue[n++] = k;
	for (int h = 0; h < n; h++)
		for (int c = 0; c < K; c++)
			if (adj[queue[h]][c] && !--indeg[c])
				queue[n++] = c;
	return n == K;
}

static bool size_listed(const struct graph *g, int q)
{
	for (int i = 0; i < g->nsizes; i++)
		if (g->microbatch_sizes[i] == q)
			return true;
	return false;
}

static void time_partition(struct brute *bf, const int *deg, int b)
{
	const struct graph *g = bf->g;
	struct partition p;
	struct error err;
	memset(&p, 0, sizeof p);
	p.nstages = bf->blocks;
	p.stages = calloc(bf->blocks, sizeof *p.stages);
	assert_non_null(p.stages);
	for (int s = 0; s < bf->blocks; s++) {
		p.stages[s].ops = malloc(g->nops * sizeof(int));
		assert_non_null(p.stages[s].ops);
		p.stages[s].degree = deg[s];
	}
	for (int v = 0; v < g->nops; v++) {
		struct stage *st = &p.stages[bf->label[v]];
		st->ops[st->nops++] = v;
	}
	p.microbatch = b;
	p.microbatches = g->batch / b;
	if (!partition_evaluate(g, &p))
		fail_msg("an acyclic labelling did not evaluate");
	bool fits = true;
	for (int s = 0; s < p.nstages; s++)
		fits = fits && p.stages[s].memory <= g->machine.memory_bytes;
	if (fits) {
		if (partition_simulate(g, &p, &err))
			fail_msg("%s", err.msg);
		if (p.iteration_time < bf->best)
			bf->best = p.iteration_time;
	}
	partition_release(&p);
}

static void degrees(struct brute *bf, int *deg, int s, int used, int b)
{
	if (s == bf->blocks) {
		time_partition(bf, deg, b);
		return;
	}
	for (int k = 1; used + k <= bf->D; k *= 2)
		if (b % k == 0 && size_listed(bf->g, b / k)) {
			deg[s] = k;
			degrees(bf, deg, s + 1, used + k, b);
		}
}

/* Restricted growth strings: op v joins a block 0..blocks-1 or opens one. */
static void partitions(struct brute *bf, int v)
{
	if (v == bf->sh->n) {
		if (!blocks_acyclic(bf))
			return;
		bf->partitions++;
		int deg[MAXN];
		for (int i = 0; i < bf->g->nsizes; i++)
			if (bf->g->batch % bf->g->microbatch_sizes[i] == 0)
				degrees(bf, deg, 0, 0, bf->g->microbatch_sizes[i]);
		return;
	}
	for (int k = 0; k <= bf->blocks && k < bf->D; k++) {
		bf->label[v] = k;
		bool opened = k == bf->blocks;
		bf->blocks += opened;
		partitions(bf, v + 1);
		bf->blocks -= opened;
	}
}

static double brute_best(const struct shape *sh, const struct graph *g, int D, long *count)
{
	struct brute bf = {.sh = sh, .g = g, .D = D, .best = INFINITY};
	partitions(&bf, 0);
	*count = bf.partitions;
	return bf.best;
}

static double run(const struct graph *g, int D, const char *method, bool sequential)
{
	struct partition p;
	struct error err = {{0}};
	struct search_info si;
	struct partition_options o = {.devices = D, .sequential = sequential};
	bool dp = !strcmp(method, "dp");
	enum status st = dp ? partition_dp(g, &o, &p, &err)
			    : partition_search(g, &o, 0, &p, &si, &err);
	if (st && dp)
		return INFINITY;   /* the DP's space can hold no plan that fits */
	if (st)
		fail_msg("%s: %s", method, err.msg);
	double t = p.iteration_time;
	assert_true(t > 0);
	partition_release(&p);
	return t;
}

static void check(const struct shape *sh, unsigned seed, double memory, int D, double *worst)
{
	struct graph *g = make_graph(sh, seed, memory);
	long count;
	double opt = brute_best(sh, g, D, &count);
	assert_true(count > 0 && isfinite(opt));
	double s = run(g, D, "search", false), seq = run(g, D, "search", true);
	double dp = run(g, D, "dp", false);
	if (s < opt - 1e-9)
		fail_msg("%s seed %u D %d: search %.0f below the brute force's %.0f", sh->name, seed,
			 D, s, opt);
	if (getenv("SHOW"))
		printf("%s seed %u D %d: search %.0f opt %.0f seq %.0f dp %.0f gap %.2f %%\n", sh->name, seed, D, s, opt, seq, dp, 100 * (s - opt) / opt);
	else if (s > 1.05 * opt)
		fail_msg("%s seed %u D %d: search %.0f more than 5 %% above the optimum %.0f",
			 sh->name, seed, D, s, opt);
	assert_true(s <= seq && s <= dp);
	assert_true(isfinite(seq));
	/* the exact partitioner's iteration bound (partition_ilp.c) holds
	 * against every partition, and its plan lies in the same space */
	struct partition_options o = {.devices = D};
	struct partition p;
	struct ilp_info info;
	struct error err;
	if (partition_ilp(g, &o, "ideals", 0, &p, &info, &err))
		fail_msg("%s seed %u D %d: ilp: %s", sh->name, seed, D, err.msg);
	if (info.iteration_bound > opt + 1e-9 || !(info.iteration_bound > 0))
		fail_msg("%s seed %u D %d: iteration bound %.3f against the brute force's optimum %.0f",
			 sh->name, seed, D, info.iteration_bound, opt);
	assert_true(info.iteration_bound_exact);
	assert_true(p.iteration_time >= opt - 1e-9);
	if (getenv("SHOW"))
		printf("    bound %.1f (%.1f %% below the optimum)\n", info.iteration_bound,
		       100 * (1 - info.iteration_bound / opt));
	partition_release(&p);
	double gap = (s - opt) / opt;
	*worst = gap > *worst ? gap : *worst;
	graph_free(g);
}

/* SEEDS=N in the environment widens the cases (held-out checks). */
static unsigned seeds(unsigned n)
{
	const char *e = getenv("SEEDS");
	return e ? (unsigned)atoi(e) : n;
}

static void test_search_near_brute_force(void **state)
{
	(void)state;
	double worst = 0;
	for (size_t i = 0; i + 1 < sizeof shapes / sizeof *shapes; i++)
		for (unsigned seed = 1; seed <= seeds(3); seed++)
			for (int D = 2; D <= 4; D++)
				check(&shapes[i], seed, 1e9, D, &worst);
	printf("worst gap to the optimum: %.2f %%\n", 100 * worst);
}

/* 12 operators, at 4 devices only (the largest enumeration) */
static void test_search_near_brute_force_12(void **state)
{
	(void)state;
	double worst = 0;
	const struct shape *sh = &shapes[sizeof shapes / sizeof *shapes - 1];
	for (unsigned seed = 1; seed <= 2; seed++)
		check(sh, seed, 1e9, 4, &worst);
	printf("worst gap to the optimum (12 ops): %.2f %%\n", 100 * worst);
}

/* Memory binds: weights 1000-5000 bytes (x 4 with gradients and optimizer
 * state at 4 bytes per parameter, 8 of optimizer state), activations
 * 100-500 bytes per sample; 60 kB per device refuses one stage holding
 * everything at b = 4 and leaves the search fewer plans. */
static void test_search_memory(void **state)
{
	(void)state;
	double worst = 0;
	for (unsigned seed = 1; seed <= 3; seed++)
		check(&shapes[0], seed, 60000, 3, &worst);
	printf("worst gap to the optimum (memory 60 kB): %.2f %%\n", 100 * worst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_near_brute_force),
		cmocka_unit_test(test_search_near_brute_force_12),
		cmocka_unit_test(test_search_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
