/* Declarative options (options.h): one table, read four ways. */
#include "common/options.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPTS_USAGE_EXIT 2

/* ---- the tables ---------------------------------------------------------------- */

/* Visit every option of s in order: tables, then entries. */
#define MAX_OPTS 256

static int collect(const struct opt_set *s, const struct opt **out)
{
	int n = 0;
	for (int t = 0; t < OPT_TABLES && s->tables[t]; t++)
		for (const struct opt *o = s->tables[t]; o->name && n < MAX_OPTS; o++)
			out[n++] = o;
	return n;
}

/* The storage of o: its table's struct plus its offset. */
static void *field(const struct opt_set *s, const struct opt *o)
{
	for (int t = 0; t < OPT_TABLES && s->tables[t]; t++) {
		const struct opt *first = s->tables[t], *end = first;
		while (end->name)
			end++;
		if (o >= first && o < end)
			return (char *)s->base[t] + o->offset;
	}
	return NULL;
}

void opts_add(struct opt_set *s, const struct opt *table, void *base)
{
	int t = 0;
	while (t < OPT_TABLES && s->tables[t])
		t++;
	assert(t < OPT_TABLES);
	s->tables[t] = table;
	s->base[t] = base;
}

/* o's default in this set (a command's override, else the table's). */
static const char *default_of(const struct opt_set *s, const struct opt *o)
{
	for (int i = 0; i < 4; i++)
		if (s->defaults[i].name && !strcmp(s->defaults[i].name, o->name))
			return s->defaults[i].dflt;
	return o->dflt;
}

/* The option an alias stands for (itself if none). */
static const struct opt *resolve_alias(const struct opt *const *all, int n, const struct opt *o)
{
	if (!o->alias_of)
		return o;
	for (int i = 0; i < n; i++)
		if (!strcmp(all[i]->name, o->alias_of))
			return all[i];
	return o;
}

static bool is_word_default(const struct opt *o, const char *d)
{
	if (!d)
		return true;
	if (o->type == OPT_BOOL)
		return strcmp(d, "true") && strcmp(d, "false");
	if (o->type == OPT_INT || o->type == OPT_NUMBER || o->type == OPT_SEED) {
		char *end;
		(void)strtod(d, &end);
		return *end != 0 || end == d;
	}
	if (o->type == OPT_CHOICE) {   /* a name the registry has, else words */
		for (int i = 0; o->choice(i); i++)
			if (!strcmp(o->choice(i), d))
				return false;
		return true;
	}
	return true;   /* strings (paths) and lists: a default is always in words */
}

/* ---- values -------------------------------------------------------------------- */

static const char *expectation(const struct opt *o, char *buf, size_t n);

/* One value from text into the option's field; false with why (the
 * expectation, e.g. "seconds from 0.001 to 1e+07") if it is not one. */
static bool set_text(const struct opt_set *s, const struct opt *o, const char *text,
		     char *why, size_t nwhy)
{
	void *f = field(s, o);
	char *end;
	double v;
	switch (o->type) {
	case OPT_FLAG:
		*(bool *)f = true;
		return true;
	case OPT_BOOL:
		if (!strcmp(text, "true") || !strcmp(text, "false")) {
			*(int *)f = !strcmp(text, "true");
			return true;
		}
		expectation(o, why, nwhy);
		return false;
	case OPT_INT:
	case OPT_NUMBER:
		errno = 0;
		v = strtod(text, &end);
		if (*text && !*end && !errno && v >= o->lo && v <= o->hi &&
		    (o->type == OPT_NUMBER || v == floor(v))) {
			if (o->type == OPT_INT)
				*(long *)f = (long)v;
			else
				*(double *)f = v;
			return true;
		}
		expectation(o, why, nwhy);
		return false;
	case OPT_SEED: {
		errno = 0;
		unsigned long long x = strtoull(text, &end, 10);
		if (*text && !*end && !errno && strspn(text, "0123456789") == strlen(text) &&
		    x <= INT64_MAX) {
			*(uint64_t *)f = x;
			return true;
		}
		expectation(o, why, nwhy);
		return false;
	}
	case OPT_STRING:
		*(const char **)f = text;
		return true;
	case OPT_CHOICE:
		for (int i = 0; o->choice(i); i++)
			if (!strcmp(o->choice(i), text)) {
				*(const char **)f = o->choice(i);
				return true;
			}
		{
			char names[256], dym[128];
			opts_names(o->choice, names, sizeof names);
			snprintf(why, nwhy, "%s%s", names,
				 opts_did_you_mean(opts_suggest_fn(text, o->choice), dym, sizeof dym));
		}
		return false;
	case OPT_LIST: {
		struct opt_list *l = f;
		if (l->n == OPT_LIST_MAX) {
			snprintf(why, nwhy, "at most %d values", OPT_LIST_MAX);
			return false;
		}
		l->v[l->n++] = text;
		return true;
	}
	}
	return false;
}

