/*
 * cmd.c: the command table, the generic checks and the dispatcher.
 *
 * One row per command; the arguments' signature in the row is what the
 * strict check below enforces and what get_command_descriptions hands to
 * the CLI.  Handlers live in cmd_mon.c (the monitor's maps), cmd_admin.c
 * (the daemon's own state) and cmd_pgreport.c.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "common/suggest.h"
#include "daemon/cmd_priv.h"
#include "daemon/forward.h"
#include "daemon/quorum.h"
#include "daemon/sub.h"
#include "net/frame.h"
#include "net/server.h"

static cmd_exec_fn cmd_get_descriptions, cmd_forward, cmd_read_index;

static const char *const cmd_choice_detail[] = { "detail", NULL };
static const char *const sync_ops[] = { "start", "chunk", NULL };
static const char *const cmd_choice_flags[] = { "noout", "noup", "nodown",
	"noin", "pause", NULL };
static const char *const cmd_choice_poolvar[] = { "size", "min_size", "pg_num",
	"pgp_num", "crush_rule", NULL };
static const char *const cmd_choice_poolget[] = { "size", "min_size", "pg_num",
	"pgp_num", "crush_rule", "all", NULL };
static const char *const cmd_choice_pooltype[] = { "replicated", "erasure",
	NULL };
/* Ceph's words for every OSD, in place of the first id. */
static const char *const cmd_choice_anyosd[] = { "any", "all", "*", NULL };
static const char *const cmd_choice_treestates[] = { "up", "down", "in", "out",
	NULL };
static const char *const cmd_choice_dump[] = { "all", "summary", "sum", "pools",
	"osds", "pgs", "pgs_brief", NULL };
static const char *const cmd_choice_stuck[] = { "inactive", "unclean", "stale",
	"undersized", "degraded", NULL };
static const char *const cmd_choice_sub[] = { "osdmap", "pgmap", "log",
	"health", NULL };
static const char *const cmd_choice_level[] = { "debug", "info", "sec", "warn",
	"error", NULL };
static const char *const cmd_choice_channel[] = { "*", "cluster", "audit",
	"cephadm", NULL };

/* Argument shorthands for the table. */
#define A_STR(n, req) { .name = (n), .type = CMD_STRING, .required = (req) }
#define A_OPTSTR(n, opt) { .name = (n), .type = CMD_STRING, .option = (opt) }
#define A_INT(n, req, lo, hi) { .name = (n), .type = CMD_INT, \
	.required = (req), .bounded = 1, .min = (lo), .max = (hi) }
#define A_INT_ANY(n, req) { .name = (n), .type = CMD_INT, .required = (req) }
#define A_FLOAT(n, req, lo, hi) { .name = (n), .type = CMD_FLOAT, \
	.required = (req), .bounded = 1, .min = (lo), .max = (hi) }
#define A_CHOICE(n, req, c) { .name = (n), .type = CMD_CHOICE, \
	.required = (req), .choices = (c) }
#define A_INTS(n, lo, hi) { .name = (n), .type = CMD_INTS, .required = 1, \
	.bounded = 1, .min = (lo), .max = (hi) }
#define A_STRS(n, req) { .name = (n), .type = CMD_STRINGS, .required = (req) }
#define A_CHOICES(n, c)                                                        \
	{                                                                      \
		.name = (n), .type = CMD_STRINGS, .choices = (c)               \
	}
#define A_FLAG(n, opt) { .name = (n), .type = CMD_FLAG, .option = (opt) }
#define A_OSD(n, req)                                                          \
	{                                                                      \
		.name = (n), .type = CMD_OSD, .required = (req), .bounded = 1, \
		.min = 0, .max = OSD_MAX                                       \
	}
#define A_OSDS(n)                                                              \
	{                                                                      \
		.name = (n), .type = CMD_OSDS, .required = 1, .bounded = 1,    \
		.min = 0, .max = OSD_MAX, .choices = cmd_choice_anyosd         \
	}
#define A_VALUE(n, req)                                                        \
	{                                                                      \
		.name = (n), .type = CMD_VALUE, .required = (req)              \
	}
#define A_EPOCH                                                                \
	{                                                                      \
		.name = "epoch", .type = CMD_INT, .bounded = 1, .min = 0,      \
		.max = 4294967295.0                                            \
	}
#define A_COUNT(n, req) A_INT(n, req, 0, 2147483647)
#define A_JSON(n) { .name = (n), .type = CMD_JSON, .required = 1 }

#define OSD_MAX (65535)

