/*
 * The executor on MPI ranks: rank d is device d (run under
 * `mpirun -np D`). The ops and the checks are those of exec.c; what
 * changes is how inputs arrive: a forward's inputs from a stage on another
 * rank, and a backward's input gradients from one, come as messages (tag =
 * the producing op's id), sent without blocking as soon as the op is done
 * and received before the consuming op runs (polled, so the watchdog still
 * holds). Rank 0 gathers the weight gradients, peaks and op timings and
 * checks them against the sequential reference it computes itself.
 */
#include "exec/exec_internal.h"

#ifdef PIPEOPT_HAVE_MPI
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/mpi.h"

static int tag_of(const struct exec_run *r, int k, int l, int j)
{
	return (k * r->L + l) * r->M + j;
}

/* Receive an input produced on another rank into its slot; false on the
 * watchdog. */
static bool receive(struct exec_run *r, int from, int k, int l, int j, float *into)
{
	MPI_Request req;
	int done = 0;
	MPI_Irecv(into, (int)r->act, MPI_FLOAT, from, tag_of(r, k, l, j), MPI_COMM_WORLD, &req);
	double until = clock_seconds() + r->watchdog;
	while (!done) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (!done && clock_seconds() > until) {
			MPI_Cancel(&req);
			MPI_Request_free(&req);
			return false;
		}
	}
	return true;
}

/* The inputs of op o from other ranks. */
static bool inputs(struct exec_run *r, int d, const struct op *o)
{
	const struct instance *in = r->in;
	int l = o->stage, j = o->mb;
	if (o->kind == OP_F) {
		for (int i = in->pred_start[l]; i < in->pred_start[l + 1]; i++) {
			int p = in->pred[i].stage, e = in->stage_device[p];
			if (e != d && !receive(r, e, OP_F, p, j, exec_output(r, p, j)))
				return false;
		}
	} else if (o->kind == OP_B) {
		for (int i = in->succ_start[l]; i < in->succ_start[l + 1]; i++) {
			int s = in->succ[i].stage, e = in->stage_device[s];
			if (e != d && !receive(r, e, OP_B, s, j, exec_input_grad(r, s, j)))
				return false;
		}
	}
	return true;
}

/* Send op o's output to the ranks whose ops need it. */
static void outputs(struct exec_run *r, int d, const struct op *o, MPI_Request *reqs, int *nreq)
{
	const struct instance *in = r->in;
	int l = o->stage, j = o->mb;
	const struct stage_link *nb = o->kind == OP_F ? in->succ : in->pred;
	const int *start = o->kind == OP_F ? in->succ_start : in->pred_start;
	if (o->kind == OP_W)
		return;
	float *data = o->kind == OP_F ? exec_output(r, l, j) : exec_input_grad(r, l, j);
	for (int i = start[l]; i < start[l + 1]; i++) {
		int e = in->stage_device[nb[i].stage];
		if (e != d)
			MPI_Isend(data, (int)r->act, MPI_FLOAT, e, tag_of(r, o->kind, l, j), MPI_COMM_WORLD,
				  &reqs[(*nreq)++]);
	}
}

/* Run this rank's row; false on the watchdog (err filled). */
static bool run_row(struct exec_run *r, int d, struct error *err)
{
	const struct sched_row *row = &r->s->rows[d];
	int cap = 0;
	for (int i = 0; i < row->len; i++)
		cap += r->in->nedges + 1;
	MPI_Request *reqs = malloc((cap ? cap : 1) * sizeof *reqs);
	int nreq = 0;
	bool ok = reqs != NULL;
	for (int i = 0; ok && i < row->len; i++) {
		const struct op *o = &row->ops[i];
		if (!inputs(r, d, o)) {
			char a[64];
			err_set(err, "exec: watchdog: rank %d waited more than %.0f s for the inputs of %s",
				d, r->watchdog, op_format(a, sizeof a, o->kind, o->stage, o->mb));
			ok = false;
			break;
		}
		double t = clock_seconds() - r->t0;
		exec_op(r, o);
		double e = clock_seconds() - r->t0;
		exec_account(r, d, o);
		r->ev[r->nev++] = (struct exec_event){d, o->kind, o->stage, o->mb, t, e};
		outputs(r, d, o, reqs, &nreq);
	}
	if (ok)
		MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
	free(reqs);
	return ok;
}