/* What a value of o must be, in words ("a whole number from 1 to 256"). */
static const char *expectation(const struct opt *o, char *buf, size_t n)
{
	char names[256];
	switch (o->type) {
	case OPT_FLAG: case OPT_BOOL: snprintf(buf, n, "true or false"); break;
	case OPT_INT: snprintf(buf, n, "a whole number from %g to %g", o->lo, o->hi); break;
	case OPT_NUMBER: snprintf(buf, n, "a number from %g to %g", o->lo, o->hi); break;
	case OPT_SEED: snprintf(buf, n, "a whole number from 0 to 2^63 - 1"); break;
	case OPT_STRING: snprintf(buf, n, "a string"); break;
	case OPT_CHOICE: snprintf(buf, n, "%s", opts_names(o->choice, names, sizeof names)); break;
	case OPT_LIST: snprintf(buf, n, "a list of strings"); break;
	}
	return buf;
}

void opts_defaults(const struct opt_set *s)
{
	const struct opt *all[MAX_OPTS];
	int n = collect(s, all);
	char why[256];
	for (int i = 0; i < n; i++) {
		const struct opt *o = all[i];
		if (o->alias_of)
			continue;
		void *f = field(s, o);
		switch (o->type) {
		case OPT_FLAG: *(bool *)f = false; break;
		case OPT_BOOL: *(int *)f = -1; break;
		case OPT_INT: *(long *)f = 0; break;
		case OPT_NUMBER: *(double *)f = 0; break;
		case OPT_SEED: *(uint64_t *)f = 0; break;
		case OPT_STRING: case OPT_CHOICE: *(const char **)f = NULL; break;
		case OPT_LIST: ((struct opt_list *)f)->n = 0; break;
		}
		const char *d = default_of(s, o);
		if (!is_word_default(o, d))
			set_text(s, o, d, why, sizeof why);
	}
}

/* ---- the command line ------------------------------------------------------------- */

int opts_vusage(const char *cmd, const char *fmt, va_list ap)
{
	char msg[512];
	struct error e;
	vsnprintf(msg, sizeof msg, fmt, ap);
	err_set(&e, "%s", msg);   /* scrubs control characters */
	fprintf(stderr, "error: pipeopt %s: %s (see 'pipeopt %s --help')\n", cmd, e.msg, cmd);
	return OPTS_USAGE_EXIT;
}

static int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = opts_vusage(cmd, fmt, ap);
	va_end(ap);
	return rc;
}

/* The option called name (long form, or "no-" + a boolean's), or NULL;
 * *negated says which. */
static const struct opt *find_long(const struct opt *const *all, int n, const char *name,
				   bool *negated)
{
	*negated = false;
	for (int i = 0; i < n; i++)
		if ((all[i]->where & OPT_CLI) && !strcmp(all[i]->name, name))
			return all[i];
	if (!strncmp(name, "no-", 3))
		for (int i = 0; i < n; i++)
			if ((all[i]->where & OPT_CLI) && all[i]->type == OPT_BOOL &&
			    !strcmp(all[i]->name, name + 3)) {
				*negated = true;
				return all[i];
			}
	return NULL;
}

