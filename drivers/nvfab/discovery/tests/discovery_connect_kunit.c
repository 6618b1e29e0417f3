// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tables for what nvfab-discovery makes of a Discovery Log Page
 * entry before it connects: the options of an NVM subsystem's I/O
 * controller and of a referral's discovery controller, whether an entry
 * is connected at all, which records a dispatch makes due, when an entry
 * missing from the log is gone, how many referrals are followed, and that
 * one endpoint is followed once.
 *
 * A log entry comes from the target and is untrusted. Its SUBNQN (and,
 * for InfiniBand addresses, its TRADDR and TRSVCID) may hold ',' and '=':
 * the rows check that such a value arrives whole in the options and sets
 * nothing else (no duplicate_connect, no host identity, no queue count, no
 * timeout of the target's choosing).
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <nvfab/compat.h>
#include <nvfab/fabrics.h>
#include "../discovery-priv.h"

#define DEF_HOST_PREFIX	"nqn.2014-08.org.nvmexpress:uuid:"
#define EVIL_HOST	"nqn.2014-08.org.example:evil-host"
#define EVIL_ID		"6f1d2c3b-0a9e-4d8c-b7a6-5e4f3a2b1c0d"

/* A log entry as the parser would have left it. */
struct conn_case {
	const char *desc;
	u8 trtype, adrfam;
	const char *traddr, *trsvcid, *subnqn;
	const char *host_iface;	/* of the configfs entry, or NULL */
};

static const struct conn_case io_cases[] = {
	{ "plain TCP entry", NVMF_TRTYPE_TCP, NVMF_ADDR_FAMILY_IP4,
	  "192.0.2.9", "4420", "nqn.2014-08.org.example:s1" },
	{ "SUBNQN asks for duplicate_connect", NVMF_TRTYPE_TCP,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.9", "4420",
	  "nqn.2014-08.org.example:s1,duplicate_connect" },
	{ "SUBNQN sets a host identity", NVMF_TRTYPE_TCP,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.9", "4420",
	  "nqn.2014-08.org.example:s1,hostnqn=" EVIL_HOST ",hostid=" EVIL_ID },
	{ "SUBNQN asks for 4096 write queues", NVMF_TRTYPE_TCP,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.9", "4420",
	  "nqn.2014-08.org.example:s1,nr_write_queues=4096" },
	{ "SUBNQN asks to reconnect forever", NVMF_TRTYPE_TCP,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.9", "4420",
	  "nqn.2014-08.org.example:s1,ctrl_loss_tmo=-1" },
	{ "SUBNQN names another transport", NVMF_TRTYPE_TCP,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.9", "4420",
	  "nqn.2014-08.org.example:s1,transport=rdma" },
	{ "SUBNQN with '=' only", NVMF_TRTYPE_TCP, NVMF_ADDR_FAMILY_IP4,
	  "192.0.2.9", "4420", "nqn.2014-08.org.example:a=b" },
	{ "IB TRADDR and TRSVCID carry options", NVMF_TRTYPE_RDMA,
	  NVMF_ADDR_FAMILY_IB, "fe80::1,nr_poll_queues=4096",
	  "4420,keep_alive_tmo=0", "nqn.2014-08.org.example:s2" },
	{ "IB entry without TRSVCID", NVMF_TRTYPE_RDMA, NVMF_ADDR_FAMILY_IB,
	  "fe80::2", "", "nqn.2014-08.org.example:s3" },
	{ "TCP entry keeps host_iface", NVMF_TRTYPE_TCP, NVMF_ADDR_FAMILY_IP4,
	  "192.0.2.9", "4420", "nqn.2014-08.org.example:s4", "eth0" },
	{ "RDMA entry of a TCP entry drops host_iface", NVMF_TRTYPE_RDMA,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.9", "4420",
	  "nqn.2014-08.org.example:s5", "eth0" },
};

static const struct conn_case ref_cases[] = {
	{ "plain TCP referral", NVMF_TRTYPE_TCP, NVMF_ADDR_FAMILY_IP4,
	  "192.0.2.8", "8009", NVME_DISC_SUBSYS_NAME },
	{ "referral SUBNQN sets a host identity", NVMF_TRTYPE_TCP,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.8", "8009",
	  NVME_DISC_SUBSYS_NAME ",hostnqn=" EVIL_HOST ",hostid=" EVIL_ID },
	{ "referral SUBNQN turns keep-alive off", NVMF_TRTYPE_TCP,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.8", "8009",
	  "nqn.2014-08.org.example:disc,keep_alive_tmo=0" },
	{ "referral SUBNQN gives a loss timeout", NVMF_TRTYPE_TCP,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.8", "8009",
	  "nqn.2014-08.org.example:disc,ctrl_loss_tmo=1" },
	{ "RDMA referral of a TCP entry with host_iface", NVMF_TRTYPE_RDMA,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.8", "4420", NVME_DISC_SUBSYS_NAME,
	  "eth0" },
	{ "TCP referral keeps host_iface", NVMF_TRTYPE_TCP,
	  NVMF_ADDR_FAMILY_IP4, "192.0.2.8", "8009", NVME_DISC_SUBSYS_NAME,
	  "eth0" },
	{ "IB referral, 255-byte TRADDR", NVMF_TRTYPE_RDMA,
	  NVMF_ADDR_FAMILY_IB, NULL, "4420", NVME_DISC_SUBSYS_NAME },
};

static void conn_case_desc(const struct conn_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(io, io_cases, conn_case_desc);
KUNIT_ARRAY_PARAM(ref, ref_cases, conn_case_desc);

static void free_opts_action(void *opts)
{
	nvfab_free_options(opts);
}

static struct nvfab_ctrl_options *test_opts(struct kunit *test)
{
	struct nvfab_ctrl_options *opts;

	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, opts);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_opts_action,
							opts), 0);
	return opts;
}

