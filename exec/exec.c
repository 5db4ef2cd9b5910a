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

#include "exec/exec_cuda.h"
#include "common/clock.h"
#include "common/plugin.h"
#include "sched/ready.h"
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

/* ---- the ops (same code for the workers and the reference) ------------------- */

/* Buffers are allocated up front (run_init), so no op allocates while it
 * is timed; "live" is the bookkeeping of which are in use. */
static float *arena_of(const struct exec_run *r, int l, int j)
{
	return r->arena[(size_t)l * r->M + j];
}

/* F(l, j): the stage's input is the micro-batch at a source stage, else the
 * sum of its predecessors' outputs (in edge order). */
static void op_forward(struct exec_run *r, int l, int j)
{
	const struct instance *in = r->in;
	float *a = net_act(r->m, arena_of(r, l, j), 0);
	if (in->pred_start[l] == in->pred_start[l + 1])
		memcpy(a, r->input + (size_t)j * r->act, r->act * sizeof *a);
	else
		memset(a, 0, r->act * sizeof *a);
	for (int i = in->pred_start[l]; i < in->pred_start[l + 1]; i++) {
		const float *p = exec_output(r, in->pred[i].stage, j);
		for (size_t k = 0; k < r->act; k++)
			a[k] += p[k];
	}
	net_forward(r->m, l, r->W[l], arena_of(r, l, j));
}

static void op_weight(struct exec_run *r, int l, int j)
{
	net_weight(r->m, l, arena_of(r, l, j), r->dW[l]);
}

/* B(l, j): the output gradient is y at a sink (the loss is 1/2 |y|^2 over
 * the sinks' outputs), else the sum of the successors' input gradients. */
static void op_backward(struct exec_run *r, int l, int j)
{
	const struct instance *in = r->in;
	float *arena = arena_of(r, l, j);
	float *dy = net_grad(r->m, l, arena, r->m->st[l].n);
	if (in->succ_start[l] == in->succ_start[l + 1])
		memcpy(dy, exec_output(r, l, j), r->act * sizeof *dy);
	else
		memset(dy, 0, r->act * sizeof *dy);
	for (int i = in->succ_start[l]; i < in->succ_start[l + 1]; i++) {
		const float *s = exec_input_grad(r, in->succ[i].stage, j);
		for (size_t k = 0; k < r->act; k++)
			dy[k] += s[k];
	}
	net_backward(r->m, l, r->W[l], arena);
	if (!in->split_backward)
		op_weight(r, l, j);
}

/* ---- workers ------------------------------------------------------------------ */

/* Wait for op's inputs; false on failure elsewhere or the watchdog. */
static bool wait_inputs(struct exec_run *r, int d, const struct op *o)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)r->watchdog;
	pthread_mutex_lock(&r->mu);
	while (!r->failed && !op_inputs_done(r->in, r->fdone, r->bdone, o->kind, o->stage, o->mb)) {
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
	struct exec_run *r;
	int d;
};

void exec_op(struct exec_run *r, const struct op *o)
{
	if (o->kind == OP_F)
		op_forward(r, o->stage, o->mb);
	else if (o->kind == OP_B)
		op_backward(r, o->stage, o->mb);
	else
		op_weight(r, o->stage, o->mb);
}

void exec_account(struct exec_run *r, int d, const struct op *o)
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
	struct exec_run *r = w->r;
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

/* The most the executor allocates for one run (the reference doubles it). */
#define EXEC_MAX_BYTES (4.0 * 1024 * 1024 * 1024)

void exec_run_release(struct exec_run *r)
{
	size_t n = (size_t)r->L * r->M;
	for (int l = 0; r->W && l < r->L; l++) {
		free(r->W[l]);
		free(r->dW[l]);
	}
	for (size_t i = 0; r->arena && i < n; i++)
		free(r->arena[i]);
	free(r->W);
	free(r->dW);
	free(r->arena);
	free(r->fdone);
	free(r->bdone);
	free(r->live);
	free(r->peak);
	free(r->input);
	free(r->ev);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
}

/* Deterministic input values in [-0.5, 0.5]. */
static void fill_input(float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(((i + 1) * 2654435761u + 7 * 40503u) % 2001) / 2000.0f - 0.5f;
}

