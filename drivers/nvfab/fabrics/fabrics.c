// SPDX-License-Identifier: GPL-2.0
/*
 * nvfab-fabrics: the connect-option grammar, host identities, the transport
 * registry and the /dev/nvfab-fabrics control node.
 *
 * A connect request is one write of a comma-separated option string, e.g.
 *
 *   transport=tcp,traddr=192.0.2.2,trsvcid=4420,nqn=nqn.2014-08.org.ex:s1
 *
 * using the keys, defaults and range checks of the in-kernel
 * /dev/nvme-fabrics. Two differences, both in the direction of refusing
 * bad input: a key given twice is an error (upstream lets the last one win),
 * and an explicit keep_alive_tmo=0 is kept rather than replaced by the
 * default. Every rejection is -EINVAL (or -EOPNOTSUPP for an upstream key
 * nvfab does not implement) plus one message naming the offending key.
 *
 * Reading the node before a successful write lists the accepted tokens;
 * after it, "instance=N,cntlid=M" of the new controller.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/key.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nvme-keyring.h>
#include <linux/parser.h>
#include <linux/rwsem.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <nvfab/compat.h>
#include <nvfab/core.h>
#include <nvfab/fabrics.h>

/* Longest piece of user input quoted back in a log message. */
#define NVFAB_OPT_QUOTE_LEN	64

static const match_table_t opt_tokens = {
	{ NVFAB_OPT_TRANSPORT,		"transport=%s"		},
	{ NVFAB_OPT_TRADDR,		"traddr=%s"		},
	{ NVFAB_OPT_TRSVCID,		"trsvcid=%s"		},
	{ NVFAB_OPT_NQN,		"nqn=%s"		},
	{ NVFAB_OPT_QUEUE_SIZE,		"queue_size=%d"		},
	{ NVFAB_OPT_NR_IO_QUEUES,	"nr_io_queues=%d"	},
	{ NVFAB_OPT_RECONNECT_DELAY,	"reconnect_delay=%d"	},
	{ NVFAB_OPT_CTRL_LOSS_TMO,	"ctrl_loss_tmo=%d"	},
	{ NVFAB_OPT_KATO,		"keep_alive_tmo=%d"	},
	{ NVFAB_OPT_HOSTNQN,		"hostnqn=%s"		},
	{ NVFAB_OPT_HOST_TRADDR,	"host_traddr=%s"	},
	{ NVFAB_OPT_HOST_IFACE,		"host_iface=%s"		},
	{ NVFAB_OPT_HOST_ID,		"hostid=%s"		},
	{ NVFAB_OPT_DUP_CONNECT,	"duplicate_connect"	},
	{ NVFAB_OPT_DISABLE_SQFLOW,	"disable_sqflow"	},
	{ NVFAB_OPT_HDR_DIGEST,		"hdr_digest"		},
	{ NVFAB_OPT_DATA_DIGEST,	"data_digest"		},
	{ NVFAB_OPT_NR_WRITE_QUEUES,	"nr_write_queues=%d"	},
	{ NVFAB_OPT_NR_POLL_QUEUES,	"nr_poll_queues=%d"	},
	{ NVFAB_OPT_TOS,		"tos=%d"		},
	{ NVFAB_OPT_FAIL_FAST_TMO,	"fast_io_fail_tmo=%d"	},
	{ NVFAB_OPT_DISCOVERY,		"discovery"		},
	{ NVFAB_OPT_DHCHAP_SECRET,	"dhchap_secret=%s"	},
	{ NVFAB_OPT_DHCHAP_CTRL_SECRET,	"dhchap_ctrl_secret=%s"	},
	{ NVFAB_OPT_TLS,		"tls"			},
	{ NVFAB_OPT_KEYRING,		"keyring=%d"		},
	{ NVFAB_OPT_TLS_KEY,		"tls_key=%d"		},
	{ NVFAB_OPT_ERR,		NULL			}
};

/* Keys of the in-kernel grammar that nvfab knows but does not implement. */
static const char * const unsupported_keys[] = {
	"concat",
};

/*
 * Host identities. nvfab_hosts_mutex protects nvfab_hosts and the lists of
 * every host on it; it is a leaf lock.
 */
static LIST_HEAD(nvfab_hosts);
static DEFINE_MUTEX(nvfab_hosts_mutex);
static struct nvfab_host *nvfab_default_host;

/*
 * Registered transports. nvfab_transports_rwsem protects nvfab_transports;
 * no other nvfab lock is taken while it is held.
 */
static LIST_HEAD(nvfab_transports);
static DECLARE_RWSEM(nvfab_transports_rwsem);

/* Length of the key of a token pattern or of an option: up to '=' or NUL. */
static size_t nvfab_key_len(const char *s)
{
	return strchrnul(s, '=') - s;
}

/* The key ("queue_size") of a token, for messages. */
static const char *nvfab_token_key(int token, size_t *len)
{
	const struct match_token *t;

	for (t = opt_tokens; t->pattern; t++) {
		if (t->token == token) {
			*len = nvfab_key_len(t->pattern);
			return t->pattern;
		}
	}
	*len = 1;
	return "?";
}

/*
 * Explain why @p matched no token, naming its key, and return the errno:
 * -EOPNOTSUPP for an upstream key nvfab does not implement, -EINVAL for
 * anything else.
 */
