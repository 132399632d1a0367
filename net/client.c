/*
 * client.c: a protocol client on libevent.
 *
 * Waiting requests sit in an id map by request id and in a list, so that a
 * failure can answer them all in the order they were sent.  Entry points
 * from libevent hold `busy`, so that a callback may free the client: the
 * free then happens when the outermost entry point returns.  A reply that
 * comes in parts (FRAME_FLAG_MORE) is gathered in its request until its
 * last part, then parsed as one.  With a key, frames queued before the
 * session keys are known wait, whole and in the clear, in `pending', and
 * are sealed into the output once they are; frames that come in are
 * opened in place in the input buffer.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
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
#include <pthread.h>

#include "common/b64.h"
#include "common/enc.h"
#include "common/idmap.h"
#include "common/log.h"
#include "common/mapmon.h"
#include "net/client.h"
#include "net/frame.h"
#include "net/keyring.h"
#include "net/seal.h"
#include "net/tls.h"

/* Replies and pushes can hold whole maps: accept big frames. */
#define MCLIENT_MAX_FRAME ((size_t)1 << 30)
/* And larger replies in parts: a listing of 262,144 PGs is some 380 MB. */
#define MCLIENT_MAX_REPLY ((size_t)1 << 32)
#define MCLIENT_MAX_READ (256 * 1024)

enum mclient_state {
	MCLIENT_CONNECTING, /* TCP connect and HELLO under way */
	MCLIENT_AUTH,	    /* our AUTH sent, the server's awaited */
	MCLIENT_READY,
	MCLIENT_DEAD,
};

/* The credentials of clients given none (mclient_default_auth()). */
static struct {
	pthread_mutex_t lock;
	int set;    /* by a call, or from the environment */
	char *name; /* NULL: no key */
	uint8_t key[SEAL_KEY_LEN];
	char *error;	 /* the environment's keyring is bad */
	SSL_CTX *tls;	 /* the CA to check monitors with, or NULL */
	int tls_set;	 /* by a call, or from the environment */
	char *tls_error; /* the environment's CA is bad */
} mclient_defaults = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct mreq {
	struct idmap_node node;	/* node.id: the request id, in cl->ids */
	mclient_reply_cb cb;
	mclient_push_cb on_push; /* a subscription */
	mclient_text_cb on_text; /* a subscription, its pushes as text */
	void *arg;
	int replied; /* a subscription's first reply came */
	struct enc_buf parts; /* the parts of its reply so far */
	TAILQ_ENTRY(mreq) entry;
};
TAILQ_HEAD(mreq_list, mreq);

struct mclient {
	struct event_base *base;
	char *addr;	/* as given, for messages */
	char *name;	/* for the HELLO */
	mclient_ready_cb on_ready;
	mclient_error_cb on_error;
	void *arg;

	enum mclient_state state;
	struct bufferevent *bev;
	struct addrinfo *ai_list, *ai; /* addresses to try, the current one */
	struct event *timer;	/* connect_timeout_ms */
	struct event *defer;	/* reports a failure of mclient_new */
	int defer_err;
	char *defer_msg;
	int hello_sent;
	json_t *hello;		/* the server's */
	char *server_error;	/* the last unmatched error REPLY */

	uint64_t next_id;
	struct idmap ids;	 /* the waiting requests by id */
	size_t npending; /* not yet answered */
	struct mreq_list reqs;

	/* Authentication (see the top of this file). */
	char *auth_name; /* the key's entity, or NULL: no key */
	uint8_t key[SEAL_KEY_LEN];
	char *hello_c; /* our HELLO's payload, as sent */
	size_t hello_c_len;
	uint8_t th[SEAL_HASH_LEN];
	struct seal tx, rx;
	int tx_sealed, rx_sealed;
	struct evbuffer *pending; /* frames waiting for the session keys */
	SSL_CTX *tls;		  /* TLS with this context, or NULL */
	char *host; /* the address's host, the certificate's name */

	int busy;
	int freed;
};

static void mclient_connect_next(struct mclient *);
static void mclient_send_hello(struct mclient *);
static void mclient_real_free(struct mclient *);
static void mclient_prove(struct mclient *, json_t *, const uint8_t *, size_t);
static int mclient_defaults_apply(struct mclient *, char **);

int
mclient_parse_addr(const char *addr, char **host, uint16_t *port,
    char **cause)
{
	const char *end, *colon, *ps = NULL;
	char *h, *ep;
	unsigned long v;

	if (addr == NULL || *addr == '\0') {
		xasprintf(cause, "empty monitor address");
		return -1;
	}
	if (*addr == '[') {
		if ((end = strchr(addr, ']')) == NULL) {
			xasprintf(cause, "bad address '%s': '[' without ']'",
			    addr);
			return -1;
		}
		h = xstrndup(addr + 1, (size_t)(end - addr - 1));
		if (end[1] == ':')
			ps = end + 2;
		else if (end[1] != '\0') {
			xasprintf(cause, "bad address '%s': ':PORT' or nothing "
			    "expected after ']'", addr);
			free(h);
			return -1;
		}
	} else if ((colon = strchr(addr, ':')) != NULL &&
	    strchr(colon + 1, ':') == NULL) {
		h = xstrndup(addr, (size_t)(colon - addr));
		ps = colon + 1;
	} else
		h = xstrdup(addr); /* a name, or a bare IPv6 address */
	if (*h == '\0') {
		xasprintf(cause, "bad address '%s': no host", addr);
		free(h);
		return -1;
	}
	if (ps == NULL) {
		*port = FRAME_DEFAULT_PORT;
		*host = h;
		return 0;
	}
	errno = 0;
	v = strtoul(ps, &ep, 10);
	if (*ps < '0' || *ps > '9' || *ep != '\0' || errno != 0 ||
	    v > 65535) {
		xasprintf(cause, "bad address '%s': port '%s' is not a number "
		    "from 0 to 65535", addr, ps);
		free(h);
		return -1;
	}
	*port = (uint16_t)v;
	*host = h;
	return 0;
}

