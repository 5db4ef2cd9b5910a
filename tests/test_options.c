/*
 * Tests for common/options: one declarative table read four ways. The
 * table below has one option of every type (plus a word default, a hidden
 * option and a hidden alias) and is read as defaults, as a command line
 * (with its --help and one-line usage errors on stderr, exit status 2), as
 * a sweep spec's JSON object and as the JSON a row records. A second table
 * (the shared --threads and --json) comes in through opts_add with a
 * per-set default override.
 *
 * Expected values are written from the table's text and the header's
 * rules by hand; edit distances in the did-you-mean cases are counted by
 * hand in the comments.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <jansson.h>
#include <unistd.h>

#include "test_helpers.h"

#include "common/options.h"

/* ---- the table under test ------------------------------------------------ */

struct t_settings {
	bool verbose;           /* FLAG */
	int fast;               /* BOOL, default true */
	int auto_mode;          /* BOOL, default in words */
	long count;             /* INT 1..10, default 3 */
	long workers;           /* INT, default in words */
	double rate;            /* NUMBER 0..1, default 0.5 */
	uint64_t seed;          /* SEED, default 42 */
	const char *path;       /* STRING, CLI only */
	const char *input;      /* STRING, default in words, also a spec key */
	const char *shade;      /* CHOICE, default in words */
	const char *color;      /* CHOICE, default green */
	struct opt_list tag;    /* LIST */
	long secret;            /* INT, hidden */
};

static const char *color_at(int i)
{
	static const char *const names[] = {"red", "green", "blue"};
	return i >= 0 && i < 3 ? names[i] : NULL;
}

static const char *one_at(int i)
{
	return i == 0 ? "only" : NULL;
}

static const char *two_at(int i)
{
	static const char *const names[] = {"a", "b"};
	return i >= 0 && i < 2 ? names[i] : NULL;
}

static const char *none_at(int i)
{
	(void)i;
	return NULL;
}

#define OFF(f) offsetof(struct t_settings, f)
static const struct opt t_opts[] = {
	{.name = "verbose", .short_name = 'v', .type = OPT_FLAG, .offset = OFF(verbose),
	 .where = OPT_BOTH, .help = "say more"},
	{.name = "fast", .type = OPT_BOOL, .dflt = "true", .offset = OFF(fast), .where = OPT_BOTH,
	 .help = "go fast"},
	{.name = "auto-mode", .type = OPT_BOOL, .dflt = "when asked", .offset = OFF(auto_mode),
	 .where = OPT_BOTH, .help = "automatic mode"},
	{.name = "count", .short_name = 'n', .type = OPT_INT, .arg = "N", .dflt = "3", .lo = 1,
	 .hi = 10, .offset = OFF(count), .where = OPT_BOTH, .help = "how many"},
	{.name = "workers", .type = OPT_INT, .arg = "W", .dflt = "all of them", .lo = 1, .hi = 64,
	 .offset = OFF(workers), .where = OPT_BOTH, .help = "workers to use"},
	{.name = "rate", .type = OPT_NUMBER, .arg = "R", .dflt = "0.5", .lo = 0, .hi = 1,
	 .offset = OFF(rate), .where = OPT_BOTH, .help = "the rate"},
	{.name = "seed", .type = OPT_SEED, .arg = "S", .dflt = "42", .offset = OFF(seed),
	 .where = OPT_BOTH, .help = "random seed"},
	{.name = "path", .short_name = 'p', .type = OPT_STRING, .arg = "FILE", .offset = OFF(path),
	 .where = OPT_CLI, .help = "a file"},
	{.name = "input", .type = OPT_STRING, .arg = "FILE", .dflt = "stdin", .offset = OFF(input),
	 .where = OPT_BOTH, .help = "the input"},
	{.name = "shade", .type = OPT_CHOICE, .choice = color_at, .dflt = "the color's",
	 .offset = OFF(shade), .where = OPT_CLI, .help = "the shade"},
	{.name = "color", .type = OPT_CHOICE, .choice = color_at, .dflt = "green",
	 .offset = OFF(color), .where = OPT_BOTH, .help = "the color"},
	{.name = "tag", .type = OPT_LIST, .arg = "T", .dflt = "none", .offset = OFF(tag),
	 .where = OPT_BOTH, .help = "a tag (repeatable)"},
	{.name = "secret-level", .type = OPT_INT, .arg = "L", .dflt = "7", .lo = 0, .hi = 9,
	 .offset = OFF(secret), .where = OPT_CLI | OPT_HIDDEN, .help = "not for you"},
	{.name = "old-count", .type = OPT_INT, .arg = "N", .lo = 1, .hi = 10,
	 .where = OPT_BOTH | OPT_HIDDEN, .alias_of = "count", .help = "old name of --count"},
	{0}};

static struct t_settings ts;
static struct run_opts ro;
static struct opt_set set;

#define USAGE "usage: pipeopt demo [options] A [B]\n\nA demonstration.\n"

/* The set: the table, then --threads (default overridden to 4) and --json. */
static void make_set(void)
{
	memset(&ts, 0x5a, sizeof ts);   /* garbage: opts_defaults must set every field */
	memset(&ro, 0x5a, sizeof ro);
	memset(&set, 0, sizeof set);
	set.cmd = "demo";
	opts_add(&set, t_opts, &ts);
	opts_add(&set, run_opts_threads, &ro);
	opts_add(&set, run_opts_json, &ro);
	set.defaults[0] = (struct opt_default){"threads", "4"};
	opts_defaults(&set);
}

