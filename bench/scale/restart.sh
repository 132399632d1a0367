#!/bin/bash
# restart.sh TAG [perf]: start mapmond on the kept store, wait for its
# "started" line, print its memory, stop it.
D=/tmp/mapmon-bench.px4dDt; tag=$1
if [ "${2:-}" = perf ]; then
	perf record -F 1999 -g -o /tmp/scale/perf-$tag.data -- /tmp/scale/bin/daemon/mapmond -d -c $D/mapmon.conf 2> /tmp/scale/restart-$tag.log &
	pp=$!; sleep 0.2; mp=$(pgrep -P $pp mapmond)
else
	/tmp/scale/bin/daemon/mapmond -d -c $D/mapmon.conf 2> /tmp/scale/restart-$tag.log &
	mp=$!; pp=$mp
fi
for i in $(seq 1 300); do grep -q 'mapmond .* started' /tmp/scale/restart-$tag.log && break; sleep 0.05; done
grep 'loaded epoch' /tmp/scale/restart-$tag.log
grep -E 'VmHWM|RssAnon|RssFile' /proc/$mp/status | tr -s ' ' | tr '\n' ' '; echo
kill -TERM $mp; wait $pp
