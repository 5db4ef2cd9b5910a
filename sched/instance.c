/*
 * Reading and validating schedule instances (docs/formats.md, "Schedule instance").
 *
 * Every rejection names the source and the key:
 *     instance 'x.json': cost.F: list has 3 entries, expected 4 (one per stage)
 * and JSON syntax errors name line and column (jansson reports them).
 */
#include "sched/instance.h"
#include "common/fileio.h"
#include "common/json_read.h"
#include "common/sha256.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number for all n entries, or a list of exactly n numbers. `per` says what
 * the entries are ("stage", "device", "edge"). Returns a new array in *out. */
static enum status int_or_list(const struct jr_ctx *c, const char *key,
			       const json_t *v, int n, const char *per,
			       int64_t lo, int64_t hi, int64_t **out)
{
	int64_t *a = calloc(n > 0 ? n : 1, sizeof *a);
	if (!a)
		return jr_fail(c, key, "out of memory");
	if (json_is_array(v)) {
		if ((int)json_array_size(v) != n) {
			free(a);
			return jr_fail(c, key, "list has %zu entries, expected %d (one per %s)",
				       json_array_size(v), n, per);
		}
		for (int i = 0; i < n; i++) {
			char k[128];
			snprintf(k, sizeof k, "%s[%d]", key, i);
			if (jr_int(c, k, json_array_get(v, i), lo, hi, &a[i])) {
				free(a);
				return STATUS_ERROR;
			}
		}
	} else {
		int64_t x;
		if (!json_is_integer(v)) {
			free(a);
			return jr_fail(c, key, "expected an integer or a list of %d integers (one per %s), got %s",
				       n, per, jr_type_name(v));
		}
		if (jr_int(c, key, v, lo, hi, &x)) {
			free(a);
			return STATUS_ERROR;
		}
		for (int i = 0; i < n; i++)
			a[i] = x;
	}
	*out = a;
	return STATUS_OK;
}

static enum status parse_sizes(const struct jr_ctx *c, json_t *root,
			       struct instance *in)
{
	int64_t x;
	json_t *v = json_object_get(root, "devices");
	if (!v)
		return jr_fail(c, "devices", "required key is missing");
	if (jr_int(c, "devices", v, 1, INST_MAX_DEVICES, &x))
		return STATUS_ERROR;
	in->devices = (int)x;
	v = json_object_get(root, "microbatches");
	if (!v)
		return jr_fail(c, "microbatches", "required key is missing");
	if (jr_int(c, "microbatches", v, 1, INST_MAX_MICROBATCHES, &x))
		return STATUS_ERROR;
	in->microbatches = (int)x;
	in->chunks = 1;
	v = json_object_get(root, "chunks");
	if (v) {
		if (jr_int(c, "chunks", v, 1, INST_MAX_CHUNKS, &x))
			return STATUS_ERROR;
		in->chunks = (int)x;
	}
	return STATUS_OK;
}

/* Device of stage l under a named placement with D devices. */
static int named_device(const char *placement, int l, int D)
{
	if (!strcmp(placement, "v")) {
		int pass = l / D, pos = l % D;
		return pass % 2 == 0 ? pos : D - 1 - pos;
	}
	return l % D;   /* linear (l < D) and interleaved */
}

/* A placement by name: one the format knows, and "linear" only with one
 * chunk per device (the parser's and instance_finish's one check). */
static enum status check_named_placement(const struct jr_ctx *c, const char *name, int chunks)
{
	if (strcmp(name, "linear") && strcmp(name, "interleaved") && strcmp(name, "v"))
		return jr_fail(c, "placement", "unknown placement '%s' (expected \"linear\", \"interleaved\", \"v\" or a list)",
			       name);
	if (!strcmp(name, "linear") && chunks != 1)
		return jr_fail(c, "placement", "'linear' puts one stage on each device, but chunks is %d; use \"interleaved\" or \"v\"",
			       chunks);
	return STATUS_OK;
}

static enum status parse_placement(const struct jr_ctx *c, json_t *root,
				   struct instance *in)
{
	json_t *v = json_object_get(root, "placement");
	const char *name = "linear";
	bool chunks_given = json_object_get(root, "chunks") != NULL;
	if (v && json_is_array(v)) {
		size_t n = json_array_size(v);
		if (n < 1 || n > INST_MAX_STAGES)
			return jr_fail(c, "placement", "list has %zu entries, expected 1 to %d stages",
				       n, INST_MAX_STAGES);
		if (chunks_given && n != (size_t)in->devices * in->chunks)
			return jr_fail(c, "placement", "list has %zu stages but chunks %d on %d devices means %d; omit chunks or match it",
				       n, in->chunks, in->devices, in->devices * in->chunks);
		in->stages = (int)n;
		in->stage_device = calloc(n, sizeof(int));
		in->placement = strdup("list");
		if (!in->stage_device || !in->placement)
			return jr_fail(c, "placement", "out of memory");
		for (size_t l = 0; l < n; l++) {
			char key[64];
			int64_t d;
			snprintf(key, sizeof key, "placement[%zu]", l);
			json_t *e = json_array_get(v, l);
			if (!json_is_integer(e))
				return jr_fail(c, key, "expected a device number, got %s",
					       jr_type_name(e));
			d = json_integer_value(e);
			if (d < 0 || d >= in->devices)
				return jr_fail(c, key, "stage %zu is placed on device %" PRId64 ", but no such device runs it (devices are 0..%d)",
					       l, d, in->devices - 1);
			in->stage_device[l] = (int)d;
		}
		return STATUS_OK;
	}
	if (v && !json_is_string(v))
		return jr_fail(c, "placement", "expected \"linear\", \"interleaved\", \"v\" or a list of devices, got %s",
			       jr_type_name(v));
	if (v)
		name = json_string_value(v);
	if (check_named_placement(c, name, in->chunks))
		return STATUS_ERROR;
	long long L = (long long)in->devices * in->chunks;
	if (L > INST_MAX_STAGES)
		return jr_fail(c, "chunks", "%d devices x %d chunks = %lld stages exceeds the maximum %d",
			       in->devices, in->chunks, L, INST_MAX_STAGES);
	in->stages = (int)L;
	in->stage_device = calloc(L, sizeof(int));
	in->placement = strdup(name);
	if (!in->stage_device || !in->placement)
		return jr_fail(c, "placement", "out of memory");
	for (int l = 0; l < in->stages; l++)
		in->stage_device[l] = named_device(name, l, in->devices);
	return STATUS_OK;
}

/* Edge i of in->edges (its stages in range) is no loop and no duplicate of
 * an earlier one; key names it. */
static enum status check_edge(const struct jr_ctx *c, const char *key,
			      const struct instance *in, int i)
{
	if (in->edges[i][0] == in->edges[i][1])
		return jr_fail(c, key, "edge from stage %d to itself makes a cycle",
			       in->edges[i][0]);
	for (int j = 0; j < i; j++)
		if (in->edges[j][0] == in->edges[i][0] &&
		    in->edges[j][1] == in->edges[i][1])
			return jr_fail(c, key, "duplicate of edges[%d]", j);
	return STATUS_OK;
}

