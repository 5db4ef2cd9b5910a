/*
 * The operator vocabulary and the CPU kernels (ops/):
 *  1. kernels against values worked by hand or from closed forms: a 2x3 by
 *     3x2 GEMM (plain, both transposed, padded rows, alpha and beta), GELU
 *     and GELU' at 0 and 1, row softmax (rows sum to 1; exact values on
 *     rows built from logarithms) and its backward, layer norm of [1, 2, 3]
 *     forward, input gradient and weight gradient;
 *  2. the kind table: each kind's shape count, lookups, unknown kinds, the
 *     shape check (count, range, heads), which kinds the profiler costs,
 *     the FLOPs and bytes of two kinds by hand;
 *  3. the layers each kind becomes in the executor.
 */
#include "test_helpers.h"

#include "ops/cpu_kernels.h"
#include "ops/op_kind.h"

/* ---- 1. kernels ------------------------------------------------------------------ */

/*
 * A = [1 2 3; 4 5 6], B = [7 8; 9 10; 11 12]:
 *   A B = [1*7+2*9+3*11  1*8+2*10+3*12; 4*7+5*9+6*11  4*8+5*10+6*12]
 *       = [58 64; 139 154].
 */
static void test_gemm_by_hand(void **state)
{
	const float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 8, 9, 10, 11, 12};
	const float At[6] = {1, 4, 2, 5, 3, 6}, Bt[6] = {7, 9, 11, 8, 10, 12};   /* A^T, B^T */
	const float want[4] = {58, 64, 139, 154};
	float C[4];
	cpu_gemm(false, false, 2, 2, 3, 1, A, 3, B, 2, 0, C, 2);
	for (int i = 0; i < 4; i++)
		assert_double_near(C[i], want[i], 0);
	/* op(A) = (A^T)^T, op(B) = (B^T)^T: the same product */
	memset(C, 0, sizeof C);
	cpu_gemm(true, true, 2, 2, 3, 1, At, 2, Bt, 3, 0, C, 2);
	for (int i = 0; i < 4; i++)
		assert_double_near(C[i], want[i], 0);
	/* A stored in rows of 4 (the 4th column is padding, never read) */
	const float Apad[8] = {1, 2, 3, 99, 4, 5, 6, 99};
	cpu_gemm_packed(false, false, 2, 2, 3, 1, A, B, 0, C);
	float D[4];
	cpu_gemm(false, false, 2, 2, 3, 1, Apad, 4, B, 2, 0, D, 2);
	for (int i = 0; i < 4; i++) {
		assert_double_near(C[i], want[i], 0);
		assert_double_near(D[i], want[i], 0);
	}
	/* C = 2 A B + 0.5 C with C = 1: 117 - 0.5 = 116.5, 128.5, 278.5, 308.5 */
	float E[4] = {1, 1, 1, 1};
	cpu_gemm_packed(false, false, 2, 2, 3, 2, A, B, 0.5f, E);
	const float want2[4] = {116.5f, 128.5f, 278.5f, 308.5f};
	for (int i = 0; i < 4; i++)
		assert_double_near(E[i], want2[i], 0);
	/* B^T A^T = (A B)^T = [58 139; 64 154], from the stored A and B */
	cpu_gemm_packed(true, true, 2, 2, 3, 1, B, A, 0, C);
	const float want3[4] = {58, 139, 64, 154};
	for (int i = 0; i < 4; i++)
		assert_double_near(C[i], want3[i], 0);
}

/* gelu(x) = x/2 (1 + tanh(c (x + a x^3))), c = sqrt(2/pi), a = 0.044715:
 * gelu(0) = 0; gelu(1) = (1 + tanh(c (1 + a))) / 2 = 0.84119...;
 * gelu'(0) = 1/2; gelu'(1) = (1 + t)/2 + (1 - t^2) c (1 + 3a) / 2. */
static void test_gelu_closed_form(void **state)
{
	double c = sqrt(2 / M_PI), a = 0.044715, t = tanh(c * (1 + a));
	const float x[2] = {0, 1}, one[2] = {1, 1};
	float y[2], d[2];
	cpu_gelu(x, y, 2);
	assert_double_near(y[0], 0, 0);
	assert_double_near(y[1], 0.5 * (1 + t), 1e-6);
	assert_double_near(y[1], 0.841192, 1e-6);
	cpu_gelu_grad(x, one, d, 2);
	assert_double_near(d[0], 0.5, 1e-7);
	assert_double_near(d[1], 0.5 * (1 + t) + 0.5 * (1 - t * t) * c * (1 + 3 * a), 1e-6);
	/* dx = dy gelu'(x), in place on dy */
	float dy[2] = {2, -3};
	cpu_gelu_grad(x, dy, dy, 2);
	assert_double_near(dy[0], 1.0, 1e-6);
	assert_double_near(dy[1], -3 * d[1], 1e-6);
}

