/*
 * The objective's columns and rows, shared by every formulation: the
 * makespan C, or per device the first start first_d, the last end last_d
 * and the span S >= last_d - first_d. The columns live in struct
 * sched_milp (obj_col, first_col, last_col); the rows that tie them to a
 * formulation's own columns stay in that formulation's file.
 */
#ifndef PIPEOPT_OBJECTIVE_H
#define PIPEOPT_OBJECTIVE_H

#include "formulate/schedule_milp.h"

/* The objective's columns: C in [lower, upper] with cost 1, or first_d
 * and last_d in [0, H] for every device with ops and S in [lower, upper]
 * with cost 1. One or 2 D + 1 columns; no rows. */
void objective_columns(struct sched_milp *sm);

/* Span only: S >= last_d - first_d, one row per device with ops. */
void objective_span_rows(struct sched_milp *sm);

/* The objective's columns of a simulated schedule's point: C or S, and
 * per device its first start and last end. */
void objective_point(const struct sched_milp *sm, const struct schedule *s,
		     const struct sim_result *r, double *x);

#endif