static enum status parse_edges(const struct jr_ctx *c, json_t *root,
			       struct instance *in)
{
	json_t *v = json_object_get(root, "edges");
	int L = in->stages;
	if (!v) {
		in->nedges = L - 1;
		in->edges = calloc(L > 1 ? L - 1 : 1, sizeof *in->edges);
		if (!in->edges)
			return jr_fail(c, "edges", "out of memory");
		for (int l = 0; l + 1 < L; l++) {
			in->edges[l][0] = l;
			in->edges[l][1] = l + 1;
		}
		return STATUS_OK;
	}
	if (!json_is_array(v))
		return jr_fail(c, "edges", "expected a list of [from, to] pairs, got %s",
			       jr_type_name(v));
	size_t n = json_array_size(v);
	if (n > (size_t)16 * INST_MAX_STAGES)
		return jr_fail(c, "edges", "%zu edges exceeds the maximum %d", n,
			       16 * INST_MAX_STAGES);
	in->nedges = (int)n;
	in->edges = calloc(n ? n : 1, sizeof *in->edges);
	if (!in->edges)
		return jr_fail(c, "edges", "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(v, i);
		char key[64];
		snprintf(key, sizeof key, "edges[%zu]", i);
		if (!json_is_array(e) || json_array_size(e) != 2)
			return jr_fail(c, key, "expected a [from, to] pair of stages");
		for (int k = 0; k < 2; k++) {
			int64_t s;
			char sub[80];
			snprintf(sub, sizeof sub, "%s[%d]", key, k);
			json_t *x = json_array_get(e, k);
			if (!json_is_integer(x))
				return jr_fail(c, sub, "expected a stage number, got %s",
					       jr_type_name(x));
			s = json_integer_value(x);
			if (s < 0 || s >= L)
				return jr_fail(c, sub, "stage %" PRId64 " does not exist (stages are 0..%d)",
					       s, L - 1);
			in->edges[i][k] = (int)s;
		}
		if (check_edge(c, key, in, (int)i))
			return STATUS_ERROR;
	}
	return STATUS_OK;
}

static enum status parse_costs(const struct jr_ctx *c, json_t *root,
			       struct instance *in)
{
	static const char *const known[] = {"F", "B", "W", NULL};
	json_t *cost = json_object_get(root, "cost");
	if (!cost)
		return jr_fail(c, "cost", "required key is missing");
	if (!json_is_object(cost))
		return jr_fail(c, "cost", "expected an object {\"F\": .., \"B\": .., \"W\": ..}, got %s",
			       jr_type_name(cost));
	if (jr_check_keys(c, "cost", cost, known))
		return STATUS_ERROR;
	json_t *w = json_object_get(cost, "W");
	json_t *split = json_object_get(root, "split_backward");
	if (split && !json_is_boolean(split))
		return jr_fail(c, "split_backward", "expected true or false, got %s",
			       jr_type_name(split));
	in->split_backward = split ? json_is_true(split) : w != NULL;
	if (in->split_backward && !w)
		return jr_fail(c, "cost.W", "required when split_backward is true");
	if (!in->split_backward && w)
		return jr_fail(c, "cost.W", "given, but split_backward is false (fold W into B)");
	in->kinds = in->split_backward ? 3 : 2;
	static const char *const keys[] = {"cost.F", "cost.B", "cost.W"};
	for (int k = 0; k < in->kinds; k++) {
		json_t *v = json_object_get(cost, op_kind_name(k));
		if (!v)
			return jr_fail(c, keys[k], "required key is missing");
		/* F and B must take time; W may be free. */
		int64_t lo = k == OP_W ? 0 : 1;
		if (k != OP_W && json_is_integer(v) && json_integer_value(v) == 0)
			return jr_fail(c, keys[k], "duration 0: F and B must take time");
		if (json_is_array(v)) {
			for (size_t i = 0; i < json_array_size(v); i++) {
				json_t *x = json_array_get(v, i);
				if (k != OP_W && json_is_integer(x) &&
				    json_integer_value(x) == 0)
					return jr_fail(c, keys[k], "entry %zu is 0: F and B must take time", i);
				if (json_is_integer(x) && json_integer_value(x) < 0)
					return jr_fail(c, keys[k], "entry %zu is negative", i);
			}
		}
		if (json_is_integer(v) && json_integer_value(v) < 0)
			return jr_fail(c, keys[k], "duration %" PRId64 " is negative",
				       (int64_t)json_integer_value(v));
		if (int_or_list(c, keys[k], v, in->stages, "stage", lo,
				INST_MAX_DURATION, &in->cost[k]))
			return STATUS_ERROR;
	}
	return STATUS_OK;
}

static enum status parse_comm(const struct jr_ctx *c, json_t *root,
			      struct instance *in)
{
	json_t *v = json_object_get(root, "comm");
	int n = in->nedges;
	if (!v) {
		in->edge_comm = calloc(n ? n : 1, sizeof(int64_t));
		return in->edge_comm ? STATUS_OK : jr_fail(c, "comm", "out of memory");
	}
	return int_or_list(c, "comm", v, n, "edge, in edges order", 0,
			   INST_MAX_DURATION, &in->edge_comm);
}

static enum status check_single_op_memory(const struct jr_ctx *c,
					  const struct instance *in);

/* Each stage's deltas sum to 0: a micro-batch frees what it holds. */
static enum status check_memory_sums(const struct jr_ctx *c,
				     const struct instance *in)
{
	for (int l = 0; l < in->stages; l++) {
		int64_t sum = in->mem[OP_F][l] + in->mem[OP_B][l] +
			      (in->split_backward ? in->mem[OP_W][l] : 0);
		if (sum != 0)
			return jr_fail(c, "memory", "deltas of stage %d sum to %" PRId64 ", expected 0 (%s)",
				       l, sum, in->split_backward ? "F + B + W" : "F + B");
	}
	return STATUS_OK;
}

static enum status parse_memory(const struct jr_ctx *c, json_t *root,
				struct instance *in)
{
	static const char *const known[] = {"F", "B", "W", "limit", NULL};
	static const char *const keys[] = {"memory.F", "memory.B", "memory.W"};
	json_t *mem = json_object_get(root, "memory");
	if (!mem)
		return STATUS_OK;
	if (!json_is_object(mem))
		return jr_fail(c, "memory", "expected an object {\"F\", \"B\", \"W\", \"limit\"}, got %s",
			       jr_type_name(mem));
	if (jr_check_keys(c, "memory", mem, known))
		return STATUS_ERROR;
	in->has_memory = true;
	for (int k = 0; k < OP_KINDS; k++) {
		json_t *v = json_object_get(mem, op_kind_name(k));
		if (k == OP_W && !in->split_backward) {
			if (v)
				return jr_fail(c, keys[k], "given, but split_backward is false");
			continue;
		}
		if (!v)
			return jr_fail(c, keys[k], "required when memory is given");
		if (int_or_list(c, keys[k], v, in->stages, "stage",
				k == OP_F ? 0 : -INST_MAX_DELTA, INST_MAX_DELTA,
				&in->mem[k]))
			return STATUS_ERROR;
	}
	if (check_memory_sums(c, in))
		return STATUS_ERROR;
	json_t *lim = json_object_get(mem, "limit");
	if (!lim)
		return STATUS_OK;
	in->has_limit = true;
	if (int_or_list(c, "memory.limit", lim, in->devices, "device", 0,
			INST_MAX_LIMIT, &in->limit))
		return STATUS_ERROR;
	return check_single_op_memory(c, in);
}

