#!/bin/bash
# mon_quorum.sh: three monitors on loopback replicating every commit
# (mapmond(8), QUORUM), end to end, once per store backend.  Speaks TAP.
# Needs $top_builddir.
#
#   - mapmond --mkfs of the first monitor, then of the two others from its
#     monmap and keyring; a quorum beyond loopback with [auth] required off
#     is refused;
#   - a monitor c made with another mon. key never joins a and b, which
#     elect and serve without it, and every side logs why the links are
#     refused (mapmon-protocol(7), PEER CONNECTIONS); the real c replaces
#     it, and the three elect a leader (quorum_status, mon stat, status);
#   - a write sent to a follower is forwarded to the leader and answered
#     by the follower once applied there (counted in its perf dump and
#     /metrics): the next read on it sees the write; linearizable reads on a follower and the leader; caps are
#     checked on the follower and again on the leader, for the client's
#     entity (mon forward is mon.'s alone);
#   - a writer creates pools through `mapmon -m a,b,c` and records every
#     acknowledged one, while the leader is killed with SIGKILL
#     $QUORUM_KILLS times (5 unless set): after each kill the survivors
#     elect a leader and acknowledge writes again, MON_DOWN names the dead
#     one, and it is restarted and rejoins;
#   - meanwhile a subscriber of the client library (hunt_listen) and
#     `mapmon -w`, both started on the first leader, lose their monitor,
#     hunt for another and carry on with every osdmap epoch, pgmap
#     version and log entry once, in order; three simulated OSDs started
#     there too carry on reporting;
#   - with two monitors killed, the last refuses writes (EAGAIN, "no
#     quorum") and its status says it is out of quorum; restarted, the
#     three elect again;
#   - at the end every acknowledged pool is on every monitor, the three
#     stores are identical record for record (`mapmon-store dump --full`)
#     and each passes `mapmon-store verify`.
# Election timeout 300 ms to save time (QUORUM_ELECTION_TIMEOUT, e.g. 1s,
# the default of mapmon.conf(5), for the figures in BENCHMARKS.md).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
HUNT=$top_builddir/test/e2e/hunt_listen
BENCH=$top_builddir/tools/mapmon-bench
KILLS=${QUORUM_KILLS:-5}
ELECTION_TIMEOUT=${QUORUM_ELECTION_TIMEOUT:-300ms}
QUORUM_TMP=mon_quorum
QUORUM_BG="SIMPID WPID HPID WATCHPID"
MON_CONF="propose_interval = 5ms
max_pg_per_osd = 1000000"
LOG_CONF="debug_mon = 1/5"
. "$top_srcdir/test/lib/quorum_lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# knows_leader X: monitor X names a leader (within 10 s).
names_leader() { ! qs_is "$1" quorum_leader_name ""; }
knows_leader() { within 200 names_leader "$1"; }

# mon_down X: the leader's health detail says MON_DOWN of mon.X.
mon_down() {
	mm1 "$L" health detail
	grep -q "MON_DOWN: 1/3 mons down, quorum" "$T/out" &&
	    grep -q "mon\.$1 (rank" "$T/out"
}

