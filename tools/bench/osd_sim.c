/* osd_sim.c: simulated OSDs reporting their PGs (see osd_sim.h). */
#include "config.h"

#include <sys/resource.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>
#include <openssl/crypto.h>

#include "common/b64.h"
#include "common/enc.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "map/osdmap.h"
#include "map/pg.h"
#include "map/placement.h"
#include "map/statfs.h"
#include "net/client.h"
#include "net/hunt.h"
#include "net/frame.h"
#include "net/keyring.h"
#include "tools/bench/osd_sim.h"
#include "tools/osdmap_cache.h"

/* A PG's next report: peering, active, settled; DONE: settled taken. */
#define OSD_SIM_PH_PEERING 0
#define OSD_SIM_PH_ACTIVE 1
#define OSD_SIM_PH_CLEAN 2
#define OSD_SIM_PH_DONE 3

/* After a refused report, wait this long before sending again. */
#define OSD_SIM_BACKOFF_MS 100

/* Failures are checked this often (or every heartbeat, when shorter). */
#define OSD_SIM_HB_CHECK_MS 100
/* Neighbours by id each way, heartbeated besides the PG peers. */
#define OSD_SIM_HB_RING 5

/* Open files besides the OSDs' sessions: the admin session, the tools'. */
#define OSD_SIM_SPARE_FDS 64

/* After an accepted boot, the map should show it up within this. */
#define OSD_SIM_BOOT_WAIT_US 1000000
/* After a boot refused with -EBUSY (noup) or another error. */
#define OSD_SIM_BOOT_RETRY_US 5000000
/* After a create refused with -EAGAIN (no leader yet, or one starting). */
#define OSD_SIM_CREATE_RETRY_US 200000

/* The bytes of an object, and what its store keeps besides. */
#define OSD_SIM_OBJECT_BYTES 4194304
#define OSD_SIM_OMAP_PER_OBJECT 1024
#define OSD_SIM_META_PER_OBJECT 4096
#define OSD_SIM_META_BASE (256ULL << 20)
/* A PG gains objects only while each of its OSDs is below this fill. */
#define OSD_SIM_FILL_STOP 0.75

/* The requests whose refusals are told once until one is accepted. */
enum osd_sim_kind {
	OSD_SIM_REQ_BOOT,
	OSD_SIM_REQ_FAILURE,
	OSD_SIM_REQ_BEACON,
	OSD_SIM_REQ_MARKDOWN,
	OSD_SIM_REQ_CONNECT,
	OSD_SIM_REQ_NKINDS
};

struct osd_sim_pg {
	uint64_t seq;			/* reported_seq of the last report */
	uint64_t version;
	int64_t objects;
	int64_t rd;
	int64_t rd_kb;
	int64_t wr;
	int64_t wr_kb;
	int64_t recovered;     /* objects recovered, in all */
	int64_t became_active; /* stamp of the report making it so */
	int64_t last_clean;    /* stamp of its last clean report */
	uint32_t mapping_epoch;
	uint32_t clean_epoch;
	int32_t up[PLACEMENT_MAX_SIZE];
	int32_t queued_osd;		/* the queue holding it, -1: none */
	uint8_t queued_urgent;		/* in its urgent queue */
	uint16_t gen;			/* bumped when the PG starts over */
	uint8_t up_len;
	uint8_t phase;
	uint8_t newbies; /* members still to recover */
};

struct osd_sim_pool {
	uint32_t id;
	uint32_t pg_num;
	uint32_t size;
	uint32_t min_size;
	uint32_t created;
	uint32_t crush_rule;
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

/* A create, boot, beacon, failure report or mark-me-down in flight. */
struct osd_sim_req {
	struct osd_sim *sim;
	int32_t id;
	int32_t target;
	enum osd_sim_kind kind;
	int all; /* a mark-me-down of osd_sim_stop() */
};

/* One simulated OSD. */
struct osd_sim_osd {
	struct osd_sim *sim;
	struct mclient *cl;	  /* its session as osd.N; NULL: none yet */
	int64_t next_boot;	  /* mono us: no boot before */
	int64_t next_ping;	  /* mono us: its next heartbeat */
	double fill;		  /* used / total at the last count */
	struct statfs_osd statfs; /* at the last count */
	size_t pgs;		  /* in the up sets, at the last count */
	enum osd_sim_osd_state state;
	uint8_t exists;	 /* in the last map */
	uint8_t up;	 /* up in the last map */
	uint8_t seen_up; /* up in a map since it last started */
	uint8_t booting; /* a create or boot in flight */
	uint8_t remake;	 /* its create failed: sent again at next_boot */
	uint8_t reopen;	 /* its session timed out opening: again then */
	uint8_t noup_told;
	uint8_t keying;	 /* its key asked for, not yet answered */
	uint8_t session; /* cl has been ready (authenticated) */
	uint8_t had_key; /* its key came once: asked again with auth get */
};

/* A heartbeat peer of an OSD. */
struct osd_sim_hb {
	int64_t last_rx;     /* mono us: its last answer */
	int64_t last_report; /* mono us: our last failure report */
	int32_t peer;
	uint8_t reported; /* a failure report not cancelled */
};

struct osd_sim {
	struct event_base *base;
	struct osd_sim_params p;
	char *addr; /* the monitor of the admin session: addrs[at] */
	/* The monitors, hunted in turn when the admin session's is lost. */
	char **addrs;
	size_t naddrs, at, hunt_failed;
	int admin_ready;
	int subscribed; /* the cache subscribed once */
	struct event *hunt_ev;
	struct event *rekey_ev; /* keys to ask again (no quorum meanwhile) */
	osd_sim_cb *cb;
	void *arg;

	struct mclient *cl; /* the admin session: keys, creates, the map */
	struct osdmap_cache *cache;
	struct event *live_ev;
	struct event *retry_ev;
	struct event *hb_ev;
	struct event *beacon_ev;
	struct event *stop_ev;

	uint32_t epoch;
	uint32_t flags; /* of the last map */
	int have_map;
	int booted;
	int clean_told;
	int freeing;
	int dead;
	int backoff;
	int stopping; /* osd_sim_stop() called */
	int stop_told;
	int stop_timeout_ms;
	int live_slice;		       /* the next of live_spread */
	int markdowns;		       /* mark-me-downs in flight */
	int markdowns_failed;	       /* of osd_sim_stop()'s, not down */
	int quiet[OSD_SIM_REQ_NKINDS]; /* a refusal told, none taken since */

	/* Each OSD's effective weight at the last map (0: not eligible). */
	uint32_t *elig;
	uint8_t *gone; /* left placement at the last map */
	uint32_t nelig;
	struct crush *crush; /* the hierarchy of the last map, held */

	struct osd_sim_pool *pools;	/* sorted by id */
	size_t npools;

	struct osd_sim_osd *osds;     /* one per simulated OSD */
	struct osd_sim_queue *queues; /* per OSD, then per OSD urgent */
	size_t nqueued;
	size_t nurgent; /* of nqueued, in urgent queues */
	int cursor;

	/* Heartbeat peers: OSD a's are hb[hb_off[a] .. hb_off[a + 1]). */
	size_t *hb_off;
	struct osd_sim_hb *hb;
	int hb_dirty;
	int64_t hb_built;
	/* An up flag or an OSD's state changed since the last full pass. */
	int hb_changed;

