#!/bin/sh
# mon_scenario.sh: the whole-cluster scenario of test/e2e/mon_scenario.c on
# each backend (5,000 PGs over 16 OSDs here; see the program for the
# full-size run), its TAP cases renumbered into one stream.
set -u
: "${top_builddir:=.}"
prog=${MON_SCENARIO:-$top_builddir/test/e2e/mon_scenario}
for be in lmdb leveldb; do
	"$prog" -b "$be" -n "${SCENARIO_PGS:-5000}" -o 16 2>&1 |
	    sed "s/^\(not \)\{0,1\}ok [0-9]* - /&$be: /"
done | awk '
/^(not )?ok [0-9]+ - / {
	n++
	sub(/ok [0-9]+ - /, "ok " n " - ")
	print
	next
}
/^1\.\.[0-9]+$/ { next }
{ print "# " $0 }
END { print "1.." n }'
