#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvfab-discovery (issue 12) against the in-kernel nvmet discovery
# controller over NVMe/TCP: configfs entries under
# /sys/kernel/config/nvfab/discovery/ follow the target's Discovery Log
# Page, as Documentation/admin-guide/nvfab-discovery.rst
# says:
#
#  - a subsystem linked to the port is connected (fio verify on its block
#    device), unlinked it is disconnected, while fio verify on another
#    subsystem runs on; both announced by discovery_add/discovery_remove
#    uevents (uevent_listen.py)
#  - allowed_hosts: a host added and removed, attr_allow_any_host flipped
#  - a change nvmet does not announce (discovery_nqn: the "current" entry)
#    found by the poll; a subsystem found with a short poll_interval
#  - the discovery port's path down for $DOWN_S s while a subsystem is
#    linked there: no AEN arrives (the link is down; nvmet's AEN goes to
#    the controller that keep-alive already gave up), and the reconnect's
#    log read finds it
#  - a referral to a second port, then a referral loop (each port refers
#    to the other): each endpoint followed once
#  - $STORM subsystems linked at once: all connected, the entry's
#    inflight_peak never above its max_inflight; the time it took
#  - rmdir of the entry while it connects, rmmod right after: no splat
#    (the harness's kmemleak scan covers leaks)
#
# The target: port 1 on path 1 exports $NVMET_NQN (null_blk) and the test
# subsystems; port 2 on path 2 is the second discovery port. Discovery
# runs on the I/O ports (trsvcid 4420): nvmet answers the discovery NQN on
# every port.
#
# Environment:
#   NVFAB_DISC_DOWN_S  seconds the discovery path stays down (default 30,
#                      the issue's figure; at least 3 x the entry's kato of
#                      $KATO s plus a second, so that keep-alive has given
#                      up the connection and its AEN is lost)
#   NVFAB_DISC_STORM   subsystems linked at once (default 200)
#   NVFAB_FIO_RUNTIME  seconds of the background fio (default 12)
# Functions are called through busywait and ktap_check:
# shellcheck disable=SC2317
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

DCFS=/sys/kernel/config/nvfab/discovery
MODP=/sys/module/nvfab_discovery/parameters
DISC_NQN=nqn.2014-08.org.nvmexpress.discovery
PFX=nqn.2014-08.org.nvmexpress:nvfab-disc
# The entries' host identity (allowed_hosts below): its own hostid too,
# nvfab-fabrics refuses a hostid already paired with another hostnqn.
HOSTID_T=6b1b8f57-3c1a-4b5e-9d2a-0c0ffee0d15c
HOSTNQN_T=nqn.2014-08.org.nvmexpress:uuid:$HOSTID_T
KATO=5
DOWN_S=${NVFAB_DISC_DOWN_S:-30}
STORM=${NVFAB_DISC_STORM:-200}
STORM_INFLIGHT=4
FIO_RUNTIME=${NVFAB_FIO_RUNTIME:-12}
[ "$DOWN_S" -ge $((3 * KATO + 1)) ] 2>/dev/null || DOWN_S=$((3 * KATO + 1))

