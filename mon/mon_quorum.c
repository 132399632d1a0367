/*
 * mon_quorum.c: several monitors (mon_quorum.h): a sealed proposal as a
 * replicated entry, and committed entries back into the commit pipeline
 * (mon_committer.c), one at a time and in log order.
 *
 * The leader's own entry comes back as the proposal it sealed (matched by
 * this process's nonce and the proposal's sequence number): nothing is
 * decoded, its writers wait in it.  Any other entry (every entry on a
 * follower, those of earlier terms on a new leader) is decoded into a
 * proposal against the committed state, which is the leader's state at
 * that index, as every monitor applies the same entries in the same order:
 * the epochs, versions, sequence numbers, stamps and trims come in the
 * entry, never recomputed, and only the PGs of new pools are made here, by
 * the committer, from the map, as on the leader.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <zstd.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/keys.h"
#include "mon/mon_priv.h"
#include "mon/mon_quorum.h"
#include "mon/mon_record.h"

/* The entry's header: "MQE" and a format version. */
#define MON_QUORUM_MAGIC 0x4d514531u /* "MQE1" */
/*
 * 2: the monmap may follow the trims; 3: then the OSD capacities the
 * commit carries (mon_capacity.h); 4: then the leader's view of the
 * quorum, when it carries one (mon_quorum.h).
 */
#define MON_QUORUM_FORMAT 4
#define MON_QUORUM_REC_V 1
/* A snapshot's descriptor: "MQS1" and a format version. */
#define MON_QUORUM_SNAP_MAGIC 0x4d515331u /* "MQS1" */
#define MON_QUORUM_SNAP_FORMAT 1
/*
 * The entries a descriptor may carry (those committed and not yet in the
 * store: normally one or two, or the parts of one proposal split in
 * several): more, and no snapshot is taken this time.
 */
#define MON_QUORUM_SNAP_MAX (64 * MON_QUORUM_ENTRY_MAX)
/*
 * A part entry (mapmon-protocol(7), REPLICATED ENTRIES): "MQP1", a format,
 * the nonce, sequence number and term at the offsets of a whole entry's,
 * then part i of n, the whole encoding's length and this slice's.
 */
#define MON_QUORUM_PART_MAGIC 0x4d515031u /* "MQP1" */
#define MON_QUORUM_PART_FORMAT 1
#define MON_QUORUM_PART_HDR 56
/* A slice: what fits an entry with its header, in whole 8-byte words. */
#define MON_QUORUM_PART_DATA (MON_QUORUM_ENTRY_MAX - MON_QUORUM_PART_HDR)

/*
 * A compressed entry (mapmon-protocol(7), REPLICATED ENTRIES): "MQZ1", a
 * format, the nonce, sequence number and term at the offsets of a whole
 * entry's, the length of the whole entry it holds and of its Zstandard
 * frame, then the frame.  An encoding of MON_QUORUM_Z_MIN bytes or more
 * goes so when that is smaller (a PG map's commits shrink 20 to 40
 * times); split in parts as any whole entry when still over
 * MON_QUORUM_ENTRY_MAX.
 */
#define MON_QUORUM_Z_MAGIC 0x4d515a31u /* "MQZ1" */
#define MON_QUORUM_Z_FORMAT 1
#define MON_QUORUM_Z_HDR 48
#define MON_QUORUM_Z_MIN 4096
/* Zstandard's fastest level but one: the leader's loop compresses. */
#define MON_QUORUM_Z_LEVEL 1
/* Inflated this much at a time, between looks at the clock (about 2 ms). */
#define MON_QUORUM_Z_STEP ((size_t)2 << 20)
/* The largest whole entry a compressed one may hold. */
#define MON_QUORUM_RAW_MAX ((size_t)MON_QUORUM_PARTS_MAX * MON_QUORUM_ENTRY_MAX)
/*
 * A view commit that could not be replicated (the leader still leads) is
 * tried again this much later, not at once: no loop of refusals.
 */
#define MON_QUORUM_VIEW_RETRY_MS 200

struct mon_quorum_entry {
	uint64_t index;
	uint8_t *buf;
	size_t len;
};

/*
 * Another monitor's committed proposal being decoded.  The PG stats of a
 * proposal under full ingest (some 100,000) took a follower's loop 80 ms
 * in one turn, and every command it was asked waited as long; cut in
 * 2 ms turns, decoding was still a third of the loop's time, and its
 * reads waited for a core behind it (BENCHMARKS.md, "The decoder
 * thread").  So the loop does only what reads the monitor's state, the
 * head (the incremental applied to the committed map); the codec
 * thread inflates a compressed entry and decodes the body, owning d
 * meanwhile (d->running), and wakes the loop by q->work_fd.  The entries
 * stay queued until it is whole; nothing else is applied or proposed
 * meanwhile (mon_quorum_holds()), so the state it is decoded against does
 * not change under it.
 */
enum mon_quorum_dec_stage {
	MON_QUORUM_DEC_INFLATE, /* the codec thread's */
	MON_QUORUM_DEC_HEAD,	/* the loop's */
	MON_QUORUM_DEC_BODY,	/* the codec thread's */
	MON_QUORUM_DEC_DONE
};

struct mon_quorum_dec {
	int active;
	enum mon_quorum_dec_stage stage;
	int running; /* with the codec thread */
	int rc;	     /* what the thread's stage ended with, cause */
	char *cause;
	int64_t took_us; /* the thread's time on it */
	uint64_t index;	 /* the proposal's first entry */
	uint8_t *buf;	 /* the encoding, when not an entry's own */
	/* A compressed entry, inflated first (mon_quorum_inflate()). */
	int zleft;
	ZSTD_inBuffer zin; /* the compressed frame, in buf or queued */
	uint8_t *raw;	   /* what it inflates to */
	size_t rawlen, rawgot;
	struct enc_reader r;
	struct mon_proposal *p;
	uint32_t format;
	uint32_t pgs_left; /* PG stats still to decode */
	uint64_t term;
};

/*
 * This monitor's sealed proposal (m->inflight, not replicating yet) being
 * encoded and compressed by the codec thread: some 100,000 PG stats under
 * full ingest took the leader's loop 74 to 99 ms in one turn
 * (BENCHMARKS.md, "The decoder thread").  The loop does not change a
 * proposal in flight (mon_committer.c), and nothing else is sealed
 * meanwhile; the entry is proposed, in the term it was encoded for, when
 * the thread is done (mon_quorum_seal_send()).
 */
struct mon_quorum_sealing {
	int running; /* with the codec thread */
	struct mon_proposal *p;
	uint64_t term;
	int compress;
	size_t rawlen; /* before compression */
	struct enc_buf b;
};

enum mon_quorum_job {
	MON_QUORUM_JOB_NONE,
	MON_QUORUM_JOB_DECODE, /* q->dec's next stage */
	MON_QUORUM_JOB_SEAL,   /* q->sealing */
};

struct mon_quorum {
	mon_replicate_cb *replicate;
	void *arg;
	uint64_t nonce; /* this process's: its own entries */
	enum mon_quorum_role role;
	int barrier_done; /* the leader's barrier came back */
	int ready;	  /* and every entry before it is applied */
	uint64_t term;
	char *leader;
	char *leader_addr;

	uint64_t applied_index;
	uint64_t applied_term;
	uint64_t committed_index;

	/* Committed entries not yet applied, oldest first. */
	struct mon_quorum_entry *q;
	size_t qhead, qlen, qcap;
	struct event *pump_ev;
	/*
	 * The entries taken off the queue and not yet applied (in flight,
	 * applying, the parts of the proposal being applied, parts
	 * discarded), oldest first: a snapshot's descriptor carries them
	 * with those queued, as they are not in the store yet.  Those at or
	 * below the applied entry go.
	 */
	struct mon_quorum_entry *held;
	size_t nheld, heldcap;
	/*
	 * The queue holds the first parts of a proposal and not its last:
	 * nothing to apply until more entries come.
	 */
	int parts_wait;
	ZSTD_CCtx *zc; /* made at the first compression */
	ZSTD_DCtx *zd;
	/* A copy of the store is awaited: nothing is applied meanwhile. */
	int syncing;
	uint64_t sync_from; /* the copy must hold this entry */
	struct mon_quorum_dec dec;
	/*
	 * The codec thread: work_job under work_lock hands it q->dec or
	 * q->sealing, one at a time, and is cleared when it is done;
	 * work_cancel asks it to stop a decoding early.
	 */
	pthread_t work_thread;
	int work_thread_up;
	pthread_mutex_t work_lock;
	pthread_cond_t work_cond;
	enum mon_quorum_job work_job;
	int work_quit;
	atomic_int work_cancel;
	int work_fd; /* an eventfd: the thread is done */
	struct event *work_ev;
	struct mon_quorum_sealing sealing;

	struct mon_quorum_info stats;
	struct mon_quorum_view view; /* the engine's (mon_quorum_set_view) */
	/*
	 * The leader's view as last applied from a commit (has_lview), and,
	 * on the leader, whether its own changed since a seal carried it;
	 * view_ev stages the commit that carries it, on a later loop turn.
	 */
	struct mon_quorum_view lview;
	int has_lview;
	int view_dirty;
	struct event *view_ev;

	mon_quorum_applied_cb *applied_cb;
	void *applied_arg;
};

static void mon_quorum_view_cb(evutil_socket_t, short, void *);
static void mon_quorum_pump_cb(evutil_socket_t, short, void *);
static void mon_quorum_seal_encode(struct mon_quorum *);
static void mon_quorum_work_submit(struct mon_quorum *, enum mon_quorum_job);
static void mon_quorum_work_wait(struct mon_quorum *);

/* This monitor leads and the engine gave it its view, to replicate. */
static int
mon_quorum_view_ours(const struct mon_quorum *q)
{
	return q->role == MON_QUORUM_LEADER && q->view.complete &&
	    q->view.leader >= 0 && q->view.leader == q->view.self;
}

/* Stage the commit that carries the leader's view, ms from now. */
static void
mon_quorum_view_arm(struct mon *m, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	if (m->quorum->view_ev != NULL && !m->stopped)
		evtimer_add(m->quorum->view_ev, &tv);
}

static void
mon_quorum_view_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;
	struct mon_quorum *q = m->quorum;

	(void)fd;
	(void)what;
	/*
	 * Not ready yet: mon_quorum_become_ready() arms it again; a pending
	 * proposal would be dropped meanwhile.
	 */
	if (q->view_dirty && q->ready && mon_quorum_view_ours(q) && !m->stopped)
		mon_stage_view(m);
}

/*
 * Answer p's writers rc and why.  Every EAGAIN here comes of the quorum's
 * state and changed nothing: it carries "retry": true, and a follower's
 * that knows its leader {"leader": NAME, "leader_addr": ADDR} too, which
 * clients follow (mapmon-protocol(7)).
 */
