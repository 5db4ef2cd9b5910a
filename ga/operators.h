/*
 * The GA's variation operators. Each works on one device's row at a time
 * and keeps the row's multiset of slots (each slot of the device exactly M
 * times), so every child is again a genome; whether it is a good schedule
 * is for the decoder to find out.
 */
#ifndef PIPEOPT_GA_OPERATORS_H
#define PIPEOPT_GA_OPERATORS_H

#include "ga/genome.h"
#include "common/rng.h"

enum mutation {
	MUT_SWAP,       /* swap two adjacent genes that differ */
	MUT_MOVE_W,     /* move one W gene a few places earlier or later */
	MUT_FLIP_FB,    /* at one step take the other of F and B: move the next
	                   gene (sometimes the next 2-4) of the other kind up to
	                   this step */
	MUT_CHUNK,      /* with chunks: exchange a gene with the next gene of the
	                   same kind on another stage */
	MUT_SCRAMBLE,   /* shuffle a random stretch of up to 4 slots' worth of
	                   steps: a bigger jump, which the decoder's repairs turn
	                   into a valid schedule */
	MUT_COUNT
};

/*
 * Per-device crossover: each row of the child is a's row, b's row, or a's
 * row up to a random cut followed by the remaining genes in b's order
 * (order crossover with count repair). `count` is scratch, [nslots] ints.
 */
void ga_crossover(const struct layout *lay, const gene_t *a, const gene_t *b,
		  gene_t *child, struct rng *r, int *count);

/* Apply mutation m to a random row: half the time the row of device
 * `focus` or a neighbour (focus < 0: always uniform). False when it found
 * nothing to change (a row of one slot, or no W, or one chunk). */
bool ga_mutate(const struct layout *lay, gene_t *g, enum mutation m, int focus,
	       struct rng *r);

/*
 * A random walk down Koala's decision tree, per device: at each step one
 * of the slots whose next op is allowed on the device alone (B after its F,
 * W after its B, within the memory limit), uniformly. The decoder repairs
 * what the other devices make of it. `count` is scratch, [nslots] ints.
 */
void ga_random_genome(const struct layout *lay, gene_t *g, struct rng *r, int *count);

#endif
