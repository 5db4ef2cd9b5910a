/*
 * Tests for the executor's model (exec/model.c), the instance's "model" key
 * (sched/instance.c), the partition's model in the instance it writes
 * (partition/bridge.c) and the executor running it (exec/exec.c).
 *
 *  1. Gradients against central finite differences of the loss
 *     1/2 sum(y^2) (an independent method: only the forward is used), for
 *     each layer kind alone and for a transformer_layer, at tiny sizes with
 *     R != H. Each comparison is per weight block (W, or Wq, Wk, Wv, Wo, or
 *     g, b) and for the input gradient, and each is shown able to fail: the
 *     same check on the negated and, for a square block, the transposed
 *     analytic gradient must exceed the tolerance.
 *  2. Layer lists, weight and arena sizes by hand arithmetic.
 *  3. Errors: unknown kinds (exec_model_build), malformed "model" objects
 *     (instance_parse); each message names the key.
 *  4. exec_run with a model: exact gradients against the reference, peaks
 *     equal to the prediction, the model's layers reported.
 *  5. partition -> instance: "model.stages" lists every operator once, in
 *     its stage, in an order consistent with the graph's edges.
 */
#include "test_helpers.h"

#include <jansson.h>
#include <stdbool.h>

#include "exec/exec.h"
#include "exec/model.h"
#include "partition/bridge.h"
#include "graph/graph.h"
#include "partition/partition.h"
#include "sched/family.h"

/* ---- instances with a model ----------------------------------------------------- */

/* A one-stage instance (1 device, 1 micro-batch, split backward) whose
 * stage is the operator kinds given, named op0, op1, ... */
static struct instance *one_stage(const char *const *kinds, int n)
{
	json_t *ops = json_array();
	for (int i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "op%d", i);
		json_array_append_new(ops, json_pack("{s:s,s:s}", "name", name, "kind", kinds[i]));
	}
	json_t *j = json_pack("{s:s,s:i,s:i,s:{s:i,s:i,s:i},s:{s:s,s:[o]}}", "name", "one",
			      "devices", 1, "microbatches", 1, "cost", "F", 1, "B", 1, "W", 1,
			      "model", "graph", "g1", "stages", ops);
	assert_non_null(j);
	char *text = json_dumps(j, 0);
	json_decref(j);
	struct instance *in = parse_instance_ok(text);
	free(text);
	assert_non_null(in->model);
	return in;
}

static struct exec_model *build_ok(const struct instance *in, int H, int R)
{
	struct exec_model *m = NULL;
	struct error err = {{0}};
	if (exec_model_build(in, H, R, &m, &err))
		fail_msg("exec_model_build: %s", err.msg);
	assert_non_null(m);
	return m;
}

/* ---- 1. finite differences ---------------------------------------------------- */

struct fd {
	struct instance *in;
	struct exec_model *m;
	int H, R, n;
	size_t RH, nw;
	float *arena, *w, *x0;
	float *dw, *dx;          /* analytic: weight and input gradients */
	double *fw, *fx;         /* finite differences */
};

/* Deterministic, irregular values in about [-amp, amp]. */
static void wiggle(float *x, size_t n, double amp, double phase)
{
	for (size_t k = 0; k < n; k++)
		x[k] = (float)(amp * sin(0.37 * (double)(k * k) + 1.1 * k + phase));
}

/* The loss 1/2 sum(y^2) of the forward from x0 with the current weights,
 * in double from the float outputs. */
static double fd_loss(struct fd *f)
{
	memcpy(net_act(f->m, f->arena, 0), f->x0, f->RH * sizeof(float));
	net_forward(f->m, 0, f->w, f->arena);
	const float *y = net_act(f->m, f->arena, f->n);
	double L = 0;
	for (size_t k = 0; k < f->RH; k++)
		L += 0.5 * (double)y[k] * y[k];
	return L;
}

/* Central difference of the loss in *p (restored afterwards): the step is
 * the one float actually takes. */
static double fd_diff(struct fd *f, float *p, double eps)
{
	float v = *p, hi = (float)(v + eps), lo = (float)(v - eps);
	*p = hi;
	double Lp = fd_loss(f);
	*p = lo;
	double Lm = fd_loss(f);
	*p = v;
	return (Lp - Lm) / ((double)hi - (double)lo);
}

/*
 * Stage = kinds, width H, R rows; the weights from net_init_weights times
 * wscale (larger attention weights make a softmax far from uniform, so
 * that Wq and Wk matter). The arena starts as NaN everywhere: a kernel
 * that reads what it did not write shows as NaN.
 */
