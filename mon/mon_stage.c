/*
 * mon_stage.c: staging and sealing, on the loop thread (the pipeline's
 * design: mon_committer.c).
 *
 * Writes stage their changes in the pending proposal and in m->work, the
 * osdmap the next writes are validated against.  The pending proposal is
 * sealed when it has waited propose_interval or holds propose_max_ops
 * changes, and only when no other proposal is in flight or applying: one
 * commit at a time, the next one filling meanwhile.  Sealing fixes the
 * epochs, versions, log sequence numbers and trim ranges, and hands the
 * proposal to the committer thread.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/mon_priv.h"
#include "mon/mon_quorum.h"

#define MON_TRIM_EPOCHS_PER_COMMIT 64
#define MON_TRIM_LOG_PER_COMMIT 1024

/* The pending proposal, made on the first change. */
static struct mon_proposal *
mon_stage_pending(struct mon *m)
{
	if (m->pending == NULL)
		m->pending = mon_proposal_new(m);
	return m->pending;
}

void
mon_stage_done(struct mon *m, mon_done_cb *done, void *arg,
    const char *status, json_t *data)
{
	struct mon_proposal *p = mon_stage_pending(m);
	struct mon_waiter *w;

	p->waiters = xreallocarray(p->waiters, p->nwaiters + 1,
	    sizeof *p->waiters);
	w = &p->waiters[p->nwaiters++];
	w->done = done;
	w->arg = arg;
	w->status = xstrdup(status);
	w->data = data;
	mon_stage_propose(m);
}

void
mon_stage_noop(struct mon *m, mon_done_cb *done, void *arg, const char *status,
    json_t *data)
{
	struct mon_quorum_info qi;

	/*
	 * With several monitors the working state is the newest committed
	 * one only on the leader that is ready (it applied the log of the
	 * earlier terms) with nothing on its way.  A follower, a monitor out
	 * of quorum or a leader just elected may be behind: an answer from
	 * its state could acknowledge a value that later writes replaced.
	 * Those go with what is staged, which they refuse with EAGAIN and
	 * the leader to retry at (mapmond(8), Linearizability).
	 */
	if (m->quorum == NULL ||
	    (mon_idle(m) && mon_quorum_info(m, &qi) == 0 &&
		qi.role == MON_QUORUM_LEADER && qi.ready)) {
		done(arg, 0, status, data);
		return;
	}
	mon_stage_done(m, done, arg, status, data);
}

uint32_t
mon_stage_next_epoch(const struct mon *m)
{
	return m->work.epoch +
	    (m->pending != NULL && m->pending->has_inc ? 0 : 1);
}

static void
mon_stage_inc(struct mon *m, struct mon_proposal *p)
{
	int64_t now = stamp_now();

	if (!p->has_inc) {
		p->has_inc = 1;
		osdmap_inc_init(&p->inc, m->work.epoch + 1);
		m->work.epoch++;
	}
	p->inc.modified = now;
	m->work.modified = now;
	p->ops++;
}

void
mon_stage_osd(struct mon *m, const struct osdmap_osd *o)
{
	struct mon_proposal *p = mon_stage_pending(m);
	const struct osdmap_osd *cur = osdmap_osd(&m->work, o->id);
	struct osdmap_osd was, now = *o;

	if (cur != NULL)
		was = *cur;
	mon_stage_inc(m, p);
	osdmap_inc_set_osd(&p->inc, o);
	osdmap_set_osd(&m->work, o);
	mon_live_staged(m, cur != NULL ? &was : NULL, &now);
}

void
mon_stage_crush_changed(struct mon *m)
{
	struct mon_proposal *p = mon_stage_pending(m);

	mon_stage_inc(m, p);
	p->crush_changed = 1;
}

void
mon_stage_remove_osd(struct mon *m, int32_t id)
{
	struct mon_proposal *p = mon_stage_pending(m);
	const struct osdmap_osd *cur = osdmap_osd(&m->work, id);
	struct osdmap_osd was;

	if (cur != NULL)
		was = *cur;
	mon_stage_inc(m, p);
	osdmap_inc_remove_osd(&p->inc, id);
	osdmap_remove_osd(&m->work, id);
	if (cur != NULL)
		mon_live_staged(m, &was, NULL);
}

void
mon_stage_pool(struct mon *m, const struct osdmap_pool *pool)
{
	struct mon_proposal *p = mon_stage_pending(m);

	mon_stage_inc(m, p);
	osdmap_inc_set_pool(&p->inc, pool);
	osdmap_set_pool(&m->work, pool);
	if (pool->id > m->work.pool_max) {
		m->work.pool_max = pool->id;
		p->inc.new_pool_max = pool->id;
	}
}

