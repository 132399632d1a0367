/* crush.c: the placement hierarchy, its operations, codecs and placement. */
#include "config.h"

#include <errno.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CRUSH_HAVE_AVX512 1
#endif
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "map/crush.h"
#include "map/placement.h"

/*
 * Attempt r's key is output number 2^32 + 1 + r of the PG key's
 * splitmix64 stream: past every output the OSD hashes use (numbers 1 ..
 * 2^32), so the two never meet (mapmon-protocol(7)).
 */
#define CRUSH_ATTEMPT_BASE ((uint64_t)1 << 32 | 1)

/* The largest 16.16 crush weight of an OSD: CRUSH_WEIGHT_MAX * 65536. */
#define CRUSH_WEIGHT16_MAX 65536000000ULL

struct crush_bucket {
	int32_t id; /* 0: a free slot (slot i holds id -1 - i) */
	uint8_t type;
	char *name;
	int32_t *items;
	uint32_t nitems;
	/* Derived by crush_rebuild(). */
	int32_t parent; /* 0 at the top */
	uint64_t weight;
	uint64_t *cweight; /* per class, c->nclasses entries */
};

struct crush_device {
	uint8_t exists; /* in the hierarchy */
	uint64_t weight;
	char *cls;	/* NULL: no class */
	int32_t parent; /* derived */
	int cidx;	/* derived: index in c->classes, -1 */
};

struct crush_rule {
	uint32_t id;
	char *name;
	int32_t root;
	uint8_t domain;
	char *cls; /* NULL: every device */
	int view;  /* derived: index in c->views */
};

/*
 * The precomputed form: for one view (every device, or one class), per
 * bucket the items that can be drawn (weight above 0 in the view), with
 * their hash offsets ((item + 1) * GOLDEN as unsigned 32-bit), weights,
 * 65536.0 / weight for the pre-filter, and types.
 */
struct crush_cbucket {
	uint32_t first; /* index of its first item in the view */
	uint32_t n;	/* drawable items */
	uint8_t equal;	/* all n weights equal: the fast path */
};

struct crush_view {
	int cls;		 /* class index, -1: every device */
	struct crush_cbucket *b; /* c->max_buckets entries, by slot */
	int32_t *item;
	uint64_t *off;
	uint64_t *w;
	double *recip;
	uint8_t *itype;
};

struct crush {
	/* Holders besides the first (crush_hold()); changed atomically. */
	unsigned refs;
	uint32_t max_buckets;
	struct crush_bucket *buckets;
	uint32_t max_devices;
	struct crush_device *devices;
	size_t nrules;
	struct crush_rule *rules; /* sorted by id */
	/* Derived by crush_rebuild(). */
	size_t nbuckets;
	size_t nclasses;
	char **classes; /* sorted */
	size_t nviews;
	struct crush_view *views;
};

static const struct {
	int id;
	const char *name;
} crush_types[] = {
	{ CRUSH_TYPE_OSD, "osd" },
	{ CRUSH_TYPE_HOST, "host" },
	{ CRUSH_TYPE_RACK, "rack" },
	{ CRUSH_TYPE_ROOM, "room" },
	{ CRUSH_TYPE_DATACENTER, "datacenter" },
	{ CRUSH_TYPE_ROOT, "root" },
};

/* A location: at most one bucket per bucket type, lowest type first. */
#define CRUSH_LOC_MAX 5

struct crush_loc {
	size_t n;
	struct {
		int type;
		char name[CRUSH_NAME_MAX + 1];
	} lv[CRUSH_LOC_MAX];
};

static void crush_rebuild(struct crush *);

int
crush_type_id(const char *name)
{
	size_t i;

	for (i = 0; i < nitems(crush_types); i++)
		if (strcmp(crush_types[i].name, name) == 0)
			return crush_types[i].id;
	return -1;
}

const char *
crush_type_name(int id)
{
	size_t i;

	for (i = 0; i < nitems(crush_types); i++)
		if (crush_types[i].id == id)
			return crush_types[i].name;
	return NULL;
}

const char *
crush_type_list(void)
{
	return "host, rack, room, datacenter, root";
}

static int
crush_is_bucket_type(int t)
{
	return t != CRUSH_TYPE_OSD && crush_type_name(t) != NULL;
}

/* Letters, digits, '-', '_' and '.', 1 to CRUSH_NAME_MAX of them. */
static int
crush_name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++) {
		char ch = s[n];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			(ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
			ch == '.'))
			return 0;
	}
	return n >= 1 && n <= CRUSH_NAME_MAX;
}

/* "osd." and digits: 1 and *osd (-1 when out of range), else 0. */
static int
crush_osd_name(const char *s, int32_t *osd)
{
	long v = 0;
	size_t i;

	if (strncmp(s, "osd.", 4) != 0 || s[4] == '\0')
		return 0;
	for (i = 4; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		if (v < CRUSH_MAX_DEVICES)
			v = v * 10 + (s[i] - '0');
	}
	*osd = v < CRUSH_MAX_DEVICES ? (int32_t)v : -1;
	return 1;
}

static int crush_fail(char **cause, int err, const char *fmt, ...)
    printflike(3, 4);

static int
crush_fail(char **cause, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xvasprintf(cause, fmt, ap);
	va_end(ap);
	return -err;
}

static int
crush_check_name(const char *what, const char *name, char **cause)
{
	if (!crush_name_ok(name))
		return crush_fail(cause, EINVAL,
		    "invalid %s name '%.*s': "
		    "names are 1 to %d letters, digits, '-', '_' and '.'",
		    what, CRUSH_NAME_MAX + 8, name, CRUSH_NAME_MAX);
	return 0;
}

/* A weight given as a number, made 16.16 (rounded to nearest). */
static int
crush_weight16(double w, int32_t osd, uint64_t *out, char **cause)
{
	if (isnan(w))
		return crush_fail(cause, EINVAL,
		    "weight of osd.%d is not a number", osd);
	if (w < 0)
		return crush_fail(cause, EINVAL,
		    "weight %g of osd.%d is negative", w, osd);
	if (w > CRUSH_WEIGHT_MAX)
		return crush_fail(cause, EINVAL,
		    "weight %g of osd.%d is above %g", w, osd,
		    CRUSH_WEIGHT_MAX);
	*out = (uint64_t)llround(w * CRUSH_WEIGHT_ONE);
	return 0;
}

static int
crush_check_osd(int32_t osd, char **cause)
{
	if (osd < 0 || osd >= CRUSH_MAX_DEVICES)
		return crush_fail(cause, EINVAL,
		    "osd.%d is out of range (ids are 0 to %d)", osd,
		    CRUSH_MAX_DEVICES - 1);
	return 0;
}

/*
 * Storage: buckets in slots by id, devices by id, rules sorted by id.
 */

struct crush *
crush_new(void)
{
	struct crush *c = xcalloc(1, sizeof *c);

	crush_rebuild(c);
	return c;
}

static struct crush_bucket *
crush_bucket(const struct crush *c, int32_t id)
{
	uint32_t slot;

	if (id >= 0 || id < -CRUSH_MAX_BUCKETS)
		return NULL;
	slot = (uint32_t)(-1 - id);
	if (slot >= c->max_buckets || c->buckets[slot].id == 0)
		return NULL;
	return &c->buckets[slot];
}

static struct crush_bucket *
crush_bucket_by_name(const struct crush *c, const char *name)
{
	uint32_t i;

	for (i = 0; i < c->max_buckets; i++)
		if (c->buckets[i].id != 0 &&
		    strcmp(c->buckets[i].name, name) == 0)
			return &c->buckets[i];
	return NULL;
}

static struct crush_device *
crush_device(const struct crush *c, int32_t osd)
{
	if (osd < 0 || (uint32_t)osd >= c->max_devices ||
	    !c->devices[osd].exists)
		return NULL;
	return &c->devices[osd];
}

static void
crush_grow_buckets(struct crush *c, uint32_t slots)
{
	if (slots <= c->max_buckets)
		return;
	c->buckets = xreallocarray(c->buckets, slots, sizeof *c->buckets);
	memset(c->buckets + c->max_buckets, 0,
	    (slots - c->max_buckets) * sizeof *c->buckets);
	c->max_buckets = slots;
}

static void
crush_grow_devices(struct crush *c, uint32_t n)
{
	if (n <= c->max_devices)
		return;
	c->devices = xreallocarray(c->devices, n, sizeof *c->devices);
	memset(c->devices + c->max_devices, 0,
	    (n - c->max_devices) * sizeof *c->devices);
	c->max_devices = n;
}

/* A new empty bucket in the lowest free slot (the caller checked room). */
static struct crush_bucket *
crush_bucket_new(struct crush *c, const char *name, int type)
{
	struct crush_bucket *b;
	uint32_t i;

	for (i = 0; i < c->max_buckets && c->buckets[i].id != 0; i++)
		;
	crush_grow_buckets(c, i + 1);
	b = &c->buckets[i];
	memset(b, 0, sizeof *b);
	b->id = -1 - (int32_t)i;
	b->type = (uint8_t)type;
	b->name = xstrdup(name);
	c->nbuckets++;
	return b;
}

static void
crush_bucket_append(struct crush_bucket *b, int32_t item)
{
	b->items = xreallocarray(b->items, b->nitems + 1, sizeof *b->items);
	b->items[b->nitems++] = item;
}

static void
crush_bucket_release(struct crush_bucket *b)
{
	free(b->name);
	free(b->items);
	free(b->cweight);
	memset(b, 0, sizeof *b);
}

/* Take item out of its parent bucket, keeping the others' order. */
static void
crush_detach(struct crush *c, int32_t item, int32_t parent)
{
	struct crush_bucket *p = crush_bucket(c, parent);
	uint32_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nitems; i++)
		if (p->items[i] == item) {
			memmove(p->items + i, p->items + i + 1,
			    (p->nitems - i - 1) * sizeof *p->items);
			p->nitems--;
			return;
		}
}

static void
crush_rules_free(struct crush *c)
{
	size_t i;

	for (i = 0; i < c->nrules; i++) {
		free(c->rules[i].name);
		free(c->rules[i].cls);
	}
	free(c->rules);
	c->rules = NULL;
	c->nrules = 0;
}

static void
crush_derived_free(struct crush *c)
{
	size_t i;

	for (i = 0; i < c->nviews; i++) {
		free(c->views[i].b);
		free(c->views[i].item);
		free(c->views[i].off);
		free(c->views[i].w);
		free(c->views[i].recip);
		free(c->views[i].itype);
	}
	free(c->views);
	c->views = NULL;
	c->nviews = 0;
	for (i = 0; i < c->nclasses; i++)
		free(c->classes[i]);
	free(c->classes);
	c->classes = NULL;
	c->nclasses = 0;
}

struct crush *
crush_hold(const struct crush *c)
{
	struct crush *h = (struct crush *)(uintptr_t)c;

	__atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED);
	return h;
}

int
crush_shared(const struct crush *c)
{
	return __atomic_load_n(&c->refs, __ATOMIC_ACQUIRE) > 0;
}

