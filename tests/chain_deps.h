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