static int nvfab_bad_option(const char *p)
{
	size_t klen = nvfab_key_len(p);
	bool has_value = p[klen] == '=';
	const struct match_token *t;
	int i;

	for (t = opt_tokens; t->pattern; t++) {
		size_t tlen = nvfab_key_len(t->pattern);
		bool takes_value = t->pattern[tlen] == '=';

		if (tlen != klen || strncmp(t->pattern, p, klen))
			continue;
		if (takes_value && has_value)
			pr_err("invalid value '%.*s' for option '%.*s'\n",
			       NVFAB_OPT_QUOTE_LEN, p + klen + 1, (int)klen, p);
		else if (takes_value)
			pr_err("option '%.*s' needs a value\n", (int)klen, p);
		else
			pr_err("option '%.*s' takes no value\n", (int)klen, p);
		return -EINVAL;
	}

	for (i = 0; i < ARRAY_SIZE(unsupported_keys); i++) {
		if (strlen(unsupported_keys[i]) == klen &&
		    !strncmp(unsupported_keys[i], p, klen)) {
			pr_err("option '%.*s' is not supported by nvfab\n",
			       (int)klen, p);
			return -EOPNOTSUPP;
		}
	}

	pr_err("unknown option '%.*s'\n",
	       (int)min_t(size_t, klen, NVFAB_OPT_QUOTE_LEN), p);
	return -EINVAL;
}

/* True if @s has no control characters (NQNs are UTF-8, so >= 0x80 is ok). */
static bool nvfab_str_printable(const char *s)
{
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	}
	return true;
}

/*
 * Copy the value of a string option into *@dst, refusing values of @size
 * bytes or more and values with control characters.
 */
static int nvfab_opt_str(substring_t *arg, char **dst, size_t size,
			 const char *key)
{
	char *p;

	p = match_strdup(arg);
	if (!p)
		return -ENOMEM;
	if (strlen(p) >= size) {
		pr_err("%s is %zu bytes, the limit is %zu\n", key, strlen(p),
		       size - 1);
		goto out_free;
	}
	if (!nvfab_str_printable(p)) {
		pr_err("%s contains control characters\n", key);
		goto out_free;
	}
	*dst = p;
	return 0;

out_free:
	kfree(p);
	return -EINVAL;
}

/* A transport name becomes part of a module name: keep it to [a-z0-9_]. */
static bool nvfab_transport_name_valid(const char *name)
{
	const char *s;

	for (s = name; *s; s++) {
		if (!islower(*s) && !isdigit(*s) && *s != '_')
			return false;
	}
	return s != name;
}

static int nvfab_opt_int(substring_t *arg, const char *key, int *val)
{
	if (match_int(arg, val)) {
		pr_err("%s: value out of range\n", key);
		return -EINVAL;
	}
	return 0;
}

static struct nvfab_host *nvfab_host_alloc(const char *nqn, const uuid_t *id)
{
	struct nvfab_host *host;

	host = kzalloc(sizeof(*host), GFP_KERNEL);
	if (!host)
		return NULL;
	kref_init(&host->ref);
	uuid_copy(&host->id, id);
	strscpy(host->nqn, nqn, NVFAB_NQN_SIZE);
	return host;
}

/*
 * Find or add the host identity (@nqn, @id) and take a reference to it.
 * An identity that shares only its NQN or only its ID with a known one is
 * refused, as it would make the host ambiguous to targets.
 */
static struct nvfab_host *nvfab_host_get(const char *nqn, const uuid_t *id)
{
	struct nvfab_host *host;

	mutex_lock(&nvfab_hosts_mutex);
	list_for_each_entry(host, &nvfab_hosts, list) {
		bool same_nqn = !strcmp(host->nqn, nqn);
		bool same_id = uuid_equal(&host->id, id);

		if (same_nqn && same_id) {
			kref_get(&host->ref);
			goto out_unlock;
		}
		if (same_nqn) {
			pr_err("hostnqn %s is already in use with hostid %pUb, not %pUb\n",
			       nqn, &host->id, id);
			host = ERR_PTR(-EINVAL);
			goto out_unlock;
		}
		if (same_id) {
			pr_err("hostid %pUb is already in use with hostnqn %s, not %s\n",
			       id, host->nqn, nqn);
			host = ERR_PTR(-EINVAL);
			goto out_unlock;
		}
	}
	host = nvfab_host_alloc(nqn, id);
	if (!host) {
		host = ERR_PTR(-ENOMEM);
		goto out_unlock;
	}
	list_add_tail(&host->list, &nvfab_hosts);
out_unlock:
	mutex_unlock(&nvfab_hosts_mutex);
	return host;
}

static void nvfab_host_release(struct kref *ref)
{
	struct nvfab_host *host = container_of(ref, struct nvfab_host, ref);

	list_del(&host->list);
	mutex_unlock(&nvfab_hosts_mutex);
	kfree(host);
}

static void nvfab_host_put(struct nvfab_host *host)
{
	kref_put_mutex(&host->ref, nvfab_host_release, &nvfab_hosts_mutex);
}

/**
 * nvfab_free_options() - free a connect-options block
 * @opts: the options, may be partly filled or NULL
 *
 * Drops the host reference and the key references (keyring, tls_key) and
 * frees every string, then @opts itself.
 *
 * Context: may sleep.
 */
void nvfab_free_options(struct nvfab_ctrl_options *opts)
{
	if (!opts)
		return;
	if (opts->host)
		nvfab_host_put(opts->host);
	kfree(opts->transport);
	kfree(opts->subsysnqn);
	kfree(opts->traddr);
	kfree(opts->trsvcid);
	kfree(opts->host_traddr);
	kfree(opts->host_iface);
	kfree_sensitive(opts->dhchap_secret);
	kfree_sensitive(opts->dhchap_ctrl_secret);
	key_put(opts->keyring);
	key_put(opts->tls_key);
	kfree(opts);
}
EXPORT_SYMBOL_NVFAB(nvfab_free_options);

/*
 * A DH-HMAC-CHAP secret as the in-kernel host takes it: "DHHC-1:" and at
 * least 4 more characters (the key itself is parsed, and its CRC checked,
 * when the controller is created). The secret is never logged.
 */
