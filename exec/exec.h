/*
 * The executor: runs a schedule on real tensors, one worker thread per
 * device, and checks it against the model.
 *
 * The model: every stage l is a layer y = gelu(a W_l) of width H (fp32,
 * W_l H x H, deterministic values), a = the input micro-batch (B_rows x H)
 * at source stages, else the sum of the predecessors' outputs (in edge
 * order); the loss is 1/2 sum of squares of the sink stages' outputs. Per
 * micro-batch j:
 *   F(l, j): z = a W_l, y = gelu(z); keeps a and z (one live activation)
 *   B(l, j): dz = dy * gelu'(z) with dy = the sum of the successors' input
 *            gradients (or y at a sink), da = dz W_l^T (sent back);
 *            fused backward: also dW_l += a^T dz and frees the activation
 *   W(l, j): dW_l += a^T dz, frees the activation (really deferred: the
 *            worker runs it where the schedule puts it)
 * Workers exchange activations and gradients through per-(stage,
 * micro-batch) slots; a worker waiting longer than the watchdog's limit
 * fails the run with the op it waits for.
 *
 * Checks: the weight gradients against a single-thread sequential
 * reference over the same micro-batches (same accumulation order: W's of a
 * stage run in micro-batch order, so equality is exact); the peak number
 * of live activations per device against the prediction from the order
 * alone (F +1; W, or B when fused, -1); the measured makespan against the
 * simulator's, timed with per-op costs measured on this machine: the
 * median duration of each kind in this run (so the comparison tests the
 * schedule's timing model: dependencies, order, waits), and, for contrast,
 * the kernels timed alone on warm buffers (which a run, touching a new
 * micro-batch's buffers at every op, does not see).
 */
#ifndef PIPEOPT_EXEC_H
#define PIPEOPT_EXEC_H

#include <stdbool.h>

#include "sched/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

struct exec_options {
	int hidden;                /* H */
	int rows;                  /* samples per micro-batch */
	double watchdog;           /* seconds a worker may wait */
	int calibration_runs;      /* runs of each op to time it (median) */
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
	double op_seconds[3];              /* median F, B, W in the run */
	double kernel_seconds[3];          /* median F, B, W timed alone */
	double kernel_makespan_s;          /* simulated with those */
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

/* MPI: whether built with it; this process's rank (initialising MPI if
 * needed); finalising. Without MPI: false, 0, nothing. */
bool exec_mpi_available(void);
int exec_mpi_rank(void);
void exec_mpi_end(void);

void exec_result_release(struct exec_result *r);

#endif
