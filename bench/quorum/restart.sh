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
mkfs_quorum a b c >/dev/null || exit 1
for n in a b c; do
	start_mon "$n"
done
M="$B/tools/mapmon -m $A,$BB,$C -k $D/keyring --connect-timeout 60"
sleep 2
make_pools $M
$M pg stat
echo "store of mon.a: $(du -sh "$D/a/store" | cut -f1)"

addr_of() { case $1 in a) echo "$A" ;; b) echo "$BB" ;; c) echo "$C" ;; esac; }
# leader_name: the leader's name, as some monitor says (10 s at most).
leader_name() {
	local i l
	for i in $(seq 1 100); do
		l=$($M quorum_status -f json 2>/dev/null | python3 -c 'import json,sys
try:
    print(json.load(sys.stdin).get("quorum_leader_name", ""))
except ValueError:
    pass')
		[ -n "$l" ] && echo "$l" && return 0
		sleep 0.1
	done
	return 1
}
# knows_leader ADDR: the monitor at ADDR names a leader in its quorum.
knows_leader() {
	"$B/tools/mapmon" -m "$1" -k "$D/keyring" --connect-timeout 2 \
	    quorum_status -f json 2>/dev/null | python3 -c 'import json,sys
try:
    d = json.load(sys.stdin)
except ValueError:
    sys.exit(1)
sys.exit(0 if d.get("quorum_leader_name") and d["raft"]["state"] in ("follower", "leader") else 1)'
}

for r in $(seq 1 "$ROUNDS"); do
	L=$(leader_name) || { echo "round $r: no leader known"; exit 1; }
	for f in a b c; do [ "$f" != "$L" ] && break; done
	sig=TERM
	[ $((r % 2)) -eq 0 ] && sig=KILL
	pid=$(cat "$D/$f.pid")
	kill -"$sig" "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	# The others commit a little meanwhile, as a cluster does.
	if [ $((r % 2)) -eq 1 ]; then $M osd set noout; else $M osd unset noout; fi \
	    >/dev/null 2>&1
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
	ms=$(( (t1 - t0) / 1000000 ))
	if [ -n "$ok" ]; then
		echo "round $r: mon.$f (follower of mon.$L) SIG$sig, started" \
		    "again: in quorum and serving after $ms ms"
	else
		echo "round $r: mon.$f (follower of mon.$L) SIG$sig, started" \
		    "again: NOT back after $ms ms"
	fi
	grep -h "loaded epoch" "$D/$f.log" | tail -n 1 | cut -c29-
done