static int nvfab_opt_secret(substring_t *arg, char **dst, const char *key)
{
	char *p;

	if (!IS_ENABLED(CONFIG_NVME_AUTH)) {
		pr_err("option '%s' is not supported: this kernel has no nvme-auth (CONFIG_NVME_AUTH)\n",
		       key);
		return -EOPNOTSUPP;
	}
	p = match_strdup(arg);
	if (!p)
		return -ENOMEM;
	if (strlen(p) < 11 || strncmp(p, "DHHC-1:", 7) ||
	    !nvfab_str_printable(p)) {
		pr_err("%s is not a DH-HMAC-CHAP secret (DHHC-1:xx:...:)\n", key);
		kfree_sensitive(p);
		return -EINVAL;
	}
	*dst = p;
	return 0;
}

/*
 * keyring= and tls_key=: the serial of a key (the keyring tlshd searches,
 * the PSK to offer), looked up and referenced as the in-kernel host does
 * (nvme-keyring's nvme_tls_key_lookup(): -ENOKEY for no such key,
 * -EKEYREVOKED for a revoked one).
 */
static int nvfab_opt_key(substring_t *arg, struct key **dst, const char *name)
{
	struct key *key;
	int id;

	if (!NVFAB_HAVE_TLS) {
		pr_err("option '%s' is not supported: this kernel lacks the handshake upcall, kTLS or nvme-keyring\n",
		       name);
		return -EOPNOTSUPP;
	}
	if (match_int(arg, &id) || id <= 0) {
		pr_err("invalid value for option '%s': a key serial above 0\n",
		       name);
		return -EINVAL;
	}
	key = nvme_tls_key_lookup(id);
	if (IS_ERR(key)) {
		pr_err("option '%s': key %08x: %pe\n", name, id, key);
		return PTR_ERR(key);
	}
	*dst = key;
	return 0;
}

/* Both unset, or both set and equal. */
static bool nvfab_opt_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b;
	return !strcmp(a, b);
}

/**
 * nvfab_opts_same_path() - would a connect duplicate an existing controller?
 * @a: options of an existing controller
 * @b: options of a new connect request
 * @default_trsvcid: the port the transport uses when trsvcid is not given
 *	(4420, or 8009 for a discovery controller, on TCP)
 *
 * A path is (host identity, transport, SUBNQN, TRADDR, TRSVCID, source).
 * A missing trsvcid means @default_trsvcid, so "trsvcid=4420" and no
 * trsvcid name the same port. The source is host_traddr and host_iface;
 * each matches when both requests name the same one or neither names one.
 * A connect that picks its source explicitly is a path of its own beside
 * one that lets routing choose: the two may leave through different ports,
 * which is how one target address is reached over two host NICs.
 *
 * Addresses are compared as the strings the user gave, not as resolved
 * addresses: "192.0.2.2" and "192.000.002.002" are two paths to this check.
 *
 * Context: any; reads @a and @b only. The caller keeps both alive.
 * Return: true when @b names the same path as @a.
 */
bool nvfab_opts_same_path(const struct nvfab_ctrl_options *a,
			  const struct nvfab_ctrl_options *b,
			  const char *default_trsvcid)
{
	return a->host == b->host &&
	       nvfab_opt_str_eq(a->transport, b->transport) &&
	       nvfab_opt_str_eq(a->subsysnqn, b->subsysnqn) &&
	       nvfab_opt_str_eq(a->traddr, b->traddr) &&
	       nvfab_opt_str_eq(a->trsvcid ?: default_trsvcid,
				b->trsvcid ?: default_trsvcid) &&
	       nvfab_opt_str_eq(a->host_traddr, b->host_traddr) &&
	       nvfab_opt_str_eq(a->host_iface, b->host_iface);
}
EXPORT_SYMBOL_NVFAB(nvfab_opts_same_path);

