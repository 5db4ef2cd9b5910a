/*
 * The partition MILP (partition_milp.h). Sets: operators V, edges E, stage
 * slots s = 0..K-1 (K = min(D, |V|)), degrees k (powers of two with b % k
 * = 0 and b / k a listed size), in-flight levels j = 1..K. Costs at b:
 *   tau_v(k) = fwd + bwd + wgrad of v at per-device size b / k,
 *   comm_e   = 2 (latency + out_bytes(u) b / bandwidth) for e = (u, v),
 *   ar_v(k)  = 2 (k - 1) w_v / (k bandwidth m),  ar0(k) = 2 (k - 1) latency / m,
 *   st_v     = 2 w_v + w_v / bytes_per_param * optimizer_bytes_per_param.
 * Binaries x[v][s], y[s], g[s][k], eta[s][j]; c[e][s] >= 0; h[s] integer;
 * T >= bound_T;
 * minimise T.
 */
#include "formulate/partition_milp.h"
#include "graph/cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double pmilp_edge_comm(const struct graph *g, int e, int b)
{
	return graph_comm(&g->machine, 1, g->ops[g->edges[e][0]].out_bytes, b);
}

/* Scratch for one row of up to len terms; false (and the model marked
 * failed, which milp_check reports) when out of memory. */
static bool row_buffers(struct pmilp *p, int len, int **col, double **val)
{
	*col = malloc(len * sizeof **col);
	*val = malloc(len * sizeof **val);
	if (*col && *val)
		return true;
	p->m->failed = true;
	free(*col);
	free(*val);
	return false;
}

/*
 * Assignment and labels:
 *   sum_s x[v][s] = 1                       (|V| rows)
 *   x[v][s] <= y[s]                         (|V| K rows)
 *   y[s] <= sum_v x[v][s],  y[s] >= y[s+1]  (2K rows: used slots are
 *                                            nonempty and come first)
 *   sum_s s x[u][s] <= sum_s s x[v][s]      (|E| rows: monotone labels, so
 *                                            stages are convex and the stage
 *                                            graph is acyclic)
 */
static void assignment_rows(const struct graph *g, struct pmilp *p, const int *y)
{
	int K = p->K, *col;
	double *val;
	if (!row_buffers(p, g->nops * K + 2, &col, &val))
		return;
	for (int v = 0; v < g->nops; v++) {
		for (int s = 0; s < K; s++) {
			col[s] = p->x[v * K + s];
			val[s] = 1;
			int c2[2] = {p->x[v * K + s], y[s]};
			double v2[2] = {1, -1};
			milp_add_row(p->m, 2, c2, v2, -MILP_INF, 0, "use_%d_%d", v, s);
		}
		milp_add_row(p->m, K, col, val, 1, 1, "assign_%d", v);
	}
	for (int s = 0; s < K; s++) {
		int n = 0;
		for (int v = 0; v < g->nops; v++) {
			col[n] = p->x[v * K + s];
			val[n++] = 1;
		}
		col[n] = y[s];
		val[n++] = -1;
		milp_add_row(p->m, n, col, val, 0, MILP_INF, "nonempty_%d", s);
		if (s + 1 < K) {
			int c2[2] = {y[s], y[s + 1]};
			double v2[2] = {1, -1};
			milp_add_row(p->m, 2, c2, v2, 0, MILP_INF, "order_%d", s);
		}
	}
	for (int e = 0; e < g->nedges; e++) {
		int n = 0;
		for (int s = 1; s < K; s++) {
			col[n] = p->x[g->edges[e][0] * K + s];
			val[n++] = s;
			col[n] = p->x[g->edges[e][1] * K + s];
			val[n++] = -s;
		}
		milp_add_row(p->m, n, col, val, -MILP_INF, 0, "label_%d", e);
	}
	free(col);
	free(val);
}

/* tau_v(k) + ar_v(k): op v's per micro-batch cost on a stage of degree
 * index k, without the stage's comm and allreduce latency */
double pmilp_op_cost(const struct graph *g, const struct pmilp *p, int v, int k)
{
	int deg = p->degree[k], i = graph_size_index(g, p->b / deg);
	const struct machine *mc = &g->machine;
	double ar = graph_allreduce(mc, g->ops[v].weight_bytes, deg) - graph_allreduce(mc, 0, deg);
	return graph_op_time(g, v, i) + ar / p->mb;
}

/* ar0(k): the allreduce's latency term, once per stage */
double pmilp_stage_latency(const struct graph *g, const struct pmilp *p, int k)
{
	return graph_allreduce(&g->machine, 0, p->degree[k]) / p->mb;
}

/* st_v + j (b / k) a_v: op v's bytes per device, j micro-batches in flight */
double pmilp_op_bytes(const struct graph *g, const struct pmilp *p, int v, int k, int j)
{
	return graph_static_bytes(&g->machine, g->ops[v].weight_bytes) +
	       j * ((double)p->b / p->degree[k]) * g->ops[v].act_bytes;
}

