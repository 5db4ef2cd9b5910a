#include "common/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILE_BYTES (64L << 20)

/* Read a whole file into a new NUL-terminated buffer. */
enum status file_slurp(const char *path, const char *what, char **out,
			 struct error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(err, "%s '%s': cannot open: %s", what, path,
			       strerror(errno));
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (len + 1 < cap)
			break;
		if (cap >= (size_t)MAX_FILE_BYTES) {
			free(buf);
			fclose(f);
			return err_set(err, "%s '%s': file is larger than %ld MiB",
				       what, path, MAX_FILE_BYTES >> 20);
		}
		char *nb = realloc(buf, cap * 2);
		if (!nb)
			free(buf);
		buf = nb;
		cap *= 2;
	}
	int bad = ferror(f);
	fclose(f);
	if (!buf)
		return err_set(err, "%s '%s': out of memory", what, path);
	if (bad) {
		free(buf);
		return err_set(err, "%s '%s': read error", what, path);
	}
	buf[len] = 0;
	*out = buf;
	return STATUS_OK;
}


bool file_is_stream(const char *path)
{
	struct stat st;
	return !stat(path, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

enum status file_write_atomic(const char *path, const char *data, size_t len,
			      struct error *err)
{
	if (!strcmp(path, "-")) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout))
			return err_set(err, "output '-': write to stdout failed");
		return STATUS_OK;
	}
	/* A character device or a named pipe (/dev/null, /dev/stdout, a FIFO)
	 * is written in place: a rename would replace it with a regular file
	 * (as root, /dev/null itself), and nothing of a stream can be taken
	 * back anyway. Anything else goes to "path.tmp.PID" first. */
	bool stream = file_is_stream(path);
	char tmp[4096];
	if (!stream && snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >=
			       (int)sizeof tmp)
		return err_set(err, "output '%s': path too long", path);
	const char *target = stream ? path : tmp;
	FILE *f = fopen(target, "wb");
	if (!f)
		return err_set(err, "output '%s': cannot create: %s", path,
			       strerror(errno));
	int bad = fwrite(data, 1, len, f) != len;
	bad |= fflush(f) != 0;
	bad |= fsync(fileno(f)) != 0 && errno != EINVAL;   /* EINVAL: a pipe or device */
	bad |= fclose(f) != 0;
	if (bad || (!stream && rename(tmp, path))) {
		int e = errno;
		if (!stream)
			remove(tmp);
		return err_set(err, "output '%s': write failed: %s", path,
			       strerror(e));
	}
	return STATUS_OK;
}
