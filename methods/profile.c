/* The profile method: per-operator costs of a model graph from a cost
 * source (profile/). Its settings are cmd_profile's; cli/cmd_profile.c
 * runs it (not yet a sweep method). */
#include "methods/method.h"
#include "methods/settings.h"

#define OFF(f) offsetof(struct profile_settings, f)
const struct opt profile_opts[] = {
	{.name = "device", .type = OPT_STRING, .arg = "SOURCE[:DEVICE]", .offset = OFF(device),
	 .where = OPT_CLI, .help = "the cost source (required; listed under 'cost sources' in --help)"},
	{.name = "sizes", .type = OPT_STRING, .arg = "L", .dflt = "the graph's", .offset = OFF(sizes),
	 .where = OPT_CLI, .help = "comma-separated micro-batch sizes, ascending"},
	{.name = "warmup", .type = OPT_INT, .arg = "N", .dflt = "2", .lo = 0, .hi = 1000,
	 .offset = OFF(warmup), .where = OPT_CLI, .help = "timed sources: runs before measuring"},
	{.name = "repeats", .type = OPT_INT, .arg = "N", .dflt = "5", .lo = 1, .hi = 64,
	 .offset = OFF(repeats), .where = OPT_CLI,
	 .help = "timed sources: measured runs, the median is kept"},
	{.name = "max-seconds", .type = OPT_NUMBER, .arg = "S", .dflt = "1", .lo = 1e-6, .hi = 1e6,
	 .offset = OFF(max_seconds), .where = OPT_CLI,
	 .help = "timed sources: after a run this slow, larger sizes are extrapolated linearly and marked"},
	{0}};

const struct method method_profile = {
	.name = "profile",
	.summary = "per-operator costs of a model graph from a cost source (analytic, cpu, cuda)",
	.opts = profile_opts,
	.size = sizeof(struct profile_settings),
	.on_graph = true,
	.time_limit = "none",   /* timed sources: all runs; past it, the rest extrapolated */
};
