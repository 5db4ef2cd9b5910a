/*
 * Typed reads of a JSON object's keys for tests: a missing key or a value
 * of another type fails the test, naming the key.
 */
#ifndef PIPEOPT_JSON_GET_H
#define PIPEOPT_JSON_GET_H

#include <jansson.h>
#include <stdbool.h>

#include "test_helpers.h"

static inline json_t *get(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		fail_msg("key '%s' missing", key);
	return v;
}

static inline json_int_t get_int(const json_t *obj, const char *key)
{
	json_t *v = get(obj, key);
	if (!json_is_integer(v))
		fail_msg("key '%s' is not an integer", key);
	return json_integer_value(v);
}

static inline double get_real(const json_t *obj, const char *key)
{
	json_t *v = get(obj, key);
	if (!json_is_number(v))
		fail_msg("key '%s' is not a number", key);
	return json_number_value(v);
}

static inline const char *get_str(const json_t *obj, const char *key)
{
	json_t *v = get(obj, key);
	if (!json_is_string(v))
		fail_msg("key '%s' is not a string", key);
	return json_string_value(v);
}

static inline bool get_bool(const json_t *obj, const char *key)
{
	json_t *v = get(obj, key);
	if (!json_is_boolean(v))
		fail_msg("key '%s' is not a boolean", key);
	return json_is_true(v);
}

#endif
