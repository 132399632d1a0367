/*
 * quorum_transport.c: raft_uv's transport over sealed peer connections
 * (quorum_transport.h).
 *
 * A link is one engine connection: a socketpair whose one end the engine
 * holds as a libuv pipe, whose other end is a bufferevent here, and the
 * peer connection its bytes travel through.  raft_uv uses each connection
 * one way (the connecting side writes, the accepting side reads), but the
 * relay carries both ways.  Back-pressure goes through: a peer whose
 * output passes its high water stops the reading of the peer.  The other
 * way, the engine's socketpair is always read, and its messages are told
 * apart (raft_uv's wire format: a 16-byte preamble, byte 0 the type,
 * bytes 8..15 the header's length, little endian; then the header; then
 * for AppendEntries the entries, whose lengths the header lists, and for
 * InstallSnapshot the snapshot, after its configuration): an
 * AppendEntries that carries entries is dropped whole, never sent, while
 * the peer's output holds more than QT_DROP_WATER.  C-Raft sends a
 * follower it probes (after a rejection or an election) every entry in
 * flight again at each heartbeat, up to 4 MiB each time: queued behind a
 * follower slower than that (a loaded machine, a large bring-up), the
 * copies grew without bound and the follower fell further behind the
 * longer it tried (test/e2e/mon_bigentry.sh under ASan).  Dropping is
 * what the engine is built for (a lost message is sent again, from what
 * the follower answers); heartbeats, answers, votes and snapshots always
 * pass.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <jansson.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "conf/conf.h"
#include "daemon/quorum_transport.h"
#include "map/monmap.h"
#include "net/peer.h"

/* What the engine has not read, before its peer is no longer read. */
#define QT_HIGH_WATER (4 * 1024 * 1024)
/* Unsent to a peer, past which the engine's entries to it are dropped. */
#define QT_DROP_WATER (2 * 1024 * 1024)
/* raft_uv's message preamble; a header longer than this is not raft_uv's. */
#define QT_PREAMBLE 16
#define QT_HEADER_MAX (1024 * 1024)
/* A refusal of the same monitor for the same cause: once per window. */
#define QT_LOG_QUIET_MS 10000

struct qt;

struct qt_link {
	struct qt *qt;
	LIST_ENTRY(qt_link) entry;
	struct peer *peer;
	struct bufferevent *bev;     /* our end of the socketpair */
	struct raft_uv_connect *req; /* a connect under way */
	raft_uv_connect_cb cb;
	raft_id id;
	char address[MONMAP_ADDR_MAX];
	int closing;	   /* the peer went: close bev once written */
	uint64_t msg_left; /* of the engine's message being passed on */
	int msg_drop;	   /* ... or being dropped */
	int opaque;	   /* not raft_uv's format: passed on as it comes */
};

struct qt_seen {
	raft_id id;
	char cause[160];
	int64_t at;
};

struct qt {
	struct raft_uv_transport *t;
	uv_loop_t *loop;
	struct event_base *base;
	struct mon *m;
	char name[MONMAP_NAME_MAX];
	raft_id id;
	char address[MONMAP_ADDR_MAX];
	int keepalive_ms;
	void (*kick)(void *);
	void *kick_arg;
	void (*lost)(void *, raft_id); /* quorum_transport_set_lost() */
	void *lost_arg;
	raft_uv_accept_cb accept_cb;
	struct peer_listener *listener;
	LIST_HEAD(, qt_link) links;
	uv_idle_t closer; /* its close callback ends the transport's */
	raft_uv_transport_close_cb close_cb;
	int closed;
	struct qt_seen seen[2 * MONMAP_MAX_MONS];
	uint64_t appends_dropped;
};

static void qt_link_free(struct qt_link *);

/* The monitor of raft id (ranks plus one), for logs. */
static const char *
qt_mon_name(const struct qt *qt, raft_id id)
{
	const struct monmap *mm = mon_monmap(qt->m);

	if (id >= 1 && id <= mm->nmons)
		return mm->mons[id - 1].name;
	return "?";
}

/*
 * A link to a monitor failed or ended: a refusal (its key, a frame that
 * does not open, what is not the protocol, its answer refusing ours) is a
 * warning, once per monitor
 * and cause in QT_LOG_QUIET_MS; a monitor that is down or unreachable
 * is only a debug line (the engine retries every second).
 */
