/* The schedule: construction, comparison and JSON interchange. */
#include "sched/schedule.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "sched/instance.h"
#include "sched/torch_csv.h"

struct schedule *schedule_new(int devices)
{
	struct schedule *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->devices = devices;
	s->rows = calloc(devices > 0 ? devices : 1, sizeof *s->rows);
	if (!s->rows) {
		free(s);
		return NULL;
	}
	return s;
}

static void layout_free(struct sched_layout *l, int devices)
{
	if (!l)
		return;
	for (int d = 0; d < devices; d++)
		free(l->rows[d].cells);
	free(l->rows);
	free(l);
}

void schedule_free(struct schedule *s)
{
	if (!s)
		return;
	for (int d = 0; d < s->devices; d++)
		free(s->rows[d].ops);
	free(s->rows);
	layout_free(s->layout, s->devices);
	free(s);
}

enum status schedule_layout_new(struct schedule *s)
{
	struct sched_layout *l = calloc(1, sizeof *l);
	if (l)
		l->rows = calloc(s->devices > 0 ? s->devices : 1, sizeof *l->rows);
	if (!l || !l->rows) {
		free(l);
		return err_set(NULL, "out of memory");
	}
	layout_free(s->layout, s->devices);
	s->layout = l;
	return STATUS_OK;
}

/* items (of *cap elements of `size` bytes) reallocated to twice the
 * capacity (16 at first), *cap updated; NULL (items and *cap kept) when
 * memory runs out. */
static void *doubled(void *items, int *cap, size_t size)
{
	int c = *cap ? 2 * *cap : 16;
	void *p = realloc(items, (size_t)c * size);
	if (p)
		*cap = c;
	return p;
}

enum status schedule_cell_push(struct schedule *s, int d, int ops,
			       const char *text)
{
	struct sched_cells *r = &s->layout->rows[d];
	assert(!text || strlen(text) < sizeof r->cells->text);
	if (r->len == r->cap) {
		struct sched_cell *cells = doubled(r->cells, &r->cap, sizeof *cells);
		if (!cells)
			return err_set(NULL, "out of memory");
		r->cells = cells;
	}
	struct sched_cell *c = &r->cells[r->len++];
	c->ops = ops;
	snprintf(c->text, sizeof c->text, "%s", text ? text : "");
	return STATUS_OK;
}

bool schedule_layout_ok(const struct schedule *s)
{
	if (!s->layout)
		return false;
	for (int d = 0; d < s->devices; d++) {
		const struct sched_cells *r = &s->layout->rows[d];
		long n = 0;
		for (int i = 0; i < r->len; i++)
			n += r->cells[i].ops;
		if (n != s->rows[d].len)
			return false;
	}
	return true;
}

enum status schedule_row_grow(struct sched_row *r)
{
	struct op *ops = doubled(r->ops, &r->cap, sizeof *ops);
	if (!ops)
		return err_set(NULL, "out of memory");
	r->ops = ops;
	return STATUS_OK;
}

enum status schedule_join_last(struct schedule *s, int d)
{
	struct sched_row *r = &s->rows[d];
	if (r->len < 2)
		return err_set(NULL, "an overlapped pair needs two ops");
	r->ops[r->len - 1].with_prev = true;
	return STATUS_OK;
}

/* Whether any op has the flag: with_prev (pairs) or recompute. */
static bool any_op(const struct schedule *s, bool recompute)
{
	for (int d = 0; d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			if (recompute ? o->recompute : o->with_prev)
				return true;
		}
	return false;
}

bool schedule_has_recompute(const struct schedule *s)
{
	return any_op(s, true);
}

bool schedule_has_pairs(const struct schedule *s)
{
	return any_op(s, false);
}

static enum status layout_copy(struct schedule *c, const struct sched_layout *l)
{
	if (schedule_layout_new(c))
		return STATUS_ERROR;
	c->layout->crlf = l->crlf;
	for (int d = 0; d < c->devices; d++)
		for (int i = 0; i < l->rows[d].len; i++)
			if (schedule_cell_push(c, d, l->rows[d].cells[i].ops,
					       l->rows[d].cells[i].text))
				return STATUS_ERROR;
	return STATUS_OK;
}

