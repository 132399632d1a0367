#!/bin/bash
# mon_member.sh: monitors removed and added (mapmond(8), Membership), end to
# end on loopback, once per store backend.  Speaks TAP.  Needs
# $top_builddir.
#
#   - three monitors with data; `mon add` of a monitor that is there
#     answers 0, of its name or address elsewhere EEXIST, as Ceph;
#   - `mon rm` of a follower: "removing mon.X at ADDR, there will be 2
#     monitors", the monmap's epoch moves, the removed monitor stops, the
#     two go on taking writes; again: "does not exist or has already been
#     removed" (0);
#   - `mon add` of it again; another `mon add` before it votes: EBUSY;
#     made afresh with `mapmond --mkfs --join`, it copies a store with the
#     pools, becomes a voter (three in quorum) and converges;
#   - `mon rm` of the leader: it stops, the two others elect and serve;
#     their stores are identical record for record and pass
#     `mapmon-store verify`;
#   - of those two, `mon rm` of the leader: it leaves the engine's
#     configuration before it stops, so the last one leads alone and
#     takes writes; `mon rm` of the last one: EINVAL.
# Election timeout 300 ms to save time.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
TAP_PER_BACKEND=1
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
STORE=$top_builddir/tools/mapmon-store
JG=$top_builddir/test/lib/json_get
NAMES="a b c"

