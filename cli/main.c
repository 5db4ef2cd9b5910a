/*
 * pipeopt: optimal pipeline-parallel schedules and partitions.
 * A table of subcommands in the style of git; one file per subcommand.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{"simulate", cmd_simulate, "time and validate a schedule on an instance"},
	{"generate", cmd_generate, "build a predefined family's schedule for an instance"},
	{"convert", cmd_convert, "convert a schedule between json, torch-csv, trace, svg, ascii"},
	{"bound", cmd_bound, "lower bounds on an instance's objective"},
	{"solve", cmd_solve, "an optimal schedule with a certificate (MILP: CBC or GLPK)"},
	{"search", cmd_search, "a genetic-algorithm search for large instances, with its gap to the bound"},
	{"search-validate", cmd_search_validate, "the GA against certified optima: share optimal, gaps, time to best"},
	{"graph", cmd_graph, "model graphs: 'graph sp' prints the series-parallel tree"},
	{"partition", cmd_partition, "cut a model graph into a DAG of pipeline stages (GraphPipe's DP)"},
	{"plan", cmd_plan, "partition a graph, then schedule the stage DAG: 1F1B vs the GA"},
	{"profile", cmd_profile, "per-operator costs of a model graph: cpu (OpenBLAS) or analytic"},
	{"sweep", cmd_sweep, "batch runs over parameter grids: resumable, threads or MPI, summary table"},
	{"exec", cmd_exec, "run a schedule on real tensors (threads) and check gradients, memory, time"},
	{"families", cmd_families, "list the predefined families, or compare them on an instance"},
	{"plot", cmd_plot, "SVG plots and the summary table of a sweep's results"},
};

#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
	fprintf(f, "usage: pipeopt COMMAND [ARGS] [--json]\n\n"
		   "pipeopt finds and checks pipeline-parallel training schedules.\n\n"
		   "commands:\n");
	for (int i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-16s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'pipeopt COMMAND --help' describes one command.\n");
}

int main(int argc, char **argv)
{
	opterr = 0;   /* getopt's own messages would add a second line */
	if (argc < 2) {
		fprintf(stderr, "error: no command given; commands:");
		for (int i = 0; i < NCOMMANDS; i++)
			fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
		fprintf(stderr, " (see 'pipeopt --help')\n");
		return EXIT_USAGE;
	}
	const char *name = argv[1];
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
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "error: '%s' is not a pipeopt command (see 'pipeopt --help')\n", name);
	return EXIT_USAGE;
}
