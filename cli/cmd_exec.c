/* pipeopt exec INSTANCE: run a schedule on real tensors and check it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/mpi.h"
#include "exec/exec.h"
#include "methods/method.h"
#include "methods/settings.h"

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
	"that deadlocks or breaks the instance is refused first. --workers is\n"
	"one worker per device (threads, or MPI ranks), not --threads.\n";

struct xopts {
	struct exec_settings s;
	struct run_opts run;
	struct exec_options x;
	const char *schedule, *family, *trace;
	bool mpi;
};

#define OFF(f) offsetof(struct xopts, f)
static const struct opt cli_table[] = {
	{.name = "schedule", .type = OPT_STRING, .arg = "FILE", .offset = OFF(schedule),
	 .where = OPT_CLI, .help = "the schedule (json or torch csv)"},
	{.name = "family", .type = OPT_STRING, .arg = "NAME", .offset = OFF(family),
	 .where = OPT_CLI, .help = "or a family's schedule"},
	{.name = "trace", .type = OPT_STRING, .arg = "FILE", .offset = OFF(trace),
	 .where = OPT_CLI, .help = "per-op timings as a Chrome trace"},
	{0}};

static int parse(int argc, char **argv, struct xopts *o, char **instance)
{
	struct opt_set set;
	memset(o, 0, sizeof *o);
	method_opt_set(&method_exec, &o->s, &o->run, &set);
	opts_add(&set, cli_table, o);
	cli_shared(&set, &o->run, CLI_JSON);
	int npos, rc = cli_parse(&set, usage_text, argc, argv, instance, 1, 1, &npos,
				 "expected one INSTANCE file");
	if (rc)
		return rc;
	exec_options_init(&o->x);
	o->x.hidden = (int)o->s.hidden;
	o->x.rows = (int)o->s.rows;
	o->x.watchdog = o->s.watchdog;
	o->x.cuda = !strcmp(o->s.device, "cuda");
	o->mpi = !strcmp(o->s.workers, "mpi");
	if (o->mpi && !mpi_available())
		return cli_usage("exec", "--workers mpi: this pipeopt was built without MPI");
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
	char *path;
	int rc = parse(argc, argv, &o, &path);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct instance *in = NULL;
	struct schedule *s = NULL;
	struct exec_result r = {0};
	char *trace = NULL;
	int rank = o.mpi ? mpi_rank() : 0;
	if (instance_read(path, &in, &err) ||
	    (o.schedule ? cli_read_schedule(o.schedule, FMT_NONE, in, &s, &err)
			: cli_family_schedule(o.family, in, &s, &err)) ||
	    (o.mpi ? exec_run_mpi(in, s, &o.x, &r, &err) : exec_run(in, s, &o.x, &r, &err))) {
		rc = rank == 0 ? cli_fail(o.run.json, &err) : EXIT_FAILED;
		goto out;
	}
	if (rank != 0)   /* rank 0 reports */
		goto out;
	if (o.trace && (!(trace = trace_text(&r)) || cli_write(o.trace, trace, &err))) {
		rc = cli_fail(o.run.json, &err);
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
	if (o.run.json) {
		json_t *j = json_pack("{s:s,s:s,s:f,s:o,s:o,s:b,s:f,s:f,s:f,s:{s:f,s:f,s:f},s:f,s:i,s:i,s:s}",
			"status", "ok", "instance", in->name, "grad_max_rel_err", r.grad_max_rel_err,
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
