/*
 * mon_capacity.c: the OSDs' capacity (mon_capacity.h): its figures kept as
 * beacons and commits change them, the full ratios' command, and `df' and
 * `osd df' as Ceph's PGMap and OSDMonitor print them.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "mon/keys.h"
#include "mon/mon_priv.h"
#include "mon/mon_quorum.h"

/* The figures one OSD gives, and its headroom per unit of weight. */
static void
mon_capacity_of(const struct mon *m, int32_t id, struct mon_capacity_osd *c,
    double *key)
{
	const struct osdmap *om = &m->osdmap;
	const struct osdmap_osd *o = osdmap_osd(om, id);
	const struct statfs_osd *st = NULL;
	double used, headroom;

	memset(c, 0, sizeof *c);
	*key = INFINITY;
	if (o == NULL)
		return;
	if ((uint32_t)id < m->nlive && m->live[id].has_statfs)
		st = &m->live[id].statfs;
	if (o->up && o->in)
		c->weight = placement_weight16_fixed(o->weight, o->reweight);
	if (st == NULL)
		return;
	if (o->in && o->reweight > 0) {
		c->counted = 1;
		c->sums = *st;
	}
	/* Ceph's OSDs judge their raw use: (total - avail) / total. */
	if (st->total > 0) {
		used = (double)(st->total - st->avail) / (double)st->total;
		if (used > om->full_ratio)
			c->state = MON_FULL_FULL;
		else if (used > om->backfillfull_ratio)
			c->state = MON_FULL_BACKFILL;
		else if (used > om->nearfull_ratio)
			c->state = MON_FULL_NEAR;
	}
	if (c->weight > 0 && st->total > 0) {
		headroom = (double)st->avail -
		    (1.0 - om->full_ratio) * (double)st->total;
		*key = (headroom > 0 ? headroom : 0) / (double)c->weight;
	}
}

static void
mon_capacity_add(struct statfs_osd *sum, const struct statfs_osd *st, int sign)
{
	uint64_t k = (uint64_t)(int64_t)sign;

	sum->total += k * st->total;
	sum->used += k * st->used;
	sum->avail += k * st->avail;
	sum->data += k * st->data;
	sum->omap += k * st->omap;
	sum->meta += k * st->meta;
}

static int
mon_capacity_statfs_equal(const struct statfs_osd *a,
    const struct statfs_osd *b)
{
	return a->total == b->total && a->used == b->used &&
	    a->avail == b->avail && a->data == b->data && a->omap == b->omap &&
	    a->meta == b->meta;
}

static int
mon_capacity_osd_equal(const struct mon_capacity_osd *a,
    const struct mon_capacity_osd *b)
{
	return a->counted == b->counted && a->state == b->state &&
	    a->weight == b->weight &&
	    mon_capacity_statfs_equal(&a->sums, &b->sums);
}

static void
mon_capacity_tree_fix(struct mon_capacity *cap, uint32_t leaf)
{
	uint32_t k;

	for (k = (cap->n + leaf) / 2; k >= 1; k /= 2)
		cap->tree[k] = fmin(cap->tree[2 * k], cap->tree[2 * k + 1]);
}

/* Room for id: n grows to a power of two, the tree is made again. */
static void
mon_capacity_grow(struct mon_capacity *cap, uint32_t id)
{
	uint32_t n = cap->n ? cap->n : 64, i;
	double *tree;

	if (id < cap->n)
		return;
	while (n <= id)
		n *= 2;
	cap->osd = xreallocarray(cap->osd, n, sizeof *cap->osd);
	memset(cap->osd + cap->n, 0, (n - cap->n) * sizeof *cap->osd);
	tree = xreallocarray(NULL, 2 * (size_t)n, sizeof *tree);
	for (i = 0; i < 2 * n; i++)
		tree[i] = INFINITY;
	for (i = 0; i < cap->n; i++)
		tree[n + i] = cap->tree[cap->n + i];
	free(cap->tree);
	cap->tree = tree;
	cap->n = n;
	for (i = n - 1; i >= 1; i--)
		tree[i] = fmin(tree[2 * i], tree[2 * i + 1]);
}

