/*
 * The GLPK backend (GLPK 5.0, glp_intopt).
 *
 * GLPK calls abort() on misuse. The model is checked first (milp_check), and
 * an error hook longjmps out of anything that still slips through (a
 * duplicate matrix entry in a hand-built model, say). After such a jump GLPK's
 * state is undefined and the only safe step is glp_free_env(), which frees
 * every GLPK object of the calling thread. So each solve runs in a worker
 * thread of its own: its environment (thread-local in Debian's build, see
 * glp_config("TLS")) is freed when the worker ends, on every path, and no
 * GLPK state outlives the solve or touches the caller's thread. A build
 * without thread-local storage shares one environment between threads, so
 * there every use of GLPK is serialised by a mutex.
 *
 * A MIP start needs the presolver off (with it on, the callback sees the
 * presolved problem): glp_simplex solves the root LP first, then glp_intopt
 * offers the start once through glp_ios_heur_sol, which checks integrality
 * but not feasibility, so the start is checked here first. The best bound
 * exists only inside the callback, which records it.
 *
 * Infeasible is reported only when GLPK proved it: glp_intopt returned 0
 * with no integer point (a finished search), GLP_ENOPFS (presolve or the
 * root LP proved the relaxation infeasible), or the root LP of a solve with
 * a start is GLP_NOFEAS (then the start, checked feasible, refutes it, and
 * the solve starts over with the presolver). A stop by the time limit is
 * time_limit: GLP_ETMLIM, and also a failure (GLP_EFAIL) once the clock is
 * past the limit, which older GLPKs return when the limit strikes in the
 * root LP (glpk_outcome).
 *
 * GLPK is single-threaded: options.threads is ignored. The objective offset
 * is GLPK's constant term (column 0), so objective values, node bounds and
 * the relative gap all include it. The progress callback is called from the
 * worker thread while the caller waits for it (on each new incumbent and at
 * most once a second otherwise), and once more from the caller at the end.
 */
#include "solvers/backend.h"

#include "common/stop.h"
#include "common/clock.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GLPK_VERSION_STRING
#define GLPK_VERSION_STRING "unknown"
#endif

#define PROGRESS_EVERY 1.0   /* seconds between progress calls from the search */

/* What a step returns before there is an outcome. */
enum { STEP_INTOPT = -1, STEP_PRESOLVE = -2, STEP_BUG = -3 };

struct glpk_job {
	const struct milp *m;
	const struct solver_options *o;
	struct solver_result *r;
	struct error *err;
	enum status status;
	double t0;                /* seconds, CLOCK_MONOTONIC, at the start */
	jmp_buf on_error;
	char said[256];           /* GLPK's last message, for error reports */
	/* scratch, 1-based as GLPK wants it; the caller frees it */
	int *ia, *ja;             /* [nnz + 1] */
	double *ar;               /* [nnz + 1] */
	double *start;            /* [ncols + 1] the rounded MIP start, or NULL */
	/* what the branch-and-bound callback saw */
	bool offered;             /* the start went to glp_ios_heur_sol */
	bool gap_stop;            /* it stopped the search on abs_gap */
	double bound;             /* best node bound, -INFINITY until known */
	long nodes;
	double progress_at;       /* seconds since t0 of the last progress call */
};


/* ---- running GLPK in a worker thread ------------------------------------ */

static pthread_mutex_t glpk_lock = PTHREAD_MUTEX_INITIALIZER;

/* Run fn(arg) in a new thread whose GLPK environment dies with it. */
static bool glpk_in_thread(void *(*fn)(void *), void *arg)
{
	bool shared_env = glp_config("TLS") == NULL;
	pthread_t t;
	if (shared_env)
		pthread_mutex_lock(&glpk_lock);
	bool started = pthread_create(&t, NULL, fn, arg) == 0;
	if (started)
		pthread_join(t, NULL);
	if (shared_env)
		pthread_mutex_unlock(&glpk_lock);
	return started;
}

/* Everything GLPK prints comes here: kept for error messages, shown on
 * stderr when verbose, never on stdout. */
