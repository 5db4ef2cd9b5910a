/*
 * A scratch directory for a test program: made in the group setup under
 * $TMPDIR (or /tmp), removed with everything in it in the teardown. The
 * including file defines _GNU_SOURCE (for nftw) before any include.
 */
#ifndef PIPEOPT_TMPDIR_H
#define PIPEOPT_TMPDIR_H

#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

/* dir = $TMPDIR/NAME-XXXXXX, created; 0 on success. */
static inline int tmpdir_make(char *dir, size_t n, const char *name)
{
	snprintf(dir, n, "%s/%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	return mkdtemp(dir) ? 0 : -1;
}

static inline int tmpdir_rm_entry(const char *path, const struct stat *st, int flag,
				  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove dir and everything below it; 0 on success. */
static inline int tmpdir_remove(const char *dir)
{
	return nftw(dir, tmpdir_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* dir/name in one of 16 rotating static buffers (dir may be an earlier
 * result). */
static inline const char *path_join(const char *dir, const char *name)
{
	static char bufs[16][PATH_MAX];
	static int k;
	char joined[PATH_MAX], *b = bufs[k++ % 16];
	snprintf(joined, sizeof joined, "%s/%s", dir, name);
	memcpy(b, joined, sizeof joined);
	return b;
}

/* Entries of dir (not . and ..) whose name contains needle (NULL: all);
 * -1 if dir cannot be read. */
static inline int dir_count(const char *dir, const char *needle)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		     (!needle || strstr(e->d_name, needle));
	closedir(d);
	return n;
}

#endif