void
mon_capacity_osd(struct mon *m, int32_t id)
{
	struct mon_capacity *cap = &m->cap;
	struct mon_capacity_osd now, *c;
	double key;

	if (id < 0 || id >= OSDMAP_MAX_OSD)
		return;
	mon_capacity_of(m, id, &now, &key);
	if ((uint32_t)id >= cap->n) {
		if (now.weight == 0 && !now.counted &&
		    now.state == MON_FULL_NONE)
			return;
		mon_capacity_grow(cap, (uint32_t)id);
	}
	c = &cap->osd[id];
	if (c->counted) {
		mon_capacity_add(&cap->sum, &c->sums, -1);
		cap->num_osds--;
	}
	if (c->state != MON_FULL_NONE)
		cap->nstate[c->state]--;
	cap->weight_sum -= c->weight;
	*c = now;
	if (c->counted) {
		mon_capacity_add(&cap->sum, &c->sums, 1);
		cap->num_osds++;
	}
	if (c->state != MON_FULL_NONE)
		cap->nstate[c->state]++;
	cap->weight_sum += c->weight;
	if (cap->tree[cap->n + (uint32_t)id] != key) {
		cap->tree[cap->n + (uint32_t)id] = key;
		mon_capacity_tree_fix(cap, (uint32_t)id);
	}
}

void
mon_capacity_commit(struct mon *m, const struct osdmap_inc *inc)
{
	struct mon_osd_live *l;
	uint32_t k, n;
	size_t i;
	int32_t id;

	for (i = 0; i < inc->nremoved_osds; i++) {
		id = inc->removed_osds[i];
		if (id >= 0 && (uint32_t)id < m->nlive &&
		    osdmap_osd(&m->osdmap, id) == NULL) {
			/* Its "S" record goes in the same commit. */
			l = &m->live[id];
			l->has_statfs = l->has_committed = 0;
			l->cap_dirty = 0;
			memset(&l->statfs, 0, sizeof l->statfs);
			memset(&l->committed, 0, sizeof l->committed);
		}
		mon_capacity_osd(m, id);
	}
	for (i = 0; i < inc->nosds; i++)
		mon_capacity_osd(m, inc->osds[i].id);
	if (inc->new_full_ratio < 0 && inc->new_backfillfull_ratio < 0 &&
	    inc->new_nearfull_ratio < 0)
		return;
	/* The ratios judge every OSD: a rare change, done whole. */
	n = m->osdmap.max_osd > m->cap.n ? m->osdmap.max_osd : m->cap.n;
	for (k = 0; k < n; k++)
		mon_capacity_osd(m, (int32_t)k);
}

/* Ceph's mgr_stats_period: the capacity timer went off. */
static void
mon_capacity_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;

	(void)fd;
	(void)what;
	if (m->ncap_dirty > 0 && !m->stopped)
		mon_stage_capacity(m);
}

/* The timer runs while some capacity waits for a commit. */
static void
mon_capacity_arm(struct mon *m)
{
	struct timeval tv;
	int64_t ms = m->params.capacity_interval_ms;

	if (m->ncap_dirty == 0 || m->stopped)
		return;
	if (m->cap_timer == NULL &&
	    (m->cap_timer = evtimer_new(m->base, mon_capacity_timer_cb, m)) ==
		NULL)
		fatalx("cannot make the capacity timer");
	if (evtimer_pending(m->cap_timer, NULL))
		return;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(m->cap_timer, &tv);
}

/* OSD id's capacity waits for the next seal. */
static void
mon_capacity_dirty(struct mon *m, int32_t id)
{
	struct mon_osd_live *l = mon_osd_live(m, id);

	if (l->cap_dirty)
		return;
	if (m->ncap_dirty == m->capcap_dirty) {
		m->capcap_dirty = m->capcap_dirty ? m->capcap_dirty * 2 : 64;
		m->cap_dirty = xreallocarray(m->cap_dirty, m->capcap_dirty,
		    sizeof *m->cap_dirty);
	}
	m->cap_dirty[m->ncap_dirty++] = id;
	l->cap_dirty = 1;
}