/*
 * Rows: [1 2 3] (e^k / (e + e^2 + e^3)), [0 0] (1/2 each), and with scale
 * 2 the row [0, ln(2)/2] (exponents 0 and ln 2: 1/3, 2/3); [1000 1000]
 * (the max is subtracted: 1/2 each, no overflow).
 */
static void test_softmax_by_hand(void **state)
{
	float r1[3] = {1, 2, 3};
	double e = exp(1), s = e + e * e + e * e * e;
	cpu_softmax_rows(r1, 1, 3, 1);
	assert_double_near(r1[0], e / s, 1e-7);
	assert_double_near(r1[1], e * e / s, 1e-7);
	assert_double_near(r1[2], e * e * e / s, 1e-7);
	assert_double_near(r1[0], 0.0900306, 1e-6);
	assert_double_near(r1[2], 0.6652410, 1e-6);
	float two[6] = {0, 0, 0, (float)(log(2.0) / 2), 1000, 1000};
	cpu_softmax_rows(two, 3, 2, 1);   /* rows 0 and 2 at scale 1 */
	assert_double_near(two[0], 0.5, 1e-7);
	assert_double_near(two[1], 0.5, 1e-7);
	assert_double_near(two[4], 0.5, 1e-7);
	assert_double_near(two[5], 0.5, 1e-7);
	float sc[2] = {0, (float)(log(2.0) / 2)};
	cpu_softmax_rows(sc, 1, 2, 2);
	assert_double_near(sc[0], 1.0 / 3, 1e-7);
	assert_double_near(sc[1], 2.0 / 3, 1e-7);
	/* every row sums to 1 */
	float m[12];
	for (int i = 0; i < 12; i++)
		m[i] = (float)((i * 7) % 5) - 2.0f;
	cpu_softmax_rows(m, 3, 4, 0.7f);
	for (int r = 0; r < 3; r++)
		assert_double_near(m[r * 4] + m[r * 4 + 1] + m[r * 4 + 2] + m[r * 4 + 3], 1, 1e-6);
	/* backward: p = [1/2 1/2], d = [1 3]: rowsum(p d) = 2, d = [-1/2, 1/2] */
	const float p[2] = {0.5f, 0.5f};
	float d[2] = {1, 3};
	cpu_softmax_rows_backward(p, d, 1, 2);
	assert_double_near(d[0], -0.5, 0);
	assert_double_near(d[1], 0.5, 0);
}

/*
 * [1 2 3]: mean 2, variance (1 + 0 + 1) / 3 = 2/3, r = 1 / sqrt(2/3 + 1e-5),
 * xh = [-r, 0, r]; with g = [1 2 3], b = [0.5 0 -1]: y = [0.5 - r, 0, 3r - 1].
 * Backward with g = 1 and dy = [0 0 1]: t = dy, mean(t) = 1/3,
 * mean(t xh) = r/3, dx = r (t - 1/3 - xh r/3)
 *                     = r [r^2/3 - 1/3, -1/3, 2/3 - r^2/3].
 * Weights: dg += dy xh = [0 0 r], db += dy = [0 0 1].
 */
static void test_layernorm_by_hand(void **state)
{
	double r = 1 / sqrt(2.0 / 3 + 1e-5);
	const float x[3] = {1, 2, 3}, g[3] = {1, 2, 3}, b[3] = {0.5f, 0, -1};
	float y[3], xh[3], rr[1];
	cpu_layernorm_forward(x, y, 1, 3, g, b, xh, rr);
	assert_double_near(rr[0], r, 1e-6);
	assert_double_near(xh[0], -r, 1e-6);
	assert_double_near(xh[1], 0, 0);
	assert_double_near(xh[2], r, 1e-6);
	assert_double_near(y[0], 0.5 - r, 1e-6);
	assert_double_near(y[1], 0, 0);
	assert_double_near(y[2], 3 * r - 1, 1e-6);
	/* without gain and bias, in place: y = xh */
	float z[3] = {1, 2, 3};
	cpu_layernorm_forward(z, z, 1, 3, NULL, NULL, NULL, NULL);
	for (int k = 0; k < 3; k++)
		assert_double_near(z[k], xh[k], 0);
	const float ones[3] = {1, 1, 1}, dy[3] = {0, 0, 1};
	float dx[3];
	cpu_layernorm_backward(dy, dx, 1, 3, ones, xh, rr);
	assert_double_near(dx[0], r * (r * r / 3 - 1.0 / 3), 1e-5);
	assert_double_near(dx[1], -r / 3, 1e-6);
	assert_double_near(dx[2], r * (2.0 / 3 - r * r / 3), 1e-5);
	/* dy along the constant direction: the gradient is 0 */
	cpu_layernorm_backward(ones, dx, 1, 3, ones, xh, rr);
	for (int k = 0; k < 3; k++)
		assert_double_near(dx[k], 0, 1e-6);
	float dg[3] = {0, 0, 0}, db[3] = {0, 0, 0};
	cpu_layernorm_weight(dy, xh, 1, 3, dg, db);
	assert_double_near(dg[0], 0, 0);
	assert_double_near(dg[2], r, 1e-6);
	assert_double_near(db[2], 1, 0);
	assert_double_near(db[0], 0, 0);
}

