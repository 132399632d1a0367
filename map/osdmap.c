/* osdmap.c: the OSD map, its incrementals, and their encodings. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "map/osdmap.h"
#include "map/placement.h"

#define OSDMAP_INC_STRUCT_V OSDMAP_STRUCT_V

/* Ceph's flag words, in the order Ceph writes them (pause is its pair). */
static const struct {
	uint32_t bit;
	const char *name;
} osdmap_flag_names[] = {
	{ OSDMAP_FLAG_PAUSE, "pauserd,pausewr" },
	{ OSDMAP_FLAG_NOUP, "noup" },
	{ OSDMAP_FLAG_NODOWN, "nodown" },
	{ OSDMAP_FLAG_NOOUT, "noout" },
	{ OSDMAP_FLAG_NOIN, "noin" },
};

/* The same one word each, sorted, as Ceph's "flags_set" lists them. */
static const struct {
	uint32_t bit;
	const char *name;
} osdmap_flag_words[] = {
	{ OSDMAP_FLAG_NODOWN, "nodown" },
	{ OSDMAP_FLAG_NOIN, "noin" },
	{ OSDMAP_FLAG_NOOUT, "noout" },
	{ OSDMAP_FLAG_NOUP, "noup" },
	{ OSDMAP_FLAG_PAUSE, "pause" },
	{ OSDMAP_FLAG_PAUSE, "pauserd" },
	{ OSDMAP_FLAG_PAUSE, "pausewr" },
};

void
osdmap_init(struct osdmap *m)
{
	memset(m, 0, sizeof *m);
	m->crush_version = 1;
	m->full_ratio = OSDMAP_FULL_RATIO;
	m->backfillfull_ratio = OSDMAP_BACKFILLFULL_RATIO;
	m->nearfull_ratio = OSDMAP_NEARFULL_RATIO;
}

/* A ratio a map may hold: a number from 0 to 1. */
static int
osdmap_ratio_ok(double r)
{
	return r >= 0.0 && r <= 1.0;
}

/* A pool's pgp_num is one of its PG counts: 1 .. pg_num. */
static int
osdmap_pgp_num_ok(const struct osdmap_pool *p)
{
	return p->pgp_num >= 1 && p->pgp_num <= p->pg_num;
}

/* A ratio an incremental may carry: negative (unchanged) or a ratio. */
static int
osdmap_new_ratio_ok(double r)
{
	return r < 0.0 || osdmap_ratio_ok(r);
}

void
osdmap_clear(struct osdmap *m)
{
	free(m->osds);
	free(m->pools);
	crush_free(m->crush);
	osdmap_init(m);
}

void
osdmap_copy(struct osdmap *dst, const struct osdmap *src)
{
	osdmap_clear(dst);
	*dst = *src;
	dst->osds = NULL;
	dst->pools = NULL;
	/* Shared: a hierarchy never changes in place (osdmap_set_crush()). */
	if (src->crush != NULL)
		dst->crush = crush_hold(src->crush);
	if (src->max_osd > 0) {
		dst->osds = xreallocarray(NULL, src->max_osd, sizeof *dst->osds);
		memcpy(dst->osds, src->osds, src->max_osd * sizeof *dst->osds);
	}
	if (src->npools > 0) {
		dst->pools = xreallocarray(NULL, src->npools, sizeof *dst->pools);
		memcpy(dst->pools, src->pools, src->npools * sizeof *dst->pools);
	}
}

const struct osdmap_osd *
osdmap_osd(const struct osdmap *m, int32_t id)
{
	if (id < 0 || (uint32_t)id >= m->max_osd || !m->osds[id].exists)
		return NULL;
	return &m->osds[id];
}

OSDMAP_POOL_INDEXABLE(struct osdmap_pool);

static uint32_t
osdmap_pool_id_at(const char *base, size_t i, size_t elsize)
{
	return *(const uint32_t *)(const void *)(base + i * elsize);
}

size_t
osdmap_pool_index(const void *pools, size_t n, size_t elsize, uint32_t id,
    int *found)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (osdmap_pool_id_at(pools, mid, elsize) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && osdmap_pool_id_at(pools, lo, elsize) == id;
	return lo;
}

const struct osdmap_pool *
osdmap_pool(const struct osdmap *m, uint32_t id)
{
	int found;
	size_t i = osdmap_pool_index(m->pools, m->npools, sizeof *m->pools,
	    id, &found);

	return found ? &m->pools[i] : NULL;
}

const struct osdmap_pool *
osdmap_pool_by_name(const struct osdmap *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->npools; i++)
		if (strcmp(m->pools[i].name, name) == 0)
			return &m->pools[i];
	return NULL;
}

int32_t
osdmap_free_osd_id(const struct osdmap *m)
{
	uint32_t i;

	for (i = 0; i < m->max_osd; i++)
		if (!m->osds[i].exists)
			return (int32_t)i;
	return (int32_t)m->max_osd;
}

void
osdmap_counts(const struct osdmap *m, unsigned *num, unsigned *up,
    unsigned *in, unsigned *up_in)
{
	unsigned n = 0, u = 0, i = 0, ui = 0;
	uint32_t k;

	for (k = 0; k < m->max_osd; k++) {
		const struct osdmap_osd *o = &m->osds[k];

		if (!o->exists)
			continue;
		n++;
		u += o->up;
		i += o->in;
		ui += o->up && o->in;
	}
	if (num)
		*num = n;
	if (up)
		*up = u;
	if (in)
		*in = i;
	if (up_in)
		*up_in = ui;
}

const char *
osdmap_flags_format(uint32_t flags, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < nitems(osdmap_flag_names); i++) {
		if (!(flags & osdmap_flag_names[i].bit))
			continue;
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0,
		    "%s%s", off ? "," : "", osdmap_flag_names[i].name);
	}
	return buf;
}

uint32_t
osdmap_flag_parse(const char *name)
{
	size_t i;

	for (i = 0; i < nitems(osdmap_flag_words); i++)
		if (strcmp(name, osdmap_flag_words[i].name) == 0)
			return osdmap_flag_words[i].bit;
	return 0;
}

json_t *
osdmap_flags_json(uint32_t flags)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < nitems(osdmap_flag_words); i++)
		if ((flags & osdmap_flag_words[i].bit) &&
		    strcmp(osdmap_flag_words[i].name, "pause") != 0)
			json_array_append_new(a,
			    json_string(osdmap_flag_words[i].name));
	return a;
}

/* Parse a flags string as osdmap_flags_format() writes it. */
static int
osdmap_flags_parse(const char *s, uint32_t *flags)
{
	char *copy, *tok, *save = NULL;
	uint32_t f, bit;

	f = 0;
	copy = xstrdup(s);
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((bit = osdmap_flag_parse(tok)) == 0) {
			free(copy);
			return -1;
		}
		f |= bit;
	}
	free(copy);
	*flags = f;
	return 0;
}

double
osdmap_weight_to_double(uint32_t w)
{
	return (double)w / OSDMAP_WEIGHT_ONE;
}

uint32_t
osdmap_weight_from_double(double d)
{
	if (!(d > 0))
		return 0;
	if (d > 65535.0)
		d = 65535.0;
	return (uint32_t)lround(d * OSDMAP_WEIGHT_ONE);
}

void
osdmap_inc_init(struct osdmap_inc *inc, uint32_t epoch)
{
	memset(inc, 0, sizeof *inc);
	inc->epoch = epoch;
	inc->new_flags = -1;
	inc->new_full_ratio = -1;
	inc->new_backfillfull_ratio = -1;
	inc->new_nearfull_ratio = -1;
}

