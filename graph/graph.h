/*
 * Model graphs: a model's operators (a DAG) with per-operator costs, and
 * the machine it is to run on. The input of the partitioner; the format is
 * in docs/formats.md ("Model graph").
 *
 * Units: times in microseconds per micro-batch of the given per-device
 * size; bytes. Ownership: graph_read() and graph_parse() return a graph the
 * caller frees with graph_free(); every array inside belongs to it.
 */
#ifndef PIPEOPT_GRAPH_H
#define PIPEOPT_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

#define GRAPH_MAX_OPS 100000
#define GRAPH_MAX_SIZES 16
#define GRAPH_MAX_BATCH (1 << 24)   /* samples per iteration; bounds every size too */

struct graph_op {
	char *name;
	char *kind;             /* "linear", "attention", "layernorm", ... */
	double *fwd;            /* [nsizes] microseconds, forward */
	double *bwd;            /* [nsizes] microseconds, input gradient */
	double *wgrad;          /* [nsizes] microseconds, weight gradient */
	double act_bytes;       /* bytes per sample kept for the backward */
	double weight_bytes;    /* bytes of weights */
	double out_bytes;       /* bytes per sample sent to each consumer */
	int nshape;
	double *shape;          /* [nshape] kind-specific dimensions (ops/op_kind.h) */
};

struct machine {
	char *name;
	int devices;
	double memory_bytes;            /* bytes per device */
	double link_latency_us;         /* microseconds per transfer */
	double link_bandwidth;          /* bytes per microsecond */
	double optimizer_bytes_per_param; /* bytes of optimizer state per parameter */
	double bytes_per_param;         /* bytes of one weight (4: fp32) */
};

struct graph {
	char *name;
	int nops;
	struct graph_op *ops;           /* [nops] */
	int nedges;
	int (*edges)[2];                /* [nedges] operator indices, [from, to] */
	int nsizes;
	int *microbatch_sizes;          /* [nsizes] per-device samples, ascending */
	int batch;                      /* samples per iteration (mini-batch) */
	struct machine machine;
	/* derived, read-only */
	int *pred_start, *pred;         /* CSR of predecessors, [nops+1], [nedges] */
	int *succ_start, *succ;         /* CSR of successors */
	int *topo;                      /* [nops] a topological order */
};

enum status graph_read(const char *path, struct graph **out, struct error *err);
enum status graph_parse(const char *text, const char *source, struct graph **out,
			struct error *err);
void graph_free(struct graph *g);

/* Rebuild the derived arrays after the edge list changed; fails on a
 * cycle (naming an operator on it; `source` names the graph). */
enum status graph_derive(struct graph *g, const char *source, struct error *err);

/* Replace g's per-size costs and its micro-batch sizes by those of the
 * cost table at path (docs/formats.md, "Cost table"; made by `pipeopt
 * profile`); every operator of g must be in it (graph/costs.c). On error g
 * is unchanged. */
enum status graph_apply_costs(struct graph *g, const char *path, struct error *err);
/* The same from the table's JSON text; `source` names it in messages. */
enum status graph_parse_costs(struct graph *g, const char *text, const char *source,
			      struct error *err);

/* Index of the operator called name, or -1. */
int graph_find(const struct graph *g, const char *name);

/* Forward + input-gradient + weight-gradient time of op v at size index i. */
static inline double graph_op_time(const struct graph *g, int v, int i)
{
	return g->ops[v].fwd[i] + g->ops[v].bwd[i] + g->ops[v].wgrad[i];
}

#endif
