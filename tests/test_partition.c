/*
 * Tests for partition/partition.c (GraphPipe's DP partitioner and the shared
 * cost model partition_evaluate) and partition/bridge.c (a partition as a
 * schedule instance).
 *
 * The cost model is the one in partition/partition.h. Every expected number
 * below is hand arithmetic written next to it, or comes from an
 * independent brute force over all partitions (tests 3 and 4), never from
 * the code under test. The brute forces use partition_evaluate as the cost
 * model (it is checked by hand in tests 1 and 2): what they check is the
 * DP's search.
 */
#include "test_helpers.h"
#include "instance_equal.h"

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include "partition/bridge.h"
#include "graph/graph.h"
#include "partition/partition.h"
#include "graph/sp.h"

/* ---- model graphs from a table ---------------------------------------------- */

#define MAXOPS 8
#define MAXSZ 4
#define MAXE 32

struct gspec {
	int nops;
	int nsizes;
	int sizes[MAXSZ];               /* ascending */
	int batch;
	double fwd[MAXOPS][MAXSZ], bwd[MAXOPS][MAXSZ], wgrad[MAXOPS][MAXSZ]; /* us */
	double act[MAXOPS], weight[MAXOPS], out[MAXOPS];                     /* bytes */
	int nedges;
	int edges[MAXE][2];
	int devices;
	double memory, latency, bandwidth, opt_bpp, bpp;
};

/* n ops, no edges, zero costs; a roomy default machine. */
static void spec_init(struct gspec *s, int nops, int nsizes, const int *sizes, int batch)
{
	memset(s, 0, sizeof *s);
	s->nops = nops;
	s->nsizes = nsizes;
	for (int i = 0; i < nsizes; i++)
		s->sizes[i] = sizes[i];
	s->batch = batch;
	s->devices = 8;
	s->memory = 1e12;
	s->latency = 0;
	s->bandwidth = 1;
	s->opt_bpp = 8;
	s->bpp = 4;
}

/* The same fwd/bwd/wgrad at every size. */
static void spec_op(struct gspec *s, int v, double fwd, double bwd, double wgrad)
{
	for (int i = 0; i < s->nsizes; i++) {
		s->fwd[v][i] = fwd;
		s->bwd[v][i] = bwd;
		s->wgrad[v][i] = wgrad;
	}
}

static void spec_edge(struct gspec *s, int a, int b)
{
	assert_true(s->nedges < MAXE);
	s->edges[s->nedges][0] = a;
	s->edges[s->nedges][1] = b;
	s->nedges++;
}

static json_t *per_size_list(const struct gspec *s, const double *x)
{
	json_t *a = json_array();
	for (int i = 0; i < s->nsizes; i++)
		json_array_append_new(a, json_real(x[i]));
	return a;
}

/* The model-graph JSON text of s (docs/formats.md, "Model graph"); the
 * caller frees it. Operators are named o0, o1, ... */
static char *spec_text(const struct gspec *s)
{
	json_t *root = json_object(), *ops = json_array(), *edges = json_array();
	json_t *sizes = json_array();
	for (int i = 0; i < s->nsizes; i++)
		json_array_append_new(sizes, json_integer(s->sizes[i]));
	for (int v = 0; v < s->nops; v++) {
		char name[16];
		snprintf(name, sizeof name, "o%d", v);
		json_t *op = json_object();
		json_object_set_new(op, "name", json_string(name));
		json_object_set_new(op, "fwd", per_size_list(s, s->fwd[v]));
		json_object_set_new(op, "bwd", per_size_list(s, s->bwd[v]));
		json_object_set_new(op, "wgrad", per_size_list(s, s->wgrad[v]));
		json_object_set_new(op, "act_bytes", json_real(s->act[v]));
		json_object_set_new(op, "weight_bytes", json_real(s->weight[v]));
		json_object_set_new(op, "out_bytes", json_real(s->out[v]));
		json_array_append_new(ops, op);
	}
	for (int e = 0; e < s->nedges; e++)
		json_array_append_new(edges, json_pack("[i,i]", s->edges[e][0], s->edges[e][1]));
	json_object_set_new(root, "name", json_string("tg"));
	json_object_set_new(root, "batch", json_integer(s->batch));
	json_object_set_new(root, "microbatch_sizes", sizes);
	json_object_set_new(root, "machine",
		json_pack("{s:i,s:f,s:f,s:f,s:f,s:f}", "devices", s->devices,
			  "memory_bytes", s->memory, "link_latency_us", s->latency,
			  "link_bandwidth", s->bandwidth, "optimizer_bytes_per_param", s->opt_bpp,
			  "bytes_per_param", s->bpp));
	json_object_set_new(root, "ops", ops);
	json_object_set_new(root, "edges", edges);
	char *text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	assert_non_null(text);
	return text;
}

/* Parse s through the real reader, failing the test on error. */
static struct graph *spec_graph(const struct gspec *s)
{
	char *text = spec_text(s);
	struct graph *g = NULL;
	struct error err = {{0}};
	if (graph_parse(text, "tg.json", &g, &err))
		fail_msg("graph rejected: %s\n%s", err.msg, text);
	free(text);
	assert_int_equal(g->nops, s->nops);
	assert_int_equal(g->nedges, s->nedges);
	return g;
}

/* ---- hand-made partitions ----------------------------------------------------- */

/* Stage of op v is of[v] (0..S-1), degrees deg[] (NULL: all 1); stages'
 * ops in ascending order. Not evaluated. */
static void hand_partition(struct partition *p, const struct graph *g, int S, const int *of,
			   const int *deg, int b, bool chain)
{
	memset(p, 0, sizeof *p);
	p->nstages = S;
	p->stages = calloc(S, sizeof *p->stages);
	assert_non_null(p->stages);
	for (int s = 0; s < S; s++) {
		struct stage *st = &p->stages[s];
		st->ops = malloc(g->nops * sizeof *st->ops);
		assert_non_null(st->ops);
		for (int v = 0; v < g->nops; v++)
			if (of[v] == s)
				st->ops[st->nops++] = v;
		st->degree = deg ? deg[s] : 1;
	}
	p->microbatch = b;
	p->microbatches = g->batch / b;
	p->chain = chain;
}

static bool has_edge(const struct partition *p, int a, int b)
{
	for (int e = 0; e < p->nedges; e++)
		if (p->edges[e][0] == a && p->edges[e][1] == b)
			return true;
	return false;
}

/* The stage edges are exactly the n pairs in want (any order, no repeats). */
static void assert_stage_edges(const struct partition *p, const int (*want)[2], int n)
{
	for (int i = 0; i < n; i++)
		if (!has_edge(p, want[i][0], want[i][1]))
			fail_msg("stage edge %d -> %d missing", want[i][0], want[i][1]);
	for (int e = 0; e < p->nedges; e++) {
		int found = 0;
		for (int i = 0; i < n; i++)
			found += p->edges[e][0] == want[i][0] && p->edges[e][1] == want[i][1];
		if (found != 1)
			fail_msg("stage edge %d -> %d is unexpected or repeated", p->edges[e][0],
				 p->edges[e][1]);
	}
	assert_int_equal(p->nedges, n);
}

static void assert_inflight(const struct partition *p, const int *want)
{
	for (int s = 0; s < p->nstages; s++)
		if (p->stages[s].inflight != want[s])
			fail_msg("stage %d: in flight %d, expected %d", s, p->stages[s].inflight,
				 want[s]);
}

/* Stage index of every op in a partition; every op exactly once. */
static void stage_of(const struct graph *g, const struct partition *p, int *of)
{
	for (int v = 0; v < g->nops; v++)
		of[v] = -1;
	for (int s = 0; s < p->nstages; s++)
		for (int i = 0; i < p->stages[s].nops; i++) {
			int v = p->stages[s].ops[i];
			assert_true(v >= 0 && v < g->nops);
			if (of[v] >= 0)
				fail_msg("op %d in stages %d and %d", v, of[v], s);
			of[v] = s;
		}
	for (int v = 0; v < g->nops; v++)
		if (of[v] < 0)
			fail_msg("op %d in no stage", v);
}

/* ---- 1. the in-flight rule ---------------------------------------------------- */

static void test_inflight_chain(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 3, 1, (int[]){1}, 4);
	for (int v = 0; v < 3; v++)
		spec_op(&s, v, 1, 1, 0);
	spec_edge(&s, 0, 1);
	spec_edge(&s, 1, 2);
	struct graph *g = spec_graph(&s);
	struct partition p;
	hand_partition(&p, g, 3, (int[]){0, 1, 2}, NULL, 1, false);
	assert_true(partition_evaluate(g, &p));
	assert_inflight(&p, (int[]){3, 2, 1});
	assert_int_equal(p.depth, 3);
	assert_stage_edges(&p, (const int[][2]){{0, 1}, {1, 2}}, 2);
	assert_int_equal(p.devices_used, 3);
	partition_release(&p);

	/* The same stages listed backwards: the rule follows edges, not order. */
	hand_partition(&p, g, 3, (int[]){2, 1, 0}, NULL, 1, false);
	assert_true(partition_evaluate(g, &p));
	assert_inflight(&p, (int[]){1, 2, 3});
	assert_int_equal(p.depth, 3);
	assert_stage_edges(&p, (const int[][2]){{2, 1}, {1, 0}}, 2);
	partition_release(&p);
	graph_free(g);
}

