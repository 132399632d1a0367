#!/bin/bash
# ops_signals.sh: mapmond's signals.  Speaks TAP.
#
# SIGTERM (and SIGINT) during heavy PG reporting: exit 0 within 5 s, and
# every change a client saw acknowledged is in the store after a restart
# (test/crash/ackload logs and checks them; the store syncs every commit).
# Large work: a pool of 65,536 PGs made and deleted while another
# connection asks `status' all along (every one answered; the counts right
# after each step, after a restart and in `mapmon-store verify'), then
# SIGTERM while another is being made: exit 0 within 5 s, and the
# restarted monitor has the whole pool or none of it (the whole pool when
# its creation was acknowledged).
# SIGHUP: a changed debug level shows in `mapmon config get`; a changed
# restart-only key is logged as such; a bad file keeps the running config
# and the daemon serving; the log file is reopened (logrotate).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/test/lib/ops_lib.sh"

ACKLOAD=$top_builddir/test/crash/ackload
[ -x "$ACKLOAD" ] || skip_all "test/crash/ackload is not built"

# loader_gone STATUS: ackload ended because the monitor went (3): it
# counts the ESHUTDOWN answers ("the monitor is stopping") of requests that
# came in while the last answers drained apart, and nothing as unexpected.
loader_gone() {
	[ "$1" -eq 3 ] && ! grep -q 'unexpected reply' "$T/ackload.out"
}

# stopped_in_time DESC SIG LOG: stop the daemon with SIG: it exits 0
# within 5 s (two cases, named after DESC; LOG is shown when one fails).
stopped_in_time() {
	local st
	stop_daemon "$2"
	st=$?
	DIAG=$(tail -n 20 "$3")
	check "$1: exit 0" test "$st" -eq 0
	check "$1: gone within 5 s ($STOP_MS ms)" test "$STOP_MS" -lt 5000
	DIAG=
}

# load_and_stop BACKEND SIG: load a daemon, stop it with SIG mid-load,
# restart it and check what was acknowledged.
load_and_stop() {
	local b=$1 sig=$2 conf=$T/$1.conf log=$T/$1.log acklog=$T/$1.$2.ack
	local st lst
	mkconf "$conf" "$T/$b"
	# Durable commits: what was acknowledged must survive.
	sed -i "s/^sync = none\$/sync = commit\\nbackend = $b/" "$conf"
	[ -d "$T/$b/store" ] || check "$b: mkfs" mkfs "$conf"
	check "$b: daemon starts" start_daemon "$conf" "$log"
	"$ACKLOAD" load -m "$ADDR" -l "$acklog" -t 30 -r 4 -g 2048 -b 256 \
	    -w 4 >"$T/ackload.out" 2>&1 &
	local apid=$!
	PIDS="$PIDS $apid"
	# Wait until the load is well under way: acknowledged PG reports.
	local i
	for i in $(seq 1 100); do
		[ "$(cat "$acklog" 2>/dev/null | grep -c '^pgs ')" -ge 200 ] && break
		sleep 0.05
	done
	DIAG=$(tail -n 5 "$T/ackload.out")
	check "$b: ackload has PG reports acknowledged before SIG$sig" \
	    test "$(cat "$acklog" 2>/dev/null | grep -c '^pgs ')" -ge 200
	stopped_in_time "$b: SIG$sig during the load" "$sig" "$log"
	check "$b: SIG$sig: the log says it stopped" \
	    grep -q 'mapmond stopped$' "$log"
	wait "$apid"
	lst=$?
	DIAG=$(tail -n 5 "$T/ackload.out")
	check "$b: the loader saw the monitor go, with no refusal but ESHUTDOWN" \
	    loader_gone "$lst"
	check "$b: restart after SIG$sig" start_daemon "$conf" "$log"
	"$ACKLOAD" check -m "$ADDR" -l "$acklog" >"$T/check.out" 2>&1
	st=$?
	DIAG=$(tail -n 20 "$T/check.out")
	check "$b: every acknowledged change is there after SIG$sig" \
	    test "$st" -eq 0
	DIAG=
	stop_daemon
	check "$b: idle SIGTERM: exit 0 ($STOP_MS ms)" test $? -eq 0 -a \
	    "$STOP_MS" -lt 5000
}
load_and_stop lmdb TERM
load_and_stop leveldb TERM
load_and_stop lmdb INT

