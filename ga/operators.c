/* Crossover and mutations (see operators.h). */
#include "ga/operators.h"

#include <string.h>

static int row_len(const struct layout *lay, int d)
{
	return lay->row_start[d + 1] - lay->row_start[d];
}

void ga_crossover(const struct layout *lay, const gene_t *a, const gene_t *b,
		  gene_t *child, struct rng *r, int *count)
{
	for (int d = 0; d < lay->in->devices; d++) {
		int s = lay->row_start[d], n = row_len(lay, d), how = rng_below(r, 3);
		if (how < 2 || n < 2) {
			memcpy(child + s, (how == 1 ? b : a) + s, n * sizeof *child);
			continue;
		}
		/* a's ops up to the cut, then the rest in b's order: the i-th
		 * gene of a slot is micro-batch i, so in b skip the slot's first
		 * (already taken) occurrences */
		int cut = 1 + rng_below(r, n - 1), len = cut;
		for (int i = lay->dev_slot_start[d]; i < lay->dev_slot_start[d + 1]; i++)
			count[lay->dev_slots[i]] = 0;
		for (int i = 0; i < cut; i++) {
			child[s + i] = a[s + i];
			count[a[s + i]]++;
		}
		for (int i = 0; i < n; i++) {
			if (count[b[s + i]] > 0)
				count[b[s + i]]--;
			else
				child[s + len++] = b[s + i];
		}
	}
}

/* Move the gene at position from to position to, shifting those between. */
static void move_gene(gene_t *g, int from, int to)
{
	gene_t x = g[from];
	if (from < to)
		memmove(g + from, g + from + 1, (to - from) * sizeof *g);
	else
		memmove(g + to + 1, g + to, (from - to) * sizeof *g);
	g[to] = x;
}

/* A random row with at least two genes of different slots, or -1: half
 * the time near `focus`. */
static int pick_row(const struct layout *lay, int focus, struct rng *r)
{
	int D = lay->in->devices, d0 = rng_below(r, D);
	if (focus >= 0 && rng_below(r, 2)) {
		d0 = focus + rng_below(r, 3) - 1;
		d0 = d0 < 0 ? 0 : d0 >= D ? D - 1 : d0;
	}
	for (int i = 0; i < D; i++) {
		int d = (d0 + i) % D;
		if (lay->dev_slot_start[d + 1] - lay->dev_slot_start[d] >= 2)
			return d;
	}
	return -1;
}

/*
 * A position in a row of n genes: half the time uniform, half the time in
 * the first or last 2 D slots' worth of steps, the warm-up and the drain.
 * On long rows the steady state between them is periodic and rarely the
 * place to gain; on short rows this is close to uniform anyway.
 */
static int pick(const struct layout *lay, int n, struct rng *r)
{
	int e = 2 * lay->in->devices * lay->in->kinds;
	if (n <= 4 * e || rng_below(r, 2))
		return rng_below(r, n);
	int k = rng_below(r, 2 * e);
	return k < e ? k : n - 2 * e + k;
}

static bool mutate_swap(const struct layout *lay, gene_t *g, int s, int n, struct rng *r)
{
	int i = s + pick(lay, n - 1, r);
	for (int k = i + 1; k < s + n; k++)
		if (g[k] != g[i]) {
			gene_t t = g[k - 1];
			g[k - 1] = g[k];
			g[k] = t;
			return true;
		}
	return false;
}

static bool mutate_move_w(const struct layout *lay, gene_t *g, int s, int n,
			  int slots, struct rng *r)
{
	int i0 = pick(lay, n, r);
	for (int t = 0; t < n; t++) {
		int i = s + (i0 + t) % n;
		if (slot_kind(lay, g[i]) != OP_W)
			continue;
		int reach = 2 * slots + 2, delta = 1 + rng_below(r, reach);
		int to = rng_below(r, 2) ? i + delta : i - delta;
		to = to < s ? s : to >= s + n ? s + n - 1 : to;
		if (to == i)
			return false;
		move_gene(g, i, to);
		return true;
	}
	return false;
}

/* At a random step, take k >= 1 (mostly 1) more decisions of the other of
 * F and B: pull the next k genes of that kind up to this step, in order. */
