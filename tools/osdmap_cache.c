/*
 * osdmap_cache.c: a subscribed, complete copy of the osdmap.
 *
 * A resubscription (after a gap) leaves the old subscription in place on
 * the client, which has no way to cancel one: each subscription carries
 * its generation, and messages of an older one are dropped.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "map/osdmap.h"
#include "map/pg.h"
#include "map/placement.h"
#include "tools/osdmap_cache.h"

struct osdmap_cache_sub {
	struct osdmap_cache *cache;
	unsigned gen;
	struct osdmap_cache_sub *next;
};

struct osdmap_cache {
	struct mclient *cl;
	osdmap_cache_update_cb *on_update;
	osdmap_cache_error_cb *on_error;
	void *arg;

	int have_map;
	struct osdmap map;
	struct osdmap_place *placement; /* NULL: to be built */

	unsigned gen;			/* of the current subscription */
	struct osdmap_cache_sub *subs;
};

#define OSDMAP_CACHE_GAP (-2)

struct osdmap_cache *
osdmap_cache_new(struct mclient *cl, osdmap_cache_update_cb *on_update,
    osdmap_cache_error_cb *on_error, void *arg)
{
	struct osdmap_cache *c;

	c = xcalloc(1, sizeof *c);
	c->cl = cl;
	c->on_update = on_update;
	c->on_error = on_error;
	c->arg = arg;
	osdmap_init(&c->map);
	return c;
}

void
osdmap_cache_free(struct osdmap_cache *c)
{
	struct osdmap_cache_sub *s, *next;

	if (c == NULL)
		return;
	for (s = c->subs; s != NULL; s = next) {
		next = s->next;
		free(s);
	}
	if (c->placement != NULL)
		osdmap_place_free(c->placement);
	osdmap_clear(&c->map);
	free(c);
}

const struct osdmap *
osdmap_cache_map(const struct osdmap_cache *c)
{
	return c->have_map ? &c->map : NULL;
}

const struct osdmap_place *
osdmap_cache_placement(struct osdmap_cache *c)
{
	if (!c->have_map)
		return NULL;
	if (c->placement == NULL)
		c->placement = osdmap_place_new(&c->map);
	return c->placement;
}

static void
osdmap_cache_drop_placement(struct osdmap_cache *c)
{
	if (c->placement != NULL)
		osdmap_place_free(c->placement);
	c->placement = NULL;
}

static int
osdmap_cache_full(struct osdmap_cache *c, json_t *j, char **cause)
{
	struct osdmap m;

	osdmap_init(&m);
	if (osdmap_from_json(j, &m, cause) == -1)
		return -1;
	if (c->have_map && m.epoch <= c->map.epoch) {
		osdmap_clear(&m);
		return 0;
	}
	osdmap_clear(&c->map);
	c->map = m;
	c->have_map = 1;
	osdmap_cache_drop_placement(c);
	return 1;
}

static int
osdmap_cache_inc(struct osdmap_cache *c, json_t *j, char **cause)
{
	struct osdmap_inc inc;
	int placement_changes;

	if (osdmap_inc_from_json(j, &inc, cause) == -1)
		return -1;
	if (c->have_map && inc.epoch <= c->map.epoch) {
		osdmap_inc_clear(&inc);
		return 0;
	}
	if (!c->have_map || inc.epoch != c->map.epoch + 1) {
		if (c->have_map)
			xasprintf(cause, "osdmap incremental e%u does not "
			    "follow e%u", inc.epoch, c->map.epoch);
		else
			xasprintf(cause, "osdmap incremental e%u before a full "
			    "map", inc.epoch);
		osdmap_inc_clear(&inc);
		return OSDMAP_CACHE_GAP;
	}
	placement_changes = osdmap_inc_changes_placement(&c->map, &inc);
	if (osdmap_apply(&c->map, &inc, cause) == -1) {
		osdmap_inc_clear(&inc);
		return -1;
	}
	osdmap_inc_clear(&inc);
	if (placement_changes)
		osdmap_cache_drop_placement(c);
	return 1;
}

/* As osdmap_cache_apply_json(), telling a gap (OSDMAP_CACHE_GAP) apart. */
static int
osdmap_cache_apply(struct osdmap_cache *c, json_t *msg, char **cause)
{
	json_t *v, *inc;
	size_t i;
	int rv, changed = 0;

	if (!json_is_object(msg)) {
		xasprintf(cause, "osdmap message is not an object");
		return -1;
	}
	if ((v = json_object_get(msg, "full")) != NULL && !json_is_null(v)) {
		if ((rv = osdmap_cache_full(c, v, cause)) < 0)
			return rv;
		changed |= rv;
	}
	if ((v = json_object_get(msg, "incrementals")) != NULL) {
		if (!json_is_array(v)) {
			xasprintf(cause, "osdmap message: incrementals is not "
			    "an array");
			return -1;
		}
		json_array_foreach(v, i, inc) {
			if ((rv = osdmap_cache_inc(c, inc, cause)) < 0)
				return rv;
			changed |= rv;
		}
	}
	if ((v = json_object_get(msg, "inc")) != NULL && !json_is_null(v)) {
		if ((rv = osdmap_cache_inc(c, v, cause)) < 0)
			return rv;
		changed |= rv;
	}
	if (json_object_get(msg, "full") == NULL &&
	    json_object_get(msg, "incrementals") == NULL &&
	    json_object_get(msg, "inc") == NULL) {
		/* The message is a map or an incremental itself. */
		if (json_object_get(msg, "removed_osds") != NULL)
			return osdmap_cache_inc(c, msg, cause);
		if (json_object_get(msg, "osds") != NULL &&
		    json_object_get(msg, "fsid") != NULL)
			return osdmap_cache_full(c, msg, cause);
		/* Anything else (a bare epoch, a heartbeat) is not news. */
	}
	return changed;
}

