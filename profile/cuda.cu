/*
 * The CUDA cost source (built when nvcc is present): the kinds' kernels on
 * the GPU, fp32, cuBLAS GEMMs and small kernels, timed with CUDA events:
 * warm-up runs, then the median of repeats, like the CPU source.
 *   linear [n, k]: Y = X W; dX = dY W^T; dW = X^T dY (cuBLAS, column-major
 *     views of the row-major buffers)
 *   gelu [n], layernorm [n]: one thread per element / per row
 *   input, concat, interaction: a device-to-device copy of out_bytes per sample
 * Without a GPU at run time it fails with one line saying so.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <vector>

extern "C" {
#include "profile/profile.h"
}

namespace {

__global__ void gelu_kernel(float *x, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		x[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
	}
}

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

struct gpu {
	cublasHandle_t blas = nullptr;
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

/* Loaded at run time by profile.c (dlopen), so that pipeopt does not pay
 * for loading the CUDA libraries on every start. */
extern "C" enum status pipeopt_profile_cuda(const struct graph *g, int v, int q,
				    const struct profile_options *o, struct op_cost *c,
				    struct error *err)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0)
		return err_set(err, "profile: no CUDA device (%s)",
			       e != cudaSuccess ? cudaGetErrorString(e) : "none found");
	const struct graph_op *op = &g->ops[v];
	const double *sh = op->shape;
	gpu G;
	if (cublasCreate(&G.blas) != CUBLAS_STATUS_SUCCESS)
		return err_set(err, "profile: cuBLAS would not start");
	int W = o->warmup, R = o->repeats;
	c->measured = true;
	if (!strcmp(op->kind, "linear") && op->nshape == 2) {
		int n = (int)sh[0], k = (int)sh[1];
		float *X = G.alloc((size_t)q * n), *Wt = G.alloc((size_t)n * k), *Y = G.alloc((size_t)q * k);
		float *dY = G.alloc((size_t)q * k), *dX = G.alloc((size_t)q * n), *dW = G.alloc((size_t)n * k);
		if (!X || !Wt || !Y || !dY || !dX || !dW)
			return err_set(err, "profile: operator '%s': out of GPU memory", op->name);
		c->fwd = median_us([&] { gemm(G.blas, false, false, q, k, n, X, n, Wt, k, Y, k); }, W, R);
		c->bwd = median_us([&] { gemm(G.blas, false, true, q, n, k, dY, k, Wt, k, dX, n); }, W, R);
		c->wgrad = median_us([&] { gemm(G.blas, true, false, n, k, q, X, n, dY, k, dW, k); }, W, R);
	} else if ((!strcmp(op->kind, "gelu") || !strcmp(op->kind, "layernorm")) && op->nshape == 1) {
		int n = (int)sh[0];
		size_t total = (size_t)q * n;
		float *x = G.alloc(total);
		if (!x)
			return err_set(err, "profile: operator '%s': out of GPU memory", op->name);
		bool is_gelu = !strcmp(op->kind, "gelu");
		auto run = [&] {
			if (is_gelu)
				gelu_kernel<<<(unsigned)((total + 255) / 256), 256>>>(x, total);
			else
				layernorm_kernel<<<(q + 127) / 128, 128>>>(x, q, n);
		};
		c->fwd = c->bwd = median_us(run, W, R);
		c->wgrad = 0;
	} else if (!strcmp(op->kind, "input") || !strcmp(op->kind, "concat") ||
		   !strcmp(op->kind, "interaction")) {
		size_t n = (size_t)q * (size_t)(op->out_bytes / 4 + 1);
		float *a = G.alloc(n), *b = G.alloc(n);
		if (!a || !b)
			return err_set(err, "profile: operator '%s': out of GPU memory", op->name);
		c->fwd = c->bwd = median_us([&] {
			cudaMemcpy(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice);
		}, W, R);
		c->wgrad = 0;
	} else {
		return err_set(err, "graph '%s': operator '%s': no CUDA kernel for kind '%s' (linear, gelu, layernorm, input, concat, interaction)",
			       g->name, op->name, op->kind);
	}
	if ((e = cudaGetLastError()) != cudaSuccess)
		return err_set(err, "profile: operator '%s': CUDA error: %s", op->name,
			       cudaGetErrorString(e));
	return STATUS_OK;
}
