/*
 * mon_query.c: read queries, answered from the committed state in the JSON
 * shapes of mapmon(8) (Ceph's where Ceph has the command).  Summaries come
 * from the derived figures; only listings of PGs walk the PGs, and they
 * write their text a slice at a time (struct mon_pg_walk).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/keys.h"
#include "mon/mon_priv.h"
#include "mon/mon_quorum.h"

static void mon_recovery_json(json_t *o, const struct pgmap_sums *s);
static json_t *mon_stat_sum_json(const struct pgmap_sums *s);

/* The most PGs first, as Ceph's print_summary() lists them. */
static int
mon_state_by_count_cmp(const void *a, const void *b)
{
	const struct pgmap_state_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->state < y->state ? -1 : x->state > y->state;
}

static json_t *
mon_pgs_by_state_json(const struct pgmap *pm)
{
	struct pgmap_state_count *byst;
	json_t *a = json_array();
	char name[PG_STATE_BUFSIZE];
	size_t i;

	byst = xcalloc(pm->nstates ? pm->nstates : 1, sizeof *byst);
	if (pm->nstates > 0)
		memcpy(byst, pm->states, pm->nstates * sizeof *byst);
	qsort(byst, pm->nstates, sizeof *byst, mon_state_by_count_cmp);
	for (i = 0; i < pm->nstates; i++) {
		pg_state_format(byst[i].state, name, sizeof name);
		json_array_append_new(a,
		    json_pack("{s:s, s:I}", "state_name", name, "count",
			(json_int_t)byst[i].count));
	}
	free(byst);
	return a;
}

json_t *
mon_health_json(struct mon *m, int detail)
{
	struct mon_health_check *v;
	json_t *j;
	size_t n;

	/* The details list single PGs: counts and list from one commit. */
	if (detail)
		mon_settle(m);
	mon_health_eval(m, detail, &v, &n);
	j = mon_health_to_json(v, n, m->mutes, m->nmutes, detail);
	mon_health_free(v, n);
	return j;
}

int
mon_health_status(struct mon *m)
{
	struct mon_health_check *v;
	size_t n;
	int worst;

	mon_health_eval(m, 0, &v, &n);
	worst = mon_health_worst_unmuted(m, v, n);
	mon_health_free(v, n);
	return worst;
}

/* `status' but its usage, which mon_status_json() adds. */
static json_t *
mon_status_maps_json(struct mon *m)
{
	const struct osdmap *om = &m->osdmap;
	const struct pgmap *pm = &m->pgmap;
	unsigned num, up, in;
	char flags[64];

	osdmap_counts(om, &num, &up, &in, NULL);
	return json_pack("{s:s, s:o, s:{s:I, s:I, s:[s]}, "
	    "s:{s:I, s:I, s:I, s:I, s:s}, "
	    "s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}}",
	    "fsid", m->monmap.fsid,
	    "health", mon_health_json(m, 0),
	    "monmap", "epoch", (json_int_t)m->monmap.epoch,
	    "num_mons", (json_int_t)m->monmap.nmons,
	    "quorum_names", m->monmap.mons[0].name,
	    "osdmap", "epoch", (json_int_t)om->epoch,
	    "num_osds", (json_int_t)num, "num_up_osds", (json_int_t)up,
	    "num_in_osds", (json_int_t)in,
	    "flags", osdmap_flags_format(om->flags, flags, sizeof flags),
	    "pgmap", "version", (json_int_t)pm->version,
	    "num_pgs", (json_int_t)pm->sums.num_pgs,
	    "num_pools", (json_int_t)om->npools,
	    "num_objects", (json_int_t)pm->sums.num_objects,
	    "data_bytes", (json_int_t)pm->sums.num_bytes,
	    "degraded_objects", (json_int_t)pm->sums.num_objects_degraded,
	    "misplaced_objects", (json_int_t)pm->sums.num_objects_misplaced,
	    "unfound_objects", (json_int_t)pm->sums.num_objects_unfound,
	    "pgs_by_state", mon_pgs_by_state_json(pm));
}

json_t *
mon_status_json(struct mon *m)
{
	json_t *st = mon_status_maps_json(m);
	json_t *pg = json_object_get(st, "pgmap"), *q, *names;
	const struct statfs_osd *sum = &m->cap.sum;
	const struct pgmap_sums *s = &m->pgmap.sums;
	uint64_t unknown = 0, inactive = 0;
	size_t i;

	/*
	 * Ceph's quorum: every monitor of the monmap (one, elected from its
	 * start, mapmond(8): election epoch 1, as an odd epoch is a settled
	 * one), and how long it has stood.
	 */
	q = json_array();
	names = json_array();
	for (i = 0; i < m->monmap.nmons; i++) {
		json_array_append_new(q, json_integer((json_int_t)i));
		json_array_append_new(names,
		    json_string(m->monmap.mons[i].name));
	}
	json_object_set_new(st, "election_epoch", json_integer(1));
	json_object_set_new(st, "quorum", q);
	json_object_set_new(st, "quorum_names", names);
	json_object_set_new(st, "quorum_age",
	    json_integer(
		(json_int_t)((stamp_mono() - m->start_mono) / 1000000)));
	mon_quorum_status(m, st);

	/* Ceph's usage line: the raw use of what the OSDs' beacons said. */
	json_object_set_new(pg, "bytes_used",
	    json_integer((json_int_t)(sum->total - sum->avail)));
	json_object_set_new(pg, "bytes_avail",
	    json_integer((json_int_t)sum->avail));
	json_object_set_new(pg, "bytes_total",
	    json_integer((json_int_t)sum->total));
	/* And its ratios, each only when not 0, as print_summary(). */
	for (i = 0; i < m->pgmap.nstates; i++) {
		if (m->pgmap.states[i].state == 0 ||
		    (m->pgmap.states[i].state & PG_STATE_UNKNOWN))
			unknown += m->pgmap.states[i].count;
		else if (!(m->pgmap.states[i].state & PG_STATE_ACTIVE))
			inactive += m->pgmap.states[i].count;
	}
	if (unknown > 0)
		json_object_set_new(pg, "unknown_pgs_ratio",
		    json_real((double)unknown / (double)s->num_pgs));
	if (inactive > 0)
		json_object_set_new(pg, "inactive_pgs_ratio",
		    json_real((double)inactive / (double)s->num_pgs));
	mon_recovery_json(pg, s);
	return st;
}

json_t *
mon_osd_tree_of_json(const struct osdmap *om, unsigned mask)
{
	return mon_crush_tree_json(om, 1, mask);
}

