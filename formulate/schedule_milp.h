/*
 * The schedule problem as a MILP over the precedence graph (opgraph.h), in
 * one of the registered formulations (formulation.h), and the way back
 * from a solution to a schedule.
 *
 *  - disjunctive (disjunctive.c): an end-time column per op and an
 *    ordering binary per same-device pair whose order the graph leaves
 *    open; big-M rows with per-pair M from the columns' bounds.
 *  - time-indexed (time_indexed.c): a start-time binary per op and time
 *    slot within its window; disaggregated precedence rows. Its LP bound is
 *    much stronger, its size grows with the horizon: for small durations.
 *
 * All take the horizon H (a proven upper bound on the makespan of some
 * optimal schedule) and a proven lower bound on the objective.
 */
#ifndef PIPEOPT_SCHEDULE_MILP_H
#define PIPEOPT_SCHEDULE_MILP_H

#include <jansson.h>
#include <stdint.h>

#include "formulate/formulation.h"
#include "formulate/milp.h"
#include "formulate/opgraph.h"
#include "sched/schedule.h"
#include "sched/sim.h"

struct sched_milp {
	struct milp *milp;
	const struct instance *in;
	const struct opgraph *g;
	const struct formulation *form;
	int64_t horizon;        /* time units: every op ends by then */
	int64_t lower, upper;   /* time units: bounds on the objective */
	int obj_col;            /* makespan C, or span S */
	int *first_col;         /* [D] span: first start on d, or -1 */
	int *last_col;          /* [D] span: last end on d, or -1 */
	void *data;             /* the formulation's own columns (its file) */
	int fixed_binaries;     /* binaries whose value the time windows
	                           decide (bounds equal; disjunctive targets) */
};

/* The model of formulation `form` (from the registry, formulation.h).
 * horizon: every op of some optimal schedule ends by then; lower and
 * upper: proven bounds on the optimal objective (upper from a schedule).
 * The result borrows in and g; sched_milp_free releases it. */
struct sched_milp *sched_milp_build(const struct instance *in,
				    const struct opgraph *g,
				    const struct formulation *form, int64_t horizon,
				    int64_t lower, int64_t upper,
				    struct error *err);
void sched_milp_free(struct sched_milp *sm);

/* The point of a simulated schedule (a MIP start), into x [ncols]; false
 * when the schedule lies outside the model (not FIFO, beyond the horizon,
 * ...). */
bool sched_milp_point(const struct sched_milp *sm, const struct schedule *s,
		      const struct sim_result *r, double *x);

/* The schedule a solution describes: per device, ops by start time (ties:
 * the ordering the solution chose). Callers re-simulate it. */
enum status sched_milp_decode(const struct sched_milp *sm, const double *x,
			      struct schedule **out, struct error *err);

/* The column map of sm's model (docs/milp-export.md): the instance's
 * digest, the formulation, the op index rule and every op (kind, stage,
 * micro-batch, device, duration), each column's name in order and what
 * the names mean. A new reference, NULL on out of memory. */
json_t *sched_milp_map_json(const struct sched_milp *sm);

#endif
