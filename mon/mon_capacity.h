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
 *
 * Every monitor has the same figures (mapmond(8), "Capacity"), as Ceph's
 * monitors have the same osd_stat in their replicated PGMap.  Beacons go
 * to the leader (a follower forwards them); it counts a beacon's capacity
 * at once, and carries the capacities changed since the last seal in the
 * next commit: in whatever commit comes next, or, when nothing else
 * commits, in a commit of their own once capacity_interval_ms (5 s, Ceph's
 * mgr_stats_period) has passed since the first of them: at most one small
 * commit every 5 s, and no store write per beacon.  Every monitor applies
 * them from the commit and writes them in its store in the same
 * transaction ("S" records, mon/keys.h), loaded at start: a restarted
 * monitor and a new leader know every OSD's capacity at once.  So a
 * follower's figures lag the leader's by at most that interval and a
 * commit.  With one monitor the same commits persist them.
 */
#ifndef MON_CAPACITY_H
#define MON_CAPACITY_H

#include <stdint.h>

#include "map/osdmap.h"
#include "map/statfs.h"

struct mon;
struct mon_proposal;

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

/* An OSD's capacity carried by a commit. */
struct mon_capacity_change {
	int32_t id;
	struct statfs_osd st;
};

/*
 * A beacon of OSD id gave st: counted at once; when it changed, the next
 * commit carries it (the capacity timer is armed).
 */
void mon_capacity_beacon(struct mon *, int32_t id, const struct statfs_osd *st);
/* At seal: the changed capacities of the OSDs of m->work go in p. */
void mon_capacity_seal(struct mon *, struct mon_proposal *p);
/*
 * p is committed: its capacities are the committed ones, and counted
 * unless a newer beacon of the OSD waits for the next commit.  After
 * mon_capacity_commit() of its map.
 */
void mon_capacity_apply(struct mon *, const struct mon_proposal *p);
/*
 * p will not commit (a failed store write, a refused replication): its
 * capacities wait for the next commit again.
 */
void mon_capacity_unseal(struct mon *, const struct mon_proposal *p);
/*
 * This monitor no longer leads: what it counted of beacons not committed
 * gives way to the committed capacities (the new leader's commits bring
 * the newer ones); nothing waits to be carried.
 */
void mon_capacity_follow(struct mon *);
/*
 * At start, after the committed osdmap is loaded: the "S" records into
 * the live records (before mon_capacity_open()).  0, or -1 with *cause
 * naming a corrupt record.
 */
int mon_capacity_load(struct mon *, char **cause);

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
 * OSDs' weights, and the capacities mon_capacity_load() read).  And a map read from an older
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
