// SPDX-License-Identifier: GPL-2.0
/*
 * Attempts in parallel, retried with backoff: what "config apply" does
 * with the connects of the configuration file, so that a boot that runs
 * before the network (a RoCE link, a bond, a switch port) is up still
 * ends with every controller connected.
 *
 * Each attempt runs in a child process (the write to /dev/nvfab-fabrics
 * blocks until the controller is live or the kernel gives up), at most
 * cfg->parallel at once. With cfg->retry, an attempt that failed with a
 * transient errno (nvf_errno_transient()) is tried again after a wait
 * that starts at cfg->interval_s and doubles up to
 * NVF_JOBS_MAX_INTERVAL_S (each with up to a quarter more, at random, so
 * that hosts booted together do not retry in step), until it succeeds,
 * cfg->timeout_s has passed, or a signal (SIGTERM: "systemctl stop") says
 * stop. Under systemd ($NOTIFY_SOCKET) the parent says READY=1 once
 * every job has been tried once, or after cfg->ready_s, so that the boot
 * goes on; from then on STATUS= names what is still missing.
 *
 * Documented in Documentation/admin-guide/nvfab-persistence.rst and
 * Documentation/nvfabctl.8.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nvfabctl.h"
#include "jobs.h"

/* The most directives STATUS= names; the rest are counted. */
#define NVF_STATUS_NAMED	4

static long long nvf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/**
 * nvf_errno_transient() - may the same connect succeed later?
 * @err: the errno of a failed attempt
 *
 * Everything that the network, the target or a key loaded later can
 * change: refused, unreachable, timed out, reset, no such source address
 * yet, the target's error status (EIO), no key yet (ENOKEY). Not what
 * only the administrator can change: the kernel refused the options
 * (EINVAL, EOPNOTSUPP, E2BIG), no transport module (EPROTONOSUPPORT), no
 * fabrics device (ENOENT), not root (EACCES, EPERM), a key the target
 * rejected (EKEYREJECTED).
 *
 * Return: true if the attempt is worth repeating.
 */
bool nvf_errno_transient(int err)
{
	switch (err) {
	case EINVAL:
	case EOPNOTSUPP:
	case E2BIG:
	case EPROTONOSUPPORT:
	case ENOENT:
	case EACCES:
	case EPERM:
	case EKEYREJECTED:
	case NVF_JOB_FATAL:
		return false;
	default:
		return err > 0;
	}
}

/* "FILE:LINE: " for the messages of @j. */
#define nvf_job_msg(cfg, j, fmt, ...) \
	fprintf(stderr, "nvfabctl: config: %s:%d: " fmt "\n", (cfg)->file, \
		(j)->line, ##__VA_ARGS__)

static const char *nvf_job_strerror(int err)
{
	return err == NVF_JOB_FATAL ? "failed" : strerror(err);
}

/* The wait before attempt @attempts + 1, in ms: doubled, capped, jittered. */
static long long nvf_job_backoff(const struct nvf_jobs_cfg *cfg,
				 unsigned int attempts)
{
	long long ms = cfg->interval_s * 1000LL;
	long long cap = NVF_JOBS_MAX_INTERVAL_S * 1000LL;

	if (cap < ms)
		cap = ms;
	while (--attempts && ms < cap)
		ms *= 2;
	if (ms > cap)
		ms = cap;
	return ms + (long long)(random() % (ms / 4 + 1));
}

static void nvf_job_ended(struct nvf_job *j, int err,
			  const struct nvf_jobs_cfg *cfg, long long start);

/*
 * Start an attempt of @j in a child. @mask: the signal mask to restore.
 * A fork that fails is a failed attempt (EAGAIN, ENOMEM): retried only
 * with cfg->retry, as any other.
 */
static void nvf_job_start(struct nvf_job *j, const sigset_t *mask,
			  const struct nvf_jobs_cfg *cfg, long long start)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int ret;

		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		sigprocmask(SIG_SETMASK, mask, NULL);
		ret = -j->run(j->arg);
		fflush(NULL);
		_exit(ret < 0 || ret > NVF_JOB_FATAL ? NVF_JOB_FATAL : ret);
	}
	j->attempts++;
	if (pid < 0) {
		nvf_job_msg(cfg, j, "cannot start a connect: %s", strerror(errno));
		nvf_job_ended(j, errno, cfg, start);
		return;
	}
	j->pid = pid;
	j->state = NVF_JOB_RUNNING;
}

