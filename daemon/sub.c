/*
 * sub.c: subscriptions and their pushes (see sub.h).
 *
 * The daemon calls sub_commit() on the loop after each applied commit
 * (cmd.c hooks the monitor's notify); for each kind with subscribers the push is built and serialised once and
 * the same text is sent to every subscriber of that kind.  A subscriber the
 * server cuts (output past max_client_output, or a write stall) is dropped
 * when the server reports its connection closed.
 *
 * A pgmap snapshot is paced to its reader: a chunk of SUB_PG_CHUNK PGs,
 * written as text by pg_text (no jansson object), then nothing more until
 * the server says the connection's output has drained
 * (server_notify_drained).  So a snapshot holds the loop for a fraction of
 * a millisecond at a time, never fills max_client_output, and a reader that
 * never reads is left with one chunk queued until the write-stall bound
 * cuts it.  A subscription from an old osdmap epoch or log seq is paced
 * the same way, SUB_OSDMAP_CHUNK incrementals or SUB_LOG_CHUNK entries at
 * a time: how many there are is the client's choice (up to [mon]
 * min_epochs or log_max_entries).
 */
#include "config.h"

#include <sys/queue.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "mon/mon.h"
#include "map/pgmap.h"
#include "daemon/sub.h"
#include "net/frame.h"
#include "net/server.h"

#define SUB_HEALTH_CHECK_MS 1000

static const char *const sub_what_names[SUB_NWHAT] = {
	[SUB_OSDMAP] = "osdmap",
	[SUB_PGMAP] = "pgmap",
	[SUB_LOG] = "log",
	[SUB_HEALTH] = "health",
};

struct sub_one {
	uint64_t conn;
	uint64_t req;
	enum sub_what what;
	int has_start;
	int64_t start;
	TAILQ_ENTRY(sub_one) entry;

	/* A pgmap snapshot being sent, a chunk each time the output drains. */
	int snapping;
	uint32_t snap_pool;	/* the next PG: pool id and seed */
	uint32_t snap_seed;

	/*
	 * Stored osdmap incrementals or kept log entries being sent,
	 * likewise; the pushes of commits meanwhile are not sent to it, as
	 * the catch-up reads them from the store or the log ring.
	 */
	int catching;
	uint64_t catch_next;	/* the next epoch or log seq */

	/*
	 * A pgmap subscription resumed from a version: the PGs changed
	 * since, sent with their current stats, a chunk at a time.
	 */
	int resuming;
	struct pg_id *resume;
	size_t nresume, resume_at;
};

struct sub {
	struct event_base *base;
	struct mon *mon;
	struct server *server;
	TAILQ_HEAD(, sub_one) list;
	size_t n[SUB_NWHAT];
	uint64_t pushes;
	char *health_sig;	/* status and check codes last pushed */
	struct event *health_timer;
	struct pg_text snap_text; /* the loop's writer of snapshot chunks */
};

static void sub_health_tick(evutil_socket_t, short, void *);

int
sub_what_parse(const char *s)
{
	int i;

	for (i = 0; i < SUB_NWHAT; i++)
		if (s != NULL && strcmp(s, sub_what_names[i]) == 0)
			return i;
	return -1;
}

struct sub *
sub_new(struct event_base *base, struct mon *m)
{
	struct sub *s = xcalloc(1, sizeof *s);

	s->base = base;
	s->mon = m;
	TAILQ_INIT(&s->list);
	pg_text_init(&s->snap_text);
	if ((s->health_timer = event_new(base, -1, EV_PERSIST,
	    sub_health_tick, s)) == NULL)
		fatalx("cannot make the health timer");
	return s;
}

void
sub_set_server(struct sub *s, struct server *srv)
{
	s->server = srv;
}

/* Free o; a snapshot in progress stops waiting for its connection. */
static void
sub_one_free(struct sub *s, struct sub_one *o)
{
	if ((o->snapping || o->catching || o->resuming) && s->server != NULL)
		(void)server_notify_drained(s->server, o->conn, NULL, NULL);
	free(o->resume);
	free(o);
}

