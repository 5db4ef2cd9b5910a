/*
 * What a sweep's rows say (report.h): the summary per method and two SVG
 * plots, a line chart of the mean objective (or bubble ratio) against one
 * parameter and a histogram of the GA's gaps.
 *
 * A point is the rows with the same `sweep`, `point` and `rep`. Failed rows
 * (status "error") count as rows and failures and nowhere else: not in the
 * means, the wins or the plots. At a point a method's objective is its best
 * row's (the GA has one row per seed), so a method wins a point at most
 * once; every gap, though, is one row's.
 */
#include "sweep/report.h"
#include "sched/verdict.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/strbuf.h"

/* ---- reading rows --------------------------------------------------------------- */

static bool row_number(const json_t *row, const char *key, double *v)
{
	const json_t *j = json_object_get(row, key);
	if (!json_is_number(j))
		return false;
	*v = json_number_value(j);
	return isfinite(*v);
}

static bool row_failed(const json_t *row)
{
	const char *s = json_string_value(json_object_get(row, "status"));
	return s && !strcmp(s, "error");
}

static const char *row_method(const json_t *row)
{
	const char *m = json_string_value(json_object_get(row, "method"));
	return m ? m : "(unnamed)";
}

/* The objective of a row that did not fail, if it has one. */
static bool row_objective(const json_t *row, double *v)
{
	return !row_failed(row) && row_number(row, "objective", v);
}

/* "SWEEP|POINT|REP": the key of the row's point. */
static void point_key(const json_t *row, char *buf, size_t n)
{
	const char *sweep = json_string_value(json_object_get(row, "sweep"));
	char part[2][64];
	const char *keys[2] = {"point", "rep"};
	for (int i = 0; i < 2; i++) {
		const json_t *v = json_object_get(row, keys[i]);
		if (json_is_integer(v))
			snprintf(part[i], sizeof part[i], "%lld", (long long)json_integer_value(v));
		else if (json_is_string(v))
			snprintf(part[i], sizeof part[i], "%s", json_string_value(v));
		else
			strcpy(part[i], "-");
	}
	snprintf(buf, n, "%s|%s|%s", sweep ? sweep : "", part[0], part[1]);
}

/* ---- references and gaps -------------------------------------------------------- */

/* Point key -> reference (real): the largest bound, lower_bound and
 * certified objective among the point's rows that did not fail. New
 * reference. */
static json_t *references(const json_t *rows)
{
	json_t *refs = json_object();
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		char key[256];
		double v, best = -DBL_MAX;
		bool any = false;
		if (row_failed(row))
			continue;
		if (row_number(row, "bound", &v))
			best = v, any = true;
		if (row_number(row, "lower_bound", &v) && (!any || v > best))
			best = v, any = true;
		if (json_is_true(json_object_get(row, "certified")) && row_objective(row, &v) &&
		    (!any || v > best))
			best = v, any = true;
		if (!any)
			continue;
		point_key(row, key, sizeof key);
		const json_t *old = json_object_get(refs, key);
		if (!old || best > json_real_value(old))
			json_object_set_new(refs, key, json_real(best));
	}
	return refs;
}

/* The row's gap to its point's reference: (objective - reference) /
 * objective, 0 for a certified optimum; false when either is unknown. */
static bool row_gap(const json_t *row, const json_t *refs, double *gap)
{
	double obj;
	char key[256];
	if (!row_objective(row, &obj))
		return false;
	if (json_is_true(json_object_get(row, "certified"))) {
		*gap = 0;
		return true;
	}
	point_key(row, key, sizeof key);
	const json_t *ref = json_object_get(refs, key);
	if (!ref)
		return false;
	*gap = verdict_gap(obj, json_real_value(ref));   /* the one gap (sched/verdict.h) */
	return true;
}

/* ---- the summary ------------------------------------------------------------------ */

struct method_sum {
	const char *name;
	int rows, failures, unsupported, certified;
	int wins, points;          /* points it has rows at; points it has the best objective */
	int bubble_n, gap_n;
	double bubble_sum, gap_sum, worst_gap;
};

/* Index of the row's method in m (appended when new), through `index`
 * (name -> position). */
static struct method_sum *method_of(const json_t *row, json_t *index, struct method_sum *m,
				    int *n)
{
	const char *name = row_method(row);
	const json_t *at = json_object_get(index, name);
	if (at)
		return &m[json_integer_value(at)];
	json_object_set_new(index, name, json_integer(*n));
	m[*n] = (struct method_sum){.name = name, .worst_gap = -DBL_MAX};
	return &m[(*n)++];
}

