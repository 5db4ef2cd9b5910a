/*
 * Schedules written by hand in tests: rows like "F(0,0) F(0,1) B(0,0)".
 * Include after test_helpers.h.
 */
#ifndef PIPEOPT_TEST_SCHEDULES_H
#define PIPEOPT_TEST_SCHEDULES_H

#include "sched/schedule.h"

/* Parse "F(1,2)" at *p; advances *p past it. Returns 0 when there is none. */
static inline int parse_op(const char **p, int *kind, int *stage, int *mb)
{
	char k;
	int n = 0;
	if (sscanf(*p, " %c(%d,%d)%n", &k, stage, mb, &n) != 3 || n == 0)
		return 0;
	*kind = k == 'F' ? OP_F : k == 'B' ? OP_B : k == 'W' ? OP_W : -1;
	if (*kind < 0)
		fail_msg("bad op kind '%c' in test data", k);
	*p += n;
	return 1;
}

/* Append ops written as "F(0,0) F(0,1) B(0,0)" to device d's order; a
 * '+' before an op joins it with the one before it as an overlapped pair
 * ("F(0,1) +B(0,0)", schedule_join_last); an 'r' right after an op marks
 * it recomputed ("B(0,0)r", op.recompute; meaningful on a B only, tests of
 * invalid marks put it on others on purpose). */
static inline void push_row(struct schedule *sc, int d, const char *text)
{
	int k, l, j;
	const char *p = text;
	for (;;) {
		while (*p == ' ')
			p++;
		bool join = *p == '+';
		if (join)
			p++;
		if (!parse_op(&p, &k, &l, &j))
			break;
		assert_int_equal(schedule_push(sc, d, k, l, j), STATUS_OK);
		if (join)
			assert_int_equal(schedule_join_last(sc, d), STATUS_OK);
		if (*p == 'r') {
			sc->rows[d].ops[sc->rows[d].len - 1].recompute = true;
			p++;
		}
	}
	if (*p)
		fail_msg("trailing text in test row: '%s'", p);
}

/* A schedule of D rows, given as op lists (NULL for an empty row). */
static inline struct schedule *make_schedule(int D, const char *const *rows)
{
	struct schedule *sc = schedule_new(D);
	assert_non_null(sc);
	for (int d = 0; d < D; d++)
		if (rows[d])
			push_row(sc, d, rows[d]);
	return sc;
}

#endif
