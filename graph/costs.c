/*
 * Cost tables into graphs (graph.h, graph_apply_costs, graph_parse_costs).
 * A cost table is what `pipeopt profile` writes:
 *   {"source": "cpu", "device": "...", "microbatch_sizes": [1, 2, 4],
 *    "ops": [{"name": "b0.ff0", "fwd": [..], "bwd": [..], "wgrad": [..]}, ...]}
 * Every operator of the graph must appear (by name) with one value per
 * size; the graph's sizes become the table's. Nothing changes on error.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "graph/graph.h"

/* One op's three lists, checked, into fresh arrays. */
static enum status read_lists(const char *source, const json_t *op, int i, int n, double *out[3],
			      struct error *err)
{
	static const char *const keys[3] = {"fwd", "bwd", "wgrad"};
	for (int k = 0; k < 3; k++) {
		const json_t *a = json_object_get(op, keys[k]);
		if (!json_is_array(a) || json_array_size(a) != (size_t)n)
			return err_set(err, "cost table '%s': ops[%d].%s: expected a list of %d numbers (one per micro-batch size)",
				       source, i, keys[k], n);
		out[k] = malloc(n * sizeof *out[k]);
		if (!out[k])
			return err_set(err, "cost table '%s': out of memory", source);
		for (int s = 0; s < n; s++) {
			const json_t *x = json_array_get(a, s);
			if (json_is_null(x))
				return err_set(err, "cost table '%s': ops[%d].%s[%d] is null: the profile stopped before measuring it (rerun 'pipeopt profile' with a longer --time-limit)",
					       source, i, keys[k], s);
			double v = json_is_number(x) ? json_number_value(x) : -1;
			if (!(v >= 0 && isfinite(v)))
				return err_set(err, "cost table '%s': ops[%d].%s[%d]: expected a number >= 0",
					       source, i, keys[k], s);
			out[k][s] = v;
		}
	}
	return STATUS_OK;
}

static enum status read_sizes(const char *source, const json_t *root, int *n, int **sizes,
			      struct error *err)
{
	const json_t *a = json_object_get(root, "microbatch_sizes");
	if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > GRAPH_MAX_SIZES)
		return err_set(err, "cost table '%s': microbatch_sizes: expected a list of 1 to %d sizes",
			       source, GRAPH_MAX_SIZES);
	*n = (int)json_array_size(a);
	*sizes = malloc(*n * sizeof **sizes);
	if (!*sizes)
		return err_set(err, "cost table '%s': out of memory", source);
	for (int i = 0; i < *n; i++) {
		const json_t *x = json_array_get(a, i);
		if (!json_is_integer(x) || json_integer_value(x) < 1 ||
		    json_integer_value(x) > GRAPH_MAX_BATCH ||
		    (i && json_integer_value(x) <= (*sizes)[i - 1]))
			return err_set(err, "cost table '%s': microbatch_sizes: entry %d is not an integer from 1 to %d above the previous one",
				       source, i, GRAPH_MAX_BATCH);
		(*sizes)[i] = (int)json_integer_value(x);
	}
	return STATUS_OK;
}

enum status graph_apply_costs(struct graph *g, const char *path, struct error *err)
{
	char *text;
	if (file_slurp(path, "cost table", &text, err))
		return STATUS_ERROR;
	enum status st = graph_parse_costs(g, text, path, err);
	free(text);
	return st;
}

enum status graph_parse_costs(struct graph *g, const char *text, const char *source,
			      struct error *err)
{
	json_error_t je;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return err_set(err, "cost table '%s': line %d, column %d: %s", source, je.line, je.column,
			       je.text);
	int n = 0, *sizes = NULL;
	double *(*lists)[3] = calloc(g->nops, sizeof *lists);
	const json_t *ops = json_object_get(root, "ops");
	enum status st = lists ? read_sizes(source, root, &n, &sizes, err)
			       : err_set(err, "cost table '%s': out of memory", source);
	if (!st && !json_is_array(ops))
		st = err_set(err, "cost table '%s': ops: expected a list", source);
	for (size_t i = 0; !st && i < json_array_size(ops); i++) {
		const json_t *op = json_array_get(ops, i);
		const char *name = json_string_value(json_object_get(op, "name"));
		int v = name ? graph_find(g, name) : -1;
		if (v < 0)
			st = err_set(err, "cost table '%s': ops[%zu]: %s%s%s", source, i,
				     name ? "graph has no operator '" : "name: expected a string",
				     name ? name : "", name ? "'" : "");
		else if (lists[v][0])
			st = err_set(err, "cost table '%s': ops[%zu]: operator '%s' appears twice", source, i,
				     g->ops[v].name);
		else
			st = read_lists(source, op, (int)i, n, lists[v], err);
	}
	for (int v = 0; !st && v < g->nops; v++)
		if (!lists[v][0])
			st = err_set(err, "cost table '%s': no costs for operator '%s' of graph '%s'", source,
				     g->ops[v].name, g->name);
	for (int v = 0; !st && v < g->nops; v++) {   /* commit */
		free(g->ops[v].fwd);
		free(g->ops[v].bwd);
		free(g->ops[v].wgrad);
		g->ops[v].fwd = lists[v][0];
		g->ops[v].bwd = lists[v][1];
		g->ops[v].wgrad = lists[v][2];
		lists[v][0] = lists[v][1] = lists[v][2] = NULL;
	}
	if (!st) {
		free(g->microbatch_sizes);
		g->microbatch_sizes = sizes;
		g->nsizes = n;
		sizes = NULL;
	}
	for (int v = 0; lists && v < g->nops; v++)
		for (int k = 0; k < 3; k++)
			free(lists[v][k]);
	free(lists);
	free(sizes);
	json_decref(root);
	return st;
}