# Large work.  800 OSDs up and in: enough for Ceph's max_pg_per_osd (250)
# to allow one pool of 65,536 PGs of size 3 at a time.
BENCH=$top_builddir/tools/mapmon-bench
MSTORE=$top_builddir/tools/mapmon-store
JG=$top_builddir/test/lib/json_get
jv() { "$JG" "$1" <"$T/out"; }		# jv PATH: of the last mm -f json
num_pgs() { mm -f json pg stat && jv num_pgs; }
# status_loop FILE: `mapmon status' again and again, a line per answer.
status_loop() {
	while :; do
		if "$MAPMON" -m "$ADDR" --connect-timeout 2 status >/dev/null \
		    2>&1; then echo answered; else echo failed; fi
	done >"$1"
}
# mm_long ARGS...: as mm, with a minute for the answer (a commit of 65,536
# PGs takes seconds under a sanitizer).
mm_long() {
	"$MAPMON" -m "$ADDR" --connect-timeout 60 "$@" >"$T/out" 2>"$T/err"
}
# pool_pg_num NAME: its pg_num, or 0 when there is no such pool.
pool_pg_num() {
	mm -f json osd pool get "$1" pg_num || { echo 0; return; }
	jv pg_num
}
large_work() {
	local b=$1 conf=$T/big$1.conf log=$T/big$1.log spid cpid crc cnt i
	mkconf "$conf" "$T/big$b" "[mon]" "mon_allow_pool_delete = true"
	sed -i "s/^sync = none\$/sync = commit\\nbackend = $b/" "$conf"
	check "$b large: mkfs" mkfs "$conf"
	check "$b large: daemon starts" start_daemon "$conf" "$log"
	# Every OSD up (a key and a session each first: seconds under a
	# sanitizer on a busy machine), then the clean stop of SIGTERM, which
	# marks them all down and leaves them in.
	"$BENCH" osd-sim -m "$ADDR" --osds 800 --duration 300 >"$T/sim.out" \
	    2>&1 &
	cpid=$!
	PIDS="$PIDS $cpid"
	for i in $(seq 1 1200); do
		grep -q "osd-sim: 800 osds up" "$T/sim.out" && break
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.1
	done
	kill -TERM "$cpid" 2>/dev/null
	wait "$cpid"
	PIDS=${PIDS% "$cpid"}
	mm -f json osd stat
	DIAG="after $i polls 0.1 s apart: $(tail -n 5 "$T/sim.out")"
	check "$b large: 800 OSDs up and in" test "$(jv num_in_osds)" = 800
	DIAG=
	status_loop "$T/status.$b" &
	spid=$!
	PIDS="$PIDS $spid"
	check "$b large: a pool of 65,536 PGs made" \
	    mm_long osd pool create big 65536
	check "$b large: ... all its PGs counted" test "$(num_pgs)" = 65536
	check "$b large: ... and deleted" \
	    mm_long osd pool delete big big --yes-i-really-really-mean-it
	check "$b large: ... none left" test "$(num_pgs)" = 0
	check "$b large: another made" mm_long osd pool create big2 65536
	check "$b large: ... counted" test "$(num_pgs)" = 65536
	kill "$spid"
	wait "$spid" 2>/dev/null
	cnt=$(grep -c answered "$T/status.$b")
	DIAG="$cnt answered, $(grep -c failed "$T/status.$b") failed"
	check "$b large: status answered all along ($cnt times)" \
	    test "$cnt" -gt 0 -a "$(grep -c failed "$T/status.$b")" -eq 0
	DIAG=
	stop_daemon
	check "$b large: SIGTERM: exit 0" test $? -eq 0
	check "$b large: mapmon-store verify" "$MSTORE" -c "$conf" verify
	check "$b large: restart" start_daemon "$conf" "$log"
	check "$b large: after the restart, the PGs of the pool left" \
	    test "$(num_pgs)/$(pool_pg_num big)/$(pool_pg_num big2)" = \
	    65536/0/65536
	check "$b large: ... which is deleted" \
	    mm_long osd pool delete big2 big2 --yes-i-really-really-mean-it

	# SIGTERM while a pool of 65,536 PGs is being made (the only one:
	# two would be more than max_pg_per_osd allows on 800 OSDs).
	"$MAPMON" -m "$ADDR" --connect-timeout 60 osd pool create big3 65536 \
	    >"$T/big3.out" 2>&1 &
	cpid=$!
	sleep 0.1
	stopped_in_time "$b large: SIGTERM during the creation" TERM "$log"
	wait "$cpid"
	crc=$?
	check "$b large: ... restart" start_daemon "$conf" "$log"
	cnt=$(pool_pg_num big3)
	DIAG="create exit $crc; big3 pg_num $cnt; $(num_pgs) PGs"
	check "$b large: the whole new pool or none of it" \
	    test "$cnt/$(num_pgs)" = 65536/65536 -o "$cnt/$(num_pgs)" = 0/0
	check "$b large: the whole pool if its creation was acknowledged" \
	    test "$crc" -ne 0 -o "$cnt" = 65536
	DIAG=
	stop_daemon
	check "$b large: mapmon-store verify after it" \
	    "$MSTORE" -c "$conf" verify
}
large_work lmdb
large_work leveldb

