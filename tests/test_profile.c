/*
 * The profiler's plumbing (profile/): the analytic source against hand
 * arithmetic, the CPU source's measurements and extrapolation marks, the
 * kernels on small shapes (under the sanitizers: bounds), cost tables
 * written and read back (graph/costs.c), and the errors.
 */
#include "test_helpers.h"

#include <jansson.h>
#include <unistd.h>

#include "graph/graph.h"
#include "profile/profile.h"

/* Ops: a linear 64 -> 32, a transformer layer (s 8, h 16, f 32, 2 heads),
 * an embedding bag (1000 rows, dim 8, bag 4), layernorm 16, gelu 16, an
 * input and a concat; sizes 1, 2, 4. */
static const char *graph_json =
	"{\"name\":\"kinds\",\"batch\":8,\"microbatch_sizes\":[1,2,4],"
	"\"machine\":{\"devices\":2,\"memory_bytes\":1e9,\"link_latency_us\":1,\"link_bandwidth\":100},"
	"\"ops\":["
	"{\"name\":\"in\",\"kind\":\"input\",\"fwd\":1,\"bwd\":1,\"out_bytes\":256},"
	"{\"name\":\"lin\",\"kind\":\"linear\",\"shape\":[64,32],\"fwd\":1,\"bwd\":1},"
	"{\"name\":\"tf\",\"kind\":\"transformer_layer\",\"shape\":[8,16,32,2],\"fwd\":1,\"bwd\":1},"
	"{\"name\":\"emb\",\"kind\":\"embedding_bag\",\"shape\":[1000,8,4],\"fwd\":1,\"bwd\":1},"
	"{\"name\":\"ln\",\"kind\":\"layernorm\",\"shape\":[16],\"fwd\":1,\"bwd\":1},"
	"{\"name\":\"ge\",\"kind\":\"gelu\",\"shape\":[16],\"fwd\":1,\"bwd\":1},"
	"{\"name\":\"cat\",\"kind\":\"concat\",\"fwd\":1,\"bwd\":1,\"out_bytes\":512}],"
	"\"edges\":[[\"in\",\"lin\"],[\"lin\",\"tf\"],[\"tf\",\"emb\"],[\"emb\",\"ln\"],"
	"[\"ln\",\"ge\"],[\"ge\",\"cat\"]]}";

static struct graph *kinds_graph(void)
{
	struct graph *g = NULL;
	struct error err;
	if (graph_parse(graph_json, "kinds.json", &g, &err))
		fail_msg("%s", err.msg);
	return g;
}

/*
 * A100 (312 TFLOP/s, 2.04 TB/s, efficiency 0.5, +5 us), linear 64 -> 32 at
 * q = 4: flops 2 * 4 * 64 * 32 = 16384 -> 16384 / 156e12 s = 1.05e-7 us *
 * 1e6... = 0.000105 us; bytes 2 * 64 * 32 + 2 * 4 * 96 = 4096 + 768 = 4864
 * -> 4864 / 2.04e12 s = 0.0023843 us; max + 5 = 5.0023843 us, for all
 * three phases.
 */
static void test_analytic_by_hand(void **state)
{
	struct graph *g = kinds_graph();
	const struct device_rates *d = profile_device("a100");
	assert_non_null(d);
	struct op_cost c;
	struct error err;
	assert_int_equal(profile_analytic(g, 1, 4, d, &c, &err), STATUS_OK);
	assert_double_near(c.fwd, 5 + 4864 / 2.04e12 * 1e6, 1e-9);
	assert_double_near(c.bwd, c.fwd, 0);
	assert_double_near(c.wgrad, c.fwd, 0);
	assert_false(c.measured);
	/* gelu 16 at q = 2: flops 10 * 2 * 16 = 320, bytes 4 * 2 * 16 = 128:
	 * 128 / 2.04e12 s = 6.27e-5 us > 320 / 156e12 s; wgrad 0 */
	assert_int_equal(profile_analytic(g, 5, 2, d, &c, &err), STATUS_OK);
	assert_double_near(c.fwd, 5 + 128 / 2.04e12 * 1e6, 1e-9);
	assert_double_near(c.wgrad, 0, 0);
	assert_null(profile_device("tpu"));
	graph_free(g);
}