/* Parse one option @p whose token is @token into @opts. */
static int nvfab_parse_one(struct nvfab_ctrl_options *opts, int token,
			   substring_t *args, char *hostnqn, uuid_t *hostid,
			   int *ctrl_loss_tmo)
{
	char *p = NULL;
	int val, ret;

	switch (token) {
	case NVFAB_OPT_TRANSPORT:
		ret = nvfab_opt_str(args, &opts->transport,
				    NVFAB_TRANSPORT_SIZE, "transport");
		if (!ret && !nvfab_transport_name_valid(opts->transport)) {
			pr_err("transport '%s' is not a valid transport name\n",
			       opts->transport);
			ret = -EINVAL;
		}
		return ret;
	case NVFAB_OPT_NQN:
		ret = nvfab_opt_str(args, &opts->subsysnqn, NVFAB_NQN_SIZE,
				    "nqn");
		if (!ret && !strcmp(opts->subsysnqn, NVFAB_DISC_NQN))
			opts->discovery_nqn = true;
		return ret;
	case NVFAB_OPT_TRADDR:
		return nvfab_opt_str(args, &opts->traddr, NVFAB_TRADDR_SIZE,
				     "traddr");
	case NVFAB_OPT_TRSVCID:
		return nvfab_opt_str(args, &opts->trsvcid, NVFAB_TRSVCID_SIZE,
				     "trsvcid");
	case NVFAB_OPT_HOST_TRADDR:
		return nvfab_opt_str(args, &opts->host_traddr,
				     NVFAB_TRADDR_SIZE, "host_traddr");
	case NVFAB_OPT_HOST_IFACE:
		return nvfab_opt_str(args, &opts->host_iface, NVFAB_IFNAME_SIZE,
				     "host_iface");
	case NVFAB_OPT_DHCHAP_SECRET:
		return nvfab_opt_secret(args, &opts->dhchap_secret,
					"dhchap_secret");
	case NVFAB_OPT_DHCHAP_CTRL_SECRET:
		return nvfab_opt_secret(args, &opts->dhchap_ctrl_secret,
					"dhchap_ctrl_secret");
	case NVFAB_OPT_HOSTNQN:
		ret = nvfab_opt_str(args, &p, NVFAB_NQN_SIZE, "hostnqn");
		if (ret)
			return ret;
		strscpy(hostnqn, p, NVFAB_NQN_SIZE);
		kfree(p);
		return 0;
	case NVFAB_OPT_HOST_ID:
		p = match_strdup(args);
		if (!p)
			return -ENOMEM;
		ret = uuid_parse(p, hostid);
		if (ret)
			pr_err("hostid '%.*s' is not a UUID\n",
			       NVFAB_OPT_QUOTE_LEN, p);
		kfree(p);
		return ret ? -EINVAL : 0;
	case NVFAB_OPT_QUEUE_SIZE:
		ret = nvfab_opt_int(args, "queue_size", &val);
		if (ret)
			return ret;
		if (val < NVFAB_MIN_QUEUE_SIZE || val > NVFAB_MAX_QUEUE_SIZE) {
			pr_err("queue_size %d is outside %d..%d\n", val,
			       NVFAB_MIN_QUEUE_SIZE, NVFAB_MAX_QUEUE_SIZE);
			return -EINVAL;
		}
		opts->queue_size = val;
		return 0;
	case NVFAB_OPT_NR_IO_QUEUES:
		ret = nvfab_opt_int(args, "nr_io_queues", &val);
		if (ret)
			return ret;
		if (val <= 0) {
			pr_err("nr_io_queues %d must be positive\n", val);
			return -EINVAL;
		}
		opts->nr_io_queues = min_t(unsigned int, num_online_cpus(),
					   val);
		return 0;
	case NVFAB_OPT_NR_WRITE_QUEUES:
		ret = nvfab_opt_int(args, "nr_write_queues", &val);
		if (ret)
			return ret;
		if (val <= 0) {
			pr_err("nr_write_queues %d must be positive\n", val);
			return -EINVAL;
		}
		/* As nr_io_queues: more queues than CPUs serve no one. */
		opts->nr_write_queues = min_t(unsigned int, num_online_cpus(),
					      val);
		return 0;
	case NVFAB_OPT_NR_POLL_QUEUES:
		ret = nvfab_opt_int(args, "nr_poll_queues", &val);
		if (ret)
			return ret;
		if (val <= 0) {
			pr_err("nr_poll_queues %d must be positive\n", val);
			return -EINVAL;
		}
		opts->nr_poll_queues = min_t(unsigned int, num_online_cpus(),
					     val);
		return 0;
	case NVFAB_OPT_KATO:
		ret = nvfab_opt_int(args, "keep_alive_tmo", &val);
		if (ret)
			return ret;
		if (val < 0) {
			pr_err("keep_alive_tmo %d must not be negative\n", val);
			return -EINVAL;
		}
		/* KATO travels in ms in a 32-bit field (Connect, Set Features). */
		if (val > NVFAB_MAX_KATO) {
			pr_err("keep_alive_tmo %d is above %u s, the 32-bit KATO field in ms\n",
			       val, NVFAB_MAX_KATO);
			return -EINVAL;
		}
		opts->kato = val;
		return 0;
	case NVFAB_OPT_RECONNECT_DELAY:
		ret = nvfab_opt_int(args, "reconnect_delay", &val);
		if (ret)
			return ret;
		if (val <= 0 || val > NVFAB_MAX_RECONNECT_DELAY) {
			pr_err("reconnect_delay %d must be 1 to %u s\n", val,
			       NVFAB_MAX_RECONNECT_DELAY);
			return -EINVAL;
		}
		opts->reconnect_delay = val;
		return 0;
	case NVFAB_OPT_CTRL_LOSS_TMO:
		ret = nvfab_opt_int(args, "ctrl_loss_tmo", &val);
		if (ret)
			return ret;
		if (val > NVFAB_MAX_TMO) {
			pr_err("ctrl_loss_tmo %d is above the limit of %u s; -1 reconnects forever\n",
			       val, NVFAB_MAX_TMO);
			return -EINVAL;
		}
		if (val < 0)
			pr_info("ctrl_loss_tmo < 0: reconnecting forever\n");
		*ctrl_loss_tmo = val;
		return 0;
	case NVFAB_OPT_FAIL_FAST_TMO:
		ret = nvfab_opt_int(args, "fast_io_fail_tmo", &val);
		if (ret)
			return ret;
		if (val > NVFAB_MAX_TMO) {
			pr_err("fast_io_fail_tmo %d is above the limit of %u s; -1 is off\n",
			       val, NVFAB_MAX_TMO);
			return -EINVAL;
		}
		opts->fast_io_fail_tmo = val < 0 ? -1 : val;
		return 0;
	case NVFAB_OPT_TOS:
		ret = nvfab_opt_int(args, "tos", &val);
		if (ret)
			return ret;
		if (val < 0) {
			pr_err("tos %d must not be negative\n", val);
			return -EINVAL;
		}
		if (val > NVFAB_MAX_TOS) {
			pr_warn("tos %d clamped to %d\n", val, NVFAB_MAX_TOS);
			val = NVFAB_MAX_TOS;
		}
		opts->tos = val;
		return 0;
	case NVFAB_OPT_DUP_CONNECT:
		opts->duplicate_connect = true;
		return 0;
	case NVFAB_OPT_DISABLE_SQFLOW:
		opts->disable_sqflow = true;
		return 0;
	case NVFAB_OPT_HDR_DIGEST:
		opts->hdr_digest = true;
		return 0;
	case NVFAB_OPT_DATA_DIGEST:
		opts->data_digest = true;
		return 0;
	case NVFAB_OPT_DISCOVERY:
		opts->discovery_nqn = true;
		return 0;
	case NVFAB_OPT_TLS:
		if (!NVFAB_HAVE_TLS) {
			pr_err("option 'tls' is not supported: this kernel lacks the handshake upcall, kTLS or nvme-keyring\n");
			return -EOPNOTSUPP;
		}
		opts->tls = true;
		return 0;
	case NVFAB_OPT_KEYRING:
		return nvfab_opt_key(args, &opts->keyring, "keyring");
	case NVFAB_OPT_TLS_KEY:
		return nvfab_opt_key(args, &opts->tls_key, "tls_key");
	}
	/* Every token of opt_tokens has a case above. */
	WARN_ON_ONCE(1);
	return -EINVAL;
}

