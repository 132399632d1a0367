/*
 * pg.h: PG ids, PG states and the PG stat record (mapmon-protocol(7)), close to
 * Ceph's pg_t, pg_state_string() and pg_stat_t.
 *
 * A record has a binary form (the store's value and the wire's binary `pg
 * report`) and a JSON form (queries, and the JSON `pg report`).  Both carry
 * every field.  Linked by the monitor and by clients: depends only on
 * common/ and jansson.
 */
#ifndef PG_H
#define PG_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/enc.h"
#include "common/stamp.h"
#include "map/placement.h"

/* A PG: pool id and seed (seed < the pool's pg_num), printed "1.3f". */
struct pg_id {
	uint32_t pool;
	uint32_t seed;
};

/* Room for any pg_id_format() output: "4294967295.ffffffff" and a NUL. */
#define PG_ID_BUFSIZE 24

/*
 * Parse "POOL.SEED": POOL in decimal, SEED in hex (lower or upper case, no
 * 0x), each of 1 to 10 / 8 digits and within 32 bits, nothing else (no sign,
 * no spaces, no trailing junk).  Returns 0, or -1 with *cause naming what is
 * wrong (caller frees).
 */
int pg_id_parse(const char *s, struct pg_id *id, char **cause);

/* Format id as "POOL.SEEDHEX" (lower-case hex) into buf; returns buf. */
char *pg_id_format(struct pg_id id, char *buf, size_t len);

/* Order by pool, then seed: <0, 0, >0. */
int pg_id_cmp(struct pg_id a, struct pg_id b);

/*
 * The seed of the PG that a raw seed names in a pool of pg_num PGs, as
 * Ceph's raw_pg_to_pg() folds it (ceph_stable_mod() by pg_num and the
 * mask of its bits): `pg map 1.1f' of a pool of 8 PGs is PG 1.7.  A seed
 * below pg_num is itself; pg_num 0 leaves the seed as it is.
 */
uint32_t pg_seed_fold(uint32_t seed, uint32_t pg_num);

/*
 * An object name's raw seed, as Ceph's `osd map POOL OBJECT' hashes it
 * (ceph_str_hash_rjenkins(): Bob Jenkins' lookup2 hash of the name's
 * bytes, mapmon(8) gives vectors); the PG is pg_seed_fold() of it.
 */
uint32_t pg_str_hash_rjenkins(const char *str, size_t len);

/*
 * States: a bitmask.  Bit i is the i-th word in Ceph's canonical order
 * (pg_state_string() in Ceph's osd_types.cc), so formatting walks the bits
 * upwards.  The values are stored on disk: never renumber, only append.
 */
#define PG_STATE_STALE		(1U << 0)
#define PG_STATE_CREATING	(1U << 1)
#define PG_STATE_ACTIVE		(1U << 2)
#define PG_STATE_ACTIVATING	(1U << 3)
#define PG_STATE_CLEAN		(1U << 4)
#define PG_STATE_RECOVERY_WAIT	(1U << 5)
#define PG_STATE_RECOVERING	(1U << 6)
#define PG_STATE_DOWN		(1U << 7)
#define PG_STATE_UNDERSIZED	(1U << 8)
#define PG_STATE_DEGRADED	(1U << 9)
#define PG_STATE_REMAPPED	(1U << 10)
#define PG_STATE_SCRUBBING	(1U << 11)
#define PG_STATE_DEEP		(1U << 12)
#define PG_STATE_INCONSISTENT	(1U << 13)
#define PG_STATE_PEERING	(1U << 14)
#define PG_STATE_REPAIR		(1U << 15)
#define PG_STATE_BACKFILL_WAIT	(1U << 16)
#define PG_STATE_BACKFILLING	(1U << 17)
#define PG_STATE_INCOMPLETE	(1U << 18)
#define PG_STATE_PEERED		(1U << 19)
#define PG_STATE_UNKNOWN	(1U << 20)
#define PG_STATE_NBITS 21
#define PG_STATE_ALL ((1U << PG_STATE_NBITS) - 1)

/* Room for any pg_state_format() output (every word joined). */
#define PG_STATE_BUFSIZE 256

/* The word of bit i (0 <= i < PG_STATE_NBITS), or NULL past the end. */
const char *pg_state_bit_name(unsigned i);

