/*
 * The dynamic try-test decoder (the rules are in genome.h).
 *
 * Bookkeeping. Every consumption takes the earliest unconsumed gene of its
 * slot (the cursor is the earliest unconsumed gene of its row, and every
 * repair picks a slot, then that slot's earliest gene), so the genes of a
 * slot are consumed in order and the slot's count consumed is also the
 * micro-batch of its next op. qpos lists each slot's gene positions in
 * order; the realised order is written to `out` and copied back at the end.
 *
 * Why filling a wait with a W never hurts (step 2 of genome.h). Let the
 * device be free at t and its next op x wait for inputs until a > t. A
 * pending W with t + dur(W) <= a, moved from its later place to before x,
 * ends by a, so x still starts at a and every op up to W's old place keeps
 * its time; the ops after it lose W's duration from their device chain and
 * can only start earlier. Nothing depends on a W. With delta(W) <= 0 the
 * running memory sum is lower or equal everywhere. So makespan and span
 * can only improve (start times are monotone in predecessors' ends).
 *
 * Recomputation (instance.h): an F that does not fit with its activations
 * but fits with the kept part drops them, and its B then runs the
 * recompute first (memory and time as the simulator counts them); an F
 * that fits keeps them, since dropping only adds time to the order as
 * decoded. A recomputed B that then lacks memory for the rebuild, with no
 * pending W to make room, drops resident activations whose B's come later
 * (drop_room): the order stands, where reordering it could only run other
 * ops first and, with every resident activation's B listed after this B,
 * deadlocked. The rules read the order alone, so a decoded genome decodes
 * to the same marks.
 *
 * Offload (instance.h): the genome orders compute ops only; the decoder
 * decides the copies. When the device's next op needs memory it lacks and
 * no pending W can make room, it offloads resident activations (F run, B
 * not yet, nothing copied; victim() picks them) while the host has room,
 * until the op fits, or none when they cannot make it fit; the O goes on
 * the copy channel after its F and before the op in the row. When the
 * next op is the B of an offloaded activation, its reload L is listed
 * right before it (making room the same way if needed) and the B waits for
 * it. Times follow the simulator's memory rule (ready.h offload_floor), so
 * the decoded rows, copies included, simulate to the decoder's objective.
 * Like the recompute marks the copies are read off the order, so a decoded
 * genome decodes to the same copies.
 */
#include "ga/genome.h"

#include <stdlib.h>
#include <string.h>

#include "sched/ready.h"

struct decoder {
	const struct layout *lay;
	const struct instance *in;
	int M, L;
	int64_t *end;          /* [nops] by op id; < 0 = not timed yet */
	int *qpos;             /* [nslots * M] gene positions of each slot, in order */
	int *head;             /* [nslots] genes of the slot consumed = next micro-batch */
	uint8_t *used;         /* [n] gene consumed */
	gene_t *out;           /* [n] the realised order */
	int *cur;              /* [D] earliest unconsumed position of the row */
	int *outpos;           /* [D] next position to write in out */
	int *forced;           /* [D] slot a repair chose to run next, or -1 */
	int64_t *free_at;      /* [D] time units: end of the device's last op */
	int64_t *first_start;  /* [D] time units: start of its first op, -1 none */
	int64_t *mem;          /* [D] memory units: running sum of deltas */
	int *stack;            /* [D] devices to run again */
	uint8_t *queued;       /* [D] */
	int top;
	struct decode_stats st;
	bool pairs;            /* overlap: adjacent ready F and B run as a pair */
	uint8_t *second;       /* [n] out[i] runs with out[i - 1] as a pair */
	bool recompute;        /* the instance's recompute: F's may drop */
	uint8_t *rc;           /* [L*M] F(l, j) dropped its activations */
	bool offload;          /* the instance's offload: the decoder copies */
	uint8_t *cp;           /* [L*M] 0, 1 offloaded, 2 reloaded */
	int64_t *lend;         /* [L*M] end of the reload L(l, j) */
	int64_t *chan_free;    /* [D] the copy channel free from */
	int64_t *free_end;     /* [D] ready.h offload_floor */
	int64_t *alloc_start;  /* [2*D] */
	int64_t *host;         /* [D] host memory in use */
	int *taken;            /* [L*M] scratch of room_possible and drop_room */
	struct copy_op {       /* the copies in decision order */
		int device, at;    /* listed before the device's at-th compute op */
		int kind, stage, mb;
	} *copies;
	int ncopies;
};

