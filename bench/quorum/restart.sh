#!/bin/bash
# restart.sh BUILD BACKEND [ROUNDS]: three monitors on loopback with
# 221,568 PGs (four pools, PGs creating), then ROUNDS (6) times a follower
# stopped (SIGTERM on odd rounds, SIGKILL on even ones) and started again:
# the time from its start to the first moment it both knows the leader
# (its quorum_status names one, in quorum) and serves a `pg stat` of every
# PG.  BENCHMARKS.md, "A quorum of monitors".
set -u
B=${1:?usage: restart.sh BUILD BACKEND [ROUNDS]}
BE=${2:?usage: restart.sh BUILD BACKEND [ROUNDS]}
ROUNDS=${3:-6}
. "$(dirname "$0")/lib.sh"
set -- $(free_ports 3)
A=127.0.0.1:$1 BB=127.0.0.1:$2 C=127.0.0.1:$3
for n in a b c; do
	case $n in a) me=$A ;; b) me=$BB ;; c) me=$C ;; esac
	write_conf "$n" "$me" "a=$A,b=$BB,c=$C"
done
mkfs_quorum a b c
for n in a b c; do
	start_mon "$n"
done
M="$B/tools/mapmon -m $A,$BB,$C -k $D/keyring --connect-timeout 60"
sleep 2
make_pools $M
$M pg stat
echo "store of mon.a: $(du -sh "$D/a/store" | cut -f1)"

addr_of() { case $1 in a) echo "$A" ;; b) echo "$BB" ;; c) echo "$C" ;; esac; }
# leader_name: the leader's name, as some monitor says.
leader_name() {
	$M quorum_status -f json 2>/dev/null | python3 -c 'import json,sys
print(json.load(sys.stdin).get("quorum_leader_name", ""))'
}
# knows_leader ADDR: the monitor at ADDR names a leader in its quorum.
knows_leader() {
	"$B/tools/mapmon" -m "$1" -k "$D/keyring" --connect-timeout 2 \
	    quorum_status -f json 2>/dev/null | python3 -c 'import json,sys
d = json.load(sys.stdin)
sys.exit(0 if d.get("quorum_leader_name") and d["raft"]["state"] in ("follower", "leader") else 1)'
}

for r in $(seq 1 "$ROUNDS"); do
	L=$(leader_name)
	for f in a b c; do [ "$f" != "$L" ] && break; done
	sig=TERM
	[ $((r % 2)) -eq 0 ] && sig=KILL
	pid=$(cat "$D/$f.pid")
	kill -"$sig" "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	# The others commit a little meanwhile, as a cluster does.
	$M osd pool create "r$r" 8 >/dev/null 2>&1
	t0=$(date +%s%N)
	start_mon "$f"
	ok=
	for i in $(seq 1 600); do
		if knows_leader "$(addr_of "$f")" && serving "$(addr_of "$f")"; then
			ok=1
			break
		fi
		sleep 0.02
	done
	t1=$(date +%s%N)
	echo "round $r: mon.$f (follower of mon.$L) SIG$sig, started again:" \
	    "${ok:+in quorum and serving after }${ok:-NOT back within the wait, }$(( (t1 - t0) / 1000000 )) ms"
	grep -h "loaded epoch" "$D/$f.log" | tail -n 1 | cut -c29-
done
