#!/bin/sh
# dev.sh: the README's two commands.
#
#   ./dev.sh demo   install what is missing, build, run the monitor with a
#                   small live demo cluster
#   ./dev.sh test   install what is missing, build, run the whole test suite
#
# Builds in ./build (out of tree).  Needs root, or sudo, only when Debian
# packages are missing.
set -eu

top=$(cd "$(dirname "$0")" && pwd)
build="$top/build"
jobs=$(nproc 2>/dev/null || echo 2)

# Debian 12 packages the build and the tests need.
packages="build-essential autoconf automake pkg-config libevent-dev
liblmdb-dev libleveldb-dev libjansson-dev libcriterion-dev libinih-dev
libsystemd-dev mandoc"

say() { printf '==> %s\n' "$*"; }

install_missing() {
	missing=""
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	say "installing:$missing"
	if [ "$(id -u)" -eq 0 ]; then
		sudo=""
	elif command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		echo "dev.sh: missing packages:$missing; run as root or install them" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing
}

build() {
	cd "$top"
	if [ ! -x configure ] || [ configure.ac -nt configure ]; then
		say "autoreconf"
		autoreconf -fi
	fi
	mkdir -p "$build"
	cd "$build"
	if [ ! -f Makefile ]; then
		say "configure"
		../configure -q "$@"
	fi
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

case "${1:-}" in
demo)
	install_missing
	build
	demo
	;;
test)
	install_missing
	build
	tests
	;;
*)
	echo "usage: ./dev.sh demo | test" >&2
	exit 64
	;;
esac
