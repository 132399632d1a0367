#!/bin/bash
# fault_enospc.sh: the real mapmond on a filesystem that fills up
# (RELIABILITY.md), once per store backend.  Speaks TAP.  Needs $top_builddir.
#
# The store lives on a small tmpfs that this test mounts (in a mount
# namespace of its own where unshare(1) allows, so that the mount goes
# away with the test whatever happens); without root, or where mount
# fails, the whole test is skipped and says why.  A filler file takes
# every free byte, then one OSD's PG reports go on until the store refuses
# one.  Then:
#   - the writer got ENOSPC, health has STORE_ERROR, and reports go on
#     getting ENOSPC (nothing else) while the disk is full;
#   - `status` and reads answer, and the committed state is the last
#     acknowledged report;
#   - the filler is deleted: the monitor recovers by itself (STORE_ERROR
#     clears without any command), and writes are accepted again; LevelDB,
#     which keeps a failed write's error until it is reopened, is reopened
#     by the store layer at the next commit, and the daemon's log says so;
#   - after a clean stop `mapmon-store verify` passes, and a restart holds
#     the last acknowledged report.
# Then LMDB with `writemap = true`, whose commits write into the mapped
# file: its map is allocated on disk at open, and a growth the full disk
# refuses is ENOSPC for the writer (not a SIGBUS), cleared once space
# returns.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
. "$top_srcdir/test/lib/backend_lib.sh"
TAP_PER_BACKEND=1
check_diag() {
	printf '%s\ndaemon log: %s' "$(tail -n 20 "$T/out" 2>/dev/null)" \
	    "$(tail -n 10 "$T/log.$BACKEND" 2>/dev/null)"
}
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
STORE_TOOL=$top_builddir/tools/mapmon-store
JG=$top_builddir/test/lib/json_get
LOAD=$top_builddir/test/e2e/fault_pgload

BACKENDS="lmdb leveldb"
PG_NUM=128
PER_BACKEND=19


if [ "$(id -u)" -ne 0 ]; then
	skip_all "not root: cannot mount a small tmpfs to fill"
fi
# A private mount namespace: the tmpfs cannot outlive the test.
if [ -z "${FAULT_ENOSPC_NS:-}" ] && command -v unshare >/dev/null 2>&1 &&
    unshare -m --propagation private true 2>/dev/null; then
	FAULT_ENOSPC_NS=1 exec unshare -m --propagation private \
	    env FAULT_ENOSPC_NS=1 bash "$0" "$@"
fi

T=$(mktemp -d /tmp/fault_enospc.XXXXXX) || exit 99
DPID=
MNT=
cleanup() {
	[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null && wait "$DPID"
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

mkdir "$T/try"
if ! err=$(mount -t tmpfs -o size=1m tmpfs "$T/try" 2>&1); then
	skip_all "cannot mount a tmpfs here: $err"
fi
umount "$T/try"

# LevelDB has one case more: its reopen is logged.
extra=0
case " $BACKENDS " in *" leveldb "*) extra=1 ;; esac
WRITEMAP_CASES=8
echo "1..$(( PER_BACKEND * $(echo $BACKENDS | wc -w) + extra +
    WRITEMAP_CASES ))"
