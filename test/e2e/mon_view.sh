#!/bin/bash
# mon_view.sh: every monitor in quorum serves the leader's view of the
# quorum (issue 18; mapmond(8), QUORUM), once per store backend.  Speaks
# TAP.  Needs $top_builddir.
#
#   - three monitors: on each, quorum_status (quorum_names, election_epoch,
#     quorum_leader_name, quorum_age), mon stat, mon dump's quorum and the
#     mon line of `status' say the same: quorum a,b,c; no MON_DOWN;
#   - a follower stopped: within seconds the leader and the other follower
#     both say quorum of the two and raise MON_DOWN "1/3 mons down,
#     quorum X,Y"; restarted, all three agree again, MON_DOWN cleared;
#   - a follower restarted at once (maybe within the election timeout,
#     which the leader's view may not see): all three agree again;
#   - the leader stopped: the survivors agree on the new leader's view
#     and term; the old leader restarted, all three agree.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
QUORUM_TMP=mon_view
KEEP_VAR=VIEW_KEEP
MON_CONF="propose_interval = 5ms"
METRICS=no
. "$top_srcdir/test/lib/quorum_lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# view_of X: what monitor X says of the quorum, on one line in VIEW; the
# quorum_status names in QN, the MON_DOWN summary in DOWN, the age in AGE.
view_of() {
	local ep ln sn dq st
	QN= DOWN= AGE= VIEW=
	mm1 "$1" -f json quorum_status
	[ "$rc" -eq 0 ] || return 1
	QN=$("$JG" quorum_names <"$T/out")
	ep=$("$JG" election_epoch <"$T/out")
	ln=$("$JG" quorum_leader_name <"$T/out")
	AGE=$("$JG" quorum_age <"$T/out")
	mm1 "$1" -f json mon stat
	[ "$rc" -eq 0 ] || return 1
	sn=$("$JG" quorum_names election_epoch <"$T/out" | tr '\n' ' ')
	mm1 "$1" -f json mon dump
	[ "$rc" -eq 0 ] || return 1
	dq=$("$JG" quorum <"$T/out")
	mm1 "$1" -f json health
	[ "$rc" -eq 0 ] || return 1
	DOWN=$("$JG" checks.MON_DOWN.summary.message <"$T/out")
	mm1 "$1" status
	[ "$rc" -eq 0 ] || return 1
	st=$(sed -n 's/^ *mon: \([0-9]* daemons, quorum [^ ]*\).*/\1/p' \
	    "$T/out")
	VIEW="quorum_status $QN epoch $ep leader $ln; mon stat $sn; mon dump"
	VIEW="$VIEW $dq; status $st; MON_DOWN $DOWN"
}

# agree_once NAMES RANKS DOWN X...: every monitor X says quorum NAMES
# (a,b) alike, mon dump ranks RANKS ([0,1]), MON_DOWN summary DOWN
# (empty: none), and quorum ages within a second of each other.
agree_once() {
	local names=$1 ranks=$2 down=$3 x line first= age0= q='"' n
	shift 3
	n=$(echo $NAMES | wc -w)
	DIAG=
	for x in "$@"; do
		view_of "$x" || { DIAG="mon.$x: no answer"; return 1; }
		line=$VIEW
		DIAG="$DIAG mon.$x: $line /"
		[ -n "$first" ] || first=$line
		[ -n "$age0" ] || age0=$AGE
		if [ "$line" != "$first" ]; then
			DIAG="$DIAG not the same"
		elif [ "$QN" != "[$q${names//,/$q,$q}$q]" ]; then
			DIAG="$DIAG not quorum $names"
		elif [ "${line#*"mon dump $ranks;"}" = "$line" ]; then
			DIAG="$DIAG not ranks $ranks"
		elif [ "${line#*"status $n daemons, quorum $names;"}" = "$line" ]
		then
			DIAG="$DIAG status not quorum $names"
		elif [ "$DOWN" != "$down" ]; then
			DIAG="$DIAG MON_DOWN not '$down'"
		elif [ $((AGE - age0)) -gt 1 ] || [ $((age0 - AGE)) -gt 1 ]
		then
			DIAG="$DIAG age $AGE, not $age0"
		else
			continue
		fi
		return 1
	done
}
# agree ...: agree_once within 60 s (a try asks each monitor five
# times: counted in seconds, not tries).
agree() {
	local end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		agree_once "$@" && return 0
		sleep 0.1
	done
	return 1
}

# The ranks and names of the monitors other than X, as a,b and [0,1].
others() {
	local x n= r= i=0
	for x in $NAMES; do
		if [ "$x" != "$1" ]; then
			n=$n${n:+,}$x
			r=$r${r:+,}$i
		fi
		i=$((i + 1))
	done
	ON=$n OR="[$r]"
}

run_backend() {
	quorum_up "$1" "mkfs of the three monitors"
	check "three monitors elect a leader" wait_leader
	check "every monitor says quorum a,b,c alike, no MON_DOWN" \
	    agree a,b,c "[0,1,2]" "" $NAMES
	F1=$(for x in $NAMES; do [ "$x" != "$L" ] && echo "$x"; done |
	    head -n 1)
	F2=$(for x in $NAMES; do [ "$x" != "$L" ] && echo "$x"; done |
	    tail -n 1)

	stop "$F1"
	others "$F1"
	check "$F1 stopped: the leader $L and $F2 say quorum $ON and raise MON_DOWN" \
	    agree "$ON" "$OR" "1/3 mons down, quorum $ON" "$L" "$F2"
	start "$F1"
	check "$F1 restarted: all three agree again, MON_DOWN cleared" \
	    agree a,b,c "[0,1,2]" "" $NAMES

	stop "$F2"
	start "$F2"
	check "$F2 restarted at once: all three agree again" \
	    agree a,b,c "[0,1,2]" "" $NAMES

	OLD=$L
	stop "$OLD"
	check "the survivors elect a new leader" wait_leader
	others "$OLD"
	S=$(for x in $NAMES; do [ "$x" != "$L" ] && [ "$x" != "$OLD" ] &&
	    echo "$x"; done)
	check "the new leader $L and $S agree on its view and term" \
	    agree "$ON" "$OR" "1/3 mons down, quorum $ON" "$L" "$S"
	start "$OLD"
	check "the old leader restarted: all three agree again" \
	    agree a,b,c "[0,1,2]" "" $NAMES
	DIAG=
	stop_all $NAMES
	check_sanitizers "no monitor's stderr has a sanitizer report"
}

for be in ${VIEW_BACKENDS:-lmdb leveldb}; do
	run_backend "$be"
done
done_testing
