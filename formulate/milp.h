/*
 * A solver-neutral mixed-integer linear program:
 *
 *     minimise    sum_j obj[j] x[j]
 *     subject to  row_lb[i] <= sum_j a[i][j] x[j] <= row_ub[i]
 *                 col_lb[j] <= x[j] <= col_ub[j],  x[j] integer if marked
 *
 * Infinite bounds are MILP_INF / -MILP_INF. Rows are stored sparse, in the
 * order added. Every column and row has a name (used by the LP and MPS
 * writers and in messages). Owned by whoever calls milp_new().
 */
#ifndef PIPEOPT_MILP_H
#define PIPEOPT_MILP_H

#include <stdbool.h>
#include <stdio.h>

#include "common/error.h"

#define MILP_INF 1e30

struct milp_col {
	char *name;
	double lb, ub, obj;
	bool integer;
};

struct milp_row {
	char *name;
	double lb, ub;
	int start, len;      /* into the model's nz arrays */
};

struct milp {
	int ncols, nrows;
	struct milp_col *cols;
	struct milp_row *rows;
	long nnz;
	int *nz_col;         /* [nnz] column of each nonzero, row by row */
	double *nz_val;      /* [nnz] */
	double obj_offset;   /* constant added to the objective */
	int col_cap, row_cap;
	long nz_cap;
	bool failed;         /* an allocation failed; milp_check reports it */
};

struct milp *milp_new(void);
void milp_free(struct milp *m);

/* Add a column; returns its index. The name is printf-formatted. */
int milp_add_col(struct milp *m, double lb, double ub, double obj,
		 bool integer, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Add a row lb <= sum val[k] x[col[k]] <= ub; returns its index. Zero
 * coefficients are dropped; repeated columns are summed. */
int milp_add_row(struct milp *m, int len, const int *col, const double *val,
		 double lb, double ub, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* Validate before handing to a solver (GLPK aborts on bad input): finite
 * coefficients and objective, lb <= ub, integer bounds sane, column
 * indices in range, names unique enough for LP/MPS. */
enum status milp_check(const struct milp *m, struct error *err);

/* Objective value and feasibility (within tol) of a point. */
double milp_objective(const struct milp *m, const double *x);
bool milp_feasible(const struct milp *m, const double *x, double tol,
		   int *violated_row);

/* Writers: CPLEX LP format and free MPS. */
enum status milp_write_lp(const struct milp *m, FILE *f, struct error *err);
enum status milp_write_mps(const struct milp *m, FILE *f, struct error *err);

int milp_binaries(const struct milp *m);   /* integer columns in [0, 1] */
/* A pure feasibility question: every column the objective weighs is fixed,
 * so every feasible point has the same objective (the time-indexed
 * targets of solvers/exact.c, "is there a schedule that ends by H?"). */
bool milp_feasibility_only(const struct milp *m);

#endif
