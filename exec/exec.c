/* The threaded executor (model and checks in exec.h). */
#include "exec/exec_internal.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/clock.h"
#include "sched/sim.h"


/* A zeroed buffer, its pages touched now: calloc may hand out untouched
 * zero pages whose first write faults, and in a run that fault would be
 * charged to the op (measured here: 4x the op's own time). */
static float *fresh(size_t n)
{
	float *x = malloc((n ? n : 1) * sizeof(float));
	if (x)
		memset(x, 0, (n ? n : 1) * sizeof(float));
	return x;
}

static void fill(float *x, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(((i + 1) * 2654435761u + seed * 40503u) % 2001) / 2000.0f - 0.5f;
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

/* ---- the ops (same code for the workers and the reference) ------------------- */

/* Buffers are allocated up front (run_init), so no op allocates while it
 * is timed; "live" is the bookkeeping of which are in use. */
static void op_forward(struct run *r, int l, int j)
{
	const struct instance *in = r->in;
	size_t id = (size_t)l * r->M + j;
	float *a = r->a[id], *z = r->z[id], *y = r->y[id];
	if (in->pred_start[l] == in->pred_start[l + 1])
		memcpy(a, r->input + (size_t)j * r->act, r->act * sizeof *a);
	else
		memset(a, 0, r->act * sizeof *a);
	for (int i = in->pred_start[l]; i < in->pred_start[l + 1]; i++) {
		const float *p = r->y[(size_t)in->pred[i].stage * r->M + j];
		for (size_t k = 0; k < r->act; k++)
			a[k] += p[k];
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r->R, r->H, r->H, 1.0f, a, r->H,
		    r->W[l], r->H, 0.0f, z, r->H);
	for (size_t k = 0; k < r->act; k++)
		y[k] = gelu(z[k]);
}

static void op_weight(struct run *r, int l, int j)
{
	size_t id = (size_t)l * r->M + j;
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, r->H, r->H, r->R, 1.0f, r->a[id], r->H,
		    r->z[id], r->H, 1.0f, r->dW[l], r->H);
}

static void op_backward(struct run *r, int l, int j)
{
	const struct instance *in = r->in;
	size_t id = (size_t)l * r->M + j;
	float *dy = r->dy[id], *z = r->z[id], *g = r->g[id];
	if (in->succ_start[l] == in->succ_start[l + 1])
		memcpy(dy, r->y[id], r->act * sizeof *dy);   /* d(1/2 |y|^2)/dy */
	else
		memset(dy, 0, r->act * sizeof *dy);
	for (int i = in->succ_start[l]; i < in->succ_start[l + 1]; i++) {
		const float *s = r->g[(size_t)in->succ[i].stage * r->M + j];
		for (size_t k = 0; k < r->act; k++)
			dy[k] += s[k];
	}
	for (size_t k = 0; k < r->act; k++)
		z[k] = dy[k] * gelu_grad(z[k]);   /* z now holds dz */
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, r->R, r->H, r->H, 1.0f, z, r->H,
		    r->W[l], r->H, 0.0f, g, r->H);
	if (!in->split_backward)
		op_weight(r, l, j);
}

/* ---- workers ------------------------------------------------------------------ */

/* Whether op (k, l, j)'s inputs are there (under the lock). */
static bool ready(const struct run *r, int k, int l, int j)
{
	const struct instance *in = r->in;
	size_t id = (size_t)l * r->M + j;
	if (k == OP_W)
		return r->bdone[id];
	if (k == OP_B) {
		if (!r->fdone[id])
			return false;
		for (int i = in->succ_start[l]; i < in->succ_start[l + 1]; i++)
			if (!r->bdone[(size_t)in->succ[i].stage * r->M + j])
				return false;
		return true;
	}
	for (int i = in->pred_start[l]; i < in->pred_start[l + 1]; i++)
		if (!r->fdone[(size_t)in->pred[i].stage * r->M + j])
			return false;
	return true;
}

/* Wait for op's inputs; false on failure elsewhere or the watchdog. */
static bool wait_inputs(struct run *r, int d, const struct op *o)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)r->watchdog;
	pthread_mutex_lock(&r->mu);
	while (!r->failed && !ready(r, o->kind, o->stage, o->mb)) {
		if (pthread_cond_timedwait(&r->cv, &r->mu, &until) == ETIMEDOUT) {
			char a[64];
			r->failed = true;
			err_set(&r->err, "exec: watchdog: device %d waited more than %.0f s to run %s",
				d, r->watchdog, op_format(a, sizeof a, o->kind, o->stage, o->mb));
			pthread_cond_broadcast(&r->cv);
		}
	}
	bool ok = !r->failed;
	pthread_mutex_unlock(&r->mu);
	return ok;
}

