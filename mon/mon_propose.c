/*
 * mon_propose.c: the commit pipeline (SPEC §4).
 *
 * Writes stage their changes in the pending proposal.  It is sealed when it
 * has waited propose_interval or holds propose_max_ops changes, and only
 * when no other proposal is in flight: one commit at a time, the next one
 * filling up meanwhile.  Sealing fixes the epochs, versions, log sequence
 * numbers and the trim ranges, and hands the proposal to the committer
 * thread, which makes the PGs of new pools, encodes every record into one
 * store batch and commits it (the fsync happens there, never on the loop).
 * The thread hands the proposal back through an eventfd; the loop then
 * applies it to the committed state, answers its writers and notifies the
 * subscribers.  A failed commit changes nothing committed (see mon.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/keys.h"
#include "mon/mon_priv.h"
#include "mon/mon_record.h"

#define MON_TRIM_EPOCHS_PER_COMMIT 64
#define MON_TRIM_LOG_PER_COMMIT 1024
#define MON_RETRY_MIN_MS 100
#define MON_APPLY_SLICE 1024	/* PGs applied per loop turn (~0.2 ms) */
#define MON_PREFETCH_AHEAD 8	/* PGs of a commit prefetched ahead */
#define MON_RETRY_MAX_MS 5000

static void mon_propose_seal(struct mon *);

/* The PG index of a proposal. */

static uint64_t
mon_pgindex_key(struct pg_id id)
{
	return ((uint64_t)id.pool << 32 | id.seed) + 1;
}

static size_t
mon_pgindex_slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int
mon_pgindex_get(const struct mon_pgindex *x, struct pg_id id, uint32_t *val)
{
	uint64_t key = mon_pgindex_key(id);
	size_t i;

	if (x->cap == 0)
		return 0;
	for (i = mon_pgindex_slot(key, x->cap); x->keys[i] != 0;
	    i = (i + 1) & (x->cap - 1)) {
		if (x->keys[i] == key) {
			*val = x->vals[i];
			return 1;
		}
	}
	return 0;
}

static void
mon_pgindex_insert(struct mon_pgindex *x, uint64_t key, uint32_t val)
{
	size_t i;

	for (i = mon_pgindex_slot(key, x->cap); x->keys[i] != 0;
	    i = (i + 1) & (x->cap - 1))
		;
	x->keys[i] = key;
	x->vals[i] = val;
	x->n++;
}

