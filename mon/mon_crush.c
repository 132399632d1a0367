/*
 * mon_crush.c: the placement hierarchy in the monitor (crush.h): its
 * changes, staged copy on write with the osdmap, the upgrade of a map from
 * before it, and where a booting OSD goes (Ceph's
 * osd_crush_update_on_start).  mapmond(8), PLACEMENT, gives the rules.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "mon/mon_priv.h"

struct crush *
mon_crush_edit(struct mon *m)
{
	/*
	 * The working map's hierarchy is shared with the committed map, a
	 * proposal or a placement once sealed: changed on a copy, then.
	 */
	if (m->work.crush == NULL)
		m->work.crush = crush_new_default();
	else if (crush_shared(m->work.crush))
		osdmap_set_crush(&m->work, crush_copy(m->work.crush));
	return m->work.crush;
}

/* The osdmap's copy of an OSD's crush weight, which clients read. */
static uint32_t
mon_crush_weight32(const struct crush *c, int32_t id)
{
	uint64_t w = crush_osd_weight(c, id);

	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

void
mon_stage_crush(struct mon *m)
{
	const struct crush *c = m->work.crush;
	const struct osdmap_osd *o;
	struct osdmap_osd n;
	uint32_t k;

	mon_stage_crush_changed(m);
	/* An OSD's "crush_weight" is its weight in the hierarchy. */
	for (k = 0; k < m->work.max_osd; k++) {
		if ((o = osdmap_osd(&m->work, (int32_t)k)) == NULL ||
		    !crush_osd_exists(c, (int32_t)k) ||
		    o->weight == mon_crush_weight32(c, (int32_t)k))
			continue;
		n = *o;
		n.weight = mon_crush_weight32(c, (int32_t)k);
		mon_stage_osd(m, &n);
	}
}

void
mon_crush_host_of(int32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "host=" MON_CRUSH_HOST_PREFIX "%d", id);
}

/* How many PGs of m's pools an up set of a differs from one of b. */
static uint64_t
mon_crush_moved(const struct osdmap *m, const struct osdmap_place *a,
    const struct osdmap_place *b, uint64_t *total)
{
	int32_t ua[OSDMAP_POOL_SIZE_MAX], ub[OSDMAP_POOL_SIZE_MAX];
	uint64_t moved = 0;
	uint32_t seed;
	size_t i;
	int na, nb;

	*total = 0;
	for (i = 0; i < m->npools; i++) {
		const struct osdmap_pool *p = &m->pools[i];

		for (seed = 0; seed < p->pg_num; seed++) {
			na = osdmap_place_pg(a, p->id, p->crush_rule, seed,
			    p->size, ua);
			nb = osdmap_place_pg(b, p->id, p->crush_rule, seed,
			    p->size, ub);
			moved += na != nb ||
			    memcmp(ua, ub, (size_t)na * sizeof *ua) != 0;
		}
		*total += p->pg_num;
	}
	return moved;
}

void
mon_crush_open(struct mon *m)
{
	struct osdmap after;
	struct osdmap_place *pl;
	struct crush *c;
	char loc[32], *why = NULL;
	const char *locs[1] = { loc };
	uint64_t moved, total;
	uint32_t k, n = 0;

	if (m->work.crush != NULL)
		return;
	/*
	 * A map from before the hierarchy: every OSD goes under root default
	 * at a host of its own, as a location-less boot puts a new OSD, so
	 * that copies stay on distinct OSDs as they were.
	 */
	c = crush_new_default();
	for (k = 0; k < m->work.max_osd; k++) {
		const struct osdmap_osd *o = osdmap_osd(&m->work, (int32_t)k);

		if (o == NULL)
			continue;
		mon_crush_host_of((int32_t)k, loc, sizeof loc);
		if (crush_osd_add(c, (int32_t)k,
			osdmap_weight_to_double(o->weight), locs, 1,
			&why) != 0) {
			/* Cannot be (a fresh map, valid ids): said, skipped. */
			log_warnx(
			    "upgrade: osd.%u stays out of the hierarchy: %s", k,
			    why);
			free(why);
			why = NULL;
			continue;
		}
		n++;
	}
	osdmap_init(&after);
	osdmap_copy(&after, &m->work);
	osdmap_set_crush(&after, crush_hold(c));
	pl = osdmap_place_new(&after);
	moved = mon_crush_moved(&m->work, m->placement, pl, &total);
	osdmap_place_free(pl);
	osdmap_clear(&after);

	osdmap_set_crush(&m->work, c);
	mon_stage_crush(m);
	log_info("osdmap epoch %u has no placement hierarchy: the next epoch "
		 "places %u osds under root %s, one host each",
	    m->work.epoch, n, CRUSH_DEFAULT_ROOT);
	mon_stage_log(m, MON_LOG_INFO,
	    "osdmap upgraded: the placement hierarchy holds %u osds under root "
	    "%s, each at its own host (" MON_CRUSH_HOST_PREFIX "ID), and pools "
	    "use rule %s; %llu of %llu pgs move",
	    n, CRUSH_DEFAULT_ROOT, CRUSH_DEFAULT_RULE,
	    (unsigned long long)moved, (unsigned long long)total);
	mon_stage_propose(m);
}