/* CANDLE-Uno-like (GraphPipe PR #308, candle_uno/partition-ns.txt): four
 * branch stages feed a concat stage, which feeds the head. */
static void test_inflight_candle(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 6, 1, (int[]){1}, 4);
	for (int v = 0; v < 6; v++)
		spec_op(&s, v, 1, 1, 0);
	for (int v = 0; v < 4; v++)
		spec_edge(&s, v, 4);
	spec_edge(&s, 4, 5);
	struct graph *g = spec_graph(&s);
	struct partition p;
	int of[6] = {0, 1, 2, 3, 4, 5};

	/* graph pipeline: branch -> concat -> head is 3 stages long */
	hand_partition(&p, g, 6, of, NULL, 1, false);
	assert_true(partition_evaluate(g, &p));
	assert_inflight(&p, (int[]){3, 3, 3, 3, 2, 1});
	assert_int_equal(p.depth, 3);
	assert_stage_edges(&p, (const int[][2]){{0, 4}, {1, 4}, {2, 4}, {3, 4}, {4, 5}}, 5);
	partition_release(&p);

	/* sequential (partition-s.txt): six in a row; the op edges stay, the
	 * chain 0->1->2->3->4 is added */
	hand_partition(&p, g, 6, of, NULL, 1, true);
	assert_true(partition_evaluate(g, &p));
	assert_inflight(&p, (int[]){6, 5, 4, 3, 2, 1});
	assert_int_equal(p.depth, 6);
	assert_stage_edges(&p, (const int[][2]){{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5},
						 {0, 4}, {1, 4}, {2, 4}},
			   8);
	partition_release(&p);
	graph_free(g);
}

/* A diamond of stages A->B, A->C, B->D, C->D, listed out of topological
 * order (D, B, A, C) to exercise the path relaxations. Times per stage (one
 * op each, no comm): A 10, B 30, C 20, D 5; b = 1, m = 4:
 *   bottleneck 30; longest path A, B, D = 10 + 30 + 5 = 45;
 *   iteration = (4 - 1) * 30 + 45 = 135. */
static void test_inflight_diamond(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 4, 1, (int[]){1}, 4);
	spec_op(&s, 0, 4, 6, 0);   /* A: 10 */
	spec_op(&s, 1, 10, 15, 5); /* B: 30 */
	spec_op(&s, 2, 8, 12, 0);  /* C: 20 */
	spec_op(&s, 3, 2, 3, 0);   /* D: 5 */
	spec_edge(&s, 0, 1);
	spec_edge(&s, 0, 2);
	spec_edge(&s, 1, 3);
	spec_edge(&s, 2, 3);
	struct graph *g = spec_graph(&s);
	struct partition p;
	/* stages: 0 = D, 1 = B, 2 = A, 3 = C */
	hand_partition(&p, g, 4, (int[]){2, 1, 3, 0}, NULL, 1, false);
	assert_true(partition_evaluate(g, &p));
	assert_inflight(&p, (int[]){1, 2, 3, 2});
	assert_int_equal(p.depth, 3);
	assert_stage_edges(&p, (const int[][2]){{2, 1}, {2, 3}, {1, 0}, {3, 0}}, 4);
	assert_double_near(p.stages[2].time, 10, 1e-9);
	assert_double_near(p.stages[1].time, 30, 1e-9);
	assert_double_near(p.bottleneck, 30, 1e-9);
	assert_double_near(p.time_per_sample, 30, 1e-9);
	assert_double_near(p.estimate, 135, 1e-9);
	partition_release(&p);

	/* in topological order: A, B, C, D -> 3, 2, 2, 1 */
	hand_partition(&p, g, 4, (int[]){0, 1, 2, 3}, NULL, 1, false);
	assert_true(partition_evaluate(g, &p));
	assert_inflight(&p, (int[]){3, 2, 2, 1});
	assert_stage_edges(&p, (const int[][2]){{0, 1}, {0, 2}, {1, 3}, {2, 3}}, 4);
	assert_double_near(p.estimate, 135, 1e-9);
	partition_release(&p);
	graph_free(g);
}

/* a -> b -> c with X = {a, c}, Y = {b}: X -> Y -> X is a cycle (X is not
 * convex). An op in no stage is also refused. */
static void test_evaluate_rejects_cycle(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 3, 1, (int[]){1}, 4);
	for (int v = 0; v < 3; v++)
		spec_op(&s, v, 1, 1, 0);
	spec_edge(&s, 0, 1);
	spec_edge(&s, 1, 2);
	struct graph *g = spec_graph(&s);
	struct partition p;
	hand_partition(&p, g, 2, (int[]){0, 1, 0}, NULL, 1, false);
	assert_false(partition_evaluate(g, &p));
	partition_release(&p);
	hand_partition(&p, g, 2, (int[]){1, 0, 1}, NULL, 1, true);
	assert_false(partition_evaluate(g, &p));
	partition_release(&p);
	/* op 2 in no stage (of = 5 matches no stage of 2) */
	hand_partition(&p, g, 2, (int[]){0, 1, 5}, NULL, 1, false);
	assert_false(partition_evaluate(g, &p));
	partition_release(&p);
	/* a convex split of the same graph is fine */
	hand_partition(&p, g, 2, (int[]){0, 0, 1}, NULL, 1, false);
	assert_true(partition_evaluate(g, &p));
	partition_release(&p);
	graph_free(g);
}

/* ---- 2. the cost model by hand ------------------------------------------------ */

/*
 * Ops a (0), b (1), c (2); edges a->b, a->c, b->c. Sizes {2, 4}, batch 16.
 *            fwd      bwd      wgrad   act  weight  out
 *   a     [10,18]  [20,36]   [5, 9]   100   4000    50
 *   b     [ 7,12]  [14,24]   [3, 6]   200   8000    30
 *   c     [ 4, 8]  [ 8,16]   [2, 4]    50   2000    10
 * Machine: latency 5 us, bandwidth 100 B/us, 4 bytes per param, 8 bytes of
 * optimizer state per param: static memory of W bytes = 2W + W/4*8 = 4W.
 * Compute per micro-batch at size 2: a 35, b 24, c 14; at size 4: a 63,
 * b 42, c 28.
 */
static struct graph *cost_graph(void)
{
	struct gspec s;
	spec_init(&s, 3, 2, (int[]){2, 4}, 16);
	double fwd[3][2] = {{10, 18}, {7, 12}, {4, 8}};
	double bwd[3][2] = {{20, 36}, {14, 24}, {8, 16}};
	double wg[3][2] = {{5, 9}, {3, 6}, {2, 4}};
	double act[3] = {100, 200, 50}, w[3] = {4000, 8000, 2000}, out[3] = {50, 30, 10};
	for (int v = 0; v < 3; v++) {
		for (int i = 0; i < 2; i++) {
			s.fwd[v][i] = fwd[v][i];
			s.bwd[v][i] = bwd[v][i];
			s.wgrad[v][i] = wg[v][i];
		}
		s.act[v] = act[v];
		s.weight[v] = w[v];
		s.out[v] = out[v];
	}
	spec_edge(&s, 0, 1);
	spec_edge(&s, 0, 2);
	spec_edge(&s, 1, 2);
	s.devices = 4;
	s.latency = 5;
	s.bandwidth = 100;
	return spec_graph(&s);
}

