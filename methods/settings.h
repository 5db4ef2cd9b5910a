/*
 * The settings of each method (method.h), declared once in the method's
 * option table (methods/NAME.c). The commands embed these structs and
 * parse them with the same tables; the sweep reads them from a spec.
 */
#ifndef PIPEOPT_SETTINGS_H
#define PIPEOPT_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/options.h"
#include "ga/ga.h"
#include "partition/partition.h"
#include "sched/verdict.h"
#include "solvers/exact.h"

struct family_settings {
	const char *family;          /* a family's name */
};

struct solve_settings {
	const char *solver;          /* a backend's name (solvers/solver.h) */
	const char *formulation;     /* "auto" or a formulation's name */
	bool cross_check, always_milp;
	int ga_start;                /* boolean (options.h): a short GA run first,
	                                and past 512 ops search's GA (solve_search) */
};

struct search_settings {
	uint64_t seed;
	long population, generations, stall;   /* generations, stall: 0 = none */
	double gap;                  /* stop at (best - bound) / best <= gap */
	long target;                 /* stop at objective <= target; 0: none */
	int family_seeds, exact_seed, local_search;   /* booleans (options.h) */
	double exact_seed_time;      /* seconds; 0: a quarter of the limit, <= 10 */
};

struct partition_settings {
	const char *method;          /* "dp" or "ilp" */
	bool sequential;
	const char *solver;          /* ilp */
	long devices;                /* the command line's; a sweep point's in sweeps */
	const char *sizes;           /* "1,2,4": micro-batch sizes, or NULL: the graph's */
	const char *costs;           /* a cost table file, or NULL */
};

struct plan_settings {
	long devices;
	bool sequential;
	uint64_t seed;
	const char *costs;           /* a cost table file, or NULL */
	long partitions;             /* the search's best partitions scheduled */
};

struct profile_settings {
	const char *device;          /* a cost source: NAME, or NAME:DEVICE (profile/profile.h) */
	const char *sizes;           /* "1,2,4": micro-batch sizes, or NULL: the graph's */
	long warmup, repeats;        /* timed sources: runs before measuring; runs measured */
	double max_seconds;          /* timed sources: seconds of one run that stop larger sizes */
};

struct exec_settings {
	long hidden;                 /* H: layer width */
	long rows;                   /* samples per micro-batch */
	double watchdog;             /* seconds a worker may wait */
	const char *workers;         /* "threads" or "mpi" */
	const char *device;          /* "cpu" or "cuda" */
};

/* The tables (also for the commands that add their own options). */
extern const struct opt family_opts[], solve_opts[], search_opts[], partition_opts[],
	plan_opts[];
extern const struct opt profile_opts[], exec_opts[];

/* Choice enumerators: "auto" and the formulations; the solvers; families. */
const char *solve_formulation_at(int i);
const char *solve_solver_at(int i);
const char *family_name_at(int i);

/* The procedures' options from the settings and the shared options. */
void solve_exact_options(const struct solve_settings *s, const struct run_opts *run,
			 struct exact_options *o);

/* exact_options.improve of `solve` (with s->ga_start): `search`'s GA with
 * its seeds for `seconds` on `threads`, from `start`, stopping at
 * `bound`; ctx unused. */
enum status solve_search(void *ctx, const struct instance *in, double seconds, int threads,
			 const struct schedule *start, int64_t bound, struct schedule **out,
			 struct error *err);

/* The exact solve of `solve`: with s->ga_start, a short GA run first (at
 * most 1000 generations, 10 % of the time limit, 2 s), seeded with
 * o->start too, whose schedule (no worse than o->start) is the solve's
 * extra candidate, named "ga"; the GA's time comes off the limit. The proof is still the bound's, the search's
 * or the MILP's; the GA only supplies a schedule. */
enum status solve_with_ga_start(const struct instance *in, const struct solve_settings *s,
				const struct exact_options *o, struct exact_result *r,
				struct error *err);
void search_ga_options(const struct search_settings *s, const struct run_opts *run,
		       struct ga_options *o);

/* The verdict of an exact solve whose schedule re-simulated to
 * `simulated`: certified only when exact.c proved it and the objectives
 * agree. */
struct verdict solve_verdict(const struct exact_result *x, int64_t simulated);

/* The GA's exact seed through solvers/exact.c (ga_options.exact_solve). */
enum status search_exact_seed(void *ctx, const struct instance *small, double seconds,
			      struct schedule **out, int64_t *bound, char *note, int note_len);

/* The GA's periodic seed through solvers/periodic.c (ga_options.periodic). */
enum status search_periodic_seed(void *ctx, const struct instance *in, double seconds,
				 int64_t hint, struct schedule **out, char *note, int note_len);

/* The GA's cyclic seed through solvers/cyclic.c (ga_options.cyclic). */
enum status search_cyclic_seed(void *ctx, const struct instance *in, double seconds,
			       int64_t hint, uint64_t seed, const struct schedule *start,
			       struct schedule **out, char *note, int note_len);

/* The GA's local search of its best through solvers/lns.c
 * (ga_options.polish). */
enum status search_polish(void *ctx, const struct instance *in, double seconds,
			  struct schedule *const *starts, int n, struct schedule **sc,
			  int64_t *obj, int *from, bool *local_optimum);

#endif