void
crush_free(struct crush *c)
{
	uint32_t i;

	if (c == NULL)
		return;
	/* A shared map goes with its last holder. */
	if (__atomic_fetch_sub(&c->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	crush_derived_free(c);
	for (i = 0; i < c->max_buckets; i++)
		crush_bucket_release(&c->buckets[i]);
	free(c->buckets);
	for (i = 0; i < c->max_devices; i++)
		free(c->devices[i].cls);
	free(c->devices);
	crush_rules_free(c);
	free(c);
}

/* Insert a rule, keeping the array sorted by id (the id is free). */
static struct crush_rule *
crush_rule_insert(struct crush *c, uint32_t id, const char *name, int32_t root,
    int domain, const char *cls)
{
	struct crush_rule *r;
	size_t i;

	for (i = 0; i < c->nrules && c->rules[i].id < id; i++)
		;
	c->rules = xreallocarray(c->rules, c->nrules + 1, sizeof *c->rules);
	memmove(c->rules + i + 1, c->rules + i,
	    (c->nrules - i) * sizeof *c->rules);
	c->nrules++;
	r = &c->rules[i];
	memset(r, 0, sizeof *r);
	r->id = id;
	r->name = xstrdup(name);
	r->root = root;
	r->domain = (uint8_t)domain;
	r->cls = cls != NULL ? xstrdup(cls) : NULL;
	r->view = -1;
	return r;
}

struct crush *
crush_new_default(void)
{
	struct crush *c = crush_new();
	struct crush_bucket *b;

	b = crush_bucket_new(c, CRUSH_DEFAULT_ROOT, CRUSH_TYPE_ROOT);
	crush_rule_insert(c, 0, CRUSH_DEFAULT_RULE, b->id, CRUSH_TYPE_HOST,
	    NULL);
	crush_rebuild(c);
	return c;
}

struct crush *
crush_copy(const struct crush *src)
{
	struct crush *c = xcalloc(1, sizeof *c);
	uint32_t i;
	size_t k;

	crush_grow_buckets(c, src->max_buckets);
	for (i = 0; i < src->max_buckets; i++) {
		const struct crush_bucket *s = &src->buckets[i];
		struct crush_bucket *b = &c->buckets[i];

		if (s->id == 0)
			continue;
		b->id = s->id;
		b->type = s->type;
		b->name = xstrdup(s->name);
		b->nitems = s->nitems;
		b->items = xreallocarray(NULL, s->nitems ? s->nitems : 1,
		    sizeof *b->items);
		if (s->nitems > 0)
			memcpy(b->items, s->items,
			    s->nitems * sizeof *b->items);
	}
	c->nbuckets = src->nbuckets;
	crush_grow_devices(c, src->max_devices);
	for (i = 0; i < src->max_devices; i++) {
		c->devices[i].exists = src->devices[i].exists;
		c->devices[i].weight = src->devices[i].weight;
		if (src->devices[i].cls != NULL)
			c->devices[i].cls = xstrdup(src->devices[i].cls);
	}
	for (k = 0; k < src->nrules; k++) {
		const struct crush_rule *r = &src->rules[k];

		crush_rule_insert(c, r->id, r->name, r->root, r->domain,
		    r->cls);
	}
	crush_rebuild(c);
	return c;
}

static int
crush_str_equal(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

int
crush_equal(const struct crush *a, const struct crush *b)
{
	uint32_t i, n;
	size_t k;

	n = a->max_buckets > b->max_buckets ? a->max_buckets : b->max_buckets;
	for (i = 0; i < n; i++) {
		const struct crush_bucket *x = crush_bucket(a, -1 - (int32_t)i);
		const struct crush_bucket *y = crush_bucket(b, -1 - (int32_t)i);

		if (x == NULL || y == NULL) {
			if (x != y)
				return 0;
			continue;
		}
		if (x->type != y->type || strcmp(x->name, y->name) != 0 ||
		    x->nitems != y->nitems ||
		    (x->nitems > 0 &&
			memcmp(x->items, y->items,
			    x->nitems * sizeof *x->items) != 0))
			return 0;
	}
	n = a->max_devices > b->max_devices ? a->max_devices : b->max_devices;
	for (i = 0; i < n; i++) {
		const struct crush_device *x = crush_device(a, (int32_t)i);
		const struct crush_device *y = crush_device(b, (int32_t)i);

		if (x == NULL || y == NULL) {
			if (x != y)
				return 0;
			continue;
		}
		if (x->weight != y->weight || !crush_str_equal(x->cls, y->cls))
			return 0;
	}
	if (a->nrules != b->nrules)
		return 0;
	for (k = 0; k < a->nrules; k++) {
		const struct crush_rule *x = &a->rules[k], *y = &b->rules[k];

		if (x->id != y->id || strcmp(x->name, y->name) != 0 ||
		    x->root != y->root || x->domain != y->domain ||
		    !crush_str_equal(x->cls, y->cls))
			return 0;
	}
	return 1;
}

/*
 * The derived state: parents, weights, classes, class weights, the views.
 */

static int
crush_strcmp_p(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
crush_class_index(const struct crush *c, const char *cls)
{
	size_t lo = 0, hi = c->nclasses, mid;
	int d;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		d = strcmp(c->classes[mid], cls);
		if (d == 0)
			return (int)mid;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The classes named by devices and rules, sorted, each once. */
static void
crush_rebuild_classes(struct crush *c)
{
	size_t n = 0, k, m;
	uint32_t i;

	c->classes = xreallocarray(NULL, c->max_devices + c->nrules + 1,
	    sizeof *c->classes);
	for (i = 0; i < c->max_devices; i++)
		if (c->devices[i].exists && c->devices[i].cls != NULL)
			c->classes[n++] = c->devices[i].cls;
	for (k = 0; k < c->nrules; k++)
		if (c->rules[k].cls != NULL)
			c->classes[n++] = c->rules[k].cls;
	qsort(c->classes, n, sizeof *c->classes, crush_strcmp_p);
	for (k = 0, m = 0; k < n; k++)
		if (m == 0 || strcmp(c->classes[m - 1], c->classes[k]) != 0)
			c->classes[m++] = c->classes[k];
	for (k = 0; k < m; k++)
		c->classes[k] = xstrdup(c->classes[k]);
	c->nclasses = m;
}

/* An item's weight in a view (class cls, -1 for every device). */
static uint64_t
crush_item_weight_in(const struct crush *c, int32_t item, int cls)
{
	if (item >= 0) {
		const struct crush_device *d = &c->devices[item];

		if (cls >= 0 && d->cidx != cls)
			return 0;
		return d->weight;
	}
	if (cls < 0)
		return c->buckets[-1 - item].weight;
	return c->buckets[-1 - item].cweight[cls];
}

static void
crush_rebuild_view(struct crush *c, struct crush_view *v, int cls)
{
	size_t total = 0, k = 0;
	uint32_t i, j;

	v->cls = cls;
	v->b = xcalloc(c->max_buckets ? c->max_buckets : 1, sizeof *v->b);
	for (i = 0; i < c->max_buckets; i++)
		if (c->buckets[i].id != 0)
			total += c->buckets[i].nitems;
	if (total == 0)
		total = 1;
	v->item = xreallocarray(NULL, total, sizeof *v->item);
	v->off = xreallocarray(NULL, total, sizeof *v->off);
	v->w = xreallocarray(NULL, total, sizeof *v->w);
	v->recip = xreallocarray(NULL, total, sizeof *v->recip);
	v->itype = xreallocarray(NULL, total, sizeof *v->itype);
	for (i = 0; i < c->max_buckets; i++) {
		const struct crush_bucket *b = &c->buckets[i];
		struct crush_cbucket *cb = &v->b[i];

		cb->first = (uint32_t)k;
		cb->equal = 1;
		if (b->id == 0)
			continue;
		for (j = 0; j < b->nitems; j++) {
			int32_t item = b->items[j];
			uint64_t w = crush_item_weight_in(c, item, cls);

			if (w == 0)
				continue;
			v->item[k] = item;
			v->off[k] = ((uint64_t)(uint32_t)item + 1) *
			    PLACEMENT_GOLDEN;
			v->w[k] = w;
			v->recip[k] = 65536.0 / (double)w;
			v->itype[k] = item >= 0 ? CRUSH_TYPE_OSD :
						  c->buckets[-1 - item].type;
			if (w != v->w[cb->first])
				cb->equal = 0;
			k++;
		}
		cb->n = (uint32_t)(k - cb->first);
	}
}

static void
crush_rebuild(struct crush *c)
{
	static const int order[] = { CRUSH_TYPE_HOST, CRUSH_TYPE_RACK,
		CRUSH_TYPE_ROOM, CRUSH_TYPE_DATACENTER, CRUSH_TYPE_ROOT };
	size_t t, k, v;
	uint32_t i, j;

	crush_derived_free(c);
	crush_rebuild_classes(c);
	c->nbuckets = 0;
	for (i = 0; i < c->max_devices; i++) {
		struct crush_device *d = &c->devices[i];

		d->parent = 0;
		d->cidx = d->exists && d->cls != NULL ?
		    crush_class_index(c, d->cls) :
		    -1;
	}
	for (i = 0; i < c->max_buckets; i++)
		c->buckets[i].parent = 0;
	for (i = 0; i < c->max_buckets; i++) {
		const struct crush_bucket *b = &c->buckets[i];

		if (b->id == 0)
			continue;
		c->nbuckets++;
		for (j = 0; j < b->nitems; j++) {
			if (b->items[j] >= 0)
				c->devices[b->items[j]].parent = b->id;
			else
				c->buckets[-1 - b->items[j]].parent = b->id;
		}
	}
	/* Children have lower types: sum the lowest buckets first. */
	for (t = 0; t < nitems(order); t++) {
		for (i = 0; i < c->max_buckets; i++) {
			struct crush_bucket *b = &c->buckets[i];

			if (b->id == 0 || b->type != order[t])
				continue;
			free(b->cweight);
			b->cweight = xcalloc(c->nclasses ? c->nclasses : 1,
			    sizeof *b->cweight);
			b->weight = 0;
			for (j = 0; j < b->nitems; j++) {
				b->weight += crush_item_weight_in(c,
				    b->items[j], -1);
				for (k = 0; k < c->nclasses; k++)
					b->cweight[k] += crush_item_weight_in(c,
					    b->items[j], (int)k);
			}
		}
	}
	/* View 0 draws over every device; one more per class a rule uses. */
	c->views = xcalloc(c->nrules + 1, sizeof *c->views);
	crush_rebuild_view(c, &c->views[0], -1);
	c->nviews = 1;
	for (k = 0; k < c->nrules; k++) {
		struct crush_rule *r = &c->rules[k];
		int cls;

		r->view = 0;
		if (r->cls == NULL)
			continue;
		cls = crush_class_index(c, r->cls);
		for (v = 1; v < c->nviews && c->views[v].cls != cls; v++)
			;
		if (v == c->nviews)
			crush_rebuild_view(c, &c->views[c->nviews++], cls);
		r->view = (int)v;
	}
}

/*
 * Lookups.
 */

int
crush_item_id(const struct crush *c, const char *name, int32_t *id)
{
	const struct crush_bucket *b;
	int32_t osd;

	if (crush_osd_name(name, &osd)) {
		if (crush_device(c, osd) == NULL)
			return -1;
		*id = osd;
		return 0;
	}
	if ((b = crush_bucket_by_name(c, name)) == NULL)
		return -1;
	*id = b->id;
	return 0;
}

int
crush_bucket_get(const struct crush *c, int32_t id,
    struct crush_bucket_info *info)
{
	const struct crush_bucket *b = crush_bucket(c, id);

	if (b == NULL)
		return -1;
	info->id = b->id;
	info->name = b->name;
	info->type = b->type;
	info->parent = b->parent;
	info->weight = b->weight;
	info->nitems = b->nitems;
	info->items = b->items;
	return 0;
}

size_t
crush_bucket_count(const struct crush *c)
{
	return c->nbuckets;
}

size_t
crush_bucket_ids(const struct crush *c, int32_t *ids, size_t n)
{
	size_t k = 0;
	uint32_t i;

	for (i = 0; i < c->max_buckets && k < n; i++)
		if (c->buckets[i].id != 0)
			ids[k++] = c->buckets[i].id;
	return k;
}

uint64_t
crush_bucket_class_weight(const struct crush *c, int32_t id, const char *cls)
{
	const struct crush_bucket *b = crush_bucket(c, id);
	int k;

	if (b == NULL || (k = crush_class_index(c, cls)) < 0)
		return 0;
	return b->cweight[k];
}

int
crush_osd_exists(const struct crush *c, int32_t osd)
{
	return crush_device(c, osd) != NULL;
}

uint64_t
crush_osd_weight(const struct crush *c, int32_t osd)
{
	const struct crush_device *d = crush_device(c, osd);

	return d != NULL ? d->weight : 0;
}

int32_t
crush_osd_parent(const struct crush *c, int32_t osd)
{
	const struct crush_device *d = crush_device(c, osd);

	return d != NULL ? d->parent : 0;
}

const char *
crush_osd_class(const struct crush *c, int32_t osd)
{
	const struct crush_device *d = crush_device(c, osd);

	return d != NULL ? d->cls : NULL;
}

uint32_t
crush_max_osd(const struct crush *c)
{
	uint32_t i;

	for (i = c->max_devices; i > 0; i--)
		if (c->devices[i - 1].exists)
			return i;
	return 0;
}

size_t
crush_rule_count(const struct crush *c)
{
	return c->nrules;
}

static void
crush_rule_fill(const struct crush_rule *r, struct crush_rule_info *info)
{
	info->id = r->id;
	info->name = r->name;
	info->root = r->root;
	info->domain = r->domain;
	info->device_class = r->cls;
}

int
crush_rule_at(const struct crush *c, size_t i, struct crush_rule_info *info)
{
	if (i >= c->nrules)
		return -1;
	crush_rule_fill(&c->rules[i], info);
	return 0;
}

static const struct crush_rule *
crush_rule_find(const struct crush *c, uint32_t id)
{
	size_t lo = 0, hi = c->nrules, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->rules[mid].id == id)
			return &c->rules[mid];
		if (c->rules[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int
crush_rule_get(const struct crush *c, uint32_t id, struct crush_rule_info *info)
{
	const struct crush_rule *r = crush_rule_find(c, id);

	if (r == NULL)
		return -1;
	crush_rule_fill(r, info);
	return 0;
}

int
crush_rule_id(const struct crush *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nrules; i++)
		if (strcmp(c->rules[i].name, name) == 0)
			return (int)c->rules[i].id;
	return -1;
}

/*
 * Locations.
 */

static int
crush_loc_parse(const char *const *args, size_t n, struct crush_loc *loc,
    char **cause)
{
	size_t i, j, tlen;
	const char *eq;
	char tname[32];
	int type;

	loc->n = 0;
	for (i = 0; i < n; i++) {
		if ((eq = strchr(args[i], '=')) == NULL || eq == args[i] ||
		    eq[1] == '\0')
			return crush_fail(cause, EINVAL,
			    "invalid location '%.*s': expected TYPE=NAME",
			    CRUSH_NAME_MAX * 2, args[i]);
		tlen = (size_t)(eq - args[i]);
		type = -1;
		if (tlen < sizeof tname) {
			memcpy(tname, args[i], tlen);
			tname[tlen] = '\0';
			type = crush_type_id(tname);
		}
		if (type < 0)
			return crush_fail(cause, EINVAL,
			    "unknown type '%.*s' "
			    "in location '%.*s' (types are %s)",
			    (int)tlen, args[i], CRUSH_NAME_MAX * 2, args[i],
			    crush_type_list());
		if (type == CRUSH_TYPE_OSD)
			return crush_fail(cause, EINVAL,
			    "invalid location '%.*s': an OSD holds no items",
			    CRUSH_NAME_MAX * 2, args[i]);
		if (!crush_name_ok(eq + 1))
			return crush_check_name("bucket", eq + 1, cause);
		for (j = 0; j < loc->n; j++) {
			if (loc->lv[j].type == type)
				return crush_fail(cause, EINVAL,
				    "type '%s' appears twice in the location",
				    tname);
			if (strcmp(loc->lv[j].name, eq + 1) == 0)
				return crush_fail(cause, EINVAL,
				    "bucket '%s' appears twice in the location",
				    eq + 1);
		}
		/* Keep the levels sorted by type, lowest first. */
		for (j = loc->n; j > 0 && loc->lv[j - 1].type > type; j--)
			loc->lv[j] = loc->lv[j - 1];
		loc->lv[j].type = type;
		snprintf(loc->lv[j].name, sizeof loc->lv[j].name, "%s", eq + 1);
		loc->n++;
	}
	return 0;
}

/* Add root=default when the location names no root. */
static void
crush_loc_default_root(struct crush_loc *loc)
{
	if (loc->n > 0 && loc->lv[loc->n - 1].type == CRUSH_TYPE_ROOT)
		return;
	loc->lv[loc->n].type = CRUSH_TYPE_ROOT;
	snprintf(loc->lv[loc->n].name, sizeof loc->lv[loc->n].name, "%s",
	    CRUSH_DEFAULT_ROOT);
	loc->n++;
}

/* Is item a or beneath bucket a? */
static int
crush_is_under(const struct crush *c, int32_t item, int32_t a)
{
	const struct crush_bucket *b;

	while (item != 0) {
		if (item == a)
			return 1;
		if (item >= 0) {
			const struct crush_device *d = crush_device(c, item);

			item = d != NULL ? d->parent : 0;
		} else {
			b = crush_bucket(c, item);
			item = b != NULL ? b->parent : 0;
		}
	}
	return 0;
}

/*
 * Can item (of type itype) be placed at loc?  The walk stops at the first
 * bucket that exists; the ones below it would be created.
 */
static int
crush_loc_check(const struct crush *c, int32_t item, int itype,
    const char *iname, const struct crush_loc *loc, size_t extra, char **cause)
{
	const struct crush_bucket *b;
	size_t i, created = 0;
	int32_t osd;

	for (i = 0; i < loc->n; i++) {
		const char *name = loc->lv[i].name;
		int type = loc->lv[i].type;

		if (crush_osd_name(name, &osd))
			return crush_fail(cause, EINVAL,
			    "'%s' in the location is an OSD, not a bucket",
			    name);
		b = crush_bucket_by_name(c, name);
		/*
		 * As Ceph's CrushWrapper::insert_item: a location bucket
		 * whose subtree holds the item (itself) is EINVAL; one the
		 * item's subtree holds (a descendant) is ELOOP.
		 */
		if ((b != NULL && b->id == item) || strcmp(name, iname) == 0)
			return crush_fail(cause, EINVAL,
			    "cannot move '%s' under itself", iname);
		if (b != NULL && item < 0 && crush_is_under(c, b->id, item))
			return crush_fail(cause, ELOOP,
			    "cannot move '%s' under '%s': '%s' is beneath '%s'",
			    iname, name, name, iname);
		if (type <= itype)
			return crush_fail(cause, EINVAL,
			    "cannot put %s '%s' "
			    "in %s '%s': a %s is not above a %s",
			    crush_type_name(itype), iname,
			    crush_type_name(type), name, crush_type_name(type),
			    crush_type_name(itype));
		if (b == NULL) {
			created++;
			continue;
		}
		if (b->type != type)
			return crush_fail(cause, EINVAL,
			    "bucket '%s' is a %s, not a %s", name,
			    crush_type_name(b->type), crush_type_name(type));
		break;
	}
	if (c->nbuckets + extra + created > CRUSH_MAX_BUCKETS)
		return crush_fail(cause, ENOSPC,
		    "too many buckets (at most %d)", CRUSH_MAX_BUCKETS);
	return 0;
}

/* Put the detached item at loc (crush_loc_check() said it fits). */
static void
crush_loc_apply(struct crush *c, int32_t item, const struct crush_loc *loc)
{
	struct crush_bucket *b;
	int32_t cur = item;
	size_t i;

	for (i = 0; i < loc->n; i++) {
		if ((b = crush_bucket_by_name(c, loc->lv[i].name)) != NULL) {
			crush_bucket_append(b, cur);
			return;
		}
		b = crush_bucket_new(c, loc->lv[i].name, loc->lv[i].type);
		crush_bucket_append(b, cur);
		cur = b->id;
	}
}

/* Is item directly in the location's lowest bucket (Ceph's "already there")? */
static int
crush_loc_holds(const struct crush *c, int32_t parent,
    const struct crush_loc *loc)
{
	const struct crush_bucket *b;

	if (loc->n == 0 || parent == 0)
		return 0;
	b = crush_bucket_by_name(c, loc->lv[0].name);
	return b != NULL && b->id == parent && b->type == loc->lv[0].type;
}

/*
 * Operations.
 */

int
crush_bucket_add(struct crush *c, const char *name, const char *type,
    const char *const *args, size_t nargs, int32_t *id, char **cause)
{
	struct crush_bucket *b;
	struct crush_loc loc;
	int32_t osd;
	int t, rc;

	if ((rc = crush_check_name("bucket", name, cause)) != 0)
		return rc;
	if (crush_osd_name(name, &osd))
		return crush_fail(cause, EINVAL,
		    "invalid bucket name '%s': osd.N names the OSDs", name);
	if ((t = crush_type_id(type)) < 0 || !crush_is_bucket_type(t))
		return crush_fail(cause, EINVAL,
		    "%s bucket type '%.*s' (bucket types are %s)",
		    t < 0 ? "unknown" : "invalid", CRUSH_NAME_MAX, type,
		    crush_type_list());
	if (crush_bucket_by_name(c, name) != NULL)
		return crush_fail(cause, EEXIST, "item %s already exists",
		    name);
	if ((rc = crush_loc_parse(args, nargs, &loc, cause)) != 0)
		return rc;
	if ((rc = crush_loc_check(c, 0, t, name, &loc, 1, cause)) != 0)
		return rc;
	b = crush_bucket_new(c, name, t);
	if (id != NULL)
		*id = b->id;
	crush_loc_apply(c, b->id, &loc);
	crush_rebuild(c);
	return 0;
}

/* Move or create OSD osd at loc; weight: < 0 keeps the current one. */
static int
crush_osd_place(struct crush *c, int32_t osd, int64_t weight,
    const struct crush_loc *loc, char **cause)
{
	struct crush_device *d = crush_device(c, osd);
	char name[32];
	int rc;

	snprintf(name, sizeof name, "osd.%d", osd);
	if (d != NULL && crush_loc_holds(c, d->parent, loc)) {
		if (weight >= 0)
			d->weight = (uint64_t)weight;
		crush_rebuild(c);
		return 0;
	}
	if ((rc = crush_loc_check(c, osd, CRUSH_TYPE_OSD, name, loc, 0,
		 cause)) != 0)
		return rc;
	if (d != NULL)
		crush_detach(c, osd, d->parent);
	else {
		crush_grow_devices(c, (uint32_t)osd + 1);
		d = &c->devices[osd];
		d->exists = 1;
		d->weight = 0;
	}
	if (weight >= 0)
		d->weight = (uint64_t)weight;
	crush_loc_apply(c, osd, loc);
	crush_rebuild(c);
	return 0;
}

enum crush_osd_mode { CRUSH_ADD, CRUSH_SET, CRUSH_CREATE_OR_MOVE };

static int
crush_osd_locate(struct crush *c, int32_t osd, double weight,
    const char *const *args, size_t nargs, enum crush_osd_mode mode,
    char **cause)
{
	struct crush_loc loc;
	uint64_t w;
	int rc;

	if ((rc = crush_check_osd(osd, cause)) != 0 ||
	    (rc = crush_weight16(weight, osd, &w, cause)) != 0 ||
	    (rc = crush_loc_parse(args, nargs, &loc, cause)) != 0)
		return rc;
	if (loc.n == 0)
		return crush_fail(cause, EINVAL,
		    "no location given for osd.%d: expected TYPE=NAME...", osd);
	if (mode == CRUSH_SET && crush_device(c, osd) == NULL)
		return crush_fail(cause, ENOENT,
		    "unable to set item id %d "
		    "name 'osd.%d' weight %g: does not exist",
		    osd, osd, weight);
	crush_loc_default_root(&loc);
	if (mode == CRUSH_CREATE_OR_MOVE && crush_device(c, osd) != NULL)
		return crush_osd_place(c, osd, -1, &loc, cause);
	return crush_osd_place(c, osd, (int64_t)w, &loc, cause);
}

int
crush_osd_add(struct crush *c, int32_t osd, double weight,
    const char *const *loc, size_t nloc, char **cause)
{
	return crush_osd_locate(c, osd, weight, loc, nloc, CRUSH_ADD, cause);
}

int
crush_osd_set(struct crush *c, int32_t osd, double weight,
    const char *const *loc, size_t nloc, char **cause)
{
	return crush_osd_locate(c, osd, weight, loc, nloc, CRUSH_SET, cause);
}

int
crush_osd_create_or_move(struct crush *c, int32_t osd, double weight,
    const char *const *loc, size_t nloc, char **cause)
{
	return crush_osd_locate(c, osd, weight, loc, nloc, CRUSH_CREATE_OR_MOVE,
	    cause);
}

int
crush_move(struct crush *c, const char *name, const char *const *args,
    size_t nargs, char **cause)
{
	struct crush_bucket *b;
	struct crush_loc loc;
	int32_t osd;
	int rc;

	if ((rc = crush_loc_parse(args, nargs, &loc, cause)) != 0)
		return rc;
	if (loc.n == 0)
		return crush_fail(cause, EINVAL,
		    "no location given for '%.*s': expected TYPE=NAME...",
		    CRUSH_NAME_MAX, name);
	if (crush_osd_name(name, &osd)) {
		if (osd < 0 || crush_device(c, osd) == NULL)
			return crush_fail(cause, ENOENT,
			    "item %s does not exist", name);
		crush_loc_default_root(&loc);
		return crush_osd_place(c, osd, -1, &loc, cause);
	}
	if ((b = crush_bucket_by_name(c, name)) == NULL)
		return crush_fail(cause, ENOENT, "item %.*s does not exist",
		    CRUSH_NAME_MAX, name);
	if (crush_loc_holds(c, b->parent, &loc))
		return 0;
	if ((rc = crush_loc_check(c, b->id, b->type, b->name, &loc, 0,
		 cause)) != 0)
		return rc;
	crush_detach(c, b->id, b->parent);
	crush_loc_apply(c, b->id, &loc);
	crush_rebuild(c);
	return 0;
}

int
crush_osd_remove(struct crush *c, int32_t osd, char **cause)
{
	struct crush_device *d = crush_device(c, osd);

	if (d == NULL)
		return crush_fail(cause, ENOENT,
		    "device 'osd.%d' does not appear in the crush map", osd);
	crush_detach(c, osd, d->parent);
	free(d->cls);
	memset(d, 0, sizeof *d);
	crush_rebuild(c);
	return 0;
}

int
crush_remove(struct crush *c, const char *name, char **cause)
{
	struct crush_bucket *b;
	int32_t osd;
	size_t i;

	if (crush_osd_name(name, &osd)) {
		if (osd < 0)
			return crush_fail(cause, ENOENT,
			    "device '%.*s' does not appear in the crush map",
			    CRUSH_NAME_MAX, name);
		return crush_osd_remove(c, osd, cause);
	}
	if ((b = crush_bucket_by_name(c, name)) == NULL)
		return crush_fail(cause, ENOENT,
		    "device '%.*s' does not appear in the crush map",
		    CRUSH_NAME_MAX, name);
	if (b->nitems > 0)
		return crush_fail(cause, ENOTEMPTY,
		    "bucket '%s' is not empty: it holds %u item%s", name,
		    b->nitems, b->nitems == 1 ? "" : "s");
	for (i = 0; i < c->nrules; i++)
		if (c->rules[i].root == b->id)
			return crush_fail(cause, EBUSY,
			    "bucket '%s' is in use by crush rule '%s'", name,
			    c->rules[i].name);
	crush_detach(c, b->id, b->parent);
	crush_bucket_release(b);
	crush_rebuild(c);
	return 0;
}

int
crush_osd_reweight(struct crush *c, int32_t osd, double weight, char **cause)
{
	struct crush_device *d = crush_device(c, osd);
	uint64_t w;
	int rc;

	if ((rc = crush_weight16(weight, osd, &w, cause)) != 0)
		return rc;
	if (d == NULL)
		return crush_fail(cause, ENOENT,
		    "device 'osd.%d' does not appear in the crush map", osd);
	d->weight = w;
	crush_rebuild(c);
	return 0;
}

int
crush_osd_set_class(struct crush *c, int32_t osd, const char *cls, char **cause)
{
	struct crush_device *d = crush_device(c, osd);
	int rc;

	if ((rc = crush_check_name("device class", cls, cause)) != 0)
		return rc;
	if (d == NULL)
		return crush_fail(cause, ENOENT,
		    "device 'osd.%d' does not appear in the crush map", osd);
	if (d->cls != NULL) {
		if (strcmp(d->cls, cls) == 0)
			return 0;
		return crush_fail(cause, EBUSY,
		    "osd.%d has already bound to "
		    "class '%s', can not reset class to '%s'; use 'mapmon osd "
		    "crush rm-device-class <id>' to remove old class first",
		    osd, d->cls, cls);
	}
	if (crush_class_index(c, cls) < 0 && c->nclasses >= CRUSH_MAX_CLASSES)
		return crush_fail(cause, ENOSPC,
		    "too many device classes (at most %d)", CRUSH_MAX_CLASSES);
	d->cls = xstrdup(cls);
	crush_rebuild(c);
	return 0;
}

int
crush_osd_rm_class(struct crush *c, int32_t osd, char **cause)
{
	struct crush_device *d = crush_device(c, osd);

	if (d == NULL)
		return crush_fail(cause, ENOENT,
		    "device 'osd.%d' does not appear in the crush map", osd);
	if (d->cls == NULL)
		return 0;
	free(d->cls);
	d->cls = NULL;
	crush_rebuild(c);
	return 0;
}

int
crush_rule_create(struct crush *c, const char *name, const char *root,
    const char *type, const char *cls, uint32_t *id, char **cause)
{
	const struct crush_bucket *b;
	uint32_t rid;
	size_t i;
	int t, rc;

	if ((rc = crush_check_name("rule", name, cause)) != 0)
		return rc;
	if (crush_rule_id(c, name) >= 0)
		return crush_fail(cause, EEXIST, "rule %s already exists",
		    name);
	if ((b = crush_bucket_by_name(c, root)) == NULL)
		return crush_fail(cause, ENOENT,
		    "root item %.*s does not exist", CRUSH_NAME_MAX, root);
	if ((t = crush_type_id(type)) < 0)
		return crush_fail(cause, EINVAL,
		    "unknown type %.*s (types are osd, %s)", CRUSH_NAME_MAX,
		    type, crush_type_list());
	if (t >= b->type)
		return crush_fail(cause, EINVAL,
		    "failure domain %s is not below %s %s", type,
		    crush_type_name(b->type), root);
	if (cls != NULL) {
		if ((rc = crush_check_name("device class", cls, cause)) != 0)
			return rc;
		if (crush_class_index(c, cls) < 0)
			return crush_fail(cause, EINVAL,
			    "device class %s does not exist", cls);
	}
	if (c->nrules >= CRUSH_MAX_RULES)
		return crush_fail(cause, ENOSPC, "too many rules (at most %d)",
		    CRUSH_MAX_RULES);
	/* The lowest free id: the rules are sorted by id. */
	for (i = 0, rid = 0; i < c->nrules && c->rules[i].id == rid; i++)
		rid++;
	crush_rule_insert(c, rid, name, b->id, t, cls);
	if (id != NULL)
		*id = rid;
	crush_rebuild(c);
	return 0;
}

int
crush_rule_remove(struct crush *c, const char *name, const uint32_t *in_use,
    size_t n, char **cause)
{
	size_t i, k;
	int id;

	if ((id = crush_rule_id(c, name)) < 0)
		return crush_fail(cause, ENOENT, "rule %.*s does not exist",
		    CRUSH_NAME_MAX, name);
	for (i = 0; i < n; i++)
		if (in_use[i] == (uint32_t)id)
			return crush_fail(cause, EBUSY,
			    "crush ruleset %s %d is in use", name, id);
	for (k = 0; k < c->nrules && c->rules[k].id != (uint32_t)id; k++)
		;
	free(c->rules[k].name);
	free(c->rules[k].cls);
	memmove(c->rules + k, c->rules + k + 1,
	    (c->nrules - k - 1) * sizeof *c->rules);
	c->nrules--;
	crush_rebuild(c);
	return 0;
}

/*
 * Placement (mapmon-protocol(7), PLACEMENT).
 */

uint64_t
crush_attempt_key(uint32_t pool, uint32_t seed, uint32_t r)
{
	return placement_mix(placement_pgkey(pool, seed) +
	    (CRUSH_ATTEMPT_BASE + r) * PLACEMENT_GOLDEN);
}

uint64_t
crush_item_hash(uint64_t akey, int32_t item)
{
	return placement_mix(
	    akey + ((uint64_t)(uint32_t)item + 1) * PLACEMENT_GOLDEN);
}

int64_t
crush_draw(uint64_t hash, uint64_t weight)
{
	if (weight == 0)
		return INT64_MIN;
	return placement_ln((hash >> 32) + 1) * CRUSH_WEIGHT_ONE /
	    (int64_t)weight;
}

/*
 * The equal-weight draw: the first i of the n with the largest
 * placement_mix(akey + off[i]) >> 32.  Under a flat root of 417 hosts
 * (10,000 OSDs in hosts of 24) this loop is most of a placement: about 2
 * ns an item here.  With AVX-512 (its 64-bit multiplies) eight items go
 * at once, 0.9 ns an item at 417, and the same answer: each lane keeps
 * its first largest, and of the lanes with the largest the lowest index
 * wins.  Below CRUSH_VECTOR_MIN items the merge of the lanes costs what
 * they save (measured: one lane is faster at 48 items, even at 64).
 */
#define CRUSH_VECTOR_MIN 64

static uint32_t
crush_equal_scalar(uint64_t akey, const uint64_t *off, uint32_t n)
{
	uint64_t hi, bhi = placement_mix(akey + off[0]) >> 32;
	uint32_t i, best = 0;

	for (i = 1; i < n; i++) {
		hi = placement_mix(akey + off[i]) >> 32;
		if (hi > bhi) {
			bhi = hi;
			best = i;
		}
	}
	return best;
}

#ifdef CRUSH_HAVE_AVX512
/* placement_mix(akey + off[k]) >> 32 for the live k of eight. */
__attribute__((target("avx512f,avx512dq"))) static inline __m512i
crush_hi8(uint64_t akey, const uint64_t *off, __mmask8 live)
{
	const __m512i m1 = _mm512_set1_epi64((long long)0xbf58476d1ce4e5b9ULL);
	const __m512i m2 = _mm512_set1_epi64((long long)0x94d049bb133111ebULL);
	__m512i z;

	z = _mm512_add_epi64(_mm512_set1_epi64((long long)akey),
	    _mm512_maskz_loadu_epi64(live, off));
	z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)),
	    m1);
	z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)),
	    m2);
	return _mm512_srli_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 31)),
	    32);
}

