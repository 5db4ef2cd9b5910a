/*
 * The CUDA executor path (exec_cuda.h): the schedule run on one GPU, one
 * host worker thread and one CUDA stream per pipeline device, mirroring the
 * CPU threaded runner (exec.c) op for op:
 *   F(l, j): act[0] = the micro-batch at a source stage, else the sum of
 *            the predecessors' outputs (edge order); the layers forward;
 *   B(l, j): grad[n] = y at a sink (loss 1/2 |y|^2), else the sum of the
 *            successors' input gradients; the layers backward; a fused
 *            backward (!split_backward) also runs W;
 *   W(l, j): dW[l] += this micro-batch's weight gradients.
 * The layers' mathematics and the arena layout are model.h's (same weight
 * layout, same kept state), so the gradients agree with the CPU reference
 * up to summation order (fp32 on both sides; cuBLAS in its default math
 * mode, so no TF32).
 *
 * A worker waits (host mutex + condition variable, under the watchdog) for
 * its op's inputs, enqueues the op's kernels on its stream, synchronises the
 * stream, then marks the op done: an op's inputs, written on another stream,
 * are complete before it starts. Times are the host clock around enqueue +
 * synchronise, from the run's start. Every buffer is allocated, and the
 * weights and the input copied up, before the clock starts; each device's
 * stages run once on scratch state beforehand (so cuBLAS's kernels are
 * loaded and chosen outside the run), then everything is zeroed again.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

/* The C headers' system headers first, outside extern "C" (libstdc++'s
 * wrappers of them declare C++ overloads). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <type_traits>

extern "C" {
#include "exec/exec_cuda.h"
#include "common/clock.h"
#include "sched/ready.h"
}

extern "C" int pipeopt_exec_cuda(struct exec_cuda_run *r);
static_assert(std::is_same<decltype(&pipeopt_exec_cuda), exec_cuda_fn>::value,
	      "pipeopt_exec_cuda must match exec_cuda_fn");

namespace {

/* ---- kernels ------------------------------------------------------------------- */

#include "ops/cuda_common.cuh"

/* a += b */
__global__ void k_add(float *a, const float *b, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		a[i] += b[i];
}

/* Layer norm forward, one block per row (w = [g | b], H each):
 * xh = (x - mean) r, r = 1/sqrt(var + 1e-5), y = g xh + b; keeps xh, r. */
__global__ void k_layernorm_fwd(const float *w, const float *x, float *y, float *xh,
				float *rr, int H)
{
	size_t row = blockIdx.x;
	const float *v = x + row * H;
	float s = 0;
	for (int k = threadIdx.x; k < H; k += blockDim.x)
		s += v[k];
	float mean = block_reduce<false>(s) / H;
	s = 0;
	for (int k = threadIdx.x; k < H; k += blockDim.x)
		s += (v[k] - mean) * (v[k] - mean);
	float r = 1.0f / sqrtf(block_reduce<false>(s) / H + 1e-5f);
	if (!threadIdx.x)
		rr[row] = r;
	for (int k = threadIdx.x; k < H; k += blockDim.x) {
		float h = (v[k] - mean) * r;
		xh[row * H + k] = h;
		y[row * H + k] = w[k] * h + w[H + k];
	}
}

/* Layer norm input gradient, one block per row: t = dy g,
 * dx = r (t - mean(t) - xh mean(t xh)). */
__global__ void k_layernorm_bwd(const float *w, const float *dy, float *dx, const float *xh,
				const float *rr, int H)
{
	size_t row = blockIdx.x;
	const float *d = dy + row * H, *h = xh + row * H;
	float a = 0, b = 0;
	for (int k = threadIdx.x; k < H; k += blockDim.x) {
		float t = d[k] * w[k];
		a += t;
		b += t * h[k];
	}
	float mt = block_reduce<false>(a) / H, mth = block_reduce<false>(b) / H, r = rr[row];
	for (int k = threadIdx.x; k < H; k += blockDim.x)
		dx[row * H + k] = r * (d[k] * w[k] - mt - h[k] * mth);
}

