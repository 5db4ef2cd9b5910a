/*
 * The schedule language: lexer and parser (see lang.h, docs/language.md).
 *
 * Grammar (braces delimit blocks; newlines are white space; '#' comments):
 *
 *   program  := { stmt }
 *   stmt     := 'family' WORD [STRING]        name and one-line summary
 *             | 'supports' STRING             which instances, in words
 *             | 'pad'                         ops past micro-batch m-1 are
 *                                             dropped, not an error
 *             | 'require' expr 'else' STRING  refuse the instance unless expr
 *             | 'let' NAME '=' expr
 *             | 'def' NAME '(' NAME {',' NAME} ')' '=' expr
 *             | 'repeat' expr block
 *             | 'for' NAME 'in' expr '..' expr block      (half-open range)
 *             | 'if' expr block ['else' (block | if-stmt)]
 *             | ('F' | 'B' | 'W') ['[' expr ']']          op on a chunk
 *   block    := '{' { stmt } '}'
 *   expr     := or-expression over integers: 'or' 'and' 'not',
 *               == != < <= > >=, + -, * / % (floor division), unary -,
 *               numbers, names, calls f(a, ...), parentheses.
 *
 * Names resolve when parsed: inside a def body its parameters first, then
 * built-in variables (p, d, m, v, L, ...) and names a let or for has
 * introduced earlier in the text. Variables are global to the program; a def is an expression with
 * parameters.
 */
#include "sched/lang.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "sched/lang_ast.h"

/* Built-in variables, in slot order. */
static const char *const builtin_vars[] = {
	"p",           /* devices */
	"d",           /* this device */
	"m",           /* micro-batches */
	"v",           /* stages on this device (its chunks) */
	"L",           /* stages */
	"chunks",      /* the instance's chunks value */
	"vmin",        /* fewest stages on any device */
	"vmax",        /* most stages on any device */
	"split",       /* 1 if the backward is split (W exists) */
	"chain",       /* 1 if the stage DAG is the chain 0 -> ... -> L-1 */
	"linear",      /* placement kinds, 1 or 0 */
	"interleaved",
	"vshape",
	"listed",
	"dual",        /* 1 if the stage DAG is two chains, 0 -> ... -> L/2-1 and
	                  L/2 -> ... -> L-1 (DualPipe's and BitPipe's two copies
	                  of the model) */
	NULL};
/* ---- lexer ------------------------------------------------------------------ */

struct parser {
	const char *src, *pos, *source;
	int line, col;
	enum tok tok;
	int tline, tcol;           /* where the current token starts */
	int64_t num;
	char text[256];            /* T_NAME, T_STRING */
	struct program *pg;
	struct error *err;
	int failed;
	int depth;                 /* nesting of expressions and blocks */
	/* def parameters in scope while parsing a def body */
	const char *const *param_names;
	const int *param_slots;
	int nparams;
};

static enum status perr(struct parser *ps, int line, int col, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));

static enum status perr(struct parser *ps, int line, int col, const char *fmt,
			...)
{
	char what[320];
	va_list ap;
	if (ps->failed)
		return STATUS_ERROR;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	ps->failed = 1;
	return err_set(ps->err, "schedule program '%s': line %d, column %d: %s",
		       ps->source, line, col, what);
}

static void advance_char(struct parser *ps)
{
	if (*ps->pos == '\n') {
		ps->line++;
		ps->col = 1;
	} else {
		ps->col++;
	}
	ps->pos++;
}

static void skip_space(struct parser *ps)
{
	for (;;) {
		while (*ps->pos && isspace((unsigned char)*ps->pos))
			advance_char(ps);
		if (*ps->pos != '#')
			return;
		while (*ps->pos && *ps->pos != '\n')
			advance_char(ps);
	}
}

static enum status lex_string(struct parser *ps)
{
	size_t n = 0;
	advance_char(ps);   /* opening quote */
	while (*ps->pos && *ps->pos != '"' && *ps->pos != '\n') {
		char c = *ps->pos;
		if (c == '\\' && (ps->pos[1] == '"' || ps->pos[1] == '\\')) {
			advance_char(ps);
			c = *ps->pos;
		}
		if (n + 1 >= sizeof ps->text)
			return perr(ps, ps->tline, ps->tcol, "string longer than %zu characters",
				    sizeof ps->text - 1);
		ps->text[n++] = c;
		advance_char(ps);
	}
	if (*ps->pos != '"')
		return perr(ps, ps->tline, ps->tcol, "string not closed on its line");
	advance_char(ps);
	ps->text[n] = 0;
	ps->tok = T_STRING;
	return STATUS_OK;
}

