/* pgmap.c: PG stats by pool and the figures derived from them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "map/osdmap.h"
#include "map/pgmap.h"

void
pgmap_init(struct pgmap *m)
{
	memset(m, 0, sizeof *m);
}

void
pgmap_clear(struct pgmap *m)
{
	size_t i;

	for (i = 0; i < m->npools; i++)
		free(m->pools[i].pgs);
	free(m->pools);
	free(m->states);
	free(m->osd);
	pgmap_init(m);
}

OSDMAP_POOL_INDEXABLE(struct pgmap_pool);

static size_t
pgmap_pool_index(const struct pgmap *m, uint32_t id, int *found)
{
	return osdmap_pool_index(m->pools, m->npools, sizeof *m->pools, id,
	    found);
}

struct pgmap_pool *
pgmap_pool(const struct pgmap *m, uint32_t id)
{
	int found;
	size_t i = pgmap_pool_index(m, id, &found);

	return found ? &m->pools[i] : NULL;
}

struct pg_stat *
pgmap_pg(const struct pgmap *m, struct pg_id id)
{
	struct pgmap_pool *p = pgmap_pool(m, id.pool);

	if (p == NULL || id.seed >= p->pg_num)
		return NULL;
	return &p->pgs[id.seed];
}

/* The sums' fields besides num_pgs, each a pg_stat field of that name. */
#define PGMAP_SUM_FIELDS(X)                                                    \
	PGMAP_STAT_SUM_FIELDS(X) X(log_size) X(ondisk_log_size)

/* Add (sign 1) or take away (sign -1) one PG's figures from the sums. */
static void
pgmap_sums_apply(struct pgmap_sums *s, const struct pg_stat *st, int sign)
{
	uint64_t k = (uint64_t)(int64_t)sign;

	s->num_pgs += k;
	s->up += k * st->up_len;
	s->acting += k * st->acting_len;
#define PGMAP_SUM_PG(f) s->f += k * (uint64_t)st->f;
	PGMAP_SUM_FIELDS(PGMAP_SUM_PG)
#undef PGMAP_SUM_PG
}

/* Add delta PGs (negative: take away) to the count of state. */
static void
pgmap_state_add(struct pgmap *m, uint32_t state, int64_t delta)
{
	size_t i;

	for (i = 0; i < m->nstates; i++) {
		if (m->states[i].state != state)
			continue;
		m->states[i].count += (uint64_t)delta;
		if (m->states[i].count == 0)
			m->states[i] = m->states[--m->nstates];
		return;
	}
	if (delta == 0)
		return;
	/* Below zero only in a tally of replacements (as uint64_t). */
	m->states = xreallocarray(m->states, m->nstates + 1,
	    sizeof *m->states);
	m->states[m->nstates].state = state;
	m->states[m->nstates].count = (uint64_t)delta;
	m->nstates++;
}

/* Room for OSD ids below n, zero-counted. */
static void
pgmap_osd_reserve(struct pgmap *m, uint32_t n)
{
	if (n <= m->nosds)
		return;
	m->osd = xreallocarray(m->osd, n, sizeof *m->osd);
	memset(&m->osd[m->nosds], 0, (n - m->nosds) * sizeof *m->osd);
	m->nosds = n;
}

static void
pgmap_osd_apply(struct pgmap *m, const struct pg_stat *st, int sign)
{
	unsigned i;
	int32_t id;

	for (i = 0; i < st->acting_len; i++) {
		id = st->acting[i];
		if (id < 0)
			continue;
		pgmap_osd_reserve(m, (uint32_t)id + 1);
		m->osd[id].pgs += (uint32_t)sign;
		if (id == st->acting_primary)
			m->osd[id].primary += (uint32_t)sign;
	}
}

static void
pgmap_figures_apply(struct pgmap *m, struct pgmap_pool *p,
    const struct pg_stat *st, int sign)
{
	pgmap_sums_apply(&m->sums, st, sign);
	if (p != NULL)
		pgmap_sums_apply(&p->sums, st, sign);
	pgmap_state_add(m, st->state, sign);
	pgmap_osd_apply(m, st, sign);
}

