/*
 * forward.c: a follower's writes and linearizable reads through the
 * leader (forward.h).
 *
 * One connection to the leader, made when the first request needs it and
 * dropped when the leader changes: what was sent on it and not answered
 * then has an unknown outcome.  Requests move through three lists:
 * in flight (sent, unanswered), waiting (answered by the leader, not yet
 * applied here) and ready (to answer on the next loop turn, so that no
 * callback runs inside the call that made the request, nor inside the
 * commit pipeline's apply).
 */
#include "config.h"

#include <sys/queue.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "daemon/forward.h"
#include "daemon/quorum.h"
#include "mon/mon.h"
#include "mon/mon_quorum.h"
#include "net/client.h"
#include "net/frame.h"

/* How often what waits is checked against the leader and the clock. */
#define FORWARD_CHECK_MS 100
/* Connecting to the leader and its hello, at most. */
#define FORWARD_CONNECT_MS 3000

enum forward_state { FWD_INFLIGHT, FWD_WAITING, FWD_READY };

struct forward_req {
	struct forward *f;
	TAILQ_ENTRY(forward_req) entry;
	enum forward_state state;
	int read;      /* a read index, not a write */
	int orphan;    /* answered by forward_free(): the engine frees it */
	int was_ready; /* its connection had said hello when dropped */
	forward_done_cb *done;
	void *arg;
	uint64_t index; /* to apply before answering */
	int64_t since;	/* stamp_mono() the leader answered */
	int rc;
	char *status;
	json_t *data;
};

TAILQ_HEAD(forward_list, forward_req);

struct forward {
	struct event_base *base;
	struct mon *mon;
	struct mclient *cl;
	char *addr; /* of cl */
	int ready;  /* cl said hello */
	struct forward_list inflight, waiting, ready_list;
	struct event *run_ev;
	struct event *check_ev;
	struct forward_stats stats;
};

static void forward_check(evutil_socket_t, short, void *);

/* The index this monitor has applied; 0 with one monitor. */
static uint64_t
forward_applied(const struct forward *f)
{
	struct mon_quorum_info info;

	return mon_quorum_info(f->mon, &info) == 0 ? info.applied_index : 0;
}

static void
forward_arm(struct forward *f)
{
	struct timeval tv = { 0, FORWARD_CHECK_MS * 1000 };

	if (!evtimer_pending(f->check_ev, NULL))
		evtimer_add(f->check_ev, &tv);
}

static void
forward_list_del(struct forward_req *r)
{
	struct forward *f = r->f;

	switch (r->state) {
	case FWD_INFLIGHT:
		TAILQ_REMOVE(&f->inflight, r, entry);
		break;
	case FWD_WAITING:
		TAILQ_REMOVE(&f->waiting, r, entry);
		break;
	case FWD_READY:
		TAILQ_REMOVE(&f->ready_list, r, entry);
		break;
	}
}

/*
 * r's answer is known: give it on the next loop turn.  An EAGAIN here
 * (no leader known or reachable, the leader's refusal of the envelope)
 * changed nothing: it says "retry": true, for clients that wait for a
 * quorum (mapmon-protocol(7), FORWARDING).
 */
static void
forward_ready(struct forward_req *r, int rc, const char *status, json_t *data)
{
	struct forward *f = r->f;

	if (rc == -EAGAIN && data == NULL)
		data = json_pack("{s:b}", "retry", 1);

	forward_list_del(r);
	r->rc = rc;
	free(r->status);
	r->status = status != NULL ? xstrdup(status) : NULL;
	json_decref(r->data);
	r->data = data;
	r->state = FWD_READY;
	TAILQ_INSERT_TAIL(&f->ready_list, r, entry);
	event_active(f->run_ev, 0, 0);
}

/* The leader answered r: wait here until index is applied. */
static void
forward_wait(struct forward_req *r, uint64_t index)
{
	struct forward *f = r->f;

	forward_list_del(r);
	r->index = index;
	r->since = stamp_mono();
	r->state = FWD_WAITING;
	TAILQ_INSERT_TAIL(&f->waiting, r, entry);
	/* Applied already, or later: forward_run() looks. */
	event_active(f->run_ev, 0, 0);
	forward_arm(f);
}

