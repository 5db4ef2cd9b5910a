/*
 * A partition as a schedule instance (docs/formats.md): one pipeline device per
 * stage (its data-parallel replicas act as one), the stage DAG, per-stage
 * costs and per-edge comm, memory in KiB:
 *   cost F, B, W of stage s = its ops' forward, input- and weight-gradient
 *     time at b / k_s, in whole microseconds rounded up (F, B at least 1);
 *     W also carries the stage's share of the ring allreduce of its weights
 *     over its k_s replicas, allreduce / m per micro-batch (the term the
 *     DP's t_s has; without it data parallelism would look free);
 *   comm of stage edge (a, c) = latency + (sum of out_bytes(u) * b over op
 *     edges u -> v from a to c) / bandwidth, rounded up;
 *   memory F = the stage's activations per micro-batch (KiB, rounded up),
 *     B = -F, W = 0; limit = (memory_bytes - weights, gradients and
 *     optimizer state) in KiB, rounded down;
 *   model = each stage's operators (name, kind) in the graph's topological
 *     order, for the executor (`pipeopt exec` builds the stages from it).
 */
#include "partition/bridge.h"

#include "sched/family.h"
#include "sched/sim.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

static int64_t up(double x, int64_t lo)
{
	int64_t v = (int64_t)ceil(x - 1e-9);
	return v < lo ? lo : v;
}

static void fill_stages(const struct graph *g, const struct partition *p,
			struct instance *in)
{
	double mb = g->machine.memory_bytes;
	for (int s = 0; s < p->nstages; s++) {
		const struct stage *st = &p->stages[s];
		int64_t act = up(st->act / 1024, 0);
		double fixed = st->memory - st->inflight * st->act;
		in->stage_device[s] = s;
		in->cost[OP_F][s] = up(st->fwd, 1);
		in->cost[OP_B][s] = up(st->bwd, 1);
		in->cost[OP_W][s] = up(st->wgrad + st->allreduce, 0);
		in->mem[OP_F][s] = act;
		in->mem[OP_B][s] = -act;
		in->mem[OP_W][s] = 0;
		if (in->limit)
			in->limit[s] = (int64_t)floor((mb - fixed) / 1024);
	}
}

/* of[v]: the stage of operator v. */
static void fill_edges(const struct graph *g, const struct partition *p, const int *of,
		       struct instance *in)
{
	const struct machine *mc = &g->machine;
	for (int e = 0; e < p->nedges; e++) {
		int a = p->edges[e][0], c = p->edges[e][1];
		double bytes = 0;
		for (int k = 0; k < g->nedges; k++)
			if (of[g->edges[k][0]] == a && of[g->edges[k][1]] == c)
				bytes += g->ops[g->edges[k][0]].out_bytes * p->microbatch;
		in->edges[e][0] = a;
		in->edges[e][1] = c;
		in->edge_comm[e] = up(mc->link_latency_us + bytes / mc->link_bandwidth, 0);
	}
}

static struct stage_model *model_of(const struct graph *g, const struct partition *p,
				    const int *of)
{
	struct stage_model *m = stage_model_new(g->name, p->nstages);
	for (int i = 0; m && i < g->nops; i++) {   /* the graph's topological order */
		int v = g->topo[i];
		if (stage_model_add(m, of[v], g->ops[v].name, g->ops[v].kind)) {
			stage_model_free(m);
			m = NULL;
		}
	}
	return m;
}

/* The instance of p; with `full`, also the executor's model and the memory
 * limits (the timing needs neither: memory never delays an op). */
static enum status build(const struct graph *g, const struct partition *p, const char *name,
			 bool full, struct instance **out, struct error *err)
{
	struct instance_size size = {
		.devices = p->nstages, .stages = p->nstages, .nedges = p->nedges,
		.microbatches = p->microbatches, .split_backward = true,
		.has_memory = true, .has_limit = full};
	struct instance *in = instance_new(name, &size);
	int *of = malloc((g->nops ? g->nops : 1) * sizeof *of);
	bool built = in && of;
	*out = NULL;
	if (built) {
		for (int s = 0; s < p->nstages; s++)
			for (int i = 0; i < p->stages[s].nops; i++)
				of[p->stages[s].ops[i]] = s;
		fill_stages(g, p, in);
		fill_edges(g, p, of, in);
		built = !full || (in->model = model_of(g, p, of)) != NULL;
	}
	free(of);
	if (!built) {
		instance_free(in);
		return err_set(err, "instance '%s': out of memory", name);
	}
	if (instance_finish(in, name, err)) {
		instance_free(in);
		return STATUS_ERROR;
	}
	*out = in;
	return STATUS_OK;
}

enum status partition_instance(const struct graph *g, const struct partition *p,
			       const char *name, struct instance **out, struct error *err)
{
	return build(g, p, name, true, out, err);
}

enum status partition_simulate(const struct graph *g, struct partition *p, struct error *err)
{
	struct instance *in = NULL;
	struct schedule *sc = NULL;
	struct sim *sim = NULL;
	struct sim_result r;
	p->iteration_time = 0;
	enum status st = build(g, p, g->name, false, &in, err);
	if (!st)
		st = family_generate("1f1b-dag", in, &sc, err);
	if (!st && !(sim = sim_new(in)))
		st = err_set(err, "graph '%s': out of memory for the simulator", g->name);
	if (!st && sim_run(sim, sc, &r, err)) {
		err_prefix(err, "graph '%s': the 1f1b-dag schedule of the partition is invalid",
			   g->name);
		st = STATUS_ERROR;
	}
	if (!st)
		p->iteration_time = (double)r.makespan;
	sim_free(sim);
	schedule_free(sc);
	instance_free(in);
	return st;
}
