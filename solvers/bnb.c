/* The exact branch and bound (bnb.h): the argument of each rule is there. */
#include "solvers/bnb.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/stop.h"
#include "sched/bound.h"
#include "sched/jackson.h"
#include "sched/ready.h"
#include "sched/sim.h"

struct cand {
	int op, device;
	int op2;          /* an overlapped pair's B (op is its F); -1: one op */
	int64_t at;
	bool drop;        /* an F whose activations are dropped, to be
	                     recomputed before its B (instance recompute) */
};

struct bnb {
	const struct instance *in;
	const struct bnb_options *o;
	int D, L, M, K, n;
	int64_t *end;            /* [n] end of each placed op, -1 if not placed */
	int *next;               /* [K*L] next micro-batch of (kind, stage) */
	int64_t *free_at;        /* [D] device free from */
	int64_t *first;          /* [D] first start, -1 before any op */
	int64_t *mem;            /* [D] memory in use */
	int64_t *rest;           /* [D] load not yet placed */
	int64_t *rest_f, *rest_b;/* [D] its forwards' and backwards' part */
	bool pairs;              /* F&B overlap (rho < 1): pairs are candidates */
	bool recompute;          /* an F may drop its activations (instance.h) */
	bool offload;            /* copy channels (instance.h): O, L candidates */
	bool any_order;          /* recompute or offload: every order (bnb.h) */
	bool all_seq;            /* memo or offload: no start-order rule */
	uint8_t *cp;             /* [L*M] 0, or 1 once O(l, j) is placed, 2 once L(l, j) */
	int64_t *chan_free;      /* [D] the copy channel free from */
	int64_t *alloc_start;    /* [2*D] latest start of a placed op that takes
	                            memory, per device and resource (sim.c) */
	int64_t *free_end;       /* [D] latest end of a placed op that frees memory */
	int64_t *host;           /* [D] host memory in use */
	int compute_placed;      /* placed ops less the copies */
	uint8_t *rc;             /* [L*M] placed F(l, j) dropped them */
	bool *best_rc;           /* [L*M] rc of the best placement */
	int rc_words;            /* 64-bit words of pending marks per stage (memo) */
	int *mb_ops;             /* [M] placed ops of each micro-batch (recompute) */
	int cand_cap;            /* candidates per depth */
	bool *second;            /* [n] seq[i] is the B of a pair with seq[i-1] */
	int64_t *tail;           /* [K*L] bound_tails */
	int64_t *op_tail;        /* [n] or NULL: per op, with FIFO and memory arcs */
	int *topo;               /* [n] ops in an order of those arcs */
	int *arc_start;          /* [n+1] each op's successor arcs */
	int *arc_to;             /* the arcs' heads */
	int64_t *arc_lag;
	int64_t *est;            /* [n] scratch: earliest starts of unplaced ops */
	int *dev_ops;            /* [n] op ids by device (device_bound) */
	int *dev_start;          /* [D+1] each device's run in dev_ops */
	int *jobs;               /* [n] scratch */
	int64_t *jr, *jp, *jq, *jrem; /* [n] scratch: Jackson's jobs */
	int *heap;
	int *seq, *best_seq;     /* [n] placement order (op ids) */
	bool *best_second;       /* [n] second for best_seq */
	struct cand *cands;      /* [n][K*L] each depth's candidates (heap, not stack) */
	int placed;
	int best_len;            /* entries of best_seq */
	bool memo;               /* dominance mode (bnb.h) */
	const bool *relaxed;     /* [D] or NULL (bnb_options) */
	const struct schedule *fixed;   /* or NULL (bnb_options) */
	int *fix_idx;            /* [n] o's position in its device's fixed row */
	int *fix_pos;            /* [D] ops placed on the device */
	const int *free_from, *free_to;   /* [D] (bnb_options) */
	struct memo_table *table;
	int64_t *key_vals;       /* [D + n] the node's free times and needed ends */
	int64_t *key;            /* the node's placed set: next, then with
	                            recompute each stage's pending marks */
	int key_len;
	int64_t best;            /* incumbent objective */
	bool found, stopped;
	long nodes;
	double t0;
};

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Op ids: compute ops by inst_op_id, below n; with offload O(l, j) at
 * n + l*M + j and L(l, j) at n + (L + l)*M + j (op_stage and the
 * micro-batch, o % M, read the same for both). */
static int op_kind(const struct bnb *s, int o)
{
	if (o < s->n)
		return o / (s->L * s->M);
	return (o - s->n) / (s->L * s->M) ? OP_L : OP_O;
}

static int copy_id(const struct bnb *s, int c, int l, int j)
{
	return s->n + (c * s->L + l) * s->M + j;
}
static int op_stage(const struct bnb *s, int o) { return o / s->M % s->L; }

/* Whether placed op o is an F that dropped, or a B whose F dropped, its
 * micro-batch's activations (its B then runs the recompute first). */
static bool recomputed(const struct bnb *s, int o)
{
	return s->recompute && op_kind(s, o) != OP_W && s->rc[op_stage(s, o) * s->M + o % s->M];
}

/* Op o's net memory change (an F dropping when `drop`; a B of a dropped
 * F takes the rebuilt part back before its own delta) and, into *rise,
 * how far above the memory before it its highest point lies. */
static int64_t op_charge(const struct bnb *s, int o, bool drop, int64_t *rise)
{
	const struct instance *in = s->in;
	int k = op_kind(s, o), l = op_stage(s, o);
	if (k == OP_F)
		return *rise = inst_f_delta(in, l, drop);
	if (k == OP_O) {
		*rise = 0;
		return -inst_moved(in, l);
	}
	if (k == OP_L)
		return *rise = inst_moved(in, l);
	int64_t net = inst_delta(in, k, l);
	if (k == OP_B && recomputed(s, o)) {
		net += inst_rebuilt(in, l);
		*rise = max64(inst_rebuilt(in, l), net);
		return net;
	}
	return *rise = net;
}

/* Whether op o fits on device d with memory *after in use (NULL: its
 * memory now), placed next: its highest point within the limit (sim.c's
 * order); *after moves past it. */
static bool fits(const struct bnb *s, int d, int o, bool drop, int64_t *after)
{
	int64_t m = after ? *after : s->mem[d], rise, net = op_charge(s, o, drop, &rise);
	if (after)
		*after = m + net;
	return !s->in->has_limit || m + rise <= s->in->limit[d];
}