void
pgmap_pool_attach(struct pgmap *m, uint32_t id, uint32_t pg_num,
    struct pg_stat *pgs)
{
	struct pgmap_pool *p;
	size_t i;
	int found;

	i = pgmap_pool_index(m, id, &found);
	m->pools = xreallocarray(m->pools, m->npools + 1, sizeof *m->pools);
	memmove(&m->pools[i + 1], &m->pools[i],
	    (m->npools - i) * sizeof *m->pools);
	m->npools++;
	p = &m->pools[i];
	memset(p, 0, sizeof *p);
	p->id = id;
	p->pg_num = pg_num;
	p->pgs = pgs;
}

void
pgmap_tally_init(struct pgmap *t, const uint32_t *ids, size_t npools)
{
	size_t i;

	pgmap_init(t);
	t->npools = npools;
	t->pools = xcalloc(npools ? npools : 1, sizeof *t->pools);
	for (i = 0; ids != NULL && i < npools; i++)
		t->pools[i].id = ids[i];
}

void
pgmap_tally_add(struct pgmap *t, size_t pool_index, const struct pg_stat *st)
{
	pgmap_figures_apply(t, &t->pools[pool_index], st, 1);
}

void
pgmap_tally_sub(struct pgmap *t, const struct pg_stat *st)
{
	pgmap_figures_apply(t, NULL, st, -1);
}

static void
pgmap_sums_add(struct pgmap_sums *to, const struct pgmap_sums *from)
{
	to->num_pgs += from->num_pgs;
	to->up += from->up;
	to->acting += from->acting;
#define PGMAP_SUM_ADD(f) to->f += from->f;
	PGMAP_SUM_FIELDS(PGMAP_SUM_ADD)
#undef PGMAP_SUM_ADD
}

void
pgmap_tally_merge(struct pgmap *m, const struct pgmap *t)
{
	struct pgmap_pool *p;
	size_t i;
	uint32_t o;

	pgmap_sums_add(&m->sums, &t->sums);
	for (i = 0; i < t->npools; i++) {
		if ((p = pgmap_pool(m, t->pools[i].id)) != NULL)
			pgmap_sums_add(&p->sums, &t->pools[i].sums);
	}
	for (i = 0; i < t->nstates; i++)
		pgmap_state_add(m, t->states[i].state,
		    (int64_t)t->states[i].count);
	pgmap_osd_reserve(m, t->nosds);
	for (o = 0; o < t->nosds; o++) {
		m->osd[o].pgs += t->osd[o].pgs;
		m->osd[o].primary += t->osd[o].primary;
	}
}

struct pg_stat *
pgmap_pool_replace(struct pgmap *m, uint32_t id, uint32_t pg_num,
    struct pg_stat *pgs)
{
	struct pgmap_pool *p = pgmap_pool(m, id);
	struct pg_stat *old;

	if (p == NULL)
		return NULL;
	old = p->pgs;
	p->pgs = pgs;
	p->pg_num = pg_num;
	return old;
}

struct pg_stat *
pgmap_pool_detach(struct pgmap *m, uint32_t id, uint32_t *pg_num)
{
	struct pg_stat *pgs;
	size_t i;
	int found;

	i = pgmap_pool_index(m, id, &found);
	if (!found)
		return NULL;
	pgs = m->pools[i].pgs;
	*pg_num = m->pools[i].pg_num;
	memmove(&m->pools[i], &m->pools[i + 1],
	    (m->npools - i - 1) * sizeof *m->pools);
	m->npools--;
	return pgs;
}

void
pgmap_prefetch(const struct pgmap *m, struct pg_id id)
{
	const char *p = (const char *)pgmap_pg(m, id);
	size_t off;

	if (p == NULL)
		return;
	for (off = 0; off < sizeof(struct pg_stat); off += 64)
		__builtin_prefetch(p + off, 1);
}

