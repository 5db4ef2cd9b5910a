/* The local search over K-periodic orders (cyclic.h). */
#include "solvers/cyclic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/rng.h"
#include "common/stop.h"
#include "sched/sim.h"

/* A node: op type (kind, stage) of micro-batch class r, offset k. */
struct node {
	int kind, stage, r;
	int k;
};

/* The K-periodic order: device d's cyclic sequence is seq[off[d] ..
 * off[d + 1]), node ids in their order within a cycle. */
struct cyc {
	const struct instance *in;
	int K, nn;
	struct node *node;   /* [nn] */
	int *seq;            /* [nn] */
	int *off;            /* [devices + 1] */
};

static void cyc_free(struct cyc *c)
{
	free(c->node);
	free(c->seq);
	free(c->off);
	c->node = NULL;
	c->seq = c->off = NULL;
}

bool cyclic_takes(const struct instance *in, int K)
{
	return K >= 1 && !inst_has_decisions(in) && in->microbatches >= 2 * K;
}

int cyclic_default_rounds(const struct instance *in)
{
	return in->devices <= 3 ? 3 : 1;
}

struct keyed {
	int node;
	long q;   /* position relative to the device's first node */
	int Lc;
};

/* Cyclic order: by place within a cycle (q mod Lc), then by q. */
static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	long px = x->q % x->Lc, py = y->q % y->Lc;
	if (px != py)
		return px < py ? -1 : 1;
	return (x->q > y->q) - (x->q < y->q);
}

/*
 * The K-periodic order read off the middle of schedule s: node (o, r) of
 * device d is op o of micro-batch j = cK + r, c = m / K / 2, at position
 * rank in d's order. With q = rank - (the least rank of d's nodes) and Lc
 * = d's nodes per cycle, the node sits in cycle k = q / Lc at place q mod
 * Lc: for a schedule that is K-periodic around c (each cycle Lc ops, the
 * same places), unrolling gives back s's middle exactly. Places taken
 * twice (s not periodic there) keep s's relative order.
 */
static enum status cyc_from_schedule(struct cyc *c, const struct instance *in, int K,
				     const struct schedule *s, struct error *err)
{
	int D = in->devices, L = in->stages, M = in->microbatches;
	memset(c, 0, sizeof *c);
	c->in = in;
	c->K = K;
	c->nn = in->kinds * L * K;
	c->node = malloc((size_t)c->nn * sizeof *c->node);
	c->seq = malloc((size_t)c->nn * sizeof *c->seq);
	c->off = calloc((size_t)D + 1, sizeof *c->off);
	long *pos = malloc((size_t)inst_nops(in) * sizeof *pos);
	struct keyed *kv = malloc((size_t)c->nn * sizeof *kv);
	if (!c->node || !c->seq || !c->off || !pos || !kv) {
		free(pos);
		free(kv);
		cyc_free(c);
		return err_set(err, "cyclic: out of memory");
	}
	for (int d = 0; d < D; d++)
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			pos[inst_op_id(in, o->kind, o->stage, o->mb)] = i;
		}
	int j0 = (M / K / 2) * K, n = 0;
	for (int d = 0; d < D; d++) {
		c->off[d] = n;
		int first = n;
		long least = -1;
		for (int kind = 0; kind < in->kinds; kind++)
			for (int l = 0; l < L; l++) {
				if (in->stage_device[l] != d)
					continue;
				for (int r = 0; r < K; r++) {
					c->node[n] = (struct node){kind, l, r, 0};
					kv[n] = (struct keyed){n, pos[inst_op_id(in, kind, l, j0 + r)], 0};
					least = least < 0 || kv[n].q < least ? kv[n].q : least;
					n++;
				}
			}
		int Lc = n - first;
		for (int i = first; i < n; i++) {
			kv[i].q -= least;
			kv[i].Lc = Lc;
			c->node[kv[i].node].k = (int)(kv[i].q / Lc);
		}
		qsort(kv + first, (size_t)Lc, sizeof *kv, cmp_keyed);
		for (int i = first; i < n; i++)
			c->seq[i] = kv[i].node;
	}
	c->off[D] = n;
	free(pos);
	free(kv);
	return STATUS_OK;
}

/* Unroll device d of c into sc's row d (emptied first): cycle after
 * cycle, each node's op of micro-batch (n - k) K + r when that is in
 * [0, m). */
