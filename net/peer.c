/*
 * peer.c: monitor-to-monitor connections (peer.h), as mapmon-protocol(7),
 * PEER CONNECTIONS, describes them: the handshake of AUTHENTICATION, then
 * sealed STREAM frames each way.
 *
 * The handshake is the client's and the server's of net/client.c and
 * net/server.c, written again here over the same net/seal.h primitives
 * because a peer carries a byte stream, not requests: the connecting side
 * plays the client, the accepting side the server.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <openssl/crypto.h>

#include "common/b64.h"
#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "net/frame.h"
#include "net/peer.h"

/* A STREAM frame carries at most this much of peer_send()'s bytes. */
#define PEER_CHUNK (256 * 1024)
/* Handshake frames are small: a HELLO or an AUTH. */
#define PEER_HANDSHAKE_FRAME (64 * 1024)
/* Hosts the refusal log remembers. */
#define PEER_LOG_SLOTS 16

enum peer_state {
	PEER_CONNECTING, /* connector: TCP under way */
	PEER_WAIT_HELLO, /* the other side's HELLO */
	PEER_WAIT_AUTH,	 /* the other side's AUTH */
	PEER_READY,	 /* sealed STREAM frames */
	PEER_LINGER,	 /* closing once the output is written */
};

struct peer {
	struct event_base *base;
	struct peer_listener *l; /* accepting side; NULL: connecting */
	LIST_ENTRY(peer) entry;	 /* in l's handshakes, until accepted */
	struct bufferevent *bev;
	struct event *timer;
	enum peer_state state;
	char *name; /* "ADDR:PORT", then " (mon.NAME)" */
	char host[64];

	struct peer_ops ops;
	void *arg;

	uint8_t key[SEAL_KEY_LEN];
	uint8_t th[SEAL_HASH_LEN];
	uint8_t proof[SEAL_PROOF_LEN];
	enum seal_cipher cipher;
	struct seal tx, rx;
	int tx_sealed, rx_sealed;
	char *hello_c; /* connector: its HELLO as sent */
	size_t hello_c_len;
	char *entity;	/* accepting side: the name its HELLO offered */
	json_t *theirs; /* accepting side: its "peer" object */
	json_t *hello;	/* connecting side: ours, until sent */
	int defer_err;	/* an error to end with from the timer */
	char *defer_why;

	int keepalive_ms;
	int64_t started, last_in, last_out, last_progress;
	int want_drain;
	int busy;   /* inside a callback of ours */
	int doomed; /* peer_close() or the end while busy */
};

struct peer_log_slot {
	char host[64];
	uint32_t cause;
	int64_t at;
};

struct peer_listener {
	struct event_base *base;
	struct evconnlistener *lev;
	struct peer_listener_ops ops;
	void *arg;
	int keepalive_ms;
	uint8_t dummy_key[SEAL_KEY_LEN];
	LIST_HEAD(, peer) handshakes;
	struct peer_log_slot log[PEER_LOG_SLOTS];
};

static void peer_free(struct peer *);
static void peer_read_cb(struct bufferevent *, void *);

/* ---- small things ---- */

static uint32_t
peer_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/*
 * Log a refusal by the accepting side: at warning level once per host and
 * cause in PEER_LOG_QUIET_MS (a monitor with the wrong key retries every
 * second), else at debug level.
 */
static void
peer_log_refusal(struct peer *p, const char *why)
{
	struct peer_listener *l = p->l;
	struct peer_log_slot *s, *old = NULL;
	uint32_t h = peer_hash(why);
	int64_t now = stamp_mono();
	size_t i;

	if (l == NULL) {
		log_warnx("peer %s: %s", p->name, why);
		return;
	}
	for (i = 0; i < PEER_LOG_SLOTS; i++) {
		s = &l->log[i];
		if (strcmp(s->host, p->host) == 0 && s->cause == h) {
			if (now - s->at < (int64_t)PEER_LOG_QUIET_MS * 1000) {
				dout(LOG_NET, 1, "peer %s: %s", p->name, why);
				return;
			}
			old = s;
			break;
		}
		if (old == NULL || s->at < old->at)
			old = s;
	}
	snprintf(old->host, sizeof old->host, "%s", p->host);
	old->cause = h;
	old->at = now;
	log_warnx("peer %s: %s", p->name, why);
}

static void
peer_enter(struct peer *p)
{
	p->busy++;
}

/* Leave a callback: 1 when p was freed (the caller touches it no more). */
static int
peer_leave(struct peer *p)
{
	if (--p->busy == 0 && p->doomed) {
		peer_free(p);
		return 1;
	}
	return 0;
}

