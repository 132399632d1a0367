#!/bin/bash
# sim_hosts.sh: failure domains end to end: the real mapmond and the OSD
# simulator (mapmon-bench osd-sim --hosts), whose OSDs boot with their
# crush location.  Six OSDs on three hosts (host0 .. host2, two each) and a
# 3-way pool: the hosts show in `osd tree`, and no PG ever has two copies
# on one host, with every OSD up, while a whole host is down (killed at
# once through the control FIFO: two copies each, TOO_FEW_OSDS naming the
# rule) and after it comes back.  Speaks TAP.  Needs $top_builddir.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

. "${top_srcdir:-.}/test/lib/ops_lib.sh"
BENCH=$top_builddir/tools/mapmon-bench
JG=$top_builddir/test/lib/json_get
SPID=

sim_cleanup() {
	[ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null
	ops_cleanup
}
trap sim_cleanup EXIT

mm() { "$MAPMON" -m "$ADDR" "$@"; }

wait_for() {
	local n=$(($1 * 10)) i
	shift
	for i in $(seq 1 "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# clean N: N PGs active+clean.
clean() {
	mm pg dump pgs_brief 2>/dev/null |
	    awk 'NR > 1 && $2 == "active+clean" { n++ } END { print n + 0 }' |
	    grep -qx "$1"
}
# spread N: every PG's up set has N OSDs on N distinct hosts (OSD i is at
# host i / 2: six OSDs over three hosts), none of the OSDs in $GONE.
spread() {
	mm pg dump pgs_brief 2>/dev/null | awk -v want="$1" -v gone="$GONE" '
	    NR == 1 { next }
	    { s = $3; gsub(/[][]/, "", s); n = split(s, ids, ",")
	      if (n != want) bad++
	      delete h
	      for (i = 1; i <= n; i++) {
		  if (("," gone ",") ~ ("," ids[i] ",")) bad++
		  if (h[int(ids[i] / 2)]++) bad++
	      }
	      pgs++ }
	    END { exit !(pgs > 0 && bad == 0) }'
}
is_down() {
	mm -f json osd dump >"$T/dump" 2>/dev/null &&
	    [ "$("$JG" "osds.$1.up" <"$T/dump")" = 0 ]
}
check_diag() {
	tail -n 5 "$T/sim.out" "$T/sim.err" 2>/dev/null
	mm pg dump pgs_brief 2>&1 | head -8
}

mkconf "$T/mon.conf" "$T/data" '[mon]' 'osd_heartbeat_grace = 2s'
check "mkfs" mkfs "$T/mon.conf"
check "mapmond starts" start_daemon "$T/mon.conf" "$T/mon.log"
mm osd pool create rbd 32 >/dev/null 2>&1
CTL=$T/sim.ctl
"$BENCH" osd-sim -c "$T/mon.conf" -m "$ADDR" --osds 6 --hosts 3 \
    --interval 200 --control "$CTL" >"$T/sim.out" 2>"$T/sim.err" &
SPID=$!
check "every PG active+clean" wait_for 30 clean 32
mm osd tree >"$T/tree" 2>&1
check "osd tree: root default holds the three hosts" eval \
    'grep -Eq "^-1 .* root default *$" "$T/tree" &&
    [ "$(grep -Ec "^ *-[0-9]+ +2\.00000      host host[012] *$" "$T/tree")" = 3 ]'
check "osd tree: osd.2 and osd.3 under host1" eval \
    'sed -n "/host host1/,/host host2/p" "$T/tree" | grep -c "osd\.[23] " |
    grep -qx 2'
GONE=
check "3 copies of every PG on 3 hosts" spread 3
# The simulator's up sets, computed from the map it holds, are the
# monitor's placement of every PG.
same_as_monitor() {
	local pg up mon bad=0
	while read -r pg up; do
		mon=$(mm -f json raw "{\"prefix\":\"pg map\",\"pgid\":\"$pg\"}" |
		    "$JG" up | tr -d ' \n')
		[ "$up" = "$mon" ] || bad=$((bad + 1))
	done < <(mm pg dump pgs_brief 2>/dev/null | awk 'NR > 1 { print $1, $3 }')
	[ "$bad" = 0 ]
}
check "the simulator's up sets are the monitor's pg map, every PG" \
    same_as_monitor

echo 'kill-host host1' >"$CTL"
check "kill-host host1: both its OSDs killed" wait_for 5 grep -q \
    'host host1: 2 osds killed' "$T/sim.out"
check "... the monitor marks them down (reports from two other hosts)" \
    wait_for 15 eval 'is_down 2 && is_down 3'
GONE=2,3
check "... every PG on the two hosts left, one copy each" wait_for 10 \
    spread 2
mm health detail >"$T/hd" 2>&1
check "... health: the rule finds 2 hosts for size 3" grep -q \
    "crush rule 'replicated_rule' host count 2 < pool 'rbd' size 3" "$T/hd"

echo 'revive-host host1' >"$CTL"
GONE=
check "revive-host host1: every PG active+clean again" wait_for 30 clean 32
check "... 3 copies of every PG on 3 hosts" spread 3
mm health >"$T/h" 2>&1
check "... TOO_FEW_OSDS cleared" eval '! grep -q "host count" "$T/h"'

echo 'kill-host nosuch' >"$CTL"
check "kill-host of a host with no OSD: said" wait_for 5 grep -q \
    'kill-host nosuch: no OSD boots at host nosuch' "$T/sim.err"
kill -TERM "$SPID"
wait "$SPID"
check "the simulator exits 0" test $? -eq 0
SPID=

"$BENCH" osd-sim -m "$ADDR" --osds 2 --hosts 3 >/dev/null 2>"$T/err"
rc=$?
check "--hosts past --osds: exit 64, said" eval '[ $rc -eq 64 ] &&
    grep -q "more hosts than the 2 OSDs" "$T/err"'
"$BENCH" osd-sim -m "$ADDR" --osds 2 --fail-host host0@1 >/dev/null \
    2>"$T/err"
rc=$?
check "--fail-host without --hosts: exit 64, said" eval '[ $rc -eq 64 ] &&
    grep -q "no hosts (--hosts)" "$T/err"'
"$BENCH" osd-sim -m "$ADDR" --fail-host host0 >/dev/null 2>"$T/err"
rc=$?
check "--fail-host HOST without @SECONDS: exit 64, said" eval \
    '[ $rc -eq 64 ] && grep -q "is not HOST@SECONDS" "$T/err"'

check "mapmond stops" stop_daemon
done_testing
