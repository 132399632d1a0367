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

static json_t *
mon_pgs_by_state_json(const struct pgmap *pm)
{
	json_t *a = json_array();
	char name[256];
	size_t i;

	for (i = 0; i < pm->nstates; i++) {
		pg_state_format(pm->states[i].state, name, sizeof name);
		json_array_append_new(a, json_pack("{s:s, s:I}", "state_name",
		    name, "count", (json_int_t)pm->states[i].count));
	}
	return a;
}

static json_t *
mon_sums_json(const struct pgmap_sums *s)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
	    "num_bytes", (json_int_t)s->num_bytes,
	    "num_objects", (json_int_t)s->num_objects,
	    "num_object_copies", (json_int_t)s->num_object_copies,
	    "num_objects_degraded", (json_int_t)s->num_objects_degraded,
	    "num_objects_misplaced", (json_int_t)s->num_objects_misplaced,
	    "num_objects_unfound", (json_int_t)s->num_objects_unfound,
	    "num_read", (json_int_t)s->num_read,
	    "num_read_kb", (json_int_t)s->num_read_kb,
	    "num_write", (json_int_t)s->num_write,
	    "num_write_kb", (json_int_t)s->num_write_kb);
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
	j = mon_health_to_json(v, n);
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
	worst = mon_health_worst(v, n);
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
	json_t *pg = json_object_get(st, "pgmap");
	const struct statfs_osd *sum = &m->cap.sum;

	/* Ceph's usage line: the raw use of what the OSDs' beacons said. */
	json_object_set_new(pg, "bytes_used",
	    json_integer((json_int_t)(sum->total - sum->avail)));
	json_object_set_new(pg, "bytes_avail",
	    json_integer((json_int_t)sum->avail));
	json_object_set_new(pg, "bytes_total",
	    json_integer((json_int_t)sum->total));
	return st;
}

/* Does OSD o show in `osd tree' with the states of mask (Ceph's OR)? */
static int
mon_osd_tree_shows(const struct osdmap_osd *o, unsigned mask)
{
	if (mask == 0)
		return 1;
	return ((mask & MON_TREE_UP) && o->up) ||
	    ((mask & MON_TREE_DOWN) && !o->up) ||
	    ((mask & MON_TREE_IN) && o->in) ||
	    ((mask & MON_TREE_OUT) && !o->in);
}

json_t *
mon_osd_tree_of_json(const struct osdmap *om, unsigned mask)
{
	json_t *nodes = json_array();
	char name[32];
	uint32_t k;

	for (k = 0; k < om->max_osd; k++) {
		const struct osdmap_osd *o = &om->osds[k];

		if (!o->exists || !mon_osd_tree_shows(o, mask))
			continue;
		snprintf(name, sizeof name, "osd.%d", o->id);
		/* Ceph's node keys; REWEIGHT is the in/out weight. */
		json_array_append_new(nodes,
		    json_pack("{s:i, s:s, s:s, s:i, s:f, s:i, s:i, s:s, s:f, "
			      "s:f, s:i}",
			"id", o->id, "name", name, "type", "osd", "type_id", 0,
			"crush_weight", osdmap_weight_to_double(o->weight),
			"depth", 0, "exists", 1, "status",
			o->up ? "up" : "down", "reweight",
			o->in ? osdmap_weight_to_double(o->reweight) : 0.0,
			"primary_affinity", 1.0, "in", (int)o->in));
	}
	return json_pack("{s:o, s:[]}", "nodes", nodes, "stray");
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
	*out = json_pack("{s:i, s:{s:o}, s:s, s:{}}", "osd", id, "addrs",
	    "addrvec", addrs, "osd_fsid",
	    "00000000-0000-0000-0000-000000000000", "crush_location");
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
			mon_sums_json(&pm->pools[i].sums)));
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
	    json_pack("{s:o, s:I}", "stat_sum", mon_sums_json(&pm->sums),
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

json_t *
mon_pg_stat_json(struct mon *m)
{
	const struct pgmap *pm = &m->pgmap;

	return json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:I}",
	    "version", (json_int_t)pm->version,
	    "num_pgs", (json_int_t)pm->sums.num_pgs,
	    "pgs_by_state", mon_pgs_by_state_json(pm),
	    "num_objects", (json_int_t)pm->sums.num_objects,
	    "data_bytes", (json_int_t)pm->sums.num_bytes,
	    "degraded_objects", (json_int_t)pm->sums.num_objects_degraded,
	    "misplaced_objects", (json_int_t)pm->sums.num_objects_misplaced);
}

static json_t *
mon_pg_summary_json(struct mon *m)
{
	char stamp[STAMP_BUFSIZE];

	return json_pack("{s:I, s:s, s:{s:I, s:o}}",
	    "version", (json_int_t)m->pgmap.version,
	    "stamp", stamp_format(m->pgmap.stamp, stamp, sizeof stamp),
	    "pg_stats_sum", "num_pgs", (json_int_t)m->pgmap.sums.num_pgs,
	    "stat_sum", mon_sums_json(&m->pgmap.sums));
}

