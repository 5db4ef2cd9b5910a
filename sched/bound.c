/*
 * Lower bounds on makespan and span.
 *
 * All bounds work on the op-type graph of one micro-batch: nodes (k, l) for
 * each kind k and stage l, with the dependencies of sim.h. Every micro-batch
 * has the same graph and durations, so a head or tail computed on it holds
 * for each of the M copies.
 *
 *   head(o): a longest path from the origin to the start of o, so every
 *            valid schedule has start(o) >= head(o);
 *   tail(o): a longest path from the end of o to the end of the work, so the
 *            objective is >= end(o) + tail(o).
 *
 * For the makespan the origin is time 0 and the end is the last op's end.
 * For the span of device d both are d's own first start S_d and last end:
 * any path that starts at an op of d starts at or after S_d, and any path
 * that ends at an op of d ends at or before d's last end, so the same
 * recurrences with sources and sinks restricted to d's ops give relative
 * heads and tails (span_d >= every bound computed from them).
 */
#include "sched/bound.h"
#include "sched/jackson.h"

#include <stdlib.h>
#include <string.h>

#define NEG (INT64_MIN / 4)   /* "no path" */

static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* a + add, where NEG stays NEG. */
static inline int64_t ext(int64_t a, int64_t add)
{
	return a == NEG ? NEG : a + add;
}

struct work {
	const struct instance *in;
	int nodes;           /* kinds * L */
	int64_t *init;       /* [nodes] 0 = source/sink, NEG = not */
	int64_t *head, *tail;/* [nodes] */
	int64_t *enclose;    /* [L] the ancestors' F deltas on each stage's device
	                        (enclosing_all), set by ranks_build, or NULL */
	/* Jackson's preemptive schedule */
	int64_t *r, *p, *q, *rem;
	int *order, *heap;
	/* Jackson's jobs (device_jobs, round_trip_bound) in units of 1/scale:
	 * releases and tails times scale, each op of kind k keep[k] / scale of
	 * its cost (a kind with keep 0 left out); 1 and 1 but where F&B pairs
	 * share intervals (bounds_for) */
	int64_t keep[OP_KINDS], scale;
	bool pairs;          /* F&B pairs may share an interval: only the
	                        bounds that hold at full costs (bound_plain) */
	const struct instance *rc;   /* in is rc's relaxation (dropped_relaxed):
	                        the memory-time bound trades rc's recomputes
	                        or copies against their time
	                        (memory_time_bound), or NULL */
};

#define WORK_INIT(pairs_) {.keep = {1, 1, 1}, .scale = 1, .pairs = (pairs_)}

static int64_t dur(const struct instance *in, int t)
{
	return in->cost[t / in->stages][t % in->stages];
}

/*
 * Heads, in dependency order:
 *   head(F,l) = max(init, max_p head(F,p) + T(F,p) + lag(p,l))   topological
 *   head(B,l) = max(init, head(F,l) + T(F,l),
 *                   max_s head(B,s) + T(B,s) + lag(l,s))          reverse topo.
 *   head(W,l) = max(init, head(B,l) + T(B,l))
 * Tails, mirrored:
 *   tail(W,l) = init
 *   tail(B,l) = max(init, tail(W,l) + T(W,l),
 *                   max_p tail(B,p) + T(B,p) + lag(p,l))          topological
 *   tail(F,l) = max(init, tail(B,l) + T(B,l),
 *                   max_s tail(F,s) + T(F,s) + lag(l,s))          reverse topo.
 */
static void longest_paths(struct work *w)
{
	const struct instance *in = w->in;
	const int L = in->stages;
	int64_t *h = w->head, *t = w->tail;
	const int F = 0, B = L, W = 2 * L;   /* node offsets per kind */
	for (int i = 0; i < L; i++) {
		int l = in->topo[i];
		h[F + l] = w->init[F + l];
		for (int e = in->pred_start[l]; e < in->pred_start[l + 1]; e++) {
			int p = in->pred[e].stage;
			h[F + l] = max64(h[F + l], ext(h[F + p], in->cost[OP_F][p] + in->pred[e].lag));
		}
	}
	for (int i = L - 1; i >= 0; i--) {
		int l = in->topo[i];
		h[B + l] = max64(w->init[B + l], ext(h[F + l], in->cost[OP_F][l]));
		for (int e = in->succ_start[l]; e < in->succ_start[l + 1]; e++) {
			int s = in->succ[e].stage;
			h[B + l] = max64(h[B + l], ext(h[B + s], in->cost[OP_B][s] + in->succ[e].lag));
		}
		if (in->split_backward)
			h[W + l] = max64(w->init[W + l], ext(h[B + l], in->cost[OP_B][l]));
	}
	for (int i = 0; i < L; i++) {
		int l = in->topo[i];
		if (in->split_backward) {
			t[W + l] = w->init[W + l];
			t[B + l] = max64(w->init[B + l], ext(t[W + l], in->cost[OP_W][l]));
		} else {
			t[B + l] = w->init[B + l];
		}
		for (int e = in->pred_start[l]; e < in->pred_start[l + 1]; e++) {
			int p = in->pred[e].stage;
			t[B + l] = max64(t[B + l], ext(t[B + p], in->cost[OP_B][p] + in->pred[e].lag));
		}
	}
	for (int i = L - 1; i >= 0; i--) {
		int l = in->topo[i];
		t[F + l] = max64(w->init[F + l], ext(t[B + l], in->cost[OP_B][l]));
		for (int e = in->succ_start[l]; e < in->succ_start[l + 1]; e++) {
			int s = in->succ[e].stage;
			t[F + l] = max64(t[F + l], ext(t[F + s], in->cost[OP_F][s] + in->succ[e].lag));
		}
	}
}

/* Jackson's preemptive bound over w's jobs 0..n-1 (sched/jackson.h), in
 * time units (w's scaled jobs, rounded up: the objective is an integer). */
static int64_t jackson(struct work *w, int n)
{
	int64_t v = jackson_preemptive(n, w->r, w->p, w->q, w->order, w->heap, w->rem);
	return (v + w->scale - 1) / w->scale;
}

/* Jobs of device d: one per op type (k,l) on d, standing for its M copies;
 * copies share r and q, so in the preemptive relaxation they are one job
 * of length M * T. Ops of the measured device always have a head and a
 * tail (they are their own sources and sinks); for the span, the ops of
 * another device count only when they have both, a path from the measured
 * device's ops and one back to them (a subset of the jobs is a valid
 * relaxation). */
static int device_jobs(struct work *w, int d)
{
	const struct instance *in = w->in;
	int n = 0;
	for (int t = 0; t < w->nodes; t++) {
		int l = t % in->stages;
		if (in->stage_device[l] != d || w->head[t] == NEG || w->tail[t] == NEG ||
		    !w->keep[t / in->stages])
			continue;
		w->r[n] = w->head[t] * w->scale;
		w->q[n] = w->tail[t] * w->scale;
		w->p[n] = dur(in, t) * w->keep[t / in->stages] * in->microbatches;
		n++;
	}
	return n;
}

/*
 * Upper bound on the time device d can spend on forwards before its first
 * backward starts. Until then no op frees memory (a W needs its B, which is
 * on the same device), so the forwards started form a set with
 *     sum_l n_l * a_l <= limit_d,   0 <= n_l <= M,
 * a_l the F delta of stage l. Their total time sum_l n_l T(F,l) is at most
 * the fractional knapsack optimum: take stages by T/a, largest first (a = 0
 * first, all M of them), the last one fractionally. Floor it: times are
 * integers.
 */
static int64_t warmup_capacity(const struct instance *in, int d, int *idx)
{
	int n = 0, M = in->microbatches;
	for (int l = 0; l < in->stages; l++)
		if (in->stage_device[l] == d)
			idx[n++] = l;
	/* insertion sort by T/a descending: T1*a2 > T2*a1 */
	for (int i = 1; i < n; i++) {
		int x = idx[i], j = i;
		while (j > 0) {
			int y = idx[j - 1];
			__int128 lhs = (__int128)in->cost[OP_F][x] * in->mem[OP_F][y];
			__int128 rhs = (__int128)in->cost[OP_F][y] * in->mem[OP_F][x];
			if (lhs <= rhs)
				break;
			idx[j] = y;
			j--;
		}
		idx[j] = x;
	}
	__int128 cap = in->limit[d], value = 0;
	for (int i = 0; i < n; i++) {
		int l = idx[i];
		int64_t a = in->mem[OP_F][l], T = in->cost[OP_F][l];
		if (a == 0 || cap >= (__int128)a * M) {
			value += (__int128)T * M;
			cap -= (__int128)a * M;
			continue;
		}
		value += cap * T / a;
		break;
	}
	return value > INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)value;
}

