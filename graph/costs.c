/*
 * Cost tables into graphs (graph.h, graph_apply_costs). A cost table is
 * what `pipeopt profile` writes:
 *   {"source": "cpu", "device": "...", "microbatch_sizes": [1, 2, 4],
 *    "ops": [{"name": "b0.ff0", "fwd": [..], "bwd": [..], "wgrad": [..]}, ...]}
 * Every operator of the graph must appear (by name) with one value per
 * size; the graph's sizes become the table's. Nothing changes on error.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

/* One op's three lists, checked, into fresh arrays. */
static enum status read_lists(const char *path, const json_t *op, int i, int n, double *out[3],
			      struct error *err)
{
	static const char *const keys[3] = {"fwd", "bwd", "wgrad"};
	for (int k = 0; k < 3; k++) {
		const json_t *a = json_object_get(op, keys[k]);
		if (!json_is_array(a) || (int)json_array_size(a) != n)
			return err_set(err, "cost table '%s': ops[%d].%s: expected a list of %d numbers (one per micro-batch size)",
				       path, i, keys[k], n);
		out[k] = malloc(n * sizeof *out[k]);
		if (!out[k])
			return err_set(err, "cost table '%s': out of memory", path);
		for (int s = 0; s < n; s++) {
			const json_t *x = json_array_get(a, s);
			if (json_is_null(x))
				return err_set(err, "cost table '%s': ops[%d].%s[%d] is null: the profile stopped before measuring it (rerun 'pipeopt profile' with a longer --time-limit)",
					       path, i, keys[k], s);
			double v = json_is_number(x) ? json_number_value(x) : -1;
			if (!(v >= 0 && isfinite(v)))
				return err_set(err, "cost table '%s': ops[%d].%s[%d]: expected a number >= 0",
					       path, i, keys[k], s);
			out[k][s] = v;
		}
	}
	return STATUS_OK;
}

static enum status read_sizes(const char *path, const json_t *root, int *n, int **sizes,
			      struct error *err)
{
	const json_t *a = json_object_get(root, "microbatch_sizes");
	if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > GRAPH_MAX_SIZES)
		return err_set(err, "cost table '%s': microbatch_sizes: expected a list of 1 to %d sizes",
			       path, GRAPH_MAX_SIZES);
	*n = (int)json_array_size(a);
	*sizes = malloc(*n * sizeof **sizes);
	if (!*sizes)
		return err_set(err, "cost table '%s': out of memory", path);
	for (int i = 0; i < *n; i++) {
		const json_t *x = json_array_get(a, i);
		if (!json_is_integer(x) || json_integer_value(x) < 1 ||
		    (i && json_integer_value(x) <= (*sizes)[i - 1]))
			return err_set(err, "cost table '%s': microbatch_sizes: entry %d is not an integer above the previous one",
				       path, i);
		(*sizes)[i] = (int)json_integer_value(x);
	}
	return STATUS_OK;
}

enum status graph_apply_costs(struct graph *g, const char *path, struct error *err)
{
	json_error_t je;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return err_set(err, "cost table '%s': line %d, column %d: %s", path, je.line, je.column,
			       je.text);
	int n = 0, *sizes = NULL;
	double *(*lists)[3] = calloc(g->nops, sizeof *lists);
	const json_t *ops = json_object_get(root, "ops");
	enum status st = lists ? read_sizes(path, root, &n, &sizes, err)
			       : err_set(err, "cost table '%s': out of memory", path);
	if (!st && !json_is_array(ops))
		st = err_set(err, "cost table '%s': ops: expected a list", path);
	for (size_t i = 0; !st && i < json_array_size(ops); i++) {
		const json_t *op = json_array_get(ops, i);
		const char *name = json_string_value(json_object_get(op, "name"));
		int v = name ? graph_find(g, name) : -1;
		if (v < 0)
			st = err_set(err, "cost table '%s': ops[%zu]: %s%s%s", path, i,
				     name ? "graph has no operator '" : "name: expected a string",
				     name ? name : "", name ? "'" : "");
		else if (lists[v][0])
			st = err_set(err, "cost table '%s': ops[%zu]: operator '%s' appears twice", path, i,
				     g->ops[v].name);
		else
			st = read_lists(path, op, (int)i, n, lists[v], err);
	}
	for (int v = 0; !st && v < g->nops; v++)
		if (!lists[v][0])
			st = err_set(err, "cost table '%s': no costs for operator '%s' of graph '%s'", path,
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