static struct mreq *
mclient_find(const struct mclient *cl, uint64_t id)
{
	struct idmap_node *n = idmap_find(&cl->ids, id);

	return n != NULL ? idmap_entry(n, struct mreq, node) : NULL;
}

static void
mclient_req_insert(struct mclient *cl, struct mreq *r)
{
	idmap_insert(&cl->ids, &r->node);
	TAILQ_INSERT_TAIL(&cl->reqs, r, entry);
}

static void
mclient_req_remove(struct mclient *cl, struct mreq *r)
{
	idmap_remove(&cl->ids, &r->node);
	TAILQ_REMOVE(&cl->reqs, r, entry);
}

static void
mclient_req_free(struct mreq *r)
{
	enc_buf_free(&r->parts);
	free(r);
}

static void
mclient_enter(struct mclient *cl)
{
	cl->busy++;
}

/* Returns 1 when the client was freed on the way out. */
static int
mclient_leave(struct mclient *cl)
{
	if (--cl->busy == 0 && cl->freed) {
		mclient_real_free(cl);
		return 1;
	}
	return 0;
}

/*
 * The connection is over: answer every waiting request with err, then tell
 * on_error (unless the caller is freeing the client).
 */
static void
mclient_fail(struct mclient *cl, int err, const char *msg, int notify)
{
	struct mreq *r;

	if (cl->state == MCLIENT_DEAD)
		return;
	cl->state = MCLIENT_DEAD;
	dout(LOG_NET, 5, "client %s: %s", cl->addr, msg);
	if (cl->bev != NULL) {
		bufferevent_free(cl->bev);
		cl->bev = NULL;
	}
	evtimer_del(cl->timer);
	mclient_enter(cl);
	while ((r = TAILQ_FIRST(&cl->reqs)) != NULL) {
		mclient_req_remove(cl, r);
		if (!r->replied && r->cb != NULL && !cl->freed)
			r->cb(r->arg, err, msg, NULL);
		mclient_req_free(r);
	}
	cl->npending = 0;
	if (notify && cl->on_error != NULL && !cl->freed)
		cl->on_error(cl->arg, err, msg);
	mclient_leave(cl);
}

static void
mclient_failf(struct mclient *cl, int err, const char *fmt, ...)
    printflike(3, 4);

static void
mclient_failf(struct mclient *cl, int err, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	mclient_fail(cl, err, msg, 1);
	free(msg);
}

/* Seal one frame into the output: header, payload encrypted, tag. */
static int
mclient_seal_out(struct mclient *cl, uint8_t type, uint64_t id, const void *p,
    size_t len)
{
	struct evbuffer *out = bufferevent_get_output(cl->bev);
	struct evbuffer_iovec v;
	uint8_t hdr[FRAME_HEADER_SIZE];

	frame_encode_header(hdr, type, (uint32_t)(len + SEAL_TAG_LEN), id);
	if (evbuffer_reserve_space(out,
		(ev_ssize_t)(sizeof hdr + len + SEAL_TAG_LEN), &v, 1) != 1)
		return -1;
	memcpy(v.iov_base, hdr, sizeof hdr);
	if (seal_frame(&cl->tx, hdr, p, len,
		(uint8_t *)v.iov_base + sizeof hdr) == -1)
		return -1;
	v.iov_len = sizeof hdr + len + SEAL_TAG_LEN;
	return evbuffer_commit_space(out, &v, 1);
}

/*
 * Queue one frame; the HELLO always goes first.  With a key, requests
 * wait in the clear for the session keys, then go sealed.  -1 when a
 * frame cannot be sealed (the client has failed).
 */
static int
mclient_send(struct mclient *cl, uint8_t type, uint64_t id, const void *p,
    size_t len)
{
	struct evbuffer *out = bufferevent_get_output(cl->bev);
	uint8_t hdr[FRAME_HEADER_SIZE];

	if (!cl->hello_sent)
		mclient_send_hello(cl);
	if (cl->tx_sealed) {
		if (mclient_seal_out(cl, type, id, p, len) == 0)
			return 0;
		mclient_failf(cl, -EIO, "cannot seal a frame to %s", cl->addr);
		return -1;
	}
	if (cl->auth_name != NULL && type != FRAME_HELLO && type != FRAME_AUTH)
		out = cl->pending;
	frame_encode_header(hdr, type, (uint32_t)len, id);
	evbuffer_add(out, hdr, sizeof hdr);
	if (len > 0)
		evbuffer_add(out, p, len);
	return 0;
}

