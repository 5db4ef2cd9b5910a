/*
 * Tests for sweep/: the spec (grid expansion in the documented order,
 * dotted keys set into the instance, instance files and model graphs as
 * points, one-line errors naming the spec and the key), the results file
 * (append and load, a torn last line cut off, a bad middle line refused,
 * CSV quoting and params.KEY columns), one task run in process (objectives
 * worked out by hand, certified only against a proven bound, exact solves
 * against the brute force of brute.h) and the runner's resume by task key.
 *
 * Expected values come from the spec text and hand arithmetic, never from
 * the code under test. Files go to a mkdtemp directory that the group
 * teardown removes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test_helpers.h"
#include "json_get.h"
#include "tmpdir.h"

#include "brute.h"
#include "tiny_instances.h"
#include "sweep/results.h"
#include "sweep/run.h"
#include "methods/settings.h"
#include "sweep/spec.h"
#include "sweep/sweep.h"
#include "common/sha256.h"


/* The digests a task key ends with, computed here from the task's parts:
 * "|" SHA-256(settings, compact sorted JSON)[:12] "-" SHA-256(instance
 * text)[:12] (sweep/README.md). */
static void key_digests(const struct sweep_spec *s, const struct sweep_task *t, char *out,
			size_t n)
{
	char a[65], b[65];
	char *text = json_dumps(s->methods[t->method].settings_json,
				JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	assert_non_null(text);
	sha256_hex(text, strlen(text), a);
	free(text);
	const char *in = s->points[t->point].instance;
	assert_non_null(in);
	sha256_hex(in, strlen(in), b);
	snprintf(out, n, "|%.12s-%.12s", a, b);
}

static char tmpdir[PATH_MAX];

/* path of `name` inside the temp directory */
#define tmp(name) path_join(tmpdir, (name))

/* ---- helpers ---------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		fail_msg("cannot write '%s': %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot read '%s': %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long)st.st_size;
}

static double now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static struct sweep_spec *parse_ok(const char *text, const char *dir)
{
	struct sweep_spec *s = NULL;
	struct error err = {{0}};
	if (sweep_spec_parse(text, "test-spec.json", dir, &s, &err))
		fail_msg("spec rejected: %s", err.msg);
	assert_non_null(s);
	return s;
}

static json_int_t param_int(const struct sweep_point *p, const char *key)
{
	json_t *v = json_object_get(p->params, key);
	if (!json_is_integer(v))
		fail_msg("point %s: param '%s' missing or not an integer", p->key, key);
	return json_integer_value(v);
}

static struct instance *point_instance(const struct sweep_point *p)
{
	assert_non_null(p->instance);
	struct instance *in = NULL;
	struct error err = {{0}};
	if (instance_parse(p->instance, "point", &in, &err))
		fail_msg("point %s: instance does not parse: %s", p->key, err.msg);
	return in;
}

/* Every task key of the spec is different from every other. */
static void assert_keys_unique(const struct sweep_spec *s)
{
	json_t *seen = json_object();
	for (int i = 0; i < s->ntasks; i++) {
		if (json_object_get(seen, s->tasks[i].key))
			fail_msg("task %d repeats the key '%s'", i, s->tasks[i].key);
		json_object_set_new(seen, s->tasks[i].key, json_true());
	}
	assert_int_equal(json_object_size(seen), s->ntasks);
	json_decref(seen);
}

/* The index of the task with method name `method` (and seed, if a
 * search) on point p. */
static const struct sweep_task *find_task(const struct sweep_spec *s, int p, const char *method,
					  long seed)
{
	for (int i = 0; i < s->ntasks; i++) {
		const struct sweep_task *t = &s->tasks[i];
		if (t->point == p && !strcmp(s->methods[t->method].name, method) &&
		    (!t->has_seed || (long)t->seed == seed))
			return t;
	}
	fail_msg("no task for point %d, method %s", p, method);
	return NULL;
}

#define BASE "\"base\": {\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 1, \"B\": 1}}"
#define ONE_METHOD "\"methods\": [{\"name\": \"a\", \"family\": \"1f1b\"}]"

/* ---- the grid ---------------------------------------------------------------- */

#define GRID_SPEC                                                                           \
	"{\"name\": \"g\",\n"                                                                \
	" \"instances\": {\n"                                                                \
	"   \"base\": {\"devices\": 2, \"microbatches\": 4, \"cost\": {\"F\": 2, \"B\": 2, \"W\": 1}},\n" \
	"   \"grid\": {\"devices\": [2, 3], \"microbatches\": [2, 3, 4], \"cost.W\": [1, 2]}},\n" \
	" \"methods\": [\n"                                                                  \
	"   {\"name\": \"1f1b\", \"family\": \"1f1b\"},\n"                                   \
	"   {\"name\": \"exact\", \"solve\": {\"solver\": \"cbc\", \"time_limit\": 20}},\n" \
	"   {\"name\": \"ga\", \"search\": {\"time_limit\": 1, \"seeds\": [1, 2, 3]}}]%s}"

/* 2 x 3 x 2 values: 12 points, the last key (cost.W) fastest, then
 * microbatches, then devices; tasks = 12 x (1 + 1 + 3 seeds). Params:
 * the grid's keys and the instance's stages (one per device here). */
static void test_grid_order(void **state)
{
	char text[2048];
	snprintf(text, sizeof text, GRID_SPEC, "");
	struct sweep_spec *s = parse_ok(text, "");
	/* written out by hand from the nesting devices > microbatches > cost.W */
	static const int want[12][3] = {
		{2, 2, 1}, {2, 2, 2}, {2, 3, 1}, {2, 3, 2}, {2, 4, 1}, {2, 4, 2},
		{3, 2, 1}, {3, 2, 2}, {3, 3, 1}, {3, 3, 2}, {3, 4, 1}, {3, 4, 2},
	};
	assert_int_equal(s->npoints, 12);
	assert_int_equal(s->nmethods, 3);
	assert_int_equal(s->reps, 1);
	assert_string_equal(s->name, "g");
	for (int i = 0; i < 12; i++) {
		const struct sweep_point *p = &s->points[i];
		assert_int_equal(json_object_size(p->params), 4);
		if (param_int(p, "devices") != want[i][0] || param_int(p, "microbatches") != want[i][1] ||
		    param_int(p, "cost.W") != want[i][2] || param_int(p, "stages") != want[i][0])
			fail_msg("point %d is %s, expected devices %d, microbatches %d, cost.W %d", i,
				 p->key, want[i][0], want[i][1], want[i][2]);
		assert_null(p->graph);
		/* and the values really are in the instance */
		struct instance *in = point_instance(p);
		assert_int_equal(in->devices, want[i][0]);
		assert_int_equal(in->microbatches, want[i][1]);
		assert_true(in->split_backward);
		assert_int_equal(in->cost[OP_F][0], 2);   /* from base, untouched */
		assert_int_equal(in->cost[OP_W][in->stages - 1], want[i][2]);
		instance_free(in);
	}
	/* the point key: params as compact JSON with sorted keys */
	assert_string_equal(s->points[0].key, "{\"cost.W\":1,\"devices\":2,\"microbatches\":2,\"stages\":2}");
	assert_string_equal(s->points[9].key, "{\"cost.W\":2,\"devices\":3,\"microbatches\":3,\"stages\":3}");

	assert_int_equal(s->ntasks, 12 * (1 + 1 + 3));
	assert_keys_unique(s);
	/* every (point, method[, seed]) exactly once, with a key built from its parts */
	int count[12][3] = {{0}};
	for (int i = 0; i < s->ntasks; i++) {
		const struct sweep_task *t = &s->tasks[i];
		assert_in_range(t->point, 0, 11);
		assert_in_range(t->method, 0, 2);
		assert_int_equal(t->rep, 0);
		assert_int_equal(t->has_seed, t->method == 2);
		char key[512], dig[40];
		key_digests(s, t, dig, sizeof dig);
		if (t->has_seed) {
			assert_in_range(t->seed, 1, 3);
			snprintf(key, sizeof key, "%s|ga|0|%d%s", s->points[t->point].key, (int)t->seed,
				 dig);
		} else {
			snprintf(key, sizeof key, "%s|%s|0%s", s->points[t->point].key,
				 t->method ? "exact" : "1f1b", dig);
		}
		assert_string_equal(t->key, key);
		count[t->point][t->method]++;
	}
	for (int p = 0; p < 12; p++) {
		assert_int_equal(count[p][0], 1);
		assert_int_equal(count[p][1], 1);
		assert_int_equal(count[p][2], 3);
	}
	/* the methods as written */
	assert_ptr_equal(s->methods[0].method, &method_family);
	assert_string_equal(((struct family_settings *)s->methods[0].settings)->family, "1f1b");
	assert_ptr_equal(s->methods[1].method, &method_solve);
	assert_string_equal(((struct solve_settings *)s->methods[1].settings)->solver, "cbc");
	assert_double_near(s->methods[1].run.time_limit, 20, 0);
	assert_ptr_equal(s->methods[2].method, &method_search);
	assert_int_equal(s->methods[2].nseeds, 3);
	assert_double_near(s->methods[2].run.time_limit, 1, 0);
	sweep_spec_free(s);

	/* repetitions multiply the tasks; the keys stay unique (REP in them) */
	snprintf(text, sizeof text, GRID_SPEC, ", \"repetitions\": 2, \"time_limit\": 5");
	s = parse_ok(text, "");
	assert_int_equal(s->reps, 2);
	assert_double_near(s->time_limit, 5, 0);
	assert_int_equal(s->ntasks, 2 * 12 * 5);
	assert_keys_unique(s);
	char key[256];
	snprintf(key, sizeof key, "%s|ga|1|3|", s->points[11].key);   /* then the digests */
	bool found = false;
	for (int i = 0; i < s->ntasks; i++)
		found |= !strncmp(s->tasks[i].key, key, strlen(key));
	if (!found)
		fail_msg("no task '%s'", key);
	sweep_spec_free(s);
}

/* Dotted keys set the nested value beside its siblings: cost.F (every
 * stage), memory.limit (every device). */
static void test_grid_dotted_keys(void **state)
{
	struct sweep_spec *s = parse_ok(
		"{\"instances\": {\"base\": {\"devices\": 3, \"microbatches\": 4,"
		" \"cost\": {\"F\": 2, \"B\": 3, \"W\": 1},"
		" \"memory\": {\"F\": 2, \"B\": -1, \"W\": -1}},"
		" \"grid\": {\"memory.limit\": [4, 9], \"cost.F\": [5, 7]}},"
		" \"methods\": [{\"name\": \"a\", \"family\": \"zb-h1\"}]}", "");
	static const int want[4][2] = {{4, 5}, {4, 7}, {9, 5}, {9, 7}};
	assert_int_equal(s->npoints, 4);
	for (int i = 0; i < 4; i++) {
		struct instance *in = point_instance(&s->points[i]);
		assert_true(in->has_limit);
		for (int d = 0; d < in->devices; d++)
			assert_int_equal(in->limit[d], want[i][0]);
		for (int l = 0; l < in->stages; l++) {
			assert_int_equal(in->cost[OP_F][l], want[i][1]);
			assert_int_equal(in->cost[OP_B][l], 3);
		}
		assert_int_equal(in->mem[OP_F][0], 2);   /* the sibling keys survive */
		assert_int_equal(param_int(&s->points[i], "memory.limit"), want[i][0]);
		assert_int_equal(param_int(&s->points[i], "cost.F"), want[i][1]);
		instance_free(in);
	}
	sweep_spec_free(s);

	/* no grid: the base is the only point; its params are the sizes */
	s = parse_ok("{\"instances\": {\"base\": {\"devices\": 2, \"microbatches\": 2,"
		     " \"cost\": {\"F\": 1, \"B\": 1}}},"
		     " \"methods\": [{\"name\": \"a\", \"family\": \"1f1b\"}]}", NULL);
	assert_int_equal(s->npoints, 1);
	assert_int_equal(s->ntasks, 1);
	assert_string_equal(s->points[0].key, "{\"devices\":2,\"microbatches\":2,\"stages\":2}");
	char dig[40], key0[200];
	key_digests(s, &s->tasks[0], dig, sizeof dig);
	snprintf(key0, sizeof key0, "{\"devices\":2,\"microbatches\":2,\"stages\":2}|a|0%s", dig);
	assert_string_equal(s->tasks[0].key, key0);
	sweep_spec_free(s);
}

/* Instance files relative to the spec's folder: one point per file per
 * grid combination, files outermost, params carry the file as written
 * and the instance's sizes. */
static void test_files_spec(void **state)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/files", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof dir, "%s/files/sub", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_file(tmp("files/a.json"),
		   "{\"name\": \"inst-a\", \"devices\": 2, \"microbatches\": 4, \"cost\": {\"F\": 1, \"B\": 2}}");
	write_file(tmp("files/sub/b.json"),
		   "{\"devices\": 3, \"microbatches\": 6, \"cost\": {\"F\": 4, \"B\": 5}, \"comm\": 1}");
	write_file(tmp("files/spec.json"),
		   "{\"name\": \"fs\", \"instances\": {\"files\": [\"a.json\", \"sub/b.json\"],"
		   " \"grid\": {\"microbatches\": [2, 3]}},"
		   " \"methods\": [{\"name\": \"1f1b\", \"family\": \"1f1b\"},"
		   " {\"name\": \"gpipe\", \"family\": \"gpipe\"}]}");
	struct sweep_spec *s = NULL;
	struct error err = {{0}};
	/* read from another working directory: paths resolve against the spec's folder */
	if (sweep_spec_read(tmp("files/spec.json"), &s, &err))
		fail_msg("%s", err.msg);
	static const struct {
		const char *file;
		int mb, devices, f;
	} want[] = {{"a.json", 2, 2, 1}, {"a.json", 3, 2, 1}, {"sub/b.json", 2, 3, 4}, {"sub/b.json", 3, 3, 4}};
	assert_int_equal(s->npoints, 4);
	assert_int_equal(s->ntasks, 8);
	for (int i = 0; i < 4; i++) {
		const struct sweep_point *p = &s->points[i];
		assert_string_equal(json_string_value(json_object_get(p->params, "file")), want[i].file);
		assert_int_equal(param_int(p, "microbatches"), want[i].mb);
		assert_int_equal(param_int(p, "devices"), want[i].devices);
		assert_int_equal(param_int(p, "stages"), want[i].devices);
		assert_int_equal(json_object_size(p->params), 4);
		struct instance *in = point_instance(p);
		assert_int_equal(in->devices, want[i].devices);
		assert_int_equal(in->microbatches, want[i].mb);
		assert_int_equal(in->cost[OP_F][0], want[i].f);
		if (i < 2)
			assert_string_equal(in->name, "inst-a");   /* a file's own name is kept */
		else
			assert_string_equal(in->name, i == 2 ? "fs-2" : "fs-3");   /* else SWEEP-POINT */
		instance_free(in);
	}
	assert_keys_unique(s);
	sweep_spec_free(s);

	/* without a grid: one point per file */
	write_file(tmp("files/spec2.json"),
		   "{\"instances\": {\"files\": [\"sub/b.json\", \"a.json\"]},"
		   " \"methods\": [{\"name\": \"1f1b\", \"family\": \"1f1b\"}]}");
	if (sweep_spec_read(tmp("files/spec2.json"), &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s->npoints, 2);
	assert_string_equal(s->points[0].key,
			    "{\"devices\":3,\"file\":\"sub/b.json\",\"microbatches\":6,\"stages\":3}");
	assert_string_equal(s->points[1].key,
			    "{\"devices\":2,\"file\":\"a.json\",\"microbatches\":4,\"stages\":2}");
	struct instance *in = point_instance(&s->points[0]);
	assert_int_equal(in->microbatches, 6);
	instance_free(in);
	sweep_spec_free(s);

	/* a missing file: the error names it */
	write_file(tmp("files/spec3.json"),
		   "{\"instances\": {\"files\": [\"a.json\", \"nope.json\"]},"
		   " \"methods\": [{\"name\": \"1f1b\", \"family\": \"1f1b\"}]}");
	assert_int_equal(sweep_spec_read(tmp("files/spec3.json"), &s, &err), STATUS_ERROR);
	assert_null(s);
	assert_contains(err.msg, "nope.json");
	assert_null(strchr(err.msg, '\n'));
}

