#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Persistence across reboots, without systemd: the modules that
# systemd/modules-load.d/nvfab.conf lists load with modprobe, then the
# ExecStart command line of systemd/nvfab-boot.service (nvfabctl config
# apply) writes the file's policy into configfs and connects both paths
# of nvmet, so that the subsystem starts with that policy. A second run
# skips both controllers ("already connected") and exits 0. After a
# "reboot" (controllers, configfs entry and modules gone, modules loaded
# again), a file with one bad line fails with that line's number and
# changes nothing; the good file then brings everything back. Last, a
# boot before the target's second port is up: the unit's command (with
# --retry) connects path 1, tells the service manager READY=1 and, in
# STATUS=, that line 5 is missing and why, keeps retrying, and connects
# path 2 once the port is up, then exits 0. The kernel log stays clean.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

BIN=$REPO/tools/nvfabctl/nvfabctl
UNIT=$REPO/systemd/nvfab-boot.service
MODLOAD=$REPO/systemd/modules-load.d/nvfab.conf
ENTRY=/sys/kernel/config/nvfab/subsystems/$NVMET_NQN
TMP=

cleanup() {
	nvfab_delete_all >/dev/null 2>&1
	[ -d "$ENTRY" ] && rmdir "$ENTRY"
	[ -z "$TMP" ] || rm -rf "$TMP"
	nvfab_tcp_cleanup
}
trap cleanup EXIT

require_root
[ -x "$BIN" ] || ksft_skip_all "nvfabctl not built (make -C tools/nvfabctl)"
ktap_header
ktap_set_plan 35

# /etc is read-only in the guest: the file lives in $NVFAB_ETC_NVFAB, and
# the host identity (as a booting machine has one: without it nvfabctl
# warns) in $NVFAB_ETC_NVME.
TMP=$(mktemp -d)
mkdir -p "$TMP/etc-nvme" "$TMP/etc-nvfab"
echo "nqn.2014-08.org.nvmexpress:uuid:6e766661-6221-4b00-8000-706572736973" \
	>"$TMP/etc-nvme/hostnqn"
echo "6e766661-6221-4b00-8000-706572736973" >"$TMP/etc-nvme/hostid"
unset NVFAB_SYSFS NVFAB_CONFIGFS NVFAB_FABRICS_DEV
export NVFAB_ETC_NVME=$TMP/etc-nvme
export NVFAB_ETC_NVFAB=$TMP/etc-nvfab
CONF=$NVFAB_ETC_NVFAB/nvfab.conf

# The unit's command line, with the nvfabctl of this tree.
read -r -a EXEC <<<"$(sed -n 's/^ExecStart=//p' "$UNIT")"
unit_runs_apply() {
	[ "${EXEC[0]##*/}" = nvfabctl ] && [ "${EXEC[*]:1}" = "config apply --retry" ]
}
ktap_check "nvfab-boot.service runs 'nvfabctl config apply --retry' (got '${EXEC[*]}')" \
	unit_runs_apply
EXEC[0]=$BIN

# The modules, as systemd-modules-load reads its files.
mapfile -t MODS < <(grep -v '^[#;]' "$MODLOAD" | tr -d ' \t' | grep .)
ktap_diag "modules-load.d/nvfab.conf: ${MODS[*]}"
load_mods() {
	local m
	for m in "${MODS[@]}"; do
		nvfab_load "$m" || return 1
	done
	test -c /dev/nvfab-fabrics && test -d /sys/kernel/config/nvfab &&
		test -d /sys/kernel/config/nvfab/discovery
}

# boot: run the unit's command; sets RC, OUT, ERR.
boot() {
	"${EXEC[@]}" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	ktap_diag "${EXEC[*]} -> rc=$RC"
	[ -z "$OUT" ] || sed 's/^/# out: /' "$TMP/out"
	[ -z "$ERR" ] || sed 's/^/# err: /' "$TMP/err"
}

