/*
 * The schedule: per device, the order in which that device runs its ops.
 * Start times are not part of it; the simulator derives them (sim.h).
 *
 * A schedule read from a torch CSV also keeps the file's steps (its
 * layout, below), so that it writes back byte for byte; every other
 * schedule has none, and the CSV writer aligns it itself (torch_csv.h).
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
#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

struct instance;

struct op {
	int kind;   /* enum op_kind */
	int stage;
	int mb;     /* micro-batch */
	bool with_prev;   /* runs with the row's previous op as one overlapped
	                     F&B pair (instance.h, has_overlap); the pair's first
	                     op has it false */
	bool recompute;   /* on a B: its micro-batch's activations were
	                     dropped after F and are rebuilt right before this
	                     B (instance.h, has_recompute); JSON
	                     ["B", stage, mb, "recompute"] */
};

struct sched_row {
	struct op *ops;
	int len, cap;
};

/*
 * One step (CSV cell) of a device's row in a torch CSV: `ops` consecutive
 * ops of the device's order, 0 for an idle step, 2 or more for a composite
 * (a full backward `B` of a split schedule is B and W, an OVERLAP_F_B its
 * sub-actions'); or, when `text` is not empty, an action that runs no op
 * (SEND_F, UNSHARD, ...), kept as torch writes it. Text is at most
 * TORCH_ACTION_MAX characters (torch_csv.h).
 */
struct sched_cell {
	int ops;
	char text[32];
};

struct sched_cells {
	struct sched_cell *cells;
	int len, cap;
};

/* The steps of a schedule read from a torch CSV. It describes the orders
 * only while every row's cells hold exactly that row's ops
 * (schedule_layout_ok); writers ignore it otherwise. */
struct sched_layout {
	bool crlf;                  /* the file's rows ended in "\r\n" */
	struct sched_cells *rows;   /* [devices] */
};

struct schedule {
	int devices;
	struct sched_row *rows;   /* [devices] */
	struct sched_layout *layout;   /* NULL: no steps kept */
};

struct schedule *schedule_new(int devices);
void schedule_free(struct schedule *s);

/* Double row r's capacity (16 at first); out of memory is an error. */
enum status schedule_row_grow(struct sched_row *r);

/* Append op to device d's order. Inline: the K-periodic search
 * (solvers/cyclic.c) unrolls a device's order with it at every
 * evaluation, and the call cost it 3 % (V p8 m48, 300,000 evaluations,
 * one core: 4.99-5.01 s as a call, 4.83-4.97 s inline). */
static inline enum status schedule_push(struct schedule *s, int d, int kind, int stage,
					int mb)
{
	struct sched_row *r = &s->rows[d];
	if (r->len == r->cap && schedule_row_grow(r))
		return STATUS_ERROR;
	r->ops[r->len++] = (struct op){kind, stage, mb, false, false};
	return STATUS_OK;
}

/* Mark device d's last op as running with the op before it (an
 * overlapped F&B pair; sim_run checks that it is one). */
enum status schedule_join_last(struct schedule *s, int d);
/* Whether any B is marked recomputed. */
bool schedule_has_recompute(const struct schedule *s);

/* Whether any op is an offload or a reload (OP_O, OP_L). */
bool schedule_has_offload(const struct schedule *s);
/* Whether any op runs with the one before it (an overlapped pair). */
bool schedule_has_pairs(const struct schedule *s);

/* Give s an empty layout (replacing any), to fill with schedule_cell_push. */
enum status schedule_layout_new(struct schedule *s);

/* Append a cell to device d's row of the layout; `text` NULL or "" for a
 * cell that runs `ops` ops. */
enum status schedule_cell_push(struct schedule *s, int d, int ops,
			       const char *text);

/* Whether s has a layout whose cells hold exactly each row's ops. */
bool schedule_layout_ok(const struct schedule *s);

/* A deep copy, layout included; NULL when out of memory. */
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

/* Deep equality of orders, overlapped pairs and recompute marks (layouts
 * are not compared). */
int schedule_equal(const struct schedule *a, const struct schedule *b);

/* The same orders, pairs and recompute marks aside: what the GA's genome
 * and the MILPs, which model neither, keep of a schedule. */
int schedule_same_orders(const struct schedule *a, const struct schedule *b);

/* Whether one of v[0..n) has s's orders (schedule_same_orders): keeps a
 * list of local-search starts to schedules of their own. */
bool schedule_orders_among(struct schedule *const *v, int n, const struct schedule *s);

/*
 * The same schedule with the weight passes of devices 0..upto-1 held back
 * as long as their memory allows (upto >= devices: every device's; the
 * other rows are copied): the order of the other ops kept, each W (oldest first)
 * put in only when the next op that takes memory would not fit without
 * it, the rest at the end of the row (Zero Bubble's deferred W, applied to
 * any schedule). Valid when s is: no op waits for a W, and before an op
 * that takes memory every W that s ran earlier is in, if needed, so the
 * memory there is at most s's. NULL when it does not apply (no W, a W that
 * takes memory, recompute, offload or overlapped pairs) or on out of
 * memory. A local search's other start (solvers/lns.c): the W's of a
 * local optimum are often where no neighbourhood moves them all at once.
 */
struct schedule *schedule_defer_weights(const struct instance *in, const struct schedule *s,
					int upto);

/* JSON: {"schedule": [[["F",0,0], ...], ...]} (docs/formats.md); an
 * overlapped pair is one element of two ops, [["F",0,1],["B",1,0]]; kind "I",
 * torch's name for the input-gradient backward, reads as "B". The optional
 * key "torch_csv" holds the layout (torch_csv.h). Other top-level keys are
 * ignored, so a command's --json result can be read back. */
enum status schedule_read(const char *path, struct schedule **out,
			  struct error *err);
enum status schedule_parse(const char *text, const char *source,
			   struct schedule **out, struct error *err);
enum status schedule_from_json(const json_t *v, const char *source,
			       struct schedule **out, struct error *err);

/* The list of per-device lists (the value under "schedule"); new reference. */
json_t *schedule_to_json(const struct schedule *s);

/* Set "schedule" in obj and, when s has a layout (schedule_layout_ok),
 * "torch_csv". */
void schedule_json_set(json_t *obj, const struct schedule *s);

#endif
