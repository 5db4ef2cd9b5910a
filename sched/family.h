/*
 * Predefined schedule families. Each builds a schedule for the instances it
 * supports and refuses the others with the reason. This issue brings gpipe
 * and 1f1b; the schedule language brings the rest.
 */
#ifndef PIPEOPT_FAMILY_H
#define PIPEOPT_FAMILY_H

#include "sched/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

struct family {
	const char *name;
	const char *summary;     /* one line for `pipeopt families` */
	const char *supports;    /* which instances, in words */
	enum status (*generate)(const struct instance *in,
				struct schedule **out, struct error *err);
};

/* Registry, in the order `pipeopt families` lists them. */
int family_count(void);
const struct family *family_at(int i);
const struct family *family_find(const char *name);

/* Build family `name` for the instance (a new schedule the caller frees). */
enum status family_generate(const char *name, const struct instance *in,
			    struct schedule **out, struct error *err);

#endif
