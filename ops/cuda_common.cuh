/*
 * Device helpers shared by the CUDA profiler (profile/cuda.cu) and the CUDA
 * executor (exec/cuda_exec.cu), both in libpipeopt_cuda.so: the block
 * reduction, GELU and its derivative (tanh form, as exec/model.c), row
 * softmax and its backward. Included inside each file's anonymous
 * namespace.
 */
#ifndef PIPEOPT_CUDA_COMMON_CUH
#define PIPEOPT_CUDA_COMMON_CUH

constexpr int THREADS = 256;   /* block size of the kernels (a multiple of 32) */

unsigned blocks_for(size_t n)
{
	size_t b = (n + THREADS - 1) / THREADS;
	return (unsigned)(b < 65535 ? (b ? b : 1) : 65535);   /* grid-stride beyond */
}

/* The sum (or the max) over the block, returned to every thread. */
template <bool MAX> __device__ float block_reduce(float v)
{
	__shared__ float part[32];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
	for (int o = 16; o; o >>= 1) {
		float u = __shfl_down_sync(0xffffffffu, v, o);
		v = MAX ? fmaxf(v, u) : v + u;
	}
	__syncthreads();   /* part[] may still be read by a previous call */
	if (!lane)
		part[warp] = v;
	__syncthreads();
	if (!warp) {
		v = lane < warps ? part[lane] : MAX ? -INFINITY : 0.0f;
		for (int o = 16; o; o >>= 1) {
			float u = __shfl_down_sync(0xffffffffu, v, o);
			v = MAX ? fmaxf(v, u) : v + u;
		}
		if (!lane)
			part[0] = v;
	}
	__syncthreads();
	return part[0];
}


/* gelu(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as model.c */
__device__ float gelu(float x)
{
	return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

__device__ float gelu_grad(float x)
{
	float t = tanhf(0.7978845608f * (x + 0.044715f * x * x * x));
	return 0.5f * (1 + t) + 0.5f * x * (1 - t * t) * 0.7978845608f * (1 + 3 * 0.044715f * x * x);
}

/* y = gelu(x) */
__global__ void k_gelu(const float *x, float *y, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		y[i] = gelu(x[i]);
}

/* dx = dy * gelu'(x) */
__global__ void k_gelu_bwd(const float *x, const float *dy, float *dx, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		dx[i] = dy[i] * gelu_grad(x[i]);
}

/* P = softmax of each row (n columns), one block per row, in place. */
__global__ void k_softmax(float *P, int n)
{
	float *p = P + (size_t)blockIdx.x * n, mx = -INFINITY, s = 0;
	for (int k = threadIdx.x; k < n; k += blockDim.x)
		mx = fmaxf(mx, p[k]);
	mx = block_reduce<true>(mx);
	for (int k = threadIdx.x; k < n; k += blockDim.x)
		s += p[k] = expf(p[k] - mx);
	s = block_reduce<false>(s);
	for (int k = threadIdx.x; k < n; k += blockDim.x)
		p[k] /= s;
}

/* Softmax backward, one block per row, in place: dS = P (dP - rowsum(P dP)). */
__global__ void k_softmax_bwd(const float *P, float *dP, int n)
{
	const float *p = P + (size_t)blockIdx.x * n;
	float *d = dP + (size_t)blockIdx.x * n, s = 0;
	for (int k = threadIdx.x; k < n; k += blockDim.x)
		s += p[k] * d[k];
	s = block_reduce<false>(s);
	for (int k = threadIdx.x; k < n; k += blockDim.x)
		d[k] = p[k] * (d[k] - s);
}

#endif
