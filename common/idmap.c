/* idmap.c: the intrusive id map, chained buckets indexed by id & mask. */
#include "config.h"

#include <stdlib.h>

#include "common/idmap.h"
#include "common/mapmon.h"

void
idmap_init(struct idmap *m)
{
	m->table = NULL;
	m->size = 0;
	m->count = 0;
}

void
idmap_free(struct idmap *m)
{
	free(m->table);
	idmap_init(m);
}

/* Double the buckets (or make the first ones) and move every node over. */
static void
idmap_grow(struct idmap *m)
{
	struct idmap_node **table, *n, *next;
	size_t i, size = m->size ? m->size * 2 : IDMAP_MIN_SIZE;

	table = xcalloc(size, sizeof *table);
	for (i = 0; i < m->size; i++) {
		for (n = m->table[i]; n != NULL; n = next) {
			next = n->next;
			n->next = table[n->id & (size - 1)];
			table[n->id & (size - 1)] = n;
		}
	}
	free(m->table);
	m->table = table;
	m->size = size;
}

void
idmap_insert(struct idmap *m, struct idmap_node *n)
{
	struct idmap_node **b;

	if (m->count >= m->size)
		idmap_grow(m);
	b = &m->table[n->id & (m->size - 1)];
	n->next = *b;
	*b = n;
	m->count++;
}

struct idmap_node *
idmap_find(const struct idmap *m, uint64_t id)
{
	struct idmap_node *n;

	if (m->size == 0)
		return NULL;
	for (n = m->table[id & (m->size - 1)]; n != NULL; n = n->next)
		if (n->id == id)
			return n;
	return NULL;
}

void
idmap_remove(struct idmap *m, struct idmap_node *n)
{
	struct idmap_node **pp;

	if (m->size == 0)
		return;
	for (pp = &m->table[n->id & (m->size - 1)]; *pp != NULL;
	    pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			m->count--;
			return;
		}
	}
}

size_t
idmap_count(const struct idmap *m)
{
	return m->count;
}
