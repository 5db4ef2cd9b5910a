/*
 * Tests for sched/instance.c: instance_parse() and instance_read(), the typed
 * model, instance_from_json(), instances built in code (instance_new,
 * instance_finish) and written (instance_to_json, instance_write).
 *
 * Every expected value below is worked out by hand from docs/formats.md and
 * docs/design.md ("The schedule problem"), never taken from the parser.
 */
#include "test_helpers.h"
#include "instance_equal.h"

#include <stdbool.h>

/* The example from docs/formats.md, verbatim. */
static const char formats_example[] =
	"{\n"
	"  \"name\": \"zb-1p-example\",\n"
	"  \"devices\": 4,\n"
	"  \"microbatches\": 8,\n"
	"  \"chunks\": 1,\n"
	"  \"placement\": \"linear\",\n"
	"  \"edges\": [[0, 1], [1, 2], [2, 3]],\n"
	"  \"split_backward\": true,\n"
	"  \"cost\": {\"F\": 18522, \"B\": 18086, \"W\": 9337},\n"
	"  \"comm\": 601,\n"
	"  \"memory\": {\"F\": 2, \"B\": -1, \"W\": -1, \"limit\": 16},\n"
	"  \"objective\": \"makespan\"\n"
	"}\n";

/* Parse with a chosen source name, failing the test on error. */
static struct instance *parse_as(const char *json, const char *source)
{
	struct instance *in = NULL;
	struct error err = {{0}};
	if (instance_parse(json, source, &in, &err))
		fail_msg("instance rejected: %s", err.msg);
	assert_non_null(in);
	return in;
}

static void assert_ints(const int *got, const int *want, int n)
{
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("entry %d: got %d, expected %d", i, got[i],
				 want[i]);
}

static void assert_int64s(const int64_t *got, const int64_t *want, int n)
{
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("entry %d: got %lld, expected %lld", i,
				 (long long)got[i], (long long)want[i]);
}

/* The lag of the link to `stage` among links [a, b), or fail. */
static int64_t link_lag(const struct stage_link *links, int a, int b,
			int stage)
{
	int found = 0;
	int64_t lag = -1;
	for (int i = a; i < b; i++)
		if (links[i].stage == stage) {
			found++;
			lag = links[i].lag;
		}
	if (found != 1)
		fail_msg("stage %d appears %d times among links [%d, %d)",
			 stage, found, a, b);
	return lag;
}

/* topo is a permutation of 0..L-1 in which every edge goes forward. */
static void assert_topo_valid(const struct instance *in)
{
	int L = in->stages;
	int *pos = malloc(L * sizeof *pos);
	assert_non_null(pos);
	for (int l = 0; l < L; l++)
		pos[l] = -1;
	for (int i = 0; i < L; i++) {
		int s = in->topo[i];
		if (s < 0 || s >= L || pos[s] >= 0)
			fail_msg("topo[%d] = %d is out of range or repeated", i, s);
		pos[s] = i;
	}
	for (int e = 0; e < in->nedges; e++)
		if (pos[in->edges[e][0]] >= pos[in->edges[e][1]])
			fail_msg("edge %d -> %d goes backwards in topo",
				 in->edges[e][0], in->edges[e][1]);
	free(pos);
}

/* ---- accepted instances ----------------------------------------------- */

static void test_formats_example(void **state)
{
	struct instance *in = parse_instance_ok(formats_example);
	assert_string_equal(in->name, "zb-1p-example");
	assert_int_equal(in->devices, 4);
	assert_int_equal(in->microbatches, 8);
	assert_int_equal(in->chunks, 1);
	assert_int_equal(in->stages, 4);
	assert_string_equal(in->placement, "linear");
	assert_ints(in->stage_device, (int[]){0, 1, 2, 3}, 4);

	assert_int_equal(in->nedges, 3);
	for (int e = 0; e < 3; e++) {
		assert_int_equal(in->edges[e][0], e);
		assert_int_equal(in->edges[e][1], e + 1);
	}
	assert_int64s(in->edge_comm, (int64_t[]){601, 601, 601}, 3);

	assert_true(in->split_backward);
	assert_int_equal(in->kinds, 3);
	assert_int64s(in->cost[OP_F], (int64_t[]){18522, 18522, 18522, 18522}, 4);
	assert_int64s(in->cost[OP_B], (int64_t[]){18086, 18086, 18086, 18086}, 4);
	assert_int64s(in->cost[OP_W], (int64_t[]){9337, 9337, 9337, 9337}, 4);

	assert_true(in->has_memory);
	assert_int64s(in->mem[OP_F], (int64_t[]){2, 2, 2, 2}, 4);
	assert_int64s(in->mem[OP_B], (int64_t[]){-1, -1, -1, -1}, 4);
	assert_int64s(in->mem[OP_W], (int64_t[]){-1, -1, -1, -1}, 4);
	assert_true(in->has_limit);
	assert_int64s(in->limit, (int64_t[]){16, 16, 16, 16}, 4);
	assert_int_equal(in->objective, OBJ_MAKESPAN);

	/* A chain on distinct devices: every edge pays comm. */
	assert_true(in->is_chain);
	assert_ints(in->pred_start, (int[]){0, 0, 1, 2, 3}, 5);
	assert_ints(in->succ_start, (int[]){0, 1, 2, 3, 3}, 5);
	for (int l = 1; l < 4; l++) {
		assert_int_equal(in->pred[l - 1].stage, l - 1);
		assert_int_equal(in->pred[l - 1].lag, 601);
		assert_int_equal(in->succ[l - 1].stage, l);
		assert_int_equal(in->succ[l - 1].lag, 601);
	}
	assert_ints(in->topo, (int[]){0, 1, 2, 3}, 4);

	/* Helpers in instance.h: 3 kinds x 4 stages x 8 mbs = 96 ops;
	 * W(3,7) = (2*4 + 3)*8 + 7 = 95; device load (F+B+W)*M. */
	assert_int_equal(inst_nops(in), 96);
	assert_int_equal(inst_op_id(in, OP_W, 3, 7), 95);
	assert_int_equal(inst_op_id(in, OP_B, 1, 2), (1 * 4 + 1) * 8 + 2);
	assert_int_equal(inst_device_load(in, 2), (18522 + 18086 + 9337) * 8);
	assert_int_equal(inst_duration(in, OP_W, 0), 9337);
	assert_int_equal(inst_delta(in, OP_F, 3), 2);
	instance_free(in);
}

/* Without "name", the name is the source's basename without ".json". */
static void test_name_default(void **state)
{
	static const struct {
		const char *source, *name;
	} cases[] = {
		{"test.json", "test"},
		{"datasets/instances/zb-1p-example.json", "zb-1p-example"},
		{"/abs/dir/my.instance.json", "my.instance"},
		{"noext", "noext"},
	};
	const char *json = "{\"devices\": 2, \"microbatches\": 2,"
			   " \"cost\": {\"F\": 1, \"B\": 1}}";
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct instance *in = parse_as(json, cases[i].source);
		if (strcmp(in->name, cases[i].name))
			fail_msg("source '%s': name '%s', expected '%s'",
				 cases[i].source, in->name, cases[i].name);
		instance_free(in);
	}
	/* An explicit name wins over the source. */
	struct instance *in = parse_as("{\"name\": \"mine\", \"devices\": 1,"
				       " \"microbatches\": 1,"
				       " \"cost\": {\"F\": 1, \"B\": 1}}",
				       "other.json");
	assert_string_equal(in->name, "mine");
	instance_free(in);
}

