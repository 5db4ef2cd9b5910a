/* The genome's layout and its conversions to and from schedules. */
#include "ga/genome.h"

#include <stdlib.h>
#include <string.h>

enum status layout_init(struct layout *lay, const struct instance *in,
			struct error *err)
{
	int D = in->devices, L = in->stages, M = in->microbatches;
	memset(lay, 0, sizeof *lay);
	lay->in = in;
	lay->n = inst_nops(in);
	lay->nslots = in->kinds * L;
	lay->row_start = calloc(D + 1, sizeof(int));
	lay->dev_slot_start = calloc(D + 1, sizeof(int));
	lay->dev_slots = malloc(lay->nslots * sizeof(gene_t));
	if (!lay->row_start || !lay->dev_slot_start || !lay->dev_slots) {
		layout_release(lay);
		return err_set(err, "genome layout: out of memory");
	}
	/* count the stages of each device, then list its slots */
	for (int l = 0; l < L; l++)
		lay->dev_slot_start[in->stage_device[l] + 1] += in->kinds;
	for (int d = 0; d < D; d++) {
		lay->dev_slot_start[d + 1] += lay->dev_slot_start[d];
		lay->row_start[d + 1] = lay->dev_slot_start[d + 1] * M;
	}
	int *fill = calloc(D, sizeof(int));
	if (!fill) {
		layout_release(lay);
		return err_set(err, "genome layout: out of memory");
	}
	for (int k = 0; k < in->kinds; k++)
		for (int l = 0; l < L; l++) {
			int d = in->stage_device[l];
			lay->dev_slots[lay->dev_slot_start[d] + fill[d]++] = (gene_t)(k * L + l);
		}
	free(fill);
	return STATUS_OK;
}

void layout_release(struct layout *lay)
{
	free(lay->row_start);
	free(lay->dev_slot_start);
	free(lay->dev_slots);
	memset(lay, 0, sizeof *lay);
}

enum status genome_from_schedule(const struct layout *lay,
				 const struct schedule *s, gene_t *g,
				 struct error *err)
{
	const struct instance *in = lay->in;
	if (s->devices != in->devices)
		return err_set(err, "the schedule has %d device rows, the instance %d devices",
			       s->devices, in->devices);
	uint8_t *seen = calloc(lay->n, 1);
	if (!seen)
		return err_set(err, "genome: out of memory");
	enum status st = STATUS_OK;
	for (int d = 0; !st && d < in->devices; d++) {
		const struct sched_row *row = &s->rows[d];
		int want = lay->row_start[d + 1] - lay->row_start[d], len = 0;
		for (int i = 0; i < row->len; i++)
			len += !op_on_channel(row->ops[i].kind);
		if (len != want)
			st = err_set(err, "device %d: %d ops, the instance has %d", d, len, want);
		for (int i = 0, at = 0; !st && i < row->len; i++) {
			const struct op *o = &row->ops[i];
			if (op_on_channel(o->kind))
				continue;   /* copies: the decoder decides them again */
			if (o->kind < 0 || o->kind >= in->kinds || o->stage < 0 ||
			    o->stage >= in->stages || in->stage_device[o->stage] != d ||
			    o->mb < 0 || o->mb >= in->microbatches ||
			    seen[inst_op_id(in, o->kind, o->stage, o->mb)]++)
				st = err_set(err, "device %d, position %d: not an op of this device, or a repeated one",
					     d, i);
			else
				g[lay->row_start[d] + at++] = (gene_t)(o->kind * in->stages + o->stage);
		}
	}
	free(seen);
	return st;
}

struct schedule *genome_to_schedule(const struct layout *lay, const gene_t *g)
{
	const struct instance *in = lay->in;
	struct schedule *s = schedule_new(in->devices);
	int *next = calloc(lay->nslots, sizeof(int));
	if (!s || !next)
		goto fail;
	for (int d = 0; d < in->devices; d++)
		for (int i = lay->row_start[d]; i < lay->row_start[d + 1]; i++) {
			int q = g[i];
			if (schedule_push(s, d, slot_kind(lay, q), slot_stage(lay, q), next[q]++))
				goto fail;
		}
	free(next);
	return s;
fail:
	free(next);
	schedule_free(s);
	return NULL;
}

bool genome_row_ok(const struct layout *lay, const gene_t *g, int d)
{
	const struct instance *in = lay->in;
	int M = in->microbatches, a = lay->dev_slot_start[d], b = lay->dev_slot_start[d + 1];
	int *count = calloc(lay->nslots, sizeof(int));
	bool ok = count != NULL;
	for (int i = lay->row_start[d]; ok && i < lay->row_start[d + 1]; i++) {
		int q = g[i];
		ok = q < lay->nslots && in->stage_device[slot_stage(lay, q)] == d &&
		     ++count[q] <= M;
	}
	for (int i = a; ok && i < b; i++)
		ok = count[lay->dev_slots[i]] == M;
	free(count);
	return ok;
}