int
mon_osdmap_at(struct mon *m, uint32_t epoch, struct osdmap *out, char **status)
{
	uint8_t key[KEYS_EPOCH_LEN];
	void *val;
	size_t vlen;
	char *why = NULL;
	int rc;

	if (epoch == 0 || epoch == m->osdmap.epoch) {
		osdmap_copy(out, &m->osdmap);
		return 0;
	}
	if (epoch > m->osdmap.epoch || epoch < m->rec.osdmap_first)
		goto none;
	keys_epoch(key, KEYS_OSDMAP, epoch);
	if ((rc = store_get(m->store, key, sizeof key, &val, &vlen, &why)) !=
	    0) {
		if (rc == STORE_NOTFOUND)
			goto none;
		xasprintf(status, "osdmap epoch %u: %s", epoch,
		    why != NULL ? why : store_strerror(rc));
		free(why);
		return -EIO;
	}
	rc = osdmap_decode(val, vlen, out, &why);
	free(val);
	if (rc != 0) {
		xasprintf(status, "osdmap epoch %u: %s", epoch, why);
		free(why);
		return -EIO;
	}
	return 0;
none:
	xasprintf(status, "there is no map for epoch %u", epoch);
	return -ENOENT;
}

int
mon_osd_find_json(struct mon *m, int32_t id, json_t **out, char **status)
{
	const struct osdmap_osd *o = osdmap_osd(&m->osdmap, id);
	json_t *addrs = json_array();

	if (o == NULL) {
		json_decref(addrs);
		xasprintf(status, "osd.%d does not exist", id);
		return -ENOENT;
	}
	/* Ceph's shape: an address vector, the OSD's uuid (none here). */
	if (o->addr[0] != '\0')
		json_array_append_new(addrs,
		    json_pack("{s:s, s:s, s:i}", "type", "any", "addr", o->addr,
			"nonce", 0));
	*out = json_pack("{s:i, s:{s:o}, s:s, s:o}", "osd", id, "addrs",
	    "addrvec", addrs, "osd_fsid",
	    "00000000-0000-0000-0000-000000000000", "crush_location",
	    mon_crush_location_json(m->osdmap.crush, id));
	xasprintf(status, "osd.%d", id);
	return 0;
}

json_t *
mon_report_json(struct mon *m, const char *const *tags, size_t ntags)
{
	const struct pgmap *pm;
	const struct statfs_osd *cap = &m->cap.sum;
	json_t *r, *quorum, *states, *pools, *osds, *byosd;
	char stamp[STAMP_BUFSIZE], name[256], *tag, *t;
	uint64_t active = 0, unknown = 0;
	unsigned num;
	size_t i;
	uint32_t k;

	/* The PGs' figures of one commit. */
	mon_settle(m);
	pm = &m->pgmap;
	tag = xstrdup("");
	for (i = 0; i < ntags; i++) {
		xasprintf(&t, "%s%s%s", tag, i ? " " : "", tags[i]);
		free(tag);
		tag = t;
	}
	quorum = json_array();
	for (i = 0; i < m->monmap.nmons; i++)
		json_array_append_new(quorum, json_integer((json_int_t)i));
	states = json_array();
	for (i = 0; i < pm->nstates; i++) {
		pg_state_format(pm->states[i].state, name, sizeof name);
		json_array_append_new(states,
		    json_pack("{s:s, s:I}", "state", name, "num",
			(json_int_t)pm->states[i].count));
		if (pm->states[i].state & PG_STATE_ACTIVE)
			active += pm->states[i].count;
		if (pm->states[i].state & PG_STATE_UNKNOWN)
			unknown += pm->states[i].count;
	}
	pools = json_array();
	for (i = 0; i < pm->npools; i++)
		json_array_append_new(pools,
		    json_pack("{s:I, s:I, s:o}", "poolid",
			(json_int_t)pm->pools[i].id, "num_pg",
			(json_int_t)pm->pools[i].pg_num, "stat_sum",
			mon_stat_sum_json(&pm->pools[i].sums)));
	osds = json_array();
	byosd = json_array();
	for (k = 0; k < m->osdmap.max_osd; k++) {
		const struct osdmap_osd *o = &m->osdmap.osds[k];
		uint32_t pgs = k < pm->nosds ? pm->osd[k].pgs : 0;
		uint32_t primary = k < pm->nosds ? pm->osd[k].primary : 0;

		if (!o->exists)
			continue;
		json_array_append_new(osds,
		    json_pack("{s:i, s:i, s:i, s:I, "
			      "s:I}",
			"osd", o->id, "up", (int)o->up, "in", (int)o->in,
			"num_pgs", (json_int_t)pgs, "num_primary_pgs",
			(json_int_t)primary));
		json_array_append_new(byosd,
		    json_pack("{s:i, s:I, s:I, s:I}", "osd", o->id,
			"num_primary_pg", (json_int_t)primary, "num_acting_pg",
			(json_int_t)pgs, "num_up_not_acting_pg",
			(json_int_t)0));
	}
	osdmap_counts(&m->osdmap, &num, NULL, NULL, NULL);
	r = json_pack("{s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:o, s:o, s:o, "
		      "s:I, s:I, s:I, s:I, s:I, s:I}",
	    "cluster_fingerprint", m->monmap.fsid, "version", PACKAGE_VERSION,
	    "timestamp", stamp_format(stamp_now(), stamp, sizeof stamp), "tag",
	    tag, "health", mon_health_json(m, 1), "monmap_first_committed",
	    (json_int_t)m->monmap.epoch, "monmap_last_committed",
	    (json_int_t)m->monmap.epoch, "monmap", monmap_to_json(&m->monmap),
	    "quorum", quorum, "osdmap", osdmap_to_json(&m->osdmap),
	    "osdmap_first_committed", (json_int_t)m->rec.osdmap_first,
	    "osdmap_last_committed", (json_int_t)m->osdmap.epoch, "num_pg",
	    (json_int_t)pm->sums.num_pgs, "num_pg_active", (json_int_t)active,
	    "num_pg_unknown", (json_int_t)unknown, "num_osd", (json_int_t)num);
	free(tag);
	json_object_set_new(r, "pool_sum",
	    json_pack("{s:o, s:I}", "stat_sum", mon_stat_sum_json(&pm->sums),
		"log_size", (json_int_t)pm->sums.log_size));
	json_object_set_new(r, "osd_sum",
	    json_pack("{s:I, s:I, s:I, s:I, "
		      "s:I}",
		"num_osds", (json_int_t)num, "num_pgs",
		(json_int_t)pm->sums.num_pgs, "kb",
		(json_int_t)(cap->total / 1024), "kb_used",
		(json_int_t)((cap->total - cap->avail) / 1024), "kb_avail",
		(json_int_t)(cap->avail / 1024)));
	json_object_set_new(r, "pool_stats", pools);
	json_object_set_new(r, "osd_stats", osds);
	json_object_set_new(r, "num_pg_by_state", states);
	json_object_set_new(r, "num_pg_by_osd", byosd);
	/* As Ceph's: the hierarchy as `osd crush dump' gives it. */
	if (m->osdmap.crush != NULL)
		json_object_set_new(r, "crushmap",
		    crush_to_json(m->osdmap.crush));
	/* mapmon's own: the pgmap's version and what the store keeps. */
	json_object_set_new(r, "pgmap_version",
	    json_integer((json_int_t)pm->version));
	json_object_set_new(r, "pgmap_first_committed",
	    json_integer((json_int_t)m->rec.pgmap_first));
	return r;
}

