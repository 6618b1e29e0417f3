/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvfabctl: attempts that run in parallel, each in a child process, and
 * are retried with backoff (jobs.c); "config apply" connects its
 * controllers with them.
 */
#ifndef NVFABCTL_JOBS_H
#define NVFABCTL_JOBS_H

#include <stdbool.h>
#include <sys/types.h>

/* An attempt's result that is no errno and is never retried. */
#define NVF_JOB_FATAL		255

/* Defaults and limits of the options that fill struct nvf_jobs_cfg. */
#define NVF_JOBS_PARALLEL	8	/* attempts at once */
#define NVF_JOBS_PARALLEL_MAX	64
#define NVF_JOBS_INTERVAL_S	2	/* the first wait before a retry */
#define NVF_JOBS_MAX_INTERVAL_S	60	/* the wait doubles up to this */
#define NVF_JOBS_READY_S	60	/* READY=1 at the latest after */
#define NVF_JOBS_SECONDS_MAX	86400

enum nvf_job_state {
	NVF_JOB_WAITING,	/* to be tried, at @next */
	NVF_JOB_RUNNING,	/* an attempt runs in child @pid */
	NVF_JOB_DONE,
	NVF_JOB_FAILED,		/* for good */
};

struct nvf_job {
	/* set by the caller */
	int			line;	/* of the directive, in messages */
	char			what[600];	/* the target, in messages */
	/*
	 * One attempt, in a child process: 0 on success, else a negative
	 * errno (retried if transient) or -NVF_JOB_FATAL; it reports its
	 * own errors.
	 */
	int			(*run)(void *arg);
	void			*arg;
	/* the runner's */
	enum nvf_job_state	state;
	pid_t			pid;
	unsigned int		attempts;
	int			err;	/* of the last attempt */
	long long		next_ms;	/* WAITING: monotonic time */
};

struct nvf_jobs_cfg {
	const char	*file;		/* messages say "config: FILE:LINE: ..." */
	unsigned int	parallel;	/* attempts at once, >= 1 */
	bool		retry;		/* retry transient failures */
	unsigned int	interval_s;	/* the first wait before a retry */
	unsigned int	timeout_s;	/* stop retrying after; 0: never */
	unsigned int	ready_s;	/* READY=1 at the latest after */
	size_t		settled;	/* connected before: counted in STATUS= */
	size_t		refused;	/* failed before: counted in STATUS= */
	/*
	 * Called once in the parent when each job has been tried once (or
	 * at ready_s): what must follow the first round of connects.
	 */
	void		(*first_round)(void *arg);
	void		*arg;
};

int nvf_jobs_run(struct nvf_job *jobs, size_t nr,
		 const struct nvf_jobs_cfg *cfg);
bool nvf_errno_transient(int err);

#endif /* NVFABCTL_JOBS_H */
