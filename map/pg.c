/* pg.c: PG ids, states and stat records, binary and JSON. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "map/pg.h"

/* Ceph's words, in pg_state_string()'s order: bit i is word i. */
static const char *const pg_state_names[PG_STATE_NBITS] = {
	"stale", "creating", "active", "activating", "clean", "recovery_wait",
	"recovering", "down", "undersized", "degraded", "remapped",
	"scrubbing", "deep", "inconsistent", "peering", "repair",
	"backfill_wait", "backfilling", "incomplete", "peered", "unknown",
};

/*
 * The record body, version 1 (all big-endian):
 *
 *   u32 pool, u32 seed, u32 state, u32 version_epoch, u64 version_v,
 *   u32 reported_epoch, u64 reported_seq, u32 created,
 *   u32 last_epoch_clean, u32 mapping_epoch, u32 parent_split_bits,
 *   u32 snaptrimq_len                                      (56 bytes)
 *   u8 up_len, i32 up[up_len], i32 up_primary
 *   u8 acting_len, i32 acting[acting_len], i32 acting_primary
 *   i64 x 42: the fields of pg_stat_i64[] in order         (336 bytes)
 *
 * Version 2 appends (40 bytes):
 *
 *   i64 last_undegraded, i64 last_fullsized, u32 last_scrub_epoch,
 *   u64 last_scrub_v, u32 last_deep_scrub_epoch, u64 last_deep_scrub_v
 *
 * Version 3 (compat_v 3, what pg_stat_encode() writes) holds the same
 * fields as varints (common/enc.h), because most of a PG's 60 numbers are
 * zero counters, small epochs and stamps a few seconds apart: a size-3 PG
 * of 472 bytes in version 2 takes about a fifth of that, and a store commit
 * of many PGs dirties that many fewer pages:
 *
 *   varint x 12: the head's fields, in version 1's order
 *   u8 up_len, zigzag up[up_len], zigzag up_primary
 *   u8 acting_len, zigzag acting[acting_len], zigzag acting_primary
 *   varint present: bit i set when pg_v3_wide[i] is not 0
 *   for each bit set, from bit 0: the zigzag of that field; a stamp's
 *     less the first stamp written in the record (the first less 0)
 *   varint last_scrub_epoch, last_scrub_v, last_deep_scrub_epoch,
 *     last_deep_scrub_v
 *
 * A newer struct_v may append fields; older readers skip them.
 */
#define PG_BODY_HEAD 56
#define PG_BODY_V2 40

/* The head's fields, to name the one a short body cuts. */
static const struct pg_head_field {
	const char *name;
	size_t end; /* version 1: offset just past it */
	size_t off; /* in struct pg_stat */
	int wide;   /* 64 bits, not 32 */
} pg_head_fields[] = {
#define PG_HEAD(f, end, wide)                                                  \
	{                                                                      \
#f, end, offsetof(struct pg_stat, f), wide                     \
	}
	{ "pool", 4, offsetof(struct pg_stat, pgid.pool), 0 },
	{ "seed", 8, offsetof(struct pg_stat, pgid.seed), 0 },
	PG_HEAD(state, 12, 0),
	PG_HEAD(version_epoch, 16, 0),
	PG_HEAD(version_v, 24, 1),
	PG_HEAD(reported_epoch, 28, 0),
	PG_HEAD(reported_seq, 36, 1),
	PG_HEAD(created, 40, 0),
	PG_HEAD(last_epoch_clean, 44, 0),
	PG_HEAD(mapping_epoch, 48, 0),
	PG_HEAD(parent_split_bits, 52, 0),
	PG_HEAD(snaptrimq_len, 56, 0),
#undef PG_HEAD
};

/*
 * The 64-bit tail: stamps, log sizes and the stat_sum counters.  The JSON
 * form follows Ceph's order, which splits the first eleven in two runs.
 */
#define PG_I64_LAST_FRESH 0
#define PG_I64_LAST_UNSTALE 6
#define PG_I64_LAST_SCRUB_STAMP 7
#define PG_I64_ONDISK_LOG_SIZE 10
enum pg_i64_kind { PG_STAMP, PG_TOP, PG_SUM };

#define PG_STAT_STAMP_FIELDS(X)                                                \
	X(last_fresh, PG_STAMP)                                                \
	X(last_change, PG_STAMP)                                               \
	X(last_active, PG_STAMP)                                               \
	X(last_peered, PG_STAMP)                                               \
	X(last_clean, PG_STAMP)                                                \
	X(last_became_active, PG_STAMP)                                        \
	X(last_unstale, PG_STAMP)                                              \
	X(last_scrub_stamp, PG_STAMP)                                          \
	X(last_deep_scrub_stamp, PG_STAMP)

#define PG_STAT_COUNT_FIELDS(X)                                                \
	X(log_size, PG_TOP)                                                    \
	X(ondisk_log_size, PG_TOP)                                             \
	X(num_bytes, PG_SUM)                                                   \
	X(num_objects, PG_SUM)                                                 \
	X(num_object_clones, PG_SUM)                                           \
	X(num_object_copies, PG_SUM)                                           \
	X(num_objects_missing_on_primary, PG_SUM)                              \
	X(num_objects_degraded, PG_SUM)                                        \
	X(num_objects_misplaced, PG_SUM)                                       \
	X(num_objects_unfound, PG_SUM)                                         \
	X(num_objects_dirty, PG_SUM)                                           \
	X(num_whiteouts, PG_SUM)                                               \
	X(num_read, PG_SUM)                                                    \
	X(num_read_kb, PG_SUM)                                                 \
	X(num_write, PG_SUM)                                                   \
	X(num_write_kb, PG_SUM)                                                \
	X(num_scrub_errors, PG_SUM)                                            \
	X(num_shallow_scrub_errors, PG_SUM)                                    \
	X(num_deep_scrub_errors, PG_SUM)                                       \
	X(num_objects_recovered, PG_SUM)                                       \
	X(num_bytes_recovered, PG_SUM)                                         \
	X(num_keys_recovered, PG_SUM)                                          \
	X(num_objects_omap, PG_SUM)                                            \
	X(num_objects_hit_set_archive, PG_SUM)                                 \
	X(num_bytes_hit_set_archive, PG_SUM)                                   \
	X(num_flush, PG_SUM)                                                   \
	X(num_evict, PG_SUM)                                                   \
	X(num_promote, PG_SUM)                                                 \
	X(num_large_omap_objects, PG_SUM)                                      \
	X(num_objects_manifest, PG_SUM)                                        \
	X(num_omap_bytes, PG_SUM)                                              \
	X(num_omap_keys, PG_SUM)                                               \
	X(num_objects_repaired, PG_SUM)

#define PG_STAT_I64_FIELDS(X) PG_STAT_STAMP_FIELDS(X) PG_STAT_COUNT_FIELDS(X)

#define PG_I64(f, k) { #f, sizeof #f - 1, offsetof(struct pg_stat, f), k },
static const struct pg_i64 {
	const char *name;
	size_t namelen;
	size_t off;
	enum pg_i64_kind kind;
} pg_stat_i64[] = {
	PG_STAT_I64_FIELDS(PG_I64)
};
#undef PG_I64
#define PG_NI64 nitems(pg_stat_i64)
#define PG_BODY_TAIL (8 * PG_NI64)

