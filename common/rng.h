/*
 * A small, fast, reproducible random number generator (xoshiro256**,
 * seeded by splitmix64), so that a GA run (or any seeded search) is the same for the same --seed
 * on every platform.
 */
#ifndef PIPEOPT_COMMON_RNG_H
#define PIPEOPT_COMMON_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

static inline uint64_t rng_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = rng_splitmix(&seed);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, out = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; bias < n / 2^64). */
static inline int rng_below(struct rng *r, int n)
{
	return (int)(((unsigned __int128)rng_next(r) * (uint64_t)n) >> 64);
}

/* Uniform in [0, 1). */
static inline double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

#endif
