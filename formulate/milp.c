/* The solver-neutral MILP and its LP / MPS writers (see milp.h). */
#include "formulate/milp.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct milp *milp_new(void)
{
	return calloc(1, sizeof(struct milp));
}

void milp_free(struct milp *m)
{
	if (!m)
		return;
	for (int j = 0; j < m->ncols; j++)
		free(m->cols[j].name);
	for (int i = 0; i < m->nrows; i++)
		free(m->rows[i].name);
	free(m->cols);
	free(m->rows);
	free(m->nz_col);
	free(m->nz_val);
	free(m);
}

static char *vformat(const char *fmt, va_list ap)
{
	char buf[256];
	vsnprintf(buf, sizeof buf, fmt, ap);
	return strdup(buf);
}

/* Room for one more element in *arr (of *cap), doubling; false (and the
 * model marked failed) when memory runs out. */
static bool grow(struct milp *m, void **arr, int *cap, int n, size_t elem)
{
	if (n < *cap)
		return true;
	int c = *cap ? 2 * *cap : 256;
	void *p = realloc(*arr, (size_t)c * elem);
	if (!p) {
		m->failed = true;
		return false;
	}
	*arr = p;
	*cap = c;
	return true;
}

int milp_add_col(struct milp *m, double lb, double ub, double obj,
		 bool integer, const char *fmt, ...)
{
	if (!grow(m, (void **)&m->cols, &m->col_cap, m->ncols, sizeof *m->cols))
		return -1;
	va_list ap;
	va_start(ap, fmt);
	char *name = vformat(fmt, ap);
	va_end(ap);
	if (!name)
		m->failed = true;
	m->cols[m->ncols] = (struct milp_col){name, lb, ub, obj, integer};
	return m->ncols++;
}

static bool reserve_nz(struct milp *m, long extra)
{
	if (m->nnz + extra <= m->nz_cap)
		return true;
	long cap = m->nz_cap ? m->nz_cap : 1024;
	while (cap < m->nnz + extra)
		cap *= 2;
	int *c = realloc(m->nz_col, cap * sizeof *c);
	if (c)
		m->nz_col = c;
	double *v = realloc(m->nz_val, cap * sizeof *v);
	if (v)
		m->nz_val = v;
	if (!c || !v) {
		m->failed = true;
		return false;
	}
	m->nz_cap = cap;
	return true;
}

int milp_add_row(struct milp *m, int len, const int *col, const double *val,
		 double lb, double ub, const char *fmt, ...)
{
	if (!grow(m, (void **)&m->rows, &m->row_cap, m->nrows, sizeof *m->rows))
		return -1;
	if (!reserve_nz(m, len))
		return -1;
	long start = m->nnz;
	for (int k = 0; k < len; k++) {
		if (val[k] == 0.0)
			continue;
		long e;
		for (e = start; e < m->nnz; e++)
			if (m->nz_col[e] == col[k])
				break;
		if (e < m->nnz) {
			m->nz_val[e] += val[k];
			continue;
		}
		m->nz_col[m->nnz] = col[k];
		m->nz_val[m->nnz++] = val[k];
	}
	/* drop coefficients that summed to zero */
	long w = start;
	for (long e = start; e < m->nnz; e++)
		if (m->nz_val[e] != 0.0) {
			m->nz_col[w] = m->nz_col[e];
			m->nz_val[w++] = m->nz_val[e];
		}
	m->nnz = w;
	va_list ap;
	va_start(ap, fmt);
	char *name = vformat(fmt, ap);
	va_end(ap);
	if (!name)
		m->failed = true;
	m->rows[m->nrows] = (struct milp_row){name, lb, ub, (int)start,
					      (int)(m->nnz - start)};
	return m->nrows++;
}

enum status milp_check(const struct milp *m, struct error *err)
{
	if (m->failed)
		return err_set(err, "milp: out of memory while building the model");
	if (m->ncols == 0)
		return err_set(err, "milp: the model has no columns");
	for (int j = 0; j < m->ncols; j++) {
		const struct milp_col *c = &m->cols[j];
		if (!isfinite(c->obj) || isnan(c->lb) || isnan(c->ub) || c->lb > c->ub ||
		    c->lb >= MILP_INF || c->ub <= -MILP_INF)
			return err_set(err, "milp: column '%s' has bounds [%g, %g] or objective %g",
				       c->name, c->lb, c->ub, c->obj);
	}
	for (int i = 0; i < m->nrows; i++) {
		const struct milp_row *r = &m->rows[i];
		if (isnan(r->lb) || isnan(r->ub) || r->lb > r->ub ||
		    r->lb >= MILP_INF || r->ub <= -MILP_INF)
			return err_set(err, "milp: row '%s' has bounds [%g, %g]", r->name,
				       r->lb, r->ub);
		for (int k = r->start; k < r->start + r->len; k++)
			if (m->nz_col[k] < 0 || m->nz_col[k] >= m->ncols ||
			    !isfinite(m->nz_val[k]))
				return err_set(err, "milp: row '%s' has a bad coefficient", r->name);
	}
	return STATUS_OK;
}

