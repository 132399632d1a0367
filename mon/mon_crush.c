/*
 * mon_crush.c: the placement hierarchy in the monitor (crush.h): its
 * changes, staged copy on write with the osdmap, the upgrade of a map from
 * before it, and where a booting OSD goes (Ceph's
 * osd_crush_update_on_start).  mapmond(8), PLACEMENT, gives the rules.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
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

/* An OSD's "crush_weight" is its weight in the hierarchy. */
static void
mon_crush_sync_weight(struct mon *m, int32_t id)
{
	const struct crush *c = m->work.crush;
	const struct osdmap_osd *o;
	struct osdmap_osd n;

	if ((o = osdmap_osd(&m->work, id)) == NULL ||
	    !crush_osd_exists(c, id) || o->weight == mon_crush_weight32(c, id))
		return;
	n = *o;
	n.weight = mon_crush_weight32(c, id);
	mon_stage_osd(m, &n);
}

void
mon_stage_crush(struct mon *m)
{
	uint32_t k;

	mon_stage_crush_changed(m);
	for (k = 0; k < m->work.max_osd; k++)
		mon_crush_sync_weight(m, (int32_t)k);
}

void
mon_stage_crush_osd(struct mon *m, int32_t id)
{
	mon_stage_crush_changed(m);
	mon_crush_sync_weight(m, id);
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
	/*
	 * Only this OSD moved or came in, so only its weight can differ: not
	 * a scan of every OSD at each boot of a storm.
	 */
	mon_stage_crush_osd(m, id);
	return 0;
}

/* Answer done at once with rc and a formatted status. */
static void mon_crush_now(mon_done_cb *done, void *arg, int rc, json_t *data,
    const char *fmt, ...) printflike(5, 6);

static void
mon_crush_now(mon_done_cb *done, void *arg, int rc, json_t *data,
    const char *fmt, ...)
{
	va_list ap;
	char *status;

	va_start(ap, fmt);
	xvasprintf(&status, fmt, ap);
	va_end(ap);
	done(arg, rc, status, data);
	free(status);
}

/* "host=h1,rack=r1", Ceph's way of writing a location, into buf. */
static const char *
mon_crush_loc_text(const char *const *loc, size_t nloc, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < nloc && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    i ? "," : "", loc[i]);
	return buf;
}

/*
 * Commit c (a changed copy of the working hierarchy, taken) with status
 * as the answer and the cluster log's line; when c holds what the working
 * map does, nothing is staged and the answer is quiet (rc 0, status).
 */
static void
mon_crush_commit(struct mon *m, struct crush *c, const char *status,
    const char *unchanged, mon_done_cb *done, void *arg)
{
	if (crush_equal(c, m->work.crush)) {
		crush_free(c);
		mon_crush_now(done, arg, 0, NULL, "%s",
		    unchanged != NULL ? unchanged : status);
		return;
	}
	osdmap_set_crush(&m->work, c);
	mon_stage_crush(m);
	if (status[0] != '\0')
		mon_stage_log(m, MON_LOG_INFO, "%s", status);
	mon_stage_done(m, done, arg, status, NULL);
}

/* The OSD named "osd.N" (any id: 0 and *id), else -1. */
static int
mon_crush_osd_name(const char *name, int32_t *id)
{
	char *end;
	long v;

	if (strncmp(name, "osd.", 4) != 0 || name[4] < '0' || name[4] > '9')
		return -1;
	v = strtol(name + 4, &end, 10);
	if (*end != '\0' || v < 0 || v >= OSDMAP_MAX_OSD)
		return -1;
	*id = (int32_t)v;
	return 0;
}

