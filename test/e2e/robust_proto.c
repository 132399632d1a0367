/*
 * robust_proto.c: hostile clients against a running mapmond
 * (mapmon-protocol(7), RELIABILITY.md), driven by test/e2e/robust_proto.sh, which starts the daemon with
 *
 *	max_connections = 1010, max_frame = 1M, max_client_output = 1M,
 *	idle_timeout = 0
 *
 * and reads this program's TAP lines ("ok - ..." / "not ok - ...", numbered
 * by the script).
 *
 *	robust_proto [-I] ADDR PID
 *	robust_proto -E ADDR PID
 *
 * ADDR is 127.0.0.1:PORT, PID the daemon's (its RSS and CPU time are read
 * from /proc and its liveness checked with kill(pid, 0)).  -I skips the
 * 1,000 idle connections (the script passes it when the descriptor limit
 * is too low).  -E runs only the descriptor shortage test, against a
 * daemon the script started with a limit of 64 descriptors.
 *
 * Every client here speaks through raw blocking sockets and the framing of
 * net/frame.h, so that it can send what the client library never would:
 * random bytes, cut frames, oversize headers, invalid UTF-8, deep nesting,
 * wrong types, frames out of order, resets, and a reader that never reads.
 * After each group a separate, well-behaved client asks for `status`: the
 * daemon must answer it, whatever the group did.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "net/frame.h"

#define RP_MAX_FRAME (1024 * 1024)	/* the script's max_frame */
#define RP_MAX_CONNECTIONS 1010		/* the script's max_connections */
#define RP_IDLE 1000			/* idle connections held at once */
#define RP_TIMEOUT_MS 5000		/* any single answer */

static struct sockaddr_in rp_addr;
static int rp_timeout_ms = RP_TIMEOUT_MS; /* a reply to rp_call_fd() */
static pid_t rp_pid;
static int rp_failed;

static void rp_ok(int, const char *, ...) printflike(2, 3);

static void
rp_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		rp_failed++;
}

static void rp_diag(const char *, ...) printflike(1, 2);

static void
rp_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int64_t
rp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
rp_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* xorshift64*: the same "random" bytes on every machine and libc. */
static uint64_t rp_rand_state = 0x6d61706d6f6e2121ULL;

