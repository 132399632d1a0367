/*
 * mon_committer.c: the committer thread, and the design of the commit
 * pipeline it is the middle of.  Everything in this file runs on the
 * committer thread; the thread runs nothing else but what this file calls:
 * encoders, the store, and lookups that only read the proposal it holds.
 *
 * Two threads.  The event loop runs everything of the monitor but the store
 * write of a commit: it validates and stages writes (mon_stage.c), seals
 * proposals, applies the commits that come back (mon_apply.c) and answers
 * every read from the committed state (with several monitors, the codec
 * thread of mon_quorum.c encodes the entries it seals and decodes the
 * other monitors').
 * The committer thread makes the PGs of new and grown pools, encodes
 * every record of a sealed proposal into one store batch and commits it:
 * the fsync happens here, never on the loop.  It also frees the large arrays the loop is done with (those of
 * pools removed or grown, a proposal's PG arrays), which the loop hands it
 * through the mailbox (mon_apply_garbage()): a munmap of tens of megabytes
 * is milliseconds.
 *
 * Who owns what.  The loop owns struct mon: the committed maps, figures and
 * commit record, the working osdmap, the pending proposal, the cluster log,
 * the health, the timers.  The committer owns its batch, its encoding
 * buffer and its JSON writer (struct mon_committer, made and freed by the
 * thread itself), and, from the seal until it hands it back, the proposal
 * in flight: the loop does not change it meanwhile, only reads its PGs
 * (mon_stage_pg_view()).  They share the store (one thread commits while
 * others read, store/store.h), the eventfd m->wake_fd and a mailbox under
 * m->lock: m->to_commit, m->committed, m->garbage and m->stopping.
 *
 * How a proposal moves.
 *   pending    mon_stage_*() put the changes of writes in m->pending, made
 *              on the first change.  It is sealed when it has waited
 *              propose_interval or holds propose_max_ops changes, and only
 *              when no other proposal is in flight or applying: one commit
 *              at a time, the next one filling meanwhile.
 *   in flight  Sealing fixes its epoch, version, log sequence numbers and
 *              trim ranges, and puts it in m->inflight and m->to_commit.
 *              This thread takes it, writes and commits its batch (and the
 *              JSON text of its PGs, when subscribers want it), puts it in
 *              m->committed and writes to m->wake_fd.
 *   applying   The loop, woken, takes it back.  A durable commit is copied
 *              into the committed state (a slice of PGs per loop turn when
 *              it is large), then made seen: the version moves, its writers
 *              are answered, the subscribers notified.  A failed one changes
 *              nothing committed: its writers, and those of the proposal
 *              pending on top of it, get the error, and a retry timer probes
 *              the store with commits of its own, with backoff, until one
 *              succeeds (mon.h).
 *   recycled   Its PG arrays are kept for the next pending proposal
 *              (mon_proposal.c); the health of the new state is evaluated
 *              and its changes staged in the cluster log (mon_stage_health());
 *              the next proposal may seal.
 * mapmond(8) says what a user sees of it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/keys.h"
#include "mon/mon_priv.h"
#include "mon/mon_record.h"

/* The smallest page size: touching every MON_PAGE_SIZE bytes touches all. */
#define MON_PAGE_SIZE 4096

/* What only the committer thread touches. */
struct mon_committer {
	struct mon *m;
	struct store_batch *batch;
	struct enc_buf enc;		/* the value being encoded */
	struct pg_text pg_text;		/* the JSON writer of a commit's PGs */
};

/* A creating PG's stat: placed by the new map, nothing reported yet. */
static void
mon_committer_creating(const struct osdmap *map, const struct osdmap_place *pl,
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
		n = op ? osdmap_place_pg(pl, pool, op->crush_rule, seed,
			     op->size, st->up) :
			 0;
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
		st->last_unstale = st->last_undegraded = stamp;
		st->last_fullsized = stamp;
		/* As Ceph's: the scrub clocks start at the creation. */
		st->last_scrub_stamp = st->last_deep_scrub_stamp = stamp;
	}
}

