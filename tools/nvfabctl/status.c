// SPDX-License-Identifier: GPL-2.0
/*
 * nvfabctl status: the health of every namespace in one screen, for an
 * administrator and for monitoring. Per namespace head, whether a path is
 * live (its controller's state) and ANA optimized; per path its
 * controller, state, ANA state and group, share of the routed I/O, I/Os
 * in flight and the path selector's status (service-time's latency
 * estimate), and below it the path's diag/ counters (commands that ended
 * with an error, retries, failovers) with its controller's (resets,
 * reconnect attempts), and under each namespace its head's (bios that
 * waited for a usable path, bios failed for want of one); a module
 * without them shows none. The exit status
 * is NVF_EXIT_DEGRADED when any namespace has no live optimized path, so
 * that a monitoring check can alert on it; --watch redraws it every few
 * seconds.
 *
 *   nvfab-subsys0 nqn.2014-08.org.example:s1 iopolicy=service-time
 *     nvfab0n1 nsid 1: ok, 1 of 2 paths live and optimized
 *       no usable path: 3 bios waited, 0 failed
 *       nvfab0c0n1 nvfab0 live optimized grp 1 ios 1234 (61.2%) inflight 0/0 ps: ...
 *         errors 0 retries 0 failovers 0; nvfab0 resets 0 reconnects 0
 *       nvfab0c1n1 nvfab1 live non-optimized grp 2 ios 782 (38.8%) inflight 0/0 ps: -
 *         errors 0 retries 2 failovers 7; nvfab1 resets 1 reconnects 3
 *   1 namespace: 1 ok, 0 without a live optimized path
 *
 * Documented in Documentation/nvfabctl.8 and nvfab-multipath.rst.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvfabctl.h"

#define NVF_WATCH_DEFAULT_S	2
#define NVF_WATCH_MAX_S		3600

void nvf_status_usage(FILE *f)
{
	fprintf(f,
		"usage: nvfabctl status [-o normal|json] [-w|--watch[=SECONDS]]\n"
		"\n"
		"Every namespace with its paths: controller state, ANA state, share\n"
		"of the I/O, I/Os in flight, the path selector's status; per path its\n"
		"errors, retries and failovers and its controller's resets and\n"
		"reconnect attempts, per namespace the I/O that waited for or failed\n"
		"without a usable path (the diag/ counters). Exit status 2 when any\n"
		"namespace has no live optimized path.\n"
		"\n"
		"  -o, --output-format=FMT  normal or json\n"
		"  -w, --watch[=SECONDS]    redraw every SECONDS (default 2) until\n"
		"                           interrupted\n"
		"  -h, --help               show this help\n");
}

/* The state of the controller of path @p, or NULL. */
static const char *nvf_path_ctrl_state(const struct nvf_subsys *sub,
				       const struct nvf_path *p)
{
	const struct nvf_subsys_ctrl *c = nvf_subsys_find_ctrl(sub, p->ctrl);

	return c ? c->state : NULL;
}

static bool nvf_path_live(const struct nvf_subsys *sub,
			  const struct nvf_path *p)
{
	const char *st = nvf_path_ctrl_state(sub, p);

	return st && !strcmp(st, "live");
}

/*
 * "errors E retries R failovers F; nvfabC resets X reconnects Y": the
 * diag/ counters of path @p and of its controller, "-" for one that is
 * missing; nothing when all are (a module without diag/).
 */
static void nvf_print_path_diag(const struct nvf_subsys *sub,
				const struct nvf_path *p)
{
	const struct nvf_subsys_ctrl *c = nvf_subsys_find_ctrl(sub, p->ctrl);
	long long resets = c ? c->reset_count : -1;
	long long reconnects = c ? c->reconnect_count : -1;
	char e[24], r[24], f[24], rs[24], rc[24];

	if (p->error_count < 0 && p->retry_count < 0 &&
	    p->failover_count < 0 && resets < 0 && reconnects < 0)
		return;
	printf("      errors %s retries %s failovers %s; %s resets %s reconnects %s\n",
	       nvf_num_or_dash(p->error_count, e, sizeof(e)),
	       nvf_num_or_dash(p->retry_count, r, sizeof(r)),
	       nvf_num_or_dash(p->failover_count, f, sizeof(f)),
	       p->ctrl_name, nvf_num_or_dash(resets, rs, sizeof(rs)),
	       nvf_num_or_dash(reconnects, rc, sizeof(rc)));
}

