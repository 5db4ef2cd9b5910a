/* The executor's model: layers, their kernels, and how graph operators map
 * to them (the mathematics is in model.h). */
#include "exec/model.h"

#include <cblas.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- building ------------------------------------------------------------------- */

const char *layer_kind_name(enum layer_kind k)
{
	static const char *const names[] = {"linear", "gelu", "layernorm", "attention"};
	return k >= 0 && k < LAYER_KINDS ? names[k] : "?";
}

/* The layers a graph operator kind becomes; -1 for an unknown kind. */
static int layers_of(const char *kind, enum layer_kind out[6])
{
	static const struct {
		const char *kind;
		int n;
		enum layer_kind l[6];
	} map[] = {
		{"linear", 1, {LAYER_LINEAR}},
		{"gelu", 1, {LAYER_GELU}},
		{"layernorm", 1, {LAYER_LAYERNORM}},
		{"attention", 1, {LAYER_ATTENTION}},
		{"transformer_layer", 6, {LAYER_LAYERNORM, LAYER_ATTENTION, LAYER_LAYERNORM,
					  LAYER_LINEAR, LAYER_GELU, LAYER_LINEAR}},
		{"embedding", 1, {LAYER_LINEAR}},
		{"embedding_bag", 1, {LAYER_LINEAR}},
		{"interaction", 1, {LAYER_LINEAR}},
		{"input", 0, {0}},
		{"concat", 0, {0}},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(kind, map[i].kind)) {
			memcpy(out, map[i].l, map[i].n * sizeof *out);
			return map[i].n;
		}
	return -1;
}

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
	json_t *stages = json_object_get(in->model, "stages");
	json_t *g = json_object_get(in->model, "graph");
	if (g && !(m->graph = strdup(json_string_value(g))))
		return err_set(err, "exec: out of memory");
	for (int l = 0; l < m->L; l++) {
		json_t *ops = json_array_get(stages, l);
		for (size_t i = 0; i < json_array_size(ops); i++) {
			json_t *op = json_array_get(ops, i);
			const char *kind = json_string_value(json_object_get(op, "kind"));
			enum layer_kind lk[6];
			int n = layers_of(kind, lk);
			if (n < 0)
				return err_set(err, "instance '%s': model.stages[%d][%zu]: operator '%s' has kind '%s', which the executor cannot build (linear, gelu, layernorm, attention, transformer_layer, embedding, embedding_bag, interaction, input, concat)",
					       in->name, l, i,
					       json_string_value(json_object_get(op, "name")), kind);
			for (int k = 0; k < n; k++)
				if (net_append(&m->st[l], lk[k]))
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

/* C = alpha op(A) op(B) + beta C, row major; C is m x n, the inner size k. */
static void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
		 const float *B, float beta, float *C)
{
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
		    m, n, k, alpha, A, ta ? m : k, B, tb ? k : n, beta, C, n);
}