void
sub_free(struct sub *s)
{
	struct sub_one *o;

	if (s == NULL)
		return;
	mon_want_pg_text(s->mon, 0);
	while ((o = TAILQ_FIRST(&s->list)) != NULL) {
		TAILQ_REMOVE(&s->list, o, entry);
		sub_one_free(s, o);
	}
	event_free(s->health_timer);
	free(s->health_sig);
	pg_text_free(&s->snap_text);
	free(s);
}

void
sub_stats(const struct sub *s, uint64_t *nsubs, uint64_t *pushes)
{
	size_t i;

	*nsubs = *pushes = 0;
	if (s == NULL)
		return;
	for (i = 0; i < SUB_NWHAT; i++)
		*nsubs += s->n[i];
	*pushes = s->pushes;
}

/* Push obj (stolen) to one subscriber. */
static void
sub_push1(struct sub *s, const struct sub_one *o, json_t *obj)
{
	if (s->server == NULL) {
		json_decref(obj);
		return;
	}
	if (server_push(s->server, o->conn, o->req, obj) == 0)
		s->pushes++;
}

/*
 * Send the JSON text of a push to every subscriber of what, but one still
 * catching up: its catch-up reaches this commit's epoch or entries itself.
 */
static void
sub_send_all(struct sub *s, enum sub_what what, const char *text, size_t len)
{
	struct sub_one *o;

	TAILQ_FOREACH(o, &s->list, entry) {
		if (o->what == what && !o->catching &&
		    server_push_raw(s->server, o->conn, o->req, text,
		    len) == 0)
			s->pushes++;
	}
}

/* Push obj (stolen) to every subscriber of what, serialised once. */
static void
sub_push_all(struct sub *s, enum sub_what what, json_t *obj)
{
	char *text;
	size_t len;

	if (s->server == NULL || (text = frame_dump_json(obj, &len)) == NULL) {
		json_decref(obj);
		return;
	}
	json_decref(obj);
	sub_send_all(s, what, text, len);
	free(text);
}

/*
 * The health signature: the status and the sorted check codes, a muted
 * one marked, so that a mute is pushed as a change of health.
 */
static int
sub_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *
sub_health_signature(json_t *h)
{
	json_t *checks = json_object_get(h, "checks"), *v;
	const char **codes, *k;
	char *sig, *next;
	size_t n = 0, i;

	codes = xcalloc(json_object_size(checks) + 1, sizeof *codes);
	json_object_foreach(checks, k, v)
		codes[n++] = k;
	qsort(codes, n, sizeof *codes, sub_cmp_str);
	sig = xstrdup(json_string_value(json_object_get(h, "status")) ?
	    json_string_value(json_object_get(h, "status")) : "");
	for (i = 0; i < n; i++) {
		xasprintf(&next, "%s %s%s", sig, codes[i],
		    json_is_true(json_object_get(
			json_object_get(checks, codes[i]), "muted")) ?
			"(muted)" :
			"");
		free(sig);
		sig = next;
	}
	free(codes);
	return sig;
}

/* Push the health to every health subscriber when it changed. */
static void
sub_health_check(struct sub *s)
{
	json_t *h;
	char *sig;

	if (s->n[SUB_HEALTH] == 0)
		return;
	h = mon_health_json(s->mon, 0);
	sig = sub_health_signature(h);
	if (s->health_sig != NULL && strcmp(sig, s->health_sig) == 0) {
		free(sig);
		json_decref(h);
		return;
	}
	free(s->health_sig);
	s->health_sig = sig;
	sub_push_all(s, SUB_HEALTH, json_pack("{s:s, s:o}", "what", "health",
	    "health", h));
}

static void
sub_health_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sub_health_check(arg);
}

struct sub_pgs {
	json_t *a;
};

static void
sub_pg_cb(const struct pg_stat *st, void *arg)
{
	struct sub_pgs *p = arg;

	json_array_append_new(p->a, pg_stat_to_json(st));
}

/*
 * A commit's pgmap push around the text the committer thread wrote of its
 * PGs: the loop only copies it (serialising the PGs here held it for
 * milliseconds per commit, in front of every other client).
 */
