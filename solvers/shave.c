/* Shaving bounds (shave.h): the argument is there. */
#include "solvers/shave.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/stop.h"
#include "formulate/opgraph.h"
#include "sched/sim.h"

#define SHAVE_PASSES 50   /* over every op, per target; each pass that shrinks
                             nothing ends the target */

/* Beyond this many ops the windows' setup alone (the transitive closure
 * and every open pair of a device, O(n^2)) takes seconds and each
 * propagation a good part of one: measured, p16 m128 split (6,144 ops)
 * refutes 3 targets in 7 s, 264 propagations. */
#define SHAVE_MAX_OPS 20000

bool shave_takes(const struct instance *in)
{
	return in->objective == OBJ_MAKESPAN && !inst_has_decisions(in) &&
	       inst_nops(in) <= SHAVE_MAX_OPS;
}

bool shave_search_takes(const struct instance *in)
{
	if (!shave_takes(in))
		return false;
	if (!in->has_limit || !in->has_memory)
		return true;
	int L = in->stages;
	for (int l = 0; l < L; l++) {
		for (int x = 0; x < l; x++)
			if (in->stage_device[x] == in->stage_device[l])
				return false;   /* stages share a device's memory */
		bool freed = in->mem[OP_F][l] > 0 && in->mem[OP_B][l] <= 0 &&
			     (!in->split_backward || in->mem[OP_W][l] < 0);
		if (!freed)
			return false;
	}
	return true;
}

/* Windows (earliest starts s, latest ends e) and the pair orders decided
 * (fixed, opgraph_windows), over one allocation or a slice of one. */
struct wset {
	signed char *fixed;
	int64_t *s, *e;
};

/* The windows of one target and a scratch copy for the questions (both
 * in one block, shave_bound). */
struct shaver {
	const struct opgraph *g;
	int npairs;
	const int (*pairs)[2];
	struct wset w, x;
	long propagations;
	double t0, limit;
	bool out_of_time;
};

static bool time_up(struct shaver *sh)
{
	if (!sh->out_of_time)
		sh->out_of_time = stop_requested() ||
				  (sh->limit > 0 && clock_seconds() - sh->t0 > sh->limit);
	return sh->out_of_time;
}

/* The bytes of one wset in a block of them: the times first, the orders
 * after, padded so that the next set's times stay aligned. */
static size_t wset_bytes(const struct shaver *sh)
{
	size_t orders = ((size_t)sh->npairs + 1 + sizeof(int64_t) - 1) / sizeof(int64_t);
	return (2 * (size_t)sh->g->n + orders) * sizeof(int64_t);
}

/* The wset at slice k of a block (malloc'd, so aligned for int64_t). */
static struct wset wset_at(const struct shaver *sh, int64_t *block, size_t k)
{
	int64_t *t = block + k * (wset_bytes(sh) / sizeof(int64_t));
	return (struct wset){(signed char *)(t + 2 * (size_t)sh->g->n), t, t + sh->g->n};
}

static void wset_copy(const struct shaver *sh, const struct wset *to, const struct wset *from)
{
	memcpy(to->fixed, from->fixed, sh->npairs + 1);
	memcpy(to->s, from->s, sh->g->n * sizeof *to->s);
	memcpy(to->e, from->e, sh->g->n * sizeof *to->e);
}

/* Propagation of x after op `from`'s window shrank (-1: any may have). */
static bool propagate(struct shaver *sh, const struct wset *x, int from)
{
	int nf = 0;
	sh->propagations++;
	return opgraph_propagate(sh->g, sh->npairs, sh->pairs, x->fixed, x->s, x->e, &nf, from);
}

/* Whether the windows stay nonempty with op o's start cut to [lo, hi]
 * (on the scratch copy: the target's windows are left as they are). */
static bool may_start_within(struct shaver *sh, int o, int64_t lo, int64_t hi)
{
	const struct opgraph *g = sh->g;
	wset_copy(sh, &sh->x, &sh->w);
	if (lo > sh->x.s[o])
		sh->x.s[o] = lo;
	if (hi + g->dur[o] < sh->x.e[o])
		sh->x.e[o] = hi + g->dur[o];
	return propagate(sh, &sh->x, o);
}

