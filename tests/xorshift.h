/* Deterministic small random numbers for the tests' random instances
 * (xorshift64): a whole number in [lo, hi] from *state, which advances. */
#ifndef PIPEOPT_TESTS_XORSHIFT_H
#define PIPEOPT_TESTS_XORSHIFT_H

#include <stdint.h>

static inline int xorshift_in(uint64_t *state, int lo, int hi)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return lo + (int)(*state % (uint64_t)(hi - lo + 1));
}

#endif
