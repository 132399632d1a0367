#!/bin/bash
# ops_metrics.sh: [metrics] bind and /metrics.  Speaks TAP.
#
# A daemon under a short PG report load (test/crash/ackload) is scraped;
# the text is checked strictly against the Prometheus exposition format
# (names, HELP and TYPE once per family and before its samples, label
# syntax, histogram buckets ascending and cumulative ending in +Inf equal to
# _count, _sum and _count, counters named _total), with `promtool check
# metrics' as well where promtool is installed, and its figures against
# what `mapmon status' says.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/test/lib/ops_lib.sh"

ACKLOAD=$top_builddir/test/crash/ackload
JG=$top_builddir/test/lib/json_get

# scrape [-X METHOD] PATH: the response headers in $T/hdr, body in $T/body,
# the status code in $code.
scrape() {
	local method=GET
	if [ "$1" = -X ]; then method=$2; shift 2; fi
	if command -v curl >/dev/null; then
		code=$(curl -s -X "$method" -D "$T/hdr" -o "$T/body" \
		    -w '%{http_code}' --max-time 5 "http://127.0.0.1:$MPORT$1")
	else
		exec 3<>"/dev/tcp/127.0.0.1/$MPORT" || return 1
		printf '%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$method" \
		    "$1" >&3
		cat <&3 >"$T/resp"
		exec 3<&-
		sed -n '1,/^\r*$/p' "$T/resp" >"$T/hdr"
		sed '1,/^\r*$/d' "$T/resp" >"$T/body"
		code=$(head -n 1 "$T/hdr" | cut -d' ' -f2)
	fi
}

