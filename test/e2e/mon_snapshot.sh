#!/bin/bash
# mon_snapshot.sh: the raft log stays bounded and a monitor that lags past
# it catches up by a copy of another's store (mapmond(8), SNAPSHOTS), end
# to end on loopback, once per store backend.  Speaks TAP.  Needs
# $top_builddir.
#
#   - three monitors with snapshot_threshold 8 and snapshot_trailing 4; a
#     follower is stopped and 40 pools are made: the leader takes
#     snapshots and its raft directory holds one;
#   - the follower, restarted, is behind the log: it copies another
#     monitor's store in chunks (sync_chunk_size 4K, so many chunks), puts
#     it in place, rejoins and converges; the pools made while it was
#     down are on it, and a write after it is too;
#   - a monitor restarted with its store at its snapshot's entry copies
#     nothing;
#   - at the end the stores are identical record for record (`mapmon-store
#     dump --full`), pass `mapmon-store verify`, and no copy is left
#     behind.
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

T=$(mktemp -d /tmp/mon_snapshot.XXXXXX) || exit 99
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

# stop X: SIGTERM, and wait for it to be gone.
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
# raft X KEY: a key of monitor X's quorum_status "raft" object.
raft() {
	mm1 "$1" -f json quorum_status && "$JG" "raft.$2" <"$T/out"
}
# copied X: monitor X copied a store in (within 20 s).
copied() {
	local i
	for i in $(seq 1 400); do
		[ "$(raft "$1" stores_copied)" -ge 1 ] 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
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
sync_chunk_size = 4K
max_pg_per_osd = 1000000
[store]
backend = $BACKEND
[auth]
keyring = $D/keyring
[log]
file = $D/$x.log
debug_mon = 1/5
[metrics]
bind = 127.0.0.1:0
EOF
	done
	"$MAPMOND" -c "$D/a.conf" --mkfs >"$T/out" 2>"$T/err" &&
	    "$MAPMOND" -c "$D/b.conf" --mkfs --monmap "$D/a/monmap" \
		--keyring "$D/keyring" >"$T/out" 2>"$T/err" &&
	    "$MAPMOND" -c "$D/c.conf" --mkfs --monmap "$D/a/monmap" \
		--keyring "$D/keyring" >"$T/out" 2>"$T/err"
	check "three monitors made" [ $? -eq 0 ]
	for x in $NAMES; do start "$x"; done
	check "three monitors elect a leader" wait_leader
	check "the leader counts three in quorum" in_quorum 3

	# A follower stops; the log moves on far past threshold + trailing.
	for x in $NAMES; do [ "$x" != "$L" ] && F=$x; done
	stop "$F"
	made=0
	for i in $(seq 1 40); do
		mm osd pool create "p$i" 4 && [ "$rc" -eq 0 ] && made=$((made + 1))
	done
	check "40 pools made with mon.$F down" [ "$made" -eq 40 ]
	check "the leader took snapshots" [ "$(raft "$L" snapshots)" -ge 2 ]
	check "the leader copied no store in" \
	    [ "$(raft "$L" stores_copied)" = 0 ]
	check "the leader's raft directory holds a snapshot" \
	    sh -c 'ls "$0"/raft | grep -q "^snapshot-"' "$D/$L"
	kb=$(du -sk "$D/$L/raft" | cut -f1)
	echo "# mon.$L raft directory: $kb KiB after 40 entries"

	start "$F"
	check "mon.$F, back, copies the store of another monitor" copied "$F"
	check "mon.$F rejoins" in_quorum 3
	check "the three monitors converge" converged
	grep 'sync:' "$D/$F.log" | tail -n 2 | sed 's/^/# /'
	check "mon.$F's log names the copy and its chunks" \
	    grep -q "sync: [0-9]* records in [0-9]* chunks" "$D/$F.log"
	mm1 "$F" osd pool ls
	check "mon.$F lists the 40 pools made while it was down" \
	    [ "$(grep -c '^p[0-9]*$' "$T/out")" -eq 40 ]
	mm osd pool create after 4
	check "a write after the copy is answered" [ "$rc" -eq 0 ]
	converged
	mm1 "$F" osd pool ls
	check "and is on mon.$F" grep -qx after "$T/out"

	# A restart whose store has the snapshot's entry copies nothing.
	wait_leader
	R=$L
	stop "$R"
	start "$R"
	wait_leader
	check "mon.$R restarts and rejoins" in_quorum 3
	check "mon.$R restored its own snapshot: no copy" \
	    [ "$(raft "$R" stores_copied)" = 0 ]
	check "the three monitors converge again" converged

	stop_all $NAMES
	for x in $NAMES; do
		"$STORE" -c "$D/$x.conf" dump --full >"$D/$x.dump" 2>"$T/err"
		check "mapmon-store verify passes on mon.$x" \
		    "$STORE" -c "$D/$x.conf" verify
	done
	check "the stores of a and b are identical record for record" \
	    cmp -s "$D/a.dump" "$D/b.dump"
	check "the stores of a and c are identical record for record" \
	    cmp -s "$D/a.dump" "$D/c.dump"
	check "no copy is left in a data directory" \
	    sh -c '[ -z "$(find "$0" -maxdepth 2 -name store.sync -o \
		-maxdepth 2 -name sync.provide)" ]' "$D"
	check "a monitor's log has no sanitizer report" \
	    sh -c '! grep -q "Sanitizer\|runtime error" "$0"/*.stderr' "$D"
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
