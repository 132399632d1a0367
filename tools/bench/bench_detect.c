/*
 * bench_detect.c: `mapmon-bench detect`.
 *
 * A fresh mapmond (the set-up's store, sync = commit, [mon]
 * osd_heartbeat_grace = --grace) and the simulated OSDs of
 * tools/bench/osd_sim.h in this process, with the same grace, bring N PGs
 * to active+clean and then report every PG again as soon as its previous
 * report is answered (the ingest benchmark's full rate).  A `status`
 * prober (bench_probe_start()) runs from then on, and an osdmap
 * subscription on this thread follows the map:
 *
 *  1. steady: --duration seconds of that load, counting the OSDs the
 *     monitor marks down while the simulator runs them (over the whole
 *     run, in fact);
 *  2. round one, under that load: one OSD killed (the last id), then
 *     --host OSDs at once (ids 0 .. host-1, a host), then all of them
 *     revived.  Each step: from the kill (or revival) to the osdmap push
 *     showing every one of them down (up), then to every PG the map moved
 *     committed on its new up set: the simulator's reports of those PGs
 *     (peering, with the new set) answered, which the monitor does once the
 *     commit holding them is durable;
 *  3. round two, the same three steps with a pgmap subscriber (a thread of
 *     its own, below) and the PGs reported every --watch-interval ms
 *     instead: at the full rate the monitor pushes some 300 MB of PG stats
 *     a second, more than any reader on a 2-core machine keeps up with (the
 *     monitor then cuts it, past max_client_output).  Here the time also
 *     runs to the last moved PG pushed to the subscriber on its new set.
 *
 * Each step ends --settle seconds after its PGs are done.  The times are
 * of arrivals at the subscribers (the push included) and of progress
 * looked at every DETECT_POLL_MS.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/mapmon.h"
#include "map/osdmap.h"
#include "map/pg.h"
#include "map/placement.h"
#include "net/client.h"
#include "tools/bench/bench_detect.h"
#include "tools/bench/bench_plot.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/osd_sim.h"
#include "tools/osdmap_cache.h"

#define DETECT_EVENTS 6
/* The first step of round two. */
#define DETECT_ROUND2 3
/* Round two's reports go in this many slices of OSDs over the interval. */
#define DETECT_SPREAD 10
/* Seconds for the queued reports of the full rate to drain. */
#define DETECT_DRAIN_S 3
/* How often a step's progress is looked at. */
#define DETECT_POLL_MS 10

struct detect_opts {
	const struct bench_setup *setup;
	long pgs;
	struct bench_shape shape;
	int grace_ms;
	int host;	 /* OSDs killed at once */
	double duration; /* steady seconds */
	int probe_ms;
	int watch_interval_ms; /* the load of round two */
	double settle;
	double timeout; /* each step, past the grace */
	const char *outdir;
	char *mapmond;
	char *mon_conf;
};

/* What the pgmap subscriber saw of a PG: its up set, since when. */
struct watch_pg {
	double t;
	int32_t up[PLACEMENT_MAX_SIZE];
	uint8_t up_len;
	uint8_t seen;
};

struct watch_pool {
	uint32_t id;
	uint32_t n;
	struct watch_pg *pgs;
};

/* The pgmap subscriber: a thread with its own loop and connection. */
struct detect_watch {
	pthread_t thread;
	int running;
	struct event_base *base;
	struct mclient *cl;
	struct event *tick;
	pthread_mutex_t mu;
	/* Under mu. */
	struct watch_pool *pools;
	size_t npools;
	int snapshot_done;
	int stop;
	char *error;
	uint64_t pushes;
	uint64_t pg_stats;
};

/* One kill or revival. */
struct detect_event {
	const char *what; /* "kill", "kill a host", "revive" */
	int32_t *ids;
	int nids;
	int revive;
	int watched;	/* round two: a pgmap subscriber */
	uint32_t epoch; /* of the map completing it */
	double t_action;
	double t_first;	    /* the first of ids changed in the map */
	double t_last;	    /* all of them */
	double t_committed; /* the moved PGs' reports answered */
	double t_pgs;	    /* the last moved PG pushed on its set */
	int ndone;
	/* The PGs that move, and the up set each must reach. */
	struct pg_id *pgs;
	int32_t (*exp)[PLACEMENT_MAX_SIZE];
	uint8_t *exp_len;
	size_t npgs;
	/* PGs not yet committed (round one) or pushed (round two) on their
	   set, against time since t_last. */
	double *pt;
	double *pn;
	size_t np;
	size_t cap;
	double p50, p99, max;
	size_t probes;
};

enum detect_phase {
	DETECT_BRINGUP,
	DETECT_STEADY,
	DETECT_WAIT_MAP,    /* a step: the map to show it */
	DETECT_WAIT_COMMIT, /* its PGs' reports answered */
	DETECT_WAIT_PGS,    /* its PGs pushed on their new sets */
	DETECT_SETTLE,
	DETECT_DRAIN,	 /* round two: the lighter load begins */
	DETECT_SNAPSHOT, /* the subscriber's snapshot */
	DETECT_QUIET,	 /* then the lighter load settles */
	DETECT_DONE
};

struct detect_run {
	const struct detect_opts *o;
	struct event_base *base;
	struct bench_up *up;
	struct bench_probe *probe;
	struct detect_watch *watch;
	struct mclient *mapcl;
	struct osdmap_cache *cache;
	struct event *timer; /* phase timeouts and waits */
	struct event *poll;  /* DETECT_POLL_MS */
	enum detect_phase phase;
	int ev; /* the current event */
	struct detect_event events[DETECT_EVENTS];
	uint8_t *was_up; /* per OSD, at the last map */
	uint32_t nwas;
	int false_downs;
	char false_list[256];
	double t_steady0, t_steady1;
	uint64_t acc0, acc1; /* PG stats accepted, steady */
	double t_phase;	     /* when the phase began */
	char *error;
};

static void detect_next(struct detect_run *);

static void detect_fail(struct detect_run *r, const char *fmt, ...)
    printflike(2, 3);

