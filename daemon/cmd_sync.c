/*
 * cmd_sync.c: `mon sync', the providing side of a store copied to a
 * monitor that lags past the raft log or joins (mapmon-protocol(7), STORE
 * SYNC; the taking side is daemon/quorum_sync.c).
 *
 * The live store changes with every commit, and a copy in chunks over
 * many requests must be one consistent state: so the provider first
 * copies its store, on a thread of its own (store_copy(): one iterator,
 * one point in time), into a directory beside it, and serves the chunks
 * from that copy, which nothing writes.  Each chunk is read by an iterator
 * opened and freed within the request, from the key after the last one
 * sent: no iterator lives across loop turns, and memory is bounded by
 * [mon] sync_chunk_size, not by the store.  One copy at a time; it is
 * removed once nobody asked for a chunk for CMD_SYNC_IDLE_US, or when a
 * later entry is wanted.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/b64.h"
#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "daemon/cmd_priv.h"
#include "mon/mon_conf.h"
#include "mon/mon_quorum.h"
#include "store/store.h"

/* A copy nobody read for this long is removed. */
#define CMD_SYNC_IDLE_US (60 * 1000000LL)

struct cmd_sync_wait {
	struct cmd_req *req;
	struct cmd_sync_wait *next;
};

/* The one copy of this process. */
static struct {
	struct cmd_ctx *ctx;
	char *dir;	    /* DATA/sync.provide */
	struct store *copy; /* open once made */
	uint64_t cookie;
	uint64_t entry, term; /* its "Q" */
	uint64_t records;
	int64_t used_mono;
	/* The copying thread, and who waits for it. */
	pthread_t thread;
	int running;
	int fd; /* eventfd: the thread -> the loop */
	struct event *done_ev;
	struct event *idle_ev;
	int rc;
	char *cause;
	struct store_options so; /* the copy's */
	struct cmd_sync_wait *waiting;
} cmd_sync = { .fd = -1 };

static int
cmd_sync_rm_one(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) == -1 ? -1 : 0;
}

/* Close and remove the copy (none running). */
static void
cmd_sync_drop(void)
{
	if (cmd_sync.copy != NULL) {
		store_close(cmd_sync.copy);
		cmd_sync.copy = NULL;
	}
	if (cmd_sync.dir != NULL)
		nftw(cmd_sync.dir, cmd_sync_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	cmd_sync.cookie = 0;
}

static void
cmd_sync_count(uint64_t done, int64_t total, void *arg)
{
	(void)total;
	*(uint64_t *)arg = done;
}

/* The copying thread: the live store into cmd_sync.dir. */
static void *
cmd_sync_run(void *arg)
{
	struct mon *m = arg;
	struct store *dst = NULL;
	uint64_t one = 1, n = 0;
	char *cause = NULL;
	int rc;

	mon_thread_normal("store copy");
	if ((rc = store_open(cmd_sync.dir, &cmd_sync.so, STORE_CREATE, &dst,
		 &cause)) == 0) {
		rc = store_copy(mon_store(m), dst, cmd_sync_count, &n, &cause);
		store_close(dst);
	}
	cmd_sync.rc = rc;
	cmd_sync.cause = cause;
	cmd_sync.records = n;
	if (write(cmd_sync.fd, &one, sizeof one) != sizeof one)
		log_warn("sync: eventfd");
	return NULL;
}

/* The answer to a start: what the copy is. */
static json_t *
cmd_sync_describe(const struct mon *m)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:s, s:s}", "cookie",
	    (json_int_t)cmd_sync.cookie, "entry", (json_int_t)cmd_sync.entry,
	    "term", (json_int_t)cmd_sync.term, "records",
	    (json_int_t)cmd_sync.records, "fsid", mon_monmap(m)->fsid,
	    "backend", store_backend_name(cmd_sync.copy));
}

static void
cmd_sync_done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct cmd_ctx *ctx = arg;
	struct cmd_sync_wait *w, *next;
	struct store_options so;
	uint64_t v;
	char *cause = NULL;
	int rc;

	(void)what;
	if (read(fd, &v, sizeof v) != sizeof v)
		return;
	pthread_join(cmd_sync.thread, NULL);
	cmd_sync.running = 0;
	rc = cmd_sync.rc;
	cause = cmd_sync.cause;
	cmd_sync.cause = NULL;
	if (rc == 0) {
		mon_conf_store_options(ctx->conf, &so);
		so.backend = NULL;
		rc = store_open(cmd_sync.dir, &so, 0, &cmd_sync.copy, &cause);
	}
	if (rc == 0 &&
	    mon_quorum_store_applied(cmd_sync.copy, &cmd_sync.entry,
		&cmd_sync.term, &cause) == -1)
		rc = -1;
	if (rc != 0) {
		log_warnx("sync: copying the store for another monitor: %s",
		    cause);
		cmd_sync_drop();
	} else {
		cmd_sync.cookie = (uint64_t)stamp_now();
		cmd_sync.used_mono = stamp_mono();
		log_info("sync: store copied for another monitor: entry %llu, "
			 "%llu records",
		    (unsigned long long)cmd_sync.entry,
		    (unsigned long long)cmd_sync.records);
	}
	for (w = cmd_sync.waiting; w != NULL; w = next) {
		next = w->next;
		if (rc != 0)
			cmd_replyf(w->req, -EIO, NULL,
			    "cannot copy the store: %s", cause);
		else
			cmd_reply(w->req, 0, NULL, cmd_sync_describe(ctx->mon));
		free(w);
	}
	cmd_sync.waiting = NULL;
	free(cause);
}

