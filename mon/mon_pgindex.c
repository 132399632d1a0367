/*
 * mon_pgindex.c: the PG id index of a proposal (see mon_pgindex.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "mon/mon_pgindex.h"

static void
mon_pgindex_insert(struct mon_pgindex *x, uint64_t key, uint32_t val)
{
	size_t i;

	for (i = mon_pgindex_slot(key, x->cap); x->keys[i] != 0;
	    i = (i + 1) & (x->cap - 1))
		;
	x->keys[i] = key;
	x->vals[i] = val;
	x->n++;
}

/* At most half full: the first room is 1,024 keys, doubled as needed. */
void
mon_pgindex_reserve(struct mon_pgindex *x, size_t n)
{
	struct mon_pgindex old;
	size_t i, cap;

	for (cap = x->cap ? x->cap : 1024; n * 2 > cap; cap *= 2)
		;
	if (cap != x->cap) {
		old = *x;
		x->cap = cap;
		x->keys = xcalloc(x->cap, sizeof *x->keys);
		x->vals = xcalloc(x->cap, sizeof *x->vals);
		x->n = 0;
		for (i = 0; i < old.cap; i++)
			if (old.keys[i] != 0)
				mon_pgindex_insert(x, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
}

void
mon_pgindex_put(struct mon_pgindex *x, struct pg_id id, uint32_t val)
{
	mon_pgindex_reserve(x, x->n + 1);
	mon_pgindex_insert(x, mon_pgindex_key(id), val);
}

void
mon_pgindex_reset(struct mon_pgindex *x)
{
	if (x->cap > 0)
		memset(x->keys, 0, x->cap * sizeof *x->keys);
	x->n = 0;
}

void
mon_pgindex_free(struct mon_pgindex *x)
{
	free(x->keys);
	free(x->vals);
	memset(x, 0, sizeof *x);
}
