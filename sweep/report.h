/*
 * What a sweep's rows say: the summary table per method and SVG plots
 * (rows as in sweep/README.md, a JSON array, e.g. from results_load).
 *
 * Reference of a point (same `point` and `rep`): the best proven lower
 * bound known for it, the largest of the rows' `bound` and `lower_bound`
 * and of the objectives of certified rows. A row's gap to it is
 * (objective - reference) / objective (0 for a certified optimum).
 */
#ifndef PIPEOPT_SWEEP_REPORT_H
#define PIPEOPT_SWEEP_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/error.h"

/* Per method (in first-seen order): rows, failures (status "error"),
 * unsupported (status "unsupported": a family that cannot run the point),
 * mean bubble ratio, wins (points where its objective is the smallest of
 * all methods', ties counted for each), share certified, mean and worst
 * gap to the point's reference. As a JSON array of objects (new
 * reference) with keys method, rows, failures, unsupported, mean_bubble_ratio, wins,
 * points, share_certified, mean_gap, worst_gap (null when no row of the
 * method has an objective). */
json_t *report_summary(const json_t *rows);

/* The summary as an aligned text table (or GitHub markdown). */
void report_print(FILE *out, const json_t *summary, bool markdown);

/* SVG plots into dir (created if missing), written atomically:
 *   DIR/objective.svg: y (objective or bubble_ratio) against the params key
 *     x (default "microbatches" when rows have it, else "devices"), one
 *     line per method, mean over the other parameters and repetitions;
 *   DIR/gap.svg: histogram of the gaps to the reference of the "search"
 *     rows (the GA), if any.
 * The names of the files written are appended to `written` (array of
 * strings). */
enum status report_plots(const json_t *rows, const char *dir, const char *x, const char *y,
			 json_t *written, struct error *err);

#endif