static void
detect_fail(struct detect_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->error == NULL) {
		va_start(ap, fmt);
		xvasprintf(&r->error, fmt, ap);
		va_end(ap);
	}
	event_base_loopbreak(r->base);
}

/* The watch table's entry of a PG, made when new; under mu. */
static struct watch_pg *
detect_watch_pg(struct detect_watch *w, struct pg_id id, int make)
{
	struct watch_pool *wp = NULL;
	size_t i;
	uint32_t n;

	for (i = 0; i < w->npools; i++)
		if (w->pools[i].id == id.pool)
			wp = &w->pools[i];
	if (wp == NULL) {
		if (!make)
			return NULL;
		w->pools = xreallocarray(w->pools, w->npools + 1,
		    sizeof *w->pools);
		wp = &w->pools[w->npools++];
		memset(wp, 0, sizeof *wp);
		wp->id = id.pool;
	}
	if (id.seed >= wp->n) {
		if (!make || id.seed >= OSDMAP_PG_NUM_MAX)
			return NULL;
		n = wp->n ? wp->n : 64;
		while (n <= id.seed)
			n *= 2;
		wp->pgs = xreallocarray(wp->pgs, n, sizeof *wp->pgs);
		memset(wp->pgs + wp->n, 0, (n - wp->n) * sizeof *wp->pgs);
		wp->n = n;
	}
	return &wp->pgs[id.seed];
}

/* One PG's up set as a push carries it. */
struct watch_seen {
	struct pg_id id;
	int32_t up[PLACEMENT_MAX_SIZE];
	uint8_t up_len;
};

/*
 * A pgmap push's text: each PG's up set, and when it changed.  The text
 * is scanned, not parsed: at a full report load the monitor pushes some
 * hundreds of megabytes of PG stats a second, more than a JSON parser
 * keeps up with, and only "pgid" and "up" matter here.  Each PG of a push
 * is an object of the monitor's one writer (map/pg.c) that starts with
 * {"pgid":"POOL.SEED" and has one "up":[...] (mapmon-protocol(7)).  The
 * scan is done before the lock is taken, so that the main thread, which
 * runs the simulated OSDs, never waits for it.
 */
static void
detect_watch_scan(struct detect_watch *w, const char *p, size_t len)
{
	static const char key[] = "{\"pgid\":\"", upkey[] = ",\"up\":[";
	const char *end = p + len, *q, *next, *u;
	struct watch_seen *v = NULL, *sv;
	struct watch_pg *wp;
	double now = bench_now();
	char *e;
	size_t n, nv = 0, cap = 0, i;

	q = memmem(p, len, key, sizeof key - 1);
	for (; q != NULL; q = next) {
		q += sizeof key - 1;
		next = memmem(q, (size_t)(end - q), key, sizeof key - 1);
		if (nv == cap) {
			cap = cap ? cap * 2 : 1024;
			v = xreallocarray(v, cap, sizeof *v);
		}
		sv = &v[nv];
		sv->id.pool = (uint32_t)strtoul(q, &e, 10);
		if (*e != '.')
			continue;
		sv->id.seed = (uint32_t)strtoul(e + 1, &e, 16);
		if (*e != '"')
			continue;
		u = memmem(e, (size_t)((next != NULL ? next : end) - e), upkey,
		    sizeof upkey - 1);
		if (u == NULL)
			continue;
		u += sizeof upkey - 1;
		for (n = 0; *u != ']' && n < PLACEMENT_MAX_SIZE; n++) {
			sv->up[n] = (int32_t)strtol(u, &e, 10);
			if (e == u)
				break;
			u = *e == ',' ? e + 1 : e;
		}
		if (*u != ']')
			continue;
		sv->up_len = (uint8_t)n;
		nv++;
	}

	pthread_mutex_lock(&w->mu);
	w->pushes++;
	w->pg_stats += nv;
	for (i = 0; i < nv; i++) {
		sv = &v[i];
		if ((wp = detect_watch_pg(w, sv->id, 1)) == NULL)
			continue;
		if (wp->seen && wp->up_len == sv->up_len &&
		    memcmp(wp->up, sv->up, sv->up_len * sizeof *sv->up) == 0)
			continue;
		memcpy(wp->up, sv->up, sv->up_len * sizeof *sv->up);
		wp->up_len = sv->up_len;
		wp->seen = 1;
		wp->t = now;
	}
	/* The last chunk of the snapshot ends with "last":true. */
	if (len >= 13 && memcmp(end - 13, ",\"last\":true}", 13) == 0)
		w->snapshot_done = 1;
	pthread_mutex_unlock(&w->mu);
	free(v);
}

static void detect_watch_free(struct detect_watch *);
static void detect_watch_failed(struct detect_watch *w, const char *fmt, ...)
    printflike(2, 3);

static void
detect_watch_failed(struct detect_watch *w, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&w->mu);
	if (w->error == NULL && !w->stop) {
		va_start(ap, fmt);
		xvasprintf(&w->error, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&w->mu);
}

/* The monitor's first answer: the subscription taken, or refused. */
static void
detect_watch_reply(void *arg, int rc, const char *status,
    mapmon_unused json_t *data)
{
	struct detect_watch *w = arg;

	if (rc < 0)
		detect_watch_failed(w, "pgmap subscription refused: %s",
		    status);
}

static void
detect_watch_text(void *arg, const char *p, size_t len)
{
	detect_watch_scan(arg, p, len);
}

static void
detect_watch_error(void *arg, int err, const char *msg)
{
	struct detect_watch *w = arg;

	detect_watch_failed(w, "pgmap subscriber: %s (%s)", msg,
	    strerror(-err));
	event_base_loopbreak(w->base);
}

/* Every 50 ms: told to stop? */
static void
detect_watch_tick(mapmon_unused evutil_socket_t fd, mapmon_unused short what,
    void *arg)
{
	struct detect_watch *w = arg;
	int stop;

	pthread_mutex_lock(&w->mu);
	stop = w->stop;
	pthread_mutex_unlock(&w->mu);
	if (stop)
		event_base_loopbreak(w->base);
}

