/*
 * mon.h: the monitor: committed maps, the pending proposal, the commit
 * pipeline and every operation of mapmon(8) as a C API.
 *
 * Threads.  Everything here runs on the event-loop thread, except the
 * store write of a sealed proposal, which a committer thread does: the
 * loop never waits on the store.  Reads answer from the committed state,
 * which changes only on the loop thread, after a commit is durable.
 *
 * Writes.  Every write operation validates against the pending state (the
 * committed state plus what is already proposed), stages its change in the
 * pending proposal, and calls its `done` callback exactly once: after the
 * commit that holds it is durable and applied (rc 0), or with a negative
 * errno at once when it is refused (-ENOENT, -EEXIST, -EINVAL, -EPERM,
 * -EBUSY, -ERANGE past a limit of struct mon_params), or when its commit
 * fails (-ENOSPC, -EIO).  A change that is already true (`osd down` of a
 * down OSD) is answered at once with rc 0.
 * `done` may run before the operation returns.  status is a one-line human
 * text; data (may be NULL) is a new reference the callback owns.
 *
 * Failed commits.  The state stays as committed; STORE_ERROR is raised;
 * the writers of the failed proposal, and of the one pending on top of it,
 * get the error; the monitor retries with a commit of its own (a cluster
 * log entry) with backoff until one succeeds, which clears STORE_ERROR.
 */
#ifndef MON_H
#define MON_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

#include "map/monmap.h"
#include "map/osdmap.h"
#include "map/pg.h"
#include "store/store.h"

struct mon;
struct mon_proposal;
struct pgmap;
struct statfs_osd;

/* The parameters from [mon] (runtime ones may change with mon_set_params). */
struct mon_params {
	int64_t propose_interval_ms;
	int64_t propose_max_ops;
	int64_t min_epochs;
	int64_t pg_stale_timeout_ms;
	int64_t pg_stuck_threshold_ms; /* `pg dump_stuck', health details */
	int64_t osd_down_out_interval_ms;	/* 0: never */
	int64_t osd_heartbeat_grace_ms; /* failure reports count past it */
	int64_t osd_min_down_reporters; /* reports that mark an OSD down */
	/* Reporters count once per bucket of this crush type (crush.h). */
	int osd_reporter_subtree_level;
	int64_t osd_report_timeout_ms;	/* no beacon for this long: down */
	double osd_min_in_ratio;	/* no automatic out below it */
	int64_t data_size_warn;		/* bytes */
	int64_t data_avail_warn;		/* percent */
	int64_t data_avail_crit;		/* percent */
	int64_t log_max_entries;
	int64_t max_pool_pg_num;	/* pg_num of one pool */
	int64_t max_pg_per_osd;		/* pg_num x size, per OSD in (>= 3) */
	int64_t max_pgs;		/* PGs of all pools */
	int64_t max_osd;		/* OSD ids are below it */
	/* Serving without authentication beyond loopback: AUTH_INSECURE. */
	int auth_insecure;
	int64_t osd_pool_default_pg_num; /* a new pool's, when not given */
	int64_t osd_pool_default_size;	 /* a new pool's, when not given */
	int allow_pool_delete;		 /* mon_allow_pool_delete */
	int allow_pool_size_one;	 /* mon_allow_pool_size_one */
	/*
	 * Changed OSD capacities wait at most this for a commit to carry
	 * them (mon_capacity.h); no configuration key: 5 s, as Ceph's
	 * mgr_stats_period.
	 */
	int64_t capacity_interval_ms;
	/* Replicated entries compressed where smaller (mon_quorum.c). */
	int compress_entries;
};
void mon_params_defaults(struct mon_params *);

/*
 * The calling thread back at normal priority (SCHED_OTHER) when it was
 * started by an event loop at SCHED_RR ([mon] realtime_priority): for
 * threads of bulk work, such as a compaction or a store copy.
 */
void mon_thread_normal(const char *thread);

typedef void mon_done_cb(void *arg, int rc, const char *status, json_t *data);

/* Cold start progress: what ("pgs"), done of total. */
typedef void mon_progress_cb(void *arg, const char *what, uint64_t done,
    uint64_t total);

/*
 * What a commit changed, for subscribers (mon_set_notify): called on the
 * loop after each applied commit.
 */
struct mon_commit_info {
	uint32_t osdmap_epoch;		/* new epoch, or 0 if unchanged */
	const struct osdmap_inc *inc;	/* the incremental, or NULL */
	uint64_t pgmap_version;		/* new version, or 0 if unchanged */
	size_t npgs;			/* PGs changed in that version */
	size_t nlog;			/* cluster log entries added */
	const struct mon_log_entry *log;
	const struct mon_proposal *proposal;	/* mon_commit_foreach_pg() */
	/*
	 * The JSON text of an array of the stats mon_commit_foreach_pg()
	 * gives, in its order (pg_text_stat() of each), written on the
	 * committer thread when mon_want_pg_text() was on as the commit was
	 * sealed; NULL otherwise (then build it from the callback).  Not
	 * NUL-terminated.  Borrowed for the call.
	 */
	const char *pg_text;
	size_t pg_text_len;
	/*
	 * The entities whose key stopped working with this commit: removed,
	 * or given another key (auth rm, auth rotate, a store installed
	 * from a snapshot).  Every monitor is told as it applies the
	 * commit, the leader and each follower alike: the daemon closes its
	 * own sessions of them.  Borrowed for the call.
	 */
	const char *const *auth_ended;
	size_t nauth_ended;
};
typedef void mon_notify_cb(void *arg, const struct mon_commit_info *);