/* Rank 0 collects: the weight gradients of other ranks' stages into r,
 * the peaks, the events. */
static void gather(struct exec_run *r, int rank, int size)
{
	const struct instance *in = r->in;
	for (int l = 0; l < r->L; l++) {
		int owner = in->stage_device[l], w = (int)r->m->st[l].weights;
		if (owner == 0 || w == 0)
			continue;
		if (rank == owner)
			MPI_Send(r->dW[l], w, MPI_FLOAT, 0, l, MPI_COMM_WORLD);
		else if (rank == 0)
			MPI_Recv(r->dW[l], w, MPI_FLOAT, owner, l, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	int mine = r->peak[rank];
	MPI_Gather(&mine, 1, MPI_INT, r->peak, 1, MPI_INT, 0, MPI_COMM_WORLD);
	int n = r->nev, *counts = calloc(size, sizeof *counts), *displs = calloc(size, sizeof *displs);
	MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	int total = 0;
	for (int i = 0; rank == 0 && i < size; i++) {
		counts[i] *= (int)sizeof(struct exec_event);
		displs[i] = total;
		total += counts[i];
	}
	struct exec_event *all = rank == 0 ? malloc(total ? total : 1) : NULL;
	MPI_Gatherv(r->ev, n * (int)sizeof(struct exec_event), MPI_BYTE, all, counts, displs, MPI_BYTE,
		    0, MPI_COMM_WORLD);
	if (rank == 0) {
		memcpy(r->ev, all, total);
		r->nev = total / (int)sizeof(struct exec_event);
	}
	free(all);
	free(counts);
	free(displs);
}

enum status exec_run_mpi(const struct instance *in, const struct schedule *s,
			 const struct exec_options *o, struct exec_result *res, struct error *err)
{
	int rank = mpi_rank(), size = mpi_size();
	memset(res, 0, sizeof *res);
	if (size != in->devices)
		return err_set(err, "exec: %d MPI ranks for %d devices (run with mpirun -np %d)", size,
			       in->devices, in->devices);
	int *tag_ub = NULL, flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
	if (flag && tag_ub && inst_nops(in) > *tag_ub)
		return err_set(err, "exec: %d ops, more than this MPI's largest tag %d", inst_nops(in),
			       *tag_ub);
	struct exec_model *m = NULL;
	enum status st = exec_prepare(in, s, o, &m, err);
	struct exec_run run;
	int bad = st ? 1 : exec_run_init(&run, in, s, m);
	int any_bad = 0;
	MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any_bad) {
		if (!st)
			exec_run_release(&run);
		exec_model_free(m);
		return st ? st : err_set(err, "exec: out of memory on some rank");
	}
	run.watchdog = o->watchdog;
	MPI_Barrier(MPI_COMM_WORLD);
	run.t0 = clock_seconds();
	int failed = !run_row(&run, rank, err), any_failed = 0;
	double mine = clock_seconds() - run.t0, longest = 0;
	MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any_failed)
		return exec_close(&run, m, res, failed ? STATUS_ERROR
						       : err_set(err, "exec: another rank failed (watchdog)"));
	MPI_Reduce(&mine, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	gather(&run, rank, size);
	res->measured_makespan_s = longest;
	if (rank == 0)
		st = exec_finish(in, s, o, &run, res, err);
	return exec_close(&run, m, res, st);
}

#else

enum status exec_run_mpi(const struct instance *in, const struct schedule *s,
			 const struct exec_options *o, struct exec_result *res, struct error *err)
{
	(void)in;
	(void)s;
	(void)o;
	(void)res;
	return err_set(err, "exec: this pipeopt was built without MPI");
}

#endif
