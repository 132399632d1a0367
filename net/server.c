/*
 * server.c: the listener, the connections and their limits.
 *
 * A connection goes HELLO -> READY -> (CLOSING -> LINGER) -> dead, or with
 * a key HELLO -> AUTH (our HELLO sent, its AUTH awaited) -> (AUTH_WAIT,
 * while failed attempts from its address delay the verdict) -> READY,
 * sealed.  CLOSING
 * waits for an error reply to leave; LINGER has shut the write side and
 * reads and drops what the client still sends until it closes or a second
 * passes, so that the close does not turn into a reset that would destroy
 * the error reply before the client reads it.  A dead connection leaves the
 * id table at once (later replies to it return -1) but is freed, and the
 * daemon told, from a separate event: the daemon may be in the middle of
 * walking its subscribers when one of them is cut.
 *
 * Partly received frames share one budget, max_partial_input, as Ceph's
 * messenger throttles message bytes: once a frame's header is in and its
 * payload is not, the connection is granted the whole frame's size before
 * it reads on; when the grants already made leave no room, the connection
 * stops being read (its frame and what the last read brought, at most
 * SERVER_MAX_READ, stay held) and waits, in arrival order, for a frame to
 * complete or a connection to go.  A frame no larger than one read
 * (SERVER_MAX_READ) needs no grant: it holds no more than a waiting
 * connection does, and so connections sending small requests are always
 * served.  A
 * granted frame can always complete, so clients that send whole frames
 * never deadlock; one that does not send the rest of its frame is cut
 * after idle_timeout (subscribers included), which frees its grant.
 *
 * A reply written in pieces (struct stream, server_reply_stream()) asks its
 * producer for the next piece from a zero timer, so that a turn of the
 * loop, with the other connections' reads, comes between two pieces, and
 * only while its connection's output is empty (conn_write_cb arms the
 * timer when it empties): a connection holds one piece and what its
 * socket buffers.  A connection's streams end with it, from the reaper,
 * because a producer may be in the middle of a piece when a reply it
 * causes cuts its own connection.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <jansson.h>
#include <openssl/crypto.h>

#include "common/b64.h"
#include "common/idmap.h"
#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "net/frame.h"
#include "net/seal.h"
#include "net/server.h"
#include "net/tls.h"

#define SERVER_LINGER_MS 1000	   /* closing: flush and drain, at most */
/*
 * A connection whose entity's key ended (server_close_entity) waits this
 * long at most for the answers to its requests in flight.
 */
#define SERVER_ENDING_MS 10000
#define SERVER_PAUSE_MS 1000	   /* accept pause when out of descriptors */
#define SERVER_ACCEPTS_PER_WAKE 64 /* fairness toward open connections */
#define SERVER_MAX_READ (256 * 1024)
#define SERVER_NAME_MAX 64
/* The largest reply in one frame to a client that takes no parts. */
#define SERVER_WHOLE_MAX ((size_t)UINT32_MAX - 64 * 1024)
/* Source addresses remembered for their failed attempts, at most. */
#define SERVER_FAILS_MAX 4096
/* An address is forgotten after this many longest delays without failure. */
#define SERVER_FAIL_FORGET 10

enum conn_state {
	CONN_HELLO,
	CONN_AUTH,	/* our HELLO sent: its AUTH is awaited */
	CONN_AUTH_WAIT, /* its verdict waits (failures from its address) */
	CONN_READY,
	CONN_CLOSING,
	CONN_LINGER,
	CONN_DEAD,
};

/*
 * A connection to a TLS listener whose first byte has not come: it is TLS
 * (0x16, a handshake) or a plain client to turn away in words it reads.
 */
struct tls_wait {
	struct server *srv;
	int fd;
	struct sockaddr_storage ss;
	socklen_t len;
	struct event *ev;
	TAILQ_ENTRY(tls_wait) entry;
};

/* The failed attempts of one source address (an IPv4 or an IPv6 /64). */
struct server_fail {
	uint8_t addr[8];
	uint8_t len;
	uint32_t failures;
	int64_t next_us; /* the next attempt's verdict, not before */
	int64_t last_us; /* the last failure */
};

/* A reply written in pieces (server_reply_stream()). */
struct stream {
	struct conn *c;
	uint64_t id; /* the request's */
	const struct server_stream_ops *ops;
	void *arg;
	struct enc_buf piece;  /* lent to the producer for each piece */
	struct evbuffer *text; /* the data's text not sent yet */
	int sent;	       /* parts have gone: the rest goes in parts */
	TAILQ_ENTRY(stream) entry;
};

struct conn {
	struct idmap_node node;	/* node.id: the connection's id, in srv->ids */
	struct server *srv;
	struct bufferevent *bev;
	struct event *timer; /* idle timeout, or the closing deadline */
	enum conn_state state;
	int helloed;	/* the daemon knows it: tell it when it goes */
	int subscriber; /* spared by the idle timeout */
	int throttled;	/* reading stopped until the output drains */
	int held_binary; /* its next frame is a binary request held back */
	int bulk;	 /* sent a binary request: parsed in srv->bulkq */
	int bulk_queued; /* in srv->bulkq */
	TAILQ_ENTRY(conn) hentry; /* srv->heldq, while held_binary */
	TAILQ_ENTRY(conn) bentry; /* srv->bulkq, while bulk_queued */
	size_t inflight;	/* requests dispatched, not yet answered */
	/*
	 * Its entity's key ended with requests in flight: nothing more is
	 * read or pushed, and it closes once they are answered, or at
	 * ending_due (stamp_mono) at the latest.
	 */
	int ending;
	int64_t ending_due;
	int64_t active_us;	/* last frame in or out (stamp_mono) */
	char *peer;		/* "ADDR:PORT" or "ADDR:PORT (NAME)" */

	/* max_partial_input: the frame being read, see the top of this file */
	size_t held;		/* its bytes in the input buffer */
	size_t granted;		/* budget granted to it (its whole size) */
	size_t want;		/* the size it waits to be granted */
	int waiting;		/* on srv->waitq, not read meanwhile */
	int64_t granted_us;	/* when granted (stamp_mono) */
	TAILQ_ENTRY(conn) wentry; /* srv->waitq */

	/* server_notify_drained(): one waiter, told once the output is empty */
	server_drained_cb *drain_cb;
	void *drain_arg;
	struct event *drain_ev;	/* made on first use: already drained */

	/* Replies written in pieces, and whether the client takes parts. */
	TAILQ_HEAD(, stream) streams;
	struct event *stream_ev; /* made on first use: the next pieces */
	int parts;

	/* Authentication (see server.h). */
	uint8_t addr[8]; /* the source address its failures count on */
	uint8_t addr_len;
	char *name;   /* as its HELLO named it */
	char *entity; /* authenticated as, or NULL */
	uint8_t th[SEAL_HASH_LEN];
	enum seal_cipher cipher;
	uint8_t proof[SEAL_PROOF_LEN]; /* the client's, while it waits */
	uint64_t auth_id;
	struct event *auth_ev; /* made when a verdict must wait */
	int sealed;	       /* every frame after our AUTH */
	struct seal rx, tx;
	struct evbuffer *plain; /* the payload of a frame being sealed */
	uint8_t seal_hdr[FRAME_HEADER_SIZE];

	TAILQ_ENTRY(conn) entry; /* srv->conns or srv->dead */
};
TAILQ_HEAD(conn_list, conn);

struct server {
	struct event_base *base;
	struct server_limits limits;
	struct server_ops ops;
	void *arg;

	int listen_fd;
	uint16_t port;
	struct event *listen_ev;
	struct event *pause_ev; /* accept again after running out of fds */
	int spare_fd;		/* given up to accept when out of fds */
	int paused;
	int fd_short;	/* logged a shortage; quiet until an accept works */

	uint64_t next_id;
	struct idmap ids;	/* the connections by id (not the dead) */
	struct conn_list conns;
	struct conn_list dead;
	struct event *reap_ev;

	size_t partial_bytes;	/* sum of the connections' held */
	size_t granted;		/* sum of their granted */
	TAILQ_HEAD(, conn) waitq; /* waiting for max_partial_input */

	/*
	 * server_hold_binary(): the connections held, first held first, and
	 * the event that reads them again.
	 */
	int hold_binary;
	TAILQ_HEAD(, conn) heldq;
	struct event *unhold_ev;

	/*
	 * The bulk connections (net/server.h) with data read and not parsed,
	 * first come first, and the event that parses them a frame at a time.
	 */
	TAILQ_HEAD(, conn) bulkq;
	struct event *bulk_ev;

	/* Failed attempts by source address, and a key for unknown names. */
	struct server_fail *fails;
	size_t nfails;
	uint8_t dummy_key[SEAL_KEY_LEN];

	/* TLS ([net] tls_cert): the context, and the first bytes awaited. */
	SSL_CTX *ssl_ctx;
	TAILQ_HEAD(, tls_wait) tls_waits;
	size_t ntls_waits;

	struct server_stats stats;
};

static void conn_read_cb(struct bufferevent *, void *);
static int conn_parse(struct conn *, int);
static void server_unhold_cb(evutil_socket_t, short, void *);
static void server_bulk_cb(evutil_socket_t, short, void *);
static void conn_write_cb(struct bufferevent *, void *);
static void conn_event_cb(struct bufferevent *, short, void *);
static void conn_timer_cb(evutil_socket_t, short, void *);
static void conn_drain_cb(evutil_socket_t, short, void *);
static void conn_stream_cb(evutil_socket_t, short, void *);
static void conn_kill(struct conn *);
static void server_tls_wait(struct server *, int, const struct sockaddr *,
    socklen_t);
static void conn_auth_verdict(struct conn *);

/* Alive and not closing: HELLO, AUTH, AUTH_WAIT or READY. */
static int
conn_open(const struct conn *c)
{
	return c->state <= CONN_READY;
}

static struct conn *
server_find(const struct server *srv, uint64_t id)
{
	struct idmap_node *n = idmap_find(&srv->ids, id);

	return n != NULL ? idmap_entry(n, struct conn, node) : NULL;
}

static struct timeval
server_tv(int64_t ms)
{
	struct timeval tv;

	if (ms < 0)
		ms = 0;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	return tv;
}

