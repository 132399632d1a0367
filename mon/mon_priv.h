/*
 * mon_priv.h: the monitor's inside, shared by mon/mon*.c only.
 *
 * Three layers of state:
 *   committed  mon->osdmap, mon->pgmap, mon->rec: what the store holds and
 *              what every read answers from;
 *   inflight   the sealed proposal the committer thread is writing (at most
 *              one); immutable while it is written;
 *   pending    the proposal being filled by new writes.
 * Between committed and inflight, a large commit may be applying: written,
 * its pools and PGs put into mon->pgmap a slice per loop turn, not yet
 * seen (mon_apply.c); single-PG readers of mon->pgmap call mon_settle()
 * first.
 * mon->work is the osdmap as committed + inflight + pending: writes are
 * validated against it.  A PG's current view is pending ?: inflight ?:
 * applying ?: committed (mon_stage_pg_view).
 * Which thread runs what and owns which data: mon_committer.c.
 */
#ifndef MON_PRIV_H
#define MON_PRIV_H

#include <pthread.h>

#include "common/enc.h"
#include "mon/mon.h"
#include "mon/mon_capacity.h"
#include "mon/mon_pgindex.h"
#include "mon/mon_quorum.h"
#include "mon/mon_record.h"
#include "map/pgmap.h"
#include "map/placement.h"
#include "map/statfs.h"

struct mon_waiter {
	mon_done_cb *done;
	void *arg;
	char *status;		/* the success status */
	json_t *data;		/* the success data, or NULL */
};

/*
 * A pool created or grown in a proposal: the committer makes its PGs, in
 * the array the pool will have: pgs[seed] for seeds [from, to); the pages
 * of [0, from) are touched by the committer and filled by the loop, which
 * copies a grown pool's stats there as it applies the commit.
 */
struct mon_newpgs {
	uint32_t pool;
	uint32_t from;		/* first new seed (0 for a new pool) */
	uint32_t to;		/* new pg_num */
	struct pg_stat *pgs;	/* to stats, made by the committer */
};

/*
 * A proposal's PG arrays (pgs, pg_dead, index), empty.  An applied proposal
 * leaves them to the next one (mon->spare_pgs), so that steady reports
 * neither regrow, rehash nor fault in tens of megabytes per commit on the
 * loop thread.  Unused for a second (the reports stopped), they are freed.
 */
struct mon_pgbufs {
	struct pg_stat *pgs;
	uint8_t *pg_dead;
	size_t cappgs;
	struct mon_pgindex index;	/* all keys 0 */
	int64_t kept_mono;
};

/*
 * A pending proposal that cannot be sealed (a commit in flight) takes
 * changes past propose_max_ops, at which it is sealed when it can, up to
 * half as many again, what reports bring during one commit: from
 * MON_PENDING_HOLD on the daemon reads no PG reports (mon_reports_full()).
 * A proposal's PG arrays are sized for MON_PENDING_MAX, not for every PG
 * of the map: the report read last may cross MON_PENDING_HOLD by its own
 * size, and only one of more than propose_max_ops / 2 PGs makes them grow.
 * Holding at propose_max_ops itself cut ingest by about a third at
 * 221,568 PGs on LMDB (smaller commits dirty nearly as many pages:
 * BENCHMARKS.md, "Scale: 1,048,576 PGs").
 */
#define MON_PENDING_HOLD(m) ((m)->params.propose_max_ops * 3 / 2)
#define MON_PENDING_MAX(m) (2 * (m)->params.propose_max_ops)

/* An auth entity's change in a proposal: put (e), or removed (e.name). */
struct mon_auth_change {
	struct mon_auth_entity e;
	int removed;
};

struct mon_proposal {
	uint64_t seq;
	size_t ops;			/* changes staged (for propose_max_ops) */

	int has_inc;
	int crush_changed; /* inc gets mon->work's hierarchy */
	struct osdmap_inc inc;
	struct osdmap osdmap;		/* the full map of inc.epoch (at seal) */