void
mon_capacity_beacon(struct mon *m, int32_t id, const struct statfs_osd *st)
{
	struct mon_osd_live *l = mon_osd_live(m, id);
	struct mon_quorum_info qi;

	/*
	 * Only the leader's beacons make the capacity (a monitor out of
	 * quorum runs them itself): what no commit carries would be this
	 * monitor's alone.
	 */
	if (mon_quorum_info(m, &qi) == 0 && qi.role != MON_QUORUM_LEADER)
		return;
	if (!l->has_statfs || !mon_capacity_statfs_equal(&l->statfs, st)) {
		l->statfs = *st;
		l->has_statfs = 1;
		mon_capacity_osd(m, id);
		if (!l->has_committed ||
		    !mon_capacity_statfs_equal(&l->committed, st))
			mon_capacity_dirty(m, id);
	}
	/* Again at each beacon: a leader not yet ready dropped its commit. */
	mon_capacity_arm(m);
}

void
mon_capacity_seal(struct mon *m, struct mon_proposal *p)
{
	struct mon_osd_live *l;
	size_t i;
	int32_t id;

	if (m->ncap_dirty == 0)
		return;
	p->statfs = xreallocarray(p->statfs, p->nstatfs + m->ncap_dirty,
	    sizeof *p->statfs);
	for (i = 0; i < m->ncap_dirty; i++) {
		id = m->cap_dirty[i];
		l = &m->live[id];
		/* Listed twice (removed and made again), or removed. */
		if (!l->cap_dirty)
			continue;
		l->cap_dirty = 0;
		if (!l->has_statfs || osdmap_osd(&m->work, id) == NULL)
			continue;
		p->statfs[p->nstatfs].id = id;
		p->statfs[p->nstatfs].st = l->statfs;
		p->nstatfs++;
	}
	m->ncap_dirty = 0;
}

void
mon_capacity_apply(struct mon *m, const struct mon_proposal *p)
{
	const struct mon_capacity_change *c;
	struct mon_osd_live *l;
	size_t i;

	for (i = 0; i < p->nstatfs; i++) {
		c = &p->statfs[i];
		if (osdmap_osd(&m->osdmap, c->id) == NULL)
			continue;
		l = mon_osd_live(m, c->id);
		l->committed = c->st;
		l->has_committed = 1;
		if (l->cap_dirty)
			continue; /* a newer beacon: the next commit's */
		l->statfs = c->st;
		l->has_statfs = 1;
		mon_capacity_osd(m, c->id);
	}
}

void
mon_capacity_unseal(struct mon *m, const struct mon_proposal *p)
{
	size_t i;

	for (i = 0; i < p->nstatfs; i++)
		if (osdmap_osd(&m->work, p->statfs[i].id) != NULL)
			mon_capacity_dirty(m, p->statfs[i].id);
	mon_capacity_arm(m);
}

void
mon_capacity_follow(struct mon *m)
{
	struct mon_osd_live *l;
	uint32_t k;

	for (k = 0; k < m->nlive; k++) {
		l = &m->live[k];
		l->cap_dirty = 0;
		if (l->has_statfs == l->has_committed &&
		    (!l->has_statfs ||
			mon_capacity_statfs_equal(&l->statfs, &l->committed)))
			continue;
		l->statfs = l->committed;
		l->has_statfs = l->has_committed;
		mon_capacity_osd(m, (int32_t)k);
	}
	m->ncap_dirty = 0;
	if (m->cap_timer != NULL)
		evtimer_del(m->cap_timer);
}