static int
server_timer_add(struct event *ev, int64_t ms)
{
	struct timeval tv = server_tv(ms);

	return evtimer_add(ev, &tv);
}

/* The bytes a connection may buffer for one frame being read. */
static size_t
server_read_high(const struct server *srv)
{
	if (srv->limits.max_frame > SIZE_MAX - FRAME_HEADER_SIZE - SEAL_TAG_LEN)
		return SIZE_MAX;
	return srv->limits.max_frame + FRAME_HEADER_SIZE + SEAL_TAG_LEN;
}

/* The budget of partly received frames in force (0: none). */
static size_t
server_partial_max(const struct server *srv)
{
	size_t min = server_read_high(srv);

	if (srv->limits.max_partial_input == 0)
		return SIZE_MAX;
	/* A largest frame must fit, or it would wait for ever. */
	return srv->limits.max_partial_input < min ? min :
	    srv->limits.max_partial_input;
}

/*
 * Read from c unless something holds it: its output, the budget, or its
 * frames queued in srv->bulkq (read on, a sender that never pauses would
 * keep the socket readable, and the reads at the default priority would
 * starve the bulk queue's turn while the input grew without bound).
 */
static void
conn_update_read(struct conn *c)
{
	if (!conn_open(c))
		return;
	if (c->throttled || c->waiting || c->held_binary || c->ending ||
	    c->bulk_queued || c->state == CONN_AUTH_WAIT)
		bufferevent_disable(c->bev, EV_READ);
	else
		bufferevent_enable(c->bev, EV_READ);
}

/* Grant the connections waiting for the budget, in order, while it lasts. */
static void
server_budget_wake(struct server *srv)
{
	struct conn *c;
	size_t max = server_partial_max(srv);

	while ((c = TAILQ_FIRST(&srv->waitq)) != NULL) {
		if (srv->granted != 0 && (c->want > max ||
		    srv->granted > max - c->want))
			break;
		TAILQ_REMOVE(&srv->waitq, c, wentry);
		c->waiting = 0;
		c->granted = c->want;
		c->want = 0;
		/* The wait was the server's doing: not idle time. */
		c->granted_us = c->active_us = stamp_mono();
		srv->granted += c->granted;
		dout(LOG_NET, 10, "%s: granted %zu bytes of max_partial_input "
		    "after waiting", c->peer, c->granted);
		conn_update_read(c);
	}
}

/* The frame c was reading is done with (whole, or dropped): free its grant. */
static void
conn_budget_release(struct conn *c)
{
	struct server *srv = c->srv;

	if (c->granted == 0)
		return;
	srv->granted -= c->granted;
	c->granted = 0;
	server_budget_wake(srv);
}

/* c holds len bytes of a frame not yet whole. */
static void
conn_set_held(struct conn *c, size_t len)
{
	c->srv->partial_bytes -= c->held;
	c->held = len;
	c->srv->partial_bytes += len;
}

/* c reads no more frames (closing or gone): give back all it holds. */
static void
conn_budget_drop(struct conn *c)
{
	struct server *srv = c->srv;

	conn_set_held(c, 0);
	if (c->waiting) {
		TAILQ_REMOVE(&srv->waitq, c, wentry);
		c->waiting = 0;
		c->want = 0;
	}
	conn_budget_release(c);
}

/*
 * c has the header of a frame of need bytes (header included) and not all
 * of its payload: grant it, or stop reading c until the budget has room.
 */
static void
conn_budget_need(struct conn *c, size_t need)
{
	struct server *srv = c->srv;
	size_t max = server_partial_max(srv);

	/*
	 * A frame no larger than one read holds no more than a waiting
	 * connection may: it needs no grant, so a small request split across
	 * reads never queues behind large frames.
	 */
	if (c->granted != 0 || c->waiting || need <= SERVER_MAX_READ)
		return;
	if (TAILQ_EMPTY(&srv->waitq) && (srv->granted == 0 ||
	    (need <= max && srv->granted <= max - need))) {
		c->granted = need;
		c->granted_us = stamp_mono();
		srv->granted += need;
		return;
	}
	dout(LOG_NET, 5, "%s: a frame of %zu bytes waits for max_partial_input "
	    "(%zu of %zu granted)", c->peer, need, srv->granted, max);
	c->want = need;
	c->waiting = 1;
	TAILQ_INSERT_TAIL(&srv->waitq, c, wentry);
	srv->stats.partial_paused++;
	conn_update_read(c);
}

static void
conn_arm_idle(struct conn *c)
{
	if (!conn_open(c))
		return;
	if (c->srv->limits.idle_timeout_ms > 0)
		server_timer_add(c->timer, c->srv->limits.idle_timeout_ms);
	else
		evtimer_del(c->timer);
}

/*
 * The write-stall bound: libevent's write timeout runs only while output
 * is pending, restarts each time the socket takes bytes, and is not
 * restarted by more output being queued; when it fires it disables
 * writing and reports BEV_EVENT_WRITING | BEV_EVENT_TIMEOUT, which cuts
 * the connection (conn_event_cb).  Its bound is idle_timeout: a peer that
 * takes nothing of what it is sent for that long is as idle as one that
 * says nothing, and a subscriber, which the idle timer spares, is not
 * spared this.
 */
static void
conn_arm_stall(struct conn *c)
{
	struct timeval tv = server_tv(c->srv->limits.idle_timeout_ms);

	if (c->srv->limits.idle_timeout_ms > 0)
		bufferevent_set_timeouts(c->bev, NULL, &tv);
	else
		bufferevent_set_timeouts(c->bev, NULL, NULL);
}


/*
 * Close with a reset: the kernel drops what it still holds for a client
 * that does not read, instead of trickling it out (and keeping the memory)
 * for as long as the client keeps its window shut.
 */
static void
conn_abort(struct conn *c)
{
	struct linger l = {.l_onoff = 1, .l_linger = 0};

	(void)setsockopt(bufferevent_getfd(c->bev), SOL_SOCKET, SO_LINGER, &l,
	    sizeof l);
	conn_kill(c);
}

static void
server_free_ref(const void *data, size_t len mapmon_unused,
    void *extra mapmon_unused)
{
	free((void *)data);
}

/*
 * Start queuing a frame (type, flags, id) of len payload bytes: write its
 * header and return the output to add the payload to, then call
 * conn_send_done().  NULL when nothing is to be queued, with *rv -1 when
 * the connection is gone, or has just been cut because its output was
 * already past the cap (a frame that alone is larger than the cap still
 * goes to a client that reads, but nothing more is queued behind it until
 * it has gone), or 0 for a frame too long for the protocol (dropped).  On
 * a sealed connection the payload goes to c->plain, which
 * conn_send_done() seals into the output behind the header.
 */
static struct evbuffer *
conn_send_begin(struct conn *c, uint8_t type, uint8_t flags, uint64_t id,
    size_t len, int *rv)
{
	struct server *srv = c->srv;
	struct evbuffer *out;
	uint8_t hdr[FRAME_HEADER_SIZE];
	size_t pending;

	*rv = -1;
	if (c->state == CONN_LINGER || c->state == CONN_DEAD)
		return NULL;
	out = bufferevent_get_output(c->bev);
	pending = evbuffer_get_length(out);
	if (pending > srv->limits.max_client_output) {
		log_warnx("%s: %zu bytes of output unsent, past the limit of "
		    "%zu (max_client_output): disconnecting a client that "
		    "does not read", c->peer, pending,
		    srv->limits.max_client_output);
		srv->stats.closed_slow++;
		conn_abort(c);
		return NULL;
	}
	*rv = 0;
	if (len > UINT32_MAX - (c->sealed ? SEAL_TAG_LEN : 0)) {
		log_warnx("%s: a %s frame of %zu bytes does not fit the "
		    "protocol's 32-bit length; dropped", c->peer,
		    frame_type_name(type), len);
		return NULL;
	}
	if (c->sealed) {
		frame_encode_header_flags(c->seal_hdr, type, flags,
		    (uint32_t)(len + SEAL_TAG_LEN), id);
		evbuffer_add(out, c->seal_hdr, sizeof c->seal_hdr);
		return c->plain;
	}
	frame_encode_header_flags(hdr, type, flags, (uint32_t)len, id);
	evbuffer_add(out, hdr, sizeof hdr);
	return out;
}

/*
 * Seal the payload gathered in c->plain into the output, behind the header
 * conn_send_begin() put there: encrypted a chain at a time straight into
 * space reserved in the output, then the tag.  -1 when it cannot be sealed
 * (the direction has sealed SEAL_MAX_FRAMES frames): the caller ends the
 * connection.
 */
static int
conn_seal_out(struct conn *c)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	struct evbuffer_iovec dst, src[16];
	struct evbuffer_ptr at;
	size_t n = evbuffer_get_length(c->plain), done = 0;
	int i, k;

	if (seal_begin(&c->tx, c->seal_hdr) == -1 ||
	    evbuffer_reserve_space(out, (ev_ssize_t)(n + SEAL_TAG_LEN), &dst,
		1) != 1)
		return -1;
	evbuffer_ptr_set(c->plain, &at, 0, EVBUFFER_PTR_SET);
	while (done < n) {
		k = evbuffer_peek(c->plain, -1, &at, src, (int)nitems(src));
		if (k <= 0)
			return -1;
		for (i = 0; i < k && i < (int)nitems(src); i++) {
			if (seal_update(&c->tx, src[i].iov_base, src[i].iov_len,
				(uint8_t *)dst.iov_base + done) == -1)
				return -1;
			done += src[i].iov_len;
		}
		if (done < n &&
		    evbuffer_ptr_set(c->plain, &at, done, EVBUFFER_PTR_SET) ==
			-1)
			return -1;
	}
	if (seal_end(&c->tx, (uint8_t *)dst.iov_base + n) == -1)
		return -1;
	dst.iov_len = n + SEAL_TAG_LEN;
	evbuffer_commit_space(out, &dst, 1);
	evbuffer_drain(c->plain, n);
	return 0;
}

