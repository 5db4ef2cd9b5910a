/*
 * Device helpers shared by the CUDA profiler (profile/cuda.cu) and the CUDA
 * executor (exec/cuda_exec.cu), both in libpipeopt_cuda.so. Included
 * inside each file's anonymous namespace.
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

#endif
