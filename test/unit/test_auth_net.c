/*
 * test_auth_net.c: the handshake and sealed frames between net/server.c
 * and net/client.c, and what an attacker on the wire can do to them.
 *
 * A server runs on its own thread and event base with two entities
 * (client.k and osd.3) and counts the requests it executes; the client
 * library and raw sockets (a handshake done by hand with net/seal.h) talk
 * to it.  What a user would notice is asserted: replies, refusals and
 * their words, delays, closed connections, and that nothing forged,
 * changed or replayed is ever executed.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <jansson.h>

#include "common/b64.h"
#include "common/enc.h"
#include "common/mapmon.h"
#include "net/client.h"
#include "net/frame.h"
#include "net/seal.h"
#include "net/server.h"

static const uint8_t KEY_K[SEAL_KEY_LEN] = { 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t KEY_3[SEAL_KEY_LEN] = { 0x33, 0x33, 0x33 };
static const uint8_t KEY_BAD[SEAL_KEY_LEN] = { 0x11, 0x22, 0x33, 0x44, 0x56 };

struct asrv {
	struct event_base *base;
	struct server *srv;
	pthread_t thread;
	uint16_t port;
	char addr[32];
	atomic_int executed; /* requests handed to the daemon side */
	/* A "hold" request, answered by a later "release" (server thread). */
	uint64_t held_conn, held_req;
};

static int
asrv_key(void *arg, const char *name, uint8_t *key)
{
	(void)arg;
	if (strcmp(name, "client.k") == 0)
		memcpy(key, KEY_K, SEAL_KEY_LEN);
	else if (strcmp(name, "osd.3") == 0)
		memcpy(key, KEY_3, SEAL_KEY_LEN);
	else
		return -1;
	return 0;
}

static void
asrv_request(void *arg, uint64_t conn, uint64_t req, json_t *cmd)
{
	struct asrv *as = arg;
	const char *prefix = json_string_value(json_object_get(cmd, "prefix"));
	const char *who = server_entity(as->srv, conn);
	size_t n;

	atomic_fetch_add(&as->executed, 1);
	if (prefix != NULL && strcmp(prefix, "close") == 0) {
		n = server_close_entity(as->srv,
		    json_string_value(json_object_get(cmd, "entity")));
		server_reply(as->srv, conn, req, 0, "closed",
		    json_pack("{s:I}", "closed", (json_int_t)n));
		return;
	}
	if (prefix != NULL && strcmp(prefix, "hold") == 0) {
		as->held_conn = conn;
		as->held_req = req;
		return;
	}
	if (prefix != NULL && strcmp(prefix, "release") == 0) {
		server_reply(as->srv, as->held_conn, as->held_req, 0,
		    "released", NULL);
		server_reply(as->srv, conn, req, 0, "ok", NULL);
		return;
	}
	if (prefix != NULL && strcmp(prefix, "big") == 0) {
		/* A reply larger than one read: sealed across reads. */
		char *text = xmalloc(300 * 1024 + 1);

		memset(text, 'x', 300 * 1024);
		text[300 * 1024] = '\0';
		server_reply(as->srv, conn, req, 0, "big",
		    json_pack("{s:s}", "x", text));
		free(text);
		return;
	}
	server_reply(as->srv, conn, req, 0, "ok",
	    json_pack("{s:s?, s:O}", "entity", who, "cmd", cmd));
}

static const struct server_ops asrv_ops = {
	.key = asrv_key,
	.request = asrv_request,
};

