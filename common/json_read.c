#include "common/json_read.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum status jr_vfail(const struct jr_ctx *c, const char *key, const char *fmt, va_list ap)
{
	char what[512];
	vsnprintf(what, sizeof what, fmt, ap);
	return err_set(c->err, "%s '%s': %s: %s", c->noun, c->source, key, what);
}

enum status jr_fail(const struct jr_ctx *c, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	enum status st = jr_vfail(c, key, fmt, ap);
	va_end(ap);
	return st;
}

const char *jr_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "a list";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a non-integer number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

const char *jr_unknown_key(const json_t *obj, const char *const *known)
{
	const char *key;
	json_t *val;
	/* jansson's iteration macros take a non-const object; they do not
	 * change it */
	json_object_foreach((json_t *)obj, key, val) {
		int i = 0;
		while (known[i] && strcmp(key, known[i]))
			i++;
		if (!known[i])
			return key;
	}
	return NULL;
}

enum status jr_check_keys(const struct jr_ctx *c, const char *where, const json_t *obj,
			  const char *const *known)
{
	const char *k = jr_unknown_key(obj, known);
	if (!k)
		return STATUS_OK;
	char key[256];
	snprintf(key, sizeof key, "%s%s%s", where, *where ? "." : "", k);
	return jr_fail(c, key, "unknown key");
}

enum status jr_range(const struct jr_ctx *c, const char *key, int64_t x, int64_t lo,
		     int64_t hi)
{
	if (x < lo && lo == 0)
		return jr_fail(c, key, "%" PRId64 " is negative", x);
	if (x < lo)
		return jr_fail(c, key, "%" PRId64 " is below the minimum %" PRId64, x, lo);
	if (x > hi)
		return jr_fail(c, key, "%" PRId64 " exceeds the maximum %" PRId64, x, hi);
	return STATUS_OK;
}

enum status jr_int(const struct jr_ctx *c, const char *key, const json_t *v, int64_t lo,
		   int64_t hi, int64_t *out)
{
	if (!json_is_integer(v))
		return jr_fail(c, key, "expected an integer, got %s", jr_type_name(v));
	int64_t x = json_integer_value(v);
	if (jr_range(c, key, x, lo, hi))
		return STATUS_ERROR;
	*out = x;
	return STATUS_OK;
}

enum status jr_number(const struct jr_ctx *c, const char *key, const json_t *v, double lo,
		      double hi, double *out)
{
	if (!json_is_number(v))
		return jr_fail(c, key, "expected a number");
	double x = json_number_value(v);
	if (!isfinite(x) || x < lo || x > hi)
		return jr_fail(c, key, "%g is outside [%g, %g]", x, lo, hi);
	*out = x;
	return STATUS_OK;
}
