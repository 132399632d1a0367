/*
 * ackload.c: load a monitor with PG reports and admin commands and log
 * every acknowledged change; later, check that log against the monitor.
 *
 *	ackload load -m ADDR -l LOG [-t SECONDS] [-r REPORTERS] [-g PGS]
 *	    [-b BATCH] [-w WINDOW] [-a ADMIN_WINDOW] [-p POOLS] [-s SEED]
 *	ackload check -m ADDR -l LOG
 *
 * load: raises the monitor's PG limits ([mon] max_pool_pg_num,
 * max_pg_per_osd, max_pgs of mapmon.conf(5)) to their highest with `config
 * set`, as an operator would for a cluster this dense (PGS in one pool on
 * 4 OSDs, pools of earlier runs kept), makes sure OSDs 0..max(REPORTERS,
 * 4)-1 exist and are up and that the pool "ackbase" exists (PGS PGs, size
 * 2), then, for SECONDS or until the monitor goes away:
 *
 *  - REPORTERS connections, one per OSD, each keep WINDOW binary `pg
 *    report`s of up to BATCH PGs in flight.  Every PG of ackbase belongs
 *    to one reporter (seed % REPORTERS), so its reports arrive in the order
 *    they were sent and none is "old";
 *  - one admin connection keeps ADMIN_WINDOW commands in flight: osd in /
 *    out, osd reweight, osd pool create (at most POOLS per run), osd pool
 *    set pg_num (only ever grown) and size, and status reads.
 *
 * Every reply with rc 0 appends one line to LOG (line-buffered, so it is in
 * the kernel before the next request leaves) saying what the change
 * asserts about any later state of the monitor:
 *
 *	pgs 1.2+4x16 reported_seq>=1764547533079363 by osd.2
 *		PGs 1.2, 1.6, ... (16 PGs, seeds in hex, step 4)
 *	pool ack1764547533x3 exists
 *	pool ack1764547533x3 pg_num>=12
 *	osdmap epoch>=57			(a status read: what a client
 *	pgmap version>=1234			 saw is durable)
 *	osd.3 in=0
 *	osd.3 reweight=0.5
 *	pool ack1764547533x3 size=3
 *
 * The last three are values that later commands change again: for those,
 * one command per key is in flight at a time, and a line "sent KEY=VALUE"
 * is logged before the command leaves.  The final value of such a key must
 * be its last acknowledged value or the value of a command sent after it
 * (one that was in flight when the monitor died may or may not have been
 * committed).  A PG's reported_seq is max(now in microseconds, its last +
 * 1), so it grows across runs of ackload on the same log, and reported_epoch
 * is the osdmap epoch at the start of the run.
 *
 * Exit status of load: 0 when it ran for SECONDS and every request was
 * answered; 3 when the monitor went away (the connection closed or was
 * refused: expected when the monitor is killed) or answered ESHUTDOWN (it
 * is stopping: expected when it is stopped; no request is sent after that
 * answer, and those answered so are counted apart, not as unexpected); 2
 * when the monitor refused a change ackload expected to succeed (a bug); 1
 * on any other error; 64 on usage.
 *
 * check: connects to ADDR, reads `osd dump`, `status` and `pg dump pgs`,
 * and checks every line of LOG; prints each violated line, then a summary,
 * and exits 0 when every line holds, 1 when one does not, 3 when the
 * monitor cannot be reached (or is stopping).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "map/pg.h"
#include "net/client.h"
#include "net/frame.h"
#include "test/lib/loadtool.h"

#define EXIT_ERROR 1
#define EXIT_UNEXPECTED 2
#define EXIT_GONE 3

#define BASE_POOL "ackbase"
#define MIN_OSDS 4
#define POOL_PG_MAX 32		/* ack pools grow up to this many PGs */
#define CALL_TIMEOUT_MS 10000
#define DRAIN_SECONDS 20	/* after SECONDS, wait this long for replies */

static const char progname[] = "ackload";
static const char usage_text[] =
    "usage: ackload load -m ADDR -l LOG [-t SECONDS] [-r REPORTERS] "
    "[-g PGS]\n"
    "           [-b BATCH] [-w WINDOW] [-a ADMIN_WINDOW] [-p POOLS] "
    "[-s SEED]\n"
    "       ackload check -m ADDR -l LOG\n";

static uint64_t
now_us(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
}

/* Errors that mean the monitor is gone, not that it refused something. */
static int
is_gone(int rc)
{
	switch (-rc) {
	case ECONNREFUSED:
	case ECONNRESET:
	case ECONNABORTED:
	case ETIMEDOUT:
	case EPIPE:
	case EPROTO:
	case ECANCELED:
	case EHOSTUNREACH:
		return 1;
	}
	return 0;
}

/* xorshift64*: the choices of one run are reproducible from -s. */
static uint64_t rng_state = 88172645463325252ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static uint32_t
rng_below(uint32_t n)
{
	return n == 0 ? 0 : (uint32_t)(rng() % n);
}

/* ------------------------------------------------------------------ */
/* load */

struct load;

struct reporter {
	struct load *l;
	int32_t osd;
	struct mclient *c;
	uint32_t npgs;		/* seeds osd, osd + nrep, ... below pg_num */
	uint32_t next;		/* index of the next batch's first PG */
	uint64_t seq;		/* last reported_seq sent */
	unsigned inflight;
};

struct ack_pool {
	char *name;
	uint32_t pg_num;
	uint32_t size;
	int busy_pg_num, busy_size;
};

