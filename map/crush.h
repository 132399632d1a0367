/*
 * crush.h: the placement hierarchy and the placement function over it, in
 * the spirit of Ceph's CRUSH (mapmon-protocol(7), PLACEMENT, describes the
 * function exactly enough to reimplement).
 *
 * The hierarchy is a forest of buckets.  A bucket has a negative id (-1,
 * -2, ... as Ceph gives them, the lowest free one first), a name, a type,
 * and children: buckets of a lower type or OSDs (ids >= 0, the leaves, of
 * type "osd").  The types, lowest first, with Ceph's type ids:
 *
 *	osd 0, host 1, rack 3, room 7, datacenter 8, root 11
 *
 * A child's type is always below its parent's, so the hierarchy has no
 * cycles, and an item has at most one parent.  An OSD in the hierarchy has
 * a crush weight (its capacity, 16.16 fixed point, apart from the osdmap's
 * 0..1 reweight) and may have a device class (any word: hdd, ssd, nvme).
 * A bucket's weight is the sum of its children's, kept up to date by every
 * operation, and so is its weight per device class (Ceph's shadow trees):
 * a rule restricted to a class draws by those.
 *
 * A rule is replicated: it takes a bucket (its root, optionally restricted
 * to one device class) and chooses each replica's leaf under a distinct
 * bucket of its failure-domain type (Ceph's "chooseleaf firstn 0 type T").
 * The default map has the root "default" and rule 0 "replicated_rule" over
 * hosts.
 *
 * The operations are Ceph's `osd crush ...` commands' effects.  Each
 * validates all of its input first and changes nothing when it fails: it
 * returns 0, or a negative errno (Ceph's, for the wire: -EINVAL, -ENOENT,
 * -EEXIST, -EBUSY, -ENOTEMPTY, -ELOOP, -ENOSPC) with a one-line *cause the
 * caller frees.  Weights are given as numbers: one that is negative, not a
 * number or above CRUSH_WEIGHT_MAX is refused; others are made 16.16,
 * rounded to nearest.  Names (buckets, rules, classes) are 1 to
 * CRUSH_NAME_MAX letters, digits, '-', '_' and '.'; a bucket may not be
 * called like an OSD ("osd.N").
 *
 * A location is a list of "TYPE=NAME" strings, as Ceph's commands take
 * them ("host=h3", "rack=r1"), at most one per type.  Placing an item
 * there walks the location from its lowest type up: a named bucket that
 * does not exist is created (holding what the walk brought so far), the
 * first that exists receives it and ends the walk.  For OSDs a location
 * without a root gets root=default, so missing buckets are created under
 * the default root (Ceph's create-or-move when an OSD starts).
 *
 * Every operation also rebuilds the map's precomputed form (per bucket and
 * class: the drawable items, their weights and hash offsets), so the
 * placement functions read a const map: they allocate nothing and may run
 * in many threads at once on one map, as long as nothing changes it.
 */
#ifndef CRUSH_H
#define CRUSH_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/enc.h"

/* The types, with Ceph's ids; their order is their numeric order. */
#define CRUSH_TYPE_OSD 0
#define CRUSH_TYPE_HOST 1
#define CRUSH_TYPE_RACK 3
#define CRUSH_TYPE_ROOM 7
#define CRUSH_TYPE_DATACENTER 8
#define CRUSH_TYPE_ROOT 11

#define CRUSH_NAME_MAX 64	 /* bytes of a bucket, rule or class name */
#define CRUSH_MAX_BUCKETS 65536	 /* ids -1 .. -CRUSH_MAX_BUCKETS */
#define CRUSH_MAX_DEVICES 65536	 /* OSD ids 0 .. CRUSH_MAX_DEVICES-1 */
#define CRUSH_MAX_RULES 256	 /* rule ids 0 .. 255 */
#define CRUSH_MAX_CLASSES 32	 /* distinct device classes */
#define CRUSH_MAX_SIZE 10	 /* the longest up set (PLACEMENT_MAX_SIZE) */
#define CRUSH_WEIGHT_ONE 0x10000 /* weights are 16.16 fixed point */
#define CRUSH_WEIGHT_MAX 1e6	 /* the largest crush weight of an OSD */
/* A replica's attempts are 1 + this many retries (Ceph's tunable). */
#define CRUSH_CHOOSE_TOTAL_TRIES 50

#define CRUSH_DEFAULT_ROOT "default"
#define CRUSH_DEFAULT_RULE "replicated_rule"

