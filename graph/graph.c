/*
 * Reading and validating model graphs (graph.h; format in docs/formats.md, "Model graph").
 * Every rejection names the source and the key:
 *     graph 'x.json': ops[3].fwd: list has 2 entries, expected 3 (one per micro-batch size)
 */
#include "graph/graph.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/json_read.h"

/* A number for every size, or a list of one per size; absent: dflt. */
static enum status per_size(const struct jr_ctx *c, const char *key, const json_t *v,
			    int n, bool required, double dflt, double **out)
{
	double *a = calloc(n, sizeof *a);
	if (!a)
		return jr_fail(c, key, "out of memory");
	*out = a;
	if (!v) {
		if (required)
			return jr_fail(c, key, "missing");
		for (int i = 0; i < n; i++)
			a[i] = dflt;
		return STATUS_OK;
	}
	if (json_is_number(v)) {
		double x;
		if (jr_number(c, key, v, 0, 1e12, &x))
			return STATUS_ERROR;
		for (int i = 0; i < n; i++)
			a[i] = x;
		return STATUS_OK;
	}
	if (!json_is_array(v) || (int)json_array_size(v) != n)
		return jr_fail(c, key, "expected a number or a list of %d numbers (one per micro-batch size)",
			       n);
	for (int i = 0; i < n; i++) {
		char sub[128];
		snprintf(sub, sizeof sub, "%s[%d]", key, i);
		if (jr_number(c, sub, json_array_get(v, i), 0, 1e12, &a[i]))
			return STATUS_ERROR;
	}
	return STATUS_OK;
}

static enum status parse_sizes(const struct jr_ctx *c, json_t *root, struct graph *g)
{
	json_t *v = json_object_get(root, "microbatch_sizes");
	json_t *b = json_object_get(root, "batch");
	if (!json_is_integer(b) || json_integer_value(b) < 1 ||
	    json_integer_value(b) > GRAPH_MAX_BATCH)
		return jr_fail(c, "batch", "expected an integer from 1 to %d (samples per iteration)",
			       GRAPH_MAX_BATCH);
	g->batch = (int)json_integer_value(b);
	if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > GRAPH_MAX_SIZES)
		return jr_fail(c, "microbatch_sizes", "expected a list of 1 to %d sizes", GRAPH_MAX_SIZES);
	g->nsizes = (int)json_array_size(v);
	g->microbatch_sizes = calloc(g->nsizes, sizeof(int));
	if (!g->microbatch_sizes)
		return jr_fail(c, "microbatch_sizes", "out of memory");
	for (int i = 0; i < g->nsizes; i++) {
		json_t *x = json_array_get(v, i);
		if (!json_is_integer(x) || json_integer_value(x) < 1 ||
		    json_integer_value(x) > g->batch)
			return jr_fail(c, "microbatch_sizes", "entry %d: expected an integer from 1 to the batch %d",
				       i, g->batch);
		g->microbatch_sizes[i] = (int)json_integer_value(x);
		if (i && g->microbatch_sizes[i] <= g->microbatch_sizes[i - 1])
			return jr_fail(c, "microbatch_sizes", "not ascending at entry %d", i);
	}
	return STATUS_OK;
}