static inline int64_t *
pg_i64_at(struct pg_stat *st, size_t i)
{
	return (int64_t *)(void *)((char *)st + pg_stat_i64[i].off);
}

static inline int64_t
pg_i64_get(const struct pg_stat *st, size_t i)
{
	int64_t v;

	memcpy(&v, (const char *)st + pg_stat_i64[i].off, sizeof v);
	return v;
}

/*
 * Version 3's wide fields, in the order of its present bits: the eleven
 * stamps first (bits 0 to 10), then the log sizes and stat_sum counters.
 */
#define PG_WIDE(f, k) { #f, offsetof(struct pg_stat, f) },
static const struct pg_wide {
	const char *name;
	size_t off;
} pg_v3_wide[] = { PG_STAT_STAMP_FIELDS(PG_WIDE) PG_WIDE(last_undegraded,
    PG_STAMP) PG_WIDE(last_fullsized, PG_STAMP) PG_STAT_COUNT_FIELDS(PG_WIDE) };
#undef PG_WIDE
#define PG_V3_NSTAMPS 11
#define PG_V3_NWIDE nitems(pg_v3_wide)

/* The most a version 3 body can take: every varint at its longest. */
#define PG_V3_BODY_MAX                                                         \
	(nitems(pg_head_fields) * ENC_VARINT_MAX +                             \
	    2 * (1 + (PLACEMENT_MAX_SIZE + 1) * ENC_VARINT_MAX) +              \
	    (1 + PG_V3_NWIDE + 4) * ENC_VARINT_MAX)

/* PG ids. */

uint32_t
pg_seed_fold(uint32_t seed, uint32_t pg_num)
{
	uint32_t mask = 0, x;

	if (pg_num == 0)
		return seed;
	for (x = pg_num - 1; x != 0; x >>= 1)
		mask = mask << 1 | 1;
	return (seed & mask) < pg_num ? seed & mask : seed & (mask >> 1);
}

/* Digits of s up to the first non-digit, in base 10 or 16, into *v. */
static const char *
pg_id_number(const char *s, int hex, uint32_t *v, int *overflow)
{
	uint64_t n = 0;
	int d;

	*overflow = 0;
	for (;; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (hex && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (hex && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		n = n * (hex ? 16 : 10) + (uint64_t)d;
		if (n > UINT32_MAX) {
			*overflow = 1;
			n = UINT32_MAX;	/* keep going to find the end */
		}
	}
	*v = (uint32_t)n;
	return s;
}

int
pg_id_parse(const char *s, struct pg_id *id, char **cause)
{
	const char *p, *q;
	int overflow;

	if (*s == '\0') {
		xasprintf(cause, "empty pgid (expected POOL.SEED, as 1.3f)");
		return -1;
	}
	p = pg_id_number(s, 0, &id->pool, &overflow);
	if (p == s) {
		xasprintf(cause, "pgid '%.64s': pool is not a decimal number "
		    "(expected POOL.SEED, as 1.3f)", s);
		return -1;
	}
	if (overflow) {
		xasprintf(cause, "pgid '%.64s': pool out of range", s);
		return -1;
	}
	if (*p != '.') {
		xasprintf(cause, "pgid '%.64s': no '.' after the pool "
		    "(expected POOL.SEED, as 1.3f)", s);
		return -1;
	}
	q = pg_id_number(p + 1, 1, &id->seed, &overflow);
	if (q == p + 1) {
		xasprintf(cause, "pgid '%.64s': seed is not a hex number "
		    "(expected POOL.SEED, as 1.3f)", s);
		return -1;
	}
	if (overflow) {
		xasprintf(cause, "pgid '%.64s': seed out of range", s);
		return -1;
	}
	if (*q != '\0') {
		xasprintf(cause, "pgid '%.64s': junk after the seed", s);
		return -1;
	}
	return 0;
}

char *
pg_id_format(struct pg_id id, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu32 ".%" PRIx32, id.pool, id.seed);
	return buf;
}

int
pg_id_cmp(struct pg_id a, struct pg_id b)
{
	if (a.pool != b.pool)
		return a.pool < b.pool ? -1 : 1;
	if (a.seed != b.seed)
		return a.seed < b.seed ? -1 : 1;
	return 0;
}

/* States. */

const char *
pg_state_bit_name(unsigned i)
{
	return i < PG_STATE_NBITS ? pg_state_names[i] : NULL;
}

char *
pg_state_format(uint32_t state, char *buf, size_t len)
{
	size_t used = 0, n;
	unsigned i;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	state &= PG_STATE_ALL;
	if (state == 0) {
		snprintf(buf, len, "unknown");
		return buf;
	}
	for (i = 0; i < PG_STATE_NBITS; i++) {
		if (!(state & (1U << i)))
			continue;
		n = (size_t)snprintf(buf + used, len - used, "%s%s",
		    used > 0 ? "+" : "", pg_state_names[i]);
		if (n >= len - used)
			break;	/* cut: snprintf left it terminated */
		used += n;
	}
	return buf;
}

int
pg_state_parse(const char *s, uint32_t *state, char **cause)
{
	const char *p = s, *e;
	uint32_t bits = 0;
	size_t n;
	unsigned i;

	if (*s == '\0') {
		xasprintf(cause, "empty PG state");
		return -1;
	}
	for (;;) {
		e = strchr(p, '+');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0) {
			xasprintf(cause, "PG state '%.128s': empty word", s);
			return -1;
		}
		for (i = 0; i < PG_STATE_NBITS; i++) {
			if (strlen(pg_state_names[i]) == n &&
			    memcmp(pg_state_names[i], p, n) == 0)
				break;
		}
		if (i == PG_STATE_NBITS) {
			xasprintf(cause, "unknown PG state '%.*s'",
			    (int)(n > 64 ? 64 : n), p);
			return -1;
		}
		bits |= 1U << i;
		if (e == NULL)
			break;
		p = e + 1;
	}
	*state = bits;
	return 0;
}

/* Binary records. */

void
pg_stat_init(struct pg_stat *st, struct pg_id id)
{
	memset(st, 0, sizeof *st);
	st->pgid = id;
	st->up_primary = -1;
	st->acting_primary = -1;
}

/*
 * The version 3 body of st: written at p, or only measured when p is NULL.
 * Returns its length.  One walk for both, so pg_stat_encoded_size() is
 * always the length pg_stat_encode() writes.
 */
