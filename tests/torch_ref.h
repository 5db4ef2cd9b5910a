/*
 * Reference vectors for tests: PyTorch pipelining's schedules
 * (torch/distributed/pipelining/schedules.py) as their pipeline_order (per
 * rank, a list of actions, None for an idle step) and the CSV its
 * _dump_csv writes from it with Python's csv.writer. Written in C from
 * torch's published algorithms (ScheduleInterleaved1F1B and
 * ScheduleInterleavedZeroBubble through _get_1f1b_rank_ops, the latter's
 * _add_bubbles_to_actions, ScheduleLoopedBFS, ScheduleZBVZeroBubble,
 * ScheduleDualPipeV), independently of pipeopt's family programs and CSV
 * code, so that tests can hold those against them. Small sizes only.
 */
#ifndef PIPEOPT_TORCH_REF_H
#define PIPEOPT_TORCH_REF_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/instance.h"
#include "sched/schedule.h"

#define TREF_RANKS 8
#define TREF_STEPS 1024
#define TREF_STAGES 32
#define TREF_MB 64

struct tref_sub {
	char type;   /* 'F', 'I', 'W', 'B' (full backward) */
	int stage, mb;
};

/* type 0: None; 'O': OVERLAP_F_B of sub[0], sub[1]; else as tref_sub. */
struct tref_action {
	char type;
	int stage, mb;
	struct tref_sub sub[2];
};

struct tref {
	int ranks;
	int len[TREF_RANKS];
	struct tref_action a[TREF_RANKS][TREF_STEPS];
};

static inline struct tref *tref_new(int ranks)
{
	struct tref *t = calloc(1, sizeof *t);
	if (!t || ranks > TREF_RANKS) {
		fprintf(stderr, "tref_new: %d ranks\n", ranks);
		abort();
	}
	t->ranks = ranks;
	return t;
}

static inline void tref_put(struct tref *t, int r, struct tref_action a)
{
	if (t->len[r] == TREF_STEPS || a.stage >= TREF_STAGES || a.mb >= TREF_MB) {
		fprintf(stderr, "tref_put: too large\n");
		abort();
	}
	t->a[r][t->len[r]++] = a;
}

static inline void tref_push(struct tref *t, int r, char type, int stage, int mb)
{
	tref_put(t, r, (struct tref_action){type, stage, mb, {{0}}});
}

static inline void tref_none(struct tref *t, int r, int n)
{
	for (int i = 0; i < n; i++)
		tref_put(t, r, (struct tref_action){0});
}

/* Python's max(1, m // p) rounds of m // rounds micro-batches each; false
 * when m is not a multiple of the rounds (torch raises). */
static inline bool tref_rounds(int p, int m, int *g)
{
	int rounds = m / p > 1 ? m / p : 1;
	*g = m / rounds;
	return m % rounds == 0;
}

/*
 * Rank r of ScheduleInterleaved1F1B (zb false) or, before bubbles,
 * ScheduleInterleavedZeroBubble (zb true): p ranks, v local stages,
 * m micro-batches; _get_warmup_ops with multiply_factor 2 or 1, then
 * _get_1f1b_rank_ops.
 */
static inline void tref_1f1b_rank(struct tref *t, int r, int p, int v, int m,
				  bool zb)
{
	int g;
	tref_rounds(p, m, &g);
	int warm = (v - 1) * g + (zb ? 1 : 2) * (p - 1 - r);
	if (warm > m * v)
		warm = m * v;
	int fwd_bwd = m * v - warm, cooldown = m * v - fwd_bwd;
	int total = warm + fwd_bwd + cooldown;
	int post = zb ? p - r - 1 : v * p + 2 * (p - 1 - r) - (warm + r);
	int fmb[TREF_STAGES] = {0}, bmb[TREF_STAGES] = {0}, wmb[TREF_STAGES] = {0};
	int bops[2 * TREF_STEPS], nb = 0, wc = 0;
	char btype = zb ? 'I' : 'B';
#define TREF_FST(k) (((k) / g) % v * p + r)
#define TREF_BST(k) ((v - 1 - ((k) - warm) / g % v) * p + r)
	tref_none(t, r, r);
	for (int op = 0; op < total; op++) {
		if (op >= warm + fwd_bwd && !zb)
			tref_none(t, r, 1);
		if (op < warm + fwd_bwd) {
			int fs = TREF_FST(op);
			tref_push(t, r, 'F', fs, fmb[fs]++);
		}
		if (op == warm - 1 && post > 0)
			tref_none(t, r, post);
		if (op < warm)
			continue;
		int bs = TREF_BST(op);
		tref_push(t, r, btype, bs, bmb[bs]++);
		bops[nb++] = op;
		if (zb && op - warm >= r) {
			int ws = TREF_BST(bops[wc++]);
			tref_push(t, r, 'W', ws, wmb[ws]++);
		}
	}
	while (zb && wc < nb) {
		int ws = TREF_BST(bops[wc++]);
		tref_push(t, r, 'W', ws, wmb[ws]++);
	}
#undef TREF_FST
#undef TREF_BST
}

