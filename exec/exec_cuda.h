/*
 * The CUDA executor path (exec/cuda_exec.cu, built into the shared library
 * libpipeopt_cuda.so when nvcc is present, loaded on first use like the
 * CUDA profiler). It runs the same schedule on the same model (model.h)
 * on one GPU: one host worker thread and one CUDA stream per pipeline
 * device, each op's kernels enqueued on the worker's stream and the stream
 * synchronised before the op counts as done (so an op's inputs, written on
 * another stream, are complete when it starts). Each op's time is the host
 * time around enqueue + synchronise. Weights start from the host values
 * given; the input micro-batches are copied up once before the clock
 * starts. The checks stay on the host (exec.c): the weight gradients come
 * back to the host and are compared with the CPU sequential reference
 * (fp32 on both sides, TF32 off, so only the summation order differs).
 *
 * Without a GPU at run time the function fails with one line saying so.
 */
#ifndef PIPEOPT_EXEC_CUDA_H
#define PIPEOPT_EXEC_CUDA_H

#include "exec/exec.h"
#include "exec/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct exec_cuda_run {
	/* in */
	const struct instance *in;
	const struct schedule *s;
	const struct exec_model *m;
	const float *input;          /* [M * R * H] the micro-batches, host */
	const float *const *W;       /* [L] each stage's weights (st[l].weights floats), host */
	double watchdog;             /* seconds a worker may wait for an input */
	/* out (allocated by the caller) */
	float **dW;                  /* [L] the weight gradients (st[l].weights floats), host */
	int *peak;                   /* [D] peak live activations per device */
	struct exec_event *ev;       /* [inst_nops(in)] one event per op run */
	int nev;
	double makespan_s;           /* first op start to last op end, host clock */
	char msg[512];               /* why, on failure: one line */
};

/* 0 on success; -1 with r->msg set (no GPU, out of GPU memory, watchdog). */
typedef int (*exec_cuda_fn)(struct exec_cuda_run *r);
#define EXEC_CUDA_SYMBOL "pipeopt_exec_cuda"

#ifdef __cplusplus
}
#endif

#endif