	struct pg_stat *pgs;		/* PG updates, latest wins */
	size_t npgs;
	size_t cappgs;
	size_t pgs_hint;		/* cappgs past 256: the PGs of the map,
					   at most MON_PENDING_MAX */
	uint8_t *pg_dead;		/* pgs[i] dropped (pool deleted) */
	struct mon_pgindex index;

	struct mon_newpgs *newpgs;
	size_t nnewpgs;
	uint32_t *removed_pools;
	size_t nremoved_pools;

	struct mon_log_entry *log;
	size_t nlog;

	/* The health mutes after this proposal, the whole set, if changed. */
	int has_mutes;
	struct mon_mute *mutes;
	size_t nmutes;
	struct mon_auth_change *auth; /* at most one per entity */
	size_t nauth;
	/* The monmap after this proposal, when a monitor is added or removed. */
	int has_monmap;
	struct monmap monmap;
	/*
	 * OSD capacities changed since the last commit (mon_capacity.h),
	 * taken at seal; capacity_due: made by the capacity timer alone,
	 * to carry them when nothing else commits.
	 */
	struct mon_capacity_change *statfs;
	size_t nstatfs;
	int capacity_due;
	/*
	 * The leader's view of the quorum (mon_quorum.h), taken at seal when
	 * it changed; view_due: a commit made to carry it alone.
	 */
	int has_view;
	struct mon_quorum_view view;
	int view_due;

	struct mon_waiter *waiters;
	size_t nwaiters;

	/* Set at seal. */
	uint64_t pgmap_version;		/* 0: no PG change */
	struct mon_rec rec;		/* the commit record after this one */
	uint32_t trim_osdmap_to;	/* delete epochs [old first, to) */
	uint64_t trim_pgmap_to;
	uint64_t trim_log_to;
	int64_t sealed_mono;

	/* Set by the committer thread. */
	int rc;				/* 0 or a STORE_E_* */
	char *cause;
	int64_t commit_us;
	size_t batch_ops;
	size_t batch_bytes;
	int want_pg_text;		/* write pg_text (set at seal) */
	struct enc_buf pg_text;		/* the changed PGs as JSON text */

	/* With several monitors (mon_quorum.c); 0 with one. */
	int replicating;     /* sealed, its entry not yet committed */
	int foreign;	     /* decoded from an entry of another leader */
	uint64_t raft_index; /* the committed entry it applies */
	uint64_t raft_term;
};

#define MON_HEALTH_OK 0
#define MON_HEALTH_WARN 1
#define MON_HEALTH_ERR 2

/*
 * A failure report: reporter cannot reach the OSD it is kept for, and says
 * so since failed_since_mono (its arrival less the failed_for it gave); it
 * last came at arrived_mono (reporters repeat them while the failure lasts).
 */
struct mon_failure_report {
	int32_t reporter;
	int64_t failed_since_mono;
	int64_t arrived_mono;
};

/* Why an automatic out was last held back (logged once per OSD). */
#define MON_OUT_HELD_NOOUT 1
#define MON_OUT_HELD_RATIO 2

/*
 * What the monitor knows of an OSD between commits, in memory only, as
 * Ceph's monitor keeps it: when the OSD last sent a beacon or a PG report
 * (or booted), the capacity its last beacon carried, the failure reports
 * about it and why it was last marked down.  A restart starts every clock
 * afresh (mapmond(8), "LIVENESS"); the capacity alone is committed and
 * loaded at start (mon_capacity.h).  mon->live[id], grown as ids report.
 */