/* Answer what is ready, and what waited for an index now applied. */
static void
forward_run(evutil_socket_t fd, short what, void *arg)
{
	struct forward *f = arg;
	struct forward_req *r, *next;
	uint64_t applied = forward_applied(f), us;
	int64_t now = stamp_mono();

	(void)fd;
	(void)what;
	for (r = TAILQ_FIRST(&f->waiting); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		if (r->index > applied)
			continue;
		us = (uint64_t)(now - r->since);
		if (us > f->stats.apply_wait_us_max)
			f->stats.apply_wait_us_max = us;
		TAILQ_REMOVE(&f->waiting, r, entry);
		r->state = FWD_READY;
		TAILQ_INSERT_TAIL(&f->ready_list, r, entry);
	}
	while ((r = TAILQ_FIRST(&f->ready_list)) != NULL) {
		TAILQ_REMOVE(&f->ready_list, r, entry);
		r->done(r->arg, r->rc, r->status, r->data);
		free(r->status);
		free(r);
	}
}

static void
forward_applied_cb(void *arg, uint64_t index)
{
	struct forward *f = arg;

	(void)index;
	if (!TAILQ_EMPTY(&f->waiting))
		event_active(f->run_ev, 0, 0);
}

struct forward *
forward_new(struct event_base *base, struct mon *m)
{
	struct forward *f = xcalloc(1, sizeof *f);

	f->base = base;
	f->mon = m;
	TAILQ_INIT(&f->inflight);
	TAILQ_INIT(&f->waiting);
	TAILQ_INIT(&f->ready_list);
	f->run_ev = event_new(base, -1, 0, forward_run, f);
	f->check_ev = evtimer_new(base, forward_check, f);
	if (f->run_ev == NULL || f->check_ev == NULL)
		fatalx("forward: cannot make its events");
	mon_quorum_set_applied_cb(m, forward_applied_cb, f);
	return f;
}

/*
 * Drop the connection to the leader: what is in flight on it gets
 * -ECANCELED from the client (forward_reply() says outcome unknown).
 */
static void
forward_drop(struct forward *f)
{
	struct forward_req *r;
	struct mclient *cl = f->cl;

	if (cl == NULL)
		return;
	TAILQ_FOREACH(r, &f->inflight, entry)
		r->was_ready = f->ready;
	f->cl = NULL;
	f->ready = 0;
	free(f->addr);
	f->addr = NULL;
	mclient_free(cl);
}

void
forward_free(struct forward *f)
{
	struct forward_req *r;

	if (f == NULL)
		return;
	mon_quorum_set_applied_cb(f->mon, NULL, NULL);
	forward_drop(f);
	/* Left in flight: the leader's own read indexes, in the engine. */
	while ((r = TAILQ_FIRST(&f->inflight)) != NULL) {
		TAILQ_REMOVE(&f->inflight, r, entry);
		r->done(r->arg, -ESHUTDOWN, "the monitor is stopping", NULL);
		r->orphan = 1;
	}
	while ((r = TAILQ_FIRST(&f->waiting)) != NULL)
		forward_ready(r, -ESHUTDOWN,
		    "the monitor is stopping (the leader acknowledged the "
		    "change: it is committed)",
		    NULL);
	while ((r = TAILQ_FIRST(&f->ready_list)) != NULL) {
		TAILQ_REMOVE(&f->ready_list, r, entry);
		r->done(r->arg, r->rc, r->status, r->data);
		free(r->status);
		free(r);
	}
	event_free(f->run_ev);
	event_free(f->check_ev);
	free(f->addr);
	free(f);
}

int
forward_wanted(const struct forward *f)
{
	return mon_quorum_leader_addr(f->mon) != NULL;
}

static void
forward_on_ready(void *arg, json_t *hello)
{
	struct forward *f = arg;

	(void)hello;
	f->ready = 1;
}

static void
forward_on_error(void *arg, int err, const char *msg)
{
	struct forward *f = arg;

	/* Its requests had their answer first (forward_reply()). */
	log_warnx("forward: the connection to the leader at %s: %s (%s)",
	    f->addr ? f->addr : "?", msg, strerror(-err));
	forward_drop(f);
}

