/*
 * PyTorch pipelining's CSV schedules (torch.distributed.pipelining), as
 * its _dump_csv writes them and _load_csv reads them: one row per rank,
 * one cell per time step, each cell an action "{stage}{type}{microbatch}"
 * or empty (an idle step).
 *
 * Reading:
 * - F is the forward, I the input-gradient backward (pipeopt's B), W the
 *   weight gradient. B is torch's full backward: in a schedule that has an
 *   I or a W anywhere it is B then W in one step, otherwise the fused B.
 * - "(a;b;...)OVERLAP_F_B" runs its sub-actions (compute actions only) in
 *   one step. One F and one backward, next to each other in the order,
 *   are an overlapped pair (schedule.h, with_prev; they overlap on an
 *   instance with "overlap"); other sub-actions run back to back, in order.
 * - SEND_F, RECV_F, SEND_B, RECV_B, UNSHARD, RESHARD and REDUCE_GRAD, with
 *   or without a micro-batch, run no op.
 * - Every newline ends a row ("\r\n" too) and text after the last one is
 *   one more; a blank line is a rank with no steps. Spaces around a cell
 *   are ignored, and `""` (how Python writes a lone empty cell) is empty.
 * - An op that appears twice is an error at its second appearance; every
 *   error is one line naming the file, line and column (the cell's index).
 *
 * The steps are kept as the schedule's layout (schedule.h): idle cells,
 * composites, the actions that run no op, and whether rows ended in
 * "\r\n". So torch's own files write back byte for byte, directly or
 * through schedule JSON (its "torch_csv" key).
 *
 * Writing, when the schedule has a layout that matches its orders: the
 * layout's cells, a composite as the actions it was read from (B and W of
 * one micro-batch as B in a split schedule; two or more actions as
 * OVERLAP_F_B). Otherwise each op gets one step, the earliest after the
 * previous op of its device and after the steps of all its inputs that the
 * schedule contains: F(l,j) after F(p,j) for each predecessor p of l,
 * B(l,j) after B(q,j) for each successor q and after F(l,j), W(l,j) after
 * B(l,j); the stage DAG is the instance's, or the chain 0 -> 1 -> ... when
 * there is none. That is the start time of every op when each op lasts
 * one step and communication is free, and it is torch's rule for adding
 * bubbles (ScheduleInterleavedZeroBubble's _add_bubbles_to_actions: a rank
 * idles until the inputs of its next action ran at an earlier step)
 * applied to pipeopt's orders. Rows hold no trailing idle cells. When an
 * order deadlocks and no device can move, the first device with ops left
 * runs its next op as if its inputs had run, and alignment goes on.
 */
#ifndef PIPEOPT_TORCH_CSV_H
#define PIPEOPT_TORCH_CSV_H

#include <jansson.h>
#include <stdbool.h>

#include "common/error.h"
#include "sched/instance.h"
#include "sched/schedule.h"

/* Longest text of an action that runs no op, e.g. "16383REDUCE_GRAD". */
#define TORCH_ACTION_MAX 31

enum status torch_csv_parse(const char *text, const char *source,
			    struct schedule **out, struct error *err);
enum status torch_csv_read(const char *path, struct schedule **out,
			   struct error *err);

/* A new NUL-terminated string the caller frees (NULL when out of memory);
 * `split` chooses I/W (true) or B (false) for backwards; `in` (may be
 * NULL) gives the stage DAG for aligning a schedule without a layout. */
char *torch_csv_format(const struct schedule *s, const struct instance *in,
		       bool split);

/* The layout as the value of schedule JSON's "torch_csv" key:
 * {"cells": [[1, 0, "0SEND_F0", 2, ...], ...], "crlf": true}, per device
 * each cell's op count, or the text of an action that runs no op; "crlf"
 * only when true. NULL when s has no layout that matches its orders. */
json_t *torch_csv_layout_to_json(const struct schedule *s);

/* Read that value into s's layout, checking it against s's orders. */
enum status torch_csv_layout_from_json(const json_t *v, const char *source,
				       struct schedule *s, struct error *err);

#endif
