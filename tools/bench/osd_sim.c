/* osd_sim.c: simulated OSDs reporting their PGs (see osd_sim.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "map/osdmap.h"
#include "map/pg.h"
#include "map/placement.h"
#include "net/client.h"
#include "net/frame.h"
#include "tools/bench/osd_sim.h"
#include "tools/osdmap_cache.h"

/* A PG's next report: peering, active, active+clean; DONE: clean taken. */
#define OSD_SIM_PH_PEERING 0
#define OSD_SIM_PH_ACTIVE 1
#define OSD_SIM_PH_CLEAN 2
#define OSD_SIM_PH_DONE 3

/* After a refused report, wait this long before sending again. */
#define OSD_SIM_BACKOFF_MS 100

struct osd_sim_pg {
	uint64_t seq;			/* reported_seq of the last report */
	uint64_t version;
	int64_t objects;
	int64_t rd;
	int64_t rd_kb;
	int64_t wr;
	int64_t wr_kb;
	uint32_t mapping_epoch;
	uint32_t clean_epoch;
	int32_t up[PLACEMENT_MAX_SIZE];
	int32_t queued_osd;		/* the queue holding it, -1: none */
	uint16_t gen;			/* bumped when the PG starts over */
	uint8_t up_len;
	uint8_t phase;
};

struct osd_sim_pool {
	uint32_t id;
	uint32_t pg_num;
	uint32_t size;
	uint32_t created;
	struct osd_sim_pg *pgs;
};

/* One PG in a queue or a report. */
struct osd_sim_ref {
	uint32_t pool;
	uint32_t seed;
	uint16_t gen;
	uint8_t phase;
};

struct osd_sim_queue {
	struct osd_sim_ref *v;
	size_t head;
	size_t n;
	size_t cap;
};

struct osd_sim_batch {
	struct osd_sim *sim;
	size_t n;
	struct osd_sim_ref *refs;
};

struct osd_sim_boot {
	struct osd_sim *sim;
	int32_t id;
};

struct osd_sim {
	struct event_base *base;
	struct osd_sim_params p;
	char *addr;
	osd_sim_cb *cb;
	void *arg;

	struct mclient *cl;
	struct osdmap_cache *cache;
	struct event *live_ev;
	struct event *retry_ev;

	uint32_t epoch;
	int boot_sent;
	int booted;
	int clean_told;
	int freeing;
	int dead;
	int backoff;

	/* Each OSD's effective weight at the last map (0: not eligible). */
	uint32_t *elig;
	uint32_t nelig;

	struct osd_sim_pool *pools;	/* sorted by id */
	size_t npools;

	struct osd_sim_queue *queues;	/* one per OSD */
	size_t nqueued;
	int cursor;

	struct enc_buf buf;
	uint64_t seq_base;
	uint64_t rng;
	struct osd_sim_stats st;
};

static void osd_sim_pump(struct osd_sim *);

void
osd_sim_params_defaults(struct osd_sim_params *p)
{
	memset(p, 0, sizeof *p);
	p->addr = "127.0.0.1:6788";
	p->nosds = 3;
	p->window = 16;
	p->batch = 4096;
	p->live_interval_ms = 1000;
	p->connect_timeout_ms = 5000;
}

