/*
 * osdmap.h: the OSD map (mapmon-protocol(7)) and its incrementals.
 *
 * Linked by the daemon and by the clients (the CLI, the bench's OSD
 * simulator), so that a client holding the map computes any placement
 * itself.  An osdmap changes only by applying an incremental: the monitor
 * builds one per proposal, writes it with the full map of the new epoch, and
 * sends it to subscribers, who apply the very same function.
 *
 * An incremental carries whole replacement records for the OSDs and pools it
 * changes ("upserts"), the ids it removes, and the new flags; applying it to
 * the map of epoch E-1 gives the map of epoch E.
 *
 * Two encodings: binary versioned records for the store (osdmap_encode /
 * osdmap_decode, osdmap_inc_encode / osdmap_inc_decode) and JSON for the
 * wire and the CLI (osdmap_to_json is `osd dump`'s shape).
 */
#ifndef OSDMAP_H
#define OSDMAP_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/enc.h"
#include "map/crush.h"

#define OSDMAP_FLAG_NOOUT 0x01
#define OSDMAP_FLAG_NOUP 0x02
#define OSDMAP_FLAG_NODOWN 0x04
#define OSDMAP_FLAG_NOIN 0x08
#define OSDMAP_FLAG_PAUSE 0x10 /* Ceph's pauserd and pausewr, as one */
#define OSDMAP_FLAGS_ALL 0x1f

#define OSDMAP_WEIGHT_ONE 0x10000	/* weights are 16.16 fixed point */
#define OSDMAP_ADDR_MAX 64
#define OSDMAP_POOL_NAME_MAX 128
#define OSDMAP_MAX_OSD 65536		/* ids are 0 .. OSDMAP_MAX_OSD-1 */
#define OSDMAP_POOL_SIZE_MAX 10		/* = PLACEMENT_MAX_SIZE */
#define OSDMAP_PG_NUM_MAX 1048576	/* per pool */
/* Ceph's MAX_POOL_APPLICATIONS and MAX_POOL_APPLICATION_LENGTH. */
#define OSDMAP_POOL_APPS_MAX 4
#define OSDMAP_POOL_APP_LEN 128

/*
 * The full ratios' defaults, Ceph's: an OSD whose store is used past
 * nearfull_ratio of its size is nearfull (a warning), past
 * backfillfull_ratio refuses backfills, past full_ratio refuses writes.
 */
#define OSDMAP_FULL_RATIO 0.95
#define OSDMAP_BACKFILLFULL_RATIO 0.90
#define OSDMAP_NEARFULL_RATIO 0.85

/*
 * The version of the binary records osdmap_encode() and
 * osdmap_inc_encode() write: 2 added the full ratios (a version 1 record
 * decodes with the default ratios, and an incremental of version 1 changes
 * none); 3 appended each pool's pgp_num (a record of an older version
 * decodes with pgp_num = pg_num); 4 appended the placement hierarchy
 * (crush.h) and each pool's crush_rule (a record of an older version
 * decodes without a hierarchy, placed flat, and with rule 0; the monitor
 * makes the hierarchy in its first commit: mapmond(8), UPGRADES); 5
 * appended each pool's applications and, in the full map, crush_version
 * (a record of an older version decodes with no application on any pool
 * and crush_version 1).
 */
#define OSDMAP_STRUCT_V 5

struct osdmap_osd {
	int32_t id;
	uint8_t exists;
	uint8_t up;
	uint8_t in;
	uint32_t weight;	/* crush weight, 16.16 */
	uint32_t reweight;	/* 0 .. 0x10000 */
	char addr[OSDMAP_ADDR_MAX];
	uint32_t up_from;	/* epoch it was last marked up */
	uint32_t down_at;	/* epoch it was last marked down */
	int64_t down_stamp;	/* when it was marked down (auto-out), us */
};

