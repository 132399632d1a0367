#!/bin/bash
# tools/demo.sh: README command 1 (./dev.sh demo runs it after the build).
#
# A live demo cluster on this machine: three monitors (mapmond a, b and c,
# a quorum replicating every commit, mapmond(8) QUORUM) on LMDB in a local
# folder, six simulated OSDs (mapmon-bench osd-sim) on three hosts, that
# boot at their crush location, peer, heartbeat each other and keep
# reporting changing PG stats, and three pools.  It prints what to type
# next, `osd tree', killing an OSD or a whole host through the simulator's
# control FIFO and killing the leader monitor among it, and runs in the
# foreground until Ctrl-C, which stops the simulator (its OSDs mark
# themselves down) and the monitors cleanly.  See usage() for the options.
set -u

usage() {
	cat <<EOF
usage: tools/demo.sh [BUILD] [--for SECONDS] [--port PORT] [--osds N]
                     [--hosts H]

  BUILD          the build directory (default: ./build beside tools/)
  --for SECONDS  stop after SECONDS once the cluster is up, instead of
                 waiting for Ctrl-C.  Without a terminal on stdin (CI, a
                 pipe) the demo stops after 30 s unless --for says otherwise.
  --port PORT    the first monitor's port on 127.0.0.1 (default 6789; the
                 others PORT+2 and PORT+4, each with the next port for
                 their raft traffic; when one is taken, free ports are used
                 instead; 0: always free ports)
  --osds N       simulated OSDs (default 6)
  --hosts H      the hosts they are spread over, host0 .. (default 3, at
                 most N)

The monitors' data, their generated configs and the logs live in ./demo
beside tools/ (or \$MAPMON_DEMO_DIR).  A second run reuses them: the stores
are made only when they are absent.  Remove the folder to start afresh.
EOF
}

top=$(cd "$(dirname "$0")/.." && pwd)
build=
for_s=
port=6789
osds=6
hosts=3
while [ $# -gt 0 ]; do
	case $1 in
	--for) for_s=${2:-}; shift ;;
	--port) port=${2:-}; shift ;;
	--osds) osds=${2:-}; shift ;;
	--hosts) hosts=${2:-}; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; exit 64 ;;
	*) [ -z "$build" ] || { usage >&2; exit 64; }; build=$1 ;;
	esac
	shift
done
for v in "$for_s" "$port" "$osds" "$hosts"; do
	case $v in
	*[!0-9]*) usage >&2; exit 64 ;;
	esac
done
[ -n "$osds" ] && [ "$osds" -ge 1 ] && [ -n "$port" ] && [ "$port" -le 65535 ] ||
    { usage >&2; exit 64; }
[ -n "$hosts" ] && [ "$hosts" -ge 1 ] || { usage >&2; exit 64; }
[ "$hosts" -le "$osds" ] || hosts=$osds
build=$(cd "${build:-$top/build}" 2>/dev/null && pwd) ||
    { echo "demo: no build directory ${build:-$top/build}" >&2; exit 1; }
MAPMOND=$build/daemon/mapmond
MAPMON=$build/tools/mapmon
BENCH=$build/tools/mapmon-bench
for p in "$MAPMOND" "$MAPMON" "$BENCH"; do
	[ -x "$p" ] || { echo "demo: $p is not built" >&2; exit 1; }
done
if [ -z "$for_s" ] && [ ! -t 0 ]; then
	for_s=30
	nottyfor=1
fi

dir=${MAPMON_DEMO_DIR:-$top/demo}
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)
simlog=$dir/osd-sim.log
ctl=$dir/sim.ctl
NAMES="a b c"

say() { printf '==> %s\n' "$*"; }

# pid_a, pid_b, pid_c: the monitors started.
pid_a= pid_b= pid_c=
SPID=
stopping=
stop() {	# stop RC: the simulator first, then the monitors; exit RC
	local rc=$1 st x pid
	[ -n "$stopping" ] && return
	stopping=1
	trap '' INT TERM
	if [ -n "$SPID" ]; then
		kill -TERM "$SPID" 2>/dev/null
		wait "$SPID" 2>/dev/null
		SPID=
	fi
	for x in $NAMES; do
		eval "pid=\$pid_$x"
		[ -n "$pid" ] || continue
		if ! kill -0 "$pid" 2>/dev/null; then
			# Killed by hand (the leader, as the hints say).
			say "mon.$x (pid $pid) was stopped already"
			wait "$pid" 2>/dev/null
			continue
		fi
		say "stopping mapmond (pid $pid)"
		kill -TERM "$pid" 2>/dev/null
		wait "$pid"
		st=$?
		eval "pid_$x="
		if [ "$st" -ne 0 ]; then
			echo "demo: mapmond of mon.$x exited $st; see" \
			    "$dir/mon-$x.log" >&2
			rc=1
		fi
	done
	[ "$rc" -eq 0 ] && say "stopped; the cluster is kept in $dir"
	exit "$rc"
}
trap 'stop 1' EXIT
trap 'echo; stop 0' INT TERM