static void
qt_log_link(struct qt *qt, const struct qt_link *k, int err, const char *why)
{
	struct qt_seen *s, *old = NULL;
	int64_t now = stamp_mono();
	char cause[160];
	size_t i;

	if (err != -EACCES && err != -EBADMSG && err != -EPROTO &&
	    err != -EPROTONOSUPPORT && strncmp(why, "refused", 7) != 0) {
		dout(LOG_MON, 1, "quorum: link to mon.%s at %s: %s",
		    qt_mon_name(qt, k->id), k->address, why);
		return;
	}
	snprintf(cause, sizeof cause, "%s", why);
	for (i = 0; i < nitems(qt->seen); i++) {
		s = &qt->seen[i];
		if (s->id == k->id && strcmp(s->cause, cause) == 0) {
			if (now - s->at < (int64_t)QT_LOG_QUIET_MS * 1000) {
				dout(LOG_MON, 1,
				    "quorum: link to mon.%s at %s: %s",
				    qt_mon_name(qt, k->id), k->address, why);
				return;
			}
			old = s;
			break;
		}
		if (old == NULL || s->at < old->at)
			old = s;
	}
	old->id = k->id;
	snprintf(old->cause, sizeof old->cause, "%s", cause);
	old->at = now;
	log_warnx("quorum: link to mon.%s at %s: %s (nothing of it reaches "
		  "the engine)",
	    qt_mon_name(qt, k->id), k->address, why);
}

/* ---- the relay ---- */

static uint64_t
qt_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * The length of the engine's message that starts in[0..n): 0 while its
 * preamble and header are not all there, -1 when it is not raft_uv's
 * format.  *entries: whether it is an AppendEntries with entries.
 */
static int64_t
qt_message_len(struct evbuffer *in, size_t n, int *entries)
{
	const uint8_t *p, *h;
	uint64_t hlen, payload = 0, count, i, conf;

	*entries = 0;
	if (n < QT_PREAMBLE)
		return 0;
	p = evbuffer_pullup(in, QT_PREAMBLE);
	hlen = qt_le64(p + 8);
	if (hlen == 0 || hlen > QT_HEADER_MAX)
		return -1;
	if (n < QT_PREAMBLE + hlen)
		return 0;
	p = evbuffer_pullup(in, (ev_ssize_t)(QT_PREAMBLE + hlen));
	h = p + QT_PREAMBLE;
	switch (p[0]) {
	case RAFT_APPEND_ENTRIES:
		/*
		 * term, prev index, prev term, commit; count; then 16 bytes
		 * each: term, type, 3 unused, the length (32 bits).
		 */
		if (hlen < 40)
			return -1;
		count = qt_le64(h + 32);
		if (count > (hlen - 40) / 16)
			return -1;
		for (i = 0; i < count; i++)
			payload += qt_le64(h + 40 + 16 * i + 8) >> 32;
		*entries = count > 0;
		break;
	case RAFT_INSTALL_SNAPSHOT:
		/* term, last index, last term, conf index; conf; data. */
		if (hlen < 48)
			return -1;
		conf = qt_le64(h + 32);
		if (conf > hlen - 48)
			return -1;
		payload = qt_le64(h + 40 + conf);
		break;
	default:
		break;
	}
	return (int64_t)(QT_PREAMBLE + hlen + payload);
}

/*
 * The engine wrote: into the peer, sealed, message by message; entries
 * dropped while the peer is behind (the header comment).
 */
static void
qt_pipe_read_cb(struct bufferevent *bev, void *arg)
{
	struct qt_link *k = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n;
	int64_t len;
	int entries;
	uint8_t *p;

	while ((n = evbuffer_get_length(in)) > 0) {
		if (k->msg_left == 0 && !k->opaque) {
			if ((len = qt_message_len(in, n, &entries)) == 0)
				break;
			if (len < 0) {
				p = evbuffer_pullup(in, QT_PREAMBLE);
				log_warnx("quorum: link to mon.%s: the engine "
					  "wrote what is not raft_uv's message "
					  "format (preamble %016llx %016llx): "
					  "passed on unparsed",
				    qt_mon_name(k->qt, k->id),
				    (unsigned long long)qt_le64(p),
				    (unsigned long long)qt_le64(p + 8));
				k->opaque = 1;
				continue;
			}
			k->msg_left = (uint64_t)len;
			k->msg_drop = entries && k->peer != NULL &&
			    peer_pending(k->peer) > QT_DROP_WATER;
			if (k->msg_drop)
				k->qt->appends_dropped++;
		}
		if (!k->opaque && n > k->msg_left)
			n = (size_t)k->msg_left;
		if (n > PEER_MAX_FRAME / 4)
			n = PEER_MAX_FRAME / 4;
		if (!k->msg_drop && k->peer != NULL) {
			p = evbuffer_pullup(in, (ev_ssize_t)n);
			(void)peer_send(k->peer, p, n);
		}
		evbuffer_drain(in, n);
		if (!k->opaque)
			k->msg_left -= n;
	}
}