/* ---- capturing stdout / stderr ------------------------------------------------ */

struct capture {
	int fd, saved;
	FILE *stream;
	char path[64];
};

static void capture_begin(struct capture *c, FILE *stream)
{
	c->stream = stream;
	c->fd = fileno(stream);
	snprintf(c->path, sizeof c->path, "/tmp/test_options-XXXXXX");
	int t = mkstemp(c->path);
	assert_true(t >= 0);
	fflush(stream);
	c->saved = dup(c->fd);
	assert_true(c->saved >= 0);
	assert_true(dup2(t, c->fd) >= 0);
	close(t);
}

/* Restore the stream; returns what was written (malloc'd). */
static char *capture_end(struct capture *c)
{
	fflush(c->stream);
	assert_true(dup2(c->saved, c->fd) >= 0);
	close(c->saved);
	FILE *f = fopen(c->path, "rb");
	assert_non_null(f);
	char *buf = calloc(1, 65536);
	assert_non_null(buf);
	size_t n = fread(buf, 1, 65535, f);
	buf[n] = 0;
	fclose(f);
	unlink(c->path);
	return buf;
}

#define MAXARGS 16

/* Parse a NULL-ended list of arguments (after argv[0] "demo"); returns the
 * status, with stderr's text in *err_text (malloc'd) when asked. */