static bool mutate_flip(const struct layout *lay, gene_t *g, int s, int n,
			struct rng *r)
{
	int i = s + pick(lay, n, r);
	int k = slot_kind(lay, g[i]);
	if (k == OP_W)
		return false;
	int want = k == OP_F ? OP_B : OP_F, pulls = 1, moved = 0;
	while (pulls < 4 && rng_below(r, 3) == 0)
		pulls++;
	for (int j = i + 1; j < s + n && moved < pulls; j++)
		if (slot_kind(lay, g[j]) == want)
			move_gene(g, j, i + moved++);
	return moved > 0;
}

static bool mutate_chunk(const struct layout *lay, gene_t *g, int s, int n,
			 struct rng *r)
{
	int i = s + pick(lay, n, r);
	for (int j = i + 1; j < s + n; j++)
		if (slot_kind(lay, g[j]) == slot_kind(lay, g[i]) &&
		    slot_stage(lay, g[j]) != slot_stage(lay, g[i])) {
			gene_t t = g[i];
			g[i] = g[j];
			g[j] = t;
			return true;
		}
	return false;
}

static bool mutate_scramble(const struct layout *lay, gene_t *g, int s, int n, int slots,
			    struct rng *r)
{
	int len = 2 + rng_below(r, 4 * slots - 1);
	len = len > n ? n : len;
	int from = s + pick(lay, n - len + 1, r);
	bool changed = false;
	for (int i = len - 1; i > 0; i--) {   /* Fisher-Yates */
		int j = rng_below(r, i + 1);
		gene_t t = g[from + i];
		changed |= t != g[from + j];
		g[from + i] = g[from + j];
		g[from + j] = t;
	}
	return changed;
}

bool ga_mutate(const struct layout *lay, gene_t *g, enum mutation m, int focus,
	       struct rng *r)
{
	int d = pick_row(lay, focus, r);
	if (d < 0)
		return false;
	int s = lay->row_start[d], n = row_len(lay, d);
	int slots = lay->dev_slot_start[d + 1] - lay->dev_slot_start[d];
	switch (m) {
	case MUT_SWAP:
		return mutate_swap(lay, g, s, n, r);
	case MUT_MOVE_W:
		return lay->in->split_backward && mutate_move_w(lay, g, s, n, slots, r);
	case MUT_FLIP_FB:
		return mutate_flip(lay, g, s, n, r);
	case MUT_CHUNK:
		return slots > lay->in->kinds && mutate_chunk(lay, g, s, n, r);
	case MUT_SCRAMBLE:
		return mutate_scramble(lay, g, s, n, slots, r);
	default:
		return false;
	}
}

void ga_random_genome(const struct layout *lay, gene_t *g, struct rng *r, int *count)
{
	const struct instance *in = lay->in;
	int M = in->microbatches, L = in->stages;
	for (int d = 0; d < in->devices; d++) {
		int a = lay->dev_slot_start[d], b = lay->dev_slot_start[d + 1];
		int64_t mem = 0, limit = in->has_limit ? in->limit[d] : INT64_MAX;
		for (int i = a; i < b; i++)
			count[lay->dev_slots[i]] = 0;
		for (int i = lay->row_start[d]; i < lay->row_start[d + 1]; i++) {
			/* the slots whose next op is allowed locally, with memory */
			int pick = -1, seen = 0, fallback = -1;
			for (int t = a; t < b; t++) {
				int q = lay->dev_slots[t], k = q / L, l = q % L;
				if (count[q] >= M || (k > 0 && count[q] >= count[(k - 1) * L + l]))
					continue;
				if (fallback < 0)
					fallback = q;
				if (mem + inst_delta(in, k, l) > limit)
					continue;
				if (rng_below(r, ++seen) == 0)   /* uniform among the allowed */
					pick = q;
			}
			if (pick < 0)
				pick = fallback;
			if (pick < 0) {   /* cannot happen: some slot always has ops left */
				for (int t = a; t < b && pick < 0; t++)
					if (count[lay->dev_slots[t]] < M)
						pick = lay->dev_slots[t];
			}
			g[i] = (gene_t)pick;
			count[pick]++;
			mem += inst_delta(in, pick / L, pick % L);
		}
	}
}