json_t *
mon_osd_stat_json(struct mon *m)
{
	unsigned num, up, in;
	char flags[64];

	osdmap_counts(&m->osdmap, &num, &up, &in, NULL);
	return json_pack("{s:I, s:I, s:I, s:I, s:s}",
	    "epoch", (json_int_t)m->osdmap.epoch, "num_osds", (json_int_t)num,
	    "num_up_osds", (json_int_t)up, "num_in_osds", (json_int_t)in,
	    "flags", osdmap_flags_format(m->osdmap.flags, flags, sizeof flags));
}

json_t *
mon_pool_ls_json(struct mon *m, int detail)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < m->osdmap.npools; i++)
		json_array_append_new(a, detail ?
		    osdmap_pool_to_json(&m->osdmap.pools[i]) :
		    json_string(m->osdmap.pools[i].name));
	return a;
}

/* Ceph's stat_sum of pgmap sums (object_stat_sum_t::dump()). */
static json_t *
mon_stat_sum_json(const struct pgmap_sums *s)
{
	json_t *o = json_object();

#define MON_SUM_JSON(f)                                                        \
	json_object_set_new(o, #f, json_integer((json_int_t)s->f));
	PGMAP_STAT_SUM_FIELDS(MON_SUM_JSON)
#undef MON_SUM_JSON
	return o;
}

/*
 * Ceph's pool_stat_t::dump() of sums: stat_sum, the logs' sizes and the
 * OSDs of the up and acting sets, summed.
 */
static void
mon_pool_stat_members(json_t *o, const struct pgmap_sums *s)
{
	json_object_set_new(o, "stat_sum", mon_stat_sum_json(s));
	json_object_set_new(o, "log_size",
	    json_integer((json_int_t)s->log_size));
	json_object_set_new(o, "ondisk_log_size",
	    json_integer((json_int_t)s->ondisk_log_size));
	json_object_set_new(o, "up", json_integer((json_int_t)s->up));
	json_object_set_new(o, "acting", json_integer((json_int_t)s->acting));
}

/* One OSD's capacity in KiB and as Ceph's statfs, or zeros. */
static void
mon_osd_stat_members(json_t *o, const struct statfs_osd *st)
{
	json_object_set_new(o, "kb",
	    json_integer((json_int_t)(st->total >> 10)));
	json_object_set_new(o, "kb_used",
	    json_integer((json_int_t)((st->total - st->avail) >> 10)));
	json_object_set_new(o, "kb_used_data",
	    json_integer((json_int_t)(st->data >> 10)));
	json_object_set_new(o, "kb_used_omap",
	    json_integer((json_int_t)(st->omap >> 10)));
	json_object_set_new(o, "kb_used_meta",
	    json_integer((json_int_t)(st->meta >> 10)));
	json_object_set_new(o, "kb_avail",
	    json_integer((json_int_t)(st->avail >> 10)));
	json_object_set_new(o, "statfs",
	    json_pack("{s:I, s:I, s:I, s:I, s:I, "
		      "s:I}",
		"total", (json_int_t)st->total, "available",
		(json_int_t)st->avail, "allocated", (json_int_t)st->used,
		"data_stored", (json_int_t)st->data, "omap_allocated",
		(json_int_t)st->omap, "internal_metadata",
		(json_int_t)st->meta));
}

/* What OSD k counts in the capacity figures (zeros when nothing). */
static const struct statfs_osd *
mon_osd_counted(const struct mon *m, uint32_t k)
{
	static const struct statfs_osd none;

	if (k < m->cap.n && m->cap.osd[k].counted)
		return &m->cap.osd[k].sums;
	return &none;
}

/*
 * Ceph's PGMap::dump_basic(): version, stamp, the epochs, the sums of the
 * PGs and of the OSDs.  mapmon keeps no rates, so no pg_stats_delta.
 */
static json_t *
mon_pg_basic_json(struct mon *m)
{
	char stamp[STAMP_BUFSIZE];
	json_t *o, *pgsum, *osdsum;
	uint32_t k, scan = 0, pgs = 0;
	size_t i;

	/* The last epoch that made PGs: a pool's creation. */
	for (i = 0; i < m->osdmap.npools; i++)
		if (m->osdmap.pools[i].created_epoch > scan)
			scan = m->osdmap.pools[i].created_epoch;
	pgsum = json_object();
	mon_pool_stat_members(pgsum, &m->pgmap.sums);
	json_object_set_new(pgsum, "num_pgs",
	    json_integer((json_int_t)m->pgmap.sums.num_pgs));
	for (k = 0; k < m->pgmap.nosds; k++)
		pgs += m->pgmap.osd[k].pgs;
	osdsum = json_pack("{s:I, s:I}", "num_pgs", (json_int_t)pgs, "num_osds",
	    (json_int_t)m->cap.num_osds);
	mon_osd_stat_members(osdsum, &m->cap.sum);
	o = json_pack("{s:I, s:s, s:I, s:I, s:o, s:o}", "version",
	    (json_int_t)m->pgmap.version, "stamp",
	    stamp_format(m->pgmap.stamp, stamp, sizeof stamp),
	    "last_osdmap_epoch", (json_int_t)m->osdmap.epoch, "last_pg_scan",
	    (json_int_t)scan, "pg_stats_sum", pgsum, "osd_stats_sum", osdsum);
	return o;
}

/* Ceph's PGMap::dump_pool_stats(): "pool_stats". */
static json_t *
mon_pg_pools_json(struct mon *m)
{
	json_t *a = json_array(), *o;
	size_t i;

	for (i = 0; i < m->pgmap.npools; i++) {
		o = json_pack("{s:I, s:I}", "poolid",
		    (json_int_t)m->pgmap.pools[i].id, "num_pg",
		    (json_int_t)m->pgmap.pools[i].pg_num);
		mon_pool_stat_members(o, &m->pgmap.pools[i].sums);
		json_array_append_new(a, o);
	}
	return a;
}

/*
 * Ceph's PGMap::dump_osd_stats(): "osd_stats", an entry per OSD, with
 * mapmon's up, in and num_primary_pgs beside Ceph's keys.
 */
static json_t *
mon_pg_osds_json(struct mon *m)
{
	json_t *a = json_array(), *o;
	const struct osdmap_osd *os;
	uint32_t k, pgs, primary;

	for (k = 0; k < m->osdmap.max_osd; k++) {
		os = &m->osdmap.osds[k];
		if (!os->exists)
			continue;
		pgs = k < m->pgmap.nosds ? m->pgmap.osd[k].pgs : 0;
		primary = k < m->pgmap.nosds ? m->pgmap.osd[k].primary : 0;
		o = json_pack("{s:i, s:I, s:I, s:I}", "osd", os->id, "up_from",
		    (json_int_t)os->up_from, "num_pgs", (json_int_t)pgs,
		    "num_osds", (json_int_t)1);
		mon_osd_stat_members(o, mon_osd_counted(m, k));
		json_object_set_new(o, "up", json_integer(os->up));
		json_object_set_new(o, "in", json_integer(os->in));
		json_object_set_new(o, "num_primary_pgs",
		    json_integer((json_int_t)primary));
		json_array_append_new(a, o);
	}
	return a;
}

/*
 * Ceph's overall_recovery_summary() into o: the degraded, misplaced and
 * unfound objects, their totals and ratios, each only when not 0.
 */
static void
mon_recovery_json(json_t *o, const struct pgmap_sums *s)
{
	uint64_t copies = s->num_object_copies, objects = s->num_objects;

	if (s->num_objects_degraded > 0 && copies > 0) {
		json_object_set_new(o, "degraded_objects",
		    json_integer((json_int_t)s->num_objects_degraded));
		json_object_set_new(o, "degraded_total",
		    json_integer((json_int_t)copies));
		json_object_set_new(o, "degraded_ratio",
		    json_real(
			(double)s->num_objects_degraded / (double)copies));
	}
	if (s->num_objects_misplaced > 0 && copies > 0) {
		json_object_set_new(o, "misplaced_objects",
		    json_integer((json_int_t)s->num_objects_misplaced));
		json_object_set_new(o, "misplaced_total",
		    json_integer((json_int_t)copies));
		json_object_set_new(o, "misplaced_ratio",
		    json_real(
			(double)s->num_objects_misplaced / (double)copies));
	}
	if (s->num_objects_unfound > 0 && objects > 0) {
		json_object_set_new(o, "unfound_objects",
		    json_integer((json_int_t)s->num_objects_unfound));
		json_object_set_new(o, "unfound_total",
		    json_integer((json_int_t)objects));
		json_object_set_new(o, "unfound_ratio",
		    json_real(
			(double)s->num_objects_unfound / (double)objects));
	}
}

/* The PGs by state in the state's numeric order, as Ceph's map holds them. */
static int
mon_state_count_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct pgmap_state_count *)a)->state;
	uint32_t y = ((const struct pgmap_state_count *)b)->state;

	return x < y ? -1 : x > y;
}

