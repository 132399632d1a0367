#!/bin/bash
# mon_liveness.sh: the monitor decides who is alive (mapmond(8),
# LIVENESS), end to end: the real mapmond, the mapmon CLI, OSDs played by
# `mapmon raw` (beacons, failure reports, mark-me-down), once per store
# backend.  Speaks TAP.  Needs $top_builddir.
#
# Short clocks from the config file: a grace of 1 s, a beacon timeout of
# 3 s.  What a user would check is checked: `osd stat`, `health detail -f
# json` and `log last` after
#   - one reporter (nothing), then two (the target goes down, the log and
#     OSD_DOWN name them and say for how long);
#   - refused and ignored reports (EINVAL, rc 0 with "ignored");
#   - nodown (kept up, shown under OSDMAP_FLAGS; unset: down);
#   - mark-me-down (down as soon as it is answered);
#   - a silent OSD (marked down by the beacon timeout, the others kept up
#     by their beacons);
#   - noout and osd_min_in_ratio holding the automatic out back, once;
#   - a restart (since when, no longer why);
# and nothing in the daemon's log from the sanitizers (an ASan+UBSan build).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
. "$top_srcdir/test/lib/backend_lib.sh"
TAP_PER_BACKEND=1
check_diag() {
	printf 'out: %s\nerr: %s\ndaemon log: %s' "$(head -c 600 "$T/out")" \
	    "$(head -c 300 "$T/err")" \
	    "$(tail -n 5 "$T/log.$BACKEND" 2>/dev/null)"
}
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
JG=$top_builddir/test/lib/json_get

