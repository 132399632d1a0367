/*
 * mon_live.c: who is alive, by the rules mapmond(8) states in "LIVENESS":
 * failure reports, the beacon timeout, and the automatic out of OSDs down
 * for long.
 *
 * Failure reports are kept per target, in the target's live record, and
 * the targets that have any are listed in mon->failing, so that a check
 * looks at those only.  A target is checked when a report about it comes,
 * when the failure timer fires (armed for the moment the next report
 * passes the grace, so the grace is honoured to the millisecond, not to
 * the tick), and on every tick (which catches nodown being unset and
 * reports ageing out).  The beacon timeout and the automatic out look at
 * every OSD, but only once something can be due: each pass notes when the
 * first thing could be (report_check_mono, out_check), and any change of
 * an OSD, of the flags or of the parameters brings that forward to now.
 * At 10,000 OSDs beaconing every few seconds that is one pass in some 900
 * seconds, not one a tick.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/mon_priv.h"

/* Reporters named in a log line or a detail line; the rest are counted. */
#define MON_LIVE_NAMES 8

/* What the reports about one target say now. */
struct mon_live_tally {
	uint32_t reports; /* live: repeated within the grace */
	uint32_t counted; /* of them, past the grace */
	/* Of those, distinct buckets of osd_reporter_subtree_level. */
	uint32_t subtrees;
	int64_t shortest;	       /* the shortest failure counted, us */
	int32_t names[MON_LIVE_NAMES]; /* the lowest ids counted, sorted */
	uint32_t nnames;
	int64_t next; /* the next to pass the grace */
};

static int64_t
mon_live_grace(const struct mon *m)
{
	return m->params.osd_heartbeat_grace_ms * 1000;
}

/* The live record of id, or NULL when it has none yet. */
static struct mon_osd_live *
mon_live_find(const struct mon *m, int32_t id)
{
	if (id < 0 || (uint32_t)id >= m->nlive)
		return NULL;
	return &m->live[id];
}

/*
 * When r starts to count: a grace after the failure began, and never
 * before a grace has passed since the monitor started (it cannot vouch
 * for what it did not see).
 */
static int64_t
mon_live_counts_from(const struct mon *m, const struct mon_failure_report *r)
{
	int64_t since = r->failed_since_mono;

	if (since < m->start_mono)
		since = m->start_mono;
	return since + mon_live_grace(m);
}

/* Whether r still stands: repeated within the grace, by an up reporter. */
static int
mon_live_standing(const struct mon *m, const struct mon_failure_report *r,
    int64_t now)
{
	const struct osdmap_osd *o;

	if (now - r->arrived_mono > mon_live_grace(m))
		return 0;
	o = osdmap_osd(&m->work, r->reporter);
	return o != NULL && o->up;
}

/*
 * The bucket of type level above reporter in the working hierarchy, which
 * it counts for; a reporter outside it, or at level osd, counts alone
 * (its own id).
 */
static int32_t
mon_live_subtree(const struct mon *m, int32_t reporter)
{
	const struct crush *c = m->work.crush;
	struct crush_bucket_info bi;
	int32_t at;

	if (c == NULL || m->params.osd_reporter_subtree_level <= 0)
		return reporter;
	for (at = crush_osd_parent(c, reporter); at != 0; at = bi.parent) {
		if (crush_bucket_get(c, at, &bi) == -1)
			break;
		if (bi.type == m->params.osd_reporter_subtree_level)
			return at;
	}
	return reporter;
}

static void
mon_live_tally(const struct mon *m, const struct mon_osd_live *l, int64_t now,
    struct mon_live_tally *t)
{
	const struct mon_failure_report *r;
	int64_t from, failed;
	int32_t *seen, sub;
	uint32_t i, j;

