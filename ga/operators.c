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

static bool mutate_swap(gene_t *g, int s, int n, struct rng *r)
{
	int i = s + rng_below(r, n - 1);
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
	int i0 = rng_below(r, n);
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

static bool mutate_flip(const struct layout *lay, gene_t *g, int s, int n,
			struct rng *r)
{
	int i = s + rng_below(r, n);
	int k = slot_kind(lay, g[i]);
	if (k == OP_W)
		return false;
	for (int j = i + 1; j < s + n; j++) {
		int kj = slot_kind(lay, g[j]);
		if (kj != OP_W && kj != k) {
			move_gene(g, j, i);
			return true;
		}
	}
	return false;
}

static bool mutate_chunk(const struct layout *lay, gene_t *g, int s, int n,
			 struct rng *r)
{
	int i = s + rng_below(r, n);
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
		return mutate_swap(g, s, n, r);
	case MUT_MOVE_W:
		return lay->in->split_backward && mutate_move_w(lay, g, s, n, slots, r);
	case MUT_FLIP_FB:
		return mutate_flip(lay, g, s, n, r);
	case MUT_CHUNK:
		return slots > lay->in->kinds && mutate_chunk(lay, g, s, n, r);
	default:
		return false;
	}
}