static int64_t op_time(const struct bnb *s, int o)
{
	int k = op_kind(s, o);
	if (k == OP_O)
		return s->in->offload_cost[op_stage(s, o)];
	if (k == OP_L)
		return s->in->reload_cost[op_stage(s, o)];
	return inst_op_duration(s->in, k, op_stage(s, o), k == OP_B && recomputed(s, o));
}

static int64_t objective_now(const struct bnb *s)
{
	int64_t obj = 0;
	if (s->relaxed)
		for (int o = 0; o < s->n; o++)
			obj = max64(obj, s->end[o]);
	for (int d = 0; d < s->D; d++) {
		if (s->first[d] < 0)
			continue;
		int64_t v = s->in->objective == OBJ_SPAN ? s->free_at[d] - s->first[d] : s->free_at[d];
		obj = max64(obj, v);
	}
	return obj;
}

/* The device's remaining busy time, at least: its load, less what pairs
 * can save. A pair of costs a, b lasts at least a + b - (1 - rho) min(a, b),
 * and the pairs' minima add up to at most min(forward load, backward
 * load), so the remaining F&B pairs save at most (1 - rho) times that. */
static int64_t rest_busy(const struct bnb *s, int d)
{
	if (!s->pairs)
		return s->rest[d];
	int64_t lo = s->rest_f[d] < s->rest_b[d] ? s->rest_f[d] : s->rest_b[d];
	double save = (1 - s->in->overlap) * (double)lo;
	return s->rest[d] - (int64_t)(save + 1 - 1e-9);   /* save rounded up */
}

/* ---- per-op tails and Jackson's device bound ------------------------------- */

/* The memory arc of stage l (FIFO, one delta per kind and stage): with
 * a = the F's delta, b and w the B's and W's frees (a = b + w, w >= 0),
 * the memory in use before F(l, j) is at least this stage's
 * j a - nb b - nw w >= j a - nb a (nw <= nb, w >= 0), and j a + a - nb a
 * <= limit needs nb >= j + 1 - floor(limit / a): B(l, j - K) precedes
 * F(l, j) in the device's order, K = floor(limit / a). Every other stage
 * of the device holds a prefix sum of its deltas, F, F + B = -W or 0,
 * which is >= 0 when its W takes nothing back, so it only adds. A W that
 * takes memory back (delta > 0: B freed more than F took) breaks both
 * steps (F 1, B -2, W +1, room for one: F0 B0 F1 B1 F2 F3 holds at most
 * 1), so then no arc. Returns K, or -1 where no arc applies. */
static int memory_window(const struct instance *in, int l)
{
	if (!in->has_memory || !in->has_limit)
		return -1;
	int64_t a = inst_delta(in, OP_F, l);
	if (a <= 0)
		return -1;
	for (int k = 0; in->split_backward && k < in->stages; k++)
		if (in->stage_device[k] == in->stage_device[l] && inst_delta(in, OP_W, k) > 0)
			return -1;
	int64_t k = in->limit[in->stage_device[l]] / a;
	return k < in->microbatches ? (int)k : -1;
}

static int row_op(const struct bnb *s, int d, int i)
{
	const struct op *x = &s->fixed->rows[d].ops[i];
	return inst_op_id(s->in, x->kind, x->stage, x->mb);
}

/* The arcs of a fixed row (bnb.h) out of op o: to the next kept op, or
 * from the op before the free segment to each op in it, and from each op
 * in it to the op after it. Writes to[] and lag[], returns how many. */
static int fixed_succ(const struct bnb *s, int o, int *to, int64_t *lag)
{
	int d = s->in->stage_device[o / s->M % s->L], i = s->fix_idx[o], n = 0;
	int from = s->free_from[d], upto = s->free_to[d], len = s->fixed->rows[d].len;
	if (i == from - 1 && from < upto) {
		for (int x = from; x < upto; x++) {
			to[n] = row_op(s, d, x);
			lag[n++] = 0;
		}
	} else if (i >= from && i < upto) {
		if (upto < len) {
			to[n] = row_op(s, d, upto);
			lag[n++] = 0;
		}
	} else if (i + 1 < len) {
		to[n] = row_op(s, d, i + 1);
		lag[n++] = 0;
	}
	return n;
}

/* The successors of op o in the arcs the per-op bounds use: its
 * dependencies (ready.h), its FIFO successor (the next micro-batch of its
 * kind and stage starts after it ends: one device) and the memory arc of
 * memory_window. Writes them to to[] and lag[], returns how many. */
static int op_succ(const struct bnb *s, int o, int *to, int64_t *lag)
{
	const struct instance *in = s->in;
	int k = o / (s->L * s->M), l = o / s->M % s->L, j = o % s->M, n = 0;
	/* a relaxed device runs its ops at once: no FIFO or memory arcs */
	bool serial = !(s->relaxed && s->relaxed[in->stage_device[l]]);
	if (serial && j + 1 < s->M) {
		to[n] = o + 1;
		lag[n++] = 0;
	}
	if (k == OP_F) {
		to[n] = inst_op_id(in, OP_B, l, j);
		lag[n++] = 0;
		for (int e = in->succ_start[l]; e < in->succ_start[l + 1]; e++) {
			to[n] = inst_op_id(in, OP_F, in->succ[e].stage, j);
			lag[n++] = in->succ[e].lag;
		}
	} else if (k == OP_B) {
		if (in->split_backward) {
			to[n] = inst_op_id(in, OP_W, l, j);
			lag[n++] = 0;
		}
		for (int e = in->pred_start[l]; e < in->pred_start[l + 1]; e++) {
			to[n] = inst_op_id(in, OP_B, in->pred[e].stage, j);
			lag[n++] = in->pred[e].lag;
		}
		int K = serial ? memory_window(in, l) : -1;
		if (K > 0 && j + K < s->M) {
			to[n] = inst_op_id(in, OP_F, l, j + K);
			lag[n++] = 0;
		}
	}
	if (s->fixed)
		n = fixed_succ(s, o, to + n, lag + n) + n;
	return n;
}

static int64_t op_dur(const struct bnb *s, int o)
{
	return inst_duration(s->in, o / (s->L * s->M), o / s->M % s->L);
}

/* Free op_graph's arrays; op_tail NULL turns the per-op bounds off. */
static void op_graph_free(struct bnb *s)
{
	free(s->op_tail);
	free(s->topo);
	free(s->arc_start);
	free(s->arc_to);
	free(s->arc_lag);
	free(s->est);
	free(s->dev_ops);
	free(s->dev_start);
	free(s->jobs);
	free(s->jr);
	free(s->heap);
	s->op_tail = s->est = s->arc_lag = s->jr = NULL;
	s->topo = s->arc_start = s->arc_to = s->jobs = s->heap = s->dev_ops = s->dev_start = NULL;
}

