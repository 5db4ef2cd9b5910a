#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Messages are one line: control characters copied from input (a key with
 * a newline in it, say) become '?'. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

enum status err_set(struct error *e, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
		one_line(e->msg);
	}
	return STATUS_ERROR;
}

enum status err_prefix(struct error *e, const char *fmt, ...)
{
	if (e) {
		char head[256], old[sizeof e->msg];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(head, sizeof head, fmt, ap);
		va_end(ap);
		memcpy(old, e->msg, sizeof old);
		snprintf(e->msg, sizeof e->msg, "%s: %s", head, old);
		one_line(e->msg);
	}
	return STATUS_ERROR;
}
