/*
 * mon_osd.c: OSD operations (create, boot, down, in, out, reweight, rm,
 * flags), beacons, failure reports and mark-me-down, PG reports, and the
 * timer that marks PGs stale (the liveness rules are mon_live.c's).
 *
 * Each operation checks its arguments against the working map (committed
 * plus proposed), stages the change, and answers after the commit; a change
 * that is already true is answered at once (Ceph answers "osd.3 is already
 * down" the same way).
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/mon_priv.h"

/* The longest failure a report may state: some 31 years. */
#define MON_FAILED_FOR_MAX 1e9

/* Answer at once (refusals and no-ops). */
static void
mon_now(mon_done_cb *done, void *arg, int rc, json_t *data, const char *fmt,
    ...) printflike(5, 6);

static void
mon_now(mon_done_cb *done, void *arg, int rc, json_t *data, const char *fmt,
    ...)
{
	va_list ap;
	char *status;

	va_start(ap, fmt);
	xvasprintf(&status, fmt, ap);
	va_end(ap);
	done(arg, rc, status, data);
	free(status);
}

/* The OSD in the working map, or an ENOENT answer. */
static const struct osdmap_osd *
mon_osd_get(struct mon *m, int32_t id, mon_done_cb *done, void *arg)
{
	const struct osdmap_osd *o = osdmap_osd(&m->work, id);

	if (o == NULL)
		mon_now(done, arg, -ENOENT, NULL, "osd.%d does not exist", id);
	return o;
}

void
mon_osd_create(struct mon *m, int32_t id, mon_done_cb *done, void *arg)
{
	struct osdmap_osd o;
	char status[64];

	if (id < -1 || id >= OSDMAP_MAX_OSD) {
		mon_now(done, arg, -EINVAL, NULL, "osd id %d out of range "
		    "(0 to %d)", id, OSDMAP_MAX_OSD - 1);
		return;
	}
	if (id >= 0 && osdmap_osd(&m->work, id) != NULL) {
		mon_now(done, arg, -EEXIST, NULL, "osd.%d already exists", id);
		return;
	}
	if (id == -1)
		id = osdmap_free_osd_id(&m->work);
	if (id >= OSDMAP_MAX_OSD) {
		mon_now(done, arg, -ENOSPC, NULL, "no free osd id left");
		return;
	}
	/*
	 * The map holds every id below the highest (max_osd), so an id is
	 * memory in every copy of the map: [mon] max_osd bounds it, as
	 * Ceph's mon_max_osd bounds `osd setmaxosd'.
	 */
	if (id >= m->params.max_osd) {
		mon_now(done, arg, -ERANGE, NULL, "cannot create osd.%d: "
		    "max_osd would be %d, which is > mon max_osd (%lld)", id,
		    id + 1, (long long)m->params.max_osd);
		return;
	}
	/* New OSDs are down and out until they boot, as in Ceph. */
	memset(&o, 0, sizeof o);
	o.id = id;
	o.exists = 1;
	o.weight = OSDMAP_WEIGHT_ONE;
	o.reweight = OSDMAP_WEIGHT_ONE;
	mon_stage_osd(m, &o);
	mon_stage_log(m, MON_LOG_INFO, "osd.%d created", id);
	snprintf(status, sizeof status, "created osd.%d", id);
	mon_stage_done(m, done, arg, status, json_pack("{s:i}", "osdid", id));
}

void
mon_osd_boot(struct mon *m, int32_t id, const char *addr, mon_done_cb *done,
    void *arg)
{
	mon_osd_boot_at(m, id, addr, NULL, 0, done, arg);
}

