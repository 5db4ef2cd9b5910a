/*
 * The family registry: the embedded schedule-language programs, in a fixed
 * order, plus the families written in C.
 */
#include "sched/family.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/greedy.h"
#include "sched/zb_auto.h"

/* The listing order; embedded programs not named here follow, by file. */
static const char *const order[] = {
	"gpipe", "1f1b", "interleaved", "looped-bfs", "zb-h1", "zb-h2", "zb-v",
	"v-half", "v-min",
	"dualpipev", "dualpipe", "bitpipe", "hanayo", "torch-interleaved-zb", "1f1b-dag", "zb-auto",
	"zb-warm", "backward-first", NULL};

#define MAX_FAMILIES 64

static struct family families[MAX_FAMILIES];
static int nfamilies;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static struct family c_families[] = {
	{"zb-auto", "Zero Bubble's greedy heuristic: 8 variants of warm-up and W placement, the best kept",
	 "chains with one stage per device; honours memory limits and comm", NULL, NULL,
	 zb_auto_generate},
	{"zb-warm", "zb-auto with each stage's warm-up from the warm-up lower bound's extremal choice, or zb-auto's own if better (pipeopt's)",
	 "chains with one stage per device; honours memory limits and comm", NULL, NULL,
	 zb_warm_generate},
	{"backward-first", "list scheduling: a free device runs its oldest ready B, else a forward that fits in memory, else its oldest W",
	 "any placement and stage DAG; honours memory limits and comm", NULL, NULL,
	 backward_first_generate},
};

static void add(struct family f)
{
	if (nfamilies == MAX_FAMILIES) {
		fprintf(stderr, "pipeopt: more than %d families\n", MAX_FAMILIES);
		abort();
	}
	families[nfamilies++] = f;
}

/* Parse every embedded program into a family entry (unordered). */
static int load_programs(struct family *found)
{
	int n = 0;
	for (int i = 0; builtin_programs[i].file; i++) {
		struct program *pg;
		if (n == MAX_FAMILIES) {
			fprintf(stderr, "pipeopt: more than %d built-in programs\n", MAX_FAMILIES);
			abort();
		}
		struct error err;
		if (program_parse(builtin_programs[i].text, builtin_programs[i].file,
				  &pg, &err)) {
			fprintf(stderr, "pipeopt: built-in %s\n", err.msg);
			abort();
		}
		char *file = malloc(strlen(builtin_programs[i].file) + 32);
		sprintf(file, "datasets/schedules/%s", builtin_programs[i].file);
		found[n++] = (struct family){
			program_name(pg) ? program_name(pg) : builtin_programs[i].file,
			program_summary(pg), program_supports(pg), file, pg, NULL};
	}
	return n;
}

static void load(void)
{
	struct family found[MAX_FAMILIES];
	int n = load_programs(found);
	bool used[MAX_FAMILIES] = {0};
	for (int k = 0; order[k]; k++) {
		for (int i = 0; i < n; i++)
			if (!used[i] && !strcmp(found[i].name, order[k])) {
				add(found[i]);
				used[i] = true;
			}
		for (size_t c = 0; c < sizeof c_families / sizeof c_families[0]; c++)
			if (!strcmp(c_families[c].name, order[k]))
				add(c_families[c]);
	}
	for (int i = 0; i < n; i++)
		if (!used[i])
			add(found[i]);
}

int family_count(void)
{
	pthread_once(&once, load);
	return nfamilies;
}

const struct family *family_at(int i)
{
	pthread_once(&once, load);
	return &families[i];
}

const struct family *family_find(const char *name)
{
	for (int i = 0; i < family_count(); i++)
		if (!strcmp(families[i].name, name))
			return &families[i];
	return NULL;
}

enum status family_run(const struct family *f, const struct instance *in,
		       struct schedule **out, struct error *err)
{
	if (f->program)
		return program_run(f->program, in, out, err);
	return f->generate(in, out, err);
}

enum status family_generate(const char *name, const struct instance *in,
			    struct schedule **out, struct error *err)
{
	const struct family *f = family_find(name);
	*out = NULL;
	if (!f) {
		char list[512] = "";
		for (int i = 0; i < family_count(); i++) {
			strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
			strncat(list, families[i].name, sizeof list - strlen(list) - 1);
		}
		return err_set(err, "unknown family '%s' (known: %s)", name, list);
	}
	return family_run(f, in, out, err);
}

struct schedule *family_grouped(const struct instance *in, int g)
{
	struct schedule *s = schedule_new(in->devices);
	int M = in->microbatches;
	for (int j0 = 0; s && j0 < M; j0 += g) {
		int j1 = j0 + g < M ? j0 + g : M;
		for (int j = j0; j < j1; j++)
			for (int i = 0; i < in->stages; i++) {
				int l = in->topo[i];
				schedule_push(s, in->stage_device[l], OP_F, l, j);
			}
		for (int j = j0; j < j1; j++)
			for (int i = in->stages - 1; i >= 0; i--) {
				int l = in->topo[i];
				schedule_push(s, in->stage_device[l], OP_B, l, j);
				if (in->split_backward)
					schedule_push(s, in->stage_device[l], OP_W, l, j);
			}
	}
	return s;
}

struct schedule *family_serial(const struct instance *in)
{
	return family_grouped(in, 1);
}
