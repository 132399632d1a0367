#!/bin/bash
# cli_ceph_pg.sh: a Ceph operator's PG, health, log and status commands and
# the CLI's help, replayed on mapmon end to end (the real mapmond, the real
# mapmon), once per store backend.  Speaks TAP.  Needs $top_builddir (and
# $top_srcdir).
#
# Each case cites what it holds: the Ceph function it follows (src/mon/
# PGMap.cc, src/mon/HealthMonitor.cc, src/common/LogEntry.cc, ...) or the
# output seen on ceph 16.2.15 (a single monitor and manager, OSDs 0-2 that
# never ran).  The exit statuses and messages of refusals are one table
# (ERRNO_TABLE) that the test walks.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
. "$top_srcdir/test/lib/backend_lib.sh"
TAP_PER_BACKEND=1
check_diag() {
	printf 'out: %s\nerr: %s' "$(head -c 800 "$T/out")" \
	    "$(head -c 600 "$T/err")"
}
MAPMON=$top_builddir/tools/mapmon
MAPMOND=$top_builddir/daemon/mapmond
JG=$top_builddir/test/lib/json_get
LISTEN=$top_builddir/test/e2e/cli_listen

T=$(mktemp -d /tmp/cli_ceph_pg.XXXXXX) || exit 99
DPID=
LPID=
cleanup() {
	for p in $LPID $DPID; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT

err_is() { [ "$(cat "$T/err")" = "$1" ]; }
jnokey() {	# jnokey PATH KEY: the object at PATH lacks KEY
	case ",$("$JG" "$1.@keys" <"$T/out")," in *",$2,"*) return 1;; esac
}

# report STATE SCRUB_ERRORS PGID...: each PG reported by its primary in
# STATE, with its up set as its acting one (an OSD's PG report).
report() {
	local state=$1 errs=$2 pg epoch up primary
	shift 2
	for pg in "$@"; do
		"$MAPMON" -m "$ADDR" -f json pg map "$pg" >"$T/map" 2>&1 ||
		    return 1
		epoch=$("$JG" epoch <"$T/map")
		up=$("$JG" up <"$T/map")
		primary=$("$JG" up_primary <"$T/map")
		"$MAPMON" -m "$ADDR" raw "{\"prefix\":\"pg report\",\"osd\":$primary,\"pgs\":[{\"pgid\":\"$pg\",\"state\":\"$state\",\"reported_epoch\":$epoch,\"reported_seq\":$((++SEQ)),\"up\":$up,\"acting\":$up,\"stat_sum\":{\"num_objects\":2,\"num_scrub_errors\":$errs}}]}" \
		    >/dev/null 2>"$T/err" || return 1
	done
}

# What bash completion offers for the words after `mapmon -m ADDR`.
comp() {
	XDG_CACHE_HOME=$T/cache bash -c 'source "$1"; shift; COMP_WORDS=("$@")
	    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _mapmon
	    echo "${COMPREPLY[*]}"' _ "$top_srcdir/tools/mapmon.bash-completion" \
	    "$MAPMON" -m "$ADDR" "$@"
}

