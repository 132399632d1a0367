/*
 * test_net.c: the server and the client over real TCP on 127.0.0.1.
 *
 * Each test starts a server on port 0 in its own thread and event base,
 * with a small test dispatcher standing in for the monitor:
 *
 *	echo		reply {rc 0, data: the command}
 *	fail		reply -ENOENT "no such thing"
 *	hold		keep the request (its "i") unanswered
 *	release		answer every held request, newest first, then itself
 *	subscribe	reply, then push {"seq": 1..3}
 *	flood		push "count" messages of "size" bytes, a few per ms
 *	pace		push "count" messages of "size" bytes, each once the
 *			last has drained (server_notify_drained)
 *	waitdrain	answer once the connection's output is empty
 *	stats		reply with the server's counters and the dispatcher's
 *	stop		server_stop_accepting()
 *
 * Clients are raw sockets (to send what a real client never would) and the
 * client library (blocking mclient_call and the asynchronous API).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
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

#include "common/enc.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "net/client.h"
#include "net/frame.h"
#include "net/hunt.h"
#include "net/server.h"

/* Every case is bounded; the EMFILE one waits out accept pauses. */
TestSuite(net, .timeout = 90);
TestSuite(client, .timeout = 90);

/* ---------------------------------------------------------------- server */

#define MAX_HELD 256

struct held {
	uint64_t conn, req;
	json_t *i;
};

struct flood {
	uint64_t conn, sub;
	int left;
	char *text;
	size_t len;
	struct event *ev;
	struct tsrv *ts;
};

struct pace {
	uint64_t conn, sub;
	int left, seq;
	size_t size;
	struct tsrv *ts;
};
#define MAX_PACE 4

struct tsrv {
	pthread_t thread;
	struct event_base *base;
	struct server *srv;
	uint16_t port;
	char addr[32];

	/* Touched only on the server thread, except these atomics. */
	struct held held[MAX_HELD];
	size_t nheld;
	struct flood *flood;
	struct pace *pace[MAX_PACE];
	int npace;
	int in_notify;	       /* inside server_notify_drained() */
	uint64_t wait_req;     /* the waitdrain request */
	atomic_int pace_sent;  /* paced pushes queued */
	atomic_int pace_cut;   /* a paced push answered -1 */
	atomic_long pace_max_pending; /* output queued before a paced push */
	atomic_int drain_sync; /* a drained callback inside the call */
	atomic_int closed;     /* closed() callbacks */
	atomic_int reply_gone; /* server_reply() answered -1 */
	atomic_int flood_cut;  /* a flood push answered -1 */
	atomic_int stream_done;		/* streams' done callbacks */
	atomic_int stream_rc;		/* the rc of the last */
	atomic_int stream_live;		/* streams begun and not done */
	atomic_long stream_max_pending; /* output queued before a piece */
	int bin_spin_us; /* each binary request takes this long */
	int bin_handled; /* binary requests handled */
};

/*
 * A reply in pieces: a JSON array of count strings of size 'x's, a string
 * a piece; a held one writes nothing, ever (it ends with its connection).
 */
struct tstream {
	struct tsrv *ts;
	int count, done;
	size_t size;
	int hold;
};

static int
tstream_fill(void *arg, struct enc_buf *out, char **status)
{
	struct tstream *t = arg;
	struct tsrv *ts = t->ts;
	size_t pending = server_output_pending(ts->srv);
	long max = atomic_load(&ts->stream_max_pending);

	if (t->done > 0 && (long)pending > max)
		atomic_store(&ts->stream_max_pending, (long)pending);
	if (t->hold)
		return 0;
	enc_buf_put_u8(out, t->done == 0 ? '[' : ',');
	enc_buf_put_u8(out, '"');
	memset(enc_buf_reserve(out, t->size), 'x', t->size);
	out->len += t->size;
	enc_buf_put_u8(out, '"');
	if (++t->done < t->count)
		return 0;
	enc_buf_put_u8(out, ']');
	xasprintf(status, "streamed %d", t->count);
	return 1;
}

static void
tstream_done(void *arg, int rc)
{
	struct tstream *t = arg;

	atomic_store(&t->ts->stream_rc, rc);
	atomic_fetch_add(&t->ts->stream_done, 1);
	atomic_fetch_sub(&t->ts->stream_live, 1);
	free(t);
}

static const struct server_stream_ops tstream_ops = {
	.fill = tstream_fill,
	.done = tstream_done,
};

static const struct server_limits default_limits = {
	.max_connections = 2000,
	.max_frame = 64 * 1024,
	.idle_timeout_ms = 0,
	.max_client_output = 4 * 1024 * 1024,
};

static void
tsrv_hello(void *arg mapmon_unused, json_t **obj)
{
	json_object_set_new(*obj, "mon", json_string("a"));
	json_object_set_new(*obj, "fsid",
	    json_string("6b1f8c5e-0000-4000-8000-000000000001"));
}

static void
tsrv_reply(struct tsrv *ts, uint64_t conn, uint64_t req, int rc,
    const char *status, json_t *data)
{
	if (server_reply(ts->srv, conn, req, rc, status, data) == -1)
		atomic_fetch_add(&ts->reply_gone, 1);
}

static void
tsrv_flood_cb(evutil_socket_t fd mapmon_unused, short ev mapmon_unused,
    void *arg)
{
	struct flood *f = arg;
	struct timeval tv = {0, 1000};
	int i;

	for (i = 0; i < 16 && f->left > 0; i++, f->left--) {
		if (server_push_raw(f->ts->srv, f->conn, f->sub, f->text,
		    f->len) == -1) {
			atomic_fetch_add(&f->ts->flood_cut, 1);
			f->left = 0;
			return;
		}
	}
	if (f->left > 0)
		evtimer_add(f->ev, &tv);
}

static void tsrv_pace_cb(void *, uint64_t);

/* The next paced push of the connection, then wait for it to drain. */
static void
tsrv_pace_next(struct pace *p)
{
	struct tsrv *ts = p->ts;
	char *text;
	size_t pending, len;
	long max;

	if (ts->in_notify)
		atomic_fetch_add(&ts->drain_sync, 1);
	pending = server_output_pending(ts->srv);
	max = atomic_load(&ts->pace_max_pending);
	if ((long)pending > max)
		atomic_store(&ts->pace_max_pending, (long)pending);
	text = xmalloc(p->size + 32);
	len = (size_t)snprintf(text, 32, "{\"seq\":%d,\"x\":\"", ++p->seq);
	memset(text + len, 'x', p->size);
	len += p->size;
	text[len++] = '"';
	text[len++] = '}';
	if (server_push_raw(ts->srv, p->conn, p->sub, text, len) == -1) {
		atomic_fetch_add(&ts->pace_cut, 1);
		p->left = 0;
	} else {
		atomic_fetch_add(&ts->pace_sent, 1);
		p->left--;
	}
	free(text);
	if (p->left > 0) {
		ts->in_notify = 1;
		cr_assert_eq(server_notify_drained(ts->srv, p->conn,
		    tsrv_pace_cb, p), 0);
		ts->in_notify = 0;
	}
}

static void
tsrv_pace_cb(void *arg, uint64_t conn)
{
	struct pace *p = arg;

	cr_assert_eq(conn, p->conn);
	tsrv_pace_next(p);
}

static void
tsrv_waitdrain_cb(void *arg, uint64_t conn)
{
	struct tsrv *ts = arg;

	if (ts->in_notify)
		atomic_fetch_add(&ts->drain_sync, 1);
	tsrv_reply(ts, conn, ts->wait_req, 0, "drained", NULL);
}

static void
tsrv_request(void *arg, uint64_t conn, uint64_t req, json_t *cmd)
{
	struct tsrv *ts = arg;
	const char *prefix;
	struct server_stats st;
	struct flood *f;
	struct timeval tv = {0, 1000};
	size_t i, size;
	int n;

	prefix = json_string_value(json_object_get(cmd, "prefix"));
	if (prefix == NULL) {
		tsrv_reply(ts, conn, req, -EINVAL, "no prefix", NULL);
	} else if (strcmp(prefix, "echo") == 0) {
		tsrv_reply(ts, conn, req, 0, "ok", json_incref(cmd));
	} else if (strcmp(prefix, "fail") == 0) {
		tsrv_reply(ts, conn, req, -ENOENT, "no such thing", NULL);
	} else if (strcmp(prefix, "binspin") == 0) {
		ts->bin_spin_us = (int)json_integer_value(
		    json_object_get(cmd, "us"));
		tsrv_reply(ts, conn, req, 0, "ok",
		    json_pack("{s:i}", "handled", ts->bin_handled));
	} else if (strcmp(prefix, "holdbin") == 0) {
		server_hold_binary(ts->srv,
		    json_is_true(json_object_get(cmd, "on")));
		tsrv_reply(ts, conn, req, 0, "ok", NULL);
	} else if (strcmp(prefix, "hold") == 0 && ts->nheld < MAX_HELD) {
		ts->held[ts->nheld].conn = conn;
		ts->held[ts->nheld].req = req;
		ts->held[ts->nheld].i = json_incref(json_object_get(cmd, "i"));
		ts->nheld++;
	} else if (strcmp(prefix, "release") == 0) {
		while (ts->nheld > 0) {
			struct held *h = &ts->held[--ts->nheld];

			tsrv_reply(ts, h->conn, h->req, 0, "released",
			    json_pack("{s:o}", "i", h->i));
		}
		tsrv_reply(ts, conn, req, 0, "ok", NULL);
	} else if (strcmp(prefix, "subscribe") == 0) {
		server_set_subscriber(ts->srv, conn, 1);
		tsrv_reply(ts, conn, req, 0, "subscribed", NULL);
		for (n = 1; n <= 3; n++)
			server_push(ts->srv, conn, req, json_pack("{s:i}",
			    "seq", n));
	} else if (strcmp(prefix, "flood") == 0 && ts->flood == NULL) {
		size = (size_t)json_integer_value(json_object_get(cmd,
		    "size"));
		f = xcalloc(1, sizeof *f);
		f->ts = ts;
		f->conn = conn;
		f->sub = req;
		f->left = (int)json_integer_value(json_object_get(cmd,
		    "count"));
		f->text = xmalloc(size + 16);
		f->len = (size_t)snprintf(f->text, 16, "{\"x\":\"");
		for (i = 0; i < size; i++)
			f->text[f->len++] = 'x';
		f->text[f->len++] = '"';
		f->text[f->len++] = '}';
		f->ev = evtimer_new(ts->base, tsrv_flood_cb, f);
		ts->flood = f;
		tsrv_reply(ts, conn, req, 0, "flooding", NULL);
		evtimer_add(f->ev, &tv);
	} else if (strcmp(prefix, "pace") == 0 && ts->npace < MAX_PACE) {
		struct pace *p = xcalloc(1, sizeof *p);

		p->ts = ts;
		p->conn = conn;
		p->sub = req;
		p->size = (size_t)json_integer_value(json_object_get(cmd,
		    "size"));
		p->left = (int)json_integer_value(json_object_get(cmd,
		    "count"));
		ts->pace[ts->npace++] = p;
		tsrv_reply(ts, conn, req, 0, "pacing", NULL);
		tsrv_pace_next(p);
	} else if (strcmp(prefix, "waitdrain") == 0) {
		ts->wait_req = req;
		ts->in_notify = 1;
		cr_assert_eq(server_notify_drained(ts->srv, conn,
		    tsrv_waitdrain_cb, ts), 0);
		ts->in_notify = 0;
	} else if (strcmp(prefix, "stream") == 0) {
		struct tstream *t = xcalloc(1, sizeof *t);

		t->ts = ts;
		t->count = (int)json_integer_value(
		    json_object_get(cmd, "count"));
		t->size = (size_t)json_integer_value(
		    json_object_get(cmd, "size"));
		t->hold = json_is_true(json_object_get(cmd, "hold"));
		atomic_fetch_add(&ts->stream_live, 1);
		if (server_reply_stream(ts->srv, conn, req, &tstream_ops, t) ==
		    -1) {
			atomic_fetch_sub(&ts->stream_live, 1);
			free(t);
		}
	} else if (strcmp(prefix, "endstreams") == 0) {
		server_end_streams(ts->srv, -ESHUTDOWN, "stopping");
		tsrv_reply(ts, conn, req, 0, "ended", NULL);
	} else if (strcmp(prefix, "stats") == 0) {
		server_stats(ts->srv, &st);
		tsrv_reply(ts, conn, req, 0, "ok",
		    json_pack(
			"{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:i,s:i,s:i,s:i,s:i,"
			"s:I,s:i,s:I,s:I,s:I,s:i,s:i,s:i,s:I,s:I}",
			"connections", (json_int_t)st.connections, "accepted",
			(json_int_t)st.accepted, "rejected",
			(json_int_t)st.rejected, "frames_in",
			(json_int_t)st.frames_in, "closed_slow",
			(json_int_t)st.closed_slow, "closed_idle",
			(json_int_t)st.closed_idle, "closed_bad",
			(json_int_t)st.closed_bad, "bytes_out",
			(json_int_t)st.bytes_out, "closed",
			atomic_load(&ts->closed), "reply_gone",
			atomic_load(&ts->reply_gone), "flood_cut",
			atomic_load(&ts->flood_cut), "pace_sent",
			atomic_load(&ts->pace_sent), "pace_cut",
			atomic_load(&ts->pace_cut), "pace_max_pending",
			(json_int_t)atomic_load(&ts->pace_max_pending),
			"drain_sync", atomic_load(&ts->drain_sync),
			"partial_bytes", (json_int_t)st.partial_bytes,
			"partial_granted", (json_int_t)st.partial_granted,
			"partial_paused", (json_int_t)st.partial_paused,
			"stream_done", atomic_load(&ts->stream_done),
			"stream_rc", atomic_load(&ts->stream_rc), "stream_live",
			atomic_load(&ts->stream_live), "stream_max_pending",
			(json_int_t)atomic_load(&ts->stream_max_pending),
			"binary_held", (json_int_t)st.binary_held));
	} else if (strcmp(prefix, "limits") == 0) {
		struct server_limits lim = default_limits;

		lim.max_frame = (size_t)json_integer_value(json_object_get(cmd,
		    "max_frame"));
		lim.idle_timeout_ms = (int)json_integer_value(
		    json_object_get(cmd, "idle_timeout_ms"));
		server_set_limits(ts->srv, &lim);
		tsrv_reply(ts, conn, req, 0, "limits set", NULL);
	} else if (strcmp(prefix, "stop") == 0) {
		server_stop_accepting(ts->srv);
		tsrv_reply(ts, conn, req, 0, "stopped", NULL);
	} else
		tsrv_reply(ts, conn, req, -EOPNOTSUPP, "unknown command",
		    NULL);
}