struct mon_osd_live {
	int64_t last_report_mono; /* 0: nothing since the start */
	int64_t last_report;	  /* the same, wall clock, us */
	int has_statfs;
	struct statfs_osd statfs; /* of the last beacon that had one */
	/*
	 * The capacity as committed (replicated, and in the store's "S"
	 * record): what every monitor has.  statfs is newer only on the
	 * leader, for an OSD whose beacon changed it since (cap_dirty, and
	 * listed in mon->cap_dirty until the next seal takes it).
	 */
	int has_committed;
	struct statfs_osd committed;
	uint8_t cap_dirty;

	/* Failure reports about this OSD, one per reporter (mon_live.c). */
	struct mon_failure_report *reports;
	uint32_t nreports;
	uint32_t capreports;
	uint8_t failing;  /* listed in mon->failing */
	uint8_t out_held; /* MON_OUT_HELD_*, or 0 */
	char *down_why;	  /* why it was last marked down, or NULL */
};

/* A raised health check (mon_health.c). */
struct mon_health_check {
	char code[MON_MUTE_CODE_MAX];
	int severity;			/* MON_HEALTH_WARN or _ERR */
	char *summary;
	uint64_t count;
	char **detail;
	size_t ndetail;
	int64_t logged_mono; /* mon->checks: when last logged */
};

struct mon {
	struct event_base *base;
	struct store *store;
	struct mon_params params;

	struct monmap monmap;
	struct osdmap osdmap;		/* committed */
	struct osdmap_place *placement; /* of the committed osdmap */
	struct pgmap pgmap;		/* committed */
	struct mon_rec rec;		/* committed */

	struct osdmap work;		/* committed + inflight + pending */
	struct mon_proposal *pending;
	struct mon_proposal *inflight;
	/* mon_stop() ran: nothing more is sealed. */
	int stopped;
	uint64_t next_seq;
	struct event *propose_timer;

	/* The committer thread; its mailbox is under lock. */
	pthread_t thread;
	int thread_started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mon_proposal *to_commit;	/* mailbox: handed to the thread */
	struct mon_proposal *committed;	/* mailbox: handed back */
	int stopping;			/* mailbox: the thread is to end */
	void **garbage;			/* mailbox: arrays for it to free */
	size_t ngarbage;
	int wake_fd;			/* eventfd: the thread -> the loop */
	struct event *wake_event;
	struct mon_pgbufs spare_pgs;	/* the last applied proposal's */

	/* A commit applied in slices (mon_apply.c). */
	struct mon_proposal *applying;
	int apply_stage;		/* what is being applied */
	size_t apply_item;		/* which pool of that stage */
	size_t apply_next;		/* its next PG */
	struct pgmap_pool *apply_gone;	/* pools removed, still counted */
	size_t napply_gone;
	struct pgmap apply_tally;	/* its figures, merged at the end */
	struct event *apply_timer;

	/* Store failure. */
	int store_error;		/* the last commit failed */
	char *store_error_text;
	struct event *retry_timer;
	int64_t retry_ms;

	/* Timers. */
	struct event *tick;
	int64_t start_mono;
	int64_t disk_checked_mono;
	uint64_t disk_free_pct;
	uint64_t disk_bytes;
	int disk_known;

	/* Health: the checks last committed to the cluster log. */
	struct mon_health_check *checks;
	size_t nchecks;
	/* The committed health mutes (mon_mute.c). */
	struct mon_mute *mutes;
	size_t nmutes;

	/* Cluster log: the newest log_max_entries, oldest first (a ring). */
	struct mon_log_entry *clog;
	size_t clog_cap;
	size_t clog_start;
	size_t clog_n;
	uint64_t clog_next_seq;

	mon_notify_cb *notify;
	void *notify_arg;
	mon_room_cb *room; /* mon_set_room(): told at each seal */
	void *room_arg;

	struct mon_perf perf;
	int want_pg_text;		/* mon_want_pg_text() */

	struct mon_osd_live *live; /* by OSD id, nlive of them */
	uint32_t nlive;

