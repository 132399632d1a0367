/*
 * pgmap.h: the committed PG stats and the derived figures (`pg stat`, `df`).
 *
 * PG stats live in one dense array per pool, indexed by seed, so a PG is
 * found in O(1) and a pool is scanned in seed order.  The derived figures
 * (PGs by state, per-pool and cluster sums, per-OSD PG counts) are kept up
 * to date by pgmap_replace_tally(): the old stat is subtracted and the new
 * one added, so no query ever scans every PG.  pgmap_recount() builds them from
 * scratch, to check.
 */
#ifndef PGMAP_H
#define PGMAP_H

#include <stddef.h>
#include <stdint.h>

#include "map/pg.h"

/*
 * The counters of Ceph's stat_sum that a PG stat holds, in Ceph's order
 * (object_stat_sum_t::dump()), each a struct pg_stat field of that name.
 */
#define PGMAP_STAT_SUM_FIELDS(X)                                               \
	X(num_bytes)                                                           \
	X(num_objects)                                                         \
	X(num_object_clones)                                                   \
	X(num_object_copies)                                                   \
	X(num_objects_missing_on_primary)                                      \
	X(num_objects_degraded)                                                \
	X(num_objects_misplaced)                                               \
	X(num_objects_unfound)                                                 \
	X(num_objects_dirty)                                                   \
	X(num_whiteouts)                                                       \
	X(num_read)                                                            \
	X(num_read_kb)                                                         \
	X(num_write)                                                           \
	X(num_write_kb)                                                        \
	X(num_scrub_errors)                                                    \
	X(num_shallow_scrub_errors)                                            \
	X(num_deep_scrub_errors)                                               \
	X(num_objects_recovered)                                               \
	X(num_bytes_recovered)                                                 \
	X(num_keys_recovered)                                                  \
	X(num_objects_omap)                                                    \
	X(num_objects_hit_set_archive)                                         \
	X(num_bytes_hit_set_archive)                                           \
	X(num_flush)                                                           \
	X(num_evict)                                                           \
	X(num_promote)                                                         \
	X(num_large_omap_objects)                                              \
	X(num_objects_manifest)                                                \
	X(num_omap_bytes)                                                      \
	X(num_omap_keys)                                                       \
	X(num_objects_repaired)

struct pgmap_sums {
	uint64_t num_pgs;
#define PGMAP_SUM_MEMBER(f) uint64_t f;
	PGMAP_STAT_SUM_FIELDS(PGMAP_SUM_MEMBER)
#undef PGMAP_SUM_MEMBER
	uint64_t log_size;
	uint64_t ondisk_log_size;
	uint64_t up;	 /* OSDs in the up sets, summed */
	uint64_t acting; /* OSDs in the acting sets, summed */
};

struct pgmap_state_count {
	uint32_t state;
	uint64_t count;
};

struct pgmap_osd_count {
	uint32_t pgs;		/* PGs whose acting set holds the OSD */
	uint32_t primary;	/* PGs whose acting primary it is */
};

struct pgmap_pool {
	uint32_t id;
	uint32_t pg_num;
	struct pg_stat *pgs;	/* pg_num entries, by seed */
	struct pgmap_sums sums;
};

struct pgmap {
	uint64_t version;
	int64_t stamp;
	size_t npools;		/* sorted by id */
	struct pgmap_pool *pools;
	struct pgmap_sums sums;
	size_t nstates;		/* distinct states with count > 0, any order */
	struct pgmap_state_count *states;
	uint32_t nosds;		/* osd[] covers ids 0 .. nosds-1 */
	struct pgmap_osd_count *osd;
};

void pgmap_init(struct pgmap *);
void pgmap_clear(struct pgmap *);

struct pgmap_pool *pgmap_pool(const struct pgmap *, uint32_t id);
/* The PG's stat, or NULL when its pool or seed does not exist. */
struct pg_stat *pgmap_pg(const struct pgmap *, struct pg_id id);

