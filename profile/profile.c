/*
 * Profiling a whole graph into a cost table (profile.h), through the cost
 * source o->source names. With a timed source (cpu, cuda), once one run
 * of an operator takes longer than max_seconds, its larger sizes are not
 * run: they are extrapolated linearly from the largest measured size
 * (cost per sample times q) and marked so in the table ("measured": false
 * per operator and size).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

/* One operator at every size: lists fwd, bwd, wgrad, measured. */
static enum status profile_op(const struct cost_source *src, const struct graph *g, int v,
			      const struct profile_options *o, int n, const int *sizes, json_t *row,
			      struct error *err)
{
	json_t *l[4] = {json_array(), json_array(), json_array(), json_array()};
	static const char *const keys[4] = {"fwd", "bwd", "wgrad", "measured"};
	struct op_cost last = {0};
	int last_q = 0;
	enum status st = STATUS_OK;
	for (int i = 0; !st && i < n; i++) {
		struct op_cost c;
		bool slow = src->timed && last_q &&
			    (last.fwd + last.bwd + last.wgrad) * 1e-6 > o->max_seconds;
		if (slow) {
			double f = (double)sizes[i] / last_q;
			c = (struct op_cost){last.fwd * f, last.bwd * f, last.wgrad * f, false};
		} else {
			st = src->op_cost(g, v, sizes[i], o, &c, err);
			last = c;
			last_q = sizes[i];
		}
		if (st)
			break;
		json_array_append_new(l[0], json_real(c.fwd));
		json_array_append_new(l[1], json_real(c.bwd));
		json_array_append_new(l[2], json_real(c.wgrad));
		json_array_append_new(l[3], json_boolean(c.measured));
	}
	for (int k = 0; k < 4; k++)
		json_object_set_new(row, keys[k], l[k]);
	return st;
}

enum status profile_graph(const struct graph *g, const struct profile_options *o,
			  json_t **table, struct error *err)
{
	const struct cost_source *src = cost_source_find(o->source);
	char names[128];
	*table = NULL;
	if (!src)
		return err_set(err, "profile: unknown cost source '%s' (%s)", o->source ? o->source : "",
			       cost_source_names(names, sizeof names));
	if (src->prepare && src->prepare(o, err))
		return err_prefix(err, "profile");
	int n = o->nsizes ? o->nsizes : g->nsizes;
	const int *sizes = o->nsizes ? o->sizes : g->microbatch_sizes;
	json_t *ops = json_array(), *sz = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(sz, json_integer(sizes[i]));
	enum status st = STATUS_OK;
	for (int v = 0; !st && v < g->nops; v++) {
		json_t *row = json_pack("{s:s,s:s}", "name", g->ops[v].name, "kind", g->ops[v].kind);
		st = profile_op(src, g, v, o, n, sizes, row, err);
		json_array_append_new(ops, row);
	}
	json_t *t = json_pack("{s:s,s:s,s:s,s:o,s:o}", "graph", g->name, "source", src->name,
			      "device", src->device_text(o), "microbatch_sizes", sz, "ops", ops);
	if (src->timed) {
		json_object_set_new(t, "warmup", json_integer(o->warmup));
		json_object_set_new(t, "repeats", json_integer(o->repeats));
		json_object_set_new(t, "statistic", json_string("median"));
	}
	if (st) {
		json_decref(t);
		return STATUS_ERROR;
	}
	*table = t;
	return STATUS_OK;
}
