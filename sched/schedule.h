/*
 * The schedule: per device, the order in which that device runs its ops.
 * Start times are not part of it; the simulator derives them (sim.h).
 *
 * A schedule may be read before it is checked against an instance, so an op
 * holds its kind, stage and micro-batch as plain numbers; sim_run() validates.
 *
 * Ownership: schedule_new() and the readers return a schedule the caller
 * frees with schedule_free().
 */
#ifndef PIPEOPT_SCHEDULE_H
#define PIPEOPT_SCHEDULE_H

#include <jansson.h>
#include <stdint.h>

#include "common/error.h"

struct instance;

struct op {
	int kind;   /* enum op_kind */
	int stage;
	int mb;     /* micro-batch */
};

struct sched_row {
	struct op *ops;
	int len, cap;
};

struct schedule {
	int devices;
	struct sched_row *rows;   /* [devices] */
};

struct schedule *schedule_new(int devices);
void schedule_free(struct schedule *s);

/* Append op to device d's order. */
enum status schedule_push(struct schedule *s, int d, int kind, int stage,
			  int mb);

/* A deep copy; NULL when out of memory. */
struct schedule *schedule_copy(const struct schedule *s);

/* Total number of ops over all devices. */
long schedule_nops(const struct schedule *s);

/* Whether any op is a W (the schedule splits the backward). */
int schedule_has_w(const struct schedule *s);

/*
 * Whether the schedule is shaped for the instance: as many device rows as
 * devices, stages and micro-batches numbered up to exactly the instance's
 * counts, W ops exactly when the instance splits the backward. Fails with
 * the first mismatch in err ("the schedule has 8 micro-batches, the
 * instance 5"), so a schedule for another instance is named as such rather
 * than as a missing op or a memory overflow. Orders, devices of stages and
 * memory are the simulator's (sim_run).
 */
enum status schedule_check_shape(const struct instance *in,
				 const struct schedule *s, struct error *err);

/* Deep equality of orders. */
int schedule_equal(const struct schedule *a, const struct schedule *b);

/* JSON: {"schedule": [[["F",0,0], ...], ...]} (docs/formats.md). Other top-level
 * keys are ignored, so a command's --json result can be read back. */
enum status schedule_read(const char *path, struct schedule **out,
			  struct error *err);
enum status schedule_parse(const char *text, const char *source,
			   struct schedule **out, struct error *err);
enum status schedule_from_json(const json_t *v, const char *source,
			       struct schedule **out, struct error *err);

/* The list of per-device lists (the value under "schedule"); new reference. */
json_t *schedule_to_json(const struct schedule *s);

#endif
