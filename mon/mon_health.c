/*
 * mon_health.c: the health checks of SPEC §3.6.
 *
 * The checks are computed from the committed state and the derived figures
 * (never a scan of every PG, except for `health detail`'s PG lines), so they
 * are cheap enough to evaluate after every commit.  mon_health_update()
 * compares them with the checks last logged and stages cluster log entries
 * for the checks that appear, change severity, or clear, as Ceph's
 * "Health check failed / cleared" lines.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/mon_priv.h"

#define MON_HEALTH_DETAIL_MAX 50

static const char *const mon_health_names[] = {
	"HEALTH_OK", "HEALTH_WARN", "HEALTH_ERR"
};

static struct mon_health_check *
mon_check_add(struct mon_health_check **v, size_t *n, const char *code,
    int severity, uint64_t count, const char *fmt, ...) printflike(6, 7);

static struct mon_health_check *
mon_check_add(struct mon_health_check **v, size_t *n, const char *code,
    int severity, uint64_t count, const char *fmt, ...)
{
	struct mon_health_check *c;
	va_list ap;

	*v = xreallocarray(*v, *n + 1, sizeof **v);
	c = &(*v)[(*n)++];
	memset(c, 0, sizeof *c);
	snprintf(c->code, sizeof c->code, "%s", code);
	c->severity = severity;
	c->count = count;
	va_start(ap, fmt);
	xvasprintf(&c->summary, fmt, ap);
	va_end(ap);
	return c;
}

static void
mon_check_detail(struct mon_health_check *c, const char *fmt, ...)
    printflike(2, 3);

static void
mon_check_detail(struct mon_health_check *c, const char *fmt, ...)
{
	va_list ap;

	c->detail = xreallocarray(c->detail, c->ndetail + 1,
	    sizeof *c->detail);
	va_start(ap, fmt);
	xvasprintf(&c->detail[c->ndetail++], fmt, ap);
	va_end(ap);
}

void
mon_health_free(struct mon_health_check *v, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		free(v[i].summary);
		for (j = 0; j < v[i].ndetail; j++)
			free(v[i].detail[j]);
		free(v[i].detail);
	}
	free(v);
}

/* PGs not active: inactive (incl. creating), stale, down, incomplete... */
#define MON_PG_UNAVAILABLE (PG_STATE_STALE | PG_STATE_DOWN | \
    PG_STATE_INCOMPLETE | PG_STATE_UNKNOWN)

static int
mon_pg_unavailable(uint32_t state)
{
	return !(state & PG_STATE_ACTIVE) || (state & MON_PG_UNAVAILABLE);
}

/* Up to MON_HEALTH_DETAIL_MAX PG lines for a check, then a count. */
static void
mon_check_pg_detail(struct mon *m, struct mon_health_check *c,
    int (*match)(uint32_t), const char *what)
{
	const struct pgmap_pool *pp;
	char id[32], state[256];
	size_t i, shown = 0, more = 0;
	uint32_t s;

	for (i = 0; i < m->pgmap.npools; i++) {
		pp = &m->pgmap.pools[i];
		for (s = 0; s < pp->pg_num; s++) {
			if (!match(pp->pgs[s].state))
				continue;
			if (shown == MON_HEALTH_DETAIL_MAX) {
				more++;
				continue;
			}
			pg_id_format(pp->pgs[s].pgid, id, sizeof id);
			pg_state_format(pp->pgs[s].state, state, sizeof state);
			mon_check_detail(c, "pg %s is %s, current state %s",
			    id, what, state);
			shown++;
		}
	}
	if (more > 0)
		mon_check_detail(c, "... and %zu more pgs", more);
}

static int
mon_pg_degraded(uint32_t state)
{
	return (state & (PG_STATE_DEGRADED | PG_STATE_UNDERSIZED)) != 0;
}

void
mon_health_eval_detail(struct mon *m, int detail,
    struct mon_health_check **out, size_t *nout)
{
	struct mon_health_check *v = NULL, *c;
	const struct osdmap *om = &m->osdmap;
	const struct pgmap *pm = &m->pgmap;
	uint64_t inactive = 0, stale = 0, down = 0, incomplete = 0, unknown = 0;
	uint64_t unavailable = 0, degraded = 0, undersized = 0;
	unsigned up_in, ndown = 0;
	uint32_t k;
	size_t n = 0, i;

	/* The details list single PGs: counts and list from one commit. */
	if (detail)
		mon_settle(m);