/* The arcs of op_succ, a topological order of them (Kahn) and every op's
 * tail over them: the longest path from its end to the end of the work.
 * False when out of memory or the arcs have a cycle (then no per-op
 * bounds). */
static bool op_graph(struct bnb *s)
{
	int n = s->n, cap = n * (6 + s->L);
	s->arc_start = malloc((n + 1) * sizeof *s->arc_start);
	s->arc_to = malloc(cap * sizeof *s->arc_to);
	s->arc_lag = malloc(cap * sizeof *s->arc_lag);
	s->topo = malloc(n * sizeof *s->topo);
	s->op_tail = malloc(n * sizeof *s->op_tail);
	s->est = malloc(n * sizeof *s->est);
	s->dev_ops = malloc(n * sizeof *s->dev_ops);
	s->dev_start = calloc(s->D + 1, sizeof *s->dev_start);
	s->jobs = malloc(n * sizeof *s->jobs);
	s->jr = malloc(4 * n * sizeof *s->jr);
	s->heap = malloc(n * sizeof *s->heap);
	int *indeg = calloc(n, sizeof *indeg);
	if (!s->arc_start || !s->arc_to || !s->arc_lag || !s->topo || !s->op_tail || !s->est ||
	    !s->dev_ops || !s->dev_start || !s->jobs || !s->jr || !s->heap || !indeg) {
		free(indeg);
		return false;
	}
	for (int d = 0, c = 0; d < s->D; d++) {   /* ops by device */
		s->dev_start[d] = c;
		for (int o = 0; o < n; o++)
			if (s->in->stage_device[o / s->M % s->L] == d)
				s->dev_ops[c++] = o;
		s->dev_start[d + 1] = c;
	}
	s->jp = s->jr + n;
	s->jq = s->jp + n;
	s->jrem = s->jq + n;
	int na = 0;
	for (int o = 0; o < n; o++) {
		s->arc_start[o] = na;
		na += op_succ(s, o, s->arc_to + na, s->arc_lag + na);
	}
	s->arc_start[n] = na;
	for (int i = 0; i < na; i++)
		indeg[s->arc_to[i]]++;
	int head = 0, tail = 0;
	for (int o = 0; o < n; o++)
		if (!indeg[o])
			s->topo[tail++] = o;
	while (head < tail) {
		int o = s->topo[head++];
		for (int i = s->arc_start[o]; i < s->arc_start[o + 1]; i++)
			if (!--indeg[s->arc_to[i]])
				s->topo[tail++] = s->arc_to[i];
	}
	free(indeg);
	if (tail < n)
		return false;
	for (int i = n - 1; i >= 0; i--) {
		int o = s->topo[i];
		int64_t t = 0;
		for (int a = s->arc_start[o]; a < s->arc_start[o + 1]; a++) {
			int x = s->arc_to[a];
			t = max64(t, s->arc_lag[a] + op_dur(s, x) + s->op_tail[x]);
		}
		s->op_tail[o] = t;
	}
	return true;
}

/* Per device, Jackson's bound over its unplaced ops, released at their
 * earliest starts (from the placed ops, the device's free time and the
 * arcs of op_succ) with their tails. */
static int64_t device_bound(struct bnb *s, int64_t t)
{
	const struct instance *in = s->in;
	for (int o = 0; o < s->n; o++)
		s->est[o] = max64(t, s->free_at[in->stage_device[o / s->M % s->L]]);
	int64_t lb = 0;
	for (int i = 0; i < s->n; i++) {
		int o = s->topo[i];
		int64_t v = s->end[o] >= 0 ? s->end[o] : s->est[o] + op_dur(s, o);
		for (int a = s->arc_start[o]; a < s->arc_start[o + 1]; a++) {
			int x = s->arc_to[a];
			if (s->end[x] < 0)
				s->est[x] = max64(s->est[x], v + s->arc_lag[a]);
		}
	}
	for (int d = 0; d < s->D; d++) {
		int c = 0;
		if (s->relaxed && s->relaxed[d])
			continue;
		for (int i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
			int o = s->dev_ops[i];
			if (s->end[o] >= 0)
				continue;
			s->jr[c] = s->est[o];
			s->jp[c] = op_dur(s, o);
			s->jq[c] = s->op_tail[o];
			c++;
		}
		lb = max64(lb, jackson_preemptive(c, s->jr, s->jp, s->jq, s->jobs, s->heap, s->jrem));
	}
	return lb;
}

/* A bound on every completion of the node (bnb.h), t the last start. */
static int64_t node_bound(const struct bnb *s, int64_t t)
{
	int64_t lb = 0;
	bool span = s->in->objective == OBJ_SPAN;
	for (int d = 0; d < s->D; d++) {
		if (s->relaxed && s->relaxed[d])
			continue;
		int64_t done = max64(s->free_at[d], t) + rest_busy(s, d);
		if (span)
			lb = max64(lb, s->first[d] < 0 ? rest_busy(s, d) : done - s->first[d]);
		else
			lb = max64(lb, s->rest[d] ? done : s->free_at[d]);
	}
	if (!span)
		for (int i = 0; i < s->placed; i++) {
			int o = s->seq[i];
			if (o < s->n)
				/* op_tail covers the dependency paths of tail and more */
				lb = max64(lb, s->end[o] + (s->op_tail ? s->op_tail[o] :
							    s->tail[o / s->M]));
		}
	return lb;
}

static bool span_objective(const struct bnb *s)
{
	return s->in->objective == OBJ_SPAN;
}

static bool out_of_time(struct bnb *s)
{
	if (s->o->node_limit > 0 && s->nodes >= s->o->node_limit)
		s->stopped = true;
	if (!s->stopped && (s->nodes & 1023) == 0 &&
	    (stop_requested() ||
	     (s->o->time_limit > 0 && clock_seconds() - s->t0 > s->o->time_limit)))
		s->stopped = true;
	return s->stopped;
}

static int by_start(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at ? 1 : x->op != y->op ? x->op - y->op :
	       x->op2 - y->op2;
}

/* With overlap: every (F, B) of one device whose next ops are both ready
 * (singles c[0..n), as candidates() found them) as one pair, starting when
 * the later is ready; the F's delta first, as the simulator counts it. */