int
mon_capacity_load(struct mon *m, char **cause)
{
	struct store_iter *it;
	struct mon_osd_live *l;
	struct statfs_osd st;
	uint8_t lo[1] = { KEYS_STATFS }, hi[1] = { KEYS_STATFS + 1 };
	const void *key, *val;
	size_t klen, vlen;
	char *why = NULL;
	int32_t id;
	int rc;

	if ((it = store_iter_new(m->store, lo, 1, hi, 1, &why)) == NULL) {
		*cause = why;
		return -1;
	}
	while ((rc = store_iter_next(it, &key, &klen, &val, &vlen)) == 1) {
		id = (int32_t)(klen == KEYS_STATFS_LEN ?
			enc_get_be32((const uint8_t *)key + 1) :
			0);
		if (klen != KEYS_STATFS_LEN || id < 0 || id >= OSDMAP_MAX_OSD ||
		    mon_record_statfs_decode(val, vlen, &st, &why) == -1) {
			store_key_corrupt(cause, store_path(m->store), key,
			    klen, "%s",
			    why != NULL ? why : "not the key of an OSD");
			free(why);
			store_iter_free(it);
			return -1;
		}
		/*
		 * The removal of an OSD deletes its record in the same
		 * commit: one of an OSD the map lacks is a store made
		 * otherwise (`mapmon-store verify' names it); not counted.
		 */
		if (osdmap_osd(&m->osdmap, id) == NULL)
			continue;
		l = mon_osd_live(m, id);
		l->statfs = l->committed = st;
		l->has_statfs = l->has_committed = 1;
	}
	return mon_scan_end(m, it, rc, "the capacities", cause);
}

void
mon_capacity_open(struct mon *m)
{
	const struct osdmap *om = &m->osdmap;
	uint32_t k;

	/* The weights, and the capacities mon_capacity_load() read. */
	for (k = 0; k < om->max_osd; k++)
		mon_capacity_osd(m, (int32_t)k);
	if (om->struct_v >= OSDMAP_STRUCT_V)
		return;
	log_info("osdmap epoch %u is of record version %u: the next epoch "
		 "writes version %u",
	    om->epoch, om->struct_v, OSDMAP_STRUCT_V);
	/* The ratios' change makes the epoch; the full map is written whole. */
	mon_stage_ratios(m, m->work.full_ratio, m->work.backfillfull_ratio,
	    m->work.nearfull_ratio);
	mon_stage_log(m, MON_LOG_INFO,
	    "osdmap upgraded from record version %u to %u%s%s", om->struct_v,
	    OSDMAP_STRUCT_V,
	    om->struct_v < 2 ? ": the default full ratios" : "",
	    om->struct_v < 3 ? (om->struct_v < 2 ? ", pgp_num = pg_num" :
						   ": pgp_num = pg_num") :
			       "");
	mon_stage_propose(m);
}

void
mon_capacity_clear(struct mon *m)
{
	mon_event_free(&m->cap_timer);
	free(m->cap_dirty);
	m->cap_dirty = NULL;
	m->ncap_dirty = m->capcap_dirty = 0;
	free(m->cap.osd);
	free(m->cap.tree);
	memset(&m->cap, 0, sizeof m->cap);
}

enum mon_full_state
mon_capacity_state(const struct mon *m, int32_t id)
{
	if (id < 0 || (uint32_t)id >= m->cap.n)
		return MON_FULL_NONE;
	return (enum mon_full_state)m->cap.osd[id].state;
}

/* W x the least headroom per weight: Ceph's get_rule_avail(). */
uint64_t
mon_capacity_raw_avail(const struct mon *m)
{
	double least = m->cap.n > 0 ? m->cap.tree[1] : INFINITY, avail;

	if (isinf(least))
		return 0;
	/* Rounded: 1 - full_ratio is not exact, and a byte short is noise. */
	avail = least * (double)m->cap.weight_sum + 0.5;
	return avail >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)avail;
}