static void fd_setup(struct fd *f, const char *const *kinds, int nk, int H, int R, double wscale)
{
	memset(f, 0, sizeof *f);
	f->in = one_stage(kinds, nk);
	f->m = build_ok(f->in, H, R);
	f->H = H;
	f->R = R;
	f->n = f->m->st[0].n;
	f->RH = (size_t)R * H;
	f->nw = f->m->st[0].weights;
	f->arena = malloc(f->m->st[0].arena * sizeof(float));
	f->w = malloc((f->nw ? f->nw : 1) * sizeof(float));
	f->dw = calloc(f->nw ? f->nw : 1, sizeof(float));
	f->x0 = malloc(f->RH * sizeof(float));
	f->dx = malloc(f->RH * sizeof(float));
	f->fw = calloc(f->nw ? f->nw : 1, sizeof(double));
	f->fx = calloc(f->RH, sizeof(double));
	assert_true(f->arena && f->w && f->dw && f->x0 && f->dx && f->fw && f->fx);
	for (size_t k = 0; k < f->m->st[0].arena; k++)
		f->arena[k] = NAN;
	net_init_weights(f->m, 0, f->w);
	for (size_t k = 0; k < f->nw; k++)
		f->w[k] *= (float)wscale;
	wiggle(f->x0, f->RH, 0.9, 0.3);

	/* analytic: forward, grad[n] = y, backward, W into a zeroed dw */
	memcpy(net_act(f->m, f->arena, 0), f->x0, f->RH * sizeof(float));
	net_forward(f->m, 0, f->w, f->arena);
	memcpy(net_grad(f->m, 0, f->arena, f->n), net_act(f->m, f->arena, f->n),
	       f->RH * sizeof(float));
	net_backward(f->m, 0, f->w, f->arena);
	memcpy(f->dx, net_grad(f->m, 0, f->arena, 0), f->RH * sizeof(float));
	net_weight(f->m, 0, f->arena, f->dw);
	for (size_t k = 0; k < f->RH; k++)
		if (!isfinite(f->dx[k]))
			fail_msg("input gradient %zu is %g", k, f->dx[k]);
	for (size_t k = 0; k < f->nw; k++)
		if (!isfinite(f->dw[k]))
			fail_msg("weight gradient %zu is %g", k, f->dw[k]);

	/* finite differences (forward only) */
	double eps = 1e-2;
	for (size_t k = 0; k < f->nw; k++)
		f->fw[k] = fd_diff(f, &f->w[k], eps);
	for (size_t k = 0; k < f->RH; k++)
		f->fx[k] = fd_diff(f, &f->x0[k], eps);
}

static void fd_free(struct fd *f)
{
	free(f->arena);
	free(f->w);
	free(f->dw);
	free(f->x0);
	free(f->dx);
	free(f->fw);
	free(f->fx);
	exec_model_free(f->m);
	instance_free(f->in);
}

#define FD_TOL 2e-2

/* max |an' - fd| / max |fd| over a rows x cols block, where an' is the
 * analytic block, negated (sign < 0) or transposed (transpose). */
static double block_err(const float *an, const double *fd, int rows, int cols, double sign,
			bool transpose)
{
	double worst = 0, scale = 0;
	for (int i = 0; i < rows * cols; i++)
		scale = fabs(fd[i]) > scale ? fabs(fd[i]) : scale;
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++) {
			double a = sign * (transpose ? an[j * cols + i] : an[i * cols + j]);
			double e = fabs(a - fd[i * cols + j]);
			worst = e > worst ? e : worst;
		}
	return worst / (scale > 1e-6 ? scale : 1e-6);
}

/* The analytic block agrees with the finite differences, and the check
 * rejects its negation and (square, asymmetric blocks) its transpose. */
static void check_block(const char *what, const float *an, const double *fd, int rows, int cols)
{
	double scale = 0;
	for (int i = 0; i < rows * cols; i++)
		scale = fabs(fd[i]) > scale ? fabs(fd[i]) : scale;
	if (scale < 1e-3)
		fail_msg("%s: gradient too small to check (max %g): choose other data", what, scale);
	double e = block_err(an, fd, rows, cols, 1, false);
	if (getenv("FD_VERBOSE"))   /* the margins: FD_VERBOSE=1 test_exec_model */
		fprintf(stderr, "  %-28s max |fd| %-10.3g error %-10.3g negated %-8.3g transposed %.3g\n",
			what, scale, e, block_err(an, fd, rows, cols, -1, false),
			rows == cols ? block_err(an, fd, rows, cols, 1, true) : 0.0);
	if (e > FD_TOL) {
		for (int i = 0; i < rows * cols; i++)
			fprintf(stderr, "  %s[%d]: analytic %.6g, finite difference %.6g\n", what, i,
				an[i], fd[i]);
		fail_msg("%s: relative error %g against finite differences (tolerance %g)", what, e,
			 FD_TOL);
	}
	if (block_err(an, fd, rows, cols, -1, false) <= FD_TOL)
		fail_msg("%s: the check would not catch a wrong sign", what);
	if (rows == cols && rows > 1 && block_err(an, fd, rows, cols, 1, true) <= FD_TOL)
		fail_msg("%s: the check would not catch a transposed gradient", what);
}

