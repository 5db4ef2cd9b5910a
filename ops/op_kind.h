/*
 * The operator vocabulary: every kind a model graph's operator may have
 * (graph.h's graph_op.kind), in one table. Each entry says
 *   - its shape: how many numbers, what they are, where the heads are;
 *   - what the profiler does with it: the FLOPs and bytes of each phase
 *     (the analytic source's counts); a kind without them has no cost
 *     model in any source (analytic, cpu, cuda), and profiling it is an
 *     error that says so;
 *   - what the executor builds from it: a list of layers (enum layer_kind).
 *
 *   kind               shape                    profiler  executor layers
 *   input              (none)                   copy      none
 *   concat             (none)                   copy      none
 *   interaction        (none)                   copy      linear
 *   linear             [n, k]                   yes       linear
 *   gelu               [n]                      yes       gelu
 *   layernorm          [n]                      yes       layernorm
 *   attention          [seq, hidden, heads]     yes       attention
 *   transformer_layer  [seq, hidden, ffn, heads] yes      layernorm, attention,
 *                                                         layernorm, linear,
 *                                                         gelu, linear
 *   embedding          (none)                   no        linear
 *   embedding_bag      [rows, dim, bag]         yes       linear
 *
 * "copy": the profiler moves out_bytes per sample (these kinds have no
 * shape). "embedding" (the GPT graphs' token embedding) has no shape to
 * size a lookup by, so the profiler has no cost model for it; the
 * executor runs it, like embedding_bag and interaction, as a dense linear
 * layer of the same role. The executor ignores shapes: all its layers
 * have width H (exec/model.h). Shapes are per sample; the counts of
 * op_work are per micro-batch of q samples.
 *
 * Usable from C and CUDA C++ (the CUDA profiler reads an entry).
 */
#ifndef PIPEOPT_OP_KIND_H
#define PIPEOPT_OP_KIND_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The executor's layers (exec/model.h has their mathematics;
 * exec_result.layers counts them in this order). */
enum layer_kind { LAYER_LINEAR, LAYER_GELU, LAYER_LAYERNORM, LAYER_ATTENTION, LAYER_KINDS };

/* "linear", "gelu", "layernorm", "attention"; "?" out of range. */
const char *layer_kind_name(enum layer_kind k);

enum op_kind_id {
	OP_KIND_INPUT,
	OP_KIND_CONCAT,
	OP_KIND_INTERACTION,
	OP_KIND_LINEAR,
	OP_KIND_GELU,
	OP_KIND_LAYERNORM,
	OP_KIND_ATTENTION,
	OP_KIND_TRANSFORMER_LAYER,
	OP_KIND_EMBEDDING,
	OP_KIND_EMBEDDING_BAG,
	OP_KIND_COUNT
};

/* The work of one phase (forward, input gradient or weight gradient) over
 * a micro-batch. */
struct op_work {
	bool runs;               /* false: the phase does nothing (no kernel, time 0) */
	double flops;            /* FLOP per micro-batch */
	double bytes;            /* bytes moved per micro-batch (fp16 weights and activations) */
};

#define OP_KIND_MAX_LAYERS 6

struct op_kind_entry {
	enum op_kind_id id;
	const char *name;
	int nshape;              /* numbers in the shape (0: none; more are ignored) */
	const char *shape;       /* what they are, "[n, k]" ("" for none) */
	int heads;               /* index of the head count in the shape (hidden at 1), or -1 */
	/* The profiler's cost model: w[0..2] = forward, input gradient, weight
	 * gradient at q samples per micro-batch; out_bytes is the graph
	 * operator's (bytes per sample). NULL: no source of the profiler
	 * costs this kind. */
	void (*work)(const double *shape, double out_bytes, int q, struct op_work w[3]);
	int nlayers;             /* the executor's layers for it */
	enum layer_kind layers[OP_KIND_MAX_LAYERS];
};

/* The entry called name; NULL for an unknown (or NULL) name. */
const struct op_kind_entry *op_kind_find(const char *name);
const struct op_kind_entry *op_kind_at(int i);   /* 0 <= i < op_kind_count(); == entry id i */
int op_kind_count(void);

/* The names, comma-separated, into buf (truncated to len); with costed,
 * only the kinds the profiler has a cost model for. Returns buf. */
const char *op_kind_names(char *buf, size_t len, bool costed);

/* Whether a shape fits kind k: exactly k->nshape numbers (a kind without
 * a shape ignores any given), each in [1, 1e8], the hidden size
 * (shape[1]) a multiple of the heads. The message names the kind but not
 * the operator (the caller prefixes that). */
enum status op_kind_check(const struct op_kind_entry *k, int nshape, const double *shape,
			  struct error *err);

#ifdef __cplusplus
}
#endif

#endif