	/* The committed auth entities, in Ceph's order (mon_auth.c). */
	struct mon_auth_entity *auth;
	size_t nauth;
	/* The entities whose key the commit being applied ended (notify). */
	char **auth_ended;
	size_t nauth_ended;

	/* Liveness (mon_live.c). */
	int32_t *failing; /* the OSDs with failure reports */
	size_t nfailing;
	size_t capfailing;
	struct event *failure_timer; /* a report passes the grace */
	int64_t failure_due_mono;    /* when it is armed for (0: not) */
	int64_t report_check_mono;   /* no beacon timeout before this */
	int64_t out_check;	     /* no automatic out before this (wall) */
	struct mon_capacity cap;     /* mon_capacity.h */
	/* OSDs whose capacity changed since the last seal (mon_capacity.c). */
	int32_t *cap_dirty;
	size_t ncap_dirty;
	size_t capcap_dirty;
	struct event *cap_timer; /* carries them when nothing else commits */

	struct mon_quorum *quorum; /* several monitors: mon_quorum.c */
};

/*
 * mon_osd.c: the live record of OSD id (0 .. OSDMAP_MAX_OSD - 1), grown to
 * hold it (zeroed when new); never NULL.
 */
struct mon_osd_live *mon_osd_live(struct mon *, int32_t id);

/* event_free(*ev) when it was made; *ev is then NULL. */
static inline void
mon_event_free(struct event **ev)
{
	if (*ev != NULL)
		event_free(*ev);
	*ev = NULL;
}

/*
 * mon_proposal.c: a proposal's life.  Made, recycled and freed on the loop;
 * the lookups only read and also run on the committer thread.
 */
/* A new pending proposal, taking the kept PG arrays if there are some. */
struct mon_proposal *mon_proposal_new(struct mon *);
/* Free p and all it holds (NULL: nothing). */
/*
 * The end of a scan of the store at start: frees it, and when rc (the
 * iterator's last) says it failed, -1 with *cause naming the store and
 * what was being read ("the auth entities"); else 0.
 */
int mon_scan_end(struct mon *, struct store_iter *it, int rc, const char *what,
    char **cause);
void mon_proposal_free(struct mon_proposal *p);
/*
 * Keep p's PG arrays for the next proposal when they are larger than those
 * kept, and free the rest of p; the arrays not kept go to the committer
 * thread to free (mon_apply_garbage()).
 */
void mon_proposal_recycle(struct mon *, struct mon_proposal *p);
/* On the tick: kept arrays nobody took for a second go to be freed. */
void mon_proposal_spare_trim(struct mon *, int64_t mono);
/* Free the kept arrays (at shutdown). */
void mon_proposal_spare_free(struct mon *);
/* Whether p changes nothing (it may still have writers to answer). */
int mon_proposal_empty(const struct mon_proposal *p);
/* p's stat of PG id (not one dropped with its pool), or NULL; p may be NULL. */
const struct pg_stat *mon_proposal_pg(const struct mon_proposal *p,
    struct pg_id id);
/* Whether the commit of p makes PG id (a new pool's, or a grown one's). */
int mon_proposal_creates(const struct mon_proposal *p, struct pg_id id);

/* mon_stage.c: staging and sealing, on the loop. */
/* The epoch the pending changes will make. */
uint32_t mon_stage_next_epoch(const struct mon *);
/*
 * Answer done(arg, 0, status, data) once the pending changes are committed
 * (data, stolen, may be NULL), or with the error of their commit.
 */
void mon_stage_done(struct mon *, mon_done_cb *done, void *arg,
    const char *status, json_t *data);
/*
 * An idempotent answer (rc 0, status; data stolen, may be NULL) that the
 * working state makes: the change asked for is made already.  At once
 * with one monitor, or on the ready leader when nothing is staged or on
 * its way (the working state is the newest committed one); else with the
 * commit of what is, as mon_stage_done(): with several monitors what is
 * staged may yet be dropped (a leader losing its lead), and a monitor
 * that is not the ready leader may be behind; it answers EAGAIN as for
 * any write, and the answer is never an acknowledgement of a change
 * that is never made or already replaced.
 */
