/*
 * mon_pgindex.h: a map of PG id -> uint32_t (an index into a proposal's
 * array of PG stats): open addressing, linear probing, at most half full.
 * Keys are only added, never removed one by one; the whole index is
 * emptied at once (mon_pgindex_reset), keeping its room, so that a kept
 * index serves the next proposal without a rehash.  A zeroed struct is an
 * empty index.  Memory is the index's own; mon_pgindex_free() gives it back.
 */
#ifndef MON_PGINDEX_H
#define MON_PGINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "map/pg.h"

struct mon_pgindex {
	uint64_t *keys;		/* pool << 32 | seed, + 1 (0 = empty) */
	uint32_t *vals;
	size_t cap;		/* power of two, or 0 */
	size_t n;
};

static inline uint64_t
mon_pgindex_key(struct pg_id id)
{
	return ((uint64_t)id.pool << 32 | id.seed) + 1;
}

static inline size_t
mon_pgindex_slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

/*
 * 1 with *val set when id is in x, else 0.  Inline: every PG a report
 * names is looked up in up to three proposals.
 */
static inline int
mon_pgindex_get(const struct mon_pgindex *x, struct pg_id id, uint32_t *val)
{
	uint64_t key = mon_pgindex_key(id);
	size_t i;

	if (x->cap == 0)
		return 0;
	for (i = mon_pgindex_slot(key, x->cap); x->keys[i] != 0;
	    i = (i + 1) & (x->cap - 1)) {
		if (x->keys[i] == key) {
			*val = x->vals[i];
			return 1;
		}
	}
	return 0;
}

/* Add id -> val; id must not be in x yet. */
void mon_pgindex_put(struct mon_pgindex *x, struct pg_id id, uint32_t val);

/* Room for n keys without a rehash (one rehash now, when it grows). */
void mon_pgindex_reserve(struct mon_pgindex *x, size_t n);

/* Empty x, keeping its room. */
void mon_pgindex_reset(struct mon_pgindex *x);

/* Free x's memory; x is then empty (zeroed). */
void mon_pgindex_free(struct mon_pgindex *x);

#endif /* MON_PGINDEX_H */
