/*
 * mon_health.c: the health checks: state in, checks out.
 *
 * One table, a row per check: its code (Ceph's), its severity, and the
 * evaluator that reads the monitor's state and says whether the check is
 * raised, with its summary, count and detail lines.  The checks come from
 * the committed state and the derived figures (never a scan of every PG,
 * except for `health detail`'s PG lines), so they are cheap enough to
 * evaluate after every commit.  Nothing here changes the monitor: what a
 * change of health logs is staged by the caller (mon_stage_health()).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "common/bytes.h"
#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/mon_priv.h"
#include "mon/mon_quorum.h"

#define MON_HEALTH_DETAIL_MAX 50

/* PGs not active: inactive (incl. creating), stale, down, incomplete... */
#define MON_PG_UNAVAILABLE (PG_STATE_STALE | PG_STATE_DOWN | \
    PG_STATE_INCOMPLETE | PG_STATE_UNKNOWN)

static const char *const mon_health_names[] = {
	[MON_HEALTH_OK] = "HEALTH_OK",
	[MON_HEALTH_WARN] = "HEALTH_WARN",
	[MON_HEALTH_ERR] = "HEALTH_ERR",
};

/* What the evaluators read: the monitor, and its PGs counted by state. */
struct mon_health_in {
	const struct mon *m;
	int detail;			/* list the PGs (`health detail') */
	uint64_t inactive, stale, down, incomplete, peering;
	uint64_t unavailable; /* in any of the states above */
	uint64_t degraded, undersized;
	uint64_t inconsistent;
	int64_t now; /* for the details' spans */
};

/*
 * A check's evaluator: 1 when the check is raised, with c's summary, count
 * and detail lines filled; 0 when it is clear, with nothing allocated.
 */
typedef int mon_health_eval_fn(const struct mon_health_in *,
    struct mon_health_check *c);

static void
mon_health_summary(struct mon_health_check *c, const char *fmt, ...)
    printflike(2, 3);

static void
mon_health_summary(struct mon_health_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xvasprintf(&c->summary, fmt, ap);
	va_end(ap);
}

static void
mon_health_detail(struct mon_health_check *c, const char *fmt, ...)
    printflike(2, 3);

static void
mon_health_detail(struct mon_health_check *c, const char *fmt, ...)
{
	va_list ap;

	c->detail = xreallocarray(c->detail, c->ndetail + 1,
	    sizeof *c->detail);
	va_start(ap, fmt);
	xvasprintf(&c->detail[c->ndetail++], fmt, ap);
	va_end(ap);
}

static int
mon_health_unavailable_state(uint32_t state)
{
	return !(state & PG_STATE_ACTIVE) || (state & MON_PG_UNAVAILABLE);
}

/* "[0,1,2]", as Ceph's pg_vector_string(). */
static void
mon_health_osds(char *buf, size_t len, const int32_t *osds, uint8_t n)
{
	size_t off;
	uint8_t i;

	snprintf(buf, len, "[");
	for (i = 0; i < n && i < PLACEMENT_MAX_SIZE; i++) {
		off = strlen(buf);
		snprintf(buf + off, len - off, "%s%d", i ? "," : "", osds[i]);
	}
	off = strlen(buf);
	snprintf(buf + off, len - off, "]");
}

/*
 * A PG's line as Ceph's PGMap::get_health_checks() writes it: stuck in
 * what since `since' ("pg 1.0 is stuck stale for 61s, current state
 * stale+active+clean, last acting [0,1,2]"; "since forever" for a stamp
 * of 0), or, with what NULL, in its state ("pg 1.0 is down, acting
 * [0]", and its unfound objects).
 */
static void
mon_health_pg_line(const struct mon_health_in *in, struct mon_health_check *c,
    const struct pg_stat *st, const char *what, int64_t since)
{
	const struct osdmap_pool *p;
	char id[PG_ID_BUFSIZE], state[PG_STATE_BUFSIZE], osds[96], span[32];
	char tail[320] = "";

	if (c == NULL)
		return; /* only counted, past the lines shown */
	pg_id_format(st->pgid, id, sizeof id);
	pg_state_format(st->state, state, sizeof state);
	mon_health_osds(osds, sizeof osds, st->acting, st->acting_len);
	if (what != NULL) {
		if (since == 0)
			snprintf(span, sizeof span, "since forever");
		else {
			memcpy(span, "for ", 4);
			stamp_span_format(in->now - since, span + 4,
			    sizeof span - 4);
		}
		mon_health_detail(c,
		    "pg %s is stuck %s %s, current state %s, "
		    "last acting %s",
		    id, what, span, state, osds);
		return;
	}
	if (st->num_objects_unfound > 0)
		snprintf(tail, sizeof tail, ", %lld unfound",
		    (long long)st->num_objects_unfound);
	if ((st->state & PG_STATE_INCOMPLETE) &&
	    (p = osdmap_pool(&in->m->osdmap, st->pgid.pool)) != NULL &&
	    p->min_size > 1)
		snprintf(tail + strlen(tail), sizeof tail - strlen(tail),
		    " (reducing pool %s min_size from %u may help; search "
		    "ceph.com/docs for 'incomplete')",
		    p->name, p->min_size);
	mon_health_detail(c, "pg %s is %s, acting %s%s", id, state, osds, tail);
}