TMP=$(mktemp -d /tmp/nvfab-disc.XXXXXX)
IMG=$TMP/img
LPID=
FIOPID=
cleanup() {
	local d
	[ -n "$LPID" ] && kill "$LPID" 2>/dev/null
	[ -n "$FIOPID" ] && kill "$FIOPID" 2>/dev/null
	ip link set "$(topo_host_if 2)" up 2>/dev/null
	printf %s "$DISC_NQN" >"$NVMET_CFS/discovery_nqn" 2>/dev/null
	for d in "$DCFS"/*; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	nvfab_unload nvfab-discovery >/dev/null 2>&1
	nvfab_tcp_cleanup
	rm -rf "$TMP"
}
trap cleanup EXIT

require_root
command -v fio >/dev/null || ksft_skip_all "fio missing"
command -v python3 >/dev/null || ksft_skip_all "python3 missing"
ktap_header
ktap_set_plan 51

# --- the target -----------------------------------------------------------

# tgt_subsys NQN [ALLOW_ANY]: a subsystem with one namespace on a sparse
# file of 64 MiB, any host allowed unless ALLOW_ANY=0.
tgt_subsys() {
	local s=$NVMET_CFS/subsystems/$1 f=$IMG/${1##*:}
	mkdir -p "$s/namespaces/1" || return
	echo "${2:-1}" >"$s/attr_allow_any_host" || return
	truncate -s 64M "$f" || return
	echo "$f" >"$s/namespaces/1/device_path" &&
		echo 1 >"$s/namespaces/1/enable"
}

# tgt_link PORT NQN / tgt_unlink PORT NQN: (un)list NQN on PORT. The
# first link enables a port: made from the target netns (topology.sh).
tgt_link() {
	topo_tgt_exec ln -s "$NVMET_CFS/subsystems/$2" "$NVMET_CFS/ports/$1/subsystems/$2"
}
tgt_unlink() { rm -f "$NVMET_CFS/ports/$1/subsystems/$2"; }

# tgt_port PORT: a TCP port on path PORT's target address, not enabled.
tgt_port() {
	local p=$NVMET_CFS/ports/$1
	mkdir -p "$p" && echo tcp >"$p/addr_trtype" && echo ipv4 >"$p/addr_adrfam" &&
		topo_tgt_addr "$1" >"$p/addr_traddr" && echo "$NVMET_TRSVCID" >"$p/addr_trsvcid"
}

# tgt_referral PORT NAME TO_PORT: a referral on PORT to TO_PORT's address.
tgt_referral() {
	local r=$NVMET_CFS/ports/$1/referrals/$2
	mkdir -p "$r" && echo tcp >"$r/addr_trtype" && echo ipv4 >"$r/addr_adrfam" &&
		topo_tgt_addr "$3" >"$r/addr_traddr" && echo "$NVMET_TRSVCID" >"$r/addr_trsvcid" &&
		echo "$3" >"$r/addr_portid" && echo 1 >"$r/enable"
}

# --- the host ---------------------------------------------------------------

# disc_new NAME PATH [ATTR=VALUE...]: an entry for port PATH, enabled.
disc_new() {
	local e=$DCFS/$1 p=$2 kv
	shift 2
	mkdir "$e" || return
	# no host_traddr: a referral child takes the same options, and
	# port 2 is not reachable from path 1's address
	echo tcp >"$e/transport" && topo_tgt_addr "$p" >"$e/traddr" &&
		echo "$NVMET_TRSVCID" >"$e/trsvcid" && echo "$HOSTNQN_T" >"$e/hostnqn" &&
		echo "$HOSTID_T" >"$e/hostid" && echo "$KATO" >"$e/kato" &&
		echo "reconnect_delay=1,nr_io_queues=1,queue_size=32" >"$e/connect_opts" || return
	for kv in "$@"; do
		echo "${kv#*=}" >"$e/${kv%%=*}" || return
	done
	echo 1 >"$e/enable"
}

# dstat NAME KEY: one figure of the entry's stats line.
dstat() {
	local kv
	local -a kvs=()
	read -r -a kvs <"$DCFS/$1/stats" 2>/dev/null
	for kv in "${kvs[@]}"; do
		[ "${kv%%=*}" = "$2" ] && { echo "${kv#*=}"; return 0; }
	done
	echo -1
}

state_is() { test "$(cat "$DCFS/$1/state" 2>/dev/null)" = "$2"; }

# entry_state NAME NQN: the state= of NQN's entry line in the entry's log
# (referral children included), or "absent".
entry_state() {
	local l
	l=$(grep -a -m1 -E "(^| )subnqn=$2 " "$DCFS/$1/log" 2>/dev/null) ||
		{ echo absent; return 0; }
	l=${l##* state=}
	echo "${l%% *}"
}
entry_is() { test "$(entry_state "$1" "$2")" = "$3"; }

# nqn_ctrl NQN: the live nvfab controller of NQN (sets CTRL), else fails.
nqn_ctrl() {
	local d
	for d in /sys/class/nvfab/nvfab*; do
		[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		[ "$(cat "$d/state" 2>/dev/null)" = live ] || continue
		CTRL=$d
		return 0
	done
	return 1
}
no_ctrl() { ! nqn_ctrl "$1"; }

# connected NAME NQN: the log says connected and the head's block device
# exists (sets CTRL and DEV).
connected() {
	entry_is "$1" "$2" connected && nqn_ctrl "$2" && nvfab_head_ready "$CTRL" 1
}
# gone NAME NQN: not in the log, no controller in any state.
gone() { entry_is "$1" "$2" absent && test "$(nqn_count "$2")" = 0; }

# nqn_count NQN: controllers of NQN, any state.
nqn_count() {
	local d n=0
	for d in /sys/class/nvfab/nvfab*; do
		[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$1" ] && n=$((n + 1))
	done
	echo "$n"
}
disc_ctrls() { nqn_count "$DISC_NQN"; }

fio_verify() { # dev name [extra fio args]
	local dev=$1 name=$2
	shift 2
	fio --name="$name" --filename="$dev" --allow_file_create=0 --ioengine=libaio \
		--direct=1 --rw=randrw --bsrange=4k-256k --iodepth=4 --size=32m \
		--time_based --runtime=3 --verify=crc32c --verify_fatal=1 \
		--verify_backlog=64 --do_verify=1 --output-format=terse \
		--terse-version=3 "$@" >"$TMP/fio-$name.out" 2>&1
}

# events RE...: uevents recorded so far that match every RE (in any order
# of the fields).
events() {
	local re out
	out=$(cat "$TMP/events" 2>/dev/null)
	for re; do
		out=$(grep -E -- "$re" <<<"$out")
	done
	grep -c . <<<"$out" || true
}

dmesg_canary_start
mkdir -p "$IMG"
NVMET_NS_COUNT=1
ok=1
{ topo_up 2 && nvmet_setup 1 && tgt_port 2 && tgt_subsys "$PFX-p2" &&
	tgt_link 2 "$PFX-p2"; } || ok=0
ktap_check "target: port 1 ($NVMET_NQN), port 2 ($PFX-p2)" test "$ok" = 1
ktap_check "modules load (nvfab-core, -fabrics, -tcp, -discovery)" \
	nvfab_load nvfab-core nvfab-fabrics nvfab-tcp nvfab-discovery
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
ktap_check "$DCFS exists" test -d "$DCFS"

python3 -B -S "$(dirname "$0")/uevent_listen.py" "$TMP/ready" "$TMP/events" 3600 \
	'discovery_*' &
LPID=$!
busywait 60000 test -e "$TMP/ready"

# --- the entry ------------------------------------------------------------------

E=$DCFS/d1
mkdir "$E"
attrs() { # ATTR...: their values, separated by "/"
	local a out=
	for a; do
		out+=/$(cat "$E/$a" 2>/dev/null)
	done
	echo "${out#/}"
}
defaults=$(attrs state connect disconnect max_inflight poll_interval kato nqn enable)
ktap_check "mkdir: disabled, the defaults ($defaults)" \
	test "$defaults" = "disabled/all/ours/8/60/30/$DISC_NQN/0"
err=$( (echo 1 >"$E/enable") 2>&1)
ktap_check "enable without transport and traddr: EINVAL" \
	test "${err#*Invalid argument}" != "$err"
# trsvcid unset: enable takes tcp's 8009 (nothing listens there: it
# keeps trying); enable 0 stops it
echo tcp >"$E/transport" && topo_tgt_addr 1 >"$E/traddr" && echo 1 >"$E/enable"
got=$(attrs trsvcid state)
echo 0 >"$E/enable"
default_port() { [[ $got == 8009/* && $got != */live && $(attrs state) == disabled ]]; }
ktap_check "enabled without trsvcid: 8009, not live (trsvcid/state: $got); enable 0: $(attrs state)" \
	default_port