__attribute__((target("avx512f,avx512dq"))) static uint32_t
crush_equal_avx512(uint64_t akey, const uint64_t *off, uint32_t n)
{
	const __m512i eight = _mm512_set1_epi64(8);
	__m512i idx = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
	__m512i bhi = _mm512_setzero_si512(), bidx = _mm512_set1_epi64(-1);
	__m512i z;
	__mmask8 live, more;
	uint64_t hi, lanes_hi[8], lanes_idx[8], best = UINT64_MAX;
	uint32_t i;
	int l;

	for (i = 0; i < n; i += 8) {
		live = n - i >= 8 ? 0xff : (__mmask8)((1u << (n - i)) - 1);
		z = crush_hi8(akey, off + i, live);
		/* A lane's first item is its best so far, even at 0. */
		more = _mm512_mask_cmpgt_epu64_mask(live, z, bhi);
		if (i == 0)
			more = live;
		bhi = _mm512_mask_mov_epi64(bhi, more, z);
		bidx = _mm512_mask_mov_epi64(bidx, more, idx);
		idx = _mm512_add_epi64(idx, eight);
	}
	_mm512_storeu_si512(lanes_hi, bhi);
	_mm512_storeu_si512(lanes_idx, bidx);
	/* Lanes never loaded hold 0 at index UINT64_MAX: they lose ties. */
	hi = 0;
	for (l = 0; l < 8; l++)
		if (lanes_hi[l] > hi ||
		    (lanes_hi[l] == hi && lanes_idx[l] < best)) {
			hi = lanes_hi[l];
			best = lanes_idx[l];
		}
	return (uint32_t)best;
}
#endif