/*
 * The end: ops->closed once (unless peer_close() came first), then p is
 * freed, now or when the callback that got here returns.
 */
static void
peer_end(struct peer *p, int err, const char *why)
{
	struct peer_ops ops = p->ops;

	if (p->doomed)
		return;
	p->doomed = 1;
	memset(&p->ops, 0, sizeof p->ops);
	if (ops.closed != NULL) {
		peer_enter(p);
		ops.closed(p->arg, err, why);
		p->busy--;
	}
	if (p->busy == 0)
		peer_free(p);
}

static void peer_endf(struct peer *p, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
peer_endf(struct peer *p, int err, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) == -1)
		fatalx("out of memory");
	va_end(ap);
	peer_end(p, err, msg);
	free(msg);
}

/* A frame in the clear. */
static void
peer_send_clear(struct peer *p, uint8_t type, uint64_t id, const void *data,
    size_t len)
{
	uint8_t hdr[FRAME_HEADER_SIZE];
	struct evbuffer *out = bufferevent_get_output(p->bev);

	frame_encode_header(hdr, type, (uint32_t)len, id);
	evbuffer_add(out, hdr, sizeof hdr);
	evbuffer_add(out, data, len);
	p->last_out = stamp_mono();
}

/* A sealed frame: 0, or -1 when the direction cannot seal more. */
static int
peer_send_sealed(struct peer *p, uint8_t type, uint64_t id, const void *data,
    size_t len)
{
	struct evbuffer *out = bufferevent_get_output(p->bev);
	struct evbuffer_iovec v;
	uint8_t *q;

	if (evbuffer_reserve_space(out,
		(ev_ssize_t)(FRAME_HEADER_SIZE + len + SEAL_TAG_LEN), &v,
		1) != 1)
		return -1;
	q = v.iov_base;
	frame_encode_header(q, type, (uint32_t)(len + SEAL_TAG_LEN), id);
	if (seal_frame(&p->tx, q, data, len, q + FRAME_HEADER_SIZE) == -1)
		return -1;
	v.iov_len = FRAME_HEADER_SIZE + len + SEAL_TAG_LEN;
	evbuffer_commit_space(out, &v, 1);
	p->last_out = stamp_mono();
	return 0;
}

/*
 * The accepting side refuses: a REPLY {rc, status} to the frame id (sealed
 * once the keys are known, as a server does), the log line, then the end
 * once it is written.
 */
static void
peer_reply(struct peer *p, uint64_t id, int rc, const char *why)
{
	json_t *o = json_pack("{s:i, s:s, s:n}", "rc", rc, "status", why,
	    "data");
	char *s;
	size_t len;

	if (p->bev != NULL && o != NULL &&
	    (s = frame_dump_json(o, &len)) != NULL) {
		if (p->tx_sealed)
			(void)peer_send_sealed(p, FRAME_REPLY, id, s, len);
		else
			peer_send_clear(p, FRAME_REPLY, id, s, len);
		free(s);
	}
	json_decref(o);
}

static void
peer_refuse(struct peer *p, uint64_t id, int rc, const char *why)
{
	peer_log_refusal(p, why);
	peer_reply(p, id, rc, why);
	peer_end(p, rc, why);
}

/* ---- the connecting side ---- */

static void
peer_send_hello(struct peer *p, const json_t *hello)
{
	uint8_t nonce[SEAL_NONCE_LEN];
	json_t *o;
	char *b64;

	if (seal_random(nonce, sizeof nonce) == -1) {
		peer_end(p, -EIO, "the system's random generator failed");
		return;
	}
	b64 = b64_encode(nonce, sizeof nonce);
	o = json_pack("{s:i, s:s, s:[s], s:O, s:{s:s, s:[s, s]}}", "protocol",
	    FRAME_PROTOCOL, "name", PEER_ENTITY, "features", PEER_FEATURE,
	    "peer", hello, "auth", "nonce", b64, "ciphers",
	    seal_cipher_name(SEAL_AES_256_GCM),
	    seal_cipher_name(SEAL_CHACHA20_POLY1305));
	free(b64);
	if (o == NULL ||
	    (p->hello_c = frame_dump_json(o, &p->hello_c_len)) == NULL)
		fatalx("peer: cannot encode a HELLO");
	json_decref(o);
	peer_send_clear(p, FRAME_HELLO, 1, p->hello_c, p->hello_c_len);
	p->state = PEER_WAIT_HELLO;
}

