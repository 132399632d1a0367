/*
 * quorum.c: C-Raft in mapmond (quorum.h).  What mapmond(8), QUORUM, and
 * mapmon-protocol(7), REPLICATED ENTRIES, describe.
 *
 * Raft server ids are monmap ranks plus one.  A monitor's raft address is
 * its client address with the port plus one, where the engine's traffic
 * goes through quorum_transport.h: authenticated with the "mon." key and
 * sealed (mapmon-protocol(7), PEER CONNECTIONS).
 *
 * Entries are numbered by the state machine itself (quorum_fsm_apply()),
 * not by raft log index.  The state machine's apply only hands the entry
 * to the core, which
 * queues it and commits it to the store after those before it (the
 * store's own "Q" record then says what was applied): the engine's idea
 * of what is applied may run ahead of the store's, which is why no raft
 * snapshot is ever taken here (the snapshot callback refuses, and the
 * threshold is out of reach): the whole log stays on disk and, as the v0
 * API keeps it, in memory.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <raft.h>
#include <raft/uv.h>
#include <uv.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "daemon/quorum.h"
#include "daemon/quorum_transport.h"
#include "mon/mon_quorum.h"

/* Out of reach: no snapshot is taken (see above). */
#define QUORUM_SNAPSHOT_THRESHOLD (UINT_MAX / 2)

struct quorum_peer {
	char name[MONMAP_NAME_MAX];
	char addr[MONMAP_ADDR_MAX]; /* for clients */
	char raft_addr[MONMAP_ADDR_MAX];
	int64_t heard_mono; /* last raft message from it */
};

struct quorum_req {
	struct raft_apply req;
	struct quorum *q;
	uint64_t seq;
};

struct quorum {
	struct event_base *base;
	struct mon *m;
	uv_loop_t loop;
	struct raft_uv_transport transport;
	struct raft_io io;
	struct raft_fsm fsm;
	struct raft raft;
	struct event *uv_ev;
	struct event *uv_timer;
	int started;
	int closed;

	struct quorum_peer peers[MONMAP_MAX_MONS];
	size_t npeers;
	int self; /* rank */
	int64_t election_ms;
	/*
	 * Command entries the engine applied since the start: the number of
	 * the one being applied.  Neither the FSM's apply nor, from 0.19 on,
	 * raft_last_applied() gives the log index of the entry being applied
	 * (the legacy layer moves it after a batch), but every monitor's
	 * engine applies the same command entries in the same order, from
	 * the first at every start (no snapshot is ever taken): the count is
	 * the entry's number on every monitor alike.
	 */
	uint64_t napplied;

	/* The raft_io's start and receive, wrapped to see who talks. */
	int (*io_start)(struct raft_io *, unsigned, raft_io_tick_cb,
	    raft_io_recv_cb);
	raft_io_recv_cb io_recv;

	int last_state;
	raft_id last_leader;
	uint64_t last_term;
	int64_t quorum_since; /* stamp_now() of the last change */
	struct raft_barrier barrier;
	int barrier_pending;

	struct quorum_stats stats;
	struct mon_quorum_view view; /* as last given to the core */
	int in_run;
};

/* The one engine of this process (the receive wrapper finds it here). */
static struct quorum *quorum_self;

static void quorum_kick(struct quorum *q);

/* The engine's role in words (0.15 has no raft_state_name()). */
static const char *
quorum_state_name(int state)
{
	switch (state) {
	case RAFT_FOLLOWER:
		return "follower";
	case RAFT_CANDIDATE:
		return "candidate";
	case RAFT_LEADER:
		return "leader";
	default:
		return "unavailable";
	}
}