static const struct cmd_entry cmd_table[] = {
	{ "get_command_descriptions", { { 0 } },
	    CMD_READ | CMD_HIDDEN | CMD_OPEN, cmd_get_descriptions,
	    "list every command's signature", "get_command_descriptions" },
	{ "status", { { 0 } }, CMD_READ, cmd_mon_status, "show cluster status",
	    "status" },
	{ "health", { A_CHOICE("detail", 0, cmd_choice_detail) }, CMD_READ,
	    cmd_mon_health, "show cluster health", "health [detail]" },
	{ "health mute",
	    { A_STR("code", 1), A_STR("ttl", 0), A_FLAG("sticky", "--sticky") },
	    CMD_WRITE, cmd_mon_health_mute,
	    "mute a health check (for TTL, as 1h; past its clearing with "
	    "--sticky)",
	    "health mute CODE [TTL] [--sticky]" },
	{ "health unmute", { A_STR("code", 0) }, CMD_WRITE,
	    cmd_mon_health_unmute, "unmute a health check (every one: no CODE)",
	    "health unmute [CODE]" },
	{ "version", { { 0 } }, CMD_READ, cmd_mon_version,
	    "show the monitor's version", "version" },
	{ "mon stat", { { 0 } }, CMD_READ, cmd_mon_stat,
	    "summarize the monitor map", "mon stat" },
	{ "mon dump", { { 0 } }, CMD_READ, cmd_mon_dump, "show the monitor map",
	    "mon dump" },
	{ "quorum_status", { { 0 } }, CMD_READ, cmd_quorum_status,
	    "report status of monitor quorum", "quorum_status" },
	{ "mon add", { A_STR("name", 1), A_STR("addr", 1) }, CMD_WRITE,
	    cmd_mon_add, "add new monitor named <name> at <addr>",
	    "mon add NAME ADDR" },
	{ "mon rm", { A_STR("name", 1) }, CMD_WRITE, cmd_mon_rm,
	    "remove monitor named <name>", "mon rm NAME" },
	{ "mon remove", { A_STR("name", 1) }, CMD_WRITE | CMD_HIDDEN,
	    cmd_mon_rm, "remove monitor named <name>", "mon remove NAME" },
	{ "mon sync",
	    { A_CHOICE("op", 1, sync_ops), A_COUNT("from", 0),
		A_INT_ANY("cookie", 0), A_STR("after", 0) },
	    CMD_ADMIN | CMD_HIDDEN, cmd_mon_sync,
	    "a copy of this monitor's store, for a monitor that lags or "
	    "joins (mapmon-protocol(7))",
	    "mon sync start|chunk" },

	{ "osd create", { A_INT("id", 0, 0, OSD_MAX) }, CMD_WRITE,
	    cmd_mon_osd_create, "create an OSD (the lowest free id by default)",
	    "osd create [ID]" },
	{ "osd boot", { A_OSD("id", 1), A_STR("addr", 0), A_STRS("args", 0) },
	    CMD_WRITE, cmd_mon_osd_boot,
	    "mark an OSD booted (up), at ADDR or where it was, placed at "
	    "its crush location TYPE=NAME... (a new one: at its own host)",
	    "osd boot ID [ADDR] [TYPE=NAME...]" },
	{ "osd down", { A_OSDS("ids") }, CMD_WRITE, cmd_mon_osd_down,
	    "mark OSDs down, or every OSD with any|all",
	    "osd down ID...|any|all" },
	{ "osd in", { A_OSDS("ids") }, CMD_WRITE, cmd_mon_osd_in,
	    "mark OSDs in, or every OSD that is out with any|all",
	    "osd in ID...|any|all" },
	{ "osd out", { A_OSDS("ids") }, CMD_WRITE, cmd_mon_osd_out,
	    "mark OSDs out, or every OSD with any|all",
	    "osd out ID...|any|all" },
	{ "osd reweight", { A_OSD("id", 1), A_FLOAT("weight", 1, 0, 1) },
	    CMD_WRITE, cmd_mon_osd_reweight, "set an OSD's reweight (0..1)",
	    "osd reweight ID WEIGHT" },
	{ "osd rm", { A_OSDS("ids") }, CMD_WRITE, cmd_mon_osd_rm,
	    "remove OSDs (they must be down), or every OSD with any|all",
	    "osd rm ID...|any|all" },
	{ "osd ls", { A_EPOCH }, CMD_READ, cmd_mon_osd_ls,
	    "list the OSD ids (of the map of EPOCH)", "osd ls [EPOCH]" },
	{ "osd find", { A_OSD("id", 1) }, CMD_READ, cmd_mon_osd_find,
	    "show where an OSD is", "osd find ID" },
	{ "osd tree",
	    { A_EPOCH,
		{ .name = "states",
		    .type = CMD_STRINGS,
		    .choices = cmd_choice_treestates } },
	    CMD_READ, cmd_mon_osd_tree,
	    "show the OSD tree (of the map of EPOCH; the OSDs in any of "
	    "STATES)",
	    "osd tree [EPOCH] [up|down|in|out...]" },
	{ "osd dump", { A_EPOCH }, CMD_READ, cmd_mon_osd_dump,
	    "show the OSD map (of EPOCH)", "osd dump [EPOCH]" },
	{ "osd getmap", { A_EPOCH }, CMD_READ, cmd_mon_osd_getmap,
	    "get the OSD map (of EPOCH) as JSON", "osd getmap [EPOCH]" },
	{ "osd stat", { { 0 } }, CMD_READ, cmd_mon_osd_stat,
	    "summarize the OSD map", "osd stat" },
	{ "osd pause", { { 0 } }, CMD_WRITE, cmd_mon_osd_pause,
	    "set the pause flag (pauserd,pausewr)", "osd pause" },
	{ "osd unpause", { { 0 } }, CMD_WRITE, cmd_mon_osd_unpause,
	    "clear the pause flag (pauserd,pausewr)", "osd unpause" },
	{ "osd set", { A_CHOICE("key", 1, cmd_choice_flags) }, CMD_WRITE,
	    cmd_mon_osd_set, "set a cluster flag",
	    "osd set noout|noup|nodown|noin|pause" },
	{ "osd unset", { A_CHOICE("key", 1, cmd_choice_flags) }, CMD_WRITE,
	    cmd_mon_osd_unset, "clear a cluster flag",
	    "osd unset noout|noup|nodown|noin|pause" },
	{ "df", { { 0 } }, CMD_READ, cmd_mon_df,
	    "show the cluster's and the pools' usage", "df" },
	{ "osd df", { { 0 } }, CMD_READ, cmd_mon_osd_df,
	    "show every OSD's usage", "osd df" },
	{ "osd set-full-ratio", { A_FLOAT("ratio", 1, 0, 1) }, CMD_WRITE,
	    cmd_mon_osd_set_full_ratio,
	    "set the usage ratio past which an OSD is full",
	    "osd set-full-ratio RATIO" },
	{ "osd set-backfillfull-ratio", { A_FLOAT("ratio", 1, 0, 1) },
	    CMD_WRITE, cmd_mon_osd_set_backfillfull_ratio,
	    "set the usage ratio past which an OSD is backfillfull",
	    "osd set-backfillfull-ratio RATIO" },
	{ "osd set-nearfull-ratio", { A_FLOAT("ratio", 1, 0, 1) }, CMD_WRITE,
	    cmd_mon_osd_set_nearfull_ratio,
	    "set the usage ratio past which an OSD is nearfull",
	    "osd set-nearfull-ratio RATIO" },

	{ "osd crush add-bucket",
	    { A_STR("name", 1), A_STR("type", 1), A_STRS("args", 0) },
	    CMD_WRITE, cmd_crush_add_bucket,
	    "add a bucket of TYPE to the hierarchy (at a location)",
	    "osd crush add-bucket NAME TYPE [TYPE=NAME...]" },
	{ "osd crush move", { A_STR("name", 1), A_STRS("args", 1) }, CMD_WRITE,
	    cmd_crush_move, "move a bucket or an OSD to a location",
	    "osd crush move NAME TYPE=NAME..." },
	{ "osd crush rm", { A_STR("name", 1) }, CMD_WRITE, cmd_crush_remove,
	    "remove an OSD or an empty bucket from the hierarchy",
	    "osd crush rm NAME" },
	{ "osd crush remove", { A_STR("name", 1) }, CMD_WRITE, cmd_crush_remove,
	    "remove an OSD or an empty bucket from the hierarchy",
	    "osd crush remove NAME" },
	{ "osd crush unlink", { A_STR("name", 1) }, CMD_WRITE, cmd_crush_remove,
	    "unlink an OSD or an empty bucket from the hierarchy",
	    "osd crush unlink NAME" },
	{ "osd crush add",
	    { A_STR("id", 1), A_FLOAT("weight", 1, 0, CRUSH_WEIGHT_MAX),
		A_STRS("args", 1) },
	    CMD_WRITE, cmd_crush_add,
	    "add or move an OSD to a location with a crush weight",
	    "osd crush add osd.N WEIGHT TYPE=NAME..." },
	{ "osd crush set",
	    { A_STR("id", 1), A_FLOAT("weight", 1, 0, CRUSH_WEIGHT_MAX),
		A_STRS("args", 1) },
	    CMD_WRITE, cmd_crush_set,
	    "set an OSD's location and crush weight (it is in the hierarchy)",
	    "osd crush set osd.N WEIGHT TYPE=NAME..." },
	{ "osd crush create-or-move",
	    { A_STR("id", 1), A_FLOAT("weight", 1, 0, CRUSH_WEIGHT_MAX),
		A_STRS("args", 1) },
	    CMD_WRITE, cmd_crush_create_or_move,
	    "add an OSD with a crush weight, or move it keeping its weight",
	    "osd crush create-or-move osd.N WEIGHT TYPE=NAME..." },
	{ "osd crush reweight",
	    { A_STR("name", 1), A_FLOAT("weight", 1, 0, CRUSH_WEIGHT_MAX) },
	    CMD_WRITE, cmd_crush_reweight, "set an OSD's crush weight",
	    "osd crush reweight osd.N WEIGHT" },
	{ "osd crush set-device-class", { A_STR("class", 1), A_STRS("ids", 1) },
	    CMD_WRITE, cmd_crush_set_class, "set the device class of OSDs",
	    "osd crush set-device-class CLASS osd.N..." },
	{ "osd crush rm-device-class", { A_STRS("ids", 1) }, CMD_WRITE,
	    cmd_crush_rm_class, "remove the device class of OSDs",
	    "osd crush rm-device-class osd.N..." },
	{ "osd crush class ls", { { 0 } }, CMD_READ, cmd_crush_class_ls,
	    "list the device classes", "osd crush class ls" },
	{ "osd crush tree", { { 0 } }, CMD_READ, cmd_crush_tree,
	    "show the placement hierarchy", "osd crush tree" },
	{ "osd crush dump", { { 0 } }, CMD_READ, cmd_crush_dump,
	    "show the placement hierarchy and its rules", "osd crush dump" },
	{ "osd crush rule create-replicated",
	    { A_STR("name", 1), A_STR("root", 1), A_STR("type", 1),
		A_STR("class", 0) },
	    CMD_WRITE, cmd_crush_rule_create,
	    "create a replicated rule: replicas under distinct buckets of "
	    "TYPE below ROOT (only OSDs of CLASS)",
	    "osd crush rule create-replicated NAME ROOT TYPE [CLASS]" },
	{ "osd crush rule ls", { { 0 } }, CMD_READ, cmd_crush_rule_ls,
	    "list the rules", "osd crush rule ls" },
	{ "osd crush rule dump", { A_STR("name", 0) }, CMD_READ,
	    cmd_crush_rule_dump, "show a rule, or every rule",
	    "osd crush rule dump [NAME]" },
	{ "osd crush rule rm", { A_STR("name", 1) }, CMD_WRITE,
	    cmd_crush_rule_rm, "remove a rule no pool uses",
	    "osd crush rule rm NAME" },
	{ "osd map", { A_STR("pool", 1), A_STR("object", 1) }, CMD_READ,
	    cmd_crush_osd_map, "show the PG and the OSDs of an object",
	    "osd map POOL OBJECT" },

	{ "osd pool create",
	    { A_STR("pool", 1), A_COUNT("pg_num", 0), A_COUNT("pgp_num", 0),
		A_CHOICE("pool_type", 0, cmd_choice_pooltype), A_STR("rule", 0),
		{ .name = "size",
		    .type = CMD_INT,
		    .bounded = 1,
		    .min = 0,
		    .max = 2147483647,
		    .option = "--size" } },
	    CMD_WRITE, cmd_mon_pool_create,
	    "create a pool (PG_NUM [mon] osd_pool_default_pg_num, PGP_NUM "
	    "PG_NUM and N osd_pool_default_size when not given)",
	    "osd pool create NAME [PG_NUM [PGP_NUM]] [replicated] [RULE] "
	    "[--size N]" },
	{ "osd pool ls", { A_CHOICE("detail", 0, cmd_choice_detail) }, CMD_READ,
	    cmd_mon_pool_ls, "list pools", "osd pool ls [detail]" },
	{ "osd pool rename", { A_STR("srcpool", 1), A_STR("destpool", 1) },
	    CMD_WRITE, cmd_mon_pool_rename, "rename a pool",
	    "osd pool rename OLD NEW" },
	{ "osd pool delete",
	    { A_STR("pool", 1), A_STR("pool2", 0),
		A_FLAG("yes_i_really_really_mean_it",
		    "--yes-i-really-really-mean-it") },
	    CMD_ADMIN | CMD_LEADER, cmd_mon_pool_delete,
	    "delete a pool and its PGs (once [mon] mon_allow_pool_delete)",
	    "osd pool delete NAME NAME --yes-i-really-really-mean-it" },
	{ "osd pool rm",
	    { A_STR("pool", 1), A_STR("pool2", 0),
		A_FLAG("yes_i_really_really_mean_it",
		    "--yes-i-really-really-mean-it") },
	    CMD_ADMIN | CMD_LEADER, cmd_mon_pool_delete,
	    "remove a pool and its PGs (once [mon] mon_allow_pool_delete)",
	    "osd pool rm NAME NAME --yes-i-really-really-mean-it" },
	{ "osd pool set",
	    { A_STR("pool", 1), A_CHOICE("var", 1, cmd_choice_poolvar),
		A_VALUE("val", 1),
		A_FLAG("yes_i_really_mean_it", "--yes-i-really-mean-it") },
	    CMD_WRITE, cmd_mon_pool_set, "set a pool value",
	    "osd pool set NAME size|min_size|pg_num|pgp_num|crush_rule VALUE "
	    "[--yes-i-really-mean-it]" },
	{ "osd pool get",
	    { A_STR("pool", 1), A_CHOICE("var", 1, cmd_choice_poolget) },
	    CMD_READ, cmd_mon_pool_get, "get a pool value, or all",
	    "osd pool get NAME size|min_size|pg_num|pgp_num|crush_rule|all" },

	{ "osd pool application enable",
	    { A_STR("pool", 1), A_STR("app", 1),
		A_FLAG("yes_i_really_mean_it", "--yes-i-really-mean-it") },
	    CMD_WRITE, cmd_mon_pool_app_enable,
	    "enable use of an application APP (cephfs, rbd, rgw) on a pool",
	    "osd pool application enable POOL APP [--yes-i-really-mean-it]" },
	{ "osd pool application disable",
	    { A_STR("pool", 1), A_STR("app", 1),
		A_FLAG("yes_i_really_mean_it", "--yes-i-really-mean-it") },
	    CMD_WRITE, cmd_mon_pool_app_disable,
	    "disable use of an application APP on a pool",
	    "osd pool application disable POOL APP --yes-i-really-mean-it" },
	{ "osd pool application get",
	    { A_STR("pool", 0), A_STR("app", 0), A_STR("key", 0) }, CMD_READ,
	    cmd_mon_pool_app_get,
	    "get the applications of every pool, of a pool, or an "
	    "application's key",
	    "osd pool application get [POOL [APP [KEY]]]" },

	{ "pg stat", { { 0 } }, CMD_READ, cmd_mon_pg_stat,
	    "summarize the PG map", "pg stat" },
	{ "pg dump", { A_CHOICES("dumpcontents", cmd_choice_dump) }, CMD_READ,
	    cmd_mon_pg_dump, "show the PG map",
	    "pg dump [all|summary|sum|pools|osds|pgs|pgs_brief...]" },
	{ "pg ls",
	    { A_INT("pool", 0, 0, 4294967295.0), A_STRS("states", 0),
		A_OPTSTR("poolstr", "--pool") },
	    CMD_READ, cmd_mon_pg_ls, "list PGs, by pool (an id) and state",
	    "pg ls [POOL] [STATES...] [--pool POOLSTR]" },
	{ "pg ls-by-pool", { A_STR("poolstr", 1), A_STRS("states", 0) },
	    CMD_READ, cmd_mon_pg_ls_by_pool, "list the PGs of a pool, by state",
	    "pg ls-by-pool POOLSTR [STATES...]" },
	{ "pg ls-by-primary",
	    { A_OSD("osd", 1), A_INT("pool", 0, 0, 4294967295.0),
		A_STRS("states", 0) },
	    CMD_READ, cmd_mon_pg_ls_by_primary,
	    "list the PGs an OSD is the primary of, by pool and state",
	    "pg ls-by-primary OSD [POOL] [STATES...]" },
	{ "pg ls-by-osd",
	    { A_OSD("osd", 1), A_INT("pool", 0, 0, 4294967295.0),
		A_STRS("states", 0) },
	    CMD_READ, cmd_mon_pg_ls_by_osd,
	    "list the PGs whose acting set holds an OSD, by pool and state",
	    "pg ls-by-osd OSD [POOL] [STATES...]" },
	{ "pg query", { A_STR("pgid", 1) }, CMD_READ, cmd_mon_pg_query,
	    "show one PG's stats", "pg query PGID" },
	{ "pg map", { A_STR("pgid", 1) }, CMD_READ, cmd_mon_pg_map,
	    "show a PG's mapping", "pg map PGID" },
	{ "pg dump_stuck",
	    { A_CHOICES("stuckops", cmd_choice_stuck),
		A_INT_ANY("threshold", 0) },
	    CMD_READ, cmd_mon_pg_dump_stuck,
	    "show the PGs stuck in a state for THRESHOLD seconds or more",
	    "pg dump_stuck [inactive|unclean|stale|undersized|degraded...] "
	    "[THRESHOLD]" },
	{ "osd beacon",
	    { A_INT("id", 1, 0, OSD_MAX),
		{ .name = "statfs", .type = CMD_JSON } },
	    CMD_WRITE | CMD_HIDDEN, cmd_mon_osd_beacon,
	    "an OSD's beacon: alive, and its capacity",
	    "osd beacon ID [STATFS]" },
	{ "osd failure",
	    { A_INT("target", 1, 0, OSD_MAX), A_INT("reporter", 1, 0, OSD_MAX),
		A_FLOAT("failed_for", 1, 0, 1e9),
		A_FLAG("cancel", "--cancel") },
	    CMD_WRITE | CMD_HIDDEN, cmd_mon_osd_failure,
	    "an OSD reports a peer it cannot reach (or reaches again)",
	    "osd failure TARGET REPORTER FAILED_FOR [--cancel]" },
	{ "osd mark-me-down", { A_INT("id", 1, 0, OSD_MAX) },
	    CMD_WRITE | CMD_HIDDEN, cmd_mon_osd_mark_me_down,
	    "an OSD stopping cleanly marks itself down",
	    "osd mark-me-down ID" },
	{ "pg report", { A_INT("osd", 1, 0, OSD_MAX), A_JSON("pgs") },
	    CMD_WRITE | CMD_HIDDEN, cmd_pgreport_json,
	    "report PG stats (an OSD's)", "pg report OSD PGS" },

	{ "log", { A_STRS("logtext", 1) }, CMD_WRITE, cmd_mon_log,
	    "write a line into the cluster log", "log TEXT..." },
	{ "fsid", { { 0 } }, CMD_READ, cmd_mon_fsid, "show the cluster's fsid",
	    "fsid" },
	{ "report", { A_STRS("tags", 0) }, CMD_READ, cmd_mon_report,
	    "report the whole state of the cluster, tagged with TAGS",
	    "report [TAG...]" },
	{ "log last",
	    { A_INT("num", 0, 1, 10000), A_CHOICE("level", 0, cmd_choice_level),
		A_CHOICE("channel", 0, cmd_choice_channel) },
	    CMD_READ, cmd_mon_log_last,
	    "show the last cluster log entries, of LEVEL (info) or worse",
	    "log last [NUM] [debug|info|sec|warn|error] "
	    "[*|cluster|audit|cephadm]" },
	{ "log dump", { { 0 } }, CMD_READ, cmd_admin_log_dump,
	    "dump the recent in-memory debug log", "log dump" },
	{ "config show", { { 0 } }, CMD_READ, cmd_admin_config_show,
	    "show the running config", "config show" },
	/*
	 * Ceph's forms (WHO NAME VALUE: ConfigMonitor) and mapmon's own
	 * (SECTION.KEY VALUE, sent as "key"); cmd_admin.c tells them apart.
	 */
	{ "config get",
	    { A_STR("who", 0), A_STR("name", 0), A_OPTSTR("key", "--key") },
	    CMD_READ, cmd_admin_config_get,
	    "get a config value (WHO: global, mon or mon.NAME), or WHO's "
	    "values set with config set",
	    "config get WHO [NAME] | config get SECTION.KEY" },
	{ "config set",
	    { A_STR("who", 0), A_STR("name", 0), A_STR("value", 0),
		A_OPTSTR("key", "--key") },
	    CMD_ADMIN, cmd_admin_config_set,
	    "set a runtime config value (WHO: global, mon or mon.NAME)",
	    "config set WHO NAME VALUE | config set SECTION.KEY VALUE" },
	{ "config rm", { A_STR("who", 1), A_STR("name", 1) }, CMD_ADMIN,
	    cmd_admin_config_rm,
	    "undo config set: the value of the file, or the default",
	    "config rm WHO NAME" },
	{ "config dump", { { 0 } }, CMD_READ, cmd_admin_config_dump,
	    "show the values set with config set", "config dump" },
	{ "perf dump", { { 0 } }, CMD_READ, cmd_admin_perf_dump,
	    "show performance counters", "perf dump" },
	{ "store stat", { { 0 } }, CMD_READ, cmd_admin_store_stat,
	    "show store statistics", "store stat" },
	{ "store compact", { { 0 } }, CMD_ADMIN, cmd_admin_store_compact,
	    "compact the store", "store compact" },

	{ "auth add", { A_STR("entity", 1), A_STRS("caps", 0) },
	    CMD_ADMIN | CMD_LEADER, cmd_auth_add,
	    "add an entity with a random key and the caps given",
	    "auth add ENTITY [SERVICE CAPS]..." },
	{ "auth get-or-create", { A_STR("entity", 1), A_STRS("caps", 0) },
	    CMD_ADMIN | CMD_LEADER, cmd_auth_get_or_create,
	    "an entity's keyring, made with the caps given if it is new",
	    "auth get-or-create ENTITY [SERVICE CAPS]..." },
	{ "auth get", { A_STR("entity", 1) }, CMD_ADMIN, cmd_auth_get,
	    "an entity's keyring", "auth get ENTITY" },
	{ "auth get-key", { A_STR("entity", 1) }, CMD_ADMIN, cmd_auth_get_key,
	    "an entity's key", "auth get-key ENTITY" },
	{ "auth ls", { { 0 } }, CMD_ADMIN, cmd_auth_ls,
	    "list the entities, their keys and caps", "auth ls" },
	{ "auth caps", { A_STR("entity", 1), A_STRS("caps", 1) },
	    CMD_ADMIN | CMD_LEADER, cmd_auth_caps, "replace an entity's caps",
	    "auth caps ENTITY SERVICE CAPS [SERVICE CAPS]..." },
	{ "auth rm", { A_STR("entity", 1) }, CMD_ADMIN | CMD_LEADER,
	    cmd_auth_rm, "remove an entity; its connections are closed",
	    "auth rm ENTITY" },
	{ "auth rotate", { A_STR("entity", 1) }, CMD_ADMIN | CMD_LEADER,
	    cmd_auth_rotate,
	    "a new random key; the old one and its connections stop",
	    "auth rotate ENTITY" },
	{ "subscribe",
	    { A_CHOICE("what", 1, cmd_choice_sub),
		A_INT("start", 0, 0, 9007199254740992.0) },
	    CMD_READ | CMD_HIDDEN, cmd_mon_subscribe,
	    "subscribe to map updates",
	    "subscribe osdmap|pgmap|log|health [START]" },
	{ "mon forward", { A_STR("entity", 0), A_JSON("cmd") },
	    CMD_ADMIN | CMD_HIDDEN, cmd_forward,
	    "a follower's forward of a client's change (mon. only)",
	    "mon forward CMD [ENTITY]" },
	{ "mon read_index", { { 0 } }, CMD_READ | CMD_HIDDEN, cmd_read_index,
	    "the leader's read index, for a linearizable read",
	    "mon read_index" },
};

