/*
 * mon_quorum.h: the core's side of several monitors replicating every
 * commit through a consensus log (the daemon runs C-Raft: daemon/quorum.h).
 * The core knows no engine: it hands the bytes of a sealed proposal to a
 * callback and is told which entries are committed, in log order.
 *
 * With several monitors, only the leader seals.  A sealed proposal is
 * encoded as one entry, or as several part entries when its encoding is
 * over MON_QUORUM_ENTRY_MAX, applied at the last part (mapmon-protocol(7),
 * "REPLICATED ENTRIES": the
 * changes, the epochs, versions and stamps fixed at seal, never the PGs a
 * pool creation makes, which every monitor computes itself) and handed to
 * the replication; it is written to the store, applied and answered only
 * once its entry is committed and comes back through mon_quorum_commit(),
 * on every monitor alike: one store transaction that also records the
 * entry's number and term (keys.h "Q"), then the in-memory state, then
 * the subscribers.  An entry's number is its position among the entries
 * of the log (1, 2, ...), the same on every monitor: entries at or below
 * the recorded number are skipped, which is how a restart replays the
 * log.  A monitor that is not the leader
 * refuses writes with -EAGAIN; a leader that loses its quorum with a
 * proposal replicating answers its writers -ETIMEDOUT: the outcome is
 * unknown (the entry may still commit under the next leader).
 *
 * Everything here runs on the event-loop thread.
 */
#ifndef MON_QUORUM_H
#define MON_QUORUM_H

#include <stddef.h>
#include <stdint.h>

#include "mon/mon.h"

/*
 * No entry is bigger: a proposal whose encoding would be is replicated as
 * several part entries (mapmon-protocol(7), REPLICATED ENTRIES), up to
 * MON_QUORUM_PARTS_MAX of them; one that needs more is refused (-EFBIG).
 */
#define MON_QUORUM_ENTRY_MAX (1024 * 1024)
#define MON_QUORUM_PARTS_MAX 1024

enum mon_quorum_role {
	MON_QUORUM_NONE,     /* out of quorum: no known leader */
	MON_QUORUM_FOLLOWER, /* a leader is known, and it is another */
	MON_QUORUM_LEADER,   /* this monitor leads */
};

/*
 * Hand the entries of proposal seq (nparts of them, each of len bytes at
 * buf, borrowed for the call; one, or the parts of a proposal split) to
 * the replication, to be appended together and in order: 0 when they are
 * on their way (the outcome comes later, by mon_quorum_commit() or
 * mon_quorum_failed()), -1 with *cause when they could not be proposed
 * (the writers get -EAGAIN and the cause).
 */
struct mon_quorum_part {
	const void *buf;
	size_t len;
};
typedef int mon_replicate_cb(void *arg, uint64_t seq,
    const struct mon_quorum_part *parts, size_t nparts, char **cause);

/*
 * Turn replication on, before any write: from now on nothing is sealed
 * until this monitor leads and is ready, and commits come only from
 * mon_quorum_commit().  Reads the applied index from the store.  0, or -1
 * with *cause naming a bad "Q" record.
 */
int mon_quorum_enable(struct mon *, mon_replicate_cb *, void *arg,
    char **cause);

/*
 * The engine's view changed: role, the term, and the leader's name and
 * client address when one is known (copied; NULL: none).  Losing the lead
 * answers what is pending -EAGAIN and what is replicating -ETIMEDOUT.
 */
void mon_quorum_set_role(struct mon *, enum mon_quorum_role role, uint64_t term,
    const char *leader, const char *leader_addr);

/*
 * The leader has applied every entry of the terms before its own (its
 * barrier came back): it may seal.  OSDs get a fresh report timeout, as
 * after a restart (this monitor had no beacons while it followed).
 */
void mon_quorum_leader_ready(struct mon *);

