/* The solver registry and shared helpers. */
#include "solvers/solver.h"

#include <stdlib.h>
#include <string.h>

static const struct solver_backend *const backends[] = {&solver_cbc, &solver_glpk};

int solver_count(void)
{
	return (int)(sizeof backends / sizeof backends[0]);
}

const struct solver_backend *solver_at(int i)
{
	return backends[i];
}

const struct solver_backend *solver_find(const char *name)
{
	for (int i = 0; i < solver_count(); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

const char *outcome_name(enum outcome o)
{
	static const char *const names[] = {
		[OUTCOME_OPTIMAL] = "optimal", [OUTCOME_FEASIBLE] = "feasible",
		[OUTCOME_TIME_LIMIT] = "time_limit", [OUTCOME_INFEASIBLE] = "infeasible",
		[OUTCOME_UNBOUNDED] = "unbounded", [OUTCOME_NO_SOLUTION] = "no_solution"};
	return names[o];
}

void solver_result_release(struct solver_result *r)
{
	if (!r)
		return;
	free(r->x);
	r->x = NULL;
}