static struct cmd_count cmd_counts[nitems(cmd_table)];

/*
 * The OSDs' own commands, which allow profile osd may run for its own id
 * only, and the int argument that names the OSD (mapmond(8),
 * AUTHENTICATION).
 */
static const struct {
	const char *prefix;
	const char *self;
} cmd_self[] = {
	{ "osd boot", "id" },
	{ "osd beacon", "id" },
	{ "osd failure", "reporter" },
	{ "osd mark-me-down", "id" },
	{ "pg report", "osd" },
};

/* The argument naming the OSD itself of e, or NULL. */
static const char *
cmd_self_arg(const struct cmd_entry *e)
{
	size_t i;

	for (i = 0; i < nitems(cmd_self); i++)
		if (strcmp(cmd_self[i].prefix, e->prefix) == 0)
			return cmd_self[i].self;
	return NULL;
}

/*
 * Binary requests (FRAME_BINARY_REQUEST), one row per opcode of
 * net/frame.h: the JSON command it is the binary form of, whose flags and
 * counters it shares, its handler, which checks the body, and where in
 * the body the OSD's own id is (a big-endian u32, for the cap check of an
 * OSD's own command; 0: none).
 */
struct cmd_binary_entry {
	uint16_t opcode;
	const char *prefix;
	cmd_binary_fn *exec;
	size_t self_at;
};

