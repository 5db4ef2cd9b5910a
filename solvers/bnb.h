/*
 * An exact branch and bound over schedules as the simulator times them:
 * every op starts as early as its device and its inputs allow, so the
 * objective it proves, makespan or span, is the simulator's own. It is
 * the exact method for the span, where the MILPs only give a relaxation
 * (their op times are free, so the span can shrink by starting late).
 *
 * Schedule generation: ops are placed one at a time, each at the end of its
 * device's order, among the next op of each (kind, stage) in micro-batch
 * order (FIFO per kind and stage loses no optimality: micro-batches are
 * identical) whose inputs are placed; its start is then fixed. Starts are
 * kept nondecreasing along the placement, so every schedule is generated
 * in the order of its ops' start times: each valid (FIFO) schedule is
 * reachable, and the search is complete.
 *
 * Pruning, each bound valid for every completion of the node:
 *   makespan >= max over devices d of max(free_d, t) + remaining load_d,
 *               t the last placed start (no later op starts before it);
 *   makespan >= end(o) + tail(o) for every placed op o (tail: the longest
 *               path after o in its micro-batch, sched/bound.c; where FIFO
 *               holds and no pairs are placed, the longest path over the
 *               dependencies, the FIFO order of each (kind, stage), whose
 *               next op starts after o ends on the same device, and the
 *               memory arcs: with the F's delta a on stage l and the
 *               device's limit, F(l, j + floor(limit / a)) starts after
 *               B(l, j) ends, bnb.c memory_window);
 *   with `jackson`, Jackson's preemptive bound on every device over the
 *               ops left, each released at its earliest start (the placed
 *               ops' ends, the device's free time, those arcs) and with
 *               its tail (sched/jackson.h);
 *   span     >= max over devices d with a first op at S_d of
 *               max(free_d, t) + remaining load_d - S_d, and the remaining
 *               load of a device without ops yet;
 * and every placement must keep the device's memory within its limit
 * (charged at op start, in device order, as the simulator does).
 *
 * F&B overlap (instance `overlap`, rho < 1): a candidate may also be an
 * overlapped pair, the next F and the next B of two slots of one device,
 * both ready, starting when the later is (so a forward that could start
 * before t may still come as part of a pair). The load bound then drops
 * what pairs can save, (1 - rho) min(remaining F load, remaining B load)
 * on the device (each pair saves (1 - rho) min(a, b) at most, and those
 * minima add up to at most either load). FIFO per slot stays without loss:
 * a pair constrains two ops' times, not which micro-batches they are.
 *
 * Recomputation (instance `recompute`): an F whose stage rebuilds a
 * positive amount comes as two candidates, keeping its activations or
 * dropping them (it then holds the kept part, and its B, when placed,
 * lasts the recompute longer and is charged the rebuild before its delta,
 * as the simulator charges them). The load and tail bounds keep the plain
 * costs, which a recompute only lengthens. The dominance key below adds
 * which placed F's whose B is not placed dropped (they fix the memory in
 * use and the B's to come), so only nodes that agree on them compare.
 * With recompute FIFO per slot is not kept: micro-batches differ by their
 * drop marks, and FIFO loses optimality. Found by a search over all orders
 * (tests/test_recompute.c, test_fifo_loses): 2 devices, 3 micro-batches,
 * F = [2, 1], B = 1, comm 0, memory F 1, limit 1, recompute R = [3, 1],
 * keep 0; device 0 F(0,0) F(0,1) B(0,0) F(0,2) B(0,2) B(0,1)r ends at 14,
 * every FIFO schedule at 15 or later (with B(0,1)r before B(0,2), its
 * rebuild meets F(0,2)'s activation: 2 > 1). So on an instance with
 * recompute every not-placed micro-batch of a slot is a candidate, and
 * the dominance key is the placed set itself (bits per slot), not counts.
 *
 * With `relaxed` (memo only) the marked devices run any number of ops at
 * once and have no memory limit: their ops start when their inputs have
 * arrived, are placed as soon as they can be (placing them later gains
 * nothing: no other op waits on their device), and count in no device's
 * load, FIFO or memory arc. The optimum is then that of the relaxation,
 * a lower bound of the instance's (solvers/relax.h).
 *
 * With `fixed` (memo only) each device keeps a given order but for one
 * segment of it: a candidate at a kept position must be the row's op
 * there, and in the free segment any op of the segment. The kept order
 * becomes arcs (each kept op before the next, the op before the segment
 * before each of its ops, each of them before the op after it), which the
 * tails and Jackson's bound use. Every bound above holds for every
 * completion that keeps those orders, so the search is exact over the
 * restricted space.
 *
 * With `memo` (makespan only) the start-order rule is dropped: any op whose
 * inputs are placed may come next, and a node is pruned when an earlier
 * node with the same placed set (so the same memory on every device) had
 * every device free and every input still needed no later. Its subtree
 * then holds every completion of the pruned node, each no later (the same
 * orders appended, times monotone), and it was already searched: DFS
 * finishes a node before it meets another of the same depth. bnb.md.
 */
