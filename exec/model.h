/*
 * The executor's model: what each stage computes, as a chain of layers of
 * width H over a micro-batch of R rows (fp32, row major), built from the
 * instance's "model" (a model graph's operators per stage, written by
 * `pipeopt partition -o`), or one linear + GELU per stage without it.
 *
 * Layers (x: R x H input, y: output, dy: output gradient, c = 1/sqrt(H)):
 *   linear     y = x W                 B: dx = dy W^T          W: dW += x^T dy
 *   gelu       y = gelu(x)             B: dx = dy * gelu'(x)   (no weights)
 *   layernorm  per row: xh = (x - mean) r, r = 1/sqrt(var + 1e-5),
 *              y = g * xh + b          B: t = dy * g,
 *                                         dx = r (t - mean(t) - xh mean(t xh))
 *                                      W: dg += sum_rows dy * xh, db += sum_rows dy
 *   attention  one head over the R rows as a sequence:
 *              Q = x Wq, K = x Wk, V = x Wv, P = softmax_rows(c Q K^T),
 *              O = P V, y = O Wo
 *              B: dO = dy Wo^T, dP = dO V^T, dV = P^T dO,
 *                 dS = P * (dP - rowsum(P * dP)), dQ = c dS K, dK = c dS^T Q,
 *                 dx = dQ Wq^T + dK Wk^T + dV Wv^T
 *              W: dWq += x^T dQ, dWk += x^T dK, dWv += x^T dV, dWo += O^T dy
 * Graph kinds map to layers by ops/op_kind.h's table: linear, gelu,
 * layernorm, attention as named; transformer_layer = layernorm, attention,
 * layernorm, linear, gelu, linear (widths kept at H); embedding,
 * embedding_bag and interaction run as a linear layer (a dense stand-in of
 * the same role); input and concat add nothing (a stage's input is the sum
 * of its predecessors' outputs). Shapes are not read: every layer is H
 * wide. The kernels are ops/cpu_kernels.h's.
 *
 * A stage's F runs its layers forward, keeping what the backward needs in
 * the (stage, micro-batch) arena; B runs them backward, keeping what the
 * weight gradient needs; W accumulates the weight gradients. The same
 * functions serve the workers and the sequential reference, so with W's
 * of a stage in micro-batch order the gradients agree bitwise.
 */
#ifndef PIPEOPT_EXEC_MODEL_H
#define PIPEOPT_EXEC_MODEL_H

#include <stddef.h>

#include "common/error.h"
#include "ops/op_kind.h"   /* enum layer_kind, layer_kind_name */
#include "sched/instance.h"

struct stage_net {
	int n;                   /* layers */
	enum layer_kind *kind;   /* [n] */
	size_t *woff;            /* [n] offset of each layer's weights */
	size_t *soff;            /* [n] offset of each layer's kept state in the arena */
	size_t weights;          /* floats of the stage's weights */
	size_t arena;            /* floats of one (stage, micro-batch) arena */
};

struct exec_model {
	int L, H, R;
	struct stage_net *st;    /* [L] */
	int layers[LAYER_KINDS]; /* count of each kind over all stages */
	char *graph;             /* the model graph's name, or NULL (default model) */
};

/* Build from in->model (or the default); errors name the operator. */
enum status exec_model_build(const struct instance *in, int H, int R,
			     struct exec_model **out, struct error *err);
void exec_model_free(struct exec_model *m);

/* Arena layout: act[0..n] (act[0] the stage input, act[n] its output),
 * grad[0..n] (grad[n] the output gradient, grad[0] the input gradient),
 * then each layer's kept state. Each R x H. */
static inline float *net_act(const struct exec_model *m, float *arena, int i)
{
	return arena + (size_t)i * m->R * m->H;
}

static inline float *net_grad(const struct exec_model *m, int l, float *arena, int i)
{
	return arena + (size_t)(m->st[l].n + 1 + i) * m->R * m->H;
}

/* Deterministic weights of stage l (w: st[l].weights floats). */
void net_init_weights(const struct exec_model *m, int l, float *w);
/* F: act[0] is set; computes act[1..n]. */
void net_forward(const struct exec_model *m, int l, const float *w, float *arena);
/* B: grad[n] is set; computes grad[n-1..0]. */
void net_backward(const struct exec_model *m, int l, const float *w, float *arena);
/* W: dw += the weight gradients of this micro-batch. */
void net_weight(const struct exec_model *m, int l, float *arena, float *dw);

#endif
