# quorum_lib.sh: what the scripts that run a quorum of monitors share
# (sourced, not run): test/e2e/mon_*.sh after tap_lib.sh, and
# bench/quorum/lib.sh, which uses only free_ports and mkfs_quorum.
#
# Set before sourcing:
#   NAMES        the monitors' names ("a b c" unless set)
#   QUORUM_TMP   the test's name: when set, a temporary directory T
#                (/tmp/$QUORUM_TMP.XXXXXX) removed at exit, where every
#                monitor started (the *.pid files) is killed; a bench
#                leaves it unset and keeps its own directory
#   QUORUM_BG    names of variables holding the pids of the test's own
#                background programs (a writer, a subscriber...), killed
#                at exit too; they start empty
#   KEEP_VAR     the variable that, set, keeps T to look at (QUORUM_KEEP)
#   DIAG_SKIP    log lines check_diag leaves out (' net ', a grep BRE)
# and for write_confs:
#   ELECTION_TIMEOUT  (300ms)
#   MON_CONF     more [mon] lines, one a line
#   LOG_CONF     more [log] lines
#   METRICS      "no": no [metrics] section (else one on port 0)
#
# Per backend run: BACKEND, D=$T/$BACKEND (set_backend), ADDR_x for each
# monitor x and ALL, the list of them (pick_addrs); a script whose
# monitors are elsewhere than on loopback defines its own addr and ALL.
#
#   free_ports [N]       N (one per monitor) loopback ports P with P+1 (the
#                        raft port) free too
#   mkfs_quorum FIRST OTHER...  FIRST made afresh, the others from its
#                        monmap and keyring (in $D); its status
#   mm ARGS, mm1 X ARGS  mapmon ARGS against all (monitor X): stdout in
#                        $T/out, stderr in $T/err, the exit status in rc
#                        (the function's own status is 0, whatever rc)
#   metrics X            monitor X's /metrics into $T/out
#   quorum_up BACKEND DESC  set_backend, pick_addrs, write_confs, the
#                        monitors made (TAP check DESC) and started
#   start X, stop X, stop_all X..., pid_of X
#   leader, wait_leader (sets L), no_leader X, in_quorum N, applied X,
#   raft X KEY, same_applied X..., converged [TRIES]
#   within TRIES CMD...  CMD succeeds within TRIES times 50 ms
#   qs_is X KEY VALUE    KEY of monitor X's quorum_status is VALUE
#   stores_agree X...    stop them, then TAP: each store verifies, and is
#                        the first's record for record
#   check_sanitizers [DESC]  TAP: no sanitizer report in a monitor's stderr
#   lsan_pass_libraft    LeakSanitizer passes over libraft's allocations
: "${NAMES:=a b c}"

# Below the kernel's range of ephemeral ports, so that no other program's
# connection takes one between this pick and the monitor's bind.
free_ports() {
	python3 -c '
import random, socket, sys
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
out = []
while len(out) < int(sys.argv[1]):
    p = random.randrange(10000, lo - 1)
    ok = True
    for q in (p, p + 1):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", q))
        except OSError:
            ok = False
        s.close()
    if ok and all(abs(p - q) > 1 for q in out):
        out.append(p)
print(*out)' "${1:-$(set -- $NAMES && echo $#)}"
}

mkfs_quorum() {
	local first=$1 x
	shift
	"$MAPMOND" -c "$D/$first.conf" --mkfs || return 1
	for x in "$@"; do
		"$MAPMOND" -c "$D/$x.conf" --mkfs --monmap "$D/$first/monmap" \
		    --keyring "$D/keyring" || return 1
	done
}

