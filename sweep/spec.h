/*
 * A sweep's spec (format in sweep/README.md) and its expansion into tasks:
 * points (grid order: the last grid key varies fastest) x methods x
 * repetitions (x seeds for a search). Every point's instance is built and
 * validated while reading, so a bad point fails before anything runs.
 */
#ifndef PIPEOPT_SWEEP_SPEC_H
#define PIPEOPT_SWEEP_SPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "common/options.h"
#include "methods/method.h"

#define SWEEP_MAX_TASKS 1000000

/* A method of the spec: a registered method (methods/method.h) with the
 * settings its option table read from the spec. */
/* Hex digits of a SHA-256 kept in task keys: 48 bits, so two different
 * settings of one method in one results file collide with odds ~1e-14. */
#define SWEEP_DIGEST 12

struct sweep_method {
	char *name;
	const struct method *method;
	void *settings;          /* the method's settings struct (owned) */
	json_t *obj;             /* the spec's settings object; settings borrow its strings */
	json_t *settings_json;   /* every setting, defaults included: recorded in each row */
	char digest[SWEEP_DIGEST + 1];   /* of settings_json (sorted, compact): in the task keys */
	struct run_opts run;     /* time limit (capped by the spec's), threads 1 */
	int nseeds;              /* search: one task per seed; 0 for other methods */
	uint64_t *seeds;
};

struct sweep_point {
	json_t *params;          /* flat dotted keys -> values (owned) */
	char *key;               /* params as compact sorted JSON */
	char *instance;          /* instance JSON text, or NULL for a graph point */
	char *graph;             /* graph path (resolved), or NULL */
	int devices;             /* graph points */
	char digest[SWEEP_DIGEST + 1];   /* of the instance text, or of the graph file */
};

struct sweep_task {
	int point, method, rep;
	bool has_seed;
	uint64_t seed;
	char *key;               /* POINTKEY|METHOD|REP[|SEED]|SETTINGS-INSTANCE (digests) */
};

struct sweep_spec {
	char *name;
	int npoints, nmethods, reps, ntasks;
	int cap;                 /* points allocated */
	struct sweep_point *points;
	struct sweep_method *methods;
	struct sweep_task *tasks;
	double time_limit;       /* cap on every task's solver/search seconds */
};

/* Read and expand; errors name the spec file and key (and the point). */
enum status sweep_spec_read(const char *path, struct sweep_spec **out, struct error *err);
/* The same from text; relative paths resolve against dir. */
enum status sweep_spec_parse(const char *text, const char *source, const char *dir,
			     struct sweep_spec **out, struct error *err);
void sweep_spec_free(struct sweep_spec *s);

#endif