/*
 * A check's line for one PG, when it is the check's: Ceph writes the line
 * of the PG's last state in its order of states (stale over incomplete
 * over peering over down over inactive, undersized over degraded).
 */
typedef int mon_health_pg_fn(const struct mon_health_in *,
    struct mon_health_check *, const struct pg_stat *);

static int
mon_health_pg_unavailable(const struct mon_health_in *in,
    struct mon_health_check *c, const struct pg_stat *st)
{
	uint32_t s = st->state;

	if (s & PG_STATE_STALE)
		mon_health_pg_line(in, c, st, "stale", st->last_unstale);
	else if (s & PG_STATE_INCOMPLETE)
		mon_health_pg_line(in, c, st, NULL, 0);
	else if (s & PG_STATE_PEERING)
		mon_health_pg_line(in, c, st, "peering",
		    st->last_active > st->last_peered ? st->last_active :
							st->last_peered);
	else if (s & PG_STATE_DOWN)
		mon_health_pg_line(in, c, st, NULL, 0);
	else if (!(s & PG_STATE_ACTIVE) || (s & PG_STATE_UNKNOWN))
		mon_health_pg_line(in, c, st, "inactive", st->last_active);
	else
		return 0;
	return 1;
}

static int
mon_health_pg_degraded_line(const struct mon_health_in *in,
    struct mon_health_check *c, const struct pg_stat *st)
{
	if (st->state & PG_STATE_UNDERSIZED)
		mon_health_pg_line(in, c, st, "undersized", st->last_fullsized);
	else if (st->state & PG_STATE_DEGRADED)
		mon_health_pg_line(in, c, st, NULL, 0);
	else
		return 0;
	return 1;
}

static int
mon_health_pg_damaged_line(const struct mon_health_in *in,
    struct mon_health_check *c, const struct pg_stat *st)
{
	if (!(st->state & PG_STATE_INCONSISTENT))
		return 0;
	mon_health_pg_line(in, c, st, NULL, 0);
	return 1;
}

/* Up to MON_HEALTH_DETAIL_MAX PG lines for a check, then a count. */
static void
mon_health_pg_lines(const struct mon_health_in *in, struct mon_health_check *c,
    mon_health_pg_fn *line)
{
	const struct mon *m = in->m;
	const struct pgmap_pool *pp;
	size_t i, more = 0;
	uint32_t s;

	for (i = 0; i < m->pgmap.npools; i++) {
		pp = &m->pgmap.pools[i];
		for (s = 0; s < pp->pg_num; s++) {
			if (c->ndetail >= MON_HEALTH_DETAIL_MAX) {
				if (line(in, NULL, &pp->pgs[s]))
					more++;
				continue;
			}
			line(in, c, &pp->pgs[s]);
		}
	}
	if (more > 0)
		mon_health_detail(c, "... and %zu more pgs", more);
}

/* The PGs by state, from the derived figures. */
static void
mon_health_count_pgs(struct mon_health_in *in)
{
	const struct pgmap *pm = &in->m->pgmap;
	size_t i;

	for (i = 0; i < pm->nstates; i++) {
		uint32_t st = pm->states[i].state;
		uint64_t cnt = pm->states[i].count;

		if (mon_health_unavailable_state(st)) {
			in->unavailable += cnt;
			if (!(st & PG_STATE_ACTIVE) || (st & PG_STATE_UNKNOWN))
				in->inactive += cnt;
			if (st & PG_STATE_STALE)
				in->stale += cnt;
			if (st & PG_STATE_DOWN)
				in->down += cnt;
			if (st & PG_STATE_INCOMPLETE)
				in->incomplete += cnt;
			if (st & PG_STATE_PEERING)
				in->peering += cnt;
		}
		if (st & PG_STATE_DEGRADED)
			in->degraded += cnt;
		if (st & PG_STATE_UNDERSIZED)
			in->undersized += cnt;
		if (st & PG_STATE_INCONSISTENT)
			in->inconsistent += cnt;
	}
}

/*
 * OSDMAP_FLAGS, as Ceph raises it: "noout,nodown flag(s) set".  With
 * nodown, the detail lists the OSDs it keeps up that the failure reports
 * would mark down (their reports are kept, mapmond(8) "LIVENESS").
 */
static int
mon_health_osdmap_flags(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	const struct mon *m = in->m;
	uint32_t flags = m->osdmap.flags & OSDMAP_FLAGS_ALL, f;
	int64_t now = stamp_mono();
	char text[64], why[192];
	uint32_t n;
	size_t i;

	if (flags == 0)
		return 0;
	for (f = flags; f != 0; f &= f - 1)
		c->count++;
	mon_health_summary(c, "%s flag(s) set",
	    osdmap_flags_format(flags, text, sizeof text));
	if (!(flags & OSDMAP_FLAG_NODOWN))
		return 1;
	for (i = 0; i < m->nfailing; i++) {
		n = mon_live_describe(m, m->failing[i], now, why, sizeof why);
		if ((int64_t)n < m->params.osd_min_down_reporters)
			continue;
		mon_health_detail(c,
		    "osd.%d is kept up by nodown: reported failed by %s",
		    m->failing[i], why);
	}
	return 1;
}

