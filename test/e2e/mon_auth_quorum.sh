#!/bin/bash
# mon_auth_quorum.sh: with three monitors, `auth rotate' and `auth rm'
# end the entity's sessions on every monitor, not only on the leader that
# took the command (issue 17; mapmond(8), AUTHENTICATION), once per store
# backend.  Speaks TAP.  Needs $top_builddir.
#
#   - `mapmon -w' as client.w, on a follower: the key rotated through the
#     leader, its session there ends (the follower applied the commit and
#     closed it), a new connection with the old key is refused there
#     (exit 13), the new key works there;
#   - hunt_listen (the client library) as client.h, on a follower only:
#     the entity removed through the leader, its session there ends and
#     the old key is refused there;
#   - the follower's log says it closed them;
#   - an entity rotating its own key through a follower gets the answer
#     (its new key) before its session there closes.
# Without the close on apply, both subscribers on the follower carry on:
# the leader alone closed its own sessions of the entity.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/tap_lib.sh"
HUNT=$top_builddir/test/e2e/hunt_listen
QUORUM_TMP=mon_auth_quorum
KEEP_VAR=AUTHQ_KEEP
QUORUM_BG="WATCHPID HPID"
MON_CONF="propose_interval = 5ms"
METRICS=no
. "$top_srcdir/test/lib/quorum_lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 picks the ports"

# gone PID: the process has exited (within 10 s).
not_alive() { ! kill -0 "$1" 2>/dev/null; }
gone() { within 200 not_alive "$1"; }
# as NAME KEYRING X ARGS...: mapmon as NAME against monitor X only.
as() {
	local name=$1 kr=$2 x=$3
	shift 3
	"$MAPMON" -m "$(addr "$x")" -n "$name" -k "$kr" --connect-timeout 5 \
	    "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# keyring NAME FILE: NAME made through the leader with mon 'allow r'.
keyring() {
	mm1 "$L" auth get-or-create "$1" mon 'allow r'
	cp "$T/out" "$2"
	chmod 600 "$2"
}
# lines_in FILE PATTERN: a line of FILE matches (within 10 s).
has_line() { grep -q -- "$2" "$1" 2>/dev/null; }
lines_in() { within 200 has_line "$1" "$2"; }

run_backend() {
	quorum_up "$1" "mkfs of three monitors"
	check "three monitors elect a leader" wait_leader
	check "the leader counts three in quorum" in_quorum 3
	for x in $NAMES; do [ "$x" != "$L" ] && F=$x; done

	# Rotation: mapmon -w on follower F.
	keyring client.w "$D/w.old"
	check "client.w made through the leader $L" [ "$rc" -eq 0 ]
	check "follower $F has applied it" same_applied $NAMES
	"$MAPMON" -m "$(addr "$F")" -n client.w -k "$D/w.old" -w \
	    >"$D/watch" 2>"$D/watch.err" &
	WATCHPID=$!
	check "mapmon -w as client.w watches through follower $F" \
	    lines_in "$D/watch" HEALTH
	check "... and is still running" kill -0 "$WATCHPID"
	mm1 "$L" auth rotate client.w
	cp "$T/out" "$D/w.new"
	chmod 600 "$D/w.new"
	check "auth rotate client.w through the leader $L" [ "$rc" -eq 0 ]
	DIAG="watch: $(tail -n 3 "$D/watch.err")"
	check "its session on follower $F ends" gone "$WATCHPID"
	DIAG=
	kill "$WATCHPID" 2>/dev/null
	wait "$WATCHPID" 2>/dev/null
	WATCHPID=
	check "follower $F logs that it closed it" \
	    lines_in "$D/$F.log" "auth: closed 1 connection of client.w"
	same_applied $NAMES
	as client.w "$D/w.old" "$F" status
	check "the old key is refused on follower $F (exit 13)" \
	    sh -c '[ "$0" -eq 13 ] && grep -q "authentication failed" "$1"' \
	    "$rc" "$T/err"
	sleep 0.6 # the address's delay after a failure
	as client.w "$D/w.new" "$F" status
	check "the new key works on follower $F" [ "$rc" -eq 0 ]

	# An entity that rotates its own key through follower F: the
	# follower applies the commit before it has the leader's answer to
	# pass on, and the session waits for it, so the new key is not lost.
	mm1 "$L" auth get-or-create client.self mon 'allow *'
	cp "$T/out" "$D/self.old"
	chmod 600 "$D/self.old"
	same_applied $NAMES
	as client.self "$D/self.old" "$F" auth rotate client.self
	cp "$T/out" "$D/self.new"
	chmod 600 "$D/self.new"
	DIAG="exit $rc: $(cat "$T/err")"
	check "client.self rotating itself through follower $F gets its answer" \
	    sh -c '[ "$0" -eq 0 ] && grep -q "^\[client.self\]$" "$1"' \
	    "$rc" "$D/self.new"
	DIAG=
	check "... a new key" sh -c '! cmp -s "$0" "$1"' "$D/self.old" \
	    "$D/self.new"
	check "... and its session there closed after the answer" \
	    lines_in "$D/$F.log" "auth: closed 1 connection of client.self"
	sleep 0.6
	as client.self "$D/self.new" "$F" status
	check "... which works on follower $F" [ "$rc" -eq 0 ]

	# Removal: hunt_listen on follower F only.
	keyring client.h "$D/h.keyring"
	check "client.h made through the leader $L" [ "$rc" -eq 0 ]
	same_applied $NAMES
	MAPMON_NAME=client.h MAPMON_KEYRING=$D/h.keyring "$HUNT" \
	    "$(addr "$F")" >"$D/hunt" 2>"$D/hunt.err" &
	HPID=$!
	check "hunt_listen as client.h subscribes on follower $F" \
	    lines_in "$D/hunt" "^osdmap"
	check "... with one session" \
	    [ "$(grep -c "^connected" "$D/hunt")" -eq 1 ]
	mm1 "$L" auth rm client.h
	check "auth rm client.h through the leader $L" [ "$rc" -eq 0 ]
	DIAG="hunt: $(tail -n 3 "$D/hunt"; tail -n 3 "$D/hunt.err")"
	check "its session on follower $F ends" \
	    lines_in "$D/hunt" "^lost $(addr "$F")"
	DIAG=
	check "follower $F logs that it closed it" \
	    lines_in "$D/$F.log" "auth: closed 1 connection of client.h"
	sleep 1
	check "... and it never had another" \
	    [ "$(grep -c "^connected" "$D/hunt")" -eq 1 ]
	kill "$HPID"
	wait "$HPID" 2>/dev/null
	HPID=
	same_applied $NAMES
	as client.h "$D/h.keyring" "$F" status
	check "the removed entity is refused on follower $F (exit 13)" \
	    [ "$rc" -eq 13 ]
	stop_all $NAMES
	check_sanitizers
	check "nor mapmon -w's or hunt_listen's" \
	    sh -c '! grep -q "Sanitizer\|runtime error" "$0"/hunt.err \
		"$0"/watch.err' "$D"
}

for be in ${AUTHQ_BACKENDS:-lmdb leveldb}; do
	run_backend "$be"
done
done_testing
