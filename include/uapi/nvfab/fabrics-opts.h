/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The connect-option grammar of /dev/nvfab-fabrics, one line per key:
 * NVFAB_OPT(key, kind, min, max), in the order of enum nvfab_opt. Kinds and
 * limits are in include/uapi/nvfab/fabrics.h; for NVFAB_OPTK_STR, min and
 * max are lengths in bytes. The includer defines NVFAB_OPT (a table row)
 * and includes this file where the rows go; it has no include guard.
 *
 * Beyond this table each transport checks its addresses when it connects:
 * for tcp and rdma, traddr and host_traddr are numeric IPv4 or IPv6
 * addresses (IPv6 with an optional %scope, no brackets, no port) and
 * trsvcid is a decimal port, 0 to 65535. nr_io_queues, nr_write_queues and
 * nr_poll_queues above the number of online CPUs are reduced to it; tos
 * above NVFAB_MAX_TOS is clamped to it.
 */
NVFAB_OPT("transport", NVFAB_OPTK_STR, 1, NVFAB_TRANSPORT_SIZE - 1)
NVFAB_OPT("traddr", NVFAB_OPTK_STR, 1, NVFAB_TRADDR_SIZE - 1)
NVFAB_OPT("trsvcid", NVFAB_OPTK_STR, 1, NVFAB_TRSVCID_SIZE - 1)
NVFAB_OPT("nqn", NVFAB_OPTK_STR, 1, NVFAB_NQN_SIZE - 1)
NVFAB_OPT("queue_size", NVFAB_OPTK_INT, NVFAB_MIN_QUEUE_SIZE,
	  NVFAB_MAX_QUEUE_SIZE)
NVFAB_OPT("nr_io_queues", NVFAB_OPTK_INT, 1, NVFAB_OPT_INT_MAX)
NVFAB_OPT("reconnect_delay", NVFAB_OPTK_INT, 1, NVFAB_MAX_RECONNECT_DELAY)
NVFAB_OPT("ctrl_loss_tmo", NVFAB_OPTK_INT, NVFAB_OPT_INT_MIN, NVFAB_MAX_TMO)
NVFAB_OPT("keep_alive_tmo", NVFAB_OPTK_INT, 0, NVFAB_MAX_KATO)
NVFAB_OPT("hostnqn", NVFAB_OPTK_STR, 1, NVFAB_NQN_SIZE - 1)
NVFAB_OPT("host_traddr", NVFAB_OPTK_STR, 1, NVFAB_TRADDR_SIZE - 1)
NVFAB_OPT("host_iface", NVFAB_OPTK_STR, 1, NVFAB_IFNAME_SIZE - 1)
NVFAB_OPT("hostid", NVFAB_OPTK_UUID, 36, 36)
NVFAB_OPT("duplicate_connect", NVFAB_OPTK_FLAG, 0, 0)
NVFAB_OPT("disable_sqflow", NVFAB_OPTK_FLAG, 0, 0)
NVFAB_OPT("hdr_digest", NVFAB_OPTK_FLAG, 0, 0)
NVFAB_OPT("data_digest", NVFAB_OPTK_FLAG, 0, 0)
NVFAB_OPT("nr_write_queues", NVFAB_OPTK_INT, 1, NVFAB_OPT_INT_MAX)
NVFAB_OPT("nr_poll_queues", NVFAB_OPTK_INT, 1, NVFAB_OPT_INT_MAX)
NVFAB_OPT("tos", NVFAB_OPTK_INT, 0, NVFAB_OPT_INT_MAX)
NVFAB_OPT("fast_io_fail_tmo", NVFAB_OPTK_INT, NVFAB_OPT_INT_MIN,
	  NVFAB_MAX_TMO)
NVFAB_OPT("discovery", NVFAB_OPTK_FLAG, 0, 0)
NVFAB_OPT("dhchap_secret", NVFAB_OPTK_SECRET, 11, NVFAB_OPTS_MAX_LEN)
NVFAB_OPT("dhchap_ctrl_secret", NVFAB_OPTK_SECRET, 11, NVFAB_OPTS_MAX_LEN)
NVFAB_OPT("tls", NVFAB_OPTK_FLAG, 0, 0)
NVFAB_OPT("keyring", NVFAB_OPTK_SERIAL, 1, NVFAB_OPT_INT_MAX)
NVFAB_OPT("tls_key", NVFAB_OPTK_SERIAL, 1, NVFAB_OPT_INT_MAX)
