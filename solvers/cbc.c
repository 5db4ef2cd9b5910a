/*
 * The CBC backend (CBC 2.10, through its C interface).
 *
 * Cbc_solve runs CbcMain1, which keeps process-wide state: two threads
 * solving at once corrupt each other's results (coin-or/Cbc#332, #223). So
 * every use of the library, from Cbc_newModel to Cbc_deleteModel, holds one
 * process-wide mutex; CBC's own "threads" parameter still parallelises a
 * single solve. Time spent waiting for the mutex counts against the time
 * limit, which is wall clock ("timeMode elapsed"; CBC's default is CPU time).
 *
 * With a start and a time limit CBC's preprocessor is off, and a feasible
 * start is never reported infeasible: CBC 2.10.8 crashes or misreports
 * otherwise (see cbc_configure and cbc_fill).
 *
 * Infeasible is reported only when CBC proved it: a search that a limit
 * stopped (CBC's flags, or the wall clock past the time limit) is
 * time_limit, with or without a solution, even where CBC also says
 * "infeasible" for "no solution found" (cbc_outcome).
 *
 * A model without integer columns takes CBC's LP path (Clp's initialSolve,
 * no time limit, no nodes), where Cbc_isProvenInfeasible means primal *or*
 * dual infeasible; the primal case is told apart with
 * Cbc_isInitialSolveProvenPrimalInfeasible.
 *
 * CBC has no objective constant in its C interface, so obj_offset is added
 * to the objective and bound here. Integer columns of the solution are
 * rounded to the nearest integer, as GLPK's are. The log goes to stderr when
 * verbose (stdout is pointed at stderr for the solve, under the mutex) and
 * nowhere otherwise. Progress is reported once, at the end: the C interface
 * only reports progress through log messages, which are off when silent.
 */
#include "solvers/backend.h"

#include "common/clock.h"

#include <coin/Cbc_C_Interface.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef CBC_VERSION_STRING
#define CBC_VERSION_STRING "unknown"
#endif

/* The model in CBC's layout: compressed sparse columns, infinity DBL_MAX. */
struct cbc_data {
	CoinBigIndex *start;      /* [ncols + 1] */
	int *index;               /* [nnz + 1] row of each nonzero */
	double *value;            /* [nnz + 1] */
	double *clb, *cub, *obj;  /* [ncols] */
	double *rlb, *rub;        /* [nrows + 1] */
	int *ints;                /* [ncols] the integer columns */
	int nints;
};

static pthread_mutex_t cbc_lock = PTHREAD_MUTEX_INITIALIZER;


static double cbc_inf(double v)
{
	return v >= MILP_INF ? DBL_MAX : v <= -MILP_INF ? -DBL_MAX : v;
}

static void cbc_data_release(struct cbc_data *d)
{
	free(d->start);
	free(d->index);
	free(d->value);
	free(d->clb);
	free(d->cub);
	free(d->obj);
	free(d->rlb);
	free(d->rub);
	free(d->ints);
}

static bool cbc_data_alloc(struct cbc_data *d, const struct milp *m)
{
	d->start = calloc(m->ncols + 1, sizeof *d->start);
	d->index = malloc((m->nnz + 1) * sizeof *d->index);
	d->value = malloc((m->nnz + 1) * sizeof *d->value);
	d->clb = malloc(m->ncols * sizeof *d->clb);
	d->cub = malloc(m->ncols * sizeof *d->cub);
	d->obj = malloc(m->ncols * sizeof *d->obj);
	d->rlb = malloc((m->nrows + 1) * sizeof *d->rlb);
	d->rub = malloc((m->nrows + 1) * sizeof *d->rub);
	d->ints = malloc(m->ncols * sizeof *d->ints);
	return d->start && d->index && d->value && d->clb && d->cub && d->obj &&
	       d->rlb && d->rub && d->ints;
}

/* Rows to columns. A column twice in one row (only a hand-built model can
 * have that; milp_add_row merges them) is an error: what CBC would make of
 * it is undocumented. */
