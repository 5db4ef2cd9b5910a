/*
 * Hanayo's wave-like pipeline (Liu et al., SC'23, arXiv 2308.15762), as
 * reconstructed in datasets/schedules/hanayo.sched: the paper's text and
 * figures were not available and its authors published no code, so the
 * expected orders below are the two third-party reconstructions' own,
 * recorded by running them: SPCL's slot-filling Hanayo1F1BPipeline
 * (C-TC/Megatron-LM, cdc_scheduler/pp_generator/pipeline.py at 0d0e66c,
 * "the restricted zone as in the paper") and Inria Topal's closed form
 * (topal-team/elf, elf/scheduling/schedulers.py, generate_hanayo_schedule,
 * at 0f14508). At p = 4, m = 4 (Hanayo's basic unit) they agree op for
 * op, for one and two waves; at m = 8 only elf's is the family's. "F<s>.<j>"
 * is the forward of stage s of micro-batch j (stages of the V placement
 * with 2W chunks, S = 2Wp).
 *
 * Closed forms, chunk costs f <= b, comm 0 (measured on the reconstruction,
 * by pipeopt's simulator and by an independent unit-time simulator of
 * elf's orders; not the paper's, which were not available):
 *   makespan = 2Wm (f + b) + 2 (p - 1) b    (device load + 2(p-1) backwards)
 *   peak activations on device d = 2Wm - (p-1-d), for m >= p (memory F +1,
 *   B -1 per chunk): elf runs one long steady phase, so they grow with m.
 */
#include "test_helpers.h"
#include "family_helpers.h"

#include <stdio.h>
#include <string.h>

#include "sched/family.h"
#include "sched/schedule.h"
#include "sched/sim.h"

/* m = 4 = p, W = 1 and 2: SPCL's slot filling and elf's closed form agree */
static const char *const unit_w1[] = {
	"F0.0 F0.1 F0.2 F0.3 F7.0 B7.0 F7.1 B7.1 F7.2 B7.2 F7.3 B7.3 B0.0 "
	"B0.1 B0.2 B0.3",
	"F1.0 F1.1 F1.2 F6.0 F1.3 F6.1 B6.0 F6.2 B6.1 F6.3 B6.2 B1.0 B6.3 "
	"B1.1 B1.2 B1.3",
	"F2.0 F2.1 F5.0 F2.2 F5.1 F2.3 F5.2 B5.0 F5.3 B5.1 B2.0 B5.2 B2.1 "
	"B5.3 B2.2 B2.3",
	"F3.0 F4.0 F3.1 F4.1 F3.2 F4.2 F3.3 F4.3 B4.0 B3.0 B4.1 B3.1 B4.2 "
	"B3.2 B4.3 B3.3",
};

static const char *const unit_w2[] = {
	"F0.0 F0.1 F0.2 F0.3 F7.0 F8.0 F7.1 F8.1 F7.2 F8.2 F7.3 F8.3 F15.0 "
	"B15.0 F15.1 B15.1 F15.2 B15.2 F15.3 B15.3 B8.0 B7.0 B8.1 B7.1 B8.2 "
	"B7.2 B8.3 B7.3 B0.0 B0.1 B0.2 B0.3",
	"F1.0 F1.1 F1.2 F6.0 F1.3 F6.1 F9.0 F6.2 F9.1 F6.3 F9.2 F14.0 F9.3 "
	"F14.1 B14.0 F14.2 B14.1 F14.3 B14.2 B9.0 B14.3 B9.1 B6.0 B9.2 B6.1 "
	"B9.3 B6.2 B1.0 B6.3 B1.1 B1.2 B1.3",
	"F2.0 F2.1 F5.0 F2.2 F5.1 F2.3 F5.2 F10.0 F5.3 F10.1 F13.0 F10.2 "
	"F13.1 F10.3 F13.2 B13.0 F13.3 B13.1 B10.0 B13.2 B10.1 B13.3 B10.2 "
	"B5.0 B10.3 B5.1 B2.0 B5.2 B2.1 B5.3 B2.2 B2.3",
	"F3.0 F4.0 F3.1 F4.1 F3.2 F4.2 F3.3 F4.3 F11.0 F12.0 F11.1 F12.1 "
	"F11.2 F12.2 F11.3 F12.3 B12.0 B11.0 B12.1 B11.1 B12.2 B11.2 B12.3 "
	"B11.3 B4.0 B3.0 B4.1 B3.1 B4.2 B3.2 B4.3 B3.3",
};