static void test_analytic_errors(void **state)
{
	struct graph *g = NULL;
	struct error err;
	const char *bad =
		"{\"name\":\"b\",\"batch\":4,\"microbatch_sizes\":[1],"
		"\"machine\":{\"devices\":1,\"memory_bytes\":1e9,\"link_latency_us\":1,\"link_bandwidth\":100},"
		"\"ops\":[{\"name\":\"x\",\"kind\":\"conv3d\",\"fwd\":1,\"bwd\":1},"
		"{\"name\":\"y\",\"kind\":\"linear\",\"shape\":[4],\"fwd\":1,\"bwd\":1}]}";
	assert_int_equal(graph_parse(bad, "b.json", &g, &err), STATUS_OK);
	struct op_cost c;
	assert_int_equal(profile_analytic(g, 0, 1, profile_device("v100"), &c, &err), STATUS_ERROR);
	assert_contains(err.msg, "'x'");
	assert_contains(err.msg, "conv3d");
	assert_int_equal(profile_analytic(g, 1, 1, profile_device("v100"), &c, &err), STATUS_ERROR);
	assert_contains(err.msg, "'y'");
	assert_contains(err.msg, "shape needs 2");
	struct profile_options o = {.source = "cpu", .warmup = 0, .repeats = 1, .max_seconds = 1};
	assert_int_equal(profile_cpu(g, 0, 1, &o, &c, &err), STATUS_ERROR);
	assert_contains(err.msg, "conv3d");
	o = (struct profile_options){.source = "analytic", .device = "tpu"};
	json_t *t = NULL;
	assert_int_equal(profile_graph(g, &o, &t, &err), STATUS_ERROR);
	assert_null(t);
	assert_contains(err.msg, "tpu");
	graph_free(g);
}

/* One check of kinds and shapes for every source: an attention of hidden
 * 10 over 3 heads and a linear with a 0 dimension are refused alike by
 * the analytic, CPU and CUDA sources (CUDA: before the library is even
 * loaded, so also on a machine without a GPU or a CUDA build). */
static void test_shape_checked_by_every_source(void **state)
{
	(void)state;
	struct graph *g = NULL;
	struct error err;
	const char *text =
		"{\"name\":\"b\",\"batch\":4,\"microbatch_sizes\":[1],"
		"\"machine\":{\"devices\":1,\"memory_bytes\":1e9,\"link_latency_us\":1,\"link_bandwidth\":100},"
		"\"ops\":[{\"name\":\"att\",\"kind\":\"attention\",\"shape\":[4,10,3],\"fwd\":1,\"bwd\":1},"
		"{\"name\":\"lin\",\"kind\":\"linear\",\"shape\":[4,0],\"fwd\":1,\"bwd\":1}]}";
	assert_int_equal(graph_parse(text, "b.json", &g, &err), STATUS_OK);
	struct op_cost c;
	struct profile_options o = {.source = "cpu", .warmup = 0, .repeats = 1, .max_seconds = 1};
	for (int src = 0; src < 3; src++) {
		for (int v = 0; v < 2; v++) {
			enum status st = src == 0 ? profile_analytic(g, v, 1, profile_device("a100"), &c, &err)
				       : src == 1 ? profile_cpu(g, v, 1, &o, &c, &err)
						  : profile_cuda(g, v, 1, &o, &c, &err);
			assert_int_equal(st, STATUS_ERROR);
			assert_contains(err.msg, v ? "'lin'" : "'att'");
			assert_contains(err.msg, v ? "shape[1] = 0 is out of range" : "multiple of the 3 heads");
		}
	}
	graph_free(g);
}

/* Every kernel runs at every size (the sanitizer build checks the bounds);
 * times are positive for the phases that compute. */
static void test_cpu_kernels(void **state)
{
	struct graph *g = kinds_graph();
	struct profile_options o = {.source = "cpu", .warmup = 1, .repeats = 3, .max_seconds = 10};
	for (int v = 0; v < g->nops; v++)
		for (int i = 0; i < g->nsizes; i++) {
			struct op_cost c;
			struct error err;
			if (profile_cpu(g, v, g->microbatch_sizes[i], &o, &c, &err))
				fail_msg("%s", err.msg);
			assert_true(c.measured);
			assert_true(c.fwd > 0 && c.bwd > 0 && c.wgrad >= 0);
		}
	graph_free(g);
}

/* With a tiny max_seconds, only the first size runs; the others are the
 * first's cost scaled by q / q1 and marked as not measured. */
static void test_cpu_extrapolation(void **state)
{
	struct graph *g = kinds_graph();
	struct profile_options o = {.source = "cpu", .warmup = 0, .repeats = 1,
				    .max_seconds = 1e-12};
	json_t *t = NULL;
	struct error err;
	assert_int_equal(profile_graph(g, &o, &t, &err), STATUS_OK);
	json_t *lin = json_array_get(json_object_get(t, "ops"), 1);
	json_t *fwd = json_object_get(lin, "fwd"), *meas = json_object_get(lin, "measured");
	assert_true(json_is_true(json_array_get(meas, 0)));
	assert_true(json_is_false(json_array_get(meas, 1)));
	assert_true(json_is_false(json_array_get(meas, 2)));
	double f1 = json_real_value(json_array_get(fwd, 0));
	assert_double_near(json_real_value(json_array_get(fwd, 1)), 2 * f1, 1e-9 * f1);
	assert_double_near(json_real_value(json_array_get(fwd, 2)), 4 * f1, 1e-9 * f1);
	assert_string_equal(json_string_value(json_object_get(t, "statistic")), "median");
	json_decref(t);
	graph_free(g);
}