/* Room for n keys at most half full (a rehash when it grows). */
static void
mon_pgindex_reserve(struct mon_pgindex *x, size_t n)
{
	struct mon_pgindex old;
	size_t i, cap;

	for (cap = x->cap ? x->cap : 1024; n * 2 > cap; cap *= 2)
		;
	if (cap != x->cap) {
		old = *x;
		x->cap = cap;
		x->keys = xcalloc(x->cap, sizeof *x->keys);
		x->vals = xcalloc(x->cap, sizeof *x->vals);
		x->n = 0;
		for (i = 0; i < old.cap; i++)
			if (old.keys[i] != 0)
				mon_pgindex_insert(x, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
}

static void
mon_pgindex_put(struct mon_pgindex *x, struct pg_id id, uint32_t val)
{
	mon_pgindex_reserve(x, x->n + 1);
	mon_pgindex_insert(x, mon_pgindex_key(id), val);
}

/* Proposals. */

static struct mon_proposal *
mon_proposal_new(struct mon *m)
{
	struct mon_proposal *p = xcalloc(1, sizeof *p);
	struct mon_pgbufs *b = &m->spare_pgs;

	if (b->pgs != NULL) {
		p->pgs = b->pgs;
		p->pg_dead = b->pg_dead;
		p->cappgs = b->cappgs;
		p->index = b->index;
		memset(b, 0, sizeof *b);
	}
	p->seq = m->next_seq++;
	p->pgs_hint = (size_t)m->pgmap.sums.num_pgs;
	osdmap_inc_init(&p->inc, 0);
	osdmap_init(&p->osdmap);
	p->sealed_mono = stamp_mono();	/* first change, until sealed */
	return p;
}

void
mon_proposal_free(struct mon_proposal *p)
{
	size_t i;

	if (p == NULL)
		return;
	osdmap_inc_clear(&p->inc);
	osdmap_clear(&p->osdmap);
	free(p->pgs);
	free(p->pg_dead);
	free(p->index.keys);
	free(p->index.vals);
	for (i = 0; i < p->nnewpgs; i++)
		free(p->newpgs[i].pgs);
	free(p->newpgs);
	free(p->removed_pools);
	for (i = 0; i < p->nlog; i++)
		free(p->log[i].message);
	free(p->log);
	for (i = 0; i < p->nwaiters; i++) {
		free(p->waiters[i].status);
		json_decref(p->waiters[i].data);
	}
	free(p->waiters);
	free(p->cause);
	enc_buf_free(&p->pg_text);
	free(p);
}

/*
 * Keep p's PG arrays for the next proposal, then free p.  Only the larger
 * set is kept: a proposal grows to what the reports between two commits
 * need, and that is what the next one will need.
 */
static void
mon_proposal_recycle(struct mon *m, struct mon_proposal *p)
{
	struct mon_pgbufs *b = &m->spare_pgs;

	if (p->pgs != NULL && p->cappgs > b->cappgs) {
		mon_pgbufs_free(b);
		if (p->index.cap > 0)
			memset(p->index.keys, 0,
			    p->index.cap * sizeof *p->index.keys);
		p->index.n = 0;
		b->pgs = p->pgs;
		b->pg_dead = p->pg_dead;
		b->cappgs = p->cappgs;
		b->index = p->index;
		b->kept_mono = stamp_mono();
		p->pgs = NULL;
		p->pg_dead = NULL;
		memset(&p->index, 0, sizeof p->index);
	}
	mon_proposal_free(p);
}

/* On the tick: spare arrays nobody took for a second go back. */
void
mon_spare_trim(struct mon *m, int64_t mono)
{
	if (m->spare_pgs.pgs != NULL &&
	    mono - m->spare_pgs.kept_mono >= 1000000)
		mon_pgbufs_free(&m->spare_pgs);
}

void
mon_pgbufs_free(struct mon_pgbufs *b)
{
	free(b->pgs);
	free(b->pg_dead);
	free(b->index.keys);
	free(b->index.vals);
	memset(b, 0, sizeof *b);
}

struct mon_proposal *
mon_pending(struct mon *m)
{
	if (m->pending == NULL)
		m->pending = mon_proposal_new(m);
	return m->pending;
}

void
mon_stage_done(struct mon *m, mon_done_cb *done, void *arg,
    const char *status, json_t *data)
{
	struct mon_proposal *p = mon_pending(m);
	struct mon_waiter *w;

	p->waiters = xreallocarray(p->waiters, p->nwaiters + 1,
	    sizeof *p->waiters);
	w = &p->waiters[p->nwaiters++];
	w->done = done;
	w->arg = arg;
	w->status = xstrdup(status);
	w->data = data;
	mon_propose_maybe(m);
}

uint32_t
mon_next_epoch(const struct mon *m)
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
	struct mon_proposal *p = mon_pending(m);

	mon_stage_inc(m, p);
	osdmap_inc_set_osd(&p->inc, o);
	osdmap_set_osd(&m->work, o);
}

void
mon_stage_remove_osd(struct mon *m, int32_t id)
{
	struct mon_proposal *p = mon_pending(m);

	mon_stage_inc(m, p);
	osdmap_inc_remove_osd(&p->inc, id);
	osdmap_remove_osd(&m->work, id);
}

void
mon_stage_pool(struct mon *m, const struct osdmap_pool *pool)
{
	struct mon_proposal *p = mon_pending(m);

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
	struct mon_proposal *p = mon_pending(m);
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
	struct mon_proposal *p = mon_pending(m);

	mon_stage_inc(m, p);
	p->inc.new_flags = flags;
	m->work.flags = flags;
}

void
mon_stage_newpgs(struct mon *m, uint32_t pool, uint32_t from, uint32_t to)
{
	struct mon_proposal *p = mon_pending(m);
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
static void
mon_proposal_put_pg(struct mon_proposal *p, const struct pg_stat *st)
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
		 * the map at once, so that reports never regrow, copy and
		 * rehash the arrays (milliseconds each) on the loop thread.
		 * Pages untouched cost nothing.
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
	struct mon_proposal *p = mon_pending(m);

	mon_proposal_put_pg(p, st);
	p->ops++;
}

void
mon_stage_log(struct mon *m, int severity, const char *fmt, ...)
{
	struct mon_proposal *p = mon_pending(m);
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

static const struct pg_stat *
mon_proposal_pg(const struct mon_proposal *p, struct pg_id id)
{
	uint32_t i;

	if (p == NULL || !mon_pgindex_get(&p->index, id, &i) || p->pg_dead[i])
		return NULL;
	return &p->pgs[i];
}

const struct pg_stat *
mon_pg_view(struct mon *m, struct pg_id id)
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

/* A creating PG's stat: placed by the new map, nothing reported yet. */
void
mon_fill_creating(const struct osdmap *map, const struct placement *pl,
    uint32_t pool, uint32_t from, uint32_t to, uint32_t epoch, int64_t stamp,
    struct pg_stat *out)
{
	const struct osdmap_pool *op = osdmap_pool(map, pool);
	uint32_t seed;
	int n;

	for (seed = from; seed < to; seed++) {
		struct pg_stat *st = &out[seed - from];

		memset(st, 0, sizeof *st);
		st->pgid.pool = pool;
		st->pgid.seed = seed;
		st->state = PG_STATE_CREATING;
		n = op ? placement_map_pg(pl, pool, seed, op->size, st->up) : 0;
		st->up_len = (uint8_t)n;
		memcpy(st->acting, st->up, sizeof st->acting);
		st->acting_len = (uint8_t)n;
		st->up_primary = st->acting_primary = n > 0 ? st->up[0] : -1;
		st->created = epoch;
		st->mapping_epoch = epoch;
		st->reported_epoch = epoch;
		/* As Ceph registers new PGs: stuck-since stamps start now. */
		st->last_change = st->last_fresh = stamp;
		st->last_active = st->last_peered = st->last_clean = stamp;
		st->last_unstale = stamp;
	}
}

/*
 * Creating PGs follow the map: when the new map moves placement, recompute
 * their up and acting sets in the same proposal.
 */
static void
mon_remap_creating(struct mon *m, struct mon_proposal *p)
{
	struct placement *pl;
	const struct osdmap_pool *op;
	const struct pg_stat *cur;
	struct pg_stat st;
	struct pg_id id;
	size_t i;
	uint32_t seed;
	int32_t up[PLACEMENT_MAX_SIZE];
	int n;

	pl = osdmap_placement(&p->osdmap);
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
			n = placement_map_pg(pl, id.pool, seed, op->size, up);
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
			mon_proposal_put_pg(p, &st);
		}
	}
	placement_free(pl);
}

