#!/bin/bash
# ops_install.sh: `make install' and `make uninstall' into a DESTDIR.
# Speaks TAP.
#
# Every program and man page the Makefile names, the unit, the sysusers.d
# file, the sample config and the bash completion are installed, and
# nothing else; the unit and the man pages carry this build's paths; the
# installed pages are mandoc -Tlint clean; the installed unit passes
# `systemd-analyze verify' (its binary and man pages taken from the
# DESTDIR); an existing config is never overwritten nor removed; uninstall
# leaves nothing else behind.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/test/lib/ops_lib.sh"

DEST=$T/dest
MK="make -s -C $top_builddir"

# The Makefile's own idea of what goes where.
$MK ops-print-install >"$T/vars" 2>"$T/err" ||
    { echo "Bail out! make ops-print-install failed: $(cat "$T/err")"; exit 1; }
var() { sed -n "s|^$1 ||p" "$T/vars"; }
EXEEXT=$(var EXEEXT)
unitdir=$(var systemdsystemunitdir)
sysusersdir=$(var sysusersdir)
sysconfdir=$(var sysconfdir)
sbindir=$(var sbindir)

expected() {
	local p m sec
	for p in $(var bin_PROGRAMS); do
		echo "$(var bindir)/$(basename "$p")"
	done
	for p in $(var sbin_PROGRAMS); do
		echo "$(var sbindir)/$(basename "$p")"
	done
	for m in $(var dist_man_MANS); do
		sec=${m##*.}
		echo "$(var mandir)/man$sec/$(basename "$m")"
	done
	echo "$sysconfdir/mapmon/mapmon.conf"
	echo "$(var bashcompletiondir)/mapmon"
	[ -n "$unitdir" ] && echo "$unitdir/mapmond.service" &&
	    echo "$unitdir/mapmond@.service"
	[ -n "$sysusersdir" ] && echo "$sysusersdir/mapmon.conf"
}
expected | sort >"$T/expected"
# The programs that HACKING and the man pages name must be among them.
for f in "$(var sbindir)/mapmond$EXEEXT" "$(var bindir)/mapmon$EXEEXT" \
    "$(var bindir)/mapmon-store$EXEEXT" "$(var mandir)/man8/mapmond.8" \
    "$(var mandir)/man5/mapmon.conf.5" "$(var mandir)/man8/mapmon.8" \
    "$(var mandir)/man8/mapmon-store.8"; do
	check "the install list has $f" grep -qxF "$f" "$T/expected"
done

$MK install DESTDIR="$DEST" >"$T/install.out" 2>&1
st=$?
DIAG=$(tail -n 20 "$T/install.out")
check "make install DESTDIR=... exits 0" test $st -eq 0
DIAG=
while read -r f; do
	check "installed: $f" test -f "$DEST$f"
done <"$T/expected"
(cd "$DEST" && find . -type f -o -type l) | sed 's|^\.||' | sort >"$T/got"
DIAG=$(comm -13 "$T/expected" "$T/got")
check "nothing installed but those" test -z "$DIAG"
DIAG=

for p in $(var bin_PROGRAMS) $(var sbin_PROGRAMS); do
	case $p in */mapmond*) d=$(var sbindir) ;; *) d=$(var bindir) ;; esac
	check "executable: $d/$(basename "$p")" \
	    test -x "$DEST$d/$(basename "$p")"
done
check "the installed mapmond runs" \
    bash -c "'$DEST$sbindir/mapmond$EXEEXT' --version >/dev/null"
check "the installed mapmond's default config is $sysconfdir/mapmon/mapmon.conf" \
    bash -c "'$DEST$sbindir/mapmond$EXEEXT' --help | grep -qF '$sysconfdir/mapmon/mapmon.conf'"

# The sample config, exactly.
conf=$DEST$sysconfdir/mapmon/mapmon.conf
check "the sample config is conf/mapmon.conf" \
    cmp -s "$top_srcdir/conf/mapmon.conf" "$conf"
check "mapmond -t accepts the installed config" \
    bash -c "'$DEST$sbindir/mapmond$EXEEXT' -t -c '$conf' >/dev/null"

