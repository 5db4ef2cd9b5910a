/*
 * The schedule instance: stages placed on devices, micro-batches, per-stage
 * costs, communication latency, memory deltas and limits, the objective.
 * Semantics: docs/design.md, "The schedule problem"; file format:
 * docs/formats.md.
 *
 * An op is (kind, stage, micro-batch). Ops are numbered densely so that every
 * per-op array is flat:
 *     id = (kind * L + stage) * M + mb,   0 <= id < kinds * L * M,
 * with kinds = 3 when the backward is split (F, B, W) and 2 otherwise (F, B).
 *
 * Ownership: instance_read(), instance_parse(), instance_from_json() and
 * instance_new() return an instance the caller frees with instance_free();
 * every array inside belongs to it, and so does its model.
 */
#ifndef PIPEOPT_INSTANCE_H
#define PIPEOPT_INSTANCE_H

#include <stdbool.h>
#include <jansson.h>
#include <stdint.h>

#include "common/error.h"
#include "sched/stage_model.h"

/* F, B, W are compute ops, indexed 0..kinds-1 in every per-kind array;
 * O and L (offload, reload) are copy-channel ops, which only a schedule
 * on an instance with `offload` lists (they have no op id: sim.h keeps
 * their times apart). */
enum op_kind { OP_F = 0, OP_B = 1, OP_W = 2, OP_O = 3, OP_L = 4 };
#define OP_KINDS 3
#define OP_ALL_KINDS 5

enum objective { OBJ_MAKESPAN = 0, OBJ_SPAN = 1 };

/* Limits that keep every sum of durations or memory deltas inside int64. */
#define INST_MAX_DEVICES 4096
#define INST_MAX_CHUNKS 64
#define INST_MAX_STAGES 16384
#define INST_MAX_MICROBATCHES (1 << 20)
#define INST_MAX_OPS (1 << 25)          /* kinds * L * M */
#define INST_MAX_DURATION (1LL << 32)   /* time units, per op or comm edge */
#define INST_MAX_DELTA (1LL << 32)      /* |memory delta| per op */
#define INST_MAX_LIMIT (1LL << 62)

/* One stage-DAG edge as seen from one end: the stage at the other end, the
 * latency an op crossing it waits (0 when both stages share a device). */
struct stage_link {
	int stage;
	int64_t lag;    /* time units */
};

struct instance {
	char *name;
	int devices;               /* D */
	int microbatches;          /* M */
	int chunks;                /* stages per device for linear/interleaved/v */
	int stages;                /* L */
	int *stage_device;         /* [L] device running each stage */
	char *placement;           /* "linear", "interleaved", "v" or "list" */

	int nedges;
	int (*edges)[2];           /* [nedges] stage DAG, [from, to] */
	int64_t *edge_comm;        /* [nedges] latency, time units (given value,
	                              applied only across devices) */
	bool split_backward;       /* W is its own op */
	int kinds;                 /* 3 if split_backward, else 2 */
	int64_t *cost[OP_KINDS];   /* [kind][L] duration, time units;
	                              cost[OP_W] is NULL when not split */

	bool has_memory;           /* memory deltas given */
	int64_t *mem[OP_KINDS];    /* [kind][L] delta, memory units; NULL if none */
	bool has_limit;
	int64_t *limit;            /* [D] memory units; NULL if none */