static int
mon_health_osd_down(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	const struct mon *m = in->m;
	const struct osdmap *om = &m->osdmap;
	const struct osdmap_osd *o;
	char since[STAMP_BUFSIZE];
	const char *why;
	uint32_t k;

	for (k = 0; k < om->max_osd; k++) {
		o = &om->osds[k];
		if (!o->exists || o->up || !o->in)
			continue;
		c->count++;
		if (o->down_stamp == 0) {
			mon_health_detail(c, "osd.%u is down", k);
			continue;
		}
		/* To the second: "2026-12-02T00:10:11". */
		stamp_format(o->down_stamp, since, sizeof since);
		since[19] = '\0';
		why = k < m->nlive ? m->live[k].down_why : NULL;
		if (why != NULL)
			mon_health_detail(c, "osd.%u is down since %s (%s)", k,
			    since, why);
		else
			mon_health_detail(c, "osd.%u is down since %s", k,
			    since);
	}
	if (c->count == 0)
		return 0;
	mon_health_summary(c, "%u osds down", (unsigned)c->count);
	return 1;
}

/*
 * OSD_<TYPE>_DOWN (OSD_HOST_DOWN, OSD_RACK_DOWN, ..., OSD_ROOT_DOWN), as
 * Ceph's OSDMap::check_health raises them: a bucket is down when every OSD
 * under it is down (one at least); it is reported when an OSD in and down
 * lies under it or under a down bucket above it, so a host of OSDs all out
 * and down beside up hosts says nothing.  Summary "2 hosts (4 osds) down";
 * detail "host h1 (root=default) (2 osds) is down", the location left out
 * for the top type, buckets in Ceph's order (ids from -1 down).
 */
struct mon_subtree {
	uint32_t osds, down, down_in; /* OSDs under it, and of them */
	int reported;
};

static void
mon_subtree_count(const struct crush *cr, const struct osdmap *om, int32_t id,
    struct mon_subtree *st, size_t nst)
{
	struct crush_bucket_info bi;
	struct mon_subtree *me = &st[-(id + 1)];
	const struct osdmap_osd *o;
	size_t i;
	int32_t item;

	if (crush_bucket_get(cr, id, &bi) != 0)
		return;
	for (i = 0; i < bi.nitems; i++) {
		item = bi.items[i];
		if (item < 0) {
			if ((size_t) - (item + 1) >= nst)
				continue;
			mon_subtree_count(cr, om, item, st, nst);
			me->osds += st[-(item + 1)].osds;
			me->down += st[-(item + 1)].down;
			me->down_in += st[-(item + 1)].down_in;
			continue;
		}
		me->osds++;
		o = (uint32_t)item < om->max_osd ? &om->osds[item] : NULL;
		/* One crush knows but the osdmap does not is down too. */
		if (o == NULL || !o->exists || !o->up) {
			me->down++;
			if (o != NULL && o->exists && o->in)
				me->down_in++;
		}
	}
}

static void
mon_subtree_report(const struct crush *cr, int32_t id, int above,
    struct mon_subtree *st, size_t nst)
{
	struct crush_bucket_info bi;
	struct mon_subtree *me = &st[-(id + 1)];
	size_t i;

	if (crush_bucket_get(cr, id, &bi) != 0)
		return;
	me->reported = me->osds > 0 && me->down == me->osds &&
	    (above || me->down_in > 0);
	for (i = 0; i < bi.nitems; i++)
		if (bi.items[i] < 0 && (size_t) - (bi.items[i] + 1) < nst)
			mon_subtree_report(cr, bi.items[i], me->reported, st,
			    nst);
}

/* "root=default,rack=r1": where bucket id sits, from the top down. */
static void
mon_subtree_location(const struct crush *cr, int32_t id, char *buf, size_t len)
{
	struct crush_bucket_info bi;
	int32_t chain[32];
	size_t n = 0, off = 0;

	buf[0] = '\0';
	while (n < nitems(chain) && crush_bucket_get(cr, id, &bi) == 0 &&
	    bi.parent != 0) {
		chain[n++] = bi.parent;
		id = bi.parent;
	}
	while (n > 0 && off < len) {
		if (crush_bucket_get(cr, chain[--n], &bi) != 0)
			break;
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
		    off > 0 ? "," : "", crush_type_name(bi.type), bi.name);
	}
}

static int
mon_health_subtree_down(const struct mon_health_in *in,
    struct mon_health_check *c, int type)
{
	const struct osdmap *om = &in->m->osdmap;
	const struct crush *cr = om->crush;
	struct crush_bucket_info bi;
	struct mon_subtree *st;
	int32_t *ids, low = 0;
	size_t nids, nst, i;
	uint32_t k, nbuckets = 0, nosds = 0;
	char where[256];
	int any = 0;

