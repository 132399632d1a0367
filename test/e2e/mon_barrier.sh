#!/bin/bash
# mon_barrier.sh: a leader whose barrier fails appends it again every
# second until one commits, then serves writes (mapmond(8), Commits;
# daemon/quorum.c, quorum_barrier_send()).  Speaks TAP.  Needs
# $top_builddir.
#
# The monitors are test/e2e/mapmond_failpoint, mapmond with a failpoint
# (test/e2e/failpoint_barrier.c): each fails the first FAILS barriers it
# appends, refused at once and failed in their callback in turn.  A real
# refusal needs the disks of most monitors full as their log segments run
# out.
#   - three monitors elect a leader; a write is acknowledged, once its
#     FAILS barriers have failed and the next committed; its log says the
#     first failure and the commit after FAILS;
#   - the leader stopped: the new leader's own FAILS barriers fail, and a
#     write is acknowledged again;
#   - no sanitizer report, no crash.
# Without the retry, a leader whose barrier failed never serves a write.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
QUORUM_TMP=mon_barrier
KEEP_VAR=BARRIER_KEEP
MON_CONF="propose_interval = 5ms"
METRICS=no
MAPMOND=$top_builddir/test/e2e/mapmond_failpoint
. "$top_srcdir/test/lib/quorum_lib.sh"
lsan_pass_libraft
FAILS=3
export MAPMON_FAILPOINT_BARRIERS=$FAILS

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# acked NAME: pool NAME created through any monitor, within 30 s (each
# failed barrier costs a second).
create_ok() { mm osd pool create "$1" 4 && [ "$rc" -eq 0 ]; }
acked() { within 600 create_ok "$1"; }

# failed_then_committed X: monitor X's log says its barrier failed, once
# for the first failure, and committed after FAILS.
failed_then_committed() {
	local log=$D/$1.log
	DIAG=$(grep 'the barrier of term' "$log" | tail -n 3 | tr '\n' '/')
	[ "$(grep -c 'the barrier of term [0-9]*: .*(failpoint) (failed 1 time; tried again every second)' "$log")" -eq 1 ] &&
	    grep -q "the barrier of term [0-9]* committed after $FAILS failures" \
		"$log"
}

# pools_are LIST: osd pool ls answers LIST, one name and a space each.
pools_are() {
	mm osd pool ls && [ "$rc" -eq 0 ] &&
	    [ "$(tr '\n' ' ' <"$T/out")" = "$1" ]
}

run_backend() {
	local old
	quorum_up "$1" "three monitors made"
	check "three monitors elect a leader" wait_leader
	check "a write is acknowledged once $FAILS barriers failed" acked p1
	check "mon.$L's log says its barrier failed, then committed" \
	    failed_then_committed "$L"
	old=$L
	stop "$old"
	check "mon.$old stopped: the survivors elect a leader" wait_leader
	check "a write is acknowledged once the new leader's failed too" \
	    acked p2
	check "mon.$L's log says its barrier failed, then committed" \
	    failed_then_committed "$L"
	check "both pools are there" pools_are "p1 p2 "
	DIAG=
	stop_all $NAMES
	check_sanitizers "no monitor's stderr has a sanitizer report"
	check "no monitor's log has a crash" \
	    sh -c '! grep -q "caught signal" "$0"/*.log' "$D"
}

for be in ${BARRIER_BACKENDS:-lmdb}; do
	run_backend "$be"
done
done_testing
