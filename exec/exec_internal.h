/*
 * The executor's internals shared by the threaded runner (exec.c) and the
 * MPI runner (exec_mpi.c).
 */
#ifndef PIPEOPT_EXEC_INTERNAL_H
#define PIPEOPT_EXEC_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "exec/exec.h"

struct run {
	const struct instance *in;
	const struct schedule *s;
	int L, M, H, R;
	size_t act;                 /* floats per activation: R * H */
	float **W, **dW;            /* [L] H x H */
	float *input;               /* [M] R x H */
	float **a, **z, **y, **g, **dy;   /* [L * M] input, pre-activation (then dz),
	                                     output, input gradient, output gradient */
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

/* Validate the schedule and set single-threaded kernels. */
enum status exec_prepare(const struct instance *in, const struct schedule *s,
			 const struct exec_options *o, struct error *err);
int exec_run_init(struct run *r, const struct instance *in, const struct schedule *s,
		  const struct exec_options *o);
void exec_run_release(struct run *r);
/* Run op o's kernel (F, B or W). */
void exec_op(struct run *r, const struct op *o);
/* Live-activation bookkeeping after op o on device d. */
void exec_account(struct run *r, int d, const struct op *o);
/* After a run: the reference, the checks, the timing (fills res; takes
 * run's events). */
enum status exec_finish(const struct instance *in, const struct schedule *s,
			const struct exec_options *o, struct run *run, struct exec_result *res,
			struct error *err);

#endif