static void test_cost_two_stages(void **state)
{
	(void)state;
	struct graph *g = cost_graph();
	struct partition p;
	/* {a} k=1, {b, c} k=1, b = 4, m = 16 / 4 = 4 */
	hand_partition(&p, g, 2, (int[]){0, 1, 1}, (int[]){1, 1}, 4, false);
	assert_true(partition_evaluate(g, &p));
	assert_inflight(&p, (int[]){2, 1});
	assert_stage_edges(&p, (const int[][2]){{0, 1}}, 1);
	/* stage 0: t = 18 + 36 + 9 = 63; no edge in; k = 1: no allreduce.
	 * memory: 4 * 4000 + n=2 * 4 * 100 = 16000 + 800 = 16800 */
	assert_double_near(p.stages[0].time, 63, 1e-9);
	assert_double_near(p.stages[0].memory, 16800, 1e-6);
	assert_double_near(p.stages[0].fwd, 18, 1e-9);
	assert_double_near(p.stages[0].bwd, 36, 1e-9);
	assert_double_near(p.stages[0].wgrad, 9, 1e-9);
	assert_double_near(p.stages[0].act, 400, 1e-9);
	/* stage 1: compute 42 + 28 = 70; two edges in (a->b, a->c), each
	 * 2 (5 + 50 * 4 / 100) = 14: t = 70 + 28 = 98.
	 * memory: 4 * 10000 + 1 * 4 * 250 = 41000 */
	assert_double_near(p.stages[1].time, 98, 1e-9);
	assert_double_near(p.stages[1].memory, 41000, 1e-6);
	assert_double_near(p.stages[1].act, 1000, 1e-9);
	/* bottleneck 98; TPS 98 / 4 = 24.5; iteration 3 * 98 + (63 + 98) = 455 */
	assert_double_near(p.bottleneck, 98, 1e-9);
	assert_double_near(p.time_per_sample, 24.5, 1e-9);
	assert_double_near(p.estimate, 455, 1e-9);
	assert_int_equal(p.devices_used, 2);
	assert_int_equal(p.depth, 2);
	assert_int_equal(p.microbatches, 4);
	partition_release(&p);

	/* {a} k=1, {b, c} k=2, b = 4: stage 1 runs 2 samples per device.
	 * compute at size 2: 24 + 14 = 38; comm still at b = 4: 28;
	 * allreduce of W = 10000 on k = 2: 2 (2-1) (5 + 10000 / (2 * 100)) = 110,
	 * over m = 4 micro-batches: 27.5. t = 38 + 28 + 27.5 = 93.5.
	 * memory: 40000 + 1 * (4 / 2) * 250 = 40500.
	 * bottleneck 93.5, TPS 23.375, iteration 3 * 93.5 + (63 + 93.5) = 437 */
	hand_partition(&p, g, 2, (int[]){0, 1, 1}, (int[]){1, 2}, 4, false);
	assert_true(partition_evaluate(g, &p));
	assert_double_near(p.stages[0].time, 63, 1e-9);
	assert_double_near(p.stages[0].memory, 16800, 1e-6);
	assert_double_near(p.stages[1].time, 93.5, 1e-9);
	assert_double_near(p.stages[1].memory, 40500, 1e-6);
	assert_double_near(p.stages[1].fwd, 11, 1e-9);
	assert_double_near(p.stages[1].bwd, 22, 1e-9);
	assert_double_near(p.stages[1].wgrad, 5, 1e-9);
	assert_double_near(p.stages[1].act, 500, 1e-9);
	assert_double_near(p.bottleneck, 93.5, 1e-9);
	assert_double_near(p.time_per_sample, 23.375, 1e-9);
	assert_double_near(p.estimate, 437, 1e-9);
	assert_int_equal(p.devices_used, 3);
	partition_release(&p);
	graph_free(g);
}

static void test_cost_one_stage_degree_two(void **state)
{
	(void)state;
	struct graph *g = cost_graph();
	struct partition p;
	/* {a, b, c} k = 2, b = 4, m = 4: compute at size 2: 35 + 24 + 14 = 73;
	 * no stage edges; allreduce W = 14000: 2 (5 + 14000 / 200) = 150, / 4 =
	 * 37.5; t = 110.5. memory: 4 * 14000 + 1 * 2 * 350 = 56700.
	 * TPS 110.5 / 4 = 27.625; iteration = 3 * 110.5 + 110.5 = 442 */
	hand_partition(&p, g, 1, (int[]){0, 0, 0}, (int[]){2}, 4, false);
	assert_true(partition_evaluate(g, &p));
	assert_int_equal(p.nedges, 0);
	assert_inflight(&p, (int[]){1});
	assert_double_near(p.stages[0].time, 110.5, 1e-9);
	assert_double_near(p.stages[0].memory, 56700, 1e-6);
	assert_double_near(p.bottleneck, 110.5, 1e-9);
	assert_double_near(p.time_per_sample, 27.625, 1e-9);
	assert_double_near(p.estimate, 442, 1e-9);
	assert_int_equal(p.devices_used, 2);
	partition_release(&p);

	/* b = 2, k = 1, m = 8: t = 73, memory 56000 + 2 * 350 = 56700,
	 * TPS 36.5, iteration 8 * 73 = 584 */
	hand_partition(&p, g, 1, (int[]){0, 0, 0}, (int[]){1}, 2, false);
	assert_true(partition_evaluate(g, &p));
	assert_double_near(p.stages[0].time, 73, 1e-9);
	assert_double_near(p.time_per_sample, 36.5, 1e-9);
	assert_double_near(p.estimate, 584, 1e-9);
	partition_release(&p);

	/* k = 4 at b = 4 needs size 1, which is not listed: refused */
	hand_partition(&p, g, 1, (int[]){0, 0, 0}, (int[]){4}, 4, false);
	assert_false(partition_evaluate(g, &p));
	partition_release(&p);
	graph_free(g);
}

/*
 * The iteration time plan and exec see (partition_simulate): 1f1b-dag on
 * the bridge's instance, simulated; W carries the allreduce share.
 */
static void test_simulate(void **state)
{
	(void)state;
	struct graph *g = cost_graph();
	struct partition p;
	struct error err = {{0}};
	/* one stage {a, b, c} k = 2, b = 4, m = 4, costs at size 2:
	 * F = 10 + 7 + 4 = 21, B = 20 + 14 + 8 = 42, W = 5 + 3 + 2 + the
	 * allreduce share 150 / 4 = 37.5 -> ceil 48; depth 1, no warm-up:
	 * 4 (F B W) back to back = 4 * 111 = 444 */
	hand_partition(&p, g, 1, (int[]){0, 0, 0}, (int[]){2}, 4, false);
	assert_true(partition_evaluate(g, &p));
	assert_double_near(p.stages[0].allreduce, 37.5, 1e-9);
	assert_int_equal(partition_simulate(g, &p, &err), STATUS_OK);
	assert_double_near(p.iteration_time, 444, 1e-9);
	partition_release(&p);

	/* {a} k = 1 (F 18, B 36, W 9), {b, c} k = 2 (F 11, B 22, W 5 + 27.5
	 * -> 33), comm ceil(5 + (50 + 50) * 4 / 100) = 9 each way; stage 0
	 * warms up with 1 F. By hand (start, end):
	 *   s0: F0 0,18  F1 18,36  B0 69,105 (B(1,0) 60 + 9)  W0 ..114  F2 ..132
	 *       B1 135,171  W1 ..180  F3 ..198  B2 201,237  W2 ..246  B3 267,303  W3 ..312
	 *   s1: F0 27,38  B0 ..60  W0 ..93  F1 93,104  B1 ..126  W1 ..159
	 *       F2 159,170  B2 ..192  W2 ..225  F3 225,236  B3 ..258  W3 ..291
	 * makespan 312 (the estimate, comm charged serially, is 437) */
	hand_partition(&p, g, 2, (int[]){0, 1, 1}, (int[]){1, 2}, 4, false);
	assert_true(partition_evaluate(g, &p));
	assert_int_equal(partition_simulate(g, &p, &err), STATUS_OK);
	assert_double_near(p.iteration_time, 312, 1e-9);
	assert_double_near(p.estimate, 437, 1e-9);
	partition_release(&p);
	graph_free(g);
}

/* partition_evaluate fills the metrics "from its stages' op sets, degrees
 * and p->microbatch": evaluating the same partition twice must give the
 * same numbers (the DP evaluates freshly zeroed stages, so only a second
 * evaluation, e.g. after changing the micro-batch, shows it; fwd, bwd and
 * wgrad used to double). */
static void test_evaluate_twice_same_result(void **state)
{
	(void)state;
	struct graph *g = cost_graph();
	struct partition p;
	hand_partition(&p, g, 2, (int[]){0, 1, 1}, (int[]){1, 1}, 4, false);
	assert_true(partition_evaluate(g, &p));
	assert_true(partition_evaluate(g, &p));
	assert_double_near(p.stages[0].time, 63, 1e-9);
	/* stage 0 forward at size 4: 18 (a second evaluation adds it again) */
	assert_double_near(p.stages[0].fwd, 18, 1e-9);
	assert_double_near(p.stages[0].bwd, 36, 1e-9);
	assert_double_near(p.stages[1].wgrad, 10, 1e-9);
	partition_release(&p);
	graph_free(g);
}

/* ---- random costs --------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int rnd_int(int lo, int hi)
{
	return lo + (int)(rnd() % (uint64_t)(hi - lo + 1));
}

static void random_costs(struct gspec *s)
{
	/* weights from none to heavy: with heavy ones the allreduce rules
	 * data parallelism out, with light ones it often pays */
	static const int wmax[] = {0, 200, 20000};
	int wm = wmax[rnd_int(0, 2)];
	for (int v = 0; v < s->nops; v++) {
		for (int i = 0; i < s->nsizes; i++) {
			s->fwd[v][i] = rnd_int(1, 20);
			s->bwd[v][i] = rnd_int(1, 30);
			s->wgrad[v][i] = rnd_int(0, 10);
		}
		s->act[v] = rnd_int(0, 1000);
		s->weight[v] = rnd_int(0, wm);
		s->out[v] = rnd_int(0, 500);
	}
	s->latency = rnd_int(0, 10);
	s->bandwidth = rnd_int(1, 50);
	s->memory = 1e14;
}