/* Every weight block of the stage's layers, then the input gradient. */
static void check_all(struct fd *f)
{
	const struct stage_net *st = &f->m->st[0];
	int H = f->H;
	size_t HH = (size_t)H * H;
	char what[64];
	for (int i = 0; i < st->n; i++) {
		const float *an = f->dw + st->woff[i];
		const double *fd = f->fw + st->woff[i];
		const char *name = layer_kind_name(st->kind[i]);
		switch (st->kind[i]) {
		case LAYER_LINEAR:
			snprintf(what, sizeof what, "layer %d (%s) W", i, name);
			check_block(what, an, fd, H, H);
			break;
		case LAYER_LAYERNORM:
			snprintf(what, sizeof what, "layer %d (%s) gain", i, name);
			check_block(what, an, fd, 1, H);
			snprintf(what, sizeof what, "layer %d (%s) bias", i, name);
			check_block(what, an + H, fd + H, 1, H);
			break;
		case LAYER_ATTENTION:
			for (int b = 0; b < 4; b++) {
				snprintf(what, sizeof what, "layer %d (%s) W%c", i, name, "qkvo"[b]);
				check_block(what, an + b * HH, fd + b * HH, H, H);
			}
			break;
		default:
			break;
		}
	}
	check_block("input gradient", f->dx, f->fx, f->R, H);
}

static void fd_case(const char *const *kinds, int nk, int H, int R, double wscale)
{
	struct fd f;
	fd_setup(&f, kinds, nk, H, R, wscale);
	check_all(&f);
	fd_free(&f);
}

static void test_fd_linear(void **state)
{
	fd_case((const char *[]){"linear"}, 1, 5, 3, 1);
	fd_case((const char *[]){"linear"}, 1, 4, 5, 1);
}

static void test_fd_gelu(void **state)
{
	fd_case((const char *[]){"gelu"}, 1, 4, 3, 1);
	fd_case((const char *[]){"gelu"}, 1, 7, 5, 1);
}

static void test_fd_layernorm(void **state)
{
	fd_case((const char *[]){"layernorm"}, 1, 6, 4, 1);
	fd_case((const char *[]){"layernorm"}, 1, 4, 3, 1);
}

static void test_fd_attention(void **state)
{
	fd_case((const char *[]){"attention"}, 1, 4, 5, 3);
	fd_case((const char *[]){"attention"}, 1, 6, 3, 3);
}

/* A transformer layer (six layers) and a mixed stage around it. */
static void test_fd_transformer(void **state)
{
	fd_case((const char *[]){"transformer_layer"}, 1, 8, 4, 2);
	fd_case((const char *[]){"input", "linear", "transformer_layer", "concat", "gelu"}, 5, 6, 5,
		2);
}

/* net_weight accumulates (dw +=): twice from zero is twice once. */
static void test_weight_accumulates(void **state)
{
	struct fd f;
	fd_setup(&f, (const char *[]){"linear", "layernorm", "attention"}, 3, 4, 3, 2);
	float *twice = calloc(f.nw, sizeof(float));
	assert_non_null(twice);
	/* the finite differences re-ran the forward: the analytic pass again,
	 * then its W into a zeroed buffer must give the same gradients */
	memcpy(net_act(f.m, f.arena, 0), f.x0, f.RH * sizeof(float));
	net_forward(f.m, 0, f.w, f.arena);
	memcpy(net_grad(f.m, 0, f.arena, f.n), net_act(f.m, f.arena, f.n), f.RH * sizeof(float));
	net_backward(f.m, 0, f.w, f.arena);
	net_weight(f.m, 0, f.arena, twice);
	for (size_t k = 0; k < f.nw; k++)
		if (twice[k] != f.dw[k])
			fail_msg("weight gradient %zu: %g after the same pass, %g before", k,
				 twice[k], f.dw[k]);
	net_weight(f.m, 0, f.arena, twice);
	for (size_t k = 0; k < f.nw; k++)
		assert_double_near(twice[k], 2.0 * f.dw[k], 1e-6 * (1 + fabs(f.dw[k])));
	free(twice);
	fd_free(&f);
}

/* ---- 2. layers and sizes -------------------------------------------------------- */