/* Attempt of @j ended with @err (0: success): what next. */
static void nvf_job_ended(struct nvf_job *j, int err,
			  const struct nvf_jobs_cfg *cfg, long long start)
{
	long long now = nvf_now_ms(), wait;

	j->pid = 0;
	j->err = err;
	if (!err) {
		j->state = NVF_JOB_DONE;
		return;
	}
	j->state = NVF_JOB_FAILED;
	if (!cfg->retry)
		return;
	if (!nvf_errno_transient(err)) {
		nvf_job_msg(cfg, j,
			    "not retried: %s needs a change of the file or the host",
			    nvf_job_strerror(err));
		return;
	}
	wait = nvf_job_backoff(cfg, j->attempts);
	if (cfg->timeout_s && now + wait >= start + cfg->timeout_s * 1000LL) {
		nvf_job_msg(cfg, j,
			    "given up after %u attempt%s in %u s (--retry-timeout); last: %s",
			    j->attempts, j->attempts == 1 ? "" : "s",
			    (unsigned int)((now - start) / 1000),
			    nvf_job_strerror(err));
		return;
	}
	nvf_job_msg(cfg, j, "attempt %u failed (%s); retrying in %.1f s",
		    j->attempts, nvf_job_strerror(err), wait / 1000.0);
	j->state = NVF_JOB_WAITING;
	j->next_ms = now + wait;
}

/* Reap every child that has ended. */
static void nvf_jobs_reap(struct nvf_job *jobs, size_t nr,
			  const struct nvf_jobs_cfg *cfg, long long start,
			  int flags)
{
	int status, err;
	pid_t pid;
	size_t i;

	while ((pid = waitpid(-1, &status, flags)) > 0) {
		for (i = 0; i < nr && jobs[i].pid != pid; i++)
			;
		if (i == nr)
			continue;
		if (WIFEXITED(status))
			err = WEXITSTATUS(status);
		else
			err = EINTR;	/* killed: try again */
		nvf_job_ended(&jobs[i], err, cfg, start);
	}
}

/* How many jobs are in @state. */
static size_t nvf_jobs_count(const struct nvf_job *jobs, size_t nr,
			     enum nvf_job_state state)
{
	size_t i, n = 0;

	for (i = 0; i < nr; i++)
		n += jobs[i].state == state;
	return n;
}

/* STATUS= for the service manager: what is connected, what is missing. */
static void nvf_jobs_status(const struct nvf_job *jobs, size_t nr,
			    const struct nvf_jobs_cfg *cfg, bool over)
{
	size_t done = nvf_jobs_count(jobs, nr, NVF_JOB_DONE), i, named = 0;
	size_t total = nr + cfg->settled + cfg->refused;
	static char last[1800];
	char buf[sizeof(last)];
	size_t len = 7;		/* "STATUS=" */

	if (!nvf_notify_enabled())
		return;
	memcpy(buf, "STATUS=", len + 1);
	if (done == nr && !cfg->refused) {
		snprintf(buf + len, sizeof(buf) - len,
			 "all %zu controllers connected", total);
		goto send;
	}
	len += snprintf(buf + len, sizeof(buf) - len,
			"%zu of %zu controllers connected; %s:",
			done + cfg->settled, total,
			over ? "not connected" : "missing");
	for (i = 0; i < nr && len < sizeof(buf); i++) {
		const struct nvf_job *j = &jobs[i];

		if (j->state == NVF_JOB_DONE)
			continue;
		if (named++ == NVF_STATUS_NAMED) {
			len += snprintf(buf + len, sizeof(buf) - len,
					" and %zu more", nr - done - NVF_STATUS_NAMED);
			break;
		}
		len += snprintf(buf + len, sizeof(buf) - len,
				"%s line %d %s: ", named > 1 ? ";" : "",
				j->line, j->what);
		if (j->state == NVF_JOB_RUNNING)
			len += snprintf(buf + len, sizeof(buf) - len,
					"attempt %u running", j->attempts);
		else if (j->state == NVF_JOB_WAITING && j->attempts)
			len += snprintf(buf + len, sizeof(buf) - len,
					"%s after %u attempt%s, retrying",
					nvf_job_strerror(j->err), j->attempts,
					j->attempts == 1 ? "" : "s");
		else if (j->state == NVF_JOB_WAITING)
			len += snprintf(buf + len, sizeof(buf) - len,
					"not tried yet");
		else
			len += snprintf(buf + len, sizeof(buf) - len,
					"%s (failed)", nvf_job_strerror(j->err));
	}
send:
	/* only what changed: the loop calls this on every wake-up */
	if (!strcmp(buf, last))
		return;
	memcpy(last, buf, sizeof(last));
	nvf_notify(buf);
}

/* Has every job been tried once, with no first attempt still running? */
static bool nvf_jobs_first_round_over(const struct nvf_job *jobs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!jobs[i].attempts ||
		    (jobs[i].attempts == 1 && jobs[i].state == NVF_JOB_RUNNING))
			return false;
	}
	return true;
}

/* After the first round, the directives still missing, on stderr. */
static void nvf_jobs_say_missing(const struct nvf_job *jobs, size_t nr,
				 const struct nvf_jobs_cfg *cfg)
{
	size_t waiting = nvf_jobs_count(jobs, nr, NVF_JOB_WAITING) +
			 nvf_jobs_count(jobs, nr, NVF_JOB_RUNNING);

	if (!waiting)
		return;
	fprintf(stderr,
		"nvfabctl: config: %s: %zu of %zu controllers not connected yet; retrying them until they are (or until stopped%s)\n",
		cfg->file, waiting, nr,
		nvf_notify_enabled() ? ": systemctl stop nvfab-boot" : "");
}