static int
mon_proposal_empty(const struct mon_proposal *p)
{
	return !p->has_inc && p->npgs == 0 && p->nnewpgs == 0 &&
	    p->nremoved_pools == 0 && p->nlog == 0;
}

/* Fix versions, sequence numbers and trims, and hand p to the committer. */
static void
mon_propose_seal(struct mon *m)
{
	struct mon_proposal *p = m->pending;
	struct mon_rec *r;
	int64_t keep;
	size_t i;

	if (p == NULL || m->inflight != NULL || m->applying != NULL)
		return;
	m->pending = NULL;
	evtimer_del(m->propose_timer);

	if (p->has_inc) {
		osdmap_copy(&p->osdmap, &m->work);
		if (osdmap_inc_changes_placement(&m->osdmap, &p->inc))
			mon_remap_creating(m, p);
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

	dout(LOG_COMMIT, 10, "seal proposal %llu: %zu ops, %zu pgs, %zu new "
	    "pools, epoch %u, version %llu", (unsigned long long)p->seq,
	    p->ops, p->npgs, p->nnewpgs, r->osdmap_epoch,
	    (unsigned long long)r->pgmap_version);
	p->sealed_mono = stamp_mono();
	m->inflight = p;
	pthread_mutex_lock(&m->lock);
	m->to_commit = p;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

static void
mon_propose_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;

	(void)fd;
	(void)what;
	mon_propose_seal(m);
}

static void
mon_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;

	(void)fd;
	(void)what;
	if (m->inflight != NULL || m->applying != NULL)
		return;
	/* An empty proposal still writes the commit record: a probe. */
	mon_pending(m);
	dout(LOG_COMMIT, 1, "retrying commit after store error");
	mon_propose_seal(m);
}

