/* PyTorch pipelining CSV schedules (see torch_csv.h). */
#include "sched/torch_csv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "sched/instance.h"
#include "common/strbuf.h"

/* Actions that carry no compute; dropped on import. */
static const char *const passive[] = {
	"SEND_F", "RECV_F", "SEND_B", "RECV_B", "UNSHARD", "RESHARD",
	"REDUCE_GRAD", NULL};

enum backward_style { STYLE_NONE, STYLE_SPLIT, STYLE_FUSED };

struct cell_parse {
	const char *source;
	int line, column;            /* 1-based, for messages */
	enum backward_style style;   /* seen so far in the file */
	struct error *err;
};

static enum status cell_fail(const struct cell_parse *c, const char *cell,
			     const char *why)
{
	return err_set(c->err, "torch csv '%s': line %d, column %d: action '%s': %s",
		       c->source, c->line, c->column, cell, why);
}

/* Parse a non-negative decimal of at most 9 digits; returns chars used. */
static int parse_uint(const char *s, long *out)
{
	int n = 0;
	*out = 0;
	while (isdigit((unsigned char)s[n]) && n < 10)
		*out = *out * 10 + (s[n++] - '0');
	return isdigit((unsigned char)s[n]) ? -1 : n;
}

/* One cell, already trimmed. Sets *kind to -1 for an idle or passive cell. */
static enum status parse_cell(struct cell_parse *c, const char *cell,
			      int *kind, int *stage, int *mb)
{
	long st, j;
	*kind = -1;
	if (!*cell)
		return STATUS_OK;
	int n = parse_uint(cell, &st);
	if (n <= 0)
		return cell_fail(c, cell, "expected {stage}{F|I|W|B}{microbatch}, e.g. 0F3");
	const char *t = cell + n;
	for (int i = 0; passive[i]; i++) {
		size_t k = strlen(passive[i]);
		if (!strncmp(t, passive[i], k)) {
			long unused;
			int m = parse_uint(t + k, &unused);   /* optional micro-batch */
			if (m < 0 || t[k + m])
				return cell_fail(c, cell, "expected digits after the action");
			return STATUS_OK;
		}
	}
	char type = *t;
	if (!strchr("FIWB", type) || !type)
		return cell_fail(c, cell, "type must be F, I, W or B");
	int m = parse_uint(t + 1, &j);
	if (m <= 0 || t[1 + m])
		return cell_fail(c, cell, "expected a micro-batch number after the type");
	if (st >= INST_MAX_STAGES || j >= INST_MAX_MICROBATCHES)
		return cell_fail(c, cell, "stage or micro-batch out of range");
	enum backward_style style = type == 'B' ? STYLE_FUSED :
				    type == 'F' ? STYLE_NONE : STYLE_SPLIT;
	if (style != STYLE_NONE && c->style != STYLE_NONE && style != c->style)
		return cell_fail(c, cell, "fused backward 'B' mixed with split 'I'/'W' in one schedule");
	if (style != STYLE_NONE)
		c->style = style;
	*kind = type == 'F' ? OP_F : type == 'W' ? OP_W : OP_B;
	*stage = (int)st;
	*mb = (int)j;
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

static enum status parse_row(struct cell_parse *c, struct schedule *s, int d,
			     const char *line, size_t len)
{
	size_t i = 0;
	c->column = 0;
	while (i <= len) {
		size_t e = i;
		while (e < len && line[e] != ',')
			e++;
		char cell[64];
		size_t a = i, b = e;
		while (a < b && isspace((unsigned char)line[a]))
			a++;
		while (b > a && isspace((unsigned char)line[b - 1]))
			b--;
		c->column++;
		if (b - a >= sizeof cell) {
			snprintf(cell, sizeof cell, "%.20s...", line + a);
			return cell_fail(c, cell, "cell too long");
		}
		memcpy(cell, line + a, b - a);
		cell[b - a] = 0;
		int kind, stage, mb;
		if (parse_cell(c, cell, &kind, &stage, &mb))
			return STATUS_ERROR;
		if (kind >= 0 && schedule_push(s, d, kind, stage, mb))
			return err_set(c->err, "torch csv '%s': out of memory", c->source);
		i = e + 1;
	}
	return STATUS_OK;
}

enum status torch_csv_parse(const char *text, const char *source,
			    struct schedule **out, struct error *err)
{
	struct cell_parse c = {source, 0, 0, STYLE_NONE, err};
	*out = NULL;
	int rows = count_rows(text);
	if (rows < 1)
		return err_set(err, "torch csv '%s': no rows (expected one row per rank)", source);
	if (rows > INST_MAX_DEVICES)
		return err_set(err, "torch csv '%s': %d rows exceeds the maximum %d ranks",
			       source, rows, INST_MAX_DEVICES);
	struct schedule *s = schedule_new(rows);
	if (!s)
		return err_set(err, "torch csv '%s': out of memory", source);
	const char *p = text;
	for (int d = 0; d < rows; d++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len && p[len - 1] == '\r')
			len--;
		c.line = d + 1;
		if (parse_row(&c, s, d, p, len)) {
			schedule_free(s);
			return STATUS_ERROR;
		}
		p = e ? e + 1 : p + len;
	}
	*out = s;
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

char *torch_csv_format(const struct schedule *s, bool split)
{
	struct strbuf sb = {0};
	for (int d = 0; d < s->devices; d++) {
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			char t = o->kind == OP_F ? 'F' : o->kind == OP_W ? 'W' :
				 split ? 'I' : 'B';
			sb_printf(&sb, "%s%d%c%d", i ? "," : "", o->stage, t, o->mb);
		}
		sb_putc(&sb, '\n');
	}
	return sb_finish(&sb);
}
