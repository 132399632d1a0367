#!/bin/bash
# mon_snapshot.sh: the raft log stays bounded and a monitor that lags past
# it catches up by a copy of another's store (mapmond(8), SNAPSHOTS), end
# to end on loopback, once per store backend.  Speaks TAP.  Needs
# $top_builddir.
#
#   - three monitors with snapshot_threshold 8 and snapshot_trailing 4; a
#     follower is stopped and 40 pools are made: the leader takes
#     snapshots and its raft directory holds one;
#   - the follower, restarted, is behind the log: it copies another
#     monitor's store in chunks (sync_chunk_size 4K, so many chunks), puts
#     it in place, rejoins and converges; the pools made while it was
#     down are on it, and a write after it is too;
#   - a monitor restarted with its store at its snapshot's entry copies
#     nothing;
#   - at the end the stores are identical record for record (`mapmon-store
#     dump --full`), pass `mapmon-store verify`, and no copy is left
#     behind.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
QUORUM_TMP=mon_snapshot
MON_CONF="propose_interval = 5ms
snapshot_threshold = 8
snapshot_trailing = 4
sync_chunk_size = 4K
max_pg_per_osd = 1000000"
LOG_CONF="debug_mon = 1/5"
. "$top_srcdir/test/lib/quorum_lib.sh"
lsan_pass_libraft

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# copied X: monitor X copied a store in (within 20 s).
copied() {
	local i
	for i in $(seq 1 400); do
		[ "$(raft "$1" stores_copied)" -ge 1 ] 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

run_backend() {
	quorum_up "$1" "three monitors made"
	check "three monitors elect a leader" wait_leader
	check "the leader counts three in quorum" in_quorum 3

	# A follower stops; the log moves on far past threshold + trailing.
	for x in $NAMES; do [ "$x" != "$L" ] && F=$x; done
	stop "$F"
	made=0
	for i in $(seq 1 40); do
		mm osd pool create "p$i" 4 && [ "$rc" -eq 0 ] && made=$((made + 1))
	done
	check "40 pools made with mon.$F down" [ "$made" -eq 40 ]
	check "the leader took snapshots" [ "$(raft "$L" snapshots)" -ge 2 ]
	check "the leader copied no store in" \
	    [ "$(raft "$L" stores_copied)" = 0 ]
	check "the leader's raft directory holds a snapshot" \
	    sh -c 'ls "$0"/raft | grep -q "^snapshot-"' "$D/$L"
	kb=$(du -sk "$D/$L/raft" | cut -f1)
	echo "# mon.$L raft directory: $kb KiB after 40 entries"

	start "$F"
	check "mon.$F, back, copies the store of another monitor" copied "$F"
	check "mon.$F rejoins" in_quorum 3
	check "the three monitors converge" converged
	grep 'sync:' "$D/$F.log" | tail -n 2 | sed 's/^/# /'
	check "mon.$F's log names the copy and its chunks" \
	    grep -q "sync: [0-9]* records in [0-9]* chunks" "$D/$F.log"
	mm1 "$F" osd pool ls
	check "mon.$F lists the 40 pools made while it was down" \
	    [ "$(grep -c '^p[0-9]*$' "$T/out")" -eq 40 ]
	mm osd pool create after 4
	check "a write after the copy is answered" [ "$rc" -eq 0 ]
	converged
	mm1 "$F" osd pool ls
	check "and is on mon.$F" grep -qx after "$T/out"

	# A restart whose store has the snapshot's entry copies nothing.
	wait_leader
	R=$L
	stop "$R"
	start "$R"
	wait_leader
	check "mon.$R restarts and rejoins" in_quorum 3
	check "mon.$R restored its own snapshot: no copy" \
	    [ "$(raft "$R" stores_copied)" = 0 ]
	check "the three monitors converge again" converged

	check_relay
	stores_agree $NAMES
	check "no copy is left in a data directory" \
	    sh -c '[ -z "$(find "$0" -maxdepth 2 -name store.sync -o \
		-maxdepth 2 -name sync.provide)" ]' "$D"
	check_sanitizers
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
