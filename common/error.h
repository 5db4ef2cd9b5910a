/*
 * Status and error messages shared by every module.
 *
 * A call either worked or failed: it returns enum status and, on failure,
 * fills a struct error with one line in the house grammar, for example
 *     instance 'x.json': cost.F: list has 3 entries, expected 4 (one per stage)
 * The caller adds the "error: " prefix when it prints the line.
 */
#ifndef PIPEOPT_ERROR_H
#define PIPEOPT_ERROR_H

#include <stddef.h>

enum status { STATUS_OK = 0, STATUS_ERROR = 1 };

struct error {
	char msg[512];
};

/* Format a message into e (when e is not NULL); always returns STATUS_ERROR. */
enum status err_set(struct error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix the message already in e with "prefix: " (for adding context). */
enum status err_prefix(struct error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