/* The stage of device d when it holds exactly one, else -1. */
static int only_stage(const struct instance *in, int d)
{
	int s = -1, n = 0;
	for (int l = 0; l < in->stages; l++)
		if (in->stage_device[l] == d) {
			s = l;
			n++;
		}
	return n == 1 ? s : -1;
}

/*
 * The memory of one stage s alone on its device: deltas F = a > 0,
 * B = -b <= 0, W = -c <= 0 (c = 0 fused); a = b + c, since the instance
 * reader makes each stage's deltas sum to 0. R (trip_length) is the
 * longest path from the start of F(s) to the start of B(s) in one
 * micro-batch's graph (through every later stage, comm included).
 *
 * Number the forwards, backwards and weight passes of s in the order they
 * start: F_1.., B_1.., W_1.. (any micro-batches). Two facts hold for every
 * schedule:
 *  - the micro-batch of B_j had its forward at least R earlier, and distinct
 *    backwards have distinct forwards, so start(B_j) >= start(F_j) + R;
 *  - W_j needs j distinct backwards done, so start(W_j) >= end(B_j).
 */
struct stage_memory {
	int s;
	int64_t a, b, c, limit;
	int64_t enclose;   /* A: the ancestors' F deltas on the device (enclosing_all) */
	int64_t TF, TB, TW;
	bool split;
};

/* R: the longest path F(s) -> B(s), heads from F(s) alone (w's own init,
 * head and tail are kept). */
static int64_t trip_length(struct work *w, int s)
{
	int64_t *init = w->init, *head = w->head, *tail = w->tail;
	int64_t *tmp = malloc(3 * (size_t)w->nodes * sizeof *tmp);
	if (!tmp)
		return NEG;   /* no bound is still a valid bound */
	w->init = tmp;
	w->head = tmp + w->nodes;
	w->tail = tmp + 2 * w->nodes;
	for (int t = 0; t < w->nodes; t++)
		w->init[t] = t == s ? 0 : NEG;
	longest_paths(w);
	int64_t R = w->head[w->in->stages + s];   /* node (B, s) */
	free(tmp);
	w->init = init;
	w->head = head;
	w->tail = tail;
	return R;
}

/* The ancestor searches cost at most this many steps (L (L + E)) per
 * instance; beyond, no stage counts its ancestors (a weaker rule). */
#define ENCLOSING_WORK 20000000L

/*
 * enclose[s] = A_s, the sum of a_l over the ancestors l of s on s's
 * device (a_l > 0). An ancestor l ran F(l, mu) before F(s, mu) and runs
 * B(l, mu) only after B(s, mu), both on this device. So when the i-th
 * forward of s starts, with x backwards of s started before it: l has run
 * at least i forwards (those of the first i forwards' micro-batches) and
 * at most x backwards (each waits for its micro-batch's B of s), and holds
 * a_l nF - b_l nB - c_l nW >= a_l (nF - nB) >= a_l (i - x)
 * (stage_memory_at's signs). On a V or interleaved chain: chunk 1's
 * forwards find chunk 0's activations of every micro-batch between them
 * in place. NULL when the searches would cost more than ENCLOSING_WORK or
 * memory runs out (then A = 0: still valid).
 */
static int64_t *enclosing_all(const struct instance *in)
{
	int L = in->stages;
	if (!in->has_memory || (long)L * (L + in->succ_start[L]) > ENCLOSING_WORK)
		return NULL;
	int64_t *enclose = calloc(L, sizeof *enclose);
	char *seen = malloc(L);
	int *stack = malloc(L * sizeof *stack);
	if (!enclose || !seen || !stack) {
		free(enclose);
		free(seen);
		free(stack);
		return NULL;
	}
	for (int s = 0; s < L; s++) {
		int d = in->stage_device[s], n = 0;
		memset(seen, 0, L);
		stack[n++] = s;
		seen[s] = 1;
		while (n > 0) {   /* the ancestors of s, backwards along the edges */
			int v = stack[--n];
			for (int e = in->pred_start[v]; e < in->pred_start[v + 1]; e++) {
				int u = in->pred[e].stage;
				if (seen[u])
					continue;
				seen[u] = 1;
				stack[n++] = u;
				if (in->stage_device[u] == d && in->mem[OP_F][u] > 0)
					enclose[s] += in->mem[OP_F][u];
			}
		}
	}
	free(seen);
	free(stack);
	return enclose;
}

/*
 * Fill sm for stage s, with its device's whole limit; false when the
 * arguments below do not apply. On a device that holds other stages too,
 * each of them holds memory >= 0 at every point of the device's order:
 * before any op, that stage has run at least as many forwards as
 * backwards and as many backwards as weight passes (each needs the one
 * before it, on the same device), and a = b + c. So stage s alone stays
 * within the device's limit, and every rule below that reads only s's own
 * memory holds for it with that limit (V and interleaved placements: the
 * round trip of chunk 0 through every later stage); sm->enclose adds what
 * its ancestors on the device hold for certain (enclosing_all).
 */
static bool stage_memory_at(const struct work *w, int s, struct stage_memory *sm)
{
	const struct instance *in = w->in;
	if (!in->has_limit || !in->has_memory)
		return false;
	int d = in->stage_device[s];
	sm->s = s;
	sm->split = in->split_backward;
	sm->a = in->mem[OP_F][s];
	sm->b = -in->mem[OP_B][s];
	sm->c = sm->split ? -in->mem[OP_W][s] : 0;
	sm->limit = in->limit[d];
	sm->TF = in->cost[OP_F][s];
	sm->TB = in->cost[OP_B][s];
	sm->TW = sm->split ? in->cost[OP_W][s] : 0;
	if (sm->a <= 0 || sm->b < 0 || sm->c < 0)
		return false;
	/* the other stages' prefix sums: a' nF + b' nB + w' nW with
	 * nW <= nB <= nF equal a' (nF - nB) + (a' + b')(nB - nW), >= 0 for
	 * every count when a' >= 0 and a' + b' >= 0 */
	for (int l = 0; l < in->stages; l++)
		if (l != s && in->stage_device[l] == d &&
		    (in->mem[OP_F][l] < 0 || in->mem[OP_F][l] + in->mem[OP_B][l] < 0))
			return false;
	sm->enclose = w->enclose ? w->enclose[s] : 0;
	return true;
}

/* Fill sm for device d when it holds exactly one stage (the rules that
 * count the device's whole work or memory); false otherwise. */
static bool stage_memory_of(const struct work *w, int d, struct stage_memory *sm)
{
	int s = only_stage(w->in, d);
	return s >= 0 && stage_memory_at(w, s, sm);
}

/*
 * For another device's span (its W's have no path back, so device_jobs
 * leaves them out): the weight passes of device e, one stage s, that
 * memory forces before e's last forward F_M. When F_M starts, at most M-1
 * backwards have run, so a M - b (M-1) - c y <= limit needs
 *     y >= ceil((a M - b (M-1) - limit) / c)
 * weight passes done by then. They end before F_M starts, so each is a
 * job with W's head and F's length plus tail as its tail: appended to the
 * n jobs of device_jobs (at most one per device, in the W job's place).
 * In Zero Bubble's units (a = 2, b = c = 1) y = M + 1 - limit: at 2p
 * memory (limit 4p) from m = 4p on, e.g. p 4, m 16, where it adds exactly
 * one W to device p-1's window in device 0's span.
 */