/*
 * _add_bubbles_to_actions: step by step, each rank runs its next action
 * unless it must wait, else idles; a forward waits until the forward of
 * the stage before ran at an earlier step, a full backward (B) until the
 * stage after's did (or, on the last stage, its own forward). As torch has
 * it, I and W never wait. A None in the input is an idle step too.
 */
static inline void tref_add_bubbles(struct tref *t, int stages)
{
	static bool seen[2][TREF_STAGES][TREF_MB];   /* [F, B] */
	struct tref *src = malloc(sizeof *src);
	memcpy(src, t, sizeof *src);
	memset(seen, 0, sizeof seen);
	memset(t->len, 0, sizeof t->len);
	int next[TREF_RANKS] = {0};
	for (int step = 0; step < TREF_STEPS; step++) {
		bool stop = true;
		struct tref_sub now[TREF_RANKS];
		int nnow = 0;
		for (int r = 0; r < t->ranks; r++) {
			if (next[r] >= src->len[r])
				continue;
			stop = false;
			struct tref_action a = src->a[r][next[r]];
			bool wait = false;
			if (a.type == 'F')
				wait = a.stage != 0 && !seen[0][a.stage - 1][a.mb];
			else if (a.type == 'B')
				wait = a.stage == stages - 1 ? !seen[0][a.stage][a.mb] :
				       !seen[1][a.stage + 1][a.mb];
			if (a.type && !wait) {
				tref_put(t, r, a);
				now[nnow++] = (struct tref_sub){a.type, a.stage, a.mb};
				next[r]++;
			} else {
				tref_none(t, r, 1);
				next[r] += !a.type;
			}
		}
		for (int i = 0; i < nnow; i++)
			if (now[i].type == 'F' || now[i].type == 'B')
				seen[now[i].type == 'B'][now[i].stage][now[i].mb] = true;
		if (stop)
			break;
	}
	free(src);
}

/* ScheduleInterleaved1F1B or ScheduleInterleavedZeroBubble; NULL when
 * torch refuses m. */
static inline struct tref *tref_interleaved(int p, int v, int m, bool zb)
{
	int g;
	if (!tref_rounds(p, m, &g))
		return NULL;
	struct tref *t = tref_new(p);
	for (int r = 0; r < p; r++)
		tref_1f1b_rank(t, r, p, v, m, zb);
	if (zb)
		tref_add_bubbles(t, v * p);
	return t;
}

/* ScheduleLoopedBFS: all forwards stage by stage, 2 idle steps per hop
 * from the last rank, then full backwards in reverse. */
static inline struct tref *tref_looped_bfs(int p, int v, int m)
{
	struct tref *t = tref_new(p);
	for (int r = 0; r < p; r++) {
		tref_none(t, r, r);
		for (int c = 0; c < v; c++)
			for (int j = 0; j < m; j++)
				tref_push(t, r, 'F', c * p + r, j);
		tref_none(t, r, 2 * (p - 1 - r));
		for (int c = v - 1; c >= 0; c--)
			for (int j = m - 1; j >= 0; j--)
				tref_push(t, r, 'B', c * p + r, j);
	}
	return t;
}

