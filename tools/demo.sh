#!/bin/sh
# tools/demo.sh BUILD: README command 1 after the build (called by dev.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
printf '==> %s\n' "mapmond -t (configuration check of conf/mapmon.conf)"
"$build/mon/mapmond" -t -c "$top/conf/mapmon.conf"
cat <<MSG

mapmond is built and its configuration checks out.  Try:

    $build/mon/mapmond --help
    man $top/man/mapmond.8
MSG
