/*
 * Reading JSON input files with one-line errors that name the file and the
 * key, in the house grammar:
 *     instance 'x.json': cost.F: list has 3 entries, expected 4 (one per stage)
 *     graph 'g.json': ops[3]: unknown key 'flops'
 *     spec 's.json': methods[1].extra: unknown key
 * The instance, graph and sweep-spec readers share this context, the type
 * names, the unknown-key check and the typed reads with ranges; each keeps
 * its own noun (the first word of its messages).
 */
#ifndef PIPEOPT_JSON_READ_H
#define PIPEOPT_JSON_READ_H

#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>

#include "common/error.h"

/* Where a reader is, for messages. Nothing in it is owned. */
struct jr_ctx {
	const char *noun;          /* what is read: "instance", "graph", "spec" */
	const char *source;        /* its name: a path or a label */
	struct error *err;         /* filled on failure; may be NULL */
};

/* Set "NOUN 'SOURCE': KEY: WHAT" (WHAT from fmt) in c->err; returns
 * STATUS_ERROR. */
enum status jr_fail(const struct jr_ctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
enum status jr_vfail(const struct jr_ctx *c, const char *key, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* The type of v in messages: "an object", "a list", "a string", "an
 * integer", "a non-integer number", "a boolean", "null". */
const char *jr_type_name(const json_t *v);

/* The first key of obj not in `known` (NULL-terminated), or NULL. */
const char *jr_unknown_key(const json_t *obj, const char *const *known);

/* Reject a key of obj not in `known` (NULL-terminated) as
 * "WHERE.KEY: unknown key" ("KEY: unknown key" when where is ""). */
enum status jr_check_keys(const struct jr_ctx *c, const char *where, const json_t *obj,
			  const char *const *known);

/* An integer in [lo, hi] into *out; otherwise "expected an integer, got
 * TYPE", "X is negative" (lo 0), "X is below the minimum LO" or "X exceeds
 * the maximum HI". */
enum status jr_int(const struct jr_ctx *c, const char *key, const json_t *v, int64_t lo,
		   int64_t hi, int64_t *out);

/* The range part of jr_int, for a value that is already an integer (an
 * instance built in code, sched/instance.h), with the same messages. */
enum status jr_range(const struct jr_ctx *c, const char *key, int64_t x, int64_t lo,
		     int64_t hi);

/* A finite number in [lo, hi] into *out; otherwise "expected a number" or
 * "X is outside [LO, HI]". */
enum status jr_number(const struct jr_ctx *c, const char *key, const json_t *v, double lo,
		      double hi, double *out);

#endif
