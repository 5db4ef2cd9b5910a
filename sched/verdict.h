/*
 * The verdict of a run: what a method found and how sure it is. One type,
 * one gap, one JSON writer for every command and every sweep row.
 *
 *   gap = (objective - bound) / objective      objective > 0
 *       = 0                                    objective = 0 (then bound = 0)
 *       = 1                                    no objective (nothing found)
 *
 * An outcome is a result, not an error (STYLE.md): a time limit, an
 * infeasible model or a family that does not support the instance are
 * recorded; only a failure to run at all is OUTCOME_ERROR.
 */
#ifndef PIPEOPT_VERDICT_H
#define PIPEOPT_VERDICT_H

#include <jansson.h>
#include <stdbool.h>

enum outcome {
	OUTCOME_OPTIMAL,      /* proven optimal (within the gap tolerance) */
	OUTCOME_FEASIBLE,     /* stopped with a solution, not proven optimal */
	OUTCOME_TIME_LIMIT,   /* the time limit stopped it (solution or not) */
	OUTCOME_INFEASIBLE,   /* proven infeasible */
	OUTCOME_UNBOUNDED,    /* unbounded (or infeasible-or-unbounded) */
	OUTCOME_NO_SOLUTION,  /* stopped otherwise without a solution */
	OUTCOME_UNSUPPORTED,  /* the method does not apply to this input */
	OUTCOME_ERROR,        /* the method could not run (a message says why) */
	OUTCOME_COUNT
};

/* "optimal", "feasible", "time_limit", "infeasible", "unbounded",
 * "no_solution", "unsupported", "error". */
const char *outcome_name(enum outcome o);

/* The one gap (above); objective INFINITY or NAN: nothing found. */
double verdict_gap(double objective, double bound);

struct verdict {
	enum outcome outcome;
	bool has_objective;
	double objective;         /* time units (schedules) or microseconds (partitions) */
	bool integral;            /* whole time units: written as JSON integers */
	bool has_bound;
	double bound;             /* a proven lower bound on the optimum */
	double gap;               /* verdict_gap(objective, bound) */
	bool certified;           /* optimal by proof and re-simulated */
	const char *certified_by; /* "bound", "solver", or NULL */
};

/* A verdict for a found objective and a proven bound: certified when
 * proven (by `by`) or when objective <= bound (by "bound"), else
 * OUTCOME_FEASIBLE or `otherwise` if that is not OUTCOME_OPTIMAL. */
struct verdict verdict_of(double objective, double bound, bool proven, const char *by,
			  enum outcome otherwise);

/* A verdict without a result: error, unsupported, infeasible, ... */
struct verdict verdict_none(enum outcome o);

/* status, objective, bound, gap, certified, certified_by into obj
 * (as integers when v->integral); returns obj. */
json_t *verdict_json(const struct verdict *v, json_t *obj);

#endif
