#!/bin/bash
# mon_partition.sh: three monitors, each in its own network namespace,
# partitioned and healed (mapmond(8), QUORUM), once per store backend.
# Speaks TAP.  Needs $top_builddir, root and ip(8); skips otherwise.
#
# The script re-runs itself under `unshare -m -n`: a private network
# namespace holds a bridge, and namespaces n1, n2, n3 (the monitors a, b,
# c at 10.99.0.1-3) and n9 (the clients, 10.99.0.9) hang off it by veth
# pairs; nothing of the host's network is touched.  A partition is a
# blackhole route in the namespaces of both sides.  Every CLI runs with
# `ip netns exec`: a query in the namespace of the monitor it asks, the
# writer in n9, reaching all three.
#
#   - the leader isolated: it steps down and refuses writes (EAGAIN, "no
#     quorum"; status says it is out of quorum) while the two others elect
#     a leader and acknowledge writes; healed, it is back in quorum and
#     applies what the leader had applied at the heal;
#   - a follower isolated: the leader and the other follower go on
#     acknowledging writes, the follower refuses them; healed, it catches
#     up;
#   - only the link between a follower and the leader cut (the follower
#     still reaches the other one): the follower refuses writes, the
#     leader keeps leading in the same term (pre-vote: the cut follower
#     disrupts nobody); healed, it catches up;
#   - all along a writer creates pools through the three and records every
#     acknowledged one: at the end each is on every monitor, the stores
#     are identical record for record (`mapmon-store dump --full`) and
#     pass `mapmon-store verify`.
# The times to step down, to elect and to converge are printed as TAP
# comments.  Election timeout 300 ms.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"

