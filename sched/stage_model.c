/* The executor's view of an instance: operators per stage (stage_model.h). */
#include "sched/stage_model.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct stage_model *stage_model_new(const char *graph, int nstages)
{
	assert(nstages >= 0);
	struct stage_model *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->nstages = nstages;
	m->stages = calloc(nstages ? nstages : 1, sizeof *m->stages);
	if (!m->stages || (graph && !(m->graph = strdup(graph)))) {
		stage_model_free(m);
		return NULL;
	}
	return m;
}

int stage_model_add(struct stage_model *m, int l, const char *name, const char *kind)
{
	assert(l >= 0 && l < m->nstages);
	struct model_stage *st = &m->stages[l];
	struct model_op *ops = realloc(st->ops, (st->nops + 1) * sizeof *ops);
	if (!ops)
		return -1;
	st->ops = ops;
	struct model_op op = {strdup(name), strdup(kind)};
	if (!op.name || !op.kind) {
		free(op.name);
		free(op.kind);
		return -1;
	}
	st->ops[st->nops++] = op;
	return 0;
}

void stage_model_free(struct stage_model *m)
{
	if (!m)
		return;
	for (int l = 0; m->stages && l < m->nstages; l++) {
		for (int i = 0; i < m->stages[l].nops; i++) {
			free(m->stages[l].ops[i].name);
			free(m->stages[l].ops[i].kind);
		}
		free(m->stages[l].ops);
	}
	free(m->stages);
	free(m->graph);
	free(m);
}
