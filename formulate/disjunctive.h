/*
 * The disjunctive formulation's own columns (disjunctive.c), behind
 * sm->data of its struct sched_milp. Internal: for disjunctive.c and its
 * white-box tests; everyone else goes through the registry (formulation.h).
 */
#ifndef PIPEOPT_DISJUNCTIVE_H
#define PIPEOPT_DISJUNCTIVE_H

#include <stdint.h>

/* Items grouped by key: those of key x are list[start[x] .. start[x + 1]). */
struct csr {
	int *start, *list;
};

struct disjunctive {
	int *end_col;           /* [n] column of E_o */
	int npairs;
	int (*pair)[2];         /* [npairs] ops a < b, same device, order open */
	int *pair_col;          /* [npairs] y = 1: a before b */
	int64_t *start_lb;      /* [n] earliest start, tightened (below) */
	int64_t *end_ub;        /* [n] latest end, tightened */
	signed char *fixed;     /* [npairs] 1: a before b in every solution,
	                           0: b before a, -1: open */
	/* F&B overlap (instance `overlap`, rho < 1): the open pairs of one F
	 * and one B whose overlapped pair gains (inst_pair_cost below the sum) */
	int nfb;
	int *fb;                /* [nfb] index into pair[] */
	int *fb_of;             /* [npairs] the candidate of each open pair, or -1 */
	int *fb_col;            /* [nfb] z = 1: the two run as one pair */
	int64_t *fb_dur;        /* [nfb] the pair's duration */
	struct csr fb_of_op;    /* the candidates each op is in */
	int64_t *max_dur;       /* [n] the longest an op can last (alone, paired
	                           or recomputed) */
	/* Recompute (instance `recompute`): r = 1 when micro-batch j drops
	 * its activations on stage l after F(l,j) and B(l,j) rebuilds them */
	int *rc_col;            /* [n] the r of an F's or a B's (stage, micro-batch), or -1 */
	int (*w_col)[2];        /* [npairs] w = y r of the pair's op a, of op b, or -1 */
	/* Offload (instance `offload`): per (stage, micro-batch) whose copy
	 * frees memory, u = 1 when it is offloaded; copy h = (c L + l) M + j
	 * is its offload O (c = 0) or reload L (c = 1), as in sim.h */
	int *u_col;             /* [L*M] or -1 */
	int *copy_col;          /* [2*L*M] the copy's end column, or -1 */
	int ncross;             /* (compute op, copy) of one device whose listing
	                           order a rule or a memory row reads */
	struct cross_pair {
		int op, copy;
		int x;          /* 1: the op is listed before the copy */
		int w;          /* x u of the copy (an F's memory row), or -1 */
	} *cross;
	int nchan;              /* pairs of copies of one device */
	struct chan_pair {
		int a, b;       /* copies, a < b */
		int v;          /* 1: a runs (and is listed) before b */
		int wa, wb;     /* v u_a, v u_b */
	} *chan;
	struct csr cross_of_op, cross_of_copy, chan_of_copy;
};

#endif