static enum status cbc_transpose(struct cbc_data *d, const struct milp *m,
				 struct error *err)
{
	int *seen = malloc(m->ncols * sizeof *seen);
	if (!seen)
		return err_set(err, "cbc: out of memory loading %d columns", m->ncols);
	for (int c = 0; c < m->ncols; c++)
		seen[c] = -1;
	for (long e = 0; e < m->nnz; e++)
		d->start[m->nz_col[e] + 1]++;
	for (int c = 0; c < m->ncols; c++)
		d->start[c + 1] += d->start[c];
	for (int i = 0; i < m->nrows; i++) {
		const struct milp_row *r = &m->rows[i];
		for (int k = r->start; k < r->start + r->len; k++) {
			int c = m->nz_col[k];
			if (seen[c] == i) {
				free(seen);
				return err_set(err, "cbc: row '%s' has column '%s' twice",
					       r->name, m->cols[c].name);
			}
			seen[c] = i;
			d->index[d->start[c]] = i;
			d->value[d->start[c]++] = m->nz_val[k];
		}
	}
	free(seen);
	for (int c = m->ncols; c > 0; c--)
		d->start[c] = d->start[c - 1];
	d->start[0] = 0;
	return STATUS_OK;
}

static enum status cbc_data_init(struct cbc_data *d, const struct milp *m,
				 struct error *err)
{
	*d = (struct cbc_data){0};
	if (!cbc_data_alloc(d, m))
		return err_set(err, "cbc: out of memory loading %d columns", m->ncols);
	for (int c = 0; c < m->ncols; c++) {
		d->clb[c] = cbc_inf(m->cols[c].lb);
		d->cub[c] = cbc_inf(m->cols[c].ub);
		d->obj[c] = m->cols[c].obj;
		if (m->cols[c].integer)
			d->ints[d->nints++] = c;
	}
	for (int i = 0; i < m->nrows; i++) {
		d->rlb[i] = cbc_inf(m->rows[i].lb);
		d->rub[i] = cbc_inf(m->rows[i].ub);
	}
	return cbc_transpose(d, m, err);
}

/*
 * Options into the model. The start gives the integer columns only: CBC
 * fixes them and solves an LP for the rest (Cbc_setMIPStartI). With a start
 * and a time limit the preprocessor is off: when the limit strikes while
 * CBC preprocesses or takes in the start, and the start meets the LP bound,
 * CBC 2.10.8 segfaults in CglPreProcess::postProcess (datasets' zb-1p
 * example, limits 0.03 to 0.15 s) or calls the model infeasible (a 30x30
 * assignment whose optimum is the start, 0.008 to 0.011 s). Of the options
 * tried, only turning preprocessing off avoids both.
 */
static void cbc_configure(Cbc_Model *cm, const struct cbc_data *d,
			  const struct solver_options *o, double t0, bool feasibility)
{
	Cbc_setLogLevel(cm, o->verbose ? 1 : 0);
	/* A feasibility question (the time-indexed targets: every objective
	 * column fixed): CBC's primal heuristics look for a point the search
	 * finds anyway when there is one, and spend most of the time when
	 * there is none, the usual answer near the bound. Measured (p
	 * memory, comm 1, unit costs, CBC 60 s, one core): p4 m24 split open
	 * at 101/100 -> proven in 27.8 s; p4 m16 split 17.7 -> 13.0 s; the
	 * exported target at 100 of p4 m24 split with the cbc program: 76.0 s,
	 * 19.9 s without heuristics (turning cuts off too gave 14.1 s but
	 * helps nowhere else measured, so cuts stay). */
	if (feasibility)
		Cbc_setParameter(cm, "heuristicsOnOff", "off");
	if (o->time_limit > 0) {
		double left = o->time_limit - (clock_seconds() - t0);
		Cbc_setMaximumSeconds(cm, left > 1e-3 ? left : 1e-3);
		Cbc_setParameter(cm, "timeMode", "elapsed");
	}
	if (o->threads > 1) {
		char n[16];
		snprintf(n, sizeof n, "%d", o->threads);
		Cbc_setParameter(cm, "threads", n);
	}
	if (o->rel_gap > 0)
		Cbc_setAllowableFractionGap(cm, o->rel_gap);
	if (o->abs_gap > 0)
		Cbc_setAllowableGap(cm, o->abs_gap);
	if (o->start && d->nints > 0) {
		double *v = malloc(d->nints * sizeof *v);
		if (!v)
			return;   /* a start is a hint: solve without it */
		for (int k = 0; k < d->nints; k++)
			v[k] = round(o->start[d->ints[k]]);
		Cbc_setMIPStartI(cm, d->nints, d->ints, v);
		free(v);
		if (o->time_limit > 0)
			Cbc_setParameter(cm, "preprocess", "off");
	}
}

/* With the log on, point stdout at stderr for the solve; returns the saved
 * descriptor, or -1. */