void
mon_osd_boot_at(struct mon *m, int32_t id, const char *addr,
    const char *const *loc, size_t nloc, mon_done_cb *done, void *arg)
{
	const struct osdmap_osd *cur;
	struct osdmap_osd o;
	char status[64], *note = NULL, *why = NULL;
	int rc;

	if ((cur = mon_osd_get(m, id, done, arg)) == NULL)
		return;
	/* No address: the one it has (a restart at the same place). */
	if (addr == NULL)
		addr = cur->addr;
	if (strlen(addr) >= OSDMAP_ADDR_MAX) {
		mon_now(done, arg, -EINVAL, NULL, "address of osd.%d too long "
		    "(at most %d bytes)", id, OSDMAP_ADDR_MAX - 1);
		return;
	}
	if (cur->up && strcmp(cur->addr, addr) == 0 &&
	    (nloc == 0 || crush_osd_exists(m->work.crush, id))) {
		char st[64];

		snprintf(st, sizeof st, "osd.%d is already up", id);
		mon_stage_noop(m, done, arg, st, NULL);
		return;
	}
	if ((m->work.flags & OSDMAP_FLAG_NOUP) && !cur->up) {
		mon_now(done, arg, -EBUSY, NULL, "osd.%d stays down: the noup "
		    "flag is set", id);
		return;
	}
	/* Its place first: a bad location refuses the boot whole. */
	if ((rc = mon_crush_boot(m, id, loc, nloc, &note, &why)) != 0) {
		mon_now(done, arg, rc, NULL, "osd.%d boot: %s", id, why);
		free(why);
		return;
	}
	if (note != NULL) {
		mon_stage_log(m, MON_LOG_INFO, "%s", note);
		free(note);
	}
	/* Staging the hierarchy may have restaged the OSD's weight. */
	cur = osdmap_osd(&m->work, id);
	o = *cur;
	o.up = 1;
	o.up_from = mon_stage_next_epoch(m);
	o.down_stamp = 0;
	if (addr != cur->addr)
		snprintf(o.addr, sizeof o.addr, "%s", addr);
	/* A new OSD comes in on its first boot, unless noin. */
	if (cur->up_from == 0 && !(m->work.flags & OSDMAP_FLAG_NOIN))
		o.in = 1;
	mon_stage_osd(m, &o);
	mon_stage_log(m, MON_LOG_INFO, "osd.%d%s%s boot", id, *addr ? " " : "",
	    addr);
	snprintf(status, sizeof status, "osd.%d booted", id);
	mon_stage_done(m, done, arg, status, NULL);
}

struct mon_osd_live *
mon_osd_live(struct mon *m, int32_t id)
{
	uint32_t n;

	if ((uint32_t)id >= m->nlive) {
		n = m->nlive ? m->nlive : 64;
		while (n <= (uint32_t)id)
			n *= 2;
		m->live = xreallocarray(m->live, n, sizeof *m->live);
		memset(m->live + m->nlive, 0, (n - m->nlive) * sizeof *m->live);
		m->nlive = n;
	}
	return &m->live[id];
}

/* The OSD is alive now (a beacon or a PG report). */
static struct mon_osd_live *
mon_osd_seen(struct mon *m, int32_t id)
{
	struct mon_osd_live *l = mon_osd_live(m, id);

	l->last_report_mono = stamp_mono();
	l->last_report = stamp_now();
	return l;
}

void
mon_osd_beacon(struct mon *m, int32_t id, const struct statfs_osd *statfs,
    mon_done_cb *done, void *arg)
{
	const struct osdmap_osd *o;

	if ((o = mon_osd_get(m, id, done, arg)) == NULL)
		return;
	if (!o->up) {
		mon_now(done, arg, -EAGAIN, NULL,
		    "osd.%d is down; boot it "
		    "before it sends beacons",
		    id);
		return;
	}
	mon_osd_seen(m, id);
	if (statfs != NULL)
		mon_capacity_beacon(m, id, statfs);
	mon_now(done, arg, 0, NULL, "beacon from osd.%d", id);
}

void
mon_osd_mark_down(struct mon *m, const struct osdmap_osd *cur, const char *why)
{
	struct osdmap_osd o = *cur;
	struct mon_osd_live *l;

	/* Before anything is staged: mon_stale_on_down() reads single PGs. */
	mon_settle(m);
	o.up = 0;
	o.down_at = mon_stage_next_epoch(m);
	o.down_stamp = stamp_now();
	mon_stage_osd(m, &o);
	/* After the staging, which clears what an OSD going down loses. */
	l = mon_osd_live(m, o.id);
	free(l->down_why);
	l->down_why = why != NULL ? xstrdup(why) : NULL;
	mon_stale_on_down(m, o.id);
}

/* A failure report that cannot count: rc 0, as Ceph drops it. */
static void mon_osd_failure_ignored(mon_done_cb *done, void *arg,
    int32_t target, const char *fmt, ...) printflike(4, 5);