/*
 * "no usable path: W bios waited, F failed": the diag/ counters of @head,
 * "-" for one that is missing; nothing when both are.
 */
static void nvf_print_head_diag(const struct nvf_head *head)
{
	char w[24], f[24];

	if (head->requeue_no_path < 0 && head->fail_no_path < 0)
		return;
	printf("    no usable path: %s bios waited, %s failed\n",
	       nvf_num_or_dash(head->requeue_no_path, w, sizeof(w)),
	       nvf_num_or_dash(head->fail_no_path, f, sizeof(f)));
}

/* How many paths of @head are live and optimized. */
static size_t nvf_head_good(const struct nvf_subsys *sub,
			    const struct nvf_head *head)
{
	size_t k, n = 0;

	for (k = 0; k < head->nr_paths; k++) {
		const struct nvf_path *p = &head->paths[k];

		n += nvf_path_live(sub, p) && p->ana_state &&
		     !strcmp(p->ana_state, "optimized");
	}
	return n;
}

static void nvf_status_normal(const struct nvf_subsys *subs, size_t nr,
			      size_t *ok, size_t *bad)
{
	char nsid[24];
	size_t i, h, k, good;

	for (i = 0; i < nr; i++) {
		const struct nvf_subsys *sub = &subs[i];

		printf("%s %s iopolicy=%s\n", sub->name, nvf_or_dash(sub->nqn),
		       nvf_or_dash(sub->iopolicy));
		for (h = 0; h < sub->nr_heads; h++) {
			const struct nvf_head *head = &sub->heads[h];

			good = nvf_head_good(sub, head);
			printf("  %s nsid %s: %s, %zu of %zu path%s live and optimized\n",
			       head->name,
			       nvf_num_or_dash(head->nsid, nsid, sizeof(nsid)),
			       good ? "ok" : "NO LIVE OPTIMIZED PATH", good,
			       head->nr_paths, head->nr_paths == 1 ? "" : "s");
			*ok += good > 0;
			*bad += !good;
			nvf_print_head_diag(head);
			for (k = 0; k < head->nr_paths; k++) {
				const struct nvf_path *p = &head->paths[k];

				printf("    %s %s %s %s", p->name, p->ctrl_name,
				       nvf_or_dash(nvf_path_ctrl_state(sub, p)),
				       nvf_or_dash(p->ana_state));
				nvf_print_path_ios(p);
				nvf_print_path_load(p);
				putchar('\n');
				nvf_print_path_diag(sub, p);
			}
		}
	}
	printf("%zu namespace%s: %zu ok, %zu without a live optimized path\n",
	       *ok + *bad, *ok + *bad == 1 ? "" : "s", *ok, *bad);
}