int
quorum_parse_hosts(const char *s, struct monmap_mon *out, size_t *n,
    char **cause)
{
	char *copy = xstrdup(s), *tok, *save = NULL, *eq, host[256];
	size_t i;
	uint16_t port;
	char *why = NULL;

	*n = 0;
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if ((eq = strchr(tok, '=')) == NULL || eq == tok) {
			xasprintf(cause,
			    "mon_host entry '%s': expected "
			    "NAME=HOST:PORT",
			    tok);
			goto fail;
		}
		*eq = '\0';
		if (*n == MONMAP_MAX_MONS) {
			xasprintf(cause, "mon_host: more than %d monitors",
			    MONMAP_MAX_MONS);
			goto fail;
		}
		if (strlen(tok) >= MONMAP_NAME_MAX ||
		    strlen(eq + 1) >= MONMAP_ADDR_MAX) {
			xasprintf(cause,
			    "mon_host entry '%s': name or "
			    "address too long",
			    tok);
			goto fail;
		}
		if (conf_parse_address(eq + 1, host, sizeof host, &port,
			&why) == -1 ||
		    port == 0 || port == UINT16_MAX) {
			xasprintf(cause, "mon_host entry %s=%s: %s", tok,
			    eq + 1,
			    why ? why :
				  "port 0 or 65535 (the raft "
				  "port is PORT+1)");
			free(why);
			goto fail;
		}
		for (i = 0; i < *n; i++)
			if (strcmp(out[i].name, tok) == 0 ||
			    strcmp(out[i].addr, eq + 1) == 0) {
				xasprintf(cause,
				    "mon_host: monitor %s or "
				    "address %s given twice",
				    tok, eq + 1);
				goto fail;
			}
		snprintf(out[*n].name, sizeof out[*n].name, "%s", tok);
		snprintf(out[*n].addr, sizeof out[*n].addr, "%s", eq + 1);
		(*n)++;
	}
	free(copy);
	return 0;
fail:
	free(copy);
	return -1;
}

int
quorum_configured(const struct conf *c, struct monmap_mon *mons, size_t *n,
    char **cause)
{
	const char *name = conf_str(c, CONF_MON_NAME);
	const char *bind = conf_str(c, CONF_MON_BIND);
	size_t i;
	int self = -1;

	if (quorum_parse_hosts(conf_str(c, CONF_MON_MON_HOST), mons, n,
		cause) == -1)
		return -1;
	if (*n <= 1)
		return 0;
	for (i = 0; i < *n; i++) {
		if (strcmp(mons[i].name, name) == 0)
			self = (int)i;
		/*
		 * The monitors' own links are sealed, but without [auth]
		 * required anyone who reaches a monitor may write: beyond
		 * one host, a quorum wants it (mapmond(8), QUORUM).
		 */
		if (!conf_bind_loopback(mons[i].addr) &&
		    !conf_int(c, CONF_AUTH_REQUIRED)) {
			xasprintf(cause,
			    "[mon] mon_host: %s=%s is not a loopback "
			    "address and [auth] required is off: monitors "
			    "on several hosts serve only authenticated "
			    "clients (turn [auth] required on; mapmond(8), "
			    "QUORUM)",
			    mons[i].name, mons[i].addr);
			return -1;
		}
	}
	if (self == -1) {
		xasprintf(cause, "[mon] name '%s' is not in [mon] mon_host",
		    name);
		return -1;
	}
	if (strcmp(mons[self].addr, bind) != 0) {
		xasprintf(cause,
		    "[mon] bind %s is not the address mon_host "
		    "gives monitor %s (%s)",
		    bind, name, mons[self].addr);
		return -1;
	}
	return 1;
}

/* HOST:PORT+1 of a client address. */
static int
quorum_raft_addr(const char *addr, char *out, size_t len, char **cause)
{
	char host[256];
	uint16_t port;

	if (conf_parse_address(addr, host, sizeof host, &port, cause) == -1)
		return -1;
	if ((size_t)snprintf(out, len, "%.*s:%u", (int)(len - 7), host,
		(unsigned)port + 1) >= len) {
		xasprintf(cause, "address %s too long", addr);
		return -1;
	}
	return 0;
}

/* ---- the loops ---- */

