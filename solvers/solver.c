/* The solver registry and shared helpers. */
#include "solvers/solver.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/backend.h"

static const struct solver_backend *const backends[] = {&solver_cbc, &solver_glpk};

int solver_count(void)
{
	return (int)(sizeof backends / sizeof backends[0]);
}

const struct solver_backend *solver_at(int i)
{
	assert(i >= 0 && i < solver_count());
	return backends[i];
}

const struct solver_backend *solver_find(const char *name)
{
	for (int i = 0; i < solver_count(); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

const char *solver_names(char *buf, size_t n, const char *sep)
{
	size_t len = 0;
	assert(buf && n > 0);
	buf[0] = '\0';
	for (int i = 0; i < solver_count() && len < n; i++) {
		int k = snprintf(buf + len, n - len, "%s%s", i ? sep : "", backends[i]->name);
		len += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

void solver_result_release(struct solver_result *r)
{
	if (!r)
		return;
	free(r->x);
	r->x = NULL;
}

const char *solver_name_at(int i)
{
	return i >= 0 && i < solver_count() ? solver_at(i)->name : NULL;
}