static void
mon_quorum_answer_to(const struct mon_quorum *q, struct mon_proposal *p, int rc,
    const char *why)
{
	json_t *data;
	size_t i;

	for (i = 0; i < p->nwaiters; i++) {
		data = NULL;
		if (rc == -EAGAIN && q != NULL &&
		    q->role == MON_QUORUM_FOLLOWER && q->leader_addr != NULL)
			data = json_pack("{s:s, s:s, s:b}", "leader", q->leader,
			    "leader_addr", q->leader_addr, "retry", 1);
		else if (rc == -EAGAIN)
			data = json_pack("{s:b}", "retry", 1);
		p->waiters[i].done(p->waiters[i].arg, rc, why, data);
	}
	/* The caller frees p, and with it each waiter's status and data. */
}

static void
mon_quorum_answer(struct mon_proposal *p, int rc, const char *why)
{
	mon_quorum_answer_to(NULL, p, rc, why);
}

/*
 * Drop what is pending (and what replicates, when drop_inflight): its
 * writers get rc and why; the working map is the committed one again.
 */
static void
mon_quorum_drop(struct mon *m, int drop_inflight, int rc, const char *why,
    int inflight_rc, const char *inflight_why)
{
	struct mon_proposal *p;

	if (drop_inflight && m->inflight != NULL && m->inflight->replicating) {
		p = m->inflight;
		m->inflight = NULL;
		m->quorum->stats.unknown_outcomes += p->nwaiters > 0;
		mon_quorum_answer(p, inflight_rc, inflight_why);
		/* Sent again if this monitor still leads (harmless twice). */
		mon_capacity_unseal(m, p);
		mon_quorum_view_unseal(m, p);
		mon_proposal_recycle(m, p);
	}
	if (m->pending != NULL) {
		p = m->pending;
		m->pending = NULL;
		evtimer_del(m->propose_timer);
		mon_quorum_answer_to(m->quorum, p, rc, why);
		mon_proposal_free(p);
	}
	if (m->inflight == NULL && m->applying == NULL)
		osdmap_copy(&m->work, &m->osdmap);
	else {
		/*
		 * What is on its way stays, what was pending goes: left in
		 * the working map, a dropped pool would answer a retry
		 * "already exists" and never be made.
		 */
		p = m->inflight != NULL ? m->inflight : m->applying;
		osdmap_copy(&m->work,
		    p->has_inc && p->osdmap.epoch > m->osdmap.epoch ?
			&p->osdmap :
			&m->osdmap);
	}
}

static int mon_quorum_become_ready(struct mon *);

/* Why this monitor does not take writes now (a new string). */
static char *
mon_quorum_why_not(const struct mon_quorum *q)
{
	char *why;

	if (q->role == MON_QUORUM_FOLLOWER && q->leader != NULL)
		xasprintf(&why,
		    "this monitor is not the leader: mon.%s at %s "
		    "leads (retry there)",
		    q->leader, q->leader_addr ? q->leader_addr : "?");
	else if (q->role == MON_QUORUM_LEADER)
		xasprintf(&why,
		    "this monitor was just elected and is "
		    "applying the log of earlier terms (retry)");
	else
		xasprintf(&why,
		    "no quorum: this monitor cannot reach a "
		    "majority of the monitors (retry later, or another one)");
	return why;
}

int
mon_quorum_holds(struct mon *m)
{
	struct mon_quorum *q = m->quorum;
	char *why;

	if (q == NULL)
		return 0;
	if ((q->qlen > 0 || q->syncing) && mon_quorum_pump(m))
		return 1;
	if (!q->ready && mon_quorum_become_ready(m))
		return 1; /* it ran mon_stage_propose() itself */
	if (q->ready)
		return 0;
	if (m->pending != NULL) {
		why = mon_quorum_why_not(q);
		mon_quorum_drop(m, 0, -EAGAIN, why, 0, NULL);
		free(why);
	}
	return 1;
}

/* The entry of p: what every monitor needs to commit what the leader did. */
static void
mon_quorum_encode(const struct mon_quorum *q, uint64_t term,
    const struct mon_proposal *p, struct enc_buf *b)
{
	struct enc_buf tmp = { 0 };
	size_t i, n = 0;

	enc_buf_put_u32(b, MON_QUORUM_MAGIC);
	enc_buf_put_u32(b, MON_QUORUM_FORMAT);
	enc_buf_put_u64(b, q->nonce);
	enc_buf_put_u64(b, p->seq);
	enc_buf_put_u64(b, term);
	enc_buf_put_u64(b, p->ops);
	enc_buf_put_u8(b, (uint8_t)(p->has_inc != 0));
	if (p->has_inc) {
		osdmap_inc_encode(&p->inc, &tmp);
		enc_buf_put_u32(b, (uint32_t)tmp.len);
		enc_buf_put_bytes(b, tmp.data, tmp.len);
		enc_buf_reset(&tmp);
	}
	for (i = 0; i < p->npgs; i++)
		n += !p->pg_dead[i];
	enc_buf_put_u32(b, (uint32_t)n);
	for (i = 0; i < p->npgs; i++)
		if (!p->pg_dead[i])
			pg_stat_encode(&p->pgs[i], b);
	enc_buf_put_u32(b, (uint32_t)p->nnewpgs);
	for (i = 0; i < p->nnewpgs; i++) {
		enc_buf_put_u32(b, p->newpgs[i].pool);
		enc_buf_put_u32(b, p->newpgs[i].from);
		enc_buf_put_u32(b, p->newpgs[i].to);
	}
	enc_buf_put_u32(b, (uint32_t)p->nremoved_pools);
	for (i = 0; i < p->nremoved_pools; i++)
		enc_buf_put_u32(b, p->removed_pools[i]);
	enc_buf_put_u32(b, (uint32_t)p->nlog);
	for (i = 0; i < p->nlog; i++) {
		mon_record_log_encode(&p->log[i], &tmp);
		enc_buf_put_u32(b, (uint32_t)tmp.len);
		enc_buf_put_bytes(b, tmp.data, tmp.len);
		enc_buf_reset(&tmp);
	}
	enc_buf_put_u32(b, (uint32_t)p->nauth);
	for (i = 0; i < p->nauth; i++) {
		enc_buf_put_u8(b, (uint8_t)(p->auth[i].removed != 0));
		enc_buf_put_str(b, p->auth[i].e.name);
		if (!p->auth[i].removed)
			mon_record_auth_encode(&p->auth[i].e, &tmp);
		enc_buf_put_u32(b, (uint32_t)tmp.len);
		enc_buf_put_bytes(b, tmp.data, tmp.len);
		enc_buf_reset(&tmp);
	}
	enc_buf_put_u8(b, (uint8_t)(p->has_mutes != 0));
	if (p->has_mutes) {
		mon_record_mutes_encode(p->mutes, p->nmutes, &tmp);
		enc_buf_put_u32(b, (uint32_t)tmp.len);
		enc_buf_put_bytes(b, tmp.data, tmp.len);
		enc_buf_reset(&tmp);
	}
	enc_buf_put_u64(b, p->pgmap_version);
	mon_record_commit_encode(&p->rec, &tmp);
	enc_buf_put_u32(b, (uint32_t)tmp.len);
	enc_buf_put_bytes(b, tmp.data, tmp.len);
	enc_buf_put_u32(b, p->trim_osdmap_to);
	enc_buf_put_u64(b, p->trim_pgmap_to);
	enc_buf_put_u64(b, p->trim_log_to);
	enc_buf_put_u8(b, (uint8_t)(p->has_monmap != 0));
	if (p->has_monmap) {
		enc_buf_reset(&tmp);
		monmap_encode(&p->monmap, &tmp);
		enc_buf_put_u32(b, (uint32_t)tmp.len);
		enc_buf_put_bytes(b, tmp.data, tmp.len);
		enc_buf_reset(&tmp);
	}
	enc_buf_put_u32(b, (uint32_t)p->nstatfs);
	for (i = 0; i < p->nstatfs; i++) {
		enc_buf_put_u32(b, (uint32_t)p->statfs[i].id);
		enc_buf_reset(&tmp);
		mon_record_statfs_encode(&p->statfs[i].st, &tmp);
		enc_buf_put_u32(b, (uint32_t)tmp.len);
		enc_buf_put_bytes(b, tmp.data, tmp.len);
	}
	enc_buf_reset(&tmp);
	enc_buf_put_u8(b, (uint8_t)(p->has_view != 0));
	if (p->has_view) {
		enc_buf_put_u64(b, p->view.term);
		enc_buf_put_u32(b, (uint32_t)p->view.leader);
		enc_buf_put_u64(b, (uint64_t)p->view.since);
		enc_buf_put_u32(b, (uint32_t)p->view.nin);
		for (i = 0; i < MONMAP_MAX_MONS; i++)
			if (p->view.in[i])
				enc_buf_put_u32(b, (uint32_t)i);
	}
	/* The engine takes entries of whole 8-byte words. */
	while (b->len % 8 != 0)
		enc_buf_put_u8(b, 0);
	OPENSSL_cleanse(tmp.data, tmp.cap);
	enc_buf_free(&tmp);
}

/* A u32-length blob of r, or NULL (r failed). */
static const uint8_t *
mon_quorum_blob(struct enc_reader *r, uint32_t *len)
{
	*len = enc_get_u32(r);
	return enc_reader_take(r, *len);
}

/*
 * Take d back from the codec thread, stopped early: within some 0.2 ms
 * (256 PG stats or MON_QUORUM_Z_STEP bytes inflated).
 */
static void
mon_quorum_dec_reclaim(struct mon_quorum *q, struct mon_quorum_dec *d)
{
	if (!d->running)
		return;
	atomic_store(&q->work_cancel, 1);
	mon_quorum_work_wait(q);
	atomic_store(&q->work_cancel, 0);
	d->running = 0;
}

/* Forget a decoding (its proposal too) and the buffers it owned. */
static void
mon_quorum_dec_clear(struct mon_quorum *q, struct mon_quorum_dec *d)
{
	mon_quorum_dec_reclaim(q, d);
	if (d->p != NULL)
		mon_proposal_free(d->p);
	free(d->buf);
	free(d->raw);
	free(d->cause);
	memset(d, 0, sizeof *d);
}

/*
 * Decode the head of an entry into a new proposal made against the
 * committed state (the loop's: it reads m): up to the count of its PG
 * stats, d->r reading the encoding (mon_quorum_pump() sets it and
 * d->active).  0: d->p is the proposal (its term in d->term), its body
 * next; -1 with *cause when the entry is bad.
 */