static void test_defaults(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\": 3, \"microbatches\": 5,"
		" \"cost\": {\"F\": 4, \"B\": 6}}");
	assert_string_equal(in->name, "test");
	assert_int_equal(in->chunks, 1);
	assert_string_equal(in->placement, "linear");
	assert_int_equal(in->stages, 3);
	assert_ints(in->stage_device, (int[]){0, 1, 2}, 3);
	assert_false(in->split_backward);
	assert_int_equal(in->kinds, 2);
	assert_null(in->cost[OP_W]);
	assert_int64s(in->cost[OP_F], (int64_t[]){4, 4, 4}, 3);
	assert_int64s(in->cost[OP_B], (int64_t[]){6, 6, 6}, 3);
	assert_int_equal(in->nedges, 2);
	assert_int64s(in->edge_comm, (int64_t[]){0, 0}, 2);
	assert_int_equal(in->succ[0].lag, 0);
	assert_false(in->has_memory);
	assert_false(in->has_limit);
	assert_null(in->mem[OP_F]);
	assert_null(in->limit);
	assert_int_equal(inst_delta(in, OP_F, 0), 0);
	assert_int_equal(in->objective, OBJ_MAKESPAN);
	assert_true(in->is_chain);
	assert_int_equal(inst_nops(in), 2 * 3 * 5);
	instance_free(in);

	/* split_backward defaults to the presence of cost.W. */
	in = parse_instance_ok("{\"devices\": 2, \"microbatches\": 1,"
			       " \"cost\": {\"F\": 1, \"B\": 1, \"W\": 0}}");
	assert_true(in->split_backward);
	assert_int_equal(in->kinds, 3);
	assert_int64s(in->cost[OP_W], (int64_t[]){0, 0}, 2);
	instance_free(in);

	/* Stated explicitly, both ways. */
	in = parse_instance_ok("{\"devices\": 2, \"microbatches\": 1,"
			       " \"split_backward\": false,"
			       " \"cost\": {\"F\": 1, \"B\": 1},"
			       " \"memory\": {\"F\": 3, \"B\": -3}}");
	assert_false(in->split_backward);
	assert_true(in->has_memory);
	assert_false(in->has_limit);
	assert_null(in->mem[OP_W]);
	assert_int64s(in->mem[OP_B], (int64_t[]){-3, -3}, 2);
	instance_free(in);

	in = parse_instance_ok("{\"devices\": 1, \"microbatches\": 1,"
			       " \"split_backward\": true,"
			       " \"cost\": {\"F\": 1, \"B\": 1, \"W\": 1},"
			       " \"objective\": \"span\"}");
	assert_true(in->split_backward);
	assert_int_equal(in->objective, OBJ_SPAN);
	assert_int_equal(in->nedges, 0);
	assert_true(in->is_chain);
	instance_free(in);
}

static void test_placement_linear(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\": 5, \"microbatches\": 2, \"placement\": \"linear\","
		" \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_int_equal(in->stages, 5);
	assert_ints(in->stage_device, (int[]){0, 1, 2, 3, 4}, 5);
	instance_free(in);
}

static void test_placement_interleaved(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\": 3, \"microbatches\": 2, \"chunks\": 3,"
		" \"placement\": \"interleaved\", \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_int_equal(in->chunks, 3);
	assert_int_equal(in->stages, 9);
	assert_string_equal(in->placement, "interleaved");
	assert_ints(in->stage_device, (int[]){0, 1, 2, 0, 1, 2, 0, 1, 2}, 9);
	assert_true(in->is_chain);
	instance_free(in);
}

