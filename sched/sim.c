/* The simulator and validator (see sim.h for the semantics). */
#include "sched/sim.h"
#include "sched/ready.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct sim {
	const struct instance *in;
	int nops;
	int64_t *start, *end;   /* [nops] by op id; end < 0 = not yet run */
	uint8_t *seen;          /* [nops] */
	int64_t *peak;          /* [D] */
	int64_t *free_at;       /* [D] time the device finishes its last op */
	int *pos;               /* [D] next position in the device's order */
	int *stack;             /* [D] devices to look at again */
	uint8_t *queued;        /* [D] */
	uint8_t *rc;            /* [L*M] micro-batch j recomputed on stage l */
	int64_t busy;           /* sum of all op durations, time units */
	int64_t recompute_busy; /* the run's recomputes' time */
	int recomputed;         /* and their number */
	int64_t saved;          /* busy time the run's overlapped pairs saved */
};

/* Whether op i of the row starts an overlapped pair the instance honours
 * (without overlap a pair's ops run back to back, as two ops). */
static bool pair_at(const struct instance *in, const struct sched_row *row, int i)
{
	return in->has_overlap && i + 1 < row->len && row->ops[i + 1].with_prev;
}

/* A pair's rule: an F and a B, two ops only, not at the row's start. */
static enum status check_pair(const struct sched_row *row, int d, int i, struct error *err)
{
	char a[64], b[64];
	const struct op *o = &row->ops[i], *p = i > 0 ? &row->ops[i - 1] : NULL;
	if (!p)
		return err_set(err, "device %d, position 0: %s is marked as overlapped with the op before it, and there is none",
			       d, op_format(a, sizeof a, o->kind, o->stage, o->mb));
	if (p->with_prev)
		return err_set(err, "device %d, position %d: %s would be a third op in an overlapped pair (a pair is one F and one B)",
			       d, i, op_format(a, sizeof a, o->kind, o->stage, o->mb));
	if (!((p->kind == OP_F && o->kind == OP_B) || (p->kind == OP_B && o->kind == OP_F)))
		return err_set(err, "device %d, position %d: an overlapped pair is one F and one B, not %s and %s",
			       d, i - 1, op_format(a, sizeof a, p->kind, p->stage, p->mb),
			       op_format(b, sizeof b, o->kind, o->stage, o->mb));
	return STATUS_OK;
}

/* The op whose memory delta is charged at position i: a pair holds the F's
 * new activation and the B's old one together, so its F counts first
 * whatever the listed order; a (B, F) pair is charged F, then B. */
static int charged_at(const struct instance *in, const struct sched_row *row, int i)
{
	if (pair_at(in, row, i) && row->ops[i].kind == OP_B)
		return i + 1;
	if (in->has_overlap && row->ops[i].with_prev && row->ops[i].kind == OP_F)
		return i - 1;
	return i;
}

struct sim *sim_new(const struct instance *in)
{
	struct sim *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	int n = inst_nops(in), D = in->devices;
	s->in = in;
	s->nops = n;
	s->start = malloc(n * sizeof *s->start);
	s->end = malloc(n * sizeof *s->end);
	s->seen = malloc(n);
	s->peak = malloc(D * sizeof *s->peak);
	s->free_at = malloc(D * sizeof *s->free_at);
	s->pos = malloc(D * sizeof *s->pos);
	s->stack = malloc(D * sizeof *s->stack);
	s->queued = malloc(D);
	s->rc = calloc(in->has_recompute ? (size_t)in->stages * in->microbatches : 1, 1);
	for (int l = 0; l < in->stages; l++)
		for (int k = 0; k < in->kinds; k++)
			s->busy += in->cost[k][l] * in->microbatches;
	if (!s->start || !s->end || !s->seen || !s->peak || !s->free_at ||
	    !s->pos || !s->stack || !s->queued || !s->rc) {
		sim_free(s);
		return NULL;
	}
	return s;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	free(s->start);
	free(s->end);
	free(s->seen);
	free(s->peak);
	free(s->free_at);
	free(s->pos);
	free(s->stack);
	free(s->queued);
	free(s->rc);
	free(s);
}

/* The recompute marks of an instance with recompute, each marked (stage,
 * micro-batch) into s->rc for its F's memory (pass 1 checks the marks). */
static void read_recompute(struct sim *s, const struct schedule *sc)
{
	const struct instance *in = s->in;
	int M = in->microbatches;
	memset(s->rc, 0, (size_t)in->stages * M);
	s->recompute_busy = 0;
	s->recomputed = 0;
	for (int d = 0; d < sc->devices; d++)
		for (int i = 0; i < sc->rows[d].len; i++) {
			const struct op *o = &sc->rows[d].ops[i];
			if (!o->recompute || o->kind != OP_B || o->stage < 0 ||
			    o->stage >= in->stages || o->mb < 0 || o->mb >= M)
				continue;   /* pass 1 names what is wrong */
			s->rc[o->stage * M + o->mb] = 1;
			s->recompute_busy += in->recompute_cost[o->stage];
			s->recomputed++;
		}
}

