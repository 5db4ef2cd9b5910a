/*
 * BitPipe (Wu et al., arXiv 2410.19367; the authors' wuhouming/BitPipe,
 * megatron/core/pipeline_parallel/bitpipe_schedule.py at 6fb0e22): two
 * copies of the model in opposite directions, each cut V-shaped into 2p
 * chunks, four chunks per device (datasets/schedules/bitpipe.sched).
 *
 * The expected orders below are the authors' code's own: its schedule
 * function and p2p module were run unmodified under mocked torch and
 * Megatron objects, one thread per rank, and the order of its forward and
 * backward steps recorded (p = 4 with BitPipe's m = 4, its README figure's
 * basic unit, and 8; p = 6, m = 12; p = 8, m = 16). They are written in
 * the code's terms: "F<s>.<j>" is the forward of stage s (0 .. 2p-1,
 * within one copy) of the code's micro-batch j, which goes down when
 * j mod p < p/2 and up otherwise; the instance's micro-batch is the j's
 * index within its direction, (j div p) p/2 + j mod p/2, and an up stage s
 * is the instance's stage 2p + s.
 *
 * The makespan's closed form, comm 0, chunk costs f and b (fused):
 *     4m (f + b) + (p - 2) (min(f, b) + (2m / p) |b - f|)
 * (m the instance's, per direction): measured on the code's recorded
 * orders by an independent unit-time list scheduler for p = 2 .. 8 and
 * five cost pairs; the paper's own formulas were not available. At p = 4,
 * m = 4, f = 1, b = 2: 48 + 2 (1 + 2) = 54. The peak of activations in
 * flight (forwards whose backward has not run) on device d is
 * 3p/2 + 1 + min(d, p-1-d), whatever m, from the same recorded orders.
 */
#include "test_helpers.h"
#include "family_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/family.h"
#include "sched/schedule.h"
#include "sched/sim.h"

/* p = 4, BitPipe's m = 4 (the instance's m = 2) */
static const char *const code_p4_m4[] = {
	"F0.0 F0.1 F3.2 F4.2 F3.3 F4.3 F7.0 B7.0 F7.1 B7.1 B4.2 B3.2 B4.3 "
	"B3.3 B0.0 B0.1",
	"F1.0 F2.2 F1.1 F2.3 F5.2 F6.0 F5.3 F6.1 B6.0 B5.2 B6.1 B5.3 B2.2 "
	"B1.0 B2.3 B1.1",
	"F1.2 F2.0 F1.3 F2.1 F5.0 F6.2 F5.1 F6.3 B6.2 B5.0 B6.3 B5.1 B2.0 "
	"B1.2 B2.1 B1.3",
	"F0.2 F0.3 F3.0 F4.0 F3.1 F4.1 F7.2 B7.2 F7.3 B7.3 B4.0 B3.0 B4.1 "
	"B3.1 B0.2 B0.3",
};

/* p = 4, BitPipe's m = 8 (the instance's m = 4) */
static const char *const code_p4_m8[] = {
	"F0.0 F0.1 F3.2 F4.2 F3.3 F4.3 F7.0 B7.0 F7.1 B7.1 B4.2 B3.2 B4.3 "
	"B3.3 B0.0 F0.4 B0.1 F0.5 F3.6 F4.6 F3.7 F4.7 F7.4 B7.4 F7.5 B7.5 "
	"B4.6 B3.6 B4.7 B3.7 B0.4 B0.5",
	"F1.0 F2.2 F1.1 F2.3 F5.2 F6.0 F5.3 F6.1 B6.0 B5.2 B6.1 B5.3 B2.2 "
	"B1.0 B2.3 B1.1 F1.4 F2.6 F1.5 F2.7 F5.6 F6.4 F5.7 F6.5 B6.4 B5.6 "
	"B6.5 B5.7 B2.6 B1.4 B2.7 B1.5",
	"F1.2 F2.0 F1.3 F2.1 F5.0 F6.2 F5.1 F6.3 B6.2 B5.0 B6.3 B5.1 B2.0 "
	"B1.2 B2.1 B1.3 F1.6 F2.4 F1.7 F2.5 F5.4 F6.6 F5.5 F6.7 B6.6 B5.4 "
	"B6.7 B5.5 B2.4 B1.6 B2.5 B1.7",
	"F0.2 F0.3 F3.0 F4.0 F3.1 F4.1 F7.2 B7.2 F7.3 B7.3 B4.0 B3.0 B4.1 "
	"B3.1 B0.2 F0.6 B0.3 F0.7 F3.4 F4.4 F3.5 F4.5 F7.6 B7.6 F7.7 B7.7 "
	"B4.4 B3.4 B4.5 B3.5 B0.6 B0.7",
};