static enum status lex_number(struct parser *ps)
{
	int64_t v = 0;
	while (isdigit((unsigned char)*ps->pos)) {
		int digit = *ps->pos - '0';
		if (v > (INT64_MAX - digit) / 10)
			return perr(ps, ps->tline, ps->tcol, "number too large");
		v = v * 10 + digit;
		advance_char(ps);
	}
	if (isalpha((unsigned char)*ps->pos) || *ps->pos == '_')
		return perr(ps, ps->tline, ps->tcol, "a name cannot start with a digit");
	ps->num = v;
	ps->tok = T_INT;
	return STATUS_OK;
}

static enum status lex_name(struct parser *ps)
{
	size_t n = 0;
	while (isalnum((unsigned char)*ps->pos) || *ps->pos == '_') {
		if (n + 1 >= sizeof ps->text)
			return perr(ps, ps->tline, ps->tcol, "name too long");
		ps->text[n++] = *ps->pos;
		advance_char(ps);
	}
	ps->text[n] = 0;
	ps->tok = T_NAME;
	return STATUS_OK;
}

/* Two-character operators first, then one-character ones. */
static const struct {
	const char *s;
	enum tok t;
} puncts[] = {
	{"==", T_EQ}, {"!=", T_NE}, {"<=", T_LE}, {">=", T_GE}, {"..", T_DOTDOT},
	{"{", T_LBRACE}, {"}", T_RBRACE}, {"[", T_LBRACK}, {"]", T_RBRACK},
	{"(", T_LPAREN}, {")", T_RPAREN}, {",", T_COMMA}, {"=", T_ASSIGN},
	{"<", T_LT}, {">", T_GT}, {"+", T_PLUS}, {"-", T_MINUS}, {"*", T_STAR},
	{"/", T_SLASH}, {"%", T_PERCENT}, {"&", T_AMP},
};

static enum status next(struct parser *ps)
{
	if (ps->failed)
		return STATUS_ERROR;
	skip_space(ps);
	ps->tline = ps->line;
	ps->tcol = ps->col;
	char c = *ps->pos;
	if (!c) {
		ps->tok = T_EOF;
		return STATUS_OK;
	}
	if (c == '"')
		return lex_string(ps);
	if (isdigit((unsigned char)c))
		return lex_number(ps);
	if (isalpha((unsigned char)c) || c == '_')
		return lex_name(ps);
	for (size_t i = 0; i < sizeof puncts / sizeof puncts[0]; i++) {
		size_t k = strlen(puncts[i].s);
		if (!strncmp(ps->pos, puncts[i].s, k)) {
			for (size_t j = 0; j < k; j++)
				advance_char(ps);
			ps->tok = puncts[i].t;
			return STATUS_OK;
		}
	}
	if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
		return perr(ps, ps->line, ps->col, "unexpected byte 0x%02x",
			    (unsigned char)c);
	return perr(ps, ps->line, ps->col, "unexpected character '%c'", c);
}

static bool is_name(const struct parser *ps, const char *word)
{
	return ps->tok == T_NAME && !strcmp(ps->text, word);
}

static const char *tok_desc(const struct parser *ps)
{
	static const char *const names[] = {
		"end of file", "a number", "a name", "a string", "'{'", "'}'", "'['",
		"']'", "'('", "')'", "','", "'='", "'=='", "'!='", "'<'", "'<='",
		"'>'", "'>='", "'+'", "'-'", "'*'", "'/'", "'%'", "'..'", "'&'"};
	return names[ps->tok];
}

static enum status expect(struct parser *ps, enum tok t, const char *what)
{
	if (ps->tok != t)
		return perr(ps, ps->tline, ps->tcol, "expected %s, got %s", what,
			    ps->tok == T_NAME ? ps->text : tok_desc(ps));
	return next(ps);
}

/* ---- names ------------------------------------------------------------------- */

static const char *const keywords[] = {
	"family", "supports", "pad", "require", "else", "let", "def", "repeat", "for",
	"in", "if", "and", "or", "not", "true", "false", "F", "B", "W", NULL};