static void
sub_push_pgmap_text(struct sub *s, const struct mon_commit_info *info)
{
	char head[80], *text;
	size_t hlen, len;

	if (s->server == NULL)
		return;
	hlen = (size_t)snprintf(head, sizeof head, "{\"what\":\"pgmap\","
	    "\"version\":%llu,\"pg_stats\":",
	    (unsigned long long)info->pgmap_version);
	len = hlen + info->pg_text_len + 1;
	text = xmalloc(len);
	memcpy(text, head, hlen);
	memcpy(text + hlen, info->pg_text, info->pg_text_len);
	text[len - 1] = '}';
	sub_send_all(s, SUB_PGMAP, text, len);
	free(text);
}

void
sub_commit(struct sub *s, const struct mon_commit_info *info)
{
	struct sub_pgs p;

	if (s->n[SUB_OSDMAP] > 0 && info->inc != NULL)
		sub_push_all(s, SUB_OSDMAP, json_pack("{s:s, s:I, s:o}",
		    "what", "osdmap", "epoch", (json_int_t)info->osdmap_epoch,
		    "inc", osdmap_inc_to_json(info->inc)));
	if (s->n[SUB_PGMAP] > 0 && info->pgmap_version != 0 &&
	    info->pg_text != NULL)
		sub_push_pgmap_text(s, info);
	else if (s->n[SUB_PGMAP] > 0 && info->pgmap_version != 0) {
		/* Sealed before the first subscriber came: build it here. */
		p.a = json_array();
		mon_commit_foreach_pg(s->mon, info, sub_pg_cb, &p);
		sub_push_all(s, SUB_PGMAP, json_pack("{s:s, s:I, s:o}",
		    "what", "pgmap", "version",
		    (json_int_t)info->pgmap_version, "pg_stats", p.a));
	}
	if (s->n[SUB_LOG] > 0 && info->nlog > 0)
		sub_push_all(s, SUB_LOG, json_pack("{s:s, s:o}", "what",
		    "log", "entries", mon_log_last_json(s->mon, info->nlog)));
	sub_health_check(s);
}

/* The current osdmap, whole. */
static void
sub_osdmap_full(struct sub *s, const struct sub_one *o)
{
	const struct osdmap *om = mon_osdmap(s->mon);

	sub_push1(s, o, json_pack("{s:s, s:I, s:o}", "what", "osdmap",
	    "epoch", (json_int_t)om->epoch, "full", osdmap_to_json(om)));
}

/*
 * The next stored incrementals of a catch-up, up to the committed epoch (a
 * commit in flight may have stored newer ones: its push comes when it is
 * applied): SUB_OSDMAP_CHUNK, or fewer once SUB_BURST_BYTES are queued.
 * One that is gone (trimmed) or unreadable ends it with the full map
 * instead.  Returns 0 when more follow, 1 when it has caught up, -1 when
 * the connection has gone or was cut.
 */
static int
sub_osdmap_chunk(struct sub *s, struct sub_one *o)
{
	uint32_t cur = mon_osdmap(s->mon)->epoch, e;
	struct osdmap_inc inc;
	json_t *obj;
	size_t len, bytes = 0;
	char *cause = NULL, *text;
	int rc, n;

	for (n = 0; n < SUB_OSDMAP_CHUNK && bytes < SUB_BURST_BYTES &&
	    o->catch_next <= cur; n++) {
		e = (uint32_t)o->catch_next;
		if ((rc = mon_osdmap_inc_get(s->mon, e, &inc, &cause)) != 0) {
			if (rc == -1) {
				log_warnx("subscribe osdmap: epoch %u: %s", e,
				    cause);
				free(cause);
			}
			o->catching = 0;
			sub_osdmap_full(s, o);
			return 1;
		}
		obj = json_pack("{s:s, s:I, s:o}", "what", "osdmap", "epoch",
		    (json_int_t)e, "inc", osdmap_inc_to_json(&inc));
		osdmap_inc_clear(&inc);
		/* The bytes are counted, so the text is made here. */
		text = frame_dump_json(obj, &len);
		json_decref(obj);
		if (text == NULL) {
			o->catching = 0;
			sub_osdmap_full(s, o);
			return 1;
		}
		rc = server_push_raw(s->server, o->conn, o->req, text, len);
		free(text);
		if (rc == -1)
			return -1;
		s->pushes++;
		bytes += len;
		o->catch_next++;
	}
	if (o->catch_next <= cur)
		return 0;
	o->catching = 0;
	return 1;
}