/* m = 8, W = 1 and 2: elf's closed form */
static const char *const elf_m8_w1[] = {
	"F0.0 F0.1 F0.2 F0.3 F7.0 F0.4 F7.1 F0.5 F7.2 F0.6 F7.3 F0.7 F7.4 "
	"B7.0 F7.5 B7.1 F7.6 B7.2 F7.7 B7.3 B0.0 B7.4 B0.1 B7.5 B0.2 B7.6 "
	"B0.3 B7.7 B0.4 B0.5 B0.6 B0.7",
	"F1.0 F1.1 F1.2 F6.0 F1.3 F6.1 F1.4 F6.2 F1.5 F6.3 F1.6 F6.4 F1.7 "
	"F6.5 B6.0 F6.6 B6.1 F6.7 B6.2 B1.0 B6.3 B1.1 B6.4 B1.2 B6.5 B1.3 "
	"B6.6 B1.4 B6.7 B1.5 B1.6 B1.7",
	"F2.0 F2.1 F5.0 F2.2 F5.1 F2.3 F5.2 F2.4 F5.3 F2.5 F5.4 F2.6 F5.5 "
	"F2.7 F5.6 B5.0 F5.7 B5.1 B2.0 B5.2 B2.1 B5.3 B2.2 B5.4 B2.3 B5.5 "
	"B2.4 B5.6 B2.5 B5.7 B2.6 B2.7",
	"F3.0 F4.0 F3.1 F4.1 F3.2 F4.2 F3.3 F4.3 F3.4 F4.4 F3.5 F4.5 F3.6 "
	"F4.6 F3.7 F4.7 B4.0 B3.0 B4.1 B3.1 B4.2 B3.2 B4.3 B3.3 B4.4 B3.4 "
	"B4.5 B3.5 B4.6 B3.6 B4.7 B3.7",
};

static const char *const elf_m8_w2[] = {
	"F0.0 F0.1 F0.2 F0.3 F7.0 F0.4 F7.1 F0.5 F7.2 F0.6 F7.3 F0.7 F7.4 "
	"F8.0 F7.5 F8.1 F7.6 F8.2 F7.7 F8.3 F15.0 F8.4 F15.1 F8.5 F15.2 "
	"F8.6 F15.3 F8.7 F15.4 B15.0 F15.5 B15.1 F15.6 B15.2 F15.7 B15.3 "
	"B8.0 B15.4 B8.1 B15.5 B8.2 B15.6 B8.3 B15.7 B8.4 B7.0 B8.5 B7.1 "
	"B8.6 B7.2 B8.7 B7.3 B0.0 B7.4 B0.1 B7.5 B0.2 B7.6 B0.3 B7.7 B0.4 "
	"B0.5 B0.6 B0.7",
	"F1.0 F1.1 F1.2 F6.0 F1.3 F6.1 F1.4 F6.2 F1.5 F6.3 F1.6 F6.4 F1.7 "
	"F6.5 F9.0 F6.6 F9.1 F6.7 F9.2 F14.0 F9.3 F14.1 F9.4 F14.2 F9.5 "
	"F14.3 F9.6 F14.4 F9.7 F14.5 B14.0 F14.6 B14.1 F14.7 B14.2 B9.0 "
	"B14.3 B9.1 B14.4 B9.2 B14.5 B9.3 B14.6 B9.4 B14.7 B9.5 B6.0 B9.6 "
	"B6.1 B9.7 B6.2 B1.0 B6.3 B1.1 B6.4 B1.2 B6.5 B1.3 B6.6 B1.4 B6.7 "
	"B1.5 B1.6 B1.7",
	"F2.0 F2.1 F5.0 F2.2 F5.1 F2.3 F5.2 F2.4 F5.3 F2.5 F5.4 F2.6 F5.5 "
	"F2.7 F5.6 F10.0 F5.7 F10.1 F13.0 F10.2 F13.1 F10.3 F13.2 F10.4 "
	"F13.3 F10.5 F13.4 F10.6 F13.5 F10.7 F13.6 B13.0 F13.7 B13.1 B10.0 "
	"B13.2 B10.1 B13.3 B10.2 B13.4 B10.3 B13.5 B10.4 B13.6 B10.5 B13.7 "
	"B10.6 B5.0 B10.7 B5.1 B2.0 B5.2 B2.1 B5.3 B2.2 B5.4 B2.3 B5.5 B2.4 "
	"B5.6 B2.5 B5.7 B2.6 B2.7",
	"F3.0 F4.0 F3.1 F4.1 F3.2 F4.2 F3.3 F4.3 F3.4 F4.4 F3.5 F4.5 F3.6 "
	"F4.6 F3.7 F4.7 F11.0 F12.0 F11.1 F12.1 F11.2 F12.2 F11.3 F12.3 "
	"F11.4 F12.4 F11.5 F12.5 F11.6 F12.6 F11.7 F12.7 B12.0 B11.0 B12.1 "
	"B11.1 B12.2 B11.2 B12.3 B11.3 B12.4 B11.4 B12.5 B11.5 B12.6 B11.6 "
	"B12.7 B11.7 B4.0 B3.0 B4.1 B3.1 B4.2 B3.2 B4.3 B3.3 B4.4 B3.4 B4.5 "
	"B3.5 B4.6 B3.6 B4.7 B3.7",
};

