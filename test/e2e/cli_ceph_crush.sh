#!/bin/bash
# cli_ceph_crush.sh: the placement hierarchy's commands (osd crush ..., osd
# tree, osd map, pools by rule) against the real mapmond and mapmon, once
# per store backend.
# Speaks TAP.  Needs $top_builddir (and $top_srcdir).
#
# As cli_ceph_osd.sh, a table of rows: a command, its exit status and the
# line Ceph 16.2.15 gives for it (seen on a real one, where the row says
# "seen"; "mapmon" where mapmon's words differ, as mapmon(8) says).  The
# rows run in order on one cluster: osd.0 and osd.1 booted at host=h1
# rack=r1, osd.2 at host=h2, osd.3 without a location (its own host,
# host-3).  Then what a failed row left (nothing), osd tree's text and
# JSON, osd map's hash against the reference Ceph's, and a restart.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
. "$top_srcdir/test/lib/backend_lib.sh"
TAP_PER_BACKEND=1
backend_init cli_ceph_crush

TABLE=$(cat <<'EOF'
0	err	^added bucket h5 type host to crush map$	osd crush add-bucket h5 host	seen
0	err	^bucket 'h5' already exists$	osd crush add-bucket h5 host	seen
0	err	^bucket 'h5' already exists$	osd crush add-bucket h5 rack	seen: whatever the type
22	err	^Error EINVAL: unknown bucket type 'nosuchtype'	osd crush add-bucket b2 nosuchtype	seen: EINVAL (mapmon names the types)
22	err	^Error EINVAL: .*osd\.N names the OSDs	osd crush add-bucket osd.7 host	mapmon: a bucket named like an OSD
0	err	^added bucket r2 type rack to location {root=default}$	osd crush add-bucket r2 rack root=default	seen
0	err	^moved item id -[0-9]* name 'h5' to location {rack=r2} in crush map$	osd crush move h5 rack=r2	seen
0	err	^no need to move item id -[0-9]* name 'h5' to location {rack=r2} in crush map$	osd crush move h5 rack=r2	seen
22	err	^Error EINVAL: cannot move 'r2' under itself$	osd crush move r2 rack=r2	CrushWrapper::insert_item: EINVAL, r2 in its own subtree (mapmon says why)
40	err	^Error ELOOP: cannot move 'r2' under 'h5': 'h5' is beneath 'r2'$	osd crush move r2 host=h5	CrushWrapper::insert_item: ELOOP, cannot form loop (mapmon says why)
22	err	^Error EINVAL: 	osd crush move r1 host=h2	mapmon: a rack under a host
39	err	^Error ENOTEMPTY: bucket 'r2' is not empty	osd crush rm r2	seen: ENOTEMPTY (mapmon says why)
0	err	^device 'nosuch' does not appear in the crush map$	osd crush rm nosuch	seen
0	err	^removed item id -[0-9]* name 'h5' from crush map$	osd crush remove h5	seen
0	err	^removed item id -[0-9]* name 'r2' from crush map$	osd crush unlink r2	seen
0	err	^add item id 3 name 'osd.3' weight 0.5 at location {host=h3} to crush map$	osd crush add osd.3 0.5 host=h3	seen
0	err	^set item id 3 name 'osd.3' weight 0.7 at location {host=h3} to crush map$	osd crush set osd.3 0.7 host=h3	seen
2	err	^Error ENOENT: osd.9 does not exist.  create it before updating the crush map$	osd crush add osd.9 1 host=h3	OSDMonitor.cc
22	err	WEIGHT: -1 is out of range	osd crush reweight osd.3 -1	seen: Invalid command, EINVAL
22	err	WEIGHT: 2e6 is out of range	osd crush add osd.3 2e6 host=h3	mapmon: crush weights up to 1e6
22	err	WEIGHT: 'nan' is not a number	osd crush reweight osd.3 nan	mapmon: not a number
0	err	^reweighted item id 3 name 'osd.3' to 0.9 in crush map$	osd crush reweight osd.3 0.9	seen
0	err	^create-or-move updated item name 'osd.3' weight 0.3 at location {host=h3} to crush map$	osd crush create-or-move osd.3 0.3 host=h3	seen: already there
0	err	^create-or-move updating item name 'osd.3' weight 0.3 at location {host=h4} to crush map$	osd crush create-or-move osd.3 0.3 host=h4	seen
0	err	^set osd(s) 2,3 to class 'ssd'$	osd crush set-device-class ssd osd.2 3	seen
16	err	^Error EBUSY: osd.2 has already bound to class 'ssd', can not reset class to 'hdd'	osd crush set-device-class hdd osd.2	seen
0	err	^done removing class of osd(s): 3$	osd crush rm-device-class osd.3	seen
0	err	^set osd(s) 3 to class 'ssd'$	osd crush set-device-class ssd osd.3	seen
0	out	^    "ssd"$	osd crush class ls	seen
0	err	^$	osd crush rule create-replicated fast default host ssd	seen: an empty status
0	err	^rule fast already exists$	osd crush rule create-replicated fast default host ssd	seen
2	err	^Error ENOENT: root item nosuch does not exist$	osd crush rule create-replicated r2 nosuch host	seen
22	err	^Error EINVAL: unknown type nosuchtype	osd crush rule create-replicated r2 default nosuchtype	seen
22	err	^Error EINVAL: device class nvme does not exist$	osd crush rule create-replicated r2 default host nvme	seen
0	out	^fast$	osd crush rule ls	seen
0	out	"item_name": "default~ssd"	osd crush rule dump fast	seen (a class rule takes the shadow root)
2	err	^Error ENOENT: unknown crush rule 'nosuch'$	osd crush rule dump nosuch	seen
0	err	^pool 'fast' created$	osd pool create fast 8 8 replicated fast	seen
2	err	^Error ENOENT: specified rule nosuch doesn't exist$	osd pool create f2 8 8 replicated nosuch	seen
0	out	^crush_rule: fast$	osd pool get fast crush_rule	seen
16	err	^Error EBUSY: crush ruleset fast 1 is in use$	osd crush rule rm fast	seen
39	err	^Error ENOTEMPTY: bucket 'default' is not empty	osd crush rm default	seen: ENOTEMPTY
0	err	^added bucket eroot type root to crush map$	osd crush add-bucket eroot root	seen
0	err	^$	osd crush rule create-replicated er eroot host	seen
16	err	^Error EBUSY: bucket 'eroot' is in use by crush rule 'er'$	osd crush rm eroot	mapmon: EBUSY for an empty root a rule takes
0	err	^$	osd crush rule rm er	seen
0	err	^removed item id -[0-9]* name 'eroot' from crush map$	osd crush rm eroot	seen
0	err	^set pool [0-9]* crush_rule to replicated_rule$	osd pool set fast crush_rule replicated_rule	seen
0	err	^$	osd crush rule rm fast	seen: an empty status
0	err	^rule fast does not exist$	osd crush rule rm fast	seen
2	err	^Error ENOENT: pool nosuch does not exist$	osd map nosuch foo	seen
0	out	^osdmap e[0-9]* pool 'rbd' (1) object 'myobject' -> pg 1.5da41c62 (1.2) -> up (\[[0-9,]*\], p[0-9]) acting (\[[0-9,]*\], p[0-9])$	osd map rbd myobject	seen: 14.5da41c62 (14.2) there
EOF
)

