/* Sweep results: JSON Lines, durable appends, torn-tail repair, CSV
 * (results.h). */
#include "sweep/results.h"

#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* Read the file's lines into rows, streaming (results can outgrow any
 * whole-file buffer). `*good` = bytes of the complete, parsed prefix;
 * `*torn` when the last line lacks its newline or is not a JSON object
 * (NUL bytes included: a crash can leave a zero-filled tail when the
 * size reached the disk before the data). A bad line before the last is an
 * error naming it. Empty lines are skipped. */
static enum status read_rows(const char *path, FILE *f, json_t *rows, long *good, bool *torn,
			     struct error *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long at = 0;
	int lineno = 0, bad = 0;
	*good = 0;
	*torn = false;
	while ((n = getline(&line, &cap, f)) != -1) {
		lineno++;
		if (bad) {   /* the bad line was not the last */
			free(line);
			return err_set(err, "results '%s': line %d: not a JSON object", path, bad);
		}
		bool nl = line[n - 1] == '\n';
		size_t len = (size_t)n - nl;
		at += n;
		if (!nl) {   /* the last line, cut short */
			*torn = true;
			break;
		}
		if (!len) {
			*good = at;
			continue;
		}
		json_t *row = memchr(line, 0, len) ? NULL : json_loadb(line, len, 0, NULL);
		if (!json_is_object(row)) {
			json_decref(row);
			bad = lineno;
			continue;
		}
		json_array_append_new(rows, row);
		*good = at;
	}
	free(line);
	if (ferror(f))
		return err_set(err, "results '%s': read failed", path);
	*torn |= bad != 0;
	return STATUS_OK;
}

enum status results_load(const char *path, json_t **rows, struct error *err)
{
	long good;
	bool torn;
	*rows = NULL;
	FILE *f = fopen(path, "r");
	if (!f)
		return err_set(err, "results '%s': cannot open: %s", path, strerror(errno));
	json_t *a = json_array();
	enum status st = read_rows(path, f, a, &good, &torn, err);
	fclose(f);
	if (st) {
		json_decref(a);
		return st;
	}
	*rows = a;
	return STATUS_OK;
}

enum status results_open(const char *path, struct results *r, struct error *err)
{
	long good = 0;
	enum status st = STATUS_OK;
	memset(r, 0, sizeof *r);
	r->fd = -1;
	r->rows = json_array();
	FILE *f = fopen(path, "r");
	if (!f && errno != ENOENT)
		return err_set(err, "results '%s': cannot open: %s", path, strerror(errno));
	if (f) {
		st = read_rows(path, f, r->rows, &good, &r->torn, err);
		fseek(f, 0, SEEK_END);
		r->torn_bytes = ftell(f) - good;
		fclose(f);
		if (st)
			goto fail;
	}
	r->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (r->fd < 0) {
		st = err_set(err, "results '%s': cannot open for appending: %s", path, strerror(errno));
		goto fail;
	}
	if (r->torn && (ftruncate(r->fd, (off_t)good) || fsync(r->fd))) {
		st = err_set(err, "results '%s': cannot cut the torn last line: %s", path,
			     strerror(errno));
		goto fail;
	}
	if (!(r->path = strdup(path))) {
		st = err_set(err, "results '%s': out of memory", path);
		goto fail;
	}
	return STATUS_OK;
fail:
	results_close(r);
	return st;
}