void mon_stage_noop(struct mon *, mon_done_cb *done, void *arg,
    const char *status, json_t *data);
/* Stage a change in the pending proposal and in mon->work. */
void mon_stage_osd(struct mon *, const struct osdmap_osd *);
void mon_stage_remove_osd(struct mon *, int32_t id);
void mon_stage_pool(struct mon *, const struct osdmap_pool *);
/* Also drops what the pending proposal staged for the pool. */
void mon_stage_remove_pool(struct mon *, uint32_t id);
void mon_stage_flags(struct mon *, uint32_t flags);
/* New full ratios (each < 0: unchanged). */
void mon_stage_ratios(struct mon *, double full, double backfillfull,
    double nearfull);
/* Make PGs [from, to) of pool (the committer fills their stats). */
void mon_stage_newpgs(struct mon *, uint32_t pool, uint32_t from, uint32_t to);
/* A PG's new stat, replacing what the pending proposal holds for it. */
void mon_stage_pg(struct mon *, const struct pg_stat *);
/* The monmap after the pending changes (a monitor added or removed). */
void mon_stage_monmap(struct mon *, const struct monmap *mm);
/* The health mutes v[0..n) (copied) as the whole set after the pending. */
void mon_stage_mutes(struct mon *, const struct mon_mute *v, size_t n);
/* A cluster log entry, committed with the pending changes. */
void mon_stage_log(struct mon *, int severity, const char *fmt, ...)
    printflike(3, 4);
/* A PG's current stat: pending ?: inflight ?: applying ?: committed. */
const struct pg_stat *mon_stage_pg_view(struct mon *, struct pg_id);
/*
 * Evaluate the health and stage a cluster log line for every check that
 * appeared, changed (its severity, or its summary: once in
 * MON_HEALTH_LOG_PERIOD_US at most, as Ceph's mon_health_log_update_period)
 * or cleared (Ceph's "Health check failed", "update", "cleared" lines);
 * the checks evaluated become those last logged (mon->checks).  The
 * mutes are looked at first (mon_mute_tick()).  After every commit, and
 * on the tick.
 */
#define MON_HEALTH_LOG_PERIOD_US (5 * 1000000LL)
void mon_stage_health(struct mon *);
/*
 * Seal the pending proposal when it is due and nothing is in flight or
 * applying, else arm the timer that will; after a failed commit, arm the
 * retry timer instead.
 */
void mon_stage_propose(struct mon *);
/*
 * The capacity timer (mon_capacity.c): a commit for the capacities that
 * changed, when nothing else commits; it seals as any other.
 */
void mon_stage_capacity(struct mon *);
/*
 * The leader's view of the quorum changed (mon_quorum.c): a commit to
 * carry it, sealed as any other.
 */
void mon_stage_view(struct mon *);
/* Make and free the staging's timers; -1 with *cause when they cannot be. */
int mon_stage_init(struct mon *, char **cause);
void mon_stage_clear(struct mon *);

/* mon.c: lower the calling worker thread's priority, named thread. */
void mon_renice_thread(const char *thread);

/* mon_committer.c: the committer thread's body (pthread_create(m)). */
void *mon_committer_main(void *m);

/* mon_apply.c: taking commits back, on the loop. */
/*
 * Hand ptr (malloc'd; NULL: nothing) to the committer thread to free: the
 * large arrays the loop is done with (a munmap of tens of megabytes takes
 * milliseconds).  What the thread has not freed when it ends is freed by
 * mon_apply_clear().
 */
void mon_apply_garbage(struct mon *, void *ptr);
/*
 * Make the eventfd the committer wakes the loop by, and the apply's timer;
 * -1 with *cause when they cannot be made.  Before the thread starts.
 */