if [ -z "${MAPMON_PARTITION_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] ||
	    skip_all "needs root for network namespaces (CI runs it as root)"
	command -v ip >/dev/null 2>&1 && command -v unshare >/dev/null 2>&1 ||
	    skip_all "needs ip(8) and unshare(1)"
	unshare -m -n true 2>/dev/null ||
	    skip_all "unshare -m -n fails here (no CAP_SYS_ADMIN?)"
	MAPMON_PARTITION_NS=1 exec unshare -m -n --propagation private \
	    bash "$0" "$@"
fi

MAPMON=$(realpath "$top_builddir/tools/mapmon")
MAPMOND=$(realpath "$top_builddir/daemon/mapmond")
STORE=$(realpath "$top_builddir/tools/mapmon-store")
JG=$(realpath "$top_builddir/test/lib/json_get")
PORT=6789
QUORUM_TMP=mon_partition
QUORUM_BG=WPID
KEEP_VAR=PARTITION_KEEP
DIAG_SKIP=' net \| mon 1 '
MON_CONF="propose_interval = 5ms
max_pg_per_osd = 1000000"
LOG_CONF="debug_mon = 1/5"
METRICS=no
. "$top_srcdir/test/lib/quorum_lib.sh"

# The namespaces; any failure skips the whole script, with the reason.
net_setup() {
	local i
	mkdir -p /run/netns && mount -t tmpfs mapmon-netns /run/netns &&
	    ip link set lo up &&
	    ip link add br0 type bridge && ip link set br0 up || return 1
	for i in 1 2 3 9; do
		ip netns add "n$i" &&
		    ip link add "v$i" type veth peer name "v${i}b" &&
		    ip link set "v$i" netns "n$i" &&
		    ip link set "v${i}b" master br0 up &&
		    ip netns exec "n$i" ip addr add "10.99.0.$i/24" dev "v$i" &&
		    ip netns exec "n$i" ip link set "v$i" up &&
		    ip netns exec "n$i" ip link set lo up || return 1
	done
}
net_setup >"$T/err" 2>&1 ||
    skip_all "cannot build the network namespaces: $(head -n 1 "$T/err")"

# addr, ALL, mm1 and start stand for quorum_lib.sh's loopback ones: each
# monitor in its namespace, at 10.99.0.N:$PORT.
idx() { case $1 in a) echo 1 ;; b) echo 2 ;; c) echo 3 ;; esac; }
ip_of() { echo "10.99.0.$(idx "$1")"; }
addr() { echo "$(ip_of "$1"):$PORT"; }
ALL=$(addr a),$(addr b),$(addr c)
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# mm1 NAME ARGS...: mapmon ARGS against monitor NAME, from its namespace;
# stdout in $T/out, stderr in $T/err, $rc.
mm1() {
	local x=$1
	shift
	ip netns exec "n$(idx "$x")" "$MAPMON" -m "$(addr "$x")" \
	    -k "$D/keyring" --connect-timeout 2 "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
start() {
	ip netns exec "n$(idx "$1")" "$MAPMOND" -c "$D/$1.conf" -f \
	    2>>"$D/$1.stderr" &
	echo $! >"$T/$BACKEND.$1.pid"
}
# leader_of X: the leader monitor X knows, or nothing.
leader_of() {
	mm1 "$1" -f json quorum_status && "$JG" quorum_leader_name <"$T/out"
}
# wait_leader_among NAMES...: one of them says it leads ($L), within 10 s.
wait_leader_among() {
	local i x
	for i in $(seq 1 200); do
		for x in "$@"; do
			if [ "$(leader_of "$x")" = "$x" ]; then
				L=$x
				return 0
			fi
		done
		sleep 0.05
	done
	return 1
}
# caught_up X N: monitor X has applied index N at least (within 10 s).
caught_up() {
	local i a
	for i in $(seq 1 200); do
		a=$(applied "$1")
		[ -n "$a" ] && [ "$a" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
acked() { wc -l <"$D/acked"; }
# acks_grow: the writer has more acknowledged than $1 (within 10 s).
acks_grow() {
	local i
	for i in $(seq 1 200); do
		[ "$(acked)" -gt "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
# route add|del X Y: X's packets to Y go nowhere (or again).
route() {
	ip netns exec "n$(idx "$2")" ip route "$1" blackhole "$(ip_of "$3")/32"
}
# isolate X / heal X: X against the two others, both ways.
isolate() {
	local y
	for y in $NAMES; do
		[ "$y" = "$1" ] && continue
		route add "$1" "$y"
		route add "$y" "$1"
	done
}
heal() {
	local y
	for y in $NAMES; do
		[ "$y" = "$1" ] && continue
		route del "$1" "$y"
		route del "$y" "$1"
	done
}

# The writer, in the clients' namespace: pools w1, w2, ... through the
# three; an acknowledged one goes to $D/acked.  A retry of one whose
# outcome is unknown is safe: creating an existing pool is answered 0.
writer() {
	ip netns exec n9 bash -c '
		i=0
		while [ ! -e "$1/stop" ]; do
			i=$((i + 1))
			while [ ! -e "$1/stop" ]; do
				if "$2" -m "$3" -k "$4/keyring" \
				    --connect-timeout 1 osd pool create "w$i" 4 \
				    >/dev/null 2>&1; then
					echo "w$i" >>"$4/acked"
					break
				fi
				sleep 0.05
			done
		done' _ "$T" "$MAPMON" "$ALL" "$D"
}

# partition X WHAT: isolate monitor X (the leader or a follower) while the
# writer runs, check both sides, heal, check the three converge.
partition() {
	local x=$1 what=$2 others="" y t0 t_down t_elect t_heal t_conv before at
	for y in $NAMES; do [ "$y" != "$x" ] && others="$others $y"; done
	before=$(acked)
	t0=$(now_ms)
	isolate "$x"
	if [ "$what" = leader ]; then
		check "$what mon.$x isolated: it steps down" no_leader "$x"
		t_down=$(now_ms)
		check "$what mon.$x isolated: the majority elects a leader" \
		    wait_leader_among $others
		t_elect=$(now_ms)
		echo "# leader mon.$x isolated: stepped down after" \
		    "$((t_down - t0)) ms, mon.$L leads after $((t_elect - t0)) ms"
	else
		check "$what mon.$x isolated: it knows no leader" no_leader "$x"
		check "$what mon.$x isolated: mon.$L still leads" \
		    wait_leader_among $others
	fi
	mm1 "$x" --connect-timeout 1 osd pool create "iso$x" 4
	check "$what mon.$x isolated refuses a write: EAGAIN, no quorum" \
	    sh -c '[ "$0" -eq 11 ] && grep -q "no quorum" "$1"' "$rc" "$T/err"
	mm1 "$x" status
	check "$what mon.$x isolated: status says it is out of quorum" \
	    grep -q "quorum none: this monitor is out of quorum" "$T/out"
	check "$what mon.$x isolated: the writer's writes are acknowledged" \
	    acks_grow "$before"
	mm1 "$L" osd pool create "maj$x" 4
	check "$what mon.$x isolated: the majority's leader acknowledges" \
	    [ "$rc" -eq 0 ]
	mm1 "$L" -f json quorum_status
	check "$what mon.$x isolated: the leader counts two in quorum" \
	    [ "$("$JG" quorum.# <"$T/out")" = 2 ]
	sleep 1
	at=$(applied "$L")
	t_heal=$(now_ms)
	heal "$x"
	check "$what mon.$x healed: the leader counts three in quorum" \
	    in_quorum 3
	check "$what mon.$x healed: it applies what the leader had ($at)" \
	    caught_up "$x" "$at"
	t_conv=$(now_ms)
	echo "# $what mon.$x healed: back in quorum and caught up after" \
	    "$((t_conv - t_heal)) ms"
	mm1 "$x" osd pool ls
	check "$what mon.$x healed: it has the majority's write" \
	    grep -qx "maj$x" "$T/out"
	check "$what mon.$x healed: its refused write is nowhere" \
	    sh -c '! grep -qx "iso$1" "$0"' "$T/out" "$x"
}

# link_cut X: only the link between follower X and the leader is cut; X
# still reaches the other follower, which still hears the leader.
link_cut() {
	local x=$1 term before at
	mm1 "$L" -f json quorum_status
	term=$("$JG" election_epoch <"$T/out")
	before=$(acked)
	route add "$x" "$L"
	route add "$L" "$x"
	check "link mon.$x-mon.$L cut: mon.$x knows no leader" no_leader "$x"
	mm1 "$x" --connect-timeout 1 osd pool create "cut$x" 4
	check "link mon.$x-mon.$L cut: mon.$x refuses a write: EAGAIN" \
	    sh -c '[ "$0" -eq 11 ] && grep -q "no quorum" "$1"' "$rc" "$T/err"
	check "link mon.$x-mon.$L cut: the writer's writes are acknowledged" \
	    acks_grow "$before"
	sleep 1
	mm1 "$L" -f json quorum_status
	check "link mon.$x-mon.$L cut: mon.$L still leads, in term $term" \
	    sh -c '[ "$("$0" quorum_leader_name <"$1")" = "$2" ] &&
		[ "$("$0" election_epoch <"$1")" = "$3" ]' \
	    "$JG" "$T/out" "$L" "$term"
	at=$(applied "$L")
	route del "$x" "$L"
	route del "$L" "$x"
	check "link mon.$x-mon.$L healed: the leader counts three in quorum" \
	    in_quorum 3
	check "link mon.$x-mon.$L healed: mon.$x applies what the leader had" \
	    caught_up "$x" "$at"
}

run_backend() {
	set_backend "$1"
	write_confs
	check "mkfs of a" "$MAPMOND" -c "$D/a.conf" --mkfs
	check "mkfs of b and c from a's monmap and keyring" \
	    sh -c '"$0" -c "$1/b.conf" --mkfs --monmap "$1/a/monmap" \
		--keyring "$1/keyring" && "$0" -c "$1/c.conf" --mkfs \
		--monmap "$1/a/monmap" --keyring "$1/keyring"' "$MAPMOND" "$D"
	for x in $NAMES; do start "$x"; done
	check "three monitors in three namespaces elect a leader" \
	    wait_leader_among $NAMES
	check "the leader counts three in quorum" in_quorum 3

	: >"$D/acked"
	rm -f "$T/stop"
	writer &
	WPID=$!
	check "the writer's first write is acknowledged" acks_grow 0
	partition "$L" leader
	wait_leader_among $NAMES
	for x in $NAMES; do [ "$x" != "$L" ] && F=$x; done
	partition "$F" follower
	wait_leader_among $NAMES
	for x in $NAMES; do [ "$x" != "$L" ] && F=$x; done
	link_cut "$F"
	touch "$T/stop"
	wait "$WPID"
	WPID=
	check "the writer had $(acked) writes acknowledged" [ "$(acked)" -gt 2 ]
	check "the three converge at the end" converged
	for x in $NAMES; do
		mm1 "$x" osd pool ls
		DIAG=$(sort "$D/acked" | comm -23 - <(sort "$T/out"))
		check "every acknowledged pool is on mon.$x" [ -z "$DIAG" ]
		DIAG=
	done
	stores_agree $NAMES
	check_sanitizers
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