static void
quorum_role_check(struct quorum *q)
{
	int state = (int)raft_state(&q->raft);
	raft_id lid = 0;
	const char *laddr = NULL;
	uint64_t term = q->raft.current_term;
	const struct quorum_peer *lp;

	if (q->closed || !q->started)
		return;
	raft_leader(&q->raft, &lid, &laddr);
	if (state == q->last_state && lid == q->last_leader &&
	    term == q->last_term)
		return;
	if (lid != q->last_leader) {
		q->quorum_since = stamp_now();
		if (lid != 0)
			q->stats.leader_changes++;
	}
	q->last_state = state;
	q->last_leader = lid;
	q->last_term = term;
	q->stats.term = term;
	q->stats.is_leader = state == RAFT_LEADER;
	lp = lid >= 1 && lid <= q->npeers ? &q->peers[lid - 1] : NULL;
	if (state == RAFT_LEADER) {
		log_info("quorum: mon.%s leads, term %llu",
		    q->peers[q->self].name, (unsigned long long)term);
		mon_quorum_set_role(q->m, MON_QUORUM_LEADER, term,
		    q->peers[q->self].name, q->peers[q->self].addr);
		if (!q->barrier_pending) {
			q->barrier_pending = 1;
			if (raft_barrier(&q->raft, &q->barrier,
				q->barrier.cb) != 0) {
				q->barrier_pending = 0;
				log_warnx("quorum: barrier: %s",
				    raft_errmsg(&q->raft));
			}
		}
	} else if (lp != NULL) {
		log_info("quorum: mon.%s leads, term %llu (this is mon.%s, "
			 "%s)",
		    lp->name, (unsigned long long)term, q->peers[q->self].name,
		    quorum_state_name(state));
		mon_quorum_set_role(q->m, MON_QUORUM_FOLLOWER, term, lp->name,
		    lp->addr);
	} else {
		log_info("quorum: no leader known, term %llu (mon.%s is %s)",
		    (unsigned long long)term, q->peers[q->self].name,
		    quorum_state_name(state));
		mon_quorum_set_role(q->m, MON_QUORUM_NONE, term, NULL, NULL);
	}
}

static void quorum_view(const struct quorum *, struct mon_quorum_view *);

/* One non-blocking turn of libuv's loop; its slice is measured. */
static void
quorum_run(struct quorum *q)
{
	struct mon_quorum_view view;
	struct timeval tv;
	int64_t t0, us;
	int t;

	if (q->in_run)
		return;
	q->in_run = 1;
	t0 = stamp_mono();
	uv_run(&q->loop, UV_RUN_NOWAIT);
	us = stamp_mono() - t0;
	q->stats.uv_runs++;
	if ((uint64_t)us > q->stats.uv_slice_max_us)
		q->stats.uv_slice_max_us = (uint64_t)us;
	q->in_run = 0;
	quorum_role_check(q);
	if (q->closed)
		return;
	quorum_view(q, &view);
	if (memcmp(&view, &q->view, sizeof view) != 0) {
		q->view = view;
		mon_quorum_set_view(q->m, &view);
	}
	t = uv_backend_timeout(&q->loop);
	if (t < 0) {
		evtimer_del(q->uv_timer);
		return;
	}
	tv.tv_sec = t / 1000;
	tv.tv_usec = (t % 1000) * 1000;
	evtimer_add(q->uv_timer, &tv);
}

static void
quorum_uv_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	quorum_run(arg);
}

/* Run libuv on the next turn of libevent's loop (never re-entered). */
static void
quorum_kick(struct quorum *q)
{
	static const struct timeval now;

	if (!q->closed)
		evtimer_add(q->uv_timer, &now);
}

/* The transport handed the engine work (quorum_transport.h). */
static void
quorum_kick_cb(void *arg)
{
	quorum_kick(arg);
}

/* ---- the state machine ---- */

static int
quorum_fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf,
    void **result)
{
	struct quorum *q = fsm->data;
	uint64_t index = ++q->napplied;
	char *cause = NULL;

	*result = NULL;
	dout(LOG_MON, 5,
	    "quorum: entry %llu (raft applied %llu, commit %llu), "
	    "%zu bytes",
	    (unsigned long long)index,
	    (unsigned long long)raft_last_applied(&q->raft),
	    (unsigned long long)q->raft.commit_index, buf->len);
	if (mon_quorum_commit(q->m, index, buf->base, buf->len, &cause) == -1)
		fatalx("quorum: committed entry %llu: %s",
		    (unsigned long long)index, cause);
	return 0;
}

static int
quorum_fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[],
    unsigned *n)
{
	(void)fsm;
	(void)bufs;
	(void)n;
	return RAFT_NOTFOUND; /* never taken: see the top of this file */
}

static int
quorum_fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	(void)fsm;
	(void)buf;
	log_warnx("quorum: a snapshot came to be restored, and this "
		  "mapmon takes none");
	return RAFT_NOTFOUND;
}

static void
quorum_apply_cb(struct raft_apply *req, int status, void *result)
{
	struct quorum_req *qr = req->data;

	(void)result;
	if (status != 0 && qr->q->m != NULL)
		mon_quorum_failed(qr->q->m, qr->seq, raft_strerror(status));
	free(qr);
}