static const struct opt *find_short(const struct opt *const *all, int n, char c)
{
	for (int i = 0; i < n; i++)
		if ((all[i]->where & OPT_CLI) && all[i]->short_name == c)
			return all[i];
	return NULL;
}

static int unknown_option(const struct opt_set *s, const struct opt *const *all, int n,
			  const char *arg)
{
	const char *names[MAX_OPTS * 2 + 1];
	char spelled[MAX_OPTS * 2][64];
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (!(all[i]->where & OPT_CLI) || (all[i]->where & OPT_HIDDEN))
			continue;
		snprintf(spelled[k], sizeof spelled[k], "--%s", all[i]->name);
		names[k] = spelled[k];
		k++;
		if (all[i]->type == OPT_BOOL) {
			snprintf(spelled[k], sizeof spelled[k], "--no-%s", all[i]->name);
			names[k] = spelled[k];
			k++;
		}
	}
	names[k++] = "--help";
	char word[128], dym[128];
	snprintf(word, sizeof word, "%.*s", (int)strcspn(arg, "="), arg);
	return usage_error(s->cmd, "unknown option '%s'%s", word,
			   opts_did_you_mean(opts_suggest(word, names, k), dym, sizeof dym));
}

/* One option at argv[*i] (already known to start with '-'). */
static int parse_one(const struct opt_set *s, const struct opt *const *all, int n,
		     const char *usage, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *value = NULL;
	const struct opt *o;
	bool negated = false;
	char name[128];
	if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
		opts_help(s, usage, stdout);
		return -1;
	}
	if (arg[1] == '-') {
		const char *eq = strchr(arg, '=');
		snprintf(name, sizeof name, "%.*s", (int)(eq ? (size_t)(eq - arg - 2) : strlen(arg + 2)),
			 arg + 2);
		if (eq)
			value = eq + 1;
		o = find_long(all, n, name, &negated);
	} else {
		o = arg[2] ? NULL : find_short(all, n, arg[1]);
		snprintf(name, sizeof name, "%s", o ? o->name : arg + 1);
	}
	if (!o)
		return unknown_option(s, all, n, arg);
	o = resolve_alias(all, n, o);
	bool takes = o->type != OPT_FLAG && o->type != OPT_BOOL;
	if (!takes) {
		if (value)
			return usage_error(s->cmd, "--%s takes no value", o->name);
		if (o->type == OPT_FLAG)
			*(bool *)field(s, o) = true;
		else
			*(int *)field(s, o) = !negated;
		return 0;
	}
	if (!value) {
		if (*i + 1 >= argc)
			return usage_error(s->cmd, "--%s needs a value (%s)", o->name,
					   o->arg ? o->arg : "VALUE");
		value = argv[++*i];
	}
	char why[512];
	if (!set_text(s, o, value, why, sizeof why))
		return usage_error(s->cmd, "--%s %s: expected %s", o->name, value, why);
	return 0;
}

int opts_parse(const struct opt_set *s, const char *usage, int argc, char **argv,
	       char **pos, int maxpos, int *npos)
{
	const struct opt *all[MAX_OPTS];
	int n = collect(s, all), rc;
	bool only_pos = false;
	*npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!only_pos && !strcmp(a, "--")) {
			only_pos = true;
		} else if (!only_pos && a[0] == '-' && a[1]) {
			if ((rc = parse_one(s, all, n, usage, argc, argv, &i)))
				return rc;
		} else {
			if (*npos == maxpos)
				return usage_error(s->cmd, "unexpected argument '%s'", a);
			pos[(*npos)++] = argv[i];
		}
	}
	return 0;
}

/* ---- help and markdown ------------------------------------------------------------- */