static int
mon_quorum_decode_head(struct mon *m, struct mon_quorum_dec *d, char **cause)
{
	struct mon_proposal *p;
	struct enc_reader r = d->r;
	const uint8_t *v;
	uint32_t vlen, format;
	char *why = NULL;

	if (enc_get_u32(&r) != MON_QUORUM_MAGIC) {
		xasprintf(cause, "not a mapmon entry (bad magic)");
		return -1;
	}
	if ((format = enc_get_u32(&r)) < 1 || format > MON_QUORUM_FORMAT) {
		xasprintf(cause, "entry format %u, this mapmon knows 1 to %u",
		    format, MON_QUORUM_FORMAT);
		return -1;
	}
	p = d->p = mon_proposal_new(m);
	d->format = format;
	(void)enc_get_u64(&r); /* nonce and seq: the pump read them */
	(void)enc_get_u64(&r);
	d->term = enc_get_u64(&r);
	p->ops = enc_get_u64(&r);
	p->has_inc = enc_get_u8(&r);
	if (p->has_inc) {
		if ((v = mon_quorum_blob(&r, &vlen)) == NULL) {
			xasprintf(cause, "entry truncated in its incremental");
			return -1;
		}
		osdmap_inc_clear(&p->inc);
		if (osdmap_inc_decode(v, vlen, &p->inc, &why) == -1)
			goto bad;
		if (p->inc.epoch != m->rec.osdmap_epoch + 1) {
			xasprintf(&why, "it makes epoch %u on epoch %u",
			    p->inc.epoch, m->rec.osdmap_epoch);
			goto bad;
		}
		osdmap_copy(&p->osdmap, &m->osdmap);
		if (osdmap_apply(&p->osdmap, &p->inc, &why) == -1)
			goto bad;
	}
	d->pgs_left = enc_get_u32(&r);
	d->r = r;
	d->stage = MON_QUORUM_DEC_BODY;
	return 0;
bad:
	xasprintf(cause, "bad entry: %s", why ? why : "?");
	free(why);
	return -1;
}

/*
 * Decode the body of the entry whose head d->p holds: its PG stats, the
 * bulk of a large entry, and the rest.  It reads and writes only d and
 * d->p, so the codec thread runs it (mon_quorum_work_main()); 1 when
 * *cancel was set meanwhile (d is then thrown away), 0 when d->p is
 * whole, -1 with *cause when the entry is bad.
 */
static int
mon_quorum_decode_body(struct mon_quorum_dec *d, const atomic_int *cancel,
    char **cause)
{
	struct mon_proposal *p = d->p;
	struct enc_reader r = d->r;
	const uint8_t *v;
	uint32_t n, vlen, i, format = d->format;
	char *why = NULL, *name;
	struct pg_stat st;

	for (i = 0; d->pgs_left > 0 && !r.failed; i++, d->pgs_left--) {
		/* Every 256 PG stats (some 0.2 ms), whether to go on. */
		if (i % 256 == 255 &&
		    atomic_load_explicit(cancel, memory_order_relaxed))
			return 1;
		if (pg_stat_decode(&r, &st, &why) == -1)
			goto bad;
		mon_stage_put_pg(p, &st);
	}
	n = enc_get_u32(&r);
	if (n > r.left / 12)
		goto short_;
	p->newpgs = xcalloc(n + 1, sizeof *p->newpgs);
	for (i = 0; i < n; i++) {
		p->newpgs[i].pool = enc_get_u32(&r);
		p->newpgs[i].from = enc_get_u32(&r);
		p->newpgs[i].to = enc_get_u32(&r);
		if (p->newpgs[i].from >= p->newpgs[i].to) {
			xasprintf(&why, "new PGs [%u, %u) of pool %u",
			    p->newpgs[i].from, p->newpgs[i].to,
			    p->newpgs[i].pool);
			goto bad;
		}
		p->nnewpgs++;
	}
	n = enc_get_u32(&r);
	if (n > r.left / 4)
		goto short_;
	p->removed_pools = xcalloc(n + 1, sizeof *p->removed_pools);
	for (i = 0; i < n; i++)
		p->removed_pools[p->nremoved_pools++] = enc_get_u32(&r);
	n = enc_get_u32(&r);
	if (n > r.left / 4)
		goto short_;
	p->log = xcalloc(n + 1, sizeof *p->log);
	for (i = 0; i < n; i++) {
		if ((v = mon_quorum_blob(&r, &vlen)) == NULL)
			goto short_;
		if (mon_record_log_decode(v, vlen, &p->log[i], &why) == -1)
			goto bad;
		p->nlog++;
	}
	n = enc_get_u32(&r);
	if (n > r.left / 7)
		goto short_;
	p->auth = xcalloc(n + 1, sizeof *p->auth);
	for (i = 0; i < n; i++) {
		struct mon_auth_change *c = &p->auth[i];

		c->removed = enc_get_u8(&r);
		if ((name = enc_get_str(&r)) == NULL)
			goto short_;
		if ((v = mon_quorum_blob(&r, &vlen)) == NULL) {
			free(name);
			goto short_;
		}
		if (c->removed) {
			c->e.name = name;
		} else {
			if (mon_record_auth_decode(name, v, vlen, &c->e,
				&why) == -1) {
				free(name);
				goto bad;
			}
			free(name);
			mon_auth_entity_derive(&c->e);
		}
		p->nauth++;
	}
	p->has_mutes = enc_get_u8(&r);
	if (p->has_mutes) {
		if ((v = mon_quorum_blob(&r, &vlen)) == NULL)
			goto short_;
		if (mon_record_mutes_decode(v, vlen, &p->mutes, &p->nmutes,
			&why) == -1)
			goto bad;
	}
	p->pgmap_version = enc_get_u64(&r);
	if ((v = mon_quorum_blob(&r, &vlen)) == NULL)
		goto short_;
	if (mon_record_commit_decode(v, vlen, &p->rec, &why) == -1)
		goto bad;
	p->trim_osdmap_to = enc_get_u32(&r);
	p->trim_pgmap_to = enc_get_u64(&r);
	p->trim_log_to = enc_get_u64(&r);
	if (format >= 2 && (p->has_monmap = enc_get_u8(&r))) {
		if ((v = mon_quorum_blob(&r, &vlen)) == NULL)
			goto short_;
		if (monmap_decode(v, vlen, &p->monmap, &why) == -1)
			goto bad;
	}
	if (format >= 3) {
		n = enc_get_u32(&r);
		/* Each takes 12 bytes at least: never sized from n alone. */
		if (n > r.left / 12)
			goto short_;
		p->statfs = xcalloc(n + 1, sizeof *p->statfs);
		for (i = 0; i < n; i++) {
			struct mon_capacity_change *c = &p->statfs[i];

			c->id = (int32_t)enc_get_u32(&r);
			if ((v = mon_quorum_blob(&r, &vlen)) == NULL)
				goto short_;
			if (c->id < 0 || c->id >= OSDMAP_MAX_OSD) {
				xasprintf(&why, "capacity of osd.%d", c->id);
				goto bad;
			}
			if (mon_record_statfs_decode(v, vlen, &c->st, &why) ==
			    -1)
				goto bad;
			p->nstatfs++;
		}
	}
	if (format >= 4 && (p->has_view = enc_get_u8(&r))) {
		struct mon_quorum_view *w = &p->view;
		uint32_t lead, rank;

		w->term = enc_get_u64(&r);
		lead = enc_get_u32(&r);
		w->since = (int64_t)enc_get_u64(&r);
		n = enc_get_u32(&r);
		if (r.failed)
			goto short_;
		if (lead >= MONMAP_MAX_MONS || n > MONMAP_MAX_MONS) {
			xasprintf(&why, "view of %u monitors led by rank %u", n,
			    lead);
			goto bad;
		}
		w->self = -1;
		w->leader = (int)lead;
		w->complete = 1;
		for (i = 0; i < n; i++) {
			rank = enc_get_u32(&r);
			if (r.failed)
				goto short_;
			if (rank >= MONMAP_MAX_MONS || w->in[rank]) {
				xasprintf(&why,
				    "view: rank %u twice or over %d", rank,
				    MONMAP_MAX_MONS - 1);
				goto bad;
			}
			w->in[rank] = 1;
			w->nin++;
		}
	}
	while (!r.failed && r.left > 0 && r.left < 8)
		if (enc_get_u8(&r) != 0)
			goto short_;
	if (!enc_reader_ok(&r))
		goto short_;
	d->r = r;
	d->stage = MON_QUORUM_DEC_DONE;
	return 0;
short_:
	xasprintf(cause, "entry truncated or with bytes left over");
	return -1;
bad:
	xasprintf(cause, "bad entry: %s", why ? why : "?");
	free(why);
	return -1;
}

/*
 * The committer's hand-off, as mon_stage_seal() does it: p goes to the
 * thread, the loop gets it back by the wake event (mon_apply.c).
 */