/*
 * Whether commits that change PGs should carry their pg_text: on while
 * somebody pushes every changed PG as JSON (pgmap subscribers), so that
 * the text is written by the committer thread and not on the event loop.
 * Takes effect from the next commit sealed.
 */
void mon_want_pg_text(struct mon *, int on);

/*
 * Backpressure on PG reports: nonzero while the pending proposal holds 1.5
 * times propose_max_ops changes or more, which it only does when it
 * cannot be sealed (a commit is in flight or being applied, or the store
 * failed).  Reports staged then would only grow it, and the PG arrays of
 * proposals are sized for twice propose_max_ops, not for every PG of the
 * map: the daemon stops reading them while it is full (they wait in the
 * sockets; nothing is refused).
 * cb (NULL: none) is called, from the loop, each time a proposal is sealed:
 * the pending one then has room again.
 */
int mon_reports_full(const struct mon *);
typedef void mon_room_cb(void *arg);
void mon_set_room(struct mon *, mon_room_cb *cb, void *arg);

/*
 * Inside a mon_notify_cb only: call cb with the committed stat of every PG
 * the commit of info changed (updated, created or grown; not those of a
 * pool it deleted), each once.  The stats are borrowed for the call.
 */
void mon_commit_foreach_pg(struct mon *, const struct mon_commit_info *,
    void (*cb)(const struct pg_stat *, void *), void *arg);

/* A cluster log entry (`log last' in mapmon(8)). */
#define MON_LOG_DEBUG 0
#define MON_LOG_INFO 1
#define MON_LOG_WARN 2
#define MON_LOG_ERROR 3
struct mon_log_entry {
	uint64_t seq;
	int64_t stamp;
	int severity;
	char *message;
};

/*
 * Make a new store under data_dir (data_dir/store): a fresh fsid, the
 * monmap with this monitor, osdmap epoch 1 (empty), pgmap version 0 and the
 * commit record.  Refuses a directory that already holds a store.
 */
int mon_mkfs(const char *data_dir, const struct store_options *,
    const char *name, const char *addr, char **fsid_out, char **cause);

/*
 * The same, and the first entities: client.admin with admin_key (its
 * MON_AUTH_KEY_LEN bytes; caps mon "allow *") and mon. with a random key (caps mon "allow *").  mon_mkfs()
 * makes client.admin with a random key nobody is told.
 */
int mon_mkfs_auth(const char *data_dir, const struct store_options *,
    const char *name, const char *addr, const uint8_t *admin_key,
    char **fsid_out, char **cause);

/* The store directory of a data directory (malloc'd). */
char *mon_store_path(const char *data_dir);

/*
 * Cold start: read the commit record, the monmap, the latest full osdmap,
 * the PG records in one ordered scan, and the recent cluster log; build the
 * derived figures; start the committer thread.  Takes over store (closed by
 * mon_free).  A missing or inconsistent record is an error naming its key.
 * progress may be NULL.  On failure the store stays the caller's.
 */
struct mon *mon_open(struct event_base *, struct store *store,
    const struct mon_params *, mon_progress_cb *progress, void *parg,
    char **cause);

/*
 * Replace the monitor's store by the store in directory dir (made and
 * verified by the caller, closed; opened with opts) and reload the state
 * from it as a cold start does: only with nothing pending, in flight or
 * applying.  The committer thread is stopped and started again, the two
 * directories exchanged atomically (renameat2, RENAME_EXCHANGE: dir then
 * holds the old store, for the caller to remove).  0, or -1 with *cause:
 * the monitor is then unusable (no store or no state) and the caller
 * stops; the store at the monitor's path is the old or the new one, whole.
 */
int mon_reload(struct mon *, const char *dir, const struct store_options *opts,
    char **cause);

/*
 * Stop by deadline (a stamp_mono(), in microseconds): wait for the commit
 * in progress and commit what is pending, answering -ESHUTDOWN what is
 * still pending within a second of the deadline; from then on nothing is
 * sealed, and the monitor's timers are off (the loop may run on for the
 * last answers).  0 when done: mon_free() then only stops the committer
 * and closes.  -1 when the commit in flight is still being written at the
 * deadline: it is left unanswered (a commit nobody was told of may be
 * lost; the store keeps either all of it or none), and mon_free() would
 * wait for it; a daemon that must stop now exits without mon_free() (the
 * store then recovers as after a crash).
 */
int mon_stop(struct mon *, int64_t deadline);

/*
 * Stop: seal and commit what is pending (waiting for the commit in
 * progress, however long it takes), stop the committer, close the store,
 * free everything.
 */
void mon_free(struct mon *);

