/* pipeopt bound INSTANCE [--json]: lower bounds on the objective. */
#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"
#include "sched/bound.h"

static const char usage_text[] =
	"usage: pipeopt bound INSTANCE [--json]\n\n"
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
	"  warmup         one stage per device: the wait for each device's first\n"
	"                 backward, filled with whole forwards only, coupled\n"
	"                 along the stages\n"
	"The lower bound is the largest of them.\n";

int cmd_bound(int argc, char **argv)
{
	bool json;
	char *path;
	int npos, rc = cli_json_flag("bound", usage_text, argc, argv, &path, 1, 1, &npos,
				     "expected one INSTANCE file", &json);
	if (rc)
		return rc < 0 ? 0 : rc;
	double t0 = cli_now();
	struct error err;
	struct instance *in;
	struct bounds b;
	if (instance_read(path, &in, &err))
		return cli_fail(json, &err);
	if (bound_compute(in, &b, &err)) {
		instance_free(in);
		return cli_fail(json, &err);
	}
	const char *obj = in->objective == OBJ_SPAN ? "span" : "makespan";
	if (json) {
		cli_print_json(json_pack("{s:s,s:s,s:s,s:I,s:s,s:{s:I,s:I,s:i,s:I,s:i,s:I,s:i,s:I},s:f}",
			"status", "ok", "instance", in->name, "objective_name", obj,
			"lower_bound", (json_int_t)b.best, "bound_by", b.by, "bounds",
			"critical_path", (json_int_t)b.critical_path,
			"device", (json_int_t)b.device, "device_at", b.device_at,
			"memory", (json_int_t)b.memory, "memory_at", b.memory_at,
			"round_trip", (json_int_t)b.round_trip, "round_trip_at", b.round_trip_at,
			"warmup", (json_int_t)b.warmup,
			"seconds", cli_now() - t0));
	} else {
		cli_print_instance(in);
		printf("critical path  %" PRId64 "\n", b.critical_path);
		printf("device         %" PRId64 "  (device %d)\n", b.device, b.device_at);
		if (in->has_limit) {
			printf("memory         %" PRId64 "  (device %d)\n", b.memory, b.memory_at);
			printf("round trip     %" PRId64 "  (device %d)\n", b.round_trip, b.round_trip_at);
		} else {
			printf("memory         -  (no memory limit)\n");
		}
		if (b.warmup)
			printf("warmup         %" PRId64 "\n", b.warmup);
		printf("lower bound    %" PRId64 " on the %s, by the %s bound\n", b.best, obj, b.by);
	}
	instance_free(in);
	return 0;
}