/* The connection to the leader, made if need be; NULL: no leader. */
static struct mclient *
forward_client(struct forward *f)
{
	const char *leader = mon_quorum_leader_addr(f->mon);
	const struct mon_auth_entity *me;

	if (leader == NULL) {
		forward_drop(f);
		return NULL;
	}
	if (f->cl != NULL && strcmp(f->addr, leader) == 0)
		return f->cl;
	forward_drop(f);
	f->addr = xstrdup(leader);
	f->cl = mclient_new(f->base, leader, FORWARD_CONNECT_MS,
	    forward_on_ready, forward_on_error, f);
	/* The monitors' own key: the leader knows it is a monitor. */
	if ((me = mon_auth_find(f->mon, "mon.")) != NULL)
		mclient_set_auth(f->cl, "mon.", me->key);
	else
		mclient_set_name(f->cl, "mon.");
	dout(LOG_MON, 1, "forward: connecting to the leader at %s", leader);
	return f->cl;
}

static struct forward_req *
forward_req_new(struct forward *f, int read, forward_done_cb *done, void *arg)
{
	struct forward_req *r = xcalloc(1, sizeof *r);

	r->f = f;
	r->read = read;
	r->done = done;
	r->arg = arg;
	r->state = FWD_INFLIGHT;
	TAILQ_INSERT_TAIL(&f->inflight, r, entry);
	return r;
}

/*
 * The leader's answer to a forwarded request, or the connection's end
 * (the client is dead before it tells its requests: net/client.c).
 */
static void
forward_reply(void *arg, int rc, const char *status, json_t *data)
{
	struct forward_req *r = arg;
	struct forward *f = r->f;
	json_t *idx, *inner;
	int sent;
	char *why;

	if (f->cl != NULL && mclient_ready(f->cl)) {
		idx = json_object_get(data,
		    r->read ? "index" : "applied_index");
		if (json_is_integer(idx) && (!r->read || rc == 0)) {
			inner = r->read ? NULL : json_object_get(data, "data");
			r->rc = rc;
			r->status = status != NULL ? xstrdup(status) : NULL;
			r->data = json_incref(inner);
			forward_wait(r, (uint64_t)json_integer_value(idx));
			return;
		}
		/* The leader refused the envelope itself. */
		xasprintf(&why, "the leader refused the forwarded request: %s",
		    status ? status : "?");
		forward_ready(r, rc < 0 ? rc : -EPROTO, why, NULL);
		free(why);
		return;
	}
	/* No answer: the connection ended, or was never made. */
	sent = rc == -ECANCELED ? r->was_ready : f->ready && rc != -EACCES;
	if (r->read || !sent) {
		xasprintf(&why,
		    "no quorum: the leader at %s cannot be reached (%s): "
		    "retry",
		    f->addr ? f->addr : "?", status ? status : strerror(-rc));
		forward_ready(r, -EAGAIN, why, NULL);
	} else {
		f->stats.unknown++;
		xasprintf(&why,
		    "outcome unknown: the connection to the leader ended "
		    "before it answered (%s); the change may still be "
		    "applied (retry)",
		    status ? status : strerror(-rc));
		forward_ready(r, -ETIMEDOUT, why, NULL);
	}
	free(why);
}

/* Send env (stolen) or a binary payload for r; refusals answered. */
static void
forward_send(struct forward *f, struct forward_req *r, json_t *env,
    const uint8_t *bin, size_t binlen)
{
	struct mclient *cl = forward_client(f);
	int rc;

	if (cl == NULL) {
		json_decref(env);
		forward_ready(r, -EAGAIN,
		    "no quorum: this monitor knows no leader (retry later, "
		    "or another monitor)",
		    NULL);
		return;
	}
	rc = env != NULL ?
	    mclient_request(cl, env, forward_reply, r) :
	    mclient_request_binary(cl, bin, binlen, forward_reply, r);
	json_decref(env);
	if (rc == -1) {
		forward_ready(r, -EAGAIN,
		    "no quorum: the connection to the leader failed (retry)",
		    NULL);
		return;
	}
	forward_arm(f);
}

void
forward_json(struct forward *f, const char *entity, const json_t *cmd,
    forward_done_cb *done, void *arg)
{
	struct forward_req *r = forward_req_new(f, 0, done, arg);
	json_t *env;

	f->stats.forwarded++;
#ifdef MAPMON_BREAK_ACK_BEFORE_COMMIT
	/*
	 * A deliberately broken build, for the history checker to catch
	 * (RELIABILITY.md, "Linearizability"): the write is acknowledged at
	 * once, before any commit, and lost, as an acknowledgement before
	 * commit is when the leader dies.  Never in a real build.
	 */
	(void)entity;
	forward_ready(r, 0, "acknowledged before commit (broken build)", NULL);
	return;
#endif
	env = json_pack("{s:s, s:O}", "prefix", "mon forward", "cmd", cmd);
	if (entity != NULL)
		json_object_set_new(env, "entity", json_string(entity));
	forward_send(f, r, env, NULL, 0);
}