static enum status parse_machine(const struct jr_ctx *c, json_t *root, struct machine *m)
{
	static const char *const keys[] = {"name", "devices", "memory_bytes", "link_latency_us",
		"link_bandwidth", "optimizer_bytes_per_param", "bytes_per_param", NULL};
	json_t *v = json_object_get(root, "machine");
	if (!json_is_object(v))
		return jr_fail(c, "machine", "expected an object");
	const char *unknown = jr_unknown_key(v, keys);
	if (unknown)
		return jr_fail(c, "machine", "unknown key '%s'", unknown);
	json_t *d = json_object_get(v, "devices");
	if (!json_is_integer(d) || json_integer_value(d) < 1 || json_integer_value(d) > 4096)
		return jr_fail(c, "machine.devices", "expected an integer from 1 to 4096");
	m->devices = (int)json_integer_value(d);
	const char *name = json_string_value(json_object_get(v, "name"));
	m->name = strdup(name ? name : "machine");
	m->optimizer_bytes_per_param = 8;
	m->bytes_per_param = 4;
	json_t *x;
	if (jr_number(c, "machine.memory_bytes", json_object_get(v, "memory_bytes"), 1, 1e15,
		      &m->memory_bytes) ||
	    jr_number(c, "machine.link_latency_us", json_object_get(v, "link_latency_us"), 0, 1e9,
		      &m->link_latency_us) ||
	    jr_number(c, "machine.link_bandwidth", json_object_get(v, "link_bandwidth"), 1e-6, 1e12,
		      &m->link_bandwidth))
		return STATUS_ERROR;
	if ((x = json_object_get(v, "optimizer_bytes_per_param")) &&
	    jr_number(c, "machine.optimizer_bytes_per_param", x, 0, 1e3, &m->optimizer_bytes_per_param))
		return STATUS_ERROR;
	if ((x = json_object_get(v, "bytes_per_param")) &&
	    jr_number(c, "machine.bytes_per_param", x, 0.125, 64, &m->bytes_per_param))
		return STATUS_ERROR;
	return STATUS_OK;
}

static enum status parse_op(const struct jr_ctx *c, json_t *v, int i, struct graph *g)
{
	static const char *const keys[] = {"name", "kind", "fwd", "bwd", "wgrad", "act_bytes",
		"weight_bytes", "out_bytes", "shape", NULL};
	char key[64], sub[96];
	struct graph_op *op = &g->ops[i];
	snprintf(key, sizeof key, "ops[%d]", i);
	if (!json_is_object(v))
		return jr_fail(c, key, "expected an object");
	const char *unknown = jr_unknown_key(v, keys);
	if (unknown)
		return jr_fail(c, key, "unknown key '%s'", unknown);
	const char *name = json_string_value(json_object_get(v, "name"));
	const char *kind = json_string_value(json_object_get(v, "kind"));
	if (!name || !*name)
		return jr_fail(c, key, "name: expected a non-empty string");
	op->name = strdup(name);
	op->kind = strdup(kind ? kind : "op");
	snprintf(sub, sizeof sub, "%s.fwd", key);
	if (per_size(c, sub, json_object_get(v, "fwd"), g->nsizes, true, 0, &op->fwd))
		return STATUS_ERROR;
	snprintf(sub, sizeof sub, "%s.bwd", key);
	if (per_size(c, sub, json_object_get(v, "bwd"), g->nsizes, true, 0, &op->bwd))
		return STATUS_ERROR;
	snprintf(sub, sizeof sub, "%s.wgrad", key);
	if (per_size(c, sub, json_object_get(v, "wgrad"), g->nsizes, false, 0, &op->wgrad))
		return STATUS_ERROR;
	json_t *shape = json_object_get(v, "shape");
	if (shape) {
		snprintf(sub, sizeof sub, "%s.shape", key);
		if (!json_is_array(shape) || json_array_size(shape) > 8)
			return jr_fail(c, sub, "expected a list of up to 8 numbers");
		op->nshape = (int)json_array_size(shape);
		op->shape = calloc(op->nshape ? op->nshape : 1, sizeof *op->shape);
		if (!op->shape)
			return jr_fail(c, sub, "out of memory");
		for (int k = 0; k < op->nshape; k++)
			if (jr_number(c, sub, json_array_get(shape, k), 0, 1e12, &op->shape[k]))
				return STATUS_ERROR;
	}
	static const char *const bytes[] = {"act_bytes", "weight_bytes", "out_bytes"};
	double *dst[] = {&op->act_bytes, &op->weight_bytes, &op->out_bytes};
	for (int k = 0; k < 3; k++) {
		json_t *x = json_object_get(v, bytes[k]);
		snprintf(sub, sizeof sub, "%s.%s", key, bytes[k]);
		if (x && jr_number(c, sub, x, 0, 1e15, dst[k]))
			return STATUS_ERROR;
	}
	return STATUS_OK;
}

