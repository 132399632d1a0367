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
 * not by raft log index: every monitor's engine applies the same command
 * entries in the same order, so the count is an entry's number on every
 * monitor alike.  The count starts from the number a snapshot's descriptor
 * gives (mon_quorum.h, SNAPSHOTS): the engine restores the last snapshot
 * at every start and replays the log after it.
 *
 * The state machine's apply only hands the entry to the core, which
 * queues it and commits it to the store after those before it (the
 * store's own "Q" record then says what was applied): the engine's idea of
 * what is applied runs ahead of the store's, which is why a snapshot's
 * descriptor carries the entries not yet in the store.  A restore whose
 * store is behind that makes a copy of another monitor's store
 * (quorum_sync.h) before anything more is applied.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <raft.h>
#include <raft/uv.h>
#include <uv.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "daemon/cmd.h"
#include "daemon/quorum.h"
#include "daemon/quorum_aio.h"
#include "daemon/quorum_sync.h"
#include "daemon/quorum_transport.h"
#include "mon/mon_conf.h"
#include "mon/mon_quorum.h"

/* Entries in flight to one follower (at most 4 MiB: see quorum_new). */
#define QUORUM_INFLIGHT_ENTRIES 4

/*
 * The Raft log's segment files: 16 MiB instead of C-Raft's 8, half the
 * segments to make, close and end.  Closing one ends its Linux AIO context,
 * which waits for RCU grace periods (some 32 ms here): quorum_aio.c has a
 * thread of its own make that call, so the loop does not freeze (BENCHMARKS.md,
 * "the Raft log's segment closes").  Larger segments were not kept: a
 * restart after a crash reads each open segment whole (64 MiB: 0.3 s more),
 * and C-Raft counts its spare log space in KiB in 16 bits: two spare
 * segments and at most two in use, never both empty, stay below 64 MiB.
 */
#define QUORUM_SEGMENT_SIZE (16 * 1024 * 1024)

struct quorum_peer {
	raft_id id; /* quorum_peer_id() */
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
	uint64_t snap_entry; /* the last snapshot's, taken or restored */

	/* The raft_io's start and receive, wrapped to see who talks. */
	int (*io_start)(struct raft_io *, unsigned, raft_io_tick_cb,
	    raft_io_recv_cb);
	raft_io_recv_cb io_recv;
	/* The transport's listen and accept, wrapped to see who connects. */
	int (*tr_listen)(struct raft_uv_transport *, raft_uv_accept_cb);
	raft_uv_accept_cb tr_accept;

	int last_state;
	raft_id last_leader;
	/* The leader's link closed: elections come sooner until it is heard. */
	raft_id lost_leader;
	int64_t lost_mono;
	uint64_t last_term;
	int64_t quorum_since; /* stamp_now() of the last change */
	struct raft_barrier barrier;
	int barrier_pending;
	uint64_t barrier_term;	   /* whose barrier committed: ready */
	int64_t barrier_mono;	   /* the last one sent */
	unsigned barrier_failures; /* in a row */
	/* Read indexes: the batch whose barrier is in flight, the next. */
	struct quorum_ri_batch *ri_flight;
	struct quorum_ri_batch *ri_next;

	struct quorum_stats stats;
	struct mon_quorum_view view; /* as last given to the core */
	int in_run;

	const struct conf *conf;
	uint32_t monmap_epoch; /* of the peers */
	raft_id self_id;
	char self_name[MONMAP_NAME_MAX]; /* kept when the monmap drops it */
	char self_addr[MONMAP_ADDR_MAX];
	int stop_sent;
	int joining; /* made by --mkfs --join: copies a store first */
	int leaving; /* removed from the monmap: stopping */
	/* Membership: the engine's configuration follows the monmap. */
	struct raft_change change;
	int change_pending;
	int64_t change_next_mono; /* no change before */
	char change_what[160];
	struct quorum_sync *sync; /* a copy of the store being fetched */
	uint64_t sync_from;
	struct event *sync_retry; /* the copy waits for one being provided */
	char *sync_dir;
	uint64_t sync_entry;
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

char *
quorum_join_marker(const struct conf *c)
{
	char *path;

	xasprintf(&path, "%s/join", conf_str(c, CONF_MON_DATA));
	return path;
}

/* ---- the monitors and their raft ids ---- */

/*
 * The raft id of a monitor added by `mon add': from its name (FNV-1a), so
 * that the leader that adds it and the monitor itself (--join) agree
 * without asking; above 2^32, apart from the ranks + 1 of the monitors of
 * the first monmap.
 */
static raft_id
quorum_name_id(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *name != '\0'; name++) {
		h ^= (unsigned char)*name;
		h *= 0x100000001b3ULL;
	}
	return (raft_id)(0x100000000ULL | (h & 0xffffffffULL));
}

/* The peer of raft id, or NULL. */
static struct quorum_peer *
quorum_peer_of(struct quorum *q, raft_id id)
{
	size_t i;

	if (id == 0)
		return NULL;
	for (i = 0; i < q->npeers; i++)
		if (q->peers[i].id == id)
			return &q->peers[i];
	return NULL;
}

/* The rank of raft id, or -1. */
static int
quorum_rank_of(const struct quorum *q, raft_id id)
{
	size_t i;

	for (i = 0; id != 0 && i < q->npeers; i++)
		if (q->peers[i].id == id)
			return (int)i;
	return -1;
}

/* The engine's server at raft address addr, or NULL. */
static const struct raft_server *
quorum_server_at(const struct quorum *q, const char *addr)
{
	unsigned i;

	for (i = 0; i < q->raft.configuration.n; i++)
		if (strcmp(q->raft.configuration.servers[i].address, addr) == 0)
			return &q->raft.configuration.servers[i];
	return NULL;
}

/*
 * The peers from the monmap: name, addresses, and the raft id the
 * engine's configuration gives their raft address (a monitor not in it
 * yet: quorum_name_id()).  This monitor's rank in q->self, -1 when the
 * monmap no longer lists it.  0, or -1 with *cause (a bad address).
 */
static int
quorum_peers_refresh(struct quorum *q, char **cause)
{
	const struct monmap *mm = mon_monmap(q->m);
	const char *name = conf_str(q->conf, CONF_MON_NAME);
	const struct raft_server *s;
	struct quorum_peer old[MONMAP_MAX_MONS], *p;
	size_t i, j, nold = q->npeers;

	memcpy(old, q->peers, sizeof old);
	memset(q->peers, 0, sizeof q->peers);
	q->self = -1;
	for (i = 0; i < mm->nmons; i++) {
		p = &q->peers[i];
		snprintf(p->name, sizeof p->name, "%s", mm->mons[i].name);
		snprintf(p->addr, sizeof p->addr, "%s", mm->mons[i].addr);
		if (quorum_raft_addr(p->addr, p->raft_addr, sizeof p->raft_addr,
			cause) == -1)
			return -1;
		if (strcmp(p->name, name) == 0) {
			q->self = (int)i;
			p->id = q->self_id;
			snprintf(q->self_name, sizeof q->self_name, "%s",
			    p->name);
			snprintf(q->self_addr, sizeof q->self_addr, "%s",
			    p->addr);
		} else if ((s = quorum_server_at(q, p->raft_addr)) != NULL)
			p->id = s->id;
		else
			p->id = q->started ? quorum_name_id(p->name) :
					     (raft_id)(i + 1);
		for (j = 0; j < nold; j++)
			if (strcmp(old[j].name, p->name) == 0)
				p->heard_mono = old[j].heard_mono;
	}
	q->npeers = mm->nmons;
	q->monmap_epoch = mm->epoch;
	return 0;
}

/*
 * This monitor's raft id, kept in [mon] data/raft.id from its first start:
 * rank + 1 in the first monmap, or quorum_name_id() for one that joined.
 * 0 with *cause when the file cannot be read or written.
 */
static raft_id
quorum_self_id(struct quorum *q, int rank, char **cause)
{
	char *path, buf[32];
	unsigned long long id = 0;
	FILE *f;

	xasprintf(&path, "%s/raft.id", conf_str(q->conf, CONF_MON_DATA));
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(buf, sizeof buf, f) == NULL ||
		    sscanf(buf, "%llu", &id) != 1 || id == 0)
			xasprintf(cause, "%s: not a raft id", path);
		fclose(f);
		free(path);
		return (raft_id)id;
	}
	if (errno != ENOENT) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		free(path);
		return 0;
	}
	id = q->joining ? quorum_name_id(conf_str(q->conf, CONF_MON_NAME)) :
			  (unsigned long long)rank + 1;
	if ((f = fopen(path, "w")) == NULL || fprintf(f, "%llu\n", id) < 0 ||
	    fflush(f) != 0 || fsync(fileno(f)) != 0) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		id = 0;
	}
	if (f != NULL)
		fclose(f);
	free(path);
	return (raft_id)id;
}

