/* pipeopt solve INSTANCE: the optimal schedule and a certificate. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sched/render.h"
#include "solvers/exact.h"

static const char usage_text[] =
	"usage: pipeopt solve INSTANCE [options]\n\n"
	"Find an optimal schedule and prove it. The best predefined family gives\n"
	"an upper bound and the lower bounds of 'pipeopt bound' a lower one; if\n"
	"they meet, that schedule is optimal without a MILP (certified by the\n"
	"bound). Otherwise the problem is solved as a MILP, starting from that\n"
	"schedule; the result is certified when the solver proves optimality\n"
	"and the decoded schedule, re-simulated, has exactly that objective.\n"
	"At the time limit the best schedule is returned with its bound and gap.\n\n"
	"  --solver %-15s MILP solver (default cbc)\n"
	"  --formulation F          %s or auto (default)\n"
	"  --time-limit S           wall-clock seconds for the whole solve (default 60)\n"
	"  --threads N              solver threads (default 1)\n"
	"  --cross-check            also solve with the other solver; fail if they disagree\n"
	"  --always-milp            solve the MILP even when a heuristic meets the bound\n"
	"  --start FILE             an extra candidate schedule (json or torch csv)\n"
	"  --write-lp FILE          write the MILP in CPLEX LP format\n"
	"  --write-mps FILE         write the MILP in free MPS format\n"
	"  -o, --output FILE        write the schedule (format from the extension)\n"
	"  --json                   print one JSON object with the certificate\n"
	"  --verbose                the solver's own log on stderr\n";

struct solve_opts {
	struct exact_options x;
	const char *output, *start;
	bool json;
};

static int parse(int argc, char **argv, struct solve_opts *o)
{
	static const struct option opts[] = {
		{"solver", required_argument, 0, 's'},
		{"formulation", required_argument, 0, 'f'},
		{"time-limit", required_argument, 0, 't'},
		{"threads", required_argument, 0, 'T'},
		{"cross-check", no_argument, 0, 'c'},
		{"always-milp", no_argument, 0, 'A'},
		{"start", required_argument, 0, 'S'},
		{"write-lp", required_argument, 0, 'L'},
		{"write-mps", required_argument, 0, 'M'},
		{"output", required_argument, 0, 'o'},
		{"json", no_argument, 0, 'j'},
		{"verbose", no_argument, 0, 'v'},
		{"help", no_argument, 0, 'h'}, {0}};
	int c;
	char *end;
	char names[128];
	*o = (struct solve_opts){.x = {.solver = "cbc", .formulation = "auto",
				       .time_limit = 60, .threads = 1}};
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!solver_find(optarg))
				return cli_usage("solve", "unknown solver '%s' (%s)", optarg,
						 solver_names(names, sizeof names, " or "));
			o->x.solver = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "auto") && !formulation_find(optarg))
				return cli_usage("solve", "unknown formulation '%s' (%s or auto)", optarg,
						 formulation_names(names, sizeof names, ", "));
			o->x.formulation = optarg;
			break;
		case 't':
			o->x.time_limit = strtod(optarg, &end);
			if (*end || !(o->x.time_limit > 0) || o->x.time_limit > 1e7)
				return cli_usage("solve", "--time-limit needs seconds > 0");
			break;
		case 'T':
			o->x.threads = (int)strtol(optarg, &end, 10);
			if (*end || o->x.threads < 1 || o->x.threads > 256)
				return cli_usage("solve", "--threads needs 1 to 256");
			break;
		case 'c': o->x.cross_check = true; break;
		case 'A': o->x.always_milp = true; break;
		case 'S': o->start = optarg; break;
		case 'L': o->x.write_lp = optarg; break;
		case 'M': o->x.write_mps = optarg; break;
		case 'o': o->output = optarg; break;
		case 'j': o->json = true; break;
		case 'v': o->x.verbose = true; break;
		case 'h': {
			char fnames[128];
			printf(usage_text, solver_names(names, sizeof names, "|"),
			       formulation_names(fnames, sizeof fnames, ", "));
			return -1;
		}
		default:
			return cli_usage("solve", "unknown option or missing value in '%s'",
					 argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage("solve", "expected one INSTANCE file");
	return 0;
}

static void progress(void *ctx, double incumbent, double bound)
{
	(void)ctx;
	if (isnan(incumbent))
		fprintf(stderr, "\r  searching: bound %.10g          ", bound);
	else
		fprintf(stderr, "\r  incumbent %.10g, bound %.10g, gap %.2f %%   ", incumbent,
			bound, incumbent ? 100 * (incumbent - bound) / incumbent : 0);
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

static json_t *result_json(const struct instance *in, const struct exact_result *r,
			   const struct sim_result *sr)
{
	json_t *j = cli_result_json(in, sr, r->lower_bound);
	json_object_set_new(j, "status", json_string(r->status));
	json_object_set_new(j, "certified",
			    json_boolean(r->certified && sr->objective == r->objective));
	json_object_set_new(j, "certified_by", r->certified_by ?
			    json_string(r->certified_by) : json_null());
	json_object_set_new(j, "bound", json_integer(r->bound));
	json_object_set_new(j, "gap", json_real(r->gap));
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
	json_object_set_new(j, "schedule", schedule_to_json(r->schedule));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	return j;
}

static void print_human(const struct instance *in, const struct exact_result *r,
			const struct schedule *s, const struct sim_result *sr)
{
	cli_print_instance(in);
	printf("heuristic   %s: %" PRId64 "; lower bound %" PRId64 "\n", r->heuristic,
	       r->heuristic_objective, r->lower_bound);
	if (r->solved)
		printf("milp        %s %s, %s formulation: %d columns (%d binaries), %d rows; %s after %ld nodes, %.2f s\n",
		       r->solver, r->solver_version, r->formulation, r->columns, r->binaries,
		       r->rows, r->solver_outcome, r->nodes, r->solver_seconds);
	if (strcmp(r->cross_check, "not run"))
		printf("cross-check %s (%s)\n", r->cross_check, r->cross_detail);
	printf("status      %s%s%s%s\n", r->status, r->certified ? ", certified by the " : "",
	       r->certified ? r->certified_by : "", r->certified ? "" : " (not proven optimal)");
	cli_print_result(in, sr, r->bound);
	char *text = render_ascii(in, s, sr, 100);
	if (text)
		fputs(text, stdout);
	free(text);
}

int cmd_solve(int argc, char **argv)
{
	struct solve_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct instance *in = NULL;
	struct schedule *start = NULL;
	struct exact_result r = {0};
	struct sim *sim = NULL;
	struct sim_result sr;
	if (!o.json && isatty(2)) {
		o.x.progress = progress;
	}
	if (instance_read(argv[optind], &in, &err) ||
	    (o.start && cli_read_schedule(o.start, FMT_NONE, &start, &err))) {
		rc = cli_fail(o.json, &err);
		goto out;
	}
	o.x.start = start;
	if (exact_solve(in, &o.x, &r, &err) ||
	    cli_simulate(in, r.schedule, "the solved schedule", &sim, &sr, &err)) {
		if (o.x.progress)
			fputc('\n', stderr);
		rc = cli_fail(o.json, &err);
		goto out;
	}
	if (o.x.progress)
		fprintf(stderr, "\r%70s\r", "");
	if (o.output && cli_write_schedule(o.output, cli_format_guess(o.output), in,
					   r.schedule, &sr, in->split_backward, &err)) {
		rc = cli_fail(o.json, &err);
		goto out;
	}
	if (o.json)
		cli_print_json(result_json(in, &r, &sr));
	else
		print_human(in, &r, r.schedule, &sr);
out:
	sim_free(sim);
	exact_result_release(&r);
	schedule_free(start);
	instance_free(in);
	return rc;
}
