/*
 * mon_apply.c: the loop's half of a commit (the pipeline's design:
 * mon_committer.c).  Woken by the committer thread, the loop takes back the
 * proposal it wrote: a durable one is applied to the committed state, a
 * slice of PGs per loop turn when it is large, then made seen; a failed one
 * is undone.  Either way its writers are answered, the health's changes
 * staged and the next proposal may seal.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/mon_priv.h"

#define MON_RETRY_MIN_MS 100
#define MON_RETRY_MAX_MS 5000
#define MON_APPLY_SLICE 1024	/* PGs applied per loop turn (~0.2 ms) */
#define MON_PREFETCH_AHEAD 8	/* PGs of a commit prefetched ahead */
/* mon_apply_drain() seals nothing this close to its deadline. */
#define MON_DRAIN_RESERVE_US 1000000

void
mon_apply_garbage(struct mon *m, void *ptr)
{
	if (ptr == NULL)
		return;
	pthread_mutex_lock(&m->lock);
	m->garbage = xreallocarray(m->garbage, m->ngarbage + 1,
	    sizeof *m->garbage);
	m->garbage[m->ngarbage++] = ptr;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

static void
mon_apply_answer(struct mon_proposal *p, int rc, const char *why)
{
	struct mon_waiter *w;
	char *status;
	size_t i;

	for (i = 0; i < p->nwaiters; i++) {
		w = &p->waiters[i];
		if (rc == 0) {
			w->done(w->arg, 0, w->status, w->data);
			w->data = NULL;
		} else {
			xasprintf(&status, "commit failed: %s", why);
			w->done(w->arg, rc, status, NULL);
			free(status);
		}
	}
}

/* What makes p's commit seen, after its PGs are in the pgmap. */
static void
mon_apply_finish(struct mon *m, struct mon_proposal *p)
{
	struct mon_commit_info info;
	size_t i;
	uint64_t bucket;

	if (p->has_inc) {
		struct osdmap tmp = m->osdmap;

		m->osdmap = p->osdmap;
		p->osdmap = tmp;
		/* Prepared again only when the hierarchy or an OSD changed. */
		if (osdmap_inc_moves_pgs(&p->osdmap, &p->inc)) {
			osdmap_place_free(m->placement);
			m->placement = osdmap_place_new(&m->osdmap);
		}
		m->perf.osdmap_epochs++;
		mon_capacity_commit(m, &p->inc);
	}
	mon_capacity_apply(m, p);
	if (p->pgmap_version != 0) {
		m->pgmap.version = p->pgmap_version;
		m->pgmap.stamp = p->rec.stamp;
	}
	for (i = 0; i < p->nlog; i++)
		mon_clog_append(m, &p->log[i]);
	if (p->has_mutes) {
		struct mon_mute *v = m->mutes;
		size_t n = m->nmutes;

		m->mutes = p->mutes;
		m->nmutes = p->nmutes;
		p->mutes = v;
		p->nmutes = n;
	}
	mon_auth_apply(m, p);
	if (p->has_monmap)
		m->monmap = p->monmap;

	if (p->trim_osdmap_to > m->rec.osdmap_first)
		m->perf.trimmed_epochs += p->trim_osdmap_to -
		    m->rec.osdmap_first;
	if (p->trim_pgmap_to > m->rec.pgmap_first)
		m->perf.trimmed_versions += p->trim_pgmap_to -
		    m->rec.pgmap_first;
	m->rec = p->rec;

	m->perf.commits++;
	m->perf.commit_us_total += (uint64_t)p->commit_us;
	if ((uint64_t)p->commit_us > m->perf.commit_us_max)
		m->perf.commit_us_max = (uint64_t)p->commit_us;
	for (bucket = 0; bucket < 15 &&
	    (uint64_t)p->commit_us >= (1000ULL << bucket); bucket++)
		;
	m->perf.commit_hist[bucket]++;
	m->perf.proposals_ops_total += p->ops;
	m->perf.pg_updates += p->npgs;

	if (m->store_error) {
		m->store_error = 0;
		free(m->store_error_text);
		m->store_error_text = NULL;
		m->retry_ms = MON_RETRY_MIN_MS;
		log_info("store commits work again (epoch %u, version %llu)",
		    m->rec.osdmap_epoch,
		    (unsigned long long)m->rec.pgmap_version);
	}

	mon_quorum_applied_one(m, p);
	mon_apply_answer(p, 0, NULL);

	if (m->notify != NULL) {
		memset(&info, 0, sizeof info);
		info.osdmap_epoch = p->has_inc ? p->inc.epoch : 0;
		info.inc = p->has_inc ? &p->inc : NULL;
		info.pgmap_version = p->pgmap_version;
		info.npgs = p->npgs;
		for (i = 0; i < p->nnewpgs; i++)
			info.npgs += p->newpgs[i].to - p->newpgs[i].from;
		info.nlog = p->nlog;
		info.log = p->log;
		info.proposal = p;
		if (p->want_pg_text) {
			info.pg_text = (const char *)p->pg_text.data;
			info.pg_text_len = p->pg_text.len;
		}
		info.auth_ended = (const char *const *)m->auth_ended;
		info.nauth_ended = m->nauth_ended;
		m->notify(m->notify_arg, &info);
	}
	mon_auth_ended_clear(m);
}

void
mon_commit_foreach_pg(struct mon *m, const struct mon_commit_info *info,
    void (*cb)(const struct pg_stat *, void *), void *arg)
{
	const struct mon_proposal *p = info->proposal;
	const struct pg_stat *st;
	size_t i, j;
	uint32_t s;

	if (p == NULL)
		return;
	for (i = 0; i < p->npgs; i++) {
		/* Created in this commit too: the loop below has it. */
		if (p->pg_dead[i] || mon_proposal_creates(p, p->pgs[i].pgid))
			continue;
		if ((st = pgmap_pg(&m->pgmap, p->pgs[i].pgid)) != NULL)
			cb(st, arg);
	}
	for (j = 0; j < p->nnewpgs; j++)
		for (s = p->newpgs[j].from; s < p->newpgs[j].to; s++)
			if ((st = pgmap_pg(&m->pgmap, (struct pg_id){
			    p->newpgs[j].pool, s })) != NULL)
				cb(st, arg);
}

static int
mon_apply_errno(int rc)
{
	switch (rc) {
	case STORE_E_NOSPC:
	case STORE_E_MAPFULL:
		return -ENOSPC;
	default:
		return -EIO;
	}
}

static void
mon_apply_undo(struct mon *m, struct mon_proposal *p)
{
	struct mon_proposal *pending;
	int rc = mon_apply_errno(p->rc);
	const char *why = p->cause ? p->cause : store_strerror(p->rc);

	/*
	 * A replicated entry is committed: it cannot be undone, only applied
	 * again, which a restart does from the applied index (mapmond(8)).
	 */
	if (p->raft_index != 0)
		fatalx("entry %llu is committed but the store refused it: "
		       "%s; stopping (a restart applies it again)",
		    (unsigned long long)p->raft_index, why);
	m->perf.commit_failures++;
	if (!m->store_error)
		m->retry_ms = MON_RETRY_MIN_MS;
	else if ((m->retry_ms *= 2) > MON_RETRY_MAX_MS)
		m->retry_ms = MON_RETRY_MAX_MS;
	m->store_error = 1;
	free(m->store_error_text);
	m->store_error_text = xstrdup(why);
	log_warnx("commit of proposal %llu failed: %s; the state stays at "
	    "epoch %u, version %llu; retrying in %lld ms",
	    (unsigned long long)p->seq, why, m->rec.osdmap_epoch,
	    (unsigned long long)m->rec.pgmap_version, (long long)m->retry_ms);

	/*
	 * What is pending was validated on top of the failed proposal: it is
	 * refused too, and the working map starts again from the committed.
	 */
	pending = m->pending;
	m->pending = NULL;
	osdmap_copy(&m->work, &m->osdmap);
	/* OSDs it marked down or out are up or in again: look again. */
	mon_live_poke(m);
	mon_apply_answer(p, rc, why);
	/* Its capacities and view are still to be written, by the next. */
	mon_capacity_unseal(m, p);
	mon_quorum_view_unseal(m, p);
	if (pending != NULL) {
		mon_apply_answer(pending, rc, why);
		mon_proposal_free(pending);
	}
}

/* After p is applied or undone: what comes next. */
static void
mon_apply_reaped(struct mon *m, struct mon_proposal *p)
{
	mon_proposal_recycle(m, p);
	mon_stage_health(m);
	mon_stage_propose(m);
}

/*
 * A commit is applied by mon_apply_slice(), in stages, MON_APPLY_SLICE PGs
 * at a time: the PGs of the pools it removes are uncounted, the pools it
 * grows copied into their larger arrays, the PGs it makes counted, and its
 * PG updates copied in.  The counts go to a tally merged by
 * mon_apply_end().  A commit of more than MON_APPLY_SLICE PGs in all is
 * applied a slice per loop turn, so that a `status' waits for one slice,
 * not for the whole commit (tens of milliseconds for a pool of 65,536 PGs
 * made, grown or removed, or 50,000 PG updates); any other is applied at
 * once, by mon_settle() right away.
 *
 * Meanwhile the commit stays invisible: the figures are those before it
 * until the tally is merged at the end, when the version moves and the
 * waiters are answered; mon_stage_pg_view() finds the applying proposal's
 * stats, so new reports are checked against them; nothing is sealed; and
 * whoever reads single PGs from the pgmap calls mon_settle() first, which
 * finishes the apply.  The pools it makes are in the pgmap from the start
 * (their PGs created, durable, as the committer made them), those it
 * removes gone, those it grows at their new size once copied; an osdmap
 * change in the commit is installed at the end with the rest.
 */
enum {
	MON_APPLY_GONE,	 /* uncount the PGs of a removed pool */
	MON_APPLY_GROW,	 /* copy a grown pool into its new array */
	MON_APPLY_COUNT, /* count the PGs the commit made */
	MON_APPLY_PGS,	 /* copy the PG updates in */
	MON_APPLY_DONE
};

/* Where a slice of at most n items from next stops, of total. */
static size_t
mon_apply_end_of(size_t next, size_t n, size_t total)
{
	return total - next > n ? next + n : total;
}

/* Whether np grows a pool of the pgmap (rather than making a new one). */
static int
mon_apply_grows(const struct mon *m, const struct mon_newpgs *np)
{
	return np->from > 0 && pgmap_pool(&m->pgmap, np->pool) != NULL;
}

/*
 * The pools p removes leave the pgmap and p's new pools join it, their
 * figures not counted yet; how many PGs the stages will go through.
 */
static size_t
mon_apply_pools(struct mon *m, struct mon_proposal *p)
{
	struct mon_newpgs *np;
	struct pgmap_pool *gp;
	size_t i, units = p->npgs;

	m->apply_gone = xcalloc(p->nremoved_pools + 1, sizeof *m->apply_gone);
	m->napply_gone = 0;
	for (i = 0; i < p->nremoved_pools; i++) {
		gp = &m->apply_gone[m->napply_gone];
		gp->id = p->removed_pools[i];
		gp->pgs = pgmap_pool_detach(&m->pgmap, gp->id, &gp->pg_num);
		if (gp->pgs == NULL)
			continue;
		m->napply_gone++;
		units += gp->pg_num;
	}
	for (i = 0; i < p->nnewpgs; i++) {
		np = &p->newpgs[i];
		if (mon_apply_grows(m, np)) {
			units += np->to;
		} else if (np->from == 0) {
			pgmap_pool_attach(&m->pgmap, np->pool, np->to, np->pgs);
			np->pgs = NULL;
			units += np->to;
		}
	}
	return units;
}

static void
mon_apply_begin(struct mon *m, struct mon_proposal *p)
{
	static const struct timeval now;
	size_t units;

	units = mon_apply_pools(m, p);
	m->applying = p;
	m->apply_stage = MON_APPLY_GONE;
	m->apply_item = 0;
	m->apply_next = 0;
	pgmap_tally_for(&m->apply_tally, &m->pgmap);
	if (units <= MON_APPLY_SLICE) {
		mon_settle(m);
		return;
	}
	m->perf.sliced_applies++;
	evtimer_add(m->apply_timer, &now);
}

/* Up to n PGs of the removed pool being uncounted; 1 when it is done. */
static int
mon_apply_gone(struct mon *m, size_t n)
{
	const struct pgmap_pool *gp = &m->apply_gone[m->apply_item];
	size_t end = mon_apply_end_of(m->apply_next, n, gp->pg_num);

	for (; m->apply_next < end; m->apply_next++)
		pgmap_tally_sub(&m->apply_tally, &gp->pgs[m->apply_next]);
	return end == gp->pg_num;
}

/*
 * Up to n of the stats a grown pool had copied into its new array (the
 * committer made the new PGs there); 1 when it is done and installed.
 */
static int
mon_apply_grow(struct mon *m, struct mon_newpgs *np, size_t n)
{
	const struct pgmap_pool *pp = pgmap_pool(&m->pgmap, np->pool);
	size_t end = mon_apply_end_of(m->apply_next, n, np->from);

	memcpy(&np->pgs[m->apply_next], &pp->pgs[m->apply_next],
	    (end - m->apply_next) * sizeof *np->pgs);
	m->apply_next = end;
	if (end < np->from)
		return 0;
	mon_apply_garbage(m,
	    pgmap_pool_replace(&m->pgmap, np->pool, np->to, np->pgs));
	np->pgs = NULL;
	return 1;
}

/* Up to n of the PGs np made counted; 1 when they all are. */
static int
mon_apply_count(struct mon *m, const struct mon_newpgs *np, size_t n)
{
	const struct pgmap_pool *pp = pgmap_pool(&m->pgmap, np->pool);
	size_t i, made = np->to - np->from, end;

	/* Neither made nor grown: nothing to count. */
	if (pp == NULL || pp->pg_num != np->to)
		return 1;
	i = (size_t)(pp - m->pgmap.pools);
	end = mon_apply_end_of(m->apply_next, n, made);
	for (; m->apply_next < end; m->apply_next++)
		pgmap_tally_add(&m->apply_tally, i,
		    &pp->pgs[np->from + m->apply_next]);
	return end == made;
}

/* Up to n PG updates copied in; 1 when they all are. */
static int
mon_apply_pgs(struct mon *m, size_t n)
{
	struct mon_proposal *p = m->applying;
	size_t i, end;

	end = mon_apply_end_of(m->apply_next, n, p->npgs);
	for (i = m->apply_next; i < end; i++) {
		/* 2.5x faster slices (BENCHMARKS.md): the misses overlap. */
		if (i + MON_PREFETCH_AHEAD < p->npgs)
			pgmap_prefetch(&m->pgmap,
			    p->pgs[i + MON_PREFETCH_AHEAD].pgid);
		if (!p->pg_dead[i])
			pgmap_replace_tally(&m->pgmap, &m->apply_tally,
			    &p->pgs[i]);
	}
	m->apply_next = end;
	return end == p->npgs;
}

/* Apply up to about n more PGs of the applying proposal; 1 when all are. */
static int
mon_apply_slice(struct mon *m, size_t n)
{
	struct mon_proposal *p = m->applying;
	size_t before, items;
	int done;

	while (m->apply_stage != MON_APPLY_DONE && n > 0) {
		if (m->apply_stage == MON_APPLY_GONE)
			items = m->napply_gone;
		else if (m->apply_stage == MON_APPLY_PGS)
			items = 1;
		else
			items = p->nnewpgs;
		if (m->apply_item == items) {
			m->apply_stage++;
			m->apply_item = 0;
			m->apply_next = 0;
			continue;
		}
		before = m->apply_next;
		switch (m->apply_stage) {
		case MON_APPLY_GONE:
			done = mon_apply_gone(m, n);
			break;
		case MON_APPLY_GROW:
			done = !mon_apply_grows(m, &p->newpgs[m->apply_item]) ||
			    mon_apply_grow(m, &p->newpgs[m->apply_item], n);
			break;
		case MON_APPLY_COUNT:
			done = mon_apply_count(m, &p->newpgs[m->apply_item], n);
			break;
		default:
			done = mon_apply_pgs(m, n);
			break;
		}
		n -= m->apply_next - before < n ? m->apply_next - before : n;
		if (done) {
			m->apply_item++;
			m->apply_next = 0;
		}
	}
	return m->apply_stage == MON_APPLY_DONE;
}

static void
mon_apply_end(struct mon *m)
{
	struct mon_proposal *p = m->applying;
	size_t i;

	evtimer_del(m->apply_timer);
	pgmap_tally_merge(&m->pgmap, &m->apply_tally);
	pgmap_clear(&m->apply_tally);
	for (i = 0; i < m->napply_gone; i++)
		mon_apply_garbage(m, m->apply_gone[i].pgs);
	free(m->apply_gone);
	m->apply_gone = NULL;
	m->napply_gone = 0;
	m->applying = NULL;
	mon_apply_finish(m, p);
	mon_apply_reaped(m, p);
}

static void
mon_apply_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	static const struct timeval now;
	struct mon *m = arg;

	(void)fd;
	(void)what;
	if (m->applying == NULL)
		return;
	if (mon_apply_slice(m, MON_APPLY_SLICE))
		mon_apply_end(m);
	else
		evtimer_add(m->apply_timer, &now);
}

