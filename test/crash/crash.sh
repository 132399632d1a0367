#!/bin/bash
# crash.sh: kill -9 at any moment loses nothing acknowledged (RELIABILITY.md).
# Speaks TAP.  Needs $top_builddir (and $top_srcdir).
#
# For each backend: mkfs, start mapmond with [store] sync = commit, then
# ITERATIONS times:
#
#  - run test/crash/ackload against it (PG reports and admin commands; it
#    logs every acknowledged change) and SIGKILL the daemon after a random
#    delay; one iteration in five instead kills it a few milliseconds after
#    it was started, while it loads the store or before it listens;
#  - with the daemon dead, read the store offline (mapmon-store export):
#    the osdmap epochs (full maps and incrementals), the pgmap versions and
#    the cluster log are contiguous, and `mapmon-store verify` passes;
#  - restart: the store opens, the monitor answers, its epoch and version
#    are the store's, and `ackload check` finds every change acknowledged
#    so far (in this and every earlier iteration) in the monitor's state.
#
# Environment:
#   ITERATIONS   kills per backend (default 5; the full run uses 50)
#   CRASH_SEED   seed of the random delays (default: from the clock; printed
#                so that a failing run can be repeated)
#   CRASH_MAX_MS longest delay before a kill under load (default 1500)
#   CRASH_PGS    PGs of ackload's base pool (default 4096)
#
# ackload runs with reports of 64 PGs, 16 in flight per reporter: most
# commits then hold more than 1,024 PG updates, which the monitor applies
# a slice per loop turn, so kills land in those too (`perf dump`'s
# sliced_applies counts them: 71 of 122 commits in a 3 s run).
#   BACKENDS     backends to test (default "lmdb leveldb")
#   CRASH_KEEP   keep the temporary directory (logs, stores, ack logs)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
TAP_PER_BACKEND=1
TAP_DIAG_LINES=30
: "${ITERATIONS:=5}"
: "${CRASH_SEED:=$(( $(date +%s) % 32768 ))}"
: "${CRASH_MAX_MS:=1500}"
: "${CRASH_PGS:=4096}"
: "${BACKENDS:=lmdb leveldb}"
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
STORE=$top_builddir/tools/mapmon-store
ACKLOAD=$top_builddir/test/crash/ackload
JG=$top_builddir/test/lib/json_get

T=$(mktemp -d /tmp/crash.XXXXXX) || exit 99
DPID=
APID=
cleanup() {
	for p in $APID $DPID; do
		kill -KILL "$p" 2>/dev/null
	done
	if [ -n "$CRASH_KEEP" ]; then
		echo "# kept $T"
	else
		rm -rf "$T"
	fi
}
trap cleanup EXIT

RANDOM=$CRASH_SEED
echo "# CRASH_SEED=$CRASH_SEED ITERATIONS=$ITERATIONS"


# start_daemon: start mapmond, wait until it answers; ADDR is its address.
start_daemon() {
	mon_start "$CONF" "$DLOG" 300
}

