/*
 * The executor's internals shared by the threaded runner (exec.c) and the
 * MPI runner (exec_mpi.c).
 */
#ifndef PIPEOPT_EXEC_INTERNAL_H
#define PIPEOPT_EXEC_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "exec/exec.h"
#include "exec/model.h"

/* The state of one executor run (exec.c, exec_mpi.c): weights and
 * activations, live-activation counts and peaks, the timed events, and
 * whether it failed. */
struct exec_run {
	const struct instance *in;
	const struct schedule *s;
	const struct exec_model *m;
	int L, M, H, R;
	size_t act;                 /* floats per activation: R * H */
	float **W, **dW;            /* [L] each stage's weights, their gradients */
	float *input;               /* [M] R x H */
	float **arena;              /* [L * M] what a (stage, micro-batch) keeps (model.h) */
	unsigned char *fdone, *bdone;   /* [L * M] */
	int *live, *peak;           /* [D] */
	struct exec_event *ev;
	int nev;
	double t0, watchdog;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool failed;
	struct error err;
};

/* Stage l's output on micro-batch j (sent to its successors), and its
 * input gradient (sent to its predecessors). */
static inline float *exec_output(const struct exec_run *r, int l, int j)
{
	return net_act(r->m, r->arena[(size_t)l * r->M + j], r->m->st[l].n);
}

static inline float *exec_input_grad(const struct exec_run *r, int l, int j)
{
	return net_grad(r->m, l, r->arena[(size_t)l * r->M + j], 0);
}

/* Validate the schedule, build the model (*m, the caller frees it; the
 * buffers it needs are checked against a limit) and set single-threaded
 * kernels. */
enum status exec_prepare(const struct instance *in, const struct schedule *s,
			 const struct exec_options *o, struct exec_model **m, struct error *err);
int exec_run_init(struct exec_run *r, const struct instance *in, const struct schedule *s,
		  const struct exec_model *m);
void exec_run_release(struct exec_run *r);
/* The end of a run, whatever its status: releases the run and the model,
 * and the result when st failed; returns st. */
enum status exec_close(struct exec_run *r, struct exec_model *m, struct exec_result *res,
		       enum status st);
/* Run op o's kernel (F, B or W). */
void exec_op(struct exec_run *r, const struct op *o);
/* Live-activation bookkeeping after op o on device d. */
void exec_account(struct exec_run *r, int d, const struct op *o);
/* After a run: the reference, the checks, the timing (fills res; takes
 * run's events). */
enum status exec_finish(const struct instance *in, const struct schedule *s,
			const struct exec_options *o, struct exec_run *run, struct exec_result *res,
			struct error *err);

#endif
