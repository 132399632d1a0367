/*
 * quorum_sync.c: a store copied from another monitor (quorum_sync.h).
 *
 * One copy: `mon sync start' with the entry wanted gives a cookie and what
 * the provider's copy holds (its entry, its record count, the fsid); then
 * `mon sync chunk' with the last key received, until the provider says it
 * was the last.  Each chunk is one store batch.  The copy is then opened
 * again and checked: as many records as the provider counted, its "Q"
 * record at the entry wanted or later, and every record decoded and every
 * invariant held (mon_verify(), as `mapmon-store verify').
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/b64.h"
#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "daemon/quorum_sync.h"
#include "mon/mon.h"
#include "mon/mon_quorum.h"
#include "mon/mon_verify.h"
#include "net/client.h"
#include "net/tls.h"

/* A chunk's answer, or the start's (the provider copies its store first). */
#define QUORUM_SYNC_CALL_MS (30 * 1000)
#define QUORUM_SYNC_START_MS (300 * 1000)

struct quorum_sync {
	struct event_base *base; /* the monitor's */
	char *data, *dir;
	struct store_options so;
	char **addrs;
	size_t naddrs;
	uint8_t key[MON_AUTH_KEY_LEN];
	char fsid[37];
	uint64_t from;
	char *tls_ca;
	quorum_sync_done_cb *done;
	void *arg;

	pthread_t thread;
	atomic_int stop;
	int fd; /* eventfd: the thread -> the loop */
	struct event *done_ev;
	uint64_t entry; /* of the copy made */
};

/* One request on the thread's own base, waited for. */
struct quorum_sync_call {
	int done;
	int rc;
	char *status;
	json_t *data;
};

static void
quorum_sync_reply(void *arg, int rc, const char *status, json_t *data)
{
	struct quorum_sync_call *c = arg;

	c->done = 1;
	c->rc = rc;
	c->status = xstrdup(status != NULL ? status : "");
	c->data = data != NULL ? json_incref(data) : NULL;
}

/* A tick, so that a stop is seen while waiting. */
static void
quorum_sync_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

/*
 * One request and its answer.  Unanswered (a stop, the time out), the
 * client is freed here, *clp NULL: its callback, which writes into this
 * frame, runs now and never later.
 */
static int
quorum_sync_call(struct quorum_sync *s, struct event_base *base,
    struct mclient **clp, json_t *cmd, int timeout_ms, json_t **data,
    char **cause)
{
	struct quorum_sync_call c = { 0 };
	int64_t until = stamp_mono() + (int64_t)timeout_ms * 1000;
	int rc;

	*data = NULL;
	if (mclient_request(*clp, cmd, quorum_sync_reply, &c) == -1) {
		json_decref(cmd);
		xasprintf(cause, "the connection is gone");
		return -ECONNRESET;
	}
	json_decref(cmd);
	while (!c.done && !atomic_load(&s->stop) && stamp_mono() < until)
		event_base_loop(base, EVLOOP_ONCE);
	if (!c.done) {
		mclient_free(*clp);
		*clp = NULL;
		free(c.status);
		json_decref(c.data);
		xasprintf(cause, "%s",
		    atomic_load(&s->stop) ? "stopping" : "no answer in time");
		return -ETIMEDOUT;
	}
	rc = c.rc;
	if (rc != 0) {
		*cause = c.status;
		json_decref(c.data);
		return rc;
	}
	free(c.status);
	*data = c.data;
	return 0;
}

/* Decode base64 s into a new buffer of *len bytes; NULL when it is bad. */
static uint8_t *
quorum_sync_b64(const char *s, size_t *len, char **cause)
{
	size_t n = strlen(s), want;
	uint8_t *out;

	if (n % 4 != 0) {
		xasprintf(cause, "base64 of %zu characters", n);
		return NULL;
	}
	want = n / 4 * 3;
	if (n > 0 && s[n - 1] == '=')
		want--;
	if (n > 1 && s[n - 2] == '=')
		want--;
	out = xmalloc(want + 1);
	if (b64_decode_exact(s, out, want, cause) == -1) {
		free(out);
		return NULL;
	}
	*len = want;
	return out;
}

static int
quorum_sync_rm_one(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) == -1 ? -1 : 0;
}

static void
quorum_sync_problem(void *arg, const char *problem)
{
	char **first = arg;

	if (*first == NULL)
		*first = xstrdup(problem);
}

