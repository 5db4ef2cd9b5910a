/* pipeopt profile GRAPH --device SOURCE[:DEVICE]: per-operator costs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "profile/profile.h"

static const char usage_text[] =
	"usage: pipeopt profile GRAPH --device SOURCE[:DEVICE] [options]\n\n"
	"Measure or model each operator's forward, input-gradient and weight-\n"
	"gradient time at each micro-batch size with a cost source (below), and\n"
	"write a cost table that 'pipeopt partition --costs' and 'plan --costs'\n"
	"read. cuda is built when nvcc is present; without a GPU it says so.\n\n"
	"  --device D               a cost source (required; below)\n"
	"  --sizes L                comma-separated micro-batch sizes (default: the graph's)\n"
	"  --warmup N               cpu: runs before measuring (default 2)\n"
	"  --repeats N              cpu: measured runs, the median is kept (default 5)\n"
	"  --max-seconds S          cpu: after a run this slow, larger sizes are\n"
	"                           extrapolated linearly and marked (default 1)\n"
	"  -o, --output COSTS       write the cost table\n"
	"  --json                   print the cost table\n";

/* The usage, then the cost sources from the registry. */
static void usage(void)
{
	fputs(usage_text, stdout);
	printf("\nCost sources:\n");
	for (int i = 0; i < cost_source_count(); i++) {
		const struct cost_source *s = cost_source_at(i);
		char name[64];
		snprintf(name, sizeof name, "%s%s%s", s->name, s->devices ? ":" : "",
			 s->devices ? s->devices : "");
		printf("  %-24s %s\n", name, s->summary);
	}
}

#define MAX_SIZES 16

struct prof_opts {
	struct profile_options p;
	int sizes[MAX_SIZES];
	const char *output;
	bool json;
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

static int parse(int argc, char **argv, struct prof_opts *o)
{
	static const struct option opts[] = {
		{"device", required_argument, 0, 'd'}, {"sizes", required_argument, 0, 's'},
		{"warmup", required_argument, 0, 'w'}, {"repeats", required_argument, 0, 'r'},
		{"max-seconds", required_argument, 0, 'm'}, {"output", required_argument, 0, 'o'},
		{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0}};
	int c, rc;
	double v;
	bool device = false;
	memset(o, 0, sizeof *o);
	o->p.warmup = 2;
	o->p.repeats = 5;
	o->p.max_seconds = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if ((rc = parse_device(optarg, o)))
				return rc;
			device = true;
			break;
		case 's':
			if (!cli_sizes(optarg, MAX_SIZES, 1 << 20, o->sizes, &o->p.nsizes))
				return cli_usage("profile", "--sizes needs up to %d ascending whole numbers, comma-separated",
						 MAX_SIZES);
			o->p.sizes = o->sizes;
			break;
		case 'w':
			if (!cli_number(optarg, 0, 1000, true, &v))
				return cli_usage("profile", "--warmup needs 0 to 1000");
			o->p.warmup = (int)v;
			break;
		case 'r':
			if (!cli_number(optarg, 1, 64, true, &v))
				return cli_usage("profile", "--repeats needs 1 to 64");
			o->p.repeats = (int)v;
			break;
		case 'm':
			if (!cli_number(optarg, 1e-6, 1e6, false, &o->p.max_seconds))
				return cli_usage("profile", "--max-seconds needs seconds > 0");
			break;
		case 'o': o->output = optarg; break;
		case 'j': o->json = true; break;
		case 'h': usage(); return -1;
		default:
			return cli_usage("profile", "unknown option or missing value in '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage("profile", "expected one GRAPH file");
	if (!device) {
		char names[128];
		return cli_usage("profile", "--device is required (%s)",
				 cost_source_names(names, sizeof names));
	}
	return 0;
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

int cmd_profile(int argc, char **argv)
{
	struct prof_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct error err;
	struct graph *g = NULL;
	json_t *t = NULL;
	char *text = NULL;
	if (graph_read(argv[optind], &g, &err) || profile_graph(g, &o.p, &t, &err) ||
	    !(text = json_dumps(t, JSON_INDENT(1))) ||
	    (o.output && cli_write(o.output, text, &err))) {
		if (t && !text)
			err_set(&err, "profile: out of memory");
		rc = cli_fail(o.json, &err);
		goto out;
	}
	if (o.json)
		printf("%s\n", text);
	else
		print_human(t);
out:
	free(text);
	json_decref(t);
	graph_free(g);
	return rc;
}