/* A frame of len payload bytes is queued: count it, and throttle. */
static void
conn_send_done(struct conn *c, size_t len)
{
	struct server *srv = c->srv;
	size_t pending;

	if (c->sealed && conn_seal_out(c) == -1) {
		log_warnx("%s: cannot seal a frame (%llu sealed): closing",
		    c->peer, (unsigned long long)c->tx.counter);
		evbuffer_drain(c->plain, evbuffer_get_length(c->plain));
		conn_abort(c);
		return;
	}
	srv->stats.frames_out++;
	srv->stats.bytes_out += FRAME_HEADER_SIZE + len +
	    (c->sealed ? SEAL_TAG_LEN : 0);
	c->active_us = stamp_mono();

	/* Throttle a pipelining client before it reaches the cap. */
	pending = evbuffer_get_length(bufferevent_get_output(c->bev));
	if (c->state == CONN_READY && !c->throttled &&
	    pending > srv->limits.max_client_output / 2) {
		c->throttled = 1;
		bufferevent_disable(c->bev, EV_READ);
		bufferevent_setwatermark(c->bev, EV_WRITE,
		    srv->limits.max_client_output / 4, 0);
	}
}

/*
 * Queue one frame.  p is freed with free() when take is set (also on
 * failure), else copied.  Returns 0, or -1 as conn_send_begin().
 */
static int
conn_send(struct conn *c, uint8_t type, uint64_t id, const char *p, size_t len,
    int take)
{
	struct evbuffer *out;
	int rv;

	if ((out = conn_send_begin(c, type, 0, id, len, &rv)) != NULL) {
		if (len > 0 && take &&
		    evbuffer_add_reference(out, p, len, server_free_ref,
			NULL) == 0)
			take = 0; /* libevent frees it once sent */
		else if (len > 0)
			evbuffer_add(out, p, len);
		conn_send_done(c, len);
	}
	if (take)
		free((void *)p);
	return rv;
}

/* Queue {"rc", "status", "data"}; data is stolen. */
static int
conn_send_reply(struct conn *c, uint8_t type, uint64_t id, int rc,
    const char *status, json_t *data)
{
	json_t *obj;
	char *s;
	size_t len;

	obj = json_object();
	json_object_set_new(obj, "rc", json_integer(rc));
	json_object_set_new(obj, "status", frame_json_string_lossy(status));
	json_object_set_new(obj, "data", data != NULL ? data : json_null());
	s = frame_dump_json(obj, &len);
	json_decref(obj);
	if (s == NULL) {
		/* Cannot happen for a json_t jansson built; answer anyway. */
		s = NULL;
		xasprintf(&s, "{\"rc\":%d,\"status\":\"reply could not be "
		    "encoded\",\"data\":null}", -EIO);
		len = strlen(s);
	}
	return conn_send(c, type, id, s, len, 1);
}

/* Shut the write side and drop what still comes, until EOF or deadline. */
static void
conn_linger(struct conn *c)
{
	c->state = CONN_LINGER;
	if (shutdown(bufferevent_getfd(c->bev), SHUT_WR) == -1) {
		conn_kill(c);
		return;
	}
	bufferevent_enable(c->bev, EV_READ);
}

/* Close once what is queued has left (at most SERVER_LINGER_MS). */
static void
conn_close_flushed(struct conn *c)
{
	c->state = CONN_CLOSING;
	c->throttled = 0;
	conn_budget_drop(c);
	bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	server_timer_add(c->timer, SERVER_LINGER_MS);
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		conn_linger(c);
}

/*
 * A protocol error: answer it (rc, status naming the problem), then close
 * once the answer has left.
 */
static void
conn_fail(struct conn *c, uint64_t id, int rc, const char *status)
{
	struct server *srv = c->srv;

	dout(LOG_NET, 1, "%s: closing after a protocol error: %s", c->peer,
	    status);
	srv->stats.closed_bad++;
	if (conn_send_reply(c, FRAME_REPLY, id, rc, status, NULL) == -1)
		return;
	conn_close_flushed(c);
}

/* Gone now: out of the table at once, freed by server_reap_cb. */
static void
conn_kill(struct conn *c)
{
	struct server *srv = c->srv;

	if (c->state == CONN_DEAD)
		return;
	c->state = CONN_DEAD;
	conn_budget_drop(c);
	if (c->held_binary) {
		c->held_binary = 0;
		TAILQ_REMOVE(&srv->heldq, c, hentry);
	}
	if (c->bulk_queued) {
		c->bulk_queued = 0;
		TAILQ_REMOVE(&srv->bulkq, c, bentry);
	}
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	evtimer_del(c->timer);
	c->drain_cb = NULL;
	if (c->drain_ev != NULL)
		event_del(c->drain_ev);
	if (c->stream_ev != NULL)
		event_del(c->stream_ev);
	if (c->auth_ev != NULL)
		event_del(c->auth_ev);
	idmap_remove(&srv->ids, &c->node);
	TAILQ_REMOVE(&srv->conns, c, entry);
	TAILQ_INSERT_TAIL(&srv->dead, c, entry);
	srv->stats.connections = idmap_count(&srv->ids);
	event_active(srv->reap_ev, EV_TIMEOUT, 0);
}

/* Take s off its connection and free it; its done is the caller's. */
static void
stream_free(struct stream *s)
{
	TAILQ_REMOVE(&s->c->streams, s, entry);
	enc_buf_free(&s->piece);
	evbuffer_free(s->text);
	free(s);
}

/* End s: done(rc), then free it. */
static void
stream_end(struct stream *s, int rc)
{
	const struct server_stream_ops *ops = s->ops;
	void *arg = s->arg;

	stream_free(s);
	ops->done(arg, rc);
}

static void
conn_free(struct conn *c)
{
	while (!TAILQ_EMPTY(&c->streams))
		stream_free(TAILQ_FIRST(&c->streams));
	bufferevent_free(c->bev);
	event_free(c->timer);
	if (c->drain_ev != NULL)
		event_free(c->drain_ev);
	if (c->stream_ev != NULL)
		event_free(c->stream_ev);
	if (c->auth_ev != NULL)
		event_free(c->auth_ev);
	if (c->plain != NULL)
		evbuffer_free(c->plain);
	seal_clear(&c->rx);
	seal_clear(&c->tx);
	OPENSSL_cleanse(c->th, sizeof c->th);
	free(c->name);
	free(c->entity);
	free(c->peer);
	free(c);
}

static void
server_reap_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct server *srv = arg;
	struct conn *c;

	while ((c = TAILQ_FIRST(&srv->dead)) != NULL) {
		TAILQ_REMOVE(&srv->dead, c, entry);
		dout(LOG_NET, 5, "%s: connection %llu closed", c->peer,
		    (unsigned long long)c->node.id);
		while (!TAILQ_EMPTY(&c->streams))
			stream_end(TAILQ_FIRST(&c->streams), -ECONNRESET);
		if (c->helloed && srv->ops.closed != NULL)
			srv->ops.closed(srv->arg, c->node.id);
		conn_free(c);
	}
}

/* The failure record of c's address, or NULL; made when create is set. */
static struct server_fail *
server_fail_find(struct server *srv, const struct conn *c, int create)
{
	struct server_fail *f, *oldest = NULL;
	int64_t now = stamp_mono(), forget;
	size_t i;

	forget = (int64_t)SERVER_FAIL_FORGET *
	    srv->limits.auth_fail_delay_max_ms * 1000;
	for (i = 0; i < srv->nfails; i++) {
		f = &srv->fails[i];
		/* Forgotten: quiet for long enough (or never to be delayed). */
		if (now - f->last_us > forget) {
			srv->fails[i--] = srv->fails[--srv->nfails];
			continue;
		}
		if (f->len == c->addr_len &&
		    memcmp(f->addr, c->addr, c->addr_len) == 0)
			return f;
		if (oldest == NULL || f->last_us < oldest->last_us)
			oldest = f;
	}
	if (!create || c->addr_len == 0)
		return NULL;
	if (srv->nfails == SERVER_FAILS_MAX)
		f = oldest;
	else {
		if (srv->fails == NULL)
			srv->fails = xcalloc(SERVER_FAILS_MAX,
			    sizeof *srv->fails);
		f = &srv->fails[srv->nfails++];
	}
	memset(f, 0, sizeof *f);
	memcpy(f->addr, c->addr, c->addr_len);
	f->len = c->addr_len;
	return f;
}

/* The delay after n failures: fail_delay doubled, up to fail_delay_max. */
static int64_t
server_fail_delay_us(const struct server *srv, uint32_t n)
{
	int64_t d = srv->limits.auth_fail_delay_ms;
	int64_t max = srv->limits.auth_fail_delay_max_ms;

	if (n == 0 || d <= 0)
		return 0;
	for (; n > 1 && d < max; n--)
		d *= 2;
	return (d < max ? d : max) * 1000;
}

/* A printable name of at most 64 bytes, as the HELLO's "name" must be. */
static int
server_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > SERVER_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] > 0x7e)
			return 0;
	return 1;
}

/*
 * The "auth" of a client's HELLO: its nonce and ciphers.  Fills the
 * server's answer (our nonce and the cipher chosen) into reply.  0, or -1
 * answered (the connection closes).
 */
static int
conn_hello_auth(struct conn *c, const struct frame_header *h, json_t *auth,
    json_t *reply)
{
	uint8_t nonce[SEAL_NONCE_LEN];
	char *why = NULL, *status, *ours;
	int rc;

	if ((rc = seal_hello_offer(auth, nonce, &c->cipher, &why)) != 0) {
		xasprintf(&status, "bad HELLO: %s", why);
		conn_fail(c, h->id, rc, rc == -EINVAL ? status : why);
		free(status);
		free(why);
		return -1;
	}
	if (c->name == NULL) {
		conn_fail(c, h->id, -EINVAL,
		    "bad HELLO: a key is offered "
		    "without the \"name\" of its entity");
		return -1;
	}
	if (seal_random(nonce, sizeof nonce) == -1) {
		log_warnx("%s: the system's random generator failed", c->peer);
		conn_fail(c, h->id, -EIO, "the server cannot make a nonce");
		return -1;
	}
	ours = b64_encode(nonce, sizeof nonce);
	json_object_set_new(reply, "auth",
	    json_pack("{s:s, s:s}", "nonce", ours, "cipher",
		seal_cipher_name(c->cipher)));
	free(ours);
	return 0;
}

