/*
 * mon_pool.c: pool operations (create, rename, delete, set, get).
 *
 * A new pool takes the next id (never reused) and all its PGs appear in
 * `creating`, placed by the map of the epoch that creates it; the committer
 * makes their records.  pg_num may grow (the new PGs appear in `creating`)
 * but never shrink.
 *
 * Arguments, checks, errnos and messages are those of Ceph's OSDMonitor
 * (prepare_command_impl(), prepare_new_pool(), prepare_command_pool_set()
 * and preprocess_command()'s "osd pool get"), in their order; mapmon(8)
 * lists them.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "mon/mon_priv.h"

static void
mon_pool_refuse(mon_done_cb *done, void *arg, int rc, const char *fmt, ...)
    printflike(4, 5);

static void
mon_pool_refuse(mon_done_cb *done, void *arg, int rc, const char *fmt, ...)
{
	va_list ap;
	char *status;

	va_start(ap, fmt);
	xvasprintf(&status, fmt, ap);
	va_end(ap);
	done(arg, rc, status, NULL);
	free(status);
}

/*
 * [mon] max_pool_pg_num: Ceph's refusal, word for word (prepare_new_pool()
 * and prepare_command_pool_set() in Ceph's OSDMonitor.cc).
 */
static int
mon_pool_check_pg_num(struct mon *m, int64_t pg_num, mon_done_cb *done,
    void *arg)
{
	if (pg_num >= 1 && pg_num <= m->params.max_pool_pg_num)
		return 0;
	mon_pool_refuse(done, arg, -ERANGE, "'pg_num' must be greater than 0 "
	    "and less than or equal to %lld (you may adjust 'mon max pool pg "
	    "num' for higher values)", (long long)m->params.max_pool_pg_num);
	return -ERANGE;
}

/*
 * The PG limits of mapmon.conf(5) on pool id (-1: a new pool) holding
 * pg_num PGs of size replicas, against the working map (so proposals not
 * yet committed count), before anything is staged.  First Ceph's
 * mon_max_pg_per_osd, as its check_pg_num() does it up to Reef, with its
 * message: pg_num x size of every pool against max_pg_per_osd x the OSDs
 * in, 3 at least.  Then, when PGs are added, mapmon's own max_pgs: the PGs
 * the monitor would hold, which its memory grows with (mapmond(8)); a pool
 * whose removal is not yet committed still holds its PGs, so it counts.
 * 0, or -ERANGE once the refusal is answered.
 */
static int
mon_pool_check_pgs(struct mon *m, int64_t pool, uint32_t pg_num,
    uint32_t size, mon_done_cb *done, void *arg)
{
	const struct osdmap_pool *p;
	uint64_t projected = 0, pgs = 0, max;
	unsigned in;
	size_t i;
	int grows = pool < 0;
	char what[32] = "";

	if (pool >= 0)
		snprintf(what, sizeof what, "pool id %lld ", (long long)pool);
	else {
		projected += (uint64_t)pg_num * size;
		pgs += pg_num;
	}
	for (i = 0; i < m->work.npools; i++) {
		p = &m->work.pools[i];
		if ((int64_t)p->id == pool) {
			projected += (uint64_t)pg_num * size;
			pgs += pg_num;
			grows = pg_num > p->pg_num;
		} else {
			projected += (uint64_t)p->pg_num * p->size;
			pgs += p->pg_num;
		}
	}
	osdmap_counts(&m->work, NULL, NULL, &in, NULL);
	if (in < 3)
		in = 3;
	max = (uint64_t)m->params.max_pg_per_osd * in;
	if (projected > max) {
		mon_pool_refuse(done, arg, -ERANGE, "%spg_num %u size %u would "
		    "mean %llu total pgs, which exceeds max %llu "
		    "(mon_max_pg_per_osd %lld * num_in_osds %u)", what, pg_num,
		    size, (unsigned long long)projected,
		    (unsigned long long)max,
		    (long long)m->params.max_pg_per_osd, in);
		return -ERANGE;
	}
	for (i = 0; i < m->osdmap.npools; i++)
		if (osdmap_pool(&m->work, m->osdmap.pools[i].id) == NULL)
			pgs += m->osdmap.pools[i].pg_num;
	if (grows && pgs > (uint64_t)m->params.max_pgs) {
		mon_pool_refuse(done, arg, -ERANGE, "%spg_num %u would mean %llu "
		    "pgs in all pools, which exceeds max_pgs %lld (mon max_pgs, "
		    "the monitor's memory bound)", what, pg_num,
		    (unsigned long long)pgs, (long long)m->params.max_pgs);
		return -ERANGE;
	}
	return 0;
}

