/*
 * The pipeopt command line: one file per subcommand (cmd_*.c), shared
 * helpers in common.c. Exit status: 0 done, 1 failed (bad input, invalid
 * schedule, I/O), 2 usage error.
 */
#ifndef PIPEOPT_CLI_H
#define PIPEOPT_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "common/options.h"
#include "methods/method.h"
#include "sched/instance.h"
#include "sched/schedule.h"
#include "sched/sim.h"
#include "sched/verdict.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2

int cmd_simulate(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_bound(int argc, char **argv);
int cmd_families(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_search_validate(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_partition(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/* Report a failure: "error: MSG" on stderr and, with json, the object
 * {"status": "error", "error": MSG} on stdout. Returns EXIT_FAILED. */
int cli_fail(bool json, const struct error *err);

/* A usage error for `cmd`: one line on stderr; returns EXIT_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse argv with the option set s (common/options.h): the positionals
 * into pos, which must number from lo to hi (else a usage error saying
 * `expected`). Returns 0 to go on, -1 after printing the help, or
 * EXIT_USAGE. */
int cli_parse(const struct opt_set *s, const char *usage, int argc, char **argv,
	      char **pos, int lo, int hi, int *npos, const char *expected);

/* Which shared options (common/options.h) a command takes, for cli_shared. */
enum {
	CLI_JSON = 1, CLI_OUTPUT = 2, CLI_PROGRESS = 4, CLI_TIMELINE = 8,
	CLI_THREADS = 16, CLI_TIME_LIMIT = 32,
};

/* Add the shared options in `which` (CLI_* bits) over run to set, in one
 * order for every command: --json, -o, --progress, --timeline/--width,
 * --threads, --time-limit. */
void cli_shared(struct opt_set *set, struct run_opts *run, unsigned which);

/* Parse a command that runs method m on one GRAPH with --devices D
 * (required; *devices is the settings' field): the method's table, its
 * shared defaults, and the shared options in `which`. */
int cli_parse_graph_command(const struct method *m, void *settings, const long *devices,
			    struct run_opts *run, unsigned which, const char *usage, int argc,
			    char **argv, char **path);

/* The schedule formats by index, NULL past the end (an OPT_CHOICE). */
const char *cli_format_at(int i);

/* Print obj (consumed) as indented JSON on stdout. */
void cli_print_json(json_t *obj);

/* Parse s as a number in [lo, hi] (a whole number if `whole`) into *v;
 * false if it is not one. */
bool cli_number(const char *s, double lo, double hi, bool whole, double *v);

/* Parse a comma-separated list of at most max ascending whole numbers in
 * [1, hi] (micro-batch sizes) into out; *n gets the count. */
bool cli_sizes(const char *s, int max, int hi, int *out, int *n);

/* Parse s as a whole number from 0 to 2^63 - 1 (a random seed; JSON
 * integers are signed 64-bit). */
bool cli_seed(const char *s, uint64_t *v);

/* Wall-clock seconds since an arbitrary origin. */
double cli_now(void);

/* Schedule file formats. */
enum sched_format {
	FMT_NONE, FMT_JSON, FMT_TORCH_CSV, FMT_TRACE, FMT_SVG, FMT_ASCII
};

/* Parse a --format/--from/--to value; FMT_NONE if unknown. */
enum sched_format cli_format_parse(const char *s);
/* Guess from a file name's extension (.csv, .svg, .txt, else json). */
enum sched_format cli_format_guess(const char *path);
const char *cli_format_name(enum sched_format f);

/* The schedule of a family given by name, or of a schedule-language program
 * given by file (a path with '/' or ending in .sched, or any existing file
 * whose name is not a family's). */
enum status cli_family_schedule(const char *name_or_file,
				const struct instance *in,
				struct schedule **out, struct error *err);

/* Read a schedule in JSON or torch CSV (fmt FMT_NONE: by extension). Given
 * for an instance (in not NULL), one shaped for another instance is an
 * error naming the mismatch (schedule_check_shape), and none is returned. */
enum status cli_read_schedule(const char *path, enum sched_format fmt,
			      const struct instance *in, struct schedule **out,
			      struct error *err);

/* Render a schedule (simulated as r, when the format needs times) in fmt:
 * a new string the caller frees. */
char *cli_render(enum sched_format fmt, const struct instance *in,
		 const struct schedule *s, const struct sim_result *r,
		 bool split);

/* Write text to path ("-" = stdout) atomically; names path in errors. */
enum status cli_write(const char *path, const char *text, struct error *err);

/* Render (cli_render) and write (cli_write) in one step. */
enum status cli_write_schedule(const char *path, enum sched_format fmt,
			       const struct instance *in,
			       const struct schedule *s,
			       const struct sim_result *r, bool split,
			       struct error *err);

/* Options of a command whose only option is --json (and --help): the
 * positionals as in cli_parse. Returns 0 to go on, -1 after printing the
 * help, or EXIT_USAGE. */
int cli_json_flag(const char *cmd, const char *usage_text, int argc, char **argv,
		  char **pos, int lo, int hi, int *npos, const char *expected, bool *json);

/* Simulate s on in; on failure prefix the message with `what`. The sim is
 * returned for the result's arrays (caller frees). */
enum status cli_simulate(const struct instance *in, const struct schedule *s,
			 const char *what, struct sim **sim,
			 struct sim_result *r, struct error *err);

/* The result keys of docs/formats.md for a simulated schedule: makespan, span,
 * objective, peak_memory, bubble_ratio, lower_bound, gap, status, certified. */
json_t *cli_result_json(const struct instance *in, const struct sim_result *r,
			int64_t lower_bound);

/* Human-readable summary lines for a simulated schedule. */
void cli_print_result(const struct instance *in, const struct sim_result *r,
		      int64_t lower_bound);

/* One line describing the instance. */
void cli_print_instance(const struct instance *in);

#endif
