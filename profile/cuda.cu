/*
 * The CUDA cost source (built when nvcc is present): the kinds' kernels on
 * the GPU, fp32, cuBLAS GEMMs and small kernels, timed with CUDA events:
 * warm-up runs, then the median of repeats, like the CPU source.
 *   linear [n, k]: Y = X W; dX = dY W^T; dW = X^T dY (cuBLAS, column-major
 *     views of the row-major buffers)
 *   gelu [n], layernorm [n]: one thread per element / per row
 *   transformer_layer [s, h, f, a] (tokens T = q s, head size e = h / a), as
 *     cpu.c: forward  layernorm(X); QKV = X Wqkv; per sample and head
 *              S = softmax(Q K^T / sqrt(e)), O = S V; A = O Wo; H = A W1;
 *              G = gelu(H); Y = G W2
 *     input gradient: dG = dY W2^T; dH = gelu'(H) dG; dA = dH W1^T;
 *              dO = dA Wo^T; per head dS = dO V^T, dS = S (dS - rowsum(S dS)),
 *              dQ = dS K / sqrt(e), dK = dS^T Q / sqrt(e), dV = S^T dO;
 *              dX = dQKV Wqkv^T
 *     weight gradient: dW2 = G^T dY; dW1 = A^T dH; dWo = O^T dA;
 *              dWqkv = X^T dQKV
 *     (per-head GEMMs strided-batched: over the heads of one sample, or over
 *     the samples for one head, whichever loop is shorter)
 *   attention [s, h, a]: the transformer's attention part alone: QKV = X Wqkv,
 *     per head as above, A = O Wo; dO = dA Wo^T, per head, dX = dQKV Wqkv^T;
 *     dWo = O^T dA, dWqkv = X^T dQKV
 *   embedding_bag [rows, dim, bag]: forward sums bag rows of the table per
 *     sample (rows picked as cpu.c does); no input gradient (indices: 0);
 *     weight gradient scatters 1e-3 of each sample's output into its rows
 *     (atomic adds)
 *   input, concat, interaction: a device-to-device copy of out_bytes per sample
 * Without a GPU at run time it fails with one line saying so.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

extern "C" {
#include "profile/source.h"
}

namespace {

#include "ops/cuda_common.cuh"

__global__ void layernorm_kernel(float *x, int rows, int n)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float *v = x + (size_t)r * n, mean = 0, var = 0;
	for (int i = 0; i < n; i++)
		mean += v[i];
	mean /= n;
	for (int i = 0; i < n; i++)
		var += (v[i] - mean) * (v[i] - mean);
	float inv = rsqrtf(var / n + 1e-5f);
	for (int i = 0; i < n; i++)
		v[i] = (v[i] - mean) * inv;
}


/* Each row (n wide) normalised in place, one block per row: (x - mean) /
 * sqrt(var + 1e-5). */
__global__ void layernorm_rows_kernel(float *x, int n)
{
	float *v = x + (size_t)blockIdx.x * n, s = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		s += v[i];
	float mean = block_reduce<false>(s) / n;
	s = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		s += (v[i] - mean) * (v[i] - mean);
	float inv = rsqrtf(block_reduce<false>(s) / n + 1e-5f);
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		v[i] = (v[i] - mean) * inv;
}

/* The table row of sample i's j-th bag entry (cpu.c's). */
__device__ size_t bag_row(size_t i, size_t j, size_t rows)
{
	return (i * 7919 + j * 104729) % rows;
}

/* out[i] += sum over the bag of table rows; one thread per (sample, column). */
__global__ void bag_forward_kernel(const float *table, float *out, int q, size_t rows,
				   size_t dim, size_t bag)
{
	for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < (size_t)q * dim;
	     t += (size_t)gridDim.x * blockDim.x) {
		size_t i = t / dim, c = t % dim;
		float s = out[t];
		for (size_t j = 0; j < bag; j++)
			s += table[bag_row(i, j, rows) * dim + c];
		out[t] = s;
	}
}

/* table[row] += 1e-3 out[i] for each bag entry; one thread per (sample,
 * entry, column). */