static int add_forced_weights(struct work *w, int e, int n)
{
	const struct instance *in = w->in;
	struct stage_memory sm;
	if (!in->split_backward || !stage_memory_of(w, e, &sm) || sm.c <= 0)
		return n;
	int L = in->stages, s = sm.s;
	int64_t hw = w->head[OP_W * L + s], tf = w->tail[OP_F * L + s];
	if (w->tail[OP_W * L + s] != NEG || hw == NEG || tf == NEG)
		return n;   /* W already a job, or no path either way */
	int64_t M = in->microbatches, over = sm.a * M - sm.b * (M - 1) - sm.limit;
	if (over <= 0)
		return n;
	int64_t y = (over + sm.c - 1) / sm.c;
	if (y > M - 1)
		y = M - 1;   /* memory cannot be met at all: any bound holds */
	w->r[n] = hw;
	w->p[n] = y * sm.TW;
	w->q[n] = sm.TF + tf;
	return n + 1;
}

/*
 * The least number y of weight passes started before F_i, given x
 * backwards started before it, that memory admits: when F_i starts
 * (charged at its start) the memory in use is a i - b x - c y, plus at
 * least A (i - x) held by the stage's ancestors on the device
 * (enclosing_all), <= limit; y <= x (each W needs its B). Returns -1
 * when no y works.
 */
static int64_t weights_needed(const struct stage_memory *sm, int64_t i, int64_t x)
{
	int64_t over = sm->a * i - sm->b * x + sm->enclose * (i - x) - sm->limit;
	if (over <= 0)
		return 0;
	if (!sm->split || sm->c == 0)
		return -1;
	int64_t y = (over + sm->c - 1) / sm->c;
	return y <= x ? y : -1;
}

/*
 * Releases by rank. Number each stage's forwards, backwards and weight
 * passes in the order they start: X_j^l is the j-th op of kind X on stage
 * l (any micro-batch). rel[X][l][j] is a lower bound on start(X_j^l), for
 * every schedule:
 *   - rel >= head(X,l) (the op-type graph);
 *   - X_j^l >= X_{j-1}^l + T(X,l): one device, one op at a time;
 *   - F_j^l >= F_j^p + T(F,p) + lag for each predecessor stage p: the
 *     first j forwards of l need j distinct forwards of p done, the last
 *     of which is no earlier than the j-th; mirrored, B_j^l >= B_j^t +
 *     T(B,t) + lag for each successor t, B_j^l >= F_j^l + T(F,l) and
 *     W_j^l >= B_j^l + T(B,l);
 *   - memory (stage_memory_at: with the device's whole limit, also on a
 *     device of several stages): F_i starts after the ops
 *     its device ran before it, the forwards F_1..F_{i-1} and the first nB
 *     backwards and nW weight passes, with a i - b nB - c nW <= limit; the
 *     device cannot have run them all before earliest_done of that set
 *     (each no earlier than its release), and the true (nB, nW) is among
 *     the pairs tried, while earliest_done grows with the set, so the
 *     least y for each x is enough.
 * The ranks are filled in order j = 1..M (forwards in topological order,
 * then backwards in reverse), since each rule reads only smaller ranks or
 * stages already done. The trip through the later stages is in it: with
 * room for K forwards on a stage, F_{j+K} waits for B_j, which waits for
 * B_j of the next stage, and so on to the last; and so is every device's
 * own work and memory on the way (a Little's-law bound that grows with M).
 */
struct ranks {
	int K, L, M;
	bool pairs;     /* F&B pairs: earliest_done by sides (below) */
	int64_t *rel;   /* [K][L][M + 1], rank 1..M */
};

static int64_t *rank_at(const struct ranks *rk, int k, int l, int64_t j)
{
	return &rk->rel[((size_t)k * rk->L + l) * (rk->M + 1) + j];
}

/* The least time by which the device of stage l can have run its first
 * nf forwards, nb backwards and nw weight passes, each no earlier than its
 * release: taking jobs in release order (ERD) gives the least completion
 * time of a set on one machine with release dates; the three lists are
 * each sorted (the second rule), so this merges them. */
static int64_t erd_merge(const struct ranks *rk, const struct stage_memory *sm,
			 int64_t nf, int64_t nb, int64_t nw)
{
	const int64_t *f = rank_at(rk, OP_F, sm->s, 0), *b = rank_at(rk, OP_B, sm->s, 0);
	const int64_t *wr = sm->split ? rank_at(rk, OP_W, sm->s, 0) : NULL;
	int64_t t = NEG, i = 1, j = 1, k = 1;
	while (i <= nf || j <= nb || k <= nw) {
		int64_t rf = i <= nf ? f[i] : INT64_MAX;
		int64_t rb = j <= nb ? b[j] : INT64_MAX;
		int64_t rw = k <= nw ? wr[k] : INT64_MAX;
		if (rf <= rb && rf <= rw) {
			t = max64(t, rf) + sm->TF;
			i++;
		} else if (rb <= rw) {
			t = max64(t, rb) + sm->TB;
			j++;
		} else {
			t = max64(t, rw) + sm->TW;
			k++;
		}
	}
	return t;
}

/* With F&B pairs a forward and a backward may run at once, but two ops of
 * one side (the forwards and weight passes, or the backwards and weight
 * passes) never do: each side's merge bounds the set's completion. */
static int64_t earliest_done(const struct ranks *rk, const struct stage_memory *sm,
			     int64_t nf, int64_t nb, int64_t nw)
{
	if (!rk->pairs)
		return erd_merge(rk, sm, nf, nb, nw);
	return max64(erd_merge(rk, sm, nf, 0, nw), erd_merge(rk, sm, 0, nb, nw));
}

/* Cap on L M^3 for the memory rule's exact inner value (below). */
#define RANK_WORK (1L << 23)

/* The memory rule for F_i on stage sm->s, in *wait; false when memory
 * admits no pair (the instance is infeasible). Above RANK_WORK the value of a pair is
 * only the release plus duration of the set's last op of each kind: no
 * more than earliest_done of the same set, so still a lower bound. */
static bool memory_wait(const struct ranks *rk, const struct stage_memory *sm,
			int64_t i, bool exact, int64_t *out)
{
	int64_t wait = INT64_MAX;
	for (int64_t x = 0; x < i; x++) {
		int64_t y = weights_needed(sm, i, x), v;
		if (y < 0)
			continue;
		if (exact) {
			v = earliest_done(rk, sm, i - 1, x, y);
		} else {
			v = *rank_at(rk, OP_F, sm->s, i - 1) + sm->TF;
			if (x > 0)
				v = max64(v, *rank_at(rk, OP_B, sm->s, x) + sm->TB);
			if (y > 0)
				v = max64(v, *rank_at(rk, OP_W, sm->s, y) + sm->TW);
		}
		wait = min64(wait, v);
	}
	*out = wait;
	return wait != INT64_MAX;
}

/* Fill rk->rel from w's heads; false when memory makes it infeasible or
 * memory runs out (then no bound: still a valid answer). */
static bool fill_ranks(struct work *w, struct ranks *rk)
{
	const struct instance *in = w->in;
	int L = in->stages;
	int64_t M = in->microbatches;
	bool exact = (int64_t)L * M * M * M <= RANK_WORK;
	struct stage_memory *sm = malloc(L * sizeof *sm);
	bool *limited = calloc(L, sizeof *limited);
	if (!sm || !limited) {
		free(sm);
		free(limited);
		return false;
	}
	for (int l = 0; l < L; l++)
		limited[l] = stage_memory_at(w, l, &sm[l]) &&
			     (sm[l].a + sm[l].enclose) * M > sm[l].limit;
	bool ok = true;
	for (int64_t j = 1; j <= M && ok; j++) {
		for (int i = 0; i < L && ok; i++) {
			int l = in->topo[i];
			int64_t v = w->head[l];
			if (j > 1)
				v = max64(v, *rank_at(rk, OP_F, l, j - 1) + in->cost[OP_F][l]);
			for (int e = in->pred_start[l]; e < in->pred_start[l + 1]; e++) {
				int p = in->pred[e].stage;
				v = max64(v, *rank_at(rk, OP_F, p, j) + in->cost[OP_F][p] + in->pred[e].lag);
			}
			if (limited[l] && (sm[l].a + sm[l].enclose) * j > sm[l].limit) {
				int64_t m = NEG;
				ok = memory_wait(rk, &sm[l], j, exact, &m);
				v = max64(v, m);
			}
			*rank_at(rk, OP_F, l, j) = v;
		}
		for (int i = L - 1; i >= 0 && ok; i--) {
			int l = in->topo[i];
			int64_t v = max64(w->head[L + l], *rank_at(rk, OP_F, l, j) + in->cost[OP_F][l]);
			if (j > 1)
				v = max64(v, *rank_at(rk, OP_B, l, j - 1) + in->cost[OP_B][l]);
			for (int e = in->succ_start[l]; e < in->succ_start[l + 1]; e++) {
				int t = in->succ[e].stage;
				v = max64(v, *rank_at(rk, OP_B, t, j) + in->cost[OP_B][t] + in->succ[e].lag);
			}
			*rank_at(rk, OP_B, l, j) = v;
			if (in->split_backward) {
				int64_t u = max64(w->head[2 * L + l], v + in->cost[OP_B][l]);
				if (j > 1)
					u = max64(u, *rank_at(rk, OP_W, l, j - 1) + in->cost[OP_W][l]);
				*rank_at(rk, OP_W, l, j) = u;
			}
		}
	}
	free(sm);
	free(limited);
	return ok;
}

