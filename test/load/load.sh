#!/bin/bash
# load.sh: the daemon under heavy and hostile clients at once (RELIABILITY.md).
# Speaks TAP.  Needs $top_builddir (and $top_srcdir).
#
# One mapmond ([store] sync = commit, [mon] max_connections raised to 4096,
# max_client_output 16M) and, at the same time, for LOAD_SECONDS:
#
#  - test/crash/ackload: PG reports and admin commands, every one of which
#    must be acknowledged (and found after the load);
#  - loadgen conns: LOAD_CONNS (2,000) connections held open, each asking
#    `status` at the start and half way;
#  - loadgen slowloris: 20 connections sending one byte a second;
#  - loadgen noread: a subscriber to pgmap, osdmap and log that never
#    reads, which the daemon must cut;
#  - loadgen reader: a pgmap subscriber that reads, which must get the
#    snapshot whole and every commit's push (consecutive versions), uncut;
#  - loadgen garbage: LOAD_GARBAGE of garbage in 1 MiB bursts from 8
#    connections at once, spread over LOAD_SECONDS (random bytes, random
#    JSON payloads, a 32 MiB frame left unfinished, binary PG reports of
#    random bytes);
#  - loadgen probe: a separate client asking `status` every millisecond,
#    whose p99 must stay under LOAD_P99_MS: 10 ms in the full form, 100 ms
#    in the short form, which runs in make check beside the other tests on
#    a shared machine and so checks only that nobody stalled (the 10 ms
#    figure is measured by the full form and by mapmon-bench ingest).
#
# The clients run under nice(1), the daemon and the probe do not.
# Then: the daemon is up and answers, it holds no connection of the gone
# clients, its peak RSS (VmHWM) is under LOAD_MAX_RSS_MB (256), and it stops
# cleanly.  The figures are printed as TAP comments.
#
# Short form (CI, the default): LOAD_SECONDS=15, LOAD_GARBAGE=64M.
# Full form: LOAD_FULL=1 (LOAD_SECONDS=120, LOAD_GARBAGE=1G).
# Also: LOAD_BACKEND (lmdb), LOAD_KEEP=1 keeps the temporary directory.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
TAP_DIAG_LINES=30
if [ -n "$LOAD_FULL" ]; then
	: "${LOAD_SECONDS:=120}"
	: "${LOAD_GARBAGE:=1G}"
	: "${LOAD_P99_MS:=10}"
else
	: "${LOAD_SECONDS:=15}"
	: "${LOAD_GARBAGE:=64M}"
	: "${LOAD_P99_MS:=100}"
fi
: "${LOAD_CONNS:=2000}"
: "${LOAD_MAX_RSS_MB:=256}"
: "${LOAD_BACKEND:=lmdb}"
BACKEND=$LOAD_BACKEND
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
ACKLOAD=$top_builddir/test/crash/ackload
LOADGEN=$top_builddir/test/load/loadgen
JG=$top_builddir/test/lib/json_get

# Under ASan the figures measure the sanitizer: the load still runs, the
# latency and memory bounds are skipped.
SANITIZED=
ldd "$MAPMOND" 2>/dev/null | grep -q 'libasan' && SANITIZED=1

T=$(mktemp -d /tmp/load.XXXXXX) || exit 99
DPID=
PIDS=
cleanup() {
	for p in $PIDS $DPID; do
		kill -KILL "$p" 2>/dev/null
	done
	if [ -n "$LOAD_KEEP" ]; then
		echo "# kept $T"
	else
		rm -rf "$T"
	fi
}
trap cleanup EXIT


# The 2,000 connections need descriptors, in the daemon and in loadgen.
want_fds=$((LOAD_CONNS * 2 + 512))
if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$want_fds" ]; then
	ulimit -Sn "$want_fds" 2>/dev/null
fi
if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$want_fds" ]; then
	skip_all "cannot raise the descriptor limit to $want_fds (hard limit $(ulimit -Hn))"
fi

D=$T/data
CONF=$T/mapmon.conf
DLOG=$T/mapmond.log
mkdir -p "$D"
cat >"$CONF" <<EOF
[mon]
data = $D
bind = 127.0.0.1:0
max_connections = $((LOAD_CONNS * 2 + 96))
max_client_output = 16M
[auth]
keyring = $D.keyring
# the raw clients (slowloris, garbage, raw subscribers) try the framing and
# the limits, not the handshake (test_auth_net does): they offer no key;
# the client library's connections still authenticate (MAPMON_KEYRING)
required = false
[store]
backend = $BACKEND
sync = commit
EOF
echo "# $BACKEND, $LOAD_SECONDS s, $LOAD_CONNS connections, $LOAD_GARBAGE of garbage, fd limit $(ulimit -Sn)"