__global__ void bag_scatter_kernel(float *table, const float *out, int q, size_t rows,
				   size_t dim, size_t bag)
{
	for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < (size_t)q * bag * dim;
	     t += (size_t)gridDim.x * blockDim.x) {
		size_t c = t % dim, j = t / dim % bag, i = t / dim / bag;
		atomicAdd(&table[bag_row(i, j, rows) * dim + c], 1e-3f * out[i * dim + c]);
	}
}

struct gpu {
	cublasHandle_t blas = nullptr;
	cublasStatus_t status = CUBLAS_STATUS_SUCCESS;   /* the first failure of mm / mm_batched */
	std::vector<float *> bufs;
	~gpu()
	{
		for (float *b : bufs)
			cudaFree(b);
		if (blas)
			cublasDestroy(blas);
	}
	float *alloc(size_t n)
	{
		float *p = nullptr;
		if (cudaMalloc(&p, (n ? n : 1) * sizeof(float)) != cudaSuccess)
			return nullptr;
		cudaMemset(p, 0, (n ? n : 1) * sizeof(float));
		bufs.push_back(p);
		return p;
	}
};

/* Row-major C[m x n] = op(A) op(B) through column-major cuBLAS: compute
 * C^T = op(B)^T op(A)^T. */
void gemm(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, const float *A, int lda,
	  const float *B, int ldb, float *C, int ldc)
{
	const float one = 1, zero = 0;
	cublasSgemm(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one,
		    B, ldb, A, lda, &zero, C, ldc);
}

/* Row-major C[m x n] = alpha op(A) op(B) + beta C as gemm, the first
 * failure kept in G.status. */
void mm(gpu &G, bool ta, bool tb, int m, int n, int k, float alpha, const float *A, int lda,
	const float *B, int ldb, float beta, float *C, int ldc)
{
	if (G.status == CUBLAS_STATUS_SUCCESS)
		G.status = cublasSgemm(G.blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
				       n, m, k, &alpha, B, ldb, A, lda, &beta, C, ldc);
}

/* The same over `batch` matrices, each operand `s*` floats after the last. */
void mm_batched(gpu &G, bool ta, bool tb, int m, int n, int k, float alpha, const float *A,
		int lda, long long sa, const float *B, int ldb, long long sb, float beta, float *C,
		int ldc, long long sc, int batch)
{
	if (G.status == CUBLAS_STATUS_SUCCESS)
		G.status = cublasSgemmStridedBatched(G.blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
						     ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, B,
						     ldb, sb, A, lda, sa, &beta, C, ldc, sc, batch);
}

/* Multi-head attention over q samples of s tokens, width h, a heads of e:
 * Q, K, V are the packed rows of QKV (T x 3h: Q at column 0, K at h, V at
 * 2h; head j at column j e), S and dS are [sample][head] s x s, O and dO
 * are T x h. */
struct mha {
	int q, s, h, a, e;
	float scale;   /* 1 / sqrt(e) */

	/* f(qkv offset, o offset, s offset, qkv stride, o stride, s stride,
	 * batch): the (sample, head) pairs as batches of one stride each:
	 * per sample, its heads; or per head, its samples (fewer calls). */
	template <class F> void batches(F f) const
	{
		long long S = s, H = h, E = e, A = a, SS = S * S;
		if (q <= a)
			for (long long i = 0; i < q; i++)
				f(i * S * 3 * H, i * S * H, i * A * SS, E, E, SS, a);
		else
			for (long long j = 0; j < a; j++)
				f(j * E, j * E, j * SS, S * 3 * H, S * H, A * SS, q);
	}

	/* S = softmax(Q K^T / sqrt(e)); O = S V */
	void forward(gpu &G, const float *QKV, float *Sm, float *O) const
	{
		batches([&](long long oq, long long oo, long long os, long long sq, long long so,
			    long long ss, int n) {
			(void)oo;
			(void)so;
			mm_batched(G, false, true, s, s, e, scale, QKV + oq, 3 * h, sq, QKV + oq + h,
				   3 * h, sq, 0, Sm + os, s, ss, n);
		});
		k_softmax<<<(unsigned)((size_t)q * a * s), THREADS>>>(Sm, s);
		batches([&](long long oq, long long oo, long long os, long long sq, long long so,
			    long long ss, int n) {
			mm_batched(G, false, false, s, e, s, 1, Sm + os, s, ss, QKV + oq + 2 * h, 3 * h, sq,
				   0, O + oo, h, so, n);
		});
	}