/* The subscriber's thread: its own event loop, until told to stop. */
static void *
detect_watch_main(void *arg)
{
	struct detect_watch *w = arg;

	event_base_dispatch(w->base);
	return NULL;
}

/*
 * The subscriber, authenticated as every client of the benchmark is
 * (net/client.h), its pushes taken as text (mclient_subscribe_text()).
 */
static struct detect_watch *
detect_watch_start(const char *addr, char **cause)
{
	struct detect_watch *w;
	struct timeval tv = { 0, 50000 };
	json_t *cmd;
	int error;

	w = xcalloc(1, sizeof *w);
	pthread_mutex_init(&w->mu, NULL);
	w->base = event_base_new();
	w->tick = event_new(w->base, -1, EV_PERSIST, detect_watch_tick, w);
	event_add(w->tick, &tv);
	w->cl = mclient_new(w->base, addr, 5000, NULL, detect_watch_error, w);
	mclient_set_name(w->cl, "client.detect-watch");
	cmd = json_pack("{s:s, s:s}", "prefix", "subscribe", "what", "pgmap");
	(void)mclient_subscribe_text(w->cl, cmd, detect_watch_text,
	    detect_watch_reply, w);
	json_decref(cmd);
	if ((error = pthread_create(&w->thread, NULL, detect_watch_main, w)) !=
	    0) {
		xasprintf(cause, "pthread_create: %s", strerror(error));
		detect_watch_free(w);
		return NULL;
	}
	w->running = 1;
	return w;
}