struct load {
	struct event_base *base;
	const char *addr;
	FILE *log;
	int seconds, nrep, batch, window, admin_window, max_pools;
	int nosd;

	uint32_t pool_id, pg_num, epoch;
	struct reporter *reps;
	struct mclient *admin;
	unsigned admin_inflight;

	/* What this run believes of each OSD, and which key is busy. */
	int *osd_in, *osd_busy_in, *osd_busy_w;
	double *osd_weight;
	struct ack_pool *pools;
	size_t npools;
	int pools_created;
	uint64_t run_id;
	uint64_t seen_epoch, seen_version;

	int stopping, gone, unexpected;
	int shutdown;		/* answered ESHUTDOWN: the monitor stops */
	char *gone_msg;
	struct event *stop_ev, *drain_ev;

	uint64_t reports_acked, pg_updates, admin_acked, reads;
};

static void load_fill(struct load *);

/* Append one line to the log; line-buffered, so it is written at once. */
static void
load_log(struct load *l, const char *fmt, ...) printflike(2, 3);

static void
load_log(struct load *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(l->log, fmt, ap);
	va_end(ap);
	fputc('\n', l->log);
	fflush(l->log);
}

static void
load_gone(struct load *l, int err, const char *msg)
{
	if (!l->gone) {
		l->gone = 1;
		xasprintf(&l->gone_msg, "%s (%s)", msg != NULL ? msg : "",
		    strerror(-err));
	}
	event_base_loopbreak(l->base);
}

/*
 * A reply that is not rc 0: the monitor went away, is stopping (the
 * answers still coming are logged; nothing more is sent), or a bug.
 */
static void
load_failed(struct load *l, const char *what, int rc, const char *status)
{
	if (is_gone(rc)) {
		load_gone(l, rc, status);
		return;
	}
	if (rc == -ESHUTDOWN) {
		l->shutdown++;
		return;
	}
	l->unexpected++;
	loadtool_warnx("unexpected reply to %s: rc %d: %s", what, rc,
	    status != NULL ? status : "");
}

static int
load_idle(const struct load *l)
{
	int i;

	if (l->admin_inflight > 0)
		return 0;
	for (i = 0; i < l->nrep; i++)
		if (l->reps[i].inflight > 0)
			return 0;
	return 1;
}

static void
load_check_done(struct load *l)
{
	if ((l->stopping || l->shutdown > 0) && load_idle(l))
		event_base_loopbreak(l->base);
}

/* Reports. */

struct report_op {
	struct reporter *r;
	uint32_t first, count;
	uint64_t seq;
};

static void
report_done(void *arg, int rc, const char *status, json_t *data)
{
	struct report_op *op = arg;
	struct reporter *r = op->r;
	struct load *l = r->l;
	json_int_t accepted = -1;
	char what[64];

	r->inflight--;
	if (rc == 0) {
		json_unpack(data, "{s:I}", "accepted", &accepted);
		if (accepted != (json_int_t)op->count) {
			snprintf(what, sizeof what, "pg report of osd.%d",
			    r->osd);
			l->unexpected++;
			loadtool_warnx("unexpected reply to %s: accepted %lld "
			    "of %u: %s", what, (long long)accepted, op->count,
			    status != NULL ? status : "");
		} else {
			load_log(l, "pgs %u.%x+%xx%u reported_seq>=%" PRIu64
			    " by osd.%d", l->pool_id, op->first,
			    (unsigned)l->nrep, op->count, op->seq, r->osd);
			l->reports_acked++;
			l->pg_updates += op->count;
		}
	} else if (!l->gone)
		load_failed(l, "pg report", rc, status);
	free(op);
	if (!l->gone)
		load_fill(l);
	load_check_done(l);
}

static void
report_send(struct reporter *r)
{
	struct load *l = r->l;
	struct report_op *op;
	struct enc_buf b = { 0 };
	struct pg_stat st;
	struct pg_id id;
	uint64_t seq, t;
	uint32_t i, count;

	count = r->npgs - r->next;
	if (count > (uint32_t)l->batch)
		count = (uint32_t)l->batch;
	/* One seq for the whole batch: each PG has one reporter. */
	t = now_us();
	seq = t > r->seq ? t : r->seq + 1;
	r->seq = seq;

	op = xcalloc(1, sizeof *op);
	op->r = r;
	op->first = (uint32_t)r->osd + r->next * (uint32_t)l->nrep;
	op->count = count;
	op->seq = seq;

	enc_buf_put_u16(&b, FRAME_BINARY_PG_REPORT);
	enc_buf_put_u32(&b, (uint32_t)r->osd);
	enc_buf_put_u32(&b, count);
	for (i = 0; i < count; i++) {
		id.pool = l->pool_id;
		id.seed = op->first + i * (uint32_t)l->nrep;
		pg_stat_init(&st, id);
		st.state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
		st.version_epoch = l->epoch;
		st.version_v = seq % 1000000;
		st.reported_epoch = l->epoch;
		st.reported_seq = seq;
		st.mapping_epoch = l->epoch;
		st.up_len = st.acting_len = 2;
		st.up[0] = st.acting[0] = r->osd;
		st.up[1] = st.acting[1] = (r->osd + 1) % l->nosd;
		st.up_primary = st.acting_primary = r->osd;
		st.last_active = st.last_clean = (int64_t)t;
		st.num_objects = (int64_t)(seq % 1000);
		st.num_bytes = st.num_objects * 4096;
		st.num_object_copies = st.num_objects * 2;
		st.log_size = st.ondisk_log_size = 32;
		pg_stat_encode(&st, &b);
	}
	r->next += count;
	if (r->next >= r->npgs)
		r->next = 0;
	r->inflight++;
	if (mclient_request_binary(r->c, b.data, b.len, report_done, op) != 0) {
		r->inflight--;
		free(op);
		load_gone(l, -ECONNRESET, "pg report not sent");
	}
	enc_buf_free(&b);
}

