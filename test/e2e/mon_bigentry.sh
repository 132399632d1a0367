#!/bin/bash
# mon_bigentry.sh: commits far over the 1 MiB entry limit on three
# monitors (mapmon-protocol(7), REPLICATED ENTRIES), end to end, once per
# store backend.  Speaks TAP.  Needs $top_builddir.
#
#   - three monitors, a pool of $BIG_PGS PGs (65,536 unless set) made
#     before any OSD: each OSD's boot re-places thousands of PGs, and the
#     simulator's reports carry up to 4,096 PGs, so commits encode to
#     several MiB (with 16,384 PGs of some 100 bytes, the records of
#     version 3, some commits stayed under 1 MiB and none split);
#   - mapmon-bench osd-sim brings every PG to active+clean through the
#     three (--until-clean), each monitor reports all of them
#     active+clean;
#   - the metrics of the three (whoever led proposed): no entry over 1 MiB
#     (mapmon_quorum_entry_bytes_max), none refused; on LMDB with
#     compress_entries off, commits split in parts
#     (mapmon_quorum_proposals_split_total > 0); on LevelDB with it on
#     (the default), the entries compressed (their bytes a fifth of their
#     encodings' at most: mapmon_quorum_entry_raw_bytes_total);
#   - the three stores are identical record for record (`mapmon-store
#     dump --full`) and each passes `mapmon-store verify`.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
BENCH=$top_builddir/tools/mapmon-bench
PGS=${BIG_PGS:-65536}
OSDS=${BIG_OSDS:-12}
QUORUM_TMP=mon_bigentry
# The shipped election timeout, not the quick one of the other quorum
# tests: under ASan on a loaded machine a follower applying a 1 MiB part
# stalls its loop past 300 ms, and leadership churned every few seconds.
ELECTION_TIMEOUT=${ELECTION_TIMEOUT:-1s}
# osd-sim stops reporting when every PG is clean: the checks after it
# (slow under ASan) must not meet the PGs turned stale a minute later.
MON_BASE="max_pg_per_osd = 1000000
pg_stale_timeout = 10m"
. "$top_srcdir/test/lib/quorum_lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# wait_full_quorum: $L, the leader, once it counts the three in quorum
# (within 10 s).
wait_full_quorum() {
	local i x
	for i in $(seq 1 200); do
		for x in $NAMES; do
			mm1 "$x" -f json quorum_status || continue
			if [ "$("$JG" quorum_leader_name <"$T/out")" = "$x" ] &&
			    [ "$("$JG" quorum.# <"$T/out")" = 3 ]; then
				L=$x
				return 0
			fi
		done
		sleep 0.05
	done
	return 1
}
# clean_on X: monitor X has $PGS PGs, all active+clean.
clean_on() {
	mm1 "$1" -f json pg stat || return 1
	[ "$("$JG" num_pgs <"$T/out")" = "$PGS" ] &&
	    [ "$("$JG" pgs_by_state.# <"$T/out")" = 1 ] &&
	    [ "$("$JG" pgs_by_state.0.state_name <"$T/out")" = active+clean ] &&
	    [ "$("$JG" pgs_by_state.0.count <"$T/out")" = "$PGS" ]
}

run_backend() {
	# Compressed, these commits fit one entry: the parts are seen with
	# compression off.
	case $1 in
	lmdb) MON_CONF="$MON_BASE
compress_entries = false" ;;
	*) MON_CONF=$MON_BASE ;;
	esac
	quorum_up "$1" "mkfs of the three monitors"
	check "three monitors elect a leader, all in quorum" wait_full_quorum
	mm1 "$L" osd pool create big "$PGS"
	check "a pool of $PGS PGs, before any OSD" [ "$rc" -eq 0 ]

	MAPMON_KEYRING=$D/keyring "$BENCH" osd-sim -m "$ALL" \
	    --osds "$OSDS" --until-clean --duration "${BIG_DURATION:-120}" >"$D/sim" 2>&1
	rc=$?
	DIAG=$(tail -n 3 "$D/sim")
	check "osd-sim: $OSDS OSDs bring the $PGS PGs to active+clean" \
	    [ "$rc" -eq 0 ]
	DIAG=
	# Under ASan the uncompressed run (LMDB, tens of MiB of parts) is
	# slow to apply on the followers: up to 90 s.
	check "the three monitors converge" converged 1800
	for x in $NAMES; do
		check "mon.$x: all $PGS PGs active+clean" clean_on "$x"
	done
	# Whoever led proposed: a leader change under load (an election
	# while a loaded machine stalls a loop) moves the proposing to
	# another monitor, so the figures are summed over the three (the
	# largest entry the largest of any).
	max=0 split=0 total=0 qsplit=0 raw=0 dropped=0
	for x in $NAMES; do
		metrics "$x" || continue
		v=$(metric quorum_entry_bytes_max)
		[ -n "$v" ] && [ "$v" -gt "$max" ] && max=$v
		v=$(metric quorum_proposals_split_total)
		split=$((split + ${v:-0}))
		v=$(metric quorum_entry_bytes_total)
		total=$((total + ${v:-0}))
		v=$(metric quorum_entry_raw_bytes_total)
		raw=$((raw + ${v:-0}))
		v=$(metric quorum_appends_dropped_total)
		dropped=$((dropped + ${v:-0}))
		mm1 "$x" -f json quorum_status
		v=$("$JG" raft.proposals_split <"$T/out")
		qsplit=$((qsplit + ${v:-0}))
	done
	echo "# the three monitors: entry_bytes_max $max, entry_bytes_total" \
	    "$total, entry_raw_bytes_total $raw, proposals_split $split," \
	    "appends_dropped $dropped"
	check "no monitor proposed an entry over 1 MiB ($max bytes)" \
	    sh -c '[ -n "$0" ] && [ "$0" -gt 0 ] && [ "$0" -le 1048576 ]' \
	    "$max"
	if [ "$BACKEND" = lmdb ]; then
		check "commits over 1 MiB went in parts ($split of them)" \
		    sh -c '[ -n "$0" ] && [ "$0" -ge 1 ]' "$split"
	else
		check "entries compressed: $total bytes for $raw" \
		    sh -c '[ "$0" -gt 0 ] && [ $(($0 * 5)) -le "$1" ]' \
		    "$total" "$raw"
	fi
	check "quorum_status says so too" [ "$qsplit" = "$split" ]
	check "no commit refused as too big (EFBIG)" \
	    sh -c '! grep -q "refused: the commit would be" "$0"/*.log' "$D"

	check_relay
	stores_agree $NAMES
	check_sanitizers
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
