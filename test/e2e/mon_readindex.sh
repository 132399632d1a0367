#!/bin/bash
# mon_readindex.sh: linearizable reads share the leader's barriers
# (daemon/quorum.h, quorum_read_index()), end to end on loopback, once per
# store backend.  Speaks TAP.  Needs $top_builddir.
#
#   - three monitors, an election timeout of 3 s; both followers frozen
#     (SIGSTOP), so that no barrier can commit;
#   - READS linearizable reads (`mapmon --linearizable osd stat`) sent to
#     the leader meanwhile: the first one's barrier is in flight, every
#     later one waits for the next;
#   - the followers let go: every read is answered, and the leader's
#     metrics count READS reads confirmed by 2 barriers (one each, before
#     the batching: READS).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
QUORUM_TMP=mon_readindex
ELECTION_TIMEOUT=3s
MON_CONF="propose_interval = 5ms"
. "$top_srcdir/test/lib/quorum_lib.sh"
lsan_pass_libraft
READS=12

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# metric_of X NAME: monitor X's value of mapmon_NAME.
metric_of() { metrics "$1" && metric "$2"; }

# connected N: the leader has N connections or more.
connected() {
	[ "$(metric_of "$L" connections)" -ge "$1" ] 2>/dev/null
}

run_backend() {
	local i f1= f2= r0 b0 r1 b1 c0 ok=0 x
	quorum_up "$1" "three monitors made"
	check "three monitors elect a leader" wait_leader
	check "the leader counts three in quorum" in_quorum 3
	mm osd pool create p 4
	check "a write is answered" [ "$rc" -eq 0 ]
	r0=$(metric_of "$L" quorum_read_indexes_total)
	b0=$(metric_of "$L" quorum_read_index_barriers_total)
	for x in $NAMES; do
		[ "$x" = "$L" ] && continue
		if [ -z "$f1" ]; then f1=$x; else f2=$x; fi
	done
	c0=$(metric_of "$L" connections)
	kill -STOP "$(pid_of "$f1")" "$(pid_of "$f2")"
	for i in $(seq 1 $READS); do
		"$MAPMON" -m "$(addr "$L")" -k "$D/keyring" --connect-timeout 10 \
		    --linearizable osd stat >"$T/read.$i" 2>&1 &
		echo $! >"$T/read.$i.pid"
	done
	# Every client in and waiting (each one's read follows its
	# authentication), well within the election timeout.
	check "the $READS clients are connected" \
	    within 30 connected $((c0 + READS))
	sleep 0.3
	kill -CONT "$(pid_of "$f1")" "$(pid_of "$f2")"
	for i in $(seq 1 $READS); do
		wait "$(cat "$T/read.$i.pid")" && grep -q 'osds:' "$T/read.$i" &&
		    ok=$((ok + 1))
	done
	check "all $READS linearizable reads answered" [ "$ok" -eq "$READS" ]
	r1=$(metric_of "$L" quorum_read_indexes_total)
	b1=$(metric_of "$L" quorum_read_index_barriers_total)
	echo "# $((r1 - r0)) reads, $((b1 - b0)) barriers"
	check "the leader counts $READS reads" [ $((r1 - r0)) -eq "$READS" ]
	check "2 barriers confirmed them" [ $((b1 - b0)) -eq 2 ]
	mm1 "$L" --linearizable osd stat
	check "a read after them is answered" [ "$rc" -eq 0 ]
	check "and takes one barrier more" \
	    [ "$(metric_of "$L" quorum_read_index_barriers_total)" -eq $((b1 + 1)) ]
	stop_all $NAMES
	check_sanitizers
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
