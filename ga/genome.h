/*
 * The GA's encoding of a schedule and its decoder.
 *
 * Encoding. With identical micro-batches, each (kind, stage) pair, a
 * "slot", can run its micro-batches in FIFO order without losing
 * optimality (docs/design.md). A device's order is then fully described by the
 * sequence of slots it picks, one per step: F or B (and where each W goes;
 * with chunks, which stage). That sequence is a root-to-leaf path in
 * Koala's decision tree, and the genome is the concatenation of every
 * device's path:
 *     gene = slot = kind * L + stage,
 *     row d = genes [row_start[d], row_start[d+1]), one per op of device d,
 * each slot of device d occurring exactly M times in row d. The i-th
 * occurrence of a slot is micro-batch i.
 *
 * Decoding ("dynamic try-test"). The decoder runs the event simulation of
 * sim.c, one device as far as it can, and at each step TRIES the device's
 * next gene and TESTS it:
 *   1. memory: does the op fit under the device's limit? If not, REPAIR:
 *      run the device's earliest-listed pending W (one whose B has run); else,
 *      with recompute, for a B that must first rebuild its activations,
 *      drop resident ones (decode.c drop_room, once its inputs are in);
 *      else the earliest-listed op of another slot that fits; if none
 *      fits, the genome is infeasible;
 *   2. inputs: have they been produced? If yes, at time a (arrival), and the
 *      device is free earlier, fill the wait with pending W's that end by a
 *      (never delays anything: see decode.c); then run the op at a. If an
 *      input is not produced yet, the device WAITS until it is;
 *   3. deadlock: when every unfinished device waits, the orders contradict
 *      the dependencies; REPAIR by taking, on the device where it can start
 *      earliest, the earliest-listed op whose inputs are all produced (and
 *      which fits; a forward only if it leaves room for a forward of each
 *      other stage of its device, unless no op qualifies then).
 * Every repair is written back into the genome (Lamarckian), so a decoded
 * genome decodes to itself. A genome that needs no repair and leaves no W
 * gap decodes to exactly the schedule it lists: seeds lose nothing.
 */
#ifndef PIPEOPT_GA_GENOME_H
#define PIPEOPT_GA_GENOME_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

typedef uint16_t gene_t;   /* a slot: kind * L + stage (< 3 * 16384) */

/* The shape every genome of an instance shares (read-only once built). */
struct layout {
	const struct instance *in;
	int n;                 /* genes per genome = ops of the instance */
	int nslots;            /* kinds * L */
	int *row_start;        /* [D+1] */
	int *dev_slot_start;   /* [D+1] into dev_slots */
	gene_t *dev_slots;     /* [nslots] the slots of each device, by kind
	                          then stage */
};

enum status layout_init(struct layout *lay, const struct instance *in,
			struct error *err);
void layout_release(struct layout *lay);

static inline int slot_kind(const struct layout *lay, int slot)
{
	return slot / lay->in->stages;
}

static inline int slot_stage(const struct layout *lay, int slot)
{
	return slot % lay->in->stages;
}

/* The genome of a schedule: its orders with micro-batch numbers dropped.
 * Fails (naming the device) unless the schedule has exactly the instance's
 * ops on the right devices. */
enum status genome_from_schedule(const struct layout *lay,
				 const struct schedule *s, gene_t *g,
				 struct error *err);

/* The schedule a genome lists (micro-batches numbered FIFO per slot); NULL
 * when out of memory. */
struct schedule *genome_to_schedule(const struct layout *lay, const gene_t *g);

/* Whether row d of g holds each of the device's slots exactly M times. */
bool genome_row_ok(const struct layout *lay, const gene_t *g, int d);

/*
 * Fitness: the instance's objective; ties broken by the sum over devices of
 * the same measure (each device's end for the makespan, its span for the
 * span), which rewards every device finishing earlier, not only the
 * critical one, and so gives the search a slope where the objective is
 * flat. An infeasible genome has objective INT64_MAX.
 */
struct fitness {
	int64_t objective;     /* time units */
	int64_t tie;           /* time units: sum over devices */
	int critical;          /* the device attaining the objective (not compared) */
};

static inline bool fitness_better(struct fitness a, struct fitness b)
{
	return a.objective < b.objective ||
	       (a.objective == b.objective && a.tie < b.tie);
}

#define FITNESS_INFEASIBLE ((struct fitness){INT64_MAX, INT64_MAX, -1})

/* Repairs a decode made (statistics). */
struct decode_stats {
	long memory_repairs, deadlock_repairs, w_fills;
};

/* A decoder: work arrays for one thread. */
struct decoder;

struct decoder *decoder_new(const struct layout *lay);
void decoder_free(struct decoder *dc);

/* Decode g in place (repairs written back) and return its fitness. The
 * decoder's start/end arrays (by op id) hold the times until the next call.
 *
 * F&B overlap (instance `overlap`, rho < 1): a second pass times the
 * decoded order again, running an op and the next of its device's order
 * as one overlapped pair when they are an F and a B whose inputs have both
 * arrived by the time the first can start (and memory allows the pair).
 * The rule depends on the order alone, so the GA chooses pairs through the
 * order (ready neighbours pair; another op between them keeps them
 * apart), and a decoded genome still decodes to itself.
 *
 * Offload (instance `offload`): the decoder lists copies beside the
 * genome's compute ops: offloads of resident activations when the next op
 * lacks memory, a reload before each offloaded activation's B (decode.c;
 * ga/README.md). They follow from the order, so a decoded genome decodes
 * to the same copies. */
struct fitness decoder_run(struct decoder *dc, gene_t *g,
			   struct decode_stats *stats);

/* The last decode's genome as a schedule, its overlapped pairs marked,
 * its recomputes and its copies listed (genome_to_schedule knows orders
 * only); NULL when out of memory. */
struct schedule *decoder_schedule(const struct decoder *dc, const gene_t *g);

#endif
