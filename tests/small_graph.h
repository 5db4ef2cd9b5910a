/*
 * A small random model graph on a given operator DAG, for the partition
 * tests (test_partition_ilp.c, test_partition_search.c): operators n0, n1,
 * ...; a batch of 16 with micro-batch sizes 2 and 4; 4 devices with
 * `memory` bytes each, link latency 1 us, bandwidth 100. Per operator,
 * from srand(seed): forward f and backward b in 1..20 us at size 2 (x1.7
 * and x1.8 at size 4), with `wgrad` a weight gradient w in 0..7 (x1.6),
 * activation, weight and output bytes in 100..500, 1000..5000, 10..50.
 */
#ifndef PIPEOPT_SMALL_GRAPH_H
#define PIPEOPT_SMALL_GRAPH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_helpers.h"
#include "graph/graph.h"

static inline struct graph *small_graph(const char *name, int n, int m, const int (*e)[2],
					unsigned seed, double memory, bool wgrad)
{
	json_t *ops = json_array(), *edges = json_array();
	srand(seed);
	for (int v = 0; v < n; v++) {
		double f = 1 + rand() % 20, b = 1 + rand() % 20;
		double w = wgrad ? rand() % 8 : 0;
		char nm[8];
		snprintf(nm, sizeof nm, "n%d", v);
		json_t *op = json_pack("{s:s,s:[f,f],s:[f,f]}", "name", nm, "fwd", f, 1.7 * f,
				       "bwd", b, 1.8 * b);
		if (wgrad)
			json_object_set_new(op, "wgrad", json_pack("[f,f]", w, 1.6 * w));
		json_object_set_new(op, "act_bytes", json_real(100.0 * (1 + rand() % 5)));
		json_object_set_new(op, "weight_bytes", json_real(1000.0 * (1 + rand() % 5)));
		json_object_set_new(op, "out_bytes", json_real(10.0 * (1 + rand() % 5)));
		json_array_append_new(ops, op);
	}
	for (int k = 0; k < m; k++)
		json_array_append_new(edges, json_pack("[i,i]", e[k][0], e[k][1]));
	json_t *root = json_pack("{s:s,s:i,s:[i,i],s:{s:i,s:f,s:f,s:f},s:o,s:o}", "name", name,
		"batch", 16, "microbatch_sizes", 2, 4, "machine", "devices", 4, "memory_bytes",
		memory, "link_latency_us", 1.0, "link_bandwidth", 100.0, "ops", ops, "edges", edges);
	char *text = json_dumps(root, 0);
	json_decref(root);
	struct graph *g = NULL;
	struct error err;
	if (graph_parse(text, name, &g, &err))
		fail_msg("%s", err.msg);
	free(text);
	return g;
}

#endif
