/* The family method: a predefined family's schedule, simulated. */
#include "methods/method.h"
#include "methods/settings.h"

#include <stdio.h>

#include "sched/family.h"

const char *family_name_at(int i)
{
	return i >= 0 && i < family_count() ? family_at(i)->name : NULL;
}

const struct opt family_opts[] = {
	{.name = "family", .type = OPT_CHOICE, .choice = family_name_at,
	 .offset = offsetof(struct family_settings, family), .where = OPT_BOTH,
	 .help = "the family (see 'pipeopt families')"},
	{0}};

static enum status run(const struct method_call *c, struct method_result *r, struct error *err)
{
	const struct family_settings *s = c->settings;
	struct error why;
	if (family_generate(s->family, c->in, &r->schedule, &why)) {
		method_refuse(r, OUTCOME_UNSUPPORTED, why.msg);
		return STATUS_OK;
	}
	method_simulate(c, r, OUTCOME_UNSUPPORTED);
	return STATUS_OK;
}

const struct method method_family = {
	.name = "family",
	.summary = "a predefined family's schedule (1f1b, zb-h1, ...), simulated",
	.opts = family_opts,
	.size = sizeof(struct family_settings),
	.run = run,
};
