#!/bin/bash
# layers.sh: the layering rules written at the top of Makefile.am, checked
# on the sources: which folder's files may include which folder's headers,
# and that the CLI's binary carries nothing of the monitor core or the
# store.  One case per folder, and one for the CLI's link.
set -u
. "$top_srcdir/test/lib/tap_lib.sh"
cd "$top_srcdir" || exit 1

# folder: the folders whose headers its .c and .h files may include.
rules="
common:common
conf:common conf
store:common store
net:common net
map:common map
mon:common conf store map mon
daemon:common conf store net map mon daemon
tools:common conf store net map mon tools
tools/bench:common conf store net map mon tools tools/bench
"
# The CLI's own sources: a client, so no core and no store.
cli_rule="common conf net map tools"
cli_files="tools/mapmon.c tools/cli_args.c tools/cli_args.h
tools/mapmon_fmt.c tools/mapmon_fmt.h tools/osdmap_cache.c
tools/osdmap_cache.h"

# Print FILE: "HEADER" for every project include of FILE outside ALLOWED.
offending() {
	local allowed=$1 f inc top ok_
	shift
	for f in "$@"; do
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			case $inc in config.h) continue ;; esac
			top=${inc%/*}
			ok_=no
			for a in $allowed; do
				# tools/ may include tools/x.h, tools/bench/ its own.
				[ "$top" = "$a" ] && ok_=yes
			done
			[ "$ok_" = yes ] || echo "$f: \"$inc\""
		done
	done
}

while IFS=: read -r dir allowed; do
	[ -n "$dir" ] || continue
	files=$(ls "$dir"/*.[ch] 2>/dev/null)
	[ -n "$files" ] || { notok "$dir: has sources"; continue; }
	bad=$(offending "$allowed" $files)
	if [ -z "$bad" ]; then
		ok "$dir/ includes only: $allowed"
	else
		notok "$dir/ includes only: $allowed" "$bad"
	fi
done <<<"$rules"

bad=$(offending "$cli_rule" $cli_files)
if [ -z "$bad" ]; then
	ok "the CLI's sources include no monitor core or store"
else
	notok "the CLI's sources include no monitor core or store" "$bad"
fi

# The key schema and the core's insides stay in the core: outside mon/,
# only the store tool (which reads records offline) includes mon/keys.h,
# and nothing includes mon/mon_priv.h.
bad=$(grep -l '^#include "mon/\(keys\|mon_priv\)\.h"' common/*.[ch] conf/*.[ch] \
    store/*.[ch] net/*.[ch] map/*.[ch] daemon/*.[ch] tools/*.[ch] \
    tools/bench/*.[ch] | grep -v '^tools/mapmon_store\.c$')
bad="$bad$(grep -l '^#include "mon/mon_priv\.h"' tools/mapmon_store.c)"
if [ -z "$bad" ]; then
	ok "the key schema and mon_priv.h stay in the core"
else
	notok "the key schema and mon_priv.h stay in the core" "$bad"
fi

# The link: no function of the core (mon_*) or the store (store_*) is in
# the CLI's binary.
cli="$top_builddir/tools/mapmon"
if [ ! -x "$cli" ]; then
	notok "the CLI links no monitor core" "no $cli"
elif ! command -v nm >/dev/null; then
	notok "the CLI links no monitor core" "no nm on PATH"
else
	bad=$(nm --defined-only "$cli" | awk '$2 ~ /^[TtDdBbRr]$/ &&
	    $3 ~ /^(mon|store)_/ { print $3 }' | head -n 20)
	if [ -z "$bad" ]; then
		ok "the CLI links no monitor core (nm: no mon_* or store_*)"
	else
		notok "the CLI links no monitor core" "$bad"
	fi
fi
done_testing