/* Layer norm weight gradient, one thread per column, rows in order (as
 * model.c): dg += sum_rows dy xh, db += sum_rows dy. */
__global__ void k_layernorm_w(const float *dy, const float *xh, float *dw, int R, int H)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= H)
		return;
	float g = dw[k], b = dw[H + k];
	for (int r = 0; r < R; r++) {
		float d = dy[(size_t)r * H + k];
		g += d * xh[(size_t)r * H + k];
		b += d;
	}
	dw[k] = g;
	dw[H + k] = b;
}

/* ---- the run's state ------------------------------------------------------------- */

struct gpu_run;

/* One worker: a pipeline device, its stream and cuBLAS handle, and the
 * first error of the op it enqueues. */
struct worker {
	gpu_run *g;
	int d;
	cudaStream_t stream;
	cublasHandle_t blas;
	cudaError_t ce;
	cublasStatus_t be;
};

struct gpu_run {
	exec_cuda_run *r;
	const instance *in;
	const exec_model *m;
	int L, M, D, device;
	size_t act;             /* R * H floats */
	float **W, **dW;        /* [L] device */
	float **slab;           /* [L] device: stage l's M arenas, stride[l] apart */
	size_t *stride;         /* [L] floats */
	float *input;           /* [M * act] device */
	worker *wk;             /* [D] */
	unsigned char *fdone, *bdone;   /* [L * M] */
	int *live;              /* [D] */
	double t0;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool sync_ok;
	bool failed;
	error err;
};

float *arena_of(const gpu_run *g, int l, int j)
{
	return g->slab[l] + (size_t)j * g->stride[l];
}

/* Stage l's output on micro-batch j; its input gradient. */
float *output_of(const gpu_run *g, int l, int j)
{
	return net_act(g->m, arena_of(g, l, j), g->m->st[l].n);
}

float *input_grad_of(const gpu_run *g, int l, int j)
{
	return net_grad(g->m, l, arena_of(g, l, j), 0);
}

/* "F(3,12)" (as op_format in sched/instance.c, which this library does not
 * link). */
const char *op_name(char *buf, size_t len, const op *o)
{
	static const char *const k[] = {"F", "B", "W"};
	snprintf(buf, len, "%s(%d,%d)", o->kind >= 0 && o->kind < 3 ? k[o->kind] : "?", o->stage,
		 o->mb);
	return buf;
}

/* ---- enqueueing (the first error is kept in the worker) ----------------------- */

void note(worker *w, cudaError_t e)
{
	if (w->ce == cudaSuccess)
		w->ce = e;
}

/* Row-major C[m x n] = alpha op(A) op(B) + beta C (inner size k; A is m x k,
 * or k x m when ta; B is k x n, or n x k when tb) through column-major
 * cuBLAS: the column-major view of a row-major matrix is its transpose, so
 * compute C^T = op(B)^T op(A)^T. */
void gemm(worker *w, bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
	  const float *B, float beta, float *C)
{
	if (w->be != CUBLAS_STATUS_SUCCESS)
		return;
	w->be = cublasSgemm(w->blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
			    n, m, k, &alpha, B, tb ? k : n, A, ta ? m : k, &beta, C, n);
}

void copy(worker *w, float *dst, const float *src, size_t n)
{
	note(w, cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, w->stream));
}

void add(worker *w, float *a, const float *b, size_t n)
{
	k_add<<<blocks_for(n), THREADS, 0, w->stream>>>(a, b, n);
}

/* The attention layer's kept state (model.c's struct attn): Q K V O dQ dK
 * dV dO (R x H each), P dP (R x R each). */
struct attn {
	float *Q, *K, *V, *O, *dQ, *dK, *dV, *dO, *P, *dP;
};