int
mon_capacity_check(struct mon *m, char **cause)
{
	const struct mon_capacity *cap = &m->cap;
	struct mon_capacity_osd c, none;
	struct statfs_osd sum;
	uint32_t k, n, num = 0, nstate[MON_FULL_STATES] = { 0 };
	uint64_t weight = 0;
	double key, least = INFINITY, kept;

	memset(&sum, 0, sizeof sum);
	memset(&none, 0, sizeof none);
	n = m->osdmap.max_osd > cap->n ? m->osdmap.max_osd : cap->n;
	for (k = 0; k < n; k++) {
		mon_capacity_of(m, (int32_t)k, &c, &key);
		if (!mon_capacity_osd_equal(&c,
			k < cap->n ? &cap->osd[k] : &none)) {
			xasprintf(cause,
			    "capacity of osd.%u differs from a "
			    "recount",
			    k);
			return -1;
		}
		kept = k < cap->n ? cap->tree[cap->n + k] : INFINITY;
		if (kept != key) {
			xasprintf(cause,
			    "headroom of osd.%u is %g, a recount "
			    "says %g",
			    k, kept, key);
			return -1;
		}
		if (c.counted) {
			mon_capacity_add(&sum, &c.sums, 1);
			num++;
		}
		if (c.state != MON_FULL_NONE)
			nstate[c.state]++;
		weight += c.weight;
		least = fmin(least, key);
	}
	if (!mon_capacity_statfs_equal(&sum, &cap->sum) ||
	    num != cap->num_osds) {
		xasprintf(cause,
		    "capacity sums of %u osds (total %llu) differ "
		    "from a recount of %u osds (total %llu)",
		    cap->num_osds, (unsigned long long)cap->sum.total, num,
		    (unsigned long long)sum.total);
		return -1;
	}
	for (k = MON_FULL_NEAR; k < MON_FULL_STATES; k++) {
		if (nstate[k] != cap->nstate[k]) {
			xasprintf(cause,
			    "%u osds of fullness %u, a recount "
			    "says %u",
			    cap->nstate[k], k, nstate[k]);
			return -1;
		}
	}
	if (weight != cap->weight_sum) {
		xasprintf(cause, "placement weight %llu, a recount says %llu",
		    (unsigned long long)cap->weight_sum,
		    (unsigned long long)weight);
		return -1;
	}
	if ((cap->n > 0 ? cap->tree[1] : INFINITY) != least) {
		xasprintf(cause, "least headroom %g, a recount says %g",
		    cap->n > 0 ? cap->tree[1] : INFINITY, least);
		return -1;
	}
	return 0;
}

/* Answer at once (refusals and no-ops). */
static void mon_capacity_now(mon_done_cb *done, void *arg, int rc,
    const char *fmt, ...) printflike(4, 5);

static void
mon_capacity_now(mon_done_cb *done, void *arg, int rc, const char *fmt, ...)
{
	va_list ap;
	char *status;

	va_start(ap, fmt);
	xvasprintf(&status, fmt, ap);
	va_end(ap);
	done(arg, rc, status, NULL);
	free(status);
}

void
mon_osd_set_ratio(struct mon *m, enum mon_ratio which, double ratio,
    mon_done_cb *done, void *arg)
{
	static const char *const names[] = {
		[MON_RATIO_FULL] = "full",
		[MON_RATIO_BACKFILLFULL] = "backfillfull",
		[MON_RATIO_NEARFULL] = "nearfull",
	};
	double r[3], was;
	char status[96];

	if ((unsigned)which >= nitems(names)) {
		mon_capacity_now(done, arg, -EINVAL, "no such ratio");
		return;
	}
	if (!(ratio >= 0.0 && ratio <= 1.0)) {
		mon_capacity_now(done, arg, -EINVAL,
		    "%s_ratio %g out of "
		    "range: give a value from 0 to 1",
		    names[which], ratio);
		return;
	}
	r[MON_RATIO_FULL] = m->work.full_ratio;
	r[MON_RATIO_BACKFILLFULL] = m->work.backfillfull_ratio;
	r[MON_RATIO_NEARFULL] = m->work.nearfull_ratio;
	was = r[which];
	if (was == ratio) {
		mon_capacity_now(done, arg, 0, "%s_ratio is already %g",
		    names[which], ratio);
		return;
	}
	r[which] = ratio;
	if (!(r[MON_RATIO_NEARFULL] <= r[MON_RATIO_BACKFILLFULL] &&
		r[MON_RATIO_BACKFILLFULL] <= r[MON_RATIO_FULL])) {
		mon_capacity_now(done, arg, -EINVAL,
		    "%s_ratio %g refused: "
		    "the ratios must be nearfull_ratio <= backfillfull_ratio "
		    "<= full_ratio, and would be %g, %g, %g",
		    names[which], ratio, r[MON_RATIO_NEARFULL],
		    r[MON_RATIO_BACKFILLFULL], r[MON_RATIO_FULL]);
		return;
	}
	mon_stage_ratios(m, which == MON_RATIO_FULL ? ratio : -1,
	    which == MON_RATIO_BACKFILLFULL ? ratio : -1,
	    which == MON_RATIO_NEARFULL ? ratio : -1);
	mon_stage_log(m, MON_LOG_INFO, "%s_ratio changed from %g to %g",
	    names[which], was, ratio);
	/* Ceph's answer: the command and the value. */
	snprintf(status, sizeof status, "osd set-%s-ratio %g", names[which],
	    ratio);
	mon_stage_done(m, done, arg, status, NULL);
}

