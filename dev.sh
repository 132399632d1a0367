#!/bin/sh
# dev.sh: the README's two commands.
#
#   ./dev.sh demo   install what is missing, build, run the monitor with a
#                   small live demo cluster
#   ./dev.sh test   install what is missing, build, run the whole test suite
#
# and, for CI and reliability work (.ci/run calls them after `test`):
#
#   ./dev.sh sanitize        the whole suite again built with ASan+UBSan
#                            (LeakSanitizer on), in ./build-asan; fails on
#                            any sanitizer report, even one from a process
#                            whose exit status no test looks at
#   ./dev.sh fuzz [SECONDS]  build the libFuzzer targets with clang in
#                            ./build-fuzz and run each for SECONDS (60) on
#                            a copy of its seed corpus (test/fuzz/NAME);
#                            a finding is kept in ./build-fuzz/findings
#
#   ./dev.sh deps            only install what the build and the tests
#                            need (the first step of `test')
#
# and for the benchmarks (BENCHMARKS.md):
#
#   ./dev.sh bench [ARGS]    install what is missing and gnuplot (which
#                            draws coldstart.svg), build, and run
#                            mapmon-bench ARGS from the current directory
#
# Builds in ./build (out of tree).  Needs root, or sudo, only when Debian
# packages are missing.
set -eu

here=$(pwd)
top=$(cd "$(dirname "$0")" && pwd)
build="$top/build"
jobs=$(nproc 2>/dev/null || echo 2)

# Debian 12 packages the build needs, and what the tests add.
packages="build-essential autoconf automake pkg-config libevent-dev
liblmdb-dev libleveldb-dev libjansson-dev libsystemd-dev libssl-dev
libuv1-dev libzstd-dev"
# The monitors' consensus engine, C-Raft: 0.22.1 (the maintained cowsql
# fork) comes from the backports suite of Debian 12, pinned so that it
# alone comes from there (enable_raft_backports); bookworm main's 0.15.0
# is the fallback configure accepts.
raft_want="0.22.1"
# prometheus brings promtool, which checks /metrics (its server is not
# wanted: stop_service_installed stops it); openssl makes the
# certificates of the TLS tests; python3 runs the second implementation
# of placement (test/crush_ref.py).
test_packages="libcriterion-dev mandoc clang-format prometheus openssl
python3"
# What the fuzz targets add: clang and its libFuzzer/sanitizer runtimes
# (a Recommends of clang, which --no-install-recommends leaves out).
fuzz_packages="clang libclang-rt-14-dev"
fuzz_targets="auth cmd conf frame record"
# What the benchmark adds: gnuplot draws its plot (no X11 needed).
bench_packages="gnuplot-nox"

say() { printf '==> %s\n' "$*"; }

pick_sudo() {
	if [ "$(id -u)" -eq 0 ]; then
		sudo=""
	elif command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		echo "dev.sh: missing packages:${missing:-libraft-dev};" \
		    "run as root or install them" >&2
		exit 1
	fi
}

install_missing() {
	missing=""
	for p in $packages ${1:-}; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q 'install ok installed' || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		install_list
	fi
	install_raft
}

install_list() {
	say "installing:$missing"
	pick_sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing
}

