/*
 * The GA's generations (see ga.h).
 *
 * One generation: sort by fitness; keep the best E = max(1, P/8) as they
 * are (elitism); fill the other P - E places with children: two parents by
 * 3-way tournaments, per-device crossover with probability 0.7, then k
 * mutations, k >= 1 drawn geometrically with mean mu; decode the children
 * on the threads. mu (the adaptive mutation rate) is 1 after an
 * improvement and grows by one every 8 generations without one, up to 16:
 * small steps while they pay, bigger jumps when the search is stuck. After
 * 50 generations without improvement everyone but the best is renewed
 * (renew(): random walks, mutants of seeds, mutants of the best).
 */
#include "ga/ga.h"
#include "sched/verdict.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ga/operators.h"
#include "common/rng.h"
#include "sched/bound.h"
#include "common/stop.h"
#include "common/clock.h"
#include "sched/pairing.h"
#include "sched/sim.h"

#define TOURNAMENT 3
#define CROSSOVER_RATE 0.7
#define MU_MAX 16
#define MU_STEP_GENERATIONS 8
#define RESTART_GENERATIONS 50
#define RANDOM_WALK_MAX_OPS 5000
#define SEED_KEEP_FACTOR 1.5
#define GA_MAX_BYTES (8.0 * (1 << 30))
#define ALONGSIDE_SHARE 0.8   /* of the time limit, for the exact solve alongside */
/* The local search of the best at a restart (ga_options.polish): a tenth
 * of the time left, at most POLISH_CAP seconds. */
#define POLISH_SHARE 0.1
#define POLISH_CAP 1.0
/* Before the generations the local search starts from the best seeds
 * with orders of their own, at most this many (solvers/lns.h: a family
 * slightly worse than the best is often not a local optimum where the
 * best is). */
#define POLISH_STARTS 4
#define POLISH_STARTS_SHARE 0.25   /* of the time left, for all starts */
#define PAIRING_OPS 5e7       /* simulated ops the final pairing pass may spend */

struct individual {
	gene_t *g;
	struct fitness fit;
	int origin;          /* index of the seed it descends from */
};

/* ---- parallel decoding ------------------------------------------------------ */

struct pool {
	int nthreads;
	pthread_t *tid;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	long round;          /* bumped for each batch */
	bool quit;
	int active;          /* workers still busy with the batch */
	struct individual *batch;
	int count;
	atomic_int next;
	struct decoder **dec;          /* [nthreads] */
	struct decode_stats *stats;    /* [nthreads] */
};

struct worker_arg {
	struct pool *p;
	int id;
};

static void decode_batch(struct pool *p, int id)
{
	int i;
	while ((i = atomic_fetch_add(&p->next, 1)) < p->count)
		p->batch[i].fit = decoder_run(p->dec[id], p->batch[i].g, &p->stats[id]);
}

static void *worker(void *arg)
{
	struct worker_arg *w = arg;
	struct pool *p = w->p;
	long seen = 0;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (p->round == seen && !p->quit)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->quit) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		seen = p->round;
		pthread_mutex_unlock(&p->mu);
		decode_batch(p, w->id);
		pthread_mutex_lock(&p->mu);
		if (--p->active == 0)
			pthread_cond_signal(&p->done);
		pthread_mutex_unlock(&p->mu);
	}
}