static uint64_t
osd_sim_rand(struct osd_sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static void
osd_sim_tell(struct osd_sim *s, enum osd_sim_event ev, const char *fmt, ...)
    printflike(3, 4);

static void
osd_sim_tell(struct osd_sim *s, enum osd_sim_event ev, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	if (fmt != NULL) {
		va_start(ap, fmt);
		xvasprintf(&msg, fmt, ap);
		va_end(ap);
	}
	if (s->cb != NULL)
		s->cb(s->arg, ev, msg);
	free(msg);
}

OSDMAP_POOL_INDEXABLE(struct osd_sim_pool);

static struct osd_sim_pool *
osd_sim_pool(struct osd_sim *s, uint32_t id)
{
	int found;
	size_t i = osdmap_pool_index(s->pools, s->npools, sizeof *s->pools,
	    id, &found);

	return found ? &s->pools[i] : NULL;
}

static struct osd_sim_pg *
osd_sim_pg(struct osd_sim *s, uint32_t pool, uint32_t seed)
{
	struct osd_sim_pool *sp;

	if ((sp = osd_sim_pool(s, pool)) == NULL || seed >= sp->pg_num)
		return NULL;
	return &sp->pgs[seed];
}

static int
osd_sim_ours(const struct osd_sim *s, const struct osd_sim_pg *pg)
{
	return pg->up_len > 0 && pg->up[0] >= 0 && pg->up[0] < s->p.nosds;
}

/* Put a PG in its primary's queue, unless it is there already. */
static void
osd_sim_queue(struct osd_sim *s, struct osd_sim_pg *pg, uint32_t pool,
    uint32_t seed)
{
	struct osd_sim_queue *q;
	int32_t osd;

	if (!osd_sim_ours(s, pg))
		return;
	osd = pg->up[0];
	if (pg->queued_osd == osd)
		return;
	pg->queued_osd = osd;
	q = &s->queues[osd];
	if (q->n == q->cap) {
		q->cap = q->cap == 0 ? 256 : q->cap * 2;
		q->v = xreallocarray(q->v, q->cap, sizeof *q->v);
	}
	q->v[q->n].pool = pool;
	q->v[q->n].seed = seed;
	q->n++;
	s->nqueued++;
}

/* Count the PGs the simulator reports and those done; tell CLEAN. */
static void
osd_sim_recount(struct osd_sim *s)
{
	struct osd_sim_pool *sp;
	size_t i, npgs = 0, nclean = 0;
	uint32_t seed;

	for (i = 0; i < s->npools; i++) {
		sp = &s->pools[i];
		for (seed = 0; seed < sp->pg_num; seed++) {
			if (!osd_sim_ours(s, &sp->pgs[seed]))
				continue;
			npgs++;
			if (sp->pgs[seed].phase == OSD_SIM_PH_DONE)
				nclean++;
		}
	}
	s->st.npgs = npgs;
	s->st.nclean = nclean;
}

static void
osd_sim_check_clean(struct osd_sim *s)
{
	if (s->st.npgs == 0 || s->st.nclean < s->st.npgs) {
		s->clean_told = 0;
		return;
	}
	if (s->clean_told)
		return;
	s->clean_told = 1;
	osd_sim_tell(s, OSD_SIM_CLEAN, NULL);
}

/* Place one PG; a PG that is new, or whose up set moved, starts over. */
static void
osd_sim_map_pg(struct osd_sim *s, const struct placement *pl,
    struct osd_sim_pool *sp, uint32_t seed, int fresh)
{
	struct osd_sim_pg *pg = &sp->pgs[seed];
	int32_t up[PLACEMENT_MAX_SIZE];
	int n;

	n = placement_map_pg(pl, sp->id, seed, sp->size, up);
	if (!fresh && n == pg->up_len &&
	    memcmp(up, pg->up, (size_t)n * sizeof *up) == 0)
		return;
	if (fresh) {
		memset(pg, 0, sizeof *pg);
		pg->queued_osd = -1;
		pg->seq = s->seq_base;
	}
	memcpy(pg->up, up, (size_t)n * sizeof *up);
	pg->up_len = (uint8_t)n;
	pg->mapping_epoch = s->epoch;
	pg->phase = OSD_SIM_PH_PEERING;
	pg->gen++;
	osd_sim_queue(s, pg, sp->id, seed);
}

static void
osd_sim_boot_done(void *arg, int rc, const char *status,
    mapmon_unused json_t *data)
{
	struct osd_sim_boot *b = arg;
	struct osd_sim *s = b->sim;

	if (!s->freeing && rc < 0 && !s->dead) {
		s->st.errors++;
		osd_sim_tell(s, OSD_SIM_ERROR, "osd boot %d: %s", b->id,
		    status);
	}
	free(b);
}

static void
osd_sim_send_boot(struct osd_sim *s, int32_t id)
{
	struct osd_sim_boot *b;
	json_t *cmd;
	char addr[32];

	b = xcalloc(1, sizeof *b);
	b->sim = s;
	b->id = id;
	snprintf(addr, sizeof addr, "127.0.0.1:%d", 6800 + id % 1000);
	cmd = json_pack("{s:s, s:i, s:s}", "prefix", "osd boot", "id", id,
	    "addr", addr);
	if (mclient_request(s->cl, cmd, osd_sim_boot_done, b) == -1)
		free(b);
	json_decref(cmd);
}

static void
osd_sim_create_done(void *arg, int rc, const char *status,
    mapmon_unused json_t *data)
{
	struct osd_sim_boot *b = arg;
	struct osd_sim *s = b->sim;

	if (s->freeing || s->dead) {
		free(b);
		return;
	}
	/* -EEXIST: someone made it meanwhile, which is as good. */
	if (rc < 0 && rc != -EEXIST) {
		s->st.errors++;
		osd_sim_tell(s, OSD_SIM_ERROR, "osd create %d: %s", b->id,
		    status);
		free(b);
		return;
	}
	osd_sim_send_boot(s, b->id);
	free(b);
}

/* Create the OSDs the map lacks and boot those that are down. */
static void
osd_sim_boot_all(struct osd_sim *s, const struct osdmap *m)
{
	const struct osdmap_osd *o;
	struct osd_sim_boot *b;
	json_t *cmd;
	int32_t id;

	s->boot_sent = 1;
	for (id = 0; id < s->p.nosds; id++) {
		o = osdmap_osd(m, id);
		if (o != NULL && o->up)
			continue;
		if (o != NULL) {
			osd_sim_send_boot(s, id);
			continue;
		}
		b = xcalloc(1, sizeof *b);
		b->sim = s;
		b->id = id;
		cmd = json_pack("{s:s, s:i}", "prefix", "osd create", "id", id);
		if (mclient_request(s->cl, cmd, osd_sim_create_done, b) == -1)
			free(b);
		json_decref(cmd);
	}
}

static void
osd_sim_update(void *arg, const struct osdmap *m)
{
	struct osd_sim *s = arg;
	const struct placement *pl;
	const struct osdmap_osd *o;
	const struct osdmap_pool *mp;
	struct osd_sim_pool *pools, *sp, *old;
	size_t i, j, npools;
	uint32_t k, w, seed, old_num;
	int moved = 0, up = 0;

	s->epoch = m->epoch;
	s->st.epoch = m->epoch;
	if (!s->boot_sent)
		osd_sim_boot_all(s, m);

	/* Did anything placement depends on change for existing PGs? */
	if (m->max_osd != s->nelig) {
		s->elig = xreallocarray(s->elig, m->max_osd, sizeof *s->elig);
		if (m->max_osd > s->nelig)
			memset(s->elig + s->nelig, 0, (m->max_osd - s->nelig) *
			    sizeof *s->elig);
		s->nelig = m->max_osd;
		moved = 1;
	}
	for (k = 0; k < m->max_osd; k++) {
		o = &m->osds[k];
		w = 0;
		if (o->exists && o->up && o->in && o->weight > 0 &&
		    o->reweight > 0)
			w = (uint32_t)(((uint64_t)o->weight * o->reweight) >>
			    16) | 1;
		if (w != s->elig[k]) {
			s->elig[k] = w;
			moved = 1;
		}
		if (k < (uint32_t)s->p.nosds && o->exists && o->up)
			up++;
	}
	s->st.osds_up = up;
	pl = osdmap_cache_placement(s->cache);

	/* The pools, in the map's order (by id); old PG arrays carried over. */
	npools = m->npools;
	pools = xcalloc(npools ? npools : 1, sizeof *pools);
	for (i = 0; i < npools; i++) {
		mp = &m->pools[i];
		sp = &pools[i];
		if ((old = osd_sim_pool(s, mp->id)) != NULL) {
			*sp = *old;
			old->pgs = NULL;
		} else {
			sp->id = mp->id;
			sp->size = mp->size;
		}
		sp->created = mp->created_epoch;
		old_num = sp->pg_num;
		if (mp->pg_num != old_num) {
			sp->pgs = xreallocarray(sp->pgs, mp->pg_num ?
			    mp->pg_num : 1, sizeof *sp->pgs);
			sp->pg_num = mp->pg_num;
		}
		if (mp->size != sp->size) {
			sp->size = mp->size;
			old_num = old_num < sp->pg_num ? old_num : sp->pg_num;
			for (seed = 0; seed < old_num; seed++)
				osd_sim_map_pg(s, pl, sp, seed, 0);
		} else if (moved) {
			for (seed = 0; seed < old_num && seed < sp->pg_num;
			    seed++)
				osd_sim_map_pg(s, pl, sp, seed, 0);
		}
		/* New PGs: a new pool, or pg_num grown. */
		for (seed = old_num; seed < sp->pg_num; seed++)
			osd_sim_map_pg(s, pl, sp, seed, 1);
	}
	for (j = 0; j < s->npools; j++)
		free(s->pools[j].pgs);
	free(s->pools);
	s->pools = pools;
	s->npools = npools;

	osd_sim_recount(s);
	if (!s->booted && up == s->p.nosds) {
		s->booted = 1;
		osd_sim_tell(s, OSD_SIM_BOOTED, NULL);
		if (s->freeing)
			return;
	}
	osd_sim_check_clean(s);
	osd_sim_pump(s);
}

static void
osd_sim_cache_error(void *arg, int err, const char *msg)
{
	struct osd_sim *s = arg;

	if (s->freeing)
		return;
	s->st.errors++;
	osd_sim_tell(s, OSD_SIM_ERROR, "osdmap subscription: %s (%s)", msg,
	    strerror(-err));
}

static void
osd_sim_conn_error(void *arg, int err, const char *msg)
{
	struct osd_sim *s = arg;

	s->dead = 1;
	s->st.dead = 1;
	osd_sim_tell(s, OSD_SIM_ERROR, "%s (%s)", msg, strerror(-err));
}

static void
osd_sim_ready(void *arg, mapmon_unused json_t *hello)
{
	struct osd_sim *s = arg;

	if (osdmap_cache_start(s->cache) == -1) {
		s->dead = 1;
		s->st.dead = 1;
		osd_sim_tell(s, OSD_SIM_ERROR, "%s: cannot subscribe",
		    s->addr);
	}
}

/* Fill the stat a report carries for pg at its phase. */
static void
osd_sim_fill(struct osd_sim *s, const struct osd_sim_pool *sp, uint32_t seed,
    struct osd_sim_pg *pg, int64_t now, struct pg_stat *st)
{
	uint64_t r;
	int64_t dobj;

	pg_stat_init(st, (struct pg_id){ sp->id, seed });
	switch (pg->phase) {
	case OSD_SIM_PH_PEERING:
		st->state = PG_STATE_PEERING;
		break;
	case OSD_SIM_PH_ACTIVE:
		st->state = PG_STATE_ACTIVE;
		break;
	case OSD_SIM_PH_CLEAN:
		st->state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
		pg->clean_epoch = s->epoch;
		break;
	default:
		/* Live: a few writes and more reads since the last report. */
		st->state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
		r = osd_sim_rand(s);
		dobj = (int64_t)(r & 3);
		pg->objects += dobj;
		pg->wr += dobj + (int64_t)((r >> 8) & 7);
		pg->wr_kb += 4096 * dobj + (int64_t)((r >> 16) & 63);
		pg->rd += (int64_t)((r >> 24) & 31);
		pg->rd_kb += 4 * (int64_t)((r >> 32) & 1023);
		pg->version += (uint64_t)dobj;
		break;
	}
	pg->seq++;
	st->version_epoch = s->epoch;
	st->version_v = pg->version;
	st->reported_epoch = s->epoch;
	st->reported_seq = pg->seq;
	st->created = sp->created;
	st->last_epoch_clean = pg->clean_epoch;
	st->mapping_epoch = pg->mapping_epoch;
	st->up_len = st->acting_len = pg->up_len;
	memcpy(st->up, pg->up, (size_t)pg->up_len * sizeof *pg->up);
	memcpy(st->acting, pg->up, (size_t)pg->up_len * sizeof *pg->up);
	st->up_primary = st->acting_primary = pg->up[0];
	st->last_fresh = st->last_change = now;
	if (st->state & PG_STATE_ACTIVE)
		st->last_active = st->last_peered = now;
	if (st->state & PG_STATE_CLEAN)
		st->last_clean = now;
	st->last_unstale = now;
	st->log_size = st->ondisk_log_size = (int64_t)(pg->version % 3000);
	st->num_objects = pg->objects;
	st->num_bytes = pg->objects * 4194304;
	st->num_object_copies = pg->objects * pg->up_len;
	st->num_read = pg->rd;
	st->num_read_kb = pg->rd_kb;
	st->num_write = pg->wr;
	st->num_write_kb = pg->wr_kb;
}

static void
osd_sim_requeue_later(evutil_socket_t fd, short what, void *arg)
{
	struct osd_sim *s = arg;

	(void)fd;
	(void)what;
	s->backoff = 0;
	osd_sim_pump(s);
}

static void
osd_sim_answered(void *arg, int rc, const char *status, json_t *data)
{
	struct osd_sim_batch *b = arg;
	struct osd_sim *s = b->sim;
	struct osd_sim_pg *pg;
	struct timeval tv;
	size_t i;
	int live_again;

	if (s->freeing || s->dead) {
		free(b->refs);
		free(b);
		return;
	}
	s->st.inflight--;
	s->st.reports_answered++;
	live_again = s->p.live_interval_ms == 0;
	if (rc < 0) {
		/*
		 * Refused (an OSD marked down meanwhile, the monitor stopping):
		 * try again later; told once per back-off, not per report.
		 */
		s->st.errors++;
		if (!s->backoff)
			osd_sim_tell(s, OSD_SIM_ERROR, "pg report: %s", status);
		if (s->freeing || s->dead)
			goto out;
		for (i = 0; i < b->n; i++) {
			pg = osd_sim_pg(s, b->refs[i].pool, b->refs[i].seed);
			if (pg != NULL && pg->gen == b->refs[i].gen &&
			    pg->phase < OSD_SIM_PH_DONE)
				osd_sim_queue(s, pg, b->refs[i].pool,
				    b->refs[i].seed);
		}
		if (!s->backoff) {
			s->backoff = 1;
			tv.tv_sec = 0;
			tv.tv_usec = OSD_SIM_BACKOFF_MS * 1000;
			evtimer_add(s->retry_ev, &tv);
		}
		goto out;
	}
	s->st.pgs_accepted += (uint64_t)json_integer_value(
	    json_object_get(data, "accepted"));
	s->st.pgs_unknown += (uint64_t)json_integer_value(
	    json_object_get(data, "unknown"));
	s->st.pgs_old += (uint64_t)json_integer_value(
	    json_object_get(data, "old"));
	for (i = 0; i < b->n; i++) {
		pg = osd_sim_pg(s, b->refs[i].pool, b->refs[i].seed);
		if (pg == NULL || pg->gen != b->refs[i].gen)
			continue;
		if (b->refs[i].phase < OSD_SIM_PH_DONE &&
		    pg->phase == b->refs[i].phase) {
			pg->phase++;
			if (pg->phase == OSD_SIM_PH_DONE) {
				if (osd_sim_ours(s, pg))
					s->st.nclean++;
				if (!live_again)
					continue;
			}
		} else if (!live_again)
			continue;
		osd_sim_queue(s, pg, b->refs[i].pool, b->refs[i].seed);
	}
	osd_sim_check_clean(s);
out:
	free(b->refs);
	free(b);
	if (!s->freeing && !s->dead)
		osd_sim_pump(s);
}

/* Send one report from the next OSD with work; 0 when there was none. */
static int
osd_sim_send_one(struct osd_sim *s, int64_t now)
{
	struct osd_sim_queue *q = NULL;
	struct osd_sim_batch *b;
	struct osd_sim_pool *sp;
	struct osd_sim_pg *pg;
	struct osd_sim_ref r;
	struct pg_stat st;
	size_t count_at;
	uint32_t count = 0;
	int32_t osd = -1;
	int i;

	for (i = 0; i < s->p.nosds; i++) {
		osd = (s->cursor + i) % s->p.nosds;
		if (s->queues[osd].n > s->queues[osd].head) {
			q = &s->queues[osd];
			break;
		}
	}
	if (q == NULL) {
		s->nqueued = 0;
		return 0;
	}
	s->cursor = (osd + 1) % s->p.nosds;

	b = xcalloc(1, sizeof *b);
	b->sim = s;
	b->refs = xreallocarray(NULL, (size_t)s->p.batch, sizeof *b->refs);
	enc_buf_reset(&s->buf);
	enc_buf_put_u16(&s->buf, FRAME_BINARY_PG_REPORT);
	enc_buf_put_u32(&s->buf, (uint32_t)osd);
	count_at = s->buf.len;
	enc_buf_put_u32(&s->buf, 0);
	while (q->head < q->n && count < (uint32_t)s->p.batch) {
		r = q->v[q->head++];
		s->nqueued--;
		if ((sp = osd_sim_pool(s, r.pool)) == NULL ||
		    r.seed >= sp->pg_num)
			continue;
		pg = &sp->pgs[r.seed];
		if (pg->queued_osd != osd)
			continue;
		pg->queued_osd = -1;
		if (!osd_sim_ours(s, pg) || pg->up[0] != osd)
			continue;
		osd_sim_fill(s, sp, r.seed, pg, now, &st);
		pg_stat_encode(&st, &s->buf);
		r.gen = pg->gen;
		r.phase = pg->phase;
		b->refs[count++] = r;
	}
	if (q->head == q->n)
		q->head = q->n = 0;
	if (count == 0) {
		free(b->refs);
		free(b);
		return 1;
	}
	enc_put_be32(s->buf.data + count_at, count);
	b->n = count;
	if (mclient_request_binary(s->cl, s->buf.data, s->buf.len,
	    osd_sim_answered, b) == -1) {
		free(b->refs);
		free(b);
		s->dead = 1;
		s->st.dead = 1;
		return 0;
	}
	s->st.inflight++;
	s->st.reports_sent++;
	s->st.pgs_sent += count;
	return 1;
}

static void
osd_sim_pump(struct osd_sim *s)
{
	int64_t now;

	if (!s->booted || s->dead || s->backoff)
		return;
	now = stamp_now();
	while (s->nqueued > 0 && s->st.inflight < (size_t)s->p.window) {
		if (!osd_sim_send_one(s, now))
			break;
	}
}

/* Every live interval: a new report of every clean PG. */
static void
osd_sim_live(evutil_socket_t fd, short what, void *arg)
{
	struct osd_sim *s = arg;
	struct osd_sim_pool *sp;
	size_t i;
	uint32_t seed;

	(void)fd;
	(void)what;
	if (s->dead)
		return;
	for (i = 0; i < s->npools; i++) {
		sp = &s->pools[i];
		for (seed = 0; seed < sp->pg_num; seed++)
			if (sp->pgs[seed].phase == OSD_SIM_PH_DONE)
				osd_sim_queue(s, &sp->pgs[seed], sp->id, seed);
	}
	osd_sim_pump(s);
}

struct osd_sim *
osd_sim_new(struct event_base *base, const struct osd_sim_params *p,
    osd_sim_cb *cb, void *arg, char **cause)
{
	struct osd_sim *s;
	struct timeval tv;
	char name[32];

	if (p->nosds < 1 || p->nosds > OSDMAP_MAX_OSD) {
		xasprintf(cause, "osd count %d out of range 1..%d", p->nosds,
		    OSDMAP_MAX_OSD);
		return NULL;
	}
	if (p->window < 1 || p->batch < 1) {
		xasprintf(cause, "window and batch must be at least 1");
		return NULL;
	}
	if (p->addr == NULL) {
		xasprintf(cause, "no monitor address");
		return NULL;
	}
	s = xcalloc(1, sizeof *s);
	s->base = base;
	s->p = *p;
	s->addr = xstrdup(p->addr);
	s->p.addr = s->addr;
	s->cb = cb;
	s->arg = arg;
	s->seq_base = (uint64_t)stamp_now();
	s->rng = s->seq_base | 1;
	s->queues = xcalloc((size_t)p->nosds, sizeof *s->queues);
	s->retry_ev = evtimer_new(base, osd_sim_requeue_later, s);
	if (p->live_interval_ms > 0) {
		s->live_ev = event_new(base, -1, EV_PERSIST, osd_sim_live, s);
		tv.tv_sec = p->live_interval_ms / 1000;
		tv.tv_usec = (p->live_interval_ms % 1000) * 1000;
		evtimer_add(s->live_ev, &tv);
	}
	s->cl = mclient_new(base, s->addr, p->connect_timeout_ms,
	    osd_sim_ready, osd_sim_conn_error, s);
	snprintf(name, sizeof name, "client.osd-sim");
	mclient_set_name(s->cl, name);
	s->cache = osdmap_cache_new(s->cl, osd_sim_update, osd_sim_cache_error,
	    s);
	return s;
}

void
osd_sim_stats(const struct osd_sim *s, struct osd_sim_stats *st)
{
	*st = s->st;
}

void
osd_sim_free(struct osd_sim *s)
{
	size_t i;
	int k;

	if (s == NULL)
		return;
	s->freeing = 1;
	mclient_free(s->cl);
	osdmap_cache_free(s->cache);
	if (s->live_ev != NULL)
		event_free(s->live_ev);
	event_free(s->retry_ev);
	for (i = 0; i < s->npools; i++)
		free(s->pools[i].pgs);
	free(s->pools);
	for (k = 0; k < s->p.nosds; k++)
		free(s->queues[k].v);
	free(s->queues);
	free(s->elig);
	enc_buf_free(&s->buf);
	free(s->addr);
	free(s);
}