static int glpk_on_print(void *info, const char *s)
{
	struct glpk_job *j = info;
	if (j->o->verbose)
		fputs(s, stderr);
	if (strncmp(s, "Error detected in file", 22) != 0) {
		snprintf(j->said, sizeof j->said, "%s", s);
		j->said[strcspn(j->said, "\n")] = '\0';
	}
	return 1;
}

static void glpk_on_error(void *info)
{
	struct glpk_job *j = info;
	longjmp(j->on_error, 1);
}

/* ---- loading the model --------------------------------------------------- */

static int glpk_bound_type(double lb, double ub)
{
	bool lo = lb > -MILP_INF, hi = ub < MILP_INF;
	if (lo && hi)
		return lb == ub ? GLP_FX : GLP_DB;
	return lo ? GLP_LO : hi ? GLP_UP : GLP_FR;
}

/* GLPK wants integer bounds on integer columns; an empty domain after
 * rounding makes the model infeasible. Returns false then. */
static bool glpk_int_bounds(const struct milp_col *c, double *lb, double *ub)
{
	*lb = c->lb;
	*ub = c->ub;
	if (!c->integer)
		return true;
	if (*lb > -MILP_INF)
		*lb = ceil(*lb - 1e-9);
	if (*ub < MILP_INF)
		*ub = floor(*ub + 1e-9);
	return *lb <= *ub;
}

/* Columns, rows and matrix into a new problem. Returns NULL (and no
 * problem) when an integer column has no integer in its bounds. */
static glp_prob *glpk_load(struct glpk_job *j)
{
	const struct milp *m = j->m;
	glp_prob *lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	glp_set_obj_coef(lp, 0, m->obj_offset);
	glp_add_cols(lp, m->ncols);
	for (int c = 0; c < m->ncols; c++) {
		double lb, ub;
		if (!glpk_int_bounds(&m->cols[c], &lb, &ub)) {
			glp_delete_prob(lp);
			return NULL;
		}
		glp_set_col_bnds(lp, c + 1, glpk_bound_type(lb, ub), lb, ub);
		glp_set_obj_coef(lp, c + 1, m->cols[c].obj);
		if (m->cols[c].integer)
			glp_set_col_kind(lp, c + 1, GLP_IV);
	}
	if (m->nrows > 0)
		glp_add_rows(lp, m->nrows);
	long ne = 0;
	for (int i = 0; i < m->nrows; i++) {
		const struct milp_row *r = &m->rows[i];
		glp_set_row_bnds(lp, i + 1, glpk_bound_type(r->lb, r->ub), r->lb, r->ub);
		for (int k = r->start; k < r->start + r->len; k++) {
			ne++;
			j->ia[ne] = i + 1;
			j->ja[ne] = m->nz_col[k] + 1;
			j->ar[ne] = m->nz_val[k];
		}
	}
	glp_load_matrix(lp, (int)ne, j->ia, j->ja, j->ar);
	return lp;
}

/* ---- the branch-and-bound callback ---------------------------------------- */

static void glpk_progress(struct glpk_job *j, glp_prob *p, bool force)
{
	double t = clock_seconds() - j->t0;
	if (!j->o->progress || (!force && t - j->progress_at < PROGRESS_EVERY))
		return;
	j->progress_at = t;
	double inc = glp_mip_status(p) == GLP_FEAS ? glp_mip_obj_val(p) : NAN;
	j->o->progress(j->o->progress_ctx, inc, j->bound);
}

static void glpk_callback(glp_tree *T, void *info)
{
	struct glpk_job *j = info;
	glp_prob *p = glp_ios_get_prob(T);
	int best = glp_ios_best_node(T), total;
	if (best)
		j->bound = glp_ios_node_bound(T, best);
	glp_ios_tree_size(T, NULL, NULL, &total);
	if (total > j->nodes)
		j->nodes = total;
	int why = glp_ios_reason(T);
	if (why == GLP_IHEUR && j->start && !j->offered) {
		j->offered = true;
		glp_ios_heur_sol(T, j->start);   /* 1 = not better: ignored */
	}
	bool have = glp_mip_status(p) == GLP_FEAS;
	if (have && best && j->o->abs_gap > 0 &&
	    glp_mip_obj_val(p) - j->bound <= j->o->abs_gap) {
		j->gap_stop = true;
		glp_ios_terminate(T);
	}
	/* an interrupt (passed on by isolate.c): stop with the incumbent */
	if (stop_requested())
		glp_ios_terminate(T);
	glpk_progress(j, p, why == GLP_IBINGO);
}