attn attn_state(const exec_model *m, float *kept)
{
	size_t RH = (size_t)m->R * m->H, RR = (size_t)m->R * m->R;
	return attn{kept, kept + RH, kept + 2 * RH, kept + 3 * RH, kept + 4 * RH, kept + 5 * RH,
		    kept + 6 * RH, kept + 7 * RH, kept + 8 * RH, kept + 8 * RH + RR};
}

/* One head over the R rows (w = [Wq | Wk | Wv | Wo], H x H each, c = 1/sqrt(H)):
 * Q = x Wq, K = x Wk, V = x Wv, P = softmax_rows(c Q K^T), O = P V, y = O Wo. */
void attention_forward(worker *w, const exec_model *m, const float *wt, const float *x,
		       float *y, float *kept)
{
	int R = m->R, H = m->H;
	size_t HH = (size_t)H * H;
	float c = 1.0f / sqrtf((float)H);
	attn a = attn_state(m, kept);
	gemm(w, false, false, R, H, H, 1, x, wt, 0, a.Q);
	gemm(w, false, false, R, H, H, 1, x, wt + HH, 0, a.K);
	gemm(w, false, false, R, H, H, 1, x, wt + 2 * HH, 0, a.V);
	gemm(w, false, true, R, R, H, c, a.Q, a.K, 0, a.P);
	k_softmax<<<R, THREADS, 0, w->stream>>>(a.P, R);
	gemm(w, false, false, R, H, R, 1, a.P, a.V, 0, a.O);
	gemm(w, false, false, R, H, H, 1, a.O, wt + 3 * HH, 0, y);
}

/* dO = dy Wo^T, dP = dO V^T, dV = P^T dO, dS = P (dP - rowsum(P dP)) (into
 * dP), dQ = c dS K, dK = c dS^T Q, dx = dQ Wq^T + dK Wk^T + dV Wv^T. */
void attention_backward(worker *w, const exec_model *m, const float *wt, const float *dy,
			float *dx, float *kept)
{
	int R = m->R, H = m->H;
	size_t HH = (size_t)H * H;
	float c = 1.0f / sqrtf((float)H);
	attn a = attn_state(m, kept);
	gemm(w, false, true, R, H, H, 1, dy, wt + 3 * HH, 0, a.dO);
	gemm(w, false, true, R, R, H, 1, a.dO, a.V, 0, a.dP);
	gemm(w, true, false, R, H, R, 1, a.P, a.dO, 0, a.dV);
	k_softmax_bwd<<<R, THREADS, 0, w->stream>>>(a.P, a.dP, R);
	gemm(w, false, false, R, H, R, c, a.dP, a.K, 0, a.dQ);
	gemm(w, true, false, R, H, R, c, a.dP, a.Q, 0, a.dK);
	gemm(w, false, true, R, H, H, 1, a.dQ, wt, 0, dx);
	gemm(w, false, true, R, H, H, 1, a.dK, wt + HH, 1, dx);
	gemm(w, false, true, R, H, H, 1, a.dV, wt + 2 * HH, 1, dx);
}

/* F: act[0] is set; act[1..n] (net_forward). */
void stage_forward(worker *w, const exec_model *m, int l, const float *wt, float *arena)
{
	const stage_net *st = &m->st[l];
	int R = m->R, H = m->H;
	size_t RH = (size_t)R * H;
	for (int i = 0; i < st->n; i++) {
		const float *x = net_act(m, arena, i), *wi = wt + st->woff[i];
		float *y = net_act(m, arena, i + 1), *kept = arena + st->soff[i];
		switch (st->kind[i]) {
		case LAYER_LINEAR:   /* y = x W */
			gemm(w, false, false, R, H, H, 1, x, wi, 0, y);
			break;
		case LAYER_GELU:
			k_gelu<<<blocks_for(RH), THREADS, 0, w->stream>>>(x, y, RH);
			break;
		case LAYER_LAYERNORM:   /* kept: xh (R x H), r (R) */
			k_layernorm_fwd<<<R, THREADS, 0, w->stream>>>(wi, x, y, kept, kept + RH, H);
			break;
		default:
			attention_forward(w, m, wi, x, y, kept);
		}
	}
}