/*
 * The version of the binary record crush_encode() writes.  Version 1: the
 * buckets, the devices, the rules.
 */
#define CRUSH_STRUCT_V 1

/* The map: buckets, devices, rules, and their precomputed form. */
struct crush;

/*
 * An OSD's state as placement sees it, in an array indexed by OSD id: up,
 * and reweight (16.16; 0x10000 is fully in, 0 is out: pass 0 for an OSD
 * the osdmap has out).  An OSD past the array's end counts as out.
 */
struct crush_osd_state {
	uint32_t reweight;
	uint8_t up;
};

/* A rule as crush_rule_get() describes it (pointers into the map). */
struct crush_rule_info {
	uint32_t id;
	const char *name;
	int32_t root;		  /* the bucket it takes */
	int domain;		  /* the failure-domain type */
	const char *device_class; /* NULL: every device */
};

/* A bucket as crush_bucket_get() describes it (pointers into the map). */
struct crush_bucket_info {
	int32_t id;
	const char *name;
	int type;
	int32_t parent;	 /* 0 for a bucket at the top */
	uint64_t weight; /* 16.16, the sum of its children's */
	size_t nitems;
	const int32_t *items; /* its children, in order */
};

/* One line of the tree walk (`osd tree`, `osd crush tree`): crush_tree(). */
struct crush_tree_node {
	int32_t id; /* a bucket (< 0) or an OSD */
	int type;
	unsigned depth;	  /* 0 for a bucket at the top */
	int32_t parent;	  /* 0 at the top */
	uint64_t weight;  /* 16.16: the item's weight in its parent */
	size_t nchildren; /* a bucket's children in the walk */
};

/* An empty map (no bucket, no rule).  Never fails; free with crush_free(). */
struct crush *crush_new(void);
/* The default map: the root "default" (-1) and rule 0 "replicated_rule". */
struct crush *crush_new_default(void);
/*
 * Free a map, or let go of one hold on it; NULL is allowed.  The map is
 * freed when its last holder lets go.
 */
void crush_free(struct crush *);
/*
 * Share a map: one more holder, who lets go with crush_free(); returns the
 * map.  A shared map must not change (the osdmap copies it before an
 * operation: copy on write), so it is read by many threads at once.
 */
struct crush *crush_hold(const struct crush *);
/* Nonzero when the map has more than one holder. */
int crush_shared(const struct crush *);
/* A deep copy.  Never fails. */
struct crush *crush_copy(const struct crush *);
/* Nonzero when both hold the same buckets, devices and rules. */
int crush_equal(const struct crush *, const struct crush *);

/* A type's id from its name, or -1 when there is no such type. */
int crush_type_id(const char *name);
/* A type's name, or NULL when id is no type. */
const char *crush_type_name(int id);
/* The bucket types' names, lowest first, as "host, rack, ..." (static). */
const char *crush_type_list(void);

/*
 * Lookups.  An item's name is its bucket's name or "osd.N".
 * crush_item_id() gives the id of a bucket or an OSD in the hierarchy by
 * name: 0 and *id, or -1 (not found, no cause).
 */
int crush_item_id(const struct crush *, const char *name, int32_t *id);
/* A bucket by id: 0 and *info, or -1 when there is none. */
int crush_bucket_get(const struct crush *, int32_t id,
    struct crush_bucket_info *info);
/* The bucket ids in use, highest (-1) first, into ids (room for n). */
size_t crush_bucket_count(const struct crush *);
size_t crush_bucket_ids(const struct crush *, int32_t *ids, size_t n);
/*
 * A bucket's weight counting only the OSDs of device class cls (its shadow
 * weight), 16.16; 0 when there is no such bucket or class.
 */
uint64_t crush_bucket_class_weight(const struct crush *, int32_t id,
    const char *cls);
/* Nonzero when osd is in the hierarchy. */
int crush_osd_exists(const struct crush *, int32_t osd);
/* An OSD's crush weight (16.16), 0 when it is not in the hierarchy. */
uint64_t crush_osd_weight(const struct crush *, int32_t osd);
/* An OSD's parent bucket, 0 when it is not in the hierarchy. */
int32_t crush_osd_parent(const struct crush *, int32_t osd);
/* An OSD's device class, NULL when it has none (points into the map). */
const char *crush_osd_class(const struct crush *, int32_t osd);
/* One past the highest OSD id in the hierarchy. */
uint32_t crush_max_osd(const struct crush *);

