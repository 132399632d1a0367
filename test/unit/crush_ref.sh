#!/bin/sh
# crush_ref.sh: the library's placement over the hierarchy against a second
# implementation written from mapmon-protocol(7) alone (test/crush_ref.py),
# as TAP.
#
# For each seed, test/crush_mappings builds a random 3-level hierarchy
# (racks, hosts, OSDs of unequal weights and classes, an empty host, OSDs
# down, out and partly in, four rules) and prints the library's up sets of
# 4 x 1500 PGs; crush_ref.py computes them from the map's JSON; the two
# lists must be the same, line for line.
set -u

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
tool=${CRUSH_MAPPINGS:-$top_builddir/test/crush_mappings}
ref=$top_srcdir/test/crush_ref.py
T=$(mktemp -d /tmp/mapmon-crush-ref.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
. "$top_srcdir/test/lib/tap_lib.sh"

command -v python3 >/dev/null 2>&1 ||
    skip_all "python3 is not installed (dev.sh installs it for the tests)"

for seed in 1 2 3; do
	if ! "$tool" "$seed" "$T/map$seed.json" >"$T/c$seed.txt" 2>"$T/err"
	then
		notok "seed $seed: crush_mappings builds its map" "$(cat "$T/err")"
		continue
	fi
	if ! python3 "$ref" "$T/map$seed.json" >"$T/py$seed.txt" 2>"$T/err"
	then
		notok "seed $seed: crush_ref.py runs" "$(cat "$T/err")"
		continue
	fi
	nq=$(wc -l <"$T/c$seed.txt")
	short=$(awk '{ n = split($0, a, ","); if ($NF == "[]") n = 0;
	    if (n < $3) s++ } END { print s + 0 }' "$T/c$seed.txt")
	DIAG=$(diff "$T/c$seed.txt" "$T/py$seed.txt" | head -20)
	check "seed $seed: the reference computes the library's $nq up sets \
($short short)" test -z "$DIAG"
	# The comparison means something: sets of several sizes, some short.
	check "seed $seed: $nq queries, some short sets" \
	    test "$nq" -eq 6000 -a "$short" -gt 0
done
done_testing