uint32_t
crush_equal_best(uint64_t akey, const uint64_t *off, uint32_t n, int scalar)
{
#ifdef CRUSH_HAVE_AVX512
	if (!scalar && n >= CRUSH_VECTOR_MIN && crush_vector_ok())
		return crush_equal_avx512(akey, off, n);
#else
	(void)scalar;
#endif
	return crush_equal_scalar(akey, off, n);
}

int
crush_vector_ok(void)
{
#ifdef CRUSH_HAVE_AVX512
	return __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512dq");
#else
	return 0;
#endif
}

/* The weighted draw's best so far (crush_straw2). */
struct crush_wdraw {
	double cut;
	int64_t bdraw;
	uint64_t bhi;
	uint32_t best;
	int have;
};

/* Item i, whose hash is hi << 32 | ..., against the best so far. */
static inline void
crush_wdraw_try(struct crush_wdraw *d, uint32_t i, uint64_t hi, double recip,
    uint64_t w)
{
	int64_t ln, draw;

	if (d->have &&
	    (double)((int64_t)hi - 4294967295LL + 1024) * recip < d->cut)
		return;
	ln = placement_ln(hi + 1);
	if (d->have && (double)ln * recip < d->cut)
		return;
	draw = ln * CRUSH_WEIGHT_ONE / (int64_t)w;
	if (!d->have || draw > d->bdraw || (draw == d->bdraw && hi > d->bhi)) {
		d->have = 1;
		d->best = i;
		d->bdraw = draw;
		d->bhi = hi;
		d->cut = (double)draw - 16.0;
	}
}