	if (cr == NULL)
		return 0;
	for (k = 0; k < om->max_osd && !any; k++)
		any = om->osds[k].exists && om->osds[k].in && !om->osds[k].up;
	if (!any || (nids = crush_bucket_count(cr)) == 0)
		return 0;
	ids = xcalloc(nids, sizeof *ids);
	nids = crush_bucket_ids(cr, ids, nids);
	for (i = 0; i < nids; i++)
		if (ids[i] < low)
			low = ids[i];
	nst = (size_t) - (int64_t)low;
	st = xcalloc(nst, sizeof *st);
	for (i = 0; i < nids; i++)
		if (crush_bucket_get(cr, ids[i], &bi) == 0 && bi.parent == 0) {
			mon_subtree_count(cr, om, ids[i], st, nst);
			mon_subtree_report(cr, ids[i], 0, st, nst);
		}
	for (i = 0; i < nst; i++) {
		if (!st[i].reported ||
		    crush_bucket_get(cr, -(int32_t)i - 1, &bi) != 0 ||
		    bi.type != type)
			continue;
		nbuckets++;
		nosds += st[i].osds;
		c->count++;
		if (type == CRUSH_TYPE_ROOT) {
			mon_health_detail(c, "%s %s (%u osds) is down",
			    crush_type_name(type), bi.name, st[i].osds);
			continue;
		}
		mon_subtree_location(cr, bi.id, where, sizeof where);
		mon_health_detail(c, "%s %s (%s) (%u osds) is down",
		    crush_type_name(type), bi.name, where, st[i].osds);
	}
	free(st);
	free(ids);
	if (nbuckets == 0)
		return 0;
	mon_health_summary(c, "%u %s%s (%u osds) down", nbuckets,
	    crush_type_name(type), nbuckets > 1 ? "s" : "", nosds);
	return 1;
}

static int
mon_health_host_down(const struct mon_health_in *in, struct mon_health_check *c)
{
	return mon_health_subtree_down(in, c, CRUSH_TYPE_HOST);
}

static int
mon_health_rack_down(const struct mon_health_in *in, struct mon_health_check *c)
{
	return mon_health_subtree_down(in, c, CRUSH_TYPE_RACK);
}

static int
mon_health_room_down(const struct mon_health_in *in, struct mon_health_check *c)
{
	return mon_health_subtree_down(in, c, CRUSH_TYPE_ROOM);
}

static int
mon_health_datacenter_down(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	return mon_health_subtree_down(in, c, CRUSH_TYPE_DATACENTER);
}

static int
mon_health_root_down(const struct mon_health_in *in, struct mon_health_check *c)
{
	return mon_health_subtree_down(in, c, CRUSH_TYPE_ROOT);
}

/*
 * mapmon's part of TOO_FEW_OSDS (mapmond(8), PLACEMENT): OSDs enough, but
 * a pool's rule finds fewer failure domains (hosts, racks) with an OSD up
 * and in than its size, so its PGs are undersized however long one waits.
 */
static int
mon_health_too_few_domains(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	const struct osdmap *om = &in->m->osdmap;
	const struct osdmap_pool *p, *worst = NULL;
	struct crush_rule_info ri;
	long n, worst_n = 0;
	size_t i;

	if (om->crush == NULL)
		return 0;
	for (i = 0; i < om->npools; i++) {
		p = &om->pools[i];
		n = osdmap_place_domains(in->m->placement, p->crush_rule);
		if (n < 0 || (uint64_t)n >= p->size ||
		    crush_rule_get(om->crush, p->crush_rule, &ri) != 0)
			continue;
		c->count++;
		if (worst == NULL || p->size - n > worst->size - worst_n) {
			worst = p;
			worst_n = n;
		}
		mon_health_detail(c,
		    "pool '%s' has size %u but its crush rule "
		    "'%s' finds only %ld %s%s with an osd up and in",
		    p->name, p->size, ri.name, n, crush_type_name(ri.domain),
		    n == 1 ? "" : "s");
	}
	if (worst == NULL)
		return 0;
	crush_rule_get(om->crush, worst->crush_rule, &ri);
	mon_health_summary(c,
	    "crush rule '%s' %s count %ld < pool '%s' size %u", ri.name,
	    crush_type_name(ri.domain), worst_n, worst->name, worst->size);
	return 1;
}

static int
mon_health_too_few_osds(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	const struct osdmap *om = &in->m->osdmap;
	const struct osdmap_pool *worst = NULL;
	unsigned up_in;
	size_t i;

	osdmap_counts(om, NULL, NULL, NULL, &up_in);
	for (i = 0; i < om->npools; i++) {
		if (up_in >= om->pools[i].size)
			continue;
		c->count++;
		if (worst == NULL || om->pools[i].size > worst->size)
			worst = &om->pools[i];
		mon_health_detail(c, "pool '%s' has size %u but only %u osds "
		    "are up and in", om->pools[i].name, om->pools[i].size,
		    up_in);
	}
	/*
	 * Ceph's words ("OSD count 1 < osd_pool_default_size 3"), of the
	 * pool that needs the most OSDs.
	 */
	if (worst != NULL) {
		mon_health_summary(c, "OSD count %u < pool '%s' size %u", up_in,
		    worst->name, worst->size);
		return 1;
	}
	return mon_health_too_few_domains(in, c);
}