static void
cmd_sync_idle_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (cmd_sync.running || cmd_sync.copy == NULL)
		return;
	if (stamp_mono() - cmd_sync.used_mono < CMD_SYNC_IDLE_US)
		return;
	log_info("sync: the copy of entry %llu was not read for %lld s: "
		 "removed",
	    (unsigned long long)cmd_sync.entry,
	    (long long)(CMD_SYNC_IDLE_US / 1000000));
	cmd_sync_drop();
}

/* Make the events once; -1 with r answered when they cannot be. */
static int
cmd_sync_init(struct cmd_req *r)
{
	struct cmd_ctx *ctx = r->ctx;
	struct timeval tv = { 5, 0 };

	if (cmd_sync.ctx != NULL)
		return 0;
	if ((cmd_sync.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1) {
		cmd_replyf(r, -errno, NULL, "eventfd: %s", strerror(errno));
		return -1;
	}
	cmd_sync.done_ev = event_new(ctx->base, cmd_sync.fd,
	    EV_READ | EV_PERSIST, cmd_sync_done_cb, ctx);
	cmd_sync.idle_ev = event_new(ctx->base, -1, EV_PERSIST,
	    cmd_sync_idle_cb, ctx);
	if (cmd_sync.done_ev == NULL || cmd_sync.idle_ev == NULL ||
	    event_add(cmd_sync.done_ev, NULL) == -1 ||
	    event_add(cmd_sync.idle_ev, &tv) == -1)
		fatalx("sync: cannot add the events");
	xasprintf(&cmd_sync.dir, "%s/sync.provide",
	    conf_str(ctx->conf, CONF_MON_DATA));
	cmd_sync.ctx = ctx;
	return 0;
}

/* Start: {"from": N}: a copy holding entry N or later. */
static void
cmd_sync_start(struct cmd_req *r, json_t *cmd)
{
	struct mon *m = r->ctx->mon;
	struct mon_quorum_info info;
	struct cmd_sync_wait *w;
	uint64_t from = (uint64_t)cmd_get_int(cmd, "from", 0);
	int rc;

	if (mon_quorum_info(m, &info) == -1) {
		cmd_reply(r, -EINVAL,
		    "this monitor is alone: no quorum, no sync", NULL);
		return;
	}
	if (info.syncing || info.applied_index < from) {
		cmd_replyf(r, -EAGAIN, NULL,
		    "this monitor's store holds entry %llu%s, not yet entry "
		    "%llu (retry, or another monitor)",
		    (unsigned long long)info.applied_index,
		    info.syncing ? " and is being copied itself" : "",
		    (unsigned long long)from);
		return;
	}
	if (cmd_sync_init(r) == -1)
		return;
	if (!cmd_sync.running && cmd_sync.copy != NULL &&
	    cmd_sync.entry >= from) {
		cmd_sync.used_mono = stamp_mono();
		cmd_reply(r, 0, NULL, cmd_sync_describe(m));
		return;
	}
	w = xcalloc(1, sizeof *w);
	w->req = r;
	w->next = cmd_sync.waiting;
	cmd_sync.waiting = w;
	if (cmd_sync.running)
		return; /* its entry is this monitor's now, at least from */
	cmd_sync_drop();
	mon_conf_store_options(r->ctx->conf, &cmd_sync.so);
	cmd_sync.so.backend = store_backend_name(mon_store(m));
	/* A copy lost in a crash is made again: no fsync. */
	cmd_sync.so.sync = STORE_SYNC_NONE;
	cmd_sync.running = 1;
	log_info("sync: copying the store (entry %llu) for a monitor that "
		 "wants entry %llu",
	    (unsigned long long)info.applied_index, (unsigned long long)from);
	if ((rc = pthread_create(&cmd_sync.thread, NULL, cmd_sync_run, m)) !=
	    0) {
		cmd_sync.running = 0;
		cmd_sync.waiting = w->next;
		free(w);
		cmd_replyf(r, -rc, NULL, "pthread_create: %s", strerror(rc));
	}
}

/*
 * Chunk: {"cookie": C, "after": KEY}: the records after KEY (base64; ""
 * from the first), up to sync_chunk_size bytes, as [KEY, VALUE] pairs in
 * base64, and whether they are the last.
 */
static void
cmd_sync_chunk(struct cmd_req *r, json_t *cmd)
{
	struct cmd_ctx *ctx = r->ctx;
	uint64_t cookie = (uint64_t)cmd_get_int(cmd, "cookie", 0);
	const char *after = cmd_get_str(cmd, "after");
	size_t limit = (size_t)conf_int(ctx->conf, CONF_MON_SYNC_CHUNK_SIZE);
	size_t alen = 0, klen, vlen, bytes = 0;
	uint8_t lo[STORE_KEY_MAX + 2];
	const void *k, *v;
	struct store_iter *it;
	json_t *recs, *pair;
	char *cause = NULL, *kb, *vb, *last = NULL;
	int rc, done = 0;

	if (cmd_sync.copy == NULL || cmd_sync.running ||
	    cookie != cmd_sync.cookie) {
		cmd_replyf(r, -ESTALE, NULL,
		    "no copy of cookie %llu here (removed or replaced): start "
		    "again",
		    (unsigned long long)cookie);
		return;
	}
	cmd_sync.used_mono = stamp_mono();
	if (after != NULL && *after != '\0') {
		uint8_t *raw = NULL;

		if (store_key_unescape(after, &raw, &alen, &cause) != 0 ||
		    alen == 0 || alen > STORE_KEY_MAX) {
			cmd_replyf(r, -EINVAL, NULL, "after: not a key: %s",
			    cause ? cause : "empty or too long");
			free(cause);
			free(raw);
			return;
		}
		memcpy(lo, raw, alen);
		free(raw);
		/* The first key greater than it. */
		lo[alen++] = 0;
	}
	if ((it = store_iter_new(cmd_sync.copy, alen ? lo : NULL, alen, NULL, 0,
		 &cause)) == NULL) {
		cmd_replyf(r, -EIO, NULL, "%s", cause);
		free(cause);
		return;
	}
	recs = json_array();
	for (;;) {
		if (bytes >= limit)
			break;
		if ((rc = store_iter_next(it, &k, &klen, &v, &vlen)) == 0) {
			done = 1;
			break;
		}
		if (rc < 0) {
			cmd_replyf(r, -EIO, NULL, "reading the copy: %s",
			    store_iter_cause(it) ? store_iter_cause(it) :
						   store_strerror(rc));
			store_iter_free(it);
			json_decref(recs);
			free(last);
			return;
		}
		kb = b64_encode(k, klen);
		vb = b64_encode(v, vlen);
		pair = json_array();
		json_array_append_new(pair, json_string(kb));
		json_array_append_new(pair, json_string(vb));
		json_array_append_new(recs, pair);
		free(kb);
		free(vb);
		free(last);
		last = store_key_escape(k, klen);
		bytes += klen + vlen;
	}
	store_iter_free(it);
	cmd_reply(r, 0, NULL,
	    json_pack("{s:o, s:s, s:b}", "records", recs, "last",
		last != NULL ? last : (after != NULL ? after : ""), "done",
		done));
	free(last);
}

void
cmd_mon_sync(struct cmd_req *r, json_t *cmd)
{
	const char *op = cmd_get_str(cmd, "op");

	if (strcmp(op, "start") == 0)
		cmd_sync_start(r, cmd);
	else
		cmd_sync_chunk(r, cmd);
}

int
cmd_sync_copying(void)
{
	return cmd_sync.running;
}

void
cmd_sync_free(void)
{
	struct cmd_sync_wait *w, *next;

	if (cmd_sync.ctx == NULL)
		return;
	if (cmd_sync.running) {
		pthread_join(cmd_sync.thread, NULL);
		cmd_sync.running = 0;
		free(cmd_sync.cause);
		cmd_sync.cause = NULL;
	}
	for (w = cmd_sync.waiting; w != NULL; w = next) {
		next = w->next;
		cmd_reply(w->req, -ESHUTDOWN, "the monitor is stopping", NULL);
		free(w);
	}
	cmd_sync.waiting = NULL;
	cmd_sync_drop();
	event_free(cmd_sync.done_ev);
	event_free(cmd_sync.idle_ev);
	close(cmd_sync.fd);
	cmd_sync.fd = -1;
	free(cmd_sync.dir);
	cmd_sync.dir = NULL;
	cmd_sync.ctx = NULL;
}