void
osdmap_inc_clear(struct osdmap_inc *inc)
{
	crush_free(inc->new_crush);
	free(inc->osds);
	free(inc->removed_osds);
	free(inc->pools);
	free(inc->removed_pools);
	osdmap_inc_init(inc, 0);
}

void
osdmap_inc_set_osd(struct osdmap_inc *inc, const struct osdmap_osd *o)
{
	size_t i;

	for (i = 0; i < inc->nremoved_osds; i++)
		if (inc->removed_osds[i] == o->id)
			inc->removed_osds[i] =
			    inc->removed_osds[--inc->nremoved_osds];
	for (i = 0; i < inc->nosds; i++)
		if (inc->osds[i].id == o->id) {
			inc->osds[i] = *o;
			return;
		}
	inc->osds = xreallocarray(inc->osds, inc->nosds + 1, sizeof *inc->osds);
	inc->osds[inc->nosds++] = *o;
}

void
osdmap_inc_set_pool(struct osdmap_inc *inc, const struct osdmap_pool *p)
{
	size_t i;

	for (i = 0; i < inc->npools; i++)
		if (inc->pools[i].id == p->id) {
			inc->pools[i] = *p;
			return;
		}
	inc->pools = xreallocarray(inc->pools, inc->npools + 1,
	    sizeof *inc->pools);
	inc->pools[inc->npools++] = *p;
}

void
osdmap_inc_remove_osd(struct osdmap_inc *inc, int32_t id)
{
	size_t i;

	for (i = 0; i < inc->nosds; i++)
		if (inc->osds[i].id == id)
			inc->osds[i--] = inc->osds[--inc->nosds];
	inc->removed_osds = xreallocarray(inc->removed_osds,
	    inc->nremoved_osds + 1, sizeof *inc->removed_osds);
	inc->removed_osds[inc->nremoved_osds++] = id;
}

void
osdmap_inc_remove_pool(struct osdmap_inc *inc, uint32_t id)
{
	size_t i;

	for (i = 0; i < inc->npools; i++)
		if (inc->pools[i].id == id)
			inc->pools[i--] = inc->pools[--inc->npools];
	inc->removed_pools = xreallocarray(inc->removed_pools,
	    inc->nremoved_pools + 1, sizeof *inc->removed_pools);
	inc->removed_pools[inc->nremoved_pools++] = id;
}

void
osdmap_inc_set_crush(struct osdmap_inc *inc, const struct crush *c)
{
	crush_free(inc->new_crush);
	inc->new_crush = c != NULL ? crush_hold(c) : NULL;
}

void
osdmap_set_crush(struct osdmap *m, struct crush *c)
{
	crush_free(m->crush);
	m->crush = c;
}

static void
osdmap_grow_osds(struct osdmap *m, uint32_t max_osd)
{
	uint32_t i;

	if (max_osd <= m->max_osd)
		return;
	m->osds = xreallocarray(m->osds, max_osd, sizeof *m->osds);
	for (i = m->max_osd; i < max_osd; i++) {
		memset(&m->osds[i], 0, sizeof m->osds[i]);
		m->osds[i].id = (int32_t)i;
	}
	m->max_osd = max_osd;
}

void
osdmap_set_pool(struct osdmap *m, const struct osdmap_pool *p)
{
	int found;
	size_t i = osdmap_pool_index(m->pools, m->npools, sizeof *m->pools,
	    p->id, &found);

	if (found) {
		m->pools[i] = *p;
		return;
	}
	m->pools = xreallocarray(m->pools, m->npools + 1, sizeof *m->pools);
	memmove(&m->pools[i + 1], &m->pools[i],
	    (m->npools - i) * sizeof *m->pools);
	m->pools[i] = *p;
	m->npools++;
}

void
osdmap_remove_pool(struct osdmap *m, uint32_t id)
{
	int found;
	size_t i = osdmap_pool_index(m->pools, m->npools, sizeof *m->pools,
	    id, &found);

	if (!found)
		return;
	memmove(&m->pools[i], &m->pools[i + 1],
	    (m->npools - i - 1) * sizeof *m->pools);
	m->npools--;
}

void
osdmap_set_osd(struct osdmap *m, const struct osdmap_osd *o)
{
	if (o->id < 0 || o->id >= OSDMAP_MAX_OSD)
		return;
	osdmap_grow_osds(m, (uint32_t)o->id + 1);
	m->osds[o->id] = *o;
	m->osds[o->id].exists = 1;
}

void
osdmap_remove_osd(struct osdmap *m, int32_t id)
{
	if (id < 0 || (uint32_t)id >= m->max_osd)
		return;
	memset(&m->osds[id], 0, sizeof m->osds[id]);
	m->osds[id].id = id;
	/* Trailing removed ids shrink the array, as max_osd would in Ceph. */
	while (m->max_osd > 0 && !m->osds[m->max_osd - 1].exists)
		m->max_osd--;
}

/* A pool's rule exists in hierarchy c (without one, only rule 0 does). */
static int
osdmap_rule_ok(const struct crush *c, uint32_t rule)
{
	struct crush_rule_info ri;

	return c != NULL ? crush_rule_get(c, rule, &ri) == 0 : rule == 0;
}

/*
 * Every pool of m after inc names a rule of the hierarchy it will have:
 * the pools inc changes, and all of them when inc brings a hierarchy.
 */
static int
osdmap_inc_rules_check(const struct osdmap *m, const struct osdmap_inc *inc,
    char **cause)
{
	const struct crush *c = inc->new_crush ? inc->new_crush : m->crush;
	const struct osdmap_pool *p;
	size_t i, k;

	for (i = 0; i < inc->npools; i++)
		if (!osdmap_rule_ok(c, inc->pools[i].crush_rule)) {
			p = &inc->pools[i];
			goto bad;
		}
	if (inc->new_crush == NULL)
		return 0;
	for (i = 0; i < m->npools; i++) {
		p = &m->pools[i];
		if (osdmap_rule_ok(c, p->crush_rule))
			continue;
		/* Fine when inc removes or replaces the pool. */
		for (k = 0; k < inc->nremoved_pools; k++)
			if (inc->removed_pools[k] == p->id)
				break;
		if (k < inc->nremoved_pools)
			continue;
		for (k = 0; k < inc->npools; k++)
			if (inc->pools[k].id == p->id)
				break;
		if (k == inc->npools)
			goto bad;
	}
	return 0;
bad:
	xasprintf(cause,
	    "incremental of epoch %u: pool %u names crush rule "
	    "%u, which the hierarchy does not have",
	    inc->epoch, p->id, p->crush_rule);
	return -1;
}