static struct instance *wave_instance(int p, int m, int waves, int f, int b, const char *extra)
{
	char json[512];
	snprintf(json, sizeof json,
		 "{\"devices\":%d,\"microbatches\":%d,\"chunks\":%d,\"placement\":\"v\","
		 "\"cost\":{\"F\":%d,\"B\":%d},\"comm\":0%s}",
		 p, m, 2 * waves, f, b, extra);
	return parse_instance_ok(json);
}

static void expect_orders(int p, int m, int waves, const char *const *rows)
{
	struct instance *in = wave_instance(p, m, waves, 1, 2, "");
	struct schedule *sc = generate_ok("hanayo", in);
	char what[48];
	snprintf(what, sizeof what, "hanayo p=%d m=%d W=%d", p, m, waves);
	for (int d = 0; d < p; d++)
		expect_row_text(sc, d, rows[d], NULL, NULL, what);
	schedule_free(sc);
	instance_free(in);
}

static void test_reconstructions_op_for_op(void **state)
{
	(void)state;
	expect_orders(4, 4, 1, unit_w1);
	expect_orders(4, 4, 2, unit_w2);
	expect_orders(4, 8, 1, elf_m8_w1);
	expect_orders(4, 8, 2, elf_m8_w2);
}

static void test_makespan_closed_form(void **state)
{
	(void)state;
	static const int costs[][2] = {{1, 1}, {1, 2}, {2, 3}, {1, 3}, {3, 4}};
	int checked = 0;
	for (int p = 2; p <= 8; p++)
		for (int waves = 1; waves <= 3; waves++)
			for (int m = p; m <= 3 * p; m += p)
				for (size_t c = 0; c < sizeof costs / sizeof *costs; c++) {
					int f = costs[c][0], b = costs[c][1];
					struct instance *in = wave_instance(p, m, waves, f, b, "");
					struct schedule *sc = generate_ok("hanayo", in);
					struct sim *s = sim_new(in);
					struct sim_result r = run_ok(s, sc, "hanayo");
					int64_t want = 2LL * waves * m * (f + b) + 2LL * (p - 1) * b;
					if (r.makespan != want)
						fail_msg("hanayo p=%d W=%d m=%d f=%d b=%d: makespan %lld, closed form %lld",
							 p, waves, m, f, b, (long long)r.makespan,
							 (long long)want);
					checked++;
					sim_free(s);
					schedule_free(sc);
					instance_free(in);
				}
	assert_true(checked >= 300);
}

static void test_peak_activations(void **state)
{
	(void)state;
	for (int p = 2; p <= 8; p++)
		for (int waves = 1; waves <= 2; waves++)
			for (int m = p; m <= 2 * p; m += p) {
				struct instance *in = wave_instance(p, m, waves, 1, 2,
								    ",\"memory\":{\"F\":1,\"B\":-1}");
				struct schedule *sc = generate_ok("hanayo", in);
				struct sim *s = sim_new(in);
				struct sim_result r = run_ok(s, sc, "hanayo");
				for (int d = 0; d < p; d++)
					if (r.peak_memory[d] != 2 * waves * m - (p - 1 - d))
						fail_msg("hanayo p=%d W=%d m=%d device %d: peak %lld, expected %d",
							 p, waves, m, d, (long long)r.peak_memory[d],
							 2 * waves * m - (p - 1 - d));
				sim_free(s);
				schedule_free(sc);
				instance_free(in);
			}
}

static void test_refusals(void **state)
{
	(void)state;
	struct instance *in = parse_instance_ok("{\"devices\":2,\"microbatches\":4,\"chunks\":3,"
						"\"placement\":\"v\",\"cost\":{\"F\":1,\"B\":2}}");
	expect_family_refused("hanayo", in, "even number of chunks");
	instance_free(in);
	in = parse_instance_ok("{\"devices\":2,\"microbatches\":4,\"chunks\":2,"
			       "\"placement\":\"interleaved\",\"cost\":{\"F\":1,\"B\":2}}");
	expect_family_refused("hanayo", in, "V placement");
	instance_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reconstructions_op_for_op),
		cmocka_unit_test(test_makespan_closed_form),
		cmocka_unit_test(test_peak_activations),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
