#!/bin/bash
# mon_member.sh: monitors removed and added (mapmond(8), Membership), end to
# end on loopback, once per store backend.  Speaks TAP.  Needs
# $top_builddir.
#
#   - three monitors with data; `mon add` of a monitor that is there
#     answers 0, of its name or address elsewhere EEXIST, as Ceph;
#   - a writer makes pools from before the follower's removal to after
#     its join: every pool it had acknowledged is on all three;
#   - `mon rm` of a follower: "removing mon.X at ADDR, there will be 2
#     monitors", the monmap's epoch moves, the removed monitor stops, the
#     two go on taking writes; again: "does not exist or has already been
#     removed" (0);
#   - `mon add` of it again; another `mon add` before it votes: EBUSY;
#     made afresh with `mapmond --mkfs --join`, it is killed -9 half way
#     through copying the store (4 KiB chunks), started again copies it
#     afresh to the end, with the pools, becomes a voter (three in quorum)
#     and converges;
#   - `mon rm` of the leader: it stops, the two others elect and serve;
#     their stores are identical record for record and pass
#     `mapmon-store verify`;
#   - of those two, `mon rm` of the leader: it leaves the engine's
#     configuration before it stops, so the last one leads alone and
#     takes writes; `mon rm` of the last one: EINVAL.
# Election timeout 300 ms to save time.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
QUORUM_TMP=mon_member
QUORUM_BG="WPID"
MON_CONF="propose_interval = 5ms
snapshot_threshold = 8
snapshot_trailing = 4
max_pg_per_osd = 1000000
sync_chunk_size = 4K"
. "$top_srcdir/test/lib/quorum_lib.sh"
lsan_pass_libraft

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# caught_up X Y: monitor X applies what Y had applied when asked (within
# 30 s: under ASan a copy and the writer's commits take their time).
applied_at_least() {
	local a
	a=$(applied "$1") && [ -n "$a" ] && [ "$a" -ge "$2" ]
}
caught_up() {
	local want
	want=$(applied "$2") && [ -n "$want" ] || return 1
	within 600 applied_at_least "$1" "$want"
}