/*
 * An op whose own micro-batch already needs more than the limit can never
 * run. After F(l,j) starts, its micro-batch holds F; after B(l,j), F + B
 * (W comes later). Other micro-batches hold a prefix sum of their stage's
 * deltas: 0, F', F' + B', or 0 again, all >= 0 when every W' on the device
 * is <= 0. Only then is max(F, F + B) a sound need, so devices with a
 * positive W delta are left to the simulator.
 */
static enum status check_single_op_memory(const struct jr_ctx *c,
					  const struct instance *in)
{
	for (int l = 0; l < in->stages; l++) {
		int d = in->stage_device[l];
		bool prefixes_nonneg = true;
		for (int k = 0; k < in->stages && in->split_backward; k++)
			if (in->stage_device[k] == d && in->mem[OP_W][k] > 0)
				prefixes_nonneg = false;
		if (!prefixes_nonneg)
			continue;
		int64_t f = in->mem[OP_F][l], fb = f + in->mem[OP_B][l];
		if (f > in->limit[d])
			return jr_fail(c, "memory.limit", "device %d has limit %" PRId64 ", below the %" PRId64 " that F of stage %d needs",
				       d, in->limit[d], f, l);
		if (fb > in->limit[d])
			return jr_fail(c, "memory.limit", "device %d has limit %" PRId64 ", below the %" PRId64 " that F + B of stage %d need",
				       d, in->limit[d], fb, l);
	}
	return STATUS_OK;
}

static enum status finish_overlap(const struct jr_ctx *c, const struct instance *in)
{
	if (in->has_overlap && !(in->overlap >= 0 && in->overlap <= 1))
		return jr_fail(c, "overlap.factor", "%g is outside [0, 1]", in->overlap);
	return STATUS_OK;
}

static enum status parse_objective(const struct jr_ctx *c, json_t *root,
				   struct instance *in)
{
	json_t *v = json_object_get(root, "objective");
	in->objective = OBJ_MAKESPAN;
	if (!v)
		return STATUS_OK;
	if (!json_is_string(v))
		return jr_fail(c, "objective", "expected \"makespan\" or \"span\", got %s",
			       jr_type_name(v));
	if (!strcmp(json_string_value(v), "span"))
		in->objective = OBJ_SPAN;
	else if (strcmp(json_string_value(v), "makespan"))
		return jr_fail(c, "objective", "unknown objective '%s' (expected \"makespan\" or \"span\")",
			       json_string_value(v));
	return STATUS_OK;
}

/* "overlap": {"factor": rho}, rho in [0, 1] (instance.h). */
static enum status parse_overlap(const struct jr_ctx *c, json_t *root, struct instance *in)
{
	static const char *const known[] = {"factor", NULL};
	json_t *v = json_object_get(root, "overlap");
	if (!v)
		return STATUS_OK;
	if (!json_is_object(v))
		return jr_fail(c, "overlap", "expected an object {\"factor\": RHO}, got %s",
			       jr_type_name(v));
	if (jr_check_keys(c, "overlap", v, known))
		return STATUS_ERROR;
	json_t *f = json_object_get(v, "factor");
	if (!f)
		return jr_fail(c, "overlap.factor", "required key is missing");
	if (!json_is_number(f))
		return jr_fail(c, "overlap.factor", "expected a number in [0, 1], got %s",
			       jr_type_name(f));
	in->overlap = json_number_value(f);
	in->has_overlap = true;
	return finish_overlap(c, in);
}

static enum status finish_recompute(const struct jr_ctx *c, const struct instance *in)
{
	if (!in->has_recompute)
		return STATUS_OK;
	if (!in->has_memory)
		return jr_fail(c, "recompute", "needs memory: recomputation trades time for memory, and the instance gives no memory deltas");
	for (int l = 0; l < in->stages; l++) {
		if (in->recompute_cost[l] < 0 || in->recompute_cost[l] > INST_MAX_DURATION)
			return jr_fail(c, "recompute.R", "stage %d: %" PRId64 " is outside [0, %lld]",
				       l, in->recompute_cost[l], (long long)INST_MAX_DURATION);
		if (in->recompute_keep[l] < 0 || in->recompute_keep[l] > in->mem[OP_F][l])
			return jr_fail(c, "recompute.keep", "stage %d: %" PRId64 " is outside [0, %" PRId64 "] (0 to F's memory delta)",
				       l, in->recompute_keep[l], in->mem[OP_F][l]);
	}
	return STATUS_OK;
}

/* "recompute": {"R": cost, "keep": memory}, each a number or a list per
 * stage; keep defaults to 0 (instance.h). */
static enum status parse_recompute(const struct jr_ctx *c, json_t *root, struct instance *in)
{
	static const char *const known[] = {"R", "keep", NULL};
	json_t *v = json_object_get(root, "recompute");
	if (!v)
		return STATUS_OK;
	if (!json_is_object(v))
		return jr_fail(c, "recompute", "expected an object {\"R\": COST, \"keep\": MEMORY}, got %s",
			       jr_type_name(v));
	if (jr_check_keys(c, "recompute", v, known))
		return STATUS_ERROR;
	json_t *r = json_object_get(v, "R"), *keep = json_object_get(v, "keep");
	if (!r)
		return jr_fail(c, "recompute.R", "required key is missing");
	in->has_recompute = true;
	if (int_or_list(c, "recompute.R", r, in->stages, "stage", 0, INST_MAX_DURATION,
			&in->recompute_cost))
		return STATUS_ERROR;
	if (keep) {
		if (int_or_list(c, "recompute.keep", keep, in->stages, "stage", 0, INST_MAX_DELTA,
				&in->recompute_keep))
			return STATUS_ERROR;
	} else if (!(in->recompute_keep = calloc(in->stages > 0 ? in->stages : 1,
						 sizeof *in->recompute_keep))) {
		return jr_fail(c, "recompute", "out of memory");
	}
	return finish_recompute(c, in);
}

