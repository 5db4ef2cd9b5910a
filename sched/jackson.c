/* Jackson's preemptive bound and edge finding (jackson.h). */
#include "sched/jackson.h"

#include <stdbool.h>

static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Binary max-heap of job indices keyed by q. */
static void heap_push(int *heap, int *n, const int64_t *q, int j)
{
	int i = (*n)++;
	while (i > 0 && q[heap[(i - 1) / 2]] < q[j]) {
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i] = j;
}

static void heap_pop(int *heap, int *n, const int64_t *q)
{
	int last = heap[--(*n)], i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && q[heap[c + 1]] > q[heap[c]])
			c++;
		if (q[heap[c]] <= q[last])
			break;
		heap[i] = heap[c];
		i = c;
	}
	if (*n > 0)
		heap[i] = last;
}

/* order := 0..n-1 by release (insertion sort: the callers' job lists are
 * short, a device's op types or its ops left, and mostly sorted). */
static void by_release(int n, const int64_t *r, int *order)
{
	for (int i = 0; i < n; i++) {
		int x = i, y = i;
		while (y > 0 && r[order[y - 1]] > r[x]) {
			order[y] = order[y - 1];
			y--;
		}
		order[y] = x;
	}
}

int64_t jackson_preemptive(int n, const int64_t *r, const int64_t *p, const int64_t *q,
			   int *order, int *heap, int64_t *rem)
{
	int heapn = 0, i = 0;
	int64_t t = JACKSON_NONE, best = JACKSON_NONE;
	by_release(n, r, order);
	for (int j = 0; j < n; j++)
		rem[j] = p[j];
	while (i < n || heapn > 0) {
		if (heapn == 0)
			t = max64(t, r[order[i]]);
		while (i < n && r[order[i]] <= t)
			heap_push(heap, &heapn, q, order[i++]);
		int j = heap[0];
		int64_t next = i < n ? r[order[i]] : INT64_MAX;
		if (t + rem[j] <= next) {
			t += rem[j];
			heap_pop(heap, &heapn, q);
			best = max64(best, t + q[j]);
		} else {
			rem[j] -= next - t;
			t = next;
		}
	}
	return best;
}

/* Edge finding (jackson.h has the rule and its argument). */
/* Insertion sort of a permutation by key: fast on the last call's order,
 * which the windows change little. */
static void sort_by(int m, const int64_t *key, int *idx)
{
	for (int a = 1; a < m; a++)
		for (int b = a; b > 0 && key[idx[b - 1]] > key[idx[b]]; b--) {
			int x = idx[b];
			idx[b] = idx[b - 1];
			idx[b - 1] = x;
		}
}

int edge_find_starts(int m, const int64_t *p, const int64_t *r, const int64_t *d,
		     int64_t *out, int *by_r, int *by_d, int *set, int64_t *val)
{
	int64_t *S = val, *pre = val + m, *suf = val + 2 * m, *rr = val + 3 * m;
	for (int t = 0; t < m; t++)
		out[t] = r[t];
	sort_by(m, r, by_r);
	sort_by(m, d, by_d);
	int changed = 0;
	for (int z = 0; z < m; z++) {
		int64_t dk = d[by_d[z]];
		if (z + 1 < m && d[by_d[z + 1]] == dk)
			continue;   /* each deadline once, with all its ops */
		int q = 0;
		int64_t p_out = 0;   /* the longest op outside O_k */
		for (int x = 0; x < m; x++) {
			int t = by_r[x];
			if (d[t] <= dk)
				set[q++] = t;
			else if (p[t] > p_out)
				p_out = p[t];
		}
		int64_t sum = 0;
		for (int x = q - 1; x >= 0; x--) {   /* S: sums from x on; suf: max of rr + S */
			sum += p[set[x]];
			S[x] = sum;
			rr[x] = r[set[x]];
			suf[x] = rr[x] + sum;
			if (x < q - 1 && suf[x + 1] > suf[x])
				suf[x] = suf[x + 1];
		}
		int64_t ect = suf[0];
		if (ect > dk)
			return -1;
		/* ECT(O_k + i) <= ect + p_i when r_i < ect (every term below is
		 * at most ect, plus p_i), and an op with r_i >= ect rises not: so
		 * with ect + the longest op outside within d_k, none rises */
		if (q == m || ect + p_out <= dk)
			continue;
		for (int x = 0; x < q; x++)
			pre[x] = x && pre[x - 1] > rr[x] + S[x] ? pre[x - 1] : rr[x] + S[x];
		int lo = 0;   /* the ops of O_k with r <= r_i: i goes by r */
		for (int x = 0; x < m; x++) {
			int i = by_r[x];
			while (lo < q && rr[lo] <= r[i])
				lo++;
			if (d[i] <= dk || out[i] >= ect)
				continue;
			int64_t with = r[i] + p[i] + (lo < q ? S[lo] : 0);
			if (lo > 0 && pre[lo - 1] + p[i] > with)
				with = pre[lo - 1] + p[i];
			if (lo < q && suf[lo] > with)
				with = suf[lo];
			if (with > dk) {
				out[i] = ect;
				changed = 1;
			}
		}
	}
	return changed;
}
