/*
 * idmap.h: an intrusive hash map keyed by a uint64_t id, for ids handed out
 * in sequence (the server's connections, the client's waiting requests).
 *
 * The caller embeds a struct idmap_node in its own struct, sets node.id and
 * inserts the node; the map never allocates or frees nodes, only its table
 * of buckets.  The bucket of an id is id & (size - 1): ids given out one
 * after another fall in different buckets without any hashing.  The table
 * starts at IDMAP_MIN_SIZE buckets on the first insert and doubles whenever
 * the map holds as many nodes as it has buckets, so chains stay about one
 * node long; it never shrinks.  Not thread-safe.
 */
#ifndef IDMAP_H
#define IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define IDMAP_MIN_SIZE 64

struct idmap_node {
	uint64_t id;		 /* set by the caller before idmap_insert() */
	struct idmap_node *next; /* the map's: its bucket's chain */
};

struct idmap {
	struct idmap_node **table; /* size buckets; NULL before an insert */
	size_t size;		   /* 0, or a power of two */
	size_t count;		   /* nodes in the map */
};

/* The struct of type that holds node as its member (node is not NULL). */
#define idmap_entry(node, type, member) \
	((type *)(void *)((char *)(node) - offsetof(type, member)))

/* An empty map; it allocates nothing until the first insert. */
void idmap_init(struct idmap *m);

/*
 * Free the table and leave the map empty, as idmap_init() does.  The nodes
 * still in it are the caller's and are not touched.
 */
void idmap_free(struct idmap *m);

/*
 * Add n under n->id, growing the table when it is as full as it is large
 * (allocation failure is fatal).  No node with that id may be in the map
 * already: ids come from the caller's own counter.
 */
void idmap_insert(struct idmap *m, struct idmap_node *n);

/* The node of id, or NULL when there is none. */
struct idmap_node *idmap_find(const struct idmap *m, uint64_t id);

/* Take n out of the map; nothing happens when it is not in it. */
void idmap_remove(struct idmap *m, struct idmap_node *n);

/* How many nodes the map holds. */
size_t idmap_count(const struct idmap *m);

#endif /* IDMAP_H */
