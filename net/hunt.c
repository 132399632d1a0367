/*
 * hunt.c: a session over a list of monitors (hunt.h).
 *
 * One mclient at a time.  Each subscription keeps its position; a pgmap
 * subscription keeps two: the version it is complete to (what it resumes
 * from) and, while a snapshot or a catch-up comes in chunks, the newest
 * version seen, which becomes the first once the last chunk is in (a
 * connection lost in the middle resumes from the first again).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "net/hunt.h"

enum hunt_what { HUNT_OSDMAP, HUNT_PGMAP, HUNT_LOG, HUNT_HEALTH };

static const char *const hunt_what_names[] = { "osdmap", "pgmap", "log",
	"health" };

struct hunt_sub {
	struct hunt *h;
	enum hunt_what what;
	int64_t start;	 /* as given, < 0: none */
	int64_t pos;	 /* complete to; -1: nothing yet */
	int64_t pending; /* pgmap: the newest version of chunks coming */
	int in_chunks;	 /* pgmap: a snapshot or catch-up is coming */
	mclient_push_cb on_push;
	void *arg;
	uint64_t gen; /* the connection it was sent on */
};

struct hunt {
	struct event_base *base;
	char **addrs;
	size_t naddrs;
	size_t at;     /* addrs[at] is current, or was last */
	size_t failed; /* attempts failed in a row */
	int timeout_ms;
	hunt_event_cb *on_event;
	void *arg;
	char *name;
	int has_auth;
	char *auth_name;
	uint8_t key[32];
	int has_key;

	struct mclient *cl;
	int ready;
	uint64_t gen; /* of cl */
	uint64_t losses;
	struct event *retry_ev;
	struct hunt_sub subs[HUNT_MAX_SUBS];
	size_t nsubs;
};

int
hunt_parse(const char *list, char ***addrs, size_t *n, char **cause)
{
	char *copy = xstrdup(list), *tok, *save = NULL, *eq, *host;
	uint16_t port;

	*addrs = NULL;
	*n = 0;
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if ((eq = strchr(tok, '=')) != NULL)
			tok = eq + 1;
		if (mclient_parse_addr(tok, &host, &port, cause) == -1)
			goto fail;
		free(host);
		*addrs = xreallocarray(*addrs, *n + 1, sizeof **addrs);
		(*addrs)[(*n)++] = xstrdup(tok);
	}
	free(copy);
	if (*n == 0) {
		xasprintf(cause, "no monitor address in '%s'", list);
		return -1;
	}
	return 0;
fail:
	free(copy);
	while (*n > 0)
		free((*addrs)[--(*n)]);
	free(*addrs);
	*addrs = NULL;
	return -1;
}

static void hunt_connect(struct hunt *);

static void
hunt_tell(struct hunt *h, enum hunt_event ev, int err, const char *msg)
{
	if (h->on_event != NULL)
		h->on_event(h->arg, ev, h->addrs[h->at], err, msg);
}

static void
hunt_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	hunt_connect(arg);
}

/* The connection ended or never came: the next monitor, maybe later. */
static void
hunt_next(struct hunt *h)
{
	struct timeval tv;
	int64_t ms;
	size_t rounds;

	h->at = (h->at + 1) % h->naddrs;
	h->failed++;
	if (h->failed < h->naddrs) {
		hunt_connect(h);
		return;
	}
	rounds = h->failed / h->naddrs;
	ms = HUNT_RETRY_MS;
	while (--rounds > 0 && ms < HUNT_RETRY_MAX_MS)
		ms *= 2;
	if (ms > HUNT_RETRY_MAX_MS)
		ms = HUNT_RETRY_MAX_MS;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(h->retry_ev, &tv);
}

static void
hunt_on_error(void *arg, int err, const char *msg)
{
	struct hunt *h = arg;
	struct mclient *cl = h->cl;
	int was_ready = h->ready;

	h->cl = NULL;
	h->ready = 0;
	mclient_free(cl);
	if (was_ready) {
		h->losses++;
		h->failed = 0;
		hunt_tell(h, HUNT_LOST, err, msg);
	} else
		hunt_tell(h, HUNT_FAILED, err, msg);
	hunt_next(h);
}

