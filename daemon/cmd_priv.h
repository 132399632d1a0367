/*
 * cmd_priv.h: the inside of the command table, shared by daemon/cmd*.c
 * only.
 */
#ifndef CMD_PRIV_H
#define CMD_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "daemon/cmd.h"
#include "mon/mon.h"

/* Argument types of a command description (mapmon-protocol(7)). */
enum cmd_type {
	CMD_STRING,
	CMD_INT,
	CMD_FLOAT,
	CMD_CHOICE,
	CMD_STRINGS,
	CMD_INTS,
	CMD_FLAG,
	CMD_JSON,
	CMD_OSD,   /* an OSD id: N, "N" or "osd.N" */
	CMD_OSDS,  /* a list of them, or one of choices (any, all) first */
	CMD_VALUE, /* a string, or an integer taken as its text */
};

/*
 * What a command needs of an entity's mon caps (mapmond(8),
 * AUTHENTICATION): CMD_READ allow r, CMD_WRITE allow w, CMD_ADMIN allow x
 * (allow * is all three), CMD_OPEN nothing beyond being authenticated.
 * An OSD's own commands (cmd.c's cmd_self table) are also allowed to
 * allow profile osd, for the OSD's own id.
 */
#define CMD_READ 0x1
#define CMD_WRITE 0x2
#define CMD_ADMIN 0x4
#define CMD_HIDDEN 0x8
#define CMD_OPEN 0x10
/*
 * A change that only the leader of a quorum makes: a follower forwards it
 * (daemon/forward.h).  Every CMD_WRITE is one; CMD_LEADER marks the
 * admin commands that are (the auth changes, pool deletion).
 */
#define CMD_LEADER 0x20

#define CMD_MAXARGS 8

struct cmd_arg {
	const char *name;
	enum cmd_type type;
	int required;
	int bounded;		/* min and max apply (numbers, list items) */
	double min, max;
	/*
	 * NULL-terminated: CMD_CHOICE's words; CMD_STRINGS' words, when
	 * set; CMD_OSDS' words for every OSD, taken as its first item.
	 */
	const char *const *choices;
	const char *option;	/* given as OPTION VALUE on the CLI */
};

struct cmd_req;
typedef void cmd_exec_fn(struct cmd_req *, json_t *cmd);
/* A binary request's handler: p[0..len) is the payload, opcode first. */
typedef void cmd_binary_fn(struct cmd_req *, const uint8_t *p, size_t len);

struct cmd_entry {
	const char *prefix;
	struct cmd_arg args[CMD_MAXARGS];
	int flags;
	cmd_exec_fn *exec;
	const char *help;
	const char *usage;
};

/* Kept by the dispatcher per entry, for `perf dump`. */
struct cmd_count {
	uint64_t calls;
	uint64_t errors;	/* answered with rc < 0 */
	uint64_t total_us;	/* from dispatch to reply */
	uint64_t max_us;
};

struct sub;

struct cmd_ctx {
	struct event_base *base;
	struct server *server;
	struct mon *mon;
	struct conf *conf;
	cmd_apply_cb *apply;
	void *apply_arg;
	struct sub *sub;		/* NULL once stopped */
	int stopped;
	struct forward *fwd; /* a follower's writes to the leader */

	/*
	 * `store compact`: at most one at a time, on its own thread, a key
	 * range after another (mon_compact_ranges()) until compact_stop.
	 */
	int compact_fd;			/* eventfd: the thread -> the loop */
	struct event *compact_event;
	pthread_t compact_thread;
	int compact_running;
	struct cmd_req *compact_req;
	struct mon_key_range *compact_ranges;
	size_t ncompact_ranges;
	atomic_int compact_stop;
	int compact_rc;
	char *compact_cause;
	int64_t compact_us;

	/*
	 * What `config set WHO NAME VALUE` changed (cmd_admin.c), per key:
	 * the WHO it was set for, the value set and the value before, all
	 * NULL for a key not set so.  A key whose value is no longer the one
	 * set (SIGHUP read the file again) counts as not set.
	 */
	struct cmd_conf_set {
		char *who, *value, *prior;
	} * conf_sets;
};

