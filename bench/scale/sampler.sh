#!/bin/sh
# columns: unix time, mapmond pid, VmHWM KiB, RssAnon KiB, RssFile KiB, bytes of DATA/store (du -sb)
# sampler.sh PARENTPID OUT: every 0.25 s, each mapmond child of PARENTPID:
# time pid VmHWM RssAnon RssFile (KiB) store-bytes
parent=$1; out=$2
while kill -0 "$parent" 2>/dev/null; do
  for p in $(pgrep -P "$parent" mapmond); do
    conf=$(tr '\0' '\n' < /proc/$p/cmdline 2>/dev/null | grep 'mapmon.conf$')
    dir=${conf%/mapmon.conf}
    st=$(awk '/^VmHWM|^RssAnon|^RssFile/ {printf "%s ", $2}' /proc/$p/status 2>/dev/null)
    sz=$(du -sb "$dir/store" 2>/dev/null | cut -f1)
    echo "$(date +%s.%N | cut -c1-14) $p $st$sz" >> "$out"
  done
  sleep 0.25
done