/* "--name VALUE" (or "-o, --output FILE", "--[no-]name") into buf. */
static const char *spelling(const struct opt *o, char *buf, size_t n)
{
	char arg[160] = "";
	if (o->type == OPT_CHOICE && o->choice) {
		size_t k = 0;
		for (int i = 0; o->choice(i) && k < sizeof arg - 1; i++)
			k += (size_t)snprintf(arg + k, sizeof arg - k, "%s%s", i ? "|" : "", o->choice(i));
	} else if (o->type != OPT_FLAG && o->type != OPT_BOOL) {
		snprintf(arg, sizeof arg, "%s", o->arg ? o->arg : "VALUE");
	}
	char sh[8] = "";
	if (o->short_name)
		snprintf(sh, sizeof sh, "-%c, ", o->short_name);
	snprintf(buf, n, "%s--%s%s%s%s", sh, o->type == OPT_BOOL ? "[no-]" : "", o->name,
		 *arg ? " " : "", arg);
	return buf;
}

static bool shown(const struct opt *o)
{
	return (o->where & OPT_CLI) && !(o->where & OPT_HIDDEN);
}

void opts_help(const struct opt_set *s, const char *usage, FILE *f)
{
	const struct opt *all[MAX_OPTS];
	int n = collect(s, all);
	char sp[256];
	fputs(usage, f);
	if (usage[0] && usage[strlen(usage) - 1] != '\n')
		fputc('\n', f);
	fputs("\noptions:\n", f);
	for (int i = 0; i < n; i++) {
		if (!shown(all[i]))
			continue;
		spelling(all[i], sp, sizeof sp);
		int w = (int)strlen(sp) > 26 ? 0 : 26 - (int)strlen(sp);
		fprintf(f, "  %s%*s %s", sp, w, "", all[i]->help);
		const char *d = default_of(s, all[i]);
		if (d && all[i]->type != OPT_FLAG)
			fprintf(f, " (default %s)", d);
		fputc('\n', f);
	}
	fprintf(f, "  %-26s %s\n", "-h, --help", "this text");
}

void opts_markdown(const struct opt_set *s, FILE *f)
{
	const struct opt *all[MAX_OPTS];
	int n = collect(s, all);
	char sp[256];
	for (int i = 0; i < n; i++) {
		if (!shown(all[i]))
			continue;
		char key[64] = "";
		if (all[i]->where & OPT_SPEC) {
			snprintf(key, sizeof key, "`%s`", all[i]->name);
			for (char *c = key; *c; c++)
				if (*c == '-')
					*c = '_';
		}
		const char *d = default_of(s, all[i]);
		char esc[512];
		size_t k = 0;   /* a '|' inside a table cell must be escaped */
		for (const char *c = spelling(all[i], sp, sizeof sp); *c && k < sizeof esc - 2; c++) {
			if (*c == '|')
				esc[k++] = '\\';
			esc[k++] = *c;
		}
		esc[k] = 0;
		fprintf(f, "| `%s` | %s | %s | %s |\n", esc,
			d && all[i]->type != OPT_FLAG ? d : "",
			*key ? key : "", all[i]->help);
	}
}

/* ---- sweep specs and result rows ----------------------------------------------------- */

static void spec_key(const struct opt *o, char *buf, size_t n)
{
	snprintf(buf, n, "%s", o->name);
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
}