static bool size_listed(const struct graph *g, int x)
{
	for (int i = 0; i < g->nsizes; i++)
		if (g->microbatch_sizes[i] == x)
			return true;
	return false;
}

/* Evaluate the stage assignment of[] with degrees deg[] at micro-batch b:
 * its time per sample; INFINITY if a stage's memory exceeds the machine's;
 * -1 if partition_evaluate refuses it. */
static double eval_tps(const struct graph *g, int S, const int *of, const int *deg, int b,
		       bool chain)
{
	struct partition p;
	hand_partition(&p, g, S, of, deg, b, chain);
	double tps = partition_evaluate(g, &p) ? p.time_per_sample : -1;
	for (int s = 0; tps >= 0 && s < S; s++)
		if (p.stages[s].memory > g->machine.memory_bytes)
			tps = INFINITY;
	partition_release(&p);
	return tps;
}

/* A memory limit from 20 % to 100 % of the whole model's weights, gradients
 * and optimizer state plus 8 samples of every activation: some partitions
 * fit, some do not. */
static void tight_memory(struct gspec *s)
{
	double need = 0;
	for (int v = 0; v < s->nops; v++)
		need += 2 * s->weight[v] + s->weight[v] / s->bpp * s->opt_bpp + 8 * s->act[v];
	s->memory = need * rnd_int(20, 100) / 100 + 1;
}

/* ---- 3. the DP against brute force on chains ---------------------------------- */

/* Over degree vectors deg[s..S-1] (powers of two, sum <= left, b % k == 0
 * and b / k listed): the least time per sample among those that fit in
 * memory (INFINITY if none). */
static double best_degrees(const struct graph *g, int S, const int *of, int *deg, int s, int left,
			   int b)
{
	if (s == S) {
		double t = eval_tps(g, S, of, deg, b, false);
		if (t < 0)
			fail_msg("partition_evaluate refused a valid chain partition");
		return t;
	}
	double best = INFINITY;
	for (int k = 1; k <= left - (S - s - 1); k *= 2) {
		if (b % k || !size_listed(g, b / k))
			continue;
		deg[s] = k;
		double t = best_degrees(g, S, of, deg, s + 1, left - k, b);
		best = t < best ? t : best;
	}
	return best;
}

/* Every split of the chain 0..n-1 into contiguous stages, every degree
 * vector: the least time per sample at micro-batch b on D devices among
 * those that fit in memory (INFINITY if none). */
static double chain_brute(const struct graph *g, int D, int b)
{
	int n = g->nops, of[MAXOPS], deg[MAXOPS];
	double best = INFINITY;
	for (unsigned cuts = 0; cuts < 1u << (n - 1); cuts++) {
		int S = 0;
		for (int v = 0; v < n; v++) {
			if (v && cuts >> (v - 1) & 1)
				S++;
			of[v] = S;
		}
		S++;
		if (S > D)
			continue;
		double t = best_degrees(g, S, of, deg, 0, D, b);
		best = t < best ? t : best;
	}
	return best;
}

static void check_dp_result(const struct graph *g, const struct partition *p, int D)
{
	int of[MAXOPS];
	stage_of(g, p, of);
	assert_true(p->nstages >= 1 && p->nstages <= D);
	assert_true(p->devices_used <= D);
	assert_true(size_listed(g, p->microbatch));
	assert_int_equal(g->batch % p->microbatch, 0);
	assert_int_equal(p->microbatches, g->batch / p->microbatch);
	for (int s = 0; s < p->nstages; s++) {
		int k = p->stages[s].degree;
		assert_true(k >= 1 && (k & (k - 1)) == 0);
		assert_true(p->stages[s].memory <= g->machine.memory_bytes);
	}
}

/*
 * Random chains of 2-7 ops on 1-4 devices, one or two micro-batch sizes,
 * fixed seed. Even trials: memory to spare; odd trials: a tight limit that
 * some partitions meet and some do not. On a chain the DP's space is every
 * contiguous split with every degree, so it must match the brute force at
 * the micro-batch size it chose (its target search is exact); and when
 * it finds nothing, nothing fits at any size.
 */
static void test_dp_chain_brute(void **state)
{
	(void)state;
	static const int configs[][3] = {{1, 1}, {1, 2}, {1, 4}, {2, 1, 2}, {2, 2, 4}, {2, 1, 4}};
	rng_state = 12345;
	int trials = 0, tight_ok = 0, tight_none = 0;
	for (int trial = 0; trial < 300; trial++) {
		const int *c = configs[trial % 6];
		int n = rnd_int(2, 7), D = rnd_int(1, 4);
		bool tight = trial % 2;
		struct gspec s;
		spec_init(&s, n, c[0], c + 1, 8);
		random_costs(&s);
		if (tight)
			tight_memory(&s);
		s.devices = 4;
		for (int v = 0; v + 1 < n; v++)
			spec_edge(&s, v, v + 1);
		struct graph *g = spec_graph(&s);
		double tps[2];
		bool none = false;
		for (int seq = 0; seq < 2; seq++) {
			struct partition_options o = {.devices = D, .sequential = seq};
			struct partition p;
			struct error err = {{0}};
			if (partition_dp(g, &o, &p, &err)) {
				/* nothing fits: then no split at any size fits either */
				assert_contains(err.msg, "fits");
				for (int i = 0; i < g->nsizes; i++) {
					double best = chain_brute(g, D, g->microbatch_sizes[i]);
					if (best < INFINITY)
						fail_msg("trial %d (n %d, D %d, seq %d): the DP found no partition, but one fits at b %d (TPS %.17g): %s",
							 trial, n, D, seq, g->microbatch_sizes[i], best, err.msg);
				}
				none = true;
				tps[seq] = INFINITY;
				continue;
			}
			check_dp_result(g, &p, D);
			double best = chain_brute(g, D, p.microbatch);
			double dp = p.time_per_sample;
			if (dp < best * (1 - 1e-12) || dp > best * (1 + 1e-5))
				fail_msg("trial %d (n %d, D %d, seq %d, b %d): DP %.17g, brute force %.17g",
					 trial, n, D, seq, p.microbatch, dp, best);
			tps[seq] = dp;
			partition_release(&p);
		}
		/* a chain: the graph and the sequential pipeline are the same space */
		if (!(tps[0] == tps[1] || fabs(tps[0] - tps[1]) <= 1e-5 * tps[0]))
			fail_msg("trial %d: graph TPS %.17g, sequential TPS %.17g", trial, tps[0],
				 tps[1]);
		if (tight) {
			tight_ok += !none;
			tight_none += none;
		}
		graph_free(g);
		trials++;
	}
	assert_int_equal(trials, 300);
	/* the tight limits bite both ways */
	assert_true(tight_ok >= 20 && tight_none >= 10);
	print_message("chains under a tight memory limit: %d fit, %d do not\n", tight_ok, tight_none);
}

/* ---- 4. the DP against brute force on series-parallel graphs ------------------ */

struct shape {
	const char *name;
	int n, nedges;
	int edges[MAXE][2];
	const char *tree;        /* the SP tree (sp_format), worked out by hand */
	int nacyclic, nseg;      /* partitions: acyclic, SP-segment (0: not counted) */
};