/* A REPLY the accepting side sent: its refusal. */
static void
peer_refused(struct peer *p, const uint8_t *d, size_t len)
{
	json_t *o = frame_parse_json(d, len, NULL);
	const char *status = json_string_value(json_object_get(o, "status"));
	json_int_t rc = json_integer_value(json_object_get(o, "rc"));

	if (rc >= 0 || rc < -4095)
		rc = -EPROTO;
	peer_endf(p, (int)rc, "refused us: %s",
	    status != NULL ? status : "(no status)");
	json_decref(o);
}

/* The accepting side's HELLO: prove the key, seal what we send. */
static void
peer_server_hello(struct peer *p, const uint8_t *d, size_t len)
{
	uint8_t nonce[SEAL_NONCE_LEN], proof[SEAL_PROOF_LEN];
	uint8_t c2s[SEAL_KEY_LEN], s2c[SEAL_KEY_LEN];
	json_t *o, *auth;
	const char *cname, *nb64, *mon;
	char *cause = NULL, *b64, *text, *name;
	int bad;

	if ((o = frame_parse_json(d, len, &cause)) == NULL) {
		peer_endf(p, -EPROTO, "bad HELLO: %s", cause);
		free(cause);
		return;
	}
	auth = json_object_get(o, "auth");
	cname = json_string_value(json_object_get(auth, "cipher"));
	nb64 = json_string_value(json_object_get(auth, "nonce"));
	if (json_integer_value(json_object_get(o, "protocol")) !=
		FRAME_PROTOCOL ||
	    cname == NULL || nb64 == NULL) {
		json_decref(o);
		peer_end(p, -EPROTO,
		    "bad HELLO: no protocol 1, or no \"auth\" "
		    "with a nonce and a cipher");
		return;
	}
	if (seal_cipher_find(cname, &p->cipher) == -1 ||
	    b64_decode_exact(nb64, nonce, sizeof nonce, &cause) == -1) {
		json_decref(o);
		peer_endf(p, -EPROTO, "bad HELLO: cipher '%s' or nonce: %s",
		    cname, cause != NULL ? cause : "not offered");
		free(cause);
		return;
	}
	if ((mon = json_string_value(json_object_get(o, "mon"))) != NULL) {
		xasprintf(&name, "%s (mon.%s)", p->name, mon);
		free(p->name);
		p->name = name;
	}
	json_decref(o);
	seal_transcript(p->th, p->hello_c, p->hello_c_len, d, len);
	seal_proof(proof, p->key, 0, p->th);
	b64 = b64_encode(proof, sizeof proof);
	xasprintf(&text, "{\"proof\":\"%s\"}", b64);
	free(b64);
	peer_send_clear(p, FRAME_AUTH, 1, text, strlen(text));
	free(text);
	seal_session_keys(p->key, p->th, c2s, s2c);
	bad = seal_init(&p->tx, p->cipher, c2s, 1) == -1 ||
	    seal_init(&p->rx, p->cipher, s2c, 0) == -1;
	OPENSSL_cleanse(c2s, sizeof c2s);
	OPENSSL_cleanse(s2c, sizeof s2c);
	if (bad) {
		peer_end(p, -ENOMEM, "cannot set up the session's ciphers");
		return;
	}
	p->tx_sealed = 1;
	p->state = PEER_WAIT_AUTH;
}

/* The accepting side's AUTH: it knows the key too, or we end. */
static void
peer_server_auth(struct peer *p, const uint8_t *d, size_t len)
{
	uint8_t got[SEAL_PROOF_LEN], want[SEAL_PROOF_LEN];
	char *cause = NULL;

	if (seal_auth_parse(d, len, got, &cause) == -1) {
		peer_endf(p, -EPROTO, "bad AUTH: %s", cause);
		free(cause);
		return;
	}
	seal_proof(want, p->key, 1, p->th);
	if (!seal_proof_equal(want, got)) {
		peer_end(p, -EACCES,
		    "it cannot prove the " PEER_ENTITY
		    " key (a monitor of another cluster or key?)");
		return;
	}
	p->rx_sealed = 1;
	p->state = PEER_READY;
	dout(LOG_NET, 5, "peer %s: authenticated, %s", p->name,
	    seal_cipher_name(p->cipher));
	if (p->ops.ready != NULL)
		p->ops.ready(p->arg, p);
}

/* ---- the accepting side ---- */