static void
tsrv_binary(void *arg, uint64_t conn, uint64_t req, const uint8_t *p,
    size_t len)
{
	struct tsrv *ts = arg;
	int64_t until = stamp_mono() + ts->bin_spin_us;

	while (stamp_mono() < until)
		;
	ts->bin_handled++;
	tsrv_reply(ts, conn, req, 0, "binary", json_pack("{s:i,s:I}",
	    "opcode", enc_get_be16(p), "len", (json_int_t)len));
}

static void
tsrv_closed(void *arg, uint64_t conn mapmon_unused)
{
	struct tsrv *ts = arg;

	atomic_fetch_add(&ts->closed, 1);
}

static const struct server_ops tsrv_ops = {
	.hello = tsrv_hello,
	.request = tsrv_request,
	.binary = tsrv_binary,
	.closed = tsrv_closed,
};


static void *
tsrv_run(void *arg)
{
	struct tsrv *ts = arg;

	event_base_loop(ts->base, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

/* A test server on a base of server_base_new() (prio) or a plain one. */
static struct tsrv *
tsrv_start_on(const struct server_limits *limits, int prio)
{
	struct tsrv *ts;
	char *cause = NULL;

	evthread_use_pthreads();
	ts = xcalloc(1, sizeof *ts);
	ts->base = prio ? server_base_new() : event_base_new();
	cr_assert_not_null(ts->base);
	ts->srv = server_new(ts->base, "127.0.0.1", 0,
	    limits != NULL ? limits : &default_limits, &tsrv_ops, ts, &cause);
	cr_assert_not_null(ts->srv, "server_new: %s", cause);
	ts->port = server_port(ts->srv);
	cr_assert_neq(ts->port, 0);
	snprintf(ts->addr, sizeof ts->addr, "127.0.0.1:%u", ts->port);
	cr_assert_eq(pthread_create(&ts->thread, NULL, tsrv_run, ts), 0);
	return ts;
}

static struct tsrv *
tsrv_start(const struct server_limits *limits)
{
	return tsrv_start_on(limits, 0);
}

static void
tsrv_stop(struct tsrv *ts)
{
	size_t i;

	event_base_loopexit(ts->base, NULL);
	pthread_join(ts->thread, NULL);
	for (i = 0; i < ts->nheld; i++)
		json_decref(ts->held[i].i);
	if (ts->flood != NULL) {
		event_free(ts->flood->ev);
		free(ts->flood->text);
		free(ts->flood);
	}
	for (i = 0; i < (size_t)ts->npace; i++)
		free(ts->pace[i]);
	server_end_streams(ts->srv, -ESHUTDOWN, "stopping");
	server_free(ts->srv);
	event_base_free(ts->base);
	free(ts);
}

/* ------------------------------------------------------------- helpers */

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One command through the blocking client; returns rc, *data owned. */
static int
call(const char *addr, const char *text, json_t **data, char **status)
{
	json_error_t e;
	json_t *cmd = json_loads(text, 0, &e);
	int rc;

	cr_assert_not_null(cmd, "test JSON %s: %s", text, e.text);
	rc = mclient_call(addr, 5000, cmd, data, status);
	json_decref(cmd);
	return rc;
}

/* The server's counters, through the "stats" command. */
static json_int_t
stat_of(struct tsrv *ts, const char *name)
{
	json_t *data;
	char *status;
	json_int_t v;
	int rc;

	rc = call(ts->addr, "{\"prefix\":\"stats\"}", &data, &status);
	cr_assert_eq(rc, 0, "stats: %d %s", rc, status);
	v = json_integer_value(json_object_get(data, name));
	json_decref(data);
	free(status);
	return v;
}

static void
echo_ok(struct tsrv *ts)
{
	json_t *data = NULL;
	char *status = NULL;
	int rc;

	rc = call(ts->addr, "{\"prefix\":\"echo\",\"v\":7}", &data, &status);
	cr_assert_eq(rc, 0, "echo: %d %s", rc, status);
	cr_assert_eq(json_integer_value(json_object_get(data, "v")), 7);
	json_decref(data);
	free(status);
}

/*
 * A connection whose receive buffer is rcvbuf bytes (0: the default), set
 * before connect() so that the window is small from the start: shrunk
 * afterwards, the window the sender was promised leaves it probing at
 * backed-off intervals once the reader reads again.
 */
static int
raw_connect_buf(uint16_t port, int rcvbuf)
{
	struct sockaddr_in sin;
	struct timeval tv = {5, 0};
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_neq(fd, -1, "socket: %s", strerror(errno));
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sin, sizeof sin), 0,
	    "connect: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	return fd;
}

static int
raw_connect(uint16_t port)
{
	return raw_connect_buf(port, 0);
}

static void
raw_write(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;
	ssize_t n;

	while (len > 0) {
		n = send(fd, b, len, MSG_NOSIGNAL);
		cr_assert(n > 0, "send: %s", strerror(errno));
		b += n;
		len -= (size_t)n;
	}
}

static void
raw_send(int fd, uint8_t type, uint64_t id, const char *payload)
{
	uint8_t hdr[FRAME_HEADER_SIZE];
	size_t len = strlen(payload);

	frame_encode_header(hdr, type, (uint32_t)len, id);
	raw_write(fd, hdr, sizeof hdr);
	raw_write(fd, payload, len);
}

/* Read exactly len bytes: 1, or 0 on EOF, -1 on error or timeout. */
static int
raw_read_n(int fd, void *p, size_t len)
{
	uint8_t *b = p;
	ssize_t n;

	while (len > 0) {
		n = recv(fd, b, len, 0);
		if (n == 0)
			return 0;
		if (n < 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 1;
}

/* Read one frame's header and payload (owned, NUL-terminated), or NULL. */
static char *
raw_recv_text(int fd, struct frame_header *h)
{
	uint8_t hdr[FRAME_HEADER_SIZE];
	char *payload, *cause = NULL;

	if (raw_read_n(fd, hdr, sizeof hdr) != 1)
		return NULL;
	cr_assert_neq(frame_decode_header(hdr, sizeof hdr, 1 << 30, h, &cause),
	    -1, "server sent a bad header: %s", cause);
	payload = xmalloc(h->len + 1);
	cr_assert_eq(raw_read_n(fd, payload, h->len), 1);
	payload[h->len] = '\0';
	return payload;
}

/* Read one frame; returns its parsed JSON payload (owned) or NULL. */
static json_t *
raw_recv(int fd, struct frame_header *h)
{
	char *payload, *cause = NULL;
	json_t *obj;

	if ((payload = raw_recv_text(fd, h)) == NULL)
		return NULL;
	obj = frame_parse_json(payload, h->len, &cause);
	cr_assert_not_null(obj, "server sent bad JSON: %s", cause);
	free(payload);
	return obj;
}

/* Expect a REPLY {rc, status containing what}; returns nothing. */
static void
raw_expect_reply(int fd, uint64_t id, int rc, const char *what)
{
	struct frame_header h;
	json_t *obj;
	const char *status;

	obj = raw_recv(fd, &h);
	cr_assert_not_null(obj, "no reply (EOF or timeout)");
	cr_assert_eq(h.type, FRAME_REPLY, "frame type %u", h.type);
	cr_assert_eq(h.id, id, "reply id %llu, wanted %llu",
	    (unsigned long long)h.id, (unsigned long long)id);
	status = json_string_value(json_object_get(obj, "status"));
	cr_assert_eq(json_integer_value(json_object_get(obj, "rc")), rc,
	    "rc %lld, wanted %d (%s)",
	    (long long)json_integer_value(json_object_get(obj, "rc")), rc,
	    status);
	cr_assert_not_null(status);
	cr_assert_not_null(strstr(status, what), "status '%s' lacks '%s'",
	    status, what);
	json_decref(obj);
}

/* The server closes: EOF (not a reset, not a timeout) after any data. */
static void
raw_expect_eof(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
		;
	cr_assert_eq(n, 0, "expected EOF, got %s",
	    n < 0 ? strerror(errno) : "data");
}

/* The next n frames on fd are pushes. */
static void
raw_expect_pushes(int fd, int n)
{
	struct frame_header h;
	json_t *o;
	int k;

	for (k = 0; k < n; k++) {
		o = raw_recv(fd, &h);
		cr_assert_not_null(o, "push %d of %d", k + 1, n);
		cr_assert_eq(h.type, FRAME_PUSH);
		json_decref(o);
	}
}

/* Say HELLO with payload hello and check the server's. */
static void
raw_hello_as(int fd, const char *hello)
{
	struct frame_header h;
	json_t *obj;

	raw_send(fd, FRAME_HELLO, 0, hello);
	obj = raw_recv(fd, &h);
	cr_assert_not_null(obj, "no HELLO from the server");
	cr_assert_eq(h.type, FRAME_HELLO);
	cr_assert_eq(json_integer_value(json_object_get(obj, "protocol")), 1);
	json_decref(obj);
}

static void
raw_hello(int fd)
{
	raw_hello_as(fd,
	    "{\"protocol\":1,\"name\":\"client.test\",\"features\":[]}");
}

/* Run base until *flag is set or ms pass; returns *flag. */
static int
run_until(struct event_base *base, atomic_int *flag, int target, int ms)
{
	int64_t end = now_ms() + ms;
	struct timeval tv = {0, 10000};

	while (atomic_load(flag) < target && now_ms() < end) {
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	return atomic_load(flag);
}

/* ------------------------------------------------------------- hello */

Test(net, hello_exchange)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct frame_header h;
	json_t *obj;
	int fd;

	fd = raw_connect(ts->port);
	raw_send(fd, FRAME_HELLO, 77,
	    "{\"protocol\":1,\"name\":\"client.x\","
	    "\"features\":[\"future\"],\"future\":{\"nonce\":\"ignored\"}}");
	obj = raw_recv(fd, &h);
	cr_assert_not_null(obj);
	cr_assert_eq(h.type, FRAME_HELLO);
	cr_assert_eq(h.id, 77, "the HELLO answer carries the hello's id");
	cr_assert_eq(json_integer_value(json_object_get(obj, "protocol")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(obj, "server")),
	    "mapmon " PACKAGE_VERSION);
	cr_assert_str_eq(json_string_value(json_object_get(obj, "mon")), "a");
	cr_assert_str_eq(json_string_value(json_object_get(obj, "fsid")),
	    "6b1f8c5e-0000-4000-8000-000000000001");
	json_decref(obj);

	/* A request then works on the same connection. */
	raw_send(fd, FRAME_REQUEST, 5, "{\"prefix\":\"fail\"}");
	raw_expect_reply(fd, 5, -ENOENT, "no such thing");
	close(fd);
	tsrv_stop(ts);
}

static void
ready_cb(void *arg, json_t *hello)
{
	json_t **out = arg;

	*out = json_incref(hello);
}

Test(net, client_sees_server_hello)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct event_base *base = event_base_new();
	json_t *hello = NULL;
	struct mclient *cl;
	int64_t end = now_ms() + 5000;
	struct timeval tv = {0, 10000};

	cl = mclient_new(base, ts->addr, 5000, ready_cb, NULL, &hello);
	mclient_set_name(cl, "client.admin");
	while (hello == NULL && now_ms() < end) {
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	cr_assert_not_null(hello);
	cr_assert(mclient_ready(cl));
	cr_assert_eq(mclient_server_hello(cl) != NULL, 1);
	cr_assert_str_eq(json_string_value(json_object_get(hello, "mon")),
	    "a");
	json_decref(hello);
	mclient_free(cl);
	event_base_free(base);
	tsrv_stop(ts);
}

Test(net, call_echo_and_error_rc)
{
	struct tsrv *ts = tsrv_start(NULL);
	json_t *data;
	char *status;
	int rc;

	rc = call(ts->addr, "{\"prefix\":\"echo\",\"pool\":\"rbd\","
	    "\"pg_num\":128}", &data, &status);
	cr_assert_eq(rc, 0);
	cr_assert_str_eq(status, "ok");
	cr_assert_str_eq(json_string_value(json_object_get(data, "pool")),
	    "rbd");
	cr_assert_eq(json_integer_value(json_object_get(data, "pg_num")), 128);
	json_decref(data);
	free(status);

	rc = call(ts->addr, "{\"prefix\":\"fail\"}", &data, &status);
	cr_assert_eq(rc, -ENOENT);
	cr_assert_str_eq(status, "no such thing");
	cr_assert_null(data);
	free(status);
	tsrv_stop(ts);
}

/* ------------------------------------------------------ many in flight */

struct inflight {
	atomic_int done;
	int bad;
	int order[100];
	int n;
};

struct inflight_req {
	struct inflight *st;
	int i;
};

static void
inflight_cb(void *arg, int rc, const char *status mapmon_unused,
    json_t *data)
{
	struct inflight_req *r = arg;

	if (rc != 0 || json_integer_value(json_object_get(data, "i")) != r->i)
		r->st->bad++;
	r->st->order[r->st->n++] = r->i;
	atomic_fetch_add(&r->st->done, 1);
}

static void
release_cb(void *arg, int rc, const char *status mapmon_unused,
    json_t *data mapmon_unused)
{
	struct inflight *st = arg;

	if (rc != 0)
		st->bad++;
}

Test(net, hundred_in_flight_out_of_order)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct event_base *base = event_base_new();
	struct inflight st = {0};
	struct inflight_req reqs[100];
	struct mclient *cl;
	json_t *cmd;
	int i;

	cl = mclient_new(base, ts->addr, 5000, NULL, NULL, NULL);
	for (i = 0; i < 100; i++) {
		reqs[i].st = &st;
		reqs[i].i = i;
		cmd = json_pack("{s:s,s:i}", "prefix", "hold", "i", i);
		cr_assert_eq(mclient_request(cl, cmd, inflight_cb, &reqs[i]),
		    0);
		json_decref(cmd);
	}
	cr_assert_eq(mclient_pending(cl), 100);
	cmd = json_pack("{s:s}", "prefix", "release");
	cr_assert_eq(mclient_request(cl, cmd, release_cb, &st), 0);
	json_decref(cmd);
	cr_assert_eq(run_until(base, &st.done, 100, 10000), 100);
	cr_assert_eq(st.bad, 0, "%d replies went to the wrong request",
	    st.bad);
	/* The dispatcher answered newest first: they came back that way. */
	for (i = 0; i < 100; i++)
		cr_assert_eq(st.order[i], 99 - i);
	mclient_free(cl);
	event_base_free(base);
	tsrv_stop(ts);
}

/* --------------------------------------------------------------- push */

struct sub {
	atomic_int events;
	int reply_rc;
	int seq[8];
	int npush;
};

static void
sub_reply(void *arg, int rc, const char *status mapmon_unused,
    json_t *data mapmon_unused)
{
	struct sub *s = arg;

	s->reply_rc = rc;
	atomic_fetch_add(&s->events, 1);
}

static void
sub_push(void *arg, json_t *obj)
{
	struct sub *s = arg;

	if (s->npush < 8)
		s->seq[s->npush++] =
		    (int)json_integer_value(json_object_get(obj, "seq"));
	atomic_fetch_add(&s->events, 1);
}

Test(net, subscribe_gets_pushes)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct event_base *base = event_base_new();
	struct sub s = {0};
	struct mclient *cl;
	json_t *cmd;

	s.reply_rc = 1;
	cl = mclient_new(base, ts->addr, 5000, NULL, NULL, NULL);
	cmd = json_pack("{s:s,s:s,s:i}", "prefix", "subscribe", "what",
	    "osdmap", "start", 0);
	cr_assert_eq(mclient_subscribe(cl, cmd, sub_push, sub_reply, &s), 0);
	json_decref(cmd);
	cr_assert_eq(run_until(base, &s.events, 4, 5000), 4);
	cr_assert_eq(s.reply_rc, 0);
	cr_assert_eq(s.npush, 3);
	cr_assert_eq(s.seq[0], 1);
	cr_assert_eq(s.seq[1], 2);
	cr_assert_eq(s.seq[2], 3);
	/* A subscription is not a pending request. */
	cr_assert_eq(mclient_pending(cl), 0);
	mclient_free(cl);
	event_base_free(base);
	tsrv_stop(ts);
}

/* ---------------------------------------------------------- bad input */

Test(net, bad_json_answered_connection_kept)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port);

	raw_hello(fd);
	raw_send(fd, FRAME_REQUEST, 1, "{\"prefix\":\n \"echo\",,}");
	raw_expect_reply(fd, 1, -EINVAL, "line 2 column");
	raw_send(fd, FRAME_REQUEST, 2, "[\"not\",\"an\",\"object\"]");
	raw_expect_reply(fd, 2, -EINVAL, "not an object");
	raw_send(fd, FRAME_REQUEST, 3, "{\"a\":1,\"a\":2}");
	raw_expect_reply(fd, 3, -EINVAL, "duplicate");
	/* Still served. */
	raw_send(fd, FRAME_REQUEST, 4, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 4, 0, "ok");
	close(fd);
	tsrv_stop(ts);
}