/*
 * Touch every page of p[0, len): the loop copies a grown pool's stats
 * there as it applies the commit, and the first touch of a page costs a
 * fault (about 2 ms per 1,024 PGs in a VM): paid here, not on the loop.
 */
static void
mon_committer_touch(void *p, size_t len)
{
	volatile char *c = p;
	size_t i;

	for (i = 0; i < len; i += MON_PAGE_SIZE)
		c[i] = 0;
}

/*
 * Free what the loop handed over (mon_apply_garbage()); called and
 * returns with m->lock held, which it lets go meanwhile.
 */
static void
mon_committer_garbage(struct mon *m)
{
	void **v = m->garbage;
	size_t i, n = m->ngarbage;

	m->garbage = NULL;
	m->ngarbage = 0;
	pthread_mutex_unlock(&m->lock);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	pthread_mutex_lock(&m->lock);
}

/* Put the value encoded in c->enc under key. */
static void
mon_committer_put(struct mon_committer *c, const void *key, size_t klen)
{
	store_batch_put(c->batch, key, klen, c->enc.data, c->enc.len);
	enc_buf_reset(&c->enc);
}

/* store_value_fn: a PG record, encoded while the store commits. */
static void
mon_committer_pg_value(const void *arg, struct enc_buf *out)
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
mon_committer_pg(struct mon_committer *c, const struct pg_stat *st)
{
	uint8_t key[KEYS_PG_LEN];

	keys_pg(key, st->pgid.pool, st->pgid.seed);
	store_batch_put_fn(c->batch, key, sizeof key, pg_stat_encoded_size(st),
	    mon_committer_pg_value, st);
}

/* The pgmap incremental: ids of the PGs changed, in bounded chunks. */
static void
mon_committer_pginc(struct mon_committer *c, struct mon_proposal *p)
{
	uint8_t key[KEYS_PGINC_LEN];
	uint32_t chunk = 0, inchunk = 0, s;
	size_t i, j;

#define MON_PGINC_ADD(pool, seed)                                              \
	do {                                                                   \
		if (inchunk == 0)                                              \
			enc_buf_reset(&c->enc);                                \
		enc_buf_put_u32(&c->enc, (pool));                              \
		enc_buf_put_u32(&c->enc, (seed));                              \
		if (++inchunk == KEYS_PGINC_CHUNK) {                           \
			keys_pginc(key, p->pgmap_version, chunk++);            \
			mon_committer_put(c, key, sizeof key);                 \
			inchunk = 0;                                           \
		}                                                              \
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
			enc_buf_reset(&c->enc);
		keys_pginc(key, p->pgmap_version, chunk);
		mon_committer_put(c, key, sizeof key);
	}
}

/* p->rec still holds the old trim floors; the trims start there. */
static void
mon_committer_trim(struct mon_committer *c, const struct mon_proposal *p)
{
	const struct mon_rec *old = &p->rec;
	uint8_t lo[KEYS_PGINC_LEN], hi[KEYS_PGINC_LEN];

	if (p->trim_osdmap_to > old->osdmap_first) {
		keys_epoch(lo, KEYS_OSDMAP, old->osdmap_first);
		keys_epoch(hi, KEYS_OSDMAP, p->trim_osdmap_to);
		store_batch_delete_range(c->batch, lo, KEYS_EPOCH_LEN, hi,
		    KEYS_EPOCH_LEN);
		keys_epoch(lo, KEYS_OSDMAP_INC, old->osdmap_first);
		keys_epoch(hi, KEYS_OSDMAP_INC, p->trim_osdmap_to);
		store_batch_delete_range(c->batch, lo, KEYS_EPOCH_LEN, hi,
		    KEYS_EPOCH_LEN);
	}
	if (p->trim_pgmap_to > old->pgmap_first) {
		keys_pginc(lo, old->pgmap_first, 0);
		keys_pginc(hi, p->trim_pgmap_to, 0);
		store_batch_delete_range(c->batch, lo, KEYS_PGINC_LEN, hi,
		    KEYS_PGINC_LEN);
	}
	if (p->trim_log_to > old->log_first) {
		keys_log(lo, old->log_first);
		keys_log(hi, p->trim_log_to);
		store_batch_delete_range(c->batch, lo, KEYS_LOG_LEN, hi,
		    KEYS_LOG_LEN);
	}
}