void mon_set_params(struct mon *, const struct mon_params *);
void mon_set_notify(struct mon *, mon_notify_cb *, void *arg);
/* Seal the pending proposal now (tests, shutdown). */
void mon_propose_now(struct mon *);
/* Nothing pending, in flight or being applied. */
int mon_idle(const struct mon *);
/*
 * Finish applying a large commit (many PG updates, or pools of many PGs
 * made, grown or removed), which goes a slice per loop turn (it answers
 * its waiters and notifies when done).  Until then mon_pgmap()'s figures
 * and version are those before it, its pools those after it (a grown
 * one once copied), and its single PG stats a mix: call this before reading
 * single PGs.
 */
void mon_settle(struct mon *);

/* The committed state (read-only views, valid until the next loop turn). */
const struct monmap *mon_monmap(const struct mon *);
const struct osdmap *mon_osdmap(const struct mon *);
const struct pgmap *mon_pgmap(const struct mon *);
struct store *mon_store(const struct mon *);
uint64_t mon_pgmap_version(const struct mon *);

/*
 * Writes (see the conventions above).  The limits of struct mon_params
 * are checked against the working map before anything is staged, and a
 * request past one is -ERANGE with a status naming the limit and the
 * figures: mon_osd_create() of an id at or above max_osd;
 * mon_pool_create(), and mon_pool_set() growing pg_num or size, past
 * max_pool_pg_num (pg_num of the pool), max_pg_per_osd (pg_num x size of
 * every pool against max_pg_per_osd x max(3, OSDs in)) or, when PGs are
 * added, max_pgs (the PGs of every pool, those being removed included).
 *
 * Ceph's idempotency, errnos and words (its OSDMonitor's, mapmon(8) lists
 * them): what is already so is rc 0 with Ceph's note ("osd.3 is already
 * down. ", "pool 'x' already exists", "pool 'x' does not exist" for a
 * delete); an unknown pool to change is -ENOENT "unrecognized pool 'x'".
 */
void mon_osd_create(struct mon *, int32_t id /* -1: lowest free */,
    mon_done_cb *, void *);
/*
 * addr NULL: the OSD keeps the address it has.  mon_osd_boot_at() also
 * places it in the hierarchy at loc (nloc "TYPE=NAME" strings, Ceph's
 * crush location), or, without one, a new OSD at a host of its own
 * (mapmond(8), PLACEMENT); a bad location refuses the boot with the
 * hierarchy's errno (crush.h).
 */
void mon_osd_boot_at(struct mon *, int32_t id, const char *addr,
    const char *const *loc, size_t nloc, mon_done_cb *, void *);
void mon_osd_boot(struct mon *, int32_t id, const char *addr, mon_done_cb *,
    void *);
/*
 * `osd down', `osd in', `osd out' and `osd rm' of ids[0..n), in order, as
 * Ceph's OSDMonitor takes them: the status has a sentence per id ("marked
 * out osd.1. ", "osd.0 is already out. ", "osd.7 does not exist. "; for rm
 * "removed osd.1, osd.2"), rc 0 even when nothing changed.  ids[0] ==
 * MON_OSD_ALL (Ceph's any, all, *) means every OSD (for in: every OSD that
 * is out), without the "already" sentences.  -EINVAL for no ids or an id
 * out of range; rm of an OSD that is up is -EBUSY "osd.N is still up; must
 * be down before removal. ", and removes none of the list.
 */
#define MON_OSD_ALL (-1)
void mon_osd_down(struct mon *, const int32_t *ids, size_t n, mon_done_cb *,
    void *);
void mon_osd_in(struct mon *, const int32_t *ids, size_t n, mon_done_cb *,
    void *);
void mon_osd_out(struct mon *, const int32_t *ids, size_t n, mon_done_cb *,
    void *);
void mon_osd_rm(struct mon *, const int32_t *ids, size_t n, mon_done_cb *,
    void *);
void mon_osd_reweight(struct mon *, int32_t id, double w, mon_done_cb *,
    void *);
/* "noup is set" (Ceph's words, also when it already was). */
void mon_osd_set_flag(struct mon *, const char *flag, int on, mon_done_cb *,
    void *);
/*
 * `osd pool create NAME [PG_NUM [PGP_NUM]] [replicated] [RULE] [--size
 * N]', in the order Ceph's checks go: a pool of that name is rc 0 "pool
 * 'x' already exists"; rule (NULL: the default) other than
 * "replicated_rule" is -ENOENT; pg_num (0: osd_pool_default_pg_num) past
 * max_pool_pg_num and pgp_num (0: pg_num) past pg_num are -ERANGE; size
 * (0: osd_pool_default_size) past 10 is -EINVAL; min_size is size -
 * size/2.
 */
void mon_pool_create(struct mon *, const char *name, int64_t pg_num,
    int64_t pgp_num, int64_t size, const char *rule, mon_done_cb *, void *);
/*
 * A rename of a pool that is gone to a name that exists is rc 0, as Ceph
 * takes a repeated rename.
 */
void mon_pool_rename(struct mon *, const char *from, const char *to,
    mon_done_cb *, void *);