/* A missing or malformed instance file: the message names the spec and
 * instances.files as well as the file (spec.h: "errors name the spec file
 * and key"). */
static void test_files_spec_error_names_spec(void **state)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/files-err", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_file(tmp("files-err/broken.json"), "{\"devices\": 2,,}");
	static const struct {
		const char *name, *spec, *what;
	} cases[] = {
		{"missing file", "{\"instances\": {\"files\": [\"nope.json\"]}, " ONE_METHOD "}", "nope.json"},
		{"malformed file", "{\"instances\": {\"files\": [\"broken.json\"]}, " ONE_METHOD "}", "broken.json"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sweep_spec *s = NULL;
		struct error err = {{0}};
		assert_int_equal(sweep_spec_parse(cases[i].spec, "test-spec.json", dir, &s, &err), STATUS_ERROR);
		assert_null(s);
		check_error_message(cases[i].name, err.msg, "test-spec.json", "instances.files", cases[i].what);
	}
}

/* Model graphs x device counts: graphs outermost, devices fastest. */
static void test_graphs_spec(void **state)
{
	const char *dir = PIPEOPT_SOURCE_DIR "/datasets/graphs";
	struct sweep_spec *s = parse_ok(
		"{\"instances\": {\"graphs\": [\"mmt-a100.json\", \"dlrm-a100.json\"],"
		" \"devices\": [2, 4, 8]},"
		" \"methods\": [{\"name\": \"dp\", \"partition\": {\"method\": \"dp\"}},"
		" {\"name\": \"seq\", \"partition\": {\"sequential\": true}}]}", dir);
	static const struct {
		const char *graph;
		int devices;
	} want[] = {{"mmt-a100.json", 2}, {"mmt-a100.json", 4}, {"mmt-a100.json", 8},
		    {"dlrm-a100.json", 2}, {"dlrm-a100.json", 4}, {"dlrm-a100.json", 8}};
	assert_int_equal(s->npoints, 6);
	assert_int_equal(s->ntasks, 12);
	for (int i = 0; i < 6; i++) {
		const struct sweep_point *p = &s->points[i];
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", dir, want[i].graph);
		assert_null(p->instance);
		assert_non_null(p->graph);
		assert_string_equal(p->graph, path);
		assert_int_equal(p->devices, want[i].devices);
		assert_string_equal(json_string_value(json_object_get(p->params, "graph")), want[i].graph);
		assert_int_equal(param_int(p, "devices"), want[i].devices);
		assert_int_equal(json_object_size(p->params), 2);
	}
	assert_ptr_equal(s->methods[0].method, &method_partition);
	assert_false(((struct partition_settings *)s->methods[0].settings)->sequential);
	assert_string_equal(((struct partition_settings *)s->methods[0].settings)->method, "dp");
	assert_true(((struct partition_settings *)s->methods[1].settings)->sequential);
	assert_keys_unique(s);
	sweep_spec_free(s);
}

