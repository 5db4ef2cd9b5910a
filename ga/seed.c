/*
 * The GA's seeds: families, the caller's schedules, the serial order, and
 * an exact solve: of the whole instance up to EXACT_SEED_MAX_OPS ops, else
 * of a reduced instance, stretched to full length.
 *
 * Stretching (after Tessel's repetend). Let the reduced schedule have m
 * micro-batches, start times S(k,l,j), and let P be the steady-state
 * period: the largest per-micro-batch load of a device,
 *     P = max_d sum over stages l of d, kinds k of cost(k,l).
 * Keep micro-batches j < h = m/2 as they are; repeat micro-batch h's ops
 * for the Delta = M - m extra micro-batches, one period apart; shift the
 * rest (j > h) by Delta periods:
 *     v(k,l,j') = S(k,l,j')                  j' < h
 *               = S(k,l,h) + (j' - h) P       h <= j' <= h + Delta
 *               = S(k,l,j' - Delta) + Delta P j' > h + Delta
 * and order each device's ops by v (ties by their reduced position). The
 * decoder repairs whatever this leaves infeasible.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "ga/ga.h"
#include "sched/family.h"
#include "sched/sim.h"

/* An instance of at most this many ops is solved whole for the exact seed;
 * a larger one is reduced below it (a MILP of a few hundred binaries per
 * device pair, solvable in seconds). */
#define EXACT_SEED_MAX_OPS 600

/* Grouped GPipe seeds for g = 2 .. min(M - 1, this), on instances of at
 * most GROUPED_MAX_OPS ops (beyond, 15 more seeds cost seconds each). */
#define MAX_GROUP 16
#define GROUPED_MAX_OPS 250000

struct keyed {
	int64_t v;      /* time units: virtual start */
	int pos;        /* position in the reduced row */
	int kind, stage, mb;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return (x->mb > y->mb) - (x->mb < y->mb);
}

static int64_t period(const struct instance *in)
{
	int64_t *load = calloc(in->devices, sizeof *load), p = 1;
	if (!load)
		return 1;
	for (int l = 0; l < in->stages; l++)
		for (int k = 0; k < in->kinds; k++)
			load[in->stage_device[l]] += in->cost[k][l];
	for (int d = 0; d < in->devices; d++)
		p = load[d] > p ? load[d] : p;
	free(load);
	return p;
}

/* Device d's ops of the full instance with their virtual starts. */
static int stretch_row(const struct sched_row *row, const int64_t *start,
		       const struct instance *small, int M, int64_t P,
		       struct keyed *out)
{
	int m = small->microbatches, h = m / 2, delta = M - m, n = 0;
	for (int p = 0; p < row->len; p++) {
		const struct op *o = &row->ops[p];
		int64_t s = start[inst_op_id(small, o->kind, o->stage, o->mb)];
		if (o->mb < h) {
			out[n++] = (struct keyed){s, p, o->kind, o->stage, o->mb};
		} else if (o->mb == h) {
			for (int t = 0; t <= delta; t++)
				out[n++] = (struct keyed){s + t * P, p, o->kind, o->stage, h + t};
		} else {
			out[n++] = (struct keyed){s + delta * P, p, o->kind, o->stage,
						  o->mb + delta};
		}
	}
	return n;
}

struct schedule *ga_stretch(const struct instance *small, const struct schedule *s,
			    const struct instance *in)
{
	struct sim *sim = sim_new(small);
	struct sim_result r;
	struct schedule *out = NULL;
	struct keyed *buf = NULL;
	if (!sim || sim_run(sim, s, &r, NULL))
		goto done;
	int64_t P = period(in);
	int maxrow = 0;
	for (int d = 0; d < s->devices; d++)
		maxrow = s->rows[d].len > maxrow ? s->rows[d].len : maxrow;
	buf = malloc((size_t)(maxrow / small->microbatches + 1) * in->microbatches *
		     sizeof *buf);
	out = schedule_new(in->devices);
	if (!buf || !out)
		goto fail;
	for (int d = 0; d < s->devices; d++) {
		int n = stretch_row(&s->rows[d], r.start, small, in->microbatches, P, buf);
		qsort(buf, n, sizeof *buf, cmp_keyed);
		for (int i = 0; i < n; i++)
			if (schedule_push(out, d, buf[i].kind, buf[i].stage, buf[i].mb))
				goto fail;
	}
	goto done;
fail:
	schedule_free(out);
	out = NULL;
done:
	free(buf);
	sim_free(sim);
	return out;
}