static int pair_candidates(const struct bnb *s, int64_t t, struct cand *c, int n)
{
	int singles = n;
	for (int a = 0; a < singles; a++) {
		if (op_kind(s, c[a].op) != OP_F)
			continue;
		for (int b = 0; b < singles; b++) {
			if (op_kind(s, c[b].op) != OP_B || c[b].device != c[a].device)
				continue;
			int64_t at = max64(c[a].at, c[b].at);
			if (!s->memo && at < t)
				continue;
			int d = c[a].device;
			/* the F alone fits (it is a candidate); then the B */
			int64_t m = s->mem[d];
			if (!fits(s, d, c[a].op, c[a].drop, &m) || !fits(s, d, c[b].op, false, &m))
				continue;
			c[n++] = (struct cand){c[a].op, d, c[b].op, at, c[a].drop};   /* fits: cand_cap */
		}
	}
	return n;
}

/* With offload: an offload of every placed F whose B is not placed (and
 * that moves something, within the host's limit), and a reload of every
 * offloaded one that fits; each on its device's channel. */
static int copy_candidates(const struct bnb *s, struct cand *c, int n)
{
	const struct instance *in = s->in;
	for (int l = 0; l < s->L; l++) {
		int d = in->stage_device[l];
		int64_t moved = inst_moved(in, l);
		if (moved <= 0)
			continue;
		for (int j = 0; j < s->M; j++) {
			int x = l * s->M + j, f = inst_op_id(in, OP_F, l, j);
			if (s->end[f] < 0 || s->end[inst_op_id(in, OP_B, l, j)] >= 0 || s->cp[x] == 2)
				continue;
			if (s->cp[x] == 0) {
				if (in->has_host_limit && s->host[d] + moved > in->host_limit[d])
					continue;
				c[n++] = (struct cand){copy_id(s, 0, l, j), d, -1,
						       offload_copy_start(false, s->chan_free[d], s->end[f],
									  s->free_end, s->alloc_start, d),
						       false};
			} else if (!in->has_limit || s->mem[d] + moved <= in->limit[d]) {
				c[n++] = (struct cand){copy_id(s, 1, l, j), d, -1,
						       offload_copy_start(true, s->chan_free[d], 0,
									  s->free_end, s->alloc_start, d),
						       false};
			}
		}
	}
	return n;
}

/* Whether op o may come next on device d under its fixed row: the row's
 * op at a kept position, any op of the free segment in it. */
static bool fixed_allows(const struct bnb *s, int d, int o)
{
	int pos = s->fix_pos[d], from = s->free_from[d], upto = s->free_to[d];
	if (pos >= from && pos < upto)
		return s->fix_idx[o] >= from && s->fix_idx[o] < upto;
	return pos < s->fixed->rows[d].len && row_op(s, d, pos) == o;
}

/* Op (k, l, j) as a candidate at n (two with an F that may drop): its
 * start, when its inputs are placed and it would not start before t;
 * returns the new count. */
static int slot_candidate(const struct bnb *s, int64_t t, int k, int l, int j, struct cand *c,
			  int n)
{
	const struct instance *in = s->in;
	int o = inst_op_id(in, k, l, j), d = in->stage_device[l], waiting;
	if (s->end[o] >= 0)
		return n;   /* placed */
	/* a relaxed device's free time stays 0 (place): inputs alone */
	int64_t at = op_ready_time(in, s->end, k, l, j, s->free_at[d], &waiting);
	if (at >= 0 && s->offload) {
		if (k == OP_B && s->cp[l * s->M + j] == 1)
			return n;   /* offloaded, not reloaded yet */
		int64_t reload_end = k == OP_B && s->cp[l * s->M + j] == 2 ?
				     s->end[copy_id(s, 1, l, j)] : -1;
		at = offload_compute_start(k, inst_delta(in, k, l), reload_end, s->free_end,
					   s->alloc_start, d, at);
	}
	if (at < 0 || (!s->all_seq && !s->pairs && at < t))
		return n;   /* inputs not placed, or it would start before t */
	if (s->fixed && !fixed_allows(s, d, o))
		return n;   /* the fixed row has another op here */
	if ((s->relaxed && s->relaxed[d]) || fits(s, d, o, false, NULL))
		c[n++] = (struct cand){o, d, -1, at, false};
	/* dropping only helps where it frees memory */
	if (k == OP_F && s->recompute && inst_rebuilt(in, l) > 0 && fits(s, d, o, true, NULL))
		c[n++] = (struct cand){o, d, -1, at, true};
	return n;
}

/* The ops that can be placed next with their starts (>= t, memory kept):
 * of each (kind, stage) its next micro-batch (FIFO), or with recompute,
 * where FIFO loses optima (bnb.h), every one not placed. */
static int candidates(const struct bnb *s, int64_t t, struct cand *c)
{
	int n = 0;
	/* micro-batches with no op placed are interchangeable: only the first
	 * of them may start (symmetry) */
	int fresh = 0;
	while (s->any_order && fresh < s->M && s->mb_ops[fresh])
		fresh++;
	for (int kl = 0; kl < s->K * s->L; kl++) {
		int k = kl / s->L, l = kl % s->L;
		if (!s->any_order) {
			if (s->next[kl] < s->M)
				n = slot_candidate(s, t, k, l, s->next[kl], c, n);
			continue;
		}
		for (int j = 0; j < s->M; j++)
			if (s->mb_ops[j] || j == fresh)
				n = slot_candidate(s, t, k, l, j, c, n);
	}
	if (s->offload)
		n = copy_candidates(s, c, n);
	if (s->pairs) {
		/* a single that would start before t may still pair with a
		 * later one (the pair starts at the later's time): pairs first,
		 * then the singles before t go */
		n = pair_candidates(s, t, c, n);
		int kept = 0;
		for (int i = 0; i < n; i++)
			if (s->memo || c[i].op2 >= 0 || c[i].at >= t)
				c[kept++] = c[i];
		n = kept;
	}
	qsort(c, n, sizeof *c, by_start);
	return n;
}

/* Account op o as placed (sign 1) or taken back (-1), ending at `end`;
 * an F's drop mark is set before it is placed and cleared after it is
 * taken back (place, unplace). rest keeps the plain costs (a bound: a
 * recompute only adds). */
