# listen_lib.sh: find the port a mapmond bound to port 0 listens on, and
# start one there (sourced, not run).
#
# listen_port LOG SKIP PID [TRIES]: wait for a "listening on 127.0.0.1:N"
# line past the first SKIP lines of LOG (what earlier runs wrote), and
# print N.  Fails when PID exits first or after TRIES waits of 50 ms (200).
# Counting lines, not comparing with the last port, is what makes a
# restart safe: the kernel may well give the new daemon the same port.
listen_port() {
	local log=$1 skip=$2 pid=$3 tries=${4:-200} i port
	for i in $(seq 1 "$tries"); do
		port=$(tail -n +"$((skip + 1))" "$log" 2>/dev/null | sed -n \
		    's/.* listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' |
		    tail -n 1)
		if [ -n "$port" ]; then
			echo "$port"
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# log_lines LOG: how many lines LOG has now (0 when it does not exist).
log_lines() {
	if [ -e "$1" ]; then wc -l <"$1"; else echo 0; fi
}

# mon_start CONF LOG [TRIES]: start "$MAPMOND" -d -c CONF in the
# background, its stderr appended to LOG; wait for its port (listen_port,
# TRIES) and until "$MAPMON" gets an answer to `status' (5 s).  Sets DPID,
# PORT and ADDR.
mon_start() {
	local conf=$1 log=$2 i skip
	skip=$(log_lines "$log")
	"$MAPMOND" -d -c "$conf" 2>>"$log" &
	DPID=$!
	PORT=$(listen_port "$log" "$skip" "$DPID" "${3:-200}") || return 1
	ADDR=127.0.0.1:$PORT
	for i in $(seq 1 100); do
		"$MAPMON" -m "$ADDR" --connect-timeout 1 status >/dev/null 2>&1 &&
		    return 0
		sleep 0.05
	done
	return 1
}
