#!/bin/bash
# ingest.sh BUILD BACKEND [SECONDS] [SETUPS]: durable PG updates per second
# on three monitors, and `status` on a follower meanwhile.  Three monitors
# on loopback (or one, SETUPS "single"), the four pools of 221,568 PGs
# brought to active+clean by `mapmon-bench osd-sim --osds 256
# --until-clean`, then SECONDS (20) of the same 256 OSDs reporting every PG
# again as soon as the last report is answered (`--interval 0`), through
# the monitors, while `--probe` sends `status` to a follower every 10 ms.
# Prints osd-sim's count of answered PG updates over the time, the probe's
# latencies, and the leader's entry metrics.  BENCHMARKS.md, "A quorum of
# monitors".  SIM_EXTRA: more options of the measured osd-sim (--window 256).
set -u
B=${1:?usage: ingest.sh BUILD BACKEND [SECONDS] [SETUPS]}
BE=${2:?usage: ingest.sh BUILD BACKEND [SECONDS] [SETUPS]}
SECS=${3:-20}
SETUP=${4:-three}
. "$(dirname "$0")/lib.sh"
set -- $(free_ports 3)
A=127.0.0.1:$1 BB=127.0.0.1:$2 C=127.0.0.1:$3
case $SETUP in
single)
	write_conf a "$A" ""
	names=a all=$A probe=$A ;;
*)
	for n in a b c; do
		case $n in a) me=$A ;; b) me=$BB ;; c) me=$C ;; esac
		write_conf "$n" "$me" "a=$A,b=$BB,c=$C"
	done
	names="a b c" all=$A,$BB,$C ;;
esac
for n in $names; do
	printf '[metrics]\nbind = 127.0.0.1:0\n' >>"$D/$n.conf"
done
mkfs_quorum $names >/dev/null || exit 1
for n in $names; do
	start_mon "$n"
done
M="$B/tools/mapmon -m $all -k $D/keyring --connect-timeout 60"
sleep 2
make_pools $M >/dev/null
export MAPMON_KEYRING=$D/keyring
"$B/tools/mapmon-bench" osd-sim -q -m "$all" --osds 256 --until-clean \
    --duration 300 || exit 1
L=$($M quorum_status -f json 2>/dev/null | python3 -c 'import json,sys
print(json.load(sys.stdin).get("quorum_leader_name") or "a")')
[ "$SETUP" = single ] || for f in a b c; do
	[ "$f" != "$L" ] && break
done
case ${f:-a} in a) probe=$A ;; b) probe=$BB ;; c) probe=$C ;; esac
echo "ingest ($BE, $SETUP): $SECS s, status probed on mon.${f:-a} (leader mon.$L); load $(cut -d' ' -f1-3 /proc/loadavg)"
"$B/tools/mapmon-bench" osd-sim -v -m "$all" --osds 256 --interval 0 ${SIM_EXTRA:-} \
    --duration "$SECS" --probe "$probe" --probe-ms 10 >"$D/sim" 2>&1
rc=$?
grep 'status on' "$D/sim"
# The last progress line counts the updates answered since the start.
last=$(grep 'pg updates' "$D/sim" | tail -n 1)
echo "$last"
n=$(echo "$last" | sed -n 's/.*, \([0-9]*\) pg updates.*/\1/p')
[ -n "$n" ] && echo "durable PG updates/s: $((n / SECS))"
for x in $names; do
	port=$(sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
	    "$D/$x.log" | tail -n 1)
	curl -s "http://127.0.0.1:$port/metrics" >"$D/$x.metrics"
	grep -q '^mapmon_quorum_leader 1$' "$D/$x.metrics" || continue
	echo "leader mon.$x:"
	grep -E '^mapmon_quorum_(entries_proposed_total|entry_bytes_total|entry_raw_bytes_total|leader_changes_total|loop_slice_max_seconds) ' \
	    "$D/$x.metrics"
done
exit $rc
