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
};

#endif
