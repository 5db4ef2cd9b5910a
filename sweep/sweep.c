/* The sweep runner (sweep.h). */
#include "sweep/sweep.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/mpi.h"
#include "common/stop.h"
#include "sweep/results.h"
#include "sweep/run.h"

#ifdef PIPEOPT_HAVE_MPI
#include <mpi.h>
#endif

enum { TAG_ROW = 1, TAG_DONE = 2 };

struct shared {
	const struct sweep_spec *s;
	const int *pending;          /* task indices this rank runs */
	int npending, next;
	bool stop;                   /* a fatal error: take no more tasks */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	json_t **ready;              /* rows done, for the main thread */
	int nready, cap;
	int workers_left;
};

static void *worker(void *arg)
{
	struct shared *sh = arg;
	for (;;) {
		pthread_mutex_lock(&sh->mu);
		int i = sh->stop || stop_requested() ? sh->npending : sh->next++;
		pthread_mutex_unlock(&sh->mu);
		if (i >= sh->npending)
			break;
		json_t *row = sweep_run_task(sh->s, &sh->s->tasks[sh->pending[i]]);
		/* A task running when the interrupt came was cut short (its
		 * method stops early): not kept, so a rerun runs it again. */
		if (stop_requested()) {
			json_decref(row);
			break;
		}
		pthread_mutex_lock(&sh->mu);
		if (sh->nready == sh->cap) {
			int cap = sh->cap ? 2 * sh->cap : 64;
			json_t **r = realloc(sh->ready, cap * sizeof *r);
			if (r) {
				sh->ready = r;
				sh->cap = cap;
			}
		}
		if (row && sh->nready < sh->cap)
			sh->ready[sh->nready++] = row;
		else {   /* out of memory: stop rather than lose the row silently */
			json_decref(row);
			sh->stop = true;
		}
		pthread_cond_broadcast(&sh->cv);
		pthread_mutex_unlock(&sh->mu);
	}
	pthread_mutex_lock(&sh->mu);
	sh->workers_left--;
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
	return NULL;
}

static void fmt_time(char *buf, size_t n, double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%02ld:%02ld", t / 60, t % 60);
}

static void progress(const struct sweep_stats *st, double t0, bool final)
{
	char el[32], eta[32] = "--:--";
	double elapsed = clock_seconds() - t0;
	int left = st->total - st->done_before - st->ran;
	fmt_time(el, sizeof el, elapsed);
	if (st->ran)
		fmt_time(eta, sizeof eta, elapsed / st->ran * left);
	int width = 30, filled = st->total ? width * (st->done_before + st->ran) / st->total : width;
	char bar[64];
	for (int i = 0; i < width; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[width] = 0;
	fprintf(stderr, "\r[%s] %d/%d done, %d failed, %s elapsed, ETA %s  %s", bar,
		st->done_before + st->ran, st->total, st->failed, el, eta, final ? "\n" : "");
	fflush(stderr);
}

/* Store finished rows durably and count them (rank 0). */
static enum status take_rows(struct results *res, json_t *const *rows, int n,
			     struct sweep_stats *st, struct error *err)
{
	if (!n)
		return STATUS_OK;
	enum status s = results_append_batch(res, rows, n, err);
	for (int i = 0; !s && i < n; i++) {
		st->ran++;
		st->failed += !strcmp(json_string_value(json_object_get(rows[i], "status")) ?: "", "error");
		st->task_seconds += json_number_value(json_object_get(rows[i], "seconds"));
	}
	return s;
}

/* Rows done on this rank's workers, taken from the queue; waits up to
 * `wait` seconds for one when there is none. */
static int drain(struct shared *sh, json_t ***rows, double wait, bool *workers_done)
{
	pthread_mutex_lock(&sh->mu);
	if (!sh->nready && sh->workers_left && wait > 0) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		long ns = until.tv_nsec + (long)(wait * 1e9);
		until.tv_sec += ns / 1000000000;
		until.tv_nsec = ns % 1000000000;
		pthread_cond_timedwait(&sh->cv, &sh->mu, &until);
	}
	int n = sh->nready;
	*rows = NULL;
	if (n) {
		*rows = malloc(n * sizeof **rows);
		if (*rows)
			memcpy(*rows, sh->ready, n * sizeof **rows);
		else
			n = 0;
		sh->nready -= n;
	}
	*workers_done = !sh->workers_left && !sh->nready;
	pthread_mutex_unlock(&sh->mu);
	return n;
}

