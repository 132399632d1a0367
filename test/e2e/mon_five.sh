#!/bin/bash
# mon_five.sh: five monitors on loopback survive the loss of two (mapmond(8),
# QUORUM), end to end, once per store backend.  Speaks TAP.  Needs
# $top_builddir.
#
#   - five monitors made from one monmap elect a leader and count five in
#     quorum; status says "mon: 5 daemons";
#   - two are killed with SIGKILL, the leader one of them: the other three
#     elect a leader, MON_DOWN says "2/5 mons down", and writes sent to
#     any monitor are answered;
#   - both come back, rejoin and converge: the pools made while they were
#     down are on them, and the five stores are identical record for
#     record (`mapmon-store dump --full`) and pass `mapmon-store verify`.
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
NAMES="a b c d e"

T=$(mktemp -d /tmp/mon_five.XXXXXX) || exit 99
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

# Five ports P whose P+1 (the raft port) is free too, below the kernel's
# range of ephemeral ports, so that no other program's connection takes
# one between this pick and the monitor's bind.
free_ports() {
	python3 -c '
import random, socket
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
out = []
while len(out) < 5:
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
# converged5: the five have applied the same entry.
converged5() {
	local i x a first ok
	for i in $(seq 1 200); do
		ok=1
		first=
		for x in $NAMES; do
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

# lists X POOL: monitor X lists POOL within 10 s (a follower serves what
# it has applied, which may trail the leader's answer).
lists() {
	local i
	for i in $(seq 1 200); do
		mm1 "$1" osd pool ls && grep -qx "$2" "$T/out" && return 0
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
	ADDR_d=127.0.0.1:$4
	ADDR_e=127.0.0.1:$5
	ALL=$ADDR_a,$ADDR_b,$ADDR_c,$ADDR_d,$ADDR_e
	HOSTS=a=$ADDR_a,b=$ADDR_b,c=$ADDR_c,d=$ADDR_d,e=$ADDR_e
	for x in $NAMES; do
		cat >"$D/$x.conf" <<EOF
[mon]
name = $x
data = $D/$x
bind = $(addr "$x")
mon_host = $HOSTS
election_timeout = 300ms
propose_interval = 5ms
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
	for x in b c d e; do
		"$MAPMOND" -c "$D/$x.conf" --mkfs --monmap "$D/a/monmap" \
		    --keyring "$D/keyring" >"$T/out" 2>"$T/err" &&
		    made=$((made + 1))
	done
	check "five monitors made from one monmap" [ "$made" -eq 5 ]
	for x in $NAMES; do start "$x"; done
	check "five monitors elect a leader" wait_leader
	check "the leader counts five in quorum" in_quorum 5
	mm1 "$L" status
	check "status: mon: 5 daemons, quorum a,b,c,d,e" \
	    grep -q "mon: 5 daemons, quorum a,b,c,d,e" "$T/out"
	mm osd pool create before 4
	check "a write with five" [ "$rc" -eq 0 ]

	# Two lost, the leader one of them.
	K1=$L
	for x in $NAMES; do [ "$x" != "$K1" ] && K2=$x; done
	kill -KILL "$(pid_of "$K1")" "$(pid_of "$K2")"
	check "mon.$K1 (the leader) and mon.$K2 killed: three elect a leader" \
	    wait_leader
	check "the new leader counts three in quorum" in_quorum 3
	mm1 "$L" health detail
	check "MON_DOWN: 2/5 mons down" \
	    grep -q "MON_DOWN: 2/5 mons down, quorum" "$T/out"
	made=0
	for i in 1 2 3 4 5; do
		mm osd pool create "down$i" 4 && [ "$rc" -eq 0 ] &&
		    made=$((made + 1))
	done
	check "five writes answered with two monitors down" [ "$made" -eq 5 ]
	for x in $NAMES; do
		[ "$x" = "$K1" ] || [ "$x" = "$K2" ] && continue
		check "mon.$x, up, lists the pools (within 10 s)" lists "$x" down5
	done

	# Gone first: a process killed in a disk write holds its store's lock.
	stop_all "$K1" "$K2"
	start "$K1"
	start "$K2"
	wait_leader
	check "both back: the leader counts five in quorum" in_quorum 5
	check "the five converge" converged5
	for x in "$K1" "$K2"; do
		mm1 "$x" osd pool ls
		check "mon.$x has the pools made while it was down" \
		    [ "$(grep -c '^down[1-5]$' "$T/out")" -eq 5 ]
	done

	stop_all $NAMES
	for x in $NAMES; do
		"$STORE" -c "$D/$x.conf" dump --full >"$D/$x.dump" 2>"$T/err"
		check "mapmon-store verify passes on mon.$x" \
		    "$STORE" -c "$D/$x.conf" verify
	done
	for x in b c d e; do
		check "the stores of a and $x are identical record for record" \
		    cmp -s "$D/a.dump" "$D/$x.dump"
	done
	check "a monitor's log has no sanitizer report" \
	    sh -c '! grep -q "Sanitizer\|runtime error" "$0"/*.stderr' "$D"
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
