#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nvfabctl against the real /dev/nvfab-fabrics and sysfs. First with no
# transport registered: connect fails with the errno the kernel gives and
# a message that says why; list and disconnect handle "no controllers".
# Then against nvmet over NVMe/TCP: a second identical connect is refused
# unless -D; show-topology, list and list-subsys -o json parse and have
# nvme-cli's members (tools/nvfabctl/tests/fixtures); disconnect -n counts
# the controllers, and 0 when repeated. discover reads nvmet's Discovery
# Log Page through a discovery controller of its own (deleted after, kept
# with -p, used again when live), in both formats; connect-all finds the
# subsystem connected, and connects it once it is not. discovery add
# makes a persistent entry of nvfab-discovery, which connects the
# subsystem by itself; list shows it, remove takes it away (the I/O
# controller stays). Nothing is left behind and the kernel log stays
# clean.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"

BIN="$REPO/tools/nvfabctl/nvfabctl"
KEYS="$REPO/tools/nvfabctl/tests/json_keys.py"
FIX="$REPO/tools/nvfabctl/tests/fixtures"
NQN=nqn.2014-08.org.example:nvfabctl
UUID=3fa85f64-5717-4562-b3fc-2c963f66afa6
TMP=

MODPROBE=
cleanup() {
	[ -z "$MODPROBE" ] || echo "$MODPROBE" >/proc/sys/kernel/modprobe
	rmdir /sys/kernel/config/nvfab/discovery/nvfabctl-t 2>/dev/null
	nvfab_unload nvfab-discovery >/dev/null 2>&1
	nvfab_tcp_cleanup
	[ -z "$TMP" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' TERM INT	# the runner's timeout: still clean up

require_root
[ -x "$BIN" ] || ksft_skip_all "nvfabctl not built (make -C tools/nvfabctl)"
TMP=$(mktemp -d)
mkdir -p "$TMP/etc-empty" "$TMP/etc-both"
echo "nqn.2014-08.org.nvmexpress:uuid:$UUID" >"$TMP/etc-both/hostnqn"
echo "$UUID" >"$TMP/etc-both/hostid"
# The real device and sysfs; the host identity under test's control.
unset NVFAB_FABRICS_DEV NVFAB_SYSFS NVFAB_DEV_DIR
export NVFAB_ETC_NVME=$TMP/etc-both

# The connects must find no transport: module nvfab-tcp unloaded and, as
# the stock guest has it installed (DKMS), the kernel's module loader
# (kernel.modprobe) pointed at /bin/true until those connects are done
# (or cleanup). nvfabctl itself refuses a transport name nvfab does not
# have, so that cannot stand for a missing module.
T=tcp
MODPROBE=$(cat /proc/sys/kernel/modprobe)
nvfab_unload nvfab-tcp >/dev/null 2>&1
echo /bin/true >/proc/sys/kernel/modprobe
CONNECT=(connect -t "$T" -a 192.0.2.2 -s 4420 -n "$NQN")

# run ARGS...: sets RC, OUT, ERR; stdout stays in $TMP/out.
run() {
	"$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	ktap_diag "nvfabctl $* -> rc=$RC"
	sed -n '1,12s/^/# out: /p' "$TMP/out"
	sed 's/^/# err: /' "$TMP/err"
}

# One stderr line "nvfabctl: VERB: ...TEXT...", exit status 1, no stdout.
failed_with() { # verb text
	[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$(echo "$ERR" | wc -l)" = 1 ] &&
		[[ "$ERR" == "nvfabctl: $1: "*"$2"* ]]
}

# Exit status 0, stdout OUT exactly, nothing on stderr.
succeeded_with() { # out
	[ "$RC" = 0 ] && [ "$OUT" = "$1" ] && [ -z "$ERR" ]
}

# disconnect -n NQN found no controller: nvme-cli's line, status 0, and
# a warning that nothing was disconnected (a misspelt NQN shows).
none_to_disconnect() { # nqn
	[ "$RC" = 0 ] && [ "$OUT" = "NQN:$1 disconnected 0 controller(s)" ] &&
		[[ "$ERR" == "nvfabctl: disconnect: warning: no controller of subsystem $1: nothing to disconnect"* ]]
}

# The kernel log after MARK has no line from nvfab-fabrics.
no_fabrics_log_since() {
	! dmesg_since "$1" | grep -q 'nvfab_fabrics:'
}

# json_has FIXTURE: $TMP/out has every member nvme-cli's FIXTURE has.
json_has() {
	python3 "$KEYS" "$FIX/$1" "$TMP/out" | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" = 0 ]
}

ktap_header
ktap_set_plan 63
ktap_diag "transport under test: $T"

nvfab_load nvfab-core nvfab-fabrics || {
	ktap_diag "cannot load modules"
	exit $KSFT_FAIL
}
dmesg_canary_start

mark=$(dmesg_mark)
run "${CONNECT[@]}"
ktap_check "connect without a transport fails" test "$RC" != 0
ktap_check "its message names the missing transport module" failed_with connect \
	"Protocol not supported (no transport module nvfab-$T loaded)"
ktap_check "log says why" dmesg_has_since "$mark" "no transport '$T'"

mark=$(dmesg_mark)
run "${CONNECT[@]}" -Q 8
ktap_check "connect -Q 8: refused by nvfabctl with the kernel's range" \
	failed_with connect \
	"invalid --queue-size 8: out of range, 16 to 1024 (option queue_size)"
ktap_check "... before anything reached the kernel" no_fabrics_log_since "$mark"

# A refusal only the kernel can make (the key serial names no key): the
# kernel's own message, which names the option, not "see dmesg".
run "${CONNECT[@]}" --tls-key 123
ktap_check "a refusal of the kernel quotes its log line, naming the option" \
	failed_with connect "(kernel: nvfab_fabrics: option 'tls_key'"

mark=$(dmesg_mark)
NVFAB_ETC_NVME=$TMP/etc-both run "${CONNECT[@]}" -i 2 -W 1 -P 1 -Q 32 -k 0 \
	-c 5 -l 60 -F 10 -T 0 -D -d -g -G
ktap_check "hostnqn, hostid and every flag pass the parser (EPROTONOSUPPORT)" \
	failed_with connect "Protocol not supported"
ktap_check "the parser logged nothing but the missing transport" \
	test "$(dmesg_since "$mark" | grep 'nvfab_fabrics:' | grep -vc "no transport '$T'")" = 0

mark=$(dmesg_mark)
NVFAB_ETC_NVME=$TMP/etc-empty run "${CONNECT[@]}" -q nqn.2014-08.org.example:lonely
ktap_check "a lone --hostnqn is refused before the kernel" failed_with connect \
	"--hostnqn needs --hostid"
ktap_check "nothing was written to the device" no_fabrics_log_since "$mark"

NVFAB_ETC_NVME=$TMP/etc-empty run "${CONNECT[@]}"
warned_noid() {
	[ "$RC" = 1 ] && [ "$(grep -c 'host ACLs on the target will break after a reload; fix: nvfabctl gen-hostnqn > ' "$TMP/err")" = 1 ]
}
ktap_check "no host identity: a warning that ACLs break after a reload, and the fix" \
	warned_noid

run list
ktap_check "list without controllers prints nothing" succeeded_with ""
run list -o json
ktap_check "list -o json without controllers: no Devices" succeeded_with '{
  "Devices": []
}'

run disconnect -d nvfab99
ktap_check "disconnect -d nvfab99 fails cleanly" failed_with disconnect \
	"no such controller: nvfab99"
run disconnect -n "$NQN"
ktap_check "disconnect -n of an NQN without controllers: 0, success, a warning" \
	none_to_disconnect "$NQN"
run disconnect-all
ktap_check "disconnect-all without controllers succeeds" succeeded_with ""

ktap_check "refcnt back to 0" test "$(nvfab_refcnt nvfab-fabrics)" = 0
ktap_check "modules unload" nvfab_unload nvfab-fabrics nvfab-core
# the kernel loads modules again (nvmet, crypto algorithms, nvfab-tcp)
echo "$MODPROBE" >/proc/sys/kernel/modprobe
MODPROBE=

# --- against nvmet over NVMe/TCP ---------------------------------------------
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$UUID
TCP=(connect -t tcp -a "$(topo_tgt_addr 1)" -s "$NVMET_TRSVCID"
	-w "$(topo_host_addr 1)" -n "$NVMET_NQN")
target_up() {
	topo_up 1 && nvmet_setup 1 && nvfab_load nvfab-core nvfab-fabrics nvfab-tcp
}
# connected: the last run printed a new controller nvfabN and nothing else.
connected() { [ "$RC" = 0 ] && [[ "$OUT" =~ ^nvfab[0-9]+$ ]] && [ -z "$ERR" ]; }
ctrl_live() { test "$(cat "/sys/class/nvfab/$1/state" 2>/dev/null)" = live; }
ready() { # CTRL: live, and the heads of NSIDs 1 and 2 have their nodes
	ctrl_live "$1" && nvfab_head_ready "/sys/class/nvfab/$1" 1 &&
		nvfab_head_ready "/sys/class/nvfab/$1" 2
}
refused_early() { # still one controller, and the kernel saw nothing
	test "$(nvfab_ctrl_count)" = 1 && no_fabrics_log_since "$mark"
}
paths4() { # both controllers are paths of both namespaces
	local n=0 d
	for d in /sys/block/nvfab*c*n*; do
		[ -e "$d" ] && n=$((n + 1))
	done
	[ "$n" = 4 ]
}
ktap_check "target up, nvfab-tcp loaded" target_up
run "${TCP[@]}"
C1=$OUT
ktap_check "connect prints the new controller" connected
busywait 20000 ready "$C1"
ktap_check "$C1 live with namespaces 1 and 2" ready "$C1"

mark=$(dmesg_mark)
run "${TCP[@]}"
ktap_check "the same connect again: already connected" failed_with connect \
	"already connected: $C1 (--duplicate-connect to connect again)"
ktap_check "... refused before the kernel: still one controller" refused_early
run "${TCP[@]}" -D
C2=$OUT
ktap_check "-D connects a second controller" connected
busywait 20000 ctrl_live "$C2"
busywait 20000 paths4
second_path() { test "$C2" != "$C1" && ctrl_live "$C2" && paths4; }
ktap_check "$C2 live, both controllers paths of both namespaces" second_path

run show-topology -o json
ktap_check "show-topology -o json: one host (our identity), the subsystem, NSIDs 1 and 2, each through $C1 and $C2 as sysfs says" \
	python3 -c '
import json, sys
hostnqn, uuid, nqn, c1, c2 = sys.argv[1:6]
d = json.load(open(sys.argv[6]))
subs = d[0]["Subsystems"]
ns = subs[0]["Namespaces"]
def sysfs(p, a):
    return open("/sys/block/%s/%s" % (p, a)).read().strip()
ok = (len(d) == 1 and d[0]["HostNQN"] == hostnqn and d[0]["HostID"] == uuid and
      len(subs) == 1 and subs[0]["NQN"] == nqn and
      sorted(n["NSID"] for n in ns) == [1, 2] and
      all(sorted(p["Name"] for p in n["Paths"]) == sorted([c1, c2]) and
          all(p["State"] == "live" and p["Transport"] == "tcp" and
              p["Controller"][0]["Name"] == p["Name"] and
              p["ANAState"] == sysfs(p["Path"], "ana_state") for p in n["Paths"])
          for n in ns))
sys.exit(0 if ok else 1)' "$HOSTNQN" "$UUID" "$NVMET_NQN" "$C1" "$C2" "$TMP/out"
ktap_check "show-topology -o json has nvme-cli 2.3's members" \
	json_has nvme-cli-show-topology-2.3.json
ktap_check "show-topology -o json has later nvme-cli 2.x's members" \
	json_has nvme-cli-show-topology.json
run show-topology
topo_layout() {
	[ "$RC" = 0 ] && grep -qx " +- ns 1" "$TMP/out" &&
		grep -q "^  +- $C1 tcp traddr=$(topo_tgt_addr 1),trsvcid=$NVMET_TRSVCID" "$TMP/out"
}
ktap_check "show-topology: nvme-cli's layout" topo_layout

run list -o json
ktap_check "list -o json: nvme-cli's members for both namespaces, sizes from Identify" \
	python3 -c '
import json, os, stat, sys
d = json.load(open(sys.argv[1]))["Devices"]
keys = {"NameSpace", "DevicePath", "GenericPath", "Firmware", "ModelNumber",
        "SerialNumber", "UsedBytes", "MaximumLBA", "PhysicalSize", "SectorSize"}
def size(x):
    n = x["DevicePath"][5:]
    return int(open("/sys/block/%s/size" % n).read()) * 512
ok = (len(d) == 2 and all(keys <= set(x) for x in d) and
      sorted(x["NameSpace"] for x in d) == [1, 2] and
      all(stat.S_ISBLK(os.stat(x["DevicePath"]).st_mode) and
          x["ModelNumber"] == "nvfab-nvmet" and x["SectorSize"] == 4096 and
          isinstance(x["UsedBytes"], int) and x["PhysicalSize"] == size(x) and
          x["MaximumLBA"] * 4096 == size(x) for x in d))
sys.exit(0 if ok else 1)' "$TMP/out"
ktap_check "list -o json has nvme-cli's members" json_has nvme-cli-list.json
run list -v -o json
ktap_check "list -v -o json has nvme-cli's members" json_has nvme-cli-list-verbose.json
run list-subsys -o json
ktap_check "list-subsys -o json has nvme-cli's members" json_has nvme-cli-list-subsys.json

# status: exit 0 while each namespace has a live optimized path, 2 when
# the target makes every path non-optimized, 0 again after.
status_is() { # EXIT-STATUS SUMMARY-LINE
	"$BIN" status >"$TMP/out" 2>"$TMP/err"
	[ $? = "$1" ] && [ "$(tail -1 "$TMP/out")" = "$2" ]
}
ktap_check "status: both namespaces ok, two live optimized paths each, exit 0" \
	busywait 20000 status_is 0 "2 namespaces: 2 ok, 0 without a live optimized path"
grep -c ': ok, 2 of 2 paths live and optimized$' "$TMP/out" | grep -qx 2 ||
	sed 's/^/# status: /' "$TMP/out"
nvmet_set_ana 1 non-optimized
nvmet_set_ana 2 non-optimized
ktap_check "status: every path non-optimized: exit 2, each namespace named" \
	busywait 20000 status_is 2 "2 namespaces: 0 ok, 2 without a live optimized path"
nvmet_set_ana 1 optimized
nvmet_set_ana 2 optimized
ktap_check "status: optimized again: exit 0" \
	busywait 20000 status_is 0 "2 namespaces: 2 ok, 0 without a live optimized path"

# The diag counters as status shows them, from the real sysfs: a
# reset_controller of $C2 counts once there and not on $C1; every path's
# counters are sysfs's.
diag() { cat "/sys/class/nvfab/$1/diag/$2"; }
r1=$(diag "$C1" reset_count)
r2=$(diag "$C2" reset_count)
echo 1 >"/sys/class/nvfab/$C2/reset_controller"
busywait 20000 ctrl_live "$C2"
busywait 20000 paths4
run status -o json
ktap_check "status -o json: $C2's reset_count $r2 -> $((r2 + 1)), $C1's stays $r1, each path's and head's diag counters as in sysfs" \
	python3 -c '
import json, sys
c1, c2, r1, r2 = sys.argv[1:5]
d = json.load(open(sys.argv[5]))
def sysfs(p):
    return int(open(p).read())
subs = d["Subsystems"]
ctrls = {c["Name"]: c for s in subs for c in s["Controllers"]}
paths = [p for s in subs for n in s["Namespaces"] for p in n["Paths"]]
ok = (ctrls[c2]["reset_count"] == int(r2) + 1 and
      ctrls[c1]["reset_count"] == int(r1) and
      ctrls[c2]["reconnect_count"] ==
      sysfs("/sys/class/nvfab/%s/diag/reconnect_count" % c2) and
      len(paths) == 4 and
      all(p[k] == sysfs("/sys/block/%s/diag/%s" % (p["Name"], k))
          for p in paths for k in ("command_error_count", "command_retry_count",
                                   "multipath_failover_count")) and
      all(n[k] == sysfs("/sys/block/%s/diag/%s" % (n["Name"], k))
          for s in subs for n in s["Namespaces"]
          for k in ("io_requeue_no_usable_path_count",
                    "io_fail_no_available_path_count")))
sys.exit(0 if ok else 1)' "$C1" "$C2" "$r1" "$r2" "$TMP/out"
run status
ktap_check "status: the reset shows in the text view ($C2 resets $((r2 + 1)))" \
	grep -q "$C2 resets $((r2 + 1)) " "$TMP/out"

# Beside the in-kernel host (nvfab-multipath.rst, "Beside nvme-cli and
# dm-multipath"): a connect to a subsystem that nvme-cli connected too
# warns, names it, and connects.
if command -v nvme >/dev/null && modprobe -q nvme-tcp &&
	timeout 30 nvme connect -t tcp -a "$(topo_tgt_addr 1)" -s "$NVMET_TRSVCID" \
		-w "$(topo_host_addr 1)" -n "$NVMET_NQN" >"$TMP/nvme" 2>&1; then
	run "${TCP[@]}" -D
	C3=$OUT
	coexist_warned() {
		[ "$RC" = 0 ] && [[ "$OUT" =~ ^nvfab[0-9]+$ ]] &&
			grep -q "subsystem $NVMET_NQN is also connected by the in-kernel NVMe host (nvme-subsys[0-9]*)" "$TMP/err"
	}
	ktap_check "connect beside the in-kernel host: a warning naming its nvme-subsys, then connected" \
		coexist_warned
	timeout 30 nvme disconnect -n "$NVMET_NQN" >/dev/null 2>&1
	[[ "$C3" =~ ^nvfab[0-9]+$ ]] && run disconnect -d "$C3"
	busywait 20000 paths4
else
	sed 's/^/# nvme connect: /' "$TMP/nvme" 2>/dev/null
	ktap_skip "connect beside the in-kernel host" "no nvme-cli or nvme-tcp here"
fi

# --- discover and connect-all against nvmet's discovery controller ------------
DISC=(-t tcp -a "$(topo_tgt_addr 1)" -s "$NVMET_TRSVCID" -w "$(topo_host_addr 1)")
ctrls_are() { test "$(nvfab_ctrl_count)" = "$1"; }
run discover "${DISC[@]}"
disc_lists() {
	[ "$RC" = 0 ] && grep -qx "subnqn:  $NVMET_NQN" "$TMP/out" &&
		grep -qx "traddr:  $(topo_tgt_addr 1)" "$TMP/out" &&
		grep -qx "trsvcid: $NVMET_TRSVCID" "$TMP/out" &&
		grep -q "^Discovery Log Number of Records [1-9]" "$TMP/out" &&
		! grep -q "left out" "$TMP/err"
}
ktap_check "discover: nvmet's log lists the subsystem, every entry valid" disc_lists
busywait 20000 ctrls_are 2
ktap_check "discover: its discovery controller is deleted again" ctrls_are 2
run discover "${DISC[@]}" -o json
ktap_check "discover -o json: nvme-cli's shape, the subsystem's record" \
	python3 -c '
import json, sys
nqn, addr, port = sys.argv[1:4]
d = json.load(open(sys.argv[4]))
r = [e for e in d["records"] if e["subnqn"] == nqn]
ok = (isinstance(d["genctr"], int) and len(r) == 1 and
      r[0]["trtype"] == "tcp" and r[0]["adrfam"] == "ipv4" and
      r[0]["subtype"] == "nvme subsystem" and r[0]["traddr"] == addr and
      r[0]["trsvcid"] == port and "sectype" in r[0])
sys.exit(0 if ok else 1)' "$NVMET_NQN" "$(topo_tgt_addr 1)" "$NVMET_TRSVCID" "$TMP/out"
run discover "${DISC[@]}" -p
P=$(sed -n 's/^nvfabctl: discover: persistent discovery controller //p' "$TMP/err")
ktap_check "discover -p: the discovery controller stays" ctrl_live "${P:-none}"
run discover -d "${P:-none}" -o json
ktap_check "discover -d: the log through that controller" \
	grep -q "\"subnqn\": \"$NVMET_NQN\"" "$TMP/out"
run discover "${DISC[@]}"
ktap_check "discover: the live discovery controller is used, not a new one" \
	test "$RC" = 0 -a "$(nvfab_ctrl_count)" = 3
run connect-all "${DISC[@]}"
ca_already() {
	[ "$RC" = 0 ] && grep -qE "^already-connected nvfab[0-9]+ $NVMET_NQN tcp $(topo_tgt_addr 1) $NVMET_TRSVCID\$" "$TMP/out"
}
ktap_check "connect-all: the subsystem is connected already" ca_already
[ -n "$P" ] && echo 1 >"/sys/class/nvfab/$P/delete_controller"
busywait 20000 ctrls_are 2
ktap_check "the persistent discovery controller deleted" ctrls_are 2

run disconnect -n "$NVMET_NQN"
ktap_check "disconnect -n: both controllers" \
	succeeded_with "NQN:$NVMET_NQN disconnected 2 controller(s)"
no_ctrls() { test "$(nvfab_ctrl_count)" = 0; }
busywait 30000 no_ctrls
ktap_check "no controller left" no_ctrls
run disconnect -n "$NVMET_NQN"
ktap_check "disconnect -n again: 0 controller(s), success, a warning" \
	none_to_disconnect "$NVMET_NQN"
run connect-all "${DISC[@]}" -i 1
CA=$(sed -n "s/^connected \(nvfab[0-9]*\) $NVMET_NQN tcp .*/\1/p" "$TMP/out")
ktap_check "connect-all: the subsystem connected" test "$RC" = 0 -a -n "$CA"
busywait 20000 ready "${CA:-none}"
ktap_check "connect-all: ${CA:-its controller} live with its namespaces, the discovery controller gone" \
	test "$(nvfab_ctrl_count)" = 1 -a -n "$CA"
run disconnect -n "$NVMET_NQN"
ktap_check "disconnect -n: the controller of connect-all" \
	succeeded_with "NQN:$NVMET_NQN disconnected 1 controller(s)"
busywait 30000 no_ctrls

# --- discovery add, list, remove: nvfab-discovery's configfs ------------------
DE=/sys/kernel/config/nvfab/discovery/nvfabctl-t
ktap_check "nvfab-discovery loads" nvfab_load nvfab-discovery
run discovery add nvfabctl-t "${DISC[@]}" --poll-interval 5 --max-inflight 2
ktap_check "discovery add: the entry made and enabled" \
	test "$RC" = 0 -a "$(cat "$DE/enable" 2>/dev/null)" = 1
entry_connected() { # the entry live, the subsystem connected by it
	[ "$(cat "$DE/state" 2>/dev/null)" = live ] &&
		grep -q "subnqn=$NVMET_NQN .*state=connected ctrl=nvfab" "$DE/log" 2>/dev/null
}
busywait 30000 entry_connected
ktap_check "the kernel connected the subsystem by itself" entry_connected
run discovery list -o json
ktap_check "discovery list -o json: the entry, live, its log with the subsystem connected" \
	python3 -c '
import json, sys
nqn, addr = sys.argv[1:3]
d = json.load(open(sys.argv[3]))["discovery"]
e = [x for x in d if x["name"] == "nvfabctl-t"]
ok = (len(e) == 1 and e[0]["state"] == "live" and e[0]["traddr"] == addr and
      e[0]["ctrl"].startswith("nvfab") and e[0]["max_inflight"] == "2" and
      e[0]["stats"]["connects"] >= 1 and
      any(l.get("subnqn") == nqn and l.get("state") == "connected"
          for l in e[0]["log"]))
sys.exit(0 if ok else 1)' "$NVMET_NQN" "$(topo_tgt_addr 1)" "$TMP/out"
run discovery remove nvfabctl-t
ktap_check "discovery remove: the entry gone" test "$RC" = 0 -a ! -e "$DE"
one_io_ctrl() { ctrls_are 1 && [ "$(cat /sys/class/nvfab/nvfab*/subsysnqn)" = "$NVMET_NQN" ]; }
busywait 20000 one_io_ctrl
ktap_check "... its discovery controller deleted, the I/O controller stays" one_io_ctrl
ktap_check "nvfab-discovery unloads" nvfab_unload nvfab-discovery
run disconnect -n "$NVMET_NQN"
ktap_check "disconnect -n: the controller nvfab-discovery made" \
	succeeded_with "NQN:$NVMET_NQN disconnected 1 controller(s)"
busywait 30000 no_ctrls
ktap_check "modules unload" nvfab_unload nvfab-tcp nvfab-fabrics nvfab-core
topo_cleanup >/dev/null 2>&1

ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