/* The rules: how many, and each by position (sorted by id) or by id. */
size_t crush_rule_count(const struct crush *);
int crush_rule_at(const struct crush *, size_t i, struct crush_rule_info *);
int crush_rule_get(const struct crush *, uint32_t id, struct crush_rule_info *);
/* A rule's id by name, or -1. */
int crush_rule_id(const struct crush *, const char *name);

/*
 * Operations (see the top of this file for errors and locations).
 *
 * crush_bucket_add: `osd crush add-bucket NAME TYPE [TYPE=NAME...]`: a new
 * empty bucket, at the location when one is given, else at the top.
 * -EEXIST when the name is taken (Ceph's command answers 0 then, with the
 * cause's text; the caller decides).  *id (may be NULL) gets its id.
 */
int crush_bucket_add(struct crush *, const char *name, const char *type,
    const char *const *loc, size_t nloc, int32_t *id, char **cause);
/*
 * crush_move: `osd crush move NAME TYPE=NAME...`: a bucket, or an OSD
 * ("osd.N", keeping its weight), to the location.  Moving a bucket under
 * itself is -EINVAL, under its own descendant -ELOOP (Ceph's insert_item);
 * a location type not above the bucket's is -EINVAL.  Already there: 0,
 * nothing changes.
 */
int crush_move(struct crush *, const char *name, const char *const *loc,
    size_t nloc, char **cause);
/*
 * crush_remove: `osd crush rm NAME`: a bucket, which must be empty
 * (-ENOTEMPTY) and taken by no rule (-EBUSY), or an OSD ("osd.N").
 * -ENOENT when NAME is not in the hierarchy.
 */
int crush_remove(struct crush *, const char *name, char **cause);
/*
 * crush_osd_add: `osd crush add osd.N WEIGHT TYPE=NAME...`: put the OSD
 * at the location (moving it when it is elsewhere) with that weight.
 * crush_osd_set: `osd crush set ...`: the same for an OSD already in the
 * hierarchy (-ENOENT otherwise).  crush_osd_create_or_move: `osd crush
 * create-or-move ...`, what an OSD's boot does: an OSD not in the
 * hierarchy is added with that weight; one elsewhere is moved, keeping its
 * weight; one already there is left alone.  The location must name at
 * least one bucket.
 */
int crush_osd_add(struct crush *, int32_t osd, double weight,
    const char *const *loc, size_t nloc, char **cause);
int crush_osd_set(struct crush *, int32_t osd, double weight,
    const char *const *loc, size_t nloc, char **cause);
int crush_osd_create_or_move(struct crush *, int32_t osd, double weight,
    const char *const *loc, size_t nloc, char **cause);
/* `osd crush rm osd.N`: -ENOENT when it is not in the hierarchy. */
int crush_osd_remove(struct crush *, int32_t osd, char **cause);
/* `osd crush reweight osd.N WEIGHT`: -ENOENT when it is not there. */
int crush_osd_reweight(struct crush *, int32_t osd, double weight,
    char **cause);
/*
 * `osd crush set-device-class CLASS osd.N`: -ENOENT when the OSD is not in
 * the hierarchy, -EBUSY when it has another class (Ceph's rule: remove it
 * first), 0 when it has this one already, -ENOSPC past CRUSH_MAX_CLASSES.
 */
int crush_osd_set_class(struct crush *, int32_t osd, const char *cls,
    char **cause);
/* `osd crush rm-device-class osd.N`: 0 also when it has none. */
int crush_osd_rm_class(struct crush *, int32_t osd, char **cause);
/*
 * `osd crush rule create-replicated NAME ROOT TYPE [CLASS]`: a rule taking
 * bucket ROOT (-ENOENT when there is none), replicas under distinct
 * buckets of TYPE (unknown: -EINVAL; it must be below ROOT's type), only
 * OSDs of CLASS when it is not NULL (-EINVAL when no OSD has that class).
 * -EEXIST when the name is taken (Ceph answers 0 then), -ENOSPC past
 * CRUSH_MAX_RULES.  *id (may be NULL) gets its id, the lowest free one.
 */
int crush_rule_create(struct crush *, const char *name, const char *root,
    const char *type, const char *cls, uint32_t *id, char **cause);
/*
 * `osd crush rule rm NAME`: -ENOENT when there is no such rule, -EBUSY
 * when its id is among the n ids of in_use (the pools' rules).
 */
int crush_rule_remove(struct crush *, const char *name, const uint32_t *in_use,
    size_t n, char **cause);

