/* PyTorch pipelining CSV schedules (see torch_csv.h). */
#include "sched/torch_csv.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/strbuf.h"

/* Actions that run no op: kept as text, never scheduled. */
static const char *const passive[] = {
	"SEND_F", "RECV_F", "SEND_B", "RECV_B", "UNSHARD", "RESHARD",
	"REDUCE_GRAD", NULL};

static const char overlap_name[] = "OVERLAP_F_B";

#define MAX_SUB 16      /* sub-actions in one OVERLAP_F_B */
#define MAX_CELL 255    /* characters in one cell */

/* One compute action: type 'F', 'I', 'W' or 'B'. */
struct action {
	char type;
	int stage, mb;
};

/* One cell, parsed: `nact` compute actions, or (nact 0) the text of an
 * action that runs no op, or (nact 0, empty text) an idle step. */
struct cell {
	int nact;
	struct action act[MAX_SUB];
	char text[TORCH_ACTION_MAX + 1];
};

/* Where an op was read, to report one read twice. */
struct seen {
	int64_t key;
	int line, column;
};

struct cell_parse {
	const char *source;
	int line, column;        /* 1-based, for messages */
	bool split;              /* an I or a W seen (the first pass finds it) */
	struct schedule *s;      /* NULL in the first pass, which only checks */
	struct seen *seen;       /* [nseen] in the second pass */
	long nseen;
	long maxops;             /* ops at most (the first pass counts) */
	struct error *err;
};

static int64_t op_key(int kind, int stage, int mb)
{
	return ((int64_t)kind * INST_MAX_STAGES + stage) * INST_MAX_MICROBATCHES + mb;
}

static enum status cell_fail(const struct cell_parse *c, const char *cell,
			     const char *why)
{
	return err_set(c->err, "torch csv '%s': line %d, column %d: action '%s': %s",
		       c->source, c->line, c->column, cell, why);
}

/* A non-negative decimal of at most 9 digits; returns the characters used
 * (0 for none), or -1 when there are more. */
static int parse_uint(const char *s, long *out)
{
	int n = 0;
	*out = 0;
	while (isdigit((unsigned char)s[n]) && n < 10)
		*out = *out * 10 + (s[n++] - '0');
	return isdigit((unsigned char)s[n]) ? -1 : n;
}

/*
 * One action "{stage}{type}{microbatch}" in t[0..len). A compute action
 * fills *a; one that runs no op fills `text` (its canonical form: torch's
 * repr) when `text` is not NULL and is an error otherwise. Returns NULL or
 * what is wrong.
 */
static const char *parse_action(const char *t, size_t len, struct action *a,
				char *text)
{
	char buf[MAX_CELL + 1];
	long st, j;
	memcpy(buf, t, len);
	buf[len] = 0;
	int n = parse_uint(buf, &st);
	if (n <= 0)
		return "expected {stage}{F|I|W|B}{microbatch}, e.g. 0F3";
	if (st >= INST_MAX_STAGES)
		return "stage or micro-batch out of range";
	const char *p = buf + n;
	for (int i = 0; passive[i]; i++) {
		size_t k = strlen(passive[i]);
		if (strncmp(p, passive[i], k))
			continue;
		int m = parse_uint(p + k, &j);   /* optional micro-batch */
		if (m < 0 || p[k + m])
			return "expected digits after the action";
		if (!text)
			return "only compute actions (F, I, W, B) can overlap";
		if (m && j >= INST_MAX_MICROBATCHES)
			return "stage or micro-batch out of range";
		if (m)
			snprintf(text, TORCH_ACTION_MAX + 1, "%ld%s%ld", st, passive[i], j);
		else
			snprintf(text, TORCH_ACTION_MAX + 1, "%ld%s", st, passive[i]);
		return NULL;
	}
	if (!*p || !strchr("FIWB", *p))
		return "type must be F, I, W or B";
	int m = parse_uint(p + 1, &j);
	if (m <= 0 || p[1 + m])
		return "expected a micro-batch number after the type";
	if (j >= INST_MAX_MICROBATCHES)
		return "stage or micro-batch out of range";
	*a = (struct action){*p, (int)st, (int)j};
	return NULL;
}

/* "(a;b;...)OVERLAP_F_B": its sub-actions, in order, into *out; what is
 * wrong goes into msg[MAX_CELL + 64]. */