static const struct cmd_binary_entry cmd_binary_table[] = {
	{ FRAME_BINARY_PG_REPORT, "pg report", cmd_pgreport_binary, 2 },
	/* Taken apart by cmd_binary() itself. */
	{ FRAME_BINARY_FORWARD, "mon forward", NULL, 0 },
};

static const char *const cmd_type_names[] = {
	[CMD_STRING] = "string",
	[CMD_INT] = "int",
	[CMD_FLOAT] = "float",
	[CMD_CHOICE] = "choice",
	[CMD_STRINGS] = "strings",
	[CMD_INTS] = "ints",
	[CMD_FLAG] = "flag",
	[CMD_JSON] = "json",
	[CMD_OSD] = "osd",
	[CMD_OSDS] = "osds",
	[CMD_VALUE] = "value",
};

/*
 * The monitor applied a commit (leader or follower alike): the sessions
 * whose key it ended are closed first, then the subscribers are pushed
 * what it changed (not those sessions: their rights ended with it).
 */
static void
cmd_notify(void *arg, const struct mon_commit_info *info)
{
	struct cmd_ctx *ctx = arg;

	cmd_auth_commit(ctx, info);
	sub_commit(ctx->sub, info);
}

struct cmd_ctx *
cmd_new(struct event_base *base, struct mon *m, struct conf *conf,
    cmd_apply_cb *apply, void *apply_arg)
{
	struct cmd_ctx *ctx = xcalloc(1, sizeof *ctx);

	ctx->base = base;
	ctx->mon = m;
	ctx->conf = conf;
	ctx->apply = apply;
	ctx->apply_arg = apply_arg;
	ctx->sub = sub_new(base, m);
	mon_set_notify(m, cmd_notify, ctx);
	ctx->fwd = forward_new(base, m);
	cmd_admin_init(ctx);
	return ctx;
}

