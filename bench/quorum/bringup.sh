#!/bin/bash
# bringup.sh BUILD BACKEND [PGS_LIST]: the bring-up of 221,568 PGs on one
# monitor and on three, in the same run: mkfs, start, four pools of
# 65,536 + 65,536 + 65,536 + 24,960 PGs (creating, no OSDs yet), then
# `mapmon-bench osd-sim --osds 256 --until-clean` through the monitors,
# timed from the first `osd pool create` of the four (after a pool of 8
# PGs, which shows the monitors take writes) to osd-sim's exit (every PG
# active+clean, confirmed by its `pg stat`).  Each OSD's boot re-places
# thousands of PGs: on three monitors those commits are over the 1 MiB
# entry limit and go as part entries (mapmon-protocol(7), REPLICATED
# ENTRIES).  Prints, per set-up, the time, the PG updates per second
# (osd-sim's count over the time), and on three the leader's entry
# metrics.  MON_EXTRA: lines added to each monitor's [mon] section (e.g.
# "election_timeout = 800ms"); SETUPS: "single three" unless set.
# BOOT_FIRST=1: the 256 OSDs boot first (HOSTS=N: in N hosts) and the
# pools come after, as `mapmon-bench coldstart` brings a cluster up; the
# time ends when `pg stat` says all 221,576 PGs are active+clean.
# BENCHMARKS.md, "Bring-up on three monitors".
set -u
B=${1:?usage: bringup.sh BUILD BACKEND}
BE=${2:?usage: bringup.sh BUILD BACKEND}
D=$(mktemp -d /tmp/bringup.XXXXXX) || exit 1
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; sleep 1; [ -n "${QUORUM_BENCH_KEEP:-}" ] && echo "kept $D" || rm -rf "$D"' EXIT
# free_ports N and within TRIES CMD: the tests' (test/lib/quorum_lib.sh).
. "$(dirname "$0")/../../test/lib/quorum_lib.sh"
# run SETUP NAMES...: one bring-up with the monitors NAMES.
run() {
	local setup=$1 S=$D/$1 n hosts= all= i=0 t0 t1 x
	shift
	mkdir -p "$S"
	set -- $(free_ports 3) "$@"
	local p1=$1 p2=$2 p3=$3
	shift 3
	for n in "$@"; do
		i=$((i + 1))
		eval "P_$n=127.0.0.1:\$p$i"
		hosts="$hosts${hosts:+,}$n=$(eval echo "\$P_$n")"
		all="$all${all:+,}$(eval echo "\$P_$n")"
	done
	for n in "$@"; do
		{
			echo "[mon]"
			echo "name = $n"
			echo "data = $S/$n"
			echo "bind = $(eval echo "\$P_$n")"
			[ $# -gt 1 ] && echo "mon_host = $hosts"
			echo "max_pg_per_osd = 1000000"
			echo "max_pgs = 300000"
			[ -n "${MON_EXTRA:-}" ] && printf '%s\n' "$MON_EXTRA"
			echo "[store]"
			echo "backend = $BE"
			echo "[auth]"
			echo "keyring = $S/keyring"
			echo "[log]"
			echo "file = $S/$n.log"
			echo "[metrics]"
			echo "bind = 127.0.0.1:0"
		} >"$S/$n.conf"
	done
	"$B/daemon/mapmond" -c "$S/$1.conf" --mkfs >/dev/null || exit 1
	for n in "${@:2}"; do
		"$B/daemon/mapmond" -c "$S/$n.conf" --mkfs --monmap \
		    "$S/$1/monmap" --keyring "$S/keyring" >/dev/null || exit 1
	done
	for n in "$@"; do
		"$B/daemon/mapmond" -c "$S/$n.conf" -f 2>"$S/$n.err" &
		PIDS="$PIDS $!"
	done
	M="$B/tools/mapmon -m $all -k $S/keyring --connect-timeout 60"
	# Elected and taking writes: a first pool, small and kept out of the
	# count (a pool of 8 PGs brought up with the rest).
	for i in $(seq 1 100); do
		$M osd pool create warm 8 >/dev/null 2>&1 && break
		sleep 0.1
	done
	if [ -n "${BOOT_FIRST:-}" ]; then
		# The OSDs up first (as coldstart has them), then the pools.
		MAPMON_KEYRING=$S/keyring "$B/tools/mapmon-bench" osd-sim \
		    -m "$all" --osds 256 ${HOSTS:+--hosts "$HOSTS"} \
		    --duration 600 >"$S/sim" 2>&1 &
		PIDS="$PIDS $!"
		within 1200 sh -c "$M osd stat 2>/dev/null | grep -q '256 up'" ||
		    { echo "the 256 OSDs are not up after 60 s" >&2; exit 1; }
	fi
	t0=$(date +%s%N)
	for p in 1 2 3; do $M osd pool create "big$p" 65536 >/dev/null 2>&1 || exit 1; done
	$M osd pool create big4 24960 >/dev/null 2>&1 || exit 1
	if [ -n "${BOOT_FIRST:-}" ]; then
		within 6000 sh -c "$M pg stat 2>/dev/null |
		    grep -q '^221576 pgs: 221576 active+clean'" ||
		    { echo "not active+clean after 300 s" >&2; exit 1; }
	else
		MAPMON_KEYRING=$S/keyring "$B/tools/mapmon-bench" osd-sim \
		    -m "$all" --osds 256 --until-clean --duration 300 \
		    >"$S/sim" 2>&1 || {
			tail -n 3 "$S/sim"
			exit 1
		}
	fi
	t1=$(date +%s%N)
	echo "$setup ($BE): 221568 PGs (+8) active+clean $(( (t1 - t0) / 1000000 )) ms after the first pool create; load $(cut -d' ' -f1-3 /proc/loadavg)"
	grep 'active+clean after' "$S/sim"
	$M pg stat
	if [ $# -gt 1 ]; then
		for n in "$@"; do
			port=$(sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$S/$n.log" | tail -n 1)
			curl -s "http://127.0.0.1:$port/metrics" >"$S/$n.metrics"
			grep -q '^mapmon_quorum_leader 1$' "$S/$n.metrics" || continue
			echo "leader mon.$n:"
			grep -E '^mapmon_quorum_(entry_bytes_max|entry_bytes_total|entry_raw_bytes_total|leader_changes_total|entries_proposed_total|proposals_split_total|parts_dropped_total|loop_slice_max_seconds) ' "$S/$n.metrics"
		done
	fi
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	PIDS=
}
for setup in ${SETUPS:-single three}; do
	case $setup in
	single) run single a ;;
	three) run three a b c ;;
	esac
done