double milp_objective(const struct milp *m, const double *x)
{
	double v = m->obj_offset;
	for (int j = 0; j < m->ncols; j++)
		v += m->cols[j].obj * x[j];
	return v;
}

bool milp_feasible(const struct milp *m, const double *x, double tol,
		   int *violated_row)
{
	if (violated_row)
		*violated_row = -1;
	for (int j = 0; j < m->ncols; j++) {
		const struct milp_col *c = &m->cols[j];
		if (x[j] < c->lb - tol || x[j] > c->ub + tol ||
		    (c->integer && fabs(x[j] - round(x[j])) > tol))
			return false;
	}
	for (int i = 0; i < m->nrows; i++) {
		const struct milp_row *r = &m->rows[i];
		double s = 0;
		for (int k = r->start; k < r->start + r->len; k++)
			s += m->nz_val[k] * x[m->nz_col[k]];
		if (s < r->lb - tol || s > r->ub + tol) {
			if (violated_row)
				*violated_row = i;
			return false;
		}
	}
	return true;
}

int milp_binaries(const struct milp *m)
{
	int n = 0;
	for (int j = 0; j < m->ncols; j++)
		n += m->cols[j].integer && m->cols[j].lb >= 0 && m->cols[j].ub <= 1;
	return n;
}

bool milp_feasibility_only(const struct milp *m)
{
	for (int c = 0; c < m->ncols; c++)
		if (m->cols[c].obj != 0 && m->cols[c].lb != m->cols[c].ub)
			return false;
	return true;
}

/* ---- CPLEX LP --------------------------------------------------------- */

#define OFFSET_COL "objective_constant"

static void lp_term(FILE *f, double v, const char *name, int *col)
{
	int n = fprintf(f, " %s %.17g %s", v < 0 ? "-" : "+", fabs(v), name);
	*col += n;
	if (*col > 200) {
		fputs("\n   ", f);
		*col = 3;
	}
}

enum status milp_write_lp(const struct milp *m, FILE *f, struct error *err)
{
	int col = 0;
	fprintf(f, "\\ written by pipeopt\nMinimize\n obj:");
	for (int j = 0; j < m->ncols; j++)
		if (m->cols[j].obj != 0)
			lp_term(f, m->cols[j].obj, m->cols[j].name, &col);
	/* A constant in the objective is not read alike by every LP reader,
	 * so it becomes a column fixed at 1 with the constant as its cost. */
	if (m->obj_offset != 0)
		lp_term(f, m->obj_offset, OFFSET_COL, &col);
	fprintf(f, "\nSubject To\n");
	for (int i = 0; i < m->nrows; i++) {
		const struct milp_row *r = &m->rows[i];
		bool lo = r->lb > -MILP_INF, hi = r->ub < MILP_INF;
		if (!lo && !hi)
			continue;
		for (int side = 0; side < 2; side++) {
			const char *op;
			double rhs;
			if (lo && hi && r->lb == r->ub) {
				if (side)
					break;
				op = "=";
				rhs = r->lb;
			} else if (side == 0) {
				if (!lo)
					continue;
				op = ">=";
				rhs = r->lb;
			} else {
				if (!hi)
					continue;
				op = "<=";
				rhs = r->ub;
			}
			col = fprintf(f, " %s%s:", r->name, side ? "_ub" : "");
			if (r->len == 0)
				lp_term(f, 0.0, m->cols[0].name, &col);
			for (int k = r->start; k < r->start + r->len; k++)
				lp_term(f, m->nz_val[k], m->cols[m->nz_col[k]].name, &col);
			fprintf(f, " %s %.17g\n", op, rhs);
		}
	}
	fprintf(f, "Bounds\n");
	if (m->obj_offset != 0)
		fprintf(f, " %s = 1\n", OFFSET_COL);
	for (int j = 0; j < m->ncols; j++) {
		const struct milp_col *c = &m->cols[j];
		if (c->lb <= -MILP_INF && c->ub >= MILP_INF)
			fprintf(f, " %s free\n", c->name);
		else if (c->ub >= MILP_INF)
			fprintf(f, " %s >= %.17g\n", c->name, c->lb);
		else if (c->lb <= -MILP_INF)
			fprintf(f, " -inf <= %s <= %.17g\n", c->name, c->ub);
		else
			fprintf(f, " %.17g <= %s <= %.17g\n", c->lb, c->name, c->ub);
	}
	bool any = false;
	for (int j = 0; j < m->ncols; j++)
		if (m->cols[j].integer) {
			fprintf(f, "%s %s\n", any ? "" : "General\n", m->cols[j].name);
			any = true;
		}
	fprintf(f, "End\n");
	if (ferror(f))
		return err_set(err, "milp: write error");
	return STATUS_OK;
}