/* Pool names: 1 to 127 of [A-Za-z0-9_.-], not starting with '.'. */
static int
mon_pool_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n >= OSDMAP_POOL_NAME_MAX || name[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' &&
		    name[i] != '-' && name[i] != '.')
			return 0;
	return 1;
}

/*
 * The id of rule name in the working map's hierarchy, or, name NULL, of
 * the default one: replicated_rule, else the lowest id (Ceph's
 * osd_pool_default_crush_rule -1).  -1 when there is none.
 */
static int
mon_pool_rule(const struct mon *m, const char *name)
{
	struct crush_rule_info ri;
	int id;

	if (m->work.crush == NULL)
		return name == NULL || strcmp(name, CRUSH_DEFAULT_RULE) == 0 ?
		    0 :
		    -1;
	if (name != NULL)
		return crush_rule_id(m->work.crush, name);
	if ((id = crush_rule_id(m->work.crush, CRUSH_DEFAULT_RULE)) >= 0)
		return id;
	return crush_rule_at(m->work.crush, 0, &ri) == 0 ? (int)ri.id : -1;
}

/* A rule's name by id in the committed map ("" when it has none). */
static const char *
mon_pool_rule_name(const struct mon *m, uint32_t id)
{
	struct crush_rule_info ri;

	if (m->osdmap.crush == NULL)
		return id == 0 ? CRUSH_DEFAULT_RULE : "";
	return crush_rule_get(m->osdmap.crush, id, &ri) == 0 ? ri.name : "";
}

void
mon_pool_create(struct mon *m, const char *name, int64_t pg_num,
    int64_t pgp_num, int64_t size, const char *rule, mon_done_cb *done,
    void *arg)
{
	struct osdmap_pool p;
	char status[192];
	int rule_id;

	if (osdmap_pool_by_name(&m->work, name) != NULL) {
		snprintf(status, sizeof status, "pool '%.128s' already exists",
		    name);
		mon_stage_noop(m, done, arg, status, NULL);
		return;
	}
	if (!mon_pool_name_ok(name)) {
		mon_pool_refuse(done, arg, -EINVAL, "invalid pool name '%.*s': "
		    "use 1 to %d letters, digits, '_', '-' or '.', not "
		    "starting with '.'", 64, name, OSDMAP_POOL_NAME_MAX - 1);
		return;
	}
	if ((rule_id = mon_pool_rule(m, rule)) < 0) {
		if (rule != NULL)
			mon_pool_refuse(done, arg, -ENOENT,
			    "specified rule %.*s doesn't exist", 64, rule);
		else
			mon_pool_refuse(done, arg, -ENOENT,
			    "no crush rule to place the pool by: make one "
			    "with osd crush rule create-replicated");
		return;
	}
	if (pg_num == 0)
		pg_num = m->params.osd_pool_default_pg_num;
	if (pgp_num == 0)
		pgp_num = pg_num;
	if (mon_pool_check_pg_num(m, pg_num, done, arg) != 0)
		return;
	if (pgp_num < 1 || pgp_num > pg_num) {
		mon_pool_refuse(done, arg, -ERANGE,
		    "'pgp_num' must be greater "
		    "than 0 and lower or equal than 'pg_num', which in this "
		    "case is %lld",
		    (long long)pg_num);
		return;
	}
	if (pg_num > OSDMAP_PG_NUM_MAX) {
		mon_pool_refuse(done, arg, -ERANGE,
		    "pg_num %lld out of range "
		    "(1 to %d)",
		    (long long)pg_num, OSDMAP_PG_NUM_MAX);
		return;
	}
	if (size == 0)
		size = m->params.osd_pool_default_size;
	if (size < 1 || size > OSDMAP_POOL_SIZE_MAX) {
		mon_pool_refuse(done, arg, -EINVAL, "pool size %lld: %s",
		    (long long)size,
		    size < 1 ?
			"must be at least 1" :
			"pool size is bigger than the crush rule max size");
		return;
	}
	if (mon_pool_check_pgs(m, -1, (uint32_t)pg_num, (uint32_t)size, done,
	    arg) != 0)
		return;
	if (m->work.pool_max == UINT32_MAX) {
		mon_pool_refuse(done, arg, -ENOSPC, "no pool id left");
		return;
	}
	memset(&p, 0, sizeof p);
	p.id = m->work.pool_max + 1;
	snprintf(p.name, sizeof p.name, "%s", name);
	p.size = (uint32_t)size;
	p.min_size = (uint32_t)(size - size / 2);
	p.pg_num = (uint32_t)pg_num;
	p.pgp_num = (uint32_t)pgp_num;
	p.crush_rule = (uint32_t)rule_id;
	p.created_epoch = mon_stage_next_epoch(m);
	mon_stage_pool(m, &p);
	mon_stage_newpgs(m, p.id, 0, p.pg_num);
	mon_stage_log(m, MON_LOG_INFO, "pool '%s' created with %u pgs", name,
	    p.pg_num);
	snprintf(status, sizeof status, "pool '%s' created", name);
	mon_stage_done(m, done, arg, status, json_pack("{s:I}", "pool_id",
	    (json_int_t)p.id));
}

