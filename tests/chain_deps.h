/*
 * The ops of a small chain of stages and their dependencies, written
 * straight from docs/design.md (not from sched/), for the brute forces of
 * test_overlap and test_recompute:
 *     F(l,j) <- F(l-1,j), B(l,j) <- F(l,j) and B(l+1,j), W(l,j) <- B(l,j),
 * with the comm latency across devices. Ops are numbered as instance.h
 * numbers them, (kind * L + stage) * M + micro-batch.
 */
#ifndef PIPEOPT_TESTS_CHAIN_DEPS_H
#define PIPEOPT_TESTS_CHAIN_DEPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "sched/schedule.h"
#include "sched/sim.h"

static inline int chain_id(int L, int M, int k, int l, int j)
{
	return (k * L + l) * M + j;
}

/* Fill kind, stage, mb and each op's (at most two) inputs with their lags
 * for `kinds` kinds, L stages on devices dev[], M micro-batches. */
static inline void chain_deps(int kinds, int L, int M, const int *dev, int64_t comm,
			      int *kind, int *stage, int *mb, int *ndep, int (*dep)[2],
			      int64_t (*lag)[2])
{
	for (int k = 0; k < kinds; k++)
		for (int l = 0; l < L; l++)
			for (int j = 0; j < M; j++) {
				int o = chain_id(L, M, k, l, j), n = 0;
				kind[o] = k;
				stage[o] = l;
				mb[o] = j;
				if (k == 0 && l > 0) {   /* F */
					dep[o][n] = chain_id(L, M, 0, l - 1, j);
					lag[o][n++] = dev[l - 1] != dev[l] ? comm : 0;
				}
				if (k == 1) {            /* B */
					dep[o][n] = chain_id(L, M, 0, l, j);
					lag[o][n++] = 0;
					if (l + 1 < L) {
						dep[o][n] = chain_id(L, M, 1, l + 1, j);
						lag[o][n++] = dev[l + 1] != dev[l] ? comm : 0;
					}
				}
				if (k == 2) {            /* W */
					dep[o][n] = chain_id(L, M, 1, l, j);
					lag[o][n++] = 0;
				}
				ndep[o] = n;
			}
}

/* A device's order as units: one op, or an overlapped pair of two ops that
 * start together when both are ready and end together; each with its
 * duration (the evaluator's rules decide it). */
#define CHAIN_UNITS 16
struct chain_order {
	int n;
	int op[CHAIN_UNITS][2];       /* op ids; op[u][1] < 0: a single op */
	int64_t dur[CHAIN_UNITS];
};

/* Time the D (at most 8) orders: every unit starts when its device is
 * free and the inputs of its ops have arrived (ends plus lags), devices
 * visited until nothing moves. False on a deadlock. Fills start and end by
 * op id (at most 64 ops), the busy time, makespan and span. */
static inline bool chain_time(int D, const struct chain_order *ord, const int *ndep,
			      const int (*dep)[2], const int64_t (*lag)[2], int64_t *start,
			      int64_t *end, int64_t *busy, int64_t *makespan, int64_t *span)
{
	bool done[64] = {0};
	int next[8] = {0}, left = 0;
	int64_t free_at[8] = {0};
	for (int d = 0; d < D; d++)
		left += ord[d].n;
	*busy = *makespan = *span = 0;
	for (bool progress = true; progress && left > 0;) {
		progress = false;
		for (int d = 0; d < D; d++)
			while (next[d] < ord[d].n) {
				const int *u = ord[d].op[next[d]];
				int64_t t = free_at[d];
				bool ready = true;
				for (int q = 0; q < 2 && u[q] >= 0 && ready; q++)
					for (int i = 0; i < ndep[u[q]] && ready; i++) {
						int x = dep[u[q]][i];
						ready = done[x];
						if (ready && end[x] + lag[u[q]][i] > t)
							t = end[x] + lag[u[q]][i];
					}
				if (!ready)
					break;
				int64_t e = t + ord[d].dur[next[d]];
				for (int q = 0; q < 2 && u[q] >= 0; q++) {
					start[u[q]] = t;
					end[u[q]] = e;
					done[u[q]] = true;
				}
				*busy += e - t;
				free_at[d] = e;
				next[d]++;
				left--;
				progress = true;
			}
	}
	if (left > 0)
		return false;
	for (int d = 0; d < D; d++) {
		if (!ord[d].n)
			continue;
		const int *f = ord[d].op[0], *z = ord[d].op[ord[d].n - 1];
		int64_t a = start[f[0]], last = end[z[0]];
		*makespan = last > *makespan ? last : *makespan;
		*span = last - a > *span ? last - a : *span;
	}
	return true;
}