struct decoder *decoder_new(const struct layout *lay)
{
	const struct instance *in = lay->in;
	int D = in->devices;
	struct decoder *dc = calloc(1, sizeof *dc);
	if (!dc)
		return NULL;
	dc->lay = lay;
	dc->in = in;
	dc->M = in->microbatches;
	dc->L = in->stages;
	dc->end = malloc(lay->n * sizeof *dc->end);
	dc->qpos = malloc(lay->n * sizeof *dc->qpos);
	dc->head = malloc(lay->nslots * sizeof *dc->head);
	dc->used = malloc(lay->n);
	dc->out = malloc(lay->n * sizeof *dc->out);
	dc->cur = malloc(D * sizeof *dc->cur);
	dc->outpos = malloc(D * sizeof *dc->outpos);
	dc->forced = malloc(D * sizeof *dc->forced);
	dc->free_at = malloc(D * sizeof *dc->free_at);
	dc->first_start = malloc(D * sizeof *dc->first_start);
	dc->mem = malloc(D * sizeof *dc->mem);
	dc->stack = malloc(D * sizeof *dc->stack);
	dc->queued = malloc(D);
	dc->pairs = inst_pairs_gain(in);
	dc->second = calloc(lay->n ? lay->n : 1, 1);
	dc->recompute = in->has_recompute;
	dc->rc = calloc((size_t)dc->L * dc->M + 1, 1);
	dc->offload = in->has_offload;
	size_t lm = dc->offload ? (size_t)dc->L * dc->M : 1, dd = dc->offload ? D : 1;
	dc->cp = calloc(lm, 1);
	dc->lend = calloc(lm, sizeof *dc->lend);
	dc->chan_free = calloc(dd, sizeof *dc->chan_free);
	dc->free_end = calloc(dd, sizeof *dc->free_end);
	dc->alloc_start = calloc(2 * dd, sizeof *dc->alloc_start);
	dc->host = calloc(dd, sizeof *dc->host);
	dc->copies = calloc(2 * lm, sizeof *dc->copies);
	dc->taken = calloc(dc->offload || dc->recompute ? (size_t)dc->L * dc->M : 1,
			   sizeof *dc->taken);
	if (!dc->end || !dc->qpos || !dc->head || !dc->used || !dc->out || !dc->cur ||
	    !dc->outpos || !dc->forced || !dc->free_at || !dc->first_start ||
	    !dc->mem || !dc->stack || !dc->queued || !dc->second || !dc->rc || !dc->cp ||
	    !dc->lend || !dc->chan_free || !dc->free_end || !dc->alloc_start || !dc->host ||
	    !dc->copies || !dc->taken) {
		decoder_free(dc);
		return NULL;
	}
	return dc;
}

void decoder_free(struct decoder *dc)
{
	if (!dc)
		return;
	free(dc->end);
	free(dc->qpos);
	free(dc->head);
	free(dc->used);
	free(dc->out);
	free(dc->cur);
	free(dc->outpos);
	free(dc->forced);
	free(dc->free_at);
	free(dc->first_start);
	free(dc->mem);
	free(dc->stack);
	free(dc->queued);
	free(dc->second);
	free(dc->rc);
	free(dc->cp);
	free(dc->lend);
	free(dc->chan_free);
	free(dc->free_end);
	free(dc->alloc_start);
	free(dc->host);
	free(dc->copies);
	free(dc->taken);
	free(dc);
}

static void reset(struct decoder *dc, const gene_t *g)
{
	const struct layout *lay = dc->lay;
	int D = dc->in->devices, M = dc->M;
	memset(dc->end, 0xff, lay->n * sizeof *dc->end);   /* all -1 */
	memset(dc->used, 0, lay->n);
	if (dc->pairs)
		memset(dc->second, 0, lay->n);
	if (dc->recompute)
		memset(dc->rc, 0, (size_t)dc->L * M);
	if (dc->offload) {
		memset(dc->cp, 0, (size_t)dc->L * M);
		memset(dc->chan_free, 0, D * sizeof *dc->chan_free);
		memset(dc->free_end, 0, D * sizeof *dc->free_end);
		memset(dc->alloc_start, 0, 2 * D * sizeof *dc->alloc_start);
		memset(dc->host, 0, D * sizeof *dc->host);
		dc->ncopies = 0;
	}
	memset(dc->head, 0, lay->nslots * sizeof *dc->head);
	for (int i = 0; i < lay->n; i++)
		dc->qpos[g[i] * M + dc->head[g[i]]++] = i;
	memset(dc->head, 0, lay->nslots * sizeof *dc->head);
	dc->top = 0;
	for (int d = 0; d < D; d++) {
		dc->cur[d] = dc->outpos[d] = lay->row_start[d];
		dc->forced[d] = -1;
		dc->free_at[d] = 0;
		dc->first_start[d] = -1;
		dc->mem[d] = 0;
		dc->queued[d] = 1;
		dc->stack[dc->top++] = D - 1 - d;
	}
	memset(&dc->st, 0, sizeof dc->st);
}