/*
 * -EPERM unless name2 is name and confirmed, then -EPERM unless
 * allow_pool_delete; a pool that does not exist is rc 0.
 */
void mon_pool_delete(struct mon *, const char *name, const char *name2,
    int confirmed, mon_done_cb *, void *);
/*
 * `osd pool set NAME KEY VALUE [--yes-i-really-mean-it]', KEY one of size,
 * min_size, pg_num, pgp_num, crush_rule and VALUE its text (an integer
 * but for crush_rule).  A new size sets min_size = size - size/2; size 1
 * is -EPERM unless allow_pool_size_one and sure; a pg_num that grows and
 * equals pgp_num takes pgp_num along.  "set pool 1 size to 3", also when
 * the value is already that (answered at once).
 */
/*
 * `osd pool application enable|disable POOL APP [--yes-i-really-mean-it]'
 * (enable: 1), with Ceph's words and errnos (OSDMonitor::
 * prepare_command_pool_application()): a second application needs sure
 * (-EPERM), at most OSDMAP_POOL_APPS_MAX of OSDMAP_POOL_APP_LEN bytes;
 * disable always needs sure; enabling what is enabled and disabling what
 * is not answer 0 at once.
 */
void mon_pool_application(struct mon *, int enable, const char *name,
    const char *app, int sure, mon_done_cb *done, void *arg);
void mon_pool_set(struct mon *, const char *name, const char *key,
    const char *value, int sure, mon_done_cb *, void *);
/*
 * A PG report from osd: the stats of many PGs.  PGs that do not exist are
 * skipped and counted in the reply's data {"accepted": N, "unknown": N};
 * an unknown or down reporting OSD is -ENOENT / -EAGAIN; an up or acting
 * OSD id outside -1 .. OSDMAP_MAX_OSD - 1 is -EINVAL for the whole report.
 */
void mon_pg_report(struct mon *, int32_t osd, const struct pg_stat *pgs,
    size_t n, mon_done_cb *, void *);

/*
 * An OSD's beacon: it is alive (its report clock restarts), and statfs (may
 * be NULL) is its store's capacity now.  Answered at once: rc 0; -ENOENT
 * for an OSD that does not exist; -EAGAIN for one that is down (it must
 * boot first, as for a PG report).  A PG report restarts the clock too.
 */
void mon_osd_beacon(struct mon *, int32_t id, const struct statfs_osd *statfs,
    mon_done_cb *, void *);

/*
 * Authentication entities (mapmond(8), AUTHENTICATION): client.NAME,
 * osd.ID and mon. (shared by the monitors), each with a 32-byte key and
 * caps per service ("mon" => "allow r").  They are kept in the store and
 * changed only by commits, as every map is; the lookups read the
 * committed entities, so a new key works, and an old one stops working,
 * once its commit is done.
 *
 * A "mon" cap is grants joined by ',' or ';': "allow r" (reads and
 * subscriptions), "allow w" (changes), "allow x" (admin: auth, config set,
 * store compact, pool delete), any of them together ("allow rwx"), "allow
 * *" (all three) and "allow profile osd" (reads, and an OSD's own
 * commands for its own id only).  Caps of the services "osd", "mgr" and
 * "mds" are kept for Ceph's tools and must start with "allow"; mapmon
 * enforces the "mon" caps alone.
 */
#define MON_AUTH_KEY_LEN 32
#define MON_AUTH_NAME_MAX 64
#define MON_AUTH_MAX_CAPS 8 /* services per entity */

#define MON_CAP_R 0x1	/* reads and subscriptions */
#define MON_CAP_W 0x2	/* changes */
#define MON_CAP_X 0x4	/* admin commands */
#define MON_CAP_OSD 0x8 /* allow profile osd: its own commands */

struct mon_auth_cap {
	char *service; /* "mon" */
	char *cap;     /* "allow r" */
};

struct mon_auth_entity {
	char *name;
	uint8_t key[MON_AUTH_KEY_LEN];
	struct mon_auth_cap *caps; /* in service order */
	size_t ncaps;
	unsigned allow; /* MON_CAP_* of its mon cap */
	int32_t osd;	/* ID of osd.ID, else -1 */
};

/*
 * Check an entity name: "client.NAME" (NAME of letters, digits and
 * "_-.@", the whole at most MON_AUTH_NAME_MAX), "osd.ID" (a decimal
 * 0..65535 without leading zeros) or "mon.".  0, or -1 with *cause.
 */
int mon_auth_name_check(const char *name, char **cause);

/*
 * Check one cap of service (see above) and give what a mon cap allows
 * (*allow, may be NULL: 0 for other services).  0, or -1 with *cause
 * naming what is wrong ("unknown cap type 'x'", "mon cap 'allow q': 'q'
 * is not one of r, w, x").
 */
int mon_auth_cap_parse(const char *service, const char *cap, unsigned *allow,
    char **cause);

/*
 * The committed entity named name, or NULL (borrowed: valid until the
 * next commit is applied).  mon_auth_count() and mon_auth_at() walk them
 * in Ceph's order: mon., the OSDs, the clients, each by name.
 */
const struct mon_auth_entity *mon_auth_find(const struct mon *,
    const char *name);