/* B: grad[n] is set; grad[n-1..0] (net_backward). */
void stage_backward(worker *w, const exec_model *m, int l, const float *wt, float *arena)
{
	const stage_net *st = &m->st[l];
	int R = m->R, H = m->H;
	size_t RH = (size_t)R * H;
	for (int i = st->n - 1; i >= 0; i--) {
		const float *x = net_act(m, arena, i), *dy = net_grad(m, l, arena, i + 1);
		const float *wi = wt + st->woff[i];
		float *dx = net_grad(m, l, arena, i), *kept = arena + st->soff[i];
		switch (st->kind[i]) {
		case LAYER_LINEAR:   /* dx = dy W^T */
			gemm(w, false, true, R, H, H, 1, dy, wi, 0, dx);
			break;
		case LAYER_GELU:
			k_gelu_bwd<<<blocks_for(RH), THREADS, 0, w->stream>>>(x, dy, dx, RH);
			break;
		case LAYER_LAYERNORM:
			k_layernorm_bwd<<<R, THREADS, 0, w->stream>>>(wi, dy, dx, kept, kept + RH, H);
			break;
		default:
			attention_backward(w, m, wi, dy, dx, kept);
		}
	}
}

/* W: dw += this micro-batch's weight gradients (net_weight). */
void stage_weight(worker *w, const exec_model *m, int l, float *arena, float *dw)
{
	const stage_net *st = &m->st[l];
	int R = m->R, H = m->H;
	size_t HH = (size_t)H * H;
	for (int i = 0; i < st->n; i++) {
		const float *x = net_act(m, arena, i), *dy = net_grad(m, l, arena, i + 1);
		float *d = dw + st->woff[i], *kept = arena + st->soff[i];
		if (st->kind[i] == LAYER_LINEAR) {   /* dW += x^T dy */
			gemm(w, true, false, H, H, R, 1, x, dy, 1, d);
		} else if (st->kind[i] == LAYER_LAYERNORM) {
			k_layernorm_w<<<(H + THREADS - 1) / THREADS, THREADS, 0, w->stream>>>(dy, kept, d,
											   R, H);
		} else if (st->kind[i] == LAYER_ATTENTION) {
			/* dWq += x^T dQ, dWk += x^T dK, dWv += x^T dV, dWo += O^T dy */
			attn a = attn_state(m, kept);
			gemm(w, true, false, H, H, R, 1, x, a.dQ, 1, d);
			gemm(w, true, false, H, H, R, 1, x, a.dK, 1, d + HH);
			gemm(w, true, false, H, H, R, 1, x, a.dV, 1, d + 2 * HH);
			gemm(w, true, false, H, H, R, 1, a.O, dy, 1, d + 3 * HH);
		}
	}
}

/* ---- the ops (exec.c's op_forward, op_backward, op_weight) -------------------- */

/* F(l, j): act[0] = the micro-batch at a source stage, else the sum of the
 * predecessors' outputs in edge order (the first copied: 0 + p = p). */
void op_forward(worker *w, int l, int j)
{
	gpu_run *g = w->g;
	const instance *in = g->in;
	float *arena = arena_of(g, l, j), *a = net_act(g->m, arena, 0);
	int p0 = in->pred_start[l], p1 = in->pred_start[l + 1];
	if (p0 == p1)
		copy(w, a, g->input + (size_t)j * g->act, g->act);
	for (int i = p0; i < p1; i++) {
		const float *p = output_of(g, in->pred[i].stage, j);
		if (i == p0)
			copy(w, a, p, g->act);
		else
			add(w, a, p, g->act);
	}
	stage_forward(w, g->m, l, g->W[l], arena);
}

