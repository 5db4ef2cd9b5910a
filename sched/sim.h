/*
 * The simulator and validator: from per-device op orders to exact times.
 *
 * Semantics (docs/design.md): each op starts as soon as its device has finished
 * the previous op in its order and all its inputs have arrived:
 *     start(o) = max( end(prev op on the device),
 *                     max over dependencies x of o: end(x) + lag(x, o) )
 *     end(o)   = start(o) + duration(o)
 * with lag = comm of the stage edge when the two stages sit on different
 * devices, else 0. Dependencies of micro-batch j:
 *     F(l,j) <- F(p,j) for each predecessor stage p
 *     B(l,j) <- F(l,j), and B(s,j) for each successor stage s
 *     W(l,j) <- B(l,j)
 * Memory is the running sum of deltas in each device's order, charged at op
 * start; it must never exceed the device's limit.
 *
 * Offload (instance has_offload): a row may also list offloads O(l,j) and
 * reloads L(l,j), run one at a time by the device's copy channel, in row
 * order F(l,j), O(l,j), L(l,j), B(l,j): O after F ends, B after L ends;
 * an op that takes memory starts no earlier than every op listed before it
 * on the other resource that takes memory, and after every op listed
 * before it that frees memory (docs/design.md, Offload). O and L count in
 * the memory sums (-/+ inst_moved) and in the host's (+/-).
 *
 * A schedule is valid when every op of the instance appears exactly once, on
 * the device of its stage, the orders do not contradict the dependencies
 * (else the simulation deadlocks) and memory stays within the limits.
 *
 * The simulator is the GA's fitness function: one struct sim per instance
 * holds all work arrays, so sim_run() allocates nothing. Each op is visited
 * once per pass; the cost is O(ops + stage edges x micro-batches).
 */
#ifndef PIPEOPT_SIM_H
#define PIPEOPT_SIM_H

#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

struct sim;

struct sim_result {
	int64_t makespan;           /* time units: end of the last op */
	int64_t span;               /* time units: max over devices of
	                               last end - first start */
	int64_t objective;          /* makespan or span, per the instance */
	int64_t busy;               /* time units: sum of the op durations, an
	                               overlapped pair counted once, at its cost */
	double bubble_ratio;        /* 1 - busy / (devices * makespan) */
	int recomputed;             /* B's marked recompute (instance recompute) */
	int offloaded;              /* (stage, micro-batch)s offloaded (instance
	                               offload) */
	const int64_t *copy_start;  /* [2*L*M] offload (c = 0) and reload (c = 1)
	                               of (l, j) at (c*L + l)*M + j, -1 when not
	                               offloaded; NULL without offload; owned by
	                               sim */
	const int64_t *copy_end;
	const int64_t *peak_memory; /* [devices] memory units, owned by sim */
	const int64_t *start;       /* [ops] by op id (inst_op_id), owned by sim */
	const int64_t *end;         /* [ops] by op id, owned by sim */
};

/* The times of row op o of a run: a compute op's by its id, an offload's
 * or reload's from the copy arrays. */
static inline void sim_op_times(const struct instance *in, const struct sim_result *r,
				const struct op *o, int64_t *start, int64_t *end)
{
	if (op_on_channel(o->kind)) {
		int x = inst_copy_index(in, o->kind == OP_L, o->stage, o->mb);
		*start = r->copy_start[x];
		*end = r->copy_end[x];
		return;
	}
	int id = inst_op_id(in, o->kind, o->stage, o->mb);
	*start = r->start[id];
	*end = r->end[id];
}

/* A simulator for one instance; the instance must outlive it. */
struct sim *sim_new(const struct instance *in);
void sim_free(struct sim *s);

/* Validate and time a schedule. On failure err (may be NULL, which skips
 * formatting) names the device and op. The result's arrays stay valid until
 * the next sim_run() or sim_free(). */
enum status sim_run(struct sim *s, const struct schedule *sc,
		    struct sim_result *r, struct error *err);

#endif
