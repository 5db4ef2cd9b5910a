/*
 * Include this instead of <cmocka.h>: cmocka 1.1.5 needs these headers
 * first, and its float assertion is single precision, so doubles get their
 * own helper.
 */
#ifndef PIPEOPT_TEST_HELPERS_H
#define PIPEOPT_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/instance.h"
#include "sched/schedule.h"

/* assert |a - b| <= eps in double precision. */
#define assert_double_near(a, b, eps)                                          \
	do {                                                                   \
		double a_ = (a), b_ = (b);                                     \
		if (!(fabs(a_ - b_) <= (eps)))                                 \
			fail_msg("%.17g != %.17g (eps %g)", a_, b_,            \
				 (double)(eps));                               \
	} while (0)

/* Assert that haystack contains needle, printing both when it does not. */
#define assert_contains(haystack, needle)                                      \
	do {                                                                   \
		const char *h_ = (haystack), *n_ = (needle);                   \
		if (!h_ || !strstr(h_, n_))                                    \
			fail_msg("'%s' does not contain '%s'", h_ ? h_ : "(null)", \
				 n_);                                          \
	} while (0)

/* A rejection's message: names the source, is one line, and contains both
 * `where` and `what`. `name` labels the case in failures. */
static inline void check_error_message(const char *name, const char *msg,
				       const char *source, const char *where,
				       const char *what)
{
	if (!strstr(msg, source))
		fail_msg("case '%s': message does not name the source: %s", name, msg);
	if (strchr(msg, '\n'))
		fail_msg("case '%s': message is not one line: %s", name, msg);
	if (!strstr(msg, where) || !strstr(msg, what))
		fail_msg("case '%s': message lacks '%s' or '%s': %s", name, where,
			 what, msg);
}

/* Parse an instance from JSON text, failing the test on error. */
static inline struct instance *parse_instance_ok(const char *json)
{
	struct instance *in = NULL;
	struct error err = {{0}};
	if (instance_parse(json, "test.json", &in, &err))
		fail_msg("instance rejected: %s", err.msg);
	return in;
}

/* The most micro-batch activations a device's order holds: the maximum
 * over its order of (forwards started - `release` ops started), release
 * being the kind that frees the activation (OP_B fused, OP_W split). */
static inline int ops_in_flight(const struct sched_row *row, int release)
{
	int cur = 0, max = 0;
	for (int i = 0; i < row->len; i++) {
		cur += row->ops[i].kind == OP_F ? 1 : (int)row->ops[i].kind == release ? -1 : 0;
		max = cur > max ? cur : max;
	}
	return max;
}

#endif