static enum status finish_offload(const struct jr_ctx *c, const struct instance *in)
{
	if (!in->has_offload)
		return STATUS_OK;
	if (!in->has_memory)
		return jr_fail(c, "offload", "needs memory: offload trades copy time for device memory, and the instance gives no memory deltas");
	if (in->has_recompute)
		return jr_fail(c, "offload", "offload together with \"recompute\" is not modelled yet; give one of them");
	if (in->has_overlap)
		return jr_fail(c, "offload", "offload together with \"overlap\" is not modelled yet; give one of them");
	for (int l = 0; l < in->stages; l++) {
		if (in->offload_cost[l] < 0 || in->offload_cost[l] > INST_MAX_DURATION ||
		    in->reload_cost[l] < 0 || in->reload_cost[l] > INST_MAX_DURATION)
			return jr_fail(c, in->offload_cost[l] < 0 || in->offload_cost[l] > INST_MAX_DURATION ?
				       "offload.O" : "offload.L", "stage %d: outside [0, %lld]",
				       l, (long long)INST_MAX_DURATION);
		if (in->offload_keep[l] < 0 || in->offload_keep[l] > in->mem[OP_F][l])
			return jr_fail(c, "offload.keep", "stage %d: %" PRId64 " is outside [0, %" PRId64 "] (0 to F's memory delta)",
				       l, in->offload_keep[l], in->mem[OP_F][l]);
	}
	for (int d = 0; in->has_host_limit && d < in->devices; d++)
		if (in->host_limit[d] < 0)
			return jr_fail(c, "offload.host_limit", "device %d: %" PRId64 " is negative",
				       d, in->host_limit[d]);
	return STATUS_OK;
}

/* Durations from "bandwidth" (memory units per time unit): what an offload
 * moves, F's delta less the kept part, over the rate, rounded up. */
static enum status offload_from_bandwidth(const struct jr_ctx *c, const json_t *bw,
					  struct instance *in)
{
	if (!json_is_number(bw) || !(json_number_value(bw) > 0) ||
	    json_number_value(bw) > 1e18)
		return jr_fail(c, "offload.bandwidth", "expected a positive number (memory units per time unit), got %s",
			       json_is_number(bw) ? "a number not above 0" : jr_type_name(bw));
	double rate = json_number_value(bw);
	int n = in->stages > 0 ? in->stages : 1;
	if (!(in->offload_cost = calloc(n, sizeof *in->offload_cost)) ||
	    !(in->reload_cost = calloc(n, sizeof *in->reload_cost)))
		return jr_fail(c, "offload", "out of memory");
	for (int l = 0; l < in->stages; l++) {
		int64_t moved = in->mem[OP_F][l] - in->offload_keep[l];
		double t = moved > 0 ? (double)moved / rate : 0;
		if (t > (double)INST_MAX_DURATION)
			return jr_fail(c, "offload.bandwidth", "stage %d: moving %" PRId64 " at %g takes longer than %lld",
				       l, moved, rate, (long long)INST_MAX_DURATION);
		int64_t whole = (int64_t)t;
		in->offload_cost[l] = in->reload_cost[l] = whole + ((double)whole < t - 1e-9);
	}
	return STATUS_OK;
}

/* "offload": {"O": cost, "L": cost, "keep": memory, "host_limit": memory}
 * (each a number or a list per stage, host_limit per device; L defaults to
 * O, keep to 0, the host to unlimited), or "bandwidth" instead of O and L
 * (instance.h). */
static enum status parse_offload(const struct jr_ctx *c, json_t *root, struct instance *in)
{
	static const char *const known[] = {"O", "L", "keep", "bandwidth", "host_limit", NULL};
	json_t *v = json_object_get(root, "offload");
	if (!v)
		return STATUS_OK;
	if (!json_is_object(v))
		return jr_fail(c, "offload", "expected an object {\"O\": COST, \"L\": COST, \"keep\": MEMORY} or {\"bandwidth\": RATE}, got %s",
			       jr_type_name(v));
	if (jr_check_keys(c, "offload", v, known))
		return STATUS_ERROR;
	if (!in->has_memory)
		return jr_fail(c, "offload", "needs memory: offload trades copy time for device memory, and the instance gives no memory deltas");
	json_t *o = json_object_get(v, "O"), *r = json_object_get(v, "L"),
	       *keep = json_object_get(v, "keep"), *bw = json_object_get(v, "bandwidth"),
	       *host = json_object_get(v, "host_limit");
	if (bw && (o || r))
		return jr_fail(c, "offload.bandwidth", "give either the durations O and L or the bandwidth, not both");
	if (!bw && !o)
		return jr_fail(c, r ? "offload.O" : "offload", r ? "required key is missing (L alone gives no offload duration)" :
			       "expected \"O\" (with \"L\") or \"bandwidth\"");
	in->has_offload = true;
	if (keep) {
		if (int_or_list(c, "offload.keep", keep, in->stages, "stage", 0, INST_MAX_DELTA,
				&in->offload_keep))
			return STATUS_ERROR;
	} else if (!(in->offload_keep = calloc(in->stages > 0 ? in->stages : 1,
					       sizeof *in->offload_keep))) {
		return jr_fail(c, "offload", "out of memory");
	}
	for (int l = 0; l < in->stages; l++)
		if (in->offload_keep[l] > in->mem[OP_F][l])
			return jr_fail(c, "offload.keep", "stage %d: %" PRId64 " is outside [0, %" PRId64 "] (0 to F's memory delta)",
				       l, in->offload_keep[l], in->mem[OP_F][l]);
	if (bw) {
		if (offload_from_bandwidth(c, bw, in))
			return STATUS_ERROR;
	} else if (int_or_list(c, "offload.O", o, in->stages, "stage", 0, INST_MAX_DURATION,
			       &in->offload_cost) ||
		   int_or_list(c, r ? "offload.L" : "offload.O", r ? r : o, in->stages, "stage", 0,
			       INST_MAX_DURATION, &in->reload_cost)) {
		return STATUS_ERROR;
	}
	if (host) {
		if (int_or_list(c, "offload.host_limit", host, in->devices, "device", 0,
				INST_MAX_LIMIT, &in->host_limit))
			return STATUS_ERROR;
		in->has_host_limit = true;
	}
	return finish_offload(c, in);
}

/* Build pred/succ CSR lists; the lag of an edge is its comm when the two
 * stages sit on different devices, else 0. */
