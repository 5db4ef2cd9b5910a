/*
 * The threaded executor (exec/): gradients against the single-thread
 * reference, live activations against the order, refusal of invalid
 * schedules, the watchdog. Timing is reported, not asserted (a benchmark's
 * business on a shared machine).
 */
#include "test_helpers.h"

#include "exec/exec.h"
#include "sched/family.h"
#include "test_schedules.h"

static struct exec_options small(void)
{
	struct exec_options o;
	exec_options_init(&o);
	o.hidden = 32;
	o.rows = 8;
	o.calibration_runs = 3;
	return o;
}

static void run_family(const char *json, const char *family, int *peaks_out)
{
	struct instance *in = parse_instance_ok(json);
	struct schedule *s = NULL;
	struct error err;
	if (family_generate(family, in, &s, &err))
		fail_msg("%s", err.msg);
	struct exec_options o = small();
	struct exec_result r;
	if (exec_run(in, s, &o, &r, &err))
		fail_msg("%s: %s", family, err.msg);
	/* same FIFO accumulation order as the reference: exactly equal */
	if (r.grad_max_rel_err > 1e-5)
		fail_msg("%s: gradient error %g", family, r.grad_max_rel_err);
	for (int d = 0; d < in->devices; d++) {
		if (r.peak_live[d] != r.predicted_peak[d])
			fail_msg("%s: device %d peak %d, predicted %d", family, d, r.peak_live[d],
				 r.predicted_peak[d]);
		if (peaks_out)
			peaks_out[d] = r.peak_live[d];
	}
	assert_true(r.measured_makespan_s > 0 && r.predicted_makespan_s > 0);
	assert_int_equal(r.nevents, inst_nops(in));
	exec_result_release(&r);
	schedule_free(s);
	instance_free(in);
}

#define TWO_SPLIT "{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":1,\"B\":1,\"W\":1}}"
#define TWO_FUSED "{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":1,\"B\":2}}"

/* 2 stages, 4 micro-batches: GPipe runs all forwards first, so device 0
 * holds all 4; 1F1B holds p - d on device d (2 and 1). */
static void test_families_two_stages(void **state)
{
	int peaks[2];
	run_family(TWO_SPLIT, "gpipe", peaks);
	assert_int_equal(peaks[0], 4);
	run_family(TWO_FUSED, "1f1b", peaks);
	assert_int_equal(peaks[0], 2);
	assert_int_equal(peaks[1], 1);
	run_family(TWO_SPLIT, "1f1b", NULL);
	run_family(TWO_SPLIT, "zb-h1", NULL);
	run_family(TWO_SPLIT, "zb-auto", NULL);
}

/* A stage DAG (a diamond of 4 stages on 4 devices) and the V placement. */
static void test_dag_and_v(void **state)
{
	run_family("{\"devices\":4,\"microbatches\":3,"
		   "\"edges\":[[0,1],[0,2],[1,3],[2,3]],\"cost\":{\"F\":1,\"B\":1,\"W\":1}}",
		   "1f1b-dag", NULL);
	run_family("{\"devices\":2,\"microbatches\":4,\"chunks\":2,\"placement\":\"v\","
		   "\"cost\":{\"F\":1,\"B\":1,\"W\":1}}", "zb-v", NULL);
}

/* A hand schedule where device 0 runs a W before... a valid non-family
 * order with W deferred to the very end: gradients still exact. */
static void test_deferred_w(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":1,\"W\":1}}");
	const char *rows[2] = {"F(0,0) F(0,1) B(0,0) B(0,1) W(0,0) W(0,1)",
			       "F(1,0) B(1,0) F(1,1) B(1,1) W(1,0) W(1,1)"};
	struct schedule *s = make_schedule(2, rows);
	struct exec_options o = small();
	struct exec_result r;
	struct error err;
	if (exec_run(in, s, &o, &r, &err))
		fail_msg("%s", err.msg);
	assert_true(r.grad_max_rel_err <= 1e-5);
	/* by hand: device 0 holds F0, F1 until the W's: 2; device 1: F0, B0
	 * (no W yet), F1: 2 */
	assert_int_equal(r.peak_live[0], 2);
	assert_int_equal(r.peak_live[1], 2);
	exec_result_release(&r);
	schedule_free(s);
	instance_free(in);
}

static void test_refuses_invalid(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\":2,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1}}");
	const char *rows[2] = {"B(0,0) F(0,0)", "F(1,0) B(1,0)"};
	struct schedule *s = make_schedule(2, rows);
	struct exec_options o = small();
	struct exec_result r;
	struct error err;
	assert_int_equal(exec_run(in, s, &o, &r, &err), STATUS_ERROR);
	assert_contains(err.msg, "refused");
	assert_contains(err.msg, "deadlock");
	assert_null(strchr(err.msg, '\n'));
	schedule_free(s);
	const char *missing[2] = {"F(0,0)", "F(1,0) B(1,0)"};
	s = make_schedule(2, missing);
	assert_int_equal(exec_run(in, s, &o, &r, &err), STATUS_ERROR);
	assert_contains(err.msg, "missing");
	schedule_free(s);
	instance_free(in);
}

/* A watchdog shorter than one forward: a device waits longer than
 * allowed, and the run fails naming it and the op instead of hanging.
 * Usually device 1, waiting for F(0,0); on a loaded machine its thread
 * may start after F(0,0) arrived, and then device 0, waiting for the
 * backward, is the one (seen once under ctest -j2). */
static void test_watchdog(void **state)
{
	struct instance *in = parse_instance_ok(TWO_FUSED);
	struct schedule *s = NULL;
	struct error err;
	assert_int_equal(family_generate("1f1b", in, &s, &err), STATUS_OK);
	struct exec_options o = small();
	o.hidden = 512;
	o.rows = 512;          /* a forward takes milliseconds */
	o.watchdog = 1e-4;
	struct exec_result r;
	assert_int_equal(exec_run(in, s, &o, &r, &err), STATUS_ERROR);
	assert_contains(err.msg, "watchdog");
	assert_true(strstr(err.msg, "device 1 waited") || strstr(err.msg, "device 0 waited"));
	assert_contains(err.msg, "to run ");
	schedule_free(s);
	instance_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families_two_stages),
		cmocka_unit_test(test_dag_and_v),
		cmocka_unit_test(test_deferred_w),
		cmocka_unit_test(test_refuses_invalid),
		cmocka_unit_test(test_watchdog),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
