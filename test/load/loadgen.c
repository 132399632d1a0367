/*
 * loadgen.c: hostile and heavy clients for the load test (test/load/
 * load.sh, RELIABILITY.md): each subcommand is one kind of client, run as its own
 * process next to the others.
 *
 *	loadgen conns -m ADDR -n N -t SECONDS
 *		N connections at once (client library), each says HELLO and
 *		asks `status` once at the start and once half way through;
 *		all are held open until the end.  Exit 0 when every one
 *		connected and every request was answered with rc 0.
 *	loadgen slowloris -m ADDR -n N -t SECONDS
 *		N raw connections sending one byte per second each: half
 *		dribble their HELLO and then a request declaring a 1 MiB
 *		payload, half send the HELLO at once and dribble the
 *		request.  Reports how many the server still holds at the
 *		end.  Exit 0 unless nothing could connect.
 *	loadgen noread -m ADDR -t SECONDS
 *		a subscriber (pgmap, osdmap and log, from the start) that
 *		never reads, with a small receive buffer; after SECONDS it
 *		drains its socket.  Exit 0 when the server had cut it (EOF
 *		or reset after the buffered bytes), 1 when data still flows.
 *	loadgen reader -m ADDR -t SECONDS
 *		a pgmap subscriber that reads everything (a raw socket,
 *		pushes scanned, not parsed, so that it keeps up): the
 *		snapshot, then one push per commit.  Exit 0 when the
 *		snapshot came whole ("last"), the commits' pushes came with
 *		consecutive versions (none lost) and the connection lasted.
 *	loadgen garbage -m ADDR -b BYTES[K|M|G] [-c CONNECTIONS] [-t SECONDS]
 *		sends BYTES of garbage in 1 MiB bursts, each on a fresh
 *		connection, from CONNECTIONS threads at once, spread over
 *		SECONDS (default: as fast as it goes): random bytes;
 *		a HELLO and then requests with random payloads; a HELLO and
 *		a header declaring 32 MiB then 1 MiB of it and a close; a
 *		HELLO and binary PG reports of random bytes.  Exit 0 when
 *		every byte was offered (a burst the server cut short counts:
 *		the server may close a connection whenever it sees garbage).
 *	loadgen probe -m ADDR -t SECONDS [-i INTERVAL_MS]
 *		one connection asking `status` every INTERVAL_MS (default 1),
 *		one at a time; prints the count and the p50, p99 and max
 *		latency in milliseconds.  Exit 0 when every request was
 *		answered with rc 0.
 *
 * Each prints one summary line on stdout, "KIND: key value, ...", which
 * load.sh reads.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "net/client.h"
#include "net/frame.h"
#include "test/lib/loadtool.h"

#define CONNECT_TIMEOUT_MS 20000
#define BURST (1024 * 1024)

static const char usage_text[] =
    "usage: loadgen conns -m ADDR -n N -t SECONDS\n"
    "       loadgen slowloris -m ADDR -n N -t SECONDS\n"
    "       loadgen noread -m ADDR -t SECONDS\n"
    "       loadgen reader -m ADDR -t SECONDS\n"
    "       loadgen garbage -m ADDR -b BYTES [-c CONNECTIONS] [-t SECONDS]\n"
    "       loadgen probe -m ADDR -t SECONDS [-i INTERVAL_MS]\n";
static const char *addr;
static char *host;
static uint16_t port;

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------------ */
/* Raw sockets. */

