/*
 * Sweep results: append-only JSON Lines (format in sweep/README.md).
 * Writing: the rows done since the last write go out in one write(2) on
 * an O_APPEND descriptor, then fsync(2) (group commit), before the runner
 * takes more rows. Opening for a resume: the complete rows are read; a torn last
 * line (no newline, or not a JSON object) is cut off before anything is
 * appended.
 */
#ifndef PIPEOPT_SWEEP_RESULTS_H
#define PIPEOPT_SWEEP_RESULTS_H

#include <jansson.h>
#include <stdbool.h>

#include "common/error.h"

struct results {
	int fd;
	char *path;
	json_t *rows;       /* the rows read at open (array, owned) */
	bool torn;          /* a torn last line was cut off at open */
	long torn_bytes;
};

/* Open (creating it if missing) for appending; reads the rows already
 * there and repairs a torn tail. A line other than the last that does not
 * parse is an error naming the line (the file is not ours to cut). */
enum status results_open(const char *path, struct results *r, struct error *err);
/* Append one row (compact JSON + newline), durably. */
enum status results_append(struct results *r, const json_t *row, struct error *err);
/* Append rows that completed together: one write, one fsync (group
 * commit: with cheap tasks, rows finish faster than a disk syncs). */
enum status results_append_batch(struct results *r, json_t *const *rows, int n,
				 struct error *err);
void results_close(struct results *r);

/* Read every complete row of a results file into a JSON array (new
 * reference); a torn last line is skipped (not repaired: read only). */
enum status results_load(const char *path, json_t **rows, struct error *err);

/* Write rows as CSV: a header of every key seen (params flattened as
 * "params.KEY"), one line per row; written to a temporary file and
 * renamed into place, so a failure leaves no partial file. */
enum status results_write_csv(const json_t *rows, const char *path, struct error *err);

#endif