/*
 * The words of state's bits joined with '+', in canonical order, into buf
 * (cut to fit when len is short; always NUL-terminated when len > 0).  A
 * state of 0 prints "unknown", as Ceph prints a PG it knows nothing of; bits
 * outside PG_STATE_ALL are ignored.  Returns buf.
 */
char *pg_state_format(uint32_t state, char *buf, size_t len);

/*
 * Parse words joined with '+' ("active+clean", any order, repeats allowed)
 * into *state.  An empty string, an empty word ("active++clean") or an
 * unknown word is an error: -1 with *cause naming it (caller frees).
 */
int pg_state_parse(const char *s, uint32_t *state, char **cause);

/*
 * One PG's stat record.  Stamps are microseconds since the Unix epoch (0 =
 * never).  up and acting hold up_len / acting_len OSD ids (at most
 * PLACEMENT_MAX_SIZE); a primary is -1 when there is none.  Counters are
 * signed, as Ceph's object_stat_sum_t (a transient negative is possible).
 */
struct pg_stat {
	struct pg_id pgid;
	uint32_t state;			/* PG_STATE_* bits */

	uint32_t version_epoch;		/* version, printed "E'V" */
	uint64_t version_v;
	uint32_t reported_epoch;
	uint64_t reported_seq;

	uint32_t created;		/* epoch the PG was created in */
	uint32_t last_epoch_clean;
	uint32_t mapping_epoch;		/* epoch of the current up/acting */
	uint32_t parent_split_bits;
	uint32_t snaptrimq_len;

	uint8_t up_len;
	uint8_t acting_len;
	int32_t up[PLACEMENT_MAX_SIZE];
	int32_t acting[PLACEMENT_MAX_SIZE];
	int32_t up_primary;
	int32_t acting_primary;

	int64_t last_fresh;
	int64_t last_change;
	int64_t last_active;
	int64_t last_peered;
	int64_t last_clean;
	int64_t last_became_active;
	int64_t last_unstale;
	int64_t last_scrub_stamp;
	int64_t last_deep_scrub_stamp;
	/* Version 2: since when not degraded / not undersized. */
	int64_t last_undegraded;
	int64_t last_fullsized;
	/* Version 2: the PG's version at its last scrub and deep scrub. */
	uint32_t last_scrub_epoch;
	uint64_t last_scrub_v;
	uint32_t last_deep_scrub_epoch;
	uint64_t last_deep_scrub_v;

	int64_t log_size;
	int64_t ondisk_log_size;

	/* Ceph's stat_sum. */
	int64_t num_bytes;
	int64_t num_objects;
	int64_t num_object_clones;
	int64_t num_object_copies;
	int64_t num_objects_missing_on_primary;
	int64_t num_objects_degraded;
	int64_t num_objects_misplaced;
	int64_t num_objects_unfound;
	int64_t num_objects_dirty;
	int64_t num_whiteouts;
	int64_t num_read;
	int64_t num_read_kb;
	int64_t num_write;
	int64_t num_write_kb;
	int64_t num_scrub_errors;
	int64_t num_shallow_scrub_errors;
	int64_t num_deep_scrub_errors;
	int64_t num_objects_recovered;
	int64_t num_bytes_recovered;
	int64_t num_keys_recovered;
	int64_t num_objects_omap;
	int64_t num_objects_hit_set_archive;
	int64_t num_bytes_hit_set_archive;
	int64_t num_flush;
	int64_t num_evict;
	int64_t num_promote;
	int64_t num_large_omap_objects;
	int64_t num_objects_manifest;
	int64_t num_omap_bytes;
	int64_t num_omap_keys;
	int64_t num_objects_repaired;
};

/*
 * The record version pg_stat_encode() writes and the newest decode knows.
 * Version 2 appended last_undegraded, last_fullsized and the two scrub
 * versions to version 1's fixed-width body, which version 1 readers skip;
 * a version 1 record reads with those fields 0.  Version 3 (compat_v 3)
 * writes the same fields as varints, a fifth of the size; versions 1 and
 * 2 still read.  The layouts are in pg.c and mapmon-protocol(7).
 */
#define PG_STAT_STRUCT_V 3
#define PG_STAT_COMPAT_V 3

/*
 * The smallest record of any version a reader accepts: a version 3 one of
 * zeros with empty up and acting (6 + 12 + 2 + 2 + 1 + 4 bytes).
 */
