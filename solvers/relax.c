/* Window bounds (relax.h): the argument of the relaxation is there. */
#include "solvers/relax.h"

#include <stdlib.h>

#include "common/clock.h"
#include "common/stop.h"
#include "solvers/bnb.h"

bool relax_takes(const struct instance *in)
{
	return in->objective == OBJ_MAKESPAN && in->devices >= 2 && bnb_takes(in) &&
	       !inst_has_decisions(in);
}

enum status relax_window(const struct instance *in, int lo, int hi, int64_t from,
			 int64_t upper, double seconds, int64_t *bound, bool *proved,
			 long *nodes, struct error *err)
{
	bool *relaxed = malloc(in->devices * sizeof *relaxed);
	if (!relaxed)
		return err_set(err, "bound: out of memory");
	for (int d = 0; d < in->devices; d++)
		relaxed[d] = d < lo || d > hi;
	double t0 = clock_seconds();
	*bound = from;
	*proved = from >= upper;
	*nodes = 0;
	enum status st = STATUS_OK;
	for (int64_t T = from; T < upper; T++) {
		double left = seconds > 0 ? seconds - (clock_seconds() - t0) : 0;
		if (seconds > 0 && left <= 0)
			break;
		/* is there a schedule of the relaxation ending by T? (none ends
		 * before T: every target below is refuted, so the search may
		 * stop at the first it finds) */
		struct bnb_options bo = {.time_limit = left, .incumbent = T + 1, .lower_bound = T,
					 .memo = true, .jackson = true, .relaxed = relaxed};
		struct bnb_result br;
		if ((st = bnb_solve(in, &bo, &br, err)))
			break;
		*nodes += br.nodes;
		schedule_free(br.schedule);
		if (br.objective <= T) {   /* found: the relaxation's optimum is T */
			*proved = true;
			break;
		}
		if (!br.proved)
			break;   /* out of time at T: T stands */
		*bound = T + 1;   /* none ends by T */
		*proved = *bound >= upper;
	}
	free(relaxed);
	return st;
}

/* The windows in the order they are searched: first the prefixes
 * [0, w - 1] by width, then every other range by width and position. On a
 * chain the prefix keeps the first stages, where the memory round trips
 * are longest, and relaxes only later devices, which cost the trips their
 * fixed lengths; a window after relaxed devices gets every forward
 * released at once and proves little (bench/results/relax.md). Writes
 * lo[], hi[]; returns the count. */
static int window_order(int D, int widest, int *lo, int *hi)
{
	int n = 0;
	for (int w = 1; w <= widest; w++) {
		lo[n] = 0;
		hi[n++] = w - 1;
	}
	for (int w = 1; w <= widest; w++)
		for (int a = 1; a + w <= D; a++) {
			lo[n] = a;
			hi[n++] = a + w - 1;
		}
	return n;
}

enum status relax_bound(const struct instance *in, const struct relax_options *o,
			struct relax_result *r, struct error *err)
{
	double t0 = clock_seconds();
	int D = in->devices;
	int widest = o->max_width > 0 && o->max_width < D ? o->max_width : D - 1;
	*r = (struct relax_result){.bound = o->lower_bound, .lo = -1, .hi = -1};
	if (!relax_takes(in))
		return STATUS_OK;
	int *lo = malloc(2 * (size_t)D * D * sizeof *lo);
	if (!lo)
		return err_set(err, "bound: out of memory");
	int *hi = lo + D * D;
	int n = window_order(D, widest, lo, hi);
	enum status st = STATUS_OK;
	for (int i = 0; i < n; i++) {
		double left = o->time_limit > 0 ? o->time_limit - (clock_seconds() - t0) : 0;
		if (r->bound >= o->upper_bound || stop_requested() ||
		    (o->time_limit > 0 && left <= 0))
			break;
		/* a prefix may take all that is left; the others share it */
		double slice = o->time_limit <= 0 ? 0 : lo[i] == 0 ? left : left / (n - i);
		int64_t b;
		bool proved;
		long nodes;
		if ((st = relax_window(in, lo[i], hi[i], r->bound, o->upper_bound, slice, &b,
				       &proved, &nodes, err)))
			break;
		r->windows++;
		r->finished += proved;
		r->nodes += nodes;
		if (b > r->bound) {
			r->bound = b;
			r->lo = lo[i];
			r->hi = hi[i];
		}
	}
	free(lo);
	r->seconds = clock_seconds() - t0;
	return st;
}