	enum objective objective;
	/* F&B overlap (docs/formats.md, instance key `overlap`): a device may run the
	 * forward of one micro-batch and the input backward of another as one
	 * overlapped pair, taking inst_pair_duration(); without it a pair's
	 * ops run back to back, as two ops. */
	bool has_overlap;
	double overlap;            /* the factor rho in [0, 1] */
	/* Activation recomputation (docs/formats.md, instance key
	 * `recompute`): a schedule may drop micro-batch j's activations on
	 * stage l after F(l, j), keeping recompute_keep[l] memory units instead
	 * of F's delta, and rebuild them by a recompute that runs on the
	 * device right before B(l, j), lengthening that B by
	 * recompute_cost[l]; the rebuilt memory, F's delta less the kept
	 * part, is charged at that B before its own delta. Which micro-batches
	 * are recomputed is the schedule's choice (struct op, recompute). */
	bool has_recompute;
	int64_t *recompute_cost;   /* [L] time units, >= 0 */
	int64_t *recompute_keep;   /* [L] memory units, 0 <= keep <= mem[F][l] */
	/* Activation offload (docs/formats.md, instance key `offload`;
	 * docs/design.md, Offload): each device has a copy channel that runs
	 * offloads O(l, j) and reloads L(l, j), one at a time; O frees
	 * inst_moved() when it ends, L takes it back when it starts, B(l, j)
	 * waits for L(l, j). Which micro-batches to offload, and where, is the
	 * schedule's choice (ops OP_O, OP_L in its rows). Not with recompute or
	 * overlap (refused). */
	bool has_offload;
	int64_t *offload_cost;     /* [L] O's duration, time units, >= 0 */
	int64_t *reload_cost;      /* [L] L's duration */
	int64_t *offload_keep;     /* [L] memory units, 0 <= keep <= mem[F][l] */
	bool has_host_limit;
	int64_t *host_limit;       /* [D] host memory units; NULL if unlimited */
	struct stage_model *model; /* optional "model" (what each stage
	                              computes, for the executor), or NULL; not
	                              part of the problem, so not in the
	                              canonical JSON or the digest */

	/* Derived, read-only: the stage DAG in both directions (CSR) and a
	 * topological order of the stages. */
	int *pred_start;           /* [L+1] */
	struct stage_link *pred;   /* [nedges] predecessors of each stage */
	int *succ_start;           /* [L+1] */
	struct stage_link *succ;   /* [nedges] successors of each stage */
	int *topo;                 /* [L] stages in topological order */
	bool is_chain;             /* edges are exactly 0->1->...->L-1 */
};

/* Read and validate an instance file. Errors name the file and the key, and
 * for JSON syntax the line and column. */
enum status instance_read(const char *path, struct instance **out,
			  struct error *err);

/* Parse an instance from JSON text; `source` names it in messages. */
enum status instance_parse(const char *text, const char *source,
			   struct instance **out, struct error *err);

/* The same from a JSON value (the parser's core; root stays the caller's). */
enum status instance_from_json(const json_t *root, const char *source,
			       struct instance **out, struct error *err);

/*
 * Building an instance in code (partition/bridge.c does): instance_new()
 * allocates one for the given sizes, every array zeroed: placement "list"
 * (stage_device all 0), chunks 1, objective makespan, cost[k] and, with
 * has_memory, mem[k] for the kinds split_backward gives, limit with
 * has_limit, no model. Fill the primary fields (everything above the
 * derived ones), then call instance_finish(), which checks them as the
 * parser checks a file (the same limits and rules, in the parser's words,
 * each value named by its entry: "cost.F[2]: 0 is below the minimum 1"),
 * sets kinds and a named placement's stage_device as the parser does, and
 * computes the derived fields with the parser's own functions. An instance
 * that passed instance_finish() equals, field by field, the one its
 * instance_to_json() parses back to.
 */
struct instance_size {
	int devices;               /* D */
	int stages;                /* L */
	int nedges;
	int microbatches;          /* M */
	bool split_backward;
	bool has_memory, has_limit;
};

/* NULL when out of memory or a size is negative. */
struct instance *instance_new(const char *name, const struct instance_size *size);

/* Check and derive (see above); `source` names the instance in messages.
 * On failure the instance is still the caller's to free. */
enum status instance_finish(struct instance *in, const char *source,
			    struct error *err);

/* The instance as an instance file's JSON (docs/formats.md; new reference, NULL
 * when out of memory): name, devices, microbatches, chunks (when not 1),
 * placement (its name, or the list), edges, split_backward, cost, comm,
 * memory (when given), objective, model (when given), in that order. */
json_t *instance_to_json(const struct instance *in);

/* Write instance_to_json() to path (indented by 1, as `pipeopt partition
 * -o` writes; "-" is stdout), atomically. */
enum status instance_write(const struct instance *in, const char *path,
			   struct error *err);

void instance_free(struct instance *inst);

