# lib.sh: what the quorum measurements of bench/quorum/ share, sourced
# after B (the build directory) and BE (the backend) are set: a temporary
# directory D removed at exit with the monitors started (PIDS), each
# monitor's config, and the four pools of 221,568 PGs (left creating: no
# OSD).  BENCHMARKS.md, "A quorum of monitors".
D=$(mktemp -d /tmp/quorum-bench.XXXXXX) || exit 1
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; sleep 1; [ -n "${QUORUM_BENCH_KEEP:-}" ] && echo "kept $D" || rm -rf "$D"' EXIT
# free_ports N and mkfs_quorum FIRST OTHER... (its status: a caller
# exits on failure) are the tests' (test/lib/quorum_lib.sh).
MAPMOND=$B/daemon/mapmond
. "$(dirname "${BASH_SOURCE[0]}")/../../test/lib/quorum_lib.sh"

# write_conf NAME ADDR MON_HOST: $D/NAME.conf, its store in $D/NAME;
# MON_EXTRA: lines added to its [mon] section.
write_conf() {
	cat >"$D/$1.conf" <<CONF
[mon]
name = $1
data = $D/$1
bind = $2
mon_host = $3
max_pg_per_osd = 1000000
max_pgs = 300000
${MON_EXTRA:-}
[store]
backend = $BE
[auth]
keyring = $D/keyring
[log]
file = $D/$1.log
CONF
}

# start_mon NAME: in the foreground mode, its pid in PIDS and in $D/NAME.pid.
start_mon() {
	"$B/daemon/mapmond" -c "$D/$1.conf" -f 2>"$D/$1.err" &
	echo $! >"$D/$1.pid"
	PIDS="$PIDS $!"
}

# make_pools MAPMON...: the four pools of 221,568 PGs through that client.
make_pools() {
	local p
	for p in 1 2 3; do "$@" osd pool create "big$p" 65536 || exit 1; done
	"$@" osd pool create big4 24960 || exit 1
}

# serving ADDR: a `pg stat` of every PG from the monitor at ADDR.
serving() {
	"$B/tools/mapmon" -m "$1" -k "$D/keyring" --connect-timeout 2 \
	    pg stat 2>/dev/null | grep -q '^221568 pgs'
}