static bool is_keyword(const char *s)
{
	for (int i = 0; keywords[i]; i++)
		if (!strcmp(s, keywords[i]))
			return true;
	return false;
}

static int add_slot(struct program *pg, const char *name)
{
	if (pg->nslots == pg->slot_cap) {
		int cap = pg->slot_cap ? 2 * pg->slot_cap : 32;
		char **n = realloc(pg->slot_names, cap * sizeof *n);
		if (!n)
			return -1;
		pg->slot_names = n;
		pg->slot_cap = cap;
	}
	pg->slot_names[pg->nslots] = name ? strdup(name) : NULL;
	return pg->nslots++;
}

static int find_slot(const struct program *pg, const char *name)
{
	for (int i = 0; i < pg->nslots; i++)
		if (pg->slot_names[i] && !strcmp(pg->slot_names[i], name))
			return i;
	return -1;
}

static int find_def(const struct program *pg, const char *name)
{
	for (int i = 0; i < pg->ndefs; i++)
		if (!strcmp(pg->defs[i].name, name))
			return i;
	return -1;
}

/* Slot of a name used in an expression, or -1. */
static int resolve(const struct parser *ps, const char *name)
{
	for (int i = 0; i < ps->nparams; i++)
		if (!strcmp(ps->param_names[i], name))
			return ps->param_slots[i];
	return find_slot(ps->pg, name);
}

/* ---- expressions ------------------------------------------------------------ */

static struct expr *new_expr(struct parser *ps, enum expr_type t, int line,
			     int col)
{
	struct expr *e = calloc(1, sizeof *e);
	if (!e) {
		perr(ps, line, col, "out of memory");
		return NULL;
	}
	e->type = t;
	e->line = line;
	e->col = col;
	return e;
}

static void expr_free(struct expr *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nargs; i++)
		expr_free(e->args[i]);
	free(e->args);
	free(e);
}

static int add_arg(struct expr *e, struct expr *a)
{
	struct expr **n = realloc(e->args, (e->nargs + 1) * sizeof *n);
	if (!n) {
		expr_free(a);
		return -1;
	}
	e->args = n;
	e->args[e->nargs++] = a;
	return 0;
}

static struct expr *parse_expr(struct parser *ps);

static const struct {
	const char *name;
	enum builtin fn;
	int min_args, max_args;
} builtin_fns[] = {
	{"min", FN_MIN, 1, 16}, {"max", FN_MAX, 1, 16}, {"abs", FN_ABS, 1, 1},
	{"cdiv", FN_CDIV, 2, 2}, {"if", FN_IF, 3, 3}, {"stage", FN_STAGE, 1, 1},
	{"depth", FN_DEPTH, 1, 1},
};

/* Index of a built-in function, or -1. */
static int builtin_fn(const char *name)
{
	for (size_t i = 0; i < sizeof builtin_fns / sizeof builtin_fns[0]; i++)
		if (!strcmp(builtin_fns[i].name, name))
			return (int)i;
	return -1;
}

static struct expr *parse_call(struct parser *ps, const char *name, int line,
			       int col)
{
	struct expr *e = new_expr(ps, E_CALL, line, col);
	int lo = 0, hi = 0, def = find_def(ps->pg, name);
	if (!e)
		return NULL;
	e->fn = FN_USER;
	e->def = def;
	for (size_t i = 0; i < sizeof builtin_fns / sizeof builtin_fns[0]; i++)
		if (!strcmp(builtin_fns[i].name, name)) {
			e->fn = builtin_fns[i].fn;
			lo = builtin_fns[i].min_args;
			hi = builtin_fns[i].max_args;
		}
	if (e->fn == FN_USER) {
		if (def < 0) {
			perr(ps, line, col, "unknown function '%s'", name);
			expr_free(e);
			return NULL;
		}
		lo = hi = ps->pg->defs[def].nparams;
	}
	if (next(ps)) {   /* '(' */
		expr_free(e);
		return NULL;
	}
	if (ps->tok != T_RPAREN) {
		for (;;) {
			struct expr *a = parse_expr(ps);
			if (!a || add_arg(e, a)) {
				expr_free(e);
				return NULL;
			}
			if (ps->tok != T_COMMA)
				break;
			if (next(ps)) {
				expr_free(e);
				return NULL;
			}
		}
	}
	if (expect(ps, T_RPAREN, "')' or ','")) {
		expr_free(e);
		return NULL;
	}
	if (e->nargs < lo || e->nargs > hi) {
		perr(ps, line, col, "%s() takes %d%s%s argument%s, got %d", name, lo,
		     hi > lo ? " to " : "", hi > lo ? (hi == 16 ? "16" : "more") : "",
		     hi == 1 ? "" : "s", e->nargs);
		expr_free(e);
		return NULL;
	}
	return e;
}