enum status results_append_batch(struct results *r, json_t *const *rows, int n,
				 struct error *err)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	for (int i = 0; buf && i < n; i++) {
		char *text = json_dumps(rows[i], JSON_COMPACT | JSON_ENSURE_ASCII);
		size_t k = text ? strlen(text) : 0;
		if (text && len + k + 1 > cap) {
			while (len + k + 1 > cap)
				cap *= 2;
			char *b = realloc(buf, cap);
			if (!b)
				free(buf);
			buf = b;
		}
		if (!text || !buf) {
			free(text);
			free(buf);
			return err_set(err, "results '%s': out of memory", r->path);
		}
		memcpy(buf + len, text, k);
		buf[len + k] = '\n';
		len += k + 1;
		free(text);
	}
	if (!buf)
		return err_set(err, "results '%s': out of memory", r->path);
	/* one write: a crash can only tear the last line, which the next open
	 * cuts off; then one fsync for the batch (group commit) */
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(r->fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = errno;
			free(buf);
			return err_set(err, "results '%s': write failed: %s", r->path,
				       w < 0 ? strerror(e) : "no progress");
		}
		done += (size_t)w;
	}
	free(buf);
	if (fsync(r->fd))
		return err_set(err, "results '%s': fsync failed: %s", r->path, strerror(errno));
	return STATUS_OK;
}

enum status results_append(struct results *r, const json_t *row, struct error *err)
{
	return results_append_batch(r, (json_t *const *)&row, 1, err);
}

void results_close(struct results *r)
{
	if (r->fd >= 0)
		close(r->fd);
	json_decref(r->rows);
	free(r->path);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

/* ---- CSV ---------------------------------------------------------------------- */

/* Add the row's column names (params.* flattened) to cols, in first-seen
 * order. */
static void collect_columns(const json_t *row, json_t *cols)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)row, k, v) {
		if (!strcmp(k, "params") && json_is_object(v)) {
			const char *pk;
			json_t *pv;
			json_object_foreach(v, pk, pv) {
				char name[256];
				snprintf(name, sizeof name, "params.%s", pk);
				if (!json_object_get(cols, name))
					json_object_set_new(cols, name, json_integer(json_object_size(cols)));
			}
		} else if (!json_object_get(cols, k)) {
			json_object_set_new(cols, k, json_integer(json_object_size(cols)));
		}
	}
}

static void csv_value(FILE *f, const json_t *v)
{
	if (!v || json_is_null(v))
		return;
	if (json_is_string(v)) {
		fputc('"', f);
		for (const char *p = json_string_value(v); *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	} else if (json_is_true(v) || json_is_false(v)) {
		fputs(json_is_true(v) ? "true" : "false", f);
	} else if (json_is_integer(v)) {
		fprintf(f, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		fprintf(f, "%.17g", json_real_value(v));
	} else {
		char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		json_t *s = json_string(t ? t : "");
		csv_value(f, s);
		json_decref(s);
		free(t);
	}
}

static const json_t *column_value(const json_t *row, const char *name)
{
	if (!strncmp(name, "params.", 7))
		return json_object_get(json_object_get(row, "params"), name + 7);
	return json_object_get(row, name);
}

enum status results_write_csv(const json_t *rows, const char *path, struct error *err)
{
	json_t *cols = json_object();
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row)
		collect_columns(row, cols);
	size_t nc = json_object_size(cols);
	const char **names = calloc(nc ? nc : 1, sizeof *names);
	const char *k;
	json_t *v;
	json_object_foreach(cols, k, v)
		names[json_integer_value(v)] = k;
	/* the table is written in memory first, then into place as one file
	 * (file_write_atomic: no partial file, and /dev/null stays a device) */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	enum status st = STATUS_OK;
	if (!f) {
		st = err_set(err, "csv '%s': out of memory", path);
		goto out;
	}
	for (size_t c = 0; c < nc; c++)
		fprintf(f, "%s%s", c ? "," : "", names[c]);
	fputc('\n', f);
	json_array_foreach(rows, i, row) {
		for (size_t c = 0; c < nc; c++) {
			if (c)
				fputc(',', f);
			csv_value(f, column_value(row, names[c]));
		}
		fputc('\n', f);
	}
	if (ferror(f) | fclose(f))
		st = err_set(err, "csv '%s': out of memory", path);
	else
		st = file_write_atomic(path, buf, len, err);
	free(buf);
out:
	free(names);
	json_decref(cols);
	return st;
}
