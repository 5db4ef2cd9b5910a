/* Sweep results: JSON Lines, durable appends, torn-tail repair, CSV
 * (results.h). */
#include "sweep/results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched/fileio.h"

/* Parse the text's lines into rows. `*good` = bytes of the complete,
 * parsed prefix; `*torn` when a last line is incomplete or unparsable. */
static enum status parse_lines(const char *path, const char *text, size_t len, json_t *rows,
			       size_t *good, bool *torn, struct error *err)
{
	size_t at = 0;
	int line = 0;
	*good = 0;
	*torn = false;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		line++;
		json_error_t je;
		json_t *row = json_loadb(text + at, end - at, 0, &je);
		bool last = !nl || end + 1 == len;
		if (!nl || !json_is_object(row)) {
			json_decref(row);
			if (last) {
				*torn = true;
				return STATUS_OK;
			}
			if (end == at)   /* an empty line: skip it */
				goto next;
			return err_set(err, "results '%s': line %d: not a JSON object (%s)", path, line,
				       row ? "another JSON value" : je.text);
		}
		json_array_append_new(rows, row);
	next:
		at = end + 1;
		*good = at;
	}
	return STATUS_OK;
}

static enum status slurp_optional(const char *path, char **text, size_t *len, struct error *err)
{
	struct stat st;
	*text = NULL;
	*len = 0;
	if (stat(path, &st) && errno == ENOENT)
		return STATUS_OK;
	if (file_slurp(path, "results", text, err))
		return STATUS_ERROR;
	*len = strlen(*text);
	return STATUS_OK;
}

enum status results_load(const char *path, json_t **rows, struct error *err)
{
	char *text;
	size_t len, good;
	bool torn;
	*rows = NULL;
	if (file_slurp(path, "results", &text, err))
		return STATUS_ERROR;
	len = strlen(text);
	json_t *a = json_array();
	enum status st = parse_lines(path, text, len, a, &good, &torn, err);
	free(text);
	if (st) {
		json_decref(a);
		return st;
	}
	*rows = a;
	return STATUS_OK;
}

enum status results_open(const char *path, struct results *r, struct error *err)
{
	char *text;
	size_t len, good;
	memset(r, 0, sizeof *r);
	r->fd = -1;
	if (slurp_optional(path, &text, &len, err))
		return STATUS_ERROR;
	r->rows = json_array();
	enum status st = parse_lines(path, text ? text : "", len, r->rows, &good, &r->torn, err);
	free(text);
	if (st)
		goto fail;
	r->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (r->fd < 0) {
		st = err_set(err, "results '%s': cannot open for appending: %s", path, strerror(errno));
		goto fail;
	}
	if (r->torn) {
		r->torn_bytes = (long)(len - good);
		if (ftruncate(r->fd, (off_t)good) || fsync(r->fd)) {
			st = err_set(err, "results '%s': cannot cut the torn last line: %s", path,
				     strerror(errno));
			goto fail;
		}
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
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	enum status st = STATUS_OK;
	if (!f) {
		st = err_set(err, "csv '%s': cannot write: %s", path, strerror(errno));
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
	if (ferror(f) | fclose(f)) {
		st = err_set(err, "csv '%s': write failed", path);
		remove(tmp);
	} else if (rename(tmp, path)) {
		st = err_set(err, "csv '%s': cannot rename into place: %s", path, strerror(errno));
		remove(tmp);
	}
out:
	free(names);
	json_decref(cols);
	return st;
}
