/* Jackson's preemptive bound (jackson.h). */
#include "sched/jackson.h"

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