/* Rows, failures, certified rows, bubble ratios and gaps of each method. */
static void count_rows(const json_t *rows, const json_t *refs, json_t *index,
		       struct method_sum *m, int *n)
{
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		if (!json_is_object(row))
			continue;
		struct method_sum *s = method_of(row, index, m, n);
		double v;
		s->rows++;
		if (row_failed(row)) {
			s->failures++;
			continue;
		}
		const char *status = json_string_value(json_object_get(row, "status"));
		s->unsupported += status && !strcmp(status, "unsupported");
		s->certified += json_is_true(json_object_get(row, "certified"));
		if (row_number(row, "bubble_ratio", &v)) {
			s->bubble_sum += v;
			s->bubble_n++;
		}
		if (row_gap(row, refs, &v)) {
			s->gap_sum += v;
			s->gap_n++;
			s->worst_gap = v > s->worst_gap ? v : s->worst_gap;
		}
	}
}

/* Equal up to rounding (objectives of partitions are estimates in us). */
static bool same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* Points and wins: per point, each method's best objective (null when it
 * has rows there but no objective); the smallest wins, ties for each. */
static void count_wins(const json_t *rows, const json_t *index, struct method_sum *m)
{
	json_t *points = json_object();   /* point key -> {method: best or null} */
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		if (!json_is_object(row))
			continue;
		char key[256];
		point_key(row, key, sizeof key);
		json_t *p = json_object_get(points, key);
		if (!p)
			json_object_set_new(points, key, p = json_object());
		const char *name = row_method(row);
		const json_t *old = json_object_get(p, name);
		double v;
		if (row_objective(row, &v) && (!json_is_real(old) || v < json_real_value(old)))
			json_object_set_new(p, name, json_real(v));
		else if (!old)
			json_object_set_new(p, name, json_null());
	}
	const char *key, *name;
	json_t *p, *v;
	json_object_foreach(points, key, p) {
		double best = DBL_MAX;
		json_object_foreach(p, name, v)
			if (json_is_real(v) && json_real_value(v) < best)
				best = json_real_value(v);
		json_object_foreach(p, name, v) {
			struct method_sum *s = &m[json_integer_value(json_object_get(index, name))];
			s->points++;
			s->wins += json_is_real(v) && same(json_real_value(v), best);
		}
	}
	json_decref(points);
}

/* sum / n, or null when n is 0. */
static json_t *mean_or_null(double sum, int n)
{
	return n > 0 ? json_real(sum / n) : json_null();
}

/*
 * Rows of one method name but different settings (a spec edited between
 * runs into one results file: the digests in the keys keep both) are told
 * apart: their method becomes "NAME@DIGEST" (the settings digest's first
 * six hex digits). Rows of a name with one settings digest keep the name.
 * A new array of shallow copies (the rows' values are shared).
 */
static json_t *summarise(const json_t *rows);

static json_t *label_settings(const json_t *rows)
{
	json_t *digests = json_object();   /* name -> {digest: true} */
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		const char *d = json_string_value(json_object_get(row, "settings_digest"));
		const char *name = row_method(row);
		if (!d)
			continue;
		json_t *set = json_object_get(digests, name);
		if (!set)
			json_object_set_new(digests, name, set = json_object());
		json_object_set_new(set, d, json_true());
	}
	json_t *out = json_array();
	json_array_foreach(rows, i, row) {
		const char *d = json_string_value(json_object_get(row, "settings_digest"));
		const char *name = row_method(row);
		json_t *copy = json_copy((json_t *)row);
		if (d && json_object_size(json_object_get(digests, name)) > 1) {
			char label[160];
			snprintf(label, sizeof label, "%s@%.6s", name, d);
			json_object_set_new(copy, "method", json_string(label));
		}
		json_array_append_new(out, copy);
	}
	json_decref(digests);
	return out;
}

json_t *report_summary(const json_t *given)
{
	json_t *rows = label_settings(given);
	json_t *summary = summarise(rows);
	json_decref(rows);
	return summary;
}