/* What the engine has to read has been taken: read the peer again. */
static void
qt_pipe_write_cb(struct bufferevent *bev mapmon_unused, void *arg)
{
	struct qt_link *k = arg;

	if (k->closing) {
		qt_link_free(k);
		return;
	}
	if (k->peer != NULL)
		peer_set_reading(k->peer, 1);
}

/* The engine closed its end (or the pair broke): the link ends. */
static void
qt_pipe_event_cb(struct bufferevent *bev mapmon_unused, short what, void *arg)
{
	struct qt_link *k = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		qt_link_free(k);
}

static void
qt_peer_data(void *arg, const uint8_t *p, size_t len)
{
	struct qt_link *k = arg;

	if (k->bev == NULL)
		return;
	bufferevent_write(k->bev, p, len);
	if (evbuffer_get_length(bufferevent_get_output(k->bev)) > QT_HIGH_WATER)
		peer_set_reading(k->peer, 0);
	k->qt->kick(k->qt->kick_arg);
}

static void
qt_pipe_free(uv_handle_t *h)
{
	raft_free(h);
}

/*
 * The socketpair: the engine's end as a libuv pipe (raft_malloc'd: the
 * engine frees it after closing it), ours as a bufferevent.  NULL with
 * *err (a raft error) when it cannot.
 */
static struct uv_stream_s *
qt_pair(struct qt_link *k, int *err)
{
	struct qt *qt = k->qt;
	uv_pipe_t *pipe;
	int fds[2];

	*err = RAFT_NOCONNECTION;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		fds) == -1) {
		log_warn("quorum: socketpair");
		return NULL;
	}
	if ((pipe = raft_malloc(sizeof *pipe)) == NULL) {
		*err = RAFT_NOMEM;
		goto fail;
	}
	if (uv_pipe_init(qt->loop, pipe, 0) != 0) {
		raft_free(pipe);
		goto fail;
	}
	if (uv_pipe_open(pipe, fds[0]) != 0) {
		/* An initialized handle is the loop's until closed. */
		uv_close((uv_handle_t *)pipe, qt_pipe_free);
		goto fail;
	}
	if ((k->bev = bufferevent_socket_new(qt->base, fds[1],
		 BEV_OPT_CLOSE_ON_FREE)) == NULL)
		fatalx("quorum: cannot make a bufferevent");
	bufferevent_setcb(k->bev, qt_pipe_read_cb, qt_pipe_write_cb,
	    qt_pipe_event_cb, k);
	bufferevent_enable(k->bev, EV_READ | EV_WRITE);
	return (struct uv_stream_s *)pipe;
fail:
	close(fds[0]);
	close(fds[1]);
	return NULL;
}

static void
qt_link_free(struct qt_link *k)
{
	LIST_REMOVE(k, entry);
	peer_close(k->peer);
	if (k->bev != NULL)
		bufferevent_free(k->bev);
	free(k);
}

static struct qt_link *
qt_link_new(struct qt *qt, raft_id id, const char *address)
{
	struct qt_link *k = xcalloc(1, sizeof *k);

	k->qt = qt;
	k->id = id;
	snprintf(k->address, sizeof k->address, "%s", address);
	LIST_INSERT_HEAD(&qt->links, k, entry);
	return k;
}

/* The peer ended: the engine sees its end of the pair close. */
static void
qt_peer_closed(void *arg, int err, const char *why)
{
	struct qt_link *k = arg;
	struct raft_uv_connect *req = k->req;

	k->peer = NULL;
	qt_log_link(k->qt, k, err, why);
	if (k->qt->lost != NULL && !k->qt->closed)
		k->qt->lost(k->qt->lost_arg, k->id);
	if (req != NULL) {
		k->req = NULL;
		qt_link_free(k);
		k = NULL;
		req->cb(req, NULL, RAFT_NOCONNECTION);
	} else if (k->bev != NULL &&
	    evbuffer_get_length(bufferevent_get_output(k->bev)) > 0) {
		/* What it sent before goes to the engine first. */
		k->closing = 1;
		bufferevent_disable(k->bev, EV_READ);
	} else
		qt_link_free(k);
}

static void
qt_peer_ready(void *arg, struct peer *p)
{
	struct qt_link *k = arg;
	struct raft_uv_connect *req = k->req;
	struct uv_stream_s *stream;
	struct qt *qt = k->qt;
	int err;

	(void)p;
	k->req = NULL;
	dout(LOG_MON, 5, "quorum: link to mon.%s at %s: sealed",
	    qt_mon_name(qt, k->id), k->address);
	if ((stream = qt_pair(k, &err)) == NULL) {
		qt_link_free(k);
		req->cb(req, NULL, err);
	} else
		req->cb(req, stream, 0);
	qt->kick(qt->kick_arg);
}