static void test_layer_counts(void **state)
{
	const int H = 8, R = 3;
	struct instance *in = one_stage(
		(const char *[]){"input", "transformer_layer", "linear", "concat", "gelu"}, 5);
	struct exec_model *m = build_ok(in, H, R);
	const enum layer_kind want[] = {LAYER_LAYERNORM, LAYER_ATTENTION, LAYER_LAYERNORM,
					LAYER_LINEAR, LAYER_GELU, LAYER_LINEAR,
					LAYER_LINEAR, LAYER_GELU};
	const int n = 8;
	assert_int_equal(m->L, 1);
	assert_int_equal(m->H, H);
	assert_int_equal(m->R, R);
	assert_int_equal(m->st[0].n, n);
	for (int i = 0; i < n; i++)
		if (m->st[0].kind[i] != want[i])
			fail_msg("layer %d: %s, expected %s", i, layer_kind_name(m->st[0].kind[i]),
				 layer_kind_name(want[i]));
	assert_int_equal(m->layers[LAYER_LINEAR], 3);
	assert_int_equal(m->layers[LAYER_GELU], 2);
	assert_int_equal(m->layers[LAYER_LAYERNORM], 2);
	assert_int_equal(m->layers[LAYER_ATTENTION], 1);
	assert_non_null(m->graph);
	assert_string_equal(m->graph, "g1");
	/* weights: 3 linear H*H + 2 layernorm 2H + attention 4H*H
	 *   = 3*64 + 2*16 + 4*64 = 192 + 32 + 256 = 480 */
	assert_int_equal(m->st[0].weights, 480);
	/* arena: 2 (n + 1) R H = 2*9*24 = 432, + 2 layernorm (RH + R) = 2*27 = 54,
	 * + attention 8RH + 2RR = 192 + 18 = 210: 696 */
	assert_int_equal(m->st[0].arena, 696);
	/* offsets: weights in layer order, kept state after act and grad */
	/* weights: LN 16, attention 256, LN 16, linear 64, gelu 0, linear 64,
	 * linear 64, gelu 0, in layer order */
	size_t woff[8] = {0, 16, 272, 288, 352, 352, 416, 480};
	/* kept state after act[0..8] and grad[0..8] (432): LN 27, attention
	 * 210, LN 27, then nothing kept */
	size_t soff[8] = {432, 459, 669, 696, 696, 696, 696, 696};
	for (int i = 0; i < n; i++) {
		assert_int_equal(m->st[0].woff[i], woff[i]);
		assert_int_equal(m->st[0].soff[i], soff[i]);
	}
	/* net_act / net_grad: act[i] at i R H, grad[i] at (n + 1 + i) R H */
	float *base = malloc(m->st[0].arena * sizeof(float));
	assert_non_null(base);
	assert_ptr_equal(net_act(m, base, 3), base + 3 * 24);
	assert_ptr_equal(net_grad(m, 0, base, 0), base + 9 * 24);
	assert_ptr_equal(net_grad(m, 0, base, n), base + 17 * 24);
	free(base);
	exec_model_free(m);
	instance_free(in);

	/* embedding, embedding_bag, interaction: a linear each; input, concat:
	 * nothing (a stage of no layers: act[0] and grad[0] only) */
	in = one_stage((const char *[]){"embedding", "embedding_bag", "interaction"}, 3);
	m = build_ok(in, 4, 2);
	assert_int_equal(m->st[0].n, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(m->st[0].kind[i], LAYER_LINEAR);
	assert_int_equal(m->layers[LAYER_LINEAR], 3);
	assert_int_equal(m->st[0].weights, 3 * 16);
	assert_int_equal(m->st[0].arena, 2 * 4 * 8);
	exec_model_free(m);
	instance_free(in);
	in = one_stage((const char *[]){"input", "concat"}, 2);
	m = build_ok(in, 4, 2);
	assert_int_equal(m->st[0].n, 0);
	assert_int_equal(m->st[0].weights, 0);
	assert_int_equal(m->st[0].arena, 2 * 8);
	exec_model_free(m);
	instance_free(in);
}

/* Without "model": one linear + GELU per stage, no graph name. */
static void test_default_model(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":1}}");
	assert_null(in->model);
	struct exec_model *m = build_ok(in, 4, 2);
	assert_int_equal(m->L, 3);
	assert_null(m->graph);
	for (int l = 0; l < 3; l++) {
		assert_int_equal(m->st[l].n, 2);
		assert_int_equal(m->st[l].kind[0], LAYER_LINEAR);
		assert_int_equal(m->st[l].kind[1], LAYER_GELU);
		assert_int_equal(m->st[l].weights, 16);
		assert_int_equal(m->st[l].arena, 2 * 3 * 8);
	}
	assert_int_equal(m->layers[LAYER_LINEAR], 3);
	assert_int_equal(m->layers[LAYER_GELU], 3);
	assert_int_equal(m->layers[LAYER_LAYERNORM], 0);
	assert_int_equal(m->layers[LAYER_ATTENTION], 0);
	exec_model_free(m);
	instance_free(in);
}

/* ---- 3. errors ------------------------------------------------------------------- */

static void test_unknown_kind(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"name\":\"uk\",\"devices\":2,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1},"
		"\"model\":{\"graph\":\"g\",\"stages\":[[{\"name\":\"a\",\"kind\":\"linear\"}],"
		"[{\"name\":\"b\",\"kind\":\"gelu\"},{\"name\":\"vol\",\"kind\":\"conv3d\"}]]}}");
	struct exec_model *m = (struct exec_model *)1;
	struct error err = {{0}};
	assert_int_equal(exec_model_build(in, 4, 2, &m, &err), STATUS_ERROR);
	assert_null(m);
	check_error_message("conv3d", err.msg, "uk", "model.stages[1][1]", "'vol'");
	assert_contains(err.msg, "conv3d");
	instance_free(in);
}

