#!/bin/bash
# mon_linearizable.sh: three monitors on loopback, concurrent clients
# writing and reading OSD reweights and pool sizes through any monitor
# while the leader is killed, and a check that their history is
# linearizable (test/lib/lincheck.py, a register per key), once per store
# backend.  Speaks TAP.  Needs $top_builddir.
#
#   - the checker's self-test: histories known linearizable or not;
#   - per backend: linclients.py runs LIN_SECONDS (8 unless set) with
#     writes (`osd reweight', `osd pool set size') and linearizable reads
#     (mapmon --linearizable) through `mapmon -m a,b,c', while the leader
#     is killed with SIGKILL twice and restarted; lincheck.py must find
#     the history linearizable.
#
# A build made with CPPFLAGS=-DMAPMON_BREAK_ACK_BEFORE_COMMIT acknowledges
# a follower's forwarded writes before commit and loses them: this test
# fails on it (RELIABILITY.md, "Linearizability").
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
TAP_PER_BACKEND=1
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
JG=$top_builddir/test/lib/json_get
LINCHECK=$top_srcdir/test/lib/lincheck.py
LINCLIENTS=$top_srcdir/test/lib/linclients.py
SECONDS_RUN=${LIN_SECONDS:-8}
NAMES="a b c"

command -v python3 >/dev/null 2>&1 || skip_all "python3 runs the checker"

T=$(mktemp -d /tmp/mon_linearizable.XXXXXX) || exit 99
CPID=
cleanup() {
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null
	for f in "$T"/*.pid; do
		[ -e "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	[ -n "${LIN_KEEP:-}" ] && echo "# kept $T" || rm -rf "$T"
}
trap cleanup EXIT
check_diag() {
	[ -n "${DIAG:-}" ] && printf '%s\n' "$DIAG"
	printf 'err: %s\n' "$(head -c 300 "$T/err" 2>/dev/null)"
}

# The checker first: it must tell the histories apart.
BACKEND=lincheck
python3 "$LINCHECK" --self-test >"$T/self" 2>&1
while read -r verdict rest; do
	check "lincheck self-test: $rest" [ "$verdict" = ok ]
done <"$T/self"
check "lincheck self-test passes as a whole" \
    sh -c 'python3 "$0" --self-test >/dev/null 2>&1' "$LINCHECK"

# Three ports P whose P+1 (the raft port) is free too.
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
addr() { eval echo "\$ADDR_$1"; }
mm() {
	"$MAPMON" -m "$ALL" -k "$D/keyring" --connect-timeout 5 "$@" \
	    >"$T/out" 2>"$T/err"
}
start() {
	"$MAPMOND" -c "$D/$1.conf" -f 2>>"$D/$1.stderr" &
	echo $! >"$T/$BACKEND.$1.pid"
}
pid_of() { cat "$T/$BACKEND.$1.pid"; }
# wait_leader: $L, the leader as a live monitor sees itself (10 s).
wait_leader() {
	local i x
	for i in $(seq 1 200); do
		for x in $NAMES; do
			kill -0 "$(pid_of "$x")" 2>/dev/null || continue
			"$MAPMON" -m "$(addr "$x")" -k "$D/keyring" \
			    --connect-timeout 2 -f json quorum_status \
			    >"$T/qs" 2>/dev/null || continue
			if [ "$("$JG" quorum_leader_name <"$T/qs")" = "$x" ]
			then
				L=$x
				return 0
			fi
		done
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
[store]
backend = $BACKEND
[auth]
keyring = $D/keyring
[log]
file = $D/$x.log
EOF
	done
	"$MAPMOND" -c "$D/a.conf" --mkfs >/dev/null 2>"$T/err" &&
	    "$MAPMOND" -c "$D/b.conf" --mkfs --monmap "$D/a/monmap" \
		--keyring "$D/keyring" >/dev/null 2>>"$T/err" &&
	    "$MAPMOND" -c "$D/c.conf" --mkfs --monmap "$D/a/monmap" \
		--keyring "$D/keyring" >/dev/null 2>>"$T/err"
	check "mkfs of three monitors" [ $? -eq 0 ]
	for x in $NAMES; do start "$x"; done
	check "they elect a leader" wait_leader
	ok=0
	mm osd create && mm osd create && mm osd pool create lin1 4 &&
	    mm osd pool create lin2 4 && ok=1
	check "two OSDs and two pools to write to" [ "$ok" -eq 1 ]

	python3 "$LINCLIENTS" "$MAPMON" "$ALL" "$D/keyring" "$SECONDS_RUN" \
	    "$D/history" osd.0 osd.1 pool.lin1 pool.lin2 >"$D/clients" \
	    2>&1 &
	CPID=$!
	for k in 1 2; do
		sleep "$(awk -v s="$SECONDS_RUN" 'BEGIN { print s / 4 }')"
		wait_leader
		old=$L
		kill -KILL "$(pid_of "$old")"
		check "kill $k of the leader (mon.$old): another is elected" \
		    wait_leader
		start "$old"
	done
	wait "$CPID"
	rc=$?
	CPID=
	DIAG=$(cat "$D/clients")
	check "the clients ran ($(tail -n 1 "$D/clients"))" [ "$rc" -eq 0 ]
	nw=$(grep -c '"op": "write", .*"outcome": "ok"' "$D/history")
	nr=$(grep -c '"op": "read"' "$D/history")
	nu=$(grep -c '"outcome": "unknown"' "$D/history")
	check "$nw writes acknowledged, $nr reads, $nu of unknown outcome" \
	    [ "$((nw >= 20 && nr >= 20))" = 1 ]
	python3 "$LINCHECK" "$D/history" >"$D/check" 2>&1
	rc=$?
	DIAG=$(head -n 30 "$D/check")
	check "the history is linearizable ($(tail -n 1 "$D/check"))" \
	    [ "$rc" -eq 0 ]
	DIAG=
	for x in $NAMES; do
		kill "$(pid_of "$x")" 2>/dev/null
	done
	for x in $NAMES; do
		i=0
		while kill -0 "$(pid_of "$x")" 2>/dev/null && [ $i -lt 200 ]
		do
			sleep 0.05
			i=$((i + 1))
		done
	done
	check "no sanitizer report from a monitor" \
	    sh -c '! grep -q "Sanitizer\|runtime error" "$0"/*.stderr' "$D"
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