int
osdmap_cache_apply_json(struct osdmap_cache *c, json_t *msg, char **cause)
{
	int rv;

	rv = osdmap_cache_apply(c, msg, cause);
	return rv == OSDMAP_CACHE_GAP ? -1 : rv;
}

static int osdmap_cache_subscribe(struct osdmap_cache *, uint32_t start);

/* A message of subscription s: apply it, resubscribe on a gap. */
static void
osdmap_cache_message(struct osdmap_cache_sub *s, json_t *msg)
{
	struct osdmap_cache *c = s->cache;
	char *cause = NULL;
	int rv;

	if (s->gen != c->gen)
		return;
	rv = osdmap_cache_apply(c, msg, &cause);
	if (rv == OSDMAP_CACHE_GAP) {
		free(cause);
		if (osdmap_cache_subscribe(c, c->have_map ? c->map.epoch : 0) ==
		    -1 && c->on_error != NULL)
			c->on_error(c->arg, -ECONNRESET, "osdmap subscription: "
			    "the connection is gone");
		return;
	}
	if (rv == -1) {
		if (c->on_error != NULL)
			c->on_error(c->arg, -EPROTO, cause);
		free(cause);
		return;
	}
	if (rv == 1 && c->on_update != NULL)
		c->on_update(c->arg, &c->map);
}

static void
osdmap_cache_on_push(void *arg, json_t *obj)
{
	osdmap_cache_message(arg, obj);
}

static void
osdmap_cache_on_reply(void *arg, int rc, const char *status, json_t *data)
{
	struct osdmap_cache_sub *s = arg;
	struct osdmap_cache *c = s->cache;
	char *msg;

	if (s->gen != c->gen)
		return;
	if (rc < 0) {
		if (c->on_error != NULL) {
			xasprintf(&msg, "osdmap subscription: %s",
			    status != NULL ? status : "refused");
			c->on_error(c->arg, rc, msg);
			free(msg);
		}
		return;
	}
	if (data != NULL)
		osdmap_cache_message(s, data);
}

static int
osdmap_cache_subscribe(struct osdmap_cache *c, uint32_t start)
{
	struct osdmap_cache_sub *s;
	json_t *cmd;
	int rv;

	s = xcalloc(1, sizeof *s);
	s->cache = c;
	s->gen = ++c->gen;
	s->next = c->subs;
	c->subs = s;
	cmd = json_pack("{s:s, s:s, s:I}", "prefix", "subscribe", "what",
	    "osdmap", "start", (json_int_t)start);
	rv = mclient_subscribe(c->cl, cmd, osdmap_cache_on_push,
	    osdmap_cache_on_reply, s);
	json_decref(cmd);
	return rv;
}

int
osdmap_cache_start(struct osdmap_cache *c)
{
	return osdmap_cache_subscribe(c, 0);
}

int
osdmap_cache_resume(struct osdmap_cache *c, struct mclient *cl)
{
	c->cl = cl;
	return osdmap_cache_subscribe(c, c->have_map ? c->map.epoch : 0);
}

static json_t *
osdmap_cache_id_list(const int32_t *ids, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer(ids[i]));
	return a;
}

json_t *
osdmap_cache_pg_map_json(struct osdmap_cache *c, uint32_t pool,
    uint32_t seed, int *rc, char **cause)
{
	const struct osdmap_pool *p;
	const struct osdmap_place *pl;
	int32_t up[PLACEMENT_MAX_SIZE];
	char name[32], raw[32];
	int n, primary;

	if ((pl = osdmap_cache_placement(c)) == NULL) {
		*rc = -EAGAIN;
		xasprintf(cause, "no osdmap yet");
		return NULL;
	}
	snprintf(raw, sizeof raw, "%u.%x", pool, seed);
	if ((p = osdmap_pool(&c->map, pool)) == NULL) {
		*rc = -ENOENT;
		xasprintf(cause, "pg '%s' does not exist", raw);
		return NULL;
	}
	/* As Ceph: a raw seed past pg_num names the PG it folds to. */
	seed = pg_seed_fold(seed, p->pg_num);
	snprintf(name, sizeof name, "%u.%x", pool, seed);
	n = osdmap_place_pg(pl, pool, p->crush_rule, seed, p->size, up);
	primary = n > 0 ? up[0] : -1;
	return json_pack("{s:I, s:s, s:s, s:o, s:o, s:i, s:i}", "epoch",
	    (json_int_t)c->map.epoch, "raw_pgid", raw, "pgid", name, "up",
	    osdmap_cache_id_list(up, n), "acting", osdmap_cache_id_list(up, n),
	    "up_primary", primary, "acting_primary", primary);
}
