/* Reading a sweep spec and expanding it into tasks (spec.h). */
#include "sweep/spec.h"

#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/family.h"
#include "common/fileio.h"
#include "common/sha256.h"
#include "common/json_read.h"
#include "sched/instance.h"
#include "methods/method.h"
#include "methods/settings.h"

struct ctx {
	const char *source, *dir;
	struct error *err;
};

/* The spec's messages, "spec 'SOURCE': KEY: ...", come from common/json_read;
 * fail() and check_keys() bind its context to ours, which also holds the
 * folder that relative paths start from. */
static struct jr_ctx jr(const struct ctx *c)
{
	return (struct jr_ctx){"spec", c->source, c->err};
}

static enum status fail(const struct ctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum status fail(const struct ctx *c, const char *key, const char *fmt, ...)
{
	struct jr_ctx j = jr(c);
	va_list ap;
	va_start(ap, fmt);
	enum status st = jr_vfail(&j, key, fmt, ap);
	va_end(ap);
	return st;
}

/* "WHERE.KEY: unknown key" */
static enum status check_keys(const struct ctx *c, const char *where, json_t *obj,
			      const char *const *known)
{
	struct jr_ctx j = jr(c);
	return jr_check_keys(&j, where, obj, known);
}

/* A path relative to the spec's folder (absolute paths as given). */
static char *resolve(const struct ctx *c, const char *path)
{
	size_t n = strlen(c->dir) + strlen(path) + 2;
	char *out = malloc(n);
	if (out)
		snprintf(out, n, "%s%s%s", path[0] == '/' || !*c->dir ? "" : c->dir,
			 path[0] == '/' || !*c->dir ? "" : "/", path);
	return out;
}

static bool number_in(json_t *v, double lo, double hi, double *out)
{
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return *out >= lo && *out <= hi;
}

/* The index of the first entry of list equal to an earlier one, or -1:
 * a repeated value would give two tasks with one key. Linear: each value's
 * canonical text goes into a hash set (jansson's object). */
static int repeated(json_t *list)
{
	json_t *seen = json_object();
	int at = -1;
	for (size_t i = 0; seen && at < 0 && i < json_array_size(list); i++) {
		char *text = json_dumps(json_array_get(list, i),
					JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		if (text && json_object_get(seen, text))
			at = (int)i;
		else if (text)
			json_object_set_new(seen, text, json_true());
		free(text);
	}
	json_decref(seen);
	return at;
}

/* ---- methods ---------------------------------------------------------------------- */

static enum status parse_seeds(const struct ctx *c, const char *key, json_t *v,
			       struct sweep_method *m)
{
	if (!v) {
		m->nseeds = 1;
		m->seeds = malloc(sizeof *m->seeds);
		if (!m->seeds)
			return fail(c, key, "out of memory");
		m->seeds[0] = 1;
		return STATUS_OK;
	}
	if (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > 10000)
		return fail(c, key, "expected a list of 1 to 10000 seeds");
	if (repeated(v) >= 0)
		return fail(c, key, "seeds: entry %d repeats an earlier seed", repeated(v));
	m->nseeds = (int)json_array_size(v);
	m->seeds = calloc(m->nseeds, sizeof *m->seeds);
	if (!m->seeds)
		return fail(c, key, "out of memory");
	for (int i = 0; i < m->nseeds; i++) {
		json_t *s = json_array_get(v, i);
		if (!json_is_integer(s) || json_integer_value(s) < 0)
			return fail(c, key, "entry %d: expected an integer seed >= 0", i);
		m->seeds[i] = (uint64_t)json_integer_value(s);
	}
	return STATUS_OK;
}

/* The i-th method a sweep can run (one with a run()), NULL past the end. */
static const char *sweep_method_at(int i)
{
	for (int k = 0; k < method_count(); k++)
		if (method_at(k)->run && i-- == 0)
			return method_at(k)->name;
	return NULL;
}

/* The first SWEEP_DIGEST hex digits of the SHA-256 of len bytes. */
static void digest_bytes(const void *data, size_t len, char out[SWEEP_DIGEST + 1])
{
	char hex[65];
	sha256_hex(data, len, hex);
	memcpy(out, hex, SWEEP_DIGEST);
	out[SWEEP_DIGEST] = 0;
}

/* Of a JSON value's compact, key-sorted text; nonzero when out of memory. */
static int digest_json(const json_t *v, char out[SWEEP_DIGEST + 1])
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	if (!text)
		return 1;
	digest_bytes(text, strlen(text), out);
	free(text);
	return 0;
}

/* The method entry's one key that names a registered method. */
static enum status method_of(const struct ctx *c, const char *key, json_t *o,
			     const struct method **out)
{
	const char *k, *names[64];
	json_t *v;
	int found = 0, n = 0;
	char list[256], dym[128];
	json_object_foreach(o, k, v) {
		if (!strcmp(k, "name"))
			continue;
		if (method_find(k)) {
			*out = method_find(k);
			found++;
			continue;
		}
		for (n = 0; n < method_count() && n < 64; n++)
			names[n] = method_at(n)->name;
		char where[96];
		snprintf(where, sizeof where, "%s.%s", key, k);
		return fail(c, where, "unknown key%s", opts_did_you_mean(opts_suggest(k, names, n),
									 dym, sizeof dym));
	}
	if (found != 1)
		return fail(c, key, "give exactly one of %s",
			    opts_names(sweep_method_at, list, sizeof list));
	return STATUS_OK;
}

/* A method: {"name": N, "METHOD": {settings}}, or "family": NAME for
 * {"family": {"family": NAME}}. The settings are read by the method's own
 * option table (methods/), the same one the command line reads; "seeds"
 * (one task per seed) belongs to the sweep. */
static enum status parse_method(const struct ctx *c, json_t *o, int i, struct sweep_method *m,
				double cap)
{
	char key[64], where[700];
	snprintf(key, sizeof key, "methods[%d]", i);
	if (!json_is_object(o))
		return fail(c, key, "expected an object");
	json_t *name = json_object_get(o, "name");
	if (!json_is_string(name) || !*json_string_value(name) || strchr(json_string_value(name), '|'))
		return fail(c, key, "name: expected a non-empty string without '|'");
	if (!(m->name = strdup(json_string_value(name))))
		return fail(c, key, "out of memory");
	if (method_of(c, key, o, &m->method))
		return STATUS_ERROR;
	if (!m->method->run)
		return fail(c, key, "method '%s' runs only from the command line",
			    m->method->name);
	json_t *v = json_object_get(o, m->method->name);
	snprintf(key, sizeof key, "methods[%d].%s", i, m->method->name);
	if (json_is_string(v) && m->method == &method_family)   /* the short form */
		m->obj = json_pack("{s:O}", "family", v);
	else if (json_is_object(v))
		m->obj = json_deep_copy(v);
	else
		return fail(c, key, "expected an object");
	m->settings = calloc(1, m->method->size);
	if (!m->obj || !m->settings)
		return fail(c, key, "out of memory");
	bool seeded = m->method == &method_search;
	if (seeded) {
		if (parse_seeds(c, key, json_object_get(m->obj, "seeds"), m))
			return STATUS_ERROR;
		json_object_del(m->obj, "seeds");
	}
	struct opt_set set;
	method_opt_set(m->method, m->settings, &m->run, &set);
	opts_defaults(&set);
	snprintf(where, sizeof where, "spec '%s': %s", c->source, key);
	if (opts_from_json(&set, m->obj, where, c->err))
		return STATUS_ERROR;
	if (m->method == &method_family && !((struct family_settings *)m->settings)->family)
		return fail(c, key, "family: expected a family name (see 'pipeopt families')");
	/* a sweep runs tasks side by side: one thread each unless the spec says */
	if (!json_object_get(m->obj, "threads"))
		m->run.threads = 1;
	if (m->run.time_limit > cap)
		m->run.time_limit = cap;
	if (!(m->settings_json = opts_to_json(&set)))
		return fail(c, key, "out of memory");
	if (seeded)
		json_object_del(m->settings_json, "seed");
	if (digest_json(m->settings_json, m->digest))
		return fail(c, key, "out of memory");
	return STATUS_OK;
}

static enum status parse_methods(const struct ctx *c, json_t *root, struct sweep_spec *s)
{
	json_t *ms = json_object_get(root, "methods");
	if (!json_is_array(ms) || !json_array_size(ms) || json_array_size(ms) > 1000)
		return fail(c, "methods", "expected a list of 1 to 1000 methods");
	s->nmethods = (int)json_array_size(ms);
	if (!(s->methods = calloc(s->nmethods, sizeof *s->methods)))
		return fail(c, "methods", "out of memory");
	for (int i = 0; i < s->nmethods; i++) {
		if (parse_method(c, json_array_get(ms, i), i, &s->methods[i], s->time_limit))
			return STATUS_ERROR;
		for (int k = 0; k < i; k++)
			if (!strcmp(s->methods[k].name, s->methods[i].name))
				return fail(c, "methods", "two methods are called '%s'", s->methods[i].name);
	}
	return STATUS_OK;
}

/* ---- points ----------------------------------------------------------------------- */

/* Set value at the dotted key inside obj, creating objects on the way. */
static bool set_dotted(json_t *obj, const char *key, json_t *value)
{
	char part[256];
	const char *dot;
	while ((dot = strchr(key, '.'))) {
		size_t n = (size_t)(dot - key);
		if (!n || n >= sizeof part)
			return false;
		memcpy(part, key, n);
		part[n] = 0;
		json_t *next = json_object_get(obj, part);
		if (!next) {
			next = json_object();
			json_object_set_new(obj, part, next);
		}
		if (!json_is_object(next))
			return false;
		obj = next;
		key = dot + 1;
	}
	return *key && !json_object_set(obj, key, value);
}

/* What the point runs on, as a digest: the instance text (after the grid's
 * values), or the graph file's bytes, so an edited file runs again. */
static enum status point_digest(const struct ctx *c, struct sweep_point *p)
{
	if (p->instance) {
		digest_bytes(p->instance, strlen(p->instance), p->digest);
		return STATUS_OK;
	}
	char *text;
	if (file_slurp(p->graph, "graph", &text, c->err))
		return STATUS_ERROR;
	digest_bytes(text, strlen(text), p->digest);
	free(text);
	return STATUS_OK;
}

static enum status add_point(const struct ctx *c, struct sweep_spec *s, json_t *params,
			     json_t *instance, const char *graph, int devices)
{
	if (s->npoints >= SWEEP_MAX_TASKS)
		return fail(c, "instances", "more than %d points", SWEEP_MAX_TASKS);
	if (s->npoints == s->cap) {   /* doubling: a million points, not a million copies */
		int cap = s->cap ? 2 * s->cap : 64;
		struct sweep_point *pts = realloc(s->points, cap * sizeof *pts);
		if (!pts)
			return fail(c, "instances", "out of memory");
		s->points = pts;
		s->cap = cap;
	}
	struct sweep_point *p = &s->points[s->npoints++];
	memset(p, 0, sizeof *p);
	p->params = json_deep_copy(params);
	p->devices = devices;
	if (instance && !json_object_get(instance, "name")) {   /* "SWEEP-POINT" */
		char name[300];
		snprintf(name, sizeof name, "%s-%d", s->name, s->npoints - 1);
		json_object_set_new(instance, "name", json_string(name));
	}
	if (instance)
		p->instance = json_dumps(instance, JSON_COMPACT);
	if (graph)
		p->graph = strdup(graph);
	if (!p->params || (instance && !p->instance) || (graph && !p->graph))
		return fail(c, "instances", "out of memory");
	if (instance) {   /* validate now: a bad point fails before anything runs */
		char src[600];
		struct instance *in = NULL;
		char *shown = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
		snprintf(src, sizeof src, "%s, point %d %s", c->source, s->npoints - 1,
			 shown ? shown : "");
		free(shown);
		if (instance_parse(p->instance, src, &in, c->err))
			return STATUS_ERROR;
		/* the instance's sizes are inputs too (for files, the only ones) */
		if (!json_object_get(p->params, "devices"))
			json_object_set_new(p->params, "devices", json_integer(in->devices));
		if (!json_object_get(p->params, "microbatches"))
			json_object_set_new(p->params, "microbatches", json_integer(in->microbatches));
		if (!json_object_get(p->params, "stages"))
			json_object_set_new(p->params, "stages", json_integer(in->stages));
		instance_free(in);
	}
	if (!(p->key = json_dumps(p->params, JSON_COMPACT | JSON_SORT_KEYS)))
		return fail(c, "instances", "out of memory");
	return point_digest(c, p);
}

/* Tasks per point: repetitions x (one per method, one per seed of a
 * search), known before any point is built. */
static double tasks_per_point(const struct sweep_spec *s)
{
	double n = 0;
	for (int m = 0; m < s->nmethods; m++)
		n += s->methods[m].nseeds ? s->methods[m].nseeds : 1;
	return n * s->reps;
}

/* Every combination of the grid applied to base (a copy per point), with
 * extra params (e.g. the file) in each point's params. */
static enum status expand_grid(const struct ctx *c, struct sweep_spec *s, json_t *grid,
			       json_t *base, json_t *extra)
{
	int nk = grid ? (int)json_object_size(grid) : 0;
	const char *keys[64];
	json_t *vals[64];
	int idx[64] = {0};
	if (nk > 64)
		return fail(c, "instances.grid", "more than 64 keys");
	double total = 1;
	const char *k;
	json_t *v;
	int i = 0;
	if (grid)
		json_object_foreach(grid, k, v) {
			char key[300];
			snprintf(key, sizeof key, "instances.grid.%s", k);
			if (!json_is_array(v) || !json_array_size(v))
				return fail(c, key, "expected a non-empty list of values");
			keys[i] = k;
			vals[i++] = v;
			total *= (double)json_array_size(v);
		}
	if ((s->npoints + total) * tasks_per_point(s) > SWEEP_MAX_TASKS)
		return fail(c, "instances.grid", "%.0f points x %.0f tasks each (methods, seeds, repetitions) is more than %d tasks",
			    s->npoints + total, tasks_per_point(s), SWEEP_MAX_TASKS);
	for (i = 0; i < nk; i++) {
		int r = repeated(vals[i]);
		if (r >= 0) {
			char key[300];
			snprintf(key, sizeof key, "instances.grid.%s", keys[i]);
			return fail(c, key, "entry %d repeats an earlier value", r);
		}
	}
	for (;;) {
		json_t *inst = json_deep_copy(base), *params = json_deep_copy(extra);
		bool ok = inst && params;
		for (i = 0; ok && i < nk; i++) {
			json_t *x = json_array_get(vals[i], idx[i]);
			ok = set_dotted(inst, keys[i], x) && !json_object_set(params, keys[i], x);
			if (!ok) {
				json_decref(inst);
				json_decref(params);
				return fail(c, "instances.grid", "cannot set key '%s' in the instance", keys[i]);
			}
		}
		enum status st = ok ? add_point(c, s, params, inst, NULL, 0)
				    : fail(c, "instances", "out of memory");
		json_decref(inst);
		json_decref(params);
		if (st)
			return st;
		for (i = nk - 1; i >= 0; i--) {   /* the last key varies fastest */
			if (++idx[i] < (int)json_array_size(vals[i]))
				break;
			idx[i] = 0;
		}
		if (i < 0)
			return STATUS_OK;
	}
}

static enum status parse_files(const struct ctx *c, struct sweep_spec *s, json_t *files,
			       json_t *grid)
{
	if (!json_is_array(files) || !json_array_size(files))
		return fail(c, "instances.files", "expected a non-empty list of instance files");
	if (repeated(files) >= 0)
		return fail(c, "instances.files", "entry %d repeats an earlier file", repeated(files));
	for (size_t i = 0; i < json_array_size(files); i++) {
		const char *f = json_string_value(json_array_get(files, i));
		if (!f)
			return fail(c, "instances.files", "entry %zu: expected a path", i);
		char *path = resolve(c, f), *text = NULL;
		json_error_t je;
		json_t *base = NULL;
		enum status st = !path ? fail(c, "instances.files", "out of memory")
				       : file_slurp(path, "instance", &text, c->err);
		if (st && path)
			err_prefix(c->err, "spec '%s': instances.files[%zu]", c->source, i);
		if (!st && !(base = json_loads(text, JSON_REJECT_DUPLICATES, &je)))
			st = fail(c, "instances.files", "instance '%s': line %d, column %d: %s", path,
				  je.line, je.column, je.text);
		if (!st) {
			json_t *extra = json_pack("{s:s}", "file", f);
			st = expand_grid(c, s, grid, base, extra);
			json_decref(extra);
		}
		json_decref(base);
		free(text);
		free(path);
		if (st)
			return st;
	}
	return STATUS_OK;
}

static enum status parse_graphs(const struct ctx *c, struct sweep_spec *s, json_t *graphs,
				json_t *devices)
{
	if (!json_is_array(graphs) || !json_array_size(graphs))
		return fail(c, "instances.graphs", "expected a non-empty list of model graph files");
	if (!json_is_array(devices) || !json_array_size(devices))
		return fail(c, "instances.devices", "expected a non-empty list of device counts");
	if (repeated(graphs) >= 0)
		return fail(c, "instances.graphs", "entry %d repeats an earlier graph", repeated(graphs));
	if (repeated(devices) >= 0)
		return fail(c, "instances.devices", "entry %d repeats an earlier count", repeated(devices));
	if ((double)json_array_size(graphs) * json_array_size(devices) * tasks_per_point(s) > SWEEP_MAX_TASKS)
		return fail(c, "instances", "%zu graphs x %zu device counts x %.0f tasks each is more than %d tasks",
			    json_array_size(graphs), json_array_size(devices), tasks_per_point(s),
			    SWEEP_MAX_TASKS);
	for (size_t i = 0; i < json_array_size(graphs); i++) {
		const char *f = json_string_value(json_array_get(graphs, i));
		if (!f)
			return fail(c, "instances.graphs", "entry %zu: expected a path", i);
		char *path = resolve(c, f);
		if (!path)
			return fail(c, "instances.graphs", "out of memory");
		FILE *probe = fopen(path, "r");
		if (!probe) {
			enum status st = fail(c, "instances.graphs", "cannot open '%s'", path);
			free(path);
			return st;
		}
		fclose(probe);
		for (size_t k = 0; k < json_array_size(devices); k++) {
			json_t *d = json_array_get(devices, k);
			double x;
			if (!json_is_integer(d) || !number_in(d, 1, 4096, &x)) {
				free(path);
				return fail(c, "instances.devices", "entry %zu: expected an integer from 1 to 4096", k);
			}
			json_t *params = json_pack("{s:s,s:I}", "graph", f, "devices", json_integer_value(d));
			enum status st = add_point(c, s, params, NULL, path, (int)x);
			json_decref(params);
			if (st) {
				free(path);
				return st;
			}
		}
		free(path);
	}
	return STATUS_OK;
}

static enum status parse_instances(const struct ctx *c, json_t *root, struct sweep_spec *s)
{
	static const char *const known[] = {"base", "grid", "files", "graphs", "devices", NULL};
	json_t *v = json_object_get(root, "instances");
	if (!json_is_object(v))
		return fail(c, "instances", "expected an object with \"base\" and \"grid\", \"files\", or \"graphs\" and \"devices\"");
	if (check_keys(c, "instances", v, known))
		return STATUS_ERROR;
	json_t *base = json_object_get(v, "base"), *grid = json_object_get(v, "grid");
	json_t *files = json_object_get(v, "files"), *graphs = json_object_get(v, "graphs");
	if (!!base + !!files + !!graphs != 1)
		return fail(c, "instances", "give exactly one of \"base\", \"files\", \"graphs\"");
	if (grid && !json_is_object(grid))
		return fail(c, "instances.grid", "expected an object of key: [values]");
	if (graphs) {
		if (grid)
			return fail(c, "instances.grid", "not with \"graphs\" (use \"devices\")");
		return parse_graphs(c, s, graphs, json_object_get(v, "devices"));
	}
	if (json_object_get(v, "devices"))
		return fail(c, "instances.devices", "only with \"graphs\" (for instances, grid over \"devices\")");
	if (files)
		return parse_files(c, s, files, grid);
	if (!json_is_object(base))
		return fail(c, "instances.base", "expected an instance object");
	json_t *extra = json_object();
	enum status st = expand_grid(c, s, grid, base, extra);
	json_decref(extra);
	return st;
}

/* ---- tasks ------------------------------------------------------------------------ */

static enum status make_tasks(const struct ctx *c, struct sweep_spec *s)
{
	double n = 0;
	for (int m = 0; m < s->nmethods; m++)
		n += (double)s->npoints * s->reps *
		     (s->methods[m].nseeds ? s->methods[m].nseeds : 1);
	if (n > SWEEP_MAX_TASKS)
		return fail(c, "instances", "%.0f tasks, more than %d", n, SWEEP_MAX_TASKS);
	if (!(s->tasks = calloc(n ? (size_t)n : 1, sizeof *s->tasks)))
		return fail(c, "instances", "out of memory for %.0f tasks", n);
	for (int p = 0; p < s->npoints; p++)
		for (int m = 0; m < s->nmethods; m++) {
			const struct sweep_method *me = &s->methods[m];
			bool graph = s->points[p].graph != NULL;
			if (graph != me->method->on_graph)
				return fail(c, "methods", "method '%s' %s", me->name,
					    graph ? "runs on instances, but the points are model graphs (use \"partition\")"
						  : "partitions model graphs, but the points are instances");
			int seeds = me->nseeds ? me->nseeds : 1;
			for (int r = 0; r < s->reps; r++)
				for (int k = 0; k < seeds; k++) {
					struct sweep_task *t = &s->tasks[s->ntasks++];
					char tail[96];
					t->point = p;
					t->method = m;
					t->rep = r;
					t->has_seed = me->nseeds > 0;
					t->seed = t->has_seed ? me->seeds[k] : 0;
					/* the digests: a changed setting or input is a new task */
					if (t->has_seed)
						snprintf(tail, sizeof tail, "|%d|%llu|%s-%s", r,
							 (unsigned long long)t->seed, me->digest,
							 s->points[p].digest);
					else
						snprintf(tail, sizeof tail, "|%d|%s-%s", r, me->digest,
							 s->points[p].digest);
					size_t len = strlen(s->points[p].key) + strlen(me->name) + strlen(tail) + 2;
					if (!(t->key = malloc(len)))
						return fail(c, "instances", "out of memory");
					snprintf(t->key, len, "%s|%s%s", s->points[p].key, me->name, tail);
				}
		}
	return STATUS_OK;
}

static enum status parse_root(const struct ctx *c, json_t *root, struct sweep_spec *s)
{
	static const char *const known[] = {"name", "description", "instances", "methods",
					    "repetitions", "time_limit", NULL};
	if (!json_is_object(root))
		return err_set(c->err, "spec '%s': expected a JSON object at the top level", c->source);
	if (check_keys(c, "", root, known))
		return STATUS_ERROR;
	json_t *name = json_object_get(root, "name"), *reps = json_object_get(root, "repetitions");
	if (name && !json_is_string(name))
		return fail(c, "name", "expected a string");
	s->name = strdup(name ? json_string_value(name) : "sweep");
	double x;
	if (reps && !(json_is_integer(reps) && number_in(reps, 1, 1e6, &x)))
		return fail(c, "repetitions", "expected an integer from 1 to 1000000");
	s->reps = reps ? (int)json_integer_value(reps) : 1;
	s->time_limit = INFINITY;
	json_t *tl = json_object_get(root, "time_limit");
	if (tl && !number_in(tl, 1e-3, 1e7, &s->time_limit))
		return fail(c, "time_limit", "expected seconds from 0.001 to 1e7");
	if (!s->name)
		return fail(c, "name", "out of memory");
	return parse_methods(c, root, s) || parse_instances(c, root, s) || make_tasks(c, s) ?
		       STATUS_ERROR : STATUS_OK;
}

enum status sweep_spec_parse(const char *text, const char *source, const char *dir,
			     struct sweep_spec **out, struct error *err)
{
	struct ctx c = {source, dir ? dir : "", err};
	json_error_t je;
	*out = NULL;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return err_set(err, "spec '%s': line %d, column %d: %s", source, je.line, je.column,
			       je.text);
	struct sweep_spec *s = calloc(1, sizeof *s);
	enum status st = s ? parse_root(&c, root, s) : err_set(err, "spec '%s': out of memory", source);
	json_decref(root);
	if (st) {
		sweep_spec_free(s);
		return st;
	}
	*out = s;
	return STATUS_OK;
}

enum status sweep_spec_read(const char *path, struct sweep_spec **out, struct error *err)
{
	char *text, dir[PATH_MAX];
	*out = NULL;
	if (file_slurp(path, "spec", &text, err))
		return STATUS_ERROR;
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		dir[0] = 0;
	enum status st = sweep_spec_parse(text, path, dir, out, err);
	free(text);
	return st;
}

void sweep_spec_free(struct sweep_spec *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->npoints; i++) {
		json_decref(s->points[i].params);
		free(s->points[i].key);
		free(s->points[i].instance);
		free(s->points[i].graph);
	}
	for (int i = 0; i < s->nmethods; i++) {
		free(s->methods[i].name);
		free(s->methods[i].settings);
		json_decref(s->methods[i].obj);
		json_decref(s->methods[i].settings_json);
		free(s->methods[i].seeds);
	}
	for (int i = 0; i < s->ntasks; i++)
		free(s->tasks[i].key);
	free(s->points);
	free(s->methods);
	free(s->tasks);
	free(s->name);
	free(s);
}