static json_t *summarise(const json_t *rows)
{
	size_t nrows = json_array_size(rows);
	struct method_sum *m = calloc(nrows ? nrows : 1, sizeof *m);
	json_t *index = json_object(), *refs = references(rows), *out = json_array();
	int n = 0;
	if (!m || !index || !refs || !out) {
		free(m);
		json_decref(index);
		json_decref(refs);
		json_decref(out);
		return NULL;
	}
	count_rows(rows, refs, index, m, &n);
	count_wins(rows, index, m);
	for (int k = 0; k < n; k++) {
		const struct method_sum *s = &m[k];
		int ran = s->rows - s->failures;
		json_array_append_new(out, json_pack("{s:s,s:i,s:i,s:i,s:o,s:i,s:i,s:o,s:o,s:o}",
			"method", s->name, "rows", s->rows, "failures", s->failures,
			"unsupported", s->unsupported,
			"mean_bubble_ratio", mean_or_null(s->bubble_sum, s->bubble_n),
			"wins", s->wins, "points", s->points,
			"share_certified", mean_or_null(s->certified, ran),
			"mean_gap", mean_or_null(s->gap_sum, s->gap_n),
			"worst_gap", s->gap_n ? json_real(s->worst_gap) : json_null()));
	}
	json_decref(refs);
	json_decref(index);
	free(m);
	return out;
}

/* ---- the table -------------------------------------------------------------------- */

#define NCOLS 9

/* The cells of one summary entry (percentages, "-" for null). */
static void summary_cells(const json_t *s, char cell[NCOLS][128])
{
	const char *pct_keys[] = {"mean_bubble_ratio", "share_certified", "mean_gap", "worst_gap"};
	const int pct_col[] = {4, 6, 7, 8}, digits[] = {1, 1, 2, 2};
	snprintf(cell[0], 128, "%s", json_string_value(json_object_get(s, "method")));
	snprintf(cell[1], 128, "%lld", (long long)json_integer_value(json_object_get(s, "rows")));
	snprintf(cell[2], 128, "%lld",
		 (long long)json_integer_value(json_object_get(s, "failures")));
	snprintf(cell[3], 128, "%lld",
		 (long long)json_integer_value(json_object_get(s, "unsupported")));
	snprintf(cell[5], 128, "%lld/%lld",
		 (long long)json_integer_value(json_object_get(s, "wins")),
		 (long long)json_integer_value(json_object_get(s, "points")));
	for (int i = 0; i < 4; i++) {
		const json_t *v = json_object_get(s, pct_keys[i]);
		if (json_is_number(v))
			snprintf(cell[pct_col[i]], 128, "%.*f %%", digits[i],
				 100 * json_number_value(v));
		else
			strcpy(cell[pct_col[i]], "-");
	}
}

void report_print(FILE *out, const json_t *summary, bool markdown)
{
	static const char *const head[NCOLS] = {"method", "rows", "failures", "unsupported",
						"mean bubble", "wins/points", "certified", "mean gap",
						"worst gap"};
	size_t n = json_array_size(summary);
	char (*cells)[NCOLS][128] = calloc(n + 1, sizeof *cells);
	int width[NCOLS];
	if (!cells)
		return;
	for (int c = 0; c < NCOLS; c++) {
		snprintf(cells[0][c], 128, "%s", head[c]);
		width[c] = (int)strlen(head[c]);
	}
	for (size_t i = 0; i < n; i++) {
		summary_cells(json_array_get(summary, i), cells[i + 1]);
		for (int c = 0; c < NCOLS; c++)
			if ((int)strlen(cells[i + 1][c]) > width[c])
				width[c] = (int)strlen(cells[i + 1][c]);
	}
	for (size_t i = 0; i <= n; i++) {
		for (int c = 0; c < NCOLS; c++) {
			/* the method left-aligned, the numbers right-aligned */
			int w = c == 0 ? -width[c] : width[c];
			fprintf(out, markdown ? "| %*s " : c ? "  %*s" : "%*s", w, cells[i][c]);
		}
		fputs(markdown ? "|\n" : "\n", out);
		if (markdown && i == 0) {
			for (int c = 0; c < NCOLS; c++)
				fprintf(out, c ? "|---:" : "|:---");
			fputs("|\n", out);
		}
	}
	free(cells);
}

/* ---- SVG pieces ------------------------------------------------------------------- */

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
				      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define NPALETTE (int)(sizeof palette / sizeof *palette)

/* Text with XML's five special characters escaped. */
static void sb_xml(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': sb_printf(sb, "&amp;"); break;
		case '<': sb_printf(sb, "&lt;"); break;
		case '>': sb_printf(sb, "&gt;"); break;
		case '"': sb_printf(sb, "&quot;"); break;
		case '\'': sb_printf(sb, "&apos;"); break;
		default: sb_putc(sb, *s);
		}
	}
}