size_t mon_auth_count(const struct mon *);
const struct mon_auth_entity *mon_auth_at(const struct mon *, size_t i);

/*
 * {"entity", "key" (base64), "caps": {SERVICE: CAP}}, one entity of a
 * keyring as Ceph dumps it (a new reference).
 */
json_t *mon_auth_entity_json(const struct mon_auth_entity *);

/*
 * The auth commands, with Ceph's words.  caps holds ncaps pairs, service
 * then cap (caps[2i], caps[2i + 1]); an odd count, a bad name or a bad cap
 * is -EINVAL.  The data of those that give a keyring is an array of one
 * mon_auth_entity_json().
 *
 *  - mon_auth_add: a new entity with a random key (or key, when not NULL)
 *    and caps: "added key for NAME"; one that exists with the same caps
 *    is 0 (no change), with other caps -EINVAL.
 *  - mon_auth_get_or_create: the entity's keyring, made with a random key
 *    when it does not exist; one that exists with a cap that differs
 *    from those asked is -EINVAL.
 *  - mon_auth_caps: replace the caps (-ENOENT when it does not exist).
 *  - mon_auth_rm: remove it (0 with a note when it does not exist).
 *  - mon_auth_rotate: a new random key; the keyring with it (-ENOENT).
 */
void mon_auth_add(struct mon *, const char *name, const char *const *caps,
    size_t ncaps, const uint8_t *key, mon_done_cb *, void *);
void mon_auth_get_or_create(struct mon *, const char *name,
    const char *const *caps, size_t ncaps, mon_done_cb *, void *);
void mon_auth_caps(struct mon *, const char *name, const char *const *caps,
    size_t ncaps, mon_done_cb *, void *);
void mon_auth_rm(struct mon *, const char *name, mon_done_cb *, void *);
void mon_auth_rotate(struct mon *, const char *name, mon_done_cb *, void *);

/*
 * The reads: `auth get' (a keyring array; -ENOENT), `auth get-key'
 * ({"key"}; -ENOENT) and `auth ls' ({"auth_dump": [...]}, rc 0: every
 * entity but mon., as Ceph's lists the entities of AuthMonitor's database,
 * which the monitors' own key is not in).  0 with *out, or a negative
 * errno with *status; *status is the caller's.
 */
int mon_auth_get_json(struct mon *, const char *name, json_t **out,
    char **status);
int mon_auth_get_key_json(struct mon *, const char *name, json_t **out,
    char **status);
json_t *mon_auth_ls_json(struct mon *);

/*
 * A failure report (mapmon-protocol(7), "FAILURE REPORTS"; the rules in
 * mapmond(8), "LIVENESS"): reporter has failed to reach target for
 * failed_for seconds, or, with cancel, reaches it again and withdraws its
 * report.  Answered at once, with data {"reporters", "counted", "needed",
 * "marked_down"}: when the report completes what marks target down, the
 * mark-down is staged first.  -EINVAL for a report about the reporter
 * itself and a failed_for that is negative, not finite or past 10^9
 * seconds.  A report that cannot count is ignored, as Ceph drops it: rc 0
 * with a status saying why and data {"ignored": true}, for an unknown or
 * down reporter and an unknown or already down target.
 */
void mon_osd_failure(struct mon *, int32_t target, int32_t reporter,
    double failed_for, int cancel, mon_done_cb *, void *);
/*
 * An OSD stopping cleanly marks itself down: answered after the commit,
 * with data {"down": true}.  rc 0 at once for one already down, and for
 * one that stays up because the nodown flag is set ({"down": false}, the
 * status saying so); -ENOENT for one that does not exist.
 */
void mon_osd_mark_me_down(struct mon *, int32_t id, mon_done_cb *, void *);
/*
 * `osd set-full-ratio', `osd set-backfillfull-ratio' and `osd
 * set-nearfull-ratio': one of the osdmap's full ratios becomes ratio, in
 * the next epoch, with a cluster log line.  -EINVAL for a ratio outside
 * 0 .. 1, or one that would break nearfull_ratio <= backfillfull_ratio <=
 * full_ratio (the status names the order and the values); rc 0 at once
 * when the ratio already is that.
 */
enum mon_ratio {
	MON_RATIO_FULL,
	MON_RATIO_BACKFILLFULL,
	MON_RATIO_NEARFULL,
};
void mon_osd_set_ratio(struct mon *, enum mon_ratio, double ratio,
    mon_done_cb *, void *);

/*
 * `health mute CODE [TTL] [--sticky]' and `health unmute [CODE]', as
 * Ceph's HealthMonitor: a mute keeps a check out of the status (it is
 * still listed, "muted": true) until its TTL (ttl, Ceph's span such as
 * "1h"; NULL: none) passes, or, unless sticky, until the check clears or
 * grows (mon_mute_tick()).  -EINVAL for an empty code, a code longer than
 * 23 bytes or a TTL that is not a span above 0 ("invalid duration: ..."),
 * -ENOENT for a check not raised now unless sticky ("health alert X is
 * not currently raised").  Unmuting what is not muted, and muting again,
 * are fine.  Answered after the commit, with an empty status as Ceph's.
 */