/* Admin commands. */

enum admin_kind {
	ADMIN_IN_OUT,
	ADMIN_REWEIGHT,
	ADMIN_POOL_CREATE,
	ADMIN_PG_NUM,
	ADMIN_SIZE,
	ADMIN_STATUS,
	ADMIN_NKINDS
};

struct admin_op {
	struct load *l;
	enum admin_kind kind;
	int32_t osd;
	size_t pool;		/* index in l->pools */
	int64_t value;		/* in, pg_num, size */
	double weight;
	char *name;		/* pool create */
};

static void
admin_done(void *arg, int rc, const char *status, json_t *data)
{
	struct admin_op *op = arg;
	struct load *l = op->l;
	struct ack_pool *p = NULL;
	json_int_t e = 0, v = 0;

	l->admin_inflight--;
	if (op->kind == ADMIN_PG_NUM || op->kind == ADMIN_SIZE)
		p = &l->pools[op->pool];
	if (rc != 0) {
		if (!l->gone)
			load_failed(l, "an admin command", rc, status);
		goto out;
	}
	switch (op->kind) {
	case ADMIN_IN_OUT:
		load_log(l, "osd.%d in=%d", op->osd, (int)op->value);
		l->osd_in[op->osd] = (int)op->value;
		l->osd_busy_in[op->osd] = 0;
		break;
	case ADMIN_REWEIGHT:
		load_log(l, "osd.%d reweight=%g", op->osd, op->weight);
		l->osd_weight[op->osd] = op->weight;
		l->osd_busy_w[op->osd] = 0;
		break;
	case ADMIN_POOL_CREATE:
		load_log(l, "pool %s exists", op->name);
		l->pools = xreallocarray(l->pools, l->npools + 1,
		    sizeof *l->pools);
		p = &l->pools[l->npools++];
		memset(p, 0, sizeof *p);
		p->name = op->name;
		op->name = NULL;
		p->pg_num = (uint32_t)op->value;
		p->size = 2;
		p = NULL;
		break;
	case ADMIN_PG_NUM:
		load_log(l, "pool %s pg_num>=%" PRId64, p->name, op->value);
		p->pg_num = (uint32_t)op->value;
		p->busy_pg_num = 0;
		break;
	case ADMIN_SIZE:
		load_log(l, "pool %s size=%" PRId64, p->name, op->value);
		p->size = (uint32_t)op->value;
		p->busy_size = 0;
		break;
	case ADMIN_STATUS:
		l->reads++;
		if (json_unpack(data, "{s:{s:I}, s:{s:I}}", "osdmap", "epoch",
		    &e, "pgmap", "version", &v) != 0) {
			l->unexpected++;
			loadtool_warnx("status without osdmap.epoch, "
			    "pgmap.version");
			break;
		}
		if ((uint64_t)e > l->seen_epoch) {
			l->seen_epoch = (uint64_t)e;
			load_log(l, "osdmap epoch>=%lld", (long long)e);
		}
		if ((uint64_t)v > l->seen_version) {
			l->seen_version = (uint64_t)v;
			load_log(l, "pgmap version>=%lld", (long long)v);
		}
		l->admin_acked--;	/* a read, not a change */
		break;
	case ADMIN_NKINDS:
		break;
	}
	l->admin_acked++;
out:
	free(op->name);
	free(op);
	if (!l->gone)
		load_fill(l);
	load_check_done(l);
}

/* Build one admin command of kind k, or NULL when its key is busy. */
static json_t *
admin_build(struct load *l, enum admin_kind k, struct admin_op *op)
{
	static const double weights[] = { 0.25, 0.5, 0.75, 1.0 };
	struct ack_pool *p;
	int32_t osd = (int32_t)rng_below((uint32_t)l->nosd);

	op->kind = k;
	switch (k) {
	case ADMIN_IN_OUT:
		if (l->osd_busy_in[osd])
			return NULL;
		op->osd = osd;
		op->value = !l->osd_in[osd];
		l->osd_busy_in[osd] = 1;
		load_log(l, "sent osd.%d in=%d", osd, (int)op->value);
		return json_pack("{s:s, s:[i]}", "prefix", op->value ?
		    "osd in" : "osd out", "ids", osd);
	case ADMIN_REWEIGHT:
		if (l->osd_busy_w[osd])
			return NULL;
		op->osd = osd;
		op->weight = weights[rng_below(nitems(weights))];
		l->osd_busy_w[osd] = 1;
		load_log(l, "sent osd.%d reweight=%g", osd, op->weight);
		return json_pack("{s:s, s:i, s:f}", "prefix", "osd reweight",
		    "id", osd, "weight", op->weight);
	case ADMIN_POOL_CREATE:
		if (l->pools_created >= l->max_pools)
			return NULL;
		xasprintf(&op->name, "ack%" PRIu64 "x%d", l->run_id,
		    l->pools_created++);
		op->value = 2 + rng_below(7);
		return json_pack("{s:s, s:s, s:I, s:i}", "prefix",
		    "osd pool create", "pool", op->name, "pg_num",
		    (json_int_t)op->value, "size", 2);
	case ADMIN_PG_NUM:
		if (l->npools == 0)
			return NULL;
		op->pool = rng_below((uint32_t)l->npools);
		p = &l->pools[op->pool];
		if (p->busy_pg_num || p->pg_num >= POOL_PG_MAX)
			return NULL;
		op->value = p->pg_num + 1 + rng_below(4);
		if (op->value > POOL_PG_MAX)
			op->value = POOL_PG_MAX;
		p->busy_pg_num = 1;
		return json_pack("{s:s, s:s, s:s, s:I}", "prefix",
		    "osd pool set", "pool", p->name, "var", "pg_num", "val",
		    (json_int_t)op->value);
	case ADMIN_SIZE:
		if (l->npools == 0)
			return NULL;
		op->pool = rng_below((uint32_t)l->npools);
		p = &l->pools[op->pool];
		if (p->busy_size)
			return NULL;
		op->value = p->size == 2 ? 3 : 2;
		p->busy_size = 1;
		load_log(l, "sent pool %s size=%" PRId64, p->name, op->value);
		return json_pack("{s:s, s:s, s:s, s:I}", "prefix",
		    "osd pool set", "pool", p->name, "var", "size", "val",
		    (json_int_t)op->value);
	case ADMIN_STATUS:
		return json_pack("{s:s}", "prefix", "status");
	case ADMIN_NKINDS:
		break;
	}
	return NULL;
}