int
osdmap_apply(struct osdmap *m, const struct osdmap_inc *inc, char **cause)
{
	size_t i;

	if (inc->epoch != m->epoch + 1) {
		xasprintf(cause, "incremental of epoch %u does not follow "
		    "osdmap epoch %u", inc->epoch, m->epoch);
		return -1;
	}
	for (i = 0; i < inc->nosds; i++) {
		if (inc->osds[i].id < 0 || inc->osds[i].id >= OSDMAP_MAX_OSD) {
			xasprintf(cause, "incremental of epoch %u: osd id %d "
			    "out of range", inc->epoch, inc->osds[i].id);
			return -1;
		}
	}
	for (i = 0; i < inc->npools; i++) {
		if (inc->pools[i].size == 0 ||
		    inc->pools[i].size > OSDMAP_POOL_SIZE_MAX) {
			xasprintf(cause, "incremental of epoch %u: pool %u has "
			    "size %u", inc->epoch, inc->pools[i].id,
			    inc->pools[i].size);
			return -1;
		}
		if (!osdmap_pgp_num_ok(&inc->pools[i])) {
			xasprintf(cause,
			    "incremental of epoch %u: pool %u has "
			    "pgp_num %u for pg_num %u",
			    inc->epoch, inc->pools[i].id, inc->pools[i].pgp_num,
			    inc->pools[i].pg_num);
			return -1;
		}
	}
	if (!osdmap_new_ratio_ok(inc->new_full_ratio) ||
	    !osdmap_new_ratio_ok(inc->new_backfillfull_ratio) ||
	    !osdmap_new_ratio_ok(inc->new_nearfull_ratio)) {
		xasprintf(cause,
		    "incremental of epoch %u: a full ratio is "
		    "not from 0 to 1",
		    inc->epoch);
		return -1;
	}
	if (osdmap_inc_rules_check(m, inc, cause) == -1)
		return -1;

	m->epoch = inc->epoch;
	m->modified = inc->modified;
	if (inc->new_flags != -1)
		m->flags = (uint32_t)inc->new_flags & OSDMAP_FLAGS_ALL;
	if (inc->new_pool_max > m->pool_max)
		m->pool_max = inc->new_pool_max;
	if (inc->new_full_ratio >= 0)
		m->full_ratio = inc->new_full_ratio;
	if (inc->new_backfillfull_ratio >= 0)
		m->backfillfull_ratio = inc->new_backfillfull_ratio;
	if (inc->new_nearfull_ratio >= 0)
		m->nearfull_ratio = inc->new_nearfull_ratio;
	if (inc->new_crush != NULL) {
		osdmap_set_crush(m, crush_hold(inc->new_crush));
		m->crush_version++;
	}
	for (i = 0; i < inc->nremoved_osds; i++)
		osdmap_remove_osd(m, inc->removed_osds[i]);
	for (i = 0; i < inc->nosds; i++)
		osdmap_set_osd(m, &inc->osds[i]);
	for (i = 0; i < inc->nremoved_pools; i++)
		osdmap_remove_pool(m, inc->removed_pools[i]);
	for (i = 0; i < inc->npools; i++) {
		osdmap_set_pool(m, &inc->pools[i]);
		if (inc->pools[i].id > m->pool_max)
			m->pool_max = inc->pools[i].id;
	}
	return 0;
}

static int
osdmap_osd_placement_differs(const struct osdmap_osd *a,
    const struct osdmap_osd *b)
{
	return a->exists != b->exists || a->up != b->up || a->in != b->in ||
	    a->weight != b->weight || a->reweight != b->reweight;
}

int
osdmap_inc_moves_pgs(const struct osdmap *before, const struct osdmap_inc *inc)
{
	struct osdmap_osd none;
	const struct osdmap_osd *o;
	const struct osdmap_pool *p;
	size_t i;

	if (inc->nremoved_osds > 0)
		return 1;
	if (inc->new_crush != NULL &&
	    (before->crush == NULL ||
		!crush_equal(before->crush, inc->new_crush)))
		return 1;
	memset(&none, 0, sizeof none);
	for (i = 0; i < inc->nosds; i++) {
		struct osdmap_osd n = inc->osds[i];

		n.exists = 1;
		if ((o = osdmap_osd(before, n.id)) == NULL)
			o = &none;
		if (osdmap_osd_placement_differs(o, &n))
			return 1;
	}
	for (i = 0; i < inc->npools; i++) {
		p = osdmap_pool(before, inc->pools[i].id);
		if (p != NULL &&
		    (p->size != inc->pools[i].size ||
			p->crush_rule != inc->pools[i].crush_rule))
			return 1;
	}
	return 0;
}

int
osdmap_inc_changes_placement(const struct osdmap *before,
    const struct osdmap_inc *inc)
{
	const struct osdmap_pool *p;
	size_t i;

	if (inc->nremoved_pools > 0 || osdmap_inc_moves_pgs(before, inc))
		return 1;
	for (i = 0; i < inc->npools; i++) {
		p = osdmap_pool(before, inc->pools[i].id);
		if (p == NULL || p->pg_num != inc->pools[i].pg_num)
			return 1;
	}
	return 0;
}

/* Binary encodings. */

/* A double as the 64 bits of its IEEE 754 form: exact both ways. */
static void
osdmap_put_double(struct enc_buf *b, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof v);
	enc_buf_put_u64(b, v);
}

static double
osdmap_get_double(struct enc_reader *r)
{
	uint64_t v = enc_get_u64(r);
	double d;

	memcpy(&d, &v, sizeof d);
	return d;
}

static void
osdmap_osd_encode(const struct osdmap_osd *o, struct enc_buf *b)
{
	enc_buf_put_u32(b, (uint32_t)o->id);
	enc_buf_put_u8(b, o->up);
	enc_buf_put_u8(b, o->in);
	enc_buf_put_u32(b, o->weight);
	enc_buf_put_u32(b, o->reweight);
	enc_buf_put_str(b, o->addr);
	enc_buf_put_u32(b, o->up_from);
	enc_buf_put_u32(b, o->down_at);
	enc_buf_put_u64(b, (uint64_t)o->down_stamp);
}

static int
osdmap_osd_decode(struct enc_reader *r, struct osdmap_osd *o)
{
	char *addr;

	memset(o, 0, sizeof *o);
	o->id = (int32_t)enc_get_u32(r);
	o->exists = 1;
	o->up = enc_get_u8(r) != 0;
	o->in = enc_get_u8(r) != 0;
	o->weight = enc_get_u32(r);
	o->reweight = enc_get_u32(r);
	if ((addr = enc_get_str(r)) != NULL) {
		snprintf(o->addr, sizeof o->addr, "%s", addr);
		free(addr);
	}
	o->up_from = enc_get_u32(r);
	o->down_at = enc_get_u32(r);
	o->down_stamp = (int64_t)enc_get_u64(r);
	if (r->failed || o->id < 0 || o->id >= OSDMAP_MAX_OSD ||
	    o->reweight > OSDMAP_WEIGHT_ONE)
		return -1;
	return 0;
}

static void
osdmap_pool_encode(const struct osdmap_pool *p, struct enc_buf *b)
{
	enc_buf_put_u32(b, p->id);
	enc_buf_put_str(b, p->name);
	enc_buf_put_u32(b, p->size);
	enc_buf_put_u32(b, p->min_size);
	enc_buf_put_u32(b, p->pg_num);
	enc_buf_put_u32(b, p->created_epoch);
}

static int
osdmap_pool_decode(struct enc_reader *r, struct osdmap_pool *p)
{
	char *name;

	memset(p, 0, sizeof *p);
	p->id = enc_get_u32(r);
	if ((name = enc_get_str(r)) != NULL) {
		if (strlen(name) >= sizeof p->name)
			r->failed = 1;
		snprintf(p->name, sizeof p->name, "%s", name);
		free(name);
	}
	p->size = enc_get_u32(r);
	p->min_size = enc_get_u32(r);
	p->pg_num = enc_get_u32(r);
	p->created_epoch = enc_get_u32(r);
	p->pgp_num = p->pg_num; /* version 3 appends the real one */
	if (r->failed || p->size == 0 || p->size > OSDMAP_POOL_SIZE_MAX ||
	    p->min_size > p->size || p->pg_num == 0 ||
	    p->pg_num > OSDMAP_PG_NUM_MAX)
		return -1;
	return 0;
}