/* The configfs entry: a TCP discovery controller, default host. */
static struct nvfab_disc_cfg *test_cfg(struct kunit *test,
				       const char *host_iface)
{
	struct nvfab_disc_cfg *cfg;

	cfg = kunit_kzalloc(test, sizeof(*cfg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cfg);
	strscpy(cfg->transport, "tcp", sizeof(cfg->transport));
	strscpy(cfg->traddr, "192.0.2.2", sizeof(cfg->traddr));
	strscpy(cfg->trsvcid, "8009", sizeof(cfg->trsvcid));
	strscpy(cfg->nqn, NVME_DISC_SUBSYS_NAME, sizeof(cfg->nqn));
	if (host_iface)
		strscpy(cfg->host_iface, host_iface, sizeof(cfg->host_iface));
	cfg->kato = 30;
	return cfg;
}

static struct nvfab_disc_entry *test_entry(struct kunit *test,
					   const struct conn_case *c,
					   u8 subtype)
{
	struct nvfab_disc_entry *e;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	e->trtype = c->trtype;
	e->adrfam = c->adrfam;
	e->subtype = subtype;
	e->cntlid = NVME_CNTLID_DYNAMIC;
	if (c->traddr) {
		strscpy(e->traddr, c->traddr, sizeof(e->traddr));
	} else {
		/* the longest TRADDR nvfab accepts: 255 bytes */
		memset(e->traddr, 'f', NVFAB_TRADDR_SIZE - 1);
		e->traddr[NVFAB_TRADDR_SIZE - 1] = '\0';
	}
	strscpy(e->trsvcid, c->trsvcid, sizeof(e->trsvcid));
	strscpy(e->subnqn, c->subnqn, sizeof(e->subnqn));
	return e;
}

/* What every request built from an entry must have. */
static void check_common(struct kunit *test, const struct conn_case *c,
			 const struct nvfab_disc_entry *e,
			 const struct nvfab_ctrl_options *o)
{
	bool tcp = c->trtype == NVMF_TRTYPE_TCP;

	KUNIT_EXPECT_STREQ(test, o->transport, tcp ? "tcp" : "rdma");
	KUNIT_EXPECT_STREQ(test, o->subsysnqn, e->subnqn);
	KUNIT_EXPECT_STREQ(test, o->traddr, e->traddr);
	if (*e->trsvcid)
		KUNIT_EXPECT_STREQ(test, o->trsvcid, e->trsvcid);
	else
		KUNIT_EXPECT_NULL(test, o->trsvcid);
	/* host_iface is TCP's only (nvfab-rdma refuses it) */
	if (c->host_iface && tcp)
		KUNIT_EXPECT_STREQ(test, o->host_iface, c->host_iface);
	else
		KUNIT_EXPECT_NULL(test, o->host_iface);
	KUNIT_EXPECT_EQ(test, !!(o->mask & NVFAB_OPT_HOST_IFACE),
			c->host_iface && tcp);
	KUNIT_EXPECT_NULL(test, o->host_traddr);
	/* the default host: nothing in the entry chose another */
	KUNIT_ASSERT_NOT_NULL(test, o->host);
	KUNIT_EXPECT_EQ(test, strncmp(o->host->nqn, DEF_HOST_PREFIX,
				      strlen(DEF_HOST_PREFIX)), 0);
	KUNIT_EXPECT_FALSE(test, o->mask & (NVFAB_OPT_HOSTNQN |
					    NVFAB_OPT_HOST_ID));
	KUNIT_EXPECT_EQ(test, o->nr_write_queues, 0);
	KUNIT_EXPECT_EQ(test, o->nr_poll_queues, 0);
}

static void disc_io_options_test(struct kunit *test)
{
	const struct conn_case *c = test->param_value;
	const struct nvfab_disc_entry *e = test_entry(test, c, NVME_NQN_NVME);
	struct nvfab_ctrl_options *o = test_opts(test);

	KUNIT_ASSERT_EQ(test, nvfab_disc_io_options(test_cfg(test,
							     c->host_iface),
						    e, o), 0);
	check_common(test, c, e, o);
	/* an I/O controller: the defaults of nvfab-fabrics */
	KUNIT_EXPECT_FALSE(test, o->discovery_nqn);
	KUNIT_EXPECT_FALSE(test, o->duplicate_connect);
	KUNIT_EXPECT_EQ(test, o->ctrl_loss_tmo, NVFAB_DEF_CTRL_LOSS_TMO);
	KUNIT_EXPECT_EQ(test, o->kato, NVFAB_DEF_KATO);
	KUNIT_EXPECT_EQ(test, o->mask & ~(NVFAB_OPT_HOST_IFACE),
			NVFAB_OPT_TRANSPORT | NVFAB_OPT_NQN |
			NVFAB_OPT_TRADDR |
			(*e->trsvcid ? NVFAB_OPT_TRSVCID : 0));
}

/*
 * A port that requires TLS gets the tls option, whatever connect_opts
 * say; one where it is optional is connected in the clear.
 */
static void disc_io_options_tls_test(struct kunit *test)
{
	static const struct conn_case c = {
		.desc = "tls", .trtype = NVMF_TRTYPE_TCP,
		.adrfam = NVMF_ADDR_FAMILY_IP4, .traddr = "192.0.2.9",
		.trsvcid = "4420", .subnqn = "nqn.2014-08.org.example:s1",
	};
	struct nvfab_disc_entry *e = test_entry(test, &c, NVME_NQN_NVME);
	struct nvfab_disc_cfg *cfg = test_cfg(test, NULL);
	struct nvfab_ctrl_options *o;

	e->sectype = NVMF_TCP_SECTYPE_TLS13;
	e->treq = NVMF_TREQ_REQUIRED;
	o = test_opts(test);
	KUNIT_ASSERT_EQ(test, nvfab_disc_io_options(cfg, e, o), 0);
	KUNIT_EXPECT_TRUE(test, o->tls);
	KUNIT_EXPECT_TRUE(test, o->mask & NVFAB_OPT_TLS);

	/* connect_opts naming tls too: still one tls, no error */
	if (NVFAB_HAVE_TLS) {
		strscpy(cfg->connect_opts, "tls", sizeof(cfg->connect_opts));
		o = test_opts(test);
		KUNIT_ASSERT_EQ(test, nvfab_disc_io_options(cfg, e, o), 0);
		KUNIT_EXPECT_TRUE(test, o->tls);
		cfg->connect_opts[0] = '\0';
	}

	e->treq = NVMF_TREQ_NOT_REQUIRED;
	o = test_opts(test);
	KUNIT_ASSERT_EQ(test, nvfab_disc_io_options(cfg, e, o), 0);
	KUNIT_EXPECT_FALSE(test, o->tls);
}

static void disc_child_options_test(struct kunit *test)
{
	const struct conn_case *c = test->param_value;
	const struct nvfab_disc_entry *e = test_entry(test, c, NVME_NQN_DISC);
	struct nvfab_ctrl_options *o = test_opts(test);
	struct nvfab_disc_cfg *cfg;

	/* what nvfab_disc_follow() and the child's create work do */
	cfg = kunit_kzalloc(test, sizeof(*cfg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cfg);
	KUNIT_ASSERT_EQ(test, nvfab_disc_child_cfg(test_cfg(test,
							    c->host_iface),
						   e, cfg), 0);
	KUNIT_ASSERT_EQ(test, nvfab_disc_ctrl_options(cfg, o), 0);
	check_common(test, c, e, o);
	/* a discovery controller, kept for as long as the entry runs */
	KUNIT_EXPECT_TRUE(test, o->discovery_nqn);
	KUNIT_EXPECT_TRUE(test, o->duplicate_connect);
	KUNIT_EXPECT_EQ(test, o->ctrl_loss_tmo, -1);
	KUNIT_EXPECT_EQ(test, o->kato, 30);
	KUNIT_EXPECT_EQ(test, o->nr_io_queues, 0);
}

/* ---- which NVM subsystem entries are connected ---- */

struct state_case {
	const char *desc;
	u8 trtype, treq, sectype;
	bool pending;		/* else skipped, with a reason */
};

static const struct state_case state_cases[] = {
	{ "TCP, TREQ not specified", NVMF_TRTYPE_TCP, NVMF_TREQ_NOT_SPECIFIED,
	  NVMF_TCP_SECTYPE_NONE, true },
	{ "TCP, secure channel not required", NVMF_TRTYPE_TCP,
	  NVMF_TREQ_NOT_REQUIRED, NVMF_TCP_SECTYPE_NONE, true },
	{ "TCP, SQ flow control disable only", NVMF_TRTYPE_TCP,
	  NVMF_TREQ_DISABLE_SQFLOW, NVMF_TCP_SECTYPE_NONE, true },
	{ "TCP, secure channel required", NVMF_TRTYPE_TCP, NVMF_TREQ_REQUIRED,
	  NVMF_TCP_SECTYPE_NONE, false },
	/* TLS 1.3 on TCP: connected over TLS, where nvfab has it */
	{ "TCP, TLS 1.3, TREQ not specified", NVMF_TRTYPE_TCP,
	  NVMF_TREQ_NOT_SPECIFIED, NVMF_TCP_SECTYPE_TLS13, NVFAB_HAVE_TLS },
	{ "TCP, TLS 1.3, secure channel required", NVMF_TRTYPE_TCP,
	  NVMF_TREQ_REQUIRED, NVMF_TCP_SECTYPE_TLS13, NVFAB_HAVE_TLS },
	{ "TCP, TLS 1.2, secure channel required", NVMF_TRTYPE_TCP,
	  NVMF_TREQ_REQUIRED, NVMF_TCP_SECTYPE_TLS12, false },
	{ "TCP, TLS 1.3 offered, not required", NVMF_TRTYPE_TCP,
	  NVMF_TREQ_NOT_REQUIRED, NVMF_TCP_SECTYPE_TLS13, true },
	{ "RDMA, secure channel required", NVMF_TRTYPE_RDMA,
	  NVMF_TREQ_REQUIRED, NVMF_TCP_SECTYPE_NONE, false },
	{ "RDMA, TREQ not specified", NVMF_TRTYPE_RDMA,
	  NVMF_TREQ_NOT_SPECIFIED, NVMF_TCP_SECTYPE_NONE, true },
	{ "FC", NVMF_TRTYPE_FC, NVMF_TREQ_NOT_SPECIFIED,
	  NVMF_TCP_SECTYPE_NONE, false },
};

static void state_case_desc(const struct state_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(state, state_cases, state_case_desc);

static void disc_nvm_state_test(struct kunit *test)
{
	const struct state_case *c = test->param_value;
	struct nvfab_disc_policy policy = {
		.connect = NVFAB_DISC_CONNECT_ALL,
	};
	struct nvfab_disc_entry e = {
		.trtype = c->trtype,
		.adrfam = NVMF_ADDR_FAMILY_IP4,
		.subtype = NVME_NQN_NVME,
		.treq = c->treq,
		.sectype = c->sectype,
		.traddr = "192.0.2.9",
		.trsvcid = "4420",
		.subnqn = "nqn.2014-08.org.example:s1",
	};
	int st = nvfab_disc_nvm_state(&policy, &e);

	if (c->pending)
		KUNIT_EXPECT_EQ(test, st, NVFAB_DISC_REC_PENDING);
	else if (c->trtype == NVMF_TRTYPE_FC)
		KUNIT_EXPECT_EQ(test, st, NVFAB_DISC_REC_SKIPPED);
	else
		KUNIT_EXPECT_EQ(test, st, NVFAB_DISC_REC_NEEDS_TLS);
}

/* ---- dispatch: a controller deleted somewhere retries every PRESENT ---- */

static struct nvfab_disc_rec *test_rec(struct kunit *test,
				       struct nvfab_disc *disc, int state,
				       const char *subnqn)
{
	struct nvfab_disc_rec *rec;

	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	rec->disc = disc;
	rec->state = state;
	rec->due = jiffies;
	rec->e.trtype = NVMF_TRTYPE_TCP;
	rec->e.subtype = NVME_NQN_NVME;
	strscpy(rec->e.subnqn, subnqn, sizeof(rec->e.subnqn));
	list_add_tail(&rec->node, &disc->recs);
	return rec;
}

/*
 * Records: one PENDING and due, then two PRESENT, no connect slot free
 * (max_inflight 0, so that nothing is connected). After a controller was
 * deleted (WHY_GONE) one dispatch must make both PRESENT records PENDING
 * again, although it cannot start the first record.
 */
static void disc_dispatch_present_test(struct kunit *test)
{
	struct nvfab_disc_policy policy = {
		.connect = NVFAB_DISC_CONNECT_ALL,
		.max_inflight = 0,
	};
	struct nvfab_disc_rec *first, *p1, *p2;
	struct nvfab_disc *disc;

	disc = nvfab_disc_alloc("kunit-dispatch", test_cfg(test, NULL),
				&policy, NULL);
	KUNIT_ASSERT_NOT_NULL(test, disc);
	disc->state = NVFAB_DISC_RUNNING;
	first = test_rec(test, disc, NVFAB_DISC_REC_PENDING,
			 "nqn.2014-08.org.example:first");
	p1 = test_rec(test, disc, NVFAB_DISC_REC_PRESENT,
		      "nqn.2014-08.org.example:p1");
	p2 = test_rec(test, disc, NVFAB_DISC_REC_PRESENT,
		      "nqn.2014-08.org.example:p2");
	set_bit(NVFAB_DISC_WHY_GONE, &disc->reasons);

	nvfab_disc_dispatch_work(&disc->dispatch_work.work);
	/* what it queued for later must not run on a freed disc */
	cancel_delayed_work_sync(&disc->dispatch_work);

	KUNIT_EXPECT_EQ(test, first->state, NVFAB_DISC_REC_PENDING);
	KUNIT_EXPECT_EQ(test, p1->state, NVFAB_DISC_REC_PENDING);
	KUNIT_EXPECT_EQ(test, p2->state, NVFAB_DISC_REC_PENDING);
	KUNIT_EXPECT_FALSE(test, test_bit(NVFAB_DISC_WHY_GONE,
					  &disc->reasons));
	KUNIT_EXPECT_EQ(test, disc->nr_connecting, 0);
	INIT_LIST_HEAD(&disc->recs);
	nvfab_disc_put(disc);
}

/* ---- reconciliation: an entry is gone after absent_reads reads ---- */

/* A log of NVM subsystem entries named "nqn.2014-08.org.example:<c>". */
static struct nvfab_disc_log *test_log(struct kunit *test, const char *names)
{
	size_t n = strlen(names), i;
	struct nvfab_disc_log *log;

	log = kunit_kzalloc(test, struct_size(log, entries, n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, log);
	log->numrec = n;
	log->nr_entries = n;
	for (i = 0; i < n; i++) {
		struct nvfab_disc_entry *e = &log->entries[i];

		e->trtype = NVMF_TRTYPE_TCP;
		e->adrfam = NVMF_ADDR_FAMILY_IP4;
		e->subtype = NVME_NQN_NVME;
		e->cntlid = NVME_CNTLID_DYNAMIC;
		strscpy(e->traddr, "192.0.2.9", sizeof(e->traddr));
		strscpy(e->trsvcid, "4420", sizeof(e->trsvcid));
		snprintf(e->subnqn, sizeof(e->subnqn),
			 "nqn.2014-08.org.example:%c", names[i]);
	}
	return log;
}

/* Is the record of "nqn.2014-08.org.example:<c>" there? */
static bool test_has_rec(struct nvfab_disc *disc, char c)
{
	struct nvfab_disc_rec *rec;
	char nqn[32];

	snprintf(nqn, sizeof(nqn), "nqn.2014-08.org.example:%c", c);
	list_for_each_entry(rec, &disc->recs, node)
		if (!strcmp(rec->e.subnqn, nqn))
			return true;
	return false;
}

static bool test_reconcile(struct kunit *test, struct nvfab_disc *disc,
			   const char *names)
{
	LIST_HEAD(stop);
	bool missing;

	mutex_lock(&disc->lock);
	missing = nvfab_disc_reconcile(disc, test_log(test, names), &stop,
				       false);
	mutex_unlock(&disc->lock);
	KUNIT_EXPECT_TRUE(test, list_empty(&stop));
	return missing;
}

/*
 * A then B listed; B missing from one read (a target mid-change) keeps
 * its record; back in the next read, its count starts again; missing
 * from NVFAB_DISC_ABSENT_READS reads in a row (the default of
 * absent_reads) it is gone.
 */
static void disc_reconcile_absent_test(struct kunit *test)
{
	struct nvfab_disc_policy policy = {
		.connect = NVFAB_DISC_CONNECT_NONE,
		.disconnect = NVFAB_DISC_DISCONNECT_OURS,
		.max_inflight = 8,
	};
	struct nvfab_disc_rec *rec, *tmp;
	struct nvfab_disc *disc;
	unsigned int i;

	disc = nvfab_disc_alloc("kunit-absent", test_cfg(test, NULL), &policy,
				NULL);
	KUNIT_ASSERT_NOT_NULL(test, disc);
	disc->state = NVFAB_DISC_RUNNING;

	KUNIT_EXPECT_FALSE(test, test_reconcile(test, disc, "AB"));
	KUNIT_EXPECT_TRUE(test, test_has_rec(disc, 'B'));
	KUNIT_EXPECT_TRUE(test, test_reconcile(test, disc, "A"));
	KUNIT_EXPECT_TRUE(test, test_has_rec(disc, 'B'));
	KUNIT_EXPECT_FALSE(test, test_reconcile(test, disc, "AB"));
	for (i = 1; i < NVFAB_DISC_ABSENT_READS; i++) {
		KUNIT_EXPECT_TRUE(test, test_reconcile(test, disc, "A"));
		KUNIT_EXPECT_TRUE_MSG(test, test_has_rec(disc, 'B'),
				      "missing from %u reads", i);
	}
	KUNIT_EXPECT_FALSE(test, test_reconcile(test, disc, "A"));
	KUNIT_EXPECT_FALSE(test, test_has_rec(disc, 'B'));
	KUNIT_EXPECT_TRUE(test, test_has_rec(disc, 'A'));

	cancel_delayed_work_sync(&disc->dispatch_work);
	list_for_each_entry_safe(rec, tmp, &disc->recs, node) {
		list_del(&rec->node);
		kfree(rec);
	}
	nvfab_disc_put(disc);
}

/* ---- referral fan-out: at most max_referrals children per entry ---- */

#define FANOUT	(NVFAB_DISC_REFERRALS + 4)

/*
 * A log of FANOUT referrals to distinct endpoints. The entry has no
 * connect slot (max_inflight 0): its children wait for one before they
 * create anything, so nothing is connected. At most NVFAB_DISC_REFERRALS
 * (the default of max_referrals) are followed, the others are too-many.
 */
static void disc_referral_fanout_test(struct kunit *test)
{
	struct nvfab_disc_policy policy = {
		.connect = NVFAB_DISC_CONNECT_NONE,
		.disconnect = NVFAB_DISC_DISCONNECT_NONE,
		.max_inflight = 0,
	};
	unsigned int followed = 0, too_many = 0, i;
	struct nvfab_disc_rec *rec;
	struct nvfab_disc_log *log;
	struct nvfab_disc *disc;
	LIST_HEAD(stop);

	log = kunit_kzalloc(test, struct_size(log, entries, FANOUT),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, log);
	log->numrec = FANOUT;
	log->nr_entries = FANOUT;
	for (i = 0; i < FANOUT; i++) {
		struct nvfab_disc_entry *e = &log->entries[i];

		e->trtype = NVMF_TRTYPE_TCP;
		e->adrfam = NVMF_ADDR_FAMILY_IP4;
		e->subtype = NVME_NQN_DISC;
		e->cntlid = NVME_CNTLID_DYNAMIC;
		snprintf(e->traddr, sizeof(e->traddr), "198.51.100.%u",
			 100 + i);
		strscpy(e->trsvcid, "8009", sizeof(e->trsvcid));
		strscpy(e->subnqn, NVME_DISC_SUBSYS_NAME, sizeof(e->subnqn));
	}

	disc = nvfab_disc_alloc("kunit-fanout", test_cfg(test, NULL), &policy,
				NULL);
	KUNIT_ASSERT_NOT_NULL(test, disc);
	disc->state = NVFAB_DISC_RUNNING;
	mutex_lock(&disc->lock);
	nvfab_disc_reconcile(disc, log, &stop, false);
	list_for_each_entry(rec, &disc->recs, node) {
		followed += rec->state == NVFAB_DISC_REC_FOLLOWED;
		too_many += rec->state == NVFAB_DISC_REC_TOO_MANY;
	}
	mutex_unlock(&disc->lock);
	KUNIT_EXPECT_EQ(test, followed, NVFAB_DISC_REFERRALS);
	KUNIT_EXPECT_EQ(test, too_many, FANOUT - NVFAB_DISC_REFERRALS);
	KUNIT_EXPECT_EQ(test, atomic_read(&disc->nr_children),
			NVFAB_DISC_REFERRALS);

	/* stops the children, frees the records; the places come back */
	nvfab_disc_stop(disc, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&disc->nr_children), 0);
	nvfab_disc_put(disc);
}

/* ---- one child per endpoint, however two parents race ---- */

/*
 * Two parents that read a referral to one endpoint at the same time each
 * found it not followed, then each started a child. The check and the
 * insertion are now one step: of two children for one endpoint, the
 * second is refused.
 */
static void disc_add_child_test(struct kunit *test)
{
	struct nvfab_disc_policy policy = {
		.connect = NVFAB_DISC_CONNECT_NONE,
		.max_inflight = 0,
	};
	struct nvfab_disc *root, *a, *b, *other;
	struct nvfab_disc_cfg *c = test_cfg(test, NULL);

	root = nvfab_disc_alloc("kunit-root", test_cfg(test, NULL), &policy,
				NULL);
	KUNIT_ASSERT_NOT_NULL(test, root);
	strscpy(c->traddr, "198.51.100.77", sizeof(c->traddr));
	a = nvfab_disc_alloc("kunit-a", c, &policy, root);
	b = nvfab_disc_alloc("kunit-b", c, &policy, root);
	strscpy(c->trsvcid, "4420", sizeof(c->trsvcid));
	other = nvfab_disc_alloc("kunit-other", c, &policy, root);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, other);

	KUNIT_EXPECT_TRUE(test, nvfab_disc_add_child(a));
	KUNIT_EXPECT_FALSE(test, nvfab_disc_add_child(b));
	/* another port of the same address is another endpoint */
	KUNIT_EXPECT_TRUE(test, nvfab_disc_add_child(other));

	nvfab_disc_stop(a, false);
	nvfab_disc_stop(other, false);
	/* a's endpoint is free again */
	KUNIT_EXPECT_TRUE(test, nvfab_disc_add_child(b));
	nvfab_disc_stop(b, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&root->nr_children), 0);
	nvfab_disc_put(a);
	nvfab_disc_put(b);
	nvfab_disc_put(other);
	nvfab_disc_put(root);
}

static struct kunit_case nvfab_disc_connect_cases[] = {
	KUNIT_CASE_PARAM(disc_io_options_test, io_gen_params),
	KUNIT_CASE(disc_io_options_tls_test),
	KUNIT_CASE_PARAM(disc_child_options_test, ref_gen_params),
	KUNIT_CASE_PARAM(disc_nvm_state_test, state_gen_params),
	KUNIT_CASE(disc_dispatch_present_test),
	KUNIT_CASE(disc_reconcile_absent_test),
	KUNIT_CASE(disc_referral_fanout_test),
	KUNIT_CASE(disc_add_child_test),
	{}
};

static struct kunit_suite nvfab_disc_connect_suite = {
	.name = "nvfab_discovery_connect",
	.test_cases = nvfab_disc_connect_cases,
};

kunit_test_suite(nvfab_disc_connect_suite);

MODULE_DESCRIPTION("KUnit tables for the connects nvfab-discovery makes of log entries");
MODULE_LICENSE("GPL");
NVFAB_IMPORT();
NVFAB_IMPORT_KUNIT();