/* The reduced micro-batch count, or 0 when none is small enough. */
static int reduced_microbatches(const struct instance *in)
{
	int m = in->microbatches - 1;
	if (m > 2 * in->devices)
		m = 2 * in->devices;
	while (m >= 2 && (long)in->kinds * in->stages * m > EXACT_SEED_MAX_OPS)
		m--;
	return m >= 2 ? m : 0;
}

struct schedule *ga_exact_seed(const struct instance *in, const struct ga_options *o,
			       double seconds, char *note, int note_len, int *reduced_m)
{
	int m = reduced_microbatches(in);
	*reduced_m = m;
	if (!m) {
		snprintf(note, note_len, "no reduced instance of at least 2 micro-batches stays under %d ops",
			 EXACT_SEED_MAX_OPS);
		return NULL;
	}
	if (!o->exact_solve) {
		snprintf(note, note_len, "no exact solver given");
		return NULL;
	}
	struct instance small = *in;   /* shares in's arrays: none depends on M */
	small.microbatches = m;
	struct schedule *solved = NULL;
	char proved[160];
	int64_t bound;   /* on the reduced instance: not a bound on in */
	if (o->exact_solve(o->exact_ctx, &small, seconds, &solved, &bound, proved, sizeof proved)) {
		snprintf(note, note_len, "reduced solve failed: %s", proved);
		return NULL;
	}
	struct schedule *s = ga_stretch(&small, solved, in);
	snprintf(note, note_len, "m=%d solved %s, stretched to m=%d", m, proved, in->microbatches);
	if (!s)
		snprintf(note, note_len, "stretching the m=%d solution failed", m);
	schedule_free(solved);
	return s;
}

static enum status push_seed(struct ga_seed **v, int *n, int *cap, const char *name,
			     struct schedule *s, const char *note, struct error *err)
{
	if (*n == *cap) {
		int c = *cap ? 2 * *cap : 16;
		struct ga_seed *p = realloc(*v, c * sizeof *p);
		if (!p) {
			schedule_free(s);
			return err_set(err, "ga seeds: out of memory");
		}
		*v = p;
		*cap = c;
	}
	struct ga_seed *x = &(*v)[(*n)++];
	snprintf(x->name, sizeof x->name, "%s", name);
	snprintf(x->note, sizeof x->note, "%s", note ? note : "");
	x->schedule = s;
	x->bound = 0;
	x->pending = false;
	return STATUS_OK;
}

static double exact_seconds(const struct ga_options *o)
{
	if (o->exact_seed_time > 0)
		return o->exact_seed_time;
	double t = o->time_limit > 0 ? o->time_limit / 4 : 10;
	return t < 10 ? t : 10;
}

/* The exact seed of an instance small enough to solve whole: its schedule
 * as is, and the bound it proved, which the GA's stopping rule uses. */
static enum status push_whole_exact(struct ga_seed **v, int *n, int *cap,
				    const struct instance *in, const struct ga_options *o,
				    struct error *err)
{
	char proved[160], note[200];
	struct schedule *s = NULL;
	int64_t bound = 0;
	if (!o->exact_solve)
		snprintf(note, sizeof note, "no exact solver given");
	else if (o->exact_solve(o->exact_ctx, in, exact_seconds(o), &s, &bound, proved, sizeof proved))
		snprintf(note, sizeof note, "exact solve failed: %s", proved);
	else
		snprintf(note, sizeof note, "m=%d solved %s", in->microbatches, proved);
	enum status st = push_seed(v, n, cap, "exact (whole instance)", s, note, err);
	if (!st)
		(*v)[*n - 1].bound = s ? bound : 0;
	return st;
}

/*
 * The steady-state period of a simulated schedule: the mean spacing of the
 * first stage's forwards over the middle half of the micro-batches,
 * rounded up; 0 when m < 4.
 */
static int64_t steady_period(const struct instance *in, const struct sim_result *r)
{
	int M = in->microbatches, j1 = M / 4, j2 = 3 * M / 4, l = in->topo[0];
	if (M < 4 || j2 <= j1)
		return 0;
	int64_t span = r->start[inst_op_id(in, OP_F, l, j2)] - r->start[inst_op_id(in, OP_F, l, j1)];
	return span > 0 ? (span + (j2 - j1) - 1) / (j2 - j1) : 0;
}

/* The best valid seed: the schedule, its objective and its steady-state
 * period (the periodic seed's hint). */
struct best {
	const struct schedule *schedule;   /* NULL: none valid */
	int64_t objective, period;
};

