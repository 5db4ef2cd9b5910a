/*
 * The MILP alone against a brute force's optimum, for the tests of the
 * decisions the disjunctive model holds (test_overlap, test_recompute,
 * test_offload). Include after test_helpers.h.
 */
#ifndef PIPEOPT_TEST_MILP_ALONE_H
#define PIPEOPT_TEST_MILP_ALONE_H

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "sched/schedule.h"
#include "sched/sim.h"
#include "solvers/exact.h"

enum milp_verdict { MILP_AGREES, MILP_NO_START, MILP_DISAGREES };

/*
 * exact_solve with always_milp and the disjunctive model (which holds F&B
 * pairs, recompute and offload) with `solver`, against opt: for the
 * makespan it must certify opt; for the span, which its free op times only
 * relax (and, with offload, which it does not model), it must certify
 * nothing wrong (bound <= opt <= its objective, opt if certified); its
 * schedule must re-simulate to its objective. MILP_NO_START: no valid
 * schedule to start from (every family breaks the limit); MILP_DISAGREES
 * with the reason in msg; else MILP_AGREES, *certified set.
 */
static inline enum milp_verdict milp_alone(const struct instance *in, int64_t opt,
					   const char *solver, bool *certified, char *msg,
					   size_t len)
{
	struct exact_options o = {.solver = solver, .formulation = "disjunctive",
				  .time_limit = 20, .threads = 1, .always_milp = true};
	struct exact_result res;
	struct error err = {{0}};
	*certified = false;
	if (exact_solve(in, &o, &res, &err)) {
		if (strstr(err.msg, "no valid schedule known"))
			return MILP_NO_START;
		snprintf(msg, len, "milp %s failed: %s", solver, err.msg);
		return MILP_DISAGREES;
	}
	bool span = in->objective == OBJ_SPAN;
	struct sim *sim = sim_new(in);
	struct sim_result r = {0};
	enum status ss = sim_run(sim, res.schedule, &r, &err);
	bool bad = (!span && (!res.certified || res.objective != opt)) || res.bound > opt ||
		   res.objective < opt || (res.certified && res.objective != opt) || ss ||
		   r.objective != res.objective;
	if (bad) {
		json_t *j = schedule_to_json(res.schedule);
		char *text = json_dumps(j, JSON_COMPACT);
		snprintf(msg, len, "milp %s: %lld (%s, bound %lld, %s), brute force %lld; its schedule %s: sim_run %s %lld",
			 solver, (long long)res.objective,
			 res.certified ? "certified" : "not certified", (long long)res.bound,
			 res.stopped_by ? res.stopped_by : "-", (long long)opt, text ? text : "?",
			 ss ? err.msg : "ok", (long long)r.objective);
		free(text);
		json_decref(j);
	}
	*certified = res.certified;
	sim_free(sim);
	exact_result_release(&res);
	return bad ? MILP_DISAGREES : MILP_AGREES;
}

/*
 * An instance (json) with a decision only the disjunctive model holds:
 * the time-indexed model is refused by name, the error naming `what`;
 * auto, the MILP alone, certifies `want` (by `by`, when not NULL). Returns
 * that solve's schedule, for the caller to find the decision in and free.
 */
static inline struct schedule *milp_refuses_then_certifies(const char *json, const char *what,
							   int64_t want, const char *by)
{
	struct instance *in = parse_instance_ok(json);
	struct exact_options o = {.solver = "cbc", .formulation = "time-indexed",
				  .time_limit = 10, .threads = 1, .always_milp = true};
	struct exact_result r;
	struct error err = {{0}};
	assert_int_equal(exact_solve(in, &o, &r, &err), STATUS_ERROR);
	char msg[128];
	snprintf(msg, sizeof msg, "does not model %s", what);
	if (!strstr(err.msg, msg))
		fail_msg("expected \"%s\" in: %s", msg, err.msg);
	o.formulation = "auto";
	assert_int_equal(exact_solve(in, &o, &r, &err), STATUS_OK);
	assert_true(r.certified);
	if (by)
		assert_string_equal(r.certified_by, by);
	assert_int_equal(r.objective, want);
	struct schedule *s = r.schedule;
	r.schedule = NULL;
	exact_result_release(&r);
	instance_free(in);
	return s;
}

/* What a test's many milp_alone calls came to. */
struct milp_counts {
	int solves, certified;
	int no_start;    /* no schedule to start from */
	int disagree;    /* each printed in full as it happens */
};

/* milp_alone with `solver`, counted into c; a disagreement is printed with
 * the instance's JSON (every one in a run, not the first only). */
static inline void milp_alone_count(const struct instance *in, const char *json, int64_t opt,
				    const char *solver, struct milp_counts *c)
{
	char msg[8192];
	bool certified;
	switch (milp_alone(in, opt, solver, &certified, msg, sizeof msg)) {
	case MILP_NO_START:
		c->no_start++;
		return;
	case MILP_DISAGREES:
		printf("DISAGREEMENT: %s\ninstance %s\n", msg, json);
		c->disagree++;
		break;
	case MILP_AGREES:
		c->certified += certified;
		break;
	}
	c->solves++;
}

#endif