/*
 * `mon add NAME ADDR' and `mon rm NAME', as Ceph answers them: a monitor
 * of that name at that address already there is 0 ("mon.NAME at ADDR
 * already exists"), the name at another address or the address under
 * another name -EEXIST, a name not there to remove 0 ("does not exist or
 * has already been removed"), the last monitor -EINVAL; a change while
 * another is being committed -EBUSY; a monitor that runs alone (no
 * replication) -EINVAL.  Otherwise the monmap of the next epoch is staged
 * and done is answered ("adding mon.NAME at ADDR", "removing mon.NAME at
 * ADDR, there will be N monitors") once it is committed.
 */
void mon_monmap_add(struct mon *, const char *name, const char *addr,
    mon_done_cb *done, void *arg);
void mon_monmap_rm(struct mon *, const char *name, mon_done_cb *done,
    void *arg);

void mon_health_mute(struct mon *, const char *code, const char *ttl,
    int sticky, mon_done_cb *, void *);
void mon_health_unmute(struct mon *, const char *code /* NULL: all */,
    mon_done_cb *, void *);

/* Reads: JSON of mapmon(8)'s shapes (new references), or NULL + rc/status. */
json_t *mon_status_json(struct mon *);
json_t *mon_health_json(struct mon *, int detail);
int mon_health_status(struct mon *); /* 0 OK, 1 WARN, 2 ERR */
json_t *mon_osd_stat_json(struct mon *);
/*
 * `df' (O(pools): from the figures kept as beacons come) and `osd df'
 * (every OSD, one pass), in Ceph's shapes; the capacity is what the OSDs'
 * beacons said since the monitor started (mapmon(8), "Capacity").
 */
json_t *mon_df_json(struct mon *);
json_t *mon_osd_df_json(struct mon *);
json_t *mon_pool_ls_json(struct mon *, int detail);
/*
 * `osd pool application get [POOL [APP [KEY]]]', as Ceph's: every pool's
 * applications by pool name, a pool's, an application's keys (none
 * here), or -ENOENT (an unknown pool, an application not enabled, a key).
 */
int mon_pool_application_get_json(struct mon *, const char *pool,
    const char *app, const char *key, json_t **out, char **status);
/* key: size, min_size, pg_num, pgp_num, crush_rule or all. */
int mon_pool_get_json(struct mon *, const char *name, const char *key,
    json_t **out, char **status);
/*
 * `osd ls', `osd dump', `osd tree' and `osd getmap' of an older epoch
 * (0: the committed one): the full map of that epoch as stored (read from
 * the store for an older one; into *out, the caller's to osdmap_clear()).
 * 0; -ENOENT "there is no map for epoch N" when it is not kept (trimmed,
 * or past the committed epoch); -EIO with *status when the store fails.
 */
int mon_osdmap_at(struct mon *, uint32_t epoch, struct osdmap *out,
    char **status);
/*
 * `osd tree' of map om (mon_osdmap() or mon_osdmap_at()'s), its OSDs
 * in any of the states of mask (MON_TREE_*; 0: all).
 */
#define MON_TREE_UP 0x1
#define MON_TREE_DOWN 0x2
#define MON_TREE_IN 0x4
#define MON_TREE_OUT 0x8
json_t *mon_osd_tree_of_json(const struct osdmap *om, unsigned mask);

/*
 * The placement hierarchy's commands (mon_crush.c), Ceph's `osd crush
 * ...' with its words, errnos and idempotency (mapmon(8) lists them):
 * what is already so is rc 0 with Ceph's note ("bucket 'x' already
 * exists", "no need to move item ...", "rule x already exists", "device
 * 'x' does not appear in the crush map" for a removal), a bad argument the
 * hierarchy's errno and cause (crush.h); nothing is staged then.
 */
enum mon_crush_opcode {
	MON_CRUSH_ADD_BUCKET,	  /* name type [loc] */
	MON_CRUSH_MOVE,		  /* name loc */
	MON_CRUSH_REMOVE,	  /* name (rm, remove, unlink) */
	MON_CRUSH_ADD,		  /* osd.N weight loc */
	MON_CRUSH_SET,		  /* osd.N weight loc */
	MON_CRUSH_CREATE_OR_MOVE, /* osd.N weight loc */
	MON_CRUSH_REWEIGHT,	  /* osd.N weight */
	MON_CRUSH_SET_CLASS,	  /* cls osds */
	MON_CRUSH_RM_CLASS,	  /* osds */
	MON_CRUSH_RULE_CREATE,	  /* name root type [cls] */
	MON_CRUSH_RULE_RM,	  /* name */
};
struct mon_crush_req {
	enum mon_crush_opcode op;
	const char *name;
	const char *type;
	const char *root;
	const char *cls; /* NULL: none */
	double weight;
	const char *const *loc;
	size_t nloc;
	const int32_t *osds;
	size_t nosds;
};
void mon_crush_op(struct mon *, const struct mon_crush_req *, mon_done_cb *,
    void *);