static const char *parse_overlap(const char *cell, struct cell *out, char *msg)
{
	const char *close = strchr(cell, ')');
	if (!close || strcmp(close + 1, overlap_name))
		return "expected (action;action)OVERLAP_F_B";
	for (const char *p = cell + 1; p < close;) {
		const char *e = p;
		while (e < close && *e != ';')
			e++;
		const char *a = p, *b = e;
		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (b > a) {   /* torch skips an empty sub-action */
			if (out->nact == MAX_SUB)
				return "more than 16 actions overlap";
			const char *why = parse_action(a, (size_t)(b - a),
						       &out->act[out->nact], NULL);
			if (why) {
				snprintf(msg, MAX_CELL + 64, "sub-action '%.*s': %s",
					 (int)(b - a), a, why);
				return msg;
			}
			out->nact++;
		}
		p = e + 1;
	}
	return out->nact ? NULL : "OVERLAP_F_B of no actions";
}

/* One cell, already trimmed. */
static enum status parse_cell(struct cell_parse *c, const char *cell,
			      struct cell *out)
{
	char msg[MAX_CELL + 64];
	out->nact = 0;
	out->text[0] = 0;
	if (!*cell || !strcmp(cell, "\"\""))
		return STATUS_OK;
	const char *why = cell[0] == '(' ? parse_overlap(cell, out, msg) :
			  parse_action(cell, strlen(cell), &out->act[0], out->text);
	if (why)
		return cell_fail(c, cell, why);
	if (cell[0] != '(' && !out->text[0])
		out->nact = 1;
	for (int i = 0; i < out->nact; i++)
		if (out->act[i].type == 'I' || out->act[i].type == 'W')
			c->split = true;
	c->maxops += 2 * out->nact;   /* a full B may be two */
	return STATUS_OK;
}

static enum status push_op(struct cell_parse *c, int d, int kind,
			   const struct action *a)
{
	if (schedule_push(c->s, d, kind, a->stage, a->mb))
		return err_set(c->err, "torch csv '%s': out of memory", c->source);
	c->seen[c->nseen++] = (struct seen){op_key(kind, a->stage, a->mb),
					   c->line, c->column};
	return STATUS_OK;
}

/* Second pass: the cell's ops into device d's order, the cell into its
 * layout row. */
static enum status build_cell(struct cell_parse *c, int d, const struct cell *cl)
{
	int ops = 0;
	for (int i = 0; i < cl->nact; i++) {
		const struct action *a = &cl->act[i];
		int kind = a->type == 'F' ? OP_F : a->type == 'W' ? OP_W : OP_B;
		if (push_op(c, d, kind, a))
			return STATUS_ERROR;
		ops++;
		if (a->type == 'B' && c->split) {   /* full backward: B then W */
			if (push_op(c, d, OP_W, a))
				return STATUS_ERROR;
			ops++;
		}
	}
	/* an OVERLAP_F_B of one F and one backward is an overlapped pair (the
	 * F and the backward's B, when they are next to each other: "(F;B)"
	 * of a split schedule is F, B, W with the pair first; "(B;F)" there
	 * runs back to back, the W between) */
	const struct sched_row *row = &c->s->rows[d];
	const struct op *o = cl->nact == 2 && ops >= 2 ? row->ops + row->len - ops : NULL;
	if (o && ((o[0].kind == OP_F && o[1].kind == OP_B) ||
		  (ops == 2 && o[0].kind == OP_B && o[1].kind == OP_F)))
		row->ops[row->len - ops + 1].with_prev = true;   /* (no pointer into an empty row) */
	if (schedule_cell_push(c->s, d, ops, cl->text))
		return err_set(c->err, "torch csv '%s': out of memory", c->source);
	return STATUS_OK;
}

/* One rank per line: every newline ends a row, and text after the last
 * newline is one more row. (Blank lines are ranks with no actions, as in
 * Python's csv reader.) */
static int count_rows(const char *text)
{
	int rows = 0;
	const char *p = text;
	for (; *p; p++)
		rows += *p == '\n';
	if (p > text && p[-1] != '\n')
		rows++;
	return rows;
}