void op_weight(worker *w, int l, int j)
{
	stage_weight(w, w->g->m, l, arena_of(w->g, l, j), w->g->dW[l]);
}

/* B(l, j): grad[n] = y at a sink (the loss is 1/2 |y|^2), else the sum of
 * the successors' input gradients; fused (no W op): the weight gradients
 * too. */
void op_backward(worker *w, int l, int j)
{
	gpu_run *g = w->g;
	const instance *in = g->in;
	float *arena = arena_of(g, l, j);
	float *dy = net_grad(g->m, l, arena, g->m->st[l].n);
	int s0 = in->succ_start[l], s1 = in->succ_start[l + 1];
	if (s0 == s1)
		copy(w, dy, output_of(g, l, j), g->act);
	for (int i = s0; i < s1; i++) {
		const float *s = input_grad_of(g, in->succ[i].stage, j);
		if (i == s0)
			copy(w, dy, s, g->act);
		else
			add(w, dy, s, g->act);
	}
	stage_backward(w, g->m, l, g->W[l], arena);
	if (!in->split_backward)
		op_weight(w, l, j);
}

void enqueue(worker *w, const op *o)
{
	if (o->kind == OP_F)
		op_forward(w, o->stage, o->mb);
	else if (o->kind == OP_B)
		op_backward(w, o->stage, o->mb);
	else
		op_weight(w, o->stage, o->mb);
}

/* After enqueueing: launch errors, then the stream's; false on any. */
bool finish(worker *w)
{
	note(w, cudaGetLastError());
	note(w, cudaStreamSynchronize(w->stream));
	return w->ce == cudaSuccess && w->be == CUBLAS_STATUS_SUCCESS;
}

const char *why(const worker *w)
{
	return w->ce != cudaSuccess ? cudaGetErrorString(w->ce) : cublasGetStatusString(w->be);
}

/* ---- workers (exec.c's) ------------------------------------------------------------ */