static void
quorum_barrier_cb(struct raft_barrier *req, int status)
{
	struct quorum *q = req->data;

	q->barrier_pending = 0;
	if (status != 0) {
		log_warnx("quorum: barrier of the new term: %s",
		    raft_strerror(status));
		return;
	}
	if (raft_state(&q->raft) == RAFT_LEADER)
		mon_quorum_leader_ready(q->m);
}

static int
quorum_replicate(void *arg, uint64_t seq, const void *buf, size_t len,
    char **cause)
{
	struct quorum *q = arg;
	struct quorum_req *qr;
	struct raft_buffer b;
	int rv;

	if ((b.base = raft_malloc(len)) == NULL) {
		xasprintf(cause, "out of memory for an entry of %zu bytes",
		    len);
		return -1;
	}
	memcpy(b.base, buf, len);
	b.len = len;
	qr = xcalloc(1, sizeof *qr);
	qr->q = q;
	qr->seq = seq;
	qr->req.data = qr;
	if ((rv = raft_apply(&q->raft, &qr->req, &b, 1, quorum_apply_cb)) !=
	    0) {
		xasprintf(cause, "%s (%s)", raft_strerror(rv),
		    raft_errmsg(&q->raft));
#if !defined(RAFT_VERSION_NUMBER) || RAFT_VERSION_NUMBER < 1900
		/* From 0.19 on (the legacy layer) the engine frees it. */
		raft_free(b.base);
#endif
		free(qr);
		return -1;
	}
	quorum_kick(q);
	return 0;
}

/* ---- who talks: the receive callback, wrapped ---- */

static void
quorum_recv(struct raft_io *io, struct raft_message *msg)
{
	struct quorum *q = quorum_self;

	if (msg->server_id >= 1 && msg->server_id <= q->npeers)
		q->peers[msg->server_id - 1].heard_mono = stamp_mono();
	q->io_recv(io, msg);
}

static int
quorum_io_start(struct raft_io *io, unsigned msecs, raft_io_tick_cb tick,
    raft_io_recv_cb recv)
{
	struct quorum *q = quorum_self;

	q->io_recv = recv;
	return q->io_start(io, msecs, tick, quorum_recv);
}

/* ---- life ---- */