/* `df': Ceph's PGMap::dump_cluster_stats() and dump_pool_stats_full(). */
json_t *
mon_df_json(struct mon *m)
{
	const struct statfs_osd *s = &m->cap.sum;
	const struct osdmap_pool *op;
	const struct pgmap_pool *pp;
	json_t *pools = json_array();
	uint64_t raw_avail = mon_capacity_raw_avail(m), raw_used, stored;
	uint64_t objects, used;
	double pct;
	size_t i;

	raw_used = s->total - s->avail;
	for (i = 0; i < m->osdmap.npools; i++) {
		op = &m->osdmap.pools[i];
		pp = pgmap_pool(&m->pgmap, op->id);
		stored = pp != NULL ? pp->sums.num_bytes : 0;
		objects = pp != NULL ? pp->sums.num_objects : 0;
		/* A replicated pool uses size copies of what it stores. */
		used = stored * op->size;
		if (raw_avail > 0)
			pct = (double)used / ((double)used + (double)raw_avail);
		else
			pct = used > 0 ? 1.0 : 0.0;
		json_array_append_new(pools,
		    json_pack("{s:s, s:I, s:I, "
			      "s:{s:I, s:I, s:I, s:I, s:f, s:I}}",
			"name", op->name, "id", (json_int_t)op->id, "pgs",
			(json_int_t)op->pg_num, "stats", "stored",
			(json_int_t)stored, "objects", (json_int_t)objects,
			"kb_used", (json_int_t)((used + 1023) / 1024),
			"bytes_used", (json_int_t)used, "percent_used", pct,
			"max_avail", (json_int_t)(raw_avail / op->size)));
	}
	return json_pack("{s:{s:I, s:I, s:I, s:I, s:f, s:I}, s:{}, s:o}",
	    "stats", "total_bytes", (json_int_t)s->total, "total_avail_bytes",
	    (json_int_t)s->avail, "total_used_bytes", (json_int_t)s->used,
	    "total_used_raw_bytes", (json_int_t)raw_used,
	    "total_used_raw_ratio",
	    s->total ? (double)raw_used / (double)s->total : 0.0, "num_osds",
	    (json_int_t)m->cap.num_osds, "stats_by_class", "pools", pools);
}

/* One OSD's row of `osd df', in KiB as Ceph's: zero when not counted. */
struct mon_osd_df_row {
	int64_t kb, kb_used, kb_data, kb_omap, kb_meta, kb_avail;
	double util;
};

static void
mon_osd_df_row(const struct mon *m, uint32_t k, struct mon_osd_df_row *r)
{
	const struct statfs_osd *st;

	memset(r, 0, sizeof *r);
	if (k >= m->cap.n || !m->cap.osd[k].counted)
		return;
	st = &m->cap.osd[k].sums;
	r->kb = (int64_t)(st->total >> 10);
	r->kb_used = (int64_t)((st->total - st->avail) >> 10);
	r->kb_data = (int64_t)(st->data >> 10);
	r->kb_omap = (int64_t)(st->omap >> 10);
	r->kb_meta = (int64_t)(st->meta >> 10);
	r->kb_avail = (int64_t)(st->avail >> 10);
	if (r->kb > 0 && r->kb_used > 0)
		r->util = 100.0 * (double)r->kb_used / (double)r->kb;
}

