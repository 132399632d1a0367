#!/bin/bash
# crush_props.sh: the properties of the placement hierarchy (issue 15,
# mapmon-protocol(7) PLACEMENT) against the running mapmond, once per store
# backend, read from its `pg dump pgs_brief' before and after each change.
#
#   the tree   root default > racks r0 r1 r2 > hosts h0 .. h5 (two a rack)
#              > 18 OSDs (three a host; osd.i on host h(i/3), rack
#              r(i/6)), booted at their location, crush weights 0.5, 1,
#              1.5, 2 by turns, the first OSD of each host of class ssd;
#              pools on replicated_rule (hosts), on a rule of rack domain
#              and on a class rule (ssd, hosts)
#   (a)        all up: no PG has two copies under one host; on the rack
#              rule, under one rack; the class rule draws only ssd
#   (b)        osd reweight N moves only PGs to or from osd.N; osd crush
#              reweight osd.N moves only PGs with a copy under its rack,
#              most of them to or from osd.N
#   (c)        osd out N moves only PGs that had osd.N
#   (f)        test/crush_ref.py, fed `osd crush dump' and `osd dump',
#              computes the daemon's up set of every PG, OSDs down and out
#   (d)        root eq: 16 hosts of 4 equal OSDs; a host of 4 more moves
#              about 4/68 of the copies
#   (e)        root big: 100,000 PGs over 64 OSDs in 8 hosts, per-OSD
#              counts within 10% of the weighted mean
#
# Speaks TAP.  Needs $top_builddir (and $top_srcdir), and python3 for (f).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
. "$top_srcdir/test/lib/backend_lib.sh"
TAP_PER_BACKEND=1
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
JG=$top_builddir/test/lib/json_get
REF=$top_srcdir/test/crush_ref.py

T=$(mktemp -d /tmp/crush_props.XXXXXX) || exit 99
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
check_diag() {
	printf '%s' "${DIAG:-}"
}

# must DESC ARGS...: run ARGS; only a failure is a TAP line.
must() {
	local d=$1
	shift
	run "$@"
	[ "$rc" -eq 0 ] || notok "$d" "exit $rc: $(head -c 400 "$T/err")"
}

# snap FILE: every PG's up set as the daemon has it, "PGID a,b,c" a line.
snap() {
	"$MAPMON" -m "$ADDR" pg dump pgs_brief 2>/dev/null | awk '
	    NR > 1 && $1 ~ /^[0-9]+\.[0-9a-f]+$/ {
		s = $3; gsub(/[][]/, "", s); print $1, s }' >"$1"
}

# pool_id NAME: the pool's id in `osd dump'.
pool_id() {
	local i=0 name
	"$MAPMON" -m "$ADDR" -f json osd dump >"$T/od" 2>/dev/null
	while name=$("$JG" "pools.$i.pool_name" <"$T/od"); do
		if [ "$name" = "$1" ]; then
			"$JG" "pools.$i.pool" <"$T/od"
			return 0
		fi
		i=$((i + 1))
	done
	return 1
}

