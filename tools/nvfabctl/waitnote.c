// SPDX-License-Identifier: GPL-2.0
/*
 * Say what a connect is waiting for. The write to /dev/nvfab-fabrics
 * returns only when the controller is live or the kernel gave up, which
 * against an unreachable or stalled target takes from 10 s to a minute;
 * without a word, that looks like a hang. A thread started before the
 * write prints, after NVF_WAIT_FIRST_MS and then every NVF_WAIT_EVERY_MS,
 * which target the kernel is still waiting for; it is cancelled as soon
 * as the write returns. ($NVFAB_WAIT_NOTICE_MS sets the first delay, for
 * tests.)
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvfabctl.h"

#define NVF_WAIT_FIRST_MS	3000
#define NVF_WAIT_EVERY_MS	10000

struct nvf_waitnote {
	pthread_t	thread;
	bool		started;
	long		first_ms;
	char		what[600];
};

static void nvf_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	/* a cancellation point: the thread ends here when cancelled */
	while (nanosleep(&ts, &ts))
		;
}

static void *nvf_waitnote_thread(void *arg)
{
	struct nvf_waitnote *w = arg;
	long waited = w->first_ms;
	int state;

	nvf_sleep_ms(w->first_ms);
	for (;;) {
		/* not cancelled inside stdio: it would keep stderr's lock */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
		fprintf(stderr,
			"nvfabctl: %s: still waiting after %.1f s for %s to answer (the kernel ends the attempt with an error if it never does)\n",
			nvf_verb, waited / 1000.0, w->what);
		pthread_setcancelstate(state, NULL);
		nvf_sleep_ms(NVF_WAIT_EVERY_MS);
		waited += NVF_WAIT_EVERY_MS;
	}
	return NULL;
}

/* The value of @key in option string @opts, into @buf ("" if none). */
void nvf_opt_value(const char *opts, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key), len;
	const char *p = opts;

	buf[0] = '\0';
	while (p && *p) {
		len = strcspn(p, ",");
		if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			len -= klen + 1;
			if (len >= size)
				len = size - 1;
			memcpy(buf, p + klen + 1, len);
			buf[len] = '\0';
			return;
		}
		p = p[len] ? p + len + 1 : NULL;
	}
}

/*
 * The target of option string @opts in words, for messages: "tcp
 * 192.0.2.2 port 4420 (subsystem NQN)", sanitized, into @buf.
 */
void nvf_target_what(const char *opts, char *buf, size_t size)
{
	char t[32], a[256], s[32], n[224];

	nvf_opt_value(opts, "transport", t, sizeof(t));
	nvf_opt_value(opts, "traddr", a, sizeof(a));
	nvf_opt_value(opts, "trsvcid", s, sizeof(s));
	nvf_opt_value(opts, "nqn", n, sizeof(n));
	snprintf(buf, size, "%s%s%s%s%s (subsystem %s)", t, *t ? " " : "", a,
		 *s ? " port " : "", s, n);
	nvf_sanitize(buf);
}

struct nvf_waitnote *nvf_waitnote_start(const char *opts)
{
	struct nvf_waitnote *w = calloc(1, sizeof(*w));
	const char *env = getenv("NVFAB_WAIT_NOTICE_MS");

	if (!w)
		return NULL;
	w->first_ms = env && *env ? atol(env) : NVF_WAIT_FIRST_MS;
	if (w->first_ms <= 0)
		w->first_ms = NVF_WAIT_FIRST_MS;
	nvf_target_what(opts, w->what, sizeof(w->what));
	w->started = !pthread_create(&w->thread, NULL, nvf_waitnote_thread, w);
	return w;
}

void nvf_waitnote_stop(struct nvf_waitnote *w)
{
	if (!w)
		return;
	if (w->started) {
		pthread_cancel(w->thread);
		pthread_join(w->thread, NULL);
	}
	free(w);
}