static void
mclient_send_hello(struct mclient *cl)
{
	uint8_t nonce[SEAL_NONCE_LEN];
	json_t *obj;
	char *s, *b64;
	size_t len;

	obj = json_object();
	json_object_set_new(obj, "protocol", json_integer(FRAME_PROTOCOL));
	if (cl->auth_name != NULL)
		json_object_set_new(obj, "name", json_string(cl->auth_name));
	else if (cl->name != NULL)
		json_object_set_new(obj, "name",
		    frame_json_string_lossy(cl->name));
	json_object_set_new(obj, "features",
	    json_pack("[s]", FRAME_FEATURE_PARTS));
	if (cl->auth_name != NULL) {
		/* A failed generator: a zero nonce the server's makes unique. */
		if (seal_random(nonce, sizeof nonce) == -1)
			memset(nonce, 0, sizeof nonce);
		b64 = b64_encode(nonce, sizeof nonce);
		json_object_set_new(obj, "auth",
		    json_pack("{s:s, s:[s, s]}", "nonce", b64, "ciphers",
			seal_cipher_name(SEAL_AES_256_GCM),
			seal_cipher_name(SEAL_CHACHA20_POLY1305)));
		free(b64);
	}
	s = frame_dump_json(obj, &len);
	json_decref(obj);
	if (s == NULL) /* only out of memory: say the least */
		s = xstrdup("{\"protocol\":1}"), len = strlen(s);
	cl->hello_sent = 1;
	mclient_send(cl, FRAME_HELLO, 0, s, len);
	/* The transcript holds the HELLO as sent, byte for byte. */
	free(cl->hello_c);
	cl->hello_c = s;
	cl->hello_c_len = len;
}

/* The session keys are known: seal what waited for them. */
static int
mclient_flush_pending(struct mclient *cl)
{
	struct frame_header h;
	const uint8_t *p;
	size_t len;
	char *cause = NULL;

	while ((len = evbuffer_get_length(cl->pending)) >= FRAME_HEADER_SIZE) {
		p = evbuffer_pullup(cl->pending, FRAME_HEADER_SIZE);
		if (frame_decode_header(p, len, SIZE_MAX, &h, &cause) != 1) {
			free(cause);
			return -1;
		}
		p = evbuffer_pullup(cl->pending,
		    (ev_ssize_t)(FRAME_HEADER_SIZE + h.len));
		if (mclient_send(cl, h.type, h.id, p + FRAME_HEADER_SIZE,
			h.len) == -1)
			return -1;
		evbuffer_drain(cl->pending, FRAME_HEADER_SIZE + h.len);
	}
	return 0;
}

/*
 * A part of a reply (FRAME_FLAG_MORE), or its last: add it to the parts
 * of its request.  Returns 0 when the reply is whole in r->parts, 1 when
 * more parts are to come, -1 when the client failed.
 */
static int
mclient_reply_part(struct mclient *cl, const struct frame_header *h,
    const uint8_t *p, struct mreq *r)
{
	if (r == NULL || r->replied) {
		mclient_failf(cl, -EPROTO, "%s sent a reply part of no request",
		    cl->addr);
		return -1;
	}
	if (h->len > MCLIENT_MAX_REPLY - r->parts.len) {
		mclient_failf(cl, -EMSGSIZE, "%s sent a reply past %zu bytes",
		    cl->addr, MCLIENT_MAX_REPLY);
		return -1;
	}
	enc_buf_put_bytes(&r->parts, p, h->len);
	return (h->flags & FRAME_FLAG_MORE) ? 1 : 0;
}

/* A REPLY frame: {"rc": int, "status": string, "data": any}. */
static void
mclient_reply(struct mclient *cl, const struct frame_header *h,
    const uint8_t *p)
{
	json_t *obj, *jrc, *jstatus;
	struct mreq *r = NULL;
	const char *status;
	char *cause;
	size_t len = h->len;
	int rc, keep;

	if (cl->state == MCLIENT_READY)
		r = mclient_find(cl, h->id);
	if ((h->flags & FRAME_FLAG_MORE) || (r != NULL && r->parts.len > 0)) {
		if ((rc = mclient_reply_part(cl, h, p, r)) != 0)
			return;
		p = r->parts.data;
		len = r->parts.len;
	}
	obj = frame_parse_json(p, len, &cause);
	if (r != NULL)
		enc_buf_free(&r->parts);
	if (obj == NULL) {
		mclient_failf(cl, -EPROTO, "bad reply from %s: %s", cl->addr,
		    cause);
		free(cause);
		return;
	}
	jrc = json_object_get(obj, "rc");
	jstatus = json_object_get(obj, "status");
	if (!json_is_integer(jrc) || !json_is_string(jstatus) ||
	    json_integer_value(jrc) > 0 ||
	    json_integer_value(jrc) < -4095) {
		json_decref(obj);
		mclient_failf(cl, -EPROTO, "bad reply from %s: no integer "
		    "\"rc\" (0 or a negative errno) and string \"status\"",
		    cl->addr);
		return;
	}
	rc = (int)json_integer_value(jrc);
	status = json_string_value(jstatus);

	if (cl->state == MCLIENT_CONNECTING || cl->state == MCLIENT_AUTH) {
		/* The server refused the HELLO, the key or the connection. */
		if (rc == -EACCES && cl->auth_name != NULL)
			mclient_failf(cl, rc,
			    "%s refused authentication as "
			    "%s: %s",
			    cl->addr, cl->auth_name, status);
		else
			mclient_failf(cl, rc < 0 ? rc : -EPROTO, "%s: %s",
			    cl->addr, status);
		json_decref(obj);
		return;
	}
	if (r == NULL || r->replied) {
		/* A frame-level error from the server: it will close. */
		dout(LOG_NET, 5, "client %s: reply to unknown request %llu: "
		    "%d %s", cl->addr, (unsigned long long)h->id, rc, status);
		if (rc < 0) {
			free(cl->server_error);
			cl->server_error = xstrdup(status);
		}
		json_decref(obj);
		return;
	}
	cl->npending--;
	/*
	 * A subscription's request stays for its pushes.  Decided before
	 * the callback: one that frees the client frees that request too.
	 */
	keep = (r->on_push != NULL || r->on_text != NULL) && rc >= 0;
	if (keep)
		r->replied = 1;
	else
		mclient_req_remove(cl, r);
	if (r->cb != NULL) {
		json_t *data = json_object_get(obj, "data");

		r->cb(r->arg, rc, status, json_is_null(data) ? NULL : data);
	}
	if (!keep)
		mclient_req_free(r);
	json_decref(obj);
}

