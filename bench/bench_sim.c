/*
 * Simulator throughput: ops timed and validated per second on one core,
 * for 1F1B schedules of split-backward chains with comm and a memory limit
 * (the GA's fitness evaluation). Target: >= 20 million ops/s.
 *
 * usage: bench_sim [--seconds S]   (per cell; default 0.5)
 * Prints a markdown table: p, m, ops per schedule, runs, ns/op, Mops/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "sched/family.h"
#include "sched/sim.h"


static int bench_cell(int p, int m, double seconds)
{
	char json[512];
	struct error err;
	struct instance *in;
	struct schedule *s;
	snprintf(json, sizeof json,
		 "{\"devices\":%d,\"microbatches\":%d,"
		 "\"cost\":{\"F\":18522,\"B\":18086,\"W\":9337},\"comm\":601,"
		 "\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":%d}}",
		 p, m, 2 * p + 2);
	if (instance_parse(json, "bench", &in, &err) ||
	    family_generate("1f1b", in, &s, &err)) {
		fprintf(stderr, "error: %s\n", err.msg);
		return 1;
	}
	struct sim *sim = sim_new(in);
	struct sim_result r;
	long runs = 0;
	double t0 = clock_seconds(), t;
	int64_t check = 0;
	do {
		for (int i = 0; i < 8; i++, runs++) {
			if (sim_run(sim, s, &r, NULL)) {
				fprintf(stderr, "error: 1f1b invalid at p=%d m=%d\n", p, m);
				return 1;
			}
			check += r.makespan;
		}
		t = clock_seconds() - t0;
	} while (t < seconds);
	double ops = (double)inst_nops(in) * (double)runs;
	printf("| %3d | %5d | %8d | %7ld | %7.1f | %7.1f |\n", p, m, inst_nops(in),
	       runs, 1e9 * t / ops, ops / t / 1e6);
	if (check == 0)
		printf("(impossible)\n");
	sim_free(sim);
	schedule_free(s);
	instance_free(in);
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = 0.5;
	if (argc == 3 && !strcmp(argv[1], "--seconds"))
		seconds = atof(argv[2]);
	static const int ps[] = {8, 32, 64}, ms[] = {64, 256, 1024};
	printf("| p | m | ops | runs | ns/op | Mops/s |\n");
	printf("|---|---|---|---|---|---|\n");
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (bench_cell(ps[i], ms[j], seconds))
				return 1;
	return 0;
}