rmdir "$E"
# poll off: whatever is seen below (until the poll checks) came by AEN or
# by the log read of a (re)connect
ktap_check "entry d1 on port 1 enabled (poll_interval 0)" disc_new d1 1 poll_interval=0
ktap_check "d1 live, with a discovery controller" busywait 30000 state_is d1 live
D1CTRL=$(cat "$E/ctrl" 2>/dev/null)
ktap_diag "d1: ctrl $D1CTRL, stats: $(cat "$E/stats" 2>/dev/null)"
ktap_check "the log lists port 1's current discovery subsystem as self" \
	grep -q -E "^subtype=current .* state=self ctrl=-$" "$E/log"
ktap_check "$NVMET_NQN (already on port 1) connected by itself" \
	busywait 60000 connected d1 "$NVMET_NQN"
DB=$DEV
ktap_check "fio verify on $NVMET_NQN ($DB)" fio_verify "$DB" b

# --- link / unlink --------------------------------------------------------------

A=$PFX-a
aens0=$(dstat d1 aens)
tgt_subsys "$A" && tgt_link 1 "$A"
ktap_check "$A linked to port 1: connected" busywait 60000 connected d1 "$A"
DA=$DEV
ktap_check "fio verify on $A ($DA)" fio_verify "$DA" a
aens1=$(dstat d1 aens)
ktap_check "it came by AEN (aens $aens0 -> $aens1, poll off)" test "$aens1" -gt "$aens0"
fio_verify "$DB" b-bg --runtime="$FIO_RUNTIME" &
FIOPID=$!
sleep 2
tgt_unlink 1 "$A"
ktap_check "$A unlinked: its controller gone (disconnect=ours)" busywait 60000 gone d1 "$A"
wait "$FIOPID"
rc=$?
FIOPID=
ktap_status "fio verify on $NVMET_NQN ran through $A's removal unharmed" "$rc" \
	sed 's/^/# fio: /' "$TMP/fio-b-bg.out"
