/* Interrupts as a flag that long loops poll (stop.h). */
#include "common/stop.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

/* lock-free, so safe to set from a signal handler and read in any thread */
static atomic_int stop_sig;

static void on_signal(int sig)
{
	atomic_store(&stop_sig, sig);
}

void stop_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* one-shot: a second Ctrl-C kills; no SA_RESTART, so a blocking
	 * wait in the thread that takes the signal returns EINTR at once */
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static _Thread_local const atomic_bool *thread_stop;

void stop_thread_flag(const atomic_bool *flag)
{
	thread_stop = flag;
}

bool stop_requested(void)
{
	return atomic_load_explicit(&stop_sig, memory_order_relaxed) != 0 ||
	       (thread_stop && atomic_load_explicit(thread_stop, memory_order_relaxed));
}

int stop_signal(void)
{
	return atomic_load(&stop_sig);
}

void stop_request(void)
{
	atomic_store(&stop_sig, SIGINT);
}

void stop_clear(void)
{
	atomic_store(&stop_sig, 0);
}
