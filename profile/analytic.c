/*
 * The analytic cost source: FLOPs and bytes against a device's datasheet
 * rates,
 *     time_us = max(flops / (0.5 peak), bytes / bandwidth) * 1e6 + 5 us,
 * 0.5 being the fraction of peak a good kernel reaches and 5 us a launch.
 * Per micro-batch of q samples, by kind (shapes in profile.h):
 *   linear [n, k]: forward, input gradient and weight gradient each
 *     2 q n k FLOPs, moving the weights (2 n k bytes, fp16) and q (n + k)
 *     activations (2 bytes each);
 *   transformer_layer [s, h, f, a]: weights w = 4 h^2 + 2 h f; forward
 *     q (2 s w + 4 s^2 h) FLOPs, input gradient q (2 s w + 8 s^2 h), weight
 *     gradient q 2 s w; bytes 2 w + q s h 16 (8 for the weight gradient);
 *   attention [s, h, a]: the same with w = 4 h^2 (QKV and output
 *     projections, no feed-forward);
 *   embedding_bag [rows, dim, bag]: q bag dim adds, 8 q bag dim bytes;
 *   layernorm [n]: 8 q n FLOPs, 4 q n bytes; gelu [n]: 10 q n, 4 q n;
 *   input, concat, interaction: moving out_bytes per sample twice.
 * The same formulas wrote datasets/graphs (scripts/make-graphs.sh).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "profile/profile.h"

#define EFFICIENCY 0.5
#define LAUNCH_US 5.0

static const struct device_rates devices[] = {
	{"h200", 989e12, 4.8e12, 141e9},
	{"a100", 312e12, 2.04e12, 80e9},
	{"v100", 125e12, 0.9e12, 32e9},
};

const struct device_rates *profile_device(const char *name)
{
	for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
		if (!strcmp(devices[i].name, name))
			return &devices[i];
	return NULL;
}

static double t_us(const struct device_rates *d, double flops, double bytes)
{
	double a = flops / (EFFICIENCY * d->flops), b = bytes / d->bandwidth;
	return (a > b ? a : b) * 1e6 + LAUNCH_US;
}

enum status profile_analytic(const struct graph *g, int v, int q, const struct device_rates *d,
			     struct op_cost *c, struct error *err)
{
	const struct graph_op *op = &g->ops[v];
	const double *sh = op->shape;
	c->measured = false;
	if (profile_check_op(g, v, err))
		return STATUS_ERROR;
	if (!strcmp(op->kind, "linear")) {
		double n = sh[0], k = sh[1];
		c->fwd = c->bwd = c->wgrad = t_us(d, 2.0 * q * n * k, 2 * n * k + 2.0 * q * (n + k));
	} else if (!strcmp(op->kind, "transformer_layer") || !strcmp(op->kind, "attention")) {
		bool attn = !strcmp(op->kind, "attention");
		double s = sh[0], h = sh[1], f = attn ? 0 : sh[2], w = 4 * h * h + 2 * h * f;
		c->fwd = t_us(d, q * (2 * s * w + 4 * s * s * h), 2 * w + q * s * h * 16);
		c->bwd = t_us(d, q * (2 * s * w + 8 * s * s * h), 2 * w + q * s * h * 16);
		c->wgrad = t_us(d, q * 2 * s * w, 2 * w + q * s * h * 8);
	} else if (!strcmp(op->kind, "embedding_bag")) {
		double dim = sh[1], bag = sh[2];
		c->fwd = c->bwd = c->wgrad = t_us(d, q * bag * dim, 8.0 * q * bag * dim);
	} else if (!strcmp(op->kind, "layernorm") || !strcmp(op->kind, "gelu")) {
		double fl = !strcmp(op->kind, "gelu") ? 10 : 8;
		c->fwd = c->bwd = t_us(d, fl * q * sh[0], 4.0 * q * sh[0]);
		c->wgrad = 0;
	} else {   /* input, concat, interaction (profile_check_op knows no others) */
		c->fwd = c->bwd = t_us(d, 0, 2.0 * q * op->out_bytes);
		c->wgrad = 0;
	}
	return STATUS_OK;
}