# The format, strictly.  Prints one line per problem; silent when clean.
exposition_check() {
	awk '
	function problem(s) { print "line " NR ": " s; bad = 1 }
	function family_of(name,   b) {
		if (name in type) return name
		b = name
		if (sub(/_bucket$/, "", b) && type[b] == "histogram") return b
		b = name
		if (sub(/_sum$/, "", b) && (type[b] == "histogram" ||
		    type[b] == "summary")) return b
		b = name
		if (sub(/_count$/, "", b) && (type[b] == "histogram" ||
		    type[b] == "summary")) return b
		return ""
	}
	function close_family(   f) {
		f = cur
		if (f == "" || type[f] != "histogram") return
		if (!seen_inf[f]) problem(f ": no +Inf bucket")
		if (!(f in hsum)) problem(f ": no _sum")
		if (!(f in hcount)) problem(f ": no _count")
		else if (hcount[f] != inf[f])
			problem(f ": _count " hcount[f] " != +Inf bucket " inf[f])
	}
	/^$/ { problem("empty line"); next }
	/^# HELP / {
		if ($3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) problem("bad name " $3)
		if ($3 in help) problem("second HELP for " $3)
		if ($3 in done) problem("HELP for " $3 " after its samples")
		if (NF < 4) problem("empty HELP for " $3)
		help[$3] = 1
		next
	}
	/^# TYPE / {
		if ($3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) problem("bad name " $3)
		if (NF != 4) problem("TYPE line with " NF " fields")
		if ($4 !~ /^(counter|gauge|histogram|summary|untyped)$/)
			problem("unknown type " $4)
		if ($3 in type) problem("second TYPE for " $3)
		if ($3 in done || $3 in sampled) problem("TYPE after samples of " $3)
		if (!($3 in help)) problem("TYPE before HELP for " $3)
		if ($4 == "counter" && $3 !~ /_total$/)
			problem("counter " $3 " not named _total")
		if ($4 != "counter" && $3 ~ /_total$/)
			problem($4 " " $3 " named _total")
		type[$3] = $4
		next
	}
	/^#/ { problem("unknown comment"); next }
	{
		line = $0
		if (!match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) {
			problem("no metric name"); next
		}
		name = substr(line, 1, RLENGTH)
		rest = substr(line, RLENGTH + 1)
		labels = ""
		if (substr(rest, 1, 1) == "{") {
			if (!match(rest, /^\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")*)?\}/)) {
				problem("bad labels: " rest); next
			}
			labels = substr(rest, 2, RLENGTH - 2)
			rest = substr(rest, RLENGTH + 1)
		}
		if (rest !~ /^ ([-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|[-+]Inf|NaN)( -?[0-9]+)?$/) {
			problem("bad value: " rest); next
		}
		split(substr(rest, 2), v, " ")
		value = v[1]
		f = family_of(name)
		if (f == "") { problem("sample " name " before its TYPE"); next }
		if (f != cur) {
			close_family()
			if (f in done) problem("samples of " f " not together")
			done[cur] = 1
			cur = f
		}
		sampled[f] = 1
		if ((name "{" labels "}") in series)
			problem("duplicate series " name "{" labels "}")
		series[name "{" labels "}"] = 1
		if (type[f] == "counter" && value + 0 < 0)
			problem("negative counter " name)
		if (type[f] == "histogram" && name == f "_bucket") {
			if (!match(labels, /le="[^"]*"/)) {
				problem("bucket without le"); next
			}
			le = substr(labels, RSTART + 4, RLENGTH - 5)
			if (seen_inf[f]) problem("bucket after +Inf")
			if (le == "+Inf") { seen_inf[f] = 1; inf[f] = value + 0 }
			else if (le !~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/)
				problem("bad le " le)
			else if ((f in lastle) && le + 0 <= lastle[f])
				problem("le " le " not above " lastle[f])
			else lastle[f] = le + 0
			if ((f in lastb) && value + 0 < lastb[f])
				problem("bucket le=" le " below the one before")
			lastb[f] = value + 0
		} else if (type[f] == "histogram" && name == f "_sum")
			hsum[f] = value
		else if (type[f] == "histogram" && name == f "_count")
			hcount[f] = value + 0
		else if (type[f] == "histogram")
			problem("histogram sample " name)
	}
	END {
		close_family()
		for (f in type) if (!(f in sampled) && type[f] != "gauge" &&
		    f != "mapmon_pgs_by_state") problem(f " has no sample")
		exit bad
	}' "$1"
}
# value NAME[{LABELS}]: the sample's value.
value() {
	awk -v s="$1" '$1 == s { print $2; exit }' "$T/body"
}

CONF=$T/mon.conf
LOG=$T/mapmond.log
mkconf "$CONF" "$T/data" "[metrics]" "bind = 127.0.0.1:0"
check "mkfs" mkfs "$CONF"
check "mapmond with [metrics] bind starts" start_daemon "$CONF" "$LOG"
MPORT=$(sed -n 's|.* metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
    "$LOG" | tail -n 1)
check "the log names the metrics address" test -n "$MPORT"

if [ -x "$ACKLOAD" ]; then
	"$ACKLOAD" load -m "$ADDR" -l "$T/ack.log" -t 1 -r 4 -g 1024 \
	    >"$T/ackload.out" 2>&1
	DIAG=$(tail -n 3 "$T/ackload.out")
	check "a second of PG reports" test $? -eq 0
else
	mm osd create && mm osd create && mm osd create &&
	    mm osd pool create p 64 --size 2
	check "three OSDs and a pool (no ackload built)" test $? -eq 0
fi
DIAG=

scrape /metrics
check "GET /metrics: 200" test "$code" = 200
check "Content-Type is the text format 0.0.4" grep -qi \
    '^Content-Type: text/plain; version=0\.0\.4; charset=utf-8' "$T/hdr"
cp "$T/body" "$T/metrics.1"
DIAG=$(exposition_check "$T/body" | head -n 20)
check "the exposition format is strict-clean" exposition_check "$T/body"
DIAG=
# The checker itself catches what it is there for.
rejects() {	# rejects DESC SED-SCRIPT: the checker refuses the edited text
	sed "$2" "$T/metrics.1" >"$T/bad"
	if exposition_check "$T/bad" >/dev/null; then
		notok "the checker refuses $1"
	else
		ok "the checker refuses $1"
	fi
}
rejects "a non-cumulative bucket" \
    's/^\(mapmon_commit_latency_seconds_bucket{le="0.002"}\) .*/\1 0/;s/^\(mapmon_commit_latency_seconds_bucket{le="0.001"}\) .*/\1 5/'
rejects "a histogram without +Inf" '/le="+Inf"/d'
rejects "a _count unlike +Inf" 's/^\(mapmon_commit_latency_seconds_count\) .*/\1 999999/'
rejects "a sample before its TYPE" '/^# TYPE mapmon_pgs gauge/d'
rejects "a counter not named _total" 's/mapmon_scrapes_total/mapmon_scrapes/g'
rejects "a bad label" 's/{version="/{version=/'
rejects "a bad value" 's/^mapmon_pools .*/mapmon_pools one/'
rejects "a duplicate series" '/^mapmon_pools /p'
rejects "a family split in two" \
    '/^mapmon_connections_closed_total{reason="idle"}/{h;d};/^mapmon_frames_sent_total /G'
if command -v promtool >/dev/null; then
	DIAG=$(promtool check metrics <"$T/body" 2>&1)
	check "promtool check metrics" promtool check metrics <"$T/body"
	DIAG=
elif [ "${CI:-}" = true ]; then
	# The test command installs it (dev.sh): missing here is a broken setup.
	check "promtool is installed (CI)" command -v promtool
else
	echo "# promtool not installed: the strict check above stands in"
fi

for f in commit_latency_seconds commit_failures_total proposal_ops \
    pg_updates_total osdmap_epoch pgmap_version store_bytes pgs \
    pgs_by_state pools osds osds_up osds_in health_status connections \
    connections_accepted_total log_entries_gathered_total build_info; do
	check "family mapmon_$f has HELP and TYPE" \
	    grep -q "^# TYPE mapmon_$f " "$T/body"
done
check "commit latency is a histogram" \
    grep -q '^# TYPE mapmon_commit_latency_seconds histogram$' "$T/body"

mm -f json status
PGS=$("$JG" pgmap.num_pgs <"$T/out")
UP=$("$JG" osdmap.num_up_osds <"$T/out")
IN=$("$JG" osdmap.num_in_osds <"$T/out")
EPOCH=$("$JG" osdmap.epoch <"$T/out")
scrape /metrics
DIAG="status: $PGS pgs, $UP up, $IN in, epoch $EPOCH"
check "mapmon_pgs is status's num_pgs ($PGS)" test "$(value mapmon_pgs)" = "$PGS"
check "mapmon_osds_up is status's num_up_osds ($UP)" \
    test "$(value mapmon_osds_up)" = "$UP"
check "mapmon_osds_in is status's num_in_osds ($IN)" \
    test "$(value mapmon_osds_in)" = "$IN"
check "mapmon_osdmap_epoch is status's ($EPOCH)" \
    test "$(value mapmon_osdmap_epoch)" = "$EPOCH"
bystate=$(awk '/^mapmon_pgs_by_state\{/ { s += $2 } END { print s + 0 }' \
    "$T/body")
check "PGs by state add up to mapmon_pgs" test "$bystate" = "$PGS"
check "PGs have states" grep -q '^mapmon_pgs_by_state{state="[a-z+_]*"} [1-9]' \
    "$T/body"
commits=$(value mapmon_commit_latency_seconds_count)
check "commits were counted" test "${commits:-0}" -gt 0
check "proposals count the same commits" \
    test "$(value mapmon_proposal_ops_count)" = "$commits"
check "proposal sizes add up to at least one change per commit" \
    test "$(value mapmon_proposal_ops_sum)" -ge "$commits"
if [ -x "$ACKLOAD" ]; then
	check "PG updates were counted" \
	    test "$(value mapmon_pg_updates_total)" -gt 0
fi
check "store bytes are counted" \
    test "$(value 'mapmon_store_bytes{backend="lmdb"}')" -gt 0
check "connections accepted were counted" \
    test "$(value mapmon_connections_accepted_total)" -gt 0
check "log entries gathered were counted" \
    test "$(value mapmon_log_entries_gathered_total)" -gt 0
check "scrapes are counted" test "$(value mapmon_scrapes_total)" = 2
check "build_info carries the version" \
    grep -q '^mapmon_build_info{version="[0-9][0-9.]*"} 1$' "$T/body"

# A held connection shows in mapmon_connections.
exec 4<>"/dev/tcp/127.0.0.1/$PORT"
sleep 0.2
scrape /metrics
check "an open client connection is counted" \
    test "$(value mapmon_connections)" -ge 1
exec 4<&-

scrape /nope
check "another path: 404" test "$code" = 404
scrape -X POST /metrics
check "POST: 405" test "$code" = 405
check "the daemon still answers" mm status

# An address in use: the daemon says so and does not start.
mkconf "$T/two.conf" "$T/data2" "[metrics]" "bind = 127.0.0.1:$MPORT"
mkfs "$T/two.conf"
"$MAPMOND" -d -c "$T/two.conf" 2>"$T/two.err" &
TPID=$!
PIDS="$PIDS $TPID"
wait "$TPID"
st=$?
DIAG=$(cat "$T/two.err")
check "a metrics address in use: exit 1" test "$st" -eq 1
check "... naming the address" grep -q "\[metrics\] bind 127.0.0.1:$MPORT" \
    "$T/two.err"

stop_daemon
check "SIGTERM: exit 0" test $? -eq 0
check "no sanitizer report from any daemon" sanitizer_clean
done_testing