void
mon_stage_remove_pool(struct mon *m, uint32_t id)
{
	struct mon_proposal *p = mon_stage_pending(m);
	size_t i;

	mon_stage_inc(m, p);
	osdmap_inc_remove_pool(&p->inc, id);
	osdmap_remove_pool(&m->work, id);
	/* What this proposal staged for the pool goes with it. */
	for (i = 0; i < p->npgs; i++)
		if (p->pgs[i].pgid.pool == id)
			p->pg_dead[i] = 1;
	for (i = 0; i < p->nnewpgs; i++)
		if (p->newpgs[i].pool == id)
			p->newpgs[i--] = p->newpgs[--p->nnewpgs];
	p->removed_pools = xreallocarray(p->removed_pools,
	    p->nremoved_pools + 1, sizeof *p->removed_pools);
	p->removed_pools[p->nremoved_pools++] = id;
}

void
mon_stage_flags(struct mon *m, uint32_t flags)
{
	struct mon_proposal *p = mon_stage_pending(m);

	mon_stage_inc(m, p);
	p->inc.new_flags = flags;
	m->work.flags = flags;
	mon_live_poke(m);
}

void
mon_stage_ratios(struct mon *m, double full, double backfillfull,
    double nearfull)
{
	struct mon_proposal *p = mon_stage_pending(m);

	mon_stage_inc(m, p);
	if (full >= 0)
		p->inc.new_full_ratio = m->work.full_ratio = full;
	if (backfillfull >= 0)
		p->inc.new_backfillfull_ratio = m->work.backfillfull_ratio =
		    backfillfull;
	if (nearfull >= 0)
		p->inc.new_nearfull_ratio = m->work.nearfull_ratio = nearfull;
}

void
mon_stage_newpgs(struct mon *m, uint32_t pool, uint32_t from, uint32_t to)
{
	struct mon_proposal *p = mon_stage_pending(m);
	size_t i;

	p->ops += to - from;
	for (i = 0; i < p->nnewpgs; i++) {
		if (p->newpgs[i].pool == pool) {
			p->newpgs[i].to = to;
			return;
		}
	}
	p->newpgs = xreallocarray(p->newpgs, p->nnewpgs + 1,
	    sizeof *p->newpgs);
	p->newpgs[p->nnewpgs].pool = pool;
	p->newpgs[p->nnewpgs].from = from;
	p->newpgs[p->nnewpgs].to = to;
	p->newpgs[p->nnewpgs].pgs = NULL;
	p->nnewpgs++;
}

/* Put st in proposal p, replacing what p holds for that PG. */
void
mon_stage_put_pg(struct mon_proposal *p, const struct pg_stat *st)
{
	uint32_t i;
	size_t want;

	if (mon_pgindex_get(&p->index, st->pgid, &i)) {
		p->pgs[i] = *st;
		p->pg_dead[i] = 0;
		return;
	}
	if (p->npgs == p->cappgs) {
		/*
		 * A proposal holds a PG once: past 256, room for every PG of
		 * the map at once, up to MON_PENDING_MAX (pgs_hint): reports
		 * do not regrow, copy and rehash the arrays (milliseconds
		 * each) on the loop thread, and the daemon reads no more
		 * while the pending one is full (mon_reports_full()).  Only
		 * what else a proposal holds past that (the creating PGs
		 * placed again) grows them, doubling.
		 */
		want = p->cappgs ? p->cappgs * 2 : 256;
		if (p->cappgs > 0 && want < p->pgs_hint)
			want = p->pgs_hint;
		p->cappgs = want;
		p->pgs = xreallocarray(p->pgs, p->cappgs, sizeof *p->pgs);
		p->pg_dead = xreallocarray(p->pg_dead, p->cappgs, 1);
		mon_pgindex_reserve(&p->index, p->cappgs);
	}
	p->pgs[p->npgs] = *st;
	p->pg_dead[p->npgs] = 0;
	mon_pgindex_put(&p->index, st->pgid, (uint32_t)p->npgs);
	p->npgs++;
}

void
mon_stage_pg(struct mon *m, const struct pg_stat *st)
{
	struct mon_proposal *p = mon_stage_pending(m);

	mon_stage_put_pg(p, st);
	p->ops++;
}

/* Mutes by code, as Ceph's map of them. */
static int
mon_stage_mute_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mon_mute *)a)->code,
	    ((const struct mon_mute *)b)->code);
}