export MAPMON_KEYRING=$D.keyring
if "$MAPMOND" --mkfs -c "$CONF" >"$T/out" 2>&1; then ok "mapmond --mkfs"
else notok "mapmond --mkfs" "$(cat "$T/out")"; done_testing; fi

"$MAPMOND" -d -c "$CONF" 2>>"$DLOG" &
DPID=$!
port=
for i in $(seq 1 200); do
	port=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$DLOG" | tail -n 1)
	[ -n "$port" ] && break
	sleep 0.05
done
ADDR=127.0.0.1:$port
up=
for i in $(seq 1 100); do
	"$MAPMON" -m "$ADDR" --connect-timeout 1 status >/dev/null 2>&1 && { up=1; break; }
	sleep 0.05
done
if [ -n "$up" ]; then ok "mapmond starts and answers"
else notok "mapmond starts and answers" "$(tail -n 20 "$DLOG")"; done_testing; fi

perf() {	# perf PATH: a figure of `perf dump`
	"$MAPMON" -m "$ADDR" -f json perf dump 2>/dev/null | "$JG" "$1"
}
bytes_in0=$(perf server.bytes_in)

# Everything at once.  The probe starts first and ends last, so that its
# measure covers the whole load.
S=$LOAD_SECONDS
"$LOADGEN" probe -m "$ADDR" -t $((S + 2)) >"$T/probe" 2>&1 &
PROBE=$!
sleep 0.5
# The clients run niced: on a real cluster they are other machines, and
# here they must not take the monitor's CPU (two cores) to measure it.
NICE="nice -n 19"
$NICE "$ACKLOAD" load -m "$ADDR" -l "$T/ack" -t "$S" -w 2 -a 2 \
    >"$T/ackload" 2>&1 &
ACK=$!
$NICE "$LOADGEN" conns -m "$ADDR" -n "$LOAD_CONNS" -t "$S" >"$T/conns" 2>&1 &
CONNS=$!
$NICE "$LOADGEN" slowloris -m "$ADDR" -n 20 -t "$S" >"$T/slowloris" 2>&1 &
SLOW=$!
$NICE "$LOADGEN" noread -m "$ADDR" -t "$S" >"$T/noread" 2>&1 &
NOREAD=$!
# The reader comes once the load has made its pools: a snapshot of PGs.
# It is not niced: a subscriber that falls behind by max_client_output is
# cut by design, and here it must measure the monitor, not the scheduler.
(sleep 2; exec "$LOADGEN" reader -m "$ADDR" -t "$((S - 1))") \
    >"$T/reader" 2>&1 &
READER=$!
$NICE "$LOADGEN" garbage -m "$ADDR" -b "$LOAD_GARBAGE" -c 8 -t "$S" \
    >"$T/garbage" 2>&1 &
GARBAGE=$!
PIDS="$PROBE $ACK $CONNS $SLOW $NOREAD $READER $GARBAGE"

# The daemon must be there the whole time.
alive=1
t0=$(date +%s)
while kill -0 "$PROBE" 2>/dev/null; do
	kill -0 "$DPID" 2>/dev/null || { alive=; break; }
	sleep 0.5
done
wait "$PROBE"; rc_probe=$?
wait "$ACK"; rc_ack=$?
wait "$CONNS"; rc_conns=$?
wait "$SLOW"; rc_slow=$?
wait "$NOREAD"; rc_noread=$?
wait "$READER"; rc_reader=$?
wait "$GARBAGE"; rc_garbage=$?
PIDS=
elapsed=$(( $(date +%s) - t0 ))

if [ -n "$alive" ] && kill -0 "$DPID" 2>/dev/null; then
	ok "the daemon stayed up through the load ($elapsed s)"
else
	notok "the daemon stayed up through the load" "$(tail -n 30 "$DLOG")"
	done_testing
fi

line=$(grep '^conns:' "$T/conns")
if [ "$rc_conns" -eq 0 ]; then ok "$LOAD_CONNS connections held and served ($line)"
else notok "$LOAD_CONNS connections held and served" "$(cat "$T/conns")"; fi

