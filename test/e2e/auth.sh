#!/bin/bash
# auth.sh: authentication as a user meets it, through mapmond and the real
# mapmon, once per backend.  Speaks TAP.
#
# mapmond --mkfs writes the admin keyring (mode 0600) and refuses to
# replace one; the auth commands answer with Ceph's words, JSON and exit
# statuses, and what they change is committed (a restart keeps it).
#
# Then, once: no key and a wrong key exit 13 (logged, the next attempt
# from the address delayed), an unknown entity is refused in the same
# words, an r key reads but cannot write, osd.3 cannot act as osd.5, a
# rotated key fails at once and its sessions close while the new one
# works, a keyring others may read is refused, and a non-loopback bind
# without auth refuses to start (with allow_insecure: AUTH_INSECURE).
#
# And TLS ([net]): a plain client is refused with one line, the right CA
# connects (and caps still apply), a TLS 1.1 client is refused by the
# server, a wrong CA fails, as does TLS against a plain monitor; a
# certificate that cannot be read stops the start.
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

	# Ceph's auth ls lists AuthMonitor's database, which the monitors'
	# own key is not in (Monitor.cc, extract_save_mon_key): no mon.
	expect 0 "auth ls" auth ls
	check "auth ls lists as Ceph does, without mon." test "$(grep -v \
	    '^	' "$T/out" | tr '\n' ' ')" = "osd.3 client.admin client.ro "
	check "with the key and the caps" grep -q '^	caps: \[mon\] allow rw$' \
	    "$T/out"
	check "and Ceph's words on stderr (AuthMonitor.cc, auth ls)" \
	    test "$(cat "$T/err")" = "installed auth entries:"
	expect 0 "auth ls -f json" -f json auth ls
	check "{auth_dump: [...]}" test "$(jget auth_dump.0.entity)" = osd.3 \
	    -a "$(jget auth_dump.#)" = 3
	check "without mon." sh -c '! grep -q "\"mon\\.\"" "$0"' "$T/out"
	check "and without the plain form's words (Ceph: plain only)" \
	    test ! -s "$T/err"
	expect 0 "auth get mon. still works" auth get mon.
	check "its keyring" grep -q '^\[mon\.\]$' "$T/out"
	expect 0 "auth get-key mon. still works" auth get-key mon.
	check "its key" test "$(wc -c <"$T/out")" -eq 45

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

# now_ms: a monotonic-enough clock in milliseconds.
ms() { echo $(($(date +%s%N) / 1000000)); }

# as NAME KEYRING ARGS...: mapmon as entity NAME.
as() {
	local name=$1 kr=$2
	shift 2
	mm -n "$name" -k "$kr" "$@"
}