static void
detect_watch_free(struct detect_watch *w)
{
	size_t i;

	if (w == NULL)
		return;
	if (w->running) {
		pthread_mutex_lock(&w->mu);
		w->stop = 1;
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
	}
	mclient_free(w->cl);
	event_free(w->tick);
	event_base_free(w->base);
	for (i = 0; i < w->npools; i++)
		free(w->pools[i].pgs);
	free(w->pools);
	free(w->error);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

static void
detect_timer_in(struct detect_run *r, double seconds)
{
	struct timeval tv;

	tv.tv_sec = (time_t)seconds;
	tv.tv_usec = (suseconds_t)((seconds - (double)tv.tv_sec) * 1e6);
	evtimer_add(r->timer, &tv);
}

/*
 * The PGs whose up set, in the cached map, holds one of ids: the ones a
 * kill moves (before it) or a revival moves (after it).
 */
static void
detect_pgs_with(struct detect_run *r, struct detect_event *e)
{
	const struct osdmap *m = osdmap_cache_map(r->cache);
	const struct osdmap_place *pl = osdmap_cache_placement(r->cache);
	int32_t up[PLACEMENT_MAX_SIZE];
	size_t i, cap = 0;
	uint32_t seed;
	int n, k, j, hit;

	e->npgs = 0;
	for (i = 0; i < m->npools; i++) {
		for (seed = 0; seed < m->pools[i].pg_num; seed++) {
			n = osdmap_place_pg(pl, m->pools[i].id,
			    m->pools[i].crush_rule, seed, m->pools[i].size, up);
			for (k = 0, hit = 0; k < n && !hit; k++)
				for (j = 0; j < e->nids; j++)
					if (up[k] == e->ids[j])
						hit = 1;
			if (!hit)
				continue;
			if (e->npgs == cap) {
				cap = cap ? cap * 2 : 1024;
				e->pgs = xreallocarray(e->pgs, cap,
				    sizeof *e->pgs);
			}
			e->pgs[e->npgs].pool = m->pools[i].id;
			e->pgs[e->npgs].seed = seed;
			e->npgs++;
		}
	}
}

/* The up set each moving PG must reach: its set in the cached map. */
static void
detect_expect(struct detect_run *r, struct detect_event *e)
{
	const struct osdmap *m = osdmap_cache_map(r->cache);
	const struct osdmap_place *pl = osdmap_cache_placement(r->cache);
	const struct osdmap_pool *mp;
	size_t i;

	e->exp = xreallocarray(NULL, e->npgs ? e->npgs : 1, sizeof *e->exp);
	e->exp_len = xcalloc(e->npgs ? e->npgs : 1, sizeof *e->exp_len);
	for (i = 0; i < e->npgs; i++) {
		if ((mp = osdmap_pool(m, e->pgs[i].pool)) == NULL)
			continue;
		e->exp_len[i] = (uint8_t)osdmap_place_pg(pl, e->pgs[i].pool,
		    mp->crush_rule, e->pgs[i].seed, mp->size, e->exp[i]);
	}
}

/* A new map: the OSDs that went down while running; the event's progress. */
static void
detect_map(void *arg, const struct osdmap *m)
{
	struct detect_run *r = arg;
	struct detect_event *e = r->ev < DETECT_EVENTS ? &r->events[r->ev] :
							 NULL;
	struct osd_sim_osd_info info;
	const struct osdmap_osd *o;
	double now = bench_now();
	size_t len;
	uint32_t k;
	int j, done = 0;

	if (m->max_osd > r->nwas) {
		r->was_up = xreallocarray(r->was_up, m->max_osd,
		    sizeof *r->was_up);
		memset(r->was_up + r->nwas, 0, m->max_osd - r->nwas);
		r->nwas = m->max_osd;
	}
	for (k = 0; k < m->max_osd; k++) {
		o = &m->osds[k];
		if (r->was_up[k] && !(o->exists && o->up) && r->up != NULL &&
		    osd_sim_osd(r->up->sim, (int32_t)k, &info) == 0 &&
		    info.state == OSD_SIM_RUNNING) {
			r->false_downs++;
			len = strlen(r->false_list);
			snprintf(r->false_list + len,
			    sizeof r->false_list - len, "%sosd.%u",
			    len ? ", " : "", k);
		}
		r->was_up[k] = o->exists && o->up;
	}
	if (r->phase != DETECT_WAIT_MAP || e == NULL)
		return;
	for (j = 0; j < e->nids; j++)
		if (r->was_up[e->ids[j]] == (uint8_t)e->revive)
			done++;
	if (done > 0 && e->ndone == 0)
		e->t_first = now;
	e->ndone = done;
	if (done < e->nids)
		return;
	e->t_last = now;
	e->epoch = m->epoch;
	/*
	 * Which PGs a revival moved, and where each must go, are worked out
	 * once the simulator's reports are answered: placing every PG takes
	 * a good part of a second at 221,568 PGs, on the thread that runs
	 * the simulated OSDs.  (The subscriber stamps each push as it comes.)
	 * A kill's PGs are known already: their new sets, from this map, are
	 * a few thousand placements.
	 */
	if (e->watched && !e->revive)
		detect_expect(r, e);
	evtimer_del(r->timer);
	r->phase = DETECT_WAIT_COMMIT;
	r->t_phase = now;
	detect_timer_in(r, r->o->timeout);
}

static void
detect_map_error(void *arg, int err, const char *msg)
{
	detect_fail(arg, "osdmap subscription: %s (%s)", msg, strerror(-err));
}

static void
detect_map_conn_error(void *arg, int err, const char *msg)
{
	detect_fail(arg, "%s (%s)", msg, strerror(-err));
}

/* How many moving PGs are not yet pushed on their set; *last: the latest. */
static size_t
detect_pending(struct detect_run *r, struct detect_event *e, double *last)
{
	struct detect_watch *w = r->watch;
	struct watch_pg *wp;
	size_t i, pending = 0;

	*last = 0;
	pthread_mutex_lock(&w->mu);
	for (i = 0; i < e->npgs; i++) {
		wp = detect_watch_pg(w, e->pgs[i], 0);
		if (wp == NULL || !wp->seen || wp->up_len != e->exp_len[i] ||
		    memcmp(wp->up, e->exp[i], e->exp_len[i] * sizeof *wp->up) !=
			0) {
			pending++;
			continue;
		}
		if (wp->t > *last)
			*last = wp->t;
	}
	pthread_mutex_unlock(&w->mu);
	return pending;
}

/* A point of the step's progress curve. */
static void
detect_point(struct detect_event *e, double t, size_t pending)
{
	if (e->np == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 256;
		e->pt = xreallocarray(e->pt, e->cap, sizeof *e->pt);
		e->pn = xreallocarray(e->pn, e->cap, sizeof *e->pn);
	}
	e->pt[e->np] = t;
	e->pn[e->np] = (double)pending;
	e->np++;
}

static void
detect_poll(mapmon_unused evutil_socket_t fd, mapmon_unused short what,
    void *arg)
{
	struct detect_run *r = arg;
	struct detect_event *e;
	struct osd_sim_stats st;
	char *err = NULL;
	double last, now = bench_now();
	size_t pending;
	int done = 0;

	if (r->watch != NULL) {
		pthread_mutex_lock(&r->watch->mu);
		if (r->watch->error != NULL)
			err = xstrdup(r->watch->error);
		done = r->watch->snapshot_done;
		pthread_mutex_unlock(&r->watch->mu);
	}
	if (err != NULL) {
		detect_fail(r, "%s", err);
		free(err);
		return;
	}
	if (r->phase == DETECT_SNAPSHOT && done) {
		evtimer_del(r->timer);
		r->phase = DETECT_QUIET;
		r->t_phase = now;
		detect_timer_in(r, r->o->settle);
		return;
	}
	if (r->phase != DETECT_WAIT_COMMIT && r->phase != DETECT_WAIT_PGS)
		return;
	e = &r->events[r->ev];
	if (r->phase == DETECT_WAIT_COMMIT) {
		/* The simulator must have the map too before it counts. */
		osd_sim_stats(r->up->sim, &st);
		if (st.epoch < e->epoch)
			return;
		pending = st.npeering;
		if (!e->watched)
			detect_point(e, now - e->t_last, pending);
		else if (e->exp != NULL)
			detect_point(e, now - e->t_last,
			    detect_pending(r, e, &last));
		if (pending > 0)
			return;
		/* When the last answer came, not when it was looked at. */
		e->t_committed = (double)st.peering_done_mono / 1e6;
		if (e->t_committed < e->t_last || e->t_committed > now)
			e->t_committed = e->t_last;
		evtimer_del(r->timer);
		if (e->revive)
			detect_pgs_with(r, e);
		if (e->watched) {
			if (e->exp == NULL)
				detect_expect(r, e);
			r->phase = DETECT_WAIT_PGS;
			r->t_phase = now;
			detect_timer_in(r, r->o->timeout);
			return;
		}
	} else {
		pending = detect_pending(r, e, &last);
		detect_point(e, now - e->t_last, pending);
		if (pending > 0)
			return;
		e->t_pgs = last > e->t_last ? last : e->t_last;
		evtimer_del(r->timer);
	}
	r->phase = DETECT_SETTLE;
	r->t_phase = now;
	detect_timer_in(r, r->o->settle);
}

static const char *
detect_ids(const struct detect_event *e, char *buf, size_t len)
{
	size_t off = 0;
	int j = 0, k;

	buf[0] = '\0';
	while (j < e->nids && off < len) {
		for (k = j; k + 1 < e->nids && e->ids[k + 1] == e->ids[k] + 1;
		     k++)
			continue;
		if (k > j)
			off += (size_t)snprintf(buf + off, len - off,
			    "%sosd.%d-%d", off ? "," : "", e->ids[j],
			    e->ids[k]);
		else
			off += (size_t)snprintf(buf + off, len - off,
			    "%sosd.%d", off ? "," : "", e->ids[j]);
		j = k + 1;
	}
	return buf;
}

/* Kill or revive the event's OSDs; the wait for the map begins. */
static void
detect_act(struct detect_run *r)
{
	struct detect_event *e = &r->events[r->ev];
	char *cause = NULL;
	int j, rc;

	if (!e->revive)
		detect_pgs_with(r, e);
	e->t_action = bench_now();
	for (j = 0; j < e->nids; j++) {
		rc = e->revive ? osd_sim_revive(r->up->sim, e->ids[j], &cause) :
				 osd_sim_kill(r->up->sim, e->ids[j], &cause);
		if (rc == -1) {
			detect_fail(r, "%s", cause);
			free(cause);
			return;
		}
	}
	r->phase = DETECT_WAIT_MAP;
	r->t_phase = e->t_action;
	e->ndone = 0;
	detect_timer_in(r, r->o->grace_ms / 1000.0 + r->o->timeout);
}

/* The next phase, after the one that ended. */
static void
detect_next(struct detect_run *r)
{
	struct osd_sim_stats st;
	char *cause = NULL;

	switch (r->phase) {
	case DETECT_BRINGUP:
		if ((r->probe = bench_probe_start(r->up->p.addr, r->o->probe_ms,
			 0, &cause)) == NULL) {
			detect_fail(r, "%s", cause);
			free(cause);
			return;
		}
		r->phase = DETECT_STEADY;
		r->t_steady0 = r->t_phase = bench_now();
		osd_sim_stats(r->up->sim, &st);
		r->acc0 = st.pgs_accepted;
		detect_timer_in(r, r->o->duration);
		break;
	case DETECT_STEADY:
		r->t_steady1 = bench_now();
		osd_sim_stats(r->up->sim, &st);
		r->acc1 = st.pgs_accepted;
		r->ev = 0;
		detect_act(r);
		break;
	case DETECT_SETTLE:
		if (++r->ev == DETECT_EVENTS) {
			r->phase = DETECT_DONE;
			event_base_loopbreak(r->base);
			return;
		}
		if (r->ev != DETECT_ROUND2) {
			detect_act(r);
			return;
		}
		/*
		 * Round two: the lighter load, spread over the interval in
		 * slices of OSDs as real OSDs' reports are (not all at once),
		 * a few seconds for the reports of the full rate queued to
		 * drain, then the subscriber.
		 */
		osd_sim_set_live(r->up->sim, r->o->watch_interval_ms,
		    DETECT_SPREAD);
		r->phase = DETECT_DRAIN;
		r->t_phase = bench_now();
		detect_timer_in(r, DETECT_DRAIN_S);
		break;
	case DETECT_DRAIN:
		if ((r->watch = detect_watch_start(r->up->p.addr, &cause)) ==
		    NULL) {
			detect_fail(r, "%s", cause);
			free(cause);
			return;
		}
		r->phase = DETECT_SNAPSHOT;
		r->t_phase = bench_now();
		detect_timer_in(r, r->o->timeout);
		break;
	case DETECT_QUIET:
		detect_act(r);
		break;
	default:
		break;
	}
}

static void
detect_timer(mapmon_unused evutil_socket_t fd, mapmon_unused short what,
    void *arg)
{
	struct detect_run *r = arg;
	struct detect_event *e = &r->events[r->ev];
	struct osd_sim_stats st;
	char ids[128];
	double last;

	switch (r->phase) {
	case DETECT_SNAPSHOT:
		detect_fail(r,
		    "the pgmap subscriber had no whole snapshot "
		    "after %.0f s",
		    r->o->timeout);
		break;
	case DETECT_WAIT_MAP:
		detect_fail(r, "%s %s: %d of %d %s in the map after %.1f s",
		    e->what, detect_ids(e, ids, sizeof ids), e->ndone, e->nids,
		    e->revive ? "up" : "down", bench_now() - e->t_action);
		break;
	case DETECT_WAIT_COMMIT:
		osd_sim_stats(r->up->sim, &st);
		detect_fail(r,
		    "%s %s: %zu PGs not committed on their new up "
		    "set after %.1f s",
		    e->what, detect_ids(e, ids, sizeof ids), st.npeering,
		    bench_now() - e->t_last);
		break;
	case DETECT_WAIT_PGS:
		detect_fail(r,
		    "%s %s: %zu of %zu PGs not pushed on their new "
		    "up set after %.1f s",
		    e->what, detect_ids(e, ids, sizeof ids),
		    detect_pending(r, e, &last), e->npgs,
		    bench_now() - e->t_last);
		break;
	default:
		detect_next(r);
		break;
	}
}

/* Every PG active+clean: the bring-up is over. */
static void
detect_clean(mapmon_unused struct bench_up *up, void *arg)
{
	struct detect_run *r = arg;

	if (r->phase == DETECT_BRINGUP)
		detect_next(r);
}

/* The status probes sent within [t0, t1): their p50, p99, max. */
static size_t
detect_window(const double *sent, const double *ms, size_t n, double t0,
    double t1, double *p50, double *p99, double *max)
{
	double *v = xreallocarray(NULL, n ? n : 1, sizeof *v);
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (sent[i] >= t0 && sent[i] < t1)
			v[k++] = ms[i];
	*p50 = bench_percentile(v, k, 50);
	*p99 = bench_percentile(v, k, 99);
	*max = bench_percentile(v, k, 100);
	free(v);
	return k;
}

static mapmon_dead void
detect_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
	    "usage: mapmon-bench detect [--setup NAME] [--pgs N] [--osds N] "
	    "[--pools N]\n"
	    "           [--grace S] [--host N] [--duration S] "
	    "[--watch-interval MS] [--settle S]\n"
	    "           [--timeout S] [--probe-ms MS] [--window W] "
	    "[--batch B] [-o DIR]\n"
	    "           [--mon-conf FILE] [--mapmond PATH]\n"
	    "  set-ups: %s\n",
	    bench_setup_names());
	exit(code);
}