/* p = 6, BitPipe's m = 12 (the instance's m = 6) */
static const char *const code_p6_m12[] = {
	"F0.0 F0.1 F0.2 F5.3 F6.3 F5.4 F6.4 F5.5 F6.5 F11.0 B11.0 F11.1 "
	"B11.1 F11.2 B11.2 B6.3 B5.3 B6.4 B5.4 B6.5 B5.5 B0.0 F0.6 B0.1 "
	"F0.7 B0.2 F0.8 F5.9 F6.9 F5.10 F6.10 F5.11 F6.11 F11.6 B11.6 F11.7 "
	"B11.7 F11.8 B11.8 B6.9 B5.9 B6.10 B5.10 B6.11 B5.11 B0.6 B0.7 B0.8",
	"F1.0 F1.1 F4.3 F1.2 F4.4 F7.3 F4.5 F7.4 F10.0 F7.5 F10.1 B10.0 "
	"F10.2 B10.1 B7.3 B10.2 B7.4 B4.3 B7.5 B4.4 B1.0 B4.5 B1.1 F1.6 "
	"B1.2 F1.7 F4.9 F1.8 F4.10 F7.9 F4.11 F7.10 F10.6 F7.11 F10.7 B10.6 "
	"F10.8 B10.7 B7.9 B10.8 B7.10 B4.9 B7.11 B4.10 B1.6 B4.11 B1.7 B1.8",
	"F2.0 F3.3 F2.1 F3.4 F2.2 F3.5 F8.3 F9.0 F8.4 F9.1 F8.5 F9.2 B9.0 "
	"B8.3 B9.1 B8.4 B9.2 B8.5 B3.3 B2.0 B3.4 B2.1 B3.5 B2.2 F2.6 F3.9 "
	"F2.7 F3.10 F2.8 F3.11 F8.9 F9.6 F8.10 F9.7 F8.11 F9.8 B9.6 B8.9 "
	"B9.7 B8.10 B9.8 B8.11 B3.9 B2.6 B3.10 B2.7 B3.11 B2.8",
	"F2.3 F3.0 F2.4 F3.1 F2.5 F3.2 F8.0 F9.3 F8.1 F9.4 F8.2 F9.5 B9.3 "
	"B8.0 B9.4 B8.1 B9.5 B8.2 B3.0 B2.3 B3.1 B2.4 B3.2 B2.5 F2.9 F3.6 "
	"F2.10 F3.7 F2.11 F3.8 F8.6 F9.9 F8.7 F9.10 F8.8 F9.11 B9.9 B8.6 "
	"B9.10 B8.7 B9.11 B8.8 B3.6 B2.9 B3.7 B2.10 B3.8 B2.11",
	"F1.3 F1.4 F4.0 F1.5 F4.1 F7.0 F4.2 F7.1 F10.3 F7.2 F10.4 B10.3 "
	"F10.5 B10.4 B7.0 B10.5 B7.1 B4.0 B7.2 B4.1 B1.3 B4.2 B1.4 F1.9 "
	"B1.5 F1.10 F4.6 F1.11 F4.7 F7.6 F4.8 F7.7 F10.9 F7.8 F10.10 B10.9 "
	"F10.11 B10.10 B7.6 B10.11 B7.7 B4.6 B7.8 B4.7 B1.9 B4.8 B1.10 "
	"B1.11",
	"F0.3 F0.4 F0.5 F5.0 F6.0 F5.1 F6.1 F5.2 F6.2 F11.3 B11.3 F11.4 "
	"B11.4 F11.5 B11.5 B6.0 B5.0 B6.1 B5.1 B6.2 B5.2 B0.3 F0.9 B0.4 "
	"F0.10 B0.5 F0.11 F5.6 F6.6 F5.7 F6.7 F5.8 F6.8 F11.9 B11.9 F11.10 "
	"B11.10 F11.11 B11.11 B6.6 B5.6 B6.7 B5.7 B6.8 B5.8 B0.9 B0.10 "
	"B0.11",
};