static void
admin_send(struct load *l)
{
	struct admin_op *op;
	json_t *cmd = NULL;
	int tries;

	op = xcalloc(1, sizeof *op);
	op->l = l;
	for (tries = 0; tries < 8 && cmd == NULL; tries++) {
		free(op->name);
		op->name = NULL;
		cmd = admin_build(l, (enum admin_kind)rng_below(ADMIN_NKINDS),
		    op);
	}
	if (cmd == NULL) {
		/* Every key tried is busy: a status read instead. */
		free(op->name);
		op->name = NULL;
		cmd = admin_build(l, ADMIN_STATUS, op);
	}
	l->admin_inflight++;
	if (mclient_request(l->admin, cmd, admin_done, op) != 0) {
		l->admin_inflight--;
		free(op->name);
		free(op);
		load_gone(l, -ECONNRESET, "admin command not sent");
	}
	json_decref(cmd);
}

/* Keep every window full. */
static void
load_fill(struct load *l)
{
	int i;

	if (l->stopping || l->gone || l->shutdown > 0)
		return;
	for (i = 0; i < l->nrep && !l->gone; i++)
		while (!l->gone && l->reps[i].npgs > 0 &&
		    l->reps[i].inflight < (unsigned)l->window)
			report_send(&l->reps[i]);
	while (!l->gone && l->admin_inflight < (unsigned)l->admin_window)
		admin_send(l);
}

static void
load_on_error(void *arg, int err, const char *msg)
{
	load_gone(arg, err, msg);
}

static void
load_stop_cb(mapmon_unused evutil_socket_t fd, mapmon_unused short ev,
    void *arg)
{
	struct load *l = arg;

	l->stopping = 1;
	load_check_done(l);
}

static void
load_drain_cb(mapmon_unused evutil_socket_t fd, mapmon_unused short ev,
    void *arg)
{
	struct load *l = arg;

	loadtool_warnx("replies still missing %d s after the end",
	    DRAIN_SECONDS);
	l->unexpected++;
	event_base_loopbreak(l->base);
}

/*
 * One blocking command of the setup.  Returns its rc; a connection failure
 * marks the monitor gone.  *data (may be NULL) gets the reply's data.
 */
static int
setup_call(struct load *l, json_t *cmd, json_t **data)
{
	char *status = NULL;
	int rc, gone;

	rc = mclient_call(l->addr, CALL_TIMEOUT_MS, cmd, data, &status);
	gone = is_gone(rc) || rc == -ESHUTDOWN;
	if (rc != 0 && gone && !l->gone) {
		l->gone = 1;
		xasprintf(&l->gone_msg, "%s", status != NULL ? status : "");
	}
	if (rc != 0 && !gone && rc != -EEXIST)
		loadtool_warnx("%s: rc %d: %s", json_string_value(
		    json_object_get(cmd, "prefix")), rc, status != NULL ?
		    status : "");
	free(status);
	json_decref(cmd);
	return rc;
}

/*
 * The limits, the OSDs, the base pool, and what exists already: 0, or the
 * exit status.
 */