void
mon_propose_maybe(struct mon *m)
{
	struct timeval tv;
	int64_t waited, left;

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
		mon_propose_seal(m);
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
mon_propose_now(struct mon *m)
{
	if (m->pending != NULL && m->inflight == NULL && m->applying == NULL &&
	    !m->store_error)
		mon_propose_seal(m);
}

int
mon_idle(const struct mon *m)
{
	return m->pending == NULL && m->inflight == NULL &&
	    m->applying == NULL;
}

/* The committer thread's half. */

static void
mon_batch_put(struct mon *m, struct mon_proposal *p, const void *key,
    size_t klen)
{
	if (m->enc.len > p->max_value)
		p->max_value = m->enc.len;
	store_batch_put(m->batch, key, klen, m->enc.data, m->enc.len);
	enc_buf_reset(&m->enc);
}

/* store_value_fn: a PG record, encoded while the store commits. */
static void
mon_batch_pg_value(const void *arg, struct enc_buf *out)
{
	pg_stat_encode(arg, out);
}

/*
 * A PG record is put by reference: st (in p->pgs or a creating array,
 * both untouched until p comes back) is encoded as the store writes it,
 * so that the batch does not hold a second copy of every PG (at a pool
 * creation of 221,568 PGs that copy was 97 MB in a 128 MiB buffer).
 */
static void
mon_batch_pg(struct mon *m, struct mon_proposal *p, const struct pg_stat *st)
{
	uint8_t key[KEYS_PG_LEN];
	size_t vlen;

	keys_pg(key, st->pgid.pool, st->pgid.seed);
	vlen = PG_STAT_ENCODED_SIZE(st->up_len > PLACEMENT_MAX_SIZE ?
	    PLACEMENT_MAX_SIZE : st->up_len, st->acting_len >
	    PLACEMENT_MAX_SIZE ? PLACEMENT_MAX_SIZE : st->acting_len);
	if (vlen > p->max_value)
		p->max_value = vlen;
	store_batch_put_fn(m->batch, key, sizeof key, vlen, mon_batch_pg_value,
	    st);
}

/* The pgmap incremental: ids of the PGs changed, in bounded chunks. */
static void
mon_batch_pginc(struct mon *m, struct mon_proposal *p)
{
	uint8_t key[KEYS_PGINC_LEN];
	uint32_t chunk = 0, inchunk = 0, s;
	size_t i, j;

#define MON_PGINC_ADD(pool, seed) do {					\
	if (inchunk == 0)						\
		enc_buf_reset(&m->enc);					\
	enc_buf_put_u32(&m->enc, (pool));				\
	enc_buf_put_u32(&m->enc, (seed));				\
	if (++inchunk == KEYS_PGINC_CHUNK) {				\
		keys_pginc(key, p->pgmap_version, chunk++);		\
		mon_batch_put(m, p, key, sizeof key);			\
		inchunk = 0;						\
	}								\
} while (0)
	for (i = 0; i < p->npgs; i++)
		if (!p->pg_dead[i])
			MON_PGINC_ADD(p->pgs[i].pgid.pool, p->pgs[i].pgid.seed);
	for (j = 0; j < p->nnewpgs; j++)
		for (s = p->newpgs[j].from; s < p->newpgs[j].to; s++)
			MON_PGINC_ADD(p->newpgs[j].pool, s);
#undef MON_PGINC_ADD
	if (inchunk > 0 || chunk == 0) {
		if (inchunk == 0)
			enc_buf_reset(&m->enc);
		keys_pginc(key, p->pgmap_version, chunk);
		mon_batch_put(m, p, key, sizeof key);
	}
}