static void nvf_status_json(const struct nvf_subsys *subs, size_t nr,
			    size_t *ok, size_t *bad)
{
	struct nvf_json j;
	size_t i, h, k, good;

	nvf_json_init(&j, stdout);
	nvf_json_begin(&j, NULL, '{');
	nvf_json_begin(&j, "Subsystems", '[');
	for (i = 0; i < nr; i++) {
		const struct nvf_subsys *sub = &subs[i];

		nvf_json_begin(&j, NULL, '{');
		nvf_json_str(&j, "Name", sub->name);
		nvf_json_str(&j, "NQN", sub->nqn);
		nvf_json_str(&j, "IOPolicy", sub->iopolicy);
		nvf_json_begin(&j, "Controllers", '[');
		for (k = 0; k < sub->nr_ctrls; k++) {
			const struct nvf_subsys_ctrl *c = &sub->ctrls[k];

			nvf_json_begin(&j, NULL, '{');
			nvf_json_str(&j, "Name", c->name);
			nvf_json_str(&j, "State", c->state);
			nvf_json_num(&j, "reset_count", c->reset_count);
			nvf_json_num(&j, "reconnect_count", c->reconnect_count);
			nvf_json_end(&j, '}');
		}
		nvf_json_end(&j, ']');
		nvf_json_begin(&j, "Namespaces", '[');
		for (h = 0; h < sub->nr_heads; h++) {
			const struct nvf_head *head = &sub->heads[h];

			good = nvf_head_good(sub, head);
			*ok += good > 0;
			*bad += !good;
			nvf_json_begin(&j, NULL, '{');
			nvf_json_str(&j, "Name", head->name);
			nvf_json_num(&j, "NSID", head->nsid);
			nvf_json_bool(&j, "Healthy", good > 0);
			nvf_json_num(&j, "LiveOptimizedPaths", good);
			nvf_json_num(&j, "io_requeue_no_usable_path_count",
				     head->requeue_no_path);
			nvf_json_num(&j, "io_fail_no_available_path_count",
				     head->fail_no_path);
			nvf_json_begin(&j, "Paths", '[');
			for (k = 0; k < head->nr_paths; k++) {
				const struct nvf_path *p = &head->paths[k];

				nvf_json_begin(&j, NULL, '{');
				nvf_json_str(&j, "Name", p->name);
				nvf_json_str(&j, "Controller", p->ctrl_name);
				nvf_json_str(&j, "State",
					     nvf_path_ctrl_state(sub, p));
				nvf_json_str(&j, "ANAState", p->ana_state);
				nvf_json_num(&j, "ANAGroup", p->ana_grpid);
				nvf_json_num(&j, "RoutedIOs", p->routed_ios);
				if (p->share < 0)
					nvf_json_str(&j, "IOSharePercent", NULL);
				else
					nvf_json_fixed(&j, "IOSharePercent",
						       p->share, 1);
				nvf_json_num(&j, "InflightReads", p->inflight[0]);
				nvf_json_num(&j, "InflightWrites", p->inflight[1]);
				nvf_json_str(&j, "PSStatus", p->ps_status);
				nvf_json_num(&j, "command_error_count",
					     p->error_count);
				nvf_json_num(&j, "command_retry_count",
					     p->retry_count);
				nvf_json_num(&j, "multipath_failover_count",
					     p->failover_count);
				nvf_json_end(&j, '}');
			}
			nvf_json_end(&j, ']');
			nvf_json_end(&j, '}');
		}
		nvf_json_end(&j, ']');
		nvf_json_end(&j, '}');
	}
	nvf_json_end(&j, ']');
	nvf_json_num(&j, "Healthy", *ok);
	nvf_json_num(&j, "Unhealthy", *bad);
	nvf_json_end(&j, '}');
}

/* One screen. Return: the exit status. */
static int nvf_status_once(enum nvf_format fmt)
{
	struct nvf_subsys *subs;
	size_t nr, i, ok = 0, bad = 0;

	if (nvf_require_module() || nvf_subsys_scan(&subs, &nr))
		return NVF_EXIT_FAIL;
	for (i = 0; i < nr; i++)
		nvf_subsys_sanitize(&subs[i]);
	if (fmt == NVF_FMT_JSON)
		nvf_status_json(subs, nr, &ok, &bad);
	else
		nvf_status_normal(subs, nr, &ok, &bad);
	nvf_subsys_free(subs, nr);
	fflush(stdout);
	return bad ? NVF_EXIT_DEGRADED : NVF_EXIT_OK;
}

int nvf_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output-format",	required_argument,	NULL, 'o' },
		{ "watch",		optional_argument,	NULL, 'w' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL,			0,			NULL, 0 }
	};
	enum nvf_format fmt = NVF_FMT_NORMAL;
	int c, watch = 0, ret;
	struct timespec ts;

	while ((c = nvf_getopt(argc, argv, ":o:w::h", longopts)) != -1) {
		switch (c) {
		case 'o':
			if (nvf_parse_format(optarg, &fmt))
				return NVF_EXIT_FAIL;
			break;
		case 'w':
			watch = NVF_WATCH_DEFAULT_S;
			if (optarg && nvf_parse_int("watch", optarg, &watch))
				return NVF_EXIT_FAIL;
			if (watch < 1 || watch > NVF_WATCH_MAX_S) {
				nvf_err("invalid --watch %d: out of range, 1 to %d seconds",
					watch, NVF_WATCH_MAX_S);
				return NVF_EXIT_FAIL;
			}
			break;
		case 'h':
			nvf_status_usage(stdout);
			return NVF_EXIT_OK;
		default:
			return NVF_EXIT_FAIL;
		}
	}
	if (nvf_no_operands(argc, argv))
		return NVF_EXIT_FAIL;
	if (!watch)
		return nvf_status_once(fmt);
	for (;;) {
		/* a terminal is redrawn in place; a pipe gets one per round */
		if (isatty(STDOUT_FILENO))
			printf("\033[H\033[J");
		ret = nvf_status_once(fmt);
		if (ret == NVF_EXIT_FAIL)
			return ret;
		ts.tv_sec = watch;
		ts.tv_nsec = 0;
		while (nanosleep(&ts, &ts))
			;
	}
}
