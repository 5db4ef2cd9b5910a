/*
 * Tests for graph/graph.c (model graph parsing and validation),
 * graph/costs.c (cost tables) and graph/sp.c (series-parallel
 * decomposition, SP-ization, critical path).
 *
 * Every expected value is worked out by hand from graph.h / sp.h, or comes
 * from an independent brute force written here (transitive closure and the
 * N-free test of series-parallel partial orders), never from the code
 * under test.
 */
#include "test_helpers.h"

#include <stdbool.h>
#include <unistd.h>

#include "graph/graph.h"
#include "graph/sp.h"

/* ---- helpers ------------------------------------------------------------- */

#define MAXN 8

/* A growable text buffer for building JSON. */
struct text {
	char *s;
	size_t len, cap;
};

static void tcat(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tcat(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		while (cap < t->len + (size_t)n + 1)
			cap *= 2;
		char *s = realloc(t->s, cap);
		assert_non_null(s);
		t->s = s;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/*
 * The JSON text of a graph with ops n0..n{n-1} and edges e[0..m) (given by
 * operator name). fwd/bwd/wgrad per op, or NULL: fwd 1, bwd 1, no wgrad.
 * One micro-batch size, so each number is broadcast to it.
 */
static char *graph_json(int n, const int (*e)[2], int m, const double *fwd,
			const double *bwd, const double *wgrad)
{
	struct text t = {0};
	tcat(&t, "{\"batch\": 4, \"microbatch_sizes\": [1],"
		 " \"machine\": {\"devices\": 2, \"memory_bytes\": 1e9,"
		 " \"link_latency_us\": 1, \"link_bandwidth\": 100},\n \"ops\": [");
	for (int i = 0; i < n; i++) {
		tcat(&t, "%s{\"name\": \"n%d\", \"fwd\": %.17g, \"bwd\": %.17g", i ? ", " : "", i,
		     fwd ? fwd[i] : 1.0, bwd ? bwd[i] : 1.0);
		if (wgrad)
			tcat(&t, ", \"wgrad\": %.17g", wgrad[i]);
		tcat(&t, "}");
	}
	tcat(&t, "],\n \"edges\": [");
	for (int k = 0; k < m; k++)
		tcat(&t, "%s[\"n%d\", \"n%d\"]", k ? ", " : "", e[k][0], e[k][1]);
	tcat(&t, "]}\n");
	return t.s;
}

static struct graph *make_graph_w(int n, const int (*e)[2], int m, const double *fwd,
				  const double *bwd, const double *wgrad)
{
	char *json = graph_json(n, e, m, fwd, bwd, wgrad);
	struct graph *g = NULL;
	struct error err = {{0}};
	if (graph_parse(json, "test.json", &g, &err)) {
		free(json);
		fail_msg("graph rejected: %s", err.msg);
	}
	free(json);
	assert_non_null(g);
	return g;
}

static struct graph *make_graph(int n, const int (*e)[2], int m)
{
	return make_graph_w(n, e, m, NULL, NULL, NULL);
}

static struct graph *parse_ok(const char *json)
{
	struct graph *g = NULL;
	struct error err = {{0}};
	if (graph_parse(json, "test.json", &g, &err))
		fail_msg("graph rejected: %s", err.msg);
	assert_non_null(g);
	return g;
}

/* The decomposition as text; NULL when g is not SP. */
static char *sp_text(const struct graph *g)
{
	struct sp_node *t = (struct sp_node *)&t;   /* must be overwritten */
	struct error err = {{0}};
	if (sp_decompose(g, &t, &err))
		fail_msg("sp_decompose failed: %s", err.msg);
	if (!t)
		return NULL;
	char *s = sp_format(g, t);
	assert_non_null(s);
	sp_free(t);
	return s;
}

/* Transitive closure of edges e[0..m) on n nodes: r[u][v] = u reaches v by
 * a path of >= 1 edge. Plain Floyd-Warshall. */
static void closure(int n, const int (*e)[2], int m, bool r[MAXN][MAXN])
{
	memset(r, 0, sizeof(bool[MAXN][MAXN]));
	for (int k = 0; k < m; k++)
		r[e[k][0]][e[k][1]] = true;
	for (int k = 0; k < n; k++)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (r[i][k] && r[k][j])
					r[i][j] = true;
}

/*
 * N-free test of the partial order r (Valdes, Tarjan and Lawler, "The
 * recognition of series parallel digraphs", SIAM J. Comput. 11(2), 1982:
 * a DAG is vertex series-parallel iff its transitive closure has no induced
 * N, i.e. the partial order is series-parallel iff it is N-free).
 * An N: distinct a, b, c, d with a<c, b<c, b<d and the pairs {a,d}, {a,b},
 * {c,d} incomparable.
 */
static bool n_free(int n, bool r[MAXN][MAXN])
{
#define INCOMP(x, y) (!r[x][y] && !r[y][x])
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			for (int c = 0; c < n; c++)
				for (int d = 0; d < n; d++) {
					if (a == b || a == c || a == d || b == c || b == d || c == d)
						continue;
					if (r[a][c] && r[b][c] && r[b][d] && INCOMP(a, d) &&
					    INCOMP(a, b) && INCOMP(c, d))
						return false;
				}
	return true;
#undef INCOMP
}

/* Longest node-weighted path by relaxation (edges in any index order). */
static double longest_path(int n, const int (*e)[2], int m, const double *w)
{
	double f[MAXN], best = 0;
	for (int v = 0; v < n; v++)
		f[v] = w[v];
	for (int round = 0; round < n; round++)
		for (int k = 0; k < m; k++)
			if (f[e[k][0]] + w[e[k][1]] > f[e[k][1]])
				f[e[k][1]] = f[e[k][0]] + w[e[k][1]];
	for (int v = 0; v < n; v++)
		best = f[v] > best ? f[v] : best;
	return best;
}

/* xorshift64*, fixed seed per test. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static int rng_int(uint64_t *s, int n)
{
	return (int)(rng_next(s) >> 33) % n;
}

/* A random DAG on n nodes: each i->j (i<j) with probability pct%. */
static int random_dag(uint64_t *s, int n, int pct, int (*e)[2])
{
	int m = 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (rng_int(s, 100) < pct) {
				e[m][0] = i;
				e[m][1] = j;
				m++;
			}
	return m;
}

/*
 * Structural checks of an SP tree against the reachability r of g:
 * ops sorted and in range; a LEAF holds its one op; inner nodes have >= 2
 * children whose ops partition the node's; SERIES: every op of an earlier
 * child reaches every op of a later child, and no child is SERIES (cut at
 * every point); PARALLEL: no op of one child reaches an op of another, no
 * child is PARALLEL (components are maximal), children ordered by their
 * smallest op.
 */
static void check_node(const struct graph *g, const struct sp_node *t, bool r[MAXN][MAXN])
{
	assert_true(t->nops >= 1 && t->nops <= g->nops);
	for (int i = 0; i < t->nops; i++) {
		assert_true(t->ops[i] >= 0 && t->ops[i] < g->nops);
		if (i)
			assert_true(t->ops[i - 1] < t->ops[i]);
	}
	if (t->kind == SP_LEAF) {
		assert_int_equal(t->nops, 1);
		assert_int_equal(t->op, t->ops[0]);
		assert_int_equal(t->nchildren, 0);
		return;
	}
	assert_true(t->kind == SP_SERIES || t->kind == SP_PARALLEL);
	assert_true(t->nchildren >= 2);
	int owner[MAXN];
	for (int v = 0; v < MAXN; v++)
		owner[v] = -1;
	int total = 0;
	for (int c = 0; c < t->nchildren; c++) {
		const struct sp_node *ch = t->children[c];
		check_node(g, ch, r);
		assert_true(ch->kind != t->kind);
		for (int i = 0; i < ch->nops; i++) {
			int v = ch->ops[i];
			if (owner[v] >= 0)
				fail_msg("op %d in children %d and %d", v, owner[v], c);
			owner[v] = c;
		}
		total += ch->nops;
		if (t->kind == SP_PARALLEL && c)
			assert_true(t->children[c - 1]->ops[0] < ch->ops[0]);
	}
	assert_int_equal(total, t->nops);
	for (int i = 0; i < t->nops; i++)
		assert_true(owner[t->ops[i]] >= 0);
	for (int i = 0; i < t->nops; i++)
		for (int j = 0; j < t->nops; j++) {
			int u = t->ops[i], v = t->ops[j], cu = owner[u], cv = owner[v];
			if (cu == cv)
				continue;
			if (t->kind == SP_SERIES && cu < cv && !r[u][v])
				fail_msg("SERIES: op %d (child %d) does not reach op %d (child %d)", u, cu,
					 v, cv);
			if (t->kind == SP_PARALLEL && r[u][v])
				fail_msg("PARALLEL: op %d (child %d) reaches op %d (child %d)", u, cu, v,
					 cv);
		}
}

static void check_tree(const struct graph *g, const struct sp_node *t, bool r[MAXN][MAXN])
{
	assert_int_equal(t->nops, g->nops);
	check_node(g, t, r);
}

/* The graph's current edges as a closure. */
static void graph_closure(const struct graph *g, bool r[MAXN][MAXN])
{
	assert_true(g->nops <= MAXN);
	closure(g->nops, (const int (*)[2])g->edges, g->nedges, r);
}

/* The derived arrays agree with the edge list; topo is a topological order. */
static void check_derived(const struct graph *g)
{
	int n = g->nops, pos[MAXN];
	assert_true(n <= MAXN);
	for (int v = 0; v < n; v++)
		pos[v] = -1;
	for (int i = 0; i < n; i++) {
		int v = g->topo[i];
		assert_true(v >= 0 && v < n && pos[v] < 0);
		pos[v] = i;
	}
	assert_int_equal(g->pred_start[n], g->nedges);
	assert_int_equal(g->succ_start[n], g->nedges);
	for (int k = 0; k < g->nedges; k++) {
		int u = g->edges[k][0], v = g->edges[k][1];
		assert_true(u >= 0 && u < n && v >= 0 && v < n && u != v);
		assert_true(pos[u] < pos[v]);
		int found = 0;
		for (int i = g->succ_start[u]; i < g->succ_start[u + 1]; i++)
			found += g->succ[i] == v;
		for (int i = g->pred_start[v]; i < g->pred_start[v + 1]; i++)
			found += g->pred[i] == u;
		assert_int_equal(found, 2);
		for (int l = 0; l < k; l++)
			if (g->edges[l][0] == u && g->edges[l][1] == v)
				fail_msg("edge %d -> %d appears twice", u, v);
	}
}

/* ---- 1. parsing ---------------------------------------------------------- */

static const char full_example[] =
	"{\n"
	"  \"name\": \"tiny\", \"description\": \"three ops\", \"provenance\": \"by hand\",\n"
	"  \"batch\": 8, \"microbatch_sizes\": [1, 2, 4],\n"
	"  \"machine\": {\"name\": \"box\", \"devices\": 4, \"memory_bytes\": 8e9,\n"
	"              \"link_latency_us\": 5, \"link_bandwidth\": 25000},\n"
	"  \"ops\": [\n"
	"    {\"name\": \"emb\", \"kind\": \"embedding\", \"fwd\": [10, 18, 35], \"bwd\": 7,\n"
	"     \"wgrad\": [1, 2, 3], \"act_bytes\": 100, \"weight_bytes\": 2048,\n"
	"     \"out_bytes\": 64, \"shape\": [8, 16]},\n"
	"    {\"name\": \"mlp\", \"kind\": \"linear\", \"fwd\": 4, \"bwd\": [5, 6, 7]},\n"
	"    {\"name\": \"head\", \"kind\": \"linear\", \"fwd\": 2.5, \"bwd\": 0}\n"
	"  ],\n"
	"  \"edges\": [[\"emb\", \"mlp\"], [1, 2], [\"emb\", 2]]\n"
	"}\n";

static void assert_doubles(const double *got, const double *want, int n)
{
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("entry %d: got %.17g, expected %.17g", i, got[i], want[i]);
}

static void test_parse_full(void **state)
{
	struct graph *g = parse_ok(full_example);
	assert_string_equal(g->name, "tiny");
	assert_int_equal(g->nops, 3);
	assert_int_equal(g->nedges, 3);
	assert_int_equal(g->batch, 8);
	assert_int_equal(g->nsizes, 3);
	assert_int_equal(g->microbatch_sizes[0], 1);
	assert_int_equal(g->microbatch_sizes[1], 2);
	assert_int_equal(g->microbatch_sizes[2], 4);

	assert_string_equal(g->machine.name, "box");
	assert_int_equal(g->machine.devices, 4);
	assert_double_near(g->machine.memory_bytes, 8e9, 0);
	assert_double_near(g->machine.link_latency_us, 5, 0);
	assert_double_near(g->machine.link_bandwidth, 25000, 0);
	assert_double_near(g->machine.optimizer_bytes_per_param, 8, 0);   /* default */
	assert_double_near(g->machine.bytes_per_param, 4, 0);             /* default */

	assert_string_equal(g->ops[0].name, "emb");
	assert_string_equal(g->ops[0].kind, "embedding");
	assert_doubles(g->ops[0].fwd, (double[]){10, 18, 35}, 3);
	assert_doubles(g->ops[0].bwd, (double[]){7, 7, 7}, 3);       /* broadcast */
	assert_doubles(g->ops[0].wgrad, (double[]){1, 2, 3}, 3);
	assert_double_near(g->ops[0].act_bytes, 100, 0);
	assert_double_near(g->ops[0].weight_bytes, 2048, 0);
	assert_double_near(g->ops[0].out_bytes, 64, 0);

	assert_string_equal(g->ops[1].name, "mlp");
	assert_doubles(g->ops[1].fwd, (double[]){4, 4, 4}, 3);
	assert_doubles(g->ops[1].bwd, (double[]){5, 6, 7}, 3);
	assert_doubles(g->ops[1].wgrad, (double[]){0, 0, 0}, 3);     /* default */
	assert_double_near(g->ops[1].act_bytes, 0, 0);
	assert_double_near(g->ops[1].weight_bytes, 0, 0);
	assert_double_near(g->ops[1].out_bytes, 0, 0);

	assert_string_equal(g->ops[2].name, "head");
	assert_doubles(g->ops[2].fwd, (double[]){2.5, 2.5, 2.5}, 3);
	assert_doubles(g->ops[2].bwd, (double[]){0, 0, 0}, 3);

	/* edges by name, by index, and mixed */
	static const int want[3][2] = {{0, 1}, {1, 2}, {0, 2}};
	for (int e = 0; e < 3; e++) {
		assert_int_equal(g->edges[e][0], want[e][0]);
		assert_int_equal(g->edges[e][1], want[e][1]);
	}
	check_derived(g);
	/* the chain emb -> mlp -> head has one topological order */
	assert_int_equal(g->topo[0], 0);
	assert_int_equal(g->topo[1], 1);
	assert_int_equal(g->topo[2], 2);

	assert_int_equal(graph_find(g, "mlp"), 1);
	assert_int_equal(graph_find(g, "head"), 2);
	assert_int_equal(graph_find(g, "nope"), -1);
	/* emb at size index 1: 18 + 7 + 2; mlp at 2: 4 + 7 + 0 */
	assert_double_near(graph_op_time(g, 0, 1), 27, 0);
	assert_double_near(graph_op_time(g, 1, 2), 11, 0);
	graph_free(g);
}

static void test_parse_machine_explicit(void **state)
{
	struct graph *g = parse_ok(
		"{\"batch\": 2, \"microbatch_sizes\": [2],"
		" \"machine\": {\"devices\": 1, \"memory_bytes\": 1000, \"link_latency_us\": 0,"
		" \"link_bandwidth\": 3, \"optimizer_bytes_per_param\": 12, \"bytes_per_param\": 2},"
		" \"ops\": [{\"name\": \"x\", \"fwd\": 1, \"bwd\": [2]}]}");
	assert_int_equal(g->nops, 1);
	assert_int_equal(g->nedges, 0);
	assert_int_equal(g->batch, 2);
	assert_int_equal(g->nsizes, 1);
	assert_int_equal(g->microbatch_sizes[0], 2);   /* equal to the batch is fine */
	assert_int_equal(g->machine.devices, 1);
	assert_double_near(g->machine.memory_bytes, 1000, 0);
	assert_double_near(g->machine.link_latency_us, 0, 0);
	assert_double_near(g->machine.link_bandwidth, 3, 0);
	assert_double_near(g->machine.optimizer_bytes_per_param, 12, 0);
	assert_double_near(g->machine.bytes_per_param, 2, 0);
	assert_double_near(g->ops[0].bwd[0], 2, 0);
	assert_int_equal(g->topo[0], 0);
	graph_free(g);
}

/* The same DAG with edges given by name, by index and mixed parses alike. */
static void test_parse_edges_name_index(void **state)
{
#define HEAD "{\"batch\": 1, \"microbatch_sizes\": [1], \"machine\": {\"devices\": 1," \
	" \"memory_bytes\": 1, \"link_latency_us\": 0, \"link_bandwidth\": 1}," \
	" \"ops\": [{\"name\": \"a\", \"fwd\": 1, \"bwd\": 1}, {\"name\": \"b\", \"fwd\": 1, \"bwd\": 1}," \
	" {\"name\": \"c\", \"fwd\": 1, \"bwd\": 1}, {\"name\": \"d\", \"fwd\": 1, \"bwd\": 1}], "
	static const char *const texts[] = {
		HEAD "\"edges\": [[\"d\", \"a\"], [\"c\", \"b\"], [\"d\", \"c\"]]}",
		HEAD "\"edges\": [[3, 0], [2, 1], [3, 2]]}",
		HEAD "\"edges\": [[\"d\", 0], [2, \"b\"], [3, \"c\"]]}",
	};
#undef HEAD
	static const int want[3][2] = {{3, 0}, {2, 1}, {3, 2}};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		struct graph *g = parse_ok(texts[i]);
		assert_int_equal(g->nedges, 3);
		for (int e = 0; e < 3; e++)
			if (g->edges[e][0] != want[e][0] || g->edges[e][1] != want[e][1])
				fail_msg("text %zu edge %d: %d -> %d, expected %d -> %d", i, e,
					 g->edges[e][0], g->edges[e][1], want[e][0], want[e][1]);
		check_derived(g);
		/* d is the only source: first in every topological order; b, the
		 * end of d -> c -> b, is after c */
		assert_int_equal(g->topo[0], 3);
		graph_free(g);
	}
}

/* An empty edge list and no edges at all both mean no edges. */
static void test_parse_no_edges(void **state)
{
	int n = 3;
	struct graph *g = make_graph(n, NULL, 0);
	assert_int_equal(g->nedges, 0);
	check_derived(g);
	graph_free(g);
	g = parse_ok("{\"batch\": 1, \"microbatch_sizes\": [1], \"machine\": {\"devices\": 1,"
		     " \"memory_bytes\": 1, \"link_latency_us\": 0, \"link_bandwidth\": 1},"
		     " \"ops\": [{\"name\": \"a\", \"fwd\": 1, \"bwd\": 1},"
		     " {\"name\": \"b\", \"fwd\": 1, \"bwd\": 1}]}");
	assert_int_equal(g->nops, 2);
	assert_int_equal(g->nedges, 0);
	check_derived(g);
	graph_free(g);
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/pipeopt-test-graph-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(full_example, f);
	fclose(f);
	struct graph *g = NULL;
	struct error err = {{0}};
	enum status st = graph_read(path, &g, &err);
	unlink(path);
	if (st)
		fail_msg("graph_read failed: %s", err.msg);
	assert_int_equal(g->nops, 3);
	assert_int_equal(g->nedges, 3);
	graph_free(g);
}

static void test_read_missing(void **state)
{
	const char *path = "/nonexistent-dir/no-such-graph.json";
	struct graph *g = (struct graph *)&g;
	struct error err = {{0}};
	assert_int_equal(graph_read(path, &g, &err), STATUS_ERROR);
	assert_null(g);
	check_error_message("missing file", err.msg, path, "cannot open", "");
}

/* ---- 2. rejections ------------------------------------------------------- */

struct reject_case {
	const char *name;
	const char *json;
	const char *key;    /* the key the message must name */
	const char *what;   /* another substring it must contain */
};

#define SIZES "\"batch\": 8, \"microbatch_sizes\": [1, 2]"
#define MACH_BODY "\"devices\": 2, \"memory_bytes\": 1e9, \"link_latency_us\": 5, \"link_bandwidth\": 100"
#define MACHINE "\"machine\": {" MACH_BODY "}"
#define OP(n) "{\"name\": \"" n "\", \"fwd\": 1, \"bwd\": 2}"
#define OPS "\"ops\": [" OP("a") ", " OP("b") ", " OP("c") "]"
#define G(rest) "{" SIZES ", " MACHINE ", " rest "}"

static const struct reject_case reject_cases[] = {
	/* JSON syntax and shape */
	{"malformed JSON, missing comma",
	 "{\n  \"batch\": 8,\n  \"microbatch_sizes\": [1]\n  \"machine\": {}\n}\n", "line 4",
	 "column"},
	{"malformed JSON, unterminated", "{\"batch\": 8, \"ops", "line 1", "column"},
	{"empty text", "", "line 1", "column"},
	{"duplicate key", "{\"batch\": 8, \"batch\": 4, \"microbatch_sizes\": [1], " MACHINE ", " OPS "}",
	 "batch", "duplicate"},
	{"top level an array", "[" G(OPS) "]", "top level", "object"},
	/* jansson reads only an array or object at the top */
	{"top level a number", "42", "line 1", "column"},

	/* unknown keys */
	{"unknown top-level key", G(OPS ", \"stages\": 3"), "stages", "unknown key"},
	{"top-level key names are case-sensitive", G(OPS ", \"Batch\": 3"), "Batch", "unknown key"},
	{"unknown op key",
	 G("\"ops\": [" OP("a") ", {\"name\": \"b\", \"fwd\": 1, \"bwd\": 1, \"flops\": 9}]"),
	 "ops[1]", "unknown key 'flops'"},
	{"unknown machine key",
	 "{" SIZES ", \"machine\": {" MACH_BODY ", \"gpus\": 8}, " OPS "}", "machine",
	 "unknown key 'gpus'"},

	/* batch and sizes */
	{"missing batch", "{\"microbatch_sizes\": [1], " MACHINE ", " OPS "}", "batch", "integer"},
	{"batch 0", "{\"batch\": 0, \"microbatch_sizes\": [1], " MACHINE ", " OPS "}", "batch",
	 "from 1"},
	{"batch 2.5", "{\"batch\": 2.5, \"microbatch_sizes\": [1], " MACHINE ", " OPS "}", "batch",
	 "integer"},
	{"microbatch_sizes descending",
	 "{\"batch\": 8, \"microbatch_sizes\": [2, 1], " MACHINE ", " OPS "}", "microbatch_sizes",
	 "ascending"},
	{"microbatch_sizes repeated",
	 "{\"batch\": 8, \"microbatch_sizes\": [1, 2, 2], " MACHINE ", " OPS "}",
	 "microbatch_sizes", "ascending"},
	{"microbatch_sizes empty", "{\"batch\": 8, \"microbatch_sizes\": [], " MACHINE ", " OPS "}",
	 "microbatch_sizes", "list"},
	{"microbatch_sizes missing", "{\"batch\": 8, " MACHINE ", " OPS "}", "microbatch_sizes",
	 "list"},
	{"microbatch size above the batch",
	 "{\"batch\": 8, \"microbatch_sizes\": [1, 16], " MACHINE ", " OPS "}",
	 "microbatch_sizes", "batch 8"},
	{"microbatch size 0", "{\"batch\": 8, \"microbatch_sizes\": [0, 1], " MACHINE ", " OPS "}",
	 "microbatch_sizes", "entry 0"},

	/* machine */
	{"missing machine", "{" SIZES ", " OPS "}", "machine", "object"},
	{"machine not an object", "{" SIZES ", \"machine\": 4, " OPS "}", "machine", "object"},
	{"machine.devices 0",
	 "{" SIZES ", \"machine\": {\"devices\": 0, \"memory_bytes\": 1e9, \"link_latency_us\": 5,"
	 " \"link_bandwidth\": 100}, " OPS "}",
	 "machine.devices", "integer"},
	{"machine.devices missing",
	 "{" SIZES ", \"machine\": {\"memory_bytes\": 1e9, \"link_latency_us\": 5,"
	 " \"link_bandwidth\": 100}, " OPS "}",
	 "machine.devices", "integer"},
	{"negative memory_bytes",
	 "{" SIZES ", \"machine\": {\"devices\": 2, \"memory_bytes\": -1, \"link_latency_us\": 5,"
	 " \"link_bandwidth\": 100}, " OPS "}",
	 "machine.memory_bytes", "-1"},
	{"missing memory_bytes",
	 "{" SIZES ", \"machine\": {\"devices\": 2, \"link_latency_us\": 5,"
	 " \"link_bandwidth\": 100}, " OPS "}",
	 "machine.memory_bytes", "number"},
	{"negative link_latency_us",
	 "{" SIZES ", \"machine\": {\"devices\": 2, \"memory_bytes\": 1, \"link_latency_us\": -2,"
	 " \"link_bandwidth\": 100}, " OPS "}",
	 "machine.link_latency_us", "-2"},
	{"link_bandwidth 0",
	 "{" SIZES ", \"machine\": {\"devices\": 2, \"memory_bytes\": 1, \"link_latency_us\": 0,"
	 " \"link_bandwidth\": 0}, " OPS "}",
	 "machine.link_bandwidth", "outside"},
	{"negative optimizer_bytes_per_param",
	 "{" SIZES ", \"machine\": {" MACH_BODY ", \"optimizer_bytes_per_param\": -8}, " OPS "}",
	 "machine.optimizer_bytes_per_param", "-8"},
	{"bytes_per_param 0",
	 "{" SIZES ", \"machine\": {" MACH_BODY ", \"bytes_per_param\": 0}, " OPS "}",
	 "machine.bytes_per_param", "outside"},

	/* ops */
	{"ops empty", G("\"ops\": []"), "ops", "list"},
	{"ops missing", G("\"edges\": []"), "ops", "list"},
	{"ops not a list", G("\"ops\": {\"a\": 1}"), "ops", "list"},
	{"op not an object", G("\"ops\": [" OP("a") ", 7]"), "ops[1]", "object"},
	{"op without name", G("\"ops\": [" OP("a") ", {\"fwd\": 1, \"bwd\": 1}]"), "ops[1]", "name"},
	{"op with empty name", G("\"ops\": [{\"name\": \"\", \"fwd\": 1, \"bwd\": 1}]"), "ops[0]",
	 "name"},
	{"op name not a string", G("\"ops\": [{\"name\": 3, \"fwd\": 1, \"bwd\": 1}]"), "ops[0]",
	 "name"},
	{"duplicate op names", G("\"ops\": [" OP("a") ", " OP("b") ", " OP("a") "]"), "ops",
	 "'a' is used twice"},
	{"fwd list too long", G("\"ops\": [{\"name\": \"a\", \"fwd\": [1, 2, 3], \"bwd\": 1}]"),
	 "ops[0].fwd", "2 numbers"},
	{"fwd list too short", G("\"ops\": [" OP("a") ", {\"name\": \"b\", \"fwd\": [1], \"bwd\": 1}]"),
	 "ops[1].fwd", "2 numbers"},
	{"negative fwd", G("\"ops\": [{\"name\": \"a\", \"fwd\": -1, \"bwd\": 1}]"), "ops[0].fwd",
	 "-1"},
	{"negative fwd entry", G("\"ops\": [{\"name\": \"a\", \"fwd\": [1, -3], \"bwd\": 1}]"),
	 "ops[0].fwd[1]", "-3"},
	{"fwd a string", G("\"ops\": [{\"name\": \"a\", \"fwd\": \"1\", \"bwd\": 1}]"), "ops[0].fwd",
	 "number"},
	{"fwd missing", G("\"ops\": [{\"name\": \"a\", \"bwd\": 1}]"), "ops[0].fwd", "missing"},
	{"bwd missing", G("\"ops\": [" OP("a") ", {\"name\": \"b\", \"fwd\": 1}]"), "ops[1].bwd",
	 "missing"},
	{"negative wgrad", G("\"ops\": [{\"name\": \"a\", \"fwd\": 1, \"bwd\": 1, \"wgrad\": -0.5}]"),
	 "ops[0].wgrad", "-0.5"},
	{"wgrad list wrong length",
	 G("\"ops\": [{\"name\": \"a\", \"fwd\": 1, \"bwd\": 1, \"wgrad\": [1, 1, 1]}]"),
	 "ops[0].wgrad", "2 numbers"},
	{"negative act_bytes",
	 G("\"ops\": [{\"name\": \"a\", \"fwd\": 1, \"bwd\": 1, \"act_bytes\": -4}]"),
	 "ops[0].act_bytes", "-4"},
	{"weight_bytes a string",
	 G("\"ops\": [{\"name\": \"a\", \"fwd\": 1, \"bwd\": 1, \"weight_bytes\": \"4\"}]"),
	 "ops[0].weight_bytes", "number"},

	/* edges */
	{"edges not a list", G(OPS ", \"edges\": {\"a\": \"b\"}"), "edges", "list"},
	{"edge not a pair", G(OPS ", \"edges\": [[0, 1, 2]]"), "edges[0]", "pair"},
	{"edge to an unknown op name", G(OPS ", \"edges\": [[\"a\", \"b\"], [\"a\", \"zz\"]]"),
	 "edges[1]", "'zz'"},
	{"edge index out of range", G(OPS ", \"edges\": [[0, 3]]"), "edges[0]", "index"},
	{"edge index negative", G(OPS ", \"edges\": [[-1, 0]]"), "edges[0]", "index"},
	{"edge index not an integer", G(OPS ", \"edges\": [[0, 1.5]]"), "edges[0]", "index"},
	{"self-loop by name", G(OPS ", \"edges\": [[\"b\", \"b\"]]"), "edges[0]", "itself"},
	{"self-loop by name and index", G(OPS ", \"edges\": [[0, 1], [\"c\", 2]]"), "edges[1]",
	 "itself"},
	{"repeated edge", G(OPS ", \"edges\": [[0, 1], [1, 2], [0, 1]]"), "edges[2]", "repeats"},
	{"repeated edge, name vs index", G(OPS ", \"edges\": [[0, 1], [\"a\", \"b\"]]"), "edges[1]",
	 "repeats"},
	{"cycle of three", G(OPS ", \"edges\": [[\"a\", \"b\"], [\"b\", \"c\"], [\"c\", \"a\"]]"),
	 "edges", "cycle"},
	{"cycle of two", G(OPS ", \"edges\": [[\"a\", \"b\"], [\"b\", \"a\"]]"), "edges", "cycle"},
};

static void check_reject(const struct reject_case *rc)
{
	struct graph *g = (struct graph *)&g;   /* must be reset */
	struct error err = {{0}};
	enum status st = graph_parse(rc->json, "test.json", &g, &err);
	if (st != STATUS_ERROR) {
		if (st == STATUS_OK)
			graph_free(g);
		fail_msg("case '%s': accepted", rc->name);
	}
	if (g)
		fail_msg("case '%s': *out is not NULL after an error", rc->name);
	check_error_message(rc->name, err.msg, "graph 'test.json'", rc->key, rc->what);
}

static void test_rejections(void **state)
{
	for (size_t i = 0; i < sizeof reject_cases / sizeof *reject_cases; i++)
		check_reject(&reject_cases[i]);
}

/* The operator a cycle message names, or fail. */
static void cycle_op(const char *label, const char *json, const char *source, char *name,
		     size_t cap)
{
	struct graph *g = NULL;
	struct error err = {{0}};
	if (graph_parse(json, source, &g, &err) == STATUS_OK) {
		graph_free(g);
		fail_msg("%s: cyclic graph accepted", label);
	}
	assert_null(g);
	char where[128];
	snprintf(where, sizeof where, "graph '%s'", source);
	check_error_message(label, err.msg, where, "edges", "cycle");
	const char *p = strstr(err.msg, "operator '");
	if (!p)
		fail_msg("%s: no operator named: %s", label, err.msg);
	p += strlen("operator '");
	const char *q = strchr(p, '\'');
	assert_non_null(q);
	assert_true((size_t)(q - p) < cap);
	memcpy(name, p, q - p);
	name[q - p] = 0;
}

/* The cycle message names an operator on the cycle. Ops a, b, c, d; the
 * cycle and what hangs off it vary. */
static void test_cycle_names_op_on_it(void **state)
{
	static const struct {
		const char *label, *edges, *on;   /* on: the cycle's ops as a string of letters */
	} cases[] = {
		{"3-cycle, d isolated", "[[\"a\", \"b\"], [\"b\", \"c\"], [\"c\", \"a\"]]", "abc"},
		{"2-cycle after a source", "[[\"a\", \"b\"], [\"b\", \"c\"], [\"c\", \"b\"]]", "bc"},
		{"2-cycle with an exit", "[[\"b\", \"c\"], [\"c\", \"b\"], [\"c\", \"d\"]]", "bc"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char json[1024], name[64];
		snprintf(json, sizeof json,
			 "{" SIZES ", " MACHINE ", \"ops\": [" OP("a") ", " OP("b") ", " OP("c")
			 ", " OP("d") "], \"edges\": %s}",
			 cases[i].edges);
		cycle_op(cases[i].label, json, "test.json", name, sizeof name);
		if (strlen(name) != 1 || !strchr(cases[i].on, name[0]))
			fail_msg("%s: names '%s', not an operator of the cycle {%s}", cases[i].label,
				 name, cases[i].on);
	}
}

/*
 * The operator named must be on the cycle, not one it feeds (graph.h):
 * ops a, b, c with b -> c, c -> b, b -> a: the cycle is {b, c}; a (index 0)
 * hangs off it and must not be named.
 */
static void test_cycle_names_op_on_it_not_downstream(void **state)
{
	char name[64];
	cycle_op("cycle b <-> c feeding a",
		 G(OPS ", \"edges\": [[\"b\", \"c\"], [\"c\", \"b\"], [\"b\", \"a\"]]"), "test.json",
		 name, sizeof name);
	if (strcmp(name, "b") && strcmp(name, "c"))
		fail_msg("names '%s', not an operator of the cycle {b, c}", name);
}

/*
 * The cycle rejection names the source, like every other rejection
 * (graph.c's header), not the graph's "name" key: with "name": "mymodel"
 * and source "test.json" it reads "graph 'test.json': edges: ...".
 */
static void test_cycle_message_names_source(void **state)
{
	char name[64];
	cycle_op("named graph with a cycle",
		 "{\"name\": \"mymodel\", " SIZES ", " MACHINE ", " OPS
		 ", \"edges\": [[\"a\", \"b\"], [\"b\", \"a\"]]}",
		 "test.json", name, sizeof name);
}

/* ---- 3. SP decomposition: known answers ---------------------------------- */

struct sp_case {
	const char *name;
	int n, m;
	int e[16][2];
	const char *want;   /* NULL: not SP */
};

static const struct sp_case sp_cases[] = {
	{"single node", 1, 0, {{0}}, "n0"},
	{"two isolated nodes", 2, 0, {{0}}, "P(n0, n1)"},
	{"three isolated nodes", 3, 0, {{0}}, "P(n0, n1, n2)"},
	{"one edge", 2, 1, {{0, 1}}, "S(n0, n1)"},
	{"edge against index order", 2, 1, {{1, 0}}, "S(n1, n0)"},
	{"chain of four", 4, 3, {{0, 1}, {1, 2}, {2, 3}}, "S(n0, n1, n2, n3)"},
	{"fork", 3, 2, {{0, 1}, {0, 2}}, "S(n0, P(n1, n2))"},
	{"join", 3, 2, {{0, 2}, {1, 2}}, "S(P(n0, n1), n2)"},
	{"diamond with chains", 6, 6, {{0, 1}, {1, 3}, {3, 5}, {0, 2}, {2, 4}, {4, 5}},
	 "S(n0, P(S(n1, n3), S(n2, n4)), n5)"},
	{"complete bipartite 2x2", 4, 4, {{0, 2}, {0, 3}, {1, 2}, {1, 3}},
	 "S(P(n0, n1), P(n2, n3))"},
	{"N", 4, 3, {{0, 2}, {1, 2}, {1, 3}}, NULL},
	{"transitive edges", 4, 5, {{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}}, "S(n0, n1, n2, n3)"},
	{"edge plus isolated node", 3, 1, {{1, 2}}, "P(n0, S(n1, n2))"},
	/*
	 * Two diamonds in series: 0 -> {1, 2} -> 3 -> {4, 5} -> 6.
	 * n0 reaches everything, n3 is reached by n0..n2 and reaches n4..n6,
	 * n6 is reached by all: cuts after n0, after {n1, n2}, after n3, after
	 * {n4, n5}. {n1, n2} and {n4, n5} have no edge inside: PARALLEL. One
	 * SERIES with five children (cut at every point, never nested).
	 */
	{"two diamonds in series", 7, 8,
	 {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {3, 5}, {4, 6}, {5, 6}},
	 "S(n0, P(n1, n2), n3, P(n4, n5), n6)"},
	/*
	 * A chain 0 -> 1 -> 2 beside a fork 3 -> {4, 5}: two weakly connected
	 * components, PARALLEL ordered by smallest op (n0 before n3). The chain
	 * is S(n0, n1, n2); the fork cuts after n3, leaving {n4, n5} with no
	 * edge: P(n4, n5).
	 */
	{"chain beside a fork", 6, 4, {{0, 1}, {1, 2}, {3, 4}, {3, 5}},
	 "P(S(n0, n1, n2), S(n3, P(n4, n5)))"},
	/*
	 * Interleaved indices: components {0, 3, 5} (3 -> 0 -> 5) and
	 * {1, 2, 4} (1 -> 4, 2 -> 4). The first is a chain in edge order
	 * S(n3, n0, n5); the second joins: S(P(n1, n2), n4). PARALLEL orders
	 * by smallest op: 0 < 1.
	 */
	{"interleaved components", 6, 4, {{3, 0}, {0, 5}, {1, 4}, {2, 4}},
	 "P(S(n3, n0, n5), S(P(n1, n2), n4))"},
	/*
	 * Nested three deep: 0 -> {A, B} -> 7 where A = 1 -> {2, 3} (a fork)
	 * and B = 4 -> 5, 4 -> 6, 5 -> 6 (a chain with a transitive edge).
	 * n0 and n7 are cuts; between them two components: A = S(n1, P(n2,
	 * n3)), B = S(n4, n5, n6).
	 */
	{"nested three deep", 8, 11,
	 {{0, 1}, {0, 4}, {1, 2}, {1, 3}, {4, 5}, {4, 6}, {5, 6}, {2, 7}, {3, 7}, {6, 7}, {0, 7}},
	 "S(n0, P(S(n1, P(n2, n3)), S(n4, n5, n6)), n7)"},
	/* An N between a common source and sink: 0 -> {1, 2}, 1 -> 3, 2 -> 3,
	 * 2 -> 4, 3, 4 -> 5. The middle {1, 2, 3, 4} is 1<3, 2<3, 2<4: an N. */
	{"N inside a series", 6, 7, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {2, 4}, {3, 5}, {4, 5}}, NULL},
	/* An N beside a chain: the parallel split works, the N piece fails. */
	{"N beside an edge", 6, 4, {{0, 2}, {1, 2}, {1, 3}, {4, 5}}, NULL},
};

static void test_sp_known(void **state)
{
	for (size_t i = 0; i < sizeof sp_cases / sizeof *sp_cases; i++) {
		const struct sp_case *c = &sp_cases[i];
		struct graph *g = make_graph(c->n, c->e, c->m);
		char *s = sp_text(g);
		if (!c->want && s) {
			char msg[256];
			snprintf(msg, sizeof msg, "%s", s);
			free(s);
			graph_free(g);
			fail_msg("case '%s': not SP, got %s", c->name, msg);
		}
		if (c->want && (!s || strcmp(s, c->want))) {
			char msg[256];
			snprintf(msg, sizeof msg, "%s", s ? s : "(NULL: not SP)");
			free(s);
			graph_free(g);
			fail_msg("case '%s': got %s, expected %s", c->name, msg, c->want);
		}
		/* the brute force agrees with the expected answer */
		bool r[MAXN][MAXN];
		closure(c->n, c->e, c->m, r);
		if (n_free(c->n, r) != (c->want != NULL))
			fail_msg("case '%s': the brute force disagrees with the hand answer", c->name);
		if (c->want) {
			struct sp_node *t = NULL;
			struct error err = {{0}};
			assert_int_equal(sp_decompose(g, &t, &err), STATUS_OK);
			assert_non_null(t);
			check_tree(g, t, r);
			sp_free(t);
		}
		free(s);
		graph_free(g);
	}
}

/* The node arrays of the diamond 0 -> {1 -> 3, 2 -> 4} -> 5, by hand. */
static void test_sp_node_arrays(void **state)
{
	static const int e[6][2] = {{0, 1}, {1, 3}, {3, 5}, {0, 2}, {2, 4}, {4, 5}};
	struct graph *g = make_graph(6, e, 6);
	struct sp_node *t = NULL;
	struct error err = {{0}};
	assert_int_equal(sp_decompose(g, &t, &err), STATUS_OK);
	assert_non_null(t);
	assert_int_equal(t->kind, SP_SERIES);
	assert_int_equal(t->nops, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(t->ops[i], i);
	assert_int_equal(t->nchildren, 3);
	assert_int_equal(t->children[0]->kind, SP_LEAF);
	assert_int_equal(t->children[0]->op, 0);
	assert_int_equal(t->children[2]->kind, SP_LEAF);
	assert_int_equal(t->children[2]->op, 5);
	const struct sp_node *p = t->children[1];
	assert_int_equal(p->kind, SP_PARALLEL);
	assert_int_equal(p->nops, 4);
	static const int pops[4] = {1, 2, 3, 4};
	for (int i = 0; i < 4; i++)
		assert_int_equal(p->ops[i], pops[i]);
	assert_int_equal(p->nchildren, 2);
	static const int c0[2] = {1, 3}, c1[2] = {2, 4};
	for (int k = 0; k < 2; k++) {
		const struct sp_node *c = p->children[k];
		const int *want = k ? c1 : c0;
		assert_int_equal(c->kind, SP_SERIES);
		assert_int_equal(c->nops, 2);
		assert_int_equal(c->nchildren, 2);
		for (int i = 0; i < 2; i++) {
			assert_int_equal(c->ops[i], want[i]);
			assert_int_equal(c->children[i]->kind, SP_LEAF);
			assert_int_equal(c->children[i]->op, want[i]);
			assert_int_equal(c->children[i]->nops, 1);
			assert_int_equal(c->children[i]->ops[0], want[i]);
		}
	}
	bool r[MAXN][MAXN];
	graph_closure(g, r);
	check_tree(g, t, r);
	sp_free(t);
	graph_free(g);
}

/* ---- 4. SP-ness against the N-free brute force --------------------------- */

/* Decompose g; compare with the brute force; check the tree. Returns
 * whether g is SP. */
static bool check_against_brute(const struct graph *g, const char *label)
{
	bool r[MAXN][MAXN];
	graph_closure(g, r);
	bool sp = n_free(g->nops, r);
	struct sp_node *t = (struct sp_node *)&t;
	struct error err = {{0}};
	if (sp_decompose(g, &t, &err))
		fail_msg("%s: sp_decompose failed: %s", label, err.msg);
	if (sp != (t != NULL)) {
		sp_free(t);
		fail_msg("%s: brute force says %s, sp_decompose says %s", label,
			 sp ? "SP" : "not SP", t ? "SP" : "not SP");
	}
	if (t)
		check_tree(g, t, r);
	sp_free(t);
	return sp;
}

/* Every DAG on 4 and 5 nodes up to relabelling (edge sets of i -> j,
 * i < j: every DAG has a topological numbering). */
static void test_sp_exhaustive_small(void **state)
{
	for (int n = 4; n <= 5; n++) {
		int pairs[10][2], np = 0, nsp = 0, nnot = 0;
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++) {
				pairs[np][0] = i;
				pairs[np][1] = j;
				np++;
			}
		for (int mask = 0; mask < 1 << np; mask++) {
			int e[10][2], m = 0;
			for (int k = 0; k < np; k++)
				if (mask >> k & 1) {
					e[m][0] = pairs[k][0];
					e[m][1] = pairs[k][1];
					m++;
				}
			struct graph *g = make_graph(n, e, m);
			char label[64];
			snprintf(label, sizeof label, "n=%d mask=%#x", n, mask);
			if (check_against_brute(g, label))
				nsp++;
			else
				nnot++;
			graph_free(g);
		}
		/* both classes occur: the N itself is among the 4-node graphs */
		assert_true(nsp > 0 && nnot > 0);
	}
}

static void test_sp_random_brute(void **state)
{
	uint64_t s = 0x5eed1234abcdULL;
	int nsp = 0, nnot = 0;
	for (int it = 0; it < 3000; it++) {
		int n = 4 + rng_int(&s, 4), e[MAXN * MAXN][2];
		int pct = 15 + rng_int(&s, 50);
		int m = random_dag(&s, n, pct, e);
		/* relabel by a random permutation so edges go both ways in
		 * index order */
		int perm[MAXN];
		for (int i = 0; i < n; i++)
			perm[i] = i;
		for (int i = n - 1; i > 0; i--) {
			int j = rng_int(&s, i + 1), x = perm[i];
			perm[i] = perm[j];
			perm[j] = x;
		}
		for (int k = 0; k < m; k++) {
			e[k][0] = perm[e[k][0]];
			e[k][1] = perm[e[k][1]];
		}
		struct graph *g = make_graph(n, e, m);
		char label[64];
		snprintf(label, sizeof label, "random graph %d (n=%d m=%d)", it, n, m);
		if (check_against_brute(g, label))
			nsp++;
		else
			nnot++;
		graph_free(g);
	}
	/* the mix is not lopsided: both classes well represented */
	if (nsp < 300 || nnot < 300)
		fail_msg("only %d SP and %d non-SP graphs drawn", nsp, nnot);
}

/* ---- 5. SP-ization ------------------------------------------------------- */

static void op_weights(const struct graph *g, double *w)
{
	for (int v = 0; v < g->nops; v++)
		w[v] = g->ops[v].fwd[0] + g->ops[v].bwd[0] + g->ops[v].wgrad[0];
}

/* Make g SP and check the invariants; returns the edges added. */
static int check_make_sp(struct graph *g, const char *label)
{
	int n = g->nops, m0 = g->nedges, e0[MAXN * MAXN][2];
	assert_true(n <= MAXN && m0 <= MAXN * MAXN);
	memcpy(e0, g->edges, m0 * sizeof *e0);
	bool r0[MAXN][MAXN], r1[MAXN][MAXN];
	graph_closure(g, r0);
	double w[MAXN];
	op_weights(g, w);
	double cp0 = sp_critical_path(g, w);
	assert_double_near(cp0, longest_path(n, (const int (*)[2])g->edges, g->nedges, w), 1e-9);

	int added = -1;
	struct error err = {{0}};
	if (sp_make_sp(g, &added, &err))
		fail_msg("%s: sp_make_sp failed: %s", label, err.msg);
	if (added != g->nedges - m0)
		fail_msg("%s: added %d, but edges went from %d to %d", label, added, m0, g->nedges);
	check_derived(g);
	for (int k = 0; k < m0; k++) {
		int found = 0;
		for (int l = 0; l < g->nedges; l++)
			found += g->edges[l][0] == e0[k][0] && g->edges[l][1] == e0[k][1];
		if (found != 1)
			fail_msg("%s: original edge %d -> %d present %d times", label, e0[k][0],
				 e0[k][1], found);
	}
	graph_closure(g, r1);
	for (int u = 0; u < n; u++)
		for (int v = 0; v < n; v++)
			if (r0[u][v] && !r1[u][v])
				fail_msg("%s: %d no longer reaches %d", label, u, v);
	if (!n_free(n, r1))
		fail_msg("%s: still has an N after sp_make_sp", label);
	struct sp_node *t = NULL;
	assert_int_equal(sp_decompose(g, &t, &err), STATUS_OK);
	if (!t)
		fail_msg("%s: not SP after sp_make_sp", label);
	check_tree(g, t, r1);
	sp_free(t);
	double cp1 = sp_critical_path(g, w);
	assert_double_near(cp1, longest_path(n, (const int (*)[2])g->edges, g->nedges, w), 1e-9);
	if (cp1 < cp0)
		fail_msg("%s: critical path fell from %g to %g", label, cp0, cp1);
	return added;
}

/*
 * The N graph a=n0, b=n1, c=n2, d=n3 with edges a->c, b->c, b->d and
 * weights (fwd; bwd 0) 1, 3, 2, 1. Levels: a, b at 0, c, d at 1: the only
 * cut puts {a, b} before {c, d}, adding the missing a -> d. Critical path
 * before: max(a+c, b+c, b+d) = max(3, 5, 4) = 5; after, a+d = 2 adds
 * nothing: 5. Then S(P(n0, n1), P(n2, n3)).
 */
static void test_make_sp_n_graph(void **state)
{
	static const int e[3][2] = {{0, 2}, {1, 2}, {1, 3}};
	static const double fwd[4] = {1, 3, 2, 1}, zero[4] = {0};
	struct graph *g = make_graph_w(4, e, 3, fwd, zero, NULL);
	double w[4];
	op_weights(g, w);
	assert_double_near(sp_critical_path(g, w), 5, 0);
	assert_int_equal(check_make_sp(g, "N graph"), 1);
	assert_int_equal(g->nedges, 4);
	bool has_ad = false;
	for (int k = 0; k < g->nedges; k++)
		has_ad |= g->edges[k][0] == 0 && g->edges[k][1] == 3;
	assert_true(has_ad);
	assert_double_near(sp_critical_path(g, w), 5, 0);
	char *s = sp_text(g);
	assert_non_null(s);
	assert_string_equal(s, "S(P(n0, n1), P(n2, n3))");
	free(s);
	graph_free(g);
}

/*
 * The level cut is chosen by the critical path. Ops a..e = n0..n4, edges
 * a->c, b->c, b->d, d->e: one piece, no split. Levels a, b: 0; c, d: 1;
 * e: 2. Cuts:
 *   k=1: {a, b} before {c, d, e}: adds a->d, a->e, b->e (3 edges); then
 *        S(P(a, b), P(c, S(d, e))) is SP. Paths: a+c, b+c, b+d+e, a+d+e.
 *   k=2: {a, b, c, d} before {e}: adds a->e, b->e, c->e (3 edges); paths
 *        max(a, b)+c+e, b+d+e, a+c. The piece {a, b, c, d} is still the N
 *        a->c, b->c, b->d; its one cut adds a->d (1 more): 4 in all,
 *        S(P(a, b), P(c, d), e).
 * Weights w = fwd (bwd 0):
 *   (1, 1, 10, 1, 1): k=1 gives 11, k=2 gives 12: k=1, 3 edges, path 11.
 *   (5, 1, 1, 5, 5):  k=1 gives a+d+e = 15, k=2 gives max(5+1+5, 1+5+5)
 *                     = 11: k=2, 4 edges; the final a->d makes it 15.
 */
static void test_make_sp_cut_choice(void **state)
{
	static const int e[4][2] = {{0, 2}, {1, 2}, {1, 3}, {3, 4}};
	static const double zero[5] = {0};
	static const struct {
		double fwd[5];
		int added;
		double cp;
		const char *tree;
	} cases[] = {
		{{1, 1, 10, 1, 1}, 3, 11, "S(P(n0, n1), P(n2, S(n3, n4)))"},
		{{5, 1, 1, 5, 5}, 4, 15, "S(P(n0, n1), P(n2, n3), n4)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct graph *g = make_graph_w(5, e, 4, cases[i].fwd, zero, NULL);
		char label[32];
		snprintf(label, sizeof label, "cut choice %zu", i);
		int added = check_make_sp(g, label);
		if (added != cases[i].added)
			fail_msg("%s: added %d edges, expected %d", label, added, cases[i].added);
		double w[5];
		op_weights(g, w);
		assert_double_near(sp_critical_path(g, w), cases[i].cp, 0);
		char *s = sp_text(g);
		assert_non_null(s);
		char msg[128];
		bool same = !strcmp(s, cases[i].tree);
		snprintf(msg, sizeof msg, "%s", s);
		free(s);
		if (!same)
			fail_msg("%s: tree %s, expected %s", label, msg, cases[i].tree);
		graph_free(g);
	}
}

/* Two N's side by side (n0..n3 and n4..n7): each gets its one edge,
 * 0 -> 3 and 4 -> 7. */
static void test_make_sp_two_ns(void **state)
{
	static const int e[6][2] = {{0, 2}, {1, 2}, {1, 3}, {4, 6}, {5, 6}, {5, 7}};
	struct graph *g = make_graph(8, e, 6);
	assert_int_equal(check_make_sp(g, "two Ns"), 2);
	char *s = sp_text(g);
	assert_non_null(s);
	assert_string_equal(s, "P(S(P(n0, n1), P(n2, n3)), S(P(n4, n5), P(n6, n7)))");
	free(s);
	graph_free(g);
}

/* On SP graphs nothing is added and the edge list is unchanged. */
static void test_make_sp_already_sp(void **state)
{
	for (size_t i = 0; i < sizeof sp_cases / sizeof *sp_cases; i++) {
		const struct sp_case *c = &sp_cases[i];
		if (!c->want)
			continue;
		struct graph *g = make_graph(c->n, c->e, c->m);
		int added = -1;
		struct error err = {{0}};
		assert_int_equal(sp_make_sp(g, &added, &err), STATUS_OK);
		if (added != 0 || g->nedges != c->m)
			fail_msg("case '%s': added %d (edges %d, was %d)", c->name, added, g->nedges,
				 c->m);
		for (int k = 0; k < c->m; k++) {
			assert_int_equal(g->edges[k][0], c->e[k][0]);
			assert_int_equal(g->edges[k][1], c->e[k][1]);
		}
		graph_free(g);
	}
}

static void test_make_sp_random(void **state)
{
	uint64_t s = 0xfeedbeef1234ULL;
	int tried = 0;
	for (int it = 0; it < 4000 && tried < 400; it++) {
		int n = 4 + rng_int(&s, 4), e[MAXN * MAXN][2];
		int m = random_dag(&s, n, 25 + rng_int(&s, 40), e);
		bool r[MAXN][MAXN];
		closure(n, e, m, r);
		if (n_free(n, r))
			continue;
		double fwd[MAXN], bwd[MAXN], wg[MAXN];
		for (int v = 0; v < n; v++) {
			fwd[v] = 1 + rng_int(&s, 9);
			bwd[v] = rng_int(&s, 4);
			wg[v] = rng_int(&s, 3);
		}
		struct graph *g = make_graph_w(n, e, m, fwd, bwd, wg);
		char label[64];
		snprintf(label, sizeof label, "random non-SP %d (n=%d m=%d)", it, n, m);
		int added = check_make_sp(g, label);
		if (added < 1)
			fail_msg("%s: a non-SP graph needs at least one edge, added %d", label, added);
		/* sp_make_sp on the result adds nothing more */
		int again = -1;
		struct error err = {{0}};
		assert_int_equal(sp_make_sp(g, &again, &err), STATUS_OK);
		assert_int_equal(again, 0);
		graph_free(g);
		tried++;
	}
	assert_true(tried >= 200);
}

/* ---- 6. critical path ---------------------------------------------------- */

/*
 * Diamond 0 -> {1, 2} -> 3 with weights 2, 4, 7, 1: paths 2+4+1 = 7 and
 * 2+7+1 = 10: 10. The six-node diamond 0 -> 1 -> 3 -> 5, 0 -> 2 -> 4 -> 5
 * with weights 1..6: 1+2+4+6 = 13 and 1+3+5+6 = 15: 15. Isolated nodes:
 * the heaviest, 9. Weights from fwd + bwd + wgrad through graph_op_time:
 * the diamond with fwd (1, 2, 3, 4), bwd (1, 1, 1, 1), wgrad (0, 5, 0, 0)
 * gives 2, 8, 4, 5: 2+8+5 = 15.
 */
static void test_critical_path(void **state)
{
	static const int d4[4][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
	struct graph *g = make_graph(4, d4, 4);
	assert_double_near(sp_critical_path(g, (double[]){2, 4, 7, 1}), 10, 0);
	assert_double_near(sp_critical_path(g, (double[]){2, 9, 7, 1}), 12, 0);
	graph_free(g);

	static const int d6[6][2] = {{0, 1}, {1, 3}, {3, 5}, {0, 2}, {2, 4}, {4, 5}};
	g = make_graph(6, d6, 6);
	assert_double_near(sp_critical_path(g, (double[]){1, 2, 3, 4, 5, 6}), 15, 0);
	graph_free(g);

	g = make_graph(3, NULL, 0);
	assert_double_near(sp_critical_path(g, (double[]){3, 9, 4}), 9, 0);
	graph_free(g);

	/* edges against index order: 2 -> 1 -> 0 with weights 1, 2, 4: 7 */
	static const int back[2][2] = {{2, 1}, {1, 0}};
	g = make_graph(3, back, 2);
	assert_double_near(sp_critical_path(g, (double[]){1, 2, 4}), 7, 0);
	graph_free(g);

	g = make_graph_w(4, d4, 4, (double[]){1, 2, 3, 4}, (double[]){1, 1, 1, 1},
			 (double[]){0, 5, 0, 0});
	double w[4];
	for (int v = 0; v < 4; v++)
		w[v] = graph_op_time(g, v, 0);
	assert_double_near(sp_critical_path(g, w), 15, 0);
	graph_free(g);
}

/* ---- cost tables --------------------------------------------------------- */

/* A cost table for ops n0 and n1 with the given sizes (JSON list text):
 * fwd 10 * (op + 1), bwd 1, wgrad 0.5 at every size. */
static char *costs_json(const char *sizes, int nsizes)
{
	struct text t = {0};
	tcat(&t, "{\"source\": \"test\", \"microbatch_sizes\": %s, \"ops\": [", sizes);
	for (int v = 0; v < 2; v++) {
		tcat(&t, "%s{\"name\": \"n%d\"", v ? ", " : "", v);
		static const char *const keys[3] = {"fwd", "bwd", "wgrad"};
		for (int k = 0; k < 3; k++) {
			tcat(&t, ", \"%s\": [", keys[k]);
			for (int i = 0; i < nsizes; i++)
				tcat(&t, "%s%g", i ? ", " : "", k == 0 ? 10.0 * (v + 1) : k == 1 ? 1 : 0.5);
			tcat(&t, "]");
		}
		tcat(&t, "}");
	}
	tcat(&t, "]}\n");
	return t.s;
}

/* A temporary file holding text; the caller unlinks path. */
static void write_temp(char *path, const char *text)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A table read from a file replaces the costs and the sizes. */
static void test_costs_apply(void **state)
{
	struct graph *g = make_graph(2, NULL, 0);
	char path[] = "/tmp/pipeopt-test-costs-XXXXXX";
	char *json = costs_json("[1, 2, 4]", 3);
	write_temp(path, json);
	free(json);
	struct error err = {{0}};
	enum status st = graph_apply_costs(g, path, &err);
	unlink(path);
	if (st)
		fail_msg("graph_apply_costs failed: %s", err.msg);
	assert_int_equal(g->nsizes, 3);
	static const int sizes[3] = {1, 2, 4};
	for (int i = 0; i < 3; i++)
		assert_int_equal(g->microbatch_sizes[i], sizes[i]);
	assert_doubles(g->ops[1].fwd, (double[]){20, 20, 20}, 3);
	assert_doubles(g->ops[0].bwd, (double[]){1, 1, 1}, 3);
	assert_doubles(g->ops[0].wgrad, (double[]){0.5, 0.5, 0.5}, 3);
	graph_free(g);
}

/* A table a profile cut short (null where an operator was never measured)
 * is refused, naming the entry and why; the graph is unchanged. */
static void test_costs_null_entry(void **state)
{
	struct graph *g = make_graph(2, NULL, 0);
	double fwd0 = g->ops[1].fwd[0];
	const char *text = "{\"microbatch_sizes\": [1], \"stopped_by\": \"interrupt\", \"complete\": false,"
			   " \"ops\": [{\"name\": \"n0\", \"fwd\": [1], \"bwd\": [1], \"wgrad\": [1]},"
			   " {\"name\": \"n1\", \"fwd\": [null], \"bwd\": [null], \"wgrad\": [null]}]}";
	struct error err = {{0}};
	assert_int_equal(graph_parse_costs(g, text, "cut.json", &err), STATUS_ERROR);
	if (!strstr(err.msg, "cost table 'cut.json': ops[1].fwd[0] is null: the profile stopped before measuring it"))
		fail_msg("message: %s", err.msg);
	assert_double_near(g->ops[1].fwd[0], fwd0, 0);
	graph_free(g);
	(void)state;
}

/*
 * Regression, fixed (graph/costs.c, read_sizes): a size was checked as an
 * int64 (>= 1, above the previous one) and stored as (int), so
 * [1, 4294967296] became [1, 0] and [1, 2147483648] became [1, INT_MIN],
 * accepted. Expected: sizes above GRAPH_MAX_BATCH (2^24, the largest batch
 * a graph may have) rejected, naming microbatch_sizes and the entry, and
 * the graph unchanged; 2^24 itself accepted.
 */
static void test_costs_size_overflow(void **state)
{
	static const struct {
		const char *sizes;
		bool ok;
	} cases[] = {
		{"[1, 4294967296]", false},
		{"[1, 2147483648]", false},
		{"[1, 16777217]", false},
		{"[1, 16777216]", true},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct graph *g = make_graph(2, NULL, 0);
		char *json = costs_json(cases[i].sizes, 2);
		struct error err = {{0}};
		enum status st = graph_parse_costs(g, json, "costs.json", &err);
		free(json);
		if (cases[i].ok) {
			if (st)
				fail_msg("case %s: rejected: %s", cases[i].sizes, err.msg);
			assert_int_equal(g->nsizes, 2);
			assert_int_equal(g->microbatch_sizes[1], 1 << 24);
		} else {
			if (!st)
				fail_msg("case %s: accepted as [%d, %d]", cases[i].sizes,
					 g->microbatch_sizes[0], g->microbatch_sizes[1]);
			check_error_message(cases[i].sizes, err.msg, "costs.json",
					    "microbatch_sizes: entry 1", "16777216");
			assert_int_equal(g->nsizes, 1);   /* unchanged */
			assert_int_equal(g->microbatch_sizes[0], 1);
			assert_doubles(g->ops[0].fwd, (double[]){1}, 1);
		}
		graph_free(g);
	}
}

/*
 * Regression, fixed (graph/costs.c, graph_apply_costs): the table was read
 * with json_load_file, without the 64 MiB cap of common/fileio.c that every
 * other reader has. Input: a file of 64 MiB + 1 byte (sparse, all zero
 * bytes). Expected: "file is larger than 64 MiB", naming the file; was:
 * the whole file handed to jansson ("'[' or '{' expected near end of file").
 */
static void test_costs_file_cap(void **state)
{
	struct graph *g = make_graph(2, NULL, 0);
	char path[] = "/tmp/pipeopt-test-costs-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (64L << 20) + 1), 0);
	close(fd);
	struct error err = {{0}};
	enum status st = graph_apply_costs(g, path, &err);
	unlink(path);
	assert_int_equal(st, STATUS_ERROR);
	check_error_message("64 MiB + 1", err.msg, path, "cost table '", "larger than 64 MiB");
	assert_int_equal(g->nsizes, 1);
	graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_parse_machine_explicit),
		cmocka_unit_test(test_parse_edges_name_index),
		cmocka_unit_test(test_parse_no_edges),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_read_missing),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_cycle_names_op_on_it),
		cmocka_unit_test(test_cycle_names_op_on_it_not_downstream),
		cmocka_unit_test(test_cycle_message_names_source),
		cmocka_unit_test(test_sp_known),
		cmocka_unit_test(test_sp_node_arrays),
		cmocka_unit_test(test_sp_exhaustive_small),
		cmocka_unit_test(test_sp_random_brute),
		cmocka_unit_test(test_make_sp_n_graph),
		cmocka_unit_test(test_make_sp_cut_choice),
		cmocka_unit_test(test_make_sp_two_ns),
		cmocka_unit_test(test_make_sp_already_sp),
		cmocka_unit_test(test_make_sp_random),
		cmocka_unit_test(test_critical_path),
		cmocka_unit_test(test_costs_apply),
		cmocka_unit_test(test_costs_null_entry),
		cmocka_unit_test(test_costs_size_overflow),
		cmocka_unit_test(test_costs_file_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