/* ---- solving --------------------------------------------------------------- */

/* Milliseconds left of the time limit, for tm_lim (at least 1). */
static int glpk_ms_left(const struct glpk_job *j)
{
	if (j->o->time_limit <= 0)
		return INT_MAX;
	double ms = 1000.0 * (j->o->time_limit - (clock_seconds() - j->t0));
	return ms < 1 ? 1 : ms > INT_MAX / 2 ? INT_MAX / 2 : (int)ceil(ms);
}

/* With a start: the root LP by glp_simplex, presolver off. Returns
 * STEP_INTOPT to go on, STEP_PRESOLVE to start over without the start, or
 * the outcome it settled. */
static int glpk_root_lp(struct glpk_job *j, glp_prob *lp)
{
	glp_smcp s;
	glp_init_smcp(&s);
	s.msg_lev = j->o->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
	s.tm_lim = glpk_ms_left(j);
	int rc = glp_simplex(lp, &s);
	if (rc == GLP_ETMLIM)
		return OUTCOME_TIME_LIMIT;
	if (rc != 0)
		return STEP_PRESOLVE;   /* numerical trouble */
	switch (glp_get_status(lp)) {
	case GLP_OPT: return STEP_INTOPT;
	case GLP_NOFEAS: return STEP_PRESOLVE;   /* the feasible start refutes it */
	case GLP_UNBND: return OUTCOME_UNBOUNDED;
	default: return STEP_PRESOLVE;
	}
}

/* Whether the wall clock is past the time limit. */
static bool glpk_out_of_time(const struct glpk_job *j)
{
	return j->o->time_limit > 0 && clock_seconds() - j->t0 >= j->o->time_limit;
}

/* The outcome of glp_intopt's return code (or STEP_BUG); *exact when an
 * optimum is proven without a gap tolerance. */
static int glpk_outcome(struct glpk_job *j, glp_prob *lp, int rc, bool *exact)
{
	int st = glp_mip_status(lp);
	bool have = st == GLP_OPT || st == GLP_FEAS;
	*exact = false;
	if (rc == GLP_EFAIL && glpk_out_of_time(j))
		return OUTCOME_TIME_LIMIT;
	switch (rc) {
	case 0:
		*exact = st == GLP_OPT;
		if (st == GLP_OPT)
			return OUTCOME_OPTIMAL;
		return st == GLP_NOFEAS ? OUTCOME_INFEASIBLE :
		       have ? OUTCOME_FEASIBLE : OUTCOME_NO_SOLUTION;
	case GLP_EMIPGAP: return OUTCOME_OPTIMAL;
	case GLP_ETMLIM: return OUTCOME_TIME_LIMIT;
	case GLP_ENOPFS: return OUTCOME_INFEASIBLE;
	case GLP_ENODFS: return OUTCOME_UNBOUNDED;
	case GLP_ESTOP:
		if (j->gap_stop && have)
			return OUTCOME_OPTIMAL;
		return have ? OUTCOME_FEASIBLE : OUTCOME_NO_SOLUTION;
	case GLP_EBOUND: case GLP_EROOT:
		return STEP_BUG;   /* in this file, not in the model */
	default:         /* GLP_EFAIL: the LP solver gave up in the search */
		return have ? OUTCOME_FEASIBLE : OUTCOME_NO_SOLUTION;
	}
}

