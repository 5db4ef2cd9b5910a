/* The solve method: the exact procedure of solvers/exact.c. */
#include "methods/method.h"
#include "methods/settings.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/stop.h"
#include "formulate/formulation.h"
#include "ga/ga.h"
#include "solvers/solver.h"

const char *solve_formulation_at(int i)
{
	if (i == 0)
		return "auto";
	return i >= 1 && i <= formulation_count() ? formulation_at(i - 1)->name : NULL;
}

const char *solve_solver_at(int i)
{
	return solver_name_at(i);
}

#define OFF(f) offsetof(struct solve_settings, f)
const struct opt solve_opts[] = {
	{.name = "solver", .type = OPT_CHOICE, .choice = solve_solver_at, .dflt = "cbc",
	 .offset = OFF(solver), .where = OPT_BOTH, .help = "the MILP solver"},
	{.name = "formulation", .type = OPT_CHOICE, .choice = solve_formulation_at, .dflt = "auto",
	 .offset = OFF(formulation), .where = OPT_BOTH,
	 .help = "the schedule MILP (auto: the time-indexed targets where that model is small, else the disjunctive targets, then the disjunctive model with the incumbent; solvers/README.md)"},
	{.name = "cross-check", .type = OPT_FLAG, .offset = OFF(cross_check), .where = OPT_BOTH,
	 .help = "also solve with the other solver; fail if they disagree"},
	{.name = "always-milp", .type = OPT_FLAG, .offset = OFF(always_milp), .where = OPT_BOTH,
	 .help = "solve the MILP even when a heuristic meets the bound"},
	{.name = "ga-start", .type = OPT_BOOL, .dflt = "true", .offset = OFF(ga_start),
	 .where = OPT_BOTH,
	 .help = "a short GA run first (at most 2 s) supplies a schedule to beat; past 512 ops, after the local search, search's GA with its seeds (60 % of the time left)"},
	{0}};

void solve_exact_options(const struct solve_settings *s, const struct run_opts *run,
			 struct exact_options *o)
{
	memset(o, 0, sizeof *o);
	o->solver = s->solver;
	o->formulation = s->formulation;
	o->cross_check = s->cross_check;
	o->always_milp = s->always_milp;
	o->time_limit = run->time_limit;
	o->threads = run_opts_threads_value(run);
	if (s->ga_start)
		o->improve = solve_search;
}

/* exact_options.improve: `search`'s GA with its defaults and every seed
 * of its own (the exact solve of a reduced instance stretched, the
 * shortest 1-periodic schedule, the K-periodic orders, the local search),
 * the solve's best schedule one more seed, stopping at the solve's bound
 * (its target). A GA that fails (out of memory) leaves *out NULL and the
 * solve goes on without it. */
enum status solve_search(void *ctx, const struct instance *in, double seconds, int threads,
			 const struct schedule *start, int64_t bound, struct schedule **out,
			 struct error *err)
{
	struct search_settings s;
	struct opt_set set = {.cmd = "solve"};
	struct run_opts run = {.threads = threads, .time_limit = seconds};
	struct ga_options g;
	struct ga_result gr;
	const struct schedule *extra[1] = {start};
	const char *names[1] = {"solve's best"};
	opts_add(&set, search_opts, &s);
	opts_defaults(&set);
	s.target = bound > 0 ? bound : 0;
	search_ga_options(&s, &run, &g);
	g.nextra = 1;
	g.extra = extra;
	g.extra_names = names;
	struct error ignored;
	(void)ctx;
	(void)err;
	*out = NULL;
	if (ga_run(in, &g, &gr, &ignored))
		return STATUS_OK;   /* as with the GA start: the solve goes on */
	*out = gr.schedule;
	gr.schedule = NULL;
	ga_result_release(&gr);
	return STATUS_OK;
}

