/*
 * server.h: the monitor's TCP listener and client connections, on libevent.
 *
 * The server frames bytes (net/frame.h), runs the hello exchange, parses
 * JSON requests and hands them, in the order each connection sent them, to
 * the daemon's callbacks (struct server_ops); the daemon answers with
 * server_reply(), at once or later (a write is answered after its commit),
 * so replies may leave out of order.  It enforces the limits of
 * mapmon-protocol(7) so that no client can crash or stall the daemon:
 *
 *  - max_connections: an accept past it gets one REPLY (-EBUSY, "too many
 *    connections") when the socket takes it at once, and is closed;
 *  - a spare descriptor is kept so that running out of descriptors (EMFILE,
 *    ENFILE) still lets the server accept and close the pending connection
 *    instead of spinning on it; accepting then pauses for a second;
 *  - max_frame bounds a frame's payload: a larger header is answered with
 *    -EMSGSIZE and the connection closed, a partial frame is buffered only up
 *    to that size;
 *  - max_partial_input (0 = none) bounds the bytes of partly received
 *    frames of all connections together, which max_frame alone bounds only
 *    to max_connections times max_frame.  A connection whose frame's header
 *    is in but not its whole payload is granted that frame's size from the
 *    budget before it is read on; when the grants leave no room it is not
 *    read (no busy loop) until a frame completes or a connection goes, and
 *    the waiting are granted in arrival order.  A frame of at most one
 *    read (256 KiB, header included) needs no grant, so small requests are
 *    always served.  So the server holds at most max_partial_input, plus
 *    one read per connection.  The budget in force is at least max_frame
 *    plus a header, so that any frame can be read whole;
 *  - a granted frame that does not arrive whole within idle_timeout_ms
 *    (a client that sends half a frame and stops) closes its connection,
 *    subscribers included: grants are freed, so waiting connections cannot
 *    be held for ever.  A connection waiting for the budget is not idle;
 *  - idle_timeout_ms (0 = none): a connection is idle when, for that long, it
 *    sent no frame, was sent no frame (reply or push) and has no request
 *    waiting for its reply.  Subscribers are never idle: a connection that
 *    has been pushed to, or that the daemon marks with server_set_subscriber()
 *    when it registers a subscription, waits for pushes as long as it likes
 *    (it is still bounded by max_client_output, the write stall below and
 *    the granted-frame rule above);
 *  - max_client_output: when a connection's unsent output passes it (a
 *    reader that does not read), the connection is closed at once and a
 *    warning with the peer address is logged.  Before that point, a client
 *    that pipelines requests faster than it reads replies is throttled:
 *    reading from it stops while its output is above half the cap;
 *  - write stall (bound: idle_timeout_ms, 0 = none): a connection with
 *    unsent output whose socket takes none of it for that long is closed
 *    the same way (a warning with the peer, counted in closed_slow),
 *    subscribers included.  This is what cuts a reader that does not read
 *    when the producer paces itself (server_notify_drained()) and so never
 *    queues past max_client_output.  The clock runs only while output is
 *    pending and restarts whenever the socket takes some.
 *
 * Authentication (mapmon-protocol(7), AUTHENTICATION).  A client whose
 * HELLO offers a key ("auth": a nonce and its ciphers) is answered with
 * the server's nonce and the cipher chosen, and must then send an AUTH
 * frame proving its key over the transcript; the server looks the key up
 * (ops->key), checks the proof in constant time, answers with its own
 * proof, and from then on every frame, each way, is sealed (net/seal.h).
 * A failed attempt is answered -EACCES "authentication failed", the same
 * whether the entity exists or not (an unknown one is checked against a
 * random key, at the same cost), logged with the peer, and counted
 * against its source address (an IPv4 address, an IPv6 /64): the next
 * attempt from there is answered only after auth_fail_delay_ms, doubled at
 * each further failure up to auth_fail_delay_max_ms, attempts made at once
 * waiting in turn; a success forgets the address, and so does ten times
 * the longest delay without a failure.  A client that offers no key is
 * refused -EACCES at its HELLO when auth_required is set, else served
 * without an entity (server_entity() NULL).  A sealed frame that does not
 * open (changed, replayed, out of order) is answered -EBADMSG, sealed, and
 * the connection closed.
 *
 * Replies whose data grows with the maps (a listing of every PG) are
 * written in pieces (server_reply_stream()), each when the connection's
 * output has drained, and sent as they come in parts (REPLY frames with
 * FRAME_FLAG_MORE, mapmon-protocol(7)) to a client whose HELLO offered
 * FRAME_FEATURE_PARTS; so such a reply costs the server about one piece
 * at a time, however large it is and however slowly it is read.  A client
 * that did not offer parts gets it whole, in one frame, up to
 * max_client_output.
 *
 * Malformed input is answered with a REPLY whose rc is a negative errno and
 * whose status names the problem (bad JSON with its line and column):
 *
 *  - bad JSON or a JSON payload that is not an object, in a REQUEST: the
 *    error REPLY, and the connection is kept;
 *  - a bad header (unknown type, nonzero flags or reserved field, oversize),
 *    a frame before HELLO, a bad HELLO, a protocol the server does not
 *    speak (-EPROTONOSUPPORT), a REPLY or PUSH sent by a client, a bad or
 *    failed AUTH, a sealed frame that does not open: the error REPLY, then
 *    the connection is closed once that reply is flushed (at most a second
 *    later).
 *
 * Threads: everything here runs on the event base's thread.  Call every
 * server_* function from that thread (a commit thread hands its results to
 * the loop first, e.g. with event_active()).
 */