/*
 * Append ", N pgs WORD" (", 1 pg WORD") to text when n > 0, as Ceph writes
 * the parts of its PG checks' summaries; the first part has no comma.
 */
static void
mon_health_pg_part(char *text, size_t len, int *first, uint64_t n,
    const char *word)
{
	size_t off = strlen(text);

	if (n == 0 || off >= len)
		return;
	snprintf(text + off, len - off, "%s%llu %s %s", *first ? "" : ", ",
	    (unsigned long long)n, n == 1 ? "pg" : "pgs", word);
	*first = 0;
}

/*
 * The parts in Ceph's order of its state bits (inactive, down, peering,
 * incomplete, stale), the count their sum, as Ceph's.  mapmon raises it at
 * once, where Ceph waits mon_pg_stuck_threshold for the inactive, peering
 * and stale PGs (mapmon(8), "Health").
 */
static int
mon_health_pg_availability(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	char text[256] = "Reduced data availability: ";
	int first = 1;

	if (in->unavailable == 0)
		return 0;
	mon_health_pg_part(text, sizeof text, &first, in->inactive, "inactive");
	mon_health_pg_part(text, sizeof text, &first, in->down, "down");
	mon_health_pg_part(text, sizeof text, &first, in->peering, "peering");
	mon_health_pg_part(text, sizeof text, &first, in->incomplete,
	    "incomplete");
	mon_health_pg_part(text, sizeof text, &first, in->stale, "stale");
	c->count = in->inactive + in->down + in->peering + in->incomplete +
	    in->stale;
	mon_health_summary(c, "%s", text);
	if (in->detail)
		mon_health_pg_lines(in, c, mon_health_pg_unavailable);
	return 1;
}

/*
 * Ceph's summary: the objects degraded when there are some, then the PGs
 * degraded and undersized, each part only when it is not 0.
 */
static int
mon_health_pg_degraded(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	const struct pgmap_sums *sums = &in->m->pgmap.sums;
	uint64_t copies = sums->num_object_copies;
	uint64_t objects = sums->num_objects_degraded;
	char text[256] = "Degraded data redundancy: ";
	int first = 1;

	if (in->degraded == 0 && in->undersized == 0 && objects == 0)
		return 0;
	if (objects > 0) {
		snprintf(text + strlen(text), sizeof text - strlen(text),
		    "%llu/%llu objects degraded (%.3f%%)",
		    (unsigned long long)objects, (unsigned long long)copies,
		    copies ? 100.0 * (double)objects / (double)copies : 0.0);
		first = 0;
	}
	mon_health_pg_part(text, sizeof text, &first, in->degraded, "degraded");
	mon_health_pg_part(text, sizeof text, &first, in->undersized,
	    "undersized");
	c->count = in->degraded + in->undersized;
	mon_health_summary(c, "%s", text);
	if (in->detail)
		mon_health_pg_lines(in, c, mon_health_pg_degraded_line);
	return 1;
}

/* PG_DAMAGED: "Possible data damage: 1 pg inconsistent", as Ceph's. */
static int
mon_health_pg_damaged(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	char text[256] = "Possible data damage: ";
	int first = 1;

	if (in->inconsistent == 0)
		return 0;
	mon_health_pg_part(text, sizeof text, &first, in->inconsistent,
	    "inconsistent");
	c->count = in->inconsistent;
	mon_health_summary(c, "%s", text);
	if (in->detail)
		mon_health_pg_lines(in, c, mon_health_pg_damaged_line);
	return 1;
}

/* OSD_SCRUB_ERRORS: the scrub errors the PGs report, summed. */
static int
mon_health_scrub_errors(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	uint64_t n = in->m->pgmap.sums.num_scrub_errors;

	/* Signed in Ceph: a transient negative sum is no error. */
	if (n == 0 || (int64_t)n < 0)
		return 0;
	c->count = n;
	mon_health_summary(c, "%llu scrub errors", (unsigned long long)n);
	return 1;
}

/* POOL_NO_REDUNDANCY: the pools of size 1, as OSDMap::check_health(). */
static int
mon_health_no_redundancy(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	const struct osdmap *om = &in->m->osdmap;
	size_t i;

	for (i = 0; i < om->npools; i++) {
		if (om->pools[i].size != 1)
			continue;
		c->count++;
		mon_health_detail(c, "pool '%s' has no replicas configured",
		    om->pools[i].name);
	}
	if (c->count == 0)
		return 0;
	mon_health_summary(c, "%u pool(s) have no replicas configured",
	    (unsigned)c->count);
	return 1;
}

/*
 * POOL_APP_NOT_ENABLED: the pools that hold objects and have no
 * application enabled, as Ceph 16's PGMap::get_health_checks() (its
 * "POOL_APP" check: num_objects > 0 and application_metadata empty), with
 * its tip as the last detail line.  O(pools), from the pools' sums.
 */