live() {
	local conf=$T/live.conf log=$T/live.log t0 t1 wpid st i
	unset TAP_PER_BACKEND
	mkconf "$conf" "$T/live" "[auth]" "required = true" \
	    "fail_delay = 400ms"
	check "live: mkfs" mkfs "$conf"
	check "live: daemon starts" start_daemon "$conf" "$log"
	for i in 0 1 2 3 4 5; do
		mm osd create "$i" || break
	done
	check "create OSDs 0 to 5" test "$rc" -eq 0

	# No key: the hello is refused, and nothing else.
	printf '[auth]\nkeyring = %s/none.keyring\n' "$T" >"$T/nokey.conf"
	env -u MAPMON_KEYRING MAPMON_CONF="$T/nokey.conf" "$MAPMON" -m "$ADDR" \
	    --connect-timeout 2 status >"$T/out" 2>"$T/err"
	st=$?
	DIAG=$(cat "$T/err")
	check "no key: exit 13" test "$st" -eq 13
	check "no key: one line says so" test "$(wc -l <"$T/err")" -eq 1 -a \
	    -n "$(grep 'authentication required' "$T/err")"

	# A wrong key: 13, logged, and the next attempt waits.
	# (its first character changed: B for an A, else A)
	sed 's/key = A/key = B/; t; s/key = ./key = A/' "$MAPMON_KEYRING" \
	    >"$T/wrong.keyring"
	chmod 600 "$T/wrong.keyring"
	check "the wrong keyring differs" differ "$T/wrong.keyring" \
	    "$MAPMON_KEYRING"
	t0=$(ms)
	expect 13 "a wrong key" -k "$T/wrong.keyring" status
	check "refused authentication as client.admin: authentication failed" \
	    err_has "refused authentication as client.admin: authentication failed"
	DIAG=$(tail -n 5 "$log")
	check "the failure is logged with the peer" grep -q \
	    "127.0.0.1:[0-9]* (client.admin): authentication as client.admin failed" \
	    "$log"
	expect 0 "the right key after it" status
	t1=$(ms)
	check "... waited for the address's delay (both: $((t1 - t0)) ms)" \
	    test $((t1 - t0)) -ge 400
	t0=$(ms)
	expect 0 "and then no more" status
	t1=$(ms)
	check "... once it succeeded ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 380
	sed 's/client.admin/client.ghost/' "$T/wrong.keyring" >"$T/ghost.keyring"
	chmod 600 "$T/ghost.keyring"
	expect 13 "an entity that does not exist" -n client.ghost \
	    -k "$T/ghost.keyring" status
	check "is refused in the same words" \
	    err_has "refused authentication as client.ghost: authentication failed$"
	sleep 1	# the delays of the failures above

	# Caps.
	expect 0 "make client.ro" auth get-or-create client.ro mon 'allow r'
	cp "$T/out" "$T/ro.keyring"
	chmod 600 "$T/ro.keyring"
	as client.ro "$T/ro.keyring" osd dump
	check "an r key reads" test "$rc" -eq 0
	as client.ro "$T/ro.keyring" osd out 1
	DIAG="exit $rc: $(cat "$T/err")"
	check "an r key cannot write: exit 13" test "$rc" -eq 13
	check "... access denied, and why" err_has \
	    "access denied: client.ro may not run 'osd out': it needs mon 'allow rw'"
	check "... and an audit line in the log" grep -q \
	    "audit: 127.0.0.1:[0-9]* (client.ro): access denied" "$log"
	as client.ro "$T/ro.keyring" auth ls
	check "an r key cannot run admin commands" test "$rc" -eq 13
	as client.ro "$T/ro.keyring" osd pool delete p p \
	    --yes-i-really-really-mean-it
	check "pool delete needs allow *" test "$rc" -eq 13
	as client.ro "$T/ro.keyring" osd pool rm p p \
	    --yes-i-really-really-mean-it
	check "pool rm needs allow *" test "$rc" -eq 13
	for c in report fsid "osd ls" "osd getmap"; do
		# shellcheck disable=SC2086 # the words of the command
		as client.ro "$T/ro.keyring" $c
		DIAG="exit $rc: $(cat "$T/err")"
		check "an r key may run $c" test "$rc" -eq 0
	done
	for c in "log hello" "osd pause" "osd unpause"; do
		# shellcheck disable=SC2086
		as client.ro "$T/ro.keyring" $c
		DIAG="exit $rc: $(cat "$T/err")"
		check "an r key may not run $c: exit 13" test "$rc" -eq 13
	done
	check "... and says the cap it needs" err_has \
	    "access denied: client.ro may not run 'osd unpause': it needs mon 'allow rw'"
	expect 0 "make osd.3" auth get-or-create osd.3 mon 'allow profile osd'
	cp "$T/out" "$T/osd3.keyring"
	chmod 600 "$T/osd3.keyring"
	as osd.3 "$T/osd3.keyring" raw '{"prefix":"osd boot","id":3}'
	DIAG="exit $rc: $(cat "$T/err")"
	check "osd.3 boots as itself" test "$rc" -eq 0
	as osd.3 "$T/osd3.keyring" raw '{"prefix":"osd boot","id":"osd.3"}'
	DIAG="exit $rc: $(cat "$T/err")"
	check "osd.3 boots as itself, named osd.3" test "$rc" -eq 0
	as osd.3 "$T/osd3.keyring" raw '{"prefix":"osd boot","id":"osd.5"}'
	check "osd.3 cannot boot as osd.5, named osd.5" test "$rc" -eq 13
	as osd.3 "$T/osd3.keyring" raw '{"prefix":"osd boot","id":5}'
	DIAG="exit $rc: $(cat "$T/err")"
	check "osd.3 cannot boot as osd.5: exit 13" test "$rc" -eq 13
	check "... and says why" err_has "acts for osd.3 only"
	as osd.3 "$T/osd3.keyring" raw '{"prefix":"pg report","osd":5,"pgs":[]}'
	check "osd.3 cannot report for osd.5" test "$rc" -eq 13
	as osd.3 "$T/osd3.keyring" raw '{"prefix":"pg report","osd":3,"pgs":[]}'
	DIAG="exit $rc: $(cat "$T/err")"
	check "osd.3 reports for itself" test "$rc" -eq 0
	as osd.3 "$T/osd3.keyring" raw \
	    '{"prefix":"osd failure","target":1,"reporter":5,"failed_for":30}'
	check "osd.3 cannot report a failure as osd.5" test "$rc" -eq 13
	as osd.3 "$T/osd3.keyring" raw \
	    '{"prefix":"osd failure","target":1,"reporter":3,"failed_for":30}'
	DIAG="exit $rc: $(cat "$T/err")"
	check "osd.3 reports a failure as itself" test "$rc" -eq 0
	as osd.3 "$T/osd3.keyring" raw '{"prefix":"osd beacon","id":5}'
	check "osd.3 cannot send osd.5's beacon" test "$rc" -eq 13
	as osd.3 "$T/osd3.keyring" raw '{"prefix":"osd mark-me-down","id":5}'
	check "osd.3 cannot mark osd.5 down" test "$rc" -eq 13
	as osd.3 "$T/osd3.keyring" osd out 3
	check "osd.3 cannot mark itself out" test "$rc" -eq 13
	as osd.3 "$T/osd3.keyring" raw '{"prefix":"osd mark-me-down","id":3}'
	DIAG="exit $rc: $(cat "$T/err")"
	check "osd.3 marks itself down" test "$rc" -eq 0
	as osd.3 "$T/osd3.keyring" status
	check "osd.3 reads" test "$rc" -eq 0
	expect 0 "caps change" auth caps client.ro mon 'allow rw'
	as client.ro "$T/ro.keyring" osd out 1
	DIAG="exit $rc: $(cat "$T/err")"
	check "new caps apply to the next command" test "$rc" -eq 0
	DIAG=

	# Rotation: the old key fails at once, its sessions close.
	expect 0 "make client.w" auth get-or-create client.w mon 'allow r'
	cp "$T/out" "$T/w.old"
	chmod 600 "$T/w.old"
	"$MAPMON" -m "$ADDR" -n client.w -k "$T/w.old" -w >"$T/watch" \
	    2>"$T/watch.err" &
	wpid=$!
	PIDS="$PIDS $wpid"
	for i in $(seq 1 50); do
		grep -q . "$T/watch" 2>/dev/null && break
		sleep 0.1
	done
	check "a watch runs as client.w" kill -0 "$wpid"
	expect 0 "auth rotate client.w" auth rotate client.w
	cp "$T/out" "$T/w.new"
	chmod 600 "$T/w.new"
	for i in $(seq 1 50); do
		kill -0 "$wpid" 2>/dev/null || break
		sleep 0.1
	done
	check "its session was closed" eval '! kill -0 "$wpid" 2>/dev/null'
	wait "$wpid" 2>/dev/null
	as client.w "$T/w.old" status
	check "the old key fails at once (exit 13)" test "$rc" -eq 13
	sleep 0.5	# its address's delay
	as client.w "$T/w.new" status
	check "the new key works" test "$rc" -eq 0

	# A keyring others may read.
	chmod 640 "$T/w.new"
	as client.w "$T/w.new" status
	DIAG=$(cat "$T/err")
	check "a group-readable keyring is refused (exit 13)" test "$rc" -eq 13
	check "... saying so" err_has "readable by group or others (mode 0640)"
	DIAG=
	stop_daemon TERM

	# A non-loopback bind without auth.
	mkconf "$T/open.conf" "$T/open" "[auth]" "required = false"
	sed -i 's/^bind = .*/bind = 0.0.0.0:0/' "$T/open.conf"
	check "open: mkfs" mkfs "$T/open.conf"
	"$MAPMOND" -d -c "$T/open.conf" 2>"$T/open.log" &
	wpid=$!
	PIDS="$PIDS $wpid"
	wait "$wpid"
	st=$?
	DIAG=$(tail -n 3 "$T/open.log")
	check "a non-loopback bind without auth refuses to start (exit 1)" \
	    test "$st" -eq 1
	check "... saying why" grep -q "is not loopback and \[auth\] required is off" \
	    "$T/open.log"
	printf '[auth]\nallow_insecure = true\n' >>"$T/open.conf"
	"$MAPMOND" -d -c "$T/open.conf" 2>"$T/open.log" &
	DPID=$!
	PORT=
	for i in $(seq 1 100); do
		PORT=$(sed -n 's/.* listening on 0\.0\.0\.0:\([0-9]*\)$/\1/p' \
		    "$T/open.log")
		[ -n "$PORT" ] && break
		sleep 0.05
	done
	ADDR=127.0.0.1:$PORT
	check "with allow_insecure it starts" test -n "$PORT"
	check "... and warns" grep -q "serving 0.0.0.0:0 without authentication" \
	    "$T/open.log"
	env -u MAPMON_KEYRING MAPMON_CONF="$T/nokey.conf" "$MAPMON" -m "$ADDR" \
	    -f json health detail >"$T/out" 2>"$T/err"
	check "... serves a client without a key" test $? -eq 0
	check "... and shows AUTH_INSECURE" test "$(jget \
	    checks.AUTH_INSECURE.severity)" = HEALTH_WARN
	DIAG=
	stop_daemon TERM
}
# mkcerts DIR: a CA, a monitor certificate it signed for 127.0.0.1 and
# localhost, and another CA.
mkcerts() {
	local d=$1
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$d/ca.key" -out "$d/ca.pem" -days 2 \
	    -subj "/CN=mapmon test CA" &&
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$d/other.key" -out "$d/other.pem" -days 2 \
	    -subj "/CN=another CA" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$d/mon.key" -out "$d/mon.csr" -subj "/CN=mon.a" &&
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$d/ext" &&
	openssl x509 -req -in "$d/mon.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
	    -CAcreateserial -out "$d/mon.pem" -days 2 -extfile "$d/ext" &&
	printf 'subjectAltName=DNS:elsewhere.example\n' >"$d/ext2" &&
	openssl x509 -req -in "$d/mon.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
	    -CAcreateserial -out "$d/elsewhere.pem" -days 2 -extfile "$d/ext2"
}

