#include "common/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int sb_reserve(struct strbuf *sb, size_t extra)
{
	if (sb->failed)
		return 0;
	if (sb->len + extra + 1 <= sb->cap)
		return 1;
	size_t cap = sb->cap ? sb->cap : 256;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	char *b = realloc(sb->buf, cap);
	if (!b) {
		free(sb->buf);
		sb->buf = NULL;
		sb->failed = 1;
		return 0;
	}
	sb->buf = b;
	sb->cap = cap;
	return 1;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sb_reserve(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void sb_putc(struct strbuf *sb, char c)
{
	if (!sb_reserve(sb, 1))
		return;
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = 0;
}

char *sb_finish(struct strbuf *sb)
{
	if (sb->failed)
		return NULL;
	if (!sb->buf && !sb_reserve(sb, 0))
		return NULL;
	return sb->buf;
}