struct schedule *schedule_copy(const struct schedule *s)
{
	struct schedule *c = schedule_new(s->devices);
	for (int d = 0; c && d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			if (schedule_push(c, d, o->kind, o->stage, o->mb)) {
				schedule_free(c);
				return NULL;
			}
			c->rows[d].ops[i].with_prev = o->with_prev;   /* pairs too */
			c->rows[d].ops[i].recompute = o->recompute;
		}
	if (c && s->layout && layout_copy(c, s->layout)) {
		schedule_free(c);
		return NULL;
	}
	return c;
}

long schedule_nops(const struct schedule *s)
{
	long n = 0;
	for (int d = 0; d < s->devices; d++)
		n += s->rows[d].len;
	return n;
}

int schedule_has_w(const struct schedule *s)
{
	for (int d = 0; d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++)
			if (s->rows[d].ops[i].kind == OP_W)
				return 1;
	return 0;
}

bool schedule_has_offload(const struct schedule *s)
{
	for (int d = 0; d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++)
			if (op_on_channel(s->rows[d].ops[i].kind))
				return true;
	return false;
}

enum status schedule_check_shape(const struct instance *in,
				 const struct schedule *s, struct error *err)
{
	int stages = 0, mbs = 0;
	bool w = schedule_has_w(s);
	for (int d = 0; d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			stages = o->stage >= stages ? o->stage + 1 : stages;
			mbs = o->mb >= mbs ? o->mb + 1 : mbs;
		}
	if (s->devices != in->devices)
		return err_set(err, "the schedule has %d device rows, the instance %d devices",
			       s->devices, in->devices);
	if (stages != in->stages)
		return err_set(err, "the schedule has %d stages, the instance %d",
			       stages, in->stages);
	if (mbs != in->microbatches)
		return err_set(err, "the schedule has %d micro-batches, the instance %d",
			       mbs, in->microbatches);
	if (w != in->split_backward)
		return err_set(err, w ? "the schedule has W ops, the instance fuses the backward"
				      : "the schedule has no W ops, the instance splits the backward");
	if (!in->has_offload && schedule_has_offload(s))
		return err_set(err, "the schedule offloads (O and L ops), the instance has no \"offload\" key");
	return STATUS_OK;
}

static int equal(const struct schedule *a, const struct schedule *b, bool pairs)
{
	if (a->devices != b->devices)
		return 0;
	for (int d = 0; d < a->devices; d++) {
		if (a->rows[d].len != b->rows[d].len)
			return 0;
		for (int i = 0; i < a->rows[d].len; i++) {
			const struct op *x = &a->rows[d].ops[i],
					*y = &b->rows[d].ops[i];
			if (x->kind != y->kind || x->stage != y->stage ||
			    x->mb != y->mb ||
			    (pairs && (x->with_prev != y->with_prev || x->recompute != y->recompute)))
				return 0;
		}
	}
	return 1;
}

int schedule_equal(const struct schedule *a, const struct schedule *b)
{
	return equal(a, b, true);
}

int schedule_same_orders(const struct schedule *a, const struct schedule *b)
{
	return equal(a, b, false);
}

bool schedule_orders_among(struct schedule *const *v, int n, const struct schedule *s)
{
	for (int i = 0; i < n; i++)
		if (schedule_same_orders(v[i], s))
			return true;
	return false;
}

/* Whether schedule_defer_weights applies: W's, none taking memory, no
 * decisions. */
static bool defer_weights_apply(const struct instance *in, const struct schedule *s)
{
	if (in->kinds != 3 || inst_has_decisions(in) || s->devices != in->devices)
		return false;
	for (int l = 0; l < in->stages; l++)
		if (inst_delta(in, OP_W, l) > 0)
			return false;
	for (int d = 0; d < s->devices; d++)
		for (int i = 0; i < s->rows[d].len; i++)
			if (s->rows[d].ops[i].with_prev || s->rows[d].ops[i].recompute ||
			    op_on_channel(s->rows[d].ops[i].kind))
				return false;
	return true;
}

static int push_op(struct schedule *s, int d, const struct op *o)
{
	return schedule_push(s, d, o->kind, o->stage, o->mb) != STATUS_OK;
}