	memset(t, 0, sizeof *t);
	seen = xreallocarray(NULL, l->nreports ? l->nreports : 1, sizeof *seen);
	t->shortest = INT64_MAX;
	t->next = INT64_MAX;
	for (i = 0; i < l->nreports; i++) {
		r = &l->reports[i];
		if (!mon_live_standing(m, r, now))
			continue;
		t->reports++;
		from = mon_live_counts_from(m, r);
		if (now <= from) {
			/* Counts just after from, unless it ages out first. */
			if (from < r->arrived_mono + mon_live_grace(m) &&
			    from + 1 < t->next)
				t->next = from + 1;
			continue;
		}
		t->counted++;
		sub = mon_live_subtree(m, r->reporter);
		for (j = 0; j < t->subtrees && seen[j] != sub; j++)
			;
		if (j == t->subtrees)
			seen[t->subtrees++] = sub;
		failed = now - r->failed_since_mono;
		if (failed < t->shortest)
			t->shortest = failed;
		/* Keep the MON_LIVE_NAMES lowest ids, in order. */
		for (j = t->nnames; j > 0 && t->names[j - 1] > r->reporter; j--)
			if (j < MON_LIVE_NAMES)
				t->names[j] = t->names[j - 1];
		if (j < MON_LIVE_NAMES) {
			t->names[j] = r->reporter;
			if (t->nnames < MON_LIVE_NAMES)
				t->nnames++;
		}
	}
	free(seen);
}

/* "osd.2, osd.9 for 21.3 s" (or "osd.1, ... osd.8 and 3 more for ..."). */
static void
mon_live_tally_text(const struct mon_live_tally *t, char *buf, size_t len)
{
	size_t off = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < t->nnames && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%sosd.%d",
		    i > 0 ? ", " : "", t->names[i]);
	if (t->counted > t->nnames && off < len)
		off += (size_t)snprintf(buf + off, len - off, " and %u more",
		    t->counted - t->nnames);
	if (off < len)
		snprintf(buf + off, len - off, " for %.1f s",
		    (double)t->shortest / 1e6);
}

uint32_t
mon_live_describe(const struct mon *m, int32_t id, int64_t now_mono, char *buf,
    size_t len)
{
	const struct mon_osd_live *l = mon_live_find(m, id);
	struct mon_live_tally t;

	if (len > 0)
		buf[0] = '\0';
	if (l == NULL || l->nreports == 0)
		return 0;
	mon_live_tally(m, l, now_mono, &t);
	if (t.counted > 0 && len > 0)
		mon_live_tally_text(&t, buf, len);
	return t.subtrees;
}

static void
mon_live_list(struct mon *m, struct mon_osd_live *l, int32_t id)
{
	if (l->failing)
		return;
	if (m->nfailing == m->capfailing) {
		m->capfailing = m->capfailing ? m->capfailing * 2 : 16;
		m->failing = xreallocarray(m->failing, m->capfailing,
		    sizeof *m->failing);
	}
	m->failing[m->nfailing++] = id;
	l->failing = 1;
}

static void
mon_live_unlist(struct mon *m, struct mon_osd_live *l, int32_t id)
{
	size_t i;

	if (!l->failing)
		return;
	for (i = 0; i < m->nfailing; i++) {
		if (m->failing[i] == id) {
			m->failing[i] = m->failing[--m->nfailing];
			break;
		}
	}
	l->failing = 0;
}

/* Drop every report about id. */
static void
mon_live_drop_about(struct mon *m, int32_t id)
{
	struct mon_osd_live *l = mon_live_find(m, id);

	if (l == NULL)
		return;
	l->nreports = 0;
	mon_live_unlist(m, l, id);
}

/* Drop every report id made. */
static void
mon_live_drop_by(struct mon *m, int32_t id)
{
	struct mon_osd_live *l;
	size_t i;
	uint32_t j;

	/* Backwards: an unlisted target takes the place of the last one. */
	for (i = m->nfailing; i-- > 0;) {
		l = &m->live[m->failing[i]];
		for (j = 0; j < l->nreports; j++) {
			if (l->reports[j].reporter == id) {
				l->reports[j] = l->reports[--l->nreports];
				break;
			}
		}
		if (l->nreports == 0)
			mon_live_unlist(m, l, m->failing[i]);
	}
}