struct quorum *
quorum_new(struct event_base *base, struct mon *m, const struct conf *c,
    char **cause)
{
	const struct monmap *mm = mon_monmap(m);
	const char *name = conf_str(c, CONF_MON_NAME);
	struct raft_configuration conf;
	struct quorum *q;
	char *dir = NULL, self_raft[MONMAP_ADDR_MAX];
	size_t i;
	int rv;

	if (quorum_self != NULL) {
		xasprintf(cause, "one quorum engine per process");
		return NULL;
	}
	q = xcalloc(1, sizeof *q);
	q->base = base;
	q->m = m;
	q->self = -1;
	q->last_state = -1;
	q->election_ms = conf_int(c, CONF_MON_ELECTION_TIMEOUT);
	for (i = 0; i < mm->nmons; i++) {
		snprintf(q->peers[i].name, sizeof q->peers[i].name, "%s",
		    mm->mons[i].name);
		snprintf(q->peers[i].addr, sizeof q->peers[i].addr, "%s",
		    mm->mons[i].addr);
		if (quorum_raft_addr(mm->mons[i].addr, q->peers[i].raft_addr,
			sizeof q->peers[i].raft_addr, cause) == -1)
			goto fail_free;
		if (strcmp(mm->mons[i].name, name) == 0)
			q->self = (int)i;
	}
	q->npeers = mm->nmons;
	if (q->self == -1) {
		xasprintf(cause,
		    "[mon] name '%s' is not in the monmap of "
		    "the store (mapmon mon dump)",
		    name);
		goto fail_free;
	}
	if (strcmp(q->peers[q->self].addr, conf_str(c, CONF_MON_BIND)) != 0) {
		xasprintf(cause,
		    "[mon] bind %s is not the address of mon.%s "
		    "in the store's monmap (%s)",
		    conf_str(c, CONF_MON_BIND), name, q->peers[q->self].addr);
		goto fail_free;
	}
	xasprintf(&dir, "%s/raft", conf_str(c, CONF_MON_DATA));
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		xasprintf(cause, "%s: %s", dir, strerror(errno));
		goto fail_free;
	}
	if ((rv = uv_loop_init(&q->loop)) != 0) {
		xasprintf(cause, "uv_loop_init: %s", uv_strerror(rv));
		goto fail_free;
	}
	snprintf(self_raft, sizeof self_raft, "%s",
	    q->peers[q->self].raft_addr);
	/*
	 * A link silent for three keepalives ends (net/peer.h): at least a
	 * second each, so that a loop busy with a large commit does not cut
	 * it, and the engine's own timeouts, not the link's, decide who
	 * leads.
	 */
	if (quorum_transport_init(&q->transport, &q->loop, base, m, name,
		self_raft,
		(int)(q->election_ms / 3 > 1000 ? q->election_ms / 3 : 1000),
		quorum_kick_cb, q, cause) == -1)
		goto fail_loop;
	if ((rv = raft_uv_init(&q->io, &q->loop, dir, &q->transport)) != 0) {
		xasprintf(cause, "raft log in %s: %s", dir, raft_strerror(rv));
		goto fail_loop;
	}
	q->io_start = q->io.start;
	q->io.start = quorum_io_start;
	q->fsm.version = 1;
	q->fsm.data = q;
	q->fsm.apply = quorum_fsm_apply;
	q->fsm.snapshot = quorum_fsm_snapshot;
	q->fsm.restore = quorum_fsm_restore;
	if ((rv = raft_init(&q->raft, &q->io, &q->fsm, (raft_id)(q->self + 1),
		 self_raft)) != 0) {
		xasprintf(cause, "raft_init: %s", raft_errmsg(&q->raft));
		goto fail_loop;
	}
	raft_set_election_timeout(&q->raft, (unsigned)q->election_ms);
	raft_set_heartbeat_timeout(&q->raft,
	    (unsigned)(q->election_ms / 10 > 0 ? q->election_ms / 10 : 1));
	raft_set_pre_vote(&q->raft, true);
	raft_set_snapshot_threshold(&q->raft, QUORUM_SNAPSHOT_THRESHOLD);

	raft_configuration_init(&conf);
	for (i = 0; i < q->npeers; i++)
		if (raft_configuration_add(&conf, (raft_id)(i + 1),
			q->peers[i].raft_addr, RAFT_VOTER) != 0)
			fatalx("raft_configuration_add: out of memory");
	rv = raft_bootstrap(&q->raft, &conf);
	raft_configuration_close(&conf);
	if (rv != 0 && rv != RAFT_CANTBOOTSTRAP) {
		xasprintf(cause, "raft bootstrap in %s: %s", dir,
		    raft_errmsg(&q->raft));
		goto fail_loop;
	}
	free(dir);
	dir = NULL;

	if (mon_quorum_enable(m, quorum_replicate, q, cause) == -1)
		goto fail_loop;
	/* Its own rank from the start (what its health says of itself). */
	quorum_view(q, &q->view);
	mon_quorum_set_view(m, &q->view);
	q->uv_ev = event_new(base, uv_backend_fd(&q->loop),
	    EV_READ | EV_PERSIST, quorum_uv_cb, q);
	q->uv_timer = evtimer_new(base, quorum_uv_cb, q);
	if (q->uv_ev == NULL || q->uv_timer == NULL ||
	    event_add(q->uv_ev, NULL) == -1)
		fatalx("quorum: cannot add the engine's events");
	q->barrier.data = q;
	q->barrier.cb = quorum_barrier_cb;
	quorum_self = q;
	if ((rv = raft_start(&q->raft)) != 0) {
		xasprintf(cause,
		    "cannot start the engine (raft log %s/raft, "
		    "raft port %s): %s%s%s",
		    conf_str(c, CONF_MON_DATA), self_raft, raft_strerror(rv),
		    *raft_errmsg(&q->raft) ? ": " : "",
		    *raft_errmsg(&q->raft) ? raft_errmsg(&q->raft) :
					     " (is the raft port free?)");
		quorum_self = NULL;
		goto fail_loop;
	}
	q->started = 1;
	q->quorum_since = stamp_now();
	log_info("quorum: mon.%s (rank %d of %zu), raft on %s, election "
		 "timeout %lld ms",
	    name, q->self, q->npeers, self_raft, (long long)q->election_ms);
	quorum_kick(q);
	return q;
fail_loop:
	/* Exit follows: the loop's handles are left to the process. */
	free(dir);
	return NULL;
fail_free:
	free(dir);
	free(q);
	return NULL;
}

static void
quorum_closed_cb(struct raft *r)
{
	struct quorum *q = quorum_self;

	(void)r;
	q->closed = 1;
}