/* Check the copy in s->dir: 0, or -1 with *cause. */
static int
quorum_sync_check(struct quorum_sync *s, char **cause)
{
	struct mon_verify_counts counts;
	struct store *c;
	uint64_t entry = 0, term;
	char *problem = NULL;
	int rc = 0;

	if (store_open(s->dir, &s->so, 0, &c, cause) != 0)
		return -1;
	if (mon_quorum_store_applied(c, &entry, &term, cause) == -1)
		rc = -1;
	if (rc == 0 && entry < s->from) {
		xasprintf(cause, "the copy holds entry %llu, not %llu",
		    (unsigned long long)entry, (unsigned long long)s->from);
		rc = -1;
	}
	if (rc == 0 &&
	    mon_verify(c, quorum_sync_problem, &problem, &counts) != 0) {
		xasprintf(cause, "the copy does not verify: %s",
		    problem != NULL ? problem : "?");
		rc = -1;
	}
	free(problem);
	store_close(c);
	if (rc == 0)
		s->entry = entry;
	return rc;
}

/* One copy from the monitor at addr: 0, or -1 with *cause. */
static int
quorum_sync_from(struct quorum_sync *s, const char *addr, char **cause)
{
	struct event_base *base = event_base_new();
	struct event *tick = NULL;
	struct timeval tv = { 0, 200 * 1000 };
	struct mclient *cl = NULL;
	struct store *dst = NULL;
	struct store_batch *b = NULL;
	SSL_CTX *ctx = NULL;
	json_t *data = NULL, *recs, *pair;
	const char *fsid;
	char *after = xstrdup(""), *why = NULL;
	uint64_t cookie, records, got = 0, entry, chunks = 0;
	int64_t t0 = stamp_mono();
	uint8_t *k, *v;
	size_t i, klen, vlen;
	int rc = -1, done = 0;

	if (base == NULL)
		fatalx("sync: event_base_new");
	tick = event_new(base, -1, EV_PERSIST, quorum_sync_tick, NULL);
	if (tick == NULL || event_add(tick, &tv) == -1)
		fatalx("sync: cannot add a timer");
	cl = mclient_new(base, addr, 5000, NULL, NULL, NULL);
	mclient_set_auth(cl, "mon.", s->key);
	if (s->tls_ca != NULL) {
		if ((ctx = tls_client_ctx(s->tls_ca, cause)) == NULL)
			goto out;
		mclient_set_tls(cl, ctx);
	}
	if (quorum_sync_call(s, base, &cl,
		json_pack("{s:s, s:s, s:I}", "prefix", "mon sync", "op",
		    "start", "from", (json_int_t)s->from),
		QUORUM_SYNC_START_MS, &data, &why) != 0) {
		xasprintf(cause, "mon sync start: %s", why);
		goto out;
	}
	fsid = json_string_value(json_object_get(data, "fsid"));
	cookie = (uint64_t)json_integer_value(json_object_get(data, "cookie"));
	records = (uint64_t)json_integer_value(
	    json_object_get(data, "records"));
	entry = (uint64_t)json_integer_value(json_object_get(data, "entry"));
	if (fsid == NULL || strcmp(fsid, s->fsid) != 0) {
		xasprintf(cause, "it is a monitor of cluster %s, not of %s",
		    fsid ? fsid : "?", s->fsid);
		goto out;
	}
	json_decref(data);
	data = NULL;
	log_info("sync: copying the store of the monitor at %s: entry %llu, "
		 "%llu records",
	    addr, (unsigned long long)entry, (unsigned long long)records);
	nftw(s->dir, quorum_sync_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (store_open(s->dir, &s->so, STORE_CREATE, &dst, cause) != 0)
		goto out;
	b = store_batch_new();
	while (!done) {
		if (quorum_sync_call(s, base, &cl,
			json_pack("{s:s, s:s, s:I, s:s}", "prefix", "mon sync",
			    "op", "chunk", "cookie", (json_int_t)cookie,
			    "after", after),
			QUORUM_SYNC_CALL_MS, &data, &why) != 0) {
			xasprintf(cause,
			    "mon sync chunk after %llu records: %s",
			    (unsigned long long)got, why);
			goto out;
		}
		recs = json_object_get(data, "records");
		done = json_is_true(json_object_get(data, "done"));
		if (!json_is_array(recs) ||
		    !json_is_string(json_object_get(data, "last"))) {
			xasprintf(cause, "a chunk without records or last key");
			goto out;
		}
		json_array_foreach(recs, i, pair) {
			k = quorum_sync_b64(
			    json_string_value(json_array_get(pair, 0)) ?: "?",
			    &klen, &why);
			v = k == NULL ?
			    NULL :
			    quorum_sync_b64(
				json_string_value(json_array_get(pair, 1)) ?:
									     "?",
				&vlen, &why);
			if (v == NULL) {
				xasprintf(cause, "record %llu of the copy: %s",
				    (unsigned long long)(got + i), why);
				free(k);
				goto out;
			}
			store_batch_put(b, k, klen, v, vlen);
			free(k);
			free(v);
		}
		got += json_array_size(recs);
		if (store_commit(dst, b, cause) != 0)
			goto out;
		store_batch_clear(b);
		free(after);
		after = xstrdup(
		    json_string_value(json_object_get(data, "last")));
		json_decref(data);
		data = NULL;
		chunks++;
		if (atomic_load(&s->stop)) {
			xasprintf(cause, "stopping");
			goto out;
		}
	}
	store_close(dst);
	dst = NULL;
	if (got != records) {
		xasprintf(cause, "%llu records came, the provider counted %llu",
		    (unsigned long long)got, (unsigned long long)records);
		goto out;
	}
	if (quorum_sync_check(s, cause) == -1)
		goto out;
	log_info("sync: %llu records in %llu chunks from %s in %lld ms: entry "
		 "%llu",
	    (unsigned long long)got, (unsigned long long)chunks, addr,
	    (long long)(stamp_mono() - t0) / 1000,
	    (unsigned long long)s->entry);
	rc = 0;
out:
	free(why);
	free(after);
	json_decref(data);
	if (b != NULL)
		store_batch_free(b);
	store_close(dst);
	mclient_free(cl);
	if (ctx != NULL)
		SSL_CTX_free(ctx);
	event_free(tick);
	event_base_free(base);
	return rc;
}

static void *
quorum_sync_run(void *arg)
{
	struct quorum_sync *s = arg;
	uint64_t one = 1;
	char *cause = NULL;
	size_t i;
	int k;

	mon_thread_normal("store sync");
	while (!atomic_load(&s->stop)) {
		for (i = 0; i < s->naddrs && !atomic_load(&s->stop); i++) {
			if (quorum_sync_from(s, s->addrs[i], &cause) == 0) {
				if (write(s->fd, &one, sizeof one) !=
				    sizeof one)
					log_warn("sync: eventfd");
				return NULL;
			}
			log_warnx("sync: from the monitor at %s: %s",
			    s->addrs[i], cause);
			free(cause);
			cause = NULL;
		}
		for (k = 0; k < 10 && !atomic_load(&s->stop); k++)
			usleep(100 * 1000);
	}
	return NULL;
}

static void
quorum_sync_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct quorum_sync *s = arg;
	uint64_t v;

	(void)what;
	if (read(fd, &v, sizeof v) != sizeof v)
		return;
	s->done(s->arg, s->dir, s->entry);
}