json_t *
mon_pg_stat_json(struct mon *m)
{
	const struct pgmap *pm = &m->pgmap;
	const struct statfs_osd *cap = &m->cap.sum;
	struct pgmap_state_count *byst;
	json_t *states = json_array(), *sum, *o;
	char name[PG_STATE_BUFSIZE];
	size_t i;

	byst = xcalloc(pm->nstates ? pm->nstates : 1, sizeof *byst);
	if (pm->nstates > 0)
		memcpy(byst, pm->states, pm->nstates * sizeof *byst);
	qsort(byst, pm->nstates, sizeof *byst, mon_state_count_cmp);
	for (i = 0; i < pm->nstates; i++) {
		pg_state_format(byst[i].state, name, sizeof name);
		json_array_append_new(states,
		    json_pack("{s:s, s:I}", "name", name, "num",
			(json_int_t)byst[i].count));
	}
	free(byst);
	sum = json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:I}",
	    "num_pg_by_state", states, "num_pgs", (json_int_t)pm->sums.num_pgs,
	    "num_bytes", (json_int_t)pm->sums.num_bytes, "total_bytes",
	    (json_int_t)cap->total, "total_avail_bytes", (json_int_t)cap->avail,
	    "total_used_bytes", (json_int_t)cap->used, "total_used_raw_bytes",
	    (json_int_t)(cap->total - cap->avail));
	mon_recovery_json(sum, &pm->sums);
	/* mapmon's figures of before, kept beside Ceph's. */
	o = json_pack("{s:b, s:o, s:I, s:I, s:o, s:I, s:I, s:I, s:I}",
	    "pg_ready", 1, "pg_summary", sum, "version",
	    (json_int_t)pm->version, "num_pgs", (json_int_t)pm->sums.num_pgs,
	    "pgs_by_state", mon_pgs_by_state_json(pm), "num_objects",
	    (json_int_t)pm->sums.num_objects, "data_bytes",
	    (json_int_t)pm->sums.num_bytes, "degraded_objects",
	    (json_int_t)pm->sums.num_objects_degraded, "misplaced_objects",
	    (json_int_t)pm->sums.num_objects_misplaced);
	return o;
}

/*
 * A listing of PGs being written (mon.h): the text of its data before the
 * PGs and after them, a filter, and where it is.
 */
enum mon_walk_kind { MON_WALK_DUMP, MON_WALK_LS, MON_WALK_STUCK };

/* The parts of `pg dump', Ceph's dumpcontents. */
#define MON_DUMP_ALL 0x01
#define MON_DUMP_SUMMARY 0x02
#define MON_DUMP_SUM 0x04
#define MON_DUMP_POOLS 0x08
#define MON_DUMP_OSDS 0x10
#define MON_DUMP_PGS 0x20
#define MON_DUMP_BRIEF 0x40

/* The stuck types of `pg dump_stuck', Ceph's PGMap::STUCK_*. */
#define MON_STUCK_INACTIVE 0x01
#define MON_STUCK_UNCLEAN 0x02
#define MON_STUCK_UNDERSIZED 0x04
#define MON_STUCK_DEGRADED 0x08
#define MON_STUCK_STALE 0x10

static const struct {
	const char *word;
	unsigned bit;
} mon_dump_parts[] = {
	/* In Ceph's "dumped ..." order: a std::set<string>'s. */
	{ "all", MON_DUMP_ALL }, { "osds", MON_DUMP_OSDS },
	{ "pgs", MON_DUMP_PGS }, { "pgs_brief", MON_DUMP_BRIEF },
	{ "pools", MON_DUMP_POOLS }, { "sum", MON_DUMP_SUM },
	{ "summary", MON_DUMP_SUMMARY },
}, mon_stuck_types[] = {
	{ "inactive", MON_STUCK_INACTIVE }, { "unclean", MON_STUCK_UNCLEAN },
	{ "undersized", MON_STUCK_UNDERSIZED },
	{ "degraded", MON_STUCK_DEGRADED }, { "stale", MON_STUCK_STALE },
};

