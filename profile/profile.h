/*
 * Per-operator cost measurement for model graphs: forward, input-gradient
 * and weight-gradient time of each operator at each micro-batch size, from
 * one of several cost sources behind one table (struct cost_source, found
 * by name; cost_source.c):
 *   - analytic: FLOPs and bytes (ops/op_kind.h) against a named device's
 *     datasheet rates (analytic.c);
 *   - cpu: the operator's kernels run on this machine with OpenBLAS, fp32,
 *     after warm-up runs, the median of repeated runs (cpu.c);
 *   - cuda: the same on the GPU, cuBLAS and small kernels timed with CUDA
 *     events (cuda_source.c, cuda.cu built when nvcc is present).
 * The result is a cost table (JSON, format in docs/formats.md, "Cost
 * table") that graph_apply_costs() (graph/costs.c) puts into a graph.
 *
 * Operator kinds, their "shape" (graph.h) and which of them the sources
 * cost: ops/op_kind.h's table (every source costs the same kinds; an
 * operator of another kind, or with a shape that does not fit, is an
 * error naming it). Units: microseconds per micro-batch; bytes per sample.
 */
#ifndef PIPEOPT_PROFILE_H
#define PIPEOPT_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "graph/graph.h"
#include "common/error.h"

struct profile_options {
	const char *source;      /* a cost source's name (cost_source_find): "analytic", "cpu", "cuda" */
	const char *device;      /* for a source that takes one: analytic: "h200", "a100", "v100" */
	int warmup, repeats;     /* timed sources: runs before measuring; runs measured */
	double max_seconds;      /* timed sources: one run slower than this stops larger sizes */
	double time_limit;       /* timed sources: wall seconds for all runs (0: none);
	                            past it (or on an interrupt) nothing more is run */
	double deadline;         /* set by profile_graph: the monotonic time of that
	                            limit (0: none); a timed source ends its repeats
	                            there (with at least one run) */
	int nsizes;              /* sizes to profile (0: the graph's) */
	const int *sizes;
};

struct op_cost {
	double fwd, bwd, wgrad;  /* microseconds per micro-batch */
	bool measured;           /* false: extrapolated (see note) */
};

/* The analytic device rates by name; NULL if unknown. */
struct device_rates {
	const char *name;
	double flops;            /* FLOP/s, fp16 tensor, dense */
	double bandwidth;        /* bytes/s, HBM */
	double memory;           /* bytes */
};
const struct device_rates *profile_device(const char *name);

/*
 * A cost source. Adding one: a new file defining its entry, and one line in
 * cost_source.c's table (profile/README.md).
 */
struct cost_source {
	const char *name;        /* "cpu": --device NAME, or NAME:DEVICE when devices is set */
	const char *summary;     /* one line for help */
	const char *devices;     /* "h200|a100|v100": the devices it takes after "NAME:"; NULL: none */
	bool timed;              /* runs kernels: warmup and repeats apply, slow sizes are extrapolated */
	/* Check the options before any operator (the device is known, the
	 * library is built); NULL: nothing to check. */
	enum status (*prepare)(const struct profile_options *o, struct error *err);
	/* Cost of op v of g at per-device micro-batch q. Unknown kinds, kinds
	 * without a cost model and bad shapes are errors naming the operator. */
	enum status (*op_cost)(const struct graph *g, int v, int q, const struct profile_options *o,
			       struct op_cost *c, struct error *err);
	/* What the table's "device" says: "this machine, OpenBLAS fp32", "a100". */
	const char *(*device_text)(const struct profile_options *o);
};

/* The source called name (NULL: none); the i-th of cost_source_count(). */
const struct cost_source *cost_source_find(const char *name);
const struct cost_source *cost_source_at(int i);
int cost_source_count(void);
/* "analytic:h200|a100|v100, cpu, cuda" into buf (truncated to len); returns buf. */
const char *cost_source_names(char *buf, size_t len);

/* Each source's op_cost, callable alone (the analytic one with its
 * device's rates). */
enum status profile_analytic(const struct graph *g, int v, int q, const struct device_rates *d,
			     struct op_cost *c, struct error *err);
enum status profile_cpu(const struct graph *g, int v, int q, const struct profile_options *o,
			struct op_cost *c, struct error *err);
/* The CUDA source (the kernels in cuda.cu's library; without nvcc, it says
 * so); without a GPU at run time: one line saying so. The operator is
 * checked before the library loads. */
enum status profile_cuda(const struct graph *g, int v, int q, const struct profile_options *o,
			 struct op_cost *c, struct error *err);

/* Profile every operator at every size into a cost table (new reference)
 * with the source o->source names (an unknown one is an error listing the
 * registry's names), after its prepare. A timed run cut short by
 * o->time_limit or an interrupt (common/stop.h) is still a table: it says
 * "stopped_by" and "complete" (false when an operator has no measurement
 * at all; its costs are then null, which the cost-table reader refuses). */
enum status profile_graph(const struct graph *g, const struct profile_options *o,
			  json_t **table, struct error *err);

#endif