struct parse_case {
	const char *name, *model, *where, *what;
};

static void test_parse_errors(void **state)
{
	static const struct parse_case cases[] = {
		{"model not an object", "[1]", "'model.json': model: ", "object, got a list"},
		{"model a string", "\"x\"", "'model.json': model: ", "object, got a string"},
		{"unknown key in model", "{\"stages\":[[],[]],\"extra\":1}", "model.extra", "unknown key"},
		{"graph not a string", "{\"graph\":3,\"stages\":[[],[]]}", "model.graph", "string"},
		{"stages missing", "{\"graph\":\"g\"}", "model.stages", "list"},
		{"stages not a list", "{\"stages\":{}}", "model.stages", "list"},
		{"stages too short", "{\"stages\":[[]]}", "model.stages", "1 entries for 2 stages"},
		{"stages too long", "{\"stages\":[[],[],[]]}", "model.stages", "3 entries for 2 stages"},
		{"stage not a list", "{\"stages\":[[],{}]}", "model.stages", "entry 1"},
		{"op not an object", "{\"stages\":[[],[\"linear\"]]}", "model.stages[1][0]", "object"},
		{"op without kind", "{\"stages\":[[],[{\"name\":\"a\"}]]}", "model.stages[1][0]",
		 "\"kind\""},
		{"op without name", "{\"stages\":[[{\"kind\":\"gelu\"}],[]]}", "model.stages[0][0]",
		 "\"name\""},
		{"name not a string",
		 "{\"stages\":[[{\"name\":\"a\",\"kind\":\"gelu\"},{\"name\":7,\"kind\":\"gelu\"}],[]]}",
		 "model.stages[0][1]", "\"name\" must be a string"},
		{"kind not a string", "{\"stages\":[[],[{\"name\":\"a\",\"kind\":null}]]}",
		 "model.stages[1][0]", "\"kind\" must be a string"},
		{"unknown key in op",
		 "{\"stages\":[[],[{\"name\":\"a\",\"kind\":\"gelu\",\"shape\":[1]}]]}",
		 "model.stages[1][0].shape", "unknown key"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[512];
		snprintf(text, sizeof text,
			 "{\"devices\":2,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1},\"model\":%s}",
			 cases[i].model);
		struct instance *in = NULL;
		struct error err = {{0}};
		if (instance_parse(text, "model.json", &in, &err) != STATUS_ERROR)
			fail_msg("case '%s': accepted", cases[i].name);
		assert_null(in);
		check_error_message(cases[i].name, err.msg, "model.json", cases[i].where,
				    cases[i].what);
	}
	/* accepted: empty stages, no graph name; the model is kept as read */
	struct instance *in = parse_instance_ok(
		"{\"devices\":2,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1},"
		"\"model\":{\"stages\":[[],[{\"name\":\"a\",\"kind\":\"anything\"}]]}}");
	assert_non_null(in->model);
	assert_int_equal(in->model->nstages, 2);
	/* not part of the problem: not in the canonical JSON */
	json_t *c = instance_canonical_json(in);
	assert_null(json_object_get(c, "model"));
	json_decref(c);
	instance_free(in);
}

/* ---- 4. exec_run with a model --------------------------------------------------- */

static struct exec_options small(void)
{
	struct exec_options o;
	exec_options_init(&o);
	o.hidden = 16;
	o.rows = 6;
	o.calibration_runs = 3;
	return o;
}

/* Run a family on the instance: exactly the reference's gradients, peaks
 * as predicted, the model's layer counts reported. */
static void run_model(const char *json, const char *family, const int layers[4], int *peaks)
{
	struct instance *in = parse_instance_ok(json);
	struct schedule *s = NULL;
	struct error err = {{0}};
	if (family_generate(family, in, &s, &err))
		fail_msg("%s: %s", family, err.msg);
	struct exec_options o = small();
	struct exec_result r;
	if (exec_run(in, s, &o, &r, &err))
		fail_msg("%s: %s", family, err.msg);
	if (r.grad_max_rel_err != 0)
		fail_msg("%s: gradient error %g, expected exactly 0", family, r.grad_max_rel_err);
	for (int d = 0; d < in->devices; d++) {
		if (r.peak_live[d] != r.predicted_peak[d])
			fail_msg("%s: device %d peak %d, predicted %d", family, d, r.peak_live[d],
				 r.predicted_peak[d]);
		if (peaks)
			peaks[d] = r.peak_live[d];
	}
	for (int k = 0; k < 4; k++)
		if (r.layers[k] != layers[k])
			fail_msg("%s: %d %s layers, expected %d", family, r.layers[k],
				 layer_kind_name(k), layers[k]);
	assert_string_equal(r.graph, "m");
	assert_int_equal(r.nevents, inst_nops(in));
	exec_result_release(&r);
	schedule_free(s);
	instance_free(in);
}

#define CHAIN_MODEL                                                                      \
	"\"model\":{\"graph\":\"m\",\"stages\":[[{\"name\":\"a\",\"kind\":\"linear\"},"      \
	"{\"name\":\"b\",\"kind\":\"layernorm\"}],[{\"name\":\"c\",\"kind\":\"attention\"}," \
	"{\"name\":\"d\",\"kind\":\"gelu\"},{\"name\":\"e\",\"kind\":\"linear\"}]]}"

static void test_exec_chain(void **state)
{
	const int layers[4] = {2, 1, 1, 1};   /* linear, gelu, layernorm, attention */
	const char *split = "{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":1,\"B\":1,\"W\":1},"
			    CHAIN_MODEL "}";
	const char *fused = "{\"devices\":2,\"microbatches\":4,\"cost\":{\"F\":1,\"B\":2},"
			    CHAIN_MODEL "}";
	int peaks[2];
	/* GPipe: all 4 forwards before any backward on device 0 */
	run_model(split, "gpipe", layers, peaks);
	assert_int_equal(peaks[0], 4);
	run_model(split, "1f1b", layers, NULL);
	/* fused 1F1B: p - d in flight on device d (2, 1) */
	run_model(fused, "1f1b", layers, peaks);
	assert_int_equal(peaks[0], 2);
	assert_int_equal(peaks[1], 1);
	run_model(fused, "gpipe", layers, peaks);
	assert_int_equal(peaks[0], 4);
	/* the V placement: 4 stages on 2 devices, a model per stage */
	run_model("{\"devices\":2,\"microbatches\":4,\"chunks\":2,\"placement\":\"v\","
		  "\"cost\":{\"F\":1,\"B\":1,\"W\":1},\"model\":{\"graph\":\"m\",\"stages\":["
		  "[{\"name\":\"a\",\"kind\":\"embedding\"}],"
		  "[{\"name\":\"b\",\"kind\":\"transformer_layer\"}],"
		  "[{\"name\":\"c\",\"kind\":\"transformer_layer\"}],"
		  "[{\"name\":\"d\",\"kind\":\"layernorm\"},{\"name\":\"e\",\"kind\":\"linear\"}]]}}",
		  "zb-v", (const int[4]){6, 2, 5, 2}, NULL);
}

/* A diamond 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3 on 4 devices, a model per
 * stage; stage 2 has no layers (a concat alone: its output is its input). */
static void test_exec_dag(void **state)
{
	const char *json =
		"{\"devices\":4,\"microbatches\":3,\"edges\":[[0,1],[0,2],[1,3],[2,3]],"
		"\"cost\":{\"F\":1,\"B\":1,\"W\":1},\"model\":{\"graph\":\"m\",\"stages\":["
		"[{\"name\":\"in\",\"kind\":\"input\"},{\"name\":\"emb\",\"kind\":\"embedding\"}],"
		"[{\"name\":\"t0\",\"kind\":\"transformer_layer\"}],"
		"[{\"name\":\"cat\",\"kind\":\"concat\"}],"
		"[{\"name\":\"ln\",\"kind\":\"layernorm\"},{\"name\":\"g\",\"kind\":\"gelu\"},"
		"{\"name\":\"out\",\"kind\":\"linear\"}]]}}";
	/* linear: emb 1 + transformer 2 + out 1 = 4; gelu: 1 + 1 = 2;
	 * layernorm: 2 + 1 = 3; attention: 1 */
	const int layers[4] = {4, 2, 3, 1};
	run_model(json, "1f1b-dag", layers, NULL);
	/* the same with every stage holding layers */
	const char *full =
		"{\"devices\":4,\"microbatches\":3,\"edges\":[[0,1],[0,2],[1,3],[2,3]],"
		"\"cost\":{\"F\":1,\"B\":1,\"W\":1},\"model\":{\"graph\":\"m\",\"stages\":["
		"[{\"name\":\"a\",\"kind\":\"linear\"}],"
		"[{\"name\":\"b\",\"kind\":\"attention\"},{\"name\":\"c\",\"kind\":\"gelu\"}],"
		"[{\"name\":\"d\",\"kind\":\"layernorm\"}],"
		"[{\"name\":\"e\",\"kind\":\"interaction\"},{\"name\":\"f\",\"kind\":\"gelu\"}]]}}";
	run_model(full, "1f1b-dag", (const int[4]){2, 2, 1, 1}, NULL);
}

/* The executor builds the model: an unknown kind fails the run, naming
 * the operator. */
static void test_exec_unknown_kind(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"name\":\"bad\",\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":1,\"W\":1},"
		"\"model\":{\"stages\":[[{\"name\":\"a\",\"kind\":\"linear\"}],"
		"[{\"name\":\"vox\",\"kind\":\"conv3d\"}]]}}");
	struct schedule *s = NULL;
	struct error err = {{0}};
	assert_int_equal(family_generate("1f1b", in, &s, &err), STATUS_OK);
	struct exec_options o = small();
	struct exec_result r;
	assert_int_equal(exec_run(in, s, &o, &r, &err), STATUS_ERROR);
	check_error_message("exec conv3d", err.msg, "bad", "model.stages[1][0]", "'vox'");
	assert_contains(err.msg, "conv3d");
	schedule_free(s);
	instance_free(in);
}