/* p->rec still holds the old trim floors; the trims start there. */
static void
mon_batch_trim(struct mon *m, const struct mon_proposal *p)
{
	const struct mon_rec *old = &p->rec;
	uint8_t lo[KEYS_PGINC_LEN], hi[KEYS_PGINC_LEN];

	if (p->trim_osdmap_to > old->osdmap_first) {
		keys_epoch(lo, KEYS_OSDMAP, old->osdmap_first);
		keys_epoch(hi, KEYS_OSDMAP, p->trim_osdmap_to);
		store_batch_delete_range(m->batch, lo, KEYS_EPOCH_LEN, hi,
		    KEYS_EPOCH_LEN);
		keys_epoch(lo, KEYS_OSDMAP_INC, old->osdmap_first);
		keys_epoch(hi, KEYS_OSDMAP_INC, p->trim_osdmap_to);
		store_batch_delete_range(m->batch, lo, KEYS_EPOCH_LEN, hi,
		    KEYS_EPOCH_LEN);
	}
	if (p->trim_pgmap_to > old->pgmap_first) {
		keys_pginc(lo, old->pgmap_first, 0);
		keys_pginc(hi, p->trim_pgmap_to, 0);
		store_batch_delete_range(m->batch, lo, KEYS_PGINC_LEN, hi,
		    KEYS_PGINC_LEN);
	}
	if (p->trim_log_to > old->log_first) {
		keys_log(lo, old->log_first);
		keys_log(hi, p->trim_log_to);
		store_batch_delete_range(m->batch, lo, KEYS_LOG_LEN, hi,
		    KEYS_LOG_LEN);
	}
}

/*
 * Build p's batch and commit it.  Runs on the committer thread; reads only
 * p and m->rec (which the loop changes only after p comes back).
 */
static void
mon_commit_write(struct mon *m, struct mon_proposal *p)
{
	struct placement *pl = NULL;
	struct mon_rec rec;
	uint8_t key[KEYS_PGINC_LEN], hi[KEYS_PG_LEN];
	int64_t t0 = stamp_mono();
	size_t i;
	uint32_t s;

	store_batch_clear(m->batch);
	enc_buf_reset(&m->enc);

	if (p->nnewpgs > 0)
		pl = osdmap_placement(&p->osdmap);
	for (i = 0; i < p->nnewpgs; i++) {
		struct mon_newpgs *np = &p->newpgs[i];

		np->pgs = xreallocarray(NULL, np->to - np->from,
		    sizeof *np->pgs);
		mon_fill_creating(&p->osdmap, pl, np->pool, np->from, np->to,
		    p->inc.epoch, p->rec.stamp, np->pgs);
	}
	placement_free(pl);

	for (i = 0; i < p->nremoved_pools; i++) {
		keys_pg(key, p->removed_pools[i], 0);
		if (p->removed_pools[i] == UINT32_MAX) {
			hi[0] = KEYS_PG + 1;
			store_batch_delete_range(m->batch, key, KEYS_PG_LEN, hi,
			    1);
		} else {
			keys_pg(hi, p->removed_pools[i] + 1, 0);
			store_batch_delete_range(m->batch, key, KEYS_PG_LEN, hi,
			    KEYS_PG_LEN);
		}
	}
	for (i = 0; i < p->npgs; i++)
		if (!p->pg_dead[i])
			mon_batch_pg(m, p, &p->pgs[i]);
	for (i = 0; i < p->nnewpgs; i++)
		for (s = 0; s < p->newpgs[i].to - p->newpgs[i].from; s++)
			mon_batch_pg(m, p, &p->newpgs[i].pgs[s]);
	if (p->has_inc) {
		osdmap_encode(&p->osdmap, &m->enc);
		keys_epoch(key, KEYS_OSDMAP, p->inc.epoch);
		mon_batch_put(m, p, key, KEYS_EPOCH_LEN);
		osdmap_inc_encode(&p->inc, &m->enc);
		keys_epoch(key, KEYS_OSDMAP_INC, p->inc.epoch);
		mon_batch_put(m, p, key, KEYS_EPOCH_LEN);
	}
	if (p->pgmap_version != 0)
		mon_batch_pginc(m, p);
	for (i = 0; i < p->nlog; i++) {
		mon_record_log_encode(&p->log[i], &m->enc);
		keys_log(key, p->log[i].seq);
		mon_batch_put(m, p, key, KEYS_LOG_LEN);
	}
	mon_batch_trim(m, p);
	rec = p->rec;
	rec.osdmap_first = p->trim_osdmap_to;
	rec.pgmap_first = p->trim_pgmap_to;
	rec.log_first = p->trim_log_to;
	p->rec = rec;
	mon_record_commit_encode(&rec, &m->enc);
	key[0] = KEYS_COMMIT;
	mon_batch_put(m, p, key, 1);

	p->batch_ops = store_batch_count(m->batch);
	p->batch_bytes = store_batch_bytes(m->batch);
	p->rc = store_commit(m->store, m->batch, &p->cause);
	store_batch_clear(m->batch);
	p->commit_us = stamp_mono() - t0;
	dout(LOG_COMMIT, 10, "commit %llu: %zu records, %zu bytes, %lld us, "
	    "rc %d", (unsigned long long)p->seq, p->batch_ops, p->batch_bytes,
	    (long long)p->commit_us, p->rc);
}