/* The largest delta in [0, width) for which the cut fails, by bisection
 * (it fails at 0: the caller asked), where the cut is the first delta + 1
 * start times (early) or the last (late). */
static int64_t shave_width(struct shaver *sh, int o, int64_t width, bool early)
{
	int64_t lo = 0, hi = width - 1;   /* fails at lo */
	while (lo < hi && !time_up(sh)) {
		int64_t mid = (lo + hi + 1) / 2, s = sh->w.s[o], last = sh->w.e[o] - sh->g->dur[o];
		bool fits = early ? may_start_within(sh, o, s, s + mid)
				  : may_start_within(sh, o, last - mid, last);
		if (fits)
			hi = mid - 1;
		else
			lo = mid;
	}
	return lo;
}

/* One op's shaves at both ends; -1 when a window emptied (the target is
 * refuted), else whether its window shrank. */
static int shave_op(struct shaver *sh, int o)
{
	const struct opgraph *g = sh->g;
	int shrank = 0;
	for (int side = 0; side < 2; side++) {
		int64_t last = sh->w.e[o] - g->dur[o], width = last - sh->w.s[o];
		if (width <= 0 || time_up(sh))
			break;
		bool early = side == 0;
		if (early ? may_start_within(sh, o, sh->w.s[o], sh->w.s[o])
			  : may_start_within(sh, o, last, last))
			continue;
		int64_t d = shave_width(sh, o, width, early) + 1;
		if (early)
			sh->w.s[o] += d;
		else
			sh->w.e[o] -= d;
		shrank = 1;
		if (!propagate(sh, &sh->w, o))
			return -1;
	}
	return shrank;
}

/* Whether target T survives: false when the windows, shaved, empty;
 * true when they reach a fixpoint or the time is up (then not finished). */
static bool target_stands(struct shaver *sh, int64_t T, bool *finished)
{
	const struct opgraph *g = sh->g;
	int nf;
	*finished = false;
	sh->propagations++;
	if (!opgraph_windows(g, T, sh->npairs, sh->pairs, sh->w.fixed, sh->w.s, sh->w.e, &nf))
		return false;
	for (int pass = 0; pass < SHAVE_PASSES; pass++) {
		bool shrank = false;
		for (int o = 0; o < g->n; o++) {
			if (time_up(sh))
				return true;
			int r = shave_op(sh, o);
			if (r < 0)
				return false;
			shrank |= r > 0;
		}
		if (!shrank) {
			*finished = true;
			break;
		}
	}
	return true;
}

/*
 * The search at a target that shaving leaves standing: depth first over
 * the device orders, each node propagated (opgraph_propagate). At a node,
 * among the pairs of one device's ops whose order is open, the one whose
 * earlier op can start first (ties: the other's earliest start) is
 * branched on, that op first, then the other. A leaf decides every pair:
 * each device's order is then the ops by how many of its ops precede each
 * (decided pairs and the arcs' closure; not a permutation only when the
 * decisions contradict each other, and then no schedule has them), and
 * the simulator times it at the earliest, memory checked. Kept when
 * valid and ending by T; otherwise no schedule with those orders ends by
 * T (the windows hold memory only in part, so a leaf can break a limit),
 * and the search goes on. Branching on orders, not start
 * times, a leaf is one set of orders: ops whose times do not matter are
 * not enumerated. A search that runs out of nodes proves that no
 * schedule ends by T.
 *
 * A frame per branch saves the state to return to (each decides a pair
 * that stays decided below it, so at most npairs frames).
 */
#define SEARCH_MAX_BYTES (256L << 20)   /* the frames' copies */

struct frame {
	int pair;
	signed char second;        /* the order to try when the first fails */
};

/* The open pair to branch on and the order to try first (1: its first op
 * first); -1 when every pair is decided. */
static int pick_pair(const struct shaver *sh, signed char *first)
{
	const int64_t *s = sh->w.s;
	int best = -1;
	int64_t b0 = 0, b1 = 0;
	for (int p = 0; p < sh->npairs; p++) {
		if (sh->w.fixed[p] >= 0)
			continue;
		int a = sh->pairs[p][0], b = sh->pairs[p][1];
		int64_t lo = s[a] < s[b] ? s[a] : s[b], hi = s[a] < s[b] ? s[b] : s[a];
		if (best < 0 || lo < b0 || (lo == b0 && hi < b1)) {
			best = p;
			b0 = lo;
			b1 = hi;
			*first = s[a] <= s[b];
		}
	}
	return best;
}

