#!/bin/bash
# memory of one monitor: a pool of 262,144 PGs created (size 1, one OSD), then a restart.
# bench/records/memory.sh BUILD_DIR; output in memory.txt
B=${1:-/tmp/new-build}; T=$(mktemp -d /tmp/memchk.XXXXXX)
D=$T/data; CONF=$T/m.conf
printf '%s\n' "[mon]" "data = $D" "bind = 127.0.0.1:0" "max_pg_per_osd = 1000000" "max_pool_pg_num = 262144" "[auth]" "keyring = $T/k" "[store]" "backend = lmdb" > $CONF
export MAPMON_KEYRING=$T/k
$B/daemon/mapmond --mkfs -c $CONF > /dev/null 2>&1
start() { $B/daemon/mapmond -d -c $CONF 2>>$T/log & P=$!; for i in $(seq 50); do port=$(grep -o 'listening on 127.0.0.1:[0-9]*' $T/log | tail -1 | cut -d: -f2); [ -n "$port" ] && $B/tools/mapmon -m 127.0.0.1:$port status >/dev/null 2>&1 && break; sleep 0.1; done; A=127.0.0.1:$port; }
start
grep -E "VmHWM|RssAnon|RssFile" /proc/$P/status | tr '\n' ' '; echo " (empty)"
$B/tools/mapmon -m $A osd create >/dev/null && $B/tools/mapmon -m $A osd boot 0 >/dev/null
$B/tools/mapmon -m $A osd pool create big 262144 --size 1 >/dev/null || echo create failed
grep -E "VmHWM|RssAnon|RssFile" /proc/$P/status | tr '\n' ' '; echo " (after creation)"
kill $P; wait $P; : > $T/log
start
grep -E "VmHWM|RssAnon|RssFile" /proc/$P/status | tr '\n' ' '; echo " (after restart)"
du -sh $D
kill $P; wait $P; rm -rf $T
