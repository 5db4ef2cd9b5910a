/* The search over periods (periodic.h). */
#include "solvers/periodic.h"

#include <string.h>

#include "common/clock.h"
#include "common/stop.h"
#include "formulate/periodic.h"
#include "sched/sim.h"
#include "solvers/solver.h"

struct search {
	const struct instance *in;
	const struct solver_backend *b;
	struct sim *sim;
	double end, cap;
	struct periodic_result *r;
	struct error *err;
};

/* Ask period P; *found when a schedule came back (kept if best). */
static enum status probe(struct search *s, int64_t P, bool *found)
{
	*found = false;
	double left = s->end - clock_seconds();
	struct periodic_milp *pm = periodic_milp_build(s->in, P, s->err);
	if (!pm)
		return STATUS_ERROR;
	/* the first probe, at the hint, gets half the time: it is the one
	 * most likely to have a schedule, and the descent starts from it
	 * (DeepSeek-like, 8 devices, v-min's memory: CBC needs about 1.1 s at
	 * v-min's period 246, which a 10 s search's 1 s cap missed) */
	double cap = s->r->probes ? s->cap : 2.5 * s->cap;
	struct solver_options so = {.time_limit = left < cap ? left : cap, .threads = 1,
				    .abs_gap = 0.999};
	struct solver_result res = {0};
	enum status st = solver_solve_isolated(s->b, pm->m, &so, &res, s->err);
	s->r->probes++;
	if (st && res.crash_signal)
		st = STATUS_OK;   /* a crashed probe answers nothing */
	struct schedule *sc = !st && res.has_solution ? periodic_unroll(pm, res.x) : NULL;
	struct sim_result sr;
	if (sc && sim_run(s->sim, sc, &sr, NULL) == STATUS_OK) {
		*found = true;
		if (!s->r->shortest || P < s->r->shortest)
			s->r->shortest = P;
		if (!s->r->schedule || sr.objective < s->r->makespan) {
			schedule_free(s->r->schedule);
			s->r->schedule = sc;
			s->r->period = P;
			s->r->makespan = sr.objective;
			sc = NULL;
		}
	}
	schedule_free(sc);
	solver_result_release(&res);
	periodic_milp_free(pm);
	return st;
}

static bool time_left(const struct search *s)
{
	return !stop_requested() && s->end - clock_seconds() > 0.05;
}

enum status periodic_search(const struct instance *in, const struct periodic_options *o,
			    struct periodic_result *r, struct error *err)
{
	double t0 = clock_seconds();
	memset(r, 0, sizeof *r);
	if (!(r->taken = periodic_takes(in)))
		return STATUS_OK;
	struct search s = {.in = in, .b = solver_find(o->solver ? o->solver : "cbc"),
			   .end = t0 + o->time_limit, .cap = o->time_limit / 5, .r = r,
			   .err = err};
	if (!s.b)
		return err_set(err, "periodic: unknown solver '%s'", o->solver);
	r->least = periodic_min_period(in);
	if (o->hint > 0 && o->hint <= r->least) {
		/* the seed's steady state already has the least period: no
		 * 1-periodic schedule repeats faster */
		r->seed_at_least = true;
		return STATUS_OK;
	}
	if (!(s.sim = sim_new(in)))
		return err_set(err, "periodic: out of memory");
	enum status st;
	/* From the hint (a seed's steady state): if it has a schedule, down
	 * by 1, 2, 4, ... while each period has one; else up by eighths of the
	 * least until one has. Then bisection: lo has none (periods below the
	 * least have none), hi has one. */
	int64_t step = r->least / 8 > 0 ? r->least / 8 : 1;
	int64_t P = o->hint > r->least ? o->hint : r->least, lo = r->least - 1, hi = 0;
	bool found = false;
	st = probe(&s, r->first = P, &found);
	if (!st && found) {
		hi = P;
		for (int64_t d = 1; !st && hi - 1 > lo && time_left(&s); d *= 2) {
			int64_t q = hi - d > lo + 1 ? hi - d : lo + 1;
			bool ok;
			st = probe(&s, q, &ok);
			if (!ok) {
				lo = q;
				break;
			}
			hi = q;
		}
	} else {
		for (lo = P, P += step; !st && !found && time_left(&s) && P <= 8 * r->least; P += step) {
			st = probe(&s, P, &found);
			if (found)
				hi = P;
			else
				lo = P;
		}
	}
	while (!st && hi && hi - lo > 1 && time_left(&s)) {
		int64_t mid = lo + (hi - lo) / 2;
		bool ok;
		st = probe(&s, mid, &ok);
		if (ok)
			hi = mid;
		else
			lo = mid;
	}
	sim_free(s.sim);
	r->seconds = clock_seconds() - t0;
	if (st) {
		periodic_result_release(r);
		return STATUS_ERROR;
	}
	return STATUS_OK;
}

void periodic_result_release(struct periodic_result *r)
{
	schedule_free(r->schedule);
	r->schedule = NULL;
}
