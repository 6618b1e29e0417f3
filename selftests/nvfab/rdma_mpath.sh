#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multipath across mixed transports: one NVMe/TCP path (the topology's
# path 1, nvmet port 1) and one NVMe/RDMA path (soft RoCE, nvmet-rdma port
# $RDMA_PORT_ID) to the same subsystem, both connected with nvfabctl, are
# two paths of one head. For every selector (numa, round-robin,
# queue-depth, service-time, each set under I/O) the ANA states of the
# two ports rotate under one fio verify that runs through all selectors,
# and the per-path routed_ios counters show that no I/O went
# to an unusable path, nor to a non-optimized one while an optimized one
# was there. Then the head works whatever mix is live: tcp only (the rdma
# controller disconnected under fio), rdma only (the tcp one
# disconnected under fio), both again. nvfabctl list and disconnect
# handle the rdma controller; everything unloads and the kernel log stays
# clean.
#
# Environment: NVFAB_ANA_PHASE (seconds of I/O per ANA phase, default 1),
# NVFAB_FIO_RUNTIME (the fio runs of the mix part, default 3).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tcp_lib.sh"
. "$(dirname "$0")/rdma_lib.sh"

PHASE=${NVFAB_ANA_PHASE:-1}
FIO_RUNTIME=${NVFAB_FIO_RUNTIME:-3}
BIN="$REPO/tools/nvfabctl/nvfabctl"
SELECTORS=(numa round-robin queue-depth service-time)
FIOPID=
TMP=

