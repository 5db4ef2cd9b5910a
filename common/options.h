/*
 * Declarative options. A method or a command declares each of its options
 * once, in a table of `struct opt`: the name, the type, the range, the
 * default, the help line and where the value lives in its settings struct.
 * From that one table come
 *   - the command line (opts_parse: --name VALUE, --name=VALUE, -x VALUE,
 *     --flag, --name / --no-name for booleans, "did you mean" on a typo),
 *   - the --help text (opts_help) and the README's option tables
 *     (opts_markdown, `pipeopt help --options`),
 *   - the keys of a sweep spec's method object (opts_from_json; the key is
 *     the name with '_' for '-': --time-limit is "time_limit"),
 *   - the settings a result row records (opts_to_json).
 *
 * Defaults are text, parsed by the same code as a user's value, so the
 * default the help shows is the one used. A default in words ("all cores",
 * "when stderr is a terminal"; for a string or list always, for a choice
 * when it is not one of the names) leaves the field zero, NULL (or -1 for
 * a boolean) and the method resolves it at run time.
 *
 * Value storage by type (at `offset` in the settings struct):
 *   OPT_FLAG    bool         present: true
 *   OPT_BOOL    int          --name: 1, --no-name: 0, default in words: -1
 *   OPT_INT     long         whole number in [lo, hi]
 *   OPT_NUMBER  double       number in [lo, hi]
 *   OPT_SEED    uint64_t     0 to 2^63 - 1
 *   OPT_STRING  const char * text (a path), borrowed from argv or the JSON
 *   OPT_CHOICE  const char * one of choice(0), choice(1), ... (registry
 *                            names); stored as the registry's own string
 *   OPT_LIST    struct opt_list  repeatable STRING (argv) or a JSON list
 */
#ifndef PIPEOPT_OPTIONS_H
#define PIPEOPT_OPTIONS_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

enum opt_type {
	OPT_FLAG, OPT_BOOL, OPT_INT, OPT_NUMBER, OPT_SEED, OPT_STRING, OPT_CHOICE, OPT_LIST
};

/* Where an option may be given. */
enum {
	OPT_CLI = 1,       /* on the command line */
	OPT_SPEC = 2,      /* in a sweep spec's method object, and recorded in rows */
	OPT_BOTH = 3,
	OPT_HIDDEN = 4,    /* accepted, not shown (an old name kept working) */
};

#define OPT_LIST_MAX 64

struct opt_list {
	int n;
	const char *v[OPT_LIST_MAX];
};

struct opt {
	const char *name;          /* "time-limit": --time-limit, spec key time_limit */
	char short_name;           /* 'o' for -o, or 0 */
	enum opt_type type;
	const char *arg;           /* the value's name in help: "S", "N", "FILE" */
	const char *dflt;          /* default as a user writes it, or in words; NULL: none */
	double lo, hi;             /* OPT_INT, OPT_NUMBER: the range */
	const char *(*choice)(int i);   /* OPT_CHOICE: the i-th name, NULL past the end */
	const char *help;          /* one line, lower case, no full stop */
	size_t offset;             /* of the value in the settings struct */
	unsigned where;            /* OPT_CLI | OPT_SPEC (| OPT_HIDDEN) */
	const char *alias_of;      /* OPT_HIDDEN aliases: the option it stands for */
};

#define OPT_TABLES 8

/* A default that one command sets for a shared option ("threads": "1"). */
struct opt_default {
	const char *name, *dflt;
};

/* A command's options: up to OPT_TABLES tables (its own, then shared
 * ones), each ended by an entry with name NULL. Table t's offsets are into
 * the struct at base[t]. */
struct opt_set {
	const char *cmd;           /* "solve": for messages */
	const struct opt *tables[OPT_TABLES];
	void *base[OPT_TABLES];
	struct opt_default defaults[4];   /* overrides of shared defaults */
};

/* ---- the shared vocabulary: one name, one meaning in every command ---------- */

/* The values of the shared options (run_opts_*). */
struct run_opts {
	bool json;                 /* --json: one JSON object on stdout */
	const char *output;        /* -o, --output FILE */
	long threads;              /* --threads N; 0 ("all cores"): the machine's cores */
	double time_limit;         /* --time-limit S: seconds; 0: none */
	int progress;              /* --[no-]progress: 1, 0, -1 when stderr is a terminal */
	int timeline;              /* --[no-]timeline: 1, 0, -1 (shown) */
	long width;                /* --width N: timeline columns */
};

extern const struct opt run_opts_json[];        /* --json */
extern const struct opt run_opts_output[];      /* -o, --output */
extern const struct opt run_opts_threads[];     /* --threads */
extern const struct opt run_opts_time_limit[];  /* --time-limit */
extern const struct opt run_opts_progress[];    /* --[no-]progress */
extern const struct opt run_opts_timeline[];    /* --[no-]timeline, --width */

/* The threads to use: opts' --threads, or the machine's cores (1 to 256). */
int run_opts_threads_value(const struct run_opts *r);

/* Whether to show progress on stderr: --progress, --no-progress, else
 * when stderr is a terminal and the output is not --json. */
bool run_opts_progress_on(const struct run_opts *r);

/* Add a table over the struct at base after s's last one. */
void opts_add(struct opt_set *s, const struct opt *table, void *base);

/* Set every option to its default. */
void opts_defaults(const struct opt_set *s);

/* Parse argv[1..argc-1] (argv[0] is the command): options into s, the
 * rest (positionals) into pos[0..*npos-1], in order (at most maxpos).
 * Returns 0, -1 after printing the help (--help, -h) on stdout, or the
 * usage exit status after a one-line usage error on stderr. `usage` is the
 * help's opening (usage line and description). */
int opts_parse(const struct opt_set *s, const char *usage, int argc, char **argv,
	       char **pos, int maxpos, int *npos);

/* A usage error of `cmd`: "error: pipeopt CMD: MSG (see 'pipeopt CMD
 * --help')" on stderr; returns the usage exit status (2). */
int opts_vusage(const char *cmd, const char *fmt, va_list ap);

/* The help text: usage, then one line per visible option. */
void opts_help(const struct opt_set *s, const char *usage, FILE *f);

/* Markdown rows "| --name VALUE | default | help |" of the CLI options. */
void opts_markdown(const struct opt_set *s, FILE *f);

/* Read a JSON object's keys into s (OPT_SPEC options only); errors name
 * `where` (e.g. "spec 'x.json': methods[2].solve") and the key. Strings
 * are borrowed from obj, which must outlive s. */
enum status opts_from_json(const struct opt_set *s, const json_t *obj, const char *where,
			   struct error *err);

/* Every OPT_SPEC option's value as a JSON object (new reference). */
json_t *opts_to_json(const struct opt_set *s);

/* The closest of names[0..n-1] to word within a small edit distance, or
 * NULL: the "did you mean" of every name lookup. */
const char *opts_suggest(const char *word, const char *const *names, int n);

/* The same over a registry enumerator (choice-style, NULL past the end). */
const char *opts_suggest_fn(const char *word, const char *(*name_at)(int i));

/* " (did you mean 'x'?)" or "" into buf, for the end of an error line. */
const char *opts_did_you_mean(const char *suggestion, char *buf, size_t n);

/* "a, b or c" of an enumerator's names into buf. */
const char *opts_names(const char *(*name_at)(int i), char *buf, size_t n);

#endif