static size_t
pg_v3_body(const struct pg_stat *st, uint8_t *const out)
{
	const int32_t *osds[2] = { st->up, st->acting };
	const int32_t primary[2] = { st->up_primary, st->acting_primary };
	const uint8_t lens[2] = { st->up_len, st->acting_len };
	uint8_t *p = out;
	uint64_t present = 0, u;
	int64_t v, ref = 0;
	size_t n = 0, i, j, k;

#define PG_V3_PUT(x)                                                           \
	do {                                                                   \
		uint64_t x_ = (x);                                             \
		if (p != NULL)                                                 \
			p = enc_put_varint(p, x_);                             \
		else                                                           \
			n += enc_varint_size(x_);                              \
	} while (0)
	for (i = 0; i < nitems(pg_head_fields); i++) {
		const char *f = (const char *)st + pg_head_fields[i].off;
		uint32_t u32;

		if (pg_head_fields[i].wide)
			memcpy(&u, f, sizeof u);
		else {
			memcpy(&u32, f, sizeof u32);
			u = u32;
		}
		PG_V3_PUT(u);
	}
	for (j = 0; j < 2; j++) {
		k = lens[j] > PLACEMENT_MAX_SIZE ? PLACEMENT_MAX_SIZE : lens[j];
		PG_V3_PUT(k); /* below 128: the one byte of a u8 */
		for (i = 0; i < k; i++)
			PG_V3_PUT(enc_zigzag(osds[j][i]));
		PG_V3_PUT(enc_zigzag(primary[j]));
	}
	for (i = 0; i < PG_V3_NWIDE; i++) {
		memcpy(&v, (const char *)st + pg_v3_wide[i].off, sizeof v);
		if (v != 0)
			present |= 1ULL << i;
	}
	PG_V3_PUT(present);
	for (u = present; u != 0; u &= u - 1) {
		i = (size_t)__builtin_ctzll(u);
		memcpy(&v, (const char *)st + pg_v3_wide[i].off, sizeof v);
		if (i < PG_V3_NSTAMPS) {
			PG_V3_PUT(
			    enc_zigzag((int64_t)((uint64_t)v - (uint64_t)ref)));
			if (ref == 0)
				ref = v;
		} else
			PG_V3_PUT(enc_zigzag(v));
	}
	PG_V3_PUT(st->last_scrub_epoch);
	PG_V3_PUT(st->last_scrub_v);
	PG_V3_PUT(st->last_deep_scrub_epoch);
	PG_V3_PUT(st->last_deep_scrub_v);
#undef PG_V3_PUT
	return p != NULL ? (size_t)(p - out) : n;
}

size_t
pg_stat_encoded_size(const struct pg_stat *st)
{
	return 6 + pg_v3_body(st, NULL);
}

void
pg_stat_encode(const struct pg_stat *st, struct enc_buf *b)
{
	size_t start;

	start = enc_buf_record_begin(b, PG_STAT_STRUCT_V, PG_STAT_COMPAT_V);
	b->len += pg_v3_body(st, enc_buf_reserve(b, PG_V3_BODY_MAX));
	enc_buf_record_end(b, start);
}

/* up or acting: count, ids, primary; -1 with *cause when short or too many. */
static inline int
pg_get_osds(struct enc_reader *body, const char *what, int32_t *osds,
    uint8_t *n, int32_t *primary, char **cause)
{
	const uint8_t *p;
	uint8_t i;

	if ((p = enc_reader_take(body, 1)) == NULL) {
		xasprintf(cause, "PG record truncated in field %s count", what);
		return -1;
	}
	*n = p[0];
	if (*n > PLACEMENT_MAX_SIZE) {
		xasprintf(cause, "PG record field %s: %u OSDs, more than %d",
		    what, *n, PLACEMENT_MAX_SIZE);
		return -1;
	}
	if ((p = enc_reader_take(body, 4 * (size_t)*n + 4)) == NULL) {
		xasprintf(cause, "PG record truncated in field %s", what);
		return -1;
	}
	for (i = 0; i < *n; i++)
		osds[i] = (int32_t)enc_get_be32(p + 4 * i);
	for (; i < PLACEMENT_MAX_SIZE; i++)
		osds[i] = 0;	/* no stale ids past the count */
	*primary = (int32_t)enc_get_be32(p + 4 * (size_t)*n);
	return 0;
}

/* A version 1 or 2 body: fixed-width big-endian fields. */
static int
pg_decode_fixed(struct enc_reader *body, uint8_t struct_v, struct pg_stat *st,
    char **cause)
{
	const uint8_t *p;
	size_t i;

	if ((p = enc_reader_take(body, PG_BODY_HEAD)) == NULL) {
		for (i = 0; pg_head_fields[i].end <= body->left; i++)
			;
		xasprintf(cause, "PG record truncated in field %s",
		    pg_head_fields[i].name);
		return -1;
	}
	st->pgid.pool = enc_get_be32(p);
	st->pgid.seed = enc_get_be32(p + 4);
	st->state = enc_get_be32(p + 8);
	st->version_epoch = enc_get_be32(p + 12);
	st->version_v = enc_get_be64(p + 16);
	st->reported_epoch = enc_get_be32(p + 24);
	st->reported_seq = enc_get_be64(p + 28);
	st->created = enc_get_be32(p + 36);
	st->last_epoch_clean = enc_get_be32(p + 40);
	st->mapping_epoch = enc_get_be32(p + 44);
	st->parent_split_bits = enc_get_be32(p + 48);
	st->snaptrimq_len = enc_get_be32(p + 52);
	if (pg_get_osds(body, "up", st->up, &st->up_len, &st->up_primary,
		cause) == -1 ||
	    pg_get_osds(body, "acting", st->acting, &st->acting_len,
		&st->acting_primary, cause) == -1)
		return -1;
	if ((p = enc_reader_take(body, PG_BODY_TAIL)) == NULL) {
		xasprintf(cause, "PG record truncated in field %s",
		    pg_stat_i64[body->left / 8].name);
		return -1;
	}
#define GET(f, k) st->f = (int64_t)enc_get_be64(p), p += 8;
	PG_STAT_I64_FIELDS(GET)
#undef GET
	if (struct_v < 2) {
		st->last_undegraded = st->last_fullsized = 0;
		st->last_scrub_epoch = st->last_deep_scrub_epoch = 0;
		st->last_scrub_v = st->last_deep_scrub_v = 0;
	} else if ((p = enc_reader_take(body, PG_BODY_V2)) == NULL) {
		xasprintf(cause, "PG record truncated in field %s",
		    body->left < 8	? "last_undegraded" :
			body->left < 16 ? "last_fullsized" :
			body->left < 28 ? "last_scrub" :
					  "last_deep_scrub");
		return -1;
	} else {
		st->last_undegraded = (int64_t)enc_get_be64(p);
		st->last_fullsized = (int64_t)enc_get_be64(p + 8);
		st->last_scrub_epoch = enc_get_be32(p + 16);
		st->last_scrub_v = enc_get_be64(p + 20);
		st->last_deep_scrub_epoch = enc_get_be32(p + 28);
		st->last_deep_scrub_v = enc_get_be64(p + 32);
	}
	return 0;
}

/*
 * Wide field i of st from its zigzag x: a stamp is written less the first
 * stamp of the record, *ref (0 until it is read).
 */
static inline void
pg_v3_set_wide(struct pg_stat *st, size_t i, uint64_t x, int64_t *ref)
{
	int64_t v = enc_unzigzag(x);

	if (i < PG_V3_NSTAMPS) {
		v = (int64_t)((uint64_t)v + (uint64_t)*ref);
		if (*ref == 0)
			*ref = v;
	}
	memcpy((char *)st + pg_v3_wide[i].off, &v, sizeof v);
}

/* Names what a failed varint read of field f did wrong. */
static int
pg_v3_bad(int rc, const char *f, char **cause)
{
	if (rc == -1)
		xasprintf(cause, "PG record truncated in field %s", f);
	else
		xasprintf(cause,
		    "PG record field %s: varint longer than 64 "
		    "bits",
		    f);
	return -1;
}