/* p = 8, BitPipe's m = 16 (the instance's m = 8) */
static const char *const code_p8_m16[] = {
	"F0.0 F0.1 F0.2 F0.3 F7.4 F8.4 F7.5 F8.5 F7.6 F8.6 F7.7 F8.7 F15.0 "
	"B15.0 F15.1 B15.1 F15.2 B15.2 F15.3 B15.3 B8.4 B7.4 B8.5 B7.5 B8.6 "
	"B7.6 B8.7 B7.7 B0.0 F0.8 B0.1 F0.9 B0.2 F0.10 B0.3 F0.11 F7.12 "
	"F8.12 F7.13 F8.13 F7.14 F8.14 F7.15 F8.15 F15.8 B15.8 F15.9 B15.9 "
	"F15.10 B15.10 F15.11 B15.11 B8.12 B7.12 B8.13 B7.13 B8.14 B7.14 "
	"B8.15 B7.15 B0.8 B0.9 B0.10 B0.11",
	"F1.0 F1.1 F1.2 F6.4 F1.3 F6.5 F9.4 F6.6 F9.5 F6.7 F9.6 F14.0 F9.7 "
	"F14.1 B14.0 F14.2 B14.1 F14.3 B14.2 B9.4 B14.3 B9.5 B6.4 B9.6 B6.5 "
	"B9.7 B6.6 B1.0 B6.7 B1.1 F1.8 B1.2 F1.9 B1.3 F1.10 F6.12 F1.11 "
	"F6.13 F9.12 F6.14 F9.13 F6.15 F9.14 F14.8 F9.15 F14.9 B14.8 F14.10 "
	"B14.9 F14.11 B14.10 B9.12 B14.11 B9.13 B6.12 B9.14 B6.13 B9.15 "
	"B6.14 B1.8 B6.15 B1.9 B1.10 B1.11",
	"F2.0 F2.1 F5.4 F2.2 F5.5 F2.3 F5.6 F10.4 F5.7 F10.5 F13.0 F10.6 "
	"F13.1 F10.7 F13.2 B13.0 F13.3 B13.1 B10.4 B13.2 B10.5 B13.3 B10.6 "
	"B5.4 B10.7 B5.5 B2.0 B5.6 B2.1 B5.7 B2.2 F2.8 B2.3 F2.9 F5.12 "
	"F2.10 F5.13 F2.11 F5.14 F10.12 F5.15 F10.13 F13.8 F10.14 F13.9 "
	"F10.15 F13.10 B13.8 F13.11 B13.9 B10.12 B13.10 B10.13 B13.11 "
	"B10.14 B5.12 B10.15 B5.13 B2.8 B5.14 B2.9 B5.15 B2.10 B2.11",
	"F3.0 F4.4 F3.1 F4.5 F3.2 F4.6 F3.3 F4.7 F11.4 F12.0 F11.5 F12.1 "
	"F11.6 F12.2 F11.7 F12.3 B12.0 B11.4 B12.1 B11.5 B12.2 B11.6 B12.3 "
	"B11.7 B4.4 B3.0 B4.5 B3.1 B4.6 B3.2 B4.7 B3.3 F3.8 F4.12 F3.9 "
	"F4.13 F3.10 F4.14 F3.11 F4.15 F11.12 F12.8 F11.13 F12.9 F11.14 "
	"F12.10 F11.15 F12.11 B12.8 B11.12 B12.9 B11.13 B12.10 B11.14 "
	"B12.11 B11.15 B4.12 B3.8 B4.13 B3.9 B4.14 B3.10 B4.15 B3.11",
	"F3.4 F4.0 F3.5 F4.1 F3.6 F4.2 F3.7 F4.3 F11.0 F12.4 F11.1 F12.5 "
	"F11.2 F12.6 F11.3 F12.7 B12.4 B11.0 B12.5 B11.1 B12.6 B11.2 B12.7 "
	"B11.3 B4.0 B3.4 B4.1 B3.5 B4.2 B3.6 B4.3 B3.7 F3.12 F4.8 F3.13 "
	"F4.9 F3.14 F4.10 F3.15 F4.11 F11.8 F12.12 F11.9 F12.13 F11.10 "
	"F12.14 F11.11 F12.15 B12.12 B11.8 B12.13 B11.9 B12.14 B11.10 "
	"B12.15 B11.11 B4.8 B3.12 B4.9 B3.13 B4.10 B3.14 B4.11 B3.15",
	"F2.4 F2.5 F5.0 F2.6 F5.1 F2.7 F5.2 F10.0 F5.3 F10.1 F13.4 F10.2 "
	"F13.5 F10.3 F13.6 B13.4 F13.7 B13.5 B10.0 B13.6 B10.1 B13.7 B10.2 "
	"B5.0 B10.3 B5.1 B2.4 B5.2 B2.5 B5.3 B2.6 F2.12 B2.7 F2.13 F5.8 "
	"F2.14 F5.9 F2.15 F5.10 F10.8 F5.11 F10.9 F13.12 F10.10 F13.13 "
	"F10.11 F13.14 B13.12 F13.15 B13.13 B10.8 B13.14 B10.9 B13.15 "
	"B10.10 B5.8 B10.11 B5.9 B2.12 B5.10 B2.13 B5.11 B2.14 B2.15",
	"F1.4 F1.5 F1.6 F6.0 F1.7 F6.1 F9.0 F6.2 F9.1 F6.3 F9.2 F14.4 F9.3 "
	"F14.5 B14.4 F14.6 B14.5 F14.7 B14.6 B9.0 B14.7 B9.1 B6.0 B9.2 B6.1 "
	"B9.3 B6.2 B1.4 B6.3 B1.5 F1.12 B1.6 F1.13 B1.7 F1.14 F6.8 F1.15 "
	"F6.9 F9.8 F6.10 F9.9 F6.11 F9.10 F14.12 F9.11 F14.13 B14.12 F14.14 "
	"B14.13 F14.15 B14.14 B9.8 B14.15 B9.9 B6.8 B9.10 B6.9 B9.11 B6.10 "
	"B1.12 B6.11 B1.13 B1.14 B1.15",
	"F0.4 F0.5 F0.6 F0.7 F7.0 F8.0 F7.1 F8.1 F7.2 F8.2 F7.3 F8.3 F15.4 "
	"B15.4 F15.5 B15.5 F15.6 B15.6 F15.7 B15.7 B8.0 B7.0 B8.1 B7.1 B8.2 "
	"B7.2 B8.3 B7.3 B0.4 F0.12 B0.5 F0.13 B0.6 F0.14 B0.7 F0.15 F7.8 "
	"F8.8 F7.9 F8.9 F7.10 F8.10 F7.11 F8.11 F15.12 B15.12 F15.13 B15.13 "
	"F15.14 B15.14 F15.15 B15.15 B8.8 B7.8 B8.9 B7.9 B8.10 B7.10 B8.11 "
	"B7.11 B0.12 B0.13 B0.14 B0.15",
};

