#!/bin/bash
# mon_capacity.sh: the OSDs' capacity on every monitor of a quorum (issue
# 18; mapmond(8), Capacity), once per store backend.  Speaks TAP.  Needs
# $top_builddir.
#
#   - three monitors; three OSDs made and booted, and their beacons with a
#     capacity sent through a follower (forwarded to the leader): within
#     the capacity interval (5 s) and a commit, `df -f json' and `osd df
#     -f json' are the leader's on each follower, and so are the usage
#     figures and the OSD_NEARFULL check of `status -f json';
#   - the leader is killed (SIGKILL): the new leader and the other
#     survivor still show them, with no beacon since; the killed monitor
#     restarted shows them as soon as it answers;
#   - a removed OSD's capacity is gone on every monitor;
#   - the three stores are identical record for record, hold one "S"
#     record per remaining OSD, and pass `mapmon-store verify'.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
QUORUM_TMP=mon_capacity
KEEP_VAR=CAPACITY_KEEP
MON_CONF="propose_interval = 5ms"
METRICS=no
. "$top_srcdir/test/lib/quorum_lib.sh"
GIB=1073741824

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# The capacity figures of monitor X, one line per command, in $D/X.cap:
# df, osd df, and of status the usage and whether OSD_NEARFULL is raised.
figures() {
	local x=$1
	: >"$D/$x.cap"
	mm1 "$x" -f json df
	[ "$rc" -eq 0 ] || return 1
	cat "$T/out" >>"$D/$x.cap"
	mm1 "$x" -f json osd df
	[ "$rc" -eq 0 ] || return 1
	cat "$T/out" >>"$D/$x.cap"
	mm1 "$x" -f json status
	[ "$rc" -eq 0 ] || return 1
	for k in pgmap.bytes_total pgmap.bytes_used pgmap.bytes_avail \
	    health.checks.OSD_NEARFULL.summary.message; do
		echo "$k=$("$JG" "$k" <"$T/out")" >>"$D/$x.cap"
	done
}
# same_as REF X...: within 15 s, each monitor X has REF's figures (taken
# once, before).
same_as() {
	local ref=$1 i x all
	shift
	for i in $(seq 1 150); do
		all=1
		for x in "$@"; do
			figures "$x" && cmp -s "$D/$ref.ref" "$D/$x.cap" ||
			    all=0
		done
		[ $all = 1 ] && return 0
		sleep 0.1
	done
	DIAG=$(for x in "$@"; do diff "$D/$ref.ref" "$D/$x.cap"; done |
	    head -c 800)
	return 1
}
# now_same_as REF X: X has REF's figures at its first answer.
now_same_as() {
	local i
	for i in $(seq 1 100); do
		mm1 "$2" -f json quorum_status
		[ "$rc" -eq 0 ] && break
		sleep 0.05
	done
	figures "$2" && cmp -s "$D/$1.ref" "$D/$2.cap"
	rc=$?
	DIAG=$(diff "$D/$1.ref" "$D/$2.cap" | head -c 800)
	return $rc
}
beacon() {
	mm1 "$1" raw "{\"prefix\":\"osd beacon\",\"id\":$2,\"statfs\":{\"total\":$(($3 * GIB)),\"used\":$(($4 * GIB)),\"avail\":$(($5 * GIB))}}"
	[ "$rc" -eq 0 ]
}

run_backend() {
	quorum_up "$1" "mkfs of the three monitors"
	check "three monitors elect a leader" wait_leader
	F1=$(for x in $NAMES; do [ "$x" != "$L" ] && echo "$x"; done |
	    head -n 1)
	F2=$(for x in $NAMES; do [ "$x" != "$L" ] && echo "$x"; done |
	    tail -n 1)

	for i in 0 1 2; do
		mm1 "$L" osd create "$i"
		[ "$rc" -eq 0 ] && mm1 "$L" osd boot "$i" "127.0.0.1:680$i"
		check "osd.$i made and booted" [ "$rc" -eq 0 ]
	done
	# Through a follower: forwarded, as an OSD's beacon may be.
	beacon "$F1" 0 100 20 80 && beacon "$F1" 1 100 90 10 &&
	    beacon "$F1" 2 50 10 40
	check "beacons with a capacity through follower $F1" [ "$rc" -eq 0 ]
	figures "$L"
	cp "$D/$L.cap" "$D/$L.ref"
	check "the leader counts them at once (250 GiB)" \
	    grep -q "^pgmap.bytes_total=$((250 * GIB))$" "$D/$L.ref"
	check "and raises OSD_NEARFULL" \
	    grep -q "^health.checks.OSD_NEARFULL.summary.message=1 nearfull osd(s)$" \
	    "$D/$L.ref"
	check "both followers show the leader's df, osd df and status" \
	    same_as "$L" "$F1" "$F2"

	# The leader dies; nobody beacons again.
	OLD=$L
	kill -KILL "$(pid_of "$OLD")"
	check "the survivors elect a new leader" wait_leader
	check "the new leader $L has every capacity at once" \
	    now_same_as "$OLD" "$L"
	S=$(for x in $NAMES; do [ "$x" != "$L" ] && [ "$x" != "$OLD" ] &&
	    echo "$x"; done)
	check "and so has the other survivor $S" now_same_as "$OLD" "$S"
	start "$OLD"
	check "the old leader restarted has them from its store" \
	    now_same_as "$OLD" "$OLD"

	# osd.2 removed: its capacity is gone everywhere.
	mm1 "$L" osd down 2
	[ "$rc" -eq 0 ] && mm1 "$L" osd rm 2
	check "osd.2 down and removed" [ "$rc" -eq 0 ]
	figures "$L"
	cp "$D/$L.cap" "$D/$L.ref"
	check "the leader counts osd.2 no more (200 GiB)" \
	    grep -q "^pgmap.bytes_total=$((200 * GIB))$" "$D/$L.ref"
	check "and neither does any monitor" same_as "$L" $NAMES

	stores_agree $NAMES
	"$STORE" -c "$D/a.conf" dump --full >"$T/out" 2>"$T/err"
	DIAG=$(grep -c '^S' "$T/out")
	check "the store holds a capacity record per OSD left (2)" \
	    [ "$DIAG" = 2 ]
	"$STORE" -c "$D/a.conf" verify >"$T/out" 2>&1
	check "verify counts them" grep -q "^osd capacities: 2$" "$T/out"
	DIAG=
	check_sanitizers "no monitor's stderr has a sanitizer report"
}

for be in ${CAPACITY_BACKENDS:-lmdb leveldb}; do
	run_backend "$be"
done
done_testing