static void account(struct bnb *s, int d, int o, int sign, int64_t end)
{
	const struct instance *in = s->in;
	int k = op_kind(s, o), l = op_stage(s, o);
	int64_t rise;
	if (o >= s->n) {   /* a copy: memory, host and its mark */
		int64_t moved = inst_moved(in, l);
		s->mem[d] += sign * op_charge(s, o, false, &rise);
		s->host[d] += sign * (k == OP_O ? moved : -moved);
		s->cp[l * s->M + o % s->M] += sign;
		s->end[o] = sign > 0 ? end : -1;
		return;
	}
	int64_t dur = inst_duration(in, k, l);
	s->compute_placed += sign;
	s->mem[d] += sign * op_charge(s, o, k == OP_F && recomputed(s, o), &rise);
	s->rest[d] -= sign * dur;
	if (k == OP_F)
		s->rest_f[d] -= sign * dur;
	else if (k == OP_B)
		s->rest_b[d] -= sign * dur;
	s->next[k * s->L + l] += sign;
	if (s->any_order)
		s->mb_ops[o % s->M] += sign;
	s->end[o] = sign > 0 ? end : -1;
}

static int64_t cand_duration(const struct bnb *s, const struct cand *c)
{
	if (c->op2 < 0)
		return op_time(s, c->op);
	return inst_pair_cost(s->in, op_time(s, c->op), op_time(s, c->op2));
}

static void mark_drop(struct bnb *s, const struct cand *c, bool on)
{
	if (s->recompute && op_kind(s, c->op) == OP_F)
		s->rc[op_stage(s, c->op) * s->M + c->op % s->M] = on && c->drop;
}

/* What placing an op changes of its device beyond memory, to undo. */
struct dev_undo {
	int64_t free_at, first, chan_free, alloc_start[2], free_end;
};

static void place(struct bnb *s, const struct cand *c, struct dev_undo *u)
{
	int d = c->device;
	mark_drop(s, c, true);
	int64_t end = c->at + cand_duration(s, c);
	*u = (struct dev_undo){s->free_at[d], s->first[d], 0, {0, 0}, 0};
	if (s->offload) {
		u->chan_free = s->chan_free[d];
		u->alloc_start[0] = s->alloc_start[2 * d];
		u->alloc_start[1] = s->alloc_start[2 * d + 1];
		u->free_end = s->free_end[d];
		int r = c->op >= s->n, k = op_kind(s, c->op);
		int64_t delta = r ? (k == OP_O ? -1 : 1) : inst_delta(s->in, k, op_stage(s, c->op));
		offload_mark(s->free_end, s->alloc_start, d, r, delta, c->at, end);
	}
	if (c->op >= s->n) {   /* a copy: the channel, not the device */
		s->chan_free[d] = end;
		account(s, d, c->op, 1, end);
		s->second[s->placed] = false;
		s->seq[s->placed++] = c->op;
		return;
	}
	if (s->first[c->device] < 0)
		s->first[c->device] = c->at;
	if (!(s->relaxed && s->relaxed[d]))
		s->free_at[c->device] = end;
	if (s->fix_pos)
		s->fix_pos[d]++;
	account(s, c->device, c->op, 1, end);
	s->second[s->placed] = false;
	s->seq[s->placed++] = c->op;
	if (c->op2 >= 0) {
		account(s, c->device, c->op2, 1, end);
		s->second[s->placed] = true;
		s->seq[s->placed++] = c->op2;
	}
}

static void unplace(struct bnb *s, const struct cand *c, const struct dev_undo *u)
{
	int d = c->device;
	if (s->offload) {
		s->chan_free[d] = u->chan_free;
		s->alloc_start[2 * d] = u->alloc_start[0];
		s->alloc_start[2 * d + 1] = u->alloc_start[1];
		s->free_end[d] = u->free_end;
	}
	if (c->op2 >= 0) {
		s->placed--;
		account(s, c->device, c->op2, -1, 0);
	}
	s->placed--;
	account(s, c->device, c->op, -1, 0);
	mark_drop(s, c, false);
	if (s->fix_pos && c->op < s->n)
		s->fix_pos[d]--;
	s->free_at[d] = u->free_at;
	s->first[d] = u->first;
}

/* ---- dominance (memo) --------------------------------------------------------- */

/* The table grows as it fills: buckets double (rehashed) at one entry per
 * bucket, up to MEMO_MAX_BUCKETS; the store doubles up to MEMO_MAX_VALUES.
 * A small search then costs no 128 MiB allocation and no 4 MiB clear (the
 * window bounds run thousands of them; under AddressSanitizer each fixed
 * allocation cost milliseconds). */
#define MEMO_MIN_BUCKETS (1 << 12)
#define MEMO_MAX_BUCKETS (1 << 20)
#define MEMO_MAX_VALUES (16L << 20)   /* int64s kept: 128 MiB */

struct memo_entry {
	uint64_t hash;
	int next;                /* the bucket's next entry, -1 at the end */
	long at;                 /* offset of its key (key_len) and values */
	int nvals;
};

struct memo_table {
	int *buckets;            /* [nbuckets] first entry, -1: empty */
	int nbuckets;            /* a power of 2 */
	struct memo_entry *e;
	long n, cap;
	int64_t *store;
	long used, store_cap;
};

static uint64_t key_hash(const int64_t *key, int n)
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < n; i++)
		h = (h ^ (uint64_t)key[i]) * 1099511628211ULL;
	return h;
}

static bool is_placed(const struct bnb *s, int k, int l, int j)
{
	return s->end[inst_op_id(s->in, k, l, j)] >= 0;
}

/* The node's placed set: the next micro-batch of every (kind, stage), or
 * with recompute (any order) the set of its placed micro-batches (rc_words words of
 * bits each); and with recompute which placed F's whose B is not placed
 * dropped their activations (they decide the memory in use and the B's
 * to come, so only nodes that agree on them compare). */
static void node_key(struct bnb *s)
{
	int kl = s->K * s->L, n = 0;
	for (int i = 0; i < kl; i++) {
		if (!s->any_order) {
			s->key[n++] = s->next[i];
			continue;
		}
		int64_t *w = s->key + n;
		for (int q = 0; q < s->rc_words; q++)
			w[q] = 0;
		for (int j = 0; j < s->M; j++)
			if (is_placed(s, i / s->L, i % s->L, j))
				w[j / 64] |= (int64_t)1 << (j % 64);
		n += s->rc_words;
	}
	for (int c = 0; s->offload && c < 2; c++)   /* the placed copies, O then L */
		for (int l = 0; l < s->L; l++) {
			int64_t *w = s->key + n;
			for (int q = 0; q < s->rc_words; q++)
				w[q] = 0;
			for (int j = 0; j < s->M; j++)
				if (s->cp[l * s->M + j] > c)
					w[j / 64] |= (int64_t)1 << (j % 64);
			n += s->rc_words;
		}
	if (!s->recompute)
		return;
	for (int l = 0; l < s->L; l++) {
		int64_t *w = s->key + n;
		for (int q = 0; q < s->rc_words; q++)
			w[q] = 0;
		for (int j = 0; j < s->M; j++)
			if (is_placed(s, OP_F, l, j) && !is_placed(s, OP_B, l, j) && s->rc[l * s->M + j])
				w[j / 64] |= (int64_t)1 << (j % 64);
		n += s->rc_words;
	}
}

