# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the security tests (auth.sh, tls.sh) after lib.sh and
# tcp_lib.sh: connect attempts of nvfab and of the in-kernel host with the
# same options on path 1, as the caller's host identity (HOSTNQN, HOSTID)
# with two I/O queues, and what they failed with (the errno's text, as
# the write to the control node reported it).

ERR=
# try_connect OPTS: nvfab connects; ERR is what the write of the options
# failed with (empty on success), CTRL the new controller.
try_connect() {
	ERR=
	CTRL=
	if ! nvfab_connect ",hostnqn=$HOSTNQN,hostid=$HOSTID,nr_io_queues=2$1" 2>/tmp/nvfab-sec.err; then
		ERR=$(sed -n 's/.*: //p' /tmp/nvfab-sec.err | tail -n 1)
		[ -n "$ERR" ] || ERR=failed
		return 1
	fi
}

# kernel_try OPTS: the in-kernel host connects with the option string
# nvfab got (the same grammar), written to /dev/nvme-fabrics as nvme-cli
# does (nvme-cli's message does not name the errno), and disconnects
# again; KERR: its error.
KERR=
kernel_try() {
	local o
	KERR=
	o="transport=tcp,traddr=$(topo_tgt_addr 1),trsvcid=$NVMET_TRSVCID"
	o="$o,host_traddr=$(topo_host_addr 1),nqn=$NVMET_NQN,hostnqn=$HOSTNQN"
	o="$o,hostid=$HOSTID,nr_io_queues=2$1"
	if { exec 4<>/dev/nvme-fabrics && printf '%s' "$o" >&4; } 2>/tmp/nvfab-sec.kout; then
		exec 4>&-
		nvme_kdisconnect
		return 0
	fi
	exec 4>&-
	KERR=$(sed -n 's/.*: //p' /tmp/nvfab-sec.kout | tail -n 1)
	[ -n "$KERR" ] || KERR=failed
	nvme_kdisconnect
	return 1
}

# io_works: an 8 KiB write at LBA 0 of DEV reads back (through every
# queue's setup: nvmet refuses a command on a queue it did not admit).
io_works() {
	local pat rd
	pat=$(head -c 8192 /dev/urandom | base64 -w0 | head -c 8192)
	printf '%s' "$pat" | dd of="$DEV" bs=8192 count=1 oflag=direct conv=notrunc 2>/dev/null || return 1
	rd=$(dd if="$DEV" bs=8192 count=1 iflag=direct 2>/dev/null | head -c 8192)
	[ "$rd" = "$pat" ]
}

no_ctrl() { [ "$(nvfab_ctrl_count)" = 0 ]; }

delete_all() { nvfab_delete_all >/dev/null 2>&1; no_ctrl; }

# attempt OPTS: nvfab connects with OPTS, from no controller, and leaves
# none: N is "connected" (and its I/O worked: io_works), "connected, but
# I/O failed", or the errno's text of the refusal (", a controller left"
# added when one stayed); MS the milliseconds it took.
N=
MS=
attempt() {
	local t0
	delete_all
	clock
	t0=$NOW
	if try_connect "$1"; then
		N=connected
		io_works || N="connected, but I/O failed"
	else
		N=$ERR
		busywait 5000 no_ctrl || N="$N, a controller left"
	fi
	clock
	MS=$((NOW - t0))
	delete_all
}