/* ---- membership: the engine's configuration follows the monmap ---- */

static void quorum_leave(struct quorum *q);

static void
quorum_change_cb(struct raft_change *req, int status)
{
	struct quorum *q = req->data;

	q->change_pending = 0;
	if (q->leaving) {
		quorum_leave(q);
		return;
	}
	if (status != 0) {
		log_warnx("quorum: %s: %s (tried again in a second)",
		    q->change_what, raft_strerror(status));
		q->change_next_mono = stamp_mono() + 1000000;
		return;
	}
	log_info("quorum: %s: done", q->change_what);
	quorum_kick(q);
}

/* The next change that brings the configuration to the monmap, if any. */
static void
quorum_reconcile(struct quorum *q)
{
	const struct raft_configuration *c = &q->raft.configuration;
	const struct raft_server *s;
	struct quorum_peer *p;
	size_t i;
	int rv = 0;

	if (q->change_pending || raft_state(&q->raft) != RAFT_LEADER ||
	    stamp_mono() < q->change_next_mono)
		return;
	q->change.data = q;
	if (q->leaving) {
		/* The leader leaves the configuration, then stops. */
		snprintf(q->change_what, sizeof q->change_what,
		    "mon.%s (the leader) leaves the configuration",
		    q->self_name);
		rv = raft_remove(&q->raft, &q->change, q->self_id,
		    quorum_change_cb);
		goto sent;
	}
	for (i = 0; i < q->npeers; i++) {
		p = &q->peers[i];
		s = NULL;
		for (unsigned k = 0; k < c->n; k++)
			if (c->servers[k].id == p->id)
				s = &c->servers[k];
		if (s == NULL) {
			snprintf(q->change_what, sizeof q->change_what,
			    "adding mon.%s (raft id %llu at %s)", p->name,
			    (unsigned long long)p->id, p->raft_addr);
			rv = raft_add(&q->raft, &q->change, p->id, p->raft_addr,
			    quorum_change_cb);
			goto sent;
		}
		if (s->role != RAFT_VOTER) {
			snprintf(q->change_what, sizeof q->change_what,
			    "mon.%s catches up and votes", p->name);
			rv = raft_assign(&q->raft, &q->change, p->id,
			    RAFT_VOTER, quorum_change_cb);
			goto sent;
		}
	}
	for (unsigned k = 0; k < c->n; k++) {
		if (quorum_peer_of(q, c->servers[k].id) != NULL)
			continue;
		snprintf(q->change_what, sizeof q->change_what,
		    "removing raft id %llu at %s",
		    (unsigned long long)c->servers[k].id,
		    c->servers[k].address);
		rv = raft_remove(&q->raft, &q->change, c->servers[k].id,
		    quorum_change_cb);
		goto sent;
	}
	return;
sent:
	if (rv != 0) {
		log_warnx("quorum: %s: %s", q->change_what,
		    raft_errmsg(&q->raft));
		q->change_next_mono = stamp_mono() + 1000000;
		return;
	}
	q->change_pending = 1;
	log_info("quorum: %s", q->change_what);
}

