#!/bin/bash
# auth.sh: authentication as a user meets it, through mapmond and the real
# mapmon, once per backend.  Speaks TAP.
#
# mapmond --mkfs writes the admin keyring (mode 0600) and refuses to
# replace one; the auth commands answer with Ceph's words, JSON and exit
# statuses, and what they change is committed (a restart keeps it).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/test/lib/ops_lib.sh"
JSON_GET=$top_builddir/test/lib/json_get
TAP_PER_BACKEND=1

# expect RC DESC ARGS...: mapmon ARGS exits RC.
expect() {
	local want=$1 desc=$2
	shift 2
	mm "$@"
	DIAG="exit $rc; out: $(head -c 400 "$T/out"); err: $(cat "$T/err")"
	check "$desc (exit $want)" test "$rc" -eq "$want"
	DIAG=
}
out_has() { grep -q -- "$1" "$T/out"; }
differ() { ! cmp -s "$1" "$2"; }
err_has() { grep -q -- "$1" "$T/err"; }
# jget PATH: a value of the JSON in $T/out.
jget() { "$JSON_GET" "$1" <"$T/out"; }

suite() {
	BACKEND=$1
	local conf=$T/$BACKEND.conf log=$T/$BACKEND.log kr=$T/$BACKEND.keyring
	local key mode st

	mkconf "$conf" "$T/$BACKEND" "backend = $BACKEND"
	check "mkfs" mkfs "$conf"
	DIAG=$(cat "$T/mkfs.out")
	check "mkfs says where the keyring went" \
	    grep -q "wrote the keyring of client.admin to $kr" "$T/mkfs.out"
	mode=$(stat -c %a "$kr" 2>/dev/null)
	check "the admin keyring is mode 0600 ($mode)" test "$mode" = 600
	check "the admin keyring is Ceph's layout" grep -q \
	    '^\[client.admin\]$' "$kr"
	check "its caps: mon allow *" grep -q '^	caps mon = "allow \*"$' "$kr"
	key=$(sed -n 's/^	key = //p' "$kr")
	check "its key is 32 bytes of base64" test "${#key}" -eq 44

	# An existing keyring is not replaced, and nothing is made.
	mkdir -p "$T/$BACKEND.again"
	sed "s|^data = .*|data = $T/$BACKEND.again|" "$conf" >"$T/again.conf"
	"$MAPMOND" --mkfs -c "$T/again.conf" >"$T/out" 2>"$T/err"
	st=$?
	DIAG="exit $st: $(cat "$T/err")"
	check "mkfs refuses to replace a keyring (exit 1)" test "$st" -eq 1
	check "and says so" err_has "keyring $kr exists already"
	check "and makes no store" test ! -e "$T/$BACKEND.again/store"
	check "the keyring is as it was" grep -q "key = $key" "$kr"
	# A store already there: the keyring written first is taken back.
	sed "s|^keyring = .*|keyring = $T/second.keyring|" "$conf" \
	    >"$T/second.conf"
	"$MAPMOND" --mkfs -c "$T/second.conf" >"$T/out" 2>"$T/err"
	check "mkfs on a store that exists fails" test $? -eq 1
	check "and leaves no keyring behind" test ! -e "$T/second.keyring"
	DIAG=

	check "daemon starts" start_daemon "$conf" "$log"

	expect 0 "auth get client.admin" auth get client.admin
	check "auth get gives the keyring mkfs wrote" cmp -s "$T/out" "$kr"
	check "auth get says what it exported" \
	    err_has "exported keyring for client.admin"
	expect 0 "auth get-key client.admin" auth get-key client.admin
	check "auth get-key prints the key" test "$(cat "$T/out")" = "$key"
	expect 0 "auth get-key -f json" -f json auth get-key client.admin
	check "auth get-key -f json: {\"key\"}" test "$(jget key)" = "$key"

	expect 0 "auth get-or-create osd.3" auth get-or-create osd.3 \
	    mon 'allow profile osd' osd 'allow *'
	cp "$T/out" "$T/osd3.keyring"
	check "its output is a keyring" grep -q '^\[osd.3\]$' "$T/osd3.keyring"
	check "its caps are in service order" test "$(grep -c caps \
	    "$T/osd3.keyring")" -eq 2 -a "$(sed -n 3p "$T/osd3.keyring")" = \
	    '	caps mon = "allow profile osd"'
	expect 0 "auth get-or-create again gives the same keyring" \
	    auth get-or-create osd.3 mon 'allow profile osd'
	check "the same key" cmp -s "$T/out" "$T/osd3.keyring"
	expect 22 "auth get-or-create with other caps" \
	    auth get-or-create osd.3 mon 'allow r'
	check "Ceph's words" \
	    err_has "Error EINVAL: key for osd.3 exists but cap mon does not match"
	expect 0 "auth get -f json" -f json auth get osd.3
	check "[{entity, key, caps}]" test "$(jget 0.entity)" = osd.3 -a \
	    "$(jget 0.caps.mon)" = "allow profile osd" -a \
	    "$(jget 0.key)" = "$(sed -n 's/^	key = //p' "$T/osd3.keyring")"

	expect 0 "auth add client.ro" auth add client.ro mon 'allow r'
	check "added key for" err_has "^added key for client.ro$"
	expect 0 "auth add again, the same caps" auth add client.ro mon 'allow r'
	expect 22 "auth add again, other caps" auth add client.ro mon 'allow rw'
	check "Ceph's words" \
	    err_has "entity client.ro exists but cap mon does not match"
	expect 22 "an odd caps list" auth add client.x mon
	check "Ceph's words" err_has \
	    "bad capabilities request; odd number of arguments"
	expect 22 "a bad entity name" auth add bob mon 'allow r'
	check "names it" err_has "bad entity name 'bob'"
	expect 22 "a bad mon cap" auth add client.x mon 'allow q'
	expect 22 "an unknown cap type" auth add client.x rgw 'allow'
	check "Ceph's words" err_has "unknown cap type 'rgw'"
	expect 2 "auth get of nobody" auth get client.nobody
	check "Ceph's words" err_has "failed to find client.nobody in keyring"
	expect 2 "auth get-key of nobody" auth get-key client.nobody
	expect 2 "auth caps of nobody" auth caps client.nobody mon 'allow r'
	check "Ceph's words" err_has "couldn't find entry client.nobody"
	expect 2 "auth rotate of nobody" auth rotate client.nobody
	expect 0 "auth rm of nobody" auth rm client.nobody
	check "is a no-op with a note" err_has "entity client.nobody does not exist"

	expect 0 "auth caps client.ro" auth caps client.ro mon 'allow rw'
	check "updated caps for" err_has "updated caps for client.ro"
	expect 0 "auth add client.gone" auth add client.gone
	expect 0 "auth rm client.gone" auth rm client.gone
	check "updated" err_has "^updated$"
	expect 0 "auth rotate osd.3" auth rotate osd.3
	check "a new keyring" test "$(grep -c '^\[osd.3\]$' "$T/out")" -eq 1
	check "with a new key" differ "$T/out" "$T/osd3.keyring"
	cp "$T/out" "$T/osd3.rotated"

	expect 0 "auth ls" auth ls
	check "auth ls lists as Ceph does" test "$(grep -v '^	' "$T/out" |
	    tr '\n' ' ')" = "mon. osd.3 client.admin client.ro "
	check "with the key and the caps" grep -q '^	caps: \[mon\] allow rw$' \
	    "$T/out"
	expect 0 "auth ls -f json" -f json auth ls
	check "{auth_dump: [...]}" test "$(jget auth_dump.1.entity)" = osd.3

	# What was committed survives a restart.
	stop_daemon TERM
	check "daemon restarts" start_daemon "$conf" "$log"
	expect 0 "after a restart: auth get osd.3" auth get osd.3
	check "the rotated key" cmp -s "$T/out" "$T/osd3.rotated"
	expect 2 "after a restart: the removed entity is gone" \
	    auth get client.gone
	expect 0 "the cluster log has the changes" log last 20
	check "auth: rotated the key of osd.3" \
	    out_has "auth: rotated the key of osd.3"
	stop_daemon TERM
	DIAG=
	"$top_builddir/tools/mapmon-store" -c "$conf" verify >"$T/out" \
	    2>"$T/err"
	st=$?
	DIAG="$(cat "$T/out" "$T/err")"
	check "mapmon-store verify passes" test "$st" -eq 0
	check "and counts the entities" out_has "^auth entities: 4$"
	DIAG=
}

for b in lmdb leveldb; do
	suite "$b"
done
done_testing