/* Slot q's next op charged on device d with memory m in use: the memory
 * after it, *top its highest point (a recomputed B first takes back the
 * rebuilt part). An F drops its activations (*drop): with `decide`, when
 * they do not fit and the kept part does (the first pass's rule); else as
 * the first pass marked it (the pair pass). charge() keeps the plain case
 * inline (the GA's inner loop); this is the case with recompute. */
static int64_t charge_recompute(const struct decoder *dc, int d, int q, int64_t m, bool decide,
				int64_t *top, bool *drop)
{
	const struct instance *in = dc->in;
	int k = q / dc->L, l = q % dc->L;
	bool marked = k != OP_W && dc->rc[l * dc->M + dc->head[q]];
	*drop = false;
	if (k == OP_F) {
		int64_t kept = m + inst_delta(in, k, l);
		*drop = !decide ? marked : in->has_limit && kept > in->limit[d] &&
			inst_rebuilt(in, l) > 0;
		return *top = *drop ? m + in->recompute_keep[l] : kept;
	}
	if (k == OP_B && marked) {
		*top = m + inst_rebuilt(in, l);
		int64_t after = *top + inst_delta(in, k, l);
		*top = after > *top ? after : *top;
		return after;
	}
	return *top = m + inst_delta(in, k, l);
}

static inline int64_t charge(const struct decoder *dc, int d, int q, int64_t m, bool decide,
			     int64_t *top, bool *drop)
{
	if (dc->recompute)
		return charge_recompute(dc, d, q, m, decide, top, drop);
	*drop = false;
	return *top = m + inst_delta(dc->in, q / dc->L, q % dc->L);
}

static bool fits(const struct decoder *dc, int d, int q)
{
	const struct instance *in = dc->in;
	int64_t top;
	bool drop;
	if (!dc->recompute)
		return !in->has_limit ||
		       dc->mem[d] + inst_delta(in, q / dc->L, q % dc->L) <= in->limit[d];
	charge_recompute(dc, d, q, dc->mem[d], true, &top, &drop);
	return !in->has_limit || top <= in->limit[d];
}

static int64_t duration(const struct decoder *dc, int q, int j)
{
	const struct instance *in = dc->in;
	int k = q / dc->L, l = q % dc->L;
	return in->has_recompute ? inst_op_duration(in, k, l, k == OP_B && dc->rc[l * dc->M + j]) :
				   in->cost[k][l];
}

/* Position in the genome of slot q's next gene. */
static int gene_pos(const struct decoder *dc, int q)
{
	return dc->qpos[q * dc->M + dc->head[q]];
}

/* The device's next slot: a repair's choice, else the row's next gene;
 * -1 when the row is done. */
static int next_slot(struct decoder *dc, const gene_t *g, int d)
{
	if (dc->forced[d] >= 0)
		return dc->forced[d];
	int end = dc->lay->row_start[d + 1];
	while (dc->cur[d] < end && dc->used[dc->cur[d]])
		dc->cur[d]++;
	return dc->cur[d] < end ? g[dc->cur[d]] : -1;
}

/* Wake the devices that may wait for op (k, l), ended on device d. */
static void wake(struct decoder *dc, int d, int k, int l)
{
	wake_dependents(dc->in, k, l, d, dc->queued, dc->stack, &dc->top);
}

/* Run slot q's next op on device d at `start`; wake the devices that may
 * wait for it. */
static void place(struct decoder *dc, int d, int q, int64_t start)
{
	int k = q / dc->L, l = q % dc->L, j = dc->head[q];
	int id = (k * dc->L + l) * dc->M + j;
	if (dc->recompute) {
		int64_t top;
		bool drop;
		dc->mem[d] = charge_recompute(dc, d, q, dc->mem[d], true, &top, &drop);
		if (drop)
			dc->rc[l * dc->M + j] = 1;
	} else {
		dc->mem[d] += inst_delta(dc->in, k, l);
	}
	dc->used[gene_pos(dc, q)] = 1;
	dc->head[q]++;
	dc->out[dc->outpos[d]++] = (gene_t)q;
	dc->end[id] = start + (dc->recompute ? duration(dc, q, j) : dc->in->cost[k][l]);
	if (dc->offload)
		offload_mark(dc->free_end, dc->alloc_start, d, 0, inst_delta(dc->in, k, l), start,
			     dc->end[id]);
	if (dc->first_start[d] < 0)
		dc->first_start[d] = start;
	dc->free_at[d] = dc->end[id];
	dc->forced[d] = -1;
	wake(dc, d, k, l);
}

/* Whether the W of stage l has a micro-batch whose B has run. */
static bool w_pending(const struct decoder *dc, int l)
{
	return dc->head[OP_W * dc->L + l] < dc->head[OP_B * dc->L + l];
}

