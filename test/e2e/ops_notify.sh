#!/bin/bash
# ops_notify.sh: mapmond's sd_notify messages, as systemd would see them on
# NOTIFY_SOCKET (test/e2e/notify_listen stands in for systemd).  Speaks TAP.
#
# A 100,000-PG store: STATUS= progress during the cold start, READY=1 only
# once a client is answered (a client connects the moment READY=1 arrives),
# RELOADING=1 with MONOTONIC_USEC then READY=1 on SIGHUP, STOPPING=1 on
# SIGTERM, and WATCHDOG=1 at half of WATCHDOG_USEC.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/test/lib/ops_lib.sh"

grep -q '^#define HAVE_SYSTEMD 1' "$top_builddir/config.h" ||
    skip_all "built without libsystemd"

NPGS=100000
CONF=$T/mon.conf
LOG=$T/mapmond.log
# A pool of $NPGS PGs on no OSD: the PG limits raised, as an operator would.
mkconf "$CONF" "$T/data" "[mon]" "max_pool_pg_num = $NPGS" \
    "max_pg_per_osd = $NPGS"
check "mkfs" mkfs "$CONF"
DIAG=$(cat "$T/mkfs.out")
check "a daemon to fill the store starts" start_daemon "$CONF" "$LOG"
DIAG=
check "osd pool create with $NPGS PGs" mm osd pool create big $NPGS
check "the filling daemon stops with 0" stop_daemon

# notifications SOCKET OUT: listen until killed.
listen() {
	"$NLISTEN" "$1" "$2" 60 &
	LPID=$!
	PIDS="$PIDS $LPID"
	local i
	for i in $(seq 1 100); do
		[ -S "$1" ] && return 0
		sleep 0.02
	done
	return 1
}
# The messages, without their arrival times.
msgs() { cut -d' ' -f2- "$NOUT"; }
# line_of PATTERN: the line number of the first message matching it.
line_of() { msgs | grep -n -m1 -e "$1" | cut -d: -f1; }

NSOCK=$T/notify.sock
NOUT=$T/notify.out
# When READY=1 arrives, the listener runs this at once: it finds the port
# in the log (written before READY=1) and asks for status.
cat >"$T/on_ready.sh" <<EOF
port=\$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9]*\)\$/\1/p' '$LOG' |
    tail -n 1)
exec timeout 5 '$MAPMON' -m 127.0.0.1:\$port --connect-timeout 1 status \\
    >'$T/ready_status.out' 2>&1
EOF
export NOTIFY_ON_READY="bash $T/on_ready.sh"
check "notify listener up" listen "$NSOCK" "$NOUT"
NOTIFY_SOCKET=$NSOCK check "mapmond with NOTIFY_SOCKET answers" \
    start_daemon "$CONF" "$LOG"
for i in $(seq 1 100); do
	grep -q ON_READY= "$NOUT" 2>/dev/null && break
	sleep 0.05
done

check "READY=1 sent once" test "$(msgs | grep -c '^READY=1$')" -eq 1
DIAG=$(cat "$T/ready_status.out" 2>/dev/null)
check "a client connecting at READY=1 is answered" \
    grep -q '^ON_READY=0$' <(msgs)
check "... with the cluster status" grep -q "pools: *1 pools, $NPGS pgs" \
    "$T/ready_status.out"
DIAG=$(msgs)
check "STATUS=loading pgs 0/$NPGS at the start of the cold start" \
    grep -q "^STATUS=loading pgs 0/$NPGS\$" <(msgs)
check "STATUS=loading pgs $NPGS/$NPGS at its end" \
    grep -q "^STATUS=loading pgs $NPGS/$NPGS\$" <(msgs)
first=$(line_of "^STATUS=loading pgs")
last=$(line_of "^STATUS=loading pgs $NPGS/")
ready=$(line_of '^READY=1$')
check "progress comes before READY=1" test -n "$first" -a -n "$ready" -a \
    "${last:-999999}" -lt "${ready:-0}"
