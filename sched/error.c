#include "sched/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum status err_set(struct error *e, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
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
	}
	return STATUS_ERROR;
}