/* The client's HELLO: check the protocol, answer with ours. */
static void
conn_hello(struct conn *c, const struct frame_header *h, const uint8_t *p)
{
	struct server *srv = c->srv;
	json_t *obj, *reply, *proto, *name, *feature, *auth;
	const char *offer;
	char *cause, *status, *s;
	size_t len, i, n;
	json_int_t v;

	if ((obj = frame_parse_json(p, h->len, &cause)) == NULL) {
		xasprintf(&status, "bad HELLO: %s", cause);
		conn_fail(c, h->id, -EINVAL, status);
		free(status);
		free(cause);
		return;
	}
	proto = json_object_get(obj, "protocol");
	if (!json_is_integer(proto)) {
		conn_fail(c, h->id, -EINVAL, "bad HELLO: \"protocol\" is "
		    "missing or not an integer");
		json_decref(obj);
		return;
	}
	if ((v = json_integer_value(proto)) != FRAME_PROTOCOL) {
		xasprintf(&status, "protocol %lld not supported (server "
		    "speaks %d)", (long long)v, FRAME_PROTOCOL);
		conn_fail(c, h->id, -EPROTONOSUPPORT, status);
		free(status);
		json_decref(obj);
		return;
	}
	name = json_object_get(obj, "name");
	if (name != NULL && !json_is_string(name)) {
		conn_fail(c, h->id, -EINVAL, "bad HELLO: \"name\" is not a "
		    "string");
		json_decref(obj);
		return;
	}
	auth = json_object_get(obj, "auth");
	if (name != NULL) {
		/* Only printable ASCII reaches the log lines built from it. */
		s = xstrndup(json_string_value(name), SERVER_NAME_MAX);
		n = strlen(s);
		for (i = 0; i < n; i++) {
			if (s[i] < 0x20 || s[i] > 0x7e)
				s[i] = '?';
		}
		xasprintf(&cause, "%s (%s)", c->peer, s);
		free(s);
		free(c->peer);
		c->peer = cause;
		if (server_name_ok(json_string_value(name)))
			c->name = xstrdup(json_string_value(name));
		else if (auth != NULL) {
			conn_fail(c, h->id, -EINVAL,
			    "bad HELLO: \"name\" must "
			    "be 1 to 64 printable characters, no blanks");
			json_decref(obj);
			return;
		}
	}
	if (auth == NULL && srv->limits.auth_required) {
		dout(LOG_NET, 1,
		    "%s: refused: it offers no key ([auth] "
		    "required)",
		    c->peer);
		conn_fail(c, h->id, -EACCES,
		    "authentication required: this "
		    "monitor serves only clients with a key (a keyring: "
		    "mapmon -k, MAPMON_KEYRING)");
		json_decref(obj);
		return;
	}
	/* Features are offers: one not understood is no error. */
	json_array_foreach(json_object_get(obj, "features"), i, feature) {
		offer = json_string_value(feature);
		if (offer != NULL && strcmp(offer, FRAME_FEATURE_PARTS) == 0)
			c->parts = 1;
	}

	reply = json_object();
	json_object_set_new(reply, "protocol", json_integer(FRAME_PROTOCOL));
	json_object_set_new(reply, "server",
	    json_string("mapmon " PACKAGE_VERSION));
	if (srv->ops.hello != NULL)
		srv->ops.hello(srv->arg, &reply);
	if (!json_is_object(reply)) {
		json_decref(reply);
		reply = json_object();
	}
	json_object_set_new(reply, "protocol", json_integer(FRAME_PROTOCOL));
	if (auth != NULL && conn_hello_auth(c, h, auth, reply) == -1) {
		json_decref(reply);
		json_decref(obj);
		return;
	}
	json_decref(obj);
	s = frame_dump_json(reply, &len);
	json_decref(reply);
	if (s == NULL) {
		conn_fail(c, h->id, -EIO, "server HELLO could not be encoded");
		return;
	}
	if (auth != NULL) {
		/* Both HELLOs as sent: the transcript both sides prove. */
		seal_transcript(c->th, p, h->len, s, len);
		c->state = CONN_AUTH;
		dout(LOG_NET, 5, "%s: hello with a key, connection %llu",
		    c->peer, (unsigned long long)c->node.id);
	} else {
		c->state = CONN_READY;
		c->helloed = 1;
		dout(LOG_NET, 5, "%s: hello, connection %llu", c->peer,
		    (unsigned long long)c->node.id);
	}
	conn_send(c, FRAME_HELLO, h->id, s, len, 1);
}

static void
conn_auth_timer_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct conn *c = arg;

	if (c->state != CONN_AUTH_WAIT)
		return;
	conn_auth_verdict(c);
	/* Frames the client sent meanwhile, sealed behind its AUTH. */
	if (c->state == CONN_READY)
		conn_read_cb(c->bev, c);
}

/*
 * The client's AUTH: {"proof": BASE64}.  Its verdict now, or once the
 * failures of its address allow (CONN_AUTH_WAIT: not read meanwhile).
 */
static void
conn_auth(struct conn *c, const struct frame_header *h, const uint8_t *p)
{
	struct server *srv = c->srv;
	struct server_fail *f;
	struct timeval tv;
	char *cause = NULL, *status;
	int64_t now = stamp_mono(), at;

	if (seal_auth_parse(p, h->len, c->proof, &cause) == -1) {
		xasprintf(&status, "bad AUTH: %s", cause);
		srv->stats.auth_failed++;
		conn_fail(c, h->id, -EINVAL, status);
		free(status);
		free(cause);
		return;
	}
	c->auth_id = h->id;
	f = server_fail_find(srv, c, 0);
	if (f == NULL || f->failures == 0) {
		conn_auth_verdict(c);
		return;
	}
	/* Attempts from a failing address wait in turn. */
	at = f->next_us > now ? f->next_us : now;
	f->next_us = at + server_fail_delay_us(srv, f->failures);
	if (at <= now) {
		conn_auth_verdict(c);
		return;
	}
	if (c->auth_ev == NULL &&
	    (c->auth_ev = evtimer_new(srv->base, conn_auth_timer_cb, c)) ==
		NULL)
		fatalx("cannot make an auth timer");
	c->state = CONN_AUTH_WAIT;
	conn_update_read(c);
	tv = server_tv((at - now + 999) / 1000);
	evtimer_add(c->auth_ev, &tv);
	dout(LOG_NET, 5,
	    "%s: its address failed %u times: the verdict waits "
	    "%lld ms",
	    c->peer, f->failures, (long long)(at - now) / 1000);
}

/* The proof of c's AUTH checked: sealed and READY, or refused. */
static void
conn_auth_verdict(struct conn *c)
{
	struct server *srv = c->srv;
	struct server_fail *f;
	uint8_t key[SEAL_KEY_LEN], want[SEAL_PROOF_LEN], c2s[SEAL_KEY_LEN];
	uint8_t s2c[SEAL_KEY_LEN], ours[SEAL_PROOF_LEN];
	char *b64, *text;
	size_t len;
	int known, ok;

	/* An unknown name costs the same and fails the same way. */
	known = srv->ops.key != NULL &&
	    srv->ops.key(srv->arg, c->name, key) == 0;
	if (!known)
		memcpy(key, srv->dummy_key, sizeof key);
	seal_proof(want, key, 0, c->th);
	ok = seal_proof_equal(want, c->proof) && known;
	if (!ok) {
		OPENSSL_cleanse(key, sizeof key);
		srv->stats.auth_failed++;
		f = server_fail_find(srv, c, 1);
		if (f != NULL) {
			f->failures++;
			f->last_us = stamp_mono();
			if (f->next_us <
			    f->last_us + server_fail_delay_us(srv, f->failures))
				f->next_us = f->last_us +
				    server_fail_delay_us(srv, f->failures);
		}
		log_warnx("%s: authentication as %s failed (%u failed from "
			  "this address; its next attempt waits %lld ms)",
		    c->peer, c->name, f != NULL ? f->failures : 0,
		    f != NULL ?
			(long long)server_fail_delay_us(srv, f->failures) /
			    1000 :
			0LL);
		c->state = CONN_AUTH; /* conn_fail from AUTH_WAIT too */
		conn_fail(c, c->auth_id, -EACCES, "authentication failed");
		return;
	}
	seal_session_keys(key, c->th, c2s, s2c);
	seal_proof(ours, key, 1, c->th);
	OPENSSL_cleanse(key, sizeof key);
	if ((c->plain = evbuffer_new()) == NULL ||
	    seal_init(&c->rx, c->cipher, c2s, 0) == -1 ||
	    seal_init(&c->tx, c->cipher, s2c, 1) == -1) {
		OPENSSL_cleanse(c2s, sizeof c2s);
		OPENSSL_cleanse(s2c, sizeof s2c);
		conn_fail(c, c->auth_id, -ENOMEM,
		    "the server cannot set up "
		    "the session's ciphers");
		return;
	}
	OPENSSL_cleanse(c2s, sizeof c2s);
	OPENSSL_cleanse(s2c, sizeof s2c);
	b64 = b64_encode(ours, sizeof ours);
	xasprintf(&text, "{\"proof\":\"%s\"}", b64);
	free(b64);
	len = strlen(text);
	/* Our AUTH goes in the clear; every frame after it is sealed. */
	conn_send(c, FRAME_AUTH, c->auth_id, text, len, 1);
	c->sealed = 1;
	c->entity = xstrdup(c->name);
	c->state = CONN_READY;
	c->helloed = 1;
	srv->stats.auth_ok++;
	if ((f = server_fail_find(srv, c, 0)) != NULL)
		f->last_us = INT64_MIN / 2; /* forgotten at the next look */
	conn_update_read(c);
	dout(LOG_NET, 5, "%s: authenticated as %s, %s, connection %llu",
	    c->peer, c->entity, seal_cipher_name(c->cipher),
	    (unsigned long long)c->node.id);
}