static void
mon_quorum_to_committer(struct mon *m, struct mon_proposal *p)
{
	p->sealed_mono = stamp_mono();
	m->inflight = p;
	pthread_mutex_lock(&m->lock);
	m->to_commit = p;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

/*
 * Compress the whole entry b in place when that makes it smaller (an
 * entry of MON_QUORUM_Z_MIN bytes or more); b is left as it was when
 * not.
 */
static void
mon_quorum_compress(struct mon_quorum *q, uint64_t term,
    const struct mon_proposal *p, struct enc_buf *b)
{
	struct enc_buf z = { 0 };
	size_t bound, zlen;
	uint8_t *hdr;

	if (b->len < MON_QUORUM_Z_MIN)
		return;
	if (q->zc == NULL && (q->zc = ZSTD_createCCtx()) == NULL)
		return; /* out of memory: uncompressed is as good */
	bound = ZSTD_compressBound(b->len);
	hdr = enc_buf_reserve(&z, MON_QUORUM_Z_HDR + bound + 8);
	zlen = ZSTD_compressCCtx(q->zc, hdr + MON_QUORUM_Z_HDR, bound, b->data,
	    b->len, MON_QUORUM_Z_LEVEL);
	if (ZSTD_isError(zlen) || MON_QUORUM_Z_HDR + zlen + 8 >= b->len) {
		enc_buf_free(&z);
		return;
	}
	enc_put_be32(hdr, MON_QUORUM_Z_MAGIC);
	enc_put_be32(hdr + 4, MON_QUORUM_Z_FORMAT);
	enc_put_be64(hdr + 8, q->nonce);
	enc_put_be64(hdr + 16, p->seq);
	enc_put_be64(hdr + 24, term);
	enc_put_be64(hdr + 32, b->len);
	enc_put_be32(hdr + 40, (uint32_t)zlen);
	enc_put_be32(hdr + 44, 0);
	z.len = MON_QUORUM_Z_HDR + zlen;
	/* The engine takes entries of whole 8-byte words. */
	while (z.len % 8 != 0)
		hdr[z.len++] = 0;
	enc_buf_free(b);
	*b = z;
}

static int
mon_quorum_is_z(const uint8_t *buf, size_t len)
{
	return len >= 4 && enc_get_be32(buf) == MON_QUORUM_Z_MAGIC;
}

/*
 * Begin inflating the compressed entry buf (mapmon-protocol(7),
 * REPLICATED ENTRIES) into d: its header checked, d->raw made for the
 * frame it holds, d->zleft set.  0 (d->zleft 0 when buf is not
 * compressed); -1 with *cause when it cannot be.
 */
static int
mon_quorum_inflate_begin(struct mon_quorum *q, struct mon_quorum_dec *d,
    const uint8_t *buf, size_t len, char **cause)
{
	uint64_t raw;
	uint32_t zlen, format;

	if (!mon_quorum_is_z(buf, len))
		return 0;
	if (len < MON_QUORUM_Z_HDR) {
		xasprintf(cause,
		    "compressed entry of %zu bytes, shorter than "
		    "its header",
		    len);
		return -1;
	}
	format = enc_get_be32(buf + 4);
	raw = enc_get_be64(buf + 32);
	zlen = enc_get_be32(buf + 40);
	if (format != MON_QUORUM_Z_FORMAT) {
		xasprintf(cause,
		    "compressed entry of format %u, this mapmon knows %d",
		    format, MON_QUORUM_Z_FORMAT);
		return -1;
	}
	if (zlen > len - MON_QUORUM_Z_HDR || raw < 8 ||
	    raw > MON_QUORUM_RAW_MAX) {
		xasprintf(cause,
		    "compressed entry of %zu bytes says it holds %u bytes "
		    "of frame for %llu bytes (at most %zu)",
		    len, zlen, (unsigned long long)raw,
		    (size_t)MON_QUORUM_RAW_MAX);
		return -1;
	}
	if (q->zd == NULL && (q->zd = ZSTD_createDCtx()) == NULL) {
		xasprintf(cause, "cannot make a Zstandard context");
		return -1;
	}
	(void)ZSTD_DCtx_reset(q->zd, ZSTD_reset_session_only);
	d->zin.src = buf + MON_QUORUM_Z_HDR;
	d->zin.size = zlen;
	d->zin.pos = 0;
	d->raw = xmalloc(raw);
	d->rawlen = (size_t)raw;
	d->rawgot = 0;
	d->zleft = 1;
	return 0;
}

/*
 * Inflate d, MON_QUORUM_Z_STEP bytes of frame at a time (the codec
 * thread's): 0 when d->raw holds the frame, 1 when *cancel was set
 * meanwhile, -1 with *cause.
 */
static int
mon_quorum_inflate(struct mon_quorum *q, struct mon_quorum_dec *d,
    const atomic_int *cancel, char **cause)
{
	ZSTD_outBuffer out;
	size_t rc, inpos;

	for (;;) {
		out.dst = d->raw;
		out.size = d->rawlen - d->rawgot > MON_QUORUM_Z_STEP ?
		    d->rawgot + MON_QUORUM_Z_STEP :
		    d->rawlen;
		out.pos = d->rawgot;
		inpos = d->zin.pos;
		rc = ZSTD_decompressStream(q->zd, &out, &d->zin);
		if (ZSTD_isError(rc)) {
			xasprintf(cause,
			    "compressed entry does not decompress to its "
			    "%zu bytes: %s",
			    d->rawlen, ZSTD_getErrorName(rc));
			return -1;
		}
		/* 0: the frame is whole, its last bytes out. */
		if (rc == 0 || (out.pos == d->rawgot && d->zin.pos == inpos)) {
			d->rawgot = out.pos;
			break;
		}
		d->rawgot = out.pos;
		if (atomic_load_explicit(cancel, memory_order_relaxed))
			return 1;
	}
	if (rc != 0 || d->rawgot != d->rawlen || d->zin.pos != d->zin.size) {
		xasprintf(cause,
		    "compressed entry does not decompress to its %zu "
		    "bytes: %s",
		    d->rawlen,
		    d->rawgot < d->rawlen ? "short" : "bytes left over");
		return -1;
	}
	d->zleft = 0;
	return 0;
}

/*
 * Split the encoding b into part entries (mapmon-protocol(7)): one buffer
 * *all (the caller frees it) holding n parts, part i at out[i].
 */
static void
mon_quorum_split(const struct mon_quorum *q, const struct mon_proposal *p,
    const struct enc_buf *b, size_t n, struct enc_buf *all,
    struct mon_quorum_part *out)
{
	size_t i, off = 0, slice, *start;

	start = xcalloc(n, sizeof *start);
	for (i = 0; i < n; i++) {
		slice = b->len - off < MON_QUORUM_PART_DATA ?
		    b->len - off :
		    MON_QUORUM_PART_DATA;
		start[i] = all->len;
		enc_buf_put_u32(all, MON_QUORUM_PART_MAGIC);
		enc_buf_put_u32(all, MON_QUORUM_PART_FORMAT);
		enc_buf_put_u64(all, q->nonce);
		enc_buf_put_u64(all, p->seq);
		enc_buf_put_u64(all, q->term);
		enc_buf_put_u32(all, (uint32_t)i);
		enc_buf_put_u32(all, (uint32_t)n);
		enc_buf_put_u64(all, b->len);
		enc_buf_put_u32(all, (uint32_t)slice);
		enc_buf_put_u32(all, 0);
		enc_buf_put_bytes(all, b->data + off, slice);
		while (all->len % 8 != 0)
			enc_buf_put_u8(all, 0);
		off += slice;
	}
	/* The buffer moved as it grew: the parts are found at the end. */
	for (i = 0; i < n; i++) {
		out[i].buf = all->data + start[i];
		out[i].len = (i + 1 < n ? start[i + 1] : all->len) - start[i];
	}
	free(start);
}

/*
 * The sealed proposal p (m->inflight) will not be replicated: its writers
 * get rc and why, what was pending on top of it goes with it.
 */
static void
mon_quorum_seal_fail(struct mon *m, struct mon_proposal *p, int rc,
    const char *why, const char *pending_why)
{
	m->inflight = NULL;
	mon_quorum_answer(p, rc, why);
	mon_capacity_unseal(m, p);
	mon_quorum_view_unseal(m, p);
	mon_proposal_recycle(m, p);
	mon_quorum_drop(m, 0, rc, pending_why, 0, NULL);
}

/*
 * Propose the entry the codec thread made of q->sealing (cut in parts
 * when over MON_QUORUM_ENTRY_MAX), in the term it was made for.
 */
static void
mon_quorum_seal_send(struct mon *m)
{
	struct mon_quorum *q = m->quorum;
	struct mon_quorum_sealing *s = &q->sealing;
	struct mon_proposal *p = s->p;
	struct enc_buf b = s->b, all = { 0 };
	struct mon_quorum_part one, *parts = &one;
	size_t n = 1, i;
	char *cause = NULL, *why;

	memset(&s->b, 0, sizeof s->b);
	s->p = NULL;
	q->stats.entry_raw_bytes_total += s->rawlen;
	if (q->role != MON_QUORUM_LEADER || q->term != s->term) {
		/* Never proposed: nothing of it can commit. */
		mon_quorum_seal_fail(m, p, -EAGAIN,
		    "this monitor lost the lead while the change was "
		    "sealed: retry",
		    "this monitor lost the lead: retry");
		enc_buf_free(&b);
		return;
	}
	if (s->rawlen > MON_QUORUM_RAW_MAX)
		n = MON_QUORUM_PARTS_MAX + 1; /* refused below */
	else
		n = (b.len + MON_QUORUM_PART_DATA - 1) / MON_QUORUM_PART_DATA;
	if (b.len > MON_QUORUM_ENTRY_MAX && n > MON_QUORUM_PARTS_MAX) {
		q->stats.refused_big++;
		xasprintf(&why,
		    "the commit would be a replicated proposal of %zu "
		    "bytes, over the limit of %d parts of %d bytes: fewer "
		    "changes per commit (a lower [mon] propose_max_ops)",
		    b.len, MON_QUORUM_PARTS_MAX, MON_QUORUM_ENTRY_MAX);
		log_warnx("proposal %llu refused: %s",
		    (unsigned long long)p->seq, why);
		mon_quorum_seal_fail(m, p, -EFBIG, why,
		    "refused with the commit before it (too big to "
		    "replicate)");
		free(why);
		enc_buf_free(&b);
		return;
	}
	if (b.len <= MON_QUORUM_ENTRY_MAX) {
		n = 1;
		one.buf = b.data;
		one.len = b.len;
	} else {
		parts = xcalloc(n, sizeof *parts);
		mon_quorum_split(q, p, &b, n, &all, parts);
		enc_buf_free(&b);
	}
	if (q->replicate(q->arg, p->seq, parts, n, &cause) == -1) {
		xasprintf(&why, "cannot propose the change: %s", cause);
		free(cause);
		mon_quorum_seal_fail(m, p, -EAGAIN, why, why);
		free(why);
	} else {
		for (i = 0; i < n; i++) {
			q->stats.entries_sealed++;
			q->stats.entry_bytes_total += parts[i].len;
			if (parts[i].len > q->stats.entry_bytes_max)
				q->stats.entry_bytes_max = parts[i].len;
		}
		q->stats.proposals_split += n > 1;
		dout(LOG_COMMIT, 10,
		    "proposal %llu replicating as %zu entries of %zu bytes "
		    "in all",
		    (unsigned long long)p->seq, n, n > 1 ? all.len : b.len);
		p->replicating = 1;
	}
	enc_buf_free(&b);
	enc_buf_free(&all);
	if (parts != &one)
		free(parts);
}

int
mon_quorum_seal(struct mon *m, struct mon_proposal *p)
{
	struct mon_quorum *q = m->quorum;
	struct mon_quorum_sealing *s;

	if (q == NULL)
		return 0;
	/*
	 * Whatever commits carries the leader's view when it changed (once
	 * the engine gave it: until then it waits).
	 */
	if (q->view_dirty && mon_quorum_view_ours(q)) {
		p->has_view = 1;
		p->view = q->view;
		q->view_dirty = 0;
	}
	s = &q->sealing;
	s->p = p;
	s->term = q->term;
	s->compress = m->params.compress_entries;
	/* The thread decodes nothing while this monitor seals: held. */
	if (q->work_thread_up && !q->dec.running) {
		mon_quorum_work_submit(q, MON_QUORUM_JOB_SEAL);
		return 1; /* mon_quorum_work_cb() comes back */
	}
	mon_quorum_seal_encode(q);
	mon_quorum_seal_send(m);
	return 1;
}

/* Keep e's bytes (taken over) until its entry is applied. */
static void
mon_quorum_hold(struct mon_quorum *q, struct mon_quorum_entry *e)
{
	if (q->nheld == q->heldcap) {
		q->heldcap = q->heldcap ? q->heldcap * 2 : 8;
		q->held = xreallocarray(q->held, q->heldcap, sizeof *q->held);
	}
	q->held[q->nheld++] = *e;
	e->buf = NULL;
}

/* Forget the held entries at or below the applied one. */
static void
mon_quorum_unhold(struct mon_quorum *q)
{
	size_t i = 0, n;

	while (i < q->nheld && q->held[i].index <= q->applied_index)
		free(q->held[i++].buf);
	if (i == 0)
		return; /* nothing applied yet (held may still be NULL) */
	n = q->nheld - i;
	memmove(q->held, q->held + i, n * sizeof *q->held);
	q->nheld = n;
}

/* A part entry's header, its slice borrowed from the entry. */
struct mon_quorum_parthdr {
	uint64_t nonce, seq, term, total;
	uint32_t part, nparts, len;
	const uint8_t *data;
};

static int
mon_quorum_is_part(const uint8_t *buf, size_t len)
{
	return len >= 4 && enc_get_be32(buf) == MON_QUORUM_PART_MAGIC;
}

/* Decode and check a part entry's header: 0, or -1 with *cause. */
static int
mon_quorum_part_decode(const uint8_t *buf, size_t len,
    struct mon_quorum_parthdr *h, char **cause)
{
	struct enc_reader r;
	uint32_t format;
	size_t padded;

	enc_reader_init(&r, buf, len);
	(void)enc_get_u32(&r);
	format = enc_get_u32(&r);
	h->nonce = enc_get_u64(&r);
	h->seq = enc_get_u64(&r);
	h->term = enc_get_u64(&r);
	h->part = enc_get_u32(&r);
	h->nparts = enc_get_u32(&r);
	h->total = enc_get_u64(&r);
	h->len = enc_get_u32(&r);
	(void)enc_get_u32(&r);
	if (r.failed) {
		xasprintf(cause, "part entry of %zu bytes: header truncated",
		    len);
		return -1;
	}
	if (format != MON_QUORUM_PART_FORMAT) {
		xasprintf(cause, "part entry format %u, this mapmon knows %u",
		    format, MON_QUORUM_PART_FORMAT);
		return -1;
	}
	if (h->nparts < 2 || h->nparts > MON_QUORUM_PARTS_MAX ||
	    h->part >= h->nparts) {
		xasprintf(cause, "part %u of %u (2 to %d parts)", h->part + 1,
		    h->nparts, MON_QUORUM_PARTS_MAX);
		return -1;
	}
	if (h->total <= (uint64_t)(h->nparts - 1) * MON_QUORUM_PART_DATA ||
	    h->total > (uint64_t)h->nparts * MON_QUORUM_PART_DATA ||
	    h->len !=
		(h->part + 1 < h->nparts ?
			MON_QUORUM_PART_DATA :
			h->total - (uint64_t)h->part * MON_QUORUM_PART_DATA)) {
		xasprintf(cause,
		    "part %u of %u carries %u bytes of a proposal of "
		    "%llu bytes",
		    h->part + 1, h->nparts, h->len,
		    (unsigned long long)h->total);
		return -1;
	}
	padded = ((size_t)h->len + 7) / 8 * 8;
	if (len != MON_QUORUM_PART_HDR + padded) {
		xasprintf(cause,
		    "part %u of %u: %zu bytes for a slice of %u "
		    "(truncated or bytes left over)",
		    h->part + 1, h->nparts, len, h->len);
		return -1;
	}
	h->data = buf + MON_QUORUM_PART_HDR;
	return 0;
}

/*
 * The run of parts at the head of the queue (its first entry a part): 1
 * when it holds the last part, 0 when the queue ends before it, -1 when
 * it is broken (it does not start at the first part, or an entry that is
 * not its next part follows): it will never be whole.  *count: the
 * entries of the run.
 */
static int
mon_quorum_run(const struct mon_quorum *q, size_t *count)
{
	struct mon_quorum_parthdr h0, h;
	const struct mon_quorum_entry *e;
	char *cause = NULL;
	size_t k;

	e = &q->q[q->qhead];
	*count = 1;
	/* Checked by mon_quorum_commit() already. */
	if (mon_quorum_part_decode(e->buf, e->len, &h0, &cause) == -1)
		fatalx("entry %llu: %s", (unsigned long long)e->index, cause);
	if (h0.part != 0)
		return -1;
	for (k = 1; k < h0.nparts; k++) {
		if (k == q->qlen)
			return 0;
		e = &q->q[q->qhead + k];
		if (!mon_quorum_is_part(e->buf, e->len))
			return -1;
		if (mon_quorum_part_decode(e->buf, e->len, &h, &cause) == -1)
			fatalx("entry %llu: %s", (unsigned long long)e->index,
			    cause);
		if (h.nonce != h0.nonce || h.seq != h0.seq ||
		    h.term != h0.term || h.nparts != h0.nparts ||
		    h.total != h0.total || h.part != k) {
			dout(LOG_MON, 5,
			    "entry %llu: part %u of %u of proposal %llu, "
			    "after part %zu of %u of proposal %llu",
			    (unsigned long long)e->index, h.part + 1, h.nparts,
			    (unsigned long long)h.seq, k, h0.nparts,
			    (unsigned long long)h0.seq);
			return -1;
		}
		*count = k + 1;
	}
	return 1;
}

/* The whole encoding of the n parts at the head of the queue. */
static uint8_t *
mon_quorum_join_parts(const struct mon_quorum *q, size_t n, size_t *len)
{
	struct mon_quorum_parthdr h;
	const struct mon_quorum_entry *e;
	char *cause = NULL;
	uint8_t *buf = NULL;
	size_t k, off = 0;

	for (k = 0; k < n; k++) {
		e = &q->q[q->qhead + k];
		if (mon_quorum_part_decode(e->buf, e->len, &h, &cause) == -1)
			fatalx("entry %llu: %s", (unsigned long long)e->index,
			    cause);
		if (buf == NULL)
			buf = xmalloc(h.total);
		memcpy(buf + off, h.data, h.len);
		off += h.len;
	}
	*len = off;
	return buf;
}

/*
 * Start decoding the proposal whose nparts entries head the queue: whole
 * is the first entry's bytes when it is the only one, else NULL (the
 * parts are joined here).  -1 with *cause when it cannot be read.
 */
static int
mon_quorum_dec_start(struct mon_quorum *q, struct mon_quorum_dec *d,
    uint8_t *whole, size_t wlen, size_t nparts, char **cause)
{
	memset(d, 0, sizeof *d);
	d->active = 1;
	d->index = q->q[q->qhead].index;
	if (whole == NULL)
		whole = d->buf = mon_quorum_join_parts(q, nparts, &wlen);
	/* A single entry's own bytes stay queued until it is done. */
	if (mon_quorum_inflate_begin(q, d, whole, wlen, cause) == -1) {
		mon_quorum_dec_clear(q, d);
		return -1;
	}
	if (!d->zleft)
		enc_reader_init(&d->r, whole, wlen);
	d->stage = d->zleft ? MON_QUORUM_DEC_INFLATE : MON_QUORUM_DEC_HEAD;
	return 0;
}

/* Encode and compress q->sealing (the codec thread's, or the loop's). */
static void
mon_quorum_seal_encode(struct mon_quorum *q)
{
	struct mon_quorum_sealing *s = &q->sealing;

	mon_quorum_encode(q, s->term, s->p, &s->b);
	s->rawlen = s->b.len;
	if (s->compress && s->b.len <= MON_QUORUM_RAW_MAX)
		mon_quorum_compress(q, s->term, s->p, &s->b);
}

/* The codec thread: the job it is handed, one at a time. */
static void *
mon_quorum_work_main(void *arg)
{
	struct mon_quorum *q = arg;
	struct mon_quorum_dec *d = &q->dec;
	enum mon_quorum_job job;
	uint64_t one = 1;
	int64_t t0;
	char *cause;
	int rc;

	mon_renice_thread("codec");
	pthread_mutex_lock(&q->work_lock);
	for (;;) {
		while (q->work_job == MON_QUORUM_JOB_NONE && !q->work_quit)
			pthread_cond_wait(&q->work_cond, &q->work_lock);
		if (q->work_quit)
			break;
		job = q->work_job;
		pthread_mutex_unlock(&q->work_lock);
		if (job == MON_QUORUM_JOB_SEAL) {
			mon_quorum_seal_encode(q);
			goto done;
		}
		t0 = stamp_mono();
		cause = NULL;
		if (d->stage == MON_QUORUM_DEC_INFLATE) {
			rc = mon_quorum_inflate(q, d, &q->work_cancel, &cause);
			if (rc == 0) {
				enc_reader_init(&d->r, d->raw, d->rawlen);
				d->stage = MON_QUORUM_DEC_HEAD;
			}
		} else
			rc = mon_quorum_decode_body(d, &q->work_cancel, &cause);
		d->rc = rc;
		d->cause = cause;
		d->took_us += stamp_mono() - t0;
	done:
		pthread_mutex_lock(&q->work_lock);
		q->work_job = MON_QUORUM_JOB_NONE;
		pthread_cond_broadcast(&q->work_cond);
		/* An eventfd's write fails only at a count of 2^64 - 2. */
		(void)!write(q->work_fd, &one, sizeof one);
	}
	pthread_mutex_unlock(&q->work_lock);
	return NULL;
}

/* Hand q->dec or q->sealing (job) to the codec thread. */
static void
mon_quorum_work_submit(struct mon_quorum *q, enum mon_quorum_job job)
{
	if (job == MON_QUORUM_JOB_SEAL)
		q->sealing.running = 1;
	else
		q->dec.running = 1;
	pthread_mutex_lock(&q->work_lock);
	q->work_job = job;
	pthread_cond_signal(&q->work_cond);
	pthread_mutex_unlock(&q->work_lock);
}

/* Wait for the codec thread to be done with its job, if any. */
static void
mon_quorum_work_wait(struct mon_quorum *q)
{
	if (!q->work_thread_up)
		return;
	pthread_mutex_lock(&q->work_lock);
	while (q->work_job != MON_QUORUM_JOB_NONE)
		pthread_cond_wait(&q->work_cond, &q->work_lock);
	pthread_mutex_unlock(&q->work_lock);
}

/* The codec thread is done: q->dec or q->sealing is the loop's again. */
static void
mon_quorum_work_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;
	struct mon_quorum *q = m->quorum;
	enum mon_quorum_job job;
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof n) == -1 && errno != EAGAIN)
		log_warn("quorum: the codec thread's eventfd: %s",
		    strerror(errno));
	pthread_mutex_lock(&q->work_lock);
	job = q->work_job;
	pthread_mutex_unlock(&q->work_lock);
	if (job != MON_QUORUM_JOB_NONE)
		return; /* still on */
	if (q->sealing.running) {
		q->sealing.running = 0;
		mon_quorum_seal_send(m);
		mon_quorum_pump_cb(-1, 0, m);
		return;
	}
	/* Taken back meanwhile (mon_quorum_dec_reclaim()). */
	if (!q->dec.running)
		return;
	q->dec.running = 0;
	mon_quorum_pump_cb(-1, 0, m);
}