/* An axis showing [lo, hi], with round ticks every `step` from `first`. */
struct axis {
	double lo, hi, step, first;
	int nticks;
	int decimals;   /* of the tick labels */
};

/* A round step (1, 2 or 5 times a power of ten) giving about `want`
 * intervals over span; at least 1 when `whole`. */
static double round_step(double span, int want, bool whole)
{
	double raw = span / want, p = pow(10, floor(log10(raw))), f = raw / p;
	double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
	return whole && step < 1 ? 1 : step;
}

/* The ticks of a over [lo, hi]: the multiples of step in it. */
static struct axis axis_ticks_in(double lo, double hi, double step)
{
	struct axis a = {.lo = lo, .hi = hi, .step = step};
	a.first = ceil(lo / step - 1e-9) * step;
	a.nticks = (int)floor((hi - a.first) / step + 1e-9) + 1;
	a.decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	return a;
}

/* An axis for data in [lo, hi]: the range padded by 5 % each side (so no
 * point sits on the frame), a single value widened around itself; no
 * negative range for positive data. */
static struct axis axis_data(double lo, double hi, int want, bool whole)
{
	double a, b;
	if (hi > lo) {
		a = lo - 0.05 * (hi - lo);
		b = hi + 0.05 * (hi - lo);
	} else if (lo == 0) {
		a = -0.05;
		b = 1;
	} else {
		double pad = fmax(0.1 * fabs(lo), whole ? 1 : 0);
		a = lo - pad;
		b = hi + pad;
	}
	if (lo > 0 && a < 0)
		a = 0;
	return axis_ticks_in(a, b, round_step(b - a, want, whole));
}

/* An axis whose ends are ticks (histogram bins, counts from 0). */
static struct axis axis_snap(double lo, double hi, int want, bool whole)
{
	if (!(hi > lo))
		hi = lo + 1;
	double step = round_step(hi - lo, want, whole);
	return axis_ticks_in(floor(lo / step + 1e-9) * step, ceil(hi / step - 1e-9) * step, step);
}

static double axis_tick(const struct axis *a, int i)
{
	double v = a->first + i * a->step;
	return fabs(v) < a->step * 1e-9 ? 0 : v;   /* no "-0" */
}

/* Position of v on an axis drawn from p0 (at lo) to p1 (at hi), in px. */
static double axis_px(const struct axis *a, double v, double p0, double p1)
{
	return p0 + (v - a->lo) / (a->hi - a->lo) * (p1 - p0);
}

/* A frame: the plot area of w x h px at (left, top). */
struct frame {
	double left, top, w, h;
};

static void svg_open(struct strbuf *sb, int width, int height, const char *title)
{
	sb_printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		  "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		  "font-size=\"11\">\n", width, height, width, height);
	sb_printf(sb, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	sb_printf(sb, "<text x=\"%d\" y=\"22\" font-size=\"14\">", 12);
	sb_xml(sb, title);
	sb_printf(sb, "</text>\n");
}

/* The x axis along the frame's bottom: ticks, labels and the axis name. */
static void svg_x_axis(struct strbuf *sb, const struct frame *f, const struct axis *a,
		       const char *label)
{
	double y = f->top + f->h;
	sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		  f->left, y, f->left + f->w, y);
	for (int i = 0; i < a->nticks; i++) {
		double v = axis_tick(a, i), x = axis_px(a, v, f->left, f->left + f->w);
		sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
			  x, y, x, y + 5, x, y + 18, a->decimals, v);
	}
	sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">",
		  f->left + f->w / 2, y + 38);
	sb_xml(sb, label);
	sb_printf(sb, "</text>\n");
}

/* The y axis along the frame's left side, with light grid lines. */
static void svg_y_axis(struct strbuf *sb, const struct frame *f, const struct axis *a,
		       const char *label)
{
	double y0 = f->top + f->h;
	sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		  f->left, f->top, f->left, y0);
	for (int i = 0; i < a->nticks; i++) {
		double v = axis_tick(a, i), y = axis_px(a, v, y0, f->top);
		sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n",
			  f->left, y, f->left + f->w, y, f->left - 5, y, f->left, y,
			  f->left - 8, y + 4, a->decimals, v);
	}
	double x = f->left - 62, y = f->top + f->h / 2;
	sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
		  "transform=\"rotate(-90 %.1f %.1f)\">", x, y, x, y);
	sb_xml(sb, label);
	sb_printf(sb, "</text>\n");
}

/* Write text (NULL: out of memory) to DIR/NAME atomically; on success the
 * path is appended to `written`. */