void
mon_settle(struct mon *m)
{
	if (m->applying == NULL)
		return;
	mon_apply_slice(m, SIZE_MAX);
	mon_apply_end(m);
}

/* Take back what the committer finished; 1 if there was something. */
static int
mon_apply_reap(struct mon *m)
{
	struct mon_proposal *p;

	pthread_mutex_lock(&m->lock);
	p = m->committed;
	m->committed = NULL;
	pthread_mutex_unlock(&m->lock);
	if (p == NULL)
		return 0;
	m->inflight = NULL;
	if (p->rc == 0) {
		mon_apply_begin(m, p);	/* mon_apply_reaped() at its end */
		return 1;
	}
	mon_apply_undo(m, p);
	mon_apply_reaped(m, p);
	return 1;
}

static void
mon_apply_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof n) == -1 && errno != EAGAIN)
		log_warn("committer eventfd read");
	mon_apply_reap(m);
}

int
mon_apply_init(struct mon *m, char **cause)
{
	m->retry_ms = MON_RETRY_MIN_MS;
	if ((m->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1) {
		xasprintf(cause, "eventfd: %s", strerror(errno));
		return -1;
	}
	m->wake_event = event_new(m->base, m->wake_fd, EV_READ | EV_PERSIST,
	    mon_apply_wake_cb, m);
	m->apply_timer = evtimer_new(m->base, mon_apply_timer_cb, m);
	if (m->wake_event == NULL || m->apply_timer == NULL ||
	    event_add(m->wake_event, NULL) == -1) {
		xasprintf(cause, "cannot set up the committer's events");
		return -1;
	}
	return 0;
}

/*
 * Wait (on the loop thread, at shutdown) for the commit in flight, until
 * deadline (stamp_mono(); INT64_MAX: for as long as it takes), and take it
 * back; -1 when it is still being written at the deadline.
 */
static int
mon_apply_wait_inflight(struct mon *m, int64_t deadline)
{
	struct timespec ts;
	int rc = 0;

	ts.tv_sec = (time_t)(deadline / 1000000);
	ts.tv_nsec = (long)(deadline % 1000000) * 1000;
	pthread_mutex_lock(&m->lock);
	while (m->committed == NULL && rc != ETIMEDOUT)
		rc = deadline == INT64_MAX ?
		    pthread_cond_wait(&m->cond, &m->lock) :
		    pthread_cond_timedwait(&m->cond, &m->lock, &ts);
	pthread_mutex_unlock(&m->lock);
	if (!mon_apply_reap(m))
		return -1;
	mon_settle(m);
	return 0;
}

/* At shutdown: what is pending will not be committed; say so. */
static void
mon_apply_refuse_pending(struct mon *m)
{
	if (m->pending == NULL)
		return;
	mon_apply_answer(m->pending, -ESHUTDOWN, "the monitor is stopping");
	mon_proposal_free(m->pending);
	m->pending = NULL;
}

int
mon_apply_drain(struct mon *m, int64_t deadline)
{
	int64_t seal_by = INT64_MAX;
	int rounds;

	if (deadline != INT64_MAX)
		seal_by = deadline - MON_DRAIN_RESERVE_US;
	/*
	 * Finish the commit in progress and what is pending; a store that
	 * keeps failing gets one try per proposal.  No proposal is sealed
	 * with less than MON_DRAIN_RESERVE_US left: what is pending then is
	 * refused, not committed half-way to the deadline.
	 */
	for (rounds = 0; rounds < 4; rounds++) {
		mon_settle(m);
		if (m->inflight != NULL &&
		    mon_apply_wait_inflight(m, deadline) == -1)
			goto late;
		if (m->pending == NULL || m->store_error ||
		    stamp_mono() > seal_by)
			break;
		mon_propose_now(m);
	}
	if (m->inflight != NULL && mon_apply_wait_inflight(m, deadline) == -1)
		goto late;
	mon_apply_refuse_pending(m);
	mon_proposal_spare_free(m);
	return 0;
late:
	mon_apply_refuse_pending(m);
	return -1;
}

void
mon_apply_clear(struct mon *m)
{
	size_t i;

	for (i = 0; i < m->ngarbage; i++)
		free(m->garbage[i]);
	free(m->garbage);
	m->garbage = NULL;
	m->ngarbage = 0;
	mon_event_free(&m->wake_event);
	mon_event_free(&m->apply_timer);
	if (m->wake_fd != -1)
		close(m->wake_fd);
	m->wake_fd = -1;
}
