/*
 * Profiling a whole graph into a cost table (profile.h). With the CPU
 * source, once one run of an operator takes longer than max_seconds, its
 * larger sizes are not run: they are extrapolated linearly from the
 * largest measured size (cost per sample times q) and marked so in the
 * table ("measured": false per operator and size).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "sched/plugin.h"

static const char *source_name(const struct profile_options *o)
{
	return o->source == PROFILE_CPU ? "cpu" : o->source == PROFILE_CUDA ? "cuda" : "analytic";
}

/* Numbers in the shape of each kind (profile.h); -1 for an unknown kind. */
static int shape_size(const char *kind)
{
	static const struct {
		const char *kind;
		int n;
	} kinds[] = {{"linear", 2}, {"transformer_layer", 4}, {"attention", 3},
		     {"embedding_bag", 3}, {"layernorm", 1}, {"gelu", 1},
		     {"input", 0}, {"concat", 0}, {"interaction", 0}};
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (!strcmp(kind, kinds[i].kind))
			return kinds[i].n;
	return -1;
}

enum status profile_check_op(const struct graph *g, int v, struct error *err)
{
	const struct graph_op *op = &g->ops[v];
	int need = shape_size(op->kind);
	if (need < 0)
		return err_set(err, "graph '%s': operator '%s': no cost model for kind '%s' (linear, transformer_layer, attention, embedding_bag, layernorm, gelu, input, concat, interaction)",
			       g->name, op->name, op->kind);
	if (need && op->nshape != need)
		return err_set(err, "graph '%s': operator '%s' (%s): shape needs %d numbers, has %d",
			       g->name, op->name, op->kind, need, op->nshape);
	for (int i = 0; i < need; i++)
		if (!(op->shape[i] >= 1 && op->shape[i] <= 1e8))
			return err_set(err, "graph '%s': operator '%s': shape[%d] = %g is out of range",
				       g->name, op->name, i, op->shape[i]);
	bool attn = !strcmp(op->kind, "attention");
	if (attn || !strcmp(op->kind, "transformer_layer")) {
		int heads = (int)op->shape[attn ? 2 : 3];
		if ((int)op->shape[1] % heads)
			return err_set(err, "graph '%s': operator '%s': hidden %g is not a multiple of the %d heads",
				       g->name, op->name, op->shape[1], heads);
	}
	return STATUS_OK;
}

/* The CUDA source: in the CUDA library (sched/plugin.h), loaded on first
 * use. */
typedef enum status (*cuda_fn)(const struct graph *, int, int, const struct profile_options *,
			       struct op_cost *, struct error *);

bool profile_cuda_built(void)
{
	return cuda_library_built();
}

enum status profile_cuda(const struct graph *g, int v, int q, const struct profile_options *o,
			 struct op_cost *c, struct error *err)
{
	if (profile_check_op(g, v, err))
		return STATUS_ERROR;
	cuda_fn fn = (cuda_fn)cuda_library_symbol("pipeopt_profile_cuda", err);
	return fn ? fn(g, v, q, o, c, err) : err_prefix(err, "profile");
}

/* One operator at every size: lists fwd, bwd, wgrad, measured. */
static enum status profile_op(const struct graph *g, int v, const struct profile_options *o,
			      const struct device_rates *d, int n, const int *sizes, json_t *row,
			      struct error *err)
{
	json_t *l[4] = {json_array(), json_array(), json_array(), json_array()};
	static const char *const keys[4] = {"fwd", "bwd", "wgrad", "measured"};
	struct op_cost last = {0};
	int last_q = 0;
	enum status st = STATUS_OK;
	for (int i = 0; !st && i < n; i++) {
		struct op_cost c;
		bool slow = last_q && (last.fwd + last.bwd + last.wgrad) * 1e-6 > o->max_seconds;
		if (o->source == PROFILE_ANALYTIC) {
			st = profile_analytic(g, v, sizes[i], d, &c, err);
		} else if (slow) {
			double f = (double)sizes[i] / last_q;
			c = (struct op_cost){last.fwd * f, last.bwd * f, last.wgrad * f, false};
		} else {
			st = o->source == PROFILE_CUDA ? profile_cuda(g, v, sizes[i], o, &c, err)
						       : profile_cpu(g, v, sizes[i], o, &c, err);
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
	const struct device_rates *d = NULL;
	*table = NULL;
	if (o->source == PROFILE_ANALYTIC && !(d = profile_device(o->device ? o->device : "")))
		return err_set(err, "profile: unknown device '%s' for the analytic source (h200, a100, v100)",
			       o->device ? o->device : "");
	int n = o->nsizes ? o->nsizes : g->nsizes;
	const int *sizes = o->nsizes ? o->sizes : g->microbatch_sizes;
	json_t *ops = json_array(), *sz = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(sz, json_integer(sizes[i]));
	enum status st = STATUS_OK;
	for (int v = 0; !st && v < g->nops; v++) {
		json_t *row = json_pack("{s:s,s:s}", "name", g->ops[v].name, "kind", g->ops[v].kind);
		st = profile_op(g, v, o, d, n, sizes, row, err);
		json_array_append_new(ops, row);
	}
	char device[96];
	snprintf(device, sizeof device, "%s", o->source == PROFILE_CPU ? "this machine, OpenBLAS fp32" :
		 o->source == PROFILE_CUDA ? "this machine's GPU, cuBLAS fp32" : d->name);
	json_t *t = json_pack("{s:s,s:s,s:s,s:o,s:o}", "graph", g->name, "source", source_name(o),
			      "device", device, "microbatch_sizes", sz, "ops", ops);
	if (o->source != PROFILE_ANALYTIC) {
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