static enum status cyc_unroll_device(const struct cyc *c, struct schedule *sc, int d)
{
	const struct instance *in = c->in;
	int M = in->microbatches, K = c->K, cycles = (M + K - 1) / K;
	struct sched_row *row = &sc->rows[d];
	row->len = 0;
	int kmin = 0, kmax = 0;
	for (int i = c->off[d]; i < c->off[d + 1]; i++) {
		int k = c->node[c->seq[i]].k;
		kmin = i == c->off[d] || k < kmin ? k : kmin;
		kmax = i == c->off[d] || k > kmax ? k : kmax;
	}
	for (int n = kmin; n < kmax + cycles; n++)
		for (int i = c->off[d]; i < c->off[d + 1]; i++) {
			const struct node *v = &c->node[c->seq[i]];
			int j = (n - v->k) * K + v->r;
			if (j < 0 || j >= M)
				continue;
			if (schedule_push(sc, d, v->kind, v->stage, j))
				return STATUS_ERROR;
		}
	return STATUS_OK;
}

static enum status cyc_unroll(const struct cyc *c, struct schedule *sc)
{
	for (int d = 0; d < c->in->devices; d++)
		if (cyc_unroll_device(c, sc, d))
			return STATUS_ERROR;
	return STATUS_OK;
}

/* A schedule's score: the objective, then the sum of the ops' ends (of
 * two schedules with one objective, the best kept is the one whose ops
 * end earlier; the annealing's moves look at the objective alone). */
struct score {
	int64_t obj, sum;
};

static bool better(struct score a, struct score b)
{
	return a.obj < b.obj || (a.obj == b.obj && a.sum < b.sum);
}

/* The longest block a move takes (a run of a device's nodes moved as one:
 * an F and its B on the V's turning device must move past the other
 * chunk's B and W together, or memory breaks between the two moves). */
#define BLOCK_MAX 3

/* Evaluations per node in one annealing run (round_of; 19,200 on V p8). */
#define RUN_EVALS 400

struct search {
	struct cyc c;
	struct schedule *sc;   /* c unrolled, but for the rows marked stale */
	struct sim *sim;
	long evaluations;      /* this round's */
	int stale;             /* a device whose row in sc is not c's, -1
	                          none, ALL_STALE every one */
};

#define ALL_STALE (-2)

/* Unroll (device d's row and the stale ones: a move changes one device's
 * sequence only) and simulate; obj INT64_MAX when not valid. */
static struct score evaluate(struct search *s, int d)
{
	struct score sc = {INT64_MAX, INT64_MAX};
	struct sim_result r;
	s->evaluations++;
	enum status st = s->stale == ALL_STALE ? cyc_unroll(&s->c, s->sc)
			 : s->stale >= 0 && s->stale != d ? cyc_unroll_device(&s->c, s->sc, s->stale)
			 : STATUS_OK;
	s->stale = -1;
	if (st || (d >= 0 && cyc_unroll_device(&s->c, s->sc, d))) {
		s->stale = ALL_STALE;
		return sc;
	}
	if (sim_run(s->sim, s->sc, &r, NULL))
		return sc;
	sc.obj = r.objective;
	sc.sum = 0;
	for (int i = 0, n = inst_nops(s->c.in); i < n; i++)
		sc.sum += r.end[i];
	return sc;
}

/* Move the block of len nodes at places a .. a + len - 1 of device d's
 * sequence so that it starts at place b (b <= Lc - len), the blocks'
 * offsets changed by dk; undone by move(d, b, a, len, -dk). */
static void move(struct cyc *c, int d, int a, int b, int len, int dk)
{
	int *q = c->seq + c->off[d], blk[BLOCK_MAX];
	memcpy(blk, q + a, (size_t)len * sizeof *q);
	if (a < b)
		memmove(q + a, q + a + len, (size_t)(b - a) * sizeof *q);
	else if (b < a)
		memmove(q + b + len, q + b, (size_t)(a - b) * sizeof *q);
	memcpy(q + b, blk, (size_t)len * sizeof *q);
	for (int i = 0; i < len; i++)
		c->node[blk[i]].k += dk;
}

static bool time_left(double end)
{
	return !stop_requested() && clock_seconds() < end;
}

/* Save c's sequences and offsets into seq, k; cyc_restore puts them
 * back. */
