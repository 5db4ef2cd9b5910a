/*
 * GA throughput: genome decodes per second on one core (the GA's inner
 * loop), for the zb-auto genome of split-backward chains with comm and a
 * memory limit of p activations, and for children of it (a crossover with
 * the 1f1b genome plus three mutations: the repairs a search pays), and
 * the memory one genome takes.
 *
 * usage: bench_ga [--seconds S]   (per cell; default 0.5)
 * Prints a markdown table: p, m, ops, genome KiB, decodes/s and Mops/s for
 * the seed and for children.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga/genome.h"
#include "ga/operators.h"
#include "common/clock.h"
#include "sched/family.h"

struct cell {
	struct instance *in;
	struct layout lay;
	struct decoder *dc;
	gene_t *seed, *other, *child;
	int *scratch;
};

static int setup(struct cell *c, int p, int m)
{
	char json[512];
	struct error err;
	struct schedule *a = NULL, *b = NULL;
	snprintf(json, sizeof json,
		 "{\"devices\":%d,\"microbatches\":%d,"
		 "\"cost\":{\"F\":18522,\"B\":18086,\"W\":9337},\"comm\":601,"
		 "\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":%d}}", p, m, 2 * p);
	memset(c, 0, sizeof *c);
	if (instance_parse(json, "bench", &c->in, &err) || layout_init(&c->lay, c->in, &err) ||
	    family_generate("zb-auto", c->in, &a, &err) ||
	    family_generate("1f1b", c->in, &b, &err)) {
		fprintf(stderr, "error: %s\n", err.msg);
		return 1;
	}
	size_t n = c->lay.n;
	c->dc = decoder_new(&c->lay);
	c->seed = malloc(n * sizeof *c->seed);
	c->other = malloc(n * sizeof *c->other);
	c->child = malloc(n * sizeof *c->child);
	c->scratch = calloc(c->lay.nslots, sizeof *c->scratch);
	int rc = !c->dc || !c->seed || !c->other || !c->child || !c->scratch ||
		 genome_from_schedule(&c->lay, a, c->seed, &err) ||
		 genome_from_schedule(&c->lay, b, c->other, &err);
	schedule_free(a);
	schedule_free(b);
	return rc;
}

static void teardown(struct cell *c)
{
	decoder_free(c->dc);
	layout_release(&c->lay);
	instance_free(c->in);
	free(c->seed);
	free(c->other);
	free(c->child);
	free(c->scratch);
}

/* Decodes per second: of the seed itself, or of fresh children of it. */
static double rate(struct cell *c, bool children, double seconds)
{
	struct rng r;
	rng_seed(&r, 1);
	long runs = 0;
	double spent = 0;
	while (spent < seconds) {
		if (children) {
			ga_crossover(&c->lay, c->seed, c->other, c->child, &r, c->scratch);
			for (int i = 0; i < 3; i++)
				ga_mutate(&c->lay, c->child, (enum mutation)rng_below(&r, MUT_COUNT),
					  -1, &r);
		} else {
			memcpy(c->child, c->seed, c->lay.n * sizeof *c->child);
		}
		double t0 = clock_seconds();
		decoder_run(c->dc, c->child, NULL);
		spent += clock_seconds() - t0;
		runs++;
	}
	return runs / spent;
}

int main(int argc, char **argv)
{
	double seconds = 0.5;
	if (argc == 3 && !strcmp(argv[1], "--seconds"))
		seconds = atof(argv[2]);
	static const int cells[][2] = {{4, 8}, {8, 24}, {16, 128}, {32, 256}, {64, 1024}};
	printf("| p | m | ops | genome KiB | seed decodes/s | seed Mops/s | child decodes/s | child Mops/s |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
		struct cell c;
		if (setup(&c, cells[i][0], cells[i][1]))
			return 1;
		double s = rate(&c, false, seconds), k = rate(&c, true, seconds);
		printf("| %d | %d | %d | %.1f | %.0f | %.1f | %.0f | %.1f |\n", cells[i][0],
		       cells[i][1], c.lay.n, c.lay.n * sizeof(gene_t) / 1024.0, s, s * c.lay.n / 1e6,
		       k, k * c.lay.n / 1e6);
		teardown(&c);
	}
	return 0;
}