/* Record @token in @opts->mask, refusing a second one. */
static int nvfab_opt_once(struct nvfab_ctrl_options *opts, int token)
{
	size_t len;
	const char *key;

	if (opts->mask & token) {
		key = nvfab_token_key(token, &len);
		pr_err("option '%.*s' given more than once\n", (int)len, key);
		return -EINVAL;
	}
	opts->mask |= token;
	return 0;
}

/*
 * Apply one option that a kernel caller gave as a value: the token is
 * given, the value is used whole (never split, never matched against the
 * token patterns), and then checked by the same code as a written one.
 */
static int nvfab_opt_value(struct nvfab_ctrl_options *opts,
			   const struct nvfab_opt_value *v, char *hostnqn,
			   uuid_t *hostid, int *ctrl_loss_tmo)
{
	substring_t args[MAX_OPT_ARGS] = { };
	const struct match_token *t;
	bool takes_value;
	size_t klen;
	int ret, n;

	for (t = opt_tokens; t->pattern; t++)
		if (t->token == v->token)
			break;
	if (!t->pattern) {
		pr_err("no option has token %#x\n", v->token);
		return -EINVAL;
	}
	klen = nvfab_key_len(t->pattern);
	takes_value = t->pattern[klen] == '=';
	if (takes_value && (!v->str || !*v->str)) {
		pr_err("option '%.*s' needs a value\n", (int)klen, t->pattern);
		return -EINVAL;
	}
	if (!takes_value && v->str) {
		pr_err("option '%.*s' takes no value\n", (int)klen, t->pattern);
		return -EINVAL;
	}
	/* A number is all of the value, as the token pattern requires. */
	if (takes_value && strstr(t->pattern, "%d") && kstrtoint(v->str, 0, &n)) {
		pr_err("invalid value '%.*s' for option '%.*s'\n",
		       NVFAB_OPT_QUOTE_LEN, v->str, (int)klen, t->pattern);
		return -EINVAL;
	}
	ret = nvfab_opt_once(opts, v->token);
	if (ret)
		return ret;
	if (v->str) {
		args[0].from = (char *)v->str;
		args[0].to = (char *)v->str + strlen(v->str);
	}
	return nvfab_parse_one(opts, v->token, args, hostnqn, hostid,
			       ctrl_loss_tmo);
}

/**
 * nvfab_build_options() - fill a connect-options block
 * @opts: zeroed options block to fill; freed by the caller with
 *	nvfab_free_options() whatever the result
 * @buf: NUL-terminated option string, at most %NVFAB_OPTS_MAX_LEN bytes,
 *	options separated by ',' or '\n'; NULL for none
 * @vals: options given as values, or NULL: each value is taken whole, so
 *	a ',' or '=' in it is part of the value and can add no option. For
 *	values that come from outside the kernel's caller (a Discovery Log
 *	Page entry), which must never be pasted into @buf
 * @nr_vals: entries of @vals
 *
 * Applies the in-kernel host's defaults, then each option of @buf, then
 * each of @vals, each checked as if written to /dev/nvfab-fabrics; a key
 * in both, or twice, is refused. Then the rules that tie options
 * together: a discovery controller has no I/O queues and allows duplicate
 * connects, an I/O controller gets the default KATO when none was given,
 * and ctrl_loss_tmo / reconnect_delay give the number of reconnect
 * attempts. Finally it takes a reference on the host identity.
 *
 * Context: may sleep; takes nvfab_hosts_mutex.
 * Return: 0 on success; -EINVAL for an unknown, duplicated, malformed or
 * out-of-range option, a value given to an option without one or none to
 * one that needs it, or a conflicting host identity; -EOPNOTSUPP for an
 * upstream option nvfab does not implement; -ENOMEM.
 */