/*
 * Version 3: the pools' pgp_num, appended as (pool id, pgp_num) pairs so
 * that a reader of version 2 still reads the record, skipping them.
 */
static void
osdmap_pgp_encode(const struct osdmap_pool *pools, size_t n, struct enc_buf *b)
{
	size_t i;

	enc_buf_put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		enc_buf_put_u32(b, pools[i].id);
		enc_buf_put_u32(b, pools[i].pgp_num);
	}
}

/*
 * Read the pairs into pools[0..n) (each pool named once, each pgp_num
 * from 1 to its pg_num); 0, or -1 with r failed.
 */
static int
osdmap_pgp_decode(struct enc_reader *r, struct osdmap_pool *pools, size_t n)
{
	uint32_t count, id, pgp, k;
	size_t i;

	count = enc_get_u32(r);
	if (r->failed || count != n)
		goto bad;
	for (k = 0; k < count; k++) {
		id = enc_get_u32(r);
		pgp = enc_get_u32(r);
		for (i = 0; i < n && pools[i].id != id; i++)
			;
		if (r->failed || i == n || pgp < 1 || pgp > pools[i].pg_num)
			goto bad;
		pools[i].pgp_num = pgp;
	}
	return 0;
bad:
	r->failed = 1;
	return -1;
}

/*
 * Version 4: the hierarchy (u8 1 and crush_encode()'s record, or u8 0 for
 * none), then the pools' rules as (pool id, rule) pairs.
 */
static void
osdmap_v4_encode(const struct crush *c, const struct osdmap_pool *pools,
    size_t n, struct enc_buf *b)
{
	size_t i;

	enc_buf_put_u8(b, c != NULL);
	if (c != NULL)
		crush_encode(c, b);
	enc_buf_put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		enc_buf_put_u32(b, pools[i].id);
		enc_buf_put_u32(b, pools[i].crush_rule);
	}
}

/*
 * Read what osdmap_v4_encode() wrote: *c gets the hierarchy or NULL, the
 * pools [0, n) their rules (each pool named once; with check, each a rule
 * of *c).  0, or -1 with r failed (*c NULL); *cause (NULL before) gets a
 * corrupt hierarchy's reason.
 */
static int
osdmap_v4_decode(struct enc_reader *r, struct crush **c,
    struct osdmap_pool *pools, size_t n, int check, char **cause)
{
	const uint8_t *p;
	uint32_t count, id, k, len;
	size_t i;
	char *why = NULL;

	*c = NULL;
	if (enc_get_u8(r) != 0) {
		/* The record's header: versions, then the body's length. */
		if (r->failed || r->left < 6)
			goto bad;
		len = enc_get_be32(r->p + 2);
		if (len > r->left - 6 ||
		    (p = enc_reader_take(r, 6 + (size_t)len)) == NULL)
			goto bad;
		if ((*c = crush_decode(p, 6 + (size_t)len, &why)) == NULL) {
			xasprintf(cause, "osdmap: %s", why);
			free(why);
			goto bad;
		}
	}
	count = enc_get_u32(r);
	if (r->failed || count != n)
		goto bad;
	for (k = 0; k < count; k++) {
		id = enc_get_u32(r);
		for (i = 0; i < n && pools[i].id != id; i++)
			;
		if (r->failed || i == n)
			goto bad;
		pools[i].crush_rule = enc_get_u32(r);
		if (check && !osdmap_rule_ok(*c, pools[i].crush_rule))
			goto bad;
	}
	return 0;
bad:
	crush_free(*c);
	*c = NULL;
	r->failed = 1;
	return -1;
}

/*
 * Version 5: the pools' applications, as (pool id, count, names) for each
 * pool.
 */
static void
osdmap_apps_encode(const struct osdmap_pool *pools, size_t n, struct enc_buf *b)
{
	size_t i, k;

	enc_buf_put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		enc_buf_put_u32(b, pools[i].id);
		for (k = 0; k < OSDMAP_POOL_APPS_MAX && pools[i].apps[k][0];
		     k++)
			;
		enc_buf_put_u8(b, (uint8_t)k);
		for (k = 0; k < OSDMAP_POOL_APPS_MAX && pools[i].apps[k][0];
		     k++)
			enc_buf_put_str(b, pools[i].apps[k]);
	}
}

/*
 * Read them into pools[0..n) (each pool named once; at most
 * OSDMAP_POOL_APPS_MAX names, each 1 to OSDMAP_POOL_APP_LEN bytes, in
 * order); 0, or -1 with r failed.
 */
static int
osdmap_apps_decode(struct enc_reader *r, struct osdmap_pool *pools, size_t n)
{
	uint32_t count, id, k;
	unsigned napps, a;
	size_t i;
	char *name;

	count = enc_get_u32(r);
	if (r->failed || count != n)
		goto bad;
	for (k = 0; k < count; k++) {
		id = enc_get_u32(r);
		for (i = 0; i < n && pools[i].id != id; i++)
			;
		napps = enc_get_u8(r);
		if (r->failed || i == n || napps > OSDMAP_POOL_APPS_MAX)
			goto bad;
		memset(pools[i].apps, 0, sizeof pools[i].apps);
		for (a = 0; a < napps; a++) {
			if ((name = enc_get_str(r)) == NULL)
				goto bad;
			if (*name == '\0' ||
			    strlen(name) > OSDMAP_POOL_APP_LEN ||
			    (a > 0 &&
				strcmp(pools[i].apps[a - 1], name) >= 0)) {
				free(name);
				goto bad;
			}
			memcpy(pools[i].apps[a], name, strlen(name) + 1);
			free(name);
		}
	}
	return 0;
bad:
	r->failed = 1;
	return -1;
}

void
osdmap_encode(const struct osdmap *m, struct enc_buf *b)
{
	size_t start, i;
	uint32_t k, n = 0;

	start = enc_buf_record_begin(b, OSDMAP_STRUCT_V, 1);
	enc_buf_put_u32(b, m->epoch);
	enc_buf_put_u64(b, (uint64_t)m->created);
	enc_buf_put_u64(b, (uint64_t)m->modified);
	enc_buf_put_u32(b, m->flags);
	enc_buf_put_str(b, m->fsid);
	enc_buf_put_u32(b, m->pool_max);
	for (k = 0; k < m->max_osd; k++)
		n += m->osds[k].exists;
	enc_buf_put_u32(b, n);
	for (k = 0; k < m->max_osd; k++)
		if (m->osds[k].exists)
			osdmap_osd_encode(&m->osds[k], b);
	enc_buf_put_u32(b, (uint32_t)m->npools);
	for (i = 0; i < m->npools; i++)
		osdmap_pool_encode(&m->pools[i], b);
	/* Version 2. */
	osdmap_put_double(b, m->full_ratio);
	osdmap_put_double(b, m->backfillfull_ratio);
	osdmap_put_double(b, m->nearfull_ratio);
	/* Version 3. */
	osdmap_pgp_encode(m->pools, m->npools, b);
	/* Version 4. */
	osdmap_v4_encode(m->crush, m->pools, m->npools, b);
	/* Version 5. */
	enc_buf_put_u32(b, m->crush_version);
	osdmap_apps_encode(m->pools, m->npools, b);
	enc_buf_record_end(b, start);
}

