/*
 * The CUDA paths (profiler and executor) live in their own shared library,
 * libpipeopt_cuda.so next to the pipeopt binary, built when nvcc is present
 * and loaded on first use: linked into pipeopt, the CUDA libraries made
 * every start 0.5 s slower (20 starts: 10.2 s vs 0.68 s).
 */
#ifndef PIPEOPT_PLUGIN_H
#define PIPEOPT_PLUGIN_H

#include <stdbool.h>

#include "common/error.h"

/* Whether this pipeopt was built with the CUDA library. */
bool cuda_library_built(void);

/* The address of `symbol` in the CUDA library, loading it on first use;
 * NULL with err set (one line: not built, cannot load, no such symbol). */
void *cuda_library_symbol(const char *symbol, struct error *err);

#endif