/* Number of ops: kinds * L * M. */
static inline int inst_nops(const struct instance *in)
{
	return in->kinds * in->stages * in->microbatches;
}

static inline int inst_op_id(const struct instance *in, int kind, int stage,
			     int mb)
{
	return (kind * in->stages + stage) * in->microbatches + mb;
}

static inline int64_t inst_duration(const struct instance *in, int kind,
				    int stage)
{
	return in->cost[kind][stage];
}

static inline int64_t inst_delta(const struct instance *in, int kind,
				 int stage)
{
	return in->has_memory ? in->mem[kind][stage] : 0;
}

/* F(l, j)'s memory delta: the kept part when j is recomputed on l. */
static inline int64_t inst_f_delta(const struct instance *in, int stage, bool recomputed)
{
	if (!in->has_memory)
		return 0;
	return recomputed ? in->recompute_keep[stage] : in->mem[OP_F][stage];
}

/* What a recompute rebuilds right before its B: F's delta less the kept part. */
static inline int64_t inst_rebuilt(const struct instance *in, int stage)
{
	return in->has_memory ? in->mem[OP_F][stage] - in->recompute_keep[stage] : 0;
}

/* What an offload moves to the host (and its reload brings back). */
static inline int64_t inst_moved(const struct instance *in, int stage)
{
	return in->mem[OP_F][stage] - in->offload_keep[stage];
}

/* Whether F&B pairs can gain (overlap factor below 1). */
static inline bool inst_pairs_gain(const struct instance *in)
{
	return in->has_overlap && in->overlap < 1;
}

/* Whether a schedule decides more than device orders: recomputes, copies
 * or F&B pairs. Every schedule without them stays valid, with the same
 * times, on the instance with them. */
static inline bool inst_has_decisions(const struct instance *in)
{
	return in->has_recompute || in->has_offload || inst_pairs_gain(in);
}

/* Whether kind is a copy-channel op (offload or reload). */
static inline bool op_on_channel(int kind)
{
	return kind == OP_O || kind == OP_L;
}

/* The index of a copy of (stage, mb) in the copy arrays of an offload
 * instance (sim.h's copy_start, copy_end): its offload O (reload false)
 * or reload L, at (c L + stage) M + mb, c 0 or 1; 2 L M in all. */
static inline int inst_copy_index(const struct instance *in, bool reload, int stage, int mb)
{
	return ((int)reload * in->stages + stage) * in->microbatches + mb;
}

/* An op's duration, a recomputed B's with its recompute. */
static inline int64_t inst_op_duration(const struct instance *in, int kind, int stage,
				       bool recomputed)
{
	return in->cost[kind][stage] + (recomputed ? in->recompute_cost[stage] : 0);
}

/* An overlapped pair of ops of costs a and b (an F and a B on one device):
 * max(a, b) + ceil(rho * min(a, b)). rho = 0 hides the shorter op entirely,
 * rho = 1 is no gain over running them back to back. */
static inline int64_t inst_pair_cost(const struct instance *in, int64_t a, int64_t b)
{
	int64_t hi = a > b ? a : b, lo = a > b ? b : a;
	double x = in->overlap * (double)lo;
	int64_t t = (int64_t)x;
	return hi + t + ((double)t < x - 1e-9);
}

/* Total op time on device d over all micro-batches (time units). */
int64_t inst_device_load(const struct instance *in, int d);

/* "F", "B" or "W". */
const char *op_kind_name(int kind);

/* Write "F(3,12)" into buf; returns buf. */
char *op_format(char *buf, int len, int kind, int stage, int mb);

/* The instance as canonical JSON (every field explicit, per-stage lists,
 * resolved placement, sorted keys, no name): equal instances give equal
 * text. New reference. */
json_t *instance_canonical_json(const struct instance *in);

/* SHA-256 of the canonical JSON, as 64 hex characters (certificates). */
void instance_digest(const struct instance *in, char out[65]);

/* Whether the instance is a plain chain with one stage per device (the
 * shape gpipe and 1f1b support); if not, why not (into err). */
bool inst_is_simple_chain(const struct instance *in, struct error *why);

#endif