void
mon_crush_op(struct mon *m, const struct mon_crush_req *q, mon_done_cb *done,
    void *arg)
{
	struct crush *c;
	char where[256], *cause = NULL, *status = NULL, *same = NULL;
	int32_t osd = -1, id;
	uint32_t rid, *in_use;
	size_t i;
	int rc = 0, existed;

	if (m->work.crush == NULL) {
		mon_crush_now(done, arg, -EAGAIN, NULL,
		    "the osdmap has no placement hierarchy yet (its upgrade "
		    "is being committed)");
		return;
	}
	mon_crush_loc_text(q->loc, q->nloc, where, sizeof where);
	if (q->op == MON_CRUSH_ADD || q->op == MON_CRUSH_SET ||
	    q->op == MON_CRUSH_CREATE_OR_MOVE || q->op == MON_CRUSH_REWEIGHT) {
		if (mon_crush_osd_name(q->name, &osd) == -1) {
			mon_crush_now(done, arg, -EINVAL, NULL,
			    "unable to parse osd id:\"%.*s\"", 64, q->name);
			return;
		}
		if (q->op != MON_CRUSH_REWEIGHT &&
		    osdmap_osd(&m->work, osd) == NULL) {
			mon_crush_now(done, arg, -ENOENT, NULL,
			    "osd.%d does not exist.  create it before updating "
			    "the crush map",
			    osd);
			return;
		}
	}
	existed = osd >= 0 && crush_osd_exists(m->work.crush, osd);
	c = crush_copy(m->work.crush);
	switch (q->op) {
	case MON_CRUSH_ADD_BUCKET:
		rc = crush_bucket_add(c, q->name, q->type, q->loc, q->nloc, &id,
		    &cause);
		if (rc == -EEXIST) {
			free(cause);
			crush_free(c);
			mon_crush_now(done, arg, 0, NULL,
			    "bucket '%s' already exists", q->name);
			return;
		}
		if (q->nloc > 0)
			xasprintf(&status,
			    "added bucket %s type %s to "
			    "location {%s}",
			    q->name, q->type, where);
		else
			xasprintf(&status,
			    "added bucket %s type %s to crush "
			    "map",
			    q->name, q->type);
		break;
	case MON_CRUSH_MOVE:
		rc = crush_move(c, q->name, q->loc, q->nloc, &cause);
		if (rc == 0 && crush_item_id(c, q->name, &id) == 0) {
			xasprintf(&status,
			    "moved item id %d name '%s' to "
			    "location {%s} in crush map",
			    id, q->name, where);
			xasprintf(&same,
			    "no need to move item id %d name "
			    "'%s' to location {%s} in crush map",
			    id, q->name, where);
		}
		break;
	case MON_CRUSH_REMOVE:
		if (crush_item_id(c, q->name, &id) == -1) {
			crush_free(c);
			mon_crush_now(done, arg, 0, NULL,
			    "device '%s' does not appear in the crush map",
			    q->name);
			return;
		}
		rc = crush_remove(c, q->name, &cause);
		xasprintf(&status,
		    "removed item id %d name '%s' from crush "
		    "map",
		    id, q->name);
		break;
	case MON_CRUSH_ADD:
		rc = crush_osd_add(c, osd, q->weight, q->loc, q->nloc, &cause);
		xasprintf(&status,
		    "add item id %d name '%s' weight %g at "
		    "location {%s} to crush map",
		    osd, q->name, q->weight, where);
		break;
	case MON_CRUSH_SET:
		rc = crush_osd_set(c, osd, q->weight, q->loc, q->nloc, &cause);
		if (rc == -ENOENT && !existed) {
			free(cause);
			xasprintf(&cause,
			    "unable to set item id %d name '%s' "
			    "weight %g at location {%s}: does not exist",
			    osd, q->name, q->weight, where);
		}
		xasprintf(&status,
		    "set item id %d name '%s' weight %g at "
		    "location {%s} to crush map",
		    osd, q->name, q->weight, where);
		break;
	case MON_CRUSH_CREATE_OR_MOVE:
		rc = crush_osd_create_or_move(c, osd, q->weight, q->loc,
		    q->nloc, &cause);
		xasprintf(&status,
		    "create-or-move updating item name '%s' "
		    "weight %g at location {%s} to crush map",
		    q->name, q->weight, where);
		xasprintf(&same,
		    "create-or-move updated item name '%s' "
		    "weight %g at location {%s} to crush map",
		    q->name, q->weight, where);
		break;
	case MON_CRUSH_REWEIGHT:
		rc = crush_osd_reweight(c, osd, q->weight, &cause);
		xasprintf(&status,
		    "reweighted item id %d name '%s' to %g in "
		    "crush map",
		    osd, q->name, q->weight);
		break;
	case MON_CRUSH_SET_CLASS:
	case MON_CRUSH_RM_CLASS: {
		char ids[512];
		size_t off = 0;

		ids[0] = '\0';
		for (i = 0; i < q->nosds && rc == 0; i++) {
			rc = q->op == MON_CRUSH_SET_CLASS ?
			    crush_osd_set_class(c, q->osds[i], q->cls, &cause) :
			    crush_osd_rm_class(c, q->osds[i], &cause);
			if (off < sizeof ids)
				off += (size_t)snprintf(ids + off,
				    sizeof ids - off, "%s%d", i ? "," : "",
				    q->osds[i]);
		}
		if (q->op == MON_CRUSH_SET_CLASS)
			xasprintf(&status, "set osd(s) %s to class '%s'", ids,
			    q->cls);
		else
			xasprintf(&status, "done removing class of osd(s): %s",
			    ids);
		break;
	}
	case MON_CRUSH_RULE_CREATE:
		rc = crush_rule_create(c, q->name, q->root, q->type, q->cls,
		    &rid, &cause);
		if (rc == -EEXIST) {
			free(cause);
			crush_free(c);
			mon_crush_now(done, arg, 0, NULL,
			    "rule %s already exists", q->name);
			return;
		}
		/* Ceph answers a new rule with an empty status. */
		status = xstrdup("");
		xasprintf(&same, "created rule %s", q->name);
		break;
	case MON_CRUSH_RULE_RM:
		in_use = xcalloc(m->work.npools + 1, sizeof *in_use);
		for (i = 0; i < m->work.npools; i++)
			in_use[i] = m->work.pools[i].crush_rule;
		rc = crush_rule_remove(c, q->name, in_use, m->work.npools,
		    &cause);
		free(in_use);
		if (rc == -ENOENT) {
			free(cause);
			crush_free(c);
			mon_crush_now(done, arg, 0, NULL,
			    "rule %s does not exist", q->name);
			return;
		}
		status = xstrdup("");
		break;
	}
	if (rc != 0) {
		crush_free(c);
		mon_crush_now(done, arg, rc, NULL, "%s", cause);
	} else {
		if (q->op == MON_CRUSH_RULE_CREATE ||
		    q->op == MON_CRUSH_RULE_RM) {
			/* Logged, though Ceph's answer is empty. */
			if (!crush_equal(c, m->work.crush))
				mon_stage_log(m, MON_LOG_INFO,
				    "crush rule %s %s", q->name,
				    q->op == MON_CRUSH_RULE_RM ? "removed" :
								 "created");
		}
		mon_crush_commit(m, c, status, same, done, arg);
	}
	free(cause);
	free(status);
	free(same);
}