Test(net, invalid_utf8_answered)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port);

	raw_hello(fd);
	raw_send(fd, FRAME_REQUEST, 9,
	    "{\"prefix\":\"echo\",\"s\":\"\xff\xfe\"}");
	raw_expect_reply(fd, 9, -EINVAL, "bad JSON");
	raw_send(fd, FRAME_REQUEST, 10, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 10, 0, "ok");
	close(fd);
	tsrv_stop(ts);
}

Test(net, deep_nesting_answered)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port);
	char buf[512];
	size_t n = 0;
	int i;

	raw_hello(fd);
	n += (size_t)snprintf(buf, sizeof buf, "{\"prefix\":\"echo\",\"a\":");
	for (i = 0; i < 199; i++)
		buf[n++] = '[';
	buf[n] = '\0';
	/* 200 levels, truncated or not: refused before jansson recurses. */
	raw_send(fd, FRAME_REQUEST, 11, buf);
	raw_expect_reply(fd, 11, -EINVAL, "nested deeper than 64");
	raw_send(fd, FRAME_REQUEST, 12, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 12, 0, "ok");
	close(fd);
	tsrv_stop(ts);
}

Test(net, oversize_frame_error_then_close)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port);
	uint8_t hdr[FRAME_HEADER_SIZE];
	char junk[8192];

	raw_hello(fd);
	frame_encode_header(hdr, FRAME_REQUEST, 10 * 1024 * 1024, 13);
	raw_write(fd, hdr, sizeof hdr);
	memset(junk, 'x', sizeof junk);
	raw_write(fd, junk, sizeof junk); /* the client carries on sending */
	raw_expect_reply(fd, 13, -EMSGSIZE, "larger than the limit of 65536");
	raw_expect_eof(fd);
	close(fd);
	echo_ok(ts);
	cr_assert_eq(stat_of(ts, "closed_bad"), 1);
	tsrv_stop(ts);
}

Test(net, frame_before_hello)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port);

	raw_send(fd, FRAME_REQUEST, 4, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 4, -EINVAL, "expected a HELLO frame first");
	raw_expect_eof(fd);
	close(fd);
	tsrv_stop(ts);
}

Test(net, bad_protocol_version)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port);

	raw_send(fd, FRAME_HELLO, 1, "{\"protocol\":2}");
	raw_expect_reply(fd, 1, -EPROTONOSUPPORT,
	    "protocol 2 not supported (server speaks 1)");
	raw_expect_eof(fd);
	close(fd);

	fd = raw_connect(ts->port);
	raw_send(fd, FRAME_HELLO, 1, "{\"name\":\"client.x\"}");
	raw_expect_reply(fd, 1, -EINVAL, "\"protocol\" is missing");
	raw_expect_eof(fd);
	close(fd);

	fd = raw_connect(ts->port);
	raw_send(fd, FRAME_HELLO, 1, "{\"protocol\":1");
	raw_expect_reply(fd, 1, -EINVAL, "bad HELLO: bad JSON");
	raw_expect_eof(fd);
	close(fd);
	tsrv_stop(ts);
}

Test(net, bad_headers_and_directions)
{
	struct tsrv *ts = tsrv_start(NULL);
	uint8_t hdr[FRAME_HEADER_SIZE];
	int fd;

	/* A REPLY sent by a client. */
	fd = raw_connect(ts->port);
	raw_hello(fd);
	raw_send(fd, FRAME_REPLY, 3, "{}");
	raw_expect_reply(fd, 3, -EINVAL, "may not send REPLY");
	raw_expect_eof(fd);
	close(fd);

	/* A second HELLO. */
	fd = raw_connect(ts->port);
	raw_hello(fd);
	raw_send(fd, FRAME_HELLO, 4, "{\"protocol\":1}");
	raw_expect_reply(fd, 4, -EINVAL, "HELLO frames twice");
	raw_expect_eof(fd);
	close(fd);

	/* Unknown type, then a nonzero reserved field. */
	fd = raw_connect(ts->port);
	raw_hello(fd);
	frame_encode_header(hdr, FRAME_REQUEST, 0, 5);
	hdr[4] = 9;
	raw_write(fd, hdr, sizeof hdr);
	raw_expect_reply(fd, 5, -EINVAL, "unknown frame type 9");
	raw_expect_eof(fd);
	close(fd);

	fd = raw_connect(ts->port);
	raw_hello(fd);
	frame_encode_header(hdr, FRAME_REQUEST, 0, 6);
	hdr[7] = 1;
	raw_write(fd, hdr, sizeof hdr);
	raw_expect_reply(fd, 6, -EINVAL, "reserved");
	raw_expect_eof(fd);
	close(fd);

	cr_assert_eq(stat_of(ts, "closed_bad"), 4);
	tsrv_stop(ts);
}

Test(net, random_bytes)
{
	struct tsrv *ts = tsrv_start(NULL);
	uint8_t buf[4096];
	unsigned int seed = 12345;
	size_t i;
	int fd, round;

	for (round = 0; round < 5; round++) {
		fd = raw_connect(ts->port);
		if (round > 0)
			raw_hello(fd);
		for (i = 0; i < sizeof buf; i++)
			buf[i] = (uint8_t)rand_r(&seed);
		buf[5] = 1; /* nonzero flags: never a valid header */
		raw_write(fd, buf, sizeof buf);
		{
			struct frame_header h;
			json_t *obj = raw_recv(fd, &h);

			cr_assert_not_null(obj, "no error reply to garbage");
			cr_assert_eq(h.type, FRAME_REPLY);
			cr_assert_lt(json_integer_value(json_object_get(obj,
			    "rc")), 0);
			json_decref(obj);
		}
		raw_expect_eof(fd);
		close(fd);
	}
	echo_ok(ts);
	tsrv_stop(ts);
}

Test(net, truncated_frame_then_close)
{
	struct tsrv *ts = tsrv_start(NULL);
	uint8_t hdr[FRAME_HEADER_SIZE];
	int fd, i;

	for (i = 0; i < 3; i++) {
		fd = raw_connect(ts->port);
		raw_hello(fd);
		frame_encode_header(hdr, FRAME_REQUEST, 100, 1);
		raw_write(fd, hdr, i == 0 ? 7 : sizeof hdr); /* half a header */
		if (i == 2)
			raw_write(fd, "{\"prefix\":", 10); /* half a payload */
		close(fd);
	}
	echo_ok(ts);
	/* Three hellos that went, plus the echo: closed() for each. */
	{
		int64_t end = now_ms() + 3000;

		while (stat_of(ts, "closed") < 4 && now_ms() < end)
			usleep(10000);
	}
	cr_assert_geq(stat_of(ts, "closed"), 4);
	{
		int64_t end = now_ms() + 3000;

		while (stat_of(ts, "connections") > 1 && now_ms() < end)
			usleep(10000);
	}
	cr_assert_eq(stat_of(ts, "connections"), 1, "only the stats call");
	tsrv_stop(ts);
}