static void test_placement_v(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\": 4, \"microbatches\": 2, \"chunks\": 2,"
		" \"placement\": \"v\", \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_int_equal(in->stages, 8);
	assert_string_equal(in->placement, "v");
	assert_ints(in->stage_device, (int[]){0, 1, 2, 3, 3, 2, 1, 0}, 8);
	instance_free(in);

	in = parse_instance_ok(
		"{\"devices\": 4, \"microbatches\": 2, \"chunks\": 4,"
		" \"placement\": \"v\", \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_int_equal(in->stages, 16);
	assert_ints(in->stage_device,
		    (int[]){0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0}, 16);
	instance_free(in);

	in = parse_instance_ok(
		"{\"devices\": 2, \"microbatches\": 2, \"chunks\": 3,"
		" \"placement\": \"v\", \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_ints(in->stage_device, (int[]){0, 1, 1, 0, 0, 1}, 6);
	instance_free(in);
}

static void test_placement_list(void **state)
{
	/* A list fixes L (here 3 stages on 2 devices, no chunks given). */
	struct instance *in = parse_instance_ok(
		"{\"devices\": 2, \"microbatches\": 2, \"placement\": [1, 0, 1],"
		" \"cost\": {\"F\": 1, \"B\": 1}, \"comm\": 7}");
	assert_int_equal(in->stages, 3);
	assert_string_equal(in->placement, "list");
	assert_ints(in->stage_device, (int[]){1, 0, 1}, 3);
	assert_int_equal(in->nedges, 2);
	assert_int_equal(in->succ[0].lag, 7);   /* 0 -> 1: device 1 -> 0 */
	instance_free(in);

	/* chunks consistent with the list: 2 devices x 2 chunks = 4. */
	in = parse_instance_ok(
		"{\"devices\": 2, \"microbatches\": 2, \"chunks\": 2,"
		" \"placement\": [0, 1, 1, 0], \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_int_equal(in->stages, 4);
	assert_ints(in->stage_device, (int[]){0, 1, 1, 0}, 4);
	instance_free(in);
}

static void test_per_stage_costs(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\": 3, \"microbatches\": 2,"
		" \"cost\": {\"F\": [1, 2, 3], \"B\": [4, 5, 6], \"W\": [0, 7, 8]},"
		" \"memory\": {\"F\": [2, 4, 0], \"B\": [-1, -1, 0],"
		"  \"W\": [-1, -3, 0], \"limit\": [2, 5, 9]}}");
	assert_int64s(in->cost[OP_F], (int64_t[]){1, 2, 3}, 3);
	assert_int64s(in->cost[OP_B], (int64_t[]){4, 5, 6}, 3);
	assert_int64s(in->cost[OP_W], (int64_t[]){0, 7, 8}, 3);
	assert_int64s(in->mem[OP_F], (int64_t[]){2, 4, 0}, 3);
	assert_int64s(in->mem[OP_B], (int64_t[]){-1, -1, 0}, 3);
	assert_int64s(in->mem[OP_W], (int64_t[]){-1, -3, 0}, 3);
	assert_int64s(in->limit, (int64_t[]){2, 5, 9}, 3);
	/* device 1 runs stage 1: (2 + 5 + 7) * 2 micro-batches */
	assert_int_equal(inst_device_load(in, 1), 28);
	instance_free(in);
}

/* The largest accepted values: each one more is rejected below. */
static void test_limits_accepted(void **state)
{
	/* 2 kinds x 32 stages x 2^20 micro-batches = 2^26 > INST_MAX_OPS, but
	 * 2 x 16 x 2^20 = 2^25 is exactly the maximum. */
	struct instance *in = parse_instance_ok(
		"{\"devices\": 16, \"microbatches\": 1048576,"
		" \"cost\": {\"F\": 4294967296, \"B\": 1}, \"comm\": 4294967296}");
	assert_int_equal(inst_nops(in), 1 << 25);
	assert_int_equal(in->cost[OP_F][0], 4294967296LL);
	assert_int_equal(in->edge_comm[0], 4294967296LL);
	instance_free(in);
}

/* Diamond 0->1, 0->2, 1->3, 2->3 with stages on devices 0,0,1,1 and comm
 * 10, 20, 30, 40 per edge: lag is the comm only across devices, so
 * 0->1: 0, 0->2: 20, 1->3: 30, 2->3: 0. */
static void test_dag_diamond(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\": 2, \"microbatches\": 3, \"placement\": [0, 0, 1, 1],"
		" \"edges\": [[0, 1], [0, 2], [1, 3], [2, 3]],"
		" \"comm\": [10, 20, 30, 40], \"cost\": {\"F\": 1, \"B\": 2}}");
	assert_int_equal(in->stages, 4);
	assert_int_equal(in->nedges, 4);
	assert_int64s(in->edge_comm, (int64_t[]){10, 20, 30, 40}, 4);
	assert_false(in->is_chain);

	assert_ints(in->succ_start, (int[]){0, 2, 3, 4, 4}, 5);
	assert_ints(in->pred_start, (int[]){0, 0, 1, 2, 4}, 5);
	assert_int_equal(link_lag(in->succ, 0, 2, 1), 0);
	assert_int_equal(link_lag(in->succ, 0, 2, 2), 20);
	assert_int_equal(link_lag(in->succ, 2, 3, 3), 30);
	assert_int_equal(link_lag(in->succ, 3, 4, 3), 0);
	assert_int_equal(link_lag(in->pred, 0, 1, 0), 0);
	assert_int_equal(link_lag(in->pred, 1, 2, 0), 20);
	assert_int_equal(link_lag(in->pred, 2, 4, 1), 30);
	assert_int_equal(link_lag(in->pred, 2, 4, 2), 0);
	assert_topo_valid(in);
	assert_int_equal(in->topo[0], 0);
	assert_int_equal(in->topo[3], 3);
	instance_free(in);
}

/* A DAG whose edges are listed out of topological order, with two
 * sources: 3->1, 2->0, 1->0, 3->2 (topo must put 3 first, 0 last). */
static void test_dag_unordered(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\": 4, \"microbatches\": 1,"
		" \"edges\": [[3, 1], [2, 0], [1, 0], [3, 2]],"
		" \"comm\": 5, \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_false(in->is_chain);
	assert_topo_valid(in);
	assert_int_equal(in->topo[0], 3);
	assert_int_equal(in->topo[3], 0);
	assert_ints(in->pred_start, (int[]){0, 2, 3, 4, 4}, 5);
	assert_ints(in->succ_start, (int[]){0, 0, 1, 2, 4}, 5);
	assert_int_equal(link_lag(in->pred, 0, 2, 1), 5);
	assert_int_equal(link_lag(in->pred, 0, 2, 2), 5);
	instance_free(in);
}

/* The default chain under the V placement on 2 devices x 2 chunks puts
 * stages on 0, 1, 1, 0: edge 1->2 stays on device 1, so its lag is 0. */
static void test_chain_lag_same_device(void **state)
{
	struct instance *in = parse_instance_ok(
		"{\"devices\": 2, \"microbatches\": 2, \"chunks\": 2,"
		" \"placement\": \"v\", \"comm\": 9, \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_true(in->is_chain);
	assert_int_equal(in->nedges, 3);
	assert_int64s(in->edge_comm, (int64_t[]){9, 9, 9}, 3);
	assert_ints(in->succ_start, (int[]){0, 1, 2, 3, 3}, 5);
	assert_int_equal(in->succ[0].lag, 9);
	assert_int_equal(in->succ[1].lag, 0);
	assert_int_equal(in->succ[2].lag, 9);
	assert_int_equal(in->pred[1].stage, 1);
	assert_int_equal(in->pred[1].lag, 0);
	instance_free(in);

	/* The chain written out explicitly is still a chain. */
	in = parse_instance_ok(
		"{\"devices\": 3, \"microbatches\": 2,"
		" \"edges\": [[0, 1], [1, 2]], \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_true(in->is_chain);
	instance_free(in);

	/* A chain with a skip edge is not. */
	in = parse_instance_ok(
		"{\"devices\": 3, \"microbatches\": 2,"
		" \"edges\": [[0, 1], [1, 2], [0, 2]], \"cost\": {\"F\": 1, \"B\": 1}}");
	assert_false(in->is_chain);
	instance_free(in);
}

/* ---- rejections ------------------------------------------------------- */

struct reject_case {
	const char *name;
	const char *json;
	const char *key;    /* the key the message must name */
	const char *what;   /* another substring it must contain */
};

/* Fragments shared by the cases below. */
#define SIZES "\"devices\": 2, \"microbatches\": 4"
#define COST "\"cost\": {\"F\": 2, \"B\": 3}"
#define COSTW "\"cost\": {\"F\": 2, \"B\": 3, \"W\": 1}"

static const struct reject_case reject_cases[] = {
	/* unknown keys */
	{"unknown top-level key", "{" SIZES ", " COST ", \"stages\": 2}",
	 "stages", "unknown key"},
	{"unknown key in cost", "{" SIZES ", \"cost\": {\"F\": 1, \"B\": 1, \"X\": 1}}",
	 "cost.X", "unknown key"},
	{"unknown key in memory",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": 1, \"B\": -1, \"Z\": 0}}",
	 "memory.Z", "unknown key"},
	{"key names are case-sensitive", "{" SIZES ", " COST ", \"Devices\": 2}",
	 "Devices", "unknown key"},

	/* non-integers where integers are required */
	{"devices 2.5", "{\"devices\": 2.5, \"microbatches\": 4, " COST "}",
	 "devices", "integer"},
	{"microbatches \"3\"", "{\"devices\": 2, \"microbatches\": \"3\", " COST "}",
	 "microbatches", "integer"},
	{"chunks true", "{" SIZES ", \"chunks\": true, \"placement\": \"v\", " COST "}",
	 "chunks", "integer"},
	{"cost.F null", "{" SIZES ", \"cost\": {\"F\": null, \"B\": 1}}",
	 "cost.F", "integer"},
	{"cost.B list entry 2.5", "{" SIZES ", \"cost\": {\"F\": 1, \"B\": [1, 2.5]}}",
	 "cost.B", "integer"},
	{"cost.W string", "{" SIZES ", \"cost\": {\"F\": 1, \"B\": 1, \"W\": \"1\"}}",
	 "cost.W", "integer"},
	{"comm 2.5", "{" SIZES ", " COST ", \"comm\": 2.5}", "comm", "integer"},
	{"memory.F 1.5",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": 1.5, \"B\": -1.5}}",
	 "memory.F", "integer"},
	{"memory.limit \"16\"",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": 1, \"B\": -1, \"limit\": \"16\"}}",
	 "memory.limit", "integer"},
	{"placement entry 1.0", "{" SIZES ", \"placement\": [0, 1.0], " COST "}",
	 "placement[1]", "device"},
	{"edge endpoint \"1\"", "{" SIZES ", \"edges\": [[0, \"1\"]], " COST "}",
	 "edges[0][1]", "stage"},
	{"split_backward 1", "{" SIZES ", \"split_backward\": 1, " COSTW "}",
	 "split_backward", "true or false"},
	{"name not a string", "{\"name\": 5, " SIZES ", " COST "}", "name", "string"},

	/* negative durations, zero F or B */
	{"cost.F negative", "{" SIZES ", \"cost\": {\"F\": -1, \"B\": 1}}",
	 "cost.F", "negative"},
	{"cost.B negative entry", "{" SIZES ", \"cost\": {\"F\": 1, \"B\": [1, -4]}}",
	 "cost.B", "negative"},
	{"cost.W negative", "{" SIZES ", \"cost\": {\"F\": 1, \"B\": 1, \"W\": -5}}",
	 "cost.W", "negative"},
	{"comm negative", "{" SIZES ", " COST ", \"comm\": -1}", "comm", "negative"},
	{"comm list negative", "{" SIZES ", " COST ", \"comm\": [-2]}", "comm",
	 "negative"},
	{"cost.F zero", "{" SIZES ", \"cost\": {\"F\": 0, \"B\": 1}}", "cost.F", "must take time"},
	{"cost.B zero entry", "{" SIZES ", \"cost\": {\"F\": 1, \"B\": [3, 0]}}",
	 "cost.B", "must take time"},
	{"memory.F negative",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": -1, \"B\": 1}}",
	 "memory.F", "negative"},
	{"memory.limit negative",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": 0, \"B\": 0, \"limit\": -1}}",
	 "memory.limit", "negative"},

	/* lists of the wrong length */
	{"cost.F list per stage", "{" SIZES ", \"cost\": {\"F\": [1, 2, 3], \"B\": 1}}",
	 "cost.F", "expected 2"},
	{"cost.W list per stage",
	 "{" SIZES ", \"cost\": {\"F\": 1, \"B\": 1, \"W\": [1]}}", "cost.W",
	 "expected 2"},
	{"comm list per edge", "{" SIZES ", " COST ", \"comm\": [1, 2]}", "comm",
	 "expected 1"},
	{"comm list per diamond edge",
	 "{\"devices\": 4, \"microbatches\": 1,"
	 " \"edges\": [[0, 1], [0, 2], [1, 3], [2, 3]], " COST ", \"comm\": [1, 2, 3]}",
	 "comm", "expected 4"},
	{"memory.limit list per device",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": 1, \"B\": -1, \"limit\": [4, 4, 4]}}",
	 "memory.limit", "expected 2"},
	{"memory.B list per stage",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": 1, \"B\": [-1]}}", "memory.B",
	 "expected 2"},
	{"placement list vs chunks",
	 "{" SIZES ", \"chunks\": 2, \"placement\": [0, 1, 0], " COST "}",
	 "placement", "chunks"},
	{"empty placement list", "{" SIZES ", \"placement\": [], " COST "}",
	 "placement", "0 entries"},
	{"linear with chunks 2", "{" SIZES ", \"chunks\": 2, " COST "}", "placement",
	 "chunks"},

	/* memory deltas */
	{"deltas do not sum to 0",
	 "{" SIZES ", " COSTW ", \"memory\": {\"F\": 2, \"B\": -1, \"W\": 0}}",
	 "memory", "sum to 1"},
	{"fused deltas do not sum to 0",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": [2, 2], \"B\": [-2, -3]}}",
	 "memory", "stage 1 sum to -1"},
	{"memory.limit below F",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": 3, \"B\": -3, \"limit\": 2}}",
	 "memory.limit", "below"},
	{"memory.limit below F on one device",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": [1, 5], \"B\": [-1, -5],"
	 " \"limit\": [9, 4]}}",
	 "memory.limit", "device 1"},
	{"memory without W when split",
	 "{" SIZES ", " COSTW ", \"memory\": {\"F\": 2, \"B\": -2}}", "memory.W",
	 "required"},
	{"memory.W when not split",
	 "{" SIZES ", " COST ", \"memory\": {\"F\": 2, \"B\": -1, \"W\": -1}}",
	 "memory.W", "split_backward is false"},
	{"memory limit only", "{" SIZES ", " COST ", \"memory\": {\"limit\": 4}}",
	 "memory.F", "required"},
	{"memory not an object", "{" SIZES ", " COST ", \"memory\": 4}", "memory",
	 "object"},

	/* the stage DAG */
	{"edges cycle", "{\"devices\": 3, \"microbatches\": 1,"
	 " \"edges\": [[0, 1], [1, 2], [2, 0]], " COST "}",
	 "edges", "cycle"},
	{"edges self-loop", "{\"devices\": 3, \"microbatches\": 1,"
	 " \"edges\": [[0, 1], [1, 1]], " COST "}",
	 "edges[1]", "itself"},
	{"edges duplicate", "{\"devices\": 3, \"microbatches\": 1,"
	 " \"edges\": [[0, 1], [1, 2], [0, 1]], " COST "}",
	 "edges[2]", "duplicate"},
	{"edge to a missing stage", "{" SIZES ", \"edges\": [[0, 5]], " COST "}",
	 "edges[0][1]", "stage 5"},
	{"edge from a negative stage", "{" SIZES ", \"edges\": [[-1, 0]], " COST "}",
	 "edges[0][0]", "stage -1"},
	{"edge not a pair", "{" SIZES ", \"edges\": [[0, 1, 1]], " COST "}",
	 "edges[0]", "pair"},
	{"edges not a list", "{" SIZES ", \"edges\": {\"0\": 1}, " COST "}", "edges",
	 "list"},

	/* placement */
	{"placement on a missing device", "{" SIZES ", \"placement\": [0, 2], " COST "}",
	 "placement[1]", "device 2"},
	{"placement on a negative device", "{" SIZES ", \"placement\": [-1, 0], " COST "}",
	 "placement[0]", "device -1"},
	{"unknown placement", "{" SIZES ", \"placement\": \"zigzag\", " COST "}",
	 "placement", "zigzag"},
	{"placement wrong type", "{" SIZES ", \"placement\": 3, " COST "}",
	 "placement", "integer"},

	/* missing required keys */
	{"missing devices", "{\"microbatches\": 4, " COST "}", "devices", "missing"},
	{"missing microbatches", "{\"devices\": 2, " COST "}", "microbatches",
	 "missing"},
	{"missing cost", "{" SIZES "}", "cost", "missing"},
	{"missing cost.F", "{" SIZES ", \"cost\": {\"B\": 1}}", "cost.F", "missing"},
	{"missing cost.B", "{" SIZES ", \"cost\": {\"F\": 1}}", "cost.B", "missing"},
	{"cost not an object", "{" SIZES ", \"cost\": [1, 1]}", "cost", "object"},

	/* split_backward against cost.W */
	{"cost.W with split_backward false",
	 "{" SIZES ", \"split_backward\": false, " COSTW "}", "cost.W",
	 "split_backward is false"},
	{"split_backward true without cost.W",
	 "{" SIZES ", \"split_backward\": true, " COST "}", "cost.W", "required"},

	/* objective */
	{"unknown objective", "{" SIZES ", " COST ", \"objective\": \"latency\"}",
	 "objective", "latency"},
	{"objective wrong type", "{" SIZES ", " COST ", \"objective\": 1}",
	 "objective", "integer"},

	/* sizes */
	{"devices 0", "{\"devices\": 0, \"microbatches\": 4, " COST "}", "devices",
	 "minimum 1"},
	{"microbatches 0", "{\"devices\": 2, \"microbatches\": 0, " COST "}",
	 "microbatches", "minimum 1"},
	{"chunks 0", "{" SIZES ", \"chunks\": 0, \"placement\": \"v\", " COST "}",
	 "chunks", "minimum 1"},
	{"devices 10^9", "{\"devices\": 1000000000, \"microbatches\": 4, " COST "}",
	 "devices", "exceeds the maximum"},
	{"microbatches 10^9", "{\"devices\": 2, \"microbatches\": 1000000000, " COST "}",
	 "microbatches", "exceeds the maximum"},
	{"chunks 65", "{" SIZES ", \"chunks\": 65, \"placement\": \"v\", " COST "}",
	 "chunks", "exceeds the maximum"},
	{"devices x chunks over the stage limit",
	 "{\"devices\": 4096, \"microbatches\": 1, \"chunks\": 8,"
	 " \"placement\": \"interleaved\", " COST "}",
	 "chunks", "exceeds the maximum"},
	/* 3 kinds x 16 stages x 2^20 micro-batches = 3 * 2^24 > 2^25 */
	{"ops over INST_MAX_OPS",
	 "{\"devices\": 16, \"microbatches\": 1048576, " COSTW "}",
	 "microbatches", "exceeds the maximum"},
	/* 2 kinds x 17 stages x 2^20 micro-batches = 17 * 2^21 > 2^25 */
	{"ops one stage over INST_MAX_OPS",
	 "{\"devices\": 17, \"microbatches\": 1048576, " COST "}",
	 "microbatches", "exceeds the maximum"},
	{"cost.F above INST_MAX_DURATION",
	 "{" SIZES ", \"cost\": {\"F\": 4294967297, \"B\": 1}}", "cost.F",
	 "exceeds the maximum"},
	{"comm above INST_MAX_DURATION",
	 "{" SIZES ", " COST ", \"comm\": [4294967297]}", "comm",
	 "exceeds the maximum"},

	/* JSON shape and syntax */
	{"top-level array", "[{" SIZES ", " COST "}]", "top level", "object"},
	{"top-level string", "\"x\"", "line 1", "column"},
	{"malformed JSON, missing comma",
	 "{\n  \"devices\": 2,\n  \"microbatches\": 4\n  \"cost\": {\"F\": 1, \"B\": 1}\n}\n",
	 "line 4", "column"},
	{"malformed JSON, trailing comma",
	 "{\n  \"devices\": 2,\n  \"microbatches\": 4,\n  \"cost\": {\"F\": 1, \"B\": 1},\n}\n",
	 "line 5", "column"},
	{"malformed JSON, unterminated string",
	 "{\"devices\": 2, \"microbatches\": 4, \"cost\": {\"F\": 1, \"B",
	 "line 1", "column"},
	{"empty text", "", "line 1", "column"},
	{"duplicate key", "{\"devices\": 2, \"devices\": 3, \"microbatches\": 4, " COST "}",
	 "devices", "duplicate"},
	{"duplicate key in cost",
	 "{" SIZES ", \"cost\": {\"F\": 1, \"B\": 1, \"F\": 2}}", "\"F\"",
	 "duplicate"},
};

/* A message names the source and is one line (docs/formats.md, "error"). */
static void assert_message_shape(const char *label, const char *msg)
{
	if (!strstr(msg, "instance 'test.json'"))
		fail_msg("%s: message does not name 'test.json': %s", label, msg);
	if (strchr(msg, '\n') || strchr(msg, '\r'))
		fail_msg("%s: message is not one line: %s", label, msg);
}

static void check_reject(const struct reject_case *rc)
{
	struct instance *in = (struct instance *)&in;   /* must be reset */
	struct error err = {{0}};
	enum status st = instance_parse(rc->json, "test.json", &in, &err);
	if (st != STATUS_ERROR) {
		instance_free(in);
		fail_msg("case '%s': accepted", rc->name);
	}
	if (in)
		fail_msg("case '%s': *out is not NULL after an error", rc->name);
	assert_message_shape(rc->name, err.msg);
	if (!strstr(err.msg, rc->key))
		fail_msg("case '%s': message does not name '%s': %s", rc->name,
			 rc->key, err.msg);
	if (!strstr(err.msg, rc->what))
		fail_msg("case '%s': message lacks '%s': %s", rc->name, rc->what,
			 err.msg);
}

static void test_rejections(void **state)
{
	for (size_t i = 0; i < sizeof reject_cases / sizeof *reject_cases; i++)
		check_reject(&reject_cases[i]);
}

/* The message of a cyclic `edges` names stages that form a cycle:
 * "cycle through stages a -> b -> ... -> a", where each arrow is an edge
 * and only the cycle's stages appear. */
struct cycle_case {
	const char *name;
	const char *json;
	int on_cycle[8];   /* stage l is on the cycle iff on_cycle[l] */
};

static void check_cycle_message(const struct cycle_case *cc)
{
	struct instance *in = NULL;
	struct error err = {{0}};
	if (!instance_parse(cc->json, "test.json", &in, &err)) {
		instance_free(in);
		fail_msg("case '%s': cyclic edges accepted", cc->name);
	}
	assert_message_shape(cc->name, err.msg);
	const char *p = strstr(err.msg, "stages ");
	if (!strstr(err.msg, "edges") || !p)
		fail_msg("case '%s': message does not name the cycle: %s",
			 cc->name, err.msg);
	p += strlen("stages ");
	int path[64], n = 0;
	char *end;
	for (;;) {
		long s = strtol(p, &end, 10);
		if (end == p || n == 64)
			fail_msg("case '%s': cannot read the cycle in: %s",
				 cc->name, err.msg);
		path[n++] = (int)s;
		if (strncmp(end, " -> ", 4))
			break;
		p = end + 4;
	}
	if (n < 3 || path[0] != path[n - 1])
		fail_msg("case '%s': not a closed cycle: %s", cc->name, err.msg);
	int visited[8] = {0}, distinct = 0, cycle_len = 0;
	for (int l = 0; l < 8; l++)
		cycle_len += cc->on_cycle[l];
	for (int i = 0; i + 1 < n; i++) {
		int s = path[i];
		if (s < 0 || s >= 8 || !cc->on_cycle[s])
			fail_msg("case '%s': stage %d is not on the cycle: %s",
				 cc->name, s, err.msg);
		distinct += !visited[s]++;
	}
	if (distinct != cycle_len || n - 1 != cycle_len)
		fail_msg("case '%s': expected the %d stages of the cycle once each: %s",
			 cc->name, cycle_len, err.msg);
}

static void test_cycle_message_simple(void **state)
{
	static const struct cycle_case cases[] = {
		{"3-cycle", "{\"devices\": 3, \"microbatches\": 1,"
		 " \"edges\": [[0, 1], [1, 2], [2, 0]], " COST "}",
		 {1, 1, 1}},
		{"2-cycle after a source", "{\"devices\": 3, \"microbatches\": 1,"
		 " \"edges\": [[0, 1], [1, 2], [2, 1]], " COST "}",
		 {0, 1, 1}},
		{"2-cycle feeding a sink, listed cycle first",
		 "{\"devices\": 3, \"microbatches\": 1,"
		 " \"edges\": [[1, 2], [2, 1], [1, 0]], " COST "}",
		 {0, 1, 1}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		check_cycle_message(&cases[i]);
}

/*
 * Regression, fixed (sched/instance.c, order_stages, the forward walk after Kahn's
 * algorithm): when the stage found first hangs below the cycle (here stage
 * 0, fed by the 2-cycle 1 <-> 2) and the cycle stage's first successor in
 * edge order is that stage, the walk leaves the cycle and gets stuck on 0.
 * Input: edges [[1,0],[1,2],[2,1]] on 3 stages.
 * Expected: "cycle through stages 1 -> 2 -> 1" (or 2 -> 1 -> 2).
 * Was:   "cycle through stages 1 -> 0 -> 0 -> 0 -> ... -> 0 -> 1".
 */
static void test_cycle_message_with_tail(void **state)
{
	static const struct cycle_case cases[] = {
		{"2-cycle feeding a sink, sink edge first",
		 "{\"devices\": 3, \"microbatches\": 1,"
		 " \"edges\": [[1, 0], [1, 2], [2, 1]], " COST "}",
		 {0, 1, 1}},
		{"3-cycle feeding a chain to stage 0",
		 "{\"devices\": 5, \"microbatches\": 1,"
		 " \"edges\": [[1, 0], [2, 1], [2, 3], [3, 4], [4, 2]], " COST "}",
		 {0, 0, 1, 1, 1}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		check_cycle_message(&cases[i]);
}

/*
 * Regression, fixed (sched/instance.c: check_keys line ~131, and the placement/objective
 * messages that echo a user string): JSON strings may hold "\n", and the
 * messages copy them verbatim, so the message is no longer one line
 * (docs/formats.md: "error: a one-line human message"; stderr gets one line).
 * Input: {"devices": 2, "microbatches": 4, "cost": {...}, "bad\nkey": 1}.
 * Expected: a one-line message naming the key (escaped).
 * Was:   "instance 'test.json': bad<newline>key: unknown key".
 */
static void test_message_one_line_with_newline_in_key(void **state)
{
	static const char *const cases[] = {
		"{" SIZES ", " COST ", \"bad\\nkey\": 1}",
		"{" SIZES ", \"cost\": {\"F\": 1, \"B\": 1, \"X\\r\\nY\": 1}}",
		"{" SIZES ", \"placement\": \"li\\nnear\", " COST "}",
		"{" SIZES ", " COST ", \"objective\": \"make\\nspan\"}",
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct instance *in = NULL;
		struct error err = {{0}};
		if (!instance_parse(cases[i], "test.json", &in, &err)) {
			instance_free(in);
			fail_msg("case %zu accepted", i);
		}
		assert_message_shape(cases[i], err.msg);
	}
}

/*
 * Regression, fixed (sched/instance.c, parse_memory, the limit check near the end): only
 * F is checked against the limit, but docs/formats.md rejects "an instance whose
 * memory limit is below what any single op needs". B may have a positive
 * delta, and B(l,j) runs after F(l,j) on the same device with W(l,j) (the
 * only op that frees) after it, so B needs at least F + B.
 * Input: 2 devices, memory {"F": 1, "B": 2, "W": -3, "limit": 2}.
 * Expected: rejected, naming memory.limit (F + B = 3 > 2; no schedule is
 * valid). Actual: accepted (pipeopt bound even prints a finite bound, 7).
 */
static void test_limit_below_b_peak(void **state)
{
	check_reject(&(struct reject_case){
		"memory.limit below F + B",
		"{" SIZES ", " COSTW ", \"memory\": {\"F\": 1, \"B\": 2, \"W\": -3,"
		" \"limit\": 2}}",
		"memory.limit", "below"});
}

/* ---- files -------------------------------------------------------------- */

static void test_read_missing_file(void **state)
{
	const char *path = "/nonexistent/dir/no-such-instance.json";
	struct instance *in = (struct instance *)&in;
	struct error err = {{0}};
	assert_int_equal(instance_read(path, &in, &err), STATUS_ERROR);
	assert_null(in);
	assert_contains(err.msg, path);
	assert_null(strchr(err.msg, '\n'));
}

static void test_read_dataset(void **state)
{
	struct instance *in = NULL;
	struct error err = {{0}};
	const char *path = PIPEOPT_SOURCE_DIR "/datasets/instances/zb-1p-example.json";
	if (instance_read(path, &in, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(in->name, "zb-1p-example");
	assert_int_equal(in->devices, 4);
	assert_int_equal(in->microbatches, 8);
	assert_int_equal(in->cost[OP_W][3], 9337);
	instance_free(in);
}

/* A syntax error in a file names the path and the line. */
static void test_read_malformed_file(void **state)
{
	char path[] = "/tmp/pipeopt-test-instance-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("{\n\n\n  \"devices\": 2,\n  \"microbatches\": ]\n}\n", f);
	fclose(f);
	struct instance *in = NULL;
	struct error err = {{0}};
	enum status st = instance_read(path, &in, &err);
	remove(path);
	assert_int_equal(st, STATUS_ERROR);
	assert_contains(err.msg, path);
	assert_contains(err.msg, "line 5");
	assert_contains(err.msg, "column");
}

/*
 * datasets/bad/README.md lists each bad instance with the key its error
 * names and a substring of the message; check the table against the parser
 * so the end-to-end tests that use it stay truthful.
 */
static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = 0;
	return s;
}

static void test_bad_datasets(void **state)
{
	const char *dir = PIPEOPT_SOURCE_DIR "/datasets/bad";
	char readme[512], line[1024];
	snprintf(readme, sizeof readme, "%s/README.md", dir);
	FILE *f = fopen(readme, "r");
	if (!f)
		fail_msg("cannot open %s", readme);
	int rows = 0;
	while (fgets(line, sizeof line, f)) {
		char *cells[3], *p = line;
		if (strncmp(trim(line), "|", 1))
			continue;
		p = strchr(line, '|') + 1;
		int n = 0;
		for (; n < 3; n++) {
			char *bar = strchr(p, '|');
			if (!bar)
				break;
			*bar = 0;
			cells[n] = trim(p);
			p = bar + 1;
		}
		if (n < 3 || !strcmp(cells[0], "file") || cells[0][0] == '-')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, cells[0]);
		struct instance *in = NULL;
		struct error err = {{0}};
		if (!instance_read(path, &in, &err)) {
			instance_free(in);
			fail_msg("%s: accepted", cells[0]);
		}
		if (strchr(err.msg, '\n'))
			fail_msg("%s: message is not one line: %s", cells[0], err.msg);
		if (!strstr(err.msg, cells[0]))
			fail_msg("%s: message does not name the file: %s", cells[0],
				 err.msg);
		/* The grammar: instance 'PATH': KEY: what is wrong. */
		char named[300];
		snprintf(named, sizeof named, "': %s: ", cells[1]);
		if (strcmp(cells[1], "-") && !strstr(err.msg, named))
			fail_msg("%s: message does not name '%s' as its key: %s",
				 cells[0], cells[1], err.msg);
		if (!strstr(err.msg, cells[2]))
			fail_msg("%s: message lacks '%s': %s", cells[0], cells[2],
				 err.msg);
		rows++;
	}
	fclose(f);
	if (rows < 20)
		fail_msg("datasets/bad/README.md lists %d files, expected >= 20", rows);
}

/* ---- the typed model, instances from JSON values and built in code ----------- */

/*
 * The "model" key, typed: counts, names and kinds as written, the graph
 * name or NULL, an empty stage kept; op keys in either order; not part of
 * the digest (the same instance without it has the same one).
 */
static void test_model_typed(void **state)
{
	(void)state;
	struct instance *in = parse_instance_ok(
		"{\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":1},"
		"\"model\":{\"graph\":\"tiny-net\",\"stages\":["
		"[{\"name\":\"emb\",\"kind\":\"embedding\"},{\"kind\":\"gelu\",\"name\":\"act\"}],"
		"[],"
		"[{\"name\":\"block0\",\"kind\":\"transformer_layer\"}]]}}");
	const struct stage_model *m = in->model;
	assert_non_null(m);
	assert_string_equal(m->graph, "tiny-net");
	assert_int_equal(m->nstages, 3);
	assert_int_equal(m->stages[0].nops, 2);
	assert_int_equal(m->stages[1].nops, 0);
	assert_int_equal(m->stages[2].nops, 1);
	assert_string_equal(m->stages[0].ops[0].name, "emb");
	assert_string_equal(m->stages[0].ops[0].kind, "embedding");
	assert_string_equal(m->stages[0].ops[1].name, "act");
	assert_string_equal(m->stages[0].ops[1].kind, "gelu");
	assert_string_equal(m->stages[2].ops[0].name, "block0");
	assert_string_equal(m->stages[2].ops[0].kind, "transformer_layer");
	struct instance *bare = parse_instance_ok(
		"{\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":1}}");
	assert_null(bare->model);
	char d1[65], d2[65];
	instance_digest(in, d1);
	instance_digest(bare, d2);
	assert_string_equal(d1, d2);
	instance_free(bare);
	instance_free(in);

	in = parse_instance_ok("{\"devices\":1,\"microbatches\":1,\"cost\":{\"F\":1,\"B\":1},"
			       "\"model\":{\"stages\":[[{\"name\":\"x\",\"kind\":\"linear\"}]]}}");
	assert_null(in->model->graph);
	assert_int_equal(in->model->stages[0].nops, 1);
	instance_free(in);
}

/* instance_from_json: the parser's core on a value, which stays the
 * caller's; the same instance and the same messages as from text. */
static void test_from_json(void **state)
{
	(void)state;
	json_error_t jerr;
	json_t *root = json_loads(formats_example, 0, &jerr);
	assert_non_null(root);
	struct instance *in = NULL, *text = parse_as(formats_example, "x.json");
	struct error err = {{0}};
	assert_int_equal(instance_from_json(root, "x.json", &in, &err), STATUS_OK);
	assert_instances_equal(in, text);
	assert_int_equal(json_integer_value(json_object_get(root, "devices")), 4);
	instance_free(in);
	instance_free(text);
	json_decref(root);

	root = json_pack("{s:i,s:i,s:{s:[ii],s:i}}", "devices", 2, "microbatches", 1, "cost",
			 "F", 1, 1, "B", 0);
	in = (struct instance *)1;
	assert_int_equal(instance_from_json(root, "obj", &in, &err), STATUS_ERROR);
	assert_null(in);
	assert_string_equal(err.msg, "instance 'obj': cost.B: duration 0: F and B must take time");
	json_decref(root);
}

/*
 * The docs/formats.md example built in code: placement "linear" gives stage l
 * device l, the chain's edges are written out, and every field equals the
 * parsed file's (the derived ones too).
 */
static void test_new_finish_example(void **state)
{
	(void)state;
	struct instance_size size = {.devices = 4, .stages = 4, .nedges = 3, .microbatches = 8,
				     .split_backward = true, .has_memory = true, .has_limit = true};
	struct instance *in = instance_new("zb-1p-example", &size);
	assert_non_null(in);
	free(in->placement);
	in->placement = strdup("linear");
	for (int l = 0; l < 4; l++) {
		in->stage_device[l] = 3;   /* overwritten by the named placement */
		in->cost[OP_F][l] = 18522;
		in->cost[OP_B][l] = 18086;
		in->cost[OP_W][l] = 9337;
		in->mem[OP_F][l] = 2;
		in->mem[OP_B][l] = -1;
		in->mem[OP_W][l] = -1;
		in->limit[l] = 16;
	}
	for (int e = 0; e < 3; e++) {
		in->edges[e][0] = e;
		in->edges[e][1] = e + 1;
		in->edge_comm[e] = 601;
	}
	struct error err = {{0}};
	if (instance_finish(in, "built", &err))
		fail_msg("%s", err.msg);
	assert_ints(in->stage_device, (int[]){0, 1, 2, 3}, 4);
	assert_true(in->is_chain);
	assert_ints(in->topo, (int[]){0, 1, 2, 3}, 4);
	struct instance *file = parse_as(formats_example, "x.json");
	assert_instances_equal(in, file);
	/* a second finish after an edit recomputes the derived fields */
	in->edge_comm[1] = 7;
	file->edge_comm[1] = 7;
	assert_int_equal(instance_finish(in, "built", &err), STATUS_OK);
	assert_int_equal(link_lag(in->succ, in->succ_start[1], in->succ_start[2], 2), 7);
	instance_free(file);
	instance_free(in);
}

/*
 * A diamond 0 -> {1, 2} -> 3 on a list placement [0, 1, 1, 0], fused
 * backward, no memory, span objective, with a model; "v" with 2 chunks on
 * 2 devices gives devices 0, 1, 1, 0 by hand (pass 0 forward, pass 1 back).
 */
static void test_new_finish_dag(void **state)
{
	(void)state;
	struct instance_size size = {.devices = 2, .stages = 4, .nedges = 4, .microbatches = 3};
	struct instance *in = instance_new("diamond", &size);
	assert_non_null(in);
	assert_null(in->cost[OP_W]);
	assert_null(in->mem[OP_F]);
	assert_null(in->limit);
	int dev[4] = {0, 1, 1, 0}, E[4][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
	for (int l = 0; l < 4; l++) {
		in->stage_device[l] = dev[l];
		in->cost[OP_F][l] = l + 1;
		in->cost[OP_B][l] = 2 * (l + 1);
	}
	for (int e = 0; e < 4; e++) {
		in->edges[e][0] = E[e][0];
		in->edges[e][1] = E[e][1];
		in->edge_comm[e] = 5;
	}
	in->objective = OBJ_SPAN;
	in->model = stage_model_new("g", 4);
	assert_non_null(in->model);
	assert_int_equal(stage_model_add(in->model, 0, "a", "linear"), 0);
	assert_int_equal(stage_model_add(in->model, 3, "d", "gelu"), 0);
	struct error err = {{0}};
	if (instance_finish(in, "diamond", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(in->kinds, 2);
	assert_false(in->is_chain);
	/* 0 -> 1 crosses devices (lag 5); 1 -> 3 too; 0 and 3 share device 0 */
	assert_int_equal(link_lag(in->succ, in->succ_start[0], in->succ_start[1], 1), 5);
	assert_int_equal(link_lag(in->pred, in->pred_start[3], in->pred_start[4], 1), 5);
	struct instance *file = parse_as(
		"{\"name\":\"diamond\",\"devices\":2,\"microbatches\":3,\"placement\":[0,1,1,0],"
		"\"edges\":[[0,1],[0,2],[1,3],[2,3]],\"cost\":{\"F\":[1,2,3,4],\"B\":[2,4,6,8]},"
		"\"comm\":5,\"objective\":\"span\",\"model\":{\"graph\":\"g\",\"stages\":"
		"[[{\"name\":\"a\",\"kind\":\"linear\"}],[],[],[{\"name\":\"d\",\"kind\":\"gelu\"}]]}}",
		"diamond.json");
	assert_instances_equal(in, file);
	instance_free(file);

	free(in->placement);
	in->placement = strdup("v");
	in->chunks = 2;
	memset(in->stage_device, 0, 4 * sizeof(int));
	assert_int_equal(instance_finish(in, "diamond", &err), STATUS_OK);
	assert_ints(in->stage_device, (int[]){0, 1, 1, 0}, 4);
	instance_free(in);
}

/* A valid instance to break: 3 devices, list [0, 1, 2], chain, split,
 * memory F 2, B -1, W -1, limit 16, model of 3 empty stages. */
static struct instance *base_built(void)
{
	struct instance_size size = {.devices = 3, .stages = 3, .nedges = 2, .microbatches = 2,
				     .split_backward = true, .has_memory = true, .has_limit = true};
	struct instance *in = instance_new("built", &size);
	assert_non_null(in);
	for (int l = 0; l < 3; l++) {
		in->stage_device[l] = l;
		in->cost[OP_F][l] = in->cost[OP_B][l] = in->cost[OP_W][l] = 1;
		in->mem[OP_F][l] = 2;
		in->mem[OP_B][l] = in->mem[OP_W][l] = -1;
		in->limit[l] = 16;
	}
	for (int e = 0; e < 2; e++) {
		in->edges[e][0] = e;
		in->edges[e][1] = e + 1;
	}
	in->model = stage_model_new(NULL, 3);
	assert_non_null(in->model);
	return in;
}

static void break_cost_f(struct instance *in) { in->cost[OP_F][1] = 0; }
static void break_cost_w(struct instance *in) { in->cost[OP_W][0] = -1; }
static void break_comm(struct instance *in) { in->edge_comm[0] = INST_MAX_DURATION + 1; }
static void break_devices(struct instance *in) { in->devices = 0; }
static void break_device_of(struct instance *in) { in->stage_device[2] = 5; }
static void break_placement(struct instance *in)
{
	free(in->placement);
	in->placement = strdup("ring");
}
static void break_linear_count(struct instance *in)
{
	free(in->placement);
	in->placement = strdup("interleaved");
	in->chunks = 2;   /* 6 stages, but 3 */
}
static void break_loop(struct instance *in) { in->edges[1][0] = 1, in->edges[1][1] = 1; }
static void break_dup(struct instance *in) { in->edges[1][0] = 0, in->edges[1][1] = 1; }
static void break_endpoint(struct instance *in) { in->edges[0][1] = 9; }
static void break_cycle(struct instance *in) { in->edges[1][0] = 1, in->edges[1][1] = 0; }
static void break_sums(struct instance *in) { in->mem[OP_B][2] = 0; }
static void break_limit(struct instance *in) { in->limit[1] = 1; }
static void break_split(struct instance *in) { in->split_backward = false; }
static void break_no_memory(struct instance *in) { in->has_memory = false; }
static void break_model(struct instance *in)
{
	stage_model_free(in->model);
	in->model = stage_model_new(NULL, 2);
}
static void break_objective(struct instance *in) { in->objective = (enum objective)7; }

/* instance_finish rejects what the parser rejects, in its words, naming
 * the source and the entry. Expected messages by hand from the rules. */
static void test_finish_rejects(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		void (*edit)(struct instance *);
		const char *where, *what;
	} cases[] = {
		{"F of 0", break_cost_f, "cost.F[1]: ", "0 is below the minimum 1"},
		{"negative W", break_cost_w, "cost.W[0]: ", "-1 is negative"},
		{"comm too big", break_comm, "comm[0]: ", "4294967297 exceeds the maximum 4294967296"},
		{"no devices", break_devices, "devices: ", "0 is below the minimum 1"},
		{"no such device", break_device_of, "placement[2]: ",
		 "stage 2 is placed on device 5, but no such device runs it (devices are 0..2)"},
		{"unknown placement", break_placement, "placement: ", "unknown placement 'ring'"},
		{"named count", break_linear_count, "placement: ",
		 "'interleaved' with 2 chunks on 3 devices means 6 stages, but the instance has 3"},
		{"self loop", break_loop, "edges[1]: ", "edge from stage 1 to itself makes a cycle"},
		{"duplicate", break_dup, "edges[1]: ", "duplicate of edges[0]"},
		{"endpoint", break_endpoint, "edges[0][1]: ", "stage 9 does not exist (stages are 0..2)"},
		{"cycle", break_cycle, "edges: ", "cycle through stages"},
		{"sums", break_sums, "memory: ", "deltas of stage 2 sum to 1, expected 0 (F + B + W)"},
		{"limit", break_limit, "memory.limit: ",
		 "device 1 has limit 1, below the 2 that F of stage 1 needs"},
		{"W given", break_split, "cost.W: ", "given, but split_backward is false (fold W into B)"},
		{"limit alone", break_no_memory, "memory.limit: ", "given, but no memory deltas are"},
		{"model stages", break_model, "model.stages: ", "has 2 entries for 3 stages"},
		{"objective", break_objective, "objective: ", "unknown objective 7"},
	};
	struct instance *in = base_built();
	struct error err = {{0}};
	if (instance_finish(in, "built", &err))
		fail_msg("base: %s", err.msg);
	instance_free(in);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		in = base_built();
		cases[i].edit(in);
		if (instance_finish(in, "built", &err) != STATUS_ERROR)
			fail_msg("case '%s': accepted", cases[i].name);
		check_error_message(cases[i].name, err.msg, "instance 'built': ", cases[i].where,
				    cases[i].what);
		instance_free(in);
	}
}

/* instance_to_json: the order and values of a small instance by hand (the
 * default name from the source, the chain written out, per-stage lists). */
static void test_to_json_text(void **state)
{
	(void)state;
	struct instance *in = parse_as("{\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":1,\"B\":2}}",
				       "dir/t.json");
	json_t *j = instance_to_json(in);
	char *text = json_dumps(j, JSON_COMPACT);
	assert_string_equal(text,
		"{\"name\":\"t\",\"devices\":2,\"microbatches\":3,\"placement\":\"linear\","
		"\"edges\":[[0,1]],\"split_backward\":false,\"cost\":{\"F\":[1,1],\"B\":[2,2]},"
		"\"comm\":[0],\"objective\":\"makespan\"}");
	free(text);
	json_decref(j);
	instance_free(in);
}

/* Every shape of instance file, written with instance_to_json and parsed
 * back, is the same instance field by field (digest included). */
static void test_to_json_round_trip(void **state)
{
	(void)state;
	static const char *const files[] = {
		formats_example,
		"{\"devices\":2,\"microbatches\":4,\"chunks\":2,\"placement\":\"interleaved\","
		"\"cost\":{\"F\":[1,2,3,4],\"B\":2,\"W\":0},\"comm\":[1,2,3],"
		"\"memory\":{\"F\":3,\"B\":-2,\"W\":-1}}",
		"{\"devices\":2,\"microbatches\":2,\"chunks\":2,\"placement\":\"v\","
		"\"cost\":{\"F\":1,\"B\":1},\"objective\":\"span\"}",
		"{\"name\":\"d\",\"devices\":2,\"microbatches\":1,\"placement\":[1,0,1],"
		"\"edges\":[[2,1],[0,1]],\"cost\":{\"F\":1,\"B\":1,\"W\":1},\"comm\":[4,0],"
		"\"memory\":{\"F\":1,\"B\":0,\"W\":-1,\"limit\":[5,6]},"
		"\"model\":{\"stages\":[[{\"name\":\"x\",\"kind\":\"linear\"}],[],[]]}}",
		"{\"devices\":3,\"microbatches\":2,\"chunks\":1,\"placement\":[0,1,2],\"edges\":[],"
		"\"cost\":{\"F\":1,\"B\":1}}",
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		struct instance *in = parse_as(files[i], "rt.json");
		struct instance *back = instance_round_trip(in, "rt.json");
		assert_instances_equal(in, back);
		instance_free(back);
		instance_free(in);
	}
}

/* instance_write writes a file that instance_read reads back equal; a
 * path in a missing folder fails naming it. */
static void test_instance_write(void **state)
{
	(void)state;
	struct instance *in = parse_as(formats_example, "x.json");
	struct error err = {{0}};
	const char *path = "test_instance_write.json";
	assert_int_equal(instance_write(in, path, &err), STATUS_OK);
	struct instance *back = NULL;
	if (instance_read(path, &back, &err))
		fail_msg("%s", err.msg);
	remove(path);
	assert_instances_equal(in, back);
	instance_free(back);
	assert_int_equal(instance_write(in, "no-such-dir/x.json", &err), STATUS_ERROR);
	assert_contains(err.msg, "no-such-dir/x.json");
	instance_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats_example),
		cmocka_unit_test(test_name_default),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_placement_linear),
		cmocka_unit_test(test_placement_interleaved),
		cmocka_unit_test(test_placement_v),
		cmocka_unit_test(test_placement_list),
		cmocka_unit_test(test_per_stage_costs),
		cmocka_unit_test(test_limits_accepted),
		cmocka_unit_test(test_dag_diamond),
		cmocka_unit_test(test_dag_unordered),
		cmocka_unit_test(test_chain_lag_same_device),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_cycle_message_simple),
		cmocka_unit_test(test_cycle_message_with_tail),
		cmocka_unit_test(test_message_one_line_with_newline_in_key),
		cmocka_unit_test(test_limit_below_b_peak),
		cmocka_unit_test(test_read_missing_file),
		cmocka_unit_test(test_read_dataset),
		cmocka_unit_test(test_read_malformed_file),
		cmocka_unit_test(test_bad_datasets),
		cmocka_unit_test(test_model_typed),
		cmocka_unit_test(test_from_json),
		cmocka_unit_test(test_new_finish_example),
		cmocka_unit_test(test_new_finish_dag),
		cmocka_unit_test(test_finish_rejects),
		cmocka_unit_test(test_to_json_text),
		cmocka_unit_test(test_to_json_round_trip),
		cmocka_unit_test(test_instance_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
