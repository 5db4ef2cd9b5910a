/*
 * Running a backend in a child process. CBC 2.10 keeps process-wide state
 * (two solves in one process can corrupt each other), can crash when its
 * time limit strikes during preprocessing (CglPreProcess::postProcess),
 * and does not interrupt its initial LP at the time limit. A child process
 * contains all three: the parent waits at most until o->kill_at (the time
 * limit plus half the command's allowance, common/stop.h), then kills the
 * child and reports the time limit; a crash becomes an error message
 * instead of taking pipeopt down.
 *
 * An interrupt (stop_requested) is passed on to the child as SIGINT (CBC
 * then stops its search and answers with its incumbent); the parent waits
 * STOP_ANSWER seconds more for that answer, then kills the child. The
 * wait polls in slices of POLL_SLICE so that it sees the flag whichever
 * thread took the signal.
 *
 * The child writes its result through a pipe: a fixed header, then the
 * solution vector.
 */
#include "solvers/backend.h"

#include "common/clock.h"
#include "common/stop.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#define POLL_SLICE 0.1    /* seconds between looks at the stop flag */
#define STOP_ANSWER 0.5   /* seconds the child has to answer an interrupt */

struct wire {
	int status;           /* enum status of the solve call */
	int outcome;
	int has_solution;
	double objective, bound, seconds;
	long nodes;
	int ncols;
	char msg[512];
};


static bool write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static void child(int fd, const struct solver_backend *b, const struct milp *m,
		  const struct solver_options *o)
{
	struct solver_result r = {0};
	struct error err = {{0}};
	struct wire w = {0};
	w.status = b->solve(m, o, &r, &err);
	w.outcome = r.outcome;
	w.has_solution = r.has_solution && r.x;
	w.objective = r.objective;
	w.bound = r.bound;
	w.seconds = r.seconds;
	w.nodes = r.nodes;
	w.ncols = m->ncols;
	memcpy(w.msg, err.msg, sizeof w.msg);
	bool ok = write_all(fd, &w, sizeof w);
	if (ok && w.has_solution)
		ok = write_all(fd, r.x, m->ncols * sizeof(double));
	solver_result_release(&r);
	close(fd);
	_exit(ok ? 0 : 3);
}

/* The child being waited for, and the deadline, which an interrupt
 * brings forward to STOP_ANSWER from when it is seen. */
struct waiting {
	pid_t pid;
	double deadline;
	bool interrupted;
};

/* Pass an interrupt on to the child, once. */
static void pass_interrupt(struct waiting *w)
{
	if (w->interrupted || !stop_requested())
		return;
	w->interrupted = true;
	kill(w->pid, SIGINT);
	double t = clock_seconds() + STOP_ANSWER;
	if (t < w->deadline)
		w->deadline = t;
}

/* Read exactly len bytes before the deadline; false on timeout/EOF. */
static bool read_until(int fd, void *buf, size_t len, struct waiting *w)
{
	char *p = buf;
	while (len > 0) {
		pass_interrupt(w);
		double left = w->deadline - clock_seconds();
		if (left <= 0)
			return false;
		if (left > POLL_SLICE)
			left = POLL_SLICE;
		struct pollfd pfd = {fd, POLLIN, 0};
		int rc = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return false;
		if (rc == 0)
			continue;
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

enum status solver_solve_isolated(const struct solver_backend *b,
				  const struct milp *m, const struct solver_options *o,
				  struct solver_result *r, struct error *err)
{
	int fds[2];
	double t0 = clock_seconds();
	memset(r, 0, sizeof *r);
	fflush(stdout);
	fflush(stderr);
	if (pipe(fds))
		return err_set(err, "%s: cannot create a pipe: %s", b->name, strerror(errno));
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_set(err, "%s: cannot fork: %s", b->name, strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
#ifdef __linux__
		/* never an orphan: the child dies with the parent, even a parent
		 * killed by SIGKILL (which no handler sees) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(3);
#else
		(void)parent;
#endif
		child(fds[1], b, m, o);
	}
	close(fds[1]);
	/* the solver's own limit first; then the kill */
	struct waiting wait = {pid, o->kill_at > 0 ? o->kill_at :
				    o->time_limit > 0 ? stop_kill_at(t0, o->time_limit) : INFINITY,
			       false};
	struct wire w;
	bool got = read_until(fds[0], &w, sizeof w, &wait);
	if (got && w.has_solution) {
		r->x = malloc(m->ncols * sizeof(double));
		got = r->x && read_until(fds[0], r->x, m->ncols * sizeof(double), &wait);
	}
	close(fds[0]);
	int wstatus = 0;
	if (!got)
		kill(pid, SIGKILL);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	r->seconds = clock_seconds() - t0;
	if (!got) {
		free(r->x);
		r->x = NULL;
		/* Stopped at the limit or by the interrupt, nothing known: killed
		 * past the deadline, or crashed once the solver's own limit had
		 * passed (CBC 2.10.8 can segfault in CglPreProcess::postProcess
		 * when its time runs out in a preprocessed model: seen on a
		 * time-indexed target of p8 m16 fused, p memory, comm 1, at an
		 * 8 s solve, about one run in three). A crash before the limit
		 * stays an error. */
		bool crashed_late = WIFSIGNALED(wstatus) && o->time_limit > 0 &&
				    r->seconds >= o->time_limit;
		if (crashed_late || clock_seconds() >= wait.deadline) {
			r->outcome = wait.interrupted ? OUTCOME_NO_SOLUTION : OUTCOME_TIME_LIMIT;
			r->bound = -INFINITY;
			return STATUS_OK;
		}
		if (WIFSIGNALED(wstatus)) {
			r->crash_signal = WTERMSIG(wstatus);
			return err_set(err, "%s crashed (signal %d) while solving", b->name,
				       WTERMSIG(wstatus));
		}
		return err_set(err, "%s: the solver process ended without a result", b->name);
	}
	if (w.status != STATUS_OK) {
		free(r->x);
		r->x = NULL;
		return err_set(err, "%s", w.msg);
	}
	r->outcome = (enum outcome)w.outcome;
	r->has_solution = w.has_solution;
	r->objective = w.objective;
	r->bound = w.bound;
	r->nodes = w.nodes;
	return STATUS_OK;
}
