#!/bin/bash
# cmd_fuzz.sh: the command fuzzer against the real mapmond, once per store
# backend (RELIABILITY.md).  Speaks TAP.  Needs $top_builddir.
#
# Per backend: a store in a temporary directory, mapmond on a free port,
# eight OSDs created and booted with the CLI; then test/e2e/cmd_fuzz sends
# commands made from the daemon's own table (get_command_descriptions),
# valid, at their boundaries and wrong, over several connections, while
# a probe asks `status` every 100 ms and the daemon's RSS is watched (its
# lines are numbered into this script's plan).  Afterwards the daemon must
# still run, exit 0 within 5 s of SIGTERM, leave a store that
# `mapmon-store verify` passes, and have logged no sanitizer report.
#
# Environment:
#   CMDFUZZ_SECONDS     fuzzing per backend (20 s; 15 under ASan); the
#                       long form is CMDFUZZ_SECONDS=600
#   CMDFUZZ_SEED        the seed (from the clock); printed, and on a
#                       failure with the line that repeats the run
#   CMDFUZZ_RSS_MB      the daemon's RSS ceiling (1024 MiB)
#   CMDFUZZ_CONNS       connections (4), each with CMDFUZZ_DEPTH (4) in
#                       flight
#   CMDFUZZ_MAX_PG_NUM  caps the PG counts sent (unset: the table's whole
#                       range); only to work on the rest of the daemon
#   BACKENDS            "lmdb leveldb"
#   CMDFUZZ_KEEP=1      keep the directory: daemon logs, and per backend
#                       the last 1,000 commands sent with their rc
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/test/lib/ops_lib.sh"
STORE_TOOL=$top_builddir/tools/mapmon-store
FUZZ=$top_builddir/test/e2e/cmd_fuzz
TAP_PER_BACKEND=1

cf_cleanup() {
	[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null && wait "$DPID"
	if [ -n "${CMDFUZZ_KEEP:-}" ]; then
		echo "# kept $T"
	else
		rm -rf "$T"
	fi
}
trap cf_cleanup EXIT

# Under ASan the daemon is slower and bigger: a shorter run, and a small
# quarantine so that freed memory is reused as it would be.
SANITIZED=
ldd "$top_builddir/daemon/mapmond" 2>/dev/null | grep -q libasan &&
    SANITIZED=1
if [ -n "$SANITIZED" ]; then
	: "${CMDFUZZ_SECONDS:=15}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
fi
: "${CMDFUZZ_SECONDS:=20}"
: "${CMDFUZZ_SEED:=$(date +%s%N)}"
: "${CMDFUZZ_RSS_MB:=1024}"
: "${CMDFUZZ_CONNS:=4}"
: "${CMDFUZZ_DEPTH:=4}"
: "${BACKENDS:=lmdb leveldb}"
CAP=
[ -n "${CMDFUZZ_MAX_PG_NUM:-}" ] && CAP="-P $CMDFUZZ_MAX_PG_NUM"

echo "# seed $CMDFUZZ_SEED, $CMDFUZZ_SECONDS s per backend, RSS ceiling" \
    "$CMDFUZZ_RSS_MB MiB${SANITIZED:+ (ASan build)}"

# alive: the daemon runs (a child that has exited stays a zombie until
# it is waited for).
alive() {
	[ -r "/proc/$DPID/status" ] &&
	    ! grep -q '^State:[[:space:]]*Z' "/proc/$DPID/status"
}

# stop_within SECONDS: SIGTERM, then SIGKILL if the daemon has not gone
# within SECONDS; returns its exit status, STOP_MS the time it took.
stop_within() {
	local i t0
	t0=$(now_ms)
	kill -TERM "$DPID"
	for i in $(seq 1 $(($1 * 20))); do
		alive || break
		sleep 0.05
	done
	alive && kill -KILL "$DPID"
	wait "$DPID"
	local st=$?
	STOP_MS=$(($(now_ms) - t0))
	DPID=
	return $st
}

no_sanitizer_report() {
	! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$LOG"
}

# eight_osds: create and boot OSDs 0 to 7, as an operator would.
eight_osds() {
	local i
	for i in 0 1 2 3 4 5 6 7; do
		mm osd create && mm osd boot "$i" || return 1
	done
	mm osd stat && grep -q '^8 osds: 8 up, 8 in' "$T/out"
}

for BACKEND in $BACKENDS; do
	CONF=$T/$BACKEND.conf
	LOG=$T/$BACKEND.log
	mkconf "$CONF" "$T/$BACKEND" "backend = $BACKEND"
	mkfs "$CONF"
	st=$?
	DIAG=$(cat "$T/mkfs.out")
	check "mapmond --mkfs" test "$st" -eq 0
	start_daemon "$CONF" "$LOG"
	st=$?
	DIAG=$(tail -n 20 "$LOG")
	check "mapmond starts on a free port" test "$st" -eq 0
	if [ "$st" -ne 0 ]; then
		if [ -n "$DPID" ]; then
			kill -KILL "$DPID" 2>/dev/null
			wait "$DPID" 2>/dev/null
		fi
		DPID=
		continue
	fi
	eight_osds
	st=$?
	DIAG=$(cat "$T/out" "$T/err")
	check "8 OSDs created and booted" test "$st" -eq 0

	# The fuzzer's lines, numbered into this plan.
	"$FUZZ" -m "$ADDR" -p "$DPID" -t "$CMDFUZZ_SECONDS" \
	    -s "$CMDFUZZ_SEED" -r "$CMDFUZZ_RSS_MB" -c "$CMDFUZZ_CONNS" \
	    -q "$CMDFUZZ_DEPTH" -l "$T/$BACKEND.cmds" $CAP \
	    >"$T/tap" 2>"$T/fuzz.err"
	rc=$?
	tap_relay "$T/tap"
	DIAG=$(tail -n 20 "$T/fuzz.err")
	check "cmd_fuzz ran to its report (exit $rc)" \
	    test "$rc" -eq 0 -o "$rc" -eq 1
	if [ "$rc" -ne 0 ]; then
		grep -E 'disconnecting|does not fit|refusing' "$LOG" | tail -n 5 |
		    cut -c 1-300 | sed 's/^/# daemon: /'
		echo "# repeat: CMDFUZZ_SEED=$CMDFUZZ_SEED" \
		    "CMDFUZZ_SECONDS=$CMDFUZZ_SECONDS BACKENDS=$BACKEND" \
		    "${CMDFUZZ_MAX_PG_NUM:+CMDFUZZ_MAX_PG_NUM=$CMDFUZZ_MAX_PG_NUM }make" \
		    "check TESTS=test/e2e/cmd_fuzz.sh"
	fi

	DIAG=$(tail -n 20 "$LOG")
	check "mapmond is still running" alive
	stop_within 5
	st=$?
	check "SIGTERM: exit 0 within 5 s (exit $st, $STOP_MS ms)" \
	    test "$st" -eq 0 -a "$STOP_MS" -lt 5000
	"$STORE_TOOL" -c "$CONF" verify >"$T/out" 2>&1
	st=$?
	DIAG=$(tail -n 20 "$T/out")
	check "mapmon-store verify passes on its store" test "$st" -eq 0
	DIAG=
	check "no sanitizer report in the daemon's log" no_sanitizer_report
done
done_testing