/* The connecting side's HELLO: check it, answer ours with a nonce. */
static void
peer_client_hello(struct peer *p, uint64_t id, const uint8_t *d, size_t len)
{
	struct peer_listener *l = p->l;
	uint8_t nonce[SEAL_NONCE_LEN];
	json_t *o, *auth, *name, *reply;
	char *cause = NULL, *why = NULL, *s, *b64;
	size_t slen, i, n;
	int rc;

	if ((o = frame_parse_json(d, len, &cause)) == NULL) {
		xasprintf(&why, "bad HELLO: %s", cause);
		peer_refuse(p, id, -EINVAL, why);
		free(why);
		free(cause);
		return;
	}
	if (!json_is_integer(json_object_get(o, "protocol")) ||
	    json_integer_value(json_object_get(o, "protocol")) !=
		FRAME_PROTOCOL) {
		json_decref(o);
		peer_refuse(p, id, -EPROTONOSUPPORT,
		    "bad HELLO: \"protocol\" is not 1");
		return;
	}
	name = json_object_get(o, "name");
	auth = json_object_get(o, "auth");
	if (!json_is_string(name) || auth == NULL) {
		json_decref(o);
		peer_refuse(p, id, -EACCES,
		    "a peer must offer the " PEER_ENTITY
		    " key (its HELLO has no \"name\" or no \"auth\")");
		return;
	}
	s = xstrndup(json_string_value(name), 64);
	for (i = 0, n = strlen(s); i < n; i++)
		if (s[i] <= 0x20 || s[i] > 0x7e)
			s[i] = '?';
	p->entity = s;
	xasprintf(&s, "%s (%s)", p->name, p->entity);
	free(p->name);
	p->name = s;
	if ((rc = seal_hello_offer(auth, nonce, &p->cipher, &cause)) != 0) {
		json_decref(o);
		xasprintf(&why, "bad HELLO: %s", cause);
		peer_refuse(p, id, rc, why);
		free(why);
		free(cause);
		return;
	}
	reply = json_pack("{s:i, s:s}", "protocol", FRAME_PROTOCOL, "server",
	    "mapmon " PACKAGE_VERSION);
	p->theirs = json_incref(json_object_get(o, "peer"));
	json_decref(o);
	if (l->ops.hello != NULL &&
	    (rc = l->ops.hello(l->arg, p->theirs, reply, &why)) != 0) {
		json_decref(reply);
		peer_refuse(p, id, rc, why != NULL ? why : "refused");
		free(why);
		return;
	}
	if (seal_random(nonce, sizeof nonce) == -1) {
		json_decref(reply);
		peer_refuse(p, id, -EIO,
		    "the system's random generator failed");
		return;
	}
	b64 = b64_encode(nonce, sizeof nonce);
	json_object_set_new(reply, "auth",
	    json_pack("{s:s, s:s}", "nonce", b64, "cipher",
		seal_cipher_name(p->cipher)));
	free(b64);
	if ((s = frame_dump_json(reply, &slen)) == NULL)
		fatalx("peer: cannot encode a HELLO");
	json_decref(reply);
	seal_transcript(p->th, d, len, s, slen);
	peer_send_clear(p, FRAME_HELLO, id, s, slen);
	free(s);
	p->state = PEER_WAIT_AUTH;
}

/* The connecting side's AUTH: the proof of the key, or a refusal. */
static void
peer_client_auth(struct peer *p, uint64_t id, const uint8_t *d, size_t len)
{
	struct peer_listener *l = p->l;
	uint8_t want[SEAL_PROOF_LEN], ours[SEAL_PROOF_LEN];
	uint8_t c2s[SEAL_KEY_LEN], s2c[SEAL_KEY_LEN];
	const char *mon;
	char *cause = NULL, *why, *b64, *text;
	int known, ok, bad;

	if (seal_auth_parse(d, len, p->proof, &cause) == -1) {
		xasprintf(&why, "bad AUTH: %s", cause);
		peer_refuse(p, id, -EINVAL, why);
		free(why);
		free(cause);
		return;
	}
	/* An unknown name costs the same and fails the same way. */
	known = l->ops.key != NULL &&
	    l->ops.key(l->arg, p->entity, p->key) == 0;
	if (!known)
		memcpy(p->key, l->dummy_key, sizeof p->key);
	seal_proof(want, p->key, 0, p->th);
	ok = seal_proof_equal(want, p->proof) && known;
	if (!ok) {
		xasprintf(&why,
		    "authentication as %s failed (another key, or a "
		    "handshake replayed)",
		    p->entity);
		peer_refuse(p, id, -EACCES, why);
		free(why);
		return;
	}
	seal_session_keys(p->key, p->th, c2s, s2c);
	seal_proof(ours, p->key, 1, p->th);
	bad = seal_init(&p->rx, p->cipher, c2s, 0) == -1 ||
	    seal_init(&p->tx, p->cipher, s2c, 1) == -1;
	OPENSSL_cleanse(c2s, sizeof c2s);
	OPENSSL_cleanse(s2c, sizeof s2c);
	if (bad) {
		peer_refuse(p, id, -ENOMEM,
		    "cannot set up the session's ciphers");
		return;
	}
	b64 = b64_encode(ours, sizeof ours);
	xasprintf(&text, "{\"proof\":\"%s\"}", b64);
	free(b64);
	peer_send_clear(p, FRAME_AUTH, id, text, strlen(text));
	free(text);
	p->tx_sealed = p->rx_sealed = 1;
	p->state = PEER_READY;
	LIST_REMOVE(p, entry);
	p->l = NULL;
	if ((mon = json_string_value(json_object_get(p->theirs, "mon"))) !=
	    NULL) {
		free(p->name);
		xasprintf(&p->name, "%s (mon.%s)", p->host, mon);
	}
	dout(LOG_NET, 5, "peer %s: authenticated as %s, %s", p->name, p->entity,
	    seal_cipher_name(p->cipher));
	l->ops.accept(l->arg, p, p->theirs);
}