/* The monmap changed: new peers; a monitor no longer in it stops. */
static void
quorum_monmap_changed(struct quorum *q)
{
	char *cause = NULL;

	if (quorum_peers_refresh(q, &cause) == -1)
		fatalx("quorum: the new monmap: %s", cause);
	log_info("quorum: monmap epoch %u: %zu monitors", q->monmap_epoch,
	    q->npeers);
	/*
	 * A monitor removed from the configuration hears nothing more: it
	 * gets two election timeouts of heartbeats first, which carry the
	 * commit of the monmap that removes it, so that it stops by itself.
	 */
	q->change_next_mono = stamp_mono() + 2 * q->election_ms * 1000;
	if (q->self == -1 && !q->leaving) {
		q->leaving = 1;
		log_warnx("quorum: mon.%s was removed from the monmap (epoch "
			  "%u)%s",
		    q->self_name, q->monmap_epoch,
		    raft_state(&q->raft) == RAFT_LEADER ?
			": it leads, and leaves the engine's configuration "
			"before it stops" :
			"");
	}
}

/*
 * Stop a monitor removed from the monmap: at once on a follower; the
 * leader once it has left the configuration (C-Raft's leader steps down
 * when the configuration without it commits), so that the monitors left
 * form their majority among themselves, two as well as more.
 */
static void
quorum_leave(struct quorum *q)
{
	if (q->stop_sent)
		return;
	q->stop_sent = 1;
	log_warnx("quorum: mon.%s is no longer in the monmap: stopping",
	    q->self_name);
	kill(getpid(), SIGTERM);
}

int
quorum_voter(struct quorum *q, const char *name)
{
	const struct raft_configuration *c = &q->raft.configuration;
	size_t i;
	unsigned k;

	for (i = 0; i < q->npeers; i++) {
		if (strcmp(q->peers[i].name, name) != 0)
			continue;
		for (k = 0; k < c->n; k++)
			if (c->servers[k].id == q->peers[i].id)
				return c->servers[k].role == RAFT_VOTER;
	}
	return 0;
}

int
quorum_changing(struct quorum *q, char **why)
{
	const struct raft_configuration *c = &q->raft.configuration;
	size_t i;
	unsigned k;
	int found;

	if (q->change_pending) {
		xasprintf(why, "%s", q->change_what);
		return 1;
	}
	for (i = 0; i < q->npeers; i++) {
		found = 0;
		for (k = 0; k < c->n; k++)
			if (c->servers[k].id == q->peers[i].id)
				found = c->servers[k].role == RAFT_VOTER;
		if (!found) {
			xasprintf(why, "mon.%s is not a voter yet (is it up?)",
			    q->peers[i].name);
			return 1;
		}
	}
	if (c->n != q->npeers) {
		xasprintf(why,
		    "a removed monitor is still in the engine's "
		    "configuration");
		return 1;
	}
	return 0;
}

/* ---- the loops ---- */

/* A failed barrier is sent again this often while its leader leads. */
#define QUORUM_BARRIER_RETRY_US (1000 * 1000LL)

static void quorum_barrier_cb(struct raft_barrier *, int);

static void
quorum_barrier_failed(struct quorum *q, const char *why)
{
	/* Said once a minute while it goes on (every try is a second). */
	if (q->barrier_failures++ % 60 == 0)
		log_warnx("quorum: the barrier of term %llu: %s (failed %u "
			  "time%s; tried again every second)",
		    (unsigned long long)q->raft.current_term, why,
		    q->barrier_failures, q->barrier_failures == 1 ? "" : "s");
}

/*
 * A new leader's barrier: once it commits, every entry of the terms
 * before is applied here and the leader is ready (mon_quorum_leader_ready).
 * One that fails (C-Raft refuses entries while a majority of the
 * monitors have too little log space prepared: a full disk) is sent again
 * by quorum_role_check() while this monitor leads in that term; else it
 * would lead on, never ready, with every write waiting.
 */