/*
 * The entry numbered index (len bytes at buf, copied) is committed: it is
 * applied after those before it.  0, or -1 with *cause when it is not a
 * mapmon entry (then nothing is queued: the caller stops, as the log
 * cannot be applied past it).
 */
int mon_quorum_commit(struct mon *, uint64_t index, const void *buf, size_t len,
    char **cause);

/*
 * The entry of proposal seq will not be known committed here (leadership
 * lost, the engine stopping): its writers get -ETIMEDOUT, outcome unknown.
 */
void mon_quorum_failed(struct mon *, uint64_t seq, const char *why);

/*
 * Who is in quorum.  The engine gives each monitor its own view (the
 * daemon refreshes it): the leader hears every follower, so its view is
 * complete; a follower hears the leader only.  So the leader replicates
 * its view (the ranks in quorum, the term, when it was elected) in a
 * commit whenever it changes, when it becomes ready, and when a monitor
 * connects to it anew (a restart: what a follower applied is kept in
 * memory only); every monitor applies it, in log order.  What is served
 * (mon_quorum_get_view()): the leader's own view on the leader; on a
 * follower the leader's last replicated view when it is of the leader
 * and term the follower knows and counts the follower in, else (none
 * yet, or one from before this monitor was heard again) its own partial
 * view; with no leader known, none (out of quorum).
 */
struct mon_quorum_view {
	int self;		 /* this monitor's rank */
	int leader;		 /* its rank, -1: none known (no quorum) */
	int complete;		 /* the leader's view (its own or replicated) */
	uint64_t term;		 /* the election epoch */
	int64_t since;		 /* stamp_now() the leader was elected */
	size_t nin;		 /* ranks in quorum */
	int in[MONMAP_MAX_MONS]; /* 1: rank i is */
};
/* The engine's view of this monitor (a leader's is then replicated). */
void mon_quorum_set_view(struct mon *, const struct mon_quorum_view *);
/* 0 and the view served (above); -1 with one monitor. */
int mon_quorum_get_view(const struct mon *, struct mon_quorum_view *out);
/*
 * A monitor connected to the leader anew (restarted, or its link broke):
 * the leader replicates its view again, as the follower may have lost
 * it.  Nothing on a monitor that does not lead.
 */
void mon_quorum_view_resend(struct mon *);
/*
 * This monitor's name in the monmap, for what its health says of itself
 * (its disk): the first monitor's with one monitor, or before the engine
 * gave the view.  Borrowed.
 */
const char *mon_quorum_self_name(const struct mon *);

/*
 * Decode the "Q" record (the last replicated entry applied): 0 with its
 * number and term, or -1 with *cause when it is corrupt.
 */
int mon_quorum_record_decode(const void *p, size_t len, uint64_t *index,
    uint64_t *term, char **cause);

/*
 * The client address of the leader as this monitor knows it, while it
 * follows (borrowed, until the role changes); NULL when this monitor
 * leads or knows no leader.  What a follower forwards writes to
 * (daemon/forward.h).
 */
const char *mon_quorum_leader_addr(const struct mon *);

/*
 * Call cb(arg, index) each time a replicated entry is applied here (the
 * store, then the in-memory state: a read made from the callback on sees
 * it); cb NULL: none.  One callback per monitor.
 */
typedef void mon_quorum_applied_cb(void *arg, uint64_t index);
void mon_quorum_set_applied_cb(struct mon *, mon_quorum_applied_cb *cb,
    void *arg);

/*
 * The "Q" record of store st: 0 with the number and term of the last entry
 * applied to it (0 and 0 when it has none), or -1 with *cause naming the
 * store (unreadable, corrupt).
 */
int mon_quorum_store_applied(struct store *st, uint64_t *index, uint64_t *term,
    char **cause);

