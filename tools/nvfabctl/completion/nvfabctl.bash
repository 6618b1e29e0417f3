# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# bash completion for nvfabctl(8): commands, each command's options, the
# values of -o, -t/-r (transports), -r (show-topology's ranking), and
# names from sysfs: controllers for disconnect -d, subsystem NQNs for
# disconnect -n and discover/connect-all -d, devices for list-subsys and
# show-topology, config's actions and file, discovery's actions and (from
# configfs, $NVFAB_CONFIGFS replacing /sys/kernel/config) entry names,
# keyring names for --keyring (from /proc/keys, $NVFAB_PROC_KEYS replacing
# it), commands for help. Installed by
# "make -C tools/nvfabctl install" as
# $(PREFIX)/share/bash-completion/completions/nvfabctl. $NVFAB_SYSFS, as
# for nvfabctl itself, replaces /sys.
#
# Options nvfab does not support yet (--tls-key-identity, --tls_key,
# --concat) are accepted by connect only to be refused, so they are not
# offered.

_nvfabctl_cmds="connect disconnect disconnect-all list list-subsys discover connect-all discovery config show-topology status gen-hostnqn show-hostnqn gen-hostid show-hostid help version"

# _nvfabctl_opts COMMAND: its options, as its --help lists them.
_nvfabctl_opts()
{
	case $1 in
	connect)
		echo "-t --transport -a --traddr -s --trsvcid -n --nqn" \
			"-w --host-traddr -f --host-iface -q --hostnqn -I --hostid" \
			"-i --nr-io-queues -W --nr-write-queues -P --nr-poll-queues" \
			"-Q --queue-size -k --keep-alive-tmo -c --reconnect-delay" \
			"-l --ctrl-loss-tmo -F --fast_io_fail_tmo -T --tos" \
			"-D --duplicate-connect -d --disable-sqflow -g --hdr-digest" \
			"-G --data-digest -S --dhchap-secret -C --dhchap-ctrl-secret" \
			"--tls --keyring --tls-key" \
			"-o --output-format --dry-run -v --verbose -h --help"
		;;
	discover | connect-all)
		echo "-t --transport -a --traddr -s --trsvcid -n --nqn" \
			"-w --host-traddr -f --host-iface -q --hostnqn -I --hostid" \
			"-d --device -p --persistent --no-reuse --force" \
			"-k --keep-alive-tmo -c --reconnect-delay -l --ctrl-loss-tmo" \
			"-F --fast_io_fail_tmo -T --tos -i --nr-io-queues" \
			"-W --nr-write-queues -P --nr-poll-queues -Q --queue-size" \
			"-D --duplicate-connect --disable-sqflow -g --hdr-digest" \
			"-G --data-digest -S --dhchap-secret -C --dhchap-ctrl-secret" \
			"--tls --keyring --tls-key" \
			"-r --raw --log-file -o --output-format" \
			"--quiet --dry-run -v --verbose -h --help"
		;;
	discovery)
		echo "-t --transport -a --traddr -s --trsvcid -w --host-traddr" \
			"-f --host-iface -q --hostnqn -I --hostid -n --nqn" \
			"-k --keep-alive-tmo --connect --match --disconnect" \
			"--poll-interval --max-inflight --connect-opts" \
			"-o --output-format -v --verbose -h --help"
		;;
	disconnect) echo "-n --nqn -d --device -h --help" ;;
	disconnect-all) echo "-r --transport -h --help" ;;
	list | list-subsys) echo "-o --output-format -v --verbose -h --help" ;;
	show-topology)
		echo "-o --output-format -r --ranking -v --verbose -h --help"
		;;
	status) echo "-o --output-format -w --watch -h --help" ;;
	config)
		echo "-r --retry --retry-interval --retry-timeout -P --parallel" \
			"--ready-timeout --json --discovery-conf -h --help"
		;;
	gen-hostnqn | show-hostnqn | gen-hostid | show-hostid) echo "-h --help" ;;
	esac
}

# _nvfabctl_name NAME: is it an nvfab device name (nvfabN, nvfab-subsysS,
# nvfabSnN, nvfabScCnN; no leading zeros)?
_nvfabctl_name()
{
	local n='(0|[1-9][0-9]*)'

	[[ $1 =~ ^nvfab(-subsys$n|$n(c${n})?(n$n)?)$ ]]
}

# _nvfabctl_sysfs KIND: names from sysfs (ctrls, nqns or devices).
_nvfabctl_sysfs()
{
	local root=${NVFAB_SYSFS:-/sys} f

	case $1 in
	ctrls | nqns)
		for f in "$root"/class/nvfab/nvfab*; do
			if ! [ -d "$f" ] || ! _nvfabctl_name "${f##*/}"; then
				continue
			elif [ "$1" = ctrls ]; then
				echo "${f##*/}"
			elif [ -r "$f/subsysnqn" ]; then
				head -n 1 "$f/subsysnqn"
			fi
		done | sort -u
		;;
	discovery)
		for f in "${NVFAB_CONFIGFS:-/sys/kernel/config}"/nvfab/discovery/*; do
			[ -d "$f" ] && echo "${f##*/}"
		done
		;;
	devices)
		for f in "$root"/class/nvfab/nvfab* \
			"$root"/class/nvfab-subsystem/nvfab-subsys* \
			"$root"/block/nvfab*; do
			[ -d "$f" ] && _nvfabctl_name "${f##*/}" && echo "${f##*/}"
		done
		;;
	esac
}