/* The schedule of a leaf's orders into *out, its simulated objective in
 * *objective, if the simulator finds it valid and ending by T, else NULL;
 * an error only out of memory (never read as "no schedule": that would
 * be a wrong proof). */
static enum status leaf_schedule(const struct shaver *sh, struct sim *sim, int64_t T,
				 struct schedule **out, int64_t *objective, struct error *err)
{
	const struct opgraph *g = sh->g;
	const struct instance *in = g->in;
	int M = in->microbatches, L = in->stages, n = g->n;
	struct schedule *sc = schedule_new(in->devices);
	int *pos = calloc(n + 1, sizeof *pos), *ord = malloc((g->dev_most + 1) * sizeof *ord);
	bool mem = sc && pos && ord, ok = mem;
	*out = NULL;
	for (int p = 0; p < sh->npairs && ok; p++)
		pos[sh->w.fixed[p] ? sh->pairs[p][1] : sh->pairs[p][0]]++;
	for (int d = 0; d < g->devices && ok; d++) {
		int m = g->dev_start[d + 1] - g->dev_start[d];
		const int *ops = g->dev_ops + g->dev_start[d];
		for (int t = 0; t < m; t++)
			ord[t] = -1;
		for (int t = 0; t < m && ok; t++) {   /* a place each, or a contradiction */
			for (int u = 0; u < m; u++)
				pos[ops[t]] += u != t && opgraph_precedes(g, ops[u], ops[t]);
			ok = pos[ops[t]] < m && ord[pos[ops[t]]] < 0;
			if (ok)
				ord[pos[ops[t]]] = ops[t];
		}
		for (int t = 0; t < m && ok; t++)
			mem = ok = !schedule_push(sc, d, ord[t] / (L * M), ord[t] / M % L, ord[t] % M);
	}
	free(pos);
	free(ord);
	struct sim_result res;
	if (ok && !sim_run(sim, sc, &res, NULL) && res.objective <= T) {
		*out = sc;
		*objective = res.objective;
		return STATUS_OK;
	}
	schedule_free(sc);
	return mem ? STATUS_OK : err_set(err, "bound: out of memory");
}

/* Whether the search at T finished (found, or proved none) within
 * `seconds` (<= 0: the shaver's limit only); *found the schedule when one
 * ends by T, *objective its simulated objective. Starts from the windows
 * in sh->w (shaved). */
static enum status search_target(struct shaver *sh, int64_t T, double seconds, struct sim *sim,
				 struct schedule **found, int64_t *objective, bool *finished,
				 long *nodes, struct error *err)
{
	double until = seconds > 0 ? clock_seconds() + seconds : 0;
	int np = sh->npairs;
	*found = NULL;
	*finished = false;
	if ((size_t)(np + 1) * wset_bytes(sh) > (size_t)SEARCH_MAX_BYTES)
		return STATUS_OK;
	struct frame *fr = malloc((np + 1) * sizeof *fr);
	int64_t *saved = malloc((np + 1) * wset_bytes(sh));
	if (!fr || !saved) {
		free(fr);
		free(saved);
		return err_set(err, "bound: out of memory");
	}
	enum status st = STATUS_OK;
	int depth = 0;
	while (!time_up(sh) && !(until > 0 && clock_seconds() > until)) {
		signed char first;
		int p = pick_pair(sh, &first);
		bool ok;
		if (p < 0) {   /* every order decided */
			if ((st = leaf_schedule(sh, sim, T, found, objective, err)))
				break;
			if (*found) {
				*finished = true;
				break;
			}
			ok = false;
		} else {
			struct wset m = wset_at(sh, saved, depth);
			wset_copy(sh, &m, &sh->w);
			fr[depth++] = (struct frame){p, (signed char)!first};
			sh->w.fixed[p] = first;
			(*nodes)++;
			ok = propagate(sh, &sh->w, sh->pairs[p][0]);
		}
		while (!ok) {   /* the deepest branch whose second order is left */
			if (!depth) {
				*finished = true;   /* no schedule ends by T */
				break;
			}
			struct frame f = fr[--depth];
			struct wset m = wset_at(sh, saved, depth);
			wset_copy(sh, &sh->w, &m);
			sh->w.fixed[f.pair] = f.second;
			(*nodes)++;
			ok = propagate(sh, &sh->w, sh->pairs[f.pair][0]);
		}
		if (*finished)
			break;
	}
	free(fr);
	free(saved);
	return st;
}