static float gelu(float x)
{
	return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

static float gelu_grad(float x)
{
	float t = tanhf(0.7978845608f * (x + 0.044715f * x * x * x));
	return 0.5f * (1 + t) + 0.5f * x * (1 - t * t) * 0.7978845608f * (1 + 3 * 0.044715f * x * x);
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
	gemm(false, false, R, H, H, 1, x, w, 0, a.Q);
	gemm(false, false, R, H, H, 1, x, w + HH, 0, a.K);
	gemm(false, false, R, H, H, 1, x, w + 2 * HH, 0, a.V);
	gemm(false, true, R, R, H, c, a.Q, a.K, 0, a.P);
	for (int i = 0; i < R; i++) {   /* softmax of each row */
		float *p = a.P + (size_t)i * R, mx = -INFINITY, sum = 0;
		for (int j = 0; j < R; j++)
			mx = p[j] > mx ? p[j] : mx;
		for (int j = 0; j < R; j++)
			sum += p[j] = expf(p[j] - mx);
		for (int j = 0; j < R; j++)
			p[j] /= sum;
	}
	gemm(false, false, R, H, R, 1, a.P, a.V, 0, a.O);
	gemm(false, false, R, H, H, 1, a.O, w + 3 * HH, 0, y);
}

static void attention_backward(const struct exec_model *m, const float *w, const float *dy,
			       float *dx, float *kept)
{
	int R = m->R, H = m->H;
	size_t HH = (size_t)H * H;
	float c = 1.0f / sqrtf((float)H);
	struct attn a = attn_state(m, kept);
	gemm(false, true, R, H, H, 1, dy, w + 3 * HH, 0, a.dO);
	gemm(false, true, R, R, H, 1, a.dO, a.V, 0, a.dP);
	gemm(true, false, R, H, R, 1, a.P, a.dO, 0, a.dV);
	for (int i = 0; i < R; i++) {   /* dS = P (dP - rowsum(P dP)), in place */
		float *p = a.P + (size_t)i * R, *d = a.dP + (size_t)i * R, dot = 0;
		for (int j = 0; j < R; j++)
			dot += p[j] * d[j];
		for (int j = 0; j < R; j++)
			d[j] = p[j] * (d[j] - dot);
	}
	gemm(false, false, R, H, R, c, a.dP, a.K, 0, a.dQ);
	gemm(true, false, R, H, R, c, a.dP, a.Q, 0, a.dK);
	gemm(false, true, R, H, H, 1, a.dQ, w, 0, dx);
	gemm(false, true, R, H, H, 1, a.dK, w + HH, 1, dx);
	gemm(false, true, R, H, H, 1, a.dV, w + 2 * HH, 1, dx);
}

static void layernorm_forward(const struct exec_model *m, const float *w, const float *x,
			      float *y, float *kept)
{
	int R = m->R, H = m->H;
	float *xh = kept, *r = kept + (size_t)R * H;
	for (int i = 0; i < R; i++) {
		const float *v = x + (size_t)i * H;
		float *h = xh + (size_t)i * H, *o = y + (size_t)i * H, mean = 0, var = 0;
		for (int k = 0; k < H; k++)
			mean += v[k];
		mean /= H;
		for (int k = 0; k < H; k++)
			var += (v[k] - mean) * (v[k] - mean);
		r[i] = 1.0f / sqrtf(var / H + 1e-5f);
		for (int k = 0; k < H; k++) {
			h[k] = (v[k] - mean) * r[i];
			o[k] = w[k] * h[k] + w[H + k];
		}
	}
}

static void layernorm_backward(const struct exec_model *m, const float *w, const float *dy,
			       float *dx, const float *kept)
{
	int R = m->R, H = m->H;
	const float *xh = kept, *r = kept + (size_t)R * H;
	for (int i = 0; i < R; i++) {
		const float *d = dy + (size_t)i * H, *h = xh + (size_t)i * H;
		float *o = dx + (size_t)i * H, mt = 0, mth = 0;
		for (int k = 0; k < H; k++) {
			mt += d[k] * w[k];
			mth += d[k] * w[k] * h[k];
		}
		mt /= H;
		mth /= H;
		for (int k = 0; k < H; k++)
			o[k] = r[i] * (d[k] * w[k] - mt - h[k] * mth);
	}
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
			gemm(false, false, m->R, m->H, m->H, 1, x, wi, 0, y);
			break;
		case LAYER_GELU:
			for (size_t k = 0; k < RH; k++)
				y[k] = gelu(x[k]);
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
			gemm(false, true, m->R, m->H, m->H, 1, dy, wi, 0, dx);
			break;
		case LAYER_GELU:
			for (size_t k = 0; k < RH; k++)
				dx[k] = dy[k] * gelu_grad(x[k]);
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
			gemm(true, false, H, H, R, 1, x, dy, 1, d);
		} else if (st->kind[i] == LAYER_LAYERNORM) {
			for (int r = 0; r < R; r++)
				for (int k = 0; k < H; k++) {
					d[k] += dy[(size_t)r * H + k] * kept[(size_t)r * H + k];
					d[H + k] += dy[(size_t)r * H + k];
				}
		} else if (st->kind[i] == LAYER_ATTENTION) {
			struct attn a = attn_state(m, kept);
			gemm(true, false, H, H, R, 1, x, a.dQ, 1, d);
			gemm(true, false, H, H, R, 1, x, a.dK, 1, d + HH);
			gemm(true, false, H, H, R, 1, x, a.dV, 1, d + 2 * HH);
			gemm(true, false, H, H, R, 1, a.O, dy, 1, d + 3 * HH);
		}
	}
}