/*
 * Devices:  sum_k g[s][k] = y[s]  (K rows);  sum_s sum_k k g[s][k] <= D.
 * Cut edges entering s: c[e][s] >= x[v][s] - x[u][s]  (|E| K rows).
 * Stage time, for every s and k (M_T a bound on any stage's time):
 *   T >= sum_v (tau_v(k) + ar_v(k)) x[v][s] + sum_e comm_e c[e][s]
 *        + ar0(k) - M_T (1 - g[s][k])
 */
static void time_rows(const struct graph *g, struct pmilp *p, const int *y, const int *c,
		      int D, double MT)
{
	int K = p->K, n, *col;
	double *val;
	/* the longest rows: a stage's time, or the devices row (K nk terms) */
	int len = g->nops + g->nedges + 2 > K * p->nk + 1 ? g->nops + g->nedges + 2 : K * p->nk + 1;
	if (!row_buffers(p, len, &col, &val))
		return;
	for (int s = 0; s < K; s++) {
		n = 0;
		for (int k = 0; k < p->nk; k++) {
			col[n] = p->g[s * p->nk + k];
			val[n++] = 1;
		}
		col[n] = y[s];
		val[n++] = -1;
		milp_add_row(p->m, n, col, val, 0, 0, "degree_%d", s);
	}
	n = 0;
	for (int s = 0; s < K; s++)
		for (int k = 0; k < p->nk; k++) {
			col[n] = p->g[s * p->nk + k];
			val[n++] = p->degree[k];
		}
	milp_add_row(p->m, n, col, val, -MILP_INF, D, "devices");
	for (int e = 0; e < g->nedges; e++)
		for (int s = 0; s < K; s++) {
			int c3[3] = {c[e * K + s], p->x[g->edges[e][1] * K + s], p->x[g->edges[e][0] * K + s]};
			double v3[3] = {1, -1, 1};
			milp_add_row(p->m, 3, c3, v3, 0, MILP_INF, "cut_%d_%d", e, s);
		}
	for (int s = 0; s < K; s++)
		for (int k = 0; k < p->nk; k++) {
			n = 0;
			col[n] = p->T;
			val[n++] = 1;
			for (int v = 0; v < g->nops; v++) {
				col[n] = p->x[v * K + s];
				val[n++] = -pmilp_op_cost(g, p, v, k);
			}
			for (int e = 0; e < g->nedges; e++) {
				col[n] = c[e * K + s];
				val[n++] = -pmilp_edge_comm(g, e, p->b);
			}
			col[n] = p->g[s * p->nk + k];
			val[n++] = -MT;
			double ar0 = pmilp_stage_latency(g, p, k);
			milp_add_row(p->m, n, col, val, ar0 - MT, MILP_INF, "time_%d_%d", s, k);
		}
	free(col);
	free(val);
}

/*
 * In flight (1F1B on the stage DAG): h[s] = sum_j j eta[s][j],
 * sum_j eta[s][j] = y[s]; for every edge (u, v) and slots s < t:
 *   h[s] >= h[t] + 1 - (K + 1) (2 - x[u][s] - x[v][t])
 * (sequential: h[s] >= h[s+1] + 1 - (K + 1)(1 - y[s+1]) instead).
 * Memory, for every s, k, j (M_M a bound on any stage's bytes):
 *   sum_v (st_v + j (b / k) a_v) x[v][s] <= Mem + M_M (2 - g[s][k] - eta[s][j])
 */