static enum status glpk_fill(struct glpk_job *j, glp_prob *lp, int outcome,
			     bool exact)
{
	struct solver_result *r = j->r;
	int st = glp_mip_status(lp);
	r->outcome = outcome;
	r->nodes = j->nodes;
	r->bound = outcome == OUTCOME_INFEASIBLE ? INFINITY :
		   outcome == OUTCOME_UNBOUNDED ? -INFINITY : j->bound;
	r->has_solution = (st == GLP_OPT || st == GLP_FEAS) &&
			  outcome != OUTCOME_INFEASIBLE && outcome != OUTCOME_UNBOUNDED;
	if (!r->has_solution)
		return STATUS_OK;
	r->objective = glp_mip_obj_val(lp);
	if (exact || r->bound > r->objective)
		r->bound = r->objective;
	r->x = malloc(j->m->ncols * sizeof *r->x);
	if (!r->x)
		return err_set(j->err, "glpk: out of memory for the solution");
	for (int c = 0; c < j->m->ncols; c++)
		r->x[c] = glp_mip_col_val(lp, c + 1);
	return STATUS_OK;
}

static int glpk_intopt(struct glpk_job *j, glp_prob *lp, bool presolve)
{
	glp_iocp p;
	glp_init_iocp(&p);
	/* On a feasibility question the search has nothing to prune by the
	 * objective, and GLPK's branching wanders; the feasibility pump is
	 * the heuristic made for it. It only adds a heuristic: the answer, a
	 * point or a proof of infeasibility, is the same. Measured (p memory,
	 * comm 1, 120 s): p8 m16 split's target 83 solved, 83 proven in
	 * 40.3 s, open at 120 s without; p8 m12 split 71.6 -> 21.4 s. Its
	 * luck depends on the column order: on p4 m12 split's target 55 it
	 * fails here, while glpsol --fpump on the exported LP file (another
	 * order) finds the point in 2 s. */
	p.fp_heur = milp_feasibility_only(j->m) ? GLP_ON : GLP_OFF;
	p.msg_lev = j->o->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
	p.presolve = presolve ? GLP_ON : GLP_OFF;
	p.mip_gap = j->o->rel_gap;
	p.tm_lim = glpk_ms_left(j);
	p.cb_func = glpk_callback;
	p.cb_info = j;
	return glp_intopt(lp, &p);
}

/* Load and solve; runs in the worker, may longjmp to glpk_worker. */
static enum status glpk_run(struct glpk_job *j)
{
	glp_prob *lp = glpk_load(j);
	if (!lp) {
		j->r->outcome = OUTCOME_INFEASIBLE;
		j->r->bound = INFINITY;
		return STATUS_OK;
	}
	int outcome = j->start ? glpk_root_lp(j, lp) : STEP_PRESOLVE, rc = 0;
	bool exact = false;
	if (outcome == STEP_PRESOLVE)
		j->offered = true;   /* the presolved problem cannot take the start */
	if (outcome == STEP_INTOPT || outcome == STEP_PRESOLVE) {
		rc = glpk_intopt(j, lp, outcome == STEP_PRESOLVE);
		outcome = glpk_outcome(j, lp, rc, &exact);
	}
	enum status st = outcome == STEP_BUG ?
		err_set(j->err, "glpk: glp_intopt failed with code %d", rc) :
		glpk_fill(j, lp, outcome, exact);
	glp_delete_prob(lp);
	return st;
}

static void *glpk_worker(void *arg)
{
	struct glpk_job *j = arg;
	glp_error_hook(glpk_on_error, j);
	glp_term_hook(glpk_on_print, j);
	if (!setjmp(j->on_error))
		j->status = glpk_run(j);
	else
		j->status = err_set(j->err, "glpk: the library rejected the model: %s",
				    j->said[0] ? j->said : "(no message)");
	glp_free_env();   /* this thread's GLPK objects, whatever happened */
	return NULL;
}

/* ---- the backend -------------------------------------------------------------- */

/* The start, 1-based with integers rounded, if it is feasible; else NULL
 * (glp_ios_heur_sol would take an infeasible point as the incumbent). */