/* Memory in use rose to mem at position i of device d (after op o, or
 * with `what` after its recompute): track the peak; past the limit, the
 * error. */
static enum status charged(const struct instance *in, int d, int i, const struct op *o,
			   const char *what, int64_t mem, int64_t *peak, struct error *err)
{
	char a[64];
	if (mem > *peak)
		*peak = mem;
	if (!in->has_limit || mem <= in->limit[d])
		return STATUS_OK;
	return err_set(err, "device %d, position %d: memory over the limit at %s%s: %" PRId64 " > %" PRId64,
		       d, i, op_format(a, sizeof a, o->kind, o->stage, o->mb), what, mem,
		       in->limit[d]);
}

/* Pass 1: every op is one of the instance's, on its stage's device, at most
 * once; then none is missing. Also tracks memory against the limits: a
 * recomputed micro-batch's F holds the kept part, and its B first takes
 * back what the recompute rebuilds (instance.h). */
static enum status check_ops(struct sim *s, const struct schedule *sc,
			     struct error *err)
{
	const struct instance *in = s->in;
	char a[64];
	memset(s->seen, 0, s->nops);
	if (in->has_recompute)
		read_recompute(s, sc);
	long count = 0;
	for (int d = 0; d < in->devices; d++) {
		const struct sched_row *row = &sc->rows[d];
		int64_t mem = 0, peak = 0;
		for (int i = 0; i < row->len; i++) {
			if (in->has_overlap && row->ops[i].with_prev && check_pair(row, d, i, err))
				return STATUS_ERROR;
			const struct op *o = &row->ops[charged_at(in, row, i)];
			if (o->kind < 0 || o->kind >= in->kinds || o->stage < 0 ||
			    o->stage >= in->stages || o->mb < 0 ||
			    o->mb >= in->microbatches)
				return err_set(err, "device %d, position %d: %s is not an op of the instance (%d stages, %d micro-batches, %s)",
					       d, i, op_format(a, sizeof a, o->kind, o->stage, o->mb),
					       in->stages, in->microbatches,
					       in->split_backward ? "kinds F, B, W" : "kinds F, B");
			if (in->stage_device[o->stage] != d)
				return err_set(err, "device %d, position %d: %s belongs to stage %d, which runs on device %d",
					       d, i, op_format(a, sizeof a, o->kind, o->stage, o->mb),
					       o->stage, in->stage_device[o->stage]);
			int id = inst_op_id(in, o->kind, o->stage, o->mb);
			if (s->seen[id])
				return err_set(err, "device %d, position %d: duplicate op %s",
					       d, i, op_format(a, sizeof a, o->kind, o->stage, o->mb));
			s->seen[id] = 1;
			if (o->recompute && (o->kind != OP_B || !in->has_recompute))
				return err_set(err, o->kind != OP_B ?
					       "device %d, position %d: %s is marked recompute; only a B can be" :
					       "device %d, position %d: %s is marked recompute, and the instance has no \"recompute\" key",
					       d, i, op_format(a, sizeof a, o->kind, o->stage, o->mb));
			int64_t delta = inst_delta(in, o->kind, o->stage);
			if (in->has_recompute && s->rc[o->stage * in->microbatches + o->mb]) {
				/* its F holds the kept part; its B first takes the
				 * rebuilt part back */
				if (o->kind == OP_F)
					delta = inst_f_delta(in, o->stage, true);
				else if (o->kind == OP_B &&
					 charged(in, d, i, o, "'s recompute",
						 mem += inst_rebuilt(in, o->stage), &peak, err))
					return STATUS_ERROR;
			}
			mem += delta;
			if (charged(in, d, i, o, "", mem, &peak, err))
				return STATUS_ERROR;
		}
		s->peak[d] = peak;
		count += row->len;
	}
	if (count == s->nops)
		return STATUS_OK;
	int M = in->microbatches, L = in->stages;
	for (int id = 0; id < s->nops; id++)
		if (!s->seen[id]) {
			int k = id / (L * M), l = id / M % L, j = id % M;
			return err_set(err, "device %d: missing op %s",
				       in->stage_device[l], op_format(a, sizeof a, k, l, j));
		}
	return STATUS_OK;   /* unreachable: count < nops means one is unseen */
}