#define MAX_NESTING 200

static struct expr *parse_primary_at(struct parser *ps);

/* Nesting is bounded, so a hostile file cannot exhaust the stack. */
static struct expr *parse_primary(struct parser *ps)
{
	if (ps->depth >= MAX_NESTING) {
		perr(ps, ps->tline, ps->tcol, "expression nested more than %d deep", MAX_NESTING);
		return NULL;
	}
	ps->depth++;
	struct expr *e = parse_primary_at(ps);
	ps->depth--;
	return e;
}

static struct expr *parse_primary_at(struct parser *ps)
{
	int line = ps->tline, col = ps->tcol;
	if (ps->tok == T_INT) {
		struct expr *e = new_expr(ps, E_NUM, line, col);
		if (e)
			e->num = ps->num;
		if (e && next(ps)) {
			expr_free(e);
			return NULL;
		}
		return e;
	}
	if (ps->tok == T_LPAREN) {
		if (next(ps))
			return NULL;
		struct expr *e = parse_expr(ps);
		if (e && expect(ps, T_RPAREN, "')'")) {
			expr_free(e);
			return NULL;
		}
		return e;
	}
	if (ps->tok == T_MINUS || is_name(ps, "not")) {
		enum expr_type t = ps->tok == T_MINUS ? E_NEG : E_NOT;
		if (next(ps))
			return NULL;
		struct expr *a = parse_primary(ps);
		if (!a)
			return NULL;
		struct expr *e = new_expr(ps, t, line, col);
		if (!e || add_arg(e, a)) {
			if (!e)
				expr_free(a);
			expr_free(e);
			return NULL;
		}
		return e;
	}
	if (ps->tok == T_NAME) {
		char name[256];
		snprintf(name, sizeof name, "%s", ps->text);
		if (!strcmp(name, "true") || !strcmp(name, "false")) {
			struct expr *e = new_expr(ps, E_NUM, line, col);
			if (e)
				e->num = !strcmp(name, "true");
			if (e && next(ps)) {
				expr_free(e);
				return NULL;
			}
			return e;
		}
		if (next(ps))
			return NULL;
		if (ps->tok == T_LPAREN)
			return parse_call(ps, name, line, col);
		if (is_keyword(name)) {
			perr(ps, line, col, "expected a value, got '%s'", name);
			return NULL;
		}
		int slot = resolve(ps, name);
		if (slot < 0) {
			perr(ps, line, col, "unknown name '%s' (not a built-in variable, nor set by an earlier let or for)",
			     name);
			return NULL;
		}
		struct expr *e = new_expr(ps, E_VAR, line, col);
		if (e)
			e->slot = slot;
		return e;
	}
	perr(ps, line, col, "expected a value, got %s", tok_desc(ps));
	return NULL;
}

/* Binary operator precedence: higher binds tighter; 0 = not binary. */
static int precedence(const struct parser *ps)
{
	switch (ps->tok) {
	case T_STAR: case T_SLASH: case T_PERCENT: return 6;
	case T_PLUS: case T_MINUS: return 5;
	case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE: return 4;
	case T_NAME:
		if (!strcmp(ps->text, "and"))
			return 3;
		if (!strcmp(ps->text, "or"))
			return 2;
		return 0;
	default: return 0;
	}
}

/* Precedence climbing; `and` / `or` are coded as tokens -1 / -2. */
static struct expr *parse_binary(struct parser *ps, int min_prec)
{
	struct expr *lhs = parse_primary(ps);
	int prec;
	while (lhs && (prec = precedence(ps)) >= min_prec && prec > 0) {
		int op = ps->tok == T_NAME ? (ps->text[0] == 'a' ? -1 : -2) : (int)ps->tok;
		int line = ps->tline, col = ps->tcol;
		if (next(ps)) {
			expr_free(lhs);
			return NULL;
		}
		struct expr *rhs = parse_binary(ps, prec + 1);
		struct expr *e = rhs ? new_expr(ps, E_BIN, line, col) : NULL;
		if (!e) {
			expr_free(lhs);
			expr_free(rhs);
			return NULL;
		}
		e->op = op;
		if (add_arg(e, lhs) || add_arg(e, rhs)) {
			expr_free(e);
			return NULL;
		}
		lhs = e;
	}
	return lhs;
}