static enum status write_plot(const char *dir, const char *name, char *text, json_t *written,
			      struct error *err)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
		free(text);
		return err_set(err, "plots '%s': path too long", dir);
	}
	enum status st = text ? file_write_atomic(path, text, strlen(text), err)
			      : err_set(err, "plot '%s': out of memory", path);
	free(text);
	if (!st && written)
		json_array_append_new(written, json_string(path));
	return st;
}

/* mkdir -p dir. */
static enum status make_dir(const char *dir, struct error *err)
{
	char path[4096];
	struct stat st;
	if (!*dir)
		return err_set(err, "plots '': an empty directory name");
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
		return err_set(err, "plots '%s': path too long", dir);
	for (char *p = path + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(path, 0777) && errno != EEXIST)
			return err_set(err, "plots '%s': cannot create the directory '%s': %s", dir,
				       path, strerror(errno));
		*p = c;
		if (!c)
			break;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return err_set(err, "plots '%s': exists and is not a directory", dir);
	return STATUS_OK;
}

/* ---- the line chart ---------------------------------------------------------------- */

/* One method's line: the mean y at each x, x ascending. */
struct line {
	const char *method;
	int n;
	double *x, *sum;
	int *count;
};

struct chart {
	struct line *lines;
	int nlines;
	bool whole_x;   /* every x is a whole number */
	int points;     /* points averaged over */
	bool common;    /* only points where every method has a value */
};

static void chart_release(struct chart *c)
{
	for (int i = 0; i < c->nlines; i++) {
		free(c->lines[i].x);
		free(c->lines[i].sum);
		free(c->lines[i].count);
	}
	free(c->lines);
}

static struct line *chart_line(struct chart *c, const char *method)
{
	for (int i = 0; i < c->nlines; i++)
		if (!strcmp(c->lines[i].method, method))
			return &c->lines[i];
	c->lines[c->nlines] = (struct line){.method = method};
	return &c->lines[c->nlines++];
}

/* Add y at x to the line (a new x is inserted in order). */
static bool line_add(struct line *l, double x, double y, size_t cap)
{
	int i = 0;
	while (i < l->n && l->x[i] < x)
		i++;
	if (i == l->n || l->x[i] != x) {
		if (!l->x) {
			l->x = malloc(cap * sizeof *l->x);
			l->sum = malloc(cap * sizeof *l->sum);
			l->count = malloc(cap * sizeof *l->count);
		}
		if (!l->x || !l->sum || !l->count)
			return false;
		memmove(l->x + i + 1, l->x + i, (l->n - i) * sizeof *l->x);
		memmove(l->sum + i + 1, l->sum + i, (l->n - i) * sizeof *l->sum);
		memmove(l->count + i + 1, l->count + i, (l->n - i) * sizeof *l->count);
		l->x[i] = x;
		l->sum[i] = 0;
		l->count[i] = 0;
		l->n++;
	}
	l->sum[i] += y;
	l->count[i]++;
	return true;
}

/* Whether the row gives a y value at a numeric x. */
static bool row_xy(const json_t *row, const char *x, const char *y, double *xv, double *yv)
{
	return row_number(json_object_get(row, "params"), x, xv) && !row_failed(row) &&
	       row_number(row, y, yv);
}

/* The points (keys) at which every method that has a value anywhere has
 * one: averaging each method over its own points would compare different
 * instances (a family that does not support the memory-limited points
 * would look better than the optimum). New reference; *nmethods set. */
static json_t *common_points(const json_t *rows, const char *x, const char *y)
{
	json_t *at = json_object(), *methods = json_object(), *common = json_object();
	size_t i;
	json_t *row;
	char key[256];
	json_array_foreach(rows, i, row) {
		double xv, yv;
		if (!row_xy(row, x, y, &xv, &yv))
			continue;
		point_key(row, key, sizeof key);
		json_t *m = json_object_get(at, key);
		if (!m) {
			m = json_object();
			json_object_set_new(at, key, m);
		}
		json_object_set_new(m, row_method(row), json_true());
		json_object_set_new(methods, row_method(row), json_true());
	}
	const char *k;
	json_t *m;
	json_object_foreach(at, k, m)
		if (json_object_size(m) == json_object_size(methods))
			json_object_set_new(common, k, json_true());
	json_decref(at);
	json_decref(methods);
	return common;
}

/* Group the rows into lines: one per method that has a row with a numeric
 * params[x] (in first-seen order), points only where y is known, and only
 * at the points every method has (all points when there are none). */