tls() {
	local c=$T/tls conf=$T/tls.conf log=$T/tls.log st
	if ! command -v openssl >/dev/null 2>&1; then
		ok "tls: # SKIP no openssl to make certificates"
		return
	fi
	check "tls: certificates" eval 'mkcerts "$c" >"$T/certs.log" 2>&1'
	mkconf "$conf" "$T/tlsdata" "[net]" "tls_cert = $c/mon.pem" \
	    "tls_key = $c/mon.key" "tls_ca = $c/ca.pem"
	check "tls: mkfs" mkfs "$conf"
	# start_daemon's status check goes through TLS.
	MAPMON_TLS_CA=$c/ca.pem check "tls: the daemon starts, TLS only" \
	    start_daemon "$conf" "$log"
	check "tls: it says so" grep -q "TLS only, with $c/mon.pem" "$log"
	expect 111 "tls: a plain client is refused" status
	check "tls: in one line saying why" test "$(wc -l <"$T/err")" -eq 1 -a \
	    -n "$(grep 'speaks TLS only' "$T/err")"
	expect 0 "tls: the right CA connects" --tls-ca "$c/ca.pem" osd stat
	# TLS 1.1: the monitor's minimum is 1.2 (net/tls.c).  OpenSSL 3's
	# default security level would make s_client itself refuse 1.1 (it
	# rejects the server's legacy signature), so SECLEVEL=0: the client
	# offers TLS 1.1 alone and would complete it, and the refusal is the
	# server's, a protocol_version alert (70) received in reply to the
	# ClientHello, with no cipher agreed.
	s_client -tls1_1
	DIAG=$(head -c 600 "$T/s_client")
	check "tls: a TLS 1.1 client fails the handshake (s_client exits 1)" \
	    test "$st" -eq 1
	check "tls: refused by the server: its alert protocol version (70)" \
	    sh -c 'grep -q "alert protocol version.*SSL alert number 70" "$0" &&
		grep -q "Cipher is (NONE)" "$0"' "$T/s_client"
	s_client -tls1_2
	DIAG=$(head -c 600 "$T/s_client")
	check "tls: the same client with TLS 1.2 completes it (exit 0)" \
	    sh -c '[ "$1" -eq 0 ] && grep -q "Protocol *: TLSv1.2" "$0"' \
	    "$T/s_client" "$st"
	DIAG=
	expect 0 "tls: by name too" -m "localhost:$PORT" --tls-ca "$c/ca.pem" \
	    status
	expect 0 "tls: -c CONF gives [net] tls_ca" -c "$conf" osd stat
	MAPMON_TLS_CA=$c/ca.pem mm osd create
	check "tls: MAPMON_TLS_CA gives it too" test "$rc" -eq 0
	expect 13 "tls: a wrong CA fails" --tls-ca "$c/other.pem" status
	check "tls: certificate verify failed" err_has \
	    "TLS with 127.0.0.1:$PORT failed: certificate verify failed"
	expect 0 "tls: a reader inside TLS" --tls-ca "$c/ca.pem" \
	    auth get-or-create client.tlsro mon 'allow r'
	cp "$T/out" "$T/tlsro.keyring"
	chmod 600 "$T/tlsro.keyring"
	as client.tlsro "$T/tlsro.keyring" --tls-ca "$c/ca.pem" osd out 0
	check "tls: caps apply inside TLS (exit 13)" test "$rc" -eq 13
	stop_daemon TERM
	# TLS against a plain monitor.
	check "tls: a plain daemon" start_daemon "$T/live.conf" "$T/live.log"
	expect 13 "tls: TLS against a plain monitor fails" --tls-ca "$c/ca.pem" \
	    status
	stop_daemon TERM
	# A certificate the CA signed for another name.
	sed -i "s|^tls_cert = .*|tls_cert = $c/elsewhere.pem|" "$conf"
	# (started by hand: start_daemon's check of its status would fail)
	st=$(log_lines "$log")
	"$MAPMOND" -d -c "$conf" 2>>"$log" &
	DPID=$!
	PORT=$(listen_port "$log" "$st" "$DPID")
	ADDR=127.0.0.1:$PORT
	expect 13 "tls: a certificate for another name fails" \
	    --tls-ca "$c/ca.pem" status
	check "tls: certificate verify failed (the name)" err_has \
	    "certificate verify failed"
	stop_daemon TERM
	# Certificates and keys that cannot be used stop the start.
	badstart "$conf" "$c/nothere.pem" "$c/mon.key" "[net] tls_cert $c/nothere.pem" \
	    "an unreadable certificate"
	badstart "$conf" "$c/mon.pem" "$c/other.key" "[net] tls_key $c/other.key" \
	    "a key that is not the certificate's"
	badstart "$conf" "$c/mon.pem" "" "tls_cert and tls_key go together" \
	    "a certificate without its key"
}

