#!/bin/bash
# ops_signals.sh: mapmond's signals.  Speaks TAP.
#
# SIGTERM (and SIGINT) during heavy PG reporting: exit 0 within 5 s, and
# every change a client saw acknowledged is in the store after a restart
# (test/crash/ackload logs and checks them; the store syncs every commit).
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
	stop_daemon "$sig"
	st=$?
	DIAG=$(tail -n 20 "$log")
	check "$b: SIG$sig during the load: exit 0" test "$st" -eq 0
	check "$b: SIG$sig during the load: gone within 5 s ($STOP_MS ms)" \
	    test "$STOP_MS" -lt 5000
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