/* The pending tasks: those whose key is not among the rows. */
static int *pending_tasks(const struct sweep_spec *s, const json_t *rows, int *n)
{
	json_t *seen = json_object();
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		const char *k = json_string_value(json_object_get(row, "key"));
		if (k)
			json_object_set_new(seen, k, json_true());
	}
	int *p = malloc((s->ntasks ? s->ntasks : 1) * sizeof *p);
	*n = 0;
	for (int t = 0; p && t < s->ntasks; t++)
		if (!json_object_get(seen, s->tasks[t].key))
			p[(*n)++] = t;
	json_decref(seen);
	return p;
}

#ifdef PIPEOPT_HAVE_MPI
/* Rank 0: take every message waiting (rows, done notices); the rows go
 * to the file in one batch. */
static enum status receive_rows(struct results *res, struct sweep_stats *st, int *done_ranks,
				struct error *err)
{
	json_t **rows = NULL;
	int n = 0, cap = 0;
	enum status rc = STATUS_OK;
	for (;;) {
		int flag = 0, len;
		MPI_Status ms;
		MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &ms);
		if (!flag)
			break;
		MPI_Get_count(&ms, MPI_CHAR, &len);
		char *text = malloc(len + 1);
		if (!text) {
			rc = err_set(err, "sweep: out of memory receiving a row");
			break;
		}
		MPI_Recv(text, len, MPI_CHAR, ms.MPI_SOURCE, ms.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		text[len] = 0;
		if (ms.MPI_TAG == TAG_DONE) {
			(*done_ranks)++;
			free(text);
			continue;
		}
		json_t *row = json_loads(text, 0, NULL);
		free(text);
		if (!row) {
			rc = err_set(err, "sweep: rank %d sent a row that does not parse", ms.MPI_SOURCE);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			json_t **r = realloc(rows, cap * sizeof *r);
			if (!r) {
				json_decref(row);
				rc = err_set(err, "sweep: out of memory receiving a row");
				break;
			}
			rows = r;
		}
		rows[n++] = row;
	}
	if (!rc)
		rc = take_rows(res, rows, n, st, err);
	for (int i = 0; i < n; i++)
		json_decref(rows[i]);
	free(rows);
	return rc;
}
#endif

/* Start the workers on this rank's share, and run the main loop: rows to
 * the file (rank 0) or to rank 0. */
static enum status run_share(const struct sweep_spec *s, const struct sweep_options *o,
			     struct results *res, int *mine, int nmine, struct sweep_stats *st,
			     double t0, struct error *err)
{
	struct shared sh = {.s = s, .pending = mine, .npending = nmine};
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv, NULL);
	int jobs = o->jobs < 1 ? 1 : o->jobs > nmine ? (nmine ? nmine : 1) : o->jobs;
	pthread_t *tid = calloc(jobs, sizeof *tid);
	enum status rc = STATUS_OK;
	int started = 0, done_ranks = 0;
	for (int i = 0; tid && i < jobs; i++) {
		pthread_mutex_lock(&sh.mu);
		sh.workers_left++;
		pthread_mutex_unlock(&sh.mu);
		if (pthread_create(&tid[i], NULL, worker, &sh)) {
			pthread_mutex_lock(&sh.mu);
			sh.workers_left--;
			pthread_mutex_unlock(&sh.mu);
			break;
		}
		started++;
	}
	if (!started)
		rc = err_set(err, "sweep: could not start worker threads");
	double last = 0;
	for (bool workers_done = !started; ;) {
		json_t **rows;
		int n = drain(&sh, &rows, o->mpi ? 0.002 : 0.1, &workers_done);
		if (!rc && st->rank == 0)
			rc = take_rows(res, rows, n, st, err);
		for (int i = 0; i < n; i++) {
			if (!rc && st->rank != 0) {
#ifdef PIPEOPT_HAVE_MPI
				char *text = json_dumps(rows[i], JSON_COMPACT);
				if (text)
					MPI_Send(text, (int)strlen(text), MPI_CHAR, 0, TAG_ROW, MPI_COMM_WORLD);
				else
					rc = err_set(err, "sweep: out of memory");
				free(text);
				st->ran++;
#endif
			}
			json_decref(rows[i]);
		}
		free(rows);
#ifdef PIPEOPT_HAVE_MPI
		if (o->mpi && st->rank == 0 && !rc)
			rc = receive_rows(res, st, &done_ranks, err);
#endif
		if (rc) {
			pthread_mutex_lock(&sh.mu);
			sh.stop = true;
			pthread_mutex_unlock(&sh.mu);
		}
		if (o->progress && st->rank == 0 && clock_seconds() - last > 0.2) {
			progress(st, t0, false);
			last = clock_seconds();
		}
		bool others = !o->mpi || st->rank != 0 || done_ranks == st->ranks - 1;
		if (workers_done && (others || rc))
			break;
		if (workers_done && o->mpi)
			usleep(1000);
	}