cleanup() {
	[ -n "$FIOPID" ] && kill "$FIOPID" 2>/dev/null && wait "$FIOPID" 2>/dev/null
	nvfab_clean_dev
	nvfab_delete_all >/dev/null 2>&1
	nvfab_unload nvfab-ps-service-time >/dev/null 2>&1
	nvfab_rdma_cleanup
	[ -z "$TMP" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' TERM INT	# the runner's timeout: still clean up

require_root
command -v fio >/dev/null || ksft_skip_all "fio missing"
command -v rdma >/dev/null || ksft_skip_all "rdma (iproute2) missing"
[ -x "$BIN" ] || ksft_skip_all "nvfabctl not built (make -C tools/nvfabctl)"
modprobe -n rdma_rxe 2>/dev/null || ksft_skip_all "no rdma_rxe module"
modprobe -n nvmet-rdma 2>/dev/null || ksft_skip_all "no nvmet-rdma module"
TMP=$(mktemp -d /run/nvfab-rdma-mpath.XXXXXX)
# One host identity for both paths, whatever /etc/nvme holds.
UUID=5b0c6a3e-2f41-4d8a-9c7e-1e2d3f4a5b6c
echo "nqn.2014-08.org.nvmexpress:uuid:$UUID" >"$TMP/hostnqn"
echo "$UUID" >"$TMP/hostid"
unset NVFAB_FABRICS_DEV NVFAB_SYSFS NVFAB_DEV_DIR
export NVFAB_ETC_NVME=$TMP

# Builtins only in what runs under fio: a fork takes about a second in
# the KASAN guest while fio runs. lib.sh's nap sleeps; waitfor TIMEOUT_S
# CMD... polls CMD every 50 ms.
waitfor() {
	local t=${EPOCHREALTIME/[.,]/} end
	end=$((t + $1 * 1000000))
	shift
	until "$@"; do
		t=${EPOCHREALTIME/[.,]/}
		[ "$t" -lt "$end" ] || return 1
		nap 0.05
	done
}

# service-time is loaded by hand when it is there: the test guest cannot
# autoload from a build directory.
have_st=0
if [ -n "$(nvfab_mod_path nvfab-ps-service-time)" ] ||
	modprobe -n -q nvfab-ps-service-time 2>/dev/null; then
	have_st=1
fi

ktap_header
ktap_set_plan 35

TCP_PORT=1
CT=			# /sys/class/nvfab/nvfabN of the tcp path
CR=			# ... of the rdma path
SUB=			# the subsystem's sysfs directory
H=			# /sys/block/<head of NSID 1>
PT=			# sysfs dir of NSID 1's path disk through CT
PR=			# ... through CR

# ctl ARGS...: run nvfabctl; sets RC, OUT, ERR.
ctl() {
	local o e
	"$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(<"$TMP/out")
	ERR=$(<"$TMP/err")
	# one diagnostic line: newlines and runs of blanks squeezed
	o=$(tr -s '\n\t ' '   ' <"$TMP/out")
	e=$(tr -s '\n\t ' '   ' <"$TMP/err")
	o=${o% } e=${e% }
	ktap_diag "nvfabctl $* -> rc=$RC${o:+ out: ${o:0:100}}${e:+ err: $e}"
}
TCP_ARGS=(-t tcp -a "$(topo_tgt_addr 1)" -s "$NVMET_TRSVCID"
	-w "$(topo_host_addr 1)" -n "$NVMET_NQN" -i 2)
RDMA_ARGS=(-t rdma -a "$RDMA_ADDR" -s "$NVMET_TRSVCID" -w "$RDMA_ADDR"
	-n "$NVMET_NQN" -i 2)

ctrl_live() { local v; read -r v <"$1/state" 2>/dev/null && [ "$v" = live ]; }
has_paths() {
	local l n=0
	for l in "$H"/multipath/*; do
		[ -e "$l" ] && n=$((n + 1))
	done
	[ "$n" = "$1" ]
}
# path_disk CTRLDIR: sysfs dir of NSID 1's path disk through that controller.
path_disk() {
	local c=${1##*/nvfab} l
	for l in "$H"/multipath/*; do
		case "${l##*/}" in *c"${c}"n*) echo "/sys/block/${l##*/}"; return 0 ;; esac
	done
	return 1
}

# nvfabctl_connect VAR ARGS...: nvfabctl connect ARGS; on success VAR is
# the new controller's sysfs dir, live, a path of the head ($H, found from
# it when not known yet).
nvfabctl_connect() {
	local var=$1 c
	shift
	ctl connect "$@"
	[ "$RC" = 0 ] && [[ "$OUT" =~ ^nvfab[0-9]+$ ]] && [ -z "$ERR" ] || return 1
	c=/sys/class/nvfab/$OUT
	printf -v "$var" '%s' "$c"
	waitfor 30 ctrl_live "$c" && waitfor 30 nvfab_head_ready "$c" 1 || return 1
	[ -n "$H" ] || H=/sys/block/${DEV#/dev/}
	waitfor 30 path_disk "$c" >/dev/null
}

# nvfabctl_disconnect CTRLDIR: nvfabctl disconnect -d nvfabN; the
# controller goes away.
gone() { [ ! -e "$1" ]; }
nvfabctl_disconnect() {
	ctl disconnect -d "${1##*/}"
	[ "$RC" = 0 ] && [ -z "$ERR" ] && waitfor 30 gone "$1"
}

# snap: the routed_ios of the tcp and the rdma path in RT, RR.
RT=0 RR=0
snap() { read -r RT <"$PT/routed_ios" && read -r RR <"$PR/routed_ios"; }

# fio_bg NAME RUNTIME [args]: fio verify on the head in the background.
fio_bg() {
	local name=$1 rt=$2
	shift 2
	fio --name="$name" --filename="$DEV" --allow_file_create=0 \
		--ioengine=libaio --direct=1 --rw=randrw --bs=4k --iodepth=8 \
		--size=32m --time_based --runtime="$rt" --verify=crc32c \
		--verify_fatal=1 --verify_backlog=32 \
		--output-format=terse --terse-version=3 "$@" \
		>"$TMP/fio-$name.out" 2>&1 &
	FIOPID=$!
}
# fio_clean NAME RC: fio ended with RC (0, or 128 when we stopped it with
# SIGINT), reported no error (terse field 5) and no verify failure.
fio_clean() {
	local name=$1 rc=$2 err
	err=$(awk -F';' '$1 == 3 { print $5 }' "$TMP/fio-$name.out")
	if { [ "$rc" = 0 ] || [ "$rc" = 128 ]; } && [ "$err" = 0 ] &&
		! grep -q "verify: bad\|fio: verify\|err=" "$TMP/fio-$name.out"; then
		return 0
	fi
	ktap_diag "fio $name: rc $rc, error '$err'"
	grep -v '^3;' "$TMP/fio-$name.out" | tail -5 | sed 's/^/# fio: /'
	return 1
}
fio_wait() { # NAME: wait for fio to end by itself
	local rc
	wait "$FIOPID"
	rc=$?
	FIOPID=
	fio_clean "$1" "$rc"
}
fio_stop() { # NAME: stop fio (SIGINT) and wait
	local rc
	kill -INT "$FIOPID" 2>/dev/null
	wait "$FIOPID"
	rc=$?
	FIOPID=
	fio_clean "$1" "$rc"
}
FLOW0=
io_flowing() { snap && [ "$RT $RR" != "$FLOW0" ]; }
io_flowing_on() { local v; read -r v <"$1/routed_ios" && [ "$v" != "$FLOW0" ]; }

# target_ana TCP RDMA: set the ANA state of the tcp and the rdma port, and
# wait until both paths on the host show them.
host_matches() {
	local t r
	read -r t <"$PT/ana_state" && read -r r <"$PR/ana_state" &&
		[ "$t" = "$1" ] && [ "$r" = "$2" ]
}
target_ana() {
	nvmet_set_ana "$TCP_PORT" "$1" && nvmet_set_ana "$RDMA_PORT_ID" "$2" &&
		waitfor 20 host_matches "$1" "$2"
}

# allowed STATE HAVE_OPT: may a path in STATE get I/O, when HAVE_OPT says
# whether some path is optimized?
allowed() {
	case $1 in
	optimized) return 0 ;;
	non-optimized) [ "$2" = 0 ] ;;
	*) return 1 ;;
	esac
}

