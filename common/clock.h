/* Wall-clock time for measurements and time limits. */
#ifndef PIPEOPT_CLOCK_H
#define PIPEOPT_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock, from an arbitrary origin. */
static inline double clock_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
