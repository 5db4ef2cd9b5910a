/*
 * The CPU cost source: each operator's forward, input-gradient and
 * weight-gradient kernels in fp32 with OpenBLAS (GEMMs) and plain loops
 * (normalisation, activation, gathers), on buffers of the operator's shape
 * at q samples. Each phase runs `warmup` times, then `repeats` times; its
 * cost is the median. The kernels are ops/cpu_kernels.h's, the ones the
 * executor runs, in the real computations of the kind, not stand-ins of
 * similar size:
 *   linear [n, k]:  Y = X W;  dX = dY W^T;  dW = X^T dY
 *   transformer_layer [s, h, f, a] (tokens T = q s, head size e = h / a):
 *     forward  QKV = X Wqkv; per sample and head S = Q K^T / sqrt(e),
 *              softmax, O = S V; A = O Wo; H = A W1; G = gelu(H); Y = G W2
 *     input gradient: dG = dY W2^T; dH = gelu'(H) dG; dA = dH W1^T;
 *              dO = dA Wo^T; per head dS = dO V^T, softmax', dQ = dS K,
 *              dK = dS^T Q, dV = S^T dO; dX = dQKV Wqkv^T
 *     weight gradient: dW2 = G^T dY; dW1 = A^T dH; dWo = O^T dA;
 *              dWqkv = X^T dQKV
 *   attention [s, h, a]: the transformer's attention part alone:
 *     QKV = X Wqkv, per sample and head softmax(Q K^T / sqrt(e)) V, A = O Wo;
 *     dO = dA Wo^T, per head as above, dX = dQKV Wqkv^T; dWo = O^T dA,
 *     dWqkv = X^T dQKV
 *   embedding_bag [rows, dim, bag]: sums of bag rows; backward scatters
 *   layernorm [n], gelu [n]: the forward over q n rows of n, in place; the
 *     input gradient is charged the forward's cost (as the CUDA and
 *     analytic sources do); no weight gradient
 *   input, concat, interaction: copying out_bytes per sample
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/stop.h"
#include "ops/cpu_kernels.h"
#include "profile/source.h"

/* fp32 buffers of one operator at one size */
struct bufs {
	float *p[16];
	size_t n[16];
	int count;
};

static float *buf(struct bufs *b, size_t n)
{
	float *x = malloc((n ? n : 1) * sizeof *x);
	if (!x)
		return NULL;
	for (size_t i = 0; i < n; i++)   /* deterministic, small values */
		x[i] = (float)((i * 2654435761u % 1000) / 1000.0 - 0.5);
	b->p[b->count] = x;
	b->n[b->count++] = n;
	return x;
}

static void bufs_release(struct bufs *b)
{
	for (int i = 0; i < b->count; i++)
		free(b->p[i]);
	b->count = 0;
}