/* What the core knows, for quorum_status, `status' and the metrics. */
struct mon_quorum_info {
	enum mon_quorum_role role;
	int ready; /* the leader may seal */
	uint64_t term;
	uint64_t applied_index; /* durable and applied */
	uint64_t applied_term;
	uint64_t committed_index; /* the newest committed entry seen */
	uint64_t backlog;	  /* committed entries not yet applied */
	uint64_t entries_sealed;  /* entries this monitor proposed */
	uint64_t entry_bytes_max; /* the largest of them */
	uint64_t entry_bytes_total;
	uint64_t entry_raw_bytes_total; /* before compression */
	uint64_t refused_big;		/* over MON_QUORUM_PARTS_MAX entries */
	uint64_t proposals_split;	/* proposed as several entries */
	uint64_t parts_dropped;		/* parts of proposals never whole */
	/* Other monitors' proposals decoded, and the codec thread's time. */
	uint64_t decodes;
	uint64_t decode_us;
	uint64_t unknown_outcomes;
	uint64_t syncs;	    /* stores copied in since the start */
	int syncing;	    /* a copy of the store is awaited */
	int sealing;	    /* a proposal is being encoded, not proposed yet */
	uint64_t sync_from; /* the entry the copy must hold */
};
/* 0 and the figures; -1 with one monitor (no replication). */
int mon_quorum_info(const struct mon *, struct mon_quorum_info *out);

/*
 * Snapshots (mapmon-protocol(7), SNAPSHOTS).  The engine's snapshot is no
 * copy of the maps: the store is the snapshot.  It is a descriptor: the
 * cluster's fsid, the number and term of the last entry it covers, and
 * the entries committed and not yet in the store (the store's "Q" record
 * lags the engine by the entries being written), with their bytes.
 *
 * mon_quorum_snapshot: the descriptor of entry index, the last committed
 * entry handed to the core (a new buffer, *out, the caller frees it).  -1
 * with *cause when it cannot be made now (the store lags by more than a
 * descriptor may carry, or is being copied): the engine tries again later.
 *
 * mon_quorum_restore: the engine restores a descriptor (at every start,
 * and when the leader sends one to a monitor that lags past its log).
 * *index gets its entry (the number of the next entry is *index + 1), and
 * *from the entry its store held.  0 when nothing more is needed: this
 * monitor has the entries (a restart), or its store holds *from and the
 * entries after it come in the descriptor (queued).  1 when the store is
 * behind *from: nothing is applied until a copy of another monitor's
 * store, holding *from or later, is put in place by mon_quorum_synced().
 * -1 with *cause for a bad descriptor or one of another cluster.
 *
 * mon_quorum_synced: the store in directory dir (closed) replaces this
 * monitor's (mon_reload()): its "Q" record must hold the awaited entry;
 * applying resumes after it.  0, or -1 with *cause (the caller stops).
 *
 * mon_quorum_syncing: 1 with the awaited entry in *from (may be NULL)
 * while a copy is awaited, else 0.
 */
int mon_quorum_snapshot(struct mon *, uint64_t index, void **out,
    size_t *outlen, char **cause);
int mon_quorum_restore(struct mon *, const void *buf, size_t len,
    uint64_t *index, uint64_t *from, char **cause);
int mon_quorum_synced(struct mon *, const char *dir,
    const struct store_options *opts, char **cause);
int mon_quorum_syncing(const struct mon *, uint64_t *from);
/*
 * A monitor made to join (mapmond --mkfs --join): its store holds the
 * monmap and keys alone, so nothing is applied on it before a copy of
 * another monitor's store (any entry) is put in place by
 * mon_quorum_synced().
 */
void mon_quorum_join(struct mon *);

/*
 * Encode the store's initial state for a monitor of a quorum: the same
 * records on every monitor made from the one monmap and the keys of
 * client.admin and mon. (mapmond --mkfs).  See mon_mkfs_auth().
 */
int mon_mkfs_quorum(const char *data_dir, const struct store_options *,
    const struct monmap *mm, const uint8_t *admin_key, const uint8_t *mon_key,
    char **cause);

#endif /* MON_QUORUM_H */
