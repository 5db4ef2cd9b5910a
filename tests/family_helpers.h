/*
 * Generating and simulating a family's schedule in a test, failing the
 * test with the family's or the simulator's message; refusals; a row
 * against a written order (test_family*.c).
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

/* Device d's row of sc, op for op, against text: ops written "F<s>.<j>" or
 * "B<s>.<j>" (stage s, micro-batch j) in order, white space between.
 * map, when not NULL, turns each written (s, j) into the instance's stage
 * and micro-batch (a published order's own numbering); what names the
 * case in a failure. */
static inline void expect_row_text(const struct schedule *sc, int d, const char *text,
				   void (*map)(int *stage, int *mb, const void *ctx),
				   const void *ctx, const char *what)
{
	char kind;
	int s, j, used, i = 0;
	while (sscanf(text, " %c%d.%d%n", &kind, &s, &j, &used) == 3) {
		text += used;
		int stage = s, mb = j;
		if (map)
			map(&stage, &mb, ctx);
		if (i >= sc->rows[d].len)
			fail_msg("%s device %d: the family stops at %d ops, expected %c%d.%d next",
				 what, d, i, kind, s, j);
		const struct op *o = &sc->rows[d].ops[i];
		if ((o->kind == OP_F) != (kind == 'F') || o->stage != stage || o->mb != mb) {
			char got[32];
			op_format(got, sizeof got, o->kind, o->stage, o->mb);
			fail_msg("%s device %d position %d: family %s, expected %c%d.%d (stage %d, micro-batch %d)",
				 what, d, i, got, kind, s, j, stage, mb);
		}
		i++;
	}
	if (i != sc->rows[d].len)
		fail_msg("%s device %d: the family runs %d ops, expected %d", what, d,
			 sc->rows[d].len, i);
}

#endif
