/* pipeopt bound INSTANCE [--shave S] [--windows S] [--json]: lower bounds on the objective. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "sched/bound.h"
#include "solvers/exact.h"
#include "solvers/relax.h"
#include "solvers/shave.h"

static const char usage_text[] =
	"usage: pipeopt bound INSTANCE [--shave S] [--windows S] [--json]\n\n"
	"Lower bounds on the instance's objective (makespan or span) that hold\n"
	"for every valid schedule:\n"
	"  critical_path  the longest dependency chain of one micro-batch\n"
	"  device         one device's ops with heads and tails: load plus\n"
	"                 unavoidable fill and drain (Jackson's preemptive bound);\n"
	"                 for a device's span also another device's ops that lie\n"
	"                 between its first start and its last end\n"
	"  memory         forced idle time while memory caps the forwards before\n"
	"                 the device's first backward, and the work pending after\n"
	"                 its last forward\n"
	"  round_trip     with room for K forwards of a stage, every K forwards\n"
	"                 wait one trip through the later stages and back\n"
	"  memory_time    a device's activations, each held for its trip, fit\n"
	"                 under its limit times its busy span (all its stages)\n"
	"  warmup         one stage per device: the wait for each device's first\n"
	"                 backward, filled with whole forwards only, coupled\n"
	"                 along the stages\n"
	"The lower bound is the largest of them. With --shave S (makespan, one\n"
	"op at a time per device), also for S seconds at most:\n"
	"  shaving        for each target T from the bound up, every op's window\n"
	"                 (earliest start, latest end) propagated through the\n"
	"                 dependencies, FIFO, memory arcs and edge finding, then\n"
	"                 each op tried at the edges of its window: a window that\n"
	"                 empties proves that no schedule ends by T\n"
	"With --windows S (makespan), also for S seconds at most, from there:\n"
	"  window         the exact search of a relaxation that keeps a range of\n"
	"                 devices as they are and lets every other device run any\n"
	"                 number of ops at once without a memory limit; ranges of\n"
	"                 1, 2, ... devices, up to the best family's objective\n";

struct bound_opts {
	double shave;              /* seconds; 0: no shaving bound */
	double windows;            /* seconds; 0: no window bounds */
	struct run_opts run;
};

#define OFF(f) offsetof(struct bound_opts, f)
static const struct opt bound_table[] = {
	{.name = "shave", .type = OPT_NUMBER, .arg = "S", .dflt = "0 (none)", .lo = 0,
	 .hi = 1e6, .offset = OFF(shave), .where = OPT_CLI,
	 .help = "seconds for the shaving bound (constraint propagation)"},
	{.name = "windows", .type = OPT_NUMBER, .arg = "S", .dflt = "0 (none)", .lo = 0,
	 .hi = 1e6, .offset = OFF(windows), .where = OPT_CLI,
	 .help = "seconds for the window bounds (relaxations solved exactly)"},
	{0}};