/*
 * Counting apart: for a cold start that reads the PGs on several threads,
 * and for a commit applied a slice per loop turn.  A tally is a struct
 * pgmap holding figures only (as pgmap_recount()'s output: pools[] has ids
 * and sums, no stats).  pgmap_tally_init() makes an empty one for npools
 * pools of these ids; each thread counts the PGs it reads into its own
 * tally with pgmap_tally_add() (pool_index: the pool's place in ids),
 * touching nothing shared, while the PG is still in its cache.  Then the
 * pools are added to the pgmap with pgmap_pool_attach(), which counts
 * nothing, and every tally is added with pgmap_tally_merge().  The figures
 * are those of counting every PG into the pgmap: sums and counts do not
 * depend on the order they were added in.  pgmap_tally_sub() takes a PG's
 * figures away from the cluster's (the PG of a pool detached: no pool
 * sums).  pgmap_clear() frees a tally.
 */
void pgmap_tally_init(struct pgmap *t, const uint32_t *ids, size_t npools);
void pgmap_tally_add(struct pgmap *t, size_t pool_index,
    const struct pg_stat *st);
void pgmap_tally_sub(struct pgmap *t, const struct pg_stat *st);
/*
 * Add a pool of pg_num PGs whose stats are pgs (taken over: malloc'd,
 * pg_num entries) and zero sums; the PGs' figures are not added: the
 * caller merges a tally that counts every one of them (or the figures are
 * wrong).  A pool of that id must not exist.
 */
void pgmap_pool_attach(struct pgmap *, uint32_t id, uint32_t pg_num,
    struct pg_stat *pgs);
/* Add t's figures to m's (pool sums to the pool of the same id in m). */
void pgmap_tally_merge(struct pgmap *m, const struct pgmap *t);

/*
 * Give pool id pg_num PGs whose stats are pgs (taken over, as above), its
 * sums unchanged, and return its old array (the caller frees it), or NULL
 * when there is no such pool (pgs is then the caller's still).  The
 * figures of PGs added or dropped are the caller's to count.
 */
struct pg_stat *pgmap_pool_replace(struct pgmap *, uint32_t id, uint32_t pg_num,
    struct pg_stat *pgs);
/*
 * Take pool id out of the map, its figures left as they are (the caller
 * takes them away, pgmap_tally_sub()), and return its stats (*pg_num of
 * them, the caller's to free), or NULL when there is no such pool.
 */
struct pg_stat *pgmap_pool_detach(struct pgmap *, uint32_t id,
    uint32_t *pg_num);

/*
 * Ask the CPU for a PG's stat ahead of its replacement: a loop over PGs in
 * report order touches the map at random, and with this a few entries
 * ahead its misses overlap instead of coming one by one.
 */
void pgmap_prefetch(const struct pgmap *, struct pg_id id);

/*
 * Replace one PG's stat in m with *st (same pgid); the change of every
 * figure goes to tally t, not to m: m's figures stay those of before until
 * t is merged with pgmap_tally_merge().  t is made by pgmap_tally_for(t,
 * m), for m's pools in m's order, and m's pools must not change until the
 * merge.  t's counts go below zero where PGs left a state; the merge adds
 * them right.
 */
void pgmap_tally_for(struct pgmap *t, const struct pgmap *m);
void pgmap_replace_tally(struct pgmap *m, struct pgmap *t,
    const struct pg_stat *st);

/* The count of PGs in exactly this state. */
uint64_t pgmap_state_count(const struct pgmap *, uint32_t state);

/*
 * Build the figures of m from scratch into *out (pools' stats are not
 * copied: out->pools holds only ids and sums).  pgmap_figures_equal()
 * compares two sets of figures and describes the first difference.
 */
void pgmap_recount(const struct pgmap *m, struct pgmap *out);
int pgmap_figures_equal(const struct pgmap *a, const struct pgmap *b,
    char *why, size_t whylen);

#endif