struct mon_pg_walk {
	struct mon *m;
	enum mon_walk_kind kind;
	unsigned parts;	    /* dump: MON_DUMP_* */
	unsigned stuck;	    /* stuck: MON_STUCK_* */
	int brief;	    /* write PGs as dump_brief() */
	int begun;	    /* the text before the PGs is written */
	int pgs;	    /* it lists PGs (not `pg dump summary') */
	char *tail;	    /* the text after the PGs' array, or NULL */
	char *done_status;  /* the status at the end, or NULL */
	int64_t pool;	    /* only this pool; -1: every pool */
	int32_t osd;	    /* in the acting set; -1: any */
	int primary;	    /* osd as the acting primary */
	uint32_t states;    /* any of these; 0 and !unknown: any */
	int unknown;	    /* ls: "unknown" asked (state 0 too) */
	int64_t cutoff;	    /* stuck: since before this stamp */
	uint32_t next_pool; /* the next PG to look at */
	uint32_t next_seed;
	size_t n; /* PGs written */
};

static struct mon_pg_walk *
mon_pg_walk_new(struct mon *m, enum mon_walk_kind kind)
{
	struct mon_pg_walk *w = xcalloc(1, sizeof *w);

	w->m = m;
	w->kind = kind;
	w->pgs = 1;
	w->pool = -1;
	w->osd = -1;
	return w;
}

void
mon_pg_walk_free(struct mon_pg_walk *w)
{
	if (w == NULL)
		return;
	free(w->tail);
	free(w->done_status);
	free(w);
}

int
mon_pg_dump_walk(struct mon *m, const char *const *what, size_t n,
    struct mon_pg_walk **out, char **status)
{
	struct mon_pg_walk *w;
	unsigned parts = 0;
	char *st, *tmp;
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nitems(mon_dump_parts); k++)
			if (strcmp(what[i], mon_dump_parts[k].word) == 0)
				break;
		if (k == nitems(mon_dump_parts)) {
			xasprintf(status,
			    "unknown pg dump part '%.*s': "
			    "expected all, summary, sum, pools, osds, pgs or "
			    "pgs_brief",
			    64, what[i]);
			return -EINVAL;
		}
		parts |= mon_dump_parts[k].bit;
	}
	if (parts == 0)
		parts = MON_DUMP_ALL;
	w = mon_pg_walk_new(m, MON_WALK_DUMP);
	w->parts = parts;
	if (parts & MON_DUMP_ALL)
		w->pgs = 1;
	else if (parts & (MON_DUMP_SUMMARY | MON_DUMP_SUM))
		w->pgs = 0;
	else {
		w->pgs = (parts & (MON_DUMP_PGS | MON_DUMP_BRIEF)) != 0;
		w->brief = !(parts & MON_DUMP_PGS);
	}
	/* Ceph's "dumped pgs,pools": the words asked, in set order. */
	st = xstrdup("dumped ");
	for (k = 0; k < nitems(mon_dump_parts); k++) {
		if (!(parts & mon_dump_parts[k].bit))
			continue;
		xasprintf(&tmp, "%s%s%s", st, st[7] ? "," : "",
		    mon_dump_parts[k].word);
		free(st);
		st = tmp;
	}
	w->done_status = st;
	*out = w;
	return 0;
}

/* The state word of `pg ls', alone (Ceph's pg_string_state()), or -1. */
static int
mon_pg_ls_state(const char *word, uint32_t *bit)
{
	unsigned i;

	for (i = 0; i < PG_STATE_NBITS; i++)
		if (strcmp(word, pg_state_bit_name(i)) == 0) {
			*bit = 1U << i;
			return 0;
		}
	return -1;
}

int
mon_pg_ls_walk(struct mon *m, const struct mon_pg_ls *q,
    struct mon_pg_walk **out, char **status)
{
	const struct osdmap_pool *p = NULL;
	const struct osdmap_osd *o;
	char all[PG_STATE_BUFSIZE], *end;
	uint32_t bit, any = 0;
	int unknown = 0;
	long long id;
	size_t i;

	if (q->pool_id >= 0 && q->pool != NULL) {
		xasprintf(status,
		    "give the pool once: as POOL or as --pool, "
		    "not both");
		return -EINVAL;
	}
	if (q->pool_id >= 0 &&
	    (q->pool_id > UINT32_MAX ||
		(p = osdmap_pool(&m->osdmap, (uint32_t)q->pool_id)) == NULL)) {
		xasprintf(status, "pool %lld does not exist",
		    (long long)q->pool_id);
		return -ENOENT;
	}
	if (q->pool != NULL) {
		if ((p = osdmap_pool_by_name(&m->osdmap, q->pool)) == NULL &&
		    !q->pool_by_name) {
			id = strtoll(q->pool, &end, 10);
			if (*q->pool != '\0' && *end == '\0' && id > 0 &&
			    id <= UINT32_MAX)
				p = osdmap_pool(&m->osdmap, (uint32_t)id);
		}
		if (p == NULL) {
			xasprintf(status, "pool %.*s does not exist", 128,
			    q->pool);
			return -ENOENT;
		}
	}
	if (q->osd >= 0 &&
	    ((o = osdmap_osd(&m->osdmap, q->osd)) == NULL || !o->up)) {
		xasprintf(status, "osd %d is not up", q->osd);
		return -EAGAIN;
	}
	for (i = 0; i < q->nstates; i++) {
		if (mon_pg_ls_state(q->states[i], &bit) == -1) {
			xasprintf(status,
			    "'%.*s' is not a valid pg state, "
			    "available choices: %s",
			    64, q->states[i],
			    pg_state_format(PG_STATE_ALL, all, sizeof all));
			return -EINVAL;
		}
		any |= bit;
		if (bit == PG_STATE_UNKNOWN)
			unknown = 1;
	}
	*out = mon_pg_walk_new(m, MON_WALK_LS);
	if (p != NULL)
		(*out)->pool = p->id;
	(*out)->osd = q->osd;
	(*out)->primary = q->primary;
	(*out)->states = any;
	(*out)->unknown = unknown;
	return 0;
}