int exec_run_init(struct exec_run *r, const struct instance *in, const struct schedule *s,
		  const struct exec_model *m)
{
	memset(r, 0, sizeof *r);
	r->in = in;
	r->s = s;
	r->m = m;
	r->L = in->stages;
	r->M = in->microbatches;
	r->H = m->H;
	r->R = m->R;
	r->act = (size_t)r->R * r->H;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	size_t n = (size_t)r->L * r->M;
	r->W = calloc(r->L, sizeof *r->W);
	r->dW = calloc(r->L, sizeof *r->dW);
	r->arena = calloc(n, sizeof *r->arena);
	r->fdone = calloc(n, 1);
	r->bdone = calloc(n, 1);
	r->live = calloc(in->devices, sizeof *r->live);
	r->peak = calloc(in->devices, sizeof *r->peak);
	r->input = fresh((size_t)r->M * r->act);
	r->ev = calloc((size_t)inst_nops(in), sizeof *r->ev);
	if (!r->W || !r->dW || !r->arena || !r->fdone || !r->bdone || !r->live || !r->peak ||
	    !r->input || !r->ev)
		return -1;
	fill_input(r->input, (size_t)r->M * r->act);
	for (size_t i = 0; i < n; i++)
		if (!(r->arena[i] = fresh(m->st[i / r->M].arena)))
			return -1;
	for (int l = 0; l < r->L; l++) {
		if (!(r->W[l] = fresh(m->st[l].weights)) || !(r->dW[l] = fresh(m->st[l].weights)))
			return -1;
		net_init_weights(m, l, r->W[l]);
	}
	return 0;
}

/* Single-thread reference: each micro-batch forward in topological order,
 * backward in reverse, every W right after its B. */
static void reference(struct exec_run *r)
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

