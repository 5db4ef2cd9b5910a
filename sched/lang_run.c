/*
 * The schedule language: the interpreter. A program runs once per device;
 * op statements append to that device's order, numbering micro-batches per
 * (stage, kind). See lang.h and docs/language.md.
 */
#include "sched/lang.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/lang_ast.h"

/* ---- evaluation ----------------------------------------------------------------- */

/* The interpreter's state while a program runs for one device. */
struct lang_run {
	const struct program *pg;
	const struct instance *in;
	struct schedule *out;
	struct error *err;
	int d;                      /* this device */
	int nlocal;                 /* stages on d */
	int *local;                 /* [nlocal] stage of each chunk */
	int *depth;                 /* [L] stages on the longest path to a sink */
	int *next_mb;               /* [OP_KINDS * nlocal] */
	int64_t *slots;
	long steps, max_steps;
	int failed;
	int vmin, vmax;             /* fewest and most stages on a device */
};

static enum status rerr(struct lang_run *r, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static enum status rerr(struct lang_run *r, int line, int col, const char *fmt, ...)
{
	char what[320];
	va_list ap;
	if (r->failed)
		return STATUS_ERROR;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	r->failed = 1;
	return err_set(r->err, "schedule program '%s': line %d, column %d, device %d: %s",
		       r->pg->name ? r->pg->name : r->pg->source, line, col, r->d, what);
}

static int64_t eval(struct lang_run *r, const struct expr *e);

/*
 * Floor and ceiling division without undefined behaviour: b != 0, and the
 * one overflowing case, INT64_MIN / -1, is reported by returning false.
 * C's / truncates toward zero; when the remainder is non-zero the floor is
 * one lower if the signs differ and the ceiling one higher if they agree.
 */
static bool div_floor(int64_t a, int64_t b, int64_t *q, int64_t *rem)
{
	if (b == -1) {
		*rem = 0;
		if (a == INT64_MIN)
			return false;
		*q = -a;
		return true;
	}
	int64_t t = a / b, r = a % b;
	if (r != 0 && ((r < 0) != (b < 0))) {
		t -= 1;
		r += b;   /* |r| < |b| and opposite signs: no overflow */
	}
	*q = t;
	*rem = r;
	return true;
}

static bool div_ceil(int64_t a, int64_t b, int64_t *q)
{
	if (b == -1) {
		if (a == INT64_MIN)
			return false;
		*q = -a;
		return true;
	}
	int64_t t = a / b, r = a % b;
	*q = (r != 0 && ((r < 0) == (b < 0))) ? t + 1 : t;
	return true;
}

static int64_t eval_bin(struct lang_run *r, const struct expr *e)
{
	int64_t a = eval(r, e->args[0]);
	if (r->failed)
		return 0;
	if (e->op == -1 && !a)   /* and: short-circuit */
		return 0;
	if (e->op == -2 && a)    /* or */
		return 1;
	int64_t b = eval(r, e->args[1]), x;
	if (r->failed)
		return 0;
	switch (e->op) {
	case -1: case -2: return b != 0;
	case T_EQ: return a == b;
	case T_NE: return a != b;
	case T_LT: return a < b;
	case T_LE: return a <= b;
	case T_GT: return a > b;
	case T_GE: return a >= b;
	case T_PLUS:
		if (__builtin_add_overflow(a, b, &x))
			break;
		return x;
	case T_MINUS:
		if (__builtin_sub_overflow(a, b, &x))
			break;
		return x;
	case T_STAR:
		if (__builtin_mul_overflow(a, b, &x))
			break;
		return x;
	case T_SLASH: case T_PERCENT:
		if (b == 0) {
			rerr(r, e->line, e->col, "division by zero");
			return 0;
		}
		{
			int64_t rem;
			if (!div_floor(a, b, &x, &rem)) {
				if (e->op == T_PERCENT)
					return 0;   /* INT64_MIN % -1 is 0 */
				break;
			}
			return e->op == T_SLASH ? x : rem;
		}
	}
	rerr(r, e->line, e->col, "arithmetic overflow");
	return 0;
}

static int64_t chunk_stage(struct lang_run *r, int line, int col, int64_t c)
{
	if (c < 0 || c >= r->nlocal) {
		if (r->nlocal == 0)
			rerr(r, line, col, "chunk %" PRId64 ": this device runs no stage", c);
		else
			rerr(r, line, col, "chunk %" PRId64 " does not exist: this device runs %d stage%s (chunks 0..%d)",
			     c, r->nlocal, r->nlocal == 1 ? "" : "s", r->nlocal - 1);
		return -1;
	}
	return r->local[c];
}

static int64_t eval_call(struct lang_run *r, const struct expr *e)
{
	int64_t a[16];
	for (int i = 0; i < e->nargs; i++) {
		if (e->fn == FN_IF && i > 0) {
			/* if(c, x, y) evaluates only the branch taken */
			return eval(r, e->args[a[0] ? 1 : 2]);
		}
		a[i] = eval(r, e->args[i]);
		if (r->failed)
			return 0;
	}
	int64_t x = a[0];
	switch (e->fn) {
	case FN_MIN:
		for (int i = 1; i < e->nargs; i++)
			x = a[i] < x ? a[i] : x;
		return x;
	case FN_MAX:
		for (int i = 1; i < e->nargs; i++)
			x = a[i] > x ? a[i] : x;
		return x;
	case FN_ABS:
		if (x == INT64_MIN) {
			rerr(r, e->line, e->col, "arithmetic overflow");
			return 0;
		}
		return x < 0 ? -x : x;
	case FN_CDIV:
		if (a[1] == 0) {
			rerr(r, e->line, e->col, "division by zero");
			return 0;
		}
		if (!div_ceil(a[0], a[1], &x)) {
			rerr(r, e->line, e->col, "arithmetic overflow");
			return 0;
		}
		return x;
	case FN_STAGE:
		return chunk_stage(r, e->line, e->col, x);
	case FN_DEPTH: {
		int64_t s = chunk_stage(r, e->line, e->col, x);
		return s < 0 ? 0 : r->depth[s];
	}
	case FN_IF:
		return 0;   /* handled above */
	case FN_USER: {
		const struct def *d = &r->pg->defs[e->def];
		int64_t saved[8];
		for (int i = 0; i < d->nparams; i++) {
			saved[i] = r->slots[d->params[i]];
			r->slots[d->params[i]] = a[i];
		}
		if (++r->steps > r->max_steps) {
			rerr(r, e->line, e->col, "the program does not finish (over %ld steps)",
			     r->max_steps);
			return 0;
		}
		int64_t v = eval(r, d->body);
		for (int i = 0; i < d->nparams; i++)
			r->slots[d->params[i]] = saved[i];
		return v;
	}
	}
	return 0;
}

static int64_t eval(struct lang_run *r, const struct expr *e)
{
	if (r->failed)
		return 0;
	switch (e->type) {
	case E_NUM: return e->num;
	case E_VAR: return r->slots[e->slot];
	case E_CALL: return eval_call(r, e);
	case E_BIN: return eval_bin(r, e);
	case E_NOT: return !eval(r, e->args[0]);
	case E_NEG: {
		int64_t x = eval(r, e->args[0]);
		if (x == INT64_MIN) {
			rerr(r, e->line, e->col, "arithmetic overflow");
			return 0;
		}
		return -x;
	}
	}
	return 0;
}

static enum status run_block(struct lang_run *r, const struct block *b);

/* Emit op `kind` on chunk a (NULL: 0); *pushed whether it was (a fused
 * backward's W and a padded program's extra ops are not). */
static enum status emit(struct lang_run *r, const struct stmt *s, int kind,
			const struct expr *a, bool *pushed)
{
	const struct instance *in = r->in;
	int64_t c = a ? eval(r, a) : 0;
	*pushed = false;
	if (r->failed)
		return STATUS_ERROR;
	if (kind == OP_W && !in->split_backward)
		return STATUS_OK;   /* fused backward: W is part of B */
	int64_t stage = chunk_stage(r, s->line, s->col, c);
	if (stage < 0)
		return STATUS_ERROR;
	int *next_mb = &r->next_mb[kind * r->nlocal + c];
	if (*next_mb >= in->microbatches && r->pg->pad) {
		(*next_mb)++;   /* planned for more micro-batches: drop it */
		return STATUS_OK;
	}
	if (*next_mb >= in->microbatches)
		return rerr(r, s->line, s->col, "%s[%" PRId64 "] would be micro-batch %d of stage %" PRId64 ", but there are only %d",
			    op_kind_name(kind), c, *next_mb, stage, in->microbatches);
	if (schedule_push(r->out, r->d, kind, (int)stage, (*next_mb)++))
		return rerr(r, s->line, s->col, "out of memory");
	*pushed = true;
	return STATUS_OK;
}

/* An op, or an overlapped pair "F[a] & B[b]" (joined only when both ops
 * are emitted; a padded program may drop one). */
static enum status run_op(struct lang_run *r, const struct stmt *s)
{
	bool first, second;
	if (emit(r, s, s->kind, s->a, &first))
		return STATUS_ERROR;
	if (!s->paired)
		return STATUS_OK;
	if (emit(r, s, s->kind2, s->b, &second))
		return STATUS_ERROR;
	if (first && second && schedule_join_last(r->out, r->d))
		return rerr(r, s->line, s->col, "out of memory");
	return STATUS_OK;
}

/* Every loop iteration counts as a step, so an empty body cannot spin. */
static enum status loop_step(struct lang_run *r, const struct stmt *s)
{
	if (++r->steps > r->max_steps)
		return rerr(r, s->line, s->col, "the program does not finish (over %ld steps)",
			    r->max_steps);
	return STATUS_OK;
}

static enum status run_stmt(struct lang_run *r, const struct stmt *s)
{
	int64_t n, lo, hi;
	if (++r->steps > r->max_steps)
		return rerr(r, s->line, s->col, "the program does not finish (over %ld steps)",
			    r->max_steps);
	switch (s->type) {
	case S_OP:
		return run_op(r, s);
	case S_LET:
		r->slots[s->slot] = eval(r, s->a);
		return r->failed ? STATUS_ERROR : STATUS_OK;
	case S_REQUIRE:
		n = eval(r, s->a);
		if (r->failed)
			return STATUS_ERROR;
		if (!n) {
			r->failed = 1;
			return err_set(r->err, "family '%s' does not support instance '%s': %s",
				       r->pg->name ? r->pg->name : r->pg->source,
				       r->in->name, s->message);
		}
		return STATUS_OK;
	case S_REPEAT:
		n = eval(r, s->a);
		if (r->failed)
			return STATUS_ERROR;
		if (n < 0)
			return rerr(r, s->line, s->col, "repeat count %" PRId64 " is negative", n);
		for (int64_t i = 0; i < n; i++)
			if (loop_step(r, s) || run_block(r, s->body))
				return STATUS_ERROR;
		return STATUS_OK;
	case S_FOR:
		lo = eval(r, s->a);
		hi = eval(r, s->b);
		if (r->failed)
			return STATUS_ERROR;
		for (int64_t i = lo; i < hi; i++) {
			r->slots[s->slot] = i;
			if (loop_step(r, s) || run_block(r, s->body))
				return STATUS_ERROR;
		}
		return STATUS_OK;
	case S_IF:
		n = eval(r, s->a);
		if (r->failed)
			return STATUS_ERROR;
		if (n)
			return run_block(r, s->body);
		return s->other ? run_block(r, s->other) : STATUS_OK;
	}
	return STATUS_OK;
}

static enum status run_block(struct lang_run *r, const struct block *b)
{
	for (int i = 0; i < b->n; i++)
		if (run_stmt(r, b->stmts[i]))
			return STATUS_ERROR;
	return STATUS_OK;
}

/* Fewest and most stages on any device (computed once per run). */
static void stages_per_device(const struct instance *in, int *vmin, int *vmax)
{
	int *count = calloc(in->devices, sizeof(int));
	*vmin = 0;
	*vmax = 0;
	if (!count)
		return;
	for (int l = 0; l < in->stages; l++)
		count[in->stage_device[l]]++;
	*vmin = in->stages;
	for (int d = 0; d < in->devices; d++) {
		*vmin = count[d] < *vmin ? count[d] : *vmin;
		*vmax = count[d] > *vmax ? count[d] : *vmax;
	}
	free(count);
}

/* depth[s] = number of stages on the longest path from s to a sink. */
static void stage_depths(const struct instance *in, int *depth)
{
	for (int i = in->stages - 1; i >= 0; i--) {
		int s = in->topo[i], best = 0;
		for (int e = in->succ_start[s]; e < in->succ_start[s + 1]; e++)
			if (depth[in->succ[e].stage] > best)
				best = depth[in->succ[e].stage];
		depth[s] = best + 1;
	}
}

/* Whether the stage DAG is exactly two chains of half the stages each,
 * 0 -> ... -> L/2-1 and L/2 -> ... -> L-1 (DualPipe's two copies of the
 * model with L = 2p, BitPipe's with L = 4p; edges are distinct, so
 * counting them suffices). */
static bool two_chains(const struct instance *in)
{
	int q = in->stages / 2;
	if (in->stages != 2 * q || q < 1 || in->nedges != 2 * (q - 1))
		return false;
	for (int e = 0; e < in->nedges; e++) {
		int a = in->edges[e][0], b = in->edges[e][1];
		if (b != a + 1 || a == q - 1 || a >= 2 * q - 1)
			return false;
	}
	return true;
}

static void set_builtins(struct lang_run *r)
{
	const struct instance *in = r->in;
	int64_t *v = r->slots;
	v[V_P] = in->devices;
	v[V_D] = r->d;
	v[V_M] = in->microbatches;
	v[V_V] = r->nlocal;
	v[V_L] = in->stages;
	v[V_CHUNKS] = in->chunks;
	v[V_VMIN] = r->vmin;
	v[V_VMAX] = r->vmax;
	v[V_SPLIT] = in->split_backward;
	v[V_CHAIN] = in->is_chain;
	v[V_LINEAR] = !strcmp(in->placement, "linear");
	v[V_INTERLEAVED] = !strcmp(in->placement, "interleaved");
	v[V_VSHAPE] = !strcmp(in->placement, "v");
	v[V_LISTED] = !strcmp(in->placement, "list");
	v[V_DUAL] = two_chains(in);
}

static enum status run_device(struct lang_run *r)
{
	const struct instance *in = r->in;
	r->nlocal = 0;
	for (int l = 0; l < in->stages; l++)
		if (in->stage_device[l] == r->d)
			r->local[r->nlocal++] = l;
	memset(r->next_mb, 0, OP_KINDS * (in->stages + 1) * sizeof(int));
	memset(r->slots, 0, r->pg->nslots * sizeof(int64_t));
	set_builtins(r);
	r->steps = 0;
	/* generous: a few steps per op the device runs, plus slack */
	r->max_steps = 64L * (r->nlocal + 1) * OP_KINDS * in->microbatches + 1000000;
	return run_block(r, r->pg->top);
}

enum status program_run(const struct program *pg, const struct instance *in,
			struct schedule **out, struct error *err)
{
	struct lang_run r = {.pg = pg, .in = in, .err = err};
	*out = NULL;
	r.out = schedule_new(in->devices);
	r.local = malloc(in->stages * sizeof(int));
	r.depth = malloc(in->stages * sizeof(int));
	r.next_mb = malloc(OP_KINDS * (in->stages + 1) * sizeof(int));
	r.slots = malloc(pg->nslots * sizeof(int64_t));
	enum status st = STATUS_OK;
	if (!r.out || !r.local || !r.depth || !r.next_mb || !r.slots) {
		st = err_set(err, "schedule program '%s': out of memory", pg->source);
	} else {
		stage_depths(in, r.depth);
		stages_per_device(in, &r.vmin, &r.vmax);
		for (r.d = 0; r.d < in->devices && !st; r.d++)
			st = run_device(&r);
	}
	free(r.local);
	free(r.depth);
	free(r.next_mb);
	free(r.slots);
	if (st) {
		schedule_free(r.out);
		return STATUS_ERROR;
	}
	*out = r.out;
	return STATUS_OK;
}
