/*
 * PyTorch pipelining's CSV schedules (torch.distributed.pipelining):
 * one row per rank, one action per cell, "{stage}{type}{microbatch}" with
 * type F (forward), I (input-gradient backward), W (weight gradient) or
 * B (fused backward). An empty cell is an idle step.
 *
 * Mapping: F <-> F; with a split backward B <-> I and W <-> W; with a fused
 * backward B <-> B. Communication and sharding actions (SEND_F, RECV_F,
 * SEND_B, RECV_B, UNSHARD, RESHARD, REDUCE_GRAD) do not change the compute
 * order and are dropped on import. Export writes compact rows (no idle
 * cells), so export followed by import gives back the same schedule.
 */
#ifndef PIPEOPT_TORCH_CSV_H
#define PIPEOPT_TORCH_CSV_H

#include <stdbool.h>

#include "common/error.h"
#include "sched/schedule.h"

enum status torch_csv_parse(const char *text, const char *source,
			    struct schedule **out, struct error *err);
enum status torch_csv_read(const char *path, struct schedule **out,
			   struct error *err);

/* A new NUL-terminated string the caller frees; `split` chooses I/W (true)
 * or B (false) for backwards. */
char *torch_csv_format(const struct schedule *s, bool split);

#endif