/* A signed 32-bit varint (an OSD id) of field f into *v. */
static int
pg_v3_get_i32(struct enc_reader *body, const char *f, int32_t *v, char **cause)
{
	uint64_t u;
	int64_t x;
	int rc;

	if ((rc = enc_get_varint(body, &u)) != 0)
		return pg_v3_bad(rc, f, cause);
	x = enc_unzigzag(u);
	if (x < INT32_MIN || x > INT32_MAX) {
		xasprintf(cause,
		    "PG record field %s: OSD id %" PRId64 " out "
		    "of range",
		    f, x);
		return -1;
	}
	*v = (int32_t)x;
	return 0;
}

/* An unsigned varint of field f, at most max, into *v. */
static int
pg_v3_get_u(struct enc_reader *body, const char *f, uint64_t max, uint64_t *v,
    char **cause)
{
	int rc;

	if ((rc = enc_get_varint(body, v)) != 0)
		return pg_v3_bad(rc, f, cause);
	if (*v > max) {
		xasprintf(cause,
		    "PG record field %s: %" PRIu64 " does not "
		    "fit in 32 bits",
		    f, *v);
		return -1;
	}
	return 0;
}

/*
 * A varint at p before end, into *v; the byte after it, or NULL when p is
 * NULL or the varint is cut or too long.  Inline, as a restart decodes 40
 * of them a PG: one byte at once, and up to 8 bytes (56 bits: epochs,
 * stamps, byte counts) from one load, the first byte without its top bit
 * ending it and the 7-bit groups packed by halves, not a byte at a time.
 */
static inline __attribute__((always_inline)) const uint8_t *
pg_v3_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t w, stop;
	unsigned bits;
	int too_long;

	if (p == NULL || p >= end)
		return NULL;
	if (*p < 0x80) {
		*v = *p;
		return p + 1;
	}
	if (end - p < 8)
		return enc_varint_get(p, end, v, &too_long);
	memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	if ((stop = ~w & 0x8080808080808080ULL) == 0)
		return enc_varint_get(p, end, v, &too_long);
	bits = (unsigned)__builtin_ctzll(stop) + 1;
	if (bits < 64)
		w &= (1ULL << bits) - 1;
	w &= 0x7f7f7f7f7f7f7f7fULL;
	w = (w & 0x007f007f007f007fULL) | (w & 0x7f007f007f007f00ULL) >> 1;
	w = (w & 0x00003fff00003fffULL) | (w & 0x3fff00003fff0000ULL) >> 2;
	w = (w & 0x000000000fffffffULL) | (w & 0x0fffffff00000000ULL) >> 4;
	*v = w;
	return p + bits / 8;
}

/*
 * The version 3 body at [p, end) into *st, fast: a restart decodes every
 * PG record.  -1 on anything wrong, without a cause; pg_decode_v3() then
 * reads the body again to name what.
 */
static int
pg_decode_v3_fast(const uint8_t *p, const uint8_t *end, struct pg_stat *st)
{
	uint64_t u[12], present, x;
	int64_t ref = 0, id;
	int32_t *osds;
	size_t i, j;

	memset(st, 0, sizeof *st);
	for (i = 0; i < 12; i++)
		p = pg_v3_varint(p, end, &u[i]);
	if (p == NULL ||
	    (u[0] | u[1] | u[2] | u[3] | u[5] | u[7] | u[8] | u[9] | u[10] |
		u[11]) > UINT32_MAX)
		return -1;
	st->pgid.pool = (uint32_t)u[0];
	st->pgid.seed = (uint32_t)u[1];
	st->state = (uint32_t)u[2];
	st->version_epoch = (uint32_t)u[3];
	st->version_v = u[4];
	st->reported_epoch = (uint32_t)u[5];
	st->reported_seq = u[6];
	st->created = (uint32_t)u[7];
	st->last_epoch_clean = (uint32_t)u[8];
	st->mapping_epoch = (uint32_t)u[9];
	st->parent_split_bits = (uint32_t)u[10];
	st->snaptrimq_len = (uint32_t)u[11];
	for (j = 0; j < 2; j++) {
		if (p >= end || *p > PLACEMENT_MAX_SIZE)
			return -1;
		osds = j == 0 ? st->up : st->acting;
		*(j == 0 ? &st->up_len : &st->acting_len) = *p;
		for (i = 0, x = *p++; i <= x; i++) {
			if ((p = pg_v3_varint(p, end, &u[0])) == NULL)
				return -1;
			id = enc_unzigzag(u[0]);
			if (id < INT32_MIN || id > INT32_MAX)
				return -1;
			if (i < x)
				osds[i] = (int32_t)id;
			else
				*(j == 0 ? &st->up_primary :
					   &st->acting_primary) = (int32_t)id;
		}
	}
	if ((p = pg_v3_varint(p, end, &present)) == NULL ||
	    present >> PG_V3_NWIDE != 0)
		return -1;
	for (; present != 0; present &= present - 1) {
		i = (size_t)__builtin_ctzll(present);
		if ((p = pg_v3_varint(p, end, &x)) == NULL)
			return -1;
		pg_v3_set_wide(st, i, x, &ref);
	}
	for (i = 0; i < 4; i++)
		p = pg_v3_varint(p, end, &u[i]);
	if (p == NULL || (u[0] | u[2]) > UINT32_MAX)
		return -1;
	st->last_scrub_epoch = (uint32_t)u[0];
	st->last_scrub_v = u[1];
	st->last_deep_scrub_epoch = (uint32_t)u[2];
	st->last_deep_scrub_v = u[3];
	return 0;
}

/* A version 3 body (the layout at the top), each problem named. */
static int
pg_decode_v3(struct enc_reader *body, struct pg_stat *st, char **cause)
{
	static const char *const counts[2] = { "up count", "acting count" };
	static const char *const sets[2] = { "up", "acting" };
	int32_t *osds[2] = { st->up, st->acting };
	int32_t *primary[2] = { &st->up_primary, &st->acting_primary };
	uint8_t *lens[2] = { &st->up_len, &st->acting_len };
	const uint8_t *p;
	uint64_t u, x, present;
	uint32_t u32;
	int64_t ref = 0;
	size_t i, j;
	int rc;

	memset(st, 0, sizeof *st);
	for (i = 0; i < nitems(pg_head_fields); i++) {
		char *f = (char *)st + pg_head_fields[i].off;

		if (pg_v3_get_u(body, pg_head_fields[i].name,
			pg_head_fields[i].wide ? UINT64_MAX : UINT32_MAX, &u,
			cause) == -1)
			return -1;
		if (pg_head_fields[i].wide)
			memcpy(f, &u, sizeof u);
		else {
			u32 = (uint32_t)u;
			memcpy(f, &u32, sizeof u32);
		}
	}
	for (j = 0; j < 2; j++) {
		if ((p = enc_reader_take(body, 1)) == NULL) {
			xasprintf(cause, "PG record truncated in field %s",
			    counts[j]);
			return -1;
		}
		if (p[0] > PLACEMENT_MAX_SIZE) {
			xasprintf(cause,
			    "PG record field %s: %u OSDs, more "
			    "than %d",
			    sets[j], p[0], PLACEMENT_MAX_SIZE);
			return -1;
		}
		*lens[j] = p[0];
		for (i = 0; i < *lens[j]; i++)
			if (pg_v3_get_i32(body, sets[j], &osds[j][i], cause) ==
			    -1)
				return -1;
		if (pg_v3_get_i32(body, sets[j], primary[j], cause) == -1)
			return -1;
	}
	if ((rc = enc_get_varint(body, &present)) != 0)
		return pg_v3_bad(rc, "present", cause);
	if (present >> PG_V3_NWIDE != 0) {
		xasprintf(cause,
		    "PG record field present: bits %#" PRIx64 " name no field",
		    present >> PG_V3_NWIDE << PG_V3_NWIDE);
		return -1;
	}
	for (u = present; u != 0; u &= u - 1) {
		i = (size_t)__builtin_ctzll(u);
		if ((rc = enc_get_varint(body, &x)) != 0)
			return pg_v3_bad(rc, pg_v3_wide[i].name, cause);
		pg_v3_set_wide(st, i, x, &ref);
	}
	if (pg_v3_get_u(body, "last_scrub", UINT32_MAX, &u, cause) == -1)
		return -1;
	st->last_scrub_epoch = (uint32_t)u;
	if (pg_v3_get_u(body, "last_scrub", UINT64_MAX, &st->last_scrub_v,
		cause) == -1)
		return -1;
	if (pg_v3_get_u(body, "last_deep_scrub", UINT32_MAX, &u, cause) == -1)
		return -1;
	st->last_deep_scrub_epoch = (uint32_t)u;
	if (pg_v3_get_u(body, "last_deep_scrub", UINT64_MAX,
		&st->last_deep_scrub_v, cause) == -1)
		return -1;
	return 0;
}