int nvfab_build_options(struct nvfab_ctrl_options *opts, const char *buf,
			const struct nvfab_opt_value *vals,
			unsigned int nr_vals)
{
	int ctrl_loss_tmo = NVFAB_DEF_CTRL_LOSS_TMO;
	substring_t args[MAX_OPT_ARGS];
	char *options, *o, *p;
	unsigned int i;
	char *hostnqn;
	uuid_t hostid;
	int token, ret = 0;

	if (!buf)
		buf = "";
	if (strnlen(buf, NVFAB_OPTS_MAX_LEN + 1) > NVFAB_OPTS_MAX_LEN) {
		pr_err("option string longer than %d bytes\n",
		       NVFAB_OPTS_MAX_LEN);
		return -EINVAL;
	}

	opts->queue_size = NVFAB_DEF_QUEUE_SIZE;
	opts->nr_io_queues = num_online_cpus();
	opts->reconnect_delay = NVFAB_DEF_RECONNECT_DELAY;
	opts->fast_io_fail_tmo = NVFAB_DEF_FAIL_FAST_TMO;
	opts->tos = -1;

	hostnqn = kmalloc(NVFAB_NQN_SIZE, GFP_KERNEL);
	options = kstrdup(buf, GFP_KERNEL);
	if (!hostnqn || !options) {
		ret = -ENOMEM;
		goto out_free;
	}
	strscpy(hostnqn, nvfab_default_host->nqn, NVFAB_NQN_SIZE);
	uuid_copy(&hostid, &nvfab_default_host->id);

	o = options;
	while ((p = strsep(&o, ",\n")) != NULL) {
		if (!*p)
			continue;
		token = match_token(p, opt_tokens, args);
		if (token == NVFAB_OPT_ERR) {
			ret = nvfab_bad_option(p);
			goto out_free;
		}
		ret = nvfab_opt_once(opts, token);
		if (ret)
			goto out_free;
		ret = nvfab_parse_one(opts, token, args, hostnqn, &hostid,
				      &ctrl_loss_tmo);
		if (ret)
			goto out_free;
	}
	for (i = 0; vals && i < nr_vals; i++) {
		ret = nvfab_opt_value(opts, &vals[i], hostnqn, &hostid,
				      &ctrl_loss_tmo);
		if (ret)
			goto out_free;
	}

	/*
	 * Stricter than the in-kernel host, which connects in the clear when
	 * a key is given without tls: a user who names a PSK wants TLS.
	 */
	if ((opts->keyring || opts->tls_key) && !opts->tls) {
		pr_err("option '%s' needs 'tls'\n",
		       opts->tls_key ? "tls_key" : "keyring");
		ret = -EINVAL;
		goto out_free;
	}

	if (opts->discovery_nqn) {
		opts->nr_io_queues = 0;
		opts->nr_write_queues = 0;
		opts->nr_poll_queues = 0;
		opts->duplicate_connect = true;
	} else if (!(opts->mask & NVFAB_OPT_KATO)) {
		opts->kato = NVFAB_DEF_KATO;
	}

	opts->ctrl_loss_tmo = ctrl_loss_tmo;
	opts->max_reconnects = nvfab_max_reconnects(ctrl_loss_tmo,
						    opts->reconnect_delay);
	if (ctrl_loss_tmo >= 0 && opts->fast_io_fail_tmo > ctrl_loss_tmo)
		pr_warn("fast_io_fail_tmo %d is larger than ctrl_loss_tmo %d\n",
			opts->fast_io_fail_tmo, ctrl_loss_tmo);

	opts->host = nvfab_host_get(hostnqn, &hostid);
	if (IS_ERR(opts->host)) {
		ret = PTR_ERR(opts->host);
		opts->host = NULL;
	}

out_free:
	kfree(options);
	kfree(hostnqn);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_build_options);

/**
 * nvfab_tls_find_psk() - the PSK a controller's TLS handshake offers first
 * @opts: options with tls and a host identity (nvfab_build_options())
 *
 * The tls_key option's key when given; otherwise the PSK nvme-keyring
 * finds in the keyring option's keyring (the .nvme keyring by default)
 * for the identity of the host and subsystem NQNs, by the in-kernel
 * host's order (nvme_tls_psk_default(): retained before generated keys,
 * SHA-384 before SHA-256). NVMe/TCP 1.0, 3.6.1.3; TP 8011.
 *
 * Context: process; may sleep (keyring search).
 * Return: the key's serial, or 0 when there is none (or no TLS support).
 */
key_serial_t nvfab_tls_find_psk(const struct nvfab_ctrl_options *opts)
{
	if (!NVFAB_HAVE_TLS || !opts->host)
		return 0;
	if (opts->tls_key)
		return key_serial(opts->tls_key);
	return nvme_tls_psk_default(opts->keyring, opts->host->nqn,
				    opts->subsysnqn);
}
EXPORT_SYMBOL_NVFAB(nvfab_tls_find_psk);

/**
 * nvfab_parse_options() - parse a connect option string
 * @opts: zeroed options block to fill; freed by the caller with
 *	nvfab_free_options() whatever the result
 * @buf: NUL-terminated option string, at most %NVFAB_OPTS_MAX_LEN bytes,
 *	options separated by ',' or '\n'
 *
 * nvfab_build_options() without values: what a write to
 * /dev/nvfab-fabrics parses.
 *
 * Context: may sleep; takes nvfab_hosts_mutex.
 * Return: 0 on success; -EINVAL for an unknown, duplicated, malformed or
 * out-of-range option or a conflicting host identity; -EOPNOTSUPP for an
 * upstream option nvfab does not implement; -ENOMEM.
 */
int nvfab_parse_options(struct nvfab_ctrl_options *opts, const char *buf)
{
	return nvfab_build_options(opts, buf, NULL, 0);
}
EXPORT_SYMBOL_NVFAB(nvfab_parse_options);

/* Log each option in @bits that @opts lacks (@missing) or has (!@missing). */
static void nvfab_report_opts(unsigned int bits, const char *what,
			      const char *transport)
{
	const struct match_token *t;

	for (t = opt_tokens; t->pattern; t++) {
		if (!(t->token & bits))
			continue;
		pr_err("option '%.*s' %s%s\n", (int)nvfab_key_len(t->pattern),
		       t->pattern, what, transport ? transport : "");
	}
}

/**
 * nvfab_check_transport_opts() - check options against a transport
 * @opts: parsed options
 * @ops: the transport; NULL checks only the options every request needs
 *
 * Context: any context.
 * Return: 0, or -EINVAL when a required option is missing or an option is
 * not accepted by the transport (each offending key is logged).
 */
