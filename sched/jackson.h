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

/*
 * Edge finding on one machine (Carlier and Pinson's rule, in the set form
 * of Vilim): m ops run one at a time, op t in [r_t, d_t] (starts at or
 * after r_t, ends by d_t), lasting p_t. For a set S of them,
 *     ECT(S) = max over t in S of  r_t + sum { p_u : u in S, r_u >= r_t }
 * is a lower bound on when the last op of S ends: the ops counted all
 * start at or after r_t and run one at a time. Take S = O_k, the ops with
 * d <= d_k (every k):
 *   - overload: ECT(O_k) > d_k, no order fits;
 *   - edge: an op i outside O_k with ECT(O_k + i) > d_k runs after every
 *     op of O_k. Otherwise the last op of O_k + i to end is one of O_k and
 *     ends by d_k, so all of O_k + i ends by d_k, and the set that ECT
 *     counted (it holds i, or O_k alone would be overloaded) does not fit.
 *     Running after all of O_k, i starts at or after ECT(O_k).
 * ECT(O_k + i) splits at r_i: the sums from starts r_t <= r_i count p_i,
 * the later ones do not, and r_i itself counts p_i and the ops of O_k
 * from r_i on; prefix and suffix maxima give it for every i at once.
 * Example: A and B in [0, 8], C in [0, 20], lasting 4, 4 and 3. O = {A, B}
 * fits (ECT 8), but ECT(O + C) = 0 + 11 > 8, so C starts at 8 or later;
 * no rule on two ops finds it (C then A ends by 7, C then B too).
 * The raised starts go to out (r itself stays as sorted while the sets
 * are read). by_r and by_d: on entry permutations of 0..m-1 (the last
 * call's are sorted fastest), on return the ops by r and by d; set:
 * scratch for m ints, val: for 4m int64s. -1 on an overload, else
 * whether some start rose. The ends' mirror is the same
 * on negated times (r = -d, d = -r). Used by the windows of the MILP's
 * targets and the shaving bounds (formulate/opgraph.h, solvers/shave.h).
 */
int edge_find_starts(int m, const int64_t *p, const int64_t *r, const int64_t *d,
		     int64_t *out, int *by_r, int *by_d, int *set, int64_t *val);

#endif
