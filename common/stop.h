/*
 * Stopping a command early: interrupts and the whole-command time limit.
 *
 * SIGINT and SIGTERM do not kill pipeopt: the first one sets a flag that
 * every long loop polls (the GA's generations, the exact search's nodes,
 * the wait for a solver child, a sweep's task queue, the profiler's
 * operators), so the command ends within a second with the best it has,
 * reports `stopped_by: "interrupt"`, writes its -o file and exits 130
 * (STOP_EXIT). A second signal kills at once (the handler is one-shot).
 *
 * The time limit: a command's --time-limit L is wall clock for everything
 * inside it (seeding and every sub-solve included), and the command ends
 * within stop_overrun(L) = max(1 s, 10 % of L) of it. Sub-solves that run
 * in child processes are killed by stop_kill_at(), which leaves half of
 * that allowance for the command to write its result.
 */
#ifndef PIPEOPT_STOP_H
#define PIPEOPT_STOP_H

#include <stdatomic.h>
#include <stdbool.h>

#define STOP_EXIT 130   /* 128 + SIGINT, for SIGTERM too */

/* Catch SIGINT and SIGTERM (once each); idempotent. */
void stop_install(void);

/* An interrupt arrived (async-signal-safe, any thread), or the calling
 * thread's own stop flag is set (stop_thread_flag). */
bool stop_requested(void);

/* A stop flag for the calling thread only (NULL: none): a helper thread
 * that runs a sub-solve (the GA's exact solve alongside its generations)
 * is cancelled through it, and everything that polls stop_requested in
 * that thread stops as for an interrupt, while the command goes on. */
void stop_thread_flag(const atomic_bool *flag);

/* Ask for a stop as a signal would (tests), or forget one. */
void stop_request(void);
void stop_clear(void);

/* The signal that asked, or 0. */
int stop_signal(void);

/* The allowance over a time limit: max(1 s, 10 % of limit). */
static inline double stop_overrun(double limit)
{
	return limit > 10 ? 0.1 * limit : 1.0;
}

/* The monotonic time at which a sub-solve started at t0 with limit L
 * (seconds, > 0) is killed: t0 + L + half the allowance. */
static inline double stop_kill_at(double t0, double limit)
{
	return t0 + limit + 0.5 * stop_overrun(limit);
}

#endif
