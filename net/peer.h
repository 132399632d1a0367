/*
 * peer.h: monitor-to-monitor connections (mapmon-protocol(7), PEER
 * CONNECTIONS) on libevent: a byte stream between two monitors, opened
 * with the client handshake of AUTHENTICATION (the connecting monitor is
 * the client, entity "mon.", and both sides prove the key), every byte of
 * it carried in sealed STREAM frames.  The daemon relays the consensus
 * engine's connections through them (daemon/quorum_transport.h); nothing
 * here knows the engine.
 *
 * A peer is one connection, made by peer_connect() or accepted by a
 * peer_listener.  Its ops (struct peer_ops) see it become ready (the
 * handshake done), the bytes the other side sent, its output drained, and
 * its end, once, with a negative errno and a message naming the other
 * side and the cause: -EACCES when a proof fails (a monitor made with
 * another "mon." key, a replayed handshake), -EBADMSG when a sealed frame
 * does not open (a flipped bit, a replayed or reordered frame), -EPROTO
 * for what is not the protocol, -ETIMEDOUT when the handshake takes
 * longer than PEER_HANDSHAKE_MS or the other side is silent (see
 * keepalive below), -ECONNRESET when it closes, or the socket's error.
 * The accepting side logs every refusal with the peer's address (the
 * same refusal from the same host at most once every PEER_LOG_QUIET_MS,
 * the others at debug level).
 *
 * Keepalive: a side that has sent nothing for keepalive_ms sends an empty
 * STREAM frame; a connection that received nothing for 3 * keepalive_ms,
 * or whose output the socket has not taken for as long, ends with
 * -ETIMEDOUT.  So a partitioned link ends within that bound, on both
 * sides, instead of waiting on TCP's retransmissions.
 *
 * Everything runs on the event base's thread; every callback may call
 * peer_close() and peer_send().  A peer is freed by peer_close() (which
 * calls no op), or after its closed op returns.
 */
#ifndef PEER_H
#define PEER_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

#include "net/seal.h"

/* The entity whose key monitors prove to each other. */
#define PEER_ENTITY "mon."
/* The feature a peer's HELLO lists. */
#define PEER_FEATURE "peer"
/* Handshake bound, each way. */
#define PEER_HANDSHAKE_MS 5000
/* The largest STREAM payload sent and accepted (plus the tag). */
#define PEER_MAX_FRAME (1024 * 1024)
/* What peer_send() takes before ops->drained is owed. */
#define PEER_HIGH_WATER (4 * 1024 * 1024)
/* A refusal logged at most once per host in this window. */
#define PEER_LOG_QUIET_MS 10000

struct peer;
struct peer_listener;

struct peer_ops {
	/* The handshake is done: bytes may be sent.  May be NULL. */
	void (*ready)(void *arg, struct peer *);
	/* p[0..len) of the other side's stream (borrowed, len > 0). */
	void (*data)(void *arg, const uint8_t *p, size_t len);
	/* The output fell to zero after peer_send() returned 1.  May be NULL. */
	void (*drained)(void *arg);
	/* The end (see above); the peer is freed after it returns. */
	void (*closed)(void *arg, int err, const char *why);
};

/*
 * Connect to host:port (numeric or a name) as entity PEER_ENTITY with key,
 * saying hello (borrowed; copied) in the HELLO's "peer" object (the
 * daemon's identity: its monitor name, raft id, address, fsid).  The
 * other side must prove the same key.  Returns the peer (ops->ready or
 * ops->closed follow, never inside this call), or NULL with *cause when
 * host:port cannot be parsed or no socket can be made.
 */
struct peer *peer_connect(struct event_base *base, const char *host,
    uint16_t port, const uint8_t key[SEAL_KEY_LEN], const json_t *hello,
    int keepalive_ms, const struct peer_ops *ops, void *arg, char **cause);

/* The listener's side (arg is peer_listen()'s). */
struct peer_listener_ops {
	/*
	 * The key of entity name into key: 0, or -1 when there is none (the
	 * attempt then fails as a wrong proof does).
	 */
	int (*key)(void *arg, const char *name, uint8_t key[SEAL_KEY_LEN]);
	/*
	 * Check the connecting monitor's "peer" object (borrowed; NULL when
	 * its HELLO has none) and add this side's own to reply: 0, or a
	 * negative errno with *why (the caller's to free; the connection is
	 * refused and logged with it).
	 */
	int (
	    *hello)(void *arg, const json_t *theirs, json_t *reply, char **why);
	/*
	 * A peer authenticated: the callee takes it, setting its ops with
	 * peer_set_ops() (or closing it) before returning.  theirs is its
	 * "peer" object, borrowed.
	 */
	void (*accept)(void *arg, struct peer *, const json_t *theirs);
};

/*
 * Listen on host:port for peers.  Returns the listener, or NULL with
 * *cause naming the address and the reason.
 */
struct peer_listener *peer_listen(struct event_base *base, const char *host,
    uint16_t port, int keepalive_ms, const struct peer_listener_ops *ops,
    void *arg, char **cause);

/* The port l listens on (the one chosen when given 0). */
uint16_t peer_listener_port(const struct peer_listener *l);

/* Stop listening, end the handshakes under way, free it; NULL: none. */
void peer_listener_free(struct peer_listener *);

/* Set or replace the ops of p (an accepted peer has none before). */
void peer_set_ops(struct peer *p, const struct peer_ops *ops, void *arg);

/*
 * Queue p[0..len) in sealed STREAM frames.  0, 1 when the output is past
 * PEER_HIGH_WATER (ops->drained follows once it has been written), or -1
 * when the peer is not ready or ending (nothing is queued).
 */
int peer_send(struct peer *p, const void *data, size_t len);

/* Unsent bytes queued. */
size_t peer_pending(const struct peer *p);

/* Stop (0) or resume (1) reading from p: what raft has not taken yet. */
void peer_set_reading(struct peer *p, int on);

/* "ADDR:PORT (mon.NAME)" for logs; the peer's string. */
const char *peer_name(const struct peer *p);

/*
 * Close p once its output is written (at most PEER_HANDSHAKE_MS later)
 * and free it; no op is called.  NULL is allowed.
 */
void peer_close(struct peer *p);

#endif /* PEER_H */
