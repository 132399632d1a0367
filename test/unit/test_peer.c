/*
 * test_peer.c: monitor-to-monitor connections (net/peer.h) and what a
 * monitor of another key, or an attacker on the wire, can do to them.
 *
 * A listener and connecting peers run on one event base, pumped by the
 * test; raw sockets do the handshake by hand with net/seal.h to replay,
 * flip and forge.  Asserted: the bytes that arrive, the errno and words
 * each side ends with, and that nothing refused or changed is delivered.
 */
#include "config.h"

#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <event2/event.h>
#include <jansson.h>

#include "common/b64.h"
#include "common/mapmon.h"
#include "net/frame.h"
#include "net/peer.h"
#include "net/seal.h"

static const uint8_t KEY_MON[SEAL_KEY_LEN] = { 0x6d, 0x6f, 0x6e, 1, 2, 3 };
static const uint8_t KEY_OTHER[SEAL_KEY_LEN] = { 0x6d, 0x6f, 0x6e, 1, 2, 4 };

#define FSID "6b1f8c5e-0000-4000-8000-000000000001"

/* One side's view: what arrived, how it ended. */
struct side {
	struct peer *p;
	uint8_t *got;
	size_t ngot;
	int ready;
	int ended;
	int err;
	char why[256];
};

struct lsn {
	struct event_base *base;
	struct peer_listener *l;
	uint16_t port;
	struct side acc; /* the accepted peer */
	int accepted;
	char theirs_mon[32];
};

static void
side_ready(void *arg, struct peer *p)
{
	struct side *s = arg;

	s->ready = 1;
	s->p = p;
}

static void
side_data(void *arg, const uint8_t *p, size_t len)
{
	struct side *s = arg;

	s->got = xrealloc(s->got, s->ngot + len);
	memcpy(s->got + s->ngot, p, len);
	s->ngot += len;
}

static void
side_closed(void *arg, int err, const char *why)
{
	struct side *s = arg;

	s->ended = 1;
	s->err = err;
	s->p = NULL;
	snprintf(s->why, sizeof s->why, "%s", why);
}

static const struct peer_ops side_ops = {
	.ready = side_ready,
	.data = side_data,
	.closed = side_closed,
};

static int
lsn_key(void *arg, const char *name, uint8_t key[SEAL_KEY_LEN])
{
	(void)arg;
	if (strcmp(name, PEER_ENTITY) != 0)
		return -1;
	memcpy(key, KEY_MON, SEAL_KEY_LEN);
	return 0;
}

static int
lsn_hello(void *arg, const json_t *theirs, json_t *reply, char **why)
{
	const char *fsid = json_string_value(json_object_get(theirs, "fsid"));

	(void)arg;
	if (fsid == NULL || strcmp(fsid, FSID) != 0) {
		xasprintf(why, "fsid %s is not this cluster's",
		    fsid != NULL ? fsid : "(none)");
		return -EINVAL;
	}
	json_object_set_new(reply, "mon", json_string("a"));
	return 0;
}

static void
lsn_accept(void *arg, struct peer *p, const json_t *theirs)
{
	struct lsn *ls = arg;

	ls->accepted++;
	ls->acc.p = p;
	ls->acc.ready = 1;
	snprintf(ls->theirs_mon, sizeof ls->theirs_mon, "%s",
	    json_string_value(json_object_get(theirs, "mon")));
	peer_set_ops(p, &side_ops, &ls->acc);
}

static const struct peer_listener_ops lsn_ops = {
	.key = lsn_key,
	.hello = lsn_hello,
	.accept = lsn_accept,
};

static struct lsn *
lsn_start(void)
{
	struct lsn *ls = xcalloc(1, sizeof *ls);
	char *cause = NULL;

	ls->base = event_base_new();
	ls->l = peer_listen(ls->base, "127.0.0.1", 0, 1000, &lsn_ops, ls,
	    &cause);
	cr_assert_not_null(ls->l, "%s", cause);
	ls->port = peer_listener_port(ls->l);
	cr_assert_neq(ls->port, 0);
	return ls;
}