static void
mon_osd_failure_ignored(mon_done_cb *done, void *arg, int32_t target,
    const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	xvasprintf(&why, fmt, ap);
	va_end(ap);
	mon_now(done, arg, 0, json_pack("{s:b}", "ignored", 1),
	    "report of osd.%d ignored: %s", target, why);
	free(why);
}

void
mon_osd_failure(struct mon *m, int32_t target, int32_t reporter,
    double failed_for, int cancel, mon_done_cb *done, void *arg)
{
	const struct osdmap_osd *t, *r;
	struct mon_live_count c;
	int64_t now = stamp_mono();
	json_t *data;
	int had;

	if (target == reporter) {
		mon_now(done, arg, -EINVAL, NULL,
		    "osd.%d reported itself: a "
		    "failure report names another osd",
		    reporter);
		return;
	}
	/* Written so that NaN fails too. */
	if (!(failed_for >= 0 && failed_for <= MON_FAILED_FOR_MAX)) {
		mon_now(done, arg, -EINVAL, NULL,
		    "failed_for %g out of range: "
		    "give the seconds osd.%d has failed to reach osd.%d, 0 to "
		    "%.0f",
		    failed_for, reporter, target, MON_FAILED_FOR_MAX);
		return;
	}
	if ((r = osdmap_osd(&m->work, reporter)) == NULL) {
		mon_osd_failure_ignored(done, arg, target,
		    "reporter osd.%d "
		    "does not exist",
		    reporter);
		return;
	}
	if (cancel) {
		had = osdmap_osd(&m->work, target) != NULL &&
		    mon_live_cancel(m, target, reporter, &c);
		if (!had) {
			mon_now(done, arg, 0, json_pack("{s:b}", "ignored", 1),
			    "osd.%d had no report of osd.%d to cancel",
			    reporter, target);
			return;
		}
		mon_now(done, arg, 0,
		    json_pack("{s:I, s:I, s:I, s:b}", "reporters",
			(json_int_t)c.reports, "counted", (json_int_t)c.counted,
			"needed", (json_int_t)m->params.osd_min_down_reporters,
			"marked_down", c.marked_down),
		    "osd.%d cancelled its report of osd.%d", reporter, target);
		return;
	}
	if (!r->up) {
		mon_osd_failure_ignored(done, arg, target,
		    "reporter osd.%d is "
		    "down",
		    reporter);
		return;
	}
	if ((t = osdmap_osd(&m->work, target)) == NULL) {
		mon_osd_failure_ignored(done, arg, target,
		    "osd.%d does not "
		    "exist",
		    target);
		return;
	}
	if (!t->up) {
		mon_osd_failure_ignored(done, arg, target,
		    "osd.%d is already "
		    "down",
		    target);
		return;
	}
	mon_live_report(m, target, reporter, now - (int64_t)(failed_for * 1e6),
	    now, &c);
	data = json_pack("{s:I, s:I, s:I, s:b}", "reporters",
	    (json_int_t)c.reports, "counted", (json_int_t)c.counted, "needed",
	    (json_int_t)m->params.osd_min_down_reporters, "marked_down",
	    c.marked_down);
	if (c.marked_down)
		mon_now(done, arg, 0, data,
		    "osd.%d reported failed by osd.%d: "
		    "marked down",
		    target, reporter);
	else if (c.held)
		mon_now(done, arg, 0, data,
		    "osd.%d reported failed by osd.%d: "
		    "it stays up, the nodown flag is set",
		    target, reporter);
	else
		mon_now(done, arg, 0, data,
		    "osd.%d reported failed by osd.%d: "
		    "%u of %lld reporters needed past the grace",
		    target, reporter, c.counted,
		    (long long)m->params.osd_min_down_reporters);
}

void
mon_osd_mark_me_down(struct mon *m, int32_t id, mon_done_cb *done, void *arg)
{
	const struct osdmap_osd *cur;
	char status[64];

	if ((cur = mon_osd_get(m, id, done, arg)) == NULL)
		return;
	if (!cur->up) {
		mon_now(done, arg, 0, json_pack("{s:b}", "down", 1),
		    "osd.%d is already down", id);
		return;
	}
	/* Ceph's can_mark_down(): the OSD is told, and stays up. */
	if (m->work.flags & OSDMAP_FLAG_NODOWN) {
		mon_now(done, arg, 0, json_pack("{s:b}", "down", 0),
		    "osd.%d stays up: the nodown flag is set", id);
		return;
	}
	mon_osd_mark_down(m, cur, "marked itself down");
	mon_stage_log(m, MON_LOG_INFO, "osd.%d marked itself down", id);
	snprintf(status, sizeof status, "osd.%d marked itself down", id);
	mon_stage_done(m, done, arg, status, json_pack("{s:b}", "down", 1));
}

