/*
 * client.h: the client side of the mapmon protocol (mapmon-protocol(7)), on
 * libevent, for the CLI, the benchmark and the OSD simulator.
 *
 * Two ways to use it:
 *
 *  - asynchronous, on the caller's event base: mclient_new() connects and
 *    says HELLO; mclient_request() and friends may be called at once (the
 *    requests leave after the HELLO) and as many may be in flight as the
 *    caller likes; each reply is matched to its callback by request id, in
 *    whatever order the monitor answers;
 *  - blocking, for one command: mclient_call().
 *
 * Errors are negative errno values, as the monitor's rc: -ECONNREFUSED when
 * nothing listens at the address, -ETIMEDOUT when the connection and hello
 * take longer than connect_timeout_ms, -ECONNRESET when the connection
 * closes, -EPROTO when the server sends something that is not the protocol,
 * -EPROTONOSUPPORT (or whatever the server answered) when the server refuses
 * the HELLO, -EBUSY when it has too many connections.  A connection error is
 * delivered to every request still waiting (its callback gets the error and
 * a message naming the address as status, data NULL), then to on_error;
 * after that the client is dead and new requests are refused.
 *
 * Authentication (mapmon-protocol(7), AUTHENTICATION): a client with a key
 * (mclient_set_auth(), or the defaults of mclient_default_auth() and the
 * environment) offers it in its HELLO, proves it in an AUTH frame, checks
 * the server's proof, and seals every later frame; the caller sees none of
 * it, and requests made meanwhile leave, sealed, once the keys are known.
 * The monitor's refusal is -EACCES ("... refused authentication as NAME:
 * authentication failed"); a server that cannot prove the key is -EACCES
 * too, a frame that does not open -EBADMSG.  Without a key the HELLO
 * offers none, and a monitor that requires one refuses with -EACCES.
 *
 * The HELLO offers the "parts" feature (FRAME_FEATURE_PARTS), so a large
 * reply (a listing of every PG) may come in several frames: they are
 * gathered, up to 4 GiB, and the callback gets the reply whole, as one
 * JSON object, like any other.
 *
 * Callbacks run on the event base's thread.  Any callback may call any
 * mclient_* function, mclient_free() included.
 */
#ifndef CLIENT_H
#define CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>
#include <openssl/ssl.h>

struct mclient;

/*
 * A reply: rc (0 or a negative errno), its one-line status, data (NULL when
 * the reply's data is null or on a connection error).  status and data are
 * borrowed for the duration of the call (json_incref() data to keep it).
 */
typedef void (*mclient_reply_cb)(void *arg, int rc, const char *status,
    json_t *data);

/* A message pushed for a subscription; obj is borrowed. */
typedef void (*mclient_push_cb)(void *arg, json_t *obj);

/*
 * A message pushed for a subscription, as the JSON text p[0..len) it came
 * in (not NUL-terminated, never parsed; borrowed for the call).
 */
typedef void (*mclient_text_cb)(void *arg, const char *p, size_t len);

/* The server answered the HELLO; hello (borrowed) is its object. */
typedef void (*mclient_ready_cb)(void *arg, json_t *hello);

/* The connection failed or closed: err is a negative errno. */
typedef void (*mclient_error_cb)(void *arg, int err, const char *msg);

/*
 * Split an address: "HOST:PORT", "[IPV6]:PORT", "[IPV6]", a bare IPv6
 * address or a bare "HOST" (the port is then FRAME_DEFAULT_PORT, 6788).
 * Returns 0 with *host (the caller frees it, no brackets) and *port set, or
 * -1 with *cause naming the address and what is wrong with it.
 */
int mclient_parse_addr(const char *addr, char **host, uint16_t *port,
    char **cause);

/*
 * Connect to addr ("host:port", see mclient_parse_addr()) on base and send
 * the HELLO.  on_ready (may be NULL) is called once the server's HELLO
 * arrives; on_error (may be NULL) once, when the connection fails or
 * closes.  connect_timeout_ms (<= 0: none) bounds the connection and the
 * hello together.  Never returns NULL: a bad address is reported through
 * on_error from the event loop (-EINVAL; -EHOSTUNREACH for a name that does
 * not resolve).  Names are resolved with getaddrinfo(), which may block;
 * every address of a name is tried in turn.
 */
struct mclient *mclient_new(struct event_base *base, const char *addr,
    int connect_timeout_ms, mclient_ready_cb on_ready,
    mclient_error_cb on_error, void *arg);