int
osdmap_decode(const void *p, size_t len, struct osdmap *m, char **cause)
{
	struct enc_reader r, body;
	struct osdmap_osd o;
	struct osdmap_pool pool;
	const char *why;
	char *fsid, *why4 = NULL;
	uint32_t i, n;
	int v;

	osdmap_clear(m);
	enc_reader_init(&r, p, len);
	if ((v = enc_reader_record(&r, OSDMAP_STRUCT_V, &body, &why)) == -1) {
		xasprintf(cause, "osdmap: %s", why);
		return -1;
	}
	m->struct_v = (uint8_t)v;
	m->epoch = enc_get_u32(&body);
	m->created = (int64_t)enc_get_u64(&body);
	m->modified = (int64_t)enc_get_u64(&body);
	m->flags = enc_get_u32(&body) & OSDMAP_FLAGS_ALL;
	if ((fsid = enc_get_str(&body)) != NULL) {
		snprintf(m->fsid, sizeof m->fsid, "%s", fsid);
		free(fsid);
	}
	m->pool_max = enc_get_u32(&body);
	n = enc_get_u32(&body);
	if (body.failed || n > OSDMAP_MAX_OSD)
		goto bad;
	for (i = 0; i < n; i++) {
		if (osdmap_osd_decode(&body, &o) == -1)
			goto bad;
		osdmap_grow_osds(m, (uint32_t)o.id + 1);
		m->osds[o.id] = o;
	}
	n = enc_get_u32(&body);
	if (body.failed || n > body.left)
		goto bad;
	for (i = 0; i < n; i++) {
		if (osdmap_pool_decode(&body, &pool) == -1)
			goto bad;
		osdmap_set_pool(m, &pool);
	}
	if (v >= 2) {
		m->full_ratio = osdmap_get_double(&body);
		m->backfillfull_ratio = osdmap_get_double(&body);
		m->nearfull_ratio = osdmap_get_double(&body);
		if (!osdmap_ratio_ok(m->full_ratio) ||
		    !osdmap_ratio_ok(m->backfillfull_ratio) ||
		    !osdmap_ratio_ok(m->nearfull_ratio))
			goto bad;
	}
	if (v >= 3 && osdmap_pgp_decode(&body, m->pools, m->npools) == -1)
		goto bad;
	if (v >= 4 &&
	    osdmap_v4_decode(&body, &m->crush, m->pools, m->npools, 1, &why4) ==
		-1) {
		if (why4 != NULL) {
			osdmap_clear(m);
			*cause = why4;
			return -1;
		}
		goto bad;
	}
	if (v >= 5) {
		m->crush_version = enc_get_u32(&body);
		if (osdmap_apps_decode(&body, m->pools, m->npools) == -1)
			goto bad;
	}
	if (!enc_reader_body_ok(&body) || r.left != 0)
		goto bad;
	return 0;
bad:
	xasprintf(cause, "osdmap: corrupt record (short or invalid field "
	    "near byte %zu of %zu)", len - r.left - body.left, len);
	osdmap_clear(m);
	return -1;
}

void
osdmap_inc_encode(const struct osdmap_inc *inc, struct enc_buf *b)
{
	size_t start, i;

	start = enc_buf_record_begin(b, OSDMAP_INC_STRUCT_V, 1);
	enc_buf_put_u32(b, inc->epoch);
	enc_buf_put_u64(b, (uint64_t)inc->modified);
	enc_buf_put_u64(b, (uint64_t)inc->new_flags);
	enc_buf_put_u32(b, inc->new_pool_max);
	enc_buf_put_u32(b, (uint32_t)inc->nosds);
	for (i = 0; i < inc->nosds; i++)
		osdmap_osd_encode(&inc->osds[i], b);
	enc_buf_put_u32(b, (uint32_t)inc->nremoved_osds);
	for (i = 0; i < inc->nremoved_osds; i++)
		enc_buf_put_u32(b, (uint32_t)inc->removed_osds[i]);
	enc_buf_put_u32(b, (uint32_t)inc->npools);
	for (i = 0; i < inc->npools; i++)
		osdmap_pool_encode(&inc->pools[i], b);
	enc_buf_put_u32(b, (uint32_t)inc->nremoved_pools);
	for (i = 0; i < inc->nremoved_pools; i++)
		enc_buf_put_u32(b, inc->removed_pools[i]);
	/* Version 2. */
	osdmap_put_double(b, inc->new_full_ratio);
	osdmap_put_double(b, inc->new_backfillfull_ratio);
	osdmap_put_double(b, inc->new_nearfull_ratio);
	/* Version 3. */
	osdmap_pgp_encode(inc->pools, inc->npools, b);
	/* Version 4. */
	osdmap_v4_encode(inc->new_crush, inc->pools, inc->npools, b);
	/* Version 5. */
	osdmap_apps_encode(inc->pools, inc->npools, b);
	enc_buf_record_end(b, start);
}

int
osdmap_inc_decode(const void *p, size_t len, struct osdmap_inc *inc,
    char **cause)
{
	struct enc_reader r, body;
	struct osdmap_osd o;
	struct osdmap_pool pool;
	const char *why;
	char *why4 = NULL;
	uint32_t i, n;
	int64_t flags;
	int v;

	osdmap_inc_init(inc, 0);
	enc_reader_init(&r, p, len);
	if ((v = enc_reader_record(&r, OSDMAP_INC_STRUCT_V, &body, &why)) ==
	    -1) {
		xasprintf(cause, "osdmap incremental: %s", why);
		return -1;
	}
	inc->epoch = enc_get_u32(&body);
	inc->modified = (int64_t)enc_get_u64(&body);
	flags = (int64_t)enc_get_u64(&body);
	inc->new_flags = flags < 0 ? -1 : flags & OSDMAP_FLAGS_ALL;
	inc->new_pool_max = enc_get_u32(&body);
	n = enc_get_u32(&body);
	if (body.failed || n > OSDMAP_MAX_OSD)
		goto bad;
	for (i = 0; i < n; i++) {
		if (osdmap_osd_decode(&body, &o) == -1)
			goto bad;
		osdmap_inc_set_osd(inc, &o);
	}
	n = enc_get_u32(&body);
	if (body.failed || n > body.left / 4)
		goto bad;
	for (i = 0; i < n; i++)
		osdmap_inc_remove_osd(inc, (int32_t)enc_get_u32(&body));
	n = enc_get_u32(&body);
	if (body.failed || n > body.left)
		goto bad;
	for (i = 0; i < n; i++) {
		if (osdmap_pool_decode(&body, &pool) == -1)
			goto bad;
		osdmap_inc_set_pool(inc, &pool);
	}
	n = enc_get_u32(&body);
	if (body.failed || n > body.left / 4)
		goto bad;
	for (i = 0; i < n; i++)
		osdmap_inc_remove_pool(inc, enc_get_u32(&body));
	if (v >= 2) {
		inc->new_full_ratio = osdmap_get_double(&body);
		inc->new_backfillfull_ratio = osdmap_get_double(&body);
		inc->new_nearfull_ratio = osdmap_get_double(&body);
		if (!osdmap_new_ratio_ok(inc->new_full_ratio) ||
		    !osdmap_new_ratio_ok(inc->new_backfillfull_ratio) ||
		    !osdmap_new_ratio_ok(inc->new_nearfull_ratio))
			goto bad;
	}
	if (v >= 3 && osdmap_pgp_decode(&body, inc->pools, inc->npools) == -1)
		goto bad;
	if (v >= 4) {
		struct crush *c;

		/* Rules are checked against the map by osdmap_apply(). */
		if (osdmap_v4_decode(&body, &c, inc->pools, inc->npools, 0,
			&why4) == -1 &&
		    why4 != NULL) {
			osdmap_inc_clear(inc);
			*cause = why4;
			return -1;
		}
		inc->new_crush = c;
	}
	if (v >= 5 && osdmap_apps_decode(&body, inc->pools, inc->npools) == -1)
		goto bad;
	if (!enc_reader_body_ok(&body) || r.left != 0)
		goto bad;
	return 0;
bad:
	xasprintf(cause, "osdmap incremental: corrupt record (short or invalid "
	    "field near byte %zu of %zu)", len - r.left - body.left, len);
	osdmap_inc_clear(inc);
	return -1;
}