/* Build p's batch and commit it; the outcome goes in p. */
static void
mon_committer_write(struct mon_committer *c, struct mon_proposal *p)
{
	struct osdmap_place *pl = NULL;
	struct mon_rec rec;
	uint8_t key[KEYS_PGINC_LEN], hi[KEYS_PG_LEN];
	int64_t t0 = stamp_mono();
	size_t i;
	uint32_t s;

	store_batch_clear(c->batch);
	enc_buf_reset(&c->enc);

	if (p->nnewpgs > 0)
		pl = osdmap_place_new(&p->osdmap);
	for (i = 0; i < p->nnewpgs; i++) {
		struct mon_newpgs *np = &p->newpgs[i];

		np->pgs = xreallocarray(NULL, np->to, sizeof *np->pgs);
		mon_committer_touch(np->pgs, np->from * sizeof *np->pgs);
		mon_committer_creating(&p->osdmap, pl, np->pool, np->from,
		    np->to, p->inc.epoch, p->rec.stamp, np->pgs + np->from);
	}
	osdmap_place_free(pl);

	for (i = 0; i < p->nremoved_pools; i++) {
		keys_pg(key, p->removed_pools[i], 0);
		if (p->removed_pools[i] == UINT32_MAX) {
			hi[0] = KEYS_PG + 1;
			store_batch_delete_range(c->batch, key, KEYS_PG_LEN, hi,
			    1);
		} else {
			keys_pg(hi, p->removed_pools[i] + 1, 0);
			store_batch_delete_range(c->batch, key, KEYS_PG_LEN, hi,
			    KEYS_PG_LEN);
		}
	}
	for (i = 0; i < p->npgs; i++)
		if (!p->pg_dead[i])
			mon_committer_pg(c, &p->pgs[i]);
	for (i = 0; i < p->nnewpgs; i++)
		for (s = p->newpgs[i].from; s < p->newpgs[i].to; s++)
			mon_committer_pg(c, &p->newpgs[i].pgs[s]);
	if (p->has_inc) {
		osdmap_encode(&p->osdmap, &c->enc);
		keys_epoch(key, KEYS_OSDMAP, p->inc.epoch);
		mon_committer_put(c, key, KEYS_EPOCH_LEN);
		osdmap_inc_encode(&p->inc, &c->enc);
		keys_epoch(key, KEYS_OSDMAP_INC, p->inc.epoch);
		mon_committer_put(c, key, KEYS_EPOCH_LEN);
	}
	if (p->pgmap_version != 0)
		mon_committer_pginc(c, p);
	for (i = 0; i < p->nstatfs; i++) {
		mon_record_statfs_encode(&p->statfs[i].st, &c->enc);
		keys_statfs(key, p->statfs[i].id);
		mon_committer_put(c, key, KEYS_STATFS_LEN);
	}
	/* A removed OSD's capacity goes with it (none is put above). */
	for (i = 0; p->has_inc && i < p->inc.nremoved_osds; i++) {
		if (osdmap_osd(&p->osdmap, p->inc.removed_osds[i]) != NULL)
			continue;
		keys_statfs(key, p->inc.removed_osds[i]);
		store_batch_delete(c->batch, key, KEYS_STATFS_LEN);
	}
	for (i = 0; i < p->nlog; i++) {
		mon_record_log_encode(&p->log[i], &c->enc);
		keys_log(key, p->log[i].seq);
		mon_committer_put(c, key, KEYS_LOG_LEN);
	}
	if (p->has_mutes) {
		mon_record_mutes_encode(p->mutes, p->nmutes, &c->enc);
		key[0] = KEYS_MUTES;
		mon_committer_put(c, key, 1);
	}
	if (p->has_monmap) {
		monmap_encode(&p->monmap, &c->enc);
		key[0] = KEYS_MONMAP;
		mon_committer_put(c, key, 1);
	}
	for (i = 0; i < p->nauth; i++) {
		uint8_t akey[KEYS_AUTH_MAX];
		size_t alen = keys_auth(akey, p->auth[i].e.name);

		if (p->auth[i].removed) {
			store_batch_delete(c->batch, akey, alen);
			continue;
		}
		mon_record_auth_encode(&p->auth[i].e, &c->enc);
		mon_committer_put(c, akey, alen);
	}
	mon_committer_trim(c, p);
	rec = p->rec;
	rec.osdmap_first = p->trim_osdmap_to;
	rec.pgmap_first = p->trim_pgmap_to;
	rec.log_first = p->trim_log_to;
	p->rec = rec;
	mon_record_commit_encode(&rec, &c->enc);
	key[0] = KEYS_COMMIT;
	mon_committer_put(c, key, 1);
	if (p->raft_index != 0) {
		mon_quorum_record_encode(p, &c->enc);
		key[0] = KEYS_QUORUM;
		mon_committer_put(c, key, 1);
	}

	p->batch_ops = store_batch_count(c->batch);
	p->batch_bytes = store_batch_bytes(c->batch);
	p->rc = store_commit(c->m->store, c->batch, &p->cause);
	store_batch_clear(c->batch);
	p->commit_us = stamp_mono() - t0;
	dout(LOG_COMMIT, 10, "commit %llu: %zu records, %zu bytes, %lld us, "
	    "rc %d", (unsigned long long)p->seq, p->batch_ops, p->batch_bytes,
	    (long long)p->commit_us, p->rc);
}