static const struct shape sp_shapes[] = {
	/*
	 * Counts by hand. Diamond: 15 set partitions; a block with o0 and o3
	 * but not both o1 and o2 is not convex ({0,3}|1|2, {0,3}|{1,2},
	 * {0,1,3}|2, {0,2,3}|1): 11. Segments: [o0, P, o3] cut into runs,
	 * P alone whole or as o1 | o2: 1 + 2 + 2 = 5. Fork3-join: runs of
	 * [o0, P, o4], P alone cut into runs of o1, o2, o3 (4 ways): 3 + 4 = 7.
	 * Fork with two sinks: all 5 set partitions acyclic; segments
	 * {0,1,2}, 0|{1,2}, 0|1|2: 3.
	 */
	{"diamond", 4, 4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, "S(o0, P(o1, o2), o3)", 11, 5},
	{"fork3-join", 5, 6, {{0, 1}, {0, 2}, {0, 3}, {1, 4}, {2, 4}, {3, 4}},
	 "S(o0, P(o1, o2, o3), o4)", 0, 7},
	{"branches-tail", 7, 8, {{0, 1}, {1, 2}, {2, 5}, {0, 3}, {3, 5}, {0, 4}, {4, 5}, {5, 6}},
	 "S(o0, P(S(o1, o2), o3, o4), o5, o6)", 0, 0},
	{"nested", 7, 8, {{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {0, 5}, {4, 6}, {5, 6}},
	 "S(o0, P(S(o1, P(o2, o3), o4), o5), o6)", 0, 0},
	{"two-chains", 5, 3, {{0, 1}, {1, 2}, {3, 4}}, "P(S(o0, o1, o2), S(o3, o4))", 0, 0},
	{"fork-two-sinks", 3, 2, {{0, 1}, {0, 2}}, "S(o0, P(o1, o2))", 5, 3},
	{"join-two-sources", 6, 5, {{0, 2}, {1, 2}, {2, 3}, {3, 4}, {3, 5}},
	 "S(P(o0, o1), o2, o3, P(o4, o5))", 0, 0},
};

/* Whether the stage graph of the assignment of[] (S stages) is acyclic,
 * by Kahn's algorithm: then (and only then) a labelling lambda with
 * lambda(u) <= lambda(v) on every edge exists, the stages being its
 * classes. */
static bool quotient_acyclic(const struct graph *g, int S, const int *of)
{
	char adj[MAXOPS][MAXOPS] = {{0}};
	int indeg[MAXOPS] = {0}, queue[MAXOPS], head = 0, tail = 0;
	for (int e = 0; e < g->nedges; e++) {
		int a = of[g->edges[e][0]], b = of[g->edges[e][1]];
		if (a != b && !adj[a][b]) {
			adj[a][b] = 1;
			indeg[b]++;
		}
	}
	for (int s = 0; s < S; s++)
		if (!indeg[s])
			queue[tail++] = s;
	while (head < tail) {
		int a = queue[head++];
		for (int b = 0; b < S; b++)
			if (adj[a][b] && !--indeg[b])
				queue[tail++] = b;
	}
	return tail == S;
}

/*
 * The DP's space (partition.c's header): every stage meeting SP node t is
 * a run c_i..c_j of consecutive whole children of t, or lies inside one
 * child, recursively. Given that every stage meeting t lies inside t.
 */
static bool seg_valid(const struct sp_node *t, int n, const int *of)
{
	if (t->kind == SP_LEAF)
		return true;
	int child[MAXOPS];
	for (int v = 0; v < n; v++)
		child[v] = -1;
	for (int c = 0; c < t->nchildren; c++)
		for (int i = 0; i < t->children[c]->nops; i++)
			child[t->children[c]->ops[i]] = c;
	for (int u = 0; u < n; u++) {
		if (child[u] < 0)
			continue;
		int lo = child[u], hi = child[u];
		for (int v = 0; v < n; v++)
			if (of[v] == of[u] && child[v] >= 0) {
				lo = child[v] < lo ? child[v] : lo;
				hi = child[v] > hi ? child[v] : hi;
			}
		if (lo == hi)
			continue;
		/* several children: all of c_lo..c_hi, nothing else */
		for (int v = 0; v < n; v++) {
			bool in_run = child[v] >= lo && child[v] <= hi;
			if (in_run != (of[v] == of[u]))
				return false;
		}
	}
	for (int c = 0; c < t->nchildren; c++) {
		const struct sp_node *k = t->children[c];
		int s = of[k->ops[0]];
		bool inside = true;
		for (int v = 0; v < n; v++)
			if (of[v] == s && child[v] != c)
				inside = false;
		if (inside && !seg_valid(k, n, of))
			return false;
	}
	return true;
}

/* Every set partition of the ops (restricted growth strings), degree 1,
 * at micro-batch b: the least time per sample over the acyclic ones (*all)
 * and over those in the DP's space (*seg). partition_evaluate must refuse
 * exactly the cyclic ones. */
static void sp_brute(const struct graph *g, const struct sp_node *tree, int b, double *all,
		     double *seg, int *nacyclic, int *nseg)
{
	int n = g->nops, rg[MAXOPS] = {0}, mx[MAXOPS] = {0};
	*all = *seg = INFINITY;
	*nacyclic = *nseg = 0;
	for (;;) {
		int S = 0;
		for (int v = 0; v < n; v++)
			S = rg[v] + 1 > S ? rg[v] + 1 : S;
		bool acyclic = quotient_acyclic(g, S, rg);
		double t = eval_tps(g, S, rg, NULL, b, false);
		if (acyclic != (t >= 0))
			fail_msg("partition_evaluate %s an %s partition", t >= 0 ? "accepted" : "refused",
				 acyclic ? "acyclic" : "cyclic");
		if (acyclic) {
			(*nacyclic)++;
			*all = t < *all ? t : *all;
		}
		if (seg_valid(tree, n, rg)) {
			if (!acyclic)
				fail_msg("a partition into SP segments has a cyclic stage graph");
			(*nseg)++;
			*seg = t < *seg ? t : *seg;
		}
		/* next restricted growth string: rg[0] = 0, rg[v] <= max(rg[0..v-1]) + 1 */
		int v = n - 1;
		while (v > 0 && rg[v] == mx[v - 1] + 1)
			v--;
		if (v == 0)
			break;
		rg[v]++;
		mx[v] = rg[v] > mx[v - 1] ? rg[v] : mx[v - 1];
		for (int u = v + 1; u < n; u++) {
			rg[u] = 0;
			mx[u] = mx[v];
		}
	}
}

/*
 * Even seeds: memory to spare, so the DP minimises time per sample alone.
 * Odd seeds: a tight limit (tight_memory), which the in-flight counts
 * decide. The brute force keeps only partitions whose every stage fits.
 */
static void test_dp_sp_brute(void **state)
{
	(void)state;
	rng_state = 777;
	int cases = 0, tight_ok = 0, tight_none = 0, none_but_convex = 0;
	int gaps[2] = {0, 0};                 /* [tight] cases above the optimum */
	double worst[2] = {0, 0}, sum[2] = {0, 0};
	const char *worst_name[2] = {"", ""};
	for (size_t k = 0; k < sizeof sp_shapes / sizeof *sp_shapes; k++) {
		const struct shape *sh = &sp_shapes[k];
		for (int seed = 0; seed < 24; seed++) {
			struct gspec s;
			bool tight = seed % 2;
			/* one size: b / 2 is not listed, so every degree is 1 */
			spec_init(&s, sh->n, 1, (int[]){2}, 8);
			random_costs(&s);
			if (tight)
				tight_memory(&s);
			s.devices = sh->n;
			for (int e = 0; e < sh->nedges; e++)
				spec_edge(&s, sh->edges[e][0], sh->edges[e][1]);
			struct graph *g = spec_graph(&s);
			struct sp_node *tree = NULL;
			struct error err = {{0}};
			assert_int_equal(sp_decompose(g, &tree, &err), STATUS_OK);
			assert_non_null(tree);
			char *txt = sp_format(g, tree);
			assert_string_equal(txt, sh->tree);
			free(txt);

			int nacyclic, nseg;
			double all, seg;
			sp_brute(g, tree, 2, &all, &seg, &nacyclic, &nseg);
			assert_true(nacyclic >= nseg && nseg >= 1);
			if (sh->nacyclic)
				assert_int_equal(nacyclic, sh->nacyclic);
			if (sh->nseg)
				assert_int_equal(nseg, sh->nseg);

			struct partition_options o = {.devices = sh->n};
			struct partition p;
			cases++;
			if (partition_dp(g, &o, &p, &err)) {
				if (!tight)
					fail_msg("%s seed %d: %s", sh->name, seed, err.msg);
				assert_contains(err.msg, "fits");
				if (seg < INFINITY)
					fail_msg("%s seed %d: the DP found nothing, but an SP-segment partition fits (TPS %.17g)",
						 sh->name, seed, seg);
				none_but_convex += all < INFINITY;
				tight_none++;
				sp_free(tree);
				graph_free(g);
				continue;
			}
			tight_ok += tight;
			check_dp_result(g, &p, sh->n);
			assert_int_equal(p.microbatch, 2);
			int of[MAXOPS];
			stage_of(g, &p, of);
			if (!seg_valid(tree, g->nops, of))
				fail_msg("%s seed %d: the DP's stages are not SP segments", sh->name, seed);
			double dp = p.time_per_sample;
			if (dp < all * (1 - 1e-6))
				fail_msg("%s seed %d: DP %.17g below the brute-force minimum %.17g",
					 sh->name, seed, dp, all);
			/* within its own space the DP is exact (its target search is exact) */
			if (dp > seg * (1 + 1e-5))
				fail_msg("%s seed %d%s: DP %.17g above the best SP-segment partition %.17g",
					 sh->name, seed, tight ? " (tight memory)" : "", dp, seg);
			double gap = dp / all - 1;
			if (gap > 1e-6) {
				gaps[tight]++;
				sum[tight] += gap;
				if (gap > worst[tight]) {
					worst[tight] = gap;
					worst_name[tight] = sh->name;
				}
			}
			sp_free(tree);
			partition_release(&p);
			graph_free(g);
		}
	}
	for (int t = 0; t < 2; t++)
		print_message("DP vs all convex partitions, %s memory: %d of %d above the optimum, mean gap %.2f %%, worst %.2f %% (%s)\n",
			      t ? "tight" : "ample", gaps[t], t ? tight_ok : cases / 2,
			      gaps[t] ? 100 * sum[t] / gaps[t] : 0.0, 100 * worst[t], worst_name[t]);
	print_message("tight memory: %d without a fitting SP-segment partition (%d of them with a fitting convex one)\n",
		      tight_none, none_but_convex);
	assert_int_equal(cases, 168);
	assert_true(tight_ok >= 20);
}

/* ---- 5. memory -------------------------------------------------------------------- */

/*
 * Two ops a -> b, 1000 weight bytes each (static 4 * 1000 = 4000), 10 act
 * bytes per sample, size 1, batch 4; memory 6000 per device.
 *   one stage:  8000 + 1 * 1 * 20 = 8020 > 6000: does not fit;
 *   two stages: a: 4000 + 2 * 1 * 10 = 4020, b: 4000 + 1 * 1 * 10 = 4010.
 * Degree 2 does not help: b / 2 is not a listed size (and static memory is
 * not divided among replicas).
 */
static void test_memory_limit(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 2, 1, (int[]){1}, 4);
	spec_op(&s, 0, 5, 5, 1);
	spec_op(&s, 1, 5, 5, 1);
	for (int v = 0; v < 2; v++) {
		s.weight[v] = 1000;
		s.act[v] = 10;
	}
	spec_edge(&s, 0, 1);
	s.devices = 2;
	s.memory = 6000;
	struct graph *g = spec_graph(&s);
	struct partition_options o = {.devices = 1};
	struct partition p;
	struct error err = {{0}};
	assert_int_equal(partition_dp(g, &o, &p, &err), STATUS_ERROR);
	check_error_message("1 device", err.msg, "tg", "fits", "1 devices");
	partition_release(&p);

	o.devices = 2;
	if (partition_dp(g, &o, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.nstages, 2);
	for (int st = 0; st < 2; st++)
		assert_true(p.stages[st].memory <= 6000);
	assert_double_near(p.stages[0].memory, 4020, 1e-9);
	assert_double_near(p.stages[1].memory, 4010, 1e-9);
	partition_release(&p);
	graph_free(g);
}

/* ---- 6. errors ---------------------------------------------------------------------- */

static void test_errors(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 4, 1, (int[]){1}, 4);
	for (int v = 0; v < 4; v++)
		spec_op(&s, v, 1, 1, 0);
	/* the N graph: n0 -> n2, n1 -> n2, n1 -> n3 */
	spec_edge(&s, 0, 2);
	spec_edge(&s, 1, 2);
	spec_edge(&s, 1, 3);
	s.devices = 4;
	struct graph *g = spec_graph(&s);
	struct partition p;
	struct error err = {{0}};
	static const int bad[] = {0, -1, 5, 100};
	for (int i = 0; i < 4; i++) {
		struct partition_options o = {.devices = bad[i], .sequential = true};
		memset(&err, 0, sizeof err);
		assert_int_equal(partition_dp(g, &o, &p, &err), STATUS_ERROR);
		check_error_message("devices", err.msg, "tg", "devices", "4");
		assert_int_equal(p.nstages, 0);
		partition_release(&p);
	}
	struct partition_options o = {.devices = 4};
	assert_int_equal(partition_dp(g, &o, &p, &err), STATUS_ERROR);
	check_error_message("not SP", err.msg, "tg", "series-parallel", "not");
	partition_release(&p);

	o.sequential = true;
	if (partition_dp(g, &o, &p, &err))
		fail_msg("sequential on the N graph: %s", err.msg);
	check_dp_result(g, &p, 4);
	partition_release(&p);
	graph_free(g);
}