static int parse_v(char **pos, int maxpos, int *npos, char **err_text, const char *const *args)
{
	char *argv[MAXARGS + 1];
	int argc = 0;
	argv[argc++] = "demo";
	for (int i = 0; args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	struct capture c;
	capture_begin(&c, stderr);
	int rc = opts_parse(&set, USAGE, argc, argv, pos, maxpos, npos);
	char *text = capture_end(&c);
	if (err_text)
		*err_text = text;
	else
		free(text);
	return rc;
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Parse with room for 2 positionals; must succeed with nothing on stderr. */
static void parse_ok(int want_npos, const char *const *args)
{
	char *pos[2], *err;
	int npos = -1;
	int rc = parse_v(pos, 2, &npos, &err, args);
	if (rc != 0 || *err)
		fail_msg("rejected (%d): %s", rc, err);
	assert_int_equal(npos, want_npos);
	free(err);
}

/* Parse; must fail with status 2 and one line on stderr: "error: pipeopt
 * demo: " + each of the fragments + " (see 'pipeopt demo --help')". */
static void parse_fails(const char *const *args, const char *f1, const char *f2)
{
	char *pos[2], *err;
	int npos;
	int rc = parse_v(pos, 2, &npos, &err, args);
	if (rc != 2)
		fail_msg("status %d for '%s', stderr: %s", rc, args[0], err);
	size_t n = strlen(err);
	if (n == 0 || err[n - 1] != '\n' || strchr(err, '\n') != err + n - 1)
		fail_msg("not one line: '%s'", err);
	if (strncmp(err, "error: pipeopt demo: ", 21))
		fail_msg("bad opening: %s", err);
	assert_contains(err, " (see 'pipeopt demo --help')\n");
	assert_contains(err, f1);
	if (f2)
		assert_contains(err, f2);
	free(err);
}

/* ---- defaults --------------------------------------------------------------- */

static void test_defaults(void **state)
{
	(void)state;
	make_set();
	assert_false(ts.verbose);
	assert_int_equal(ts.fast, 1);
	assert_int_equal(ts.auto_mode, -1);        /* words: -1 for a boolean */
	assert_int_equal(ts.count, 3);
	assert_int_equal(ts.workers, 0);           /* words: 0 */
	assert_double_near(ts.rate, 0.5, 0);
	assert_int_equal(ts.seed, 42);
	assert_null(ts.path);
	assert_null(ts.input);                     /* a string's default is always words */
	assert_null(ts.shade);                     /* a choice's default that is no name */
	assert_non_null(ts.color);
	assert_string_equal(ts.color, "green");
	assert_ptr_equal(ts.color, color_at(1));   /* the registry's own string */
	assert_int_equal(ts.tag.n, 0);              /* a list's default is always words */
	assert_int_equal(ts.secret, 7);            /* hidden options get defaults too */
	assert_int_equal(ro.threads, 4);           /* the set's override of "all cores" */
	assert_false(ro.json);
}

/* The same shared table without the override: its own words default. */
static void test_default_override(void **state)
{
	(void)state;
	struct run_opts r;
	struct opt_set s = {.cmd = "x"};
	memset(&r, 0x5a, sizeof r);
	opts_add(&s, run_opts_threads, &r);
	opts_add(&s, run_opts_time_limit, &r);
	opts_defaults(&s);
	assert_int_equal(r.threads, 0);            /* "all cores" */
	assert_double_near(r.time_limit, 0, 0);    /* "none" */

	s.defaults[0] = (struct opt_default){"time-limit", "60"};
	s.defaults[1] = (struct opt_default){"threads", "1"};
	opts_defaults(&s);
	assert_int_equal(r.threads, 1);
	assert_double_near(r.time_limit, 60, 0);

	/* a later slot works too, and an override of an unknown name is harmless */
	memset(s.defaults, 0, sizeof s.defaults);
	s.defaults[0] = (struct opt_default){"nothing", "5"};
	s.defaults[3] = (struct opt_default){"threads", "8"};
	opts_defaults(&s);
	assert_int_equal(r.threads, 8);
	assert_double_near(r.time_limit, 0, 0);
}

/* ---- the command line ---------------------------------------------------------- */

static void test_parse_values(void **state)
{
	(void)state;
	make_set();
	parse_ok(0, ARGS("--count", "5", "--rate=0.25", "-p", "in.json", "--seed", "123456789012",
			 "--color", "blue", "--workers=8", "--threads", "2"));
	assert_int_equal(ts.count, 5);
	assert_double_near(ts.rate, 0.25, 0);
	assert_string_equal(ts.path, "in.json");
	assert_int_equal(ts.seed, 123456789012ull);
	assert_ptr_equal(ts.color, color_at(2));
	assert_int_equal(ts.workers, 8);
	assert_int_equal(ro.threads, 2);
	/* untouched ones keep their defaults */
	assert_int_equal(ts.fast, 1);
	assert_false(ts.verbose);

	make_set();
	parse_ok(0, ARGS("-n", "10", "--path=a=b", "--seed=9223372036854775807", "--rate", "1",
			 "--count=1"));
	assert_int_equal(ts.count, 1);            /* the last one given wins */
	assert_string_equal(ts.path, "a=b");      /* only the first '=' splits */
	assert_int_equal(ts.seed, 9223372036854775807ull);
	assert_double_near(ts.rate, 1, 0);

	/* a value may itself start with '-' when it follows the option */
	make_set();
	parse_ok(0, ARGS("--path", "-"));
	assert_string_equal(ts.path, "-");
}

static void test_parse_flags_and_booleans(void **state)
{
	(void)state;
	make_set();
	parse_ok(0, ARGS("--verbose", "--no-fast", "--auto-mode", "--json"));
	assert_true(ts.verbose);
	assert_int_equal(ts.fast, 0);
	assert_int_equal(ts.auto_mode, 1);
	assert_true(ro.json);

	make_set();
	parse_ok(0, ARGS("-v", "--no-auto-mode", "--no-fast", "--fast"));
	assert_true(ts.verbose);
	assert_int_equal(ts.auto_mode, 0);
	assert_int_equal(ts.fast, 1);

	/* a hidden option and a hidden alias are accepted */
	make_set();
	parse_ok(0, ARGS("--secret-level", "2", "--old-count", "6"));
	assert_int_equal(ts.secret, 2);
	assert_int_equal(ts.count, 6);
}

static void test_parse_lists(void **state)
{
	(void)state;
	make_set();
	parse_ok(0, ARGS("--tag", "x", "--tag=y", "--tag", "z"));
	assert_int_equal(ts.tag.n, 3);
	assert_string_equal(ts.tag.v[0], "x");
	assert_string_equal(ts.tag.v[1], "y");
	assert_string_equal(ts.tag.v[2], "z");
}

static void test_parse_positionals(void **state)
{
	(void)state;
	char *pos[2];
	int npos = -1;
	make_set();
	assert_int_equal(parse_v(pos, 2, &npos, NULL, ARGS("one", "--count", "4", "two", "-v")), 0);
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "one");
	assert_string_equal(pos[1], "two");
	assert_int_equal(ts.count, 4);
	assert_true(ts.verbose);

	/* "-" alone is a positional (stdin) */
	make_set();
	assert_int_equal(parse_v(pos, 2, &npos, NULL, ARGS("-")), 0);
	assert_int_equal(npos, 1);
	assert_string_equal(pos[0], "-");

	/* "--" ends the options: what follows is positional, even "--" */
	make_set();
	assert_int_equal(parse_v(pos, 2, &npos, NULL, ARGS("-v", "--", "--count", "--")), 0);
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "--count");
	assert_string_equal(pos[1], "--");
	assert_true(ts.verbose);
	assert_int_equal(ts.count, 3);

	/* no positionals at all */
	make_set();
	assert_int_equal(parse_v(pos, 2, &npos, NULL, ARGS("-v")), 0);
	assert_int_equal(npos, 0);

	/* too many */
	make_set();
	parse_fails(ARGS("a", "b", "c"), "unexpected argument 'c'", NULL);
	char *none[1];
	char *err;
	assert_int_equal(parse_v(none, 0, &npos, &err, ARGS("x")), 2);
	assert_contains(err, "unexpected argument 'x'");
	free(err);
}