/* Keep the reports of l that still stand. */
static void
mon_live_prune(struct mon *m, struct mon_osd_live *l, int32_t id, int64_t now)
{
	uint32_t i;

	for (i = 0; i < l->nreports;) {
		if (mon_live_standing(m, &l->reports[i], now))
			i++;
		else
			l->reports[i] = l->reports[--l->nreports];
	}
	if (l->nreports == 0)
		mon_live_unlist(m, l, id);
}

/* Have the failure timer fire at due (mono), unless it fires before. */
static void
mon_live_arm(struct mon *m, int64_t due, int64_t now)
{
	struct timeval tv;
	int64_t wait;

	if (due == INT64_MAX || m->failure_timer == NULL || m->stopped)
		return;
	if (m->failure_due_mono != 0 && m->failure_due_mono <= due &&
	    evtimer_pending(m->failure_timer, NULL))
		return;
	wait = due > now ? due - now : 0;
	tv.tv_sec = wait / 1000000;
	tv.tv_usec = wait % 1000000;
	evtimer_add(m->failure_timer, &tv);
	m->failure_due_mono = due;
}

/*
 * Check target id: drop the reports that no longer stand, and mark it
 * down when enough say it failed for longer than the grace (unless
 * nodown); else arm the timer for the next report to pass the grace.
 */
static void
mon_live_check_one(struct mon *m, int32_t id, int64_t now,
    struct mon_live_count *out)
{
	struct mon_osd_live *l = mon_live_find(m, id);
	const struct osdmap_osd *o = osdmap_osd(&m->work, id);
	struct mon_live_tally t;
	char names[160], why[192];

	memset(out, 0, sizeof *out);
	if (l == NULL)
		return;
	if (o == NULL || !o->up) {
		mon_live_drop_about(m, id);
		return;
	}
	mon_live_prune(m, l, id, now);
	if (l->nreports == 0)
		return;
	mon_live_tally(m, l, now, &t);
	out->reports = t.reports;
	/* Reporters count once per osd_reporter_subtree_level bucket. */
	out->counted = t.subtrees;
	if ((int64_t)t.subtrees < m->params.osd_min_down_reporters) {
		mon_live_arm(m, t.next, now);
		return;
	}
	if (m->work.flags & OSDMAP_FLAG_NODOWN) {
		out->held = 1;
		return;
	}
	mon_live_tally_text(&t, names, sizeof names);
	snprintf(why, sizeof why, "reported failed by %s", names);
	dout(LOG_OSD, 1,
	    "osd.%d: %u reporters past the grace of %lld ms, "
	    "%lld needed",
	    id, t.counted, (long long)m->params.osd_heartbeat_grace_ms,
	    (long long)m->params.osd_min_down_reporters);
	mon_osd_mark_down(m, o, why);
	mon_stage_log(m, MON_LOG_INFO, "osd.%d marked down: %s", id, why);
	out->marked_down = 1;
}

/* Check every target that has reports. */
static void
mon_live_check_all(struct mon *m, int64_t now)
{
	struct mon_live_count c;
	int32_t *ids;
	size_t i, n = m->nfailing;

	if (n == 0)
		return;
	/* A copy: a mark-down drops reports and unlists targets. */
	ids = xreallocarray(NULL, n, sizeof *ids);
	memcpy(ids, m->failing, n * sizeof *ids);
	for (i = 0; i < n; i++)
		mon_live_check_one(m, ids[i], now, &c);
	free(ids);
}

static void
mon_live_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;

	(void)fd;
	(void)what;
	m->failure_due_mono = 0;
	mon_live_check_all(m, stamp_mono());
	mon_stage_propose(m);
}