static uint32_t
crush_weighted_scalar(uint64_t akey, const uint64_t *off, const double *recip,
    const uint64_t *w, uint32_t n)
{
	struct crush_wdraw d = { 0 };
	uint32_t i;

	for (i = 0; i < n; i++)
		crush_wdraw_try(&d, i, placement_mix(akey + off[i]) >> 32,
		    recip[i], w[i]);
	return d.best;
}

#ifdef CRUSH_HAVE_AVX512
/*
 * The same, eight hashes and first estimates at a time: only the items
 * whose estimate is not below the cut as it stood at the start of their
 * eight go through crush_wdraw_try(), in order.  The cut only rises, so
 * an item skipped here is one the scalar loop skips too.
 */
__attribute__((target("avx512f,avx512dq"))) static uint32_t
crush_weighted_avx512(uint64_t akey, const uint64_t *off, const double *recip,
    const uint64_t *w, uint32_t n)
{
	const __m512i bias = _mm512_set1_epi64(-4294967295LL + 1024);
	struct crush_wdraw d = { 0 };
	uint64_t lanes[8];
	__m512i z;
	__m512d est;
	__mmask8 live, cand;
	uint32_t i, j;

	for (i = 0; i < n; i += 8) {
		live = n - i >= 8 ? 0xff : (__mmask8)((1u << (n - i)) - 1);
		z = crush_hi8(akey, off + i, live);
		cand = live;
		if (d.have) {
			est = _mm512_mul_pd(
			    _mm512_cvtepi64_pd(_mm512_add_epi64(z, bias)),
			    _mm512_maskz_loadu_pd(live, recip + i));
			cand = _mm512_mask_cmp_pd_mask(live, est,
			    _mm512_set1_pd(d.cut), _CMP_NLT_UQ);
			if (cand == 0)
				continue;
		}
		_mm512_storeu_si512(lanes, z);
		for (; cand != 0; cand &= (__mmask8)(cand - 1)) {
			j = (uint32_t)__builtin_ctz(cand);
			crush_wdraw_try(&d, i + j, lanes[j], recip[i + j],
			    w[i + j]);
		}
	}
	return d.best;
}
#endif

uint32_t
crush_weighted_best(uint64_t akey, const uint64_t *off, const double *recip,
    const uint64_t *w, uint32_t n, int scalar)
{
#ifdef CRUSH_HAVE_AVX512
	if (!scalar && n >= CRUSH_VECTOR_MIN && crush_vector_ok())
		return crush_weighted_avx512(akey, off, recip, w, n);
#else
	(void)scalar;
#endif
	return crush_weighted_scalar(akey, off, recip, w, n);
}

/*
 * Straw2 inside one bucket: the index (in the view) of the item with the
 * highest draw, ties to the higher u, then to the first.  With equal
 * weights the draw only grows with u, so the fast path compares u alone.
 * The weighted path skips sure losers as placement.c's general path does:
 * ln(u) <= u - 2^32 + 1, and the estimate ln * (65536.0 / w) is within 2
 * of the exact quotient (|ln * 65536| < 2^53), whose truncation lies in
 * [x, x + 1); a candidate estimated below the best draw - 16 cannot win.
 * Only the exact draws decide.  Both paths take eight items at a time
 * with AVX-512 in buckets of CRUSH_VECTOR_MIN items or more: 10,000 OSDs
 * in 417 hosts under one root placed a PG in 1.8 us instead of 3.2 to 5.5
 * (BENCHMARKS.md).
 */
static uint32_t
crush_straw2(const struct crush_view *v, const struct crush_cbucket *b,
    uint64_t akey)
{
	const uint64_t *off = v->off + b->first;

	if (b->equal)
		return b->first + crush_equal_best(akey, off, b->n, 0);
	return b->first +
	    crush_weighted_best(akey, off, v->recip + b->first, v->w + b->first,
		b->n, 0);
}

/*
 * From bucket slot down to an item of type target: 0 and *out, or -1 when
 * a bucket on the way has nothing to draw or the draw reaches an item of
 * a lower type.
 */
static int
crush_descend(const struct crush_view *v, uint32_t slot, uint64_t akey,
    int target, int32_t *out)
{
	const struct crush_cbucket *b;
	uint32_t i;

	for (;;) {
		b = &v->b[slot];
		if (b->n == 0)
			return -1;
		i = crush_straw2(v, b, akey);
		if (v->itype[i] == target) {
			*out = v->item[i];
			return 0;
		}
		if (v->itype[i] < target)
			return -1;
		slot = (uint32_t)(-1 - v->item[i]);
	}
}

/* Is leaf up and in (by its reweight, Ceph's is_out)? */
static int
crush_accept(const struct crush_osd_state *st, size_t nst, uint64_t pgkey,
    int32_t leaf)
{
	const struct crush_osd_state *s;

	if ((size_t)leaf >= nst)
		return 0;
	s = &st[leaf];
	if (!s->up || s->reweight == 0)
		return 0;
	if (s->reweight >= CRUSH_WEIGHT_ONE)
		return 1;
	return (placement_mix(
		    pgkey + ((uint64_t)(uint32_t)leaf + 1) * PLACEMENT_GOLDEN) &
		   0xffff) < s->reweight;
}