/*
 * One chunk of a pgmap snapshot: up to SUB_PG_CHUNK PGs from (snap_pool,
 * snap_seed) on, in pool id and seed order, as
 * {"what":"pgmap","version":V,"full":true,"pg_stats":[..],"last":B}.
 * The map may change between chunks: a chunk holds the PGs as they are
 * when it is sent, and the pushes of commits in between come in order, so
 * a client that applies every push in order ends with the current map.
 * Returns 0 when more chunks follow, 1 after the last, -1 when the
 * connection has gone or was cut (sub_closed() follows).
 */
static int
sub_pgmap_chunk(struct sub *s, struct sub_one *o)
{
	const struct pgmap *pm = mon_pgmap(s->mon);
	const struct pgmap_pool *pp;
	struct pg_text *t = &s->snap_text;
	const char *tail;
	char head[96];
	size_t i, n = 0;
	uint32_t seed;
	int last = 1, rv, hlen;

	enc_buf_reset(&t->buf);
	hlen = snprintf(head, sizeof head, "{\"what\":\"pgmap\",\"version\":"
	    "%llu,\"full\":true,\"pg_stats\":[",
	    (unsigned long long)pm->version);
	enc_buf_put_bytes(&t->buf, head, (size_t)hlen);
	for (i = 0; i < pm->npools; i++) {
		pp = &pm->pools[i];
		if (pp->id < o->snap_pool)
			continue;
		seed = pp->id == o->snap_pool ? o->snap_seed : 0;
		for (; seed < pp->pg_num; seed++) {
			if (n == SUB_PG_CHUNK) {
				o->snap_pool = pp->id;
				o->snap_seed = seed;
				last = 0;
				goto push;
			}
			if (n++ > 0)
				enc_buf_put_u8(&t->buf, ',');
			pg_text_stat(t, &pp->pgs[seed]);
		}
	}
push:
	tail = last ? "],\"last\":true}" : "],\"last\":false}";
	enc_buf_put_bytes(&t->buf, tail, strlen(tail));
	rv = server_push_raw(s->server, o->conn, o->req, t->buf.data,
	    t->buf.len);
	if (rv == -1)
		return -1;
	s->pushes++;
	if (last) {
		o->snapping = 0;
		return 1;
	}
	return 0;
}

/*
 * The next chunk of a resumed pgmap subscription: up to SUB_PG_CHUNK of
 * the PGs changed since its start, with their stats now, as
 * {"what":"pgmap","version":V,"since":S,"pg_stats":[..],"last":B}.
 * Returns 0 when more follow, 1 after the last, -1 when the connection
 * has gone or was cut.
 */
static int
sub_pgmap_resume_chunk(struct sub *s, struct sub_one *o)
{
	const struct pgmap *pm = mon_pgmap(s->mon);
	const struct pg_stat *st;
	struct pg_text *t = &s->snap_text;
	const char *tail;
	char head[128];
	size_t n = 0;
	int hlen, last;

	enc_buf_reset(&t->buf);
	hlen = snprintf(head, sizeof head,
	    "{\"what\":\"pgmap\",\"version\":%llu,\"since\":%lld,"
	    "\"pg_stats\":[",
	    (unsigned long long)pm->version, (long long)o->start);
	enc_buf_put_bytes(&t->buf, head, (size_t)hlen);
	for (; o->resume_at < o->nresume && n < SUB_PG_CHUNK; o->resume_at++) {
		/* A PG of a pool removed since is not sent: the map says so. */
		if ((st = pgmap_pg(pm, o->resume[o->resume_at])) == NULL)
			continue;
		if (n++ > 0)
			enc_buf_put_u8(&t->buf, ',');
		pg_text_stat(t, st);
	}
	last = o->resume_at >= o->nresume;
	tail = last ? "],\"last\":true}" : "],\"last\":false}";
	enc_buf_put_bytes(&t->buf, tail, strlen(tail));
	if (server_push_raw(s->server, o->conn, o->req, t->buf.data,
		t->buf.len) == -1)
		return -1;
	s->pushes++;
	if (last) {
		o->resuming = 0;
		free(o->resume);
		o->resume = NULL;
		return 1;
	}
	return 0;
}