int mon_apply_init(struct mon *, char **cause);
/*
 * At shutdown, with the committer running: apply or undo the commit in
 * flight, commit what is pending (one try a proposal when the store keeps
 * failing, none sealed within a second of the deadline), answer what is
 * left -ESHUTDOWN and free the kept arrays; 0.  By deadline (stamp_mono();
 * INT64_MAX: none): -1 when the commit in flight is still being written
 * then; it is left in flight (a later call waits for it again) and what
 * is pending is answered -ESHUTDOWN.
 */
int mon_apply_drain(struct mon *, int64_t deadline);
/* Free what mon_apply_init() made (any part of it), and the garbage left. */
void mon_apply_clear(struct mon *);

/* mon_osd.c: timers' work on OSDs and PGs. */
void mon_mark_stale(struct mon *, int64_t now_mono);
void mon_stale_on_down(struct mon *, int32_t osd);
/*
 * Stage cur (an up OSD of the working map) down, and its primary PGs
 * stale; why (copied) is what OSD_DOWN's detail says of it.  The caller
 * stages the cluster log line.
 */
void mon_osd_mark_down(struct mon *, const struct osdmap_osd *cur,
    const char *why);

/*
 * mon_live.c: who is alive (mapmond(8), "LIVENESS"): failure reports, the
 * beacon timeout, automatic out.  On the loop.
 */
/* Make the failure timer; -1 with *cause when it cannot be made. */
int mon_live_init(struct mon *, char **cause);
/* Stop the timer (mon_stop); free it and every record (mon_free). */
void mon_live_stop(struct mon *);
void mon_live_clear(struct mon *);
/*
 * Reporter's report that target has failed since failed_since_mono,
 * arrived now_mono (both OSDs exist and are up), replacing its last one;
 * then target is checked (mon_live_check_one()).  Returns what the check
 * found.
 */
struct mon_live_count {
	uint32_t reports; /* live reports held */
	/*
	 * Of them, failed for longer than the grace, counted once per bucket
	 * of [mon] osd_reporter_subtree_level (what osd_min_down_reporters
	 * is compared with).
	 */
	uint32_t counted;
	int marked_down; /* the check staged target down */
	int held;	 /* enough, but nodown keeps it up */
};
void mon_live_report(struct mon *, int32_t target, int32_t reporter,
    int64_t failed_since_mono, int64_t now_mono, struct mon_live_count *out);
/* Withdraw reporter's report of target; whether there was one. */
int mon_live_cancel(struct mon *, int32_t target, int32_t reporter,
    struct mon_live_count *out);
/*
 * The working map changed OSD was into now (was NULL: it is new; now
 * NULL: it is removed), from mon_stage_osd() and mon_stage_remove_osd():
 * reports go with a reporter or target marked down or removed, a boot
 * clears those about the OSD and counts as a report, and the timers look
 * again.
 */
void mon_live_staged(struct mon *, const struct osdmap_osd *was,
    const struct osdmap_osd *now);
/* The flags or the parameters changed: every rule is looked at again. */
void mon_live_poke(struct mon *);
/* The tick: failure reports, beacon timeouts, automatic out. */
void mon_live_tick(struct mon *, int64_t now_mono, int64_t now);
/*
 * The reports about OSD id that count now (failed longer than the grace,
 * repeated within it, from an up reporter), for the health's text: "osd.2,
 * osd.9 for 21.3 s" into buf; how many count, once per bucket of [mon]
 * osd_reporter_subtree_level.  Reads only.
 */
uint32_t mon_live_describe(const struct mon *, int32_t id, int64_t now_mono,
    char *buf, size_t len);

/*
 * mon_health.c: state in, checks out.  Reads the monitor, changes nothing
 * (but mon_disk_check()).
 */
/*
 * The checks raised now, in a new array (*n of them; mon_health_free()).
 * With detail, the PG lines too: they are read from mon->pgmap as it is,
 * so call mon_settle() first for counts and lines of one commit.
 */
