#!/bin/bash
# mon_quorum.sh: three monitors on loopback replicating every commit
# (mapmond(8), QUORUM), end to end, once per store backend.  Speaks TAP.
# Needs $top_builddir.
#
#   - mapmond --mkfs of the first monitor, then of the two others from its
#     monmap and keyring; they elect a leader (quorum_status, mon stat,
#     status);
#   - a write sent to a follower is answered (the CLI follows the
#     follower's EAGAIN to the leader) and is on all three;
#   - a writer creates pools through `mapmon -m a,b,c` and records every
#     acknowledged one, while the leader is killed with SIGKILL
#     $QUORUM_KILLS times (5 unless set): after each kill the survivors
#     elect a leader and acknowledge writes again, MON_DOWN names the dead
#     one, and it is restarted and rejoins;
#   - with two monitors killed, the last refuses writes (EAGAIN, "no
#     quorum") and its status says it is out of quorum; restarted, the
#     three elect again;
#   - at the end every acknowledged pool is on every monitor, the three
#     stores are identical record for record (`mapmon-store dump --full`)
#     and each passes `mapmon-store verify`.
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
KILLS=${QUORUM_KILLS:-5}
NAMES="a b c"

T=$(mktemp -d /tmp/mon_quorum.XXXXXX) || exit 99
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
# reap X: wait (10 s at most) for X, killed, to be gone: a process killed
# in the middle of a disk write holds its store's lock until it is, and a
# restart before then is refused ("store is in use").
reap() {
	local i=0
	while kill -0 "$(pid_of "$1")" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
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

# The writer: pools w1, w2, ... through any monitor; an acknowledged one
# goes to $1.  A retry of one whose outcome is unknown is safe: creating
# an existing pool is answered 0, as Ceph does.
writer() {
	local i=0 acked=$1
	while [ ! -e "$T/stop" ]; do
		i=$((i + 1))
		while [ ! -e "$T/stop" ]; do
			if "$MAPMON" -m "$ALL" -k "$D/keyring" \
			    --connect-timeout 3 osd pool create "w$i" 4 \
			    >/dev/null 2>&1; then
				echo "w$i" >>"$acked"
				break
			fi
			sleep 0.05
		done
	done
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
	check "mkfs of the first monitor" \
	    "$MAPMOND" -c "$D/a.conf" --mkfs
	check "mkfs of b from a's monmap and keyring" \
	    "$MAPMOND" -c "$D/b.conf" --mkfs --monmap "$D/a/monmap" \
	    --keyring "$D/keyring"
	check "mkfs of c from a's monmap and keyring" \
	    "$MAPMOND" -c "$D/c.conf" --mkfs --monmap "$D/a/monmap" \
	    --keyring "$D/keyring"
	"$MAPMOND" -c "$D/c.conf" --mkfs --monmap "$D/a/monmap" >"$T/out" \
	    2>"$T/err"
	rc=$?
	check "--monmap without --keyring is refused" \
	    sh -c '[ "$0" -ne 0 ] && grep -q -- "--keyring go together" "$1"' \
	    "$rc" "$T/err"

	for x in $NAMES; do start "$x"; done
	check "three monitors elect a leader" wait_leader
	check "the leader counts three in quorum" in_quorum 3
	mm -f json quorum_status
	check "quorum_status names the leader" \
	    grep -q "\"quorum_leader_name\":\"$L\"" "$T/out"
	mm1 "$L" mon stat
	check "mon stat: 3 mons, the leader, quorum 0,1,2 a,b,c" \
	    grep -q "3 mons at .*, leader [0-2] $L, quorum 0,1,2 a,b,c" \
	    "$T/out"
	mm1 "$L" status
	check "status: mon: 3 daemons, quorum a,b,c" \
	    grep -q "mon: 3 daemons, quorum a,b,c" "$T/out"
	metrics "$L"
	check "the leader's metrics: quorum_leader 1, a term, a loop slice" \
	    sh -c 'grep -q "^mapmon_quorum_leader 1$" "$0" &&
		grep -q "^mapmon_quorum_term [1-9]" "$0" &&
		grep -q "^mapmon_quorum_loop_slice_max_seconds [0-9]" "$0"' \
	    "$T/out"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$T/out" >"$T/err" 2>&1
		check "promtool check metrics (leader)" [ $? -eq 0 ]
	fi

	for x in $NAMES; do [ "$x" != "$L" ] && F=$x; done
	mm1 "$F" osd pool create viafollower 8
	check "a write sent to follower $F is answered" [ "$rc" -eq 0 ]
	converged
	for x in $NAMES; do
		mm1 "$x" osd pool ls
		check "the follower's write is on mon.$x" \
		    grep -qx viafollower "$T/out"
	done

	: >"$D/acked"
	rm -f "$T/stop"
	writer "$D/acked" &
	WPID=$!
	for k in $(seq 1 "$KILLS"); do
		sleep 0.7
		wait_leader
		old=$L
		kill -KILL "$(pid_of "$old")"
		before=$(wc -l <"$D/acked")
		t0=$(date +%s%N)
		check "kill $k: the survivors elect a leader" wait_leader
		i=0
		while [ "$(wc -l <"$D/acked")" -le "$before" ] && [ $i -lt 200 ]
		do
			sleep 0.05
			i=$((i + 1))
		done
		check "kill $k: writes are acknowledged again" \
		    [ "$(wc -l <"$D/acked")" -gt "$before" ]
		echo "# kill $k of mon.$old: next acknowledged write after" \
		    "$(( ($(date +%s%N) - t0) / 1000000 )) ms"
		mm1 "$L" health detail
		check "kill $k: MON_DOWN names mon.$old" \
		    sh -c 'grep -q "MON_DOWN: 1/3 mons down, quorum" "$0" &&
			grep -q "mon\\.$1 (rank" "$0"' "$T/out" "$old"
		reap "$old"
		start "$old"
		check "kill $k: mon.$old rejoins" in_quorum 3
	done
	touch "$T/stop"
	wait "$WPID"
	WPID=
	check "the writer had $(wc -l <"$D/acked") writes acknowledged" \
	    [ "$(wc -l <"$D/acked")" -gt "$KILLS" ]

	# Two of three gone: the last one is out of quorum, and says so.
	wait_leader
	for x in $NAMES; do [ "$x" != "$L" ] && S=$x; done
	for x in $NAMES; do
		[ "$x" != "$S" ] && kill -KILL "$(pid_of "$x")"
	done
	check "mon.$S alone: no leader within 10 s" no_leader "$S"
	mm1 "$S" osd pool create alone 4
	check "mon.$S alone refuses a write: EAGAIN, no quorum" \
	    sh -c '[ "$0" -eq 11 ] && grep -q "no quorum" "$1"' "$rc" "$T/err"
	mm1 "$S" status
	check "mon.$S alone: status says it is out of quorum" \
	    grep -q "quorum none: this monitor is out of quorum" "$T/out"
	for x in $NAMES; do [ "$x" != "$S" ] && reap "$x"; done
	for x in $NAMES; do [ "$x" != "$S" ] && start "$x"; done
	check "the three elect a leader again" wait_leader
	check "the leader counts three in quorum again" in_quorum 3
	check "the three monitors converge" converged
	for x in $NAMES; do
		mm1 "$x" osd pool ls
		DIAG=$(sort "$D/acked" | comm -23 - <(sort "$T/out"))
		check "every acknowledged pool is on mon.$x" [ -z "$DIAG" ]
		DIAG=
	done
	for x in $NAMES; do
		kill "$(pid_of "$x")"
	done
	for x in $NAMES; do
		i=0
		while kill -0 "$(pid_of "$x")" 2>/dev/null && [ $i -lt 200 ]
		do
			sleep 0.05
			i=$((i + 1))
		done
		"$STORE" -c "$D/$x.conf" dump --full >"$D/$x.dump" 2>"$T/err"
		check "mapmon-store verify passes on mon.$x" \
		    "$STORE" -c "$D/$x.conf" verify
	done
	check "the stores of a and b are identical record for record" \
	    cmp -s "$D/a.dump" "$D/b.dump"
	check "the stores of a and c are identical record for record" \
	    cmp -s "$D/a.dump" "$D/c.dump"
	check "a monitor's log has no sanitizer report" \
	    sh -c '! grep -q "Sanitizer\|runtime error" "$0"/*.stderr' "$D"
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