line=$(grep '^slowloris:' "$T/slowloris")
if [ "$rc_slow" -eq 0 ]; then ok "slowloris clients did not stall anyone ($line)"
else notok "slowloris clients did not stall anyone" "$(cat "$T/slowloris")"; fi

line=$(grep '^noread:' "$T/noread")
slow=$(perf server.closed_slow)
if [ "$rc_noread" -eq 0 ] && [ "${slow:-0}" -ge 1 ]; then
	ok "a subscriber that never reads is cut ($line; closed_slow $slow)"
else
	notok "a subscriber that never reads is cut (closed_slow ${slow:-?})" "$(cat "$T/noread")"
fi

line=$(grep '^reader:' "$T/reader")
if [ "$rc_reader" -eq 0 ]; then
	ok "a pgmap subscriber that reads gets every push and is not cut ($line)"
else
	notok "a pgmap subscriber that reads gets every push and is not cut" "$(cat "$T/reader")"
fi

line=$(grep '^garbage:' "$T/garbage")
bytes_in=$(perf server.bytes_in)
consumed=$(( (${bytes_in:-0} - ${bytes_in0:-0}) / 1048576 ))
if [ "$rc_garbage" -eq 0 ]; then
	ok "$LOAD_GARBAGE of garbage in bursts ($line; the daemon read $consumed MiB in all)"
else
	notok "$LOAD_GARBAGE of garbage in bursts" "$(cat "$T/garbage")"
fi

line=$(grep '^ackload:' "$T/ackload")
if [ "$rc_ack" -eq 0 ]; then ok "every change of the load acknowledged ($line)"
else notok "every change of the load acknowledged (exit $rc_ack)" "$(cat "$T/ackload")"; fi
if "$ACKLOAD" check -m "$ADDR" -l "$T/ack" >"$T/out" 2>&1; then
	ok "every acknowledged change is in the monitor ($(cat "$T/out"))"
else
	notok "every acknowledged change is in the monitor" "$(cat "$T/out")"
fi

line=$(grep '^probe:' "$T/probe")
p99=$(echo "$line" | sed -n 's/.* p99 \([0-9.]*\),.*/\1/p')
if [ -n "$SANITIZED" ] && [ "$rc_probe" -eq 0 ]; then
	ok "status p99 during the load ($line; ms) # SKIP timing of a sanitizer build"
elif [ "$rc_probe" -eq 0 ] && [ -n "$p99" ] &&
    awk -v p="$p99" -v max="$LOAD_P99_MS" 'BEGIN { exit !(p < max) }'; then
	ok "status p99 under $LOAD_P99_MS ms during the load ($line; ms)"
else
	notok "status p99 under $LOAD_P99_MS ms during the load" "$(cat "$T/probe")
# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

# Every client is gone: the daemon holds only the connection asking.
conns=
for i in $(seq 1 50); do
	conns=$(perf server.connections)
	[ "${conns:-99}" -le 1 ] && break
	sleep 0.1
done
if [ "${conns:-99}" -le 1 ]; then
	ok "no connection left behind (connections ${conns})"
else
	notok "no connection left behind (connections ${conns:-?})"
fi
if "$MAPMON" -m "$ADDR" status >"$T/out" 2>&1; then ok "status answers after the load"
else notok "status answers after the load" "$(cat "$T/out")"; fi

hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$DPID/status")
if [ -n "$SANITIZED" ] && [ -n "$hwm" ]; then
	ok "peak RSS (VmHWM) $((hwm / 1024)) MiB # SKIP ASan's shadow memory and quarantine"
elif [ -n "$hwm" ] && [ "$hwm" -lt $((LOAD_MAX_RSS_MB * 1024)) ]; then
	ok "peak RSS (VmHWM) $((hwm / 1024)) MiB, under $LOAD_MAX_RSS_MB MiB"
else
	notok "peak RSS (VmHWM) ${hwm:-?} kB, under $LOAD_MAX_RSS_MB MiB"
fi
echo "# server: $("$MAPMON" -m "$ADDR" -f json perf dump | "$JG" server)"

kill -TERM "$DPID"
wait "$DPID"
rc=$?
DPID=
if [ "$rc" -eq 0 ]; then ok "clean stop after the load"
else notok "clean stop after the load (exit $rc)" "$(tail -n 20 "$DLOG")"; fi
done_testing