static struct expr *parse_expr(struct parser *ps)
{
	return parse_binary(ps, 1);
}

/* ---- statements -------------------------------------------------------------- */

static void block_free(struct block *b);

static void stmt_free(struct stmt *s)
{
	if (!s)
		return;
	expr_free(s->a);
	expr_free(s->b);
	free(s->message);
	block_free(s->body);
	block_free(s->other);
	free(s);
}

static void block_free(struct block *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->n; i++)
		stmt_free(b->stmts[i]);
	free(b->stmts);
	free(b);
}

static int block_add(struct block *b, struct stmt *s)
{
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 8;
		struct stmt **n = realloc(b->stmts, cap * sizeof *n);
		if (!n)
			return -1;
		b->stmts = n;
		b->cap = cap;
	}
	b->stmts[b->n++] = s;
	return 0;
}

static struct stmt *parse_stmt(struct parser *ps, bool top);

static struct block *parse_block(struct parser *ps)
{
	if (ps->depth >= MAX_NESTING) {
		perr(ps, ps->tline, ps->tcol, "blocks nested more than %d deep", MAX_NESTING);
		return NULL;
	}
	if (expect(ps, T_LBRACE, "'{'"))
		return NULL;
	ps->depth++;
	struct block *b = calloc(1, sizeof *b);
	if (!b) {
		perr(ps, ps->tline, ps->tcol, "out of memory");
		return NULL;
	}
	while (ps->tok != T_RBRACE) {
		if (ps->tok == T_EOF) {
			perr(ps, ps->tline, ps->tcol, "expected '}' before the end of the file");
			break;
		}
		struct stmt *s = parse_stmt(ps, false);
		if (ps->failed) {
			/* a statement is whole when the token after it fails */
			stmt_free(s);
			break;
		}
		if (s && block_add(b, s)) {
			stmt_free(s);
			perr(ps, ps->tline, ps->tcol, "out of memory");
			break;
		}
	}
	ps->depth--;
	if (ps->failed || next(ps)) {
		block_free(b);
		return NULL;
	}
	return b;
}

static struct stmt *new_stmt(struct parser *ps, enum stmt_type t, int line,
			     int col)
{
	struct stmt *s = calloc(1, sizeof *s);
	if (!s)
		perr(ps, line, col, "out of memory");
	else {
		s->type = t;
		s->line = line;
		s->col = col;
	}
	return s;
}

/* The slot of a variable that let or for sets: introduced if new. */
static int name_slot(struct parser *ps, const char *name, int line, int col)
{
	if (is_keyword(name) || find_def(ps->pg, name) >= 0) {
		perr(ps, line, col, "'%s' is a keyword or function, not a variable", name);
		return -1;
	}
	int slot = find_slot(ps->pg, name);
	if (slot >= 0 && slot < V_BUILTINS) {
		perr(ps, line, col, "'%s' is a built-in variable and cannot be set", name);
		return -1;
	}
	if (slot < 0 && (slot = add_slot(ps->pg, name)) < 0)
		perr(ps, line, col, "out of memory");
	return slot;
}

/* family WORD ["summary"]: the name may hold letters, digits, '-', '_'. */
static struct stmt *parse_family(struct parser *ps, int line, int col)
{
	skip_space(ps);
	const char *p = ps->pos;
	size_t n = 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '-' || p[n] == '_')
		n++;
	if (n == 0 || n > 64) {
		perr(ps, ps->line, ps->col, "expected a family name (letters, digits, '-', '_')");
		return NULL;
	}
	if (ps->pg->name) {
		perr(ps, line, col, "a second 'family' line");
		return NULL;
	}
	ps->pg->name = strndup(p, n);
	for (size_t i = 0; i < n; i++)
		advance_char(ps);
	if (next(ps))
		return NULL;
	if (ps->tok == T_STRING) {
		free(ps->pg->summary);
		ps->pg->summary = strdup(ps->text);
		next(ps);
	}
	return NULL;
}