VISIBLE_IF_KUNIT int
nvfab_check_transport_opts(struct nvfab_ctrl_options *opts,
			   const struct nvfab_transport_ops *ops)
{
	unsigned int required = NVFAB_REQUIRED_OPTS;
	unsigned int allowed, bad;

	if (ops)
		required |= ops->required_opts;
	bad = required & ~opts->mask;
	if (bad) {
		nvfab_report_opts(bad, ops ? "is required by transport " :
				  "is required", ops ? ops->name : NULL);
		return -EINVAL;
	}
	if (!ops)
		return 0;

	allowed = NVFAB_REQUIRED_OPTS | NVFAB_ALLOWED_OPTS |
		  ops->required_opts | ops->allowed_opts;
	bad = opts->mask & ~allowed;
	if (bad) {
		nvfab_report_opts(bad, "is not supported by transport ",
				  ops->name);
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_check_transport_opts);

static struct nvfab_transport_ops *nvfab_lookup_transport(const char *name)
{
	struct nvfab_transport_ops *ops;

	lockdep_assert_held(&nvfab_transports_rwsem);
	list_for_each_entry(ops, &nvfab_transports, entry) {
		if (!strcmp(ops->name, name))
			return ops;
	}
	return NULL;
}

/* Find transport @name, pin its module and return it, or NULL. */
static struct nvfab_transport_ops *nvfab_get_transport(const char *name)
{
	struct nvfab_transport_ops *ops;

	down_read(&nvfab_transports_rwsem);
	ops = nvfab_lookup_transport(name);
	if (ops && !try_module_get(ops->module))
		ops = NULL;
	up_read(&nvfab_transports_rwsem);
	return ops;
}

/**
 * nvfab_register_transport() - make a transport available to connects
 * @ops: the transport; @ops->name and @ops->create_ctrl must be set, and
 *	@ops must stay valid until nvfab_unregister_transport()
 *
 * Context: may sleep; takes nvfab_transports_rwsem.
 * Return: 0; -EINVAL if @ops lacks a name or create_ctrl; -EBUSY if a
 * transport of that name is already registered.
 */
int nvfab_register_transport(struct nvfab_transport_ops *ops)
{
	int ret = 0;

	if (!ops->name || !ops->create_ctrl)
		return -EINVAL;

	down_write(&nvfab_transports_rwsem);
	if (nvfab_lookup_transport(ops->name))
		ret = -EBUSY;
	else
		list_add_tail(&ops->entry, &nvfab_transports);
	up_write(&nvfab_transports_rwsem);
	return ret;
}
EXPORT_SYMBOL_NVFAB(nvfab_register_transport);

/**
 * nvfab_unregister_transport() - remove a transport
 * @ops: a transport registered with nvfab_register_transport()
 *
 * New connects can no longer find it. Controllers it created are the
 * transport's to tear down before its module goes away.
 *
 * Context: may sleep; takes nvfab_transports_rwsem.
 */
void nvfab_unregister_transport(struct nvfab_transport_ops *ops)
{
	down_write(&nvfab_transports_rwsem);
	list_del(&ops->entry);
	up_write(&nvfab_transports_rwsem);
}
EXPORT_SYMBOL_NVFAB(nvfab_unregister_transport);

/*
 * Check @opts against its transport (loaded on demand) and create the
 * controller, which owns @opts on success; on failure @opts are freed.
 * A controller returned comes with a reference and its transport module's
 * reference, for the caller to drop with nvfab_fabrics_put_ctrl().
 */
static struct nvfab_ctrl *nvfab_create_ctrl_opts(struct device *dev,
						 struct nvfab_ctrl_options *opts)
{
	struct nvfab_transport_ops *ops;
	struct nvfab_ctrl *ctrl;
	int ret;

	ret = nvfab_check_transport_opts(opts, NULL);
	if (ret)
		goto out_free_opts;

	ops = nvfab_get_transport(opts->transport);
	if (!ops) {
		request_module("nvfab-%s", opts->transport);
		ops = nvfab_get_transport(opts->transport);
	}
	if (!ops) {
		pr_err("no transport '%s': module nvfab-%s is not available\n",
		       opts->transport, opts->transport);
		ret = -EPROTONOSUPPORT;
		goto out_free_opts;
	}

	ret = nvfab_check_transport_opts(opts, ops);
	if (ret)
		goto out_module_put;

	ctrl = ops->create_ctrl(dev, opts);
	if (IS_ERR(ctrl)) {
		ret = PTR_ERR(ctrl);
		goto out_module_put;
	}
	return ctrl;	/* with the module reference, for the caller */

out_module_put:
	module_put(ops->module);
out_free_opts:
	nvfab_free_options(opts);
	return ERR_PTR(ret);
}

/**
 * nvfab_create_ctrl() - create a controller from a connect option string
 * @dev: parent device for the controller
 * @buf: NUL-terminated option string (see nvfab_parse_options())
 *
 * Parses and checks the options, loads module nvfab-<transport> if no
 * such transport is registered yet, and asks the transport to create the
 * controller (NVMe over Fabrics 1.1, 3.3: Connect).
 *
 * Context: may sleep for as long as the transport takes to connect.
 * Return: the new controller, which owns the options, with a reference
 * for the caller (nvfab_fabrics_put_ctrl()), or an ERR_PTR:
 * -EINVAL or -EOPNOTSUPP for bad options (see nvfab_parse_options()),
 * -EPROTONOSUPPORT when no such transport exists, -ENOMEM, or whatever the
 * transport's create_ctrl returned.
 */
VISIBLE_IF_KUNIT struct nvfab_ctrl *nvfab_create_ctrl(struct device *dev,
						      const char *buf)
{
	struct nvfab_ctrl_options *opts;
	int ret;

	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	if (!opts)
		return ERR_PTR(-ENOMEM);

	ret = nvfab_parse_options(opts, buf);
	if (ret) {
		nvfab_free_options(opts);
		return ERR_PTR(ret);
	}
	return nvfab_create_ctrl_opts(dev, opts);
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_create_ctrl);

static struct miscdevice nvfab_misc;

/**
 * nvfab_fabrics_create_ctrl() - create a controller for another module
 * @opts: options from nvfab_build_options(), which succeeded; taken over
 *	whatever the result (the controller owns them, or they are freed)
 *
 * What a write to /dev/nvfab-fabrics does, for nvfab-discovery, with
 * options the caller built from values rather than from a string it
 * composed: the controller's parent is the /dev/nvfab-fabrics device, as
 * for one that user space created. The controller holds one reference for
 * its own life, dropped when it is deleted (at any time once it is live);
 * the caller gets another, with one on the transport module, so that
 * neither the controller nor the code that frees it goes away while the
 * caller uses it. It drops both with nvfab_fabrics_put_ctrl().
 *
 * Context: process context; may sleep for as long as the connect takes.
 * Return: the live controller, held, or an ERR_PTR: -EINVAL when a required
 * option is missing or the transport does not accept one,
 * -EPROTONOSUPPORT when no such transport exists, or whatever the
 * transport's create_ctrl returned.
 */
struct nvfab_ctrl *nvfab_fabrics_create_ctrl(struct nvfab_ctrl_options *opts)
{
	return nvfab_create_ctrl_opts(nvfab_misc.this_device, opts);
}
EXPORT_SYMBOL_NVFAB(nvfab_fabrics_create_ctrl);

/**
 * nvfab_fabrics_put_ctrl() - drop what a create handed to its caller
 * @ctrl: a controller from nvfab_fabrics_create_ctrl() or a write to
 *	/dev/nvfab-fabrics; may be freed on return
 *
 * Drops the controller reference, then the transport module's: the last
 * put of the controller runs the transport's free_ctrl.
 *
 * Context: process context (the last put may sleep).
 */
void nvfab_fabrics_put_ctrl(struct nvfab_ctrl *ctrl)
{
	struct module *owner = ctrl->ops->module;

	nvfab_put_ctrl(ctrl);
	module_put(owner);
}
EXPORT_SYMBOL_NVFAB(nvfab_fabrics_put_ctrl);

/*
 * One open file of /dev/nvfab-fabrics. @lock serialises a create against
 * reads of the same file; different files connect in parallel.
 */
struct nvfab_dev_file {
	struct mutex	lock;		/* serialises create and show */
	bool		created;	/* protected by lock */
	int		instance;	/* protected by lock */
	int		cntlid;		/* protected by lock */
};

static int nvfab_dev_show(struct seq_file *m, void *v)
{
	struct nvfab_dev_file *f = m->private;
	const struct match_token *t;

	mutex_lock(&f->lock);
	if (f->created) {
		seq_printf(m, "instance=%d,cntlid=%d\n", f->instance,
			   f->cntlid);
		goto out_unlock;
	}
	/* As upstream: placeholders for no controller, then every token. */
	seq_puts(m, "instance=-1,cntlid=-1");
	for (t = opt_tokens; t->pattern; t++)
		seq_printf(m, ",%s", t->pattern);
	seq_putc(m, '\n');
out_unlock:
	mutex_unlock(&f->lock);
	return 0;
}

static int nvfab_dev_open(struct inode *inode, struct file *file)
{
	struct nvfab_dev_file *f;
	int ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	/* misc_open() left the miscdevice here; seq_open() wants it empty. */
	file->private_data = NULL;
	ret = single_open(file, nvfab_dev_show, f);
	if (ret) {
		mutex_destroy(&f->lock);
		kfree(f);
	}
	return ret;
}

static int nvfab_dev_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct nvfab_dev_file *f = m->private;
	int ret;

	ret = single_release(inode, file);
	mutex_destroy(&f->lock);
	kfree(f);
	return ret;
}

