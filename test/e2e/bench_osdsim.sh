#!/bin/bash
# bench_osdsim.sh: the OSD simulator (mapmon-bench osd-sim) fails like a
# population of real OSDs, against a real mapmond: --until-clean with no
# PGs, the undersized states with fewer OSDs than a pool's size, kills
# through --fail and the control FIFO marked down by the monitor within the
# grace (its [mon] osd_heartbeat_grace, 3 s here, read by the simulator
# from the same file) and a tick, their PGs on new up sets, revivals that
# boot, an OSD marked down while alive booting again, noup respected, the
# control's errors, clean stops of one OSD and of all (each marked down,
# the nodown flag obeyed).  Speaks TAP.  Needs $top_builddir and
# $top_srcdir.
#
# One backend (LMDB, no fsync): what is tested is the simulator's
# behaviour, which no store setting changes; the monitor's side of each
# decision has its own tests on both backends.
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
jv() { "$JG" "$2" <"$1"; }	# jv FILE PATH

# wait_for SECONDS CMD...: until CMD succeeds, every 0.1 s.
wait_for() {
	local n=$(($1 * 10)) i
	shift
	for i in $(seq 1 "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# osd_up ID: 1 or 0 as the map says.
osd_up() {
	mm -f json osd dump >"$T/dump" 2>/dev/null || return 1
	local i
	for i in $(seq 0 $(($(jv "$T/dump" osds.#) - 1))); do
		if [ "$(jv "$T/dump" osds.$i.osd)" = "$1" ]; then
			jv "$T/dump" osds.$i.up
			return 0
		fi
	done
	return 1
}
is_up() { [ "$(osd_up "$1")" = 1 ]; }
is_down() { [ "$(osd_up "$1")" = 0 ]; }
# state_count STATE: PGs in that state (pg stat).
state_count() {
	local i
	mm -f json pg stat >"$T/ps" 2>/dev/null || return 1
	for i in $(seq 0 $(($(jv "$T/ps" pgs_by_state.#) - 1))); do
		if [ "$(jv "$T/ps" pgs_by_state.$i.state_name)" = "$1" ]; then
			jv "$T/ps" pgs_by_state.$i.count
			return 0
		fi
	done
	echo 0
}
# on_osd ID: how many PGs have osd ID in their up set (pg dump pgs_brief:
# PG_STAT STATE UP ..., as Ceph's).
on_osd() {
	mm pg dump pgs_brief 2>/dev/null | awk -v id="$1" 'NR > 1 &&
	    $3 ~ "[[,]" id "[],]" { n++ } END { print n + 0 }'
}
# t_ms: milliseconds, for the time from a kill to its mark-down.
t_ms() { echo $(($(date +%s%N) / 1000000)); }
# time_down ID: wait (at most GRACE + 5 s) until the map shows osd ID
# down; prints the milliseconds it took.
time_down() {
	local t0 i
	t0=$(t_ms)
	for i in $(seq 1 $(((GRACE + 5) * 20))); do
		if is_down "$1"; then
			echo $(($(t_ms) - t0))
			return 0
		fi
		sleep 0.05
	done
	echo never
	return 1
}
# in_window MS: MS within (GRACE - 1 s - slack, GRACE + 1 s + slack]: the
# grace counts from the last answer, which came at most a heartbeat
# interval (1 s) before the kill; the slack is the test's own polling.
in_window() {
	[ "$1" != never ] && [ "$1" -ge $((GRACE * 1000 - 1300)) ] &&
	    [ "$1" -le $((GRACE * 1000 + 1500)) ]
}

# boots_sent: the simulator's count of boots, from a `status' through its
# FIFO.
boots_sent() {
	local n
	n=$(grep -c 'status at epoch' "$T/sim.out")
	echo status >"$CTL"
	wait_for 5 eval '[ "$(grep -c "status at epoch" "$T/sim.out")" -gt "$n" ]'
	grep 'status at epoch' "$T/sim.out" | tail -n 1 |
	    sed 's/.* \([0-9]*\) boots sent/\1/'
}

# start_sim ARGS...: the simulator in the background, output in $T/sim.out
# and $T/sim.err.
start_sim() {
	"$BENCH" osd-sim -m "$ADDR" "$@" >"$T/sim.out" 2>"$T/sim.err" &
	SPID=$!
}
# stop_sim: SIGTERM, wait; sets SIM_RC.
stop_sim() {
	kill -TERM "$SPID"
	wait "$SPID"
	SIM_RC=$?
	SPID=
	cat "$T/sim.err" >>"$T/sim.allerr"
}
check_diag() {
	tail -n 5 "$T/sim.out" "$T/sim.err" 2>/dev/null
}

GRACE=3
mkconf "$T/mon.conf" "$T/data" '[mon]' 'max_pg_per_osd = 1000' \
    "osd_heartbeat_grace = ${GRACE}s"
check "mkfs" mkfs "$T/mon.conf"
check "mapmond starts" start_daemon "$T/mon.conf" "$T/mon.log"

# No PGs: --until-clean returns once every OSD is up.
"$BENCH" osd-sim -m "$ADDR" --osds 2 --until-clean --duration 20 \
    >"$T/sim.out" 2>"$T/sim.err"
check "--until-clean with no PGs exits 0" test $? -eq 0
cat "$T/sim.err" >>"$T/sim.allerr"
check "... saying every OSD is up" grep -q 'no pgs; all 2 osds up' "$T/sim.out"
check "... and the map has both up" eval 'is_up 0 && is_up 1'

# Fewer OSDs than the size: never active+clean.
# Pools made with the form every version takes, then sized.
mm osd pool create small 16 >/dev/null 2>&1
mm osd pool create wide 8 >/dev/null 2>&1
mm osd pool set wide size 5 >/dev/null 2>&1
mm osd pool set wide min_size 3 >/dev/null 2>&1
start_sim --osds 2 --interval 200
check "size 3 on 2 OSDs: 16 PGs active+undersized+degraded" \
    wait_for 15 eval '[ "$(state_count active+undersized+degraded)" = 16 ]'
check "size 5 (min_size 3) on 2 OSDs: 8 PGs undersized+degraded+peered" \
    wait_for 5 eval '[ "$(state_count undersized+degraded+peered)" = 8 ]'
check "no PG active+clean" test "$(state_count active+clean)" = 0
wait_for 5 eval '[ "$(jv "$T/ps" num_objects)" -gt 0 ]'
mm -f json pg stat >"$T/ps"
objs=$(jv "$T/ps" num_objects)
# pg stat counts objects as soon as one PG has some; 1.0 may come later.
wait_for 5 eval 'mm -f json pg query 1.0 >"$T/q" 2>&1 &&
    qn=$(jv "$T/q" stat_sum.num_objects) && [ "${qn:-0}" -gt 0 ]'
check "pg query 1.0: two OSDs up" test "$(jv "$T/q" up.#)" = 2
lba=$(jv "$T/q" last_became_active)
check "pg query 1.0: last_became_active set ($lba)" \
    eval 'case $lba in 20*) true ;; *) false ;; esac'
qo=$(jv "$T/q" stat_sum.num_objects)
check "pg query 1.0: a copy of each of its $qo objects degraded" \
    eval '[ "${qo:-0}" -gt 0 ] &&
    [ "$(jv "$T/q" stat_sum.num_objects_degraded)" = "$qo" ]'
check "pg stat counts degraded objects ($objs objects)" \
    eval '[ "$(jv "$T/ps" degraded_objects)" -gt 0 ]'
mm -s >"$T/s" 2>&1
check "status shows the degraded data" grep -q 'degraded' "$T/s"
stop_sim
check "SIGTERM: the simulator exits 0" test "$SIM_RC" -eq 0

# Six OSDs, one more pool (88 PGs: small and wide are full on six);
# kills and revivals on demand.
mm osd pool create rbd 64 >/dev/null 2>&1
ALL=88
CTL=$T/sim.ctl
start_sim -c "$T/mon.conf" --osds 6 --interval 200 --control "$CTL" \
    --fail 5@2
check "the control FIFO is made" wait_for 5 test -p "$CTL"
check "every PG active+clean" wait_for 20 eval \
    '[ "$(state_count active+clean)" = "$ALL" ]'
on5=$(on_osd 5)
check "--fail 5@2: osd.5 killed" wait_for 5 grep -q 'osd.5 killed' "$T/sim.out"
ms=$(time_down 5)
check "... its peers' reports mark it down ${ms} ms after the kill (grace ${GRACE} s)" \
    in_window "$ms"
check "the monitor names the reporters" wait_for 2 eval 'mm log last 30 |
    grep -Eq "osd.5 marked down: reported failed by osd.[0-9]+, osd.[0-9]+ for"'
check "... its $on5 PGs get new up sets without it" \
    wait_for 5 eval '[ "$(on_osd 5)" = 0 ]'
check "... and are active+clean again on the others" wait_for 10 eval \
    '[ "$(state_count active+clean)" = "$ALL" ]'
mm health detail >"$T/hd" 2>&1
check "health detail: osd.5 is down" grep -q 'osd.5 is down' "$T/hd"

on4=$(on_osd 4)
echo 'kill 4' >"$CTL"
check "FIFO kill 4: killed" wait_for 5 grep -q 'osd.4 killed' "$T/sim.out"
ms=$(time_down 4)
check "... marked down ${ms} ms after the kill (grace ${GRACE} s)" \
    in_window "$ms"
check "... its $on4 PGs get new up sets" wait_for 5 eval '[ "$(on_osd 4)" = 0 ]'
echo status >"$CTL"
check "FIFO status: 4 and 5 killed, the map has them down" wait_for 5 eval \
    'grep -q "running 0-3; killed 4-5; stopped none" "$T/sim.out" &&
    grep -q "up in the map 0-3; down 4-5" "$T/sim.out"'
echo 'revive osd.4 5' >"$CTL"
check "FIFO revive osd.4 5: both boot" wait_for 5 eval 'is_up 4 && is_up 5'
check "... and hold PGs again" wait_for 5 eval \
    '[ "$(on_osd 4)" -gt 0 ] && [ "$(on_osd 5)" -gt 0 ]'
check "... every PG active+clean" wait_for 10 eval \
    '[ "$(state_count active+clean)" = "$ALL" ]'
check "no OSD was wrongly marked down meanwhile" \
    test "$(grep -c 'wrongly marked me down' "$T/sim.out")" = 0
echo status >"$CTL"
check "FIFO status: every OSD running again" wait_for 5 \
    grep -q 'running 0-5; killed none; stopped none' "$T/sim.out"
printf 'jump 3\nkill x\nkill 9\nrevive 2\nstatus now\nkill\n' >"$CTL"
check "bad control lines: each one said" wait_for 5 eval \
    '[ "$(grep -c "control:" "$T/sim.err")" = 6 ]'
check "... the unknown command named" grep -q \
    "unknown command 'jump' (kill, revive, stop or status)" "$T/sim.err"
check "... the bad id named" grep -q "kill: 'x' is not an OSD id" "$T/sim.err"
check "... an OSD not simulated" grep -q \
    "kill 9: osd.9 is not one of the simulator's (0 to 5)" "$T/sim.err"
check "... an OSD already running" grep -q "revive 2: osd.2 is running" \
    "$T/sim.err"
check "the simulator runs on" kill -0 "$SPID"

# Marked down while alive: it says so and boots again.
mm osd down 1 >/dev/null 2>&1
check "osd down 1: the simulator says it was wrongly marked down" \
    wait_for 5 grep -Eq 'osd.1: map e[0-9]+ wrongly marked me down at e[0-9]+' \
    "$T/sim.out"
check "... and osd.1 is up again" wait_for 5 is_up 1

# noup: it waits, quietly, and boots once the flag is gone.
boots0=$(boots_sent)
mm osd set noup >/dev/null 2>&1
mm osd down 2 >/dev/null 2>&1
sleep 3
check "noup: osd.2 stays down" is_down 2
check "noup: the simulator says once that it waits" \
    test "$(grep -c 'osd.2: the noup flag is set' "$T/sim.out")" = 1
mm osd unset noup >/dev/null 2>&1
check "noup unset: osd.2 boots" wait_for 5 is_up 2
boots1=$(boots_sent)
check "noup: one boot sent for it, none while the flag was set ($boots0, then $boots1)" \
    test "$((boots1 - boots0))" = 1

# A clean stop of one OSD: it marks itself down, nobody waits a grace.
echo 'stop 3' >"$CTL"
check "FIFO stop 3: it marks itself down" wait_for 3 grep -q \
    'osd.3 stopped: it marked itself down' "$T/sim.out"
check "... the map has it down at once" is_down 3
check "... the monitor says so" eval 'mm log last 20 |
    grep -q "osd.3 marked itself down"'
echo 'revive 3' >"$CTL"
check "revive 3: it boots" wait_for 5 is_up 3
# nodown keeps a stopping OSD up; its peers report it once the flag goes.
mm osd set nodown >/dev/null 2>&1
echo 'stop 1' >"$CTL"
check "nodown: stop 1 is told it stays up" wait_for 3 grep -q \
    'osd.1 stopped: osd.1 stays up: the nodown flag is set' "$T/sim.out"
sleep $((GRACE + 1))
check "... and it is up past the grace" is_up 1
mm osd unset nodown >/dev/null 2>&1
check "nodown unset: its peers' reports mark it down" wait_for 3 is_down 1
echo 'revive 1' >"$CTL"
check "revive 1: it boots" wait_for 5 is_up 1

stop_sim
check "SIGTERM: exit 0" test "$SIM_RC" -eq 0
check "... once the monitor answered every mark-me-down" grep -q \
    'stopped; the monitor answered every mark-me-down' "$T/sim.out"
mm -f json osd stat >"$T/os" 2>&1
check "... every OSD down in the map, none out" eval \
    '[ "$(jv "$T/os" num_up_osds)/$(jv "$T/os" num_in_osds)" = 0/6 ]'
check "the FIFO it made is removed" test ! -e "$CTL"

# --duration ends with a clean stop too.
"$BENCH" osd-sim -m "$ADDR" --osds 6 --duration 3 -q >"$T/sim.out" \
    2>"$T/sim.err"
check "--duration 3: exit 0" test $? -eq 0
cat "$T/sim.err" >>"$T/sim.allerr"
check "... every OSD down after it" eval \
    'mm -f json osd stat >"$T/os" && [ "$(jv "$T/os" num_up_osds)" = 0 ]'

# Usage errors.
"$BENCH" osd-sim -m "$ADDR" --osds 6 --fail 6@1 >/dev/null 2>"$T/err"
check "--fail of an OSD past --osds: exit 64" test $? -eq 64
check "... naming the range" grep -q 'the OSDs are 0 to 5' "$T/err"
"$BENCH" osd-sim -m "$ADDR" --fail 3 >/dev/null 2>"$T/err"
check "--fail without @SECONDS: exit 64" test $? -eq 64
"$BENCH" osd-sim -m "$ADDR" --revive 1@x >/dev/null 2>"$T/err"
check "--revive with bad seconds: exit 64" test $? -eq 64
"$BENCH" osd-sim -m "$ADDR" --heartbeat-grace 0 >/dev/null 2>"$T/err"
check "--heartbeat-grace 0: exit 64" test $? -eq 64
"$BENCH" osd-sim -m "$ADDR" --osd-size 12Q >/dev/null 2>"$T/err"
check "--osd-size 12Q: exit 64" test $? -eq 64
: >"$T/plain"
"$BENCH" osd-sim -m "$ADDR" --control "$T/plain" --duration 1 >/dev/null \
    2>"$T/err"
check "--control on a regular file: exit 1" test $? -eq 1
check "... saying it is not a FIFO" grep -q 'exists and is not a FIFO' "$T/err"
printf '[mon]\nosd_heartbeat_grace = often\n' >"$T/bad.conf"
"$BENCH" osd-sim -c "$T/bad.conf" -m "$ADDR" >/dev/null 2>"$T/err"
check "-c with a bad grace: exit 78" test $? -eq 78
check "... naming the file and line" grep -q 'bad.conf:2' "$T/err"

cat "$T/sim.err" "$T/err" >>"$T/sim.allerr" 2>/dev/null
check "no sanitizer report from the simulator" eval '! grep -q -e \
    AddressSanitizer -e LeakSanitizer -e "runtime error:" "$T/sim.allerr"'
check "mapmond stops" stop_daemon
check "no sanitizer report from mapmond" eval '! grep -q -e \
    AddressSanitizer -e LeakSanitizer -e "runtime error:" "$T/mon.log"'
done_testing