# rotate POLICY INDEX: the ANA phases with that selector, under the fio
# verify that runs through all selectors. Each phase has an optimized or non-optimized tier on one or
# both transports; phases 2 and 4 leave one transport usable, one each
# way. Odd selectors run the mirror image (tcp and rdma swapped).
# Sets ROT_BAD (problems found), ROT_SEL (selector-specific ones) and
# ROT_FIO (1 when fio has ended: it met an error).
TNAME=(tcp rdma)
PHASES=("optimized optimized" "optimized inaccessible"
	"non-optimized optimized" "inaccessible non-optimized"
	"non-optimized non-optimized")
rotate() {
	local pol=$1 i=$2 k a b have_opt used n t0 r0
	local -a s d

	ROT_BAD=0 ROT_SEL=0 ROT_FIO=0
	for ((k = 0; k < ${#PHASES[@]}; k++)); do
		read -r a b <<<"${PHASES[$k]}"
		[ $((i % 2)) = 1 ] && { n=$a; a=$b; b=$n; }
		s=("$a" "$b")
		if ! target_ana "$a" "$b"; then
			ktap_diag "$pol phase $k: host did not follow (tcp $a, rdma $b) within 20 s"
			ROT_BAD=$((ROT_BAD + 1))
			continue
		fi
		snap
		t0=$RT r0=$RR
		nap "$PHASE"
		snap
		d=($((RT - t0)) $((RR - r0)))
		have_opt=0
		[ "${s[0]}" = optimized ] || [ "${s[1]}" = optimized ] && have_opt=1
		used=0
		for n in 0 1; do
			if allowed "${s[$n]}" "$have_opt"; then
				used=$((used + d[n]))
			elif [ "${d[$n]}" != 0 ]; then
				ktap_diag "$pol phase $k: ${d[$n]} I/Os to the ${s[$n]} ${TNAME[$n]} path"
				ROT_BAD=$((ROT_BAD + 1))
			fi
		done
		if [ "$used" = 0 ]; then
			ktap_diag "$pol phase $k: no I/O at all (tcp ${s[0]}, rdma ${s[1]})"
			ROT_BAD=$((ROT_BAD + 1))
		fi
		if [ "$k" = 0 ]; then
			case $pol in
			numa) [ $((d[0] > 0)) != $((d[1] > 0)) ] || ROT_SEL=1 ;;
			round-robin) [ "${d[0]}" -gt 0 ] && [ "${d[1]}" -gt 0 ] || ROT_SEL=1 ;;
			esac
		fi
		ktap_diag "$pol phase $k: tcp ${s[0]}, rdma ${s[1]} -> routed tcp ${d[0]}, rdma ${d[1]}"
	done
	# verify_fatal: a verify error (or an I/O error) ends fio at once
	kill -0 "$FIOPID" 2>/dev/null || ROT_FIO=1
}

dmesg_canary_start
tgt_up() {
	topo_up 1 && nvmet_setup 1 &&
		test -e "$NVMET_CFS/ports/$TCP_PORT/subsystems/$NVMET_NQN"
}
ktap_check "target: topology path 1, nvmet tcp port $TCP_PORT" tgt_up
ktap_check "rxe device $RDMA_DEV on $RDMA_IF ($RDMA_ADDR)" rdma_up
ktap_check "nvmet-rdma port $RDMA_PORT_ID on $RDMA_ADDR:$NVMET_TRSVCID, same subsystem" \
	rdma_nvmet_port
load() {
	local m=(nvfab-core nvfab-fabrics nvfab-tcp nvfab-rdma)
	# insmod (NVFAB_MODDIR) does not load what nvfab-tcp needs
	modprobe -q libcrc32c || true
	[ "$have_st" = 0 ] || m+=(nvfab-ps-service-time)
	nvfab_load "${m[@]}"
}
ktap_check "modules load (service-time: $( ((have_st)) && echo yes || echo absent))" load

ktap_check "nvfabctl connect -t tcp (path 1): a live controller, head of NSID 1" \
	nvfabctl_connect CT "${TCP_ARGS[@]}"
ktap_check "nvfabctl connect -t rdma: a second live controller" \
	nvfabctl_connect CR "${RDMA_ARGS[@]}"
attrs() {
	local t r a
	read -r t <"$CT/transport" && read -r r <"$CR/transport" &&
		read -r a <"$CR/address" || return 1
	ktap_diag "transports: ${CT##*/} $t, ${CR##*/} $r; ${CR##*/} address $a"
	[ "$t/$r" = tcp/rdma ] &&
		[ "$a" = "traddr=$RDMA_ADDR,trsvcid=$NVMET_TRSVCID,host_traddr=$RDMA_ADDR" ]
}
ktap_check "transport attribute: tcp and rdma; rdma address as given" attrs
one_head() {
	SUB=$(nvfab_subsys_of "$CT") && [ "$(nvfab_subsys_of "$CR")" = "$SUB" ] &&
		waitfor 20 has_paths 2 || return 1
	PT=$(path_disk "$CT") && PR=$(path_disk "$CR")
}
ktap_check "one subsystem, one head ${DEV:-?} with a tcp and an rdma path" one_head
ktap_diag "head $DEV: tcp path ${PT##*/}, rdma path ${PR##*/}"

# Both listings judged by one python3 (a slow start in the KASAN guest):
# it prints "VERBOSE PLAIN", each ok or bad.
ctl list -v -o json
cp "$TMP/out" "$TMP/list-v.json"
ctl list -o json
read -r lv lp < <(python3 -c '
import json, sys
nqn, ct, cr, dev = sys.argv[1:5]
def ok(f):
    try:
        return f()
    except Exception as e:
        print("# %r" % e, file=sys.stderr)
        return False
def verbose():
    subs = [s for h in json.load(open(sys.argv[5]))["Devices"]
            for s in h["Subsystems"] if s["SubsystemNQN"] == nqn]
    got = sorted((c["Controller"], c["Transport"]) for c in subs[0]["Controllers"])
    return len(subs) == 1 and got == sorted([(ct, "tcp"), (cr, "rdma")])
def plain():
    d = [x for x in json.load(open(sys.argv[6]))["Devices"] if x["DevicePath"] == dev]
    return len(d) == 1 and d[0]["NameSpace"] == 1
print(" ".join("ok" if ok(f) else "bad" for f in (verbose, plain)))' \
	"$NVMET_NQN" "${CT##*/}" "${CR##*/}" "$DEV" "$TMP/list-v.json" "$TMP/out")
ktap_check "nvfabctl list -v -o json: the subsystem's controllers are ${CT##*/} (tcp) and ${CR##*/} (rdma)" \
	test "${lv:-}" = ok
ktap_check "nvfabctl list -o json: the head $DEV, NSID 1" test "${lp:-}" = ok

# Every selector under ANA rotation, one fio verify through all of them
# (a fio start takes ~10 s in the KASAN guest): each selector is set
# under I/O, and fio still running after its phases means no verify or
# I/O error so far.
set_pol() { local v; echo "$1" >"$SUB/iopolicy" && read -r v <"$SUB/iopolicy" && [ "$v" = "$1" ]; }
MIRROR=("" ", mirrored")
snap
FLOW0="$RT $RR"
fio_bg rotate 600
waitfor 30 io_flowing || ktap_diag "rotation: no I/O within 30 s"
for ((i = 0; i < ${#SELECTORS[@]}; i++)); do
	pol=${SELECTORS[$i]}
	if [ "$pol" = service-time ] && [ "$have_st" = 0 ]; then
		ktap_skip "$pol: iopolicy set" "no nvfab-ps-service-time module"
		ktap_skip "$pol: ANA rotation: I/O only where ANA allows" "no nvfab-ps-service-time module"
		ktap_skip "$pol: ANA rotation: fio verify running, no error" "no nvfab-ps-service-time module"
		continue
	fi
	ktap_check "$pol: iopolicy set" set_pol "$pol"
	rotate "$pol" "$i"
	case $pol in
	numa) want=", one path while both optimized" ;;
	round-robin) want=", both paths while both optimized" ;;
	*) want= ;;
	esac
	ktap_check "$pol: ANA rotation (${#PHASES[@]} phases of ${PHASE}s${MIRROR[$((i % 2))]}): I/O only where ANA allows$want" \
		test "$ROT_BAD/$ROT_SEL" = 0/0
	ktap_check "$pol: ANA rotation: fio verify running, no error" test "$ROT_FIO" = 0
done
ktap_check "fio verify through all selectors: stopped clean, 0 errors" fio_stop rotate
[ "$have_st" = 0 ] || ktap_diag "service-time status of the rdma path: $(cat "$PR/ps_status" 2>&1)"

# Whatever mix is live: a path goes away under fio, the head stays.
echo round-robin >"$SUB/iopolicy"
ktap_check "both ports optimized again" target_ana optimized optimized

# under_fio NAME CTRLDIR KEEP: fio verify on the head; once I/O flows on
# path KEEP, disconnect CTRLDIR with nvfabctl. The head keeps one path.
under_fio() {
	local rc=0
	read -r FLOW0 <"$3/routed_ios"
	fio_bg "$1" "$FIO_RUNTIME"
	waitfor 30 io_flowing_on "$3" || ktap_diag "$1: no I/O on ${3##*/}"
	nvfabctl_disconnect "$2" || rc=1
	waitfor 20 has_paths 1 || rc=1
	fio_wait "$1" || FIO_RC=1
	test -b "$DEV" || rc=1
	return "$rc"
}
FIO_RC=0
ktap_check "tcp only: nvfabctl disconnect -d ${CR##*/} (rdma) under fio, head $DEV keeps the tcp path" \
	under_fio tcp-only "$CR" "$PT"
ktap_check "tcp only: fio verify on the head clean" test "$FIO_RC" = 0
CR=
reconnect() { # VAR ARGS...: nvfabctl connect, two paths again
	nvfabctl_connect "$@" && waitfor 20 has_paths 2 &&
		PT=$(path_disk "$CT") && PR=$(path_disk "$CR") &&
		[ "/dev/${H#/sys/block/}" = "$DEV" ]
}
ktap_check "nvfabctl connect -t rdma again: the same head, two paths" \
	reconnect CR "${RDMA_ARGS[@]}"
FIO_RC=0
ktap_check "rdma only: nvfabctl disconnect -d ${CT##*/} (tcp) under fio, head $DEV keeps the rdma path" \
	under_fio rdma-only "$CT" "$PR"
ktap_check "rdma only: fio verify on the head clean" test "$FIO_RC" = 0
CT=
ktap_check "nvfabctl connect -t tcp again: the same head, two paths" \
	reconnect CT "${TCP_ARGS[@]}"
both() {
	local t r
	snap
	t=$RT r=$RR
	fio_bg both "$FIO_RUNTIME"
	fio_wait both || return 1
	snap
	ktap_diag "both again: routed tcp $((RT - t)), rdma $((RR - r))"
	[ $((RT - t)) -gt 0 ] && [ $((RR - r)) -gt 0 ]
}
ktap_check "both again: round-robin fio verify clean, I/O on tcp and rdma" both

ctl disconnect -n "$NVMET_NQN"
ktap_check "nvfabctl disconnect -n: both controllers" \
	test "$RC/$OUT" = "0/NQN:$NVMET_NQN disconnected 2 controller(s)"
waitfor 30 nvfab_no_ctrl
ktap_check "no controller left, refcnt 0" \
	test "$(nvfab_ctrl_count)/$(nvfab_refcnt nvfab-rdma)/$(nvfab_refcnt nvfab-tcp)" = "0/0/0"
ktap_check "modules unload" nvfab_unload nvfab-ps-service-time nvfab-rdma \
	nvfab-tcp nvfab-fabrics nvfab-core
ktap_check "kernel log clean" dmesg_clean_since_canary
ktap_finish