struct quorum_sync *
quorum_sync_start(struct event_base *base, const struct quorum_sync_params *p,
    quorum_sync_done_cb *done, void *arg, char **cause)
{
	struct quorum_sync *s = xcalloc(1, sizeof *s);
	size_t i;
	int rc;

	s->base = base;
	s->data = xstrdup(p->data);
	xasprintf(&s->dir, "%s/store.sync", p->data);
	s->so = p->so;
	s->addrs = xcalloc(p->naddrs + 1, sizeof *s->addrs);
	for (i = 0; i < p->naddrs; i++)
		s->addrs[i] = xstrdup(p->addrs[i]);
	s->naddrs = p->naddrs;
	memcpy(s->key, p->mon_key, sizeof s->key);
	snprintf(s->fsid, sizeof s->fsid, "%s", p->fsid);
	s->from = p->from;
	s->tls_ca = p->tls_ca != NULL ? xstrdup(p->tls_ca) : NULL;
	s->done = done;
	s->arg = arg;
	atomic_init(&s->stop, 0);
	s->fd = -1;
	if ((s->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1) {
		xasprintf(cause, "eventfd: %s", strerror(errno));
		goto fail;
	}
	s->done_ev = event_new(base, s->fd, EV_READ | EV_PERSIST,
	    quorum_sync_wake_cb, s);
	if (s->done_ev == NULL || event_add(s->done_ev, NULL) == -1) {
		xasprintf(cause, "cannot add the sync's event");
		goto fail;
	}
	if ((rc = pthread_create(&s->thread, NULL, quorum_sync_run, s)) != 0) {
		xasprintf(cause, "pthread_create: %s", strerror(rc));
		goto fail;
	}
	return s;
fail:
	if (s->done_ev != NULL)
		event_free(s->done_ev);
	if (s->fd != -1)
		close(s->fd);
	s->done_ev = NULL;
	s->fd = -1;
	s->thread = pthread_self();
	atomic_store(&s->stop, 2);
	quorum_sync_free(s);
	return NULL;
}

void
quorum_sync_free(struct quorum_sync *s)
{
	size_t i;

	if (s == NULL)
		return;
	if (atomic_load(&s->stop) != 2) {
		atomic_store(&s->stop, 1);
		pthread_join(s->thread, NULL);
	}
	if (s->done_ev != NULL)
		event_free(s->done_ev);
	if (s->fd != -1)
		close(s->fd);
	for (i = 0; i < s->naddrs; i++)
		free(s->addrs[i]);
	free(s->addrs);
	free(s->tls_ca);
	free(s->dir);
	free(s->data);
	free(s);
}
