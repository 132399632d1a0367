#!/bin/sh
# store_tool.sh: mapmon-store end to end, as TAP.
#
# Builds a 220,000-record store with import, copies it LMDB -> LevelDB ->
# LMDB and compares the dumps and exports, then checks that a missing,
# locked, corrupt or newer-format store gets one line on stderr and a
# non-zero exit from every subcommand.
set -u

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
tool=${MAPMON_STORE:-$top_builddir/tools/mapmon-store}
poke=${STORE_POKE:-$top_builddir/test/e2e/store_poke}
mapmond=${MAPMOND:-$top_builddir/daemon/mapmond}
T=$(mktemp -d /tmp/mapmon-store-tool.XXXXXX)
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$top_srcdir/test/lib/tap_lib.sh"

conf=$T/mapmon.conf
cat >"$conf" <<EOF
[mon]
data = $T/a
[store]
backend = lmdb
sync = none
EOF
st() { "$tool" -c "$conf" "$@"; }
quiet() { "$@" >/dev/null 2>&1; }

# 220,000 records of prefix 0x10 (big-endian numbers, values of 4..52
# bytes), a few binary keys of prefix 0x01, and the format record.
awk 'BEGIN {
	printf "{\"format\":1,\"backend\":\"test\",\"records\":[";
	printf "\n{\"key\":\"00666f726d6174\",\"value\":\"00000001\"}";
	printf ",\n{\"key\":\"0100\",\"value\":\"\"}";
	printf ",\n{\"key\":\"01005c09ff\",\"value\":\"000102\"}";
	for (i = 0; i < 220000; i++) {
		v = sprintf("%08x", i);
		val = "";
		for (j = 0; j <= i % 13; j++)
			val = val v;
		printf ",\n{\"key\":\"10%016x\",\"value\":\"%s\"}", i, val;
	}
	printf "\n]}\n";
}' >"$T/in.json"

start=$(date +%s)
check "import 220,000 records into a new LMDB store" \
	quiet st import "$T/in.json"
st stat >"$T/stat"
check "the store is LMDB with 220,003 records" \
	grep -q "^records: 220003$" "$T/stat"
check "stat names the backend" grep -q "^backend: lmdb$" "$T/stat"
st dump --full >"$T/d1"
check "dump has one line per record" \
	test "$(wc -l <"$T/d1")" -eq 220003
check "dump escapes binary keys" \
	grep -q '^\\x01\\x00\\\\\\x09\\xff	3	000102$' "$T/d1"
check "copy LMDB -> LevelDB" \
	quiet st copy --backend leveldb "$T/b"
check "the copy is LevelDB" \
	test -f "$T/b/store/CURRENT"
st --data "$T/b" dump --full >"$T/d2"
check "LevelDB dump is identical" cmp -s "$T/d1" "$T/d2"
check "copy LevelDB -> LMDB" \
	quiet st --data "$T/b" copy --backend lmdb "$T/c"
st --data "$T/c" dump --full >"$T/d3"
check "LMDB dump after the round trip is identical" cmp -s "$T/d1" "$T/d3"
st export >"$T/e1.json"
st --data "$T/c" export "$T/e3.json" 2>/dev/null
check "exports before and after the round trip are identical" \
	cmp -s "$T/e1.json" "$T/e3.json"
check "re-import of the export into LevelDB gives the same dump" \
	sh -c '"$0" -c "$1" --data "$2" --backend leveldb import "$3" 2>/dev/null &&
	    "$0" -c "$1" --data "$2" dump --full | cmp -s - "$4"' \
	"$tool" "$conf" "$T/d" "$T/e1.json" "$T/d1"
check "get prints the value" \
	test "$(st get '\x10\x00\x00\x00\x00\x00\x00\x00\x0e')" = 0000000e0000000e
check "get of a missing key exits 2" \
	sh -c '"$0" -c "$1" get "\x10\x01" 2>/dev/null; test $? -eq 2' \
	"$tool" "$conf"
check "dump PREFIX keeps to the prefix" \
	test "$(st dump '\x01' | wc -l)" -eq 2
check "scan reads every record" \
	sh -c '"$0" -c "$1" --data "$2" scan | grep -q "records 220003 "' \
	"$tool" "$conf" "$T/b"
check "verify of a store that is not a monitor's names what is missing" \
	sh -c '! "$0" -c "$1" verify >/dev/null 2>"$2" &&
	    grep -q "record \\\\x10.*unknown kind of record" "$2" &&
	    grep -q "the commit record is missing" "$2"' \
	"$tool" "$conf" "$T/err"

