/* The check every cost source runs on an operator first (source.h). */
#include "profile/source.h"

const struct op_kind_entry *op_check(const struct graph *g, int v, struct error *err)
{
	const struct graph_op *op = &g->ops[v];
	const struct op_kind_entry *k = op_kind_find(op->kind);
	char names[256];
	if (!k || !k->work) {
		err_set(err, "graph '%s': operator '%s': no cost model for kind '%s' (%s; the profiler costs %s)",
			g->name, op->name, op->kind,
			k ? "the executor builds it, but no cost source has a model of it" : "an unknown kind",
			op_kind_names(names, sizeof names, true));
		return NULL;
	}
	if (op_kind_check(k, op->nshape, op->shape, err)) {
		err_prefix(err, "graph '%s': operator '%s'", g->name, op->name);
		return NULL;
	}
	return k;
}