void
mon_live_report(struct mon *m, int32_t target, int32_t reporter,
    int64_t failed_since_mono, int64_t now_mono, struct mon_live_count *out)
{
	struct mon_osd_live *l = mon_osd_live(m, target);
	struct mon_failure_report *r = NULL;
	uint32_t i;

	for (i = 0; i < l->nreports; i++)
		if (l->reports[i].reporter == reporter)
			r = &l->reports[i];
	if (r == NULL) {
		if (l->nreports == l->capreports) {
			l->capreports = l->capreports ? l->capreports * 2 : 4;
			l->reports = xreallocarray(l->reports, l->capreports,
			    sizeof *l->reports);
		}
		r = &l->reports[l->nreports++];
		r->reporter = reporter;
	}
	/* The reporter's latest word on how long replaces its last one. */
	r->failed_since_mono = failed_since_mono;
	r->arrived_mono = now_mono;
	mon_live_list(m, l, target);
	mon_live_check_one(m, target, now_mono, out);
	if (out->marked_down)
		mon_stage_propose(m);
}

int
mon_live_cancel(struct mon *m, int32_t target, int32_t reporter,
    struct mon_live_count *out)
{
	struct mon_osd_live *l = mon_live_find(m, target);
	uint32_t i;

	memset(out, 0, sizeof *out);
	if (l == NULL)
		return 0;
	for (i = 0; i < l->nreports; i++)
		if (l->reports[i].reporter == reporter)
			break;
	if (i == l->nreports)
		return 0;
	l->reports[i] = l->reports[--l->nreports];
	if (l->nreports == 0) {
		mon_live_unlist(m, l, target);
		return 1;
	}
	/* Checked as on any report (the others may be enough by now). */
	mon_live_check_one(m, target, stamp_mono(), out);
	if (out->marked_down)
		mon_stage_propose(m);
	return 1;
}

void
mon_live_staged(struct mon *m, const struct osdmap_osd *was,
    const struct osdmap_osd *now)
{
	int32_t id = was != NULL ? was->id : now->id;
	int was_up = was != NULL && was->up, now_up = now != NULL && now->up;
	struct mon_osd_live *l;

	if (was_up && !now_up) {
		/* A reporter marked down loses its reports. */
		mon_live_drop_about(m, id);
		mon_live_drop_by(m, id);
	}
	if (now_up && (!was_up || strcmp(was->addr, now->addr) != 0)) {
		/* A boot: a fresh start, and it counts as a report. */
		mon_live_drop_about(m, id);
		l = mon_osd_live(m, id);
		l->last_report_mono = stamp_mono();
		l->last_report = stamp_now();
		free(l->down_why);
		l->down_why = NULL;
		m->report_check_mono = 0;
	}
	if (was == NULL || now == NULL || was_up != now_up ||
	    was->in != now->in) {
		if ((l = mon_live_find(m, id)) != NULL) {
			l->out_held = 0;
			if (now == NULL) {
				free(l->down_why);
				l->down_why = NULL;
			}
		}
		m->out_check = 0;
	}
}

void
mon_live_poke(struct mon *m)
{
	int64_t now = stamp_mono();

	m->report_check_mono = 0;
	m->out_check = 0;
	/* The checks run from the loop, not inside the change's staging. */
	if (m->nfailing > 0)
		mon_live_arm(m, now, now);
}

/* Up OSDs silent for longer than osd_report_timeout are marked down. */
static void
mon_live_timeouts(struct mon *m, int64_t now)
{
	const struct osdmap_osd *o;
	const struct mon_osd_live *l;
	struct osdmap_osd cur;
	int64_t timeout = m->params.osd_report_timeout_ms * 1000, last;
	int64_t next = INT64_MAX;
	uint32_t k;
	char why[96];

	if (now < m->report_check_mono)
		return;
	for (k = 0; k < m->work.max_osd; k++) {
		o = &m->work.osds[k];
		if (!o->exists || !o->up)
			continue;
		l = mon_live_find(m, (int32_t)k);
		last = l != NULL ? l->last_report_mono : 0;
		if (last < m->start_mono)
			last = m->start_mono;
		if (now - last <= timeout) {
			if (last + timeout + 1 < next)
				next = last + timeout + 1;
			continue;
		}
		/* Held by nodown: a flag change brings the next pass. */
		if (m->work.flags & OSDMAP_FLAG_NODOWN)
			continue;
		snprintf(why, sizeof why, "no beacon for %lld s%s",
		    (long long)((now - last) / 1000000),
		    l != NULL && l->last_report_mono >= m->start_mono ?
			"" :
			" since the monitor started");
		cur = *o;
		mon_osd_mark_down(m, &cur, why);
		mon_stage_log(m, MON_LOG_INFO, "osd.%u marked down: %s", k,
		    why);
	}
	m->report_check_mono = next;
}