# The controllers of the last run's report, in file order: "nvfabA nvfabB"
# (the connects run in parallel: their lines come in any order).
reported() {
	echo "$OUT" | grep -E 'connected:? nvfab[0-9]+$' | sort -t: -k2n |
		awk '{ print $NF }' | xargs
}
# Every controller in sysfs, in instance order: "nvfabA nvfabB".
ctrl_names() {
	local d
	for d in /sys/class/nvfab/nvfab*; do
		[ -e "$d" ] && echo "${d##*/}"
	done | sort -V | xargs
}
both_live() {
	local c
	[ "$(nvfab_ctrl_count)" = 2 ] || return 1
	for c in $(ctrl_names); do
		[ "$(cat "/sys/class/nvfab/$c/state" 2>/dev/null)" = live ] || return 1
	done
}
# One subsystem has both controllers and started with the file's policy.
subsys_policy() {
	local c s
	read -r -a c <<<"$(ctrl_names)"
	[ "${#c[@]}" = 2 ] || return 1
	s=$(nvfab_subsys_of "/sys/class/nvfab/${c[0]}") || return 1
	[ -e "$s/${c[1]}" ] && [ "$(cat "$s/subsysnqn")" = "$NVMET_NQN" ] &&
		[ "$(cat "$s/iopolicy")|$(cat "$s/no_path_tmo")" = "round-robin|42" ]
}
entry_is() { [ "$(cat "$ENTRY/iopolicy")|$(cat "$ENTRY/no_path_tmo")" = "$1" ]; }
# The last run printed exactly the lines of $1 on stdout, in any order
# (parallel connects), and nothing on stderr.
printed() { [ "$(echo "$OUT" | sort)" = "$(echo "$1" | sort)" ] && [ -z "$ERR" ]; }

P1="connect -t tcp -a $(topo_tgt_addr 1) -s $NVMET_TRSVCID -w $(topo_host_addr 1) -n $NVMET_NQN"
P2="connect -t tcp -a $(topo_tgt_addr 2) -s $NVMET_TRSVCID -w $(topo_host_addr 2) -n $NVMET_NQN"
good_conf() {
	cat >"$CONF" <<-EOF
	# persist.sh: one subsystem, two paths
	policy $NVMET_NQN iopolicy=round-robin no_path_tmo=42

	$P1
	$P2	# path 2
	EOF
}

dmesg_canary_start
topo_up 2 && nvmet_setup 2
ktap_check "target up: 2 ports" test -e "$NVMET_CFS/ports/2/subsystems/$NVMET_NQN"

# --- boot 1 -------------------------------------------------------------------
modprobe -q configfs 2>/dev/null || true
mountpoint -q /sys/kernel/config ||
	mount -t configfs configfs /sys/kernel/config 2>/dev/null
ktap_check "the modules of modules-load.d load: /dev/nvfab-fabrics, configfs nvfab/ and nvfab/discovery/" \
	load_mods
good_conf
boot
ktap_check "apply exits 0" test "$RC" = 0
read -r -a R <<<"$(reported)"
ktap_check "apply reports the policy and two connects, by line" printed \
	"$CONF:2: policy $NVMET_NQN: iopolicy=round-robin no_path_tmo=42
$CONF:4: connected ${R[0]:-?}
$CONF:5: connected ${R[1]:-?}"
ktap_check "the configfs entry holds the policy" entry_is "round-robin|42"
ktap_check "both controllers live" busywait 20000 both_live
ctrls=$(ctrl_names)
ktap_check "they are the ones apply reported ($ctrls)" \
	test "$(echo "${R[@]}" | tr ' ' '\n' | sort -V | xargs)" = "$ctrls"
ktap_check "one subsystem, started with iopolicy round-robin and no_path_tmo 42" \
	subsys_policy
ktap_check "namespace 1's block device appears" \
	busywait 20000 nvfab_head_ready "/sys/class/nvfab/${R[0]:-none}" 1

# --- the same boot again ------------------------------------------------------
boot
ktap_check "apply again exits 0" test "$RC" = 0
ktap_check "apply again: both already connected" printed \
	"$CONF:2: policy $NVMET_NQN: iopolicy=round-robin no_path_tmo=42
$CONF:4: already connected: ${R[0]:-?}
$CONF:5: already connected: ${R[1]:-?}"
ktap_check "apply again: the same two controllers" test "$(ctrl_names)" = "$ctrls"

# --- reboot, with a bad line in the file --------------------------------------
unload_all() {
	rmdir "$ENTRY" &&
		nvfab_unload nvfab-discovery nvfab-tcp nvfab-fabrics nvfab-core
}
fake_reboot() { nvfab_delete_all && unload_all && load_mods; }
ktap_check "reboot: controllers, entry and modules gone, modules loaded again" \
	fake_reboot