static enum status parse_row(struct cell_parse *c, int d, const char *line,
			     size_t len)
{
	c->column = 0;
	if (!len)
		return STATUS_OK;   /* a rank with no steps */
	for (size_t i = 0; i <= len;) {
		size_t e = i;
		while (e < len && line[e] != ',')
			e++;
		char text[MAX_CELL + 1];
		size_t a = i, b = e;
		while (a < b && isspace((unsigned char)line[a]))
			a++;
		while (b > a && isspace((unsigned char)line[b - 1]))
			b--;
		c->column++;
		if (b - a > MAX_CELL) {
			snprintf(text, sizeof text, "%.20s...", line + a);
			return cell_fail(c, text, "cell too long");
		}
		memcpy(text, line + a, b - a);
		text[b - a] = 0;
		struct cell cl;
		if (parse_cell(c, text, &cl) || (c->s && build_cell(c, d, &cl)))
			return STATUS_ERROR;
		i = e + 1;
	}
	return STATUS_OK;
}

/* One pass over the rows; *crlf: every row that ends, ends in "\r\n". */
static enum status parse_rows(struct cell_parse *c, const char *text,
			      int rows, bool *crlf)
{
	const char *p = text;
	*crlf = strchr(text, '\n') != NULL;
	for (int d = 0; d < rows; d++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		bool cr = len && p[len - 1] == '\r';
		if (cr)
			len--;
		if (e && !cr)
			*crlf = false;
		c->line = d + 1;
		if (parse_row(c, d, p, len))
			return STATUS_ERROR;
		p = e ? e + 1 : p + len + cr;
	}
	return STATUS_OK;
}

static int seen_cmp(const void *x, const void *y)
{
	const struct seen *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->line != b->line)
		return a->line - b->line;
	return a->column - b->column;
}

/* An op read twice: the error at the earliest second reading. */
static enum status check_twice(struct cell_parse *c)
{
	qsort(c->seen, (size_t)c->nseen, sizeof *c->seen, seen_cmp);
	const struct seen *first = NULL, *again = NULL;
	for (long i = 1; i < c->nseen; i++) {
		const struct seen *a = &c->seen[i - 1], *b = &c->seen[i];
		if (a->key != b->key || (again && (again->line < b->line ||
		    (again->line == b->line && again->column <= b->column))))
			continue;
		long k = i - 1;   /* the first reading of this op */
		while (k > 0 && c->seen[k - 1].key == b->key)
			k--;
		first = &c->seen[k];
		again = b;
	}
	if (!again)
		return STATUS_OK;
	char op[64];
	int64_t key = again->key;
	int mb = (int)(key % INST_MAX_MICROBATCHES);
	key /= INST_MAX_MICROBATCHES;
	op_format(op, sizeof op, (int)(key / INST_MAX_STAGES),
		  (int)(key % INST_MAX_STAGES), mb);
	return err_set(c->err, "torch csv '%s': line %d, column %d: op %s a second time (first at line %d, column %d)",
		       c->source, again->line, again->column, op, first->line,
		       first->column);
}

enum status torch_csv_parse(const char *text, const char *source,
			    struct schedule **out, struct error *err)
{
	struct cell_parse c = {.source = source, .err = err};
	bool crlf;
	*out = NULL;
	int rows = count_rows(text);
	if (rows < 1)
		return err_set(err, "torch csv '%s': no rows (expected one row per rank)", source);
	if (rows > INST_MAX_DEVICES)
		return err_set(err, "torch csv '%s': %d rows exceeds the maximum %d ranks",
			       source, rows, INST_MAX_DEVICES);
	/* The first pass checks every cell and finds whether the backward is
	 * split (what a B means); the second builds. */
	if (parse_rows(&c, text, rows, &crlf))
		return STATUS_ERROR;
	c.s = schedule_new(rows);
	c.seen = malloc((c.maxops ? c.maxops : 1) * sizeof *c.seen);
	enum status st = STATUS_ERROR;
	if (!c.s || !c.seen || schedule_layout_new(c.s))
		err_set(err, "torch csv '%s': out of memory", source);
	else if (!parse_rows(&c, text, rows, &crlf) && !check_twice(&c))
		st = STATUS_OK;
	free(c.seen);
	if (st) {
		schedule_free(c.s);
		return st;
	}
	c.s->layout->crlf = crlf;
	*out = c.s;
	return STATUS_OK;
}

enum status torch_csv_read(const char *path, struct schedule **out,
			   struct error *err)
{
	char *text;
	*out = NULL;
	if (file_slurp(path, "torch csv", &text, err))
		return STATUS_ERROR;
	enum status st = torch_csv_parse(text, path, out, err);
	free(text);
	return st;
}