/* Whether op (k,l,j), placed, still has a dependent not placed. */
static bool needed(const struct bnb *s, int k, int l, int j)
{
	const struct instance *in = s->in;
	if (k == OP_F) {
		if (!is_placed(s, OP_B, l, j))
			return true;
		for (int e = in->succ_start[l]; e < in->succ_start[l + 1]; e++)
			if (!is_placed(s, OP_F, in->succ[e].stage, j))
				return true;
		return false;
	}
	if (k == OP_B) {
		if (in->split_backward && !is_placed(s, OP_W, l, j))
			return true;
		for (int e = in->pred_start[l]; e < in->pred_start[l + 1]; e++)
			if (!is_placed(s, OP_B, in->pred[e].stage, j))
				return true;
	}
	return false;
}

/* The node's values in a fixed order: free times, then the ends of the
 * placed ops still needed, by op id. */
static int node_values(const struct bnb *s, int64_t *v)
{
	int n = 0;
	for (int d = 0; d < s->D; d++)
		v[n++] = s->free_at[d];
	for (int d = 0; s->offload && d < s->D; d++) {
		v[n++] = s->chan_free[d];
		v[n++] = s->alloc_start[2 * d];
		v[n++] = s->alloc_start[2 * d + 1];
		v[n++] = s->free_end[d];
	}
	for (int o = 0; o < s->n; o++)
		if (s->end[o] >= 0 && needed(s, o / (s->L * s->M), o / s->M % s->L, o % s->M))
			v[n++] = s->end[o];
	/* a reload's end, while its B is not placed (an offload's is at most
	 * its channel's free time, which the values hold) */
	for (int x = 0; s->offload && x < s->L * s->M; x++)
		if (s->cp[x] == 2 && !is_placed(s, OP_B, x / s->M, x % s->M))
			v[n++] = s->end[s->n + s->L * s->M + x];
	return n;
}