/* An edge end: an operator name or index. */
static enum status edge_end(const struct jr_ctx *c, const char *key, const json_t *v,
			    const struct graph *g, int *out)
{
	if (json_is_string(v)) {
		*out = graph_find(g, json_string_value(v));
		if (*out < 0)
			return jr_fail(c, key, "no operator named '%s'", json_string_value(v));
		return STATUS_OK;
	}
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) < g->nops) {
		*out = (int)json_integer_value(v);
		return STATUS_OK;
	}
	return jr_fail(c, key, "expected an operator name or index 0 to %d", g->nops - 1);
}

static enum status parse_edges(const struct jr_ctx *c, json_t *root, struct graph *g)
{
	json_t *v = json_object_get(root, "edges");
	if (!v)
		return STATUS_OK;
	if (!json_is_array(v))
		return jr_fail(c, "edges", "expected a list of [from, to] pairs");
	g->nedges = (int)json_array_size(v);
	g->edges = calloc(g->nedges ? g->nedges : 1, sizeof *g->edges);
	if (!g->edges)
		return jr_fail(c, "edges", "out of memory");
	for (int e = 0; e < g->nedges; e++) {
		json_t *p = json_array_get(v, e);
		char key[64];
		snprintf(key, sizeof key, "edges[%d]", e);
		if (!json_is_array(p) || json_array_size(p) != 2)
			return jr_fail(c, key, "expected a [from, to] pair");
		if (edge_end(c, key, json_array_get(p, 0), g, &g->edges[e][0]) ||
		    edge_end(c, key, json_array_get(p, 1), g, &g->edges[e][1]))
			return STATUS_ERROR;
		if (g->edges[e][0] == g->edges[e][1])
			return jr_fail(c, key, "operator '%s' feeds itself", g->ops[g->edges[e][0]].name);
		for (int f = 0; f < e; f++)
			if (g->edges[f][0] == g->edges[e][0] && g->edges[f][1] == g->edges[e][1])
				return jr_fail(c, key, "repeats edges[%d]", f);
	}
	return STATUS_OK;
}

/* CSR of one direction: for each op, the other ends of its edges. */
static int build_csr(int n, int m, int (*edges)[2], int from, int **start, int **list)
{
	*start = calloc(n + 1, sizeof **start);
	*list = malloc((m ? m : 1) * sizeof **list);
	if (!*start || !*list)
		return -1;
	for (int e = 0; e < m; e++)
		(*start)[edges[e][from] + 1]++;
	for (int v = 0; v < n; v++)
		(*start)[v + 1] += (*start)[v];
	int *fill = calloc(n, sizeof *fill);
	if (!fill)
		return -1;
	for (int e = 0; e < m; e++) {
		int v = edges[e][from];
		(*list)[(*start)[v] + fill[v]++] = edges[e][1 - from];
	}
	free(fill);
	return 0;
}

/* An operator on a cycle: from any operator left over by the topological
 * sort, step to a left-over predecessor n times (one always exists); then
 * we are on a cycle. */