# Enable the backports suite of the Debian mirror this machine already
# uses (read from its own apt sources, so no host is named here) and pin it
# so that only libraft-dev and libraft0 come from it: every other package
# keeps its version from the release.
enable_raft_backports() {
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	if [ -z "$codename" ]; then
		echo "dev.sh: /etc/os-release names no VERSION_CODENAME;" \
		    "cannot find the backports suite for libraft-dev" >&2
		return 1
	fi
	bpo="$codename-backports"
	list=/etc/apt/sources.list.d/mapmon-backports.list
	prefs=/etc/apt/preferences.d/mapmon-raft
	# The mirror: the first URI of a source carrying "$codename" with
	# component main, in deb822 files or one-line lists.
	mirror=$(
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] && cat "$f" && echo
		done | awk -v c="$codename" '
		    /^$/ { if (u != "" && s ~ ("(^| )" c "( |$)") &&
			       m ~ /(^| )main( |$)/ && out == "") out = u
			   u = s = m = ""; next }
		    /^URIs:/ { u = $2 }
		    /^Suites:/ { $1 = ""; s = $0; sub(/^ /, "", s) }
		    /^Components:/ { $1 = ""; m = $0; sub(/^ /, "", m) }
		    END { if (out == "" && u != "" && s ~ ("(^| )" c "( |$)"))
			      out = u
			  print out }')
	if [ -z "$mirror" ]; then
		mirror=$(cat /etc/apt/sources.list \
		    /etc/apt/sources.list.d/*.list 2>/dev/null |
		    awk -v c="$codename" '$1 == "deb" && $0 !~ /\[/ &&
			$3 == c { print $2; exit }
			$1 == "deb" && $3 ~ /\]/ && $4 == c { print $3; exit }')
	fi
	if [ -z "$mirror" ]; then
		echo "dev.sh: no apt source of the Debian release $codename" \
		    "found in /etc/apt: cannot add $bpo for libraft-dev" >&2
		return 1
	fi
	say "enabling $bpo from $mirror for libraft-dev/libraft0 only"
	echo "deb $mirror $bpo main" | $sudo tee "$list" >/dev/null
	printf '%s\n' \
	    "# mapmon (dev.sh): only C-Raft comes from $bpo." \
	    "Package: *" "Pin: release n=$bpo" "Pin-Priority: -1" "" \
	    "Package: libraft-dev libraft0" "Pin: release n=$bpo" \
	    "Pin-Priority: 990" | $sudo tee "$prefs" >/dev/null
}

# libraft-dev $raft_want unless it is there already: the backports suite
# pinned as above, then the install.
install_raft() {
	v=$(dpkg-query -W -f='${Version}' libraft-dev 2>/dev/null || true)
	case "$v" in
	"$raft_want"*) return 0 ;;
	esac
	pick_sudo
	enable_raft_backports
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends libraft-dev
	v=$(dpkg-query -W -f='${Version}' libraft-dev 2>/dev/null || true)
	case "$v" in
	"$raft_want"*) say "libraft-dev $v installed" ;;
	*)
		echo "dev.sh: libraft-dev $raft_want not installed" \
		    "(apt gave '${v:-nothing}')" >&2
		return 1
		;;
	esac
}

# A package installed only for a tool may start a server on this machine
# (prometheus listens on 9090): stop and disable it if this run installed it.
stop_service_installed() {
	case " ${missing:-} " in
	*" $1 "*) ;;
	*) return 0 ;;
	esac
	if command -v systemctl >/dev/null 2>&1 &&
	    systemctl is-enabled "$1" >/dev/null 2>&1; then
		say "stopping the $1 service the package started (only $2 is used)"
		${sudo:-} systemctl disable --now "$1" >/dev/null 2>&1 || true
	fi
}

# Configure $build (once) with the arguments given.
configure_build() {
	cd "$top"
	if [ ! -x configure ] || [ configure.ac -nt configure ]; then
		say "autoreconf"
		autoreconf -fi
	fi
	mkdir -p "$build"
	cd "$build"
	if [ ! -f Makefile ]; then
		say "configure $*"
		"$top/configure" -q "$@"
	fi
}

build() {
	configure_build "$@"
	say "make -j$jobs"
	make -s -j"$jobs"
}

demo() {
	# The demo itself lives in tools/demo.sh; this script only installs
	# and builds.
	exec "$top/tools/demo.sh" "$build"
}

tests() {
	say "make check"
	cd "$build"
	make -j"$jobs" check
}

sanitize() {
	# Reports go to files as well as failing their process: a report in
	# a daemon that a test only kills, or in a child whose exit status
	# nobody reads, still fails the run.
	reports="$build/sanitizer-reports"
	rm -rf "$reports"
	mkdir -p "$reports"
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:log_path=$reports/asan"
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
	LSAN_OPTIONS="log_path=$reports/lsan"
	export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
	say "make check (ASan+UBSan)"
	cd "$build"
	rc=0
	make -j"$jobs" check || rc=$?
	if [ -n "$(ls -A "$reports")" ]; then
		echo "dev.sh: sanitizer reports:" >&2
		for f in "$reports"/*; do
			echo "==> $f" >&2
			cat "$f" >&2
		done
		echo "# SANITIZER: $(find "$reports" -type f | wc -l) report(s)"
		rc=1
	fi
	return "$rc"
}

# Run fuzz target $1 for $2 seconds; prints one PASS: or FAIL: line.
fuzz_one() {
	t=$1
	work="$build/fuzz-run/$t"
	rm -rf "$work"
	mkdir -p "$work/corpus" "$build/findings"
	# libFuzzer adds what it finds to the first directory: never the
	# tree's seeds.
	cp "$top/test/fuzz/$t"/* "$work/corpus/"
	if "$build/test/fuzz/fuzz_$t" -max_total_time="$2" -timeout=25 \
	    -print_final_stats=1 -artifact_prefix="$build/findings/$t-" \
	    "$work/corpus" >"$work/log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		    "$work/log")
		cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -n 1)
		echo "PASS: fuzz_$t ($runs runs in $2 s, $cov)"
	else
		tail -n 60 "$work/log" | sed 's/^/#   /'
		echo "FAIL: fuzz_$t (finding in $build/findings/$t-*)"
	fi
}

fuzz() {
	secs=${1:-60}
	cd "$build"
	say "make the fuzz targets"
	bins=""
	for t in $fuzz_targets; do
		bins="$bins test/fuzz/fuzz_$t"
	done
	# shellcheck disable=SC2086
	make -s -j"$jobs" $bins
	say "fuzz each target for $secs s, $jobs at a time"
	rm -rf "$build/fuzz-run"
	mkdir -p "$build/fuzz-run"
	n=0
	for t in $fuzz_targets; do
		fuzz_one "$t" "$secs" >"$build/fuzz-run/$t.result" &
		n=$((n + 1))
		if [ "$n" -ge "$jobs" ]; then
			wait
			n=0
		fi
	done
	wait
	pass=0
	fail=0
	for t in $fuzz_targets; do
		cat "$build/fuzz-run/$t.result"
		if grep -q '^PASS:' "$build/fuzz-run/$t.result"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
		fi
	done
	echo "# FUZZ: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

case "${1:-}" in
deps)
	install_missing "$test_packages"
	;;
demo)
	install_missing
	build
	demo
	;;
test)
	install_missing "$test_packages"
	stop_service_installed prometheus promtool
	build
	tests
	;;
sanitize)
	install_missing "$test_packages"
	stop_service_installed prometheus promtool
	build="$top/build-asan"
	build --enable-sanitizers
	sanitize
	;;
bench)
	shift
	# Standard output is the benchmark's alone (its markdown table).
	install_missing "$bench_packages" >&2
	build >&2
	# Relative paths in ARGS (-o DIR) are the caller's.
	cd "$here"
	exec "$build/tools/mapmon-bench" "$@"
	;;
fuzz)
	install_missing "$fuzz_packages"
	build="$top/build-fuzz"
	# Only the targets are built (in fuzz), all with clang.
	configure_build CC=clang --enable-fuzzing
	fuzz "${2:-60}"
	;;
*)
	echo "usage: ./dev.sh demo | test | deps | sanitize | fuzz [SECONDS] |" \
	    "bench [ARGS]" >&2
	exit 64
	;;
esac
