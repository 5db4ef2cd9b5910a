/*
 * What each stage of an instance computes, for the executor: the model
 * graph's operators (name, kind) per stage, each stage's in a topological
 * order. It is an instance's optional "model" (docs/formats.md), typed: read by
 * instance.c, written by `pipeopt partition -o` (partition/bridge.c), run by
 * exec/model.c. It is not part of the scheduling problem, so it is not in
 * the instance's canonical JSON or digest.
 *
 * Ownership: the model owns every string and array inside it;
 * stage_model_free() frees them all (and accepts NULL). An instance owns
 * its model (instance.model).
 */
#ifndef PIPEOPT_STAGE_MODEL_H
#define PIPEOPT_STAGE_MODEL_H

struct model_op {
	char *name;            /* the operator's name in the graph */
	char *kind;            /* its kind ("linear", "transformer_layer", ...);
	                          the executor checks it, not the reader */
};

struct model_stage {
	int nops;
	struct model_op *ops;  /* [nops] in a topological order */
};

struct stage_model {
	char *graph;           /* the model graph's name, or NULL */
	int nstages;           /* = the instance's stages */
	struct model_stage *stages;   /* [nstages] */
};

/* A model of nstages empty stages; graph (may be NULL) is copied. NULL when
 * out of memory. */
struct stage_model *stage_model_new(const char *graph, int nstages);

/* Append operator (name, kind) to stage l (0 <= l < nstages), copying both
 * strings; -1 when out of memory (the model is unchanged), else 0. */
int stage_model_add(struct stage_model *m, int l, const char *name, const char *kind);

void stage_model_free(struct stage_model *m);

#endif