static enum status json_value(const struct opt_set *s, const struct opt *o, const json_t *v,
			      const char *where, const char *key, struct error *err)
{
	char why[512], text[64];
	void *f = field(s, o);
	switch (o->type) {
	case OPT_FLAG:
	case OPT_BOOL:
		if (!json_is_boolean(v))
			return err_set(err, "%s: %s: expected true or false", where, key);
		if (o->type == OPT_FLAG)
			*(bool *)f = json_is_true(v);
		else
			*(int *)f = json_is_true(v);
		return STATUS_OK;
	case OPT_INT:
	case OPT_SEED:
		if (!json_is_integer(v))
			goto expected;
		snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case OPT_NUMBER:
		if (!json_is_number(v))
			goto expected;
		snprintf(text, sizeof text, "%.17g", json_number_value(v));
		break;
	case OPT_STRING:
	case OPT_CHOICE:
		if (!json_is_string(v))
			goto expected;
		if (!set_text(s, o, json_string_value(v), why, sizeof why))
			return err_set(err, "%s: %s: expected %s", where, key, why);
		return STATUS_OK;
	case OPT_LIST:
		if (!json_is_array(v) || json_array_size(v) > OPT_LIST_MAX)
			return err_set(err, "%s: %s: expected a list of at most %d strings", where, key,
				       OPT_LIST_MAX);
		((struct opt_list *)f)->n = 0;
		for (size_t i = 0; i < json_array_size(v); i++) {
			const char *x = json_string_value(json_array_get(v, i));
			if (!x)
				return err_set(err, "%s: %s: entry %zu: expected a string", where, key, i);
			set_text(s, o, x, why, sizeof why);
		}
		return STATUS_OK;
	}
	if (set_text(s, o, text, why, sizeof why))
		return STATUS_OK;
	return err_set(err, "%s: %s: expected %s", where, key, why);
expected:
	return err_set(err, "%s: %s: expected %s", where, key, expectation(o, why, sizeof why));
}

enum status opts_from_json(const struct opt_set *s, const json_t *obj, const char *where,
			   struct error *err)
{
	const struct opt *all[MAX_OPTS];
	int n = collect(s, all);
	const char *k;
	json_t *v;
	if (!json_is_object(obj))
		return err_set(err, "%s: expected an object", where);
	json_object_foreach((json_t *)obj, k, v) {
		const struct opt *o = NULL;
		char key[64];
		for (int i = 0; i < n && !o; i++) {
			spec_key(all[i], key, sizeof key);
			if ((all[i]->where & OPT_SPEC) && !strcmp(key, k))
				o = resolve_alias(all, n, all[i]);
		}
		if (!o) {
			const char *names[MAX_OPTS];
			char spelled[MAX_OPTS][64], dym[128];
			int m = 0;
			for (int i = 0; i < n; i++)
				if ((all[i]->where & OPT_SPEC) && !(all[i]->where & OPT_HIDDEN))
					spec_key(all[i], spelled[m], sizeof spelled[m]), names[m] = spelled[m], m++;
			return err_set(err, "%s.%s: unknown key%s", where, k,
				       opts_did_you_mean(opts_suggest(k, names, m), dym, sizeof dym));
		}
		if (json_value(s, o, v, where, k, err))
			return STATUS_ERROR;
	}
	return STATUS_OK;
}

json_t *opts_to_json(const struct opt_set *s)
{
	const struct opt *all[MAX_OPTS];
	int n = collect(s, all);
	json_t *out = json_object();
	for (int i = 0; out && i < n; i++) {
		const struct opt *o = all[i];
		if (!(o->where & OPT_SPEC) || o->alias_of)
			continue;
		char key[64];
		spec_key(o, key, sizeof key);
		const void *f = field(s, o);
		json_t *v = NULL;
		switch (o->type) {
		case OPT_FLAG: v = json_boolean(*(const bool *)f); break;
		case OPT_BOOL: v = *(const int *)f < 0 ? json_null() : json_boolean(*(const int *)f); break;
		case OPT_INT: v = json_integer(*(const long *)f); break;
		case OPT_NUMBER: v = json_real(*(const double *)f); break;
		case OPT_SEED: v = json_integer((json_int_t)*(const uint64_t *)f); break;
		case OPT_STRING:
		case OPT_CHOICE: {
			const char *x = *(const char *const *)f;
			v = x ? json_string(x) : json_null();
			break;
		}
		case OPT_LIST: {
			const struct opt_list *l = f;
			v = json_array();
			for (int k = 0; k < l->n; k++)
				json_array_append_new(v, json_string(l->v[k]));
			break;
		}
		}
		json_object_set_new(out, key, v);
	}
	return out;
}

/* ---- names ------------------------------------------------------------------------- */