/*
 * The next SUB_LOG_CHUNK kept entries of a log catch-up, in one push.
 * Returns 0 when more may follow, 1 when it has caught up, -1 when the
 * connection has gone or was cut.
 */
static int
sub_log_chunk(struct sub *s, struct sub_one *o)
{
	json_t *a;
	size_t n;

	a = mon_log_after_json(s->mon, o->catch_next - 1, SUB_LOG_CHUNK);
	if ((n = json_array_size(a)) == 0) {
		json_decref(a);
		o->catching = 0;
		return 1;
	}
	o->catch_next = (uint64_t)json_integer_value(json_object_get(
	    json_array_get(a, n - 1), "seq")) + 1;
	if (server_push(s->server, o->conn, o->req, json_pack("{s:s, s:o}",
	    "what", "log", "entries", a)) == -1)
		return -1;
	s->pushes++;
	if (n < SUB_LOG_CHUNK) {
		o->catching = 0;
		return 1;
	}
	return 0;
}

/*
 * The next chunk of o's snapshot or catch-up: 0 when more follow, 1 after
 * the last, -1 when the connection has gone or was cut.
 */
static int
sub_chunk(struct sub *s, struct sub_one *o)
{
	if (o->resuming)
		return sub_pgmap_resume_chunk(s, o);
	if (o->snapping)
		return sub_pgmap_chunk(s, o);
	if (o->what == SUB_OSDMAP)
		return sub_osdmap_chunk(s, o);
	return sub_log_chunk(s, o);
}

/*
 * Connection conn has written out what it was sent: the next chunk of each
 * snapshot or catch-up it is being sent, then wait again while any remains.
 */
static void
sub_drained(void *arg, uint64_t conn)
{
	struct sub *s = arg;
	struct sub_one *o;
	int more = 0;

	mon_settle(s->mon);	/* its pushes go first, then the chunk */
	TAILQ_FOREACH(o, &s->list, entry) {
		if (o->conn != conn ||
		    (!o->snapping && !o->catching && !o->resuming))
			continue;
		switch (sub_chunk(s, o)) {
		case -1:
			return;
		case 0:
			more = 1;
			break;
		}
	}
	if (more)
		(void)server_notify_drained(s->server, conn, sub_drained, s);
}

/* The first chunk of o's snapshot or catch-up, the next once drained. */
static void
sub_pace(struct sub *s, struct sub_one *o)
{
	if (sub_chunk(s, o) == 0)
		(void)server_notify_drained(s->server, o->conn, sub_drained,
		    s);
}

/*
 * The stored incrementals after o->start, paced (sub_osdmap_chunk()).  A
 * start of 0, none, or later than the committed epoch gets the full map.
 */
static void
sub_osdmap_start(struct sub *s, struct sub_one *o)
{
	uint32_t cur = mon_osdmap(s->mon)->epoch;

	if (!o->has_start || o->start <= 0) {
		sub_osdmap_full(s, o);
		return;
	}
	/*
	 * From an epoch this monitor has not applied yet (a client resuming
	 * on a monitor behind the one it left): nothing now; the next
	 * commits' incrementals come, those it has the client skips.
	 */
	if (o->start >= (int64_t)cur)
		return;
	if (s->server == NULL)
		return;
	o->catching = 1;
	o->catch_next = (uint64_t)o->start + 1;
	sub_pace(s, o);
}

/* PGs changed since a resumed pgmap subscription's start, at most. */
#define SUB_RESUME_MAX (64 * SUB_PG_CHUNK)

/*
 * A snapshot of every PG, in pushes of at most SUB_PG_CHUNK, paced; or,
 * from a version S whose incrementals are kept, the PGs changed since S
 * (sub_pgmap_resume_chunk()), nothing when S is the applied version or
 * newer.
 */
