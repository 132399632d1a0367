#!/bin/bash
# store_compact.sh: `mapmon-store compact` on a monitor's store grown by
# churn, once per store backend (mapmon-store(8)).  Speaks TAP.
#
# A real mapmond makes and deletes pools of 8,192 PGs four times (the
# LMDB file keeps the pages the deleted PGs took), then keeps a small
# pool.  Then:
#   - compact is refused while the monitor runs, naming its process;
#   - with the monitor stopped the store is smaller after compact (LevelDB:
#     no larger, as it compacts by itself and at a clean stop), verify
#     passes, and `dump --full` is the same before and after (every
#     record the same); the monitor starts on it and has the small pool;
#   - LMDB: a compaction that fails (no space for the copy: a small tmpfs,
#     in a mount namespace of its own, when run as root; else a data
#     directory the tool cannot write in) says why in one line, leaves
#     the store as it was (same file, same dump, verify passes) and no
#     copy behind.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
TAP_PER_BACKEND=1
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
STORE_TOOL=$top_builddir/tools/mapmon-store

# A private mount namespace for the tmpfs of the failure case, as root.
if [ "$(id -u)" -eq 0 ] && [ -z "${STORE_COMPACT_NS:-}" ] &&
    command -v unshare >/dev/null 2>&1 &&
    unshare -m --propagation private true 2>/dev/null; then
	STORE_COMPACT_NS=1 exec unshare -m --propagation private \
	    env STORE_COMPACT_NS=1 bash "$0" "$@"
fi