/* ---- free MPS ------------------------------------------------------------ */

enum status milp_write_mps(const struct milp *m, FILE *f, struct error *err)
{
	fprintf(f, "NAME pipeopt FREE\nROWS\n N obj\n");
	for (int i = 0; i < m->nrows; i++) {
		const struct milp_row *r = &m->rows[i];
		bool lo = r->lb > -MILP_INF, hi = r->ub < MILP_INF;
		fprintf(f, " %s %s\n", lo && hi ? (r->lb == r->ub ? "E" : "G") :
				      lo ? "G" : hi ? "L" : "N", r->name);
	}
	/* column-major: gather nonzeros per column */
	int *count = calloc(m->ncols + 1, sizeof(int));
	long *at = malloc((m->nnz + 1) * sizeof(long));
	int *rowof = malloc((m->nnz + 1) * sizeof(int));
	if (!count || !at || !rowof) {
		free(count);
		free(at);
		free(rowof);
		return err_set(err, "milp: out of memory");
	}
	for (long e = 0; e < m->nnz; e++)
		count[m->nz_col[e] + 1]++;
	for (int j = 0; j < m->ncols; j++)
		count[j + 1] += count[j];
	for (int i = 0; i < m->nrows; i++)
		for (int k = m->rows[i].start; k < m->rows[i].start + m->rows[i].len; k++) {
			int j = m->nz_col[k];
			rowof[count[j]] = i;
			at[count[j]++] = k;
		}
	for (int j = m->ncols - 1; j >= 0; j--)
		count[j + 1] = count[j];
	count[0] = 0;
	fprintf(f, "COLUMNS\n");
	bool in_int = false;
	for (int j = 0; j < m->ncols; j++) {
		const struct milp_col *c = &m->cols[j];
		if (c->integer != in_int) {
			fprintf(f, " MARKER 'MARKER' '%s'\n", c->integer ? "INTORG" : "INTEND");
			in_int = c->integer;
		}
		if (c->obj != 0)
			fprintf(f, " %s obj %.17g\n", c->name, c->obj);
		for (int e = count[j]; e < count[j + 1]; e++)
			fprintf(f, " %s %s %.17g\n", c->name, m->rows[rowof[e]].name,
				m->nz_val[at[e]]);
		if (c->obj == 0 && count[j] == count[j + 1])
			fprintf(f, " %s obj 0\n", c->name);
	}
	if (in_int)
		fprintf(f, " MARKER 'MARKER' 'INTEND'\n");
	/* the objective constant, as a column fixed at 1 (readers disagree on
	 * the sign of a right-hand side on the objective row) */
	if (m->obj_offset != 0)
		fprintf(f, " %s obj %.17g\n", OFFSET_COL, m->obj_offset);
	free(count);
	free(at);
	free(rowof);
	fprintf(f, "RHS\n");
	for (int i = 0; i < m->nrows; i++) {
		const struct milp_row *r = &m->rows[i];
		bool lo = r->lb > -MILP_INF, hi = r->ub < MILP_INF;
		double rhs = lo ? r->lb : hi ? r->ub : 0;
		if (rhs != 0)
			fprintf(f, " rhs %s %.17g\n", r->name, rhs);
	}
	fprintf(f, "RANGES\n");
	for (int i = 0; i < m->nrows; i++) {
		const struct milp_row *r = &m->rows[i];
		if (r->lb > -MILP_INF && r->ub < MILP_INF && r->lb != r->ub)
			fprintf(f, " rng %s %.17g\n", r->name, r->ub - r->lb);
	}
	fprintf(f, "BOUNDS\n");
	if (m->obj_offset != 0)
		fprintf(f, " FX bnd %s 1\n", OFFSET_COL);
	for (int j = 0; j < m->ncols; j++) {
		const struct milp_col *c = &m->cols[j];
		if (c->lb <= -MILP_INF && c->ub >= MILP_INF) {
			fprintf(f, " FR bnd %s\n", c->name);
			continue;
		}
		if (c->lb == c->ub) {
			fprintf(f, " FX bnd %s %.17g\n", c->name, c->lb);
			continue;
		}
		if (c->lb <= -MILP_INF)
			fprintf(f, " MI bnd %s\n", c->name);
		else if (c->lb != 0 || c->integer)
			fprintf(f, " LO bnd %s %.17g\n", c->name, c->lb);
		if (c->ub < MILP_INF)
			fprintf(f, " UP bnd %s %.17g\n", c->name, c->ub);
		else if (c->integer)
			fprintf(f, " PL bnd %s\n", c->name);
	}
	fprintf(f, "ENDATA\n");
	if (ferror(f))
		return err_set(err, "milp: write error");
	return STATUS_OK;
}
