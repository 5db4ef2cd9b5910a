/* pipeopt solve INSTANCE: the optimal schedule and a certificate. */
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sched/render.h"
#include "methods/method.h"
#include "methods/settings.h"
#include "solvers/exact.h"

static const char usage_text[] =
	"usage: pipeopt solve INSTANCE [options]\n\n"
	"Find an optimal schedule and prove it. The best predefined family gives\n"
	"an upper bound and the lower bounds of 'pipeopt bound' a lower one; if\n"
	"they meet, that schedule is optimal without a MILP (certified by the\n"
	"bound). Otherwise, for the makespan, the window bounds of 'pipeopt\n"
	"bound --windows' run for a tenth of the time, again while they raise the\n"
	"bound (at most 10 s in all); past 512 ops a search over K-periodic orders,\n"
	"the local search and then the GA of 'pipeopt search' with its seeds (60 %\n"
	"of the time left, unless --no-ga-start) improve the best schedule first;\n"
	"then the exact search (a branch and bound\n"
	"over schedules), then a MILP starting from the best schedule; the\n"
	"result is certified when one of them proves optimality and the\n"
	"schedule, re-simulated, has exactly that objective.\n"
	"At the time limit the best schedule is returned with its bound and gap.\n"
	"--threads is the MILP solver's threads.\n";

struct solve_opts {
	struct solve_settings s;
	struct run_opts run;
	const char *start, *write_lp, *write_mps;
	bool verbose;
};

#define OFF(f) offsetof(struct solve_opts, f)
static const struct opt cli_table[] = {
	{.name = "start", .type = OPT_STRING, .arg = "FILE", .offset = OFF(start), .where = OPT_CLI,
	 .help = "an extra candidate schedule (json or torch csv; also a seed of the GA start)"},
	{.name = "write-lp", .type = OPT_STRING, .arg = "FILE", .offset = OFF(write_lp),
	 .where = OPT_CLI, .help = "write the MILP in CPLEX LP format"},
	{.name = "write-mps", .type = OPT_STRING, .arg = "FILE", .offset = OFF(write_mps),
	 .where = OPT_CLI, .help = "write the MILP in free MPS format"},
	{.name = "verbose", .type = OPT_FLAG, .offset = OFF(verbose), .where = OPT_CLI,
	 .help = "the solver's own log on stderr"},
	{0}};

static int parse(int argc, char **argv, struct solve_opts *o, char **instance)
{
	struct opt_set set;
	memset(o, 0, sizeof *o);
	method_opt_set(&method_solve, &o->s, &o->run, &set);
	opts_add(&set, cli_table, o);
	cli_shared(&set, &o->run, CLI_JSON | CLI_OUTPUT | CLI_PROGRESS | CLI_TIMELINE);
	int npos;
	return cli_parse(&set, usage_text, argc, argv, instance, 1, 1, &npos,
			 "expected one INSTANCE file");
}

/* The solve's incumbent and proven bound (exact.c pass_progress: a MILP
 * pass runs only with a schedule, so there is always an incumbent). */
static void progress(void *ctx, double incumbent, double bound)
{
	(void)ctx;
	fprintf(stderr, "\r  incumbent %.10g, bound %.10g, gap %.2f %%   ", incumbent, bound,
		100 * verdict_gap(incumbent, bound));
}

/* `resimulated`: the returned schedule, simulated again here, has exactly
 * the objective the procedure reports. */
static json_t *certificate(const struct instance *in, const struct exact_result *r,
			   bool resimulated)
{
	char digest[65];
	instance_digest(in, digest);
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:f,s:I,s:f,s:{s:b,s:b,s:s},s:b}",
		"instance_sha256", digest,
		"certified_by", r->certified_by ? r->certified_by : "none",
		"solver", r->solved ? r->solver : "none",
		"solver_version", r->solved ? r->solver_version : "none",
		"formulation", r->solved ? r->formulation : "none",
		"objective", (json_int_t)r->objective, "bound", (json_int_t)r->bound,
		"gap", r->gap, "nodes", (json_int_t)r->nodes, "seconds", r->seconds,
		"checks", "bound_meets_objective", r->bound >= r->objective,
		"simulator", resimulated, "cross_check", r->cross_check,
		"certified", r->certified && resimulated);
}

/* Every setting of the solve's table and the shared ones it takes. */
static json_t *settings_json(const struct solve_opts *o)
{
	struct opt_set set;
	struct solve_opts copy = *o;
	method_opt_set(&method_solve, &copy.s, &copy.run, &set);
	json_t *j = opts_to_json(&set);
	json_object_set_new(j, "threads", json_integer(run_opts_threads_value(&o->run)));
	return j;
}