/* C[m x n] = op(A) op(B) (row major, leading dimensions as stored). */
static void gemm(bool ta, bool tb, int m, int n, int k, const float *A, int lda, const float *B,
		 int ldb, float *C, int ldc)
{
	cpu_gemm(ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
}

enum phase { FWD, BWD, WGRAD };

/* The state of one operator's kernels at q samples. */
struct kern {
	const struct graph_op *op;
	const struct op_kind_entry *kind;   /* op's entry (op_check passed) */
	int q;
	struct bufs b;
	float *x[16];
};

static int setup(struct kern *k)
{
	const struct graph_op *op = k->op;
	const double *sh = op->shape;
	size_t q = k->q;
	switch (k->kind->id) {
	case OP_KIND_LINEAR: {
		size_t n = sh[0], m = sh[1];
		size_t sz[6] = {q * n, n * m, q * m, q * m, q * n, n * m};   /* X W Y dY dX dW */
		for (int i = 0; i < 6; i++)
			if (!(k->x[i] = buf(&k->b, sz[i])))
				return -1;
		break;
	}
	case OP_KIND_TRANSFORMER_LAYER:
	case OP_KIND_ATTENTION: {
		bool attn = k->kind->id == OP_KIND_ATTENTION;   /* no feed-forward: f = 1 */
		size_t s = sh[0], h = sh[1], f = attn ? 1 : sh[2], a = sh[k->kind->heads], T = q * s;
		/* X Wqkv QKV S O Wo A W1 H W2 Y dY dQKV dS dO dA */
		size_t sz[16] = {T * h, h * 3 * h, T * 3 * h, q * a * s * s, T * h, h * h, T * h,
				 h * f, T * f, f * h, T * h, T * h, T * 3 * h, q * a * s * s, T * h,
				 T * h};
		for (int i = 0; i < 16; i++)
			if (!(k->x[i] = buf(&k->b, sz[i])))
				return -1;
		break;
	}
	case OP_KIND_EMBEDDING_BAG: {
		size_t rows = sh[0], dim = sh[1];
		if (!(k->x[0] = buf(&k->b, rows * dim)) || !(k->x[1] = buf(&k->b, q * dim)))
			return -1;
		break;
	}
	case OP_KIND_LAYERNORM:
	case OP_KIND_GELU:
		if (!(k->x[0] = buf(&k->b, q * (size_t)sh[0])) || !(k->x[1] = buf(&k->b, q * (size_t)sh[0])))
			return -1;
		break;
	default: {   /* input, concat, interaction: copies */
		size_t n = q * (size_t)(op->out_bytes / 4 + 1);
		if (!(k->x[0] = buf(&k->b, n)) || !(k->x[1] = buf(&k->b, n)))
			return -1;
	}
	}
	return 0;
}

static void run_linear(struct kern *k, enum phase ph)
{
	int q = k->q, n = k->op->shape[0], m = k->op->shape[1];
	float **x = k->x;
	if (ph == FWD)
		gemm(false, false, q, m, n, x[0], n, x[1], m, x[2], m);
	else if (ph == BWD)
		gemm(false, true, q, n, m, x[3], m, x[1], m, x[4], n);
	else
		gemm(true, false, n, m, q, x[0], n, x[3], m, x[5], m);
}

/* Attention per sample and head over the packed QKV rows (T x 3h). */
static void attention(struct kern *k, bool backward)
{
	int s = k->op->shape[0], h = k->op->shape[1], a = k->op->shape[k->kind->heads], e = h / a;
	float **x = k->x, scale = 1.0f / sqrtf((float)e);
	for (int i = 0; i < k->q; i++)
		for (int j = 0; j < a; j++) {
			const float *Q = x[2] + (size_t)i * s * 3 * h + j * e, *K = Q + h, *V = Q + 2 * h;
			float *S = x[3] + ((size_t)i * a + j) * s * s, *O = x[4] + (size_t)i * s * h + j * e;
			if (!backward) {
				gemm(false, true, s, s, e, Q, 3 * h, K, 3 * h, S, s);
				cpu_softmax_rows(S, s, s, scale);
				gemm(false, false, s, e, s, S, s, V, 3 * h, O, h);
				continue;
			}
			float *dS = x[13] + ((size_t)i * a + j) * s * s;
			const float *dO = x[14] + (size_t)i * s * h + j * e;
			float *dQ = x[12] + (size_t)i * s * 3 * h + j * e, *dK = dQ + h, *dV = dQ + 2 * h;
			gemm(false, true, s, s, e, dO, h, V, 3 * h, dS, s);
			cpu_softmax_rows_backward(S, dS, s, s);   /* dS = S (dS - rowsum(S dS)) */
			gemm(false, false, s, e, s, dS, s, K, 3 * h, dQ, 3 * h);
			gemm(true, false, s, e, s, dS, s, Q, 3 * h, dK, 3 * h);
			gemm(true, false, s, e, s, S, s, dO, h, dV, 3 * h);
		}
}

static void run_transformer(struct kern *k, enum phase ph)
{
	int T = k->q * (int)k->op->shape[0], h = k->op->shape[1], f = k->op->shape[2];
	float **x = k->x;
	if (ph == FWD) {
		cpu_layernorm_forward(x[0], x[0], T, h, NULL, NULL, NULL, NULL);
		gemm(false, false, T, 3 * h, h, x[0], h, x[1], 3 * h, x[2], 3 * h);
		attention(k, false);
		gemm(false, false, T, h, h, x[4], h, x[5], h, x[6], h);
		gemm(false, false, T, f, h, x[6], h, x[7], f, x[8], f);
		cpu_gelu(x[8], x[8], (size_t)T * f);
		gemm(false, false, T, h, f, x[8], f, x[9], h, x[10], h);
	} else if (ph == BWD) {
		gemm(false, true, T, f, h, x[11], h, x[9], h, x[8], f);       /* dG */
		cpu_gelu_grad(x[8], x[8], x[8], (size_t)T * f);               /* dH = gelu'(H) dG (in place) */
		gemm(false, true, T, h, f, x[8], f, x[7], f, x[15], h);      /* dA */
		gemm(false, true, T, h, h, x[15], h, x[5], h, x[14], h);     /* dO */
		attention(k, true);
		gemm(false, true, T, h, 3 * h, x[12], 3 * h, x[1], 3 * h, x[0], h);   /* dX */
	} else {
		gemm(true, false, f, h, T, x[8], f, x[11], h, x[9], h);      /* dW2 */
		gemm(true, false, h, f, T, x[6], h, x[8], f, x[7], f);       /* dW1 */
		gemm(true, false, h, h, T, x[4], h, x[15], h, x[5], h);      /* dWo */
		gemm(true, false, h, 3 * h, T, x[0], h, x[12], 3 * h, x[1], 3 * h);   /* dWqkv */
	}
}

/* The attention operator alone (buffers as the transformer's). */
static void run_attention(struct kern *k, enum phase ph)
{
	int T = k->q * (int)k->op->shape[0], h = k->op->shape[1];
	float **x = k->x;
	if (ph == FWD) {
		gemm(false, false, T, 3 * h, h, x[0], h, x[1], 3 * h, x[2], 3 * h);
		attention(k, false);
		gemm(false, false, T, h, h, x[4], h, x[5], h, x[6], h);
	} else if (ph == BWD) {
		gemm(false, true, T, h, h, x[15], h, x[5], h, x[14], h);     /* dO */
		attention(k, true);
		gemm(false, true, T, h, 3 * h, x[12], 3 * h, x[1], 3 * h, x[0], h);   /* dX */
	} else {
		gemm(true, false, h, h, T, x[4], h, x[15], h, x[5], h);      /* dWo */
		gemm(true, false, h, 3 * h, T, x[0], h, x[12], 3 * h, x[1], 3 * h);   /* dWqkv */
	}
}

static void run_embedding(struct kern *k, enum phase ph)
{
	size_t rows = k->op->shape[0], dim = k->op->shape[1], bag = k->op->shape[2];
	float *table = k->x[0], *out = k->x[1];
	for (int i = 0; i < k->q; i++)
		for (size_t j = 0; j < bag; j++) {
			size_t r = ((size_t)i * 7919 + j * 104729) % rows;
			for (size_t c = 0; c < dim; c++) {
				if (ph == FWD)
					out[i * dim + c] += table[r * dim + c];
				else if (ph == WGRAD)
					table[r * dim + c] += 1e-3f * out[i * dim + c];
			}
		}
}

static void run_phase(struct kern *k, enum phase ph)
{
	size_t n = k->b.n[0];
	switch (k->kind->id) {
	case OP_KIND_LINEAR: run_linear(k, ph); break;
	case OP_KIND_TRANSFORMER_LAYER: run_transformer(k, ph); break;
	case OP_KIND_ATTENTION: run_attention(k, ph); break;
	case OP_KIND_EMBEDDING_BAG: run_embedding(k, ph); break;
	case OP_KIND_LAYERNORM:
		if (ph != WGRAD)
			cpu_layernorm_forward(k->x[0], k->x[0], k->q, k->op->shape[0], NULL, NULL, NULL,
					      NULL);
		break;
	case OP_KIND_GELU:
		if (ph != WGRAD)
			cpu_gelu(k->x[0], k->x[0], n);
		break;
	default:   /* input, concat, interaction */
		if (ph != WGRAD)
			memcpy(k->x[1], k->x[0], n * sizeof(float));
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Whether to end the runs early: an interrupt (common/stop.h) or the
 * profile's deadline. */
static bool cut_short(double deadline)
{
	return stop_requested() || (deadline > 0 && clock_seconds() >= deadline);
}

/* Median microseconds of `repeats` runs after `warmup`; cut short (above),
 * of the runs made (at least one). */
static double time_phase(struct kern *k, enum phase ph, int warmup, int repeats, double deadline)
{
	double t[64];
	if (repeats > 64)
		repeats = 64;
	for (int i = 0; i < warmup && !cut_short(deadline); i++)
		run_phase(k, ph);
	for (int i = 0; i < repeats; i++) {
		if (i > 0 && cut_short(deadline)) {
			repeats = i;
			break;
		}
		double t0 = clock_seconds();
		run_phase(k, ph);
		t[i] = (clock_seconds() - t0) * 1e6;
	}
	qsort(t, repeats, sizeof *t, cmp_double);
	return repeats % 2 ? t[repeats / 2] : (t[repeats / 2 - 1] + t[repeats / 2]) / 2;
}

enum status profile_cpu(const struct graph *g, int v, int q, const struct profile_options *o,
			struct op_cost *c, struct error *err)
{
	struct kern k = {.op = &g->ops[v], .q = q};
	if (!(k.kind = op_check(g, v, err)))
		return STATUS_ERROR;
	if (setup(&k)) {
		bufs_release(&k.b);
		return err_set(err, "graph '%s': operator '%s': out of memory for its buffers at %d samples",
			       g->name, g->ops[v].name, q);
	}
	c->fwd = time_phase(&k, FWD, o->warmup, o->repeats, o->deadline);
	c->bwd = time_phase(&k, BWD, o->warmup, o->repeats, o->deadline);
	c->wgrad = time_phase(&k, WGRAD, o->warmup, o->repeats, o->deadline);
	c->measured = true;
	bufs_release(&k.b);
	return STATUS_OK;
}

static const char *device_text(const struct profile_options *o)
{
	return "this machine, OpenBLAS fp32";
}

const struct cost_source cost_source_cpu = {
	.name = "cpu",
	.summary = "OpenBLAS fp32 kernels run on this machine, median of repeats after warm-up",
	.devices = NULL,
	.timed = true,
	.prepare = NULL,
	.op_cost = profile_cpu,
	.device_text = device_text,
};