/*
 * Reads of the committed hierarchy, new references: `osd crush dump',
 * `osd crush class ls', `osd crush rule ls', `osd crush rule dump [NAME]'
 * (all rules without a name; -ENOENT "unknown crush rule 'x'").
 */
json_t *mon_crush_dump_json(const struct mon *);
json_t *mon_crush_class_ls_json(const struct mon *);
json_t *mon_crush_rule_ls_json(const struct mon *);
int mon_crush_rule_dump_json(const struct mon *, const char *name, json_t **out,
    char **status);
/*
 * The tree of om's hierarchy, Ceph's {"nodes": [...], "stray": [...]}:
 * buckets (with "children", and mapmon's "depth" and "crush_weight") and
 * OSDs in the walk's order (crush.h).  With states, `osd tree': each OSD
 * with its osdmap columns ("exists", "status", "reweight",
 * "primary_affinity"), only those in a state of mask (MON_TREE_*; 0: all)
 * and the buckets that hold one, and the map's OSDs outside the hierarchy
 * in "stray"; without, `osd crush tree'.  A map from before the
 * hierarchy lists its OSDs as nodes.
 */
json_t *mon_crush_tree_json(const struct osdmap *om, int states, unsigned mask);
/* `osd find ID': -ENOENT "osd.N does not exist" for one that does not. */
int mon_osd_find_json(struct mon *, int32_t id, json_t **out, char **status);
/*
 * `report': one JSON object of everything, in the shape of Ceph's (its
 * keys where mapmon has the thing), with tags (n strings) as its "tag".
 */
json_t *mon_report_json(struct mon *, const char *const *tags, size_t n);
/*
 * `log TEXT...': an operator's line into the cluster log, at INFO,
 * committed as any change; answered after its commit.  -EINVAL for a text
 * longer than MON_LOG_TEXT_MAX bytes.
 */
#define MON_LOG_TEXT_MAX 4096
void mon_log_text(struct mon *, const char *text, mon_done_cb *, void *);
/*
 * `pg stat': Ceph's {"pg_ready": true, "pg_summary": {...}} (PGMapDigest's
 * one-line summary) with mapmon's figures beside it (mapmon(8)).
 */
json_t *mon_pg_stat_json(struct mon *);
int mon_pg_query_json(struct mon *, const char *pgid, json_t **out,
    char **status);
int mon_pg_map_json(struct mon *, const char *pgid, json_t **out,
    char **status);
/*
 * `osd map POOL OBJECT': the object's PG (pg_str_hash_rjenkins(), folded
 * by pg_num) and its sets, Ceph's {"epoch", "pool", "pool_id", "objname",
 * "raw_pgid", "pgid", "up", "up_primary", "acting", "acting_primary"} and
 * its line as the status; -ENOENT "pool P does not exist".
 */
int mon_osd_map_json(struct mon *, const char *pool, const char *object,
    json_t **out, char **status);

/*
 * The listings of PGs, `pg dump', `pg ls' and `pg dump_stuck', whose data
 * grows with the PGs (some 1.4 KB of JSON a PG: 380 MB at max_pgs' default
 * of 262,144) and so is written as JSON text, a slice at a time, never
 * whole and never as a jansson object per PG.  A function per command
 * checks its arguments and starts a walk (0 with *out, the caller's to
 * free with mon_pg_walk_free(); or a negative errno with *status, the
 * caller's to free):
 *
 *  - mon_pg_dump_walk: `pg dump' of the parts what[0..n) (Ceph's
 *    dumpcontents: "all", "summary" or "sum", "pools", "osds", "pgs",
 *    "pgs_brief"; none: "all"); -EINVAL for another word;
 *  - mon_pg_ls_walk: `pg ls' and `pg ls-by-pool|osd|primary', the PGs
 *    that q selects (struct mon_pg_ls); -ENOENT for a pool that does not
 *    exist, -EAGAIN for an OSD that is not up, -EINVAL for a word of
 *    states that is not one PG state, as Ceph answers them;
 *  - mon_pg_dump_stuck_walk: `pg dump_stuck' of the stuck types what[0..n)
 *    ("inactive", "unclean", "stale", "undersized", "degraded"; none:
 *    "unclean"), stuck for threshold seconds or more (-1: the
 *    pg_stuck_threshold parameter), as Ceph's PGMap::get_stuck_stats();
 *    -EINVAL for another word.
 *
 * Then mon_pg_walk_next() until it returns 1 appends the data's JSON text
 * (the shape of mapmon(8)'s reply) to t->buf, t being one writer per walk
 * or per thread (map/pg.h), and then sets *status to the reply's status
 * ("dumped all", "listed 12 pgs", Ceph's "ok" of dump_stuck; the caller
 * frees it).  Each call settles (mon_settle()) and writes at most
 * MON_PG_WALK_PGS PGs, having looked at no more than MON_PG_WALK_LOOK, so
 * that it holds the loop for well under a millisecond; the data around
 * the PGs (the summary, pools and OSDs of `pg dump') comes from the first
 * call.  The PGs go in pool id and seed order, each once,
 * as it is when its slice is written: one that commits between two slices
 * is in either state, and a pool created meanwhile is listed when its id
 * comes after the walk's place.  A walk must be freed before its monitor.
 */