static json_t *result_json(const struct instance *in, const struct solve_opts *o,
			   const struct exact_result *r, const struct sim_result *sr)
{
	json_t *j = cli_result_json(in, sr, r->lower_bound);
	struct verdict v = solve_verdict(r, sr->objective);
	verdict_json(&v, j);
	json_object_set_new(j, "lower_bound_by", json_string(r->lower_bound_by));
	if (r->stopped_by)
		json_object_set_new(j, "stopped_by", json_string(r->stopped_by));
	if (r->window_windows)
		json_object_set_new(j, "window_bound", r->window_lo >= 0 ?
			json_pack("{s:[i,i],s:i,s:f}", "devices", r->window_lo, r->window_hi,
				  "windows", r->window_windows, "seconds", r->window_seconds) :
			json_pack("{s:n,s:i,s:f}", "devices", "windows", r->window_windows,
				  "seconds", r->window_seconds));
	if (r->shave_ran)
		json_object_set_new(j, "shave_bound", json_pack("{s:i,s:I,s:I,s:o,s:f}",
			"refuted", r->shave_refuted, "propagations",
			(json_int_t)r->shave_propagations, "search_nodes",
			(json_int_t)r->shave_nodes, "objective", r->shave_objective ?
			json_integer(r->shave_objective) : json_null(), "seconds",
			r->shave_seconds));
	if (r->improve_ran)
		json_object_set_new(j, "ga_search", json_pack("{s:I,s:o,s:f}", "from",
			(json_int_t)r->improve_from, "objective", r->improve_objective ?
			json_integer(r->improve_objective) : json_null(), "seconds",
			r->improve_seconds));
	if (r->cyclic_ran)
		json_object_set_new(j, "cyclic", json_pack("{s:o,s:i,s:I,s:f}",
			"objective", r->cyclic_objective ? json_integer(r->cyclic_objective) :
			json_null(), "K", r->cyclic_K, "evaluations",
			(json_int_t)r->cyclic_evaluations, "seconds", r->cyclic_seconds));
	if (r->lns_windows)
		json_object_set_new(j, "local_search", json_pack("{s:i,s:i,s:I,s:f}",
			"neighbourhoods", r->lns_windows, "improvements", r->lns_improvements,
			"objective", (json_int_t)r->lns_objective, "seconds", r->lns_seconds));
	if (r->solver_crashes)
		json_object_set_new(j, "solver_crashes", json_integer(r->solver_crashes));
	if (r->search_nodes)
		json_object_set_new(j, "search", json_pack("{s:I,s:f}", "nodes",
				    (json_int_t)r->search_nodes, "seconds", r->search_seconds));
	json_object_set_new(j, "heuristic", json_pack("{s:s,s:I}", "family", r->heuristic,
		"objective", (json_int_t)r->heuristic_objective));
	if (r->solved) {
		json_object_set_new(j, "solver", json_string(r->solver));
		json_object_set_new(j, "solver_version", json_string(r->solver_version));
		json_object_set_new(j, "formulation", json_string(r->formulation));
		json_object_set_new(j, "solver_status", json_string(r->solver_outcome));
		json_object_set_new(j, "nodes", json_integer(r->nodes));
		json_object_set_new(j, "columns", json_integer(r->columns));
		json_object_set_new(j, "rows", json_integer(r->rows));
		json_object_set_new(j, "binaries", json_integer(r->binaries));
	}
	if (strcmp(r->cross_check, "not run"))
		json_object_set_new(j, "cross_check", json_pack("{s:s,s:s}", "result",
			r->cross_check, "detail", r->cross_detail));
	json_object_set_new(j, "certificate", certificate(in, r, sr->objective == r->objective));
	json_object_set_new(j, "settings", settings_json(o));
	json_object_set_new(j, "schedule", schedule_to_json(r->schedule));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	return j;
}

