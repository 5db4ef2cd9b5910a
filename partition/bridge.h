/* A partition as a schedule instance, so that simulate, solve and search
 * run on it (the mapping is in bridge.c). */
#ifndef PIPEOPT_BRIDGE_H
#define PIPEOPT_BRIDGE_H

#include <jansson.h>

#include "graph/graph.h"
#include "partition/partition.h"

/* The instance as a JSON object (new reference). */
json_t *partition_instance_json(const struct graph *g, const struct partition *p,
				const char *name);

#endif