int
mon_pg_dump_stuck_walk(struct mon *m, const char *const *what, size_t n,
    int64_t threshold, struct mon_pg_walk **out, char **status)
{
	unsigned types = 0;
	int64_t now;
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nitems(mon_stuck_types); k++)
			if (strcmp(what[i], mon_stuck_types[k].word) == 0)
				break;
		if (k == nitems(mon_stuck_types)) {
			/* Ceph's PGMap::dump_stuck_pg_stats() words. */
			xasprintf(status, "Unknown type: %.*s", 64, what[i]);
			return -EINVAL;
		}
		types |= mon_stuck_types[k].bit;
	}
	if (types == 0)
		types = MON_STUCK_UNCLEAN;
	*out = mon_pg_walk_new(m, MON_WALK_STUCK);
	(*out)->stuck = types;
	(*out)->brief = 0;
	now = stamp_now();
	if (threshold < 0)
		(*out)->cutoff = now - m->params.pg_stuck_threshold_ms * 1000;
	else if (threshold > now / 1000000)
		/* Longer than the clock has run: no PG has been stuck so. */
		(*out)->cutoff = INT64_MIN;
	else
		(*out)->cutoff = now - threshold * 1000000;
	return 0;
}

/* Whether st is in the acting set (as the primary) of the walk's OSD. */
static int
mon_pg_walk_osd(const struct mon_pg_walk *w, const struct pg_stat *st)
{
	unsigned i;

	if (w->primary)
		return st->acting_primary == w->osd;
	for (i = 0; i < st->acting_len && i < PLACEMENT_MAX_SIZE; i++)
		if (st->acting[i] == w->osd)
			return 1;
	return 0;
}

/*
 * Whether st is stuck in one of the walk's types: as Ceph's
 * get_stuck_stats(), the earliest of the stamps since which it has been
 * so is before the cutoff.
 */
static int
mon_pg_walk_stuck(const struct mon_pg_walk *w, const struct pg_stat *st)
{
	int64_t since = w->cutoff;

	if ((w->stuck & MON_STUCK_INACTIVE) && !(st->state & PG_STATE_ACTIVE) &&
	    st->last_active < since)
		since = st->last_active;
	if ((w->stuck & MON_STUCK_UNCLEAN) && !(st->state & PG_STATE_CLEAN) &&
	    st->last_clean < since)
		since = st->last_clean;
	if ((w->stuck & MON_STUCK_DEGRADED) &&
	    (st->state & PG_STATE_DEGRADED) && st->last_undegraded < since)
		since = st->last_undegraded;
	if ((w->stuck & MON_STUCK_UNDERSIZED) &&
	    (st->state & PG_STATE_UNDERSIZED) && st->last_fullsized < since)
		since = st->last_fullsized;
	if ((w->stuck & MON_STUCK_STALE) && (st->state & PG_STATE_STALE) &&
	    st->last_unstale < since)
		since = st->last_unstale;
	return since < w->cutoff;
}

/* Whether w lists st. */
static int
mon_pg_walk_keep(const struct mon_pg_walk *w, const struct pg_stat *st)
{
	switch (w->kind) {
	case MON_WALK_DUMP:
		return 1;
	case MON_WALK_LS:
		if (w->pool >= 0 && st->pgid.pool != (uint32_t)w->pool)
			return 0;
		if (w->osd >= 0 && !mon_pg_walk_osd(w, st))
			return 0;
		return w->states == 0 || (st->state & w->states) != 0 ||
		    (w->unknown && st->state == 0);
	case MON_WALK_STUCK:
		break;
	}
	return mon_pg_walk_stuck(w, st);
}

static void
mon_put_text(struct enc_buf *b, const char *s)
{
	enc_buf_put_bytes(b, s, strlen(s));
}

/*
 * Append the JSON text of obj's members (obj stolen), without its braces
 * and with a leading comma when comma.
 */
static void
mon_put_members(struct enc_buf *b, json_t *obj, int comma)
{
	char *text = json_dumps(obj, JSON_COMPACT);
	size_t len;

	if (text == NULL)
		fatalx("jansson cannot write a reply (out of memory)");
	len = strlen(text);
	if (len > 2) {
		if (comma)
			enc_buf_put_u8(b, ',');
		enc_buf_put_bytes(b, text + 1, len - 2);
	}
	free(text);
	json_decref(obj);
}

/*
 * The text before the PGs, and after them, from the state the first slice
 * sees: the whole data of `pg dump' without PGs (0: nothing follows),
 * else the data's object up to its array of PGs (1).
 */
static int
mon_pg_walk_begin(struct mon_pg_walk *w, struct enc_buf *b)
{
	struct mon *m = w->m;
	json_t *o;
	char *text;

	w->begun = 1;
	mon_put_text(b, "{\"pg_ready\":true");
	if (w->kind == MON_WALK_STUCK) {
		mon_put_text(b, ",\"stuck_pg_stats\":[");
		return 1;
	}
	if (w->kind == MON_WALK_LS) {
		mon_put_text(b, ",\"pg_stats\":[");
		return 1;
	}
	/* Ceph's process_pg_map_command(): "all", else summary, else parts. */
	if (w->parts & (MON_DUMP_ALL | MON_DUMP_SUMMARY | MON_DUMP_SUM)) {
		mon_put_text(b, ",\"pg_map\":{");
		mon_put_members(b, mon_pg_basic_json(m), 0);
		if (!(w->parts & MON_DUMP_ALL)) {
			mon_put_text(b, "}}");
			return 0;
		}
		o = json_pack("{s:o, s:o}", "pool_stats", mon_pg_pools_json(m),
		    "osd_stats", mon_pg_osds_json(m));
		if ((text = json_dumps(o, JSON_COMPACT)) == NULL)
			fatalx("jansson cannot write a reply (out of memory)");
		json_decref(o);
		/* "],", its members, and the two objects' ends. */
		xasprintf(&w->tail, "],%.*s}}", (int)(strlen(text) - 2),
		    text + 1);
		free(text);
		mon_put_text(b, ",\"pg_stats\":[");
		return 1;
	}
	o = json_object();
	if (w->parts & MON_DUMP_POOLS)
		json_object_set_new(o, "pool_stats", mon_pg_pools_json(m));
	if (w->parts & MON_DUMP_OSDS)
		json_object_set_new(o, "osd_stats", mon_pg_osds_json(m));
	mon_put_members(b, o, 1);
	if (!w->pgs) {
		mon_put_text(b, "}");
		return 0;
	}
	mon_put_text(b, ",\"pg_stats\":[");
	return 1;
}