Test(net, binary_request)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port);
	uint8_t hdr[FRAME_HEADER_SIZE], body[6] = {0, 1, 'a', 'b', 'c', 'd'};
	struct frame_header h;
	json_t *obj, *data;

	raw_hello(fd);
	frame_encode_header(hdr, FRAME_BINARY_REQUEST, sizeof body, 21);
	raw_write(fd, hdr, sizeof hdr);
	raw_write(fd, body, sizeof body);
	obj = raw_recv(fd, &h);
	cr_assert_not_null(obj);
	cr_assert_eq(h.id, 21);
	data = json_object_get(obj, "data");
	cr_assert_eq(json_integer_value(json_object_get(data, "opcode")),
	    FRAME_BINARY_PG_REPORT);
	cr_assert_eq(json_integer_value(json_object_get(data, "len")), 6);
	json_decref(obj);

	/* One byte cannot hold the opcode: an error, the connection stays. */
	frame_encode_header(hdr, FRAME_BINARY_REQUEST, 1, 22);
	raw_write(fd, hdr, sizeof hdr);
	raw_write(fd, body, 1);
	raw_expect_reply(fd, 22, -EINVAL, "shorter than its opcode");
	raw_send(fd, FRAME_REQUEST, 23, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 23, 0, "ok");
	close(fd);
	tsrv_stop(ts);
}

struct bin_st {
	atomic_int done;
	int rc;
	json_int_t len;
};

static void
bin_cb(void *arg, int rc, const char *status mapmon_unused, json_t *data)
{
	struct bin_st *b = arg;

	b->rc = rc;
	b->len = json_integer_value(json_object_get(data, "len"));
	atomic_fetch_add(&b->done, 1);
}

Test(net, client_binary_request)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct event_base *base = event_base_new();
	struct bin_st b = {0};
	uint8_t body[1000];
	struct mclient *cl;

	memset(body, 0, sizeof body);
	enc_put_be16(body, FRAME_BINARY_PG_REPORT);
	cl = mclient_new(base, ts->addr, 5000, NULL, NULL, NULL);
	cr_assert_eq(mclient_request_binary(cl, body, sizeof body, bin_cb, &b),
	    0);
	cr_assert_eq(run_until(base, &b.done, 1, 5000), 1);
	cr_assert_eq(b.rc, 0);
	cr_assert_eq(b.len, 1000);
	mclient_free(cl);
	event_base_free(base);
	tsrv_stop(ts);
}

/* Has fd nothing to read within ms milliseconds? */
static int
raw_quiet(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 0;
}

/*
 * server_hold_binary(): a held connection's binary requests, and what it
 * sent after them, wait unread; other connections and requests go on;
 * released, every one is answered, in order, none lost.
 */
Test(net, held_binary_requests_wait_then_all_answered)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port), fd2 = raw_connect(ts->port);
	uint8_t frames[3][FRAME_HEADER_SIZE + 6];
	uint8_t body[6] = { 0, 1, 'a', 'b', 'c', 'd' };
	struct frame_header h;
	json_t *obj;
	uint64_t id;
	int i;

	raw_hello(fd);
	raw_hello(fd2);
	raw_send(fd2, FRAME_REQUEST, 1, "{\"prefix\":\"holdbin\",\"on\":true}");
	raw_expect_reply(fd2, 1, 0, "ok");
	/* A request before the binary ones is answered at once. */
	raw_send(fd, FRAME_REQUEST, 30, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 30, 0, "ok");
	for (i = 0; i < 3; i++) {
		frame_encode_header(frames[i], FRAME_BINARY_REQUEST,
		    sizeof body, (uint64_t)(31 + i));
		memcpy(frames[i] + FRAME_HEADER_SIZE, body, sizeof body);
	}
	raw_write(fd, frames, sizeof frames);
	raw_send(fd, FRAME_REQUEST, 34, "{\"prefix\":\"echo\"}");
	cr_assert(raw_quiet(fd, 300), "a held binary request was answered");
	/* Another connection is served meanwhile. */
	raw_send(fd2, FRAME_REQUEST, 2, "{\"prefix\":\"stats\"}");
	obj = raw_recv(fd2, &h);
	cr_assert_not_null(obj);
	cr_assert_eq(json_integer_value(json_object_get(
			 json_object_get(obj, "data"), "binary_held")),
	    1, "one connection held");
	json_decref(obj);
	cr_assert(raw_quiet(fd, 100));

	raw_send(fd2, FRAME_REQUEST, 3,
	    "{\"prefix\":\"holdbin\",\"on\":false}");
	raw_expect_reply(fd2, 3, 0, "ok");
	for (id = 31; id <= 33; id++) {
		obj = raw_recv(fd, &h);
		cr_assert_not_null(obj, "binary request %llu lost",
		    (unsigned long long)id);
		cr_assert_eq(h.id, id, "answered %llu, wanted %llu",
		    (unsigned long long)h.id, (unsigned long long)id);
		cr_assert_eq(json_integer_value(json_object_get(
				 json_object_get(obj, "data"), "len")),
		    6);
		json_decref(obj);
	}
	raw_expect_reply(fd, 34, 0, "ok");
	close(fd);
	close(fd2);
	tsrv_stop(ts);
}

/* The binary requests handled so far, setting each one's time to us. */
static int
binspin(int fd, uint64_t id, int us)
{
	char text[64];
	struct frame_header h;
	json_t *obj;
	int n;

	snprintf(text, sizeof text, "{\"prefix\":\"binspin\",\"us\":%d}", us);
	raw_send(fd, FRAME_REQUEST, id, text);
	obj = raw_recv(fd, &h);
	cr_assert_not_null(obj);
	cr_assert_eq(h.id, id);
	n = (int)json_integer_value(
	    json_object_get(json_object_get(obj, "data"), "handled"));
	json_decref(obj);
	return n;
}

/*
 * On a base of server_base_new(), a command goes before the binary
 * requests that arrived with it: 40 connections that have sent binary
 * requests (bulk, read below the rest) each send one more, taking 2 ms to
 * handle, then another connection sends a command; it is answered after
 * one or two of them, not after the 40 (a plain base's order), and every
 * binary request is answered still.
 */
#define BULK_CONNS 40
Test(net, commands_go_before_queued_binary_requests)
{
	struct tsrv *ts = tsrv_start_on(NULL, 1);
	uint8_t frame[FRAME_HEADER_SIZE + 6];
	uint8_t body[6] = { 0, 1, 'a', 'b', 'c', 'd' };
	int fds[BULK_CONNS], ctl = raw_connect(ts->port), i, before, n;
	int one = 1;
	struct frame_header h;
	json_t *obj;

	memcpy(frame + FRAME_HEADER_SIZE, body, sizeof body);
	/* The command's header and payload go without Nagle's wait. */
	cr_assert_eq(
	    setsockopt(ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one), 0);
	raw_hello(ctl);
	for (i = 0; i < BULK_CONNS; i++) {
		fds[i] = raw_connect(ts->port);
		raw_hello(fds[i]);
		frame_encode_header(frame, FRAME_BINARY_REQUEST, sizeof body,
		    1);
		raw_write(fds[i], frame, sizeof frame);
		obj = raw_recv(fds[i], &h);
		cr_assert_not_null(obj);
		json_decref(obj);
	}
	before = binspin(ctl, 1, 2000);
	cr_assert_eq(before, BULK_CONNS);
	for (i = 0; i < BULK_CONNS; i++) {
		frame_encode_header(frame, FRAME_BINARY_REQUEST, sizeof body,
		    2);
		raw_write(fds[i], frame, sizeof frame);
	}
	n = binspin(ctl, 2, 0) - before;
	cr_log_info("the command came after %d of %d binary requests", n,
	    BULK_CONNS);
	cr_assert_lt(n, BULK_CONNS / 2,
	    "the command waited for %d of %d "
	    "binary requests",
	    n, BULK_CONNS);
	for (i = 0; i < BULK_CONNS; i++) {
		obj = raw_recv(fds[i], &h);
		cr_assert_not_null(obj, "binary request of connection %d lost",
		    i);
		cr_assert_eq(h.id, 2);
		json_decref(obj);
		close(fds[i]);
	}
	close(ctl);
	tsrv_stop(ts);
}

/*
 * A sender of binary requests that never pauses (a monitor forwarding its
 * OSDs' reports to the leader) is answered while it sends: its socket
 * stays readable, and were the server to read on while the frames it has
 * wait in the bulk queue, the reads at the default priority would starve
 * the queue's turn (no answer until the sender stops) and the input would
 * grow by what was sent.  The sender writes for up to FLOOD_MS, or until
 * FLOOD_ANSWERS answers have come back.
 */
#define FLOOD_MS 600
#define FLOOD_ANSWERS 2000
#define FLOOD_BATCH 2048
struct nopause {
	int fd;
	atomic_int stop;
	size_t sent;
};

static void *
nopause_main(void *arg)
{
	struct nopause *f = arg;
	uint8_t one[FRAME_HEADER_SIZE + 6] = { 0 };
	uint8_t *buf = xmalloc(sizeof one * FLOOD_BATCH);
	const uint8_t *b;
	size_t i, len;
	ssize_t n;

	one[FRAME_HEADER_SIZE + 1] = 1;
	for (i = 0; i < FLOOD_BATCH; i++) {
		frame_encode_header(one, FRAME_BINARY_REQUEST, 6, i + 1);
		memcpy(buf + i * sizeof one, one, sizeof one);
	}
	while (!atomic_load(&f->stop)) {
		/* Whole batches: the stream stays a sequence of frames. */
		for (b = buf, len = sizeof one * FLOOD_BATCH; len > 0;
		     b += n, len -= (size_t)n) {
			n = send(f->fd, b, len, MSG_NOSIGNAL);
			if (n <= 0)
				goto out;
		}
		f->sent += FLOOD_BATCH;
	}
out:
	free(buf);
	return NULL;
}

Test(net, a_sender_that_never_pauses_is_answered_while_it_sends)
{
	struct tsrv *ts = tsrv_start_on(NULL, 1);
	struct nopause f = { .fd = -1 };
	struct frame_header h;
	pthread_t t;
	json_t *obj;
	int64_t end;
	int answers = 0;

	f.fd = raw_connect(ts->port);
	raw_hello(f.fd);
	cr_assert_eq(pthread_create(&t, NULL, nopause_main, &f), 0);
	end = now_ms() + FLOOD_MS;
	while (answers < FLOOD_ANSWERS && now_ms() < end &&
	    poll(&(struct pollfd){ .fd = f.fd, .events = POLLIN }, 1,
		(int)(end - now_ms())) == 1) {
		if ((obj = raw_recv(f.fd, &h)) == NULL)
			break;
		cr_assert_eq(h.type, FRAME_REPLY);
		json_decref(obj);
		answers++;
	}
	atomic_store(&f.stop, 1);
	shutdown(f.fd, SHUT_RDWR);
	pthread_join(t, NULL);
	cr_log_info("%d answers while %zu binary requests were sent", answers,
	    f.sent);
	cr_assert_geq(answers, FLOOD_ANSWERS,
	    "%d answers in %d ms while the sender sent %zu requests", answers,
	    FLOOD_MS, f.sent);
	close(f.fd);
	tsrv_stop(ts);
}

/* A reply to a connection that has gone is -1, not a crash. */
Test(net, reply_after_disconnect)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port);
	json_t *data;
	char *status;

	raw_hello(fd);
	raw_send(fd, FRAME_REQUEST, 1, "{\"prefix\":\"hold\",\"i\":1}");
	raw_send(fd, FRAME_REQUEST, 2, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 2, 0, "ok"); /* the hold was dispatched */
	close(fd);
	usleep(100000);
	cr_assert_eq(call(ts->addr, "{\"prefix\":\"release\"}", &data,
	    &status), 0);
	free(status);
	cr_assert_eq(stat_of(ts, "reply_gone"), 1);
	tsrv_stop(ts);
}

/* ------------------------------------------------------------- limits */

Test(net, max_connections_enforced_and_recovered)
{
	struct server_limits lim = default_limits;
	struct tsrv *ts;
	json_t *data;
	char *status;
	int fds[3], i, rc;
	int64_t end;

	lim.max_connections = 3;
	ts = tsrv_start(&lim);
	for (i = 0; i < 3; i++) {
		fds[i] = raw_connect(ts->port);
		raw_hello(fds[i]);
	}
	rc = call(ts->addr, "{\"prefix\":\"echo\"}", &data, &status);
	cr_assert_eq(rc, -EBUSY, "rc %d: %s", rc, status);
	cr_assert_not_null(strstr(status, "too many connections"), "%s",
	    status);
	free(status);

	close(fds[0]);
	end = now_ms() + 3000;
	do {
		usleep(20000);
		rc = call(ts->addr, "{\"prefix\":\"echo\"}", &data, &status);
		free(status);
		json_decref(data);
	} while (rc != 0 && now_ms() < end);
	cr_assert_eq(rc, 0, "a slot freed is usable again");
	/* The stats call itself is the third of three. */
	cr_assert_geq(stat_of(ts, "rejected"), 1);
	close(fds[1]);
	close(fds[2]);
	tsrv_stop(ts);
}

