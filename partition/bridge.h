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

/* The iteration time that plan and exec see: the makespan of family
 * 1f1b-dag (GraphPipe's schedule) on the instance of p, simulated; sets
 * p->iteration_time (microseconds). p must have been evaluated
 * (partition_evaluate). Memory is the partitioner's check, in bytes
 * (stage.memory, in-flight = depth, exactly what 1f1b-dag keeps): the
 * simulated instance has no limits, so the KiB rounding of the file
 * cannot refuse a plan at the limit; the makespan does not depend on
 * limits (they never delay an op). */
enum status partition_simulate(const struct graph *g, struct partition *p, struct error *err);

#endif
