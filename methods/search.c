/* The search method: the genetic algorithm (ga/), seeded by the exact
 * solve of the instance (or of a reduced one) through solvers/exact.c. */
#include "methods/method.h"
#include "methods/settings.h"

#include <inttypes.h>
#include <stdio.h>

#include "formulate/periodic.h"
#include "solvers/cyclic.h"
#include "solvers/lns.h"
#include "solvers/periodic.h"

#define OFF(f) offsetof(struct search_settings, f)
const struct opt search_opts[] = {
	{.name = "seed", .type = OPT_SEED, .arg = "N", .dflt = "1", .offset = OFF(seed),
	 .where = OPT_CLI, .help = "random seed (a sweep gives \"seeds\", one task each)"},
	{.name = "population", .type = OPT_INT, .arg = "P", .dflt = "64", .lo = 4, .hi = 100000,
	 .offset = OFF(population), .where = OPT_BOTH, .help = "individuals per generation"},
	{.name = "generations", .type = OPT_INT, .arg = "G", .dflt = "none", .lo = 1, .hi = 1e12,
	 .offset = OFF(generations), .where = OPT_BOTH, .help = "stop after G generations"},
	{.name = "stall", .type = OPT_INT, .arg = "G", .dflt = "none", .lo = 1, .hi = 1e12,
	 .offset = OFF(stall), .where = OPT_BOTH,
	 .help = "stop after G generations without improvement"},
	{.name = "gap", .type = OPT_NUMBER, .arg = "EPS", .dflt = "0", .lo = 0, .hi = 1,
	 .offset = OFF(gap), .where = OPT_BOTH, .help = "stop when (best - bound) / best <= EPS"},
	{.name = "target", .type = OPT_INT, .arg = "N", .dflt = "none", .lo = 1, .hi = 9e18,
	 .offset = OFF(target), .where = OPT_BOTH,
	 .help = "stop when the objective is <= N (a known optimum)"},
	{.name = "family-seeds", .type = OPT_BOOL, .dflt = "true", .offset = OFF(family_seeds),
	 .where = OPT_BOTH, .help = "seed with the predefined families"},
	{.name = "exact-seed", .type = OPT_BOOL, .dflt = "true", .offset = OFF(exact_seed),
	 .where = OPT_BOTH, .help = "seed with an exact solve (whole up to 600 ops, else reduced)"},
	{.name = "local-search", .type = OPT_BOOL, .dflt = "true", .offset = OFF(local_search),
	 .where = OPT_BOTH,
	 .help = "polish the best seeds, and the best at each restart, by exact neighbourhoods (runs bounded by time alone)"},
	{.name = "exact-seed-time", .type = OPT_NUMBER, .arg = "S",
	 .dflt = "80 % of the limit alongside the GA (whole instances), else a quarter, at most 10", .lo = 1e-3, .hi = 1e7,
	 .offset = OFF(exact_seed_time), .where = OPT_BOTH, .help = "seconds for that solve"},
	{0}};

void search_ga_options(const struct search_settings *s, const struct run_opts *run,
		       struct ga_options *o)
{
	ga_options_init(o);
	o->seed = s->seed;
	o->population = (int)s->population;
	o->generations = s->generations;
	o->stall = s->stall;
	o->gap = s->gap;
	o->target = s->target;
	o->family_seeds = s->family_seeds != 0;
	o->exact_seed = s->exact_seed != 0;
	o->exact_seed_time = s->exact_seed_time;
	o->exact_alongside = true;
	o->time_limit = run->time_limit;
	o->threads = run_opts_threads_value(run);
	o->exact_solve = search_exact_seed;
	o->periodic = search_periodic_seed;
	o->cyclic = search_cyclic_seed;
	o->polish = s->local_search ? search_polish : NULL;
}

enum status search_polish(void *ctx, const struct instance *in, double seconds,
			  struct schedule *const *starts, int n, struct schedule **sc,
			  int64_t *obj, int *from, bool *local_optimum)
{
	struct lns_options lo = {.time_limit = seconds, .window_time = 0.1};
	struct lns_result lr;
	struct error err;
	(void)ctx;
	enum status st = lns_improve_starts(in, &lo, starts, n, sc, obj, &lr, &err);
	*from = lr.from;
	*local_optimum = lr.local_optimum;
	return st;
}

