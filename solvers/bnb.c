/* The exact branch and bound (bnb.h): the argument of each rule is there. */
#include "solvers/bnb.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/stop.h"
#include "sched/bound.h"
#include "sched/ready.h"

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
	uint8_t *rc;             /* [L*M] placed F(l, j) dropped them */
	bool *best_rc;           /* [L*M] rc of the best placement */
	int rc_words;            /* 64-bit words of pending marks per stage (memo) */
	int *mb_ops;             /* [M] placed ops of each micro-batch (recompute) */
	int cand_cap;            /* candidates per depth */
	bool *second;            /* [n] seq[i] is the B of a pair with seq[i-1] */
	int64_t *tail;           /* [K*L] bound_tails */
	int *seq, *best_seq;     /* [n] placement order (op ids) */
	bool *best_second;       /* [n] second for best_seq */
	struct cand *cands;      /* [n][K*L] each depth's candidates (heap, not stack) */
	int placed;
	bool memo;               /* dominance mode (bnb.h) */
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

static int op_kind(const struct bnb *s, int o) { return o / (s->L * s->M); }
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
	return inst_op_duration(s->in, k, op_stage(s, o), k == OP_B && recomputed(s, o));
}

static int64_t objective_now(const struct bnb *s)
{
	int64_t obj = 0;
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

/* A bound on every completion of the node (bnb.h), t the last start. */
static int64_t node_bound(const struct bnb *s, int64_t t)
{
	int64_t lb = 0;
	bool span = s->in->objective == OBJ_SPAN;
	for (int d = 0; d < s->D; d++) {
		int64_t done = max64(s->free_at[d], t) + rest_busy(s, d);
		if (span)
			lb = max64(lb, s->first[d] < 0 ? rest_busy(s, d) : done - s->first[d]);
		else
			lb = max64(lb, s->rest[d] ? done : s->free_at[d]);
	}
	if (!span)
		for (int i = 0; i < s->placed; i++) {
			int o = s->seq[i];
			lb = max64(lb, s->end[o] + s->tail[o / s->M]);
		}
	return lb;
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
	int64_t at = op_ready_time(in, s->end, k, l, j, s->free_at[d], &waiting);
	if (at < 0 || (!s->memo && !s->pairs && at < t))
		return n;   /* inputs not placed, or it would start before t */
	if (fits(s, d, o, false, NULL))
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
	while (s->recompute && fresh < s->M && s->mb_ops[fresh])
		fresh++;
	for (int kl = 0; kl < s->K * s->L; kl++) {
		int k = kl / s->L, l = kl % s->L;
		if (!s->recompute) {
			if (s->next[kl] < s->M)
				n = slot_candidate(s, t, k, l, s->next[kl], c, n);
			continue;
		}
		for (int j = 0; j < s->M; j++)
			if (s->mb_ops[j] || j == fresh)
				n = slot_candidate(s, t, k, l, j, c, n);
	}
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
	int k = o / (s->L * s->M), l = o / s->M % s->L;
	int64_t dur = inst_duration(in, k, l);
	int64_t rise;
	s->mem[d] += sign * op_charge(s, o, k == OP_F && recomputed(s, o), &rise);
	s->rest[d] -= sign * dur;
	if (k == OP_F)
		s->rest_f[d] -= sign * dur;
	else if (k == OP_B)
		s->rest_b[d] -= sign * dur;
	s->next[k * s->L + l] += sign;
	if (s->recompute)
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

static void place(struct bnb *s, const struct cand *c, int64_t *undo_first)
{
	mark_drop(s, c, true);
	int64_t end = c->at + cand_duration(s, c);
	*undo_first = s->first[c->device];
	if (s->first[c->device] < 0)
		s->first[c->device] = c->at;
	s->free_at[c->device] = end;
	account(s, c->device, c->op, 1, end);
	s->second[s->placed] = false;
	s->seq[s->placed++] = c->op;
	if (c->op2 >= 0) {
		account(s, c->device, c->op2, 1, end);
		s->second[s->placed] = true;
		s->seq[s->placed++] = c->op2;
	}
}

static void unplace(struct bnb *s, const struct cand *c, int64_t free_before, int64_t first_before)
{
	if (c->op2 >= 0) {
		s->placed--;
		account(s, c->device, c->op2, -1, 0);
	}
	s->placed--;
	account(s, c->device, c->op, -1, 0);
	mark_drop(s, c, false);
	s->free_at[c->device] = free_before;
	s->first[c->device] = first_before;
}

/* ---- dominance (memo) --------------------------------------------------------- */

#define MEMO_BUCKETS (1 << 20)
#define MEMO_MAX_VALUES (16L << 20)   /* int64s kept: 128 MiB */

struct memo_entry {
	uint64_t hash;
	int next;                /* the bucket's next entry, -1 at the end */
	long at;                 /* offset of its key (key_len) and values */
	int nvals;
};

struct memo_table {
	int buckets[MEMO_BUCKETS];
	struct memo_entry *e;
	long n, cap;
	int64_t *store;
	long used;
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
		if (!s->recompute) {
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
	for (int o = 0; o < s->n; o++)
		if (s->end[o] >= 0 && needed(s, o / (s->L * s->M), o / s->M % s->L, o % s->M))
			v[n++] = s->end[o];
	return n;
}

/* True when an earlier node of the same placed set dominates this one;
 * otherwise the node is recorded (while there is room). */
static bool dominated(struct bnb *s)
{
	struct memo_table *t = s->table;
	int kl = s->key_len, nv = node_values(s, s->key_vals);
	node_key(s);
	uint64_t h = key_hash(s->key, kl);
	for (int i = t->buckets[h & (MEMO_BUCKETS - 1)]; i >= 0; i = t->e[i].next) {
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
	if (t->used + kl + nv > MEMO_MAX_VALUES)
		return false;
	if (t->n == t->cap) {
		long cap = t->cap ? 2 * t->cap : 1 << 16;
		struct memo_entry *e = realloc(t->e, cap * sizeof *e);
		if (!e)
			return false;
		t->e = e;
		t->cap = cap;
	}
	struct memo_entry *e = &t->e[t->n];
	*e = (struct memo_entry){h, t->buckets[h & (MEMO_BUCKETS - 1)], t->used, nv};
	for (int k = 0; k < kl; k++)
		t->store[t->used++] = s->key[k];
	for (int k = 0; k < nv; k++)
		t->store[t->used++] = s->key_vals[k];
	t->buckets[h & (MEMO_BUCKETS - 1)] = (int)t->n++;
	return false;
}

static struct memo_table *memo_new(void)
{
	struct memo_table *t = malloc(sizeof *t);
	if (!t)
		return NULL;
	memset(t->buckets, 0xff, sizeof t->buckets);   /* -1: empty */
	t->e = NULL;
	t->n = t->cap = t->used = 0;
	t->store = malloc(MEMO_MAX_VALUES * sizeof *t->store);
	if (!t->store) {
		free(t);
		return NULL;
	}
	return t;
}

static void memo_free(struct memo_table *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->store);
	free(t);
}

static void dfs(struct bnb *s, int64_t t)
{
	s->nodes++;
	if (out_of_time(s))
		return;
	if (s->placed == s->n) {
		int64_t obj = objective_now(s);
		if (obj < s->best) {
			s->best = obj;
			s->found = true;
			memcpy(s->best_seq, s->seq, s->n * sizeof *s->seq);
			memcpy(s->best_second, s->second, s->n * sizeof *s->second);
			if (s->recompute)
				memcpy(s->best_rc, s->rc, (size_t)s->L * s->M);
		}
		return;
	}
	if (node_bound(s, t) >= s->best)
		return;   /* no completion beats the incumbent */
	if (s->memo && dominated(s))
		return;   /* an earlier node of this placed set was no later anywhere */
	struct cand *c = s->cands + (size_t)s->placed * s->cand_cap;
	int nc = candidates(s, t, c);
	for (int i = 0; i < nc && !s->stopped && s->best > s->o->lower_bound; i++) {
		int64_t free_before = s->free_at[c[i].device], first_before;
		place(s, &c[i], &first_before);
		dfs(s, s->memo ? 0 : c[i].at);   /* memo: later ops may start earlier */
		unplace(s, &c[i], free_before, first_before);
	}
}

/* The schedule of the best placement: each device's ops in placement order. */
static struct schedule *to_schedule(const struct bnb *s)
{
	struct schedule *sc = schedule_new(s->D);
	for (int i = 0; sc && i < s->n; i++) {
		int o = s->best_seq[i], k = o / (s->L * s->M), l = o / s->M % s->L, j = o % s->M;
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
	free(s->seq);
	free(s->best_seq);
	free(s->cands);
	free(s->key_vals);
	free(s->key);
	free(s->rc);
	free(s->best_rc);
	free(s->mb_ops);
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
	bool pairs = in->has_overlap && in->overlap < 1, rc = in->has_recompute;
	long per_slot = rc ? in->microbatches : 1;
	return (in->kinds + rc) * (long)in->stages * per_slot +
	       (pairs ? (1 + rc) * (long)in->stages * vmax * per_slot * per_slot : 0);
}

bool bnb_takes(const struct instance *in)
{
	return inst_nops(in) <= BNB_MAX_OPS && in->kinds * in->stages <= 64 &&
	       (long)inst_nops(in) * cand_cap(in) <= BNB_MAX_CANDIDATES;
}

static enum status init(struct bnb *s, const struct instance *in, struct error *err)
{
	s->D = in->devices;
	s->L = in->stages;
	s->M = in->microbatches;
	s->K = in->kinds;
	s->n = inst_nops(in);
	s->end = malloc(s->n * sizeof *s->end);
	s->next = calloc(s->K * s->L, sizeof *s->next);
	s->free_at = calloc(s->D, sizeof *s->free_at);
	s->first = malloc(s->D * sizeof *s->first);
	s->mem = calloc(s->D, sizeof *s->mem);
	s->rest = calloc(s->D, sizeof *s->rest);
	s->rest_f = calloc(s->D, sizeof *s->rest_f);
	s->rest_b = calloc(s->D, sizeof *s->rest_b);
	s->tail = malloc(s->K * s->L * sizeof *s->tail);
	s->seq = malloc(s->n * sizeof *s->seq);
	s->best_seq = malloc(s->n * sizeof *s->best_seq);
	s->second = calloc(s->n, sizeof *s->second);
	s->best_second = calloc(s->n, sizeof *s->best_second);
	s->pairs = in->has_overlap && in->overlap < 1;
	s->recompute = in->has_recompute;
	s->rc = calloc((size_t)s->L * s->M, 1);
	s->best_rc = calloc((size_t)s->L * s->M, sizeof *s->best_rc);
	s->mb_ops = calloc(s->M, sizeof *s->mb_ops);
	s->rc_words = s->recompute ? (s->M + 63) / 64 : 0;
	s->key_len = s->K * s->L * (s->recompute ? s->rc_words : 1) + s->L * s->rc_words;
	s->cand_cap = (int)cand_cap(in);
	s->cands = malloc((size_t)s->n * s->cand_cap * sizeof *s->cands);
	if (!s->end || !s->next || !s->free_at || !s->first || !s->mem || !s->rest ||
	    !s->rest_f || !s->rest_b || !s->tail || !s->seq || !s->best_seq || !s->second ||
	    !s->best_second || !s->cands || !s->rc || !s->best_rc || !s->mb_ops)
		return err_set(err, "search: out of memory");
	for (int o = 0; o < s->n; o++)
		s->end[o] = -1;
	if (s->memo) {
		s->table = memo_new();
		s->key_vals = malloc((s->D + s->n) * sizeof *s->key_vals);
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
	return bound_tails(in, s->tail, err);
}

enum status bnb_solve(const struct instance *in, const struct bnb_options *o,
		      struct bnb_result *r, struct error *err)
{
	struct bnb s = {.in = in, .o = o, .best = o->incumbent, .t0 = clock_seconds(),
			.memo = o->memo && in->objective == OBJ_MAKESPAN};
	memset(r, 0, sizeof *r);
	if (!bnb_takes(in))
		return err_set(err, "instance '%s': %d ops, more than the search takes (%d, and %ld candidates per depth at most)",
			       in->name, inst_nops(in), BNB_MAX_OPS, (long)BNB_MAX_CANDIDATES / inst_nops(in));
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
