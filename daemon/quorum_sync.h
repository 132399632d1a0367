/*
 * quorum_sync.h: the taking side of a store copied from another monitor
 * (mapmon-protocol(7), STORE SYNC; the providing side is `mon sync',
 * daemon/cmd_sync.c): a monitor whose store is behind the snapshot the
 * engine restores fetches another's store in chunks of [mon]
 * sync_chunk_size, writes it into DATA/store.sync, verifies it, and hands
 * it to the loop, which puts it in place (mon_quorum_synced()).
 *
 * The fetching runs on a thread of its own, with its own event base and
 * client (authenticated as mon.), so that neither the network nor the
 * store writes block the monitor's loop.  Memory is bounded by the chunk
 * size, not by the store.
 */
#ifndef QUORUM_SYNC_H
#define QUORUM_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "map/monmap.h"
#include "store/store.h"

struct quorum_sync;

/* What a copy needs; copied by quorum_sync_start(). */
struct quorum_sync_params {
	const char *data; /* [mon] data: the copy goes in data/store.sync */
	struct store_options so;  /* the monitor's (its backend named) */
	const char *const *addrs; /* the other monitors' client addresses */
	size_t naddrs;
	const uint8_t *mon_key; /* mon.'s key, MON_AUTH_KEY_LEN bytes */
	const char *fsid;
	uint64_t from;	    /* the copy must hold this entry */
	const char *tls_ca; /* [net] tls_ca when the monitors speak TLS */
};

/*
 * Called on the loop once a copy is made and verified: dir holds it
 * (closed), holding entry *entry or later.  Not called on failure: the
 * thread tries the monitors in turn, every second, until it succeeds or
 * is freed.
 */
typedef void quorum_sync_done_cb(void *arg, const char *dir, uint64_t entry);

/*
 * Start fetching on a thread; done (on base's loop) when it is in.  NULL
 * with *cause when the thread or its events cannot be made.
 */
struct quorum_sync *quorum_sync_start(struct event_base *base,
    const struct quorum_sync_params *p, quorum_sync_done_cb *done, void *arg,
    char **cause);

/* Stop (within a chunk's time) and free it; NULL: nothing. */
void quorum_sync_free(struct quorum_sync *);

#endif /* QUORUM_SYNC_H */