table() {
	local want stream re words cite
	while IFS=$'\t' read -r want stream re words cite; do
		# shellcheck disable=SC2086
		run $words
		if [ "$rc" -ne "$want" ]; then
			notok "$words: exit $want, as Ceph ($cite)" \
			    "exit $rc: $(head -c 400 "$T/err")"
		elif [ "$re" = "^\$" ] && [ -s "$T/$stream" ]; then
			notok "$words: nothing said ($cite)" "$(check_diag)"
		elif [ "$re" != "^\$" ] && ! grep -q -e "$re" "$T/$stream"; then
			notok "$words: Ceph's words ($cite)" "$(check_diag)"
		else
			ok "$words: exit $want and Ceph's words ($cite)"
		fi
	done <<<"$TABLE"
}

# comp WORDS...: what bash completion offers after mapmon WORDS.
comp() {
	XDG_CACHE_HOME=$T/cache bash -c 'source "$1"; shift; COMP_WORDS=("$@")
	    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _mapmon
	    echo "${COMPREPLY[*]}"' _ "$top_srcdir/tools/mapmon.bash-completion" \
	    "$MAPMON" -m "$ADDR" "$@"
}

# epoch: the committed osdmap epoch.
epoch() {
	"$MAPMON" -m "$ADDR" -f json osd stat | "$JG" epoch
}

