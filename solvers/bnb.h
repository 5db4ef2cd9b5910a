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
 *               path after o in its micro-batch, sched/bound.c);
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

struct bnb_options {
	double time_limit;       /* seconds; <= 0: none */
	long node_limit;         /* nodes; <= 0: none */
	int64_t incumbent;       /* objective of a known schedule; INT64_MAX: none */
	int64_t lower_bound;     /* a proven bound: stop when a schedule meets it */
	bool memo;               /* makespan: any placement order, with dominance
	                            between nodes of one placed set (bnb.md) */
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

#endif