/* The earliest-listed slot of device d passing `ok`, or -1. */
static int earliest_slot(const struct decoder *dc, int d,
			 bool (*ok)(const struct decoder *, int, int, void *),
			 void *ctx)
{
	const struct layout *lay = dc->lay;
	int best = -1, best_pos = 0;
	for (int i = lay->dev_slot_start[d]; i < lay->dev_slot_start[d + 1]; i++) {
		int q = lay->dev_slots[i];
		if (dc->head[q] >= dc->M || !ok(dc, d, q, ctx))
			continue;
		int p = gene_pos(dc, q);
		if (best < 0 || p < best_pos) {
			best = q;
			best_pos = p;
		}
	}
	return best;
}

static bool pending_w_fits(const struct decoder *dc, int d, int q, void *ctx)
{
	return q / dc->L == OP_W && w_pending(dc, q % dc->L) && fits(dc, d, q);
}

/* An op that fits and whose inputs on this device have all run (else
 * choosing it would stall the device on itself). */
static bool local_inputs_fit(const struct decoder *dc, int d, int q, void *ctx)
{
	int k = q / dc->L, l = q % dc->L, j = dc->head[q], M = dc->M;
	const struct instance *in = dc->in;
	if (!fits(dc, d, q))
		return false;
	if (k == OP_W)
		return w_pending(dc, l);
	if (k == OP_B)
		return dc->end[l * M + j] >= 0;
	for (int i = in->pred_start[l]; i < in->pred_start[l + 1]; i++) {
		int p = in->pred[i].stage;
		if (in->stage_device[p] == d && dc->end[p * M + j] < 0)
			return false;
	}
	return true;
}

/* A pending W that fits and ends by *(int64_t *)ctx. */
static bool w_fills(const struct decoder *dc, int d, int q, void *ctx)
{
	int64_t by = *(const int64_t *)ctx;
	int l = q % dc->L;
	return q / dc->L == OP_W && w_pending(dc, l) &&
	       inst_delta(dc->in, OP_W, l) <= 0 &&
	       dc->free_at[d] + dc->in->cost[OP_W][l] <= by;   /* W: no recompute */
}

/* Step 2: fill the wait before an op that can start at `ready`. */
static void fill_with_w(struct decoder *dc, int d, int64_t ready)
{
	int q;
	while (dc->free_at[d] < ready &&
	       (q = earliest_slot(dc, d, w_fills, &ready)) >= 0) {
		place(dc, d, q, dc->free_at[d]);
		dc->st.w_fills++;
	}
}

/* ---- offload (the copies the decoder decides) ------------------------------- */

static void record_copy(struct decoder *dc, int d, int kind, int l, int j)
{
	dc->copies[dc->ncopies++] = (struct copy_op){d, dc->outpos[d] - dc->lay->row_start[d],
						     kind, l, j};
}

/* Offload the activations of (l, j) on device d: on the channel after its
 * F; frees them when it ends (the ops that take memory wait for it). */
static void offload_one(struct decoder *dc, int d, int l, int j)
{
	const struct instance *in = dc->in;
	int64_t moved = inst_moved(in, l);
	int64_t st = offload_copy_start(false, dc->chan_free[d], dc->end[l * dc->M + j],
					dc->free_end, dc->alloc_start, d);
	int64_t end = st + in->offload_cost[l];
	dc->chan_free[d] = end;
	offload_mark(dc->free_end, dc->alloc_start, d, 1, -moved, st, end);
	dc->mem[d] -= moved;
	dc->host[d] += moved;
	dc->cp[l * dc->M + j] = 1;
	record_copy(dc, d, OP_O, l, j);
}

/* The resident activation of device d to offload (or, with `drop`, to
 * drop for recompute) next, other than (skip_l, skip_j): of each stage its
 * last resident micro-batch (F run, B not yet; offload: nothing copied and
 * room on the host; drop: its F kept them, rc 0; its B comes last of the
 * stage's, FIFO), and of those the one with the most of its stage's B's
 * still before it (the longest time off the device, Belady's rule with the
 * order's counts alone: the choice must not depend on where later genes
 * sit, which repairs move, or a decoded genome would not decode to
 * itself); ties to the later stage. False when none is left. */
static bool victim(const struct decoder *dc, int d, bool drop, int skip_l, int skip_j, int *vl,
		   int *vj)
{
	const struct instance *in = dc->in;
	const struct layout *lay = dc->lay;
	int M = dc->M, L = dc->L, best_ahead = -1;
	for (int i = lay->dev_slot_start[d]; i < lay->dev_slot_start[d + 1]; i++) {
		int q = lay->dev_slots[i], l = q % L;
		int64_t freed = drop ? inst_rebuilt(in, l) : inst_moved(in, l);
		if (q / L != OP_B || freed <= 0 ||
		    (!drop && in->has_host_limit && dc->host[d] + freed > in->host_limit[d]))
			continue;
		const uint8_t *taken = drop ? dc->rc : dc->cp;
		for (int j = dc->head[OP_F * L + l] - 1; j >= dc->head[q]; j--) {
			if (taken[l * M + j] || (l == skip_l && j == skip_j))
				continue;
			int ahead = j - dc->head[q];
			if (ahead >= best_ahead) {
				best_ahead = ahead;
				*vl = l;
				*vj = j;
			}
			break;
		}
	}
	return best_ahead >= 0;
}