	/* dS = dO V^T; dS = S (dS - rowsum(S dS)); dQ = dS K / sqrt(e);
	 * dK = dS^T Q / sqrt(e); dV = S^T dO (into dQKV, packed as QKV) */
	void backward(gpu &G, const float *QKV, const float *Sm, const float *dO, float *dS,
		      float *dQKV) const
	{
		batches([&](long long oq, long long oo, long long os, long long sq, long long so,
			    long long ss, int n) {
			mm_batched(G, false, true, s, s, e, 1, dO + oo, h, so, QKV + oq + 2 * h, 3 * h, sq,
				   0, dS + os, s, ss, n);
		});
		k_softmax_bwd<<<(unsigned)((size_t)q * a * s), THREADS>>>(Sm, dS, s);
		batches([&](long long oq, long long oo, long long os, long long sq, long long so,
			    long long ss, int n) {
			mm_batched(G, false, false, s, e, s, scale, dS + os, s, ss, QKV + oq + h, 3 * h,
				   sq, 0, dQKV + oq, 3 * h, sq, n);
			mm_batched(G, true, false, s, e, s, scale, dS + os, s, ss, QKV + oq, 3 * h, sq, 0,
				   dQKV + oq + h, 3 * h, sq, n);
			mm_batched(G, true, false, s, e, s, 1, Sm + os, s, ss, dO + oo, h, so, 0,
				   dQKV + oq + 2 * h, 3 * h, sq, n);
		});
	}
};

template <class F> double median_us(F run, int warmup, int repeats)
{
	cudaEvent_t a, b;
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	for (int i = 0; i < warmup; i++)
		run();
	std::vector<double> t;
	for (int i = 0; i < std::max(1, repeats); i++) {
		cudaEventRecord(a);
		run();
		cudaEventRecord(b);
		cudaEventSynchronize(b);
		float ms = 0;
		cudaEventElapsedTime(&ms, a, b);
		t.push_back(ms * 1000.0);
	}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	std::sort(t.begin(), t.end());
	size_t n = t.size();
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

} // namespace

/* Loaded at run time by cuda_source.c (dlopen), so that pipeopt does not
 * pay for loading the CUDA libraries on every start. */
extern "C" enum status pipeopt_profile_cuda(const struct graph *g, int v, const struct op_kind_entry *k,
				    int q, const struct profile_options *o, struct op_cost *c,
				    struct error *err);
static_assert(std::is_same<decltype(&pipeopt_profile_cuda), profile_cuda_fn>::value,
	      "pipeopt_profile_cuda must match profile_cuda_fn (source.h)");