static void print_human(const struct instance *in, const struct run_opts *ro,
			const struct exact_result *r, const struct schedule *s,
			const struct sim_result *sr)
{
	cli_print_instance(in);
	printf("heuristic   %s: %" PRId64 "; lower bound %" PRId64 " (%s", r->heuristic,
	       r->heuristic_objective, r->lower_bound, r->lower_bound_by);
	if (r->window_lo >= 0)
		printf(": devices %d-%d exact, the others relaxed", r->window_lo, r->window_hi);
	printf(")\n");
	if (r->improve_ran && r->improve_objective)
		printf("ga search   %" PRId64 " -> %" PRId64 " (%.2f s)\n", r->improve_from,
		       r->improve_objective, r->improve_seconds);
	else if (r->improve_ran)
		printf("ga search   nothing better than %" PRId64 " (%.2f s)\n", r->improve_from,
		       r->improve_seconds);
	if (r->cyclic_ran && r->cyclic_objective)
		printf("cyclic      %d-periodic orders: %" PRId64 " (%ld evaluated, %.2f s)\n",
		       r->cyclic_K, r->cyclic_objective, r->cyclic_evaluations, r->cyclic_seconds);
	else if (r->cyclic_ran)
		printf("cyclic      K-periodic orders: nothing better (%ld evaluated, %.2f s)\n",
		       r->cyclic_evaluations, r->cyclic_seconds);
	if (r->lns_windows)
		printf("local search %d neighbourhoods, %d better: %" PRId64 " -> %" PRId64 ", %.2f s\n",
		       r->lns_windows, r->lns_improvements, r->lns_from, r->lns_objective,
		       r->lns_seconds);
	if (r->solved)
		printf("milp        %s %s, %s formulation: %d columns (%d binaries), %d rows; %s after %ld nodes, %.2f s\n",
		       r->solver, r->solver_version, r->formulation, r->columns, r->binaries,
		       r->rows, r->solver_outcome, r->nodes, r->solver_seconds);
	if (r->solver_crashes)
		printf("warning     the solver's process crashed in %d MILP pass%s; %s answered nothing, the rest stands\n",
		       r->solver_crashes, r->solver_crashes > 1 ? "es" : "",
		       r->solver_crashes > 1 ? "they" : "it");
	if (strcmp(r->cross_check, "not run"))
		printf("cross-check %s (%s)\n", r->cross_check, r->cross_detail);
	printf("status      %s%s%s%s%s%s\n", r->status, r->certified ? ", certified by the " : "",
	       r->certified ? r->certified_by : "", r->certified ? "" : " (not proven optimal)",
	       r->stopped_by ? ", stopped by " : "", r->stopped_by ? r->stopped_by : "");
	cli_print_result(in, sr, r->bound);
	if (ro->timeline) {
		char *text = render_ascii(in, s, sr, (int)ro->width);
		if (text)
			fputs(text, stdout);
		free(text);
	}
}

int cmd_solve(int argc, char **argv)
{
	struct solve_opts o;
	struct exact_options x;
	char *path;
	int rc = parse(argc, argv, &o, &path);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct instance *in = NULL;
	struct schedule *start = NULL;
	struct exact_result r = {0};
	struct sim *sim = NULL;
	struct sim_result sr;
	solve_exact_options(&o.s, &o.run, &x);
	x.write_lp = o.write_lp;
	x.write_mps = o.write_mps;
	x.verbose = o.verbose;
	if (run_opts_progress_on(&o.run))
		x.progress = progress;
	if (instance_read(path, &in, &err) ||
	    (o.start && cli_read_schedule(o.start, FMT_NONE, in, &start, &err))) {
		rc = cli_fail(o.run.json, &err);
		goto out;
	}
	x.start = start;
	if (solve_with_ga_start(in, &o.s, &x, &r, &err) ||
	    cli_simulate(in, r.schedule, "the solved schedule", &sim, &sr, &err)) {
		if (x.progress)
			fputc('\n', stderr);
		rc = cli_fail(o.run.json, &err);
		goto out;
	}
	if (x.progress)
		fprintf(stderr, "\r%70s\r", "");
	if (o.run.output && cli_write_schedule(o.run.output, cli_format_guess(o.run.output), in,
					   r.schedule, &sr, in->split_backward, &err)) {
		rc = cli_fail(o.run.json, &err);
		goto out;
	}
	if ((o.write_lp || o.write_mps) && !r.solved)   /* nothing to export: say so */
		fprintf(stderr, "pipeopt solve: note: no MILP was solved (%s), so %s was not written; --always-milp solves and exports the model\n",
			r.certified ? "certified without one" : "none took the instance",
			o.write_lp ? o.write_lp : o.write_mps);
	if (o.run.json)
		cli_print_json(result_json(in, &o, &r, &sr));
	else
		print_human(in, &o.run, &r, r.schedule, &sr);
out:
	sim_free(sim);
	exact_result_release(&r);
	schedule_free(start);
	instance_free(in);
	return rc;
}
