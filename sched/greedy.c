/*
 * The backward-first list scheduler (greedy.h). An event loop over time:
 * at time t every free device takes the best op that can start at t by
 * the priority of greedy.h; t then moves to the next moment something can
 * change, an op's end or an input's arrival (ready.h). Ops last at least
 * one time unit, so what could not start at t cannot start later at t.
 */
#include "sched/greedy.h"

#include <stdint.h>
#include <stdlib.h>

#include "sched/ready.h"

struct gr {
	const struct instance *in;
	int L, M, D;
	int64_t *end;      /* [nops] end of each op placed, -1 if not */
	int *next;         /* [kinds * L] next micro-batch of each slot */
	int64_t *free_at;  /* [D] when the device is free */
	int64_t *mem;      /* [D] memory in use */
};

/* The kinds in priority order (greedy.h). */
static const int priority[] = {OP_B, OP_F, OP_W};

/*
 * The op device d starts at t, or -1; *wake lowers to the earliest later
 * time at which one of its candidates' inputs arrive.
 */
static int choose(const struct gr *g, int d, int64_t t, int64_t *wake)
{
	const struct instance *in = g->in;
	for (int p = 0; p < 3; p++) {
		int k = priority[p], best = -1, best_j = 0, best_l = 0;
		if (k >= in->kinds)
			continue;
		for (int l = 0; l < g->L; l++) {
			int j = g->next[k * g->L + l], waiting;
			if (in->stage_device[l] != d || j >= g->M)
				continue;
			int64_t ready = op_ready_time(in, g->end, k, l, j, t, &waiting);
			if (ready < 0)
				continue;   /* an input is not placed yet */
			if (ready > t) {
				*wake = ready < *wake ? ready : *wake;
				continue;
			}
			if (in->has_limit && g->mem[d] + inst_delta(in, k, l) > in->limit[d])
				continue;   /* only this device's own ops change its memory */
			if (best < 0 || j < best_j || (j == best_j && l > best_l)) {
				best = inst_op_id(in, k, l, j);
				best_j = j;
				best_l = l;
			}
		}
		if (best >= 0)
			return best;
	}
	return -1;
}

static enum status place(struct gr *g, struct schedule *s, int d, int op, int64_t t)
{
	const struct instance *in = g->in;
	int per_kind = g->L * g->M, k = op / per_kind, l = op % per_kind / g->M,
	    j = op % g->M;
	g->end[op] = t + inst_duration(in, k, l);
	g->free_at[d] = g->end[op];
	g->mem[d] += inst_delta(in, k, l);
	g->next[k * g->L + l]++;
	return schedule_push(s, d, k, l, j);
}

static enum status run(struct gr *g, struct schedule *s, struct error *err)
{
	const struct instance *in = g->in;
	int n = inst_nops(in), placed = 0;
	int64_t t = 0;
	while (placed < n) {
		int64_t wake = INT64_MAX;
		for (int d = 0; d < g->D; d++) {
			if (g->free_at[d] > t) {
				wake = g->free_at[d] < wake ? g->free_at[d] : wake;
				continue;
			}
			int op = choose(g, d, t, &wake);
			if (op < 0)
				continue;
			if (place(g, s, d, op, t))
				return err_set(err, "backward-first: out of memory");
			placed++;
			wake = g->free_at[d] < wake ? g->free_at[d] : wake;
		}
		if (placed < n && wake == INT64_MAX)
			return err_set(err, "family 'backward-first' deadlocks on instance '%s': at time %lld every device waits and none can start an op under its memory limit",
				       in->name, (long long)t);
		t = wake;
	}
	return STATUS_OK;
}

enum status backward_first_generate(const struct instance *in, struct schedule **out,
				    struct error *err)
{
	struct gr g = {.in = in, .L = in->stages, .M = in->microbatches, .D = in->devices};
	int n = inst_nops(in);
	*out = NULL;
	g.end = malloc(n * sizeof *g.end);
	g.next = calloc((size_t)in->kinds * g.L, sizeof *g.next);
	g.free_at = calloc(g.D, sizeof *g.free_at);
	g.mem = calloc(g.D, sizeof *g.mem);
	struct schedule *s = schedule_new(g.D);
	enum status st = STATUS_OK;
	if (!g.end || !g.next || !g.free_at || !g.mem || !s) {
		st = err_set(err, "backward-first: out of memory");
	} else {
		for (int i = 0; i < n; i++)
			g.end[i] = -1;
		st = run(&g, s, err);
	}
	free(g.end);
	free(g.next);
	free(g.free_at);
	free(g.mem);
	if (st) {
		schedule_free(s);
		return STATUS_ERROR;
	}
	*out = s;
	return STATUS_OK;
}