kill_daemon() {
	kill -KILL "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}

# sleep_ms N
sleep_ms() {
	sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"
}

# contiguous EXPORT: the epochs of the full osdmaps ("O") and incrementals
# ("I"), the pgmap versions ("V", several chunks a version) and the log
# sequence numbers ("L") of a mapmon-store export each form one run without
# a gap; prints "epoch E version V" (the last of each).
contiguous() {
	awk '
	function hex(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function see(kind, v, chunked) {
		if (kind in last) {
			if (v == last[kind] && chunked)
				return
			if (v != last[kind] + 1) {
				printf "%s: %d follows %d\n", kind, v, last[kind]
				bad = 1
			}
		} else
			first[kind] = v
		last[kind] = v
		count[kind]++
	}
	/^\{"key":"/ {
		k = substr($0, 9)
		k = substr(k, 1, index(k, "\"") - 1)
		p = substr(k, 1, 2)
		if (p == "4f") see("osdmap", hex(substr(k, 3, 8)), 0)
		else if (p == "49") see("incremental", hex(substr(k, 3, 8)), 0)
		else if (p == "56") see("pgmap", hex(substr(k, 3, 16)), 1)
		else if (p == "4c") see("log", hex(substr(k, 3, 16)), 0)
	}
	END {
		if (!("osdmap" in last) || !("incremental" in last)) {
			print "no osdmap or no incremental"
			exit 1
		}
		if (last["osdmap"] != last["incremental"]) {
			printf "last full map %d, last incremental %d\n",
			    last["osdmap"], last["incremental"]
			bad = 1
		}
		if (bad)
			exit 1
		printf "epoch %d version %d\n", last["osdmap"],
		    ("pgmap" in last) ? last["pgmap"] : 0
	}' "$1"
}

suite() {
	BACKEND=$1
	D=$T/$BACKEND
	CONF=$T/$BACKEND.conf
	DLOG=$T/$BACKEND.log
	ACKLOG=$T/$BACKEND.ack
	mkdir -p "$D"
	cat >"$CONF" <<EOF
[mon]
data = $D
bind = 127.0.0.1:0
propose_interval = 5ms
[auth]
keyring = $D.keyring
[store]
backend = $BACKEND
sync = commit
EOF
	export MAPMON_KEYRING=$D.keyring
	if "$MAPMOND" --mkfs -c "$CONF" >"$T/out" 2>&1; then
		ok "mapmond --mkfs"
	else
		notok "mapmond --mkfs" "$(cat "$T/out")"
		return
	fi
	if start_daemon; then ok "mapmond starts and answers"
	else notok "mapmond starts and answers" "$(tail -n 20 "$DLOG")"; return; fi

	local i delay rc store want have kills=0
	for i in $(seq 1 "$ITERATIONS"); do
		# The kill.
		if [ $((RANDOM % 5)) -eq 0 ]; then
			kill_daemon
			delay=$((RANDOM % 40))
			"$MAPMOND" -d -c "$CONF" 2>>"$DLOG" &
			DPID=$!
			sleep_ms "$delay"
			kill_daemon
			kills=$((kills + 2))
			ok "kill $i: SIGKILL while idle, then ${delay} ms after a start"
		else
			delay=$((RANDOM % CRASH_MAX_MS))
			"$ACKLOAD" load -m "$ADDR" -l "$ACKLOG" -t 600 \
			    -g "$CRASH_PGS" -b 64 -w 16 -s $((RANDOM + 1)) \
			    2>"$T/ackload.err" &
			APID=$!
			sleep_ms "$delay"
			kill_daemon
			kills=$((kills + 1))
			wait "$APID"
			rc=$?
			APID=
			# 3: the monitor went away, as it should; 0 cannot
			# happen (-t 600); 2: it refused a change.
			if [ "$rc" -eq 3 ]; then
				ok "kill $i: SIGKILL ${delay} ms into the load ($(sed -n 's/^ackload: \([0-9]*\) pg reports acknowledged (\([0-9]*\) pg updates), \([0-9]*\) admin changes.*/\1 reports, \2 pg updates, \3 admin changes acknowledged/p' "$T/ackload.err"))"
			else
				notok "kill $i: ackload exited $rc, want 3 (monitor gone)" \
				    "$(cat "$T/ackload.err")"
			fi
		fi

		# The store, offline.
		"$STORE" -c "$CONF" export >"$T/export" 2>"$T/err"
		if store=$(contiguous "$T/export" 2>&1); then
			ok "kill $i: epochs, versions and log contiguous ($store)"
		else
			notok "kill $i: epochs, versions and log contiguous" \
			    "$store
$(cat "$T/err")"
			store=
		fi
		if "$STORE" -c "$CONF" verify >"$T/out" 2>&1; then
			ok "kill $i: mapmon-store verify"
		else
			notok "kill $i: mapmon-store verify" "$(cat "$T/out")"
		fi

		# The restart.
		if start_daemon; then
			ok "restart $i: the store opens and the monitor answers"
		else
			notok "restart $i: the store opens and the monitor answers" \
			    "$(tail -n 20 "$DLOG")"
			return
		fi
		"$MAPMON" -m "$ADDR" -f json status >"$T/status" 2>&1
		have="epoch $("$JG" osdmap.epoch <"$T/status") version $("$JG" pgmap.version <"$T/status")"
		if [ -n "$store" ] && [ "$have" = "$store" ]; then
			ok "restart $i: the monitor's epoch and version are the store's"
		else
			notok "restart $i: the monitor's epoch and version are the store's" \
			    "monitor: $have; store: $store"
		fi
		if [ ! -s "$ACKLOG" ]; then
			ok "restart $i: nothing acknowledged yet"
		elif "$ACKLOAD" check -m "$ADDR" -l "$ACKLOG" >"$T/out" 2>&1; then
			ok "restart $i: every acknowledged change is there ($(sed -n 's/^checked [0-9]* lines: \([0-9]*\) acknowledged changes (\([0-9]*\) pg updates).*/\1 changes, \2 pg updates/p' "$T/out"))"
		else
			notok "restart $i: every acknowledged change is there" \
			    "$(cat "$T/out")"
		fi
	done

	# The checker is not blind: a change the monitor never saw fails it.
	cp "$ACKLOG" "$T/forged"
	echo "pool never-created-$$ exists" >>"$T/forged"
	if "$ACKLOAD" check -m "$ADDR" -l "$T/forged" >"$T/out" 2>&1; then
		notok "ackload check fails on a change that was never made" \
		    "$(cat "$T/out")"
	elif grep -q "VIOLATED: pool never-created-$$ exists" "$T/out"; then
		ok "ackload check fails on a change that was never made"
	else
		notok "ackload check fails on a change that was never made" \
		    "$(cat "$T/out")"
	fi

	kill -TERM "$DPID"
	wait "$DPID"
	rc=$?
	DPID=
	if [ "$rc" -eq 0 ]; then ok "$kills kills, then a clean stop"
	else notok "$kills kills, then a clean stop (exit $rc)" "$(tail -n 20 "$DLOG")"; fi
	echo "# $BACKEND: $kills kills, $(grep -c '' "$ACKLOG" 2>/dev/null) log lines"
}

for b in $BACKENDS; do
	suite "$b"
done
echo "1..$n"
[ "$failed" -eq 0 ]