/* Whether offloading by victim()'s rule would bring the memory in use
 * down to limit - need, counted without offloading anything (all or
 * nothing: a partial offload before a repair would not recur when the
 * repaired order is decoded again). */
static bool room_possible(struct decoder *dc, int d, int64_t need, int skip_l, int skip_j)
{
	const struct instance *in = dc->in;
	int64_t freed = 0, host = dc->host[d];
	int n = 0, l, j;
	bool ok = false;
	while (!ok && victim(dc, d, false, skip_l, skip_j, &l, &j)) {
		int64_t moved = inst_moved(in, l);
		freed += moved;
		dc->host[d] += moved;   /* as victim() will see it */
		dc->cp[l * dc->M + j] = 3;   /* taken, for this count only */
		dc->taken[n++] = l * dc->M + j;
		ok = dc->mem[d] - freed + need <= in->limit[d];
	}
	for (int i = 0; i < n; i++)
		dc->cp[dc->taken[i]] = 0;
	dc->host[d] = host;
	return ok;
}

/* Offload by victim()'s rule, other than (skip_l, skip_j), until `need`
 * more fits; nothing when that cannot be done (room_possible). */
static bool make_room(struct decoder *dc, int d, int64_t need, int skip_l, int skip_j)
{
	const struct instance *in = dc->in;
	if (!in->has_limit || dc->mem[d] + need <= in->limit[d])
		return true;
	if (!room_possible(dc, d, need, skip_l, skip_j))
		return false;
	int l, j;
	while (dc->mem[d] + need > in->limit[d] && victim(dc, d, false, skip_l, skip_j, &l, &j))
		offload_one(dc, d, l, j);
	return true;
}

/* Slot q's next op on device d needs memory it lacks: offload to make
 * room for its highest point. */
static bool room_for(struct decoder *dc, int d, int q)
{
	const struct instance *in = dc->in;
	int64_t need = inst_delta(in, q / dc->L, q % dc->L);
	return need > 0 && make_room(dc, d, need, -1, -1);
}

/* The next op is B(l, j) of an offloaded activation: list its reload
 * before it (by the memory rule: it takes the memory back), making room
 * if needed; false when there is none. */
static bool reload(struct decoder *dc, int d, int l, int j)
{
	const struct instance *in = dc->in;
	int64_t moved = inst_moved(in, l);
	if (!make_room(dc, d, moved, l, j))
		return false;
	int64_t st = offload_copy_start(true, dc->chan_free[d], 0, dc->free_end, dc->alloc_start,
					d);
	int64_t end = st + in->reload_cost[l];
	dc->chan_free[d] = dc->lend[l * dc->M + j] = end;
	offload_mark(dc->free_end, dc->alloc_start, d, 1, moved, st, end);
	dc->mem[d] += moved;
	dc->host[d] -= moved;
	dc->cp[l * dc->M + j] = 2;
	record_copy(dc, d, OP_L, l, j);
	return true;
}

/* A compute op's start on an offload instance: a B after its reload, an
 * op that takes memory by the memory rule. */
static int64_t offload_start(const struct decoder *dc, int d, int q, int64_t st)
{
	int k = q / dc->L, l = q % dc->L, x = l * dc->M + dc->head[q];
	return offload_compute_start(k, inst_delta(dc->in, k, l),
				     k == OP_B && dc->cp[x] == 2 ? dc->lend[x] : -1,
				     dc->free_end, dc->alloc_start, d, st);
}

/* Whether slot q's next op is the B of an offloaded activation whose
 * reload is not listed yet. */
static bool needs_reload(const struct decoder *dc, int q)
{
	return dc->offload && q / dc->L == OP_B && dc->cp[q % dc->L * dc->M + dc->head[q]] == 1;
}

/* Recompute: slot q's next op, a B that rebuilds its activations, does
 * not fit on device d; drop other resident activations by victim()'s
 * rule until it does (all or nothing).
 * Dropping after the F ran is what the F dropping them would have been:
 * the memory in use at every point before is lower by the dropped part,
 * the times before are unchanged (the B has not run), and the B rebuilds
 * them first (R longer, the rebuilt memory charged at the B), so the
 * decoded rows simulate to the decoder's times. The genome orders the op
 * now; without the drop, the repairs below would run another op first,
 * and on one stage per device, where every resident activation's B comes
 * after this op, the order can end in a deadlock (1F1B's order under a
 * limit below p activations, e.g. datasets/instances/recompute-3x4.json
 * at m 100). */