# A write waits for the monitor's retry (up to 5 s) while the store fails.
mapmon() {
	"$MAPMON" -m "$ADDR" --connect-timeout 15 "$@" >"$T/out" 2>&1
}
has_store_error() {
	mapmon -f json health && jget checks.STORE_ERROR >/dev/null
}
reported_seq() {	# the committed reported_seq of PG $POOL.0
	mapmon -f json pg query "$POOL.0" && jget reported_seq
}
wait_until() {	# wait_until SECONDS COMMAND...: poll every 0.1 s
	local i limit=$(( $1 * 10 ))
	shift
	for i in $(seq 1 "$limit"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

start_daemon() {
	local port skip
	skip=$(log_lines "$T/log.$BACKEND")
	"$MAPMOND" -d -c "$CONF" 2>>"$T/log.$BACKEND" &
	DPID=$!
	port=$(listen_port "$T/log.$BACKEND" "$skip" "$DPID") || return 1
	ADDR=127.0.0.1:$port
	wait_until 5 mapmon status
}

# mount_conf STORE_BACKEND [LINES]: a 16 MiB tmpfs at $MNT for $BACKEND's
# monitor, and its config $CONF, LINES appended (a section of their own).
mount_conf() {
	MNT=$T/mnt-$BACKEND
	mkdir -p "$MNT"
	mount -t tmpfs -o size=16m tmpfs "$MNT"
	D=$MNT/data
	CONF=$T/$BACKEND.conf
	printf '%s\n' "[mon]" "data = $D" "bind = 127.0.0.1:0" \
	    "propose_interval = 5ms" "max_pg_per_osd = 100000" "[auth]" \
	    "keyring = $T/$BACKEND.keyring" "[store]" "backend = $1" \
	    "${2:-}" >"$CONF"
	export MAPMON_KEYRING=$T/$BACKEND.keyring
}

for BACKEND in $BACKENDS; do
	mount_conf "$BACKEND" "$(printf '[store.leveldb]\nwrite_buffer_size = 256K')"
	"$MAPMOND" --mkfs -c "$CONF" >"$T/out" 2>&1
	check "mapmond --mkfs on a 16 MiB tmpfs" test $? -eq 0
	check "mapmond starts and answers" start_daemon
	mapmon osd create && mapmon osd boot 0 &&
	    mapmon osd pool create fill "$PG_NUM" --size 1 &&
	    mapmon -f json osd pool get fill pg_num
	check "an OSD up and a pool of $PG_NUM PGs" test $? -eq 0
	mapmon -f json osd dump
	POOL=$(jget pools.0.pool)
	"$LOAD" "$ADDR" "$POOL" "$PG_NUM" 0 1 3 >"$T/out" 2>&1
	check "PG reports are accepted while there is room" test $? -eq 0

	# Every free byte of the filesystem goes to the filler.
	dd if=/dev/zero of="$MNT/filler" bs=64k >/dev/null 2>&1
	check "the filler takes the free space" \
	    test "$(df -P "$MNT" | awk 'NR == 2 { print $4 }')" -lt 64

	"$LOAD" "$ADDR" "$POOL" "$PG_NUM" 0 4 5000 >"$T/load" 2>&1
	rc=$?
	cp "$T/load" "$T/out"
	check "a PG report is refused with ENOSPC once the disk is full" \
	    test "$rc" -eq 28
	last=$(awk '$1 == "ok" { s = $2 } END { print s + 0 }' "$T/load")
	[ "$last" -eq 0 ] && last=3
	echo "# $(grep -c '^ok' "$T/load") reports accepted after the" \
	    "filler, then: $(grep '^fail' "$T/load")"

	check "health shows STORE_ERROR right after the refusal" \
	    grep -q '^health STORE_ERROR$' "$T/load"
	# Then a small write may get through (LMDB reuses the pages its
	# failed transaction freed, so the monitor's own retry can succeed on
	# a full disk), but reports keep failing, with ENOSPC and nothing else.
	"$LOAD" "$ADDR" "$POOL" "$PG_NUM" 0 $((last + 1)) 100 >"$T/load2" 2>&1
	rc=$?
	cp "$T/load2" "$T/out"
	check "writers go on getting ENOSPC while the disk is full" \
	    test "$rc" -eq 28
	last=$(awk -v l="$last" '$1 == "ok" { l = $2 } END { print l }' \
	    "$T/load2")
	mapmon status
	check "status answers" grep -q 'health: HEALTH_' "$T/out"
	check "reads show the last acknowledged report, not the refused ones" \
	    test "$(reported_seq)" = "$last"

	# Space returns: no command, the monitor's own retry clears it.
	rm -f "$MNT/filler"
	check "after the filler is deleted STORE_ERROR clears by itself" \
	    wait_until 20 eval '! has_store_error'
	if [ "$BACKEND" = leveldb ]; then
		grep -E 'LevelDB (write failed|reopen)' "$T/log.$BACKEND" |
		    sed 's/^/# /'
		check "the daemon's log names the reopen of the LevelDB store" \
		    grep -qF "$D/store: LevelDB reopened after a failed write" \
		    "$T/log.$BACKEND"
	fi
	"$LOAD" "$ADDR" "$POOL" "$PG_NUM" 0 $((last + 200)) 2 >"$T/out" 2>&1
	check "PG reports are accepted again" test $? -eq 0
	mapmon osd set noout
	check "osd set is accepted again" test $? -eq 0
	check "reads show the new reports" \
	    test "$(reported_seq)" = "$((last + 201))"

	check "mapmond stops cleanly" stop_daemon
	"$STORE_TOOL" -c "$CONF" verify >"$T/out" 2>&1
	check "mapmon-store verify passes: nothing half-applied" \
	    test $? -eq 0
	check "mapmond starts again on the same store" start_daemon
	check "after the restart the last acknowledged report is there" \
	    test "$(reported_seq)" = "$((last + 201))"
	check "mapmond stops cleanly again" stop_daemon
	umount "$MNT"
	MNT=
done

BACKEND=lmdb-writemap
mount_conf lmdb "$(printf '[store.lmdb]\nwritemap = true\nmap_size = 4M')"
"$MAPMOND" --mkfs -c "$CONF" >"$T/out" 2>&1 &&
    blocks=$(stat -c '%b * %B' "$D/store/data.mdb") &&
    echo "# data.mdb: $((blocks)) bytes allocated" &&
    test "$((blocks))" -ge $((4 << 20))
check "the 4 MiB map is allocated on disk at mkfs" test $? -eq 0
check "mapmond starts and answers" start_daemon
mapmon osd create && mapmon osd boot 0 &&
    mapmon osd pool create small 64 --size 1
check "an OSD up and a pool" test $? -eq 0
dd if=/dev/zero of="$MNT/filler" bs=64k >/dev/null 2>&1
# 32,768 PGs of some 60 bytes do not fit the 4 MiB map: it must grow.
mapmon osd pool create big 32768 --size 1
rc=$?
check "a write that must grow the map gets ENOSPC" \
    test "$rc" -eq 28
check "the monitor lives on (no SIGBUS) and shows STORE_ERROR" \
    has_store_error
rm -f "$MNT/filler"
check "STORE_ERROR clears once space returns" \
    wait_until 20 eval '! has_store_error'
mapmon osd pool create big 32768 --size 1 &&
    mapmon -f json osd pool get big pg_num && test "$(jget pg_num)" = 32768
check "the map grows and the pool is made" test $? -eq 0
stop_daemon && "$STORE_TOOL" -c "$CONF" verify >"$T/out" 2>&1
check "stops cleanly and mapmon-store verify passes" \
    test $? -eq 0
umount "$MNT"
MNT=
exit $(( failed != 0 ))