static int
mon_health_pool_app(const struct mon_health_in *in, struct mon_health_check *c)
{
	const struct osdmap *om = &in->m->osdmap;
	const struct pgmap_pool *pp;
	size_t i;

	for (i = 0; i < om->npools; i++) {
		if (om->pools[i].apps[0][0] != '\0')
			continue;
		pp = pgmap_pool(&in->m->pgmap, om->pools[i].id);
		if (pp == NULL || pp->sums.num_objects == 0)
			continue;
		c->count++;
		mon_health_detail(c, "application not enabled on pool '%s'",
		    om->pools[i].name);
	}
	if (c->count == 0)
		return 0;
	mon_health_summary(c, "%u pool(s) do not have an application enabled",
	    (unsigned)c->count);
	mon_health_detail(c,
	    "use 'ceph osd pool application enable "
	    "<pool-name> <app-name>', where <app-name> is "
	    "'cephfs', 'rbd', 'rgw', or freeform for custom "
	    "applications.");
	return 1;
}

/*
 * OSD_FULL, OSD_BACKFILLFULL, OSD_NEARFULL: Ceph's texts, from the OSDs'
 * fullness kept as beacons come (mon_capacity.h); each OSD in its worst.
 */
static int
mon_health_osd_fullness(const struct mon_health_in *in,
    struct mon_health_check *c, enum mon_full_state state, const char *what,
    const char *is)
{
	const struct mon *m = in->m;
	uint32_t k;

	if ((c->count = m->cap.nstate[state]) == 0)
		return 0;
	mon_health_summary(c, "%u %s osd(s)", (unsigned)c->count, what);
	for (k = 0; k < m->cap.n; k++)
		if (m->cap.osd[k].state == state)
			mon_health_detail(c, "osd.%u is %s", k, is);
	return 1;
}

static int
mon_health_osd_full(const struct mon_health_in *in, struct mon_health_check *c)
{
	return mon_health_osd_fullness(in, c, MON_FULL_FULL, "full", "full");
}

static int
mon_health_osd_backfillfull(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	return mon_health_osd_fullness(in, c, MON_FULL_BACKFILL, "backfillfull",
	    "backfill full");
}

static int
mon_health_osd_nearfull(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	return mon_health_osd_fullness(in, c, MON_FULL_NEAR, "nearfull",
	    "near full");
}

/*
 * POOL_FULL, POOL_BACKFILLFULL, POOL_NEARFULL: as Ceph flags a pool by the
 * worst OSD its rule may place its PGs on.  With one flat rule that is
 * every OSD, so every pool takes the state of the fullest OSD, each pool
 * in one check only.
 */
static int
mon_health_pool_fullness(const struct mon_health_in *in,
    struct mon_health_check *c, enum mon_full_state state, const char *what,
    const char *is)
{
	const struct mon *m = in->m;
	const struct osdmap *om = &m->osdmap;
	int s;
	size_t i;

	for (s = MON_FULL_STATES - 1; s > MON_FULL_NONE; s--)
		if (m->cap.nstate[s] > 0)
			break;
	if (s != (int)state || om->npools == 0)
		return 0;
	c->count = om->npools;
	mon_health_summary(c, "%zu pool(s) %s", om->npools, what);
	for (i = 0; i < om->npools; i++)
		mon_health_detail(c, "pool '%s' is %s", om->pools[i].name, is);
	return 1;
}

static int
mon_health_pool_full(const struct mon_health_in *in, struct mon_health_check *c)
{
	return mon_health_pool_fullness(in, c, MON_FULL_FULL, "full",
	    "full (no space)");
}

static int
mon_health_pool_backfillfull(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	return mon_health_pool_fullness(in, c, MON_FULL_BACKFILL,
	    "backfillfull", "backfillfull");
}

static int
mon_health_pool_nearfull(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	return mon_health_pool_fullness(in, c, MON_FULL_NEAR, "nearfull",
	    "nearfull");
}

/* Free space in [from, below) percent: MON_DISK_CRIT's, MON_DISK_LOW's. */
static int
mon_health_disk_avail(const struct mon *m, struct mon_health_check *c,
    int64_t from, int64_t below, const char *how)
{
	int64_t pct = (int64_t)m->disk_free_pct;

	if (!m->disk_known || pct < from || pct >= below)
		return 0;
	c->count = 1;
	mon_health_summary(c, "mon %s is %slow on available space",
	    mon_quorum_self_name(m), how);
	mon_health_detail(c, "mon.%s has %llu%% avail", mon_quorum_self_name(m),
	    (unsigned long long)m->disk_free_pct);
	return 1;
}

static int
mon_health_disk_crit(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	return mon_health_disk_avail(in->m, c, INT64_MIN,
	    in->m->params.data_avail_crit, "very ");
}

/* Low, but not critical (MON_DISK_CRIT then). */
static int
mon_health_disk_low(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	return mon_health_disk_avail(in->m, c, in->m->params.data_avail_crit,
	    in->m->params.data_avail_warn, "");
}