/* ---- 5. partition -> instance ----------------------------------------------------- */

/* Checks the "model" of the instance written for partition p of g. */
static void check_partition_model(const struct graph *g, const struct partition *p,
				  const char *label)
{
	struct instance *typed = NULL;
	struct error terr = {{0}};
	if (partition_instance(g, p, label, &typed, &terr))
		fail_msg("%s: partition_instance: %s", label, terr.msg);
	json_t *j = instance_to_json(typed);
	instance_free(typed);
	assert_non_null(j);
	json_t *model = json_object_get(j, "model");
	assert_non_null(model);
	assert_string_equal(json_string_value(json_object_get(model, "graph")), g->name);
	json_t *stages = json_object_get(model, "stages");
	assert_true(json_is_array(stages));
	assert_int_equal(json_array_size(stages), p->nstages);
	int *stage = malloc(g->nops * sizeof *stage), *pos = malloc(g->nops * sizeof *pos);
	assert_true(stage && pos);
	for (int v = 0; v < g->nops; v++)
		stage[v] = -1;
	int total = 0;
	for (int s = 0; s < p->nstages; s++) {
		json_t *ops = json_array_get(stages, s);
		assert_true(json_is_array(ops));
		assert_int_equal(json_array_size(ops), p->stages[s].nops);
		for (size_t i = 0; i < json_array_size(ops); i++) {
			json_t *op = json_array_get(ops, i);
			const char *name = json_string_value(json_object_get(op, "name"));
			const char *kind = json_string_value(json_object_get(op, "kind"));
			assert_non_null(name);
			assert_non_null(kind);
			int v = graph_find(g, name);
			if (v < 0)
				fail_msg("%s: stage %d lists unknown operator '%s'", label, s, name);
			if (stage[v] >= 0)
				fail_msg("%s: operator '%s' listed twice (stages %d and %d)", label,
					 name, stage[v], s);
			assert_string_equal(kind, g->ops[v].kind);
			/* in the partition's stage s */
			bool in_stage = false;
			for (int k = 0; k < p->stages[s].nops; k++)
				in_stage |= p->stages[s].ops[k] == v;
			if (!in_stage)
				fail_msg("%s: '%s' listed in stage %d, not its stage", label, name, s);
			stage[v] = s;
			pos[v] = (int)i;
			total++;
		}
	}
	assert_int_equal(total, g->nops);
	for (int v = 0; v < g->nops; v++)
		if (stage[v] < 0)
			fail_msg("%s: operator '%s' in no stage", label, g->ops[v].name);
	/* within a stage, every edge's source before its target */
	for (int e = 0; e < g->nedges; e++) {
		int a = g->edges[e][0], b = g->edges[e][1];
		if (stage[a] == stage[b] && pos[a] >= pos[b])
			fail_msg("%s: stage %d lists '%s' (at %d) after its successor '%s' (at %d)",
				 label, stage[a], g->ops[a].name, pos[a], g->ops[b].name, pos[b]);
	}
	free(stage);
	free(pos);

	/* the instance parser accepts it and keeps the model; the executor
	 * builds it: layers by kind, counted from the graph */
	char *text = json_dumps(j, 0);
	json_decref(j);
	assert_non_null(text);
	struct instance *in = NULL;
	struct error err = {{0}};
	if (instance_parse(text, label, &in, &err))
		fail_msg("%s: instance rejected: %s", label, err.msg);
	free(text);
	assert_non_null(in->model);
	int want[4] = {0};
	for (int v = 0; v < g->nops; v++) {
		const char *k = g->ops[v].kind;
		if (!strcmp(k, "linear") || !strcmp(k, "embedding") || !strcmp(k, "embedding_bag") ||
		    !strcmp(k, "interaction"))
			want[LAYER_LINEAR]++;
		else if (!strcmp(k, "gelu"))
			want[LAYER_GELU]++;
		else if (!strcmp(k, "layernorm"))
			want[LAYER_LAYERNORM]++;
		else if (!strcmp(k, "attention"))
			want[LAYER_ATTENTION]++;
		else if (!strcmp(k, "transformer_layer")) {
			want[LAYER_LINEAR] += 2;
			want[LAYER_GELU]++;
			want[LAYER_LAYERNORM] += 2;
			want[LAYER_ATTENTION]++;
		} else if (strcmp(k, "input") && strcmp(k, "concat")) {
			fail_msg("%s: kind '%s' not expected in the test graphs", label, k);
		}
	}
	struct exec_model *m = build_ok(in, 4, 2);
	for (int k = 0; k < 4; k++)
		if (m->layers[k] != want[k])
			fail_msg("%s: %d %s layers, expected %d", label, m->layers[k],
				 layer_kind_name(k), want[k]);
	exec_model_free(m);
	instance_free(in);
}

