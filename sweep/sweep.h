/*
 * The sweep runner: the tasks of a spec not yet in the results file, run
 * on worker threads (or spread over MPI ranks, with rank 0 the only
 * writer), each row appended durably as it completes.
 *
 * MPI: rank 0 opens the results, finds the pending tasks and broadcasts
 * their indices; rank r runs pending[i] for i = r mod size on its own
 * threads; every rank's main thread does all of its MPI calls (workers
 * hand rows over through a queue), sending rows to rank 0, which appends
 * them with its own. The merged file has one row per task either way.
 */
#ifndef PIPEOPT_SWEEP_SWEEP_H
#define PIPEOPT_SWEEP_SWEEP_H

#include <stdbool.h>

#include "common/error.h"
#include "sweep/spec.h"

struct sweep_options {
	int jobs;                /* worker threads (per rank) */
	const char *output;      /* results file (JSON Lines) */
	bool progress;           /* a progress line on stderr */
	bool mpi;                /* spread over MPI ranks */
	int limit;               /* run at most this many tasks (0: all; for tests) */
};

struct sweep_stats {
	int total, done_before, ran, failed;   /* failed: status "error" */
	bool torn;               /* a torn last line was cut off */
	long torn_bytes;         /* its length */
	double seconds;
	double task_seconds;     /* sum of the rows' "seconds" run now */
	int rank, ranks;
};

enum status sweep_run(const struct sweep_spec *s, const struct sweep_options *o,
		      struct sweep_stats *st, struct error *err);

#endif