static void test_parse_errors(void **state)
{
	(void)state;
	make_set();
	/* a flag or a boolean given a value */
	parse_fails(ARGS("--verbose=yes"), "--verbose takes no value", NULL);
	parse_fails(ARGS("--fast=true"), "--fast takes no value", NULL);
	parse_fails(ARGS("--no-fast=1"), "--fast takes no value", NULL);
	/* a missing value names the value */
	parse_fails(ARGS("--count"), "--count needs a value (N)", NULL);
	parse_fails(ARGS("-v", "-p"), "--path needs a value (FILE)", NULL);
	/* out of range and not whole */
	parse_fails(ARGS("--count", "11"), "--count 11: expected a whole number from 1 to 10", NULL);
	parse_fails(ARGS("--count=0"), "--count 0: expected a whole number from 1 to 10", NULL);
	parse_fails(ARGS("--count", "2.5"), "--count 2.5: expected a whole number from 1 to 10", NULL);
	parse_fails(ARGS("--count", "three"), "--count three: expected a whole number", NULL);
	parse_fails(ARGS("--count", ""), "--count : expected a whole number", NULL);
	parse_fails(ARGS("-n", "4x"), "--count 4x: expected a whole number", NULL);
	parse_fails(ARGS("--rate", "1.5"), "--rate 1.5: expected a number from 0 to 1", NULL);
	parse_fails(ARGS("--rate", "-0.1"), "expected a number from 0 to 1", NULL);
	parse_fails(ARGS("--rate", "nan"), "expected a number from 0 to 1", NULL);
	parse_fails(ARGS("--threads", "0"), "--threads 0: expected a whole number from 1 to 256", NULL);
	parse_fails(ARGS("--seed", "-1"), "--seed -1: expected a whole number from 0 to 2^63 - 1",
		    NULL);
	parse_fails(ARGS("--seed", "9223372036854775808"), "expected a whole number from 0 to 2^63",
		    NULL);
	parse_fails(ARGS("--seed", "1.0"), "--seed 1.0: expected", NULL);
	/* choices list the registry's names and suggest the nearest */
	parse_fails(ARGS("--color", "gren"), "--color gren: expected red, green or blue",
		    " (did you mean 'green'?)");
	char *pos[2], *err;
	int npos;
	assert_int_equal(parse_v(pos, 2, &npos, &err, ARGS("--color", "purple")), 2);
	assert_contains(err, "--color purple: expected red, green or blue (see");
	assert_null(strstr(err, "did you mean"));   /* too far from every name */
	free(err);
}

static void test_parse_unknown(void **state)
{
	(void)state;
	make_set();
	/* "--cont" -> "--count": 1 edit (insert 'u'); one line, status 2 */
	parse_fails(ARGS("--cont", "3"), "unknown option '--cont' (did you mean '--count'?)", NULL);
	/* the value after '=' is not part of the name */
	parse_fails(ARGS("--colour=red"), "unknown option '--colour' (did you mean '--color'?)",
		    NULL);
	/* "--no-fsat": the negated spelling is a name too (2 edits) */
	parse_fails(ARGS("--no-fsat"), "unknown option '--no-fsat' (did you mean '--no-fast'?)",
		    NULL);
	/* "--thread" -> "--threads", of the second table (1 edit) */
	parse_fails(ARGS("--thread", "2"), "(did you mean '--threads'?)", NULL);
	/* "--hepl" -> "--help" */
	parse_fails(ARGS("--hepl"), "unknown option '--hepl' (did you mean '--help'?)", NULL);
	/* a short option that is not one, and a glued short value */
	parse_fails(ARGS("-x"), "unknown option '-x'", NULL);
	parse_fails(ARGS("-n5"), "unknown option '-n5'", NULL);
	/* nothing close: no suggestion */
	char *pos[2], *err;
	int npos;
	assert_int_equal(parse_v(pos, 2, &npos, &err, ARGS("--zzzzzzzz")), 2);
	assert_string_equal(err, "error: pipeopt demo: unknown option '--zzzzzzzz' "
				 "(see 'pipeopt demo --help')\n");
	free(err);
	/* hidden names are never suggested: "--secret-levl" is 1 edit from a
	 * hidden option and far from every visible one */
	assert_int_equal(parse_v(pos, 2, &npos, &err, ARGS("--secret-levl")), 2);
	assert_contains(err, "unknown option '--secret-levl'");
	assert_null(strstr(err, "did you mean"));
	free(err);
	/* a flag has no --no- form */
	parse_fails(ARGS("--no-verbose"), "unknown option '--no-verbose'", NULL);
	/* a control character in the argument does not break the line */
	parse_fails(ARGS("--a\nb"), "unknown option '--a", NULL);
}

static void test_parse_help(void **state)
{
	(void)state;
	const char *forms[] = {"--help", "-h"};
	for (int k = 0; k < 2; k++) {
		make_set();
		char *argv[] = {"demo", "-v", (char *)forms[k], "--count", "bad", NULL};
		char *pos[2];
		int npos;
		struct capture c;
		capture_begin(&c, stdout);
		int rc = opts_parse(&set, USAGE, 5, argv, pos, 2, &npos);
		char *out = capture_end(&c);
		assert_int_equal(rc, -1);   /* help stops the parse before the bad value */
		assert_int_equal(strncmp(out, USAGE, strlen(USAGE)), 0);
		assert_contains(out, "\noptions:\n");
		assert_contains(out, "-v, --verbose");
		assert_contains(out, "say more\n");         /* a flag shows no default */
		assert_contains(out, "--[no-]fast");
		assert_contains(out, "go fast (default true)\n");
		assert_contains(out, "--[no-]auto-mode");
		assert_contains(out, "automatic mode (default when asked)\n");
		assert_contains(out, "-n, --count N");
		assert_contains(out, "how many (default 3)\n");
		assert_contains(out, "--workers W");
		assert_contains(out, "workers to use (default all of them)\n");
		assert_contains(out, "--rate R");
		assert_contains(out, "the rate (default 0.5)\n");
		assert_contains(out, "--seed S");
		assert_contains(out, "random seed (default 42)\n");
		assert_contains(out, "-p, --path FILE");
		assert_contains(out, "a file\n");            /* no default */
		assert_contains(out, "--input FILE");
		assert_contains(out, "the input (default stdin)\n");
		assert_contains(out, "--shade red|green|blue");
		assert_contains(out, "the shade (default the color's)\n");
		assert_contains(out, "--color red|green|blue");
		assert_contains(out, "the color (default green)\n");
		assert_contains(out, "--tag T");
		assert_contains(out, "a tag (repeatable) (default none)\n");
		assert_contains(out, "--threads N");
		assert_contains(out, "threads to use (default 4)\n");   /* the override */
		assert_contains(out, "--json");
		assert_contains(out, "-h, --help");
		assert_null(strstr(out, "secret"));
		assert_null(strstr(out, "old-count"));
		assert_null(strstr(out, "default 7"));
		assert_null(strstr(out, "all cores"));
		/* the usage's 3 lines, a blank line and "options:", one line per
		 * visible option (12 of the table, --threads, --json), the help line */
		int lines = 0;
		for (const char *p = out; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, 3 + 2 + 14 + 1);
		free(out);
	}
	/* a usage without a final newline gets one */
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	make_set();
	opts_help(&set, "usage: x", f);
	fclose(f);
	assert_int_equal(strncmp(buf, "usage: x\n\noptions:\n", 19), 0);
	free(buf);
}