T=$(mktemp -d /tmp/mon_member.XXXXXX) || exit 99
WPID=
cleanup() {
	[ -n "$WPID" ] && kill "$WPID" 2>/dev/null
	for f in "$T"/*.pid; do
		[ -e "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	# QUORUM_KEEP=1 keeps the monitors' logs and stores to look at.
	[ -n "${QUORUM_KEEP:-}" ] && echo "# kept $T" || rm -rf "$T"
}
trap cleanup EXIT
# libraft 0.22.1 leaks the configuration of every snapshot it takes (72
# bytes each; RELIABILITY.md): LeakSanitizer is told to pass over
# libraft's own allocations, not mapmon's.
printf 'leak:libraft.so\n' >"$T/lsan.supp"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$T/lsan.supp"
check_diag() {
	local x
	printf 'out: %s\nerr: %s\n' "$(head -c 600 "$T/out")" \
	    "$(head -c 300 "$T/err")"
	for x in $NAMES; do
		printf 'log %s: %s\n' "$x" \
		    "$(grep -v ' net ' "$T/$BACKEND/$x.log" 2>/dev/null |
			tail -n 4)"
	done
}

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# Three ports P whose P+1 (the raft port) is free too, below the kernel's
# range of ephemeral ports, so that no other program's connection takes
# one between this pick and the monitor's bind.
free_ports() {
	python3 -c '
import random, socket
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
out = []
while len(out) < 3:
    p = random.randrange(10000, lo - 1)
    ok = True
    for q in (p, p + 1):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", q))
        except OSError:
            ok = False
        s.close()
    if ok and all(abs(p - q) > 1 for q in out):
        out.append(p)
print(*out)'
}

# mm ARGS...: mapmon ARGS against all three, stdout in $T/out, stderr in
# $T/err, $rc.
mm() {
	"$MAPMON" -m "$ALL" -k "$D/keyring" --connect-timeout 5 "$@" \
	    >"$T/out" 2>"$T/err"
	rc=$?
}
# mm1 NAME ARGS...: the same against monitor NAME only.
mm1() {
	local x=$1
	shift
	"$MAPMON" -m "$(addr "$x")" -k "$D/keyring" --connect-timeout 5 \
	    "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
addr() { eval echo "\$ADDR_$1"; }
# metrics X: monitor X's /metrics into $T/out (the port it logged).
metrics() {
	local port
	port=$(sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
	    "$D/$1.log" | tail -n 1)
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
	sed '1,/^\r$/d' <&3 >"$T/out"
	exec 3<&-
}
start() {
	"$MAPMOND" -c "$D/$1.conf" -f 2>>"$D/$1.stderr" &
	echo $! >"$T/$BACKEND.$1.pid"
}
pid_of() { cat "$T/$BACKEND.$1.pid"; }
# leader: the leader's name as the live monitors see it, or nothing.
leader() {
	local x l
	for x in $NAMES; do
		kill -0 "$(pid_of "$x")" 2>/dev/null || continue
		mm1 "$x" -f json quorum_status || continue
		l=$("$JG" quorum_leader_name <"$T/out")
		if [ -n "$l" ] && [ "$l" = "$x" ]; then
			echo "$l"
			return 0
		fi
	done
	return 1
}
wait_leader() {
	local i
	for i in $(seq 1 200); do
		L=$(leader) && return 0
		sleep 0.05
	done
	return 1
}
# no_leader X: monitor X knows no leader (within 10 s).
no_leader() {
	local i
	for i in $(seq 1 200); do
		if mm1 "$1" -f json quorum_status &&
		    [ -z "$("$JG" quorum_leader_name <"$T/out")" ]; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}
# in_quorum N: the leader counts N monitors in quorum.
in_quorum() {
	local i
	for i in $(seq 1 200); do
		if mm1 "$L" -f json quorum_status &&
		    [ "$("$JG" quorum.# <"$T/out")" = "$1" ]; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}
# applied X: monitor X's applied index.
applied() {
	mm1 "$1" -f json quorum_status && "$JG" raft.applied_index <"$T/out"
}
# converged: the three have applied the same index.
converged() {
	local i a b c
	for i in $(seq 1 200); do
		a=$(applied a)
		b=$(applied b)
		c=$(applied c)
		[ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ] && return 0
		sleep 0.05
	done
	return 1
}

stop() {
	local i=0
	kill "$(pid_of "$1")" 2>/dev/null
	while kill -0 "$(pid_of "$1")" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
# stop_all X...: SIGTERM to all at once (a leader left alone a while
# would commit the others' MON_DOWN to itself alone), then wait.
stop_all() {
	local x i
	for x in "$@"; do kill "$(pid_of "$x")" 2>/dev/null; done
	for x in "$@"; do
		i=0
		while kill -0 "$(pid_of "$x")" 2>/dev/null && [ $i -lt 200 ]
		do
			sleep 0.05
			i=$((i + 1))
		done
	done
}
# gone X: monitor X's process ended by itself (within 10 s).
gone() {
	local i
	for i in $(seq 1 200); do
		kill -0 "$(pid_of "$1")" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}
# same_applied X Y...: the monitors named have applied the same entry.
same_applied() {
	local i x a first ok
	for i in $(seq 1 200); do
		ok=1
		first=
		for x in "$@"; do
			a=$(applied "$x")
			[ -z "$first" ] && first=$a
			if [ -z "$a" ] || [ "$a" != "$first" ]; then
				ok=0
				break
			fi
		done
		[ "$ok" = 1 ] && return 0
		sleep 0.05
	done
	return 1
}
# raft X KEY: a key of monitor X's quorum_status "raft" object.
raft() {
	mm1 "$1" -f json quorum_status && "$JG" "raft.$2" <"$T/out"
}

run_backend() {
	BACKEND=$1
	D=$T/$BACKEND
	mkdir -p "$D"
	set -- $(free_ports)
	ADDR_a=127.0.0.1:$1
	ADDR_b=127.0.0.1:$2
	ADDR_c=127.0.0.1:$3
	ALL=$ADDR_a,$ADDR_b,$ADDR_c
	for x in $NAMES; do
		cat >"$D/$x.conf" <<EOF
[mon]
name = $x
data = $D/$x
bind = $(addr "$x")
mon_host = a=$ADDR_a,b=$ADDR_b,c=$ADDR_c
election_timeout = 300ms
propose_interval = 5ms
snapshot_threshold = 8
snapshot_trailing = 4
max_pg_per_osd = 1000000
[store]
backend = $BACKEND
[auth]
keyring = $D/keyring
[log]
file = $D/$x.log
[metrics]
bind = 127.0.0.1:0
EOF
	done
	made=0
	"$MAPMOND" -c "$D/a.conf" --mkfs >"$T/out" 2>"$T/err" && made=1
	for x in b c; do
		"$MAPMOND" -c "$D/$x.conf" --mkfs --monmap "$D/a/monmap" \
		    --keyring "$D/keyring" >"$T/out" 2>"$T/err" &&
		    made=$((made + 1))
	done
	check "three monitors made" [ "$made" -eq 3 ]
	for x in $NAMES; do start "$x"; done
	check "three monitors elect a leader" wait_leader
	check "the leader counts three in quorum" in_quorum 3
	made=0
	for i in $(seq 1 12); do
		mm osd pool create "p$i" 4 && [ "$rc" -eq 0 ] &&
		    made=$((made + 1))
	done
	check "12 pools made" [ "$made" -eq 12 ]

	# Ceph's answers to an add of what is there.
	mm mon add "$L" "$(addr "$L")"
	check "mon add of mon.$L at its address: 0, already exists" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "already exists" "$1"' \
	    "$rc" "$T/err"
	mm mon add "$L" 127.0.0.1:1
	check "mon add of mon.$L at another address: EEXIST" \
	    sh -c '[ "$0" -eq 17 ] &&
		grep -q "mon.$2 already exists at address" "$1"' \
	    "$rc" "$T/err" "$L"
	mm mon add zz "$(addr "$L")"
	check "mon add of a new name at mon.$L's address: EEXIST" \
	    sh -c '[ "$0" -eq 17 ]' "$rc"
	mm mon add yy not-an-address
	check "mon add of a bad address: EINVAL naming it" \
	    sh -c '[ "$0" -eq 22 ] && grep -q "not-an-address" "$1"' \
	    "$rc" "$T/err"

	# A follower removed.
	for x in $NAMES; do [ "$x" != "$L" ] && F=$x; done
	mm mon rm "$F"
	check "mon rm $F: removing mon.$F, there will be 2 monitors" \
	    sh -c '[ "$0" -eq 0 ] &&
		grep -q "removing mon.$2 at $3, there will be 2 monitors" "$1"' \
	    "$rc" "$T/err" "$F" "$(addr "$F")"
	check "mon.$F stops by itself" gone "$F"
	grep 'removed from the monmap' "$D/$F.log" | sed 's/^/# /'
	mm1 "$L" -f json mon dump
	check "mon dump: epoch 2, two monitors" \
	    sh -c '[ "$("$1" epoch <"$0")" = 2 ] &&
		[ "$("$1" mons.# <"$0")" = 2 ]' "$T/out" "$JG"
	check "the leader counts two in quorum" in_quorum 2
	mm osd pool create afterrm 4
	check "a write with two monitors" [ "$rc" -eq 0 ]
	mm1 "$L" mon rm "$F"
	check "mon rm $F again: 0, does not exist or has already been removed" \
	    sh -c '[ "$0" -eq 0 ] &&
		grep -q "does not exist or has already been removed" "$1"' \
	    "$rc" "$T/err"

	# Added again (once the engine has let the removed one go: one
	# change at a time), made afresh, joins.
	for i in $(seq 1 200); do
		mm1 "$L" mon add "$F" "$(addr "$F")"
		[ "$rc" -ne 16 ] && break
		sleep 0.05
	done
	check "mon add $F: adding mon.$F at its address" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "adding mon.$2 at $3" "$1"' \
	    "$rc" "$T/err" "$F" "$(addr "$F")"
	mm1 "$L" mon add yy 127.0.0.1:2
	check "another mon add before mon.$F votes: EBUSY" \
	    sh -c '[ "$0" -eq 16 ] && grep -q "one at a time" "$1"' \
	    "$rc" "$T/err"
	rm -rf "${D:?}/$F"
	"$MAPMOND" -c "$D/$F.conf" --mkfs --join "$ALL" \
	    --keyring "$D/keyring" >"$T/out" 2>"$T/err"
	check "mapmond --mkfs --join makes mon.$F" [ $? -eq 0 ]
	start "$F"
	wait_leader
	check "mon.$F joins: the leader counts three in quorum" in_quorum 3
	check "the three converge" same_applied a b c
	mm1 "$F" osd pool ls
	check "mon.$F has the pools" \
	    sh -c '[ "$(grep -c "^p[0-9]*$" "$0")" -eq 12 ] &&
		grep -qx afterrm "$0"' "$T/out"
	check "mon.$F copied a store" [ "$(raft "$F" stores_copied)" -ge 1 ]
	mm1 "$L" -f json mon dump
	check "mon dump: epoch 3, three monitors" \
	    sh -c '[ "$("$1" epoch <"$0")" = 3 ] &&
		[ "$("$1" mons.# <"$0")" = 3 ]' "$T/out" "$JG"
	mm osd pool create afteradd 4
	check "a write with the three" [ "$rc" -eq 0 ]

	# The leader removed.
	wait_leader
	OLD=$L
	for i in $(seq 1 200); do
		mm1 "$OLD" mon rm "$OLD"
		[ "$rc" -ne 16 ] && break
		sleep 0.05
	done
	check "mon rm of the leader mon.$OLD: 0, there will be 2 monitors" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "there will be 2 monitors" "$1"' \
	    "$rc" "$T/err"
	check "mon.$OLD stops by itself" gone "$OLD"
	LEFT=
	for x in $NAMES; do [ "$x" != "$OLD" ] && LEFT="$LEFT $x"; done
	check "the two left elect a leader" wait_leader
	check "the new leader counts two in quorum" in_quorum 2
	mm osd pool create afterleader 4
	check "a write after the leader's removal" [ "$rc" -eq 0 ]
	check "the two converge" same_applied $LEFT

	stop_all $LEFT
	for x in $LEFT; do
		"$STORE" -c "$D/$x.conf" dump --full >"$D/$x.dump" 2>"$T/err"
		check "mapmon-store verify passes on mon.$x" \
		    "$STORE" -c "$D/$x.conf" verify
	done
	set -- $LEFT
	check "the stores of $1 and $2 are identical record for record" \
	    cmp -s "$D/$1.dump" "$D/$2.dump"

	# Of two, the leader removed: the last one is a quorum of its own.
	for x in $LEFT; do start "$x"; done
	check "the two elect a leader again" wait_leader
	OLD=$L
	for i in $(seq 1 200); do
		mm1 "$OLD" mon rm "$OLD"
		[ "$rc" -ne 16 ] && break
		sleep 0.05
	done
	check "mon rm of the leader of two: there will be 1 monitors" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "there will be 1 monitors" "$1"' \
	    "$rc" "$T/err"
	check "mon.$OLD leaves the configuration, then stops" gone "$OLD"
	grep -h 'leaves the configuration\|stopping' "$D/$OLD.log" |
	    tail -n 2 | sed 's/^/# /'
	for x in $LEFT; do [ "$x" != "$OLD" ] && LAST=$x; done
	check "mon.$LAST alone leads" wait_leader
	mm1 "$LAST" osd pool create alone 4
	check "mon.$LAST alone takes a write" [ "$rc" -eq 0 ]
	mm1 "$LAST" mon rm "$LAST"
	check "mon rm of the last monitor: EINVAL" \
	    sh -c '[ "$0" -eq 22 ] &&
		grep -q "refusing removal of last monitor" "$1"' "$rc" "$T/err"
	stop "$LAST"
	check "mapmon-store verify passes on the last, mon.$LAST" \
	    "$STORE" -c "$D/$LAST.conf" verify
	check "a monitor's log has no sanitizer report" \
	    sh -c '! grep -q "Sanitizer\|runtime error" "$0"/*.stderr' "$D"
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