/* The BitPipe instance: the down copy's stage s on device s (s < p) or
 * 2p-1-s, the up copy's (stage 2p+s) on device p-1-s or s-p. */
static struct instance *bitpipe_instance(int p, int m, int f, int b, int w, const char *extra)
{
	char json[8192];
	int k = snprintf(json, sizeof json, "{\"devices\":%d,\"microbatches\":%d,\"placement\":[", p, m);
	for (int s = 0; s < 4 * p; s++) {
		int c = s % (2 * p), d = s < 2 * p ? (c < p ? c : 2 * p - 1 - c)
						  : (c < p ? p - 1 - c : c - p);
		k += snprintf(json + k, sizeof json - k, "%s%d", s ? "," : "", d);
	}
	k += snprintf(json + k, sizeof json - k, "],\"edges\":[");
	for (int s = 0, n = 0; s < 4 * p - 1; s++)
		if (s != 2 * p - 1)
			k += snprintf(json + k, sizeof json - k, "%s[%d,%d]", n++ ? "," : "", s, s + 1);
	k += snprintf(json + k, sizeof json - k, "],\"cost\":{\"F\":%d,\"B\":%d", f, b);
	if (w >= 0)
		k += snprintf(json + k, sizeof json - k, ",\"W\":%d", w);
	snprintf(json + k, sizeof json - k, "}%s}", extra);
	return parse_instance_ok(json);
}

