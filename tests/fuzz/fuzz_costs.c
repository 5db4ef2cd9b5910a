/*
 * libFuzzer harness: cost tables (graph/costs.c, graph_parse_costs), read
 * against one fixed graph of three operators "a", "b", "c" (the names the
 * seed tests/fuzz/seeds/costs-abc.json uses). A table that is rejected
 * leaves the graph unchanged (graph.h); an accepted one gives ascending
 * sizes from 1 to GRAPH_MAX_BATCH and non-negative costs.
 */
#include "fuzz.h"

#include <math.h>

#include "graph/graph.h"

static const char graph_json[] =
	"{\"batch\": 8, \"microbatch_sizes\": [1, 2],"
	" \"machine\": {\"devices\": 2, \"memory_bytes\": 1e9,"
	" \"link_latency_us\": 1, \"link_bandwidth\": 100},"
	" \"ops\": [{\"name\": \"a\", \"fwd\": [1, 2], \"bwd\": [1, 2]},"
	" {\"name\": \"b\", \"fwd\": 3, \"bwd\": 4, \"wgrad\": 5},"
	" {\"name\": \"c\", \"fwd\": 1, \"bwd\": 1}],"
	" \"edges\": [[\"a\", \"b\"], [\"b\", \"c\"]]}";

static bool sizes_ok(const struct graph *g)
{
	bool ok = g->nsizes >= 1 && g->nsizes <= GRAPH_MAX_SIZES;
	for (int i = 0; ok && i < g->nsizes; i++)
		ok = g->microbatch_sizes[i] >= 1 && g->microbatch_sizes[i] <= GRAPH_MAX_BATCH &&
		     (!i || g->microbatch_sizes[i] > g->microbatch_sizes[i - 1]);
	for (int v = 0; ok && v < g->nops; v++)
		for (int i = 0; ok && i < g->nsizes; i++)
			ok = g->ops[v].fwd[i] >= 0 && g->ops[v].bwd[i] >= 0 &&
			     g->ops[v].wgrad[i] >= 0 && isfinite(graph_op_time(g, v, i));
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct graph *g = NULL;
	struct error err = {{0}};
	fuzz_check(graph_parse(graph_json, "fuzz graph", &g, &err) == STATUS_OK,
		   "the harness's graph is rejected", err.msg);
	char *text = fuzz_text(data, size);
	if (text && graph_parse_costs(g, text, "fuzz", &err) == STATUS_OK)
		fuzz_check(sizes_ok(g), "an accepted table gives bad sizes or costs", NULL);
	else
		fuzz_check(g->nsizes == 2 && g->microbatch_sizes[1] == 2 && g->ops[1].wgrad[1] == 5,
			   "a rejected table changed the graph", err.msg);
	graph_free(g);
	free(text);
	return 0;
}