/* ---- both ---- */

static void
peer_frame(struct peer *p, const struct frame_header *h, const uint8_t *d)
{
	int accepting = p->l != NULL;
	char *why;

	if (h->type == FRAME_REPLY && !accepting) {
		peer_refused(p, d, h->len);
		return;
	}
	switch (p->state) {
	case PEER_WAIT_HELLO:
		if (h->type == FRAME_HELLO) {
			if (accepting)
				peer_client_hello(p, h->id, d, h->len);
			else
				peer_server_hello(p, d, h->len);
			return;
		}
		break;
	case PEER_WAIT_AUTH:
		if (h->type == FRAME_AUTH) {
			if (accepting)
				peer_client_auth(p, h->id, d, h->len);
			else
				peer_server_auth(p, d, h->len);
			return;
		}
		break;
	case PEER_READY:
		if (h->type == FRAME_STREAM) {
			if (h->len > 0 && p->ops.data != NULL)
				p->ops.data(p->arg, d, h->len);
			return;
		}
		break;
	default:
		return;
	}
	xasprintf(&why, "unexpected %s frame %s", frame_type_name(h->type),
	    p->state == PEER_READY ? "on a peer connection" :
				     "during the handshake");
	if (accepting)
		peer_refuse(p, h->id, -EPROTO, why);
	else
		peer_end(p, -EPROTO, why);
	free(why);
}

static int
peer_reading(const struct peer *p)
{
	return !p->doomed && p->bev != NULL && p->defer_err == 0 &&
	    (bufferevent_get_enabled(p->bev) & EV_READ) != 0 &&
	    (p->state == PEER_WAIT_HELLO || p->state == PEER_WAIT_AUTH ||
		p->state == PEER_READY);
}

static void
peer_read_cb(struct bufferevent *bev, void *arg)
{
	struct peer *p = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct frame_header h;
	uint8_t *d;
	size_t len, max;
	char *cause = NULL;
	uint64_t nth;

	peer_enter(p);
	memset(&h, 0, sizeof h);
	while (peer_reading(p)) {
		len = evbuffer_get_length(in);
		if (len < FRAME_HEADER_SIZE)
			break;
		max = p->state == PEER_READY ? PEER_MAX_FRAME + SEAL_TAG_LEN :
					       PEER_HANDSHAKE_FRAME;
		d = evbuffer_pullup(in, FRAME_HEADER_SIZE);
		if (frame_decode_header(d, len, max, &h, &cause) == -1 ||
		    (cause == NULL && h.type == FRAME_STREAM &&
			!p->rx_sealed)) {
			if (cause == NULL)
				cause = xstrdup("a STREAM frame before the "
						"handshake's end");
			if (p->l != NULL)
				peer_refuse(p, h.id, -EPROTO, cause);
			else
				peer_end(p, -EPROTO, cause);
			free(cause);
			break;
		}
		if (len < FRAME_HEADER_SIZE + (size_t)h.len)
			break;
		len = FRAME_HEADER_SIZE + (size_t)h.len;
		d = evbuffer_pullup(in, (ev_ssize_t)len);
		p->last_in = stamp_mono();
		if (p->rx_sealed) {
			nth = p->rx.counter;
			if (seal_open(&p->rx, d, d + FRAME_HEADER_SIZE, h.len,
				&cause) == -1) {
				char *why;

				xasprintf(&why, "sealed frame %llu: %s",
				    (unsigned long long)nth, cause);
				peer_log_refusal(p, why);
				peer_reply(p, h.id, -EBADMSG, why);
				peer_end(p, -EBADMSG, why);
				free(why);
				free(cause);
				break;
			}
			h.len -= SEAL_TAG_LEN;
		}
		peer_frame(p, &h, d + FRAME_HEADER_SIZE);
		evbuffer_drain(in, len);
	}
	peer_leave(p);
}