struct osdmap_pool {
	uint32_t id;
	char name[OSDMAP_POOL_NAME_MAX];
	uint32_t size;
	uint32_t min_size;
	uint32_t pg_num;
	uint32_t created_epoch;
	/*
	 * Ceph's placement PG count, 1 .. pg_num: kept and shown, as `osd
	 * pool set pgp_num' leaves it; placement uses pg_num (mapmon(8)).
	 */
	uint32_t pgp_num;
	uint32_t crush_rule; /* the id of its rule in the hierarchy */
	/*
	 * The applications enabled on it (`osd pool application enable'),
	 * Ceph's application_metadata without its keys: sorted, the first
	 * "" ends them, the rest of an array zeroed.
	 */
	char apps[OSDMAP_POOL_APPS_MAX][OSDMAP_POOL_APP_LEN + 1];
};

struct osdmap {
	uint32_t epoch;
	int64_t created;	/* us */
	int64_t modified;	/* us */
	uint32_t flags;
	char fsid[40];		/* the cluster's, copied from the monmap */
	uint32_t max_osd;	/* osds[] holds ids 0 .. max_osd-1 */
	struct osdmap_osd *osds;
	size_t npools;		/* pools[] sorted by id */
	struct osdmap_pool *pools;
	uint32_t pool_max;	/* highest pool id ever given; never reused */
	double full_ratio;	/* 0 .. 1, nearfull <= backfillfull <= full */
	double backfillfull_ratio;
	double nearfull_ratio;
	/*
	 * The placement hierarchy, held (osdmap_copy() shares it, so it never
	 * changes in place: osdmap_set_crush() replaces it).  NULL in a map
	 * from before it (record version 3 or older): such a map places
	 * flat (placement.h) and every pool has rule 0.
	 */
	struct crush *crush;
	/*
	 * Ceph's crush_version: 1, and one more for each incremental that
	 * carries a new hierarchy (as OSDMap::apply_incremental() counts).
	 */
	uint32_t crush_version;
	/* The record version it was decoded from; 0 when built in memory. */
	uint8_t struct_v;
};

struct osdmap_inc {
	uint32_t epoch;		/* the epoch this incremental makes */
	int64_t modified;
	int64_t new_flags;	/* -1: unchanged */
	uint32_t new_pool_max;	/* 0: unchanged */
	size_t nosds;
	struct osdmap_osd *osds;	/* upserts, by id */
	size_t nremoved_osds;
	int32_t *removed_osds;
	size_t npools;
	struct osdmap_pool *pools;	/* upserts, by id */
	size_t nremoved_pools;
	uint32_t *removed_pools;
	double new_full_ratio; /* < 0: unchanged */
	double new_backfillfull_ratio;
	double new_nearfull_ratio;
	/*
	 * The whole new hierarchy, held, or NULL when it is unchanged: as
	 * Ceph's incremental carries its crush map.  At 10,000 OSDs in 1,000
	 * hosts it encodes in 202 kB (copied in 2 ms), written only by the
	 * epochs that change it, so a diff is not worth its second format.
	 */
	struct crush *new_crush;
};

/*
 * An empty map of epoch 0 with the default full ratios (the caller sets
 * fsid and stamps).
 */
void osdmap_init(struct osdmap *);
void osdmap_clear(struct osdmap *);
/* A deep copy into *dst (cleared first). */
void osdmap_copy(struct osdmap *dst, const struct osdmap *src);

/* The OSD with that id if it exists, else NULL. */
const struct osdmap_osd *osdmap_osd(const struct osdmap *, int32_t id);
/* The pool with that id / name, else NULL. */
const struct osdmap_pool *osdmap_pool(const struct osdmap *, uint32_t id);
const struct osdmap_pool *osdmap_pool_by_name(const struct osdmap *,
    const char *name);
/*
 * The one search of the arrays of pools kept sorted by id (the osdmap's,
 * the pgmap's, the OSD simulator's): pools holds n elements of elsize bytes,
 * each beginning with its uint32_t pool id.  Returns the index of the first
 * element whose id is not below id (n when there is none: where id would
 * be inserted) and sets *found to whether that element's id is id.
 */
size_t osdmap_pool_index(const void *pools, size_t n, size_t elsize,
    uint32_t id, int *found);
