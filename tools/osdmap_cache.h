/*
 * osdmap_cache.h: a client's complete, current copy of the osdmap, kept up
 * to date through an osdmap subscription (clients keep a complete copy of
 * the map and receive only what changed), with the placement that
 * goes with it, so that the client computes any PG's mapping itself.
 *
 * Used by mapmon(8) for `pg map` and by the benchmark's OSD simulator.
 *
 * The cache subscribes on a caller's mclient (net/client.h) with
 * {"prefix":"subscribe","what":"osdmap","start":E}: the monitor answers
 * with the full map (E = 0, or E trimmed) or the incrementals after E, and
 * then pushes each new incremental as it commits.  Each message is applied
 * with osdmap_from_json() / osdmap_inc_from_json() + osdmap_apply().  An
 * incremental that does not follow the cached epoch (a gap) makes the
 * cache subscribe again from its epoch; one it already has is ignored.
 *
 * Everything runs on the client's event base thread.
 */
#ifndef OSDMAP_CACHE_H
#define OSDMAP_CACHE_H

#include <jansson.h>

#include "map/osdmap.h"
#include "net/client.h"

struct osdmap_cache;
struct placement;

/*
 * Called after the cached map changed to a new epoch (the first full map
 * included); m is the cache's map, borrowed.
 */
typedef void osdmap_cache_update_cb(void *arg, const struct osdmap *m);

/*
 * Called when the subscription fails (its reply has a negative rc, or a
 * message cannot be applied and resubscribing is not possible): err is a
 * negative errno and msg says what happened.  The cache keeps the last
 * good map.
 */
typedef void osdmap_cache_error_cb(void *arg, int err, const char *msg);

/*
 * A new cache on cl (borrowed: it must outlive the cache).  Nothing is sent
 * until osdmap_cache_start().  Callbacks may be NULL.
 */
struct osdmap_cache *osdmap_cache_new(struct mclient *cl,
    osdmap_cache_update_cb *on_update, osdmap_cache_error_cb *on_error,
    void *arg);

/*
 * Subscribe (from epoch 0: the full map first).  Returns 0, or -1 when the
 * client is dead (the request could not be sent).
 */
int osdmap_cache_start(struct osdmap_cache *);

/*
 * Subscribe again on cl (borrowed, from now on the cache's), a client of
 * another monitor after the first was lost: from the cached epoch (the
 * incrementals after it; epochs it has are ignored), or from 0 when it
 * has no map yet.  0, or -1 as osdmap_cache_start().
 */
int osdmap_cache_resume(struct osdmap_cache *, struct mclient *cl);

/*
 * Apply one message of the subscription (its reply's data or a push):
 * a full map (`osd dump` shape), an incremental, or an object holding
 * "full" / "inc" / "incrementals" members.  Returns 1 when the map changed,
 * 0 when the message held nothing new, -1 with *cause when it could not be
 * applied (the map is then unchanged).  Exposed for tests and for callers
 * that receive maps some other way.
 */
int osdmap_cache_apply_json(struct osdmap_cache *, json_t *msg,
    char **cause);

/* The cached map, NULL until the first full map has arrived. */
const struct osdmap *osdmap_cache_map(const struct osdmap_cache *);

/*
 * The placement of the cached map (built on first use after each change
 * that affects placement), NULL until a map has arrived.  Owned by the
 * cache; valid until the map next changes.
 */
const struct osdmap_place *osdmap_cache_placement(struct osdmap_cache *);

/*
 * The mapping of PG pool.seed in the cached map, as `pg map` prints it:
 * {"epoch","pgid","up","up_primary","acting","acting_primary"}.  Returns a
 * new reference, or NULL with *rc (-ENOENT: no such pool or seed, -EAGAIN:
 * no map yet) and *cause set.
 */
json_t *osdmap_cache_pg_map_json(struct osdmap_cache *, uint32_t pool,
    uint32_t seed, int *rc, char **cause);

/*
 * Free the cache.  The client has no way to end a subscription, and the
 * subscription's callbacks refer to the cache: free the client first
 * (mclient_free()), or free the cache only once the client is dead.
 */
void osdmap_cache_free(struct osdmap_cache *);

#endif /* OSDMAP_CACHE_H */