ktap_check "reboot: no configfs entry" test ! -e "$ENTRY"
cat >"$CONF" <<EOF
policy $NVMET_NQN iopolicy=round-robin no_path_tmo=42
$P1
${P2/connect/conect}
EOF
boot
ktap_check "a bad line: exit 1" test "$RC" = 1
ktap_check "the error names line 3" test "$(echo "$ERR" | head -1)" = \
	"nvfabctl: config: $CONF:3: unknown directive 'conect' (expected policy, connect or discovery)"
ktap_check "and says that nothing was changed" test "$(echo "$ERR" | tail -1)" = \
	"nvfabctl: config: $CONF: 1 error; nothing was changed"
ktap_check "nothing changed: no controller" test "$(nvfab_ctrl_count)" = 0
ktap_check "nothing changed: no configfs entry" test ! -e "$ENTRY"

good_conf
boot
ktap_check "the good file: exit 0" test "$RC" = 0
ktap_check "the good file: both controllers live" busywait 20000 both_live
ktap_check "the good file: the new subsystem started with the policy" subsys_policy

# --- boot before the target's second port is up: retries ----------------------
ktap_check "reboot again" fake_reboot
nvmet_port_disable 2
NLOG=$TMP/notify.log
NPID=
if command -v python3 >/dev/null; then
	python3 "$REPO/tools/nvfabctl/tests/notify-sink.py" "$TMP/notify.sock" "$NLOG" &
	NPID=$!
	busywait 10000 test -S "$TMP/notify.sock"
fi
: >"$NLOG"
NOTIFY_SOCKET=$TMP/notify.sock "${EXEC[@]}" --retry-interval 1 \
	>"$TMP/out" 2>"$TMP/err" &
APID=$!
ready() { grep -q '^READY=1$' "$NLOG"; }
one_live() {
	[ "$(nvfab_ctrl_count)" = 1 ] &&
		[ "$(cat "/sys/class/nvfab/$(ctrl_names)/state" 2>/dev/null)" = live ]
}
# READY=1 once each controller was tried: path 1 connected, path 2 refused.
if [ -n "$NPID" ]; then
	ktap_check "retry: READY=1 after the first round" busywait 30000 ready
else
	ktap_skip "retry: READY=1 after the first round (no python3)"
fi
ktap_check "retry: path 1 connected, the run goes on retrying path 2" \
	busywait 20000 one_live
ktap_check "retry: still running while path 2 is refused" kill -0 $APID
status_missing() {
	grep -q "^STATUS=1 of 2 controllers connected; missing: line 5 tcp $(topo_tgt_addr 2) port $NVMET_TRSVCID (subsystem $NVMET_NQN): Connection refused after [0-9]* attempts\?, retrying$" "$NLOG"
}
if [ -n "$NPID" ]; then
	ktap_check "retry: STATUS= names line 5, its target and why" busywait 10000 status_missing
else
	ktap_skip "retry: STATUS= names line 5 (no python3)"
fi
nvmet_port_enable 2
apply_done() { ! kill -0 $APID 2>/dev/null; }
busywait 30000 apply_done
wait $APID
RC=$?
OUT=$(cat "$TMP/out")
ERR=$(cat "$TMP/err")
ktap_diag "retry run -> rc=$RC"
sed 's/^/# out: /' "$TMP/out"
sed 's/^/# err: /' "$TMP/err"
ktap_check "retry: path 2 connected once its port is up, exit 0" test "$RC" = 0
ktap_check "retry: both controllers live" busywait 20000 both_live
ktap_check "retry: each refusal reported, then a retry announced" \
	grep -q "$CONF:5: attempt 1 failed (Connection refused); retrying in" "$TMP/err"
if [ -n "$NPID" ]; then
	kill "$NPID" 2>/dev/null
	wait "$NPID" 2>/dev/null
	ktap_check "retry: the last STATUS= is 'all 2 controllers connected'" \
		test "$(grep '^STATUS=' "$NLOG" | tail -1)" = "STATUS=all 2 controllers connected"
	sed 's/^/# notify: /' "$NLOG"
else
	ktap_skip "retry: the last STATUS= (no python3)"
fi

# --- clean up -----------------------------------------------------------------
ktap_check "controllers deleted" nvfab_delete_all
ktap_check "configfs entry removed, modules unload" unload_all
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
