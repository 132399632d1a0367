# tap_lib.sh: TAP output for the test scripts (sourced, not run).
#
#   ok DESC              a passed test
#   notok DESC [DIAG]    a failed one; DIAG is printed as # comments (at
#                        most TAP_DIAG_LINES lines, 100 unless set)
#   check DESC CMD...    ok when CMD succeeds, else notok with what
#                        check_diag prints (${DIAG:-} unless the script
#                        defines its own check_diag after sourcing this)
#   skip_all WHY         the plan "1..0 # SKIP WHY", exit 0
#   done_testing         the plan, then exit 1 if anything failed
#   tap_relay FILE       a program's "ok - DESC" and "not ok - DESC" lines
#                        numbered into this script's plan (a "not ok" with
#                        "# TODO" is a known failure: reported, not counted
#                        as failed), every other line as it is
#
# With TAP_PER_BACKEND set, every description starts with "$BACKEND: ",
# for the scripts that run their tests once per store backend.
n=0
failed=0

tap_desc() {
	if [ -n "${TAP_PER_BACKEND:-}" ]; then
		printf '%s: %s' "$BACKEND" "$1"
	else
		printf '%s' "$1"
	fi
}
ok() {
	n=$((n + 1))
	echo "ok $n - $(tap_desc "$1")"
}
notok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $(tap_desc "$1")"
	[ -n "${2:-}" ] && printf '%s\n' "$2" |
	    head -n "${TAP_DIAG_LINES:-100}" | sed 's/^/# /'
	return 0
}
check_diag() {
	printf '%s' "${DIAG:-}"
}
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d" "$(check_diag)"; fi
}
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}
done_testing() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit $?
}
tap_relay() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*"# TODO"*)
			n=$((n + 1))
			echo "not ok $n - $(tap_desc "${line#not ok - }")"
			;;
		"not ok - "*) notok "${line#not ok - }" ;;
		*) echo "$line" ;;
		esac
	done <"$1"
}