progress() { msgs | sed -n 's|^STATUS=loading pgs \([0-9]*\)/.*|\1|p'; }
check "progress counts up" test "$(progress | sort -n | tr '\n' ' ')" = \
    "$(progress | tr '\n' ' ')"
check "STATUS after READY=1 says where it serves" \
    grep -q "^STATUS=serving on port $PORT\$" <(msgs)
DIAG=

# SIGHUP: RELOADING=1 with MONOTONIC_USEC, then READY=1 again.
before=$(msgs | wc -l)
kill -HUP "$DPID"
for i in $(seq 1 100); do
	[ "$(msgs | tail -n +"$((before + 1))" | grep -c '^READY=1$')" -ge 1 ] &&
	    break
	sleep 0.02
done
after() { msgs | tail -n +"$((before + 1))"; }
DIAG=$(after)
check "SIGHUP: RELOADING=1" grep -q '^RELOADING=1$' <(after)
check "SIGHUP: MONOTONIC_USEC= with the time" \
    grep -q '^MONOTONIC_USEC=[1-9][0-9]*$' <(after)
check "SIGHUP: READY=1 after RELOADING=1" test "$(after | grep -e \
    '^RELOADING=1$' -e '^READY=1$' | tr '\n' ' ')" = "RELOADING=1 READY=1 "
mono=$(after | sed -n 's/^MONOTONIC_USEC=//p')
arrived=$(grep ' RELOADING=1$' "$NOUT" | cut -d' ' -f1)
check "MONOTONIC_USEC is CLOCK_MONOTONIC at the reload" test -n "$mono" -a \
    -n "$arrived" -a "${mono:-0}" -le "${arrived:-0}" -a \
    $(( ${arrived:-0} - ${mono:-0} )) -lt 5000000
check "the daemon still answers after SIGHUP" mm status

# SIGTERM: STOPPING=1, exit 0.
before=$(msgs | wc -l)
stop_daemon
st=$?
DIAG=$(after)
check "SIGTERM: exit 0" test $st -eq 0
check "SIGTERM: STOPPING=1" grep -q '^STOPPING=1$' <(after)
check "SIGTERM: no READY=1 after STOPPING=1" \
    test "$(after | grep -c '^READY=1$')" -eq 0

# The watchdog: WATCHDOG_USEC=200000 pings every 100 ms.
kill "$LPID"
wait "$LPID"
rm -f "$NOUT"
unset NOTIFY_ON_READY
check "notify listener up again" listen "$NSOCK" "$NOUT"
NOTIFY_SOCKET=$NSOCK WATCHDOG_USEC=200000 \
    check "mapmond with WATCHDOG_USEC answers" start_daemon "$CONF" "$LOG"
sleep 1
wd=$(msgs | grep -c '^WATCHDOG=1$')
DIAG="WATCHDOG=1 seen $wd times in about a second"
check "WATCHDOG=1 about every 100 ms" test "$wd" -ge 6 -a "$wd" -le 30
DIAG=
stop_daemon
check "watchdog run: exit 0" test $? -eq 0
# A WATCHDOG_PID naming another process: the watchdog is not ours.
before=$(msgs | wc -l)
NOTIFY_SOCKET=$NSOCK WATCHDOG_USEC=200000 WATCHDOG_PID=1 \
    start_daemon "$CONF" "$LOG"
sleep 0.5
check "WATCHDOG_PID of another process: no WATCHDOG=1" \
    test "$(after | grep -c '^WATCHDOG=1$')" -eq 0
check "... but READY=1 all the same" test "$(after | grep -c '^READY=1$')" \
    -eq 1
stop_daemon

# Without NOTIFY_SOCKET nothing is sent and nothing breaks.
before=$(msgs | wc -l)
start_daemon "$CONF" "$LOG"
check "without NOTIFY_SOCKET the daemon serves" mm status
stop_daemon
check "without NOTIFY_SOCKET: exit 0" test $? -eq 0
check "without NOTIFY_SOCKET: no message" test "$(after | wc -l)" -eq 0

check "no sanitizer report from any daemon" sanitizer_clean
done_testing