static struct stmt *parse_def(struct parser *ps, int line, int col)
{
	struct def d = {0};
	const char *names[8];
	char store[8][sizeof ps->text];
	if (ps->tok != T_NAME) {
		perr(ps, ps->tline, ps->tcol, "expected a function name after 'def'");
		return NULL;
	}
	if (is_keyword(ps->text) || resolve(ps, ps->text) >= 0 ||
	    find_def(ps->pg, ps->text) >= 0 || builtin_fn(ps->text) >= 0) {
		perr(ps, ps->tline, ps->tcol, "'%s' is already a keyword, variable or function; a def needs a new name",
		     ps->text);
		return NULL;
	}
	d.name = strdup(ps->text);
	if (next(ps) || expect(ps, T_LPAREN, "'('"))
		goto fail;
	while (ps->tok == T_NAME) {
		if (d.nparams == 8) {
			perr(ps, ps->tline, ps->tcol, "at most 8 parameters");
			goto fail;
		}
		if (is_keyword(ps->text)) {
			perr(ps, ps->tline, ps->tcol, "'%s' is a keyword, not a parameter name", ps->text);
			goto fail;
		}
		for (int i = 0; i < d.nparams; i++)
			if (!strcmp(names[i], ps->text)) {
				perr(ps, ps->tline, ps->tcol, "parameter '%s' appears twice", ps->text);
				goto fail;
			}
		snprintf(store[d.nparams], sizeof store[0], "%s", ps->text);
		names[d.nparams] = store[d.nparams];
		d.params[d.nparams] = add_slot(ps->pg, NULL);
		d.nparams++;
		if (next(ps))
			goto fail;
		if (ps->tok != T_COMMA)
			break;
		if (next(ps))
			goto fail;
	}
	if (expect(ps, T_RPAREN, "')'") || expect(ps, T_ASSIGN, "'='"))
		goto fail;
	ps->param_names = names;
	ps->param_slots = d.params;
	ps->nparams = d.nparams;
	d.body = parse_expr(ps);
	ps->nparams = 0;
	if (!d.body)
		goto fail;
	if (ps->pg->ndefs == ps->pg->def_cap) {
		int cap = ps->pg->def_cap ? 2 * ps->pg->def_cap : 8;
		struct def *n = realloc(ps->pg->defs, cap * sizeof *n);
		if (!n) {
			perr(ps, line, col, "out of memory");
			goto fail;
		}
		ps->pg->defs = n;
		ps->pg->def_cap = cap;
	}
	ps->pg->defs[ps->pg->ndefs++] = d;
	return NULL;
fail:
	free(d.name);
	expr_free(d.body);
	return NULL;
}

static struct stmt *parse_if(struct parser *ps, int line, int col)
{
	struct stmt *s = new_stmt(ps, S_IF, line, col);
	if (!s || !(s->a = parse_expr(ps)) || !(s->body = parse_block(ps))) {
		stmt_free(s);
		return NULL;
	}
	if (is_name(ps, "else")) {
		if (next(ps)) {
			stmt_free(s);
			return NULL;
		}
		if (is_name(ps, "if")) {
			int l2 = ps->tline, c2 = ps->tcol;
			struct block *b = calloc(1, sizeof *b);
			if (!b || next(ps)) {
				free(b);
				stmt_free(s);
				return NULL;
			}
			struct stmt *inner = parse_if(ps, l2, c2);
			if (!inner || block_add(b, inner)) {
				stmt_free(inner);
				block_free(b);
				stmt_free(s);
				return NULL;
			}
			s->other = b;
		} else if (!(s->other = parse_block(ps))) {
			stmt_free(s);
			return NULL;
		}
	}
	return s;
}

/* Returns a statement, or NULL for header lines and defs (check ps->failed). */
/* An op's optional "[chunk]" into *a (NULL: chunk 0). */
static enum status parse_chunk(struct parser *ps, struct expr **a)
{
	if (ps->tok != T_LBRACK)
		return STATUS_OK;
	if (next(ps) || !(*a = parse_expr(ps)) || expect(ps, T_RBRACK, "']'"))
		return STATUS_ERROR;
	return STATUS_OK;
}