ktap_check "$NVMET_NQN still connected" connected d1 "$NVMET_NQN"
# That removal ran with the default absent_reads (3: the entry went after
# the AEN's read and two re-reads 2 s apart). The rest of the test is
# about what happens once an entry is gone, not how many reads it takes
# (KUnit's disc_reconcile_absent_test is): 1, an entry goes at once.
absent_1() { test "$(cat "$MODP/absent_reads")" = 3 && echo 1 >"$MODP/absent_reads"; }
ktap_check "absent_reads: default $(cat "$MODP/absent_reads"), now 1" absent_1
sleep 1
re=("DEVPATH=[^ ]*/$D1CTRL( |$)" "NVFAB_DISC_NAME=d1( |$)" "NVFAB_SUBNQN=$A( |$)"
	"NVFAB_TRTYPE=tcp( |$)" "NVFAB_TRADDR=$(topo_tgt_addr 1)( |$)"
	"NVFAB_TRSVCID=$NVMET_TRSVCID( |$)")
ktap_check "uevent discovery_add for $A, on d1's controller $D1CTRL, with its address" \
	test "$(events "NVFAB_EVENT=discovery_add( |$)" "${re[@]}")" = 1
ktap_check "uevent discovery_remove for $A" \
	test "$(events "NVFAB_EVENT=discovery_remove( |$)" "${re[@]}")" = 1

# --- allowed_hosts ----------------------------------------------------------------

H=$PFX-h
tgt_subsys "$H" 0 && tgt_link 1 "$H"
sleep 3
ktap_check "$H linked, host not allowed: not in the log, not connected" gone d1 "$H"
mkdir -p "$NVMET_CFS/hosts/$HOSTNQN_T"
ln -s "$NVMET_CFS/hosts/$HOSTNQN_T" "$NVMET_CFS/subsystems/$H/allowed_hosts/$HOSTNQN_T"
ktap_check "host added to $H's allowed_hosts: connected" busywait 60000 connected d1 "$H"
rm -f "$NVMET_CFS/subsystems/$H/allowed_hosts/$HOSTNQN_T"
ktap_check "host removed from allowed_hosts: disconnected" busywait 60000 gone d1 "$H"
echo 1 >"$NVMET_CFS/subsystems/$H/attr_allow_any_host"
ktap_check "attr_allow_any_host 1: connected" busywait 60000 connected d1 "$H"
echo 0 >"$NVMET_CFS/subsystems/$H/attr_allow_any_host"
ktap_check "attr_allow_any_host 0: disconnected" busywait 60000 gone d1 "$H"
tgt_unlink 1 "$H"