/* max |x - ref| over all weight gradients, relative to max |ref|. */
static double max_rel_err(const struct exec_run *x, const struct exec_run *ref)
{
	double worst = 0, scale = 0;
	for (int l = 0; l < x->L; l++)
		for (size_t k = 0; k < x->m->st[l].weights; k++)
			scale = fabs(ref->dW[l][k]) > scale ? fabs(ref->dW[l][k]) : scale;
	for (int l = 0; l < x->L; l++)
		for (size_t k = 0; k < x->m->st[l].weights; k++) {
			double e = fabs(x->dW[l][k] - ref->dW[l][k]) / (scale > 0 ? scale : 1);
			if (e > worst || isnan(e))
				worst = isnan(e) ? INFINITY : e;
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

static double median(double *t, int n)
{
	if (!n)
		return 0;
	qsort(t, n, sizeof *t, cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static double mean(const double *t, int n)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += t[i];
	return n ? sum / n : 0;
}

/* Median seconds of each stage's F, B, W (cost[k * L + l]) timed alone,
 * n runs each on micro-batches 0, 1, ... in turn (a different micro-batch's
 * buffers each time, as in a run). */
static int calibrate(const struct instance *in, const struct exec_model *m, int runs,
		     double *cost)
{
	struct exec_run r;
	double t[3][64];
	int n = runs < 64 ? runs : 64;
	if (exec_run_init(&r, in, NULL, m)) {
		exec_run_release(&r);
		return -1;
	}
	for (int l = 0; l < r.L; l++) {
		for (int i = 0; i < n; i++) {
			int j = i % r.M;
			double t0 = clock_seconds();
			op_forward(&r, l, j);
			double t1 = clock_seconds();
			op_backward(&r, l, j);
			double t2 = clock_seconds();
			if (in->split_backward)
				op_weight(&r, l, j);
			t[0][i] = t1 - t0;
			t[1][i] = t2 - t1;
			t[2][i] = clock_seconds() - t2;
		}
		for (int k = 0; k < 3; k++)
			cost[k * r.L + l] = median(t[k], n);
	}
	exec_run_release(&r);
	return 0;
}

/* Mean seconds of each (kind, stage)'s ops in the run itself
 * (cost[k * L + l]), and of each kind over all stages (all[k]). The mean,
 * not the median: a makespan is a sum of durations, whose expectation is
 * the sum of the means, and op times in a run are right-skewed (two
 * workers contend for caches and memory): on the 2-stage bench the median
 * predicted 5-8 % low, the mean within a few percent (bench/results). */
static int run_medians(const struct exec_event *ev, int n, int L, double *cost, double all[3])
{
	double *t = malloc((n ? n : 1) * sizeof *t);
	if (!t)
		return -1;
	for (int k = 0; k < 3; k++) {
		int c = 0;
		for (int i = 0; i < n; i++)
			if (ev[i].kind == k)
				t[c++] = ev[i].end - ev[i].start;
		all[k] = mean(t, c);
		for (int l = 0; l < L; l++) {
			c = 0;
			for (int i = 0; i < n; i++)
				if (ev[i].kind == k && ev[i].stage == l)
					t[c++] = ev[i].end - ev[i].start;
			cost[k * L + l] = mean(t, c);
		}
	}
	free(t);
	return 0;
}

static json_t *micro_list(const double *sec, int L, double add_to_each, const double *plus)
{
	json_t *a = json_array();
	for (int l = 0; l < L; l++) {
		double x = sec[l] + add_to_each + (plus ? plus[l] : 0);
		json_int_t us = (json_int_t)llround(x * 1e6);
		json_array_append_new(a, json_integer(us > 1 ? us : 1));
	}
	return a;
}

/* The simulator's makespan (seconds) with per-stage costs cost[k * L + l]
 * in seconds (rounded to whole microseconds, at least 1), no comm: the
 * workers share memory, so a message costs nothing beyond its op. */
static enum status predict(const struct instance *in, const struct schedule *s,
			   const double *cost, double *out, struct error *err)
{
	int L = in->stages;
	json_t *j = instance_canonical_json(in);
	json_t *c = json_object_get(j, "cost");
	json_object_set_new(c, "F", micro_list(cost, L, 0, NULL));
	json_object_set_new(c, "B", micro_list(cost + L, L, 0, in->split_backward ? NULL : cost + 2 * L));
	if (in->split_backward) {
		/* a W may cost under a microsecond; the instance allows 0 */
		json_t *w = json_array();
		for (int l = 0; l < L; l++)
			json_array_append_new(w, json_integer(llround(cost[2 * L + l] * 1e6)));
		json_object_set_new(c, "W", w);
	}
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
			 const struct exec_options *o, struct exec_model **m, struct error *err)
{
	struct sim *sim = sim_new(in);
	struct sim_result sr;
	*m = NULL;
	if (!sim)
		return err_set(err, "exec: out of memory");
	if (sim_run(sim, s, &sr, err)) {
		sim_free(sim);
		return err_prefix(err, "exec: the schedule is refused");
	}
	sim_free(sim);
	/* the executor keeps every activation in its arena and has no
	 * recompute kernel yet: a run would time a schedule other than this */
	if (schedule_has_recompute(s))
		return err_set(err, "exec: the schedule recomputes activations (B marked \"recompute\"), which the executor does not run yet");
	if (schedule_has_offload(s))
		return err_set(err, "exec: the schedule offloads activations (O and L ops), which the executor does not run yet");
	if (o->hidden < 1 || o->hidden > 8192 || o->rows < 1 || o->rows > 65536)
		return err_set(err, "exec: hidden must be 1 to 8192 and rows 1 to 65536");
	if (exec_model_build(in, o->hidden, o->rows, m, err))
		return STATUS_ERROR;
	double bytes = 0;
	for (int l = 0; l < in->stages; l++)
		bytes += 4.0 * ((double)(*m)->st[l].arena * in->microbatches + 2.0 * (*m)->st[l].weights);
	if (bytes > EXEC_MAX_BYTES) {
		exec_model_free(*m);
		*m = NULL;
		return err_set(err, "exec: the run needs %.1f GiB of buffers (%d stages x %d micro-batches, width %d, %d rows), more than the %.0f GiB limit; use a smaller --hidden or --rows",
			       bytes / (1 << 30), in->stages, in->microbatches, o->hidden, o->rows,
			       EXEC_MAX_BYTES / (1 << 30));
	}
	/* one worker is one device: single-threaded kernels, in the run and
	 * in the calibration alike */
	openblas_set_num_threads(1);
	return STATUS_OK;
}

enum status exec_finish(const struct instance *in, const struct schedule *s,
			const struct exec_options *o, struct exec_run *run, struct exec_result *res,
			struct error *err)
{
	struct exec_run ref;
	int L = in->stages;
	if (exec_run_init(&ref, in, s, run->m)) {
		exec_run_release(&ref);
		return err_set(err, "exec: out of memory for the reference");
	}
	reference(&ref);
	res->grad_max_rel_err = max_rel_err(run, &ref);
	exec_run_release(&ref);
	res->stages = L;
	memcpy(res->layers, run->m->layers, sizeof res->layers);
	snprintf(res->graph, sizeof res->graph, "%s", run->m->graph ? run->m->graph : "");
	res->peak_live = calloc(in->devices, sizeof(int));
	res->predicted_peak = calloc(in->devices, sizeof(int));
	res->stage_seconds = calloc(3 * (size_t)L, sizeof(double));
	double *kernel = calloc(3 * (size_t)L, sizeof(double));
	if (!res->peak_live || !res->predicted_peak || !res->stage_seconds || !kernel ||
	    (!o->cuda && calibrate(in, run->m, o->calibration_runs, kernel)) ||
	    run_medians(run->ev, run->nev, L, res->stage_seconds, res->op_seconds)) {
		free(kernel);
		return err_set(err, "exec: out of memory");
	}
	memcpy(res->peak_live, run->peak, in->devices * sizeof(int));
	predicted_peaks(in, s, res->predicted_peak);
	enum status st = predict(in, s, res->stage_seconds, &res->predicted_makespan_s, err);
	if (!st && !o->cuda)   /* CPU kernels alone say nothing about a GPU run */
		st = predict(in, s, kernel, &res->kernel_makespan_s, err);
	free(kernel);
	res->ratio = res->predicted_makespan_s > 0 ?
		res->measured_makespan_s / res->predicted_makespan_s : 0;
	res->events = run->ev;
	res->nevents = run->nev;
	run->ev = NULL;
	return st;
}

/* The run on the GPU (exec_cuda.h): the same model and checks; the
 * reference stays on the CPU. */
static enum status run_cuda(struct exec_run *run, struct exec_result *res, struct error *err)
{
	exec_cuda_fn fn = (exec_cuda_fn)cuda_library_symbol(EXEC_CUDA_SYMBOL, err);
	if (!fn)
		return err_prefix(err, "exec");
	struct exec_cuda_run c = {.in = run->in, .s = run->s, .m = run->m, .input = run->input,
				  .W = (const float *const *)run->W, .watchdog = run->watchdog,
				  .dW = run->dW, .peak = run->peak, .ev = run->ev};
	if (fn(&c))
		return err_set(err, "exec: %s", c.msg);
	run->nev = c.nev;
	res->measured_makespan_s = c.makespan_s;
	return STATUS_OK;
}

/* The run on CPU threads, one worker per device. */
static enum status run_threads(struct exec_run *run, struct exec_result *res, struct error *err)
{
	int D = run->in->devices, started = 0;
	enum status st = STATUS_OK;
	pthread_t *tid = calloc(D, sizeof *tid);
	struct worker_arg *args = calloc(D, sizeof *args);
	run->t0 = clock_seconds();
	for (int d = 0; tid && args && d < D; d++) {
		args[d] = (struct worker_arg){run, d};
		if (pthread_create(&tid[d], NULL, worker, &args[d]))
			break;
		started++;
	}
	for (int d = 0; d < started; d++)
		pthread_join(tid[d], NULL);
	res->measured_makespan_s = clock_seconds() - run->t0;
	if (started < D)
		st = err_set(err, "exec: could not start %d worker threads", D);
	else if (run->failed)
		st = err_set(err, "%s", run->err.msg);
	free(tid);
	free(args);
	return st;
}

enum status exec_run(const struct instance *in, const struct schedule *s,
		     const struct exec_options *o, struct exec_result *res, struct error *err)
{
	struct exec_model *m;
	memset(res, 0, sizeof *res);
	if (exec_prepare(in, s, o, &m, err))
		return STATUS_ERROR;
	struct exec_run run;
	if (exec_run_init(&run, in, s, m))
		return exec_close(&run, m, res, err_set(err, "exec: out of memory for %d stages x %d micro-batches",
							 in->stages, in->microbatches));
	run.watchdog = o->watchdog;
	enum status st = o->cuda ? run_cuda(&run, res, err) : run_threads(&run, res, err);
	if (!st)
		st = exec_finish(in, s, o, &run, res, err);
	return exec_close(&run, m, res, st);
}

enum status exec_close(struct exec_run *r, struct exec_model *m, struct exec_result *res,
		       enum status st)
{
	exec_run_release(r);
	exec_model_free(m);
	if (st)
		exec_result_release(res);
	return st;
}

void exec_result_release(struct exec_result *r)
{
	free(r->peak_live);
	free(r->predicted_peak);
	free(r->stage_seconds);
	free(r->events);
	memset(r, 0, sizeof *r);
}
