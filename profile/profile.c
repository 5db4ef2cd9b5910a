/*
 * Profiling a whole graph into a cost table (profile.h), through the cost
 * source o->source names. With a timed source (cpu, cuda), once one run
 * of an operator takes longer than max_seconds, its larger sizes are not
 * run: they are extrapolated linearly from the largest measured size
 * (cost per sample times q) and marked so in the table ("measured": false
 * per operator and size).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

#include "common/clock.h"
#include "common/stop.h"

/* The costs of every operator at every size, filled size by size (below). */
struct grid {
	int nops, n;
	struct op_cost *c;     /* [nops * n] */
	bool *known;           /* [nops * n]: measured or extrapolated */
};

/* Whether to stop measuring: an interrupt, or past the time limit. */
static const char *cut_reason(const struct profile_options *o, double t0)
{
	if (stop_requested())
		return "interrupt";
	if (o->time_limit > 0 && clock_seconds() - t0 >= o->time_limit)
		return "time_limit";
	return NULL;
}

/*
 * Measure size by size: every operator at the smallest size first, then
 * every one at the next, so that a run cut short (time limit, interrupt)
 * has covered the most operators. Once one run of an operator takes longer
 * than max_seconds, or the run is cut, the operator's larger sizes are
 * extrapolated linearly from its largest measured size q (cost per sample
 * times the size) and marked measured: false. An operator with no
 * measurement at all when the run is cut stays unknown.
 */
static enum status measure(const struct cost_source *src, const struct graph *g,
			   const struct profile_options *given, const int *sizes, struct grid *gr,
			   const char **cut, struct error *err)
{
	double t0 = clock_seconds();
	struct profile_options limited = *given, *o = &limited;
	limited.deadline = given->time_limit > 0 ? t0 + given->time_limit : 0;
	*cut = NULL;
	for (int i = 0; i < gr->n; i++)
		for (int v = 0; v < gr->nops; v++) {
			struct op_cost *c = &gr->c[v * gr->n + i];
			const struct op_cost *last = NULL;
			int q = 0;
			for (int k = i - 1; k >= 0 && !last; k--)
				if (gr->known[v * gr->n + k] && gr->c[v * gr->n + k].measured) {
					last = &gr->c[v * gr->n + k];
					q = sizes[k];
				}
			if (!*cut && src->timed)
				*cut = cut_reason(o, t0);
			bool slow = last && src->timed &&
				    (last->fwd + last->bwd + last->wgrad) * 1e-6 > o->max_seconds;
			if (last && (slow || *cut)) {
				double f = (double)sizes[i] / q;
				*c = (struct op_cost){last->fwd * f, last->bwd * f, last->wgrad * f,
						      false};
			} else if (*cut) {
				continue;   /* never measured: unknown */
			} else if (src->op_cost(g, v, sizes[i], o, c, err)) {
				return STATUS_ERROR;
			}
			gr->known[v * gr->n + i] = true;
		}
	return STATUS_OK;
}

/* One operator's row: lists fwd, bwd, wgrad, measured (null where unknown). */
static json_t *op_row(const struct graph *g, const struct grid *gr, int v)
{
	json_t *row = json_pack("{s:s,s:s}", "name", g->ops[v].name, "kind", g->ops[v].kind);
	json_t *l[4] = {json_array(), json_array(), json_array(), json_array()};
	static const char *const keys[4] = {"fwd", "bwd", "wgrad", "measured"};
	for (int i = 0; i < gr->n; i++) {
		const struct op_cost *c = &gr->c[v * gr->n + i];
		bool known = gr->known[v * gr->n + i];
		json_array_append_new(l[0], known ? json_real(c->fwd) : json_null());
		json_array_append_new(l[1], known ? json_real(c->bwd) : json_null());
		json_array_append_new(l[2], known ? json_real(c->wgrad) : json_null());
		json_array_append_new(l[3], json_boolean(known && c->measured));
	}
	for (int k = 0; k < 4; k++)
		json_object_set_new(row, keys[k], l[k]);
	return row;
}

enum status profile_graph(const struct graph *g, const struct profile_options *o,
			  json_t **table, struct error *err)
{
	const struct cost_source *src = cost_source_find(o->source);
	char names[128];
	*table = NULL;
	if (!src)
		return err_set(err, "profile: unknown cost source '%s' (%s)", o->source ? o->source : "",
			       cost_source_names(names, sizeof names));
	if (src->prepare && src->prepare(o, err))
		return err_prefix(err, "profile");
	int n = o->nsizes ? o->nsizes : g->nsizes;
	const int *sizes = o->nsizes ? o->sizes : g->microbatch_sizes;
	struct grid gr = {g->nops, n, calloc((size_t)g->nops * n + 1, sizeof *gr.c),
			  calloc((size_t)g->nops * n + 1, sizeof *gr.known)};
	const char *cut = NULL;
	if (!gr.c || !gr.known) {
		free(gr.c);
		free(gr.known);
		return err_set(err, "profile: out of memory");
	}
	enum status st = measure(src, g, o, sizes, &gr, &cut, err);
	json_t *ops = json_array(), *sz = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(sz, json_integer(sizes[i]));
	bool complete = true;
	for (int v = 0; v < g->nops; v++) {
		json_array_append_new(ops, op_row(g, &gr, v));
		for (int i = 0; i < n; i++)
			complete &= gr.known[v * n + i];
	}
	free(gr.c);
	free(gr.known);
	json_t *t = json_pack("{s:s,s:s,s:s,s:o,s:o}", "graph", g->name, "source", src->name,
			      "device", src->device_text(o), "microbatch_sizes", sz, "ops", ops);
	if (src->timed) {
		json_object_set_new(t, "warmup", json_integer(o->warmup));
		json_object_set_new(t, "repeats", json_integer(o->repeats));
		json_object_set_new(t, "statistic", json_string("median"));
	}
	if (cut) {
		json_object_set_new(t, "stopped_by", json_string(cut));
		json_object_set_new(t, "complete", json_boolean(complete));
	}
	if (st) {
		json_decref(t);
		return STATUS_ERROR;
	}
	*table = t;
	return STATUS_OK;
}