static enum status chart_build(const json_t *rows, const char *x, const char *y,
			       struct chart *c, struct error *err)
{
	size_t n = json_array_size(rows), i;
	json_t *row;
	bool any_x = false;
	char key[256];
	memset(c, 0, sizeof *c);
	c->whole_x = true;
	if (!(c->lines = calloc(n ? n : 1, sizeof *c->lines)))
		return err_set(err, "plot: out of memory");
	json_t *common = common_points(rows, x, y), *used = json_object();
	c->common = json_object_size(common) > 0;
	json_array_foreach(rows, i, row) {
		double xv, yv;
		if (!row_number(json_object_get(row, "params"), x, &xv))
			continue;
		any_x = true;
		struct line *l = chart_line(c, row_method(row));
		if (!row_xy(row, x, y, &xv, &yv))
			continue;
		point_key(row, key, sizeof key);
		if (c->common && !json_object_get(common, key))
			continue;
		json_object_set_new(used, key, json_true());
		if (!line_add(l, xv, yv, n)) {
			json_decref(common);
			json_decref(used);
			return err_set(err, "plot: out of memory");
		}
		c->whole_x &= xv == floor(xv);
	}
	c->points = (int)json_object_size(used);
	json_decref(common);
	json_decref(used);
	if (!any_x)
		return err_set(err, "plot: x 'params.%s': no row has a numeric value for it", x);
	return STATUS_OK;
}

/* The data ranges of the lines; false when no line has a point. */
static bool chart_ranges(const struct chart *c, double *xlo, double *xhi, double *ylo,
			 double *yhi, bool *whole_y)
{
	bool any = false;
	*whole_y = true;
	for (int k = 0; k < c->nlines; k++)
		for (int i = 0; i < c->lines[k].n; i++) {
			double x = c->lines[k].x[i], y = c->lines[k].sum[i] / c->lines[k].count[i];
			*xlo = any && *xlo < x ? *xlo : x;
			*xhi = any && *xhi > x ? *xhi : x;
			*ylo = any && *ylo < y ? *ylo : y;
			*yhi = any && *yhi > y ? *yhi : y;
			*whole_y &= y == floor(y);
			any = true;
		}
	return any;
}

/* One method's polyline and markers, with the values in tooltips. */
static void svg_line(struct strbuf *sb, const struct line *l, int k, const struct frame *f,
		     const struct axis *ax, const struct axis *ay, const char *x)
{
	const char *colour = palette[k % NPALETTE];
	const char *dash = k >= NPALETTE ? " stroke-dasharray=\"6 3\"" : "";
	sb_printf(sb, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
		  colour, dash);
	for (int i = 0; i < l->n; i++)
		sb_printf(sb, "%s%.1f,%.1f", i ? " " : "",
			  axis_px(ax, l->x[i], f->left, f->left + f->w),
			  axis_px(ay, l->sum[i] / l->count[i], f->top + f->h, f->top));
	sb_printf(sb, "\"/>\n");
	for (int i = 0; i < l->n; i++) {
		sb_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
			  axis_px(ax, l->x[i], f->left, f->left + f->w),
			  axis_px(ay, l->sum[i] / l->count[i], f->top + f->h, f->top), colour);
		sb_xml(sb, l->method);
		sb_printf(sb, ": ");
		sb_xml(sb, x);
		sb_printf(sb, " %g: mean %.6g (%d rows)</title></circle>\n", l->x[i],
			  l->sum[i] / l->count[i], l->count[i]);
	}
}

/* The legend right of the frame: a swatch and the name per method. */
static void svg_legend(struct strbuf *sb, const struct chart *c, double left, double top)
{
	for (int k = 0; k < c->nlines; k++) {
		const struct line *l = &c->lines[k];
		double y = top + 18 * k;
		const char *colour = l->n ? palette[k % NPALETTE] : "#bbb";
		sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-width=\"2\"%s/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\">", left, y, left + 22, y, colour,
			  k >= NPALETTE ? " stroke-dasharray=\"6 3\"" : "", left + 11, y, colour,
			  left + 28, y + 4);
		sb_xml(sb, l->method);
		sb_printf(sb, "%s</text>\n", l->n ? "" : " (no values)");
	}
}

static const char *sweep_name(const json_t *rows)
{
	const char *s = json_string_value(json_object_get(json_array_get(rows, 0), "sweep"));
	return s ? s : "sweep";
}

