#!/bin/bash
# mon_capacity.sh: the OSDs' capacity on every monitor of a quorum (issue
# 18; mapmond(8), Capacity), once per store backend.  Speaks TAP.  Needs
# $top_builddir.
#
#   - three monitors; three OSDs made and booted, and their beacons with a
#     capacity sent through a follower (forwarded to the leader): within
#     the capacity interval (5 s) and a commit, `df -f json' and `osd df
#     -f json' are the leader's on each follower, and so are the usage
#     figures and the OSD_NEARFULL check of `status -f json';
#   - the leader is killed (SIGKILL): the new leader and the other
#     survivor still show them, with no beacon since; the killed monitor
#     restarted shows them as soon as it answers;
#   - a removed OSD's capacity is gone on every monitor;
#   - the three stores are identical record for record, hold one "S"
#     record per remaining OSD, and pass `mapmon-store verify'.
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
GIB=1073741824

T=$(mktemp -d /tmp/mon_capacity.XXXXXX) || exit 99
cleanup() {
	for f in "$T"/*.pid; do
		[ -e "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	[ -n "${CAPACITY_KEEP:-}" ] && echo "# kept $T" || rm -rf "$T"
}
trap cleanup EXIT
check_diag() {
	local x
	[ -n "${DIAG:-}" ] && printf 'diag: %s\n' "$DIAG"
	printf 'out: %s\nerr: %s\n' "$(head -c 600 "$T/out")" \
	    "$(head -c 300 "$T/err")"
	for x in $NAMES; do
		printf 'log %s: %s\n' "$x" \
		    "$(grep -v ' net ' "$D/$x.log" 2>/dev/null | tail -n 4)"
	done
}

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# Three ports P whose P+1 (the raft port) is free too (as mon_quorum.sh).
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
# mm1 NAME ARGS...: mapmon ARGS against monitor NAME only.
mm1() {
	local x=$1
	shift
	"$MAPMON" -m "$(addr "$x")" -k "$D/keyring" --connect-timeout 5 \
	    "$@" >"$T/out" 2>"$T/err"
	rc=$?
	return $rc
}
start() {
	"$MAPMOND" -c "$D/$1.conf" -f 2>>"$D/$1.stderr" &
	echo $! >"$T/$BACKEND.$1.pid"
}
pid_of() { cat "$T/$BACKEND.$1.pid"; }
alive() { kill -0 "$(pid_of "$1")" 2>/dev/null; }
stop() {
	local i=0
	kill "-${2:-TERM}" "$(pid_of "$1")"
	while alive "$1" && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
leader() {
	local x
	for x in $NAMES; do
		alive "$x" || continue
		mm1 "$x" -f json quorum_status || continue
		if [ "$("$JG" quorum_leader_name <"$T/out")" = "$x" ]; then
			echo "$x"
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
# The capacity figures of monitor X, one line per command, in $D/X.cap:
# df, osd df, and of status the usage and whether OSD_NEARFULL is raised.
figures() {
	local x=$1
	: >"$D/$x.cap"
	mm1 "$x" -f json df || return 1
	cat "$T/out" >>"$D/$x.cap"
	mm1 "$x" -f json osd df || return 1
	cat "$T/out" >>"$D/$x.cap"
	mm1 "$x" -f json status || return 1
	for k in pgmap.bytes_total pgmap.bytes_used pgmap.bytes_avail \
	    health.checks.OSD_NEARFULL.summary.message; do
		echo "$k=$("$JG" "$k" <"$T/out")" >>"$D/$x.cap"
	done
}
# same_as REF X...: within 15 s, each monitor X has REF's figures (taken
# once, before).
same_as() {
	local ref=$1 i x all
	shift
	for i in $(seq 1 150); do
		all=1
		for x in "$@"; do
			figures "$x" && cmp -s "$D/$ref.ref" "$D/$x.cap" ||
			    all=0
		done
		[ $all = 1 ] && return 0
		sleep 0.1
	done
	DIAG=$(for x in "$@"; do diff "$D/$ref.ref" "$D/$x.cap"; done |
	    head -c 800)
	return 1
}
# now_same_as REF X: X has REF's figures at its first answer.
now_same_as() {
	local i
	for i in $(seq 1 100); do
		mm1 "$2" -f json quorum_status && break
		sleep 0.05
	done
	figures "$2" && cmp -s "$D/$1.ref" "$D/$2.cap"
	rc=$?
	DIAG=$(diff "$D/$1.ref" "$D/$2.cap" | head -c 800)
	return $rc
}
beacon() {
	mm1 "$1" raw "{\"prefix\":\"osd beacon\",\"id\":$2,\"statfs\":{\"total\":$(($3 * GIB)),\"used\":$(($4 * GIB)),\"avail\":$(($5 * GIB))}}"
	[ "$rc" -eq 0 ]
}

run_backend() {
	BACKEND=$1
	D=$T/$BACKEND
	mkdir -p "$D"
	set -- $(free_ports)
	ADDR_a=127.0.0.1:$1
	ADDR_b=127.0.0.1:$2
	ADDR_c=127.0.0.1:$3
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
	check "mkfs of a" "$MAPMOND" -c "$D/a.conf" --mkfs
	for x in b c; do
		check "mkfs of $x from a's monmap and keyring" \
		    "$MAPMOND" -c "$D/$x.conf" --mkfs --monmap "$D/a/monmap" \
		    --keyring "$D/keyring"
	done
	for x in $NAMES; do
		start "$x"
	done
	check "three monitors elect a leader" wait_leader
	F1=$(for x in $NAMES; do [ "$x" != "$L" ] && echo "$x"; done |
	    head -n 1)
	F2=$(for x in $NAMES; do [ "$x" != "$L" ] && echo "$x"; done |
	    tail -n 1)

	for i in 0 1 2; do
		mm1 "$L" osd create "$i" && mm1 "$L" osd boot "$i" \
		    "127.0.0.1:680$i"
		check "osd.$i made and booted" [ "$rc" -eq 0 ]
	done
	# Through a follower: forwarded, as an OSD's beacon may be.
	beacon "$F1" 0 100 20 80 && beacon "$F1" 1 100 90 10 &&
	    beacon "$F1" 2 50 10 40
	check "beacons with a capacity through follower $F1" [ "$rc" -eq 0 ]
	figures "$L"
	cp "$D/$L.cap" "$D/$L.ref"
	check "the leader counts them at once (250 GiB)" \
	    grep -q "^pgmap.bytes_total=$((250 * GIB))$" "$D/$L.ref"
	check "and raises OSD_NEARFULL" \
	    grep -q "^health.checks.OSD_NEARFULL.summary.message=1 nearfull osd(s)$" \
	    "$D/$L.ref"
	check "both followers show the leader's df, osd df and status" \
	    same_as "$L" "$F1" "$F2"

	# The leader dies; nobody beacons again.
	OLD=$L
	stop "$OLD" KILL
	check "the survivors elect a new leader" wait_leader
	check "the new leader $L has every capacity at once" \
	    now_same_as "$OLD" "$L"
	S=$(for x in $NAMES; do [ "$x" != "$L" ] && [ "$x" != "$OLD" ] &&
	    echo "$x"; done)
	check "and so has the other survivor $S" now_same_as "$OLD" "$S"
	start "$OLD"
	check "the old leader restarted has them from its store" \
	    now_same_as "$OLD" "$OLD"

	# osd.2 removed: its capacity is gone everywhere.
	mm1 "$L" osd down 2 && mm1 "$L" osd rm 2
	check "osd.2 down and removed" [ "$rc" -eq 0 ]
	figures "$L"
	cp "$D/$L.cap" "$D/$L.ref"
	check "the leader counts osd.2 no more (200 GiB)" \
	    grep -q "^pgmap.bytes_total=$((200 * GIB))$" "$D/$L.ref"
	check "and neither does any monitor" same_as "$L" $NAMES

	for x in $NAMES; do
		stop "$x"
	done
	for x in $NAMES; do
		"$STORE" -c "$D/$x.conf" dump --full >"$D/$x.dump" 2>"$T/err"
		check "mapmon-store verify passes on mon.$x" \
		    "$STORE" -c "$D/$x.conf" verify
	done
	DIAG=$(grep -c '^S' "$D/a.dump")
	check "the store holds a capacity record per OSD left (2)" \
	    [ "$DIAG" = 2 ]
	"$STORE" -c "$D/a.conf" verify >"$T/out" 2>&1
	check "verify counts them" grep -q "^osd capacities: 2$" "$T/out"
	check "the stores of a and b are identical record for record" \
	    cmp -s "$D/a.dump" "$D/b.dump"
	check "the stores of a and c are identical record for record" \
	    cmp -s "$D/a.dump" "$D/c.dump"
	DIAG=
	check "no monitor's stderr has a sanitizer report" \
	    sh -c '! grep -q "Sanitizer\|runtime error" "$0"/*.stderr' "$D"
}

for be in ${CAPACITY_BACKENDS:-lmdb leveldb}; do
	run_backend "$be"
done
done_testing