static void
mclient_push(struct mclient *cl, const struct frame_header *h,
    const uint8_t *p)
{
	struct mreq *r;
	json_t *obj;
	char *cause;

	/* A reader of text takes the push as it came, never parsed. */
	if ((r = mclient_find(cl, h->id)) != NULL && r->on_text != NULL) {
		r->on_text(r->arg, (const char *)p, h->len);
		return;
	}
	if ((obj = frame_parse_json(p, h->len, &cause)) == NULL) {
		mclient_failf(cl, -EPROTO, "bad push from %s: %s", cl->addr,
		    cause);
		free(cause);
		return;
	}
	if ((r = mclient_find(cl, h->id)) != NULL && r->on_push != NULL)
		r->on_push(r->arg, obj);
	else
		dout(LOG_NET, 10, "client %s: push for unknown subscription "
		    "%llu", cl->addr, (unsigned long long)h->id);
	json_decref(obj);
}

static void
mclient_server_hello_frame(struct mclient *cl, const struct frame_header *h,
    const uint8_t *p)
{
	json_t *obj, *proto;
	char *cause;

	if (cl->state != MCLIENT_CONNECTING) {
		mclient_failf(cl, -EPROTO, "%s sent a second HELLO", cl->addr);
		return;
	}
	if ((obj = frame_parse_json(p, h->len, &cause)) == NULL) {
		mclient_failf(cl, -EPROTO, "bad HELLO from %s: %s", cl->addr,
		    cause);
		free(cause);
		return;
	}
	proto = json_object_get(obj, "protocol");
	if (!json_is_integer(proto) ||
	    json_integer_value(proto) != FRAME_PROTOCOL) {
		json_decref(obj);
		mclient_failf(cl, -EPROTONOSUPPORT, "%s does not speak "
		    "protocol %d", cl->addr, FRAME_PROTOCOL);
		return;
	}
	cl->hello = obj;
	if (cl->auth_name != NULL) {
		mclient_prove(cl, obj, p, h->len);
		return;
	}
	cl->state = MCLIENT_READY;
	evtimer_del(cl->timer);
	if (cl->on_ready != NULL)
		cl->on_ready(cl->arg, obj);
}

/*
 * The server answered our key: prove ours in an AUTH frame, make the
 * session keys and send, sealed, what waited for them.  The server's proof
 * comes in its AUTH frame (mclient_server_auth()).
 */
static void
mclient_prove(struct mclient *cl, json_t *hello, const uint8_t *p, size_t len)
{
	json_t *auth = json_object_get(hello, "auth");
	const char *nonce = json_string_value(json_object_get(auth, "nonce"));
	const char *cname = json_string_value(json_object_get(auth, "cipher"));
	uint8_t n[SEAL_NONCE_LEN], proof[SEAL_PROOF_LEN];
	uint8_t c2s[SEAL_KEY_LEN], s2c[SEAL_KEY_LEN];
	enum seal_cipher cipher;
	char *why = NULL, *b64, *text;
	int rc;

	if (nonce == NULL || cname == NULL) {
		mclient_failf(cl, -EPROTO,
		    "%s answered the key with no "
		    "\"auth\" nonce and cipher",
		    cl->addr);
		return;
	}
	if (b64_decode_exact(nonce, n, sizeof n, &why) == -1) {
		mclient_failf(cl, -EPROTO, "%s sent a bad nonce: %s", cl->addr,
		    why);
		free(why);
		return;
	}
	if (seal_cipher_find(cname, &cipher) == -1) {
		mclient_failf(cl, -EPROTO,
		    "%s chose cipher '%.40s', which was "
		    "not offered",
		    cl->addr, cname);
		return;
	}
	seal_transcript(cl->th, cl->hello_c, cl->hello_c_len, p, len);
	seal_proof(proof, cl->key, 0, cl->th);
	b64 = b64_encode(proof, sizeof proof);
	xasprintf(&text, "{\"proof\":\"%s\"}", b64);
	free(b64);
	mclient_send(cl, FRAME_AUTH, 0, text, strlen(text));
	free(text);
	seal_session_keys(cl->key, cl->th, c2s, s2c);
	rc = seal_init(&cl->tx, cipher, c2s, 1) == -1 ||
	    seal_init(&cl->rx, cipher, s2c, 0) == -1;
	OPENSSL_cleanse(c2s, sizeof c2s);
	OPENSSL_cleanse(s2c, sizeof s2c);
	if (rc) {
		mclient_failf(cl, -ENOMEM, "cannot set up the ciphers for %s",
		    cl->addr);
		return;
	}
	cl->tx_sealed = 1;
	cl->state = MCLIENT_AUTH;
	if (mclient_flush_pending(cl) == -1 && cl->state != MCLIENT_DEAD)
		mclient_failf(cl, -EIO, "cannot seal the requests to %s",
		    cl->addr);
}

/* The server's AUTH: its proof of our key; then every frame is sealed. */
static void
mclient_server_auth(struct mclient *cl, const struct frame_header *h,
    const uint8_t *p)
{
	uint8_t want[SEAL_PROOF_LEN], got[SEAL_PROOF_LEN];
	char *cause = NULL;
	int ok;

	if (cl->state != MCLIENT_AUTH) {
		mclient_failf(cl, -EPROTO, "%s sent an AUTH frame out of turn",
		    cl->addr);
		return;
	}
	if (seal_auth_parse(p, h->len, got, &cause) == -1) {
		mclient_failf(cl, -EPROTO, "bad AUTH from %s: %s", cl->addr,
		    cause);
		free(cause);
		return;
	}
	seal_proof(want, cl->key, 1, cl->th);
	ok = seal_proof_equal(want, got);
	OPENSSL_cleanse(want, sizeof want);
	if (!ok) {
		mclient_failf(cl, -EACCES,
		    "%s does not hold the key of %s: it "
		    "failed to prove it (not the monitor it claims to be?)",
		    cl->addr, cl->auth_name);
		return;
	}
	cl->rx_sealed = 1;
	cl->state = MCLIENT_READY;
	evtimer_del(cl->timer);
	if (cl->on_ready != NULL)
		cl->on_ready(cl->arg, cl->hello);
}