static json_t *
mon_pg_pools_json(struct mon *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < m->pgmap.npools; i++)
		json_array_append_new(a, json_pack("{s:I, s:I, s:o}",
		    "poolid", (json_int_t)m->pgmap.pools[i].id,
		    "num_pg", (json_int_t)m->pgmap.pools[i].pg_num,
		    "stat_sum", mon_sums_json(&m->pgmap.pools[i].sums)));
	return json_pack("{s:o}", "pool_stats", a);
}

static json_t *
mon_pg_osds_json(struct mon *m)
{
	json_t *a = json_array();
	const struct osdmap_osd *o;
	uint32_t k, pgs, primary;

	for (k = 0; k < m->osdmap.max_osd; k++) {
		o = &m->osdmap.osds[k];
		if (!o->exists)
			continue;
		pgs = k < m->pgmap.nosds ? m->pgmap.osd[k].pgs : 0;
		primary = k < m->pgmap.nosds ? m->pgmap.osd[k].primary : 0;
		json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:I, s:I}",
		    "osd", o->id, "up", (int)o->up, "in", (int)o->in,
		    "num_pgs", (json_int_t)pgs,
		    "num_primary_pgs", (json_int_t)primary));
	}
	return json_pack("{s:o}", "osd_stats", a);
}

/*
 * A listing of PGs being written (mon.h): the text of its data before the
 * PGs, a filter, and where it is.
 */
enum mon_walk_kind { MON_WALK_DUMP, MON_WALK_LS, MON_WALK_STUCK };

struct mon_pg_walk {
	struct mon *m;
	enum mon_walk_kind kind;
	char what[16];	      /* the dump's part, or the stuck state */
	int begun;	      /* the text before the PGs is written */
	int pgs;	      /* it lists PGs (not `pg dump summary') */
	int64_t pool;	      /* ls: only this pool; -1: every pool */
	uint32_t states;      /* ls: any of these; 0: any */
	int64_t stuck_before; /* stuck: since before this stamp */
	uint32_t next_pool;   /* the next PG to look at */
	uint32_t next_seed;
	size_t n; /* PGs written */
};

static struct mon_pg_walk *
mon_pg_walk_new(struct mon *m, enum mon_walk_kind kind, const char *what)
{
	struct mon_pg_walk *w = xcalloc(1, sizeof *w);

	w->m = m;
	w->kind = kind;
	snprintf(w->what, sizeof w->what, "%s", what);
	w->pgs = 1;
	w->pool = -1;
	return w;
}

void
mon_pg_walk_free(struct mon_pg_walk *w)
{
	free(w);
}

int
mon_pg_dump_walk(struct mon *m, const char *what, struct mon_pg_walk **out,
    char **status)
{
	static const char *const parts[] = { "all", "summary", "pools", "osds",
		"pgs" };
	size_t i;

	if (what == NULL)
		what = "all";
	for (i = 0; i < nitems(parts); i++)
		if (strcmp(what, parts[i]) == 0)
			break;
	if (i == nitems(parts)) {
		xasprintf(status, "unknown pg dump part '%.*s': expected "
		    "summary, pools, osds or pgs", 64, what);
		return -EINVAL;
	}
	*out = mon_pg_walk_new(m, MON_WALK_DUMP, what);
	(*out)->pgs = strcmp(what, "all") == 0 || strcmp(what, "pgs") == 0;
	return 0;
}

int
mon_pg_ls_walk(struct mon *m, const char *pool, const char *const *states,
    size_t nstates, struct mon_pg_walk **out, char **status)
{
	const struct osdmap_pool *p = NULL;
	uint32_t bits, any = 0;
	char *why = NULL, *end;
	size_t i;
	long long id;

	if (pool != NULL) {
		if ((p = osdmap_pool_by_name(&m->osdmap, pool)) == NULL) {
			id = strtoll(pool, &end, 10);
			if (*pool != '\0' && *end == '\0' && id > 0 &&
			    id <= UINT32_MAX)
				p = osdmap_pool(&m->osdmap, (uint32_t)id);
		}
		if (p == NULL) {
			xasprintf(status, "pool '%.*s' does not exist", 128,
			    pool);
			return -ENOENT;
		}
	}
	for (i = 0; i < nstates; i++) {
		if (pg_state_parse(states[i], &bits, &why) == -1) {
			xasprintf(status, "%s", why);
			free(why);
			return -EINVAL;
		}
		any |= bits;
	}
	*out = mon_pg_walk_new(m, MON_WALK_LS, "");
	if (p != NULL)
		(*out)->pool = p->id;
	(*out)->states = any;
	return 0;
}