/* The pool named name in the working map, or Ceph's ENOENT answer. */
static const struct osdmap_pool *
mon_pool_get(struct mon *m, const char *name, mon_done_cb *done, void *arg)
{
	const struct osdmap_pool *p = osdmap_pool_by_name(&m->work, name);

	if (p == NULL)
		mon_pool_refuse(done, arg, -ENOENT, "unrecognized pool '%.*s'",
		    128, name);
	return p;
}

void
mon_pool_rename(struct mon *m, const char *from, const char *to,
    mon_done_cb *done, void *arg)
{
	const struct osdmap_pool *cur;
	struct osdmap_pool p;
	char status[300];

	/* A rename already done answers as done (Ceph's idempotency). */
	if (osdmap_pool_by_name(&m->work, from) == NULL &&
	    osdmap_pool_by_name(&m->work, to) != NULL) {
		char st[400];

		snprintf(st, sizeof st,
		    "pool '%.*s' does not exist; "
		    "pool '%.*s' does -- assuming successful rename",
		    128, from, 128, to);
		mon_stage_noop(m, done, arg, st, NULL);
		return;
	}
	if ((cur = mon_pool_get(m, from, done, arg)) == NULL)
		return;
	if (osdmap_pool_by_name(&m->work, to) != NULL) {
		mon_pool_refuse(done, arg, -EEXIST, "pool '%s' already exists",
		    to);
		return;
	}
	if (!mon_pool_name_ok(to)) {
		mon_pool_refuse(done, arg, -EINVAL,
		    "invalid pool name '%.*s': "
		    "use 1 to %d letters, digits, '_', '-' or '.', not "
		    "starting with '.'",
		    64, to, OSDMAP_POOL_NAME_MAX - 1);
		return;
	}
	p = *cur;
	snprintf(p.name, sizeof p.name, "%s", to);
	mon_stage_pool(m, &p);
	snprintf(status, sizeof status, "pool '%s' renamed to '%s'", from, to);
	mon_stage_log(m, MON_LOG_INFO, "%s", status);
	mon_stage_done(m, done, arg, status, NULL);
}

void
mon_pool_delete(struct mon *m, const char *name, const char *name2,
    int confirmed, mon_done_cb *done, void *arg)
{
	const struct osdmap_pool *cur;
	char status[200];
	uint32_t id;

	if ((cur = osdmap_pool_by_name(&m->work, name)) == NULL) {
		snprintf(status, sizeof status, "pool '%.*s' does not exist",
		    128, name);
		mon_stage_noop(m, done, arg, status, NULL);
		return;
	}
	if (name2 == NULL || strcmp(name, name2) != 0 || !confirmed) {
		mon_pool_refuse(done, arg, -EPERM, "WARNING: this will "
		    "*PERMANENTLY DESTROY* all data stored in pool %s.  If you "
		    "are *ABSOLUTELY CERTAIN* that is what you want, pass the "
		    "pool name *twice*, followed by "
		    "--yes-i-really-really-mean-it.", name);
		return;
	}
	if (!m->params.allow_pool_delete) {
		mon_pool_refuse(done, arg, -EPERM,
		    "pool deletion is disabled; "
		    "you must first set the mon_allow_pool_delete config "
		    "option to true before you can destroy a pool");
		return;
	}
	id = cur->id;
	mon_stage_remove_pool(m, id);
	snprintf(status, sizeof status, "pool '%s' removed", name);
	mon_stage_log(m, MON_LOG_INFO, "%s", status);
	mon_stage_done(m, done, arg, status, NULL);
}

