/*
 * mon_clog.c: the cluster log: entries committed with the change that
 * caused them; the newest log_max_entries are kept in the store (their
 * records: mon_record.c) and in a ring in memory, from which `log last N`
 * answers.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/mon_priv.h"

static const char *const mon_log_severities[] = { "DBG", "INF", "WRN", "ERR" };

const char *
mon_log_severity_name(int severity)
{
	if (severity < 0 || severity >= (int)nitems(mon_log_severities))
		return "UNK";
	return mon_log_severities[severity];
}

/* Append a copy of e, dropping the oldest when the ring is full. */
void
mon_clog_append(struct mon *m, const struct mon_log_entry *e)
{
	size_t cap = (size_t)m->params.log_max_entries, i, n;
	struct mon_log_entry *ring, *slot;

	if (cap == 0)
		return;
	if (m->clog_cap != cap) {
		/* First use, or log_max_entries changed: re-lay the ring. */
		ring = xcalloc(cap, sizeof *ring);
		n = 0;
		for (i = 0; i < m->clog_n; i++) {
			slot = &m->clog[(m->clog_start + i) % m->clog_cap];
			if (m->clog_n - i > cap)
				free(slot->message);
			else
				ring[n++] = *slot;
		}
		free(m->clog);
		m->clog = ring;
		m->clog_cap = cap;
		m->clog_start = 0;
		m->clog_n = n;
	}
	if (m->clog_n == m->clog_cap) {
		slot = &m->clog[m->clog_start];
		free(slot->message);
		m->clog_start = (m->clog_start + 1) % m->clog_cap;
		m->clog_n--;
	}
	slot = &m->clog[(m->clog_start + m->clog_n) % m->clog_cap];
	*slot = *e;
	slot->message = xstrdup(e->message);
	m->clog_n++;
}

void
mon_clog_clear(struct mon *m)
{
	size_t i;

	for (i = 0; i < m->clog_n; i++)
		free(m->clog[(m->clog_start + i) % m->clog_cap].message);
	free(m->clog);
	m->clog = NULL;
	m->clog_cap = m->clog_start = m->clog_n = 0;
}

/* One entry as Ceph's LogEntry::dump(), mapmon's "severity" beside. */
static json_t *
mon_log_entry_json(const struct mon *m, const struct mon_log_entry *e)
{
	char stamp[STAMP_BUFSIZE], name[MONMAP_NAME_MAX + 8], prio[8];

	/* The one monitor, rank 0, writes every entry. */
	snprintf(name, sizeof name, "mon.%s", m->monmap.mons[0].name);
	snprintf(prio, sizeof prio, "[%s]", mon_log_severity_name(e->severity));
	return json_pack("{s:s, s:s, s:{s:[{s:s, s:s, s:i}]}, s:s, s:I, s:s, "
			 "s:s, s:s, s:s}",
	    "name", name, "rank", "mon.0", "addrs", "addrvec", "type", "v2",
	    "addr", m->monmap.mons[0].addr, "nonce", 0, "stamp",
	    stamp_format(e->stamp, stamp, sizeof stamp), "seq",
	    (json_int_t)e->seq, "channel", "cluster", "priority", prio,
	    "message", e->message, "severity",
	    mon_log_severity_name(e->severity));
}

/* The kept entries from..to-1 (0 the oldest) as an array. */
static json_t *
mon_log_range_json(struct mon *m, size_t from, size_t to)
{
	json_t *a = json_array();
	size_t i;

	for (i = from; i < to; i++)
		json_array_append_new(a,
		    mon_log_entry_json(m,
			&m->clog[(m->clog_start + i) % m->clog_cap]));
	return a;
}

json_t *
mon_log_tail_json(struct mon *m, size_t n, int min_severity, int channel)
{
	json_t *a = json_array();
	const struct mon_log_entry *e;
	size_t i, from, k = 0;

	if (!channel)
		return a;
	/* The first of the last n that match, then them in order. */
	for (from = m->clog_n; from > 0 && k < n; from--)
		if (m->clog[(m->clog_start + from - 1) % m->clog_cap]
			.severity >= min_severity)
			k++;
	for (i = from; i < m->clog_n; i++) {
		e = &m->clog[(m->clog_start + i) % m->clog_cap];
		if (e->severity >= min_severity)
			json_array_append_new(a, mon_log_entry_json(m, e));
	}
	return a;
}

json_t *
mon_log_last_json(struct mon *m, size_t n)
{
	if (n > m->clog_n)
		n = m->clog_n;
	return mon_log_range_json(m, m->clog_n - n, m->clog_n);
}

json_t *
mon_log_after_json(struct mon *m, uint64_t seq, size_t max)
{
	size_t lo = 0, hi = m->clog_n, mid;

	/* The first kept entry above seq: the ring is in seq order. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->clog[(m->clog_start + mid) % m->clog_cap].seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (max > m->clog_n - lo)
		max = m->clog_n - lo;
	return mon_log_range_json(m, lo, lo + max);
}

void
mon_log_text(struct mon *m, const char *text, mon_done_cb *done, void *arg)
{
	char *why;
	size_t len = strlen(text);

	/* An entry is a store record and a line: a bound the size of a page. */
	if (len > MON_LOG_TEXT_MAX) {
		xasprintf(&why,
		    "log text of %zu bytes is too long (at most %d)", len,
		    MON_LOG_TEXT_MAX);
		done(arg, -EINVAL, why, NULL);
		free(why);
		return;
	}
	/* An operator's line, as Ceph's `log' takes it: at INFO. */
	mon_stage_log(m, MON_LOG_INFO, "%s", text);
	mon_stage_done(m, done, arg, "", NULL);
}
