/* The formulation registry (formulation.h). */
#include "formulate/formulation.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* Per formulation (defined in its own file): its declaration here and its
 * entry in the table, in the order help texts list them. */
extern const struct formulation formulation_disjunctive;    /* disjunctive.c */
extern const struct formulation formulation_time_indexed;   /* time_indexed.c */

static const struct formulation *const registry[] = {
	&formulation_disjunctive,
	&formulation_time_indexed,
};

int formulation_count(void)
{
	return (int)(sizeof registry / sizeof registry[0]);
}

const struct formulation *formulation_at(int i)
{
	assert(i >= 0 && i < formulation_count());
	return registry[i];
}

const struct formulation *formulation_find(const char *name)
{
	for (int i = 0; name && i < formulation_count(); i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

const char *formulation_names(char *buf, size_t n, const char *sep)
{
	size_t len = 0;
	assert(buf && n > 0);
	buf[0] = '\0';
	for (int i = 0; i < formulation_count() && len < n; i++) {
		int k = snprintf(buf + len, n - len, "%s%s", i ? sep : "", registry[i]->name);
		len += k > 0 ? (size_t)k : 0;
	}
	return buf;
}