/* ---- 2. the kind table ----------------------------------------------------------------- */

static void test_kind_table(void **state)
{
	static const struct {
		const char *name;
		int nshape;
		bool costed;
	} want[] = {
		{"input", 0, true}, {"concat", 0, true}, {"interaction", 0, true},
		{"linear", 2, true}, {"gelu", 1, true}, {"layernorm", 1, true},
		{"attention", 3, true}, {"transformer_layer", 4, true},
		{"embedding", 0, false}, {"embedding_bag", 3, true},
	};
	const int n = sizeof want / sizeof want[0];
	assert_int_equal(op_kind_count(), n);
	for (int i = 0; i < n; i++) {
		const struct op_kind_entry *k = op_kind_find(want[i].name);
		assert_non_null(k);
		assert_string_equal(k->name, want[i].name);
		assert_int_equal(k->nshape, want[i].nshape);
		assert_int_equal(k->work != NULL, want[i].costed);
		assert_ptr_equal(op_kind_at(k->id), k);
	}
	assert_int_equal(op_kind_find("attention")->heads, 2);
	assert_int_equal(op_kind_find("transformer_layer")->heads, 3);
	assert_int_equal(op_kind_find("linear")->heads, -1);
	assert_null(op_kind_find("conv3d"));
	assert_null(op_kind_find("Linear"));
	assert_null(op_kind_find(""));
	assert_null(op_kind_find(NULL));
	assert_null(op_kind_at(-1));
	assert_null(op_kind_at(n));
	char all[256], costed[256];
	op_kind_names(all, sizeof all, false);
	op_kind_names(costed, sizeof costed, true);
	assert_string_equal(all, "input, concat, interaction, linear, gelu, layernorm, attention, "
				 "transformer_layer, embedding, embedding_bag");
	assert_string_equal(costed, "input, concat, interaction, linear, gelu, layernorm, attention, "
				    "transformer_layer, embedding_bag");
	char small[8];
	assert_string_equal(op_kind_names(small, sizeof small, false), "input, ");
}