# _nvfabctl_keyrings: the names of the keyrings in /proc/keys (those
# without blanks: a completion is one word).
_nvfabctl_keyrings()
{
	local f=${NVFAB_PROC_KEYS:-/proc/keys} type desc

	[ -r "$f" ] || return 0
	# serial, flags, usage, expiry, permissions, uid, gid, type, description
	while read -r _ _ _ _ _ _ _ type desc; do
		[ "$type" = keyring ] || continue
		desc=${desc%%: *}
		[[ -z $desc || $desc == *[[:space:]]* ]] || echo "$desc"
	done <"$f" | sort -u
}

_nvfabctl()
{
	local c=$COMP_CWORD j cur prev cmd words k ltrim=
	local -a reply

	COMPREPLY=()
	# bash splits words at ':' and '=' (COMP_WORDBREAKS): join an NQN
	# split at its colons back into cur; prev is the word before it
	j=$c
	while [ "$j" -gt 2 ] && { [ "${COMP_WORDS[j]}" = ":" ] ||
		[ "${COMP_WORDS[j - 1]}" = ":" ]; }; do
		j=$((j - 1))
	done
	cur=
	for ((k = j; k <= c; k++)); do
		cur+=${COMP_WORDS[k]}
	done
	if [ "$c" -le 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$_nvfabctl_cmds" -- "$cur")
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	prev=${COMP_WORDS[j - 1]}
	if [ "$cur" = "=" ]; then	# "--opt=" with nothing after it yet
		cur=
	elif [ "$prev" = "=" ] && [ "$j" -ge 3 ]; then	# "--opt=VALUE"
		prev=${COMP_WORDS[j - 2]}
	fi
	# bash replaces only what follows the last ':' of the word
	[[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]] && ltrim=${cur%"${cur##*:}"}

	case $cmd:$prev in
	*:-o | *:--output-format)
		words="normal json" ;;
	connect:-t | connect:--transport | disconnect-all:-r | \
	disconnect-all:--transport)
		words="tcp rdma loop" ;;
	discover:-t | discover:--transport | connect-all:-t | \
	connect-all:--transport | discovery:-t | discovery:--transport)
		words="tcp rdma" ;;
	discover:-d | discover:--device | connect-all:-d | connect-all:--device)
		words=$(_nvfabctl_sysfs ctrls) ;;
	discovery:--connect)
		words="all none match" ;;
	discovery:--disconnect)
		words="none ours" ;;
	connect:--keyring | discover:--keyring | connect-all:--keyring)
		words=$(_nvfabctl_keyrings) ;;
	discover:-r | discover:--raw | discover:--log-file | \
	connect-all:-r | connect-all:--raw | connect-all:--log-file)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
		;;
	discover:-* | connect-all:-* | discovery:-*)
		# an option whose value nvfabctl cannot guess
		case $prev in
		-[asnwfqIiWPQkclFT] | --traddr | --trsvcid | --nqn | \
		--host-traddr | --host-iface | --hostnqn | --hostid | \
		--nr-io-queues | --nr-write-queues | --nr-poll-queues | \
		--queue-size | --keep-alive-tmo | --reconnect-delay | \
		--ctrl-loss-tmo | --fast_io_fail_tmo | --tos | --match | \
		--poll-interval | --max-inflight | --connect-opts | --tls-key)
			return 0 ;;
		esac
		;;
	show-topology:-r | show-topology:--ranking)
		words="namespace ctrl multipath" ;;
	disconnect:-d | disconnect:--device)
		words=$(_nvfabctl_sysfs ctrls) ;;
	disconnect:-n | disconnect:--nqn)
		words=$(_nvfabctl_sysfs nqns) ;;
	connect:-*)
		# an option whose value nvfabctl cannot guess
		case $prev in
		-[asnwfqIiWPQkclFT] | --traddr | --trsvcid | --nqn | \
		--host-traddr | --host-iface | --hostnqn | --hostid | \
		--nr-io-queues | --nr-write-queues | --nr-poll-queues | \
		--queue-size | --keep-alive-tmo | --reconnect-delay | \
		--ctrl-loss-tmo | --fast_io_fail_tmo | --tos | --tls-key)
			return 0 ;;
		esac
		;;
	help:*)
		[ "$c" = 2 ] && words=$_nvfabctl_cmds ;;
	esac
	if [ -z "$words" ]; then
		case $cur in
		-*) words=$(_nvfabctl_opts "$cmd") ;;
		*)
			case $cmd in
			list-subsys | show-topology)
				words=$(_nvfabctl_sysfs devices) ;;
			discovery)
				if [ "$c" = 2 ]; then
					words="add remove list"
				elif [ "$c" = 3 ] &&
					[ "${COMP_WORDS[2]}" = remove ]; then
					words=$(_nvfabctl_sysfs discovery)
				fi
				;;
			config)
				if [ "$c" = 2 ]; then
					words="check apply show dump import"
				else	# the configuration file
					mapfile -t COMPREPLY < <(compgen -f -- "$cur")
					return 0
				fi
				;;
			esac
			;;
		esac
	fi
	[ -n "$words" ] || return 0
	mapfile -t reply < <(compgen -W "$words" -- "$cur")
	for k in "${reply[@]}"; do
		COMPREPLY+=("${k#"$ltrim"}")
	done
	return 0
}

complete -F _nvfabctl nvfabctl