static ssize_t nvfab_dev_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *pos)
{
	struct seq_file *m = file->private_data;
	struct nvfab_dev_file *f = m->private;
	struct nvfab_ctrl *ctrl;
	char *buf;
	int ret = 0;

	if (count > NVFAB_OPTS_MAX_LEN) {
		pr_err("option string longer than %d bytes\n",
		       NVFAB_OPTS_MAX_LEN);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	mutex_lock(&f->lock);
	if (f->created) {
		pr_err("this file already created controller nvfab%d; open the device again\n",
		       f->instance);
		ret = -EINVAL;
		goto out_unlock;
	}
	ctrl = nvfab_create_ctrl(nvfab_misc.this_device, buf);
	if (IS_ERR(ctrl)) {
		ret = PTR_ERR(ctrl);
		goto out_unlock;
	}
	f->created = true;
	f->instance = ctrl->instance;
	f->cntlid = ctrl->cntlid;
	nvfab_fabrics_put_ctrl(ctrl);
out_unlock:
	mutex_unlock(&f->lock);
	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations nvfab_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= nvfab_dev_open,
	.release	= nvfab_dev_release,
	.read		= seq_read,
	.write		= nvfab_dev_write,
	.llseek		= seq_lseek,
};

static struct miscdevice nvfab_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "nvfab-fabrics",
	.fops		= &nvfab_dev_fops,
	.mode		= 0600,
};

static int __init nvfab_fabrics_init(void)
{
	char nqn[NVFAB_NQN_SIZE];
	uuid_t id;
	int ret;

	/* Like the in-kernel host: a random identity per boot by default. */
	uuid_gen(&id);
	snprintf(nqn, sizeof(nqn), "nqn.2014-08.org.nvmexpress:uuid:%pUb",
		 &id);
	nvfab_default_host = nvfab_host_get(nqn, &id);
	if (IS_ERR(nvfab_default_host))
		return PTR_ERR(nvfab_default_host);

	ret = misc_register(&nvfab_misc);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", nvfab_misc.name, ret);
		goto out_put_host;
	}
	return 0;

out_put_host:
	nvfab_host_put(nvfab_default_host);
	return ret;
}

static void __exit nvfab_fabrics_exit(void)
{
	misc_deregister(&nvfab_misc);
	nvfab_host_put(nvfab_default_host);
	WARN_ON_ONCE(!list_empty(&nvfab_hosts));
	WARN_ON_ONCE(!list_empty(&nvfab_transports));
}

module_init(nvfab_fabrics_init);
module_exit(nvfab_fabrics_exit);

MODULE_DESCRIPTION("nvfab NVMe over Fabrics option parsing and transports");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVFAB_VERSION);
NVFAB_IMPORT();