# spread FILE POOL DIV SIZE [CLASSOSDS [BASE]]: every PG of POOL has SIZE
# copies, no two under one domain, where osd.i's is (i - BASE) / DIV
# (BASE 0: in the first tree, DIV 3 is its host, 6 its rack), each one of
# CLASSOSDS (comma-separated) when given.  DIAG says the first PGs that
# break it.
spread() {
	DIAG=$(awk -v pool="$2" -v div="$3" -v want="$4" -v cls="${5:-}" \
	    -v base="${6:-0}" '
	    { split($1, p, "."); if (p[1] != pool) next
	      n = $2 == "" ? 0 : split($2, ids, ",")
	      pgs++; bad = (n != want)
	      delete seen
	      for (i = 1; i <= n; i++) {
		  if (seen[int((ids[i] - base) / div)]++) bad = 1
		  if (cls != "" && ("," cls ",") !~ ("," ids[i] ",")) bad = 1
	      }
	      if (bad && nbad++ < 5) print "PG " $1 " [" $2 "]" }
	    END { if (pgs == 0) print "no PG of pool " pool
		  exit !(pgs > 0 && nbad == 0) }' "$1")
}

# moves BEFORE AFTER OSD [DIV]: how many PGs changed their up set
# ($MOVED), of them those with osd.OSD before or after ($WITH), and those
# with neither a copy under OSD's bucket (OSDs i / DIV alike, DIV 1 by
# default: osd.OSD itself) before nor after ($STRAY; DIAG names a few).
moves() {
	local r
	r=$(awk -v osd="$3" -v div="${4:-1}" '
	    function any(s, eq,   n, i, a) {
		n = s == "" ? 0 : split(s, a, ",")
		for (i = 1; i <= n; i++)
		    if (eq ? a[i] == osd : int(a[i] / div) == int(osd / div))
			return 1
		return 0 }
	    NR == FNR { up[$1] = $2; next }
	    !($1 in up) { next }
	    up[$1] != $2 { moved++
		with += any(up[$1], 1) || any($2, 1)
		if (!any(up[$1], 0) && !any($2, 0) && stray++ < 5)
		    diag = diag sprintf("PG %s [%s] -> [%s]; ", $1, up[$1], $2)
	    }
	    END { print moved + 0, with + 0, stray + 0, diag }' "$1" "$2")
	read -r MOVED WITH STRAY DIAG <<<"$r"
}

# copies_moved BEFORE AFTER POOL NEW: "MOVED TOTAL ONTO", the copies of
# POOL's PGs on an OSD that did not hold them before, the copies before,
# and the copies after on the OSDs from NEW up.
copies_moved() {
	awk -v pool="$3" -v new="$4" '
	    { split($1, p, "."); if (p[1] != pool) next }
	    NR == FNR { up[$1] = $2; next }
	    { nb = up[$1] == "" ? 0 : split(up[$1], b, ",")
	      na = $2 == "" ? 0 : split($2, a, ",")
	      total += nb
	      delete had
	      for (i = 1; i <= nb; i++) had[b[i]] = 1
	      for (i = 1; i <= na; i++) {
		  moved += !(a[i] in had); onto += a[i] >= new + 0 } }
	    END { print moved + 0, total + 0, onto + 0 }' "$1" "$2"
}

# within PCT OBSERVED EXPECTED: |OBSERVED / EXPECTED - 1| < PCT / 100.
within() {
	awk -v p="$1" -v o="$2" -v e="$3" 'BEGIN {
	    d = o / e - 1; if (d < 0) d = -d; exit !(e > 0 && d < p / 100) }'
}

# w_uneven I: the crush weight of osd.I in the first tree.
w_uneven() {
	case $(($1 % 4)) in 0) echo 0.5 ;; 1) echo 1 ;; 2) echo 1.5 ;; 3) echo 2 ;; esac
}