static int
load_setup(struct load *l)
{
	static const char *const limits[][2] = {
		{ "mon.max_pool_pg_num", "1048576" },
		{ "mon.max_pg_per_osd", "1000000" },
		{ "mon.max_pgs", "100000000" },
	};
	json_t *dump = NULL, *pools, *osds, *v;
	const char *name, *wkey;
	json_int_t id, pg_num, size, in;
	double w;
	size_t i;
	int32_t osd;
	int rc;

	for (i = 0; i < nitems(limits); i++) {
		rc = setup_call(l, json_pack("{s:s, s:s, s:s}", "prefix",
		    "config set", "key", limits[i][0], "value", limits[i][1]),
		    NULL);
		if (rc != 0)
			return l->gone ? EXIT_GONE : EXIT_ERROR;
	}

	for (osd = 0; osd < l->nosd; osd++) {
		rc = setup_call(l, json_pack("{s:s, s:i}", "prefix",
		    "osd create", "id", osd), NULL);
		if (rc != 0 && rc != -EEXIST)
			return l->gone ? EXIT_GONE : EXIT_ERROR;
		if (rc == 0)
			load_log(l, "osd.%d exists", osd);
		rc = setup_call(l, json_pack("{s:s, s:i}", "prefix",
		    "osd boot", "id", osd), NULL);
		if (rc != 0)
			return l->gone ? EXIT_GONE : EXIT_ERROR;
	}
	rc = setup_call(l, json_pack("{s:s, s:s, s:i, s:i}", "prefix",
	    "osd pool create", "pool", BASE_POOL, "pg_num", (int)l->pg_num,
	    "size", 2), NULL);
	if (rc != 0 && rc != -EEXIST)
		return l->gone ? EXIT_GONE : EXIT_ERROR;
	if (rc == 0)
		load_log(l, "pool %s exists", BASE_POOL);

	rc = setup_call(l, json_pack("{s:s}", "prefix", "osd dump"), &dump);
	if (rc != 0)
		return l->gone ? EXIT_GONE : EXIT_ERROR;
	if (json_unpack(dump, "{s:I, s:o, s:o}", "epoch", &id, "pools",
	    &pools, "osds", &osds) != 0) {
		loadtool_warnx("osd dump: no epoch, pools or osds");
		json_decref(dump);
		return EXIT_ERROR;
	}
	l->epoch = (uint32_t)id;
	l->pool_id = 0;
	json_array_foreach(pools, i, v) {
		if (json_unpack(v, "{s:s, s:I, s:I, s:I}", "pool_name", &name,
		    "pool", &id, "pg_num", &pg_num, "size", &size) != 0)
			continue;
		if (strcmp(name, BASE_POOL) == 0) {
			l->pool_id = (uint32_t)id;
			l->pg_num = (uint32_t)pg_num;
		} else if (strncmp(name, "ack", 3) == 0) {
			/* A pool of an earlier run: grow and resize it too. */
			l->pools = xreallocarray(l->pools, l->npools + 1,
			    sizeof *l->pools);
			memset(&l->pools[l->npools], 0, sizeof *l->pools);
			l->pools[l->npools].name = xstrdup(name);
			l->pools[l->npools].pg_num = (uint32_t)pg_num;
			l->pools[l->npools].size = (uint32_t)size;
			l->npools++;
		}
	}
	json_array_foreach(osds, i, v) {
		/* "reweight"; "weight" of a monitor that has none. */
		wkey = "reweight";
		if (json_object_get(v, wkey) == NULL)
			wkey = "weight";
		if (json_unpack(v, "{s:I, s:I, s:F}", "osd", &id, "in", &in,
			wkey, &w) != 0 ||
		    id < 0 || id >= l->nosd)
			continue;
		l->osd_in[id] = in != 0;
		l->osd_weight[id] = w;
	}
	json_decref(dump);
	if (l->pool_id == 0) {
		loadtool_warnx("osd dump: no pool %s", BASE_POOL);
		return EXIT_ERROR;
	}
	return 0;
}