static void
peer_write_cb(struct bufferevent *bev mapmon_unused, void *arg)
{
	struct peer *p = arg;

	if (p->state == PEER_LINGER) {
		peer_free(p);
		return;
	}
	if (p->want_drain && !p->doomed) {
		p->want_drain = 0;
		peer_enter(p);
		if (p->ops.drained != NULL)
			p->ops.drained(p->arg);
		peer_leave(p);
	}
}

static void
peer_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct peer *p = arg;
	int one = 1, err;

	if (p->state == PEER_LINGER) {
		if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
			peer_free(p);
		return;
	}
	if (what & BEV_EVENT_CONNECTED) {
		(void)setsockopt(bufferevent_getfd(bev), IPPROTO_TCP,
		    TCP_NODELAY, &one, sizeof one);
		peer_enter(p);
		peer_send_hello(p, p->hello);
		json_decref(p->hello);
		p->hello = NULL;
		peer_leave(p);
		return;
	}
	if (what & BEV_EVENT_EOF) {
		peer_end(p, -ECONNRESET, "closed the connection");
		return;
	}
	if (what & BEV_EVENT_ERROR) {
		err = EVUTIL_SOCKET_ERROR();
		if (err == 0)
			err = ECONNRESET;
		peer_endf(p, -err, "%s", evutil_socket_error_to_string(err));
	}
}

/* Output bytes come and go: the write stall clock. */
static void
peer_output_cb(struct evbuffer *b mapmon_unused,
    const struct evbuffer_cb_info *info, void *arg)
{
	struct peer *p = arg;

	if (info->n_deleted > 0 || (info->orig_size == 0 && info->n_added > 0))
		p->last_progress = stamp_mono();
}

static void
peer_timer_cb(evutil_socket_t fd mapmon_unused, short what mapmon_unused,
    void *arg)
{
	struct peer *p = arg;
	int64_t now = stamp_mono(), silent = (int64_t)p->keepalive_ms * 3000;

	if (p->state == PEER_LINGER) {
		if (now - p->started > (int64_t)PEER_HANDSHAKE_MS * 1000)
			peer_free(p);
		return;
	}
	if (p->doomed)
		return;
	if (p->defer_err != 0) {
		/* An error found inside a call of the caller's: now. */
		peer_end(p, p->defer_err, p->defer_why);
		return;
	}
	if (p->state != PEER_READY) {
		if (now - p->started > (int64_t)PEER_HANDSHAKE_MS * 1000) {
			if (p->l != NULL)
				dout(LOG_NET, 1,
				    "peer %s: no handshake within "
				    "%d ms",
				    p->name, PEER_HANDSHAKE_MS);
			peer_endf(p, -ETIMEDOUT, "no handshake within %d ms",
			    PEER_HANDSHAKE_MS);
		}
		return;
	}
	if (now - p->last_in > silent) {
		peer_endf(p, -ETIMEDOUT, "nothing heard for %lld ms",
		    (long long)(now - p->last_in) / 1000);
		return;
	}
	if (evbuffer_get_length(bufferevent_get_output(p->bev)) > 0 &&
	    now - p->last_progress > silent) {
		peer_endf(p, -ETIMEDOUT, "its socket took nothing for %lld ms",
		    (long long)(now - p->last_progress) / 1000);
		return;
	}
	if (now - p->last_out >= (int64_t)p->keepalive_ms * 1000 &&
	    peer_send_sealed(p, FRAME_STREAM, 0, NULL, 0) == -1)
		peer_end(p, -EIO, "cannot seal more frames");
}

/* Common to both sides: the events, the timer, the clocks. */
static struct peer *
peer_new(struct event_base *base, int keepalive_ms, const char *name,
    const char *host)
{
	struct peer *p = xcalloc(1, sizeof *p);
	struct timeval tv;
	int tick = keepalive_ms / 2;

	p->base = base;
	p->keepalive_ms = keepalive_ms > 0 ? keepalive_ms : 1000;
	p->name = xstrdup(name);
	snprintf(p->host, sizeof p->host, "%s", host);
	p->started = p->last_in = p->last_out = p->last_progress = stamp_mono();
	if (tick < 10)
		tick = 10;
	if (tick > 1000)
		tick = 1000;
	tv.tv_sec = tick / 1000;
	tv.tv_usec = (tick % 1000) * 1000;
	if ((p->timer = event_new(base, -1, EV_PERSIST, peer_timer_cb, p)) ==
		NULL ||
	    event_add(p->timer, &tv) == -1)
		fatalx("peer: cannot make a timer");
	return p;
}