	struct enc_buf buf;
	uint64_t seq_base;
	uint64_t rng;
	struct osd_sim_stats st;
};

static void osd_sim_pump(struct osd_sim *);
static void osd_sim_boot_check(struct osd_sim *, int64_t now);
static void osd_sim_fetch_key(struct osd_sim *, int32_t, int);
static void osd_sim_halt(struct osd_sim *, int32_t, enum osd_sim_osd_state,
    int);

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
	p->heartbeat_interval_ms = 1000;
	p->heartbeat_grace_ms = 20000;
	p->beacon_interval_ms = 5000;
	p->osd_size = 100ULL << 30;
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

static struct timeval
osd_sim_tv(int ms)
{
	struct timeval tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	return tv;
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

/*
 * Put a PG in its primary's queue, unless it is there already.  Each OSD
 * has two: its PGs' changes of state (peering, active, settled) go before
 * the live reports of settled PGs, as an OSD tells a change at once, so
 * that a PG a map moved is reported on its new up set within a report's
 * round trip however long the queue of live reports is.
 */
static void
osd_sim_queue(struct osd_sim *s, struct osd_sim_pg *pg, uint32_t pool,
    uint32_t seed)
{
	struct osd_sim_queue *q;
	int32_t osd;
	int urgent = pg->phase < OSD_SIM_PH_DONE;

	if (!osd_sim_ours(s, pg))
		return;
	osd = pg->up[0];
	if (s->osds[osd].state != OSD_SIM_RUNNING)
		return;
	if (pg->queued_osd == osd && (pg->queued_urgent || !urgent))
		return;
	pg->queued_osd = osd;
	pg->queued_urgent = (uint8_t)urgent;
	q = &s->queues[urgent ? s->p.nosds + osd : osd];
	if (q->n == q->cap) {
		q->cap = q->cap == 0 ? 256 : q->cap * 2;
		q->v = xreallocarray(q->v, q->cap, sizeof *q->v);
	}
	q->v[q->n].pool = pool;
	q->v[q->n].seed = seed;
	q->n++;
	s->nqueued++;
	if (urgent)
		s->nurgent++;
}

/* Empty an OSD's queues (it stopped): its PGs are free to queue again. */
static void
osd_sim_drop_queue(struct osd_sim *s, int32_t osd)
{
	struct osd_sim_queue *q;
	struct osd_sim_pg *pg;
	size_t i;
	int k;

	for (k = 0; k < 2; k++) {
		q = &s->queues[k * s->p.nosds + osd];
		for (i = q->head; i < q->n; i++) {
			pg = osd_sim_pg(s, q->v[i].pool, q->v[i].seed);
			if (pg != NULL && pg->queued_osd == osd)
				pg->queued_osd = -1;
		}
		s->nqueued -= q->n - q->head;
		if (k == 1)
			s->nurgent -= q->n - q->head;
		q->head = q->n = 0;
	}
}

/* Queue every PG whose primary is osd (it runs again). */
static void
osd_sim_queue_primary(struct osd_sim *s, int32_t osd)
{
	struct osd_sim_pool *sp;
	size_t i;
	uint32_t seed;

	for (i = 0; i < s->npools; i++) {
		sp = &s->pools[i];
		for (seed = 0; seed < sp->pg_num; seed++)
			if (sp->pgs[seed].up_len > 0 &&
			    sp->pgs[seed].up[0] == osd)
				osd_sim_queue(s, &sp->pgs[seed], sp->id, seed);
	}
}

/* Is the PG's up set as long as its pool's size? */
static int
osd_sim_full(const struct osd_sim_pool *sp, const struct osd_sim_pg *pg)
{
	return pg->up_len >= sp->size;
}

/* Count the PGs the simulator reports and those clean; tell CLEAN. */
static void
osd_sim_recount(struct osd_sim *s)
{
	struct osd_sim_pool *sp;
	size_t i, npgs = 0, nclean = 0, npeering = 0;
	uint32_t seed;

	for (i = 0; i < s->npools; i++) {
		sp = &s->pools[i];
		for (seed = 0; seed < sp->pg_num; seed++) {
			if (!osd_sim_ours(s, &sp->pgs[seed]))
				continue;
			npgs++;
			if (sp->pgs[seed].phase == OSD_SIM_PH_PEERING)
				npeering++;
			if (sp->pgs[seed].phase == OSD_SIM_PH_DONE &&
			    osd_sim_full(sp, &sp->pgs[seed]))
				nclean++;
		}
	}
	s->st.npgs = npgs;
	s->st.nclean = nclean;
	s->st.npeering = npeering;
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

/*
 * Place one PG; a PG that is new, or whose up set moved, starts over.
 * Members the old set lacked have a copy to recover.  Returns 1 when the
 * set changed.
 */
static int
osd_sim_map_pg(struct osd_sim *s, const struct osdmap_place *pl,
    struct osd_sim_pool *sp, uint32_t seed, int fresh)
{
	struct osd_sim_pg *pg = &sp->pgs[seed];
	int32_t up[PLACEMENT_MAX_SIZE];
	int i, j, n, added = 0;

	n = osdmap_place_pg(pl, sp->id, sp->crush_rule, seed, sp->size, up);
	if (!fresh && n == pg->up_len &&
	    memcmp(up, pg->up, (size_t)n * sizeof *up) == 0)
		return 0;
	if (fresh) {
		memset(pg, 0, sizeof *pg);
		pg->queued_osd = -1;
		pg->seq = s->seq_base;
	} else if (pg->up_len > 0 && pg->objects > 0) {
		for (i = 0; i < n; i++) {
			for (j = 0; j < pg->up_len && pg->up[j] != up[i]; j++)
				continue;
			if (j == pg->up_len)
				added++;
		}
		added += pg->newbies;
		pg->newbies = (uint8_t)(added < n ? added : n);
	}
	memcpy(pg->up, up, (size_t)n * sizeof *up);
	pg->up_len = (uint8_t)n;
	pg->mapping_epoch = s->epoch;
	pg->phase = OSD_SIM_PH_PEERING;
	pg->gen++;
	osd_sim_queue(s, pg, sp->id, seed);
	return 1;
}

/*
 * A refusal of kind told once until one of that kind is accepted, so that
 * a monitor refusing every beacon is one line, not one a second.
 */
static void
osd_sim_refused(struct osd_sim *s, enum osd_sim_kind kind, const char *what,
    int32_t id, const char *status)
{
	s->st.errors++;
	if (s->quiet[kind])
		return;
	s->quiet[kind] = 1;
	osd_sim_tell(s, OSD_SIM_ERROR, "%s %d: %s%s", what, id, status,
	    kind == OSD_SIM_REQ_BOOT ? "" :
				       " (told once until one is "
				       "accepted)");
}

static struct osd_sim_req *
osd_sim_req_new(struct osd_sim *s, enum osd_sim_kind kind, int32_t id)
{
	struct osd_sim_req *r = xcalloc(1, sizeof *r);

	r->sim = s;
	r->kind = kind;
	r->id = id;
	return r;
}

/*
 * Send cmd for r on cl (an OSD's session, or the admin one); 0, or -1 (r
 * freed) when cl is NULL (no session yet) or dead.
 */
static int
osd_sim_send(struct mclient *cl, json_t *cmd, mclient_reply_cb cb,
    struct osd_sim_req *r)
{
	int rc = cl != NULL ? mclient_request(cl, cmd, cb, r) : -1;

	json_decref(cmd);
	if (rc == -1)
		free(r);
	return rc;
}

static void
osd_sim_boot_done(void *arg, int rc, const char *status,
    mapmon_unused json_t *data)
{
	struct osd_sim_req *r = arg;
	struct osd_sim *s = r->sim;
	struct osd_sim_osd *o = &s->osds[r->id];

	free(r);
	if (s->freeing || s->dead)
		return;
	o->booting = 0;
	if (rc == 0) {
		s->quiet[OSD_SIM_REQ_BOOT] = 0;
		o->next_boot = stamp_mono() + OSD_SIM_BOOT_WAIT_US;
		return;
	}
	o->next_boot = stamp_mono() + OSD_SIM_BOOT_RETRY_US;
	if (rc == -EBUSY) {
		/* noup, set after the map we had: wait, quietly. */
		if (!o->noup_told)
			osd_sim_tell(s, OSD_SIM_NOTICE,
			    "osd.%d: boot refused "
			    "(%s); trying again every %d s",
			    (int)(o - s->osds), status,
			    OSD_SIM_BOOT_RETRY_US / 1000000);
		o->noup_told = 1;
		return;
	}
	osd_sim_refused(s, OSD_SIM_REQ_BOOT, "osd boot", (int32_t)(o - s->osds),
	    status);
}

static void
osd_sim_send_boot(struct osd_sim *s, int32_t id)
{
	struct osd_sim_req *r;
	json_t *cmd;
	char addr[32], host[32] = "host=", rack[32] = "rack=";

	r = osd_sim_req_new(s, OSD_SIM_REQ_BOOT, id);
	snprintf(addr, sizeof addr, "127.0.0.1:%d", 6800 + id % 1000);
	cmd = json_pack("{s:s, s:i, s:s}", "prefix", "osd boot", "id", id,
	    "addr", addr);
	/* Its crush location, as Ceph's OSD sends it as it starts. */
	if (osd_sim_rack(s, id, rack + 5, sizeof rack - 5) == 0 &&
	    osd_sim_host(s, id, host + 5, sizeof host - 5) == 0)
		json_object_set_new(cmd, "args",
		    json_pack("[s, s, s]", "root=default", rack, host));
	else if (osd_sim_host(s, id, host + 5, sizeof host - 5) == 0)
		json_object_set_new(cmd, "args", json_pack("[s]", host));
	if (osd_sim_send(s->osds[id].cl, cmd, osd_sim_boot_done, r) == 0) {
		s->osds[id].booting = 1;
		s->st.boots_sent++;
	}
}

static void
osd_sim_create_done(void *arg, int rc, const char *status,
    mapmon_unused json_t *data)
{
	struct osd_sim_req *r = arg;
	struct osd_sim *s = r->sim;
	int32_t id = r->id;

	free(r);
	if (s->freeing || s->dead)
		return;
	s->osds[id].booting = 0;
	/*
	 * -EAGAIN (a quorum whose leader is elected but not yet taking
	 * writes answers so): sent again shortly, quietly.  Another error:
	 * told as a refused boot is, and sent again after the boot's
	 * back-off.  Without this an
	 * OSD whose create came in those few ms was never made, and a
	 * bring-up waited for it until its timeout.
	 */
	if (rc < 0 && rc != -EEXIST) {
		s->osds[id].remake = 1;
		s->osds[id].next_boot = stamp_mono() +
		    (rc == -EAGAIN ? OSD_SIM_CREATE_RETRY_US :
				     OSD_SIM_BOOT_RETRY_US);
		if (rc != -EAGAIN)
			osd_sim_refused(s, OSD_SIM_REQ_BOOT, "osd create", id,
			    status);
		return;
	}
	/* -EEXIST: someone made it meanwhile, which is as good. */
	s->osds[id].remake = 0;
	s->osds[id].exists = 1;
	if (s->osds[id].state == OSD_SIM_RUNNING && !s->stopping &&
	    !(s->flags & OSDMAP_FLAG_NOUP))
		osd_sim_send_boot(s, id);
}

/* Ask for OSD id; when it cannot be sent now, boot_check asks again. */
static void
osd_sim_send_create(struct osd_sim *s, int32_t id)
{
	struct osd_sim_osd *o = &s->osds[id];
	struct osd_sim_req *r;
	json_t *cmd;

	r = osd_sim_req_new(s, OSD_SIM_REQ_BOOT, id);
	cmd = json_pack("{s:s, s:i}", "prefix", "osd create", "id", id);
	o->remake = osd_sim_send(s->cl, cmd, osd_sim_create_done, r) != 0;
	if (o->remake)
		o->next_boot = stamp_mono() + OSD_SIM_CREATE_RETRY_US;
	else
		o->booting = 1;
}

/* Create the OSDs the map lacks (the first map); boot_check boots. */
static void
osd_sim_create_missing(struct osd_sim *s, const struct osdmap *m)
{
	int32_t id;

	for (id = 0; id < s->p.nosds; id++)
		if (osdmap_osd(m, id) == NULL)
			osd_sim_send_create(s, id);
}

/*
 * Boot every running OSD the map shows down (existing, no boot in flight,
 * not too soon after the last), unless the map has noup.
 */
static void
osd_sim_boot_check(struct osd_sim *s, int64_t now)
{
	struct osd_sim_osd *o;
	int32_t id;

	if (!s->have_map || s->stopping || s->dead)
		return;
	for (id = 0; id < s->p.nosds; id++) {
		o = &s->osds[id];
		if (o->state == OSD_SIM_RUNNING && !o->exists && o->remake &&
		    !o->booting && now >= o->next_boot) {
			osd_sim_send_create(s, id);
			continue;
		}
		if (o->state == OSD_SIM_RUNNING && o->reopen && o->cl == NULL &&
		    !o->keying && now >= o->next_boot) {
			o->reopen = 0;
			osd_sim_fetch_key(s, id, 0);
			continue;
		}
		if (o->state != OSD_SIM_RUNNING || !o->exists || o->up ||
		    o->booting || now < o->next_boot)
			continue;
		if (s->flags & OSDMAP_FLAG_NOUP) {
			if (!o->noup_told)
				osd_sim_tell(s, OSD_SIM_NOTICE,
				    "osd.%d: the "
				    "noup flag is set; it boots once the flag "
				    "is unset",
				    id);
			o->noup_told = 1;
			continue;
		}
		osd_sim_send_boot(s, id);
	}
}

/* Follow the simulator's OSDs in a new map; 1 when an up flag changed. */
static int
osd_sim_update_osds(struct osd_sim *s, const struct osdmap *m)
{
	const struct osdmap_osd *mo;
	struct osd_sim_osd *o;
	int32_t id;
	int up = 0, changed = 0;

	for (id = 0; id < s->p.nosds; id++) {
		o = &s->osds[id];
		mo = osdmap_osd(m, id);
		o->exists = mo != NULL;
		if ((mo != NULL && mo->up) != o->up)
			changed = s->hb_changed = 1;
		o->up = mo != NULL && mo->up;
		if (o->up) {
			up++;
			o->noup_told = 0;
		}
		if (o->state != OSD_SIM_RUNNING)
			continue;
		if (o->up) {
			o->seen_up = 1;
		} else if (o->seen_up && mo != NULL) {
			o->seen_up = 0;
			o->next_boot = 0;
			s->st.wrongly_down++;
			osd_sim_tell(s, OSD_SIM_NOTICE,
			    "osd.%d: map e%u "
			    "wrongly marked me down at e%u",
			    id, m->epoch, mo->down_at);
		}
	}
	s->st.osds_up = up;
	return changed;
}

/* Does the PG's up set hold an OSD that just left (s->gone)? */
static int
osd_sim_lost_one(const struct osd_sim *s, const struct osd_sim_pg *pg)
{
	int i;

	for (i = 0; i < pg->up_len; i++)
		if (pg->up[i] >= 0 && (uint32_t)pg->up[i] < s->nelig &&
		    s->gone[pg->up[i]])
			return 1;
	return 0;
}

static void osd_sim_beacon_tick(evutil_socket_t, short, void *);

static void
osd_sim_update(void *arg, const struct osdmap *m)
{
	struct osd_sim *s = arg;
	const struct osdmap_place *pl;
	const struct osdmap_osd *o;
	const struct osdmap_pool *mp;
	struct osd_sim_pool *pools, *sp, *old;
	size_t i, j, npools;
	uint32_t k, w, seed, old_num;
	int moved = 0, changed = 0, only_left = 1;

	s->epoch = m->epoch;
	s->st.epoch = m->epoch;
	s->flags = m->flags;
	if (!s->have_map) {
		s->have_map = 1;
		osd_sim_create_missing(s, m);
	}
	if (osd_sim_update_osds(s, m))
		changed = 1;

	/*
	 * Did anything placement depends on change for existing PGs?  When
	 * OSDs only left (down or out), only the PGs that held one move
	 * (placement.h): the others are not placed again, which at 221,568
	 * PGs on 256 OSDs saves some 0.3 s of the simulator's loop a kill.
	 */
	if (m->max_osd != s->nelig) {
		s->elig = xreallocarray(s->elig, m->max_osd, sizeof *s->elig);
		s->gone = xreallocarray(s->gone, m->max_osd, sizeof *s->gone);
		if (m->max_osd > s->nelig)
			memset(s->elig + s->nelig, 0, (m->max_osd - s->nelig) *
			    sizeof *s->elig);
		if (m->max_osd < s->nelig)
			only_left = 0;
		s->nelig = m->max_osd;
		moved = 1;
	}
	if (s->nelig > 0)
		memset(s->gone, 0, s->nelig * sizeof *s->gone);
	for (k = 0; k < m->max_osd; k++) {
		o = &m->osds[k];
		w = 0;
		if (o->exists && o->up && o->in && o->weight > 0 &&
		    o->reweight > 0)
			w = (uint32_t)(((uint64_t)o->weight * o->reweight) >>
			    16) | 1;
		if (w != s->elig[k]) {
			if (w == 0)
				s->gone[k] = 1;
			else
				only_left = 0;
			s->elig[k] = w;
			moved = 1;
		}
	}
	/* A new hierarchy may move any PG. */
	if (m->crush != s->crush) {
		crush_free(s->crush);
		s->crush = m->crush != NULL ? crush_hold(m->crush) : NULL;
		moved = 1;
		only_left = 0;
	}
	pl = osdmap_cache_placement(s->cache);

	/* The pools, in the map's order (by id); old PG arrays carried over. */
	npools = m->npools;
	if (npools != s->npools)
		changed = 1;
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
			sp->crush_rule = mp->crush_rule;
			changed = 1;
		}
		sp->created = mp->created_epoch;
		sp->min_size = mp->min_size;
		old_num = sp->pg_num;
		if (mp->pg_num != old_num) {
			sp->pgs = xreallocarray(sp->pgs, mp->pg_num ?
			    mp->pg_num : 1, sizeof *sp->pgs);
			sp->pg_num = mp->pg_num;
			changed = 1;
		}
		if (mp->size != sp->size || mp->crush_rule != sp->crush_rule) {
			sp->size = mp->size;
			sp->crush_rule = mp->crush_rule;
			old_num = old_num < sp->pg_num ? old_num : sp->pg_num;
			for (seed = 0; seed < old_num; seed++)
				changed |= osd_sim_map_pg(s, pl, sp, seed, 0);
		} else if (moved) {
			for (seed = 0; seed < old_num && seed < sp->pg_num;
			    seed++)
				if (!only_left ||
				    osd_sim_lost_one(s, &sp->pgs[seed]))
					changed |= osd_sim_map_pg(s, pl, sp,
					    seed, 0);
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
	if (changed)
		s->hb_dirty = 1;

	osd_sim_recount(s);
	if (!s->booted && s->st.osds_up == s->p.nosds) {
		s->booted = 1;
		osd_sim_tell(s, OSD_SIM_BOOTED, NULL);
		if (s->freeing)
			return;
		/* The first beacons at once: the monitor knows the stores. */
		osd_sim_beacon_tick(-1, 0, s);
	}
	osd_sim_boot_check(s, stamp_mono());
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

static void osd_sim_ready(void *, json_t *);
static void osd_sim_conn_error(void *, int, const char *);

/* The admin session, to the monitor at s->addr. */
static void
osd_sim_admin_connect(struct osd_sim *s)
{
	s->admin_ready = 0;
	s->cl = mclient_new(s->base, s->addr, s->p.connect_timeout_ms,
	    osd_sim_ready, osd_sim_conn_error, s);
	mclient_set_name(s->cl, "client.osd-sim");
	if (s->p.no_auth)
		mclient_set_auth(s->cl, NULL, NULL);
}

static void
osd_sim_hunt_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	osd_sim_admin_connect(arg);
}

/*
 * The admin session ended.  With one monitor that is the end.  With
 * several, the next is tried (after a round of failures, a second
 * later); the OSDs whose sessions went with it reconnect once it is up
 * (osd_sim_ready()).
 */
static void
osd_sim_conn_error(void *arg, int err, const char *msg)
{
	struct osd_sim *s = arg;
	struct timeval tv = { 1, 0 };
	int was = s->admin_ready;

	if (s->naddrs <= 1 || s->freeing || s->stopping) {
		s->dead = 1;
		s->st.dead = 1;
		osd_sim_tell(s, OSD_SIM_ERROR, "%s (%s)", msg, strerror(-err));
		return;
	}
	mclient_free(s->cl);
	s->cl = NULL;
	s->admin_ready = 0;
	if (was) {
		s->st.sessions_lost++;
		s->hunt_failed = 0;
		osd_sim_tell(s, OSD_SIM_NOTICE,
		    "lost the monitor at %s (%s); hunting for another", s->addr,
		    msg);
	}
	s->at = (s->at + 1) % s->naddrs;
	s->addr = s->addrs[s->at];
	if (++s->hunt_failed < s->naddrs)
		osd_sim_admin_connect(s);
	else
		evtimer_add(s->hunt_ev, &tv);
}

static void osd_sim_osd_ready(void *, json_t *);
static void osd_sim_osd_error(void *, int, const char *);

/*
 * Open OSD id's session, as osd.ID with key (32 bytes), or without a key
 * (p.no_auth: key NULL); its requests may be sent at once, they leave once
 * it is authenticated.
 */
static void
osd_sim_connect(struct osd_sim *s, int32_t id, const uint8_t *key)
{
	struct osd_sim_osd *o = &s->osds[id];
	char name[32];

	snprintf(name, sizeof name, "osd.%d", id);
	o->session = 0;
	o->reopen = 0;
	o->cl = mclient_new(s->base, s->addr, s->p.connect_timeout_ms,
	    osd_sim_osd_ready, osd_sim_osd_error, o);
	mclient_set_name(o->cl, name);
	mclient_set_auth(o->cl, key != NULL ? name : NULL, key);
}

/*
 * OSD id has no session.  again: its session timed out opening, and it is
 * opened again after the boot's back-off; otherwise it can have none and
 * is stopped as if killed.  Said once until a session opens again (a
 * monitor that refuses every OSD, past its max_connections say, is one
 * line, not thousands).
 */
static void
osd_sim_no_session(struct osd_sim *s, int32_t id, const char *why, int again)
{
	struct osd_sim_osd *o = &s->osds[id];

	s->st.errors++;
	if (again) {
		o->reopen = 1;
		o->next_boot = stamp_mono() + OSD_SIM_BOOT_RETRY_US;
	} else if (o->state == OSD_SIM_RUNNING)
		osd_sim_halt(s, id, OSD_SIM_KILLED, 0);
	if (s->quiet[OSD_SIM_REQ_CONNECT])
		return;
	s->quiet[OSD_SIM_REQ_CONNECT] = 1;
	if (again)
		osd_sim_tell(s, OSD_SIM_ERROR,
		    "osd.%d: no session: %s; opened again in %d s (told once "
		    "until a session opens)",
		    id, why, OSD_SIM_BOOT_RETRY_US / 1000000);
	else
		osd_sim_tell(s, OSD_SIM_ERROR,
		    "osd.%d: no session: %s; it stays stopped until revived "
		    "(told once until a session opens)",
		    id, why);
}

static void
osd_sim_key_done(void *arg, int rc, const char *status, json_t *data)
{
	struct osd_sim_req *r = arg;
	struct osd_sim *s = r->sim;
	int32_t id = r->id;
	uint8_t key[KEYRING_KEY_LEN];
	const char *text;
	char *why = NULL;

	free(r);
	if (s->freeing || s->dead)
		return;
	s->osds[id].keying = 0;
	/*
	 * The admin session's monitor lost while asking: asked again once
	 * the session is back, on another monitor (osd_sim_ready()).
	 */
	if (rc != 0 && data == NULL && s->naddrs > 1 &&
	    (rc == -ECONNRESET || rc == -ECANCELED || rc == -ECONNREFUSED ||
		rc == -ETIMEDOUT || rc == -EPIPE))
		return;
	/* No quorum for a moment (a leader lost): asked again shortly. */
	if (rc == -EAGAIN && s->naddrs > 1) {
		struct timeval tv = { 1, 0 };

		evtimer_add(s->rekey_ev, &tv);
		return;
	}
	if (rc != 0) {
		xasprintf(&why, "its key: %s", status);
	} else {
		text = json_string_value(
		    json_object_get(json_array_get(data, 0), "key"));
		if (text == NULL)
			xasprintf(&why, "its key: the reply holds none");
		else if (b64_decode_exact(text, key, sizeof key, &why) == -1) {
			char *t = why;

			xasprintf(&why, "its key: %s", t);
			free(t);
		}
	}
	if (why != NULL) {
		osd_sim_no_session(s, id, why, 0);
		free(why);
		return;
	}
	s->osds[id].had_key = 1;
	osd_sim_connect(s, id, key);
	OPENSSL_cleanse(key, sizeof key);
	osd_sim_boot_check(s, stamp_mono());
	osd_sim_pump(s);
}

/*
 * Ask the monitor, on the admin session, for OSD id's key: `auth
 * get-or-create osd.ID mon "allow profile osd"` (create), as a Ceph
 * deployment makes an OSD's key, or `auth get osd.ID` after its session
 * was closed (a removed key is not made again: that OSD stops).
 */
static void
osd_sim_fetch_key(struct osd_sim *s, int32_t id, int create)
{
	struct osd_sim_req *r;
	json_t *cmd;
	char name[32];

	if (s->p.no_auth) {
		osd_sim_connect(s, id, NULL);
		return;
	}
	snprintf(name, sizeof name, "osd.%d", id);
	if (create)
		cmd = json_pack("{s:s, s:s, s:[s, s]}", "prefix",
		    "auth get-or-create", "entity", name, "caps", "mon",
		    "allow profile osd");
	else
		cmd = json_pack("{s:s, s:s}", "prefix", "auth get", "entity",
		    name);
	r = osd_sim_req_new(s, OSD_SIM_REQ_CONNECT, id);
	if (osd_sim_send(s->cl, cmd, osd_sim_key_done, r) == 0)
		s->osds[id].keying = 1;
}

static void
osd_sim_osd_ready(void *arg, mapmon_unused json_t *hello)
{
	struct osd_sim_osd *o = arg;

	o->session = 1;
	o->sim->quiet[OSD_SIM_REQ_CONNECT] = 0;
}

/*
 * An OSD's session ended.  One that had been authenticated was closed by
 * the monitor (its key rotated or removed, mapmon(8)): its key is fetched
 * again and a new session opened, as an OSD given its new keyring would
 * do.  One that timed out opening (a monitor too busy to answer within
 * the connect timeout: hundreds of handshakes at once under a sanitizer)
 * is opened again after the boot's back-off, as an OSD keeps trying its
 * monitors.  One that never opened otherwise (refused, too many
 * connections) stops.
 */
static void
osd_sim_osd_error(void *arg, int err, const char *msg)
{
	struct osd_sim_osd *o = arg;
	struct osd_sim *s = o->sim;
	int32_t id = (int32_t)(o - s->osds);
	int had = o->session;
	char *why;

	mclient_free(o->cl);
	o->cl = NULL;
	o->session = 0;
	if (s->freeing || s->dead || s->stopping)
		return;
	s->st.sessions_lost++;
	/* Its monitor was lost with the admin session's: it comes back then. */
	if (!s->admin_ready && s->naddrs > 1)
		return;
	if (!had) {
		xasprintf(&why, "%s (%s)", msg, strerror(-err));
		osd_sim_no_session(s, id, why,
		    err == -ETIMEDOUT && o->state == OSD_SIM_RUNNING);
		free(why);
		return;
	}
	osd_sim_tell(s, OSD_SIM_NOTICE,
	    "osd.%d: the monitor closed its session "
	    "(%s); fetching its key again to reconnect",
	    id, strerror(-err));
	osd_sim_fetch_key(s, id, 0);
}

/*
 * The admin session is up: the osdmap subscription, and every OSD's key
 * asked for at once (the monitor commits the new ones together), each
 * OSD's session opened as its key comes.
 */
static void
osd_sim_ready(void *arg, mapmon_unused json_t *hello)
{
	struct osd_sim *s = arg;
	int32_t id;
	int rc;

	s->admin_ready = 1;
	s->hunt_failed = 0;
	if (s->subscribed)
		osd_sim_tell(s, OSD_SIM_NOTICE,
		    "carrying on with the monitor at %s", s->addr);
	rc = s->subscribed ? osdmap_cache_resume(s->cache, s->cl) :
			     osdmap_cache_start(s->cache);
	s->subscribed = 1;
	if (rc == -1) {
		s->dead = 1;
		s->st.dead = 1;
		osd_sim_tell(s, OSD_SIM_ERROR, "%s: cannot subscribe",
		    s->addr);
		return;
	}
	for (id = 0; id < s->p.nosds; id++)
		if (s->osds[id].cl == NULL && !s->osds[id].keying)
			osd_sim_fetch_key(s, id, !s->osds[id].had_key);
}

/* Ask again for the keys of the OSDs left without a session. */
static void
osd_sim_rekey_cb(evutil_socket_t fd, short what, void *arg)
{
	struct osd_sim *s = arg;
	int32_t id;

	(void)fd;
	(void)what;
	if (!s->admin_ready || s->freeing || s->dead || s->stopping)
		return;
	for (id = 0; id < s->p.nosds; id++)
		if (s->osds[id].cl == NULL && !s->osds[id].keying)
			osd_sim_fetch_key(s, id, !s->osds[id].had_key);
}

/* The state a PG settles in: as its up set allows. */
static uint32_t
osd_sim_settled(const struct osd_sim_pool *sp, const struct osd_sim_pg *pg)
{
	if (osd_sim_full(sp, pg))
		return PG_STATE_ACTIVE | PG_STATE_CLEAN;
	if (pg->up_len < sp->min_size)
		return PG_STATE_UNDERSIZED | PG_STATE_DEGRADED |
		    PG_STATE_PEERED;
	return PG_STATE_ACTIVE | PG_STATE_UNDERSIZED | PG_STATE_DEGRADED;
}

/* May the PG gain objects: is each of its OSDs below the fill limit? */
static int
osd_sim_room(const struct osd_sim *s, const struct osd_sim_pg *pg)
{
	int i;

	for (i = 0; i < pg->up_len; i++)
		if (pg->up[i] >= 0 && pg->up[i] < s->p.nosds &&
		    s->osds[pg->up[i]].fill >= OSD_SIM_FILL_STOP)
			return 0;
	return 1;
}

/* Fill the stat a report carries for pg at its phase. */
static void
osd_sim_fill(struct osd_sim *s, const struct osd_sim_pool *sp, uint32_t seed,
    struct osd_sim_pg *pg, int64_t now, struct pg_stat *st)
{
	uint64_t r;
	int64_t dobj, missing;

	pg_stat_init(st, (struct pg_id){ sp->id, seed });
	switch (pg->phase) {
	case OSD_SIM_PH_PEERING:
		st->state = PG_STATE_PEERING;
		break;
	case OSD_SIM_PH_ACTIVE:
		st->state = osd_sim_settled(sp, pg) & ~PG_STATE_CLEAN;
		if (pg->newbies > 0 && (st->state & PG_STATE_ACTIVE))
			st->state |= PG_STATE_RECOVERING | PG_STATE_DEGRADED;
		if (st->state & PG_STATE_ACTIVE)
			pg->became_active = now;
		break;
	case OSD_SIM_PH_CLEAN:
		st->state = osd_sim_settled(sp, pg);
		if (pg->newbies > 0 && (st->state & PG_STATE_ACTIVE)) {
			pg->recovered += pg->objects * pg->newbies;
			pg->newbies = 0;
		}
		if (st->state & PG_STATE_CLEAN)
			pg->clean_epoch = s->epoch;
		break;
	default:
		/* Live: a few writes and more reads since the last report. */
		st->state = osd_sim_settled(sp, pg);
		r = osd_sim_rand(s);
		dobj = osd_sim_room(s, pg) ? (int64_t)(r & 3) : 0;
		pg->objects += dobj;
		pg->wr += (int64_t)(r & 3) + (int64_t)((r >> 8) & 7);
		pg->wr_kb += 4096 * (int64_t)(r & 3) +
		    (int64_t)((r >> 16) & 63);
		pg->rd += (int64_t)((r >> 24) & 31);
		pg->rd_kb += 4 * (int64_t)((r >> 32) & 1023);
		pg->version += (uint64_t)(r & 3);
		break;
	}
	if (st->state & PG_STATE_CLEAN)
		pg->last_clean = now;
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
		st->last_active = now;
	if (st->state & (PG_STATE_ACTIVE | PG_STATE_PEERED))
		st->last_peered = now;
	st->last_clean = pg->last_clean;
	st->last_became_active = pg->became_active;
	st->last_unstale = now;
	st->log_size = st->ondisk_log_size = (int64_t)(pg->version % 3000);
	st->num_objects = pg->objects;
	st->num_bytes = pg->objects * OSD_SIM_OBJECT_BYTES;
	st->num_object_copies = pg->objects * sp->size;
	/* Degraded: the copies missing (short set) or not yet recovered. */
	missing = sp->size > pg->up_len ? (int64_t)(sp->size - pg->up_len) : 0;
	if (st->state & PG_STATE_RECOVERING)
		missing += pg->newbies;
	if (st->state & PG_STATE_DEGRADED)
		st->num_objects_degraded = pg->objects * missing;
	st->num_objects_recovered = pg->recovered;
	st->num_bytes_recovered = pg->recovered * OSD_SIM_OBJECT_BYTES;
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
	struct osd_sim_pool *sp;
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
		 * -EAGAIN, the OSD down, is what a map on its way says: its
		 * PGs move and start over on their new primary.
		 */
		s->st.errors++;
		if (!s->backoff && rc != -EAGAIN)
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
			tv = osd_sim_tv(OSD_SIM_BACKOFF_MS);
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
		sp = osd_sim_pool(s, b->refs[i].pool);
		if (sp == NULL || b->refs[i].seed >= sp->pg_num)
			continue;
		pg = &sp->pgs[b->refs[i].seed];
		if (pg->gen != b->refs[i].gen)
			continue;
		if (b->refs[i].phase < OSD_SIM_PH_DONE &&
		    pg->phase == b->refs[i].phase) {
			if (pg->phase == OSD_SIM_PH_PEERING &&
			    osd_sim_ours(s, pg) && s->st.npeering > 0 &&
			    --s->st.npeering == 0)
				s->st.peering_done_mono = stamp_mono();
			pg->phase++;
			if (pg->phase == OSD_SIM_PH_DONE) {
				if (osd_sim_ours(s, pg) && osd_sim_full(sp, pg))
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

/* Fill b from q, OSD osd's queue (urgent or not), up to the batch. */
static void
osd_sim_take(struct osd_sim *s, struct osd_sim_queue *q, int32_t osd,
    int urgent, int64_t now, struct osd_sim_batch *b)
{
	struct osd_sim_pool *sp;
	struct osd_sim_pg *pg;
	struct osd_sim_ref r;
	struct pg_stat st;

	while (q->head < q->n && b->n < (size_t)s->p.batch) {
		r = q->v[q->head++];
		s->nqueued--;
		if (urgent)
			s->nurgent--;
		if ((sp = osd_sim_pool(s, r.pool)) == NULL ||
		    r.seed >= sp->pg_num)
			continue;
		pg = &sp->pgs[r.seed];
		/* Moved to another queue since, or waiting in the urgent one. */
		if (pg->queued_osd != osd || (!urgent && pg->queued_urgent))
			continue;
		pg->queued_osd = -1;
		pg->queued_urgent = 0;
		if (!osd_sim_ours(s, pg) || pg->up[0] != osd)
			continue;
		osd_sim_fill(s, sp, r.seed, pg, now, &st);
		pg_stat_encode(&st, &s->buf);
		r.gen = pg->gen;
		r.phase = pg->phase;
		b->refs[b->n++] = r;
	}
	if (q->head == q->n)
		q->head = q->n = 0;
}

/*
 * Send one report from the next OSD with work, OSDs with changes of state
 * first; 0 when there was none.
 */
static int
osd_sim_send_one(struct osd_sim *s, int64_t now, int urgent_only)
{
	struct osd_sim_queue *q;
	struct osd_sim_batch *b;
	struct osd_sim_pg *pg;
	size_t count_at;
	int32_t osd = -1;
	int i, k, found = 0, waiting = 0;

	/* An OSD without its session yet keeps its queue for later. */
	for (k = 1; k >= (urgent_only ? 1 : 0) && !found; k--) {
		for (i = 0; i < s->p.nosds; i++) {
			osd = (s->cursor + i) % s->p.nosds;
			q = &s->queues[k * s->p.nosds + osd];
			if (q->n == q->head)
				continue;
			if (s->osds[osd].cl == NULL) {
				waiting = 1;
				continue;
			}
			found = 1;
			break;
		}
	}
	if (!found) {
		if (!waiting) {
			s->nurgent = 0;
			if (!urgent_only)
				s->nqueued = 0;
		}
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
	osd_sim_take(s, &s->queues[s->p.nosds + osd], osd, 1, now, b);
	if (!urgent_only)
		osd_sim_take(s, &s->queues[osd], osd, 0, now, b);
	if (b->n == 0) {
		free(b->refs);
		free(b);
		return 1;
	}
	enc_put_be32(s->buf.data + count_at, (uint32_t)b->n);
	if (mclient_request_binary(s->osds[osd].cl, s->buf.data, s->buf.len,
		osd_sim_answered, b) == -1) {
		/* Its session is closing: the PGs wait for the next one. */
		for (i = 0; i < (int)b->n; i++) {
			pg = osd_sim_pg(s, b->refs[i].pool, b->refs[i].seed);
			if (pg != NULL)
				osd_sim_queue(s, pg, b->refs[i].pool,
				    b->refs[i].seed);
		}
		free(b->refs);
		free(b);
		return 0;
	}
	s->st.inflight++;
	s->st.reports_sent++;
	s->st.pgs_sent += b->n;
	return 1;
}

static void
osd_sim_pump(struct osd_sim *s)
{
	int64_t now;

	if (!s->booted || s->dead || s->backoff || s->stopping)
		return;
	now = stamp_now();
	/*
	 * Changes of state do not wait for the window: each OSD tells its own
	 * at once, as OSDs with a connection each would (the window bounds the
	 * simulator's live reports, not what one OSD may say).
	 */
	while (s->nurgent > 0 &&
	    s->st.inflight < (size_t)s->p.window + (size_t)s->p.nosds) {
		if (!osd_sim_send_one(s, now, 1))
			break;
	}
	while (s->nqueued > 0 && s->st.inflight < (size_t)s->p.window) {
		if (!osd_sim_send_one(s, now, 0))
			break;
	}
}

/*
 * A new report of every settled PG whose primary is in the slice (every
 * one when slice < 0).
 */
static void
osd_sim_live_queue(struct osd_sim *s, int slice)
{
	struct osd_sim_pool *sp;
	struct osd_sim_pg *pg;
	size_t i;
	uint32_t seed;

	if (s->dead || s->stopping)
		return;
	for (i = 0; i < s->npools; i++) {
		sp = &s->pools[i];
		for (seed = 0; seed < sp->pg_num; seed++) {
			pg = &sp->pgs[seed];
			if (pg->phase != OSD_SIM_PH_DONE || pg->up_len == 0)
				continue;
			if (slice >= 0 && pg->up[0] % s->p.live_spread != slice)
				continue;
			osd_sim_queue(s, pg, sp->id, seed);
		}
	}
	osd_sim_pump(s);
}

/* Every live interval (each slice of it when spread). */
static void
osd_sim_live(evutil_socket_t fd, short what, void *arg)
{
	struct osd_sim *s = arg;

	(void)fd;
	(void)what;
	osd_sim_live_queue(s, s->p.live_spread > 1 ? s->live_slice : -1);
	if (s->p.live_spread > 1)
		s->live_slice = (s->live_slice + 1) % s->p.live_spread;
}

/* The live timer for the interval and spread of s->p. */
static void
osd_sim_live_arm(struct osd_sim *s)
{
	struct timeval tv;
	long long us = (long long)s->p.live_interval_ms * 1000;

	if (s->live_ev != NULL) {
		event_free(s->live_ev);
		s->live_ev = NULL;
	}
	if (us <= 0)
		return;
	/*
	 * In microseconds: a slice of whole milliseconds would shorten the
	 * interval (1,385 ms in 100 slices of 13 ms is 1,300).
	 */
	if (s->p.live_spread > 1)
		us = us / s->p.live_spread > 0 ? us / s->p.live_spread : 1;
	s->live_ev = event_new(s->base, -1, EV_PERSIST, osd_sim_live, s);
	tv.tv_sec = (time_t)(us / 1000000);
	tv.tv_usec = (suseconds_t)(us % 1000000);
	evtimer_add(s->live_ev, &tv);
}

static int
osd_sim_cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* Add peer b to a's list, counting (v NULL) or filling at pos[a]. */
static void
osd_sim_hb_pair(size_t *cnt, size_t *pos, int32_t *v, int32_t a, int32_t b)
{
	if (v == NULL)
		cnt[a]++;
	else
		v[pos[a]++] = b;
}

/* Every heartbeat pair, counted (v NULL) or filled. */
static void
osd_sim_hb_pairs(const struct osd_sim *s, const int32_t *ring, int nring,
    size_t *cnt, size_t *pos, int32_t *v)
{
	const struct osd_sim_pool *sp;
	const struct osd_sim_pg *pg;
	size_t i;
	uint32_t seed;
	int a, b, d, reach;

	for (i = 0; i < s->npools; i++) {
		sp = &s->pools[i];
		for (seed = 0; seed < sp->pg_num; seed++) {
			pg = &sp->pgs[seed];
			for (a = 0; a < pg->up_len; a++) {
				if (pg->up[a] < 0 || pg->up[a] >= s->p.nosds ||
				    !s->osds[pg->up[a]].up)
					continue;
				for (b = 0; b < pg->up_len; b++)
					if (b != a && pg->up[b] >= 0 &&
					    pg->up[b] < s->p.nosds &&
					    s->osds[pg->up[b]].up)
						osd_sim_hb_pair(cnt, pos, v,
						    pg->up[a], pg->up[b]);
			}
		}
	}
	reach = nring - 1 < OSD_SIM_HB_RING ? nring - 1 : OSD_SIM_HB_RING;
	for (a = 0; a < nring; a++) {
		for (d = 1; d <= reach; d++) {
			osd_sim_hb_pair(cnt, pos, v, ring[a],
			    ring[(a + d) % nring]);
			osd_sim_hb_pair(cnt, pos, v, ring[a],
			    ring[(a - d + nring) % nring]);
		}
	}
}

/*
 * The heartbeat peers of every OSD from the PGs' up sets and the ring of
 * up OSDs, each list sorted and without repeats; what is known of a peer
 * that stays (its last answer, a report sent) is kept, a new peer counts
 * as answered now, as Ceph counts a new peer from its first ping.
 */
static void
osd_sim_hb_build(struct osd_sim *s, int64_t now)
{
	size_t n = (size_t)s->p.nosds, a, i, j, k, total, *cnt, *pos, *off;
	size_t *seen;
	struct osd_sim_hb *hb, *old;
	int32_t *v, *ring;
	int nring = 0;
	double t0 = (double)stamp_mono();

	ring = xreallocarray(NULL, n, sizeof *ring);
	for (a = 0; a < n; a++)
		if (s->osds[a].up)
			ring[nring++] = (int32_t)a;
	cnt = xcalloc(n + 1, sizeof *cnt);
	osd_sim_hb_pairs(s, ring, nring, cnt, NULL, NULL);
	pos = xcalloc(n + 1, sizeof *pos);
	for (a = 0, total = 0; a < n; a++) {
		pos[a] = total;
		total += cnt[a];
	}
	v = xreallocarray(NULL, total ? total : 1, sizeof *v);
	osd_sim_hb_pairs(s, ring, nring, cnt, pos, v);

	/*
	 * Dedupe each list by marking the peers seen (a sort of the whole,
	 * some 1.3 million pairs at 221,568 PGs, took 110 ms), then sort
	 * what is left, at most one entry per OSD; then the new array, the
	 * old state kept.
	 */
	seen = xreallocarray(NULL, n, sizeof *seen);
	memset(seen, 0xff, n * sizeof *seen);
	off = xcalloc(n + 1, sizeof *off);
	for (a = 0, total = 0; a < n; a++) {
		i = a == 0 ? 0 : pos[a - 1];
		for (j = 0, k = 0; j < cnt[a]; j++) {
			if (seen[v[i + j]] == a)
				continue;
			seen[v[i + j]] = a;
			v[i + k++] = v[i + j];
		}
		qsort(v + i, k, sizeof *v, osd_sim_cmp_i32);
		cnt[a] = k;
		off[a] = total;
		total += k;
	}
	off[n] = total;
	hb = xcalloc(total ? total : 1, sizeof *hb);
	for (a = 0; a < n; a++) {
		i = a == 0 ? 0 : pos[a - 1];
		old = s->hb_off != NULL ? s->hb + s->hb_off[a] : NULL;
		k = 0;
		for (j = 0; j < cnt[a]; j++) {
			hb[off[a] + j].peer = v[i + j];
			hb[off[a] + j].last_rx = now;
			if (old == NULL)
				continue;
			while (s->hb_off[a] + k < s->hb_off[a + 1] &&
			    old[k].peer < v[i + j])
				k++;
			if (s->hb_off[a] + k < s->hb_off[a + 1] &&
			    old[k].peer == v[i + j])
				hb[off[a] + j] = old[k];
		}
	}
	free(s->hb);
	free(s->hb_off);
	s->hb = hb;
	s->hb_off = off;
	s->hb_dirty = 0;
	s->hb_built = now;
	s->st.hb_rebuilds++;
	s->st.hb_rebuild_ms = ((double)stamp_mono() - t0) / 1000.0;
	free(seen);
	free(v);
	free(pos);
	free(cnt);
	free(ring);
}

static void
osd_sim_failure_done(void *arg, int rc, const char *status,
    mapmon_unused json_t *data)
{
	struct osd_sim_req *r = arg;
	struct osd_sim *s = r->sim;

	if (!s->freeing && !s->dead) {
		if (rc == 0)
			s->quiet[OSD_SIM_REQ_FAILURE] = 0;
		else
			osd_sim_refused(s, OSD_SIM_REQ_FAILURE,
			    "osd failure "
			    "report by",
			    r->id, status);
	}
	free(r);
}

/* reporter says it has not heard from target for failed_us (or cancels). */
static void
osd_sim_send_failure(struct osd_sim *s, int32_t reporter, int32_t target,
    int64_t failed_us, int cancel)
{
	struct osd_sim_req *r;
	json_t *cmd;

	r = osd_sim_req_new(s, OSD_SIM_REQ_FAILURE, reporter);
	r->target = target;
	cmd = json_pack("{s:s, s:i, s:i, s:f, s:b}", "prefix", "osd failure",
	    "target", target, "reporter", reporter, "failed_for",
	    (double)failed_us / 1e6, "cancel", cancel);
	if (osd_sim_send(s->osds[reporter].cl, cmd, osd_sim_failure_done, r) ==
	    0) {
		s->st.failures_sent++;
		if (cancel)
			s->st.cancels_sent++;
	}
}

/*
 * Every check: the peer sets again when the map moved (at most once a
 * heartbeat interval: until then a peer the map shows down is skipped),
 * pings where due (a running peer answers at once), and a failure report
 * for each peer silent past the grace, once a heartbeat interval.
 */
static void
osd_sim_hb_tick(evutil_socket_t fd, short what, void *arg)
{
	struct osd_sim *s = arg;
	int64_t now, interval, grace, silent;
	struct osd_sim_osd *o;
	struct osd_sim_hb *e;
	size_t i;
	int32_t a;
	int ping, full;

	(void)fd;
	(void)what;
	if (s->dead || s->stopping || !s->have_map)
		return;
	now = stamp_mono();
	interval = (int64_t)s->p.heartbeat_interval_ms * 1000;
	grace = (int64_t)s->p.heartbeat_grace_ms * 1000;
	osd_sim_boot_check(s, now);
	if (s->hb_off == NULL ||
	    (s->hb_dirty && now - s->hb_built >= interval)) {
		osd_sim_hb_build(s, now);
		s->hb_changed = 1;
	}
	/*
	 * Between pings an OSD's pass over its peers only clears the
	 * reports of peers down in the map and reports the silent ones (up
	 * in the map, stopped here).  With none silent and no up flag or
	 * state changed since the last full pass there is nothing to do but
	 * the pings: at 10,000 OSDs the full passes, ten a second over some
	 * 300,000 peer entries, were 7% of a core during a bring-up.
	 */
	full = s->hb_changed;
	for (a = 0; a < s->p.nosds && !full; a++)
		full = s->osds[a].state != OSD_SIM_RUNNING && s->osds[a].up;
	s->hb_changed = 0;
	for (a = 0; a < s->p.nosds; a++) {
		o = &s->osds[a];
		if (o->state != OSD_SIM_RUNNING || !o->up)
			continue;
		ping = now >= o->next_ping;
		if (ping) {
			o->next_ping += interval;
			if (o->next_ping <= now)
				o->next_ping = now + interval;
		} else if (!full)
			continue;
		for (i = s->hb_off[a]; i < s->hb_off[a + 1]; i++) {
			e = &s->hb[i];
			if (!s->osds[e->peer].up) {
				e->reported = 0;
				continue;
			}
			if (s->osds[e->peer].state == OSD_SIM_RUNNING) {
				if (!ping)
					continue;
				if (e->reported)
					osd_sim_send_failure(s, a, e->peer,
					    now - e->last_rx, 1);
				e->reported = 0;
				e->last_rx = now;
				continue;
			}
			silent = now - e->last_rx;
			if (silent > grace &&
			    (!e->reported ||
				now - e->last_report >= interval)) {
				osd_sim_send_failure(s, a, e->peer, silent, 0);
				e->reported = 1;
				e->last_report = now;
			}
		}
	}
}

/* A new start for a's own view of its peers: all heard from now. */
static void
osd_sim_hb_reset(struct osd_sim *s, int32_t a, int64_t now)
{
	size_t i;

	s->osds[a].next_ping = now;
	if (s->hb_off == NULL)
		return;
	for (i = s->hb_off[a]; i < s->hb_off[a + 1]; i++) {
		s->hb[i].last_rx = now;
		s->hb[i].reported = 0;
	}
}

/* Each OSD's statfs from the objects of the PGs whose up sets hold it. */
static void
osd_sim_count_statfs(struct osd_sim *s)
{
	const struct osd_sim_pool *sp;
	const struct osd_sim_pg *pg;
	struct osd_sim_osd *o;
	struct statfs_osd *f;
	uint64_t *objs, total = s->p.osd_size, data, omap, meta;
	size_t i;
	uint32_t seed;
	int32_t a;
	int m;

	objs = xcalloc((size_t)s->p.nosds, sizeof *objs);
	for (a = 0; a < s->p.nosds; a++)
		s->osds[a].pgs = 0;
	for (i = 0; i < s->npools; i++) {
		sp = &s->pools[i];
		for (seed = 0; seed < sp->pg_num; seed++) {
			pg = &sp->pgs[seed];
			for (m = 0; m < pg->up_len; m++) {
				if (pg->up[m] < 0 || pg->up[m] >= s->p.nosds)
					continue;
				objs[pg->up[m]] += (uint64_t)pg->objects;
				s->osds[pg->up[m]].pgs++;
			}
		}
	}
	for (a = 0; a < s->p.nosds; a++) {
		o = &s->osds[a];
		f = &o->statfs;
		/* Room is kept for the metadata first, as a store does. */
		meta = OSD_SIM_META_BASE + objs[a] * OSD_SIM_META_PER_OBJECT;
		meta = meta < total ? meta : total;
		omap = objs[a] * OSD_SIM_OMAP_PER_OBJECT;
		omap = omap < total - meta ? omap : total - meta;
		data = objs[a] * OSD_SIM_OBJECT_BYTES;
		data = data < total - meta - omap ? data : total - meta - omap;
		f->total = total;
		f->data = data;
		f->omap = omap;
		f->meta = meta;
		f->used = data + omap + meta;
		f->avail = total - f->used;
		o->fill = (double)f->used / (double)total;
	}
	free(objs);
}

static void
osd_sim_beacon_done(void *arg, int rc, const char *status,
    mapmon_unused json_t *data)
{
	struct osd_sim_req *r = arg;
	struct osd_sim *s = r->sim;

	/* -EAGAIN: down in the monitor's map, which the boot check sees. */
	if (!s->freeing && !s->dead) {
		if (rc == 0)
			s->quiet[OSD_SIM_REQ_BEACON] = 0;
		else if (rc != -EAGAIN)
			osd_sim_refused(s, OSD_SIM_REQ_BEACON, "osd beacon",
			    r->id, status);
	}
	free(r);
}

static void
osd_sim_beacon_tick(evutil_socket_t fd, short what, void *arg)
{
	struct osd_sim *s = arg;
	struct osd_sim_osd *o;
	struct osd_sim_req *r;
	json_t *cmd;
	int32_t a;

	(void)fd;
	(void)what;
	if (s->dead || s->stopping || !s->have_map)
		return;
	osd_sim_count_statfs(s);
	for (a = 0; a < s->p.nosds; a++) {
		o = &s->osds[a];
		if (o->state != OSD_SIM_RUNNING || !o->up)
			continue;
		r = osd_sim_req_new(s, OSD_SIM_REQ_BEACON, a);
		cmd = json_pack("{s:s, s:i, s:o}", "prefix", "osd beacon", "id",
		    a, "statfs", statfs_to_json(&o->statfs));
		if (osd_sim_send(o->cl, cmd, osd_sim_beacon_done, r) == 0)
			s->st.beacons_sent++;
	}
}

/* The end of osd_sim_stop(): NULL when every OSD marked itself down. */
static void
osd_sim_tell_stopped(struct osd_sim *s)
{
	if (s->markdowns == 0 && s->markdowns_failed == 0)
		osd_sim_tell(s, OSD_SIM_STOPPED, NULL);
	else if (s->markdowns == 0)
		osd_sim_tell(s, OSD_SIM_STOPPED,
		    "%d osd mark-me-down refused "
		    "or left up",
		    s->markdowns_failed);
	else
		osd_sim_tell(s, OSD_SIM_STOPPED,
		    "%d osd mark-me-down refused "
		    "or left up, %d unanswered after %d ms",
		    s->markdowns_failed, s->markdowns, s->stop_timeout_ms);
}

static void
osd_sim_markdown_done(void *arg, int rc, const char *status, json_t *data)
{
	struct osd_sim_req *r = arg;
	struct osd_sim *s = r->sim;
	int all = r->all, down;
	int32_t id = r->id;

	free(r);
	if (s->freeing)
		return;
	s->markdowns--;
	/* rc 0 with "down": false is the nodown flag keeping it up. */
	down = rc == 0 && json_is_true(json_object_get(data, "down"));
	if (rc == 0)
		s->quiet[OSD_SIM_REQ_MARKDOWN] = 0;
	else if (!s->dead)
		osd_sim_refused(s, OSD_SIM_REQ_MARKDOWN, "osd mark-me-down", id,
		    status);
	if (!down && all)
		s->markdowns_failed++;
	if (rc == 0 && !all)
		osd_sim_tell(s, OSD_SIM_NOTICE, "osd.%d stopped: %s", id,
		    down ? "it marked itself down" : status);
	if (s->stopping && s->markdowns == 0 && !s->stop_told) {
		s->stop_told = 1;
		evtimer_del(s->stop_ev);
		osd_sim_tell_stopped(s);
	}
}

/* Silence a as stopped or killed; a clean stop marks it down. */
static void
osd_sim_halt(struct osd_sim *s, int32_t a, enum osd_sim_osd_state state,
    int all)
{
	struct osd_sim_osd *o = &s->osds[a];
	struct osd_sim_req *r;
	json_t *cmd;

	o->state = state;
	o->seen_up = 0;
	s->hb_changed = 1;
	osd_sim_drop_queue(s, a);
	if (state != OSD_SIM_STOPPED_CLEANLY || !o->up || s->dead)
		return;
	r = osd_sim_req_new(s, OSD_SIM_REQ_MARKDOWN, a);
	r->all = all;
	cmd = json_pack("{s:s, s:i}", "prefix", "osd mark-me-down", "id", a);
	if (osd_sim_send(o->cl, cmd, osd_sim_markdown_done, r) == 0)
		s->markdowns++;
}

/* Is id one of the simulator's OSDs, and may it change now? */
static int
osd_sim_check_id(struct osd_sim *s, int32_t id, char **cause)
{
	if (id < 0 || id >= s->p.nosds) {
		xasprintf(cause,
		    "osd.%d is not one of the simulator's "
		    "(0 to %d)",
		    id, s->p.nosds - 1);
		return -1;
	}
	if (s->stopping) {
		xasprintf(cause, "the simulator is stopping");
		return -1;
	}
	return 0;
}

int
osd_sim_kill(struct osd_sim *s, int32_t id, char **cause)
{
	if (osd_sim_check_id(s, id, cause) == -1)
		return -1;
	if (s->osds[id].state != OSD_SIM_RUNNING) {
		xasprintf(cause, "osd.%d is not running", id);
		return -1;
	}
	osd_sim_halt(s, id, OSD_SIM_KILLED, 0);
	return 0;
}

int
osd_sim_stop_osd(struct osd_sim *s, int32_t id, char **cause)
{
	if (osd_sim_check_id(s, id, cause) == -1)
		return -1;
	if (s->osds[id].state != OSD_SIM_RUNNING) {
		xasprintf(cause, "osd.%d is not running", id);
		return -1;
	}
	osd_sim_halt(s, id, OSD_SIM_STOPPED_CLEANLY, 0);
	return 0;
}

int
osd_sim_revive(struct osd_sim *s, int32_t id, char **cause)
{
	struct osd_sim_osd *o;
	int64_t now = stamp_mono();

	if (osd_sim_check_id(s, id, cause) == -1)
		return -1;
	o = &s->osds[id];
	if (o->state == OSD_SIM_RUNNING) {
		xasprintf(cause, "osd.%d is running", id);
		return -1;
	}
	o->state = OSD_SIM_RUNNING;
	o->next_boot = 0;
	o->seen_up = o->up;
	s->hb_changed = 1;
	/* One stopped for want of a session tries again. */
	if (o->cl == NULL && !o->keying && s->have_map)
		osd_sim_fetch_key(s, id, 1);
	osd_sim_hb_reset(s, id, now);
	osd_sim_queue_primary(s, id);
	osd_sim_boot_check(s, now);
	osd_sim_pump(s);
	return 0;
}

void
osd_sim_set_live(struct osd_sim *s, int ms, int spread)
{
	s->p.live_interval_ms = ms;
	s->p.live_spread = spread > 1 ? spread : 1;
	s->live_slice = 0;
	osd_sim_live_arm(s);
	/* Reported again as answered, from now: start them all. */
	if (ms == 0)
		osd_sim_live_queue(s, -1);
}

static void
osd_sim_stop_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct osd_sim *s = arg;

	(void)fd;
	(void)what;
	if (s->stop_told)
		return;
	s->stop_told = 1;
	osd_sim_tell_stopped(s);
}

void
osd_sim_stop(struct osd_sim *s, int timeout_ms)
{
	struct timeval tv;
	int32_t a;

	if (s->stopping)
		return;
	s->stopping = 1;
	s->stop_timeout_ms = timeout_ms;
	for (a = 0; a < s->p.nosds; a++)
		if (s->osds[a].state == OSD_SIM_RUNNING)
			osd_sim_halt(s, a, OSD_SIM_STOPPED_CLEANLY, 1);
	tv = osd_sim_tv(s->markdowns == 0 ? 0 : timeout_ms);
	evtimer_add(s->stop_ev, &tv);
}

/*
 * A session per OSD: raise the soft limit of open files to the hard one,
 * and refuse an OSD count that would not fit it.
 */
static int
osd_sim_fd_limit(int nosds, char **cause)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)nosds + OSD_SIM_SPARE_FDS;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		xasprintf(cause, "getrlimit(RLIMIT_NOFILE): %s",
		    strerror(errno));
		return -1;
	}
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
			xasprintf(cause, "setrlimit(RLIMIT_NOFILE, %llu): %s",
			    (unsigned long long)rl.rlim_max, strerror(errno));
			return -1;
		}
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		xasprintf(cause,
		    "%d OSDs need %llu open files (a session "
		    "each), but the limit is %llu: raise it (ulimit -n) or "
		    "simulate fewer",
		    nosds, (unsigned long long)need,
		    (unsigned long long)rl.rlim_cur);
		return -1;
	}
	return 0;
}

struct osd_sim *
osd_sim_new(struct event_base *base, const struct osd_sim_params *p,
    osd_sim_cb *cb, void *arg, char **cause)
{
	struct osd_sim *s;
	struct timeval tv;
	int64_t now;
	int a;

	if (p->nosds < 1 || p->nosds > OSDMAP_MAX_OSD) {
		xasprintf(cause, "osd count %d out of range 1..%d", p->nosds,
		    OSDMAP_MAX_OSD);
		return NULL;
	}
	if (p->window < 1 || p->batch < 1) {
		xasprintf(cause, "window and batch must be at least 1");
		return NULL;
	}
	if (p->hosts < 0 || p->hosts > p->nosds) {
		xasprintf(cause,
		    "%d hosts for %d osds: at most one host an osd", p->hosts,
		    p->nosds);
		return NULL;
	}
	if (p->racks < 0 || p->racks > p->hosts ||
	    (p->racks > 0 && p->hosts == 0)) {
		xasprintf(cause,
		    "%d racks for %d hosts: racks need hosts, at most one "
		    "rack a host",
		    p->racks, p->hosts);
		return NULL;
	}
	if (p->heartbeat_interval_ms < 1 || p->heartbeat_grace_ms < 1 ||
	    p->beacon_interval_ms < 1) {
		xasprintf(cause,
		    "heartbeat interval, grace and beacon "
		    "interval must be at least 1 ms");
		return NULL;
	}
	if (p->osd_size < (1ULL << 30)) {
		xasprintf(cause, "osd size %llu below 1 GiB",
		    (unsigned long long)p->osd_size);
		return NULL;
	}
	if (p->addr == NULL) {
		xasprintf(cause, "no monitor address");
		return NULL;
	}
	if (osd_sim_fd_limit(p->nosds, cause) == -1)
		return NULL;
	s = xcalloc(1, sizeof *s);
	s->base = base;
	s->p = *p;
	if (hunt_parse(p->addr, &s->addrs, &s->naddrs, cause) == -1) {
		free(s);
		return NULL;
	}
	s->addr = s->addrs[0];
	s->p.addr = p->addr;
	s->cb = cb;
	s->arg = arg;
	s->seq_base = (uint64_t)stamp_now();
	s->rng = s->seq_base | 1;
	s->queues = xcalloc(2 * (size_t)p->nosds, sizeof *s->queues);
	s->osds = xcalloc((size_t)p->nosds, sizeof *s->osds);
	s->st.osds_running = p->nosds;
	/* The OSDs' pings spread over the interval, as processes' would be. */
	now = stamp_mono();
	for (a = 0; a < p->nosds; a++) {
		s->osds[a].sim = s;
		s->osds[a].next_ping = now +
		    (int64_t)a * p->heartbeat_interval_ms * 1000 / p->nosds;
	}
	s->retry_ev = evtimer_new(base, osd_sim_requeue_later, s);
	s->stop_ev = evtimer_new(base, osd_sim_stop_timeout, s);
	if (s->p.live_spread < 1)
		s->p.live_spread = 1;
	osd_sim_live_arm(s);
	s->hb_ev = event_new(base, -1, EV_PERSIST, osd_sim_hb_tick, s);
	tv = osd_sim_tv(p->heartbeat_interval_ms < OSD_SIM_HB_CHECK_MS ?
		p->heartbeat_interval_ms :
		OSD_SIM_HB_CHECK_MS);
	evtimer_add(s->hb_ev, &tv);
	s->beacon_ev = event_new(base, -1, EV_PERSIST, osd_sim_beacon_tick, s);
	tv = osd_sim_tv(p->beacon_interval_ms);
	evtimer_add(s->beacon_ev, &tv);
	s->hunt_ev = evtimer_new(base, osd_sim_hunt_cb, s);
	s->rekey_ev = evtimer_new(base, osd_sim_rekey_cb, s);
	osd_sim_admin_connect(s);
	s->cache = osdmap_cache_new(s->cl, osd_sim_update, osd_sim_cache_error,
	    s);
	return s;
}

void
osd_sim_stats(const struct osd_sim *s, struct osd_sim_stats *st)
{
	int a, running = 0;

	*st = s->st;
	st->sessions = 0;
	for (a = 0; a < s->p.nosds; a++) {
		if (s->osds[a].state == OSD_SIM_RUNNING)
			running++;
		if (s->osds[a].session)
			st->sessions++;
	}
	st->osds_running = running;
}

int
osd_sim_host(const struct osd_sim *s, int32_t id, char *buf, size_t len)
{
	if (s->p.hosts <= 0 || id < 0 || id >= s->p.nosds)
		return -1;
	snprintf(buf, len, "host%d",
	    (int)((int64_t)id * s->p.hosts / s->p.nosds));
	return 0;
}

int
osd_sim_rack(const struct osd_sim *s, int32_t id, char *buf, size_t len)
{
	int64_t host;

	if (s->p.racks <= 0 || s->p.hosts <= 0 || id < 0 || id >= s->p.nosds)
		return -1;
	host = (int64_t)id * s->p.hosts / s->p.nosds;
	snprintf(buf, len, "rack%d", (int)(host * s->p.racks / s->p.hosts));
	return 0;
}

int
osd_sim_osd(const struct osd_sim *s, int32_t id, struct osd_sim_osd_info *info)
{
	const struct osd_sim_osd *o;

	if (id < 0 || id >= s->p.nosds)
		return -1;
	o = &s->osds[id];
	memset(info, 0, sizeof *info);
	info->state = o->state;
	info->exists = o->exists;
	info->up = o->up;
	info->booting = o->booting;
	info->pgs = o->pgs;
	info->used = o->statfs.used;
	info->total = o->statfs.total;
	info->peers = s->hb_off != NULL ?
	    (int)(s->hb_off[id + 1] - s->hb_off[id]) :
	    0;
	return 0;
}

void
osd_sim_free(struct osd_sim *s)
{
	size_t i;
	int k;

	if (s == NULL)
		return;
	s->freeing = 1;
	for (k = 0; k < s->p.nosds; k++)
		mclient_free(s->osds[k].cl);
	mclient_free(s->cl);
	osdmap_cache_free(s->cache);
	if (s->live_ev != NULL)
		event_free(s->live_ev);
	event_free(s->retry_ev);
	event_free(s->stop_ev);
	event_free(s->hb_ev);
	event_free(s->beacon_ev);
	for (i = 0; i < s->npools; i++)
		free(s->pools[i].pgs);
	free(s->pools);
	for (k = 0; k < 2 * s->p.nosds; k++)
		free(s->queues[k].v);
	free(s->queues);
	free(s->osds);
	free(s->hb_off);
	free(s->hb);
	free(s->elig);
	crush_free(s->crush);
	free(s->gone);
	enc_buf_free(&s->buf);
	event_free(s->hunt_ev);
	event_free(s->rekey_ev);
	for (i = 0; i < s->naddrs; i++)
		free(s->addrs[i]);
	free(s->addrs);
	free(s);
}
