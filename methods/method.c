/* The method registry (method.h): one line per method. */
#include "methods/method.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "sched/sim.h"

extern const struct method method_best_family;

static const struct method *const methods[] = {
	&method_family,
	&method_solve,
	&method_search,
	&method_partition,
	&method_plan,
	&method_best_family,
	&method_profile,
	&method_exec,
};

int method_count(void)
{
	return (int)(sizeof methods / sizeof methods[0]);
}

const struct method *method_at(int i)
{
	assert(i >= 0 && i < method_count());
	return methods[i];
}

const struct method *method_find(const char *name)
{
	for (int i = 0; i < method_count(); i++)
		if (!strcmp(methods[i]->name, name))
			return methods[i];
	return NULL;
}

const char *method_name_at(int i)
{
	return i >= 0 && i < method_count() ? methods[i]->name : NULL;
}

void method_opt_set(const struct method *m, void *settings, struct run_opts *run,
		    struct opt_set *set)
{
	int t = 0, d = 0;
	memset(set, 0, sizeof *set);
	set->cmd = m->name;
	set->tables[t] = m->opts;
	set->base[t++] = settings;
	if (m->time_limit) {
		set->tables[t] = run_opts_time_limit;
		set->base[t++] = run;
		set->defaults[d++] = (struct opt_default){"time-limit", m->time_limit};
	}
	if (m->threads) {
		set->tables[t] = run_opts_threads;
		set->base[t++] = run;
		set->defaults[d++] = (struct opt_default){"threads", m->threads};
	}
}

void method_result_release(struct method_result *r)
{
	if (!r)
		return;
	schedule_free(r->schedule);
	json_decref(r->extra);
	r->schedule = NULL;
	r->extra = NULL;
}

bool method_simulate(const struct method_call *c, struct method_result *r, enum outcome refused)
{
	struct sim *sim = sim_new(c->in);
	struct sim_result sr;
	struct error err;
	bool ok = sim && !sim_run(sim, r->schedule, &sr, &err);
	if (!ok) {
		method_refuse(r, sim ? refused : OUTCOME_ERROR, sim ? err.msg : "out of memory");
	} else {
		r->v = verdict_of((double)sr.objective, (double)c->lower_bound, false, NULL,
				  OUTCOME_FEASIBLE);
		r->v.integral = true;
		r->makespan = sr.makespan;
		r->span = sr.span;
		r->bubble_ratio = sr.bubble_ratio;
	}
	sim_free(sim);
	return ok;
}

void method_refuse(struct method_result *r, enum outcome o, const char *why)
{
	r->v = verdict_none(o);
	snprintf(r->error, sizeof r->error, "%s", why);
}