Test(net, idle_timeout_closes)
{
	struct server_limits lim = default_limits;
	struct tsrv *ts;
	int idle, busy, sub;
	int64_t start, i;

	lim.idle_timeout_ms = 300;
	ts = tsrv_start(&lim);
	idle = raw_connect(ts->port);
	busy = raw_connect(ts->port);
	sub = raw_connect(ts->port);
	raw_hello(idle);
	raw_hello(busy);
	raw_hello(sub);
	raw_send(sub, FRAME_REQUEST, 1, "{\"prefix\":\"subscribe\"}");
	raw_expect_reply(sub, 1, 0, "subscribed");
	start = now_ms();

	/* busy keeps talking every 100 ms for a second: never idle. */
	for (i = 0; i < 10; i++) {
		raw_send(busy, FRAME_REQUEST, (uint64_t)i + 10,
		    "{\"prefix\":\"echo\"}");
		raw_expect_reply(busy, (uint64_t)i + 10, 0, "ok");
		usleep(100000);
	}
	raw_send(busy, FRAME_REQUEST, 99, "{\"prefix\":\"echo\"}");
	raw_expect_reply(busy, 99, 0, "ok");

	/* idle was closed in the meantime (EOF waiting for it). */
	raw_expect_eof(idle);
	cr_assert_geq(now_ms() - start, 250);

	/* The subscriber was spared: its pushes are still readable. */
	raw_expect_pushes(sub, 3);
	raw_send(sub, FRAME_REQUEST, 2, "{\"prefix\":\"echo\"}");
	raw_expect_reply(sub, 2, 0, "ok");
	cr_assert_eq(stat_of(ts, "closed_idle"), 1);
	close(idle);
	close(busy);
	close(sub);
	tsrv_stop(ts);
}

Test(net, slow_reader_disconnected_others_served)
{
	struct server_limits lim = default_limits;
	struct tsrv *ts;
	int slow, rcvbuf = 4096, k;
	int64_t end, t0, worst = 0;

	lim.max_client_output = 1024 * 1024;
	ts = tsrv_start(&lim);
	slow = raw_connect(ts->port);
	setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	raw_hello(slow);
	/* 64 MiB of pushes to a client that reads none of them. */
	raw_send(slow, FRAME_REQUEST, 1,
	    "{\"prefix\":\"flood\",\"size\":65536,\"count\":1024}");

	end = now_ms() + 20000;
	k = 0;
	while (now_ms() < end) {
		t0 = now_ms();
		echo_ok(ts);
		if (now_ms() - t0 > worst)
			worst = now_ms() - t0;
		k++;
		if (stat_of(ts, "flood_cut") > 0)
			break;
	}
	cr_assert_eq(stat_of(ts, "flood_cut"), 1, "the slow reader was not "
	    "disconnected");
	cr_assert_eq(stat_of(ts, "closed_slow"), 1);
	cr_assert_gt(k, 0);
	cr_assert_lt(worst, 1000, "another client waited %lld ms",
	    (long long)worst);
	/* The slow reader sees its connection end, not a hang. */
	{
		char buf[65536];
		ssize_t n;

		size_t total = 0;

		while ((n = recv(slow, buf, sizeof buf, 0)) > 0)
			total += (size_t)n;
		cr_assert(n == -1 && errno == ECONNRESET, "recv: %s",
		    n == 0 ? "EOF" : strerror(errno));
		/* The kernel's buffers were dropped, not trickled out. */
		cr_assert_lt(total, 1024 * 1024, "%zu bytes still came", total);
	}
	close(slow);
	tsrv_stop(ts);
}

/* Read one PUSH of a "pace" run and check its sequence number. */
static void
pace_expect(int fd, uint64_t sub, int seq)
{
	struct frame_header h;
	json_t *o;

	o = raw_recv(fd, &h);
	cr_assert_not_null(o, "paced push %d did not come", seq);
	cr_assert_eq(h.type, FRAME_PUSH);
	cr_assert_eq(h.id, sub);
	cr_assert_eq(json_integer_value(json_object_get(o, "seq")), seq,
	    "push %lld came where %d was due",
	    (long long)json_integer_value(json_object_get(o, "seq")), seq);
	json_decref(o);
}

/*
 * server_notify_drained: a producer that queues a piece only once the last
 * has drained never has more than one piece queued in the server, however
 * long its reader pauses, so a reader is never cut at max_client_output;
 * and a waiter armed on an empty output is told from the loop, not from
 * inside the call.
 */
Test(net, drained_paces_a_producer)
{
	struct server_limits lim = default_limits;
	struct tsrv *ts;
	int fd, rcvbuf = 4096, seq;
	enum { SIZE = 64 * 1024, COUNT = 160 };

	lim.max_client_output = 256 * 1024;
	ts = tsrv_start(&lim);
	fd = raw_connect_buf(ts->port, rcvbuf);
	raw_hello(fd);

	/* Already empty: the answer comes from the loop, after the call. */
	raw_send(fd, FRAME_REQUEST, 1, "{\"prefix\":\"waitdrain\"}");
	raw_expect_reply(fd, 1, 0, "drained");
	cr_assert_eq(stat_of(ts, "drain_sync"), 0, "a drained callback ran "
	    "inside server_notify_drained()");

	/* 10 MB, 40 times the cap, to a reader that first pauses a second. */
	raw_send(fd, FRAME_REQUEST, 2,
	    "{\"prefix\":\"pace\",\"size\":65536,\"count\":160}");
	raw_expect_reply(fd, 2, 0, "pacing");
	usleep(1000 * 1000);
	cr_assert_lt(stat_of(ts, "pace_sent"), COUNT, "the producer did not "
	    "wait for the reader");
	cr_assert_eq(stat_of(ts, "closed_slow"), 0);
	for (seq = 1; seq <= COUNT; seq++)
		pace_expect(fd, 2, seq);
	cr_assert_eq(stat_of(ts, "pace_sent"), COUNT);
	cr_assert_eq(stat_of(ts, "pace_cut"), 0);
	cr_assert_eq(stat_of(ts, "closed_slow"), 0, "a reader was cut");
	cr_assert_eq(stat_of(ts, "drain_sync"), 0);
	/* At each push only stats replies could be queued, never a piece. */
	cr_assert_lt(stat_of(ts, "pace_max_pending"), SIZE, "%lld bytes were "
	    "queued before a paced push",
	    (long long)stat_of(ts, "pace_max_pending"));
	raw_send(fd, FRAME_REQUEST, 3, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 3, 0, "ok");
	close(fd);
	tsrv_stop(ts);
}

/* ------------------------------------------------------ replies in parts */

/* Close with a reset. */
static void
raw_reset(int fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	close(fd);
}

/* A HELLO that offers parts. */
static void
raw_hello_parts(int fd)
{
	raw_hello_as(fd, "{\"protocol\":1,\"features\":[\"parts\"]}");
}

/*
 * The frames of reply id, gathered: the number of frames, and the reply
 * (owned).  Every part but the last has FRAME_FLAG_MORE and at least
 * SERVER_PART bytes; only the first starts the object.
 */
static json_t *
raw_recv_parts(int fd, uint64_t id, int *frames)
{
	struct frame_header h;
	struct enc_buf all = { 0 };
	char *p, *cause = NULL;
	json_t *obj;

	*frames = 0;
	do {
		p = raw_recv_text(fd, &h);
		cr_assert_not_null(p, "part %d did not come", *frames + 1);
		cr_assert_eq(h.type, FRAME_REPLY);
		cr_assert_eq(h.id, id);
		if (h.flags & FRAME_FLAG_MORE) {
			cr_assert_geq(h.len, SERVER_PART, "a part of %u bytes",
			    h.len);
			if (*frames == 0)
				cr_assert(
				    strncmp(p, "{\"rc\":0,\"data\":", 15) == 0,
				    "first part: %.40s", p);
		}
		(*frames)++;
		enc_buf_put_bytes(&all, p, h.len);
		free(p);
	} while (h.flags & FRAME_FLAG_MORE);
	obj = frame_parse_json(all.data, all.len, &cause);
	cr_assert_not_null(obj, "the parts do not make JSON: %s", cause);
	enc_buf_free(&all);
	return obj;
}

/* A stream's data: count strings of size 'x's. */
static void
expect_stream_data(json_t *data, int count, size_t size)
{
	json_t *v;
	size_t i;

	cr_assert(json_is_array(data));
	cr_assert_eq(json_array_size(data), (size_t)count);
	json_array_foreach(data, i, v)
		cr_assert_eq(json_string_length(v), size, "piece %zu", i);
}

/*
 * A reply written in pieces reaches the client library whole, however
 * many parts; the server asked for each piece only with nothing queued.
 */
Test(net, stream_reply_in_parts_arrives_whole)
{
	struct tsrv *ts = tsrv_start(NULL);
	json_t *data = NULL;
	char *status = NULL;
	int rc;

	/* 200 pieces of 64 KiB: 13 MB, three times max_client_output. */
	rc = call(ts->addr,
	    "{\"prefix\":\"stream\",\"count\":200,"
	    "\"size\":65536}",
	    &data, &status);
	cr_assert_eq(rc, 0, "%s", status);
	cr_assert_str_eq(status, "streamed 200");
	expect_stream_data(data, 200, 65536);
	json_decref(data);
	free(status);
	cr_assert_eq(stat_of(ts, "stream_done"), 1);
	cr_assert_eq(stat_of(ts, "stream_rc"), 0);
	cr_assert_eq(stat_of(ts, "closed_slow"), 0);
	cr_assert_lt(stat_of(ts, "stream_max_pending"), 65536,
	    "a piece was "
	    "asked for with %lld bytes queued",
	    (long long)stat_of(ts, "stream_max_pending"));
	echo_ok(ts);
	tsrv_stop(ts);
}

/*
 * On the wire: a reply whole before SERVER_PART bytes wait is one frame,
 * byte for byte as server_reply() sends one; a larger one comes in parts,
 * the status last; a client that does not take parts gets it in one frame,
 * or -EMSGSIZE past max_client_output.
 */
Test(net, stream_frames_on_the_wire)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct frame_header h;
	json_t *obj;
	char *p;
	int fd, old, frames;

	fd = raw_connect(ts->port);
	raw_hello_parts(fd);
	raw_send(fd, FRAME_REQUEST, 1,
	    "{\"prefix\":\"stream\",\"count\":3,"
	    "\"size\":4}");
	p = raw_recv_text(fd, &h);
	cr_assert_not_null(p);
	cr_assert_eq(h.flags, 0);
	cr_assert_str_eq(p,
	    "{\"rc\":0,\"status\":\"streamed 3\",\"data\":"
	    "[\"xxxx\",\"xxxx\",\"xxxx\"]}");
	free(p);

	raw_send(fd, FRAME_REQUEST, 2,
	    "{\"prefix\":\"stream\",\"count\":50,"
	    "\"size\":100000}");
	obj = raw_recv_parts(fd, 2, &frames);
	cr_assert_geq(frames, 40, "%d frames", frames);
	cr_assert_eq(json_integer_value(json_object_get(obj, "rc")), 0);
	cr_assert_str_eq(json_string_value(json_object_get(obj, "status")),
	    "streamed 50");
	expect_stream_data(json_object_get(obj, "data"), 50, 100000);
	json_decref(obj);
	close(fd);

	/* Without the feature: 2.5 MB whole, 5 MB refused (the cap is 4). */
	old = fd = raw_connect(ts->port);
	raw_hello(fd);
	raw_send(fd, FRAME_REQUEST, 3,
	    "{\"prefix\":\"stream\",\"count\":25,"
	    "\"size\":100000}");
	obj = raw_recv(fd, &h);
	cr_assert_not_null(obj);
	cr_assert_eq(h.flags, 0);
	cr_assert_eq(h.id, 3);
	expect_stream_data(json_object_get(obj, "data"), 25, 100000);
	json_decref(obj);
	raw_send(fd, FRAME_REQUEST, 4,
	    "{\"prefix\":\"stream\",\"count\":50,"
	    "\"size\":100000}");
	raw_expect_reply(fd, 4, -EMSGSIZE, "max_client_output");
	cr_assert_eq(stat_of(ts, "stream_rc"), -EMSGSIZE);
	raw_send(fd, FRAME_REQUEST, 5, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 5, 0, "ok");
	close(old);
	cr_assert_eq(stat_of(ts, "stream_done"), 4);
	tsrv_stop(ts);
}

/*
 * A slow reader holds the server to about a part at a time; one that goes
 * mid-reply ends its stream (done, -ECONNRESET) and the server serves on.
 */