/* An integer value of `osd pool set', refused as Ceph refuses it. */
static int
mon_pool_set_int(const char *text, int64_t *v, mon_done_cb *done, void *arg)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(text, &end, 10);
	if (*text == '\0' || *end != '\0' || errno == ERANGE) {
		mon_pool_refuse(done, arg, -EINVAL,
		    "error parsing integer "
		    "value '%.*s': Expected option value to be integer, got "
		    "'%.*s'",
		    64, text, 64, text);
		return -1;
	}
	*v = n;
	return 0;
}

/* The checks of a new value of p's key (p holds it); 0 or refused. */
static int
mon_pool_set_check(struct mon *m, const struct osdmap_pool *cur,
    struct osdmap_pool *p, const char *key, int64_t n, int sure,
    mon_done_cb *done, void *arg)
{
	if (strcmp(key, "size") == 0) {
		if (n <= 0 || n > OSDMAP_POOL_SIZE_MAX) {
			mon_pool_refuse(done, arg, -EINVAL,
			    "pool size must be "
			    "between 1 and %d",
			    OSDMAP_POOL_SIZE_MAX);
			return -1;
		}
		if (n == 1 && !m->params.allow_pool_size_one) {
			mon_pool_refuse(done, arg, -EPERM,
			    "configuring pool "
			    "size as 1 is disabled by default.");
			return -1;
		}
		if (n == 1 && !sure) {
			mon_pool_refuse(done, arg, -EPERM,
			    "WARNING: setting "
			    "pool size 1 could lead to data loss without "
			    "recovery. If you are *ABSOLUTELY CERTAIN* that is "
			    "what you want, pass the flag "
			    "--yes-i-really-mean-it.");
			return -1;
		}
		if (n > cur->size &&
		    mon_pool_check_pgs(m, cur->id, cur->pg_num, (uint32_t)n,
			done, arg) != 0)
			return -1;
		/* Ceph's rule: a new size brings its min_size along. */
		p->size = (uint32_t)n;
		p->min_size = (uint32_t)(n - n / 2);
	} else if (strcmp(key, "min_size") == 0) {
		if (n < 1 || n > cur->size) {
			mon_pool_refuse(done, arg, -EINVAL,
			    "pool min_size must "
			    "be between 1 and size, which is set to %u",
			    cur->size);
			return -1;
		}
		p->min_size = (uint32_t)n;
	} else if (strcmp(key, "pg_num") == 0) {
		if (mon_pool_check_pg_num(m, n, done, arg) != 0)
			return -1;
		if (n < cur->pg_num) {
			mon_pool_refuse(done, arg, -EINVAL,
			    "pg_num of pool "
			    "'%s' cannot shrink from %u to %lld: mapmon does "
			    "not merge PGs",
			    cur->name, cur->pg_num, (long long)n);
			return -1;
		}
		if (n > OSDMAP_PG_NUM_MAX) {
			mon_pool_refuse(done, arg, -ERANGE,
			    "pg_num %lld out of "
			    "range (at most %d)",
			    (long long)n, OSDMAP_PG_NUM_MAX);
			return -1;
		}
		/* Only growth is checked, as in Ceph. */
		if (n > cur->pg_num &&
		    mon_pool_check_pgs(m, cur->id, (uint32_t)n, cur->size, done,
			arg) != 0)
			return -1;
		/* pgp_num follows pg_num unless it was set apart, as Ceph's. */
		if (cur->pgp_num == cur->pg_num)
			p->pgp_num = (uint32_t)n;
		p->pg_num = (uint32_t)n;
	} else if (strcmp(key, "pgp_num") == 0) {
		if (n <= 0) {
			mon_pool_refuse(done, arg, -EINVAL,
			    "specified pgp_num "
			    "must > 0, but you set to %lld",
			    (long long)n);
			return -1;
		}
		if (n > cur->pg_num) {
			mon_pool_refuse(done, arg, -EINVAL,
			    "specified pgp_num "
			    "%lld > pg_num %u",
			    (long long)n, cur->pg_num);
			return -1;
		}
		p->pgp_num = (uint32_t)n;
	} else {
		mon_pool_refuse(done, arg, -EINVAL,
		    "unrecognized variable "
		    "'%.*s': expected size, min_size, pg_num, pgp_num or "
		    "crush_rule",
		    64, key);
		return -1;
	}
	return 0;
}

