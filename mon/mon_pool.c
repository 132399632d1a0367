/*
 * mon_pool.c: pool operations (create, rename, delete, set, get).
 *
 * A new pool takes the next id (never reused) and all its PGs appear in
 * `creating`, placed by the map of the epoch that creates it; the committer
 * makes their records.  pg_num may grow (the new PGs appear in `creating`)
 * but never shrink.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
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
	if (pg_num <= m->params.max_pool_pg_num)
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

void
mon_pool_create(struct mon *m, const char *name, int64_t pg_num,
    int64_t size, int64_t min_size, mon_done_cb *done, void *arg)
{
	struct osdmap_pool p;
	char status[192];

	if (!mon_pool_name_ok(name)) {
		mon_pool_refuse(done, arg, -EINVAL, "invalid pool name '%.*s': "
		    "use 1 to %d letters, digits, '_', '-' or '.', not "
		    "starting with '.'", 64, name, OSDMAP_POOL_NAME_MAX - 1);
		return;
	}
	if (osdmap_pool_by_name(&m->work, name) != NULL) {
		mon_pool_refuse(done, arg, -EEXIST, "pool '%s' already exists",
		    name);
		return;
	}
	if (pg_num < 1 || pg_num > OSDMAP_PG_NUM_MAX) {
		mon_pool_refuse(done, arg, -EINVAL, "pg_num %lld out of range "
		    "(1 to %d)", (long long)pg_num, OSDMAP_PG_NUM_MAX);
		return;
	}
	if (mon_pool_check_pg_num(m, pg_num, done, arg) != 0)
		return;
	if (size == 0)
		size = 3;
	if (size < 1 || size > OSDMAP_POOL_SIZE_MAX) {
		mon_pool_refuse(done, arg, -EINVAL, "size %lld out of range "
		    "(1 to %d)", (long long)size, OSDMAP_POOL_SIZE_MAX);
		return;
	}
	if (min_size == 0)
		min_size = size - size / 2;
	if (min_size < 1 || min_size > size) {
		mon_pool_refuse(done, arg, -EINVAL, "min_size %lld out of range "
		    "(1 to size %lld)", (long long)min_size, (long long)size);
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
	p.min_size = (uint32_t)min_size;
	p.pg_num = (uint32_t)pg_num;
	p.created_epoch = mon_stage_next_epoch(m);
	mon_stage_pool(m, &p);
	mon_stage_newpgs(m, p.id, 0, p.pg_num);
	mon_stage_log(m, MON_LOG_INFO, "pool '%s' created with %u pgs", name,
	    p.pg_num);
	snprintf(status, sizeof status, "pool '%s' created", name);
	mon_stage_done(m, done, arg, status, json_pack("{s:I}", "pool_id",
	    (json_int_t)p.id));
}

/* The pool named name in the working map, or an ENOENT answer. */
static const struct osdmap_pool *
mon_pool_get(struct mon *m, const char *name, mon_done_cb *done, void *arg)
{
	const struct osdmap_pool *p = osdmap_pool_by_name(&m->work, name);

	if (p == NULL)
		mon_pool_refuse(done, arg, -ENOENT, "pool '%.*s' does not "
		    "exist", 128, name);
	return p;
}