static void
quorum_barrier_send(struct quorum *q)
{
	q->barrier_pending = 1;
	q->barrier_mono = stamp_mono();
	if (raft_barrier(&q->raft, &q->barrier, quorum_barrier_cb) != 0) {
		q->barrier_pending = 0;
		quorum_barrier_failed(q, raft_errmsg(&q->raft));
	}
}

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
	    term == q->last_term) {
		if (state == RAFT_LEADER && !q->barrier_pending &&
		    q->barrier_term != term &&
		    stamp_mono() - q->barrier_mono >= QUORUM_BARRIER_RETRY_US)
			quorum_barrier_send(q);
		return;
	}
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
	lp = quorum_peer_of(q, lid);
	if (state == RAFT_LEADER) {
		log_info("quorum: mon.%s leads, term %llu", q->self_name,
		    (unsigned long long)term);
		mon_quorum_set_role(q->m, MON_QUORUM_LEADER, term, q->self_name,
		    q->self_addr);
		q->barrier_failures = 0;
		if (!q->barrier_pending)
			quorum_barrier_send(q);
	} else if (lp != NULL) {
		log_info("quorum: mon.%s leads, term %llu (this is mon.%s, "
			 "%s)",
		    lp->name, (unsigned long long)term, q->self_name,
		    quorum_state_name(state));
		mon_quorum_set_role(q->m, MON_QUORUM_FOLLOWER, term, lp->name,
		    lp->addr);
	} else {
		log_info("quorum: no leader known, term %llu (mon.%s is %s)",
		    (unsigned long long)term, q->self_name,
		    quorum_state_name(state));
		mon_quorum_set_role(q->m, MON_QUORUM_NONE, term, NULL, NULL);
	}
}

/*
 * A link to the leader ended or could not be made (quorum_transport.h):
 * its process is gone, most likely (the kernel closed its sockets), and
 * waiting out the election timeout would cost one to two of them, as
 * C-Raft's followers refuse votes while they still know a leader, so the
 * election waits for the later of the two survivors' timeouts
 * (BENCHMARKS.md).  The follower's timeout is cut to a quarter until the
 * leader is heard from again or another leads: a live leader's next
 * heartbeat puts it back, and while the others still hear it, they refuse
 * this follower's pre-vote, so no term is spent.
 */
static void
quorum_link_lost(void *arg, raft_id id)
{
	struct quorum *q = arg;
	raft_id lid = 0;
	const char *laddr = NULL;
	const struct quorum_peer *lp;
	unsigned ms;

	if (q->closed || !q->started || q->lost_leader != 0 ||
	    raft_state(&q->raft) != RAFT_FOLLOWER)
		return;
	raft_leader(&q->raft, &lid, &laddr);
	if (lid == 0 || lid != id)
		return;
	ms = q->election_ms / 4 > 0 ? (unsigned)q->election_ms / 4 : 1;
	q->lost_leader = id;
	q->lost_mono = stamp_mono();
	raft_set_election_timeout(&q->raft, ms);
	lp = quorum_peer_of(q, id);
	log_info("quorum: the link to the leader mon.%s ended: an election "
		 "after %u to %u ms unless it is heard from again",
	    lp != NULL ? lp->name : "?", ms, 2 * ms);
	quorum_kick(q);
}

/* The leader is heard again, or another leads: the full timeout again. */
static void
quorum_link_lost_check(struct quorum *q)
{
	raft_id lid = 0;
	const char *laddr = NULL;
	const struct quorum_peer *lp;

	if (q->lost_leader == 0)
		return;
	raft_leader(&q->raft, &lid, &laddr);
	lp = quorum_peer_of(q, lid);
	if (raft_state(&q->raft) != RAFT_LEADER &&
	    (lid == 0 ||
		(lid == q->lost_leader &&
		    (lp == NULL || lp->heard_mono <= q->lost_mono))))
		return;
	q->lost_leader = 0;
	raft_set_election_timeout(&q->raft, (unsigned)q->election_ms);
}

static void quorum_view(const struct quorum *, struct mon_quorum_view *);

/* One non-blocking turn of libuv's loop; its slice is measured. */
static void
quorum_run(struct quorum *q)
{
	struct mon_quorum_view view;
	char *cause = NULL;
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
	quorum_link_lost_check(q);
	quorum_role_check(q);
	if (q->closed)
		return;
	if (mon_monmap(q->m)->epoch != q->monmap_epoch)
		quorum_monmap_changed(q);
	else if (quorum_peers_refresh(q, &cause) == -1)
		fatalx("quorum: the monmap: %s", cause);
	if (q->leaving && !q->change_pending &&
	    raft_state(&q->raft) != RAFT_LEADER)
		quorum_leave(q);
	quorum_reconcile(q);
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
	struct quorum *q = fsm->data;
	struct raft_buffer *b;
	void *desc;
	size_t len;
	char *cause = NULL;

	/*
	 * Not while entries are still being written to the log: C-Raft
	 * 0.22.1 then puts the snapshot through a path that dereferences a
	 * null request (a follower catching up crashed there, in libraft,
	 * now and then: mapmond(8), QUORUM).  The next entry asks again; a
	 * log grown by eight thresholds meanwhile (writes that never pause)
	 * takes it anyway, so that the log stays bounded.
	 */
	if (q->raft.last_stored < raft_last_index(&q->raft) &&
	    q->napplied - q->snap_entry <
		8 * (uint64_t)conf_int(q->conf, CONF_MON_SNAPSHOT_THRESHOLD)) {
		dout(LOG_MON, 5,
		    "quorum: no snapshot of entry %llu now: "
		    "entries up to %llu are still being written",
		    (unsigned long long)q->napplied,
		    (unsigned long long)raft_last_index(&q->raft));
		return RAFT_BUSY;
	}
	if (mon_quorum_snapshot(q->m, q->napplied, &desc, &len, &cause) == -1) {
		dout(LOG_MON, 5, "quorum: no snapshot of entry %llu now: %s",
		    (unsigned long long)q->napplied, cause);
		free(cause);
		return RAFT_BUSY;
	}
	if ((b = raft_malloc(sizeof *b)) == NULL ||
	    (b->base = raft_malloc(len)) == NULL) {
		raft_free(b);
		free(desc);
		return RAFT_NOMEM;
	}
	memcpy(b->base, desc, len);
	b->len = len;
	free(desc);
	*bufs = b;
	*n = 1;
	q->stats.snapshots++;
	q->snap_entry = q->napplied;
	dout(LOG_MON, 5, "quorum: snapshot of entry %llu, %zu bytes",
	    (unsigned long long)q->napplied, len);
	return 0;
}

