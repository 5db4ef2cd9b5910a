/* A partition as a schedule instance, so that simulate, solve, search and
 * exec run on it (the mapping is in bridge.c). */
#ifndef PIPEOPT_BRIDGE_H
#define PIPEOPT_BRIDGE_H

#include "graph/graph.h"
#include "partition/partition.h"
#include "sched/instance.h"

/* The instance of partition p of g, named `name` (also its source in
 * messages), built in code and checked by instance_finish() as the parser
 * checks a file; the caller frees it with instance_free(). What `partition
 * -o` writes is instance_write() of it, and parses back to an equal
 * instance. */
enum status partition_instance(const struct graph *g, const struct partition *p,
			       const char *name, struct instance **out, struct error *err);

#endif
