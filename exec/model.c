/* The executor's model: layers built from graph operators (the kinds'
 * layer lists are ops/op_kind.h's table), run with ops/cpu_kernels.h (the
 * mathematics is in model.h). */
#include "exec/model.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ops/cpu_kernels.h"

/* ---- building ------------------------------------------------------------------- */

static size_t weights_of(enum layer_kind k, size_t H)
{
	return k == LAYER_LINEAR ? H * H : k == LAYER_LAYERNORM ? 2 * H :
	       k == LAYER_ATTENTION ? 4 * H * H : 0;
}

/* Floats a layer keeps in the arena beyond act[] and grad[]. */
static size_t kept_of(enum layer_kind k, size_t R, size_t H)
{
	return k == LAYER_LAYERNORM ? R * H + R : k == LAYER_ATTENTION ? 8 * R * H + 2 * R * R : 0;
}

static int net_append(struct stage_net *st, enum layer_kind k)
{
	enum layer_kind *kind = realloc(st->kind, (st->n + 1) * sizeof *kind);
	if (!kind)
		return -1;
	st->kind = kind;
	st->kind[st->n++] = k;
	return 0;
}

/* Offsets and sizes once the layer list is known. */
static int net_layout(struct exec_model *m, struct stage_net *st)
{
	size_t RH = (size_t)m->R * m->H;
	st->woff = calloc(st->n ? st->n : 1, sizeof *st->woff);
	st->soff = calloc(st->n ? st->n : 1, sizeof *st->soff);
	if (!st->woff || !st->soff)
		return -1;
	st->arena = 2 * (size_t)(st->n + 1) * RH;
	for (int i = 0; i < st->n; i++) {
		st->woff[i] = st->weights;
		st->weights += weights_of(st->kind[i], m->H);
		st->soff[i] = st->arena;
		st->arena += kept_of(st->kind[i], m->R, m->H);
		m->layers[st->kind[i]]++;
	}
	return 0;
}

static enum status from_graph(struct exec_model *m, const struct instance *in, struct error *err)
{
	const struct stage_model *sm = in->model;
	if (sm->graph && !(m->graph = strdup(sm->graph)))
		return err_set(err, "exec: out of memory");
	for (int l = 0; l < m->L; l++) {
		const struct model_stage *ops = &sm->stages[l];
		for (int i = 0; i < ops->nops; i++) {
			const char *kind = ops->ops[i].kind;
			const struct op_kind_entry *k = op_kind_find(kind);
			if (!k) {
				char names[256];
				return err_set(err, "instance '%s': model.stages[%d][%d]: operator '%s' has kind '%s', which the executor cannot build (%s)",
					       in->name, l, i, ops->ops[i].name, kind,
					       op_kind_names(names, sizeof names, false));
			}
			for (int x = 0; x < k->nlayers; x++)
				if (net_append(&m->st[l], k->layers[x]))
					return err_set(err, "exec: out of memory");
		}
	}
	return STATUS_OK;
}

enum status exec_model_build(const struct instance *in, int H, int R,
			     struct exec_model **out, struct error *err)
{
	struct exec_model *m = calloc(1, sizeof *m);
	*out = NULL;
	if (!m || !(m->st = calloc(in->stages, sizeof *m->st))) {
		free(m);
		return err_set(err, "exec: out of memory");
	}
	m->L = in->stages;
	m->H = H;
	m->R = R;
	enum status st = STATUS_OK;
	if (in->model)
		st = from_graph(m, in, err);
	else
		for (int l = 0; !st && l < m->L; l++)
			if (net_append(&m->st[l], LAYER_LINEAR) || net_append(&m->st[l], LAYER_GELU))
				st = err_set(err, "exec: out of memory");
	for (int l = 0; !st && l < m->L; l++)
		if (net_layout(m, &m->st[l]))
			st = err_set(err, "exec: out of memory");
	if (st) {
		exec_model_free(m);
		return st;
	}
	*out = m;
	return STATUS_OK;
}