void mon_health_eval(const struct mon *, int detail,
    struct mon_health_check **out, size_t *n);
void mon_health_free(struct mon_health_check *, size_t n);
/* The worst severity of v (MON_HEALTH_OK when n is 0). */
int mon_health_worst(const struct mon_health_check *v, size_t n);
/* The check of that code in v, or NULL. */
const struct mon_health_check *mon_health_find(
    const struct mon_health_check *v, size_t n, const char *code);
/*
 * {"status": .., "checks": {CODE: {.., "muted": B}}, "mutes": [..]},
 * Ceph's shape (a new reference): each check's "detail" only with detail,
 * the status the worst of the checks not muted (mutes[0..nmutes)).
 */
json_t *mon_health_to_json(const struct mon_health_check *v, size_t n,
    const struct mon_mute *mutes, size_t nmutes, int detail);
/* The worst severity of the checks of v that no mute of m mutes. */
int mon_health_worst_unmuted(const struct mon *,
    const struct mon_health_check *v, size_t n);
/* Refresh the store's free space and size that the disk checks read. */
void mon_disk_check(struct mon *);

/*
 * mon_mute.c: the health mutes (`health mute', as Ceph's HealthMonitor).
 * Read at cold start (absent: none), staged as a whole set with the
 * pending proposal, committed under KEYS_MUTES, taken by the apply.
 */
/* The mutes as the pending changes leave them (borrowed, until staging). */
void mon_mute_view(const struct mon *, const struct mon_mute **v, size_t *n);
/* The mute of code in v[0..n), or NULL. */
const struct mon_mute *mon_mute_find(const struct mon_mute *v, size_t n,
    const char *code);
/* Free v[0..n) and each summary. */
void mon_mute_free(struct mon_mute *v, size_t n);
/* Load the committed mutes at cold start: 0, or -1 with *cause. */
int mon_mute_load(struct mon *, char **cause);
/*
 * On the tick: end the mutes whose TTL passed, whose check cleared, grew
 * or changed (non-sticky ones), with Ceph's cluster log lines; a count
 * that fell becomes the mute's.  now_checks are the checks raised now.
 */
void mon_mute_tick(struct mon *, const struct mon_health_check *now_checks,
    size_t n, int64_t now);

/*
 * mon_stage.c: an auth entity's change (e copied; removed: only its name
 * counts), replacing what the pending proposal holds for it.
 */
void mon_stage_auth(struct mon *, const struct mon_auth_entity *e, int removed);

/* mon_auth.c: the entities' life in the core. */
/*
 * The entity named name as the next writes see it: pending ?: in flight
 * ?: applying ?: committed; NULL when it does not exist there (removed
 * counts as not existing).
 */
const struct mon_auth_entity *mon_auth_view(const struct mon *,
    const char *name);
/* Copy src into dst (all of it, freshly allocated). */
void mon_auth_entity_copy(struct mon_auth_entity *dst,
    const struct mon_auth_entity *src);
/* Fill e's allow and osd from its name and caps (both checked before). */
void mon_auth_entity_derive(struct mon_auth_entity *e);
/*
 * p is durable: its auth changes go into the committed entities, and the
 * names of those it removes or gives another key into m->auth_ended.
 */
void mon_auth_apply(struct mon *, const struct mon_proposal *p);
/*
 * After a reload: into m->auth_ended, each entity of old[0..nold) that is
 * gone or has another key now; then old is freed.
 */
void mon_auth_ended_since(struct mon *, struct mon_auth_entity *old,
    size_t nold);
/* Forget m->auth_ended (once the notify has seen it). */
void mon_auth_ended_clear(struct mon *);
/* Cold start: every "A" record; -1 with *cause naming a bad one. */
int mon_auth_load(struct mon *, char **cause);
/* Free the committed entities. */
void mon_auth_clear(struct mon *);