json_t *
mon_crush_dump_json(const struct mon *m)
{
	return m->osdmap.crush != NULL ? crush_to_json(m->osdmap.crush) :
					 json_object();
}

json_t *
mon_crush_class_ls_json(const struct mon *m)
{
	const struct crush *c = m->osdmap.crush;
	json_t *a = json_array(), *v;
	const char *cls;
	uint32_t k, n;
	size_t i;
	int seen;

	n = c != NULL ? crush_max_osd(c) : 0;
	for (k = 0; k < n; k++) {
		if ((cls = crush_osd_class(c, (int32_t)k)) == NULL)
			continue;
		seen = 0;
		json_array_foreach(a, i, v)
			seen |= strcmp(json_string_value(v), cls) == 0;
		if (!seen)
			json_array_append_new(a, json_string(cls));
	}
	return a;
}

json_t *
mon_crush_rule_ls_json(const struct mon *m)
{
	struct crush_rule_info ri;
	json_t *a = json_array();
	size_t i;

	for (i = 0; m->osdmap.crush != NULL &&
	     crush_rule_at(m->osdmap.crush, i, &ri) == 0;
	     i++)
		json_array_append_new(a, json_string(ri.name));
	return a;
}

int
mon_crush_rule_dump_json(const struct mon *m, const char *name, json_t **out,
    char **status)
{
	const struct crush *c = m->osdmap.crush;
	struct crush_rule_info ri;
	size_t i;
	int id;

	if (name == NULL) {
		*out = json_array();
		for (i = 0; c != NULL && crush_rule_at(c, i, &ri) == 0; i++)
			json_array_append_new(*out,
			    crush_rule_to_json(c, ri.id));
		xasprintf(status, "%zu rules", json_array_size(*out));
		return 0;
	}
	if (c == NULL || (id = crush_rule_id(c, name)) < 0) {
		xasprintf(status, "unknown crush rule '%.*s'", 64, name);
		return -ENOENT;
	}
	*out = crush_rule_to_json(c, (uint32_t)id);
	xasprintf(status, "rule %s", name);
	return 0;
}

/* Does OSD o show in `osd tree' with the states of mask (Ceph's OR)? */
static int
mon_crush_tree_shows(const struct osdmap_osd *o, unsigned mask)
{
	if (mask == 0)
		return 1;
	if (o == NULL)
		return 0;
	return ((mask & MON_TREE_UP) && o->up) ||
	    ((mask & MON_TREE_DOWN) && !o->up) ||
	    ((mask & MON_TREE_IN) && o->in) ||
	    ((mask & MON_TREE_OUT) && !o->in);
}