/* Whether the commit of p makes PG id (a new pool's, or a grown one's). */
static int
mon_proposal_creates(const struct mon_proposal *p, struct pg_id id)
{
	size_t j;

	for (j = 0; j < p->nnewpgs; j++)
		if (p->newpgs[j].pool == id.pool &&
		    id.seed >= p->newpgs[j].from && id.seed < p->newpgs[j].to)
			return 1;
	return 0;
}

/*
 * The changed PGs as one JSON array, in mon_commit_foreach_pg()'s order:
 * the updates of PGs that existed, then every PG the commit made, as the
 * update of the same commit left it.  On the committer thread, after the
 * commit, so that the loop only copies the text to its subscribers.
 */
static void
mon_commit_pg_text(struct mon *m, struct mon_proposal *p)
{
	struct pg_text *t = &m->pg_text;
	const struct mon_newpgs *np;
	const struct pg_stat *st;
	size_t i, j, n = 0;
	uint32_t s;
	int64_t t0 = stamp_mono();

	enc_buf_put_u8(&t->buf, '[');
	for (i = 0; i < p->npgs; i++) {
		if (p->pg_dead[i] || mon_proposal_creates(p, p->pgs[i].pgid))
			continue;	/* dropped, or with the new PGs below */
		if (n++ > 0)
			enc_buf_put_u8(&t->buf, ',');
		pg_text_stat(t, &p->pgs[i]);
	}
	for (j = 0; j < p->nnewpgs; j++) {
		np = &p->newpgs[j];
		for (s = np->from; s < np->to; s++) {
			if ((st = mon_proposal_pg(p, (struct pg_id){ np->pool,
			    s })) == NULL)
				st = &np->pgs[s - np->from];
			if (n++ > 0)
				enc_buf_put_u8(&t->buf, ',');
			pg_text_stat(t, st);
		}
	}
	enc_buf_put_u8(&t->buf, ']');
	p->pg_text = t->buf;	/* handed over: the loop sends it */
	memset(&t->buf, 0, sizeof t->buf);
	dout(LOG_COMMIT, 10, "commit %llu: %zu PGs as %zu bytes of JSON in "
	    "%lld us", (unsigned long long)p->seq, n, p->pg_text.len,
	    (long long)(stamp_mono() - t0));
}

/*
 * The committer thread is nicer than the loop by MON_COMMITTER_NICE: on a
 * machine with more busy threads than cores, the loop thread (every reply)
 * then gets a core back sooner when it wakes, while the committer (batched
 * writes, paced by their own acknowledgments) only batches more.  Measured:
 * status p99 during ingest 5.5 -> 4.0 ms, the same rate (BENCHMARKS.md).
 */
#define MON_COMMITTER_NICE 5

static void
mon_committer_renice(void)
{
	id_t tid = (id_t)syscall(SYS_gettid);
	int was;

	errno = 0;
	was = getpriority(PRIO_PROCESS, tid);
	if (errno != 0 || setpriority(PRIO_PROCESS, tid,
	    was + MON_COMMITTER_NICE > 19 ? 19 : was + MON_COMMITTER_NICE) ==
	    -1)
		log_warn("committer thread: cannot lower its priority");
}