enum status search_exact_seed(void *ctx, const struct instance *small, double seconds,
			      struct schedule **out, int64_t *bound, char *note, int note_len)
{
	/* as a seed its schedules matter more than the MILP's bound: 40 % of
	 * the time for the exact search, the rest for the MILP from the
	 * families' best, by auto, whose time-indexed targets go first where
	 * their model is small and reach the optimum from below (search 10 s,
	 * p activations, comm 1: p4 m12 split 55 proven at 2.5 s, where the
	 * disjunctive model left 56/54 at 8 s; p8 m16 fused 99 at 4.1 s,
	 * where it stayed at 100). 40 %, not a fifth: the exact search
	 * proves V p2 m8 (3, 4, 2) at v-min's memory (178) with 1.9 s of one
	 * core, which a fifth of the 8 s, on a core shared with the GA, did
	 * not give (179); with 40 % search 10 s reaches all 20 certified
	 * optima of bench/results/vfamilies-small.md on seeds 1 and 2 (19
	 * before), and bench/search.sh's grid classes as before (22 of 23) */
	struct exact_options o = {.solver = "cbc", .formulation = "auto",
				  .time_limit = seconds, .threads = 1, .search_share = 0.4};
	struct exact_result r = {0};
	struct error err;
	(void)ctx;
	*out = NULL;
	*bound = 0;
	if (exact_solve(small, &o, &r, &err)) {
		snprintf(note, note_len, "%s", err.msg);
		return STATUS_ERROR;
	}
	snprintf(note, note_len, "%s%s (objective %" PRId64 ", bound %" PRId64 ", %.1f s)",
		 r.status, r.certified ? ", certified" : "", r.objective, r.bound, r.seconds);
	*out = r.schedule;
	*bound = r.bound;
	r.schedule = NULL;
	exact_result_release(&r);
	return STATUS_OK;
}

enum status search_periodic_seed(void *ctx, const struct instance *in, double seconds,
				 int64_t hint, struct schedule **out, char *note, int note_len)
{
	struct periodic_options o = {.time_limit = seconds, .hint = hint};
	struct periodic_result r;
	struct error err;
	(void)ctx;
	*out = NULL;
	if (periodic_search(in, &o, &r, &err)) {
		snprintf(note, note_len, "%s", err.msg);
		return STATUS_ERROR;
	}
	if (!r.taken)
		snprintf(note, note_len, "the periodic model does not take the instance (decisions, or a stage's memory deltas not F >= 0, F + B >= 0, sum 0)");
	else if (r.seed_at_least)
		snprintf(note, note_len, "not asked: the best seed's steady state repeats every %" PRId64 ", the least possible period",
			 r.least);
	else if (r.schedule)
		snprintf(note, note_len, "period %" PRId64 " (shortest found %" PRId64 ", least possible %" PRId64 "), %d periods asked from %" PRId64 " in %.1f s",
			 r.period, r.shortest, r.least, r.probes, r.first, r.seconds);
	else
		snprintf(note, note_len, "no period found (least possible %" PRId64 "), %d periods asked from %" PRId64 " in %.1f s",
			 r.least, r.probes, r.first, r.seconds);
	*out = r.schedule;
	return STATUS_OK;
}

enum status search_cyclic_seed(void *ctx, const struct instance *in, double seconds,
			       int64_t hint, uint64_t seed, const struct schedule *start,
			       struct schedule **out, char *note, int note_len)
{
	struct cyclic_options o = {.K_max = cyclic_default_rounds(in), .time_limit = seconds,
				   .seed = seed};
	struct cyclic_result r;
	struct error err;
	(void)ctx;
	*out = NULL;
	if (!cyclic_takes(in, 1)) {
		snprintf(note, note_len, "the cyclic search does not take the instance (decisions, or m < 2)");
		return STATUS_OK;
	}
	if (hint > 0 && hint <= periodic_min_period(in)) {
		snprintf(note, note_len, "not run: the best seed's steady state repeats every %" PRId64 ", the least possible period",
			 hint);
		return STATUS_OK;
	}
	if (cyclic_search(in, start, &o, &r, &err)) {
		snprintf(note, note_len, "%s", err.msg);
		return STATUS_ERROR;
	}
	if (r.schedule)
		snprintf(note, note_len, "%d-periodic orders from the best seed: %" PRId64 ", %ld moves of %ld evaluated in %.1f s",
			 r.K, r.objective, r.moves, r.evaluations, r.seconds);
	else
		snprintf(note, note_len, "nothing better than the best seed in K = 1..%d (its 1-periodic unrolling %" PRId64 "), %ld evaluated in %.1f s",
			 o.K_max, r.start_objective, r.evaluations, r.seconds);
	*out = r.schedule;
	return STATUS_OK;
}

static enum status run(const struct method_call *c, struct method_result *r, struct error *err)
{
	struct search_settings s = *(const struct search_settings *)c->settings;
	struct ga_options o;
	struct ga_result g;
	struct error why;
	s.seed = c->seed;
	search_ga_options(&s, c->run, &o);
	if (ga_run(c->in, &o, &g, &why)) {
		method_refuse(r, OUTCOME_ERROR, why.msg);
		return STATUS_OK;
	}
	r->schedule = g.schedule;
	g.schedule = NULL;
	method_simulate(c, r, OUTCOME_ERROR);
	r->extra = json_pack("{s:I,s:f}", "generations", (json_int_t)g.generations,
			     "time_to_best", g.time_to_best);
	ga_result_release(&g);
	return STATUS_OK;
}

const struct method method_search = {
	.name = "search",
	.summary = "the genetic algorithm, seeded by families and an exact solve",
	.opts = search_opts,
	.size = sizeof(struct search_settings),
	.time_limit = "20",
	.threads = "all cores",
	.run = run,
};