static void test_markdown(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	make_set();
	opts_markdown(&set, f);
	fclose(f);
	assert_contains(buf, "| `-n, --count N` | 3 | `count` | how many |\n");
	assert_contains(buf, "| `--[no-]auto-mode` | when asked | `auto_mode` | automatic mode |\n");
	assert_contains(buf, "| `-v, --verbose` |  | `verbose` | say more |\n");
	assert_contains(buf, "| `-p, --path FILE` |  |  | a file |\n");   /* CLI only: no key */
	assert_contains(buf, "| `--threads N` | 4 | `threads` | threads to use |\n");
	/* a choice's '|' is escaped inside the table cell */
	assert_contains(buf, "| `--color red\\|green\\|blue` | green | `color` | the color |\n");
	assert_null(strstr(buf, "secret"));
	assert_null(strstr(buf, "old"));
	free(buf);
}

/* ---- sweep specs --------------------------------------------------------------- */

static json_t *load(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	if (!j)
		fail_msg("bad test JSON '%s': %s", text, je.text);
	return j;
}

static void test_from_json_types(void **state)
{
	(void)state;
	make_set();
	json_t *obj = load("{\"verbose\": true, \"fast\": false, \"auto_mode\": true, \"count\": 9,"
			   " \"workers\": 64, \"rate\": 0.125, \"seed\": 77, \"color\": \"red\","
			   " \"tag\": [\"p\", \"q\"], \"threads\": 3, \"input\": \"a.json\"}");
	struct error err = {{0}};
	assert_int_equal(opts_from_json(&set, obj, "spec 's.json': methods[0].demo", &err), STATUS_OK);
	assert_true(ts.verbose);
	assert_int_equal(ts.fast, 0);
	assert_int_equal(ts.auto_mode, 1);
	assert_int_equal(ts.count, 9);
	assert_int_equal(ts.workers, 64);
	assert_double_near(ts.rate, 0.125, 0);
	assert_int_equal(ts.seed, 77);
	assert_ptr_equal(ts.color, color_at(0));
	assert_int_equal(ts.tag.n, 2);
	assert_string_equal(ts.tag.v[0], "p");
	assert_string_equal(ts.tag.v[1], "q");
	assert_int_equal(ro.threads, 3);
	assert_string_equal(ts.input, "a.json");
	assert_ptr_equal(ts.input, json_string_value(json_object_get(obj, "input")));   /* borrowed */

	/* a number key takes an integer; an alias key works; a list replaces */
	json_t *o2 = load("{\"rate\": 1, \"old_count\": 2, \"tag\": [], \"verbose\": false}");
	assert_int_equal(opts_from_json(&set, o2, "w", &err), STATUS_OK);
	assert_double_near(ts.rate, 1, 0);
	assert_int_equal(ts.count, 2);
	assert_int_equal(ts.tag.n, 0);
	assert_false(ts.verbose);
	json_decref(o2);
	json_decref(obj);

	/* an empty object changes nothing */
	make_set();
	obj = load("{}");
	assert_int_equal(opts_from_json(&set, obj, "w", &err), STATUS_OK);
	assert_int_equal(ts.count, 3);
	json_decref(obj);
}

/* Each case: the object, then fragments of the one-line message (after
 * `where`). */