# The subscribers of the kill runs: each lost its monitor and carried on
# on another, with every epoch, version and log entry once, in order.
check_subscribers() {
	local want i
	wait_leader
	mm1 "$L" -f json osd stat
	want=$("$JG" epoch <"$T/out")
	i=0
	while [ "$(awk '$1 == "osdmap" { e = $2 } END { print e }' \
	    "$D/hunt")" != "$want" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill "$HPID" "$WATCHPID"
	wait "$HPID" "$WATCHPID"
	DIAG=$(tail -n 5 "$D/sim")
	check "the OSD simulator lost its monitor and carried on" \
	    sh -c 'grep -q "lost the monitor at" "$0" &&
		grep -q "carrying on with the monitor at" "$0" &&
		kill -0 "$1"' "$D/sim" "$SIMPID"
	check "none of its OSDs was left without a session" \
	    sh -c '! grep -q "no session" "$0"' "$D/sim"
	mm1 "$L" -f json pg stat
	v0=$("$JG" version <"$T/out")
	i=0
	while [ $i -lt 100 ]; do
		mm1 "$L" -f json pg stat
		[ "$("$JG" version <"$T/out")" -gt "$((v0 + 2))" ] && break
		sleep 0.05
		i=$((i + 1))
	done
	v1=$("$JG" version <"$T/out")
	check "its OSDs keep reporting after the kills (pgmap $v0, then $v1)" \
	    [ "$v1" -gt "$((v0 + 2))" ]
	mm1 "$L" -f json osd stat
	check "its three OSDs are up" [ "$("$JG" num_up_osds <"$T/out")" = 3 ]
	kill "$SIMPID"
	wait "$SIMPID"
	SIMPID=
	DIAG=$(grep -c "^lost" "$D/hunt")
	check "hunt_listen lost its monitor and went on ($DIAG times)" \
	    grep -q "^lost" "$D/hunt"
	DIAG=$(awk '$1 == "osdmap" && $3 == "inc" && $2 != e + 1 {
		print "epoch " $2 " after " e } $1 == "osdmap" { e = $2 }' \
	    "$D/hunt" | head -n 3)
	check "its osdmap epochs follow each other, no gap, no repeat" \
	    [ -z "$DIAG" ]
	check "it has every epoch, to the leader's ($want)" \
	    [ "$(awk '$1 == "osdmap" { e = $2 } END { print e }' \
		"$D/hunt")" = "$want" ]
	DIAG=$(awk '$1 == "pgmap" && $3 == "delta" && $2 != v + 1 {
		print "version " $2 " after " v } $1 == "pgmap" { v = $2 }' \
	    "$D/hunt" | head -n 3)
	check "its pgmap versions follow each other, no gap, no repeat" \
	    [ -z "$DIAG" ]
	DIAG=$(awk '$1 == "log" && n && $2 != s + 1 {
		print "seq " $2 " after " s } $1 == "log" { s = $2; n = 1 }' \
	    "$D/hunt" | head -n 3)
	check "its log seqs follow each other, no gap, no repeat" \
	    [ -z "$DIAG" ]
	DIAG=$(cat "$D/watch.err")
	check "mapmon -w lost its monitor and watched through another" \
	    sh -c 'grep -q "lost the monitor at" "$0" &&
		grep -q "watching through the monitor at" "$0"' \
	    "$D/watch.err"
	DIAG=$(while read -r p; do
		n=$(grep -c "pool '$p' created" "$D/watch")
		[ "$n" -eq 1 ] || echo "$p: $n lines"
	done <"$D/acked" | head -n 3)
	check "mapmon -w printed each acknowledged pool's creation once" \
	    [ -z "$DIAG" ]
	DIAG=
}

run_backend() {
	set_backend "$1"
	pick_addrs
	write_confs
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
	# Beyond loopback a quorum needs [auth] required (mapmond(8)).
	sed 's|^\[auth\]$|[auth]\nrequired = false\nallow_insecure = true|
	    s|^bind = .*|bind = 192.0.2.1:6789|
	    s|^mon_host = .*|mon_host = a=192.0.2.1:6789,b=192.0.2.2:6789,c=192.0.2.3:6789|
	    s|^data = .*|data = '"$D"'/insecure|' "$D/a.conf" >"$D/insecure.conf"
	"$MAPMOND" -c "$D/insecure.conf" --mkfs >"$T/out" 2>"$T/err"
	rc=$?
	check "a quorum beyond loopback with [auth] required off is refused" \
	    sh -c '[ "$0" -ne 0 ] && [ ! -e "$2" ] &&
		grep -q "a=192.0.2.1:6789 is not a loopback address and \[auth\] required is off" "$1"' \
	    "$rc" "$T/err" "$D/insecure"

	# A monitor c made with another mon. key (the same name, address and
	# monmap) never joins: each side refuses the other's links, and the
	# logs say why; nothing is applied on it.
	mkdir -p "$D/bad"
	sed "s|^data = .*|data = $D/bad/c|; s|^file = .*|file = $D/bad/c.log|" \
	    "$D/c.conf" >"$D/bad/c.conf"
	awk -v k="$(head -c 32 /dev/urandom | base64)" \
	    '/^\[/ { s = $0 } s == "[mon.]" && $1 == "key" {
		print "\tkey = " k; next } { print }' \
	    "$D/keyring" >"$D/bad/keyring"
	chmod 600 "$D/bad/keyring"
	check "mkfs of a monitor c with another mon. key" \
	    "$MAPMOND" -c "$D/bad/c.conf" --mkfs --monmap "$D/a/monmap" \
	    --keyring "$D/bad/keyring"
	start a
	start b
	"$MAPMOND" -c "$D/bad/c.conf" -f 2>>"$D/bad/c.stderr" &
	echo $! >"$T/$BACKEND.c.pid"
	check "a and b elect a leader beside c of another key" wait_leader
	mm1 "$L" osd pool create beforec 4
	check "a and b acknowledge a write without c" [ "$rc" -eq 0 ]
	sleep 1
	mm1 "$L" -f json quorum_status
	check "c of another key is not in quorum" \
	    [ "$("$JG" quorum.# <"$T/out")" = 2 ]
	mm1 c -f json quorum_status
	check "c of another key knows no leader and applied nothing" \
	    sh -c '[ "$0" -eq 0 ] && [ -z "$("$1" quorum_leader_name <"$2")" ] &&
		[ "$("$1" raft.applied_index <"$2")" = 0 ]' "$rc" "$JG" "$T/out"
	check "c of another key logs that a and b refuse it" \
	    grep -q "quorum: link to mon\.[ab] at .*refused us: authentication as mon\. failed" \
	    "$D/bad/c.log"
	check "the leader logs that it refused c's link, with its address" \
	    grep -q "peer 127\.0\.0\.1:[0-9]* (mon\.): authentication as mon\. failed" \
	    "$D/$L.log"
	check "the leader logs that c refuses its link" \
	    grep -q "quorum: link to mon\.c at $(addr c | sed 's/:[0-9]*$//'):[0-9]*: refused us: authentication as mon\. failed" \
	    "$D/$L.log"
	stop c
	start c
	check "three monitors elect a leader" wait_leader
	check "the real c knows the leader" knows_leader c
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
	# The engine probes its disk with an AIO context of its own at start,
	# where the filesystem takes direct I/O (tmpfs before Linux 6.6 does
	# not): mapmond's syscall() ended it off the loop (quorum_aio.c).
	if dd if=/dev/zero of="$T/direct" bs=4096 count=1 oflag=direct \
	    2>/dev/null; then
		check "the engine's AIO contexts are ended off the loop" \
		    grep -q "^mapmon_quorum_log_contexts_ended_total [1-9]" \
		    "$T/out"
	else
		ok "the engine's AIO contexts are ended off the loop # SKIP $T takes no direct I/O: the engine probes none"
	fi
	rm -f "$T/direct"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$T/out" >"$T/err" 2>&1
		check "promtool check metrics (leader)" [ $? -eq 0 ]
	fi

	for x in $NAMES; do [ "$x" != "$L" ] && F=$x; done
	mm1 "$F" osd pool create viafollower 8
	check "a write sent to follower $F is answered" [ "$rc" -eq 0 ]
	mm1 "$F" -f json perf dump
	check "follower $F forwarded it to the leader itself (perf dump)" \
	    [ "$("$JG" forward.forwarded <"$T/out")" -ge 1 ]
	# Answered once applied where it was sent: the next read there sees
	# it, every time, with no wait.
	bad=0
	for i in 1 2 3 4 5 6; do
		mm1 "$F" osd pool create "ryw$i" 4 || bad=1
		mm1 "$F" osd pool get "ryw$i" size || bad=1
		mm1 "$F" osd pool set "ryw$i" size 2 || bad=1
		mm1 "$F" -f json osd pool get "ryw$i" size || bad=1
		[ "$("$JG" size <"$T/out")" = 2 ] || bad=1
	done
	check "a follower's forwarded write is seen by the next read there" \
	    [ "$bad" -eq 0 ]
	converged
	for x in $NAMES; do
		mm1 "$x" osd pool ls
		check "the follower's write is on mon.$x" \
		    grep -qx viafollower "$T/out"
	done
	mm1 "$F" --linearizable -f json osd pool get ryw6 size
	check "a linearizable read on follower $F" \
	    [ "$rc.$("$JG" size <"$T/out")" = 0.2 ]
	mm1 "$F" -f json perf dump
	check "follower $F asked the leader for a read index (perf dump)" \
	    [ "$("$JG" forward.linearizable_reads <"$T/out")" -ge 1 ]
	fw=$("$JG" forward.forwarded <"$T/out")
	lr=$("$JG" forward.linearizable_reads <"$T/out")
	metrics "$F"
	check "follower $F's /metrics: the same forwarding counters" \
	    sh -c 'grep -qx "mapmon_forward_writes_total $1" "$0" &&
		grep -qx "mapmon_forward_linearizable_reads_total $2" "$0" &&
		grep -q "^mapmon_forward_apply_wait_max_seconds [0-9.]*$" "$0"' \
	    "$T/out" "$fw" "$lr"
	mm1 "$L" --linearizable osd pool ls
	check "a linearizable read on the leader" \
	    sh -c '[ "$0" -eq 0 ] && grep -qx viafollower "$1"' "$rc" "$T/out"

	# Caps: checked on the follower, and again on the leader, which acts
	# for the client's entity, never with more.
	mm1 "$F" auth get-or-create client.ro mon "allow r"
	cp "$T/out" "$D/ro.keyring" && chmod 600 "$D/ro.keyring"
	"$MAPMON" -m "$(addr "$F")" -n client.ro -k "$D/ro.keyring" \
	    osd pool create ro1 4 >"$T/out" 2>"$T/err"
	rc=$?
	check "client.ro (allow r) writing through follower $F: EACCES" \
	    sh -c '[ "$0" -eq 13 ] && grep -q "needs mon .allow rw" "$1"' \
	    "$rc" "$T/err"
	mm1 "$L" raw '{"prefix":"mon forward","entity":"client.ro",
	    "cmd":{"prefix":"osd pool create","pool":"ro2"}}'
	check "mon forward from client.admin: EACCES (mon. only)" \
	    sh -c '[ "$0" -eq 13 ] && grep -q "mon\. only" "$1"' "$rc" "$T/err"
	"$MAPMON" -m "$(addr "$L")" -n mon. -k "$D/keyring" raw \
	    '{"prefix":"mon forward","entity":"client.ro",
	    "cmd":{"prefix":"osd pool create","pool":"ro3"}}' \
	    >"$T/out" 2>"$T/err"
	rc=$?
	check "the leader checks a forward against the client's caps" \
	    sh -c '[ "$0" -eq 13 ] && grep -q "client.ro may not run" "$1"' \
	    "$rc" "$T/err"
	mm1 "$L" osd pool ls
	check "neither refused write made a pool" \
	    sh -c '! grep -q "^ro[123]$" "$0"' "$T/out"

	# Two subscribers that start on the leader, the first to be killed,
	# and hunt for another monitor each time theirs goes: hunt_listen
	# (the client library) and mapmon -w.
	wait_leader
	MAPMON_KEYRING=$D/keyring "$HUNT" "$(addr "$L"),$ALL" >"$D/hunt" \
	    2>"$D/hunt.err" &
	HPID=$!
	"$MAPMON" -m "$(addr "$L"),$ALL" -k "$D/keyring" -w >"$D/watch" \
	    2>"$D/watch.err" &
	WATCHPID=$!
	# And three simulated OSDs whose sessions start there too.
	MAPMON_KEYRING=$D/keyring "$BENCH" osd-sim -m "$(addr "$L"),$ALL" \
	    --osds 3 --interval 200 >"$D/sim" 2>&1 &
	SIMPID=$!
	i=0
	until grep -qs "^osdmap" "$D/hunt" && grep -qs HEALTH "$D/watch" ||
	    [ $i -gt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done

	: >"$D/acked"
	: >"$D/acked.at"
	rm -f "$T/stop"
	pool_writer "$D/acked" &
	WPID=$!
	for k in $(seq 1 "$KILLS"); do
		sleep 0.7
		wait_leader
		old=$L
		kill -KILL "$(pid_of "$old")"
		t0=$(date +%s%N)
		before=$(wc -l <"$D/acked")
		if [ "$k" = 1 ]; then
			# As Ceph's client, mapmon waits out the election
			# (the survivors refuse with "retry": true meanwhile)
			# instead of exiting with their EAGAIN.
			"$MAPMON" -m "$(addr "$old"),$ALL" -k "$D/keyring" \
			    --connect-timeout 10 osd pool create afterkill 4 \
			    >"$T/out" 2>"$T/err"
			rc=$?
			check "kill 1: a write sent at once (the dead leader first) waits for the new one and is acknowledged" \
			    [ "$rc" -eq 0 ]
			mm --linearizable osd pool ls
			check "kill 1: the pool it made is there" \
			    grep -qx afterkill "$T/out"
		fi
		check "kill $k: the survivors elect a leader" wait_leader
		i=0
		while [ "$(wc -l <"$D/acked")" -le "$before" ] && [ $i -lt 200 ]
		do
			sleep 0.05
			i=$((i + 1))
		done
		check "kill $k: writes are acknowledged again" \
		    [ "$(wc -l <"$D/acked")" -gt "$before" ]
		t1=$(sed -n "$((before + 1))p" "$D/acked.at")
		echo "# kill $k of mon.$old at $(date -u -d "@$((t0 / 1000000000))" +%T).$(printf %03d $((t0 / 1000000 % 1000))):" \
		    "next acknowledged write after" \
		    "$(( (${t1:-$(date +%s%N)} - t0) / 1000000 )) ms"
		# Out of quorum once not heard for an election timeout.
		check "kill $k: MON_DOWN names mon.$old" within 100 mon_down "$old"
		start "$old"
		check "kill $k: mon.$old rejoins" in_quorum 3
	done
	touch "$T/stop"
	wait "$WPID"
	WPID=
	check "the writer had $(wc -l <"$D/acked") writes acknowledged" \
	    [ "$(wc -l <"$D/acked")" -gt "$KILLS" ]
	check_subscribers

	# Two of three gone: the last one is out of quorum, and says so.
	wait_leader
	for x in $NAMES; do [ "$x" != "$L" ] && S=$x; done
	for x in $NAMES; do
		[ "$x" != "$S" ] && kill -KILL "$(pid_of "$x")"
	done
	check "mon.$S alone: no leader within 10 s" no_leader "$S"
	mm1 "$S" --connect-timeout 1 osd pool create alone 4
	check "mon.$S alone refuses a write: EAGAIN, no quorum" \
	    sh -c '[ "$0" -eq 11 ] && grep -q "no quorum" "$1"' "$rc" "$T/err"
	mm1 "$S" --connect-timeout 1 --linearizable osd pool ls
	check "mon.$S alone refuses a linearizable read: EAGAIN" \
	    [ "$rc" -eq 11 ]
	mm1 "$S" osd pool ls
	check "mon.$S alone serves a plain read from its applied state" \
	    [ "$rc" -eq 0 ]
	mm1 "$S" status
	check "mon.$S alone: status says it is out of quorum" \
	    grep -q "quorum none: this monitor is out of quorum" "$T/out"
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
	stores_agree $NAMES
	check_sanitizers
	check "nor hunt_listen's or mapmon -w's" \
	    sh -c '! grep -q "Sanitizer\|runtime error" "$0"/hunt.err \
		"$0"/watch.err' "$D"
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