/* mon_crush.c: the placement hierarchy (mapmond(8), PLACEMENT). */
/* A location-less OSD's host: "host-ID". */
#define MON_CRUSH_HOST_PREFIX "host-"
/* "host=host-ID" into buf. */
void mon_crush_host_of(int32_t id, char *buf, size_t len);
/*
 * The working map's hierarchy, to change in place: copied first when it is
 * shared (made, the default, when the map has none).  Stage the change
 * with mon_stage_crush() once made.
 */
struct crush *mon_crush_edit(struct mon *);
/*
 * The working map's hierarchy changed: the pending proposal carries it
 * whole, and each OSD's crush_weight follows its weight in it.
 */
void mon_stage_crush(struct mon *);
/*
 * The same when only OSD id's place or weight in the hierarchy changed
 * (a boot's create-or-move): only its crush_weight is compared, not every
 * OSD's.
 */
void mon_stage_crush_osd(struct mon *, int32_t id);
/* mon_stage.c: the pending proposal's epoch carries the hierarchy. */
void mon_stage_crush_changed(struct mon *);
/*
 * At open, after mon_capacity_open(): a map without a hierarchy gets one
 * in the next commit (each OSD under root default at a host of its own),
 * and the cluster log says how many PGs it moves.
 */
void mon_crush_open(struct mon *);
/*
 * A booting OSD's place (Ceph's osd_crush_update_on_start): at loc (nloc
 * "TYPE=NAME" strings) when given, created or moved there; without one, a
 * new OSD at its own host (mon_crush_host_of()), one in the hierarchy left
 * where it is.  A new OSD weighs its store's size in TiB when a beacon
 * said it, else 1.  0 (staged; *note a line for the log, or NULL when
 * nothing changed), or a negative errno with *cause (nothing staged).
 */
int mon_crush_boot(struct mon *, int32_t id, const char *const *loc,
    size_t nloc, char **note, char **cause);

/*
 * An OSD's location in hierarchy c (NULL: none), Ceph's crush_location:
 * {TYPE: NAME} of each bucket above it; empty when it is not there.
 */
json_t *mon_crush_location_json(const struct crush *c, int32_t id);

/*
 * mon_quorum.c: several monitors.  Whether sealing is held (this monitor
 * is not the leader, or not ready); 0 with one monitor.
 */
int mon_quorum_holds(struct mon *);
/*
 * Instead of handing p to the committer: encode it and hand it to the
 * replication; 1 when it did so (or refused p, answering its writers), 0
 * with one monitor.
 */
int mon_quorum_seal(struct mon *, struct mon_proposal *p);
/* Between commits: start the next committed entry; 1 if one started. */
int mon_quorum_pump(struct mon *);
/* p is applied: its index is the applied one, its view the leader's. */
void mon_quorum_applied_one(struct mon *, const struct mon_proposal *p);
/* p will not commit: the view it carried waits for the next commit. */
void mon_quorum_view_unseal(struct mon *, const struct mon_proposal *p);
/* The committer: the "Q" record of p into enc (p->raft_index != 0). */
void mon_quorum_record_encode(const struct mon_proposal *p,
    struct enc_buf *enc);
void mon_quorum_clear(struct mon *);
/*
 * At shutdown: nothing more is sealed; what replicates is answered
 * -ETIMEDOUT (outcome unknown), what is pending -ESHUTDOWN.
 */
void mon_quorum_stop(struct mon *);
/* `status': its quorum keys from the view (several monitors only). */
void mon_quorum_status(const struct mon *, json_t *st);
/* Make PG st part of p (mon_stage.c). */
void mon_stage_put_pg(struct mon_proposal *p, const struct pg_stat *st);

/* mon_clog.c */
void mon_clog_append(struct mon *, const struct mon_log_entry *);
void mon_clog_clear(struct mon *);
const char *mon_log_severity_name(int);

#endif /* MON_PRIV_H */