T=$(mktemp -d /tmp/store_compact.XXXXXX) || exit 99
DPID=
MNT=
cleanup() {
	[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null && wait "$DPID"
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	chmod -R u+w "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
check_diag() {
	printf '%s\ndaemon log: %s' "$(tail -n 20 "$T/out" 2>/dev/null)" \
	    "$(tail -n 10 "$T/log.$BACKEND" 2>/dev/null)"
}

mapmon() {
	"$MAPMON" -m "$ADDR" --connect-timeout 15 "$@" >"$T/out" 2>&1
}
wait_until() {	# wait_until SECONDS COMMAND...: poll every 0.1 s
	local i limit=$(($1 * 10))
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
stop_daemon() {
	kill -TERM "$DPID"
	wait "$DPID"
	local st=$?
	DPID=
	return $st
}
tool() { "$STORE_TOOL" -c "$CONF" "$@"; }
# The store's size: LMDB's data file, LevelDB's tables and log (not its
# manifest and text LOG, which record each compaction).
store_bytes() {
	if [ "$BACKEND" = lmdb ]; then
		stat -c %s "$1/store/data.mdb"
	else
		cat "$1"/store/*.ldb "$1"/store/*.log 2>/dev/null | wc -c
	fi
}
churn() {
	local i
	mapmon osd create && mapmon osd create && mapmon osd create &&
	    mapmon osd boot 0 && mapmon osd boot 1 && mapmon osd boot 2 ||
	    return 1
	for i in 1 2 3 4; do
		mapmon osd pool create "big$i" 8192 --size 1 &&
		    mapmon osd pool delete "big$i" "big$i" \
		    --yes-i-really-really-mean-it || return 1
	done
	mapmon osd pool create keep 64 --size 1
}
# compact_fails DATA WANT: compact of DATA exits 1 with one line matching
# WANT, and leaves the store as it was and no copy.
compact_fails() {
	local data=$1 want=$2 size
	size=$(store_bytes "$data")
	"$STORE_TOOL" -c "$CONF" --data "$data" compact >"$T/out" 2>&1
	local rc=$?
	cat "$T/out" >&2
	[ $rc -eq 1 ] && [ "$(wc -l <"$T/out")" -eq 1 ] &&
	    grep -q -- "$want" "$T/out" &&
	    grep -q 'the store is untouched' "$T/out" &&
	    [ "$(store_bytes "$data")" = "$size" ] &&
	    [ ! -e "$data/store.compact" ]
}

echo "1..$((10 + 9 + 4))"
for BACKEND in lmdb leveldb; do
	D=$T/$BACKEND
	CONF=$T/$BACKEND.conf
	cat >"$CONF" <<EOF
[mon]
data = $D
bind = 127.0.0.1:0
propose_interval = 5ms
max_pg_per_osd = 20000
mon_allow_pool_delete = true
[auth]
keyring = $T/$BACKEND.keyring
[store]
backend = $BACKEND
sync = none
EOF
	export MAPMON_KEYRING=$T/$BACKEND.keyring
	"$MAPMOND" --mkfs -c "$CONF" >"$T/out" 2>&1 && start_daemon
	check "mapmond made and started" test $? -eq 0
	check "pools of 8,192 PGs made and deleted four times, one kept" churn

	tool compact >"$T/out" 2>&1
	rc=$?
	check "compact is refused while the monitor runs, naming it" \
	    eval '[ $rc -eq 1 ] && grep -q "store is in use by process $DPID" "$T/out"'
	check "mapmond stops cleanly" stop_daemon

	tool dump --full >"$T/before.$BACKEND"
	before=$(store_bytes "$D")
	[ "$BACKEND" = lmdb ] && cp -a "$D" "$T/spare"
	tool compact >"$T/out" 2>&1
	rc=$?
	after=$(store_bytes "$D")
	echo "# $(cat "$T/out")"
	echo "# store bytes before $before, after $after"
	check "compact succeeds and says so" \
	    eval '[ $rc -eq 0 ] && grep -q "^compacted $D/store ($BACKEND)" "$T/out"'
	# LevelDB compacts by itself and wrote its memtable out at the stop:
	# there is little left for compact to give back.
	if [ "$BACKEND" = lmdb ]; then
		check "the store is smaller after compact" \
		    test "$after" -lt "$before"
		check "the compacted data file is the store's only (0600)" \
		    test "$(stat -c %a "$D/store/data.mdb")" = 600
	else
		check "the store is no larger after compact" \
		    test "$after" -le "$before"
	fi
	tool verify >"$T/out" 2>&1
	check "verify passes on the compacted store" test $? -eq 0
	tool dump --full >"$T/after.$BACKEND"
	check "every record is the same (dump --full before and after)" \
	    cmp -s "$T/before.$BACKEND" "$T/after.$BACKEND"
	start_daemon && mapmon osd pool ls && grep -q '^keep$' "$T/out" &&
	    stop_daemon
	check "mapmond starts on the compacted store and has its pool" \
	    test $? -eq 0
done

# The failures, on the LMDB store as it was before its compaction.
BACKEND=lmdb
CONF=$T/lmdb.conf
if [ "$(id -u)" -eq 0 ]; then
	MNT=$T/small
	mkdir "$MNT"
	need=$(du -sk "$T/spare" | cut -f1)
	mount -t tmpfs -o size=$((need + 1024))k tmpfs "$MNT"
	check "a tmpfs for the failure" test $? -eq 0
	cp -a "$T/spare" "$MNT/data"
	# Leave 16 KiB: less than any compacted copy of a monitor's store.
	free_kb=$(df -Pk "$MNT" | awk 'NR == 2 { print $4 }')
	dd if=/dev/zero of="$MNT/filler" bs=1k count=$((free_kb - 16)) \
	    >/dev/null 2>&1
	check "no space for the copy: compact fails, the store untouched" \
	    compact_fails "$MNT/data" 'No space left on device'
	F=$MNT/data
else
	chmod a-w "$T/spare"
	check "a data directory the tool cannot write in" \
	    test ! -w "$T/spare"
	check "no room for the copy: compact fails, the store untouched" \
	    compact_fails "$T/spare" 'Permission denied'
	F=$T/spare
fi
tool --data "$F" verify >"$T/out" 2>&1
check "verify passes on the store after the failed compaction" test $? -eq 0
tool --data "$F" dump --full >"$T/failed.lmdb"
check "every record is as it was" cmp -s "$T/before.lmdb" "$T/failed.lmdb"
[ "$failed" -eq 0 ]