static int on_cycle(const struct graph *g, const int *indeg)
{
	int v = 0;
	while (v < g->nops && indeg[v] == 0)
		v++;
	for (int step = 0; step < g->nops; step++)
		for (int k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
			if (indeg[g->pred[k]] > 0) {
				v = g->pred[k];
				break;
			}
	return v;
}

enum status graph_derive(struct graph *g, const char *source, struct error *err)
{
	free(g->pred_start);
	free(g->pred);
	free(g->succ_start);
	free(g->succ);
	free(g->topo);
	g->topo = malloc(g->nops * sizeof *g->topo);
	int *indeg = calloc(g->nops, sizeof *indeg);
	if (build_csr(g->nops, g->nedges, g->edges, 1, &g->pred_start, &g->pred) ||
	    build_csr(g->nops, g->nedges, g->edges, 0, &g->succ_start, &g->succ) || !g->topo ||
	    !indeg) {
		free(indeg);
		return err_set(err, "graph '%s': out of memory", source);
	}
	int head = 0, tail = 0;
	for (int v = 0; v < g->nops; v++)
		if (!(indeg[v] = g->pred_start[v + 1] - g->pred_start[v]))
			g->topo[tail++] = v;
	while (head < tail) {
		int v = g->topo[head++];
		for (int i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
			if (--indeg[g->succ[i]] == 0)
				g->topo[tail++] = g->succ[i];
	}
	int cyc = tail < g->nops ? on_cycle(g, indeg) : -1;
	free(indeg);
	if (cyc >= 0)
		return err_set(err, "graph '%s': edges: the graph has a cycle through operator '%s'",
			       source, g->ops[cyc].name);
	return STATUS_OK;
}

static enum status parse_root(const struct jr_ctx *c, json_t *root, struct graph *g)
{
	static const char *const keys[] = {"name", "description", "provenance", "batch",
		"microbatch_sizes", "machine", "ops", "edges", NULL};
	if (!json_is_object(root))
		return err_set(c->err, "graph '%s': expected a JSON object at the top level", c->source);
	const char *unknown = jr_unknown_key(root, keys);
	if (unknown)
		return jr_fail(c, "(top level)", "unknown key '%s'", unknown);
	const char *name = json_string_value(json_object_get(root, "name"));
	g->name = strdup(name ? name : c->source);
	if (parse_sizes(c, root, g) || parse_machine(c, root, &g->machine))
		return STATUS_ERROR;
	json_t *ops = json_object_get(root, "ops");
	if (!json_is_array(ops) || json_array_size(ops) < 1 || json_array_size(ops) > GRAPH_MAX_OPS)
		return jr_fail(c, "ops", "expected a list of 1 to %d operators", GRAPH_MAX_OPS);
	g->nops = (int)json_array_size(ops);
	g->ops = calloc(g->nops, sizeof *g->ops);
	if (!g->ops)
		return jr_fail(c, "ops", "out of memory");
	for (int i = 0; i < g->nops; i++) {
		if (parse_op(c, json_array_get(ops, i), i, g))
			return STATUS_ERROR;
		for (int j = 0; j < i; j++)
			if (!strcmp(g->ops[j].name, g->ops[i].name))
				return jr_fail(c, "ops", "operator name '%s' is used twice (ops[%d] and ops[%d])",
					       g->ops[i].name, j, i);
	}
	if (parse_edges(c, root, g))
		return STATUS_ERROR;
	return graph_derive(g, c->source, c->err);
}

enum status graph_parse(const char *text, const char *source, struct graph **out,
			struct error *err)
{
	struct jr_ctx c = {"graph", source, err};
	json_error_t je;
	*out = NULL;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return err_set(err, "graph '%s': line %d, column %d: %s", source, je.line, je.column,
			       je.text);
	struct graph *g = calloc(1, sizeof *g);
	enum status st = g ? parse_root(&c, root, g) : err_set(err, "graph '%s': out of memory", source);
	json_decref(root);
	if (st) {
		graph_free(g);
		return st;
	}
	*out = g;
	return STATUS_OK;
}

enum status graph_read(const char *path, struct graph **out, struct error *err)
{
	char *text = NULL;
	*out = NULL;
	if (file_slurp(path, "graph", &text, err))
		return STATUS_ERROR;
	enum status st = graph_parse(text, path, out, err);
	free(text);
	return st;
}

void graph_free(struct graph *g)
{
	if (!g)
		return;
	for (int i = 0; g->ops && i < g->nops; i++) {
		free(g->ops[i].name);
		free(g->ops[i].kind);
		free(g->ops[i].fwd);
		free(g->ops[i].bwd);
		free(g->ops[i].wgrad);
		free(g->ops[i].shape);
	}
	free(g->ops);
	free(g->edges);
	free(g->microbatch_sizes);
	free(g->machine.name);
	free(g->pred_start);
	free(g->pred);
	free(g->succ_start);
	free(g->succ);
	free(g->topo);
	free(g->name);
	free(g);
}

int graph_find(const struct graph *g, const char *name)
{
	for (int v = 0; v < g->nops; v++)
		if (g->ops[v].name && !strcmp(g->ops[v].name, name))
			return v;
	return -1;
}
