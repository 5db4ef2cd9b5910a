/*
 * One sweep task: one method on one point, in this process, into a result
 * row (keys in sweep/README.md). Every schedule a method returns is
 * re-simulated here; `certified` is true only when the objective equals a
 * proven lower bound (the instance's bound, or the solver's certificate)
 * and the re-simulation agrees.
 */
#ifndef PIPEOPT_SWEEP_RUN_H
#define PIPEOPT_SWEEP_RUN_H

#include <jansson.h>

#include "sweep/spec.h"

/* The row of task t (new reference; never NULL but on out of memory). A
 * method's failure is a row with status "error" (or "unsupported") and
 * "error": one line. */
json_t *sweep_run_task(const struct sweep_spec *s, const struct sweep_task *t);

#endif