static bool drop_room(struct decoder *dc, int d, int q)
{
	const struct instance *in = dc->in;
	int l = q % dc->L, n = 0, vl, vj;
	int64_t top, freed = 0;
	bool drop;
	charge_recompute(dc, d, q, dc->mem[d], true, &top, &drop);
	while (top - freed > in->limit[d] && victim(dc, d, true, l, dc->head[q], &vl, &vj)) {
		freed += inst_rebuilt(in, vl);
		dc->rc[vl * dc->M + vj] = 2;   /* taken, until the count is done */
		dc->taken[n++] = vl * dc->M + vj;
	}
	bool ok = top - freed <= in->limit[d];
	for (int i = 0; i < n; i++)
		dc->rc[dc->taken[i]] = ok;
	if (ok)
		dc->mem[d] -= freed;
	return ok && n > 0;
}

/* Slot q's next op lacks memory on device d, or is a B whose reload is
 * not listed: list the reload where it fits; else run a pending W that
 * fits; else, with offload, copy activations out (all or nothing: to fit
 * the op, or its reload); else, with recompute, for a B that rebuilds,
 * drop other resident activations (drop_room, all or nothing); else run
 * the earliest-listed op that fits and whose same-device inputs have run.
 * *copied: copies were listed for q.
 * False when nothing helps. */
static bool make_fit(struct decoder *dc, int d, int q, bool *copied)
{
	const struct instance *in = dc->in;
	int l = q % dc->L, j = dc->head[q];
	bool reloading = needs_reload(dc, q);
	if (reloading && (!in->has_limit || dc->mem[d] + inst_moved(in, l) <= in->limit[d]))
		return *copied = reload(dc, d, l, j);
	int r = earliest_slot(dc, d, pending_w_fits, NULL);
	if (r < 0 && dc->offload && (reloading ? reload(dc, d, l, j) : room_for(dc, d, q)))
		return *copied = true;
	if (r < 0 && dc->recompute && q / dc->L == OP_B && drop_room(dc, d, q))
		return true;   /* a decision, like the F's own drop: not a repair */
	if (r < 0)
		r = earliest_slot(dc, d, local_inputs_fit, NULL);
	if (r < 0 || r == q)
		return false;
	dc->forced[d] = r;
	dc->st.memory_repairs++;
	return true;
}

/* Run device d as far as it can. False when memory cannot be repaired. */
static bool run_device(struct decoder *dc, const gene_t *g, int d)
{
	const struct instance *in = dc->in;
	int q;
	bool copied = false;   /* copies were listed for the op now next */
	while ((q = next_slot(dc, g, d)) >= 0) {
		int w, k = q / dc->L, l = q % dc->L;
		int64_t start = 0;
		/* with offload, inputs first: copies are decided when the op can
		 * start, so that nothing a repair runs meanwhile is listed between
		 * them and the op (it would come first when the order is decoded
		 * again); their times follow the device's state, not the moment
		 * of the decision */
		if (dc->offload && (start = op_ready_time(in, dc->end, k, l, dc->head[q],
							  dc->free_at[d], &w)) < 0)
			return true;   /* waits for another device */
		/* recompute: a B that lacks memory waits for its inputs first,
		 * so that what runs meanwhile (a deadlock's repair elsewhere,
		 * W's it makes pending) is in place before drop_room() decides:
		 * the realised order, decoded again, reaches the same point */
		bool fit = !needs_reload(dc, q) && fits(dc, d, q);
		if (!fit && dc->recompute && k == OP_B &&
		    op_ready_time(in, dc->end, k, l, dc->head[q], dc->free_at[d], &w) < 0)
			return true;   /* waits for another device */
		if (!fit) {
			if (!make_fit(dc, d, q, &copied))
				return false;
			continue;
		}
		if (!dc->offload &&
		    (start = op_ready_time(in, dc->end, k, l, dc->head[q], dc->free_at[d], &w)) < 0)
			return true;   /* waits for another device */
		if (dc->offload)
			start = offload_start(dc, d, q, start);
		/* W's end by start: it stands; not after copies made for this
		 * op (decoded again, the W's would come first and free memory
		 * before the copies' decision) */
		if (start > dc->free_at[d] && in->split_backward && !copied)
			fill_with_w(dc, d, start);
		place(dc, d, q, start);
		copied = false;
	}
	return true;
}

/* Whether slot q fits on device d; with `reserve`, an F must also leave
 * room for one more F of each of the device's other stages (so that a
 * repair does not fill memory with one stage's forwards while another
 * stage of the device, V placement say, still needs one to go on). */