/**
 * nvf_jobs_run() - run @nr jobs to the end
 * @jobs: the jobs, state NVF_JOB_WAITING with attempts 0 (zeroed)
 * @nr: how many
 * @cfg: parallelism, retries, and the first-round callback
 *
 * Blocks SIGCHLD, SIGTERM, SIGINT and SIGHUP while it runs (a child runs
 * with the caller's mask). SIGTERM, SIGINT or SIGHUP stop it: running
 * attempts are sent SIGTERM and waited for, and every job not done is
 * named as not connected.
 *
 * Return: how many jobs did not succeed.
 */
int nvf_jobs_run(struct nvf_job *jobs, size_t nr,
		 const struct nvf_jobs_cfg *cfg)
{
	long long start = nvf_now_ms(), now, wake;
	bool first_done = false, ready = false;
	int stop_sig = 0, sig, failed = 0;
	sigset_t set, old;
	struct timespec ts;
	siginfo_t info;
	size_t i, running;

	srandom((unsigned int)(start ^ getpid()));
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);

	for (i = 0; i < nr; i++)
		jobs[i].next_ms = start;
	for (;;) {
		now = nvf_now_ms();
		running = nvf_jobs_count(jobs, nr, NVF_JOB_RUNNING);
		for (i = 0; i < nr && running < cfg->parallel; i++) {
			if (jobs[i].state == NVF_JOB_WAITING &&
			    jobs[i].next_ms <= now) {
				nvf_job_start(&jobs[i], &old, cfg, start);
				running += jobs[i].state == NVF_JOB_RUNNING;
			}
		}
		if (!first_done && nvf_jobs_first_round_over(jobs, nr)) {
			first_done = true;
			nvf_jobs_say_missing(jobs, nr, cfg);
			if (cfg->first_round)
				cfg->first_round(cfg->arg);
		}
		if (!ready && (first_done ||
			       now >= start + cfg->ready_s * 1000LL)) {
			ready = true;
			nvf_notify("READY=1");
		}
		nvf_jobs_status(jobs, nr, cfg, false);
		if (!running && !nvf_jobs_count(jobs, nr, NVF_JOB_WAITING))
			break;

		/* sleep until a child ends, a signal, or the next deadline */
		wake = -1;
		for (i = 0; i < nr; i++) {
			if (jobs[i].state == NVF_JOB_WAITING &&
			    running < cfg->parallel &&
			    (wake < 0 || jobs[i].next_ms < wake))
				wake = jobs[i].next_ms;
		}
		if (!ready && (wake < 0 || start + cfg->ready_s * 1000LL < wake))
			wake = start + cfg->ready_s * 1000LL;
		if (wake >= 0) {
			wake -= now;
			if (wake < 0)
				wake = 0;
			ts.tv_sec = wake / 1000;
			ts.tv_nsec = (wake % 1000) * 1000000L;
		}
		sig = sigtimedwait(&set, &info, wake >= 0 ? &ts : NULL);
		if (sig == SIGCHLD) {
			nvf_jobs_reap(jobs, nr, cfg, start, WNOHANG);
		} else if (sig > 0) {
			stop_sig = sig;
			break;
		}
	}

	if (stop_sig) {
		for (i = 0; i < nr; i++) {
			if (jobs[i].state == NVF_JOB_RUNNING)
				kill(jobs[i].pid, SIGTERM);
		}
		while (nvf_jobs_count(jobs, nr, NVF_JOB_RUNNING))
			nvf_jobs_reap(jobs, nr, cfg, start, 0);
		for (i = 0; i < nr; i++) {
			if (jobs[i].state == NVF_JOB_DONE)
				continue;
			if (jobs[i].attempts)
				nvf_job_msg(cfg, &jobs[i],
					    "stopped by signal %s: not connected after %u attempt%s (last: %s)",
					    strsignal(stop_sig), jobs[i].attempts,
					    jobs[i].attempts == 1 ? "" : "s",
					    nvf_job_strerror(jobs[i].err));
			else
				nvf_job_msg(cfg, &jobs[i],
					    "stopped by signal %s: not connected, never tried",
					    strsignal(stop_sig));
			jobs[i].state = NVF_JOB_FAILED;
		}
	}
	for (i = 0; i < nr; i++)
		failed += jobs[i].state != NVF_JOB_DONE;
	if (!first_done && cfg->first_round && !stop_sig)
		cfg->first_round(cfg->arg);
	nvf_jobs_status(jobs, nr, cfg, true);
	if (!ready)
		nvf_notify("READY=1");
	sigprocmask(SIG_SETMASK, &old, NULL);
	return failed;
}