# --- poll -------------------------------------------------------------------
# nvmet announces every change of the NVM and referral entries of a port
# (nvmet_port_disc_changed, nvmet_subsys_disc_changed) to each discovery
# controller on it that enabled the notice; nothing on the target turns
# that off. The one change it does not announce (no AEN, no GENCTR bump)
# is a new discovery_nqn: the "current" entry's SUBNQN. Only a poll sees it.
# (Written without a newline: 6.12's store returns the length without the
# newline, so echo's second write of the "\n" alone fails with EINVAL.)
NEWDISC=$PFX-renamed-discovery
aens0=$(dstat d1 aens) polls0=$(dstat d1 polls)
echo 2 >"$E/poll_interval"
printf %s "$NEWDISC" >"$NVMET_CFS/discovery_nqn"
self_renamed() { grep -q -E "^subtype=current .*subnqn=$NEWDISC " "$E/log"; }
ktap_check "poll_interval 2: the poll finds an unannounced change (discovery_nqn)" \
	busywait 30000 self_renamed
ktap_check "polls counted ($polls0 -> $(dstat d1 polls)), no AEN ($aens0 -> $(dstat d1 aens))" \
	test "$(dstat d1 polls)" -gt "$polls0" -a "$(dstat d1 aens)" = "$aens0"
printf %s "$DISC_NQN" >"$NVMET_CFS/discovery_nqn"
Q=$PFX-q
tgt_subsys "$Q" && tgt_link 1 "$Q"
ktap_check "poll_interval 2: $Q linked, connected" busywait 60000 connected d1 "$Q"
ktap_diag "polls $(dstat d1 polls), aens $aens0 -> $(dstat d1 aens): nvmet also announced $Q"
tgt_unlink 1 "$Q"
busywait 60000 gone d1 "$Q"
echo 0 >"$E/poll_interval"

# --- the discovery port down --------------------------------------------------
# Entry d2 on port 2 (path 2). The path goes down; keep-alive (kato $KATO)
# gives the discovery controller up; $P3 is linked to port 2 meanwhile
# (nvmet's AEN goes to the old connection, and is lost); after $DOWN_S s
# the path comes back and the reconnect's log read must find $P3.
P2=$PFX-p2 P3=$PFX-p3
d2_up() {
	disc_new d2 2 poll_interval=0 && busywait 30000 state_is d2 live &&
		busywait 60000 connected d2 "$P2"
}
d2_down() { ! state_is d2 live; }
ktap_check "entry d2 on port 2: live, $P2 connected" d2_up
D2CTRL=$(cat "$DCFS/d2/ctrl" 2>/dev/null)
aens0=$(dstat d2 aens) reads0=$(dstat d2 log_reads)
t0=$SECONDS
topo_cut 2
ktap_check "path 2 down: keep-alive (kato $KATO) finds it" \
	busywait $((6 * KATO * 1000)) d2_down
ktap_diag "d2 $(cat "$DCFS/d2/state") after $((SECONDS - t0)) s"
tgt_subsys "$P3" && tgt_link 2 "$P3"
left=$((DOWN_S - (SECONDS - t0)))
[ "$left" -le 0 ] || sleep "$left"
topo_restore 2
ktap_diag "path 2 was down $((SECONDS - t0)) s; $P3 linked meanwhile"
ktap_check "back up: the reconnect's log read finds $P3, connected" \
	busywait 90000 connected d2 "$P3"
ktap_check "no AEN for it (aens $aens0 -> $(dstat d2 aens)), log read again ($reads0 -> $(dstat d2 log_reads))" \
	test "$(dstat d2 aens)" = "$aens0" -a "$(dstat d2 log_reads)" -gt "$reads0"
