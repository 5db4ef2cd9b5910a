/*
 * Tests for sweep/report.c: the summary per method on hand-made rows (every
 * expected number worked out by hand in the comments), the table, and the
 * SVG plots (files written, well-formed, one line per method, errors and
 * no partial files).
 */
#define _GNU_SOURCE
#include "test_helpers.h"
#include "tmpdir.h"

#define dir_count_all(dir) dir_count((dir), NULL)

#include <dirent.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep/report.h"

static char tmpdir[PATH_MAX];

/* ---- helpers ---------------------------------------------------------------- */

static json_t *rows_of(const char *text)
{
	json_error_t e;
	json_t *rows = json_loads(text, 0, &e);
	if (!rows)
		fail_msg("bad test rows (line %d: %s)", e.line, e.text);
	return rows;
}

/* The summary entry of `method`. */
static json_t *entry(json_t *summary, const char *method)
{
	size_t i;
	json_t *s;
	json_array_foreach(summary, i, s)
		if (!strcmp(json_string_value(json_object_get(s, "method")), method))
			return s;
	fail_msg("no summary entry for method '%s'", method);
	return NULL;
}

static json_int_t int_of(const json_t *s, const char *key)
{
	const json_t *v = json_object_get(s, key);
	if (!json_is_integer(v))
		fail_msg("key '%s' is not an integer", key);
	return json_integer_value(v);
}

static double real_of(const json_t *s, const char *key)
{
	const json_t *v = json_object_get(s, key);
	if (!json_is_number(v))
		fail_msg("key '%s' is not a number", key);
	return json_number_value(v);
}

static void assert_null_key(const json_t *s, const char *key)
{
	if (!json_is_null(json_object_get(s, key)))
		fail_msg("key '%s' is not null", key);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot read '%s'", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), n);
	buf[n] = 0;
	fclose(f);
	return buf;
}

__attribute__((noinline)) static size_t count_substr(const char *s, const char *needle)
{
	size_t n = 0, k = strlen(needle), at = 0;
	const char *p;
	while ((p = strstr(s + at, needle))) {
		n++;
		at = (size_t)(p - s) + k;
	}
	return n;
}

/* A small well-formedness check written from XML's rules, not from the
 * writer: tags nest and close in order, attribute values are quoted, and
 * text has no raw '<' and only the five predefined entities. */
static void assert_well_formed(const char *svg)
{
	const char *stack[64];
	size_t len[64];
	int depth = 0;
	if (strncmp(svg, "<svg", 4))
		fail_msg("does not start with <svg: %.40s", svg);
	size_t n = strlen(svg);
	while (n && (svg[n - 1] == '\n' || svg[n - 1] == ' '))
		n--;
	if (n < 6 || strncmp(svg + n - 6, "</svg>", 6))
		fail_msg("does not end with </svg>");
	for (const char *p = svg; *p;) {
		if (*p == '&') {
			static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
			bool ok = false;
			for (int i = 0; i < 5; i++)
				ok |= !strncmp(p, ents[i], strlen(ents[i]));
			if (!ok)
				fail_msg("bare '&' at: %.30s", p);
			p++;
			continue;
		}
		if (*p != '<') {
			if (*p == '>')
				fail_msg("bare '>' in text at: %.30s", p);
			p++;
			continue;
		}
		const char *end = p + 1;
		bool quoted = false;
		while (*end && (quoted || *end != '>')) {
			if (*end == '"')
				quoted = !quoted;
			if (quoted && *end == '<')
				fail_msg("'<' in an attribute at: %.30s", end);
			end++;
		}
		if (!*end)
			fail_msg("unclosed tag at: %.30s", p);
		if (p[1] == '/') {
			size_t k = strcspn(p + 2, " >");
			if (!depth || k != len[depth - 1] || strncmp(p + 2, stack[depth - 1], k))
				fail_msg("closing tag does not match at: %.30s", p);
			depth--;
		} else if (end[-1] != '/') {
			assert_true(depth < 64);
			stack[depth] = p + 1;
			len[depth++] = strcspn(p + 1, " />");
		}
		p = end + 1;
	}
	if (depth)
		fail_msg("%d tags left open", depth);
	if (strstr(svg, "nan") || strstr(svg, "inf") || strstr(svg, "NaN"))
		fail_msg("a NaN or an infinity in the SVG");
}

