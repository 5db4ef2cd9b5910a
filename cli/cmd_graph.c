/* pipeopt graph sp GRAPH: the series-parallel tree of a model graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/graph.h"
#include "graph/sp.h"

static const char usage_text[] =
	"usage: pipeopt graph sp GRAPH [--json]\n\n"
	"Decompose a model graph (docs/formats.md, \"Model graph\") into a tree\n"
	"of series (S) and parallel (P) parts. A graph that is not series-parallel\n"
	"is made so first by adding dependency edges (the arithmetic is unchanged,\n"
	"only concurrency is lost), choosing at each stuck part the cut whose edges\n"
	"lengthen the critical path least; the added edges and the critical path\n"
	"before and after are printed.\n";

static json_t *tree_json(const struct graph *g, const struct sp_node *t)
{
	if (t->kind == SP_LEAF)
		return json_string(g->ops[t->op].name);
	json_t *a = json_array();
	for (int i = 0; i < t->nchildren; i++)
		json_array_append_new(a, tree_json(g, t->children[i]));
	return json_pack("{s:s,s:o}", "kind", t->kind == SP_SERIES ? "series" : "parallel",
			 "children", a);
}

static double *op_weights(const struct graph *g)
{
	double *w = malloc(g->nops * sizeof *w);
	for (int v = 0; w && v < g->nops; v++)
		w[v] = graph_op_time(g, v, 0);
	return w;
}

static int run_sp(const char *path, bool json)
{
	struct error err;
	struct graph *g = NULL;
	struct sp_node *t = NULL;
	double *w = NULL;
	int added = 0, rc = 0, m0 = 0;
	bool was_sp = false;
	double before = 0, after = 0;
	enum status st = graph_read(path, &g, &err);
	if (!st && !(w = op_weights(g)))
		st = err_set(&err, "graph '%s': out of memory", path);
	if (!st)
		st = sp_decompose(g, &t, &err);
	if (st) {
		rc = cli_fail(json, &err);
		goto out;
	}
	was_sp = t != NULL;
	m0 = g->nedges;
	before = sp_critical_path(g, w);
	if (!t && (sp_make_sp(g, &added, &err) || sp_decompose(g, &t, &err))) {
		rc = cli_fail(json, &err);
		goto out;
	}
	after = sp_critical_path(g, w);
	char *text = sp_format(g, t);
	if (json) {
		json_t *e = json_array();
		for (int i = m0; i < g->nedges; i++)
			json_array_append_new(e, json_pack("[s,s]", g->ops[g->edges[i][0]].name,
							   g->ops[g->edges[i][1]].name));
		cli_print_json(json_pack("{s:s,s:s,s:i,s:i,s:b,s:o,s:f,s:f,s:s,s:o}", "status", "ok",
			"graph", g->name, "ops", g->nops, "edges", m0, "series_parallel", was_sp, "added_edges", e,
			"critical_path_before", before, "critical_path_after", after,
			"tree", text ? text : "", "tree_json", tree_json(g, t)));
	} else {
		printf("graph       %s: %d operators, %d edges, %s\n", g->name, g->nops, m0,
		       was_sp ? "series-parallel" : "not series-parallel");
		if (!was_sp) {
			printf("added       %d dependency edges:", added);
			for (int i = m0; i < g->nedges; i++)
				printf(" %s->%s", g->ops[g->edges[i][0]].name, g->ops[g->edges[i][1]].name);
			printf("\ncritical    %.6g us before, %.6g us after (forward + backward at micro-batch size %d)\n",
			       before, after, g->microbatch_sizes[0]);
		}
		printf("tree        %s\n", text ? text : "(out of memory)");
	}
	free(text);
out:
	sp_free(t);
	free(w);
	graph_free(g);
	return rc;
}

int cmd_graph(int argc, char **argv)
{
	bool json;
	char *pos[2];
	int npos, rc = cli_json_flag("graph", usage_text, argc, argv, pos, 0, 2, &npos, "", &json);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (npos < 1 || strcmp(pos[0], "sp"))
		return cli_usage("graph", "expected 'sp' (pipeopt graph sp GRAPH)");
	if (npos < 2)
		return cli_usage("graph", "expected a GRAPH file");
	return run_sp(pos[1], json);
}