static void *
mon_committer_main(void *arg)
{
	struct mon *m = arg;
	struct mon_proposal *p;
	uint64_t one = 1;

	mon_committer_renice();

	pthread_mutex_lock(&m->lock);
	for (;;) {
		while (m->to_commit == NULL && !m->stopping)
			pthread_cond_wait(&m->cond, &m->lock);
		if (m->to_commit == NULL)
			break;
		p = m->to_commit;
		m->to_commit = NULL;
		pthread_mutex_unlock(&m->lock);

		mon_commit_write(m, p);
		if (p->rc == 0 && p->want_pg_text)
			mon_commit_pg_text(m, p);

		pthread_mutex_lock(&m->lock);
		m->committed = p;
		pthread_cond_broadcast(&m->cond);
		if (write(m->wake_fd, &one, sizeof one) != sizeof one)
			log_warn("committer: eventfd write");
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* The loop's half: apply a durable proposal, or undo a failed one. */

static void
mon_answer(struct mon_proposal *p, int rc, const char *why)
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

/* The pools p creates, grows and removes, with their figures, at once. */
static void
mon_apply_pools(struct mon *m, struct mon_proposal *p)
{
	size_t i;

	for (i = 0; i < p->nremoved_pools; i++)
		pgmap_pool_remove(&m->pgmap, p->removed_pools[i]);
	for (i = 0; i < p->nnewpgs; i++) {
		struct mon_newpgs *np = &p->newpgs[i];

		if (np->from > 0 && pgmap_pool(&m->pgmap, np->pool) != NULL) {
			pgmap_pool_grow(&m->pgmap, np->pool, np->to, np->pgs);
		} else {
			pgmap_pool_add(&m->pgmap, np->pool, np->to, np->pgs);
			np->pgs = NULL;
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
		placement_free(m->placement);
		m->placement = osdmap_placement(&m->osdmap);
		m->perf.osdmap_epochs++;
	}
	if (p->pgmap_version != 0) {
		m->pgmap.version = p->pgmap_version;
		m->pgmap.stamp = p->rec.stamp;
	}
	for (i = 0; i < p->nlog; i++)
		mon_clog_append(m, &p->log[i]);

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

	mon_answer(p, 0, NULL);

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
		m->notify(m->notify_arg, &info);
	}
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
mon_store_errno(int rc)
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
mon_undo(struct mon *m, struct mon_proposal *p)
{
	struct mon_proposal *pending;
	int rc = mon_store_errno(p->rc);
	const char *why = p->cause ? p->cause : store_strerror(p->rc);

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
	mon_answer(p, rc, why);
	if (pending != NULL) {
		mon_answer(pending, rc, why);
		mon_proposal_free(pending);
	}
	m->health_dirty = 1;
}

/* After p is applied or undone: what comes next. */
static void
mon_reaped(struct mon *m, struct mon_proposal *p)
{
	mon_proposal_recycle(m, p);
	mon_health_update(m);
	mon_propose_maybe(m);
}

/*
 * A commit's PG updates are copied into the pgmap by mon_apply_slice(), their
 * figures counted into a tally merged by mon_apply_end().  A commit of more
 * than MON_APPLY_SLICE PG updates that creates or removes no pool is applied
 * MON_APPLY_SLICE PGs per loop turn, so that a `status' waits for one
 * slice, not for the whole commit (tens of milliseconds at 50,000 PGs);
 * any other is applied at once, by mon_settle() right away.
 * Meanwhile the commit stays invisible: the PGs' figures go to a tally
 * merged at the end, when the version moves and the waiters are answered;
 * mon_pg_view() finds the applying proposal's stats, so new reports are
 * checked against them; nothing is sealed; and whoever reads single PGs
 * from the pgmap calls mon_settle() first, which finishes the apply.  An
 * osdmap change in the commit is installed at the end with the rest.
 * Commits that create or remove pools are applied at once (the tally
 * follows the pools as they are).
 */
static int
mon_apply_sliced(const struct mon_proposal *p)
{
	return p->nnewpgs == 0 && p->nremoved_pools == 0 &&
	    p->npgs > MON_APPLY_SLICE;
}

static void
mon_apply_begin(struct mon *m, struct mon_proposal *p)
{
	static const struct timeval now;

	mon_apply_pools(m, p);
	m->applying = p;
	m->apply_next = 0;
	pgmap_tally_for(&m->apply_tally, &m->pgmap);
	if (!mon_apply_sliced(p)) {
		mon_settle(m);
		return;
	}
	m->perf.sliced_applies++;
	evtimer_add(m->apply_timer, &now);
}

/* Apply up to n more PGs of the applying proposal; 1 when all are. */
static int
mon_apply_slice(struct mon *m, size_t n)
{
	struct mon_proposal *p = m->applying;
	size_t i, end;

	end = p->npgs - m->apply_next > n ? m->apply_next + n : p->npgs;
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

static void
mon_apply_end(struct mon *m)
{
	struct mon_proposal *p = m->applying;

	evtimer_del(m->apply_timer);
	pgmap_tally_merge(&m->pgmap, &m->apply_tally);
	pgmap_clear(&m->apply_tally);
	m->applying = NULL;
	mon_apply_finish(m, p);
	mon_reaped(m, p);
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
mon_reap(struct mon *m)
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
		mon_apply_begin(m, p);	/* mon_reaped() at its end */
		return 1;
	}
	mon_undo(m, p);
	mon_reaped(m, p);
	return 1;
}

static void
mon_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof n) == -1 && errno != EAGAIN)
		log_warn("committer eventfd read");
	mon_reap(m);
}

