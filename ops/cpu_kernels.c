/* The CPU kernels (cpu_kernels.h has the formulas). */
#include "ops/cpu_kernels.h"

#include <cblas.h>
#include <math.h>

void cpu_gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *A, int lda,
	      const float *B, int ldb, float beta, float *C, int ldc)
{
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
		    m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
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

void cpu_gelu(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = gelu(x[i]);
}

void cpu_gelu_grad(const float *x, const float *dy, float *dx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dx[i] = dy[i] * gelu_grad(x[i]);
}

void cpu_softmax_rows(float *s, int rows, int cols, float scale)
{
	for (int r = 0; r < rows; r++) {
		float *x = s + (size_t)r * cols, mx = -INFINITY, sum = 0;
		for (int c = 0; c < cols; c++)
			mx = x[c] * scale > mx ? x[c] * scale : mx;
		for (int c = 0; c < cols; c++)
			sum += x[c] = expf(x[c] * scale - mx);
		for (int c = 0; c < cols; c++)
			x[c] /= sum;
	}
}

void cpu_softmax_rows_backward(const float *p, float *d, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		const float *pr = p + (size_t)r * cols;
		float *dr = d + (size_t)r * cols, dot = 0;
		for (int c = 0; c < cols; c++)
			dot += pr[c] * dr[c];
		for (int c = 0; c < cols; c++)
			dr[c] = pr[c] * (dr[c] - dot);
	}
}

void cpu_layernorm_forward(const float *x, float *y, int rows, int n, const float *g,
			   const float *b, float *xh, float *r)
{
	for (int i = 0; i < rows; i++) {
		const float *v = x + (size_t)i * n;
		float *o = y + (size_t)i * n, mean = 0, var = 0;
		for (int k = 0; k < n; k++)
			mean += v[k];
		mean /= n;
		for (int k = 0; k < n; k++)
			var += (v[k] - mean) * (v[k] - mean);
		float inv = 1.0f / sqrtf(var / n + 1e-5f);
		if (r)
			r[i] = inv;
		for (int k = 0; k < n; k++) {
			float h = (v[k] - mean) * inv;
			if (xh)
				xh[(size_t)i * n + k] = h;
			o[k] = g ? g[k] * h + b[k] : h;
		}
	}
}

void cpu_layernorm_backward(const float *dy, float *dx, int rows, int n, const float *g,
			    const float *xh, const float *r)
{
	for (int i = 0; i < rows; i++) {
		const float *d = dy + (size_t)i * n, *h = xh + (size_t)i * n;
		float *o = dx + (size_t)i * n, mt = 0, mth = 0;
		for (int k = 0; k < n; k++) {
			mt += d[k] * g[k];
			mth += d[k] * g[k] * h[k];
		}
		mt /= n;
		mth /= n;
		for (int k = 0; k < n; k++)
			o[k] = r[i] * (d[k] * g[k] - mt - h[k] * mth);
	}
}

void cpu_layernorm_weight(const float *dy, const float *xh, int rows, int n, float *dg,
			  float *db)
{
	for (int r = 0; r < rows; r++)
		for (int k = 0; k < n; k++) {
			dg[k] += dy[(size_t)r * n + k] * xh[(size_t)r * n + k];
			db[k] += dy[(size_t)r * n + k];
		}
}