# SIGHUP.
CONF=$T/hup.conf
LOG=$T/hup.log
FLOG=$T/hup.file.log
write_conf() {	# write_conf DEBUG_MON MAX_CONNECTIONS [EXTRA]
	mkconf "$CONF" "$T/hup" "[log]" "file = $FLOG" "debug_mon = $1" \
	    "${3:-}"
	sed -i "s/^\\[store\\]\$/max_connections = $2\\n[store]/" "$CONF"
}
write_conf 1/5 1024
check "SIGHUP: mkfs" mkfs "$CONF"
# -d would log to stderr: -f, so that [log] file is used and its reopen
# can be seen.
"$MAPMOND" -f -c "$CONF" 2>>"$LOG" &
DPID=$!
for i in $(seq 1 100); do
	PORT=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' \
	    "$FLOG" 2>/dev/null | tail -n 1)
	[ -n "$PORT" ] && break
	sleep 0.05
done
ADDR=127.0.0.1:$PORT
check "SIGHUP: daemon -f logs to [log] file" test -n "$PORT"
check "config get log.debug_mon before" mm config get log.debug_mon
check "... is 1/5" grep -q '1/5' "$T/out"

write_conf 7/9 1024
kill -HUP "$DPID"
for i in $(seq 1 100); do
	grep -q 'reload done' "$FLOG" && break
	sleep 0.05
done
check "SIGHUP: the daemon logs the reload" grep -q 'reload done' "$FLOG"
check "SIGHUP: config get log.debug_mon answers" \
    mm config get log.debug_mon
DIAG=$(cat "$T/out" "$T/err")
check "SIGHUP: log.debug_mon is now 7/9" grep -q '7/9' "$T/out"
DIAG=
check "SIGHUP: the change is logged with both values" \
    grep -q "log.debug_mon changed from '1/5' to '7/9'" "$FLOG"

# A restart-only key: logged, and the running value kept.
write_conf 7/9 77
kill -HUP "$DPID"
for i in $(seq 1 100); do
	grep -q 'max_connections.*after a restart' "$FLOG" && break
	sleep 0.05
done
check "SIGHUP: a changed restart-only key is named in the log" \
    grep -q "mon.max_connections changed from '1024' to '77'; it takes effect after a restart" "$FLOG"
mm config get mon.max_connections
check "... and keeps its running value" grep -q '1024' "$T/out"

# A bad file: the old config stays, the daemon serves, the log says why.
cp "$CONF" "$T/good.conf"
printf '[mon]\npg_stale_timeout = banana\nno_such_key = 1\n' >>"$CONF"
write_bad_lines=$(wc -l <"$CONF")
kill -HUP "$DPID"
for i in $(seq 1 100); do
	grep -q 'reload failed' "$FLOG" && break
	sleep 0.05
done
check "SIGHUP with a bad file: the daemon says the reload failed" \
    grep -q 'reload failed; keeping the running config' "$FLOG"
DIAG=$(tail -n 8 "$FLOG")
check "... naming FILE:LINE of the bad value" \
    grep -q "$CONF:$((write_bad_lines - 1)): .*banana" "$FLOG"
check "... and of the unknown key" \
    grep -q "$CONF:$write_bad_lines: .*no_such_key" "$FLOG"
DIAG=
check "SIGHUP with a bad file: the daemon still serves" mm status
mm config get log.debug_mon
check "SIGHUP with a bad file: the running config is kept" \
    grep -q '7/9' "$T/out"
kill -0 "$DPID"
check "SIGHUP with a bad file: the daemon is alive" test $? -eq 0

# logrotate: the file is moved away; SIGHUP opens a new one at the path.
cp "$T/good.conf" "$CONF"
mv "$FLOG" "$FLOG.1"
kill -HUP "$DPID"
for i in $(seq 1 100); do
	grep -q 'reopened' "$FLOG" 2>/dev/null && break
	sleep 0.05
done
check "SIGHUP reopens the log file at its path" \
    grep -q "SIGHUP: log file $FLOG reopened" "$FLOG"
check "the moved file kept the lines before the reopen" \
    grep -q 'reload done' "$FLOG.1"
stop_daemon
check "SIGHUP daemon: SIGTERM exit 0" test $? -eq 0
check "... and the new log file has the stop" grep -q 'mapmond stopped' \
    "$FLOG"
check "... not the old one" test "$(grep -c 'mapmond stopped' "$FLOG.1")" \
    -eq 0

check "no sanitizer report from any daemon" sanitizer_clean
done_testing
