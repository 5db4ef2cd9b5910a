/* The best-family method: every predefined family that supports the
 * instance, simulated; the shortest objective wins (ties: the first in the
 * registry). It is the heuristic `solve` starts from, as a method of its
 * own, so a sweep can set the best known family against the GA and the
 * exact optimum. Certified only when it meets the lower bound. */
#include "methods/method.h"

#include <stdio.h>

#include "sched/family.h"

static const struct opt no_opts[] = {{0}};

static enum status run(const struct method_call *c, struct method_result *r, struct error *err)
{
	const char *best = NULL;
	struct method_result one = {0};
	for (int i = 0; i < family_count(); i++) {
		struct error why;
		if (family_run(family_at(i), c->in, &one.schedule, &why) ||
		    !method_simulate(c, &one, OUTCOME_UNSUPPORTED)) {
			method_result_release(&one);
			continue;   /* the family does not support the instance */
		}
		if (!best || one.v.objective < r->v.objective) {
			method_result_release(r);
			*r = one;
			best = family_at(i)->name;
		} else {
			method_result_release(&one);
		}
		one = (struct method_result){0};
	}
	if (!best) {
		r->v = verdict_none(OUTCOME_UNSUPPORTED);
		snprintf(r->error, sizeof r->error, "no family supports instance '%s'", c->in->name);
		return STATUS_OK;
	}
	r->extra = json_pack("{s:s}", "family", best);
	return STATUS_OK;
}

const struct method method_best_family = {
	.name = "best-family",
	.summary = "the best of every predefined family that supports the instance, simulated",
	.opts = no_opts,
	.size = 1,
	.run = run,
};