static void quorum_sync_begin(struct quorum *q);

static int
quorum_fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	struct quorum *q = fsm->data;
	uint64_t index, from;
	char *cause = NULL;
	int rc;

	rc = mon_quorum_restore(q->m, buf->base, buf->len, &index, &from,
	    &cause);
	if (rc == -1) {
		log_warnx("quorum: a snapshot cannot be restored: %s", cause);
		free(cause);
		return RAFT_CORRUPT;
	}
	q->napplied = index;
	q->snap_entry = index;
	raft_free(buf->base);
	if (rc == 1) {
		q->sync_from = from;
		quorum_sync_begin(q);
	}
	return 0;
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
		if (raft_state(&q->raft) == RAFT_LEADER)
			quorum_barrier_failed(q, raft_strerror(status));
		return;
	}
	if (raft_state(&q->raft) == RAFT_LEADER) {
		q->barrier_term = q->raft.current_term;
		if (q->barrier_failures > 0)
			log_info("quorum: the barrier of term %llu committed "
				 "after %u failure%s",
			    (unsigned long long)q->barrier_term,
			    q->barrier_failures,
			    q->barrier_failures == 1 ? "" : "s");
		q->barrier_failures = 0;
		mon_quorum_leader_ready(q->m);
	}
}

/*
 * The entries of one proposal go to the engine one raft_apply() each, in
 * order, in one turn of the loop: nothing else is appended between them.
 * Not one raft_apply() of several buffers: with C-Raft 0.22.1, only the
 * first of them came back through the state machine here (the parts
 * after it never did, so every such proposal was dropped).  Each has its callback; a failed one makes the
 * proposal's outcome unknown (mon_quorum_failed() takes it once).  When a
 * later part cannot be proposed, the parts before it may still commit:
 * every monitor drops them as a proposal never whole (mapmon-protocol(7),
 * REPLICATED ENTRIES).
 */
static int
quorum_replicate(void *arg, uint64_t seq, const struct mon_quorum_part *parts,
    size_t nparts, char **cause)
{
	struct quorum *q = arg;
	struct quorum_req *qr;
	struct raft_buffer b;
	size_t i;
	int rv;

	for (i = 0; i < nparts; i++) {
		if ((b.base = raft_malloc(parts[i].len)) == NULL) {
			xasprintf(cause,
			    "out of memory for an entry of %zu bytes",
			    parts[i].len);
			return -1;
		}
		memcpy(b.base, parts[i].buf, parts[i].len);
		b.len = parts[i].len;
		qr = xcalloc(1, sizeof *qr);
		qr->q = q;
		qr->seq = seq;
		qr->req.data = qr;
		if ((rv = raft_apply(&q->raft, &qr->req, &b, 1,
			 quorum_apply_cb)) != 0) {
			xasprintf(cause, "%s (%s)%s", raft_strerror(rv),
			    raft_errmsg(&q->raft),
			    i > 0 ? " after the first parts" : "");
#if !defined(RAFT_VERSION_NUMBER) || RAFT_VERSION_NUMBER < 1900
			/* From 0.19 on (the legacy layer) the engine frees it. */
			raft_free(b.base);
#endif
			free(qr);
			return -1;
		}
	}
	quorum_kick(q);
	return 0;
}

/*
 * Read indexes (quorum_read_index()), batched as etcd batches its
 * ReadIndex: a barrier entry committed in this leader's term proves it
 * still led after every request that came before the barrier was
 * appended, so one barrier answers all of them.  A request that comes
 * while a barrier is in flight cannot be answered by it (the acks that
 * commit it may predate the request): it joins the next batch, whose
 * barrier goes once the one in flight is done.  So a burst of N
 * linearizable reads costs two log writes, not N.
 */
struct quorum_ri {
	quorum_index_cb *cb;
	void *arg;
	struct quorum_ri *next;
};

struct quorum_ri_batch {
	struct raft_barrier req;
	struct event *ev; /* answers on the loop */
	struct quorum *q; /* NULL once the engine is freed */
	struct quorum_ri *head, **tail;
	int rc;
	uint64_t index;
	char why[160];
};

static void quorum_ri_answer(evutil_socket_t, short, void *);

static struct quorum_ri_batch *
quorum_ri_batch_new(struct quorum *q)
{
	struct quorum_ri_batch *b = xcalloc(1, sizeof *b);

	b->q = q;
	b->tail = &b->head;
	b->req.data = b;
	if ((b->ev = event_new(q->base, -1, 0, quorum_ri_answer, b)) == NULL)
		fatalx("quorum: cannot make an event");
	return b;
}

/* Answer every request of b with rc and why, on the loop. */
static void quorum_ri_fail(struct quorum_ri_batch *, int, const char *, ...)
    printflike(3, 4);
static void
quorum_ri_fail(struct quorum_ri_batch *b, int rc, const char *fmt, ...)
{
	va_list ap;

	b->rc = rc;
	va_start(ap, fmt);
	vsnprintf(b->why, sizeof b->why, fmt, ap);
	va_end(ap);
	event_active(b->ev, 0, 0);
}

