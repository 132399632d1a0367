#!/bin/bash
# join.sh BUILD BACKEND: three monitors on loopback with 221,568 PGs (four
# pools, PGs creating), then `mon add d`, `mapmond --mkfs --join`, and d
# started under /usr/bin/time -v: the time from its start to its first
# `pg stat` that counts every PG (serving reads), its peak RSS, and what
# its log says of the copy.  BENCHMARKS.md, "A fresh monitor joins".
set -u
B=${1:?usage: join.sh BUILD BACKEND}
BE=${2:?usage: join.sh BUILD BACKEND}
. "$(dirname "$0")/lib.sh"
set -- $(free_ports 4)
A=127.0.0.1:$1 BB=127.0.0.1:$2 C=127.0.0.1:$3 DD=127.0.0.1:$4
for n in a b c d; do
	case $n in a) me=$A ;; b) me=$BB ;; c) me=$C ;; d) me=$DD ;; esac
	hosts="a=$A,b=$BB,c=$C"
	[ "$n" = d ] && hosts="$hosts,d=$DD"
	write_conf "$n" "$me" "$hosts"
done
mkfs_quorum a b c >/dev/null || exit 1
for n in a b c; do
	start_mon "$n"
done
M="$B/tools/mapmon -m $A,$BB,$C -k $D/keyring --connect-timeout 60"
sleep 2
make_pools $M
$M pg stat
echo "store of mon.a: $(du -sh "$D/a/store" | cut -f1)"
$M mon add d "$DD" || exit 1
"$B/daemon/mapmond" -c "$D/d.conf" --mkfs --join "$A,$BB,$C" \
    --keyring "$D/keyring" || exit 1
t0=$(date +%s%N)
/usr/bin/time -v "$B/daemon/mapmond" -c "$D/d.conf" -f 2>"$D/d.time" &
TP=$!
out=
for i in $(seq 1 1200); do
	out=$("$B/tools/mapmon" -m "$DD" -k "$D/keyring" --connect-timeout 2 \
	    pg stat 2>/dev/null) && echo "$out" | grep -q '^221568 pgs' && break
	sleep 0.05
done
t1=$(date +%s%N)
echo "mon.d serves reads after $(( (t1 - t0) / 1000000 )) ms: $out"
sleep 2
# The leader's view (a follower knows only itself and the leader).
for x in "$A" "$BB" "$C"; do
	"$B/tools/mapmon" -m "$x" -k "$D/keyring" quorum_status -f json |
	    python3 -c 'import json,sys
d = json.load(sys.stdin)
if d["raft"]["state"] == "leader":
    print("leader", d["quorum_leader_name"], "quorum", ",".join(d["quorum_names"]))'
done
grep -h 'sync:\|replaced\|joined' "$D/d.log" | cut -c29-
kill "$(pgrep -P "$TP")" 2>/dev/null
wait "$TP"
grep -E 'Maximum resident|Elapsed' "$D/d.time"