/* An OSD's osdmap columns of `osd tree' into node n. */
static void
mon_crush_tree_osd(json_t *n, const struct osdmap_osd *o)
{
	json_object_set_new(n, "exists", json_integer(o != NULL));
	json_object_set_new(n, "status",
	    json_string(o == NULL ? "DNE" :
		    o->up	  ? "up" :
				    "down"));
	/* REWEIGHT is Ceph's in/out weight. */
	json_object_set_new(n, "reweight",
	    json_real(o != NULL && o->in ?
		    osdmap_weight_to_double(o->reweight) :
		    0.0));
	json_object_set_new(n, "primary_affinity", json_real(1.0));
	if (o != NULL)
		json_object_set_new(n, "in", json_integer(o->in));
}

json_t *
mon_crush_tree_json(const struct osdmap *om, int states, unsigned mask)
{
	const struct crush *c = om->crush;
	struct crush_tree_node *nodes = NULL;
	json_t *tree, *arr, *out, *stray, *n, *kids, *k;
	uint8_t *shown;
	size_t nn = 0, i, j;
	uint32_t id;
	char name[32];

	out = json_array();
	stray = json_array();
	if (c != NULL) {
		tree = crush_tree_to_json(c);
		arr = json_object_get(tree, "nodes");
		nn = crush_tree(c, &nodes);
		shown = xcalloc(nn ? nn : 1, 1);
		/* Bottom up: a bucket shows when it holds an OSD that does. */
		for (i = nn; i-- > 0;) {
			if (nodes[i].id >= 0)
				shown[i] = !states ||
				    mon_crush_tree_shows(
					osdmap_osd(om, nodes[i].id), mask);
			else if (mask == 0 || !states)
				shown[i] = 1;
			for (j = i + 1; !shown[i] && j < nn &&
			     nodes[j].depth > nodes[i].depth;
			     j++)
				shown[i] = nodes[j].id >= 0 && shown[j];
		}
		for (i = 0; i < nn; i++) {
			if (!shown[i])
				continue;
			n = json_incref(json_array_get(arr, i));
			json_object_set_new(n, "depth",
			    json_integer(nodes[i].depth));
			if (nodes[i].id < 0) {
				/* mapmon adds a bucket's weight, for text. */
				json_object_set_new(n, "crush_weight",
				    json_real((double)nodes[i].weight /
					CRUSH_WEIGHT_ONE));
				kids = json_object_get(n, "children");
				for (j = json_array_size(kids); j-- > 0;) {
					int32_t cid = (int32_t)
					    json_integer_value(
						json_array_get(kids, j));
					size_t x;

					for (x = i + 1;
					     x < nn && nodes[x].id != cid; x++)
						;
					if (x == nn || !shown[x])
						json_array_remove(kids, j);
				}
			} else if (states)
				mon_crush_tree_osd(n,
				    osdmap_osd(om, nodes[i].id));
			json_array_append_new(out, n);
		}
		free(shown);
		free(nodes);
		json_decref(tree);
	}
	/* OSDs of the map outside the hierarchy: Ceph's stray list. */
	for (id = 0; states && id < om->max_osd; id++) {
		const struct osdmap_osd *o = &om->osds[id];

		if (!o->exists ||
		    (c != NULL && crush_osd_exists(c, (int32_t)id)) ||
		    !mon_crush_tree_shows(o, mask))
			continue;
		snprintf(name, sizeof name, "osd.%u", id);
		k = json_pack("{s:i, s:s, s:s, s:i, s:f, s:i}", "id", (int)id,
		    "name", name, "type", "osd", "type_id", 0, "crush_weight",
		    c != NULL ? 0.0 : osdmap_weight_to_double(o->weight),
		    "depth", 0);
		mon_crush_tree_osd(k, o);
		json_array_append_new(c != NULL ? stray : out, k);
	}
	return json_pack("{s:o, s:o}", "nodes", out, "stray", stray);
}

json_t *
mon_crush_location_json(const struct crush *c, int32_t id)
{
	struct crush_bucket_info bi;
	json_t *loc = json_object();
	int32_t at = c != NULL ? crush_osd_parent(c, id) : 0;

	/* Ceph's {"host": "h1", "root": "default"}: each bucket above. */
	while (at != 0 && crush_bucket_get(c, at, &bi) == 0) {
		json_object_set_new(loc, crush_type_name(bi.type),
		    json_string(bi.name));
		at = bi.parent;
	}
	return loc;
}
