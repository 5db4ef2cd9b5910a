/* pipeopt profile GRAPH --device SOURCE[:DEVICE]: per-operator costs. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "methods/method.h"
#include "methods/settings.h"
#include "profile/profile.h"

static const char usage_text[] =
	"usage: pipeopt profile GRAPH --device SOURCE[:DEVICE] [options]\n\n"
	"Measure or model each operator's forward, input-gradient and weight-\n"
	"gradient time at each micro-batch size with a cost source (below), and\n"
	"write a cost table that 'pipeopt partition --costs' and 'plan --costs'\n"
	"read. cuda is built when nvcc is present; without a GPU it says so.\n"
	"The timed sources (cpu, cuda) take --warmup, --repeats,\n"
	"--time-limit (past it, or on Ctrl-C, nothing more is run: an operator's\n"
	"larger sizes are extrapolated, one never run stays null, and the table\n"
	"says \"stopped_by\" and \"complete\") and\n"
	"--max-seconds. --json prints the cost table with \"status\"; -o writes\n"
	"the cost table.\n";

/* After the options: the cost sources from the registry. */
static void print_sources(void)
{
	printf("\ncost sources:\n");
	for (int i = 0; i < cost_source_count(); i++) {
		const struct cost_source *s = cost_source_at(i);
		char name[64];
		snprintf(name, sizeof name, "%s%s%s", s->name, s->devices ? ":" : "",
			 s->devices ? s->devices : "");
		printf("  %-26s %s\n", name, s->summary);
	}
}

#define MAX_SIZES 16

struct prof_opts {
	struct profile_settings s;
	struct run_opts run;
	struct profile_options p;
	int sizes[MAX_SIZES];
};

/* --device NAME or NAME:DEVICE, a cost source by its registry name. */
static int parse_device(const char *s, struct prof_opts *o)
{
	char name[32], names[128];
	const char *colon = strchr(s, ':');
	snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - s) : (int)strlen(s), s);
	const struct cost_source *src = cost_source_find(name);
	if (!src || !src->devices != !colon)
		return cli_usage("profile", "unknown --device '%s' (%s)", s,
				 cost_source_names(names, sizeof names));
	o->p.source = src->name;
	o->p.device = colon ? colon + 1 : NULL;
	struct error err;
	if (src->prepare && src->prepare(&o->p, &err))
		return cli_usage("profile", "--device %s: %s", s, err.msg);
	return 0;
}

static int parse(int argc, char **argv, struct prof_opts *o, char **graph)
{
	struct opt_set set;
	memset(o, 0, sizeof *o);
	method_opt_set(&method_profile, &o->s, &o->run, &set);
	cli_shared(&set, &o->run, CLI_OUTPUT | CLI_JSON);
	int npos, rc = cli_parse(&set, usage_text, argc, argv, graph, 1, 1, &npos,
				 "expected one GRAPH file");
	if (rc < 0)
		print_sources();
	if (rc)
		return rc;
	o->p.warmup = (int)o->s.warmup;
	o->p.repeats = (int)o->s.repeats;
	o->p.max_seconds = o->s.max_seconds;
	o->p.time_limit = o->run.time_limit;
	if (o->s.sizes) {
		if (!cli_sizes(o->s.sizes, MAX_SIZES, 1 << 20, o->sizes, &o->p.nsizes))
			return cli_usage("profile", "--sizes needs up to %d ascending whole numbers, comma-separated",
					 MAX_SIZES);
		o->p.sizes = o->sizes;
	}
	if (!o->s.device) {
		char names[128];
		return cli_usage("profile", "--device is required (%s)",
				 cost_source_names(names, sizeof names));
	}
	return parse_device(o->s.device, o);
}

static void print_human(const json_t *t)
{
	const json_t *sizes = json_object_get(t, "microbatch_sizes"), *ops = json_object_get(t, "ops");
	printf("costs       %s on %s, microseconds per micro-batch (fwd / bwd / wgrad; * extrapolated)\n",
	       json_string_value(json_object_get(t, "source")),
	       json_string_value(json_object_get(t, "device")));
	printf("%-20s", "operator");
	for (size_t i = 0; i < json_array_size(sizes); i++)
		printf("  size %-18lld", (long long)json_integer_value(json_array_get(sizes, i)));
	printf("\n");
	for (size_t k = 0; k < json_array_size(ops); k++) {
		const json_t *op = json_array_get(ops, k);
		printf("%-20.20s", json_string_value(json_object_get(op, "name")));
		for (size_t i = 0; i < json_array_size(sizes); i++)
			printf("  %7.1f/%7.1f/%7.1f%s",
			       json_real_value(json_array_get(json_object_get(op, "fwd"), i)),
			       json_real_value(json_array_get(json_object_get(op, "bwd"), i)),
			       json_real_value(json_array_get(json_object_get(op, "wgrad"), i)),
			       json_is_true(json_array_get(json_object_get(op, "measured"), i)) ||
				       !strcmp(json_string_value(json_object_get(t, "source")), "analytic")
				       ? " " : "*");
		printf("\n");
	}
}

/* The cost table with "status" first, otherwise as -o writes it (readers
 * of cost tables ignore the extra key); NULL when out of memory. */
static char *json_text(const json_t *t)
{
	json_t *j = json_pack("{s:s}", "status", "ok");
	char *text = j && !json_object_update(j, (json_t *)t) ? json_dumps(j, JSON_INDENT(1)) : NULL;
	json_decref(j);
	return text;
}

int cmd_profile(int argc, char **argv)
{
	struct prof_opts o;
	char *path;
	int rc = parse(argc, argv, &o, &path);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct graph *g = NULL;
	json_t *t = NULL;
	char *text = NULL, *shown = NULL;
	if (graph_read(path, &g, &err) || profile_graph(g, &o.p, &t, &err) ||
	    !(text = json_dumps(t, JSON_INDENT(1))) ||
	    (o.run.json && !(shown = json_text(t))) ||
	    (o.run.output && cli_write(o.run.output, text, &err))) {
		if (t && (!text || (o.run.json && !shown)))
			err_set(&err, "profile: out of memory");
		rc = cli_fail(o.run.json, &err);
		goto out;
	}
	if (o.run.json)
		printf("%s\n", shown);
	else
		print_human(t);
out:
	free(shown);
	free(text);
	json_decref(t);
	graph_free(g);
	return rc;
}