void
mon_osd_reweight(struct mon *m, int32_t id, double w, mon_done_cb *done,
    void *arg)
{
	const struct osdmap_osd *cur;
	struct osdmap_osd o;
	char status[96];

	if (!(w >= 0.0 && w <= 1.0)) {
		mon_now(done, arg, -EINVAL, NULL, "reweight %g out of range: "
		    "give a value from 0 to 1", w);
		return;
	}
	if ((cur = mon_osd_get(m, id, done, arg)) == NULL)
		return;
	o = *cur;
	o.reweight = osdmap_weight_from_double(w);
	/* Ceph's words, with the 16.16 weight in hex. */
	snprintf(status, sizeof status, "reweighted osd.%d to %g (%x)", id, w,
	    o.reweight);
	if (o.reweight == cur->reweight) {
		mon_stage_noop(m, done, arg, status, NULL);
		return;
	}
	mon_stage_osd(m, &o);
	mon_stage_log(m, MON_LOG_INFO, "%s", status);
	mon_stage_done(m, done, arg, status, NULL);
}

/*
 * `osd down', `osd out', `osd in' and `osd rm' of a list, as Ceph's
 * OSDMonitor takes one (prepare_command_impl()): an id at a time, a
 * sentence each in the status, an id that does not exist noted and
 * passed over, rc 0 whatever changed.
 */
enum mon_osd_op { MON_OSD_DOWN, MON_OSD_OUT, MON_OSD_IN, MON_OSD_RM };

/* The sentences of the status, cut (with "...") past a few kilobytes. */
struct mon_osd_text {
	char buf[4096];
	size_t len;
};

static void mon_osd_say(struct mon_osd_text *t, const char *fmt, ...)
    printflike(2, 3);

static void
mon_osd_say(struct mon_osd_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len >= sizeof t->buf - 4)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
	va_end(ap);
	if (n < 0 || t->len + (size_t)n >= sizeof t->buf - 4) {
		t->len = sizeof t->buf - 4;
		memcpy(t->buf + t->len, "...", 4);
		return;
	}
	t->len += (size_t)n;
}

/* Is OSD o (of the working map) already as op would make it? */
static int
mon_osd_op_done(enum mon_osd_op op, const struct osdmap_osd *o)
{
	switch (op) {
	case MON_OSD_DOWN:
		return !o->up;
	case MON_OSD_OUT:
		return !o->in;
	case MON_OSD_IN:
		return o->in;
	default:
		return 0;
	}
}

/* Stage op on OSD id (it exists, and op changes it). */
static void
mon_osd_op_stage(struct mon *m, enum mon_osd_op op, int32_t id)
{
	const struct osdmap_osd *cur = osdmap_osd(&m->work, id);
	struct osdmap_osd o = *cur;

	switch (op) {
	case MON_OSD_DOWN:
		mon_osd_mark_down(m, cur, "marked down by command");
		mon_stage_log(m, MON_LOG_INFO, "osd.%d marked down", id);
		break;
	case MON_OSD_OUT:
	case MON_OSD_IN:
		o.in = op == MON_OSD_IN;
		mon_stage_osd(m, &o);
		mon_stage_log(m, MON_LOG_INFO, "osd.%d marked %s", id,
		    o.in ? "in" : "out");
		break;
	case MON_OSD_RM:
		mon_stage_remove_osd(m, id);
		mon_stage_log(m, MON_LOG_INFO, "osd.%d removed", id);
		break;
	}
}