	for (k = 0; k < om->max_osd; k++)
		if (om->osds[k].exists && !om->osds[k].up && om->osds[k].in)
			ndown++;
	if (ndown > 0) {
		c = mon_check_add(&v, &n, "OSD_DOWN", 1, ndown, "%u osds down",
		    ndown);
		for (k = 0; k < om->max_osd; k++)
			if (om->osds[k].exists && !om->osds[k].up &&
			    om->osds[k].in)
				mon_check_detail(c, "osd.%u is down", k);
	}

	osdmap_counts(om, NULL, NULL, NULL, &up_in);
	c = NULL;
	for (i = 0; i < om->npools; i++) {
		if (up_in >= om->pools[i].size)
			continue;
		if (c == NULL)
			c = mon_check_add(&v, &n, "TOO_FEW_OSDS", 1, 0,
			    "OSD count %u < pool size %u", up_in,
			    om->pools[i].size);
		c->count++;
		mon_check_detail(c, "pool '%s' has size %u but only %u osds "
		    "are up and in", om->pools[i].name, om->pools[i].size,
		    up_in);
	}

	for (i = 0; i < pm->nstates; i++) {
		uint32_t st = pm->states[i].state;
		uint64_t cnt = pm->states[i].count;

		if (mon_pg_unavailable(st)) {
			unavailable += cnt;
			if (!(st & PG_STATE_ACTIVE))
				inactive += cnt;
			if (st & PG_STATE_STALE)
				stale += cnt;
			if (st & PG_STATE_DOWN)
				down += cnt;
			if (st & PG_STATE_INCOMPLETE)
				incomplete += cnt;
			if (st & PG_STATE_UNKNOWN)
				unknown += cnt;
		}
		if (st & PG_STATE_DEGRADED)
			degraded += cnt;
		if (st & PG_STATE_UNDERSIZED)
			undersized += cnt;
	}
	if (unavailable > 0) {
		char text[256];
		size_t off;

		off = (size_t)snprintf(text, sizeof text, "Reduced data "
		    "availability:");
#define MON_PART(x, word) if ((x) > 0 && off < sizeof text)		\
	off += (size_t)snprintf(text + off, sizeof text - off, "%s %llu pgs " \
	    word, text[off - 1] == ':' ? "" : ",", (unsigned long long)(x))
		MON_PART(inactive, "inactive");
		MON_PART(stale, "stale");
		MON_PART(down, "down");
		MON_PART(incomplete, "incomplete");
		MON_PART(unknown, "unknown");
#undef MON_PART
		c = mon_check_add(&v, &n, "PG_AVAILABILITY", 1, unavailable,
		    "%s", text);
		if (detail)
			mon_check_pg_detail(m, c, mon_pg_unavailable,
			    "not active");
	}
	if (degraded > 0 || undersized > 0 ||
	    pm->sums.num_objects_degraded > 0) {
		uint64_t copies = pm->sums.num_object_copies;

		c = mon_check_add(&v, &n, "PG_DEGRADED", 1, degraded +
		    undersized, "Degraded data redundancy: %llu/%llu objects "
		    "degraded (%.3f%%), %llu pgs degraded, %llu pgs "
		    "undersized",
		    (unsigned long long)pm->sums.num_objects_degraded,
		    (unsigned long long)copies, copies ? 100.0 *
		    (double)pm->sums.num_objects_degraded / (double)copies : 0.0,
		    (unsigned long long)degraded,
		    (unsigned long long)undersized);
		if (detail)
			mon_check_pg_detail(m, c, mon_pg_degraded, "degraded");
	}

	if (m->disk_known) {
		if ((int64_t)m->disk_free_pct < m->params.data_avail_crit)
			c = mon_check_add(&v, &n, "MON_DISK_CRIT", 2, 1,
			    "mon %s is very low on available space",
			    m->monmap.mons[0].name);
		else if ((int64_t)m->disk_free_pct < m->params.data_avail_warn)
			c = mon_check_add(&v, &n, "MON_DISK_LOW", 1, 1,
			    "mon %s is low on available space",
			    m->monmap.mons[0].name);
		else
			c = NULL;
		if (c != NULL)
			mon_check_detail(c, "mon.%s has %llu%% avail",
			    m->monmap.mons[0].name,
			    (unsigned long long)m->disk_free_pct);
		if ((int64_t)m->disk_bytes > m->params.data_size_warn) {
			c = mon_check_add(&v, &n, "MON_DISK_BIG", 1, 1,
			    "mon %s is using a lot of disk space",
			    m->monmap.mons[0].name);
			mon_check_detail(c, "mon.%s is %llu MiB >= "
			    "data_size_warn %llu MiB", m->monmap.mons[0].name,
			    (unsigned long long)(m->disk_bytes >> 20),
			    (unsigned long long)(m->params.data_size_warn >>
			    20));
		}
	}
	if (m->store_error) {
		c = mon_check_add(&v, &n, "STORE_ERROR", 2, 1, "the last store "
		    "commit failed");
		mon_check_detail(c, "%s", m->store_error_text ?
		    m->store_error_text : "unknown error");
	}
	*out = v;
	*nout = n;
}