suite() {
	# The 100,000-PG pool is past Ceph's mon_max_pool_pg_num and
	# mon_max_pg_per_osd defaults: the limits are raised for it.
	suite_start "$1" "max_pool_pg_num = 131072
max_pg_per_osd = 10000"

	# The first tree: 18 OSDs booted at host=hH rack=rR (the monitor
	# makes the buckets under root default), then their crush weights
	# and classes, before any pool.
	local i ssd=
	for i in $(seq 0 17); do
		must "osd create $i" osd create
		must "osd boot $i" osd boot "$i" "127.0.0.1:$((6800 + i))" \
		    "host=h$((i / 3))" "rack=r$((i / 6))"
		must "osd crush reweight osd.$i" osd crush reweight "osd.$i" \
		    "$(w_uneven "$i")"
		[ $((i % 3)) = 0 ] && ssd=$ssd${ssd:+,}$i
	done
	# shellcheck disable=SC2046
	must "set-device-class ssd" osd crush set-device-class ssd \
	    $(echo "$ssd" | tr , ' ')
	local where=0
	for i in $(seq 0 17); do
		run -f json osd find "$i"
		[ "$(jget crush_location.host crush_location.rack \
		    crush_location.root | tr '\n' ' ')" = \
		    "h$((i / 3)) r$((i / 6)) default " ] && where=$((where + 1))
	done
	check "the 18 OSDs are where they booted: host h(i/3), rack r(i/6)" \
	    test "$where" = 18
	must "rule byrack" osd crush rule create-replicated byrack default rack
	must "rule fast" osd crush rule create-replicated fast default host ssd
	must "pool hosts" osd pool create hosts 1024 1024 replicated \
	    replicated_rule
	must "pool racks" osd pool create racks 1024 1024 replicated byrack
	must "pool fast" osd pool create fast 512 512 replicated fast
	PH=$(pool_id hosts)
	PR=$(pool_id racks)
	PF=$(pool_id fast)
	snap "$T/s0"

	# (a) Every OSD up: three hosts of six, three racks of three.
	check "(a) all up, replicated_rule: 1024 PGs of 3 copies on 3 hosts" \
	    spread "$T/s0" "$PH" 3 3
	check "(a) all up, rule byrack (domain rack): 1024 PGs of 3 copies \
in 3 racks" spread "$T/s0" "$PR" 6 3
	check "(a) all up, rule fast (class ssd): 512 PGs of 3 ssd copies on \
3 hosts" spread "$T/s0" "$PF" 3 3 "$ssd"

	# (b) osd reweight: the OSD's 0..1 weight, a rejection at the leaf
	# only (Ceph's is_out): no PG moves without osd.7.
	must "osd reweight 7 0.5" osd reweight 7 0.5
	snap "$T/s1"
	moves "$T/s0" "$T/s1" 7
	check "(b) osd reweight 7 0.5: only PGs to or from osd.7 move \
($MOVED of 2560 moved, $WITH with osd.7)" eval \
	    '[ "$MOVED" -gt 0 ] && [ "$WITH" = "$MOVED" ]'
	must "osd reweight 7 1" osd reweight 7 1
	snap "$T/s2"
	check "(b) osd reweight 7 1: every PG back where it was" \
	    cmp -s "$T/s0" "$T/s2"
	# osd crush reweight: the crush weight is also its host's and its
	# rack's, which straw2 draws at the levels above (Ceph's straw2
	# bucket_straw2_choose on each bucket of the descent): a PG may move
	# into or out of the rack to another of its OSDs, but no PG moves
	# without a copy under that rack, and most of them move to or from
	# osd.7 itself.
	must "osd crush reweight osd.7 3" osd crush reweight osd.7 3
	snap "$T/s3"
	moves "$T/s0" "$T/s3" 7 6
	check "(b) osd crush reweight osd.7 3: only PGs with a copy under \
rack r1 move, most to or from osd.7 ($MOVED moved, $WITH with osd.7, \
$STRAY without r1)" eval '[ "$MOVED" -gt 0 ] && [ "$STRAY" = 0 ] &&
	    [ $((WITH * 2)) -gt "$MOVED" ]'
	must "osd crush reweight osd.7 back" osd crush reweight osd.7 \
	    "$(w_uneven 7)"
	snap "$T/s4"
	check "(b) osd crush reweight osd.7 back: every PG back where it was" \
	    cmp -s "$T/s0" "$T/s4"

	# (c) osd out: only the PGs that had the OSD move, and they keep
	# their copies (a host of three still has two OSDs in).
	must "osd out 10" osd out 10
	snap "$T/s5"
	moves "$T/s0" "$T/s5" 10
	local kept
	kept=$(awk '{ if (("," $2 ",") ~ /,10,/) n++ } END { print n + 0 }' \
	    "$T/s5")
	check "(c) osd out 10: only PGs that had osd.10 move ($MOVED moved, \
$WITH had it)" eval '[ "$MOVED" -gt 0 ] && [ "$WITH" = "$MOVED" ] &&
	    [ "$kept" = 0 ]'
	check "(c) ... and still 3 copies on 3 hosts, 3 racks" eval \
	    'spread "$T/s5" "$PH" 3 3 && spread "$T/s5" "$PR" 6 3'

	# (f) The second implementation, written from mapmon-protocol(7)
	# alone, fed the daemon's dumps: osd.10 out, osd.4 and the whole of
	# rack r2 (osd.12 .. osd.17) down, osd.8 partly in; the rack rule's
	# sets are short (two racks left).
	must "osd down 4 12 .. 17" osd down 4 12 13 14 15 16 17
	must "osd reweight 8 0.6" osd reweight 8 0.6
	if command -v python3 >/dev/null 2>&1; then
		"$MAPMON" -m "$ADDR" -f json osd crush dump >"$T/crush.json"
		"$MAPMON" -m "$ADDR" -f json osd dump >"$T/osd.json"
		snap "$T/s6"
		python3 "$REF" "$T/crush.json" "$T/osd.json" 2>"$T/err" |
		    tr -d '[]' | sort >"$T/ref"
		sort "$T/s6" >"$T/dmn"
		local short
		short=$(awk '{ if (split($2, a, ",") < 3) n++ } END {
		    print n + 0 }' "$T/dmn")
		DIAG=$(cat "$T/err"; diff "$T/dmn" "$T/ref" | head -20)
		check "(f) crush_ref.py computes the daemon's up set of all \
$(wc -l <"$T/dmn") PGs ($short short; osd.10 out, 4 and 12 .. 17 down, 8 \
at 0.6)" eval '[ -s "$T/ref" ] && cmp -s "$T/dmn" "$T/ref"'
		check "(f) ... every PG compared, and some short" eval \
		    '[ "$(wc -l <"$T/dmn")" = 2560 ] && [ "$short" -ge 1024 ]'
		# pg dump's up sets are the monitor's `pg map' (sent raw, so
		# the CLI does not compute it): 16 PGs of each pool.
		local pg up same=0
		for pg in $(awk '{ split($1, p, "."); if (n[p[1]]++ < 16)
		    print $1 }' "$T/s6"); do
			up=$("$MAPMON" -m "$ADDR" -f json raw \
			    "{\"prefix\":\"pg map\",\"pgid\":\"$pg\"}" |
			    "$JG" up | tr -d '[] \n')
			grep -qx "$pg $up" "$T/s6" && same=$((same + 1))
		done
		check "(f) ... and pg dump's up sets are the monitor's pg map \
($same of 48 PGs)" test "$same" = 48
	else
		ok "(f) # SKIP python3 is not installed"
	fi

	# (d) Adding a host of 4 OSDs to 64 equal ones (16 hosts of 4 under
	# root eq) moves about 4/68 of the copies, within 20%, and the new
	# host takes about as much.
	must "add-bucket eq" osd crush add-bucket eq root
	for i in $(seq 18 85); do
		must "osd create $i" osd create
	done
	for i in $(seq 18 81); do
		must "osd boot $i" osd boot "$i" "127.0.0.1:$((6800 + i))" \
		    "host=e$(((i - 18) / 4))" root=eq
	done
	must "rule oneq" osd crush rule create-replicated oneq eq host
	must "pool eq" osd pool create eq 20000 20000 replicated oneq
	PE=$(pool_id eq)
	snap "$T/d0"
	for i in $(seq 82 85); do
		must "osd boot $i" osd boot "$i" "127.0.0.1:$((6800 + i))" \
		    host=e16 root=eq
	done
	snap "$T/d1"
	local mt moved total onto
	mt=$(copies_moved "$T/d0" "$T/d1" "$PE" 82)
	read -r moved total onto <<<"$mt"
	DIAG="moved $moved, onto the new host $onto, of $total copies; \
expected $((total * 4 / 68))"
	check "(d) a host of 4 OSDs joins 64 equal ones: $moved of $total \
copies move, 4/68 within 20%" within 20 "$moved" "$((total * 4 / 68))"
	check "(d) ... $onto copies on the new host, 4/68 within 20%" \
	    within 20 "$onto" "$((total * 4 / 68))"
	check "(d) ... and every PG still has 3 copies on 3 hosts" \
	    spread "$T/d1" "$PE" 4 3 "" 18

	# (e) 100,000 PGs over 64 OSDs in 8 hosts (root big), crush weights
	# 0.5, 1, 1.5, 2 by turns (each host 10): the daemon brings the pool
	# up in well under a second here.
	must "add-bucket big" osd crush add-bucket big root
	for i in $(seq 86 149); do
		must "osd create $i" osd create
		must "osd crush add osd.$i" osd crush add "osd.$i" \
		    "$(w_uneven $((i - 86)))" "host=b$(((i - 86) / 8))" root=big
		must "osd boot $i" osd boot "$i" "127.0.0.1:$((6800 + i))"
	done
	must "rule onbig" osd crush rule create-replicated onbig big host
	must "pool big" osd pool create big 100000 100000 replicated onbig
	PB=$(pool_id big)
	snap "$T/e0"
	local erc
	DIAG=$(awk -v pool="$PB" '
	    { split($1, p, "."); if (p[1] != pool) next
	      n = split($2, a, ","); pgs++; if (n != 3) short++
	      for (i = 1; i <= n; i++) c[a[i]]++ }
	    END {
	      for (o = 86; o < 150; o++)
		  sw += 0.5 + ((o - 86) % 4) * 0.5
	      for (o = 86; o < 150; o++) {
		  e = 3 * pgs * (0.5 + ((o - 86) % 4) * 0.5) / sw
		  d = (c[o] - e) / e; if (d < 0) d = -d
		  if (d > worst) { worst = d; wo = o }
		  if (d >= 0.10) bad++ }
	      printf "%d PGs, %d short, %d OSDs off; worst osd.%d %.1f%%\n",
		  pgs, short, bad, wo, worst * 100
	      exit !(pgs == 100000 && short == 0 && bad == 0) }' "$T/e0")
	erc=$?
	check "(e) 100,000 PGs over 64 OSDs in 8 hosts: every OSD's count \
within 10% of the weighted mean (${DIAG#*; })" test "$erc" = 0

	check "mapmond stops" stop_daemon
}

suite lmdb
suite leveldb
done_testing
