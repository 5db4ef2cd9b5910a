/* Local search by exact neighbourhoods (lns.h). */
#include "solvers/lns.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/stop.h"
#include "sched/sim.h"
#include "solvers/bnb.h"

bool lns_takes(const struct instance *in)
{
	return in->objective == OBJ_MAKESPAN && in->devices >= 2 && bnb_takes_fixed(in) &&
	       !inst_has_decisions(in);
}

/* A neighbourhood: each device's row of the current schedule, free on
 * positions [from[d], to[d]). */
struct hood {
	int *from, *to;
};

/* One neighbourhood's search: the best schedule below *obj that keeps
 * each device's order outside its free segment. Replaces *sc and *obj
 * when it finds one that re-simulates to its objective; *better says so. */
static enum status search_hood(const struct instance *in, struct sim *sim, const struct hood *h,
			       double seconds, struct schedule **sc, int64_t *obj,
			       int64_t lower_bound, bool *better, long *nodes, struct error *err)
{
	struct bnb_options bo = {.time_limit = seconds, .incumbent = *obj,
				 .lower_bound = lower_bound, .memo = true, .jackson = true, .fixed = *sc,
				 .free_from = h->from, .free_to = h->to};
	struct bnb_result br;
	if (bnb_solve(in, &bo, &br, err))
		return STATUS_ERROR;
	*nodes += br.nodes;
	return bnb_adopt(in, sim, &br, sc, obj, better, err);
}

/* Devices [lo, hi] free, the others kept. */
static void device_hood(const struct schedule *sc, int lo, int hi, struct hood *h)
{
	for (int d = 0; d < sc->devices; d++) {
		bool in = d >= lo && d <= hi;
		h->from[d] = 0;
		h->to[d] = in ? sc->rows[d].len : 0;
	}
}

/* The ops starting in [t1, t2) under sc's timing free, the others kept:
 * on each device a segment, its row being in start order. */
static enum status time_hood(const struct instance *in, struct sim *sim,
			     const struct schedule *sc, int64_t t1, int64_t t2, struct hood *h,
			     struct error *err)
{
	struct sim_result sr;
	if (sim_run(sim, sc, &sr, err))
		return STATUS_ERROR;
	for (int d = 0; d < sc->devices; d++) {
		const struct sched_row *r = &sc->rows[d];
		int i = 0;
		int64_t start, end;
		while (i < r->len && (sim_op_times(in, &sr, &r->ops[i], &start, &end), start < t1))
			i++;
		h->from[d] = i;
		while (i < r->len && (sim_op_times(in, &sr, &r->ops[i], &start, &end), start < t2))
			i++;
		h->to[d] = i;
	}
	return STATUS_OK;
}

/*
 * Two kinds of neighbourhood, in rounds:
 *  - time windows: the ops that start in [t1, t1 + w) free on every
 *    device (their order among them, and so which micro-batch a critical
 *    path crosses where), w from a sixteenth to a quarter of the makespan,
 *    sliding by w / 2 from the end backwards;
 *  - device windows: 2 up to max_width consecutive devices free.
 * An improvement starts the round again. A round without one ends the
 * search, as does the time limit or the lower bound met.
 *
 * Each search runs with Jackson's bound (bnb.h): with the kept orders as
 * arcs, a device's heads and tails are tight, and most neighbourhoods are
 * refuted at their root. Measured (one core, windows of 0.5 s, from the
 * GA's best after 5 s): p8 m24 fused, p activations, comm 1: 141 -> 140
 * after 0.01 s; without Jackson's bound the same neighbourhoods took
 * 1-2 s each and found it after 17 s. p8 m32 fused: 182 -> 181 after
 * 0.53 s.
 */
struct lns_run {
	const struct instance *in;
	const struct lns_options *o;
	struct sim *sim;
	struct hood h;
	double t0, per;
	struct schedule **sc;
	int64_t *obj;
	struct lns_result *r;
	struct error *err;
};

/* Search the neighbourhood in x->h; *better when it improved. False:
 * time is up or stop requested (*better false), or an error (*st). */
static bool run_hood(struct lns_run *x, bool *better, enum status *st)
{
	*better = false;
	double left = x->o->time_limit > 0 ? x->o->time_limit - (clock_seconds() - x->t0) : x->per;
	if (left <= 0.001 || stop_requested() || *x->obj <= x->o->lower_bound)
		return false;
	*st = search_hood(x->in, x->sim, &x->h, left < x->per ? left : x->per, x->sc, x->obj,
			  x->o->lower_bound, better, &x->r->nodes, x->err);
	if (*st)
		return false;
	x->r->windows++;
	if (*better) {
		x->r->improvements++;
		x->r->time_to_best = clock_seconds() - x->t0;
	}
	return true;
}

/* One round; returns whether it improved, *st on error or stop. */
static bool lns_round(struct lns_run *x, bool *go_on, enum status *st)
{
	static const int parts[] = {16, 12, 10, 8, 6, 5, 4};   /* widths: makespan / parts */
	bool better;
	for (size_t p = 0; p < sizeof parts / sizeof *parts; p++) {
		int64_t w = *x->obj / parts[p];
		w = w > 0 ? w : 1;
		for (int64_t t1 = *x->obj - w; t1 > -w / 2; t1 -= (w + 1) / 2) {
			if ((*st = time_hood(x->in, x->sim, *x->sc, t1, t1 + w, &x->h, x->err)))
				return *go_on = false;
			if (!run_hood(x, &better, st))
				return *go_on = false;
			if (better)
				return true;
		}
	}
	int D = x->in->devices, maxw = x->o->max_width > 0 ? x->o->max_width : 3;
	for (int wd = 2; wd <= maxw && wd <= D; wd++)
		for (int lo = 0; lo + wd <= D; lo++) {
			device_hood(*x->sc, lo, lo + wd - 1, &x->h);
			if (!run_hood(x, &better, st))
				return *go_on = false;
			if (better)
				return true;
		}
	return false;
}

