/*
 * Pictures of a simulated schedule: a Chrome-trace JSON timeline (opens in
 * Perfetto or chrome://tracing), an SVG Gantt chart, and an ASCII timeline
 * for the terminal. Each returns a new NUL-terminated string the caller
 * frees, or NULL when out of memory. Times are the instance's time units;
 * the trace writes them as microseconds (the datasets' unit).
 */
#ifndef PIPEOPT_RENDER_H
#define PIPEOPT_RENDER_H

#include "sched/instance.h"
#include "sched/schedule.h"
#include "sched/sim.h"

char *render_trace(const struct instance *in, const struct schedule *s,
		   const struct sim_result *r);
char *render_svg(const struct instance *in, const struct schedule *s,
		 const struct sim_result *r);
/* width: columns for the time axis (at least 20). */
char *render_ascii(const struct instance *in, const struct schedule *s,
		   const struct sim_result *r, int width);

#endif