# Is something listening on 127.0.0.1:$1?
port_busy() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
# Are the six ports from $1 on (each monitor's and its raft port) free?
ports_free() {
	local q
	for q in $(seq "$1" $(($1 + 5))); do
		port_busy "$q" && return 1
	done
	return 0
}

# A second run takes the ports of the first: they are in the stores'
# monmap.
if [ -e "$dir/mon-a/store" ] && [ -e "$dir/ports" ]; then
	port=$(cat "$dir/ports")
	if ! ports_free "$port"; then
		echo "demo: the ports of this demo's monitors ($port to" \
		    "$((port + 5))) are taken; stop what holds them, or" \
		    "remove $dir to start afresh" >&2
		exit 1
	fi
elif [ "$port" -eq 0 ] || [ "$port" -gt 65530 ] || ! ports_free "$port"; then
	[ "$port" -ne 0 ] &&
	    say "port $port or one of the five after it is taken; using free ports instead"
	for i in $(seq 1 100); do
		port=$((20000 + RANDOM % 10000))
		ports_free "$port" && break
	done
fi
addr_a=127.0.0.1:$port
addr_b=127.0.0.1:$((port + 2))
addr_c=127.0.0.1:$((port + 4))
addrs=$addr_a,$addr_b,$addr_c

# The grace is half the default, so that a killed OSD is marked down
# within a dozen seconds; the simulator reads it from the same file.
for x in $NAMES; do
	eval "a=\$addr_$x"
	cat >"$dir/mon-$x.conf" <<EOF
# Generated by tools/demo.sh on each run; see mapmon.conf(5).
[mon]
name = $x
data = $dir/mon-$x
bind = $a
mon_host = a=$addr_a,b=$addr_b,c=$addr_c
osd_heartbeat_grace = 10s
[auth]
keyring = $dir/client.admin.keyring
[store]
backend = lmdb
EOF
done
conf=$dir/mon-a.conf

if [ -e "$dir/mon-a/store" ]; then
	say "reusing the demo stores in $dir/mon-a, mon-b and mon-c"
else
	say "making three new LMDB stores in $dir/mon-a, mon-b and mon-c"
	rm -rf "$dir/mon-a" "$dir/mon-b" "$dir/mon-c"
	mkdir -p "$dir/mon-a" "$dir/mon-b" "$dir/mon-c"
	# One fsid and monmap: b and c are made from a's, with its keys.
	"$MAPMOND" --mkfs -c "$conf" >/dev/null || exit 1
	for x in b c; do
		"$MAPMOND" --mkfs -c "$dir/mon-$x.conf" \
		    --monmap "$dir/mon-a/monmap" \
		    --keyring "$dir/client.admin.keyring" >/dev/null || exit 1
	done
	echo "$port" >"$dir/ports"
fi
# Every client authenticates: the admin's keyring, written by --mkfs.
export MAPMON_KEYRING="$dir/client.admin.keyring"

for x in $NAMES; do
	log=$dir/mon-$x.log
	[ -f "$log" ] && mv -f "$log" "$log.old"
	say "starting mapmond mon.$x (log: $log)"
	# Each child in a session of its own: Ctrl-C reaches this script
	# alone, which stops the simulator before the monitors.
	setsid "$MAPMOND" -d -c "$dir/mon-$x.conf" 2>"$log" &
	eval "pid_$x=$!"
done
mm() { "$MAPMON" -m "$addrs" "$@"; }
# The leader's name, once the three have elected one (at most 20 s).
leader=
for i in $(seq 1 200); do
	leader=$(mm -f json quorum_status 2>/dev/null |
	    sed -n 's/.*"quorum_leader_name": *"\([a-c]\)".*/\1/p')
	[ -n "$leader" ] && break
	for x in $NAMES; do
		eval "pid=\$pid_$x"
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "demo: mapmond of mon.$x did not start:" >&2
			tail -n 5 "$dir/mon-$x.log" >&2
			exit 1
		fi
	done
	sleep 0.1
done
if [ -z "$leader" ]; then
	echo "demo: the three monitors elected no leader in 20 s; see" \
	    "$dir/mon-*.log" >&2
	exit 1
fi

# Pools, where missing (Ceph's rc 0 for one that exists, on a second run).
for p in "rbd 64" "cephfs.data 32" "cephfs.meta 16"; do
	# shellcheck disable=SC2086
	mm osd pool create $p >/dev/null 2>"$dir/err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "demo: osd pool create $p: $(cat "$dir/err")" >&2
		exit 1
	fi
done
# Each pool's application, as Ceph's rbd and fs tools enable them: a pool
# with objects and none is POOL_APP_NOT_ENABLED (enabling it again is 0).
for p in "rbd rbd" "cephfs.data cephfs" "cephfs.meta cephfs"; do
	# shellcheck disable=SC2086
	if ! mm osd pool application enable $p >/dev/null 2>"$dir/err"; then
		echo "demo: osd pool application enable $p: $(cat "$dir/err")" >&2
		exit 1
	fi
