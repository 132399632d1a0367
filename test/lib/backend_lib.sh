# backend_lib.sh: what the scripts that run once per store backend share
# (sourced, not run; after listen_lib.sh).  They set MAPMON, MAPMOND, JG
# (test/lib/json_get), T, CONF and BACKEND; the daemon's log is
# $T/log.$BACKEND.
#
#   jget PATH...         the values at PATH in the JSON of $T/out
#   jis PATH VALUE       the value at PATH is VALUE
#   jkeys PATH KEY...    the object at PATH has every KEY (a missing one is
#                        said as a # comment)
#   start_daemon         mon_start (listen_lib.sh) of $CONF: sets DPID,
#                        PORT and ADDR once it answers `status'
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
	mon_start "$CONF" "$T/log.$BACKEND"
}
stop_daemon() {
	kill -TERM "$DPID"
	wait "$DPID"
	local st=$?
	DPID=
	return $st
}
