/* The plan method: partition a model graph (graph and sequential
 * pipelines), then schedule each stage DAG with 1f1b-dag and the GA
 * (cli/cmd_plan.c runs it; not yet a sweep method). */
#include "methods/method.h"
#include "methods/settings.h"

#define OFF(f) offsetof(struct plan_settings, f)
const struct opt plan_opts[] = {
	{.name = "devices", .type = OPT_INT, .arg = "D", .lo = 1, .hi = 4096,
	 .offset = OFF(devices), .where = OPT_CLI, .help = "devices to use (required)"},
	{.name = "sequential", .type = OPT_FLAG, .offset = OFF(sequential), .where = OPT_BOTH,
	 .help = "only the chain of stages (the baseline)"},
	{.name = "seed", .type = OPT_SEED, .arg = "N", .dflt = "1", .offset = OFF(seed),
	 .where = OPT_BOTH, .help = "the GA's random seed"},
	{.name = "partitions", .type = OPT_INT, .arg = "N", .dflt = "3", .lo = 1, .hi = 64,
	 .offset = OFF(partitions), .where = OPT_BOTH,
	 .help = "the search's best N partitions scheduled (its best at each of N micro-batch sizes)"},
	{.name = "costs", .type = OPT_STRING, .arg = "COSTS", .offset = OFF(costs),
	 .where = OPT_CLI, .help = "a cost table ('pipeopt profile') instead of the graph's costs"},
	{0}};

const struct method method_plan = {
	.name = "plan",
	.summary = "partition a model graph, then schedule the stage DAG: 1f1b-dag vs the GA",
	.opts = plan_opts,
	.size = sizeof(struct plan_settings),
	.on_graph = true,
	.time_limit = "20",   /* the whole command, shared among its GA runs */
	.threads = "1",   /* a time-limited GA differs by thread count; 1 reproduces */
};