/* Decode batch[0..count) on all threads; returns when all are done. */
static void pool_decode(struct pool *p, struct individual *batch, int count)
{
	pthread_mutex_lock(&p->mu);
	p->batch = batch;
	p->count = count;
	atomic_store(&p->next, 0);
	p->active = p->nthreads - 1;
	p->round++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	decode_batch(p, 0);
	pthread_mutex_lock(&p->mu);
	while (p->active > 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

static void pool_stop(struct pool *p, struct worker_arg *args, int started)
{
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < started; i++)
		pthread_join(p->tid[i], NULL);
	free(args);
}

static void pool_release(struct pool *p)
{
	for (int i = 0; p->dec && i < p->nthreads; i++)
		decoder_free(p->dec[i]);
	free(p->dec);
	free(p->stats);
	free(p->tid);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
}

/* Decoders for every thread, and threads 1..n-1 started. */
static enum status pool_init(struct pool *p, const struct layout *lay, int n,
			     struct worker_arg **args, int *started, struct error *err)
{
	memset(p, 0, sizeof *p);
	p->nthreads = n;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	p->dec = calloc(n, sizeof *p->dec);
	p->stats = calloc(n, sizeof *p->stats);
	p->tid = calloc(n, sizeof *p->tid);
	*args = calloc(n, sizeof **args);
	*started = 0;
	if (!p->dec || !p->stats || !p->tid || !*args)
		return err_set(err, "ga: out of memory");
	for (int i = 0; i < n; i++)
		if (!(p->dec[i] = decoder_new(lay)))
			return err_set(err, "ga: out of memory for %d decoders", n);
	for (int i = 1; i < n; i++) {
		(*args)[i] = (struct worker_arg){p, i};
		if (pthread_create(&p->tid[i - 1], NULL, worker, &(*args)[i]))
			return err_set(err, "ga: cannot start thread %d of %d", i + 1, n);
		++*started;
	}
	return STATUS_OK;
}

/* ---- the exact solve alongside the generations --------------------------------- */

/* ga_options.exact_alongside: the whole-instance exact solve on its own
 * thread. Its solver child (isolate.c) runs on another core while the
 * generations go on; the thread's stop flag (stop_thread_flag) cancels it
 * when the GA ends first, and it then answers with what it has. */
struct exact_job {
	pthread_t tid;
	const struct instance *in;
	const struct ga_options *o;
	double seconds;
	int seed;                   /* its index among the seeds */
	struct schedule *schedule;  /* the solve's, until absorbed */
	int64_t bound;
	char note[160];
	enum status st;
	atomic_bool done, cancel;
	bool running;               /* started, not yet joined */
};

static void *exact_job_main(void *arg)
{
	struct exact_job *j = arg;
	stop_thread_flag(&j->cancel);
	j->st = j->o->exact_solve(j->o->exact_ctx, j->in, j->seconds, &j->schedule, &j->bound,
				  j->note, sizeof j->note);
	atomic_store(&j->done, true);
	return NULL;
}

/* ---- the search state ------------------------------------------------------------ */

struct search {
	const struct instance *in;
	const struct ga_options *o;
	struct layout lay;
	struct pool pool;
	struct rng rng;
	int P, E;
	struct individual *pop, *next;   /* [P] each */
	gene_t *genes;                   /* backing store: 2 P genomes */
	int *scratch;                    /* [nslots] for crossover */
	int *order;                      /* [P] indices sorted by fitness */
	struct individual best;          /* own genome */
	struct individual *seeds;        /* [nplaced] decoded seeds, best first */
	gene_t *seed_genes;
	int nseeds, nplaced;
	long since_restart;              /* generations since the last improvement or restart */
	double t0, t_best, mu;
	double last_generation;      /* seconds the last generation took */
	double decode_seconds;       /* one decode, as measured on the seeds */
	long stall;
	int64_t bound;
	struct ga_seed *seed_list;       /* [nseeds] as collected */
	struct exact_job job;
	int64_t polished;                /* the last best objective that is a
	                                    local optimum of the local search */
	int64_t polish_cut;              /* the objective of the best a run cut
	                                    by the clock left, or -1 */
	double polish_cut_seconds;       /* that run's time */
	bool best_polished;              /* the best came from the local search */
};

/* qsort's comparison context. Thread-local: a GA's ranking runs on the
 * thread that runs it, but several GAs may run at once (a sweep's
 * workers, solve's GA start beside a search), and a shared pointer made
 * one sort read another's population (ASan, test_sweep_cli). */
static _Thread_local const struct individual *sort_pop;

static int cmp_order(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	if (fitness_better(sort_pop[i].fit, sort_pop[j].fit))
		return -1;
	if (fitness_better(sort_pop[j].fit, sort_pop[i].fit))
		return 1;
	return (i > j) - (i < j);
}

/* Indices of pop by fitness, best first (ties by index: deterministic). */
static void rank(struct search *s)
{
	for (int i = 0; i < s->P; i++)
		s->order[i] = i;
	sort_pop = s->pop;
	qsort(s->order, s->P, sizeof *s->order, cmp_order);
}

static void copy_individual(const struct search *s, struct individual *to,
			    const struct individual *from)
{
	memcpy(to->g, from->g, s->lay.n * sizeof *to->g);
	to->fit = from->fit;
	to->origin = from->origin;
}

/* Keep the best so far; true if x improves on it. */
static bool note_best(struct search *s, const struct individual *x)
{
	if (!fitness_better(x->fit, s->best.fit))
		return false;
	copy_individual(s, &s->best, x);
	s->t_best = clock_seconds() - s->t0;
	s->best_polished = false;
	return true;
}

static int tournament(struct search *s)
{
	int w = rng_below(&s->rng, s->P);
	for (int i = 1; i < TOURNAMENT; i++) {
		int c = rng_below(&s->rng, s->P);
		if (fitness_better(s->pop[c].fit, s->pop[w].fit))
			w = c;
	}
	return w;
}

/* k mutations, k >= 1 geometric with mean mu; each of an applicable kind,
 * half of them near the critical device. */
static void mutate(struct search *s, gene_t *g, int focus, double mu)
{
	int k = 1;
	while (k < 64 && rng_unit(&s->rng) < 1.0 - 1.0 / mu)
		k++;
	for (int i = 0, tries = 0; i < k && tries < 4 * k; tries++)
		if (ga_mutate(&s->lay, g, (enum mutation)rng_below(&s->rng, MUT_COUNT), focus,
			      &s->rng))
			i++;
}

static void breed(struct search *s, struct individual *child)
{
	const struct individual *a = &s->pop[tournament(s)];
	if (rng_unit(&s->rng) < CROSSOVER_RATE) {
		const struct individual *b = &s->pop[tournament(s)];
		ga_crossover(&s->lay, a->g, b->g, child->g, &s->rng, s->scratch);
	} else {
		memcpy(child->g, a->g, s->lay.n * sizeof *child->g);
	}
	child->origin = a->origin;
	mutate(s, child->g, a->fit.critical, s->mu);
}

/* One generation; true if it improved the best. */
static bool generation(struct search *s)
{
	rank(s);
	for (int i = 0; i < s->E; i++)
		copy_individual(s, &s->next[i], &s->pop[s->order[i]]);
	for (int i = s->E; i < s->P; i++)
		breed(s, &s->next[i]);
	pool_decode(&s->pool, s->next + s->E, s->P - s->E);
	struct individual *t = s->pop;
	s->pop = s->next;
	s->next = t;
	bool improved = false;
	for (int i = s->E; i < s->P; i++)
		improved |= note_best(s, &s->pop[i]);
	return improved;
}

/* sched/verdict.h's gap; INT64_MAX (nothing valid yet) is no objective */
static double gap_of(int64_t obj, int64_t bound)
{
	return verdict_gap(obj == INT64_MAX ? INFINITY : (double)obj, (double)bound);
}

/* Why to stop now, or NULL. */
static const char *stop_reason(const struct search *s, const struct ga_result *r, long gen,
			       double now)
{
	const struct ga_options *o = s->o;
	int64_t b = s->best.fit.objective;
	if (o->target > 0 && b <= o->target)
		return "target";
	if (b <= s->bound || gap_of(b, s->bound) <= o->gap || r->best_seed <= s->bound)
		return "gap";   /* (finish returns a seed as given when it is the best) */
	if (stop_requested())
		return "interrupt";
	/* a generation starts only if, as long as the last one, it ends in time */
	if (o->time_limit > 0 && now + s->last_generation >= o->time_limit)
		return "time_limit";
	if (o->generations > 0 && gen >= o->generations)
		return "generations";
	if (o->stall > 0 && s->stall >= o->stall)
		return "stall";
	return NULL;
}

/* ---- seeding ----------------------------------------------------------------------- */

/* Simulate seed i as given into its report; the best so far into r. */
static void simulate_seed(struct sim *sim, const struct ga_seed *seed,
			  struct ga_seed_report *rep, struct ga_result *r)
{
	struct sim_result sr;
	struct error why;
	snprintf(rep->name, sizeof rep->name, "%s", seed->name);
	snprintf(rep->note, sizeof rep->note, "%s", seed->note);
	rep->objective = rep->decoded = INT64_MAX;
	if (!seed->schedule)
		return;
	if (sim && sim_run(sim, seed->schedule, &sr, &why) == STATUS_OK) {
		rep->objective = sr.objective;
		if (sr.objective < r->best_seed) {
			r->best_seed = sr.objective;
			snprintf(r->best_seed_name, sizeof r->best_seed_name, "%s", rep->name);
		}
	} else if (!rep->note[0]) {
		snprintf(rep->note, sizeof rep->note, "not valid as given: %s",
			 sim ? why.msg : "out of memory");
	}
}

/*
 * Simulate every seed (the report), decode it, and place the best decoded
 * ones in the population's first places, best first: at most P, and only
 * those within SEED_KEEP_FACTOR of the best (children of far worse seeds
 * only cost repairs). Returns how many were placed (0: none feasible).
 */
static int place_seeds(struct search *s, struct ga_seed *seeds, int n,
		       struct ga_result *r)
{
	struct sim *sim = sim_new(s->in);
	struct individual *dec = calloc(n, sizeof *dec);
	gene_t *genes = malloc((size_t)n * s->lay.n * sizeof *genes);
	int ok = 0, placed = 0;
	double t0 = clock_seconds();
	r->best_seed = INT64_MAX;
	for (int i = 0; i < n; i++) {
		simulate_seed(sim, &seeds[i], &r->seeds[i], r);
		if (!dec || !genes || !seeds[i].schedule)
			continue;
		struct individual *x = &dec[ok];
		x->g = genes + (size_t)ok * s->lay.n;
		if (genome_from_schedule(&s->lay, seeds[i].schedule, x->g, NULL))
			continue;
		x->fit = decoder_run(s->pool.dec[0], x->g, &s->pool.stats[0]);
		x->origin = i;
		r->seeds[i].decoded = x->fit.objective;
		ok += x->fit.objective != INT64_MAX;
	}
	/* a simulation and a decode per seed cost about the same */
	s->decode_seconds = (clock_seconds() - t0) / (2.0 * (n > 0 ? n : 1));
	sort_pop = dec;
	int *order = malloc((ok ? ok : 1) * sizeof *order);
	for (int i = 0; order && i < ok; i++)
		order[i] = i;
	if (order)
		qsort(order, ok, sizeof *order, cmp_order);
	for (int i = 0; order && i < ok && placed < s->P; i++) {
		const struct individual *x = &dec[order[i]];
		if ((double)x->fit.objective > SEED_KEEP_FACTOR * (double)dec[order[0]].fit.objective)
			break;
		copy_individual(s, &s->pop[placed++], x);
	}
	free(order);
	free(genes);
	free(dec);
	sim_free(sim);
	return placed;
}

/* A heavy mutant (1 to 16 mutations) of x into place i. */
static void mutant(struct search *s, int i, const struct individual *x)
{
	copy_individual(s, &s->pop[i], x);
	int strength = 1 + rng_below(&s->rng, 16);
	for (int j = 0; j < strength; j++)
		ga_mutate(&s->lay, s->pop[i].g, (enum mutation)rng_below(&s->rng, MUT_COUNT), -1,
			  &s->rng);
}

/*
 * Fill places from..P-1 afresh: in turn a random walk down the decision
 * tree, a mutant of a seed (best seeds first), a mutant of the best so far
 * (once there is one). Used for the first generation and for restarts.
 * Random walks only while genomes are small: on large ones they are far
 * from anything good and need thousands of repairs each.
 */
static int fresh_places(const struct search *s, int from);

static void renew(struct search *s, int from)
{
	bool walks = s->lay.n <= RANDOM_WALK_MAX_OPS;
	int end = from + fresh_places(s, from);
	for (int i = end; i < s->P; i++)   /* no time to decode more: seeds again */
		copy_individual(s, &s->pop[i], &s->seeds[i % s->nplaced]);
	for (int i = from, t = 0; i < end; i++, t++) {
		int how = walks ? t % 3 : 1 + t % 2;
		if (how == 2 && s->best.fit.objective == INT64_MAX)
			how = 1;
		if (how == 0) {
			ga_random_genome(&s->lay, s->pop[i].g, &s->rng, s->scratch);
			s->pop[i].origin = -1;
		} else if (how == 1) {
			mutant(s, i, &s->seeds[(t / 3) % s->nplaced]);
		} else {
			mutant(s, i, &s->best);
		}
	}
	pool_decode(&s->pool, s->pop + from, end - from);
	for (int i = from; i < end; i++)
		if (s->pop[i].fit.objective == INT64_MAX)   /* infeasible: a seed again */
			copy_individual(s, &s->pop[i], &s->seeds[i % s->nplaced]);
}

/*
 * How many of places from..P-1 renew() fills afresh: all, unless the time
 * limit leaves room for fewer decodes (at decode_seconds each, on every
 * thread); the rest become copies of seeds, which need no decoding. So
 * the first generation on a huge instance fits the limit (the seeding is
 * inside it, common/stop.h).
 */
static int fresh_places(const struct search *s, int from)
{
	int n = s->P - from;
	if (s->o->time_limit <= 0 || s->decode_seconds <= 0)
		return n;
	double left = s->o->time_limit - (clock_seconds() - s->t0);
	double fit = left > 0 ? left * s->o->threads / s->decode_seconds : 0;
	return fit < n ? (int)fit : n;
}

/* Keep the decoded seeds, best first, for renew(). */
static enum status keep_seeds(struct search *s, int placed, struct error *err)
{
	rank(s);
	s->nplaced = placed;
	s->seeds = calloc(placed, sizeof *s->seeds);
	s->seed_genes = malloc((size_t)placed * s->lay.n * sizeof *s->seed_genes);
	if (!s->seeds || !s->seed_genes)
		return err_set(err, "ga: out of memory");
	for (int i = 0, k = 0; i < s->P; i++)
		if (s->order[i] < placed) {
			s->seeds[k].g = s->seed_genes + (size_t)k * s->lay.n;
			copy_individual(s, &s->seeds[k++], &s->pop[s->order[i]]);
		}
	return STATUS_OK;
}

/* ---- the run ---------------------------------------------------------------------- */

void ga_options_init(struct ga_options *o)
{
	*o = (struct ga_options){.seed = 1, .threads = 1, .population = 64,
				 .time_limit = 20, .family_seeds = true, .exact_seed = true};
}

static enum status check_options(const struct ga_options *o, struct error *err)
{
	if (o->threads < 1 || o->threads > 256)
		return err_set(err, "ga: threads must be 1 to 256, not %d", o->threads);
	if (o->population < 4 || o->population > 100000)
		return err_set(err, "ga: population must be 4 to 100000, not %d", o->population);
	if (o->generations < 0 || o->stall < 0 || !(o->gap >= 0))
		return err_set(err, "ga: generations, stall and gap must not be negative");
	if (o->time_limit <= 0 && o->generations == 0 && o->stall == 0 && o->target <= 0)
		return err_set(err, "ga: no stopping rule (give a time limit, generations, stall or target)");
	return STATUS_OK;
}

/*
 * Memory the search needs, in bytes: 2 P + 1 genomes and up to ~48 seed
 * genomes of 2 bytes per op, and per thread a decoder of ~16 bytes per op.
 * Refused above GA_MAX_BYTES with the numbers, rather than failing an
 * allocation half way.
 */
static enum status check_memory(const struct instance *in, const struct ga_options *o,
				struct error *err)
{
	double n = inst_nops(in);
	double bytes = (2.0 * o->population + 1 + 48) * n * sizeof(gene_t) +
		       o->threads * n * 16.0;
	if (bytes > GA_MAX_BYTES)
		return err_set(err, "ga: %.0f ops with population %d on %d threads needs about %.1f GiB, more than the %.0f GiB allowed; use a smaller --population or fewer --threads",
			       n, o->population, o->threads, bytes / (1 << 30),
			       GA_MAX_BYTES / (1 << 30));
	return STATUS_OK;
}

static enum status alloc_search(struct search *s, struct error *err)
{
	size_t n = s->lay.n, P = s->P;
	s->pop = calloc(P, sizeof *s->pop);
	s->next = calloc(P, sizeof *s->next);
	s->genes = malloc((2 * P + 1) * n * sizeof *s->genes);
	s->scratch = calloc(s->lay.nslots, sizeof *s->scratch);
	s->order = malloc(P * sizeof *s->order);
	if (!s->pop || !s->next || !s->genes || !s->scratch || !s->order)
		return err_set(err, "ga: out of memory for %zu genomes of %zu genes", 2 * P, n);
	for (size_t i = 0; i < P; i++) {
		s->pop[i].g = s->genes + i * n;
		s->next[i].g = s->genes + (P + i) * n;
	}
	s->best.g = s->genes + 2 * P * n;
	s->best.fit = FITNESS_INFEASIBLE;
	return STATUS_OK;
}

static void free_search(struct search *s)
{
	free(s->pop);
	free(s->next);
	free(s->genes);
	free(s->scratch);
	free(s->order);
	free(s->seeds);
	free(s->seed_genes);
}

/* F&B overlap: the genome orders ops and has no pairs, so the best
 * schedule gets them from the greedy pass (sched/pairing.h), kept when it
 * is no worse; r->pairs_added counts them. */
static void add_pairs(struct search *s, struct sim *sim, struct schedule **sc,
		      struct sim_result *sr, struct ga_result *r)
{
	struct schedule *p = schedule_copy(*sc);
	struct sim_result pr;
	int k = p ? schedule_pair_greedy(s->in, p, sim, PAIRING_OPS) : -1;
	if (k > 0 && !sim_run(sim, p, &pr, NULL) && pr.objective <= sr->objective) {
		schedule_free(*sc);
		*sc = p;
		*sr = pr;
		r->pairs_added = k;
		size_t n = strlen(r->origin);
		snprintf(r->origin + n, sizeof r->origin - n, ", %d pairs added", k);
		return;
	}
	schedule_free(p);
}

/* The best genome as a schedule, re-simulated: the numbers reported are
 * the simulator's, and it must agree with the decoder. */
static enum status finish(struct search *s, struct ga_seed *seeds, struct ga_result *r,
			  struct error *err)
{
	/* decoded again (a decoded genome decodes to itself) for its pairs */
	gene_t *g = malloc(s->lay.n * sizeof *g);
	struct schedule *sc = NULL;
	if (g) {
		memcpy(g, s->best.g, s->lay.n * sizeof *g);
		decoder_run(s->pool.dec[0], g, NULL);
		sc = decoder_schedule(s->pool.dec[0], g);
		free(g);
	}
	struct sim *sim = sim_new(s->in);
	struct sim_result sr;
	enum status st = STATUS_OK;
	if (!sc || !sim) {
		st = err_set(err, "ga: out of memory");
	} else if (sim_run(sim, sc, &sr, err)) {
		st = err_prefix(err, "ga: internal error: the best genome does not simulate");
	} else if (sr.objective != s->best.fit.objective) {
		st = err_set(err, "ga: internal error: decoder objective %" PRId64 " but simulator %" PRId64,
			     s->best.fit.objective, sr.objective);
	} else if (r->best_seed < sr.objective) {
		/* a seed as given (not FIFO) beat its FIFO decoding and every
		 * child: return that seed */
		for (int i = 0; i < s->nseeds; i++)
			if (r->seeds[i].objective == r->best_seed) {
				schedule_free(sc);
				sc = schedule_copy(seeds[i].schedule);
				snprintf(r->origin, sizeof r->origin, "%s", seeds[i].name);
				break;
			}
		if (!sc || sim_run(sim, sc, &sr, err))
			st = err_set(err, "ga: out of memory");
	}
	if (!st && inst_pairs_gain(s->in))
		add_pairs(s, sim, &sc, &sr, r);
	if (!st) {
		r->schedule = sc;
		sc = NULL;
		r->best = s->best.fit;
		r->best.objective = sr.objective;
		r->makespan = sr.makespan;
		r->span = sr.span;
		r->gap = gap_of(sr.objective, r->lower_bound);
	}
	schedule_free(sc);
	sim_free(sim);
	return st;
}

static void report_progress(const struct search *s, long gen, long evals, double now)
{
	if (!s->o->progress)
		return;
	struct ga_progress p = {gen, s->best.fit.objective, s->bound,
				gap_of(s->best.fit.objective, s->bound), evals, now};
	s->o->progress(s->o->progress_ctx, &p);
}

/* Genome g, decoded to f, descending from seed `origin`, in place of the
 * population's worst individual; true when it becomes the best (the stall
 * counters and the mutation rate then start again). */
static bool take_in(struct search *s, const gene_t *g, struct fitness f, int origin)
{
	int w = 0;
	for (int i = 1; i < s->P; i++)
		if (fitness_better(s->pop[w].fit, s->pop[i].fit))
			w = i;
	memcpy(s->pop[w].g, g, s->lay.n * sizeof *g);
	s->pop[w].fit = f;
	s->pop[w].origin = origin;
	if (!note_best(s, &s->pop[w]))
		return false;
	s->stall = s->since_restart = 0;
	s->mu = 1;
	return true;
}

/* The decoded schedule of genome g (NULL: out of memory). */
static struct schedule *decoded_schedule(struct search *s, const gene_t *g)
{
	gene_t *tmp = s->next[0].g;   /* free between generations */
	memcpy(tmp, g, s->lay.n * sizeof *tmp);
	decoder_run(s->pool.dec[0], tmp, NULL);
	return decoder_schedule(s->pool.dec[0], tmp);
}

/* The starts of the local search into st[] (their seeds' indices into
 * origin[]), best first: the best and, with `seeds`, the next best seeds
 * whose orders differ from those before, POLISH_STARTS in all. Returns
 * how many. */
static int polish_starts(struct search *s, bool seeds, struct schedule **starts, int *origin)
{
	int n = 0;
	if (!(starts[n] = decoded_schedule(s, s->best.g)))
		return 0;
	origin[n++] = s->best.origin;
	for (int i = 0; seeds && i < s->nplaced && n < POLISH_STARTS; i++) {
		struct schedule *c = decoded_schedule(s, s->seeds[i].g);
		if (!c || schedule_orders_among(starts, n, c)) {
			schedule_free(c);
		} else {
			origin[n] = s->seeds[i].origin;
			starts[n++] = c;
		}
	}
	return n;
}

/* The seconds of a polish: POLISH_SHARE of the time left per start, at
 * most POLISH_CAP per start and POLISH_STARTS_SHARE of the time left in
 * all; twice the last run's time when that run, on the same best, was cut
 * by the clock (it starts over from the same schedule, and a run that
 * needs longer would otherwise be cut at the same place at every
 * restart), still within POLISH_STARTS_SHARE of the time left. Measured:
 * p8 m16 split, p memory, comm 2, costs (2, 3, 1), search 10 s: the
 * local search takes backward-first's 183 to the optimum 180 in 0.75 s
 * alone; the first polish, its four starts sharing a core with the exact
 * seed, stopped at 181, which was then never polished again (181 for the
 * whole run). */
static double polish_seconds(const struct search *s, int n)
{
	const struct ga_options *o = s->o;
	double left = o->time_limit > 0 ? o->time_limit - (clock_seconds() - s->t0) : POLISH_CAP;
	double each = POLISH_SHARE * left < POLISH_CAP ? POLISH_SHARE * left : POLISH_CAP;
	double seconds = n * each;
	if (s->polish_cut == s->best.fit.objective && 2 * s->polish_cut_seconds > seconds)
		seconds = 2 * s->polish_cut_seconds;
	return seconds < POLISH_STARTS_SHARE * left ? seconds : POLISH_STARTS_SHARE * left;
}

/* The caller's local search (ga_options.polish) on the best, until the
 * best is a local optimum of it, from the best seeds too (`seeds`, before
 * the generations), for polish_seconds. A better schedule it finds joins
 * the population in place of the worst and becomes the best, with the
 * origin of the start it came from. */
static void polish_best(struct search *s, struct ga_result *r, bool seeds)
{
	const struct ga_options *o = s->o;
	if (!o->polish || o->generations > 0 || o->stall > 0 ||
	    s->best.fit.objective == s->polished || s->best.fit.objective <= s->bound)
		return;
	struct schedule *starts[POLISH_STARTS];
	int origin[POLISH_STARTS], from = -1;
	int n = polish_starts(s, seeds, starts, origin);
	double seconds = polish_seconds(s, n);
	struct schedule *sc = n && seconds >= 0.01 ? schedule_copy(starts[0]) : NULL;
	int64_t obj = s->best.fit.objective;
	double t = clock_seconds();
	bool local_optimum = false;
	enum status st = STATUS_ERROR;
	if (sc) {
		st = o->polish(o->polish_ctx, s->in, seconds, starts, n, &sc, &obj, &from,
			       &local_optimum);
		r->polish_runs++;
		r->polish_seconds += clock_seconds() - t;
	}
	if (!st && !local_optimum) {   /* cut by the clock: taken up again with twice the time */
		s->polish_cut = obj;
		s->polish_cut_seconds = seconds;
	}
	gene_t *tmp = s->next[0].g;   /* free between generations */
	if (!st && obj < s->best.fit.objective && !genome_from_schedule(&s->lay, sc, tmp, NULL)) {
		struct fitness f = decoder_run(s->pool.dec[0], tmp, &s->pool.stats[0]);
		if (take_in(s, tmp, f, from >= 0 && from < n ? origin[from] : s->best.origin)) {
			s->best_polished = true;
			r->polish_improvements++;
		}
	}
	if (!st && local_optimum)
		s->polished = s->best.fit.objective;   /* as decoded, or the best as it was */
	schedule_free(sc);
	for (int i = 0; i < n; i++)
		schedule_free(starts[i]);
}

/* The search is stuck: keep the best, renew everyone else. */
static void restart(struct search *s)
{
	copy_individual(s, &s->pop[0], &s->best);
	renew(s, 1);
	s->since_restart = 0;
	s->mu = 1;
}

/* Start the exact solve of the pending seed on its thread, if any. */
static void exact_job_start(struct search *s, struct ga_seed *seeds, int n)
{
	struct exact_job *j = &s->job;
	const struct ga_options *o = s->o;
	for (int i = 0; i < n; i++)
		if (seeds[i].pending) {
			double left = ALONGSIDE_SHARE * o->time_limit - (clock_seconds() - s->t0);
			j->in = s->in;
			j->o = o;
			j->seed = i;
			j->seconds = o->exact_seed_time > 0 ? o->exact_seed_time : left > 0.05 ? left : 0.05;
			atomic_init(&j->done, false);
			atomic_init(&j->cancel, false);
			j->running = pthread_create(&j->tid, NULL, exact_job_main, j) == 0;
			if (!j->running) {
				seeds[i].pending = false;
				snprintf(seeds[i].note, sizeof seeds[i].note,
					 "not run: no thread for the exact solve");
			}
			return;
		}
}

/* Cancel the exact solve (its thread's stop flag) and wait for it. */
static void exact_job_stop(struct exact_job *j)
{
	atomic_store(&j->cancel, true);
	pthread_join(j->tid, NULL);
	j->running = false;
}

/* Join the exact solve (cancelled first when `cancel`) and put its
 * schedule in the population in place of the worst individual; its bound
 * (a proof on the whole instance) becomes the GA's. */
static void exact_job_absorb(struct search *s, struct ga_result *r, bool cancel)
{
	struct exact_job *j = &s->job;
	if (!j->running)
		return;
	if (cancel)
		exact_job_stop(j);
	else
		pthread_join(j->tid, NULL);
	j->running = false;
	struct ga_seed *seed = &s->seed_list[j->seed];
	seed->pending = false;
	if (j->st) {
		snprintf(seed->note, sizeof seed->note, "exact solve failed: %s", j->note);
		schedule_free(j->schedule);
	} else {
		snprintf(seed->note, sizeof seed->note, "m=%d solved %s; alongside the GA, in at %.1f s%s",
			 s->in->microbatches, j->note, clock_seconds() - s->t0,
			 cancel ? " (cancelled: the GA was done)" : "");
		seed->schedule = j->schedule;
		seed->bound = j->schedule ? j->bound : 0;
	}
	j->schedule = NULL;
	if (seed->bound > s->bound) {
		s->bound = r->lower_bound = seed->bound;
		r->lower_bound_by = "exact seed";
	}
	struct sim *sim = sim_new(s->in);
	simulate_seed(sim, seed, &r->seeds[j->seed], r);
	sim_free(sim);
	gene_t *tmp = s->next[0].g;   /* free between generations */
	if (!seed->schedule || genome_from_schedule(&s->lay, seed->schedule, tmp, NULL))
		return;
	struct fitness f = decoder_run(s->pool.dec[0], tmp, &s->pool.stats[0]);
	r->seeds[j->seed].decoded = f.objective;
	if (f.objective == INT64_MAX)
		return;
	take_in(s, tmp, f, j->seed);
}

static void evolve(struct search *s, struct ga_result *r)
{
	long gen = 0, evals = r->evaluations;
	double start = clock_seconds(), last_report = -1;
	const char *why;
	polish_best(s, r, true);   /* the best seeds first: often families' */
	while (!(why = stop_reason(s, r, gen, clock_seconds() - s->t0))) {
		double g0 = clock_seconds();
		if (s->job.running && atomic_load(&s->job.done))
			exact_job_absorb(s, r, false);
		if (generation(s)) {
			s->stall = s->since_restart = 0;
			s->mu = 1;
		} else if (++s->since_restart >= RESTART_GENERATIONS) {
			polish_best(s, r, false);
			restart(s);
			evals += s->P - 1;
			s->stall++;
		} else if (++s->stall % MU_STEP_GENERATIONS == 0 && s->mu < MU_MAX) {
			s->mu += 1;
		}
		gen++;
		evals += s->P - s->E;
		s->last_generation = clock_seconds() - g0;
		double now = clock_seconds() - s->t0;
		if (now - last_report >= 1.0) {
			report_progress(s, gen, evals, now);
			last_report = now;
		}
	}
	if (s->job.running) {
		/* finished meanwhile, or cancelled: either way its answer counts */
		exact_job_absorb(s, r, !atomic_load(&s->job.done));
	}
	report_progress(s, gen, evals, clock_seconds() - s->t0);
	r->stopped_by = why;
	r->generations = gen;
	r->search_seconds = clock_seconds() - start;
	r->evals_per_second = r->search_seconds > 0 ?
		(double)(evals - r->evaluations) / r->search_seconds : 0;
	r->evaluations = evals;
}

static enum status run_search(struct search *s, struct ga_seed *seeds, int nseeds,
			      struct ga_result *r, struct error *err)
{
	struct worker_arg *args = NULL;
	int started = 0;
	enum status st = pool_init(&s->pool, &s->lay, s->o->threads, &args, &started, err);
	if (!st)
		st = alloc_search(s, err);
	int placed = st ? 0 : place_seeds(s, seeds, nseeds, r);
	if (!st && placed == 0)
		st = err_set(err, "ga: no seed gives a valid schedule for instance '%s' (memory too tight for every family and the serial order?)",
			     s->in->name);
	if (!st)
		st = keep_seeds(s, placed, err);
	if (!st) {
		renew(s, placed < s->P ? placed : s->P);
		r->evaluations = s->P;
		for (int i = 0; i < s->P; i++)
			note_best(s, &s->pop[i]);
		evolve(s, r);
		snprintf(r->origin, sizeof r->origin, "%s%s",
			 s->best.origin < 0 ? "random walk" : seeds[s->best.origin].name,
			 s->best_polished ? ", then the local search" : "");
		for (int i = 0; i < s->o->threads; i++) {
			r->repairs.memory_repairs += s->pool.stats[i].memory_repairs;
			r->repairs.deadlock_repairs += s->pool.stats[i].deadlock_repairs;
			r->repairs.w_fills += s->pool.stats[i].w_fills;
		}
		st = finish(s, seeds, r, err);
	}
	pool_stop(&s->pool, args, started);
	pool_release(&s->pool);
	free_search(s);
	return st;
}

static enum status ga_run_one(const struct instance *in, const struct ga_options *o,
			     struct ga_result *r, struct error *err)
{
	struct search s = {.in = in, .o = o, .mu = 1, .polished = -1, .polish_cut = -1};
	struct bounds b;
	struct ga_seed *seeds = NULL;
	int nseeds = 0;
	memset(r, 0, sizeof *r);
	s.t0 = clock_seconds();
	if (check_options(o, err) || check_memory(in, o, err) || bound_compute(in, &b, err) ||
	    layout_init(&s.lay, in, err))
		return STATUS_ERROR;
	s.bound = r->lower_bound = b.best;
	r->lower_bound_by = b.by;
	s.P = o->population;
	s.E = s.P / 8 > 1 ? s.P / 8 : 1;
	rng_seed(&s.rng, o->seed);
	enum status st = ga_seeds_collect(in, o, &seeds, &nseeds, err);
	for (int i = 0; !st && i < nseeds; i++)
		if (seeds[i].bound > s.bound) {   /* the whole instance solved exactly */
			s.bound = r->lower_bound = seeds[i].bound;
			r->lower_bound_by = "exact seed";
		}
	if (!st) {
		s.nseeds = r->nseeds = nseeds;
		s.seed_list = seeds;
		r->seeds = calloc(nseeds > 0 ? (size_t)nseeds : 1, sizeof *r->seeds);
		if (r->seeds)
			exact_job_start(&s, seeds, nseeds);
		st = r->seeds ? run_search(&s, seeds, nseeds, r, err)
			      : err_set(err, "ga: out of memory");
	}
	if (s.job.running) {   /* an error before the generations ended */
		exact_job_stop(&s.job);
		schedule_free(s.job.schedule);
	}
	r->time_to_best = s.t_best;
	r->seconds = clock_seconds() - s.t0;
	ga_seeds_free(seeds, nseeds);
	layout_release(&s.lay);
	if (st)
		ga_result_release(r);
	return st;
}

/*
 * On an instance with recompute, offload or F&B overlap every schedule
 * without copies, recompute marks or pairs stays valid, with the same
 * times, but the decoder, which recomputes or offloads when memory is
 * short instead of waiting and pairs ready neighbours, can end worse than
 * the same search without the keys (bench/results/deepseek.md, 8 devices
 * at v-half memory: 7438 with recompute or offload, 7410 with overlap,
 * 7302 without). So PLAIN_SHARE of the time first searches the instance
 * without them, and its best joins the seeds as given: the result is
 * never worse than that search's.
 */
#define PLAIN_SHARE (1.0 / 3)
#define PLAIN_SEED_NAME "search without recompute, offload and overlap"

/* The best schedule of the search of `in` without its decisions, or NULL. */
static struct schedule *plain_best(const struct instance *in, const struct ga_options *o)
{
	struct instance plain = *in;   /* shares the arrays, read only */
	plain.has_recompute = plain.has_offload = plain.has_overlap = false;
	struct ga_options po = *o;
	po.time_limit = o->time_limit > 0 ? PLAIN_SHARE * o->time_limit : 0;
	po.progress = NULL;
	struct ga_result pr;
	struct error ignored;
	if (ga_run_one(&plain, &po, &pr, &ignored))
		return NULL;   /* e.g. no valid schedule without the decisions */
	struct schedule *sc = pr.schedule;
	pr.schedule = NULL;
	ga_result_release(&pr);
	return sc;
}

enum status ga_run(const struct instance *in, const struct ga_options *o,
		   struct ga_result *r, struct error *err)
{
	if (!inst_has_decisions(in))
		return ga_run_one(in, o, r, err);
	double t0 = clock_seconds();
	struct schedule *plain = plain_best(in, o);
	if (!plain)
		return ga_run_one(in, o, r, err);
	int n = o->nextra + 1;
	const struct schedule **extra = malloc(n * sizeof *extra);
	const char **names = malloc(n * sizeof *names);
	enum status st;
	if (!extra || !names) {
		st = err_set(err, "ga: out of memory");
	} else {
		for (int i = 0; i < o->nextra; i++) {
			extra[i] = o->extra[i];
			names[i] = o->extra_names ? o->extra_names[i] : "given";
		}
		extra[n - 1] = plain;
		names[n - 1] = PLAIN_SEED_NAME;
		struct ga_options mo = *o;
		mo.nextra = n;
		mo.extra = extra;
		mo.extra_names = names;
		double before = clock_seconds() - t0;
		if (o->time_limit > 0)
			mo.time_limit = o->time_limit - before > 0.01 ? o->time_limit - before : 0.01;
		st = ga_run_one(in, &mo, r, err);
		if (!st) {   /* both searches' time */
			r->seconds = clock_seconds() - t0;
			r->time_to_best += before;
		}
	}
	free(extra);
	free(names);
	schedule_free(plain);
	return st;
}

void ga_result_release(struct ga_result *r)
{
	schedule_free(r->schedule);
	free(r->seeds);
	r->schedule = NULL;
	r->seeds = NULL;
}
