/*
 * pipeopt: optimal pipeline-parallel schedules and partitions.
 * A table of subcommands in the style of git; one file per subcommand.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/stop.h"
#include "methods/method.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
	bool stoppable;   /* SIGINT/SIGTERM end it with its best so far (common/stop.h) */
};

static const struct command commands[] = {
	{"simulate", cmd_simulate, "time and validate a schedule on an instance", false},
	{"generate", cmd_generate, "build a predefined family's schedule for an instance", false},
	{"convert", cmd_convert, "convert a schedule between json, torch-csv, trace, svg, ascii", false},
	{"bound", cmd_bound, "lower bounds on an instance's objective", false},
	{"solve", cmd_solve, "an optimal schedule with a certificate (MILP: CBC or GLPK)", true},
	{"search", cmd_search, "a genetic-algorithm search for large instances, with its gap to the bound", true},
	{"search-validate", cmd_search_validate, "the GA against certified optima: share optimal, gaps, time to best", false},
	{"graph", cmd_graph, "model graphs: 'graph sp' prints the series-parallel tree", false},
	{"partition", cmd_partition, "cut a model graph into a DAG of pipeline stages (GraphPipe's DP)", true},
	{"plan", cmd_plan, "partition a graph, then schedule the stage DAG: 1F1B vs the GA", true},
	{"profile", cmd_profile, "per-operator costs of a model graph: cpu (OpenBLAS) or analytic", true},
	{"sweep", cmd_sweep, "batch runs over parameter grids: resumable, threads or MPI, summary table", true},
	{"exec", cmd_exec, "run a schedule on real tensors (threads) and check gradients, memory, time", false},
	{"families", cmd_families, "list the predefined families, or compare them on an instance", false},
	{"plot", cmd_plot, "SVG plots and the summary table of a sweep's results", false},
};

#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static const char *command_at(int i)
{
	return i >= 0 && i < NCOMMANDS ? commands[i].name : NULL;
}

/* The README's option tables (`pipeopt help --options`): the shared
 * options, then each method's, all from the tables themselves. */
static void print_option_tables(void)
{
	static const struct opt *const shared[] = {
		run_opts_json, run_opts_output, run_opts_threads, run_opts_time_limit,
		run_opts_progress, run_opts_timeline};
	struct run_opts run;
	struct opt_set set = {.cmd = "shared"};
	for (size_t t = 0; t < sizeof shared / sizeof *shared; t++)
		opts_add(&set, shared[t], &run);
	printf("Shared options: one name and one meaning in every command that takes them.\n\n"
	       "| option | default | sweep key | meaning |\n| --- | --- | --- | --- |\n");
	opts_markdown(&set, stdout);
	for (int i = 0; i < method_count(); i++) {
		const struct method *m = method_at(i);
		_Alignas(max_align_t) char settings[4096];   /* never read: markdown shows defaults */
		method_opt_set(m, settings, &run, &set);
		printf("\n`%s` (%s%s): %s.\n\n| option | default | sweep key | meaning |\n"
		       "| --- | --- | --- | --- |\n", m->name, m->run ? "command and sweep method" :
		       "command", m->on_graph ? ", on a model graph" : "", m->summary);
		opts_markdown(&set, stdout);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pipeopt COMMAND [ARGS] [--json]\n\n"
		   "pipeopt finds and checks pipeline-parallel training schedules.\n\n"
		   "commands:\n");
	for (int i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-16s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'pipeopt COMMAND --help' describes one command.\n");
}

/* A stoppable command catches SIGINT and SIGTERM: it ends with its best
 * result so far (printed, and written with -o) and exits STOP_EXIT. */
static int run_command(const struct command *c, int argc, char **argv)
{
	if (!c->stoppable)
		return c->run(argc, argv);
	stop_install();
	int rc = c->run(argc, argv);
	return stop_requested() ? STOP_EXIT : rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "error: no command given; commands:");
		for (int i = 0; i < NCOMMANDS; i++)
			fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
		fprintf(stderr, " (see 'pipeopt --help')\n");
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "help") && argc == 3 && !strcmp(argv[2], "--options")) {
		print_option_tables();
		return 0;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			for (int i = 0; i < NCOMMANDS; i++)
				if (!strcmp(argv[2], commands[i].name)) {
					char *av[] = {argv[2], "--help", NULL};
					return commands[i].run(2, av);
				}
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version")) {
		printf("pipeopt %s\n", PIPEOPT_VERSION);
		return 0;
	}
	for (int i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return run_command(&commands[i], argc - 1, argv + 1);
	char dym[128];
	fprintf(stderr, "error: '%s' is not a pipeopt command%s (see 'pipeopt --help')\n", name,
		opts_did_you_mean(opts_suggest_fn(name, command_at), dym, sizeof dym));
	return EXIT_USAGE;
}