static int cbc_log_to_stderr(bool verbose)
{
	if (!verbose)
		return -1;
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	if (saved >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	return saved;
}

static void cbc_log_restore(int saved)
{
	if (saved < 0)
		return;
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
}

/* Whether a limit stopped the search: CBC's flags (time, nodes, solutions;
 * status 1 is "stopped on a limit", 5 a user stop; secondary status 3, 4,
 * 5, 6, 8 name nodes, time, event, solutions, iterations), or the clock,
 * for stops CBC does not flag: when its time runs out in preprocessing,
 * CBC 2.10 can leave status 0, secondary 1 ("infeasible") and no flag. */
static bool cbc_stopped(Cbc_Model *cm, bool out_of_time)
{
	int status = Cbc_status(cm), why = Cbc_secondaryStatus(cm);
	return out_of_time || status == 1 || status == 5 || (why >= 3 && why <= 6) ||
	       why == 8 || Cbc_isSecondsLimitReached(cm) || Cbc_isNodeLimitReached(cm) ||
	       Cbc_isSolutionLimitReached(cm);
}

/*
 * The outcome after Cbc_solve; *exact when an optimum is proven without a
 * gap tolerance. Proofs first (unbounded relaxation, optimum), then any
 * stop by a limit, and only then infeasibility: CBC says "infeasible" when
 * it has no solution at the end, which after a stop proves nothing, so
 * infeasible needs a finished search (status 0) that no limit cut short.
 * out_of_time: the wall clock passed the time limit.
 */
static enum outcome cbc_outcome(Cbc_Model *cm, bool lp_only, bool out_of_time, bool *exact)
{
	*exact = false;
	if (lp_only) {
		*exact = Cbc_isProvenOptimal(cm);
		if (*exact)
			return OUTCOME_OPTIMAL;
		if (Cbc_isInitialSolveProvenPrimalInfeasible(cm))
			return OUTCOME_INFEASIBLE;
		return Cbc_isProvenInfeasible(cm) ? OUTCOME_UNBOUNDED :
						    OUTCOME_NO_SOLUTION;
	}
	int why = Cbc_secondaryStatus(cm);
	bool have = Cbc_bestSolution(cm) != NULL;
	if (Cbc_isContinuousUnbounded(cm) || why == 7)
		return OUTCOME_UNBOUNDED;
	if (Cbc_isProvenOptimal(cm) && have) {
		*exact = why != 2;
		return OUTCOME_OPTIMAL;
	}
	if (cbc_stopped(cm, out_of_time))
		return OUTCOME_TIME_LIMIT;
	if (Cbc_status(cm) == 2 || Cbc_isAbandoned(cm))
		return have ? OUTCOME_FEASIBLE : OUTCOME_NO_SOLUTION;
	if (!have && Cbc_status(cm) == 0 && (Cbc_isProvenInfeasible(cm) || why == 1))
		return OUTCOME_INFEASIBLE;
	if (why == 2 && have)
		return OUTCOME_OPTIMAL;
	return have ? OUTCOME_FEASIBLE : OUTCOME_NO_SOLUTION;
}

/*
 * What CBC found, into r. `start` is the caller's start if it is feasible,
 * else NULL: CBC 2.10 can call a feasible model infeasible when its time
 * limit strikes just after a MIP start set the cutoff (seen with the
 * preprocessor on, which cbc_configure turns off for that case). A feasible
 * start refutes that verdict and becomes the solution, bound unknown; it is
 * also the solution when a limit stopped CBC before it had one. A claim of
 * infeasibility that cbc_outcome overruled (a stop) leaves the bound
 * unknown too: CBC's is then no proof.
 */
static enum status cbc_fill(Cbc_Model *cm, const struct milp *m, bool lp_only,
			    bool out_of_time, const double *start,
			    struct solver_result *r, struct error *err)
{
	bool exact;
	r->outcome = cbc_outcome(cm, lp_only, out_of_time, &exact);
	r->nodes = lp_only ? 0 : Cbc_getNodeCount(cm);
	double bound = lp_only ? -DBL_MAX : Cbc_getBestPossibleObjValue(cm);
	r->bound = fabs(bound) >= MILP_INF ? -INFINITY : bound + m->obj_offset;
	/* A feasibility question (no column with a cost can move: the
	 * time-indexed targets): CBC branches on a random objective of its
	 * own making ("create fake objective", Cbc0045I) and its best possible
	 * value is then that objective's, no bound on this model's. Stopped
	 * by a limit, it proves nothing; infeasible or solved, the code below
	 * sets the bound. Seen: a target at 106 stopped after its root cuts
	 * with "best possible 150.09", which certified a schedule of 112
	 * where 107 exists (bench/crosscheck.py). */
	if (milp_feasibility_only(m))
		r->bound = -INFINITY;
	if (!lp_only && r->outcome != OUTCOME_INFEASIBLE &&
	    (Cbc_isProvenInfeasible(cm) || Cbc_secondaryStatus(cm) == 1))
		r->bound = -INFINITY;
	const double *x;
	if (r->outcome == OUTCOME_INFEASIBLE && start) {
		r->outcome = OUTCOME_FEASIBLE;
		r->bound = -INFINITY;
		x = start;
	} else if (r->outcome == OUTCOME_INFEASIBLE || r->outcome == OUTCOME_UNBOUNDED) {
		r->bound = r->outcome == OUTCOME_INFEASIBLE ? INFINITY : -INFINITY;
		return STATUS_OK;
	} else {
		x = lp_only ? (exact ? Cbc_getColSolution(cm) : NULL) : Cbc_bestSolution(cm);
		if (!x && r->outcome == OUTCOME_TIME_LIMIT)
			x = start;
	}
	if (!x)
		return STATUS_OK;
	r->x = malloc(m->ncols * sizeof *r->x);
	if (!r->x)
		return err_set(err, "cbc: out of memory for the solution");
	for (int c = 0; c < m->ncols; c++)
		r->x[c] = m->cols[c].integer ? round(x[c]) : x[c];
	r->has_solution = true;
	r->objective = x == start ? milp_objective(m, r->x) :
				    Cbc_getObjValue(cm) + m->obj_offset;
	if (exact || r->bound > r->objective)
		r->bound = r->objective;
	return STATUS_OK;
}

/* Build, solve, read back, delete: all of it under the lock. */
static enum status cbc_run(const struct milp *m, const struct cbc_data *d,
			   const struct solver_options *o, double t0,
			   const double *start, struct solver_result *r,
			   struct error *err)
{
	pthread_mutex_lock(&cbc_lock);
	Cbc_Model *cm = Cbc_newModel();
	Cbc_loadProblem(cm, m->ncols, m->nrows, d->start, d->index, d->value,
			d->clb, d->cub, d->obj, d->rlb, d->rub);
	for (int k = 0; k < d->nints; k++)
		Cbc_setInteger(cm, d->ints[k]);
	cbc_configure(cm, d, o, t0, milp_feasibility_only(m));
	int saved = cbc_log_to_stderr(o->verbose);
	Cbc_solve(cm);
	cbc_log_restore(saved);
	bool out_of_time = o->time_limit > 0 && clock_seconds() - t0 >= o->time_limit;
	enum status st = cbc_fill(cm, m, d->nints == 0, out_of_time, start, r, err);
	Cbc_deleteModel(cm);
	pthread_mutex_unlock(&cbc_lock);
	return st;
}

static enum status cbc_solve(const struct milp *m, const struct solver_options *o,
			     struct solver_result *r, struct error *err)
{
	static const struct solver_options defaults = {.threads = 1};
	double t0 = clock_seconds();
	if (!o)
		o = &defaults;
	*r = (struct solver_result){.outcome = OUTCOME_NO_SOLUTION,
				    .objective = NAN, .bound = -INFINITY};
	if (milp_check(m, err))
		return err_prefix(err, "cbc");
	struct cbc_data d;
	enum status st = cbc_data_init(&d, m, err);
	const double *start = o->start && d.nints > 0 &&
			      milp_feasible(m, o->start, 1e-6, NULL) ? o->start : NULL;
	if (!st)
		st = cbc_run(m, &d, o, t0, start, r, err);
	cbc_data_release(&d);
	r->seconds = clock_seconds() - t0;
	if (st) {
		solver_result_release(r);
		r->has_solution = false;
		return STATUS_ERROR;
	}
	if (o->progress)
		o->progress(o->progress_ctx, r->has_solution ? r->objective : NAN,
			    r->bound);
	return STATUS_OK;
}

static const char *cbc_version(void)
{
	const char *v = Cbc_getVersion();
	return v && *v ? v : CBC_VERSION_STRING;
}

const struct solver_backend solver_cbc = {
	.name = "cbc",
	.version = cbc_version,
	.solve = cbc_solve,
	.fused_targets_max = 6000,
	.target_share = 0.08,
};