static void partition_and_check(const struct graph *g, int devices, bool sequential,
				const char *label, int min_stages)
{
	struct partition_options o = {.devices = devices, .sequential = sequential};
	struct partition p;
	struct error err = {{0}};
	if (partition_dp(g, &o, &p, &err))
		fail_msg("%s: %s", label, err.msg);
	if (p.nstages < min_stages)
		fail_msg("%s: %d stages, expected at least %d", label, p.nstages, min_stages);
	check_partition_model(g, &p, label);
	partition_release(&p);
}

/*
 * A small graph whose operators are listed in reverse topological order
 * (so an order by index is wrong): in -> ln -> att -> {ff1, ff2} -> cat ->
 * out, with ff1 -> g1 -> cat. One size, batch 4: no data parallelism (size
 * 1 would be needed), and equal costs make splitting pay.
 */
static const char small_graph[] =
	"{\"name\":\"rev\",\"batch\":4,\"microbatch_sizes\":[2],"
	"\"machine\":{\"devices\":4,\"memory_bytes\":1e12,\"link_latency_us\":0,"
	"\"link_bandwidth\":1e9},"
	"\"ops\":["
	"{\"name\":\"out\",\"kind\":\"linear\",\"fwd\":10,\"bwd\":10},"
	"{\"name\":\"cat\",\"kind\":\"concat\",\"fwd\":1,\"bwd\":1},"
	"{\"name\":\"g1\",\"kind\":\"gelu\",\"fwd\":10,\"bwd\":10},"
	"{\"name\":\"ff2\",\"kind\":\"linear\",\"fwd\":10,\"bwd\":10},"
	"{\"name\":\"ff1\",\"kind\":\"linear\",\"fwd\":10,\"bwd\":10},"
	"{\"name\":\"att\",\"kind\":\"attention\",\"fwd\":10,\"bwd\":10},"
	"{\"name\":\"ln\",\"kind\":\"layernorm\",\"fwd\":10,\"bwd\":10},"
	"{\"name\":\"in\",\"kind\":\"input\",\"fwd\":1,\"bwd\":1}],"
	"\"edges\":[[\"in\",\"ln\"],[\"ln\",\"att\"],[\"att\",\"ff1\"],[\"att\",\"ff2\"],"
	"[\"ff1\",\"g1\"],[\"g1\",\"cat\"],[\"ff2\",\"cat\"],[\"cat\",\"out\"]]}";