/* ---- the summary ---------------------------------------------------------------
 *
 * Sweep "s", rep 0. Methods (first seen): A, B (families), C (exact),
 * G (the GA, two seeds), D (fails everywhere).
 *
 * Point 0: lower_bound 90 everywhere, C's solver bound 95 (time limit, not
 *   certified). G's second seed failed, with a junk objective 1, bubble 0.9
 *   and bound 1000 that must count nowhere. Reference 95.
 *   A 100 (gap 5/100), B 100 (5/100), C 110 (15/110), G 104 (9/104).
 *   Wins: A and B (tie at 100).
 * Point 1: lower_bound 150; C certified 180 with no bound key: the
 *   reference is 180, from the certified objective alone. B unsupported (no
 *   objective). A 200 (20/200), C 180 (0), G 190 (10/190) and 180 (0: it
 *   meets the reference, though not certified). Wins: C and G (G's best
 *   seed, 180; a tie).
 * Point 2: no bound of any kind: A 50 has no gap; D failed. Wins: A.
 *
 * A: rows 3, bubble (0.2 + 0.1) / 2 = 0.15, wins 2 of 3 points, certified
 *    0/3, gaps 0.05, 0.1: mean 0.075, worst 0.1.
 * B: rows 2, bubble 0.4, wins 1 of 2, certified 0/2, gap 0.05.
 * C: rows 2, bubble (0.5 + 0.3) / 2 = 0.4, wins 1 of 2, certified 1/2,
 *    gaps 15/110 and 0: mean 15/220, worst 15/110.
 * G: rows 4, failures 1, bubble (0.3 + 0.2 + 0.1) / 3 = 0.2, wins 1 of 2,
 *    certified 0/3 (the failure is left out), gaps 9/104, 10/190, 0.
 * D: rows 1, failures 1, wins 0 of 1, every mean null.
 */
static const char summary_rows[] =
	"["
	"{\"sweep\":\"s\",\"point\":0,\"rep\":0,\"params\":{\"microbatches\":2,\"devices\":2},"
	" \"method\":\"A\",\"kind\":\"family\",\"status\":\"feasible\",\"objective\":100,"
	" \"bubble_ratio\":0.2,\"lower_bound\":90,\"bound\":90,\"certified\":false},"
	"{\"sweep\":\"s\",\"point\":0,\"rep\":0,\"params\":{\"microbatches\":2,\"devices\":2},"
	" \"method\":\"B\",\"kind\":\"family\",\"status\":\"feasible\",\"objective\":100,"
	" \"bubble_ratio\":0.4,\"lower_bound\":90,\"certified\":false},"
	"{\"sweep\":\"s\",\"point\":0,\"rep\":0,\"params\":{\"microbatches\":2,\"devices\":2},"
	" \"method\":\"C\",\"kind\":\"solve\",\"status\":\"time_limit\",\"objective\":110,"
	" \"bubble_ratio\":0.5,\"lower_bound\":90,\"bound\":95,\"certified\":false},"
	"{\"sweep\":\"s\",\"point\":0,\"rep\":0,\"params\":{\"microbatches\":2,\"devices\":2},"
	" \"method\":\"G\",\"kind\":\"search\",\"seed\":1,\"status\":\"feasible\",\"objective\":104,"
	" \"bubble_ratio\":0.3,\"lower_bound\":90,\"bound\":90,\"certified\":false},"
	"{\"sweep\":\"s\",\"point\":0,\"rep\":0,\"params\":{\"microbatches\":2,\"devices\":2},"
	" \"method\":\"G\",\"kind\":\"search\",\"seed\":2,\"status\":\"error\",\"objective\":1,"
	" \"bubble_ratio\":0.9,\"bound\":1000,\"certified\":true,\"error\":\"boom\"},"
	"{\"sweep\":\"s\",\"point\":1,\"rep\":0,\"params\":{\"microbatches\":4,\"devices\":2},"
	" \"method\":\"A\",\"kind\":\"family\",\"status\":\"feasible\",\"objective\":200,"
	" \"bubble_ratio\":0.1,\"lower_bound\":150,\"certified\":false},"
	"{\"sweep\":\"s\",\"point\":1,\"rep\":0,\"params\":{\"microbatches\":4,\"devices\":2},"
	" \"method\":\"B\",\"kind\":\"family\",\"status\":\"unsupported\",\"objective\":null,"
	" \"bubble_ratio\":null,\"lower_bound\":150,\"certified\":false},"
	"{\"sweep\":\"s\",\"point\":1,\"rep\":0,\"params\":{\"microbatches\":4,\"devices\":2},"
	" \"method\":\"C\",\"kind\":\"solve\",\"status\":\"optimal\",\"objective\":180,"
	" \"bubble_ratio\":0.3,\"lower_bound\":150,\"certified\":true},"
	"{\"sweep\":\"s\",\"point\":1,\"rep\":0,\"params\":{\"microbatches\":4,\"devices\":2},"
	" \"method\":\"G\",\"kind\":\"search\",\"seed\":1,\"status\":\"feasible\",\"objective\":190,"
	" \"bubble_ratio\":0.2,\"lower_bound\":150,\"certified\":false},"
	"{\"sweep\":\"s\",\"point\":1,\"rep\":0,\"params\":{\"microbatches\":4,\"devices\":2},"
	" \"method\":\"G\",\"kind\":\"search\",\"seed\":2,\"status\":\"feasible\",\"objective\":180,"
	" \"bubble_ratio\":0.1,\"lower_bound\":150,\"certified\":false},"
	"{\"sweep\":\"s\",\"point\":2,\"rep\":0,\"params\":{\"microbatches\":8,\"devices\":2},"
	" \"method\":\"A\",\"kind\":\"family\",\"status\":\"feasible\",\"objective\":50,"
	" \"certified\":false},"
	"{\"sweep\":\"s\",\"point\":2,\"rep\":0,\"params\":{\"microbatches\":8,\"devices\":2},"
	" \"method\":\"D\",\"kind\":\"family\",\"status\":\"error\",\"objective\":null,"
	" \"error\":\"no\"}"
	"]";