quorum_cleanup() {
	local v f
	for v in $QUORUM_BG; do
		[ -n "${!v}" ] && kill "${!v}" 2>/dev/null
	done
	for f in "$T"/*.pid; do
		[ -e "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	[ -n "${!KEEP_VAR:-}" ] && echo "# kept $T" || rm -rf "$T"
}

if [ -n "${QUORUM_TMP:-}" ]; then
	: "${MAPMON:=$top_builddir/tools/mapmon}"
	: "${MAPMOND:=$top_builddir/daemon/mapmond}"
	: "${STORE:=$top_builddir/tools/mapmon-store}"
	: "${JG:=$top_builddir/test/lib/json_get}"
	: "${KEEP_VAR:=QUORUM_KEEP}"
	TAP_PER_BACKEND=1
	for v in $QUORUM_BG; do eval "$v="; done
	T=$(mktemp -d "/tmp/$QUORUM_TMP.XXXXXX") || exit 99
	trap quorum_cleanup EXIT
fi

# libraft 0.22.1 leaks the configuration of every snapshot it takes (72
# bytes each; RELIABILITY.md): LeakSanitizer is told to pass over
# libraft's own allocations, not mapmon's.
lsan_pass_libraft() {
	printf 'leak:libraft.so\n' >"$T/lsan.supp"
	# Not even the count of what it passed over: with log_path set
	# (./dev.sh sanitize) that summary alone is a report file, which
	# fails the run.
	export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$T/lsan.supp:print_suppressions=0"
}

# What a failed check shows: DIAG, the last CLI's output, and the end of
# each monitor's log.
check_diag() {
	local x
	[ -n "${DIAG:-}" ] && printf 'diag: %s\n' "$DIAG"
	printf 'out: %s\nerr: %s\n' "$(head -c 600 "$T/out")" \
	    "$(head -c 300 "$T/err")"
	for x in $NAMES; do
		printf 'log %s: %s\n' "$x" \
		    "$(grep -v "${DIAG_SKIP:- net }" "$D/$x.log" 2>/dev/null |
			tail -n 4)"
	done
}

set_backend() {
	BACKEND=$1
	D=$T/$BACKEND
	mkdir -p "$D"
}
addr() { eval echo "\$ADDR_$1"; }
pick_addrs() {
	local x
	set -- $(free_ports)
	ALL=
	for x in $NAMES; do
		eval "ADDR_$x=127.0.0.1:\$1"
		ALL=$ALL${ALL:+,}127.0.0.1:$1
		shift
	done
}

# write_confs: $D/X.conf for each monitor X, its store in $D/X.
write_confs() {
	local x hosts=
	for x in $NAMES; do hosts=$hosts${hosts:+,}$x=$(addr "$x"); done
	for x in $NAMES; do
		{
			printf '[mon]\nname = %s\ndata = %s\nbind = %s\n' \
			    "$x" "$D/$x" "$(addr "$x")"
			printf 'mon_host = %s\nelection_timeout = %s\n' \
			    "$hosts" "${ELECTION_TIMEOUT:-300ms}"
			[ -n "${MON_CONF:-}" ] && printf '%s\n' "$MON_CONF"
			printf '[store]\nbackend = %s\n' "$BACKEND"
			printf '[auth]\nkeyring = %s\n' "$D/keyring"
			printf '[log]\nfile = %s\n' "$D/$x.log"
			[ -n "${LOG_CONF:-}" ] && printf '%s\n' "$LOG_CONF"
			[ "${METRICS:-}" = no ] ||
			    printf '[metrics]\nbind = 127.0.0.1:0\n'
		} >"$D/$x.conf"
	done
}

mm() {
	"$MAPMON" -m "$ALL" -k "$D/keyring" --connect-timeout 5 "$@" \
	    >"$T/out" 2>"$T/err"
	rc=$?
}
mm1() {
	local x=$1
	shift
	"$MAPMON" -m "$(addr "$x")" -k "$D/keyring" --connect-timeout 5 \
	    "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# pool_writer ACKED: pools w1, w2, ... through any monitor of $ALL until
# $T/stop exists; an acknowledged name goes to ACKED and the time it was
# acknowledged (ns) to ACKED.at, the kill runs' figure.  A retry of one
# whose outcome is unknown is safe: creating an existing pool is answered
# 0, as Ceph does.
pool_writer() {
	local i=0 acked=$1
	while [ ! -e "$T/stop" ]; do
		i=$((i + 1))
		while [ ! -e "$T/stop" ]; do
			if "$MAPMON" -m "$ALL" -k "$D/keyring" \
			    --connect-timeout 3 osd pool create "w$i" 4 \
			    >/dev/null 2>&1; then
				date +%s%N >>"$acked.at"
				echo "w$i" >>"$acked"
				break
			fi
			sleep 0.05
		done
	done
}
# has_acked X: monitor X lists every pool of $D/acked.
has_acked() {
	mm1 "$1" osd pool ls || return 1
	[ -z "$(sort "$D/acked" | comm -23 - <(sort "$T/out"))" ]
}
# metrics X: at the port monitor X logged.
metrics() {
	local port
	port=$(sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
	    "$D/$1.log" | tail -n 1)
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
	sed '1,/^\r$/d' <&3 >"$T/out"
	exec 3<&-
}
# metric NAME: mapmon_NAME's value in the metrics last fetched (nothing
# when absent).
metric() { awk -v n="mapmon_$1" '$1 == n { print $2 }' "$T/out"; }

pid_of() { cat "$T/$BACKEND.$1.pid"; }
start() {
	local i=0 old
	# A monitor killed a moment ago holds its store until it has exited.
	if [ -e "$T/$BACKEND.$1.pid" ]; then
		old=$(pid_of "$1")
		while kill -0 "$old" 2>/dev/null && [ $i -lt 200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
	fi
	"$MAPMOND" -c "$D/$1.conf" -f 2>>"$D/$1.stderr" &
	echo $! >"$T/$BACKEND.$1.pid"
}
# stop X: SIGTERM, and wait for it to be gone.
stop() {
	stop_all "$1"
}
# stop_all X...: SIGTERM to all at once (a leader left alone a while
# would commit the others' MON_DOWN to itself alone), then wait.
stop_all() {
	local x i
	for x in "$@"; do kill "$(pid_of "$x")" 2>/dev/null; done
	for x in "$@"; do
		i=0
		while kill -0 "$(pid_of "$x")" 2>/dev/null && [ $i -lt 200 ]
		do
			sleep 0.05
			i=$((i + 1))
		done
	done
}

# leader: the leader's name as the live monitors see it, or nothing.
leader() {
	local x l
	for x in $NAMES; do
		kill -0 "$(pid_of "$x")" 2>/dev/null || continue
		mm1 "$x" -f json quorum_status || continue
		l=$("$JG" quorum_leader_name <"$T/out")
		if [ -n "$l" ] && [ "$l" = "$x" ]; then
			echo "$l"
			return 0
		fi
	done
	return 1
}
# within TRIES CMD...: CMD succeeds, tried every 50 ms for TRIES times
# 50 ms of wall time at most (a deadline, not a count: under ASan on a
# loaded machine each try's CLI calls take longer than the pause, and a
# count of tries then waits many times what was meant).
within() {
	local ms=$(($1 * 50)) start now
	shift
	start=${EPOCHREALTIME/./}
	while :; do
		"$@" && return 0
		now=${EPOCHREALTIME/./}
		[ $(((now - start) / 1000)) -lt "$ms" ] || return 1
		sleep 0.05
	done
}
# qs_is X KEY VALUE: KEY of monitor X's quorum_status is VALUE.
qs_is() {
	mm1 "$1" -f json quorum_status && [ "$("$JG" "$2" <"$T/out")" = "$3" ]
}
# wait_leader: $L, the leader (within 10 s).
set_leader() { L=$(leader); }
wait_leader() { within 200 set_leader; }
# no_leader X: monitor X knows no leader (within 10 s).
no_leader() { within 200 qs_is "$1" quorum_leader_name ""; }
# in_quorum N: the leader counts N monitors in quorum (within 10 s).
in_quorum() { within 200 qs_is "$L" quorum.# "$1"; }
# applied X: monitor X's applied index.
applied() {
	mm1 "$1" -f json quorum_status && "$JG" raft.applied_index <"$T/out"
}
# raft X KEY: a key of monitor X's quorum_status "raft" object.
raft() {
	mm1 "$1" -f json quorum_status && "$JG" "raft.$2" <"$T/out"
}
# all_applied X...: the monitors named have applied the same entry.
all_applied() {
	local x a first=
	for x in "$@"; do
		a=$(applied "$x")
		[ -n "$a" ] || return 1
		[ -n "$first" ] || first=$a
		[ "$a" = "$first" ] || return 1
	done
}
# same_applied X...: within 10 s.
same_applied() { within 200 all_applied "$@"; }
# converged [TRIES]: all of NAMES, within TRIES (200) times 50 ms.
converged() { within "${1:-200}" all_applied $NAMES; }

# quorum_up BACKEND DESC: the monitors of NAMES on BACKEND, made from one
# monmap (a TAP check named DESC) and started.
quorum_up() {
	local x
	set_backend "$1"
	pick_addrs
	write_confs
	mkfs_quorum $NAMES >"$T/out" 2>"$T/err"
	check "$2" [ $? -eq 0 ]
	for x in $NAMES; do start "$x"; done
}

# settled X...: the monitors X... have applied the same entry, and still
# that one a second later (nothing was left to propose: the leader may
# still hold reports queued when the applied indexes first agree).
settled() {
	local a b
	all_applied "$@" || return 1
	a=$(applied "$1")
	sleep 1
	all_applied "$@" || return 1
	b=$(applied "$1")
	[ "$a" = "$b" ]
}
# stop_frozen X...: stop_all, with every monitor first frozen (SIGSTOP)
# and all let go at once with SIGTERM pending: a monitor whose SIGTERM
# waits behind another's exit for an election timeout would commit the
# other's absence (a view and MON_DOWN) with a third, so stores compared
# after a plain stop_all can differ by that last entry on a loaded machine.
stop_frozen() {
	local x pids=
	for x in "$@"; do pids="$pids $(pid_of "$x")"; done
	# shellcheck disable=SC2086
	kill -STOP $pids 2>/dev/null
	# shellcheck disable=SC2086
	kill -TERM $pids 2>/dev/null
	# shellcheck disable=SC2086
	kill -CONT $pids 2>/dev/null
	stop_all "$@"
}

# stores_agree X...: once settled (within 90 s), stopped, their stores
# pass verify and are identical record for record (where not, the first
# differing lines of the dumps are shown as TAP comments).  An entry the
# leader committed and applied as they stopped may be in a follower's log
# but not yet applied (the commit index had not reached it): the follower
# applies it once restarted, so where the dumps differ the monitors are
# started, settled and stopped again, twice at most, and the checks are
# of the last round; a real divergence differs every round.
stores_agree() {
	local x round same
	for round in 1 2 3; do
		if [ "$round" -gt 1 ]; then
			echo "# round $round: the stores differed as they" \
			    "stopped; started and stopped again"
			for x in "$@"; do start "$x"; done
		fi
		within 1800 settled "$@"
		stop_frozen "$@"
		same=1
		for x in "$@"; do
			"$STORE" -c "$D/$x.conf" dump --full >"$D/$x.dump" \
			    2>"$T/err"
			cmp -s "$D/$1.dump" "$D/$x.dump" && continue
			same=0
			diff "$D/$1.dump" "$D/$x.dump" | head -n 8 |
			    cut -c1-200 | sed 's/^/# /'
		done
		[ "$same" -eq 1 ] && break
	done
	for x in "$@"; do
		check "mapmon-store verify passes on mon.$x" \
		    "$STORE" -c "$D/$x.conf" verify
	done
	for x in "${@:2}"; do
		check "the stores of $1 and $x are identical record for record" \
		    cmp -s "$D/$1.dump" "$D/$x.dump"
	done
}
# check_relay: no monitor logged a link whose engine messages it could not
# tell apart (daemon/quorum_transport.c then relays them unparsed).
check_relay() {
	check "every link's messages were told apart (none relayed unparsed)" \
	    sh -c '! grep -q "not raft_uv.s message format" "$0"/*.log' "$D"
}
check_sanitizers() {
	local d="a monitor's log has no sanitizer report"
	check "${1:-$d}" \
	    sh -c '! grep -q "Sanitizer\|runtime error" "$0"/*.stderr' "$D"
}