/* Allocate and fill rk for w's instance; rk->rel NULL when memory makes it
 * infeasible or memory runs out (then no releases: still a valid answer). */
static void ranks_build(struct work *w, struct ranks *rk)
{
	const struct instance *in = w->in;
	*rk = (struct ranks){in->kinds, in->stages, in->microbatches, w->pairs, NULL};
	if (!w->enclose)   /* once per work: a span fills the ranks once per device */
		w->enclose = enclosing_all(in);
	rk->rel = malloc((size_t)rk->K * rk->L * (rk->M + 1) * sizeof *rk->rel);
	if (rk->rel && !fill_ranks(w, rk)) {
		free(rk->rel);
		rk->rel = NULL;
	}
}

/*
 * The round-trip bound of device d: every op of d has a release (its
 * rank's) and a tail (its op type's), and Jackson's preemptive bound over
 * all of them bounds the objective. Without a memory limit it is no
 * stronger than the device bound, so it is only computed with one.
 */
static int64_t round_trip_bound(struct work *w, const struct ranks *rk, int d)
{
	const struct instance *in = w->in;
	int n = 0, L = in->stages;
	for (int l = 0; l < L; l++) {
		if (in->stage_device[l] != d)
			continue;
		for (int k = 0; k < in->kinds; k++) {
			int64_t q = w->tail[k * L + l];
			if (!w->keep[k])
				continue;
			for (int64_t j = 1; j <= in->microbatches; j++) {
				w->r[n] = *rank_at(rk, k, l, j) * w->scale;
				w->p[n] = in->cost[k][l] * w->keep[k];
				w->q[n] = (q == NEG ? 0 : q) * w->scale;
				n++;
			}
		}
	}
	return n ? jackson(w, n) : 0;
}

/*
 * The most work a device of one stage can still have when its last forward
 * F_M starts: the backwards and weight passes not started by then, x and y
 * of them. Memory at F_M's start is a M - b (M - x) - c (M - y)
 *   = b x + c y <= limit   (a = b + c),
 * with x <= y (each W waits for its B), y <= M, and x >= 1 when R > 0
 * (B_M starts at least R after F_M). Maximise x T(B) + y T(W) over that;
 * -1 when nothing is feasible.
 */
static int64_t pending_work(const struct stage_memory *sm, int64_t M, int64_t R)
{
	int64_t best = -1;
	for (int64_t x = R > 0 ? 1 : 0; x <= M && sm->b * x <= sm->limit; x++) {
		int64_t left = sm->limit - sm->b * x;
		int64_t y = !sm->split ? 0 : sm->c > 0 && left / sm->c < M ? left / sm->c : M;
		if (sm->split && y < x)
			continue;
		best = max64(best, x * sm->TB + y * sm->TW);
	}
	return best;
}

/*
 * The drain part of the bound below, for a device d of one stage s whose
 * memory does not hold all M forwards: from the start of its last forward
 * F_M to its last end at least R + T(B) + T(W) pass, in which the device
 * runs F_M and at most pending_work, so it idles at least the difference.
 * Some backward starts before F_M (memory frees only at a B or W), so this
 * interval is disjoint from [first start, first backward). 0 otherwise.
 */
static int64_t drain_idle(struct work *w, int d)
{
	struct stage_memory sm;
	int64_t M = w->in->microbatches, R;
	if (!stage_memory_of(w, d, &sm) || sm.a * M <= sm.limit ||
	    (R = trip_length(w, sm.s)) == NEG)
		return 0;
	int64_t pending = pending_work(&sm, M, R);
	return pending >= 0 ? max64(0, R + sm.TB + sm.TW - sm.TF - pending) : 0;
}

/* The least head *h and tail *tmin of device d's ops, and the least head
 * of its backwards in *tb (if tb); false when d holds no stage. */
static bool device_reach(const struct work *w, int d, int64_t *h, int64_t *tmin, int64_t *tb)
{
	const struct instance *in = w->in;
	*h = *tmin = INT64_MAX;
	if (tb)
		*tb = INT64_MAX;
	for (int t = 0; t < w->nodes; t++) {
		if (in->stage_device[t % in->stages] != d)
			continue;
		*h = min64(*h, w->head[t]);
		*tmin = min64(*tmin, w->tail[t]);
		if (tb && t / in->stages == OP_B)
			*tb = min64(*tb, w->head[t]);
	}
	return *h != INT64_MAX;
}

/*
 * Memory-time bound for device d (Little's law as an integral). A stage's
 * activation of micro-batch j is held from the start of its forward to the
 * start of its backward (a, charged at the start) and its W part c from
 * there to the start of its weight pass; the first lasts at least R_l
 * (trip_length: the forward, every later stage and back), the second at
 * least T(B, l). With deltas a, -b, -c >= 0 every stage's memory is >= 0,
 * so at every moment the device's memory, the sum over its stages, is at
 * most its limit; and it is 0 before the device's first op (which starts
 * at h or later) and after its last start (which ends at least tmin
 * before the end). So
 *     objective >= h + ceil(sum_l M (a_l R_l + c_l T(B, l)) / limit) + tmin.
 * It counts every stage of the device at once, where the round trip
 * bounds each stage alone (interleaved placements: chunk 0's trip and
 * chunk 1's share the room). 0 when it does not apply.
 */
/* ceil(a / b) for a >= 0, b > 0. */
static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/*
 * With recomputation or offload (w->rc: the instance, w->in its
 * relaxation), the memory-time argument below charges every F only the
 * kept part k_l; the recomputes or copies that allow it cost time.
 *
 * Recompute. If x_l micro-batches of stage l are recomputed, the area is
 * at least
 *     A(x) = sum_l M (a_l Rt_l + c_l T(B, l)) - sum_l x_l (a_l - k_l) Rt_l
 * (a kept activation holds a_l over its trip Rt_l, a recomputed one k_l;
 * the rebuild during its B only adds), and the device is busy at least
 *     C(x) = load_d + sum_l x_l R_l
 * (R_l: the recompute's cost), both within [h, end - tmin]. So
 *     objective >= h + tmin + min over x in [0, M]^L of max(A(x)/limit, C(x)),
 * and the minimum over real x (a fractional knapsack: the stages by area
 * saved per time spent, best first, up to where A/limit meets C) is no
 * more than over whole ones. Recomputes that cost no time are all taken,
 * and so, as if free, are a device's past MAX_TRADES priced stages (a
 * relaxation: the minimum only falls).
 * recompute-3x4 at m 100 (F 1, B 2, comm 1, a 2, k 0, R 1, limit 4;
 * device 0: Rt 11, h 0, tmin 0): A0 = 2200, C0 = 300, s = 22, they meet
 * at x = (2200 - 4 x 300) / (22 + 4), and the bound is ceil((300 x 22 +
 * 2200) / 26) = 339, where the relaxed instance (every F at k = 0) held
 * no area and the best bound was 310 (the GA's best in 10 s: 396).
 *
 * Offload. An offloaded activation still holds a_l from its F's start
 * until its O ends (O starts after the F ends) and again from its L's
 * start to its B's start, so it saves at most (a_l - k_l)(Rt_l - T(F, l)
 * - O_l - L_l) of area; its copies take O_l + L_l of the device's copy
 * channel, one copy at a time, within [h, end - tmin] too (an O follows
 * its F, an L ends before its B). The same knapsack with C0 = 0 (the
 * channel's own time), and the device's load beside it.
 */