static enum status build_adjacency(const struct jr_ctx *c, struct instance *in)
{
	int L = in->stages, E = in->nedges;
	in->pred_start = calloc(L + 1, sizeof(int));
	in->succ_start = calloc(L + 1, sizeof(int));
	in->pred = calloc(E ? E : 1, sizeof *in->pred);
	in->succ = calloc(E ? E : 1, sizeof *in->succ);
	in->topo = calloc(L, sizeof(int));
	int *fill = calloc(L + 1, sizeof(int));
	if (!in->pred_start || !in->succ_start || !in->pred || !in->succ ||
	    !in->topo || !fill) {
		free(fill);
		return jr_fail(c, "edges", "out of memory");
	}
	for (int e = 0; e < E; e++) {
		in->succ_start[in->edges[e][0] + 1]++;
		in->pred_start[in->edges[e][1] + 1]++;
	}
	for (int l = 0; l < L; l++) {
		in->succ_start[l + 1] += in->succ_start[l];
		in->pred_start[l + 1] += in->pred_start[l];
	}
	for (int e = 0; e < E; e++) {
		int u = in->edges[e][0], v = in->edges[e][1];
		int64_t lag = in->stage_device[u] != in->stage_device[v] ?
				      in->edge_comm[e] : 0;
		in->succ[in->succ_start[u] + fill[u]++] =
			(struct stage_link){v, lag};
	}
	memset(fill, 0, (L + 1) * sizeof(int));
	for (int e = 0; e < E; e++) {
		int u = in->edges[e][0], v = in->edges[e][1];
		int64_t lag = in->stage_device[u] != in->stage_device[v] ?
				      in->edge_comm[e] : 0;
		in->pred[in->pred_start[v] + fill[v]++] =
			(struct stage_link){u, lag};
	}
	free(fill);
	/* Edges are distinct (checked), so L - 1 edges of the form l -> l + 1
	 * are exactly the chain, in whatever order they are listed. */
	in->is_chain = E == L - 1;
	for (int e = 0; e < E && in->is_chain; e++)
		in->is_chain = in->edges[e][1] == in->edges[e][0] + 1;
	return STATUS_OK;
}

/* Kahn's algorithm; on a cycle, walk predecessors among the stages left
 * over until one repeats, and name that cycle. */
static enum status order_stages(const struct jr_ctx *c, struct instance *in)
{
	int L = in->stages, head = 0, tail = 0;
	int *indeg = calloc(L, sizeof(int));
	if (!indeg)
		return jr_fail(c, "edges", "out of memory");
	for (int l = 0; l < L; l++)
		indeg[l] = in->pred_start[l + 1] - in->pred_start[l];
	for (int l = 0; l < L; l++)
		if (!indeg[l])
			in->topo[tail++] = l;
	while (head < tail) {
		int u = in->topo[head++];
		for (int i = in->succ_start[u]; i < in->succ_start[u + 1]; i++)
			if (--indeg[in->succ[i].stage] == 0)
				in->topo[tail++] = in->succ[i].stage;
	}
	if (tail == L) {
		free(indeg);
		return STATUS_OK;
	}
	/* Every stage left over has a predecessor left over (that is what its
	 * indegree counts), so walking predecessors among them must revisit a
	 * stage; the walk from its first visit is a cycle, read backwards. */
	int *walk = calloc(L + 1, sizeof(int)), *at = calloc(L, sizeof(int));
	if (!walk || !at) {
		free(indeg);
		free(walk);
		free(at);
		return jr_fail(c, "edges", "cycle among the stages (out of memory naming it)");
	}
	int u = 0, n = 0;
	while (!indeg[u])
		u++;
	while (!at[u]) {
		walk[n++] = u;
		at[u] = n;   /* position + 1 */
		for (int i = in->pred_start[u]; i < in->pred_start[u + 1]; i++)
			if (indeg[in->pred[i].stage]) {
				u = in->pred[i].stage;
				break;
			}
	}
	char path[256] = "";
	int len = 0;
	for (int i = n - 1; i >= at[u] - 1 && len < (int)sizeof path - 24; i--)
		len += snprintf(path + len, sizeof path - len, "%d -> ", walk[i]);
	if (len >= (int)sizeof path - 24)
		len += snprintf(path + len, sizeof path - len, "... -> ");
	snprintf(path + len, sizeof path - len, "%d", walk[n - 1]);
	free(indeg);
	free(walk);
	free(at);
	return jr_fail(c, "edges", "cycle through stages %s", path);
}

static enum status check_size(const struct jr_ctx *c, struct instance *in)
{
	long long ops = (long long)in->kinds * in->stages * in->microbatches;
	if (ops > INST_MAX_OPS)
		return jr_fail(c, "microbatches", "%d stages x %d micro-batches x %d kinds = %lld ops exceeds the maximum %d",
			       in->stages, in->microbatches, in->kinds, ops,
			       INST_MAX_OPS);
	return STATUS_OK;
}

static enum status parse_name(const struct jr_ctx *c, json_t *root,
			      struct instance *in)
{
	json_t *v = json_object_get(root, "name");
	if (v && !json_is_string(v))
		return jr_fail(c, "name", "expected a string, got %s",
			       jr_type_name(v));
	json_t *d = json_object_get(root, "description");
	if (d && !json_is_string(d))
		return jr_fail(c, "description", "expected a string, got %s",
			       jr_type_name(d));
	if (v) {
		in->name = strdup(json_string_value(v));
	} else {
		const char *base = strrchr(c->source, '/');
		base = base ? base + 1 : c->source;
		in->name = strdup(base);
		char *dot = in->name ? strrchr(in->name, '.') : NULL;
		if (dot && dot != in->name)
			*dot = 0;
	}
	return in->name ? STATUS_OK : jr_fail(c, "name", "out of memory");
}

/* The optional "model": what each stage computes, for the executor:
 * {"graph": NAME, "stages": [[{"name": OP, "kind": KIND}, ...] per stage]}
 * with each stage's operators in a topological order, read into a struct
 * stage_model. Only its shape is checked here; the executor checks the
 * kinds. */
static enum status parse_model_op(const struct jr_ctx *c, json_t *op, int l, int i)
{
	char key[96];
	snprintf(key, sizeof key, "model.stages[%d][%d]", l, i);
	if (!json_is_object(op))
		return jr_fail(c, key, "expected an object {\"name\", \"kind\"}, got %s",
			       jr_type_name(op));
	static const char *const known[] = {"name", "kind", NULL};
	if (jr_check_keys(c, key, op, known))
		return STATUS_ERROR;
	for (int f = 0; f < 2; f++) {
		json_t *v = json_object_get(op, known[f]);
		if (!json_is_string(v))
			return jr_fail(c, key, "\"%s\" must be a string, got %s", known[f],
				       v ? jr_type_name(v) : "nothing");
	}
	return STATUS_OK;
}

static enum status parse_model(const struct jr_ctx *c, json_t *root,
			       struct instance *in)
{
	json_t *m = json_object_get(root, "model");
	if (!m)
		return STATUS_OK;
	if (!json_is_object(m))
		return jr_fail(c, "model", "expected an object, got %s", jr_type_name(m));
	static const char *const known[] = {"graph", "stages", NULL};
	if (jr_check_keys(c, "model", m, known))
		return STATUS_ERROR;
	json_t *g = json_object_get(m, "graph"), *st = json_object_get(m, "stages");
	if (g && !json_is_string(g))
		return jr_fail(c, "model.graph", "expected a string, got %s", jr_type_name(g));
	if (!json_is_array(st))
		return jr_fail(c, "model.stages", "expected a list of %d stages' operator lists, got %s",
			       in->stages, st ? jr_type_name(st) : "nothing");
	if ((int)json_array_size(st) != in->stages)
		return jr_fail(c, "model.stages", "has %zu entries for %d stages",
			       json_array_size(st), in->stages);
	in->model = stage_model_new(g ? json_string_value(g) : NULL, in->stages);
	if (!in->model)
		return jr_fail(c, "model", "out of memory");
	for (int l = 0; l < in->stages; l++) {
		json_t *ops = json_array_get(st, l);
		if (!json_is_array(ops))
			return jr_fail(c, "model.stages", "entry %d: expected a list of operators, got %s",
				       l, jr_type_name(ops));
		for (int i = 0; i < (int)json_array_size(ops); i++) {
			json_t *op = json_array_get(ops, i);
			if (parse_model_op(c, op, l, i))
				return STATUS_ERROR;
			if (stage_model_add(in->model, l,
					    json_string_value(json_object_get(op, "name")),
					    json_string_value(json_object_get(op, "kind"))))
				return jr_fail(c, "model", "out of memory");
		}
	}
	return STATUS_OK;
}