static const struct {
	const char *json, *what1, *what2;
} bad_json[] = {
	{"{\"cuont\": 3}", ".cuont: unknown key", " (did you mean 'count'?)"},
	{"{\"time_limit\": 3}", ".time_limit: unknown key", NULL},
	{"{\"path\": \"x\"}", ".path: unknown key", NULL},          /* CLI only */
	{"{\"json\": true}", ".json: unknown key", NULL},          /* CLI only */
	{"{\"secret_level\": 1}", ".secret_level: unknown key", NULL},
	{"{\"count\": \"3\"}", ": count: expected a whole number from 1 to 10", NULL},
	{"{\"count\": 3.0}", ": count: expected a whole number from 1 to 10", NULL},
	{"{\"count\": 11}", ": count: expected a whole number from 1 to 10", NULL},
	{"{\"count\": 0}", ": count: expected a whole number from 1 to 10", NULL},
	{"{\"old_count\": 12}", ": old_count: expected a whole number from 1 to 10", NULL},
	{"{\"rate\": 2}", ": rate: expected a number from 0 to 1", NULL},
	{"{\"rate\": \"0.5\"}", ": rate: expected a number from 0 to 1", NULL},
	{"{\"rate\": null}", ": rate: expected a number", NULL},
	{"{\"seed\": -1}", ": seed: expected a whole number from 0 to 2^63 - 1", NULL},
	{"{\"seed\": 1.5}", ": seed: expected a whole number from 0 to 2^63 - 1", NULL},
	{"{\"verbose\": 1}", ": verbose: expected true or false", NULL},
	{"{\"fast\": \"true\"}", ": fast: expected true or false", NULL},
	{"{\"color\": \"blu\"}", ": color: expected red, green or blue", " (did you mean 'blue'?)"},
	{"{\"color\": 2}", ": color: expected red, green or blue", NULL},
	{"{\"input\": 3}", ": input: expected a string", NULL},
	{"{\"input\": null}", ": input: expected a string", NULL},
	{"{\"tag\": \"x\"}", ": tag: expected a list of at most 64 strings", NULL},
	{"{\"tag\": [\"x\", 3]}", ": tag: entry 1: expected a string", NULL},
	{"{\"threads\": 257}", ": threads: expected a whole number from 1 to 256", NULL},
};

static void test_from_json_errors(void **state)
{
	(void)state;
	const char *where = "spec 's.json': methods[2].demo";
	for (size_t i = 0; i < sizeof bad_json / sizeof bad_json[0]; i++) {
		make_set();
		json_t *obj = load(bad_json[i].json);
		struct error err = {{0}};
		if (opts_from_json(&set, obj, where, &err) != STATUS_ERROR)
			fail_msg("accepted %s", bad_json[i].json);
		char what[256];
		snprintf(what, sizeof what, "%s%s", where, bad_json[i].what1);
		check_error_message(bad_json[i].json, err.msg, "s.json", where, what);
		if (bad_json[i].what2)
			assert_contains(err.msg, bad_json[i].what2);
		else
			assert_null(strstr(err.msg, "did you mean"));
		json_decref(obj);
	}
	/* not an object */
	make_set();
	json_t *arr = load("[1]");
	struct error err = {{0}};
	assert_int_equal(opts_from_json(&set, arr, "here", &err), STATUS_ERROR);
	assert_string_equal(err.msg, "here: expected an object");
	json_decref(arr);
	/* exactly 64 list entries fit, 65 do not */
	json_t *list = json_array();
	for (int i = 0; i < 64; i++)
		json_array_append_new(list, json_string("t"));
	json_t *obj = json_pack("{s:O}", "tag", list);
	assert_int_equal(opts_from_json(&set, obj, "w", &err), STATUS_OK);
	assert_int_equal(ts.tag.n, 64);
	json_array_append_new(list, json_string("t"));
	json_object_set(obj, "tag", list);
	assert_int_equal(opts_from_json(&set, obj, "w", &err), STATUS_ERROR);
	json_decref(obj);
	json_decref(list);
}

/* ---- recorded settings ---------------------------------------------------------- */

static void test_to_json(void **state)
{
	(void)state;
	make_set();
	/* the defaults, recorded: every OPT_SPEC option, no CLI-only one */
	json_t *j = opts_to_json(&set);
	json_t *want = load("{\"verbose\": false, \"fast\": true, \"auto_mode\": null, \"count\": 3,"
			    " \"workers\": 0, \"rate\": 0.5, \"seed\": 42, \"color\": \"green\","
			    " \"tag\": [], \"threads\": 4, \"input\": null}");
	if (!json_equal(j, want))
		fail_msg("got %s", json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS));
	assert_true(json_is_integer(json_object_get(j, "count")));
	assert_true(json_is_real(json_object_get(j, "rate")));
	assert_true(json_is_integer(json_object_get(j, "seed")));
	assert_null(json_object_get(j, "path"));
	assert_null(json_object_get(j, "json"));
	assert_null(json_object_get(j, "secret_level"));
	assert_null(json_object_get(j, "old_count"));
	json_decref(want);
	json_decref(j);

	/* round trip: values in from JSON, out the same; back in, the same fields */
	make_set();
	json_t *in = load("{\"verbose\": true, \"fast\": false, \"auto_mode\": false, \"count\": 7,"
			  " \"workers\": 5, \"rate\": 0.1, \"seed\": 9223372036854775807,"
			  " \"color\": \"blue\", \"tag\": [\"a\", \"b\"], \"threads\": 16,"
			  " \"input\": \"in.json\"}");
	struct error err = {{0}};
	assert_int_equal(opts_from_json(&set, in, "w", &err), STATUS_OK);
	j = opts_to_json(&set);
	if (!json_equal(j, in))
		fail_msg("got %s", json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS));
	struct t_settings first = ts;
	long first_threads = ro.threads;
	make_set();
	assert_int_equal(opts_from_json(&set, j, "w", &err), STATUS_OK);
	assert_int_equal(ts.verbose, first.verbose);
	assert_int_equal(ts.fast, first.fast);
	assert_int_equal(ts.auto_mode, first.auto_mode);
	assert_int_equal(ts.count, first.count);
	assert_int_equal(ts.workers, first.workers);
	assert_true(ts.rate == first.rate);
	assert_true(ts.seed == first.seed);
	assert_ptr_equal(ts.color, first.color);
	assert_string_equal(ts.input, first.input);
	assert_int_equal(ts.tag.n, 2);
	assert_int_equal(ro.threads, first_threads);
	json_decref(j);
	json_decref(in);

	/* values from the command line are recorded too */
	make_set();
	parse_ok(1, ARGS("--count", "8", "--no-fast", "x", "--path", "f", "--json", "--tag", "t"));
	j = opts_to_json(&set);
	assert_int_equal(json_integer_value(json_object_get(j, "count")), 8);
	assert_true(json_is_false(json_object_get(j, "fast")));
	assert_int_equal(json_array_size(json_object_get(j, "tag")), 1);
	assert_null(json_object_get(j, "path"));
	assert_null(json_object_get(j, "json"));
	assert_int_equal(json_object_size(j), 11);
	json_decref(j);
}

