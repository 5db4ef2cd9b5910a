/*
 * The reference families gpipe and 1f1b, for chains with one stage per
 * device. Stage s of p = L stages runs on device stage_device[s]; micro-batch
 * numbers go up in order for each stage and kind.
 */
#include "sched/family.h"

#include <string.h>

/* Append the backward of micro-batch j on stage s: B, then W when split. */
static enum status push_backward(struct schedule *sc, const struct instance *in,
				 int d, int s, int j)
{
	if (schedule_push(sc, d, OP_B, s, j))
		return STATUS_ERROR;
	if (in->split_backward && schedule_push(sc, d, OP_W, s, j))
		return STATUS_ERROR;
	return STATUS_OK;
}

static enum status start(const struct instance *in, const char *name,
			 struct schedule **out, struct error *err)
{
	struct error why;
	*out = NULL;
	if (!inst_is_simple_chain(in, &why))
		return err_set(err, "family '%s' does not support instance '%s': %s",
			       name, in->name, why.msg);
	*out = schedule_new(in->devices);
	return *out ? STATUS_OK : err_set(err, "out of memory");
}

static enum status finish(enum status st, struct schedule **out,
			  struct error *err)
{
	if (st == STATUS_OK)
		return STATUS_OK;
	schedule_free(*out);
	*out = NULL;
	return err_set(err, "out of memory");
}

/* GPipe: all M forwards, then all M backwards (each B followed by its W).
 * Stage s keeps all M micro-batches in flight. */
static enum status gpipe(const struct instance *in, struct schedule **out,
			 struct error *err)
{
	if (start(in, "gpipe", out, err))
		return STATUS_ERROR;
	enum status st = STATUS_OK;
	for (int s = 0; s < in->stages && !st; s++) {
		int d = in->stage_device[s];
		for (int j = 0; j < in->microbatches && !st; j++)
			st = schedule_push(*out, d, OP_F, s, j);
		for (int j = 0; j < in->microbatches && !st; j++)
			st = push_backward(*out, in, d, s, j);
	}
	return finish(st, out, err);
}

/* 1F1B: stage s of p runs w = min(p - s - 1, M) warm-up forwards, then
 * alternates one forward and one backward, then drains the backwards, so
 * it keeps min(p - s, M) micro-batches in flight. */
static enum status one_f_one_b(const struct instance *in,
			       struct schedule **out, struct error *err)
{
	if (start(in, "1f1b", out, err))
		return STATUS_ERROR;
	enum status st = STATUS_OK;
	int p = in->stages, M = in->microbatches;
	for (int s = 0; s < p && !st; s++) {
		int d = in->stage_device[s];
		int w = p - s - 1 < M ? p - s - 1 : M;
		for (int j = 0; j < w && !st; j++)
			st = schedule_push(*out, d, OP_F, s, j);
		for (int i = 0; i < M - w && !st; i++) {
			st = schedule_push(*out, d, OP_F, s, w + i);
			if (!st)
				st = push_backward(*out, in, d, s, i);
		}
		for (int j = M - w; j < M && !st; j++)
			st = push_backward(*out, in, d, s, j);
	}
	return finish(st, out, err);
}

static const struct family families[] = {
	{"gpipe", "all forwards, then all backwards (GPipe)",
	 "chains with one stage per device", gpipe},
	{"1f1b", "warm-up forwards, then one forward one backward (PipeDream-flush / 1F1B)",
	 "chains with one stage per device", one_f_one_b},
};

int family_count(void)
{
	return (int)(sizeof families / sizeof families[0]);
}

const struct family *family_at(int i)
{
	return &families[i];
}

const struct family *family_find(const char *name)
{
	for (int i = 0; i < family_count(); i++)
		if (!strcmp(families[i].name, name))
			return &families[i];
	return NULL;
}

enum status family_generate(const char *name, const struct instance *in,
			    struct schedule **out, struct error *err)
{
	const struct family *f = family_find(name);
	*out = NULL;
	if (!f) {
		char list[256] = "";
		for (int i = 0; i < family_count(); i++) {
			strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
			strncat(list, families[i].name, sizeof list - strlen(list) - 1);
		}
		return err_set(err, "unknown family '%s' (known: %s)", name, list);
	}
	return f->generate(in, out, err);
}