/* Fail the run (first message wins; under the lock). */
void fail_locked(gpu_run *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fail_locked(gpu_run *g, const char *fmt, ...)
{
	if (!g->failed) {
		char line[sizeof g->err.msg];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(line, sizeof line, fmt, ap);
		va_end(ap);
		err_set(&g->err, "%s", line);   /* one line */
		g->failed = true;
	}
	pthread_cond_broadcast(&g->cv);
}

/* Wait for op's inputs; false on failure elsewhere or the watchdog. */
bool wait_inputs(gpu_run *g, int d, const op *o)
{
	timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	double wd = g->r->watchdog > 0 ? g->r->watchdog : 0;
	until.tv_sec += (time_t)wd;
	until.tv_nsec += (long)((wd - floor(wd)) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&g->mu);
	while (!g->failed && !op_inputs_done(g->in, g->fdone, g->bdone, o->kind, o->stage, o->mb)) {
		if (pthread_cond_timedwait(&g->cv, &g->mu, &until) == ETIMEDOUT) {
			char a[64];
			fail_locked(g, "watchdog: device %d waited more than %.0f s to run %s", d,
				    g->r->watchdog, op_name(a, sizeof a, o));
		}
	}
	bool ok = !g->failed;
	pthread_mutex_unlock(&g->mu);
	return ok;
}

void *work(void *arg)
{
	worker *w = (worker *)arg;
	gpu_run *g = w->g;
	exec_cuda_run *r = g->r;
	const sched_row *row = &r->s->rows[w->d];
	cudaError_t e = cudaSetDevice(g->device);   /* per host thread */
	if (e != cudaSuccess) {
		pthread_mutex_lock(&g->mu);
		fail_locked(g, "CUDA error on device %d's worker: %s", w->d, cudaGetErrorString(e));
		pthread_mutex_unlock(&g->mu);
		return NULL;
	}
	for (int i = 0; i < row->len; i++) {
		const op *o = &row->ops[i];
		if (!wait_inputs(g, w->d, o))
			return NULL;
		double t = clock_seconds() - g->t0;
		enqueue(w, o);
		bool ok = finish(w);
		double end = clock_seconds() - g->t0;
		pthread_mutex_lock(&g->mu);
		if (!ok) {
			char a[64];
			fail_locked(g, "%s error in %s on device %d: %s",
				    w->ce != cudaSuccess ? "CUDA" : "cuBLAS", op_name(a, sizeof a, o), w->d,
				    why(w));
			pthread_mutex_unlock(&g->mu);
			return NULL;
		}
		size_t id = (size_t)o->stage * g->M + o->mb;
		if (o->kind == OP_F)
			g->fdone[id] = 1;
		else if (o->kind == OP_B)
			g->bdone[id] = 1;
		/* live activations (exec_account): F +1; W, or a fused B, -1 */
		if (o->kind == OP_F) {
			if (++g->live[w->d] > r->peak[w->d])
				r->peak[w->d] = g->live[w->d];
		} else if (o->kind == OP_W || !g->in->split_backward) {
			g->live[w->d]--;
		}
		if (r->nev < inst_nops(g->in))   /* one per op (the schedule is validated) */
			r->ev[r->nev++] = exec_event{w->d, o->kind, o->stage, o->mb, t, end};
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
	return NULL;
}

/* ---- set-up and release -------------------------------------------------------- */

void release(gpu_run *g)
{
	for (int d = 0; g->wk && d < g->D; d++) {
		if (g->wk[d].blas)
			cublasDestroy(g->wk[d].blas);
		if (g->wk[d].stream)
			cudaStreamDestroy(g->wk[d].stream);
	}
	for (int l = 0; l < g->L; l++) {
		if (g->W)
			cudaFree(g->W[l]);
		if (g->dW)
			cudaFree(g->dW[l]);
		if (g->slab)
			cudaFree(g->slab[l]);
	}
	cudaFree(g->input);
	free(g->W);
	free(g->dW);
	free(g->slab);
	free(g->stride);
	free(g->wk);
	free(g->fdone);
	free(g->bdone);
	free(g->live);
	if (g->sync_ok) {
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
	}
}

/* cudaMalloc of n floats (at least one), counted; false on failure. */
bool dalloc(float **p, size_t n, double *bytes, cudaError_t *e)
{
	*bytes += (double)(n ? n : 1) * sizeof(float);
	*e = cudaMalloc((void **)p, (n ? n : 1) * sizeof(float));
	if (*e != cudaSuccess) {
		*p = NULL;
		return false;
	}
	return true;
}

/* Everything before the clock; 0, or -1 with r->msg. */
int setup(gpu_run *g)
{
	exec_cuda_run *r = g->r;
	const exec_model *m = g->m;
	int L = g->L, M = g->M;
	size_t LM = (size_t)L * M;
	cudaError_t e;
	if ((e = cudaGetDevice(&g->device)) != cudaSuccess) {
		snprintf(r->msg, sizeof r->msg, "CUDA error: %s", cudaGetErrorString(e));
		return -1;
	}
	g->W = (float **)calloc(L ? L : 1, sizeof *g->W);
	g->dW = (float **)calloc(L ? L : 1, sizeof *g->dW);
	g->slab = (float **)calloc(L ? L : 1, sizeof *g->slab);
	g->stride = (size_t *)calloc(L ? L : 1, sizeof *g->stride);
	g->wk = (worker *)calloc(g->D ? g->D : 1, sizeof *g->wk);
	g->fdone = (unsigned char *)calloc(LM ? LM : 1, 1);
	g->bdone = (unsigned char *)calloc(LM ? LM : 1, 1);
	g->live = (int *)calloc(g->D ? g->D : 1, sizeof *g->live);
	if (!g->W || !g->dW || !g->slab || !g->stride || !g->wk || !g->fdone || !g->bdone ||
	    !g->live) {
		snprintf(r->msg, sizeof r->msg, "out of host memory for the CUDA run");
		return -1;
	}
	/* device buffers: weights, gradients, arenas (each stage's M in one
	 * allocation, every arena 256-byte aligned), the input */
	double bytes = 0;
	bool ok = dalloc(&g->input, (size_t)M * g->act, &bytes, &e);
	for (int l = 0; ok && l < L; l++) {
		g->stride[l] = (m->st[l].arena + 63) / 64 * 64;
		ok = dalloc(&g->W[l], m->st[l].weights, &bytes, &e) &&
		     dalloc(&g->dW[l], m->st[l].weights, &bytes, &e) &&
		     dalloc(&g->slab[l], g->stride[l] * M, &bytes, &e);
	}
	if (!ok) {
		cudaGetLastError();   /* clear it */
		snprintf(r->msg, sizeof r->msg,
			 "out of GPU memory: %.2f GiB asked for by then (%d stages x %d micro-batches, width %d, %d rows): %s",
			 bytes / (1 << 30), L, M, m->H, m->R, cudaGetErrorString(e));
		return -1;
	}
	/* workers: a stream and a cuBLAS handle bound to it, default math
	 * (fp32, no TF32) */
	for (int d = 0; d < g->D; d++) {
		worker *w = &g->wk[d];
		w->g = g;
		w->d = d;
		if ((e = cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking)) != cudaSuccess) {
			w->stream = NULL;
			snprintf(r->msg, sizeof r->msg, "CUDA error creating a stream: %s",
				 cudaGetErrorString(e));
			return -1;
		}
		cublasStatus_t b = cublasCreate(&w->blas);
		if (b != CUBLAS_STATUS_SUCCESS) {
			w->blas = NULL;
		} else if ((b = cublasSetStream(w->blas, w->stream)) == CUBLAS_STATUS_SUCCESS) {
			b = cublasSetMathMode(w->blas, CUBLAS_DEFAULT_MATH);
		}
		if (b != CUBLAS_STATUS_SUCCESS) {
			snprintf(r->msg, sizeof r->msg, "cuBLAS would not start: %s",
				 cublasGetStatusString(b));
			return -1;
		}
	}
	/* weights and input up */
	for (int l = 0; l < L && e == cudaSuccess; l++)
		if (m->st[l].weights)
			e = cudaMemcpy(g->W[l], r->W[l], m->st[l].weights * sizeof(float),
				       cudaMemcpyHostToDevice);
	if (e == cudaSuccess && M)
		e = cudaMemcpy(g->input, r->input, (size_t)M * g->act * sizeof(float),
			       cudaMemcpyHostToDevice);
	if (e == cudaSuccess)   /* a copy from pageable memory may return before it lands */
		e = cudaDeviceSynchronize();
	if (e != cudaSuccess) {
		snprintf(r->msg, sizeof r->msg, "CUDA error copying up: %s", cudaGetErrorString(e));
		return -1;
	}
	/* warm-up: each stage's F, B, W on its device's stream and handle, on
	 * micro-batch 0's (zeroed) arena, so kernel loading and cuBLAS's first
	 * calls stay outside the run; then everything back to zero */
	for (int d = 0; d < g->D; d++) {
		worker *w = &g->wk[d];
		for (int l = 0; M && l < L; l++) {
			if (g->in->stage_device[l] != d)
				continue;
			note(w, cudaMemsetAsync(g->slab[l], 0, g->stride[l] * sizeof(float), w->stream));
			stage_forward(w, m, l, g->W[l], arena_of(g, l, 0));
			stage_backward(w, m, l, g->W[l], arena_of(g, l, 0));
			stage_weight(w, m, l, arena_of(g, l, 0), g->dW[l]);
		}
		if (!finish(w)) {
			snprintf(r->msg, sizeof r->msg, "%s error warming up device %d: %s",
				 w->ce != cudaSuccess ? "CUDA" : "cuBLAS", d, why(w));
			return -1;
		}
	}
	for (int l = 0; l < L && e == cudaSuccess; l++) {
		e = cudaMemset(g->dW[l], 0, (m->st[l].weights ? m->st[l].weights : 1) * sizeof(float));
		size_t n = g->stride[l] * M;
		if (e == cudaSuccess)
			e = cudaMemset(g->slab[l], 0, (n ? n : 1) * sizeof(float));
	}
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	if (e != cudaSuccess) {
		snprintf(r->msg, sizeof r->msg, "CUDA error zeroing the buffers: %s",
			 cudaGetErrorString(e));
		return -1;
	}
	if (pthread_mutex_init(&g->mu, NULL)) {
		snprintf(r->msg, sizeof r->msg, "cannot create a mutex");
		return -1;
	}
	if (pthread_cond_init(&g->cv, NULL)) {
		pthread_mutex_destroy(&g->mu);
		snprintf(r->msg, sizeof r->msg, "cannot create a condition variable");
		return -1;
	}
	g->sync_ok = true;
	return 0;
}

} // namespace