void
quorum_free(struct quorum *q)
{
	if (q == NULL)
		return;
	if (q->started) {
		q->started = 0;
		raft_close(&q->raft, quorum_closed_cb);
		while (!q->closed)
			uv_run(&q->loop, UV_RUN_ONCE);
		raft_uv_close(&q->io);
		uv_run(&q->loop, UV_RUN_DEFAULT);
		quorum_transport_free(&q->transport);
	}
	q->closed = 1;
	if (q->uv_ev != NULL)
		event_free(q->uv_ev);
	if (q->uv_timer != NULL)
		event_free(q->uv_timer);
	if (uv_loop_close(&q->loop) != 0)
		log_warnx("quorum: libuv's loop still has handles at exit");
	quorum_self = NULL;
	free(q);
}

/* ---- what it says ---- */

/* Who is in quorum as this monitor sees it (mon_quorum.h). */
static void
quorum_view(const struct quorum *q, struct mon_quorum_view *out)
{
	int64_t now = stamp_mono(), fresh = q->election_ms * 1000;
	size_t i;

	memset(out, 0, sizeof *out);
	out->self = q->self;
	out->term = q->last_term;
	out->since = q->quorum_since;
	out->leader = q->last_leader >= 1 && q->last_leader <= q->npeers ?
	    (int)q->last_leader - 1 :
	    -1;
	if (out->leader == -1)
		return; /* no quorum */
	out->complete = out->leader == q->self;
	for (i = 0; i < q->npeers; i++) {
		/*
		 * The leader hears every follower within a heartbeat; a
		 * follower hears only the leader.
		 */
		if ((int)i == q->self || (int)i == out->leader ||
		    (q->peers[i].heard_mono != 0 &&
			now - q->peers[i].heard_mono <= fresh))
			out->in[i] = 1;
		out->nin += out->in[i];
	}
}

json_t *
quorum_status_json(const struct quorum *q, const struct monmap *mm)
{
	struct mon_quorum_view v;
	struct mon_quorum_info info;
	json_t *o = json_object(), *ranks = json_array(), *names = json_array();
	size_t i;

	quorum_view(q, &v);
	for (i = 0; i < q->npeers; i++)
		if (v.in[i]) {
			json_array_append_new(ranks, json_integer((int)i));
			json_array_append_new(names,
			    json_string(q->peers[i].name));
		}
	/* Ceph's election epoch counts elections; a raft term does. */
	json_object_set_new(o, "election_epoch",
	    json_integer((json_int_t)v.term));
	json_object_set_new(o, "quorum", ranks);
	json_object_set_new(o, "quorum_names", names);
	json_object_set_new(o, "quorum_leader_name",
	    json_string(v.leader >= 0 ? q->peers[v.leader].name : ""));
	json_object_set_new(o, "quorum_age",
	    json_integer(v.leader >= 0 ?
		    (json_int_t)((stamp_now() - q->quorum_since) / 1000000) :
		    0));
	json_object_set_new(o, "monmap", monmap_to_json(mm));
	if (mon_quorum_info(q->m, &info) == 0) {
		json_t *r = json_object();

		json_object_set_new(r, "term",
		    json_integer((json_int_t)info.term));
		json_object_set_new(r, "state",
		    json_string(quorum_state_name(
			raft_state((struct raft *)&q->raft))));
		json_object_set_new(r, "view",
		    json_string(v.complete ?
			    "leader" :
			    "follower: knows itself and the leader"));
		json_object_set_new(r, "commit_index",
		    json_integer((json_int_t)info.committed_index));
		json_object_set_new(r, "applied_index",
		    json_integer((json_int_t)info.applied_index));
		json_object_set_new(r, "apply_backlog",
		    json_integer((json_int_t)info.backlog));
		json_object_set_new(r, "leader_changes",
		    json_integer((json_int_t)q->stats.leader_changes));
		json_object_set_new(r, "uv_slice_max_us",
		    json_integer((json_int_t)q->stats.uv_slice_max_us));
		json_object_set_new(r, "entries_proposed",
		    json_integer((json_int_t)info.entries_sealed));
		json_object_set_new(r, "entry_bytes_max",
		    json_integer((json_int_t)info.entry_bytes_max));
		json_object_set_new(o, "raft", r);
	}
	return o;
}

struct quorum *
quorum_current(void)
{
	return quorum_self;
}

void
quorum_stats(const struct quorum *q, struct quorum_stats *out)
{
	*out = q->stats;
}