/* One request being answered (freed by cmd_reply()). */
struct cmd_req {
	struct cmd_ctx *ctx;
	const struct cmd_entry *entry;	/* NULL: refused before dispatch */
	struct cmd_count *count;
	uint64_t conn;
	uint64_t id;
	int64_t start_mono;
	/*
	 * The leader answering a follower's forward: the reply goes to
	 * outer, wrapped (forward_wrap()), not to the connection.
	 */
	struct cmd_req *outer;
	json_t *cmd; /* a linearizable read waiting for its index */
};

/*
 * Answer r with rc, status (copied; may be NULL) and data (stolen), count
 * it in its entry, and free r.  A connection that has gone is fine.
 */
void cmd_reply(struct cmd_req *r, int rc, const char *status, json_t *data);
/* The same with a formatted status. */
void cmd_replyf(struct cmd_req *r, int rc, json_t *data, const char *fmt, ...)
    printflike(4, 5);
/*
 * Count r, answered otherwise (a reply in parts, server_reply_stream()),
 * with its rc, and free it.
 */
void cmd_req_end(struct cmd_req *r, int rc);
/* A mon_done_cb answering the struct cmd_req in arg. */
void cmd_done(void *arg, int rc, const char *status, json_t *data);
/*
 * Answer a read of mon.h's shape: rc 0 with out (stolen), or a negative
 * errno (out, may be NULL, is freed); status (may be NULL) is freed.
 */
void cmd_answer(struct cmd_req *r, int rc, json_t *out, char *status);
/*
 * Answer a read by the string argument arg of cmd: fn gives rc, *out and
 * *status (mon_pg_query_json(), mon_auth_get_json() and the like).
 */
void cmd_answer_read(struct cmd_req *r, json_t *cmd, const char *arg,
    int (*fn)(struct mon *, const char *, json_t **, char **));

/* Typed argument getters, valid after cmd_check() (absent: def / NULL). */
const char *cmd_get_str(json_t *cmd, const char *key);
int64_t cmd_get_int(json_t *cmd, const char *key, int64_t def);
int cmd_has(json_t *cmd, const char *key);
/* A CMD_OSD argument's id (absent: def). */
int32_t cmd_get_osd(json_t *cmd, const char *key, int32_t def);
/*
 * A CMD_OSDS argument's ids, a new array of *n (MON_OSD_ALL first for a
 * word of its choices); the caller frees it.
 */
int32_t *cmd_get_osds(json_t *cmd, const char *key, size_t *n);
/*
 * A CMD_STRINGS argument holding a crush location ("TYPE=NAME" strings)
 * into loc (room for CMD_LOC_MAX; the strings stay cmd's), *n of them (0
 * when absent).  0, or -1 once r is answered -EINVAL (too many).
 */
#define CMD_LOC_MAX 5
int cmd_get_loc(struct cmd_req *r, json_t *cmd, const char *key,
    const char **loc, size_t *n);
/* A CMD_VALUE argument as text into buf (absent: ""). */
const char *cmd_get_value(json_t *cmd, const char *key, char *buf, size_t len);

/* cmd_crush.c: the placement hierarchy's commands, and `osd map'. */
cmd_exec_fn cmd_crush_add_bucket, cmd_crush_move, cmd_crush_remove,
    cmd_crush_add, cmd_crush_set, cmd_crush_create_or_move, cmd_crush_reweight,
    cmd_crush_set_class, cmd_crush_rm_class, cmd_crush_class_ls, cmd_crush_tree,
    cmd_crush_dump, cmd_crush_rule_create, cmd_crush_rule_ls,
    cmd_crush_rule_dump, cmd_crush_rule_rm, cmd_crush_osd_map;