int
pg_stat_decode(struct enc_reader *r, struct pg_stat *st, char **cause)
{
	struct enc_reader body;
	uint8_t struct_v, compat_v;
	uint32_t len;

	if (r->failed || r->left < 6) {
		xasprintf(cause,
		    "PG record header truncated (%zu bytes, "
		    "need 6 for struct_v, compat_v and length)",
		    r->failed ? (size_t)0 : r->left);
		goto fail;
	}
	struct_v = r->p[0];
	compat_v = r->p[1];
	len = enc_get_be32(r->p + 2);
	if (compat_v > PG_STAT_STRUCT_V) {
		xasprintf(cause,
		    "PG record compat_v %u is newer than this "
		    "mapmon reads (%u)",
		    compat_v, PG_STAT_STRUCT_V);
		goto fail;
	}
	if (struct_v < compat_v || struct_v == 0) {
		xasprintf(cause,
		    "PG record struct_v %u is invalid (compat_v "
		    "%u)",
		    struct_v, compat_v);
		goto fail;
	}
	if (len > r->left - 6) {
		xasprintf(cause,
		    "PG record length %" PRIu32 " runs past the "
		    "end of the buffer (%zu bytes left)",
		    len, r->left - 6);
		goto fail;
	}
	enc_reader_init(&body, r->p + 6, len);
	if (struct_v >= 3) {
		if (pg_decode_v3_fast(body.p, body.p + body.left, st) == -1 &&
		    pg_decode_v3(&body, st, cause) == -1)
			goto fail;
	} else if (pg_decode_fixed(&body, struct_v, st, cause) == -1)
		goto fail;
	/* body.left > 0: fields of a newer struct_v, skipped. */
	r->p += 6 + (size_t)len;
	r->left -= 6 + (size_t)len;
	return 0;

fail:
	r->failed = 1;
	return -1;
}

/* JSON. */

static json_t *
pg_osds_json(const int32_t *osds, uint8_t n)
{
	json_t *a = json_array();
	uint8_t i;

	if (n > PLACEMENT_MAX_SIZE)
		n = PLACEMENT_MAX_SIZE;
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer(osds[i]));
	return a;
}

static void
pg_set_stamp(json_t *o, const char *key, int64_t us)
{
	char buf[STAMP_BUFSIZE];

	json_object_set_new(o, key, json_string(stamp_format(us, buf,
	    sizeof buf)));
}

/* An eversion, "E'V", as Ceph prints one. */
static void
pg_set_version(json_t *o, const char *key, uint32_t e, uint64_t v)
{
	char buf[40];

	snprintf(buf, sizeof buf, "%" PRIu32 "'%" PRIu64, e, v);
	json_object_set_new(o, key, json_string(buf));
}

static void
pg_set_i64(json_t *o, const struct pg_stat *st, size_t i)
{
	if (pg_stat_i64[i].kind == PG_STAMP)
		pg_set_stamp(o, pg_stat_i64[i].name, pg_i64_get(st, i));
	else
		json_object_set_new(o, pg_stat_i64[i].name,
		    json_integer(pg_i64_get(st, i)));
}

json_t *
pg_stat_to_json(const struct pg_stat *st)
{
	char buf[PG_STATE_BUFSIZE];
	json_t *o, *sum;
	size_t i;

	/* Ceph's order: PGMap::dump_pg_stats, then pg_stat_t::dump. */
	o = json_object();
	json_object_set_new(o, "pgid", json_string(pg_id_format(st->pgid, buf,
	    sizeof buf)));
	pg_set_version(o, "version", st->version_epoch, st->version_v);
	json_object_set_new(o, "reported_seq",
	    json_integer((json_int_t)st->reported_seq));
	json_object_set_new(o, "reported_epoch",
	    json_integer(st->reported_epoch));
	json_object_set_new(o, "state", json_string(pg_state_format(st->state,
	    buf, sizeof buf)));
	for (i = PG_I64_LAST_FRESH; i <= PG_I64_LAST_UNSTALE; i++)
		pg_set_i64(o, st, i);
	pg_set_stamp(o, "last_undegraded", st->last_undegraded);
	pg_set_stamp(o, "last_fullsized", st->last_fullsized);
	json_object_set_new(o, "mapping_epoch", json_integer(st->mapping_epoch));
	json_object_set_new(o, "created", json_integer(st->created));
	json_object_set_new(o, "last_epoch_clean",
	    json_integer(st->last_epoch_clean));
	json_object_set_new(o, "parent_split_bits",
	    json_integer(st->parent_split_bits));
	pg_set_version(o, "last_scrub", st->last_scrub_epoch, st->last_scrub_v);
	pg_set_i64(o, st, PG_I64_LAST_SCRUB_STAMP);
	pg_set_version(o, "last_deep_scrub", st->last_deep_scrub_epoch,
	    st->last_deep_scrub_v);
	for (i = PG_I64_LAST_SCRUB_STAMP + 1; i <= PG_I64_ONDISK_LOG_SIZE; i++)
		pg_set_i64(o, st, i);
	json_object_set_new(o, "snaptrimq_len", json_integer(st->snaptrimq_len));
	sum = json_object();
	for (i = 0; i < PG_NI64; i++) {
		if (pg_stat_i64[i].kind == PG_SUM)
			pg_set_i64(sum, st, i);
	}
	json_object_set_new(o, "stat_sum", sum);
	json_object_set_new(o, "up", pg_osds_json(st->up, st->up_len));
	json_object_set_new(o, "acting", pg_osds_json(st->acting,
	    st->acting_len));
	json_object_set_new(o, "up_primary", json_integer(st->up_primary));
	json_object_set_new(o, "acting_primary",
	    json_integer(st->acting_primary));
	return o;
}

/*
 * The text form (pg_text_*).  Every string pg_stat_to_json() writes is
 * plain ASCII that JSON needs no escape for (digits, '.', '\'', '+', ':',
 * '-', letters), so the text is written as is.
 */
void
pg_text_init(struct pg_text *t)
{
	size_t i;

	memset(t, 0, sizeof *t);
	for (i = 0; i < PG_TEXT_STAMPS; i++)
		t->stamps[i].secs = INT64_MIN;
}