static void
quorum_ri_barrier_cb(struct raft_barrier *req, int status)
{
	struct quorum_ri_batch *b = req->data;

	/*
	 * Every command entry before the barrier went through the state
	 * machine's apply: napplied counts them.
	 */
	if (status != 0)
		quorum_ri_fail(b, -EAGAIN,
		    "the leader could not confirm its lead (%s): retry",
		    raft_strerror(status));
	else {
		b->index = b->q->napplied;
		event_active(b->ev, 0, 0);
	}
}

/* The waiting batch's barrier goes, unless one is in flight. */
static void
quorum_ri_flush(struct quorum *q)
{
	struct quorum_ri_batch *b = q->ri_next;
	int rv;

	if (b == NULL || q->ri_flight != NULL)
		return;
	q->ri_next = NULL;
	q->ri_flight = b;
	q->stats.read_index_barriers++;
	if (raft_state(&q->raft) != RAFT_LEADER)
		quorum_ri_fail(b, -EAGAIN,
		    "this monitor does not lead (retry through the leader)");
	else if ((rv = raft_barrier(&q->raft, &b->req, quorum_ri_barrier_cb)) !=
	    0)
		quorum_ri_fail(b, -EAGAIN,
		    "the leader could not confirm its lead (%s): retry",
		    raft_strerror(rv));
	else
		quorum_kick(q);
}

static void
quorum_ri_answer(evutil_socket_t fd, short what, void *arg)
{
	struct quorum_ri_batch *b = arg;
	struct quorum *q = b->q;
	struct quorum_ri *ri;

	(void)fd;
	(void)what;
	if (q != NULL && q->ri_flight == b)
		q->ri_flight = NULL;
	while ((ri = b->head) != NULL) {
		b->head = ri->next;
		ri->cb(ri->arg, b->rc, b->index, b->rc != 0 ? b->why : NULL);
		free(ri);
	}
	event_free(b->ev);
	free(b);
	if (q != NULL && !q->closed)
		quorum_ri_flush(q);
}

int
quorum_read_index(struct quorum *q, quorum_index_cb *cb, void *arg)
{
	struct quorum_ri *ri;
	struct quorum_ri_batch *b;

	if (q == NULL || q->closed || !q->started)
		return -1;
	ri = xcalloc(1, sizeof *ri);
	ri->cb = cb;
	ri->arg = arg;
	if (raft_state(&q->raft) != RAFT_LEADER) {
		b = quorum_ri_batch_new(q);
		b->q = NULL; /* answered alone, never in flight */
		b->head = ri;
		quorum_ri_fail(b, -EAGAIN,
		    "this monitor does not lead (retry through the leader)");
		return 0;
	}
	q->stats.read_index_reads++;
	if (q->ri_next == NULL)
		q->ri_next = quorum_ri_batch_new(q);
	b = q->ri_next;
	*b->tail = ri;
	b->tail = &ri->next;
	quorum_ri_flush(q);
	return 0;
}

/* ---- a copy of the store (quorum_sync.h) ---- */

static int
quorum_sync_rm_one(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) == -1 ? -1 : 0;
}

/* Put the copy in place, once no copy of this store is being provided. */
static void
quorum_sync_swap(struct quorum *q)
{
	static const struct timeval later = { 0, 100 * 1000 };
	struct store_options so;
	char *cause = NULL;

	if (cmd_sync_copying()) {
		/* A copy of this store is being made: not under it. */
		evtimer_add(q->sync_retry, &later);
		return;
	}
	mon_conf_store_options(q->conf, &so);
	so.backend = NULL;
	if (mon_quorum_synced(q->m, q->sync_dir, &so, &cause) == -1)
		fatalx("quorum: the copy of the store cannot be put in place: "
		       "%s",
		    cause);
	/* The old store is in the copy's directory now. */
	nftw(q->sync_dir, quorum_sync_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (q->joining) {
		char *marker = quorum_join_marker(q->conf);

		if (unlink(marker) == -1)
			log_warn("quorum: %s", marker);
		free(marker);
		q->joining = 0;
		log_info("quorum: joined with a copy of the store of entry "
			 "%llu",
		    (unsigned long long)q->sync_entry);
	}
	free(q->sync_dir);
	q->sync_dir = NULL;
}

static void
quorum_sync_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	quorum_sync_swap(arg);
}

static void
quorum_sync_done(void *arg, const char *dir, uint64_t entry)
{
	struct quorum *q = arg;

	free(q->sync_dir);
	q->sync_dir = xstrdup(dir); /* before dir goes with the sync */
	quorum_sync_free(q->sync);
	q->sync = NULL;
	q->sync_entry = entry;
	quorum_sync_swap(q);
}

/*
 * Fetch a store holding entry q->sync_from from the other monitors.
 * Called from the engine's restore: the copy is fetched on a thread, and
 * put in place on the loop (mon_quorum_synced()).
 */