Test(net, stream_paced_to_a_slow_reader_and_ended_by_a_close)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct frame_header h;
	char *p;
	int fd, i, rcvbuf = 4096;
	int64_t end;
	json_int_t out0;

	out0 = stat_of(ts, "bytes_out");
	fd = raw_connect_buf(ts->port, rcvbuf);
	raw_hello_parts(fd);
	/* 64 MB in pieces of 64 KiB, to a reader that takes 5 parts. */
	raw_send(fd, FRAME_REQUEST, 1,
	    "{\"prefix\":\"stream\",\"count\":1000,"
	    "\"size\":65536}");
	for (i = 0; i < 5; i++) {
		p = raw_recv_text(fd, &h);
		cr_assert_not_null(p);
		cr_assert(h.flags & FRAME_FLAG_MORE);
		free(p);
		usleep(100000);
	}
	cr_assert_lt(stat_of(ts, "bytes_out") - out0, 16 * 1024 * 1024,
	    "%lld bytes queued for a reader that took 5 parts",
	    (long long)(stat_of(ts, "bytes_out") - out0));
	cr_assert_eq(stat_of(ts, "stream_live"), 1);
	close(fd);
	end = now_ms() + 5000;
	while (stat_of(ts, "stream_live") > 0 && now_ms() < end)
		usleep(10000);
	cr_assert_eq(stat_of(ts, "stream_live"), 0,
	    "the stream outlived "
	    "its connection");
	cr_assert_eq(stat_of(ts, "stream_rc"), -ECONNRESET);

	/* A reset, and a close before the first part, likewise. */
	fd = raw_connect(ts->port);
	raw_hello_parts(fd);
	raw_send(fd, FRAME_REQUEST, 1,
	    "{\"prefix\":\"stream\",\"count\":1000,"
	    "\"size\":65536}");
	p = raw_recv_text(fd, &h);
	free(p);
	raw_reset(fd);
	fd = raw_connect(ts->port);
	raw_hello_parts(fd);
	raw_send(fd, FRAME_REQUEST, 1,
	    "{\"prefix\":\"stream\",\"count\":1000,"
	    "\"size\":1,\"hold\":true}");
	usleep(50000);
	close(fd);
	end = now_ms() + 5000;
	while (stat_of(ts, "stream_done") < 3 && now_ms() < end)
		usleep(10000);
	cr_assert_eq(stat_of(ts, "stream_done"), 3);
	cr_assert_eq(stat_of(ts, "stream_live"), 0);
	echo_ok(ts);
	tsrv_stop(ts);
}

/*
 * server_end_streams (the daemon stops): a stream whose first part has not
 * gone is answered the rc; the connection of one cut short is closed once
 * its output is written.
 */
Test(net, end_streams_answers_or_closes)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct frame_header h;
	char *p;
	int a, b;
	json_t *data = NULL;
	char *status = NULL;

	a = raw_connect(ts->port);
	raw_hello_parts(a);
	raw_send(a, FRAME_REQUEST, 1,
	    "{\"prefix\":\"stream\",\"count\":1000,"
	    "\"size\":65536}");
	p = raw_recv_text(a, &h);
	cr_assert_not_null(p);
	cr_assert(h.flags & FRAME_FLAG_MORE);
	free(p);
	b = raw_connect(ts->port);
	raw_hello_parts(b);
	raw_send(b, FRAME_REQUEST, 1,
	    "{\"prefix\":\"stream\",\"count\":10,"
	    "\"size\":1,\"hold\":true}");
	usleep(50000);
	cr_assert_eq(
	    call(ts->addr, "{\"prefix\":\"endstreams\"}", &data, &status), 0);
	free(status);
	raw_expect_reply(b, 1, -ESHUTDOWN, "stopping");
	/* a: the rest of what was queued, then EOF, no final part. */
	while ((p = raw_recv_text(a, &h)) != NULL) {
		cr_assert(h.flags & FRAME_FLAG_MORE, "a last part came");
		free(p);
	}
	cr_assert_eq(stat_of(ts, "stream_done"), 2);
	cr_assert_eq(stat_of(ts, "stream_live"), 0);
	cr_assert_eq(stat_of(ts, "stream_rc"), -ESHUTDOWN);
	raw_send(b, FRAME_REQUEST, 2, "{\"prefix\":\"echo\"}");
	raw_expect_reply(b, 2, 0, "ok");
	close(a);
	close(b);
	tsrv_stop(ts);
}

/*
 * The write-stall bound (idle_timeout): a paced subscriber that reads
 * nothing never reaches max_client_output, and is cut once its socket has
 * taken nothing for idle_timeout; one that reads, even slowly, is not, and
 * nor is a quiet connection with nothing to send.
 */
Test(net, write_stall_cuts_a_non_reader)
{
	struct server_limits lim = default_limits;
	struct tsrv *ts;
	int stuck, slow, quiet, rcvbuf = 4096, seq;
	int64_t t0, end;
	char buf[65536];
	ssize_t n;
	size_t total = 0;

	lim.idle_timeout_ms = 400;
	ts = tsrv_start(&lim);
	stuck = raw_connect_buf(ts->port, rcvbuf);
	slow = raw_connect_buf(ts->port, rcvbuf);
	quiet = raw_connect(ts->port);
	raw_hello(stuck);
	raw_hello(slow);
	raw_hello(quiet);
	raw_send(quiet, FRAME_REQUEST, 1, "{\"prefix\":\"subscribe\"}");
	raw_expect_reply(quiet, 1, 0, "subscribed");
	raw_send(stuck, FRAME_REQUEST, 1,
	    "{\"prefix\":\"pace\",\"size\":65536,\"count\":100000}");
	raw_send(slow, FRAME_REQUEST, 1,
	    "{\"prefix\":\"pace\",\"size\":16384,\"count\":300}");
	raw_expect_reply(slow, 1, 0, "pacing");
	t0 = now_ms();

	/* slow reads a push every 10 ms: 4.9 MB, some 3 s. */
	for (seq = 1; seq <= 300; seq++) {
		pace_expect(slow, 1, seq);
		usleep(10000);
	}
	cr_assert_geq(now_ms() - t0, 1500);
	end = now_ms() + 5000;
	while (stat_of(ts, "closed_slow") < 1 && now_ms() < end)
		usleep(50000);
	cr_assert_eq(stat_of(ts, "closed_slow"), 1, "only the non-reader is "
	    "cut");
	cr_assert_eq(stat_of(ts, "pace_cut"), 0, "the non-reader was cut by "
	    "max_client_output, not the stall bound");
	/* stuck finds a reset after what the kernel held, not a hang. */
	while ((n = recv(stuck, buf, sizeof buf, 0)) > 0)
		total += (size_t)n;
	cr_assert(n == -1 && errno == ECONNRESET, "recv: %s",
	    n == 0 ? "EOF" : strerror(errno));
	/* The others are still served; the quiet subscriber was spared. */
	raw_send(slow, FRAME_REQUEST, 2, "{\"prefix\":\"echo\"}");
	raw_expect_reply(slow, 2, 0, "ok");
	raw_expect_pushes(quiet, 3);
	raw_send(quiet, FRAME_REQUEST, 2, "{\"prefix\":\"echo\"}");
	raw_expect_reply(quiet, 2, 0, "ok");
	echo_ok(ts);
	cr_assert_eq(stat_of(ts, "closed_idle"), 0);
	close(stuck);
	close(slow);
	close(quiet);
	tsrv_stop(ts);
}

/* A frame {"prefix":"fail","pad":"xx.."} of len payload bytes, id id. */
static uint8_t *
big_frame(uint64_t id, size_t len, size_t *flen)
{
	uint8_t *f = xmalloc(FRAME_HEADER_SIZE + len);
	const char *head = "{\"prefix\":\"fail\",\"pad\":\"";
	size_t hl = strlen(head);

	cr_assert_gt(len, hl + 2);
	frame_encode_header(f, FRAME_REQUEST, (uint32_t)len, id);
	memcpy(f + FRAME_HEADER_SIZE, head, hl);
	memset(f + FRAME_HEADER_SIZE + hl, 'x', len - hl - 2);
	memcpy(f + FRAME_HEADER_SIZE + len - 2, "\"}", 2);
	*flen = FRAME_HEADER_SIZE + len;
	return f;
}

struct halfsend {
	pthread_t thread;
	int fd;
	uint8_t *frame;
	size_t len, first;
	atomic_int *go;
};

/* Send the first part of a frame, wait for the word, send the rest. */
static void *
halfsend_main(void *arg)
{
	struct halfsend *hs = arg;

	raw_write(hs->fd, hs->frame, hs->first);
	while (!atomic_load(hs->go))
		usleep(5000);
	raw_write(hs->fd, hs->frame + hs->first, hs->len - hs->first);
	return NULL;
}

/*
 * max_partial_input: six clients each send half of a 600 KB frame against
 * a budget of two such frames.  Two are granted and read on, the others
 * stop being read with at most one read (256 KiB) held each, while a
 * client sending whole frames is still served; once the frames are sent
 * in full every one completes, the waiting granted as others finish.
 */
Test(net, partial_input_budget_is_shared)
{
	struct server_limits lim = default_limits;
	struct halfsend hs[6];
	atomic_int go = 0;
	struct tsrv *ts;
	int64_t t0;
	size_t i, n = 6, budget = 2 * (600 * 1024 + FRAME_HEADER_SIZE);

	lim.max_frame = 1024 * 1024;
	lim.max_partial_input = budget;
	ts = tsrv_start(&lim);
	for (i = 0; i < n; i++) {
		hs[i].fd = raw_connect(ts->port);
		raw_hello(hs[i].fd);
		hs[i].frame = big_frame(10 + i, 600 * 1024, &hs[i].len);
		hs[i].first = hs[i].len / 2;
		hs[i].go = &go;
		cr_assert_eq(pthread_create(&hs[i].thread, NULL, halfsend_main,
		    &hs[i]), 0);
	}
	t0 = now_ms();
	while (stat_of(ts, "partial_paused") < (json_int_t)n - 2 &&
	    now_ms() - t0 < 5000)
		usleep(20000);
	usleep(200000);
	cr_assert_eq(stat_of(ts, "partial_paused"), n - 2, "%lld connections "
	    "waited", (long long)stat_of(ts, "partial_paused"));
	cr_assert_eq(stat_of(ts, "partial_granted"), (json_int_t)budget);
	cr_assert_leq(stat_of(ts, "partial_bytes"), (json_int_t)(budget +
	    n * 256 * 1024), "%lld bytes of partial frames held",
	    (long long)stat_of(ts, "partial_bytes"));
	/* Two granted halves, and no more than a read from each other one. */
	cr_assert_leq(stat_of(ts, "partial_bytes"), (json_int_t)(2 *
	    hs[0].first + (n - 2) * 256 * 1024));
	/* Whole frames still go through, at once. */
	t0 = now_ms();
	echo_ok(ts);
	cr_assert_lt(now_ms() - t0, 1000);

	atomic_store(&go, 1);
	for (i = 0; i < n; i++) {
		pthread_join(hs[i].thread, NULL);
		raw_expect_reply(hs[i].fd, 10 + i, -ENOENT, "no such thing");
		free(hs[i].frame);
	}
	cr_assert_eq(stat_of(ts, "partial_bytes"), 0);
	cr_assert_eq(stat_of(ts, "partial_granted"), 0);
	cr_assert_eq(stat_of(ts, "closed_idle"), 0);
	for (i = 0; i < n; i++)
		close(hs[i].fd);
	tsrv_stop(ts);
}

/*
 * A client that sends part of a 600 KB frame and stops holds its grant for
 * at most idle_timeout, subscriber or not: then it is cut and the client
 * waiting behind it goes on.  (Frames of up to 256 KiB need no grant.)
 */
Test(net, partial_input_holder_is_cut)
{
	struct server_limits lim = default_limits;
	struct halfsend hs;
	atomic_int go = 0;
	struct tsrv *ts;
	uint8_t *f;
	size_t flen;
	int stuck;
	int64_t t0;

	lim.max_frame = 1024 * 1024;
	lim.max_partial_input = 1024 * 1024 + FRAME_HEADER_SIZE;
	lim.idle_timeout_ms = 400;
	ts = tsrv_start(&lim);
	stuck = raw_connect(ts->port);
	raw_hello(stuck);
	raw_send(stuck, FRAME_REQUEST, 1, "{\"prefix\":\"subscribe\"}");
	raw_expect_reply(stuck, 1, 0, "subscribed");
	f = big_frame(2, 600 * 1024, &flen);
	raw_write(stuck, f, 1000);
	free(f);
	t0 = now_ms();
	while (stat_of(ts, "partial_granted") == 0 && now_ms() - t0 < 5000)
		usleep(10000);
	cr_assert_eq(stat_of(ts, "partial_granted"), 600 * 1024 +
	    FRAME_HEADER_SIZE);

	hs.fd = raw_connect(ts->port);
	raw_hello(hs.fd);
	hs.frame = big_frame(3, 600 * 1024, &hs.len);
	hs.first = 2000;
	hs.go = &go;
	atomic_store(&go, 1);
	cr_assert_eq(pthread_create(&hs.thread, NULL, halfsend_main, &hs), 0);
	pthread_join(hs.thread, NULL);
	/* It waits behind the stuck one, then goes on when that is cut. */
	raw_expect_reply(hs.fd, 3, -ENOENT, "no such thing");
	cr_assert_geq(now_ms() - t0, 300, "no wait behind the grant");
	cr_assert_geq(stat_of(ts, "partial_paused"), 1);
	cr_assert_eq(stat_of(ts, "closed_idle"), 1);
	raw_expect_eof(stuck);
	cr_assert_eq(stat_of(ts, "partial_granted"), 0);
	cr_assert_eq(stat_of(ts, "partial_bytes"), 0);
	free(hs.frame);
	close(hs.fd);
	close(stuck);
	tsrv_stop(ts);
}