/* cmd_mon.c: the monitor's commands. */
cmd_exec_fn cmd_mon_status, cmd_mon_health, cmd_mon_health_mute,
    cmd_mon_health_unmute, cmd_mon_version, cmd_mon_stat, cmd_mon_dump,
    cmd_quorum_status, cmd_mon_osd_create, cmd_mon_osd_boot, cmd_mon_osd_beacon,
    cmd_mon_osd_failure, cmd_mon_osd_mark_me_down, cmd_mon_osd_down,
    cmd_mon_osd_in, cmd_mon_osd_out, cmd_mon_osd_reweight, cmd_mon_osd_rm,
    cmd_mon_osd_tree, cmd_mon_osd_dump, cmd_mon_osd_stat, cmd_mon_osd_set,
    cmd_mon_osd_unset, cmd_mon_pool_create, cmd_mon_pool_ls,
    cmd_mon_pool_rename, cmd_mon_pool_delete, cmd_mon_pool_set,
    cmd_mon_pool_get, cmd_mon_pg_stat, cmd_mon_pg_dump, cmd_mon_pg_ls,
    cmd_mon_pg_ls_by_pool, cmd_mon_pg_ls_by_primary, cmd_mon_pg_ls_by_osd,
    cmd_mon_pg_query, cmd_mon_pg_map, cmd_mon_pg_dump_stuck, cmd_mon_log_last,
    cmd_mon_subscribe, cmd_mon_df, cmd_mon_osd_df, cmd_mon_osd_set_full_ratio,
    cmd_mon_osd_set_backfillfull_ratio, cmd_mon_osd_set_nearfull_ratio;
/* cmd_mon.c: the commands of Ceph's that mapmon gained with them. */
cmd_exec_fn cmd_mon_pool_app_enable, cmd_mon_pool_app_disable,
    cmd_mon_pool_app_get;
cmd_exec_fn cmd_mon_osd_ls, cmd_mon_osd_find, cmd_mon_osd_getmap,
    cmd_mon_osd_pause, cmd_mon_osd_unpause, cmd_mon_log, cmd_mon_fsid,
    cmd_mon_report;

/* cmd_admin.c: the daemon's own commands. */
cmd_exec_fn cmd_admin_log_dump, cmd_admin_config_show, cmd_admin_config_get,
    cmd_admin_config_set, cmd_admin_config_rm, cmd_admin_config_dump,
    cmd_admin_perf_dump, cmd_admin_store_stat, cmd_admin_store_compact;
/*
 * The compaction thread's set-up and tear-down.  cmd_admin_free() stops a
 * running compaction before its next range and waits for it until
 * deadline (a stamp_mono(); INT64_MAX: for as long as it takes); -1 when
 * it is still compacting then (nothing is freed; the store must not be
 * closed under it), else 0.
 */
void cmd_admin_init(struct cmd_ctx *);
int cmd_admin_free(struct cmd_ctx *, int64_t deadline);
/* Per-command counters as {"prefix": {...}} (new reference). */
json_t *cmd_counters_json(void);

/* cmd_auth.c: the auth commands. */
cmd_exec_fn cmd_auth_add, cmd_auth_get_or_create, cmd_auth_get,
    cmd_auth_get_key, cmd_auth_ls, cmd_auth_caps, cmd_auth_rm, cmd_auth_rotate;
/*
 * A commit was applied (on the leader or a follower): this monitor's
 * sessions of the entities it removed or gave another key are closed.
 */
void cmd_auth_commit(struct cmd_ctx *, const struct mon_commit_info *);

/* cmd_member.c: `mon add', `mon rm'. */
cmd_exec_fn cmd_mon_add, cmd_mon_rm;

/* cmd_sync.c: `mon sync', a copy of the store for another monitor. */
cmd_exec_fn cmd_mon_sync;

/* cmd_pgreport.c */
cmd_exec_fn cmd_pgreport_json;
/* The entry of a prefix, or NULL. */
const struct cmd_entry *cmd_find_entry(const char *prefix);
cmd_binary_fn cmd_pgreport_binary;

#endif /* CMD_PRIV_H */
