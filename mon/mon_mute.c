/*
 * mon_mute.c: the health mutes, as Ceph's HealthMonitor keeps them: the
 * commands that set and clear them, the tick that ends them, and their
 * record.  A mute changes no check; it keeps one out of the status
 * (mon_health.c reads the committed set).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/keys.h"
#include "mon/mon_priv.h"

#define MON_MUTE_TTL_MAX (100LL * 365 * 86400) /* seconds */

void
mon_mute_free(struct mon_mute *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].summary);
	free(v);
}

const struct mon_mute *
mon_mute_find(const struct mon_mute *v, size_t n, const char *code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].code, code) == 0)
			return &v[i];
	return NULL;
}

void
mon_mute_view(const struct mon *m, const struct mon_mute **v, size_t *n)
{
	const struct mon_proposal *const order[] = { m->pending, m->inflight,
		m->applying };
	size_t i;

	for (i = 0; i < nitems(order); i++)
		if (order[i] != NULL && order[i]->has_mutes) {
			*v = order[i]->mutes;
			*n = order[i]->nmutes;
			return;
		}
	*v = m->mutes;
	*n = m->nmutes;
}

int
mon_mute_load(struct mon *m, char **cause)
{
	uint8_t key = KEYS_MUTES;
	void *val;
	size_t vlen;
	char *why = NULL;
	int rc;

	if ((rc = store_get(m->store, &key, 1, &val, &vlen, &why)) ==
	    STORE_NOTFOUND)
		return 0;
	if (rc != 0) {
		*cause = why != NULL ? why : xstrdup(store_strerror(rc));
		return -1;
	}
	rc = mon_record_mutes_decode(val, vlen, &m->mutes, &m->nmutes, &why);
	free(val);
	if (rc == -1) {
		store_key_corrupt(cause, store_path(m->store), &key, 1, "%s",
		    why);
		free(why);
		return -1;
	}
	return 0;
}

/* Take v[i] out of v[0..*n), the order kept. */
static void
mon_mute_remove(struct mon_mute *v, size_t *n, size_t i)
{
	free(v[i].summary);
	memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof *v);
	(*n)--;
}

/* A copy of the pending set, with room for one more. */
static struct mon_mute *
mon_mute_copy(const struct mon *m, size_t *n)
{
	const struct mon_mute *v;
	struct mon_mute *copy;
	size_t i;

	mon_mute_view(m, &v, n);
	copy = xcalloc(*n + 1, sizeof *copy);
	for (i = 0; i < *n; i++) {
		copy[i] = v[i];
		copy[i].summary = xstrdup(v[i].summary);
	}
	return copy;
}

void
mon_health_mute(struct mon *m, const char *code, const char *ttl, int sticky,
    mon_done_cb *done, void *arg)
{
	struct mon_health_check *checks;
	const struct mon_health_check *c = NULL;
	struct mon_mute *v, *mu;
	size_t n, nchecks, i;
	int64_t secs = 0;
	char why[96], *status;

	if (*code == '\0' || strlen(code) >= MON_MUTE_CODE_MAX) {
		xasprintf(&status,
		    *code == '\0' ? "must specify an alert code "
				    "to mute" :
				    "alert code '%.64s' is longer than %d "
				    "characters",
		    code, MON_MUTE_CODE_MAX - 1);
		done(arg, -EINVAL, status, NULL);
		free(status);
		return;
	}
	if (ttl != NULL) {
		why[0] = '\0';
		if (stamp_span_parse(ttl, &secs, why, sizeof why) == 0) {
			/* Ceph's words for 0; a bound so the stamp fits. */
			if (secs == 0)
				snprintf(why, sizeof why, "timespan = 0");
			else if (secs > MON_MUTE_TTL_MAX)
				snprintf(why, sizeof why,
				    "more than 100 years");
		}
		if (why[0] != '\0') {
			xasprintf(&status, "invalid duration: %.64s (%s)", ttl,
			    why);
			done(arg, -EINVAL, status, NULL);
			free(status);
			return;
		}
	}
	mon_health_eval(m, 0, &checks, &nchecks);
	if (!sticky && (c = mon_health_find(checks, nchecks, code)) == NULL) {
		mon_health_free(checks, nchecks);
		xasprintf(&status, "health alert %s is not currently raised",
		    code);
		done(arg, -ENOENT, status, NULL);
		free(status);
		return;
	}
	v = mon_mute_copy(m, &n);
	for (i = 0; i < n; i++)
		if (strcmp(v[i].code, code) == 0)
			break;
	if (i == n)
		n++;
	mu = &v[i];
	free(mu->summary);
	memset(mu, 0, sizeof *mu);
	snprintf(mu->code, sizeof mu->code, "%s", code);
	mu->ttl = ttl != NULL ? stamp_now() + secs * 1000000 : 0;
	mu->sticky = sticky;
	/* As Ceph: a sticky mute remembers nothing of the check. */
	mu->summary = xstrdup(c != NULL ? c->summary : "");
	mu->count = c != NULL ? c->count : 0;
	mon_health_free(checks, nchecks);
	mon_stage_mutes(m, v, n);
	mon_mute_free(v, n);
	mon_stage_done(m, done, arg, "", NULL);
}

void
mon_health_unmute(struct mon *m, const char *code, mon_done_cb *done, void *arg)
{
	struct mon_mute *v;
	size_t n, i;

	v = mon_mute_copy(m, &n);
	for (i = 0; i < n;) {
		if (code == NULL || strcmp(v[i].code, code) == 0)
			mon_mute_remove(v, &n, i);
		else
			i++;
	}
	mon_stage_mutes(m, v, n);
	mon_mute_free(v, n);
	mon_stage_done(m, done, arg, "", NULL);
}

void
mon_mute_tick(struct mon *m, const struct mon_health_check *now_checks,
    size_t nnow, int64_t now)
{
	const struct mon_health_check *c;
	struct mon_mute *v;
	char stamp[STAMP_BUFSIZE];
	size_t n, i;
	int changed = 0;

	v = mon_mute_copy(m, &n);
	for (i = 0; i < n;) {
		c = mon_health_find(now_checks, nnow, v[i].code);
		if (v[i].ttl != 0 && v[i].ttl <= now) {
			mon_stage_log(m, MON_LOG_INFO,
			    "Health alert mute %s "
			    "cleared (passed TTL %s)",
			    v[i].code,
			    stamp_format(v[i].ttl, stamp, sizeof stamp));
		} else if (v[i].sticky) {
			i++;
			continue;
		} else if (c == NULL) {
			mon_stage_log(m, MON_LOG_INFO,
			    "Health alert mute %s "
			    "cleared (health alert cleared)",
			    v[i].code);
		} else if (v[i].count > 0 && c->count > v[i].count) {
			mon_stage_log(m, MON_LOG_INFO,
			    "Health alert mute %s "
			    "cleared (count increased from %llu to %llu)",
			    v[i].code, (unsigned long long)v[i].count,
			    (unsigned long long)c->count);
		} else if (v[i].count == 0 &&
		    strcmp(v[i].summary, c->summary) != 0) {
			mon_stage_log(m, MON_LOG_INFO,
			    "Health alert mute %s "
			    "cleared (summary changed)",
			    v[i].code);
		} else {
			/* A count that fell is the mute's from now on. */
			if (v[i].count > 0 && c->count < v[i].count) {
				v[i].count = c->count;
				changed = 1;
			}
			i++;
			continue;
		}
		mon_mute_remove(v, &n, i);
		changed = 1;
	}
	if (changed)
		mon_stage_mutes(m, v, n);
	mon_mute_free(v, n);
}
