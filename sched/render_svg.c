/* SVG Gantt chart: one row per device, one box per op, coloured by kind,
 * labelled "F3" (kind and micro-batch) where the box is wide enough. */
#include <inttypes.h>

#include "sched/render.h"
#include "common/strbuf.h"

#define LEFT 84      /* px for the device labels */
#define PLOT 1100    /* px for the time axis */
#define ROW 26       /* px per device */
#define TOP 40

static const char *const fill[] = {"#4e79a7", "#59a14f", "#f28e2b", "#9c755f", "#b07aa1"};

/* A round tick step: 1, 2 or 5 times a power of ten, about 10 ticks. */
static int64_t tick_step(int64_t span)
{
	int64_t step = 1;
	while (span / step > 10) {
		if (span / (step * 2) <= 10)
			return step * 2;
		if (span / (step * 5) <= 10)
			return step * 5;
		step *= 10;
	}
	return step;
}

static void axis(struct strbuf *sb, int64_t makespan, int devices)
{
	int y = TOP + devices * ROW;
	int64_t step = tick_step(makespan);
	sb_printf(sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
		  LEFT, y, LEFT + PLOT, y);
	for (int64_t t = 0; t <= makespan; t += step) {
		double x = LEFT + (double)t * PLOT / (double)makespan;
		sb_printf(sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>"
			  "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%" PRId64 "</text>\n",
			  x, y, x, y + 4, x, y + 16, t);
	}
}

char *render_svg(const struct instance *in, const struct schedule *s,
		 const struct sim_result *r)
{
	struct strbuf sb = {0};
	int64_t mk = r->makespan > 0 ? r->makespan : 1;
	int height = TOP + s->devices * ROW + 30;
	sb_printf(&sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		  "font-family=\"sans-serif\" font-size=\"11\">\n",
		  LEFT + PLOT + 20, height);
	sb_printf(&sb, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	sb_printf(&sb, "<text x=\"%d\" y=\"20\" font-size=\"14\">%s: makespan %" PRId64
		  ", span %" PRId64 ", bubble %.1f%%  (F blue, B green, W orange; offload brown, reload purple)</text>\n",
		  LEFT, in->name, r->makespan, r->span, 100.0 * r->bubble_ratio);
	for (int d = 0; d < s->devices; d++) {
		int y = TOP + d * ROW;
		sb_printf(&sb, "<text x=\"4\" y=\"%d\">device %d</text>\n", y + 17, d);
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			int64_t st, en;
			sim_op_times(in, r, o, &st, &en);
			double x0 = LEFT + (double)st * PLOT / (double)mk;
			double w = (double)(en - st) * PLOT / (double)mk;
			/* a copy op: a thin bar along the row's foot */
			int top = op_on_channel(o->kind) ? y + ROW - 6 : y + 2;
			int h = op_on_channel(o->kind) ? 4 : ROW - 4;
			sb_printf(&sb, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
				  "fill=\"%s\" stroke=\"white\" stroke-width=\"0.5\">"
				  "<title>%s(%d,%d)%s %" PRId64 "-%" PRId64 "</title></rect>\n",
				  x0, top, w, h, fill[o->kind],
				  op_kind_name(o->kind), o->stage, o->mb,
				  o->recompute ? " recomputed" : "", st, en);
			if (w >= 22 && !op_on_channel(o->kind))
				sb_printf(&sb, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\" "
					  "fill=\"white\">%s%d</text>\n",
					  x0 + w / 2, y + 17, op_kind_name(o->kind), o->mb);
		}
	}
	axis(&sb, mk, s->devices);
	sb_printf(&sb, "</svg>\n");
	return sb_finish(&sb);
}