int cmd_bound(int argc, char **argv)
{
	struct bound_opts o = {0};
	struct opt_set set = {.cmd = "bound", .tables = {bound_table, run_opts_json},
			      .base = {&o, &o.run}};
	char *path;
	int npos, rc = cli_parse(&set, usage_text, argc, argv, &path, 1, 1, &npos,
				 "expected one INSTANCE file");
	if (rc)
		return rc < 0 ? 0 : rc;
	bool json = o.run.json;
	double t0 = cli_now();
	struct error err;
	struct instance *in;
	struct bounds b = {0};
	if (instance_read(path, &in, &err))
		return cli_fail(json, &err);
	/* the shaving bound from the closed forms, then the window bounds
	 * from there, each up to the best family's objective */
	struct relax_result wr = {.lo = -1};
	struct shave_result sr = {0};
	enum status st = bound_compute(in, &b, &err);
	int64_t upper = !st && (o.shave > 0 || o.windows > 0) ? exact_upper_bound(in, NULL)
							      : INT64_MAX;
	if (!st && o.shave > 0) {
		struct shave_options so = {.time_limit = o.shave, .lower_bound = b.best,
					   .upper_bound = upper};
		st = shave_bound(in, &so, &sr, &err);
	}
	bool by_shave = o.shave > 0 && sr.bound > b.best;
	int64_t best = by_shave ? sr.bound : b.best;
	if (!st && o.windows > 0) {
		struct relax_options ro = {.time_limit = o.windows, .lower_bound = best,
					   .upper_bound = upper};
		st = relax_bound(in, &ro, &wr, &err);
	}
	if (st) {
		instance_free(in);
		return cli_fail(json, &err);
	}
	bool by_window = wr.lo >= 0 && wr.bound > best;
	best = by_window ? wr.bound : best;
	const char *by = by_window ? "window" : by_shave ? "shaving" : b.by;
	const char *obj = in->objective == OBJ_SPAN ? "span" : "makespan";
	if (json) {
		json_t *j = json_pack("{s:s,s:s,s:s,s:I,s:s,s:{s:I,s:I,s:i,s:I,s:i,s:I,s:i,s:I,s:i,s:I},s:f}",
			"status", "ok", "instance", in->name, "objective_name", obj,
			"lower_bound", (json_int_t)best, "bound_by", by,
			"bounds",
			"critical_path", (json_int_t)b.critical_path,
			"device", (json_int_t)b.device, "device_at", b.device_at,
			"memory", (json_int_t)b.memory, "memory_at", b.memory_at,
			"round_trip", (json_int_t)b.round_trip, "round_trip_at", b.round_trip_at,
			"memory_time", (json_int_t)b.memory_time, "memory_time_at", b.memory_time_at,
			"warmup", (json_int_t)b.warmup,
			"seconds", cli_now() - t0);
		if (o.shave > 0)
			json_object_set_new(json_object_get(j, "bounds"), "shaving",
				json_pack("{s:I,s:i,s:b,s:I,s:f}", "value", (json_int_t)sr.bound,
					  "refuted", sr.refuted, "finished", sr.finished,
					  "propagations", (json_int_t)sr.propagations,
					  "seconds", sr.seconds));
		if (o.windows > 0)
			json_object_set_new(json_object_get(j, "bounds"), "window", by_window ?
				json_pack("{s:I,s:[i,i],s:i,s:i,s:f}", "value", (json_int_t)wr.bound,
					  "devices", wr.lo, wr.hi, "windows", wr.windows,
					  "finished", wr.finished, "seconds", wr.seconds) :
				json_pack("{s:n,s:n,s:i,s:i,s:f}", "value", "devices",
					  "windows", wr.windows, "finished", wr.finished,
					  "seconds", wr.seconds));
		cli_print_json(j);
	} else {
		cli_print_instance(in);
		printf("critical path  %" PRId64 "\n", b.critical_path);
		printf("device         %" PRId64 "  (device %d)\n", b.device, b.device_at);
		if (in->has_limit) {
			printf("memory         %" PRId64 "  (device %d)\n", b.memory, b.memory_at);
			printf("round trip     %" PRId64 "  (device %d)\n", b.round_trip, b.round_trip_at);
			printf("memory time    %" PRId64 "  (device %d)\n", b.memory_time, b.memory_time_at);
		} else {
			printf("memory         -  (no memory limit)\n");
		}
		if (b.warmup)
			printf("warmup         %" PRId64 "\n", b.warmup);
		if (o.shave > 0 && !shave_takes(in))
			printf("shaving        -  (the makespan only, without overlap, recompute or offload)\n");
		else if (o.shave > 0)
			printf("shaving        %" PRId64 "  (%d targets refuted, %s; %.2f s)\n", sr.bound,
			       sr.refuted, sr.finished ? "finished" : "stopped by the time limit",
			       sr.seconds);
		if (by_window)
			printf("window         %" PRId64 "  (devices %d-%d exact, the others relaxed; %d windows, %d finished, %.2f s)\n",
			       wr.bound, wr.lo, wr.hi, wr.windows, wr.finished, wr.seconds);
		else if (o.windows > 0 && !relax_takes(in))
			printf("window         -  (the makespan only, without overlap, recompute or offload)\n");
		else if (o.windows > 0)
			printf("window         -  (%d windows, %d finished, %.2f s: none above)\n",
			       wr.windows, wr.finished, wr.seconds);
		printf("lower bound    %" PRId64 " on the %s, by the %s bound\n", best, obj, by);
	}
	instance_free(in);
	return 0;
}
