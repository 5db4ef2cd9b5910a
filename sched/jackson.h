/*
 * Jackson's preemptive bound for one machine with release dates r,
 * processing times p and delivery times q (tails): every non-preemptive
 * schedule is also a preemptive one, and for the preemptive problem
 * Jackson's rule (at every moment run the released job with the largest
 * q) is optimal, so its value
 *     max_j (C_j + q_j)
 * is a lower bound on the same over every non-preemptive schedule. It
 * equals Carlier's bound, the max over job sets S of
 *     min_S r + sum_S p + min_S q,
 * which contains "device load plus unavoidable fill and drain": S = all
 * jobs gives head + load + tail. Used by sched/bound.c (one job per op
 * type of a device) and by the exact search at every node (solvers/bnb.c,
 * one job per op left).
 */
#ifndef PIPEOPT_JACKSON_H
#define PIPEOPT_JACKSON_H

#include <stdint.h>

/* The value of Jackson's preemptive schedule of jobs 0..n-1, or
 * JACKSON_NONE when n is 0. Scratch space, n entries each, from the
 * caller: order (the jobs by release), heap and rem (time left). */
#define JACKSON_NONE (INT64_MIN / 4)
int64_t jackson_preemptive(int n, const int64_t *r, const int64_t *p, const int64_t *q,
			   int *order, int *heap, int64_t *rem);

#endif