/* Re-chain every entry into nb buckets. */
static bool memo_rehash(struct memo_table *t, int nb)
{
	int *b = malloc(nb * sizeof *b);
	if (!b)
		return false;
	memset(b, 0xff, nb * sizeof *b);
	for (long i = 0; i < t->n; i++) {
		int x = (int)(t->e[i].hash & (nb - 1));
		t->e[i].next = b[x];
		b[x] = (int)i;
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = nb;
	return true;
}

/* Room for one more entry of `vals` int64s, growing what is full; false
 * when the table is at its limit or out of memory. */
static bool memo_room(struct memo_table *t, int vals)
{
	if (t->used + vals > MEMO_MAX_VALUES)
		return false;
	if (t->used + vals > t->store_cap) {
		long cap = 2 * t->store_cap;
		while (cap < t->used + vals)
			cap *= 2;
		cap = cap < MEMO_MAX_VALUES ? cap : MEMO_MAX_VALUES;
		int64_t *st = realloc(t->store, cap * sizeof *st);
		if (!st)
			return false;
		t->store = st;
		t->store_cap = cap;
	}
	if (t->n == t->cap) {
		long cap = t->cap ? 2 * t->cap : 1 << 12;
		struct memo_entry *e = realloc(t->e, cap * sizeof *e);
		if (!e)
			return false;
		t->e = e;
		t->cap = cap;
	}
	if (t->n >= t->nbuckets && t->nbuckets < MEMO_MAX_BUCKETS)
		return memo_rehash(t, 2 * t->nbuckets);
	return true;
}

/* True when an earlier node of the same placed set dominates this one;
 * otherwise the node is recorded (while there is room). */
static bool dominated(struct bnb *s)
{
	struct memo_table *t = s->table;
	int kl = s->key_len, nv = node_values(s, s->key_vals);
	node_key(s);
	uint64_t h = key_hash(s->key, kl);
	for (int i = t->buckets[h & (t->nbuckets - 1)]; i >= 0; i = t->e[i].next) {
		const struct memo_entry *e = &t->e[i];
		if (e->hash != h || e->nvals != nv)
			continue;
		const int64_t *key = t->store + e->at, *val = key + kl;
		bool same = true, below = true;
		for (int k = 0; k < kl && same; k++)
			same = key[k] == s->key[k];
		for (int k = 0; same && below && k < nv; k++)
			below = val[k] <= s->key_vals[k];
		if (same && below)
			return true;
	}
	if (!memo_room(t, kl + nv))
		return false;   /* full: the node is searched, not recorded */
	struct memo_entry *e = &t->e[t->n];
	*e = (struct memo_entry){h, t->buckets[h & (t->nbuckets - 1)], t->used, nv};
	for (int k = 0; k < kl; k++)
		t->store[t->used++] = s->key[k];
	for (int k = 0; k < nv; k++)
		t->store[t->used++] = s->key_vals[k];
	t->buckets[h & (t->nbuckets - 1)] = (int)t->n++;
	return false;
}

static void memo_free(struct memo_table *t)
{
	if (!t)
		return;
	free(t->buckets);
	free(t->e);
	free(t->store);
	free(t);
}

static struct memo_table *memo_new(void)
{
	struct memo_table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->store_cap = 1 << 14;
	t->store = malloc(t->store_cap * sizeof *t->store);
	if (!t->store || !memo_rehash(t, MEMO_MIN_BUCKETS)) {
		memo_free(t);
		return NULL;
	}
	return t;
}

static void dfs(struct bnb *s, int64_t t)
{
	s->nodes++;
	if (out_of_time(s))
		return;
	if (s->compute_placed == s->n) {
		int64_t obj = objective_now(s);
		if (obj < s->best) {
			s->best = obj;
			s->found = true;
			memcpy(s->best_seq, s->seq, s->placed * sizeof *s->seq);
			memcpy(s->best_second, s->second, s->placed * sizeof *s->second);
			s->best_len = s->placed;
			if (s->recompute)
				memcpy(s->best_rc, s->rc, (size_t)s->L * s->M);
		}
		return;
	}
	if (node_bound(s, t) >= s->best)
		return;   /* no completion beats the incumbent */
	if (s->op_tail && s->o->jackson && !span_objective(s) &&
	    device_bound(s, s->all_seq ? 0 : t) >= s->best)
		return;   /* some device cannot fit its ops left before the incumbent */
	if (s->memo && dominated(s))
		return;   /* an earlier node of this placed set was no later anywhere */
	struct cand *c = s->cands + (size_t)s->placed * s->cand_cap;
	int nc = candidates(s, t, c);
	for (int i = 0; s->relaxed && i < nc; i++)
		if (s->relaxed[c[i].device]) {
			/* a relaxed device's op waits for nothing but its inputs,
			 * which are placed: placing it now loses no completion */
			c[0] = c[i];
			nc = 1;
			break;
		}
	for (int i = 0; i < nc && !s->stopped && s->best > s->o->lower_bound; i++) {
		struct dev_undo u;
		place(s, &c[i], &u);
		/* memo, offload: later ops may start earlier */
		dfs(s, s->all_seq ? 0 : c[i].at);
		unplace(s, &c[i], &u);
	}
}

/* The schedule of the best placement: each device's ops in placement order. */
static struct schedule *to_schedule(const struct bnb *s)
{
	struct schedule *sc = schedule_new(s->D);
	for (int i = 0; sc && i < s->best_len; i++) {
		int o = s->best_seq[i], k = op_kind(s, o), l = op_stage(s, o), j = o % s->M;
		int d = s->in->stage_device[l];
		if (schedule_push(sc, d, k, l, j) || (s->best_second[i] && schedule_join_last(sc, d))) {
			schedule_free(sc);
			sc = NULL;
		} else if (k == OP_B && s->recompute) {
			sc->rows[d].ops[sc->rows[d].len - 1].recompute = s->best_rc[l * s->M + j];
		}
	}
	return sc;
}

static void release(struct bnb *s)
{
	free(s->end);
	free(s->next);
	free(s->free_at);
	free(s->first);
	free(s->mem);
	free(s->rest);
	free(s->rest_f);
	free(s->rest_b);
	free(s->second);
	free(s->best_second);
	free(s->tail);
	op_graph_free(s);
	free(s->seq);
	free(s->best_seq);
	free(s->cands);
	free(s->key_vals);
	free(s->key);
	free(s->rc);
	free(s->best_rc);
	free(s->mb_ops);
	free(s->cp);
	free(s->chan_free);
	free(s->alloc_start);
	free(s->free_end);
	free(s->host);
	free(s->fix_idx);
	free(s->fix_pos);
	memo_free(s->table);
}

/* Candidates per depth. Singles: one per (kind, stage), an F twice where
 * it may drop (recompute), every micro-batch of a slot with any order
 * (recompute); pairs: an F and a B slot of one device, v_d^2 on a device
 * of v_d stages, so sum_d v_d^2 <= vmax L in all, each F both ways, and
 * with any order every micro-batch of both. */
static long cand_cap(const struct instance *in)
{
	int vmax = 0;
	for (int d = 0; d < in->devices; d++) {
		int v = 0;
		for (int l = 0; l < in->stages; l++)
			v += in->stage_device[l] == d;
		vmax = v > vmax ? v : vmax;
	}
	bool pairs = inst_pairs_gain(in), rc = in->has_recompute;
	bool off = in->has_offload;
	long per_slot = rc || off ? in->microbatches : 1;
	return (in->kinds + rc + 2 * off) * (long)in->stages * per_slot +
	       (pairs ? (1 + rc) * (long)in->stages * vmax * per_slot * per_slot : 0);
}

static bool takes_up_to(const struct instance *in, int max_ops, int max_slots)
{
	return inst_nops(in) <= max_ops && in->kinds * in->stages <= max_slots &&
	       (long)inst_nops(in) * cand_cap(in) <= BNB_MAX_CANDIDATES;
}

enum status bnb_adopt(const struct instance *in, struct sim *sim, struct bnb_result *r,
		      struct schedule **sc, int64_t *obj, bool *better, struct error *err)
{
	*better = false;
	if (!r->schedule)
		return STATUS_OK;
	struct sim_result sr;
	bool agrees = sim_run(sim, r->schedule, &sr, NULL) == STATUS_OK &&
		      sr.objective == r->objective;
	if (agrees && r->objective < *obj) {
		schedule_free(*sc);
		*sc = r->schedule;
		*obj = r->objective;
		*better = true;
	} else {
		schedule_free(r->schedule);
	}
	r->schedule = NULL;
	if (!agrees)
		return err_set(err, "instance '%s': the exact search's schedule (objective %lld) does not re-simulate to it",
			       in->name, (long long)r->objective);
	return STATUS_OK;
}

bool bnb_takes(const struct instance *in)
{
	return takes_up_to(in, BNB_MAX_OPS, BNB_MAX_SLOTS);
}

bool bnb_takes_fixed(const struct instance *in)
{
	return takes_up_to(in, BNB_FIXED_MAX_OPS, BNB_FIXED_MAX_SLOTS);
}

/* The fixed rows' positions and the devices' placed counts; false (err
 * set) when the rows do not fit the search (bnb_options): each row must
 * hold its device's ops, each once. */
static bool fixed_init(struct bnb *s, struct error *err)
{
	if (!s->memo || s->any_order || s->pairs || s->fixed->devices != s->D ||
	    !s->o->free_from || !s->o->free_to) {
		err_set(err, "search: fixed rows need the makespan, dominance and FIFO (no recompute, offload or pairs), one row per device and its free segment");
		return false;
	}
	s->free_from = s->o->free_from;
	s->free_to = s->o->free_to;
	s->fix_idx = malloc(s->n * sizeof *s->fix_idx);
	s->fix_pos = calloc(s->D, sizeof *s->fix_pos);
	if (!s->fix_idx || !s->fix_pos) {
		err_set(err, "search: out of memory");
		return false;
	}
	for (int o = 0; o < s->n; o++)
		s->fix_idx[o] = -1;
	int seen = 0;
	for (int d = 0; d < s->D; d++) {
		const struct sched_row *r = &s->fixed->rows[d];
		if (s->free_from[d] < 0 || s->free_from[d] > s->free_to[d] || s->free_to[d] > r->len) {
			err_set(err, "search: device %d: free segment [%d, %d) outside its row of %d ops",
				d, s->free_from[d], s->free_to[d], r->len);
			return false;
		}
		for (int i = 0; i < r->len; i++) {
			const struct op *x = &r->ops[i];
			int o = x->kind < s->K && x->stage >= 0 && x->stage < s->L && x->mb >= 0 &&
				x->mb < s->M && s->in->stage_device[x->stage] == d ?
				inst_op_id(s->in, x->kind, x->stage, x->mb) : -1;
			if (o < 0 || s->fix_idx[o] >= 0) {
				err_set(err, "search: fixed row of device %d: op %d is not one of its ops, or twice", d, i);
				return false;
			}
			s->fix_idx[o] = i;
			seen++;
		}
	}
	if (seen != s->n) {
		err_set(err, "search: the fixed rows hold %d of the %d ops", seen, s->n);
		return false;
	}
	return true;
}

static enum status init(struct bnb *s, const struct instance *in, struct error *err)
{
	s->D = in->devices;
	s->L = in->stages;
	s->M = in->microbatches;
	s->K = in->kinds;
	s->n = inst_nops(in);
	s->offload = in->has_offload;
	/* room for the copies: an O and an L per (stage, micro-batch) */
	int all = s->n + (s->offload ? 2 * s->L * s->M : 0);
	s->end = malloc(all * sizeof *s->end);
	s->next = calloc(s->K * s->L, sizeof *s->next);
	s->free_at = calloc(s->D, sizeof *s->free_at);
	s->first = malloc(s->D * sizeof *s->first);
	s->mem = calloc(s->D, sizeof *s->mem);
	s->rest = calloc(s->D, sizeof *s->rest);
	s->rest_f = calloc(s->D, sizeof *s->rest_f);
	s->rest_b = calloc(s->D, sizeof *s->rest_b);
	s->tail = malloc(s->K * s->L * sizeof *s->tail);
	s->seq = malloc(all * sizeof *s->seq);
	s->best_seq = malloc(all * sizeof *s->best_seq);
	s->second = calloc(all, sizeof *s->second);
	s->best_second = calloc(all, sizeof *s->best_second);
	s->cp = calloc((size_t)s->L * s->M, 1);
	s->chan_free = calloc(s->D, sizeof *s->chan_free);
	s->alloc_start = calloc(2 * (size_t)s->D, sizeof *s->alloc_start);
	s->free_end = calloc(s->D, sizeof *s->free_end);
	s->host = calloc(s->D, sizeof *s->host);
	s->pairs = inst_pairs_gain(in);
	s->recompute = in->has_recompute;
	s->any_order = s->recompute || s->offload;
	s->all_seq = s->memo || s->offload;
	s->rc = calloc((size_t)s->L * s->M, 1);
	s->best_rc = calloc((size_t)s->L * s->M, sizeof *s->best_rc);
	s->mb_ops = calloc(s->M, sizeof *s->mb_ops);
	s->rc_words = s->any_order ? (s->M + 63) / 64 : 0;
	s->key_len = s->K * s->L * (s->any_order ? s->rc_words : 1) +
		     s->L * s->rc_words * (s->recompute + 2 * s->offload);
	s->cand_cap = (int)cand_cap(in);
	s->cands = malloc((size_t)all * s->cand_cap * sizeof *s->cands);
	if (!s->end || !s->next || !s->free_at || !s->first || !s->mem || !s->rest ||
	    !s->rest_f || !s->rest_b || !s->tail || !s->seq || !s->best_seq || !s->second ||
	    !s->best_second || !s->cands || !s->rc || !s->best_rc || !s->mb_ops || !s->cp ||
	    !s->chan_free || !s->alloc_start || !s->free_end || !s->host)
		return err_set(err, "search: out of memory");
	for (int o = 0; o < all; o++)
		s->end[o] = -1;
	if (s->memo) {
		s->table = memo_new();
		s->key_vals = malloc((5 * s->D + all) * sizeof *s->key_vals);
		s->key = malloc(s->key_len * sizeof *s->key);
		if (!s->table || !s->key_vals || !s->key)
			return err_set(err, "search: out of memory");
	}
	for (int d = 0; d < s->D; d++) {
		s->first[d] = -1;
		s->rest[d] = inst_device_load(in, d);
	}
	for (int l = 0; l < s->L; l++) {
		s->rest_f[in->stage_device[l]] += inst_duration(in, OP_F, l) * s->M;
		s->rest_b[in->stage_device[l]] += inst_duration(in, OP_B, l) * s->M;
	}
	if (s->fixed && !fixed_init(s, err))
		return STATUS_ERROR;
	if (in->objective == OBJ_MAKESPAN && !s->any_order && !s->pairs && !op_graph(s))
		op_graph_free(s);   /* no per-op bounds: out of memory, or a cycle */
	return bound_tails(in, s->tail, err);
}

enum status bnb_solve(const struct instance *in, const struct bnb_options *o,
		      struct bnb_result *r, struct error *err)
{
	struct bnb s = {.in = in, .o = o, .best = o->incumbent, .t0 = clock_seconds(),
			.memo = o->memo && in->objective == OBJ_MAKESPAN,
			.relaxed = o->memo && in->objective == OBJ_MAKESPAN ? o->relaxed : NULL,
			.fixed = o->fixed};
	memset(r, 0, sizeof *r);
	if (!(o->fixed ? bnb_takes_fixed(in) : bnb_takes(in)))
		return err_set(err, "instance '%s': %d ops and %d (kind, stage) pairs, more than the search takes (%d and %d, and %ld candidates per depth at most)",
			       in->name, inst_nops(in), in->kinds * in->stages,
			       o->fixed ? BNB_FIXED_MAX_OPS : BNB_MAX_OPS,
			       o->fixed ? BNB_FIXED_MAX_SLOTS : BNB_MAX_SLOTS,
			       (long)BNB_MAX_CANDIDATES / inst_nops(in));
	if (init(&s, in, err)) {
		release(&s);
		return STATUS_ERROR;
	}
	if (s.best > o->lower_bound)
		dfs(&s, 0);
	r->proved = !s.stopped;
	r->objective = s.best;
	r->nodes = s.nodes;
	r->schedule = s.found ? to_schedule(&s) : NULL;
	r->seconds = clock_seconds() - s.t0;
	enum status st = s.found && !r->schedule ? err_set(err, "search: out of memory") : STATUS_OK;
	release(&s);
	return st;
}