/* A client that pipelines without reading is throttled, not cut. */
Test(net, pipelining_client_is_throttled)
{
	struct server_limits lim = default_limits;
	struct tsrv *ts;
	char payload[2048];
	int fd, i, n = 4000;
	uint8_t hdr[FRAME_HEADER_SIZE];
	size_t len;

	lim.max_client_output = 256 * 1024;
	ts = tsrv_start(&lim);
	fd = raw_connect(ts->port);
	raw_hello(fd);
	len = (size_t)snprintf(payload, sizeof payload,
	    "{\"prefix\":\"echo\",\"pad\":\"%01500d\"}", 0);
	/* ~6 MB of replies asked for before reading any: a writer thread. */
	{
		pid_t pid = fork();

		cr_assert_neq(pid, -1);
		if (pid == 0) {
			for (i = 0; i < n; i++) {
				frame_encode_header(hdr, FRAME_REQUEST,
				    (uint32_t)len, (uint64_t)i + 1);
				if (send(fd, hdr, sizeof hdr, MSG_NOSIGNAL) !=
				    (ssize_t)sizeof hdr ||
				    send(fd, payload, len, MSG_NOSIGNAL) !=
				    (ssize_t)len)
					_exit(1);
			}
			_exit(0);
		}
		usleep(500000);
		for (i = 0; i < n; i++) {
			struct frame_header h;
			json_t *o = raw_recv(fd, &h);

			cr_assert_not_null(o, "reply %d missing", i);
			cr_assert_eq(h.id, (uint64_t)i + 1);
			json_decref(o);
		}
		waitpid(pid, NULL, 0);
	}
	cr_assert_eq(stat_of(ts, "closed_slow"), 0);
	close(fd);
	tsrv_stop(ts);
}

static int
count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the DIR's own */
}

/* CPU time of a process in ms, from /proc/PID/stat. */
static long
cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	if (fgets(buf, sizeof buf, f) == NULL) {
		fclose(f);
		return -1;
	}
	fclose(f);
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
	    &ut, &st) != 2)
		return -1;
	return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/*
 * Out of descriptors: the server runs in a child whose RLIMIT_NOFILE is
 * low; this process (with the normal limit) opens more connections than it
 * can take.  The server must refuse the excess without spinning on the
 * listener, and answer again once descriptors are free.
 */
Test(net, emfile_accept_survives)
{
	int pfd[2], fds[60], i, got_hello = 0, got_eof = 0, other = 0, rc;
	uint16_t port;
	char addr[32], *status;
	json_t *data;
	pid_t pid;
	long cpu0, cpu1;
	int64_t t0, t1;

	cr_assert_eq(pipe(pfd), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct tsrv *ts;
		struct rlimit rl;

		close(pfd[0]);
		/* Never outlive the test, whatever it asserts. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ts = tsrv_start(NULL);
		rl.rlim_cur = rl.rlim_max = (rlim_t)count_open_fds() + 20;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			_exit(2);
		if (write(pfd[1], &ts->port, sizeof ts->port) !=
		    sizeof ts->port)
			_exit(3);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	cr_assert_eq(read(pfd[0], &port, sizeof port), sizeof port);
	close(pfd[0]);
	snprintf(addr, sizeof addr, "127.0.0.1:%u", port);

	cpu0 = cpu_ms(pid);
	t0 = now_ms();
	for (i = 0; i < 60; i++) {
		uint8_t hello[FRAME_HEADER_SIZE + 14];

		fds[i] = raw_connect(port);
		/*
		 * A refused connection may be closed before its HELLO is
		 * sent: EPIPE or a reset here is that refusal, and the poll
		 * below counts it.
		 */
		frame_encode_header(hello, FRAME_HELLO, 14, 0);
		memcpy(hello + FRAME_HEADER_SIZE, "{\"protocol\":1}", 14);
		if (send(fds[i], hello, sizeof hello, MSG_NOSIGNAL) !=
		    (ssize_t)sizeof hello)
			cr_assert(errno == EPIPE || errno == ECONNRESET,
			    "send: %s", strerror(errno));
	}
	/*
	 * Watch all of them for 4 s: served ones get a HELLO, refused ones
	 * EOF or a reset, the rest wait in the backlog (a refusal a second).
	 */
	{
		struct pollfd pfds[60];
		int left = 60, k;

		for (i = 0; i < 60; i++) {
			pfds[i].fd = fds[i];
			pfds[i].events = POLLIN;
		}
		while (left > 0 && now_ms() - t0 < 4000) {
			k = poll(pfds, 60, 100);
			for (i = 0; k > 0 && i < 60; i++) {
				uint8_t hdr[FRAME_HEADER_SIZE];

				if (pfds[i].fd == -1 || pfds[i].revents == 0)
					continue;
				rc = raw_read_n(fds[i], hdr, sizeof hdr);
				if (rc == 1 && hdr[4] == FRAME_HELLO)
					got_hello++;
				else
					got_eof++;
				pfds[i].fd = -1;
				left--;
			}
		}
		other = left; /* still waiting in the backlog */
	}
	t1 = now_ms();
	cpu1 = cpu_ms(pid);
	cr_assert_gt(got_hello, 5, "some connections are served");
	cr_assert_lt(got_hello, 40, "the limit did bite (%d served)",
	    got_hello);
	cr_assert_gt(got_eof, 0, "no excess connection was refused (%d "
	    "served, %d waiting)", got_hello, other);
	/* Paused, not spinning on a listener it cannot accept from. */
	cr_assert_lt(cpu1 - cpu0, (t1 - t0) / 2 + 50,
	    "server used %ld ms of CPU in %lld ms", cpu1 - cpu0,
	    (long long)(t1 - t0));

	for (i = 0; i < 60; i++)
		close(fds[i]);
	/* Descriptors are free again: served again. */
	rc = -1;
	for (i = 0; i < 40 && rc != 0; i++) {
		json_t *cmd = json_pack("{s:s}", "prefix", "echo");

		rc = mclient_call(addr, 2000, cmd, &data, &status);
		json_decref(cmd);
		json_decref(data);
		free(status);
		if (rc != 0)
			usleep(250000);
	}
	cr_assert_eq(rc, 0, "the server answers after the shortage");
	{
		json_t *cmd = json_pack("{s:s}", "prefix", "stats");

		rc = mclient_call(addr, 2000, cmd, &data, &status);
		json_decref(cmd);
		cr_assert_eq(rc, 0);
		cr_assert_geq(json_integer_value(json_object_get(data,
		    "rejected")), 1);
		json_decref(data);
		free(status);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

Test(net, thousand_idle_connections)
{
	struct tsrv *ts;
	struct rlimit rl;
	int *fds, i, n = 1000;
	int64_t t0, worst = 0;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < 2 * (rlim_t)n + 100) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur < 2 * (rlim_t)n + 100)
		n = (int)(rl.rlim_cur - 100) / 2;
	cr_log_info("%d idle connections (RLIMIT_NOFILE %llu)", n,
	    (unsigned long long)rl.rlim_cur);
	cr_assert_geq(n, 200, "cannot raise RLIMIT_NOFILE enough to test");
	ts = tsrv_start(NULL);
	fds = xcalloc((size_t)n, sizeof *fds);
	for (i = 0; i < n; i++) {
		fds[i] = raw_connect(ts->port);
		/* Every tenth does not even say hello. */
		if (i % 10 != 0)
			raw_send(fds[i], FRAME_HELLO, 0, "{\"protocol\":1}");
		if (i % 100 == 0) {
			t0 = now_ms();
			echo_ok(ts);
			if (now_ms() - t0 > worst)
				worst = now_ms() - t0;
		}
	}
	for (i = 0; i < 20; i++) {
		t0 = now_ms();
		echo_ok(ts);
		if (now_ms() - t0 > worst)
			worst = now_ms() - t0;
	}
	cr_assert_lt(worst, 500, "a call took %lld ms", (long long)worst);
	cr_assert_eq(stat_of(ts, "connections"), n + 1);
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	tsrv_stop(ts);
}

/* SIGHUP: new limits apply to connections already open. */
Test(net, limits_change_at_run_time)
{
	struct tsrv *ts = tsrv_start(NULL);
	int a = raw_connect(ts->port), b = raw_connect(ts->port);
	char big[200];
	int64_t t0;

	raw_hello(a);
	raw_hello(b);
	memset(big, 0, sizeof big);
	snprintf(big, sizeof big, "{\"prefix\":\"echo\",\"pad\":\"%0150d\"}",
	    0);
	raw_send(a, FRAME_REQUEST, 1, big);
	raw_expect_reply(a, 1, 0, "ok");
	raw_send(b, FRAME_REQUEST, 1, "{\"prefix\":\"limits\","
	    "\"max_frame\":100,\"idle_timeout_ms\":200}");
	raw_expect_reply(b, 1, 0, "limits set");
	t0 = now_ms();
	raw_send(a, FRAME_REQUEST, 2, big);
	raw_expect_reply(a, 2, -EMSGSIZE, "limit of 100 bytes");
	raw_expect_eof(a);
	/* b now falls under the new idle timeout. */
	raw_expect_eof(b);
	cr_assert_geq(now_ms() - t0, 150);
	close(a);
	close(b);
	tsrv_stop(ts);
}

Test(net, stop_accepting_keeps_connections)
{
	struct tsrv *ts = tsrv_start(NULL);
	int fd = raw_connect(ts->port), rc;
	json_t *data;
	char *status;

	raw_hello(fd);
	raw_send(fd, FRAME_REQUEST, 1, "{\"prefix\":\"stop\"}");
	raw_expect_reply(fd, 1, 0, "stopped");
	rc = call(ts->addr, "{\"prefix\":\"echo\"}", &data, &status);
	cr_assert_eq(rc, -ECONNREFUSED, "rc %d %s", rc, status);
	free(status);
	raw_send(fd, FRAME_REQUEST, 2, "{\"prefix\":\"echo\"}");
	raw_expect_reply(fd, 2, 0, "ok");
	close(fd);
	tsrv_stop(ts);
}

Test(net, listen_on_a_used_port_names_it)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct event_base *base = event_base_new();
	struct server *srv;
	char *cause = NULL, want[64];

	srv = server_new(base, "127.0.0.1", ts->port, &default_limits,
	    &tsrv_ops, NULL, &cause);
	cr_assert_null(srv);
	snprintf(want, sizeof want, "127.0.0.1:%u", ts->port);
	cr_assert_not_null(strstr(cause, want), "%s", cause);
	cr_assert_not_null(strstr(cause, "in use"), "%s", cause);
	free(cause);
	event_base_free(base);
	tsrv_stop(ts);
}

/* ------------------------------------------------------------- client */

Test(client, connect_refused)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	char addr[32], *status;
	json_t *data, *cmd;
	int fd, rc;

	/* A bound port nobody listens on. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	snprintf(addr, sizeof addr, "127.0.0.1:%u", ntohs(sin.sin_port));
	cmd = json_pack("{s:s}", "prefix", "status");
	rc = mclient_call(addr, 2000, cmd, &data, &status);
	cr_assert_eq(rc, -ECONNREFUSED, "rc %d: %s", rc, status);
	cr_assert_null(data);
	cr_assert_not_null(strstr(status, addr), "%s", status);
	free(status);
	json_decref(cmd);
	close(fd);
}

Test(client, timeout_when_hello_unanswered)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	char addr[32], *status;
	json_t *data, *cmd;
	int fd, rc;
	int64_t t0, dt;

	/* Listens (the kernel completes connections) but never answers. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	cr_assert_eq(listen(fd, 8), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	snprintf(addr, sizeof addr, "127.0.0.1:%u", ntohs(sin.sin_port));
	cmd = json_pack("{s:s}", "prefix", "status");
	t0 = now_ms();
	rc = mclient_call(addr, 300, cmd, &data, &status);
	dt = now_ms() - t0;
	cr_assert_eq(rc, -ETIMEDOUT, "rc %d: %s", rc, status);
	cr_assert_geq(dt, 250);
	cr_assert_lt(dt, 2000);
	free(status);
	json_decref(cmd);
	close(fd);
}

struct fake {
	int lfd;
};

/* Accept one connection, read a little, close. */
static void *
fake_server(void *arg)
{
	struct fake *f = arg;
	char buf[256];
	int fd;

	fd = accept(f->lfd, NULL, NULL);
	if (fd != -1) {
		(void)!recv(fd, buf, sizeof buf, 0);
		usleep(50000);
		close(fd);
	}
	return NULL;
}

struct errst {
	atomic_int n;
	int req_rc, err;
};