/*
 * The changed PGs as one JSON array, in mon_commit_foreach_pg()'s order:
 * the updates of PGs that existed, then every PG the commit made, as the
 * update of the same commit left it.  Here, after the commit, so that the
 * loop only copies the text to its subscribers.
 */
static void
mon_committer_pg_text(struct mon_committer *c, struct mon_proposal *p)
{
	struct pg_text *t = &c->pg_text;
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
				st = &np->pgs[s];
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

void *
mon_committer_main(void *arg)
{
	struct mon_committer c;
	struct mon *m = arg;
	struct mon_proposal *p;
	uint64_t one = 1;

	memset(&c, 0, sizeof c);
	c.m = m;
	c.batch = store_batch_new();
	pg_text_init(&c.pg_text);
	mon_renice_thread("committer");

	pthread_mutex_lock(&m->lock);
	for (;;) {
		while (m->to_commit == NULL && m->ngarbage == 0 && !m->stopping)
			pthread_cond_wait(&m->cond, &m->lock);
		if (m->ngarbage > 0) {
			mon_committer_garbage(m);
			continue;
		}
		if (m->to_commit == NULL)
			break;
		p = m->to_commit;
		m->to_commit = NULL;
		pthread_mutex_unlock(&m->lock);

		mon_committer_write(&c, p);
		if (p->rc == 0 && p->want_pg_text)
			mon_committer_pg_text(&c, p);

		pthread_mutex_lock(&m->lock);
		m->committed = p;
		pthread_cond_broadcast(&m->cond);
		if (write(m->wake_fd, &one, sizeof one) != sizeof one)
			log_warn("committer: eventfd write");
	}
	pthread_mutex_unlock(&m->lock);
	store_batch_free(c.batch);
	enc_buf_free(&c.enc);
	pg_text_free(&c.pg_text);
	return NULL;
}