# s_client VERSION: openssl s_client with only that TLS version (-tls1_1,
# -tls1_2) and SECLEVEL=0 at $ADDR, trusting the test CA: its output in
# $T/s_client, its exit status in st.
s_client() {
	echo | timeout 10 openssl s_client -connect "$ADDR" "$1" \
	    -cipher 'DEFAULT:@SECLEVEL=0' -CAfile "$T/tls/ca.pem" \
	    >"$T/s_client" 2>&1
	st=$?
}

# badstart CONF CERT KEY MESSAGE WHAT: mapmond with these exits 1, saying
# MESSAGE.
badstart() {
	local conf=$1 st
	sed -i -e "s|^tls_cert = .*|tls_cert = $2|" \
	    -e "s|^tls_key = .*|tls_key = $3|" "$conf"
	"$MAPMOND" -d -c "$conf" 2>"$T/badcert.log"
	st=$?
	DIAG=$(tail -n 2 "$T/badcert.log")
	check "tls: $5 stops the start (exit 1)" test "$st" -eq 1
	check "tls: saying $4" grep -qF "$4" "$T/badcert.log"
	DIAG=
}

live
tls
DIAG=$(grep -rlE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$T" 2>/dev/null)
check "no sanitizer report from any daemon or client" sanitizer_clean
done_testing