void
mon_stage_mutes(struct mon *m, const struct mon_mute *v, size_t n)
{
	struct mon_proposal *p = mon_stage_pending(m);
	struct mon_mute *copy;
	size_t i;

	copy = xcalloc(n ? n : 1, sizeof *copy);
	for (i = 0; i < n; i++) {
		copy[i] = v[i];
		copy[i].summary = xstrdup(
		    v[i].summary != NULL ? v[i].summary : "");
	}
	qsort(copy, n, sizeof *copy, mon_stage_mute_cmp);
	mon_mute_free(p->mutes, p->nmutes);
	p->has_mutes = 1;
	p->mutes = copy;
	p->nmutes = n;
	p->ops++;
}

void
mon_stage_monmap(struct mon *m, const struct monmap *mm)
{
	struct mon_proposal *p = mon_stage_pending(m);

	p->has_monmap = 1;
	p->monmap = *mm;
	p->ops++;
}

void
mon_stage_auth(struct mon *m, const struct mon_auth_entity *e, int removed)
{
	struct mon_proposal *p = mon_stage_pending(m);
	struct mon_auth_change *c = NULL;
	size_t i;

	for (i = 0; i < p->nauth; i++) {
		if (strcmp(p->auth[i].e.name, e->name) == 0) {
			c = &p->auth[i];
			mon_auth_entity_clear(&c->e);
			break;
		}
	}
	if (c == NULL) {
		p->auth = xreallocarray(p->auth, p->nauth + 1, sizeof *p->auth);
		c = &p->auth[p->nauth++];
	}
	mon_auth_entity_copy(&c->e, e);
	mon_auth_entity_derive(&c->e);
	c->removed = removed;
	p->ops++;
}

void
mon_stage_log(struct mon *m, int severity, const char *fmt, ...)
{
	struct mon_proposal *p = mon_stage_pending(m);
	struct mon_log_entry *e;
	va_list ap;

	p->log = xreallocarray(p->log, p->nlog + 1, sizeof *p->log);
	e = &p->log[p->nlog++];
	memset(e, 0, sizeof *e);
	e->stamp = stamp_now();
	e->severity = severity;
	va_start(ap, fmt);
	xvasprintf(&e->message, fmt, ap);
	va_end(ap);
	p->ops++;
	dout(LOG_MON, 5, "cluster log (pending): %s", e->message);
}

const struct pg_stat *
mon_stage_pg_view(struct mon *m, struct pg_id id)
{
	const struct pg_stat *st;

	if ((st = mon_proposal_pg(m->pending, id)) != NULL)
		return st;
	if ((st = mon_proposal_pg(m->inflight, id)) != NULL)
		return st;
	if ((st = mon_proposal_pg(m->applying, id)) != NULL)
		return st;
	return pgmap_pg(&m->pgmap, id);
}

void
mon_stage_health(struct mon *m)
{
	struct mon_health_check *now;
	const struct mon_health_check *was;
	int64_t mono = stamp_mono();
	size_t n, i;
	int sev;

	mon_health_eval(m, 0, &now, &n);
	mon_mute_tick(m, now, n, stamp_now());
	for (i = 0; i < n; i++) {
		was = mon_health_find(m->checks, m->nchecks, now[i].code);
		now[i].logged_mono = mono;
		if (was != NULL && was->severity == now[i].severity) {
			now[i].logged_mono = was->logged_mono;
			if (strcmp(was->summary, now[i].summary) == 0)
				continue;
			/*
			 * As Ceph's Monitor::log_health(): a summary that
			 * changes alone is logged once a period at most; the
			 * one logged is kept meanwhile, so that a tick logs
			 * the newest once the period is over.
			 */
			if (mono - was->logged_mono <
			    MON_HEALTH_LOG_PERIOD_US) {
				free(now[i].summary);
				now[i].summary = xstrdup(was->summary);
				continue;
			}
			now[i].logged_mono = mono;
		}
		sev = now[i].severity == MON_HEALTH_ERR ? MON_LOG_ERROR :
		    MON_LOG_WARN;
		mon_stage_log(m, sev, "Health check %s: %s (%s)",
		    was == NULL ? "failed" : "update", now[i].summary,
		    now[i].code);
	}
	for (i = 0; i < m->nchecks; i++) {
		if (mon_health_find(now, n, m->checks[i].code) != NULL)
			continue;
		mon_stage_log(m, MON_LOG_INFO, "Health check cleared: %s (was: "
		    "%s)", m->checks[i].code, m->checks[i].summary);
	}
	if (n == 0 && m->nchecks > 0)
		mon_stage_log(m, MON_LOG_INFO, "Cluster is now healthy");
	mon_health_free(m->checks, m->nchecks);
	m->checks = now;
	m->nchecks = n;
	if (m->pending != NULL)
		mon_stage_propose(m);
}