/*
 * Whether OSD id is at loc already: its parent is the location's lowest
 * bucket and every other bucket named is above it, each of its type.
 * Anything else (a bucket missing, a malformed location) is for the
 * operation to judge.
 */
static int
mon_crush_at(const struct crush *c, int32_t id, const char *const *loc,
    size_t nloc)
{
	struct crush_bucket_info bi;
	int32_t parent = crush_osd_parent(c, id), b, lowest = 0, at;
	int lowtype = 1 << 30, type;
	char tname[CRUSH_NAME_MAX + 1];
	const char *eq;
	size_t i, tl;

	if (parent == 0)
		return 0;
	for (i = 0; i < nloc; i++) {
		if ((eq = strchr(loc[i], '=')) == NULL ||
		    (tl = (size_t)(eq - loc[i])) > CRUSH_NAME_MAX)
			return 0;
		memcpy(tname, loc[i], tl);
		tname[tl] = '\0';
		if ((type = crush_type_id(tname)) <= 0 ||
		    crush_item_id(c, eq + 1, &b) == -1 || b >= 0 ||
		    crush_bucket_get(c, b, &bi) == -1 || bi.type != type)
			return 0;
		/* b must be the parent or above it. */
		for (at = parent; at != 0 && at != b;) {
			if (crush_bucket_get(c, at, &bi) == -1)
				return 0;
			at = bi.parent;
		}
		if (at == 0)
			return 0;
		if (type < lowtype) {
			lowtype = type;
			lowest = b;
		}
	}
	return nloc > 0 && lowest == parent;
}

int
mon_crush_boot(struct mon *m, int32_t id, const char *const *loc, size_t nloc,
    char **note, char **cause)
{
	const struct crush *cur = m->work.crush;
	struct mon_osd_live *l;
	char host[32], where[256];
	const char *def[1] = { host };
	double weight = 1.0;
	size_t i, off = 0;
	int rc;

	*note = NULL;
	if (nloc == 0) {
		/* Where it is: left there; new: at a host of its own. */
		if (cur != NULL && crush_osd_exists(cur, id))
			return 0;
		mon_crush_host_of(id, host, sizeof host);
		loc = def;
		nloc = 1;
	}
	if (cur != NULL && mon_crush_at(cur, id, loc, nloc))
		return 0;
	/* Ceph's initial weight: the store's size in TiB, when known. */
	l = mon_osd_live(m, id);
	if (l->has_statfs && l->statfs.total > 0) {
		weight = (double)l->statfs.total / (double)(1ULL << 40);
		if (weight < 0.00001)
			weight = 0.00001;
	}
	/* The operation changes nothing when it fails (crush.h). */
	rc = crush_osd_create_or_move(mon_crush_edit(m), id, weight, loc, nloc,
	    cause);
	if (rc != 0)
		return rc;
	where[0] = '\0';
	for (i = 0; i < nloc && off < sizeof where; i++)
		off += (size_t)snprintf(where + off, sizeof where - off, "%s%s",
		    i ? " " : "", loc[i]);
	xasprintf(note, "osd.%d at %s", id, where);
	mon_stage_crush(m);
	return 0;
}
