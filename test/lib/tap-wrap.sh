#!/bin/sh
# Run one test program so that it speaks TAP on stdout and automake's TAP
# driver counts every case: a Criterion binary (named test_*) reports each
# of its tests; any other check program counts as one case, passed when it
# exits 0, its output kept as TAP comments.
case "${1##*/}" in
test_*)
	exec "$@" --tap=- --ascii
	;;
*)
	out=$("$@" 2>&1)
	rc=$?
	echo "1..1"
	printf '%s\n' "$out" | sed 's/^/# /'
	if [ "$rc" -eq 0 ]; then
		echo "ok 1 - ${1##*/}"
	else
		echo "not ok 1 - ${1##*/} (exit status $rc)"
	fi
	;;
esac