/*
 * chooseleaf firstn (Ceph's, with its tunables choose_total_tries 50,
 * chooseleaf_descend_once, vary_r and stable): replica rep's attempt f uses
 * r = rep + f; it descends from the root to a failure domain, then from it
 * to a leaf, with the same r.  usable (NULL, or per bucket slot: can any
 * leaf under it be chosen) and ndomains (how many usable domains the root
 * has) only cut short attempts that must fail.
 */
static int
crush_choose(const struct crush *c, const struct crush_rule *rule,
    const struct crush_osd_state *st, size_t nst, const uint8_t *usable,
    size_t ndomains, uint32_t pool, uint32_t seed, unsigned size, int32_t *up)
{
	const struct crush_view *v = &c->views[rule->view];
	uint32_t root = (uint32_t)(-1 - rule->root);
	int32_t dom[CRUSH_MAX_SIZE], item, leaf;
	uint64_t k, akey;
	unsigned rep, f, n = 0, j;

	if (size > CRUSH_MAX_SIZE)
		size = CRUSH_MAX_SIZE;
	k = placement_pgkey(pool, seed);
	for (rep = 0; rep < size; rep++) {
		if (usable != NULL && n >= ndomains)
			break;
		for (f = 0; f <= CRUSH_CHOOSE_TOTAL_TRIES; f++) {
			akey = placement_mix(k +
			    (CRUSH_ATTEMPT_BASE + rep + f) * PLACEMENT_GOLDEN);
			if (crush_descend(v, root, akey, rule->domain, &item) ==
			    -1)
				continue;
			for (j = 0; j < n && dom[j] != item; j++)
				;
			if (j < n)
				continue;
			if (rule->domain == CRUSH_TYPE_OSD)
				leaf = item;
			else if ((usable != NULL && !usable[-1 - item]) ||
			    crush_descend(v, (uint32_t)(-1 - item), akey,
				CRUSH_TYPE_OSD, &leaf) == -1)
				continue;
			if (!crush_accept(st, nst, k, leaf))
				continue;
			dom[n] = item;
			up[n++] = leaf;
			break;
		}
	}
	return (int)n;
}

int
crush_map_pg(const struct crush *c, uint32_t rule,
    const struct crush_osd_state *osds, size_t n, uint32_t pool, uint32_t seed,
    unsigned size, int32_t *up)
{
	const struct crush_rule *r = crush_rule_find(c, rule);

	if (r == NULL)
		return -1;
	return crush_choose(c, r, osds, n, NULL, 0, pool, seed, size, up);
}

struct crush_placement {
	const struct crush *c;
	struct crush_osd_state *st;
	size_t nst;
	uint8_t *usable;  /* per view, c->max_buckets entries */
	size_t *ndomains; /* per rule, by position */
};

/* How many usable items of type domain lie under bucket slot in view v. */
static size_t
crush_count_domains(const struct crush_placement *pl,
    const struct crush_view *v, const uint8_t *usable, uint32_t slot,
    int domain)
{
	const struct crush_cbucket *b = &v->b[slot];
	size_t n = 0;
	uint32_t i;

	for (i = b->first; i < b->first + b->n; i++) {
		int32_t item = v->item[i];

		if (v->itype[i] == domain) {
			if (item >= 0)
				n += (size_t)item < pl->nst &&
				    pl->st[item].up &&
				    pl->st[item].reweight > 0;
			else
				n += usable[-1 - item];
		} else if (v->itype[i] > domain)
			n += crush_count_domains(pl, v, usable,
			    (uint32_t)(-1 - item), domain);
	}
	return n;
}

struct crush_placement *
crush_placement_new(const struct crush *c, const struct crush_osd_state *osds,
    size_t n)
{
	static const int order[] = { CRUSH_TYPE_HOST, CRUSH_TYPE_RACK,
		CRUSH_TYPE_ROOM, CRUSH_TYPE_DATACENTER, CRUSH_TYPE_ROOT };
	struct crush_placement *pl = xcalloc(1, sizeof *pl);
	size_t vi, t, k, slots = c->max_buckets ? c->max_buckets : 1;
	uint32_t i, j;

	pl->c = c;
	pl->nst = n;
	pl->st = xreallocarray(NULL, n ? n : 1, sizeof *pl->st);
	if (n > 0)
		memcpy(pl->st, osds, n * sizeof *pl->st);
	pl->usable = xcalloc(c->nviews, slots);
	for (vi = 0; vi < c->nviews; vi++) {
		const struct crush_view *v = &c->views[vi];
		uint8_t *u = pl->usable + vi * slots;

		for (t = 0; t < nitems(order); t++) {
			for (i = 0; i < c->max_buckets; i++) {
				const struct crush_cbucket *b = &v->b[i];

				if (c->buckets[i].id == 0 ||
				    c->buckets[i].type != order[t])
					continue;
				for (j = b->first; j < b->first + b->n; j++) {
					int32_t item = v->item[j];

					if (item >= 0 ? (size_t)item < n &&
						    osds[item].up &&
						    osds[item].reweight > 0 :
							u[-1 - item] != 0) {
						u[i] = 1;
						break;
					}
				}
			}
		}
	}
	pl->ndomains = xcalloc(c->nrules ? c->nrules : 1, sizeof *pl->ndomains);
	for (k = 0; k < c->nrules; k++) {
		const struct crush_rule *r = &c->rules[k];

		pl->ndomains[k] = crush_count_domains(pl, &c->views[r->view],
		    pl->usable + (size_t)r->view * slots,
		    (uint32_t)(-1 - r->root), r->domain);
	}
	return pl;
}

long
crush_placement_domains(const struct crush_placement *pl, uint32_t rule)
{
	const struct crush_rule *r = crush_rule_find(pl->c, rule);

	return r != NULL ? (long)pl->ndomains[r - pl->c->rules] : -1;
}

void
crush_placement_free(struct crush_placement *pl)
{
	if (pl == NULL)
		return;
	free(pl->st);
	free(pl->usable);
	free(pl->ndomains);
	free(pl);
}

int
crush_placement_map_pg(const struct crush_placement *pl, uint32_t rule,
    uint32_t pool, uint32_t seed, unsigned size, int32_t *up)
{
	const struct crush *c = pl->c;
	const struct crush_rule *r = crush_rule_find(c, rule);
	size_t k, slots = c->max_buckets ? c->max_buckets : 1;

	if (r == NULL)
		return -1;
	k = (size_t)(r - c->rules);
	return crush_choose(c, r, pl->st, pl->nst,
	    pl->usable + (size_t)r->view * slots, pl->ndomains[k], pool, seed,
	    size, up);
}

/*
 * The tree walk.
 */

/* Ceph's order of a bucket's children in a tree: buckets by name, then
 * OSDs by class and id (the key "_NAME", or "CLASS_osd.%08d"). */
static void
crush_sort_key(const struct crush *c, int32_t item, char *buf, size_t len)
{
	if (item < 0)
		snprintf(buf, len, "_%s", crush_bucket(c, item)->name);
	else
		snprintf(buf, len, "%s_osd.%08d",
		    c->devices[item].cls != NULL ? c->devices[item].cls : "",
		    item);
}

struct crush_sorted {
	int32_t item;
	char key[CRUSH_NAME_MAX * 2 + 16];
};

static int
crush_sorted_cmp(const void *a, const void *b)
{
	return strcmp(((const struct crush_sorted *)a)->key,
	    ((const struct crush_sorted *)b)->key);
}

/* A bucket's children in the walk's order; the caller frees the array. */
static int32_t *
crush_children(const struct crush *c, const struct crush_bucket *b)
{
	struct crush_sorted *s;
	int32_t *out;
	uint32_t i;

	s = xreallocarray(NULL, b->nitems ? b->nitems : 1, sizeof *s);
	for (i = 0; i < b->nitems; i++) {
		s[i].item = b->items[i];
		crush_sort_key(c, b->items[i], s[i].key, sizeof s[i].key);
	}
	qsort(s, b->nitems, sizeof *s, crush_sorted_cmp);
	out = xreallocarray(NULL, b->nitems ? b->nitems : 1, sizeof *out);
	for (i = 0; i < b->nitems; i++)
		out[i] = s[i].item;
	free(s);
	return out;
}

static void
crush_tree_add(const struct crush *c, int32_t item, unsigned depth,
    int32_t parent, struct crush_tree_node **nodes, size_t *n, size_t *cap)
{
	const struct crush_bucket *b;
	struct crush_tree_node *node;
	int32_t *kids;
	uint32_t i;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*nodes = xreallocarray(*nodes, *cap, sizeof **nodes);
	}
	node = &(*nodes)[(*n)++];
	node->id = item;
	node->depth = depth;
	node->parent = parent;
	node->nchildren = 0;
	if (item >= 0) {
		node->type = CRUSH_TYPE_OSD;
		node->weight = c->devices[item].weight;
		return;
	}
	b = crush_bucket(c, item);
	node->type = b->type;
	node->weight = b->weight;
	node->nchildren = b->nitems;
	kids = crush_children(c, b);
	for (i = 0; i < b->nitems; i++)
		crush_tree_add(c, kids[i], depth + 1, item, nodes, n, cap);
	free(kids);
}

size_t
crush_tree(const struct crush *c, struct crush_tree_node **nodes)
{
	size_t n = 0, cap = 0;
	uint32_t i;

	*nodes = NULL;
	/* The top buckets by id, lowest first: the highest slot first. */
	for (i = c->max_buckets; i > 0; i--) {
		const struct crush_bucket *b = &c->buckets[i - 1];

		if (b->id != 0 && b->parent == 0)
			crush_tree_add(c, b->id, 0, 0, nodes, &n, &cap);
	}
	if (*nodes == NULL)
		*nodes = xcalloc(1, sizeof **nodes);
	return n;
}

/*
 * Checks shared by the decoders: everything the operations guarantee.
 */