/* Drop from a log push the entries the session has had. */
static json_t *
hunt_log_filter(struct hunt_sub *s, json_t *obj)
{
	json_t *in = json_object_get(obj, "entries"), *out, *e, *copy;
	json_int_t seq;
	size_t i;

	out = json_array();
	json_array_foreach(in, i, e) {
		seq = json_integer_value(json_object_get(e, "seq"));
		if (s->pos >= 0 && seq <= s->pos)
			continue;
		s->pos = seq;
		json_array_append(out, e);
	}
	if (json_array_size(out) == 0) {
		json_decref(out);
		return NULL;
	}
	copy = json_copy(obj);
	json_object_set_new(copy, "entries", out);
	return copy;
}

/* A push for s: kept, or dropped when the session had it (see hunt.h). */
static void
hunt_on_push(void *arg, json_t *obj)
{
	struct hunt_sub *s = arg;
	json_t *v, *copy;
	int64_t n;
	int full, since, last;

	if (s->gen != s->h->gen)
		return; /* of a connection given up */
	switch (s->what) {
	case HUNT_OSDMAP:
		v = json_object_get(obj, "epoch");
		if (!json_is_integer(v))
			break;
		n = json_integer_value(v);
		if (s->pos >= 0 && n <= s->pos)
			return;
		s->pos = n;
		break;
	case HUNT_PGMAP:
		v = json_object_get(obj, "version");
		if (!json_is_integer(v))
			break;
		n = json_integer_value(v);
		full = json_is_true(json_object_get(obj, "full"));
		since = json_object_get(obj, "since") != NULL;
		if (full || since) {
			last = json_is_true(json_object_get(obj, "last"));
			s->in_chunks = !last;
			if (n > s->pending)
				s->pending = n;
			if (last)
				s->pos = s->pending;
			break;
		}
		if (s->pos >= 0 && n <= s->pos && !s->in_chunks)
			return;
		if (n > s->pending)
			s->pending = n;
		if (!s->in_chunks)
			s->pos = n;
		break;
	case HUNT_LOG:
		if ((copy = hunt_log_filter(s, obj)) == NULL)
			return;
		s->on_push(s->arg, copy);
		json_decref(copy);
		return;
	case HUNT_HEALTH:
		break;
	}
	s->on_push(s->arg, obj);
}

static void
hunt_sub_reply(void *arg, int rc, const char *status, json_t *data)
{
	struct hunt_sub *s = arg;

	(void)data;
	if (rc < 0 && s->gen == s->h->gen && s->h->ready)
		hunt_tell(s->h, HUNT_REFUSED, rc, status);
}

/* (Re)send subscription s on the current connection. */
static void
hunt_sub_send(struct hunt *h, struct hunt_sub *s)
{
	json_t *cmd;
	int64_t from = s->start;

	if (s->what == HUNT_PGMAP) {
		/* An unfinished snapshot or catch-up: from where it began. */
		s->in_chunks = 0;
		s->pending = s->pos;
		if (s->pos > 0)
			from = s->pos;
	} else if (s->what != HUNT_HEALTH && s->pos >= 0)
		from = s->pos;
	if (s->what == HUNT_OSDMAP && from == 0)
		from = -1;
	cmd = json_pack("{s:s, s:s}", "prefix", "subscribe", "what",
	    hunt_what_names[s->what]);
	if (from >= 0)
		json_object_set_new(cmd, "start", json_integer(from));
	s->gen = h->gen;
	(void)mclient_subscribe(h->cl, cmd, hunt_on_push, hunt_sub_reply, s);
	json_decref(cmd);
}

static void
hunt_on_ready(void *arg, json_t *hello)
{
	struct hunt *h = arg;
	size_t i;

	(void)hello;
	h->ready = 1;
	h->failed = 0;
	hunt_tell(h, HUNT_CONNECTED, 0, NULL);
	for (i = 0; i < h->nsubs; i++)
		hunt_sub_send(h, &h->subs[i]);
}