/* ScheduleZBVZeroBubble (2 stages a rank on the V: r and 2p-1-r), planned
 * for max(m, 2p-1) micro-batches, the extra ones then None. */
static inline struct tref *tref_zbv(int p, int m)
{
	struct tref *t = tref_new(p);
	int n = m > 2 * p - 1 ? m : 2 * p - 1;
	for (int r = 0; r < p; r++) {
		int s0 = r, s1 = 2 * p - 1 - r, f0 = 0, f1 = 0, b0 = 0, b1 = 0;
		tref_none(t, r, r);
		for (int i = 0; i < 2 * (p - r) - 1; i++)
			tref_push(t, r, 'F', s0, f0++);
		for (int i = 0; i < r; i++) {
			tref_push(t, r, 'F', s1, f1++);
			tref_push(t, r, 'F', s0, f0++);
		}
		for (int i = 0; i < p - r; i++) {
			tref_push(t, r, 'F', s1, f1++);
			tref_push(t, r, 'I', s1, b1);
			tref_push(t, r, 'W', s1, b1++);
		}
		while (f1 < f0 || f0 < n) {
			if (f0 < n)
				tref_push(t, r, 'F', s0, f0++);
			tref_push(t, r, 'I', s0, b0);
			tref_push(t, r, 'W', s0, b0++);
			tref_push(t, r, 'F', s1, f1++);
			tref_push(t, r, 'I', s1, b1);
			tref_push(t, r, 'W', s1, b1++);
		}
		int w0 = b0, w1 = b1;
		for (int i = 0; i < r; i++) {
			tref_push(t, r, 'I', s0, b0++);
			tref_push(t, r, 'I', s1, b1++);
		}
		for (int i = 0; i < p - r; i++) {
			tref_push(t, r, 'I', s0, b0++);
			tref_push(t, r, 'W', s0, w0++);
		}
		while (w1 < b1)
			tref_push(t, r, 'W', s1, w1++);
		while (w0 < b0)
			tref_push(t, r, 'W', s0, w0++);
		for (int i = 0; i < t->len[r]; i++)
			if (t->a[r][i].type && t->a[r][i].mb >= m)
				t->a[r][i] = (struct tref_action){0};
	}
	return t;
}

/* ScheduleDualPipeV's eight steps on the V (stages r and 2p-1-r), with its
 * overlapped F&B pairs, full backwards and FIFO of deferred W's; m >= 2p. */
static inline struct tref *tref_dualpipev(int p, int m)
{
	struct tref *t = tref_new(p);
	for (int r = 0; r < p; r++) {
		int s0 = r, s1 = 2 * p - 1 - r;
		int fc[TREF_STAGES] = {0}, ic[TREF_STAGES] = {0};
		struct tref_sub q[TREF_STEPS];
		int qh = 0, qt = 0;
		bool zb = false;
#define TREF_ADD(s, ty)                                                       \
	do {                                                                  \
		int s_ = (s);                                                 \
		char ty_ = (ty);                                              \
		tref_push(t, r, ty_, s_, ty_ == 'F' ? fc[s_]++ : ic[s_]++);   \
		if (ty_ == 'I')                                               \
			q[qt++] = (struct tref_sub){'W', s_, ic[s_] - 1};     \
	} while (0)
#define TREF_OVERLAP(fs, bs)                                                  \
	tref_put(t, r, (struct tref_action){'O', -1, -1,                      \
		{{'F', (fs), fc[(fs)]++}, {'B', (bs), ic[(bs)]++}}})
#define TREF_W()                                                              \
	do {                                                                  \
		if (qh < qt) {                                                \
			tref_push(t, r, 'W', q[qh].stage, q[qh].mb);          \
			qh++;                                                 \
		}                                                             \
	} while (0)
		for (int i = 0; i < 2 * (p - r - 1); i++)
			TREF_ADD(s0, 'F');
		for (int i = 0; i < r + 1; i++) {
			TREF_ADD(s0, 'F');
			TREF_ADD(s1, 'F');
		}
		for (int i = 0; i < p - r - 1; i++) {
			TREF_ADD(s1, 'I');
			TREF_W();
			TREF_ADD(s1, 'F');
		}
		for (int i = 0; i < m - 2 * p + r + 1; i++) {
			if (i == 0 && r == p - 1) {
				TREF_ADD(s0, 'F');
				TREF_ADD(s1, 'B');
			} else {
				TREF_OVERLAP(s0, s1);
			}
			TREF_OVERLAP(s1, s0);
		}
		for (int i = 0; i < p - r - 1; i++) {
			TREF_ADD(s1, 'B');
			TREF_OVERLAP(s1, s0);
		}
		for (int i = 0; i < r + 1; i++) {
			if (i == (r + 1) / 2 && r % 2 == 1)
				zb = true;
			TREF_ADD(s1, zb ? 'I' : 'B');
			if (i == (r + 1) / 2 && r % 2 == 0)
				zb = true;
			TREF_ADD(s0, zb ? 'I' : 'B');
		}
		for (int i = 0; i < p - r - 1; i++) {
			TREF_W();
			TREF_ADD(s0, zb ? 'I' : 'B');
		}
		for (int i = 0; i < r + 1; i++)
			TREF_W();
#undef TREF_ADD
#undef TREF_OVERLAP
#undef TREF_W
	}
	return t;
}

