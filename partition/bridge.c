/*
 * A partition as a schedule instance (FORMATS.md): one pipeline device per
 * stage (its data-parallel replicas act as one), the stage DAG, per-stage
 * costs and per-edge comm, memory in KiB:
 *   cost F, B, W of stage s = its ops' forward, input- and weight-gradient
 *     time at b / k_s, in whole microseconds rounded up (F, B at least 1);
 *   comm of stage edge (a, c) = latency + (sum of out_bytes(u) * b over op
 *     edges u -> v from a to c) / bandwidth, rounded up;
 *   memory F = the stage's activations per micro-batch (KiB, rounded up),
 *     B = -F, W = 0; limit = (memory_bytes - weights, gradients and
 *     optimizer state) in KiB, rounded down;
 *   model = each stage's operators (name, kind) in the graph's topological
 *     order, for the executor (`pipeopt exec` builds the stages from it).
 */
#include "partition/bridge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static json_int_t up(double x, json_int_t lo)
{
	json_int_t v = (json_int_t)ceil(x - 1e-9);
	return v < lo ? lo : v;
}

static json_t *stage_list(const struct partition *p, int which)
{
	json_t *a = json_array();
	for (int s = 0; s < p->nstages; s++) {
		const struct stage *st = &p->stages[s];
		double x = which == 0 ? st->fwd : which == 1 ? st->bwd : st->wgrad;
		json_array_append_new(a, json_integer(up(x, which < 2 ? 1 : 0)));
	}
	return a;
}

static json_t *stage_model(const struct graph *g, const struct partition *p, const int *of)
{
	json_t *stages = json_array();
	for (int s = 0; s < p->nstages; s++)
		json_array_append_new(stages, json_array());
	for (int i = 0; of && i < g->nops; i++) {   /* the graph's topological order */
		int v = g->topo[i];
		json_array_append_new(json_array_get(stages, of[v]), json_pack("{s:s,s:s}", "name",
			g->ops[v].name, "kind", g->ops[v].kind));
	}
	return json_pack("{s:s,s:o}", "graph", g->name, "stages", stages);
}

json_t *partition_instance_json(const struct graph *g, const struct partition *p,
				const char *name)
{
	const struct machine *mc = &g->machine;
	int S = p->nstages, *of = malloc(g->nops * sizeof *of);
	json_t *place = json_array(), *edges = json_array(), *comm = json_array();
	json_t *memF = json_array(), *memB = json_array(), *memW = json_array();
	json_t *limit = json_array();
	for (int s = 0; of && s < S; s++)
		for (int i = 0; i < p->stages[s].nops; i++)
			of[p->stages[s].ops[i]] = s;
	for (int s = 0; s < S; s++) {
		const struct stage *st = &p->stages[s];
		json_int_t act = up(st->act / 1024, 0);
		double fixed = st->memory - st->inflight * st->act;
		json_array_append_new(place, json_integer(s));
		json_array_append_new(memF, json_integer(act));
		json_array_append_new(memB, json_integer(-act));
		json_array_append_new(memW, json_integer(0));
		json_array_append_new(limit, json_integer((json_int_t)floor((mc->memory_bytes - fixed) / 1024)));
	}
	for (int e = 0; of && e < p->nedges; e++) {
		int a = p->edges[e][0], c = p->edges[e][1];
		double bytes = 0;
		for (int k = 0; k < g->nedges; k++)
			if (of[g->edges[k][0]] == a && of[g->edges[k][1]] == c)
				bytes += g->ops[g->edges[k][0]].out_bytes * p->microbatch;
		json_array_append_new(edges, json_pack("[i,i]", a, c));
		json_array_append_new(comm, json_integer(up(mc->link_latency_us + bytes / mc->link_bandwidth, 0)));
	}
	json_t *model = stage_model(g, p, of);
	free(of);
	return json_pack("{s:s,s:i,s:i,s:o,s:o,s:b,s:{s:o,s:o,s:o},s:o,s:{s:o,s:o,s:o,s:o},s:s,s:o}",
		"name", name, "devices", S, "microbatches", p->microbatches, "placement", place,
		"edges", edges, "split_backward", 1,
		"cost", "F", stage_list(p, 0), "B", stage_list(p, 1), "W", stage_list(p, 2),
		"comm", comm,
		"memory", "F", memF, "B", memB, "W", memW, "limit", limit,
		"objective", "makespan", "model", model);
}