/*
 * The name the HELLO gives ("client.admin", "osd.3"); call it before any
 * request.  name is copied.  A client with a key gives its key's entity
 * instead.
 */
void mclient_set_name(struct mclient *, const char *name);

/*
 * Authenticate as entity name with key (32 bytes; both copied), or offer
 * no key (key NULL), whatever the defaults say; call it before the loop
 * runs (the HELLO leaves once connected).
 */
void mclient_set_auth(struct mclient *, const char *name, const uint8_t *key);

/*
 * The credentials of every client made afterwards that is not given its
 * own: entity name's key from the keyring file at path (keyring.h; a
 * keyring that group or others may read is refused).  Without a call the
 * defaults come, once, from the environment: MAPMON_KEYRING names the
 * keyring, MAPMON_NAME the entity (client.admin), and without
 * MAPMON_KEYRING clients offer no key.  Returns 0, or -1 with *cause
 * (the keyring cannot be read, or has no such entity); a bad environment
 * makes every client fail with -EACCES and that cause.  name NULL and
 * path NULL: offer no key.
 */
int mclient_default_auth(const char *name, const char *path, char **cause);

/*
 * TLS ([net] of mapmon.conf(5), net/tls.h): connect inside TLS with ctx
 * (a reference is taken; NULL: plain), checking the monitor's certificate
 * against the CA of ctx and its name or address against the address
 * given; call it before the loop runs.  A certificate that does not check,
 * or a monitor that does not speak TLS, fails with -EACCES "TLS with ADDR
 * failed: certificate verify failed".
 */
void mclient_set_tls(struct mclient *, SSL_CTX *ctx);

/*
 * The TLS of every client made afterwards: the CA certificate(s) of
 * ca_path (NULL: plain).  Without a call it comes, once, from
 * MAPMON_TLS_CA.  0, or -1 with *cause when the CA cannot be read.
 */
int mclient_default_tls(const char *ca_path, char **cause);

/*
 * Send the JSON command object cmd (borrowed: serialised at once) and call
 * cb(arg, ...) with its reply.  Returns 0, or -1 when the client is dead or
 * cmd cannot be serialised (cb is then never called).
 */
int mclient_request(struct mclient *, const json_t *cmd, mclient_reply_cb cb,
    void *arg);

/*
 * Send a BINARY_REQUEST whose payload is p[0..len) (its big-endian u16
 * opcode first; copied) and call cb with the reply.  Returns 0 or -1 as
 * mclient_request().
 */
int mclient_request_binary(struct mclient *, const void *p, size_t len,
    mclient_reply_cb cb, void *arg);

/*
 * Send a subscribe command; cb gets the initial reply and on_push every
 * message pushed for it afterwards, until the connection ends (or at once
 * never, when the initial reply's rc is negative).  Returns 0 or -1 as
 * mclient_request().
 */
int mclient_subscribe(struct mclient *, const json_t *cmd,
    mclient_push_cb on_push, mclient_reply_cb cb, void *arg);

/*
 * As mclient_subscribe(), each push given to on_text as its text: for a
 * reader that scans pushes faster than a JSON parser reads them (at a full
 * report load the monitor pushes hundreds of megabytes of PG stats a
 * second).  The text is what the monitor sent, unchecked.  Returns 0 or -1
 * as mclient_request().
 */
int mclient_subscribe_text(struct mclient *, const json_t *cmd,
    mclient_text_cb on_text, mclient_reply_cb cb, void *arg);

/* True once the server's HELLO has arrived and until the client dies. */
int mclient_ready(const struct mclient *);

/* The server's HELLO object (borrowed), NULL before it arrives. */
json_t *mclient_server_hello(const struct mclient *);

/* Requests sent and not yet answered (subscriptions not counted). */
size_t mclient_pending(const struct mclient *);

/*
 * Close the connection and free the client.  Requests still waiting get
 * -ECANCELED; on_error is not called.  NULL is allowed.
 */
void mclient_free(struct mclient *);

/*
 * Blocking: connect to addr, send cmd (borrowed), wait for its reply, all
 * within timeout_ms (<= 0: no limit), on a private event base.  Returns the
 * reply's rc, or a negative errno for a connection failure (-ECONNREFUSED,
 * -ETIMEDOUT, -ECONNRESET, -EPROTO, ...).  *data (may be NULL) gets the
 * reply's data, a reference the caller owns (NULL when none); *status (may
 * be NULL) gets the status or the failure's message, which the caller frees.
 */
int mclient_call(const char *addr, int timeout_ms, const json_t *cmd,
    json_t **data, char **status);

#endif /* CLIENT_H */
