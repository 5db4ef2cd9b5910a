/*
 * The disjunctive formulation's own columns (disjunctive.c), behind
 * sm->data of its struct sched_milp. Internal: for disjunctive.c and its
 * white-box tests; everyone else goes through the registry (formulation.h).
 */
#ifndef PIPEOPT_DISJUNCTIVE_H
#define PIPEOPT_DISJUNCTIVE_H

struct disjunctive {
	int *end_col;           /* [n] column of E_o */
	int npairs;
	int (*pair)[2];         /* [npairs] ops a < b, same device, order open */
	int *pair_col;          /* [npairs] y = 1: a before b */
	int64_t *start_lb;      /* [n] earliest start, tightened (below) */
	int64_t *end_ub;        /* [n] latest end, tightened */
	signed char *fixed;     /* [npairs] 1: a before b in every solution,
	                           0: b before a, -1: open */
};

#endif