/* `osd df': Ceph's OSDUtilizationDumper, for a map without a tree. */
json_t *
mon_osd_df_json(struct mon *m)
{
	const struct osdmap *om = &m->osdmap;
	const struct osdmap_osd *o;
	struct mon_osd_df_row r, t;
	json_t *nodes = json_array();
	double avg, var, reweight, min_var = -1, max_var = -1, dev = 0;
	double wsum = 0;
	int64_t kb = 0, kb_used = 0;
	uint32_t k, pgs;
	char name[32];

	/* The average over the OSDs in, as Ceph's average_utilization(). */
	for (k = 0; k < om->max_osd; k++) {
		o = &om->osds[k];
		if (!o->exists || !o->in || o->reweight == 0)
			continue;
		mon_osd_df_row(m, k, &r);
		kb += r.kb;
		kb_used += r.kb_used;
	}
	avg = kb > 0 ? 100.0 * (double)kb_used / (double)kb : 0;
	memset(&t, 0, sizeof t);
	for (k = 0; k < om->max_osd; k++) {
		o = &om->osds[k];
		if (!o->exists)
			continue;
		mon_osd_df_row(m, k, &r);
		t.kb += r.kb;
		t.kb_used += r.kb_used;
		t.kb_data += r.kb_data;
		t.kb_omap += r.kb_omap;
		t.kb_meta += r.kb_meta;
		t.kb_avail += r.kb_avail;
		reweight = o->in ? osdmap_weight_to_double(o->reweight) : 0;
		var = avg > 0 ? r.util / avg : 1.0;
		if (reweight > 0) {
			if (min_var < 0 || var < min_var)
				min_var = var;
			if (max_var < 0 || var > max_var)
				max_var = var;
			dev += reweight * (r.util - avg) * (r.util - avg);
			wsum += reweight;
		}
		pgs = k < m->pgmap.nosds ? m->pgmap.osd[k].pgs : 0;
		snprintf(name, sizeof name, "osd.%u", k);
		json_array_append_new(nodes,
		    json_pack("{s:i, s:s, s:s, s:i, "
			      "s:f, s:i, s:f, s:I, s:I, s:I, s:I, s:I, s:I, "
			      "s:f, s:f, "
			      "s:I, s:s}",
			"id", (int)k, "name", name, "type", "osd", "type_id", 0,
			"crush_weight", osdmap_weight_to_double(o->weight),
			"depth", 0, "reweight", reweight, "kb",
			(json_int_t)r.kb, "kb_used", (json_int_t)r.kb_used,
			"kb_used_data", (json_int_t)r.kb_data, "kb_used_omap",
			(json_int_t)r.kb_omap, "kb_used_meta",
			(json_int_t)r.kb_meta, "kb_avail",
			(json_int_t)r.kb_avail, "utilization", r.util, "var",
			var, "pgs", (json_int_t)pgs, "status",
			o->up ? "up" : "down"));
	}
	return json_pack("{s:o, s:[], s:{s:I, s:I, s:I, s:I, s:I, s:I, s:f, "
			 "s:f, s:f, s:f}}",
	    "nodes", nodes, "stray", "summary", "total_kb", (json_int_t)t.kb,
	    "total_kb_used", (json_int_t)t.kb_used, "total_kb_used_data",
	    (json_int_t)t.kb_data, "total_kb_used_omap", (json_int_t)t.kb_omap,
	    "total_kb_used_meta", (json_int_t)t.kb_meta, "total_kb_avail",
	    (json_int_t)t.kb_avail, "average_utilization", avg, "min_var",
	    min_var, "max_var", max_var, "dev",
	    wsum > 0 ? sqrt(dev / wsum) : 0.0);
}