struct worker_arg {
	struct run *r;
	int d;
};

void exec_op(struct run *r, const struct op *o)
{
	if (o->kind == OP_F)
		op_forward(r, o->stage, o->mb);
	else if (o->kind == OP_B)
		op_backward(r, o->stage, o->mb);
	else
		op_weight(r, o->stage, o->mb);
}

void exec_account(struct run *r, int d, const struct op *o)
{
	if (o->kind == OP_F) {
		if (++r->live[d] > r->peak[d])
			r->peak[d] = r->live[d];
	} else if (o->kind == OP_W || !r->in->split_backward) {
		r->live[d]--;
	}
}

static void *worker(void *arg)
{
	struct worker_arg *w = arg;
	struct run *r = w->r;
	const struct sched_row *row = &r->s->rows[w->d];
	for (int i = 0; i < row->len; i++) {
		const struct op *o = &row->ops[i];
		if (!wait_inputs(r, w->d, o))
			return NULL;
		double t = clock_seconds() - r->t0;
		exec_op(r, o);
		double e = clock_seconds() - r->t0;
		pthread_mutex_lock(&r->mu);
		size_t id = (size_t)o->stage * r->M + o->mb;
		if (o->kind == OP_F)
			r->fdone[id] = 1;
		else if (o->kind == OP_B)
			r->bdone[id] = 1;
		exec_account(r, w->d, o);
		r->ev[r->nev++] = (struct exec_event){w->d, o->kind, o->stage, o->mb, t, e};
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
	}
	return NULL;
}

/* ---- set-up, reference, checks -------------------------------------------------- */

void exec_run_release(struct run *r)
{
	size_t n = (size_t)r->L * r->M;
	for (int l = 0; r->W && l < r->L; l++) {
		free(r->W[l]);
		free(r->dW[l]);
	}
	for (size_t i = 0; r->a && i < n; i++) {
		free(r->a[i]);
		free(r->z[i]);
		free(r->y[i]);
		free(r->g[i]);
		free(r->dy[i]);
	}
	free(r->W);
	free(r->dW);
	free(r->a);
	free(r->z);
	free(r->y);
	free(r->g);
	free(r->dy);
	free(r->fdone);
	free(r->bdone);
	free(r->live);
	free(r->peak);
	free(r->input);
	free(r->ev);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
}

int exec_run_init(struct run *r, const struct instance *in, const struct schedule *s,
		  const struct exec_options *o)
{
	memset(r, 0, sizeof *r);
	r->in = in;
	r->s = s;
	r->L = in->stages;
	r->M = in->microbatches;
	r->H = o->hidden;
	r->R = o->rows;
	r->act = (size_t)r->R * r->H;
	r->watchdog = o->watchdog;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	size_t n = (size_t)r->L * r->M;
	r->W = calloc(r->L, sizeof *r->W);
	r->dW = calloc(r->L, sizeof *r->dW);
	r->a = calloc(n, sizeof *r->a);
	r->z = calloc(n, sizeof *r->z);
	r->y = calloc(n, sizeof *r->y);
	r->g = calloc(n, sizeof *r->g);
	r->dy = calloc(n, sizeof *r->dy);
	r->fdone = calloc(n, 1);
	r->bdone = calloc(n, 1);
	r->live = calloc(in->devices, sizeof *r->live);
	r->peak = calloc(in->devices, sizeof *r->peak);
	r->input = fresh((size_t)r->M * r->act);
	r->ev = calloc((size_t)inst_nops(in), sizeof *r->ev);
	if (!r->W || !r->dW || !r->a || !r->z || !r->y || !r->g || !r->dy || !r->fdone || !r->bdone ||
	    !r->live || !r->peak || !r->input || !r->ev)
		return -1;
	fill(r->input, (size_t)r->M * r->act, 7);
	for (size_t i = 0; i < n; i++)
		if (!(r->a[i] = fresh(r->act)) || !(r->z[i] = fresh(r->act)) ||
		    !(r->y[i] = fresh(r->act)) || !(r->g[i] = fresh(r->act)) ||
		    !(r->dy[i] = fresh(r->act)))
			return -1;
	for (int l = 0; l < r->L; l++) {
		if (!(r->W[l] = fresh((size_t)r->H * r->H)) || !(r->dW[l] = fresh((size_t)r->H * r->H)))
			return -1;
		fill(r->W[l], (size_t)r->H * r->H, 100 + l);
		for (size_t k = 0; k < (size_t)r->H * r->H; k++)
			r->W[l][k] *= 2.0f / sqrtf((float)r->H);
	}
	return 0;
}

/* Single-thread reference: each micro-batch forward in topological order,
 * backward in reverse, every W right after its B. */
