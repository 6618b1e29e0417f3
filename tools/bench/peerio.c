// SPDX-License-Identifier: GPL-2.0
/*
 * peerio: the I/O driver of the bench's peer set (tools/bench/guest.sh).
 *
 *   peerio --disk DEV --mem host|device --rw read|write|randread|randwrite
 *          --bs BYTES --qd N --runtime S [--ramp S] [--cpu N]
 *          [--devmem /dev/nvfab-peermem-test] [--out FILE]
 *
 * QD threads, each with its own BS-byte slice of one buffer, run
 * synchronous O_DIRECT preadv()/pwritev() on DEV back to back: QD I/Os in
 * flight. The buffer is an mmap of the peer-memory test provider's device
 * (--mem device: stand-in pages that nvfab-rdma maps to the device memory,
 * tools/testing/peermem-test) or an anonymous mapping (--mem host): the
 * same code, the same I/O, only the memory differs, so that the ratio
 * device/host compares the memory and nothing else. fio cannot put its
 * buffers there: its iomem=mmapshared:FILE ftruncate()s the file, which a
 * character device refuses, and maps it at offset 0 in one piece of
 * whatever size fio picks (the provider takes at most 4 MiB a mapping).
 *
 * After RAMP seconds (default 1) the I/Os that complete within the next
 * RUNTIME seconds count. The result is written (to FILE or stdout) as a
 * fio-like JSON object that tools/bench/fio2jsonl.py reads as it reads
 * fio's: timestamp_ms (epoch ms of the steady run's end) and one job whose
 * "read" or "write" section has io_bytes, iops, bw (KiB/s), runtime (ms of
 * the steady run) and lat_ns (mean, max, percentile 99.000000). An I/O
 * error stops the run: exit 1, with total_err in the JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PROVIDER_MAX	(4UL << 20)	/* the provider's largest mapping */

struct thr {
	pthread_t	tid;
	int		idx;
	char		*buf;
	uint64_t	seed;
	uint64_t	*lat;	/* ns of each counted I/O */
	size_t		n, cap;
	uint64_t	bytes;
	int		err;	/* errno of a failed I/O */
};