/* Edit distance with adjacent transpositions (optimal string alignment:
 * "glkp" is one edit from "glpk"): the "did you mean" measure. */
static int distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > 63 || nb > 63)
		return 99;
	int d[64][64];
	for (size_t i = 0; i <= na; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[na][nb];
}

const char *opts_suggest(const char *word, const char *const *names, int n)
{
	const char *best = NULL;
	int bd = 99, len = (int)strlen(word);
	/* close enough to be a typo: 1 edit in short words, up to 3 in long ones */
	int cap = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	for (int i = 0; i < n; i++) {
		int d = distance(word, names[i]);
		/* a prefix ("--time" for "--time-limit") is a likely intent too */
		if (d > cap && !strncmp(names[i], word, (size_t)len) && len >= 3)
			d = cap;
		if (d < bd && d <= cap && d > 0) {
			bd = d;
			best = names[i];
		}
	}
	return best;
}

const char *opts_suggest_fn(const char *word, const char *(*name_at)(int i))
{
	const char *names[256];
	int n = 0;
	while (n < 256 && name_at(n)) {
		names[n] = name_at(n);
		n++;
	}
	return opts_suggest(word, names, n);
}

const char *opts_did_you_mean(const char *suggestion, char *buf, size_t n)
{
	if (!suggestion)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, " (did you mean '%s'?)", suggestion);
	return buf;
}

const char *opts_names(const char *(*name_at)(int i), char *buf, size_t n)
{
	int count = 0;
	while (name_at(count))
		count++;
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < count && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", i == 0 ? "" : i == count - 1 ? " or " : ", ",
				      name_at(i));
	return buf;
}

/* ---- the shared vocabulary --------------------------------------------------------- */

#define RUN_OFF(f) offsetof(struct run_opts, f)

const struct opt run_opts_json[] = {
	{.name = "json", .type = OPT_FLAG, .help = "print one JSON object on stdout",
	 .offset = RUN_OFF(json), .where = OPT_CLI},
	{0}};

const struct opt run_opts_output[] = {
	{.name = "output", .short_name = 'o', .type = OPT_STRING, .arg = "FILE",
	 .help = "write the result to FILE ('-': stdout; the format from the extension)",
	 .offset = RUN_OFF(output), .where = OPT_CLI},
	{0}};

const struct opt run_opts_threads[] = {
	{.name = "threads", .type = OPT_INT, .arg = "N", .dflt = "all cores", .lo = 1, .hi = 256,
	 .help = "threads to use", .offset = RUN_OFF(threads), .where = OPT_BOTH},
	{0}};

const struct opt run_opts_time_limit[] = {
	{.name = "time-limit", .type = OPT_NUMBER, .arg = "S", .dflt = "none", .lo = 1e-3, .hi = 1e7,
	 .help = "wall-clock seconds for the whole command", .offset = RUN_OFF(time_limit),
	 .where = OPT_BOTH},
	{0}};

const struct opt run_opts_progress[] = {
	{.name = "progress", .type = OPT_BOOL, .dflt = "when stderr is a terminal",
	 .help = "progress lines on stderr", .offset = RUN_OFF(progress), .where = OPT_CLI},
	{0}};

const struct opt run_opts_timeline[] = {
	{.name = "timeline", .type = OPT_BOOL, .dflt = "true", .help = "print the ASCII timeline",
	 .offset = RUN_OFF(timeline), .where = OPT_CLI},
	{.name = "width", .type = OPT_INT, .arg = "N", .dflt = "100", .lo = 20, .hi = 1000,
	 .help = "timeline width in columns", .offset = RUN_OFF(width), .where = OPT_CLI},
	{0}};

int run_opts_threads_value(const struct run_opts *r)
{
	if (r->threads > 0)
		return (int)r->threads;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores < 1 ? 1 : cores > 256 ? 256 : (int)cores;
}

bool run_opts_progress_on(const struct run_opts *r)
{
	if (r->progress >= 0)
		return r->progress == 1;
	return !r->json && isatty(2);
}