/* Start the codec thread and its wake-up; -1 with *cause. */
static int
mon_quorum_work_start(struct mon *m, struct mon_quorum *q, char **cause)
{
	int rc;

	if ((q->work_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1) {
		xasprintf(cause, "eventfd: %s", strerror(errno));
		return -1;
	}
	q->work_ev = event_new(m->base, q->work_fd, EV_READ | EV_PERSIST,
	    mon_quorum_work_cb, m);
	if (q->work_ev == NULL || event_add(q->work_ev, NULL) == -1) {
		xasprintf(cause, "cannot make the codec thread's event");
		goto fail;
	}
	pthread_mutex_init(&q->work_lock, NULL);
	pthread_cond_init(&q->work_cond, NULL);
	if ((rc = pthread_create(&q->work_thread, NULL, mon_quorum_work_main,
		 q)) != 0) {
		xasprintf(cause, "cannot start the codec thread: %s",
		    strerror(rc));
		pthread_mutex_destroy(&q->work_lock);
		pthread_cond_destroy(&q->work_cond);
		goto fail;
	}
	q->work_thread_up = 1;
	return 0;
fail:
	mon_event_free(&q->work_ev);
	close(q->work_fd);
	q->work_fd = -1;
	return -1;
}

/* Take q->dec back, end the codec thread, close its wake-up. */
static void
mon_quorum_work_stop(struct mon_quorum *q)
{
	mon_quorum_dec_clear(q, &q->dec);
	mon_quorum_work_wait(q); /* a seal: its proposal is m->inflight */
	enc_buf_free(&q->sealing.b);
	memset(&q->sealing, 0, sizeof q->sealing);
	if (q->work_thread_up) {
		pthread_mutex_lock(&q->work_lock);
		q->work_quit = 1;
		pthread_cond_signal(&q->work_cond);
		pthread_mutex_unlock(&q->work_lock);
		pthread_join(q->work_thread, NULL);
		pthread_mutex_destroy(&q->work_lock);
		pthread_cond_destroy(&q->work_cond);
		q->work_thread_up = 0;
	}
	mon_event_free(&q->work_ev);
	if (q->work_fd != -1)
		close(q->work_fd);
	q->work_fd = -1;
}

int
mon_quorum_pump(struct mon *m)
{
	struct mon_quorum *q = m->quorum;
	struct mon_quorum_dec *d = q != NULL ? &q->dec : NULL;
	struct mon_quorum_entry *e;
	struct mon_proposal *p;
	uint8_t *whole;
	size_t nparts, wlen, k;
	char *cause = NULL;
	int run;

	if (q != NULL && q->syncing) {
		mon_quorum_dec_clear(q, d); /* against a state going away */
		return 1;		    /* mon_quorum_synced() comes back */
	}
	if (q != NULL)
		q->parts_wait = 0;
	while (q != NULL && q->qlen > 0) {
		e = &q->q[q->qhead];
		if (e->index <= q->applied_index) {
			free(e->buf);
			q->qhead++;
			q->qlen--;
			continue;
		}
		if (m->applying != NULL ||
		    (m->inflight != NULL && !m->inflight->replicating))
			return 1; /* mon_apply_reaped() comes back */
		nparts = 1;
		whole = e->buf;
		wlen = e->len;
		if (mon_quorum_is_part(e->buf, e->len)) {
			run = mon_quorum_run(q, &nparts);
			if (run == 0) {
				/* The rest is not committed yet. */
				q->parts_wait = 1;
				break;
			}
			if (run == -1) {
				/*
				 * Never whole: a leader lost before its
				 * last part and the next one's entry came.
				 * Every monitor sees the same log, and
				 * drops the same parts.  Held, as they
				 * are not in the store, until an entry
				 * after them is applied.
				 */
				log_info("entries %llu to %llu: parts of a "
					 "proposal never completed, dropped",
				    (unsigned long long)e->index,
				    (unsigned long long)(e->index + nparts -
					1));
				q->stats.parts_dropped += nparts;
				for (k = 0; k < nparts; k++) {
					mon_quorum_hold(q, &q->q[q->qhead]);
					q->qhead++;
					q->qlen--;
				}
				continue;
			}
			whole = NULL;
		}
		/* The proposal's last entry: it names the proposal. */
		e = &q->q[q->qhead + nparts - 1];
		if (e->len >= 32 && m->inflight != NULL &&
		    enc_get_be64(e->buf + 8) == q->nonce &&
		    enc_get_be64(e->buf + 16) == m->inflight->seq) {
			p = m->inflight;
			p->replicating = 0;
			p->raft_term = enc_get_be64(e->buf + 24);
		} else {
			/*
			 * Another entry before ours: ours was validated on a
			 * state without it.  Its outcome is unknown; what is
			 * pending goes with it.
			 */
			if (m->inflight != NULL || m->pending != NULL)
				mon_quorum_drop(m, 1, -EAGAIN,
				    "the state changed under this write "
				    "(another leader's commit): retry",
				    -ETIMEDOUT,
				    "outcome unknown: another "
				    "commit came first (retry)");
			if (d->active && d->index != q->q[q->qhead].index)
				mon_quorum_dec_clear(q, d); /* not ours: anew */
			if (!d->active &&
			    mon_quorum_dec_start(q, d, whole, wlen, nparts,
				&cause) == -1)
				fatalx("committed entry %llu cannot be "
				       "applied: %s",
				    (unsigned long long)e->index, cause);
			if (d->running)
				return 1; /* mon_quorum_work_cb() comes back */
			if (d->rc == -1 ||
			    (d->stage == MON_QUORUM_DEC_HEAD &&
				mon_quorum_decode_head(m, d, &cause) == -1))
				fatalx("committed entry %llu cannot be "
				       "applied: %s",
				    (unsigned long long)e->index,
				    d->rc == -1 ? d->cause : cause);
			if (d->stage != MON_QUORUM_DEC_DONE) {
				mon_quorum_work_submit(q,
				    MON_QUORUM_JOB_DECODE);
				return 1;
			}
			p = d->p;
			d->p = NULL;
			p->raft_term = d->term;
			p->foreign = 1;
			p->want_pg_text = m->want_pg_text &&
			    p->pgmap_version != 0;
			q->stats.decodes++;
			q->stats.decode_us += (uint64_t)d->took_us;
			mon_quorum_dec_clear(q, d);
		}
		p->raft_index = e->index;
		for (k = 0; k < nparts; k++) {
			mon_quorum_hold(q, &q->q[q->qhead]);
			q->qhead++;
			q->qlen--;
		}
		mon_quorum_to_committer(m, p);
		return 1;
	}
	if (q != NULL) {
		if (q->qlen == 0)
			q->qhead = 0;
		if (mon_quorum_become_ready(m))
			return 0;
		if (!q->ready && m->pending != NULL && m->inflight == NULL &&
		    m->applying == NULL) {
			char *why = mon_quorum_why_not(q);

			mon_quorum_drop(m, 0, -EAGAIN, why, 0, NULL);
			free(why);
		}
	}
	return 0;
}

static void
mon_quorum_pump_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;

	(void)fd;
	(void)what;
	if (!mon_quorum_pump(m))
		mon_stage_propose(m);
}