static int
load_main(int argc, char **argv)
{
	struct load l;
	struct timeval tv;
	const char *logpath = NULL;
	char name[32];
	uint64_t seed = 0;
	int ch, i, status;

	memset(&l, 0, sizeof l);
	l.seconds = 10;
	l.nrep = 4;
	l.pg_num = 256;
	l.batch = 32;
	l.window = 4;
	l.admin_window = 4;
	l.max_pools = 5;
	while ((ch = getopt(argc, argv, "a:b:g:l:m:p:r:s:t:w:")) != -1) {
		switch (ch) {
		case 'a': l.admin_window = atoi(optarg); break;
		case 'b': l.batch = atoi(optarg); break;
		case 'g': l.pg_num = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'l': logpath = optarg; break;
		case 'm': l.addr = optarg; break;
		case 'p': l.max_pools = atoi(optarg); break;
		case 'r': l.nrep = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 't': l.seconds = atoi(optarg); break;
		case 'w': l.window = atoi(optarg); break;
		default: loadtool_usage();
		}
	}
	if (optind != argc || l.addr == NULL || logpath == NULL ||
	    l.seconds < 0 || l.nrep < 1 || l.nrep > 1000 || l.batch < 1 ||
	    l.window < 1 || l.admin_window < 0 || l.max_pools < 0 ||
	    l.pg_num < 1 || l.pg_num > 1048576)
		loadtool_usage();
	if (seed != 0)
		rng_state = seed;
	l.run_id = now_us() / 1000;
	l.nosd = l.nrep > MIN_OSDS ? l.nrep : MIN_OSDS;
	if ((l.log = fopen(logpath, "a")) == NULL) {
		loadtool_warnx("%s: %s", logpath, strerror(errno));
		return EXIT_ERROR;
	}
	setvbuf(l.log, NULL, _IOLBF, 0);
	l.osd_in = xcalloc((size_t)l.nosd, sizeof *l.osd_in);
	l.osd_busy_in = xcalloc((size_t)l.nosd, sizeof *l.osd_busy_in);
	l.osd_busy_w = xcalloc((size_t)l.nosd, sizeof *l.osd_busy_w);
	l.osd_weight = xcalloc((size_t)l.nosd, sizeof *l.osd_weight);

	if ((status = load_setup(&l)) != 0)
		goto out;

	if ((l.base = event_base_new()) == NULL) {
		loadtool_warnx("event_base_new failed");
		status = EXIT_ERROR;
		goto out;
	}
	l.reps = xcalloc((size_t)l.nrep, sizeof *l.reps);
	for (i = 0; i < l.nrep; i++) {
		struct reporter *r = &l.reps[i];

		r->l = &l;
		r->osd = i;
		r->npgs = l.pg_num > (uint32_t)i ?
		    (l.pg_num - (uint32_t)i + (uint32_t)l.nrep - 1) /
		    (uint32_t)l.nrep : 0;
		r->c = mclient_new(l.base, l.addr, CALL_TIMEOUT_MS, NULL,
		    load_on_error, &l);
		snprintf(name, sizeof name, "osd.%d", i);
		mclient_set_name(r->c, name);
	}
	l.admin = mclient_new(l.base, l.addr, CALL_TIMEOUT_MS, NULL,
	    load_on_error, &l);
	mclient_set_name(l.admin, "client.admin");

	l.stop_ev = evtimer_new(l.base, load_stop_cb, &l);
	tv.tv_sec = l.seconds;
	tv.tv_usec = 0;
	evtimer_add(l.stop_ev, &tv);
	l.drain_ev = evtimer_new(l.base, load_drain_cb, &l);
	tv.tv_sec = l.seconds + DRAIN_SECONDS;
	evtimer_add(l.drain_ev, &tv);

	load_fill(&l);
	event_base_dispatch(l.base);

	/* Free the clients: waiting callbacks get -ECANCELED, ignored. */
	if (!l.gone)
		l.gone = -1;
	for (i = 0; i < l.nrep; i++)
		mclient_free(l.reps[i].c);
	mclient_free(l.admin);
	if (l.gone == -1)
		l.gone = 0;
	event_free(l.stop_ev);
	event_free(l.drain_ev);
	event_base_free(l.base);

	if (l.unexpected > 0)
		status = EXIT_UNEXPECTED;
	else if (l.gone || l.shutdown > 0)
		status = EXIT_GONE;
	else
		status = 0;
out:
	fprintf(stderr, "%s: %" PRIu64 " pg reports acknowledged (%" PRIu64
	    " pg updates), %" PRIu64 " admin changes, %" PRIu64 " status "
	    "reads; %d unexpected, %d refused as the monitor stopped%s%s\n",
	    progname, l.reports_acked, l.pg_updates, l.admin_acked, l.reads,
	    l.unexpected, l.shutdown, l.gone ? "; monitor gone: " : "",
	    l.gone ? l.gone_msg : "");
	fclose(l.log);
	for (i = 0; i < (int)l.npools; i++)
		free(l.pools[i].name);
	free(l.pools);
	free(l.reps);
	free(l.osd_in);
	free(l.osd_busy_in);
	free(l.osd_busy_w);
	free(l.osd_weight);
	free(l.gone_msg);
	return status;
}

/* ------------------------------------------------------------------ */
/* check */

/*
 * What the log asserts, per key:
 *  mono:  "pool NAME pg_num", "osdmap epoch", "pgmap version", "pg P.S
 *         reported_seq" -> the largest acknowledged lower bound;
 *  exist: "pool NAME", "osd.N" -> true;
 *  value: "osd.N in", "osd.N reweight", "pool NAME size" -> {"acked":
 *         V or null, "sent": [V, ...] sent after it}.
 */
struct check {
	json_t *mono, *exist, *value;
	uint64_t lines, changes, pg_updates, violations, bad_lines;
	FILE *log;
	const char *logpath;
	uint64_t lineno;
};

static void
check_bad_line(struct check *c, const char *line)
{
	c->bad_lines++;
	loadtool_warnx("%s:%" PRIu64 ": cannot parse: %s", c->logpath,
	    c->lineno, line);
}

static void
check_mono(struct check *c, const char *key, json_int_t v)
{
	json_t *cur = json_object_get(c->mono, key);

	if (cur == NULL || json_integer_value(cur) < v)
		json_object_set_new(c->mono, key, json_integer(v));
}

/* "KEY ATTR=VALUE" after an optional "sent": split at the last blank. */
static int
check_value_line(struct check *c, char *rest, int sent)
{
	char *eq, key[256];
	json_t *e;

	if ((eq = strrchr(rest, '=')) == NULL || eq == rest)
		return -1;
	*eq = '\0';
	snprintf(key, sizeof key, "%s", rest);
	*eq = '=';
	if ((e = json_object_get(c->value, key)) == NULL) {
		e = json_pack("{s:n, s:[]}", "acked", "sent");
		json_object_set_new(c->value, key, e);
	}
	if (sent)
		json_array_append_new(json_object_get(e, "sent"),
		    json_string(eq + 1));
	else {
		json_object_set_new(e, "acked", json_string(eq + 1));
		json_array_clear(json_object_get(e, "sent"));
		c->changes++;
	}
	return 0;
}

