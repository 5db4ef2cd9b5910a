/*
 * The op-level precedence graph shared by the schedule formulations: every
 * arc i -> k with lag says that op k starts at least `lag` after op i ends.
 *
 *   dependencies (docs/design.md):  F(p,j) -> F(l,j), F(l,j) -> B(l,j),
 *                              B(s,j) -> B(l,j), B(l,j) -> W(l,j);
 *   FIFO (same device):        X(l,j-1) -> X(l,j) for X in F, B, W;
 *   memory windows (below):    B(l,j) -> F(l,j+K).
 * With recompute or offload only the first stage's F's keep FIFO, and
 * there are no windows.
 *
 * Why FIFO loses no optimal schedule (without recompute or offload; with
 * recompute FIFO does lose, solvers/bnb.h, and only the first stage's forwards keep
 * their FIFO arcs, opgraph.c fifo_holds, and no memory window is
 * added): micro-batches are identical. If a
 * schedule runs X(l,a) after X(l,b) for a < b, swap the labels a and b on
 * stage l and on every op of those two micro-batches downstream of it in
 * the dependency chain; the earlier-finishing producer then feeds the
 * earlier consumer, so every dependency still holds with the same times,
 * and memory is unchanged because it depends on op kinds only. Repeating
 * this sorts every (stage, kind) into micro-batch order without changing
 * any device's op times: an optimal schedule stays optimal. Overlapped
 * F&B pairs constrain times and kinds, not labels, so they survive the
 * swaps.
 *
 * Heads, tails and the transitive closure follow from the arcs.
 */
#ifndef PIPEOPT_OPGRAPH_H
#define PIPEOPT_OPGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"

/* One end of an arc, seen from the other: the op there and the lag. */
struct op_arc {
	int op;
	int64_t lag;   /* time units */
};

struct opgraph {
	const struct instance *in;
	int n;                    /* ops (inst_nops) */
	int64_t *dur;             /* [n] duration, time units */
	int *device;              /* [n] */
	int *pred_start;          /* [n+1] CSR of incoming arcs */
	struct op_arc *pred;
	int *succ_start;          /* [n+1] CSR of outgoing arcs (from = head) */
	struct op_arc *succ;
	int narcs;
	int *topo;                /* [n] topological order */
	int64_t *head;            /* [n] earliest start (longest path from 0) */
	int64_t *tail;            /* [n] longest path from end to the end */
	uint64_t *reach;          /* [n][words]: bit k of row i: i precedes k */
	int words;
	int window_arcs;          /* how many memory-window arcs were added */
	bool *dev_first;          /* [n] no op of its device must precede it */
	bool *dev_last;           /* [n] no op of its device must follow it */
	int devices;
	int *dev_start;           /* [devices+1] CSR of each device's ops */
	int *dev_ops;
	int dev_most;             /* the most ops on one device */
	int *ef_ord;              /* scratch of opgraph_windows' edge finding */
	int64_t *ef_buf;
	bool *ef_dirty;           /* [devices] */
	int *mem_credit_start;    /* [stages+1] CSR of the memory releases'
	                             stages (opgraph.c memory_credits), or NULL */
	int *mem_credit;
	int64_t *mem_t, *mem_f;   /* their scratch */
};

struct opgraph *opgraph_new(const struct instance *in, struct error *err);
void opgraph_free(struct opgraph *g);

/* Whether op i must precede op k (i != k) in every FIFO schedule. */
static inline bool opgraph_precedes(const struct opgraph *g, int i, int k)
{
	return (g->reach[(long)i * g->words + (k >> 6)] >> (k & 63)) & 1;
}

/* The pairs of ops on one device that neither must precede (a < b), in
 * *pairs (malloc'd, the caller frees; pairs NULL: only count them); the
 * count, or -1 out of memory. */
int opgraph_open_pairs(const struct opgraph *g, int (**pairs)[2]);

/*
 * Time windows of a target (every op ends by horizon H), with the pair
 * orders they decide (immediate selection, Carlier and Pinson's rule for
 * two ops). Every schedule that ends by H has each op's start at or after
 * s_o and its end at or before e_o, s_o from the heads and e_o = H -
 * tail_o at first. If b ran before a, a would end at least s_b + T_b +
 * T_a; when that exceeds e_a, a runs before b in every such schedule. A
 * decided order is itself a precedence (s_b >= s_a + T_a, e_a <= e_b -
 * T_b), and so is every arc (s_k >= s_i + T_i + lag, e_i <= e_k - T_k -
 * lag). Edge finding adds what sets of a device's ops decide (opgraph.c
 * edge_find: an op that cannot end before all of a set has run after all
 * of it). The windows shrink until nothing changes (at most 64 rounds),
 * and each shrink can decide more pairs. Every rule assumes that a
 * device runs one op at a time: not for F&B pairs that overlap.
 *
 * pairs: npairs open pairs (opgraph_open_pairs); fixed[p] (npairs, filled
 * here): 1 a before b, 0 b before a, -1 open; *nfixed the decided count.
 * start_lb and end_ub: [n] s_o and e_o. False when some window empties:
 * no schedule ends by H (the caller may leave that to its solver).
 */
bool opgraph_windows(const struct opgraph *g, int64_t horizon, int npairs,
		     const int (*pairs)[2], signed char *fixed, int64_t *start_lb,
		     int64_t *end_ub, int *nfixed);

/* opgraph_windows' propagation from the windows and decided orders
 * given, each valid for every schedule that ends by the horizon: the
 * caller narrowed op `from`'s window since they were last propagated
 * (-1: any may have changed). Not thread-safe on one graph (scratch in
 * it). */
bool opgraph_propagate(const struct opgraph *g, int npairs, const int (*pairs)[2],
		       signed char *fixed, int64_t *start_lb, int64_t *end_ub, int *nfixed,
		       int from);

#endif