/* ---- names ---------------------------------------------------------------------- */

/* got (may be NULL) is the suggestion want */
#define assert_suggest(got, want)                                               \
	do {                                                                    \
		const char *g_ = (got);                                         \
		if (!g_ || strcmp(g_, (want)))                                  \
			fail_msg("suggested '%s', not '%s'", g_ ? g_ : "(null)", (want)); \
	} while (0)

static void test_suggest(void **state)
{
	(void)state;
	const char *const short_names[] = {"abc", "abcd", "wxyz"};
	/* length <= 4: one edit */
	assert_suggest(opts_suggest("abx", short_names, 3), "abc");     /* substitute */
	assert_suggest(opts_suggest("wxz", short_names, 3), "wxyz");    /* delete */
	assert_null(opts_suggest("axyz", (const char *const[]){"abcz"}, 1)); /* 2 edits, len 4 */
	/* an adjacent transposition is one edit: "glkp" -> "glpk" (len 4) */
	assert_suggest(opts_suggest("glkp", (const char *const[]){"glpk"}, 1), "glpk");
	assert_suggest(opts_suggest("ucnt", (const char *const[]){"cunt", "uctn"}, 2), "cunt");
	/* but two of them are two: "badc" from "abcd" */
	assert_null(opts_suggest("badc", (const char *const[]){"abcd"}, 1));
	assert_suggest(opts_suggest("bacdfe", (const char *const[]){"abcdef"}, 1), "abcdef");
	/* exact match is not a suggestion */
	assert_null(opts_suggest("wxyz", (const char *const[]){"wxyz"}, 1));
	/* length 5..8: two edits, not three */
	assert_suggest(opts_suggest("qwertz", (const char *const[]){"qwerty"}, 1), "qwerty");
	assert_suggest(opts_suggest("qwexyy", (const char *const[]){"qwerty"}, 1), "qwerty");
	assert_null(opts_suggest("qxxxty", (const char *const[]){"qwerty"}, 1));   /* 3 */
	assert_suggest(opts_suggest("abcdefgh", (const char *const[]){"abcdefxx"}, 1),
			    "abcdefxx");                                                /* 8: 2 */
	assert_null(opts_suggest("abcdefgh", (const char *const[]){"abcdexxx"}, 1)); /* 8: 3 */
	/* length >= 9: three edits, not four */
	assert_suggest(opts_suggest("abcdefghi", (const char *const[]){"abcdefxxx"}, 1),
			    "abcdefxxx");
	assert_null(opts_suggest("abcdefghi", (const char *const[]){"abcdexxxx"}, 1));
	/* the nearest wins; on a tie the first */
	const char *const several[] = {"populace", "population", "popularity"};
	assert_suggest(opts_suggest("populatoin", several, 3), "population");   /* 2 */
	assert_suggest(opts_suggest("cat", (const char *const[]){"bat", "cab"}, 2), "bat");
	assert_suggest(opts_suggest("cat", (const char *const[]){"cab", "bat"}, 2), "cab");
	/* a prefix of 3 or more characters suggests, however far */
	assert_suggest(opts_suggest("tim", (const char *const[]){"time-limit"}, 1),
			    "time-limit");
	assert_suggest(opts_suggest("exact", (const char *const[]){"exact-seed-time"}, 1),
			    "exact-seed-time");
	assert_null(opts_suggest("ti", (const char *const[]){"time-limit"}, 1));
	/* a prefix counts as the cap, so a closer name beats it */
	assert_suggest(opts_suggest("genera", (const char *const[]){"generations", "genero"}, 2),
			    "genero");
	assert_suggest(opts_suggest("genera", (const char *const[]){"generations", "genxrx"}, 2),
			    "generations");   /* tie at 2: the first */
	/* far words: none; nothing to choose from: none */
	assert_null(opts_suggest("banana", several, 3));
	assert_null(opts_suggest("x", several, 0));
	/* the enumerator form */
	assert_suggest(opts_suggest_fn("blu", color_at), "blue");
	assert_null(opts_suggest_fn("yellow", color_at));
	assert_null(opts_suggest_fn("red", color_at));
}

static void test_names(void **state)
{
	(void)state;
	char buf[128], dym[64];
	assert_string_equal(opts_names(color_at, buf, sizeof buf), "red, green or blue");
	assert_string_equal(opts_names(two_at, buf, sizeof buf), "a or b");
	assert_string_equal(opts_names(one_at, buf, sizeof buf), "only");
	assert_string_equal(opts_names(none_at, buf, sizeof buf), "");
	/* a short buffer is cut, still ended */
	char small[8];
	assert_string_equal(opts_names(color_at, small, sizeof small), "red, gr");
	assert_string_equal(opts_did_you_mean("x", dym, sizeof dym), " (did you mean 'x'?)");
	assert_string_equal(opts_did_you_mean(NULL, dym, sizeof dym), "");
}