/* A priced decision of one stage: the area one micro-batch's recompute or
 * copy saves, and the time it takes. */
struct trade {
	int64_t saved, cost;
};

#define MAX_TRADES 64   /* priced stages per device; more count as free */

/* The decision of stage l (trip R) under w->rc: its area saved and cost
 * per micro-batch (saved <= 0: none worth taking). */
static struct trade stage_trade(const struct instance *rc, int l, int64_t R)
{
	if (rc->has_offload) {
		int64_t cost = rc->offload_cost[l] + rc->reload_cost[l];
		return (struct trade){inst_moved(rc, l) * (R - rc->cost[OP_F][l] - cost), cost};
	}
	return (struct trade){(rc->mem[OP_F][l] - rc->recompute_keep[l]) * R,
			      rc->recompute_cost[l]};
}

/* min over x in [0, M]^n of max(A(x) / L, C(x)), A(x) = A - sum x_i
 * saved_i, C(x) = C + sum x_i cost_i, over real x (the bound above), and
 * at least `load`: the stages by area saved per time spent, best first,
 * up to where A / L meets C. */
static int64_t tradeoff_min(int64_t A, int64_t C, int64_t load, int64_t L, int64_t M,
			    struct trade *t, int n)
{
	for (int i = 1; i < n; i++)   /* insertion sort: a device's few stages */
		for (int j = i; j > 0 && t[j].saved * t[j - 1].cost > t[j - 1].saved * t[j].cost;
		     j--) {
			struct trade x = t[j - 1];
			t[j - 1] = t[j];
			t[j] = x;
		}
	for (int i = 0; i < n && A > L * C; i++) {
		int64_t sl = t[i].saved, R = t[i].cost;
		if (A - M * sl <= L * (C + M * R))   /* they meet within this stage */
			return max64(ceil_div(C * sl + R * A, sl + L * R), load);
		A -= M * sl;
		C += M * R;
	}
	return max64(max64(ceil_div(max64(A, 0), L), C), load);
}

static int64_t memory_time_bound(struct work *w, int d)
{
	const struct instance *in = w->in, *rc = w->rc;
	int64_t h, tmin;
	if (!in->has_limit || !in->has_memory || in->limit[d] <= 0 ||
	    !device_reach(w, d, &h, &tmin, NULL))
		return 0;
	const struct instance *m = rc ? rc : in;   /* the deltas held */
	int64_t area = 0, M = in->microbatches;
	struct trade t[MAX_TRADES];
	int n = 0;
	for (int l = 0; l < in->stages; l++) {
		if (in->stage_device[l] != d)
			continue;
		int64_t a = m->mem[OP_F][l], b = -m->mem[OP_B][l];
		int64_t c = m->split_backward ? -m->mem[OP_W][l] : 0;
		if (a < 0 || b < 0 || c < 0)
			return 0;
		if (a == 0)
			continue;
		int64_t R = trip_length(w, l);
		if (R == NEG)
			return 0;
		area += M * (a * R + c * in->cost[OP_B][l]);
		struct trade x = rc ? stage_trade(rc, l, R) : (struct trade){0, 0};
		if (x.saved <= 0)
			continue;
		if (x.cost == 0 || n == MAX_TRADES)   /* free, or counted as free */
			area -= M * x.saved;
		else
			t[n++] = x;
	}
	if (!area)
		return 0;
	if (!rc)
		return h + ceil_div(area, in->limit[d]) + tmin;
	int64_t load = inst_device_load(rc, d);
	return h + tradeoff_min(area, rc->has_offload ? 0 : load, load, in->limit[d], M, t, n) +
	       tmin;
}

/*
 * Memory-limited fill and drain bound for device d. Let h = min head of
 * d's ops (the device is idle before h), tB = min head of d's B ops (no B
 * starts earlier), K = warmup_capacity.
 *  - Fill: in [h, first B start) the device runs only forwards, at most K
 *    time of them, so it idles at least tB - h - K there.
 *  - Drain (d holds one stage s): from the start of its last forward F_M
 *    to its last end at least R + T(B) + T(W) pass (B_M starts >= R after
 *    F_M, and the last W ends >= T(W) after B_M ends); in that time the
 *    device runs F_M and the work still pending (pending_work), so it
 *    idles at least R + T(B) + T(W) - T(F) - pending there.
 * When memory does not hold all M forwards, some B starts before F_M
 * (memory frees only at a B or W), so the two intervals are disjoint:
 *     objective >= h + load_d + fill idle + drain idle + min tail of d's ops.
 * For a chain with uniform costs the fill is Zero Bubble's warm-up
 * argument: the first backward on stage s waits for the whole forward and
 * backward chain behind it, while memory caps the forwards that can fill
 * the wait; the drain is its mirror at the end of the iteration.
 */
static int64_t memory_bound(struct work *w, int d, int *idx)
{
	const struct instance *in = w->in;
	int64_t h, tb, tmin;
	if (!device_reach(w, d, &h, &tmin, &tb) || tb == INT64_MAX)
		return 0;   /* no stage on d */
	int64_t K = warmup_capacity(in, d, idx);
	int64_t idle = max64(0, tb - h - K) + drain_idle(w, d);
	return h + inst_device_load(in, d) + idle + tmin;
}

/*
 * Whole forwards before the first backward, coupled along the stages.
 * Applies when every device holds exactly one stage (a chain or a stage
 * DAG). For stage l on its own device let S_l be the device's first start
 * and x_l = (start of its first backward) - S_l. Three facts hold for
 * every schedule, in any micro-batch order:
 *  - until its first backward the device runs only forwards (a W needs
 *    its B, on the same device), whole ones, at most K_l of them: M, and
 *    floor(limit / a_l) with a memory limit and an F delta a_l > 0 (no op
 *    frees memory before a B). A window of x_l holds at most
 *    n_l = min(K_l, floor(x_l / f_l)) of them, so the device idles at least
 *        g_l(x_l) = x_l - f_l n_l            (f_l = T(F, l); x_l if f_l = 0)
 *    in it: a sawtooth in x_l, 0 only at whole multiples of f_l up to K_l.
 *  - x_l >= f_l: the first backward waits for a forward of its stage.
 *  - for every edge l -> s with latency c: the first op on s is a forward
 *    whose input left l at or after S_l + f_l, so S_s >= S_l + f_l + c; and
 *    the first backward on l waits for B(s) of its micro-batch, which starts
 *    at or after S_s + x_s, so S_l + x_l >= S_s + x_s + T(B, s) + c. Hence
 *        x_l >= x_s + f_l + T(B, s) + 2c.
 * Device l's span is at least its load plus g_l(x_l); its contribution to
 * the makespan adds the least head and the least tail of its ops. So the
 * objective is at least V when no choice of x satisfies the constraints
 * with load_l + g_l(x_l) (+ head + tail) < V on every device. For a given V
 * the constraints are monotone (a larger x_s only raises the floor of
 * x_l), so taking on each stage, in reverse topological order, the least
 * x_l above its floor whose idle fits in V decides feasibility exactly;
 * and a larger V admits all that a smaller one does, so a binary search
 * finds the least feasible V, the bound. (Jackson's bound charges the same
 * wait preemptively, filling it with fractions of forwards; this one
 * counts whole forwards, which is where Zero Bubble's 2p instances, with
 * F, B and comm not multiples of each other, lose time at every stage.)
 */
struct warmup {
	const struct instance *in;
	int64_t *base;   /* [L] load (+ head + tail for the makespan) */
	int64_t *x;      /* [L] scratch */
};

/* K_l: the most forwards stage l's device can hold before its first
 * backward. */
static int64_t warmup_room(const struct instance *in, int l)
{
	int64_t K = in->microbatches;
	int64_t a = in->has_memory ? in->mem[OP_F][l] : 0;
	if (in->has_limit && a > 0)
		K = min64(K, in->limit[in->stage_device[l]] / a);
	return K;
}

/* g_l(x): the idle of a window x before stage l's first backward. */
static int64_t warmup_idle(const struct instance *in, int l, int64_t x)
{
	int64_t f = in->cost[OP_F][l];
	return f > 0 ? x - f * min64(warmup_room(in, l), x / f) : x;
}

