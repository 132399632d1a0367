# backend_lib.sh: what the scripts that run once per store backend share
# (sourced, not run; after listen_lib.sh).  They set MAPMON, MAPMOND, JG
# (test/lib/json_get), T, CONF and BACKEND; the daemon's log is
# $T/log.$BACKEND.
#
#   jget PATH...         the values at PATH in the JSON of $T/out
#   jis PATH VALUE       the value at PATH is VALUE
#   jkeys PATH KEY...    the object at PATH has every KEY (a missing one is
#                        said as a # comment)
#   start_daemon         mapmond -d -c $CONF in the background, on the port
#                        its "listening on" line names; waits until it
#                        answers `status'.  Sets DPID and ADDR
#   stop_daemon          SIGTERM, and its exit status
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

start_daemon() {
	local i port skip
	skip=$(log_lines "$T/log.$BACKEND")
	"$MAPMOND" -d -c "$CONF" 2>>"$T/log.$BACKEND" &
	DPID=$!
	port=$(listen_port "$T/log.$BACKEND" "$skip" "$DPID") || return 1
	ADDR=127.0.0.1:$port
	for i in $(seq 1 50); do
		"$MAPMON" -m "$ADDR" --connect-timeout 1 status >/dev/null 2>&1 &&
		    return 0
		sleep 0.1
	done
	return 1
}
stop_daemon() {
	kill -TERM "$DPID"
	wait "$DPID"
	local st=$?
	DPID=
	return $st
}