static char *chart_svg(const json_t *rows, const struct chart *c, const char *x,
		       const char *y)
{
	struct strbuf sb = {0};
	size_t longest = 0;
	for (int k = 0; k < c->nlines; k++)
		longest = strlen(c->lines[k].method) > longest ? strlen(c->lines[k].method) : longest;
	const struct frame f = {80, 44, 520, 320};
	int width = (int)(f.left + f.w + 50 + 7 * (longest + 12));
	int height = (int)fmax(f.top + f.h + 56, f.top + 18 * c->nlines + 20);   /* the legend */
	double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
	bool whole_y, any = chart_ranges(c, &xlo, &xhi, &ylo, &yhi, &whole_y);
	struct axis ax = axis_data(xlo, xhi, 8, c->whole_x);
	struct axis ay = axis_data(ylo, yhi, 6, whole_y && !strcmp(y, "objective"));
	char title[512], ylabel[128], xlabel[300];
	const char *yname = strcmp(y, "bubble_ratio") ? y : "bubble ratio";
	if (c->common)
		snprintf(title, sizeof title, "%s: mean %s by %s over the %d points every method solved",
			 sweep_name(rows), yname, x, c->points);
	else
		snprintf(title, sizeof title, "%s: mean %s by %s, each method over its own points (no point has all)",
			 sweep_name(rows), yname, x);
	snprintf(ylabel, sizeof ylabel, "%s (mean)", yname);
	snprintf(xlabel, sizeof xlabel, "%s", x);
	svg_open(&sb, width, height, title);
	svg_y_axis(&sb, &f, &ay, ylabel);
	svg_x_axis(&sb, &f, &ax, xlabel);
	if (!any)
		sb_printf(&sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">"
			  "no row has a value of %s</text>\n", f.left + f.w / 2, f.top + f.h / 2, y);
	for (int k = 0; k < c->nlines; k++)
		if (c->lines[k].n)
			svg_line(&sb, &c->lines[k], k, &f, &ax, &ay, x);
	svg_legend(&sb, c, f.left + f.w + 30, f.top + 8);
	sb_printf(&sb, "</svg>\n");
	return sb_finish(&sb);
}

/* ---- the histogram of the GA's gaps -------------------------------------------------- */

/* The gaps (in %) of the "search" rows; *n = 0 when there are none. */
static double *search_gaps(const json_t *rows, int *n)
{
	json_t *refs = references(rows);
	double *g = malloc((json_array_size(rows) + 1) * sizeof *g);
	size_t i;
	json_t *row;
	*n = 0;
	json_array_foreach(rows, i, row) {
		const char *kind = json_string_value(json_object_get(row, "kind"));
		double v;
		if (g && kind && !strcmp(kind, "search") && row_gap(row, refs, &v))
			g[(*n)++] = 100 * v;
	}
	json_decref(refs);
	return g;
}

/* One bar of count rows over [x0, x1] px, the count above it. */
static void svg_bar(struct strbuf *sb, const struct frame *f, const struct axis *ay, double x0,
		    double x1, int count, const char *label)
{
	double y = axis_px(ay, count, f->top + f->h, f->top);
	sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		  "stroke=\"white\"><title>%s: %d rows</title></rect>\n",
		  x0, y, x1 - x0, f->top + f->h - y, palette[0], label, count);
	if (count)
		sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n",
			  (x0 + x1) / 2, y - 4, count);
}

/* Every gap the same: one bar, labelled with the value. */
static void histogram_one_value(struct strbuf *sb, const struct frame *f, double gap, int n)
{
	struct axis ay = axis_snap(0, n + 0.1 * n, 5, true);
	double x0 = f->left + f->w / 3, x1 = f->left + 2 * f->w / 3, y = f->top + f->h;
	char label[64];
	snprintf(label, sizeof label, "%.2f %%", gap);
	svg_y_axis(sb, f, &ay, "rows");
	svg_bar(sb, f, &ay, x0, x1, n, label);
	sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
		  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n"
		  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">"
		  "gap to the reference (%%)</text>\n",
		  f->left, y, f->left + f->w, y, (x0 + x1) / 2, y + 18, label,
		  f->left + f->w / 2, y + 38);
}

/* Bins of a round width over [lo, hi], half open but the last; the bin
 * edges are the x ticks, each bar's count is written above it. */
