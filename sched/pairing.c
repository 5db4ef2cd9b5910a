/* Greedy overlapped pairs (pairing.h). */
#include "sched/pairing.h"

/* (objective, sum over devices of their last op's end): the GA's fitness,
 * whose tie measure gives a join that frees a non-critical device some
 * credit. */
struct score {
	int64_t objective, tie;
};

static bool score_of(struct sim *sim, const struct instance *in, const struct schedule *s,
		     struct score *out)
{
	struct sim_result r;
	if (sim_run(sim, s, &r, NULL))
		return false;
	out->objective = r.objective;
	out->tie = 0;
	for (int d = 0; d < s->devices; d++) {
		const struct sched_row *row = &s->rows[d];
		if (!row->len)
			continue;
		const struct op *o = &row->ops[row->len - 1];
		out->tie += r.end[inst_op_id(in, o->kind, o->stage, o->mb)];
	}
	return true;
}

static bool pairable(const struct op *a, const struct op *b)
{
	if (a->with_prev || b->with_prev)
		return false;
	if (!((a->kind == OP_F && b->kind == OP_B) || (a->kind == OP_B && b->kind == OP_F)))
		return false;
	/* F and B of one (stage, micro-batch): the B needs the F's output */
	return !(a->stage == b->stage && a->mb == b->mb);
}

int schedule_pair_greedy(const struct instance *in, struct schedule *s, struct sim *sim,
			 double max_ops)
{
	struct score cur, next;
	if (!score_of(sim, in, s, &cur))
		return -1;
	if (!in->has_overlap || in->overlap >= 1)
		return 0;
	double spent = 0, per = (double)schedule_nops(s);
	int formed = 0;
	for (int d = 0; d < s->devices; d++) {
		struct sched_row *row = &s->rows[d];
		for (int i = 0; i + 1 < row->len; i++) {
			if (max_ops > 0 && spent > max_ops)
				return formed;
			/* the next op must not already pair with the one after it */
			if (!pairable(&row->ops[i], &row->ops[i + 1]) ||
			    (i + 2 < row->len && row->ops[i + 2].with_prev))
				continue;
			row->ops[i + 1].with_prev = true;
			spent += per;
			bool ok = score_of(sim, in, s, &next) &&
				  (next.objective < cur.objective ||
				   (next.objective == cur.objective && next.tie <= cur.tie));
			if (ok) {
				cur = next;
				formed++;
				i++;   /* both ops are taken */
			} else {
				row->ops[i + 1].with_prev = false;
			}
		}
	}
	return formed;
}