static void
mclient_read_cb(struct bufferevent *bev, void *arg)
{
	struct mclient *cl = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct frame_header h;
	uint8_t *p;
	size_t len;
	char *cause;
	int r;

	mclient_enter(cl);
	while (cl->state != MCLIENT_DEAD && !cl->freed) {
		len = evbuffer_get_length(in);
		if (len < FRAME_HEADER_SIZE)
			break;
		p = evbuffer_pullup(in, FRAME_HEADER_SIZE);
		r = frame_decode_header(p, len,
		    MCLIENT_MAX_FRAME + (cl->rx_sealed ? SEAL_TAG_LEN : 0), &h,
		    &cause);
		if (r == -1) {
			mclient_failf(cl, -EPROTO, "bad frame from %s: %s",
			    cl->addr, cause);
			free(cause);
			break;
		}
		if (r == 0)
			break;
		len = FRAME_HEADER_SIZE + (size_t)h.len;
		p = evbuffer_pullup(in, (ev_ssize_t)len);
		if (cl->rx_sealed) {
			if (seal_open(&cl->rx, p, p + FRAME_HEADER_SIZE, h.len,
				&cause) == -1) {
				mclient_failf(cl, -EBADMSG, "%s sent %s",
				    cl->addr, cause);
				free(cause);
				break;
			}
			h.len -= SEAL_TAG_LEN;
		}
		p += FRAME_HEADER_SIZE;
		switch (h.type) {
		case FRAME_HELLO:
			mclient_server_hello_frame(cl, &h, p);
			break;
		case FRAME_AUTH:
			mclient_server_auth(cl, &h, p);
			break;
		case FRAME_REPLY:
			mclient_reply(cl, &h, p);
			break;
		case FRAME_PUSH:
			mclient_push(cl, &h, p);
			break;
		default:
			mclient_failf(cl, -EPROTO, "%s sent a %s frame, which "
			    "only clients send", cl->addr,
			    frame_type_name(h.type));
			break;
		}
		/* On failure the bev (and so in) has been freed. */
		if (cl->state == MCLIENT_DEAD)
			break;
		evbuffer_drain(in, len);
	}
	mclient_leave(cl);
}

/* The error of a failed connect or a broken connection. */
static int
mclient_socket_error(struct mclient *cl)
{
	int err = EVUTIL_SOCKET_ERROR(), soerr = 0;
	socklen_t len = sizeof soerr;

	if (cl->bev != NULL && bufferevent_getfd(cl->bev) != -1 &&
	    getsockopt(bufferevent_getfd(cl->bev), SOL_SOCKET, SO_ERROR,
	    &soerr, &len) == 0 && soerr != 0)
		return soerr;
	/*
	 * libevent reports a connect() refused at once without errno: on
	 * loopback that is the usual way of being refused.
	 */
	if (cl->state == MCLIENT_CONNECTING &&
	    (err == 0 || err == EINPROGRESS || err == EAGAIN))
		return ECONNREFUSED;
	return err;
}

static void
mclient_event_cb(struct bufferevent *bev mapmon_unused, short what,
    void *arg)
{
	struct mclient *cl = arg;
	unsigned long tlserr;
	char tlsbuf[128];
	int err, one = 1;

	if (what & BEV_EVENT_CONNECTED) {
		(void)setsockopt(bufferevent_getfd(cl->bev), IPPROTO_TCP,
		    TCP_NODELAY, &one, sizeof one);
		if (!cl->hello_sent)
			mclient_send_hello(cl);
		return;
	}
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	mclient_enter(cl);
	/* A TLS failure: the monitor cannot be trusted, or speaks none. */
	if (cl->tls != NULL && (what & BEV_EVENT_ERROR) &&
	    (tlserr = bufferevent_get_openssl_error(cl->bev)) != 0) {
		mclient_failf(cl, -EACCES, "TLS with %s failed: %s", cl->addr,
		    tls_error_string(tlserr, tlsbuf, sizeof tlsbuf));
		mclient_leave(cl);
		return;
	}
	err = (what & BEV_EVENT_ERROR) ? mclient_socket_error(cl) : 0;
	if (cl->state == MCLIENT_CONNECTING && err != 0 &&
	    err != ECONNRESET && cl->ai != NULL && cl->ai->ai_next != NULL) {
		/* Try the name's next address. */
		cl->ai = cl->ai->ai_next;
		mclient_connect_next(cl);
	} else if (err != 0 && err != ECONNRESET && err != EPIPE)
		mclient_failf(cl, -err, "cannot %s %s: %s",
		    cl->state == MCLIENT_CONNECTING ? "connect to" : "talk to",
		    cl->addr, strerror(err));
	else if (cl->server_error != NULL)
		mclient_failf(cl, -ECONNRESET, "%s closed the connection: %s",
		    cl->addr, cl->server_error);
	else
		mclient_failf(cl, -ECONNRESET, "%s closed the connection",
		    cl->addr);
	mclient_leave(cl);
}