void
mon_pool_set(struct mon *m, const char *name, const char *key,
    const char *value, int sure, mon_done_cb *done, void *arg)
{
	const struct osdmap_pool *cur;
	struct osdmap_pool p;
	char status[256];
	uint32_t old;
	int64_t n;

	if ((cur = mon_pool_get(m, name, done, arg)) == NULL)
		return;
	p = *cur;
	if (strcmp(key, "crush_rule") == 0) {
		int id = mon_pool_rule(m, value);

		if (id < 0) {
			mon_pool_refuse(done, arg, -ENOENT,
			    "crush rule %.*s does not exist", 64, value);
			return;
		}
		p.crush_rule = (uint32_t)id;
	} else if (mon_pool_set_int(value, &n, done, arg) != 0 ||
	    mon_pool_set_check(m, cur, &p, key, n, sure, done, arg) != 0)
		return;
	snprintf(status, sizeof status, "set pool %u %s to %.64s", p.id, key,
	    value);
	if (memcmp(&p, cur, sizeof p) == 0) {
		mon_stage_noop(m, done, arg, status, NULL);
		return;
	}
	old = cur->pg_num;
	mon_stage_pool(m, &p);
	if (p.pg_num > old)
		mon_stage_newpgs(m, p.id, old, p.pg_num);
	mon_stage_log(m, MON_LOG_INFO, "%s", status);
	mon_stage_done(m, done, arg, status, NULL);
}

/* The index of app among p's applications, or -1. */
static int
mon_pool_app_find(const struct osdmap_pool *p, const char *app)
{
	int k;

	for (k = 0; k < OSDMAP_POOL_APPS_MAX && p->apps[k][0]; k++)
		if (strcmp(p->apps[k], app) == 0)
			return k;
	return -1;
}

static size_t
mon_pool_app_count(const struct osdmap_pool *p)
{
	size_t k;

	for (k = 0; k < OSDMAP_POOL_APPS_MAX && p->apps[k][0]; k++)
		;
	return k;
}

void
mon_pool_application(struct mon *m, int enable, const char *name,
    const char *app, int sure, mon_done_cb *done, void *arg)
{
	const struct osdmap_pool *cur;
	struct osdmap_pool p;
	char status[400];
	size_t n, k;
	int at;

	if ((cur = mon_pool_get(m, name, done, arg)) == NULL)
		return;
	p = *cur;
	at = mon_pool_app_find(&p, app);
	n = mon_pool_app_count(&p);
	if (enable) {
		if (*app == '\0') {
			mon_pool_refuse(done, arg, -EINVAL,
			    "application name must be provided");
			return;
		}
		if (at == -1 && n > 0 && !sure) {
			mon_pool_refuse(done, arg, -EPERM,
			    "Are you SURE? Pool '%s' already has an enabled "
			    "application; pass --yes-i-really-mean-it to "
			    "proceed anyway",
			    p.name);
			return;
		}
		if (at == -1 && n >= OSDMAP_POOL_APPS_MAX) {
			mon_pool_refuse(done, arg, -EINVAL,
			    "too many enabled applications on pool '%s'; max "
			    "%d",
			    p.name, OSDMAP_POOL_APPS_MAX);
			return;
		}
		if (strlen(app) > OSDMAP_POOL_APP_LEN) {
			mon_pool_refuse(done, arg, -EINVAL,
			    "application name '%.*s' too long; max length %d",
			    OSDMAP_POOL_APP_LEN + 8, app, OSDMAP_POOL_APP_LEN);
			return;
		}
		snprintf(status, sizeof status,
		    "enabled application '%s' on pool '%s'", app, p.name);
		/* Enabled already: Ceph's answer, and no new epoch. */
		if (at != -1) {
			mon_stage_noop(m, done, arg, status, NULL);
			return;
		}
		/* Kept sorted, as Ceph's map of them. */
		for (k = n; k > 0 && strcmp(p.apps[k - 1], app) > 0; k--)
			memcpy(p.apps[k], p.apps[k - 1], sizeof p.apps[k]);
		memset(p.apps[k], 0, sizeof p.apps[k]);
		memcpy(p.apps[k], app, strlen(app) + 1);
	} else {
		if (!sure) {
			mon_pool_refuse(done, arg, -EPERM,
			    "Are you SURE? Disabling an application within a "
			    "pool might result in loss of application "
			    "functionality; pass --yes-i-really-mean-it to "
			    "proceed anyway");
			return;
		}
		if (at == -1) {
			snprintf(status, sizeof status,
			    "application '%.*s' is not enabled on pool '%s'",
			    OSDMAP_POOL_APP_LEN + 8, app, p.name);
			mon_stage_noop(m, done, arg, status, NULL);
			return;
		}
		for (k = (size_t)at; k + 1 < n; k++)
			memcpy(p.apps[k], p.apps[k + 1], sizeof p.apps[k]);
		memset(p.apps[n - 1], 0, sizeof p.apps[n - 1]);
		snprintf(status, sizeof status,
		    "disable application '%s' on pool '%s'", app, p.name);
	}
	mon_stage_pool(m, &p);
	mon_stage_log(m, MON_LOG_INFO, "%s", status);
	mon_stage_done(m, done, arg, status, NULL);
}