rmdir "$DCFS/d2"
d2_removed() {
	busywait 30000 test ! -e "/sys/class/nvfab/$D2CTRL" &&
		test "$(nqn_count "$P2")" = 1 -a "$(nqn_count "$P3")" = 1
}
ktap_check "rmdir d2: its discovery controller ($D2CTRL) gone, the I/O controllers stay" d2_removed
for d in /sys/class/nvfab/nvfab*; do
	case "$(cat "$d/subsysnqn" 2>/dev/null)" in
	"$P2" | "$P3") echo 1 >"$d/delete_controller" ;;
	esac
done
p23_gone() { test "$(nqn_count "$P2")$(nqn_count "$P3")" = 00; }
busywait 30000 p23_gone

# --- referrals --------------------------------------------------------------
CHILD=d1@$(topo_tgt_addr 2):$NVMET_TRSVCID
tgt_referral 1 to-port2 2
ref_state() { # STATE: port 1's referral entry to port 2 in d1's log
	grep -q -E "^subtype=referral .*traddr=$(topo_tgt_addr 2) .* state=$1 " "$E/log"
}
ktap_check "referral on port 1 to port 2: followed" busywait 30000 ref_state followed
child_works() {
	grep -q -F "# referral $CHILD" "$E/log" && busywait 60000 connected d1 "$P2" &&
		busywait 60000 connected d1 "$P3"
}
ktap_check "the child $CHILD lists and connects $P2 and $P3" child_works
ktap_check "2 discovery controllers (d1, $CHILD)" test "$(disc_ctrls)" = 2
tgt_referral 2 to-port1 1
loop_state() { # STATE: port 2's referral back to port 1, under the child
	sed -n "/^# referral $CHILD/,\$p" "$E/log" |
		grep -q -E "^subtype=referral .*traddr=$(topo_tgt_addr 1) .* state=$1 "
}
ktap_check "referral loop (port 2 refers to port 1): a duplicate" busywait 30000 loop_state duplicate
sleep 3
ktap_check "each followed once: still 2 discovery controllers" test "$(disc_ctrls)" = 2
ktap_diag "d1 log:"
sed 's/^/#   /' "$E/log"
rmdir "$NVMET_CFS/ports/2/referrals/to-port1" "$NVMET_CFS/ports/1/referrals/to-port2"
no_referral() { ! grep -q "^subtype=referral" "$E/log"; }
busywait 30000 no_referral
ktap_diag "referrals removed: $(disc_ctrls) discovery controllers"

# --- storm ------------------------------------------------------------------
echo "$STORM_INFLIGHT" >"$E/max_inflight"
# storm_py make|link|unlink|remove: the $STORM subsystems $PFX-sNNN on
# the target, all at once (a fork per configfs write would take minutes
# under TCG): made with a namespace on a 1 MiB sparse file each, linked to
# port 1 (already listening), unlinked, removed.
storm_py() {
	python3 - "$1" "$STORM" "$PFX" "$NVMET_CFS" "$IMG" <<'PY'
import os
import sys

what, n, pfx, cfs, img = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]


def put(path, value):
    with open(path, "w") as f:
        f.write(value)


for i in range(1, n + 1):
    nqn = "%s-s%03d" % (pfx, i)
    sub = os.path.join(cfs, "subsystems", nqn)
    link = os.path.join(cfs, "ports", "1", "subsystems", nqn)
    if what == "make":
        os.makedirs(os.path.join(sub, "namespaces", "1"), exist_ok=True)
        put(os.path.join(sub, "attr_allow_any_host"), "1")
        f = os.path.join(img, "s%03d" % i)
        with open(f, "w") as fh:
            fh.truncate(1 << 20)
        put(os.path.join(sub, "namespaces", "1", "device_path"), f)
        put(os.path.join(sub, "namespaces", "1", "enable"), "1")
    elif what == "link":
        os.symlink(sub, link)
    elif what in ("unlink", "remove"):
        if os.path.islink(link):
            os.unlink(link)
        if what == "remove" and os.path.isdir(sub):
            put(os.path.join(sub, "namespaces", "1", "enable"), "0")
            os.rmdir(os.path.join(sub, "namespaces", "1"))
            os.rmdir(sub)