/*
 * The targets from the bound up, one unit at a time while they are
 * refuted, the cheap questions (a target left standing costs a whole
 * shaving to its fixpoint): measured on p8 m16 fused (3, 4, 2), comm 1,
 * 762 propagations one by one, 10,313 galloping from the first. After
 * GALLOP_AFTER refutations in a row the step doubles with each (refuting
 * T refutes every target below it; instances in microseconds have bounds
 * thousands of units below the best schedule), and a target left
 * standing above the bound halves it. At the bound itself a target left
 * standing ends the climb, or with o->search is searched: a schedule
 * ends it, a proof that none exists goes on above it.
 */
#define GALLOP_AFTER 16

static enum status climb(struct shaver *sh, const struct shave_options *o, struct sim *sim,
			 struct shave_result *r, struct error *err)
{
	int64_t step = 1;
	int in_a_row = 0;
	while (r->bound < o->upper_bound && !time_up(sh)) {
		int64_t T = o->upper_bound - r->bound > step ? r->bound + step - 1 : o->upper_bound - 1;
		bool fixpoint;
		if (!target_stands(sh, T, &fixpoint)) {
			r->bound = T + 1;   /* no schedule ends by T, nor by any target below */
			if (++in_a_row > GALLOP_AFTER && step < INT64_MAX / 4)
				step *= 2;
			continue;
		}
		in_a_row = 0;
		if (T > r->bound) {
			step = step > 1 ? step / 2 : 1;
			continue;
		}
		r->finished = fixpoint;
		if (!o->search || !fixpoint)
			return STATUS_OK;
		bool done = false;
		if (search_target(sh, T, o->search_time, sim, &r->schedule, &r->objective, &done,
				  &r->search_nodes, err))
			return STATUS_ERROR;
		if (r->schedule || !done) {
			r->finished = r->schedule != NULL;
			return STATUS_OK;
		}
		r->bound = T + 1;   /* the search proved that none ends by T */
		step = 1;
	}
	r->finished = r->bound >= o->upper_bound;
	return STATUS_OK;
}

enum status shave_bound(const struct instance *in, const struct shave_options *o,
			struct shave_result *r, struct error *err)
{
	memset(r, 0, sizeof *r);
	r->bound = o->lower_bound;
	r->finished = r->bound >= o->upper_bound;
	if (!shave_takes(in) || r->finished)
		return STATUS_OK;
	struct opgraph *g = opgraph_new(in, err);
	if (!g)
		return STATUS_ERROR;
	struct shaver sh = {.g = g, .t0 = clock_seconds(), .limit = o->time_limit};
	int (*pairs)[2] = NULL;
	sh.npairs = opgraph_open_pairs(g, &pairs);
	sh.pairs = (const int (*)[2])pairs;
	int64_t *block = sh.npairs < 0 ? NULL : malloc(2 * wset_bytes(&sh));
	struct sim *sim = o->search ? sim_new(in) : NULL;
	enum status st = STATUS_OK;
	if (!block || (o->search && !sim)) {
		st = err_set(err, "bound: out of memory");
	} else {
		sh.w = wset_at(&sh, block, 0);   /* the target's windows */
		sh.x = wset_at(&sh, block, 1);   /* the questions' scratch */
		st = climb(&sh, o, sim, r, err);
	}
	r->refuted = (int)(r->bound - o->lower_bound);
	r->propagations = sh.propagations;
	r->seconds = clock_seconds() - sh.t0;
	sim_free(sim);
	free(pairs);
	free(block);
	opgraph_free(g);
	return st;
}