#ifndef PIPEOPT_BNB_H
#define PIPEOPT_BNB_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

/* Instances beyond this many ops are not searched; without dominance (the
 * span) solve stops at BNB_SPAN_MAX_OPS (the tree grows as the number of
 * interleavings: bnb.md). */
#define BNB_MAX_OPS 512
#define BNB_SPAN_MAX_OPS 96
#define BNB_MAX_SLOTS 64   /* (kind, stage) pairs */
/* With fixed orders (bnb_options.fixed) only the free segments branch:
 * the size limit is then the arrays', not the tree's. */
#define BNB_FIXED_MAX_OPS 4096
#define BNB_FIXED_MAX_SLOTS 256
/* The candidate arrays (one row per depth) stay below this many entries,
 * 32 bytes each (any order with recompute and pairs grows as M^2). */
#define BNB_MAX_CANDIDATES (1L << 22)

/* Whether the search takes the instance (ops, slots, candidate arrays);
 * bnb_takes_fixed: with fixed orders. */
bool bnb_takes(const struct instance *in);
bool bnb_takes_fixed(const struct instance *in);

struct bnb_options {
	double time_limit;       /* seconds; <= 0: none */
	long node_limit;         /* nodes; <= 0: none */
	int64_t incumbent;       /* objective of a known schedule; INT64_MAX: none */
	int64_t lower_bound;     /* a proven bound: stop when a schedule meets it */
	bool memo;               /* makespan: any placement order, with dominance
	                            between nodes of one placed set (bnb.md) */
	bool jackson;            /* prune by Jackson's preemptive bound per
	                            device over the ops left (bnb.c) */
	const bool *relaxed;     /* [devices] or NULL: a relaxed device runs any
	                            number of ops at once and has no memory
	                            limit (a relaxation: its optimum is a lower
	                            bound of the instance's); memo only */
	const struct schedule *fixed;   /* or NULL: each device's whole order,
	                            kept but for positions [free_from[d],
	                            free_to[d]) of its row, whose ops may come
	                            in any order between the kept prefix and
	                            suffix (a restriction: its optimum is an
	                            upper bound, a neighbourhood for local
	                            search, solvers/lns.h); memo only, on
	                            instances where FIFO holds (no recompute,
	                            offload or pairs) */
	const int *free_from, *free_to;   /* [devices] with fixed */
};

struct bnb_result {
	bool proved;             /* the search finished: the optimum is objective */
	struct schedule *schedule;   /* the best found below the incumbent, or NULL */
	int64_t objective;       /* of that schedule, else the incumbent */
	long nodes;
	double seconds;
};

enum status bnb_solve(const struct instance *in, const struct bnb_options *o,
		      struct bnb_result *r, struct error *err);

struct sim;

/* Take the search's schedule (r->schedule, freed or moved here) in place
 * of *sc, of objective *obj, when it re-simulates to r->objective and
 * beats *obj; *better says so. A schedule that does not re-simulate to the
 * search's objective is an error: a defect, not a result. */
enum status bnb_adopt(const struct instance *in, struct sim *sim, struct bnb_result *r,
		      struct schedule **sc, int64_t *obj, bool *better, struct error *err);

#endif