static int
crush_validate(struct crush *c, char **cause)
{
	uint32_t i, j;
	int32_t *parent_b, *parent_d, osd;
	char **names = NULL;
	size_t k, m;
	int rc = -1;

	parent_b = xcalloc(c->max_buckets ? c->max_buckets : 1,
	    sizeof *parent_b);
	parent_d = xcalloc(c->max_devices ? c->max_devices : 1,
	    sizeof *parent_d);
	for (i = 0; i < c->max_buckets; i++) {
		const struct crush_bucket *b = &c->buckets[i];

		if (b->id == 0)
			continue;
		if (!crush_name_ok(b->name) || crush_osd_name(b->name, &osd)) {
			xasprintf(cause, "crush: bucket %d has an invalid name",
			    b->id);
			goto out;
		}
		for (j = 0; j < b->nitems; j++) {
			int32_t item = b->items[j];
			const struct crush_bucket *ib = crush_bucket(c, item);
			int32_t *pp;

			if (item >= 0 && crush_device(c, item) == NULL) {
				xasprintf(cause,
				    "crush: bucket '%s' holds "
				    "osd.%d, which has no device record",
				    b->name, item);
				goto out;
			}
			if (item < 0 && ib == NULL) {
				xasprintf(cause,
				    "crush: bucket '%s' holds "
				    "bucket %d, which does not exist",
				    b->name, item);
				goto out;
			}
			if (ib != NULL && ib->type >= b->type) {
				xasprintf(cause,
				    "crush: bucket '%s' (a %s) "
				    "holds '%s', a %s",
				    b->name, crush_type_name(b->type), ib->name,
				    crush_type_name(ib->type));
				goto out;
			}
			pp = item >= 0 ? &parent_d[item] : &parent_b[-1 - item];
			if (*pp != 0) {
				xasprintf(cause,
				    "crush: item %d has two parents", item);
				goto out;
			}
			*pp = b->id;
		}
	}
	/* Names once each: sorted, so a record of many buckets stays cheap. */
	names = xreallocarray(NULL, c->nbuckets ? c->nbuckets : 1,
	    sizeof *names);
	for (i = 0, m = 0; i < c->max_buckets; i++)
		if (c->buckets[i].id != 0)
			names[m++] = c->buckets[i].name;
	qsort(names, m, sizeof *names, crush_strcmp_p);
	for (k = 1; k < m; k++)
		if (strcmp(names[k - 1], names[k]) == 0) {
			xasprintf(cause,
			    "crush: bucket name '%s' appears twice", names[k]);
			goto out;
		}
	for (i = 0; i < c->max_devices; i++) {
		if (c->devices[i].exists && parent_d[i] == 0) {
			xasprintf(cause, "crush: osd.%u is in no bucket", i);
			goto out;
		}
		if (c->devices[i].exists &&
		    c->devices[i].weight > CRUSH_WEIGHT16_MAX) {
			xasprintf(cause, "crush: osd.%u's weight is above %g",
			    i, CRUSH_WEIGHT_MAX);
			goto out;
		}
		if (c->devices[i].cls != NULL &&
		    !crush_name_ok(c->devices[i].cls)) {
			xasprintf(cause,
			    "crush: osd.%u has an invalid device class", i);
			goto out;
		}
	}
	for (k = 0; k < c->nrules; k++) {
		const struct crush_rule *r = &c->rules[k];
		const struct crush_bucket *root = crush_bucket(c, r->root);

		if (!crush_name_ok(r->name) ||
		    (r->cls != NULL && !crush_name_ok(r->cls))) {
			xasprintf(cause,
			    "crush: rule %u has an invalid name or class",
			    r->id);
			goto out;
		}
		for (m = 0; m < k; m++)
			if (c->rules[m].id == r->id ||
			    strcmp(c->rules[m].name, r->name) == 0) {
				xasprintf(cause,
				    "crush: rule %u '%s' appears twice", r->id,
				    r->name);
				goto out;
			}
		if (r->id >= CRUSH_MAX_RULES || root == NULL ||
		    crush_type_name(r->domain) == NULL ||
		    r->domain >= root->type) {
			xasprintf(cause,
			    "crush: rule '%s' takes a missing "
			    "bucket or has a bad failure domain",
			    r->name);
			goto out;
		}
	}
	crush_rebuild(c);
	if (c->nclasses > CRUSH_MAX_CLASSES) {
		xasprintf(cause, "crush: more than %d device classes",
		    CRUSH_MAX_CLASSES);
		goto out;
	}
	rc = 0;
out:
	free(names);
	free(parent_b);
	free(parent_d);
	return rc;
}

/*
 * The binary record.
 */

void
crush_encode(const struct crush *c, struct enc_buf *b)
{
	size_t start, k;
	uint32_t i, j, n;

	start = enc_buf_record_begin(b, CRUSH_STRUCT_V, 1);
	enc_buf_put_u32(b, (uint32_t)c->nbuckets);
	for (i = 0; i < c->max_buckets; i++) {
		const struct crush_bucket *bk = &c->buckets[i];

		if (bk->id == 0)
			continue;
		enc_buf_put_u32(b, (uint32_t)bk->id);
		enc_buf_put_u8(b, bk->type);
		enc_buf_put_str(b, bk->name);
		enc_buf_put_u32(b, bk->nitems);
		for (j = 0; j < bk->nitems; j++)
			enc_buf_put_u32(b, (uint32_t)bk->items[j]);
	}
	for (i = 0, n = 0; i < c->max_devices; i++)
		n += c->devices[i].exists;
	enc_buf_put_u32(b, n);
	for (i = 0; i < c->max_devices; i++) {
		const struct crush_device *d = &c->devices[i];

		if (!d->exists)
			continue;
		enc_buf_put_u32(b, i);
		enc_buf_put_u64(b, d->weight);
		enc_buf_put_str(b, d->cls != NULL ? d->cls : "");
	}
	enc_buf_put_u32(b, (uint32_t)c->nrules);
	for (k = 0; k < c->nrules; k++) {
		const struct crush_rule *r = &c->rules[k];

		enc_buf_put_u32(b, r->id);
		enc_buf_put_str(b, r->name);
		enc_buf_put_u32(b, (uint32_t)r->root);
		enc_buf_put_u8(b, r->domain);
		enc_buf_put_str(b, r->cls != NULL ? r->cls : "");
	}
	enc_buf_record_end(b, start);
}

/* A decoded string that must be a name (empty allowed when may_empty). */
static char *
crush_get_name(struct enc_reader *r, int may_empty)
{
	char *s = enc_get_str(r);

	if (s == NULL)
		return NULL;
	if (s[0] == '\0' && may_empty)
		return s;
	if (!crush_name_ok(s)) {
		free(s);
		r->failed = 1;
		return NULL;
	}
	return s;
}

struct crush *
crush_decode(const void *p, size_t len, char **cause)
{
	struct enc_reader r, body;
	struct crush *c = xcalloc(1, sizeof *c);
	const char *why;
	uint32_t i, j, n, nitems;
	char *s;
	int v;

	enc_reader_init(&r, p, len);
	if ((v = enc_reader_record(&r, CRUSH_STRUCT_V, &body, &why)) == -1) {
		xasprintf(cause, "crush: %s", why);
		goto fail;
	}
	/* Every count is checked against the bytes left before use. */
	n = enc_get_u32(&body);
	if (body.failed || n > CRUSH_MAX_BUCKETS || n > body.left / 11)
		goto bad;
	for (i = 0; i < n; i++) {
		int32_t id = (int32_t)enc_get_u32(&body);
		uint8_t type = enc_get_u8(&body);
		struct crush_bucket *b;

		if (body.failed || id >= 0 || id < -CRUSH_MAX_BUCKETS ||
		    !crush_is_bucket_type(type))
			goto bad;
		crush_grow_buckets(c, (uint32_t)(-id));
		b = &c->buckets[-1 - id];
		if (b->id != 0)
			goto bad;
		b->id = id;
		b->type = type;
		c->nbuckets++;
		if ((b->name = crush_get_name(&body, 0)) == NULL)
			goto bad;
		nitems = enc_get_u32(&body);
		if (body.failed || nitems > body.left / 4)
			goto bad;
		b->items = xreallocarray(NULL, nitems ? nitems : 1,
		    sizeof *b->items);
		for (j = 0; j < nitems; j++) {
			int32_t item = (int32_t)enc_get_u32(&body);

			if (item >= CRUSH_MAX_DEVICES ||
			    item < -CRUSH_MAX_BUCKETS)
				goto bad;
			b->items[b->nitems++] = item;
		}
	}
	n = enc_get_u32(&body);
	if (body.failed || n > CRUSH_MAX_DEVICES || n > body.left / 14)
		goto bad;
	for (i = 0; i < n; i++) {
		uint32_t id = enc_get_u32(&body);
		struct crush_device *d;

		if (body.failed || id >= CRUSH_MAX_DEVICES)
			goto bad;
		crush_grow_devices(c, id + 1);
		d = &c->devices[id];
		if (d->exists)
			goto bad;
		d->exists = 1;
		d->weight = enc_get_u64(&body);
		if ((s = crush_get_name(&body, 1)) == NULL)
			goto bad;
		if (s[0] == '\0')
			free(s);
		else
			d->cls = s;
	}
	n = enc_get_u32(&body);
	if (body.failed || n > CRUSH_MAX_RULES || n > body.left / 12)
		goto bad;
	for (i = 0; i < n; i++) {
		uint32_t id = enc_get_u32(&body);
		char *name = crush_get_name(&body, 0), *cls;
		int32_t root = (int32_t)enc_get_u32(&body);
		uint8_t domain = enc_get_u8(&body);

		cls = crush_get_name(&body, 1);
		if (name == NULL || cls == NULL || id >= CRUSH_MAX_RULES ||
		    crush_rule_find(c, id) != NULL) {
			free(name);
			free(cls);
			goto bad;
		}
		crush_rule_insert(c, id, name, root, domain,
		    cls[0] != '\0' ? cls : NULL);
		free(name);
		free(cls);
	}
	if (!enc_reader_body_ok(&body) || r.left != 0)
		goto bad;
	(void)v;
	if (crush_validate(c, cause) != 0)
		goto fail;
	return c;
bad:
	xasprintf(cause,
	    "crush: corrupt record (short or invalid field near "
	    "byte %zu of %zu)",
	    len - r.left - body.left, len);
fail:
	crush_free(c);
	return NULL;
}

/*
 * JSON.
 */

static json_t *
crush_rule_json(const struct crush *c, const struct crush_rule *r)
{
	const struct crush_bucket *root = crush_bucket(c, r->root);
	char take[2 * CRUSH_NAME_MAX + 2];

	if (r->cls != NULL)
		snprintf(take, sizeof take, "%s~%s", root->name, r->cls);
	else
		snprintf(take, sizeof take, "%s", root->name);
	return json_pack("{s:I, s:s, s:I, s:i, s:i, s:i, s:[{s:s, s:i, s:s}, "
			 "{s:s, s:i, s:s}, {s:s}]}",
	    "rule_id", (json_int_t)r->id, "rule_name", r->name, "ruleset",
	    (json_int_t)r->id, "type", 1, "min_size", 1, "max_size",
	    CRUSH_MAX_SIZE, "steps", "op", "take", "item", (int)r->root,
	    "item_name", take, "op", "chooseleaf_firstn", "num", 0, "type",
	    crush_type_name(r->domain), "op", "emit");
}

json_t *
crush_rule_to_json(const struct crush *c, uint32_t id)
{
	const struct crush_rule *r = crush_rule_find(c, id);

	return r != NULL ? crush_rule_json(c, r) : NULL;
}