void exec_model_free(struct exec_model *m)
{
	if (!m)
		return;
	for (int l = 0; m->st && l < m->L; l++) {
		free(m->st[l].kind);
		free(m->st[l].woff);
		free(m->st[l].soff);
	}
	free(m->st);
	free(m->graph);
	free(m);
}

/* ---- kernels -------------------------------------------------------------------- */

static void fill(float *x, size_t n, unsigned seed, float scale, float shift)
{
	for (size_t i = 0; i < n; i++)
		x[i] = shift + scale * ((float)(((i + 1) * 2654435761u + seed * 40503u) % 2001) / 2000.0f - 0.5f);
}

void net_init_weights(const struct exec_model *m, int l, float *w)
{
	const struct stage_net *st = &m->st[l];
	size_t H = m->H;
	float s = 2.0f / sqrtf((float)H);
	for (int i = 0; i < st->n; i++) {
		unsigned seed = 100 + 16 * (unsigned)l + (unsigned)i;
		float *x = w + st->woff[i];
		if (st->kind[i] == LAYER_LAYERNORM) {
			fill(x, H, seed, 0.2f, 1.0f);          /* gain near 1 */
			fill(x + H, H, seed + 7, 0.2f, 0.0f);  /* bias near 0 */
		} else {
			fill(x, weights_of(st->kind[i], H), seed, s, 0.0f);
		}
	}
}

/* The attention layer's kept state in the arena. */
struct attn {
	float *Q, *K, *V, *O, *dQ, *dK, *dV, *dO, *P, *dP;
};

static struct attn attn_state(const struct exec_model *m, float *kept)
{
	size_t RH = (size_t)m->R * m->H, RR = (size_t)m->R * m->R;
	return (struct attn){kept, kept + RH, kept + 2 * RH, kept + 3 * RH, kept + 4 * RH,
			     kept + 5 * RH, kept + 6 * RH, kept + 7 * RH, kept + 8 * RH,
			     kept + 8 * RH + RR};
}

static void attention_forward(const struct exec_model *m, const float *w, const float *x,
			      float *y, float *kept)
{
	int R = m->R, H = m->H;
	size_t HH = (size_t)H * H;
	float c = 1.0f / sqrtf((float)H);
	struct attn a = attn_state(m, kept);
	cpu_gemm_packed(false, false, R, H, H, 1, x, w, 0, a.Q);
	cpu_gemm_packed(false, false, R, H, H, 1, x, w + HH, 0, a.K);
	cpu_gemm_packed(false, false, R, H, H, 1, x, w + 2 * HH, 0, a.V);
	cpu_gemm_packed(false, true, R, R, H, c, a.Q, a.K, 0, a.P);
	cpu_softmax_rows(a.P, R, R, 1.0f);
	cpu_gemm_packed(false, false, R, H, R, 1, a.P, a.V, 0, a.O);
	cpu_gemm_packed(false, false, R, H, H, 1, a.O, w + 3 * HH, 0, y);
}

static void attention_backward(const struct exec_model *m, const float *w, const float *dy,
			       float *dx, float *kept)
{
	int R = m->R, H = m->H;
	size_t HH = (size_t)H * H;
	float c = 1.0f / sqrtf((float)H);
	struct attn a = attn_state(m, kept);
	cpu_gemm_packed(false, true, R, H, H, 1, dy, w + 3 * HH, 0, a.dO);
	cpu_gemm_packed(false, true, R, R, H, 1, a.dO, a.V, 0, a.dP);
	cpu_gemm_packed(true, false, R, H, R, 1, a.P, a.dO, 0, a.dV);
	cpu_softmax_rows_backward(a.P, a.dP, R, R);   /* dS = P (dP - rowsum(P dP)), in dP */
	cpu_gemm_packed(false, false, R, H, R, c, a.dP, a.K, 0, a.dQ);
	cpu_gemm_packed(true, false, R, H, R, c, a.dP, a.Q, 0, a.dK);
	cpu_gemm_packed(false, true, R, H, H, 1, a.dQ, w, 0, dx);
	cpu_gemm_packed(false, true, R, H, H, 1, a.dK, w + HH, 1, dx);
	cpu_gemm_packed(false, true, R, H, H, 1, a.dV, w + 2 * HH, 1, dx);
}