static void *
asrv_run(void *arg)
{
	struct asrv *as = arg;

	event_base_loop(as->base, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

static struct asrv *
asrv_start(int required, int delay_ms)
{
	struct server_limits lim = {
		.max_connections = 100,
		.max_frame = 1024 * 1024,
		.max_client_output = 16 * 1024 * 1024,
		.auth_required = required,
		.auth_fail_delay_ms = delay_ms,
		.auth_fail_delay_max_ms = 10000,
	};
	struct asrv *as = xcalloc(1, sizeof *as);
	char *cause = NULL;

	evthread_use_pthreads();
	as->base = event_base_new();
	as->srv = server_new(as->base, "127.0.0.1", 0, &lim, &asrv_ops, as,
	    &cause);
	cr_assert_not_null(as->srv, "%s", cause);
	as->port = server_port(as->srv);
	snprintf(as->addr, sizeof as->addr, "127.0.0.1:%u", as->port);
	cr_assert_eq(pthread_create(&as->thread, NULL, asrv_run, as), 0);
	return as;
}

static void
asrv_stop(struct asrv *as)
{
	event_base_loopbreak(as->base);
	pthread_join(as->thread, NULL);
	server_free(as->srv);
	event_base_free(as->base);
	free(as);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One command through the client library as name with key (NULL: none). */
static int
call_as(struct asrv *as, const char *name, const uint8_t *key,
    const char *cmdtext, json_t **data, char **status)
{
	char *cause = NULL, path[64];
	FILE *f;
	json_t *cmd = json_loads(cmdtext, 0, NULL);
	char *b64;
	int rc;

	cr_assert_not_null(cmd);
	if (key != NULL) {
		/* The defaults, from a keyring, as a tool would set them. */
		snprintf(path, sizeof path, "/tmp/test_auth_net.%d.keyring",
		    (int)getpid());
		f = fopen(path, "w");
		cr_assert_not_null(f);
		b64 = b64_encode(key, SEAL_KEY_LEN);
		fprintf(f, "[%s]\n\tkey = %s\n", name, b64);
		free(b64);
		fclose(f);
		cr_assert_eq(chmod(path, 0600), 0);
		cr_assert_eq(mclient_default_auth(name, path, &cause), 0, "%s",
		    cause);
		unlink(path);
	} else
		cr_assert_eq(mclient_default_auth(NULL, NULL, &cause), 0);
	rc = mclient_call(as->addr, 5000, cmd, data, status);
	json_decref(cmd);
	return rc;
}

/* ---- raw sockets ---- */

static int
raw_connect(uint16_t port)
{
	struct sockaddr_in sin;
	struct timeval tv = { 5, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	cr_assert(fd >= 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

static void
raw_write(int fd, const void *p, size_t len)
{
	const uint8_t *q = p;
	ssize_t w;

	while (len > 0) {
		w = send(fd, q, len, MSG_NOSIGNAL);
		cr_assert(w > 0, "send: %s", strerror(errno));
		q += w;
		len -= (size_t)w;
	}
}

/* Read exactly len bytes; 0, or -1 at EOF or a reset. */
static int
raw_read(int fd, void *p, size_t len)
{
	uint8_t *q = p;
	ssize_t r;

	while (len > 0) {
		r = recv(fd, q, len, 0);
		if (r <= 0)
			return -1;
		q += r;
		len -= (size_t)r;
	}
	return 0;
}

/* The next frame, its payload malloc'd in *p; -1 at EOF. */
static int
raw_frame(int fd, struct frame_header *h, uint8_t **p)
{
	uint8_t hdr[FRAME_HEADER_SIZE];
	char *cause = NULL;

	if (raw_read(fd, hdr, sizeof hdr) == -1)
		return -1;
	h->len = enc_get_be32(hdr);
	h->type = hdr[4];
	h->flags = hdr[5];
	h->id = enc_get_be64(hdr + 8);
	cr_assert_leq(h->len, 16 * 1024 * 1024);
	*p = xmalloc(FRAME_HEADER_SIZE + h->len + 1);
	memcpy(*p, hdr, sizeof hdr);
	if (raw_read(fd, *p + FRAME_HEADER_SIZE, h->len) == -1) {
		free(*p);
		return -1;
	}
	(*p)[FRAME_HEADER_SIZE + h->len] = '\0';
	free(cause);
	return 0;
}

/* EOF (or a reset) within 5 s, nothing else before it but what skip allows. */
static int
raw_eof(int fd)
{
	uint8_t b;

	return recv(fd, &b, 1, 0) <= 0;
}

/* A session done by hand: the socket, the keys, what was sent. */
struct raw_session {
	int fd;
	struct seal tx, rx;
	uint8_t sent[8192]; /* every byte the client sent, for a replay */
	size_t nsent;
};

static void
rs_send(struct raw_session *rs, const void *p, size_t len)
{
	cr_assert_leq(rs->nsent + len, sizeof rs->sent);
	memcpy(rs->sent + rs->nsent, p, len);
	rs->nsent += len;
	raw_write(rs->fd, p, len);
}

static void
rs_send_plain(struct raw_session *rs, uint8_t type, uint64_t id,
    const char *text)
{
	uint8_t buf[1024];
	size_t n = strlen(text);

	frame_encode_header(buf, type, (uint32_t)n, id);
	memcpy(buf + FRAME_HEADER_SIZE, text, n);
	rs_send(rs, buf, FRAME_HEADER_SIZE + n);
}

/* A sealed REQUEST of text; its bytes in out (for replays), its size. */
static size_t
rs_seal(struct raw_session *rs, uint64_t id, const char *text, uint8_t *out)
{
	size_t n = strlen(text);

	frame_encode_header(out, FRAME_REQUEST, (uint32_t)(n + SEAL_TAG_LEN),
	    id);
	cr_assert_eq(seal_frame(&rs->tx, out, (const uint8_t *)text, n,
			 out + FRAME_HEADER_SIZE),
	    0);
	return FRAME_HEADER_SIZE + n + SEAL_TAG_LEN;
}

/* The next sealed REPLY, opened: its rc, and its JSON in *reply. */
static int
rs_reply(struct raw_session *rs, uint64_t id, json_t **reply)
{
	struct frame_header h;
	uint8_t *p;
	char *cause = NULL;
	json_t *o;
	int rc;

	cr_assert_eq(raw_frame(rs->fd, &h, &p), 0, "no reply");
	cr_assert_eq(h.type, FRAME_REPLY);
	cr_assert_eq(h.id, id);
	cr_assert_eq(
	    seal_open(&rs->rx, p, p + FRAME_HEADER_SIZE, h.len, &cause), 0,
	    "%s", cause);
	o = json_loadb((char *)p + FRAME_HEADER_SIZE, h.len - SEAL_TAG_LEN, 0,
	    NULL);
	free(p);
	cr_assert_not_null(o);
	rc = (int)json_integer_value(json_object_get(o, "rc"));
	if (reply != NULL)
		*reply = o;
	else
		json_decref(o);
	return rc;
}

/*
 * The handshake by hand, as name with key, offering ciphers.  0 when it
 * succeeds (the session is sealed), or the rc of the server's refusal.
 */
static int
rs_handshake(struct raw_session *rs, uint16_t port, const char *name,
    const uint8_t *key, const char *ciphers)
{
	uint8_t nonce[SEAL_NONCE_LEN], th[SEAL_HASH_LEN], pr[SEAL_PROOF_LEN];
	uint8_t c2s[SEAL_KEY_LEN], s2c[SEAL_KEY_LEN], want[SEAL_PROOF_LEN];
	enum seal_cipher cipher;
	struct frame_header h;
	json_t *o;
	uint8_t *p;
	char hello[512], *b64, text[128], *cause = NULL;
	int rc;

	memset(rs, 0, sizeof *rs);
	rs->fd = raw_connect(port);
	cr_assert_eq(seal_random(nonce, sizeof nonce), 0);
	b64 = b64_encode(nonce, sizeof nonce);
	snprintf(hello, sizeof hello,
	    "{\"protocol\":1,\"name\":\"%s\","
	    "\"auth\":{\"nonce\":\"%s\",\"ciphers\":%s}}",
	    name, b64, ciphers);
	free(b64);
	rs_send_plain(rs, FRAME_HELLO, 1, hello);
	cr_assert_eq(raw_frame(rs->fd, &h, &p), 0);
	if (h.type == FRAME_REPLY) {
		o = json_loadb((char *)p + FRAME_HEADER_SIZE, h.len, 0, NULL);
		rc = (int)json_integer_value(json_object_get(o, "rc"));
		json_decref(o);
		free(p);
		return rc;
	}
	cr_assert_eq(h.type, FRAME_HELLO);
	seal_transcript(th, hello, strlen(hello), p + FRAME_HEADER_SIZE, h.len);
	o = json_loadb((char *)p + FRAME_HEADER_SIZE, h.len, 0, NULL);
	free(p);
	cr_assert_eq(
	    seal_cipher_find(json_string_value(json_object_get(
				 json_object_get(o, "auth"), "cipher")),
		&cipher),
	    0);
	json_decref(o);
	seal_proof(pr, key, 0, th);
	b64 = b64_encode(pr, sizeof pr);
	snprintf(text, sizeof text, "{\"proof\":\"%s\"}", b64);
	free(b64);
	rs_send_plain(rs, FRAME_AUTH, 2, text);
	cr_assert_eq(raw_frame(rs->fd, &h, &p), 0, "no answer to AUTH");
	if (h.type == FRAME_REPLY) {
		o = json_loadb((char *)p + FRAME_HEADER_SIZE, h.len, 0, NULL);
		rc = (int)json_integer_value(json_object_get(o, "rc"));
		cr_expect_str_eq(
		    json_string_value(json_object_get(o, "status")),
		    "authentication failed");
		json_decref(o);
		free(p);
		return rc;
	}
	cr_assert_eq(h.type, FRAME_AUTH);
	o = json_loadb((char *)p + FRAME_HEADER_SIZE, h.len, 0, NULL);
	free(p);
	cr_assert_eq(
	    b64_decode_exact(json_string_value(json_object_get(o, "proof")), pr,
		sizeof pr, &cause),
	    0);
	json_decref(o);
	seal_proof(want, key, 1, th);
	cr_assert(seal_proof_equal(want, pr), "the server's proof is wrong");
	seal_session_keys(key, th, c2s, s2c);
	cr_assert_eq(seal_init(&rs->tx, cipher, c2s, 1), 0);
	cr_assert_eq(seal_init(&rs->rx, cipher, s2c, 0), 0);
	return 0;
}

static void
rs_close(struct raw_session *rs)
{
	close(rs->fd);
	seal_clear(&rs->tx);
	seal_clear(&rs->rx);
}

#define ACIPHERS "[\"aes-256-gcm\",\"chacha20-poly1305\"]"

/* ---- the tests ---- */

Test(auth_net, a_client_with_a_key_is_served_sealed, .timeout = 30)
{
	struct asrv *as = asrv_start(1, 0);
	json_t *data = NULL;
	char *status = NULL;
	int rc;

	rc = call_as(as, "client.k", KEY_K, "{\"prefix\":\"echo\",\"n\":1}",
	    &data, &status);
	cr_assert_eq(rc, 0, "%s", status);
	cr_expect_str_eq(json_string_value(json_object_get(data, "entity")),
	    "client.k");
	json_decref(data);
	free(status);
	/* A reply larger than a read, sealed whole. */
	rc = call_as(as, "osd.3", KEY_3, "{\"prefix\":\"big\"}", &data,
	    &status);
	cr_assert_eq(rc, 0, "%s", status);
	cr_expect_eq(strlen(json_string_value(json_object_get(data, "x"))),
	    300 * 1024);
	json_decref(data);
	free(status);
	mclient_default_auth(NULL, NULL, NULL);
	asrv_stop(as);
}

Test(auth_net, either_cipher_and_pipelined_requests, .timeout = 30)
{
	struct asrv *as = asrv_start(1, 0);
	struct raw_session rs;
	uint8_t f[256];
	json_t *r;
	int i;

	/* The server takes the client's first choice it has. */
	cr_assert_eq(rs_handshake(&rs, as->port, "client.k", KEY_K,
			 "[\"rot13\",\"chacha20-poly1305\"]"),
	    0);
	cr_expect_eq(rs.tx.cipher, SEAL_CHACHA20_POLY1305);
	for (i = 0; i < 3; i++)
		rs_send(&rs, f,
		    rs_seal(&rs, 10 + (uint64_t)i, "{\"prefix\":\"echo\"}", f));
	for (i = 0; i < 3; i++) {
		cr_expect_eq(rs_reply(&rs, 10 + (uint64_t)i, &r), 0);
		json_decref(r);
	}
	rs_close(&rs);
	cr_expect_eq(atomic_load(&as->executed), 3);
	asrv_stop(as);
}

Test(auth_net, a_wrong_key_and_an_unknown_name_look_the_same, .timeout = 30)
{
	struct asrv *as = asrv_start(1, 0);
	char *s1 = NULL, *s2 = NULL;
	int rc1, rc2;

	rc1 = call_as(as, "client.k", KEY_BAD, "{\"prefix\":\"echo\"}", NULL,
	    &s1);
	rc2 = call_as(as, "client.nobody", KEY_BAD, "{\"prefix\":\"echo\"}",
	    NULL, &s2);
	cr_expect_eq(rc1, -EACCES);
	cr_expect_eq(rc2, -EACCES);
	cr_expect(strstr(s1,
		      "refused authentication as client.k: "
		      "authentication failed") != NULL,
	    "%s", s1);
	cr_expect(strstr(s2,
		      "refused authentication as client.nobody: "
		      "authentication failed") != NULL,
	    "%s", s2);
	cr_expect_eq(atomic_load(&as->executed), 0);
	free(s1);
	free(s2);
	mclient_default_auth(NULL, NULL, NULL);
	asrv_stop(as);
}

Test(auth_net, failures_delay_the_next_attempts_from_the_address, .timeout = 30)
{
	struct asrv *as = asrv_start(1, 300);
	struct raw_session rs;
	double t0, t1, t2;

	/* The first failure is answered at once. */
	t0 = now_s();
	cr_assert_eq(rs_handshake(&rs, as->port, "client.k", KEY_BAD, ACIPHERS),
	    -EACCES);
	rs_close(&rs);
	t1 = now_s();
	cr_expect_lt(t1 - t0, 0.25, "%.3f s", t1 - t0);
	/* The next, even with the right key, waits 300 ms; then 600. */
	cr_assert_eq(rs_handshake(&rs, as->port, "client.k", KEY_BAD, ACIPHERS),
	    -EACCES);
	rs_close(&rs);
	t2 = now_s();
	cr_expect_geq(t2 - t1, 0.29, "second attempt after %.3f s", t2 - t1);
	cr_assert_eq(rs_handshake(&rs, as->port, "client.k", KEY_K, ACIPHERS),
	    0);
	rs_close(&rs);
	t0 = now_s();
	cr_expect_geq(t0 - t2, 0.59, "third attempt after %.3f s", t0 - t2);
	/* A success forgets the address. */
	cr_assert_eq(rs_handshake(&rs, as->port, "client.k", KEY_K, ACIPHERS),
	    0);
	rs_close(&rs);
	cr_expect_lt(now_s() - t0, 0.25);
	asrv_stop(as);
}

Test(auth_net, without_a_key_nothing_but_the_hello_is_answered, .timeout = 30)
{
	struct asrv *as = asrv_start(1, 0);
	struct raw_session rs;
	struct frame_header h;
	uint8_t *p;
	json_t *o;
	char *status = NULL;

	memset(&rs, 0, sizeof rs);
	rs.fd = raw_connect(as->port);
	rs_send_plain(&rs, FRAME_HELLO, 1, "{\"protocol\":1,\"name\":\"x\"}");
	rs_send_plain(&rs, FRAME_REQUEST, 2, "{\"prefix\":\"echo\"}");
	cr_assert_eq(raw_frame(rs.fd, &h, &p), 0);
	cr_expect_eq(h.type, FRAME_REPLY);
	cr_expect_eq(h.id, 1);
	o = json_loadb((char *)p + FRAME_HEADER_SIZE, h.len, 0, NULL);
	free(p);
	cr_expect_eq(json_integer_value(json_object_get(o, "rc")), -EACCES);
	cr_expect(strstr(json_string_value(json_object_get(o, "status")),
		      "authentication required") != NULL);
	json_decref(o);
	cr_expect(raw_eof(rs.fd), "the connection closes");
	close(rs.fd);
	cr_expect_eq(
	    call_as(as, NULL, NULL, "{\"prefix\":\"echo\"}", NULL, &status),
	    -EACCES);
	cr_expect(strstr(status, "authentication required") != NULL, "%s",
	    status);
	free(status);
	cr_expect_eq(atomic_load(&as->executed), 0);
	asrv_stop(as);

	/* Not required: served, as no entity. */
	as = asrv_start(0, 0);
	o = NULL;
	cr_assert_eq(
	    call_as(as, NULL, NULL, "{\"prefix\":\"echo\"}", &o, &status), 0,
	    "%s", status);
	cr_expect(json_is_null(json_object_get(o, "entity")) ||
	    json_object_get(o, "entity") == NULL);
	json_decref(o);
	free(status);
	asrv_stop(as);
}

Test(auth_net, a_changed_or_replayed_frame_closes_and_changes_nothing,
    .timeout = 30)
{
	struct asrv *as = asrv_start(1, 0);
	struct raw_session rs;
	uint8_t f[256], g[256];
	size_t n;
	json_t *r;
	/* A bit of the type, of the id, of the ciphertext, of the tag. */
	static const struct {
		int byte, bit;
		uint64_t id; /* of the answer: the frame's, as changed */
	} flips[] = { { 4, 0, 5 }, { 15, 0, 4 }, { 19, 3, 5 }, { -1, 7, 5 } };
	size_t i;

	for (i = 0; i < nitems(flips); i++) {
		cr_assert_eq(
		    rs_handshake(&rs, as->port, "client.k", KEY_K, ACIPHERS),
		    0);
		n = rs_seal(&rs, 5, "{\"prefix\":\"echo\"}", f);
		f[flips[i].byte < 0 ? n - 1 : (size_t)flips[i].byte] ^=
		    (uint8_t)(1 << flips[i].bit);
		rs_send(&rs, f, n);
		/* The server says so, sealed (its direction is intact). */
		cr_expect_eq(rs_reply(&rs, flips[i].id, &r), -EBADMSG,
		    "flip %zu", i);
		json_decref(r);
		cr_expect(raw_eof(rs.fd), "closed after a changed frame");
		rs_close(&rs);
	}
	cr_expect_eq(atomic_load(&as->executed), 0);

	/* A frame replayed within the live connection. */
	cr_assert_eq(rs_handshake(&rs, as->port, "client.k", KEY_K, ACIPHERS),
	    0);
	n = rs_seal(&rs, 6, "{\"prefix\":\"echo\"}", f);
	memcpy(g, f, n);
	rs_send(&rs, f, n);
	cr_expect_eq(rs_reply(&rs, 6, &r), 0);
	json_decref(r);
	rs_send(&rs, g, n);
	cr_expect_eq(rs_reply(&rs, 6, &r), -EBADMSG);
	json_decref(r);
	cr_expect(raw_eof(rs.fd));
	cr_expect_eq(atomic_load(&as->executed), 1, "executed once only");
	rs_close(&rs);
	asrv_stop(as);
}

Test(auth_net, a_recorded_connection_replayed_changes_nothing, .timeout = 30)
{
	struct asrv *as = asrv_start(1, 0);
	struct raw_session rs;
	struct frame_header h;
	uint8_t f[256], *p;
	json_t *r, *o;
	int fd, replies = 0, auths = 0, hellos = 0;

	cr_assert_eq(rs_handshake(&rs, as->port, "client.k", KEY_K, ACIPHERS),
	    0);
	rs_send(&rs, f, rs_seal(&rs, 9, "{\"prefix\":\"echo\"}", f));
	cr_expect_eq(rs_reply(&rs, 9, &r), 0);
	json_decref(r);
	rs_close(&rs);
	cr_expect_eq(atomic_load(&as->executed), 1);

	/* The same bytes, at once, on a new connection. */
	fd = raw_connect(as->port);
	raw_write(fd, rs.sent, rs.nsent);
	while (raw_frame(fd, &h, &p) == 0) {
		if (h.type == FRAME_HELLO)
			hellos++;
		else if (h.type == FRAME_AUTH)
			auths++;
		else if (h.type == FRAME_REPLY) {
			replies++;
			o = json_loadb((char *)p + FRAME_HEADER_SIZE, h.len, 0,
			    NULL);
			cr_expect_eq(
			    json_integer_value(json_object_get(o, "rc")),
			    -EACCES);
			json_decref(o);
		}
		free(p);
	}
	close(fd);
	cr_expect_eq(hellos, 1);
	cr_expect_eq(auths, 0, "the replayed proof is refused");
	cr_expect_eq(replies, 1);
	cr_expect_eq(atomic_load(&as->executed), 1, "nothing more executed");
	asrv_stop(as);
}

Test(auth_net, sessions_of_an_entity_are_closed_on_demand, .timeout = 30)
{
	struct asrv *as = asrv_start(1, 0);
	struct raw_session a, b, c;
	uint8_t f[256];
	json_t *r;

	cr_assert_eq(rs_handshake(&a, as->port, "osd.3", KEY_3, ACIPHERS), 0);
	cr_assert_eq(rs_handshake(&b, as->port, "osd.3", KEY_3, ACIPHERS), 0);
	cr_assert_eq(rs_handshake(&c, as->port, "client.k", KEY_K, ACIPHERS),
	    0);
	rs_send(&c, f,
	    rs_seal(&c, 1,
		"{\"prefix\":\"close\",\"entity\":"
		"\"osd.3\"}",
		f));
	cr_expect_eq(rs_reply(&c, 1, &r), 0);
	cr_expect_eq(json_integer_value(
			 json_object_get(json_object_get(r, "data"), "closed")),
	    2);
	json_decref(r);
	cr_expect(raw_eof(a.fd));
	cr_expect(raw_eof(b.fd));
	/* The others carry on. */
	rs_send(&c, f, rs_seal(&c, 2, "{\"prefix\":\"echo\"}", f));
	cr_expect_eq(rs_reply(&c, 2, &r), 0);
	json_decref(r);
	rs_close(&a);
	rs_close(&b);
	rs_close(&c);
	asrv_stop(as);
}

/*
 * A session whose entity's key ends with a request in flight (a follower
 * answers a forwarded write once it has applied it: the rotation of the
 * entity's own key among them) gets that answer, then is closed; nothing
 * it sends meanwhile is executed.
 */
Test(auth_net, a_closed_session_gets_the_answers_in_flight_first, .timeout = 30)
{
	struct asrv *as = asrv_start(1, 0);
	struct raw_session a, c;
	uint8_t f[256];
	json_t *r;

	cr_assert_eq(rs_handshake(&a, as->port, "osd.3", KEY_3, ACIPHERS), 0);
	cr_assert_eq(rs_handshake(&c, as->port, "client.k", KEY_K, ACIPHERS),
	    0);
	rs_send(&a, f, rs_seal(&a, 1, "{\"prefix\":\"hold\"}", f));
	/* Its "hold" reaches the server before the key ends. */
	while (atomic_load(&as->executed) < 1)
		usleep(1000);
	rs_send(&c, f,
	    rs_seal(&c, 1, "{\"prefix\":\"close\",\"entity\":\"osd.3\"}", f));
	cr_expect_eq(rs_reply(&c, 1, &r), 0);
	cr_expect_eq(json_integer_value(
			 json_object_get(json_object_get(r, "data"), "closed")),
	    1);
	json_decref(r);
	/* Sent after its key ended: never executed. */
	rs_send(&a, f, rs_seal(&a, 2, "{\"prefix\":\"echo\"}", f));
	usleep(100000);
	cr_expect_eq(atomic_load(&as->executed), 2, "hold and close only");
	rs_send(&c, f, rs_seal(&c, 2, "{\"prefix\":\"release\"}", f));
	cr_expect_eq(rs_reply(&c, 2, NULL), 0);
	cr_expect_eq(rs_reply(&a, 1, &r), 0, "the answer in flight arrives");
	cr_expect_str_eq(json_string_value(json_object_get(r, "status")),
	    "released");
	json_decref(r);
	cr_expect(raw_eof(a.fd), "then the session is closed");
	cr_expect_eq(atomic_load(&as->executed), 3, "its echo never ran");
	rs_close(&a);
	rs_close(&c);
	asrv_stop(as);
}

/* A server that does not hold the key: it answers with a made-up proof. */
struct fake {
	int lfd;
	uint16_t port;
	pthread_t thread;
};

static void *
fake_run(void *arg)
{
	struct fake *fk = arg;
	struct frame_header h;
	uint8_t *p, buf[512];
	const char *hello =
	    "{\"protocol\":1,\"auth\":{\"nonce\":"
	    "\"UFFSU1RVVldYWVpbXF1eX2BhYmNkZWZnaGlqa2xtbm8=\",\"cipher\":"
	    "\"aes-256-gcm\"}}";
	const char *auth = "{\"proof\":\"zL9zgX0nJGEhgbR4Nzq/9BFNNBN9lPo8betsD+"
			   "vrcok=\"}";
	int fd = accept(fk->lfd, NULL, NULL);

	if (fd < 0 || raw_frame(fd, &h, &p) == -1)
		return NULL;
	free(p);
	frame_encode_header(buf, FRAME_HELLO, (uint32_t)strlen(hello), h.id);
	memcpy(buf + FRAME_HEADER_SIZE, hello, strlen(hello));
	send(fd, buf, FRAME_HEADER_SIZE + strlen(hello), MSG_NOSIGNAL);
	if (raw_frame(fd, &h, &p) == 0) {
		free(p);
		frame_encode_header(buf, FRAME_AUTH, (uint32_t)strlen(auth),
		    h.id);
		memcpy(buf + FRAME_HEADER_SIZE, auth, strlen(auth));
		send(fd, buf, FRAME_HEADER_SIZE + strlen(auth), MSG_NOSIGNAL);
	}
	/* Hold the connection until the client gives up. */
	while (recv(fd, buf, sizeof buf, 0) > 0)
		;
	close(fd);
	return NULL;
}

Test(auth_net, a_server_without_the_key_is_not_believed, .timeout = 30)
{
	struct fake fk;
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	char addr[32], *status = NULL, *cause = NULL, path[64], *b64;
	json_t *cmd = json_pack("{s:s}", "prefix", "echo");
	FILE *f;
	int rc;

	fk.lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fk.lfd, (struct sockaddr *)&sin, sizeof sin), 0);
	cr_assert_eq(listen(fk.lfd, 4), 0);
	getsockname(fk.lfd, (struct sockaddr *)&sin, &len);
	fk.port = ntohs(sin.sin_port);
	cr_assert_eq(pthread_create(&fk.thread, NULL, fake_run, &fk), 0);
	snprintf(addr, sizeof addr, "127.0.0.1:%u", fk.port);
	snprintf(path, sizeof path, "/tmp/test_auth_net.%d.fake",
	    (int)getpid());
	f = fopen(path, "w");
	b64 = b64_encode(KEY_K, SEAL_KEY_LEN);
	fprintf(f, "[client.k]\nkey = %s\n", b64);
	free(b64);
	fclose(f);
	chmod(path, 0600);
	cr_assert_eq(mclient_default_auth("client.k", path, &cause), 0, "%s",
	    cause);
	unlink(path);
	rc = mclient_call(addr, 5000, cmd, NULL, &status);
	cr_expect_eq(rc, -EACCES, "%d %s", rc, status);
	cr_expect(strstr(status, "does not hold the key of client.k") != NULL,
	    "%s", status);
	free(status);
	json_decref(cmd);
	mclient_default_auth(NULL, NULL, NULL);
	pthread_join(fk.thread, NULL);
	close(fk.lfd);
}