static bool fits_with_reserve(const struct decoder *dc, int d, int q, int reserve)
{
	const struct instance *in = dc->in;
	if (!in->has_limit)
		return true;
	int k = q / dc->L, l = q % dc->L;
	int64_t need = inst_delta(in, k, l);
	if (dc->recompute) {   /* q's own charge as the first pass takes it */
		int64_t top;
		bool drop;
		int64_t after = charge_recompute(dc, d, q, dc->mem[d], true, &top, &drop);
		if (top > in->limit[d])
			return false;
		need = after - dc->mem[d];
	}
	if (reserve && k == OP_F)   /* room for one more F of each other stage */
		for (int i = dc->lay->dev_slot_start[d]; i < dc->lay->dev_slot_start[d + 1]; i++) {
			int r = dc->lay->dev_slots[i], rl = r % dc->L;
			if (r / dc->L == OP_F && rl != l && dc->head[r] < dc->M)
				need += in->has_recompute && inst_rebuilt(in, rl) > 0 ?
					in->recompute_keep[rl] : inst_delta(in, OP_F, rl);
		}
	return dc->mem[d] + need <= in->limit[d];
}

/* The ready op (inputs all timed, fits, with or without the reserve) that
 * can start earliest, ties to the earliest-listed: its slot into *q and
 * device into *d; false if none. */
static bool earliest_ready(const struct decoder *dc, int reserve, int *d_out, int *q_out)
{
	const struct instance *in = dc->in;
	const struct layout *lay = dc->lay;
	int best_pos = 0;
	int64_t best_start = 0;
	*q_out = -1;
	for (int d = 0; d < in->devices; d++) {
		if (dc->outpos[d] == lay->row_start[d + 1])
			continue;
		for (int i = lay->dev_slot_start[d]; i < lay->dev_slot_start[d + 1]; i++) {
			int q = lay->dev_slots[i], w;
			if (dc->head[q] >= dc->M || !fits_with_reserve(dc, d, q, reserve))
				continue;
			int64_t s = op_ready_time(in, dc->end, q / dc->L, q % dc->L,
						  dc->head[q], dc->free_at[d], &w);
			int p = s < 0 ? 0 : gene_pos(dc, q);
			if (s >= 0 && (*q_out < 0 || s < best_start ||
				       (s == best_start && p < best_pos))) {
				*d_out = d;
				*q_out = q;
				best_start = s;
				best_pos = p;
			}
		}
	}
	return *q_out >= 0;
}

/* Step 3: every unfinished device waits. Force the earliest ready op,
 * keeping the forward reserve if any op allows it. */
static bool break_deadlock(struct decoder *dc)
{
	int d, q;
	if (!earliest_ready(dc, 1, &d, &q) && !earliest_ready(dc, 0, &d, &q))
		return false;
	dc->forced[d] = q;
	dc->queued[d] = 1;
	dc->stack[dc->top++] = d;
	dc->st.deadlock_repairs++;
	return true;
}

static struct fitness measure(const struct decoder *dc)
{
	struct fitness f = {0, 0, 0};
	bool span = dc->in->objective == OBJ_SPAN;
	for (int d = 0; d < dc->in->devices; d++) {
		if (dc->first_start[d] < 0)
			continue;
		int64_t v = dc->free_at[d] - (span ? dc->first_start[d] : 0);
		f.tie += v;
		if (v > f.objective) {
			f.objective = v;
			f.critical = d;
		}
	}
	return f;
}

static bool finished(const struct decoder *dc)
{
	for (int d = 0; d < dc->in->devices; d++)
		if (dc->outpos[d] < dc->lay->row_start[d + 1])
			return false;
	return true;
}

/* A (B, F) pair charges its F first, then the B (a recomputed B's rebuild
 * on top of the F's), with the first pass's drop marks: both must fit
 * (sim.c's order). */
static bool bf_pair_fits(const struct decoder *dc, int d, int b, int f)
{
	int64_t top;
	bool drop;
	if (!dc->in->has_limit)
		return true;
	int64_t m = charge(dc, d, f, dc->mem[d], false, &top, &drop);
	if (top > dc->in->limit[d])
		return false;
	charge(dc, d, b, m, false, &top, &drop);
	return top <= dc->in->limit[d];
}

/*
 * Overlap, the second pass (genome.h): time the decoded order dc->out
 * again, running an op and the next of its device's order as one pair
 * when they are an F and a B, the second's inputs have arrived by the time
 * the first can start, and memory allows it (the pair's F counts first:
 * after a B it must fit before the B's release; the order itself was
 * checked in the first pass). Pairs only merge neighbours that are both
 * ready, so no device waits on one it did not wait on before: no deadlock.
 * The pass depends on the order alone, so a decoded genome decodes to the
 * same pairs and fitness. Fills end, free_at, first_start and second.
 */