static const struct peer_ops qt_peer_ops = {
	.ready = qt_peer_ready,
	.data = qt_peer_data,
	.closed = qt_peer_closed,
};

/* ---- the accepting side ---- */

static int
qt_key(void *arg, const char *name, uint8_t key[SEAL_KEY_LEN])
{
	struct qt *qt = arg;
	const struct mon_auth_entity *e;

	if (strcmp(name, PEER_ENTITY) != 0 ||
	    (e = mon_auth_find(qt->m, PEER_ENTITY)) == NULL)
		return -1;
	memcpy(key, e->key, SEAL_KEY_LEN);
	return 0;
}

/* Our identity, in a HELLO each way. */
static json_t *
qt_identity(const struct qt *qt)
{
	return json_pack("{s:s, s:I, s:s, s:s}", "mon", qt->name, "id",
	    (json_int_t)qt->id, "address", qt->address, "fsid",
	    mon_monmap(qt->m)->fsid);
}

/* The connecting monitor's "peer": of this cluster, with an id. */
static int
qt_hello(void *arg, const json_t *theirs, json_t *reply, char **why)
{
	struct qt *qt = arg;
	const char *fsid = json_string_value(json_object_get(theirs, "fsid"));
	const json_t *id = json_object_get(theirs, "id");

	if (!json_is_object(theirs) || !json_is_integer(id) ||
	    json_integer_value(id) < 1 ||
	    !json_is_string(json_object_get(theirs, "address"))) {
		xasprintf(why,
		    "a monitor's HELLO needs a \"peer\" object with "
		    "its \"id\" and \"address\"");
		return -EINVAL;
	}
	if (fsid == NULL || strcmp(fsid, mon_monmap(qt->m)->fsid) != 0) {
		xasprintf(why, "fsid %s is not this cluster's (%s)",
		    fsid != NULL ? fsid : "(none)", mon_monmap(qt->m)->fsid);
		return -EINVAL;
	}
	json_object_set_new(reply, "mon", json_string(qt->name));
	json_object_set_new(reply, "fsid",
	    json_string(mon_monmap(qt->m)->fsid));
	return 0;
}

static void
qt_accept(void *arg, struct peer *p, const json_t *theirs)
{
	struct qt *qt = arg;
	struct qt_link *k;
	struct uv_stream_s *stream;
	int err;

	if (qt->closed || qt->accept_cb == NULL) {
		peer_close(p);
		return;
	}
	k = qt_link_new(qt,
	    (raft_id)json_integer_value(json_object_get(theirs, "id")),
	    json_string_value(json_object_get(theirs, "address")));
	k->peer = p;
	peer_set_ops(p, &qt_peer_ops, k);
	if ((stream = qt_pair(k, &err)) == NULL) {
		qt_link_free(k);
		return;
	}
	dout(LOG_MON, 5, "quorum: link from mon.%s (%s): sealed",
	    qt_mon_name(qt, k->id), peer_name(p));
	qt->accept_cb(qt->t, k->id, k->address, stream);
	qt->kick(qt->kick_arg);
}

/* ---- the transport's methods ---- */

static int
qt_init(struct raft_uv_transport *t, raft_id id, const char *address)
{
	struct qt *qt = t->impl;

	qt->id = id;
	snprintf(qt->address, sizeof qt->address, "%s", address);
	return 0;
}

static int
qt_listen(struct raft_uv_transport *t, raft_uv_accept_cb cb)
{
	static const struct peer_listener_ops ops = {
		.key = qt_key,
		.hello = qt_hello,
		.accept = qt_accept,
	};
	struct qt *qt = t->impl;
	char host[256], *cause = NULL;
	uint16_t port;

	if (conf_parse_address(qt->address, host, sizeof host, &port, &cause) ==
		-1 ||
	    (qt->listener = peer_listen(qt->base, host, port, qt->keepalive_ms,
		 &ops, qt, &cause)) == NULL) {
		snprintf(t->errmsg, sizeof t->errmsg, "raft port %s: %s",
		    qt->address, cause);
		log_warnx("quorum: cannot listen on the raft port %s: %s",
		    qt->address, cause);
		free(cause);
		return RAFT_IOERR;
	}
	qt->accept_cb = cb;
	return 0;
}

