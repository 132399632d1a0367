#!/bin/bash
# cli_mapmon.sh: mapmon(8) end to end, against the real mapmond, once per
# store backend.  Speaks TAP.  Needs $top_builddir (and $top_srcdir).
#
# Each backend: a fresh daemon on a free port (bind port 0; the port is read
# from the daemon's "listening on" line), a temporary data directory,
# [store] sync = none.  Every command of mapmon(8) in plain and -f json,
# every documented exit status, the JSON shapes of its replies, `pg map`
# computed locally against the daemon's, watch, and a restart.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
. "$top_srcdir/test/lib/backend_lib.sh"
TAP_PER_BACKEND=1
check_diag() {	# what a failed check shows: the last command's output
	printf 'out: %s\nerr: %s' "$(head -c 600 "$T/out")" \
	    "$(head -c 600 "$T/err")"
}
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
JG=$top_builddir/test/lib/json_get
LISTEN=$top_builddir/test/e2e/cli_listen

T=$(mktemp -d /tmp/cli_mapmon.XXXXXX) || exit 99
DPID=
LPID=
WPID=
cleanup() {
	for p in $WPID $LPID $DPID; do
		kill -CONT "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT

err_lines() { [ "$(wc -l <"$T/err")" -eq "$1" ]; }

# What bash completion offers for the words after `mapmon -m ADDR`.
comp() {
	XDG_CACHE_HOME=$T/cache bash -c 'source "$1"; shift; COMP_WORDS=("$@")
	    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _mapmon
	    echo "${COMPREPLY[*]}"' _ "$top_srcdir/tools/mapmon.bash-completion" \
	    "$MAPMON" -m "$ADDR" "$@"
}

# One pg map as the daemon computes it, through raw, compact.
daemon_pg_map() {
	"$MAPMON" -m "$ADDR" -f json raw "{\"prefix\":\"pg map\",\"pgid\":\"$1\"}"
}

suite() {
	# The host's free space is not the test's: no MON_DISK_LOW.
	suite_start "$1" "data_avail_warn = 1
data_avail_crit = 0"

	# Addressing: -m, MAPMON_MON, -c's [mon] bind, MAPMON_CONF.
	printf '[mon]\nbind = %s\n' "$ADDR" >"$T/client.conf"
	"$MAPMON" -c "$T/client.conf" status >"$T/out" 2>"$T/err"
	check "-c CONF reaches the monitor at [mon] bind" test $? -eq 0
	MAPMON_CONF=$T/client.conf "$MAPMON" status >"$T/out" 2>"$T/err"
	check "MAPMON_CONF reaches the monitor" test $? -eq 0
	MAPMON_MON=$ADDR "$MAPMON" status >"$T/out" 2>"$T/err"
	check "MAPMON_MON reaches the monitor" test $? -eq 0
	MAPMON_MON=$ADDR "$MAPMON" -m 127.0.0.1:1 status >"$T/out" 2>"$T/err"
	check "-m overrides MAPMON_MON" test $? -eq 111

	# status
	expect 0 "status" status
	FSID=$(sed -n 's/^ *id: *//p' "$T/out")
	check "status shows the cluster id" test -n "$FSID"
	check "status shows health" out_has "health: HEALTH_OK"
	check "status shows the mon service" out_has "mon: 1 daemons, quorum a"
	check "status shows the osd service" out_has "osd: 0 osds: 0 up, 0 in"
	check "status shows pools and pgs" out_has "pools:   0 pools, 0 pgs"
	expect 0 "-s" -s
	check "-s is status" out_has "id: *$FSID"
	expect 0 "status -f json" status -f json
	check "status json: fsid" jis fsid "$FSID"
	check "status json: health" jkeys health status checks
	check "status json: health.status" jis health.status HEALTH_OK
	check "status json: monmap.epoch" jis monmap.epoch 1
	check "status json: osdmap" jkeys osdmap epoch num_osds num_up_osds \
	    num_in_osds
	check "status json: pgmap" jkeys pgmap version num_pgs num_pools \
	    num_objects data_bytes pgs_by_state
	check "status json is one line" test "$(wc -l <"$T/out")" -eq 1
	expect 0 "status -f json-pretty" -f json-pretty status
	check "json-pretty is indented" out_has '^    "fsid"'

	# version, mon stat, mon dump
	expect 0 "version" version
	# Ceph's line: "ceph version 16.2.15 (...)".
	check "version prints mapmon's" out_has "^mapmon version [0-9]"
	expect 0 "version -f json" version -f json
	check "version json" jkeys . version
	expect 0 "mon stat" mon stat
	# Ceph's: "e1: 1 mons at {a=...}, election epoch 3, leader 0 a, quorum 0 a".
	check "mon stat plain" out_has \
	    "^e1: 1 mons at {a=.*}, election epoch 1, leader 0 a, quorum 0 a$"
	expect 0 "mon stat -f json" mon stat -f json
	check "mon stat json" jis quorum_names.0 a
	expect 0 "mon dump" mon dump
	check "mon dump plain" out_has "^fsid $FSID$"
	check "mon dump lists mon.a" out_has "^0: .* mon.a$"
	expect 0 "mon dump -f json" -f json mon dump
	check "mon dump json" jis mons.0.name a

	# osd create / boot
	expect 0 "osd create" osd create
	check "osd create prints the new id on stdout" test "$(cat "$T/out")" = 0
	check "osd create's status goes to stderr" err_has "osd.0"
	expect 0 "osd create -f json" -f json osd create
	check "osd create json: osdid" jis osdid 1
	expect 0 "osd create ID" osd create 2
	check "osd create ID prints it" test "$(cat "$T/out")" = 2
	expect 17 "osd create of an existing id is EEXIST" osd create 2
	check "a refused command says why on one stderr line" err_lines 1
	check "the refusal names the errno" err_has "^Error EEXIST: "
	for i in 0 1 2; do
		expect 0 "osd boot $i" osd boot $i 127.0.0.1:680$i
		check "osd boot prints nothing on stdout" test ! -s "$T/out"
	done
	expect 2 "osd boot of a missing osd is ENOENT" osd boot 9

	# osd tree
	expect 0 "osd tree" osd tree
	# Ceph's columns, PRI-AFF last (seen on ceph 16.2.15).
	check "osd tree: Ceph's columns, byte for byte" text_table_is \
	    "$T/out" <<'EOF'
ID  CLASS  WEIGHT   TYPE NAME        STATUS  REWEIGHT  PRI-AFF
-1         3.00000  root default
-2         1.00000      host host-0
 0         1.00000          osd.0        up   1.00000  1.00000
-3         1.00000      host host-1
 1         1.00000          osd.1        up   1.00000  1.00000
-4         1.00000      host host-2
 2         1.00000          osd.2        up   1.00000  1.00000
EOF
	# Each OSD booted without a location is at a host of its own.
	check "osd tree row" out_has \
	    "^ 1  *1\.00000          osd\.1  *up  *1\.00000  1\.00000$"
	check "osd tree: its host" out_has \
	    "^-[0-9]  *1\.00000      host host-1  *$"
	expect 0 "osd tree -f json" osd tree -f json
	check "osd tree json: an OSD node" jkeys nodes.2 id name type status \
	    reweight crush_weight
	check "osd tree json: root, 3 hosts, 3 OSDs" jis nodes.# 7
	check "osd tree json: root default" jis nodes.0.name default
	check "osd tree json: name" jis nodes.6.name osd.2
	check "osd tree json: type" jis nodes.6.type osd
	check "osd tree json: status" jis nodes.6.status up

	# pools
	expect 0 "osd pool create" osd pool create rbd 16
	check "osd pool create: status on stderr" err_has "pool 'rbd' created"
	check "osd pool create: nothing on stdout" test ! -s "$T/out"
	# Ceph answers a pool created again with rc 0 (seen on ceph 16.2.15).
	expect 0 "osd pool create of an existing pool" osd pool create rbd 8
	check "osd pool create of an existing pool: Ceph's note" err_has \
	    "^pool 'rbd' already exists$"
	expect 0 "osd pool create with size" osd pool create scratch 4 4 \
	    --size 2
	expect 0 "osd pool ls" osd pool ls
	check "osd pool ls lists the names" test "$(tr '\n' ' ' <"$T/out")" = \
	    "rbd scratch "
	expect 0 "osd pool ls -f json" -f json osd pool ls
	check "osd pool ls json" test "$(cat "$T/out")" = '["rbd","scratch"]'
	expect 0 "osd pool ls detail" osd pool ls detail
	check "osd pool ls detail plain" out_has \
	    "^pool 1 'rbd' replicated size 3 min_size 2 crush_rule 0 pg_num 16 pgp_num 16"
	expect 0 "osd pool ls detail -f json" -f json osd pool ls detail
	check "osd pool ls detail json" jkeys 0 pool pool_name size min_size \
	    pg_num created_epoch
	check "osd pool ls detail json: values" test \
	    "$(jget 1.pool 1.pool_name 1.size 1.min_size 1.pg_num | tr '\n' ' ')" \
	    = "2 scratch 2 1 4 "
	expect 0 "osd pool get" osd pool get rbd size
	check "osd pool get plain" test "$(cat "$T/out")" = "size: 3"
	expect 0 "osd pool get -f json" -f json osd pool get rbd pg_num
	check "osd pool get json" jis pg_num 16
	expect 2 "osd pool get of a missing pool" osd pool get nosuch size
	expect 0 "osd pool set" osd pool set scratch size 3
	expect 0 "osd pool get after set" osd pool get scratch size
	check "osd pool set took" test "$(cat "$T/out")" = "size: 3"
	expect 0 "osd pool rename" osd pool rename scratch scratch2
	expect 2 "osd pool rename of a missing pool" osd pool rename nosuch x
	expect 1 "osd pool delete without confirmation is EPERM" \
	    osd pool delete scratch2
	# Ceph's mon_allow_pool_delete, false by default, set at run time.
	expect 1 "osd pool delete before mon_allow_pool_delete is EPERM" \
	    osd pool delete scratch2 scratch2 --yes-i-really-really-mean-it
	expect 0 "config set mon.mon_allow_pool_delete true" \
	    config set mon.mon_allow_pool_delete true
	# A pool that is not there: rc 0 and Ceph's note.
	expect 0 "osd pool delete of a missing pool" osd pool delete nosuch \
	    nosuch --yes-i-really-really-mean-it
	expect 0 "osd pool delete" osd pool delete scratch2 scratch2 \
	    --yes-i-really-really-mean-it
	expect 0 "osd pool ls after delete" -f json osd pool ls
	check "the pool is gone" test "$(cat "$T/out")" = '["rbd"]'

	# osd dump / stat / flags
	expect 0 "osd set noout" osd set noout
	expect 0 "osd dump" osd dump
	check "osd dump: epoch" out_has "^epoch [0-9][0-9]*$"
	check "osd dump: fsid" out_has "^fsid $FSID$"
	check "osd dump: flags" out_has "^flags noout$"
	check "osd dump: pool line" out_has "^pool 1 'rbd' replicated size 3"
	check "osd dump: osd line" out_has "^osd\.0 up   in  weight 1 up_from"
	expect 0 "osd dump -f json" -f json osd dump
	check "osd dump json" jkeys . epoch fsid created modified flags pools \
	    osds
	check "osd dump json: osds" jkeys osds.0 osd up in weight \
	    crush_weight public_addr up_from down_at
	check "osd dump json: pools" jkeys pools.0 pool pool_name size \
	    min_size pg_num created_epoch
	check "osd dump json: up is 0/1" jis osds.0.up 1
	check "osd dump json: public_addr" jis osds.1.public_addr 127.0.0.1:6801
	check "osd dump json: flags" jis flags noout
	expect 0 "osd stat" osd stat
	check "osd stat plain" out_has "^3 osds: 3 up, 3 in; epoch: e"
	expect 0 "osd stat -f json" -f json osd stat
	check "osd stat json" jis num_up_osds 3
	expect 0 "osd unset noout" osd unset noout
	expect 0 "osd stat after unset" -f json osd stat
	check "the flag is cleared" jis flags ""

	# capacity: df, osd df, the usage line, the full ratios
	expect 0 "status before any beacon" status
	check "usage: nothing known yet" out_has \
	    "^    usage:   0 B used, 0 B / 0 B avail$"
	expect 0 "osd beacon with capacity" raw '{"prefix":"osd beacon","id":0,"statfs":{"total":107374182400,"used":21474836480,"avail":85899345920}}'
	expect 0 "osd beacon of a nearfull osd" raw '{"prefix":"osd beacon","id":1,"statfs":{"total":107374182400,"used":92341796864,"avail":15032385536,"data":91268055040,"omap":536870912,"meta":536870912}}'
	expect 0 "-s after beacons" -s
	check "status: the usage line" out_has \
	    "^    usage:   106 GiB used, 94 GiB / 200 GiB avail$"
	check "status: the nearfull check" out_has "^            1 nearfull osd(s)$"
	expect 0 "status -f json after beacons" -f json status
	check "status json: pgmap usage" jkeys pgmap bytes_used bytes_avail \
	    bytes_total
	check "status json: bytes_total" jis pgmap.bytes_total 214748364800
	expect 0 "df" df
	check "df: raw storage" out_has "^--- RAW STORAGE ---$"
	check "df: raw header" out_has \
	    "^CLASS  *SIZE  *AVAIL  *USED  *RAW USED  *%RAW USED$"
	check "df: total row" out_has \
	    "^TOTAL  *200 GiB  *94 GiB  *106 GiB  *106 GiB  *53.00$"
	check "df: pools" out_has "^--- POOLS ---$"
	check "df: pools header" out_has \
	    "^POOL  *ID  *PGS  *STORED  *OBJECTS  *USED  *%USED  *MAX AVAIL$"
	# osd.1 has the least room to full_ratio, 14 - 5 GiB, a third of the
	# weight: 27 GiB raw, 9 GiB for a pool of size 3.
	check "df: pool row" out_has "^rbd  *1  *16  *0 B  *0  *0 B  *0  *9.0 GiB$"
	expect 0 "df -f json" -f json df
	check "df json: stats" jkeys stats total_bytes total_avail_bytes \
	    total_used_bytes total_used_raw_bytes total_used_raw_ratio num_osds
	check "df json: stats_by_class" jkeys . stats_by_class pools
	check "df json: pool" jkeys pools.0 name id stats
	check "df json: pool stats" jkeys pools.0.stats stored objects kb_used \
	    bytes_used percent_used max_avail
	check "df json: num_osds" jis stats.num_osds 2
	check "df json: max_avail" jis pools.0.stats.max_avail 9663676416
	expect 0 "osd df" osd df
	check "osd df: header" out_has \
	    "^ID  CLASS  *WEIGHT  REWEIGHT  *SIZE  RAW USE  *DATA  *OMAP  *META  *AVAIL  *%USE  *VAR  *PGS  STATUS$"
	check "osd df: a row" out_has \
	    "^ 1  *1.00000  *1.00000  *100 GiB  *86 GiB  *85 GiB  *512 MiB  *512 MiB  *14 GiB  *86.00  *1.62  *16  *up$"
	check "osd df: an osd without a beacon" out_has \
	    "^ 2  *1.00000  *1.00000  *0 B  *0 B  *0 B  *0 B  *0 B  *0 B  *0  *0  *16  *up$"
	check "osd df: total row" out_has \
	    "^  *TOTAL  *200 GiB  *106 GiB  *105 GiB  *512 MiB  *512 MiB  *94 GiB  *53.00 *$"
	check "osd df: variance line" out_has \
	    "^MIN/MAX VAR: 0/1.62  STDDEV: 40.77$"
	expect 0 "osd df -f json" -f json osd df
	check "osd df json: node" jkeys nodes.0 id name type type_id \
	    crush_weight depth reweight kb kb_used kb_used_data kb_used_omap \
	    kb_used_meta kb_avail utilization var pgs status
	check "osd df json: summary" jkeys summary total_kb total_kb_used \
	    total_kb_used_data total_kb_used_omap total_kb_used_meta \
	    total_kb_avail average_utilization min_var max_var dev
	check "osd df json: stray" jis stray.# 0
	check "osd df json: kb_used" jis nodes.1.kb_used 90177536
	expect 0 "health detail when nearfull" health detail
	check "health detail: nearfull osd" out_has \
	    "^\[WRN\] OSD_NEARFULL: 1 nearfull osd(s)$"
	check "health detail: the osd named" out_has "^    osd\.1 is near full$"
	check "health detail: the pool named" out_has \
	    "^    pool 'rbd' is nearfull$"
	expect 22 "a full ratio below backfillfull is EINVAL" \
	    osd set-full-ratio 0.8
	check "the refusal names the order" err_has \
	    "^Error EINVAL: full_ratio 0.8 refused: the ratios must be nearfull_ratio <= backfillfull_ratio <= full_ratio, and would be 0.85, 0.9, 0.8$"
	expect 0 "osd set-nearfull-ratio" osd set-nearfull-ratio 0.9
	check "set-nearfull-ratio: Ceph's status" err_has \
	    "^osd set-nearfull-ratio 0.9$"
	expect 0 "osd set-backfillfull-ratio" osd set-backfillfull-ratio 0.9
	expect 0 "osd set-full-ratio" osd set-full-ratio 0.96
	expect 0 "osd dump with the ratios" osd dump
	check "osd dump: full_ratio" out_has "^full_ratio 0.96$"
	check "osd dump: backfillfull_ratio" out_has "^backfillfull_ratio 0.9$"
	check "osd dump: nearfull_ratio" out_has "^nearfull_ratio 0.9$"
	expect 0 "osd dump -f json with the ratios" -f json osd dump
	check "osd dump json: the ratios" jkeys . full_ratio \
	    backfillfull_ratio nearfull_ratio
	expect 0 "health past the new ratio" health
	check "86% is not nearfull at 0.9" eval '! out_has nearfull'
	expect 0 "osd set-nearfull-ratio back" osd set-nearfull-ratio 0.85
	expect 0 "osd set-full-ratio back" osd set-full-ratio 0.95
	expect 0 "osd beacon: room again" raw '{"prefix":"osd beacon","id":1,"statfs":{"total":107374182400,"used":21474836480,"avail":85899345920}}'

	# pg stat / dump / ls / query
	expect 0 "pg stat" pg stat
	# Ceph's print_oneline_summary(): states, data, the usage figures.
	check "pg stat plain" out_has \
	    "^16 pgs: 16 creating; 0 B data, 40 GiB used, 160 GiB / 200 GiB avail$"
	expect 0 "pg stat -f json" -f json pg stat
	check "pg stat json" jkeys . version num_pgs pgs_by_state num_objects \
	    data_bytes
	check "pg stat json: pgs_by_state" jis pgs_by_state.0.state_name creating
	check "pg stat json: count" jis pgs_by_state.0.count 16
	expect 0 "pg dump" pg dump
	check "pg dump plain: pg table" out_has \
	    "^PG_STAT  OBJECTS  MISSING_ON_PRIMARY  DEGRADED"
	check "pg dump plain: osd table" out_has "^OSD_STAT"
	expect 0 "pg dump pgs -f json" -f json pg dump pgs
	check "pg dump pgs json: 16 pg_stats" jis pg_stats.# 16
	check "pg dump pgs json: PGSTAT" jkeys pg_stats.0 pgid state version \
	    reported_epoch reported_seq up acting up_primary acting_primary \
	    last_fresh last_change last_active last_peered last_clean \
	    last_became_active last_unstale last_scrub_stamp \
	    last_deep_scrub_stamp log_size ondisk_log_size
	check "pg dump pgs json: counters" jkeys pg_stats.0.stat_sum num_bytes \
	    num_objects num_object_clones num_object_copies \
	    num_objects_missing_on_primary num_objects_degraded \
	    num_objects_misplaced num_objects_unfound num_read num_read_kb \
	    num_write num_write_kb num_scrub_errors num_objects_recovered \
	    num_bytes_recovered
	for w in summary pools osds; do
		expect 0 "pg dump $w" pg dump $w
		expect 0 "pg dump $w -f json" -f json pg dump $w
	done
	check "pg dump osds json" jis osd_stats.# 3
	expect 0 "pg ls" pg ls
	check "pg ls plain: header" out_has \
	    "^PG   OBJECTS  DEGRADED  MISPLACED  UNFOUND  BYTES"
	check "pg ls plain: 16 rows" test "$(grep -c '^1\.' "$T/out")" -eq 16
	expect 0 "pg ls --pool STATE -f json" -f json pg ls --pool rbd creating
	check "pg ls json" jis pg_stats.# 16
	expect 0 "pg ls STATE" -f json pg ls active
	check "pg ls by state filters" jis pg_stats.# 0
	expect 2 "pg ls --pool of a missing pool" pg ls --pool nosuch
	expect 22 "pg ls of an unknown state" pg ls sleepy
	expect 0 "pg query" pg query 1.a
	check "pg query plain is JSON" out_has '"pgid": "1.a"'
	expect 0 "pg query -f json" -f json pg query 1.a
	check "pg query json: one PGSTAT" jkeys . pgid state up acting \
	    up_primary acting_primary stat_sum
	expect 2 "pg query of a missing pg" pg query 1.10
	expect 22 "pg query of a bad pgid" pg query 1.x
	expect 0 "pg dump_stuck" pg dump_stuck inactive
	# New PGs are not stuck until pg_stale_timeout has passed.
	check "pg dump_stuck plain: nothing stuck yet" test ! -s "$T/out"
	expect 0 "pg dump_stuck -f json" -f json pg dump_stuck stale
	check "pg dump_stuck json" jkeys . stuck_pg_stats

	# pg map: computed locally, as the daemon computes it.
	expect 0 "pg map" pg map 1.3
	check "pg map plain" out_has \
	    "^osdmap e[0-9]* pg 1\.3 (1\.3) -> up \[[0-9],[0-9],[0-9]\] acting \[[0-9],[0-9],[0-9]\]$"
	expect 0 "pg map -f json" -f json pg map 1.3
	check "pg map json" jkeys . epoch pgid up up_primary acting \
	    acting_primary
	expect 0 "osd reweight" osd reweight 1 0.3
	expect 0 "osd out" osd out 2
	agree=0
	for s in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
		"$MAPMON" -m "$ADDR" -f json pg map 1.$s >"$T/local" 2>&1
		daemon_pg_map 1.$s >"$T/remote" 2>&1
		cmp -s "$T/local" "$T/remote" && agree=$((agree + 1))
	done
	check "pg map computed locally == the daemon's, for all 16 pgs" \
	    test $agree -eq 16
	cp "$T/remote" "$T/out"
	check "the daemon's pg map is the reply shape" jkeys . epoch pgid up \
	    up_primary acting acting_primary
	# Ceph's raw_pg_to_pg(): 1.10 of a pool of 16 PGs is 1.0.
	expect 0 "pg map of a seed beyond pg_num" pg map 1.10
	check "a seed beyond pg_num folds, as Ceph's" out_has \
	    "^osdmap e[0-9]* pg 1\.10 (1\.0) -> up "
	expect 2 "pg map of a missing pool" pg map 7.0
	expect 22 "pg map of a bad pgid" pg map one.two
	expect 0 "osd in" osd in 2
	expect 0 "osd reweight back" osd reweight 1 1

	# health
	expect 0 "osd down" osd down 2
	check "osd down: status on stderr" test -s "$T/err"
	expect 0 "health" health
	check "health plain" out_has "^HEALTH_WARN 1 osds down"
	expect 0 "health detail" health detail
	check "health detail: check line" out_has "^\[WRN\] OSD_DOWN: 1 osds down$"
	check "health detail: detail line" out_has \
	    "^    osd\.2 is down since 20[0-9-]*T[0-9:]* (marked down by command)$"
	expect 0 "health -f json" -f json health
	check "health json: status" jis status HEALTH_WARN
	check "health json: severity" jis checks.OSD_DOWN.severity HEALTH_WARN
	check "health json: summary" jis checks.OSD_DOWN.summary.message \
	    "1 osds down"
	check "health json: count" jis checks.OSD_DOWN.summary.count 1
	expect 0 "health detail -f json" -f json health detail
	check "health detail json" eval '"$JG" checks.OSD_DOWN.detail.0.message \
	    <"$T/out" | grep -q "^osd\.2 is down since .* (marked down by command)$"'
	expect 0 "status with a check" status
	check "status lists the check" out_has "^            1 osds down$"
	expect 0 "osd boot again" osd boot 2
	expect 16 "osd rm of an up osd is EBUSY" osd rm 2
	# Ceph notes a missing id and answers 0 (seen on ceph 16.2.15).
	expect 0 "osd rm of a missing osd" osd rm 9
	check "osd rm of a missing osd: Ceph's note" err_has \
	    "^osd\.9 does not exist\. $"
	expect 0 "osd create for rm" osd create
	expect 0 "osd rm" osd rm 3

	# log
	expect 0 "log last" log last 5
	check "log last: 5 lines" test "$(wc -l <"$T/out")" -eq 5
	# Ceph's operator<<(LogEntry): "STAMP mon.a (mon.0) SEQ : cluster [INF] ".
	check "log last plain" out_has \
	    "^[0-9-]*T[0-9:.]*+0000 mon\.a (mon\.0) [0-9]* : cluster \[\(INF\|WRN\|ERR\)\] "
	expect 0 "log last -f json" -f json log last 3
	check "log last json" jkeys 0 stamp severity message
	check "log last json: 3" jis "#" 3
	expect 0 "log last, default" -f json log last
	expect 0 "log dump" -f json log dump

	# config, perf, store
	expect 0 "config get" config get mon.propose_interval
	check "config get plain is the value alone" test "$(cat "$T/out")" = 2ms
	expect 0 "config get -f json" -f json config get mon.propose_interval
	check "config get json" jkeys . name value runtime
	check "config get json: value" jis value 2ms
	check "config get json: runtime" jis runtime true
	expect 0 "config set" config set log.debug_mon 3/5
	check "config set: status on stderr" test -s "$T/err"
	expect 0 "config get after set" config get log.debug_mon
	check "config set took" test "$(cat "$T/out")" = 3/5
	expect 2 "config get of an unknown key" config get mon.nosuch
	expect 22 "config set of a bad value" config set mon.propose_interval x
	expect 0 "config show" config show
	check "config show plain" out_has "^mon\.propose_interval = 2ms$"
	expect 0 "config show -f json" -f json config show
	expect 0 "perf dump" -f json perf dump
	check "perf dump json" jkeys . mon
	expect 0 "store stat" -f json store stat
	check "store stat: the backend" jis backend "$BACKEND"
	expect 0 "store compact" store compact

	# limits (mapmon.conf(5)): ERANGE, exit 34, Ceph's messages; nothing
	# is made.  rbd holds 16 x 3 of the 750 PGs that 3 OSDs in allow.
	expect 34 "a pool past max_pool_pg_num" osd pool create big 65537 1
	check "max_pool_pg_num: Ceph's message" err_has "^Error ERANGE: 'pg_num' must be greater than 0 and less than or equal to 65536 (you may adjust 'mon max pool pg num' for higher values)$"
	expect 34 "a pool past max_pg_per_osd" osd pool create big 235 3
	check "max_pg_per_osd: Ceph's message" err_has "^Error ERANGE: pg_num 235 size 3 would mean 753 total pgs, which exceeds max 750 (mon_max_pg_per_osd 250 \* num_in_osds 3)$"
	expect 34 "a pg_num growth past max_pg_per_osd" osd pool set rbd pg_num 251
	check "max_pg_per_osd: the pool named" err_has "^Error ERANGE: pool id 1 pg_num 251 size 3 would mean 753 total pgs"
	expect 34 "an OSD id past max_osd" osd create 10000
	check "max_osd: the message" err_has "^Error ERANGE: cannot create osd.10000: max_osd would be 10001, which is > mon max_osd (10000)$"
	expect 0 "config set mon.max_pgs" config set mon.max_pgs 100
	expect 34 "a pool past max_pgs" osd pool create big 85 1
	check "max_pgs: the message" err_has "^Error ERANGE: pg_num 85 would mean 101 pgs in all pools, which exceeds max_pgs 100 (mon max_pgs, the monitor's memory bound)$"
	expect 0 "after the refusals" -f json pg stat
	check "no PG was made" jis num_pgs 16
	expect 0 "a pool at max_pgs itself" osd pool create big 84 1
	expect 0 "and away" osd pool delete big big --yes-i-really-really-mean-it
	expect 0 "config set mon.max_pgs back" config set mon.max_pgs 262144
	expect 0 "the pools" -f json osd pool ls
	check "only rbd" test "$(cat "$T/out")" = '["rbd"]'

	# raw
	expect 0 "raw" -f json raw '{"prefix":"osd stat"}'
	check "raw prints the reply's data" jis num_osds 3
	expect 22 "raw of an unknown command" raw '{"prefix":"frobnicate"}'
	expect 22 "raw with an unknown argument" raw '{"prefix":"status","x":1}'
	expect 22 "raw of bad JSON" raw '{"prefix":'
	expect 22 "raw of a non-object" raw '[1]'

	# usage errors: one line saying what, then the usage line.  What the
	# command table refuses is EINVAL (22), as Ceph's CLI exits; 64 is for
	# mapmon's own usage (an unknown option, no command).
	expect 64 "no command"
	# Ceph's CLI: "no valid command found", EINVAL.
	expect 22 "an unknown command" frobnicate
	check "unknown command named" err_has "^no valid command found"
	expect 22 "an incomplete command" osd pool
	expect 22 "a missing argument" osd pool get rbd
	check "missing argument named" err_has "missing argument VAR"
	check "usage line given" err_has \
	    "^usage: mapmon osd pool get POOL size|min_size|pg_num|pgp_num|crush_rule|all$"
	check "two lines on stderr" err_lines 2
	expect 22 "a bad integer" osd pool create foo 8 --size many
	check "bad integer named" err_has "SIZE: 'many' is not an integer"
	expect 22 "out of bounds" osd reweight 1 1.5
	expect 22 "a bad choice" osd set nofun
	expect 22 "an extra argument" osd tree please
	expect 64 "an unknown option" -x status
	expect 22 "an unknown command option" pg ls --color
	expect 64 "a bad format" -f xml status
	expect 64 "a bad timeout" --connect-timeout soon status

	# help, completion list
	expect 0 "-h" -h
	check "-h lists the monitor's commands" out_has "^  osd pool create POOL"
	check "-h leaves hidden commands out" eval '! out_has subscribe'
	expect 0 "help COMMAND" help osd pool create
	check "help prints the usage line" out_has \
	    "^usage: mapmon osd pool create POOL \[PG_NUM\] \[PGP_NUM\]"
	expect 0 "help PREFIX" help pg
	check "help PREFIX lists" out_has "^  pg map PGID$"
	expect 22 "help of nothing known" help frob
	expect 0 "--list-commands" --list-commands
	check "--list-commands" out_has "^osd pool create$"
	check "--list-commands hides hidden" eval '! out_has "^subscribe$"'
	"$MAPMON" --version >"$T/out" 2>&1
	check "--version" out_has "^mapmon version [0-9]"
	"$MAPMON" -v >"$T/out" 2>&1
	check "-v, as ceph -v" out_has "^mapmon version [0-9]"

	# bash completion, from the monitor's table
	check "completion: first words" test "$(comp "")" = \
	    "auth config df fsid health log mon osd perf pg quorum_status report status store version watch raw help"
	check "completion: a partial word" test "$(comp osd po)" = pool
	check "completion: subcommands" test "$(comp osd pool "")" = \
	    "application create delete get ls rename rm set"
	check "completion: after options" test "$(comp -f json pg d)" = \
	    "dump dump_stuck"
	check "completion: formats" test "$(comp -f js)" = "json json-pretty"

	# watch: an event as it commits; SIGINT ends it with 0
	for fmt in plain json; do
		"$MAPMON" -m "$ADDR" -f $fmt -w >"$T/watch" 2>"$T/watch.err" &
		WPID=$!
		for i in $(seq 1 50); do
			grep -q HEALTH "$T/watch" && break
			sleep 0.1
		done
		"$MAPMON" -m "$ADDR" osd down 1 >/dev/null 2>&1
		for i in $(seq 1 50); do
			grep -q "osd.1 marked down" "$T/watch" && break
			sleep 0.1
		done
		check "watch ($fmt) prints the osd going down" \
		    grep -q "osd.1 marked down" "$T/watch"
		if [ $fmt = plain ]; then
			check "watch prints log lines" grep -q \
			    "mon\.a (mon\.0) [0-9]* : cluster \[INF\] osd\.1 marked down$" \
			    "$T/watch"
			check "watch prints health changes" grep -q \
			    "health: HEALTH_WARN 1 osds down" "$T/watch"
		else
			check "watch -f json prints log entries" grep -q \
			    '^{.*"message":"osd.1 marked down"' "$T/watch"
		fi
		kill -INT $WPID
		wait $WPID
		check "watch ($fmt) exits 0 on SIGINT" test $? -eq 0
		WPID=
		"$MAPMON" -m "$ADDR" osd boot 1 >/dev/null 2>&1
	done
	"$MAPMON" -m "$ADDR" watch >"$T/watch" 2>&1 &
	WPID=$!
	for i in $(seq 1 50); do
		grep -q HEALTH "$T/watch" && break
		sleep 0.1
	done
	kill -TERM $WPID
	wait $WPID
	check "watch exits 0 on SIGTERM" test $? -eq 0
	WPID=

	# timeouts: a stopped monitor
	kill -STOP "$DPID"
	start=$(date +%s)
	expect 110 "a monitor that does not answer times out" \
	    --connect-timeout 1 status
	check "the timeout is bounded" test $(($(date +%s) - start)) -le 4
	check "the timeout says so on one line" err_lines 1
	kill -CONT "$DPID"

	# restart: everything acknowledged is still there
	"$MAPMON" -m "$ADDR" -f json osd dump >"$T/before" 2>&1
	check "mapmond stops on SIGTERM with 0" stop_daemon
	check "mapmond restarts" start_daemon
	"$MAPMON" -m "$ADDR" -f json osd dump >"$T/after" 2>&1
	check "the osdmap survives the restart" cmp -s "$T/before" "$T/after"
	expect 0 "status after the restart" -f json status
	check "fsid after the restart" jis fsid "$FSID"
	check "pools after the restart" jis pgmap.num_pgs 16
	expect 0 "pools after the restart" -f json osd pool ls
	check "pool names after the restart" test "$(cat "$T/out")" = '["rbd"]'
	expect 0 "log after the restart" log last 200
	check "the log survives the restart" out_has "pool 'rbd' created"
	check "mapmond stops" stop_daemon

	# max_connections 1, held by a watcher: a second client is refused.
	local conf=$CONF wpid i
	sed 's/^\[mon\]$/[mon]\nmax_connections = 1/' "$conf" >"$T/one.conf"
	CONF=$T/one.conf
	check "mapmond starts with max_connections = 1" start_daemon
	"$MAPMON" -m "$ADDR" watch >/dev/null 2>&1 &
	wpid=$!
	for i in $(seq 1 50); do
		run status
		[ "$rc" -eq 16 ] && break
		# The status took the one place first: the watcher was refused.
		if ! kill -0 "$wpid" 2>/dev/null; then
			"$MAPMON" -m "$ADDR" watch >/dev/null 2>&1 &
			wpid=$!
		fi
		sleep 0.1
	done
	check "a client past max_connections exits 16 (exit $rc)" \
	    test "$rc" -eq 16
	check "it says EBUSY, on one line" err_has "Error EBUSY"
	check "one line" err_lines 1
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	check "mapmond stops" stop_daemon
	CONF=$conf
}

for b in lmdb leveldb; do
	suite $b
done

# Nobody there: refused (111), a listener that never answers (110).
BACKEND=any
ADDR=127.0.0.1:$("$LISTEN" -p)
expect 111 "no monitor at the address" status
check "connection refused says so" err_has "refused"
check "one line" err_lines 1
expect 0 "-h without a monitor" -h
check "-h says how to reach a monitor" out_has "none answers at $ADDR"
"$LISTEN" >"$T/port" &
LPID=$!
for i in $(seq 1 50); do
	[ -s "$T/port" ] && break
	sleep 0.1
done
ADDR=127.0.0.1:$(cat "$T/port")
start=$(date +%s)
expect 110 "a listener that never answers" --connect-timeout 1 status
check "bounded by --connect-timeout" test $(($(date +%s) - start)) -le 4
expect 110 "--connect-timeout=S, a fraction" --connect-timeout=0.5 osd tree
kill "$LPID"
wait "$LPID" 2>/dev/null
LPID=

echo "1..$n"
[ $failed -eq 0 ]