static double *glpk_start(const struct milp *m, const double *x)
{
	bool any_int = false;
	for (int c = 0; c < m->ncols; c++)
		any_int |= m->cols[c].integer;
	if (!x || !any_int || !milp_feasible(m, x, 1e-6, NULL))
		return NULL;
	double *s = malloc((m->ncols + 1) * sizeof *s);
	if (!s)
		return NULL;
	s[0] = 0;
	for (int c = 0; c < m->ncols; c++)
		s[c + 1] = m->cols[c].integer ? round(x[c]) : x[c];
	return s;
}

static void glpk_job_release(struct glpk_job *j)
{
	free(j->ia);
	free(j->ja);
	free(j->ar);
	free(j->start);
}

static enum status glpk_solve(const struct milp *m, const struct solver_options *o,
			      struct solver_result *r, struct error *err)
{
	static const struct solver_options defaults = {.threads = 1};
	struct glpk_job j = {.m = m, .o = o ? o : &defaults, .r = r, .err = err,
			     .t0 = clock_seconds(), .bound = -INFINITY, .progress_at = -INFINITY};
	*r = (struct solver_result){.outcome = OUTCOME_NO_SOLUTION,
				    .objective = NAN, .bound = -INFINITY};
	if (milp_check(m, err))
		return err_prefix(err, "glpk");
	j.ia = malloc((m->nnz + 1) * sizeof *j.ia);
	j.ja = malloc((m->nnz + 1) * sizeof *j.ja);
	j.ar = malloc((m->nnz + 1) * sizeof *j.ar);
	j.start = glpk_start(m, j.o->start);
	if (!j.ia || !j.ja || !j.ar)
		j.status = err_set(err, "glpk: out of memory loading %d columns", m->ncols);
	else if (!glpk_in_thread(glpk_worker, &j))
		j.status = err_set(err, "glpk: cannot start a worker thread");
	glpk_job_release(&j);
	r->seconds = clock_seconds() - j.t0;
	if (j.status) {
		solver_result_release(r);
		r->has_solution = false;
		return STATUS_ERROR;
	}
	if (j.o->progress)
		j.o->progress(j.o->progress_ctx, r->has_solution ? r->objective : NAN,
			      r->bound);
	return STATUS_OK;
}

static char glpk_version_text[32];
static pthread_once_t glpk_version_once = PTHREAD_ONCE_INIT;

static void *glpk_version_worker(void *arg)
{
	snprintf(glpk_version_text, sizeof glpk_version_text, "%s", glp_version());
	glp_free_env();
	return NULL;
}

static void glpk_version_init(void)
{
	if (!glpk_in_thread(glpk_version_worker, NULL))
		snprintf(glpk_version_text, sizeof glpk_version_text, "%s",
			 GLPK_VERSION_STRING);
}

static const char *glpk_version(void)
{
	pthread_once(&glpk_version_once, glpk_version_init);
	return glpk_version_text;
}

const struct solver_backend solver_glpk = {
	.name = "glpk",
	.version = glpk_version,
	.solve = glpk_solve,
	/* fused, p memory, comm 1, 120 s, unit costs: the targets alone
	 * prove p8 m12 (86) in 22.2 s and p8 m16 (99) in 26.6 s, the
	 * disjunctive model first in 56.9 and 62.1 s (target models of
	 * 2,880 and 3,872 binaries at the heuristic's UB - 1). With F = 5,
	 * B = 10 the disjunctive model proves p8 m12 (317) in 12.2 s at the
	 * root, the targets alone in 113.8 s (7,744 binaries) */
	.fused_targets_max = 4000,
	/* p8 m16 fused, F = 5, B = 10, p memory, comm 1, 120 s: the target
	 * at 383 (the optimum) finds its schedule after 54,575 nodes, 16 s,
	 * against a cap of 18 s at 0.15: certified in 29 s in 5 runs of 7,
	 * 385/383 at 120 s in the other 2 (the model with the start after the
	 * cap finds nothing; one of the 7 with GLPK's cuts on). At 0.25 (30 s):
	 * certified in 29-32 s in 3 runs of 3; the other classes that GLPK
	 * certifies through targets take the same time (p4 m16 split, comm 2,
	 * three cost sets: 11.8-15.6 s), and the open p8 m16 ones end with the
	 * same gaps (172/170, 237/235). */
	.target_share = 0.25,
};
