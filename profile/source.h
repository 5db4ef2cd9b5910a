/*
 * What the cost sources share, private to profile/: the check every
 * source runs on an operator first (op_check.c) and the CUDA library's
 * entry point. (Each source's entry is declared where the registry lists
 * it, in cost_source.c.)
 */
#ifndef PIPEOPT_PROFILE_SOURCE_H
#define PIPEOPT_PROFILE_SOURCE_H

#include "ops/op_kind.h"
#include "profile/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Op v of g's kind entry, if the profiler has a cost model for it and the
 * shape fits (ops/op_kind.h); else NULL, with err naming the graph and the
 * operator. */
const struct op_kind_entry *op_check(const struct graph *g, int v, struct error *err);

/* pipeopt_profile_cuda in libpipeopt_cuda.so (cuda.cu): op v of g, of kind
 * k (op_check passed), at q samples. */
typedef enum status (*profile_cuda_fn)(const struct graph *g, int v, const struct op_kind_entry *k,
				       int q, const struct profile_options *o, struct op_cost *c,
				       struct error *err);
#define PROFILE_CUDA_SYMBOL "pipeopt_profile_cuda"

#ifdef __cplusplus
}
#endif

#endif