/* Fold seeds v[from .. n) into *b (simulated once each). */
static void best_seed(const struct instance *in, const struct ga_seed *v, int from, int n,
		      struct best *b)
{
	struct sim *sim = sim_new(in);
	struct sim_result r;
	for (int i = from; sim && i < n; i++)
		if (v[i].schedule && sim_run(sim, v[i].schedule, &r, NULL) == STATUS_OK &&
		    r.objective < b->objective) {
			*b = (struct best){v[i].schedule, r.objective, steady_period(in, &r)};
		}
	sim_free(sim);
}

/* The periodic seed (ga_options.periodic), with the exact seed's time,
 * its search starting from the steady state of the best seed so far; then
 * the cyclic seed (ga_options.cyclic) from the best seed, periodic
 * included, with the same time and what the periodic one left of its own
 * (the cyclic seed's annealing gains with time, the periodic probes end
 * when their bisection does). */
static enum status push_periodic(struct ga_seed **v, int *n, int *cap,
				 const struct instance *in, const struct ga_options *o,
				 struct error *err)
{
	char note[200] = "";
	struct schedule *s = NULL;
	struct best b = {NULL, INT64_MAX, 0};
	best_seed(in, *v, 0, *n, &b);
	double t0 = clock_seconds();
	if (o->periodic(o->exact_ctx, in, exact_seconds(o), b.period, &s, note, sizeof note)) {
		schedule_free(s);
		s = NULL;
	}
	int before = *n;
	enum status st = push_seed(v, n, cap, "periodic", s, note, err);
	if (st || !o->cyclic)
		return st;
	best_seed(in, *v, before, *n, &b);   /* the periodic seed, if it beats them */
	if (!b.schedule)
		return STATUS_OK;
	s = NULL;
	note[0] = 0;
	double left = 2 * exact_seconds(o) - (clock_seconds() - t0);
	if (o->cyclic(o->exact_ctx, in, left > exact_seconds(o) ? left : exact_seconds(o),
		      b.period, o->seed, b.schedule, &s, note, sizeof note)) {
		schedule_free(s);
		s = NULL;
	}
	return push_seed(v, n, cap, "cyclic", s, note, err);
}

enum status ga_seeds_collect(const struct instance *in, const struct ga_options *o,
			     struct ga_seed **out, int *n, struct error *err)
{
	struct ga_seed *v = NULL;
	int cap = 0;
	enum status st = STATUS_OK;
	*n = 0;
	for (int i = 0; o->family_seeds && !st && i < family_count(); i++) {
		const struct family *f = family_at(i);
		struct schedule *s = NULL;
		struct error why;
		if (family_run(f, in, &s, &why))
			continue;   /* the family does not support the instance */
		st = push_seed(&v, n, &cap, f->name, s, NULL, err);
	}
	for (int i = 0; !st && i < o->nextra; i++) {
		struct schedule *s = schedule_copy(o->extra[i]);
		st = s ? push_seed(&v, n, &cap, o->extra_names ? o->extra_names[i] : "given",
				   s, NULL, err)
		       : err_set(err, "ga seeds: out of memory");
	}
	if (!st)
		st = push_seed(&v, n, &cap, "serial", family_serial(in), NULL, err);
	bool grouped = o->family_seeds && inst_nops(in) <= GROUPED_MAX_OPS;
	for (int g = 2; grouped && !st && g < in->microbatches && g <= MAX_GROUP; g++) {
		char name[64];
		snprintf(name, sizeof name, "gpipe groups of %d", g);
		st = push_seed(&v, n, &cap, name, family_grouped(in, g), NULL, err);
	}
	if (!st && o->exact_seed && inst_nops(in) <= EXACT_SEED_MAX_OPS && o->exact_solve &&
	    o->exact_alongside && o->time_limit > 0) {
		st = push_seed(&v, n, &cap, "exact (whole instance)", NULL,
			       "solving alongside the GA", err);
		if (!st)
			v[*n - 1].pending = true;
	} else if (!st && o->exact_seed && inst_nops(in) <= EXACT_SEED_MAX_OPS) {
		st = push_whole_exact(&v, n, &cap, in, o, err);
	} else if (!st && o->exact_seed) {
		char note[200];
		int m;
		struct schedule *s = ga_exact_seed(in, o, exact_seconds(o), note, sizeof note, &m);
		char name[64];
		snprintf(name, sizeof name, "exact m=%d, stretched", m);
		st = push_seed(&v, n, &cap, m ? name : "exact (reduced)", s, note, err);
		if (!st && o->periodic)
			st = push_periodic(&v, n, &cap, in, o, err);
	}
	if (st) {
		ga_seeds_free(v, *n);
		*n = 0;
		return st;
	}
	*out = v;
	return STATUS_OK;
}

void ga_seeds_free(struct ga_seed *v, int n)
{
	for (int i = 0; i < n; i++)
		schedule_free(v[i].schedule);
	free(v);
}
