/*
 * ASCII timeline: one line per device; column c covers the time interval
 * [c * makespan / width, (c + 1) * makespan / width). An op fills the columns
 * its interval touches with its kind letter, F, B or W, alternating with the
 * lower-case letter on odd micro-batches so neighbours stay apart; its first
 * column carries the micro-batch number's last digit when the op spans at
 * least two columns. A recomputed B's recompute, its first R time units,
 * is drawn R/r. '.' is idle. With offload, a device whose row offloads
 * gets a second line, its copy channel: O/o offloads, L/l reloads.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sched/render.h"
#include "common/strbuf.h"

static void draw_op(char *line, int width, int64_t mk, int64_t start,
		    int64_t end, int kind, int mb, int64_t recompute)
{
	int c0 = (int)((__int128)start * width / mk);
	int c1 = end > start ? (int)(((__int128)end * width - 1) / mk) : c0;
	if (c0 >= width)
		c0 = width - 1;
	if (c1 >= width)
		c1 = width - 1;
	char ch = "FBWOL"[kind];
	if (mb % 2)
		ch = (char)(ch - 'A' + 'a');
	for (int c = c0; c <= c1; c++)
		line[c] = ch;
	if (recompute > 0 && end > start) {   /* the recompute part, R/r */
		int r1 = (int)(((__int128)(start + recompute) * width - 1) / mk);
		for (int c = c0; c <= r1 && c <= c1; c++)
			line[c] = mb % 2 ? 'r' : 'R';
	}
	if (c1 > c0)
		line[c0 + 1] = (char)('0' + mb % 10);
}

char *render_ascii(const struct instance *in, const struct schedule *s,
		   const struct sim_result *r, int width)
{
	struct strbuf sb = {0};
	if (width < 20)
		width = 20;
	int64_t mk = r->makespan > 0 ? r->makespan : 1;
	char *line = malloc(width + 1);
	if (!line)
		return NULL;
	sb_printf(&sb, "timeline: 1 column = %.4g time units; F/f forward, B/b backward, "
		  "W/w weight gradient%s (lower case: odd micro-batch), digit: micro-batch mod 10, '.' idle\n",
		  (double)mk / width, in->has_recompute ? ", R/r a B's recompute" :
		  in->has_offload ? ", copy line: O/o offload, L/l reload" : "");
	for (int d = 0; d < s->devices; d++) {
		memset(line, '.', width);
		line[width] = 0;
		bool copies = false;
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			if (op_on_channel(o->kind)) {
				copies = true;
				continue;
			}
			int id = inst_op_id(in, o->kind, o->stage, o->mb);
			draw_op(line, width, mk, r->start[id], r->end[id], o->kind, o->mb,
				o->recompute && in->has_recompute ? in->recompute_cost[o->stage] : 0);
		}
		sb_printf(&sb, "dev %3d |%s|\n", d, line);
		if (!copies)
			continue;
		memset(line, '.', width);
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			int64_t st, en;
			if (!op_on_channel(o->kind))
				continue;
			sim_op_times(in, r, o, &st, &en);
			if (en > st)   /* a zero-time copy takes no column */
				draw_op(line, width, mk, st, en, o->kind, o->mb, 0);
		}
		sb_printf(&sb, "    copy|%s|\n", line);
	}
	sb_printf(&sb, "        0%*" PRId64 "\n", width + 1, r->makespan);
	free(line);
	return sb_finish(&sb);
}