/* After "F[a]" at '&': "& B[b]" (or "B[a] & F[b]"), one F and one B. */
static bool parse_pair(struct parser *ps, struct stmt *s)
{
	int line, col;
	if (next(ps))
		return false;
	line = ps->tline;
	col = ps->tcol;
	if (ps->tok != T_NAME || (strcmp(ps->text, "F") && strcmp(ps->text, "B") &&
				  strcmp(ps->text, "W"))) {
		perr(ps, line, col, "expected an op (F or B) after '&', got %s",
		     ps->tok == T_NAME ? ps->text : tok_desc(ps));
		return false;
	}
	s->kind2 = ps->text[0] == 'F' ? OP_F : ps->text[0] == 'B' ? OP_B : OP_W;
	if (!((s->kind == OP_F && s->kind2 == OP_B) || (s->kind == OP_B && s->kind2 == OP_F))) {
		perr(ps, line, col, "an overlapped pair is one F and one B, not %s & %s",
		     op_kind_name(s->kind), op_kind_name(s->kind2));
		return false;
	}
	s->paired = true;
	if (next(ps) || parse_chunk(ps, &s->b))
		return false;
	if (ps->tok == T_AMP) {
		perr(ps, ps->tline, ps->tcol, "an overlapped pair has two ops, not three");
		return false;
	}
	return true;
}

static struct stmt *parse_stmt(struct parser *ps, bool top)
{
	int line = ps->tline, col = ps->tcol;
	struct stmt *s = NULL;
	if (ps->tok != T_NAME) {
		perr(ps, line, col, "expected a statement (F, B, W, repeat, for, if, let, def, require), got %s",
		     tok_desc(ps));
		return NULL;
	}
	char word[32];
	snprintf(word, sizeof word, "%s", ps->text);
	if ((!strcmp(word, "family") || !strcmp(word, "supports") ||
	     !strcmp(word, "def") || !strcmp(word, "pad")) && !top) {
		perr(ps, line, col, "'%s' belongs at the top level, not in a block", word);
		return NULL;
	}
	if (!strcmp(word, "family"))
		return parse_family(ps, line, col);
	if (next(ps))
		return NULL;
	if (!strcmp(word, "F") || !strcmp(word, "B") || !strcmp(word, "W")) {
		s = new_stmt(ps, S_OP, line, col);
		if (!s)
			return NULL;
		s->kind = word[0] == 'F' ? OP_F : word[0] == 'B' ? OP_B : OP_W;
		ps->pg->ops_statements++;
		if (parse_chunk(ps, &s->a)) {
			stmt_free(s);
			return NULL;
		}
		if (ps->tok == T_AMP)   /* "F[a] & B[b]": an overlapped pair */
			return parse_pair(ps, s) ? s : (stmt_free(s), NULL);
		return s;
	}
	if (!strcmp(word, "supports")) {
		if (ps->tok != T_STRING) {
			perr(ps, ps->tline, ps->tcol, "expected a string after 'supports'");
			return NULL;
		}
		free(ps->pg->supports);
		ps->pg->supports = strdup(ps->text);
		next(ps);
		return NULL;
	}
	if (!strcmp(word, "def"))
		return parse_def(ps, line, col);
	if (!strcmp(word, "pad")) {
		ps->pg->pad = true;
		return NULL;
	}
	if (!strcmp(word, "require")) {
		s = new_stmt(ps, S_REQUIRE, line, col);
		if (!s || !(s->a = parse_expr(ps))) {
			stmt_free(s);
			return NULL;
		}
		if (!is_name(ps, "else") || next(ps) || ps->tok != T_STRING) {
			perr(ps, ps->tline, ps->tcol, "expected 'else \"reason\"' after the condition");
			stmt_free(s);
			return NULL;
		}
		s->message = strdup(ps->text);
		next(ps);
		return s;
	}
	if (!strcmp(word, "let")) {
		/* The value is parsed before the name is introduced, so a new
		 * name cannot refer to itself (`let x = x + 1` needs an x). */
		int l2 = ps->tline, c2 = ps->tcol;
		char name[256];
		if (ps->tok != T_NAME) {
			perr(ps, l2, c2, "expected 'let NAME = value'");
			return NULL;
		}
		snprintf(name, sizeof name, "%s", ps->text);
		s = new_stmt(ps, S_LET, line, col);
		if (!s || next(ps) || expect(ps, T_ASSIGN, "'='") ||
		    !(s->a = parse_expr(ps)) ||
		    (s->slot = name_slot(ps, name, l2, c2)) < 0) {
			stmt_free(s);
			return NULL;
		}
		return s;
	}
	if (!strcmp(word, "repeat")) {
		s = new_stmt(ps, S_REPEAT, line, col);
		if (!s || !(s->a = parse_expr(ps)) || !(s->body = parse_block(ps))) {
			stmt_free(s);
			return NULL;
		}
		return s;
	}
	if (!strcmp(word, "for")) {
		/* The range is parsed before the loop variable is introduced, as
		 * for let: `for i in i .. 3` needs an earlier i. */
		int l2 = ps->tline, c2 = ps->tcol;
		char name[256];
		if (ps->tok != T_NAME) {
			perr(ps, l2, c2, "expected 'for NAME in FROM .. TO { ... }'");
			return NULL;
		}
		snprintf(name, sizeof name, "%s", ps->text);
		s = new_stmt(ps, S_FOR, line, col);
		if (!s || next(ps) || !is_name(ps, "in") || next(ps) ||
		    !(s->a = parse_expr(ps)) || expect(ps, T_DOTDOT, "'..'") ||
		    !(s->b = parse_expr(ps)) ||
		    (s->slot = name_slot(ps, name, l2, c2)) < 0 ||
		    !(s->body = parse_block(ps))) {
			if (!ps->failed)
				perr(ps, ps->tline, ps->tcol, "expected 'for NAME in FROM .. TO { ... }'");
			stmt_free(s);
			return NULL;
		}
		return s;
	}
	if (!strcmp(word, "if"))
		return parse_if(ps, line, col);
	perr(ps, line, col, "unknown statement '%s' (expected F, B, W, repeat, for, if, let, def, require)",
	     word);
	return NULL;
}