static int
mon_health_disk_big(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	const struct mon *m = in->m;
	char used[BYTES_BUFSIZE], warn[BYTES_BUFSIZE];

	if (!m->disk_known ||
	    (int64_t)m->disk_bytes <= m->params.data_size_warn)
		return 0;
	c->count = 1;
	mon_health_summary(c, "mon %s is using a lot of disk space",
	    mon_quorum_self_name(m));
	mon_health_detail(c, "mon.%s is %s >= data_size_warn %s",
	    mon_quorum_self_name(m),
	    bytes_format(m->disk_bytes, used, sizeof used),
	    bytes_format((uint64_t)m->params.data_size_warn, warn,
		sizeof warn));
	return 1;
}

static int
mon_health_store_error(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	const struct mon *m = in->m;

	if (!m->store_error)
		return 0;
	c->count = 1;
	mon_health_summary(c, "the last store commit failed");
	mon_health_detail(c, "%s", m->store_error_text ?
	    m->store_error_text : "unknown error");
	return 1;
}

/*
 * [auth] required off on an address others can reach: anyone may change
 * the maps (mapmond(8), AUTHENTICATION).
 */
static int
mon_health_auth_insecure(const struct mon_health_in *in,
    struct mon_health_check *c)
{
	const struct mon *m = in->m;

	if (!m->params.auth_insecure)
		return 0;
	c->count = 1;
	mon_health_summary(c, "mon %s serves clients without authentication",
	    mon_quorum_self_name(m));
	mon_health_detail(c,
	    "mon.%s: [auth] required is off on a "
	    "non-loopback [mon] bind ([auth] allow_insecure)",
	    mon_quorum_self_name(m));
	return 1;
}

/*
 * Monitors out of quorum, as Ceph's "1/3 mons down, quorum a,b": from the
 * leader's view, which every monitor in quorum serves once replicated
 * (mon_quorum.h); a follower that has not received it raises nothing.
 */
static int
mon_health_mon_down(const struct mon_health_in *in, struct mon_health_check *c)
{
	const struct mon *m = in->m;
	struct mon_quorum_view v;
	char names[MONMAP_MAX_MONS * (MONMAP_NAME_MAX + 1)] = "";
	size_t i, off;

	if (mon_quorum_get_view(m, &v) == -1 || !v.complete ||
	    v.nin >= m->monmap.nmons)
		return 0;
	for (i = 0; i < m->monmap.nmons; i++) {
		if (!v.in[i])
			continue;
		off = strlen(names);
		snprintf(names + off, sizeof names - off, "%s%s",
		    off ? "," : "", m->monmap.mons[i].name);
	}
	c->count = m->monmap.nmons - v.nin;
	mon_health_summary(c, "%zu/%zu mons down, quorum %s",
	    m->monmap.nmons - v.nin, m->monmap.nmons, names);
	for (i = 0; i < m->monmap.nmons; i++)
		if (!v.in[i])
			mon_health_detail(c,
			    "mon.%s (rank %zu) addr %s is down (out of "
			    "quorum)",
			    m->monmap.mons[i].name, i, m->monmap.mons[i].addr);
	return 1;
}

/*
 * Every check, by code: the order they are listed and logged in, as
 * Ceph's health_check_map_t (a std::map) has them.
 */
static const struct {
	const char *code;
	int severity;
	mon_health_eval_fn *eval;
} mon_health_table[] = {
	{ "AUTH_INSECURE", MON_HEALTH_WARN, mon_health_auth_insecure },
	{ "MON_DISK_BIG", MON_HEALTH_WARN, mon_health_disk_big },
	{ "MON_DISK_CRIT", MON_HEALTH_ERR, mon_health_disk_crit },
	{ "MON_DISK_LOW", MON_HEALTH_WARN, mon_health_disk_low },
	{ "MON_DOWN", MON_HEALTH_WARN, mon_health_mon_down },
	{ "OSDMAP_FLAGS", MON_HEALTH_WARN, mon_health_osdmap_flags },
	{ "OSD_BACKFILLFULL", MON_HEALTH_WARN, mon_health_osd_backfillfull },
	{ "OSD_DATACENTER_DOWN", MON_HEALTH_WARN, mon_health_datacenter_down },
	{ "OSD_DOWN", MON_HEALTH_WARN, mon_health_osd_down },
	{ "OSD_FULL", MON_HEALTH_ERR, mon_health_osd_full },
	{ "OSD_HOST_DOWN", MON_HEALTH_WARN, mon_health_host_down },
	{ "OSD_NEARFULL", MON_HEALTH_WARN, mon_health_osd_nearfull },
	{ "OSD_RACK_DOWN", MON_HEALTH_WARN, mon_health_rack_down },
	{ "OSD_ROOM_DOWN", MON_HEALTH_WARN, mon_health_room_down },
	{ "OSD_ROOT_DOWN", MON_HEALTH_WARN, mon_health_root_down },
	{ "OSD_SCRUB_ERRORS", MON_HEALTH_ERR, mon_health_scrub_errors },
	{ "PG_AVAILABILITY", MON_HEALTH_WARN, mon_health_pg_availability },
	{ "PG_DAMAGED", MON_HEALTH_ERR, mon_health_pg_damaged },
	{ "PG_DEGRADED", MON_HEALTH_WARN, mon_health_pg_degraded },
	{ "POOL_APP_NOT_ENABLED", MON_HEALTH_WARN, mon_health_pool_app },
	{ "POOL_BACKFILLFULL", MON_HEALTH_WARN, mon_health_pool_backfillfull },
	{ "POOL_FULL", MON_HEALTH_WARN, mon_health_pool_full },
	{ "POOL_NEARFULL", MON_HEALTH_WARN, mon_health_pool_nearfull },
	{ "POOL_NO_REDUNDANCY", MON_HEALTH_WARN, mon_health_no_redundancy },
	{ "STORE_ERROR", MON_HEALTH_ERR, mon_health_store_error },
	{ "TOO_FEW_OSDS", MON_HEALTH_WARN, mon_health_too_few_osds },
};