int
mon_pg_walk_next(struct mon_pg_walk *w, struct pg_text *t, char **status)
{
	struct mon *m = w->m;
	const struct pgmap_pool *pp;
	size_t i, looked = 0, written = 0;
	uint32_t seed;

	/* Single PGs are read: a commit being applied is finished first. */
	mon_settle(m);
	if (!w->begun && mon_pg_walk_begin(w, &t->buf) == 0)
		goto done;
	for (i = 0; i < m->pgmap.npools; i++) {
		pp = &m->pgmap.pools[i];
		if (pp->id < w->next_pool)
			continue;
		if (w->pool >= 0 && pp->id != (uint32_t)w->pool)
			continue;
		seed = pp->id == w->next_pool ? w->next_seed : 0;
		for (; seed < pp->pg_num; seed++) {
			if (looked == MON_PG_WALK_LOOK ||
			    written == MON_PG_WALK_PGS) {
				w->next_pool = pp->id;
				w->next_seed = seed;
				return 0;
			}
			looked++;
			if (!mon_pg_walk_keep(w, &pp->pgs[seed]))
				continue;
			if (w->n++ > 0)
				enc_buf_put_u8(&t->buf, ',');
			if (w->brief)
				pg_text_brief(t, &pp->pgs[seed]);
			else
				pg_text_stat(t, &pp->pgs[seed]);
			written++;
		}
	}
	mon_put_text(&t->buf, w->tail != NULL ? w->tail : "]}");
done:
	switch (w->kind) {
	case MON_WALK_DUMP:
		*status = xstrdup(w->done_status);
		break;
	case MON_WALK_LS:
		xasprintf(status, "listed %zu pgs", w->n);
		break;
	case MON_WALK_STUCK:
		/* Ceph's status, whether or not a PG is stuck. */
		*status = xstrdup("ok");
		break;
	}
	return 1;
}

/* Parse a PG id and find its committed stat, or an answer. */
static const struct pg_stat *
mon_pg_lookup(struct mon *m, const char *pgid, struct pg_id *id, int *rc,
    char **status)
{
	const struct pg_stat *st;
	char *why = NULL;

	if (pg_id_parse(pgid, id, &why) == -1) {
		xasprintf(status, "%s", why);
		free(why);
		*rc = -EINVAL;
		return NULL;
	}
	mon_settle(m);
	if ((st = pgmap_pg(&m->pgmap, *id)) == NULL) {
		xasprintf(status, "pg %.*s does not exist", 64, pgid);
		*rc = -ENOENT;
	}
	return st;
}

int
mon_pg_query_json(struct mon *m, const char *pgid, json_t **out,
    char **status)
{
	const struct pg_stat *st;
	struct pg_id id;
	int rc = 0;

	if ((st = mon_pg_lookup(m, pgid, &id, &rc, status)) == NULL)
		return rc;
	*out = pg_stat_to_json(st);
	xasprintf(status, "pg %s", pgid);
	return 0;
}

static json_t *
mon_osd_list_json(const int32_t *ids, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer(ids[i]));
	return a;
}

int
mon_pg_map_json(struct mon *m, const char *pgid, json_t **out, char **status)
{
	const struct osdmap_pool *p;
	struct pg_id id;
	int32_t up[PLACEMENT_MAX_SIZE];
	char *why = NULL, name[32], raw[32];
	int n, primary;

	if (pg_id_parse(pgid, &id, &why) == -1) {
		xasprintf(status, "%s", why);
		free(why);
		return -EINVAL;
	}
	pg_id_format(id, raw, sizeof raw);
	if ((p = osdmap_pool(&m->osdmap, id.pool)) == NULL) {
		xasprintf(status, "pg '%s' does not exist", raw);
		return -ENOENT;
	}
	/* As Ceph: a raw seed past pg_num names the PG it folds to. */
	id.seed = pg_seed_fold(id.seed, p->pg_num);
	n = osdmap_place_pg(m->placement, id.pool, p->crush_rule, id.seed,
	    p->size, up);
	primary = n > 0 ? up[0] : -1;
	pg_id_format(id, name, sizeof name);
	*out = json_pack("{s:I, s:s, s:s, s:o, s:o, s:i, s:i}", "epoch",
	    (json_int_t)m->osdmap.epoch, "raw_pgid", raw, "pgid", name, "up",
	    mon_osd_list_json(up, n), "acting", mon_osd_list_json(up, n),
	    "up_primary", primary, "acting_primary", primary);
	xasprintf(status, "osdmap e%u pg %s (%s)", m->osdmap.epoch, raw, name);
	return 0;
}

int
mon_osdmap_inc_get(struct mon *m, uint32_t epoch, struct osdmap_inc *out,
    char **cause)
{
	uint8_t key[KEYS_EPOCH_LEN];
	void *val;
	size_t vlen;
	char *why = NULL;
	int rc;

	if (epoch == 0 || epoch > m->osdmap.epoch)
		return MON_NOTFOUND;
	keys_epoch(key, KEYS_OSDMAP_INC, epoch);
	if ((rc = store_get(m->store, key, sizeof key, &val, &vlen,
	    &why)) != 0) {
		if (rc == STORE_NOTFOUND)
			return MON_NOTFOUND;
		*cause = why != NULL ? why : xstrdup(store_strerror(rc));
		return -1;
	}
	rc = osdmap_inc_decode(val, vlen, out, cause);
	free(val);
	return rc;
}

static int
mon_pg_id_cmp(const void *a, const void *b)
{
	const struct pg_id *x = a, *y = b;

	if (x->pool != y->pool)
		return x->pool < y->pool ? -1 : 1;
	if (x->seed != y->seed)
		return x->seed < y->seed ? -1 : 1;
	return 0;
}