static void
mclient_timer_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct mclient *cl = arg;

	mclient_enter(cl);
	if (cl->state == MCLIENT_CONNECTING || cl->state == MCLIENT_AUTH)
		mclient_failf(cl, -ETIMEDOUT, "no answer from %s in time "
		    "(connect timeout)", cl->addr);
	mclient_leave(cl);
}

static void
mclient_defer_cb(evutil_socket_t fd mapmon_unused, short events mapmon_unused,
    void *arg)
{
	struct mclient *cl = arg;

	mclient_enter(cl);
	mclient_fail(cl, cl->defer_err, cl->defer_msg, 1);
	mclient_leave(cl);
}

/*
 * Report a failure from the loop rather than from inside mclient_new():
 * the caller has not even got its pointer yet.  msg is taken.
 */
static void
mclient_defer_fail(struct mclient *cl, int err, char *msg)
{
	if (cl->defer_msg != NULL) {
		free(msg);
		return;
	}
	cl->defer_err = err;
	cl->defer_msg = msg;
	event_active(cl->defer, EV_TIMEOUT, 0);
}

/* Start connecting to cl->ai; what an earlier try queued moves along. */
static void
mclient_connect_next(struct mclient *cl)
{
	struct bufferevent *bev;
	SSL *ssl;
	char *msg;
	int err;

	if (cl->tls != NULL) {
		if ((ssl = SSL_new(cl->tls)) == NULL ||
		    tls_client_expect(ssl, cl->host) == -1) {
			SSL_free(ssl);
			xasprintf(&msg, "cannot set up TLS for %s", cl->addr);
			mclient_defer_fail(cl, -ENOMEM, msg);
			return;
		}
		bev = bufferevent_openssl_socket_new(cl->base, -1, ssl,
		    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
		if (bev != NULL)
			bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	} else
		bev = bufferevent_socket_new(cl->base, -1,
		    BEV_OPT_CLOSE_ON_FREE);
	if (bev == NULL) {
		xasprintf(&msg, "cannot connect to %s: libevent could not "
		    "make a socket", cl->addr);
		mclient_defer_fail(cl, -ENOMEM, msg);
		return;
	}
	if (cl->bev != NULL) {
		evbuffer_add_buffer(bufferevent_get_output(bev),
		    bufferevent_get_output(cl->bev));
		bufferevent_free(cl->bev);
	}
	cl->bev = bev;
	bufferevent_setcb(bev, mclient_read_cb, NULL, mclient_event_cb, cl);
	bufferevent_set_max_single_read(bev, MCLIENT_MAX_READ);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(bev, cl->ai->ai_addr,
	    (int)cl->ai->ai_addrlen) == -1) {
		err = EVUTIL_SOCKET_ERROR();
		if (err == 0)
			err = ECONNREFUSED;
		if (cl->ai->ai_next != NULL) {
			cl->ai = cl->ai->ai_next;
			mclient_connect_next(cl);
			return;
		}
		xasprintf(&msg, "cannot connect to %s: %s", cl->addr,
		    strerror(err));
		mclient_defer_fail(cl, -err, msg);
	}
}

struct mclient *
mclient_new(struct event_base *base, const char *addr, int connect_timeout_ms,
    mclient_ready_cb on_ready, mclient_error_cb on_error, void *arg)
{
	struct mclient *cl;
	struct addrinfo hints;
	struct timeval tv;
	char *host, *cause, serv[16];
	uint16_t port;
	int error;

	cl = xcalloc(1, sizeof *cl);
	cl->base = base;
	cl->addr = xstrdup(addr != NULL ? addr : "");
	cl->on_ready = on_ready;
	cl->on_error = on_error;
	cl->arg = arg;
	cl->state = MCLIENT_CONNECTING;
	cl->next_id = 1;
	idmap_init(&cl->ids);
	TAILQ_INIT(&cl->reqs);
	cl->timer = evtimer_new(base, mclient_timer_cb, cl);
	cl->defer = event_new(base, -1, 0, mclient_defer_cb, cl);
	cl->pending = evbuffer_new();
	if (cl->timer == NULL || cl->defer == NULL || cl->pending == NULL)
		fatalx("libevent cannot allocate an event"); /* as x*alloc */
	if (mclient_defaults_apply(cl, &cause) == -1) {
		mclient_defer_fail(cl, -EACCES, cause);
		return cl;
	}

	if (mclient_parse_addr(cl->addr, &host, &port, &cause) == -1) {
		mclient_defer_fail(cl, -EINVAL, cause);
		return cl;
	}
	if (port == 0) {
		free(host);
		xasprintf(&cause, "bad address '%s': port 0", cl->addr);
		mclient_defer_fail(cl, -EINVAL, cause);
		return cl;
	}
	snprintf(serv, sizeof serv, "%u", port);
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((error = getaddrinfo(host, serv, &hints, &cl->ai_list)) != 0) {
		xasprintf(&cause, "cannot resolve %s: %s", host,
		    gai_strerror(error));
		free(host);
		cl->ai_list = NULL;
		mclient_defer_fail(cl, -EHOSTUNREACH, cause);
		return cl;
	}
	cl->host = host;
	cl->ai = cl->ai_list;
	if (connect_timeout_ms > 0) {
		tv.tv_sec = connect_timeout_ms / 1000;
		tv.tv_usec = (connect_timeout_ms % 1000) * 1000;
		evtimer_add(cl->timer, &tv);
	}
	mclient_connect_next(cl);
	return cl;
}

void
mclient_set_name(struct mclient *cl, const char *name)
{
	free(cl->name);
	cl->name = name != NULL ? xstrdup(name) : NULL;
}