void
mon_health_eval(struct mon *m, struct mon_health_check **out, size_t *nout)
{
	mon_health_eval_detail(m, 0, out, nout);
}

static int
mon_health_worst(const struct mon_health_check *v, size_t n)
{
	int worst = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].severity > worst)
			worst = v[i].severity;
	return worst;
}

static const struct mon_health_check *
mon_check_find(const struct mon_health_check *v, size_t n, const char *code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].code, code) == 0)
			return &v[i];
	return NULL;
}

void
mon_health_update(struct mon *m)
{
	struct mon_health_check *now;
	const struct mon_health_check *was;
	size_t n, i;
	int sev;

	mon_health_eval(m, &now, &n);
	for (i = 0; i < n; i++) {
		was = mon_check_find(m->checks, m->nchecks, now[i].code);
		if (was != NULL && was->severity == now[i].severity)
			continue;
		sev = now[i].severity == 2 ? MON_LOG_ERROR : MON_LOG_WARN;
		mon_stage_log(m, sev, "Health check %s: %s (%s)",
		    was == NULL ? "failed" : "update", now[i].summary,
		    now[i].code);
	}
	for (i = 0; i < m->nchecks; i++) {
		if (mon_check_find(now, n, m->checks[i].code) != NULL)
			continue;
		mon_stage_log(m, MON_LOG_INFO, "Health check cleared: %s (was: "
		    "%s)", m->checks[i].code, m->checks[i].summary);
	}
	if (n == 0 && m->nchecks > 0)
		mon_stage_log(m, MON_LOG_INFO, "Cluster is now healthy");
	mon_health_free(m->checks, m->nchecks);
	m->checks = now;
	m->nchecks = n;
	if (m->pending != NULL)
		mon_stage_propose(m);
}

/* Free space of the store's filesystem and the store's size. */
void
mon_disk_check(struct mon *m)
{
	struct statvfs sv;
	struct store_stats st;
	char *cause = NULL;

	m->disk_checked_mono = stamp_mono();
	if (statvfs(store_path(m->store), &sv) == -1) {
		log_warn("statvfs %s", store_path(m->store));
		return;
	}
	m->disk_free_pct = sv.f_blocks ? (uint64_t)sv.f_bavail * 100 /
	    sv.f_blocks : 100;
	if (store_stat(m->store, &st, &cause) != 0) {
		log_warnx("store stat: %s", cause ? cause : "failed");
		free(cause);
		return;
	}
	m->disk_bytes = st.disk_bytes;
	store_stats_free(&st);
	m->disk_known = 1;
}

int
mon_health_status(struct mon *m)
{
	struct mon_health_check *v;
	size_t n;
	int worst;

	mon_health_eval(m, &v, &n);
	worst = mon_health_worst(v, n);
	mon_health_free(v, n);
	return worst;
}

json_t *
mon_health_json(struct mon *m, int detail)
{
	struct mon_health_check *v;
	json_t *checks, *d;
	size_t n, i, j;
	int worst;

	mon_health_eval_detail(m, detail, &v, &n);
	worst = mon_health_worst(v, n);
	checks = json_object();
	for (i = 0; i < n; i++) {
		d = json_array();
		for (j = 0; j < v[i].ndetail; j++)
			json_array_append_new(d, json_pack("{s:s}", "message",
			    v[i].detail[j]));
		json_object_set_new(checks, v[i].code, json_pack(
		    "{s:s, s:{s:s, s:I}, s:o}",
		    "severity", mon_health_names[v[i].severity],
		    "summary", "message", v[i].summary, "count",
		    (json_int_t)v[i].count, "detail", d));
	}
	mon_health_free(v, n);
	return json_pack("{s:s, s:o}", "status", mon_health_names[worst],
	    "checks", checks);
}
