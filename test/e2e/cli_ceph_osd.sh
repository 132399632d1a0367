#!/bin/bash
# cli_ceph_osd.sh: a Ceph operator's OSD and pool commands replayed on
# mapmon, against the real mapmond and mapmon, once per store backend.
# Speaks TAP.  Needs $top_builddir (and $top_srcdir).
#
# The idempotency and errno table below is data: each row is a command,
# the exit status and the line Ceph gives for it, and where that comes
# from (a real ceph 16.2.15's output, or the function of Ceph's source
# that writes it).  The rows run in order, on one cluster (osd.0..2 up, a
# pool rbd), so each row's state is what the rows above left.  Then the
# JSON keys of Ceph's dump functions, the min_size and size-1 rules, the
# JSON request forms of Ceph's clients, and a restart.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
. "$top_srcdir/test/lib/backend_lib.sh"
TAP_PER_BACKEND=1
backend_init cli_ceph_osd

# The table: EXIT, STREAM (out or err), a regex for a line of it, the
# command's words, and where Ceph's answer comes from.  Tab-separated.
# "outputs" is a real ceph 16.2.15's output; "seen" the same, of a run
# made for this table; a function is of Ceph's src/mon/OSDMonitor.cc.
TABLE=$(cat <<'EOF'
0	err	^pool 'p2' created$	osd pool create p2 16	outputs
0	err	^pool 'p2' already exists$	osd pool create p2 16	outputs
0	err	^pool 'p2' already exists$	osd pool create p2 100000	seen: an existing pool is checked first
34	err	^Error ERANGE: 'pg_num' must be greater than 0 and less than or equal to 65536 (you may adjust 'mon max pool pg num' for higher values)$	osd pool create big 100000	seen
34	err	^Error ERANGE: 'pgp_num' must be greater than 0 and lower or equal than 'pg_num', which in this case is 4$	osd pool create z 4 8	seen
2	err	^Error ENOENT: specified rule nosuch doesn't exist	osd pool create y 8 8 replicated nosuch	seen
2	err	^Error ENOENT: specified rule 3 doesn't exist	osd pool create old 8 8 3	the old SIZE positional: a rule name now
0	err	^pool 'r' created$	osd pool create r 8 8 replicated replicated_rule	seen
0	err	^pool 'q' created$	osd pool create q 8 4 --size 2	seen
22	err	^Error EINVAL: pool size must be between 1 and 10$	osd pool set p2 size 11	outputs
22	err	^Error EINVAL: pool size must be between 1 and 10$	osd pool set p2 size 0	seen
34	err	^Error ERANGE: 'pg_num' must be greater than 0 and less than or equal to 65536	osd pool set p2 pg_num 0	outputs
1	err	^Error EPERM: configuring pool size as 1 is disabled by default\.$	osd pool set p2 size 1	outputs
1	err	^Error EPERM: configuring pool size as 1 is disabled by default\.$	osd pool set p2 size 1 --yes-i-really-mean-it	outputs
2	err	^Error ENOENT: unrecognized pool 'nosuch'$	osd pool set nosuch size 2	outputs
22	err	VAR: 'nosuchvar' is not one of	osd pool set p2 nosuchvar 2	outputs (Invalid command, EINVAL)
0	err	^set pool 2 size to 3$	osd pool set p2 size 3	outputs: also when it is 3
22	err	^Error EINVAL: specified pgp_num 64 > pg_num 16$	osd pool set p2 pgp_num 64	seen
22	err	^Error EINVAL: specified pgp_num must > 0, but you set to 0$	osd pool set p2 pgp_num 0	seen
0	err	^set pool 2 pgp_num to 8$	osd pool set p2 pgp_num 8	seen
22	err	^Error EINVAL: error parsing integer value 'abc': Expected option value to be integer, got 'abc'$	osd pool set p2 pg_num abc	seen
22	err	^Error EINVAL: pool min_size must be between 1 and size, which is set to 3$	osd pool set p2 min_size 4	seen
0	err	^set pool 2 min_size to 2$	osd pool set p2 min_size 2	seen: also when it is 2
2	err	^Error ENOENT: crush rule nosuch does not exist	osd pool set p2 crush_rule nosuch	seen
0	err	^set pool 2 crush_rule to replicated_rule$	osd pool set p2 crush_rule replicated_rule	seen
0	out	^pgp_num: 8$	osd pool get p2 pgp_num	seen
0	out	^crush_rule: replicated_rule$	osd pool get p2 all	outputs
2	err	^Error ENOENT: unrecognized pool 'nosuch'$	osd pool get nosuch size	seen
1	err	^Error EPERM: WARNING: this will \*PERMANENTLY DESTROY\* all data stored in pool p2\.  If you are \*ABSOLUTELY CERTAIN\* that is what you want, pass the pool name \*twice\*, followed by --yes-i-really-really-mean-it\.$	osd pool delete p2	outputs
1	err	^Error EPERM: pool deletion is disabled; you must first set the mon_allow_pool_delete config option to true before you can destroy a pool$	osd pool delete p2 p2 --yes-i-really-really-mean-it	outputs
0	err	^pool 'nosuch' does not exist$	osd pool delete nosuch nosuch --yes-i-really-really-mean-it	outputs
0	err	^pool 'nosuch' does not exist$	osd pool rm nosuch	seen
0	err	^pool 'p2' renamed to 'p3'$	osd pool rename p2 p3	outputs
0	err	^pool 'p2' does not exist; pool 'p3' does -- assuming successful rename$	osd pool rename p2 p3	outputs
2	err	^Error ENOENT: unrecognized pool 'nosuch'$	osd pool rename nosuch p4	outputs
17	err	^Error EEXIST: pool 'rbd' already exists$	osd pool rename p3 rbd	seen
0	err	^enabled application 'rbd' on pool 'rbd'$	osd pool application enable rbd rbd	outputs
0	err	^enabled application 'rbd' on pool 'rbd'$	osd pool application enable rbd rbd	prepare_command_pool_application(): enabled already
1	err	^Error EPERM: Are you SURE? Pool 'rbd' already has an enabled application; pass --yes-i-really-mean-it to proceed anyway$	osd pool application enable rbd cephfs	outputs
2	err	^Error ENOENT: unrecognized pool 'nosuch'$	osd pool application enable nosuch rbd	prepare_command_pool_application()
0	err	^enabled application 'cephfs' on pool 'rbd'$	osd pool application enable rbd cephfs --yes-i-really-mean-it	prepare_command_pool_application()
1	err	^Error EPERM: Are you SURE? Disabling an application within a pool might result in loss of application functionality; pass --yes-i-really-mean-it to proceed anyway$	osd pool application disable rbd cephfs	prepare_command_pool_application()
0	err	^disable application 'cephfs' on pool 'rbd'$	osd pool application disable rbd cephfs --yes-i-really-mean-it	prepare_command_pool_application()
0	err	^application 'cephfs' is not enabled on pool 'rbd'$	osd pool application disable rbd cephfs --yes-i-really-mean-it	prepare_command_pool_application(): idempotent
2	err	^Error ENOENT: pool 'rbd' has no application 'cephfs'$	osd pool application get rbd cephfs	preprocess_command()
2	err	^Error ENOENT: unrecognized pool 'nosuch'$	osd pool application get nosuch	preprocess_command()
0	err	^marked down osd\.2\. $	osd down 2	prepare_command_impl()
0	err	^osd\.2 is already down\. $	osd down 2	outputs
0	err	^osd\.7 does not exist\. $	osd down 7	outputs
0	err	^marked out osd\.0\. marked out osd\.1\. $	osd out 0 1	outputs
0	err	^osd\.0 is already out\. osd\.1 is already out\. $	osd out 0 1	outputs
0	err	^marked in osd\.1\. $	osd in osd.1	prepare_command_impl()
0	err	^osd\.0 is already out\. marked out osd\.1\. $	osd out 0 1	prepare_command_impl(): a sentence per id
0	err	^osd\.7 does not exist\. $	osd out 7	outputs
0	err	^marked in osd\.0\. marked in osd\.1\. $	osd in any	seen: the OSDs out, quietly
0	err	^osd\.0 is already in\. osd\.1 is already in\. $	osd in 0 1	outputs
0	err	^marked out osd\.0\. marked out osd\.1\. marked out osd\.2\. $	osd out all	seen
0	err	^marked in osd\.0\. marked in osd\.1\. marked in osd\.2\. $	osd in osd.0 1 osd.2	seen
0	err	^osd\.7 does not exist\. $	osd rm 7	outputs
16	err	^Error EBUSY: osd\.0 is still up; must be down before removal\. $	osd rm 0	prepare_command_impl()
22	err	IDS: 'foo' is not an OSD id	osd down foo	seen (EINVAL)
0	err	^reweighted osd\.0 to 0\.5 (8000)$	osd reweight osd.0 0.5	outputs
0	err	^reweighted osd\.0 to 0\.5 (8000)$	osd reweight 0 0.5	outputs: also when it is 0.5
22	err	WEIGHT: 1\.5 is out of range	osd reweight 0 1.5	outputs (Invalid command, EINVAL)
2	err	^Error ENOENT: osd\.9 does not exist$	osd reweight 9 0.5	outputs
0	err	^noup is set$	osd set noup	outputs
0	err	^noup is set$	osd set noup	outputs: also when it is set
0	err	^noup is unset$	osd unset noup	outputs
0	err	^noup is unset$	osd unset noup	outputs: also when it is not
22	err	KEY: 'nosuchflag' is not one of	osd set nosuchflag	outputs (Invalid command, EINVAL)
0	err	^pauserd,pausewr is set$	osd pause	outputs
0	err	^pauserd,pausewr is set$	osd pause	outputs
0	err	^pauserd,pausewr is unset$	osd unpause	outputs
0	err	^pauserd,pausewr is set$	osd set pause	outputs
0	err	^pauserd,pausewr is unset$	osd unset pause	outputs
0	out	^2$	osd ls	outputs: an id a line
2	err	^Error ENOENT: there is no map for epoch 99999$	osd dump 99999	seen
2	err	^Error ENOENT: osd\.9 does not exist$	osd find 9	outputs
22	err	ID: 'foo' is not an OSD id	osd find foo	outputs (Invalid command, EINVAL)
0	out	^[0-9a-f-]\{36\}$	fsid	outputs
22	err	^no valid command found	osd frobnicate	outputs (no valid command found, EINVAL)
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
		elif ! grep -q -e "$re" "$T/$stream"; then
			notok "$words: Ceph's words ($cite)" "$(check_diag)"
		else
			ok "$words: exit $want and Ceph's words ($cite)"
		fi
	done <<<"$TABLE"
}

