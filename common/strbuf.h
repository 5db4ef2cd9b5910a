/* A growable string for the text writers. */
#ifndef PIPEOPT_STRBUF_H
#define PIPEOPT_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, cap;
	int failed;   /* an allocation failed; buf is then freed and NULL */
};

void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_putc(struct strbuf *sb, char c);
/* The string (caller frees), or NULL if any append failed. */
char *sb_finish(struct strbuf *sb);

#endif