#define PG_STAT_MIN_ENCODED_SIZE 27

/* The bytes pg_stat_encode() appends for st. */
size_t pg_stat_encoded_size(const struct pg_stat *st);

/*
 * A zeroed stat of PG id: no state, no OSDs (primaries -1).  Use it for the
 * defaults of a partial report.
 */
void pg_stat_init(struct pg_stat *, struct pg_id id);

/*
 * Append one versioned record to b: u8 struct_v, u8 compat_v, u32 body
 * length, then the version 3 body of varints (up and acting as a u8 count
 * and that many ids).  The layout is in pg.c.  up_len and acting_len
 * above PLACEMENT_MAX_SIZE are cut to it.
 */
void pg_stat_encode(const struct pg_stat *, struct enc_buf *b);

/*
 * Read one record from r into *st, moving r past it and no further, so
 * records concatenated in one buffer are read one call each.  Refuses a
 * compat_v newer than PG_STAT_STRUCT_V, a body length past the end of r, a
 * body too short for its fields, an OSD count above PLACEMENT_MAX_SIZE;
 * skips body bytes a newer struct_v appended.  Never reads outside r.
 * Returns 0, or -1 with *cause naming the field (caller frees); *st is then
 * undefined and r is marked failed.
 */
int pg_stat_decode(struct enc_reader *r, struct pg_stat *st, char **cause);

/*
 * The JSON form, shaped as one entry of Ceph's `pg dump -f json`
 * "pg_stats": "pgid": "1.3f", "state": "active+clean", "version": "12'34",
 * "last_scrub": "12'30", stamps as "2026-11-30T19:45:01.123456+0000" (0,
 * never: "0.000000", stamp.h), "up"/"acting" arrays, counters as integers
 * under "stat_sum".  New reference, caller releases it with json_decref().
 */
json_t *pg_stat_to_json(const struct pg_stat *);

/*
 * The same JSON text as json_dumps(pg_stat_to_json(st), JSON_COMPACT),
 * byte for byte, written straight into a buffer: no jansson object, no
 * allocation but the buffer's growth.  This is for the monitor's committer
 * thread, which writes the pgmap push of every commit off the event loop
 * (a jansson object of 50 keys per PG cost the loop milliseconds per
 * commit).  A writer keeps the date and time of the last stamps it wrote,
 * which most stamps of one commit share; use one writer per thread.
 */
#define PG_TEXT_STAMPS 8	/* a PG's stamps fall in a few seconds */
struct pg_text_stamp {
	int64_t secs;			/* the second of text, or INT64_MIN */
	char text[STAMP_BUFSIZE];	/* stamp_format() of secs */
	size_t len;
};
struct pg_text {
	struct enc_buf buf;		/* the text so far; caller may reset */
	struct pg_text_stamp stamps[PG_TEXT_STAMPS];
	unsigned next_stamp;		/* the slot to replace next */
	uint32_t state;			/* the last state written, */
	char state_text[PG_STATE_BUFSIZE]; /* its words ("" at first) */
	size_t state_len;
};

/* A writer with an empty buffer. */
void pg_text_init(struct pg_text *);
/* Append st's JSON object to t->buf. */
void pg_text_stat(struct pg_text *t, const struct pg_stat *st);
/*
 * Append st's brief JSON object to t->buf, as Ceph's pg_stat_t::dump_brief
 * (`pg dump pgs_brief`): pgid, state, up, acting, up_primary,
 * acting_primary.
 */
void pg_text_brief(struct pg_text *t, const struct pg_stat *st);
/* Free the buffer. */
void pg_text_free(struct pg_text *);

/*
 * Read the JSON form (as `pg report` carries it) into *st.  "pgid" and
 * "state" are required; every other field pg_stat_to_json() writes is
 * optional and defaults as pg_stat_init(); keys it does not know are
 * ignored (a newer reporter may send more).  A field of the wrong type or
 * out of range (a negative epoch, an unparsable stamp, more OSDs than
 * PLACEMENT_MAX_SIZE) is an error: -1 with *cause naming the field (caller
 * frees).  pg_stat_from_json(pg_stat_to_json(x)) gives x back exactly, for
 * unsigned fields up to INT64_MAX and stamps in years 1970 to 9999.
 */
int pg_stat_from_json(json_t *, struct pg_stat *, char **cause);

#endif /* PG_H */