/*
 * Why a GA first: the bounds now meet most optima, and what an exact
 * solve then lacks is the schedule. On p4 m16 fused, 2p activations,
 * comm 1 the LP bound is 63 at the root while CBC's incumbent stays at 65
 * for minutes; the GA finds 63 in 0.01 s. Generations, not time, stop it,
 * so the result is the same on any machine unless the time cap bites.
 * 1000 of them, not 300: on a 4-device interleaved instance with W,
 * memory and the span objective (where solve leans on its heuristics:
 * the MILPs only relax the span) 300 gave 207, 1000 give 195 in 0.41 s;
 * on p8 m16-m32 grid instances 1000 take 0.5-0.8 s (300: 0.2-0.3 s).
 * The caller's start is one of its seeds, and the GA never returns worse
 * than its best seed, so its schedule replaces the start; NULL when the
 * GA fails (the solve goes on without it).
 */
static struct schedule *ga_start(const struct instance *in, const struct exact_options *o)
{
	struct ga_options g;
	struct ga_result gr;
	struct error ignored;
	const struct schedule *extra[1] = {o->start};
	const char *names[1] = {"--start"};
	ga_options_init(&g);
	g.exact_seed = false;
	g.threads = 1;
	g.generations = 1000;
	g.time_limit = o->time_limit > 0 && o->time_limit * 0.1 < 2 ? o->time_limit * 0.1 : 2;
	g.nextra = o->start ? 1 : 0;
	g.extra = extra;
	g.extra_names = names;
	if (ga_run(in, &g, &gr, &ignored))
		return NULL;
	struct schedule *sc = gr.schedule;
	gr.schedule = NULL;
	ga_result_release(&gr);
	return sc;
}

enum status solve_with_ga_start(const struct instance *in, const struct solve_settings *s,
				const struct exact_options *o, struct exact_result *r,
				struct error *err)
{
	double t0 = clock_seconds();
	struct schedule *ga = s->ga_start ? ga_start(in, o) : NULL;
	struct exact_options x = *o;
	/* the limit is the whole solve's, the GA start's time included */
	if (x.time_limit > 0 && x.kill_at <= 0)
		x.kill_at = stop_kill_at(t0, o->time_limit);
	if (ga) {
		x.start = ga;
		x.start_name = "ga";
	}
	if (x.time_limit > 0) {
		x.time_limit -= clock_seconds() - t0;
		if (x.time_limit < 0.05)
			x.time_limit = 0.05;
	}
	enum status st = exact_solve(in, &x, r, err);
	if (!st)
		r->seconds = clock_seconds() - t0;   /* the GA's time included */
	schedule_free(ga);
	return st;
}

static enum outcome outcome_of(const char *status)
{
	return !strcmp(status, "optimal") ? OUTCOME_OPTIMAL :
	       !strcmp(status, "time_limit") ? OUTCOME_TIME_LIMIT : OUTCOME_FEASIBLE;
}

struct verdict solve_verdict(const struct exact_result *x, int64_t simulated)
{
	/* exact.c certifies only after its own re-simulation; ours must agree */
	bool agree = simulated == x->objective;
	struct verdict v = verdict_of((double)simulated, (double)x->bound, x->certified && agree,
				      x->certified_by, outcome_of(x->status));
	v.integral = true;
	return v;
}

static enum status run(const struct method_call *c, struct method_result *r, struct error *err)
{
	struct exact_options o;
	struct exact_result x = {0};
	struct error why;
	solve_exact_options(c->settings, c->run, &o);
	r->extra = json_pack("{s:s}", "solver", o.solver);
	if (solve_with_ga_start(c->in, c->settings, &o, &x, &why)) {
		method_refuse(r, OUTCOME_ERROR, why.msg);
		return STATUS_OK;
	}
	if (x.solved)
		json_object_set_new(r->extra, "solver_version", json_string(x.solver_version));
	r->schedule = x.schedule;
	x.schedule = NULL;
	if (r->schedule && method_simulate(c, r, OUTCOME_ERROR)) {
		bool agree = (int64_t)r->v.objective == x.objective;
		r->v = solve_verdict(&x, (int64_t)r->v.objective);
		if (!agree) {
			r->v.outcome = OUTCOME_ERROR;
			snprintf(r->error, sizeof r->error,
				 "the solver's objective and the re-simulation disagree");
		}
	}
	exact_result_release(&x);
	return STATUS_OK;
}

const struct method method_solve = {
	.name = "solve",
	.summary = "an optimal schedule with a certificate (bounds, families, MILP)",
	.opts = solve_opts,
	.size = sizeof(struct solve_settings),
	.time_limit = "60",
	.threads = "1",
	.run = run,
};
