/*
 * quorum_transport.h: the consensus engine's connections between
 * monitors, authenticated with the "mon." key and sealed (mapmon-
 * protocol(7), PEER CONNECTIONS; mapmond(8), QUORUM).
 *
 * A struct raft_uv_transport for raft_uv: its connect and accept hand the
 * engine one end of a socketpair (a libuv pipe), and the daemon relays
 * the other end, on the libevent loop, through a net/peer.h connection to
 * the other monitor's raft port.  So raft_uv writes and reads its own
 * format as it would over TCP, and every byte of it leaves the process
 * inside sealed STREAM frames; nothing is sent in the clear, and a peer
 * that cannot prove the key is refused (and logged, with its address and
 * the cause) before the engine sees a byte of it.
 */
#ifndef QUORUM_TRANSPORT_H
#define QUORUM_TRANSPORT_H

#include <event2/event.h>
#include <raft.h>
#include <raft/uv.h>
#include <uv.h>

#include "mon/mon.h"

/*
 * Set t up, for raft_uv_init(): monitor name of m, listening (once the
 * engine asks) on raft_addr, "HOST:PORT", the same address the engine
 * gives the other monitors.  kick(arg) is called after anything that
 * hands the engine work from the libevent loop (a connection made, bytes
 * for it), so that libuv's loop runs.  keepalive_ms bounds how long a
 * silent or stalled link lives (net/peer.h).  0, or -1 with *cause.
 */
int quorum_transport_init(struct raft_uv_transport *t, uv_loop_t *loop,
    struct event_base *base, struct mon *m, const char *name,
    const char *raft_addr, int keepalive_ms, void (*kick)(void *), void *arg,
    char **cause);

/*
 * lost(arg, id) is called when a link to the monitor of raft id ends (the
 * peer closed it, reset it, or went silent) or cannot be made, before the
 * engine sees its end close.
 */
void quorum_transport_set_lost(struct raft_uv_transport *t,
    void (*lost)(void *, raft_id), void *arg);

/*
 * AppendEntries messages with entries the engine sent that were dropped,
 * not sent: their peer was behind (quorum_transport.c).
 */
uint64_t quorum_transport_appends_dropped(const struct raft_uv_transport *t);

/* Free what quorum_transport_init() made, after the engine closed t. */
void quorum_transport_free(struct raft_uv_transport *t);

#endif /* QUORUM_TRANSPORT_H */