int
mon_committer_start(struct mon *m, char **cause)
{
	int rc;

	m->retry_ms = MON_RETRY_MIN_MS;
	m->batch = store_batch_new();
	pg_text_init(&m->pg_text);
	if ((m->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1) {
		xasprintf(cause, "eventfd: %s", strerror(errno));
		return -1;
	}
	m->wake_event = event_new(m->base, m->wake_fd, EV_READ | EV_PERSIST,
	    mon_wake_cb, m);
	m->propose_timer = evtimer_new(m->base, mon_propose_timer_cb, m);
	m->retry_timer = evtimer_new(m->base, mon_retry_cb, m);
	m->apply_timer = evtimer_new(m->base, mon_apply_timer_cb, m);
	if (m->wake_event == NULL || m->propose_timer == NULL ||
	    m->retry_timer == NULL || m->apply_timer == NULL ||
	    event_add(m->wake_event, NULL) == -1) {
		xasprintf(cause, "cannot set up the committer's events");
		return -1;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	if ((rc = pthread_create(&m->thread, NULL, mon_committer_main,
	    m)) != 0) {
		xasprintf(cause, "pthread_create: %s", strerror(rc));
		return -1;
	}
	return 0;
}

/* Wait (on the loop thread, at shutdown) for the commit in flight. */
static void
mon_wait_inflight(struct mon *m)
{
	pthread_mutex_lock(&m->lock);
	while (m->committed == NULL)
		pthread_cond_wait(&m->cond, &m->lock);
	pthread_mutex_unlock(&m->lock);
	mon_reap(m);
	mon_settle(m);
}

void
mon_committer_stop(struct mon *m)
{
	int rounds;

	/*
	 * Finish the commit in progress and what is pending; a store that
	 * keeps failing gets one try per proposal.
	 */
	for (rounds = 0; rounds < 4; rounds++) {
		mon_settle(m);
		if (m->inflight != NULL)
			mon_wait_inflight(m);
		if (m->pending == NULL || m->store_error)
			break;
		mon_propose_seal(m);
	}
	if (m->inflight != NULL)
		mon_wait_inflight(m);
	if (m->pending != NULL) {
		mon_answer(m->pending, -ESHUTDOWN, "the monitor is stopping");
		mon_proposal_free(m->pending);
		m->pending = NULL;
	}
	mon_pgbufs_free(&m->spare_pgs);
	pthread_mutex_lock(&m->lock);
	m->stopping = 1;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->thread, NULL);
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->cond);
	event_free(m->wake_event);
	event_free(m->propose_timer);
	event_free(m->retry_timer);
	event_free(m->apply_timer);
	close(m->wake_fd);
	store_batch_free(m->batch);
	enc_buf_free(&m->enc);
	pg_text_free(&m->pg_text);
}

void
mon_want_pg_text(struct mon *m, int on)
{
	m->want_pg_text = on != 0;
}