static void
quorum_sync_begin(struct quorum *q)
{
	struct quorum_sync_params p;
	const struct mon_auth_entity *mon = mon_auth_find(q->m, "mon.");
	const char *addrs[MONMAP_MAX_MONS];
	const char *cert = conf_str(q->conf, CONF_NET_TLS_CERT);
	char *data, *cause = NULL;
	size_t i;

	if (mon == NULL)
		fatalx("quorum: the store has no mon. entity: no copy of "
		       "another monitor's store can be asked for");
	quorum_sync_free(q->sync);
	q->sync = NULL;
	memset(&p, 0, sizeof p);
	data = xstrdup(conf_str(q->conf, CONF_MON_DATA));
	p.data = data;
	mon_conf_store_options(q->conf, &p.so);
	p.so.backend = store_backend_name(mon_store(q->m));
	for (i = 0; i < q->npeers; i++)
		if ((int)i != q->self)
			addrs[p.naddrs++] = q->peers[i].addr;
	p.addrs = addrs;
	p.mon_key = mon->key;
	p.fsid = mon_monmap(q->m)->fsid;
	p.from = q->sync_from;
	p.tls_ca = *cert != '\0' ? conf_str(q->conf, CONF_NET_TLS_CA) : NULL;
	if (q->sync_retry == NULL &&
	    (q->sync_retry = evtimer_new(q->base, quorum_sync_retry_cb, q)) ==
		NULL)
		fatalx("quorum: cannot make the sync's timer");
	log_info("quorum: this store is behind the snapshot: copying the "
		 "store of another monitor (entry %llu or later)",
	    (unsigned long long)q->sync_from);
	if ((q->sync = quorum_sync_start(q->base, &p, quorum_sync_done, q,
		 &cause)) == NULL)
		fatalx("quorum: cannot copy another monitor's store: %s",
		    cause);
	free(data);
}

/* ---- who talks: the receive callback, wrapped ---- */

static void
quorum_recv(struct raft_io *io, struct raft_message *msg)
{
	struct quorum *q = quorum_self;
	struct quorum_peer *p = quorum_peer_of(q, msg->server_id);

	if (p != NULL)
		p->heard_mono = stamp_mono();
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

/*
 * A monitor connected to this one anew.  Each monitor sends its messages
 * on connections of its own, so a restarted follower's first reply to
 * its leader comes on a new one: the leader replicates its view again,
 * as what the follower had applied of it was in memory only, and a quick
 * restart (within the election timeout) leaves the leader's view as it
 * was, so no change of it would.
 */
static void
quorum_accept(struct raft_uv_transport *t, raft_id id, const char *address,
    struct uv_stream_s *stream)
{
	struct quorum *q = quorum_self;

	if (!q->closed && raft_state(&q->raft) == RAFT_LEADER)
		mon_quorum_view_resend(q->m);
	q->tr_accept(t, id, address, stream);
}

static int
quorum_listen(struct raft_uv_transport *t, raft_uv_accept_cb cb)
{
	struct quorum *q = quorum_self;

	q->tr_accept = cb;
	return q->tr_listen(t, quorum_accept);
}

/*
 * raft_uv draws the engine's seed, and so every randomized election
 * timeout, from rand(): unseeded, every monitor drew the same ones, and
 * monitors started together stood for election in the same millisecond,
 * term after term, splitting the vote (three candidates within 3 to 8 ms
 * in each of five starts; a leader only after 11.8 s with a 3 s timeout
 * under ASan).  Each process seeds it its own way.
 */
static void
quorum_seed_rand(void)
{
	unsigned int seed;

	if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) !=
	    (ssize_t)sizeof seed)
		seed = (unsigned int)getpid() ^ (unsigned int)stamp_mono();
	srand(seed);
}

/* ---- life ---- */