static void test_summary_hand_rows(void **state)
{
	json_t *rows = rows_of(summary_rows);
	json_t *sum = report_summary(rows);
	assert_non_null(sum);
	assert_int_equal(json_array_size(sum), 5);
	static const char *const order[] = {"A", "B", "C", "G", "D"};
	for (int i = 0; i < 5; i++)
		assert_string_equal(json_string_value(json_object_get(json_array_get(sum, i), "method")),
				    order[i]);

	static const struct {
		const char *method;
		int rows, failures, wins, points;
		double bubble, certified, mean_gap, worst_gap;   /* < 0: null */
	} want[] = {
		{"A", 3, 0, 2, 3, 0.15, 0, 0.075, 0.1},
		{"B", 2, 0, 1, 2, 0.4, 0, 0.05, 0.05},
		{"C", 2, 0, 1, 2, 0.4, 0.5, 15.0 / 220, 15.0 / 110},
		{"G", 4, 1, 1, 2, 0.2, 0, (9.0 / 104 + 10.0 / 190 + 0) / 3, 9.0 / 104},
		{"D", 1, 1, 0, 1, -1, -1, -1, -1},
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		json_t *s = entry(sum, want[i].method);
		print_message("method %s\n", want[i].method);
		assert_int_equal(int_of(s, "rows"), want[i].rows);
		assert_int_equal(int_of(s, "failures"), want[i].failures);
		assert_int_equal(int_of(s, "wins"), want[i].wins);
		assert_int_equal(int_of(s, "points"), want[i].points);
		const char *keys[] = {"mean_bubble_ratio", "share_certified", "mean_gap", "worst_gap"};
		double vals[] = {want[i].bubble, want[i].certified, want[i].mean_gap, want[i].worst_gap};
		for (int k = 0; k < 4; k++) {
			if (vals[k] < 0)
				assert_null_key(s, keys[k]);
			else
				assert_double_near(real_of(s, keys[k]), vals[k], 1e-12);
		}
	}
	json_decref(sum);
	json_decref(rows);
}

/* The reference is per point and repetition, and a certified objective
 * sets the gap to 0 even below a larger (wrong) bound of another row. */