/* The code's (stage within a copy, code micro-batch) to the instance's:
 * j goes up when j mod p >= p/2, as the instance's micro-batch
 * (j div p) p/2 + j mod p/2, and an up stage s is stage 2p + s. */
static void code_to_instance(int *stage, int *mb, const void *ctx)
{
	int p = *(const int *)ctx, h = p / 2, j = *mb;
	if (j % p >= h)
		*stage += 2 * p;
	*mb = (j / p) * h + j % h;
}

static void expect_code(int p, int code_m, const char *const *rows)
{
	struct instance *in = bitpipe_instance(p, code_m / 2, 1, 2, -1, "");
	struct schedule *sc = generate_ok("bitpipe", in);
	char what[32];
	snprintf(what, sizeof what, "bitpipe p=%d", p);
	for (int d = 0; d < p; d++)
		expect_row_text(sc, d, rows[d], code_to_instance, &p, what);
	schedule_free(sc);
	instance_free(in);
}

static void test_code_orders(void **state)
{
	(void)state;
	expect_code(4, 4, code_p4_m4);
	expect_code(4, 8, code_p4_m8);
	expect_code(6, 12, code_p6_m12);
	expect_code(8, 16, code_p8_m16);
}

/* A split backward: each W right after its B, the rest unchanged. */
static void test_split_backward(void **state)
{
	(void)state;
	struct instance *fused = bitpipe_instance(4, 4, 1, 2, -1, "");
	struct instance *split = bitpipe_instance(4, 4, 1, 1, 1, "");
	struct schedule *a = generate_ok("bitpipe", fused), *b = generate_ok("bitpipe", split);
	for (int d = 0; d < 4; d++) {
		assert_int_equal(b->rows[d].len, a->rows[d].len + a->rows[d].len / 2);   /* a W per B */
		for (int i = 0, k = 0; i < a->rows[d].len; i++, k++) {
			const struct op *x = &a->rows[d].ops[i], *y = &b->rows[d].ops[k];
			assert_true(x->kind == y->kind && x->stage == y->stage && x->mb == y->mb);
			if (x->kind == OP_B) {
				y = &b->rows[d].ops[++k];
				assert_true(y->kind == OP_W && y->stage == x->stage && y->mb == x->mb);
			}
		}
	}
	schedule_free(a);
	schedule_free(b);
	instance_free(fused);
	instance_free(split);
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static void test_makespan_closed_form(void **state)
{
	(void)state;
	static const int costs[][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 3}, {3, 5}};
	int checked = 0;
	for (int p = 2; p <= 8; p += 2)
		for (int m = p / 2; m <= 3 * p; m += p / 2)
			for (size_t c = 0; c < sizeof costs / sizeof *costs; c++) {
				int64_t f = costs[c][0], b = costs[c][1];
				struct instance *in = bitpipe_instance(p, m, (int)f, (int)b, -1, "");
				struct schedule *sc = generate_ok("bitpipe", in);
				struct sim *s = sim_new(in);
				struct sim_result r = run_ok(s, sc, "bitpipe");
				int64_t want = 4 * m * (f + b) +
					       (p - 2) * (min64(f, b) + (2 * m / p) * llabs(b - f));
				if (r.makespan != want)
					fail_msg("bitpipe p=%d m=%d f=%lld b=%lld: makespan %lld, closed form %lld",
						 p, m, (long long)f, (long long)b,
						 (long long)r.makespan, (long long)want);
				checked++;
				sim_free(s);
				schedule_free(sc);
				instance_free(in);
			}
	assert_true(checked >= 100);
}