void
mon_pool_rename(struct mon *m, const char *from, const char *to,
    mon_done_cb *done, void *arg)
{
	const struct osdmap_pool *cur;
	struct osdmap_pool p;
	char status[300];

	if ((cur = mon_pool_get(m, from, done, arg)) == NULL)
		return;
	if (!mon_pool_name_ok(to)) {
		mon_pool_refuse(done, arg, -EINVAL, "invalid pool name '%.*s'",
		    64, to);
		return;
	}
	if (osdmap_pool_by_name(&m->work, to) != NULL) {
		mon_pool_refuse(done, arg, -EEXIST, "pool '%s' already exists",
		    to);
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

	if ((cur = mon_pool_get(m, name, done, arg)) == NULL)
		return;
	if (name2 == NULL || strcmp(name, name2) != 0 || !confirmed) {
		mon_pool_refuse(done, arg, -EPERM, "WARNING: this will "
		    "*PERMANENTLY DESTROY* all data stored in pool %s.  If you "
		    "are *ABSOLUTELY CERTAIN* that is what you want, pass the "
		    "pool name *twice*, followed by "
		    "--yes-i-really-really-mean-it.", name);
		return;
	}
	id = cur->id;
	mon_stage_remove_pool(m, id);
	snprintf(status, sizeof status, "pool '%s' removed", name);
	mon_stage_log(m, MON_LOG_INFO, "%s", status);
	mon_stage_done(m, done, arg, status, NULL);
}

void
mon_pool_set(struct mon *m, const char *name, const char *key, int64_t value,
    mon_done_cb *done, void *arg)
{
	const struct osdmap_pool *cur;
	struct osdmap_pool p;
	char status[256];
	uint32_t old;

	if ((cur = mon_pool_get(m, name, done, arg)) == NULL)
		return;
	p = *cur;
	if (strcmp(key, "pg_num") == 0) {
		if (value < cur->pg_num) {
			mon_pool_refuse(done, arg, -EINVAL, "pg_num of pool "
			    "'%s' cannot shrink from %u to %lld: mapmon does "
			    "not merge PGs", name, cur->pg_num,
			    (long long)value);
			return;
		}
		if (value > OSDMAP_PG_NUM_MAX) {
			mon_pool_refuse(done, arg, -EINVAL, "pg_num %lld out of "
			    "range (at most %d)", (long long)value,
			    OSDMAP_PG_NUM_MAX);
			return;
		}
		/* Only growth is checked, as in Ceph. */
		if (value > cur->pg_num &&
		    (mon_pool_check_pg_num(m, value, done, arg) != 0 ||
		    mon_pool_check_pgs(m, cur->id, (uint32_t)value, cur->size,
		    done, arg) != 0))
			return;
		p.pg_num = (uint32_t)value;
	} else if (strcmp(key, "size") == 0) {
		if (value < 1 || value > OSDMAP_POOL_SIZE_MAX) {
			mon_pool_refuse(done, arg, -EINVAL, "size %lld out of "
			    "range (1 to %d)", (long long)value,
			    OSDMAP_POOL_SIZE_MAX);
			return;
		}
		if (value > cur->size && mon_pool_check_pgs(m, cur->id,
		    cur->pg_num, (uint32_t)value, done, arg) != 0)
			return;
		p.size = (uint32_t)value;
		if (p.min_size > p.size)
			p.min_size = p.size;
	} else if (strcmp(key, "min_size") == 0) {
		if (value < 1 || value > cur->size) {
			mon_pool_refuse(done, arg, -EINVAL, "min_size %lld out "
			    "of range (1 to size %u)", (long long)value,
			    cur->size);
			return;
		}
		p.min_size = (uint32_t)value;
	} else {
		mon_pool_refuse(done, arg, -EINVAL, "unknown pool key '%.*s': "
		    "expected pg_num, size or min_size", 64, key);
		return;
	}
	if (memcmp(&p, cur, sizeof p) == 0) {
		mon_pool_refuse(done, arg, 0, "pool '%s' already has %s %lld",
		    name, key, (long long)value);
		return;
	}
	old = cur->pg_num;
	mon_stage_pool(m, &p);
	if (p.pg_num > old)
		mon_stage_newpgs(m, p.id, old, p.pg_num);
	snprintf(status, sizeof status, "set pool %u %s to %lld", p.id, key,
	    (long long)value);
	mon_stage_log(m, MON_LOG_INFO, "%s", status);
	mon_stage_done(m, done, arg, status, NULL);
}

int
mon_pool_get_json(struct mon *m, const char *name, const char *key,
    json_t **out, char **status)
{
	const struct osdmap_pool *p = osdmap_pool_by_name(&m->osdmap, name);
	json_int_t v;

	if (p == NULL) {
		xasprintf(status, "pool '%.*s' does not exist", 128, name);
		return -ENOENT;
	}
	if (strcmp(key, "pg_num") == 0)
		v = p->pg_num;
	else if (strcmp(key, "size") == 0)
		v = p->size;
	else if (strcmp(key, "min_size") == 0)
		v = p->min_size;
	else {
		xasprintf(status, "unknown pool key '%.*s': expected pg_num, "
		    "size or min_size", 64, key);
		return -EINVAL;
	}
	*out = json_pack("{s:s, s:I}", "pool", p->name, key, v);
	xasprintf(status, "%s: %lld", key, (long long)v);
	return 0;
}