/* A pool's applications, {APP: {}}: Ceph keeps keys; mapmon none. */
static json_t *
mon_pool_apps_json(const struct osdmap_pool *p)
{
	json_t *o = json_object();
	size_t k;

	for (k = 0; k < OSDMAP_POOL_APPS_MAX && p->apps[k][0]; k++)
		json_object_set_new(o, p->apps[k], json_object());
	return o;
}

int
mon_pool_application_get_json(struct mon *m, const char *pool, const char *app,
    const char *key, json_t **out, char **status)
{
	const struct osdmap_pool *p;
	size_t i;

	*out = NULL;
	if (pool == NULL) {
		*out = json_object();
		for (i = 0; i < m->osdmap.npools; i++)
			json_object_set_new(*out, m->osdmap.pools[i].name,
			    mon_pool_apps_json(&m->osdmap.pools[i]));
		xasprintf(status, "%zu pools", m->osdmap.npools);
		return 0;
	}
	if ((p = osdmap_pool_by_name(&m->osdmap, pool)) == NULL) {
		xasprintf(status, "unrecognized pool '%.*s'", 128, pool);
		return -ENOENT;
	}
	if (app == NULL) {
		*out = mon_pool_apps_json(p);
		*status = xstrdup("");
		return 0;
	}
	if (mon_pool_app_find(p, app) == -1) {
		xasprintf(status, "pool '%s' has no application '%.*s'",
		    p->name, OSDMAP_POOL_APP_LEN + 8, app);
		return -ENOENT;
	}
	if (key == NULL) {
		*out = json_object();
		*status = xstrdup("");
		return 0;
	}
	xasprintf(status,
	    "application '%s' on pool '%s' does not have key '%.*s'", app,
	    p->name, 128, key);
	return -ENOENT;
}

int
mon_pool_get_json(struct mon *m, const char *name, const char *key,
    json_t **out, char **status)
{
	static const char *const keys[] = { "size", "min_size", "pg_num",
		"pgp_num", "crush_rule" };
	const struct osdmap_pool *p = osdmap_pool_by_name(&m->osdmap, name);
	json_int_t v[] = { 0, 0, 0, 0, 0 };
	size_t i;
	int all;

	if (p == NULL) {
		xasprintf(status, "unrecognized pool '%.*s'", 128, name);
		return -ENOENT;
	}
	v[0] = p->size;
	v[1] = p->min_size;
	v[2] = p->pg_num;
	v[3] = p->pgp_num;
	all = strcmp(key, "all") == 0;
	*out = json_pack("{s:s, s:I}", "pool", p->name, "pool_id",
	    (json_int_t)p->id);
	for (i = 0; i < nitems(keys); i++) {
		if (!all && strcmp(key, keys[i]) != 0)
			continue;
		json_object_set_new(*out, keys[i],
		    i == 4 ? json_string(mon_pool_rule_name(m, p->crush_rule)) :
			     json_integer(v[i]));
		if (!all)
			break;
	}
	if (!all && i == nitems(keys)) {
		json_decref(*out);
		*out = NULL;
		xasprintf(status,
		    "unrecognized variable '%.*s': expected "
		    "size, min_size, pg_num, pgp_num, crush_rule or all",
		    64, key);
		return -EINVAL;
	}
	if (all)
		xasprintf(status, "pool '%s'", p->name);
	else if (i == 4)
		xasprintf(status, "%s: %s", key,
		    mon_pool_rule_name(m, p->crush_rule));
	else
		xasprintf(status, "%s: %lld", key, (long long)v[i]);
	return 0;
}