static int disk_fd, cpu = -1, is_write, is_rand;
static size_t bs;
static uint64_t nblocks;
static double t_ramp, t_end;	/* CLOCK_MONOTONIC seconds */
static atomic_uint_fast64_t next_blk;
static atomic_int stop;

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void *worker(void *arg)
{
	struct thr *t = arg;
	struct iovec iov = { .iov_base = t->buf, .iov_len = bs };

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (!atomic_load(&stop)) {
		uint64_t blk;
		double t0, t1;
		ssize_t r;

		t0 = now(CLOCK_MONOTONIC);
		if (t0 >= t_end)
			break;
		blk = is_rand ? xorshift(&t->seed) % nblocks :
				atomic_fetch_add(&next_blk, 1) % nblocks;
		if (is_write)
			r = pwritev(disk_fd, &iov, 1, (off_t)(blk * bs));
		else
			r = preadv(disk_fd, &iov, 1, (off_t)(blk * bs));
		t1 = now(CLOCK_MONOTONIC);
		if (r != (ssize_t)bs) {
			t->err = r < 0 ? errno : EIO;
			atomic_store(&stop, 1);
			break;
		}
		if (t1 < t_ramp || t1 > t_end)
			continue;
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 4096;
			t->lat = realloc(t->lat, t->cap * sizeof(*t->lat));
			if (!t->lat) {
				t->err = ENOMEM;
				atomic_store(&stop, 1);
				break;
			}
		}
		t->lat[t->n++] = (uint64_t)((t1 - t0) * 1e9);
		t->bytes += bs;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fputs("usage: peerio --disk DEV --mem host|device\n"
	      "              --rw read|write|randread|randwrite\n"
	      "              --bs BYTES --qd N --runtime S [--ramp S] [--cpu N]\n"
	      "              [--devmem PATH] [--out FILE]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "disk", 1, NULL, 'd' }, { "mem", 1, NULL, 'm' },
		{ "rw", 1, NULL, 'w' }, { "bs", 1, NULL, 'b' },
		{ "qd", 1, NULL, 'q' }, { "runtime", 1, NULL, 't' },
		{ "ramp", 1, NULL, 'r' }, { "cpu", 1, NULL, 'c' },
		{ "devmem", 1, NULL, 'D' }, { "out", 1, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	const char *disk = NULL, *mem = NULL, *rw = NULL, *out = NULL;
	const char *devmem = "/dev/nvfab-peermem-test";
	double runtime = 0, ramp = 1, t0m, t0r, steady;
	int qd = 0, c, i, err = 0;
	size_t len, total = 0, k;
	uint64_t bytes = 0, *all, sum = 0;
	struct thr *th;
	char *buf;
	off_t size;
	FILE *f;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			disk = optarg;
			break;
		case 'm':
			mem = optarg;
			break;
		case 'w':
			rw = optarg;
			break;
		case 'b':
			bs = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			qd = atoi(optarg);
			break;
		case 't':
			runtime = atof(optarg);
			break;
		case 'r':
			ramp = atof(optarg);
			break;
		case 'c':
			cpu = *optarg ? atoi(optarg) : -1;
			break;
		case 'D':
			devmem = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	if (!disk || !mem || !rw || !bs || bs % 4096 || qd < 1 ||
	    runtime <= 0 || ramp < 0)
		usage();
	if (!strcmp(rw, "read") || !strcmp(rw, "randread"))
		is_write = 0;
	else if (!strcmp(rw, "write") || !strcmp(rw, "randwrite"))
		is_write = 1;
	else
		usage();
	is_rand = !strncmp(rw, "rand", 4);

	len = bs * (size_t)qd;
	if (!strcmp(mem, "device")) {
		int fd = open(devmem, O_RDWR);

		if (fd < 0) {
			fprintf(stderr, "peerio: %s: %s\n", devmem, strerror(errno));
			return 1;
		}
		if (len > PROVIDER_MAX) {
			fprintf(stderr,
				"peerio: %zu bytes of buffers, the provider maps at most %lu\n",
				len, PROVIDER_MAX);
			return 2;
		}
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	} else if (!strcmp(mem, "host")) {
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else {
		usage();
	}
	if (buf == MAP_FAILED) {
		fprintf(stderr, "peerio: mmap of %zu bytes (%s): %s\n", len, mem,
			strerror(errno));
		return 1;
	}
	memset(buf, 0x5a, len);		/* both kinds faulted in before */

	disk_fd = open(disk, (is_write ? O_RDWR : O_RDONLY) | O_DIRECT);
	if (disk_fd < 0) {
		fprintf(stderr, "peerio: %s: %s\n", disk, strerror(errno));
		return 1;
	}
	size = lseek(disk_fd, 0, SEEK_END);
	nblocks = size > 0 ? (uint64_t)size / bs : 0;
	if (!nblocks) {
		fprintf(stderr, "peerio: %s: size %lld\n", disk, (long long)size);
		return 1;
	}

	th = calloc(qd, sizeof(*th));
	if (!th)
		return 1;
	t0r = now(CLOCK_REALTIME);
	t0m = now(CLOCK_MONOTONIC);
	t_ramp = t0m + ramp;
	t_end = t_ramp + runtime;
	for (i = 0; i < qd; i++) {
		th[i].idx = i;
		th[i].buf = buf + (size_t)i * bs;
		th[i].seed = 0x9e3779b97f4a7c15ULL * (i + 1) ^ (uint64_t)getpid();
		if (pthread_create(&th[i].tid, NULL, worker, &th[i])) {
			fprintf(stderr, "peerio: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < qd; i++) {
		pthread_join(th[i].tid, NULL);
		total += th[i].n;
		bytes += th[i].bytes;
		if (th[i].err && !err)
			err = th[i].err;
	}
	steady = runtime;
	all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return 1;
	for (i = 0, k = 0; i < qd; i++) {
		memcpy(all + k, th[i].lat, th[i].n * sizeof(*all));
		k += th[i].n;
	}
	qsort(all, total, sizeof(*all), cmp_u64);
	for (k = 0; k < total; k++)
		sum += all[k];

	f = out ? fopen(out, "w") : stdout;
	if (!f) {
		fprintf(stderr, "peerio: %s: %s\n", out, strerror(errno));
		return 1;
	}
	fprintf(f, "{\"peerio\": {\"mem\": \"%s\", \"rw\": \"%s\", \"bs\": %zu, "
		"\"qd\": %d, \"cpu\": %d, \"disk\": \"%s\"},\n",
		mem, rw, bs, qd, cpu, disk);
	fprintf(f, " \"timestamp_ms\": %.0f,\n", (t0r + ramp + runtime) * 1e3);
	fprintf(f, " \"jobs\": [{\"jobname\": \"peerio-%s\", \"error\": %d, "
		"\"total_err\": %d,\n  \"%s\": {\"io_bytes\": %llu, "
		"\"iops\": %.3f, \"bw\": %.0f, \"runtime\": %.0f,\n"
		"   \"lat_ns\": {\"mean\": %.1f, \"max\": %llu, "
		"\"percentile\": {\"99.000000\": %llu}}},\n"
		"  \"%s\": {\"io_bytes\": 0, \"iops\": 0, \"bw\": 0, \"runtime\": 0}}]}\n",
		mem, err, err ? 1 : 0, is_write ? "write" : "read",
		(unsigned long long)bytes, total / steady,
		bytes / 1024.0 / steady, steady * 1e3,
		total ? (double)sum / total : 0.0,
		(unsigned long long)(total ? all[total - 1] : 0),
		(unsigned long long)(total ? all[(total * 99 + 99) / 100 - 1] : 0),
		is_write ? "read" : "write");
	if (out)
		fclose(f);
	if (err) {
		fprintf(stderr, "peerio: %s on %s (%s memory)\n", strerror(err),
			disk, mem);
		return 1;
	}
	if (!total) {
		fprintf(stderr, "peerio: no I/O completed in the steady run\n");
		return 1;
	}
	return 0;
}