/* ---- writing ------------------------------------------------------------ */

static void put_action(struct strbuf *sb, const struct op *o, bool split,
		       bool full)
{
	char t = o->kind == OP_F ? 'F' : o->kind == OP_W ? 'W' :
		 full || !split ? 'B' : 'I';
	sb_printf(sb, "%d%c%d", o->stage, t, o->mb);
}

/* Whether ops o[0], o[1] are the B and W of one micro-batch. */
static bool full_backward(const struct op *o, int n, bool split)
{
	return split && n >= 2 && o[0].kind == OP_B && o[1].kind == OP_W &&
	       o[0].stage == o[1].stage && o[0].mb == o[1].mb;
}

/* A cell of n >= 1 ops: one action, or the actions as OVERLAP_F_B. */
static void put_composite(struct strbuf *sb, const struct op *o, int n,
			  bool split)
{
	int actions = 0;
	for (int i = 0; i < n; i += full_backward(o + i, n - i, split) ? 2 : 1)
		actions++;
	if (actions > 1)
		sb_putc(sb, '(');
	for (int i = 0, k = 0; i < n; k++) {
		bool full = full_backward(o + i, n - i, split);
		if (k)
			sb_putc(sb, ';');
		put_action(sb, &o[i], split, full);
		i += full ? 2 : 1;
	}
	if (actions > 1)
		sb_printf(sb, ")%s", overlap_name);
}

static char *format_layout(const struct schedule *s, bool split)
{
	struct strbuf sb = {0};
	const char *nl = s->layout->crlf ? "\r\n" : "\n";
	for (int d = 0; d < s->devices; d++) {
		const struct sched_cells *r = &s->layout->rows[d];
		const struct op *o = s->rows[d].ops;
		/* Python's csv writer quotes a row's only cell when it is empty */
		if (r->len == 1 && !r->cells[0].ops && !r->cells[0].text[0])
			sb_printf(&sb, "\"\"");
		for (int i = 0; i < r->len; i++) {
			const struct sched_cell *c = &r->cells[i];
			if (i)
				sb_putc(&sb, ',');
			if (c->text[0])
				sb_printf(&sb, "%s", c->text);
			else if (c->ops)
				put_composite(&sb, o, c->ops, split);
			if (c->ops)   /* a device without ops has no array to step in */
				o += c->ops;
		}
		sb_printf(&sb, "%s", nl);
	}
	return sb_finish(&sb);
}

/* The ops of a schedule by key, for finding an op's inputs. */
struct op_index {
	int64_t key;
	long at;   /* position in the flat order (device by device) */
};