/* Rounds from *x->sc until one finds nothing (true: a local optimum), or
 * the clock, the bound, a stop or an error (*st) ends them (false). */
static bool descend(struct lns_run *x, enum status *st)
{
	bool go_on = true;
	while (lns_round(x, &go_on, st) && go_on)
		;
	return go_on && !*st;
}

/*
 * A kick, at a local optimum: the same schedule with the W's of devices
 * 0..upto-1 deferred (schedule_defer_weights), itself no better, is
 * descended from; if that ends below the local optimum it replaces it
 * (*local: whether the new one is a local optimum, so the caller kicks
 * again), else the local optimum stands (*local false when the clock cut
 * the kick's descent: it was not refuted). Returns whether it replaced.
 * Measured (p8 m16 split, p activations, one core, 10 s runs): comm 1,
 * costs (2, 3, 1): a local optimum at 157 -> every device's W's deferred
 * 167 -> 154; from 154 the first four devices' W's deferred 161 -> 153,
 * the optimum (every device's: back to 154); comm 2, costs (3, 4, 2):
 * 237 -> 253 -> 236 (bound 235). The W's of those local optima sit where
 * the optimum has none, one or two per neighbourhood cannot all move, and
 * their order on every device at once can.
 */
static bool kick(struct lns_run *x, int upto, bool *local, enum status *st)
{
	struct schedule *k = schedule_defer_weights(x->in, *x->sc, upto);
	struct sim_result sr;
	if (!k || schedule_same_orders(k, *x->sc) || sim_run(x->sim, k, &sr, NULL)) {
		schedule_free(k);
		*local = true;
		return false;   /* nothing to kick: the local optimum stands */
	}
	int64_t kv = sr.objective;
	double best_at = x->r->time_to_best;
	struct lns_run y = *x;
	y.sc = &k;
	y.obj = &kv;
	bool kl = descend(&y, st);
	if (!*st && kv < *x->obj) {
		schedule_free(*x->sc);
		*x->sc = k;
		*x->obj = kv;
		*local = kl;
		return true;
	}
	schedule_free(k);
	x->r->time_to_best = best_at;   /* the kick's own steps were no best */
	*local = kl;
	return false;
}

enum status lns_improve(const struct instance *in, const struct lns_options *o,
			struct schedule **sc, int64_t *obj, struct lns_result *r,
			struct error *err)
{
	memset(r, 0, sizeof *r);
	struct lns_run x = {.in = in, .o = o, .t0 = clock_seconds(),
			    .per = o->window_time > 0 ? o->window_time : 1, .sc = sc, .obj = obj,
			    .r = r, .err = err};
	if (!lns_takes(in)) {
		r->local_optimum = true;   /* no neighbourhood applies: a rerun finds nothing */
		return STATUS_OK;
	}
	x.sim = sim_new(in);
	x.h.from = malloc(in->devices * sizeof *x.h.from);
	x.h.to = malloc(in->devices * sizeof *x.h.to);
	enum status st = STATUS_OK;
	if (!x.sim || !x.h.from || !x.h.to) {
		st = err_set(err, "lns: out of memory");
	} else {
		/* the kicks in turn: every device's W's, then the first half's
		 * (lns_takes: at least two devices); one that improves starts
		 * them again */
		int kicks[2] = {in->devices, in->devices / 2}, i = 0;
		bool local = descend(&x, &st);
		while (local && !st && *obj > o->lower_bound && i < 2)
			i = kick(&x, kicks[i], &local, &st) ? 0 : i + 1;
		r->local_optimum = local && !st;   /* the rounds and the kicks found nothing */
	}
	sim_free(x.sim);
	free(x.h.from);
	free(x.h.to);
	r->seconds = clock_seconds() - x.t0;
	return st;
}

enum status lns_improve_starts(const struct instance *in, const struct lns_options *o,
			       struct schedule *const *starts, int n, struct schedule **best,
			       int64_t *obj, struct lns_result *r, struct error *err)
{
	double t0 = clock_seconds();
	memset(r, 0, sizeof *r);
	r->from = -1;
	struct sim *sim = sim_new(in);
	if (!sim)
		return err_set(err, "lns: out of memory");
	enum status st = STATUS_OK;
	for (int i = 0; i < n && *obj > o->lower_bound && !stop_requested(); i++) {
		double left = o->time_limit - (clock_seconds() - t0);
		if (o->time_limit > 0 && left <= 0.01)
			break;
		struct lns_options one = *o;
		one.time_limit = o->time_limit > 0 ? left / (n - i) : 0;
		struct schedule *sc = schedule_copy(starts[i]);
		struct sim_result sr;
		struct lns_result one_r;
		if (!sc) {
			st = err_set(err, "lns: out of memory");
			break;
		}
		int64_t v = 0;
		if ((st = sim_run(sim, sc, &sr, err)) == STATUS_OK) {
			v = sr.objective;
			st = lns_improve(in, &one, &sc, &v, &one_r, err);
		}
		if (st) {
			schedule_free(sc);
			break;
		}
		r->windows += one_r.windows;
		r->improvements += one_r.improvements;
		r->nodes += one_r.nodes;
		if (i == 0 || v < *obj)
			r->local_optimum = one_r.local_optimum;
		if (v < *obj) {
			schedule_free(*best);
			*best = sc;
			*obj = v;
			r->from = i;
			r->time_to_best = clock_seconds() - t0;
		} else {
			schedule_free(sc);
		}
	}
	sim_free(sim);
	r->seconds = clock_seconds() - t0;
	return st;
}