/* ---- the shared vocabulary --------------------------------------------------------- */

static void test_run_opts_threads(void **state)
{
	(void)state;
	struct run_opts r = {0};
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cores < 1 ? 1 : cores > 256 ? 256 : (int)cores;
	assert_int_equal(run_opts_threads_value(&r), want);   /* 0: the machine's cores */
	r.threads = 3;
	assert_int_equal(run_opts_threads_value(&r), 3);
	r.threads = 256;
	assert_int_equal(run_opts_threads_value(&r), 256);

	/* the shared tables parse like any other */
	struct opt_set s = {.cmd = "x"};
	memset(&r, 0x5a, sizeof r);
	opts_add(&s, run_opts_json, &r);
	opts_add(&s, run_opts_output, &r);
	opts_add(&s, run_opts_threads, &r);
	opts_add(&s, run_opts_time_limit, &r);
	opts_add(&s, run_opts_progress, &r);
	opts_add(&s, run_opts_timeline, &r);
	opts_defaults(&s);
	assert_false(r.json);
	assert_null(r.output);
	assert_int_equal(r.threads, 0);
	assert_double_near(r.time_limit, 0, 0);
	assert_int_equal(r.progress, -1);
	assert_int_equal(r.timeline, 1);
	assert_int_equal(r.width, 100);
	char *argv[] = {"x", "-o", "out.svg", "--time-limit=2.5", "--no-timeline", "--width", "20",
			"--progress", NULL};
	char *pos[1];
	int npos;
	assert_int_equal(opts_parse(&s, "usage", 8, argv, pos, 1, &npos), 0);
	assert_string_equal(r.output, "out.svg");
	assert_double_near(r.time_limit, 2.5, 0);
	assert_int_equal(r.timeline, 0);
	assert_int_equal(r.width, 20);
	assert_int_equal(r.progress, 1);
	/* recorded: only time_limit and threads are spec options */
	json_t *j = opts_to_json(&s);
	assert_int_equal(json_object_size(j), 2);
	assert_double_near(json_real_value(json_object_get(j, "time_limit")), 2.5, 0);
	assert_int_equal(json_integer_value(json_object_get(j, "threads")), 0);
	json_decref(j);
}

/* Run run_opts_progress_on with fd 2 on a terminal (a pseudo-terminal) or
 * a file. */
static int progress_with_stderr(const struct run_opts *r, bool terminal)
{
	int fd;
	if (terminal) {
		int master = posix_openpt(O_RDWR | O_NOCTTY);
		if (master < 0)
			return -1;
		if (grantpt(master) || unlockpt(master)) {
			close(master);
			return -1;
		}
		fd = open(ptsname(master), O_RDWR | O_NOCTTY);
		if (fd < 0) {
			close(master);
			return -1;
		}
		/* the master stays open while the terminal is in use */
		fflush(stderr);
		int saved = dup(2);
		dup2(fd, 2);
		close(fd);
		bool on = run_opts_progress_on(r);
		dup2(saved, 2);
		close(saved);
		close(master);
		return on;
	} else {
		char path[] = "/tmp/test_options-XXXXXX";
		fd = mkstemp(path);
		assert_true(fd >= 0);
		unlink(path);
	}
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	close(fd);
	int on = run_opts_progress_on(r);
	dup2(saved, 2);
	close(saved);
	return on;
}

static void test_run_opts_progress(void **state)
{
	(void)state;
	struct run_opts r = {0};
	/* 1 when the terminal case can run, 0 for a file, -1: no terminal here */
	int tty = progress_with_stderr(&(struct run_opts){.progress = 1}, true);
	if (tty < 0)
		print_message("no pseudo-terminal here: the terminal cases are skipped\n");
	for (int t = 0; t < (tty < 0 ? 1 : 2); t++) {
		/* asked for (--progress / --no-progress): so, with or without --json */
		r.progress = 1;
		r.json = false;
		assert_int_equal(progress_with_stderr(&r, t), 1);
		r.json = true;
		assert_int_equal(progress_with_stderr(&r, t), 1);
		r.progress = 0;
		assert_int_equal(progress_with_stderr(&r, t), 0);
		r.json = false;
		assert_int_equal(progress_with_stderr(&r, t), 0);
	}
	/* not asked: a file gets none, a terminal gets it unless --json */
	r.progress = -1;
	r.json = false;
	assert_int_equal(progress_with_stderr(&r, false), 0);
	r.json = true;
	assert_int_equal(progress_with_stderr(&r, false), 0);
	if (tty >= 0) {
		r.json = false;
		assert_int_equal(progress_with_stderr(&r, true), 1);
		r.json = true;
		assert_int_equal(progress_with_stderr(&r, true), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_default_override),
		cmocka_unit_test(test_parse_values),
		cmocka_unit_test(test_parse_flags_and_booleans),
		cmocka_unit_test(test_parse_lists),
		cmocka_unit_test(test_parse_positionals),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_unknown),
		cmocka_unit_test(test_parse_help),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_from_json_types),
		cmocka_unit_test(test_from_json_errors),
		cmocka_unit_test(test_to_json),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_run_opts_threads),
		cmocka_unit_test(test_run_opts_progress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