/* JSON. */

/*
 * Ceph's words for an OSD's state: "exists", "up" while up, "new" until
 * its first boot (Ceph's CEPH_OSD_NEW).
 */
static json_t *
osdmap_osd_state_json(const struct osdmap_osd *o)
{
	json_t *a = json_pack("[s]", "exists");

	if (o->up)
		json_array_append_new(a, json_string("up"));
	else if (o->up_from == 0)
		json_array_append_new(a, json_string("new"));
	return a;
}

json_t *
osdmap_osd_to_json(const struct osdmap_osd *o)
{
	/* Ceph's weight is the in/out weight: 0 once out. */
	return json_pack("{s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:s, s:I, s:I, "
			 "s:o}",
	    "osd", (json_int_t)o->id, "up", (json_int_t)o->up, "in",
	    (json_int_t)o->in, "weight",
	    o->in ? osdmap_weight_to_double(o->reweight) : 0.0, "reweight",
	    osdmap_weight_to_double(o->reweight), "primary_affinity", 1.0,
	    "crush_weight", osdmap_weight_to_double(o->weight), "public_addr",
	    o->addr, "up_from", (json_int_t)o->up_from, "down_at",
	    (json_int_t)o->down_at, "state", osdmap_osd_state_json(o));
}

json_t *
osdmap_pool_to_json(const struct osdmap_pool *p)
{
	json_t *apps = json_object();
	size_t k;

	/* Ceph's application_metadata: the apps, each with no keys here. */
	for (k = 0; k < OSDMAP_POOL_APPS_MAX && p->apps[k][0]; k++)
		json_object_set_new(apps, p->apps[k], json_object());
	/* type 1: Ceph's replicated pool. */
	return json_pack("{s:I, s:I, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:I, s:o}",
	    "pool", (json_int_t)p->id, "pool_id", (json_int_t)p->id,
	    "pool_name", p->name, "type", 1, "size", (json_int_t)p->size,
	    "min_size", (json_int_t)p->min_size, "crush_rule",
	    (json_int_t)p->crush_rule, "pg_num", (json_int_t)p->pg_num,
	    "pg_placement_num", (json_int_t)p->pgp_num, "pgp_num",
	    (json_int_t)p->pgp_num, "created_epoch",
	    (json_int_t)p->created_epoch, "application_metadata", apps);
}

/* `osd dump' but the full ratios, which osdmap_to_json() adds. */
static json_t *
osdmap_to_json_maps(const struct osdmap *m)
{
	json_t *osds, *pools, *o;
	char c[STAMP_BUFSIZE], mod[STAMP_BUFSIZE], flags[64];
	uint32_t k;
	size_t i;

	osds = json_array();
	for (k = 0; k < m->max_osd; k++)
		if (m->osds[k].exists)
			json_array_append_new(osds,
			    osdmap_osd_to_json(&m->osds[k]));
	pools = json_array();
	for (i = 0; i < m->npools; i++)
		json_array_append_new(pools, osdmap_pool_to_json(&m->pools[i]));
	o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:o, s:o}",
	    "epoch", (json_int_t)m->epoch, "fsid", m->fsid, "created",
	    stamp_format(m->created, c, sizeof c), "modified",
	    stamp_format(m->modified, mod, sizeof mod), "flags",
	    osdmap_flags_format(m->flags, flags, sizeof flags), "flags_set",
	    osdmap_flags_json(m->flags), "pool_max", (json_int_t)m->pool_max,
	    "max_osd", (json_int_t)m->max_osd, "pools", pools, "osds", osds);
	json_object_set_new(o, "crush_version",
	    json_integer((json_int_t)m->crush_version));
	return o;
}

json_t *
osdmap_to_json(const struct osdmap *m)
{
	json_t *o = osdmap_to_json_maps(m);

	json_object_set_new(o, "full_ratio", json_real(m->full_ratio));
	json_object_set_new(o, "backfillfull_ratio",
	    json_real(m->backfillfull_ratio));
	json_object_set_new(o, "nearfull_ratio", json_real(m->nearfull_ratio));
	if (m->crush != NULL)
		json_object_set_new(o, "crush", crush_to_json(m->crush));
	return o;
}

json_t *
osdmap_inc_to_json(const struct osdmap_inc *inc)
{
	json_t *o, *osds, *rosds, *pools, *rpools;
	char mod[STAMP_BUFSIZE], flags[64];
	size_t i;

	osds = json_array();
	for (i = 0; i < inc->nosds; i++)
		json_array_append_new(osds, osdmap_osd_to_json(&inc->osds[i]));
	rosds = json_array();
	for (i = 0; i < inc->nremoved_osds; i++)
		json_array_append_new(rosds,
		    json_integer(inc->removed_osds[i]));
	pools = json_array();
	for (i = 0; i < inc->npools; i++)
		json_array_append_new(pools,
		    osdmap_pool_to_json(&inc->pools[i]));
	rpools = json_array();
	for (i = 0; i < inc->nremoved_pools; i++)
		json_array_append_new(rpools,
		    json_integer(inc->removed_pools[i]));
	o = json_pack("{s:I, s:s, s:I, s:o, s:o, s:o, s:o}",
	    "epoch", (json_int_t)inc->epoch,
	    "modified", stamp_format(inc->modified, mod, sizeof mod),
	    "new_pool_max", (json_int_t)inc->new_pool_max,
	    "osds", osds, "removed_osds", rosds,
	    "pools", pools, "removed_pools", rpools);
	if (inc->new_flags != -1)
		json_object_set_new(o, "new_flags", json_string(
		    osdmap_flags_format((uint32_t)inc->new_flags, flags,
		    sizeof flags)));
	if (inc->new_full_ratio >= 0)
		json_object_set_new(o, "new_full_ratio",
		    json_real(inc->new_full_ratio));
	if (inc->new_backfillfull_ratio >= 0)
		json_object_set_new(o, "new_backfillfull_ratio",
		    json_real(inc->new_backfillfull_ratio));
	if (inc->new_nearfull_ratio >= 0)
		json_object_set_new(o, "new_nearfull_ratio",
		    json_real(inc->new_nearfull_ratio));
	if (inc->new_crush != NULL)
		json_object_set_new(o, "crush", crush_to_json(inc->new_crush));
	return o;
}

static int
osdmap_osd_from_json(json_t *j, struct osdmap_osd *o, char **cause)
{
	json_error_t err;
	json_int_t id, up, in, up_from, down_at;
	double weight, crush_weight, reweight = -1;
	const char *addr;

	if (json_unpack_ex(j, &err, 0,
		"{s:I, s:I, s:I, s:F, s?F, s:F, s:s, s:I, s:I}", "osd", &id,
		"up", &up, "in", &in, "weight", &weight, "reweight", &reweight,
		"crush_weight", &crush_weight, "public_addr", &addr, "up_from",
		&up_from, "down_at", &down_at) == -1) {
		xasprintf(cause, "osd: %s", err.text);
		return -1;
	}
	/* An older monitor's "weight" is the reweight itself. */
	if (reweight >= 0)
		weight = reweight;
	if (id < 0 || id >= OSDMAP_MAX_OSD || weight < 0 || weight > 1 ||
	    crush_weight < 0) {
		xasprintf(cause, "osd %lld: value out of range",
		    (long long)id);
		return -1;
	}
	memset(o, 0, sizeof *o);
	o->id = (int32_t)id;
	o->exists = 1;
	o->up = up != 0;
	o->in = in != 0;
	o->reweight = osdmap_weight_from_double(weight);
	o->weight = osdmap_weight_from_double(crush_weight);
	snprintf(o->addr, sizeof o->addr, "%s", addr);
	o->up_from = (uint32_t)up_from;
	o->down_at = (uint32_t)down_at;
	return 0;
}

