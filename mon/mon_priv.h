/*
 * mon_priv.h: the monitor's inside, shared by mon/mon*.c only.
 *
 * Three layers of state:
 *   committed  mon->osdmap, mon->pgmap, mon->rec: what the store holds and
 *              what every read answers from;
 *   inflight   the sealed proposal the committer thread is writing (at most
 *              one); immutable while it is written;
 *   pending    the proposal being filled by new writes.
 * Between committed and inflight, a commit of many PG updates may be
 * applying: written, its PGs copied into mon->pgmap a slice per loop turn,
 * not yet seen (mon_apply_sliced() in mon_propose.c); single-PG readers of
 * mon->pgmap call mon_settle() first.
 * mon->work is the osdmap as committed + inflight + pending: writes are
 * validated against it.  A PG's current view is pending ?: inflight ?:
 * applying ?: committed (mon_pg_view).
 */
#ifndef MON_PRIV_H
#define MON_PRIV_H

#include <pthread.h>

#include "common/enc.h"
#include "mon/mon.h"
#include "mon/mon_record.h"
#include "mon/pgmap.h"
#include "mon/placement.h"

struct mon_waiter {
	mon_done_cb *done;
	void *arg;
	char *status;		/* the success status */
	json_t *data;		/* the success data, or NULL */
};

/* A pool created or grown in a proposal: the committer makes its PGs. */
struct mon_newpgs {
	uint32_t pool;
	uint32_t from;		/* first new seed (0 for a new pool) */
	uint32_t to;		/* new pg_num */
	struct pg_stat *pgs;	/* to - from stats, made by the committer */
};

/* A small open-addressing map of PG id -> index into a proposal's pgs. */
struct mon_pgindex {
	uint64_t *keys;		/* pool << 32 | seed, + 1 (0 = empty) */
	uint32_t *vals;
	size_t cap;		/* power of two */
	size_t n;
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

struct mon_proposal {
	uint64_t seq;
	size_t ops;			/* changes staged (for propose_max_ops) */

	int has_inc;
	struct osdmap_inc inc;
	struct osdmap osdmap;		/* the full map of inc.epoch (at seal) */

	struct pg_stat *pgs;		/* PG updates, latest wins */
	size_t npgs;
	size_t cappgs;
	size_t pgs_hint;		/* the PGs of the map: cappgs past 256 */
	uint8_t *pg_dead;		/* pgs[i] dropped (pool deleted) */
	struct mon_pgindex index;

	struct mon_newpgs *newpgs;
	size_t nnewpgs;
	uint32_t *removed_pools;
	size_t nremoved_pools;

	struct mon_log_entry *log;
	size_t nlog;

	struct mon_waiter *waiters;
	size_t nwaiters;

	/* Set at seal. */
	uint64_t pgmap_version;		/* 0: no PG change */
	struct mon_rec rec;		/* the commit record after this one */
	uint32_t trim_osdmap_to;	/* delete epochs [old first, to) */
	uint64_t trim_pgmap_to;
	uint64_t trim_log_to;
	int64_t sealed_mono;

	/* Set by the committer. */
	int rc;				/* 0 or a STORE_E_* */
	char *cause;
	int64_t commit_us;
	size_t batch_ops;
	size_t batch_bytes;
	size_t max_value;
	int want_pg_text;		/* write pg_text (set at seal) */
	struct enc_buf pg_text;		/* the changed PGs as JSON text */
};

struct mon_health_check {
	char code[24];
	int severity;			/* 1 WARN, 2 ERR */
	char *summary;
	uint64_t count;
	char **detail;
	size_t ndetail;
};

struct mon {
	struct event_base *base;
	struct store *store;
	struct mon_params params;

	struct monmap monmap;
	struct osdmap osdmap;		/* committed */
	struct placement *placement;	/* of the committed osdmap */
	struct pgmap pgmap;		/* committed */
	struct mon_rec rec;		/* committed */

	struct osdmap work;		/* committed + inflight + pending */
	struct mon_proposal *pending;
	struct mon_proposal *inflight;
	uint64_t next_seq;
	struct event *propose_timer;

	/* The committer thread. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mon_proposal *to_commit;	/* handed to the thread */
	struct mon_proposal *committed;	/* handed back */
	struct mon_pgbufs spare_pgs;	/* the last applied proposal's */

	/* A commit applied in slices (mon_apply_sliced()). */
	struct mon_proposal *applying;
	size_t apply_next;		/* its next PG */
	struct pgmap apply_tally;	/* its figures, merged at the end */
	struct event *apply_timer;
	int stopping;
	int wake_fd;			/* eventfd: the thread -> the loop */
	struct event *wake_event;

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
	int health_dirty;

	/* Cluster log: the newest log_max_entries, oldest first (a ring). */
	struct mon_log_entry *clog;
	size_t clog_cap;
	size_t clog_start;
	size_t clog_n;
	uint64_t clog_next_seq;

	mon_notify_cb *notify;
	void *notify_arg;

	struct mon_perf perf;
	struct enc_buf enc;		/* the committer's encoding buffer */
	struct store_batch *batch;	/* the committer's batch */
	int want_pg_text;		/* mon_want_pg_text(), on the loop */
	struct pg_text pg_text;		/* the committer's JSON writer */
};

/* mon_propose.c */
struct mon_proposal *mon_pending(struct mon *);
/* The epoch the pending changes will make. */
uint32_t mon_next_epoch(const struct mon *);
void mon_stage_done(struct mon *, mon_done_cb *, void *, const char *status,
    json_t *data);
void mon_stage_osd(struct mon *, const struct osdmap_osd *);
void mon_stage_remove_osd(struct mon *, int32_t id);
void mon_stage_pool(struct mon *, const struct osdmap_pool *);
void mon_stage_remove_pool(struct mon *, uint32_t id);
void mon_stage_flags(struct mon *, uint32_t flags);
void mon_stage_newpgs(struct mon *, uint32_t pool, uint32_t from, uint32_t to);
void mon_stage_pg(struct mon *, const struct pg_stat *);
void mon_stage_log(struct mon *, int severity, const char *fmt, ...)
    printflike(3, 4);
const struct pg_stat *mon_pg_view(struct mon *, struct pg_id);
void mon_propose_maybe(struct mon *);
int mon_committer_start(struct mon *, char **cause);
void mon_committer_stop(struct mon *);
void mon_proposal_free(struct mon_proposal *);
void mon_pgbufs_free(struct mon_pgbufs *);
void mon_spare_trim(struct mon *, int64_t mono);
void mon_fill_creating(const struct osdmap *, const struct placement *,
    uint32_t pool, uint32_t from, uint32_t to, uint32_t epoch,
    int64_t stamp, struct pg_stat *out);

/* mon_osd.c: timers' work on OSDs and PGs. */
void mon_mark_stale(struct mon *, int64_t now_mono);
void mon_auto_out(struct mon *, int64_t now);
void mon_stale_on_down(struct mon *, int32_t osd);

/* mon_health.c */
void mon_health_eval(struct mon *, struct mon_health_check **out, size_t *n);
void mon_health_eval_detail(struct mon *, int detail,
    struct mon_health_check **out, size_t *n);
void mon_health_free(struct mon_health_check *, size_t n);
void mon_health_update(struct mon *);
void mon_disk_check(struct mon *);

/* mon_clog.c */
void mon_clog_append(struct mon *, const struct mon_log_entry *);
void mon_clog_clear(struct mon *);
const char *mon_log_severity_name(int);

#endif /* MON_PRIV_H */