/* ---- 7. the bridge ---------------------------------------------------------------- */

/*
 * Diamond a -> b, a -> c, b -> d, c -> d (ops 0..3); size 2, batch 8 (m 4).
 *          fwd  bwd  wgrad  act   weight  out
 *   a      2.5  3    0.5    1000  10000   150
 *   b      4.2  1    0      3000   8000    70
 *   c      0.3  0.2  0       512   6000     0
 *   d      7    7    1.2       0  12000     0
 * Static memory 4W: a 40000, b 32000, c 24000, d 48000. Memory 52000: any
 * two ops together need at least b + c = 56000, so four one-op stages
 * (degree 1: size 1 is not listed). In flight a 3, b 2, c 2, d 1:
 *   a 40000 + 3 * 2 * 1000 = 46000, b 32000 + 2 * 2 * 3000 = 44000,
 *   c 24000 + 2 * 2 * 512 = 26048, d 48000: all fit.
 */
static struct graph *bridge_graph(void)
{
	struct gspec s;
	spec_init(&s, 4, 1, (int[]){2}, 8);
	spec_op(&s, 0, 2.5, 3, 0.5);
	spec_op(&s, 1, 4.2, 1, 0);
	spec_op(&s, 2, 0.3, 0.2, 0);
	spec_op(&s, 3, 7, 7, 1.2);
	double act[4] = {1000, 3000, 512, 0}, w[4] = {10000, 8000, 6000, 12000};
	double out[4] = {150, 70, 0, 0};
	for (int v = 0; v < 4; v++) {
		s.act[v] = act[v];
		s.weight[v] = w[v];
		s.out[v] = out[v];
	}
	spec_edge(&s, 0, 1);
	spec_edge(&s, 0, 2);
	spec_edge(&s, 1, 3);
	spec_edge(&s, 2, 3);
	s.devices = 4;
	s.memory = 52000;
	s.latency = 3;
	s.bandwidth = 100;
	return spec_graph(&s);
}

/* The bridge graph partitioned by the DP over 4 devices into *p. */
static struct graph *bridge_partitioned(struct partition *p)
{
	struct graph *g = bridge_graph();
	struct partition_options o = {.devices = 4};
	struct error err = {{0}};
	if (partition_dp(g, &o, p, &err))
		fail_msg("%s", err.msg);
	return g;
}

static void test_bridge(void **state)
{
	(void)state;
	struct partition p;
	struct error err = {{0}};
	struct graph *g = bridge_partitioned(&p);
	assert_int_equal(p.nstages, 4);
	assert_int_equal(p.microbatch, 2);
	int of[4];
	stage_of(g, &p, of);
	int want_inflight[4] = {3, 2, 2, 1};
	double want_mem[4] = {46000, 44000, 26048, 48000};
	for (int v = 0; v < 4; v++) {
		assert_int_equal(p.stages[of[v]].nops, 1);
		assert_int_equal(p.stages[of[v]].degree, 1);
		assert_int_equal(p.stages[of[v]].inflight, want_inflight[v]);
		assert_double_near(p.stages[of[v]].memory, want_mem[v], 1e-6);
	}

	struct instance *built = NULL;
	if (partition_instance(g, &p, "bridge-test", &built, &err))
		fail_msg("%s", err.msg);
	json_t *j = instance_to_json(built);
	instance_free(built);
	assert_non_null(j);
	char *text = json_dumps(j, JSON_INDENT(1));
	json_decref(j);
	assert_non_null(text);
	struct instance *in = NULL;
	if (instance_parse(text, "bridge.json", &in, &err))
		fail_msg("bridge output rejected: %s\n%s", err.msg, text);
	free(text);

	assert_string_equal(in->name, "bridge-test");
	assert_int_equal(in->devices, 4);
	assert_int_equal(in->stages, 4);
	assert_int_equal(in->microbatches, 4);
	assert_true(in->split_backward);
	for (int s = 0; s < 4; s++)
		assert_int_equal(in->stage_device[s], s);
	/* the stage edges, in the partition's order */
	assert_int_equal(in->nedges, p.nedges);
	for (int e = 0; e < p.nedges; e++) {
		assert_int_equal(in->edges[e][0], p.edges[e][0]);
		assert_int_equal(in->edges[e][1], p.edges[e][1]);
	}
	assert_stage_edges(&p, (const int[][2]){{of[0], of[1]}, {of[0], of[2]}, {of[1], of[3]},
						 {of[2], of[3]}},
			   4);
	/* comm = ceil(latency + out_bytes * b / bandwidth):
	 *   a->b, a->c: 3 + 150 * 2 / 100 = 6; b->d: 3 + 70 * 2 / 100 = 4.4 -> 5;
	 *   c->d: 3 + 0 = 3 */
	for (int e = 0; e < in->nedges; e++) {
		int a = in->edges[e][0], c = in->edges[e][1];
		int64_t want = a == of[0] ? 6 : a == of[1] && c == of[3] ? 5 : 3;
		if (in->edge_comm[e] != want)
			fail_msg("edge %d -> %d: comm %lld, expected %lld", a, c,
				 (long long)in->edge_comm[e], (long long)want);
	}
	/* costs: ceil, F and B at least 1:
	 *   F: a 2.5 -> 3, b 4.2 -> 5, c 0.3 -> 1, d 7 -> 7
	 *   B: a 3, b 1, c 0.2 -> 1, d 7;  W: a 0.5 -> 1, b 0, c 0, d 1.2 -> 2 */
	int64_t F[4] = {3, 5, 1, 7}, B[4] = {3, 1, 1, 7}, W[4] = {1, 0, 0, 2};
	/* memory F = ceil(act * b / 1024): a 2000 -> 2, b 6000 -> 6, c 1024 -> 1,
	 * d 0; limit = floor((52000 - 4W) / 1024): a 12000 -> 11, b 20000 -> 19,
	 * c 28000 -> 27, d 4000 -> 3 */
	int64_t mF[4] = {2, 6, 1, 0}, lim[4] = {11, 19, 27, 3};
	for (int v = 0; v < 4; v++) {
		int s = of[v];
		assert_int_equal(in->cost[OP_F][s], F[v]);
		assert_int_equal(in->cost[OP_B][s], B[v]);
		assert_int_equal(in->cost[OP_W][s], W[v]);
		assert_true(in->has_memory);
		assert_int_equal(in->mem[OP_F][s], mF[v]);
		assert_int_equal(in->mem[OP_B][s], -mF[v]);
		assert_int_equal(in->mem[OP_W][s], 0);
		assert_true(in->has_limit);
		assert_int_equal(in->limit[s], lim[v]);
	}
	instance_free(in);
	partition_release(&p);
	graph_free(g);
}