const struct forward *
cmd_forwarder(const struct cmd_ctx *ctx)
{
	return ctx->fwd;
}

/* A proposal was sealed: the PG reports held back are read again. */
static void
cmd_room(void *arg)
{
	struct cmd_ctx *ctx = arg;

	if (ctx->server != NULL)
		server_hold_binary(ctx->server, 0);
}

void
cmd_set_server(struct cmd_ctx *ctx, struct server *srv)
{
	ctx->server = srv;
	sub_set_server(ctx->sub, srv);
	mon_set_room(ctx->mon, srv != NULL ? cmd_room : NULL, ctx);
}

int
cmd_stop(struct cmd_ctx *ctx, int64_t deadline)
{
	if (ctx == NULL || ctx->stopped)
		return 0;
	/* The listings being written read the monitor, which goes next. */
	if (ctx->server != NULL)
		server_end_streams(ctx->server, -ESHUTDOWN,
		    "the monitor is stopping");
	if (cmd_admin_free(ctx, deadline) == -1)
		return -1;
	mon_set_room(ctx->mon, NULL, NULL);
	cmd_sync_free();
	mon_set_notify(ctx->mon, NULL, NULL);
	sub_free(ctx->sub);
	ctx->sub = NULL;
	forward_free(ctx->fwd);
	ctx->fwd = NULL;
	ctx->stopped = 1;
	return 0;
}

void
cmd_free(struct cmd_ctx *ctx)
{
	if (ctx == NULL)
		return;
	cmd_stop(ctx, INT64_MAX);
	free(ctx);
}

const char *
cmd_entry_prefix(const struct cmd_entry *e)
{
	return e->prefix;
}

const struct cmd_entry *
cmd_find_entry(const char *prefix)
{
	size_t i;

	for (i = 0; i < nitems(cmd_table); i++)
		if (strcmp(cmd_table[i].prefix, prefix) == 0)
			return &cmd_table[i];
	return NULL;
}

/* The closest visible prefix to a word, if close enough to suggest. */
static const char *
cmd_suggest(const char *word)
{
	struct suggest sg;
	size_t i;

	suggest_init(&sg, word);
	for (i = 0; i < nitems(cmd_table); i++) {
		if (!(cmd_table[i].flags & CMD_HIDDEN))
			suggest_offer(&sg, cmd_table[i].prefix);
	}
	return sg.best;
}

/* Append s to the string in buf, cut to fit. */
static void
cmd_append(char *buf, const char *s, size_t len)
{
	size_t n = strlen(buf);

	if (n + 1 < len)
		snprintf(buf + n, len - n, "%s", s);
}

static const char *
cmd_json_type(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number with a fraction";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* An int argument or list item against the bounds. */
static int
cmd_check_int(const struct cmd_entry *e, const struct cmd_arg *a,
    const json_t *v, const char *what, char **status)
{
	json_int_t n;

	if (!json_is_integer(v)) {
		xasprintf(status, "%s: %s must be an integer, not %s",
		    e->prefix, what, cmd_json_type(v));
		return -1;
	}
	n = json_integer_value(v);
	/*
	 * Compared as long double, which holds every 64-bit integer: as a
	 * double, 2^53 + 1 rounds to 2^53 and passes a bound of 2^53.
	 */
	if (a->bounded && ((long double)n < a->min ||
	    (long double)n > a->max)) {
		xasprintf(status, "%s: %s must be between %.0f and %.0f, not "
		    "%lld", e->prefix, what, a->min, a->max, (long long)n);
		return -1;
	}
	return 0;
}

/* Is s one of choices (NULL-terminated)? */
static int
cmd_is_choice(const char *const *choices, const char *s)
{
	size_t i;

	for (i = 0; choices != NULL && choices[i] != NULL; i++)
		if (strcmp(s, choices[i]) == 0)
			return 1;
	return 0;
}

/* choices as "a, b, c" into buf. */
static void
cmd_choice_list(const char *const *choices, char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; choices[i] != NULL; i++) {
		if (i > 0)
			cmd_append(buf, ", ", len);
		cmd_append(buf, choices[i], len);
	}
}

/*
 * An OSD id as Ceph's clients send one: an integer, or a string "3" or
 * "osd.3" (CephOsdName).  0 with *id, or -1 when v is neither.
 */