#ifdef PIPEOPT_HAVE_MPI
	if (o->mpi && st->rank != 0)
		MPI_Send("", 0, MPI_CHAR, 0, TAG_DONE, MPI_COMM_WORLD);
#endif
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < sh.nready; i++)
		json_decref(sh.ready[i]);
	free(sh.ready);
	free(tid);
	pthread_mutex_destroy(&sh.mu);
	pthread_cond_destroy(&sh.cv);
	if (o->progress && st->rank == 0)
		progress(st, t0, true);
	return rc;
}

enum status sweep_run(const struct sweep_spec *s, const struct sweep_options *o,
		      struct sweep_stats *st, struct error *err)
{
	struct results res = {.fd = -1};
	double t0 = clock_seconds();
	memset(st, 0, sizeof *st);
	st->total = s->ntasks;
	st->ranks = 1;
	int npending = 0, *pending = NULL, bad = 0;
	enum status rc = STATUS_OK;
	if (o->mpi) {
		st->rank = mpi_rank();
		st->ranks = mpi_size();
	}
	if (st->rank == 0) {
		if (results_open(o->output, &res, err))
			bad = 1;
		else if (!(pending = pending_tasks(s, res.rows, &npending)))
			bad = 1, err_set(err, "sweep: out of memory");
		st->done_before = s->ntasks - npending;
		st->torn = res.torn;
		st->torn_bytes = res.torn_bytes;
	}
#ifdef PIPEOPT_HAVE_MPI
	if (o->mpi) {   /* every rank learns the pending tasks, or that rank 0 failed */
		int head[2] = {bad, npending};
		MPI_Bcast(head, 2, MPI_INT, 0, MPI_COMM_WORLD);
		if (head[0]) {
			results_close(&res);
			free(pending);
			return st->rank == 0 ? STATUS_ERROR : err_set(err, "sweep: rank 0 failed");
		}
		npending = head[1];
		st->done_before = s->ntasks - npending;
		if (st->rank != 0 && !(pending = malloc((npending ? npending : 1) * sizeof *pending)))
			MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_Bcast(pending, npending, MPI_INT, 0, MPI_COMM_WORLD);
	}
#endif
	if (bad) {
		results_close(&res);
		free(pending);
		return STATUS_ERROR;
	}
	if (o->limit > 0 && npending > o->limit)
		npending = o->limit;
	/* this rank's share: every ranks-th pending task */
	int nmine = 0;
	int *mine = malloc((npending ? npending : 1) * sizeof *mine);
	for (int i = st->rank; mine && i < npending; i += st->ranks)
		mine[nmine++] = pending[i];
	if (!mine)
		rc = err_set(err, "sweep: out of memory");
	else
		rc = run_share(s, o, &res, mine, nmine, st, t0, err);
	free(mine);
	free(pending);
	results_close(&res);
	st->seconds = clock_seconds() - t0;
#ifdef PIPEOPT_HAVE_MPI
	if (o->mpi) {
		int local = rc != STATUS_OK, any = 0;
		MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		if (any && !rc)
			rc = err_set(err, "sweep: another rank failed");
	}
#endif
	return rc;
}