#ifndef SERVER_H
#define SERVER_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>
#include <openssl/ssl.h>

#include "common/enc.h"

struct server;

struct server_limits {
	size_t max_connections; /* open client connections at once */
	size_t max_frame;	/* largest payload accepted, in bytes */
	int idle_timeout_ms;	/* idle and write-stall bound; 0: none */
	size_t max_client_output; /* unsent bytes before a reader is cut */
	size_t max_partial_input; /* partly received frames, all; 0: none */
	int auth_required;	  /* a HELLO without a key is refused */
	int auth_fail_delay_ms;	  /* after a failure; 0: none */
	int auth_fail_delay_max_ms;
};

/* The daemon's side.  arg is server_new()'s. */
struct server_ops {
	/*
	 * Fill in the server half of the HELLO reply: *reply_obj is an object
	 * already holding "protocol" and "server" ("mapmon VERSION"); add
	 * "mon" and "fsid" (or replace the object: the server sets "protocol"
	 * again afterwards).  May be NULL.
	 */
	void (*hello)(void *arg, json_t **reply_obj);
	/*
	 * The key of entity name (printable, at most 64 bytes) into
	 * key[SEAL_KEY_LEN]: 0, or -1 when there is no such entity.  May be
	 * NULL: no entity exists, every attempt fails.
	 */
	int (*key)(void *arg, const char *name, uint8_t *key);
	/*
	 * A JSON request object from connection conn_id, in the order the
	 * client sent it.  cmd is borrowed: json_incref() it to keep it.  Every
	 * request must be answered once with server_reply(), now or later;
	 * server_reply() on a connection that has gone returns -1, so a late
	 * answer needs no check first.  May be NULL (every request is then
	 * answered -EOPNOTSUPP).
	 */
	void (*request)(void *arg, uint64_t conn_id, uint64_t req_id,
	    json_t *cmd);
	/*
	 * A BINARY_REQUEST: p[0..len) is the whole payload, starting with its
	 * big-endian u16 opcode (len >= 2 is checked).  p is valid only during
	 * the call.  Answered with server_reply() like a request.  May be NULL.
	 */
	void (*binary)(void *arg, uint64_t conn_id, uint64_t req_id,
	    const uint8_t *p, size_t len);
	/*
	 * Connection conn_id, which completed its hello, has gone: drop its
	 * subscriptions and waiters.  Called from the event loop, never from
	 * inside a server_* call, once per such connection; not called by
	 * server_free().  May be NULL.
	 */
	void (*closed)(void *arg, uint64_t conn_id);
};

struct server_stats {
	uint64_t connections; /* open now */
	uint64_t accepted;    /* since start */
	uint64_t rejected;    /* refused: max_connections or out of fds */
	uint64_t frames_in, frames_out;
	uint64_t bytes_in, bytes_out;
	uint64_t closed_slow; /* output past max_client_output, or stalled */
	uint64_t closed_idle; /* idle_timeout, or a frame not sent whole */
	uint64_t closed_bad;  /* protocol errors */
	uint64_t partial_bytes;	  /* of partly received frames, held now */
	uint64_t partial_granted; /* of max_partial_input granted now */
	uint64_t partial_paused;  /* times a connection waited for the budget */
	uint64_t auth_ok;	  /* handshakes that succeeded */
	uint64_t auth_failed;	  /* attempts refused */
	uint64_t binary_held;	  /* times a connection's binary request
				     was held back (server_hold_binary) */
};