static void reference(struct run *r)
{
	for (int j = 0; j < r->M; j++) {
		for (int i = 0; i < r->L; i++)
			op_forward(r, r->in->topo[i], j);
		for (int i = r->L - 1; i >= 0; i--) {
			op_backward(r, r->in->topo[i], j);
			if (r->in->split_backward)
				op_weight(r, r->in->topo[i], j);
		}
	}
}

static double max_rel_err(const struct run *x, const struct run *ref)
{
	double worst = 0, scale = 0;
	size_t n = (size_t)x->H * x->H;
	for (int l = 0; l < x->L; l++)
		for (size_t k = 0; k < n; k++)
			scale = fabs(ref->dW[l][k]) > scale ? fabs(ref->dW[l][k]) : scale;
	for (int l = 0; l < x->L; l++)
		for (size_t k = 0; k < n; k++) {
			double e = fabs(x->dW[l][k] - ref->dW[l][k]) / (scale > 0 ? scale : 1);
			worst = e > worst ? e : worst;
		}
	return worst;
}

static void predicted_peaks(const struct instance *in, const struct schedule *s, int *peak)
{
	for (int d = 0; d < s->devices; d++) {
		int live = 0;
		peak[d] = 0;
		for (int i = 0; i < s->rows[d].len; i++) {
			int k = s->rows[d].ops[i].kind;
			live += k == OP_F ? 1 : (k == OP_W || !in->split_backward) ? -1 : 0;
			peak[d] = live > peak[d] ? live : peak[d];
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median seconds of F, B, W of a source stage on micro-batch 0, n runs
 * each (every stage has the same shape). */
static void calibrate(const struct instance *in, const struct exec_options *o, double out[3])
{
	struct run r;
	double t[3][64];
	int n = o->calibration_runs < 64 ? o->calibration_runs : 64;
	if (exec_run_init(&r, in, NULL, o)) {
		out[0] = out[1] = out[2] = 0;
		exec_run_release(&r);
		return;
	}
	/* the kernels directly: a backward on its own would wait for its
	 * successors' gradients */
	int l0 = in->topo[0];
	for (int i = 0; i < n; i++) {
		int j = i % r.M;   /* a different micro-batch's buffers each time, as in a run */
		double t0 = clock_seconds();
		op_forward(&r, l0, j);
		t[0][i] = clock_seconds() - t0;
		size_t id = (size_t)l0 * r.M + j;
		float *dz = r.z[id], *g = r.g[id];
		t0 = clock_seconds();
		for (size_t k = 0; k < r.act; k++)
			dz[k] = r.y[id][k] * gelu_grad(dz[k]);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, r.R, r.H, r.H, 1.0f, dz, r.H,
			    r.W[l0], r.H, 0.0f, g, r.H);
		t[1][i] = clock_seconds() - t0;
		t0 = clock_seconds();
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, r.H, r.H, r.R, 1.0f, r.a[id], r.H,
			    dz, r.H, 1.0f, r.dW[l0], r.H);
		t[2][i] = clock_seconds() - t0;
	}
	for (int k = 0; k < 3; k++) {
		qsort(t[k], n, sizeof t[k][0], cmp_double);
		out[k] = t[k][n / 2];
	}
	exec_run_release(&r);
}

/* Median seconds of each kind's ops in the run itself (out[k] = 0 for a
 * kind that did not run). */
static void run_medians(const struct exec_event *ev, int n, double out[3])
{
	double *t = malloc((n ? n : 1) * sizeof *t);
	for (int k = 0; k < 3; k++) {
		int m = 0;
		for (int i = 0; t && i < n; i++)
			if (ev[i].kind == k)
				t[m++] = ev[i].end - ev[i].start;
		out[k] = 0;
		if (m) {
			qsort(t, m, sizeof *t, cmp_double);
			out[k] = t[m / 2];
		}
	}
	free(t);
}

/* The simulator's makespan with the calibrated costs (seconds). */
static enum status predict(const struct instance *in, const struct schedule *s,
			   const double cost[3], double *out, struct error *err)
{
	json_t *j = instance_canonical_json(in);
	json_int_t us[3];
	for (int k = 0; k < 3; k++)
		us[k] = (json_int_t)llround(cost[k] * 1e6) > 1 ? (json_int_t)llround(cost[k] * 1e6) : 1;
	json_t *c = json_object_get(j, "cost");
	json_object_set_new(c, "F", json_integer(us[0]));
	json_object_set_new(c, "B", json_integer(in->split_backward ? us[1] : us[1] + us[2]));
	if (in->split_backward)
		json_object_set_new(c, "W", json_integer(us[2]));
	json_object_set_new(j, "comm", json_integer(0));
	json_object_del(j, "objective");
	char *text = json_dumps(j, 0);
	json_decref(j);
	struct instance *timed = NULL;
	struct sim *sim = NULL;
	struct sim_result sr;
	enum status st = text ? instance_parse(text, "exec timing", &timed, err)
			      : err_set(err, "exec: out of memory");
	if (!st && (!(sim = sim_new(timed)) || sim_run(sim, s, &sr, err)))
		st = err_prefix(err, "exec: timing the schedule");
	if (!st)
		*out = sr.makespan * 1e-6;
	sim_free(sim);
	instance_free(timed);
	free(text);
	return st;
}

void exec_options_init(struct exec_options *o)
{
	*o = (struct exec_options){.hidden = 256, .rows = 64, .watchdog = 30, .calibration_runs = 9};
}

enum status exec_prepare(const struct instance *in, const struct schedule *s,
			 const struct exec_options *o, struct error *err)
{
	struct sim *sim = sim_new(in);
	struct sim_result sr;
	if (!sim)
		return err_set(err, "exec: out of memory");
	if (sim_run(sim, s, &sr, err)) {
		sim_free(sim);
		return err_prefix(err, "exec: the schedule is refused");
	}
	sim_free(sim);
	if (o->hidden < 1 || o->hidden > 8192 || o->rows < 1 || o->rows > 65536)
		return err_set(err, "exec: hidden must be 1 to 8192 and rows 1 to 65536");
	/* one worker is one device: single-threaded kernels, in the run and
	 * in the calibration alike */
	openblas_set_num_threads(1);
	return STATUS_OK;
}

enum status exec_finish(const struct instance *in, const struct schedule *s,
			const struct exec_options *o, struct run *run, struct exec_result *res,
			struct error *err)
{
	struct run ref;
	enum status st = STATUS_OK;
	if (exec_run_init(&ref, in, s, o)) {
		exec_run_release(&ref);
		return err_set(err, "exec: out of memory for the reference");
	}
	reference(&ref);
	res->grad_max_rel_err = max_rel_err(run, &ref);
	exec_run_release(&ref);
	res->peak_live = calloc(in->devices, sizeof(int));
	res->predicted_peak = calloc(in->devices, sizeof(int));
	if (!res->peak_live || !res->predicted_peak)
		return err_set(err, "exec: out of memory");
	memcpy(res->peak_live, run->peak, in->devices * sizeof(int));
	predicted_peaks(in, s, res->predicted_peak);
	calibrate(in, o, res->kernel_seconds);
	run_medians(run->ev, run->nev, res->op_seconds);
	if (!in->split_backward)   /* B included the weight gradient */
		res->op_seconds[2] = 0;
	st = predict(in, s, res->op_seconds, &res->predicted_makespan_s, err);
	if (!st)
		st = predict(in, s, res->kernel_seconds, &res->kernel_makespan_s, err);
	res->ratio = res->predicted_makespan_s > 0 ?
		res->measured_makespan_s / res->predicted_makespan_s : 0;
	res->events = run->ev;
	res->nevents = run->nev;
	run->ev = NULL;
	return st;
}

enum status exec_run(const struct instance *in, const struct schedule *s,
		     const struct exec_options *o, struct exec_result *res, struct error *err)
{
	memset(res, 0, sizeof *res);
	if (exec_prepare(in, s, o, err))
		return STATUS_ERROR;
	struct run run;
	if (exec_run_init(&run, in, s, o)) {
		exec_run_release(&run);
		return err_set(err, "exec: out of memory for %d stages x %d micro-batches", in->stages,
			       in->microbatches);
	}
	enum status st = STATUS_OK;
	pthread_t *tid = calloc(in->devices, sizeof *tid);
	struct worker_arg *args = calloc(in->devices, sizeof *args);
	int started = 0;
	run.t0 = clock_seconds();
	for (int d = 0; tid && args && d < in->devices; d++) {
		args[d] = (struct worker_arg){&run, d};
		if (pthread_create(&tid[d], NULL, worker, &args[d]))
			break;
		started++;
	}
	for (int d = 0; d < started; d++)
		pthread_join(tid[d], NULL);
	res->measured_makespan_s = clock_seconds() - run.t0;
	if (started < in->devices)
		st = err_set(err, "exec: could not start %d worker threads", in->devices);
	else if (run.failed)
		st = err_set(err, "%s", run.err.msg);
	if (!st)
		st = exec_finish(in, s, o, &run, res, err);
	free(tid);
	free(args);
	exec_run_release(&run);
	if (st)
		exec_result_release(res);
	return st;
}

void exec_result_release(struct exec_result *r)
{
	free(r->peak_live);
	free(r->predicted_peak);
	free(r->events);
	memset(r, 0, sizeof *r);
}