static inline void tref_sub_text(char *buf, size_t n, struct tref_sub s)
{
	snprintf(buf, n, "%d%c%d", s.stage, s.type, s.mb);
}

/* _dump_csv: csv.writer rows of str(action), None as an empty field; a row
 * whose only field is empty is written `""`. Python ends rows "\r\n";
 * torch's artifacts are stored with "\n". New string, caller frees. */
static inline char *tref_csv(const struct tref *t, const char *nl)
{
	size_t cap = 64;
	for (int r = 0; r < t->ranks; r++)
		cap += 48 * (size_t)(t->len[r] + 1);
	char *out = malloc(cap), *p = out;
	for (int r = 0; r < t->ranks; r++) {
		if (t->len[r] == 1 && !t->a[r][0].type)
			p += sprintf(p, "\"\"");
		for (int i = 0; i < t->len[r]; i++) {
			const struct tref_action *a = &t->a[r][i];
			char x[24], y[24];
			if (i)
				*p++ = ',';
			if (a->type == 'O') {
				tref_sub_text(x, sizeof x, a->sub[0]);
				tref_sub_text(y, sizeof y, a->sub[1]);
				p += sprintf(p, "(%s;%s)OVERLAP_F_B", x, y);
			} else if (a->type) {
				p += sprintf(p, "%d%c%d", a->stage, a->type, a->mb);
			}
		}
		p += sprintf(p, "%s", nl);
	}
	*p = 0;
	return out;
}

static inline void tref_sub_ops(struct schedule *s, int r, struct tref_sub a,
				bool split)
{
	if (a.type == 'F')
		schedule_push(s, r, OP_F, a.stage, a.mb);
	else if (a.type == 'W')
		schedule_push(s, r, OP_W, a.stage, a.mb);
	else
		schedule_push(s, r, OP_B, a.stage, a.mb);
	if (a.type == 'B' && split)
		schedule_push(s, r, OP_W, a.stage, a.mb);
}

/* The compute order per rank as a pipeopt schedule: I is B, a full B of a
 * split schedule B then W, an overlap its sub-actions in order. */
static inline struct schedule *tref_schedule(const struct tref *t, bool split)
{
	struct schedule *s = schedule_new(t->ranks);
	for (int r = 0; r < t->ranks; r++)
		for (int i = 0; i < t->len[r]; i++) {
			const struct tref_action *a = &t->a[r][i];
			if (a->type == 'O') {
				/* torch's OVERLAP_F_B is (F; B): an overlapped pair of
				 * the F and the backward's first op (its W, when the
				 * backward is full and split, after the pair) */
				int at = s->rows[r].len;
				tref_sub_ops(s, r, a->sub[0], split);
				tref_sub_ops(s, r, a->sub[1], split);
				if (s->rows[r].len >= at + 2)
					s->rows[r].ops[at + 1].with_prev = true;
			} else if (a->type) {
				tref_sub_ops(s, r, (struct tref_sub){a->type, a->stage, a->mb},
					     split);
			}
		}
	return s;
}

#endif