/* ---- spec errors --------------------------------------------------------------- */

/* Each refusal: one line naming the spec file, the key (and the point),
 * and what is wrong; no spec comes back. */
static void test_spec_errors(void **state)
{
	static const struct {
		const char *name, *text, *where, *what;
	} cases[] = {
		{"malformed JSON", "{\"instances\": {\n  " BASE ",,\n}}", "line 2", "column"},
		{"top level not an object", "[1, 2]", "spec 'test-spec.json'", "object"},
		{"unknown top-level key",
		 "{\"instances\": {" BASE "}, " ONE_METHOD ", \"bogus\": 1}", "bogus", "unknown key"},
		{"unknown method key",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"a\", \"family\": \"1f1b\"},"
		 " {\"name\": \"b\", \"family\": \"gpipe\", \"extra\": 1}]}", "methods[1].extra", "unknown key"},
		{"unknown solve key",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"a\", \"solve\": {\"gap\": 0}}]}",
		 "methods[0].solve.gap", "unknown key"},
		{"two methods with one name",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"a\", \"family\": \"1f1b\"},"
		 " {\"name\": \"a\", \"family\": \"gpipe\"}]}", "methods", "'a'"},
		{"no such family",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"a\", \"family\": \"no-such\"}]}",
		 "methods[0]", "family"},
		{"two kinds in one method",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"a\", \"family\": \"1f1b\","
		 " \"search\": {}}]}", "methods[0]", "exactly one"},
		{"empty grid list",
		 "{\"instances\": {" BASE ", \"grid\": {\"devices\": [2], \"microbatches\": []}}, " ONE_METHOD "}",
		 "instances.grid.microbatches", "non-empty"},
		{"grid value not a list",
		 "{\"instances\": {" BASE ", \"grid\": {\"devices\": 3}}, " ONE_METHOD "}",
		 "instances.grid.devices", "list"},
		{"grid makes an invalid instance",
		 "{\"instances\": {" BASE ", \"grid\": {\"devices\": [2, 0]}}, " ONE_METHOD "}",
		 "point 1", "devices"},
		{"grid key that is not an instance key",
		 "{\"instances\": {" BASE ", \"grid\": {\"cost.X\": [1]}}, " ONE_METHOD "}",
		 "point 0", "cost.X"},
		{"partition on instance points",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"p\", \"partition\": {}}]}",
		 "methods", "'p'"},
		{"family on graph points",
		 "{\"instances\": {\"graphs\": [\"" PIPEOPT_SOURCE_DIR "/datasets/graphs/mmt-a100.json\"],"
		 " \"devices\": [2]}, \"methods\": [{\"name\": \"f\", \"family\": \"1f1b\"}]}",
		 "methods", "'f'"},
		{"a command-only method (profile)",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"p\", \"profile\": {}}]}",
		 "methods[0]", "method 'profile' runs only from the command line"},
		{"a command-only method (exec)",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"x\", \"exec\": {}}]}",
		 "methods[0]", "method 'exec' runs only from the command line"},
		{"search seeds not integers",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"g\", \"search\": {\"seeds\": [1, \"x\"]}}]}",
		 "methods[0].search", "seed"},
		{"no methods", "{\"instances\": {" BASE "}, \"methods\": []}", "methods", "1 to 1000"},
		{"missing graph file",
		 "{\"instances\": {\"graphs\": [\"/nonexistent/g.json\"], \"devices\": [2]},"
		 " \"methods\": [{\"name\": \"p\", \"partition\": {}}]}", "instances.graphs", "/nonexistent/g.json"},
		{"repetitions zero",
		 "{\"instances\": {" BASE "}, " ONE_METHOD ", \"repetitions\": 0}", "repetitions", "integer"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sweep_spec *s = (struct sweep_spec *)1;
		struct error err = {{0}};
		if (sweep_spec_parse(cases[i].text, "test-spec.json", "", &s, &err) != STATUS_ERROR)
			fail_msg("case '%s': accepted", cases[i].name);
		assert_null(s);
		check_error_message(cases[i].name, err.msg, "test-spec.json", cases[i].where, cases[i].what);
	}
}

/* A grid spec with `n` values for microbatches and for cost.F, plus tail. */
static char *big_grid(int n1, int n2, const char *methods, const char *tail)
{
	size_t cap = (size_t)(n1 + n2) * 12 + strlen(methods) + strlen(tail) + 1024;
	char *t = malloc(cap);
	assert_non_null(t);
	size_t at = snprintf(t, cap, "{\"instances\": {" BASE ", \"grid\": {\"microbatches\": [");
	for (int i = 0; i < n1; i++)
		at += snprintf(t + at, cap - at, "%s%d", i ? "," : "", i + 1);
	at += snprintf(t + at, cap - at, "], \"cost.F\": [");
	for (int i = 0; i < n2; i++)
		at += snprintf(t + at, cap - at, "%s%d", i ? "," : "", i + 1);
	snprintf(t + at, cap - at, "]}}, %s%s}", methods, tail);
	return t;
}

/* Whether the spec is refused, with a one-line message naming the spec,
 * `where` and the limit, within half a second; says why not on stderr.
 * (The caller frees `text` before failing.) */
static bool refused_quickly(const char *name, const char *text, const char *where)
{
	struct sweep_spec *s = NULL;
	struct error err = {{0}};
	double t0 = now_seconds();
	enum status st = sweep_spec_parse(text, "test-spec.json", "", &s, &err);
	double took = now_seconds() - t0;
	if (st != STATUS_ERROR) {
		sweep_spec_free(s);
		fprintf(stderr, "case '%s': accepted\n", name);
		return false;
	}
	if (!strstr(err.msg, "test-spec.json") || !strstr(err.msg, where) ||
	    !strstr(err.msg, "1000000") || strchr(err.msg, '\n')) {
		fprintf(stderr, "case '%s': message lacks the spec, '%s' or the limit: %s\n", name,
			where, err.msg);
		return false;
	}
	if (took > 0.5) {
		fprintf(stderr, "case '%s': refused after %.2f s, not at once\n", name,
			took);
		return false;
	}
	return true;
}

/* More than SWEEP_MAX_TASKS tasks: refused from the counts, before a
 * million instances are built. */
static void test_spec_too_many_tasks(void **state)
{
	char *t = big_grid(1001, 1001, ONE_METHOD, "");
	bool ok = refused_quickly("1001 x 1001 points", t, "instances.grid");
	free(t);
	assert_true(ok);
	t = big_grid(1000, 1000, "\"methods\": [{\"name\": \"a\", \"family\": \"1f1b\"},"
				 " {\"name\": \"b\", \"family\": \"gpipe\"}]", "");
	ok = refused_quickly("1000 x 1000 points x 2 methods", t, "instances");
	free(t);
	assert_true(ok);
}

/*
 * Long grid lists are refused quickly: the size check comes before the
 * check for repeated values, which is linear (a hash set). (Found when the
 * repeat check compared every pair and ran first: one key of 30,000
 * values x 40 repetitions took ~4 s to refuse, 1,000,001 values over an
 * hour.)
 */
static void test_spec_long_lists_checked_quickly(void **state)
{
	size_t cap = 30000 * 7 + 1024;
	char *t = malloc(cap);
	assert_non_null(t);
	size_t at = snprintf(t, cap, "{\"instances\": {" BASE ", \"grid\": {\"cost.F\": [");
	for (int i = 0; i < 30000; i++)
		at += snprintf(t + at, cap - at, "%s%d", i ? "," : "", i + 1);
	snprintf(t + at, cap - at, "]}}, " ONE_METHOD ", \"repetitions\": 40}");
	bool grid = refused_quickly("one key of 30000 values x 40 repetitions", t, "instances");
	free(t);

	/* 110 points x the maximal 10000 seeds = 1.1 M tasks */
	cap = 200000;
	char *methods = malloc(cap);
	assert_non_null(methods);
	at = snprintf(methods, cap, "\"methods\": [{\"name\": \"ga\", \"search\": {\"seeds\": [");
	for (int i = 0; i < 10000; i++)
		at += snprintf(methods + at, cap - at, "%s%d", i ? "," : "", i);
	snprintf(methods + at, cap - at, "]}}]");
	t = big_grid(11, 10, methods, "");
	bool seeds = refused_quickly("110 points x 10000 seeds", t, "instances");
	free(t);
	free(methods);
	if (!grid || !seeds)
		fail_msg("a long list delays the refusal of a too-large spec");
}

/* The early count includes repetitions and search seeds: 300,000 points
 * x 4 repetitions (1.2 M tasks) is refused before 300,000 instances are
 * built (that took ~3 s in a Debug build, ~10 s and 630 MB for 1 M points
 * x 2), and so are model graphs x device counts x repetitions. */
static void test_spec_too_many_tasks_reps_and_seeds(void **state)
{
	char *t = big_grid(600, 500, ONE_METHOD, ", \"repetitions\": 4");
	bool reps = refused_quickly("300000 points x 4 repetitions", t, "instances");
	free(t);
	t = big_grid(600, 500, "\"methods\": [{\"name\": \"ga\", \"search\": {\"seeds\": [1, 2, 3, 4]}}]", "");
	bool seeds = refused_quickly("300000 points x 4 seeds", t, "instances");
	free(t);
	if (!reps || !seeds)
		fail_msg("a spec of more than SWEEP_MAX_TASKS tasks took its time to be refused");

	/* 1 graph x 4096 device counts x 245 repetitions = 1,003,520 tasks */
	size_t cap = 4096 * 6 + 512;
	t = malloc(cap);
	assert_non_null(t);
	size_t at = snprintf(t, cap, "{\"instances\": {\"graphs\": [\"" PIPEOPT_SOURCE_DIR
			     "/datasets/graphs/mmt-a100.json\"], \"devices\": [");
	for (int d = 1; d <= 4096; d++)
		at += snprintf(t + at, cap - at, "%s%d", d > 1 ? "," : "", d);
	snprintf(t + at, cap - at, "]}, \"methods\": [{\"name\": \"p\", \"partition\": {}}],"
				   " \"repetitions\": 245}");
	bool graphs = refused_quickly("4096 graph points x 245 repetitions", t, "instances");
	free(t);
	assert_true(graphs);
}

/* Task keys are unique (resume skips rows whose key is there), so a
 * repeated grid value, seed, instance file, graph or device count, which
 * would give two tasks one key, is refused naming the list. */
static void test_spec_repeated_values(void **state)
{
	write_file(tmp("dup.json"), "{\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 1, \"B\": 1}}");
	static const struct {
		const char *name, *text, *where;
	} cases[] = {
		{"repeated grid value",
		 "{\"instances\": {" BASE ", \"grid\": {\"devices\": [2, 3, 2]}}, " ONE_METHOD "}",
		 "instances.grid.devices"},
		{"repeated seed",
		 "{\"instances\": {" BASE "}, \"methods\": [{\"name\": \"g\", \"search\":"
		 " {\"generations\": 1, \"seeds\": [1, 2, 1]}}]}", "seeds"},
		{"repeated file",
		 "{\"instances\": {\"files\": [\"dup.json\", \"dup.json\"]}, " ONE_METHOD "}",
		 "instances.files"},
		{"repeated graph",
		 "{\"instances\": {\"graphs\": [\"" PIPEOPT_SOURCE_DIR "/datasets/graphs/mmt-a100.json\", \""
		 PIPEOPT_SOURCE_DIR "/datasets/graphs/mmt-a100.json\"], \"devices\": [2]},"
		 " \"methods\": [{\"name\": \"p\", \"partition\": {}}]}", "instances.graphs"},
		{"repeated device count",
		 "{\"instances\": {\"graphs\": [\"" PIPEOPT_SOURCE_DIR "/datasets/graphs/mmt-a100.json\"],"
		 " \"devices\": [2, 4, 4]}, \"methods\": [{\"name\": \"p\", \"partition\": {}}]}",
		 "instances.devices"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sweep_spec *s = NULL;
		struct error err = {{0}};
		if (sweep_spec_parse(cases[i].text, "test-spec.json", tmpdir, &s, &err) != STATUS_ERROR) {
			int n = s->ntasks;
			sweep_spec_free(s);
			fail_msg("case '%s': accepted (%d tasks)", cases[i].name, n);
		}
		assert_null(s);
		check_error_message(cases[i].name, err.msg, "test-spec.json", cases[i].where, "repeats");
	}
}

/* ---- results --------------------------------------------------------------------- */

static json_t *row_of(const char *key, int objective)
{
	return json_pack("{s:s,s:{s:i},s:s,s:i}", "key", key, "params", "devices", 2, "status",
			 "feasible", "objective", objective);
}

/* Every line of the file is one complete JSON object; returns the count. */
static int count_valid_lines(const char *path)
{
	char *text = read_text(path);
	size_t n = strlen(text);
	if (n && text[n - 1] != '\n')
		fail_msg("'%s' does not end with a newline", path);
	int lines = 0;
	for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		json_error_t je;
		json_t *v = json_loadb(line, nl - line, 0, &je);
		if (!json_is_object(v))
			fail_msg("'%s' line %d is not a JSON object: %.*s", path, lines + 1, (int)(nl - line), line);
		json_decref(v);
		lines++;
	}
	free(text);
	return lines;
}

static void test_results_append_load(void **state)
{
	const char *path = tmp("r-append.jsonl");
	struct results r;
	struct error err = {{0}};
	if (results_open(path, &r, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(json_array_size(r.rows), 0);
	assert_false(r.torn);
	json_t *rows[3] = {row_of("a", 5), row_of("b|x", 6), row_of("c \"q\"", 7)};
	for (int i = 0; i < 3; i++)
		assert_int_equal(results_append(&r, rows[i], &err), STATUS_OK);
	results_close(&r);
	assert_int_equal(count_valid_lines(path), 3);

	json_t *loaded = NULL;
	assert_int_equal(results_load(path, &loaded, &err), STATUS_OK);
	assert_int_equal(json_array_size(loaded), 3);
	for (int i = 0; i < 3; i++)
		assert_true(json_equal(json_array_get(loaded, i), rows[i]));
	json_decref(loaded);

	/* reopening reads them back as the rows already there */
	assert_int_equal(results_open(path, &r, &err), STATUS_OK);
	assert_int_equal(json_array_size(r.rows), 3);
	assert_false(r.torn);
	assert_true(json_equal(json_array_get(r.rows, 2), rows[2]));
	json_t *d = row_of("d", 8);
	assert_int_equal(results_append(&r, d, &err), STATUS_OK);
	results_close(&r);
	assert_int_equal(count_valid_lines(path), 4);
	json_decref(d);
	for (int i = 0; i < 3; i++)
		json_decref(rows[i]);

	/* a results path in a folder that does not exist: an error naming it */
	memset(&err, 0, sizeof err);
	assert_int_equal(results_open("/nonexistent-dir/r.jsonl", &r, &err), STATUS_ERROR);
	check_error_message("no folder", err.msg, "/nonexistent-dir/r.jsonl", "results", "");
	assert_int_equal(file_size("/nonexistent-dir/r.jsonl"), -1);
}

/* Rows that finished together go out in one batch: one line each, in
 * order; an empty batch writes nothing. */
static void test_results_append_batch(void **state)
{
	const char *path = tmp("r-batch.jsonl");
	struct results r;
	struct error err = {{0}};
	assert_int_equal(results_open(path, &r, &err), STATUS_OK);
	json_t *rows[4] = {row_of("a", 1), row_of("b", 2), row_of("c", 3), row_of("d", 4)};
	assert_int_equal(results_append_batch(&r, rows, 0, &err), STATUS_OK);
	assert_int_equal(file_size(path), 0);
	assert_int_equal(results_append_batch(&r, rows, 3, &err), STATUS_OK);
	assert_int_equal(results_append(&r, rows[3], &err), STATUS_OK);
	results_close(&r);
	assert_int_equal(count_valid_lines(path), 4);
	json_t *loaded = NULL;
	assert_int_equal(results_load(path, &loaded, &err), STATUS_OK);
	assert_int_equal(json_array_size(loaded), 4);
	for (int i = 0; i < 4; i++) {
		assert_true(json_equal(json_array_get(loaded, i), rows[i]));
		json_decref(rows[i]);
	}
	json_decref(loaded);
}

/* A torn tail (no newline, or a last line that is not a JSON object) is
 * cut off at open, so the next append starts a clean line. */
static void test_results_torn_tail(void **state)
{
	static const char good[] = "{\"key\":\"a\",\"objective\":1}\n{\"key\":\"b\",\"objective\":2}\n";
	static const struct {
		const char *name, *tail;
	} cases[] = {
		{"no newline", "{\"key\":\"c\",\"obj"},
		{"complete object, no newline", "{\"key\":\"c\",\"objective\":3}"},
		{"last line not JSON", "{\"key\":\"c\",\"obj\n"},
		{"last line a JSON number", "12\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char name[64], text[512];
		snprintf(name, sizeof name, "r-torn-%zu.jsonl", i);
		const char *path = tmp(name);
		snprintf(text, sizeof text, "%s%s", good, cases[i].tail);
		write_file(path, text);

		/* results_load skips the tail and leaves the file alone */
		json_t *loaded = NULL;
		struct error err = {{0}};
		if (results_load(path, &loaded, &err))
			fail_msg("case '%s': load: %s", cases[i].name, err.msg);
		assert_int_equal(json_array_size(loaded), 2);
		json_decref(loaded);
		assert_int_equal(file_size(path), (long)strlen(text));

		struct results r;
		if (results_open(path, &r, &err))
			fail_msg("case '%s': open: %s", cases[i].name, err.msg);
		if (!r.torn)
			fail_msg("case '%s': tail not seen as torn", cases[i].name);
		assert_int_equal(r.torn_bytes, (long)strlen(cases[i].tail));
		assert_int_equal(json_array_size(r.rows), 2);
		assert_int_equal(file_size(path), (long)strlen(good));
		json_t *row = row_of("c", 3);
		assert_int_equal(results_append(&r, row, &err), STATUS_OK);
		json_decref(row);
		results_close(&r);
		assert_int_equal(count_valid_lines(path), 3);
		char *after = read_text(path);
		assert_string_equal(after + strlen(good), "{\"key\":\"c\",\"params\":{\"devices\":2},"
						       "\"status\":\"feasible\",\"objective\":3}\n");
		free(after);
	}
}

/*
 * A tail of zero bytes (what a crash can leave when a file's size reached
 * the disk before its data) is a torn write: it must be cut off (or the
 * file refused, naming it), and rows appended after the open must be
 * readable. (Found when the reader measured the file with strlen: the
 * zeros hid every later row, and each rerun appended duplicates.)
 */
static void test_results_zero_filled_tail(void **state)
{
	static const char good[] = "{\"key\":\"a\",\"objective\":1}\n";
	const char *path = tmp("r-zeros.jsonl");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(good, f);
	static const char zeros[8] = {0};
	assert_int_equal(fwrite(zeros, 1, sizeof zeros, f), sizeof zeros);
	fclose(f);
	struct results r;
	struct error err = {{0}};
	if (results_open(path, &r, &err)) {   /* refused: fine, if it says where */
		check_error_message("zeros", err.msg, path, "results", "");
		return;
	}
	bool torn = r.torn;
	json_t *row = row_of("b", 2);
	assert_int_equal(results_append(&r, row, &err), STATUS_OK);
	json_decref(row);
	results_close(&r);
	json_t *rows = NULL;
	assert_int_equal(results_load(path, &rows, &err), STATUS_OK);
	size_t n = json_array_size(rows);
	json_decref(rows);
	assert_int_equal(results_open(path, &r, &err), STATUS_OK);
	size_t reopened = json_array_size(r.rows);
	results_close(&r);
	if (n != 2 || reopened != 2)
		fail_msg("after a zero-filled tail (torn seen: %s) the appended row is lost: load "
			 "sees %zu rows, open %zu, of 2 (file %ld bytes)",
			 torn ? "yes" : "no", n, reopened, file_size(path));
}

/* A bad line before the last is not ours to cut: an error naming the line,
 * the file untouched. */
static void test_results_bad_middle_line(void **state)
{
	const char *path = tmp("r-middle.jsonl");
	static const char text[] = "{\"key\":\"a\"}\n{\"key\":\"b\"}\nnot json at all\n{\"key\":\"d\"}\n";
	write_file(path, text);
	struct results r;
	struct error err = {{0}};
	assert_int_equal(results_open(path, &r, &err), STATUS_ERROR);
	check_error_message("open", err.msg, path, "line 3", "not a JSON object");
	assert_int_equal(file_size(path), (long)strlen(text));
	json_t *rows = NULL;
	memset(&err, 0, sizeof err);
	assert_int_equal(results_load(path, &rows, &err), STATUS_ERROR);
	assert_null(rows);
	check_error_message("load", err.msg, path, "line 3", "not a JSON object");

	/* an array in the middle is not a row either */
	write_file(path, "{\"key\":\"a\"}\n[1,2]\n{\"key\":\"c\"}\n");
	assert_int_equal(results_open(path, &r, &err), STATUS_ERROR);
	check_error_message("array", err.msg, path, "line 2", "not a JSON object");
}

/* CSV: a header of every key in first-seen order with params flattened
 * to params.KEY; strings quoted, quotes doubled; null as empty. */
static void test_results_csv(void **state)
{
	json_error_t je;
	json_t *rows = json_loads(
		"[{\"key\": \"a,b\", \"params\": {\"devices\": 2, \"cost.F\": 3}, \"status\": \"say \\\"hi\\\"\","
		"  \"objective\": 7, \"certified\": true, \"gap\": 0.5, \"seed\": null},"
		" {\"key\": \"k2\", \"params\": {\"devices\": 3, \"file\": \"x,y.json\"}, \"status\": \"ok\","
		"  \"objective\": null, \"certified\": false, \"extra\": -1}]",
		0, &je);
	assert_non_null(rows);
	const char *path = tmp("out.csv");
	struct error err = {{0}};
	assert_int_equal(results_write_csv(rows, path, &err), STATUS_OK);
	char *csv = read_text(path);
	assert_string_equal(csv,
		"key,params.devices,params.cost.F,status,objective,certified,gap,seed,params.file,extra\n"
		"\"a,b\",2,3,\"say \"\"hi\"\"\",7,true,0.5,,,\n"
		"\"k2\",3,,\"ok\",,false,,,\"x,y.json\",-1\n");
	free(csv);

	/* an unwritable path: an error naming it, and nothing left behind */
	memset(&err, 0, sizeof err);
	assert_int_equal(results_write_csv(rows, "/nonexistent-dir/out.csv", &err), STATUS_ERROR);
	check_error_message("csv", err.msg, "/nonexistent-dir/out.csv", "csv", "");
	/* a folder in the way: the rename fails and the temporary file goes */
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/csvdir", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	memset(&err, 0, sizeof err);
	assert_int_equal(results_write_csv(rows, dir, &err), STATUS_ERROR);
	assert_contains(err.msg, dir);
	char tmpname[PATH_MAX];
	snprintf(tmpname, sizeof tmpname, "%s.tmp.%ld", dir, (long)getpid());
	assert_int_equal(file_size(tmpname), -1);
	json_decref(rows);
}

/* ---- one task ----------------------------------------------------------------------- */

/* 2 devices, 2 micro-batches, F = B = W = 1, no comm. 1F1B by hand:
 *   device 0: F0 F1 B0 W0 B1 W1    device 1: F0 B0 W0 F1 B1 W1
 *   d0 F(0,0) [0,1] F(0,1) [1,2]; d1 F(1,0) [1,2] B(1,0) [2,3] W(1,0) [3,4]
 *   F(1,1) [4,5] B(1,1) [5,6] W(1,1) [6,7]; d0 B(0,0) [3,4] W(0,0) [4,5]
 *   B(0,1) [6,7] W(0,1) [7,8]: makespan 8, busy 12 of 2 x 8 (bubble 1/4).
 * The optimum is 7 (d1: F0 B0 F1 B1 W0 W1), so 8 is not certified. */
#define SPLIT22 "{\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 1, \"B\": 1, \"W\": 1}}"
/* Fused, F = B = 1: 1F1B ends at (m + p - 1)(F + B) = 6, which is also a
 * bound (device 1 starts at 1, works 4, then device 0's last B takes 1). */
#define FUSED22 "{\"devices\": 2, \"microbatches\": 2, \"cost\": {\"F\": 1, \"B\": 1}}"

static struct sweep_spec *one_point_spec(const char *instance, const char *methods)
{
	char text[4096];
	snprintf(text, sizeof text, "{\"name\": \"one\", \"instances\": {\"base\": %s}, \"methods\": [%s]}",
		 instance, methods);
	return parse_ok(text, "");
}

static void check_row_common(const json_t *row, const struct sweep_spec *s,
			     const struct sweep_task *t, const char *kind)
{
	assert_true(json_is_object(row));
	assert_string_equal(get_str(row, "key"), t->key);
	assert_string_equal(get_str(row, "sweep"), s->name);
	assert_int_equal(get_int(row, "point"), t->point);
	assert_int_equal(get_int(row, "rep"), t->rep);
	assert_string_equal(get_str(row, "method"), s->methods[t->method].name);
	assert_string_equal(get_str(row, "kind"), kind);
	assert_true(json_equal(json_object_get(row, "params"), s->points[t->point].params));
	assert_true(json_is_number(json_object_get(row, "seconds")));
	assert_true(json_number_value(json_object_get(row, "seconds")) >= 0);
	assert_true(json_is_string(json_object_get(row, "pipeopt_version")));
}

/* Every row records the settings its method ran with, defaults included,
 * as the method's option table states them: solve's documented defaults
 * are solver cbc, formulation auto, no cross-check, no forced MILP, 60 s
 * (here 5, from the spec) and, in a sweep, 1 thread. */
static void test_row_settings(void **state)
{
	struct sweep_spec *s = one_point_spec(FUSED22,
		"{\"name\": \"ex\", \"solve\": {\"time_limit\": 5}},"
		" {\"name\": \"g\", \"search\": {\"seeds\": [3], \"generations\": 2}}");
	json_t *row = sweep_run_task(s, find_task(s, 0, "ex", 0));
	json_t *want = json_pack("{s:s,s:s,s:b,s:b,s:b,s:f,s:i}", "solver", "cbc", "formulation", "auto",
				 "cross_check", 0, "always_milp", 0, "ga_start", 1, "time_limit", 5.0,
				 "threads", 1);
	if (!json_equal(json_object_get(row, "settings"), want)) {
		char *got = json_dumps(json_object_get(row, "settings"), JSON_SORT_KEYS);
		fail_msg("settings %s", got);
	}
	/* the fused 1F1B schedule meets the bound (6): certified by it */
	assert_int_equal(get_int(row, "objective"), 6);
	assert_string_equal(get_str(row, "certified_by"), "bound");
	json_decref(want);
	json_decref(row);
	row = sweep_run_task(s, find_task(s, 0, "g", 3));
	json_t *set = json_object_get(row, "settings");
	assert_int_equal(get_int(set, "generations"), 2);
	assert_int_equal(get_int(set, "population"), 64);
	assert_int_equal(get_int(set, "threads"), 1);
	assert_null(json_object_get(set, "seed"));   /* the task's own key, not a setting */
	assert_int_equal(get_int(row, "seed"), 3);
	json_decref(row);
	sweep_spec_free(s);
}

static void test_run_family(void **state)
{
	struct sweep_spec *s = one_point_spec(SPLIT22,
		"{\"name\": \"1f1b\", \"family\": \"1f1b\"}, {\"name\": \"zbv\", \"family\": \"zb-v\"}");
	struct instance *in = point_instance(&s->points[0]);
	int64_t opt = brute_optimum(in, NULL);
	instance_free(in);
	assert_int_equal(opt, 7);   /* the hand optimum above */

	json_t *row = sweep_run_task(s, find_task(s, 0, "1f1b", 0));
	check_row_common(row, s, find_task(s, 0, "1f1b", 0), "family");
	assert_int_equal(get_int(row, "objective"), 8);
	assert_int_equal(get_int(row, "makespan"), 8);
	assert_double_near(json_real_value(json_object_get(row, "bubble_ratio")), 0.25, 1e-12);
	json_int_t lb = get_int(row, "lower_bound");
	assert_true(lb <= opt);   /* a bound above the optimum would be wrong */
	assert_int_equal(get_int(row, "bound"), lb);
	assert_double_near(json_number_value(json_object_get(row, "gap")), (8.0 - lb) / 8.0, 1e-12);
	assert_false(get_bool(row, "certified"));
	assert_string_equal(get_str(row, "status"), "feasible");
	assert_true(json_is_null(json_object_get(row, "seed")));
	assert_null(json_object_get(row, "error"));
	json_decref(row);

	/* zb-v needs the V placement: unsupported, with the reason on one line */
	row = sweep_run_task(s, find_task(s, 0, "zbv", 0));
	check_row_common(row, s, find_task(s, 0, "zbv", 0), "family");
	assert_string_equal(get_str(row, "status"), "unsupported");
	const char *e = get_str(row, "error");
	assert_null(strchr(e, '\n'));
	assert_contains(e, "zb-v");
	assert_true(json_is_null(json_object_get(row, "objective")));
	assert_false(get_bool(row, "certified"));
	json_decref(row);
	sweep_spec_free(s);

	/* fused: 1F1B meets the bound, so it is certified optimal */
	s = one_point_spec(FUSED22, "{\"name\": \"1f1b\", \"family\": \"1f1b\"}");
	row = sweep_run_task(s, &s->tasks[0]);
	assert_int_equal(get_int(row, "objective"), 6);
	assert_int_equal(get_int(row, "lower_bound"), 6);
	assert_true(get_bool(row, "certified"));
	assert_string_equal(get_str(row, "status"), "optimal");
	assert_double_near(json_number_value(json_object_get(row, "gap")), 0, 0);
	json_decref(row);
	sweep_spec_free(s);
}

/* An exact solve task on every tiny instance: certified, "optimal", and
 * the brute-force optimum; its row names the solver. */
static void test_run_solve_against_brute_force(void **state)
{
	for (int i = 0; i < NTINY; i++) {
		struct sweep_spec *s = one_point_spec(tiny_instances[i].json,
			"{\"name\": \"exact\", \"solve\": {\"solver\": \"cbc\", \"time_limit\": 60}}");
		struct instance *in = point_instance(&s->points[0]);
		int64_t opt = brute_optimum(in, NULL);
		instance_free(in);
		json_t *row = sweep_run_task(s, &s->tasks[0]);
		check_row_common(row, s, &s->tasks[0], "solve");
		if (!json_is_true(json_object_get(row, "certified")) ||
		    get_int(row, "objective") != opt)
			fail_msg("%s: %s; brute force %lld", tiny_instances[i].name,
				 json_dumps(row, JSON_COMPACT), (long long)opt);
		assert_string_equal(get_str(row, "status"), "optimal");
		assert_string_equal(get_str(row, "solver"), "cbc");
		assert_true(get_int(row, "lower_bound") <= opt);
		assert_true(get_int(row, "bound") <= opt);
		assert_null(json_object_get(row, "error"));
		json_decref(row);
		sweep_spec_free(s);
	}
}

/* A search task: the seed in the row, a valid schedule no better than
 * the optimum, certified only when it meets the lower bound. */
static void test_run_search(void **state)
{
	struct sweep_spec *s = one_point_spec(tiny_instances[0].json,
		"{\"name\": \"ga\", \"search\": {\"generations\": 5, \"population\": 8, \"seeds\": [7, 9]}}");
	struct instance *in = point_instance(&s->points[0]);
	int64_t opt = brute_optimum(in, NULL);
	instance_free(in);
	assert_int_equal(s->ntasks, 2);
	for (int i = 0; i < 2; i++) {
		json_t *row = sweep_run_task(s, &s->tasks[i]);
		check_row_common(row, s, &s->tasks[i], "search");
		assert_int_equal(get_int(row, "seed"), i ? 9 : 7);
		json_int_t obj = get_int(row, "objective"), lb = get_int(row, "lower_bound");
		assert_true(obj >= opt);
		assert_int_equal(get_bool(row, "certified"), obj == lb);
		assert_string_equal(get_str(row, "status"), obj == lb ? "optimal" : "feasible");
		json_decref(row);
	}
	sweep_spec_free(s);
}

/* ---- the runner ----------------------------------------------------------------------- */

/* In process on threads: --limit runs a prefix, the rerun the rest, a
 * third run nothing; one row per task key in the end. */
static void test_sweep_run_resume(void **state)
{
	struct sweep_spec *s = parse_ok(
		"{\"instances\": {" BASE ", \"grid\": {\"devices\": [2, 3], \"microbatches\": [2, 4]}},"
		" \"methods\": [{\"name\": \"1f1b\", \"family\": \"1f1b\"}, {\"name\": \"gpipe\", \"family\": \"gpipe\"}]}",
		"");
	assert_int_equal(s->ntasks, 8);
	const char *path = tmp("run-resume.jsonl");
	struct sweep_options o = {.jobs = 2, .output = path, .limit = 3};
	struct sweep_stats st;
	struct error err = {{0}};
	if (sweep_run(s, &o, &st, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(st.total, 8);
	assert_int_equal(st.done_before, 0);
	assert_int_equal(st.ran, 3);
	assert_int_equal(st.failed, 0);
	assert_int_equal(count_valid_lines(path), 3);

	o.limit = 0;
	assert_int_equal(sweep_run(s, &o, &st, &err), STATUS_OK);
	assert_int_equal(st.done_before, 3);
	assert_int_equal(st.ran, 5);
	assert_int_equal(sweep_run(s, &o, &st, &err), STATUS_OK);
	assert_int_equal(st.done_before, 8);
	assert_int_equal(st.ran, 0);

	json_t *rows = NULL;
	assert_int_equal(results_load(path, &rows, &err), STATUS_OK);
	assert_int_equal(json_array_size(rows), 8);
	for (int t = 0; t < s->ntasks; t++) {
		int n = 0;
		size_t i;
		json_t *row;
		json_array_foreach(rows, i, row)
			n += !strcmp(get_str(row, "key"), s->tasks[t].key);
		if (n != 1)
			fail_msg("task '%s' has %d rows", s->tasks[t].key, n);
	}
	json_decref(rows);

	/* an unwritable results file: an error, nothing run */
	o.output = "/nonexistent-dir/r.jsonl";
	memset(&err, 0, sizeof err);
	assert_int_equal(sweep_run(s, &o, &st, &err), STATUS_ERROR);
	assert_contains(err.msg, "/nonexistent-dir/r.jsonl");
	assert_int_equal(st.ran, 0);
	sweep_spec_free(s);
}

/* ---- setup ---------------------------------------------------------------------------- */

static int group_setup(void **state)
{
	return tmpdir_make(tmpdir, sizeof tmpdir, "pipeopt-sweep");
}

static int group_teardown(void **state)
{
	return tmpdir_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid_order),
		cmocka_unit_test(test_grid_dotted_keys),
		cmocka_unit_test(test_files_spec),
		cmocka_unit_test(test_files_spec_error_names_spec),
		cmocka_unit_test(test_graphs_spec),
		cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_spec_too_many_tasks),
		cmocka_unit_test(test_spec_too_many_tasks_reps_and_seeds),
		cmocka_unit_test(test_spec_long_lists_checked_quickly),
		cmocka_unit_test(test_spec_repeated_values),
		cmocka_unit_test(test_results_append_load),
		cmocka_unit_test(test_results_append_batch),
		cmocka_unit_test(test_results_torn_tail),
		cmocka_unit_test(test_results_zero_filled_tail),
		cmocka_unit_test(test_results_bad_middle_line),
		cmocka_unit_test(test_results_csv),
		cmocka_unit_test(test_row_settings),
		cmocka_unit_test(test_run_family),
		cmocka_unit_test(test_run_solve_against_brute_force),
		cmocka_unit_test(test_run_search),
		cmocka_unit_test(test_sweep_run_resume),
	};
	return cmocka_run_group_tests_name("sweep", tests, group_setup, group_teardown);
}