struct schedule *schedule_defer_weights(const struct instance *in, const struct schedule *s,
					int upto)
{
	if (!defer_weights_apply(in, s))
		return NULL;
	int longest = 1;
	for (int d = 0; d < s->devices; d++)
		longest = s->rows[d].len > longest ? s->rows[d].len : longest;
	struct schedule *out = schedule_new(s->devices);
	const struct op **held = malloc(longest * sizeof *held);   /* the W's held back */
	if (!out || !held)
		goto fail;
	for (int d = 0; d < s->devices; d++) {
		const struct sched_row *r = &s->rows[d];
		int64_t used = 0, limit = in->has_limit ? in->limit[d] : INT64_MAX;
		int head = 0, n = 0;
		for (int i = 0; i < r->len; i++) {
			const struct op *o = &r->ops[i];
			if (o->kind == OP_W && d < upto) {
				held[n++] = o;
				continue;
			}
			int64_t dl = in->has_memory ? inst_delta(in, o->kind, o->stage) : 0;
			for (; dl > 0 && used + dl > limit && head < n; head++) {   /* dl > 0: memory */
				used += inst_delta(in, OP_W, held[head]->stage);
				if (push_op(out, d, held[head]))
					goto fail;
			}
			used += dl;
			if (push_op(out, d, o))
				goto fail;
		}
		for (; head < n; head++)
			if (push_op(out, d, held[head]))
				goto fail;
	}
	free(held);
	return out;
fail:
	free(held);
	schedule_free(out);
	return NULL;
}

static json_t *op_json(const struct op *o)
{
	if (o->recompute)
		return json_pack("[siis]", op_kind_name(o->kind), o->stage, o->mb, "recompute");
	return json_pack("[sii]", op_kind_name(o->kind), o->stage, o->mb);
}

json_t *schedule_to_json(const struct schedule *s)
{
	json_t *all = json_array();
	for (int d = 0; d < s->devices; d++) {
		json_t *row = json_array();
		for (int i = 0; i < s->rows[d].len; i++) {
			json_t *x = op_json(&s->rows[d].ops[i]);
			if (i + 1 < s->rows[d].len && s->rows[d].ops[i + 1].with_prev)
				/* a pair: one element of two ops */
				x = json_pack("[oo]", x, op_json(&s->rows[d].ops[++i]));
			json_array_append_new(row, x);
		}
		json_array_append_new(all, row);
	}
	return all;
}

void schedule_json_set(json_t *obj, const struct schedule *s)
{
	json_object_set_new(obj, "schedule", schedule_to_json(s));
	json_t *layout = torch_csv_layout_to_json(s);
	if (layout)
		json_object_set_new(obj, "torch_csv", layout);
}

/* One op ["F", stage, mb], or a recomputed B ["B", stage, mb, "recompute"];
 * `where` is "schedule[d][i]". */
static enum status parse_op(const json_t *v, const char *source,
			    const char *where, struct op *op,
			    struct error *err)
{
	size_t n = json_is_array(v) ? json_array_size(v) : 0;
	if (n != 3 && n != 4)
		return err_set(err, "schedule '%s': %s: expected [kind, stage, micro-batch]",
			       source, where);
	if (n == 4) {
		const json_t *r = json_array_get(v, 3), *k = json_array_get(v, 0);
		if (!json_is_string(r) || strcmp(json_string_value(r), "recompute"))
			return err_set(err, "schedule '%s': %s: the fourth entry may only be \"recompute\" (a B whose activations are rebuilt before it)",
				       source, where);
		if (!json_is_string(k) || (strcmp(json_string_value(k), "B") &&
					   strcmp(json_string_value(k), "I")))
			return err_set(err, "schedule '%s': %s: only a B can be marked \"recompute\"",
				       source, where);
		op->recompute = true;
	}
	const json_t *k = json_array_get(v, 0), *l = json_array_get(v, 1),
		     *j = json_array_get(v, 2);
	const char *ks = json_is_string(k) ? json_string_value(k) : "";
	if (!strcmp(ks, "F"))
		op->kind = OP_F;
	else if (!strcmp(ks, "B") || !strcmp(ks, "I"))
		op->kind = OP_B;   /* "I": torch's name for the input gradient */
	else if (!strcmp(ks, "W"))
		op->kind = OP_W;
	else if (!strcmp(ks, "O"))
		op->kind = OP_O;   /* an offload (instance key offload) */
	else if (!strcmp(ks, "L"))
		op->kind = OP_L;   /* its reload */
	else
		return err_set(err, "schedule '%s': %s: kind must be \"F\", \"B\" (or \"I\"), \"W\", or with offload \"O\" or \"L\"",
			       source, where);
	if (!json_is_integer(l) || !json_is_integer(j) ||
	    json_integer_value(l) < 0 || json_integer_value(j) < 0 ||
	    json_integer_value(l) >= INST_MAX_STAGES ||
	    json_integer_value(j) >= INST_MAX_MICROBATCHES)
		return err_set(err, "schedule '%s': %s: stage and micro-batch must be integers in range",
			       source, where);
	op->stage = (int)json_integer_value(l);
	op->mb = (int)json_integer_value(j);
	return STATUS_OK;
}