enum status program_parse(const char *text, const char *source,
			  struct program **out, struct error *err)
{
	struct program *pg = calloc(1, sizeof *pg);
	struct parser ps = {.src = text, .pos = text, .source = source,
			    .line = 1, .col = 1, .pg = pg, .err = err};
	*out = NULL;
	if (!pg)
		return err_set(err, "schedule program '%s': out of memory", source);
	pg->source = strdup(source);
	pg->summary = strdup("");
	pg->supports = strdup("");
	pg->top = calloc(1, sizeof *pg->top);
	for (int i = 0; builtin_vars[i]; i++)
		add_slot(pg, builtin_vars[i]);
	if (!pg->source || !pg->summary || !pg->supports || !pg->top ||
	    pg->nslots != V_BUILTINS) {
		program_free(pg);
		return err_set(err, "schedule program '%s': out of memory", source);
	}
	next(&ps);
	while (!ps.failed && ps.tok != T_EOF) {
		struct stmt *s = parse_stmt(&ps, true);
		if (s && block_add(pg->top, s)) {
			stmt_free(s);
			perr(&ps, ps.tline, ps.tcol, "out of memory");
		}
	}
	if (!ps.failed && pg->ops_statements == 0)
		perr(&ps, ps.line, ps.col, "the program emits no ops (no F, B or W statement)");
	if (ps.failed) {
		program_free(pg);
		return STATUS_ERROR;
	}
	*out = pg;
	return STATUS_OK;
}

enum status program_read(const char *path, struct program **out,
			 struct error *err)
{
	char *text;
	*out = NULL;
	if (file_slurp(path, "schedule program", &text, err))
		return STATUS_ERROR;
	enum status st = program_parse(text, path, out, err);
	free(text);
	return st;
}

void program_free(struct program *pg)
{
	if (!pg)
		return;
	block_free(pg->top);
	for (int i = 0; i < pg->nslots; i++)
		free(pg->slot_names[i]);
	free(pg->slot_names);
	for (int i = 0; i < pg->ndefs; i++) {
		free(pg->defs[i].name);
		expr_free(pg->defs[i].body);
	}
	free(pg->defs);
	free(pg->source);
	free(pg->name);
	free(pg->summary);
	free(pg->supports);
	free(pg);
}

const char *program_name(const struct program *pg) { return pg->name; }
const char *program_summary(const struct program *pg) { return pg->summary; }
const char *program_supports(const struct program *pg) { return pg->supports; }