static int index_cmp(const void *x, const void *y)
{
	const struct op_index *a = x, *b = y;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* Position of op (kind, stage, mb) in the flat order, or -1 if absent. */
static long index_find(const struct op_index *ix, long n, int kind, int stage,
		       int mb)
{
	struct op_index k = {op_key(kind, stage, mb), 0};
	const struct op_index *f = bsearch(&k, ix, (size_t)n, sizeof *ix, index_cmp);
	return f ? f->at : -1;
}

/* Aligning a schedule without a layout (torch_csv.h). */
struct align {
	const struct schedule *s;
	const struct instance *in;   /* or NULL: the chain */
	struct op_index *ix;         /* [n] ops by key */
	long n;
	long *step;                  /* [n] by flat position, -1 while unknown */
	long *base;                  /* [devices] flat position of row d */
	long *last;                  /* [devices] step of the last op placed */
	int *pos;                    /* [devices] ops placed */
};

/* Raise *t past the step of input (kind, stage, mb); false while that
 * input is in the schedule but has no step yet. */
static bool after_input(const struct align *a, int kind, int stage, int mb,
			long *t)
{
	if (stage < 0 || stage >= INST_MAX_STAGES)
		return true;
	long at = index_find(a->ix, a->n, kind, stage, mb);
	if (at < 0)
		return true;
	if (a->step[at] < 0)
		return false;
	if (a->step[at] + 1 > *t)
		*t = a->step[at] + 1;
	return true;
}

/* The earliest step from t on that op o's inputs allow, or -1 while one of
 * them has no step. */
static long op_step(const struct align *a, const struct op *o, long t)
{
	const struct instance *in = a->in;
	int l = o->stage, j = o->mb;
	bool dag = in && l < in->stages, ok;
	if (o->kind == OP_W) {
		ok = after_input(a, OP_B, l, j, &t);
	} else if (o->kind == OP_F) {
		ok = dag || after_input(a, OP_F, l - 1, j, &t);
		for (int e = dag ? in->pred_start[l] : 0;
		     dag && ok && e < in->pred_start[l + 1]; e++)
			ok = after_input(a, OP_F, in->pred[e].stage, j, &t);
	} else {
		ok = after_input(a, OP_F, l, j, &t) &&
		     (dag || after_input(a, OP_B, l + 1, j, &t));
		for (int e = dag ? in->succ_start[l] : 0;
		     dag && ok && e < in->succ_start[l + 1]; e++)
			ok = after_input(a, OP_B, in->succ[e].stage, j, &t);
	}
	return ok ? t : -1;
}

/* Device d places its next ops while their inputs have steps; returns how
 * many it placed. */
static long advance(struct align *a, int d)
{
	long placed = 0;
	const struct sched_row *r = &a->s->rows[d];
	for (; a->pos[d] < r->len; a->pos[d]++, placed++) {
		long t = op_step(a, &r->ops[a->pos[d]], a->last[d] + 1);
		if (t < 0)
			break;
		a->step[a->base[d] + a->pos[d]] = a->last[d] = t;
	}
	return placed;
}

/* Every device as far as it goes, again until all ops have steps. When
 * none can move (a deadlock), the first device with ops left runs its next
 * op as if its inputs had run, and alignment goes on. */
static void align_run(struct align *a)
{
	const struct schedule *s = a->s;
	for (long done = 0; done < a->n;) {
		long placed = 0;
		for (int d = 0; d < s->devices; d++)
			placed += advance(a, d);
		for (int d = 0; !placed && d < s->devices; d++)
			if (a->pos[d] < s->rows[d].len) {
				a->step[a->base[d] + a->pos[d]++] = ++a->last[d];
				placed++;
			}
		done += placed;
	}
}

/* Steps of every op, by flat position, into step[]; false when out of
 * memory. */
static bool align_steps(const struct schedule *s, const struct instance *in,
			long *step)
{
	long n = schedule_nops(s);
	int D = s->devices;
	struct align a = {s, in, malloc((n ? n : 1) * sizeof *a.ix), n, step,
			  malloc(D * sizeof *a.base), malloc(D * sizeof *a.last),
			  calloc(D, sizeof *a.pos)};
	bool ok = a.ix && a.base && a.last && a.pos;
	for (int d = 0, at = 0; ok && d < D; d++) {
		a.base[d] = at;
		a.last[d] = -1;
		for (int i = 0; i < s->rows[d].len; i++, at++) {
			const struct op *o = &s->rows[d].ops[i];
			a.ix[at] = (struct op_index){op_key(o->kind, o->stage, o->mb), at};
			step[at] = -1;
		}
	}
	if (ok) {
		qsort(a.ix, (size_t)n, sizeof *a.ix, index_cmp);
		align_run(&a);
	}
	free(a.ix);
	free(a.base);
	free(a.last);
	free(a.pos);
	return ok;
}

static char *format_aligned(const struct schedule *s, const struct instance *in,
			    bool split)
{
	long n = schedule_nops(s);
	long *step = malloc((n ? n : 1) * sizeof *step);
	if (!step || !align_steps(s, in, step)) {
		free(step);
		return NULL;
	}
	struct strbuf sb = {0};
	long at = 0;
	for (int d = 0; d < s->devices; d++) {
		long t = 0;
		for (int i = 0; i < s->rows[d].len; i++, at++) {
			for (; t < step[at]; t++)
				sb_putc(&sb, ',');
			if (i)
				sb_putc(&sb, ',');
			if (i + 1 < s->rows[d].len && s->rows[d].ops[i + 1].with_prev) {
				/* an overlapped pair: one OVERLAP_F_B cell, which
				 * stands for both ops' steps (steps only align the
				 * ranks; the order is what a rank runs) */
				put_composite(&sb, &s->rows[d].ops[i], 2, split);
				i++;
				at++;
				t = step[at];
			} else {
				put_action(&sb, &s->rows[d].ops[i], split, false);
			}
			t++;
		}
		sb_putc(&sb, '\n');
	}
	free(step);
	return sb_finish(&sb);
}

char *torch_csv_format(const struct schedule *s, const struct instance *in,
		       bool split)
{
	if (schedule_layout_ok(s))
		return format_layout(s, split);
	return format_aligned(s, in, split);
}

/* ---- the layout in schedule JSON ---------------------------------------- */

json_t *torch_csv_layout_to_json(const struct schedule *s)
{
	if (!schedule_layout_ok(s))
		return NULL;
	json_t *rows = json_array();
	for (int d = 0; d < s->devices; d++) {
		const struct sched_cells *r = &s->layout->rows[d];
		json_t *row = json_array();
		for (int i = 0; i < r->len; i++)
			json_array_append_new(row, r->cells[i].text[0] ?
					      json_string(r->cells[i].text) :
					      json_integer(r->cells[i].ops));
		json_array_append_new(rows, row);
	}
	json_t *v = json_pack("{s:o}", "cells", rows);
	if (s->layout->crlf)
		json_object_set_new(v, "crlf", json_true());
	return v;
}

/* Cell k of device d: an op count, or the text of an action that runs no
 * op. */
static enum status layout_cell(const json_t *x, const char *source, int d,
			       size_t k, struct schedule *s, long *ops,
			       struct error *err)
{
	char text[TORCH_ACTION_MAX + 1] = "";
	struct action unused;
	if (json_is_string(x)) {
		const char *t = json_string_value(x);
		size_t len = strlen(t);
		const char *why = len > MAX_CELL ? "too long" :
				  parse_action(t, len, &unused, text);
		if (!why && !text[0])
			why = "a compute action is an op count";
		if (why)
			return err_set(err, "schedule '%s': torch_csv.cells[%d][%zu]: action '%.40s': %s",
				       source, d, k, t, why);
	} else if (!json_is_integer(x) || json_integer_value(x) < 0 ||
		   json_integer_value(x) > s->rows[d].len) {
		return err_set(err, "schedule '%s': torch_csv.cells[%d][%zu]: expected an op count (0 for an idle step) or an action such as \"0SEND_F0\"",
			       source, d, k);
	}
	int n = text[0] ? 0 : (int)json_integer_value(x);
	*ops += n;
	if (schedule_cell_push(s, d, n, text))
		return err_set(err, "schedule '%s': out of memory", source);
	return STATUS_OK;
}

static enum status layout_row(const json_t *row, const char *source, int d,
			      struct schedule *s, struct error *err)
{
	long ops = 0;
	if (!json_is_array(row))
		return err_set(err, "schedule '%s': torch_csv.cells[%d]: expected a list of cells",
			       source, d);
	for (size_t k = 0; k < json_array_size(row); k++)
		if (layout_cell(json_array_get(row, k), source, d, k, s, &ops, err))
			return STATUS_ERROR;
	if (ops != s->rows[d].len)
		return err_set(err, "schedule '%s': torch_csv.cells[%d]: the cells hold %ld ops, the device runs %d",
			       source, d, ops, s->rows[d].len);
	return STATUS_OK;
}

enum status torch_csv_layout_from_json(const json_t *v, const char *source,
				       struct schedule *s, struct error *err)
{
	const char *key;
	const json_t *x;
	if (!json_is_object(v))
		return err_set(err, "schedule '%s': torch_csv: expected an object {\"cells\": [...]}",
			       source);
	json_object_foreach((json_t *)v, key, x)
		if (strcmp(key, "cells") && strcmp(key, "crlf"))
			return err_set(err, "schedule '%s': torch_csv.%s: unknown key (expected cells, crlf)",
				       source, key);
	const json_t *cells = json_object_get(v, "cells"),
		     *crlf = json_object_get(v, "crlf");
	if (!json_is_array(cells) || (int)json_array_size(cells) != s->devices)
		return err_set(err, "schedule '%s': torch_csv.cells: expected a list with one list of cells per device (%d)",
			       source, s->devices);
	if (crlf && !json_is_boolean(crlf))
		return err_set(err, "schedule '%s': torch_csv.crlf: expected true or false",
			       source);
	if (schedule_layout_new(s))
		return err_set(err, "schedule '%s': out of memory", source);
	s->layout->crlf = crlf && json_is_true(crlf);
	for (int d = 0; d < s->devices; d++)
		if (layout_row(json_array_get(cells, d), source, d, s, err))
			return STATUS_ERROR;
	return STATUS_OK;
}
