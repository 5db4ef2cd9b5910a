/*
 * Generating and simulating a family's schedule in a test, failing the
 * test with the family's or the simulator's message (test_family.c,
 * test_family_cm.c).
 */
#ifndef PIPEOPT_FAMILY_HELPERS_H
#define PIPEOPT_FAMILY_HELPERS_H

#include <stdio.h>
#include <string.h>

#include "test_helpers.h"
#include "sched/family.h"
#include "sched/schedule.h"
#include "sched/sim.h"

/* The family's schedule for in (one row per device). */
static inline struct schedule *generate_ok(const char *name, const struct instance *in)
{
	struct schedule *sc = NULL;
	struct error err = {{0}};
	if (family_generate(name, in, &sc, &err))
		fail_msg("family '%s' (p=%d m=%d) failed: %s", name, in->devices,
			 in->microbatches, err.msg);
	assert_non_null(sc);
	assert_int_equal(sc->devices, in->devices);
	return sc;
}

/* Simulate, failing the test on an invalid schedule. */
static inline struct sim_result run_ok(struct sim *s, const struct schedule *sc,
				       const char *what)
{
	struct sim_result r;
	struct error err = {{0}};
	if (sim_run(s, sc, &r, &err))
		fail_msg("%s: invalid schedule: %s", what, err.msg);
	return r;
}

/* The family refuses the instance: error, *out reset to NULL, a message
 * of one line naming the family, "does not support" and (if given) the
 * reason. */
static inline void expect_family_refused(const char *name, const struct instance *in,
					 const char *reason)
{
	struct schedule stale;
	struct schedule *sc = &stale;   /* not NULL: a refusal must reset it */
	struct error err = {{0}};
	char want[128];
	if (family_generate(name, in, &sc, &err) != STATUS_ERROR)
		fail_msg("family '%s' accepted instance '%s' (p=%d, m=%d, %d stages, %s), expected a refusal",
			 name, in->name, in->devices, in->microbatches, in->stages,
			 in->placement);
	assert_null(sc);
	snprintf(want, sizeof want, "family '%s' does not support", name);
	assert_contains(err.msg, want);
	if (reason)
		assert_contains(err.msg, reason);
	assert_null(strchr(err.msg, '\n'));
}

#endif