/* A small chain instance as JSON, up to the closing brace (the caller adds
 * its own keys and the brace): D devices, stage -> device dev[], M
 * micro-batches, per-stage costs of `kinds` kinds, comm on the edge 0 -> 1
 * when L = 2, memory deltas (mem NULL: none) and per-device limits (limit
 * NULL: none). Returns the length written. */
static inline int chain_json(char *buf, size_t size, int D, int L, int M, const int *dev,
			     int kinds, const int64_t (*cost)[2], int64_t comm,
			     const int64_t (*mem)[2], const int64_t *limit, bool span)
{
	int len = 0;
#define PUT(...) (len += snprintf(buf + len, len < (int)size ? size - len : 0, __VA_ARGS__))
#define LIST(v, n)                                                             \
	do {                                                                   \
		PUT("[");                                                      \
		for (int i_ = 0; i_ < (n); i_++)                               \
			PUT("%s%lld", i_ ? "," : "", (long long)(v)[i_]);      \
		PUT("]");                                                      \
	} while (0)
	static const char *const kind_name[] = {"F", "B", "W"};
	PUT("{\"devices\":%d,\"microbatches\":%d,\"placement\":", D, M);
	LIST(dev, L);
	PUT(",\"split_backward\":%s,\"cost\":{", kinds == 3 ? "true" : "false");
	for (int k = 0; k < kinds; k++) {
		PUT("%s\"%s\":", k ? "," : "", kind_name[k]);
		LIST(cost[k], L);
	}
	PUT("}");
	if (L > 1)
		PUT(",\"edges\":[[0,1]],\"comm\":%lld", (long long)comm);
	if (mem) {
		PUT(",\"memory\":{");
		for (int k = 0; k < kinds; k++) {
			PUT("%s\"%s\":", k ? "," : "", kind_name[k]);
			LIST(mem[k], L);
		}
		if (limit) {
			PUT(",\"limit\":");
			LIST(limit, D);
		}
		PUT("}");
	}
	if (span)
		PUT(",\"objective\":\"span\"");
#undef LIST
#undef PUT
	return len;
}

/* What an independent evaluator of the semantics found for a schedule. */
struct chain_expect {
	bool valid;
	const int64_t *start, *end;   /* [n] by op id */
	int64_t makespan, span, busy;
	const int64_t *peak;          /* [D] */
};

/* Fail, naming the instance and the schedule, when the simulator's verdict
 * (st, r, err) differs from the evaluator's (e) on the n ops. */
static inline void chain_compare(int n, int D, const int *kind, const int *stage,
				 const int *mb, const char *json, const struct schedule *sc,
				 enum status st, const struct sim_result *r,
				 const struct error *err, const struct chain_expect *e)
{
	const char *why = NULL;
	int bad = -1;
	if ((st == STATUS_OK) != e->valid) {
		why = e->valid ? "the simulator rejects a valid schedule" :
				 "the simulator accepts an invalid schedule";
	} else if (e->valid) {
		for (int o = 0; o < n && bad < 0; o++)
			if (r->start[o] != e->start[o] || r->end[o] != e->end[o])
				bad = o;
		if (bad >= 0)
			why = "an op's times differ";
		else if (r->makespan != e->makespan || r->span != e->span || r->busy != e->busy)
			why = "makespan, span or busy time differ";
		else
			for (int d = 0; d < D && !why; d++)
				if (r->peak_memory[d] != e->peak[d])
					why = "peak memory differs";
	}
	if (!why)
		return;
	json_t *j = schedule_to_json(sc);
	char *text = json_dumps(j, JSON_COMPACT);
	char op[96] = "";
	if (bad >= 0)
		snprintf(op, sizeof op, " (%s(%d,%d): sim [%lld,%lld), expected [%lld,%lld))",
			 op_kind_name(kind[bad]), stage[bad], mb[bad],
			 (long long)r->start[bad], (long long)r->end[bad],
			 (long long)e->start[bad], (long long)e->end[bad]);
	fail_msg("%s%s\ninstance %s\nschedule %s\nsim: %s, makespan %lld span %lld busy %lld; "
		 "expected makespan %lld span %lld busy %lld",
		 why, op, json, text, st ? err->msg : "ok", st ? 0LL : (long long)r->makespan,
		 st ? 0LL : (long long)r->span, st ? 0LL : (long long)r->busy,
		 (long long)e->makespan, (long long)e->span, (long long)e->busy);
	free(text);
	json_decref(j);
}

#endif