static void cyc_save(const struct cyc *c, int *seq, int *k)
{
	memcpy(seq, c->seq, (size_t)c->nn * sizeof *seq);
	for (int i = 0; i < c->nn; i++)
		k[i] = c->node[i].k;
}

static void cyc_restore(struct cyc *c, const int *seq, const int *k)
{
	memcpy(c->seq, seq, (size_t)c->nn * sizeof *seq);
	for (int i = 0; i < c->nn; i++)
		c->node[i].k = k[i];
}

/*
 * One run of simulated annealing over the moves (device d, a block of 1 to
 * BLOCK_MAX nodes from place a to place b, offsets changed by dk in
 * -1..1), drawn at random: a move that keeps the schedule valid is taken
 * when its objective is no worse, or with probability exp(-(objective
 * increase) / T); T falls geometrically from T0 (a hundredth of the
 * start schedule's objective) to a thousandth of a unit over the run's
 * n evaluations. Moves
 * that break memory or deadlock are undone. The best schedule seen is
 * kept in best_seq/best_k.
 */
static void anneal(struct search *s, uint64_t seed, double end, long n, double T0,
		   struct score *cur, struct score *best, int *best_seq, int *best_k,
		   struct cyclic_result *r)
{
	struct rng g;
	rng_seed(&g, seed);
	const struct instance *in = s->c.in;
	long e0 = s->evaluations;
	double T1 = 1e-3, T = T0;
	for (long it = 0; s->evaluations - e0 < n; it++) {
		if ((it & 63) == 0) {
			if (!time_left(end))
				break;
			T = T0 * pow(T1 / T0, (double)(s->evaluations - e0) / (double)n);
		}
		int d = (int)(rng_next(&g) % (uint64_t)in->devices);
		int Lc = s->c.off[d + 1] - s->c.off[d];
		int maxlen = Lc - 1 < BLOCK_MAX ? Lc - 1 : BLOCK_MAX;
		if (maxlen < 1)
			continue;
		int len = 1 + (int)(rng_next(&g) % (uint64_t)maxlen);
		int a = (int)(rng_next(&g) % (uint64_t)(Lc - len + 1));
		int b = (int)(rng_next(&g) % (uint64_t)(Lc - len + 1));
		int dk = (int)(rng_next(&g) % 3) - 1;
		if (a == b && dk == 0)
			continue;
		move(&s->c, d, a, b, len, dk);
		struct score t = evaluate(s, d);
		bool take = t.obj != INT64_MAX &&
			    (t.obj <= cur->obj ||
			     (double)(rng_next(&g) >> 11) * 0x1.0p-53 <
				     exp(-(double)(t.obj - cur->obj) / T));
		if (!take) {
			move(&s->c, d, b, a, len, -dk);
			s->stale = d;
			continue;
		}
		*cur = t;
		r->moves++;
		if (better(t, *best)) {
			*best = t;
			cyc_save(&s->c, best_seq, best_k);
		}
	}
}

static void search_free(struct search *s)
{
	cyc_free(&s->c);
	sim_free(s->sim);
	schedule_free(s->sc);
}

/*
 * One round: the K-periodic orders read off `from` (of objective scale),
 * annealed until `end` or max_evaluations; the best unrolled schedule
 * into *out (NULL: none valid) with its objective *obj.
 */
