# ops_lib.sh: what the ops_*.sh tests share (sourced, not run).  TAP
# helpers (test/lib/tap_lib.sh), a temporary directory removed at exit, and
# starting and stopping a real mapmond on a free port, always killed at exit.
#
# Needs $top_builddir and $top_srcdir (make check sets them).

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
NLISTEN=$top_builddir/test/e2e/notify_listen

T=$(mktemp -d /tmp/ops.XXXXXX) || exit 99
PIDS=
DPID=
ops_cleanup() {
	local p
	for p in $DPID $PIDS; do
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap ops_cleanup EXIT

# check DESC COMMAND...: pass when the command succeeds.

# now_ms: a monotonic-enough clock in milliseconds.
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# mkconf FILE DATADIR [LINE...]: a config for a test daemon (port 0, no
# fsync unless a LINE says otherwise: LINEs are appended as they are, so
# later sections may follow; the admin keyring is DATADIR.keyring, and
# MAPMON_KEYRING names it for the clients that follow).
mkconf() {
	local f=$1 d=$2
	shift 2
	export MAPMON_KEYRING=$d.keyring
	mkdir -p "$d"
	{
		printf '[auth]\nkeyring = %s.keyring\n' "$d"
		printf '[mon]\ndata = %s\nbind = 127.0.0.1:0\n' "$d"
		printf 'propose_interval = 2ms\n'
		printf '[store]\nsync = none\n'
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$f"
}

# mkfs CONF: make the store.
mkfs() {
	"$MAPMOND" --mkfs -c "$1" >"$T/mkfs.out" 2>&1
}

# start_daemon CONF LOG: start mapmond -d in the background (extra
# environment may be given before the call: VAR=x start_daemon ...), wait
# until it answers `status'.  Sets DPID, PORT, ADDR, and MAPMON_KEYRING to
# CONF's [auth] keyring (the admin's: every client authenticates).
start_daemon() {
	conf_keyring "$1"
	mon_start "$1" "$2"
}

# conf_keyring CONF: export MAPMON_KEYRING as CONF's [auth] keyring, when
# it names one.
conf_keyring() {
	local k
	k=$(sed -n 's/^keyring *= *//p' "$1" | tail -n 1)
	[ -n "$k" ] && export MAPMON_KEYRING=$k
	return 0
}

# stop_daemon [SIG]: send SIG (TERM), wait; returns the exit status and
# sets STOP_MS to the time it took.
stop_daemon() {
	local st t0
	t0=$(now_ms)
	kill -"${1:-TERM}" "$DPID"
	wait "$DPID"
	st=$?
	STOP_MS=$(($(now_ms) - t0))
	DPID=
	return $st
}

# mapmon ARGS...: the CLI against the test daemon, out in $T/out, err in
# $T/err, exit status in $rc.
mm() {
	"$MAPMON" -m "$ADDR" --connect-timeout 2 "$@" >"$T/out" 2>"$T/err"
	rc=$?
	return $rc
}

# sanitizer_clean: no AddressSanitizer, LeakSanitizer or UBSan report in
# any file of the test's directory (the daemons' logs and stderr).
sanitizer_clean() {
	DIAG=$(grep -rlE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$T" \
	    2>/dev/null)
	[ -z "$DIAG" ]
}