static void test_peak_activations(void **state)
{
	(void)state;
	for (int p = 2; p <= 8; p += 2)
		for (int m = p / 2; m <= 4 * p; m += p / 2) {
			struct instance *in = bitpipe_instance(p, m, 1, 2, -1,
							       ",\"memory\":{\"F\":1,\"B\":-1}");
			struct schedule *sc = generate_ok("bitpipe", in);
			struct sim *s = sim_new(in);
			struct sim_result r = run_ok(s, sc, "bitpipe");
			for (int d = 0; d < p; d++) {
				int x = d < p - 1 - d ? d : p - 1 - d;
				int want = 3 * p / 2 + 1 + x;   /* <= 2p <= 4m: the warm-up fits */
				if (r.peak_memory[d] != want)
					fail_msg("bitpipe p=%d m=%d device %d: peak %lld, expected %d", p, m,
						 d, (long long)r.peak_memory[d], want);
			}
			sim_free(s);
			schedule_free(sc);
			instance_free(in);
		}
}

static void test_refusals(void **state)
{
	(void)state;
	struct instance *in = bitpipe_instance(4, 3, 1, 2, -1, "");
	expect_family_refused("bitpipe", in, "a multiple of p");
	instance_free(in);
	in = parse_instance_ok("{\"devices\":3,\"microbatches\":3,\"placement\":[0,1,2,2,1,0,2,1,0,0,1,2],"
			       "\"edges\":[[0,1],[1,2],[2,3],[3,4],[4,5],[6,7],[7,8],[8,9],[9,10],[10,11]],"
			       "\"cost\":{\"F\":1,\"B\":2}}");
	expect_family_refused("bitpipe", in, "even number of devices");
	instance_free(in);
	in = parse_instance_ok("{\"devices\":2,\"microbatches\":2,\"chunks\":4,\"placement\":\"v\","
			       "\"cost\":{\"F\":1,\"B\":2}}");
	expect_family_refused("bitpipe", in, "two chains");
	instance_free(in);
	/* two chains, but the V placement's order of chunks, not BitPipe's */
	in = parse_instance_ok("{\"devices\":2,\"microbatches\":2,\"chunks\":4,\"placement\":\"v\","
			       "\"edges\":[[0,1],[1,2],[2,3],[4,5],[5,6],[6,7]],\"cost\":{\"F\":1,\"B\":2}}");
	expect_family_refused("bitpipe", in, "BitPipe's placement");
	instance_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_code_orders),
		cmocka_unit_test(test_split_backward),
		cmocka_unit_test(test_makespan_closed_form),
		cmocka_unit_test(test_peak_activations),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