static int
cmd_osd_id(const json_t *v, json_int_t *id)
{
	const char *s, *p;
	char *end;
	long long n;

	if (json_is_integer(v)) {
		*id = json_integer_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return -1;
	s = json_string_value(v);
	p = strncmp(s, "osd.", 4) == 0 ? s + 4 : s;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	n = strtoll(p, &end, 10);
	if (*end != '\0' || errno == ERANGE)
		return -1;
	*id = n;
	return 0;
}

/* A string (checked) against the argument's choices. */
static int
cmd_check_choice(const struct cmd_entry *e, const struct cmd_arg *a,
    const json_t *v, const char *what, char **status)
{
	const char *s = json_string_value(v);
	char list[256];

	if (cmd_is_choice(a->choices, s))
		return 0;
	cmd_choice_list(a->choices, list, sizeof list);
	xasprintf(status, "%s: %s must be one of %s, not '%.64s'", e->prefix,
	    what, list, s);
	return -1;
}

/* One OSD id of argument a, described as what. */
static int
cmd_check_osd(const struct cmd_entry *e, const struct cmd_arg *a,
    const json_t *v, const char *what, char **status)
{
	json_int_t id;

	if (cmd_osd_id(v, &id) == -1) {
		if (json_is_string(v))
			xasprintf(status,
			    "%s: %s must be an osd id (N or "
			    "osd.N), not '%.64s'",
			    e->prefix, what, json_string_value(v));
		else
			xasprintf(status,
			    "%s: %s must be an osd id (N or "
			    "osd.N), not %s",
			    e->prefix, what, cmd_json_type(v));
		return -1;
	}
	if (a->bounded &&
	    ((long double)id < a->min || (long double)id > a->max)) {
		xasprintf(status,
		    "%s: %s must be between %.0f and %.0f, not "
		    "%lld",
		    e->prefix, what, a->min, a->max, (long long)id);
		return -1;
	}
	return 0;
}

static int
cmd_check_arg(const struct cmd_entry *e, const struct cmd_arg *a,
    json_t *v, char **status)
{
	char what[96];
	json_t *item;
	size_t j;
	double d;

	snprintf(what, sizeof what, "argument '%s'", a->name);
	switch (a->type) {
	case CMD_STRING:
		if (!json_is_string(v))
			goto wrong;
		return 0;
	case CMD_INT:
		return cmd_check_int(e, a, v, what, status);
	case CMD_FLOAT:
		if (!json_is_number(v))
			goto wrong;
		d = json_number_value(v);
		if (a->bounded && (isnan(d) || d < a->min || d > a->max)) {
			xasprintf(status, "%s: %s must be between %g and %g, "
			    "not %g", e->prefix, what, a->min, a->max, d);
			return -1;
		}
		return 0;
	case CMD_CHOICE:
		if (!json_is_string(v))
			goto wrong;
		return cmd_check_choice(e, a, v, what, status);
	case CMD_OSD:
		return cmd_check_osd(e, a, v, what, status);
	case CMD_VALUE:
		if (!json_is_string(v) && !json_is_integer(v)) {
			xasprintf(status,
			    "%s: %s must be a string or an "
			    "integer, not %s",
			    e->prefix, what, cmd_json_type(v));
			return -1;
		}
		return 0;
	case CMD_OSDS:
		if (!json_is_array(v))
			goto wrong;
		if (json_array_size(v) == 0) {
			xasprintf(status, "%s: %s needs at least one osd id",
			    e->prefix, what);
			return -1;
		}
		/*
		 * Ceph's "any" and "all" stand for every OSD, first only
		 * (what follows one is ignored, as Ceph does, but must be
		 * ids).
		 */
		json_array_foreach(v, j, item) {
			if (j == 0 && json_is_string(item) &&
			    cmd_is_choice(a->choices, json_string_value(item)))
				continue;
			snprintf(what, sizeof what, "argument '%s' item %zu",
			    a->name, j);
			if (cmd_check_osd(e, a, item, what, status) == -1)
				return -1;
		}
		return 0;
	case CMD_STRINGS:
	case CMD_INTS:
		if (!json_is_array(v))
			goto wrong;
		if (a->required && json_array_size(v) == 0) {
			xasprintf(status, "%s: %s needs at least one %s",
			    e->prefix, what, a->type == CMD_INTS ?
			    "integer" : "string");
			return -1;
		}
		json_array_foreach(v, j, item) {
			snprintf(what, sizeof what, "argument '%s' item %zu",
			    a->name, j);
			if (a->type == CMD_INTS) {
				if (cmd_check_int(e, a, item, what, status) ==
				    -1)
					return -1;
			} else if (!json_is_string(item)) {
				xasprintf(status, "%s: %s must be a string, "
				    "not %s", e->prefix, what,
				    cmd_json_type(item));
				return -1;
			} else if (a->choices != NULL &&
			    cmd_check_choice(e, a, item, what, status) == -1)
				return -1;
		}
		return 0;
	case CMD_FLAG:
		if (!json_is_boolean(v))
			goto wrong;
		return 0;
	case CMD_JSON:
		return 0;
	}
wrong:
	xasprintf(status, "%s: %s must be %s, not %s", e->prefix, what,
	    a->type == CMD_STRING || a->type == CMD_CHOICE ? "a string" :
	    a->type == CMD_FLOAT ? "a number" :
	    a->type == CMD_FLAG ? "a boolean" : "an array", cmd_json_type(v));
	return -1;
}

int
cmd_check(json_t *cmd, const struct cmd_entry **entry, char **status)
{
	const struct cmd_entry *e;
	const struct cmd_arg *a;
	const char *prefix, *key, *near;
	json_t *v, *pv;
	char expected[256];
	size_t i;

	*entry = NULL;
	if (!json_is_object(cmd)) {
		xasprintf(status, "a command must be a JSON object");
		return -EINVAL;
	}
	if ((pv = json_object_get(cmd, "prefix")) == NULL) {
		xasprintf(status, "the command has no \"prefix\"");
		return -EINVAL;
	}
	if (!json_is_string(pv)) {
		xasprintf(status, "\"prefix\" must be a string, not %s",
		    cmd_json_type(pv));
		return -EINVAL;
	}
	prefix = json_string_value(pv);
	if ((e = cmd_find_entry(prefix)) == NULL) {
		if ((near = cmd_suggest(prefix)) != NULL)
			xasprintf(status, "unknown command '%.64s'; did you "
			    "mean '%s'?", prefix, near);
		else
			xasprintf(status, "unknown command '%.64s'", prefix);
		return -EINVAL;
	}
	*entry = e;

	/*
	 * JSON_STRICT: every key is the prefix or an argument, but the
	 * "format" that Ceph's clients send along, which the reply's form
	 * does not depend on here (the client formats the data).
	 */
	json_object_foreach(cmd, key, v) {
		if (strcmp(key, "prefix") == 0)
			continue;
		/* Any command may ask to be linearizable (forward.h). */
		if (strcmp(key, "linearizable") == 0) {
			if (json_is_boolean(v))
				continue;
			xasprintf(status,
			    "%s: \"linearizable\" must be a boolean, not %s",
			    e->prefix, cmd_json_type(v));
			return -EINVAL;
		}
		if (strcmp(key, "format") == 0) {
			if (json_is_string(v))
				continue;
			xasprintf(status,
			    "%s: \"format\" must be a string, "
			    "not %s",
			    e->prefix, cmd_json_type(v));
			return -EINVAL;
		}
		for (i = 0; i < CMD_MAXARGS && e->args[i].name != NULL; i++)
			if (strcmp(key, e->args[i].name) == 0)
				break;
		if (i < CMD_MAXARGS && e->args[i].name != NULL)
			continue;
		expected[0] = '\0';
		for (i = 0; i < CMD_MAXARGS && e->args[i].name != NULL; i++) {
			if (i > 0)
				cmd_append(expected, ", ", sizeof expected);
			cmd_append(expected, e->args[i].name, sizeof expected);
		}
		xasprintf(status, "%s: unknown argument '%.64s' (%s%s)",
		    e->prefix, key, expected[0] ? "it takes: " :
		    "it takes no arguments", expected);
		return -EINVAL;
	}
	for (i = 0; i < CMD_MAXARGS && e->args[i].name != NULL; i++) {
		a = &e->args[i];
		v = json_object_get(cmd, a->name);
		if (v == NULL || json_is_null(v)) {
			if (a->required) {
				xasprintf(status, "%s: missing argument '%s' "
				    "(usage: %s)", e->prefix, a->name,
				    e->usage);
				return -EINVAL;
			}
			continue;
		}
		if (cmd_check_arg(e, a, v, status) == -1)
			return -EINVAL;
	}
	return 0;
}

const char *
cmd_get_str(json_t *cmd, const char *key)
{
	return json_string_value(json_object_get(cmd, key));
}

int
cmd_get_loc(struct cmd_req *r, json_t *cmd, const char *key, const char **loc,
    size_t *n)
{
	json_t *a = json_object_get(cmd, key), *v;
	size_t i;

	*n = 0;
	if (a == NULL)
		return 0;
	/* Ceph's location has one bucket per type: five at most. */
	if (json_array_size(a) > CMD_LOC_MAX) {
		cmd_replyf(r, -EINVAL, NULL,
		    "%s: a crush location names at most %d buckets, not %zu",
		    json_string_value(json_object_get(cmd, "prefix")),
		    CMD_LOC_MAX, json_array_size(a));
		return -1;
	}
	json_array_foreach(a, i, v)
		loc[(*n)++] = json_string_value(v);
	return 0;
}

int64_t
cmd_get_int(json_t *cmd, const char *key, int64_t def)
{
	json_t *v = json_object_get(cmd, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

int
cmd_has(json_t *cmd, const char *key)
{
	json_t *v = json_object_get(cmd, key);

	return v != NULL && !json_is_null(v);
}

int32_t
cmd_get_osd(json_t *cmd, const char *key, int32_t def)
{
	json_int_t id;

	return cmd_osd_id(json_object_get(cmd, key), &id) == 0 ? (int32_t)id :
								 def;
}

int32_t *
cmd_get_osds(json_t *cmd, const char *key, size_t *n)
{
	json_t *a = json_object_get(cmd, key), *v;
	json_int_t id;
	int32_t *ids;
	size_t i;

	*n = json_array_size(a);
	ids = xcalloc(*n ? *n : 1, sizeof *ids);
	json_array_foreach(a, i, v) {
		/* Checked: only the first may be a word, every OSD. */
		if (cmd_osd_id(v, &id) == -1) {
			ids[0] = MON_OSD_ALL;
			*n = 1;
			break;
		}
		ids[i] = (int32_t)id;
	}
	return ids;
}

const char *
cmd_get_value(json_t *cmd, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(cmd, key);

	if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
		    json_integer_value(v));
	else
		snprintf(buf, len, "%s",
		    json_is_string(v) ? json_string_value(v) : "");
	return buf;
}

void
cmd_req_end(struct cmd_req *r, int rc)
{
	struct cmd_count *c = r->count;
	uint64_t us;

	json_decref(r->cmd);
	if (c != NULL) {
		us = (uint64_t)(stamp_mono() - r->start_mono);
		c->total_us += us;
		if (us > c->max_us)
			c->max_us = us;
		if (rc < 0)
			c->errors++;
	}
	free(r);
}

void
cmd_reply(struct cmd_req *r, int rc, const char *status, json_t *data)
{
	struct server *srv = r->ctx->server;
	uint64_t conn = r->conn, id = r->id;
	struct cmd_req *outer = r->outer;

	if (outer != NULL) {
		/* The leader's answer to a forward: the index it applied. */
		cmd_req_end(r, rc);
		cmd_reply(outer, rc, status,
		    forward_wrap(outer->ctx->mon, data));
		return;
	}
	cmd_req_end(r, rc);
	if (srv != NULL)
		(void)server_reply(srv, conn, id, rc, status, data);
	else
		json_decref(data);
}

void
cmd_replyf(struct cmd_req *r, int rc, json_t *data, const char *fmt, ...)
{
	va_list ap;
	char *status;

	va_start(ap, fmt);
	xvasprintf(&status, fmt, ap);
	va_end(ap);
	cmd_reply(r, rc, status, data);
	free(status);
}

void
cmd_done(void *arg, int rc, const char *status, json_t *data)
{
	cmd_reply(arg, rc, status, data);
}

void
cmd_answer(struct cmd_req *r, int rc, json_t *out, char *status)
{
	cmd_reply(r, rc, status, rc == 0 ? out : NULL);
	if (rc != 0)
		json_decref(out);
	free(status);
}

void
cmd_answer_read(struct cmd_req *r, json_t *cmd, const char *arg,
    int (*fn)(struct mon *, const char *, json_t **, char **))
{
	json_t *out = NULL;
	char *status = NULL;
	int rc;

	rc = fn(r->ctx->mon, cmd_get_str(cmd, arg), &out, &status);
	cmd_answer(r, rc, out, status);
}

static struct cmd_req *
cmd_req_new(struct cmd_ctx *ctx, uint64_t conn, uint64_t id)
{
	struct cmd_req *r = xcalloc(1, sizeof *r);

	r->ctx = ctx;
	r->conn = conn;
	r->id = id;
	r->start_mono = stamp_mono();
	return r;
}

/* "allow r" and the like: what a command's flags need, for messages. */
static const char *
cmd_cap_needed(const struct cmd_entry *e)
{
	if (e->flags & CMD_ADMIN)
		return "allow *";
	if (e->flags & CMD_WRITE)
		return cmd_self_arg(e) != NULL ?
		    "allow rw, or allow profile osd for its own id" :
		    "allow rw";
	return "allow r";
}

/*
 * The cap check, once, before any handler: may entity name (NULL: a
 * connection with no entity, one that offered no key where [auth]
 * required is off, which may do anything) run e, whose OSD argument
 * (cmd_self) is self (-1: none given)?  peer names the connection in the
 * audit line.  0, or -EACCES with *status (the caller's), and an audit
 * line in the log.
 */
static int
cmd_allowed_as(struct cmd_ctx *ctx, const char *name, const char *peer,
    const struct cmd_entry *e, int64_t self, char **status)
{
	const struct mon_auth_entity *a;
	const char *why = NULL;
	char own[64];
	unsigned allow;

	if (name == NULL)
		return 0;
	if ((a = mon_auth_find(ctx->mon, name)) == NULL)
		why = "the entity no longer exists";
	else if (e->flags & CMD_OPEN)
		return 0;
	else {
		allow = a->allow;
		if (e->flags & CMD_ADMIN) {
			if ((allow & MON_CAP_X) == 0)
				why = "";
		} else if (e->flags & CMD_WRITE) {
			if ((allow & MON_CAP_W) != 0)
				return 0;
			if (cmd_self_arg(e) != NULL && (allow & MON_CAP_OSD) &&
			    self == a->osd)
				return 0;
			if (cmd_self_arg(e) != NULL && (allow & MON_CAP_OSD)) {
				snprintf(own, sizeof own,
				    "allow profile osd acts for osd.%d only",
				    a->osd);
				why = own;
			} else
				why = "";
		} else if ((allow & MON_CAP_R) == 0)
			why = "";
		if (why == NULL)
			return 0;
	}
	if (*why != '\0')
		xasprintf(status, "access denied: %s may not run '%s': %s",
		    name, e->prefix, why);
	else
		xasprintf(status,
		    "access denied: %s may not run '%s': it needs mon '%s'",
		    name, e->prefix, cmd_cap_needed(e));
	log_warnx("audit: %s: %s", peer, *status);
	return -EACCES;
}

/* cmd_allowed_as() for the entity of connection conn. */
static int
cmd_allowed(struct cmd_ctx *ctx, uint64_t conn, const struct cmd_entry *e,
    int64_t self, char **status)
{
	if (ctx->server == NULL)
		return 0;
	return cmd_allowed_as(ctx, server_entity(ctx->server, conn),
	    server_peer(ctx->server, conn), e, self, status);
}

/* A change that only the leader makes (forwarded by a follower). */
static int
cmd_for_leader(const struct cmd_entry *e)
{
	return (e->flags & (CMD_WRITE | CMD_LEADER)) != 0;
}

/* The entity of connection conn, or NULL. */
static const char *
cmd_entity(struct cmd_ctx *ctx, uint64_t conn)
{
	return ctx->server != NULL ? server_entity(ctx->server, conn) : NULL;
}

/* A linearizable read's index is applied here: run it, or refuse it. */
static void
cmd_lin_ready(void *arg, int rc, const char *status, json_t *data)
{
	struct cmd_req *r = arg;
	json_t *cmd = r->cmd;

	json_decref(data);
	if (rc != 0) {
		cmd_reply(r, rc, status, NULL);
		return;
	}
	r->cmd = NULL;
	r->entry->exec(r, cmd);
	json_decref(cmd);
}

void
cmd_request(void *arg, uint64_t conn, uint64_t id, json_t *cmd)
{
	struct cmd_ctx *ctx = arg;
	const struct cmd_entry *e;
	struct cmd_req *r;
	const char *self;
	char *status = NULL;
	int rc;

	r = cmd_req_new(ctx, conn, id);
	rc = cmd_check(cmd, &e, &status);
	if (e != NULL) {
		r->entry = e;
		r->count = &cmd_counts[e - cmd_table];
		r->count->calls++;
	}
	if (rc != 0) {
		dout(LOG_MON, 5, "%s: refused: %s",
		    ctx->server ? server_peer(ctx->server, conn) : "-", status);
		cmd_reply(r, rc, status, NULL);
		free(status);
		return;
	}
	/* osd boot's id may be N, "N" or "osd.N"; the others' are integers. */
	self = cmd_self_arg(e);
	rc = cmd_allowed(ctx, conn, e,
	    self != NULL ? cmd_get_osd(cmd, self, -1) : -1, &status);
	if (rc != 0) {
		cmd_reply(r, rc, status, NULL);
		free(status);
		return;
	}
	dout(LOG_MON, 10, "%s: %s", ctx->server ?
	    server_peer(ctx->server, conn) : "-", e->prefix);
	if (cmd_for_leader(e) && ctx->fwd != NULL && forward_wanted(ctx->fwd)) {
		forward_json(ctx->fwd, cmd_entity(ctx, conn), cmd, cmd_done, r);
		return;
	}
	if (json_is_true(json_object_get(cmd, "linearizable")) &&
	    !cmd_for_leader(e) && ctx->fwd != NULL) {
		r->cmd = json_incref(cmd);
		forward_read_index(ctx->fwd, cmd_lin_ready, r);
		return;
	}
	e->exec(r, cmd);
}

/*
 * Run binary request p[0..len) of entity name (NULL: none) in r, after
 * the cap check; forwarded to the leader when forward (this monitor
 * follows one).
 */
static void
cmd_binary_run(struct cmd_ctx *ctx, struct cmd_req *r, const char *name,
    const char *peer, const uint8_t *p, size_t len, int forward)
{
	const struct cmd_binary_entry *be;
	uint16_t op = enc_get_be16(p);
	int64_t self = -1;
	char *status = NULL;
	size_t i;
	int rc;

	for (i = 0; i < nitems(cmd_binary_table); i++)
		if (cmd_binary_table[i].opcode == op &&
		    cmd_binary_table[i].exec != NULL)
			break;
	if (i == nitems(cmd_binary_table)) {
		cmd_replyf(r, -EOPNOTSUPP, NULL, "unknown binary opcode %u",
		    op);
		return;
	}
	be = &cmd_binary_table[i];
	r->entry = cmd_find_entry(be->prefix);
	r->count = &cmd_counts[r->entry - cmd_table];
	r->count->calls++;
	if (be->self_at > 0 && len >= be->self_at + 4)
		self = enc_get_be32(p + be->self_at);
	if ((rc = cmd_allowed_as(ctx, name, peer, r->entry, self, &status)) !=
	    0) {
		cmd_reply(r, rc, status, NULL);
		free(status);
		return;
	}
	if (forward && cmd_for_leader(r->entry) && ctx->fwd != NULL &&
	    forward_wanted(ctx->fwd)) {
		forward_binary(ctx->fwd, name, p, len, cmd_done, r);
		return;
	}
	be->exec(r, p, len);
}

void
cmd_binary(void *arg, uint64_t conn, uint64_t id, const uint8_t *p, size_t len)
{
	struct cmd_ctx *ctx = arg;
	struct cmd_req *r = cmd_req_new(ctx, conn, id);
	struct cmd_req *inner;
	char name[256], *status = NULL;
	size_t elen;

	if (enc_get_be16(p) != FRAME_BINARY_FORWARD) {
		cmd_binary_run(ctx, r, cmd_entity(ctx, conn),
		    ctx->server ? server_peer(ctx->server, conn) : "-", p, len,
		    1);
		return;
	}
	/* A follower's forward: from mon. (or a connection with no entity). */
	r->entry = cmd_find_entry("mon forward");
	r->count = &cmd_counts[r->entry - cmd_table];
	r->count->calls++;
	if (cmd_entity(ctx, conn) != NULL &&
	    strcmp(cmd_entity(ctx, conn), "mon.") != 0) {
		xasprintf(&status,
		    "access denied: %s may not forward requests (mon. only)",
		    cmd_entity(ctx, conn));
		log_warnx("audit: %s: %s", server_peer(ctx->server, conn),
		    status);
		cmd_reply(r, -EACCES, status, NULL);
		free(status);
		return;
	}
	elen = len >= 3 ? p[2] : 0;
	if (len < 3 + elen + 2) {
		cmd_replyf(r, -EINVAL, NULL,
		    "forwarded binary request of %zu bytes: shorter than its "
		    "entity and opcode",
		    len);
		return;
	}
	memcpy(name, p + 3, elen);
	name[elen] = '\0';
	inner = cmd_req_new(ctx, conn, id);
	inner->outer = r;
	cmd_binary_run(ctx, inner, elen > 0 ? name : NULL,
	    server_peer(ctx->server, conn), p + 3 + elen, len - 3 - elen, 0);
}

/*
 * The leader's side of a follower's forward: the command is checked again
 * against the caps of the client's entity (never more than the client
 * has), run here and answered wrapped with the index applied
 * (forward.h).  Only mon. may forward.
 */
static void
cmd_forward(struct cmd_req *r, json_t *cmd)
{
	struct cmd_ctx *ctx = r->ctx;
	const char *by = cmd_entity(ctx, r->conn);
	const char *name = cmd_get_str(cmd, "entity"), *self;
	json_t *inner = json_object_get(cmd, "cmd");
	const struct cmd_entry *e;
	struct cmd_req *ir;
	char *status = NULL;
	int rc;

	/* The command first: a bad one is EINVAL whoever sends it. */
	if ((rc = cmd_check(inner, &e, &status)) != 0) {
		cmd_replyf(r, rc, NULL, "mon forward: %s", status);
		free(status);
		return;
	}
	if (!cmd_for_leader(e)) {
		cmd_replyf(r, -EINVAL, NULL,
		    "mon forward: '%s' is not a change (only changes are "
		    "forwarded)",
		    e->prefix);
		return;
	}
	if (by != NULL && strcmp(by, "mon.") != 0) {
		cmd_replyf(r, -EACCES, NULL,
		    "access denied: %s may not forward commands (mon. only)",
		    by);
		return;
	}
	ir = cmd_req_new(ctx, r->conn, r->id);
	ir->outer = r;
	ir->entry = e;
	ir->count = &cmd_counts[e - cmd_table];
	ir->count->calls++;
	self = cmd_self_arg(e);
	rc = cmd_allowed_as(ctx, name,
	    ctx->server ? server_peer(ctx->server, r->conn) : "-", e,
	    self != NULL ? cmd_get_osd(inner, self, -1) : -1, &status);
	if (rc != 0) {
		cmd_reply(ir, rc, status, NULL);
		free(status);
		return;
	}
	dout(LOG_MON, 10, "forwarded by %s for %s: %s",
	    ctx->server ? server_peer(ctx->server, r->conn) : "-",
	    name ? name : "-", e->prefix);
	/* Run here, never forwarded on: a follower answers EAGAIN. */
	e->exec(ir, inner);
}

static void
cmd_read_index_cb(void *arg, int rc, uint64_t index, const char *why)
{
	struct cmd_req *r = arg;

	if (rc != 0)
		cmd_reply(r, rc, why,
		    rc == -EAGAIN ? json_pack("{s:b}", "retry", 1) : NULL);
	else
		cmd_reply(r, 0, NULL,
		    json_pack("{s:I}", "index", (json_int_t)index));
}

/* The leader's read index (quorum.h); 0 with one monitor. */
static void
cmd_read_index(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	if (quorum_current() == NULL) {
		cmd_reply(r, 0, NULL, json_pack("{s:I}", "index", 0));
		return;
	}
	if (quorum_read_index(quorum_current(), cmd_read_index_cb, r) == -1)
		cmd_reply(r, -EAGAIN, "no quorum: the engine is not running",
		    json_pack("{s:b}", "retry", 1));
}

void
cmd_closed(void *arg, uint64_t conn)
{
	struct cmd_ctx *ctx = arg;

	if (ctx->sub != NULL)
		sub_closed(ctx->sub, conn);
}

static json_t *
cmd_arg_json(const struct cmd_arg *a)
{
	json_t *o, *c;
	size_t i;

	o = json_pack("{s:s, s:s, s:b}", "name", a->name, "type",
	    cmd_type_names[a->type], "required", a->required);
	if (a->bounded) {
		if (a->type == CMD_FLOAT) {
			json_object_set_new(o, "min", json_real(a->min));
			json_object_set_new(o, "max", json_real(a->max));
		} else {
			json_object_set_new(o, "min",
			    json_integer((json_int_t)a->min));
			json_object_set_new(o, "max",
			    json_integer((json_int_t)a->max));
		}
	}
	if (a->choices != NULL) {
		c = json_array();
		for (i = 0; a->choices[i] != NULL; i++)
			json_array_append_new(c, json_string(a->choices[i]));
		json_object_set_new(o, "choices", c);
	}
	if (a->option != NULL)
		json_object_set_new(o, "option", json_string(a->option));
	return o;
}

json_t *
cmd_descriptions(void)
{
	const struct cmd_entry *e;
	json_t *all = json_array(), *args, *flags;
	size_t i, j;

	for (i = 0; i < nitems(cmd_table); i++) {
		e = &cmd_table[i];
		args = json_array();
		for (j = 0; j < CMD_MAXARGS && e->args[j].name != NULL; j++)
			json_array_append_new(args, cmd_arg_json(&e->args[j]));
		flags = json_array();
		if (e->flags & CMD_READ)
			json_array_append_new(flags, json_string("read"));
		if (e->flags & CMD_WRITE)
			json_array_append_new(flags, json_string("write"));
		if (e->flags & CMD_ADMIN)
			json_array_append_new(flags, json_string("admin"));
		if (e->flags & CMD_HIDDEN)
			json_array_append_new(flags, json_string("hidden"));
		json_array_append_new(all, json_pack("{s:s, s:o, s:o, s:s, "
		    "s:s}", "prefix", e->prefix, "args", args, "flags", flags,
		    "help", e->help, "usage", e->usage));
	}
	return json_pack("{s:o}", "commands", all);
}

static void
cmd_get_descriptions(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	cmd_replyf(r, 0, cmd_descriptions(), "%zu commands",
	    nitems(cmd_table));
}

json_t *
cmd_counters_json(void)
{
	const struct cmd_count *c;
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < nitems(cmd_table); i++) {
		c = &cmd_counts[i];
		json_object_set_new(o, cmd_table[i].prefix, json_pack("{s:I, "
		    "s:I, s:I, s:I, s:I}", "calls", (json_int_t)c->calls,
		    "errors", (json_int_t)c->errors, "total_us",
		    (json_int_t)c->total_us, "avg_us", (json_int_t)(c->calls ?
		    c->total_us / c->calls : 0), "max_us",
		    (json_int_t)c->max_us));
	}
	return o;
}