T=$(mktemp -d /tmp/mon_liveness.XXXXXX) || exit 99
DPID=
BPID=
cleanup() {
	[ -n "$BPID" ] && kill "$BPID" 2>/dev/null
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null
	[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# mm ARGS...: mapmon ARGS, stdout in $T/out, stderr in $T/err, $rc.
mm() {
	"$MAPMON" -m "$ADDR" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# up_osds: how many OSDs `osd stat` says are up.
up_osds() {
	mm -f json osd stat && jget num_up_osds
}
in_osds() {
	mm -f json osd stat && jget num_in_osds
}
# is_up ID: whether `osd dump` has osd.ID up.
is_up() {
	mm -f json osd dump &&
	    [ "$("$JG" "osds.$1.up" <"$T/out")" = 1 ]
}
# report TARGET REPORTER FAILED_FOR: one failure report, as an OSD sends it.
report() {
	mm raw "{\"prefix\":\"osd failure\",\"target\":$1,\"reporter\":$2,\"failed_for\":$3}"
}
# keep_reporting "T R F" ...: in the background, as OSDs keep reporting a
# peer they cannot reach, send each report every 0.3 s until
# stop_reporting (their output apart from $T/out); a report stands for the
# grace only, and a check on a loaded machine may take longer than that.
keep_reporting() {
	(
		while :; do
			for r in "$@"; do
				# shellcheck disable=SC2086
				set -- $r
				"$MAPMON" -m "$ADDR" raw "{\"prefix\":\"osd failure\",\"target\":$1,\"reporter\":$2,\"failed_for\":$3}" \
				    >/dev/null 2>&1
			done
			sleep 0.3
		done
	) &
	RPID=$!
}
stop_reporting() {
	kill "$RPID" 2>/dev/null
	wait "$RPID" 2>/dev/null
	RPID=
}
# log_has TEXT: the cluster log holds a line with TEXT (fixed string).
log_has() {
	mm log last 300 && grep -qF -e "$1" "$T/out"
}
log_count() {
	mm log last 300 && grep -cF -e "$1" "$T/out"
}
# within SECONDS CMD...: CMD succeeds within SECONDS (polled every 0.1 s).
within() {
	local end=$(($(date +%s%N) / 1000000 + $1 * 1000))
	shift
	while [ $(($(date +%s%N) / 1000000)) -lt $end ]; do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}
not() { ! "$@"; }


# The OSDs in $T/beaconing send a beacon each every 0.4 s, as OSDs do.
start_beacons() {
	(
		while :; do
			for i in $(cat "$T/beaconing"); do
				"$MAPMON" -m "$ADDR" raw \
				    "{\"prefix\":\"osd beacon\",\"id\":$i}" \
				    >/dev/null 2>&1
			done
			sleep 0.4
		done
	) &
	BPID=$!
}
stop_beacons() {
	kill "$BPID" 2>/dev/null
	wait "$BPID" 2>/dev/null
	BPID=
}

# repeat_reports N "T R F" ...: send each report N times, 0.3 s apart.
repeat_reports() {
	local k=$1 r
	shift
	while [ "$k" -gt 0 ]; do
		for r in "$@"; do
			# shellcheck disable=SC2086
			report $r
		done
		sleep 0.3
		k=$((k - 1))
	done
}

suite() {
	suite_start "$1" "osd_heartbeat_grace = 1s
osd_min_down_reporters = 2
osd_report_timeout = 3s
osd_down_out_interval = 10m
osd_min_in_ratio = 0.5"
	for i in 0 1 2 3; do
		mm osd create
		mm osd boot $i
	done
	check "4 osds up" test "$(up_osds)" = 4
	echo "0 1 2 3" >"$T/beaconing"
	start_beacons

	# One reporter, however long it repeats: nothing.
	repeat_reports 8 "0 1 5"
	check "one reporter: the report is answered" test "$rc" -eq 0
	check "one reporter: 1 reporter, 2 needed" eval \
	    '[ "$(jget reporters)/$(jget needed)" = 1/2 ]'
	check "one reporter does not mark osd.0 down" is_up 0

	# Two distinct reporters past the grace: down.  A report stands for
	# the grace (1 s) only and the checks above may outlast it on a loaded
	# machine, so the first reporter reports again just before the second;
	# should a stall between the two still age it out, the pair is sent
	# again (at most three times): two fresh reports must mark it down.
	for _ in 1 2 3; do
		report 0 1 5
		report 0 2 5
		[ "$(jget marked_down)" = true ] && break
	done
	check "the second reporter's report marks osd.0 down" \
	    test "$(jget marked_down)" = true
	check "osd stat: 3 up" within 2 eval '[ "$(up_osds)" = 3 ]'
	check "log: who reported it, for how long" \
	    log_has "osd.0 marked down: reported failed by osd.1, osd.2 for 5."
	mm -f json health detail
	check "health: OSD_DOWN says since when and why" eval \
	    'jget checks.OSD_DOWN.detail.0.message | grep -q \
	    "^osd\.0 is down since 20[0-9-]*T[0-9:]* (reported failed by osd\.1, osd\.2 for 5\.[0-9] s)$"'
	check "no other OSD went down" eval 'is_up 1 && is_up 2 && is_up 3'

	# Bad reports: refused, or ignored without being kept.
	report 1 1 5
	check "a report about oneself is EINVAL (exit 22)" test "$rc" -eq 22
	check "it says so" grep -q "osd.1 reported itself" "$T/err"
	report 1 2 -1
	check "a negative failed_for is EINVAL (exit 22)" test "$rc" -eq 22
	check "it names failed_for" grep -q "failed_for" "$T/err"
	report 0 1 5
	check "a report about a down OSD is ignored (exit 0)" test "$rc" -eq 0
	check "... and says so" test "$(jget ignored)" = true
	report 1 0 5
	check "a report from a down OSD is ignored" test "$(jget ignored)" = true
	report 1 9 5
	check "a report from an unknown OSD is ignored" \
	    test "$(jget ignored)" = true

	# nodown: kept up, the reports kept and shown; unset: down.
	mm osd set nodown
	repeat_reports 3 "1 2 5" "1 3 5"
	check "nodown: the report says it stays up" \
	    grep -q '"marked_down": false' "$T/out"
	keep_reporting "1 2 5" "1 3 5"
	check "nodown keeps osd.1 up" is_up 1
	mm -f json health detail
	check "OSDMAP_FLAGS: nodown flag(s) set" eval \
	    '[ "$(jget checks.OSDMAP_FLAGS.summary.message)" = "nodown flag(s) set" ]'
	check "OSDMAP_FLAGS detail shows the kept reports" eval \
	    'jget checks.OSDMAP_FLAGS.detail.0.message | grep -q \
	    "^osd\.1 is kept up by nodown: reported failed by osd\.2, osd\.3 for "'
	mm osd unset nodown
	report 1 2 6
	check "nodown unset: osd.1 goes down" within 2 not is_up 1
	stop_reporting
	mm -f json health
	check "OSDMAP_FLAGS cleared" eval \
	    '[ -z "$(jget checks.OSDMAP_FLAGS.summary.message 2>/dev/null)" ]'

	# Mark-me-down: down when it is answered.
	mm raw '{"prefix":"osd mark-me-down","id":2}'
	check "mark-me-down answered (exit 0)" test "$rc" -eq 0
	check "mark-me-down: down true" test "$(jget down)" = true
	check "osd.2 is down as soon as it is answered" not is_up 2
	check "log: osd.2 marked itself down" log_has "osd.2 marked itself down"
	mm raw '{"prefix":"osd mark-me-down","id":7}'
	check "mark-me-down of an unknown OSD is ENOENT (exit 2)" \
	    test "$rc" -eq 2

	# osd.3 falls silent: the beacon timeout marks it down.
	echo "" >"$T/beaconing"
	check "a silent osd.3 is up before the timeout" is_up 3
	check "the beacon timeout marks osd.3 down" within 6 not is_up 3
	check "log: no beacon" log_has "osd.3 marked down: no beacon for "
	stop_beacons

	# The automatic out: held by noout, then by osd_min_in_ratio 0.5.
	mm osd set noout
	mm config set mon.osd_down_out_interval 1s
	check "noout: the hold is logged" \
	    within 3 log_has "osd.0 not marked out: the noout flag is set"
	sleep 1.5
	check "... once" test "$(log_count "osd.0 not marked out")" = 1
	check "noout: all 4 in" test "$(in_osds)" = 4
	mm osd unset noout
	check "noout unset: 2 of 4 go out" within 3 eval '[ "$(in_osds)" = 2 ]'
	check "osd_min_in_ratio holds the third, logged" log_has \
	    "not marked out: 1 of 4 osds would be in, under osd_min_in_ratio 0.5"
	sleep 1.5
	check "still 2 in" test "$(in_osds)" = 2
	check "log: marked out after being down" \
	    log_has "marked out after being down for"

	# A restart keeps since when; why is kept in memory only.
	check "mapmond stops" stop_daemon
	check "mapmond starts again" start_daemon
	mm -f json health detail
	check "after a restart: since when, no why" eval \
	    'jget checks.OSD_DOWN.detail.0.message | grep -q \
	    "^osd\.[0-9] is down since 20[0-9-]*T[0-9:]*$"'
	check "mapmond stops" stop_daemon
	# Under ASan+UBSan, what they report lands in the daemon's log.
	check "no sanitizer report in the daemon's log" \
	    not grep -q 'Sanitizer\|runtime error' "$T/log.$BACKEND"
}

for b in lmdb leveldb; do
	suite $b
done
done_testing