json_t *
crush_to_json(const struct crush *c)
{
	json_t *root, *devices, *types, *buckets, *rules, *b, *items, *cw;
	char name[32];
	uint32_t i, j;
	size_t k;

	devices = json_array();
	for (i = 0; i < c->max_devices; i++) {
		const struct crush_device *d = &c->devices[i];
		json_t *dev;

		if (!d->exists)
			continue;
		snprintf(name, sizeof name, "osd.%u", i);
		dev = json_pack("{s:I, s:s}", "id", (json_int_t)i, "name",
		    name);
		if (d->cls != NULL)
			json_object_set_new(dev, "class", json_string(d->cls));
		json_array_append_new(devices, dev);
	}
	types = json_array();
	for (k = 0; k < nitems(crush_types); k++)
		json_array_append_new(types,
		    json_pack("{s:i, s:s}", "type_id", crush_types[k].id,
			"name", crush_types[k].name));
	buckets = json_array();
	for (i = 0; i < c->max_buckets; i++) {
		const struct crush_bucket *bk = &c->buckets[i];

		if (bk->id == 0)
			continue;
		items = json_array();
		for (j = 0; j < bk->nitems; j++)
			json_array_append_new(items,
			    json_pack("{s:i, s:I, s:i}", "id",
				(int)bk->items[j], "weight",
				(json_int_t)crush_item_weight_in(c,
				    bk->items[j], -1),
				"pos", (int)j));
		cw = json_object();
		for (k = 0; k < c->nclasses; k++)
			json_object_set_new(cw, c->classes[k],
			    json_integer((json_int_t)bk->cweight[k]));
		b = json_pack("{s:i, s:s, s:i, s:s, s:I, s:s, s:s, s:o, s:o}",
		    "id", (int)bk->id, "name", bk->name, "type_id",
		    (int)bk->type, "type_name", crush_type_name(bk->type),
		    "weight", (json_int_t)bk->weight, "alg", "straw2", "hash",
		    "splitmix64", "items", items, "class_weights", cw);
		json_array_append_new(buckets, b);
	}
	rules = json_array();
	for (k = 0; k < c->nrules; k++)
		json_array_append_new(rules, crush_rule_json(c, &c->rules[k]));
	root = json_pack("{s:o, s:o, s:o, s:o, s:{s:i, s:i, s:i, s:i, s:i, "
			 "s:i}, s:{}}",
	    "devices", devices, "types", types, "buckets", buckets, "rules",
	    rules, "tunables", "choose_local_tries", 0,
	    "choose_local_fallback_tries", 0, "choose_total_tries",
	    CRUSH_CHOOSE_TOTAL_TRIES, "chooseleaf_descend_once", 1,
	    "chooseleaf_vary_r", 1, "chooseleaf_stable", 1, "choose_args");
	return root;
}

static json_t *
crush_tree_node_json(const struct crush *c, const struct crush_tree_node *nd)
{
	const struct crush_bucket *b;
	json_t *o, *kids;
	int32_t *sorted;
	char name[32];
	uint32_t i;

	o = json_pack("{s:i}", "id", (int)nd->id);
	if (nd->id >= 0) {
		if (c->devices[nd->id].cls != NULL)
			json_object_set_new(o, "device_class",
			    json_string(c->devices[nd->id].cls));
		snprintf(name, sizeof name, "osd.%d", nd->id);
		json_object_set_new(o, "name", json_string(name));
		json_object_set_new(o, "type", json_string("osd"));
		json_object_set_new(o, "type_id", json_integer(0));
		json_object_set_new(o, "crush_weight",
		    json_real((double)nd->weight / CRUSH_WEIGHT_ONE));
		json_object_set_new(o, "depth", json_integer(nd->depth));
		return o;
	}
	b = crush_bucket(c, nd->id);
	json_object_set_new(o, "name", json_string(b->name));
	json_object_set_new(o, "type", json_string(crush_type_name(b->type)));
	json_object_set_new(o, "type_id", json_integer(b->type));
	/* Ceph lists a bucket's children in the reverse of the walk. */
	kids = json_array();
	sorted = crush_children(c, b);
	for (i = b->nitems; i > 0; i--)
		json_array_append_new(kids, json_integer(sorted[i - 1]));
	free(sorted);
	json_object_set_new(o, "children", kids);
	return o;
}

json_t *
crush_tree_to_json(const struct crush *c)
{
	struct crush_tree_node *nodes;
	json_t *arr = json_array();
	size_t n, i;

	n = crush_tree(c, &nodes);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, crush_tree_node_json(c, &nodes[i]));
	free(nodes);
	return json_pack("{s:o, s:[]}", "nodes", arr, "stray");
}

/* An integer member of o within [lo, hi]: 0 and *v, or -1. */
static int
crush_json_int(json_t *o, const char *key, json_int_t lo, json_int_t hi,
    json_int_t *v)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_integer(x))
		return -1;
	*v = json_integer_value(x);
	return *v >= lo && *v <= hi ? 0 : -1;
}

static const char *
crush_json_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int
crush_json_rule(struct crush *c, json_t *jr, char **cause)
{
	json_t *steps, *take, *choose;
	const char *name, *item_name, *tname, *tilde;
	json_int_t id, root;
	int domain;

	name = crush_json_str(jr, "rule_name");
	steps = json_object_get(jr, "steps");
	if (crush_json_int(jr, "rule_id", 0, CRUSH_MAX_RULES - 1, &id) != 0 ||
	    name == NULL || !crush_name_ok(name) || !json_is_array(steps) ||
	    json_array_size(steps) != 3) {
		xasprintf(cause,
		    "crush: a rule lacks rule_id, rule_name or "
		    "its three steps");
		return -1;
	}
	take = json_array_get(steps, 0);
	choose = json_array_get(steps, 1);
	tname = crush_json_str(choose, "type");
	item_name = crush_json_str(take, "item_name");
	if (!crush_str_equal(crush_json_str(take, "op"), "take") ||
	    !crush_str_equal(crush_json_str(choose, "op"),
		"chooseleaf_firstn") ||
	    !crush_str_equal(crush_json_str(json_array_get(steps, 2), "op"),
		"emit") ||
	    crush_json_int(take, "item", -CRUSH_MAX_BUCKETS, -1, &root) != 0 ||
	    tname == NULL || (domain = crush_type_id(tname)) < 0 ||
	    item_name == NULL || crush_rule_find(c, (uint32_t)id) != NULL) {
		xasprintf(cause,
		    "crush: rule '%s' is not take, "
		    "chooseleaf_firstn TYPE, emit",
		    name);
		return -1;
	}
	if ((tilde = strchr(item_name, '~')) != NULL &&
	    !crush_name_ok(tilde + 1)) {
		xasprintf(cause, "crush: rule '%s' takes an invalid class",
		    name);
		return -1;
	}
	crush_rule_insert(c, (uint32_t)id, name, (int32_t)root, domain,
	    tilde != NULL ? tilde + 1 : NULL);
	return 0;
}

struct crush *
crush_from_json(json_t *j, char **cause)
{
	struct crush *c = xcalloc(1, sizeof *c);
	json_t *buckets, *devices, *rules, *jb, *it, *items;
	size_t i, k;
	json_int_t id, type, item, w;
	const char *name;

	buckets = json_object_get(j, "buckets");
	devices = json_object_get(j, "devices");
	rules = json_object_get(j, "rules");
	if (!json_is_array(buckets) || !json_is_array(devices) ||
	    !json_is_array(rules) || json_array_size(rules) > CRUSH_MAX_RULES ||
	    json_array_size(buckets) > CRUSH_MAX_BUCKETS) {
		xasprintf(cause,
		    "crush: the map lacks buckets, devices or rules");
		goto fail;
	}
	json_array_foreach(buckets, i, jb) {
		struct crush_bucket *b;

		name = crush_json_str(jb, "name");
		items = json_object_get(jb, "items");
		if (crush_json_int(jb, "id", -CRUSH_MAX_BUCKETS, -1, &id) !=
			0 ||
		    crush_json_int(jb, "type_id", 1, CRUSH_TYPE_ROOT, &type) !=
			0 ||
		    !crush_is_bucket_type((int)type) || name == NULL ||
		    !json_is_array(items)) {
			xasprintf(cause,
			    "crush: bucket %zu lacks a valid id, "
			    "type_id, name or items",
			    i);
			goto fail;
		}
		crush_grow_buckets(c, (uint32_t)(-id));
		b = &c->buckets[-1 - id];
		if (b->id != 0) {
			xasprintf(cause, "crush: bucket %d appears twice",
			    (int)id);
			goto fail;
		}
		b->id = (int32_t)id;
		b->type = (uint8_t)type;
		b->name = xstrdup(name);
		c->nbuckets++;
		b->items = xreallocarray(NULL, json_array_size(items) + 1,
		    sizeof *b->items);
		json_array_foreach(items, k, it) {
			if (crush_json_int(it, "id", -CRUSH_MAX_BUCKETS,
				CRUSH_MAX_DEVICES - 1, &item) != 0 ||
			    crush_json_int(it, "weight", 0, INT64_MAX, &w) !=
				0) {
				xasprintf(cause,
				    "crush: bucket '%s' has an "
				    "item without a valid id and weight",
				    name);
				goto fail;
			}
			b->items[b->nitems++] = (int32_t)item;
			if (item < 0)
				continue;
			if (item < (json_int_t)c->max_devices &&
			    c->devices[item].exists) {
				xasprintf(cause, "crush: osd.%d appears twice",
				    (int)item);
				goto fail;
			}
			crush_grow_devices(c, (uint32_t)item + 1);
			c->devices[item].exists = 1;
			c->devices[item].weight = (uint64_t)w;
		}
	}
	json_array_foreach(devices, i, it) {
		const char *cls = crush_json_str(it, "class");

		if (crush_json_int(it, "id", 0, CRUSH_MAX_DEVICES - 1, &id) !=
		    0) {
			xasprintf(cause, "crush: device %zu lacks a valid id",
			    i);
			goto fail;
		}
		if (id >= (json_int_t)c->max_devices ||
		    !c->devices[id].exists) {
			xasprintf(cause, "crush: device osd.%d is in no bucket",
			    (int)id);
			goto fail;
		}
		if (cls != NULL) {
			if (!crush_name_ok(cls) || c->devices[id].cls != NULL) {
				xasprintf(cause,
				    "crush: device osd.%d has an invalid class",
				    (int)id);
				goto fail;
			}
			c->devices[id].cls = xstrdup(cls);
		}
	}
	json_array_foreach(rules, i, it) {
		if (crush_json_rule(c, it, cause) != 0)
			goto fail;
	}
	if (crush_validate(c, cause) != 0)
		goto fail;
	/* The weights it states must be the ones the items sum to. */
	json_array_foreach(buckets, i, jb) {
		const struct crush_bucket *b;

		if (crush_json_int(jb, "id", -CRUSH_MAX_BUCKETS, -1, &id) !=
			0 ||
		    (b = crush_bucket(c, (int32_t)id)) == NULL)
			continue; /* read and checked above */
		if (crush_json_int(jb, "weight", 0, INT64_MAX, &w) == 0 &&
		    (uint64_t)w != b->weight) {
			xasprintf(cause,
			    "crush: bucket '%s' states weight "
			    "%lld, its items sum to %llu",
			    b->name, (long long)w,
			    (unsigned long long)b->weight);
			goto fail;
		}
	}
	return c;
fail:
	crush_free(c);
	return NULL;
}