static char *temp_path(const char *name)
{
	static char buf[4][256];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, 256, "/tmp/pipeopt-test-profile-%d-%s", (int)getpid(), name);
	return p;
}

/* A cost table written by profile_graph and read by graph_apply_costs puts
 * exactly its numbers into the graph, with its sizes. */
static void test_cost_table_round_trip(void **state)
{
	struct graph *g = kinds_graph();
	int sizes[2] = {2, 4};
	struct profile_options o = {.source = "analytic", .device = "h200", .nsizes = 2,
				    .sizes = sizes};
	json_t *t = NULL;
	struct error err;
	assert_int_equal(profile_graph(g, &o, &t, &err), STATUS_OK);
	const char *path = temp_path("costs.json");
	assert_int_equal(json_dump_file(t, path, 0), 0);
	assert_int_equal(graph_apply_costs(g, path, &err), STATUS_OK);
	assert_int_equal(g->nsizes, 2);
	assert_int_equal(g->microbatch_sizes[0], 2);
	assert_int_equal(g->microbatch_sizes[1], 4);
	for (int v = 0; v < g->nops; v++) {
		json_t *row = json_array_get(json_object_get(t, "ops"), v);
		for (int i = 0; i < 2; i++) {
			assert_double_near(g->ops[v].fwd[i],
					   json_real_value(json_array_get(json_object_get(row, "fwd"), i)), 0);
			assert_double_near(g->ops[v].wgrad[i],
					   json_real_value(json_array_get(json_object_get(row, "wgrad"), i)), 0);
		}
	}
	unlink(path);
	json_decref(t);
	graph_free(g);
}

/* Bad tables: one line naming the file and what is wrong; the graph keeps
 * its costs. */
static void test_cost_table_errors(void **state)
{
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{"{\"microbatch_sizes\": [1], \"ops\": [", "line"},
		{"{\"microbatch_sizes\": [], \"ops\": []}", "microbatch_sizes"},
		{"{\"microbatch_sizes\": [2, 1], \"ops\": []}", "microbatch_sizes"},
		{"{\"microbatch_sizes\": [1], \"ops\": {}}", "ops"},
		{"{\"microbatch_sizes\": [1], \"ops\": [{\"name\": \"nope\", \"fwd\": [1], \"bwd\": [1], \"wgrad\": [1]}]}", "nope"},
		{"{\"microbatch_sizes\": [1], \"ops\": [{\"name\": \"in\", \"fwd\": [1, 2], \"bwd\": [1], \"wgrad\": [1]}]}", "fwd"},
		{"{\"microbatch_sizes\": [1], \"ops\": [{\"name\": \"in\", \"fwd\": [-1], \"bwd\": [1], \"wgrad\": [1]}]}", "fwd[0]"},
		{"{\"microbatch_sizes\": [1], \"ops\": [{\"name\": \"in\", \"fwd\": [1], \"bwd\": [1], \"wgrad\": [1]}]}", "no costs for operator 'lin'"},
		{"{\"microbatch_sizes\": [1], \"ops\": [{\"name\": \"in\", \"fwd\": [1], \"bwd\": [1], \"wgrad\": [1]},"
		 "{\"name\": \"in\", \"fwd\": [1], \"bwd\": [1], \"wgrad\": [1]}]}", "twice"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct graph *g = kinds_graph();
		const char *path = temp_path("bad.json");
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(cases[i].text, f);
		fclose(f);
		struct error err;
		assert_int_equal(graph_apply_costs(g, path, &err), STATUS_ERROR);
		check_error_message(cases[i].needle, err.msg, path, "cost table", cases[i].needle);
		assert_int_equal(g->nsizes, 3);                 /* unchanged */
		assert_double_near(g->ops[1].fwd[0], 1, 0);
		unlink(path);
		graph_free(g);
	}
	struct graph *g = kinds_graph();
	struct error err;
	assert_int_equal(graph_apply_costs(g, "/nonexistent/costs.json", &err), STATUS_ERROR);
	assert_contains(err.msg, "/nonexistent/costs.json");
	graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analytic_by_hand),
		cmocka_unit_test(test_analytic_errors),
		cmocka_unit_test(test_shape_checked_by_every_source),
		cmocka_unit_test(test_cpu_kernels),
		cmocka_unit_test(test_cpu_extrapolation),
		cmocka_unit_test(test_cost_table_round_trip),
		cmocka_unit_test(test_cost_table_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