suite() {
	suite_start "$1"
	for i in 0 1 2; do
		run osd create
		run osd boot $i 127.0.0.1:680$i
	done
	expect 0 "osd pool create rbd 8 8" osd pool create rbd 8 8
	run -f json osd pool get rbd all
	# The old hazard: the third word is PGP_NUM, never a size (an 8-way
	# pool where Ceph makes 8 PGs of 3).
	check "rbd 8 8: 8 PGs, pgp_num 8, size 3, min_size 2" test \
	    "$(jget pg_num pgp_num size min_size | tr '\n' ' ')" = "8 8 3 2 "

	table

	# What the rows did, seen through the reads.
	run -f json osd pool get q all
	check "q: pgp_num 4, size 2, min_size 1" test \
	    "$(jget pg_num pgp_num size min_size | tr '\n' ' ')" = "8 4 2 1 "
	run -f json osd pool get p3 all
	check "p3 (p2 renamed): size 3, pgp_num 8, crush_rule" test \
	    "$(jget size pgp_num crush_rule | tr '\n' ' ')" = \
	    "3 8 replicated_rule "
	expect 0 "osd pool create without PG_NUM" osd pool create dflt
	run -f json osd pool get dflt all
	check "PG_NUM and PGP_NUM default to osd_pool_default_pg_num (32)" \
	    test "$(jget pg_num pgp_num | tr '\n' ' ')" = "32 32 "

	# min_size = size - size/2 as size changes (seen on ceph 16.2.15:
	# size 2 -> min_size 1, 5 -> 3, 4 -> 2): after 1 then 3, two again.
	for s in 2:1 5:3 4:2 10:5 3:2; do
		run osd pool set p3 size "${s%:*}"
		run -f json osd pool get p3 min_size
		check "size ${s%:*} sets min_size ${s#*:}" jis min_size "${s#*:}"
	done
	expect 0 "config set mon.mon_allow_pool_size_one true" \
	    config set mon.mon_allow_pool_size_one true
	expect 1 "size 1 still needs --yes-i-really-mean-it" \
	    osd pool set p3 size 1
	check "size 1: Ceph's second refusal" err_has \
	    "pass the flag --yes-i-really-mean-it\.$"
	expect 0 "size 1 --yes-i-really-mean-it" osd pool set p3 size 1 \
	    --yes-i-really-mean-it
	expect 0 "size 3 again" osd pool set p3 size 3
	run -f json osd pool get p3 min_size
	check "after size 1 then 3, min_size is 2" jis min_size 2

	# config in Ceph's positional form, WHO NAME VALUE (real outputs:
	# outputs/ceph_config_*; the rest ConfigMonitor::preprocess_command()
	# and prepare_command()).
	expect 0 "config get mon mon_osd_down_out_interval" \
	    config get mon mon_osd_down_out_interval
	check "config get: the value alone, in seconds (outputs: 600)" \
	    test "$(cat "$T/out")" = 600
	expect 0 "config set mon mon_osd_down_out_interval 300 (outputs)" \
	    config set mon mon_osd_down_out_interval 300
	check "config set: nothing printed (outputs)" \
	    test ! -s "$T/out" -a ! -s "$T/err"
	expect 0 "config get -f json after set" \
	    -f json config get mon mon_osd_down_out_interval
	check "config get -f json: the value as text (outputs: 300)" \
	    test "$(cat "$T/out")" = 300
	expect 0 "config get mon.a NAME: the monitor's id as WHO" \
	    config get mon.a mon_osd_down_out_interval
	check "config get mon.a: the same value" test "$(cat "$T/out")" = 300
	check "config set took: mon.osd_down_out_interval is 5m" \
	    eval '"$MAPMON" -m "$ADDR" config get mon.osd_down_out_interval | \
	    grep -qx 5m'
	expect 22 "config set of a value that does not parse (outputs)" \
	    config set mon mon_osd_down_out_interval abc
	check "config set abc: Ceph's words (outputs)" \
	    err_has "^Error EINVAL: error parsing value: "
	expect 22 "config set of an unknown option (outputs)" \
	    config set mon no_such_option 1
	check "config set no_such_option: Ceph's words (outputs)" \
	    err_has "^Error EINVAL: unrecognized config option 'no_such_option'$"
	expect 2 "config get of an unknown option (ConfigMonitor: ENOENT)" \
	    config get mon no_such_option
	check "config get no_such_option: Ceph's words" \
	    err_has "^Error ENOENT: unrecognized key 'no_such_option'$"
	expect 22 "config set of an unknown WHO (parse_mask(): EINVAL)" \
	    config set frob mon_allow_pool_delete true
	check "config set frob: Ceph's words" \
	    err_has "^Error EINVAL: unrecognized config target 'frob'$"
	expect 0 "config set global osd_pool_default_pg_num 16" \
	    config set global osd_pool_default_pg_num 16
	expect 0 "config dump" config dump
	check "config dump: Ceph's columns (outputs)" \
	    out_has "^WHO  *MASK  LEVEL     OPTION  *VALUE  RO$"
	check "config dump: global first, as Ceph's sections" eval \
	    'sed -n 2p "$T/out" | grep -q "^global  *advanced  osd_pool_default_pg_num  *16  *$"'
	check "config dump: the mon row, WHO indented (indent_who())" \
	    out_has "^  mon  *advanced  mon_osd_down_out_interval  *300  *$"
	expect 0 "config dump -f json" -f json config dump
	check "config dump json: Ceph's keys (outputs)" jkeys 1 section name \
	    value level can_update_at_runtime mask
	# Sorted as Ceph's: global, mon; by name (mon_allow_pool_size_one
	# was set above in mapmon's own form).
	check "config dump json: the option set for mon" test \
	    "$(jget 2.section 2.name 2.value 2.can_update_at_runtime | \
	    tr '\n' ' ')" = "mon mon_osd_down_out_interval 300 true "
	expect 0 "config get mon: what is set" -f json config get mon
	check "config get WHO json: an object by option name" \
	    jis mon_osd_down_out_interval.value 300
	expect 0 "config rm mon mon_osd_down_out_interval (outputs)" \
	    config rm mon mon_osd_down_out_interval
	check "config rm: nothing printed (outputs)" \
	    test ! -s "$T/out" -a ! -s "$T/err"
	run config get mon mon_osd_down_out_interval
	check "config rm: the default again" test "$(cat "$T/out")" = 600
	expect 0 "config rm of what is not set: 0 (ConfigMonitor)" \
	    config rm mon mon_osd_down_out_interval
	run -f json config dump
	check "config dump: the removed option is gone" jis '#' 2

	# Pool deletion once mon_allow_pool_delete is set, at run time, as
	# every Ceph operator sets it.
	expect 0 "config set mon mon_allow_pool_delete true" \
	    config set mon mon_allow_pool_delete true
	expect 0 "osd pool rm" osd pool rm dflt dflt \
	    --yes-i-really-really-mean-it
	check "osd pool rm: Ceph's words" err_has "^pool 'dflt' removed$"

	# osd dump -f json: Ceph's keys (OSDMap::dump(), seen on 16.2.15).
	run osd out 2
	run osd set noout
	expect 0 "osd dump -f json" -f json osd dump
	check "osd dump json: Ceph's keys" jkeys . epoch fsid created modified \
	    flags flags_set max_osd pool_max full_ratio pools osds
	check "osd dump json: flags_set" jis flags_set '["noout"]'
	check "osd dump json: max_osd" jis max_osd 3
	check "osd dump json: state of an up OSD" jis osds.0.state \
	    '["exists","up"]'
	check "osd dump json: an out OSD weighs 0" jis osds.2.weight 0.0
	check "osd dump json: its reweight is kept apart" jis osds.2.reweight 1.0
	check "osd dump json: pool_id beside pool" test \
	    "$(jget pools.0.pool pools.0.pool_id | tr '\n' ' ')" = "1 1 "
	check "osd dump json: pg_placement_num" jis pools.0.pg_placement_num 8
	EPOCH=$(jget epoch)
	expect 0 "osd dump" osd dump
	check "osd dump: Ceph's flags line" out_has "^flags noout$"
	check "osd dump: Ceph's pool line" out_has \
	    "^pool 1 'rbd' replicated size 3 min_size 2 crush_rule 0 pg_num 8 pgp_num 8 "
	check "osd dump: Ceph's osd line, weight 0 when out" out_has \
	    "^osd\.2 down out weight 0 up_from [0-9]* down_at [0-9]* 127\.0\.0\.1:6802 exists$"
	check "osd dump: an up OSD" out_has \
	    "^osd\.0 up   in  weight 0\.5 up_from [0-9]* down_at 0 127\.0\.0\.1:6800 exists,up$"
	run osd unset noout

	# A pool's applications (enabled in the table above), as Ceph's
	# pg_pool_t::dump() and print() and preprocess_command() show them.
	expect 0 "osd pool application get rbd" -f json osd pool application \
	    get rbd
	check "application get POOL: {APP: {}}" test "$(cat "$T/out")" = \
	    '{"rbd":{}}'
	expect 0 "osd pool application get" -f json osd pool application get
	check "application get: every pool by name" jis p3 '{}'
	check "application get: rbd's" jis rbd.rbd '{}'
	expect 0 "osd pool application get rbd rbd" osd pool application get \
	    rbd rbd
	check "application get POOL APP: its keys, as Ceph's json-pretty" \
	    test "$(cat "$T/out")" = '{}'
	run -f json osd dump
	check "osd dump json: application_metadata (outputs)" jis \
	    pools.0.application_metadata '{"rbd":{}}'
	check "osd dump json: a pool without one (outputs)" jis \
	    pools.1.application_metadata '{}'
	check "osd dump json: crush_version (outputs)" jkeys . crush_version
	CV=$(jget crush_version)
	expect 0 "osd pool ls detail" osd pool ls detail
	check "osd pool ls detail: Ceph's ' application rbd', last (outputs)" \
	    out_has "^pool 1 'rbd' replicated .* application rbd$"
	expect 0 "osd crush add-bucket: a new hierarchy" osd crush add-bucket \
	    h9 host
	run -f json osd dump
	check "crush_version: one more for the hierarchy changed" jis \
	    crush_version $((CV + 1))
	expect 0 "osd crush add-bucket again: no change" osd crush add-bucket \
	    h9 host
	run osd dump
	check "crush_version: the same when the hierarchy is (plain, outputs)" \
	    out_has "^crush_version $((CV + 1))$"
	check "osd dump: the pool line's application (outputs)" out_has \
	    "^pool 1 'rbd' .* application rbd$"
	expect 0 "osd crush rm h9: the hierarchy as it was" osd crush rm h9
	run -f json osd dump
	check "crush_version: one more again" jis crush_version $((CV + 2))

	# osd boot without an address keeps the stored one.
	expect 0 "osd boot 2 (no address)" osd boot 2
	run -f json osd dump
	check "osd boot keeps the stored address" jis osds.2.public_addr \
	    127.0.0.1:6802
	run osd down 2

	# The reads Ceph has (seen on ceph 16.2.15).
	expect 0 "osd ls -f json" -f json osd ls
	check "osd ls json" test "$(cat "$T/out")" = "[0,1,2]"
	expect 0 "osd ls EPOCH" -f json osd ls 2
	check "osd ls of epoch 2: osd.0 alone" test "$(cat "$T/out")" = "[0]"
	expect 0 "osd dump EPOCH" -f json osd dump "$EPOCH"
	check "osd dump EPOCH is that epoch" jis epoch "$EPOCH"
	check "osd dump EPOCH: its flags" jis flags noout
	expect 0 "osd getmap EPOCH" osd getmap "$EPOCH"
	check "osd getmap: the map's JSON" jis epoch "$EPOCH"
	check "osd getmap: Ceph's status" err_has "^got osdmap epoch $EPOCH$"
	# -o FILE, as ceph's (ceph.in: the output file opened before the
	# command, 'wb'; "can't open" and 1 when it cannot be; the status
	# stays on standard error).
	expect 0 "osd getmap -o FILE" osd getmap "$EPOCH" -o "$T/getmap.out"
	check "-o: nothing on standard output" test ! -s "$T/out"
	check "-o: the status on standard error" \
	    err_has "^got osdmap epoch $EPOCH$"
	check "-o: the map in FILE" eval \
	    '[ "$("$JG" epoch <"$T/getmap.out")" = "$EPOCH" ]'
	expect 0 "-o FILE again: truncated, then written" -o "$T/getmap.out" \
	    -f json fsid
	check "-o: FILE holds only the last output" eval \
	    '"$JG" fsid <"$T/getmap.out" | grep -q "^[0-9a-f-]\{36\}$"'
	expect 0 "-o -: standard output" -o - fsid
	check "-o -: the fsid on standard output" \
	    out_has "^[0-9a-f-]\{36\}$"
	expect 1 "-o FILE that cannot be made: exit 1, as ceph" \
	    -o "$T/nodir/x" osd set noout
	check "-o: can't open" err_has "^mapmon: can't open $T/nodir/x: "
	run -f json osd dump
	check "-o: a command not sent when FILE cannot be made" jis flags ''
	expect 0 "osd tree" osd tree
	# As ceph 16.2.15 prints it (outputs/ceph_osd_tree.plain): the
	# headings left-aligned, "WEIGHT   TYPE NAME", every row padded.
	check "osd tree: Ceph's columns, byte for byte" text_table_is \
	    "$T/out" <<'EOF'
ID  CLASS  WEIGHT   TYPE NAME        STATUS  REWEIGHT  PRI-AFF
-1         3.00000  root default
-2         1.00000      host host-0
 0         1.00000          osd.0        up   0.50000  1.00000
-3         1.00000      host host-1
 1         1.00000          osd.1        up   1.00000  1.00000
-4         1.00000      host host-2
 2         1.00000          osd.2      down         0  1.00000
EOF
	expect 0 "osd tree down" osd tree down
	check "osd tree down: osd.2 alone" test "$(grep -c osd "$T/out")" -eq 1
	# Out: REWEIGHT 0, as Ceph's weightf_t writes it.
	check "osd tree down: its row, under its host" out_has \
	    "^ 2  *1\.00000          osd\.2  *down  *0  1\.00000$"
	expect 0 "osd tree up in -f json" -f json osd tree up in
	check "osd tree up in: Ceph's OR of states (2 OSDs, 2 hosts, root)" \
	    jis nodes.# 5
	expect 0 "osd find -f json" -f json osd find osd.1
	check "osd find: Ceph's keys" jkeys . osd addrs osd_fsid crush_location
	check "osd find: the address" jis addrs.addrvec.0.addr 127.0.0.1:6801
	expect 0 "fsid -f json" -f json fsid
	check "fsid json" eval 'jget fsid | grep -q "^[0-9a-f-]\{36\}$"'
	expect 0 "log TEXT" log hello from the operator
	check "log TEXT: nothing on stdout" test ! -s "$T/out"
	# Among the last entries: a health check's line may commit after it.
	expect 0 "log last" -f json log last 20
	check "log TEXT: the line is in the cluster log" \
	    out_has '"message": *"hello from the operator"'
	expect 0 "report" -f json report before upgrade
	check "report: Ceph's keys" jkeys . cluster_fingerprint version \
	    timestamp tag health monmap quorum osdmap osdmap_first_committed \
	    osdmap_last_committed num_pg num_osd pool_sum pool_stats \
	    num_pg_by_state num_pg_by_osd crushmap
	check "report: the tags" jis tag "before upgrade"
	expect 0 "-v" -v
	check "-v: Ceph's line" out_has "^mapmon version [0-9]"
	expect 0 "health -f json" -f json health
	check "TOO_FEW_OSDS names the pool that needs the most" jis \
	    checks.TOO_FEW_OSDS.summary.message "OSD count 2 < pool 'rbd' size 3"

	# The JSON forms Ceph's clients send (MonCommands.h signatures).
	expect 0 "raw: ids as strings and osd.N, a format key" -f json raw \
	    '{"prefix":"osd out","ids":["0","osd.1"],"format":"json"}'
	expect 0 "raw: any" -f json raw '{"prefix":"osd in","ids":["any"]}'
	run -f json osd dump
	check "raw: the OSDs went out and in" test \
	    "$(jget osds.0.in osds.1.in | tr '\n' ' ')" = "1 1 "
	expect 0 "raw: osd pool set with a string value" -f json raw \
	    '{"prefix":"osd pool set","pool":"rbd","var":"pg_num","val":"16"}'
	run -f json osd pool get rbd all
	check "raw: pg_num 16, pgp_num along" test \
	    "$(jget pg_num pgp_num | tr '\n' ' ')" = "16 16 "
	expect 22 "raw: an id that is none" raw \
	    '{"prefix":"osd down","ids":["osd.x"]}'

	# A restart: pgp_num, min_size and the kept epochs survive.
	check "mapmond stops" stop_daemon
	check "mapmond starts again" start_daemon
	run -f json osd pool get q all
	check "after a restart: q's pgp_num 4, min_size 1" test \
	    "$(jget pgp_num min_size | tr '\n' ' ')" = "4 1 "
	expect 0 "after a restart: osd dump EPOCH" -f json osd dump "$EPOCH"
	check "after a restart: that epoch" jis epoch "$EPOCH"
	run -f json osd dump
	check "after a restart: rbd's application, committed state" jis \
	    pools.0.application_metadata '{"rbd":{}}'
	check "after a restart: crush_version" jis crush_version $((CV + 2))
	check "after a restart: mon_allow_pool_delete is the file's again" \
	    eval '"$MAPMON" -m "$ADDR" osd pool rm q q \
	    --yes-i-really-really-mean-it 2>&1 | grep -q "deletion is disabled"'
	check "mapmond stops at the end" stop_daemon
}

suite lmdb
suite leveldb
done_testing