static void
hunt_connect(struct hunt *h)
{
	h->gen++;
	h->ready = 0;
	h->cl = mclient_new(h->base, h->addrs[h->at], h->timeout_ms,
	    hunt_on_ready, hunt_on_error, h);
	if (h->name != NULL)
		mclient_set_name(h->cl, h->name);
	if (h->has_auth)
		mclient_set_auth(h->cl, h->auth_name,
		    h->has_key ? h->key : NULL);
}

struct hunt *
hunt_new(struct event_base *base, const char *list, int connect_timeout_ms,
    hunt_event_cb *on_event, void *arg, char **cause)
{
	struct hunt *h = xcalloc(1, sizeof *h);

	if (hunt_parse(list, &h->addrs, &h->naddrs, cause) == -1) {
		free(h);
		return NULL;
	}
	h->base = base;
	h->timeout_ms = connect_timeout_ms;
	h->on_event = on_event;
	h->arg = arg;
	if ((h->retry_ev = evtimer_new(base, hunt_retry_cb, h)) == NULL)
		fatalx("hunt: cannot make its timer");
	/* Connecting starts from the loop, after the caller's set-up. */
	{
		static const struct timeval now;

		evtimer_add(h->retry_ev, &now);
	}
	return h;
}

void
hunt_set_name(struct hunt *h, const char *name)
{
	free(h->name);
	h->name = xstrdup(name);
	if (h->cl != NULL)
		mclient_set_name(h->cl, name);
}

void
hunt_set_auth(struct hunt *h, const char *name, const uint8_t *key)
{
	h->has_auth = 1;
	free(h->auth_name);
	h->auth_name = name != NULL ? xstrdup(name) : NULL;
	h->has_key = key != NULL;
	if (key != NULL)
		memcpy(h->key, key, sizeof h->key);
}

int
hunt_subscribe(struct hunt *h, const char *what, int64_t start,
    mclient_push_cb on_push, void *arg)
{
	struct hunt_sub *s;
	size_t i;

	if (h->nsubs == HUNT_MAX_SUBS)
		return -1;
	for (i = 0; i < nitems(hunt_what_names); i++)
		if (strcmp(what, hunt_what_names[i]) == 0)
			break;
	if (i == nitems(hunt_what_names))
		return -1;
	s = &h->subs[h->nsubs++];
	memset(s, 0, sizeof *s);
	s->h = h;
	s->what = (enum hunt_what)i;
	s->start = start;
	s->pos = -1;
	s->pending = -1;
	s->on_push = on_push;
	s->arg = arg;
	/* From start: what comes after it is new. */
	if (start > 0 && s->what != HUNT_HEALTH)
		s->pos = start;
	if (h->cl != NULL && h->ready)
		hunt_sub_send(h, s);
	return 0;
}

int64_t
hunt_position(const struct hunt *h, const char *what)
{
	size_t i;

	for (i = 0; i < h->nsubs; i++)
		if (strcmp(hunt_what_names[h->subs[i].what], what) == 0)
			return h->subs[i].pos;
	return -1;
}

int
hunt_request(struct hunt *h, const json_t *cmd, mclient_reply_cb cb, void *arg)
{
	if (h->cl == NULL)
		return -1;
	return mclient_request(h->cl, cmd, cb, arg);
}

struct mclient *
hunt_client(struct hunt *h)
{
	return h->cl;
}

const char *
hunt_addr(const struct hunt *h)
{
	return h->addrs[h->at];
}

uint64_t
hunt_losses(const struct hunt *h)
{
	return h->losses;
}

void
hunt_free(struct hunt *h)
{
	size_t i;

	if (h == NULL)
		return;
	mclient_free(h->cl);
	event_free(h->retry_ev);
	for (i = 0; i < h->naddrs; i++)
		free(h->addrs[i]);
	free(h->addrs);
	free(h->name);
	free(h->auth_name);
	explicit_bzero(h->key, sizeof h->key);
	free(h);
}