/*
 * Bind and listen on host:port (host is a numeric address or a name; "*" or
 * "" for every address; port 0 lets the kernel pick, see server_port()) and
 * accept clients on base.  ops and limits are copied.  Returns the server,
 * or NULL with *cause naming the address and the reason (address in use,
 * permission denied, unresolvable host).
 */
struct server *server_new(struct event_base *base, const char *host,
    uint16_t port, const struct server_limits *limits,
    const struct server_ops *ops, void *arg, char **cause);

/* The port actually bound (the one chosen when server_new() was given 0). */
uint16_t server_port(const struct server *);

/*
 * Answer request req_id of connection conn_id with {"rc":rc, "status":
 * status, "data": data}.  data is stolen (NULL for JSON null); status may
 * be NULL ("") and need not be valid UTF-8 (bad bytes become '?').  Returns
 * 0, or -1 when the connection has gone (or was just closed because this
 * reply took its output past max_client_output): not an error to log.
 */
int server_reply(struct server *, uint64_t conn_id, uint64_t req_id, int rc,
    const char *status, json_t *data);

/*
 * Push obj (stolen) to connection conn_id as a PUSH frame with id sub_id
 * (the subscribing request's id).  Returns 0, or -1 as server_reply().
 */
int server_push(struct server *, uint64_t conn_id, uint64_t sub_id,
    json_t *obj);

/*
 * Push already serialised JSON text (borrowed, copied) so that the same
 * message goes to many subscribers without being dumped again.  Returns 0,
 * or -1 as server_reply().
 */
int server_push_raw(struct server *, uint64_t conn_id, uint64_t sub_id,
    const void *json_text, size_t len);

/*
 * A reply whose data is written in pieces (see the top of this file), for
 * request req_id of connection conn_id; its rc is 0 (a refusal is known
 * before any piece and goes through server_reply()).  The server calls
 *
 *  - ops->fill(arg, out, &status) for each piece, from the event loop: the
 *    first at once, inside this call, then one per loop turn while the
 *    connection's output is empty, i.e. once what went before has been
 *    handed to the kernel.  fill appends the next piece of the data's JSON
 *    text to out (a piece should be a few hundred KB at most, written in a
 *    millisecond or so) and returns 0 while more follows; 1 when out
 *    completes the text, with *status set to the reply's status (a string
 *    the server frees; NULL for "").  A piece may be empty.
 *  - ops->done(arg, rc) once, when the reply is over: rc 0 once it has
 *    been queued whole; -ECONNRESET when the connection went first (then
 *    from the event loop, never inside a server_* call); -EMSGSIZE when it
 *    outgrew max_client_output (or a frame's 32-bit length) for a client
 *    that does not take parts (it was answered that rc instead); or
 *    server_end_streams()'s rc.  arg is the caller's to free then.  No
 *    fill follows; done may run inside this call, when the reply was
 *    written whole in its first piece.
 *
 * A reply written whole in its first piece, or before SERVER_PART bytes of
 * it wait to be sent, leaves as one frame, byte for byte as server_reply()
 * would send it; a larger one leaves in parts of a piece or more each, the
 * status last: {"rc":0,"data":DATA,"status":STATUS}.  Returns 0, or -1 when the
 * connection has gone (nothing is called; arg stays the caller's).
 */
#define SERVER_PART (64 * 1024)
struct server_stream_ops {
	int (*fill)(void *arg, struct enc_buf *out, char **status);
	void (*done)(void *arg, int rc);
};
int server_reply_stream(struct server *, uint64_t conn_id, uint64_t req_id,
    const struct server_stream_ops *ops, void *arg);

/*
 * End every reply being written in pieces (the daemon stops): one whose
 * first part has not gone is answered rc and status instead, the
 * connection of one cut short is closed once its output is written (its
 * client cannot be told otherwise); each done is called with rc, inside
 * this call.
 */
void server_end_streams(struct server *, int rc, const char *status);

/*
 * Backpressure on binary requests (the OSDs' PG reports): while the hold is
 * on (on != 0), a connection whose next whole frame is a BINARY_REQUEST
 * stops being read there; the frame stays in its input, what follows in
 * its socket (and the client's, whose writes then wait), and nothing is
 * lost or refused.  Other frames, up to that one, are handled as they
 * come, and connections with no binary request go on.  Turning the hold
 * off reads the held connections again, from the loop soon after (never
 * inside this call), until the hold is on again.  A held connection
 * is spared by the idle timeout: the wait is the server's doing.  The held
 * connections are read again first held first, and one held again waits
 * behind the others: none starves.
 */