void
mon_quorum_applied_one(struct mon *m, const struct mon_proposal *p)
{
	struct mon_quorum *q = m->quorum;

	if (q == NULL || p->raft_index == 0)
		return;
	if (p->has_view) {
		q->lview = p->view;
		q->has_lview = 1;
	}
	q->applied_index = p->raft_index;
	q->applied_term = p->raft_term;
	if (q->applied_cb != NULL)
		q->applied_cb(q->applied_arg, q->applied_index);
	mon_quorum_unhold(q);
	/*
	 * Followers stage nothing: their working map is the committed one.
	 * Another leader's entry on a leader that already takes writes (it
	 * should not come: the barrier orders them all before): what was
	 * staged was validated without it, and goes.
	 */
	if (!q->ready)
		osdmap_copy(&m->work, &m->osdmap);
	else if (p->foreign)
		mon_quorum_drop(m, 0, -EAGAIN,
		    "the state changed under this "
		    "write (another leader's commit): retry",
		    0, NULL);
}

int
mon_quorum_record_decode(const void *p, size_t len, uint64_t *index,
    uint64_t *term, char **cause)
{
	struct enc_reader r, body;
	const char *why = NULL;

	enc_reader_init(&r, p, len);
	if (enc_reader_record(&r, MON_QUORUM_REC_V, &body, &why) < 0) {
		xasprintf(cause, "%s", why);
		return -1;
	}
	*index = enc_get_u64(&body);
	*term = enc_get_u64(&body);
	if (!enc_reader_body_ok(&body) || !enc_reader_ok(&r)) {
		xasprintf(cause,
		    "entry number and term truncated, or bytes "
		    "after the record");
		return -1;
	}
	return 0;
}

void
mon_quorum_record_encode(const struct mon_proposal *p, struct enc_buf *enc)
{
	size_t body = enc_buf_record_begin(enc, MON_QUORUM_REC_V, 1);

	enc_buf_put_u64(enc, p->raft_index);
	enc_buf_put_u64(enc, p->raft_term);
	enc_buf_record_end(enc, body);
}

int
mon_quorum_store_applied(struct store *st, uint64_t *index, uint64_t *term,
    char **cause)
{
	uint8_t key = KEYS_QUORUM;
	void *val;
	size_t vlen;
	char *scause = NULL;
	int rc;

	*index = *term = 0;
	rc = store_get(st, &key, 1, &val, &vlen, &scause);
	if (rc == STORE_NOTFOUND)
		return 0;
	if (rc != 0) {
		*cause = scause;
		return -1;
	}
	rc = mon_quorum_record_decode(val, vlen, index, term, &scause);
	free(val);
	if (rc == -1) {
		xasprintf(cause, "%s: record \"Q\" (the applied entry): %s",
		    store_path(st), scause);
		free(scause);
		return -1;
	}
	return 0;
}