static enum status report_deadlock(const struct sim *s,
				   const struct schedule *sc,
				   struct error *err)
{
	const struct instance *in = s->in;
	int M = in->microbatches, L = in->stages, len = 0, shown = 0;
	char msg[sizeof err->msg], a[64], b[64];
	len = snprintf(msg, sizeof msg, "deadlock: the orders contradict the dependencies:");
	for (int d = 0; d < in->devices && shown < 3; d++) {
		if (s->pos[d] >= sc->rows[d].len)
			continue;
		const struct op *o = &sc->rows[d].ops[s->pos[d]];
		int w = -1;
		if (op_ready_time(in, s->end, o->kind, o->stage, o->mb, 0, &w) >= 0 &&
		    pair_at(in, &sc->rows[d], s->pos[d]))
			o++;   /* a pair waits for its second op's input */
		op_ready_time(in, s->end, o->kind, o->stage, o->mb, 0, &w);
		int wk = w / (L * M), wl = w / M % L, wj = w % M;
		len += snprintf(msg + len, len < (int)sizeof msg ? sizeof msg - len : 0,
				"%s device %d waits at %s for %s (device %d)",
				shown ? ";" : "", d,
				op_format(a, sizeof a, o->kind, o->stage, o->mb),
				op_format(b, sizeof b, wk, wl, wj),
				in->stage_device[wl]);
		shown++;
	}
	return err_set(err, "%s", msg);
}

/* Pass 2: time the ops. A device runs its order until an input is missing;
 * finishing an op re-queues the devices whose ops may wait for it. */
static enum status time_ops(struct sim *s, const struct schedule *sc,
			    struct error *err)
{
	const struct instance *in = s->in;
	const int M = in->microbatches, L = in->stages, D = in->devices;
	int top = 0, done = 0;
	s->saved = 0;
	memset(s->end, 0xff, s->nops * sizeof *s->end);   /* all -1 */
	for (int d = 0; d < D; d++) {
		s->pos[d] = 0;
		s->free_at[d] = 0;
		s->queued[d] = 1;
		s->stack[top++] = D - 1 - d;
	}
	while (top > 0) {
		int d = s->stack[--top];
		s->queued[d] = 0;
		const struct sched_row *row = &sc->rows[d];
		int pos = s->pos[d];
		int64_t t = s->free_at[d];
		while (pos < row->len) {
			/* one op, or an overlapped pair: both start when both are
			 * ready and end together, inst_pair_cost later */
			int n = pair_at(in, row, pos) ? 2 : 1;
			int64_t st = t, dur = 0;
			for (int q = 0; q < n && st >= 0; q++) {
				const struct op *o = &row->ops[pos + q];
				int w;
				st = op_ready_time(in, s->end, o->kind, o->stage, o->mb, st, &w);
			}
			if (st < 0)
				break;
			const struct op *a = &row->ops[pos], *b = &row->ops[pos + n - 1];
			dur = inst_op_duration(in, a->kind, a->stage, a->recompute);
			if (n == 2) {
				int64_t da = dur, db = inst_op_duration(in, b->kind, b->stage, b->recompute);
				dur = inst_pair_cost(in, da, db);
				s->saved += da + db - dur;
			}
			t = st + dur;
			for (int q = 0; q < n; q++) {
				const struct op *o = &row->ops[pos + q];
				int k = o->kind, l = o->stage, id = (k * L + l) * M + o->mb;
				s->start[id] = st;
				s->end[id] = t;
				wake_dependents(in, k, l, d, s->queued, s->stack, &top);
			}
			pos += n;
		}
		done += pos - s->pos[d];
		s->pos[d] = pos;
		s->free_at[d] = t;
	}
	if (done < s->nops)
		return report_deadlock(s, sc, err);
	return STATUS_OK;
}

static void summarise(const struct sim *s, const struct schedule *sc,
		      struct sim_result *r)
{
	const struct instance *in = s->in;
	int64_t makespan = 0, span = 0;
	for (int d = 0; d < in->devices; d++) {
		const struct sched_row *row = &sc->rows[d];
		if (!row->len)
			continue;
		const struct op *f = &row->ops[0], *g = &row->ops[row->len - 1];
		int64_t first = s->start[inst_op_id(in, f->kind, f->stage, f->mb)];
		int64_t last = s->end[inst_op_id(in, g->kind, g->stage, g->mb)];
		makespan = last > makespan ? last : makespan;
		span = last - first > span ? last - first : span;
	}
	r->makespan = makespan;
	r->span = span;
	r->objective = in->objective == OBJ_SPAN ? span : makespan;
	r->busy = s->busy + s->recompute_busy - s->saved;
	r->recomputed = s->recomputed;
	r->bubble_ratio = makespan > 0 ?
		1.0 - (double)r->busy / ((double)in->devices * (double)makespan) : 0.0;
	r->peak_memory = s->peak;
	r->start = s->start;
	r->end = s->end;
}

enum status sim_run(struct sim *s, const struct schedule *sc,
		    struct sim_result *r, struct error *err)
{
	if (sc->devices != s->in->devices)
		return err_set(err, "the schedule has %d device rows, the instance %d devices",
			       sc->devices, s->in->devices);
	if (check_ops(s, sc, err) || time_ops(s, sc, err))
		return STATUS_ERROR;
	summarise(s, sc, r);
	return STATUS_OK;
}