/*
 * Creating PGs follow the map: when the new map moves PGs, recompute their
 * up and acting sets in the same proposal.  (A pool made, grown or removed
 * moves none: the committer places the PGs it makes by the new map.)
 */
static void
mon_stage_remap_creating(struct mon *m, struct mon_proposal *p)
{
	struct osdmap_place *pl;
	const struct osdmap_pool *op;
	const struct pg_stat *cur;
	struct pg_stat st;
	struct pg_id id;
	size_t i;
	uint32_t seed;
	int32_t up[PLACEMENT_MAX_SIZE];
	int n;

	pl = osdmap_place_new(&p->osdmap);
	for (i = 0; i < m->pgmap.npools; i++) {
		id.pool = m->pgmap.pools[i].id;
		if ((op = osdmap_pool(&p->osdmap, id.pool)) == NULL)
			continue;
		for (seed = 0; seed < m->pgmap.pools[i].pg_num; seed++) {
			id.seed = seed;
			if (!(m->pgmap.pools[i].pgs[seed].state &
			    PG_STATE_CREATING))
				continue;
			if ((cur = mon_proposal_pg(p, id)) == NULL)
				cur = &m->pgmap.pools[i].pgs[seed];
			if (!(cur->state & PG_STATE_CREATING))
				continue;
			n = osdmap_place_pg(pl, id.pool, op->crush_rule, seed,
			    op->size, up);
			if (n == cur->up_len &&
			    memcmp(up, cur->up, (size_t)n * sizeof *up) == 0)
				continue;
			st = *cur;
			memcpy(st.up, up, sizeof st.up);
			st.up_len = (uint8_t)n;
			memcpy(st.acting, up, sizeof st.acting);
			st.acting_len = (uint8_t)n;
			st.up_primary = st.acting_primary = n > 0 ? up[0] : -1;
			st.mapping_epoch = p->inc.epoch;
			mon_stage_put_pg(p, &st);
		}
	}
	osdmap_place_free(pl);
}

/* Fix versions, sequence numbers and trims, and hand p to the committer. */
static void
mon_stage_seal(struct mon *m)
{
	struct mon_proposal *p = m->pending;
	struct mon_rec *r;
	int64_t keep;
	size_t i;

	if (p == NULL || m->inflight != NULL || m->applying != NULL ||
	    m->stopped)
		return;
	m->pending = NULL;
	evtimer_del(m->propose_timer);
	if (m->room != NULL)
		m->room(m->room_arg);
	/* Whatever commits carries the capacities changed meanwhile. */
	mon_capacity_seal(m, p);

	if (p->has_inc) {
		/* From here on the hierarchy is shared: changed on a copy. */
		/*
		 * A new hierarchy counts in crush_version, as osdmap_apply()
		 * counts it where the incremental is applied (followers,
		 * clients).
		 */
		if (p->crush_changed) {
			osdmap_inc_set_crush(&p->inc, m->work.crush);
			m->work.crush_version++;
		}
		osdmap_copy(&p->osdmap, &m->work);
		if (osdmap_inc_moves_pgs(&m->osdmap, &p->inc))
			mon_stage_remap_creating(m, p);
	}
	r = &p->rec;
	*r = m->rec;
	r->stamp = stamp_now();
	if (p->has_inc)
		r->osdmap_epoch = p->inc.epoch;
	if (p->npgs > 0 || p->nnewpgs > 0 || p->nremoved_pools > 0) {
		p->pgmap_version = m->rec.pgmap_version + 1;
		r->pgmap_version = p->pgmap_version;
		if (r->pgmap_first == 0)
			r->pgmap_first = p->pgmap_version;
	}
	for (i = 0; i < p->nlog; i++)
		p->log[i].seq = ++r->log_last;
	if (r->log_first == 0 && r->log_last > 0)
		r->log_first = 1;

	/* Trim in bounded steps, as part of this very commit. */
	keep = m->params.min_epochs;
	p->trim_osdmap_to = r->osdmap_first;
	if ((int64_t)r->osdmap_epoch - r->osdmap_first + 1 > keep) {
		uint32_t to = r->osdmap_epoch - (uint32_t)keep + 1;

		if (to > r->osdmap_first + MON_TRIM_EPOCHS_PER_COMMIT)
			to = r->osdmap_first + MON_TRIM_EPOCHS_PER_COMMIT;
		p->trim_osdmap_to = to;
	}
	p->trim_pgmap_to = r->pgmap_first;
	if (r->pgmap_first > 0 &&
	    (int64_t)(r->pgmap_version - r->pgmap_first + 1) > keep) {
		uint64_t to = r->pgmap_version - (uint64_t)keep + 1;

		if (to > r->pgmap_first + MON_TRIM_EPOCHS_PER_COMMIT)
			to = r->pgmap_first + MON_TRIM_EPOCHS_PER_COMMIT;
		p->trim_pgmap_to = to;
	}
	p->trim_log_to = r->log_first;
	if (r->log_first > 0 && (int64_t)(r->log_last - r->log_first + 1) >
	    m->params.log_max_entries) {
		uint64_t to = r->log_last -
		    (uint64_t)m->params.log_max_entries + 1;

		if (to > r->log_first + MON_TRIM_LOG_PER_COMMIT)
			to = r->log_first + MON_TRIM_LOG_PER_COMMIT;
		p->trim_log_to = to;
	}

	p->want_pg_text = m->want_pg_text && p->pgmap_version != 0;

	dout(LOG_COMMIT, 10,
	    "seal proposal %llu: %zu ops, %zu pgs, %zu new "
	    "pools, %zu capacities, epoch %u, version %llu",
	    (unsigned long long)p->seq, p->ops, p->npgs, p->nnewpgs, p->nstatfs,
	    r->osdmap_epoch, (unsigned long long)r->pgmap_version);
	p->sealed_mono = stamp_mono();
	m->inflight = p;
	/* Several monitors: committed once its entry is (mon_quorum.h). */
	if (mon_quorum_seal(m, p))
		return;
	pthread_mutex_lock(&m->lock);
	m->to_commit = p;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

static void
mon_stage_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;

	(void)fd;
	(void)what;
	mon_stage_seal(m);
}