/* One whole frame, p being its payload. */
static void
conn_frame(struct conn *c, const struct frame_header *h, const uint8_t *p)
{
	struct server *srv = c->srv;
	json_t *cmd;
	char *cause, *status;

	if (c->state == CONN_HELLO) {
		if (h->type != FRAME_HELLO) {
			xasprintf(&status, "expected a HELLO frame first, not "
			    "%s", frame_type_name(h->type));
			conn_fail(c, h->id, -EINVAL, status);
			free(status);
			return;
		}
		conn_hello(c, h, p);
		return;
	}
	if (c->state == CONN_AUTH) {
		if (h->type != FRAME_AUTH) {
			xasprintf(&status,
			    "expected an AUTH frame after a "
			    "HELLO with a key, not %s",
			    frame_type_name(h->type));
			conn_fail(c, h->id, -EINVAL, status);
			free(status);
			return;
		}
		conn_auth(c, h, p);
		return;
	}

	switch (h->type) {
	case FRAME_REQUEST:
		if ((cmd = frame_parse_json(p, h->len, &cause)) == NULL) {
			dout(LOG_NET, 5, "%s: request %llu: %s", c->peer,
			    (unsigned long long)h->id, cause);
			conn_send_reply(c, FRAME_REPLY, h->id, -EINVAL, cause,
			    NULL);
			free(cause);
			return;
		}
		c->inflight++;
		if (srv->ops.request != NULL)
			srv->ops.request(srv->arg, c->node.id, h->id, cmd);
		else
			server_reply(srv, c->node.id, h->id, -EOPNOTSUPP,
			    "this server answers no requests", NULL);
		json_decref(cmd);
		break;
	case FRAME_BINARY_REQUEST:
		if (h->len < 2) {
			conn_send_reply(c, FRAME_REPLY, h->id, -EINVAL,
			    "binary request shorter than its opcode", NULL);
			return;
		}
		c->inflight++;
		if (srv->ops.binary != NULL)
			srv->ops.binary(srv->arg, c->node.id, h->id, p, h->len);
		else
			server_reply(srv, c->node.id, h->id, -EOPNOTSUPP,
			    "this server answers no binary requests", NULL);
		break;
	default:
		xasprintf(&status, "a client may not send %s frames%s",
		    frame_type_name(h->type),
		    h->type == FRAME_HELLO || h->type == FRAME_AUTH ? " twice" :
								      "");
		conn_fail(c, h->id, -EINVAL, status);
		free(status);
		break;
	}
}

/*
 * Data read from c: its frames handled now, or, for a bulk connection, in
 * its turn in srv->bulkq (server_bulk_cb), not read from meanwhile.
 */
static void
conn_read_cb(struct bufferevent *bev mapmon_unused, void *arg)
{
	struct conn *c = arg;
	struct server *srv = c->srv;

	if (c->bulk && c->state == CONN_READY && !c->ending) {
		if (!c->bulk_queued) {
			c->bulk_queued = 1;
			TAILQ_INSERT_TAIL(&srv->bulkq, c, bentry);
			conn_update_read(c);
			event_active(srv->bulk_ev, 0, 0);
		}
		return;
	}
	conn_parse(c, INT_MAX);
}

/*
 * Handle up to max_frames whole frames of c's input; 1 when whole frames
 * are left for a later call, 0 when what is left is the start of one.
 */
static int
conn_parse(struct conn *c, int max_frames)
{
	struct server *srv = c->srv;
	struct evbuffer *in = bufferevent_get_input(c->bev);
	struct frame_header h;
	uint8_t *p;
	size_t len, max;
	char *cause;
	int r, nframes = 0;

	if (c->state == CONN_CLOSING || c->state == CONN_LINGER) {
		evbuffer_drain(in, evbuffer_get_length(in));
		return 0;
	}
	memset(&h, 0, sizeof h);
	while ((c->state == CONN_HELLO || c->state == CONN_AUTH ||
		   c->state == CONN_READY) &&
	    !c->ending) {
		len = evbuffer_get_length(in);
		if (len < FRAME_HEADER_SIZE)
			break;
		/* A sealed frame's length counts its tag. */
		max = srv->limits.max_frame + (c->sealed ? SEAL_TAG_LEN : 0);
		p = evbuffer_pullup(in, FRAME_HEADER_SIZE);
		r = frame_decode_header(p, len, max, &h, &cause);
		if (r == -1) {
			conn_fail(c, h.id, frame_header_errno(&h, max), cause);
			free(cause);
			break;
		}
		if (r == 0)
			break;
		/*
		 * Held back (server_hold_binary()): the frame stays in the
		 * input and the rest in the socket, read when released.
		 */
		if (srv->hold_binary && c->state == CONN_READY &&
		    h.type == FRAME_BINARY_REQUEST) {
			if (!c->held_binary) {
				c->held_binary = 1;
				TAILQ_INSERT_TAIL(&srv->heldq, c, hentry);
				srv->stats.binary_held++;
			}
			conn_update_read(c);
			break;
		}
		if (nframes == max_frames) {
			/* Whole frames wait for the next turn: no grant. */
			conn_set_held(c, evbuffer_get_length(in));
			return 1;
		}
		nframes++;
		if (h.type == FRAME_BINARY_REQUEST)
			c->bulk = 1;
		len = FRAME_HEADER_SIZE + (size_t)h.len;
		p = evbuffer_pullup(in, (ev_ssize_t)len);
		srv->stats.frames_in++;
		srv->stats.bytes_in += len;
		c->active_us = stamp_mono();
		/* Whole: its grant goes back before it is handled. */
		conn_set_held(c, 0);
		conn_budget_release(c);
		if (c->sealed) {
			uint64_t nth = c->rx.counter;

			if (seal_open(&c->rx, p, p + FRAME_HEADER_SIZE, h.len,
				&cause) == -1) {
				log_warnx("%s: sealed frame %llu: %s: closing",
				    c->peer, (unsigned long long)nth, cause);
				conn_fail(c, h.id, -EBADMSG, cause);
				free(cause);
				break;
			}
			h.len -= SEAL_TAG_LEN;
		}
		conn_frame(c, &h, p + FRAME_HEADER_SIZE);
		/* in outlives a kill: the reaper frees the bev. */
		evbuffer_drain(in, len);
	}
	if (c->state == CONN_CLOSING || c->state == CONN_LINGER) {
		evbuffer_drain(in, evbuffer_get_length(in));
		return 0;
	}
	if (c->state == CONN_DEAD)
		return 0;
	/* What is left is the start of a frame (or, waiting, whole ones). */
	len = evbuffer_get_length(in);
	conn_set_held(c, len);
	if (len >= FRAME_HEADER_SIZE && c->state != CONN_AUTH_WAIT)
		conn_budget_need(c, FRAME_HEADER_SIZE + (size_t)h.len);
	return 0;
}

/* The output is empty: tell the waiter of server_notify_drained(), once. */
static void
conn_drained(struct conn *c)
{
	server_drained_cb *cb = c->drain_cb;

	if (cb == NULL || !conn_open(c))
		return;
	c->drain_cb = NULL;
	cb(c->drain_arg, c->node.id);
}

/* Armed while the output was already empty: from the loop, not the call. */
static void
conn_drain_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct conn *c = arg;

	/* Output queued since then: conn_write_cb tells once it has gone. */
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		conn_drained(c);
}

/*
 * Ask c's streams for their next pieces on the next loop turn, when its
 * output is empty; else conn_write_cb asks once it is.
 */
static void
conn_stream_kick(struct conn *c)
{
	static const struct timeval now;

	if (TAILQ_EMPTY(&c->streams) || c->state != CONN_READY ||
	    evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
		return;
	if (c->stream_ev == NULL)
		c->stream_ev = evtimer_new(c->srv->base, conn_stream_cb, c);
	if (c->stream_ev == NULL)
		fatalx("cannot make a stream event");
	evtimer_add(c->stream_ev, &now);
}

/* A request is answered: the connection is idle again once none waits. */
static void
conn_answered(struct conn *c)
{
	if (c->inflight > 0)
		c->inflight--;
	if (c->inflight == 0)
		c->active_us = stamp_mono();
	/* Closed on the next loop turn, once this answer is queued. */
	if (c->inflight == 0 && c->ending && c->state == CONN_READY)
		server_timer_add(c->timer, 0);
}

/* The JSON text of a status (the caller frees it). */
static char *
server_status_text(const char *status)
{
	json_t *j = frame_json_string_lossy(status);
	char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);

	json_decref(j);
	return s != NULL ? s : xstrdup("\"\"");
}

/*
 * Queue a frame of s's reply: head, the text gathered (moved, not copied)
 * and tail; head and tail may be NULL.  Returns 0, or -1 as
 * conn_send_begin().
 */
static int
stream_send(struct stream *s, uint8_t flags, const char *head, const char *tail)
{
	struct evbuffer *out;
	size_t hlen = head != NULL ? strlen(head) : 0;
	size_t tlen = tail != NULL ? strlen(tail) : 0;
	size_t len = hlen + evbuffer_get_length(s->text) + tlen;
	int rv;

	if ((out = conn_send_begin(s->c, FRAME_REPLY, flags, s->id, len,
		 &rv)) == NULL) {
		evbuffer_drain(s->text, evbuffer_get_length(s->text));
		return rv;
	}
	if (hlen > 0)
		evbuffer_add(out, head, hlen);
	evbuffer_add_buffer(out, s->text);
	if (tlen > 0)
		evbuffer_add(out, tail, tlen);
	conn_send_done(s->c, len);
	return 0;
}

/*
 * s's text is whole: send it, as the one frame of its reply or as the last
 * part, and end s.  Returns -1 when the connection went meanwhile (the
 * reaper ends s), else 0.
 */
static int
stream_finish(struct stream *s, const char *status)
{
	struct conn *c = s->c;
	char *st = server_status_text(status), *head = NULL, *tail = NULL;
	int rv;

	if (s->sent)
		xasprintf(&tail, ",\"status\":%s}", st);
	else
		xasprintf(&head, "{\"rc\":0,\"status\":%s,\"data\":", st);
	rv = stream_send(s, 0, head, s->sent ? tail : "}");
	free(head);
	free(tail);
	free(st);
	conn_answered(c);
	if (rv == -1)
		return -1;
	stream_end(s, 0);
	return 0;
}

/*
 * The next piece of s, and what it makes go: a part once SERVER_PART bytes
 * wait (a client that takes parts), the whole reply once its text is
 * complete, or a refusal once it outgrows SERVER_WHOLE_MAX (a client that
 * does not).  Returns -1 when the connection has gone or is going (the
 * piece's own work, a commit it settled, may have cut it), else 0.
 */