# The refusals: EXIT|ARGS|STDERR (a grep pattern)|WHAT IT HOLDS.  ARGS are
# split on blanks.  EXIT "ARGS" is the CLI's own refusal of an argument:
# EINVAL (22) in Ceph's CLI, $ARGS_RC here.
ARGS_RC=${ARGS_RC:-22}
ERRNO_TABLE='
2|pg ls 9|^Error ENOENT: pool 9 does not exist$|seen on ceph 16.2.15: pg ls 99
22|pg ls bogus|^Error EINVAL: '"'"'bogus'"'"' is not a valid pg state, available choices: stale+creating+active|seen on ceph 16.2.15; PGMap.cc process_pg_map_command
22|pg ls active+clean|is not a valid pg state|seen on ceph 16.2.15: one state a word
2|pg ls-by-pool nosuch|^Error ENOENT: pool nosuch does not exist$|seen on ceph 16.2.15
11|pg ls-by-osd 7|^Error EAGAIN: osd 7 is not up$|seen on ceph 16.2.15: a missing osd is not up
11|pg ls-by-primary osd.9|^Error EAGAIN: osd 9 is not up$|seen on ceph 16.2.15, osd.N as CephOsdName
ARGS|pg ls-by-osd osd.x|OSD: .osd\.x. is not an OSD id|ceph_argparse CephOsdName: osd id x not integer
ARGS|pg dump bogus|DUMPCONTENTS: .bogus. is not one of all|seen on ceph 16.2.15: bogus not in all|summary|...
ARGS|pg dump_stuck stale x|THRESHOLD: .x. is not an integer|seen on ceph 16.2.15: x doesn'"'"'t represent an int
ARGS|pg ls-by-pool|missing argument POOLSTR|MonCommands pg ls-by-pool <poolstr>
2|pg map 9.0|^Error ENOENT: pg .9\.0. does not exist$|seen on ceph 16.2.15
22|pg map x|^Error EINVAL: |seen on ceph 16.2.15: pgid has no .
2|health mute NOSUCH|^Error ENOENT: health alert NOSUCH is not currently raised$|seen on ceph 16.2.15; HealthMonitor::prepare_command
22|health mute OSD_DOWN 0|^Error EINVAL: invalid duration: 0 (timespan = 0)$|HealthMonitor::prepare_command
22|health mute OSD_DOWN 5x|^Error EINVAL: invalid duration: 5x|HealthMonitor::prepare_command, parse_timespan
ARGS|log last 5 loud|CHANNEL: .loud. is not one of|ceph_argparse: the last argument a word was offered to
22|frobnicate|^no valid command found|seen on ceph 16.2.15: Error EINVAL: invalid command
22|pg lss|^no valid command found; [0-9]* closest match|seen on ceph 16.2.15: 10 closest matches
'