# The unit and the sysusers.d file.
if [ -n "$unitdir" ]; then
	unit=$DEST$unitdir/mapmond.service
	check "the unit has no placeholder left" \
	    bash -c "! grep -q '@[a-z]*@' '$unit'"
	check "the unit runs this build's mapmond in the foreground" \
	    grep -qxF "ExecStart=$sbindir/mapmond -f -c $sysconfdir/mapmon/mapmon.conf" "$unit"
	for kv in Type=notify User=mapmon Group=mapmon StateDirectory=mapmon \
	    ConfigurationDirectory=mapmon LogsDirectory=mapmon \
	    'ExecReload=/bin/kill -HUP $MAINPID' Restart=on-failure \
	    NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes \
	    PrivateTmp=yes UMask=0077; do
		check "the unit sets $kv" grep -qxF "$kv" "$unit"
	done
	for k in ReadWritePaths LimitNOFILE WatchdogSec; do
		check "the unit sets $k" grep -q "^$k=" "$unit"
	done
	if command -v systemd-analyze >/dev/null; then
		mkdir -p "$T/unit"
		sed "s|^ExecStart=$sbindir/|ExecStart=$DEST$sbindir/|" "$unit" \
		    >"$T/unit/mapmond.service"
		MANPATH=$DEST$(var mandir) systemd-analyze verify \
		    "$T/unit/mapmond.service" >"$T/verify.out" 2>&1
		st=$?
		DIAG=$(cat "$T/verify.out")
		check "systemd-analyze verify: exit 0" test $st -eq 0
		check "systemd-analyze verify: no complaint" \
		    test ! -s "$T/verify.out"
		DIAG=
	else
		echo "# systemd-analyze not installed: verify not run"
	fi
fi
# The template of a quorum's monitors: instance NAME reads NAME.conf.
if [ -n "$unitdir" ]; then
	tunit=$DEST$unitdir/mapmond@.service
	check "the template has no placeholder left" \
	    bash -c "! grep -q '@[a-z]*@' '$tunit'"
	check "the template runs mapmond with the instance's config" \
	    grep -qxF "ExecStart=$sbindir/mapmond -f -c $sysconfdir/mapmon/%i.conf" "$tunit"
	check "the template differs from the unit only in its name and config" \
	    bash -c "diff <(grep -v '^#' '$unit' | grep -v '^ExecStart=\|^Description=') \
		<(grep -v '^#' '$tunit' | grep -v '^ExecStart=\|^Description=')"
	if command -v systemd-analyze >/dev/null; then
		mkdir -p "$T/unit"
		sed "s|^ExecStart=$sbindir/|ExecStart=$DEST$sbindir/|" \
		    "$tunit" >"$T/unit/mapmond@.service"
		cp "$T/unit/mapmond@.service" "$T/unit/mapmond@a.service"
		MANPATH=$DEST$(var mandir) systemd-analyze verify \
		    "$T/unit/mapmond@a.service" >"$T/verify.out" 2>&1
		st=$?
		DIAG=$(cat "$T/verify.out")
		check "systemd-analyze verify mapmond@a: exit 0" test $st -eq 0
		check "systemd-analyze verify mapmond@a: no complaint" \
		    test ! -s "$T/verify.out"
		DIAG=
	fi
fi
if [ -n "$sysusersdir" ]; then
	check "sysusers.d makes the user mapmon" \
	    grep -q '^u mapmon ' "$DEST$sysusersdir/mapmon.conf"
fi

# The man pages: this build's config path, lint clean.
man8=$DEST$(var mandir)/man8
check "mapmond(8) names $sysconfdir/mapmon/mapmon.conf" \
    grep -qF "$sysconfdir/mapmon/mapmon.conf" "$man8/mapmond.8"
if [ "$sysconfdir" != /etc ]; then
	DIAG=$(grep -rE '(^|[^[:alnum:]_./-])/etc/mapmon' "$DEST$(var mandir)")
	check "no installed page names /etc/mapmon any more" test -z "$DIAG"
	DIAG=
fi
if command -v mandoc >/dev/null; then
	for m in $(var dist_man_MANS); do
		f=$DEST$(var mandir)/man${m##*.}/$(basename "$m")
		mandoc -Tlint -W warning "$f" >"$T/lint" 2>&1
		DIAG=$(cat "$T/lint")
		check "mandoc -Tlint clean: $(basename "$m")" test ! -s "$T/lint"
		DIAG=
	done
fi

# A config of the administrator's is kept, by install and by uninstall.
echo "# the administrator's own line" >>"$conf"
$MK install DESTDIR="$DEST" >"$T/install2.out" 2>&1
check "make install over an install exits 0" test $? -eq 0
check "install keeps an existing config" \
    grep -q "the administrator's own line" "$conf"
check "... and says so" grep -q "keeping the existing" "$T/install2.out"
$MK uninstall DESTDIR="$DEST" >"$T/uninstall.out" 2>&1
check "make uninstall exits 0" test $? -eq 0
(cd "$DEST" && find . -type f -o -type l) | sed 's|^\.||' >"$T/left"
DIAG=$(cat "$T/left")
check "uninstall leaves only the changed config" \
    test "$(cat "$T/left")" = "$sysconfdir/mapmon/mapmon.conf"
DIAG=

# An unchanged sample is removed by uninstall.
$MK install DESTDIR="$DEST" >/dev/null 2>&1
cp "$top_srcdir/conf/mapmon.conf" "$conf"
$MK uninstall DESTDIR="$DEST" >/dev/null 2>&1
(cd "$DEST" && find . -type f -o -type l) >"$T/left"
DIAG=$(cat "$T/left")
check "uninstall of an unchanged install leaves no file" test ! -s "$T/left"

done_testing