void
forward_binary(struct forward *f, const char *entity, const uint8_t *p,
    size_t len, forward_done_cb *done, void *arg)
{
	struct forward_req *r = forward_req_new(f, 0, done, arg);
	size_t elen = entity != NULL ? strlen(entity) : 0;
	uint8_t *buf;

	f->stats.forwarded++;
	/* u16 opcode, u8 entity length, the entity, the request whole. */
	buf = xmalloc(3 + elen + len);
	enc_put_be16(buf, FRAME_BINARY_FORWARD);
	buf[2] = (uint8_t)elen;
	memcpy(buf + 3, entity != NULL ? entity : "", elen);
	memcpy(buf + 3 + elen, p, len);
	forward_send(f, r, NULL, buf, 3 + elen + len);
	free(buf);
}

/* The leader's own read index came back (quorum_read_index()). */
static void
forward_index_cb(void *arg, int rc, uint64_t index, const char *why)
{
	struct forward_req *r = arg;

	if (r->orphan) {
		free(r);
		return;
	}
	if (rc != 0)
		forward_ready(r, rc, why, NULL);
	else
		forward_wait(r, index);
}

void
forward_read_index(struct forward *f, forward_done_cb *ready, void *arg)
{
	struct forward_req *r = forward_req_new(f, 1, ready, arg);
	struct mon_quorum_info info;

	f->stats.read_indexes++;
	if (mon_quorum_info(f->mon, &info) == -1) {
		forward_ready(r, 0, NULL, NULL); /* one monitor */
		return;
	}
	if (info.role == MON_QUORUM_LEADER) {
		if (quorum_read_index(quorum_current(), forward_index_cb, r) ==
		    -1)
			forward_ready(r, -EAGAIN,
			    "no quorum: the engine is not running", NULL);
		return;
	}
	forward_send(f, r, json_pack("{s:s}", "prefix", "mon read_index"), NULL,
	    0);
}

/*
 * Every FORWARD_CHECK_MS while anything waits: the leader changed (what is
 * in flight to the old one has an unknown outcome), or an acknowledged
 * change is not applied here in time.
 */
static void
forward_check(evutil_socket_t fd, short what, void *arg)
{
	struct forward *f = arg;
	struct forward_req *r, *next;
	const char *leader = mon_quorum_leader_addr(f->mon);
	int64_t now = stamp_mono();
	char *why;

	(void)fd;
	(void)what;
	if (f->cl != NULL && (leader == NULL || strcmp(leader, f->addr) != 0))
		forward_drop(f);
	for (r = TAILQ_FIRST(&f->waiting); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		if (now - r->since < (int64_t)FORWARD_APPLY_WAIT_MS * 1000)
			continue;
		if (r->read)
			xasprintf(&why,
			    "this monitor did not apply the read index %llu "
			    "in %d ms (it is behind, or out of quorum): retry",
			    (unsigned long long)r->index,
			    FORWARD_APPLY_WAIT_MS);
		else
			xasprintf(&why,
			    "the leader committed the change (entry %llu) but "
			    "this monitor did not apply it in %d ms; it is "
			    "committed (a read here may not show it yet)",
			    (unsigned long long)r->index,
			    FORWARD_APPLY_WAIT_MS);
		forward_ready(r, -ETIMEDOUT, why, NULL);
		free(why);
	}
	if (!TAILQ_EMPTY(&f->inflight) || !TAILQ_EMPTY(&f->waiting))
		forward_arm(f);
}

json_t *
forward_wrap(struct mon *m, json_t *data)
{
	struct mon_quorum_info info;
	uint64_t applied = 0;
	json_t *o;

	if (mon_quorum_info(m, &info) == 0)
		applied = info.applied_index;
	o = json_pack("{s:I}", "applied_index", (json_int_t)applied);
	if (data != NULL)
		json_object_set_new(o, "data", data);
	return o;
}

void
forward_stats(const struct forward *f, struct forward_stats *out)
{
	*out = f->stats;
}