# Object names and the raw seeds the reference Ceph's `osd map` gave.
HASHES="a:29eec818 ab:9879ac41 abcdefghijk:e52b8e4c abcdefghijkl:b1b3ea5
abcdefghijklm:3122b031 abcdefghijklmnopqrstuvwxy:720b6730
rbd_header.10ab:fc4607d9 object_with_a_longer_name_0001:e07fcb3f foo:7fc1f406"

suite() {
	suite_start "$1"
	expect 0 "a new map: Ceph's default rule" osd crush rule ls
	check "the default rule is replicated_rule" out_has "^replicated_rule$"
	for i in 0 1 2 3; do
		run osd create
	done
	expect 0 "osd boot with a location" osd boot 0 127.0.0.1:6800 \
	    host=h1 rack=r1
	run osd boot 1 127.0.0.1:6801 host=h1 rack=r1
	run osd boot 2 127.0.0.1:6802 host=h2
	expect 0 "osd boot without one" osd boot 3 127.0.0.1:6803
	expect 22 "osd boot at a bad location" osd boot 3 127.0.0.1:6804 \
	    host=h1 host=h2
	expect 0 "osd crush tree" osd crush tree
	# Ceph's CrushTreePlainDumper: a TextTable, every heading
	# left-aligned, every row padded to the full width, TYPE NAME too.
	check "osd crush tree: the hosts, indented, as Ceph's TextTable" \
	    text_table_is "$T/out" <<'EOF'
ID  CLASS  WEIGHT   TYPE NAME
-1         4.00000  root default
-4         1.00000      host h2
 2         1.00000          osd.2
-5         1.00000      host host-3
 3         1.00000          osd.3
-3         2.00000      rack r1
-2         2.00000          host h1
 0         1.00000              osd.0
 1         1.00000              osd.1
EOF
	expect 0 "osd pool create rbd 8" osd pool create rbd 8

	E0=$(epoch)
	table

	# Nothing a refused row asked for was committed.
	run -f json osd crush dump
	check "no bucket b2 or osd.7" eval '! grep -q "\"name\": *\"\(b2\|osd\.7\)\"" "$T/out"'
	check "no rule r2" eval '! grep -q "\"rule_name\": *\"r2\"" "$T/out"'
	E1=$(epoch)
	expect 22 "osd crush move h1 host=h2: refused" osd crush move h1 \
	    host=h2
	expect 39 "osd crush rm default: refused" osd crush rm default
	check "refusals commit no epoch" test "$(epoch)" = "$E1"
	check "the rows made epochs" test "$E1" -gt "$E0"

	# osd find: where the hierarchy has the OSD, as Ceph's crush_location.
	expect 0 "osd find 0" -f json osd find 0
	check "osd find 0: host h1, rack r1, root default" test \
	    "$(jget crush_location.host crush_location.rack \
	    crush_location.root | tr '\n' ' ')" = "h1 r1 default "

	# osd tree: Ceph's columns and JSON.
	run osd out 3
	expect 0 "osd tree" osd tree
	# As ceph 16.2.15 prints it (outputs/ceph_osd_tree.plain): the
	# headings left-aligned, "WEIGHT   TYPE NAME", every row padded.
	check "osd tree: Ceph's columns, byte for byte" text_table_is \
	    "$T/out" <<'EOF'
ID  CLASS  WEIGHT   TYPE NAME          STATUS  REWEIGHT  PRI-AFF
-1         3.89999  root default
-4         1.00000      host h2
 2    ssd  1.00000          osd.2          up   1.00000  1.00000
-6               0      host h3
-7         0.89999      host h4
 3    ssd  0.89999          osd.3          up         0  1.00000
-5               0      host host-3
-3         2.00000      rack r1
-2         2.00000          host h1
 0         1.00000              osd.0      up   1.00000  1.00000
 1         1.00000              osd.1      up   1.00000  1.00000
EOF
	check "osd tree: root default first, the OSDs under their host" eval \
	    'sed -n 2p "$T/out" | grep -q "^-1 .* root default *$" &&
	    grep -q "^ 3    ssd  0\.89999  *osd\.3  *up  *0  1\.00000$" "$T/out"'
	expect 0 "osd tree -f json" -f json osd tree
	check "osd tree json: nodes and stray" jkeys . nodes stray
	check "osd tree json: a bucket's keys" jkeys nodes.0 id name type \
	    type_id children
	check "osd tree json: root default holds its children" \
	    jis nodes.0.name default
	check "osd tree json: an OSD's keys" jkeys nodes.2 id name type \
	    type_id crush_weight depth exists status reweight primary_affinity
	run osd create
	expect 0 "osd tree with an OSD outside the hierarchy" -f json osd tree
	check "osd tree json: osd.4 is stray" jis stray.0.name osd.4
	expect 0 "osd tree out" osd tree out
	check "osd tree out: osd.3 and its buckets only" eval \
	    '! grep -q "osd\.[012]" "$T/out" && grep -q "host h4" "$T/out" &&
	    ! grep -q "host h1" "$T/out"'

	# osd map: Ceph's rjenkins hash of the name, folded by pg_num 8.
	for hv in $HASHES; do
		run -f json osd map rbd "${hv%%:*}"
		check "osd map rbd ${hv%%:*}: raw pg 1.${hv#*:} as Ceph" \
		    jis raw_pgid "1.${hv#*:}"
	done
	check "osd map json: Ceph's keys" jkeys . epoch pool pool_id objname \
	    raw_pgid pgid up up_primary acting acting_primary
	run -f json osd map rbd foo
	check "osd map rbd foo: 1.7fc1f406 folds to 1.6" jis pgid 1.6
	PGUP=$(jget up)
	run -f json pg map 1.6
	check "osd map and pg map agree" test "$(jget up)" = "$PGUP"

	# bash completion: the commands, and a pool's rule from the rules.
	check "completion: osd crush's words" test "$(comp osd crush "")" = \
	    "add add-bucket class create-or-move dump move remove reweight rm rm-device-class rule set set-device-class tree unlink"
	check "completion: osd crush rule's words" test \
	    "$(comp osd crush rule "")" = "create-replicated dump ls rm"
	run osd crush rule create-replicated byosd default osd
	check "completion: osd pool create's RULE, the rules" test \
	    "$(comp osd pool create np 8 8 replicated "")" = \
	    "replicated_rule byosd"

	# The CLI's pg map, computed from the map it holds (the hierarchy,
	# each pool's rule, an OSD out and one down), is the monitor's on
	# every PG.
	run osd pool create cls 16 16 replicated byosd
	run osd crush rule create-replicated ssdonly default host ssd
	run osd pool create ssd 16 16 replicated ssdonly
	run osd down 1
	agree=0
	: >"$T/err"
	for pool in 1 2 3 4; do
		for s in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
			"$MAPMON" -m "$ADDR" -f json pg map $pool.$s >"$T/local" 2>&1
			"$MAPMON" -m "$ADDR" -f json raw \
			    "{\"prefix\":\"pg map\",\"pgid\":\"$pool.$s\"}" \
			    >"$T/remote" 2>&1
			if cmp -s "$T/local" "$T/remote"; then
				agree=$((agree + 1))
			else
				echo "$pool.$s: $(cat "$T/local") | $(cat "$T/remote")" \
				    >>"$T/err"
			fi
		done
	done
	check "pg map computed by the CLI == the monitor's, all 64 pgs" \
	    test $agree -eq 64
	run -f json pg map 4.0
	check "the ssd rule's pgs: osd.2 alone (osd.3, the other ssd, is out)" \
	    eval '[ "$(jget up | tr -d " \n")" = "[2]" ]'

	# A restart: the hierarchy and the rules survive.
	run -f json osd crush dump
	cp "$T/out" "$T/dump.before"
	check "mapmond stops" stop_daemon
	check "mapmond starts again" start_daemon
	run -f json osd crush dump
	check "after a restart: the same hierarchy" cmp -s "$T/out" \
	    "$T/dump.before"
	check "mapmond stops at the end" stop_daemon
}

suite lmdb
suite leveldb
done_testing