static void test_shape_check(void **state)
{
	static const struct {
		const char *kind;
		int nshape;
		double shape[4];
		const char *error;   /* NULL: accepted */
	} cases[] = {
		{"linear", 2, {64, 32}, NULL},
		{"linear", 1, {64}, "shape needs 2 numbers"},
		{"linear", 3, {64, 32, 1}, "shape needs 2 numbers"},
		{"linear", 2, {64, 0}, "shape[1] = 0 is out of range"},
		{"linear", 2, {1e8, 1}, NULL},
		{"linear", 2, {1e8 + 1, 1}, "shape[0] = 1e+08 is out of range"},
		{"linear", 2, {-3, 1}, "shape[0] = -3 is out of range"},
		{"attention", 3, {4, 12, 3}, NULL},
		{"attention", 3, {4, 10, 3}, "hidden 10 is not a multiple of the 3 heads"},
		{"transformer_layer", 4, {8, 16, 32, 2}, NULL},
		{"transformer_layer", 4, {8, 16, 32, 3}, "hidden 16 is not a multiple of the 3 heads"},
		{"transformer_layer", 3, {8, 16, 32}, "shape needs 4 numbers"},
		{"input", 0, {0}, NULL},
		{"concat", 2, {0, -1}, NULL},   /* no shape: numbers given are ignored */
		{"embedding", 0, {0}, NULL},
		{"embedding_bag", 3, {1000, 8, 4}, NULL},
		{"gelu", 1, {0.5}, "shape[0] = 0.5 is out of range"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct op_kind_entry *k = op_kind_find(cases[i].kind);
		struct error err = {{0}};
		assert_non_null(k);
		enum status st = op_kind_check(k, cases[i].nshape, cases[i].shape, &err);
		if (!cases[i].error) {
			if (st != STATUS_OK)
				fail_msg("case %zu (%s): refused: %s", i, cases[i].kind, err.msg);
			continue;
		}
		if (st != STATUS_ERROR)
			fail_msg("case %zu (%s): accepted, expected '%s'", i, cases[i].kind, cases[i].error);
		assert_contains(err.msg, cases[i].error);
		assert_contains(err.msg, cases[i].kind);
	}
}

/*
 * Work by hand: linear [64, 32] at q = 4: 2 * 4 * 64 * 32 = 16384 FLOPs,
 * 2 * 64 * 32 + 2 * 4 * 96 = 4864 bytes, each phase. transformer_layer
 * [8, 16, 32, 2] at q = 1: w = 4 * 16^2 + 2 * 16 * 32 = 2048; forward
 * 2 * 8 * 2048 + 4 * 64 * 16 = 36864 FLOPs, 2 * 2048 + 8 * 16 * 16 = 6144
 * bytes; input gradient 32768 + 8192 = 40960; weight gradient 32768 FLOPs,
 * 4096 + 1024 = 5120 bytes. gelu: no weight-gradient phase. input at q = 3
 * with 100 bytes out: 600 bytes forward and backward.
 */
static void test_work_by_hand(void **state)
{
	struct op_work w[3];
	const double lin[2] = {64, 32}, tf[4] = {8, 16, 32, 2}, ge[1] = {16};
	op_kind_find("linear")->work(lin, 0, 4, w);
	for (int p = 0; p < 3; p++) {
		assert_true(w[p].runs);
		assert_double_near(w[p].flops, 16384, 0);
		assert_double_near(w[p].bytes, 4864, 0);
	}
	op_kind_find("transformer_layer")->work(tf, 0, 1, w);
	assert_double_near(w[0].flops, 36864, 0);
	assert_double_near(w[0].bytes, 6144, 0);
	assert_double_near(w[1].flops, 40960, 0);
	assert_double_near(w[1].bytes, 6144, 0);
	assert_double_near(w[2].flops, 32768, 0);
	assert_double_near(w[2].bytes, 5120, 0);
	op_kind_find("gelu")->work(ge, 0, 2, w);
	assert_true(w[0].runs && w[1].runs);
	assert_false(w[2].runs);
	assert_double_near(w[0].flops, 320, 0);
	op_kind_find("input")->work(NULL, 100, 3, w);
	assert_double_near(w[0].flops, 0, 0);
	assert_double_near(w[0].bytes, 600, 0);
	assert_double_near(w[1].bytes, 600, 0);
	assert_false(w[2].runs);
}

/* ---- 3. the executor's layers -------------------------------------------------------- */

static void test_layers_of_kinds(void **state)
{
	const struct op_kind_entry *t = op_kind_find("transformer_layer");
	const enum layer_kind want[6] = {LAYER_LAYERNORM, LAYER_ATTENTION, LAYER_LAYERNORM,
					 LAYER_LINEAR, LAYER_GELU, LAYER_LINEAR};
	assert_int_equal(t->nlayers, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(t->layers[i], want[i]);
	static const struct {
		const char *kind;
		int n;
		enum layer_kind layer;
	} one[] = {
		{"linear", 1, LAYER_LINEAR}, {"gelu", 1, LAYER_GELU},
		{"layernorm", 1, LAYER_LAYERNORM}, {"attention", 1, LAYER_ATTENTION},
		{"embedding", 1, LAYER_LINEAR}, {"embedding_bag", 1, LAYER_LINEAR},
		{"interaction", 1, LAYER_LINEAR}, {"input", 0, LAYER_LINEAR},
		{"concat", 0, LAYER_LINEAR},
	};
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
		const struct op_kind_entry *k = op_kind_find(one[i].kind);
		assert_int_equal(k->nlayers, one[i].n);
		if (one[i].n)
			assert_int_equal(k->layers[0], one[i].layer);
	}
	assert_string_equal(layer_kind_name(LAYER_ATTENTION), "attention");
	assert_string_equal(layer_kind_name(LAYER_KINDS), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_by_hand),
		cmocka_unit_test(test_gelu_closed_form),
		cmocka_unit_test(test_softmax_by_hand),
		cmocka_unit_test(test_layernorm_by_hand),
		cmocka_unit_test(test_kind_table),
		cmocka_unit_test(test_shape_check),
		cmocka_unit_test(test_work_by_hand),
		cmocka_unit_test(test_layers_of_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