static bool histogram_bins(struct strbuf *sb, const struct frame *f, const double *g, int n,
			   double lo, double hi)
{
	struct axis ax = axis_snap(lo, hi, 10, false);
	int nb = ax.nticks - 1, *count = calloc(nb, sizeof *count), top = 0;
	char label[128];
	if (!count)
		return false;
	for (int i = 0; i < n; i++) {
		int b = (int)floor((g[i] - ax.lo) / ax.step + 1e-9);
		count[b < 0 ? 0 : b >= nb ? nb - 1 : b]++;
	}
	for (int b = 0; b < nb; b++)
		top = count[b] > top ? count[b] : top;
	struct axis ay = axis_snap(0, top + 0.1 * top, 5, true);
	svg_y_axis(sb, f, &ay, "rows");
	for (int b = 0; b < nb; b++) {
		double a = axis_tick(&ax, b), z = axis_tick(&ax, b + 1);
		snprintf(label, sizeof label, "%.*f to %.*f %%", ax.decimals, a, ax.decimals, z);
		svg_bar(sb, f, &ay, axis_px(&ax, a, f->left, f->left + f->w),
			axis_px(&ax, z, f->left, f->left + f->w), count[b], label);
	}
	svg_x_axis(sb, f, &ax, "gap to the reference (%)");
	free(count);
	return true;
}

static char *histogram_svg(const json_t *rows, const double *g, int n)
{
	struct strbuf sb = {0};
	const struct frame f = {80, 44, 540, 300};
	double lo = g[0], hi = g[0];
	char title[512];
	for (int i = 1; i < n; i++) {
		lo = g[i] < lo ? g[i] : lo;
		hi = g[i] > hi ? g[i] : hi;
	}
	snprintf(title, sizeof title, "%s: gaps of the GA (search) rows to the point's reference, %d rows",
		 sweep_name(rows), n);
	svg_open(&sb, (int)(f.left + f.w + 30), (int)(f.top + f.h + 56), title);
	if (hi - lo < 1e-6) {   /* percentage points */
		histogram_one_value(&sb, &f, lo, n);
	} else if (!histogram_bins(&sb, &f, g, n, lo, hi)) {
		free(sb_finish(&sb));
		return NULL;
	}
	sb_printf(&sb, "</svg>\n");
	return sb_finish(&sb);
}

/* ---- report_plots ------------------------------------------------------------------ */

static bool rows_have_param(const json_t *rows, const char *key)
{
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row)
		if (json_object_get(json_object_get(row, "params"), key))
			return true;
	return false;
}

/* Remove DIR/gap.svg left by an earlier run: with no search rows now, it
 * would describe other results. */
static enum status remove_stale(const char *dir, const char *name, struct error *err)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (unlink(path) && errno != ENOENT)
		return err_set(err, "plot '%s': cannot remove the stale file: %s", path,
			       strerror(errno));
	return STATUS_OK;
}

static enum status plots(const json_t *rows, const char *dir, const char *x, const char *y,
			 json_t *written, struct error *err);

enum status report_plots(const json_t *given, const char *dir, const char *x, const char *y,
			 json_t *written, struct error *err)
{
	json_t *rows = label_settings(given);
	enum status st = rows ? plots(rows, dir, x, y, written, err)
			      : err_set(err, "plots '%s': out of memory", dir);
	json_decref(rows);
	return st;
}

static enum status plots(const json_t *rows, const char *dir, const char *x, const char *y,
			 json_t *written, struct error *err)
{
	if (!y)
		y = "objective";
	if (strcmp(y, "objective") && strcmp(y, "bubble_ratio"))
		return err_set(err, "plot: y '%s': expected objective or bubble_ratio", y);
	if (!json_array_size(rows))
		return err_set(err, "plot: no rows to plot");
	if (!x)
		x = rows_have_param(rows, "microbatches") ? "microbatches" : "devices";
	/* everything is drawn before anything is written */
	struct chart c;
	enum status st = chart_build(rows, x, y, &c, err);
	char *line = st ? NULL : chart_svg(rows, &c, x, y), *hist = NULL;
	chart_release(&c);
	int ngaps = 0;
	double *gaps = st ? NULL : search_gaps(rows, &ngaps);
	if (!st && ngaps)
		hist = histogram_svg(rows, gaps, ngaps);
	free(gaps);
	if (!st && (!line || (ngaps && !hist)))
		st = err_set(err, "plots '%s': out of memory", dir);
	if (!st)
		st = make_dir(dir, err);
	if (!st) {
		st = write_plot(dir, "objective.svg", line, written, err);
		line = NULL;
	}
	if (!st && ngaps) {
		st = write_plot(dir, "gap.svg", hist, written, err);
		hist = NULL;
	} else if (!st) {
		st = remove_stale(dir, "gap.svg", err);
	}
	free(line);
	free(hist);
	return st;
}