static int
stream_step(struct stream *s)
{
	struct conn *c = s->c;
	struct server *srv = c->srv;
	char *status = NULL;
	size_t len;
	int done, rv;

	done = s->ops->fill(s->arg, &s->piece, &status);
	/* Copied in a piece at a time, never regrown whole. */
	evbuffer_add(s->text, s->piece.data, s->piece.len);
	enc_buf_reset(&s->piece);
	if (c->state != CONN_READY) {
		free(status);
		return -1;
	}
	if (done) {
		rv = stream_finish(s, status);
		free(status);
		return rv;
	}
	len = evbuffer_get_length(s->text);
	if (c->parts) {
		if (len < SERVER_PART)
			return 0;
		rv = stream_send(s, FRAME_FLAG_MORE,
		    s->sent ? NULL : "{\"rc\":0,\"data\":", NULL);
		s->sent = 1;
		return rv;
	}
	if (len <= srv->limits.max_client_output && len <= SERVER_WHOLE_MAX)
		return 0;
	dout(LOG_NET, 1, "%s: refused a reply past max_client_output", c->peer);
	xasprintf(&status,
	    "reply larger than max_client_output (%zu "
	    "bytes); it is sent in parts to a client that offers \"%s\"",
	    srv->limits.max_client_output, FRAME_FEATURE_PARTS);
	rv = conn_send_reply(c, FRAME_REPLY, s->id, -EMSGSIZE, status, NULL);
	free(status);
	conn_answered(c);
	if (rv == -1)
		return -1;
	stream_end(s, -EMSGSIZE);
	return 0;
}

/* The next piece of each of c's streams, while its output is empty. */
static void
conn_stream_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct conn *c = arg;
	struct stream *s, *next;

	if (c->state != CONN_READY ||
	    evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
		return;
	for (s = TAILQ_FIRST(&c->streams); s != NULL; s = next) {
		next = TAILQ_NEXT(s, entry);
		if (stream_step(s) == -1)
			return;
	}
	conn_stream_kick(c);
}

static void
conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct server *srv = c->srv;
	size_t pending = evbuffer_get_length(bufferevent_get_output(bev));

	if (c->state == CONN_CLOSING) {
		if (pending == 0)
			conn_linger(c);
		return;
	}
	if (c->throttled && pending <= srv->limits.max_client_output / 4) {
		c->throttled = 0;
		bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
		conn_update_read(c);
		/* Frames may have arrived whole while reading was off. */
		conn_read_cb(bev, c);
	}
	if (pending == 0) {
		conn_drained(c);
		conn_stream_kick(c);
	}
}

static void
conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;
	struct server *srv = c->srv;

	if ((what & BEV_EVENT_TIMEOUT) && (what & BEV_EVENT_WRITING)) {
		if (!conn_open(c)) {
			conn_kill(c);
			return;
		}
		log_warnx("%s: %zu bytes of output unsent and none taken for "
		    "%d ms (idle_timeout): disconnecting a client that does "
		    "not read", c->peer,
		    evbuffer_get_length(bufferevent_get_output(bev)),
		    srv->limits.idle_timeout_ms);
		srv->stats.closed_slow++;
		conn_abort(c);
		return;
	}
	if (what & BEV_EVENT_ERROR)
		dout(LOG_NET, 5, "%s: connection error: %s", c->peer,
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
	else if ((what & BEV_EVENT_EOF) && c->state != CONN_LINGER)
		dout(LOG_NET, 5, "%s: closed by the client", c->peer);
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		conn_kill(c);
}

static void
conn_timer_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct conn *c = arg;
	struct server *srv = c->srv;
	int64_t idle_ms, timeout = srv->limits.idle_timeout_ms;

	if (c->state == CONN_CLOSING || c->state == CONN_LINGER) {
		conn_kill(c);
		return;
	}
	if (c->ending) {
		idle_ms = (c->ending_due - stamp_mono()) / 1000;
		if (c->inflight == 0 || idle_ms <= 0)
			conn_close_flushed(c);
		else
			server_timer_add(c->timer, idle_ms);
		return;
	}
	if (timeout <= 0)
		return;
	/* A granted frame must come whole in time: its grant holds others. */
	if (c->granted > 0) {
		idle_ms = (stamp_mono() - c->granted_us) / 1000;
		if (idle_ms >= timeout) {
			dout(LOG_NET, 1, "%s: a frame of %zu bytes not "
			    "received whole in %lld ms (idle_timeout): "
			    "closing", c->peer, c->granted, (long long)idle_ms);
			srv->stats.closed_idle++;
			conn_kill(c);
			return;
		}
	}
	/* Waiting for the budget or a verdict is the server's doing. */
	if (c->subscriber || c->inflight > 0 || c->waiting || c->held_binary ||
	    c->state == CONN_AUTH_WAIT) {
		server_timer_add(c->timer, c->granted > 0 ? timeout -
		    (stamp_mono() - c->granted_us) / 1000 : timeout);
		return;
	}
	idle_ms = (stamp_mono() - c->active_us) / 1000;
	if (idle_ms < timeout) {
		server_timer_add(c->timer, timeout - idle_ms);
		return;
	}
	dout(LOG_NET, 1, "%s: idle for %lld ms (idle_timeout): closing",
	    c->peer, (long long)idle_ms);
	srv->stats.closed_idle++;
	conn_kill(c);
}