struct quorum *
quorum_new(struct event_base *base, struct mon *m, const struct conf *c,
    char **cause)
{
	const char *name = conf_str(c, CONF_MON_NAME);
	struct raft_configuration conf;
	struct quorum *q;
	struct stat sb;
	char *dir = NULL, *marker = NULL, self_raft[MONMAP_ADDR_MAX];
	size_t i;
	int rv;
	unsigned heartbeat_ms;

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
	q->conf = c;
	marker = quorum_join_marker(c);
	q->joining = stat(marker, &sb) == 0;
	free(marker);
	if (quorum_peers_refresh(q, cause) == -1)
		goto fail_free;
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
	if ((q->self_id = quorum_self_id(q, q->self, cause)) == 0)
		goto fail_free;
	q->peers[q->self].id = q->self_id;
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
	quorum_transport_set_lost(&q->transport, quorum_link_lost, q);
	if ((rv = raft_uv_init(&q->io, &q->loop, dir, &q->transport)) != 0) {
		xasprintf(cause, "raft log in %s: %s", dir, raft_strerror(rv));
		goto fail_loop;
	}
	q->io_start = q->io.start;
	q->io.start = quorum_io_start;
	q->tr_listen = q->transport.listen;
	q->transport.listen = quorum_listen;
	q->fsm.version = 1;
	q->fsm.data = q;
	q->fsm.apply = quorum_fsm_apply;
	q->fsm.snapshot = quorum_fsm_snapshot;
	q->fsm.restore = quorum_fsm_restore;
	quorum_seed_rand();
	if ((rv = raft_init(&q->raft, &q->io, &q->fsm, q->self_id,
		 self_raft)) != 0) {
		xasprintf(cause, "raft_init: %s", raft_errmsg(&q->raft));
		goto fail_loop;
	}
	raft_set_election_timeout(&q->raft, (unsigned)q->election_ms);
	heartbeat_ms = q->election_ms / 10 > 0 ? (unsigned)q->election_ms / 10 :
						 1;
	raft_set_heartbeat_timeout(&q->raft, heartbeat_ms);
	raft_set_pre_vote(&q->raft, true);
	/*
	 * A monitor that was down is connected to again every heartbeat,
	 * not every second (C-Raft's default): a restarted follower hears
	 * its leader, and is back in quorum, that much sooner
	 * (bench/quorum/restart.sh).  A refused connection costs little,
	 * and the transport logs it once in a while only.
	 */
	raft_uv_set_connect_retry_delay(&q->io, heartbeat_ms);
	raft_uv_set_segment_size(&q->io, QUORUM_SEGMENT_SIZE);
	/*
	 * A follower the leader probes (after an election, a rejection or a
	 * restart) gets every entry in flight again at each heartbeat until
	 * it answers: with C-Raft's default of 32 entries of up to
	 * MON_QUORUM_ENTRY_MAX that is 32 MiB a heartbeat, more than a
	 * loaded follower answers within one, so the same entries went out
	 * again and again and the bring-up of a large cluster stalled for
	 * minutes with the monitors busy copying (bench/quorum/bringup.sh,
	 * BENCHMARKS.md).  A proposal is replicated at a time, so a few
	 * entries in flight keep the pipeline full.
	 */
	raft_set_max_inflight_entries(&q->raft, QUORUM_INFLIGHT_ENTRIES);
	raft_set_snapshot_threshold(&q->raft,
	    (unsigned)conf_int(c, CONF_MON_SNAPSHOT_THRESHOLD));
	raft_set_snapshot_trailing(&q->raft,
	    (unsigned)conf_int(c, CONF_MON_SNAPSHOT_TRAILING));

	/*
	 * The first configuration: the first monmap's monitors, ids rank +
	 * 1; only a store of that monmap bootstraps (after a change the
	 * engine has its configuration on disk).  A monitor that joins has
	 * none of its own: the leader sends it.
	 */
	raft_configuration_init(&conf);
	rv = 0;
	if (!q->joining && mon_monmap(m)->epoch == 1) {
		for (i = 0; i < q->npeers && rv == 0; i++)
			rv = raft_configuration_add(&conf, (raft_id)(i + 1),
			    q->peers[i].raft_addr, RAFT_VOTER);
		if (rv != 0) {
			xasprintf(cause, "the first raft configuration: %s",
			    raft_strerror(rv));
			raft_configuration_close(&conf);
			goto fail_loop;
		}
		rv = raft_bootstrap(&q->raft, &conf);
	}
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
	/* The ids of the engine's configuration, now loaded. */
	if (quorum_peers_refresh(q, cause) == -1)
		goto fail_loop;
	if (q->joining && !mon_quorum_syncing(m, NULL)) {
		/* Nothing is applied on a store made from the monmap alone. */
		mon_quorum_join(m);
		q->sync_from = 0;
		quorum_sync_begin(q);
	}
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
		quorum_aio_drain();
		quorum_transport_free(&q->transport);
	}
	q->closed = 1;
	/* Read indexes left are answered from the loop, without q. */
	if (q->ri_flight != NULL)
		q->ri_flight->q = NULL;
	if (q->ri_next != NULL) {
		q->ri_next->q = NULL;
		quorum_ri_fail(q->ri_next, -EAGAIN,
		    "the monitor is shutting down: retry on another");
	}
	quorum_sync_free(q->sync);
	if (q->sync_retry != NULL)
		event_free(q->sync_retry);
	free(q->sync_dir);
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
	out->leader = quorum_rank_of(q, q->last_leader);
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
	const char *view;
	size_t i;

	/* What every monitor in quorum serves alike: the leader's view. */
	if (mon_quorum_get_view(q->m, &v) == -1)
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
	    json_string(v.leader >= 0 && (size_t)v.leader < q->npeers ?
		    q->peers[v.leader].name :
		    ""));
	json_object_set_new(o, "quorum_age",
	    json_integer(v.leader >= 0 && v.since > 0 ?
		    (json_int_t)((stamp_now() - v.since) / 1000000) :
		    0));
	json_object_set_new(o, "monmap", monmap_to_json(mm));
	if (mon_quorum_info(q->m, &info) == 0) {
		json_t *r = json_object();

		json_object_set_new(r, "term",
		    json_integer((json_int_t)info.term));
		json_object_set_new(r, "state",
		    json_string(quorum_state_name(
			raft_state((struct raft *)&q->raft))));
		if (v.leader < 0)
			view = "none: no leader known (out of quorum)";
		else if (v.leader == v.self)
			view = "leader";
		else if (v.complete)
			view = "follower: the leader's, replicated";
		else
			view = "follower: knows itself and the leader (the "
			       "leader's view not received yet)";
		json_object_set_new(r, "view", json_string(view));
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
		json_object_set_new(r, "entry_bytes_total",
		    json_integer((json_int_t)info.entry_bytes_total));
		json_object_set_new(r, "entry_raw_bytes_total",
		    json_integer((json_int_t)info.entry_raw_bytes_total));
		json_object_set_new(r, "proposals_split",
		    json_integer((json_int_t)info.proposals_split));
		json_object_set_new(r, "parts_dropped",
		    json_integer((json_int_t)info.parts_dropped));
		json_object_set_new(r, "appends_dropped",
		    json_integer((json_int_t)quorum_transport_appends_dropped(
			&q->transport)));
		json_object_set_new(r, "snapshots",
		    json_integer((json_int_t)q->stats.snapshots));
		json_object_set_new(r, "snapshot_entry",
		    json_integer((json_int_t)q->snap_entry));
		json_object_set_new(r, "stores_copied",
		    json_integer((json_int_t)info.syncs));
		json_object_set_new(r, "syncing", json_boolean(info.syncing));
		if (info.syncing)
			json_object_set_new(r, "sync_from",
			    json_integer((json_int_t)info.sync_from));
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
	out->appends_dropped = quorum_transport_appends_dropped(&q->transport);
}