static void test_partition_model_small(void **state)
{
	struct graph *g = NULL;
	struct error err = {{0}};
	if (graph_parse(small_graph, "rev.json", &g, &err))
		fail_msg("%s", err.msg);
	partition_and_check(g, 1, false, "rev/1", 1);   /* one stage: all 8 in order */
	partition_and_check(g, 1, true, "rev/1/seq", 1);
	partition_and_check(g, 4, false, "rev/4", 2);
	partition_and_check(g, 4, true, "rev/4/seq", 2);
	partition_and_check(g, 2, true, "rev/2/seq", 1);
	graph_free(g);
}

static void test_partition_model_datasets(void **state)
{
	static const char *const graphs[] = {"candle-uno-a100", "dlrm-a100", "mmt-a100",
					     "gpt-1.5b-a100"};
	for (size_t i = 0; i < sizeof graphs / sizeof *graphs; i++) {
		char path[512], label[128];
		snprintf(path, sizeof path, "%s/datasets/graphs/%s.json", PIPEOPT_SOURCE_DIR,
			 graphs[i]);
		struct graph *g = NULL;
		struct error err = {{0}};
		if (graph_read(path, &g, &err))
			fail_msg("%s", err.msg);
		snprintf(label, sizeof label, "%s/4", graphs[i]);
		partition_and_check(g, 4, false, label, 1);
		snprintf(label, sizeof label, "%s/4/seq", graphs[i]);
		partition_and_check(g, 4, true, label, 1);
		graph_free(g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fd_linear),
		cmocka_unit_test(test_fd_gelu),
		cmocka_unit_test(test_fd_layernorm),
		cmocka_unit_test(test_fd_attention),
		cmocka_unit_test(test_fd_transformer),
		cmocka_unit_test(test_weight_accumulates),
		cmocka_unit_test(test_layer_counts),
		cmocka_unit_test(test_default_model),
		cmocka_unit_test(test_unknown_kind),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_exec_chain),
		cmocka_unit_test(test_exec_dag),
		cmocka_unit_test(test_exec_unknown_kind),
		cmocka_unit_test(test_partition_model_small),
		cmocka_unit_test(test_partition_model_datasets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
