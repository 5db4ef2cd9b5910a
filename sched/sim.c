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
	/* offload (instance has_offload; else unused and small) */
	uint8_t *copied;        /* [2*L*M] O (c = 0) / L (c = 1) of (l, j) listed */
	int64_t *cstart, *cend; /* [2*L*M] their times, -1 when not listed */
	int64_t *chan_free;     /* [D] the copy channel's last end */
	int64_t *alloc_start;   /* [2*D] latest start of a listed op that takes
	                           memory, per device and resource (0 compute, 1
	                           channel) */
	int64_t *free_end;      /* [D] latest end of a listed op that frees memory */
	int nchannel;           /* channel ops in the schedule */
	int offloaded;          /* (stage, micro-batch)s offloaded */
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
	size_t nc = in->has_offload ? 2 * (size_t)in->stages * in->microbatches : 1;
	s->copied = calloc(nc, 1);
	s->cstart = malloc(nc * sizeof *s->cstart);
	s->cend = malloc(nc * sizeof *s->cend);
	s->chan_free = calloc(D, sizeof *s->chan_free);
	s->alloc_start = calloc(2 * (size_t)D, sizeof *s->alloc_start);
	s->free_end = calloc(D, sizeof *s->free_end);
	for (int l = 0; l < in->stages; l++)
		for (int k = 0; k < in->kinds; k++)
			s->busy += in->cost[k][l] * in->microbatches;
	if (!s->start || !s->end || !s->seen || !s->peak || !s->free_at ||
	    !s->pos || !s->stack || !s->queued || !s->rc || !s->copied || !s->cstart ||
	    !s->cend || !s->chan_free || !s->alloc_start || !s->free_end) {
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
	free(s->copied);
	free(s->cstart);
	free(s->cend);
	free(s->chan_free);
	free(s->alloc_start);
	free(s->free_end);
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

/* Pass 1 for an offload or reload at position i of device d: the instance
 * has offload, the op is of its stage's device, listed once, in the row
 * order F, O, L, B of its micro-batch; memory (device and host) moves by
 * what it copies. */
static enum status check_copy(struct sim *s, int d, int i, const struct op *o,
			      int64_t *mem, int64_t *peak, int64_t *host, struct error *err)
{
	const struct instance *in = s->in;
	char a[64], b[64];
	op_format(a, sizeof a, o->kind, o->stage, o->mb);
	if (!in->has_offload)
		return err_set(err, "device %d, position %d: %s is an %s, and the instance has no \"offload\" key",
			       d, i, a, o->kind == OP_O ? "offload" : "reload");
	if (o->stage < 0 || o->stage >= in->stages || o->mb < 0 || o->mb >= in->microbatches)
		return err_set(err, "device %d, position %d: %s is not an op of the instance (%d stages, %d micro-batches)",
			       d, i, a, in->stages, in->microbatches);
	if (in->stage_device[o->stage] != d)
		return err_set(err, "device %d, position %d: %s belongs to stage %d, which runs on device %d",
			       d, i, a, o->stage, in->stage_device[o->stage]);
	int c = o->kind == OP_L, x = inst_copy_index(in, c, o->stage, o->mb);
	if (s->copied[x])
		return err_set(err, "device %d, position %d: duplicate op %s", d, i, a);
	if (s->seen[inst_op_id(in, OP_B, o->stage, o->mb)])
		return err_set(err, "device %d, position %d: %s comes after %s; the row order is F, O, L, B",
			       d, i, a, op_format(b, sizeof b, OP_B, o->stage, o->mb));
	if (!c && !s->seen[inst_op_id(in, OP_F, o->stage, o->mb)])
		return err_set(err, "device %d, position %d: offload %s before %s; the row order is F, O, L, B",
			       d, i, a, op_format(b, sizeof b, OP_F, o->stage, o->mb));
	if (c && !s->copied[inst_copy_index(in, false, o->stage, o->mb)])
		return err_set(err, "device %d, position %d: reload %s before its offload %s; the row order is F, O, L, B",
			       d, i, a, op_format(b, sizeof b, OP_O, o->stage, o->mb));
	s->copied[x] = 1;
	s->nchannel++;
	s->offloaded += !c;
	int64_t moved = inst_moved(in, o->stage);
	*mem += c ? moved : -moved;
	*host += c ? -moved : moved;
	if (in->has_host_limit && *host > in->host_limit[d])
		return err_set(err, "device %d, position %d: host memory over the limit at %s: %" PRId64 " > %" PRId64,
			       d, i, a, *host, in->host_limit[d]);
	return charged(in, d, i, o, "", *mem, peak, err);
}

/* Every offload of the schedule has its reload before its B (a B before
 * its reload is caught at the B). */
static enum status check_reloads(const struct sim *s, struct error *err)
{
	const struct instance *in = s->in;
	char a[64];
	for (int l = 0; l < in->stages; l++)
		for (int j = 0; j < in->microbatches; j++)
			if (s->copied[inst_copy_index(in, false, l, j)] && !s->copied[inst_copy_index(in, true, l, j)])
				return err_set(err, "device %d: offload %s has no reload L(%d,%d) before its B",
					       in->stage_device[l], op_format(a, sizeof a, OP_O, l, j), l, j);
	return STATUS_OK;
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
	s->nchannel = s->offloaded = 0;
	if (in->has_offload)
		memset(s->copied, 0, 2 * (size_t)in->stages * in->microbatches);
	long count = 0;
	for (int d = 0; d < in->devices; d++) {
		const struct sched_row *row = &sc->rows[d];
		int64_t mem = 0, peak = 0, host = 0;
		int channel = s->nchannel;
		for (int i = 0; i < row->len; i++) {
			if (op_on_channel(row->ops[i].kind)) {
				if (check_copy(s, d, i, &row->ops[i], &mem, &peak, &host, err))
					return STATUS_ERROR;
				continue;
			}
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
			if (in->has_offload && o->kind == OP_B &&
			    s->copied[inst_copy_index(in, false, o->stage, o->mb)] &&
			    !s->copied[inst_copy_index(in, true, o->stage, o->mb)])
				return err_set(err, "device %d, position %d: %s before the reload L(%d,%d) of its offloaded activations",
					       d, i, op_format(a, sizeof a, o->kind, o->stage, o->mb),
					       o->stage, o->mb);
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
		count += row->len - (s->nchannel - channel);
	}
	if (in->has_offload && check_reloads(s, err))
		return STATUS_ERROR;
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

/* Offload timing (docs/design.md, Offload; the rule is sched/ready.h's
 * offload_floor): allocations happen in row order with every earlier free
 * done, so the row-order sums are the memory in use. An offload or reload
 * of device d runs on the channel after the previous one. */
static void time_copy(struct sim *s, int d, const struct op *o)
{
	const struct instance *in = s->in;
	int c = o->kind == OP_L, x = inst_copy_index(in, c, o->stage, o->mb);
	int64_t st = offload_copy_start(c, s->chan_free[d],
					s->end[inst_op_id(in, OP_F, o->stage, o->mb)],
					s->free_end, s->alloc_start, d);
	int64_t end = st + (c ? in->reload_cost[o->stage] : in->offload_cost[o->stage]);
	s->cstart[x] = st;
	s->cend[x] = s->chan_free[d] = end;
	int64_t moved = inst_moved(in, o->stage);
	offload_mark(s->free_end, s->alloc_start, d, 1, c ? moved : -moved, st, end);
}

/* A compute op's start on an offload instance: a B after its reload, an
 * op that takes memory by the memory rule. */
static int64_t offload_start(const struct sim *s, int d, const struct op *o, int64_t st)
{
	const struct instance *in = s->in;
	int64_t reload_end = o->kind == OP_B ? s->cend[inst_copy_index(in, true, o->stage, o->mb)] : -1;
	return offload_compute_start(o->kind, inst_delta(in, o->kind, o->stage), reload_end,
				     s->free_end, s->alloc_start, d, st);
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
	if (in->has_offload) {
		size_t nc = 2 * (size_t)L * M;
		memset(s->cstart, 0xff, nc * sizeof *s->cstart);
		memset(s->cend, 0xff, nc * sizeof *s->cend);
		for (int d = 0; d < D; d++) {
			s->chan_free[d] = s->free_end[d] = 0;
			s->alloc_start[2 * d] = s->alloc_start[2 * d + 1] = 0;
		}
	}
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
			if (in->has_offload && op_on_channel(row->ops[pos].kind)) {
				time_copy(s, d, &row->ops[pos++]);
				continue;   /* its inputs are listed before it */
			}
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
			if (in->has_offload)   /* no pairs with offload */
				st = offload_start(s, d, a, st);
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
				if (in->has_offload)
					offload_mark(s->free_end, s->alloc_start, d, 0,
						     inst_delta(in, k, l), st, t);
				wake_dependents(in, k, l, d, s->queued, s->stack, &top);
			}
			pos += n;
		}
		done += pos - s->pos[d];
		s->pos[d] = pos;
		s->free_at[d] = t;
	}
	if (done < s->nops + s->nchannel)
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
	r->offloaded = s->offloaded;
	r->copy_start = in->has_offload ? s->cstart : NULL;
	r->copy_end = in->has_offload ? s->cend : NULL;
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