static int
check_parse(struct check *c, char *line)
{
	char key[256], name[200], *ge;
	unsigned pool, first, step, count, i;
	unsigned long long seq, v;
	int osd, n;

	if (*line == '\0' || *line == '#')
		return 0;
	c->lines++;
	if (strncmp(line, "pgs ", 4) == 0) {
		n = -1;
		if (sscanf(line,
		    "pgs %u.%x+%xx%u reported_seq>=%llu by osd.%d%n", &pool,
		    &first, &step, &count, &seq, &osd, &n) != 6 ||
		    n < 0 || line[n] != '\0' || step == 0 || count == 0)
			return -1;
		for (i = 0; i < count; i++) {
			snprintf(key, sizeof key, "pg %u.%x reported_seq", pool,
			    first + i * step);
			check_mono(c, key, (json_int_t)seq);
		}
		c->changes++;
		c->pg_updates += count;
		return 0;
	}
	if (strncmp(line, "sent ", 5) == 0)
		return check_value_line(c, line + 5, 1);
	if ((ge = strstr(line, ">=")) != NULL) {
		n = -1;
		if (sscanf(ge + 2, "%llu%n", &v, &n) != 1 || n < 0 ||
		    ge[2 + n] != '\0' ||
		    (size_t)(ge - line) >= sizeof key)
			return -1;
		snprintf(key, sizeof key, "%.*s", (int)(ge - line), line);
		check_mono(c, key, (json_int_t)v);
		/* Status reads are not changes. */
		if (strncmp(line, "osdmap ", 7) != 0 &&
		    strncmp(line, "pgmap ", 6) != 0)
			c->changes++;
		return 0;
	}
	/* %n is stored only when everything before it matched. */
	n = -1;
	if (sscanf(line, "pool %199s exists%n", name, &n) == 1 && n > 0 &&
	    line[n] == '\0') {
		snprintf(key, sizeof key, "pool %s", name);
		json_object_set_new(c->exist, key, json_true());
		c->changes++;
		return 0;
	}
	n = -1;
	if (sscanf(line, "osd.%d exists%n", &osd, &n) == 1 && n > 0 &&
	    line[n] == '\0') {
		snprintf(key, sizeof key, "osd.%d", osd);
		json_object_set_new(c->exist, key, json_true());
		c->changes++;
		return 0;
	}
	return check_value_line(c, line, 0);
}

static void
check_fail(struct check *c, const char *fmt, ...) printflike(2, 3);