static void
lsn_stop(struct lsn *ls)
{
	peer_close(ls->acc.p);
	peer_listener_free(ls->l);
	event_base_free(ls->base);
	free(ls->acc.got);
	free(ls);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run the loop until *flag or 5 s. */
static int
pump_until(struct lsn *ls, const int *flag)
{
	int64_t end = now_ms() + 5000;

	while (!*flag && now_ms() < end)
		event_base_loop(ls->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	return *flag;
}

static void
pump_ms(struct lsn *ls, int ms)
{
	int64_t end = now_ms() + ms;

	while (now_ms() < end)
		event_base_loop(ls->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
}

static json_t *
hello_of(const char *mon, const char *fsid)
{
	return json_pack("{s:s, s:i, s:s, s:s}", "mon", mon, "id", 2, "address",
	    "127.0.0.1:1", "fsid", fsid);
}

static struct peer *
connect_to(struct lsn *ls, const uint8_t *key, const char *fsid, struct side *s)
{
	json_t *h = hello_of("b", fsid);
	char *cause = NULL;
	struct peer *p;

	p = peer_connect(ls->base, "127.0.0.1", ls->port, key, h, 1000,
	    &side_ops, s, &cause);
	json_decref(h);
	cr_assert_not_null(p, "%s", cause);
	s->p = p;
	return p;
}

Test(peer, stream_both_ways)
{
	struct lsn *ls = lsn_start();
	struct side c = { 0 };
	size_t n = 3 * 1024 * 1024 + 17, i;
	uint8_t *big = xmalloc(n);
	int64_t end;

	for (i = 0; i < n; i++)
		big[i] = (uint8_t)(i * 7 + i / 251);
	connect_to(ls, KEY_MON, FSID, &c);
	cr_assert(pump_until(ls, &c.ready), "not ready: %s", c.why);
	cr_assert(pump_until(ls, &ls->accepted));
	cr_assert_str_eq(ls->theirs_mon, "b");
	cr_assert_not_null(strstr(peer_name(c.p), "(mon.a)"), "%s",
	    peer_name(c.p));
	cr_assert_geq(peer_send(c.p, big, n), 0);
	cr_assert_eq(peer_send(ls->acc.p, "pong", 4), 0);
	end = now_ms() + 10000;
	while ((ls->acc.ngot < n || c.ngot < 4) && !c.ended && !ls->acc.ended &&
	    now_ms() < end)
		event_base_loop(ls->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	cr_assert_eq(ls->acc.ngot, n);
	cr_assert_eq(memcmp(ls->acc.got, big, n), 0);
	cr_assert_eq(c.ngot, 4);
	cr_assert_eq(memcmp(c.got, "pong", 4), 0);
	/* Closing one side ends the other with ECONNRESET. */
	peer_close(c.p);
	cr_assert(pump_until(ls, &ls->acc.ended));
	cr_assert_eq(ls->acc.err, -ECONNRESET, "%d %s", ls->acc.err,
	    ls->acc.why);
	ls->acc.p = NULL;
	free(big);
	free(c.got);
	lsn_stop(ls);
}

Test(peer, another_key_is_refused)
{
	struct lsn *ls = lsn_start();
	struct side c = { 0 };

	connect_to(ls, KEY_OTHER, FSID, &c);
	cr_assert(pump_until(ls, &c.ended));
	cr_assert_eq(c.err, -EACCES, "%d %s", c.err, c.why);
	cr_assert_not_null(strstr(c.why,
			       "refused us: authentication as mon. "
			       "failed"),
	    "%s", c.why);
	cr_assert_eq(c.ready, 0);
	pump_ms(ls, 50);
	cr_assert_eq(ls->accepted, 0);
	lsn_stop(ls);
}

Test(peer, another_cluster_is_refused)
{
	struct lsn *ls = lsn_start();
	struct side c = { 0 };

	connect_to(ls, KEY_MON, "6b1f8c5e-0000-4000-8000-000000000002", &c);
	cr_assert(pump_until(ls, &c.ended));
	cr_assert_eq(c.err, -EINVAL, "%d %s", c.err, c.why);
	cr_assert_not_null(strstr(c.why, "is not this cluster's"), "%s", c.why);
	cr_assert_eq(ls->accepted, 0);
	lsn_stop(ls);
}

Test(peer, nothing_listens)
{
	struct lsn *ls = lsn_start();
	struct side c = { 0 };
	uint16_t port = ls->port;

	peer_listener_free(ls->l);
	ls->l = peer_listen(ls->base, "127.0.0.1", 0, 1000, &lsn_ops, ls, NULL);
	cr_assert_not_null(ls->l);
	ls->port = port; /* the old port: closed */
	connect_to(ls, KEY_MON, FSID, &c);
	cr_assert(pump_until(ls, &c.ended));
	cr_assert_eq(c.err, -ECONNREFUSED, "%d %s", c.err, c.why);
	lsn_stop(ls);
}

/* ---- by hand ---- */

static int
raw_connect(uint16_t port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	return fd;
}

static void
raw_send(int fd, const void *p, size_t len)
{
	cr_assert_eq(send(fd, p, len, MSG_NOSIGNAL), (ssize_t)len);
}

static void
raw_frame(int fd, uint8_t type, const void *p, size_t len, uint8_t *rec,
    size_t *nrec)
{
	uint8_t hdr[FRAME_HEADER_SIZE];

	frame_encode_header(hdr, type, (uint32_t)len, 1);
	raw_send(fd, hdr, sizeof hdr);
	raw_send(fd, p, len);
	if (rec != NULL) {
		memcpy(rec + *nrec, hdr, sizeof hdr);
		memcpy(rec + *nrec + sizeof hdr, p, len);
		*nrec += sizeof hdr + len;
	}
}

/*
 * Read one frame while pumping the loop: 1 with its header and payload
 * (*out, the caller frees), 0 when the connection closed first.
 */
static int
raw_read(struct lsn *ls, int fd, struct frame_header *h, uint8_t **out)
{
	uint8_t buf[70000];
	size_t have = 0, want = FRAME_HEADER_SIZE;
	int64_t end = now_ms() + 5000;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t r;

	while (have < want && now_ms() < end) {
		event_base_loop(ls->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		if (poll(&pfd, 1, 5) != 1)
			continue;
		if ((r = recv(fd, buf + have, want - have, 0)) <= 0)
			return 0;
		have += (size_t)r;
		if (have == FRAME_HEADER_SIZE && want == FRAME_HEADER_SIZE) {
			cr_assert_geq(
			    frame_decode_header(buf, have, sizeof buf, h, NULL),
			    0);
			want += h->len;
		}
	}
	cr_assert_eq(have, want, "timed out reading a frame");
	*out = xmalloc(h->len + 1);
	memcpy(*out, buf + FRAME_HEADER_SIZE, h->len);
	(*out)[h->len] = '\0';
	return 1;
}

/* The errno of a REPLY frame's payload. */
static int
reply_rc(const uint8_t *p)
{
	json_t *o = json_loads((const char *)p, 0, NULL);
	int rc = (int)json_integer_value(json_object_get(o, "rc"));

	json_decref(o);
	return rc;
}

struct raw {
	int fd;
	struct seal tx, rx;
	uint8_t rec[4096]; /* the HELLO and AUTH frames sent */
	size_t nrec;
};

/* The connecting side's handshake by hand; 0, or the REPLY's rc. */
static int
raw_handshake(struct lsn *ls, struct raw *r, const uint8_t *key)
{
	uint8_t nonce[SEAL_NONCE_LEN] = { 9, 9, 9 }, th[SEAL_HASH_LEN];
	uint8_t proof[SEAL_PROOF_LEN], c2s[SEAL_KEY_LEN], s2c[SEAL_KEY_LEN];
	struct frame_header h;
	json_t *o, *peer = hello_of("b", FSID);
	char *hello, *b64, *auth;
	uint8_t *p;
	size_t len;
	int rc;

	r->fd = raw_connect(ls->port);
	b64 = b64_encode(nonce, sizeof nonce);
	o = json_pack("{s:i, s:s, s:O, s:{s:s, s:[s]}}", "protocol", 1, "name",
	    "mon.", "peer", peer, "auth", "nonce", b64, "ciphers",
	    "aes-256-gcm");
	hello = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	json_decref(peer);
	free(b64);
	len = strlen(hello);
	raw_frame(r->fd, FRAME_HELLO, hello, len, r->rec, &r->nrec);
	cr_assert(raw_read(ls, r->fd, &h, &p));
	cr_assert_eq(h.type, FRAME_HELLO, "%u %s", h.type, p);
	seal_transcript(th, hello, len, p, h.len);
	free(p);
	free(hello);
	seal_proof(proof, key, 0, th);
	b64 = b64_encode(proof, sizeof proof);
	xasprintf(&auth, "{\"proof\":\"%s\"}", b64);
	free(b64);
	raw_frame(r->fd, FRAME_AUTH, auth, strlen(auth), r->rec, &r->nrec);
	free(auth);
	cr_assert(raw_read(ls, r->fd, &h, &p));
	if (h.type == FRAME_REPLY) {
		rc = reply_rc(p);
		free(p);
		return rc;
	}
	cr_assert_eq(h.type, FRAME_AUTH);
	free(p);
	seal_session_keys(key, th, c2s, s2c);
	cr_assert_eq(seal_init(&r->tx, SEAL_AES_256_GCM, c2s, 1), 0);
	cr_assert_eq(seal_init(&r->rx, SEAL_AES_256_GCM, s2c, 0), 0);
	return 0;
}

/* A sealed STREAM frame of p[0..len) into out (header, ciphertext, tag). */
static size_t
raw_sealed(struct raw *r, const void *p, size_t len, uint8_t *out)
{
	frame_encode_header(out, FRAME_STREAM, (uint32_t)(len + SEAL_TAG_LEN),
	    0);
	cr_assert_eq(seal_frame(&r->tx, out, p, len, out + FRAME_HEADER_SIZE),
	    0);
	return FRAME_HEADER_SIZE + len + SEAL_TAG_LEN;
}

Test(peer, flipped_bit_ends_the_link)
{
	struct lsn *ls = lsn_start();
	struct raw r = { 0 };
	uint8_t f[128];
	size_t n;

	cr_assert_eq(raw_handshake(ls, &r, KEY_MON), 0);
	cr_assert(pump_until(ls, &ls->accepted));
	n = raw_sealed(&r, "first", 5, f);
	raw_send(r.fd, f, n);
	n = raw_sealed(&r, "second", 6, f);
	f[FRAME_HEADER_SIZE + 2] ^= 0x01;
	raw_send(r.fd, f, n);
	cr_assert(pump_until(ls, &ls->acc.ended));
	cr_assert_eq(ls->acc.err, -EBADMSG, "%d %s", ls->acc.err, ls->acc.why);
	cr_assert_not_null(strstr(ls->acc.why, "sealed frame 1"), "%s",
	    ls->acc.why);
	/* The first arrived, nothing of the changed one. */
	cr_assert_eq(ls->acc.ngot, 5);
	cr_assert_eq(memcmp(ls->acc.got, "first", 5), 0);
	ls->acc.p = NULL;
	seal_clear(&r.tx);
	seal_clear(&r.rx);
	close(r.fd);
	lsn_stop(ls);
}

Test(peer, replayed_frame_ends_the_link)
{
	struct lsn *ls = lsn_start();
	struct raw r = { 0 };
	uint8_t f[128];
	size_t n;

	cr_assert_eq(raw_handshake(ls, &r, KEY_MON), 0);
	cr_assert(pump_until(ls, &ls->accepted));
	n = raw_sealed(&r, "once", 4, f);
	raw_send(r.fd, f, n);
	raw_send(r.fd, f, n);
	cr_assert(pump_until(ls, &ls->acc.ended));
	cr_assert_eq(ls->acc.err, -EBADMSG, "%d %s", ls->acc.err, ls->acc.why);
	cr_assert_eq(ls->acc.ngot, 4);
	ls->acc.p = NULL;
	seal_clear(&r.tx);
	seal_clear(&r.rx);
	close(r.fd);
	lsn_stop(ls);
}

Test(peer, replayed_handshake_is_refused)
{
	struct lsn *ls = lsn_start();
	struct raw r = { 0 };
	struct frame_header h;
	uint8_t *p;
	int fd;

	cr_assert_eq(raw_handshake(ls, &r, KEY_MON), 0);
	cr_assert(pump_until(ls, &ls->accepted));
	/* The same HELLO and AUTH bytes on a new connection. */
	fd = raw_connect(ls->port);
	raw_send(fd, r.rec, r.nrec);
	cr_assert(raw_read(ls, fd, &h, &p));
	cr_assert_eq(h.type, FRAME_HELLO);
	free(p);
	cr_assert(raw_read(ls, fd, &h, &p));
	cr_assert_eq(h.type, FRAME_REPLY);
	cr_assert_eq(reply_rc(p), -EACCES, "%s", p);
	cr_assert_not_null(strstr((char *)p, "authentication as mon. failed"),
	    "%s", p);
	free(p);
	cr_assert_eq(ls->accepted, 1);
	close(fd);
	seal_clear(&r.tx);
	seal_clear(&r.rx);
	close(r.fd);
	lsn_stop(ls);
}

Test(peer, plain_stream_is_refused)
{
	struct lsn *ls = lsn_start();
	struct frame_header h;
	uint8_t *p;
	int fd = raw_connect(ls->port);

	raw_frame(fd, FRAME_STREAM, "raft bytes", 10, NULL, NULL);
	cr_assert(raw_read(ls, fd, &h, &p));
	cr_assert_eq(h.type, FRAME_REPLY);
	cr_assert_eq(reply_rc(p), -EPROTO, "%s", p);
	free(p);
	cr_assert_eq(ls->accepted, 0);
	close(fd);
	lsn_stop(ls);
}

Test(peer, no_key_offered_is_refused)
{
	struct lsn *ls = lsn_start();
	struct frame_header h;
	uint8_t *p;
	int fd = raw_connect(ls->port);
	static const char hello[] = "{\"protocol\":1,\"name\":\"mon.\"}";

	raw_frame(fd, FRAME_HELLO, hello, sizeof hello - 1, NULL, NULL);
	cr_assert(raw_read(ls, fd, &h, &p));
	cr_assert_eq(h.type, FRAME_REPLY);
	cr_assert_eq(reply_rc(p), -EACCES, "%s", p);
	cr_assert_not_null(strstr((char *)p, "must offer the mon. key"), "%s",
	    p);
	free(p);
	close(fd);
	lsn_stop(ls);
}