suite() {
	SEQ=100
	# The checks are compared whole: no MON_DISK_LOW from the machine's own
	# disk (this one's free space hovers about the default 30%).
	suite_start "$1" "data_avail_warn = 1
data_avail_crit = 0"

	for i in 0 1 2 3; do
		"$MAPMON" -m "$ADDR" osd create >/dev/null 2>&1
		"$MAPMON" -m "$ADDR" osd boot $i 127.0.0.1:680$i >/dev/null 2>&1
	done
	expect 0 "a pool of 8" osd pool create rbd 8
	expect 0 "a pool of 4, size 1" raw \
	    '{"prefix":"osd pool create","pool":"one","pg_num":4,"size":1}'

	# status -f json: the top-level quorum of a one-monitor cluster, as
	# seen on ceph 16.2.15 ("election_epoch": 3, "quorum": [0],
	# "quorum_names": ["a"], "quorum_age": 50).
	expect 0 "status -f json" -f json status
	check "status: quorum" jis quorum '[0]'
	check "status: quorum_names" jis quorum_names '["a"]'
	check "status: election_epoch" jis election_epoch 1
	check "status: quorum_age" jkeys . quorum_age
	check "status: health without detail" jnokey \
	    health.checks.PG_AVAILABILITY detail
	check "status: health mutes" jis health.mutes '[]'
	# PGMapDigest::print_summary(): the ratios of the PGs not active.
	check "status: inactive_pgs_ratio" jis pgmap.inactive_pgs_ratio 1.0
	expect 0 "status" status
	check "status: quorum and its age" out_has \
	    "^    mon: 1 daemons, quorum a (age [0-9.]*[smh])$"
	# mon stat -f json, seen on ceph 16.2.15: {"epoch":1, ..., "leader":
	# "a","quorum":[{"rank":0,"name":"a"}]}.
	expect 0 "mon stat -f json" -f json mon stat
	check "mon stat: leader" jis leader a
	check "mon stat: quorum" jis quorum '[{"rank":0,"name":"a"}]'

	# pg stat -f json, seen on ceph 16.2.15: {"pg_ready":true,
	# "pg_summary":{"num_pg_by_state":[{"name":"unknown","num":24}],
	# "num_pgs":24,"num_bytes":0,"total_bytes":0,...}}.
	expect 0 "pg stat -f json" -f json pg stat
	check "pg stat: pg_ready" jis pg_ready true
	check "pg stat: pg_summary" jkeys pg_summary num_pg_by_state num_pgs \
	    num_bytes total_bytes total_avail_bytes total_used_bytes \
	    total_used_raw_bytes
	check "pg stat: num_pg_by_state" jis pg_summary.num_pg_by_state \
	    '[{"name":"creating","num":12}]'
	# print_oneline_summary(): "24 pgs: 24 unknown; 0 B data, 0 B used,
	# 0 B / 0 B avail" (seen on ceph 16.2.15).
	expect 0 "pg stat" pg stat
	check "pg stat plain" out_has \
	    "^12 pgs: 12 creating; 0 B data, 0 B used, 0 B / 0 B avail$"

	# pg dump -f json: PGMap::dump() in Ceph's "pg_map" wrapper (seen on
	# ceph 16.2.15: {"pg_ready":true,"pg_map":{"version",...}}).
	expect 0 "pg dump -f json" -f json pg dump
	check "pg dump: pg_ready" jis pg_ready true
	check "pg dump: pg_map" jkeys pg_map version stamp last_osdmap_epoch \
	    last_pg_scan pg_stats_sum osd_stats_sum pg_stats pool_stats \
	    osd_stats
	check "pg dump: 12 pg_stats" jis pg_map.pg_stats.# 12
	check "pg dump: pg_stats_sum" jkeys pg_map.pg_stats_sum stat_sum \
	    log_size ondisk_log_size up acting
	check "pg dump: stat_sum as Ceph's" jkeys pg_map.pg_stats_sum.stat_sum \
	    num_bytes num_objects num_object_clones num_object_copies \
	    num_objects_missing_on_primary num_objects_degraded \
	    num_objects_misplaced num_objects_unfound num_read num_write \
	    num_scrub_errors num_omap_bytes num_omap_keys
	check "pg dump: osd_stats_sum" jkeys pg_map.osd_stats_sum num_pgs \
	    num_osds kb kb_used kb_avail statfs
	check "pg dump: a PG as pg_stat_t::dump()" jkeys pg_map.pg_stats.0 \
	    pgid version reported_seq reported_epoch state last_fresh \
	    last_change last_active last_peered last_clean last_became_active \
	    last_unstale last_undegraded last_fullsized mapping_epoch created \
	    last_epoch_clean parent_split_bits last_scrub last_scrub_stamp \
	    last_deep_scrub last_deep_scrub_stamp log_size ondisk_log_size \
	    snaptrimq_len stat_sum up acting up_primary acting_primary
	# "last_became_active": "0.000000" for never (seen on ceph 16.2.15).
	check "pg dump: never as 0.000000" jis \
	    pg_map.pg_stats.0.last_became_active 0.000000
	check "pg dump: LAST_SCRUB an eversion" jis \
	    pg_map.pg_stats.0.last_scrub "0'0"
	check "pg dump: dumped all, on stderr" err_is "dumped all"
	# The parts: {"pg_ready","pool_stats"}, {"pg_ready","osd_stats"},
	# {"pg_ready","pg_stats"} (seen on ceph 16.2.15).
	expect 0 "pg dump pools -f json" -f json pg dump pools
	check "pg dump pools" jis .@keys pg_ready,pool_stats
	check "pg dump pools: pool_stat_t" jkeys pool_stats.0 poolid num_pg \
	    stat_sum log_size ondisk_log_size up acting
	expect 0 "pg dump osds -f json" -f json pg dump osds
	check "pg dump osds" jis osd_stats.# 4
	expect 0 "pg dump sum -f json" -f json pg dump sum
	check "pg dump sum: dump_basic() in pg_map" jis pg_map.@keys \
	    last_osdmap_epoch,last_pg_scan,osd_stats_sum,pg_stats_sum,stamp,version
	check "pg dump sum: dumped sum" err_is "dumped sum"
	expect 0 "pg dump pgs_brief -f json" -f json pg dump pgs_brief
	check "pg dump pgs_brief: dump_brief()" jis pg_stats.0.@keys \
	    acting,acting_primary,pgid,state,up,up_primary
	expect 0 "pg dump pgs pools -f json" -f json pg dump pgs pools
	check "pg dump pgs pools: both" jis .@keys pg_ready,pg_stats,pool_stats
	check "pg dump pgs pools: Ceph's set order" err_is "dumped pgs,pools"

	# Plain pg dump, as PGMap::dump(ostream&) and TextTable.
	expect 0 "pg dump" pg dump
	check "pg dump: dump_basic() lines" out_has "^last_osdmap_epoch [0-9]*$"
	check "pg dump: Ceph's columns" out_has \
	    "^PG_STAT  OBJECTS  MISSING_ON_PRIMARY  DEGRADED  MISPLACED  UNFOUND  BYTES  OMAP_BYTES\*  OMAP_KEYS\*  LOG  DISK_LOG  STATE *STATE_STAMP *VERSION  REPORTED  UP *UP_PRIMARY  ACTING *ACTING_PRIMARY  LAST_SCRUB  SCRUB_STAMP *LAST_DEEP_SCRUB  DEEP_SCRUB_STAMP *SNAPTRIMQ_LEN$"
	check "pg dump: LAST_SCRUB an eversion, SCRUB_STAMP apart" out_has \
	    "^1\.0 .* 0'0  20[0-9-]*T[0-9:.]*+0000  *0'0  20[0-9-]*T[0-9:.]*+0000  *0$"
	check "pg dump: the sum row" out_has "^sum  *0  *0 "
	check "pg dump: the OSD table" out_has \
	    "^OSD_STAT  USED  AVAIL  USED_RAW  TOTAL  HB_PEERS  PG_SUM  PRIMARY_PG_SUM$"
	check "pg dump: the omap note" out_has "^\* NOTE: Omap statistics"
	expect 0 "pg dump summary" pg dump summary
	check "pg dump summary: sum with its header" out_has \
	    "^PG_STAT  OBJECTS  MISSING_ON_PRIMARY  DEGRADED  MISPLACED  UNFOUND  BYTES  OMAP_BYTES\*  OMAP_KEYS\*  LOG  DISK_LOG$"
	check "pg dump summary: the OSD sum" out_has \
	    "^OSD_STAT  USED  AVAIL  USED_RAW  TOTAL$"
	expect 0 "pg dump pgs_brief" pg dump pgs_brief
	check "pg dump pgs_brief: Ceph's columns" out_has \
	    "^PG_STAT  STATE  *UP  *UP_PRIMARY  ACTING  *ACTING_PRIMARY$"
	check "pg dump pgs_brief: no omap note" eval '! out_has NOTE'
	check "pg dump pgs_brief: 12 rows" test "$(grep -c '^[12]\.' "$T/out")" -eq 12

	# pg ls POOL (Ceph's pool id), ls-by-pool, -by-primary, -by-osd.
	expect 0 "pg ls 2" -f json pg ls 2
	check "pg ls 2: pool 2's PGs" jis pg_stats.# 4
	check "pg ls: pg_ready" jis pg_ready true
	expect 0 "pg ls STATE, the pool passed over" -f json pg ls creating
	check "pg ls creating: every PG" jis pg_stats.# 12
	expect 0 "pg ls --pool NAME" -f json pg ls --pool one creating
	check "pg ls --pool: the named pool's" jis pg_stats.# 4
	expect 0 "pg ls-by-pool" -f json pg ls-by-pool rbd
	check "pg ls-by-pool rbd" jis pg_stats.# 8
	expect 0 "pg ls-by-osd osd.0" -f json pg ls-by-osd osd.0 1
	n0=$(jget pg_stats.#)
	check "pg ls-by-osd: PGs of pool 1 on osd.0" test "$n0" -gt 0
	check "pg ls-by-osd: osd.0 acting in each" eval \
	    '[ "$(jget pg_stats | grep -o "\"acting\":\[[0-9,]*\]" | grep -cv "[[,]0[],]")" -eq 0 ]'
	expect 0 "pg ls-by-primary 0" -f json pg ls-by-primary 0
	check "pg ls-by-primary: osd.0 the primary of each" eval \
	    '[ "$(jget pg_stats | grep -o "\"acting_primary\":[0-9-]*" | sort -u)" = "\"acting_primary\":0" ]'
	# dump_filtered_pg_stats(), plain (seen on ceph 16.2.15: "PG  OBJECTS
	# ... SINCE  VERSION  REPORTED  UP  ACTING  SCRUB_STAMP ...").
	expect 0 "pg ls" pg ls 1
	check "pg ls: Ceph's columns" out_has \
	    "^PG   OBJECTS  DEGRADED  MISPLACED  UNFOUND  BYTES  OMAP_BYTES\*  OMAP_KEYS\*  LOG  STATE  *SINCE  *VERSION  REPORTED  UP  *ACTING  *SCRUB_STAMP  *DEEP_SCRUB_STAMP *$"
	check "pg ls: up and acting with their primary" out_has \
	    "^1\.0 .*\[[0-9],[0-9],[0-9]\]p[0-9]  *\[[0-9],[0-9],[0-9]\]p[0-9] "
	check "pg ls: SINCE as Ceph's span" out_has "^1\.0 .* creating  *[0-9.]*[smh] "

	# pg map: Ceph's raw_pg_to_pg() and "raw_pgid" (seen on ceph 16.2.15:
	# pg map 1.1f -> {"epoch":63,"raw_pgid":"1.1f","pgid":"1.7",...}).
	expect 0 "pg map of a raw seed" -f json pg map 1.1f
	check "pg map: raw_pgid" jis raw_pgid 1.1f
	check "pg map: the PG it folds to" jis pgid 1.7
	expect 0 "pg map plain" pg map 1.1f
	check "pg map plain: raw (pg)" out_has "^osdmap e[0-9]* pg 1\.1f (1\.7) -> up "

	# pg dump_stuck: Ceph's "ok" on stderr whatever is stuck (seen on
	# ceph 16.2.15: `pg dump_stuck stale` prints "ok" and no table).
	expect 0 "pg dump_stuck, nothing stuck" pg dump_stuck stale
	check "pg dump_stuck: ok" err_is "ok"
	check "pg dump_stuck: no table" test ! -s "$T/out"
	expect 0 "pg dump_stuck -f json" -f json pg dump_stuck stale
	check "pg dump_stuck json" jis .@keys pg_ready,stuck_pg_stats
	check "pg dump_stuck json: none" jis stuck_pg_stats.# 0
	# Threshold 0: every PG not active is stuck inactive
	# (PGMap::get_stuck_stats(), cutoff = now - threshold).
	expect 0 "pg dump_stuck inactive 0" pg dump_stuck inactive 0
	check "pg dump_stuck: the brief table" out_has \
	    "^PG_STAT  STATE  *UP  *UP_PRIMARY  ACTING  *ACTING_PRIMARY$"
	check "pg dump_stuck: 12 stuck" test "$(grep -c '^[12]\.' "$T/out")" -eq 12
	expect 0 "pg dump_stuck inactive, under the threshold" \
	    -f json pg dump_stuck inactive
	check "pg dump_stuck: 60 s not passed" jis stuck_pg_stats.# 0

	# The PGs reported: active+clean, one undersized and degraded, one
	# inconsistent with scrub errors.
	check "pg reports" report active+clean 0 1.0 1.1 1.2 1.3 1.4 1.5 \
	    2.0 2.1 2.2 2.3
	check "an undersized PG" report active+undersized+degraded 0 1.6
	check "an inconsistent PG" report active+clean+inconsistent 3 1.7

	# Pools with objects and no application: Ceph 16's POOL_APP check
	# (PGMap::get_health_checks(): num_objects > 0, no application), its
	# tip the last detail line; gone once each has one.
	expect 0 "health detail: pools with objects" health detail
	check "POOL_APP_NOT_ENABLED: Ceph's summary" out_has \
	    "^\[WRN\] POOL_APP_NOT_ENABLED: 2 pool(s) do not have an application enabled$"
	check "POOL_APP_NOT_ENABLED: a line per pool" out_has \
	    "^    application not enabled on pool 'one'$"
	check "POOL_APP_NOT_ENABLED: Ceph's tip" out_has \
	    "^    use 'ceph osd pool application enable <pool-name> <app-name>', where <app-name> is 'cephfs', 'rbd', 'rgw', or freeform for custom applications\.$"
	expect 0 "osd pool application enable rbd rbd" \
	    osd pool application enable rbd rbd
	expect 0 "osd pool application enable one rgw" \
	    osd pool application enable one rgw
	run -f json health
	check "POOL_APP_NOT_ENABLED: cleared by the applications" \
	    jnokey checks POOL_APP_NOT_ENABLED
	expect 0 "pg dump_stuck undersized degraded 0" -f json \
	    pg dump_stuck undersized degraded 0
	check "pg dump_stuck undersized: 1.6" jis stuck_pg_stats.0.pgid 1.6
	check "pg dump_stuck undersized: one" jis stuck_pg_stats.# 1
	expect 0 "pg ls-by-pool STATE" -f json pg ls-by-pool rbd inconsistent
	check "pg ls-by-pool inconsistent" jis pg_stats.0.pgid 1.7

	# Health: PGMap::get_health_checks() and OSDMap::check_health().
	expect 0 "health detail" health detail
	check "PG_DAMAGED, an error" out_has \
	    "^\[ERR\] PG_DAMAGED: Possible data damage: 1 pg inconsistent$"
	check "PG_DAMAGED detail" out_has \
	    "^    pg 1\.7 is active+clean+inconsistent, acting \[[0-9],[0-9],[0-9]\]$"
	check "OSD_SCRUB_ERRORS" out_has "^\[ERR\] OSD_SCRUB_ERRORS: 3 scrub errors$"
	check "POOL_NO_REDUNDANCY" out_has \
	    "^\[WRN\] POOL_NO_REDUNDANCY: 1 pool(s) have no replicas configured$"
	check "POOL_NO_REDUNDANCY detail" out_has \
	    "^    pool 'one' has no replicas configured$"
	check "PG_DEGRADED: stuck undersized" out_has \
	    "^    pg 1\.6 is stuck undersized for [0-9.]*[smh], current state active+undersized+degraded, last acting \[[0-9],[0-9],[0-9]\]$"
	check "checks by code, as Ceph's map" eval \
	    '[ "$(sed -n "s/^\[[A-Z]*\] \([A-Z_]*\):.*/\1/p" "$T/out" | tr "\n" " ")" = "OSD_SCRUB_ERRORS PG_DAMAGED PG_DEGRADED POOL_NO_REDUNDANCY " ]'
	expect 0 "health -f json" -f json health
	check "health: HEALTH_ERR" jis status HEALTH_ERR
	check "health: no detail" jnokey checks.PG_DAMAGED detail
	check "health: muted false" jis checks.PG_DAMAGED.muted false
	check "health: mutes" jis mutes '[]'
	expect 0 "health detail -f json" -f json health detail
	check "health detail: detail" jis checks.OSD_SCRUB_ERRORS.detail '[]'

	# A stale PG (its primary down): "stuck stale for N, ..., last acting".
	primary=$("$MAPMON" -m "$ADDR" -f json pg map 1.0 | "$JG" up_primary)
	expect 0 "the primary of 1.0 goes down" osd down "$primary"
	expect 0 "health detail, stale" health detail
	check "PG_AVAILABILITY: stale" out_has \
	    "^\[WRN\] PG_AVAILABILITY: Reduced data availability: [0-9]* pgs\? stale$"
	check "stale: stuck for, last acting" out_has \
	    "^    pg 1\.0 is stuck stale for [0-9.]*[smh], current state stale+active+clean, last acting \[$primary,[0-9],[0-9]\]$"

	# health mute CODE [TTL] [--sticky] (HealthMonitor::prepare_command;
	# seen on ceph 16.2.15: nothing printed, exit 0; the check listed
	# "muted": true and out of the status; "(MUTED ...)" in detail).
	expect 0 "health mute" health mute OSD_DOWN 1h
	check "health mute prints nothing" test ! -s "$T/out" -a ! -s "$T/err"
	expect 0 "health mute sticky" health mute PG_DAMAGED --sticky
	expect 0 "health -f json, muted" -f json health
	check "muted: true" jis checks.OSD_DOWN.muted true
	# Listed by code, as Ceph's map of them.
	check "the mute: Ceph's keys" jkeys mutes.0 code ttl sticky summary count
	check "the mute: code" jis mutes.0.code OSD_DOWN
	check "the mute: its summary" jis mutes.0.summary "1 osds down"
	check "the sticky mute: Ceph's empty summary" jis mutes.1.summary ""
	check "the sticky mute: no ttl" jnokey mutes.1 ttl
	expect 0 "health, muted" health
	check "health: (muted: ...) last" out_has \
	    "; (muted: OSD_DOWN([0-9]*m) PG_DAMAGED)$"
	check "health: the muted checks' summaries left out" \
	    eval '! out_has "osds down"'
	expect 0 "health detail, muted" health detail
	check "health detail: (MUTED ttl ...)" out_has \
	    "^(MUTED ttl [0-9]*m) \[WRN\] OSD_DOWN: 1 osds down$"
	check "health detail: (MUTED, STICKY)" out_has \
	    "^(MUTED, STICKY) \[ERR\] PG_DAMAGED: "
	# The mutes survive a restart (committed).
	check "mapmond stops" stop_daemon
	check "mapmond restarts" start_daemon
	expect 0 "health after a restart" -f json health
	check "the mutes after a restart" jis mutes.# 2
	expect 0 "health unmute" health unmute OSD_DOWN
	expect 0 "health unmute, again" health unmute OSD_DOWN
	expect 0 "health unmute all" health unmute
	expect 0 "health -f json, unmuted" -f json health
	check "no mutes" jis mutes '[]'

	# The cluster log: "Health check failed|update|cleared" as
	# Monitor::log_health(); entries as LogEntry::dump().
	expect 0 "log last" log last 200
	check "Health check failed, an error" out_has \
	    " : cluster \[ERR\] Health check failed: Possible data damage: 1 pg inconsistent (PG_DAMAGED)$"
	check "a log line as Ceph's" out_has \
	    "^[0-9-]*T[0-9:.]*+0000 mon\.a (mon\.0) [0-9]* : cluster \[INF\] "
	expect 0 "log last -f json" -f json log last 3
	check "log last json: LogEntry::dump()'s keys" jkeys 0 name rank addrs \
	    stamp seq channel priority message
	check "log last json: channel" jis 0.channel cluster
	check "log last json: rank" jis 0.rank mon.0
	expect 0 "log last warn" -f json log last 50 warn
	check "log last warn: no [INF]" eval '! jget . | grep -q "\"\[INF\]\""'
	expect 0 "log last of another channel" -f json log last 5 info audit
	check "log last audit: none" jis "#" 0
	expect 0 "osd boot again" osd boot "$primary"
	check "report the PG again" report active+clean 0 1.0
	for i in $(seq 1 50); do
		"$MAPMON" -m "$ADDR" log last 200 >"$T/out" 2>&1
		out_has "Health check cleared: PG_AVAILABILITY" && break
		sleep 0.1
	done
	check "Health check cleared" out_has \
	    " : cluster \[INF\] Health check cleared: PG_AVAILABILITY (was: "

	# Every refusal of the table: exit status and message.
	while IFS='|' read -r want args pattern why; do
		[ -n "$want" ] || continue
		[ "$want" = ARGS ] && want=$ARGS_RC
		# shellcheck disable=SC2086
		expect "$want" "$args ($why)" $args
		check "$args: the message" err_has "$pattern"
	done <<<"$ERRNO_TABLE"

	# The CLI's help: closest signatures, COMMAND --help, help PREFIX.
	expect 22 "a mistyped command" pg dump_stuk
	check "the closest first" eval \
	    '[ "$(sed -n 2p "$T/err")" = "pg dump_stuck [inactive|unclean|stale|undersized|degraded...] [THRESHOLD]" ]'
	check "then Ceph's last line" eval \
	    '[ "$(tail -n 1 "$T/err")" = "Error EINVAL: invalid command" ]'
	expect 0 "COMMAND --help" pg dump_stuck --help
	check "--help: the usage" out_has \
	    "^usage: mapmon pg dump_stuck \[inactive|unclean|stale|undersized|degraded...\] \[THRESHOLD\]$"
	check "--help: the choices" out_has \
	    "^  STUCKOPS   any of inactive, unclean, stale, undersized, degraded (optional)$"
	check "--help: an integer" out_has "^  THRESHOLD  an integer (optional)$"
	expect 0 "help COMMAND" help osd reweight
	check "help: a range" out_has "^  WEIGHT  a number, 0 to 1$"
	expect 0 "help PREFIX" help pg ls
	check "help pg ls: an OSD id" eval 'run help pg ls-by-osd; out_has "^  OSD  *an OSD id (N or osd\.N), 0 to 65535$"'
	check "usage names match the messages" eval \
	    'run pg dump_stuck stale soon; err_has "THRESHOLD: .soon." && err_has "usage: mapmon pg dump_stuck .* \[THRESHOLD\]$"'

	# Completion: the arguments' choices, the pools' names.
	check "completion: stuck types" test "$(comp pg dump_stuck un)" = \
	    "unclean undersized"
	check "completion: a list goes on" test \
	    "$(comp pg dump_stuck stale s)" = "stale"
	check "completion: dump contents" test "$(comp pg dump pgs)" = \
	    "pgs pgs_brief"
	check "completion: pool names" test "$(comp pg ls-by-pool "")" = \
	    "rbd one"
	check "completion: pool names of an option" test \
	    "$(comp pg ls --pool o)" = "one"
	check "completion: a command's options" test "$(comp pg ls --)" = \
	    "--pool --help"
	check "completion: subcommands beside arguments" test \
	    "$(comp health "")" = "mute unmute detail"
	check "completion: the table is cached" \
	    eval 'ls "$T/cache/mapmon/" | grep -q "^args\."'
	check "mapmond stops" stop_daemon
	# With no monitor: the cached table, at once.
	start=$(date +%s%N)
	check "completion without a monitor: the cached table" test \
	    "$(comp pg dump_stuck in)" = "inactive"
	check "completion without a monitor: no stall" test \
	    $((($(date +%s%N) - start) / 1000000)) -lt 1500
	# Under ASan+UBSan (configure --enable-sanitizers), a report in the
	# daemon's log is a failure even where the daemon went on.
	grep -A 8 -m 3 -e "runtime error" -e "Sanitizer" "$T/log.$BACKEND" \
	    >"$T/out"
	check "the daemon's log holds no sanitizer report" test ! -s "$T/out"
}

for b in lmdb leveldb; do
	suite $b
done

# A monitor that never answers: completion gives up in half a second,
# then does not ask again for a while.
BACKEND=any
"$LISTEN" >"$T/port" &
LPID=$!
for i in $(seq 1 50); do
	[ -s "$T/port" ] && break
	sleep 0.1
done
ADDR=127.0.0.1:$(cat "$T/port")
start=$(date +%s%N)
check "completion of a silent monitor: nothing" test "$(comp osd "")" = ""
check "completion of a silent monitor: no 2 s stall" test \
    $((($(date +%s%N) - start) / 1000000)) -lt 1500
start=$(date +%s%N)
comp osd "" >/dev/null
check "completion of a silent monitor: not asked again" test \
    $((($(date +%s%N) - start) / 1000000)) -lt 400
kill "$LPID"
wait "$LPID" 2>/dev/null
LPID=

done_testing