/* The typed instance of partition p equals, field by field and by digest,
 * what its file (instance_to_json, as `partition -o` writes it) parses to. */
static void check_typed_equals_file(const struct graph *g, const struct partition *p,
				    const char *label)
{
	struct instance *built = NULL;
	struct error err = {{0}};
	if (partition_instance(g, p, label, &built, &err))
		fail_msg("%s: %s", label, err.msg);
	struct instance *file = instance_round_trip(built, label);
	assert_instances_equal(built, file);
	/* the mapping's shape, by its definition (bridge.c): one device per
	 * stage, split backward, memory with a limit, every operator once */
	assert_int_equal(built->devices, p->nstages);
	assert_int_equal(built->stages, p->nstages);
	assert_int_equal(built->microbatches, p->microbatches);
	assert_string_equal(built->placement, "list");
	assert_true(built->split_backward && built->has_memory && built->has_limit);
	int ops = 0;
	for (int s = 0; s < p->nstages; s++) {
		assert_int_equal(built->stage_device[s], s);
		assert_int_equal(built->model->stages[s].nops, p->stages[s].nops);
		ops += built->model->stages[s].nops;
	}
	assert_int_equal(ops, g->nops);
	assert_string_equal(built->model->graph, g->name);
	instance_free(file);
	instance_free(built);
}

/*
 * The bridge builds the instance in code: on the diamond (the values of
 * test_bridge, by hand) and on bundled graphs, graph and sequential
 * pipelines, it equals the instance its written file parses to.
 */
static void test_bridge_typed(void **state)
{
	(void)state;
	struct partition p;
	struct error err = {{0}};
	struct graph *g = bridge_partitioned(&p);
	check_typed_equals_file(g, &p, "bridge-test");
	struct instance *in = NULL;
	assert_int_equal(partition_instance(g, &p, "bridge-test", &in, &err), STATUS_OK);
	int of[4];
	stage_of(g, &p, of);
	/* one op per stage, named o0..o3 (spec_graph) */
	for (int v = 0; v < 4; v++) {
		char name[8];
		snprintf(name, sizeof name, "o%d", v);
		assert_int_equal(in->model->stages[of[v]].nops, 1);
		assert_string_equal(in->model->stages[of[v]].ops[0].name, name);
	}
	/* F: a 2.5 -> 3, d 7; limit: a 11, d 3 (test_bridge's arithmetic) */
	assert_int_equal(in->cost[OP_F][of[0]], 3);
	assert_int_equal(in->cost[OP_F][of[3]], 7);
	assert_int_equal(in->limit[of[0]], 11);
	assert_int_equal(in->limit[of[3]], 3);
	instance_free(in);
	partition_release(&p);
	graph_free(g);

	static const char *const graphs[] = {"candle-uno-a100", "mmt-a100", "dlrm-a100",
					     "gpt-1.5b-a100"};
	for (size_t i = 0; i < sizeof graphs / sizeof *graphs; i++)
		for (int seq = 0; seq < 2; seq++) {
			char path[1024];
			snprintf(path, sizeof path, "%s/datasets/graphs/%s.json", PIPEOPT_SOURCE_DIR,
				 graphs[i]);
			if (graph_read(path, &g, &err))
				fail_msg("%s", err.msg);
			struct partition_options po = {.devices = 4, .sequential = seq};
			if (partition_dp(g, &po, &p, &err))
				fail_msg("%s: %s", graphs[i], err.msg);
			check_typed_equals_file(g, &p, graphs[i]);
			partition_release(&p);
			graph_free(g);
		}
}

/* ---- 8. the sequential pipeline ------------------------------------------------- */

/*
 * Fork a -> b, a -> c, a -> d; size 1, batch 4 (m 4); no comm. Times
 * (fwd + bwd): a 2, b 3, c 5, d 4. 10000 weight bytes each (static 40000)
 * and memory 45000: one op per stage, four stages.
 *   graph pipeline: in flight a 2, b c d 1; bottleneck 5; longest path
 *     a, c = 7: iteration 3 * 5 + 7 = 22.
 *   sequential: a chain in topological order, in flight 4, 3, 2, 1;
 *     the path is every stage: 14; iteration 3 * 5 + 14 = 29.
 */