void
mclient_set_auth(struct mclient *cl, const char *name, const uint8_t *key)
{
	free(cl->auth_name);
	cl->auth_name = NULL;
	OPENSSL_cleanse(cl->key, sizeof cl->key);
	if (name == NULL || key == NULL)
		return;
	cl->auth_name = xstrdup(name);
	memcpy(cl->key, key, sizeof cl->key);
}

/* Load the key of name from the keyring at path into the defaults. */
static int
mclient_defaults_load(const char *name, const char *path, char **cause)
{
	const struct keyring_entity *e;
	struct keyring *k;

	if (keyring_load(path, &k, cause) == -1)
		return -1;
	if ((e = keyring_find(k, name)) == NULL) {
		xasprintf(cause, "keyring %s has no key for %s", path, name);
		keyring_free(k);
		return -1;
	}
	free(mclient_defaults.name);
	mclient_defaults.name = xstrdup(name);
	memcpy(mclient_defaults.key, e->key, SEAL_KEY_LEN);
	keyring_free(k);
	return 0;
}

int
mclient_default_auth(const char *name, const char *path, char **cause)
{
	int rc = 0;

	pthread_mutex_lock(&mclient_defaults.lock);
	mclient_defaults.set = 1;
	free(mclient_defaults.error);
	mclient_defaults.error = NULL;
	free(mclient_defaults.name);
	mclient_defaults.name = NULL;
	OPENSSL_cleanse(mclient_defaults.key, SEAL_KEY_LEN);
	if (path != NULL)
		rc = mclient_defaults_load(name != NULL ? name : "client.admin",
		    path, cause);
	pthread_mutex_unlock(&mclient_defaults.lock);
	return rc;
}

/*
 * A new client takes the default credentials, read from the environment
 * on first use.  -1 with *cause when the environment's keyring is bad:
 * the client fails rather than go on without the key it was meant to
 * have.
 */
static int
mclient_defaults_apply(struct mclient *cl, char **cause)
{
	const char *path, *name;
	char *why = NULL;
	int rc = 0;

	pthread_mutex_lock(&mclient_defaults.lock);
	if (!mclient_defaults.set) {
		mclient_defaults.set = 1;
		path = getenv("MAPMON_KEYRING");
		name = getenv("MAPMON_NAME");
		if (name == NULL || *name == '\0')
			name = "client.admin";
		if (path != NULL && *path != '\0' &&
		    mclient_defaults_load(name, path, &why) == -1)
			mclient_defaults.error = why;
	}
	if (!mclient_defaults.tls_set) {
		mclient_defaults.tls_set = 1;
		path = getenv("MAPMON_TLS_CA");
		if (path != NULL && *path != '\0' &&
		    (mclient_defaults.tls = tls_client_ctx(path, &why)) == NULL)
			mclient_defaults.tls_error = why;
	}
	if (mclient_defaults.error != NULL) {
		xasprintf(cause, "%s (MAPMON_KEYRING)", mclient_defaults.error);
		rc = -1;
	} else if (mclient_defaults.tls_error != NULL) {
		xasprintf(cause, "%s (MAPMON_TLS_CA)",
		    mclient_defaults.tls_error);
		rc = -1;
	} else {
		if (mclient_defaults.name != NULL)
			mclient_set_auth(cl, mclient_defaults.name,
			    mclient_defaults.key);
		mclient_set_tls(cl, mclient_defaults.tls);
	}
	pthread_mutex_unlock(&mclient_defaults.lock);
	return rc;
}

void
mclient_set_tls(struct mclient *cl, SSL_CTX *ctx)
{
	if (ctx != NULL)
		SSL_CTX_up_ref(ctx);
	SSL_CTX_free(cl->tls);
	cl->tls = ctx;
}

int
mclient_default_tls(const char *ca_path, char **cause)
{
	SSL_CTX *ctx = NULL;

	if (ca_path != NULL && (ctx = tls_client_ctx(ca_path, cause)) == NULL)
		return -1;
	pthread_mutex_lock(&mclient_defaults.lock);
	mclient_defaults.tls_set = 1;
	free(mclient_defaults.tls_error);
	mclient_defaults.tls_error = NULL;
	SSL_CTX_free(mclient_defaults.tls);
	mclient_defaults.tls = ctx;
	pthread_mutex_unlock(&mclient_defaults.lock);
	return 0;
}

/* Register a request and queue its frame. */
static int
mclient_queue(struct mclient *cl, uint8_t type, const void *p, size_t len,
    mclient_reply_cb cb, mclient_push_cb on_push, mclient_text_cb on_text,
    void *arg)
{
	struct mreq *r;

	if (cl->state == MCLIENT_DEAD || cl->freed || len > UINT32_MAX)
		return -1;
	r = xcalloc(1, sizeof *r);
	r->node.id = cl->next_id++;
	r->cb = cb;
	r->on_push = on_push;
	r->on_text = on_text;
	r->arg = arg;
	mclient_req_insert(cl, r);
	cl->npending++;
	/* Without a socket a failure is already on its way to it. */
	if (cl->bev != NULL)
		mclient_send(cl, type, r->node.id, p, len);
	return 0;
}

static int
mclient_request_json(struct mclient *cl, const json_t *cmd,
    mclient_push_cb on_push, mclient_text_cb on_text, mclient_reply_cb cb,
    void *arg)
{
	char *s;
	size_t len;
	int rv;

	if (!json_is_object(cmd) || (s = frame_dump_json(cmd, &len)) == NULL)
		return -1;
	rv = mclient_queue(cl, FRAME_REQUEST, s, len, cb, on_push, on_text,
	    arg);
	free(s);
	return rv;
}

int
mclient_request(struct mclient *cl, const json_t *cmd, mclient_reply_cb cb,
    void *arg)
{
	return mclient_request_json(cl, cmd, NULL, NULL, cb, arg);
}