static void test_summary_reference_per_rep(void **state)
{
	/* rep 0: bound 80, objective 100: gap 0.2; rep 1: bound 90 from
	 * another method, objective 100: gap 0.1; mean 0.15. M certified in
	 * rep 1 at 90: gap 0 and it wins rep 1, A wins rep 0 alone. */
	json_t *rows = rows_of(
		"[{\"point\":0,\"rep\":0,\"method\":\"A\",\"status\":\"feasible\",\"objective\":100,"
		"  \"lower_bound\":80},"
		" {\"point\":0,\"rep\":1,\"method\":\"A\",\"status\":\"feasible\",\"objective\":100,"
		"  \"lower_bound\":80},"
		" {\"point\":0,\"rep\":1,\"method\":\"M\",\"status\":\"optimal\",\"objective\":90,"
		"  \"bound\":90,\"certified\":true}]");
	json_t *sum = report_summary(rows);
	json_t *a = entry(sum, "A"), *m = entry(sum, "M");
	assert_double_near(real_of(a, "mean_gap"), 0.15, 1e-12);
	assert_double_near(real_of(a, "worst_gap"), 0.2, 1e-12);
	assert_int_equal(int_of(a, "wins"), 1);
	assert_int_equal(int_of(a, "points"), 2);
	assert_int_equal(int_of(m, "wins"), 1);
	assert_int_equal(int_of(m, "points"), 1);
	assert_double_near(real_of(m, "mean_gap"), 0, 0);
	assert_double_near(real_of(m, "share_certified"), 1, 0);
	json_decref(sum);
	json_decref(rows);

	rows = json_array();
	sum = report_summary(rows);
	assert_int_equal(json_array_size(sum), 0);
	json_decref(sum);
	json_decref(rows);
}

static char *print_to_string(const json_t *summary, bool markdown)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_print(f, summary, markdown);
	fclose(f);
	return buf;
}

static void test_print_tables(void **state)
{
	json_t *rows = rows_of(summary_rows);
	json_t *sum = report_summary(rows);
	char *text = print_to_string(sum, false);
	/* a header and one line per method, the numbers as percentages */
	assert_int_equal(count_substr(text, "\n"), 6);
	assert_contains(text, "method");
	assert_contains(text, "2/3");     /* A's wins of its points */
	assert_contains(text, "50.0 %");  /* C's share certified */
	assert_contains(text, "7.50 %");  /* A's mean gap */
	assert_int_equal(strchr(text, '|') != NULL, 0);
	/* every line as long as the header: aligned columns */
	size_t width = strcspn(text, "\n");
	for (const char *p = text; *p; p += strcspn(p, "\n") + 1)
		assert_int_equal(strcspn(p, "\n"), width);
	free(text);

	text = print_to_string(sum, true);
	assert_int_equal(strncmp(text, "| method", 8), 0);
	assert_contains(text, "\n|:---|---:|");
	assert_int_equal(count_substr(text, "\n"), 7);   /* header, rule, 5 methods */
	assert_contains(text, "| D ");
	free(text);
	json_decref(sum);
	json_decref(rows);
}

/* ---- the plots ------------------------------------------------------------------ */

/* Sum of the bar counts in the histogram's tooltips ("...: N rows</title></rect>"). */
static int histogram_total(const char *svg)
{
	int total = 0;
	for (const char *p = strstr(svg, "<rect"); p; p = strstr(p + 1, "<rect")) {
		const char *gt = strchr(p, '>'), *t = gt + 1;
		if (gt[-1] == '/')   /* <rect .../>: the background, no bar */
			continue;
		assert_int_equal(strncmp(t, "<title>", 7), 0);
		const char *r = strstr(t, " rows</title>");
		assert_non_null(r);
		while (r > t && r[-1] >= '0' && r[-1] <= '9')
			r--;
		total += atoi(r);
	}
	return total;
}

/* The line chart averages every method over the same points: method A's
 * 100 at point 1, where B failed, stays out (else A's mean would be 55,
 * not 10), and the title says how many points were used. */