/* Fails the build unless type's elements can be searched that way. */
#define OSDMAP_POOL_INDEXABLE(type) \
	_Static_assert(offsetof(type, id) == 0, \
	    #type " must begin with its pool id for osdmap_pool_index()")
/* The lowest id that does not exist, as `ceph osd create` gives. */
int32_t osdmap_free_osd_id(const struct osdmap *);
/*
 * Direct edits (the monitor's working copy; osdmap_apply uses them too):
 * insert or replace an OSD (marked existing) or a pool, remove one.
 */
void osdmap_set_osd(struct osdmap *, const struct osdmap_osd *o);
void osdmap_remove_osd(struct osdmap *, int32_t id);
void osdmap_set_pool(struct osdmap *, const struct osdmap_pool *p);
void osdmap_remove_pool(struct osdmap *, uint32_t id);
/* Replace the hierarchy by c, whose hold the map takes (NULL: none). */
void osdmap_set_crush(struct osdmap *, struct crush *c);

/* Counts of existing, up, in, and up+in OSDs. */
void osdmap_counts(const struct osdmap *, unsigned *num, unsigned *up,
    unsigned *in, unsigned *up_in);

/*
 * The flags as Ceph writes them, in its order ("pauserd,pausewr,noout";
 * the pause flag is Ceph's pair), into buf (empty for none).
 */
const char *osdmap_flags_format(uint32_t flags, char *buf, size_t len);
/*
 * One flag's bit by name ("pause", or either of Ceph's "pauserd" and
 * "pausewr", for the pause flag), or 0 when unknown.
 */
uint32_t osdmap_flag_parse(const char *name);
/* The flags' names, one string each, in Ceph's order (`flags_set'). */
json_t *osdmap_flags_json(uint32_t flags);
/* 16.16 weight to and from a double. */
double osdmap_weight_to_double(uint32_t w);
uint32_t osdmap_weight_from_double(double d);

/* Incrementals. */
void osdmap_inc_init(struct osdmap_inc *, uint32_t epoch);
void osdmap_inc_clear(struct osdmap_inc *);
/* Add or replace the upsert of o / p in the incremental. */
void osdmap_inc_set_osd(struct osdmap_inc *, const struct osdmap_osd *o);
void osdmap_inc_set_pool(struct osdmap_inc *, const struct osdmap_pool *p);
void osdmap_inc_remove_osd(struct osdmap_inc *, int32_t id);
void osdmap_inc_remove_pool(struct osdmap_inc *, uint32_t id);
/* The incremental carries c as the new hierarchy (held; NULL: none). */
void osdmap_inc_set_crush(struct osdmap_inc *, const struct crush *c);

/*
 * Apply inc to m: m->epoch must be inc->epoch - 1.  Returns 0, or -1 with
 * *cause when the incremental does not fit the map (wrong epoch, an id out
 * of range, a ratio above 1, a pool naming a rule the hierarchy lacks); m
 * is unchanged then.
 */
int osdmap_apply(struct osdmap *m, const struct osdmap_inc *inc,
    char **cause);

/*
 * Does inc change what placement depends on (an OSD's up, in, existence or
 * weights, the hierarchy, a pool's size, rule, pg_num, existence)?
 */
int osdmap_inc_changes_placement(const struct osdmap *before,
    const struct osdmap_inc *inc);
/*
 * Does inc move PGs that exist in before: change an OSD's up, in,
 * existence or weights, the hierarchy, or the size or rule of a pool of
 * before?  (Pools made, grown or removed move no other PG.)
 */
int osdmap_inc_moves_pgs(const struct osdmap *before,
    const struct osdmap_inc *inc);

/*
 * Binary records for the store, of version OSDMAP_STRUCT_V; the decoders
 * read every version up to it (osdmap_decode() sets m->struct_v) and
 * refuse a ratio that is not a number from 0 to 1.
 */
void osdmap_encode(const struct osdmap *, struct enc_buf *);
int osdmap_decode(const void *p, size_t len, struct osdmap *, char **cause);
void osdmap_inc_encode(const struct osdmap_inc *, struct enc_buf *);
int osdmap_inc_decode(const void *p, size_t len, struct osdmap_inc *,
    char **cause);

/*
 * JSON: the full map in `osd dump` shape (with Ceph's "full_ratio",
 * "backfillfull_ratio" and "nearfull_ratio", "flags_set", "max_osd", and
 * the hierarchy as "crush" in `osd crush dump` shape when the map has
 * one), an OSD, a pool, an incremental (its "new_full_ratio" and the
 * others only when it changes them, as "new_flags" and "crush").  An OSD's "weight" is Ceph's: its
 * in/out weight, 0 when it is out, else its reweight, which "reweight"
 * gives whatever in says; its "state" lists Ceph's words ("exists",
 * "up").  A pool carries its id as both "pool" and Ceph's "pool_id", and
 * its pgp_num as both "pgp_num" and Ceph's "pg_placement_num".
 */
json_t *osdmap_to_json(const struct osdmap *);
json_t *osdmap_osd_to_json(const struct osdmap_osd *);
json_t *osdmap_pool_to_json(const struct osdmap_pool *);
json_t *osdmap_inc_to_json(const struct osdmap_inc *);
/*
 * From JSON (what a client receives); 0, or -1 with *cause.  A map without
 * the ratios (an older monitor's) gets the defaults; a pool without
 * "pgp_num" has pgp_num = pg_num; an OSD without "reweight" (an older
 * monitor's) takes its reweight from "weight"; a map without "crush" has
 * no hierarchy and a pool without "crush_rule" rule 0.
 */
int osdmap_from_json(json_t *, struct osdmap *, char **cause);
int osdmap_inc_from_json(json_t *, struct osdmap_inc *, char **cause);

/*
 * Placement by a map, what the monitor and every client compute
 * (mapmon-protocol(7), PLACEMENT): osdmap_place_new() prepares it for m's
 * hierarchy and OSD states (crush_placement_new(); an OSD is up when it
 * exists and is up, its reweight is 0 unless it is in), and holds the
 * hierarchy, so m may change or go meanwhile.  A map without a hierarchy
 * places flat (placement.h: eligible = exists && up && in && weight *
 * reweight > 0).  Never fails; free with osdmap_place_free() (NULL
 * allowed).
 */
struct osdmap_place;
struct osdmap_place *osdmap_place_new(const struct osdmap *m);
void osdmap_place_free(struct osdmap_place *);
/*
 * The up set of PG (pool, seed) of a pool of size replicas under rule, into
 * up[] (room for OSDMAP_POOL_SIZE_MAX): its length, short when the rule's
 * failure domains run out, 0 when the rule does not exist.  Deterministic,
 * no allocation, safe from many threads on one placement.
 */
int osdmap_place_pg(const struct osdmap_place *, uint32_t pool, uint32_t rule,
    uint32_t seed, unsigned size, int32_t *up);
/*
 * The failure domains rule can use (crush_placement_domains()), -1 when
 * there is no such rule or the placement is flat.
 */
long osdmap_place_domains(const struct osdmap_place *, uint32_t rule);
/* Whether the placement is over a hierarchy (else flat). */
int osdmap_place_has_crush(const struct osdmap_place *);

/*
 * Placing the PGs of before again by after, exactly, without placing them
 * all (mapmon-protocol(7), PLACEMENT, placing again).  When both maps have
 * a hierarchy, the same one (crush_equal()), each pool of both has the
 * same size and rule, and no OSD can be chosen more by after than by
 * before (it went down, out or away, or its reweight fell; none came up,
 * in or back), then a PG whose up set by before holds none of the OSDs
 * that changed keeps that set by after: each attempt of its draw that
 * reached one of them was refused before and is refused again, and every
 * other attempt decides as it did.
 *
 * osdmap_remap_new() notes the OSDs that changed; it returns NULL when the
 * shortcut does not hold (then every PG must be placed again).  Never
 * fails otherwise; free with osdmap_remap_free() (NULL allowed).  Only PGs
 * of before are covered: a PG new in after (a new pool, pg_num grown) is
 * placed in any case.
 */
struct osdmap_remap;
struct osdmap_remap *osdmap_remap_new(const struct osdmap *before,
    const struct osdmap *after);
void osdmap_remap_free(struct osdmap_remap *);
/*
 * Whether a PG whose up set by before is up[0, n) must be placed again by
 * after (it holds an OSD that changed); 0: its set by after is up[0, n).
 */
int osdmap_remap_moves(const struct osdmap_remap *, const int32_t *up, int n);
/* How many OSDs changed (0: no PG of before moves). */
size_t osdmap_remap_changed(const struct osdmap_remap *);

#endif /* OSDMAP_H */