/* Layer norm (w = [g | b], H each); kept: xh (R x H), then r (R). */
static void layernorm_forward(const struct exec_model *m, const float *w, const float *x,
			      float *y, float *kept)
{
	size_t RH = (size_t)m->R * m->H;
	cpu_layernorm_forward(x, y, m->R, m->H, w, w + m->H, kept, kept + RH);
}

static void layernorm_backward(const struct exec_model *m, const float *w, const float *dy,
			       float *dx, const float *kept)
{
	size_t RH = (size_t)m->R * m->H;
	cpu_layernorm_backward(dy, dx, m->R, m->H, w, kept, kept + RH);
}

void net_forward(const struct exec_model *m, int l, const float *w, float *arena)
{
	const struct stage_net *st = &m->st[l];
	size_t RH = (size_t)m->R * m->H;
	for (int i = 0; i < st->n; i++) {
		const float *x = net_act(m, arena, i), *wi = w + st->woff[i];
		float *y = net_act(m, arena, i + 1), *kept = arena + st->soff[i];
		switch (st->kind[i]) {
		case LAYER_LINEAR:
			cpu_gemm_packed(false, false, m->R, m->H, m->H, 1, x, wi, 0, y);
			break;
		case LAYER_GELU:
			cpu_gelu(x, y, RH);
			break;
		case LAYER_LAYERNORM:
			layernorm_forward(m, wi, x, y, kept);
			break;
		default:
			attention_forward(m, wi, x, y, kept);
		}
	}
}

void net_backward(const struct exec_model *m, int l, const float *w, float *arena)
{
	const struct stage_net *st = &m->st[l];
	size_t RH = (size_t)m->R * m->H;
	for (int i = st->n - 1; i >= 0; i--) {
		const float *x = net_act(m, arena, i), *dy = net_grad(m, l, arena, i + 1);
		const float *wi = w + st->woff[i];
		float *dx = net_grad(m, l, arena, i), *kept = arena + st->soff[i];
		switch (st->kind[i]) {
		case LAYER_LINEAR:
			cpu_gemm_packed(false, true, m->R, m->H, m->H, 1, dy, wi, 0, dx);
			break;
		case LAYER_GELU:
			cpu_gelu_grad(x, dy, dx, RH);
			break;
		case LAYER_LAYERNORM:
			layernorm_backward(m, wi, dy, dx, kept);
			break;
		default:
			attention_backward(m, wi, dy, dx, kept);
		}
	}
}

void net_weight(const struct exec_model *m, int l, float *arena, float *dw)
{
	const struct stage_net *st = &m->st[l];
	int R = m->R, H = m->H;
	size_t HH = (size_t)H * H;
	for (int i = 0; i < st->n; i++) {
		const float *x = net_act(m, arena, i), *dy = net_grad(m, l, arena, i + 1);
		float *d = dw + st->woff[i], *kept = arena + st->soff[i];
		if (st->kind[i] == LAYER_LINEAR) {
			cpu_gemm_packed(true, false, H, H, R, 1, x, dy, 1, d);
		} else if (st->kind[i] == LAYER_LAYERNORM) {
			cpu_layernorm_weight(dy, kept, R, H, d, d + H);
		} else if (st->kind[i] == LAYER_ATTENTION) {
			struct attn a = attn_state(m, kept);
			cpu_gemm_packed(true, false, H, H, R, 1, x, a.dQ, 1, d);
			cpu_gemm_packed(true, false, H, H, R, 1, x, a.dK, 1, d + HH);
			cpu_gemm_packed(true, false, H, H, R, 1, x, a.dV, 1, d + 2 * HH);
			cpu_gemm_packed(true, false, H, H, R, 1, a.O, dy, 1, d + 3 * HH);
		}
	}
}