static void
sub_pgmap_start(struct sub *s, struct sub_one *o)
{
	char *cause = NULL;
	int rc;

	if (s->server == NULL)
		return;
	if (o->has_start && o->start > 0) {
		rc = mon_pgmap_changed_since(s->mon, (uint64_t)o->start,
		    &o->resume, &o->nresume, SUB_RESUME_MAX, &cause);
		if (rc == -1) {
			log_warnx("subscribe pgmap from version %lld: %s",
			    (long long)o->start, cause);
			free(cause);
		}
		if (rc == 0 && o->nresume == 0)
			return;
		if (rc == 0) {
			o->resuming = 1;
			o->resume_at = 0;
			sub_pace(s, o);
			return;
		}
	}
	o->snapping = 1;
	o->snap_pool = 0;
	o->snap_seed = 0;
	sub_pace(s, o);
}

/* The kept cluster log entries after seq o->start, paced. */
static void
sub_log_start(struct sub *s, struct sub_one *o)
{
	if (!o->has_start || s->server == NULL)
		return;
	o->catching = 1;
	o->catch_next = (uint64_t)o->start + 1;
	sub_pace(s, o);
}

struct sub_one *
sub_add(struct sub *s, uint64_t conn, uint64_t req, enum sub_what what,
    int has_start, int64_t start, int *rc, char **status)
{
	struct sub_one *o;
	size_t n = 0;

	TAILQ_FOREACH(o, &s->list, entry)
		if (o->conn == conn)
			n++;
	if (n >= SUB_MAX_PER_CONN) {
		*rc = -EBUSY;
		xasprintf(status, "this connection holds %d subscriptions "
		    "already", SUB_MAX_PER_CONN);
		return NULL;
	}
	/* Bring existing health subscribers up to date before this one. */
	if (what == SUB_HEALTH)
		sub_health_check(s);
	o = xcalloc(1, sizeof *o);
	o->conn = conn;
	o->req = req;
	o->what = what;
	o->has_start = has_start;
	o->start = start;
	TAILQ_INSERT_TAIL(&s->list, o, entry);
	s->n[what]++;
	/* The committer writes the text while anyone takes pgmap pushes. */
	mon_want_pg_text(s->mon, s->n[SUB_PGMAP] > 0);
	if (s->server != NULL)
		(void)server_set_subscriber(s->server, conn, 1);
	if (what == SUB_HEALTH && s->n[SUB_HEALTH] == 1) {
		struct timeval tv = { SUB_HEALTH_CHECK_MS / 1000,
			(SUB_HEALTH_CHECK_MS % 1000) * 1000 };

		evtimer_add(s->health_timer, &tv);
	}
	dout(LOG_MON, 5, "%s: subscribed to %s",
	    s->server ? server_peer(s->server, conn) : "-",
	    sub_what_names[what]);
	return o;
}

void
sub_start(struct sub *s, struct sub_one *o)
{
	json_t *h;

	switch (o->what) {
	case SUB_OSDMAP:
		sub_osdmap_start(s, o);
		break;
	case SUB_PGMAP:
		sub_pgmap_start(s, o);
		break;
	case SUB_LOG:
		sub_log_start(s, o);
		break;
	case SUB_HEALTH:
		h = mon_health_json(s->mon, 0);
		if (s->health_sig == NULL)
			s->health_sig = sub_health_signature(h);
		sub_push1(s, o, json_pack("{s:s, s:o}", "what", "health",
		    "health", h));
		break;
	case SUB_NWHAT:
		break;
	}
}

void
sub_closed(struct sub *s, uint64_t conn)
{
	struct sub_one *o, *next;

	for (o = TAILQ_FIRST(&s->list); o != NULL; o = next) {
		next = TAILQ_NEXT(o, entry);
		if (o->conn != conn)
			continue;
		TAILQ_REMOVE(&s->list, o, entry);
		s->n[o->what]--;
		sub_one_free(s, o);
	}
	mon_want_pg_text(s->mon, s->n[SUB_PGMAP] > 0);
	if (s->n[SUB_HEALTH] == 0) {
		evtimer_del(s->health_timer);
		free(s->health_sig);
		s->health_sig = NULL;
	}
}