static void
mon_osd_list_op(struct mon *m, enum mon_osd_op op, const int32_t *ids, size_t n,
    mon_done_cb *done, void *arg)
{
	static const char *const words[] = { "down", "out", "in", "removed" };
	struct mon_osd_text *t;
	const struct osdmap_osd *o;
	int32_t *list, id;
	size_t i, nlist, changed = 0;
	int verbose = 1;
	uint32_t k;

	if (n == 0) {
		mon_now(done, arg, -EINVAL, NULL, "no osd id given");
		return;
	}
	for (i = 0; i < n; i++) {
		if ((ids[i] < 0 && !(i == 0 && ids[i] == MON_OSD_ALL)) ||
		    ids[i] >= OSDMAP_MAX_OSD) {
			mon_now(done, arg, -EINVAL, NULL, "invalid osd id %d",
			    ids[i]);
			return;
		}
	}
	/* Ceph's any, all and *: every OSD (in: every OSD out), quietly. */
	if (ids[0] == MON_OSD_ALL) {
		list = xcalloc(m->work.max_osd ? m->work.max_osd : 1,
		    sizeof *list);
		for (k = nlist = 0; k < m->work.max_osd; k++)
			if (m->work.osds[k].exists &&
			    (op != MON_OSD_IN || !m->work.osds[k].in))
				list[nlist++] = (int32_t)k;
		verbose = 0;
	} else {
		list = xreallocarray(NULL, n, sizeof *list);
		memcpy(list, ids, n * sizeof *list);
		nlist = n;
	}
	/* A removal is refused whole while an OSD of it is up. */
	for (i = 0; op == MON_OSD_RM && i < nlist; i++) {
		if ((o = osdmap_osd(&m->work, list[i])) != NULL && o->up) {
			mon_now(done, arg, -EBUSY, NULL,
			    "osd.%d is still up; "
			    "must be down before removal. ",
			    list[i]);
			free(list);
			return;
		}
	}
	t = xcalloc(1, sizeof *t);
	for (i = 0; i < nlist; i++) {
		id = list[i];
		if ((o = osdmap_osd(&m->work, id)) == NULL) {
			mon_osd_say(t, "osd.%d does not exist. ", id);
			continue;
		}
		if (mon_osd_op_done(op, o)) {
			if (verbose)
				mon_osd_say(t, "osd.%d is already %s. ", id,
				    words[op]);
			continue;
		}
		mon_osd_op_stage(m, op, id);
		if (op == MON_OSD_RM)
			mon_osd_say(t, changed ? ", osd.%d" : "removed osd.%d",
			    id);
		else
			mon_osd_say(t, "marked %s osd.%d. ", words[op], id);
		changed++;
	}
	free(list);
	if (changed == 0)
		mon_stage_noop(m, done, arg, t->buf, NULL);
	else
		mon_stage_done(m, done, arg, t->buf, NULL);
	free(t);
}

void
mon_osd_down(struct mon *m, const int32_t *ids, size_t n, mon_done_cb *done,
    void *arg)
{
	mon_osd_list_op(m, MON_OSD_DOWN, ids, n, done, arg);
}

void
mon_osd_in(struct mon *m, const int32_t *ids, size_t n, mon_done_cb *done,
    void *arg)
{
	mon_osd_list_op(m, MON_OSD_IN, ids, n, done, arg);
}

void
mon_osd_out(struct mon *m, const int32_t *ids, size_t n, mon_done_cb *done,
    void *arg)
{
	mon_osd_list_op(m, MON_OSD_OUT, ids, n, done, arg);
}

void
mon_osd_rm(struct mon *m, const int32_t *ids, size_t n, mon_done_cb *done,
    void *arg)
{
	mon_osd_list_op(m, MON_OSD_RM, ids, n, done, arg);
}

void
mon_osd_set_flag(struct mon *m, const char *flag, int on, mon_done_cb *done,
    void *arg)
{
	uint32_t bit = osdmap_flag_parse(flag), flags;
	char status[64], name[32];

	if (bit == 0) {
		mon_now(done, arg, -EINVAL, NULL,
		    "unknown flag '%.32s': "
		    "expected noout, noup, nodown, noin or pause",
		    flag);
		return;
	}
	/* Ceph's words: "pauserd,pausewr is set", also when it was. */
	snprintf(status, sizeof status, "%s is %s",
	    osdmap_flags_format(bit, name, sizeof name), on ? "set" : "unset");
	flags = on ? m->work.flags | bit : m->work.flags & ~bit;
	if (flags == m->work.flags) {
		mon_stage_noop(m, done, arg, status, NULL);
		return;
	}
	mon_stage_flags(m, flags);
	mon_stage_log(m, MON_LOG_INFO, "%s", status);
	mon_stage_done(m, done, arg, status, NULL);
}

/* Stage a stale copy of the PG cur (its current view). */
static void
mon_stage_stale(struct mon *m, const struct pg_stat *cur, int64_t now)
{
	struct pg_stat st = *cur;

	st.state |= PG_STATE_STALE;
	st.last_change = now;
	mon_stage_pg(m, &st);
}