static char *
server_format_addr(const struct sockaddr *sa, socklen_t len)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV], *s;

	if (getnameinfo(sa, len, host, sizeof host, serv, sizeof serv,
	    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		return xstrdup("unknown");
	if (sa->sa_family == AF_INET6)
		xasprintf(&s, "[%s]:%s", host, serv);
	else
		xasprintf(&s, "%s:%s", host, serv);
	return s;
}

/*
 * The source address failures count against: an IPv4 address (a mapped
 * one too), or the /64 of an IPv6 one (a host has the whole of it).
 */
static void
server_addr_key(const struct sockaddr *sa, uint8_t *out, uint8_t *len)
{
	const struct sockaddr_in6 *s6;
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff,
		0xff };

	*len = 0;
	if (sa->sa_family == AF_INET) {
		memcpy(out, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		*len = 4;
	} else if (sa->sa_family == AF_INET6) {
		s6 = (const struct sockaddr_in6 *)sa;
		if (memcmp(s6->sin6_addr.s6_addr, mapped, 12) == 0) {
			memcpy(out, s6->sin6_addr.s6_addr + 12, 4);
			*len = 4;
		} else {
			memcpy(out, s6->sin6_addr.s6_addr, 8);
			*len = 8;
		}
	}
}

/*
 * A new connection on fd; ssl (taken) when it speaks TLS: libevent's
 * OpenSSL bufferevent then carries its frames, the rest is the same.
 */
static void
server_conn_new(struct server *srv, int fd, const struct sockaddr *sa,
    socklen_t salen, SSL *ssl)
{
	struct conn *c;
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	c = xcalloc(1, sizeof *c);
	c->srv = srv;
	c->node.id = srv->next_id++;
	c->state = CONN_HELLO;
	c->peer = server_format_addr(sa, salen);
	server_addr_key(sa, c->addr, &c->addr_len);
	c->active_us = stamp_mono();
	if (ssl != NULL) {
		c->bev = bufferevent_openssl_socket_new(srv->base, fd, ssl,
		    BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
		/* Our close is a FIN after the reply: no close_notify. */
		if (c->bev != NULL)
			bufferevent_openssl_set_allow_dirty_shutdown(c->bev, 1);
		else
			SSL_free(ssl);
	} else
		c->bev = bufferevent_socket_new(srv->base, fd,
		    BEV_OPT_CLOSE_ON_FREE);
	c->timer = evtimer_new(srv->base, conn_timer_cb, c);
	if (c->bev == NULL || c->timer == NULL) {
		log_warnx("%s: cannot set up the connection (out of memory)",
		    c->peer);
		if (c->bev != NULL)
			bufferevent_free(c->bev);
		else
			close(fd);
		if (c->timer != NULL)
			event_free(c->timer);
		free(c->peer);
		free(c);
		return;
	}
	TAILQ_INIT(&c->streams);
	bufferevent_setcb(c->bev, conn_read_cb, conn_write_cb, conn_event_cb,
	    c);
	bufferevent_setwatermark(c->bev, EV_READ, 0, server_read_high(srv));
	bufferevent_set_max_single_read(c->bev, SERVER_MAX_READ);
	conn_arm_stall(c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	idmap_insert(&srv->ids, &c->node);
	TAILQ_INSERT_TAIL(&srv->conns, c, entry);
	srv->stats.connections = idmap_count(&srv->ids);
	srv->stats.accepted++;
	conn_arm_idle(c);
	dout(LOG_NET, 10, "%s: accepted, connection %llu", c->peer,
	    (unsigned long long)c->node.id);
}

/*
 * Past max_connections: one REPLY if the socket takes it now, then close.
 * The client may already have sent its HELLO: read it away first, so that
 * the close is a FIN and not a reset that could destroy the reply.
 */
static void
server_refuse(struct server *srv, int fd)
{
	uint8_t frame[256];
	char text[160];
	int n;

	n = snprintf(text, sizeof text, "{\"rc\":%d,\"status\":\"too many "
	    "connections (max_connections %zu)\",\"data\":null}", -EBUSY,
	    srv->limits.max_connections);
	if (n > 0 && (size_t)n < sizeof text) {
		frame_encode_header(frame, FRAME_REPLY, (uint32_t)n, 0);
		memcpy(frame + FRAME_HEADER_SIZE, text, (size_t)n);
		(void)!send(fd, frame, FRAME_HEADER_SIZE + (size_t)n,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	(void)shutdown(fd, SHUT_WR);
	(void)!recv(fd, frame, sizeof frame, MSG_DONTWAIT);
	close(fd);
	srv->stats.rejected++;
}

static void
tls_wait_free(struct tls_wait *w)
{
	TAILQ_REMOVE(&w->srv->tls_waits, w, entry);
	w->srv->ntls_waits--;
	event_free(w->ev);
	free(w);
}

/*
 * A plain client on a TLS listener: one REPLY in the clear, saying so, and
 * closed (as server_refuse()).
 */
static void
server_refuse_plain(struct server *srv, int fd)
{
	uint8_t frame[256];
	char text[192];
	int n;

	n = snprintf(text, sizeof text,
	    "{\"rc\":%d,\"status\":\"this monitor "
	    "speaks TLS only ([net] tls_cert): connect with TLS (mapmon "
	    "--tls-ca)\",\"data\":null}",
	    -EPROTO);
	if (n > 0 && (size_t)n < sizeof text) {
		frame_encode_header(frame, FRAME_REPLY, (uint32_t)n, 0);
		memcpy(frame + FRAME_HEADER_SIZE, text, (size_t)n);
		(void)!send(fd, frame, FRAME_HEADER_SIZE + (size_t)n,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	(void)shutdown(fd, SHUT_WR);
	(void)!recv(fd, frame, sizeof frame, MSG_DONTWAIT);
	close(fd);
	srv->stats.rejected++;
}

/* The first byte of a TLS listener's connection has come (or never). */
static void
tls_wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tls_wait *w = arg;
	struct server *srv = w->srv;
	uint8_t first;
	ssize_t n;
	SSL *ssl;

	if (what & EV_TIMEOUT) {
		dout(LOG_NET, 5, "a connection sent nothing: closing");
		close(fd);
		tls_wait_free(w);
		return;
	}
	n = recv(fd, &first, 1, MSG_PEEK);
	if (n == -1 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		close(fd);
	} else if (first != TLS_HANDSHAKE_BYTE) {
		dout(LOG_NET, 1, "refusing a client that does not speak TLS");
		server_refuse_plain(srv, fd);
	} else if ((ssl = SSL_new(srv->ssl_ctx)) == NULL) {
		log_warnx("cannot set up TLS for a connection: OpenSSL "
			  "failed");
		close(fd);
	} else
		server_conn_new(srv, fd, (struct sockaddr *)&w->ss, w->len,
		    ssl);
	tls_wait_free(w);
}

/* Wait for the first byte of fd (at most idle_timeout, else 10 s). */
static void
server_tls_wait(struct server *srv, int fd, const struct sockaddr *sa,
    socklen_t len)
{
	struct tls_wait *w = xcalloc(1, sizeof *w);
	struct timeval tv;

	w->srv = srv;
	w->fd = fd;
	memcpy(&w->ss, sa, len);
	w->len = len;
	if ((w->ev = event_new(srv->base, fd, EV_READ | EV_PERSIST, tls_wait_cb,
		 w)) == NULL)
		fatalx("cannot make a TLS wait event");
	TAILQ_INSERT_TAIL(&srv->tls_waits, w, entry);
	srv->ntls_waits++;
	tv = server_tv(srv->limits.idle_timeout_ms > 0 ?
		srv->limits.idle_timeout_ms :
		10000);
	event_add(w->ev, &tv);
}

void
server_set_tls(struct server *srv, SSL_CTX *ctx)
{
	if (ctx != NULL)
		SSL_CTX_up_ref(ctx);
	SSL_CTX_free(srv->ssl_ctx);
	srv->ssl_ctx = ctx;
}

static void
server_pause_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct server *srv = arg;

	srv->paused = 0;
	if (srv->listen_ev != NULL)
		event_add(srv->listen_ev, NULL);
}

/*
 * Out of descriptors (OpenSMTPD's trick): give up the spare one, accept the
 * waiting connection and close it, take the spare back, and stop accepting
 * for a moment instead of waking up on the same connection in a loop.
 */
static void
server_fd_shortage(struct server *srv, int error)
{
	int fd;

	if (srv->spare_fd != -1) {
		close(srv->spare_fd);
		srv->spare_fd = -1;
	}
	fd = accept(srv->listen_fd, NULL, NULL);
	if (fd != -1) {
		close(fd);
		srv->stats.rejected++;
	} else if (errno != EAGAIN && errno != EWOULDBLOCK)
		log_warn("accept on port %u with the spare descriptor given "
		    "up", srv->port);
	srv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (!srv->fd_short)
		log_warnx("accept on port %u: %s: refusing connections and "
		    "pausing accept for %d ms at a time until descriptors "
		    "are free", srv->port, strerror(error), SERVER_PAUSE_MS);
	else
		dout(LOG_NET, 1, "accept on port %u: %s: a connection was "
		    "refused", srv->port, strerror(error));
	srv->fd_short = 1;
	event_del(srv->listen_ev);
	srv->paused = 1;
	server_timer_add(srv->pause_ev, SERVER_PAUSE_MS);
}

static void
server_accept_cb(evutil_socket_t lfd, short events mapmon_unused, void *arg)
{
	struct server *srv = arg;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, i;

	for (i = 0; i < SERVER_ACCEPTS_PER_WAKE; i++) {
		len = sizeof ss;
		fd = accept4(lfd, (struct sockaddr *)&ss, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			switch (errno) {
			case EINTR:
			case ECONNABORTED:
				continue;
			case EAGAIN:
#if EWOULDBLOCK != EAGAIN
			case EWOULDBLOCK:
#endif
				return;
			case EMFILE:
			case ENFILE:
				server_fd_shortage(srv, errno);
				return;
			default:
				log_warn("accept on port %u", srv->port);
				return;
			}
		}
		if (srv->fd_short) {
			log_info("accept on port %u: descriptors are "
			    "available again", srv->port);
			srv->fd_short = 0;
		}
		if (idmap_count(&srv->ids) + srv->ntls_waits >=
		    srv->limits.max_connections) {
			dout(LOG_NET, 1, "refusing a connection: %zu open "
			    "(max_connections)", idmap_count(&srv->ids));
			server_refuse(srv, fd);
			continue;
		}
		if (srv->ssl_ctx != NULL)
			server_tls_wait(srv, fd, (struct sockaddr *)&ss, len);
		else
			server_conn_new(srv, fd, (struct sockaddr *)&ss, len,
			    NULL);
	}
}

/* Bind and listen on the first address host:port resolves to. */
static int
server_listen(struct server *srv, const char *host, uint16_t port,
    char **cause)
{
	struct addrinfo hints, *res, *ai;
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof ss;
	char serv[16], *where = NULL;
	int fd = -1, error, saved = 0, one = 1;

	if (host != NULL && (*host == '\0' || strcmp(host, "*") == 0))
		host = NULL;
	snprintf(serv, sizeof serv, "%u", port);
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((error = getaddrinfo(host, serv, &hints, &res)) != 0) {
		xasprintf(cause, "cannot listen on %s:%u: %s",
		    host != NULL ? host : "*", port, gai_strerror(error));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family,
		    ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd == -1) {
			saved = errno;
			continue;
		}
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    listen(fd, SOMAXCONN) == 0)
			break;
		saved = errno;
		free(where);
		where = server_format_addr(ai->ai_addr, ai->ai_addrlen);
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1) {
		if (where != NULL)
			xasprintf(cause, "cannot listen on %s: %s", where,
			    strerror(saved));
		else
			xasprintf(cause, "cannot listen on %s:%u: %s",
			    host != NULL ? host : "*", port, strerror(saved));
		free(where);
		return -1;
	}
	free(where);
	if (getsockname(fd, (struct sockaddr *)&ss, &sslen) == 0) {
		if (ss.ss_family == AF_INET)
			port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		else if (ss.ss_family == AF_INET6)
			port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	srv->listen_fd = fd;
	srv->port = port;
	return 0;
}

struct server *
server_new(struct event_base *base, const char *host, uint16_t port,
    const struct server_limits *limits, const struct server_ops *ops,
    void *arg, char **cause)
{
	struct server *srv;

	srv = xcalloc(1, sizeof *srv);
	srv->base = base;
	srv->limits = *limits;
	if (ops != NULL)
		srv->ops = *ops;
	srv->arg = arg;
	srv->next_id = 1;
	idmap_init(&srv->ids);
	TAILQ_INIT(&srv->conns);
	TAILQ_INIT(&srv->dead);
	TAILQ_INIT(&srv->waitq);
	TAILQ_INIT(&srv->heldq);
	TAILQ_INIT(&srv->bulkq);
	TAILQ_INIT(&srv->tls_waits);
	srv->listen_fd = srv->spare_fd = -1;
	if (seal_random(srv->dummy_key, sizeof srv->dummy_key) == -1) {
		xasprintf(cause, "the system's random generator failed");
		free(srv);
		return NULL;
	}

	if (server_listen(srv, host, port, cause) == -1) {
		free(srv);
		return NULL;
	}
	srv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	srv->listen_ev = event_new(base, srv->listen_fd, EV_READ | EV_PERSIST,
	    server_accept_cb, srv);
	srv->pause_ev = evtimer_new(base, server_pause_cb, srv);
	srv->reap_ev = event_new(base, -1, 0, server_reap_cb, srv);
	srv->unhold_ev = event_new(base, -1, 0, server_unhold_cb, srv);
	srv->bulk_ev = event_new(base, -1, 0, server_bulk_cb, srv);
	if (srv->bulk_ev != NULL &&
	    event_base_get_npriorities(base) > SERVER_PRIO_BULK)
		event_priority_set(srv->bulk_ev, SERVER_PRIO_BULK);
	if (srv->listen_ev == NULL || srv->pause_ev == NULL ||
	    srv->reap_ev == NULL || srv->unhold_ev == NULL ||
	    srv->bulk_ev == NULL || event_add(srv->listen_ev, NULL) == -1) {
		xasprintf(cause, "cannot listen on port %u: libevent could "
		    "not add the listener", srv->port);
		server_free(srv);
		return NULL;
	}
	dout(LOG_NET, 1, "listening on port %u", srv->port);
	return srv;
}

uint16_t
server_port(const struct server *srv)
{
	return srv->port;
}

int
server_reply(struct server *srv, uint64_t conn_id, uint64_t req_id, int rc,
    const char *status, json_t *data)
{
	struct conn *c;

	if ((c = server_find(srv, conn_id)) == NULL) {
		json_decref(data);
		return -1;
	}
	conn_answered(c);
	return conn_send_reply(c, FRAME_REPLY, req_id, rc, status, data);
}

int
server_reply_stream(struct server *srv, uint64_t conn_id, uint64_t req_id,
    const struct server_stream_ops *ops, void *arg)
{
	struct conn *c;
	struct stream *s;

	if ((c = server_find(srv, conn_id)) == NULL || c->state != CONN_READY)
		return -1;
	s = xcalloc(1, sizeof *s);
	if ((s->text = evbuffer_new()) == NULL)
		fatalx("cannot make a stream buffer");
	s->c = c;
	s->id = req_id;
	s->ops = ops;
	s->arg = arg;
	TAILQ_INSERT_TAIL(&c->streams, s, entry);
	/* The first piece at once: a small reply leaves as it always did. */
	if (stream_step(s) == 0)
		conn_stream_kick(c);
	return 0;
}

void
server_end_streams(struct server *srv, int rc, const char *status)
{
	struct conn *c, *next;
	struct stream *s;
	int cut;

	for (c = TAILQ_FIRST(&srv->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		cut = 0;
		while ((s = TAILQ_FIRST(&c->streams)) != NULL) {
			if (s->sent)
				cut = 1;
			else if (c->state == CONN_READY) {
				(void)conn_send_reply(c, FRAME_REPLY, s->id, rc,
				    status, NULL);
				conn_answered(c);
			}
			stream_end(s, rc);
		}
		if (cut && c->state == CONN_READY)
			conn_close_flushed(c);
	}
	TAILQ_FOREACH(c, &srv->dead, entry)
		while ((s = TAILQ_FIRST(&c->streams)) != NULL)
			stream_end(s, rc);
}

int
server_push(struct server *srv, uint64_t conn_id, uint64_t sub_id,
    json_t *obj)
{
	struct conn *c;
	char *s;
	size_t len;

	if ((c = server_find(srv, conn_id)) == NULL || c->ending) {
		json_decref(obj);
		return -1;
	}
	s = frame_dump_json(obj, &len);
	json_decref(obj);
	if (s == NULL)
		return 0;
	c->subscriber = 1;
	return conn_send(c, FRAME_PUSH, sub_id, s, len, 1);
}

int
server_push_raw(struct server *srv, uint64_t conn_id, uint64_t sub_id,
    const void *json_text, size_t len)
{
	struct conn *c;

	if ((c = server_find(srv, conn_id)) == NULL || c->ending)
		return -1;
	c->subscriber = 1;
	return conn_send(c, FRAME_PUSH, sub_id, json_text, len, 0);
}

/*
 * Read the connections held by server_hold_binary() again, from the loop
 * (never inside the daemon's call), first held first, until the hold is
 * on again (a frame handled here may turn it on).  A connection held
 * again goes to the back of the queue: every one is read in its turn,
 * none starves behind those accepted before it.  (A bulk connection only
 * joins srv->bulkq here, parsed in its turn.)
 */
static void
server_unhold_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct server *srv = arg;
	struct conn *c;

	while (!srv->hold_binary && (c = TAILQ_FIRST(&srv->heldq)) != NULL) {
		TAILQ_REMOVE(&srv->heldq, c, hentry);
		c->held_binary = 0;
		conn_update_read(c);
		conn_read_cb(c->bev, c);
	}
}

/*
 * One frame of the first bulk connection in srv->bulkq, which goes to the
 * back if it has more; then the next turn, at SERVER_PRIO_BULK: on a base
 * of server_base_new() the loop looks for other work every
 * SERVER_BULK_SLICE_US in between.
 */
static void
server_bulk_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct server *srv = arg;
	struct conn *c;

	if ((c = TAILQ_FIRST(&srv->bulkq)) != NULL) {
		TAILQ_REMOVE(&srv->bulkq, c, bentry);
		c->bulk_queued = 0;
		if (conn_parse(c, 1) == 1 && c->state == CONN_READY &&
		    !c->bulk_queued) {
			c->bulk_queued = 1;
			TAILQ_INSERT_TAIL(&srv->bulkq, c, bentry);
		}
		/* Read again once only the start of a frame is left. */
		conn_update_read(c);
	}
	if (!TAILQ_EMPTY(&srv->bulkq))
		event_active(srv->bulk_ev, 0, 0);
}

struct event_base *
server_base_new(void)
{
	struct timeval slice = { 0, SERVER_BULK_SLICE_US };
	struct event_config *cfg;
	struct event_base *base = NULL;

	if ((cfg = event_config_new()) == NULL)
		return NULL;
	if (event_config_set_max_dispatch_interval(cfg, &slice, -1,
		SERVER_PRIO_BULK) == 0)
		base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (base != NULL &&
	    event_base_priority_init(base, SERVER_PRIORITIES) == -1) {
		event_base_free(base);
		base = NULL;
	}
	return base;
}

void
server_hold_binary(struct server *srv, int on)
{
	on = on != 0;
	if (srv->hold_binary == on)
		return;
	srv->hold_binary = on;
	if (!on && !TAILQ_EMPTY(&srv->heldq))
		event_active(srv->unhold_ev, 0, 0);
}

int
server_set_subscriber(struct server *srv, uint64_t conn_id, int on)
{
	struct conn *c;

	if ((c = server_find(srv, conn_id)) == NULL)
		return -1;
	c->subscriber = on != 0;
	c->active_us = stamp_mono();
	return 0;
}

int
server_notify_drained(struct server *srv, uint64_t conn_id,
    server_drained_cb *cb, void *arg)
{
	struct conn *c;

	if ((c = server_find(srv, conn_id)) == NULL)
		return -1;
	c->drain_cb = cb;
	c->drain_arg = arg;
	if (cb == NULL) {
		if (c->drain_ev != NULL)
			event_del(c->drain_ev);
		return 0;
	}
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
		return 0;
	if (c->drain_ev == NULL && (c->drain_ev = event_new(srv->base, -1, 0,
	    conn_drain_cb, c)) == NULL)
		fatalx("cannot make a drain event");
	event_active(c->drain_ev, EV_TIMEOUT, 0);
	return 0;
}

const char *
server_entity(const struct server *srv, uint64_t conn_id)
{
	struct conn *c;

	if ((c = server_find(srv, conn_id)) == NULL)
		return NULL;
	return c->entity;
}

size_t
server_close_entity(struct server *srv, const char *name)
{
	struct conn *c, *next;
	size_t n = 0;

	for (c = TAILQ_FIRST(&srv->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->entity == NULL || strcmp(c->entity, name) != 0 ||
		    !conn_open(c) || c->ending)
			continue;
		n++;
		if (c->inflight > 0 && c->state == CONN_READY) {
			/*
			 * Its answers first (a follower passes on the
			 * leader's answer to a write only once it has
			 * applied it: that of the rotation itself, whose
			 * new key the client must get), then closed.
			 */
			dout(LOG_NET, 1,
			    "%s: the key of %s changed: closing "
			    "once %zu request%s answered",
			    c->peer, name, c->inflight,
			    c->inflight == 1 ? " is" : "s are");
			c->ending = 1;
			c->ending_due = stamp_mono() +
			    (int64_t)SERVER_ENDING_MS * 1000;
			conn_update_read(c);
			server_timer_add(c->timer, SERVER_ENDING_MS);
			continue;
		}
		dout(LOG_NET, 1, "%s: closing: the key of %s changed", c->peer,
		    name);
		conn_close_flushed(c);
	}
	return n;
}

const char *
server_peer(const struct server *srv, uint64_t conn_id)
{
	struct conn *c;

	if ((c = server_find(srv, conn_id)) == NULL)
		return NULL;
	return c->peer;
}

void
server_set_limits(struct server *srv, const struct server_limits *limits)
{
	struct conn *c;
	int idle_changed;

	idle_changed = limits->idle_timeout_ms != srv->limits.idle_timeout_ms;
	srv->limits = *limits;
	TAILQ_FOREACH(c, &srv->conns, entry) {
		if (!conn_open(c))
			continue;
		bufferevent_setwatermark(c->bev, EV_READ, 0,
		    server_read_high(srv));
		if (c->throttled)
			bufferevent_setwatermark(c->bev, EV_WRITE,
			    srv->limits.max_client_output / 4, 0);
		if (idle_changed) {
			conn_arm_idle(c);
			conn_arm_stall(c);
		}
	}
	/* A larger budget may let waiting connections go on. */
	server_budget_wake(srv);
}

void
server_stop_accepting(struct server *srv)
{
	if (srv->listen_ev != NULL) {
		event_free(srv->listen_ev);
		srv->listen_ev = NULL;
	}
	if (srv->pause_ev != NULL)
		evtimer_del(srv->pause_ev);
	if (srv->listen_fd != -1) {
		close(srv->listen_fd);
		srv->listen_fd = -1;
		dout(LOG_NET, 1, "stopped listening on port %u", srv->port);
	}
}

void
server_free(struct server *srv)
{
	struct conn *c;

	if (srv == NULL)
		return;
	server_stop_accepting(srv);
	while ((c = TAILQ_FIRST(&srv->conns)) != NULL) {
		TAILQ_REMOVE(&srv->conns, c, entry);
		conn_free(c);
	}
	while ((c = TAILQ_FIRST(&srv->dead)) != NULL) {
		TAILQ_REMOVE(&srv->dead, c, entry);
		conn_free(c);
	}
	if (srv->pause_ev != NULL)
		event_free(srv->pause_ev);
	if (srv->reap_ev != NULL)
		event_free(srv->reap_ev);
	if (srv->unhold_ev != NULL)
		event_free(srv->unhold_ev);
	if (srv->bulk_ev != NULL)
		event_free(srv->bulk_ev);
	if (srv->spare_fd != -1)
		close(srv->spare_fd);
	while (!TAILQ_EMPTY(&srv->tls_waits)) {
		close(TAILQ_FIRST(&srv->tls_waits)->fd);
		tls_wait_free(TAILQ_FIRST(&srv->tls_waits));
	}
	SSL_CTX_free(srv->ssl_ctx);
	idmap_free(&srv->ids);
	free(srv->fails);
	OPENSSL_cleanse(srv->dummy_key, sizeof srv->dummy_key);
	free(srv);
}

void
server_stats(const struct server *srv, struct server_stats *st)
{
	*st = srv->stats;
	st->connections = idmap_count(&srv->ids);
	st->partial_bytes = srv->partial_bytes;
	st->partial_granted = srv->granted;
}

size_t
server_output_pending(const struct server *srv)
{
	const struct conn *c;
	size_t n = 0;

	TAILQ_FOREACH(c, &srv->conns, entry) {
		if (c->state != CONN_DEAD)
			n += evbuffer_get_length(bufferevent_get_output(c->bev));
	}
	return n;
}