static int
osdmap_app_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int
osdmap_pool_from_json(json_t *j, struct osdmap_pool *p, char **cause)
{
	json_t *apps, *v;
	const char *app;
	size_t k;
	json_error_t err;
	json_int_t id, size, min_size, pg_num, created, pgp_num = 0, rule = 0;
	const char *name;

	if (json_unpack_ex(j, &err, 0,
		"{s:I, s:s, s:I, s:I, s:I, s:I, s?I, s?I}", "pool", &id,
		"pool_name", &name, "size", &size, "min_size", &min_size,
		"pg_num", &pg_num, "created_epoch", &created, "pgp_num",
		&pgp_num, "crush_rule", &rule) == -1) {
		xasprintf(cause, "pool: %s", err.text);
		return -1;
	}
	/* An older monitor's pool has no pgp_num: it is pg_num. */
	if (pgp_num == 0)
		pgp_num = pg_num;
	if (id <= 0 || id > UINT32_MAX || size < 1 ||
	    size > OSDMAP_POOL_SIZE_MAX || min_size < 0 || min_size > size ||
	    pg_num < 1 || pg_num > OSDMAP_PG_NUM_MAX || pgp_num < 1 ||
	    pgp_num > pg_num || rule < 0 || rule >= CRUSH_MAX_RULES ||
	    strlen(name) >= OSDMAP_POOL_NAME_MAX) {
		xasprintf(cause, "pool %lld: value out of range",
		    (long long)id);
		return -1;
	}
	memset(p, 0, sizeof *p);
	/* An older monitor's pool has none; the names come sorted. */
	if ((apps = json_object_get(j, "application_metadata")) != NULL) {
		if (!json_is_object(apps) ||
		    json_object_size(apps) > OSDMAP_POOL_APPS_MAX) {
			xasprintf(cause, "pool %lld: bad application_metadata",
			    (long long)id);
			return -1;
		}
		k = 0;
		json_object_foreach(apps, app, v) {
			if (*app == '\0' || strlen(app) > OSDMAP_POOL_APP_LEN) {
				xasprintf(cause, "pool %lld: bad application",
				    (long long)id);
				return -1;
			}
			memcpy(p->apps[k++], app, strlen(app) + 1);
		}
		qsort(p->apps, k, sizeof p->apps[0], osdmap_app_cmp);
	}
	p->id = (uint32_t)id;
	snprintf(p->name, sizeof p->name, "%s", name);
	p->size = (uint32_t)size;
	p->min_size = (uint32_t)min_size;
	p->pg_num = (uint32_t)pg_num;
	p->pgp_num = (uint32_t)pgp_num;
	p->crush_rule = (uint32_t)rule;
	p->created_epoch = (uint32_t)created;
	return 0;
}

int
osdmap_from_json(json_t *j, struct osdmap *m, char **cause)
{
	json_error_t err;
	json_t *osds, *pools, *v;
	json_int_t epoch, pool_max;
	const char *fsid, *created, *modified, *flags;
	struct osdmap_osd o;
	struct osdmap_pool p;
	size_t i;

	osdmap_clear(m);
	if (json_unpack_ex(j, &err, 0,
	    "{s:I, s:s, s:s, s:s, s:s, s:I, s:o, s:o}",
	    "epoch", &epoch, "fsid", &fsid, "created", &created,
	    "modified", &modified, "flags", &flags, "pool_max", &pool_max,
	    "pools", &pools, "osds", &osds) == -1) {
		xasprintf(cause, "osdmap: %s", err.text);
		return -1;
	}
	/* An older monitor's map has no ratios: the defaults stay. */
	if (json_unpack_ex(j, &err, 0, "{s?F, s?F, s?F}", "full_ratio",
		&m->full_ratio, "backfillfull_ratio", &m->backfillfull_ratio,
		"nearfull_ratio", &m->nearfull_ratio) == -1) {
		xasprintf(cause, "osdmap: %s", err.text);
		return -1;
	}
	if (!json_is_array(pools) || !json_is_array(osds) || epoch < 0 ||
	    epoch > UINT32_MAX || stamp_parse(created, &m->created) == -1 ||
	    stamp_parse(modified, &m->modified) == -1 ||
	    osdmap_flags_parse(flags, &m->flags) == -1 ||
	    !osdmap_ratio_ok(m->full_ratio) ||
	    !osdmap_ratio_ok(m->backfillfull_ratio) ||
	    !osdmap_ratio_ok(m->nearfull_ratio)) {
		xasprintf(cause, "osdmap: malformed header fields");
		goto bad;
	}
	m->epoch = (uint32_t)epoch;
	m->pool_max = (uint32_t)pool_max;
	/* An older monitor's map has none: 1. */
	if ((v = json_object_get(j, "crush_version")) != NULL) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > UINT32_MAX) {
			xasprintf(cause, "osdmap: bad crush_version");
			goto bad;
		}
		m->crush_version = (uint32_t)json_integer_value(v);
	}
	snprintf(m->fsid, sizeof m->fsid, "%s", fsid);
	json_array_foreach(osds, i, v) {
		if (osdmap_osd_from_json(v, &o, cause) == -1)
			goto bad;
		osdmap_grow_osds(m, (uint32_t)o.id + 1);
		m->osds[o.id] = o;
	}
	if ((v = json_object_get(j, "crush")) != NULL &&
	    (m->crush = crush_from_json(v, cause)) == NULL)
		goto bad;
	json_array_foreach(pools, i, v) {
		if (osdmap_pool_from_json(v, &p, cause) == -1)
			goto bad;
		if (!osdmap_rule_ok(m->crush, p.crush_rule)) {
			xasprintf(cause, "pool %u: no crush rule %u", p.id,
			    p.crush_rule);
			goto bad;
		}
		osdmap_set_pool(m, &p);
	}
	return 0;
bad:
	osdmap_clear(m);
	return -1;
}