# verify on a monitor's store, made by mapmond --mkfs, once per backend:
# it passes as made, and names the key of each record spoiled afterwards.
for be in lmdb leveldb; do
	mc=$T/mon-$be.conf
	printf '[mon]\ndata = %s\n[auth]\nkeyring = %s.keyring\n' \
	    "$T/mon-$be" "$T/mon-$be" >"$mc"
	printf '[store]\nbackend = %s\nsync = none\n' "$be" >>"$mc"
	check "$be: mapmond --mkfs makes a store" \
		quiet "$mapmond" -c "$mc" --mkfs
	check "$be: verify passes on a new monitor store, derived figures too" \
		sh -c '"$0" -c "$1" verify | grep -q "^derived figures: equal"' \
		"$tool" "$mc"
	cp -r "$T/mon-$be" "$T/bad-$be"
	"$poke" "$T/bad-$be/store" 'P\x00\x00\x00\x07\x00\x00\x00\x00' 00
	"$poke" "$T/bad-$be/store" 'I\x00\x00\x00\x09' 0101
	check "$be: verify names a bad PG record and an epoch out of range" \
		sh -c '"$0" -c "$1" --data "$2" verify >/dev/null 2>"$3";
		    test $? -eq 1 &&
		    grep -q "record P\\\\x00\\\\x00\\\\x00\\\\x07.*truncated" "$3" &&
		    grep -q "osdmap incremental 9 outside the committed range" "$3"' \
		"$tool" "$mc" "$T/bad-$be" "$T/err"
done
check "compact LevelDB" \
	sh -c '"$0" -c "$1" --data "$2" compact >/dev/null' "$tool" "$conf" "$T/b"
check "copy refuses an existing destination" \
	sh -c '! "$0" -c "$1" copy --backend leveldb "$2" 2>/dev/null' \
	"$tool" "$conf" "$T/b"
check "copy into an existing directory without a store" \
	sh -c 'mkdir "$2/empty" && "$0" -c "$1" copy --backend leveldb \
	    "$2/empty" >/dev/null && test -f "$2/empty/store/CURRENT" &&
	    "$0" -c "$1" --data "$2/empty" dump --full | cmp -s - "$2/d1"' \
	"$tool" "$conf" "$T"
check "an unknown backend is a usage error naming the compiled-in ones" \
	sh -c '"$0" -c "$1" copy --backend rocksdb "$2" 2>"$3";
	    test $? -eq 64 && grep -q "compiled in: lmdb, leveldb" "$3"' \
	"$tool" "$conf" "$T/x" "$T/err"
check "a missing -c file is a config error" \
	sh -c '"$0" -c /nonexistent/mapmon.conf stat 2>/dev/null; test $? -eq 78' \
	"$tool"
echo "# round trip of 220,000 records took $(($(date +%s) - start)) s"

# Small stores to break.
small() {
	cat >"$T/small.json" <<EOF
{"format":1,"backend":"x","records":[{"key":"0101","value":"ff"}]}
EOF
	"$tool" -c "$conf" --data "$1" --backend "$2" import "$T/small.json" \
	    2>/dev/null
}
small "$T/newer" lmdb
"$poke" "$T/newer/store" '\x00format' 00000002
small "$T/badrec" leveldb
"$poke" "$T/badrec/store" '\x00format' 000001
small "$T/badlmdb" lmdb
dd if=/dev/zero of="$T/badlmdb/store/data.mdb" bs=4096 count=2 \
    conv=notrunc 2>/dev/null
small "$T/badleveldb" leveldb
echo garbage >"$T/badleveldb/store/CURRENT"
small "$T/locked" leveldb
lock=$T/locked/store/mapmon.lock
# A stand-in daemon: holds the lock with its pid in the file.
sh -c 'exec 9>>"$1"; flock 9; echo $$ >"$1"; exec sleep 60' sh "$lock" \
    >/dev/null 2>&1 &
holder=$!
i=0
while flock -n "$lock" true && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done

# Each subcommand on each broken store: non-zero, exactly one line.
refuses() {
	data=$1 want=$2 sub=$3
	shift 3
	"$tool" -c "$conf" --data "$data" "$sub" "$@" >/dev/null 2>"$T/err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
	    grep -q -- "$want" "$T/err"; then
		ok "$sub on $(basename "$data"): $(cat "$T/err")"
	else
		notok "$sub on $(basename "$data"): exit $rc: $(cat "$T/err")"
	fi
}
for case in "none|no store here" \
    "locked|store is in use by process $holder" \
    "newer|store format 2 is newer than this mapmon supports (1)" \
    "badrec|corrupt record \\\\x00format: 3 bytes, expected 4" \
    "badlmdb|MDB_INVALID" \
    "badleveldb|Corruption"; do
	name=${case%%|*}
	want=${case#*|}
	for sub in stat dump "get \x01\x01" scan verify compact \
	    "copy --backend lmdb $T/copy-$name" export "import $T/small.json"; do
		[ "$name" = none ] && [ "$sub" = "import $T/small.json" ] &&
		    continue
		# shellcheck disable=SC2086
		refuses "$T/$name" "$want" $sub
	done
	check "nothing was left at the copy's destination ($name)" \
	    test ! -e "$T/copy-$name"
done

echo "1..$n"