static uint64_t
rp_rand(void)
{
	uint64_t x = rp_rand_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rp_rand_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * A blocking TCP connection to the daemon; rcvbuf > 0 shrinks the receive
 * buffer first (a reader that does not read should not hide megabytes in
 * its kernel).  -1 on failure.
 */
static int
rp_connect_buf(int rcvbuf)
{
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (rcvbuf > 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
		    sizeof rcvbuf);
	if (connect(fd, (struct sockaddr *)&rp_addr, sizeof rp_addr) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
rp_connect(void)
{
	return rp_connect_buf(0);
}

/* Close with a reset, as a crashed client does. */
static void
rp_reset(int fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	close(fd);
}

/* Write everything; -1 when the peer has gone. */
static int
rp_send(int fd, const void *p, size_t len)
{
	const char *s = p;
	ssize_t n;

	while (len > 0) {
		n = send(fd, s, len, MSG_NOSIGNAL);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
rp_send_frame_raw(int fd, uint8_t type, uint64_t id, uint32_t len,
    const void *p, size_t plen)
{
	uint8_t hdr[FRAME_HEADER_SIZE];

	frame_encode_header(hdr, type, len, id);
	if (rp_send(fd, hdr, sizeof hdr) == -1)
		return -1;
	return plen > 0 ? rp_send(fd, p, plen) : 0;
}

static int
rp_send_frame(int fd, uint8_t type, uint64_t id, const void *p, size_t len)
{
	return rp_send_frame_raw(fd, type, id, (uint32_t)len, p, len);
}

static int
rp_send_json(int fd, uint8_t type, uint64_t id, const char *text)
{
	return rp_send_frame(fd, type, id, text, strlen(text));
}

/*
 * Read exactly len bytes within the deadline.  1: done, 0: EOF, -1: error
 * or timeout (errno ETIMEDOUT).
 */
static int
rp_read_full(int fd, void *p, size_t len, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char *s = p;
	ssize_t n;
	int64_t left;

	while (len > 0) {
		left = deadline - rp_now_ms();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(&pfd, 1, (int)left) == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		n = recv(fd, s, len, 0);
		if (n == 0)
			return 0;
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		s += n;
		len -= (size_t)n;
	}
	return 1;
}

/*
 * One frame: 1 with *h and *payload (NUL-terminated, the caller frees), 0
 * on EOF, -1 on an error or after ms.
 */
static int
rp_read_frame(int fd, int ms, struct frame_header *h, char **payload)
{
	uint8_t hdr[FRAME_HEADER_SIZE];
	int64_t deadline = rp_now_ms() + ms;
	char *cause = NULL;
	int r;

	*payload = NULL;
	if ((r = rp_read_full(fd, hdr, sizeof hdr, deadline)) != 1)
		return r;
	if (frame_decode_header(hdr, sizeof hdr, SIZE_MAX, h, &cause) == -1) {
		rp_diag("the server sent a bad header: %s", cause);
		free(cause);
		errno = EPROTO;
		return -1;
	}
	*payload = xmalloc((size_t)h->len + 1);
	(*payload)[h->len] = '\0';
	if ((r = rp_read_full(fd, *payload, h->len, deadline)) != 1) {
		free(*payload);
		*payload = NULL;
		return r == 0 ? 0 : -1;
	}
	return 1;
}

/*
 * The next REPLY (PUSH frames skipped): its JSON object with *id set, or
 * NULL on EOF, error or timeout.
 */
static json_t *
rp_read_reply(int fd, int ms, uint64_t *id)
{
	struct frame_header h;
	json_t *obj;
	char *p;

	for (;;) {
		if (rp_read_frame(fd, ms, &h, &p) != 1)
			return NULL;
		if (h.type == FRAME_PUSH) {
			free(p);
			continue;
		}
		if (h.type != FRAME_REPLY) {
			rp_diag("expected a REPLY, got %s",
			    frame_type_name(h.type));
			free(p);
			return NULL;
		}
		obj = json_loads(p, 0, NULL);
		free(p);
		if (id != NULL)
			*id = h.id;
		return obj;
	}
}

static int
rp_rc(const json_t *reply)
{
	json_t *rc = json_object_get(reply, "rc");

	return json_is_integer(rc) ? (int)json_integer_value(rc) : 1;
}

static const char *
rp_status(const json_t *reply)
{
	const char *s = json_string_value(json_object_get(reply, "status"));

	return s != NULL ? s : "";
}

/* Whether the compact text of v holds needle. */
static int
rp_json_has(const json_t *v, const char *needle)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	int has = text != NULL && strstr(text, needle) != NULL;

	free(text);
	return has;
}

/* Send our HELLO and read the server's; 0 when it came. */
static int
rp_hello(int fd)
{
	struct frame_header h;
	char *p;
	int ok;

	if (rp_send_json(fd, FRAME_HELLO, 1,
	    "{\"protocol\":1,\"name\":\"client.robust\"}") == -1)
		return -1;
	if (rp_read_frame(fd, RP_TIMEOUT_MS, &h, &p) != 1)
		return -1;
	ok = h.type == FRAME_HELLO && h.id == 1 && strstr(p,
	    "\"protocol\":1") != NULL;
	free(p);
	return ok ? 0 : -1;
}

/* A connection that has said HELLO, or -1. */
static int
rp_open(void)
{
	int fd;

	if ((fd = rp_connect()) == -1)
		return -1;
	if (rp_hello(fd) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Send one REQUEST (text as is) with id and read replies until the one
 * with that id: returned (the caller decrefs), NULL on EOF or timeout.
 */
static json_t *
rp_call_fd(int fd, uint64_t id, const char *text)
{
	json_t *r;
	uint64_t rid;

	if (rp_send_json(fd, FRAME_REQUEST, id, text) == -1)
		return NULL;
	for (;;) {
		if ((r = rp_read_reply(fd, rp_timeout_ms, &rid)) == NULL)
			return NULL;
		if (rid == id)
			return r;
		json_decref(r);
	}
}

/* The same on a connection of its own. */
static json_t *
rp_call(const char *text)
{
	json_t *r;
	int fd;

	if ((fd = rp_open()) == -1)
		return NULL;
	r = rp_call_fd(fd, 7, text);
	close(fd);
	return r;
}

/* A well-behaved client's status: rc 0 and the cluster's fsid. */
static int
rp_status_ok(void)
{
	json_t *r;
	int ok;

	if ((r = rp_call("{\"prefix\":\"status\"}")) == NULL)
		return 0;
	ok = rp_rc(r) == 0 && json_is_string(json_object_get(
	    json_object_get(r, "data"), "fsid"));
	json_decref(r);
	return ok;
}

static int
rp_alive(void)
{
	return kill(rp_pid, 0) == 0;
}

static void
rp_after(const char *what)
{
	rp_ok(rp_alive() && rp_status_ok(), "after %s: the daemon lives and "
	    "a separate client's status is answered", what);
}

/* A counter of perf dump's "server" object, or -1. */
static int64_t
rp_perf_server(const char *key)
{
	json_t *r, *v;
	int64_t n = -1;

	if ((r = rp_call("{\"prefix\":\"perf dump\"}")) == NULL)
		return -1;
	v = json_object_get(json_object_get(json_object_get(r, "data"),
	    "server"), key);
	if (json_is_integer(v))
		n = json_integer_value(v);
	json_decref(r);
	return n;
}

/*
 * Wait for perf dump's server.connections to reach want (its own
 * connection included): the daemon sees closes a little after they happen.
 */
static int
rp_wait_connections(int64_t want)
{
	int64_t deadline = rp_now_ms() + RP_TIMEOUT_MS, n = -1;

	while (rp_now_ms() < deadline) {
		if ((n = rp_perf_server("connections")) == want)
			return 1;
		rp_sleep_ms(20);
	}
	rp_diag("connections: %lld, waited for %lld", (long long)n,
	    (long long)want);
	return 0;
}

/* Read and drop until the server closes (1) or ms pass (0). */
static int
rp_wait_closed(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t deadline = rp_now_ms() + ms, left;
	char buf[65536];
	ssize_t n;

	for (;;) {
		left = deadline - rp_now_ms();
		if (left <= 0 || poll(&pfd, 1, (int)left) == 0)
			return 0;
		n = recv(fd, buf, sizeof buf, 0);
		if (n == 0 || (n == -1 && errno != EINTR && errno != EAGAIN))
			return 1;
	}
}

/* The daemon's resident memory in KiB, from /proc; -1 if unknown. */
static long
rp_rss_kb(void)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)rp_pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The daemon's CPU time (user + system) in clock ticks; -1 if unknown. */
static long long
rp_cpu_ticks(void)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)rp_pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After the command name in parentheses: fields 3 on; 14, 15. */
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1, " %*c %*d %*d "
	    "%*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (long long)(ut + st);
}

/*
 * Expect one error REPLY to what was sent on fd: rc want, the id echoed,
 * the status holding needle; then, if closes, the server closes the
 * connection, else the connection still answers a status.
 */
static void
rp_expect_error(int fd, uint64_t id, int want, const char *needle,
    int closes, const char *what)
{
	json_t *r, *st;
	uint64_t rid = 0;
	int ok;

	r = rp_read_reply(fd, RP_TIMEOUT_MS, &rid);
	ok = r != NULL && rp_rc(r) == want && rid == id &&
	    strstr(rp_status(r), needle) != NULL;
	if (!ok) {
		char *text = r != NULL ? json_dumps(r, JSON_COMPACT) : NULL;

		rp_diag("%s: reply %s, id %llu", what, text != NULL ? text :
		    "(none)", (unsigned long long)rid);
		free(text);
	}
	rp_ok(ok, "%s: rc %d, status names the problem", what, want);
	if (closes) {
		rp_ok(rp_wait_closed(fd, RP_TIMEOUT_MS), "%s: the server "
		    "closes the connection", what);
	} else {
		st = rp_call_fd(fd, id + 1, "{\"prefix\":\"status\"}");
		rp_ok(st != NULL && rp_rc(st) == 0, "%s: the connection is "
		    "kept and answers the next request", what);
		json_decref(st);
	}
	json_decref(r);
}

/* A REQUEST on a fresh helloed connection that must be refused. */
static void
rp_bad_request(const void *p, size_t len, int want, const char *needle,
    const char *what)
{
	int fd;

	if ((fd = rp_open()) == -1 || rp_send_frame(fd, FRAME_REQUEST, 40, p,
	    len) == -1) {
		rp_ok(0, "%s: could not send it", what);
		if (fd != -1)
			close(fd);
		return;
	}
	rp_expect_error(fd, 40, want, needle, 0, what);
	close(fd);
}

static void
rp_bad_json(const char *text, const char *needle, const char *what)
{
	rp_bad_request(text, strlen(text), -EINVAL, needle, what);
}

static void
test_random_bytes(void)
{
	uint8_t buf[4096];
	size_t i;
	int fd, n, closed = 0, helloed_closed = 0;

	/* Before the HELLO, and after it. */
	for (n = 0; n < 20; n++) {
		for (i = 0; i < sizeof buf; i++)
			buf[i] = (uint8_t)rp_rand();
		fd = n < 10 ? rp_connect() : rp_open();
		if (fd == -1)
			continue;
		(void)rp_send(fd, buf, sizeof buf);
		if (rp_wait_closed(fd, RP_TIMEOUT_MS))
			n < 10 ? closed++ : helloed_closed++;
		close(fd);
	}
	rp_ok(closed == 10, "random bytes before HELLO: %d of 10 connections "
	    "closed by the server", closed);
	rp_ok(helloed_closed == 10, "random bytes after HELLO: %d of 10 "
	    "connections closed by the server", helloed_closed);

	/* Random bytes in a well-formed REQUEST frame: a JSON error. */
	for (i = 0; i < 512; i++)
		buf[i] = (uint8_t)rp_rand();
	rp_bad_request(buf, 512, -EINVAL, "bad JSON", "random REQUEST "
	    "payload");
	rp_after("random bytes");
}

static void
test_truncated(void)
{
	static const char status[] = "{\"prefix\":\"status\"}";
	uint8_t frame[FRAME_HEADER_SIZE + sizeof status];
	json_t *r;
	uint64_t id;
	size_t i;
	int fd, fd2, ok;

	/* Half a header, then gone. */
	if ((fd = rp_connect()) != -1) {
		(void)rp_send(fd, "\0\0\0\x20\x01\0", 6);
		close(fd);
	}
	rp_after("half a header and a close");

	/* A frame cut short, then a reset. */
	if ((fd = rp_open()) != -1) {
		(void)rp_send_frame_raw(fd, FRAME_REQUEST, 9, 500,
		    "{\"prefix\":\"status\",\"pad\":\"", 27);
		rp_reset(fd);
	}
	rp_after("a frame cut short and a reset");

	/* A frame cut short stays pending while others are served. */
	fd = rp_open();
	ok = fd != -1 && rp_send_frame_raw(fd, FRAME_REQUEST, 9, 500,
	    "{\"prefix\":", 10) == 0;
	rp_after("a frame cut short, connection held open");
	/* The rest arrives: one request of 500 bytes, answered. */
	if (ok) {
		char rest[490];

		memset(rest, ' ', sizeof rest);
		memcpy(rest, "\"status\"}", 9);
		ok = rp_send(fd, rest, sizeof rest) == 0 &&
		    (r = rp_read_reply(fd, RP_TIMEOUT_MS, &id)) != NULL &&
		    rp_rc(r) == 0 && id == 9;
		if (ok)
			json_decref(r);
	}
	rp_ok(ok, "the held frame, completed later, is answered");
	if (fd != -1)
		close(fd);

	/* A request one byte at a time. */
	frame_encode_header(frame, FRAME_REQUEST, sizeof status - 1, 11);
	memcpy(frame + FRAME_HEADER_SIZE, status, sizeof status - 1);
	fd = rp_open();
	ok = fd != -1;
	for (i = 0; ok && i < sizeof frame - 1; i++) {
		ok = rp_send(fd, frame + i, 1) == 0;
		rp_sleep_ms(1);
	}
	r = ok ? rp_read_reply(fd, RP_TIMEOUT_MS, &id) : NULL;
	rp_ok(r != NULL && rp_rc(r) == 0 && id == 11, "a request sent one "
	    "byte at a time is answered");
	json_decref(r);
	if (fd != -1)
		close(fd);

	/* Two frames in one write, the second split over two. */
	fd = rp_open();
	fd2 = fd != -1;
	if (fd2) {
		uint8_t two[2 * sizeof frame];

		frame_encode_header(two, FRAME_REQUEST, sizeof status - 1, 12);
		memcpy(two + FRAME_HEADER_SIZE, status, sizeof status - 1);
		frame_encode_header(two + sizeof frame - 1, FRAME_REQUEST,
		    sizeof status - 1, 13);
		memcpy(two + sizeof frame - 1 + FRAME_HEADER_SIZE, status,
		    sizeof status - 1);
		(void)rp_send(fd, two, sizeof frame + 5);
		rp_sleep_ms(50);
		(void)rp_send(fd, two + sizeof frame + 5,
		    2 * (sizeof frame - 1) - sizeof frame - 5);
		ok = 0;
		for (i = 0; i < 2; i++) {
			if ((r = rp_read_reply(fd, RP_TIMEOUT_MS, &id)) ==
			    NULL)
				break;
			ok += rp_rc(r) == 0 && id == 12 + i;
			json_decref(r);
		}
		fd2 = ok == 2;
		close(fd);
	}
	rp_ok(fd2, "two frames in one write, the second split, both answered "
	    "in order");
}

static void
test_oversize(void)
{
	char *big;
	json_t *r;
	uint64_t id = 0;
	int fd;

	/* A header past max_frame, after HELLO: -EMSGSIZE and a close. */
	if ((fd = rp_open()) != -1 && rp_send_frame_raw(fd, FRAME_REQUEST, 77,
	    RP_MAX_FRAME + 1, NULL, 0) == 0) {
		rp_expect_error(fd, 77, -EMSGSIZE, "larger than the limit", 1,
		    "a frame one byte past max_frame");
	} else
		rp_ok(0, "oversize frame: could not send it");
	if (fd != -1)
		close(fd);

	/* The same, with megabytes of its payload following at once. */
	big = xmalloc(4 * RP_MAX_FRAME);
	memset(big, ' ', 4 * RP_MAX_FRAME);
	if ((fd = rp_open()) != -1) {
		(void)rp_send_frame_raw(fd, FRAME_REQUEST, 78, 4 * RP_MAX_FRAME,
		    NULL, 0);
		(void)rp_send(fd, big, 4 * RP_MAX_FRAME);
		rp_expect_error(fd, 78, -EMSGSIZE, "larger than the limit", 1,
		    "a 4M frame sent whole");
		close(fd);
	}

	/* A 4G header as the very first frame. */
	if ((fd = rp_connect()) != -1) {
		(void)rp_send_frame_raw(fd, FRAME_HELLO, 79, UINT32_MAX, NULL,
		    0);
		rp_expect_error(fd, 79, -EMSGSIZE, "larger than the limit", 1,
		    "a 4G HELLO header");
		close(fd);
	}

	/* Exactly max_frame is still accepted. */
	memcpy(big, "{\"prefix\":\"status\"}", 19);
	fd = rp_open();
	r = NULL;
	if (fd != -1 && rp_send_frame(fd, FRAME_REQUEST, 80, big,
	    RP_MAX_FRAME) == 0)
		r = rp_read_reply(fd, RP_TIMEOUT_MS, &id);
	rp_ok(r != NULL && rp_rc(r) == 0 && id == 80, "a frame of exactly "
	    "max_frame bytes is answered");
	json_decref(r);
	if (fd != -1)
		close(fd);
	free(big);
	rp_after("oversize frames");
}

static void
test_utf8(void)
{
	int fd;

	rp_bad_json("{\"prefix\":\"status\",\"x\":\"\xff\"}", "bad JSON",
	    "a 0xff byte in a string");
	rp_bad_json("{\"prefix\":\"stat\xc3\x28s\"}", "bad JSON",
	    "a broken two-byte sequence in the prefix");
	rp_bad_json("{\"prefix\":\"status\",\"x\":\"\xc0\xaf\"}", "bad JSON",
	    "an overlong encoding");
	rp_bad_json("{\"prefix\":\"status\",\"x\":\"\xed\xa0\x80\"}",
	    "bad JSON", "an encoded surrogate");
	rp_bad_json("{\"prefix\":\"status\",\"x\":\"\xf4\x90\x80\x80\"}",
	    "bad JSON", "a code point past U+10FFFF");
	rp_bad_json("{\"prefix\":\"status\",\"x\":\"\\udc00\"}", "bad JSON",
	    "a lone surrogate escape");
	rp_bad_json("{\"prefix\":\"status\",\"x\":\"a\\u0000b\"}", "bad JSON",
	    "a NUL escape in a string");
	rp_bad_json("{\"prefix\":\"st\xe2\x82\"}", "bad JSON",
	    "a sequence cut by the end of the string");

	/* The same in a HELLO: refused, and the connection closed. */
	if ((fd = rp_connect()) != -1) {
		(void)rp_send_json(fd, FRAME_HELLO, 3,
		    "{\"protocol\":1,\"name\":\"\xfe\xfe\"}");
		rp_expect_error(fd, 3, -EINVAL, "bad HELLO", 1,
		    "invalid UTF-8 in the HELLO");
		close(fd);
	}
	rp_after("invalid UTF-8");
}

static void
test_nesting(void)
{
	size_t n = 100000, i;
	char *p;
	int64_t t0;
	json_t *r;

	/* A megabyte of '[' costs one pass, not a stack. */
	p = xmalloc(n + 64);
	i = (size_t)snprintf(p, 64, "{\"prefix\":\"status\",\"x\":");
	memset(p + i, '[', n);
	t0 = rp_now_ms();
	rp_bad_request(p, i + n, -EINVAL, "nested deeper than 64 levels",
	    "100,000 open brackets");
	rp_ok(rp_now_ms() - t0 < 3000, "100,000 open brackets refused "
	    "quickly (%lld ms)", (long long)(rp_now_ms() - t0));

	/* 65 levels, balanced, of objects. */
	i = 0;
	memcpy(p, "{\"prefix\":\"status\",\"x\":", 23);
	i = 23;
	for (n = 0; n < 64; n++) {
		memcpy(p + i, "{\"a\":", 5);
		i += 5;
	}
	p[i++] = '1';
	for (n = 0; n < 65; n++)
		p[i++] = '}';
	rp_bad_request(p, i, -EINVAL, "nested deeper than 64 levels",
	    "65 levels of objects");

	/* 64 levels pass the parser and reach the command's check. */
	i = 23;
	for (n = 0; n < 63; n++)
		p[i++] = '[';
	for (n = 0; n < 63; n++)
		p[i++] = ']';
	p[i++] = '}';
	rp_bad_request(p, i, -EINVAL, "unknown argument 'x'",
	    "64 levels: parsed, then refused by the command table");

	/* Brackets inside a string do not count. */
	i = 23;
	p[i++] = '"';
	for (n = 0; n < 200; n++)
		p[i++] = '[';
	p[i++] = '"';
	p[i++] = '}';
	rp_bad_request(p, i, -EINVAL, "unknown argument 'x'",
	    "brackets inside a string are not nesting");
	free(p);

	r = rp_call("{\"prefix\":\"status\"}");
	rp_ok(r != NULL && rp_rc(r) == 0, "status after deep nesting");
	json_decref(r);
	rp_after("deeply nested JSON");
}

static void
test_wrong_types(void)
{
	json_t *r;

	rp_bad_json("[1,2,3]", "not an object", "an array payload");
	rp_bad_json("\"status\"", "bad JSON", "a string payload");
	rp_bad_json("", "bad JSON", "an empty payload");
	rp_bad_json("{\"prefix\":\"status\"} {}", "bad JSON",
	    "text after the object");
	rp_bad_json("{\"prefix\":\"status\",\"prefix\":\"health\"}",
	    "duplicate", "a duplicate key");
	rp_bad_json("{}", "no \"prefix\"", "no prefix");
	rp_bad_json("{\"prefix\":5}", "\"prefix\" must be a string",
	    "a number as prefix");
	rp_bad_json("{\"prefix\":null}", "\"prefix\" must be a string",
	    "null as prefix");
	rp_bad_json("{\"prefix\":[\"status\"]}", "\"prefix\" must be a string",
	    "an array as prefix");
	rp_bad_json("{\"prefix\":\"osd pool create\",\"pool\":5,"
	    "\"pg_num\":8}", "argument 'pool' must be a string",
	    "a number where a string goes");
	rp_bad_json("{\"prefix\":\"osd pool create\",\"pool\":\"robust\","
	    "\"pg_num\":\"8\"}", "argument 'pg_num' must be an integer",
	    "a string where an integer goes");
	rp_bad_json("{\"prefix\":\"osd pool create\",\"pool\":\"robust\","
	    "\"pg_num\":8.5}", "argument 'pg_num' must be an integer",
	    "a fraction where an integer goes");
	rp_bad_json("{\"prefix\":\"osd pool create\",\"pool\":\"robust\","
	    "\"pg_num\":99999999999999999999999}", "bad JSON",
	    "an integer past 64 bits");
	rp_bad_json("{\"prefix\":\"osd pool create\",\"pool\":\"robust\","
		    "\"pg_num\":-1}",
	    "argument 'pg_num' must be between", "an integer out of bounds");
	rp_bad_json("{\"prefix\":\"osd down\",\"ids\":[1,\"two\"]}",
	    "argument 'ids' item 1 must be an osd id",
	    "a word in a list of "
	    "OSD ids");
	rp_bad_json("{\"prefix\":\"osd down\",\"ids\":3}",
	    "argument 'ids' must be an array", "a number where a list goes");
	rp_bad_json("{\"prefix\":\"osd reweight\",\"id\":0,\"weight\":true}",
	    "argument 'weight' must be a number", "a boolean where a number "
	    "goes");
	rp_bad_json("{\"prefix\":\"osd set\",\"key\":\"nofoo\"}",
	    "argument 'key' must be one of", "a word that is not a choice");
	rp_bad_json("{\"prefix\":\"osd pool create\",\"pg_num\":8}",
	    "missing argument 'pool'", "a missing argument");
	rp_bad_json("{\"prefix\":\"status\",\"extra\":{}}",
	    "unknown argument 'extra'", "an unknown argument");
	rp_bad_json("{\"prefix\":\"subscribe\",\"what\":\"osdmap\","
	    "\"start\":-1}", "argument 'start' must be between",
	    "a negative subscription start");

	/* Nothing of the refused writes happened. */
	r = rp_call("{\"prefix\":\"osd pool ls\"}");
	rp_ok(r != NULL && rp_rc(r) == 0 && json_is_array(json_object_get(r,
	    "data")) && !rp_json_has(json_object_get(r, "data"), "robust"),
	    "no refused pool create made a pool");
	json_decref(r);
	rp_after("wrong types");
}

static void
test_unknown_prefix(void)
{
	char *p;
	size_t n = 100000;
	int fd;
	json_t *r;

	rp_bad_json("{\"prefix\":\"stauts\"}", "did you mean 'status'",
	    "a misspelt prefix gets a suggestion");
	rp_bad_json("{\"prefix\":\"frobnicate the cluster\"}",
	    "unknown command 'frobnicate the cluster'", "an unknown prefix");
	rp_bad_json("{\"prefix\":\"\"}", "unknown command ''",
	    "an empty prefix");

	/* A 100 KB prefix: refused, its status stays one short line. */
	p = xmalloc(n + 32);
	memcpy(p, "{\"prefix\":\"", 11);
	memset(p + 11, 'x', n);
	memcpy(p + 11 + n, "\"}", 2);
	r = NULL;
	if ((fd = rp_open()) != -1 && rp_send_frame(fd, FRAME_REQUEST, 5, p,
	    n + 13) == 0)
		r = rp_read_reply(fd, RP_TIMEOUT_MS, NULL);
	rp_ok(r != NULL && rp_rc(r) == -EINVAL && strlen(rp_status(r)) < 200,
	    "a 100 KB prefix: -EINVAL with a short status");
	json_decref(r);
	if (fd != -1)
		close(fd);
	free(p);
	rp_after("unknown prefixes");
}

static void
test_protocol_misuse(void)
{
	uint8_t hdr[FRAME_HEADER_SIZE + 2];
	int fd;

	if ((fd = rp_connect()) != -1) {
		(void)rp_send_json(fd, FRAME_REQUEST, 4, "{\"prefix\":\"status\"}");
		rp_expect_error(fd, 4, -EINVAL, "expected a HELLO", 1,
		    "a REQUEST before the HELLO");
		close(fd);
	}
	if ((fd = rp_connect()) != -1) {
		(void)rp_send_json(fd, FRAME_HELLO, 4, "{\"protocol\":2}");
		rp_expect_error(fd, 4, -EPROTONOSUPPORT, "protocol 2 not "
		    "supported", 1, "protocol 2");
		close(fd);
	}
	if ((fd = rp_connect()) != -1) {
		(void)rp_send_json(fd, FRAME_HELLO, 4, "{\"protocol\":\"1\"}");
		rp_expect_error(fd, 4, -EINVAL, "\"protocol\" is missing or "
		    "not an integer", 1, "a string protocol");
		close(fd);
	}
	if ((fd = rp_connect()) != -1) {
		(void)rp_send_json(fd, FRAME_HELLO, 4, "{\"protocol\":1,"
		    "\"name\":7}");
		rp_expect_error(fd, 4, -EINVAL, "\"name\" is not a string", 1,
		    "a number as HELLO name");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		(void)rp_send_json(fd, FRAME_HELLO, 4, "{\"protocol\":1}");
		rp_expect_error(fd, 4, -EINVAL, "HELLO frames twice", 1,
		    "a second HELLO");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		(void)rp_send_json(fd, FRAME_REPLY, 4, "{\"rc\":0}");
		rp_expect_error(fd, 4, -EINVAL, "may not send REPLY", 1,
		    "a REPLY from the client");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		(void)rp_send_json(fd, FRAME_PUSH, 4, "{}");
		rp_expect_error(fd, 4, -EINVAL, "may not send PUSH", 1,
		    "a PUSH from the client");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		frame_encode_header(hdr, FRAME_REQUEST, 2, 4);
		hdr[4] = 9;
		(void)rp_send(fd, hdr, sizeof hdr);
		rp_expect_error(fd, 4, -EINVAL, "unknown frame type 9", 1,
		    "frame type 9");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		frame_encode_header(hdr, FRAME_REQUEST, 2, 4);
		hdr[5] = 0x80;
		(void)rp_send(fd, hdr, sizeof hdr);
		rp_expect_error(fd, 4, -EINVAL, "unknown frame flags", 1,
		    "a flag set");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		frame_encode_header(hdr, FRAME_REQUEST, 2, 4);
		hdr[7] = 1;
		(void)rp_send(fd, hdr, sizeof hdr);
		rp_expect_error(fd, 4, -EINVAL, "reserved frame header field", 1,
		    "a nonzero reserved field");
		close(fd);
	}

	/* Binary requests: refused, the connection kept. */
	if ((fd = rp_open()) != -1) {
		(void)rp_send_frame(fd, FRAME_BINARY_REQUEST, 20, "\x00", 1);
		rp_expect_error(fd, 20, -EINVAL, "shorter than its opcode", 0,
		    "a one-byte binary request");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		(void)rp_send_frame(fd, FRAME_BINARY_REQUEST, 20, "\x00\x07",
		    2);
		rp_expect_error(fd, 20, -EOPNOTSUPP, "unknown binary opcode 7",
		    0, "binary opcode 7");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		/* opcode 1, osd 0, count 2^32-1, and nothing after. */
		(void)rp_send_frame(fd, FRAME_BINARY_REQUEST, 20,
		    "\x00\x01\x00\x00\x00\x00\xff\xff\xff\xff", 10);
		rp_expect_error(fd, 20, -EINVAL, "binary pg report", 0,
		    "a binary pg report claiming 2^32-1 records");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		uint8_t rep[10 + 600];
		size_t i;

		memcpy(rep, "\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01", 10);
		for (i = 10; i < sizeof rep; i++)
			rep[i] = (uint8_t)rp_rand();
		rep[10] = 1;	/* struct_v */
		rep[11] = 1;	/* compat_v */
		(void)rp_send_frame(fd, FRAME_BINARY_REQUEST, 20, rep,
		    sizeof rep);
		rp_expect_error(fd, 20, -EINVAL, "binary pg report", 0,
		    "a binary pg report of random bytes");
		close(fd);
	}
	if ((fd = rp_open()) != -1) {
		(void)rp_send_json(fd, FRAME_REQUEST, 20, "{\"prefix\":\"pg "
		    "report\",\"osd\":0,\"pgs\":[{\"pgid\":[]}]}");
		rp_expect_error(fd, 20, -EINVAL, "pgs[0]", 0,
		    "a JSON pg report with a bad PG");
		close(fd);
	}
	rp_after("frames out of order and bad binary requests");
}

/* Many requests in flight on one connection, matched by id. */
static void
test_pipelining(void)
{
	enum { N = 500 };
	static char seen[N];
	json_t *r;
	uint64_t id;
	int fd, i, good = 0;

	if ((fd = rp_open()) == -1) {
		rp_ok(0, "pipelining: no connection");
		return;
	}
	for (i = 0; i < N; i++)
		if (rp_send_json(fd, FRAME_REQUEST, 1000 + (uint64_t)i, i % 2 ?
		    "{\"prefix\":\"status\"}" : "{\"prefix\":\"version\"}") ==
		    -1)
			break;
	for (i = 0; i < N; i++) {
		if ((r = rp_read_reply(fd, RP_TIMEOUT_MS, &id)) == NULL)
			break;
		if (id >= 1000 && id < 1000 + N && !seen[id - 1000] &&
		    rp_rc(r) == 0) {
			seen[id - 1000] = 1;
			good++;
		}
		json_decref(r);
	}
	close(fd);
	rp_ok(good == N, "%d requests in flight on one connection: %d "
	    "answered once each, by id", N, good);
}

/* Clients that vanish mid-request: plain closes and resets. */
static void
test_disconnects(void)
{
	char text[128];
	int fd, i, j;

	for (i = 0; i < 40; i++) {
		if ((fd = rp_open()) == -1)
			continue;
		for (j = 0; j < 10; j++) {
			switch (j % 5) {
			case 0:
				snprintf(text, sizeof text, "{\"prefix\":"
				    "\"osd pool create\",\"pool\":\"gone%d\","
				    "\"pg_num\":4}", i);
				break;
			case 1:
				snprintf(text, sizeof text,
				    "{\"prefix\":"
				    "\"pg dump\",\"dumpcontents\":[\"pgs\"]}");
				break;
			case 2:
				snprintf(text, sizeof text, "{\"prefix\":"
				    "\"subscribe\",\"what\":\"%s\"}",
				    i % 2 ? "pgmap" : "osdmap");
				break;
			case 3:
				snprintf(text, sizeof text, "{\"prefix\":"
				    "\"osd create\"}");
				break;
			default:
				snprintf(text, sizeof text, "{\"prefix\":"
				    "\"get_command_descriptions\"}");
				break;
			}
			(void)rp_send_json(fd, FRAME_REQUEST, (uint64_t)j + 1,
			    text);
		}
		if (i % 2)
			rp_reset(fd);
		else
			close(fd);
	}
	/* And in the middle of the HELLO. */
	for (i = 0; i < 20; i++) {
		if ((fd = rp_connect()) == -1)
			continue;
		(void)rp_send_json(fd, FRAME_HELLO, 1, "{\"protocol\":1}");
		rp_reset(fd);
	}
	rp_after("40 clients gone mid-request (writes, dumps, subscriptions) "
	    "and 20 mid-HELLO");
	rp_ok(rp_wait_connections(1), "every vanished client's connection "
	    "is released");
}

/* Open a connection that is accepted (HELLO answered): fd, or -1. */
static int
rp_open_accepted(int *refused)
{
	struct frame_header h;
	char *p;
	int fd, r;

	struct pollfd pfd;

	*refused = 0;
	if ((fd = rp_connect()) == -1)
		return -1;
	/*
	 * A refused connection is answered at once and closed; wait a moment
	 * for that before saying HELLO, since a HELLO that reaches the
	 * closed socket would turn the close into a reset that can destroy
	 * the answer.
	 */
	pfd.fd = fd;
	pfd.events = POLLIN;
	if ((poll(&pfd, 1, 150) == 0 && rp_send_json(fd, FRAME_HELLO, 1,
	    "{\"protocol\":1}") == -1) ||
	    (r = rp_read_frame(fd, RP_TIMEOUT_MS, &h, &p)) != 1) {
		close(fd);
		return -1;
	}
	if (h.type == FRAME_REPLY && h.id == 0 && strstr(p, "too many "
	    "connections") != NULL && strstr(p, "-16") != NULL)
		*refused = 1;
	r = h.type == FRAME_HELLO;
	free(p);
	if (!r) {
		close(fd);
		return -1;
	}
	return fd;
}

/* 1,000 idle connections; then max_connections; then the idle timeout. */
static void
test_idle(void)
{
	static int fds[RP_MAX_CONNECTIONS + 16];
	struct pollfd *pfd;
	struct rlimit rl;
	json_t *r;
	int64_t deadline, idle0;
	int i, n = 0, extra = 0, refused = 0, closed, fd;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1200) {
		rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!rp_wait_connections(1))
		rp_diag("connections still open before the idle test");

	/* Half say HELLO and then nothing; half never say anything. */
	for (i = 0; i < RP_IDLE; i++) {
		fds[i] = i % 2 ? rp_open() : rp_connect();
		if (fds[i] != -1)
			n++;
	}
	rp_ok(n == RP_IDLE, "%d idle connections open (half of them after "
	    "their HELLO)", n);
	rp_after("1,000 idle connections");
	rp_ok(rp_wait_connections(RP_IDLE + 1), "the daemon counts them");

	/* max_connections = 1010: ten more get in, the next is refused. */
	for (i = RP_IDLE; i < RP_MAX_CONNECTIONS + 5; i++) {
		fds[i] = rp_open_accepted(&refused);
		if (fds[i] == -1)
			break;
		extra++;
	}
	n += extra;
	rp_ok(extra == RP_MAX_CONNECTIONS - RP_IDLE && refused, "max_connections: "
	    "%d more accepted, then one REPLY -EBUSY \"too many connections\"",
	    extra);
	r = rp_call("{\"prefix\":\"status\"}");
	rp_ok(r == NULL && rp_alive(), "a client past max_connections is "
	    "turned away while the limit is held, and the daemon lives");
	json_decref(r);
	for (i = RP_IDLE; i < RP_IDLE + extra; i++)
		close(fds[i]);
	n -= extra;
	rp_ok(rp_wait_connections(RP_IDLE + 1), "the extra connections are "
	    "released");
	rp_after("max_connections reached and left");

	/* idle_timeout 1s at run time: every idle connection is closed. */
	idle0 = rp_perf_server("closed_idle");
	r = rp_call("{\"prefix\":\"config set\",\"key\":\"mon.idle_timeout\","
	    "\"value\":\"1s\"}");
	rp_ok(r != NULL && rp_rc(r) == 0, "config set mon.idle_timeout 1s");
	json_decref(r);
	pfd = xcalloc(RP_IDLE, sizeof *pfd);
	for (i = 0; i < RP_IDLE; i++) {
		pfd[i].fd = fds[i];
		pfd[i].events = POLLIN;
	}
	closed = 0;
	deadline = rp_now_ms() + 4000;
	while (closed < n && rp_now_ms() < deadline) {
		if (poll(pfd, RP_IDLE, 200) <= 0)
			continue;
		for (i = 0; i < RP_IDLE; i++) {
			char c;

			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			if (recv(pfd[i].fd, &c, 1, 0) <= 0) {
				closed++;
				close(pfd[i].fd);
				pfd[i].fd = -1;
			}
		}
	}
	rp_ok(closed == n, "idle_timeout 1s: %d of %d idle connections closed "
	    "by the server within 4 s", closed, n);
	rp_ok(rp_perf_server("closed_idle") - idle0 >= n, "perf dump counts "
	    "them in server.closed_idle");
	for (i = 0; i < RP_IDLE; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	free(pfd);
	/* A connection that keeps talking is not idle. */
	fd = rp_open();
	for (i = 0; fd != -1 && i < 8; i++) {
		rp_sleep_ms(200);
		if ((r = rp_call_fd(fd, 60 + (uint64_t)i,
		    "{\"prefix\":\"version\"}")) == NULL)
			break;
		json_decref(r);
	}
	rp_ok(i == 8, "a client asking every 200 ms outlives a 1 s idle "
	    "timeout");
	if (fd != -1)
		close(fd);
	r = rp_call("{\"prefix\":\"config set\",\"key\":\"mon.idle_timeout\","
	    "\"value\":\"0\"}");
	rp_ok(r != NULL && rp_rc(r) == 0, "config set mon.idle_timeout 0");
	json_decref(r);
	rp_after("the idle timeout");
}

/*
 * Subscribers that never read: each of two asks for 16 snapshots of a
 * pgmap of 12,000 PGs (about 270 MB of pushes) through a small receive
 * window.  The
 * server must cut each one at max_client_output (1M) with a reset, keep
 * answering everyone else meanwhile, and its memory must not follow.
 */
static void
test_slow_subscriber(void)
{
	enum { NSLOW = 2, NSUBS = 16 };
	int fds[NSLOW], i, j, cut = 0;
	int64_t slow0, deadline, t0;
	long rss0, rss1;
	json_t *r;

	r = rp_call("{\"prefix\":\"osd pool create\",\"pool\":\"big\","
	    "\"pg_num\":12000}");
	rp_ok(r != NULL && rp_rc(r) == 0, "a pool of 12,000 PGs");
	json_decref(r);
	slow0 = rp_perf_server("closed_slow");
	rss0 = rp_rss_kb();

	for (i = 0; i < NSLOW; i++) {
		fds[i] = rp_connect_buf(4096);
		if (fds[i] == -1 || rp_hello(fds[i]) == -1)
			continue;
		for (j = 0; j < NSUBS; j++)
			(void)rp_send_json(fds[i], FRAME_REQUEST, 100 +
			    (uint64_t)j, "{\"prefix\":\"subscribe\","
			    "\"what\":\"pgmap\"}");
	}
	t0 = rp_now_ms();
	rp_timeout_ms = 30000;
	i = rp_status_ok();
	rp_timeout_ms = RP_TIMEOUT_MS;
	t0 = rp_now_ms() - t0;
	rp_ok(i, "status is answered while %d subscribers do not read", NSLOW);
	rp_diag("status waited %lld ms behind %d pgmap snapshots", (long long)t0,
	    NSLOW);
	deadline = rp_now_ms() + 10000;
	while (rp_now_ms() < deadline &&
	    rp_perf_server("closed_slow") - slow0 < NSLOW)
		rp_sleep_ms(50);
	rp_ok(rp_perf_server("closed_slow") - slow0 == NSLOW, "each reader "
	    "that does not read is cut (server.closed_slow +%d)", NSLOW);
	rss1 = rp_rss_kb();
	rp_diag("daemon RSS %ld kB before, %ld kB after", rss0, rss1);
	rp_ok(rss0 > 0 && rss1 > 0 && rss1 - rss0 < 256 * 1024, "memory stays "
	    "bounded: RSS grew by %ld kB, not by the 540 MB of pushes asked "
	    "for", rss1 - rss0);
	for (i = 0; i < NSLOW; i++) {
		if (fds[i] == -1)
			continue;
		cut += rp_wait_closed(fds[i], RP_TIMEOUT_MS);
		close(fds[i]);
	}
	rp_ok(cut == NSLOW, "the cut readers find their connection closed");
	rp_ok(rp_wait_connections(1), "their connections and subscriptions "
	    "are released");
	r = rp_call("{\"prefix\":\"perf dump\"}");
	rp_ok(r != NULL && json_integer_value(json_object_get(json_object_get(
	    json_object_get(r, "data"), "subscriptions"), "active")) == 0,
	    "no subscription is left behind");
	json_decref(r);
	rp_after("subscribers that never read");
}

/* Occurrences of needle in p[0..len). */
static size_t
rp_count(const char *p, size_t len, const char *needle)
{
	size_t n = 0, nl = strlen(needle);
	const char *q = p, *end = p + len;

	while ((q = memmem(q, (size_t)(end - q), needle, nl)) != NULL) {
		n++;
		q += nl;
	}
	return n;
}

/*
 * A subscriber that reads gets the whole pgmap snapshot of some 200,000
 * PGs (300 MB of JSON), in chunks small enough that building one does not
 * hold the daemon's loop: a status asked between chunks is answered at
 * once.  The PGs are counted by their "pgid" keys, not parsed: jansson
 * would take the test ten seconds.
 */
static void
test_snapshot(void)
{
	struct frame_header h;
	json_t *r;
	char *p;
	size_t total = 0, biggest = 0, n;
	int64_t num_pgs, t0, waited, worst = 0, sum = 0;
	int fd, pushes = 0, last = 0, ok = 1, asked = 0;

	r = rp_call("{\"prefix\":\"osd pool create\",\"pool\":\"snap\","
	    "\"pg_num\":200000}");
	rp_ok(r != NULL && rp_rc(r) == 0, "a pool of 200,000 PGs");
	json_decref(r);
	r = rp_call("{\"prefix\":\"pg stat\"}");
	num_pgs = r != NULL ? json_integer_value(json_object_get(
	    json_object_get(r, "data"), "num_pgs")) : -1;
	json_decref(r);
	if ((fd = rp_open()) == -1 || rp_send_json(fd, FRAME_REQUEST, 300,
	    "{\"prefix\":\"subscribe\",\"what\":\"pgmap\"}") == -1) {
		rp_ok(0, "pgmap snapshot: could not subscribe");
		if (fd != -1)
			close(fd);
		return;
	}
	while (ok && !last && rp_read_frame(fd, RP_TIMEOUT_MS, &h, &p) == 1) {
		if (h.type == FRAME_PUSH && h.id == 300 &&
		    memmem(p, h.len, "\"full\":true", 11) != NULL) {
			n = rp_count(p, h.len, "\"pgid\":");
			total += n;
			if (n > biggest)
				biggest = n;
			pushes++;
			last = h.len > 12 &&
			    memcmp(p + h.len - 12, "\"last\":true}", 12) == 0;
		} else if (h.type != FRAME_REPLY || h.id != 300)
			ok = 0;
		free(p);
		/* A status now and then, while the daemon sends the rest. */
		if (!last && pushes % 40 == 1) {
			t0 = rp_now_ms();
			if (!rp_status_ok())
				ok = 0;
			waited = rp_now_ms() - t0;
			sum += waited;
			asked++;
			if (waited > worst)
				worst = waited;
		}
	}
	close(fd);
	/*
	 * daemon/sub.h's SUB_PG_CHUNK PGs a push, each sent once the last has
	 * been written out: a reader is never cut at max_client_output (1M
	 * here), and no chunk holds the loop for long.
	 */
	rp_ok(ok && last && num_pgs > 0 && total == (size_t)num_pgs, "a "
	    "reading subscriber gets the whole pgmap snapshot: %zu of %lld PGs "
	    "in %d pushes, the last one marked", total, (long long)num_pgs,
	    pushes);
	rp_ok(biggest <= 1000 && biggest > 0, "pgmap snapshot pushes hold at "
	    "most 1,000 PGs (the largest: %zu)", biggest);
	rp_diag("%d status calls during the snapshot: mean %lld ms, worst "
	    "%lld ms", asked, asked > 0 ? (long long)(sum / asked) : 0LL,
	    (long long)worst);
	rp_ok(asked > 0 && worst < 500, "status is answered within 500 ms "
	    "during a snapshot of %lld PGs (worst %lld ms)", (long long)num_pgs,
	    (long long)worst);
}

/*
 * Out of descriptors: the daemon runs with a limit of 64, about 16 of them
 * its own.  A hundred clients connect; those past the limit must be
 * closed (the spare descriptor trick) rather than left to spin the loop on
 * a listener it cannot accept from, and once they leave, accepting must
 * resume.
 */
static void
test_fd_shortage(void)
{
	enum { N = 100 };
	struct pollfd pfd[N];
	int keep[N];
	struct frame_header h;
	long long cpu0, cpu1;
	int64_t deadline;
	char *p;
	int i, n = 0, helloed = 0, closed = 0, pending;

	for (i = 0; i < N; i++) {
		keep[i] = -1;
		pfd[i].fd = rp_connect();
		pfd[i].events = POLLIN;
		if (pfd[i].fd != -1) {
			n++;
			(void)rp_send_json(pfd[i].fd, FRAME_HELLO, 1,
			    "{\"protocol\":1}");
		}
	}
	rp_ok(n == N, "%d of %d connections made (the kernel's backlog "
	    "takes what the daemon cannot accept)", n, N);
	/* Each HELLO is answered, or its connection closed, or it waits. */
	deadline = rp_now_ms() + 3000;
	while (rp_now_ms() < deadline && helloed + closed < n) {
		if (poll(pfd, N, 100) <= 0)
			continue;
		for (i = 0; i < N; i++) {
			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			if (rp_read_frame(pfd[i].fd, 1000, &h, &p) == 1 &&
			    h.type == FRAME_HELLO) {
				helloed++;
				keep[i] = pfd[i].fd;	/* held open */
				pfd[i].fd = -1;
			} else {
				closed++;
				close(pfd[i].fd);
				pfd[i].fd = -1;
			}
			free(p);
		}
	}
	pending = n - helloed - closed;
	rp_diag("descriptor shortage: %d answered, %d closed, %d waiting",
	    helloed, closed, pending);
	rp_ok(helloed >= 20 && helloed < n, "out of descriptors: %d clients "
	    "served, the rest turned away or waiting", helloed);
	rp_ok(closed >= 1, "connections it cannot take are accepted with the "
	    "spare descriptor and closed (%d)", closed);

	/* While the shortage lasts, the loop must not spin. */
	cpu0 = rp_cpu_ticks();
	rp_sleep_ms(2000);
	cpu1 = rp_cpu_ticks();
	rp_ok(cpu0 >= 0 && cpu1 >= 0 && cpu1 - cpu0 < sysconf(_SC_CLK_TCK) / 2,
	    "no busy loop while out of descriptors (%lld ticks of CPU in 2 s)",
	    cpu1 - cpu0);

	for (i = 0; i < N; i++) {
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
		if (keep[i] >= 0)
			close(keep[i]);
	}
	/* Accepting resumes after its pause (1 s). */
	deadline = rp_now_ms() + 5000;
	while (rp_now_ms() < deadline && !rp_status_ok())
		rp_sleep_ms(200);
	rp_after("running out of descriptors");
}

int
main(int argc, char **argv)
{
	char *host, *colon;
	int ch, skip_idle = 0, fds_only = 0;

	while ((ch = getopt(argc, argv, "EI")) != -1) {
		switch (ch) {
		case 'E':
			fds_only = 1;
			break;
		case 'I':
			skip_idle = 1;
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		goto usage;
	host = xstrdup(argv[0]);
	if ((colon = strrchr(host, ':')) == NULL)
		goto usage;
	*colon = '\0';
	memset(&rp_addr, 0, sizeof rp_addr);
	rp_addr.sin_family = AF_INET;
	rp_addr.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &rp_addr.sin_addr) != 1)
		goto usage;
	free(host);
	rp_pid = (pid_t)atol(argv[1]);
	signal(SIGPIPE, SIG_IGN);

	if (fds_only) {
		rp_ok(rp_status_ok(), "status is answered before anything "
		    "(64 descriptors)");
		test_fd_shortage();
		return rp_failed > 0 ? 1 : 0;
	}
	rp_ok(rp_status_ok(), "status is answered before anything");
	test_random_bytes();
	test_truncated();
	test_oversize();
	test_utf8();
	test_nesting();
	test_wrong_types();
	test_unknown_prefix();
	test_protocol_misuse();
	test_pipelining();
	test_disconnects();
	if (skip_idle)
		printf("ok - 1,000 idle connections # SKIP descriptor limit "
		    "below 1,200\n");
	else
		test_idle();
	test_slow_subscriber();
	test_snapshot();
	return rp_failed > 0 ? 1 : 0;

usage:
	fprintf(stderr, "usage: robust_proto [-EI] 127.0.0.1:PORT PID\n");
	return MAPMON_EXIT_USAGE;
}