void
mon_health_eval(const struct mon *m, int detail,
    struct mon_health_check **out, size_t *nout)
{
	struct mon_health_in in;
	struct mon_health_check *v = NULL, c;
	size_t n = 0, i;

	memset(&in, 0, sizeof in);
	in.m = m;
	in.detail = detail;
	in.now = stamp_now();
	mon_health_count_pgs(&in);
	for (i = 0; i < nitems(mon_health_table); i++) {
		memset(&c, 0, sizeof c);
		snprintf(c.code, sizeof c.code, "%s", mon_health_table[i].code);
		c.severity = mon_health_table[i].severity;
		if (!mon_health_table[i].eval(&in, &c))
			continue;
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = c;
	}
	*out = v;
	*nout = n;
}

void
mon_health_free(struct mon_health_check *v, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		free(v[i].summary);
		for (j = 0; j < v[i].ndetail; j++)
			free(v[i].detail[j]);
		free(v[i].detail);
	}
	free(v);
}

int
mon_health_worst(const struct mon_health_check *v, size_t n)
{
	int worst = MON_HEALTH_OK;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].severity > worst)
			worst = v[i].severity;
	return worst;
}

const struct mon_health_check *
mon_health_find(const struct mon_health_check *v, size_t n, const char *code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].code, code) == 0)
			return &v[i];
	return NULL;
}

int
mon_health_worst_unmuted(const struct mon *m, const struct mon_health_check *v,
    size_t n)
{
	int worst = MON_HEALTH_OK;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].severity > worst &&
		    mon_mute_find(m->mutes, m->nmutes, v[i].code) == NULL)
			worst = v[i].severity;
	return worst;
}

json_t *
mon_health_to_json(const struct mon_health_check *v, size_t n,
    const struct mon_mute *mutes, size_t nmutes, int detail)
{
	json_t *checks, *d, *c, *ma, *mo;
	char stamp[STAMP_BUFSIZE];
	int worst = MON_HEALTH_OK, muted;
	size_t i, j;

	/* Ceph's HealthMonitor::get_health_status(). */
	checks = json_object();
	for (i = 0; i < n; i++) {
		muted = mon_mute_find(mutes, nmutes, v[i].code) != NULL;
		if (!muted && v[i].severity > worst)
			worst = v[i].severity;
		c = json_pack("{s:s, s:{s:s, s:I}}", "severity",
		    mon_health_names[v[i].severity], "summary", "message",
		    v[i].summary, "count", (json_int_t)v[i].count);
		if (detail) {
			d = json_array();
			for (j = 0; j < v[i].ndetail; j++)
				json_array_append_new(d,
				    json_pack("{s:s}", "message",
					v[i].detail[j]));
			json_object_set_new(c, "detail", d);
		}
		json_object_set_new(c, "muted", json_boolean(muted));
		json_object_set_new(checks, v[i].code, c);
	}
	ma = json_array();
	for (i = 0; i < nmutes; i++) {
		mo = json_pack("{s:s}", "code", mutes[i].code);
		if (mutes[i].ttl != 0)
			json_object_set_new(mo, "ttl",
			    json_string(stamp_format(mutes[i].ttl, stamp,
				sizeof stamp)));
		json_object_set_new(mo, "sticky",
		    json_boolean(mutes[i].sticky));
		json_object_set_new(mo, "summary",
		    json_string(
			mutes[i].summary != NULL ? mutes[i].summary : ""));
		json_object_set_new(mo, "count",
		    json_integer((json_int_t)mutes[i].count));
		json_array_append_new(ma, mo);
	}
	return json_pack("{s:s, s:o, s:o}", "status", mon_health_names[worst],
	    "checks", checks, "mutes", ma);
}

/* Free space of the store's filesystem and the store's size. */
void
mon_disk_check(struct mon *m)
{
	struct statvfs sv;
	struct store_stats st;
	char *cause = NULL;

	m->disk_checked_mono = stamp_mono();
	if (statvfs(store_path(m->store), &sv) == -1) {
		log_warn("statvfs %s", store_path(m->store));
		return;
	}
	m->disk_free_pct = sv.f_blocks ? (uint64_t)sv.f_bavail * 100 /
	    sv.f_blocks : 100;
	if (store_stat(m->store, &st, &cause) != 0) {
		log_warnx("store stat: %s", cause ? cause : "failed");
		free(cause);
		return;
	}
	m->disk_bytes = st.disk_bytes;
	store_stats_free(&st);
	m->disk_known = 1;
}