static void memory_rows(const struct graph *g, struct pmilp *p, const int *y, const int *h,
			const int *eta, bool sequential, double MM)
{
	int K = p->K, n, *col;
	double *val;
	if (!row_buffers(p, g->nops + K + 3, &col, &val))
		return;
	for (int s = 0; s < K; s++) {
		n = 0;
		col[n] = h[s];
		val[n++] = 1;
		for (int j = 1; j <= K; j++) {
			col[n] = eta[s * K + j - 1];
			val[n++] = -j;
		}
		milp_add_row(p->m, n, col, val, 0, 0, "h_%d", s);
		n = 0;
		for (int j = 1; j <= K; j++) {
			col[n] = eta[s * K + j - 1];
			val[n++] = 1;
		}
		col[n] = y[s];
		val[n++] = -1;
		milp_add_row(p->m, n, col, val, 0, 0, "eta_%d", s);
	}
	if (sequential) {
		for (int s = 0; s + 1 < K; s++) {
			int c3[3] = {h[s], h[s + 1], y[s + 1]};
			double v3[3] = {1, -1, -(K + 1)};
			milp_add_row(p->m, 3, c3, v3, 1 - (K + 1), MILP_INF, "chain_%d", s);
		}
	} else {
		for (int e = 0; e < g->nedges; e++)
			for (int s = 0; s < K; s++)
				for (int t = s + 1; t < K; t++) {
					int c4[4] = {h[s], h[t], p->x[g->edges[e][0] * K + s],
						     p->x[g->edges[e][1] * K + t]};
					double v4[4] = {1, -1, -(K + 1), -(K + 1)};
					milp_add_row(p->m, 4, c4, v4, 1 - 2 * (K + 1), MILP_INF,
						     "depth_%d_%d_%d", e, s, t);
				}
	}
	for (int s = 0; s < K; s++)
		for (int k = 0; k < p->nk; k++)
			for (int j = 1; j <= K; j++) {
				n = 0;
				for (int v = 0; v < g->nops; v++) {
					col[n] = p->x[v * K + s];
					val[n++] = pmilp_op_bytes(g, p, v, k, j);
				}
				col[n] = p->g[s * p->nk + k];
				val[n++] = MM;
				col[n] = eta[s * K + j - 1];
				val[n++] = MM;
				milp_add_row(p->m, n, col, val, -MILP_INF,
					     g->machine.memory_bytes + 2 * MM, "mem_%d_%d_%d", s, k, j);
			}
	free(col);
	free(val);
}

/*
 * A constant lower bound on T (the column's lower bound; no rows). Every
 * op lies on some stage:  T >= max_v min_k (tau_v(k) + ar_v(k)).  A stage
 * s of degree k_s has k_s T >= sum_{v in s} k_s (tau_v(k_s) + ar_v(k_s)),
 * and sum_s k_s <= D, so
 *     D T >= sum_v min_k k (tau_v(k) + ar_v(k)).
 * The LP relaxation of the big-M time rows alone is far below both.
 */
static double bound_T(const struct graph *g, const struct pmilp *p, int D)
{
	double one = 0, work = 0;
	for (int v = 0; v < g->nops; v++) {
		double t = INFINITY, kt = INFINITY;
		for (int k = 0; k < p->nk; k++) {
			double c = pmilp_op_cost(g, p, v, k);
			t = c < t ? c : t;
			kt = p->degree[k] * c < kt ? p->degree[k] * c : kt;
		}
		one = t > one ? t : one;
		work += kt;
	}
	return one > work / D ? one : work / D;
}

enum status pmilp_terms(const struct graph *g, int D, int b, bool sequential,
			struct pmilp *p, struct error *err)
{
	memset(p, 0, sizeof *p);
	if (b < 1 || g->batch % b || graph_size_index(g, b) < 0)
		return err_set(err, "graph '%s': micro-batch %d does not divide the batch %d or has no costs",
			       g->name, b, g->batch);
	p->b = b;
	p->mb = g->batch / b;
	p->K = D < g->nops ? D : g->nops;
	p->sequential = sequential;
	for (int k = 1; k <= D && p->nk < 16; k *= 2)
		if (b % k == 0 && graph_size_index(g, b / k) >= 0)
			p->degree[p->nk++] = k;
	/* all ops on one device, K micro-batches of b in flight: when even
	 * that fits, memory cannot bind (and the MILP leaves out its columns
	 * and rows) */
	double worst_mem = 0;
	for (int v = 0; v < g->nops; v++)
		worst_mem += graph_static_bytes(&g->machine, g->ops[v].weight_bytes) +
			     (double)p->K * b * g->ops[v].act_bytes;
	p->memory = worst_mem > g->machine.memory_bytes;
	p->T_lower = p->nk ? bound_T(g, p, D) : 0;
	return STATUS_OK;
}

