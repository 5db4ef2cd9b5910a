/*
 * libFuzzer harness: model graphs (graph/graph.c, graph_parse). An accepted
 * graph's derived arrays must describe its edges: a topological order of
 * every operator, predecessor and successor lists of nedges entries.
 */
#include "fuzz.h"

#include "graph/graph.h"

/* Every edge goes forward in g->topo, which lists each operator once. */
static bool topo_ok(const struct graph *g)
{
	int *pos = malloc((size_t)g->nops * sizeof *pos);
	bool ok = pos != NULL;
	for (int v = 0; ok && v < g->nops; v++)
		pos[v] = -1;
	for (int i = 0; ok && i < g->nops; i++) {
		int v = g->topo[i];
		ok = v >= 0 && v < g->nops && pos[v] < 0;
		if (ok)
			pos[v] = i;
	}
	for (int e = 0; ok && e < g->nedges; e++)
		ok = pos[g->edges[e][0]] < pos[g->edges[e][1]];
	ok = ok && g->pred_start[g->nops] == g->nedges && g->succ_start[g->nops] == g->nedges;
	free(pos);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct graph *g = NULL;
	struct error err = {{0}};
	if (text && graph_parse(text, "fuzz", &g, &err) == STATUS_OK)
		fuzz_check(topo_ok(g), "derived arrays do not match the edges", g->name);
	graph_free(g);
	free(text);
	return 0;
}