/* Element i of device d's row: an op, or an overlapped pair [op, op]. */
static enum status parse_element(struct schedule *s, int d, const json_t *v,
				 const char *source, size_t i, struct error *err)
{
	char where[80];
	bool pair = json_is_array(v) && json_is_array(json_array_get(v, 0));
	if (pair && json_array_size(v) != 2)
		return err_set(err, "schedule '%s': schedule[%d][%zu]: an overlapped pair has exactly two ops, [[kind, stage, micro-batch], [kind, stage, micro-batch]]",
			       source, d, i);
	for (int k = 0; k < (pair ? 2 : 1); k++) {
		struct op op = {0};
		if (pair)
			snprintf(where, sizeof where, "schedule[%d][%zu][%d]", d, i, k);
		else
			snprintf(where, sizeof where, "schedule[%d][%zu]", d, i);
		if (parse_op(pair ? json_array_get(v, k) : v, source, where, &op, err))
			return STATUS_ERROR;
		if (schedule_push(s, d, op.kind, op.stage, op.mb) ||
		    (k == 1 && schedule_join_last(s, d)))
			return err_set(err, "schedule '%s': out of memory", source);
		s->rows[d].ops[s->rows[d].len - 1].recompute = op.recompute;
	}
	return STATUS_OK;
}

enum status schedule_from_json(const json_t *v, const char *source,
			       struct schedule **out, struct error *err)
{
	*out = NULL;
	const json_t *layout = NULL;
	if (json_is_object(v)) {
		layout = json_object_get(v, "torch_csv");
		v = json_object_get(v, "schedule");
	}
	if (!v)
		return err_set(err, "schedule '%s': schedule: required key is missing",
			       source);
	if (!json_is_array(v) || json_array_size(v) < 1 ||
	    json_array_size(v) > INST_MAX_DEVICES)
		return err_set(err, "schedule '%s': schedule: expected a list with one list of ops per device",
			       source);
	struct schedule *s = schedule_new((int)json_array_size(v));
	if (!s)
		return err_set(err, "schedule '%s': out of memory", source);
	for (int d = 0; d < s->devices; d++) {
		const json_t *row = json_array_get(v, d);
		if (!json_is_array(row)) {
			schedule_free(s);
			return err_set(err, "schedule '%s': schedule[%d]: expected a list of ops",
				       source, d);
		}
		for (size_t i = 0; i < json_array_size(row); i++) {
			if (parse_element(s, d, json_array_get(row, i), source, i, err)) {
				schedule_free(s);
				return STATUS_ERROR;
			}
		}
	}
	if (layout && torch_csv_layout_from_json(layout, source, s, err)) {
		schedule_free(s);
		return STATUS_ERROR;
	}
	*out = s;
	return STATUS_OK;
}

enum status schedule_parse(const char *text, const char *source,
			   struct schedule **out, struct error *err)
{
	json_error_t jerr;
	*out = NULL;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return err_set(err, "schedule '%s': line %d, column %d: %s",
			       source, jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return err_set(err, "schedule '%s': expected an object {\"schedule\": [...]} at the top level",
			       source);
	}
	enum status st = schedule_from_json(root, source, out, err);
	json_decref(root);
	return st;
}

enum status schedule_read(const char *path, struct schedule **out,
			  struct error *err)
{
	char *text;
	*out = NULL;
	if (file_slurp(path, "schedule", &text, err))
		return STATUS_ERROR;
	enum status st = schedule_parse(text, path, out, err);
	free(text);
	return st;
}