int
mon_pgmap_changed_since(struct mon *m, uint64_t since, struct pg_id **ids,
    size_t *n, size_t max, char **cause)
{
	uint8_t lo[KEYS_PGINC_LEN], hi[KEYS_PGINC_LEN];
	uint64_t cur = m->pgmap.version, ver, last = since;
	struct store_iter *it;
	const void *k, *v;
	size_t klen, vlen, i, cap = 0, j;
	struct pg_id *out = NULL;
	int rc;

	*ids = NULL;
	*n = 0;
	if (since >= cur)
		return 0;
	if (since + 1 < m->rec.pgmap_first)
		return MON_NOTFOUND; /* trimmed */
	keys_pginc(lo, since + 1, 0);
	keys_pginc(hi, cur + 1, 0);
	if ((it = store_iter_new(m->store, lo, sizeof lo, hi, sizeof hi,
		 cause)) == NULL)
		return -1;
	/*
	 * At most 8 * max ids before folding repeats: a PG changed in many
	 * versions is counted each time, and past that the whole map is
	 * the cheaper answer anyway.
	 */
	while ((rc = store_iter_next(it, &k, &klen, &v, &vlen)) == 1) {
		if (klen != KEYS_PGINC_LEN || vlen % 8 != 0)
			continue;
		ver = enc_get_be64((const uint8_t *)k + 1);
		/* Each version has its record, chunk 0 first: none missing. */
		if (ver > last + 1 || *n + vlen / 8 > 8 * max)
			break;
		last = ver;
		if (*n + vlen / 8 > cap) {
			cap = *n + vlen / 8 + 256;
			out = xreallocarray(out, cap, sizeof *out);
		}
		for (i = 0; i < vlen / 8; i++) {
			out[*n].pool = enc_get_be32((const uint8_t *)v + 8 * i);
			out[(*n)++].seed = enc_get_be32(
			    (const uint8_t *)v + 8 * i + 4);
		}
	}
	if (rc == -1) {
		xasprintf(cause, "pgmap incrementals: %s",
		    store_iter_cause(it) ? store_iter_cause(it) : "?");
		store_iter_free(it);
		free(out);
		*n = 0;
		return -1;
	}
	store_iter_free(it);
	if (last < cur) {
		free(out);
		*n = 0;
		return MON_NOTFOUND; /* a gap, or too many */
	}
	if (*n > 0) {
		qsort(out, *n, sizeof *out, mon_pg_id_cmp);
		for (j = 1, i = 1; j < *n; j++)
			if (mon_pg_id_cmp(&out[j], &out[i - 1]) != 0)
				out[i++] = out[j];
		*n = i;
	}
	if (*n > max) {
		free(out);
		*n = 0;
		return MON_NOTFOUND;
	}
	*ids = out;
	return 0;
}

int
mon_store_stat_json(struct mon *m, json_t **out, char **status)
{
	struct store_stats st;
	char *cause = NULL;

	if (store_stat(m->store, &st, &cause) != 0) {
		xasprintf(status, "%s", cause ? cause : "store stat failed");
		free(cause);
		return -EIO;
	}
	*out = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
	    "backend", st.backend, "path", store_path(m->store),
	    "bytes", (json_int_t)st.disk_bytes,
	    "records", (json_int_t)st.records,
	    "map_size", (json_int_t)st.map_size,
	    "map_used", (json_int_t)st.map_used,
	    "osdmap_first", (json_int_t)m->rec.osdmap_first,
	    "osdmap_last", (json_int_t)m->rec.osdmap_epoch,
	    "pgmap_first", (json_int_t)m->rec.pgmap_first);
	store_stats_free(&st);
	xasprintf(status, "store %s", store_path(m->store));
	return 0;
}

/* Close the range being made at key k (klen bytes) and open the next. */
static void
mon_compact_cut(struct mon_key_range **v, size_t *n, size_t *cap,
    const uint8_t *k, size_t klen)
{
	struct mon_key_range *next;

	if (*n + 1 == *cap) {
		*cap *= 2;
		*v = xreallocarray(*v, *cap, sizeof **v);
	}
	memcpy((*v)[*n].hi, k, klen);
	(*v)[*n].hilen = klen;
	(*n)++;
	next = &(*v)[*n];
	memset(next, 0, sizeof *next);
	memcpy(next->lo, k, klen);
	next->lolen = klen;
}

size_t
mon_compact_ranges(const struct mon *m, struct mon_key_range **out)
{
	struct mon_key_range *v = NULL;
	const struct osdmap_pool *op;
	uint8_t k[MON_KEY_MAX];
	uint64_t ver;
	size_t n = 0, cap = 0, i;
	uint32_t s;

	/* v[0] from the first key. */
	cap = 64;
	v = xcalloc(cap, sizeof *v);
	k[0] = KEYS_PG;
	mon_compact_cut(&v, &n, &cap, k, 1);
	for (i = 0; i < m->osdmap.npools; i++) {
		op = &m->osdmap.pools[i];
		for (s = 0; s < op->pg_num; s += MON_COMPACT_PGS) {
			keys_pg(k, op->id, s);
			mon_compact_cut(&v, &n, &cap, k, KEYS_PG_LEN);
		}
	}
	k[0] = KEYS_PG + 1;
	mon_compact_cut(&v, &n, &cap, k, 1);
	k[0] = KEYS_PGINC;
	mon_compact_cut(&v, &n, &cap, k, 1);
	ver = m->rec.pgmap_first;
	while (ver != 0 && ver <= m->rec.pgmap_version) {
		keys_pginc(k, ver, 0);
		mon_compact_cut(&v, &n, &cap, k, KEYS_PGINC_LEN);
		ver += MON_COMPACT_VERSIONS;
	}
	k[0] = KEYS_PGINC + 1;
	mon_compact_cut(&v, &n, &cap, k, 1);
	/* The last, past the last key. */
	v[n].hilen = 0;
	*out = v;
	return n + 1;
}

/* "[1,2,0]" of ids into buf. */
static const char *
mon_osd_list_text(const int32_t *ids, int n, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	off += (size_t)snprintf(buf, len, "[");
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%d",
		    i ? "," : "", ids[i]);
	if (off < len)
		snprintf(buf + off, len - off, "]");
	return buf;
}

int
mon_osd_map_json(struct mon *m, const char *pool, const char *object,
    json_t **out, char **status)
{
	const struct osdmap_pool *p = osdmap_pool_by_name(&m->osdmap, pool);
	int32_t up[PLACEMENT_MAX_SIZE];
	char raw[32], name[32], set[128];
	uint32_t ps, seed;
	int n, primary;

	if (p == NULL) {
		xasprintf(status, "pool %.*s does not exist", 128, pool);
		return -ENOENT;
	}
	ps = pg_str_hash_rjenkins(object, strlen(object));
	seed = pg_seed_fold(ps, p->pg_num);
	snprintf(raw, sizeof raw, "%u.%x", p->id, ps);
	snprintf(name, sizeof name, "%u.%x", p->id, seed);
	n = osdmap_place_pg(m->placement, p->id, p->crush_rule, seed, p->size,
	    up);
	primary = n > 0 ? up[0] : -1;
	*out = json_pack("{s:I, s:s, s:I, s:s, s:s, s:s, s:o, s:i, s:o, s:i}",
	    "epoch", (json_int_t)m->osdmap.epoch, "pool", p->name, "pool_id",
	    (json_int_t)p->id, "objname", object, "raw_pgid", raw, "pgid", name,
	    "up", mon_osd_list_json(up, n), "up_primary", primary, "acting",
	    mon_osd_list_json(up, n), "acting_primary", primary);
	mon_osd_list_text(up, n, set, sizeof set);
	xasprintf(status,
	    "osdmap e%u pool '%s' (%u) object '%s' -> pg %s (%s) -> up (%s, "
	    "p%d) acting (%s, p%d)",
	    m->osdmap.epoch, p->name, p->id, object, raw, name, set, primary,
	    set, primary);
	return 0;
}
