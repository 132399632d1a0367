#!/bin/bash
# mon_join_big.sh: a fresh monitor joins a quorum that holds 221,568 PGs
# (mapmond(8), Membership), end to end on loopback, once per store backend.
# Speaks TAP.  Needs $top_builddir.
#
#   - three monitors, four pools of 65,536 + 65,536 + 65,536 + 24,960 PGs
#     (creating: no OSD), as bench/quorum/join.sh makes them;
#   - `mon add d`, `mapmond --mkfs --join`, d started: it serves a
#     `pg stat` of all 221,568 PGs and counts in the leader's quorum;
#   - the copy went in bounded chunks (the default sync_chunk_size of
#     1 MiB: some 14 of them for the 221,568 PG records of about 60 bytes),
#     never as one buffer of the whole map, and
#     d's anonymous memory stays that of a monitor of this size (checked
#     without sanitizers, whose shadow memory would count);
#   - the four stores are identical record for record and pass verify.
# Its time is BENCHMARKS.md's (bench/quorum/join.sh), not checked here.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
QUORUM_TMP=mon_join_big
NAMES="a b c d"
MON_CONF="max_pg_per_osd = 1000000
max_pgs = 300000"
. "$top_srcdir/test/lib/quorum_lib.sh"
lsan_pass_libraft

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# serves_all X: monitor X answers a pg stat of every PG.
serves_all() {
	mm1 "$1" pg stat && grep -q '^221568 pgs' "$T/out"
}

# kb_of X FIELD: FIELD of monitor X's /proc status, in KiB.
kb_of() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$(pid_of "$1")/status"
}

run_backend() {
	local x all3 chunks anon sanitized=
	set_backend "$1"
	pick_addrs
	# d's config names all four; a, b and c are made with three.
	write_confs
	mv "$D/d.conf" "$T/d.conf"
	NAMES="a b c" write_confs
	mv "$T/d.conf" "$D/d.conf"
	all3=$(addr a),$(addr b),$(addr c)
	ALL=$all3
	mkfs_quorum a b c >"$T/out" 2>"$T/err"
	check "three monitors made" [ $? -eq 0 ]
	for x in a b c; do start "$x"; done
	check "three monitors elect a leader" wait_leader
	made=0
	for p in 1 2 3; do
		mm osd pool create "big$p" 65536 && [ "$rc" -eq 0 ] &&
		    made=$((made + 1))
	done
	mm osd pool create big4 24960 && [ "$rc" -eq 0 ] && made=$((made + 1))
	check "four pools of 221,568 PGs made" [ "$made" -eq 4 ]
	check "the leader serves all 221,568 PGs" within 600 serves_all "$L"

	mm mon add d "$(addr d)"
	check "mon add d: adding mon.d" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "adding mon.d at $2" "$1"' \
	    "$rc" "$T/err" "$(addr d)"
	"$MAPMOND" -c "$D/d.conf" --mkfs --join "$all3" \
	    --keyring "$D/keyring" >"$T/out" 2>"$T/err"
	check "mapmond --mkfs --join makes mon.d" [ $? -eq 0 ]
	start d
	ALL=$all3,$(addr d)
	check "mon.d serves all 221,568 PGs" within 2400 serves_all d
	wait_leader
	check "the leader counts four in quorum" in_quorum 4
	check "mon.d copied a store" [ "$(raft d stores_copied)" -ge 1 ]
	chunks=$(sed -n 's/.*records in \([0-9]*\) chunks from.*/\1/p' \
	    "$D/d.log" | head -n 1)
	check "the copy went in bounded chunks (${chunks:-none})" \
	    [ "${chunks:-0}" -ge 8 ]
	ldd "$MAPMOND" | grep -q 'libasan\|libubsan' && sanitized=1
	anon=$(kb_of d RssAnon)
	if [ -z "$sanitized" ]; then
		check "mon.d's anonymous memory is that of a monitor of 221,568 PGs ($((${anon:-0} / 1024)) MiB, under 768)" \
		    sh -c '[ "$0" -gt 0 ] && [ "$0" -lt $((768 * 1024)) ]' \
		    "${anon:-0}"
	else
		ok "mon.d's memory # SKIP shadow memory counts under sanitizers"
	fi
	stores_agree a b c d
	check_sanitizers
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