enum status pmilp_build(const struct graph *g, int D, int b, bool sequential,
			struct pmilp *p, struct error *err)
{
	if (pmilp_terms(g, D, b, sequential, p, err))
		return STATUS_ERROR;
	int K = p->K;
	p->m = milp_new();
	p->x = malloc((size_t)g->nops * K * sizeof *p->x);
	p->g = malloc((size_t)K * p->nk * sizeof *p->g);
	p->y = malloc(K * sizeof *p->y);
	p->h = malloc(K * sizeof *p->h);
	p->eta = malloc((size_t)K * K * sizeof *p->eta);
	p->c = malloc(((size_t)g->nedges * K + 1) * sizeof *p->c);
	if (!p->m || !p->x || !p->g || !p->y || !p->h || !p->eta || !p->c) {
		pmilp_release(p);
		return err_set(err, "graph '%s': out of memory for the partition MILP", g->name);
	}
	double MT = 1, MM = g->machine.memory_bytes;
	for (int v = 0; v < g->nops; v++) {
		double worst = 0;
		for (int i = 0; i < g->nsizes; i++)
			worst = graph_op_time(g, v, i) > worst ? graph_op_time(g, v, i) : worst;
		MT += worst + 2.0 * D * g->ops[v].weight_bytes / g->machine.link_bandwidth;
		MM += graph_static_bytes(&g->machine, g->ops[v].weight_bytes) + K * b * g->ops[v].act_bytes;
	}
	for (int e = 0; e < g->nedges; e++)
		MT += pmilp_edge_comm(g, e, b);
	MT += 2.0 * D * g->machine.link_latency_us;
	p->T = milp_add_col(p->m, p->T_lower, MILP_INF, 1, false, "T");
	for (int v = 0; v < g->nops; v++)
		for (int s = 0; s < K; s++)
			p->x[v * K + s] = milp_add_col(p->m, 0, 1, 0, true, "x_%d_%d", v, s);
	for (int s = 0; s < K; s++) {
		p->y[s] = milp_add_col(p->m, 0, 1, 0, true, "y_%d", s);
		for (int k = 0; k < p->nk; k++)
			p->g[s * p->nk + k] = milp_add_col(p->m, 0, 1, 0, true, "g_%d_%d", s, k);
		if (!p->memory)
			continue;
		p->h[s] = milp_add_col(p->m, 0, K, 0, true, "h_%d", s);
		for (int j = 1; j <= K; j++)
			p->eta[s * K + j - 1] = milp_add_col(p->m, 0, 1, 0, true, "eta_%d_%d", s, j);
	}
	for (int e = 0; e < g->nedges; e++)
		for (int s = 0; s < K; s++)
			p->c[e * K + s] = milp_add_col(p->m, 0, 1, 0, false, "c_%d_%d", e, s);
	assignment_rows(g, p, p->y);
	time_rows(g, p, p->y, p->c, D, MT);
	if (p->memory)
		memory_rows(g, p, p->y, p->h, p->eta, sequential, MM);
	return milp_check(p->m, err);
}

bool pmilp_start(const struct graph *g, const struct pmilp *p, int S, const int *stage_of,
		 const int *degree_of, double T, double *x)
{
	int K = p->K;
	if (S < 1 || S > K)
		return false;
	for (int e = 0; e < g->nedges; e++)
		if (stage_of[g->edges[e][0]] > stage_of[g->edges[e][1]])
			return false;
	int *depth = malloc(S * sizeof *depth);
	char *edge = malloc((size_t)S * S);
	bool ok = depth && edge;
	for (int i = 0; i < p->m->ncols; i++)
		x[i] = 0;
	if (ok) {
		memset(edge, 0, (size_t)S * S);
		for (int e = 0; e < g->nedges; e++)
			edge[stage_of[g->edges[e][0]] * S + stage_of[g->edges[e][1]]] = 1;
	}
	/* in flight: stages on the longest path to a sink (a chain: S - i) */
	for (int a = S - 1; ok && a >= 0; a--) {
		int best = 0;
		for (int c = a + 1; c < S; c++)
			if ((edge[a * S + c] || (p->sequential && c == a + 1)) && depth[c] > best)
				best = depth[c];
		depth[a] = best + 1;
	}
	for (int s = 0; ok && s < S; s++) {
		int i = s, k = 0;
		while (k < p->nk && p->degree[k] != degree_of[s])
			k++;
		if (k == p->nk) {
			ok = false;
			break;
		}
		x[p->y[i]] = 1;
		x[p->g[i * p->nk + k]] = 1;
		if (p->memory) {
			x[p->h[i]] = depth[s];
			x[p->eta[i * K + depth[s] - 1]] = 1;
		}
	}
	for (int v = 0; ok && v < g->nops; v++)
		x[p->x[v * K + stage_of[v]]] = 1;
	for (int e = 0; ok && e < g->nedges; e++) {
		int a = stage_of[g->edges[e][0]], c = stage_of[g->edges[e][1]];
		if (a != c)
			x[p->c[e * K + c]] = 1;
	}
	x[p->T] = T > p->T_lower ? T : p->T_lower;
	free(depth);
	free(edge);
	return ok;
}

void pmilp_decode(const struct graph *g, const struct pmilp *p, const double *x,
		  int *stage_of, int *degree_of)
{
	for (int v = 0; v < g->nops; v++) {
		stage_of[v] = 0;
		for (int s = 0; s < p->K; s++)
			if (x[p->x[v * p->K + s]] > 0.5)
				stage_of[v] = s;
	}
	for (int s = 0; s < p->K; s++) {
		degree_of[s] = 0;
		for (int k = 0; k < p->nk; k++)
			if (x[p->g[s * p->nk + k]] > 0.5)
				degree_of[s] = p->degree[k];
	}
}

void pmilp_release(struct pmilp *p)
{
	milp_free(p->m);
	free(p->x);
	free(p->g);
	free(p->y);
	free(p->h);
	free(p->eta);
	free(p->c);
	memset(p, 0, sizeof *p);
}
