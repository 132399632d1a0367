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
LINCHECK=$top_srcdir/test/lib/lincheck.py
LINCLIENTS=$top_srcdir/test/lib/linclients.py
SECONDS_RUN=${LIN_SECONDS:-8}

command -v python3 >/dev/null 2>&1 || skip_all "python3 runs the checker"

QUORUM_TMP=mon_linearizable
QUORUM_BG=CPID
KEEP_VAR=LIN_KEEP
MON_CONF="propose_interval = 5ms"
METRICS=no
. "$top_srcdir/test/lib/quorum_lib.sh"
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

run_backend() {
	set_backend "$1"
	pick_addrs
	write_confs
	mkfs_quorum $NAMES >/dev/null 2>"$T/err"
	check "mkfs of three monitors" [ $? -eq 0 ]
	for x in $NAMES; do start "$x"; done
	check "they elect a leader" wait_leader
	ok=0
	# mm's outcome is in rc.
	mm osd create && [ "$rc" -eq 0 ] && mm osd create && [ "$rc" -eq 0 ] &&
	    mm osd pool create lin1 4 && [ "$rc" -eq 0 ] &&
	    mm osd pool create lin2 4 && [ "$rc" -eq 0 ] && ok=1
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
	stop_all $NAMES
	check_sanitizers "no sanitizer report from a monitor"
}

for be in lmdb leveldb; do
	run_backend "$be"
done
done_testing
