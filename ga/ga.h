/*
 * The genetic algorithm for instances beyond the exact solver, after
 * Koala's dynamic try-test GA: genomes are per-device decision paths
 * (genome.h), decoded by event simulation with repairs; per-device
 * crossover and four mutations (operators.h); tournament selection,
 * elitism and a mutation rate that rises while the search stalls.
 *
 * Seeds (seed.c): every family that supports the instance, zb-auto among
 * them, the caller's schedules, the serial order, and an exact solve: of
 * the instance itself when it has at most 600 ops (its proven bound then
 * joins the stopping rule), else of a reduced instance (same devices, fewer
 * micro-batches) stretched to the full micro-batch count. The result is
 * never worse than the best seed.
 *
 * Determinism: everything random is drawn on the calling thread from one
 * generator seeded by `seed`; the threads only decode, each genome on its
 * own. So a run stopped by generations, stall, gap or target is the same
 * for the same seed whatever the thread count; a time limit stops it after
 * however many generations fit.
 */
#ifndef PIPEOPT_GA_H
#define PIPEOPT_GA_H

#include <stdbool.h>
#include <stdint.h>

#include "ga/genome.h"
#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

struct ga_progress {
	long generation;
	int64_t best;          /* time units: objective of the best so far */
	int64_t bound;         /* time units: lower bound */
	double gap;            /* (best - bound) / best */
	long evaluations;
	double seconds;
};

struct ga_options {
	uint64_t seed;              /* random seed (default 1) */
	int threads;                /* decoding threads (>= 1) */
	int population;             /* individuals per generation (>= 4) */
	long generations;           /* stop after this many; 0: no limit */
	long stall;                 /* stop after this many without improvement; 0: none */
	double time_limit;          /* seconds for the whole run; <= 0: none */
	double gap;                 /* stop when (best - bound) / best <= gap */
	int64_t target;             /* stop when best <= target; <= 0: none */
	bool family_seeds;          /* seed with every supporting family */
	bool exact_seed;            /* seed with an exact solve (whole or reduced) */
	/* The exact solver for that seed, given by the caller (ga/ links no
	 * MILP solver; methods/search.c passes solvers/exact.c's): solve
	 * `small` within `seconds` into *out (the caller of solve frees it),
	 * *bound the lower bound it proved on `small` (0: none), a one-line
	 * note on what it proved; STATUS_ERROR with the note on failure.
	 * NULL: no exact seed (noted). */
	enum status (*exact_solve)(void *ctx, const struct instance *small, double seconds,
				   struct schedule **out, int64_t *bound, char *note, int note_len);
	void *exact_ctx;
	double exact_seed_time;     /* seconds for that solve; <= 0: automatic */
	/* The periodic seed, given by the caller (methods/search.c passes
	 * solvers/periodic.c's): the shortest 1-periodic schedule found within
	 * `seconds` (starting from period `hint`, the best seed's steady
	 * state, 0: none), unrolled to in's micro-batches, into *out (NULL: none), a
	 * one-line note. Asked with the exact seed on instances beyond the
	 * whole-instance solve (ga/seed.c), where the families' steady state
	 * is what the GA starts from. NULL: none. */
	enum status (*periodic)(void *ctx, const struct instance *in, double seconds,
				int64_t hint, struct schedule **out, char *note, int note_len);
	/* The cyclic seed, given by the caller (methods/search.c passes
	 * solvers/cyclic.c's): a search over K-periodic orders from `start`
	 * (the best seed after the periodic one, of steady state `hint`),
	 * its random moves from `seed` (the GA's)
	 * within `seconds`, into *out when it finds a better schedule (NULL:
	 * none), a one-line note. Asked right after the periodic seed, with
	 * the same time and what the periodic seed left of its own. NULL:
	 * none. */
	enum status (*cyclic)(void *ctx, const struct instance *in, double seconds,
			      int64_t hint, uint64_t seed, const struct schedule *start,
			      struct schedule **out, char *note, int note_len);
	/* The whole-instance exact solve runs in a thread alongside the
	 * generations instead of before them (with a time limit only): the
	 * GA keeps its whole time, the solve gets ALONGSIDE_SHARE of it
	 * (or exact_seed_time), and its schedule joins the population when it
	 * arrives. Cancelled when the GA stops first. */
	bool exact_alongside;
	/* A local search for the best schedule, given by the caller (ga/
	 * links no exact search; methods/search.c passes solvers/lns.c's):
	 * improve *sc, of objective *obj, in place within `seconds`, by a
	 * local search from each of starts[0..n) (valid schedules, best
	 * first, starts[0] with *sc's orders); *from: the start that gave a
	 * better *sc; *local_optimum: the *sc returned is a local optimum of
	 * the search (its run ended without improvement, not on the clock).
	 * Run on the best seeds (up to POLISH_STARTS distinct ones) before
	 * the generations and on the best when the GA restarts (it stalled),
	 * until the best is a local optimum (a run cut by the clock is taken
	 * up again at the next restart, with twice its time), in runs bounded
	 * by time alone: the local search stops by the clock, and a run
	 * bounded by generations or stall stays reproducible. NULL: none. */
	enum status (*polish)(void *ctx, const struct instance *in, double seconds,
			      struct schedule *const *starts, int n, struct schedule **sc,
			      int64_t *obj, int *from, bool *local_optimum);
	void *polish_ctx;
	int nextra;                 /* the caller's seed schedules */
	const struct schedule *const *extra;
	const char *const *extra_names;
	void (*progress)(void *ctx, const struct ga_progress *p);  /* ~1 per second */
	void *progress_ctx;
};