extern "C" enum status pipeopt_profile_cuda(const struct graph *g, int v, const struct op_kind_entry *kind,
				    int q, const struct profile_options *o, struct op_cost *c,
				    struct error *err)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0)
		return err_set(err, "profile: no CUDA device (%s)",
			       e != cudaSuccess ? cudaGetErrorString(e) : "none found");
	const struct graph_op *op = &g->ops[v];
	const double *sh = op->shape;
	/* profile_cuda (cuda_source.c) has checked the kind and the shape */
	gpu G;
	if (cublasCreate(&G.blas) != CUBLAS_STATUS_SUCCESS)
		return err_set(err, "profile: cuBLAS would not start");
	int W = o->warmup, R = o->repeats;
	c->measured = true;
	enum op_kind_id id = kind->id;
	if (id == OP_KIND_LINEAR) {
		int n = (int)sh[0], k = (int)sh[1];
		float *X = G.alloc((size_t)q * n), *Wt = G.alloc((size_t)n * k), *Y = G.alloc((size_t)q * k);
		float *dY = G.alloc((size_t)q * k), *dX = G.alloc((size_t)q * n), *dW = G.alloc((size_t)n * k);
		if (!X || !Wt || !Y || !dY || !dX || !dW)
			return err_set(err, "profile: operator '%s': out of GPU memory", op->name);
		c->fwd = median_us([&] { gemm(G.blas, false, false, q, k, n, X, n, Wt, k, Y, k); }, W, R);
		c->bwd = median_us([&] { gemm(G.blas, false, true, q, n, k, dY, k, Wt, k, dX, n); }, W, R);
		c->wgrad = median_us([&] { gemm(G.blas, true, false, n, k, q, X, n, dY, k, dW, k); }, W, R);
	} else if (id == OP_KIND_GELU || id == OP_KIND_LAYERNORM) {
		int n = (int)sh[0];
		size_t total = (size_t)q * n;
		float *x = G.alloc(total);
		if (!x)
			return err_set(err, "profile: operator '%s': out of GPU memory", op->name);
		bool is_gelu = id == OP_KIND_GELU;
		auto run = [&] {
			if (is_gelu)
				k_gelu<<<blocks_for(total), THREADS>>>(x, x, total);   /* in place */
			else
				layernorm_kernel<<<(q + 127) / 128, 128>>>(x, q, n);
		};
		c->fwd = c->bwd = median_us(run, W, R);
		c->wgrad = 0;
	} else if (id == OP_KIND_TRANSFORMER_LAYER || id == OP_KIND_ATTENTION) {
		/* attention alone: no layer norm, no feed-forward */
		bool ffn = id == OP_KIND_TRANSFORMER_LAYER;
		int s = (int)sh[0], h = (int)sh[1], f = ffn ? (int)sh[2] : 0, a = (int)sh[kind->heads];
		if ((double)q * s * a > 2147483647.0 || 3.0 * h > 2147483647.0)
			return err_set(err, "profile: operator '%s': %d samples of %d tokens x %d heads is too large",
				       op->name, q, s, a);
		int T = q * s;
		size_t Th = (size_t)T * h, Tf = (size_t)T * f, SS = (size_t)q * a * s * s;
		const mha A{q, s, h, a, h / a, 1.0f / sqrtf((float)(h / a))};
		float *X = G.alloc(Th), *Wqkv = G.alloc((size_t)h * 3 * h), *QKV = G.alloc(3 * Th),
		      *S = G.alloc(SS), *O = G.alloc(Th), *Wo = G.alloc((size_t)h * h), *Ao = G.alloc(Th),
		      *dA = G.alloc(Th), *dO = G.alloc(Th), *dS = G.alloc(SS), *dQKV = G.alloc(3 * Th),
		      *dX = G.alloc(Th), *dWqkv = G.alloc((size_t)h * 3 * h), *dWo = G.alloc((size_t)h * h);
		bool ok = X && Wqkv && QKV && S && O && Wo && Ao && dA && dO && dS && dQKV && dX && dWqkv && dWo;
		float *W1 = nullptr, *Hb = nullptr, *Gb = nullptr, *W2 = nullptr, *Y = nullptr,
		      *dY = nullptr, *dG = nullptr, *dH = nullptr, *dW1 = nullptr, *dW2 = nullptr;
		if (ok && ffn) {
			W1 = G.alloc((size_t)h * f), Hb = G.alloc(Tf), Gb = G.alloc(Tf);
			W2 = G.alloc((size_t)f * h), Y = G.alloc(Th), dY = G.alloc(Th), dG = G.alloc(Tf);
			dH = G.alloc(Tf), dW1 = G.alloc((size_t)h * f), dW2 = G.alloc((size_t)f * h);
			ok = W1 && Hb && Gb && W2 && Y && dY && dG && dH && dW1 && dW2;
		}
		if (!ok)
			return err_set(err, "profile: operator '%s': out of GPU memory", op->name);
		c->fwd = median_us([&] {
			if (ffn)   /* X = layernorm(X) */
				layernorm_rows_kernel<<<T, THREADS>>>(X, h);
			mm(G, false, false, T, 3 * h, h, 1, X, h, Wqkv, 3 * h, 0, QKV, 3 * h);   /* QKV = X Wqkv */
			A.forward(G, QKV, S, O);
			mm(G, false, false, T, h, h, 1, O, h, Wo, h, 0, Ao, h);                  /* A = O Wo */
			if (ffn) {
				mm(G, false, false, T, f, h, 1, Ao, h, W1, f, 0, Hb, f);             /* H = A W1 */
				k_gelu<<<blocks_for(Tf), THREADS>>>(Hb, Gb, Tf);            /* G = gelu(H) */
				mm(G, false, false, T, h, f, 1, Gb, f, W2, h, 0, Y, h);              /* Y = G W2 */
			}
		}, W, R);
		c->bwd = median_us([&] {
			if (ffn) {
				mm(G, false, true, T, f, h, 1, dY, h, W2, h, 0, dG, f);              /* dG = dY W2^T */
				k_gelu_bwd<<<blocks_for(Tf), THREADS>>>(Hb, dG, dH, Tf);      /* dH = gelu'(H) dG */
				mm(G, false, true, T, h, f, 1, dH, f, W1, f, 0, dA, h);              /* dA = dH W1^T */
			}
			mm(G, false, true, T, h, h, 1, dA, h, Wo, h, 0, dO, h);                  /* dO = dA Wo^T */
			A.backward(G, QKV, S, dO, dS, dQKV);
			mm(G, false, true, T, h, 3 * h, 1, dQKV, 3 * h, Wqkv, 3 * h, 0, dX, h);  /* dX = dQKV Wqkv^T */
		}, W, R);
		c->wgrad = median_us([&] {
			if (ffn) {
				mm(G, true, false, f, h, T, 1, Gb, f, dY, h, 0, dW2, h);             /* dW2 = G^T dY */
				mm(G, true, false, h, f, T, 1, Ao, h, dH, f, 0, dW1, f);             /* dW1 = A^T dH */
			}
			mm(G, true, false, h, h, T, 1, O, h, dA, h, 0, dWo, h);                  /* dWo = O^T dA */
			mm(G, true, false, h, 3 * h, T, 1, X, h, dQKV, 3 * h, 0, dWqkv, 3 * h);  /* dWqkv = X^T dQKV */
		}, W, R);
	} else if (id == OP_KIND_EMBEDDING_BAG) {
		size_t rows = (size_t)sh[0], dim = (size_t)sh[1], bag = (size_t)sh[2];
		float *table = G.alloc(rows * dim), *out = G.alloc((size_t)q * dim);
		if (!table || !out)
			return err_set(err, "profile: operator '%s': out of GPU memory", op->name);
		c->fwd = median_us([&] {
			bag_forward_kernel<<<blocks_for((size_t)q * dim), THREADS>>>(table, out, q, rows, dim, bag);
		}, W, R);
		c->bwd = 0;   /* the input is indices: no input gradient */
		c->wgrad = median_us([&] {
			bag_scatter_kernel<<<blocks_for((size_t)q * bag * dim), THREADS>>>(table, out, q, rows,
											 dim, bag);
		}, W, R);
	} else if (id == OP_KIND_INPUT || id == OP_KIND_CONCAT || id == OP_KIND_INTERACTION) {
		size_t n = (size_t)q * (size_t)(op->out_bytes / 4 + 1);
		float *a = G.alloc(n), *b = G.alloc(n);
		if (!a || !b)
			return err_set(err, "profile: operator '%s': out of GPU memory", op->name);
		c->fwd = c->bwd = median_us([&] {
			cudaMemcpy(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice);
		}, W, R);
		c->wgrad = 0;
	} else {
		return err_set(err, "graph '%s': operator '%s': no CUDA kernel for kind '%s'",
			       g->name, op->name, op->kind);   /* op_check lets none through */
	}
	if (G.status != CUBLAS_STATUS_SUCCESS)
		return err_set(err, "profile: operator '%s': cuBLAS error: %s", op->name,
			       cublasGetStatusString(G.status));
	if ((e = cudaGetLastError()) != cudaSuccess)
		return err_set(err, "profile: operator '%s': CUDA error: %s", op->name,
			       cudaGetErrorString(e));
	return STATUS_OK;
}