void
pgmap_tally_for(struct pgmap *t, const struct pgmap *m)
{
	size_t i;

	pgmap_tally_init(t, NULL, m->npools);
	for (i = 0; i < m->npools; i++)
		t->pools[i].id = m->pools[i].id;
}

void
pgmap_replace_tally(struct pgmap *m, struct pgmap *t, const struct pg_stat *st)
{
	struct pg_stat *cur;
	size_t i;
	int found;

	i = pgmap_pool_index(m, st->pgid.pool, &found);
	if (!found || st->pgid.seed >= m->pools[i].pg_num)
		return;
	cur = &m->pools[i].pgs[st->pgid.seed];
	pgmap_figures_apply(t, &t->pools[i], cur, -1);
	pgmap_figures_apply(t, &t->pools[i], st, 1);
	*cur = *st;
}

uint64_t
pgmap_state_count(const struct pgmap *m, uint32_t state)
{
	size_t i;

	for (i = 0; i < m->nstates; i++)
		if (m->states[i].state == state)
			return m->states[i].count;
	return 0;
}

void
pgmap_recount(const struct pgmap *m, struct pgmap *out)
{
	size_t i;
	uint32_t s;

	pgmap_init(out);
	out->version = m->version;
	out->stamp = m->stamp;
	out->npools = m->npools;
	out->pools = xcalloc(m->npools ? m->npools : 1, sizeof *out->pools);
	for (i = 0; i < m->npools; i++) {
		out->pools[i].id = m->pools[i].id;
		out->pools[i].pg_num = m->pools[i].pg_num;
		for (s = 0; s < m->pools[i].pg_num; s++)
			pgmap_figures_apply(out, &out->pools[i],
			    &m->pools[i].pgs[s], 1);
	}
}

static int
pgmap_sums_equal(const struct pgmap_sums *a, const struct pgmap_sums *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

int
pgmap_figures_equal(const struct pgmap *a, const struct pgmap *b, char *why,
    size_t whylen)
{
	size_t i;
	uint32_t k, n;

	if (!pgmap_sums_equal(&a->sums, &b->sums)) {
		snprintf(why, whylen, "cluster sums differ (pgs %llu vs %llu, "
		    "objects %llu vs %llu, bytes %llu vs %llu)",
		    (unsigned long long)a->sums.num_pgs,
		    (unsigned long long)b->sums.num_pgs,
		    (unsigned long long)a->sums.num_objects,
		    (unsigned long long)b->sums.num_objects,
		    (unsigned long long)a->sums.num_bytes,
		    (unsigned long long)b->sums.num_bytes);
		return 0;
	}
	if (a->npools != b->npools) {
		snprintf(why, whylen, "%zu pools vs %zu", a->npools, b->npools);
		return 0;
	}
	for (i = 0; i < a->npools; i++) {
		if (a->pools[i].id != b->pools[i].id ||
		    !pgmap_sums_equal(&a->pools[i].sums, &b->pools[i].sums)) {
			snprintf(why, whylen, "sums of pool %u differ",
			    a->pools[i].id);
			return 0;
		}
	}
	if (a->nstates != b->nstates) {
		snprintf(why, whylen, "%zu distinct states vs %zu", a->nstates,
		    b->nstates);
		return 0;
	}
	for (i = 0; i < a->nstates; i++) {
		if (pgmap_state_count(b, a->states[i].state) !=
		    a->states[i].count) {
			snprintf(why, whylen, "count of state 0x%x differs",
			    a->states[i].state);
			return 0;
		}
	}
	n = a->nosds > b->nosds ? a->nosds : b->nosds;
	for (k = 0; k < n; k++) {
		struct pgmap_osd_count ca = { 0, 0 }, cb = { 0, 0 };

		if (k < a->nosds)
			ca = a->osd[k];
		if (k < b->nosds)
			cb = b->osd[k];
		if (ca.pgs != cb.pgs || ca.primary != cb.primary) {
			snprintf(why, whylen, "PG counts of osd.%u differ "
			    "(%u/%u vs %u/%u)", k, ca.pgs, ca.primary, cb.pgs,
			    cb.primary);
			return 0;
		}
	}
	return 1;
}
