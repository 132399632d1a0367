#!/bin/bash
# mon_bigentry.sh: commits far over the 1 MiB entry limit on three
# monitors (mapmon-protocol(7), REPLICATED ENTRIES), end to end, once per
# store backend.  Speaks TAP.  Needs $top_builddir.
#
#   - three monitors, a pool of $BIG_PGS PGs (16,384 unless set) made
#     before any OSD: each OSD's boot re-places thousands of PGs, and the
#     simulator's reports carry up to 4,096 PGs, so commits encode to
#     several MiB;
#   - mapmon-bench osd-sim brings every PG to active+clean through the
#     three (--until-clean), each monitor reports all of them
#     active+clean;
#   - the leader's metrics: no entry over 1 MiB
#     (mapmon_quorum_entry_bytes_max), commits split in parts
#     (mapmon_quorum_proposals_split_total > 0), none refused;
#   - the three stores are identical record for record (`mapmon-store
#     dump --full`) and each passes `mapmon-store verify`.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
TAP_PER_BACKEND=1
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
STORE=$top_builddir/tools/mapmon-store
JG=$top_builddir/test/lib/json_get
BENCH=$top_builddir/tools/mapmon-bench
PGS=${BIG_PGS:-16384}
OSDS=${BIG_OSDS:-12}
NAMES="a b c"

T=$(mktemp -d /tmp/mon_bigentry.XXXXXX) || exit 99
SIMPID=
cleanup() {
	[ -n "$SIMPID" ] && kill "$SIMPID" 2>/dev/null
	for f in "$T"/*.pid; do
		[ -e "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	[ -n "${QUORUM_KEEP:-}" ] && echo "# kept $T" || rm -rf "$T"
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

# Three ports P whose P+1 (the raft port) is free too, below the kernel's
# range of ephemeral ports.
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
# mm1 NAME ARGS...: mapmon ARGS against monitor NAME, stdout in $T/out,
# stderr in $T/err, $rc.
mm1() {
	local x=$1
	shift
	"$MAPMON" -m "$(addr "$x")" -k "$D/keyring" --connect-timeout 5 \
	    "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# metrics X: monitor X's /metrics into $T/out.
metrics() {
	local port
	port=$(sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
	    "$D/$1.log" | tail -n 1)
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
	sed '1,/^\r$/d' <&3 >"$T/out"
	exec 3<&-
}
metric() { awk -v n="mapmon_$1" '$1 == n { print $2 }' "$T/out"; }
start() {
	"$MAPMOND" -c "$D/$1.conf" -f 2>>"$D/$1.stderr" &
	echo $! >"$T/$BACKEND.$1.pid"
}
pid_of() { cat "$T/$BACKEND.$1.pid"; }
wait_leader() {
	local i x
	for i in $(seq 1 200); do
		for x in $NAMES; do
			mm1 "$x" -f json quorum_status || continue
			if [ "$("$JG" quorum_leader_name <"$T/out")" = "$x" ] &&
			    [ "$("$JG" quorum.# <"$T/out")" = 3 ]; then
				L=$x
				return 0
			fi
		done
		sleep 0.05
	done
	return 1
}
applied() {
	mm1 "$1" -f json quorum_status && "$JG" raft.applied_index <"$T/out"
}
converged() {
	local i a b c
	for i in $(seq 1 400); do
		a=$(applied a)
		b=$(applied b)
		c=$(applied c)
		[ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ] && return 0
		sleep 0.05
	done
	return 1
}
# clean_on X: monitor X has $PGS PGs, all active+clean.
clean_on() {
	mm1 "$1" -f json pg stat || return 1
	[ "$("$JG" num_pgs <"$T/out")" = "$PGS" ] &&
	    [ "$("$JG" pgs_by_state.# <"$T/out")" = 1 ] &&
	    [ "$("$JG" pgs_by_state.0.state_name <"$T/out")" = active+clean ] &&
	    [ "$("$JG" pgs_by_state.0.count <"$T/out")" = "$PGS" ]
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
	check "mkfs of the three monitors" sh -c '
	    "$0" -c "$1/a.conf" --mkfs &&
	    "$0" -c "$1/b.conf" --mkfs --monmap "$1/a/monmap" \
		--keyring "$1/keyring" &&
	    "$0" -c "$1/c.conf" --mkfs --monmap "$1/a/monmap" \
		--keyring "$1/keyring"' "$MAPMOND" "$D"
	for x in $NAMES; do start "$x"; done
	check "three monitors elect a leader, all in quorum" wait_leader
	mm1 "$L" osd pool create big "$PGS"
	check "a pool of $PGS PGs, before any OSD" [ "$rc" -eq 0 ]

	MAPMON_KEYRING=$D/keyring "$BENCH" osd-sim -m "$ALL" \
	    --osds "$OSDS" --until-clean --duration "${BIG_DURATION:-120}" >"$D/sim" 2>&1
	rc=$?
	DIAG=$(tail -n 3 "$D/sim")
	check "osd-sim: $OSDS OSDs bring the $PGS PGs to active+clean" \
	    [ "$rc" -eq 0 ]
	DIAG=
	check "the three monitors converge" converged
	for x in $NAMES; do
		check "mon.$x: all $PGS PGs active+clean" clean_on "$x"
	done
	# Whoever led proposed: a leader change under load (an election
	# while a loaded machine stalls a loop) moves the proposing to
	# another monitor, so the figures are summed over the three (the
	# largest entry the largest of any).
	max=0 split=0 total=0 qsplit=0
	for x in $NAMES; do
		metrics "$x" || continue
		v=$(metric quorum_entry_bytes_max)
		[ -n "$v" ] && [ "$v" -gt "$max" ] && max=$v
		v=$(metric quorum_proposals_split_total)
		split=$((split + ${v:-0}))
		v=$(metric quorum_entry_bytes_total)
		total=$((total + ${v:-0}))
		mm1 "$x" -f json quorum_status || continue
		v=$("$JG" raft.proposals_split <"$T/out")
		qsplit=$((qsplit + ${v:-0}))
	done
	echo "# the three monitors: entry_bytes_max $max, entry_bytes_total" \
	    "$total, proposals_split $split"
	check "no monitor proposed an entry over 1 MiB ($max bytes)" \
	    sh -c '[ -n "$0" ] && [ "$0" -gt 0 ] && [ "$0" -le 1048576 ]' \
	    "$max"
	check "commits over 1 MiB went in parts ($split of them)" \
	    sh -c '[ -n "$0" ] && [ "$0" -ge 1 ]' "$split"
	check "quorum_status says so too" [ "$qsplit" = "$split" ]
	check "no commit refused as too big (EFBIG)" \
	    sh -c '! grep -q "refused: the commit would be" "$0"/*.log' "$D"

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