int
mon_quorum_enable(struct mon *m, mon_replicate_cb *cb, void *arg, char **cause)
{
	struct mon_quorum *q;

	q = xcalloc(1, sizeof *q);
	q->replicate = cb;
	q->arg = arg;
	if (RAND_bytes((unsigned char *)&q->nonce, sizeof q->nonce) != 1)
		q->nonce = (uint64_t)stamp_now() ^ (uint64_t)stamp_mono();
	if (mon_quorum_store_applied(m->store, &q->applied_index,
		&q->applied_term, cause) == -1) {
		free(q);
		return -1;
	}
	q->committed_index = q->applied_index;
	q->pump_ev = evtimer_new(m->base, mon_quorum_pump_cb, m);
	if (q->pump_ev == NULL) {
		xasprintf(cause, "cannot make the quorum's event");
		free(q);
		return -1;
	}
	q->view_ev = evtimer_new(m->base, mon_quorum_view_cb, m);
	if (q->view_ev == NULL) {
		xasprintf(cause, "cannot make the quorum's event");
		mon_event_free(&q->pump_ev);
		free(q);
		return -1;
	}
	q->work_fd = -1;
	if (mon_quorum_work_start(m, q, cause) == -1) {
		mon_event_free(&q->pump_ev);
		mon_event_free(&q->view_ev);
		free(q);
		return -1;
	}
	q->view.leader = -1;
	m->quorum = q;
	/* Nothing staged before now is sealed by this monitor alone. */
	mon_quorum_drop(m, 0, -EAGAIN, "the quorum is starting (retry)", 0,
	    NULL);
	log_info("replication on: applied entry %llu (term %llu)",
	    (unsigned long long)q->applied_index,
	    (unsigned long long)q->applied_term);
	return 0;
}

void
mon_quorum_set_role(struct mon *m, enum mon_quorum_role role, uint64_t term,
    const char *leader, const char *leader_addr)
{
	struct mon_quorum *q = m->quorum;
	int was_leader;

	if (q == NULL)
		return;
	was_leader = q->role == MON_QUORUM_LEADER;
	q->role = role;
	q->term = term;
	free(q->leader);
	free(q->leader_addr);
	q->leader = leader ? xstrdup(leader) : NULL;
	q->leader_addr = leader_addr ? xstrdup(leader_addr) : NULL;
	if (role != MON_QUORUM_LEADER || !was_leader) {
		char *why = mon_quorum_why_not(q);

		q->ready = 0;
		q->barrier_done = 0;
		mon_quorum_drop(m, 1, -EAGAIN, why, -ETIMEDOUT,
		    "outcome unknown: the leader lost its quorum before the "
		    "change was known committed (it may still be applied; "
		    "retry)");
		free(why);
	}
	/*
	 * The capacities of beacons this monitor took as leader and no
	 * entry committed give way to the committed ones.
	 */
	if (was_leader && role != MON_QUORUM_LEADER)
		mon_capacity_follow(m);
}

/*
 * The leader takes writes once its barrier came back and every entry
 * before it is applied (queued entries included): writes are validated
 * on the working map, which must then hold every commit.  1 when it
 * became ready now.
 */
static int
mon_quorum_become_ready(struct mon *m)
{
	struct mon_quorum *q = m->quorum;
	int64_t now = stamp_mono();

	if (q->ready || !q->barrier_done || q->role != MON_QUORUM_LEADER ||
	    q->syncing || (q->qlen > 0 && !q->parts_wait) ||
	    m->inflight != NULL || m->applying != NULL)
		return 0;
	q->ready = 1;
	/*
	 * Beacons went to the leader before: every OSD gets a full report
	 * timeout from now, as at a restart.
	 */
	m->start_mono = now;
	mon_live_poke(m);
	osdmap_copy(&m->work, &m->osdmap);
	/* The followers learn this leader's view from its first commit. */
	q->view_dirty = 1;
	mon_quorum_view_arm(m, 0);
	log_info("leading in term %llu from entry %llu",
	    (unsigned long long)q->term, (unsigned long long)q->applied_index);
	mon_stage_health(m);
	mon_stage_propose(m);
	return 1;
}

void
mon_quorum_leader_ready(struct mon *m)
{
	struct mon_quorum *q = m->quorum;

	if (q == NULL || q->role != MON_QUORUM_LEADER)
		return;
	q->barrier_done = 1;
	if (!mon_quorum_become_ready(m))
		mon_quorum_pump(m);
}

/* Append a copy of entry index to the queue of those to apply. */
static void
mon_quorum_enqueue(struct mon_quorum *q, uint64_t index, const void *buf,
    size_t len)
{
	struct mon_quorum_entry *e;

	if (q->qhead > 0 && q->qhead + q->qlen == q->qcap) {
		memmove(q->q, q->q + q->qhead, q->qlen * sizeof *q->q);
		q->qhead = 0;
	}
	if (q->qhead + q->qlen == q->qcap) {
		q->qcap = q->qcap ? q->qcap * 2 : 16;
		q->q = xreallocarray(q->q, q->qcap, sizeof *q->q);
	}
	q->parts_wait = 0; /* a pump decides anew */
	e = &q->q[q->qhead + q->qlen++];
	e->index = index;
	e->len = len;
	e->buf = xmalloc(len);
	memcpy(e->buf, buf, len);
}

int
mon_quorum_commit(struct mon *m, uint64_t index, const void *buf, size_t len,
    char **cause)
{
	static const struct timeval now;
	struct mon_quorum *q = m->quorum;
	struct mon_quorum_parthdr h;
	char *why = NULL;

	if (q == NULL) {
		xasprintf(cause, "replication is off");
		return -1;
	}
	if (len < 8 ||
	    (enc_get_be32(buf) != MON_QUORUM_MAGIC &&
		!mon_quorum_is_part(buf, len) && !mon_quorum_is_z(buf, len))) {
		xasprintf(cause, "entry %llu is not a mapmon entry",
		    (unsigned long long)index);
		return -1;
	}
	if (mon_quorum_is_part(buf, len) &&
	    mon_quorum_part_decode(buf, len, &h, &why) == -1) {
		xasprintf(cause, "entry %llu: %s", (unsigned long long)index,
		    why);
		free(why);
		return -1;
	}
	if (index > q->committed_index)
		q->committed_index = index;
	if (index <= q->applied_index)
		return 0; /* applied before a restart */
	mon_quorum_enqueue(q, index, buf, len);
	/* Not from inside the engine's callback: on the next loop turn. */
	evtimer_add(q->pump_ev, &now);
	return 0;
}

void
mon_quorum_failed(struct mon *m, uint64_t seq, const char *why)
{
	struct mon_quorum *q = m->quorum;
	char *text;

	if (q == NULL || m->inflight == NULL || !m->inflight->replicating ||
	    m->inflight->seq != seq)
		return;
	xasprintf(&text,
	    "outcome unknown: %s (it may still be applied; "
	    "retry)",
	    why);
	mon_quorum_drop(m, 1, -EAGAIN, "the change before it failed: retry",
	    -ETIMEDOUT, text);
	free(text);
	mon_stage_propose(m);
}

int
mon_quorum_info(const struct mon *m, struct mon_quorum_info *out)
{
	const struct mon_quorum *q = m->quorum;

	if (q == NULL)
		return -1;
	*out = q->stats;
	out->role = q->role;
	out->ready = q->ready;
	out->term = q->term;
	out->applied_index = q->applied_index;
	out->applied_term = q->applied_term;
	out->committed_index = q->committed_index;
	out->syncing = q->syncing;
	out->sealing = q->sealing.running;
	out->sync_from = q->sync_from;
	out->backlog = q->committed_index > q->applied_index ?
	    q->committed_index - q->applied_index :
	    0;
	return 0;
}

const char *
mon_quorum_leader_addr(const struct mon *m)
{
	const struct mon_quorum *q = m->quorum;

	if (q == NULL || q->role != MON_QUORUM_FOLLOWER)
		return NULL;
	return q->leader_addr;
}

void
mon_quorum_set_applied_cb(struct mon *m, mon_quorum_applied_cb *cb, void *arg)
{
	if (m->quorum == NULL)
		return;
	m->quorum->applied_cb = cb;
	m->quorum->applied_arg = arg;
}

/* What a view commit carries is the same in a and b. */
static int
mon_quorum_view_same(const struct mon_quorum_view *a,
    const struct mon_quorum_view *b)
{
	return a->leader == b->leader && a->term == b->term &&
	    a->since == b->since && a->nin == b->nin &&
	    memcmp(a->in, b->in, sizeof a->in) == 0;
}

void
mon_quorum_set_view(struct mon *m, const struct mon_quorum_view *v)
{
	struct mon_quorum *q = m->quorum;
	int changed;

	if (q == NULL)
		return;
	changed = !mon_quorum_view_same(&q->view, v);
	q->view = *v;
	if (changed && v->complete && q->role == MON_QUORUM_LEADER) {
		q->view_dirty = 1;
		mon_quorum_view_arm(m, 0);
	}
}

void
mon_quorum_view_resend(struct mon *m)
{
	struct mon_quorum *q = m->quorum;

	if (q == NULL || q->role != MON_QUORUM_LEADER)
		return;
	q->view_dirty = 1;
	mon_quorum_view_arm(m, 0);
}

void
mon_quorum_view_unseal(struct mon *m, const struct mon_proposal *p)
{
	struct mon_quorum *q = m->quorum;

	if (q == NULL || !p->has_view || q->role != MON_QUORUM_LEADER)
		return;
	q->view_dirty = 1;
	mon_quorum_view_arm(m, MON_QUORUM_VIEW_RETRY_MS);
}

/*
 * The view served (mon_quorum.h): on a follower the leader's, when it is
 * of the leader and term this monitor knows and counts this monitor in.
 */
static void
mon_quorum_served(const struct mon_quorum *q, struct mon_quorum_view *out)
{
	const struct mon_quorum_view *l = &q->lview;

	*out = q->view;
	if (q->role != MON_QUORUM_FOLLOWER || out->leader < 0 ||
	    !q->has_lview || l->term != out->term || l->leader != out->leader ||
	    out->self < 0 || out->self >= MONMAP_MAX_MONS || !l->in[out->self])
		return;
	out->complete = 1;
	out->since = l->since;
	out->nin = l->nin;
	memcpy(out->in, l->in, sizeof out->in);
}

const char *
mon_quorum_self_name(const struct mon *m)
{
	int self = m->quorum != NULL ? m->quorum->view.self : 0;

	if (self < 0 || (size_t)self >= m->monmap.nmons)
		self = 0;
	return m->monmap.mons[self].name;
}

int
mon_quorum_get_view(const struct mon *m, struct mon_quorum_view *out)
{
	if (m->quorum == NULL)
		return -1;
	mon_quorum_served(m->quorum, out);
	return 0;
}