static void
err_req_cb(void *arg, int rc, const char *status mapmon_unused,
    json_t *data mapmon_unused)
{
	struct errst *e = arg;

	e->req_rc = rc;
	atomic_fetch_add(&e->n, 1);
}

static void
err_cb(void *arg, int err, const char *msg mapmon_unused)
{
	struct errst *e = arg;

	e->err = err;
	atomic_fetch_add(&e->n, 1);
}

Test(client, closed_connection_fails_pending)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	struct fake f;
	pthread_t th;
	struct event_base *base = event_base_new();
	struct mclient *cl;
	struct errst e = {0};
	char addr[32];
	json_t *cmd;

	f.lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(f.lfd, (struct sockaddr *)&sin, sizeof sin), 0);
	cr_assert_eq(listen(f.lfd, 8), 0);
	cr_assert_eq(getsockname(f.lfd, (struct sockaddr *)&sin, &len), 0);
	snprintf(addr, sizeof addr, "127.0.0.1:%u", ntohs(sin.sin_port));
	pthread_create(&th, NULL, fake_server, &f);

	cl = mclient_new(base, addr, 5000, NULL, err_cb, &e);
	cmd = json_pack("{s:s}", "prefix", "status");
	cr_assert_eq(mclient_request(cl, cmd, err_req_cb, &e), 0);
	json_decref(cmd);
	cr_assert_eq(run_until(base, &e.n, 2, 5000), 2);
	cr_assert_eq(e.req_rc, -ECONNRESET);
	cr_assert_eq(e.err, -ECONNRESET);
	/* Dead: new requests are refused at once. */
	cmd = json_pack("{s:s}", "prefix", "status");
	cr_assert_eq(mclient_request(cl, cmd, err_req_cb, &e), -1);
	json_decref(cmd);
	mclient_free(cl);
	pthread_join(th, NULL);
	close(f.lfd);
	event_base_free(base);
}

static void
free_in_cb(void *arg, int rc mapmon_unused, const char *status mapmon_unused,
    json_t *data mapmon_unused)
{
	struct mclient **clp = arg;

	mclient_free(*clp);
	*clp = NULL;
}

Test(client, free_from_a_callback)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct event_base *base = event_base_new();
	struct mclient *cl;
	struct errst e = {0};
	json_t *cmd;
	int i;

	cl = mclient_new(base, ts->addr, 5000, NULL, NULL, NULL);
	cmd = json_pack("{s:s}", "prefix", "echo");
	cr_assert_eq(mclient_request(cl, cmd, free_in_cb, &cl), 0);
	/* These are cancelled when the first reply frees the client. */
	for (i = 0; i < 3; i++)
		cr_assert_eq(mclient_request(cl, cmd, err_req_cb, &e), 0);
	json_decref(cmd);
	{
		int64_t end = now_ms() + 5000;
		struct timeval tv = {0, 10000};

		while (cl != NULL && now_ms() < end) {
			event_base_loopexit(base, &tv);
			event_base_dispatch(base);
		}
	}
	cr_assert_null(cl);
	cr_assert_eq(atomic_load(&e.n), 3);
	cr_assert_eq(e.req_rc, -ECANCELED);
	event_base_free(base);
	tsrv_stop(ts);
}

static void
no_push(void *arg mapmon_unused, json_t *push mapmon_unused)
{
}

/*
 * A subscription's reply callback that frees the client: the request kept
 * for the pushes is freed with it, and not read after (ASan).
 */
Test(client, free_from_a_subscription_reply)
{
	struct tsrv *ts = tsrv_start(NULL);
	struct event_base *base = event_base_new();
	struct mclient *cl;
	json_t *cmd;
	int64_t end = now_ms() + 5000;
	struct timeval tv = { 0, 10000 };

	cl = mclient_new(base, ts->addr, 5000, NULL, NULL, NULL);
	cmd = json_pack("{s:s}", "prefix", "subscribe");
	cr_assert_eq(mclient_subscribe(cl, cmd, no_push, free_in_cb, &cl), 0);
	json_decref(cmd);
	while (cl != NULL && now_ms() < end) {
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	cr_assert_null(cl, "the reply did not come");
	event_base_free(base);
	tsrv_stop(ts);
}

/*
 * A server that answers the HELLO, reads nreq requests and then sends the
 * frames of its script, and holds the connection until the client closes.
 */
struct script_frame {
	uint8_t flags;
	uint64_t id;
	const char *text;
};

struct script {
	int lfd;
	uint16_t port;
	int nreq;
	const struct script_frame *f;
	size_t n;
	char *hello; /* the client's */
};

static void
script_send(int fd, uint8_t type, uint8_t flags, uint64_t id, const char *text)
{
	uint8_t hdr[FRAME_HEADER_SIZE];

	frame_encode_header_flags(hdr, type, flags, (uint32_t)strlen(text), id);
	raw_write(fd, hdr, sizeof hdr);
	raw_write(fd, text, strlen(text));
}

static void *
script_server(void *arg)
{
	struct script *sc = arg;
	struct frame_header h;
	char buf[256];
	size_t i;
	int fd, k;

	if ((fd = accept(sc->lfd, NULL, NULL)) == -1)
		return NULL;
	sc->hello = raw_recv_text(fd, &h);
	script_send(fd, FRAME_HELLO, 0, 0, "{\"protocol\":1}");
	for (k = 0; k < sc->nreq; k++)
		free(raw_recv_text(fd, &h));
	for (i = 0; i < sc->n; i++)
		script_send(fd, FRAME_REPLY, sc->f[i].flags, sc->f[i].id,
		    sc->f[i].text);
	while (recv(fd, buf, sizeof buf, 0) > 0)
		;
	close(fd);
	return NULL;
}

static void
script_start(struct script *sc, pthread_t *th)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;

	sc->lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(sc->lfd, (struct sockaddr *)&sin, sizeof sin), 0);
	cr_assert_eq(listen(sc->lfd, 8), 0);
	cr_assert_eq(getsockname(sc->lfd, (struct sockaddr *)&sin, &len), 0);
	sc->port = ntohs(sin.sin_port);
	pthread_create(th, NULL, script_server, sc);
}

struct got {
	atomic_int n;
	int rc;
	char status[64];
	json_t *data;
};

static void
got_cb(void *arg, int rc, const char *status, json_t *data)
{
	struct got *g = arg;

	g->rc = rc;
	snprintf(g->status, sizeof g->status, "%s", status ? status : "");
	g->data = json_incref(data);
	atomic_fetch_add(&g->n, 1);
}

/*
 * The library offers parts in its HELLO and gathers a reply's parts,
 * whatever comes between them, into the one reply its callback gets.
 */
Test(client, gathers_a_reply_in_parts)
{
	static const struct script_frame f[] = {
		{ FRAME_FLAG_MORE, 1, "{\"rc\":0,\"da" },
		{ 0, 2, "{\"rc\":-2,\"status\":\"two\",\"data\":null}" },
		{ FRAME_FLAG_MORE, 1, "ta\":{\"n\":[1," },
		{ 0, 1, "2]},\"status\":\"one\"}" },
	};
	struct script sc = { .nreq = 2, .f = f, .n = nitems(f) };
	struct event_base *base = event_base_new();
	struct got one = { 0 }, two = { 0 };
	struct mclient *cl;
	pthread_t th;
	char addr[32];
	json_t *cmd, *hello;

	script_start(&sc, &th);
	snprintf(addr, sizeof addr, "127.0.0.1:%u", sc.port);
	cl = mclient_new(base, addr, 5000, NULL, NULL, NULL);
	cmd = json_pack("{s:s}", "prefix", "x");
	cr_assert_eq(mclient_request(cl, cmd, got_cb, &one), 0);
	cr_assert_eq(mclient_request(cl, cmd, got_cb, &two), 0);
	json_decref(cmd);
	cr_assert_eq(run_until(base, &one.n, 1, 5000), 1);
	cr_assert_eq(two.n, 1, "the reply between the parts");
	cr_assert_eq(two.rc, -ENOENT);
	cr_assert_eq(one.rc, 0);
	cr_assert_str_eq(one.status, "one");
	cr_assert_eq(json_integer_value(
			 json_array_get(json_object_get(one.data, "n"), 1)),
	    2);
	json_decref(one.data);
	cr_assert_eq(mclient_pending(cl), 0);
	mclient_free(cl);
	event_base_free(base); /* which closes the socket */
	pthread_join(th, NULL);
	hello = json_loads(sc.hello, 0, NULL);
	cr_assert_str_eq(json_string_value(json_array_get(
			     json_object_get(hello, "features"), 0)),
	    FRAME_FEATURE_PARTS);
	json_decref(hello);
	free(sc.hello);
	close(sc.lfd);
}

/* A part of a reply to no request is not the protocol. */
Test(client, refuses_a_part_of_no_request)
{
	static const struct script_frame f[] = {
		{ FRAME_FLAG_MORE, 99, "{\"rc\":0,\"data\":" },
	};
	struct script sc = { .nreq = 1, .f = f, .n = nitems(f) };
	struct event_base *base = event_base_new();
	struct errst e = { 0 };
	struct mclient *cl;
	pthread_t th;
	char addr[32];
	json_t *cmd;

	script_start(&sc, &th);
	snprintf(addr, sizeof addr, "127.0.0.1:%u", sc.port);
	cl = mclient_new(base, addr, 5000, NULL, err_cb, &e);
	cmd = json_pack("{s:s}", "prefix", "x");
	cr_assert_eq(mclient_request(cl, cmd, err_req_cb, &e), 0);
	json_decref(cmd);
	cr_assert_eq(run_until(base, &e.n, 2, 5000), 2);
	cr_assert_eq(e.req_rc, -EPROTO);
	cr_assert_eq(e.err, -EPROTO);
	mclient_free(cl);
	event_base_free(base);
	pthread_join(th, NULL);
	free(sc.hello);
	close(sc.lfd);
}

Test(client, bad_address_reported)
{
	json_t *cmd = json_pack("{s:s}", "prefix", "status"), *data;
	char *status;
	int rc;

	rc = mclient_call("127.0.0.1:99999", 1000, cmd, &data, &status);
	cr_assert_eq(rc, -EINVAL);
	cr_assert_not_null(strstr(status, "99999"), "%s", status);
	free(status);
	json_decref(cmd);
}

/* A list of monitors for a hunting session (net/hunt.h). */
Test(client, hunt_parse_lists)
{
	char **a, *cause = NULL;
	size_t n, i;

	cr_assert_eq(hunt_parse("a=127.0.0.1:1,b=127.0.0.1:3 127.0.0.1:5", &a,
			 &n, &cause),
	    0, "%s", cause);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(a[0], "127.0.0.1:1");
	cr_assert_str_eq(a[1], "127.0.0.1:3");
	cr_assert_str_eq(a[2], "127.0.0.1:5");
	for (i = 0; i < n; i++)
		free(a[i]);
	free(a);
	cr_assert_eq(hunt_parse(" , ", &a, &n, &cause), -1);
	cr_assert_not_null(strstr(cause, "no monitor address"), "%s", cause);
	free(cause);
	cause = NULL;
	cr_assert_eq(hunt_parse("127.0.0.1:1,host:65536", &a, &n, &cause), -1);
	cr_assert_not_null(strstr(cause, "65536"), "%s", cause);
	cr_assert_null(a);
	cr_assert_eq(n, 0);
	free(cause);
}

Test(client, parse_addr)
{
	static const struct {
		const char *in, *host;
		int port;
	} ok[] = {
		{"127.0.0.1:6788", "127.0.0.1", 6788},
		{"127.0.0.1", "127.0.0.1", 6788},
		{"localhost", "localhost", 6788},
		{"localhost:1", "localhost", 1},
		{"[::1]:6790", "::1", 6790},
		{"[::1]", "::1", 6788},
		{"::1", "::1", 6788},
		{"fe80::1:2", "fe80::1:2", 6788},
		{"mon.example:0", "mon.example", 0},
	};
	static const char *bad[] = {
		"", ":6788", "[::1", "[::1]x", "[]:1", "host:", "host:65536",
		"host:-1", "host:12a", "host: 1", "[::1]:",
	};
	char *host, *cause;
	uint16_t port;
	size_t i;

	for (i = 0; i < nitems(ok); i++) {
		cause = NULL;
		cr_assert_eq(mclient_parse_addr(ok[i].in, &host, &port,
		    &cause), 0, "%s: %s", ok[i].in, cause);
		cr_assert_str_eq(host, ok[i].host);
		cr_assert_eq(port, ok[i].port, "%s", ok[i].in);
		free(host);
	}
	for (i = 0; i < nitems(bad); i++) {
		cause = NULL;
		cr_assert_eq(mclient_parse_addr(bad[i], &host, &port, &cause),
		    -1, "'%s' accepted", bad[i]);
		cr_assert_not_null(cause);
		free(cause);
	}
	cr_assert_eq(mclient_parse_addr(NULL, &host, &port, &cause), -1);
	free(cause);
}
