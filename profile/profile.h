/*
 * Per-operator cost measurement for model graphs: forward, input-gradient
 * and weight-gradient time of each operator at each micro-batch size, from
 * one of several sources behind one interface:
 *   - analytic: FLOPs and bytes against a named device's datasheet rates
 *     (analytic.c);
 *   - cpu: the operator's kernels run on this machine with OpenBLAS, fp32,
 *     after warm-up runs, the median of repeated runs (cpu.c);
 *   - cuda: the same on the GPU, cuBLAS and small kernels timed with CUDA
 *     events (cuda.cu, built when nvcc is present).
 * The result is a cost table (JSON, format in datasets/README.md, "Cost
 * table") that graph_apply_costs() (graph/costs.c) puts into a graph.
 *
 * Operator kinds and their "shape" (graph.h): linear [n, k] (per sample, n
 * inputs to k outputs), transformer_layer [seq, hidden, ffn, heads],
 * attention [seq, hidden, heads] (the transformer's attention part alone),
 * layernorm [n], gelu [n], concat, input, embedding_bag [rows, dim, bag],
 * interaction. Units: microseconds per micro-batch; bytes per sample.
 */
#ifndef PIPEOPT_PROFILE_H
#define PIPEOPT_PROFILE_H

#include <jansson.h>
#include <stdbool.h>

#include "graph/graph.h"
#include "common/error.h"

enum profile_source { PROFILE_ANALYTIC, PROFILE_CPU, PROFILE_CUDA };

struct profile_options {
	enum profile_source source;
	const char *device;      /* analytic: "h200", "a100", "v100" */
	int warmup, repeats;     /* cpu: runs before measuring; runs measured */
	double max_seconds;      /* cpu: one run slower than this stops larger sizes */
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

/* Whether op v of g is a kind every source knows, with a shape that fits
 * it: the number count per kind above, each number in [1, 1e8], the
 * hidden size a multiple of the heads. Errors name the operator. Every
 * source calls it first (the CUDA one through profile_cuda). */
enum status profile_check_op(const struct graph *g, int v, struct error *err);

/* Cost of op v of g at per-device micro-batch q. Unknown kinds and bad
 * shapes are errors naming the operator. */
enum status profile_analytic(const struct graph *g, int v, int q, const struct device_rates *d,
			     struct op_cost *c, struct error *err);
enum status profile_cpu(const struct graph *g, int v, int q, const struct profile_options *o,
			struct op_cost *c, struct error *err);
/* The CUDA source (cuda.cu; without nvcc, a stub that says so); without a
 * GPU at run time: one line saying so. */
enum status profile_cuda(const struct graph *g, int v, int q, const struct profile_options *o,
			 struct op_cost *c, struct error *err);
bool profile_cuda_built(void);

/* Profile every operator at every size into a cost table (new reference). */
enum status profile_graph(const struct graph *g, const struct profile_options *o,
			  json_t **table, struct error *err);

#endif