static enum status parse_root(const struct jr_ctx *c, json_t *root,
			      struct instance *in)
{
	static const char *const known[] = {
		"name", "description", "devices", "microbatches", "chunks",
		"placement", "edges", "split_backward", "cost", "comm",
		"memory", "objective", "overlap", "recompute", "offload", "model", NULL};
	if (!json_is_object(root))
		return err_set(c->err, "instance '%s': expected a JSON object at the top level, got %s",
			       c->source, jr_type_name(root));
	if (jr_check_keys(c, "", root, known) || parse_name(c, root, in) ||
	    parse_sizes(c, root, in) || parse_placement(c, root, in) ||
	    parse_edges(c, root, in) || parse_costs(c, root, in) ||
	    check_size(c, in) || parse_comm(c, root, in) ||
	    parse_memory(c, root, in) || parse_objective(c, root, in) ||
	    parse_overlap(c, root, in) || parse_recompute(c, root, in) ||
	    parse_offload(c, root, in) ||
	    parse_model(c, root, in) ||
	    build_adjacency(c, in) || order_stages(c, in))
		return STATUS_ERROR;
	return STATUS_OK;
}

enum status instance_from_json(const json_t *root, const char *source,
			       struct instance **out, struct error *err)
{
	struct jr_ctx c = {"instance", source, err};
	*out = NULL;
	struct instance *in = calloc(1, sizeof *in);
	if (!in)
		return err_set(err, "instance '%s': out of memory", source);
	/* the parser only reads root; jansson's getters want it non-const */
	if (parse_root(&c, (json_t *)root, in)) {
		instance_free(in);
		return STATUS_ERROR;
	}
	*out = in;
	return STATUS_OK;
}

enum status instance_parse(const char *text, const char *source,
			   struct instance **out, struct error *err)
{
	json_error_t jerr;
	*out = NULL;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return err_set(err, "instance '%s': line %d, column %d: %s",
			       source, jerr.line, jerr.column, jerr.text);
	enum status st = instance_from_json(root, source, out, err);
	json_decref(root);
	return st;
}

enum status instance_read(const char *path, struct instance **out,
			  struct error *err)
{
	char *text;
	*out = NULL;
	if (file_slurp(path, "instance", &text, err))
		return STATUS_ERROR;
	enum status st = instance_parse(text, path, out, err);
	free(text);
	return st;
}

void instance_free(struct instance *in)
{
	if (!in)
		return;
	free(in->name);
	free(in->placement);
	free(in->stage_device);
	free(in->edges);
	free(in->edge_comm);
	for (int k = 0; k < OP_KINDS; k++) {
		free(in->cost[k]);
		free(in->mem[k]);
	}
	free(in->limit);
	free(in->recompute_cost);
	free(in->recompute_keep);
	free(in->offload_cost);
	free(in->reload_cost);
	free(in->offload_keep);
	free(in->host_limit);
	free(in->pred_start);
	free(in->pred);
	free(in->succ_start);
	free(in->succ);
	free(in->topo);
	stage_model_free(in->model);
	free(in);
}

int64_t inst_device_load(const struct instance *in, int d)
{
	int64_t per_mb = 0;
	for (int l = 0; l < in->stages; l++)
		if (in->stage_device[l] == d)
			for (int k = 0; k < in->kinds; k++)
				per_mb += in->cost[k][l];
	return per_mb * in->microbatches;
}

const char *op_kind_name(int kind)
{
	static const char *const names[] = {"F", "B", "W", "O", "L"};
	return kind >= 0 && kind < OP_ALL_KINDS ? names[kind] : "?";
}

char *op_format(char *buf, int len, int kind, int stage, int mb)
{
	snprintf(buf, len, "%s(%d,%d)", op_kind_name(kind), stage, mb);
	return buf;
}

bool inst_is_simple_chain(const struct instance *in, struct error *why)
{
	if (!in->is_chain) {
		err_set(why, "the stages do not form the chain 0 -> 1 -> ... -> %d",
			in->stages - 1);
		return false;
	}
	if (in->stages != in->devices) {
		err_set(why, "it needs one stage per device, but %d stages sit on %d devices",
			in->stages, in->devices);
		return false;
	}
	for (int l = 0; l < in->stages; l++)
		for (int k = 0; k < l; k++)
			if (in->stage_device[k] == in->stage_device[l]) {
				err_set(why, "stages %d and %d share device %d", k,
					l, in->stage_device[l]);
				return false;
			}
	return true;
}