/* Defaults: seed 1, one thread, population 64, 20 s, gap 0, all seeds. */
void ga_options_init(struct ga_options *o);

struct ga_seed_report {
	char name[64];              /* "zb-auto", "file x.json", "exact m=8, stretched" */
	int64_t objective;          /* simulated as given; INT64_MAX if not valid */
	int64_t decoded;            /* after decoding (FIFO, repairs, W fills) */
	char note[200];             /* why it is missing or invalid, or detail */
};

struct ga_result {
	struct schedule *schedule;  /* the best schedule (owned) */
	struct fitness best;        /* its objective and tie measure, simulated */
	int64_t makespan, span;     /* time units, simulated */
	int64_t lower_bound;        /* time units, sched/bound.c */
	const char *lower_bound_by; /* which of its arguments gave it (bound.h), or
	                               "exact seed": the whole instance's exact solve */
	double gap;                 /* (objective - lower_bound) / objective */
	char origin[64];            /* the seed it descends from */
	int pairs_added;            /* F&B overlap: pairs the final greedy pass
	                               formed (sched/pairing.h) */
	int64_t best_seed;          /* best seed objective as given (INT64_MAX: none) */
	char best_seed_name[64];
	long generations, evaluations;
	double seconds;             /* whole run, seeding included */
	double search_seconds;      /* the generations alone */
	double time_to_best;        /* seconds from the start to the best */
	double evals_per_second;    /* decodes per second during the generations */
	const char *stopped_by;     /* "time_limit", "generations", "stall", "gap", "target",
	                               "interrupt" (common/stop.h) */
	struct decode_stats repairs;
	int polish_runs, polish_improvements;   /* the local search (polish) */
	double polish_seconds;
	int nseeds;
	struct ga_seed_report *seeds;   /* [nseeds] (owned) */
};

/* Run the GA. Fails only on bad options, out of memory, or when no seed
 * gives a valid schedule (with the reasons). */
enum status ga_run(const struct instance *in, const struct ga_options *o,
		   struct ga_result *r, struct error *err);

void ga_result_release(struct ga_result *r);

/* Seeds (seed.c): schedules with names, before decoding. */
struct ga_seed {
	char name[64];
	struct schedule *schedule;  /* NULL when none (see note) */
	char note[200];
	int64_t bound;              /* a lower bound on the instance it proved
	                               (the exact seed of the whole instance),
	                               0 if none */
	bool pending;               /* the exact solve, to run alongside the GA
	                               (ga_options.exact_alongside): no schedule
	                               yet */
};

/* Collect the seeds the options ask for (families, the caller's, serial,
 * the exact solve, whole or reduced); *out is an array the caller releases with
 * ga_seeds_free. Seeds that fail are listed with a note. */
enum status ga_seeds_collect(const struct instance *in, const struct ga_options *o,
			     struct ga_seed **out, int *n, struct error *err);
void ga_seeds_free(struct ga_seed *v, int n);

/*
 * The reduced exact seed (instances over 600 ops): solve the instance with m' < M micro-batches (the largest
 * m' <= min(M - 1, 2 D) whose MILP stays small), then stretch its schedule
 * to M by repeating the steady state (seed.c). NULL with a note when the
 * reduced instance is too large or nothing valid came out.
 */
struct schedule *ga_exact_seed(const struct instance *in, const struct ga_options *o,
			       double seconds, char *note, int note_len, int *reduced_m);

/* Stretch schedule s of `small` (same instance, fewer micro-batches) to
 * `in`'s micro-batch count by repeating its steady state; NULL if s is not
 * valid on small or memory runs out. */
struct schedule *ga_stretch(const struct instance *small, const struct schedule *s,
			    const struct instance *in);

#endif
