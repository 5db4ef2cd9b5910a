/* Verdicts (verdict.h). */
#include "sched/verdict.h"

#include <assert.h>
#include <math.h>

const char *outcome_name(enum outcome o)
{
	static const char *const names[] = {
		[OUTCOME_OPTIMAL] = "optimal", [OUTCOME_FEASIBLE] = "feasible",
		[OUTCOME_TIME_LIMIT] = "time_limit", [OUTCOME_INFEASIBLE] = "infeasible",
		[OUTCOME_UNBOUNDED] = "unbounded", [OUTCOME_NO_SOLUTION] = "no_solution",
		[OUTCOME_UNSUPPORTED] = "unsupported", [OUTCOME_ERROR] = "error"};
	assert(o >= 0 && o < OUTCOME_COUNT);
	return names[o];
}

double verdict_gap(double objective, double bound)
{
	if (!isfinite(objective))
		return 1;
	if (objective <= 0)
		return 0;
	double g = (objective - bound) / objective;
	return g > 0 ? g : 0;
}

struct verdict verdict_of(double objective, double bound, bool proven, const char *by,
			  enum outcome otherwise)
{
	bool met = objective <= bound;
	struct verdict v = {.has_objective = true, .objective = objective, .has_bound = true,
			    .bound = bound, .gap = verdict_gap(objective, bound),
			    .certified = met || proven};
	v.certified_by = proven && by ? by : met ? "bound" : NULL;
	v.outcome = v.certified ? OUTCOME_OPTIMAL :
		    otherwise == OUTCOME_OPTIMAL ? OUTCOME_FEASIBLE : otherwise;
	return v;
}

struct verdict verdict_none(enum outcome o)
{
	return (struct verdict){.outcome = o, .gap = 1};
}

static json_t *number(const struct verdict *v, double x)
{
	return v->integral ? json_integer((json_int_t)x) : json_real(x);
}

json_t *verdict_json(const struct verdict *v, json_t *obj)
{
	json_object_set_new(obj, "status", json_string(outcome_name(v->outcome)));
	json_object_set_new(obj, "objective", v->has_objective ? number(v, v->objective) : json_null());
	json_object_set_new(obj, "bound", v->has_bound ? number(v, v->bound) : json_null());
	json_object_set_new(obj, "gap", v->has_objective && v->has_bound ? json_real(v->gap) :
				       json_null());
	json_object_set_new(obj, "certified", json_boolean(v->certified));
	json_object_set_new(obj, "certified_by", v->certified_by ? json_string(v->certified_by) :
				     json_null());
	return obj;
}
