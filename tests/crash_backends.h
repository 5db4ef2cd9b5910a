/*
 * Fake MILP backends whose process dies, for the isolated solve's crash
 * rule (solvers/isolate.c) and the exact solver's handling of it
 * (solvers/exact.c, run_backend): one crashes after its own time limit has
 * passed (CBC 2.10.8's segfault in CglPreProcess::postProcess when its
 * time runs out), one at once. cmocka's handlers are inherited by the
 * child, so each restores the default action before it raises the signal.
 */
#ifndef PIPEOPT_TEST_CRASH_BACKENDS_H
#define PIPEOPT_TEST_CRASH_BACKENDS_H

#include <signal.h>
#include <unistd.h>

#include "solvers/backend.h"

static inline enum status crash_after_limit(const struct milp *m, const struct solver_options *o,
					    struct solver_result *r, struct error *err)
{
	(void)m, (void)r, (void)err;
	usleep((useconds_t)((o->time_limit + 0.1) * 1e6));
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
	return STATUS_ERROR;
}

static inline enum status crash_at_once(const struct milp *m, const struct solver_options *o,
					struct solver_result *r, struct error *err)
{
	(void)m, (void)o, (void)r, (void)err;
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
	return STATUS_ERROR;
}

static inline const char *fake_version(void)
{
	return "0";
}

#endif