void
mon_quorum_clear(struct mon *m)
{
	struct mon_quorum *q = m->quorum;
	size_t i;

	if (q == NULL)
		return;
	/* First: the thread may be reading a queued entry. */
	mon_quorum_work_stop(q);
	for (i = 0; i < q->qlen; i++)
		free(q->q[q->qhead + i].buf);
	for (i = 0; i < q->nheld; i++)
		free(q->held[i].buf);
	free(q->held);
	free(q->q);
	ZSTD_freeCCtx(q->zc);
	ZSTD_freeDCtx(q->zd);
	mon_event_free(&q->pump_ev);
	mon_event_free(&q->view_ev);
	free(q->leader);
	free(q->leader_addr);
	free(q);
	m->quorum = NULL;
}

void
mon_quorum_stop(struct mon *m)
{
	struct mon_quorum *q = m->quorum;

	if (q == NULL)
		return;
	q->ready = 0;
	q->barrier_done = 0;
	evtimer_del(q->pump_ev);
	evtimer_del(q->view_ev);
	if (q->sealing.running) {
		/* Being encoded, never proposed: nothing of it commits. */
		struct mon_proposal *p = q->sealing.p;

		mon_quorum_work_wait(q);
		q->sealing.running = 0;
		q->sealing.p = NULL;
		enc_buf_free(&q->sealing.b);
		mon_quorum_seal_fail(m, p, -ESHUTDOWN,
		    "the monitor is stopping", "the monitor is stopping");
	}
	mon_quorum_drop(m, 1, -ESHUTDOWN, "the monitor is stopping", -ETIMEDOUT,
	    "outcome unknown: the monitor stopped before the "
	    "change was known committed (it may still be applied; retry)");
}

void
mon_quorum_status(const struct mon *m, json_t *st)
{
	struct mon_quorum_view view, *v = &view;
	json_t *q, *names;
	size_t i;

	if (m->quorum == NULL)
		return;
	mon_quorum_served(m->quorum, v);
	q = json_array();
	names = json_array();
	for (i = 0; i < m->monmap.nmons && i < MONMAP_MAX_MONS; i++) {
		if (!v->in[i])
			continue;
		json_array_append_new(q, json_integer((json_int_t)i));
		json_array_append_new(names,
		    json_string(m->monmap.mons[i].name));
	}
	/* Ceph's election epoch counts elections; a raft term does. */
	json_object_set_new(st, "election_epoch",
	    json_integer((json_int_t)v->term));
	json_object_set_new(st, "quorum", q);
	json_object_set_new(st, "quorum_names", names);
	json_object_set_new(st, "quorum_age",
	    json_integer(v->leader >= 0 && v->since > 0 ?
		    (json_int_t)((stamp_now() - v->since) / 1000000) :
		    0));
}

/* The bytes of committed entry index, held or queued, or NULL. */
static const struct mon_quorum_entry *
mon_quorum_find(const struct mon_quorum *q, uint64_t index)
{
	size_t i;

	for (i = 0; i < q->nheld; i++)
		if (q->held[i].index == index)
			return &q->held[i];
	for (i = 0; i < q->qlen; i++)
		if (q->q[q->qhead + i].index == index)
			return &q->q[q->qhead + i];
	return NULL;
}

int
mon_quorum_snapshot(struct mon *m, uint64_t index, void **out, size_t *outlen,
    char **cause)
{
	struct mon_quorum *q = m->quorum;
	const struct mon_quorum_entry *e;
	struct enc_buf b = { 0 };
	uint64_t i, from, term = 0;
	size_t bytes = 0;

	if (q == NULL) {
		xasprintf(cause, "replication is off");
		return -1;
	}
	from = q->applied_index < index ? q->applied_index : index;
	if (q->syncing) {
		xasprintf(cause, "the store is being copied");
		return -1;
	}
	for (i = from + 1; i <= index; i++) {
		if ((e = mon_quorum_find(q, i)) == NULL) {
			xasprintf(cause,
			    "entry %llu is neither applied nor held",
			    (unsigned long long)i);
			return -1;
		}
		bytes += e->len;
		if (e->len >= 32)
			term = enc_get_be64(e->buf + 24);
	}
	if (bytes > MON_QUORUM_SNAP_MAX) {
		xasprintf(cause,
		    "%llu entries (%zu bytes) are committed and not in the "
		    "store yet",
		    (unsigned long long)(index - from), bytes);
		return -1;
	}
	if (index == from)
		term = q->applied_term;
	enc_buf_put_u32(&b, MON_QUORUM_SNAP_MAGIC);
	enc_buf_put_u32(&b, MON_QUORUM_SNAP_FORMAT);
	enc_buf_put_bytes(&b, m->monmap.fsid, 36);
	enc_buf_put_u32(&b, 0);
	enc_buf_put_u64(&b, index);
	enc_buf_put_u64(&b, term);
	enc_buf_put_u64(&b, from);
	for (i = from + 1; i <= index; i++) {
		e = mon_quorum_find(q, i);
		enc_buf_put_u64(&b, e->index);
		enc_buf_put_u32(&b, (uint32_t)e->len);
		enc_buf_put_bytes(&b, e->buf, e->len);
	}
	while (b.len % 8 != 0)
		enc_buf_put_u8(&b, 0);
	*out = b.data;
	*outlen = b.len;
	return 0;
}

int
mon_quorum_restore(struct mon *m, const void *buf, size_t len,
    uint64_t *index_out, uint64_t *from_out, char **cause)
{
	static const struct timeval now;
	struct mon_quorum *q = m->quorum;
	struct enc_reader r;
	const uint8_t *fsid, *v;
	uint64_t index, term, from, i, ei, had;
	uint32_t vlen;

	if (q == NULL) {
		xasprintf(cause, "replication is off");
		return -1;
	}
	enc_reader_init(&r, buf, len);
	if (enc_get_u32(&r) != MON_QUORUM_SNAP_MAGIC) {
		xasprintf(cause, "not a mapmon snapshot (bad magic)");
		return -1;
	}
	if ((vlen = enc_get_u32(&r)) != MON_QUORUM_SNAP_FORMAT) {
		xasprintf(cause, "snapshot format %u, this mapmon knows %u",
		    vlen, MON_QUORUM_SNAP_FORMAT);
		return -1;
	}
	fsid = enc_reader_take(&r, 36);
	(void)enc_get_u32(&r);
	index = enc_get_u64(&r);
	term = enc_get_u64(&r);
	from = enc_get_u64(&r);
	if (fsid == NULL || r.failed || from > index) {
		xasprintf(cause,
		    "snapshot descriptor truncated or inconsistent");
		return -1;
	}
	if (memcmp(fsid, m->monmap.fsid, 36) != 0) {
		xasprintf(cause, "snapshot of cluster %.36s, this is %s", fsid,
		    m->monmap.fsid);
		return -1;
	}
	/* Check the entries it carries before taking any. */
	for (i = from + 1; i <= index; i++) {
		ei = enc_get_u64(&r);
		vlen = enc_get_u32(&r);
		if ((v = enc_reader_take(&r, vlen)) == NULL || ei != i ||
		    vlen < 8 ||
		    (enc_get_be32(v) != MON_QUORUM_MAGIC &&
			!mon_quorum_is_part(v, vlen) &&
			!mon_quorum_is_z(v, vlen))) {
			xasprintf(cause, "snapshot entry %llu truncated or bad",
			    (unsigned long long)i);
			return -1;
		}
	}
	*index_out = index;
	*from_out = from;
	had = q->committed_index;
	if (index <= had) {
		dout(LOG_MON, 5,
		    "snapshot of entry %llu: this monitor has up to %llu",
		    (unsigned long long)index, (unsigned long long)had);
		return 0;
	}
	enc_reader_init(&r, buf, len);
	(void)enc_reader_take(&r, 4 + 4 + 36 + 4 + 8 + 8 + 8);
	for (i = from + 1; i <= index; i++) {
		ei = enc_get_u64(&r);
		vlen = enc_get_u32(&r);
		v = enc_reader_take(&r, vlen);
		if (ei > had)
			mon_quorum_enqueue(q, ei, v, vlen);
	}
	q->committed_index = index;
	if (had >= from) {
		log_info("snapshot of entry %llu (term %llu): entries %llu to "
			 "%llu came with it",
		    (unsigned long long)index, (unsigned long long)term,
		    (unsigned long long)(had + 1), (unsigned long long)index);
		evtimer_add(q->pump_ev, &now);
		return 0;
	}
	log_info("snapshot of entry %llu (term %llu): this store has entry "
		 "%llu, a copy holding entry %llu is needed",
	    (unsigned long long)index, (unsigned long long)term,
	    (unsigned long long)q->applied_index, (unsigned long long)from);
	q->syncing = 1;
	q->sync_from = from;
	return 1;
}

int
mon_quorum_synced(struct mon *m, const char *dir,
    const struct store_options *opts, char **cause)
{
	static const struct timeval now;
	struct mon_quorum *q = m->quorum;
	uint64_t was = q->applied_index;

	mon_quorum_drop(m, 0, -EAGAIN, "the store is being replaced (retry)", 0,
	    NULL);
	if (mon_reload(m, dir, opts, cause) == -1)
		return -1;
	if (mon_quorum_store_applied(m->store, &q->applied_index,
		&q->applied_term, cause) == -1)
		return -1;
	if (q->applied_index < q->sync_from) {
		xasprintf(cause,
		    "the copy holds entry %llu, not entry %llu or later",
		    (unsigned long long)q->applied_index,
		    (unsigned long long)q->sync_from);
		return -1;
	}
	mon_quorum_unhold(q);
	mon_quorum_dec_clear(q, &q->dec);
	if (q->committed_index < q->applied_index)
		q->committed_index = q->applied_index;
	q->syncing = 0;
	q->stats.syncs++;
	osdmap_copy(&m->work, &m->osdmap);
	log_info("store copied: entry %llu (term %llu), this monitor had "
		 "entry %llu",
	    (unsigned long long)q->applied_index,
	    (unsigned long long)q->applied_term, (unsigned long long)was);
	/* Whoever waits to read an entry the copy holds can now. */
	if (q->applied_cb != NULL)
		q->applied_cb(q->applied_arg, q->applied_index);
	evtimer_add(q->pump_ev, &now);
	return 0;
}

int
mon_quorum_syncing(const struct mon *m, uint64_t *from)
{
	if (m->quorum == NULL || !m->quorum->syncing)
		return 0;
	if (from != NULL)
		*from = m->quorum->sync_from;
	return 1;
}

void
mon_quorum_join(struct mon *m)
{
	if (m->quorum == NULL)
		return;
	m->quorum->syncing = 1;
	m->quorum->sync_from = 0;
	log_info("joining: nothing is applied before a copy of another "
		 "monitor's store is in place");
}