/* A time of a step for the outputs: NAN (null, "-") when not measured. */
static double
detect_span(double from, double to)
{
	return from > 0 && to > 0 ? to - from : NAN;
}

/* A span for a table cell: "%.3f", or none when not measured. */
static void
detect_cell(char *cell, size_t len, double v, const char *none)
{
	if (isnan(v))
		snprintf(cell, len, "%s", none);
	else
		snprintf(cell, len, "%.3f", v);
}

static json_t *
detect_json_span(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* The results: table on stdout, detect.csv, detect.json, the plot. */
static int
detect_write(const struct detect_opts *o, struct detect_run *r, double rate,
    size_t steady_n, double sp50, double sp99, double smax)
{
	static const struct bench_plot_style style = { 1, 0, 3, 1, 1 };
	struct bench_plot_series ps[DETECT_EVENTS];
	struct detect_event *e;
	json_t *doc, *a;
	char ids[128], load[64], *path, *cause = NULL;
	char label[DETECT_EVENTS][160], cell[3][32];
	double span[3];
	FILE *f;
	int i, k, rc = 0, drawn;

	printf("## mapmon-bench detect\n\n");
	printf(
	    "%s, sync = commit; %ld PGs in %d pools of size 3 on %d "
	    "simulated OSDs; osd_heartbeat_grace %.1f s, pings every 1 s; "
	    "round one: every PG reported again as soon as answered (%.0f PG "
	    "updates/s accepted in the steady window); round two: every PG "
	    "reported every %d ms, with a pgmap subscriber; `status` every "
	    "%d ms on its own connection all along\n\n",
	    o->setup->name, o->pgs, o->shape.pools, o->shape.osds,
	    o->grace_ms / 1000.0, rate, o->watch_interval_ms, o->probe_ms);
	printf("| step | load | OSDs | PGs moved | to the map s | map to "
	       "committed s | map to pushed s | status p99 ms | status max ms "
	       "|\n|---|---|---|---:|---:|---:|---:|---:|---:|\n");
	printf("| steady %.0f s | full | %d running | - | - | - | - | %.3f | "
	       "%.3f |\n",
	    o->duration, o->shape.osds, sp99, smax);
	for (i = 0; i < DETECT_EVENTS; i++) {
		e = &r->events[i];
		span[0] = detect_span(e->t_action, e->t_last);
		span[1] = detect_span(e->t_last, e->t_committed);
		span[2] = detect_span(e->t_last, e->t_pgs);
		for (k = 0; k < 3; k++)
			detect_cell(cell[k], sizeof cell[k], span[k], "-");
		if (e->watched)
			snprintf(load, sizeof load, "every %d ms",
			    o->watch_interval_ms);
		else
			snprintf(load, sizeof load, "full");
		if (e->t_action == 0) {
			printf("| %s | %s | %s | not run | | | | | |\n",
			    e->what, load, detect_ids(e, ids, sizeof ids));
			continue;
		}
		printf("| %s | %s | %s | %zu | %s", e->what, load,
		    detect_ids(e, ids, sizeof ids), e->npgs, cell[0]);
		if (e->nids > 1 && e->t_first > 0)
			printf(" (first %.3f)", e->t_first - e->t_action);
		printf(" | %s | %s | %.3f | %.3f |\n", cell[1], cell[2], e->p99,
		    e->max);
	}
	printf("\nOSDs marked down while running: %d%s%s%s (over the whole "
	       "run; %zu status probes in the steady window, p50 %.3f ms)\n",
	    r->false_downs, r->false_downs ? " (" : "", r->false_list,
	    r->false_downs ? ")" : "", steady_n, sp50);
	fflush(stdout);

	xasprintf(&path, "%s/detect.csv", o->outdir);
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "mapmon-bench: %s: %s\n", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	fprintf(f,
	    "step,watched,osds,pgs_moved,to_map_s,first_to_map_s,"
	    "map_to_committed_s,map_to_pushed_s,status_p50_ms,status_p99_ms,"
	    "status_max_ms,status_samples\n");
	fprintf(f, "steady,0,%d,0,,,,,%.3f,%.3f,%.3f,%zu\n", o->shape.osds,
	    sp50, sp99, smax, steady_n);
	for (i = 0; i < DETECT_EVENTS; i++) {
		e = &r->events[i];
		span[1] = detect_span(e->t_last, e->t_committed);
		span[2] = detect_span(e->t_last, e->t_pgs);
		for (k = 1; k < 3; k++)
			detect_cell(cell[k], sizeof cell[k], span[k], "");
		span[0] = detect_span(e->t_action, e->t_last);
		detect_cell(cell[0], sizeof cell[0], span[0], "");
		fprintf(f, "%s,%d,\"%s\",%zu,%s,", e->what, e->watched,
		    detect_ids(e, ids, sizeof ids), e->npgs, cell[0]);
		span[0] = detect_span(e->t_action, e->t_first);
		detect_cell(cell[0], sizeof cell[0], span[0], "");
		fprintf(f, "%s,%s,%s,%.3f,%.3f,%.3f,%zu\n", cell[0], cell[1],
		    cell[2], e->p50, e->p99, e->max, e->probes);
	}
	fclose(f);
	free(path);

	doc = json_pack("{s:s, s:I, s:i, s:i, s:f, s:i, s:f, s:i, s:i, "
			"s:f, s:i, s:s, s:f, s:f, s:f, s:I}",
	    "setup", o->setup->name, "pgs", (json_int_t)o->pgs, "osds",
	    o->shape.osds, "pools", o->shape.pools, "grace_s",
	    o->grace_ms / 1000.0, "host", o->host, "duration_s", o->duration,
	    "watch_interval_ms", o->watch_interval_ms, "probe_ms", o->probe_ms,
	    "pg_updates_per_s", rate, "false_downs", r->false_downs,
	    "false_down_osds", r->false_list, "steady_status_p50_ms", sp50,
	    "steady_status_p99_ms", sp99, "steady_status_max_ms", smax,
	    "steady_status_samples", (json_int_t)steady_n);
	a = json_array();
	for (i = 0; i < DETECT_EVENTS; i++) {
		e = &r->events[i];
		json_array_append_new(a,
		    json_pack("{s:s, s:b, s:s, s:I, s:o, "
			      "s:o, s:o, s:o, s:f, s:f, s:f, s:I}",
			"step", e->what, "watched", e->watched, "osds",
			detect_ids(e, ids, sizeof ids), "pgs_moved",
			(json_int_t)e->npgs, "to_map_s",
			detect_json_span(detect_span(e->t_action, e->t_last)),
			"first_to_map_s",
			detect_json_span(detect_span(e->t_action, e->t_first)),
			"map_to_committed_s",
			detect_json_span(
			    detect_span(e->t_last, e->t_committed)),
			"map_to_pushed_s",
			detect_json_span(detect_span(e->t_last, e->t_pgs)),
			"status_p50_ms", e->p50, "status_p99_ms", e->p99,
			"status_max_ms", e->max, "status_samples",
			(json_int_t)e->probes));
	}
	json_object_set_new(doc, "steps", a);
	xasprintf(&path, "%s/detect.json", o->outdir);
	if (json_dump_file(doc, path, JSON_INDENT(1) | JSON_SORT_KEYS) != 0) {
		fprintf(stderr, "mapmon-bench: %s: cannot write\n", path);
		rc = -1;
	}
	json_decref(doc);
	free(path);

	for (i = 0; i < DETECT_EVENTS; i++) {
		e = &r->events[i];
		snprintf(label[i], sizeof label[i], "%s %s (%zu PGs): %s",
		    e->what, detect_ids(e, ids, sizeof ids), e->npgs,
		    e->watched ? "pushed, lighter load" :
				 "committed, full load");
		ps[i].name = label[i];
		ps[i].n = e->np;
		ps[i].x = e->pt;
		ps[i].y = e->pn;
		ps[i].colour = i % DETECT_ROUND2 + 1;
		ps[i].dashed = e->watched;
	}
	drawn = bench_plot_styled(o->outdir, "detect",
	    "PGs moved by a kill or "
	    "a revival, not yet on their new up set",
	    "seconds since the map "
	    "change reached a subscriber",
	    "PGs", &style, ps, DETECT_EVENTS, &cause);
	if (drawn == -1)
		rc = -1;
	if (drawn == 1)
		fprintf(stderr,
		    "mapmon-bench: wrote %s/detect.{csv,json} and "
		    "detect.{dat,gp,svg} (drawn by gnuplot)\n",
		    o->outdir);
	else
		fprintf(stderr,
		    "mapmon-bench: wrote %s/detect.{csv,json} and "
		    "detect.{dat,gp}; %s\n",
		    o->outdir, cause);
	free(cause);
	return rc;
}

static int
detect_run_one(const struct detect_opts *o)
{
	struct bench_up_params p;
	struct detect_run r;
	struct detect_event *e;
	struct bench_mon *bm;
	struct timeval tv = { 0, DETECT_POLL_MS * 1000 };
	const double *sent, *lat;
	char *extra, *more, *cause = NULL;
	double rate = 0, sp50 = 0, sp99 = 0, smax = 0, t_end;
	size_t n = 0, steady_n = 0;
	int i, j, failed = 0, rc = 1;

	memset(&r, 0, sizeof r);
	r.o = o;
	/*
	 * The subscriber may lag a burst of pushes (a snapshot of every PG,
	 * then the commits that moved thousands): room for 1 GiB of them
	 * rather than the 64M that drops a reader that does not read, as an
	 * operator would give a manager-like client.  A lag shows in the
	 * times to the pushes.
	 */
	more = bench_limits_conf(o->pgs, &o->shape, o->mon_conf);
	xasprintf(&extra, "[mon]\nosd_heartbeat_grace = %dms\n%s%s",
	    o->grace_ms,
	    o->mon_conf != NULL &&
		    bench_conf_has(o->mon_conf, "max_client_output") ?
		"" :
		"max_client_output = 1G\n",
	    more);
	free(more);
	bm = bench_mon_run(o->mapmond, o->setup, extra, 0, &cause);
	free(extra);
	if (bm == NULL)
		goto fail;

	/* The steps: the last OSD, a host of the first ids, all revived. */
	for (i = 0; i < DETECT_EVENTS; i++) {
		e = &r.events[i];
		e->watched = i >= DETECT_ROUND2;
		switch (i % DETECT_ROUND2) {
		case 0:
			e->what = "kill";
			e->nids = 1;
			e->ids = xcalloc(1, sizeof *e->ids);
			e->ids[0] = o->shape.osds - 1;
			break;
		case 1:
			e->what = "kill a host";
			e->nids = o->host;
			e->ids = xcalloc((size_t)o->host, sizeof *e->ids);
			for (j = 0; j < o->host; j++)
				e->ids[j] = j;
			break;
		default:
			e->what = "revive";
			e->revive = 1;
			e->nids = o->host + 1;
			e->ids = xcalloc((size_t)o->host + 1, sizeof *e->ids);
			for (j = 0; j < o->host; j++)
				e->ids[j] = j;
			e->ids[o->host] = o->shape.osds - 1;
			break;
		}
	}

	r.base = event_base_new();
	r.timer = evtimer_new(r.base, detect_timer, &r);
	r.poll = event_new(r.base, -1, EV_PERSIST, detect_poll, &r);
	memset(&p, 0, sizeof p);
	p.addr = bm->addr;
	p.shape = o->shape;
	p.live_interval_ms = 0;
	p.pgs = o->pgs;
	p.pool_prefix = "detect";
	p.timeout = 0;
	p.heartbeat_grace_ms = o->grace_ms;
	p.on_clean = detect_clean;
	p.arg = &r;
	r.mapcl = mclient_new(r.base, bm->addr, 5000, NULL,
	    detect_map_conn_error, &r);
	mclient_set_name(r.mapcl, "client.detect-map");
	r.cache = osdmap_cache_new(r.mapcl, detect_map, detect_map_error, &r);
	osdmap_cache_start(r.cache);
	if ((r.up = bench_up_new(r.base, &p, &cause)) == NULL)
		goto out;
	event_add(r.poll, &tv);
	event_base_dispatch(r.base);
	t_end = bench_now();
	if (r.probe != NULL)
		n = bench_probe_stop(r.probe, &sent, &lat, &failed);
	if (r.up->error != NULL && r.error == NULL) {
		r.error = r.up->error;
		r.up->error = NULL;
	}
	if (r.error == NULL && r.phase != DETECT_DONE)
		xasprintf(&r.error, "stopped before the end");
	if (r.error == NULL && (failed || n == 0))
		xasprintf(&r.error, "status probe: %s",
		    failed ? "a status failed" : "no answer");
	/* A run that failed after the steady window still tells its steps. */
	if (r.error != NULL && r.t_steady1 == 0) {
		cause = r.error;
		r.error = NULL;
		goto out;
	}
	rate = (double)(r.acc1 - r.acc0) / (r.t_steady1 - r.t_steady0);
	steady_n = detect_window(sent, lat, n, r.t_steady0, r.t_steady1, &sp50,
	    &sp99, &smax);
	for (i = 0; i < DETECT_EVENTS; i++) {
		e = &r.events[i];
		e->probes = detect_window(sent, lat, n, e->t_action,
		    i + 1 < DETECT_EVENTS ? r.events[i + 1].t_action : t_end,
		    &e->p50, &e->p99, &e->max);
	}
	rc = detect_write(o, &r, rate, steady_n, sp50, sp99, smax) == 0 &&
		r.false_downs == 0 && r.error == NULL ?
	    0 :
	    1;
	if (r.error != NULL) {
		cause = r.error;
		r.error = NULL;
	}
	if (r.false_downs > 0)
		fprintf(stderr,
		    "mapmon-bench: detect: %d OSDs marked down "
		    "while running: %s\n",
		    r.false_downs, r.false_list);
out:
	bench_probe_free(r.probe);
	detect_watch_free(r.watch);
	bench_up_free(r.up);
	mclient_free(r.mapcl);
	osdmap_cache_free(r.cache);
	event_free(r.timer);
	event_free(r.poll);
	event_base_free(r.base);
	for (i = 0; i < DETECT_EVENTS; i++) {
		e = &r.events[i];
		free(e->ids);
		free(e->pgs);
		free(e->exp);
		free(e->exp_len);
		free(e->pt);
		free(e->pn);
	}
	free(r.was_up);
fail:
	if (cause != NULL) {
		fprintf(stderr, "mapmon-bench: detect: %s\n", cause);
		free(cause);
		rc = 1;
	}
	bench_mon_free(bm);
	return rc;
}

int
bench_detect_main(int argc, char **argv)
{
	static const struct option longopts[] = { { "setup", required_argument,
						      NULL, 'S' },
		{ "pgs", required_argument, NULL, 'P' },
		{ "osds", required_argument, NULL, 'n' },
		{ "pools", required_argument, NULL, 'p' },
		{ "window", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "grace", required_argument, NULL, 'G' },
		{ "host", required_argument, NULL, 'H' },
		{ "duration", required_argument, NULL, 'D' },
		{ "settle", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "probe-ms", required_argument, NULL, 'r' },
		{ "watch-interval", required_argument, NULL, 'W' },
		{ "mapmond", required_argument, NULL, 'M' },
		{ "mon-conf", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct detect_opts o;
	struct bench_run_opts ro;
	int ch, code, rc;

	memset(&o, 0, sizeof o);
	o.setup = bench_setup_find("lmdb");
	o.pgs = 221568;
	bench_shape_defaults(&o.shape);
	o.grace_ms = 20000;
	o.host = 8;
	o.duration = 600;
	o.probe_ms = 10;
	o.watch_interval_ms = 5000;
	o.settle = 2;
	o.timeout = 60;
	bench_run_opts_defaults(&ro);
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			if ((o.setup = bench_setup_find(optarg)) == NULL) {
				fprintf(stderr,
				    "mapmon-bench: --setup: "
				    "unknown set-up '%s' (%s)\n",
				    optarg, bench_setup_names());
				return MAPMON_EXIT_USAGE;
			}
			break;
		case 'P':
			o.pgs = bench_arg_long("--pgs", optarg, 1, 16777216);
			break;
		case 'G':
			o.grace_ms = (int)bench_arg_seconds("--grace", optarg,
			    100, 3600000);
			break;
		case 'H':
			o.host = (int)bench_arg_long("--host", optarg, 1, 64);
			break;
		case 'D':
			o.duration = (double)bench_arg_seconds("--duration",
					 optarg, 0, 86400000) /
			    1000.0;
			break;
		case 's':
			o.settle = (double)bench_arg_seconds("--settle", optarg,
				       0, 3600000) /
			    1000.0;
			break;
		case 't':
			o.timeout = (double)bench_arg_seconds("--timeout",
					optarg, 1000, 3600000) /
			    1000.0;
			break;
		case 'r':
			o.probe_ms = (int)bench_arg_long("--probe-ms", optarg,
			    1, 10000);
			break;
		case 'W':
			o.watch_interval_ms = (int)bench_arg_long(
			    "--watch-interval", optarg, 1, 3600000);
			break;
		case 'h':
			detect_usage(0);
		default:
			if (!bench_shape_opt(&o.shape, ch, optarg) &&
			    !bench_run_opt(&ro, ch, optarg))
				detect_usage(MAPMON_EXIT_USAGE);
		}
	}
	o.mon_conf = ro.mon_conf;
	o.outdir = ro.outdir;
	if (optind != argc || o.pgs < o.shape.pools)
		detect_usage(MAPMON_EXIT_USAGE);
	/* Two reporters and a full up set must stay once a host is dead. */
	if (o.shape.osds < o.host + 1 + 3) {
		fprintf(stderr,
		    "mapmon-bench: detect: --osds %d: at least "
		    "--host + 4 (%d) are needed, so that after the kills a "
		    "full up set and two reporters remain\n",
		    o.shape.osds, o.host + 4);
		free(o.mon_conf);
		return MAPMON_EXIT_USAGE;
	}
	if (o.mon_conf != NULL &&
	    bench_conf_has(o.mon_conf, "osd_heartbeat_grace")) {
		fprintf(stderr,
		    "mapmon-bench: detect: --mon-conf sets "
		    "osd_heartbeat_grace: give it with --grace, which the "
		    "simulated OSDs use too\n");
		free(o.mon_conf);
		return MAPMON_EXIT_USAGE;
	}
	if ((o.mapmond = bench_run_mapmond(&ro, &code)) == NULL) {
		free(o.mon_conf);
		return code;
	}
	signal(SIGPIPE, SIG_IGN);
	rc = detect_run_one(&o);
	free(o.mapmond);
	free(o.mon_conf);
	return rc;
}
