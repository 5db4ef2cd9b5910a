/*
 * The CPU kernels, fp32, row major, once for the CPU profiler
 * (profile/cpu.c times them) and the executor (exec/model.c runs them):
 * the GEMM (OpenBLAS), GELU and its derivative, row softmax and its
 * backward, layer norm forward, input gradient and weight gradient. The
 * CUDA twins are in cuda_common.cuh and the two .cu files.
 *
 * Formulas (x a row of n, eps = 1e-5):
 *   gelu(x)   = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
 *   gelu'(x)  = (1 + t)/2 + x/2 (1 - t^2) sqrt(2/pi) (1 + 3 0.044715 x^2),
 *               t = tanh(sqrt(2/pi) (x + 0.044715 x^3))
 *   softmax   p_j = exp(c x_j - max_k c x_k) / sum_k exp(c x_k - max c x)
 *   softmax'  d_j = p_j (d_j - sum_k p_k d_k)   (d: dL/dp in, dL/ds out)
 *   layernorm xh = (x - mean) r, r = 1/sqrt(var + eps), y = g xh + b
 *             backward: t = dy g, dx = r (t - mean(t) - xh mean(t xh));
 *             weights: dg += sum_rows dy xh, db += sum_rows dy
 * The executor's gradients are bitwise these functions' results (its
 * sequential reference calls the same ones), so a change here changes
 * every recorded gradient; tests/test_ops.c has hand-worked values.
 */
#ifndef PIPEOPT_CPU_KERNELS_H
#define PIPEOPT_CPU_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

/* C[m x n] = alpha op(A) op(B) + beta C: op(A) is m x k (A is k x m when
 * ta), op(B) is k x n (B is n x k when tb); lda, ldb, ldc are the row
 * strides of A, B, C as stored. */
void cpu_gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *A, int lda,
	      const float *B, int ldb, float beta, float *C, int ldc);

/* cpu_gemm on packed matrices (each row stride its stored width). */
static inline void cpu_gemm_packed(bool ta, bool tb, int m, int n, int k, float alpha,
				   const float *A, const float *B, float beta, float *C)
{
	cpu_gemm(ta, tb, m, n, k, alpha, A, ta ? m : k, B, tb ? k : n, beta, C, n);
}

/* y = gelu(x) elementwise (y may be x). */
void cpu_gelu(const float *x, float *y, size_t n);
/* dx = dy gelu'(x) elementwise (dx may be dy or x). */
void cpu_gelu_grad(const float *x, const float *dy, float *dx, size_t n);

/* Each of rows rows of cols: s = softmax(scale s), in place. */
void cpu_softmax_rows(float *s, int rows, int cols, float scale);
/* Its backward, in place: d = p (d - rowsum(p d)) per row. */
void cpu_softmax_rows_backward(const float *p, float *d, int rows, int cols);

/* Layer norm of rows rows of n (y may be x). g, b: the gain and bias (n
 * each), or both NULL for y = xh; xh (rows x n) and r (rows), kept for the
 * backward, may be NULL. */
void cpu_layernorm_forward(const float *x, float *y, int rows, int n, const float *g,
			   const float *b, float *xh, float *r);
/* dx from dy and the forward's xh and r. */
void cpu_layernorm_backward(const float *dy, float *dx, int rows, int n, const float *g,
			    const float *xh, const float *r);
/* dg += sum_rows dy xh, db += sum_rows dy (rows in order). */
void cpu_layernorm_weight(const float *dy, const float *xh, int rows, int n, float *dg,
			  float *db);

#endif
