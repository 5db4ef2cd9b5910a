/*
 * Running a program from a test (the end-to-end tests of the binary:
 * test_cli.c, test_sweep_cli.c): spawned without a shell, stdin from
 * /dev/null, stdout and stderr captured in full through files in a
 * directory the test owns. Plus the small file helpers both use.
 */
#ifndef PIPEOPT_RUN_HELPERS_H
#define PIPEOPT_RUN_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_helpers.h"

extern char **environ;

struct run {
	int status;      /* exit status, or 128 + signal */
	char *out, *err; /* everything written, NUL-terminated */
	size_t out_len, err_len;
};

/* A whole file, NUL-terminated (NULL if it cannot be opened). */
static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (!buf)
		fail_msg("out of memory reading '%s'", path);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* Run argv[0] (a path, or a name looked up in PATH); the captures go
 * through files in capture_dir. */
static inline void run_spawn(struct run *r, const char *capture_dir, const char *const *argv)
{
	static int seq;
	char out_path[PATH_MAX], err_path[PATH_MAX];
	snprintf(out_path, sizeof out_path, "%s/.stdout.%d", capture_dir, seq);
	snprintf(err_path, sizeof err_path, "%s/.stderr.%d", capture_dir, seq++);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		fail_msg("posix_spawn %s: %s", argv[0], strerror(rc));
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		assert_int_equal(errno, EINTR);
	r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	r->out = slurp(out_path, &r->out_len);
	r->err = slurp(err_path, &r->err_len);
	assert_non_null(r->out);
	assert_non_null(r->err);
	unlink(out_path);
	unlink(err_path);
}

static inline void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		fail_msg("cannot write '%s': %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static inline bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* One JSON document, or the test fails showing the text. */
static inline json_t *parse_json(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, 0, &e);
	if (!v)
		fail_msg("not one JSON document (line %d: %s): %s", e.line, e.text, text);
	return v;
}

/* ---- a run in the background, to be signalled -------------------------- */

static inline double run_clock(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Start argv[0] (a path) without waiting: stdin and stderr /dev/null,
 * stdout into out_path (NULL: /dev/null). */
static inline pid_t run_start(const char *const *argv, const char *out_path)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		int out = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : null;
		dup2(null, 0);
		dup2(out, 1);
		dup2(null, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Lines in a file (0 when it does not exist). */
static inline int run_count_lines(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	char buf[4096];
	int n = 0;
	ssize_t k;
	while ((k = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < k; i++)
			n += buf[i] == '\n';
	close(fd);
	return n;
}

/* Wait until path has `lines` lines; fails if pid ends first or after
 * `seconds` (pid is killed then). */
static inline void run_wait_lines(pid_t pid, const char *path, int lines, double seconds)
{
	double t0 = run_clock();
	while (run_count_lines(path) < lines) {
		int ws;
		if (waitpid(pid, &ws, WNOHANG) == pid)
			fail_msg("the program ended (status %d) before '%s' had %d lines", ws, path, lines);
		if (run_clock() - t0 > seconds) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			fail_msg("'%s' had no %d lines after %.0f s", path, lines, seconds);
		}
		usleep(10000);
	}
}

/* Send sig to pid (still running: fails if it has ended) and wait for it;
 * the wait status, and in *waited the seconds from the signal to the end. */
static inline int run_signal(pid_t pid, int sig, double *waited)
{
	int ws = 0;
	if (waitpid(pid, &ws, WNOHANG) == pid)
		fail_msg("the program ended (status %d) before the signal", ws);
	double t0 = run_clock();
	assert_int_equal(kill(pid, sig), 0);
	while (waitpid(pid, &ws, 0) < 0)
		assert_int_equal(errno, EINTR);
	if (waited)
		*waited = run_clock() - t0;
	return ws;
}

#endif
