/*
 * The backward-first list scheduler (greedy.h). An event loop over time:
 * at time t every free device takes the best op that can start at t by
 * the priority of greedy.h; t then moves to the next moment something can
 * change, an op's end or an input's arrival (ready.h). F and B last at
 * least one time unit (the instance requires it), so no input arrives at
 * the t it is placed at; a W may last 0, and then its device is free at t
 * again with less memory in use, and the loop looks at t once more.
 */
#include "sched/greedy.h"

#include <stdbool.h>
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

struct pick {
	int k, l, j;       /* kind, stage, micro-batch */
};

/*
 * The op device d starts at t into *o, false if none; *wake lowers to the
 * earliest later time at which one of its candidates' inputs arrive.
 */
static bool choose(const struct gr *g, int d, int64_t t, int64_t *wake, struct pick *o)
{
	const struct instance *in = g->in;
	for (int p = 0; p < 3; p++) {
		int k = priority[p];
		bool found = false;
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
			if (!found || j < o->j || (j == o->j && l > o->l)) {
				*o = (struct pick){k, l, j};
				found = true;
			}
		}
		if (found)
			return true;
	}
	return false;
}

static enum status place(struct gr *g, struct schedule *s, int d, struct pick o, int64_t t)
{
	const struct instance *in = g->in;
	int64_t end = t + inst_duration(in, o.k, o.l);
	g->end[inst_op_id(in, o.k, o.l, o.j)] = end;
	g->free_at[d] = end;
	g->mem[d] += inst_delta(in, o.k, o.l);
	g->next[o.k * g->L + o.l]++;
	return schedule_push(s, d, o.k, o.l, o.j);
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
			struct pick o = {0};
			if (!choose(g, d, t, &wake, &o))
				continue;
			if (place(g, s, d, o, t))
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