/* The least x >= floor with g_l(x) <= idle, or -1 when none exists. */
static int64_t warmup_window(const struct instance *in, int l, int64_t floor, int64_t idle)
{
	int64_t f = in->cost[OP_F][l], K = warmup_room(in, l);
	if (f == 0)
		return floor <= idle ? floor : -1;
	int64_t n = floor / f;
	if (n >= K)
		return floor - K * f <= idle ? floor : -1;
	return floor - n * f <= idle ? floor : (n + 1) * f;
}

static bool warmup_feasible(struct warmup *wu, int64_t V)
{
	const struct instance *in = wu->in;
	for (int i = in->stages - 1; i >= 0; i--) {
		int l = in->topo[i];
		int64_t floor = in->cost[OP_F][l];
		for (int e = in->succ_start[l]; e < in->succ_start[l + 1]; e++) {
			int s = in->succ[e].stage;
			floor = max64(floor, wu->x[s] + in->cost[OP_F][l] + in->cost[OP_B][s] +
						     2 * in->succ[e].lag);
		}
		wu->x[l] = warmup_window(in, l, floor, V - wu->base[l]);   /* V >= base */
		if (wu->x[l] < 0)
			return false;
	}
	return true;
}

/* w: its heads and tails count when makespan (the makespan's). Each
 * device's drain idle (drain_idle, disjoint from the warm-up window) adds
 * to its base. 0 when it does not apply or on no memory. forwards, when
 * not NULL, gets per stage the whole forwards min(K_l, floor(x_l / F_l))
 * that the x attaining the bound allows before the first backward (0 when
 * the bound does not apply): a warm-up to build schedules on. */