/*
 * Mark stale every PG whose acting primary (in its current view) is osd:
 * the committed PGs that name it, and those staged in flight or pending.
 */
void
mon_stale_on_down(struct mon *m, int32_t osd)
{
	struct mon_proposal *props[2] = { m->inflight, m->pending };
	const struct pgmap_pool *pp;
	const struct pg_stat *cur;
	struct pg_id id;
	size_t i, k;
	uint32_t s;
	int64_t now = stamp_now();

	for (i = 0; i < m->pgmap.npools; i++) {
		pp = &m->pgmap.pools[i];
		id.pool = pp->id;
		for (s = 0; s < pp->pg_num; s++) {
			if (pp->pgs[s].acting_primary != osd)
				continue;
			id.seed = s;
			cur = mon_stage_pg_view(m, id);
			if (cur->acting_primary == osd && !(cur->state &
			    (PG_STATE_STALE | PG_STATE_CREATING)))
				mon_stage_stale(m, cur, now);
		}
	}
	for (k = 0; k < 2; k++) {
		if (props[k] == NULL)
			continue;
		for (i = 0; i < props[k]->npgs; i++) {
			if (props[k]->pg_dead[i] ||
			    props[k]->pgs[i].acting_primary != osd)
				continue;
			cur = mon_stage_pg_view(m, props[k]->pgs[i].pgid);
			if (cur == &props[k]->pgs[i] && !(cur->state &
			    (PG_STATE_STALE | PG_STATE_CREATING)))
				mon_stage_stale(m, cur, now);
		}
	}
}

/*
 * PGs whose primary has not reported within pg_stale_timeout turn stale.
 * After a start every PG gets a whole timeout first (mapmond(8)).
 */
void
mon_mark_stale(struct mon *m, int64_t now_mono)
{
	const struct pgmap_pool *pp;
	const struct pg_stat *cur;
	struct pg_id id;
	int64_t timeout_us = m->params.pg_stale_timeout_ms * 1000, now, limit;
	size_t i;
	uint32_t s;

	if (now_mono - m->start_mono < timeout_us)
		return;
	now = stamp_now();
	limit = now - timeout_us;
	for (i = 0; i < m->pgmap.npools; i++) {
		pp = &m->pgmap.pools[i];
		id.pool = pp->id;
		for (s = 0; s < pp->pg_num; s++) {
			/* The committed stat rules out almost every PG. */
			if ((pp->pgs[s].state & (PG_STATE_STALE |
			    PG_STATE_CREATING)) ||
			    pp->pgs[s].last_fresh >= limit)
				continue;
			id.seed = s;
			cur = mon_stage_pg_view(m, id);
			if ((cur->state & (PG_STATE_STALE |
			    PG_STATE_CREATING)) || cur->last_fresh >= limit)
				continue;
			mon_stage_stale(m, cur, now);
			dout(LOG_PG, 10, "pg %u.%x stale: no report for %lld s",
			    id.pool, id.seed, (long long)(now -
			    cur->last_fresh) / 1000000);
		}
	}
}

/*
 * The OSD ids of a report's up and acting sets: each is an index of the
 * pgmap's per-OSD counts, which grow to hold it, so an id beyond the id
 * space would make the monitor allocate what the reporter chose.  -1 is
 * no OSD.  0, or -EINVAL once the refusal is answered: nothing is staged.
 */
static int
mon_pg_report_check(const struct pg_stat *pgs, size_t n, mon_done_cb *done,
    void *arg)
{
	const struct pg_stat *st;
	char pgid[PG_ID_BUFSIZE];
	int32_t bad;
	size_t i;
	unsigned k;

	for (i = 0; i < n; i++) {
		st = &pgs[i];
		bad = -1;
		for (k = 0; k < st->up_len; k++)
			if (st->up[k] < -1 || st->up[k] >= OSDMAP_MAX_OSD)
				bad = st->up[k];
		for (k = 0; k < st->acting_len; k++)
			if (st->acting[k] < -1 ||
			    st->acting[k] >= OSDMAP_MAX_OSD)
				bad = st->acting[k];
		if (st->up_primary < -1 || st->up_primary >= OSDMAP_MAX_OSD)
			bad = st->up_primary;
		if (st->acting_primary < -1 ||
		    st->acting_primary >= OSDMAP_MAX_OSD)
			bad = st->acting_primary;
		if (bad == -1)
			continue;
		mon_now(done, arg, -EINVAL, NULL, "pg %s: osd id %d out of "
		    "range (-1 to %d)", pg_id_format(st->pgid, pgid,
		    sizeof pgid), bad, OSDMAP_MAX_OSD - 1);
		return -EINVAL;
	}
	return 0;
}

