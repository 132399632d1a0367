/*
 * mon_capacity.h: the OSDs' capacity as the monitor keeps it, for mon/
 * only (mon_capacity.c).
 *
 * What each OSD's last beacon said of its store (mon_osd_live's statfs) is
 * summed for `df' and the usage line of `status', judged against the full
 * ratios of the committed osdmap for the *FULL health checks, and weighed
 * for the MAX AVAIL of `df'.  Every figure is kept up to date as a beacon
 * or a commit changes one OSD (O(log OSDs) each); only a change of the
 * full ratios recomputes every OSD.  So `df' and `status' cost O(pools),
 * never a scan of the OSDs.
 *
 * Which OSD counts where, as Ceph's manager counts osd_stat (mapmon(8),
 * "Capacity"):
 *   sums      OSDs that exist and are in (reweight above 0) and have sent
 *             a capacity; an out OSD's figures count as zero, a down one
 *             keeps its last;
 *   fullness  every OSD that exists and has sent a capacity: its raw use,
 *             (total - avail) / total, above nearfull_ratio is nearfull,
 *             above backfillfull_ratio backfillfull, above full_ratio full;
 *   MAX AVAIL the OSDs placement may choose (up, in, weight above 0):
 *             the least, over those with a capacity, of (avail - (1 -
 *             full_ratio) x total) divided by the OSD's share of the
 *             weight.
 * A removed OSD's capacity is forgotten when the removal commits.
 */
#ifndef MON_CAPACITY_H
#define MON_CAPACITY_H

#include <stdint.h>

#include "map/osdmap.h"
#include "map/statfs.h"

struct mon;

/* An OSD's fullness, worst last. */
enum mon_full_state {
	MON_FULL_NONE = 0,
	MON_FULL_NEAR,
	MON_FULL_BACKFILL,
	MON_FULL_FULL,
	MON_FULL_STATES
};

/* What one OSD adds to the figures now. */
struct mon_capacity_osd {
	uint8_t counted; /* sums holds its figures */
	uint8_t state;	 /* enum mon_full_state */
	uint32_t weight; /* in weight_sum (16.16); 0: placement skips it */
	struct statfs_osd sums; /* what it added to sum */
};

struct mon_capacity {
	struct statfs_osd sum;		  /* of the counted OSDs */
	uint32_t num_osds;		  /* counted */
	uint32_t nstate[MON_FULL_STATES]; /* OSDs by fullness (NONE unused) */
	uint64_t weight_sum;		  /* of the OSDs placement may choose */
	struct mon_capacity_osd *osd;	  /* by id, n of them */
	uint32_t n;
	/*
	 * A min-tree over the OSDs' headroom per unit of weight (INFINITY
	 * for those without): tree[1] is the least, leaves n entries from
	 * tree[n], n a power of two.
	 */
	double *tree;
};

/* Recompute what OSD id adds, from its live record and the committed map. */
void mon_capacity_osd(struct mon *, int32_t id);
/*
 * After the committed osdmap became inc's epoch: forget the capacity of
 * the OSDs it removes, recompute those it changes, and every OSD when it
 * changes a full ratio.
 */
void mon_capacity_commit(struct mon *, const struct osdmap_inc *inc);
/*
 * At start, once the pipeline runs: the figures of the loaded map (its
 * OSDs' weights; no capacity is known yet).  And a map read from an older
 * record format
 * (osdmap struct_v) is upgraded by the first commit, an epoch that sets its
 * full ratios and writes the map whole in the new format (a version 2 map's
 * pools keep pgp_num = pg_num), with a cluster log line (as Ceph's monitor
 * fills ratios a map lacks in its next epoch).
 */
void mon_capacity_open(struct mon *);
/* Free the figures (at mon_free()). */
void mon_capacity_clear(struct mon *);
/*
 * Recount every figure from the OSDs and compare: 0, or -1 with *cause (the
 * caller frees) naming the first difference.
 */
int mon_capacity_check(struct mon *, char **cause);
/* The fullness of OSD id (MON_FULL_NONE when unknown). */
enum mon_full_state mon_capacity_state(const struct mon *, int32_t id);
/* The raw bytes the OSDs can still take before the first is full. */
uint64_t mon_capacity_raw_avail(const struct mon *);

#endif /* MON_CAPACITY_H */
