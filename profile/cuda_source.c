/*
 * The CUDA cost source's host side: its registry entry, the operator
 * check, then the kernels in the CUDA library (common/plugin.h; cuda.cu),
 * loaded on first use.
 */
#include "common/plugin.h"
#include "profile/source.h"

static enum status prepare(const struct profile_options *o, struct error *err)
{
	if (cuda_library_built())
		return STATUS_OK;
	return err_set(err, "this pipeopt was built without CUDA (no nvcc at build time)");
}

enum status profile_cuda(const struct graph *g, int v, int q, const struct profile_options *o,
			 struct op_cost *c, struct error *err)
{
	const struct op_kind_entry *k = op_check(g, v, err);
	if (!k)
		return STATUS_ERROR;
	profile_cuda_fn fn = (profile_cuda_fn)cuda_library_symbol(PROFILE_CUDA_SYMBOL, err);
	return fn ? fn(g, v, k, q, o, c, err) : err_prefix(err, "profile");
}

static const char *device_text(const struct profile_options *o)
{
	return "this machine's GPU, cuBLAS fp32";
}

const struct cost_source cost_source_cuda = {
	.name = "cuda",
	.summary = "cuBLAS and small kernels on this machine's GPU, timed with CUDA events",
	.devices = NULL,
	.timed = true,
	.prepare = prepare,
	.op_cost = profile_cuda,
	.device_text = device_text,
};
