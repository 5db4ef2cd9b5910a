/*
 * Field-by-field equality of two instances, for the tests of instances
 * built in code (instance_new/instance_finish, partition_instance) against
 * the ones their JSON parses back to. Include after test_helpers.h.
 */
#ifndef PIPEOPT_TEST_INSTANCE_EQUAL_H
#define PIPEOPT_TEST_INSTANCE_EQUAL_H

#include "sched/instance.h"

static inline void ieq_ints(const char *what, const int *a, const int *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			fail_msg("%s[%d]: %d != %d", what, i, a[i], b[i]);
}

static inline void ieq_int64s(const char *what, const int64_t *a, const int64_t *b, int n)
{
	if (!a || !b) {
		if (a != b)
			fail_msg("%s: given in one instance only", what);
		return;
	}
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			fail_msg("%s[%d]: %lld != %lld", what, i, (long long)a[i], (long long)b[i]);
}

static inline void ieq_links(const char *what, const struct stage_link *a,
			     const struct stage_link *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].stage != b[i].stage || a[i].lag != b[i].lag)
			fail_msg("%s[%d]: (%d, %lld) != (%d, %lld)", what, i, a[i].stage,
				 (long long)a[i].lag, b[i].stage, (long long)b[i].lag);
}

static inline void ieq_model(const struct stage_model *a, const struct stage_model *b)
{
	if (!a || !b) {
		if (a != b)
			fail_msg("model: given in one instance only");
		return;
	}
	if ((a->graph == NULL) != (b->graph == NULL))
		fail_msg("model.graph: given in one instance only");
	if (a->graph)
		assert_string_equal(a->graph, b->graph);
	assert_int_equal(a->nstages, b->nstages);
	for (int l = 0; l < a->nstages; l++) {
		assert_int_equal(a->stages[l].nops, b->stages[l].nops);
		for (int i = 0; i < a->stages[l].nops; i++) {
			assert_string_equal(a->stages[l].ops[i].name, b->stages[l].ops[i].name);
			assert_string_equal(a->stages[l].ops[i].kind, b->stages[l].ops[i].kind);
		}
	}
}

/* Every field, the derived ones and the digest included. */
static inline void assert_instances_equal(const struct instance *a, const struct instance *b)
{
	static const char *const cost[] = {"cost.F", "cost.B", "cost.W"};
	static const char *const mem[] = {"memory.F", "memory.B", "memory.W"};
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->devices, b->devices);
	assert_int_equal(a->microbatches, b->microbatches);
	assert_int_equal(a->chunks, b->chunks);
	assert_int_equal(a->stages, b->stages);
	ieq_ints("stage_device", a->stage_device, b->stage_device, a->stages);
	assert_string_equal(a->placement, b->placement);
	assert_int_equal(a->nedges, b->nedges);
	for (int e = 0; e < a->nedges; e++)
		ieq_ints("edges", a->edges[e], b->edges[e], 2);
	ieq_int64s("comm", a->edge_comm, b->edge_comm, a->nedges);
	assert_int_equal(a->split_backward, b->split_backward);
	assert_int_equal(a->kinds, b->kinds);
	for (int k = 0; k < OP_KINDS; k++)
		ieq_int64s(cost[k], a->cost[k], b->cost[k], a->stages);
	assert_int_equal(a->has_memory, b->has_memory);
	for (int k = 0; k < OP_KINDS; k++)
		ieq_int64s(mem[k], a->mem[k], b->mem[k], a->stages);
	assert_int_equal(a->has_limit, b->has_limit);
	ieq_int64s("memory.limit", a->limit, b->limit, a->devices);
	assert_int_equal(a->objective, b->objective);
	ieq_model(a->model, b->model);
	ieq_ints("pred_start", a->pred_start, b->pred_start, a->stages + 1);
	ieq_links("pred", a->pred, b->pred, a->nedges);
	ieq_ints("succ_start", a->succ_start, b->succ_start, a->stages + 1);
	ieq_links("succ", a->succ, b->succ, a->nedges);
	ieq_ints("topo", a->topo, b->topo, a->stages);
	assert_int_equal(a->is_chain, b->is_chain);
	char da[65], db[65];
	instance_digest(a, da);
	instance_digest(b, db);
	assert_string_equal(da, db);
}

/* in's instance_to_json(), as text and parsed back (the path of a file
 * that `partition -o` writes and `simulate` reads); the caller frees it. */
static inline struct instance *instance_round_trip(const struct instance *in, const char *source)
{
	json_t *j = instance_to_json(in);
	assert_non_null(j);
	char *text = json_dumps(j, JSON_INDENT(1));
	json_decref(j);
	assert_non_null(text);
	struct instance *back = NULL;
	struct error err = {{0}};
	if (instance_parse(text, source, &back, &err))
		fail_msg("instance_to_json output rejected: %s\n%s", err.msg, text);
	free(text);
	return back;
}

#endif
