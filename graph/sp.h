/*
 * Series-parallel decomposition of an operator DAG (vertex series-parallel,
 * after transitive reduction):
 *   - a single operator is a LEAF;
 *   - if the operators split into weakly connected components, the graph is
 *     PARALLEL of them;
 *   - if they split into a prefix A and the rest Z such that every operator
 *     of A is an ancestor of every operator of Z, the graph is SERIES of A
 *     and Z (cut at every such point: SERIES has >= 2 children in order);
 *   - otherwise the graph is not series-parallel.
 * A virtual source and sink add nothing here: they would be the first and
 * last child of the root SERIES, and stages never hold them.
 *
 * A non-SP graph is made SP by adding dependency edges (the arithmetic is
 * unchanged; only concurrency is lost): at each part that neither splits,
 * all edges from a prefix of its topological levels to the rest, choosing
 * the cut whose added edges lengthen the critical path least (op weight:
 * forward + backward time at the first micro-batch size).
 */
#ifndef PIPEOPT_SP_H
#define PIPEOPT_SP_H

#include <stdbool.h>

#include "graph/graph.h"
#include "common/error.h"

enum sp_kind { SP_LEAF, SP_SERIES, SP_PARALLEL };

struct sp_node {
	enum sp_kind kind;
	int op;                    /* SP_LEAF: the operator */
	int nchildren;
	struct sp_node **children; /* SERIES: in order; PARALLEL: by smallest op */
	int nops;                  /* operators below */
	int *ops;                  /* [nops] sorted ascending */
};

/* The decomposition of g into *out, or NULL in *out when g is not SP (the
 * status is then still STATUS_OK; errors are only out of memory). */
enum status sp_decompose(const struct graph *g, struct sp_node **out, struct error *err);

/* Make g series-parallel by adding edges (g is changed: its edge list and
 * derived arrays are rebuilt); *added receives how many edges were added.
 * Then sp_decompose succeeds. */
enum status sp_make_sp(struct graph *g, int *added, struct error *err);

void sp_free(struct sp_node *t);

/* The tree as text, e.g. "S(a, P(S(b, d), c), e)" with operator names; a
 * new string the caller frees. */
char *sp_format(const struct graph *g, const struct sp_node *t);

/* Longest path through g with node weights w (edges weigh 0). */
double sp_critical_path(const struct graph *g, const double *w);

#endif