static enum status round_of(const struct instance *in, int K, const struct schedule *from,
			    int64_t scale, double end, long max_evaluations, uint64_t seed,
			    struct schedule **out, int64_t *obj, struct cyclic_result *r,
			    struct error *err)
{
	struct search s = {.sc = schedule_new(in->devices), .sim = sim_new(in)};
	*out = NULL;
	*obj = INT64_MAX;
	if (!s.sc || !s.sim) {
		search_free(&s);
		return err_set(err, "cyclic: out of memory");
	}
	if (cyc_from_schedule(&s.c, in, K, from, err)) {
		search_free(&s);
		return STATUS_ERROR;
	}
	int *best_seq = malloc((size_t)s.c.nn * sizeof *best_seq);
	int *best_k = malloc((size_t)s.c.nn * sizeof *best_k);
	int *start_seq = malloc((size_t)s.c.nn * sizeof *start_seq);
	int *start_k = malloc((size_t)s.c.nn * sizeof *start_k);
	enum status st = STATUS_OK;
	if (!best_seq || !best_k || !start_seq || !start_k) {
		st = err_set(err, "cyclic: out of memory");
		goto done;
	}
	s.stale = ALL_STALE;
	struct score cur = evaluate(&s, -1), best = cur, start = cur;
	if (K == 1)
		r->start_objective = cur.obj;
	cyc_save(&s.c, best_seq, best_k);
	cyc_save(&s.c, start_seq, start_k);
	/* Runs of RUN_EVALS evaluations per node, each with its own seed,
	 * until the time or the evaluations run out; a run starts from the
	 * best so far once that beats the start, else from the start again
	 * (a best that only ties the start, with a smaller sum of ends, is no
	 * better place to start from). One run finds something or not by
	 * luck: V p8 m48 (3, 4, 2) from v-min's 1504, seeds 1-12, one run of
	 * 9,600 evaluations finds 1458 for 2 seeds, of 19,200 for 2, of
	 * 38,400 for 3, of 76,800 for 8 (one of them 1405). */
	for (int run = 0; time_left(end); run++) {
		long n = RUN_EVALS * (long)s.c.nn;
		if (max_evaluations > 0 && n > max_evaluations - s.evaluations)
			n = max_evaluations - s.evaluations;
		if (n <= 0)
			break;
		if (run) {
			bool from_best = best.obj < start.obj;
			cyc_restore(&s.c, from_best ? best_seq : start_seq,
				    from_best ? best_k : start_k);
			cur = from_best ? best : start;
			s.stale = ALL_STALE;
		}
		anneal(&s, seed + 1000003 * (uint64_t)run, end, n, scale / 100.0, &cur, &best,
		       best_seq, best_k, r);
	}
	cyc_restore(&s.c, best_seq, best_k);
	if (best.obj != INT64_MAX) {
		if (cyc_unroll(&s.c, s.sc)) {
			st = err_set(err, "cyclic: out of memory");
			goto done;
		}
		*out = s.sc;
		*obj = best.obj;
		s.sc = NULL;
	}
done:
	r->evaluations += s.evaluations;
	free(best_seq);
	free(best_k);
	free(start_seq);
	free(start_k);
	search_free(&s);
	return st;
}

enum status cyclic_search(const struct instance *in, const struct schedule *start,
			  const struct cyclic_options *o, struct cyclic_result *r,
			  struct error *err)
{
	double t0 = clock_seconds();
	memset(r, 0, sizeof *r);
	r->objective = r->start_objective = INT64_MAX;
	struct sim *sim = sim_new(in);
	struct sim_result sr;
	if (!sim)
		return err_set(err, "cyclic: out of memory");
	enum status st = sim_run(sim, start, &sr, err);
	sim_free(sim);
	if (st)
		return STATUS_ERROR;
	/* Rounds K = 1 .. K_max, each from start (from the round before's
	 * best instead, K = 3 after K = 2 found nothing on V p2 m8 (2, 3, 1)
	 * at v-min's memory, where K = 3 from v-min finds 132 against K = 2's
	 * 140). */
	int64_t best = sr.objective;
	int K_max = o->K_max;
	while (K_max > 0 && !cyclic_takes(in, K_max))
		K_max--;
	for (int K = 1; K <= K_max && !st; K++) {
		/* K = 1 gets half (where the others find something, they do
		 * in their quarter: V p2 m8 above), the rest share the rest */
		int rounds = K == 1 && K_max > 1 ? 2 : K_max - K + 1;
		double now = clock_seconds(), left = t0 + o->time_limit - now;
		if (left <= 0 || stop_requested())
			break;
		long evals = o->max_evaluations > 0
				     ? (o->max_evaluations - r->evaluations) / rounds : 0;
		struct schedule *sc;
		int64_t obj;
		uint64_t seed = (o->seed ? o->seed : 1) + (uint64_t)K;
		st = round_of(in, K, start, sr.objective, now + left / rounds, evals, seed, &sc,
			      &obj, r, err);
		if (!st && sc && obj < best) {
			schedule_free(r->schedule);
			r->schedule = sc;
			r->objective = best = obj;
			r->K = K;
		} else {
			schedule_free(sc);
		}
	}
	r->seconds = clock_seconds() - t0;
	if (st)
		cyclic_result_release(r);
	return st;
}

void cyclic_result_release(struct cyclic_result *r)
{
	schedule_free(r->schedule);
	r->schedule = NULL;
}
