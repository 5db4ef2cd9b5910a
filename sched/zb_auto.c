/*
 * Zero Bubble's greedy heuristic ("ZB-1p/2p" automatic schedule).
 *
 * The heuristic builds all device orders together, one micro-batch round
 * at a time, keeping for each device its count of F, B, W placed, its end
 * time, memory and accumulated bubble, and the end time of every op placed:
 *
 *  - round 0 (warm-up): one F on every stage; then, from the last stage
 *    back, as many extra forwards as memory allows before the first B can
 *    arrive (switch 1: allow a small bubble before the first B or not);
 *    a stage never holds more warm-up forwards than the one before it;
 *    then the first B on every stage, last stage first.
 *  - later rounds: each stage adds one F if its successor will need it
 *    soon (switch 2: when it is already 2 forwards ahead, prefer letting
 *    the B through), inserting W passes first where memory is full, where a
 *    W fits in the wait for the input, or where waiting would make this
 *    stage's bubble the largest (switch 3: fill a short gap greedily with a
 *    W or not); then one B per stage, last stage first, with the same W
 *    rules; the first stage flushes its W's once all its F's are placed.
 *  - the remaining W's close each device's order.
 *
 * All 2^3 switch settings are run; each result is timed by the simulator
 * (sim.c), so the times reported are exact under our model whatever the
 * heuristic's own bookkeeping assumed. The best valid one is kept.
 * Without a split backward, W's are planned with zero cost and memory and
 * dropped from the output.
 */
#include "sched/zb_auto.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sched/bound.h"
#include "sched/sim.h"

struct zb {
	const struct instance *in;
	int S, M;                 /* stages (= devices) and micro-batches */
	bool allow_bubble_before_first_b, prioritize_b, no_bubble_greedy;
	const int *warmup;        /* [S] forwards before the first B, or NULL:
	                             the heuristic's own count (zb-warm) */
	int64_t *t;               /* [3 * S * M] end time of each placed op */
	int *f, *b, *w;           /* [S] ops placed per kind */
	int64_t *e, *mem, *bubble, *max_mem;  /* [S] */
	struct schedule *out;
	bool failed;              /* memory could not be fitted */
};

static int64_t cost(const struct zb *z, int k, int s)
{
	return k == OP_W && !z->in->split_backward ? 0 : z->in->cost[k][s];
}

static int64_t delta(const struct zb *z, int k, int s)
{
	if (k == OP_W && !z->in->split_backward)
		return 0;
	return inst_delta(z->in, k, s);
}

static int64_t *tend(struct zb *z, int k, int s, int j)
{
	return &z->t[(k * z->S + s) * z->M + j];
}

/* Latency of the chain edge between stages s and s + 1. */
static int64_t comm_after(const struct zb *z, int s)
{
	const struct instance *in = z->in;
	return in->succ_start[s + 1] > in->succ_start[s] ? in->succ[in->succ_start[s]].lag : 0;
}

static int64_t max_bubble(const struct zb *z)
{
	int64_t best = 0;
	for (int s = 0; s < z->S; s++)
		best = z->bubble[s] > best ? z->bubble[s] : best;
	return best;
}

/* Place the next op of kind k on stage s and time it. */
static void put(struct zb *z, int s, int k)
{
	int *count = k == OP_F ? z->f : k == OP_B ? z->b : z->w;
	int j = count[s];
	int64_t c = cost(z, k, s), tmp = z->e[s] + c, no_bubble = tmp;
	if (k == OP_F && s > 0) {
		int64_t a = *tend(z, OP_F, s - 1, j) + comm_after(z, s - 1) + c;
		tmp = a > tmp ? a : tmp;
	}
	if (k == OP_B && s + 1 < z->S) {
		int64_t a = *tend(z, OP_B, s + 1, j) + comm_after(z, s) + c;
		tmp = a > tmp ? a : tmp;
	}
	if (z->f[s] > 0)
		z->bubble[s] += tmp - no_bubble;
	z->e[s] = tmp;
	*tend(z, k, s, j) = tmp;
	z->mem[s] += delta(z, k, s);
	count[s]++;
	if (k != OP_W || z->in->split_backward)
		schedule_push(z->out, z->in->stage_device[s], k, s, j);
}

/* Free memory with W passes until `need` more fits; false if impossible. */
static bool make_room(struct zb *z, int s, int64_t need)
{
	while (z->mem[s] + need > z->max_mem[s]) {
		if (z->w[s] >= z->b[s])
			return false;
		put(z, s, OP_W);
	}
	return true;
}

/* Fill the wait for an input arriving at `ready` with W passes: every W
 * that ends by then, and one more if the gap is short enough (or always
 * when the gap would make this stage's bubble the largest). */
static void fill_wait(struct zb *z, int s, int64_t ready)
{
	while (z->w[s] < z->b[s] && z->e[s] + cost(z, OP_W, s) <= ready)
		put(z, s, OP_W);
	if (z->w[s] < z->b[s] && z->e[s] < ready) {
		if (ready - z->e[s] <= max_bubble(z) - z->bubble[s]) {
			if (z->no_bubble_greedy)
				put(z, s, OP_W);
		} else {
			put(z, s, OP_W);
		}
	}
}

