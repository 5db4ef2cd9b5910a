/* The exec method: a schedule run on real tensors and checked (exec/).
 * Its settings are cmd_exec's; cli/cmd_exec.c runs it (not yet a sweep
 * method). The defaults are exec_options_init's. */
#include "methods/method.h"
#include "methods/settings.h"

static const char *exec_workers_at(int i)
{
	static const char *const names[] = {"threads", "mpi"};
	return i >= 0 && i < 2 ? names[i] : NULL;
}

static const char *exec_device_at(int i)
{
	static const char *const names[] = {"cpu", "cuda"};
	return i >= 0 && i < 2 ? names[i] : NULL;
}

#define OFF(f) offsetof(struct exec_settings, f)
const struct opt exec_opts[] = {
	{.name = "hidden", .type = OPT_INT, .arg = "H", .dflt = "256", .lo = 1, .hi = 8192,
	 .offset = OFF(hidden), .where = OPT_CLI, .help = "layer width"},
	{.name = "rows", .type = OPT_INT, .arg = "R", .dflt = "64", .lo = 1, .hi = 65536,
	 .offset = OFF(rows), .where = OPT_CLI, .help = "samples per micro-batch"},
	{.name = "watchdog", .type = OPT_NUMBER, .arg = "S", .dflt = "30", .lo = 1e-3, .hi = 1e6,
	 .offset = OFF(watchdog), .where = OPT_CLI,
	 .help = "seconds a worker may wait before the run fails"},
	{.name = "workers", .type = OPT_CHOICE, .choice = exec_workers_at, .dflt = "threads",
	 .offset = OFF(workers), .where = OPT_CLI,
	 .help = "worker threads, or MPI ranks (mpirun -np DEVICES pipeopt exec ... --workers mpi)"},
	{.name = "device", .type = OPT_CHOICE, .choice = exec_device_at, .dflt = "cpu",
	 .offset = OFF(device), .where = OPT_CLI,
	 .help = "CPU threads, or the GPU with one CUDA stream per device (needs a CUDA build and a GPU)"},
	{0}};

const struct method method_exec = {
	.name = "exec",
	.summary = "run a schedule on real tensors and check gradients, memory and time",
	.opts = exec_opts,
	.size = sizeof(struct exec_settings),
};