int
osdmap_inc_from_json(json_t *j, struct osdmap_inc *inc, char **cause)
{
	json_error_t err;
	json_t *osds, *rosds, *pools, *rpools, *v;
	json_int_t epoch, pool_max;
	const char *modified, *flags = NULL;
	struct osdmap_osd o;
	struct osdmap_pool p;
	uint32_t f;
	size_t i;

	osdmap_inc_init(inc, 0);
	if (json_unpack_ex(j, &err, 0,
	    "{s:I, s:s, s:I, s:o, s:o, s:o, s:o, s?:s}",
	    "epoch", &epoch, "modified", &modified, "new_pool_max", &pool_max,
	    "osds", &osds, "removed_osds", &rosds, "pools", &pools,
	    "removed_pools", &rpools, "new_flags", &flags) == -1) {
		xasprintf(cause, "osdmap incremental: %s", err.text);
		return -1;
	}
	if (json_unpack_ex(j, &err, 0, "{s?F, s?F, s?F}", "new_full_ratio",
		&inc->new_full_ratio, "new_backfillfull_ratio",
		&inc->new_backfillfull_ratio, "new_nearfull_ratio",
		&inc->new_nearfull_ratio) == -1) {
		xasprintf(cause, "osdmap incremental: %s", err.text);
		return -1;
	}
	if (!json_is_array(osds) || !json_is_array(rosds) ||
	    !json_is_array(pools) || !json_is_array(rpools) || epoch <= 0 ||
	    epoch > UINT32_MAX || stamp_parse(modified, &inc->modified) == -1 ||
	    (flags != NULL && osdmap_flags_parse(flags, &f) == -1) ||
	    !osdmap_new_ratio_ok(inc->new_full_ratio) ||
	    !osdmap_new_ratio_ok(inc->new_backfillfull_ratio) ||
	    !osdmap_new_ratio_ok(inc->new_nearfull_ratio)) {
		xasprintf(cause, "osdmap incremental: malformed fields");
		goto bad;
	}
	inc->epoch = (uint32_t)epoch;
	inc->new_pool_max = (uint32_t)pool_max;
	if (flags != NULL)
		inc->new_flags = f;
	json_array_foreach(osds, i, v) {
		if (osdmap_osd_from_json(v, &o, cause) == -1)
			goto bad;
		osdmap_inc_set_osd(inc, &o);
	}
	json_array_foreach(rosds, i, v) {
		if (!json_is_integer(v)) {
			xasprintf(cause, "osdmap incremental: removed_osds "
			    "holds a non-integer");
			goto bad;
		}
		osdmap_inc_remove_osd(inc, (int32_t)json_integer_value(v));
	}
	json_array_foreach(pools, i, v) {
		if (osdmap_pool_from_json(v, &p, cause) == -1)
			goto bad;
		osdmap_inc_set_pool(inc, &p);
	}
	json_array_foreach(rpools, i, v) {
		if (!json_is_integer(v)) {
			xasprintf(cause, "osdmap incremental: removed_pools "
			    "holds a non-integer");
			goto bad;
		}
		osdmap_inc_remove_pool(inc, (uint32_t)json_integer_value(v));
	}
	if ((v = json_object_get(j, "crush")) != NULL &&
	    (inc->new_crush = crush_from_json(v, cause)) == NULL)
		goto bad;
	return 0;
bad:
	osdmap_inc_clear(inc);
	return -1;
}

struct osdmap_place {
	struct crush *crush; /* held; NULL: flat */
	struct crush_placement *cp;
	struct placement *flat;
};

/* Flat placement, for a map from before the hierarchy. */
static struct placement *
osdmap_place_flat(const struct osdmap *m)
{
	struct placement_osd *po;
	struct placement *pl;
	size_t n = 0;
	uint32_t k;

	po = xreallocarray(NULL, m->max_osd ? m->max_osd : 1, sizeof *po);
	for (k = 0; k < m->max_osd; k++) {
		const struct osdmap_osd *o = &m->osds[k];
		uint32_t w;

		if (!o->exists)
			continue;
		w = placement_weight16_fixed(o->weight, o->reweight);
		po[n].id = o->id;
		po[n].weight16 = w;
		po[n].eligible = o->up && o->in && w > 0;
		n++;
	}
	pl = placement_new(po, n);
	free(po);
	return pl;
}

struct osdmap_place *
osdmap_place_new(const struct osdmap *m)
{
	struct osdmap_place *pl = xcalloc(1, sizeof *pl);
	struct crush_osd_state *st;
	uint32_t k;

	if (m->crush == NULL) {
		pl->flat = osdmap_place_flat(m);
		return pl;
	}
	st = xcalloc(m->max_osd ? m->max_osd : 1, sizeof *st);
	for (k = 0; k < m->max_osd; k++) {
		const struct osdmap_osd *o = &m->osds[k];

		st[k].up = o->exists && o->up;
		st[k].reweight = o->exists && o->in ? o->reweight : 0;
	}
	pl->crush = crush_hold(m->crush);
	pl->cp = crush_placement_new(pl->crush, st, m->max_osd);
	free(st);
	return pl;
}

void
osdmap_place_free(struct osdmap_place *pl)
{
	if (pl == NULL)
		return;
	crush_placement_free(pl->cp);
	crush_free(pl->crush);
	placement_free(pl->flat);
	free(pl);
}

long
osdmap_place_domains(const struct osdmap_place *pl, uint32_t rule)
{
	return pl->cp != NULL ? crush_placement_domains(pl->cp, rule) : -1;
}

int
osdmap_place_has_crush(const struct osdmap_place *pl)
{
	return pl->cp != NULL;
}

int
osdmap_place_pg(const struct osdmap_place *pl, uint32_t pool, uint32_t rule,
    uint32_t seed, unsigned size, int32_t *up)
{
	int n;

	if (pl->cp == NULL)
		return placement_map_pg(pl->flat, pool, seed, size, up);
	n = crush_placement_map_pg(pl->cp, rule, pool, seed, size, up);
	return n < 0 ? 0 : n;
}

struct osdmap_remap {
	uint8_t *changed; /* per OSD id, n entries */
	uint32_t n;
	size_t nchanged;
};

/*
 * How much of the draws crush_accept() (crush.c) lets an OSD take, as a
 * number whose order is the inclusion of those sets: 0 none, 0x10000 all,
 * between the share by its reweight.  Placement sees an OSD up when it
 * exists and is up, and its reweight 0 unless it is in (osdmap_place_new()).
 */
static uint32_t
osdmap_remap_share(const struct osdmap *m, uint32_t k)
{
	const struct osdmap_osd *o;

	if (k >= m->max_osd)
		return 0;
	o = &m->osds[k];
	if (!o->exists || !o->up || !o->in)
		return 0;
	return o->reweight < CRUSH_WEIGHT_ONE ? o->reweight : CRUSH_WEIGHT_ONE;
}

struct osdmap_remap *
osdmap_remap_new(const struct osdmap *before, const struct osdmap *after)
{
	const struct osdmap_pool *pa, *pb;
	struct osdmap_remap *r;
	uint32_t k, n, sa, sb;
	size_t i;

	if (before->crush == NULL || after->crush == NULL ||
	    (before->crush != after->crush &&
		!crush_equal(before->crush, after->crush)))
		return NULL;
	for (i = 0; i < after->npools; i++) {
		pb = &after->pools[i];
		if ((pa = osdmap_pool(before, pb->id)) != NULL &&
		    (pa->size != pb->size || pa->crush_rule != pb->crush_rule))
			return NULL;
	}
	n = before->max_osd > after->max_osd ? before->max_osd : after->max_osd;
	r = xcalloc(1, sizeof *r);
	r->n = n;
	r->changed = xcalloc(n ? n : 1, 1);
	for (k = 0; k < n; k++) {
		sa = osdmap_remap_share(before, k);
		sb = osdmap_remap_share(after, k);
		if (sb > sa) {
			osdmap_remap_free(r);
			return NULL;
		}
		if (sb < sa) {
			r->changed[k] = 1;
			r->nchanged++;
		}
	}
	return r;
}

void
osdmap_remap_free(struct osdmap_remap *r)
{
	if (r == NULL)
		return;
	free(r->changed);
	free(r);
}

int
osdmap_remap_moves(const struct osdmap_remap *r, const int32_t *up, int n)
{
	int i;

	if (r->nchanged == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (up[i] >= 0 && (uint32_t)up[i] < r->n && r->changed[up[i]])
			return 1;
	return 0;
}

size_t
osdmap_remap_changed(const struct osdmap_remap *r)
{
	return r->nchanged;
}
