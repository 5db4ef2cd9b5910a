/*
 * Hand-drawn timelines and expected simulator errors, shared by the tests
 * of the simulator (test_sim) and of overlapped pairs (test_overlap).
 * Rows in test_schedules.h's notation ("F(0,0) F(0,1) +B(0,0)": a '+'
 * joins an op with the one before it as an overlapped pair). Include after
 * test_schedules.h.
 */
#ifndef PIPEOPT_TESTS_TIMELINE_H
#define PIPEOPT_TESTS_TIMELINE_H

#include <string.h>

#include "sched/sim.h"

struct op_time {
	const char *op;          /* "F(0,1)" */
	int64_t start, end;
};

struct timeline {
	const char *json;
	int devices;
	const char *rows[4];
	struct op_time ops[32];  /* every op of the instance */
	int64_t makespan, span, objective, busy;
	double bubble;
	int64_t peak[4];
	const char *name;        /* for messages; NULL: none */
};

/* Simulate t's rows on t's instance: every op's start and end, the
 * makespan, span, objective, busy time, bubble ratio and peaks as drawn. */
static inline void check_timeline(const struct timeline *t)
{
	const char *name = t->name ? t->name : "timeline";
	struct instance *in = parse_instance_ok(t->json);
	struct schedule *sc = make_schedule(t->devices, t->rows);
	struct sim *s = sim_new(in);
	struct sim_result r;
	struct error err = {{0}};
	assert_non_null(s);
	if (sim_run(s, sc, &r, &err))
		fail_msg("%s: sim_run failed: %s", name, err.msg);
	int n = 0;
	while (n < 32 && t->ops[n].op)
		n++;
	if (n != inst_nops(in))
		fail_msg("%s: the test names %d ops, the instance has %d", name, n, inst_nops(in));
	for (int i = 0; i < n; i++) {
		const char *p = t->ops[i].op;
		int k = 0, l = 0, j = 0;
		assert_true(parse_op(&p, &k, &l, &j));
		int id = inst_op_id(in, k, l, j);
		if (r.start[id] != t->ops[i].start || r.end[id] != t->ops[i].end)
			fail_msg("%s: %s: got [%lld, %lld), expected [%lld, %lld)", name,
				 t->ops[i].op, (long long)r.start[id], (long long)r.end[id],
				 (long long)t->ops[i].start, (long long)t->ops[i].end);
	}
	if (r.makespan != t->makespan || r.span != t->span || r.objective != t->objective ||
	    r.busy != t->busy)
		fail_msg("%s: makespan %lld span %lld objective %lld busy %lld, expected %lld %lld %lld %lld",
			 name, (long long)r.makespan, (long long)r.span, (long long)r.objective,
			 (long long)r.busy, (long long)t->makespan, (long long)t->span,
			 (long long)t->objective, (long long)t->busy);
	assert_double_near(r.bubble_ratio, t->bubble, 1e-12);
	for (int d = 0; d < t->devices; d++)
		assert_int_equal(r.peak_memory[d], t->peak[d]);
	sim_free(s);
	schedule_free(sc);
	instance_free(in);
}

/* Simulate (json, rows) expecting failure, with a one-line message, into
 * *err; without an error record it fails too. */
static inline void expect_sim_error(const char *json, int D, const char *const *rows,
				    struct error *err)
{
	struct instance *in = parse_instance_ok(json);
	struct schedule *sc = make_schedule(D, rows);
	struct sim *s = sim_new(in);
	assert_non_null(s);
	struct sim_result r;
	memset(err, 0, sizeof *err);
	assert_int_equal(sim_run(s, sc, &r, err), STATUS_ERROR);
	assert_true(err->msg[0] != '\0');
	if (strchr(err->msg, '\n'))
		fail_msg("message is not one line: %s", err->msg);
	assert_int_equal(sim_run(s, sc, &r, NULL), STATUS_ERROR);
	sim_free(s);
	schedule_free(sc);
	instance_free(in);
}

#endif