/* A blocking TCP connection to host:port, or -1. */
static int
raw_connect(int rcvbuf)
{
	struct sockaddr_in sin;
	int fd;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		return -1;
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Append a frame whose payload is the JSON text s. */
static void
raw_frame(struct enc_buf *b, uint8_t type, uint64_t id, const char *s)
{
	char *cause = NULL;

	if (frame_build(b, type, id, s, strlen(s), &cause) != 0) {
		loadtool_warnx("frame_build: %s", cause);
		free(cause);
	}
}

static const char hello_json[] = "{\"protocol\":1,\"name\":\"client.load\","
    "\"features\":[]}";

/* Send all of p, or -1 (the server closed or reset the connection). */
static int
raw_send(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;
	ssize_t n;

	while (len > 0) {
		if ((n = send(fd, b, len, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read and drop whatever is readable now; -1 on EOF or error. */
static int
raw_discard(int fd)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n > 0)
			continue;
		if (n == 0)
			return -1;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

/* Read and drop until EOF, an error or timeout_ms of silence. */
static void
raw_drain(int fd, int timeout_ms)
{
	struct pollfd pfd;
	char buf[65536];
	ssize_t n;

	for (;;) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return;
		n = recv(fd, buf, sizeof buf, 0);
		if (n == 0 || (n == -1 && errno != EINTR))
			return;
	}
}

/* ------------------------------------------------------------------ */
/* conns */

struct conns {
	struct event_base *base;
	struct mclient **c;
	int n, ready, errors, failed_connect;
	uint64_t replies;
};

static void
conns_reply(void *arg, int rc, const char *status, mapmon_unused json_t *data)
{
	struct conns *cs = arg;

	if (rc == 0)
		cs->replies++;
	else if (rc != -ECANCELED) {
		if (cs->errors++ < 5)
			loadtool_warnx("status: rc %d: %s", rc, status);
	}
}

static void
conns_ready(void *arg, mapmon_unused json_t *hello)
{
	struct conns *cs = arg;

	cs->ready++;
}

static void
conns_error(void *arg, int err, const char *msg)
{
	struct conns *cs = arg;

	if (cs->failed_connect++ < 5)
		loadtool_warnx("connection: %d: %s", err, msg);
}

static void
conns_tick(mapmon_unused evutil_socket_t fd, mapmon_unused short ev,
    void *arg)
{
	struct conns *cs = arg;
	json_t *cmd = json_pack("{s:s}", "prefix", "status");
	int i;

	for (i = 0; i < cs->n; i++)
		if (mclient_ready(cs->c[i]))
			mclient_request(cs->c[i], cmd, conns_reply, cs);
	json_decref(cmd);
}

static void
stop_cb(mapmon_unused evutil_socket_t fd, mapmon_unused short ev, void *arg)
{
	event_base_loopbreak(arg);
}

static int
conns_main(int n, int seconds)
{
	struct conns cs;
	struct event *half, *stop;
	struct timeval tv;
	json_t *cmd;
	int i, alive = 0;

	memset(&cs, 0, sizeof cs);
	cs.n = n;
	cs.base = event_base_new();
	cs.c = xcalloc((size_t)n, sizeof *cs.c);
	cmd = json_pack("{s:s}", "prefix", "status");
	for (i = 0; i < n; i++) {
		cs.c[i] = mclient_new(cs.base, addr, CONNECT_TIMEOUT_MS,
		    conns_ready, conns_error, &cs);
		mclient_set_name(cs.c[i], "client.conns");
		/* Leaves after the HELLO. */
		mclient_request(cs.c[i], cmd, conns_reply, &cs);
	}
	json_decref(cmd);
	half = evtimer_new(cs.base, conns_tick, &cs);
	tv.tv_sec = seconds / 2;
	tv.tv_usec = (seconds % 2) * 500000;
	evtimer_add(half, &tv);
	stop = evtimer_new(cs.base, stop_cb, cs.base);
	tv.tv_sec = seconds;
	tv.tv_usec = 0;
	evtimer_add(stop, &tv);
	event_base_dispatch(cs.base);

	/* Who is still connected at the end. */
	for (i = 0; i < n; i++)
		alive += mclient_ready(cs.c[i]) != 0;
	for (i = 0; i < n; i++)
		mclient_free(cs.c[i]);
	event_free(half);
	event_free(stop);
	event_base_free(cs.base);
	free(cs.c);
	printf("conns: connected %d of %d, open at the end %d, replies %"
	    PRIu64 " of %d, errors %d, connection failures %d\n", cs.ready, n,
	    alive, cs.replies, 2 * n, cs.errors, cs.failed_connect);
	return cs.ready == n && alive == n && cs.replies == (uint64_t)2 * n &&
	    cs.errors == 0 && cs.failed_connect == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* slowloris */

static int
slowloris_main(int n, int seconds)
{
	struct enc_buf *bufs;
	size_t *off;
	int *fds, i, s, open, connected = 0;
	uint64_t dribbled = 0;
	uint8_t hdr[FRAME_HEADER_SIZE];

	fds = xcalloc((size_t)n, sizeof *fds);
	off = xcalloc((size_t)n, sizeof *off);
	bufs = xcalloc((size_t)n, sizeof *bufs);
	for (i = 0; i < n; i++) {
		if ((fds[i] = raw_connect(0)) == -1)
			continue;
		connected++;
		if (i % 2 == 0) {
			/* The HELLO, a byte a second, then a request. */
			raw_frame(&bufs[i], FRAME_HELLO, 0, hello_json);
		} else {
			/* A HELLO, then a request of 1 MiB never finished. */
			struct enc_buf h = { 0 };

			raw_frame(&h, FRAME_HELLO, 0, hello_json);
			if (raw_send(fds[i], h.data, h.len) == -1) {
				close(fds[i]);
				fds[i] = -1;
			}
			enc_buf_free(&h);
		}
		frame_encode_header(hdr, FRAME_REQUEST, BURST, 1);
		enc_buf_put_bytes(&bufs[i], hdr, sizeof hdr);
		enc_buf_put_bytes(&bufs[i],
		    "{\"prefix\":\"status\",\"x\":\"", 25);
	}
	for (s = 0; s < seconds; s++) {
		for (i = 0; i < n; i++) {
			if (fds[i] == -1)
				continue;
			if (raw_discard(fds[i]) == -1 ||
			    (off[i] < bufs[i].len && raw_send(fds[i],
			    bufs[i].data + off[i], 1) == -1)) {
				close(fds[i]);
				fds[i] = -1;
				continue;
			}
			if (off[i] < bufs[i].len) {
				off[i]++;
				dribbled++;
			} else if (raw_send(fds[i], "a", 1) == 0)
				dribbled++;	/* the endless payload */
		}
		sleep(1);
	}
	open = 0;
	for (i = 0; i < n; i++) {
		if (fds[i] != -1 && raw_discard(fds[i]) == 0)
			open++;
		if (fds[i] != -1)
			close(fds[i]);
		enc_buf_free(&bufs[i]);
	}
	printf("slowloris: connected %d of %d, bytes dribbled %" PRIu64
	    ", open at the end %d\n", connected, n, dribbled, open);
	free(fds);
	free(off);
	free(bufs);
	return connected > 0 ? 0 : 1;
}

/*
 * A raw connection (rcvbuf 0: the system's receive buffer) that has sent
 * its HELLO and the subscribe requests cmds[0..n), numbered from 1; -1,
 * with a warning, when it cannot connect or send.
 */
static int
raw_subscriber(int rcvbuf, const char *const *cmds, size_t n)
{
	struct enc_buf b = { 0 };
	size_t i;
	int fd;

	if ((fd = raw_connect(rcvbuf)) == -1) {
		loadtool_warnx("%s: cannot connect: %s", addr, strerror(errno));
		return -1;
	}
	raw_frame(&b, FRAME_HELLO, 0, hello_json);
	for (i = 0; i < n; i++)
		raw_frame(&b, FRAME_REQUEST, i + 1, cmds[i]);
	if (raw_send(fd, b.data, b.len) == -1) {
		loadtool_warnx("%s: send: %s", addr, strerror(errno));
		close(fd);
		fd = -1;
	}
	enc_buf_free(&b);
	return fd;
}

/* ------------------------------------------------------------------ */
/* noread */

static const char *const noread_cmds[] = {
	"{\"prefix\":\"subscribe\",\"what\":\"pgmap\",\"start\":0}",
	"{\"prefix\":\"subscribe\",\"what\":\"osdmap\",\"start\":0}",
	"{\"prefix\":\"subscribe\",\"what\":\"log\"}",
};

static int
noread_main(int seconds)
{
	struct pollfd pfd;
	char buf[65536];
	uint64_t drained = 0;
	double until;
	ssize_t r;
	int fd, cut = 0;

	if ((fd = raw_subscriber(4096, noread_cmds, nitems(noread_cmds))) == -1)
		return 1;
	sleep((unsigned)seconds);

	/* Drain: a cut connection ends; a live one keeps on sending. */
	until = now_ms() + 5000;
	while (now_ms() < until) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		r = recv(fd, buf, sizeof buf, 0);
		if (r > 0) {
			drained += (uint64_t)r;
			continue;
		}
		if (r == 0 || errno != EINTR) {
			cut = 1;
			break;
		}
	}
	close(fd);
	printf("noread: %s, bytes drained %" PRIu64 "\n",
	    cut ? "cut by the server" : "still open", drained);
	return cut ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* reader */

/*
 * A reader that keeps up however slow the machine: frames are cut from the
 * stream and each push is only scanned (its version, "full", "last", and
 * the PGs counted by their "pgid" keys), not parsed into jansson objects,
 * which would cost it as much CPU as the monitor spends.  The pushes' JSON
 * itself is checked elsewhere (test_cmd, test_pg's byte-for-byte text).
 */
/* The literal s in p[0..len), or NULL. */
#define READER_FIND(p, len, s) memmem((p), (len), (s), sizeof (s) - 1)

struct reader {
	uint64_t pushes, snapshot_pgs, updates;
	uint64_t first, last;	/* versions of the commits' pushes */
	uint64_t gaps;
	int snapshot_done, errors;
};

/* The number after "key": in p[0..len), or -1. */
static long long
reader_number(const char *p, size_t len, const char *key)
{
	const char *k = memmem(p, len, key, strlen(key));

	if (k == NULL)
		return -1;
	k += strlen(key);
	if (k >= p + len || *k < '0' || *k > '9')
		return -1;
	return strtoll(k, NULL, 10);
}

static uint64_t
reader_count(const char *p, size_t len, const char *what)
{
	const char *e = p + len, *k;
	uint64_t n = 0;

	while ((k = memmem(p, (size_t)(e - p), what, strlen(what))) != NULL) {
		n++;
		p = k + strlen(what);
	}
	return n;
}

static void
reader_push(struct reader *r, const char *p, size_t len)
{
	/* The head ("what", "version", "full") precedes "pg_stats". */
	const char *pgs = READER_FIND(p, len, "\"pg_stats\":[");
	size_t head = pgs != NULL ? (size_t)(pgs - p) : len;
	long long v = reader_number(p, head, "\"version\":");
	uint64_t n;

	r->pushes++;
	if (pgs == NULL || v < 0 ||
	    READER_FIND(p, head, "\"what\":\"pgmap\"") == NULL) {
		if (r->errors++ < 5)
			loadtool_warnx("reader: a push that is not a pgmap "
			    "one: %.80s", p);
		return;
	}
	n = reader_count(pgs, len - head, "{\"pgid\":");
	if (READER_FIND(p, head, "\"full\":true") != NULL) {
		r->snapshot_pgs += n;
		if (len >= 16 &&
		    READER_FIND(p + len - 16, 16, "\"last\":true") != NULL)
			r->snapshot_done = 1;
		return;
	}
	r->updates += n;
	if (v == 0) {
		if (r->errors++ < 5)
			loadtool_warnx("reader: a commit's push of version 0");
	} else if (r->first == 0)
		r->first = (uint64_t)v;
	else if ((uint64_t)v != r->last + 1) {
		r->gaps++;
		if (r->gaps <= 5)
			loadtool_warnx("reader: version %lld after %llu", v,
			    (unsigned long long)r->last);
	}
	r->last = (uint64_t)v;
}

static const char *const reader_cmds[] = {
	"{\"prefix\":\"subscribe\",\"what\":\"pgmap\"}",
};

static int
reader_main(int seconds)
{
	struct reader r;
	struct enc_buf in = { 0 };
	struct frame_header h;
	struct pollfd pfd;
	char *cause = NULL;
	size_t off;
	ssize_t got;
	double until = now_ms() + seconds * 1e3;
	int fd, rc, cut = 0;

	memset(&r, 0, sizeof r);
	if ((fd = raw_subscriber(0, reader_cmds, nitems(reader_cmds))) == -1)
		return 1;
	while (!cut && now_ms() < until) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		got = recv(fd, enc_buf_reserve(&in, 1 << 20), 1 << 20, 0);
		if (got <= 0) {
			if (got == -1 && errno == EINTR)
				continue;
			loadtool_warnx("reader: %s", got == 0 ?
			    "the server closed the connection" :
			    strerror(errno));
			cut = 1;
			break;
		}
		in.len += (size_t)got;
		off = 0;
		while ((rc = frame_decode_header(in.data + off, in.len - off,
		    UINT32_MAX, &h, &cause)) == 1) {
			if (h.type == FRAME_PUSH)
				reader_push(&r, (const char *)in.data + off +
				    FRAME_HEADER_SIZE, h.len);
			else if (h.type == FRAME_REPLY &&
			    READER_FIND(in.data + off + FRAME_HEADER_SIZE,
			    h.len, "\"rc\":0") == NULL) {
				loadtool_warnx("reader: %.*s", (int)h.len,
				    (const char *)in.data + off +
				    FRAME_HEADER_SIZE);
				r.errors++;
			}
			off += FRAME_HEADER_SIZE + h.len;
		}
		if (rc == -1) {
			loadtool_warnx("reader: %s", cause);
			free(cause);
			r.errors++;
			break;
		}
		memmove(in.data, in.data + off, in.len - off);
		in.len -= off;
	}
	close(fd);
	enc_buf_free(&in);
	printf("reader: pushes %" PRIu64 ", snapshot %" PRIu64 " PGs (%s), "
	    "%" PRIu64 " PG updates in versions %" PRIu64 "..%" PRIu64
	    ", gaps %" PRIu64 ", errors %d, %s\n", r.pushes, r.snapshot_pgs,
	    r.snapshot_done ? "whole" : "cut short", r.updates, r.first,
	    r.last, r.gaps, r.errors, cut ? "cut" : "connected to the end");
	return r.snapshot_done && r.updates > 0 && r.gaps == 0 &&
	    r.errors == 0 && !cut ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* garbage */

static _Atomic uint64_t garbage_left;
static _Atomic uint64_t garbage_sent, garbage_bursts, garbage_cut;
static _Atomic uint64_t garbage_refused;
static double garbage_rate;	/* bytes a second, 0: as fast as possible */
static double garbage_t0;

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
fill_random(uint8_t *p, size_t n, uint64_t *s)
{
	size_t i;
	uint64_t v = 0;

	for (i = 0; i < n; i++) {
		if (i % 8 == 0)
			v = xorshift(s);
		p[i] = (uint8_t)(v >> (8 * (i % 8)));
	}
}

/*
 * One burst of kind k on a fresh connection, its random bytes from the pool
 * rnd[0..2 * BURST): the bytes offered.
 */
static size_t
garbage_burst(int k, uint8_t *rnd, uint64_t *s)
{
	struct enc_buf b = { 0 };
	uint8_t hdr[FRAME_HEADER_SIZE];
	size_t len, n;
	int fd, cut = 0;

	if ((fd = raw_connect(0)) == -1) {
		atomic_fetch_add(&garbage_refused, 1);
		usleep(10000);
		return 0;
	}
	/*
	 * A window of the thread's random pool: cheap, so that the CPU goes
	 * to the daemon, not to making garbage.
	 */
	rnd += xorshift(s) % BURST;
	switch (k) {
	case 0:		/* random bytes */
		enc_buf_put_bytes(&b, rnd, BURST);
		break;
	case 1:		/* HELLO, then requests of random payloads */
		raw_frame(&b, FRAME_HELLO, 0, hello_json);
		for (n = 0; b.len < BURST; n++) {
			len = 1 + xorshift(s) % 65536;
			frame_encode_header(hdr, FRAME_REQUEST, (uint32_t)len,
			    n + 1);
			enc_buf_put_bytes(&b, hdr, sizeof hdr);
			/* Now and then something that starts like JSON. */
			if (n % 3 == 0)
				rnd[0] = '{';
			enc_buf_put_bytes(&b, rnd, len);
		}
		break;
	case 2:		/* a 32 MiB frame, 1 MiB of it, then gone */
		raw_frame(&b, FRAME_HELLO, 0, hello_json);
		frame_encode_header(hdr, FRAME_REQUEST, 32u << 20, 1);
		enc_buf_put_bytes(&b, hdr, sizeof hdr);
		enc_buf_put_bytes(&b, rnd, BURST);
		break;
	default:	/* binary PG reports of random bytes */
		raw_frame(&b, FRAME_HELLO, 0, hello_json);
		for (n = 0; b.len < BURST; n++) {
			len = 2 + xorshift(s) % 65536;
			frame_encode_header(hdr, FRAME_BINARY_REQUEST,
			    (uint32_t)len, n + 1);
			enc_buf_put_bytes(&b, hdr, sizeof hdr);
			rnd[0] = 0;
			rnd[1] = FRAME_BINARY_PG_REPORT;
			enc_buf_put_bytes(&b, rnd, len);
		}
		break;
	}
	/* In 64 KiB pieces, reading whatever the server answers between. */
	for (n = 0; n < b.len && !cut; n += len) {
		len = b.len - n < 65536 ? b.len - n : 65536;
		if (raw_send(fd, b.data + n, len) == -1 ||
		    raw_discard(fd) == -1)
			cut = 1;
	}
	/*
	 * Half-close and read to the end: closing with the server's replies
	 * unread would reset the connection and throw away what the server
	 * has not read yet, and the point is that it reads all of it.
	 */
	if (!cut) {
		shutdown(fd, SHUT_WR);
		raw_drain(fd, 5000);
	} else
		atomic_fetch_add(&garbage_cut, 1);
	close(fd);
	atomic_fetch_add(&garbage_bursts, 1);
	atomic_fetch_add(&garbage_sent, b.len);
	len = b.len;
	enc_buf_free(&b);
	return len;
}

static void *
garbage_thread(void *arg)
{
	uint64_t s = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15ULL + 1;
	uint8_t *rnd = xmalloc(2 * BURST);
	uint64_t left;
	size_t sent;
	int k = (int)(uintptr_t)arg;

	fill_random(rnd, 2 * BURST, &s);
	for (;;) {
		left = atomic_load(&garbage_left);
		if (left == 0)
			break;
		sent = garbage_burst(k++ % 4, rnd, &s);
		if (sent == 0 && atomic_load(&garbage_refused) > 1000)
			break;
		for (;;) {
			left = atomic_load(&garbage_left);
			if (atomic_compare_exchange_weak(&garbage_left, &left,
			    left > sent ? left - sent : 0))
				break;
		}
		/* Bursts, not a stream: spread over garbage_seconds. */
		do
			usleep(2000);
		while (garbage_rate > 0 && atomic_load(&garbage_sent) >
		    garbage_rate * (now_ms() - garbage_t0) / 1e3 &&
		    atomic_load(&garbage_left) > 0);
	}
	free(rnd);
	return NULL;
}

static uint64_t
parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	}
	if (*end != '\0' || end == s)
		loadtool_usage();
	return v;
}

static int
garbage_main(uint64_t bytes, int conc, int seconds)
{
	pthread_t *th;
	double t0 = now_ms(), secs;
	int i;

	garbage_t0 = t0;
	garbage_rate = seconds > 0 ? (double)bytes / seconds : 0;
	atomic_store(&garbage_left, bytes);
	th = xcalloc((size_t)conc, sizeof *th);
	for (i = 0; i < conc; i++)
		pthread_create(&th[i], NULL, garbage_thread,
		    (void *)(uintptr_t)i);
	for (i = 0; i < conc; i++)
		pthread_join(th[i], NULL);
	free(th);
	secs = (now_ms() - t0) / 1e3;
	printf("garbage: bytes %" PRIu64 ", MiB %.0f, bursts %" PRIu64
	    ", cut by the server %" PRIu64 ", refused connections %" PRIu64
	    ", seconds %.1f\n", atomic_load(&garbage_sent),
	    (double)atomic_load(&garbage_sent) / (1 << 20),
	    atomic_load(&garbage_bursts), atomic_load(&garbage_cut),
	    atomic_load(&garbage_refused), secs);
	return atomic_load(&garbage_sent) >= bytes ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* probe */

struct probe {
	struct event_base *base;
	struct mclient *c;
	struct event *next;
	double sent, until, interval_ms;
	double *lat;
	size_t n, cap;
	int errors, done;
};

static void probe_send(struct probe *);

static void
probe_reply(void *arg, int rc, const char *status, mapmon_unused json_t *data)
{
	struct probe *p = arg;
	struct timeval tv;
	double t = now_ms();

	if (rc != 0) {
		if (p->errors++ < 5)
			loadtool_warnx("status: rc %d: %s", rc, status);
		if (!mclient_ready(p->c)) {
			event_base_loopbreak(p->base);
			return;
		}
	} else {
		if (p->n == p->cap) {
			p->cap = p->cap ? p->cap * 2 : 4096;
			p->lat = xreallocarray(p->lat, p->cap, sizeof *p->lat);
		}
		p->lat[p->n++] = t - p->sent;
	}
	if (t >= p->until) {
		event_base_loopbreak(p->base);
		return;
	}
	tv.tv_sec = 0;
	tv.tv_usec = (suseconds_t)(p->interval_ms * 1000);
	evtimer_add(p->next, &tv);
}

static void
probe_send(struct probe *p)
{
	json_t *cmd = json_pack("{s:s}", "prefix", "status");

	p->sent = now_ms();
	if (mclient_request(p->c, cmd, probe_reply, p) != 0) {
		p->errors++;
		event_base_loopbreak(p->base);
	}
	json_decref(cmd);
}

static void
probe_next(mapmon_unused evutil_socket_t fd, mapmon_unused short ev,
    void *arg)
{
	probe_send(arg);
}

static void
probe_ready(void *arg, mapmon_unused json_t *hello)
{
	struct probe *p = arg;

	probe_send(p);
}

static void
probe_error(void *arg, int err, const char *msg)
{
	struct probe *p = arg;

	p->errors++;
	loadtool_warnx("connection: %d: %s", err, msg);
	event_base_loopbreak(p->base);
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
probe_main(int seconds, double interval_ms)
{
	struct probe p;
	double p50 = 0, p99 = 0, max = 0;

	memset(&p, 0, sizeof p);
	p.interval_ms = interval_ms;
	p.base = event_base_new();
	p.next = evtimer_new(p.base, probe_next, &p);
	p.until = now_ms() + seconds * 1e3;
	p.c = mclient_new(p.base, addr, CONNECT_TIMEOUT_MS, probe_ready,
	    probe_error, &p);
	mclient_set_name(p.c, "client.probe");
	event_base_dispatch(p.base);
	mclient_free(p.c);
	event_free(p.next);
	event_base_free(p.base);
	if (p.n > 0) {
		qsort(p.lat, p.n, sizeof *p.lat, dcmp);
		p50 = p.lat[p.n / 2];
		p99 = p.lat[(size_t)((double)(p.n - 1) * 0.99)];
		max = p.lat[p.n - 1];
	}
	printf("probe: requests %zu, p50 %.3f, p99 %.3f, max %.3f, errors %d\n",
	    p.n, p50, p99, max, p.errors);
	free(p.lat);
	return p.errors == 0 && p.n > 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	const char *mode;
	char *cause = NULL;
	uint64_t bytes = 0;
	double interval = 1;
	int ch, n = 0, seconds = 0, conc = 8;

	signal(SIGPIPE, SIG_IGN);
	loadtool_init("loadgen", usage_text);
	mode = loadtool_subcommand(&argc, &argv);
	while ((ch = getopt(argc, argv, "b:c:i:m:n:t:")) != -1) {
		switch (ch) {
		case 'b': bytes = parse_size(optarg); break;
		case 'c': conc = atoi(optarg); break;
		case 'i': interval = atof(optarg); break;
		case 'm': addr = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 't': seconds = atoi(optarg); break;
		default: loadtool_usage();
		}
	}
	if (optind != argc || addr == NULL || conc < 1 || interval < 0)
		loadtool_usage();
	if (mclient_parse_addr(addr, &host, &port, &cause) != 0) {
		loadtool_warnx("%s", cause);
		free(cause);
		return 1;
	}
	if (strcmp(mode, "conns") == 0 && n > 0 && seconds > 0)
		return conns_main(n, seconds);
	if (strcmp(mode, "slowloris") == 0 && n > 0 && seconds > 0)
		return slowloris_main(n, seconds);
	if (strcmp(mode, "noread") == 0 && seconds > 0)
		return noread_main(seconds);
	if (strcmp(mode, "reader") == 0 && seconds > 0)
		return reader_main(seconds);
	if (strcmp(mode, "garbage") == 0 && bytes > 0)
		return garbage_main(bytes, conc, seconds);
	if (strcmp(mode, "probe") == 0 && seconds > 0)
		return probe_main(seconds, interval);
	loadtool_usage();
}