static void warm_up(struct zb *z)
{
	int S = z->S, M = z->M;
	int *need = calloc(S, sizeof(int));
	if (!need) {
		z->failed = true;
		return;
	}
	for (int s = 0; s < S; s++)
		put(z, s, OP_F);
	int64_t last_t = 0;
	for (int s = S - 1; s >= 0 && !z->warmup; s--) {
		if (s == S - 1) {
			last_t = *tend(z, OP_F, s, 0) + cost(z, OP_B, s);
			continue;
		}
		int64_t mem = z->mem[s], t = z->e[s], c = comm_after(z, s);
		while (z->f[s] + need[s] < M &&
		       mem + delta(z, OP_F, s) <= z->max_mem[s]) {
			if (z->allow_bubble_before_first_b ?
				    t + cost(z, OP_F, s) > last_t + c : t >= last_t + c)
				break;
			mem += delta(z, OP_F, s);
			t += cost(z, OP_F, s);
			need[s]++;
		}
		last_t = (t > last_t + c ? t : last_t + c) + cost(z, OP_B, s);
	}
	/* zb-warm: the warm-up bound's counts (the first F is placed), in
	 * place of the rule above */
	for (int s = 0; s < S && z->warmup; s++)
		need[s] = z->warmup[s] < 1 ? 0 : z->warmup[s] > M ? M - 1 : z->warmup[s] - 1;
	/* A stage warms up with fewer forwards than the one before it (or as
	 * many, when both reach M): never more, or it would place a forward
	 * whose input is not yet placed upstream. */
	for (int s = 1; s < S; s++) {
		if (need[s] > need[s - 1])
			need[s] = need[s - 1];
		while (need[s] > 0 && need[s] >= need[s - 1] && z->f[s] + need[s] < M)
			need[s]--;
	}
	for (int s = 0; s < S; s++)
		for (int i = 0; i < need[s]; i++)
			put(z, s, OP_F);
	for (int s = S - 1; s >= 0; s--) {
		if (!make_room(z, s, delta(z, OP_B, s))) {
			z->failed = true;
			break;
		}
		put(z, s, OP_B);
	}
	free(need);
}

/* Whether stage s should place a forward this round. */
static bool wants_forward(struct zb *z, int s)
{
	if (z->f[s] >= z->M)
		return false;
	if (!(s + 1 < z->S && z->f[s] >= z->f[s + 1] + 2 && z->prioritize_b))
		return true;
	int64_t next_plus_fb = z->e[s + 1] + cost(z, OP_F, s + 1) +
			       cost(z, OP_B, s + 1) + comm_after(z, s);
	if (z->e[s] >= next_plus_fb)
		return false;
	/* the F fits, with the W's memory would force, before the successor
	 * needs it */
	int64_t mem = z->mem[s] + delta(z, OP_F, s), wc = 0;
	for (int n = 0; mem > z->max_mem[s] && z->w[s] + n < z->b[s]; n++) {
		wc += cost(z, OP_W, s);
		mem += delta(z, OP_W, s);
	}
	if (z->e[s] + cost(z, OP_F, s) + wc <= next_plus_fb)
		return true;
	return next_plus_fb - z->e[s] > max_bubble(z) - z->bubble[s];
}

static void round_i(struct zb *z, int i)
{
	int S = z->S;
	char *want = calloc(S, 1);
	if (!want) {
		z->failed = true;
		return;
	}
	/* a forward needs its input placed upstream, this round or before */
	for (int s = 0; s < S; s++)
		want[s] = wants_forward(z, s) &&
			  (s == 0 || z->f[s - 1] + want[s - 1] > z->f[s]);
	/* a stage adds a forward only if its successor does too (or has all
	 * of them already) */
	for (int s = S - 2; s >= 0; s--)
		want[s] = want[s] && (want[s + 1] || z->f[s + 1] >= z->M);
	for (int s = 0; s < S && !z->failed; s++) {
		if (!want[s])
			continue;
		if (!make_room(z, s, delta(z, OP_F, s))) {
			z->failed = true;
			break;
		}
		if (s > 0)
			fill_wait(z, s, *tend(z, OP_F, s - 1, z->f[s]) + comm_after(z, s - 1));
		put(z, s, OP_F);
	}
	for (int s = S - 1; s >= 0 && !z->failed; s--) {
		if (!make_room(z, s, delta(z, OP_B, s))) {
			z->failed = true;
			break;
		}
		if (s + 1 < S)
			fill_wait(z, s, *tend(z, OP_B, s + 1, i) + comm_after(z, s));
		if (s == 0 && z->f[s] == z->M)
			while (z->w[s] < z->b[s])
				put(z, s, OP_W);
		put(z, s, OP_B);
	}
	free(want);
}