static void test_plot_common_points(void **state)
{
	(void)state;
	json_t *rows = rows_of("["
		"{\"sweep\":\"s\",\"point\":0,\"rep\":0,\"method\":\"A\",\"status\":\"feasible\",\"params\":{\"microbatches\":4},\"objective\":10},"
		"{\"sweep\":\"s\",\"point\":0,\"rep\":0,\"method\":\"B\",\"status\":\"feasible\",\"params\":{\"microbatches\":4},\"objective\":20},"
		"{\"sweep\":\"s\",\"point\":1,\"rep\":0,\"method\":\"A\",\"status\":\"feasible\",\"params\":{\"microbatches\":4},\"objective\":100},"
		"{\"sweep\":\"s\",\"point\":1,\"rep\":0,\"method\":\"B\",\"status\":\"unsupported\",\"params\":{\"microbatches\":4},\"objective\":null}]");
	json_t *written = json_array();
	struct error err = {{0}};
	const char *dir = path_join(tmpdir, "common");
	if (report_plots(rows, dir, NULL, NULL, written, &err))
		fail_msg("report_plots: %s", err.msg);
	char *svg = slurp(path_join(dir, "objective.svg"));
	assert_contains(svg, "A: microbatches 4: mean 10 (1 rows)");
	assert_contains(svg, "B: microbatches 4: mean 20 (1 rows)");
	assert_contains(svg, "over the 1 points every method solved");
	free(svg);
	json_decref(written);
	json_decref(rows);
}

static void test_plots_written(void **state)
{
	json_t *rows = rows_of(summary_rows), *written = json_array();
	struct error err = {{0}};
	const char *dir = path_join(tmpdir, "nested/plots");   /* neither exists */
	if (report_plots(rows, dir, NULL, NULL, written, &err))
		fail_msg("report_plots: %s", err.msg);
	assert_int_equal(json_array_size(written), 2);
	assert_string_equal(json_string_value(json_array_get(written, 0)),
			    path_join(dir, "objective.svg"));
	assert_string_equal(json_string_value(json_array_get(written, 1)), path_join(dir, "gap.svg"));
	assert_int_equal(dir_count_all(dir), 2);

	char *svg = slurp(path_join(dir, "objective.svg"));
	assert_well_formed(svg);
	/* A, B, C, G have objectives; D has none: 4 lines, 5 legend entries */
	assert_int_equal(count_substr(svg, "<polyline"), 4);
	for (const char *m = "ABCG"; *m; m++) {
		char label[16];
		snprintf(label, sizeof label, ">%c<", *m);
		assert_contains(svg, label);
	}
	assert_contains(svg, ">D (no values)<");
	assert_contains(svg, ">microbatches<");   /* the default x and its label */
	assert_contains(svg, ">objective (mean)<");
	free(svg);

	/* the GA's gaps: 9/104 (8.65 %), 10/190 (5.26 %), 0 */
	svg = slurp(path_join(dir, "gap.svg"));
	assert_well_formed(svg);
	assert_int_equal(histogram_total(svg), 3);
	assert_contains(svg, ">rows<");
	free(svg);
	json_decref(written);
	json_decref(rows);
}

/* One x value, every y equal, bubble_ratio as y, names to escape, null
 * values; no search rows, so no gap.svg (and an old one goes). */
static void test_plots_degenerate(void **state)
{
	json_t *rows = rows_of(
		"[{\"params\":{\"devices\":4},\"method\":\"a<b&c\",\"status\":\"feasible\","
		"  \"objective\":500,\"bubble_ratio\":0},"
		" {\"params\":{\"devices\":4},\"method\":\"x\\\"y'z\",\"status\":\"feasible\","
		"  \"objective\":500,\"bubble_ratio\":0},"
		" {\"params\":{\"devices\":4},\"method\":\"n\",\"status\":\"unsupported\","
		"  \"objective\":null,\"bubble_ratio\":null},"
		" {\"params\":{\"devices\":\"four\"},\"method\":\"s\",\"status\":\"feasible\","
		"  \"objective\":7}]");
	const char *dir = path_join(tmpdir, "degenerate");
	struct error err = {{0}};
	assert_int_equal(mkdir(dir, 0700), 0);
	FILE *old = fopen(path_join(dir, "gap.svg"), "w");
	assert_non_null(old);
	fclose(old);
	const char *ys[] = {"objective", "bubble_ratio"};
	for (int i = 0; i < 2; i++) {
		json_t *written = json_array();
		if (report_plots(rows, dir, NULL, ys[i], written, &err))
			fail_msg("report_plots: %s", err.msg);
		assert_int_equal(json_array_size(written), 1);
		assert_false(exists(path_join(dir, "gap.svg")));
		char *svg = slurp(path_join(dir, "objective.svg"));
		assert_well_formed(svg);
		assert_int_equal(count_substr(svg, "<polyline"), 2);
		assert_contains(svg, "a&lt;b&amp;c");
		assert_contains(svg, "x&quot;y&apos;z");
		assert_contains(svg, ">devices<");
		/* y ticks at round numbers around the one value */
		assert_contains(svg, i ? ">0.0<" : ">500<");
		free(svg);
		json_decref(written);
	}
	assert_int_equal(dir_count_all(dir), 1);
	json_decref(rows);
}

