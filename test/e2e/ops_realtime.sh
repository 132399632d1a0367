#!/bin/bash
# ops_realtime.sh: [mon] realtime_priority (mapmon.conf(5)).  Speaks TAP.
#
#   - by default, with CAP_SYS_NICE, the event loop (the main thread) runs
#     at SCHED_RR priority 1 and the monitor's workers (a single monitor's
#     threads) at normal priority; the log says so;
#   - without CAP_SYS_NICE but with RLIMIT_RTPRIO 1 (the systemd unit's
#     LimitRTPRIO=1), the same (skipped where RLIMIT_RTPRIO cannot be
#     raised);
#   - with neither, the loop runs at normal priority, the log says why, and
#     the monitor serves;
#   - realtime_priority = 0: normal priority, nothing said;
#   - realtime_priority = 100: refused at start, naming the key.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/test/lib/ops_lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "not root: CAP_SYS_NICE is taken away here"
command -v setpriv >/dev/null 2>&1 || skip_all "no setpriv (util-linux)"
command -v prlimit >/dev/null 2>&1 || skip_all "no prlimit (util-linux)"
command -v chrt >/dev/null 2>&1 || skip_all "no chrt (util-linux)"
chrt -r 1 true 2>/dev/null || skip_all "root here may not use SCHED_RR"
REAL_MAPMOND=$MAPMOND

# A mapmond without CAP_SYS_NICE, with RLIMIT_RTPRIO $1.
without_cap() {
	printf '#!/bin/sh\nexec prlimit --rtprio=%s setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice "%s" "$@"\n' \
	    "$1" "$REAL_MAPMOND" >"$T/mapmond.$1"
	chmod +x "$T/mapmond.$1"
	MAPMOND=$T/mapmond.$1
}

# loop_is CLASS RTPRIO: the main thread's scheduling class and real-time
# priority as ps(1) says them (TS -, RR 1).
loop_is() {
	DIAG=$(ps -L -o tid=,cls=,rtprio=,ni= -p "$DPID" | tr '\n' '/')
	[ "$(ps -L -o tid=,cls=,rtprio= -p "$DPID" |
	    awk -v p="$DPID" '$1 == p { print $2, $3 }')" = "$1 $2" ]
}
# others_normal: every thread but the main one is TS, and there is one.
others_normal() {
	DIAG=$(ps -L -o tid=,cls=,rtprio=,ni= -p "$DPID" | tr '\n' '/')
	ps -L -o tid=,cls= -p "$DPID" | awk -v p="$DPID" '
	    $1 != p { n++; if ($2 != "TS") bad = 1 }
	    END { exit bad || n == 0 }'
}
# start_case DESC NAME [LINE]: a daemon NAME with [mon] LINE, started.
start_case() {
	local d=$T/$2
	mkconf "$T/$2.conf" "$d" ${3:+"[mon]"} ${3:+"$3"}
	[ -d "$d/store" ] || mkfs "$T/$2.conf"
	check "$1: the monitor starts and answers" \
	    start_daemon "$T/$2.conf" "$T/$2.log"
}

start_case "default" default
check "default: the event loop is SCHED_RR 1" loop_is RR 1
check "default: every other thread is at normal priority" others_normal
check "default: the log says SCHED_RR priority 1" \
    grep -q 'the event loop runs at SCHED_RR priority 1$' "$T/default.log"
stop_daemon
check "default: clean stop" test $? -eq 0

# Raising RLIMIT_RTPRIO takes CAP_SYS_RESOURCE, which a container may lack.
if prlimit --rtprio=1 true 2>/dev/null; then
	without_cap 1
	start_case "RLIMIT_RTPRIO 1, no CAP_SYS_NICE" rlimit
	check "RLIMIT_RTPRIO 1, no CAP_SYS_NICE: the event loop is SCHED_RR 1" \
	    loop_is RR 1
	check "RLIMIT_RTPRIO 1, no CAP_SYS_NICE: the other threads are normal" \
	    others_normal
	stop_daemon
else
	why="# SKIP cannot raise RLIMIT_RTPRIO here (no CAP_SYS_RESOURCE)"
	ok "RLIMIT_RTPRIO 1, no CAP_SYS_NICE: the monitor starts $why"
	ok "RLIMIT_RTPRIO 1, no CAP_SYS_NICE: the event loop is SCHED_RR 1 $why"
	ok "RLIMIT_RTPRIO 1, no CAP_SYS_NICE: the other threads are normal $why"
fi

without_cap 0
start_case "neither" neither
check "neither: the event loop is at normal priority" loop_is TS -
DIAG=$(grep 'event loop' "$T/neither.log")
check "neither: the log says why" grep -q \
    'the event loop runs at normal priority: SCHED_RR priority 1: Operation not permitted (realtime_priority: it needs CAP_SYS_NICE or RLIMIT_RTPRIO)$' \
    "$T/neither.log"
mm osd pool create q 8
check "neither: a write is acknowledged" test "$rc" -eq 0
stop_daemon
check "neither: clean stop" test $? -eq 0
MAPMOND=$REAL_MAPMOND

start_case "realtime_priority = 0" off "realtime_priority = 0"
check "realtime_priority = 0: the event loop is at normal priority" \
    loop_is TS -
check "realtime_priority = 0: the log says nothing of it" \
    sh -c '! grep -q "event loop runs" "$0"' "$T/off.log"
stop_daemon

mkconf "$T/bad.conf" "$T/bad" "[mon]" "realtime_priority = 100"
"$MAPMOND" -d -c "$T/bad.conf" >"$T/bad.out" 2>&1
st=$?
DIAG=$(cat "$T/bad.out")
check "realtime_priority = 100: refused at start" test "$st" -ne 0
check "realtime_priority = 100: the error names the key and its range" \
    grep -q 'realtime_priority.*99' "$T/bad.out"
check "no sanitizer report" sanitizer_clean
done_testing