/* One variant; NULL if memory cannot be fitted. */
static struct schedule *variant(const struct instance *in, int bits, const int *warmup)
{
	int S = in->stages, M = in->microbatches;
	struct zb z = {.in = in, .S = S, .M = M,
		       .allow_bubble_before_first_b = bits & 1,
		       .prioritize_b = bits & 2, .no_bubble_greedy = bits & 4,
		       .warmup = warmup};
	z.t = calloc((size_t)3 * S * M, sizeof *z.t);
	z.f = calloc(S, sizeof(int));
	z.b = calloc(S, sizeof(int));
	z.w = calloc(S, sizeof(int));
	z.e = calloc(S, sizeof(int64_t));
	z.mem = calloc(S, sizeof(int64_t));
	z.bubble = calloc(S, sizeof(int64_t));
	z.max_mem = calloc(S, sizeof(int64_t));
	z.out = schedule_new(in->devices);
	if (z.t && z.f && z.b && z.w && z.e && z.mem && z.bubble && z.max_mem && z.out) {
		for (int s = 0; s < S; s++)
			z.max_mem[s] = in->has_limit ? in->limit[in->stage_device[s]] : INT64_MAX / 4;
		warm_up(&z);
		for (int i = 1; i < M && !z.failed; i++)
			round_i(&z, i);
		for (int s = 0; s < S && !z.failed; s++)
			while (z.w[s] < M)
				put(&z, s, OP_W);
	} else {
		z.failed = true;
	}
	free(z.t);
	free(z.f);
	free(z.b);
	free(z.w);
	free(z.e);
	free(z.mem);
	free(z.bubble);
	free(z.max_mem);
	if (z.failed) {
		schedule_free(z.out);
		return NULL;
	}
	return z.out;
}

/* The best of the variants, each timed by the simulator, and its
 * objective; warmup as in struct zb. */
static enum status best_variant(const struct instance *in, const char *name,
				const int *warmup, struct schedule **out, int64_t *objective,
				struct error *err)
{
	struct error why;
	*out = NULL;
	if (!inst_is_simple_chain(in, &why))
		return err_set(err, "family '%s' does not support instance '%s': %s", name,
			       in->name, why.msg);
	struct sim *sim = sim_new(in);
	if (!sim)
		return err_set(err, "%s: out of memory", name);
	struct schedule *best = NULL;
	int64_t best_obj = 0;
	char last_reason[sizeof why.msg] = "memory cannot be fitted in any variant";
	/* with a given warm-up the first switch (a bubble before the first B)
	 * has nothing to decide: 4 variants */
	for (int bits = 0; bits < 8; bits += warmup ? 2 : 1) {
		struct schedule *s = variant(in, bits, warmup);
		struct sim_result r;
		if (!s)
			continue;
		if (sim_run(sim, s, &r, &why)) {
			memcpy(last_reason, why.msg, sizeof last_reason);
			schedule_free(s);
			continue;
		}
		if (!best || r.objective < best_obj) {
			schedule_free(best);
			best = s;
			best_obj = r.objective;
		} else {
			schedule_free(s);
		}
	}
	sim_free(sim);
	if (!best)
		return err_set(err, "family '%s' found no valid schedule for instance '%s': %s",
			       name, in->name, last_reason);
	*out = best;
	*objective = best_obj;
	return STATUS_OK;
}

enum status zb_auto_generate(const struct instance *in, struct schedule **out,
			     struct error *err)
{
	int64_t objective;
	return best_variant(in, "zb-auto", NULL, out, &objective, err);
}

/*
 * zb-warm: the same heuristic, with each stage's warm-up (its forwards
 * before the first B) taken from the warm-up bound's extremal choice
 * (sched/bound.h, bound_warmup_forwards) instead of its own rule. That
 * choice says which stages should wait for one more whole forward and
 * which should take the idle, the trade the bound shows to be forced; on
 * all twelve 2p instances of Zero Bubble's GPT set the result meets the
 * lower bound (zb-auto's own warm-up: 0.03-0.35 % above on eleven). It
 * also runs zb-auto's own warm-up and keeps the better, so it is never
 * worse than zb-auto. pipeopt's addition, not Zero Bubble's: zb-auto stays
 * their heuristic.
 */
enum status zb_warm_generate(const struct instance *in, struct schedule **out,
			     struct error *err)
{
	*out = NULL;
	int *forwards = malloc((in->stages > 0 ? in->stages : 1) * sizeof *forwards);
	if (!forwards)
		return err_set(err, "zb-warm: out of memory");
	if (bound_warmup_forwards(in, forwards, err)) {
		free(forwards);
		return STATUS_ERROR;
	}
	/* the bound's warm-up and zb-auto's own, the better kept (on random
	 * chains of GPT-like costs the bound's alone is worse on 3 of 40);
	 * an error only when neither gives a schedule */
	struct schedule *warm = NULL, *own = NULL;
	int64_t warm_obj = 0, own_obj = 0;
	struct error own_err;
	enum status st = best_variant(in, "zb-warm", forwards, &warm, &warm_obj, err);
	enum status st_own = best_variant(in, "zb-warm", NULL, &own, &own_obj, &own_err);
	free(forwards);
	if (st && st_own)
		return STATUS_ERROR;   /* err holds the first reason */
	if (st || (!st_own && own_obj < warm_obj)) {
		schedule_free(warm);
		*out = own;
	} else {
		schedule_free(own);
		*out = warm;
	}
	return STATUS_OK;
}
