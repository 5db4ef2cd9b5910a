/*
 * When an op can start, given the end times of the ops already timed: the
 * dependency rule of docs/design.md in one place, shared by the simulator
 * (sim.c) and the GA's decoder (ga/decode.c); and, without times, whether
 * its inputs are done, for the executor's workers (exec/exec.c and
 * exec/cuda_exec.cu; C and CUDA C++).
 *
 * Dependencies of micro-batch j, with lag = the stage edge's comm across
 * devices, else 0:
 *     F(l,j) <- F(p,j) for each predecessor stage p
 *     B(l,j) <- F(l,j), and B(s,j) for each successor stage s
 *     W(l,j) <- B(l,j)
 */
#ifndef PIPEOPT_READY_H
#define PIPEOPT_READY_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/instance.h"

/*
 * The earliest start of op (k,l,j) on a device free at time t: the latest of
 * t and every input's end plus lag. `end` is indexed by op id, < 0 for an op
 * not timed yet; if an input is not timed, returns -1 and stores its id in
 * *waiting.
 */
static inline int64_t op_ready_time(const struct instance *in,
				    const int64_t *end, int k, int l, int j,
				    int64_t t, int *waiting)
{
	int M = in->microbatches, L = in->stages;
	if (k == OP_F) {
		for (int i = in->pred_start[l]; i < in->pred_start[l + 1]; i++) {
			int x = in->pred[i].stage * M + j;   /* F(p, j) */
			if (end[x] < 0) {
				*waiting = x;
				return -1;
			}
			int64_t a = end[x] + in->pred[i].lag;
			t = a > t ? a : t;
		}
		return t;
	}
	if (k == OP_B) {
		int f = l * M + j;
		if (end[f] < 0) {
			*waiting = f;
			return -1;
		}
		t = end[f] > t ? end[f] : t;
		for (int i = in->succ_start[l]; i < in->succ_start[l + 1]; i++) {
			int x = (L + in->succ[i].stage) * M + j;   /* B(s, j) */
			if (end[x] < 0) {
				*waiting = x;
				return -1;
			}
			int64_t a = end[x] + in->succ[i].lag;
			t = a > t ? a : t;
		}
		return t;
	}
	int b = (L + l) * M + j;   /* W(l,j) <- B(l,j) */
	if (end[b] < 0) {
		*waiting = b;
		return -1;
	}
	return end[b] > t ? end[b] : t;
}

/*
 * Whether op (k,l,j)'s inputs are done, by the same rule without times or
 * lags: fdone and bdone flag F and B of (stage, micro-batch) at index
 * stage * M + j.
 */
static inline bool op_inputs_done(const struct instance *in, const unsigned char *fdone,
				  const unsigned char *bdone, int k, int l, int j)
{
	int M = in->microbatches;
	if (k == OP_W)
		return bdone[(size_t)l * M + j];
	if (k == OP_B) {
		if (!fdone[(size_t)l * M + j])
			return false;
		for (int i = in->succ_start[l]; i < in->succ_start[l + 1]; i++)
			if (!bdone[(size_t)in->succ[i].stage * M + j])
				return false;
		return true;
	}
	for (int i = in->pred_start[l]; i < in->pred_start[l + 1]; i++)
		if (!fdone[(size_t)in->pred[i].stage * M + j])
			return false;
	return true;
}

/* The stages whose ops may wait for op kind k of stage l: [*from, *to) in
 * the returned list (successors for F, predecessors for B, none for W). */
static inline const struct stage_link *op_dependents(const struct instance *in,
						     int k, int l, int *from,
						     int *to)
{
	if (k == OP_F) {
		*from = in->succ_start[l];
		*to = in->succ_start[l + 1];
		return in->succ;
	}
	if (k == OP_B) {
		*from = in->pred_start[l];
		*to = in->pred_start[l + 1];
		return in->pred;
	}
	*from = *to = 0;
	return in->succ;
}

/* An event loop's wake-up (the simulator's and the GA decoder's): op kind
 * k of stage l ended on device d, so every other device that runs one of
 * its dependents goes on the work stack (once: queued marks it). */
static inline void wake_dependents(const struct instance *in, int k, int l, int d,
				   uint8_t *queued, int *stack, int *top)
{
	int from, to;
	const struct stage_link *nb = op_dependents(in, k, l, &from, &to);
	for (int i = from; i < to; i++) {
		int e = in->stage_device[nb[i].stage];
		if (e != d && !queued[e]) {
			queued[e] = 1;
			stack[(*top)++] = e;
		}
	}
}

/*
 * The memory rule of offload (docs/design.md, Offload), shared by the
 * simulator, the exact search and the GA's decoder. Per device d:
 * free_end[d] is the latest end of a listed op that frees memory, and
 * alloc_start[2d + r] the latest start of a listed op that takes memory
 * on resource r (0 compute, 1 the copy channel). An op of resource r that
 * takes memory starts no earlier than every op listed before it on the
 * other resource that takes memory, and after every listed op that frees
 * memory has ended: offload_floor is that earliest start from `st`.
 */
static inline int64_t offload_floor(const int64_t *free_end, const int64_t *alloc_start,
				    int d, int r, int64_t st)
{
	st = st > free_end[d] ? st : free_end[d];
	int64_t other = alloc_start[2 * d + 1 - r];
	return st > other ? st : other;
}

/* When a copy on device d's channel can start, the channel free from
 * chan_free: an offload (reload false) after its F ends at f_end; a reload,
 * which takes memory, by offload_floor. */
static inline int64_t offload_copy_start(bool reload, int64_t chan_free, int64_t f_end,
					 const int64_t *free_end, const int64_t *alloc_start,
					 int d)
{
	if (reload)
		return offload_floor(free_end, alloc_start, d, 1, chan_free);
	return chan_free > f_end ? chan_free : f_end;
}

/* When a compute op of kind k with memory change delta can start on
 * device d, from st (its device and inputs): a B after its activations'
 * reload ends at reload_end (< 0: not offloaded), an op that takes memory
 * by offload_floor. */
static inline int64_t offload_compute_start(int k, int64_t delta, int64_t reload_end,
					    const int64_t *free_end, const int64_t *alloc_start,
					    int d, int64_t st)
{
	if (k == OP_B && reload_end > st)
		st = reload_end;
	return delta > 0 ? offload_floor(free_end, alloc_start, d, 0, st) : st;
}

/* Record an op of resource r on device d, timed [st, end), with memory
 * change delta, for the ops listed after it. */
static inline void offload_mark(int64_t *free_end, int64_t *alloc_start, int d, int r,
				int64_t delta, int64_t st, int64_t end)
{
	if (delta > 0 && st > alloc_start[2 * d + r])
		alloc_start[2 * d + r] = st;
	if (delta < 0 && end > free_end[d])
		free_end[d] = end;
}

#endif