/* 0 on success; -1 with r->msg (exec_cuda.h). */
extern "C" int pipeopt_exec_cuda(struct exec_cuda_run *r)
{
	r->msg[0] = 0;
	r->nev = 0;
	r->makespan_s = 0;
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0) {
		snprintf(r->msg, sizeof r->msg, "no CUDA device: %s",
			 cudaGetErrorString(e != cudaSuccess ? e : cudaErrorNoDevice));
		return -1;
	}
	gpu_run g = {};
	g.r = r;
	g.in = r->in;
	g.m = r->m;
	g.L = r->in->stages;
	g.M = r->in->microbatches;
	g.D = r->in->devices;
	g.act = (size_t)r->m->R * r->m->H;
	for (int d = 0; d < g.D; d++)
		r->peak[d] = 0;
	if (setup(&g)) {
		release(&g);
		return -1;
	}
	pthread_t *tid = (pthread_t *)calloc(g.D ? g.D : 1, sizeof *tid);
	int started = 0;
	if (!tid) {
		release(&g);
		snprintf(r->msg, sizeof r->msg, "out of host memory for the worker threads");
		return -1;
	}
	g.t0 = clock_seconds();
	for (int d = 0; d < g.D; d++) {
		if (pthread_create(&tid[d], NULL, work, &g.wk[d])) {
			pthread_mutex_lock(&g.mu);
			fail_locked(&g, "could not start %d worker threads", g.D);
			pthread_mutex_unlock(&g.mu);
			break;
		}
		started++;
	}
	for (int d = 0; d < started; d++)
		pthread_join(tid[d], NULL);
	free(tid);
	if (g.failed) {
		snprintf(r->msg, sizeof r->msg, "%s", g.err.msg);
		release(&g);
		return -1;
	}
	/* first op start to last op end */
	double first = 0, last = 0;
	for (int i = 0; i < r->nev; i++) {
		if (!i || r->ev[i].start < first)
			first = r->ev[i].start;
		if (!i || r->ev[i].end > last)
			last = r->ev[i].end;
	}
	r->makespan_s = last - first;
	/* the weight gradients down */
	for (int l = 0; l < g.L && e == cudaSuccess; l++)
		if (g.m->st[l].weights)
			e = cudaMemcpy(r->dW[l], g.dW[l], g.m->st[l].weights * sizeof(float),
				       cudaMemcpyDeviceToHost);
	if (e != cudaSuccess) {
		snprintf(r->msg, sizeof r->msg, "CUDA error copying the gradients back: %s",
			 cudaGetErrorString(e));
		release(&g);
		return -1;
	}
	release(&g);
	return 0;
}