static void test_plots_errors(void **state)
{
	json_t *rows = rows_of(summary_rows), *written = json_array();
	struct error err = {{0}};

	/* x must be numeric in some row */
	json_t *strs = rows_of("[{\"params\":{\"file\":\"a.json\",\"devices\":2},\"method\":\"A\","
			       "  \"objective\":3}]");
	const char *dir = path_join(tmpdir, "never");
	assert_int_equal(report_plots(strs, dir, "file", NULL, written, &err), STATUS_ERROR);
	check_error_message("string x", err.msg, "plot", "'params.file'", "numeric");
	assert_int_equal(report_plots(rows, dir, "cost.F", NULL, written, &err), STATUS_ERROR);
	check_error_message("missing x", err.msg, "plot", "cost.F", "numeric");
	assert_int_equal(report_plots(rows, dir, NULL, "makespan", written, &err), STATUS_ERROR);
	check_error_message("bad y", err.msg, "plot", "'makespan'", "objective or bubble_ratio");
	json_t *none = json_array();
	assert_int_equal(report_plots(none, dir, NULL, NULL, written, &err), STATUS_ERROR);
	json_decref(none);
	assert_false(exists(dir));   /* nothing created before the plots are drawn */
	json_decref(strs);

	/* the directory is a regular file: an error naming it, nothing left */
	const char *parent = path_join(tmpdir, "errs");
	assert_int_equal(mkdir(parent, 0700), 0);
	const char *file = path_join(parent, "plots");
	FILE *f = fopen(file, "w");
	fputs("keep", f);
	fclose(f);
	assert_int_equal(report_plots(rows, file, NULL, NULL, written, &err), STATUS_ERROR);
	check_error_message("dir is a file", err.msg, file, "plots", "not a directory");
	assert_int_equal(dir_count_all(parent), 1);
	char *text = slurp(file);
	assert_string_equal(text, "keep");
	free(text);
	/* ... or a directory under one */
	const char *under = path_join(file, "sub");
	assert_int_equal(report_plots(rows, under, NULL, NULL, written, &err), STATUS_ERROR);
	check_error_message("dir under a file", err.msg, under, "plots", "directory");
	assert_int_equal(dir_count_all(parent), 1);

	/* a plot's name is taken by a directory: the rename fails, the error
	 * names the file, and no temporary file stays */
	const char *taken = path_join(tmpdir, "taken");
	assert_int_equal(mkdir(taken, 0700), 0);
	assert_int_equal(mkdir(path_join(taken, "objective.svg"), 0700), 0);
	assert_int_equal(report_plots(rows, taken, NULL, NULL, written, &err), STATUS_ERROR);
	check_error_message("name taken", err.msg, path_join(taken, "objective.svg"), "objective.svg",
			    "write failed");
	assert_int_equal(dir_count_all(taken), 1);
	assert_int_equal(json_array_size(written), 0);
	json_decref(written);
	json_decref(rows);
}

/* ---- setup ------------------------------------------------------------------------ */

static int group_setup(void **state)
{
	return tmpdir_make(tmpdir, sizeof tmpdir, "pipeopt-report");
}

static int group_teardown(void **state)
{
	return tmpdir_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_hand_rows),
		cmocka_unit_test(test_summary_reference_per_rep),
		cmocka_unit_test(test_print_tables),
		cmocka_unit_test(test_plots_written),
		cmocka_unit_test(test_plot_common_points),
		cmocka_unit_test(test_plots_degenerate),
		cmocka_unit_test(test_plots_errors),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