static void
check_fail(struct check *c, const char *fmt, ...)
{
	va_list ap;

	c->violations++;
	printf("VIOLATED: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* What the monitor holds, indexed. */
struct observed {
	json_t *osd_dump, *status, *pgs;
	json_t *pool_by_name, *osd_by_id, *pg_by_id;
};

/*
 * The monitor's object for a key of the log ("pool NAME ...", "osd.N ...",
 * "pg P.S ...", "osdmap ...", "pgmap ...") or NULL, with the attribute the
 * key names (pg_num, in, reweight, epoch, ...) in a, "" when none.
 */
static json_t *
observed_get(struct observed *o, const char *key, char *a, size_t alen)
{
	char kind[16], id[200];
	json_t *obj;

	a[0] = '\0';
	if (sscanf(key, "%15s %199s", kind, id) < 1)
		return NULL;
	if (sscanf(key, "%*s %*s %63s", a) != 1)
		a[0] = '\0';
	if (strcmp(kind, "pool") == 0) {
		obj = json_object_get(o->pool_by_name, id);
	} else if (strncmp(kind, "osd.", 4) == 0) {
		/* "osd.N ATTR": the id is in kind, the attr in id. */
		obj = json_object_get(o->osd_by_id, kind + 4);
		snprintf(a, alen, "%.63s", id);
	} else if (strcmp(kind, "pg") == 0) {
		obj = json_object_get(o->pg_by_id, id);
	} else if (strcmp(kind, "osdmap") == 0 || strcmp(kind, "pgmap") == 0) {
		obj = json_object_get(o->status, kind);
		snprintf(a, alen, "%.63s", id);
	} else
		return NULL;
	return obj;
}

/* Values as the log writes them: in=0|1, reweight=%g, size=N. */
static int
value_matches(json_t *v, const char *want)
{
	double d;

	if (v == NULL)
		return 0;
	if (json_is_integer(v))
		return json_integer_value(v) == strtoll(want, NULL, 10);
	if (json_is_real(v)) {
		d = json_real_value(v);
		return fabs(d - strtod(want, NULL)) < 1e-4;
	}
	return 0;
}

static int
check_main(int argc, char **argv)
{
	struct check c;
	struct observed o;
	const char *addr = NULL, *key, *w;
	char *line = NULL, *status = NULL, attr[64];
	size_t cap = 0, i;
	ssize_t len;
	json_t *cmd, *v, *e, *obj, *field, *sent;
	json_int_t have;
	int ch, rc, ok;

	memset(&c, 0, sizeof c);
	memset(&o, 0, sizeof o);
	while ((ch = getopt(argc, argv, "l:m:")) != -1) {
		switch (ch) {
		case 'l': c.logpath = optarg; break;
		case 'm': addr = optarg; break;
		default: loadtool_usage();
		}
	}
	if (optind != argc || addr == NULL || c.logpath == NULL)
		loadtool_usage();
	if ((c.log = fopen(c.logpath, "r")) == NULL) {
		loadtool_warnx("%s: %s", c.logpath, strerror(errno));
		return EXIT_ERROR;
	}
	c.mono = json_object();
	c.exist = json_object();
	c.value = json_object();
	while ((len = getline(&line, &cap, c.log)) != -1) {
		c.lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (len > 0) {
			/* A torn last line: ackload died mid-write. */
			loadtool_warnx("%s:%" PRIu64 ": no newline, ignored",
			    c.logpath, c.lineno);
			break;
		}
		if (check_parse(&c, line) != 0)
			check_bad_line(&c, line);
	}
	free(line);
	fclose(c.log);

	/* What the monitor holds now. */
	cmd = json_pack("{s:s}", "prefix", "osd dump");
	rc = mclient_call(addr, CALL_TIMEOUT_MS * 3, cmd, &o.osd_dump, &status);
	json_decref(cmd);
	if (rc == 0) {
		free(status);
		status = NULL;
		cmd = json_pack("{s:s}", "prefix", "status");
		rc = mclient_call(addr, CALL_TIMEOUT_MS * 3, cmd, &o.status,
		    &status);
		json_decref(cmd);
	}
	if (rc == 0) {
		free(status);
		status = NULL;
		cmd = json_pack("{s:s, s:[s]}", "prefix", "pg dump",
		    "dumpcontents", "pgs");
		rc = mclient_call(addr, CALL_TIMEOUT_MS * 6, cmd, &o.pgs,
		    &status);
		json_decref(cmd);
	}
	if (rc != 0) {
		loadtool_warnx("%s: rc %d: %s", addr, rc, status != NULL ?
		    status : "");
		free(status);
		json_decref(o.osd_dump);
		json_decref(o.status);
		json_decref(o.pgs);
		json_decref(c.mono);
		json_decref(c.exist);
		json_decref(c.value);
		return is_gone(rc) || rc == -ESHUTDOWN ? EXIT_GONE :
		    EXIT_ERROR;
	}
	free(status);

	o.pool_by_name = json_object();
	o.osd_by_id = json_object();
	o.pg_by_id = json_object();
	json_array_foreach(json_object_get(o.osd_dump, "pools"), i, v)
		if ((w = json_string_value(json_object_get(v, "pool_name"))) !=
		    NULL)
			json_object_set(o.pool_by_name, w, v);
	json_array_foreach(json_object_get(o.osd_dump, "osds"), i, v) {
		char idbuf[16];

		snprintf(idbuf, sizeof idbuf, "%lld", (long long)
		    json_integer_value(json_object_get(v, "osd")));
		json_object_set(o.osd_by_id, idbuf, v);
	}
	json_array_foreach(json_object_get(o.pgs, "pg_stats"), i, v)
		if ((w = json_string_value(json_object_get(v, "pgid"))) != NULL)
			json_object_set(o.pg_by_id, w, v);

	json_object_foreach(c.exist, key, v)
		if (observed_get(&o, key, attr, sizeof attr) == NULL)
			check_fail(&c, "%s exists: not found", key);
	json_object_foreach(c.mono, key, v) {
		obj = observed_get(&o, key, attr, sizeof attr);
		field = obj != NULL ? json_object_get(obj, attr) : NULL;
		if (field == NULL || !json_is_integer(field)) {
			check_fail(&c, "%s>=%lld: not found", key,
			    (long long)json_integer_value(v));
			continue;
		}
		have = json_integer_value(field);
		if (have < json_integer_value(v))
			check_fail(&c, "%s>=%lld: is %lld", key,
			    (long long)json_integer_value(v), (long long)have);
	}
	json_object_foreach(c.value, key, e) {
		const char *acked;

		/* Only ever in flight: whichever value stands is right. */
		if ((acked = json_string_value(json_object_get(e, "acked"))) ==
		    NULL)
			continue;
		obj = observed_get(&o, key, attr, sizeof attr);
		/*
		 * osd dump's "reweight"; a monitor that has none calls it
		 * "weight" (now Ceph's in/out weight, 0 once out).
		 */
		field = obj == NULL ? NULL : json_object_get(obj, attr);
		if (field == NULL && obj != NULL &&
		    strcmp(attr, "reweight") == 0)
			field = json_object_get(obj, "weight");
		sent = json_object_get(e, "sent");
		ok = value_matches(field, acked);
		json_array_foreach(sent, i, v)
			if (value_matches(field, json_string_value(v)))
				ok = 1;
		if (!ok) {
			char *s = field != NULL ? json_dumps(field,
			    JSON_ENCODE_ANY) : NULL;

			check_fail(&c, "%s=%s (or one of %zu sent after it): "
			    "is %s", key, acked, json_array_size(sent),
			    s != NULL ? s : "missing");
			free(s);
		}
	}

	printf("checked %" PRIu64 " lines: %" PRIu64 " acknowledged changes "
	    "(%" PRIu64 " pg updates); %zu lower bounds, %zu pools and OSDs, "
	    "%zu values: %" PRIu64 " violated, %" PRIu64 " unparsable\n",
	    c.lines,
	    c.changes, c.pg_updates, json_object_size(c.mono),
	    json_object_size(c.exist), json_object_size(c.value),
	    c.violations, c.bad_lines);
	json_decref(o.pool_by_name);
	json_decref(o.osd_by_id);
	json_decref(o.pg_by_id);
	json_decref(o.osd_dump);
	json_decref(o.status);
	json_decref(o.pgs);
	json_decref(c.mono);
	json_decref(c.exist);
	json_decref(c.value);
	return c.violations > 0 || c.bad_lines > 0 ? EXIT_ERROR : 0;
}

int
main(int argc, char **argv)
{
	const char *cmd;

	signal(SIGPIPE, SIG_IGN);
	loadtool_init(progname, usage_text);
	cmd = loadtool_subcommand(&argc, &argv);
	if (strcmp(cmd, "load") == 0)
		return load_main(argc, argv);
	if (strcmp(cmd, "check") == 0)
		return check_main(argc, argv);
	loadtool_usage();
}
