# backend_lib.sh: what the scripts that run once per store backend share
# (sourced, not run; after listen_lib.sh).  They set MAPMON, MAPMOND, JG
# (test/lib/json_get), T, CONF and BACKEND; the daemon's log is
# $T/log.$BACKEND.
#
#   run ARGS...          mapmon -m $ADDR ARGS: stdout in $T/out, stderr in
#                        $T/err, the exit status in rc
#   expect RC DESC ARGS...  run, and a TAP line: did it exit RC?
#   out_has RE, err_has RE  a line of $T/out ($T/err) matches RE
#   jget PATH...         the values at PATH in the JSON of $T/out
#   jis PATH VALUE       the value at PATH is VALUE
#   jkeys PATH KEY...    the object at PATH has every KEY (a missing one is
#                        said as a # comment)
#   text_table_is FILE   FILE is, byte for byte, the table given on stdin
#                        (without trailing blanks) as Ceph's TextTable
#                        prints it: every line, the headings' too, padded
#                        with blanks to the widest line (DIAG says where
#                        it differs)
#   start_daemon         mon_start (listen_lib.sh) of $CONF: sets DPID,
#                        PORT and ADDR once it answers `status'
#   stop_daemon          SIGTERM, and its exit status
run() {
	"$MAPMON" -m "$ADDR" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
expect() {
	local want=$1 d=$2
	shift 2
	run "$@"
	if [ "$rc" -eq "$want" ]; then ok "$d (exit $want)"
	else notok "$d (exit $rc, want $want)" "$(head -c 400 "$T/err")"; fi
}
out_has() { grep -q -e "$1" "$T/out"; }
err_has() { grep -q -e "$1" "$T/err"; }
jget() { "$JG" "$@" <"$T/out"; }
jis() {
	[ "$("$JG" "$1" <"$T/out")" = "$2" ]
}
jkeys() {
	local keys path=$1
	shift
	keys=",$("$JG" "$path.@keys" <"$T/out"),"
	for k in "$@"; do
		case $keys in *",$k,"*) ;; *) echo "# missing key $k at $path"; return 1;; esac
	done
}

text_table_is() {
	DIAG=$(diff <(sed 's/ *$//' "$1") -) || return 1
	DIAG=$(awk '{ s = $0; sub(/ +$/, "", s)
		if (length(s) > wide) wide = length(s)
		if (NR == 1) w = length($0)
		else if (length($0) != w) bad = bad " " NR }
	    END { if (bad != "") print "lines not as wide as the first:" bad
		if (w != wide) print "the first line is " w " wide, not " wide }' \
	    "$1")
	[ -z "$DIAG" ]
}

start_daemon() {
	mon_start "$CONF" "$T/log.$BACKEND"
}
# suite_start BACKEND [MON_LINES]: $D and $CONF of a monitor on BACKEND
# (127.0.0.1, a free port, propose_interval 2ms, sync none, MON_LINES
# added to [mon]), made with --mkfs and started, each a TAP check; every
# client then authenticates as client.admin with the key mkfs wrote.
suite_start() {
	BACKEND=$1
	D=$T/$BACKEND
	CONF=$T/$BACKEND.conf
	mkdir -p "$D"
	{
		printf '[mon]\ndata = %s\nbind = 127.0.0.1:0\n' "$D"
		printf 'propose_interval = 2ms\n'
		[ -n "${2:-}" ] && printf '%s\n' "$2"
		printf '[auth]\nkeyring = %s.keyring\n' "$D"
		printf '[store]\nbackend = %s\nsync = none\n' "$BACKEND"
	} >"$CONF"
	"$MAPMOND" --mkfs -c "$CONF" >"$T/out" 2>"$T/err"
	check "mapmond --mkfs" test $? -eq 0
	export MAPMON_KEYRING=$D.keyring
	check "mapmond starts and answers" start_daemon
}
stop_daemon() {
	kill -TERM "$DPID"
	wait "$DPID"
	local st=$?
	DPID=
	return $st
}

# backend_init NAME: the tools' paths, $T a directory of /tmp/NAME.XXXXXX
# removed at the exit with the daemon of $DPID killed, and check_diag
# showing the last command's output; sourced after tap_lib.sh.
backend_init() {
	MAPMON=$top_builddir/tools/mapmon
	MAPMOND=$top_builddir/daemon/mapmond
	JG=$top_builddir/test/lib/json_get
	T=$(mktemp -d "/tmp/$1.XXXXXX") || exit 99
	DPID=
	trap backend_cleanup EXIT
}
backend_cleanup() {
	[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null
	rm -rf "$T"
}
check_diag() {	# what a failed check shows: the last command's output
	printf 'out: %s\nerr: %s' "$(head -c 600 "$T/out")" \
	    "$(head -c 600 "$T/err")"
}