static void test_sequential_fork(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 4, 1, (int[]){1}, 4);
	spec_op(&s, 0, 1, 1, 0);
	spec_op(&s, 1, 2, 1, 0);
	spec_op(&s, 2, 3, 2, 0);
	spec_op(&s, 3, 2, 2, 0);
	for (int v = 0; v < 4; v++)
		s.weight[v] = 10000;
	spec_edge(&s, 0, 1);
	spec_edge(&s, 0, 2);
	spec_edge(&s, 0, 3);
	s.devices = 4;
	s.memory = 45000;
	struct graph *g = spec_graph(&s);
	struct partition p;
	struct error err = {{0}};
	int of[4];

	struct partition_options o = {.devices = 4};
	if (partition_dp(g, &o, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.nstages, 4);
	assert_false(p.chain);
	stage_of(g, &p, of);
	assert_int_equal(p.stages[of[0]].inflight, 2);
	for (int v = 1; v < 4; v++)
		assert_int_equal(p.stages[of[v]].inflight, 1);
	assert_int_equal(p.depth, 2);
	assert_stage_edges(&p, (const int[][2]){{of[0], of[1]}, {of[0], of[2]}, {of[0], of[3]}}, 3);
	assert_double_near(p.bottleneck, 5, 1e-9);
	assert_double_near(p.estimate, 22, 1e-9);
	partition_release(&p);

	o.sequential = true;
	if (partition_dp(g, &o, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.nstages, 4);
	assert_true(p.chain);
	stage_of(g, &p, of);
	int S = p.nstages;
	for (int st = 0; st < S; st++)
		assert_int_equal(p.stages[st].inflight, S - st);
	assert_int_equal(p.depth, S);
	/* a chain s -> s + 1, plus the op edges, which all go forward */
	for (int st = 0; st + 1 < S; st++)
		if (!has_edge(&p, st, st + 1))
			fail_msg("chain edge %d -> %d missing", st, st + 1);
	for (int e = 0; e < p.nedges; e++)
		assert_true(p.edges[e][0] < p.edges[e][1]);
	assert_int_equal(of[0], 0);
	int want[6][2], n = 0;
	for (int st = 0; st + 1 < S; st++) {
		want[n][0] = st;
		want[n++][1] = st + 1;
	}
	for (int v = 1; v < 4; v++)
		if (of[v] != 1) {
			want[n][0] = 0;
			want[n++][1] = of[v];
		}
	assert_stage_edges(&p, (const int(*)[2])want, n);
	assert_double_near(p.bottleneck, 5, 1e-9);
	assert_double_near(p.estimate, 29, 1e-9);
	partition_release(&p);
	graph_free(g);
}

/* The bridge diamond in sequential mode: four stages a, b, c, d in a row
 * (in flight 4, 3, 2, 1: b's memory 32000 + 3 * 2 * 3000 = 50000 still
 * fits 52000). */
static void test_sequential_diamond(void **state)
{
	(void)state;
	struct graph *g = bridge_graph();
	struct partition_options o = {.devices = 4, .sequential = true};
	struct partition p;
	struct error err = {{0}};
	if (partition_dp(g, &o, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.nstages, 4);
	assert_inflight(&p, (int[]){4, 3, 2, 1});
	assert_int_equal(p.depth, 4);
	int of[4];
	stage_of(g, &p, of);
	assert_int_equal(of[0], 0);
	assert_int_equal(of[3], 3);
	for (int st = 0; st + 1 < 4; st++)
		assert_true(has_edge(&p, st, st + 1));
	for (int e = 0; e < p.nedges; e++)
		assert_true(p.edges[e][0] < p.edges[e][1]);
	/* a 46000 -> 40000 + 4 * 2000 = 48000; b (in flight 3 or 2, stage 1
	 * or 2): 50000 or 44000 */
	assert_double_near(p.stages[0].memory, 48000, 1e-6);
	assert_double_near(p.stages[of[1]].memory, of[1] == 1 ? 50000 : 44000, 1e-6);
	for (int st = 0; st < 4; st++)
		assert_true(p.stages[st].memory <= 52000);
	partition_release(&p);
	graph_free(g);
}

/* ---- micro-batch size choice -------------------------------------------------- */

/*
 * Chain a -> b, sizes {1, 4}, batch 4, 2 devices, no comm, no weights.
 * Per op t(1) = 10 (fwd 4 + bwd 6), t(4) = 36 (fwd 16 + bwd 20).
 *   b = 1 (m = 4): two stages of 10 (TPS 10; one stage: 20); iteration
 *     3 * 10 + 20 = 50;
 *   b = 4 (m = 1): two stages of 36 (TPS 9; one stage: 72 / 4 = 18);
 *     iteration 0 * 36 + 72 = 72.
 * The shorter iteration wins: b = 1, although b = 4 has the lower TPS.
 */
static void test_size_choice(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 2, 2, (int[]){1, 4}, 4);
	for (int v = 0; v < 2; v++) {
		s.fwd[v][0] = 4;
		s.bwd[v][0] = 6;
		s.fwd[v][1] = 16;
		s.bwd[v][1] = 20;
	}
	spec_edge(&s, 0, 1);
	s.devices = 2;
	struct graph *g = spec_graph(&s);
	struct partition_options o = {.devices = 2};
	struct partition p;
	struct error err = {{0}};
	if (partition_dp(g, &o, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.microbatch, 1);
	assert_int_equal(p.microbatches, 4);
	assert_int_equal(p.nstages, 2);
	assert_double_near(p.time_per_sample, 10, 1e-4);
	assert_double_near(p.estimate, 50, 1e-9);
	partition_release(&p);

	/* only size 4 offered (partition_options.sizes): b = 4, TPS 9 */
	o.nsizes = 1;
	o.sizes = (int[]){4};
	if (partition_dp(g, &o, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.microbatch, 4);
	assert_int_equal(p.nstages, 2);
	assert_double_near(p.time_per_sample, 9, 1e-4);
	assert_double_near(p.estimate, 72, 1e-9);
	partition_release(&p);
	graph_free(g);
}

/* ---- data parallelism and in-flight counts in the DP --------------------------- */

/*
 * One op, sizes {1, 2}, batch 4, 2 devices, no weights (no allreduce):
 * t(1) = 10, t(2) = 30.
 *   b = 2, k = 2: 1 sample per device, t = 10, TPS 5, m = 2: iteration 20;
 *   b = 2, k = 1: t = 30, TPS 15;  b = 1: t = 10, TPS 10, iteration 40.
 * The DP must replicate: one stage of degree 2 at b = 2.
 */
static void test_dp_data_parallel(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 1, 2, (int[]){1, 2}, 4);
	s.fwd[0][0] = 4;
	s.bwd[0][0] = 6;
	s.fwd[0][1] = 12;
	s.bwd[0][1] = 18;
	s.devices = 2;
	struct graph *g = spec_graph(&s);
	struct partition_options o = {.devices = 2};
	struct partition p;
	struct error err = {{0}};
	if (partition_dp(g, &o, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.nstages, 1);
	assert_int_equal(p.stages[0].degree, 2);
	assert_int_equal(p.microbatch, 2);
	assert_int_equal(p.devices_used, 2);
	assert_double_near(p.time_per_sample, 5, 1e-4);
	assert_double_near(p.estimate, 20, 1e-9);
	partition_release(&p);
	graph_free(g);
}

/*
 * a -> b1 -> b2 -> d and a -> c -> d: S(a, P(S(b1, b2), c), d). Weights
 * 10000 each (static 40000; two ops 80000 never fit): five one-op stages,
 * in flight a 4 (a, b1, b2, d), b1 3, b2 2, c 2, d 1. Only a keeps
 * activations: 2000 bytes per sample, size 1: a needs 40000 + 4 * 2000 =
 * 48000. With 50000 per device that fits; with 47000 nothing does (an
 * in-flight count of 3 for a, the shorter branch, would wrongly fit:
 * 46000). The parallel part's entry count is the larger of its branches'.
 */
static void test_dp_parallel_entry_count(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 5, 1, (int[]){1}, 4);
	for (int v = 0; v < 5; v++) {
		spec_op(&s, v, 1, 1, 0);
		s.weight[v] = 10000;
	}
	s.act[0] = 2000;
	spec_edge(&s, 0, 1);   /* a -> b1 */
	spec_edge(&s, 1, 2);   /* b1 -> b2 */
	spec_edge(&s, 2, 4);   /* b2 -> d */
	spec_edge(&s, 0, 3);   /* a -> c */
	spec_edge(&s, 3, 4);   /* c -> d */
	s.devices = 5;
	s.memory = 50000;
	struct graph *g = spec_graph(&s);
	struct partition_options o = {.devices = 5};
	struct partition p;
	struct error err = {{0}};
	if (partition_dp(g, &o, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.nstages, 5);
	int of[5];
	stage_of(g, &p, of);
	int want[5] = {4, 3, 2, 2, 1};
	for (int v = 0; v < 5; v++)
		assert_int_equal(p.stages[of[v]].inflight, want[v]);
	assert_double_near(p.stages[of[0]].memory, 48000, 1e-9);
	partition_release(&p);
	graph_free(g);

	s.memory = 47000;
	g = spec_graph(&s);
	if (!partition_dp(g, &o, &p, &err))
		fail_msg("47000 bytes per device: the DP returned %d stages, stage of a needs %.17g",
			 p.nstages, p.stages[0].memory);
	assert_contains(err.msg, "fits");
	partition_release(&p);
	graph_free(g);
}

/* ---- the largest machine ---------------------------------------------------------- */

/*
 * One op, sizes {1, 4096}, batch 4096, 4096 devices (the most a machine may
 * have). t(1) = 1, t(4096) = 1e6, no weights: the best plan is b = 4096 on
 * k = 4096 replicas (1 sample each): t = 1, TPS 1 / 4096, one micro-batch,
 * iteration 1 (b = 1 gives iteration 4096). The DP packs a stage's degree
 * into a 12-bit field of its choice code (encode: how | k << 4, decoded
 * with & 0xfff), so 4096 comes back as degree 0 and partition_evaluate
 * divides by it. Run in a child process: the failure is a crash.
 */
static void test_degree_4096(void **state)
{
	(void)state;
	struct gspec s;
	spec_init(&s, 1, 2, (int[]){1, 4096}, 4096);
	s.fwd[0][0] = 1;
	s.fwd[0][1] = 1e6;
	s.devices = 4096;
	struct graph *g = spec_graph(&s);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* cmocka's handlers would resume the test run in the child */
		static const int sigs[] = {SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGABRT};
		for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
			signal(sigs[i], SIG_DFL);
		struct partition_options o = {.devices = 4096};
		struct partition p;
		struct error err = {{0}};
		int ok = !partition_dp(g, &o, &p, &err) && p.nstages == 1 &&
			 p.stages[0].degree == 4096 && p.microbatch == 4096 &&
			 fabs(p.estimate - 1) < 1e-9;
		_exit(ok ? 0 : 1);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	graph_free(g);
	if (WIFSIGNALED(status))
		fail_msg("partition_dp on 4096 devices died with signal %d", WTERMSIG(status));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("partition_dp on 4096 devices: not one stage of degree 4096 at b = 4096 (exit %d; a sanitizer's runtime error exits 1)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inflight_chain),
		cmocka_unit_test(test_inflight_candle),
		cmocka_unit_test(test_inflight_diamond),
		cmocka_unit_test(test_evaluate_rejects_cycle),
		cmocka_unit_test(test_cost_two_stages),
		cmocka_unit_test(test_cost_one_stage_degree_two),
		cmocka_unit_test(test_simulate),
		cmocka_unit_test(test_evaluate_twice_same_result),
		cmocka_unit_test(test_dp_chain_brute),
		cmocka_unit_test(test_dp_sp_brute),
		cmocka_unit_test(test_memory_limit),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bridge),
		cmocka_unit_test(test_bridge_typed),
		cmocka_unit_test(test_sequential_fork),
		cmocka_unit_test(test_sequential_diamond),
		cmocka_unit_test(test_size_choice),
		cmocka_unit_test(test_dp_data_parallel),
		cmocka_unit_test(test_dp_parallel_entry_count),
		cmocka_unit_test(test_degree_4096),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