static void
peer_bev_setup(struct peer *p)
{
	bufferevent_setcb(p->bev, peer_read_cb, peer_write_cb, peer_event_cb,
	    p);
	evbuffer_add_cb(bufferevent_get_output(p->bev), peer_output_cb, p);
	bufferevent_enable(p->bev, EV_READ | EV_WRITE);
}

struct peer *
peer_connect(struct event_base *base, const char *host, uint16_t port,
    const uint8_t key[SEAL_KEY_LEN], const json_t *hello, int keepalive_ms,
    const struct peer_ops *ops, void *arg, char **cause)
{
	struct evutil_addrinfo hints, *ai = NULL;
	struct peer *p;
	char sport[8], *name;
	int rv;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = EVUTIL_AI_NUMERICSERV;
	snprintf(sport, sizeof sport, "%u", (unsigned)port);
	if ((rv = evutil_getaddrinfo(host, sport, &hints, &ai)) != 0) {
		xasprintf(cause, "%s:%u: %s", host, (unsigned)port,
		    evutil_gai_strerror(rv));
		return NULL;
	}
	xasprintf(&name, "%s:%u", host, (unsigned)port);
	p = peer_new(base, keepalive_ms, name, host);
	free(name);
	memcpy(p->key, key, SEAL_KEY_LEN);
	p->hello = json_deep_copy(hello);
	p->ops = *ops;
	p->arg = arg;
	p->state = PEER_CONNECTING;
	if ((p->bev = bufferevent_socket_new(base, -1,
		 BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		evutil_freeaddrinfo(ai);
		peer_free(p);
		xasprintf(cause, "cannot make a socket");
		return NULL;
	}
	peer_bev_setup(p);
	if (bufferevent_socket_connect(p->bev, ai->ai_addr,
		(int)ai->ai_addrlen) == -1) {
		/* Its error goes to ops->closed from the timer, not here. */
		rv = EVUTIL_SOCKET_ERROR();
		if (rv == 0)
			rv = ECONNREFUSED;
		bufferevent_free(p->bev);
		p->bev = NULL;
		p->defer_err = -rv;
		p->defer_why = xstrdup(evutil_socket_error_to_string(rv));
		event_active(p->timer, EV_TIMEOUT, 0);
	}
	evutil_freeaddrinfo(ai);
	return p;
}

void
peer_set_ops(struct peer *p, const struct peer_ops *ops, void *arg)
{
	p->ops = *ops;
	p->arg = arg;
}

int
peer_send(struct peer *p, const void *data, size_t len)
{
	const uint8_t *d = data;
	size_t n;

	if (p->state != PEER_READY || p->doomed)
		return -1;
	while (len > 0) {
		n = len < PEER_CHUNK ? len : PEER_CHUNK;
		if (peer_send_sealed(p, FRAME_STREAM, 0, d, n) == -1) {
			/* Spent: ends from the timer, never inside here. */
			p->defer_err = -EIO;
			p->defer_why = xstrdup("cannot seal more frames");
			bufferevent_free(p->bev);
			p->bev = NULL;
			event_active(p->timer, EV_TIMEOUT, 0);
			return -1;
		}
		d += n;
		len -= n;
	}
	if (peer_pending(p) > PEER_HIGH_WATER) {
		p->want_drain = 1;
		return 1;
	}
	return 0;
}

size_t
peer_pending(const struct peer *p)
{
	return p->bev == NULL ?
	    0 :
	    evbuffer_get_length(bufferevent_get_output(p->bev));
}

void
peer_set_reading(struct peer *p, int on)
{
	if (p->bev == NULL || p->doomed)
		return;
	if (!on) {
		bufferevent_disable(p->bev, EV_READ);
		return;
	}
	bufferevent_enable(p->bev, EV_READ);
	/* What came while paused is read now, not at the next byte. */
	if (evbuffer_get_length(bufferevent_get_input(p->bev)) > 0)
		bufferevent_trigger(p->bev, EV_READ, BEV_TRIG_DEFER_CALLBACKS);
}

const char *
peer_name(const struct peer *p)
{
	return p->name;
}

void
peer_close(struct peer *p)
{
	if (p == NULL)
		return;
	memset(&p->ops, 0, sizeof p->ops);
	if (p->doomed)
		return;
	p->doomed = 1;
	if (p->busy == 0)
		peer_free(p);
}

static void
peer_free_now(struct peer *p)
{
	if (p->l != NULL)
		LIST_REMOVE(p, entry);
	if (p->bev != NULL)
		bufferevent_free(p->bev);
	if (p->timer != NULL)
		event_free(p->timer);
	seal_clear(&p->tx);
	seal_clear(&p->rx);
	OPENSSL_cleanse(p->key, sizeof p->key);
	json_decref(p->theirs);
	json_decref(p->hello);
	free(p->defer_why);
	free(p->hello_c);
	free(p->entity);
	free(p->name);
	free(p);
}

/*
 * Free p; the accepting side's refusal is written first (lingering at
 * most PEER_HANDSHAKE_MS), so that the other side can log why.
 */
static void
peer_free(struct peer *p)
{
	if (p->state != PEER_LINGER && p->l != NULL && p->bev != NULL &&
	    peer_pending(p) > 0) {
		p->state = PEER_LINGER;
		p->started = stamp_mono();
		bufferevent_disable(p->bev, EV_READ);
		return;
	}
	peer_free_now(p);
}

/* ---- the listener ---- */

static void
peer_accept_cb(struct evconnlistener *lev mapmon_unused, evutil_socket_t fd,
    struct sockaddr *sa, int salen mapmon_unused, void *arg)
{
	struct peer_listener *l = arg;
	char host[64], name[96];
	uint16_t port = 0;
	struct peer *p;
	int one = 1;

	host[0] = '\0';
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		evutil_inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
		port = ntohs(in->sin_port);
		snprintf(name, sizeof name, "%s:%u", host, (unsigned)port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		evutil_inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
		port = ntohs(in6->sin6_port);
		snprintf(name, sizeof name, "[%s]:%u", host, (unsigned)port);
	} else
		snprintf(name, sizeof name, "?");
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	p = peer_new(l->base, l->keepalive_ms, name, host);
	if ((p->bev = bufferevent_socket_new(l->base, fd,
		 BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		evutil_closesocket(fd);
		peer_free_now(p);
		return;
	}
	p->l = l;
	LIST_INSERT_HEAD(&l->handshakes, p, entry);
	p->state = PEER_WAIT_HELLO;
	peer_bev_setup(p);
}

struct peer_listener *
peer_listen(struct event_base *base, const char *host, uint16_t port,
    int keepalive_ms, const struct peer_listener_ops *ops, void *arg,
    char **cause)
{
	struct evutil_addrinfo hints, *ai = NULL;
	struct peer_listener *l;
	char sport[8];
	int rv;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = EVUTIL_AI_PASSIVE | EVUTIL_AI_NUMERICSERV;
	snprintf(sport, sizeof sport, "%u", (unsigned)port);
	if ((rv = evutil_getaddrinfo(
		 *host == '\0' || strcmp(host, "*") == 0 ? NULL : host, sport,
		 &hints, &ai)) != 0) {
		xasprintf(cause, "%s:%u: %s", host, (unsigned)port,
		    evutil_gai_strerror(rv));
		return NULL;
	}
	l = xcalloc(1, sizeof *l);
	l->base = base;
	l->ops = *ops;
	l->arg = arg;
	l->keepalive_ms = keepalive_ms;
	LIST_INIT(&l->handshakes);
	if (seal_random(l->dummy_key, sizeof l->dummy_key) == -1) {
		xasprintf(cause, "the system's random generator failed");
		goto fail;
	}
	l->lev = evconnlistener_new_bind(base, peer_accept_cb, l,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
	    64, ai->ai_addr, (int)ai->ai_addrlen);
	if (l->lev == NULL) {
		xasprintf(cause, "%s:%u: %s", host, (unsigned)port,
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		goto fail;
	}
	evutil_freeaddrinfo(ai);
	return l;
fail:
	evutil_freeaddrinfo(ai);
	free(l);
	return NULL;
}

uint16_t
peer_listener_port(const struct peer_listener *l)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;

	if (getsockname(evconnlistener_get_fd(l->lev), (struct sockaddr *)&ss,
		&len) == -1)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

void
peer_listener_free(struct peer_listener *l)
{
	struct peer *p;

	if (l == NULL)
		return;
	evconnlistener_free(l->lev);
	while ((p = LIST_FIRST(&l->handshakes)) != NULL)
		peer_free_now(p);
	OPENSSL_cleanse(l->dummy_key, sizeof l->dummy_key);
	free(l);
}