static void pair_pass(struct decoder *dc)
{
	const struct instance *in = dc->in;
	const struct layout *lay = dc->lay;
	int D = in->devices, L = dc->L;
	memset(dc->end, 0xff, lay->n * sizeof *dc->end);
	memset(dc->second, 0, lay->n);
	memset(dc->head, 0, lay->nslots * sizeof *dc->head);
	dc->top = 0;
	for (int d = 0; d < D; d++) {
		dc->cur[d] = lay->row_start[d];
		dc->free_at[d] = 0;
		dc->first_start[d] = -1;
		dc->mem[d] = 0;
		dc->queued[d] = 1;
		dc->stack[dc->top++] = D - 1 - d;
	}
	while (dc->top > 0) {
		int d = dc->stack[--dc->top], last = lay->row_start[d + 1], w;
		dc->queued[d] = 0;
		for (int p = dc->cur[d]; p < last; p = dc->cur[d]) {
			int q = dc->out[p], k = q / L, l = q % L;
			int64_t st = op_ready_time(in, dc->end, k, l, dc->head[q], dc->free_at[d], &w);
			if (st < 0)
				break;
			int n = 1, q2 = p + 1 < last ? dc->out[p + 1] : 0, k2 = q2 / L, l2 = q2 % L;
			int64_t dur = duration(dc, q, dc->head[q]), top;
			bool drop;
			/* a (B, F) pair charges its F first: the F must fit before
			 * the B's release (the drop marks are the first pass's) */
			if (p + 1 < last && ((k == OP_F && k2 == OP_B) || (k == OP_B && k2 == OP_F)) &&
			    op_ready_time(in, dc->end, k2, l2, dc->head[q2], st, &w) == st &&
			    !(k == OP_B && !bf_pair_fits(dc, d, q, q2))) {
				n = 2;
				dur = inst_pair_cost(in, dur, duration(dc, q2, dc->head[q2]));
				dc->second[p + 1] = 1;
			}
			for (int i = 0; i < n; i++) {
				int qi = dc->out[p + i], ki = qi / L, li = qi % L;
				dc->mem[d] = charge(dc, d, qi, dc->mem[d], false, &top, &drop);
				dc->end[(ki * L + li) * dc->M + dc->head[qi]++] = st + dur;
			}
			if (dc->first_start[d] < 0)
				dc->first_start[d] = st;
			dc->free_at[d] = st + dur;
			dc->cur[d] = p + n;
			wake(dc, d, k, l);
			if (n == 2)
				wake(dc, d, k2, l2);
		}
	}
}

/* The rows of s with the decoder's copies listed where it decided them:
 * each before the device's at-th compute op. */
static struct schedule *with_copies(const struct decoder *dc, struct schedule *s)
{
	if (!s || !dc->ncopies)
		return s;
	struct schedule *t = schedule_new(s->devices);
	bool ok = t != NULL;
	for (int d = 0; ok && d < s->devices; d++) {
		const struct sched_row *row = &s->rows[d];
		int c = 0;
		for (int i = 0; ok && i <= row->len; i++) {
			for (; c < dc->ncopies; c++) {
				const struct copy_op *x = &dc->copies[c];
				if (x->device != d)
					continue;
				if (x->at != i)
					break;
				ok = !schedule_push(t, d, x->kind, x->stage, x->mb);
			}
			if (ok && i < row->len)
				ok = !schedule_push(t, d, row->ops[i].kind, row->ops[i].stage,
						    row->ops[i].mb);
		}
	}
	schedule_free(s);
	if (!ok) {
		schedule_free(t);
		return NULL;
	}
	return t;
}

struct schedule *decoder_schedule(const struct decoder *dc, const gene_t *g)
{
	struct schedule *s = with_copies(dc, genome_to_schedule(dc->lay, g));
	for (int d = 0; s && dc->pairs && d < s->devices; d++)
		for (int i = 1; i < s->rows[d].len; i++)
			s->rows[d].ops[i].with_prev = dc->second[dc->lay->row_start[d] + i];
	for (int d = 0; s && dc->recompute && d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++) {
			struct op *o = &s->rows[d].ops[i];
			o->recompute = o->kind == OP_B && dc->rc[o->stage * dc->M + o->mb];
		}
	return s;
}

struct fitness decoder_run(struct decoder *dc, gene_t *g,
			   struct decode_stats *stats)
{
	const struct layout *lay = dc->lay;
	struct fitness f = FITNESS_INFEASIBLE;
	reset(dc, g);
	for (;;) {
		while (dc->top > 0) {
			int d = dc->stack[--dc->top];
			dc->queued[d] = 0;
			if (!run_device(dc, g, d))
				goto out;
		}
		if (finished(dc))
			break;
		if (!break_deadlock(dc))
			goto out;
	}
	if (dc->pairs)
		pair_pass(dc);
	memcpy(g, dc->out, lay->n * sizeof *g);
	f = measure(dc);
out:
	if (stats) {
		stats->memory_repairs += dc->st.memory_repairs;
		stats->deadlock_repairs += dc->st.deadlock_repairs;
		stats->w_fills += dc->st.w_fills;
	}
	return f;
}
