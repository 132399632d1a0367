/*
 * quorum.h: several monitors, the daemon's side: C-Raft (its v0 API, with
 * raft_uv's disk log under [mon] data/raft) driven from the libevent loop,
 * the monitor core's replication hooks (mon/mon_quorum.h) wired to it, and
 * what quorum_status, mon stat and status say of it.  mapmond(8), QUORUM.
 *
 * One thread: libuv's loop is embedded in libevent's (its backend fd as a
 * read event, its next timeout as a timer), so every raft callback, the
 * state machine's apply included, runs on the monitor's loop.  The longest
 * uv_run() slice is measured (quorum_stats()).
 */
#ifndef QUORUM_H
#define QUORUM_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

#include "conf/conf.h"
#include "map/monmap.h"
#include "mon/mon.h"

struct quorum;

/*
 * Parse a mon_host value, "NAME=HOST:PORT,NAME=HOST:PORT,...", into
 * names and addresses (at most MONMAP_MAX_MONS); *n of them.  0, or -1
 * with *cause naming the bad entry (a name twice, an address twice, no
 * '=', a bad address).  An empty value is 0 monitors.
 */
int quorum_parse_hosts(const char *s, struct monmap_mon *out, size_t *n,
    char **cause);

/*
 * Check that conf's [mon] mon_host, name and bind agree for a quorum: 1
 * with *n monitors when mon_host lists several, 0 when it lists none or
 * one (a single monitor), -1 with *cause.
 */
int quorum_configured(const struct conf *c, struct monmap_mon *mons, size_t *n,
    char **cause);

/*
 * Start the engine for monitor m: its raft directory under [mon] data,
 * the other monitors from m's monmap, replication on in the core.  NULL
 * with *cause when it cannot (the daemon then stops).
 */
struct quorum *quorum_new(struct event_base *, struct mon *m,
    const struct conf *c, char **cause);

/* Close the engine (waits for its disk writes) and free it; NULL: none. */
void quorum_free(struct quorum *);

/*
 * Ceph's quorum_status JSON ("election_epoch", "quorum", "quorum_names",
 * "quorum_leader_name", "quorum_age", "monmap", from the view this
 * monitor serves: mon_quorum_get_view()) plus "raft": term, which view it
 * is, commit and applied index, the longest loop slice.  A new reference.
 */
json_t *quorum_status_json(const struct quorum *, const struct monmap *mm);

/*
 * A read index, for a linearizable read (mapmon-protocol(7), FORWARDING):
 * on the leader, a barrier through the engine, which confirms that it
 * still leads a majority (one barrier for every call made before it was
 * appended: the calls made while one is in flight share the next); then
 * cb(arg, 0, index, NULL) with the number of the last entry committed
 * before it (mon_quorum.h numbering): a read served once the monitor has
 * applied index sees every write acknowledged before the call.
 * cb(arg, -EAGAIN, 0, why) when this monitor does not lead or loses the
 * lead meanwhile.  cb runs on the loop, never from inside this call.  0,
 * or -1 (cb never called) when the engine is not running.
 */
typedef void quorum_index_cb(void *arg, int rc, uint64_t index,
    const char *why);
int quorum_read_index(struct quorum *, quorum_index_cb *cb, void *arg);

/*
 * The file [mon] data/join (a new string): made by mapmond --mkfs --join,
 * its presence makes the first start copy another monitor's store before
 * anything else, and join without a configuration of its own.
 */
char *quorum_join_marker(const struct conf *c);

/*
 * Whether the engine's membership is still being brought to the monmap (a
 * monitor added and not yet a voter, one removed and still in it): 1 with
 * *why (a new string), else 0.  `mon add' waits for it (one change at a
 * time).
 */
int quorum_changing(struct quorum *, char **why);

/* Whether monitor name votes in the engine's configuration. */
int quorum_voter(struct quorum *, const char *name);

/* The engine of this process, or NULL (one monitor). */
struct quorum *quorum_current(void);

/* Figures for /metrics. */
struct quorum_stats {
	uint64_t term;
	uint64_t leader_changes;
	uint64_t uv_slice_max_us;
	uint64_t uv_runs;
	uint64_t snapshots;	   /* taken by this monitor since the start */
	uint64_t appends_dropped;  /* quorum_transport_appends_dropped() */
	uint64_t read_index_reads; /* quorum_read_index() calls */
	uint64_t read_index_barriers; /* the barriers that answered them */
	int is_leader;
};
void quorum_stats(const struct quorum *, struct quorum_stats *out);

#endif /* QUORUM_H */