static void
mon_stage_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;

	(void)fd;
	(void)what;
	if (m->inflight != NULL || m->applying != NULL || m->stopped)
		return;
	/* An empty proposal still writes the commit record: a probe. */
	mon_stage_pending(m);
	dout(LOG_COMMIT, 1, "retrying commit after store error");
	mon_stage_seal(m);
}

void
mon_stage_propose(struct mon *m)
{
	struct timeval tv;
	int64_t waited, left;

	if (mon_quorum_holds(m))
		return;
	if (m->inflight != NULL || m->applying != NULL)
		return;
	/* After a failed commit only the retry timer seals, with backoff. */
	if (m->store_error) {
		if (!evtimer_pending(m->retry_timer, NULL)) {
			tv.tv_sec = m->retry_ms / 1000;
			tv.tv_usec = (m->retry_ms % 1000) * 1000;
			evtimer_add(m->retry_timer, &tv);
		}
		return;
	}
	if (m->pending == NULL)
		return;
	if (mon_proposal_empty(m->pending) && m->pending->nwaiters == 0)
		return;
	waited = (stamp_mono() - m->pending->sealed_mono) / 1000;
	if ((int64_t)m->pending->ops >= m->params.propose_max_ops ||
	    waited >= m->params.propose_interval_ms) {
		mon_stage_seal(m);
		return;
	}
	if (!evtimer_pending(m->propose_timer, NULL)) {
		left = m->params.propose_interval_ms - waited;
		tv.tv_sec = left / 1000;
		tv.tv_usec = (left % 1000) * 1000;
		evtimer_add(m->propose_timer, &tv);
	}
}

void
mon_stage_capacity(struct mon *m)
{
	mon_stage_pending(m)->capacity_due = 1;
	mon_stage_propose(m);
}

void
mon_stage_view(struct mon *m)
{
	mon_stage_pending(m)->view_due = 1;
	mon_stage_propose(m);
}

void
mon_propose_now(struct mon *m)
{
	if (mon_quorum_holds(m))
		return;
	if (m->pending != NULL && m->inflight == NULL && m->applying == NULL &&
	    !m->store_error)
		mon_stage_seal(m);
}

int
mon_idle(const struct mon *m)
{
	return m->pending == NULL && m->inflight == NULL &&
	    m->applying == NULL;
}

void
mon_want_pg_text(struct mon *m, int on)
{
	m->want_pg_text = on != 0;
}

int
mon_stage_init(struct mon *m, char **cause)
{
	m->propose_timer = evtimer_new(m->base, mon_stage_timer_cb, m);
	m->retry_timer = evtimer_new(m->base, mon_stage_retry_cb, m);
	if (m->propose_timer == NULL || m->retry_timer == NULL) {
		xasprintf(cause, "cannot set up the committer's events");
		return -1;
	}
	return 0;
}

void
mon_stage_clear(struct mon *m)
{
	mon_event_free(&m->propose_timer);
	mon_event_free(&m->retry_timer);
}