PY
}
storm_connected() {
	test "$(grep -a -c -E "subnqn=$PFX-s[0-9]+ .* state=connected " "$E/log")" = "$STORM"
}
storm_gone() {
	! grep -a -q -E "subnqn=$PFX-s[0-9]+ " "$E/log" &&
		test "$(grep -l -E "^$PFX-s[0-9]+$" /sys/class/nvfab/nvfab*/subsysnqn 2>/dev/null | wc -l)" = 0
}
storm_py make
ktap_check "$STORM subsystems made on the target (1 MiB sparse file each)" test "$?" = 0
peak0=$(cat "$MODP/inflight_peak" 2>/dev/null)
t0=$(date +%s%3N)
storm_py link
t1=$(date +%s%3N)
ktap_check "$STORM subsystems linked to port 1 in $((t1 - t0)) ms: all connected" \
	busywait 900000 storm_connected
t2=$(date +%s%3N)
ktap_diag "$STORM subsystems connected $((t2 - t0)) ms after the first link ($((t2 - t1)) ms after the last)"
heads=$(find /dev -maxdepth 1 -name 'nvfab*n1' | wc -l)
ktap_diag "stats: $(cat "$E/stats"); module inflight_peak $peak0 -> $(cat "$MODP/inflight_peak"), max_inflight $(cat "$MODP/max_inflight")"
ktap_check "in-flight peak $(dstat d1 inflight_peak) <= max_inflight $STORM_INFLIGHT" \
	test "$(dstat d1 inflight_peak)" -ge 1 -a "$(dstat d1 inflight_peak)" -le "$STORM_INFLIGHT"
ktap_check "module inflight_peak $(cat "$MODP/inflight_peak") <= its max_inflight" \
	test "$(cat "$MODP/inflight_peak")" -le "$(cat "$MODP/max_inflight")"
ktap_check "a block device per subsystem ($heads nvfab*n1 for $((STORM + 1)))" \
	test "$heads" -ge $((STORM + 1))
t0=$(date +%s%3N)
storm_py unlink
ktap_check "all $STORM unlinked: their controllers gone" busywait 900000 storm_gone
ktap_diag "$STORM subsystems removed $(($(date +%s%3N) - t0)) ms after the first unlink"

# --- rmdir while reconciling, rmmod at once -------------------------------------
# One connect at a time, and the relink in the background: the connects
# start with the first link's AEN, and under TCG the 40 links can take
# longer than the 40 connects (one run waited 120 s for a connect in
# flight after the link had returned: all 40 were done).
echo 1 >"$E/max_inflight"
c0=$(dstat d1 connects)
storm_py link &
LINKPID=$!
in_flight() { test "$(dstat d1 inflight)" -gt 0; }
ktap_check "the relinked subsystems: a connect in flight" busywait 60000 in_flight
ktap_diag "rmdir with $(dstat d1 inflight) connects in flight, $(($(dstat d1 connects) - c0)) of the relink's $STORM done"
t0=$(date +%s%3N)
ktap_check "rmdir d1 while it connects" rmdir "$E"
ktap_diag "rmdir took $(($(date +%s%3N) - t0)) ms"
wait "$LINKPID"
ktap_check "rmmod nvfab-discovery right after" nvfab_unload nvfab-discovery
ktap_check "no discovery controller left" busywait 30000 test "$(disc_ctrls)" = 0
kill "$LPID" 2>/dev/null
LPID=
ktap_diag "uevents: $(events discovery_add) discovery_add, $(events discovery_remove) discovery_remove, $(events discovery_connect_failed) discovery_connect_failed"
ktap_check "every controller deleted" nvfab_delete_all
storm_py remove
ktap_check "modules unload" nvfab_unload nvfab-tcp nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
