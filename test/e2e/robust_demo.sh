#!/bin/bash
# robust_demo.sh: README command 1, tools/demo.sh, against this build.
# Speaks TAP.  Needs $top_srcdir and $top_builddir.
#
# The demo runs with stdin from /dev/null, --for 15 and free ports
# (--port 0), in a temporary MAPMON_DEMO_DIR.  While it runs, the real CLI
# must see three monitors in quorum, every simulated OSD up, the three
# pools' PGs, and stats that change; the leader is killed as the hints
# say, and the two others elect a leader, `mapmon -w' carries on through
# another monitor and the simulated OSDs keep reporting; when --for is
# over the demo must stop the simulator and the monitors and exit 0.  A
# second run must reuse the stores (no mkfs).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
DEMO=$top_srcdir/tools/demo.sh
MAPMON=$top_builddir/tools/mapmon
JG=$top_builddir/test/lib/json_get

T=$(mktemp -d /tmp/robust_demo.XXXXXX) || exit 99
DEMOPID=
WPID=
cleanup() {
	[ -n "$WPID" ] && kill "$WPID" 2>/dev/null
	# A demo left running (a failed check) takes its children along.
	if [ -n "$DEMOPID" ]; then
		kill -TERM "$DEMOPID" 2>/dev/null
		wait "$DEMOPID" 2>/dev/null
	fi
	for p in $(sed -n 's/.*stopping mapmond (pid \([0-9]*\)).*/\1/p' \
	    "$T"/out.* 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT

n=0
failed=0
check() {	# check DESC COMMAND...
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $d"
	else
		failed=$((failed + 1))
		echo "not ok $n - $d"
		tail -n 15 "$OUT" 2>/dev/null | sed 's/^/# /'
	fi
}

export MAPMON_DEMO_DIR=$T/demo
# The admin's key, which the demo's --mkfs writes there and every client
# needs.
export MAPMON_KEYRING=$MAPMON_DEMO_DIR/client.admin.keyring

# run_demo NAME ARGS...: start the demo in the background, output in
# $T/out.NAME; wait for the address it prints.
run_demo() {
	local name=$1 i
	shift
	OUT=$T/out.$name
	bash "$DEMO" "$top_builddir" "$@" </dev/null >"$OUT" 2>&1 &
	DEMOPID=$!
	ADDR=
	for i in $(seq 1 600); do
		ADDR=$(sed -n 's/^The monitors listen on \([0-9.:,]*\) .*/\1/p' \
		    "$OUT")
		[ -n "$ADDR" ] && return 0
		kill -0 "$DEMOPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# finish_demo: wait for the demo to end by itself (at most 30 s).
finish_demo() {
	local i
	for i in $(seq 1 300); do
		kill -0 "$DEMOPID" 2>/dev/null || break
		sleep 0.1
	done
	wait "$DEMOPID"
	DEMO_RC=$?
	DEMOPID=
}
jis() {	# jis FILE PATH VALUE
	[ "$("$JG" "$2" <"$1")" = "$3" ]
}
wait_grep() {	# wait_grep PATTERN FILE: at most 5 s
	local i
	for i in $(seq 1 50); do
		grep -q -- "$1" "$2" && return 0
		sleep 0.1
	done
	return 1
}
state_count() {	# state_count FILE STATE: PGs in that state
	local i s
	for i in $(seq 0 $(($("$JG" pgmap.pgs_by_state.# <"$1") - 1))); do
		s=$("$JG" "pgmap.pgs_by_state.$i.state_name" <"$1")
		[ "$s" = "$2" ] && "$JG" "pgmap.pgs_by_state.$i.count" <"$1" &&
		    return 0
	done
	echo 0
}

"$DEMO" --help >"$T/help" 2>&1
check "demo.sh --help exits 0" test $? -eq 0
check "the usage tells of --for SECONDS" grep -q -- "--for SECONDS" "$T/help"
"$DEMO" --bogus >/dev/null 2>&1
check "an unknown option is a usage error (exit 64)" test $? -eq 64
"$DEMO" "$T/nonexistent" --for 1 </dev/null >"$T/nobuild" 2>&1
check "a missing build directory is an error" test $? -eq 1

check "the demo starts and prints the monitors' addresses" run_demo first \
    --for 15 --port 0
check "three new stores are made on the first run" \
    grep -q "making three new LMDB stores" "$OUT"
# The hints come after the address, the capacity ones once df answers:
# read them when the demo says how it will stop, which it prints last.
check "the demo ends its hints with how it stops" eval \
    'for i in $(seq 1 300); do grep -q "stopping in\|no terminal on stdin" \
    "$OUT" && break; sleep 0.1; done; grep -q "stopping in\|no terminal on stdin" "$OUT"'
check "it prints the keyring to use" grep -qxF -- \
    "    export MAPMON_KEYRING=$MAPMON_KEYRING" "$OUT"
check "it prints the monitors to use" grep -qxF -- \
    "    export MAPMON_MON=$ADDR" "$OUT"
for c in " -s" " osd tree" " pg stat" " -w" " pg map 1.0" " auth ls"; do
	check "it prints what to type next: mapmon$c" \
	    grep -qF -- "tools/mapmon$c" "$OUT"
done

CTL=$MAPMON_DEMO_DIR/sim.ctl
check "it prints how to kill an OSD through the simulator's FIFO" \
    grep -qF -- "echo 'kill 3' > $CTL" "$OUT"
check "... and how to revive it" grep -qF -- "echo 'revive 3' > $CTL" "$OUT"
check "it prints how to kill a whole host" \
    grep -qF -- "echo 'kill-host host1' > $CTL" "$OUT"
check "... and how to bring the host back" \
    grep -qF -- "echo 'revive-host host1' > $CTL" "$OUT"
# Printed once `df' has answered, after the address: waited for.
for c in " df" " osd df"; do
	check "it prints what the OSDs store: mapmon$c" \
	    wait_grep "tools/mapmon$c\$" "$OUT"
done
osd_kb() {	# the size osd df gives osd.0, in KiB, as the leader has it
	local a
	for a in $(echo "$ADDR" | tr , ' '); do
		"$MAPMON" -m "$a" -f json osd df 2>/dev/null | "$JG" nodes.0.kb
	done | sort -n | tail -n 1
}
check "osd df: the 1 TiB store the simulated osd.0 reports" \
    eval 'for i in $(seq 1 50); do [ "$(osd_kb)" = 1073741824 ] && break;
    sleep 0.1; done; [ "$(osd_kb)" = 1073741824 ]'
"$MAPMON" -m "$ADDR" auth ls >"$T/auth" 2>/dev/null
check "auth ls: the six simulated OSDs, each its own entity with mon 'allow profile osd'" \
    test "$(grep -A2 -x 'osd\.[0-5]' "$T/auth" |
    grep -cx '	caps: \[mon\] allow profile osd')" = 6
check "the simulator's control FIFO is there" test -p "$CTL"
echo status >"$CTL"
check "'echo status' to it: the simulator's view in its log" \
    wait_grep "running 0-5; killed none" "$MAPMON_DEMO_DIR/osd-sim.log"

"$MAPMON" -m "$ADDR" -f json status >"$T/st1" 2>&1
check "status answers" test $? -eq 0
check "status: 6 OSDs, all up and in" eval 'jis "$T/st1" osdmap.num_osds 6 &&
    jis "$T/st1" osdmap.num_up_osds 6 && jis "$T/st1" osdmap.num_in_osds 6'
check "status: 3 pools, 112 PGs" eval 'jis "$T/st1" pgmap.num_pools 3 &&
    jis "$T/st1" pgmap.num_pgs 112'
check "status: PGs active+clean" test "$(state_count "$T/st1" active+clean)" \
    -gt 0
"$MAPMON" -m "$ADDR" -s >"$T/plain" 2>&1
check "mapmon -s shows the OSDs up" grep -q "6 osds: 6 up, 6 in" "$T/plain"
"$MAPMON" -m "$ADDR" -f json pg stat >"$T/ps1" 2>&1
sleep 2
"$MAPMON" -m "$ADDR" -f json pg stat >"$T/ps2" 2>&1
v1=$("$JG" version <"$T/ps1")
v2=$("$JG" version <"$T/ps2")
check "the PG stats keep changing (pgmap version $v1, then $v2)" \
    test "${v2:-0}" -gt "${v1:-0}"
o1=$("$JG" num_objects <"$T/ps1")
o2=$("$JG" num_objects <"$T/ps2")
check "objects keep growing ($o1, then $o2)" test "${o2:-0}" -gt "${o1:-0}"
# The pools hold objects: each has its application (as Ceph's tools
# enable them), so Ceph 16's POOL_APP_NOT_ENABLED stays off.
"$MAPMON" -m "$ADDR" -f json osd pool application get >"$T/apps" 2>&1
check "each pool has its application" test "$(cat "$T/apps")" = \
    '{"rbd":{"rbd":{}},"cephfs.data":{"cephfs":{}},"cephfs.meta":{"cephfs":{}}}'
"$MAPMON" -m "$ADDR" -f json health >"$T/h1" 2>&1
check "no POOL_APP_NOT_ENABLED, the pools holding objects" eval \
    '! grep -q POOL_APP_NOT_ENABLED "$T/h1"'
"$MAPMON" -m "$ADDR" pg map 1.0 >"$T/pgmap" 2>&1
check "pg map 1.0 names an acting set" grep -q "acting" "$T/pgmap"
"$MAPMON" -m "$ADDR" osd tree >"$T/tree" 2>&1
check "osd tree shows the demo's three hosts, two OSDs each" eval \
    '[ "$(grep -Ec "^ *-[0-9]+ +2\.00000      host host[012] *$" "$T/tree")" = 3 ]'

# Three monitors; the leader killed as the hints say.
"$MAPMON" -m "$ADDR" -f json quorum_status >"$T/qs" 2>&1
check "quorum_status: a leader and three monitors in the monmap" eval \
    '[ -n "$("$JG" quorum_leader_name <"$T/qs")" ] &&
    jis "$T/qs" monmap.mons.# 3'
LPID=$(sed -n 's/^    kill \([0-9][0-9]*\)$/\1/p' "$OUT")
check "it prints how to kill the leader (kill $LPID)" eval \
    '[ -n "$LPID" ] && grep -q "mon\.[abc] leads now (pid $LPID)" "$OUT"'
"$MAPMON" -m "$ADDR" -w >"$T/watch" 2>"$T/watch.err" &
WPID=$!
wait_grep HEALTH "$T/watch"
"$MAPMON" -m "$ADDR" -f json pg stat >"$T/ps3" 2>&1
kill "$LPID"
# A new leader within a fraction of a second (the followers' links to the
# killed one end with it); the killed one leaves the quorum once not heard
# for an election timeout.
check "after the leader is killed, the other two elect one" eval \
    'for i in $(seq 1 100); do "$MAPMON" -m "$ADDR" -f json quorum_status \
    >"$T/qs2" 2>/dev/null && [ -n "$("$JG" quorum_leader_name <"$T/qs2")" ] &&
    ! jis "$T/qs2" quorum_leader_name "$("$JG" quorum_leader_name <"$T/qs")" &&
    jis "$T/qs2" quorum.# 2 && break; sleep 0.1; done; jis "$T/qs2" quorum.# 2'
check "mapmon -w lost its monitor or kept one, and carries on" eval \
    'for i in $(seq 1 50); do "$MAPMON" -m "$ADDR" log "after the kill" &&
    grep -q "after the kill" "$T/watch" && break; sleep 0.1; done;
    grep -q "after the kill" "$T/watch"'
kill "$WPID"
wait "$WPID" 2>/dev/null
WPID=
check "the simulated OSDs keep reporting through the kill" eval \
    'for i in $(seq 1 50); do "$MAPMON" -m "$ADDR" -f json pg stat \
    >"$T/ps4" 2>/dev/null && [ "$("$JG" version <"$T/ps4")" -gt \
    "$(("$("$JG" version <"$T/ps3")" + 2))" ] && break; sleep 0.1; done;
    [ "$("$JG" version <"$T/ps4")" -gt "$(("$("$JG" version <"$T/ps3")" + 2))" ]'

finish_demo
check "after --for 15 the demo exits 0 (exit $DEMO_RC)" test "$DEMO_RC" -eq 0
check "it says the leader killed was stopped already" \
    grep -q "(pid $LPID) was stopped already" "$OUT"
dpids=$(sed -n 's/.*stopping mapmond (pid \([0-9]*\)).*/\1/p' "$OUT")
check "it stopped the two other mapmond" eval \
    '[ "$(echo "$dpids" | wc -w)" = 2 ] && ! kill -0 $dpids 2>/dev/null'
check "each of the three logged a clean stop (kill sends SIGTERM)" eval \
    '[ "$(grep -l "mapmond stopped" "$MAPMON_DEMO_DIR"/mon-?.log | wc -l)" = 3 ]'
"$MAPMON" -m "$ADDR" --connect-timeout 1 status >/dev/null 2>&1
check "nothing answers at the address any more (exit 111)" test $? -eq 111
check "no simulator is left behind" eval '! pgrep -f \
    "mapmon-bench osd-sim -m $ADDR " >/dev/null'
check "the simulator removed its FIFO" test ! -e "$CTL"

check "a second run starts" run_demo second --for 1 --port 0
check "the second run reuses the stores" grep -q "reusing the demo stores" \
    "$OUT"
"$MAPMON" -m "$ADDR" -f json status >"$T/st2" 2>&1
check "the cluster of the first run is there: same fsid, 3 pools" eval \
    '[ "$("$JG" fsid <"$T/st1")" = "$("$JG" fsid <"$T/st2")" ] &&
    jis "$T/st2" pgmap.num_pools 3'
finish_demo
check "the second run exits 0 (exit $DEMO_RC)" test "$DEMO_RC" -eq 0
! grep -q -e "AddressSanitizer" -e "LeakSanitizer" -e "runtime error:" \
    "$MAPMON_DEMO_DIR"/*.log*
check "no sanitizer report in the demo's logs" test $? -eq 0

echo "1..$n"
[ "$failed" -eq 0 ]