int
mon_pg_dump_stuck_walk(struct mon *m, const char *what,
    struct mon_pg_walk **out, char **status)
{
	if (what == NULL)
		what = "unclean";
	if (strcmp(what, "inactive") != 0 && strcmp(what, "unclean") != 0 &&
	    strcmp(what, "stale") != 0) {
		xasprintf(status, "unknown stuck state '%.*s': expected %s", 64,
		    what, "inactive, unclean or stale");
		return -EINVAL;
	}
	*out = mon_pg_walk_new(m, MON_WALK_STUCK, what);
	(*out)->stuck_before = stamp_now() -
	    m->params.pg_stale_timeout_ms * 1000;
	return 0;
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
		return w->states == 0 || (st->state & w->states) != 0;
	case MON_WALK_STUCK:
		break;
	}
	switch (w->what[0]) {
	case 'i':
		return !(st->state & PG_STATE_ACTIVE) &&
		    st->last_active < w->stuck_before;
	case 'u':
		return !(st->state & PG_STATE_CLEAN) &&
		    st->last_clean < w->stuck_before;
	default:
		return (st->state & PG_STATE_STALE) &&
		    st->last_unstale < w->stuck_before;
	}
}

/* Move src's members into dst. */
static void
mon_json_merge(json_t *dst, json_t *src)
{
	json_object_update(dst, src);
	json_decref(src);
}

static void
mon_put_text(struct enc_buf *b, const char *s)
{
	enc_buf_put_bytes(b, s, strlen(s));
}

/* Append the JSON text of obj (stolen) to b, as a reply carries it. */
static void
mon_put_json(struct enc_buf *b, json_t *obj)
{
	char *text = json_dumps(obj, JSON_COMPACT);

	if (text == NULL)
		fatalx("jansson cannot write a reply (out of memory)");
	mon_put_text(b, text);
	free(text);
	json_decref(obj);
}

/*
 * The text before the PGs, from the state the first slice sees: the whole
 * data of the small parts of `pg dump' (0: nothing follows), else the
 * data's object up to its array of PGs (1).
 */
static int
mon_pg_walk_begin(struct mon_pg_walk *w, struct enc_buf *b)
{
	struct mon *m = w->m;
	json_t *all;

	w->begun = 1;
	if (w->kind == MON_WALK_STUCK) {
		mon_put_text(b, "{\"stuck_pg_stats\":[");
		return 1;
	}
	if (w->kind == MON_WALK_LS || strcmp(w->what, "pgs") == 0) {
		mon_put_text(b, "{\"pg_stats\":[");
		return 1;
	}
	if (strcmp(w->what, "summary") == 0)
		all = mon_pg_summary_json(m);
	else if (strcmp(w->what, "pools") == 0)
		all = mon_pg_pools_json(m);
	else if (strcmp(w->what, "osds") == 0)
		all = mon_pg_osds_json(m);
	else {
		all = mon_pg_summary_json(m);
		mon_json_merge(all, mon_pg_pools_json(m));
		mon_json_merge(all, mon_pg_osds_json(m));
	}
	mon_put_json(b, all);
	if (!w->pgs)
		return 0;
	/* Reopen the object (its text ends in '}') for the PGs. */
	b->len--;
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
			pg_text_stat(t, &pp->pgs[seed]);
			written++;
		}
	}
	mon_put_text(&t->buf, "]}");
done:
	switch (w->kind) {
	case MON_WALK_DUMP:
		xasprintf(status, "dumped %s", w->what);
		break;
	case MON_WALK_LS:
		xasprintf(status, "listed %zu pgs", w->n);
		break;
	case MON_WALK_STUCK:
		xasprintf(status, "%zu pgs stuck %s", w->n, w->what);
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
	char *why = NULL, name[32];
	int n, primary;

	if (pg_id_parse(pgid, &id, &why) == -1) {
		xasprintf(status, "%s", why);
		free(why);
		return -EINVAL;
	}
	if ((p = osdmap_pool(&m->osdmap, id.pool)) == NULL ||
	    id.seed >= p->pg_num) {
		xasprintf(status, "pg %.*s does not exist", 64, pgid);
		return -ENOENT;
	}
	n = osdmap_place_pg(m->placement, id.pool, p->crush_rule, id.seed,
	    p->size, up);
	primary = n > 0 ? up[0] : -1;
	pg_id_format(id, name, sizeof name);
	*out = json_pack("{s:I, s:s, s:o, s:i, s:o, s:i}",
	    "epoch", (json_int_t)m->osdmap.epoch, "pgid", name,
	    "up", mon_osd_list_json(up, n), "up_primary", primary,
	    "acting", mon_osd_list_json(up, n), "acting_primary", primary);
	xasprintf(status, "osdmap e%u pg %s", m->osdmap.epoch, name);
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
