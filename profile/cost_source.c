/*
 * The cost sources by name (profile.h). A new source is one file defining
 * its struct cost_source and one line here (its entry in the table, with
 * its extern above); the command line's --device and its help and errors
 * read this table.
 */
#include <stdio.h>
#include <string.h>

#include "profile/source.h"

extern const struct cost_source cost_source_analytic;   /* analytic.c */
extern const struct cost_source cost_source_cpu;        /* cpu.c */
extern const struct cost_source cost_source_cuda;       /* cuda_source.c */

static const struct cost_source *const sources[] = {
	&cost_source_analytic,
	&cost_source_cpu,
	&cost_source_cuda,
};

#define NSOURCES ((int)(sizeof sources / sizeof sources[0]))

const struct cost_source *cost_source_find(const char *name)
{
	for (int i = 0; name && i < NSOURCES; i++)
		if (!strcmp(sources[i]->name, name))
			return sources[i];
	return NULL;
}

const struct cost_source *cost_source_at(int i)
{
	return i >= 0 && i < NSOURCES ? sources[i] : NULL;
}

int cost_source_count(void)
{
	return NSOURCES;
}

const char *cost_source_names(char *buf, size_t len)
{
	size_t at = 0;
	if (len)
		buf[0] = 0;
	for (int i = 0; i < NSOURCES && at < len; i++) {
		const struct cost_source *s = sources[i];
		int n = snprintf(buf + at, len - at, "%s%s%s%s", at ? ", " : "", s->name,
				 s->devices ? ":" : "", s->devices ? s->devices : "");
		at += n > 0 ? (size_t)n : 0;
	}
	return buf;
}
