/*
 * The executor: runs a schedule on real tensors, one worker thread (or MPI
 * rank) per device, and checks it against the model.
 *
 * The model (model.h): every stage is a chain of layers of width H (fp32:
 * linear, GELU, layer norm, one-head attention) built from the model
 * graph's operators the instance names in "model" (what `pipeopt partition
 * -o` writes), or one linear + GELU per stage without it. A stage's input
 * is the micro-batch (R x H, deterministic values) at a source stage, else
 * the sum of its predecessors' outputs (in edge order); the loss is 1/2
 * the sum of squares of the sink stages' outputs. Per micro-batch j:
 *   F(l, j): the layers forward, keeping what the backward needs (one live
 *            activation of the stage);
 *   B(l, j): output gradient = the sum of the successors' input gradients
 *            (or y at a sink), the layers backward to the input gradient
 *            (sent back); a fused backward also accumulates the weight
 *            gradients and frees the activation;
 *   W(l, j): the weight gradients accumulate; the activation is freed
 *            (really deferred: the worker runs it where the schedule puts it).
 * Workers exchange activations and gradients through per-(stage,
 * micro-batch) arenas (or MPI messages); a worker waiting longer than the
 * watchdog's limit fails the run with the op it waits for.
 *
 * Checks: the weight gradients against a single-thread sequential
 * reference over the same micro-batches (same accumulation order: W's of a
 * stage run in micro-batch order, so equality is exact); the peak number
 * of live activations per device against the prediction from the order
 * alone (F +1; W, or B when fused, -1); the measured makespan against the
 * simulator's with each (kind, stage)'s mean duration in this run (so
 * the comparison tests the schedule's timing model: dependencies, order,
 * waits), and, for contrast, with each stage's ops timed alone.
 */
#ifndef PIPEOPT_EXEC_H
#define PIPEOPT_EXEC_H

#include <stdbool.h>

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

struct exec_options {
	int hidden;                /* H */
	int rows;                  /* samples per micro-batch */
	double watchdog;           /* seconds a worker may wait */
	int calibration_runs;      /* runs of each op to time it (median) */
	bool cuda;                 /* run on the GPU (exec_cuda.h) instead of CPU threads */
};

struct exec_event {
	int device, kind, stage, mb;
	double start, end;         /* seconds from the run's start */
};

struct exec_result {
	double grad_max_rel_err;           /* vs the sequential reference */
	int *peak_live;                    /* [D] measured */
	int *predicted_peak;               /* [D] from the order */
	double measured_makespan_s;
	double predicted_makespan_s;       /* simulated with the run's median op costs */
	double ratio;                      /* measured / predicted */
	double op_seconds[3];              /* mean F, B, W in the run, all stages */
	int stages;                        /* L */
	double *stage_seconds;             /* [3 * L] mean of each (kind, stage) in
	                                      the run: what predicted_makespan_s uses */
	double kernel_makespan_s;          /* simulated with each stage's ops timed
	                                      alone (median) */
	int layers[4];                     /* linear, gelu, layernorm, attention layers,
	                                      all stages (model.h) */
	char graph[128];                   /* the model graph's name, or "" (default model) */
	int nevents;
	struct exec_event *events;         /* [nevents] for the trace */
};

void exec_options_init(struct exec_options *o);

/* Validate (sim_run: a deadlocking or invalid order is refused with the
 * reason), run, check. */
enum status exec_run(const struct instance *in, const struct schedule *s,
		     const struct exec_options *o, struct exec_result *r, struct error *err);

/* The same on MPI ranks (rank d is device d; world size = devices); every
 * rank calls it, rank 0 gets the result. Fails when built without MPI. */
enum status exec_run_mpi(const struct instance *in, const struct schedule *s,
			 const struct exec_options *o, struct exec_result *r, struct error *err);

void exec_result_release(struct exec_result *r);

#endif
