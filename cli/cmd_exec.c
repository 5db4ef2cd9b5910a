/* pipeopt exec INSTANCE: run a schedule on real tensors and check it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/mpi.h"
#include "exec/exec.h"

static const char usage_text[] =
	"usage: pipeopt exec INSTANCE (--schedule FILE | --family NAME) [options]\n\n"
	"Run the schedule on a small real model with one worker thread per device,\n"
	"then check: the weight gradients against a single-thread sequential\n"
	"reference, the peak live activations per device against the prediction\n"
	"from the order, and the measured makespan against the simulator's with\n"
	"each stage's op costs measured in the run. The model: each stage's\n"
	"operators from the instance's \"model\" (what 'pipeopt partition -o'\n"
	"writes) as layers of width H (linear, GELU, layer norm, attention; fp32,\n"
	"OpenBLAS), or one linear + GELU layer per stage without it. A schedule\n"
	"that deadlocks or breaks the instance is refused first.\n\n"
	"  --schedule FILE          the schedule (json or torch csv)\n"
	"  --family NAME            or a family's schedule\n"
	"  --hidden H               layer width (default 256)\n"
	"  --rows R                 samples per micro-batch (default 64)\n"
	"  --watchdog S             seconds a worker may wait before the run fails (default 30)\n"
	"  --workers threads|mpi    worker threads (default), or MPI ranks: run as\n"
	"                           mpirun -np DEVICES pipeopt exec ... --workers mpi\n"
	"  --device cpu|cuda        run on CPU threads (default) or on the GPU, one CUDA\n"
	"                           stream per device (needs a CUDA build and a GPU)\n"
	"  --trace FILE             per-op timings as a Chrome trace\n"
	"  --json                   print one JSON object\n";

struct xopts {
	struct exec_options x;
	const char *schedule, *family, *trace;
	bool json, mpi;
};

static int parse(int argc, char **argv, struct xopts *o)
{
	static const struct option opts[] = {
		{"schedule", required_argument, 0, 's'}, {"family", required_argument, 0, 'f'},
		{"hidden", required_argument, 0, 'H'}, {"rows", required_argument, 0, 'R'},
		{"watchdog", required_argument, 0, 'w'}, {"trace", required_argument, 0, 't'},
		{"workers", required_argument, 0, 'W'}, {"device", required_argument, 0, 'D'},
		{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0}};
	int c;
	double v;
	memset(o, 0, sizeof *o);
	exec_options_init(&o->x);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': o->schedule = optarg; break;
		case 'f': o->family = optarg; break;
		case 'H':
			if (!cli_number(optarg, 1, 8192, true, &v))
				return cli_usage("exec", "--hidden needs 1 to 8192");
			o->x.hidden = (int)v;
			break;
		case 'R':
			if (!cli_number(optarg, 1, 65536, true, &v))
				return cli_usage("exec", "--rows needs 1 to 65536");
			o->x.rows = (int)v;
			break;
		case 'w':
			if (!cli_number(optarg, 0.001, 1e6, false, &o->x.watchdog))
				return cli_usage("exec", "--watchdog needs seconds > 0");
			break;
		case 't': o->trace = optarg; break;
		case 'W':
			if (strcmp(optarg, "threads") && strcmp(optarg, "mpi"))
				return cli_usage("exec", "unknown --workers '%s' (threads or mpi)", optarg);
			o->mpi = !strcmp(optarg, "mpi");
			if (o->mpi && !mpi_available())
				return cli_usage("exec", "--workers mpi: this pipeopt was built without MPI");
			break;
		case 'D':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda"))
				return cli_usage("exec", "unknown --device '%s' (cpu or cuda)", optarg);
			o->x.cuda = !strcmp(optarg, "cuda");
			break;
		case 'j': o->json = true; break;
		case 'h': fputs(usage_text, stdout); return -1;
		default:
			return cli_usage("exec", "unknown option or missing value in '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage("exec", "expected one INSTANCE file");
	if (!o->schedule == !o->family)
		return cli_usage("exec", "give exactly one of --schedule FILE and --family NAME");
	if (o->mpi && o->x.cuda)
		return cli_usage("exec", "--workers mpi runs on CPUs; --device cuda uses threads");
	return 0;
}

static char *trace_text(const struct exec_result *r)
{
	json_t *ev = json_array();
	for (int i = 0; i < r->nevents; i++) {
		const struct exec_event *e = &r->events[i];
		char name[64];
		op_format(name, sizeof name, e->kind, e->stage, e->mb);
		json_array_append_new(ev, json_pack("{s:s,s:s,s:i,s:i,s:f,s:f}", "name", name, "ph", "X",
			"pid", 0, "tid", e->device, "ts", e->start * 1e6, "dur", (e->end - e->start) * 1e6));
	}
	json_t *t = json_pack("{s:o}", "traceEvents", ev);
	char *text = json_dumps(t, 0);
	json_decref(t);
	return text;
}

static json_t *ints(const int *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

int cmd_exec(int argc, char **argv)
{
	struct xopts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct instance *in = NULL;
	struct schedule *s = NULL;
	struct exec_result r = {0};
	char *trace = NULL;
	int rank = o.mpi ? mpi_rank() : 0;
	if (instance_read(argv[optind], &in, &err) ||
	    (o.schedule ? cli_read_schedule(o.schedule, FMT_NONE, &s, &err)
			: cli_family_schedule(o.family, in, &s, &err)) ||
	    (o.mpi ? exec_run_mpi(in, s, &o.x, &r, &err) : exec_run(in, s, &o.x, &r, &err))) {
		rc = rank == 0 ? cli_fail(o.json, &err) : EXIT_FAILED;
		goto out;
	}
	if (rank != 0)   /* rank 0 reports */
		goto out;
	if (o.trace && (!(trace = trace_text(&r)) || cli_write(o.trace, trace, &err))) {
		rc = cli_fail(o.json, &err);
		goto out;
	}
	bool peaks_equal = !memcmp(r.peak_live, r.predicted_peak, in->devices * sizeof(int));
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	bool shared = !o.mpi && !o.x.cuda && cores > 0 && in->devices > cores;
	char model[256];
	snprintf(model, sizeof model, "%s%s%s: %d linear, %d gelu, %d layernorm, %d attention layers of %d x %d",
		 r.graph[0] ? "graph '" : in->model ? "the instance's model" : "linear + gelu per stage",
		 r.graph, r.graph[0] ? "'" : "",
		 r.layers[0], r.layers[1], r.layers[2], r.layers[3], o.x.hidden, o.x.hidden);
	if (o.json) {
		json_t *j = json_pack("{s:s,s:f,s:o,s:o,s:b,s:f,s:f,s:f,s:{s:f,s:f,s:f},s:f,s:i,s:i,s:s}",
			"instance", in->name, "grad_max_rel_err", r.grad_max_rel_err,
			"peak_live_activations", ints(r.peak_live, in->devices),
			"predicted_peak", ints(r.predicted_peak, in->devices), "peaks_equal", peaks_equal,
			"measured_makespan_s", r.measured_makespan_s,
			"predicted_makespan_s", r.predicted_makespan_s, "ratio", r.ratio,
			"op_seconds", "F", r.op_seconds[0], "B", r.op_seconds[1], "W", r.op_seconds[2],
			"kernel_makespan_s", r.kernel_makespan_s,
			"hidden", o.x.hidden, "rows", o.x.rows, "workers", o.mpi ? "mpi" : "threads");
		json_t *more = json_pack("{s:s,s:o,s:{s:i,s:i,s:i,s:i},s:I,s:b}", "device",
			o.x.cuda ? "cuda" : "cpu", "model",
			r.graph[0] ? json_string(r.graph) : in->model ? json_string("") : json_null(), "layers", "linear", r.layers[0],
			"gelu", r.layers[1], "layernorm", r.layers[2], "attention", r.layers[3],
			"cores", (json_int_t)cores, "cores_shared", shared);
		json_object_update(j, more);
		json_decref(more);
		cli_print_json(j);
	} else {
		printf("exec        %s: %d %s, %d rows per micro-batch\n", in->name, in->devices,
		       o.mpi ? "MPI ranks" : o.x.cuda ? "CUDA streams" : "worker threads", o.x.rows);
		printf("model       %s\n", model);
		printf("gradients   max relative error %.3g vs the sequential reference\n", r.grad_max_rel_err);
		printf("activations peak live");
		for (int d = 0; d < in->devices; d++)
			printf(" %d", r.peak_live[d]);
		printf(", predicted");
		for (int d = 0; d < in->devices; d++)
			printf(" %d", r.predicted_peak[d]);
		printf(" (%s)\n", peaks_equal ? "equal" : "DIFFERENT");
		printf("makespan    measured %.4f s, predicted %.4f s (the run's mean ops: F %.0f us, B %.0f us, W %.0f us): ratio %.3f\n",
		       r.measured_makespan_s, r.predicted_makespan_s, r.op_seconds[0] * 1e6,
		       r.op_seconds[1] * 1e6, r.op_seconds[2] * 1e6, r.ratio);
		if (!o.x.cuda)
			printf("            kernels timed alone predict %.4f s\n", r.kernel_makespan_s);
		if (shared)
			printf("note        %d worker threads share %ld cores: each device is not a core of its own, so the timing comparison does not hold\n",
			       in->devices, cores);
	}
out:
	if (o.mpi)
		mpi_end();
	free(trace);
	exec_result_release(&r);
	schedule_free(s);
	instance_free(in);
	return rc;
}
