#!/bin/bash
# mon_five.sh: five monitors on loopback survive the loss of two (mapmond(8),
# QUORUM), end to end, once per store backend.  Speaks TAP.  Needs
# $top_builddir.
#
#   - five monitors made from one monmap elect a leader and count five in
#     quorum; status says "mon: 5 daemons";
#   - two are killed with SIGKILL, the leader one of them: the other three
#     elect a leader, MON_DOWN says "2/5 mons down", and writes sent to
#     any monitor are answered;
#   - both come back, rejoin and converge: the pools made while they were
#     down are on them, and the five stores are identical record for
#     record (`mapmon-store dump --full`) and pass `mapmon-store verify`.
# Election timeout 300 ms to save time.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
NAMES="a b c d e"
QUORUM_TMP=mon_five
MON_CONF="propose_interval = 5ms
max_pg_per_osd = 1000000"
. "$top_srcdir/test/lib/quorum_lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# lists X POOL: monitor X lists POOL within 10 s (a follower serves what
# it has applied, which may trail the leader's answer).
lists() {
	local i
	for i in $(seq 1 200); do
		mm1 "$1" osd pool ls && grep -qx "$2" "$T/out" && return 0
		sleep 0.05
	done
	return 1
}

run_backend() {
	quorum_up "$1" "five monitors made from one monmap"
	check "five monitors elect a leader" wait_leader
	check "the leader counts five in quorum" in_quorum 5
	mm1 "$L" status
	check "status: mon: 5 daemons, quorum a,b,c,d,e" \
	    grep -q "mon: 5 daemons, quorum a,b,c,d,e" "$T/out"
	mm osd pool create before 4
	check "a write with five" [ "$rc" -eq 0 ]

	# Two lost, the leader one of them.
	K1=$L
	for x in $NAMES; do [ "$x" != "$K1" ] && K2=$x; done
	kill -KILL "$(pid_of "$K1")" "$(pid_of "$K2")"
	check "mon.$K1 (the leader) and mon.$K2 killed: three elect a leader" \
	    wait_leader
	check "the new leader counts three in quorum" in_quorum 3
	mm1 "$L" health detail
	check "MON_DOWN: 2/5 mons down" \
	    grep -q "MON_DOWN: 2/5 mons down, quorum" "$T/out"
	made=0
	for i in 1 2 3 4 5; do
		mm osd pool create "down$i" 4 && [ "$rc" -eq 0 ] &&
		    made=$((made + 1))
	done
	check "five writes answered with two monitors down" [ "$made" -eq 5 ]
	for x in $NAMES; do
		[ "$x" = "$K1" ] || [ "$x" = "$K2" ] && continue
		check "mon.$x, up, lists the pools (within 10 s)" lists "$x" down5
	done

	# Gone first: a process killed in a disk write holds its store's lock.
	stop_all "$K1" "$K2"
	start "$K1"
	start "$K2"
	wait_leader
	check "both back: the leader counts five in quorum" in_quorum 5
	check "the five converge" converged
	for x in "$K1" "$K2"; do
		mm1 "$x" osd pool ls
		check "mon.$x has the pools made while it was down" \
		    [ "$(grep -c '^down[1-5]$' "$T/out")" -eq 5 ]
	done

	stores_agree $NAMES
	check_sanitizers
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