void server_hold_binary(struct server *, int on);

/*
 * Event priorities.  A connection that has sent a binary request (an OSD's
 * PG reports: bulk traffic) is read as any other, but its frames are
 * handled a frame at a time, connection after connection, by one event at
 * SERVER_PRIO_BULK, below everything else (left at libevent's default, the
 * middle of SERVER_PRIORITIES queues).  On a base of server_base_new() a
 * run of them gives the loop back every SERVER_BULK_SLICE_US
 * (event_config_set_max_dispatch_interval): a command waits for the frame
 * being handled, not for every report that arrived with it, and the
 * sockets are not left readable meanwhile (a loop of 10,000 connections
 * would find them all ready at every look).  On a plain base the bulk
 * frames are handled all in one turn, as they come.
 */
#define SERVER_PRIORITIES 3
#define SERVER_PRIO_BULK 2
#define SERVER_BULK_SLICE_US 500

/* A base as above for a server's loop; NULL when libevent cannot. */
struct event_base *server_base_new(void);

/*
 * Mark (on != 0) or unmark connection conn_id as a subscriber, which the
 * idle timeout spares.  Returns 0, or -1 when the connection has gone.
 */
int server_set_subscriber(struct server *, uint64_t conn_id, int on);

/*
 * Pacing for a producer of many frames (a snapshot): cb(arg, conn_id) is
 * called once, from the event loop, when conn_id's unsent output is empty,
 * i.e. every byte queued has been handed to the kernel; at once (on the
 * next loop turn, never inside this call) when it is empty already.  So a
 * producer that queues its next piece only then holds at most one piece
 * and what the kernel buffers, however slow the reader; a reader that
 * takes nothing is cut by the write-stall bound (idle_timeout_ms).
 * One waiter per connection: a new call replaces the armed one, and cb
 * NULL disarms it.  cb is not called for a connection that goes (the
 * closed op is), nor after server_free().  Returns 0, or -1 when the
 * connection has gone.
 */
typedef void server_drained_cb(void *arg, uint64_t conn_id);
int server_notify_drained(struct server *, uint64_t conn_id,
    server_drained_cb *cb, void *arg);

/*
 * The peer of conn_id as "ADDR:PORT" or "ADDR:PORT (NAME)" once its hello
 * named it, for the daemon's logs; NULL when the connection has gone.  The
 * string belongs to the server and lives as long as the connection.
 */
const char *server_peer(const struct server *, uint64_t conn_id);

/*
 * Speak TLS only ([net] tls_cert, net/tls.h), with ctx (a reference is
 * taken; NULL: plain again), from the next connection accepted: each
 * connection's first byte is awaited (up to idle_timeout_ms, else 10 s);
 * a TLS handshake goes on in an OpenSSL bufferevent, anything else is
 * answered, in the clear, a REPLY of -EPROTO saying the monitor speaks TLS
 * only, and closed.  Call it before the loop runs.
 */
void server_set_tls(struct server *, SSL_CTX *ctx);

/*
 * The entity connection conn_id authenticated as ("osd.3"), or NULL when
 * it offered no key (auth_required off) or has gone.  The string belongs
 * to the server and lives as long as the connection.
 */
const char *server_entity(const struct server *, uint64_t conn_id);

/*
 * Close every connection authenticated as name (its key changed or it was
 * removed), each once what is queued for it has been written: a reply
 * queued just before, to the connection that asked, still reaches it.  A
 * connection with requests in flight (a write a follower forwarded and
 * answers once it has applied it) is read no more and pushed nothing, and
 * closes once they are answered, or after 10 s at the latest.  Returns
 * how many.
 */
size_t server_close_entity(struct server *, const char *name);

/*
 * Change the limits at run time (SIGHUP).  Open connections keep running
 * under the new values; a lower max_connections refuses new clients until
 * enough have left.
 */
void server_set_limits(struct server *, const struct server_limits *);

/*
 * Close the listening socket (SIGTERM); open connections carry on until the
 * daemon frees the server.
 */
void server_stop_accepting(struct server *);

/*
 * Close every connection and the listener and free the server.  The done
 * of a reply still being written is not called (server_end_streams() first).
 */
void server_free(struct server *);

/* Copy the counters into *st. */
void server_stats(const struct server *, struct server_stats *st);

/*
 * Bytes queued to clients and not yet written to their sockets, all
 * connections together (the daemon's shutdown waits for 0 so that the
 * answers of the last commit reach their clients).
 */
size_t server_output_pending(const struct server *);

#endif /* SERVER_H */