/*
 * The placement function, mapmon-protocol(7): the up set of PG (pool,
 * seed) under rule, at most min(size, CRUSH_MAX_SIZE) OSDs, into up[].
 * Returns its length: short when the rule's failure domains (or their
 * usable OSDs) run out, 0 when size is 0; -1 when there is no such rule.
 * osds[] (n entries, indexed by OSD id) gives each OSD's state.
 * Deterministic, no allocation, safe from many threads on a const map.
 */
int crush_map_pg(const struct crush *, uint32_t rule,
    const struct crush_osd_state *osds, size_t n, uint32_t pool, uint32_t seed,
    unsigned size, int32_t *up);

/*
 * The same for many PGs under one set of OSD states: crush_placement_new()
 * copies the states and notes, per bucket and class, whether any OSD under
 * it can be chosen at all, so that a replica stops early when every
 * failure domain it could still use is spent (a cluster with its OSDs down
 * costs nothing).  The sets are crush_map_pg()'s, bit for bit.  The map
 * must outlive the placement and stay unchanged; free with
 * crush_placement_free() (NULL allowed).
 */
struct crush_placement;
struct crush_placement *crush_placement_new(const struct crush *,
    const struct crush_osd_state *osds, size_t n);
void crush_placement_free(struct crush_placement *);
/*
 * How many failure domains rule can use under these states: buckets of
 * its domain type below its root holding an OSD (of its class) that is up
 * with a reweight above 0; -1 when there is no such rule.  A pool of a
 * larger size gets short up sets.
 */
long crush_placement_domains(const struct crush_placement *, uint32_t rule);
int crush_placement_map_pg(const struct crush_placement *, uint32_t rule,
    uint32_t pool, uint32_t seed, unsigned size, int32_t *up);

/*
 * The hash pieces of the function, for tests and reimplementations (see
 * mapmon-protocol(7)): the attempt key of replica attempt r, the hash of
 * item under it, and the straw2 draw of an item of weight w (16.16, > 0).
 */
uint64_t crush_attempt_key(uint32_t pool, uint32_t seed, uint32_t r);
uint64_t crush_item_hash(uint64_t attempt_key, int32_t item);
int64_t crush_draw(uint64_t hash, uint64_t weight);
/*
 * Straw2 over n items of equal weight, whose hash offsets are off[]: the
 * first index of the highest draw (AVX-512 when the CPU has it and n is
 * large, unless scalar).
 */
uint32_t crush_equal_best(uint64_t attempt_key, const uint64_t *off, uint32_t n,
    int scalar);
/* The same over weights w (16.16, > 0) and recip[i] = 65536.0 / w[i]. */
uint32_t crush_weighted_best(uint64_t attempt_key, const uint64_t *off,
    const double *recip, const uint64_t *w, uint32_t n, int scalar);
/* Does this CPU take the vector path? */
int crush_vector_ok(void);

/*
 * The tree walk of `osd tree` and `osd crush tree`: the buckets at the top
 * by id (lowest first, as Ceph), each followed depth first by its
 * children, buckets by name then OSDs by class and id.  *nodes gets an
 * array the caller frees; returns its length.
 */
size_t crush_tree(const struct crush *, struct crush_tree_node **nodes);

/*
 * Binary record for the store (crush_decode() reads every version up to
 * CRUSH_STRUCT_V and checks every rule of this file: ids, names, types,
 * one parent per item, weights, rules' roots).  crush_decode() returns a
 * new map, or NULL with *cause.
 */
void crush_encode(const struct crush *, struct enc_buf *);
struct crush *crush_decode(const void *p, size_t len, char **cause);

/*
 * JSON.  crush_to_json() is `osd crush dump`'s shape: devices, types,
 * buckets (weights as 16.16 integers, items with id, weight, pos), rules
 * (steps take, chooseleaf_firstn, emit; a class rule takes
 * "ROOT~CLASS"), tunables.  crush_from_json() reads it back (what a client
 * receives), checked as crush_decode() does: a new map, or NULL with
 * *cause.  crush_rule_to_json() is one rule of it (NULL when there is no
 * such rule), crush_tree_to_json() is `osd crush tree -f json`'s
 * {"nodes": [...], "stray": []}.  The caller owns what they return.
 */
json_t *crush_to_json(const struct crush *);
struct crush *crush_from_json(json_t *, char **cause);
json_t *crush_rule_to_json(const struct crush *, uint32_t id);
json_t *crush_tree_to_json(const struct crush *);

#endif /* CRUSH_H */
