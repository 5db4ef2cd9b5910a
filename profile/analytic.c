/*
 * The analytic cost source: each phase's FLOPs and bytes (ops/op_kind.c,
 * per kind) against a device's datasheet rates,
 *     time_us = max(flops / (0.5 peak), bytes / bandwidth) * 1e6 + 5 us,
 * 0.5 being the fraction of peak a good kernel reaches and 5 us a launch;
 * a phase that does nothing (no weight gradient) costs 0.
 */
#include <string.h>

#include "profile/source.h"

#define EFFICIENCY 0.5
#define LAUNCH_US 5.0

static const char device_names[] = "h200|a100|v100";

/* (device_names lists the same names) */
static const struct device_rates devices[] = {
	{"h200", 989e12, 4.8e12, 141e9},
	{"a100", 312e12, 2.04e12, 80e9},
	{"v100", 125e12, 0.9e12, 32e9},
};

const struct device_rates *profile_device(const char *name)
{
	for (size_t i = 0; name && i < sizeof devices / sizeof devices[0]; i++)
		if (!strcmp(devices[i].name, name))
			return &devices[i];
	return NULL;
}

static double t_us(const struct device_rates *d, struct op_work w)
{
	if (!w.runs)
		return 0;
	double a = w.flops / (EFFICIENCY * d->flops), b = w.bytes / d->bandwidth;
	return (a > b ? a : b) * 1e6 + LAUNCH_US;
}

enum status profile_analytic(const struct graph *g, int v, int q, const struct device_rates *d,
			     struct op_cost *c, struct error *err)
{
	const struct graph_op *op = &g->ops[v];
	const struct op_kind_entry *k = op_check(g, v, err);
	c->measured = false;
	if (!k)
		return STATUS_ERROR;
	struct op_work w[3];
	k->work(op->shape, op->out_bytes, q, w);
	c->fwd = t_us(d, w[0]);
	c->bwd = t_us(d, w[1]);
	c->wgrad = t_us(d, w[2]);
	return STATUS_OK;
}

static enum status prepare(const struct profile_options *o, struct error *err)
{
	if (profile_device(o->device))
		return STATUS_OK;
	return err_set(err, "unknown device '%s' for the analytic source (%s)",
		       o->device ? o->device : "", device_names);
}

static enum status op_cost(const struct graph *g, int v, int q, const struct profile_options *o,
			   struct op_cost *c, struct error *err)
{
	const struct device_rates *d = profile_device(o->device);
	if (!d)
		return prepare(o, err);
	return profile_analytic(g, v, q, d, c, err);
}

static const char *device_text(const struct profile_options *o)
{
	const struct device_rates *d = profile_device(o->device);
	return d ? d->name : "?";
}

const struct cost_source cost_source_analytic = {
	.name = "analytic",
	.summary = "FLOPs and bytes against a GPU's datasheet rates (no run)",
	.devices = device_names,
	.timed = false,
	.prepare = prepare,
	.op_cost = op_cost,
	.device_text = device_text,
};