done

say "starting $osds simulated OSDs on $hosts hosts (mapmon-bench osd-sim, log: $simlog)"
[ -f "$simlog" ] && mv -f "$simlog" "$simlog.old"
# Stores of 1 TiB: the simulated clients' writes take most of an hour to
# reach the point where they stop (3/4 full, mapmon-bench(1)).
setsid "$BENCH" osd-sim -c "$conf" -m "$addrs" --osds "$osds" \
    --hosts "$hosts" --osd-size 1T --control "$ctl" >"$simlog" 2>&1 &
SPID=$!

# Wait until every OSD is up and reporting (at most 30 s).
up=0
for i in $(seq 1 300); do
	up=$(mm -f json status 2>/dev/null |
	    sed -n 's/.*"num_up_osds": *\([0-9][0-9]*\).*/\1/p')
	[ "${up:-0}" -ge "$osds" ] && break
	if ! kill -0 "$SPID" 2>/dev/null; then
		echo "demo: the OSD simulator stopped:" >&2
		tail -n 5 "$simlog" >&2
		wait "$SPID" 2>/dev/null
		SPID=
		exit 1
	fi
	sleep 0.1
done
if [ "${up:-0}" -lt "$osds" ]; then
	echo "demo: only ${up:-0} of $osds OSDs came up in 30 s" >&2
	exit 1
fi
sleep 1	# the first reports: PGs peering, then active

m="$build/tools/mapmon"
eval "lpid=\$pid_$leader"
victim=$((osds > 3 ? 3 : osds - 1))
echo
mm -s
cat <<EOF

The monitors listen on $addrs (data in $dir).  Try, in another
terminal (the admin's key, which every client needs, is in its keyring;
MAPMON_MON lists the monitors, which the CLI tries in turn):

    export MAPMON_KEYRING=$MAPMON_KEYRING
    export MAPMON_MON=$addrs

    $m -s
    $m osd tree
    $m osd crush rule dump replicated_rule
    $m pg stat
    $m -w
    $m pg map 1.0
    $m auth ls

(each simulated OSD authenticates as osd.N, with the key the simulator
made for it: mon 'allow profile osd', its own id only).

While -w runs, mark an OSD out and back in from a third terminal, and watch
its PGs peer again:

    $m osd out $((osds - 1))
    $m osd in $((osds - 1))

Kill an OSD: the simulator stops it answering its peers, which report it
to the monitor; once two of them have not heard from it for longer than the
grace ([mon] osd_heartbeat_grace: 10 s in this demo's mapmon.conf, 20 s
by default), -w shows it marked down and its PGs peer again on the others:

    echo 'kill $victim' > $ctl
    $m health detail
    $m pg map 1.0
    echo status > $ctl
    echo 'revive $victim' > $ctl

The OSDs boot on $hosts hosts (osd tree shows them), and the pools' rule
puts each PG's copies on distinct hosts.  Kill a whole host at once: its
PGs keep a copy on each host left, never two on one, until it returns:

    echo 'kill-host host1' > $ctl
    $m osd tree down
    $m health detail
    $m osd map rbd myobject
    echo 'revive-host host1' > $ctl

Three monitors replicate every change; mon.$leader leads now (pid $lpid).
Kill it while -w runs: the other two elect a leader within a couple of
seconds, -w says it lost its monitor and carries on through another, the
simulated OSDs keep reporting, and every command still answers (a change
sent to a follower is forwarded to the leader; one sent during the
election waits for the new leader):

    $m quorum_status
    kill $lpid
    $m -s
    $m health detail

and start it again, to watch it rejoin the quorum:

    setsid $MAPMOND -d -c $dir/mon-$leader.conf 2>>$dir/mon-$leader.log &

The simulator writes what it did and its view ('status') in $simlog.
EOF
if mm df >/dev/null 2>&1; then
	cat <<EOF

What the OSDs store, as they report it in their beacons:

    $m df
    $m osd df
EOF
fi
echo
if [ -n "$for_s" ]; then
	if [ -n "${nottyfor:-}" ]; then
		say "no terminal on stdin: stopping in $for_s s (--for SECONDS)"
	else
		say "stopping in $for_s s"
	fi
else
	say "running; press Ctrl-C to stop the simulator and the monitor"
fi

start=$SECONDS
while :; do
	alive=0
	for x in $NAMES; do
		eval "pid=\$pid_$x"
		kill -0 "$pid" 2>/dev/null && alive=$((alive + 1))
	done
	# One may be killed (the hints say how); with all gone, it is over.
	if [ "$alive" -eq 0 ]; then
		echo "demo: every mapmond stopped; see $dir/mon-*.log" >&2
		exit 1
	fi
	if ! kill -0 "$SPID" 2>/dev/null; then
		echo "demo: the OSD simulator stopped; see $simlog" >&2
		exit 1
	fi
	[ -n "$for_s" ] && [ $((SECONDS - start)) -ge "$for_s" ] && break
	sleep 1
done
echo
mm pg stat
stop 0