static int64_t warmup_bound(struct work *w, bool makespan, int *forwards)
{
	const struct instance *in = w->in;
	int L = in->stages;
	if (in->devices != L)
		return 0;
	for (int d = 0; d < in->devices; d++)
		if (only_stage(in, d) < 0)
			return 0;
	struct warmup wu = {in, malloc(2 * (size_t)L * sizeof(int64_t)), NULL};
	if (!wu.base)
		return 0;   /* no bound is still a valid bound */
	wu.x = wu.base + L;
	int64_t lo = 0;
	for (int l = 0; l < L; l++) {
		int d = in->stage_device[l];
		wu.base[l] = inst_device_load(in, d) + drain_idle(w, d);
		if (makespan) {
			int64_t h = INT64_MAX, t = INT64_MAX;
			for (int k = 0; k < in->kinds; k++) {
				h = min64(h, w->head[k * L + l]);
				t = min64(t, w->tail[k * L + l]);
			}
			wu.base[l] += h + t;
		}
		lo = max64(lo, wu.base[l]);
	}
	/* an upper end: with no idle limit every x_l is its floor; the idle
	 * of those floors is then feasible (the greedy's floors at that V are
	 * no higher, and each of these x's remains a choice) */
	warmup_feasible(&wu, INT64_MAX / 4);
	int64_t hi = lo;
	for (int l = 0; l < L; l++)
		hi = max64(hi, wu.base[l] + warmup_idle(in, l, wu.x[l]));
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (warmup_feasible(&wu, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	if (forwards && warmup_feasible(&wu, lo))
		for (int l = 0; l < L; l++) {
			int64_t f = in->cost[OP_F][l], K = warmup_room(in, l);
			forwards[l] = (int)(f > 0 ? min64(K, wu.x[l] / f) : K);
		}
	free(wu.base);
	return lo;
}

/* Set init: 0 for op types that may start or end the measured interval. */
static void set_sources(struct work *w, int device)
{
	for (int t = 0; t < w->nodes; t++)
		w->init[t] = device < 0 ||
			     w->in->stage_device[t % w->in->stages] == device ?
				     0 : NEG;
}

static int64_t chain_bound(const struct work *w, int device)
{
	int64_t best = 0;
	for (int t = 0; t < w->nodes; t++)
		if (device < 0 || w->in->stage_device[t % w->in->stages] == device)
			best = max64(best, ext(w->head[t], dur(w->in, t) + w->tail[t]));
	return best;
}

/* *best = v and *at = where, when v is larger (one argument's record). */
static void keep_larger(int64_t v, int where, int64_t *best, int *at)
{
	if (v > *best) {
		*best = v;
		*at = where;
	}
}

/* Jackson's jobs with F&B pairs: each pair's interval, at least
 * max(f, b) + rho min(f, b), holds its F cut to (1 - lambda (1 - rho)) f
 * and then its B cut to (1 - (1 - lambda)(1 - rho)) b, back to back (their
 * sum is at most the pair's length: overlap_relaxed's argument). The F'
 * starts with the pair, the B' ends no later, so releases and tails stay
 * the full-cost ones, while only the device's own jobs are cut. lambda 1
 * at rho 0 leaves the F's out, lambda 0 the B's (one side of the pairs).
 * Shares in 1/PAIR_SCALE, rounded down (shorter jobs: still a bound). */
#define PAIR_SCALE 64

/* Every job at its full cost (WORK_INIT's shares). */
static void full_shares(struct work *w)
{
	for (int k = 0; k < OP_KINDS; k++)
		w->keep[k] = 1;
	w->scale = 1;
}

static void pair_shares(struct work *w, double lambda)
{
	double cut_f = lambda * (1 - w->in->overlap), cut_b = (1 - lambda) * (1 - w->in->overlap);
	w->scale = PAIR_SCALE;
	w->keep[OP_F] = (int64_t)(PAIR_SCALE * (1 - cut_f) + 1e-9);
	w->keep[OP_B] = (int64_t)(PAIR_SCALE * (1 - cut_b) + 1e-9);
	w->keep[OP_W] = PAIR_SCALE;
}

/*
 * Bounds of device d's span (heads and tails relative to d's ops), or of
 * the makespan when d < 0 (from time 0 to the end).
 *
 * The device bound runs on every device e, also for d's span: a copy of
 * an op o of e whose micro-batch has a path from an op of d starts at or
 * after S_d + head(o), and one whose micro-batch has a path back to an op
 * of d ends at or before C_d - tail(o); e runs its ops one at a time, so
 * Jackson's bound over those jobs of e bounds C_d - S_d. It is what the
 * span needs where the last device's forwards and backwards lie between
 * device 0's first forward and its last weight pass: with W's deferred,
 * device p-1 still runs all M forwards and backwards in that window, so
 *     span_0 >= (p-1)(F + c) + M(F + B) + (p-1)(B + c) + W
 * on a uniform chain (Zero Bubble's 1.5B p8 m24 2p: 1152599, zb-auto's).
 * The memory and round-trip bounds stay on d's own ops.
 */
static void bounds_for(struct work *w, int d, int *idx,
		       struct bounds *b)
{
	const struct instance *in = w->in;
	int from = d < 0 ? 0 : d, to = d < 0 ? in->devices : d + 1;
	int64_t cp = chain_bound(w, d);
	b->critical_path = max64(b->critical_path, cp);
	bool limited = in->has_limit && in->has_memory;
	struct ranks rk = {0};
	if (limited)
		ranks_build(w, &rk);
	/* with pairs, three shares of the F and B costs (bound_plain) */
	int passes = w->pairs ? 3 : 1;
	for (int pass = 0; pass < passes; pass++) {
		if (w->pairs)
			pair_shares(w, pass / 2.0);
		for (int e = 0; e < in->devices; e++) {
			int n = device_jobs(w, e);
			if (limited && n > 0 && !w->pairs)
				n = add_forced_weights(w, e, n);
			if (n > 0)   /* the span bounded is d's */
				keep_larger(jackson(w, n), d < 0 ? e : d, &b->device,
					    &b->device_at);
		}
		for (int e = from; e < to && limited && rk.rel; e++)
			keep_larger(round_trip_bound(w, &rk, e), e, &b->round_trip,
				    &b->round_trip_at);
	}
	full_shares(w);
	for (int e = from; e < to && limited; e++) {
		if (!w->pairs)   /* it charges the device's whole load */
			keep_larger(memory_bound(w, e, idx), e, &b->memory, &b->memory_at);
		keep_larger(memory_time_bound(w, e), e, &b->memory_time, &b->memory_time_at);
	}
	free(rk.rel);
}

/* The op-type graph's arrays of w (init, head, tail); false on no memory. */
static bool paths_alloc(struct work *w, const struct instance *in)
{
	w->in = in;
	w->nodes = in->kinds * in->stages;
	w->init = malloc(w->nodes * sizeof(int64_t));
	w->head = malloc(w->nodes * sizeof(int64_t));
	w->tail = malloc(w->nodes * sizeof(int64_t));
	return w->init && w->head && w->tail;
}

static void paths_free(struct work *w)
{
	free(w->init);
	free(w->head);
	free(w->tail);
	free(w->enclose);
}

/* b->best: the largest of b's bounds, and b->by which argument gave it
 * (the first on a tie). */
static void choose_best(struct bounds *b)
{
	const struct {
		int64_t v;
		const char *by;
	} all[] = {{b->critical_path, "critical_path"}, {b->device, "device"},
		   {b->memory, "memory"}, {b->round_trip, "round_trip"},
		   {b->memory_time, "memory_time"}, {b->warmup, "warmup"}};
	b->best = 0;
	b->by = all[0].by;
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		if (all[i].v > b->best) {
			b->best = all[i].v;
			b->by = all[i].by;
		}
}

/*
 * Every bound on the instance as given (pairs false). With pairs true
 * (F&B overlap) only those that hold at full costs when a forward and a
 * backward of one device may share an interval: a pair is one F and one
 * B and lasts max(f, b) + rho min(f, b), at least each of its ops, so
 *  - heads, tails and the critical path hold (a pair on a path is at least
 *    as long as its op there);
 *  - on one device a pair's interval holds its F and its B cut by lambda
 *    back to back (pair_shares): the device bound and the round trips take
 *    Jackson's bound over the device's cut jobs, with full-cost releases
 *    and tails, for lambda = 0, 1/2, 1 (at rho 0, lambda 1 and 0 are one
 *    side of the pairs alone: the ops but the F's, or but the B's, which never
 *    share an interval); the ranks' memory rule bounds a set's completion
 *    by each side's merge (earliest_done);
 *  - the memory-time bound charges trips and memory, which pairs do not
 *    change (a pair's F delta counts first, as a lone F before its B);
 * the device-load bounds (memory fill and drain, warm-up, forced weight
 * passes) sum a device's F and B costs and are left out. The cut-cost
 * instances of overlap_relaxed charge every F and B less on every device,
 * heads and tails too; this keeps them whole where one side alone is the
 * busy part: on ov09 of bench/overlap-exact.sh (interleaved, rho 0) device
 * 2's backwards and weight passes cannot start before micro-batch 0's trip
 * to the last stage and back (23) and take 84, so the makespan is at least
 * 107, where the cut costs gave 83.
 */
static enum status bound_plain(const struct instance *in, bool pairs,
			       const struct instance *rc, struct bounds *b, struct error *err)
{
	struct work w = WORK_INIT(pairs);
	w.rc = rc;
	bool paths = paths_alloc(&w, in);
	/* job arrays: one job per op type, or every op of one device (the
	 * round trips take each op of each of its stages: test_overlap's brute
	 * force found them written past kinds * M jobs on a device of two
	 * stages) */
	int *per = calloc(in->devices, sizeof *per);
	int vmax = per ? 1 : in->stages;   /* out of memory: the most it can be */
	for (int l = 0; per && l < in->stages; l++)
		if (++per[in->stage_device[l]] > vmax)
			vmax = per[in->stage_device[l]];
	free(per);
	long ops = (long)in->kinds * in->microbatches * vmax;
	int n = w.nodes > ops ? w.nodes : (int)ops;
	memset(b, 0, sizeof *b);
	b->memory_at = -1;
	b->round_trip_at = -1;
	b->memory_time_at = -1;
	w.r = malloc(n * sizeof(int64_t));
	w.p = malloc(n * sizeof(int64_t));
	w.q = malloc(n * sizeof(int64_t));
	w.rem = malloc(n * sizeof(int64_t));
	w.order = malloc(n * sizeof(int));
	w.heap = malloc(n * sizeof(int));
	int *idx = malloc(in->stages * sizeof(int));
	enum status st = STATUS_OK;
	if (!paths || !w.r || !w.p || !w.q || !w.rem ||
	    !w.order || !w.heap || !idx) {
		st = err_set(err, "bound: out of memory");
	} else if (in->objective == OBJ_MAKESPAN) {
		set_sources(&w, -1);
		longest_paths(&w);
		bounds_for(&w, -1, idx, b);
		b->warmup = pairs ? 0 : warmup_bound(&w, true, NULL);
	} else {
		for (int d = 0; d < in->devices; d++) {
			set_sources(&w, d);
			longest_paths(&w);
			bounds_for(&w, d, idx, b);
		}
		b->warmup = pairs ? 0 : warmup_bound(&w, false, NULL);
	}
	choose_best(b);
	paths_free(&w);
	free(w.r);
	free(w.p);
	free(w.q);
	free(w.rem);
	free(w.order);
	free(w.heap);
	free(idx);
	return st;
}

/*
 * F&B overlap (instance.h): a device may run F(a, i) and B(b, j) as one
 * pair of duration T >= max(f_a, b_b) + rho min(f_a, b_b), so its busy time
 * can be below the sum of its ops' costs and the bounds above, which charge
 * every op its cost, do not hold as they stand. They hold on a relaxed
 * instance without overlap whose optimum is no longer. Cut every F's cost
 * by x_a = lambda (1 - rho) f_a and every B's by y_b = (1 - lambda)(1 - rho)
 * b_b, for one lambda in [0, 1]. Then for any pair
 *     F'_a + B'_b = f_a + b_b - (1 - rho)(lambda f_a + (1 - lambda) b_b)
 *                <= f_a + b_b - (1 - rho) min(f_a, b_b) <= T,
 * since a convex combination is at least the minimum: the pair's interval
 * holds F' then B' back to back, every other op keeps an interval at least
 * its relaxed cost, every input is ready no later, and a pair's F delta
 * counts first in memory either way (sim.c). So every overlapped schedule
 * maps to one of the relaxed instance no longer (makespan and span), and
 * a bound there is a bound here. Costs are integers: the relaxed instance
 * is in units of 1/OVERLAP_SCALE (costs and comm times OVERLAP_SCALE, cut
 * costs rounded down), its bound divided back and rounded up (the
 * objective is an integer). lambda = 0, 1/2 and 1 are tried (the first
 * spares the forwards, the last the backwards); the largest bound wins.
 * The critical path needs no relaxation (a pair lasts at least as long as
 * each of its ops), so the plain one is kept when it is larger.
 */
#define OVERLAP_SCALE 4

static enum status overlap_relaxed(const struct instance *in, double lambda,
				   struct instance **out, struct error *err)
{
	json_t *j = instance_to_json(in), *cost = json_object(), *comm = json_array();
	double cut[OP_KINDS] = {lambda * (1 - in->overlap), (1 - lambda) * (1 - in->overlap), 0};
	bool ok = j && cost && comm;
	*out = NULL;
	for (int k = 0; ok && k < in->kinds; k++) {
		json_t *a = json_array();
		for (int l = 0; a && l < in->stages; l++) {
			double c = (double)OVERLAP_SCALE * (double)in->cost[k][l] * (1 - cut[k]);
			int64_t v = (int64_t)(c + 1e-9);   /* rounded down */
			if (k != OP_W && v < 1)
				ok = false;   /* this lambda cuts an op to nothing: skip it */
			json_array_append_new(a, json_integer(v));
		}
		if (!a || json_object_set_new(cost, op_kind_name(k), a))   /* steals a */
			ok = false;
	}
	for (int e = 0; ok && e < in->nedges; e++)
		json_array_append_new(comm, json_integer(OVERLAP_SCALE * in->edge_comm[e]));
	enum status st = STATUS_OK;
	if (ok) {
		json_object_set_new(j, "cost", cost);
		json_object_set_new(j, "comm", comm);
		cost = comm = NULL;
		json_object_del(j, "overlap");
		json_object_del(j, "model");
		st = instance_from_json(j, in->name, out, err);
	}
	json_decref(cost);
	json_decref(comm);
	json_decref(j);
	return st;   /* *out NULL (a cut to nothing, or out of memory): this
	                lambda is skipped, the others still bound */
}

static int64_t scaled_back(int64_t v)
{
	return (v + OVERLAP_SCALE - 1) / OVERLAP_SCALE;
}

/*
 * Recomputation (instance.h): a recomputed micro-batch's F holds only the
 * kept part k <= a of F's delta a, so the memory arguments above, which
 * charge every F its a, do not hold as they stand. They hold on a relaxed
 * instance without recomputation whose every F holds k, with B's and W's
 * deltas x_B, x_W chosen so that, at every position of every device's
 * order, its memory in use is at most the real schedule's, whichever
 * micro-batches that recomputes. With B's delta b and W's w (a + b + w =
 * 0), a stage's prefix sums are, kept: a, a + b, 0; recomputed: k, then at
 * its B first k + (a - k) = a, then a + b, 0; relaxed: k, k + x_B, 0. So
 * k <= a, and k + x_B <= a + b is all that is needed: x_B = a + b - k
 * when that is not positive (fused: -k), else 0 (then k <= a + b), and
 * x_W = -k - x_B. Durations stay the plain costs (a recompute only
 * lengthens its B). Every real schedule is then a relaxed one, timed no
 * later, and a bound of the relaxed instance bounds the real one.
 *
 * Offload (instance.h) is relaxed the same way, with k its kept part: an
 * offloaded micro-batch's prefix sums are a (F), k (after O), a (from L),
 * a + b, 0, never below the relaxed k, k + x_B, 0 at the compute ops; the
 * relaxed instance drops O and L (they take no compute time, and without
 * them every B is ready no later). So a schedule with offloads keeps its
 * compute orders as a relaxed schedule, timed no later, within memory.
 */
static enum status dropped_relaxed(const struct instance *in, struct instance **out,
				     struct error *err)
{
	json_t *j = instance_to_json(in), *mem = j ? json_object_get(j, "memory") : NULL;
	json_t *f = json_array(), *bb = json_array(), *w = json_array();
	bool ok = mem && f && bb && w;
	*out = NULL;
	for (int l = 0; ok && l < in->stages; l++) {
		int64_t a = in->mem[OP_F][l], b = in->mem[OP_B][l];
		int64_t k = in->has_recompute ? in->recompute_keep[l] : in->offload_keep[l];
		int64_t xb = a + b - k <= 0 ? a + b - k : 0;
		ok = !json_array_append_new(f, json_integer(k)) &&
		     !json_array_append_new(bb, json_integer(in->split_backward ? xb : -k)) &&
		     (!in->split_backward || !json_array_append_new(w, json_integer(-k - xb)));
	}
	enum status st = STATUS_OK;
	if (ok) {
		json_object_set_new(mem, "F", f);
		json_object_set_new(mem, "B", bb);
		if (in->split_backward)
			json_object_set_new(mem, "W", w);
		else
			json_decref(w);
		f = bb = w = NULL;
		json_object_del(j, "recompute");
		json_object_del(j, "offload");
		json_object_del(j, "model");
		st = instance_from_json(j, in->name, out, err);
	} else {
		st = err_set(err, "bound: out of memory");
	}
	json_decref(f);
	json_decref(bb);
	json_decref(w);
	json_decref(j);
	return st;
}

enum status bound_compute(const struct instance *in, struct bounds *b, struct error *err)
{
	if (in->has_recompute || in->has_offload) {   /* never both (instance.c) */
		struct instance *r;
		if (dropped_relaxed(in, &r, err))
			return STATUS_ERROR;
		/* without overlap (never with offload), the memory-time bound
		 * also trades the recomputes or copies against their time */
		bool trade = !in->has_overlap || in->overlap >= 1;
		enum status st = trade ? bound_plain(r, false, in, b, err) : bound_compute(r, b, err);
		instance_free(r);
		return st;
	}
	if (!in->has_overlap || in->overlap >= 1)   /* no pair is shorter than its ops */
		return bound_plain(in, false, NULL, b, err);
	/* the largest of: the bounds that hold at full costs with pairs, and
	 * the best cut-cost instance's */
	static const double lambdas[] = {0, 0.5, 1};
	struct bounds full, cut = {.best = -1};
	if (bound_plain(in, true, NULL, &full, err))
		return STATUS_ERROR;
	for (size_t i = 0; i < sizeof lambdas / sizeof *lambdas; i++) {
		struct instance *r = NULL;
		struct bounds x;
		if (overlap_relaxed(in, lambdas[i], &r, err))
			return STATUS_ERROR;
		if (!r)
			continue;
		enum status st = bound_plain(r, false, NULL, &x, err);
		instance_free(r);
		if (st)
			return STATUS_ERROR;
		x.critical_path = scaled_back(x.critical_path);
		x.device = scaled_back(x.device);
		x.memory = scaled_back(x.memory);
		x.round_trip = scaled_back(x.round_trip);
		x.memory_time = scaled_back(x.memory_time);
		x.warmup = scaled_back(x.warmup);
		x.best = scaled_back(x.best);
		if (x.best > cut.best)
			cut = x;
	}
	*b = full;
	if (cut.best >= 0) {   /* else every lambda cut an op to nothing */
		b->critical_path = max64(b->critical_path, cut.critical_path);
		keep_larger(cut.device, cut.device_at, &b->device, &b->device_at);
		keep_larger(cut.memory, cut.memory_at, &b->memory, &b->memory_at);
		keep_larger(cut.round_trip, cut.round_trip_at, &b->round_trip, &b->round_trip_at);
		keep_larger(cut.memory_time, cut.memory_time_at, &b->memory_time,
			    &b->memory_time_at);
		b->warmup = max64(b->warmup, cut.warmup);
	}
	choose_best(b);
	return STATUS_OK;
}

/* w's heads and tails from time 0 to the end (the makespan's). */
static enum status makespan_paths(struct work *w, const struct instance *in, struct error *err)
{
	if (!paths_alloc(w, in)) {
		paths_free(w);
		return err_set(err, "bound: out of memory");
	}
	set_sources(w, -1);
	longest_paths(w);
	return STATUS_OK;
}

enum status bound_releases(const struct instance *in, int64_t *rel, struct error *err)
{
	/* with pairs that gain, the ranks' memory rule by sides (bound_plain) */
	struct work w = WORK_INIT(inst_pairs_gain(in));
	struct ranks rk = {0};
	if (makespan_paths(&w, in, err))
		return STATUS_ERROR;
	ranks_build(&w, &rk);
	/* the j-th op of (k, l) in start order is micro-batch j - 1 under FIFO;
	 * without ranks (memory admits nothing) the op-type heads */
	for (int k = 0; k < in->kinds; k++)
		for (int l = 0; l < in->stages; l++)
			for (int j = 0; j < in->microbatches; j++)
				rel[inst_op_id(in, k, l, j)] =
					rk.rel ? *rank_at(&rk, k, l, j + 1) : w.head[k * in->stages + l];
	free(rk.rel);
	paths_free(&w);
	return STATUS_OK;
}

enum status bound_tails(const struct instance *in, int64_t *tail, struct error *err)
{
	struct work w = WORK_INIT(false);
	if (makespan_paths(&w, in, err))
		return STATUS_ERROR;
	memcpy(tail, w.tail, w.nodes * sizeof *tail);
	paths_free(&w);
	return STATUS_OK;
}

enum status bound_warmup_forwards(const struct instance *in, int *forwards, struct error *err)
{
	/* only the paths warmup_bound reads: the makespan's heads and tails,
	 * or none for the span (its base is the load and the drain idle, whose
	 * trips warmup_bound computes itself) */
	struct work w = WORK_INIT(false);
	bool makespan = in->objective == OBJ_MAKESPAN;
	for (int l = 0; l < in->stages; l++)
		forwards[l] = 0;
	if (!paths_alloc(&w, in)) {
		paths_free(&w);
		return err_set(err, "bound: out of memory");
	}
	if (makespan) {
		set_sources(&w, -1);
		longest_paths(&w);
	}
	warmup_bound(&w, makespan, forwards);
	paths_free(&w);
	return STATUS_OK;
}