int
mclient_request_binary(struct mclient *cl, const void *p, size_t len,
    mclient_reply_cb cb, void *arg)
{
	return mclient_queue(cl, FRAME_BINARY_REQUEST, p, len, cb, NULL, NULL,
	    arg);
}

/* A subscription: its pushes parsed (on_push) or as text (on_text). */
static int
mclient_subscribe_to(struct mclient *cl, const json_t *cmd,
    mclient_push_cb on_push, mclient_text_cb on_text, mclient_reply_cb cb,
    void *arg)
{
	if (on_push == NULL && on_text == NULL)
		return -1;
	return mclient_request_json(cl, cmd, on_push, on_text, cb, arg);
}

int
mclient_subscribe(struct mclient *cl, const json_t *cmd,
    mclient_push_cb on_push, mclient_reply_cb cb, void *arg)
{
	return mclient_subscribe_to(cl, cmd, on_push, NULL, cb, arg);
}

int
mclient_subscribe_text(struct mclient *cl, const json_t *cmd,
    mclient_text_cb on_text, mclient_reply_cb cb, void *arg)
{
	return mclient_subscribe_to(cl, cmd, NULL, on_text, cb, arg);
}

int
mclient_ready(const struct mclient *cl)
{
	return cl->state == MCLIENT_READY;
}

json_t *
mclient_server_hello(const struct mclient *cl)
{
	return cl->hello;
}

size_t
mclient_pending(const struct mclient *cl)
{
	return cl->npending;
}

static void
mclient_real_free(struct mclient *cl)
{
	struct mreq *r;

	while ((r = TAILQ_FIRST(&cl->reqs)) != NULL) {
		mclient_req_remove(cl, r);
		mclient_req_free(r);
	}
	if (cl->bev != NULL)
		bufferevent_free(cl->bev);
	event_free(cl->timer);
	event_free(cl->defer);
	if (cl->ai_list != NULL)
		freeaddrinfo(cl->ai_list);
	json_decref(cl->hello);
	free(cl->server_error);
	free(cl->defer_msg);
	idmap_free(&cl->ids);
	free(cl->name);
	free(cl->addr);
	free(cl->auth_name);
	free(cl->hello_c);
	free(cl->host);
	SSL_CTX_free(cl->tls);
	if (cl->pending != NULL)
		evbuffer_free(cl->pending);
	seal_clear(&cl->tx);
	seal_clear(&cl->rx);
	OPENSSL_cleanse(cl->key, sizeof cl->key);
	OPENSSL_cleanse(cl->th, sizeof cl->th);
	free(cl);
}

void
mclient_free(struct mclient *cl)
{
	if (cl == NULL || cl->freed)
		return;
	mclient_enter(cl);
	mclient_fail(cl, -ECANCELED, "request cancelled: the client was "
	    "closed", 0);
	cl->freed = 1;
	mclient_leave(cl);
}

/* mclient_call()'s state, on its private base. */
struct mclient_call_state {
	struct event_base *base;
	int done;
	int rc;
	json_t *data;
	char *status;
};

static void
mclient_call_reply(void *arg, int rc, const char *status, json_t *data)
{
	struct mclient_call_state *st = arg;

	if (st->done)
		return;
	st->done = 1;
	st->rc = rc;
	st->status = xstrdup(status != NULL ? status : "");
	st->data = json_incref(data);
	event_base_loopbreak(st->base);
}

static void
mclient_call_error(void *arg, int err, const char *msg)
{
	mclient_call_reply(arg, err, msg, NULL);
}

static void
mclient_call_timeout(evutil_socket_t fd mapmon_unused,
    short events mapmon_unused, void *arg)
{
	mclient_call_reply(arg, -ETIMEDOUT, "no reply in time", NULL);
}

int
mclient_call(const char *addr, int timeout_ms, const json_t *cmd,
    json_t **data, char **status)
{
	struct mclient_call_state st;
	struct mclient *cl;
	struct event *timer = NULL;
	struct timeval tv;
	char *msg;

	memset(&st, 0, sizeof st);
	if (data != NULL)
		*data = NULL;
	if (status != NULL)
		*status = NULL;
	if ((st.base = event_base_new()) == NULL) {
		if (status != NULL)
			*status = xstrdup("libevent cannot make an event base");
		return -ENOMEM;
	}
	cl = mclient_new(st.base, addr, timeout_ms, NULL, mclient_call_error,
	    &st);
	if (mclient_request(cl, cmd, mclient_call_reply, &st) == -1) {
		st.done = 1;
		st.rc = -EINVAL;
		st.status = xstrdup("the command is not a JSON object");
	}
	if (!st.done && timeout_ms > 0) {
		timer = evtimer_new(st.base, mclient_call_timeout, &st);
		tv.tv_sec = timeout_ms / 1000;
		tv.tv_usec = (timeout_ms % 1000) * 1000;
		evtimer_add(timer, &tv);
	}
	while (!st.done) {
		if (event_base_dispatch(st.base) == -1) {
			st.done = 1;
			st.rc = -EIO;
			st.status = xstrdup("the event loop failed");
		}
	}
	if (st.rc == -ETIMEDOUT && strcmp(st.status, "no reply in time") ==
	    0) {
		xasprintf(&msg, "no reply from %s within %d ms", addr,
		    timeout_ms);
		free(st.status);
		st.status = msg;
	}
	mclient_free(cl);
	if (timer != NULL)
		event_free(timer);
	event_base_free(st.base);
	if (data != NULL)
		*data = st.data;
	else
		json_decref(st.data);
	if (status != NULL)
		*status = st.status;
	else
		free(st.status);
	return st.rc;
}