#define MON_PG_WALK_PGS 512 /* about 740 KB of text, 0.2 ms */
#define MON_PG_WALK_LOOK 16384
struct mon_pg_walk;
int mon_pg_dump_walk(struct mon *, const char *const *what, size_t n,
    struct mon_pg_walk **out, char **status);
struct mon_pg_ls {
	const char *pool;	   /* a name or an id; NULL: not this way */
	int64_t pool_id;	   /* -1: not this way */
	int pool_by_name;	   /* pool is a name only (`ls-by-pool') */
	int32_t osd;		   /* in the acting set; -1: any OSD */
	int primary;		   /* osd as the acting primary only */
	const char *const *states; /* any of these; none: any state */
	size_t nstates;
};
int mon_pg_ls_walk(struct mon *, const struct mon_pg_ls *q,
    struct mon_pg_walk **out, char **status);
int mon_pg_dump_stuck_walk(struct mon *, const char *const *what, size_t n,
    int64_t threshold, struct mon_pg_walk **out, char **status);
int mon_pg_walk_next(struct mon_pg_walk *, struct pg_text *t, char **status);
void mon_pg_walk_free(struct mon_pg_walk *);

/*
 * The cluster log entries as Ceph's LogEntry::dump() writes them ("name",
 * "rank", "addrs", "stamp", "seq", "channel": "cluster", "priority":
 * "[WRN]", "message"; mapmon's "severity": "WRN" beside): the last n kept
 * (mon_log_last_json()), or the last n of min_severity or worse, none when
 * !channel (`log last' of a channel other than the cluster's).
 */
json_t *mon_log_last_json(struct mon *, size_t n);
json_t *mon_log_tail_json(struct mon *, size_t n, int min_severity,
    int channel);
/* The kept cluster log entries above seq, oldest first, at most max. */
json_t *mon_log_after_json(struct mon *, uint64_t seq, size_t max);
int mon_store_stat_json(struct mon *, json_t **out, char **status);

/*
 * The key ranges that cover the whole store, in key order, for a
 * compaction done range after range (`store compact'), so that it can stop
 * between two (at shutdown) and each range is a bounded piece of work: the
 * PG records of each pool cut every MON_COMPACT_PGS seeds (the records of
 * removed pools fall in the range before them), the pgmap incrementals
 * every MON_COMPACT_VERSIONS versions, and the rest around them.  A range
 * is [lo, hi); a length of 0 means the store's first key (lo) or past its
 * last (hi).  *out (malloc'd, the caller frees it) gets them; returns how
 * many.  Reads the committed maps: on the loop.
 */
#define MON_KEY_MAX 16
#define MON_COMPACT_PGS 16384
#define MON_COMPACT_VERSIONS 64
struct mon_key_range {
	uint8_t lo[MON_KEY_MAX], hi[MON_KEY_MAX];
	size_t lolen, hilen;
};
size_t mon_compact_ranges(const struct mon *, struct mon_key_range **out);

/* A lookup found nothing (a result, not an error). */
#define MON_NOTFOUND 1

/*
 * The osdmap incremental that made epoch (as a subscriber replays them),
 * read from the store.  0 with *out filled (the caller's: osdmap_inc_clear()
 * it); MON_NOTFOUND when that epoch's incremental is not kept (trimmed, or
 * epoch 0 or past the committed epoch); -1 with *cause (the caller frees
 * it) when the store fails or the record is corrupt, *out then holding
 * nothing to clear.
 */
int mon_osdmap_inc_get(struct mon *, uint32_t epoch, struct osdmap_inc *out,
    char **cause);

/*
 * The PGs changed after pgmap version since, up to the applied version,
 * from the stored pgmap incrementals (as a subscriber resuming on another
 * monitor asks): *ids (malloc'd, the caller frees it; sorted, each PG
 * once) and *n, at most max of them.  0 (none: *ids NULL, when since is
 * the applied version or newer); MON_NOTFOUND when an incremental after
 * since is no longer kept, or more than max PGs changed (send the whole
 * map instead); -1 with *cause when the store fails.  On the loop.
 */
int mon_pgmap_changed_since(struct mon *, uint64_t since, struct pg_id **ids,
    size_t *n, size_t max, char **cause);

/*
 * Recount the derived figures from every PG, and the capacity figures from
 * every OSD, and compare them with the maintained ones; 0 when equal, else
 * -1 with *cause naming the first difference.  (Tests and `mapmon-store
 * verify`.)
 */
int mon_check_derived(struct mon *, char **cause);

/* Counters for `perf dump` and the metrics. */
struct mon_perf {
	uint64_t commits, commit_failures, commit_us_total, commit_us_max;
	uint64_t proposals_ops_total, pg_updates, osdmap_epochs;
	uint64_t trimmed_epochs, trimmed_versions;
	uint64_t sliced_applies;	/* commits applied a slice per turn */
	uint64_t commit_hist[16];	/* commit latency: bucket i < 2^i ms */
};
void mon_perf(const struct mon *, struct mon_perf *);

#endif /* MON_H */