void
pg_text_free(struct pg_text *t)
{
	enc_buf_free(&t->buf);
	memset(&t->buf, 0, sizeof t->buf);
}

static void
pg_text_raw(struct pg_text *t, const char *s, size_t n)
{
	enc_buf_put_bytes(&t->buf, s, n);
}

#define pg_text_lit(t, s) pg_text_raw(t, s, sizeof s - 1)

/* A decimal integer; neg puts a '-' before the magnitude u. */
static void
pg_text_dec(struct pg_text *t, uint64_t u, int neg)
{
	char tmp[24], *p = tmp + sizeof tmp;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (neg)
		*--p = '-';
	pg_text_raw(t, p, (size_t)(tmp + sizeof tmp - p));
}

static void
pg_text_int(struct pg_text *t, int64_t v)
{
	pg_text_dec(t, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

/* ,"key": */
static void
pg_text_key(struct pg_text *t, const char *key, size_t n, int first)
{
	char *p = (char *)enc_buf_reserve(&t->buf, n + 4);

	if (!first)
		*p++ = ',';
	*p++ = '"';
	memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	t->buf.len = (size_t)(p - (char *)t->buf.data);
}

static void
pg_text_str(struct pg_text *t, const char *s)
{
	enc_buf_put_u8(&t->buf, '"');
	pg_text_raw(t, s, strlen(s));
	enc_buf_put_u8(&t->buf, '"');
}

/*
 * A stamp as stamp_format() writes it.  Within one second only the six
 * digits of the fraction change: they are patched into the cached text
 * (which ends ".ffffff+0000", or is "invalid" for every fraction).
 */
static void
pg_text_stamp(struct pg_text *t, int64_t us)
{
	char buf[STAMP_BUFSIZE];
	struct pg_text_stamp *c;
	int64_t secs = us / 1000000, frac = us % 1000000;
	char *f;
	int i;

	if (frac < 0) {
		frac += 1000000;
		secs--;
	}
	if (secs < INT64_MIN / 1000000 || (us >= 0 && us < STAMP_RELATIVE_US)) {
		/*
		 * No whole second to cache: secs * 10^6 would overflow; or
		 * the seconds form ("0.000000"), whose fraction sits elsewhere.
		 */
		pg_text_str(t, stamp_format(us, buf, sizeof buf));
		return;
	}
	/* Searched whole: a hash of so few slots collides too often. */
	for (i = 0; i < PG_TEXT_STAMPS; i++)
		if (t->stamps[i].secs == secs)
			break;
	if (i < PG_TEXT_STAMPS)
		c = &t->stamps[i];
	else {
		c = &t->stamps[t->next_stamp++ % PG_TEXT_STAMPS];
		stamp_format(secs * 1000000, c->text, sizeof c->text);
		c->len = strlen(c->text);
		c->secs = secs;
	}
	enc_buf_put_u8(&t->buf, '"');
	f = (char *)enc_buf_reserve(&t->buf, c->len);
	memcpy(f, c->text, c->len);
	if (c->len > 12 && f[c->len - 12] == '.')
		for (i = 0; i < 6; i++) {
			f[c->len - 6 - i] = (char)('0' + frac % 10);
			frac /= 10;
		}
	t->buf.len += c->len;
	enc_buf_put_u8(&t->buf, '"');
}

static void
pg_text_i64(struct pg_text *t, const struct pg_stat *st, size_t i, int first)
{
	pg_text_key(t, pg_stat_i64[i].name, pg_stat_i64[i].namelen, first);
	if (pg_stat_i64[i].kind == PG_STAMP)
		pg_text_stamp(t, pg_i64_get(st, i));
	else
		pg_text_int(t, pg_i64_get(st, i));
}

/* ,"key":"E'V" */
static void
pg_text_version(struct pg_text *t, const char *key, size_t n, uint32_t e,
    uint64_t v)
{
	pg_text_key(t, key, n, 0);
	enc_buf_put_u8(&t->buf, '"');
	pg_text_int(t, e);
	enc_buf_put_u8(&t->buf, '\'');
	pg_text_dec(t, v, 0);
	enc_buf_put_u8(&t->buf, '"');
}

static void
pg_text_osds(struct pg_text *t, const int32_t *osds, uint8_t n)
{
	uint8_t i;

	if (n > PLACEMENT_MAX_SIZE)
		n = PLACEMENT_MAX_SIZE;
	enc_buf_put_u8(&t->buf, '[');
	for (i = 0; i < n; i++) {
		if (i > 0)
			enc_buf_put_u8(&t->buf, ',');
		pg_text_int(t, osds[i]);
	}
	enc_buf_put_u8(&t->buf, ']');
}

/* The pgid as text: "1.3f". */
static void
pg_text_pgid(struct pg_text *t, struct pg_id id)
{
	char buf[16], *p;
	uint32_t seed;

	pg_text_int(t, id.pool);
	p = buf + sizeof buf;
	*--p = '"';
	seed = id.seed;
	do {
		*--p = "0123456789abcdef"[seed & 0xf];
		seed >>= 4;
	} while (seed != 0);
	*--p = '.';
	pg_text_raw(t, p, (size_t)(buf + sizeof buf - p));
}

/* The state's words, cached while the states repeat. */
static void
pg_text_state(struct pg_text *t, uint32_t state)
{
	if (t->state_len == 0 || state != t->state) {
		pg_state_format(state, t->state_text, sizeof t->state_text);
		t->state_len = strlen(t->state_text);
		t->state = state;
	}
	pg_text_raw(t, t->state_text, t->state_len);
}

/* The same fields in the same order as pg_stat_to_json(). */
void
pg_text_stat(struct pg_text *t, const struct pg_stat *st)
{
	size_t i;
	int first = 1;

	pg_text_lit(t, "{\"pgid\":\"");
	pg_text_pgid(t, st->pgid);
	pg_text_lit(t, ",\"version\":\"");
	pg_text_int(t, st->version_epoch);
	enc_buf_put_u8(&t->buf, '\'');
	pg_text_dec(t, st->version_v, 0);
	pg_text_lit(t, "\",\"reported_seq\":");
	pg_text_int(t, (int64_t)st->reported_seq);
	pg_text_lit(t, ",\"reported_epoch\":");
	pg_text_int(t, st->reported_epoch);
	pg_text_lit(t, ",\"state\":\"");
	pg_text_state(t, st->state);
	enc_buf_put_u8(&t->buf, '"');
	for (i = PG_I64_LAST_FRESH; i <= PG_I64_LAST_UNSTALE; i++)
		pg_text_i64(t, st, i, 0);
	pg_text_lit(t, ",\"last_undegraded\":");
	pg_text_stamp(t, st->last_undegraded);
	pg_text_lit(t, ",\"last_fullsized\":");
	pg_text_stamp(t, st->last_fullsized);
	pg_text_lit(t, ",\"mapping_epoch\":");
	pg_text_int(t, st->mapping_epoch);
	pg_text_lit(t, ",\"created\":");
	pg_text_int(t, st->created);
	pg_text_lit(t, ",\"last_epoch_clean\":");
	pg_text_int(t, st->last_epoch_clean);
	pg_text_lit(t, ",\"parent_split_bits\":");
	pg_text_int(t, st->parent_split_bits);
	pg_text_version(t, "last_scrub", sizeof "last_scrub" - 1,
	    st->last_scrub_epoch, st->last_scrub_v);
	pg_text_i64(t, st, PG_I64_LAST_SCRUB_STAMP, 0);
	pg_text_version(t, "last_deep_scrub", sizeof "last_deep_scrub" - 1,
	    st->last_deep_scrub_epoch, st->last_deep_scrub_v);
	for (i = PG_I64_LAST_SCRUB_STAMP + 1; i <= PG_I64_ONDISK_LOG_SIZE; i++)
		pg_text_i64(t, st, i, 0);
	pg_text_lit(t, ",\"snaptrimq_len\":");
	pg_text_int(t, st->snaptrimq_len);
	pg_text_lit(t, ",\"stat_sum\":{");
	for (i = 0; i < PG_NI64; i++) {
		if (pg_stat_i64[i].kind != PG_SUM)
			continue;
		pg_text_i64(t, st, i, first);
		first = 0;
	}
	pg_text_lit(t, "},\"up\":");
	pg_text_osds(t, st->up, st->up_len);
	pg_text_lit(t, ",\"acting\":");
	pg_text_osds(t, st->acting, st->acting_len);
	pg_text_lit(t, ",\"up_primary\":");
	pg_text_int(t, st->up_primary);
	pg_text_lit(t, ",\"acting_primary\":");
	pg_text_int(t, st->acting_primary);
	enc_buf_put_u8(&t->buf, '}');
}

void
pg_text_brief(struct pg_text *t, const struct pg_stat *st)
{
	pg_text_lit(t, "{\"pgid\":\"");
	pg_text_pgid(t, st->pgid);
	pg_text_lit(t, ",\"state\":\"");
	pg_text_state(t, st->state);
	pg_text_lit(t, "\",\"up\":");
	pg_text_osds(t, st->up, st->up_len);
	pg_text_lit(t, ",\"acting\":");
	pg_text_osds(t, st->acting, st->acting_len);
	pg_text_lit(t, ",\"up_primary\":");
	pg_text_int(t, st->up_primary);
	pg_text_lit(t, ",\"acting_primary\":");
	pg_text_int(t, st->acting_primary);
	enc_buf_put_u8(&t->buf, '}');
}

/* An optional integer in [min, max]: 0 absent, 1 read, -1 wrong. */
static int
pg_json_int(json_t *o, const char *prefix, const char *key, json_int_t min,
    json_int_t max, json_int_t *v, char **cause)
{
	json_t *j;

	if ((j = json_object_get(o, key)) == NULL)
		return 0;
	if (!json_is_integer(j)) {
		xasprintf(cause, "PG stat field '%s%s': expected an integer",
		    prefix, key);
		return -1;
	}
	*v = json_integer_value(j);
	if (*v < min || *v > max) {
		xasprintf(cause, "PG stat field '%s%s': %lld out of range "
		    "[%lld, %lld]", prefix, key, (long long)*v, (long long)min,
		    (long long)max);
		return -1;
	}
	return 1;
}

static int
pg_json_u32(json_t *o, const char *key, uint32_t *v, char **cause)
{
	json_int_t x;
	int rc;

	if ((rc = pg_json_int(o, "", key, 0, UINT32_MAX, &x, cause)) == 1)
		*v = (uint32_t)x;
	return rc;
}

static int
pg_json_i32(json_t *o, const char *key, int32_t *v, char **cause)
{
	json_int_t x;
	int rc;

	if ((rc = pg_json_int(o, "", key, INT32_MIN, INT32_MAX, &x,
	    cause)) == 1)
		*v = (int32_t)x;
	return rc;
}

/* An optional string: 0 absent, 1 read, -1 wrong type. */
static int
pg_json_str(json_t *o, const char *key, const char **s, char **cause)
{
	json_t *j;

	if ((j = json_object_get(o, key)) == NULL)
		return 0;
	if (!json_is_string(j)) {
		xasprintf(cause, "PG stat field '%s': expected a string", key);
		return -1;
	}
	*s = json_string_value(j);
	return 1;
}

/* "E'V", both decimal, E within 32 bits and V within 64. */
static int
pg_parse_version(const char *s, uint32_t *e, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (*s < '0' || *s > '9')
		return -1;
	x = strtoull(s, &end, 10);
	if (*end != '\'' || x > UINT32_MAX)
		return -1;
	*e = (uint32_t)x;
	s = end + 1;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (*end != '\0' || errno == ERANGE)
		return -1;
	*v = x;
	return 0;
}

/* An optional stamp: 0 absent, 1 read, -1 wrong. */
static int
pg_json_stamp(json_t *o, const char *key, int64_t *us, char **cause)
{
	json_t *j;

	if ((j = json_object_get(o, key)) == NULL)
		return 0;
	if (!json_is_string(j) || stamp_parse(json_string_value(j), us) == -1) {
		xasprintf(cause,
		    "PG stat field '%s': expected a stamp like "
		    "2026-11-30T19:45:01.123456+0000 or 0.000000",
		    key);
		return -1;
	}
	return 1;
}

/* An optional eversion "E'V": 0 absent, 1 read, -1 wrong. */
static int
pg_json_version(json_t *o, const char *key, uint32_t *e, uint64_t *v,
    char **cause)
{
	const char *s;
	int rc;

	if ((rc = pg_json_str(o, key, &s, cause)) != 1)
		return rc;
	if (pg_parse_version(s, e, v) == -1) {
		xasprintf(cause,
		    "PG stat field '%s': expected EPOCH'V, as "
		    "12'345",
		    key);
		return -1;
	}
	return 1;
}

static int
pg_json_osds(json_t *o, const char *key, int32_t *osds, uint8_t *n,
    char **cause)
{
	json_t *a, *j;
	size_t i;

	if ((a = json_object_get(o, key)) == NULL)
		return 0;
	if (!json_is_array(a)) {
		xasprintf(cause, "PG stat field '%s': expected an array of OSD "
		    "ids", key);
		return -1;
	}
	if (json_array_size(a) > PLACEMENT_MAX_SIZE) {
		xasprintf(cause, "PG stat field '%s': %zu OSDs, more than %d",
		    key, json_array_size(a), PLACEMENT_MAX_SIZE);
		return -1;
	}
	json_array_foreach(a, i, j) {
		if (!json_is_integer(j) || json_integer_value(j) < INT32_MIN ||
		    json_integer_value(j) > INT32_MAX) {
			xasprintf(cause, "PG stat field '%s': entry %zu is not "
			    "an OSD id", key, i);
			return -1;
		}
		osds[i] = (int32_t)json_integer_value(j);
	}
	*n = (uint8_t)json_array_size(a);
	return 1;
}

static int
pg_json_i64s(json_t *o, struct pg_stat *st, enum pg_i64_kind want,
    const char *prefix, char **cause)
{
	json_int_t x;
	size_t i;
	int rc;

	for (i = 0; i < PG_NI64; i++) {
		if (want == PG_SUM ? pg_stat_i64[i].kind != PG_SUM :
		    pg_stat_i64[i].kind == PG_SUM)
			continue;
		if (pg_stat_i64[i].kind != PG_STAMP) {
			rc = pg_json_int(o, prefix, pg_stat_i64[i].name,
			    INT64_MIN, INT64_MAX, &x, cause);
			if (rc == -1)
				return -1;
			if (rc == 1)
				*pg_i64_at(st, i) = x;
			continue;
		}
		if (pg_json_stamp(o, pg_stat_i64[i].name, pg_i64_at(st, i),
			cause) == -1)
			return -1;
	}
	return 0;
}

int
pg_stat_from_json(json_t *o, struct pg_stat *st, char **cause)
{
	static const struct {
		const char *name;
		size_t off;
	} u32s[] = {
		{ "reported_epoch", offsetof(struct pg_stat, reported_epoch) },
		{ "mapping_epoch", offsetof(struct pg_stat, mapping_epoch) },
		{ "created", offsetof(struct pg_stat, created) },
		{ "last_epoch_clean", offsetof(struct pg_stat,
		    last_epoch_clean) },
		{ "parent_split_bits", offsetof(struct pg_stat,
		    parent_split_bits) },
		{ "snaptrimq_len", offsetof(struct pg_stat, snaptrimq_len) },
	};
	struct pg_id id;
	const char *s;
	json_int_t x;
	json_t *sum;
	char *why = NULL;
	size_t i;
	int rc;

	if (!json_is_object(o)) {
		xasprintf(cause, "PG stat is not a JSON object");
		return -1;
	}
	if ((rc = pg_json_str(o, "pgid", &s, cause)) != 1) {
		if (rc == 0)
			xasprintf(cause, "PG stat field 'pgid' is missing");
		return -1;
	}
	if (pg_id_parse(s, &id, &why) == -1) {
		xasprintf(cause, "PG stat field 'pgid': %s", why);
		free(why);
		return -1;
	}
	pg_stat_init(st, id);
	if ((rc = pg_json_str(o, "state", &s, cause)) != 1) {
		if (rc == 0)
			xasprintf(cause, "PG stat field 'state' is missing");
		return -1;
	}
	if (pg_state_parse(s, &st->state, &why) == -1) {
		xasprintf(cause, "PG stat field 'state': %s", why);
		free(why);
		return -1;
	}

	if (pg_json_version(o, "version", &st->version_epoch, &st->version_v,
		cause) == -1 ||
	    pg_json_version(o, "last_scrub", &st->last_scrub_epoch,
		&st->last_scrub_v, cause) == -1 ||
	    pg_json_version(o, "last_deep_scrub", &st->last_deep_scrub_epoch,
		&st->last_deep_scrub_v, cause) == -1 ||
	    pg_json_stamp(o, "last_undegraded", &st->last_undegraded, cause) ==
		-1 ||
	    pg_json_stamp(o, "last_fullsized", &st->last_fullsized, cause) ==
		-1)
		return -1;
	if ((rc = pg_json_int(o, "", "reported_seq", 0, INT64_MAX, &x,
	    cause)) == -1)
		return -1;
	if (rc == 1)
		st->reported_seq = (uint64_t)x;
	for (i = 0; i < nitems(u32s); i++) {
		uint32_t v;

		if ((rc = pg_json_u32(o, u32s[i].name, &v, cause)) == -1)
			return -1;
		if (rc == 1)
			memcpy((char *)st + u32s[i].off, &v, sizeof v);
	}
	if (pg_json_i64s(o, st, PG_TOP, "", cause) == -1)
		return -1;
	if ((sum = json_object_get(o, "stat_sum")) != NULL) {
		if (!json_is_object(sum)) {
			xasprintf(cause, "PG stat field 'stat_sum': expected "
			    "an object");
			return -1;
		}
		if (pg_json_i64s(sum, st, PG_SUM, "stat_sum.", cause) == -1)
			return -1;
	}

	if (pg_json_osds(o, "up", st->up, &st->up_len, cause) == -1 ||
	    pg_json_osds(o, "acting", st->acting, &st->acting_len,
	    cause) == -1)
		return -1;
	/* An absent primary is the first of its set, as placement has it. */
	if (st->up_len > 0)
		st->up_primary = st->up[0];
	if (st->acting_len > 0)
		st->acting_primary = st->acting[0];
	if (pg_json_i32(o, "up_primary", &st->up_primary, cause) == -1 ||
	    pg_json_i32(o, "acting_primary", &st->acting_primary, cause) == -1)
		return -1;
	return 0;
}

/* Bob Jenkins' mix of three 32-bit words (his 1996 lookup2). */
#define PG_RJ_MIX(a, b, c)                                                     \
	do {                                                                   \
		a -= b;                                                        \
		a -= c;                                                        \
		a ^= (c >> 13);                                                \
		b -= c;                                                        \
		b -= a;                                                        \
		b ^= (a << 8);                                                 \
		c -= a;                                                        \
		c -= b;                                                        \
		c ^= (b >> 13);                                                \
		a -= b;                                                        \
		a -= c;                                                        \
		a ^= (c >> 12);                                                \
		b -= c;                                                        \
		b -= a;                                                        \
		b ^= (a << 16);                                                \
		c -= a;                                                        \
		c -= b;                                                        \
		c ^= (b >> 5);                                                 \
		a -= b;                                                        \
		a -= c;                                                        \
		a ^= (c >> 3);                                                 \
		b -= c;                                                        \
		b -= a;                                                        \
		b ^= (a << 10);                                                \
		c -= a;                                                        \
		c -= b;                                                        \
		c ^= (b >> 15);                                                \
	} while (0)

uint32_t
pg_str_hash_rjenkins(const char *str, size_t length)
{
	const uint8_t *k = (const uint8_t *)str;
	uint32_t a = 0x9e3779b9, b = 0x9e3779b9, c = 0;
	size_t len = length;

	/* Twelve bytes at a time, little-endian into a, b and c. */
	while (len >= 12) {
		a += k[0] + ((uint32_t)k[1] << 8) + ((uint32_t)k[2] << 16) +
		    ((uint32_t)k[3] << 24);
		b += k[4] + ((uint32_t)k[5] << 8) + ((uint32_t)k[6] << 16) +
		    ((uint32_t)k[7] << 24);
		c += k[8] + ((uint32_t)k[9] << 8) + ((uint32_t)k[10] << 16) +
		    ((uint32_t)k[11] << 24);
		PG_RJ_MIX(a, b, c);
		k += 12;
		len -= 12;
	}
	/* The rest; c's low byte is the length's. */
	c += (uint32_t)length;
	switch (len) {
	case 11:
		c += (uint32_t)k[10] << 24;
		/* FALLTHROUGH */
	case 10:
		c += (uint32_t)k[9] << 16;
		/* FALLTHROUGH */
	case 9:
		c += (uint32_t)k[8] << 8;
		/* FALLTHROUGH */
	case 8:
		b += (uint32_t)k[7] << 24;
		/* FALLTHROUGH */
	case 7:
		b += (uint32_t)k[6] << 16;
		/* FALLTHROUGH */
	case 6:
		b += (uint32_t)k[5] << 8;
		/* FALLTHROUGH */
	case 5:
		b += k[4];
		/* FALLTHROUGH */
	case 4:
		a += (uint32_t)k[3] << 24;
		/* FALLTHROUGH */
	case 3:
		a += (uint32_t)k[2] << 16;
		/* FALLTHROUGH */
	case 2:
		a += (uint32_t)k[1] << 8;
		/* FALLTHROUGH */
	case 1:
		a += k[0];
		break;
	default:
		break;
	}
	PG_RJ_MIX(a, b, c);
	return c;
}