/*
 * The stamps a reporter leaves at 0 (mapmon-protocol(7)): now when the
 * state holds what the stamp marks (active, peered, clean, not stale, not
 * degraded, not undersized), else what the monitor held.
 */
static void
mon_pg_report_stamps(struct pg_stat *st, const struct pg_stat *cur, int64_t now)
{
	const struct {
		size_t off;
		int holds;
	} stamps[] = {
		{ offsetof(struct pg_stat, last_active),
		    (st->state & PG_STATE_ACTIVE) != 0 },
		{ offsetof(struct pg_stat, last_peered),
		    (st->state & (PG_STATE_ACTIVE | PG_STATE_PEERED)) != 0 },
		{ offsetof(struct pg_stat, last_clean),
		    (st->state & PG_STATE_CLEAN) != 0 },
		{ offsetof(struct pg_stat, last_unstale),
		    !(st->state & PG_STATE_STALE) },
		{ offsetof(struct pg_stat, last_undegraded),
		    !(st->state & PG_STATE_DEGRADED) },
		{ offsetof(struct pg_stat, last_fullsized),
		    !(st->state & PG_STATE_UNDERSIZED) },
	};
	int64_t v;
	size_t i;

	for (i = 0; i < nitems(stamps); i++) {
		memcpy(&v, (char *)st + stamps[i].off, sizeof v);
		if (v != 0)
			continue;
		if (stamps[i].holds)
			v = now;
		else
			memcpy(&v, (const char *)cur + stamps[i].off, sizeof v);
		memcpy((char *)st + stamps[i].off, &v, sizeof v);
	}
}

void
mon_pg_report(struct mon *m, int32_t osd, const struct pg_stat *pgs, size_t n,
    mon_done_cb *done, void *arg)
{
	const struct osdmap_osd *o;
	const struct pg_stat *cur;
	struct pg_stat st;
	size_t i, accepted = 0, unknown = 0, old = 0;
	int64_t now;
	char status[96];

	if ((o = mon_osd_get(m, osd, done, arg)) == NULL)
		return;
	if (!o->up) {
		mon_now(done, arg, -EAGAIN, NULL, "osd.%d is down; boot it "
		    "before it reports", osd);
		return;
	}
	if (mon_pg_report_check(pgs, n, done, arg) != 0)
		return;
	mon_osd_seen(m, osd);
	now = stamp_now();
	for (i = 0; i < n; i++) {
		if ((cur = mon_stage_pg_view(m, pgs[i].pgid)) == NULL ||
		    osdmap_pool(&m->work, pgs[i].pgid.pool) == NULL) {
			unknown++;
			continue;
		}
		/* Reports older than what is held are dropped, not errors. */
		if (pgs[i].reported_epoch < cur->reported_epoch ||
		    (pgs[i].reported_epoch == cur->reported_epoch &&
		    pgs[i].reported_seq < cur->reported_seq)) {
			old++;
			continue;
		}
		st = pgs[i];
		st.last_fresh = now;
		if (st.state != cur->state)
			st.last_change = now;
		if (cur->state & PG_STATE_STALE)
			st.last_unstale = now;
		mon_pg_report_stamps(&st, cur, now);
		if (st.created == 0)
			st.created = cur->created;
		mon_stage_pg(m, &st);
		accepted++;
	}
	snprintf(status, sizeof status, "accepted %zu pg stats from osd.%d",
	    accepted, osd);
	if (accepted == 0) {
		mon_now(done, arg, 0, json_pack("{s:I, s:I, s:I}", "accepted",
		    (json_int_t)0, "unknown", (json_int_t)unknown, "old",
		    (json_int_t)old), "%s", status);
		return;
	}
	mon_stage_done(m, done, arg, status, json_pack("{s:I, s:I, s:I}",
	    "accepted", (json_int_t)accepted, "unknown", (json_int_t)unknown,
	    "old", (json_int_t)old));
}
