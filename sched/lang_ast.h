/*
 * The schedule language's syntax tree, shared by the parser (lang_parse.c)
 * and the interpreter (lang_run.c). Private to sched/; see lang.h.
 */
#ifndef PIPEOPT_LANG_AST_H
#define PIPEOPT_LANG_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/lang.h"

enum tok {
	T_EOF, T_INT, T_NAME, T_STRING, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK,
	T_LPAREN, T_RPAREN, T_COMMA, T_ASSIGN, T_EQ, T_NE, T_LT, T_LE, T_GT,
	T_GE, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_DOTDOT, T_AMP
};

/* ---- syntax tree ----------------------------------------------------------- */

enum expr_type { E_NUM, E_VAR, E_CALL, E_BIN, E_NOT, E_NEG };
enum builtin {
	FN_USER, FN_MIN, FN_MAX, FN_ABS, FN_CDIV, FN_IF, FN_STAGE, FN_DEPTH
};

struct expr {
	enum expr_type type;
	int line, col;
	int64_t num;               /* E_NUM */
	int slot;                  /* E_VAR */
	int op;                    /* E_BIN: token of the operator */
	enum builtin fn;           /* E_CALL */
	int def;                   /* E_CALL, FN_USER: index into defs */
	int nargs;
	struct expr **args;        /* E_CALL args; E_BIN [a, b]; unary [a] */
};

enum stmt_type { S_LET, S_REQUIRE, S_REPEAT, S_FOR, S_IF, S_OP };

struct stmt {
	enum stmt_type type;
	int line, col;
	int slot;                  /* S_LET, S_FOR */
	int kind;                  /* S_OP */
	bool paired;               /* S_OP "F[a] & B[b]": an overlapped pair,
	                              the second op kind2 on chunk b */
	int kind2;
	struct expr *a, *b;        /* let value / require cond / repeat count /
	                              for range / if cond / op chunk */
	char *message;             /* S_REQUIRE */
	struct block *body, *other;/* repeat, for, if; else branch */
};

struct block {
	struct stmt **stmts;
	int n, cap;
};

struct def {
	char *name;
	int nparams;
	int params[8];             /* slots */
	struct expr *body;
};

enum {
	V_P, V_D, V_M, V_V, V_L, V_CHUNKS, V_VMIN, V_VMAX, V_SPLIT, V_CHAIN,
	V_LINEAR, V_INTERLEAVED, V_VSHAPE, V_LISTED, V_DUAL, V_BUILTINS
};

struct program {
	char *source;
	char *name, *summary, *supports;
	struct block *top;
	char **slot_names;         /* [nslots]; NULL for def parameters */
	int nslots, slot_cap;
	struct def *defs;
	int ndefs, def_cap;
	int ops_statements;        /* how many op statements (for sanity) */
	bool pad;                  /* drop ops numbered m or more */
};

#endif