# gone X: monitor X's process ended by itself (within 10 s).
gone() {
	local i
	for i in $(seq 1 200); do
		kill -0 "$(pid_of "$1")" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

run_backend() {
	quorum_up "$1" "three monitors made"
	check "three monitors elect a leader" wait_leader
	check "the leader counts three in quorum" in_quorum 3
	made=0
	for i in $(seq 1 12); do
		mm osd pool create "p$i" 4 && [ "$rc" -eq 0 ] &&
		    made=$((made + 1))
	done
	check "12 pools made" [ "$made" -eq 12 ]
	# And one of 4,096 PGs, so that a copy takes hundreds of chunks.
	mm osd pool create big 4096
	check "a pool of 4096 PGs made" [ "$rc" -eq 0 ]

	# Ceph's answers to an add of what is there.
	mm mon add "$L" "$(addr "$L")"
	check "mon add of mon.$L at its address: 0, already exists" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "already exists" "$1"' \
	    "$rc" "$T/err"
	mm mon add "$L" 127.0.0.1:1
	check "mon add of mon.$L at another address: EEXIST" \
	    sh -c '[ "$0" -eq 17 ] &&
		grep -q "mon.$2 already exists at address" "$1"' \
	    "$rc" "$T/err" "$L"
	mm mon add zz "$(addr "$L")"
	check "mon add of a new name at mon.$L's address: EEXIST" \
	    sh -c '[ "$0" -eq 17 ]' "$rc"
	mm mon add yy not-an-address
	check "mon add of a bad address: EINVAL naming it" \
	    sh -c '[ "$0" -eq 22 ] && grep -q "not-an-address" "$1"' \
	    "$rc" "$T/err"

	# A writer runs through the membership changes below, to the join.
	: >"$D/acked"
	rm -f "$T/stop"
	pool_writer "$D/acked" &
	WPID=$!

	# A follower removed.
	for x in $NAMES; do [ "$x" != "$L" ] && F=$x; done
	mm mon rm "$F"
	check "mon rm $F: removing mon.$F, there will be 2 monitors" \
	    sh -c '[ "$0" -eq 0 ] &&
		grep -q "removing mon.$2 at $3, there will be 2 monitors" "$1"' \
	    "$rc" "$T/err" "$F" "$(addr "$F")"
	check "mon.$F stops by itself" gone "$F"
	grep 'removed from the monmap' "$D/$F.log" | sed 's/^/# /'
	mm1 "$L" -f json mon dump
	check "mon dump: epoch 2, two monitors" \
	    sh -c '[ "$("$1" epoch <"$0")" = 2 ] &&
		[ "$("$1" mons.# <"$0")" = 2 ]' "$T/out" "$JG"
	check "the leader counts two in quorum" in_quorum 2
	mm osd pool create afterrm 4
	check "a write with two monitors" [ "$rc" -eq 0 ]
	mm1 "$L" mon rm "$F"
	check "mon rm $F again: 0, does not exist or has already been removed" \
	    sh -c '[ "$0" -eq 0 ] &&
		grep -q "does not exist or has already been removed" "$1"' \
	    "$rc" "$T/err"

	# Added again (once the engine has let the removed one go: one
	# change at a time), made afresh, joins.
	for i in $(seq 1 200); do
		mm1 "$L" mon add "$F" "$(addr "$F")"
		[ "$rc" -ne 16 ] && break
		sleep 0.05
	done
	check "mon add $F: adding mon.$F at its address" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "adding mon.$2 at $3" "$1"' \
	    "$rc" "$T/err" "$F" "$(addr "$F")"
	mm1 "$L" mon add yy 127.0.0.1:2
	check "another mon add before mon.$F votes: EBUSY" \
	    sh -c '[ "$0" -eq 16 ] && grep -q "one at a time" "$1"' \
	    "$rc" "$T/err"
	rm -rf "${D:?}/$F"
	"$MAPMOND" -c "$D/$F.conf" --mkfs --join "$ALL" \
	    --keyring "$D/keyring" >"$T/out" 2>"$T/err"
	check "mapmond --mkfs --join makes mon.$F" [ $? -eq 0 ]
	# Killed half way through its copy (hundreds of 4 KiB chunks), it
	# copies afresh when started again.
	start "$F"
	i=0
	until grep -qs "sync: copying the store of the monitor" "$D/$F.log" ||
	    [ $i -ge 1000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	kill -KILL "$(pid_of "$F")"
	check "mon.$F killed -9 during its store copy" \
	    sh -c 'grep -q "sync: copying the store of the monitor" "$0" &&
		! grep -q "records in [0-9]* chunks from" "$0"' "$D/$F.log"
	start "$F"
	wait_leader
	check "mon.$F joins: the leader counts three in quorum" in_quorum 3
	# The writer still commits: mon.$F catches up with where the leader
	# was (the three are compared once the writer has stopped).
	check "mon.$F catches up with the leader" caught_up "$F" "$L"
	mm1 "$F" osd pool ls
	check "mon.$F has the pools" \
	    sh -c '[ "$(grep -c "^p[0-9]*$" "$0")" -eq 12 ] &&
		grep -qx afterrm "$0"' "$T/out"
	check "mon.$F copied a store" [ "$(raft "$F" stores_copied)" -ge 1 ]
	# (A later snapshot may copy the store again: at least one.)
	check "mon.$F's copy after the kill went to its end" \
	    [ "$(grep -c "records in [0-9]* chunks from" "$D/$F.log")" -ge 1 ]
	mm1 "$L" -f json mon dump
	check "mon dump: epoch 3, three monitors" \
	    sh -c '[ "$("$1" epoch <"$0")" = 3 ] &&
		[ "$("$1" mons.# <"$0")" = 3 ]' "$T/out" "$JG"
	mm osd pool create afteradd 4
	check "a write with the three" [ "$rc" -eq 0 ]
	touch "$T/stop"
	wait "$WPID"
	WPID=
	check "the writer had writes acknowledged through the changes ($(wc -l <"$D/acked"))" \
	    [ "$(wc -l <"$D/acked")" -gt 3 ]
	check "the three converge after the writer" within 600 all_applied a b c
	for x in $NAMES; do
		check "mon.$x lists every pool the writer had acknowledged" \
		    has_acked "$x"
	done

	# The leader removed.
	wait_leader
	OLD=$L
	for i in $(seq 1 200); do
		mm1 "$OLD" mon rm "$OLD"
		[ "$rc" -ne 16 ] && break
		sleep 0.05
	done
	check "mon rm of the leader mon.$OLD: 0, there will be 2 monitors" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "there will be 2 monitors" "$1"' \
	    "$rc" "$T/err"
	check "mon.$OLD stops by itself" gone "$OLD"
	LEFT=
	for x in $NAMES; do [ "$x" != "$OLD" ] && LEFT="$LEFT $x"; done
	check "the two left elect a leader" wait_leader
	check "the new leader counts two in quorum" in_quorum 2
	mm osd pool create afterleader 4
	check "a write after the leader's removal" [ "$rc" -eq 0 ]
	check "the two converge" same_applied $LEFT

	check_relay
	stores_agree $LEFT

	# Of two, the leader removed: the last one is a quorum of its own.
	for x in $LEFT; do start "$x"; done
	check "the two elect a leader again" wait_leader
	OLD=$L
	for i in $(seq 1 200); do
		mm1 "$OLD" mon rm "$OLD"
		[ "$rc" -ne 16 ] && break
		sleep 0.05
	done
	check "mon rm of the leader of two: there will be 1 monitors" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "there will be 1 monitors" "$1"' \
	    "$rc" "$T/err"
	check "mon.$OLD leaves the configuration, then stops" gone "$OLD"
	grep -h 'leaves the configuration\|stopping' "$D/$OLD.log" |
	    tail -n 2 | sed 's/^/# /'
	for x in $LEFT; do [ "$x" != "$OLD" ] && LAST=$x; done
	check "mon.$LAST alone leads" wait_leader
	mm1 "$LAST" osd pool create alone 4
	check "mon.$LAST alone takes a write" [ "$rc" -eq 0 ]
	mm1 "$LAST" mon rm "$LAST"
	check "mon rm of the last monitor: EINVAL" \
	    sh -c '[ "$0" -eq 22 ] &&
		grep -q "refusing removal of last monitor" "$1"' "$rc" "$T/err"
	stop "$LAST"
	check "mapmon-store verify passes on the last, mon.$LAST" \
	    "$STORE" -c "$D/$LAST.conf" verify
	check_sanitizers
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
