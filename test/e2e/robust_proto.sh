#!/bin/bash
# robust_proto.sh: hostile clients against the real mapmond (RELIABILITY.md).
# Speaks TAP.  Needs $top_builddir.
#
# One daemon on LMDB on a free port (bind port 0; the port is read from
# its "listening on" line), in a temporary directory, with small limits so
# that each is reached quickly:
#
#	max_connections = 1010    max_frame = 1M
#	max_client_output = 1M    idle_timeout = 0 (set to 1s by the test)
#
# test/e2e/robust_proto sends it random bytes, cut and oversize frames, invalid
# UTF-8, deep nesting, wrong types, unknown prefixes, frames out of order,
# resets, 1,000 idle connections and subscribers that never read, checking
# after each group that a separate client's status is answered.  Then the
# daemon must still be running, exit 0 on SIGTERM, and have logged no
# sanitizer report.  A second daemon, limited to 64 descriptors, must
# survive a hundred clients without spinning and accept again afterwards.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
MAPMOND=$top_builddir/daemon/mapmond
ROBUST=$top_builddir/test/e2e/robust_proto

T=$(mktemp -d /tmp/robust_proto.XXXXXX) || exit 99
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
. "$top_srcdir/test/lib/tap_lib.sh"
check_diag() { tail -n 20 "$T/log"; }

# 1,000 connections, both ends in this machine: the client and the daemon
# each need more descriptors than the usual soft limit of 1,024.
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 4096 ]; then
	ulimit -n 4096
else
	ulimit -n "$hard"
fi
skip_idle=
[ "$(ulimit -n)" -ge 1200 ] || skip_idle=-I

# A freed block waits in ASan's quarantine (256 MB by default) before it
# is reused, which would hide what the memory check looks for.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"

mkdir -p "$T/data"
cat >"$T/mapmon.conf" <<EOF
[mon]
data = $T/data
bind = 127.0.0.1:0
propose_interval = 2ms
max_connections = 1010
max_frame = 1M
max_client_output = 1M
idle_timeout = 0
# a pool of 200,000 PGs, on no OSD: the PG limits raised out of the way
max_pool_pg_num = 262144
max_pg_per_osd = 1000000
[auth]
keyring = $T/data.keyring
# the hostile client speaks raw frames: the framing, not the handshake
# (test_auth_net has that), is what it tries to break
required = false
[store]
backend = lmdb
sync = none
EOF

"$MAPMOND" --mkfs -c "$T/mapmon.conf" >"$T/log" 2>&1
check "mapmond --mkfs" test $? -eq 0

"$MAPMOND" -d -c "$T/mapmon.conf" 2>>"$T/log" &
DPID=$!
port=
for i in $(seq 1 100); do
	port=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' \
	    "$T/log" | tail -n 1)
	[ -n "$port" ] && break
	sleep 0.1
done
check "mapmond listens on a free port" test -n "$port"
if [ -z "$port" ]; then
	echo "1..$n"
	exit 1
fi

# The C client's lines, numbered into this script's plan.
"$ROBUST" $skip_idle "127.0.0.1:$port" "$DPID" >"$T/tap" 2>"$T/err"
rc=$?
tap_relay "$T/tap"
check "robust_proto exits 0 (exit $rc)" test "$rc" -eq 0
[ -s "$T/err" ] && sed 's/^/# robust_proto: /' "$T/err"

check "mapmond is still running" kill -0 "$DPID"
grep -q "does not read" "$T/log"
check "the log names the reader that was cut" test $? -eq 0

kill -TERM "$DPID"
wait "$DPID"
st=$?
DPID=
check "mapmond exits 0 on SIGTERM (exit $st)" test "$st" -eq 0
! grep -q -e "AddressSanitizer" -e "LeakSanitizer" -e "runtime error:" \
    "$T/log"
check "no sanitizer report in the daemon's log" test $? -eq 0

# Out of descriptors: a second daemon limited to 64 (issue 5: accept
# survives EMFILE with a descriptor in reserve).
DPID=
mkdir -p "$T/data64"
sed -e "s|^data = .*|data = $T/data64|" \
    -e "s|^keyring = .*|keyring = $T/data64.keyring|" \
    "$T/mapmon.conf" >"$T/mapmon64.conf"
"$MAPMOND" --mkfs -c "$T/mapmon64.conf" >"$T/log64" 2>&1
(ulimit -n 64 && exec "$MAPMOND" -d -c "$T/mapmon64.conf" 2>>"$T/log64") &
DPID=$!
port=
for i in $(seq 1 100); do
	port=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' \
	    "$T/log64" | tail -n 1)
	[ -n "$port" ] && break
	sleep 0.1
done
check "mapmond with 64 descriptors listens" test -n "$port"
if [ -n "$port" ]; then
	"$ROBUST" -E "127.0.0.1:$port" "$DPID" >"$T/tap" 2>"$T/err"
	rc=$?
	tap_relay "$T/tap"
	check "robust_proto -E exits 0 (exit $rc)" test "$rc" -eq 0
	# One warning per shortage: again only after descriptors came back.
	short=$(grep -c "refusing connections and pausing" "$T/log64")
	back=$(grep -c "descriptors are available again" "$T/log64")
	check "the shortage is logged, once per shortage ($short, $back)" \
	    test "$short" -ge 1 -a "$short" -le $((back + 1))
	kill -TERM "$DPID"
	wait "$DPID"
	st=$?
	DPID=
	check "mapmond (64 descriptors) exits 0 on SIGTERM (exit $st)" \
	    test "$st" -eq 0
	! grep -q -e "AddressSanitizer" -e "LeakSanitizer" -e "runtime error:" \
	    "$T/log64"
	check "no sanitizer report in its log" test $? -eq 0
fi

echo "1..$n"
[ "$failed" -eq 0 ]