static json_t *int_list(const int64_t *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *offload_json(const struct instance *in)
{
	json_t *o = json_pack("{s:o,s:o,s:o}", "O", int_list(in->offload_cost, in->stages),
			      "L", int_list(in->reload_cost, in->stages),
			      "keep", int_list(in->offload_keep, in->stages));
	if (o && in->has_host_limit)
		json_object_set_new(o, "host_limit", int_list(in->host_limit, in->devices));
	return o;
}

static json_t *recompute_json(const struct instance *in)
{
	return json_pack("{s:o,s:o}", "R", int_list(in->recompute_cost, in->stages),
			 "keep", int_list(in->recompute_keep, in->stages));
}

json_t *instance_canonical_json(const struct instance *in)
{
	json_t *placement = json_array(), *edges = json_array();
	for (int l = 0; l < in->stages; l++)
		json_array_append_new(placement, json_integer(in->stage_device[l]));
	for (int e = 0; e < in->nedges; e++)
		json_array_append_new(edges, json_pack("[ii]", in->edges[e][0], in->edges[e][1]));
	json_t *cost = json_object();
	for (int k = 0; k < in->kinds; k++)
		json_object_set_new(cost, op_kind_name(k), int_list(in->cost[k], in->stages));
	json_t *root = json_pack("{s:i,s:i,s:o,s:o,s:b,s:o,s:o,s:s}",
		"devices", in->devices, "microbatches", in->microbatches,
		"placement", placement, "edges", edges,
		"split_backward", in->split_backward, "cost", cost,
		"comm", int_list(in->edge_comm, in->nedges),
		"objective", in->objective == OBJ_SPAN ? "span" : "makespan");
	if (in->has_memory) {
		json_t *mem = json_object();
		for (int k = 0; k < in->kinds; k++)
			json_object_set_new(mem, op_kind_name(k), int_list(in->mem[k], in->stages));
		if (in->has_limit)
			json_object_set_new(mem, "limit", int_list(in->limit, in->devices));
		json_object_set_new(root, "memory", mem);
	}
	if (in->has_overlap)   /* only when given: older digests stay as they were */
		json_object_set_new(root, "overlap", json_pack("{s:f}", "factor", in->overlap));
	if (in->has_recompute)   /* the same */
		json_object_set_new(root, "recompute", recompute_json(in));
	if (in->has_offload)   /* the same */
		json_object_set_new(root, "offload", offload_json(in));
	return root;
}

void instance_digest(const struct instance *in, char out[65])
{
	json_t *j = instance_canonical_json(in);
	char *text = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(j);
	sha256_hex(text ? text : "", text ? strlen(text) : 0, out);
	free(text);
}

/* ---- instances built in code (instance.h: instance_new, instance_finish) ---- */

struct instance *instance_new(const char *name, const struct instance_size *z)
{
	int D = z->devices, L = z->stages, E = z->nedges;
	if (D < 0 || L < 0 || E < 0 || z->microbatches < 0)
		return NULL;
	struct instance *in = calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->devices = D;
	in->microbatches = z->microbatches;
	in->chunks = 1;
	in->stages = L;
	in->nedges = E;
	in->split_backward = z->split_backward;
	in->kinds = z->split_backward ? 3 : 2;
	in->has_memory = z->has_memory;
	in->has_limit = z->has_limit;
	in->objective = OBJ_MAKESPAN;
	in->name = strdup(name);
	in->placement = strdup("list");
	in->stage_device = calloc(L ? L : 1, sizeof *in->stage_device);
	in->edges = calloc(E ? E : 1, sizeof *in->edges);
	in->edge_comm = calloc(E ? E : 1, sizeof *in->edge_comm);
	bool ok = in->name && in->placement && in->stage_device && in->edges && in->edge_comm;
	for (int k = 0; k < in->kinds; k++) {
		ok = ok && (in->cost[k] = calloc(L ? L : 1, sizeof(int64_t)));
		if (z->has_memory)
			ok = ok && (in->mem[k] = calloc(L ? L : 1, sizeof(int64_t)));
	}
	if (z->has_limit)
		ok = ok && (in->limit = calloc(D ? D : 1, sizeof(int64_t)));
	if (!ok) {
		instance_free(in);
		return NULL;
	}
	return in;
}

/* Every entry of a[n] in [lo, hi], named "key[i]". */
static enum status check_list(const struct jr_ctx *c, const char *key, const int64_t *a,
			      int n, int64_t lo, int64_t hi)
{
	for (int i = 0; i < n; i++) {
		char k[128];
		snprintf(k, sizeof k, "%s[%d]", key, i);
		if (jr_range(c, k, a[i], lo, hi))
			return STATUS_ERROR;
	}
	return STATUS_OK;
}

static enum status finish_sizes(const struct jr_ctx *c, const struct instance *in)
{
	if (jr_range(c, "devices", in->devices, 1, INST_MAX_DEVICES) ||
	    jr_range(c, "microbatches", in->microbatches, 1, INST_MAX_MICROBATCHES) ||
	    jr_range(c, "chunks", in->chunks, 1, INST_MAX_CHUNKS))
		return STATUS_ERROR;
	return STATUS_OK;
}

/* A named placement fixes the stages and their devices (named_device), as
 * in the parser; a list is checked entry by entry. */
static enum status finish_placement(const struct jr_ctx *c, struct instance *in)
{
	const char *name = in->placement ? in->placement : "";
	int D = in->devices, L = in->stages;
	if (strcmp(name, "list") && check_named_placement(c, name, in->chunks))
		return STATUS_ERROR;
	if (strcmp(name, "list")) {
		if (L != (long long)D * in->chunks)
			return jr_fail(c, "placement", "'%s' with %d chunks on %d devices means %lld stages, but the instance has %d",
				       name, in->chunks, D, (long long)D * in->chunks, L);
		for (int l = 0; l < L; l++)
			in->stage_device[l] = named_device(name, l, D);
		return STATUS_OK;
	}
	if (L < 1 || L > INST_MAX_STAGES)
		return jr_fail(c, "placement", "list has %d entries, expected 1 to %d stages", L,
			       INST_MAX_STAGES);
	if (in->chunks != 1 && L != D * in->chunks)
		return jr_fail(c, "placement", "list has %d stages but chunks %d on %d devices means %d; omit chunks or match it",
			       L, in->chunks, D, D * in->chunks);
	for (int l = 0; l < L; l++)
		if (in->stage_device[l] < 0 || in->stage_device[l] >= D) {
			char key[64];
			snprintf(key, sizeof key, "placement[%d]", l);
			return jr_fail(c, key, "stage %d is placed on device %d, but no such device runs it (devices are 0..%d)",
				       l, in->stage_device[l], D - 1);
		}
	return STATUS_OK;
}

static enum status finish_edges(const struct jr_ctx *c, const struct instance *in)
{
	if (in->nedges > 16 * INST_MAX_STAGES)
		return jr_fail(c, "edges", "%d edges exceeds the maximum %d", in->nedges,
			       16 * INST_MAX_STAGES);
	for (int i = 0; i < in->nedges; i++) {
		char key[64];
		snprintf(key, sizeof key, "edges[%d]", i);
		for (int k = 0; k < 2; k++)
			if (in->edges[i][k] < 0 || in->edges[i][k] >= in->stages) {
				char sub[80];
				snprintf(sub, sizeof sub, "%s[%d]", key, k);
				return jr_fail(c, sub, "stage %d does not exist (stages are 0..%d)",
					       in->edges[i][k], in->stages - 1);
			}
		if (check_edge(c, key, in, i))
			return STATUS_ERROR;
	}
	return STATUS_OK;
}

static enum status finish_costs(const struct jr_ctx *c, struct instance *in)
{
	static const char *const keys[] = {"cost.F", "cost.B", "cost.W"};
	in->kinds = in->split_backward ? 3 : 2;
	if (!in->split_backward && in->cost[OP_W])
		return jr_fail(c, "cost.W", "given, but split_backward is false (fold W into B)");
	for (int k = 0; k < in->kinds; k++) {
		if (!in->cost[k])
			return jr_fail(c, keys[k], k == OP_W ? "required when split_backward is true"
							       : "required key is missing");
		/* F and B must take time; W may be free. */
		if (check_list(c, keys[k], in->cost[k], in->stages, k == OP_W ? 0 : 1,
			       INST_MAX_DURATION))
			return STATUS_ERROR;
	}
	return STATUS_OK;
}

static enum status finish_memory(const struct jr_ctx *c, const struct instance *in)
{
	static const char *const keys[] = {"memory.F", "memory.B", "memory.W"};
	if (!in->has_memory)
		return in->has_limit ? jr_fail(c, "memory.limit", "given, but no memory deltas are")
				     : STATUS_OK;
	for (int k = 0; k < OP_KINDS; k++) {
		if (k == OP_W && !in->split_backward) {
			if (in->mem[k])
				return jr_fail(c, keys[k], "given, but split_backward is false");
			continue;
		}
		if (!in->mem[k])
			return jr_fail(c, keys[k], "required when memory is given");
		if (check_list(c, keys[k], in->mem[k], in->stages,
			       k == OP_F ? 0 : -INST_MAX_DELTA, INST_MAX_DELTA))
			return STATUS_ERROR;
	}
	if (check_memory_sums(c, in))
		return STATUS_ERROR;
	if (!in->has_limit)
		return STATUS_OK;
	if (!in->limit)
		return jr_fail(c, "memory.limit", "required when has_limit is set");
	if (check_list(c, "memory.limit", in->limit, in->devices, 0, INST_MAX_LIMIT))
		return STATUS_ERROR;
	return check_single_op_memory(c, in);
}

static enum status finish_objective(const struct jr_ctx *c, const struct instance *in)
{
	if (in->objective != OBJ_MAKESPAN && in->objective != OBJ_SPAN)
		return jr_fail(c, "objective", "unknown objective %d (expected makespan or span)",
			       (int)in->objective);
	return STATUS_OK;
}

static enum status finish_model(const struct jr_ctx *c, const struct instance *in)
{
	const struct stage_model *m = in->model;
	if (!m)
		return STATUS_OK;
	if (m->nstages != in->stages)
		return jr_fail(c, "model.stages", "has %d entries for %d stages", m->nstages,
			       in->stages);
	for (int l = 0; l < m->nstages; l++)
		for (int i = 0; i < m->stages[l].nops; i++)
			if (!m->stages[l].ops[i].name || !m->stages[l].ops[i].kind) {
				char key[96];
				snprintf(key, sizeof key, "model.stages[%d][%d]", l, i);
				return jr_fail(c, key, "\"%s\" must be a string, got nothing",
					       m->stages[l].ops[i].name ? "kind" : "name");
			}
	return STATUS_OK;
}

/* The derived fields, so that instance_finish() may run again after an edit. */
static void drop_derived(struct instance *in)
{
	free(in->pred_start);
	free(in->pred);
	free(in->succ_start);
	free(in->succ);
	free(in->topo);
	in->pred_start = in->succ_start = in->topo = NULL;
	in->pred = in->succ = NULL;
}

/* The parser's order: sizes, placement, edges, costs, size, comm, memory,
 * objective, model; then the same derivation (adjacency, topological order). */
enum status instance_finish(struct instance *in, const char *source, struct error *err)
{
	struct jr_ctx c = {"instance", source, err};
	drop_derived(in);
	if (!in->name)
		return jr_fail(&c, "name", "required key is missing");
	if (finish_sizes(&c, in) || finish_placement(&c, in) || finish_edges(&c, in) ||
	    finish_costs(&c, in) || check_size(&c, in) ||
	    check_list(&c, "comm", in->edge_comm, in->nedges, 0, INST_MAX_DURATION) ||
	    finish_memory(&c, in) || finish_objective(&c, in) || finish_overlap(&c, in) ||
	    finish_recompute(&c, in) || finish_offload(&c, in) || finish_model(&c, in) ||
	    build_adjacency(&c, in) || order_stages(&c, in))
		return STATUS_ERROR;
	return STATUS_OK;
}

/* ---- writing ---- */

static json_t *model_json(const struct stage_model *m)
{
	json_t *stages = json_array(), *root = json_object();
	int bad = !stages || !root;
	for (int l = 0; !bad && l < m->nstages; l++) {
		json_t *ops = json_array();
		for (int i = 0; i < m->stages[l].nops; i++)
			bad |= json_array_append_new(ops, json_pack("{s:s,s:s}",
				"name", m->stages[l].ops[i].name, "kind", m->stages[l].ops[i].kind));
		bad |= json_array_append_new(stages, ops);
	}
	if (m->graph)
		bad |= json_object_set_new(root, "graph", json_string(m->graph));
	bad |= json_object_set_new(root, "stages", stages);
	if (bad) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static json_t *kinds_json(int64_t *const a[OP_KINDS], int kinds, int n)
{
	json_t *o = json_object();
	for (int k = 0; o && k < kinds; k++)
		if (json_object_set_new(o, op_kind_name(k), int_list(a[k], n))) {
			json_decref(o);
			return NULL;
		}
	return o;
}

json_t *instance_to_json(const struct instance *in)
{
	json_t *root = json_object(), *place, *edges = json_array();
	int bad = !root;
	if (strcmp(in->placement, "list")) {
		place = json_string(in->placement);
	} else {
		place = json_array();
		for (int l = 0; l < in->stages; l++)
			bad |= json_array_append_new(place, json_integer(in->stage_device[l]));
	}
	for (int e = 0; e < in->nedges; e++)
		bad |= json_array_append_new(edges, json_pack("[ii]", in->edges[e][0], in->edges[e][1]));
	bad |= json_object_set_new(root, "name", json_string(in->name));
	bad |= json_object_set_new(root, "devices", json_integer(in->devices));
	bad |= json_object_set_new(root, "microbatches", json_integer(in->microbatches));
	if (in->chunks != 1)
		bad |= json_object_set_new(root, "chunks", json_integer(in->chunks));
	bad |= json_object_set_new(root, "placement", place);
	bad |= json_object_set_new(root, "edges", edges);
	bad |= json_object_set_new(root, "split_backward", json_boolean(in->split_backward));
	bad |= json_object_set_new(root, "cost", kinds_json(in->cost, in->kinds, in->stages));
	bad |= json_object_set_new(root, "comm", int_list(in->edge_comm, in->nedges));
	if (in->has_memory) {
		json_t *mem = kinds_json(in->mem, in->kinds, in->stages);
		if (mem && in->has_limit)
			bad |= json_object_set_new(mem, "limit", int_list(in->limit, in->devices));
		bad |= json_object_set_new(root, "memory", mem);
	}
	bad |= json_object_set_new(root, "objective",
				   json_string(in->objective == OBJ_SPAN ? "span" : "makespan"));
	if (in->has_overlap)
		bad |= json_object_set_new(root, "overlap",
					   json_pack("{s:f}", "factor", in->overlap));
	if (in->has_recompute)
		bad |= json_object_set_new(root, "recompute", recompute_json(in));
	if (in->has_offload)
		bad |= json_object_set_new(root, "offload", offload_json(in));
	if (in->model)
		bad |= json_object_set_new(root, "model", model_json(in->model));
	if (bad) {
		json_decref(root);
		return NULL;
	}
	return root;
}

enum status instance_write(const struct instance *in, const char *path, struct error *err)
{
	json_t *j = instance_to_json(in);
	char *text = j ? json_dumps(j, JSON_INDENT(1)) : NULL;
	json_decref(j);
	enum status st = text ? file_write_atomic(path, text, strlen(text), err)
			      : err_set(err, "output '%s': out of memory", path);
	free(text);
	return st;
}