/* Log once per OSD and reason why its automatic out is held back. */
static void
mon_live_out_held(struct mon *m, int32_t id, int reason, unsigned in,
    unsigned num)
{
	struct mon_osd_live *l = mon_osd_live(m, id);

	if (l->out_held == reason)
		return;
	l->out_held = (uint8_t)reason;
	if (reason == MON_OUT_HELD_NOOUT)
		mon_stage_log(m, MON_LOG_INFO,
		    "osd.%d not marked out: the "
		    "noout flag is set",
		    id);
	else
		mon_stage_log(m, MON_LOG_INFO,
		    "osd.%d not marked out: %u of "
		    "%u osds would be in, under osd_min_in_ratio %g",
		    id, in - 1, num, m->params.osd_min_in_ratio);
}

/*
 * OSDs down and in for osd_down_out_interval are marked out, unless noout
 * is set or the out would leave fewer than osd_min_in_ratio of the
 * existing OSDs in.
 */
static void
mon_live_out(struct mon *m, int64_t now)
{
	const struct osdmap_osd *o;
	struct osdmap_osd n;
	int64_t interval = m->params.osd_down_out_interval_ms * 1000;
	int64_t next = INT64_MAX;
	unsigned num, in;
	uint32_t k;

	if (interval <= 0 || now < m->out_check)
		return;
	osdmap_counts(&m->work, &num, NULL, &in, NULL);
	for (k = 0; k < m->work.max_osd; k++) {
		o = &m->work.osds[k];
		if (!o->exists || o->up || !o->in || o->down_stamp == 0)
			continue;
		if (now - o->down_stamp < interval) {
			if (o->down_stamp + interval < next)
				next = o->down_stamp + interval;
			continue;
		}
		if (m->work.flags & OSDMAP_FLAG_NOOUT) {
			mon_live_out_held(m, (int32_t)k, MON_OUT_HELD_NOOUT, in,
			    num);
			continue;
		}
		if ((double)(in - 1) <
		    m->params.osd_min_in_ratio * (double)num) {
			mon_live_out_held(m, (int32_t)k, MON_OUT_HELD_RATIO, in,
			    num);
			continue;
		}
		n = *o;
		n.in = 0;
		mon_stage_osd(m, &n);
		in--;
		mon_stage_log(m, MON_LOG_INFO,
		    "osd.%u marked out after being "
		    "down for %lld s",
		    k, (long long)(now - o->down_stamp) / 1000000);
	}
	/* After the loop: each out staged above asked for a pass now. */
	m->out_check = next;
}

void
mon_live_tick(struct mon *m, int64_t now_mono, int64_t now)
{
	mon_live_check_all(m, now_mono);
	mon_live_timeouts(m, now_mono);
	mon_live_out(m, now);
	mon_stage_propose(m);
}

int
mon_live_init(struct mon *m, char **cause)
{
	m->failure_timer = evtimer_new(m->base, mon_live_timer_cb, m);
	if (m->failure_timer == NULL) {
		xasprintf(cause, "cannot set up the failure report timer");
		return -1;
	}
	return 0;
}

void
mon_live_stop(struct mon *m)
{
	if (m->failure_timer != NULL)
		event_del(m->failure_timer);
	m->failure_due_mono = 0;
}

void
mon_live_clear(struct mon *m)
{
	uint32_t i;

	mon_event_free(&m->failure_timer);
	for (i = 0; i < m->nlive; i++) {
		free(m->live[i].reports);
		free(m->live[i].down_why);
	}
	free(m->live);
	m->live = NULL;
	m->nlive = 0;
	free(m->failing);
	m->failing = NULL;
	m->nfailing = m->capfailing = 0;
}