static int
qt_connect(struct raft_uv_transport *t, struct raft_uv_connect *req, raft_id id,
    const char *address, raft_uv_connect_cb cb)
{
	struct qt *qt = t->impl;
	const struct mon_auth_entity *e = mon_auth_find(qt->m, PEER_ENTITY);
	struct qt_link *k;
	char host[256], *cause = NULL;
	uint16_t port;
	json_t *hello;

	if (qt->closed)
		return RAFT_CANCELED;
	if (e == NULL) {
		snprintf(t->errmsg, sizeof t->errmsg,
		    "no " PEER_ENTITY " key in the store");
		return RAFT_NOCONNECTION;
	}
	if (conf_parse_address(address, host, sizeof host, &port, &cause) ==
	    -1) {
		snprintf(t->errmsg, sizeof t->errmsg, "%s: %s", address, cause);
		free(cause);
		return RAFT_NOCONNECTION;
	}
	k = qt_link_new(qt, id, address);
	k->req = req;
	req->cb = cb;
	hello = qt_identity(qt);
	k->peer = peer_connect(qt->base, host, port, e->key, hello,
	    qt->keepalive_ms, &qt_peer_ops, k, &cause);
	json_decref(hello);
	if (k->peer == NULL) {
		snprintf(t->errmsg, sizeof t->errmsg, "%s: %s", address, cause);
		free(cause);
		k->req = NULL;
		qt_link_free(k);
		return RAFT_NOCONNECTION;
	}
	return 0;
}

/* On the next turn of libuv's loop: the connects cancelled, then done. */
static void
qt_closed_cb(uv_handle_t *h)
{
	struct qt *qt = h->data;
	struct qt_link *k, *next;
	struct raft_uv_connect *req;

	for (k = LIST_FIRST(&qt->links); k != NULL; k = next) {
		next = LIST_NEXT(k, entry);
		req = k->req;
		k->req = NULL;
		qt_link_free(k);
		if (req != NULL)
			req->cb(req, NULL, RAFT_CANCELED);
	}
	if (qt->close_cb != NULL)
		qt->close_cb(qt->t);
}

static void
qt_close(struct raft_uv_transport *t, raft_uv_transport_close_cb cb)
{
	struct qt *qt = t->impl;
	struct qt_link *k;

	qt->closed = 1;
	qt->close_cb = cb;
	peer_listener_free(qt->listener);
	qt->listener = NULL;
	/* No peer calls back from here on: their links end below. */
	LIST_FOREACH(k, &qt->links, entry) {
		peer_close(k->peer);
		k->peer = NULL;
	}
	uv_close((uv_handle_t *)&qt->closer, qt_closed_cb);
}

int
quorum_transport_init(struct raft_uv_transport *t, uv_loop_t *loop,
    struct event_base *base, struct mon *m, const char *name,
    const char *raft_addr, int keepalive_ms, void (*kick)(void *), void *arg,
    char **cause)
{
	struct qt *qt = xcalloc(1, sizeof *qt);

	memset(t, 0, sizeof *t);
#ifdef RAFT_VERSION_NUMBER
	t->version = 1;
#endif
	qt->t = t;
	qt->loop = loop;
	qt->base = base;
	qt->m = m;
	snprintf(qt->name, sizeof qt->name, "%s", name);
	snprintf(qt->address, sizeof qt->address, "%s", raft_addr);
	qt->keepalive_ms = keepalive_ms > 0 ? keepalive_ms : 1;
	qt->kick = kick;
	qt->kick_arg = arg;
	LIST_INIT(&qt->links);
	if (uv_idle_init(loop, &qt->closer) != 0) {
		xasprintf(cause, "uv_idle_init failed");
		free(qt);
		return -1;
	}
	qt->closer.data = qt;
	t->impl = qt;
	t->init = qt_init;
	t->listen = qt_listen;
	t->connect = qt_connect;
	t->close = qt_close;
	return 0;
}

void
quorum_transport_set_lost(struct raft_uv_transport *t,
    void (*lost)(void *, raft_id), void *arg)
{
	struct qt *qt = t->impl;

	qt->lost = lost;
	qt->lost_arg = arg;
}

uint64_t
quorum_transport_appends_dropped(const struct raft_uv_transport *t)
{
	const struct qt *qt = t->impl;

	return qt != NULL ? qt->appends_dropped : 0;
}

void
quorum_transport_free(struct raft_uv_transport *t)
{
	struct qt *qt = t->impl;
	struct qt_link *k;

	if (qt == NULL)
		return;
	peer_listener_free(qt->listener);
	while ((k = LIST_FIRST(&qt->links)) != NULL) {
		k->req = NULL;
		qt_link_free(k);
	}
	free(qt);
	t->impl = NULL;
}
