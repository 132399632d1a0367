/* test_pg.c: PG ids, states and stat records (mapmon-protocol(7)). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "map/pgmap.h"
#include "map/pg.h"

/* Every field, compared one by one (no padding bytes involved). */
#define STAT_FIELDS(X)                                                         \
	X(pgid.pool)                                                           \
	X(pgid.seed)                                                           \
	X(state)                                                               \
	X(version_epoch)                                                       \
	X(version_v)                                                           \
	X(reported_epoch)                                                      \
	X(reported_seq)                                                        \
	X(created)                                                             \
	X(last_epoch_clean)                                                    \
	X(mapping_epoch)                                                       \
	X(parent_split_bits)                                                   \
	X(snaptrimq_len)                                                       \
	X(up_len)                                                              \
	X(acting_len)                                                          \
	X(up_primary)                                                          \
	X(acting_primary)                                                      \
	X(last_fresh)                                                          \
	X(last_change)                                                         \
	X(last_active)                                                         \
	X(last_peered)                                                         \
	X(last_clean)                                                          \
	X(last_became_active)                                                  \
	X(last_unstale)                                                        \
	X(last_scrub_stamp)                                                    \
	X(last_deep_scrub_stamp)                                               \
	X(last_undegraded)                                                     \
	X(last_fullsized)                                                      \
	X(last_scrub_epoch)                                                    \
	X(last_scrub_v)                                                        \
	X(last_deep_scrub_epoch)                                               \
	X(last_deep_scrub_v)                                                   \
	X(log_size)                                                            \
	X(ondisk_log_size)                                                     \
	PGMAP_STAT_SUM_FIELDS(X)

static void
assert_stat_eq(const struct pg_stat *a, const struct pg_stat *b)
{
	int i;

#define CMP(f) cr_assert_eq(a->f, b->f, "field " #f " differs");
	STAT_FIELDS(CMP)
#undef CMP
	for (i = 0; i < a->up_len; i++)
		cr_assert_eq(a->up[i], b->up[i], "up[%d] differs", i);
	for (i = 0; i < a->acting_len; i++)
		cr_assert_eq(a->acting[i], b->acting[i], "acting[%d]", i);
}

/* 64 fields, each with its own value, some at their limits. */
static void
fill(struct pg_stat *st, uint32_t seed)
{
	int64_t v = 1000;

	pg_stat_init(st, (struct pg_id){ 7, seed });
	st->state = PG_STATE_ACTIVE | PG_STATE_CLEAN | PG_STATE_SCRUBBING |
	    PG_STATE_DEEP;
	st->version_epoch = 4000000000U;
	st->version_v = 0xfedcba9876543210ULL;
	st->reported_epoch = 123456;
	st->reported_seq = 0x7000000000000001ULL;
	st->created = 11;
	st->last_epoch_clean = 12;
	st->mapping_epoch = 13;
	st->parent_split_bits = 14;
	st->snaptrimq_len = UINT32_MAX;
	st->up_len = 3;
	st->up[0] = 5;
	st->up[1] = 0;
	st->up[2] = INT32_MAX;
	st->acting_len = 2;
	st->acting[0] = 9;
	st->acting[1] = -7;
	st->up_primary = 5;
	st->acting_primary = -1;
	st->last_scrub_epoch = 4000000001U;
	st->last_scrub_v = 0x0123456789abcdefULL;
	st->last_deep_scrub_epoch = 17;
	st->last_deep_scrub_v = UINT64_MAX;
#define SET(f) st->f = v++ * 1000003;
	SET(last_fresh)
	SET(last_change)
	SET(last_active)
	SET(last_peered)
	SET(last_clean)
	SET(last_became_active)
	SET(last_unstale)
	SET(last_scrub_stamp)
	SET(last_deep_scrub_stamp)
	SET(last_undegraded)
	SET(last_fullsized)
	SET(log_size)
	SET(ondisk_log_size)
	SET(num_bytes)
	SET(num_objects)
	SET(num_object_clones)
	SET(num_object_copies)
	SET(num_objects_missing_on_primary)
	SET(num_objects_degraded)
	SET(num_objects_misplaced)
	SET(num_objects_unfound)
	SET(num_objects_dirty)
	SET(num_whiteouts)
	SET(num_read)
	SET(num_read_kb)
	SET(num_write)
	SET(num_write_kb)
	SET(num_scrub_errors)
	SET(num_shallow_scrub_errors)
	SET(num_deep_scrub_errors)
	SET(num_objects_recovered)
	SET(num_bytes_recovered)
	SET(num_keys_recovered)
	SET(num_objects_omap)
	SET(num_objects_hit_set_archive)
	SET(num_bytes_hit_set_archive)
	SET(num_flush)
	SET(num_evict)
	SET(num_promote)
	SET(num_large_omap_objects)
	SET(num_objects_manifest)
	SET(num_omap_bytes)
	SET(num_omap_keys)
	SET(num_objects_repaired)
#undef SET
	st->num_bytes = INT64_MAX;
	st->num_objects_degraded = -3;
	st->num_omap_keys = INT64_MIN;
}

/* A size-3 PG as an OSD reports it between scrubs. */
static void
typical(struct pg_stat *st, uint32_t seed)
{
	int64_t t = 1796067901123456LL;	/* 2026-11-30T19:45:01.123456 */

	pg_stat_init(st, (struct pg_id){ 1, seed });
	st->state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
	st->version_epoch = 812;
	st->version_v = 40211;
	st->reported_epoch = 820;
	st->reported_seq = 93112;
	st->created = 20;
	st->last_epoch_clean = 818;
	st->mapping_epoch = 815;
	st->up_len = st->acting_len = 3;
	st->up[0] = st->acting[0] = (int32_t)(seed % 256);
	st->up[1] = st->acting[1] = (int32_t)((seed + 1) % 256);
	st->up[2] = st->acting[2] = (int32_t)((seed + 2) % 256);
	st->up_primary = st->acting_primary = st->up[0];
	st->last_fresh = st->last_change = st->last_active = t;
	st->last_peered = st->last_clean = st->last_unstale = t;
	st->last_became_active = t - 3600000000LL;
	st->last_scrub_stamp = t - 86400000000LL;
	st->last_deep_scrub_stamp = t - 7 * 86400000000LL;
	st->last_undegraded = st->last_fullsized = t;
	st->last_scrub_epoch = 790;
	st->last_scrub_v = 39000;
	st->last_deep_scrub_epoch = 640;
	st->last_deep_scrub_v = 31000;
	st->log_size = st->ondisk_log_size = 3000;
	st->num_bytes = 4194304LL * 900;
	st->num_objects = 900;
	st->num_object_copies = 2700;
	st->num_read = 120000;
	st->num_read_kb = 4800000;
	st->num_write = 90000;
	st->num_write_kb = 3600000;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* PG ids. */

Test(pgid, round_trip)
{
	static const struct {
		const char *in, *out;
		uint32_t pool, seed;
	} good[] = {
		{ "1.3f", "1.3f", 1, 0x3f },
		{ "0.0", "0.0", 0, 0 },
		{ "12.ABCDEF", "12.abcdef", 12, 0xabcdef },
		{ "4294967295.ffffffff", "4294967295.ffffffff", UINT32_MAX,
		    UINT32_MAX },
		{ "007.0010", "7.10", 7, 0x10 },
	};
	char buf[PG_ID_BUFSIZE], *cause = NULL;
	struct pg_id id;
	size_t i;

	for (i = 0; i < nitems(good); i++) {
		cr_assert_eq(pg_id_parse(good[i].in, &id, &cause), 0, "%s",
		    good[i].in);
		cr_assert_null(cause);
		cr_assert_eq(id.pool, good[i].pool);
		cr_assert_eq(id.seed, good[i].seed);
		cr_assert_str_eq(pg_id_format(id, buf, sizeof buf),
		    good[i].out);
	}
	cr_assert_lt(pg_id_cmp((struct pg_id){ 1, 9 }, (struct pg_id){ 2, 0 }),
	    0);
	cr_assert_gt(pg_id_cmp((struct pg_id){ 1, 9 }, (struct pg_id){ 1, 8 }),
	    0);
	cr_assert_eq(pg_id_cmp((struct pg_id){ 3, 4 }, (struct pg_id){ 3, 4 }),
	    0);
}

/*
 * Ceph's raw_pg_to_pg(): `pg map 1.10', `1.1f' and `1.ff' of a pool of 8
 * PGs are 1.0, 1.7 and 1.7 (seen on ceph 16.2.15); within a non-power of
 * two, the seeds past pg_num fold to the half mask.
 */
Test(pgid, seed_fold)
{
	cr_assert_eq(pg_seed_fold(0x10, 8), 0);
	cr_assert_eq(pg_seed_fold(0x1f, 8), 7);
	cr_assert_eq(pg_seed_fold(0xff, 8), 7);
	cr_assert_eq(pg_seed_fold(5, 8), 5);
	cr_assert_eq(pg_seed_fold(13, 12), 5); /* 13 & 15 >= 12: 13 & 7 */
	cr_assert_eq(pg_seed_fold(11, 12), 11);
	cr_assert_eq(pg_seed_fold(0xffffffffU, 1), 0);
	cr_assert_eq(pg_seed_fold(7, 0), 7);
}

Test(pgid, bad)
{
	static const struct {
		const char *in, *why;
	} bad[] = {
		{ "", "empty" },
		{ "1", "no '.'" },
		{ "1.", "seed" },
		{ ".3", "pool" },
		{ "x.3", "pool" },
		{ "1.zz", "seed" },
		{ "1.3f junk", "junk" },
		{ "1.3fg", "junk" },
		{ "1.3f ", "junk" },
		{ " 1.3f", "pool" },
		{ "+1.3", "pool" },
		{ "-1.3", "pool" },
		{ "1.-3", "seed" },
		{ "1.0x3", "junk" },
		{ "1..3", "seed" },
		{ "1.3.4", "junk" },
		{ "4294967296.0", "pool out of range" },
		{ "99999999999999999999999.0", "pool out of range" },
		{ "1.100000000", "seed out of range" },
	};
	struct pg_id id;
	char *cause;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		cause = NULL;
		cr_assert_eq(pg_id_parse(bad[i].in, &id, &cause), -1, "'%s'",
		    bad[i].in);
		cr_assert_not_null(cause);
		cr_assert_not_null(strstr(cause, bad[i].why), "'%s': %s",
		    bad[i].in, cause);
		free(cause);
	}
}

/* States. */

Test(pgstate, every_bit)
{
	char buf[PG_STATE_BUFSIZE], *cause = NULL;
	uint32_t bits;
	unsigned i;

	cr_assert_null(pg_state_bit_name(PG_STATE_NBITS));
	for (i = 0; i < PG_STATE_NBITS; i++) {
		const char *name = pg_state_bit_name(i);

		cr_assert_not_null(name);
		cr_assert_eq(pg_state_parse(name, &bits, &cause), 0, "%s",
		    name);
		cr_assert_eq(bits, 1U << i, "%s", name);
		cr_assert_str_eq(pg_state_format(bits, buf, sizeof buf), name);
	}
	/* The state words of mapmon-protocol(7) are all there, each once. */
	cr_assert_eq(pg_state_parse("creating+active+clean+peering+activating+"
	    "degraded+undersized+remapped+recovering+recovery_wait+"
	    "backfilling+backfill_wait+scrubbing+deep+stale+down+incomplete+"
	    "peered+inconsistent+repair+unknown", &bits, &cause), 0);
	cr_assert_eq(bits, PG_STATE_ALL);
}

Test(pgstate, canonical_order)
{
	char buf[PG_STATE_BUFSIZE], small[12], *cause = NULL;
	uint32_t bits;

	cr_assert_str_eq(pg_state_format(PG_STATE_ALL, buf, sizeof buf),
	    "stale+creating+active+activating+clean+recovery_wait+recovering+"
	    "down+undersized+degraded+remapped+scrubbing+deep+inconsistent+"
	    "peering+repair+backfill_wait+backfilling+incomplete+peered+"
	    "unknown");
	cr_assert_eq(pg_state_parse("clean+active", &bits, &cause), 0);
	cr_assert_eq(bits, PG_STATE_ACTIVE | PG_STATE_CLEAN);
	cr_assert_str_eq(pg_state_format(bits, buf, sizeof buf),
	    "active+clean");
	cr_assert_eq(pg_state_parse("degraded+undersized+peered+active",
	    &bits, &cause), 0);
	cr_assert_str_eq(pg_state_format(bits, buf, sizeof buf),
	    "active+undersized+degraded+peered");
	cr_assert_eq(pg_state_parse("deep+scrubbing+clean+active+clean",
	    &bits, &cause), 0);
	cr_assert_str_eq(pg_state_format(bits, buf, sizeof buf),
	    "active+clean+scrubbing+deep");
	cr_assert_str_eq(pg_state_format(PG_STATE_STALE | PG_STATE_CREATING |
	    PG_STATE_PEERING, buf, sizeof buf), "stale+creating+peering");
	/* Nothing known prints as Ceph prints it. */
	cr_assert_str_eq(pg_state_format(0, buf, sizeof buf), "unknown");
	cr_assert_str_eq(pg_state_format(1U << 31, buf, sizeof buf),
	    "unknown");
	/* A short buffer is cut, never overrun. */
	cr_assert_str_eq(pg_state_format(PG_STATE_ACTIVE | PG_STATE_CLEAN |
	    PG_STATE_SCRUBBING, small, sizeof small), "active+clea");
	cr_assert_eq(pg_state_format(PG_STATE_ACTIVE, small, 0), small);
}

Test(pgstate, bad)
{
	static const struct {
		const char *in, *why;
	} bad[] = {
		{ "", "empty PG state" },
		{ "active+", "empty word" },
		{ "+active", "empty word" },
		{ "active++clean", "empty word" },
		{ "bogus", "'bogus'" },
		{ "active+bogus+clean", "'bogus'" },
		{ "Active", "'Active'" },
		{ "active clean", "'active clean'" },
		{ "wait_backfill", "'wait_backfill'" },
	};
	uint32_t bits = 77;
	char *cause;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		cause = NULL;
		cr_assert_eq(pg_state_parse(bad[i].in, &bits, &cause), -1,
		    "'%s'", bad[i].in);
		cr_assert_not_null(cause);
		cr_assert_not_null(strstr(cause, bad[i].why), "'%s': %s",
		    bad[i].in, cause);
		cr_assert_eq(bits, 77, "a failed parse changed the state");
		free(cause);
	}
}

/* Binary records. */

/*
 * The version 2 record of st, fixed-width and big-endian, written here from
 * mapmon-protocol(7) and not by the monitor's code, so that the reading of
 * the stores and reports of mapmon before version 3 is tested against the
 * document.
 */
#define V2_BODY_FIXED 442
#define V2_BODY_FIXED_V1 402

static void
encode_v2(const struct pg_stat *st, struct enc_buf *b)
{
	size_t start = enc_buf_record_begin(b, 2, 1);
	const int64_t *wide[] = { &st->last_fresh, &st->last_change,
		&st->last_active, &st->last_peered, &st->last_clean,
		&st->last_became_active, &st->last_unstale,
		&st->last_scrub_stamp, &st->last_deep_scrub_stamp,
		&st->log_size, &st->ondisk_log_size };
	size_t i;

	enc_buf_put_u32(b, st->pgid.pool);
	enc_buf_put_u32(b, st->pgid.seed);
	enc_buf_put_u32(b, st->state);
	enc_buf_put_u32(b, st->version_epoch);
	enc_buf_put_u64(b, st->version_v);
	enc_buf_put_u32(b, st->reported_epoch);
	enc_buf_put_u64(b, st->reported_seq);
	enc_buf_put_u32(b, st->created);
	enc_buf_put_u32(b, st->last_epoch_clean);
	enc_buf_put_u32(b, st->mapping_epoch);
	enc_buf_put_u32(b, st->parent_split_bits);
	enc_buf_put_u32(b, st->snaptrimq_len);
	enc_buf_put_u8(b, st->up_len);
	for (i = 0; i < st->up_len; i++)
		enc_buf_put_u32(b, (uint32_t)st->up[i]);
	enc_buf_put_u32(b, (uint32_t)st->up_primary);
	enc_buf_put_u8(b, st->acting_len);
	for (i = 0; i < st->acting_len; i++)
		enc_buf_put_u32(b, (uint32_t)st->acting[i]);
	enc_buf_put_u32(b, (uint32_t)st->acting_primary);
	for (i = 0; i < nitems(wide); i++)
		enc_buf_put_u64(b, (uint64_t)*wide[i]);
#define PUT_SUM(f) enc_buf_put_u64(b, (uint64_t)st->f);
	PGMAP_STAT_SUM_FIELDS(PUT_SUM)
#undef PUT_SUM
	enc_buf_put_u64(b, (uint64_t)st->last_undegraded);
	enc_buf_put_u64(b, (uint64_t)st->last_fullsized);
	enc_buf_put_u32(b, st->last_scrub_epoch);
	enc_buf_put_u64(b, st->last_scrub_v);
	enc_buf_put_u32(b, st->last_deep_scrub_epoch);
	enc_buf_put_u64(b, st->last_deep_scrub_v);
	enc_buf_record_end(b, start);
}

/* The field a decode's cause says the record was cut in, or NULL. */
static const char *
cut_field(const char *cause)
{
	const char *p = strstr(cause, "truncated in field ");

	return p ? p + strlen("truncated in field ") : NULL;
}

Test(pgrec, round_trip)
{
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause = NULL;

	fill(&in, 0x3f);
	pg_stat_encode(&in, &b);
	cr_assert_eq(b.len, pg_stat_encoded_size(&in));
	cr_assert_eq(b.data[0], PG_STAT_STRUCT_V);
	cr_assert_eq(b.data[1], PG_STAT_COMPAT_V);
	cr_assert_eq(enc_get_be32(b.data + 2), b.len - 6);
	/* Varints, pool first. */
	cr_assert_eq(b.data[6], 7);
	cr_assert_eq(b.data[7], 0x3f);
	enc_reader_init(&r, b.data, b.len);
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0, "%s", cause);
	cr_assert_eq(r.left, 0);
	assert_stat_eq(&in, &out);

	/* Empty sets and the zero stat too: the smallest record. */
	pg_stat_init(&in, (struct pg_id){ 0, 0 });
	in.up_primary = in.acting_primary = 0;
	enc_buf_reset(&b);
	pg_stat_encode(&in, &b);
	cr_assert_eq(b.len, PG_STAT_MIN_ENCODED_SIZE);
	cr_assert_eq(b.len, pg_stat_encoded_size(&in));
	enc_reader_init(&r, b.data, b.len);
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0);
	assert_stat_eq(&in, &out);
	pg_stat_init(&in, (struct pg_id){ 0, 0 });
	enc_buf_reset(&b);
	pg_stat_encode(&in, &b);
	enc_reader_init(&r, b.data, b.len);
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0);
	cr_assert_eq(out.up_primary, -1);
	enc_buf_free(&b);
}

/*
 * Values at every edge: zero and non-zero stamps mixed, stamps far apart
 * and of either sign, counters at INT64_MIN and INT64_MAX, ids at the
 * ends of 32 bits.  Each reads back equal, and pg_stat_encoded_size() is
 * the length written.
 */
Test(pgrec, edges_round_trip)
{
	static const int64_t edge[] = { 0, 1, -1, 127, 128, -64, -65, INT64_MAX,
		INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, 1796067901123456LL,
		-1796067901123456LL };
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause = NULL;
	uint64_t x = 88172645463325252ULL;
	size_t k, i, n = nitems(edge);

	for (k = 0; k < 20000; k++) {
		pg_stat_init(&in,
		    (struct pg_id){ (uint32_t)k * 2654435761U,
			UINT32_MAX - (uint32_t)k });
		{
			int64_t *stamps[] = { &in.last_fresh, &in.last_change,
				&in.last_active, &in.last_peered,
				&in.last_clean, &in.last_became_active,
				&in.last_unstale, &in.last_scrub_stamp,
				&in.last_deep_scrub_stamp, &in.last_undegraded,
				&in.last_fullsized };
#define SUM_AT(f) &in.f,
			int64_t *counts[] = { &in.log_size, &in.ondisk_log_size,
				PGMAP_STAT_SUM_FIELDS(SUM_AT) };
#undef SUM_AT

			for (i = 0; i < nitems(stamps); i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				*stamps[i] = edge[x % n];
			}
			for (i = 0; i < nitems(counts); i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				*counts[i] = x % 3 == 0 ? (int64_t)x :
							  edge[x % n];
			}
		}
		in.version_v = x;
		in.reported_seq = ~x;
		in.state = (uint32_t)(x >> 32);
		in.snaptrimq_len = (uint32_t)x;
		in.last_scrub_v = x * 3;
		in.last_deep_scrub_epoch = UINT32_MAX;
		in.up_len = (uint8_t)(k % (PLACEMENT_MAX_SIZE + 1));
		in.acting_len = (uint8_t)((k / 3) % (PLACEMENT_MAX_SIZE + 1));
		for (i = 0; i < PLACEMENT_MAX_SIZE; i++) {
			in.up[i] = i < in.up_len ? (int32_t)(x >> i) : 0;
			in.acting[i] = i < in.acting_len ?
			    (i % 2 ? INT32_MIN : INT32_MAX) :
			    0;
		}
		in.up_primary = (int32_t)x;
		enc_buf_reset(&b);
		pg_stat_encode(&in, &b);
		cr_assert_eq(b.len, pg_stat_encoded_size(&in), "%zu", k);
		enc_reader_init(&r, b.data, b.len);
		cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0, "%zu: %s", k,
		    cause);
		cr_assert_eq(r.left, 0);
		assert_stat_eq(&in, &out);
	}
	enc_buf_free(&b);
}

/*
 * The record size aimed at: version 2 took 472 bytes for a size-3 PG;
 * version 3 a fifth of it.
 */
Test(pgrec, typical_size)
{
	struct enc_buf b = { 0 }, old = { 0 };
	struct pg_stat st;

	typical(&st, 5);
	pg_stat_encode(&st, &b);
	encode_v2(&st, &old);
	cr_assert_eq(b.len, pg_stat_encoded_size(&st));
	cr_assert_eq(old.len, 6 + V2_BODY_FIXED + 4 * 6);
	cr_assert(b.len * 4 <= old.len, "%zu bytes against %zu", b.len,
	    old.len);
	fprintf(stderr,
	    "pg_stat: a size-3 PG encodes to %zu bytes (%zu in "
	    "version 2)\n",
	    b.len, old.len);
	enc_buf_free(&b);
	enc_buf_free(&old);
}

/*
 * Every prefix of a record fails cleanly, with a cause, reading nothing
 * past the prefix (each copy is its own allocation of exactly that size,
 * so ASan sees any overrun); both versions.
 */
Test(pgrec, truncated)
{
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause;
	uint8_t *copy;
	size_t n;
	int v;

	fill(&in, 1);
	for (v = 2; v <= 3; v++) {
		enc_buf_reset(&b);
		if (v == 2)
			encode_v2(&in, &b);
		else
			pg_stat_encode(&in, &b);
		for (n = 0; n < b.len; n++) {
			copy = xmalloc(n ? n : 1);
			memcpy(copy, b.data, n);
			enc_reader_init(&r, copy, n);
			cause = NULL;
			cr_assert_eq(pg_stat_decode(&r, &out, &cause), -1,
			    "%zu", n);
			cr_assert_not_null(cause, "%zu bytes: no cause", n);
			cr_assert(r.failed);
			free(cause);

			/*
			 * The same cut with the length field fixed to match:
			 * the body is short, and the cause names the field
			 * cut.
			 */
			if (n >= 6) {
				enc_put_be32(copy + 2, (uint32_t)(n - 6));
				enc_reader_init(&r, copy, n);
				cause = NULL;
				cr_assert_eq(pg_stat_decode(&r, &out, &cause),
				    -1);
				cr_assert_not_null(cut_field(cause),
				    "v%d %zu: %s", v, n, cause);
				free(cause);
			}
			free(copy);
		}
	}
	enc_buf_free(&b);
}

/*
 * A version 3 record cut at every length names each of its fields in
 * turn: the fields, in the record's order, each cut at least once.
 */
Test(pgrec, truncated_names_field)
{
	static const char *const order[] = { "pool", "seed", "state",
		"version_epoch", "version_v", "reported_epoch", "reported_seq",
		"created", "last_epoch_clean", "mapping_epoch",
		"parent_split_bits", "snaptrimq_len", "up count", "up",
		"acting count", "acting", "present", "last_fresh",
		"last_change", "last_active", "last_peered", "last_clean",
		"last_became_active", "last_unstale", "last_scrub_stamp",
		"last_deep_scrub_stamp", "last_undegraded", "last_fullsized",
		"log_size", "ondisk_log_size", "num_bytes", "num_objects",
		"num_object_clones", "num_object_copies",
		"num_objects_missing_on_primary", "num_objects_degraded",
		"num_objects_misplaced", "num_objects_unfound",
		"num_objects_dirty", "num_whiteouts", "num_read", "num_read_kb",
		"num_write", "num_write_kb", "num_scrub_errors",
		"num_shallow_scrub_errors", "num_deep_scrub_errors",
		"num_objects_recovered", "num_bytes_recovered",
		"num_keys_recovered", "num_objects_omap",
		"num_objects_hit_set_archive", "num_bytes_hit_set_archive",
		"num_flush", "num_evict", "num_promote",
		"num_large_omap_objects", "num_objects_manifest",
		"num_omap_bytes", "num_omap_keys", "num_objects_repaired",
		"last_scrub", "last_deep_scrub" };
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause = NULL;
	const char *f;
	size_t n, at = 0;

	fill(&in, 1); /* every field not 0 */
	pg_stat_encode(&in, &b);
	for (n = 0; n + 6 < b.len; n++) {
		enc_put_be32(b.data + 2, (uint32_t)n);
		enc_reader_init(&r, b.data, b.len);
		cr_assert_eq(pg_stat_decode(&r, &out, &cause), -1);
		cr_assert_not_null(f = cut_field(cause), "cut %zu: %s", n,
		    cause);
		while (at < nitems(order) && strcmp(order[at], f) != 0)
			at++;
		cr_assert(at < nitems(order),
		    "cut %zu: field %s out of "
		    "order",
		    n, f);
		free(cause);
		cause = NULL;
	}
	cr_assert_eq(at, nitems(order) - 1);
	/* And each field was named: count the distinct names seen. */
	at = 0;
	for (n = 0; n + 6 < b.len; n++) {
		enc_put_be32(b.data + 2, (uint32_t)n);
		enc_reader_init(&r, b.data, b.len);
		cr_assert_eq(pg_stat_decode(&r, &out, &cause), -1);
		f = cut_field(cause);
		if (strcmp(order[at], f) != 0) {
			at++;
			cr_assert_str_eq(order[at], f, "cut %zu", n);
		}
		free(cause);
		cause = NULL;
	}
	cr_assert_eq(at, nitems(order) - 1);
	enc_buf_free(&b);
}

/* The same for a version 2 record: the field at each offset. */
Test(pgrec, v2_truncated_names_field)
{
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause = NULL;
	static const struct {
		size_t body;
		const char *field;
	} cuts[] = {
		{ 0, "field pool" },
		{ 3, "field pool" },
		{ 10, "field state" },
		{ 30, "field reported_seq" },
		{ 56, "field up count" },
		{ 60, "field up" },
		{ 73, "field acting count" },
		{ 80, "field acting" },
		{ 86, "field last_fresh" },
		{ 86 + 8 * 11, "field num_bytes" },
		{ 86 + 8 * 41 + 7, "field num_objects_repaired" },
		{ 422, "field last_undegraded" },
		{ 422 + 12, "field last_fullsized" },
		{ 422 + 20, "field last_scrub" },
		{ 422 + 39, "field last_deep_scrub" },
	};
	size_t i;

	fill(&in, 1); /* up 3, acting 2: body 442 + 20 = 462 bytes */
	encode_v2(&in, &b);
	cr_assert_eq(b.len, 6 + 462);
	for (i = 0; i < nitems(cuts); i++) {
		enc_put_be32(b.data + 2, (uint32_t)cuts[i].body);
		enc_reader_init(&r, b.data, b.len);
		cr_assert_eq(pg_stat_decode(&r, &out, &cause), -1);
		cr_assert_not_null(strstr(cause, cuts[i].field), "cut %zu: %s",
		    cuts[i].body, cause);
		free(cause);
		cause = NULL;
	}
	enc_buf_free(&b);
}

/* Decode cause r's record to fail, naming want. */
static void
refused(const struct enc_buf *b, const char *want)
{
	struct enc_reader r;
	struct pg_stat out;
	char *cause = NULL;

	enc_reader_init(&r, b->data, b->len);
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), -1, "want %s", want);
	cr_assert_not_null(strstr(cause, want), "want %s: %s", want, cause);
	cr_assert(r.failed);
	free(cause);
}

/*
 * The record of in, its body cut after `at' bytes and the n bytes of p put
 * there instead, the length set to match.
 */
static void
cut_and_put(struct enc_buf *b, const struct pg_stat *in, size_t at,
    const uint8_t *p, size_t n)
{
	enc_buf_reset(b);
	pg_stat_encode(in, b);
	cr_assert(6 + at <= b->len);
	b->len = 6 + at;
	enc_buf_put_bytes(b, p, n);
	enc_put_be32(b->data + 2, (uint32_t)(b->len - 6));
}

Test(pgrec, bad_length_and_counts)
{
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause = NULL;
	size_t len;

	/* Every head field one byte: up's count at body offset 12. */
	pg_stat_init(&in, (struct pg_id){ 1, 2 });
	in.up_len = 3;
	in.up[0] = 1, in.up[1] = 2, in.up[2] = 3;
	in.up_primary = 1;
	in.acting_len = 2;
	in.acting[0] = 4, in.acting[1] = 5;
	in.acting_primary = 4;
	in.num_objects = 9;
	pg_stat_encode(&in, &b);
	len = b.len;

	/* A length past the end of the buffer. */
	enc_put_be32(b.data + 2, (uint32_t)(b.len - 6 + 1));
	refused(&b, "length");
	enc_put_be32(b.data + 2, UINT32_MAX);
	refused(&b, "length");
	enc_put_be32(b.data + 2, (uint32_t)(b.len - 6));

	/* More OSDs than a set can hold. */
	cr_assert_eq(b.data[6 + 12], 3);
	b.data[6 + 12] = PLACEMENT_MAX_SIZE + 1;
	refused(&b, "field up:");
	b.data[6 + 12] = 3;
	cr_assert_eq(b.data[6 + 17], 2);
	b.data[6 + 17] = 255;
	refused(&b, "field acting:");
	b.data[6 + 17] = 2;

	/* An OSD id beyond 32 bits: zigzag 2^32 in 5 bytes. */
	cut_and_put(&b, &in, 13,
	    (const uint8_t[]){ 0x80, 0x80, 0x80, 0x80, 0x20 }, 5);
	refused(&b, "field up: OSD id 4294967296 out of range");

	/* An epoch beyond 32 bits; varints past 64 bits. */
	cut_and_put(&b, &in, 3,
	    (const uint8_t[]){ 0x80, 0x80, 0x80, 0x80, 0x10 }, 5);
	refused(&b, "field version_epoch: 4294967296 does not fit");
	cut_and_put(&b, &in, 4,
	    (const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0x02 },
	    10);
	refused(&b, "field version_v: varint longer than 64 bits");
	cut_and_put(&b, &in, 4,
	    (const uint8_t[]){ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		0x80, 0x80, 0x00 },
	    11);
	refused(&b, "field version_v: varint longer than 64 bits");

	/* Present bits past the last field (bit 44). */
	cut_and_put(&b, &in, 21,
	    (const uint8_t[]){ 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x04 }, 7);
	refused(&b, "field present: bits 0x100000000000 name no field");

	/* struct_v 0, or older than its own compat_v: invalid. */
	enc_buf_reset(&b);
	pg_stat_encode(&in, &b);
	cr_assert_eq(b.len, len);
	b.data[0] = 0;
	b.data[1] = 0;
	refused(&b, "struct_v");
	b.data[0] = 2;
	b.data[1] = 3;
	refused(&b, "struct_v");

	/* Repaired, it reads again. */
	b.data[0] = PG_STAT_STRUCT_V;
	b.data[1] = PG_STAT_COMPAT_V;
	enc_reader_init(&r, b.data, b.len);
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0);
	assert_stat_eq(&in, &out);

	/* A reader that already failed stays failed. */
	enc_reader_init(&r, b.data, b.len);
	r.failed = 1;
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), -1);
	free(cause);
	enc_buf_free(&b);
}

/* A newer writer's record: more body, same compat_v.  Read and skipped. */
Test(pgrec, newer_struct_v)
{
	static const uint8_t extra[] = { 1, 2, 3, 4, 5, 6, 7 };
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, next, out;
	char *cause = NULL;
	size_t len;

	fill(&in, 3);
	pg_stat_encode(&in, &b);
	len = b.len;
	b.data[0] = PG_STAT_STRUCT_V + 1;
	enc_buf_put_bytes(&b, extra, sizeof extra);
	enc_put_be32(b.data + 2, (uint32_t)(len - 6 + sizeof extra));
	typical(&next, 4);
	pg_stat_encode(&next, &b);

	enc_reader_init(&r, b.data, b.len);
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0, "%s", cause);
	assert_stat_eq(&in, &out);
	cr_assert_eq(r.left, b.len - len - sizeof extra);
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0, "%s", cause);
	assert_stat_eq(&next, &out);
	cr_assert_eq(r.left, 0);
	enc_buf_free(&b);
}

/*
 * The records of mapmon before version 3 (its stores, its reporters) read
 * as they were written: version 2 whole, version 1 with the fields
 * version 2 added at 0 (never scrubbed, no stamp).
 */
Test(pgrec, versions_1_and_2_read)
{
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause = NULL;
	uint32_t s;

	for (s = 0; s < 50; s++) {
		if (s % 2)
			typical(&in, s);
		else
			fill(&in, s);
		enc_buf_reset(&b);
		encode_v2(&in, &b);
		enc_reader_init(&r, b.data, b.len);
		cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0, "%s", cause);
		cr_assert_eq(r.left, 0);
		assert_stat_eq(&in, &out);
	}

	fill(&in, 5);
	enc_buf_reset(&b);
	encode_v2(&in, &b);
	b.data[0] = 1;
	b.len -= V2_BODY_FIXED - V2_BODY_FIXED_V1;
	enc_put_be32(b.data + 2, (uint32_t)(b.len - 6));
	cr_assert_eq(b.len, 6 + V2_BODY_FIXED_V1 + 4 * 5);
	enc_reader_init(&r, b.data, b.len);
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0, "%s", cause);
	cr_assert_eq(r.left, 0);
	in.last_undegraded = in.last_fullsized = 0;
	in.last_scrub_epoch = in.last_deep_scrub_epoch = 0;
	in.last_scrub_v = in.last_deep_scrub_v = 0;
	assert_stat_eq(&in, &out);
	enc_buf_free(&b);
}

/* A record only a newer reader understands is refused, not misread. */
Test(pgrec, newer_compat_v)
{
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause = NULL;

	fill(&in, 3);
	pg_stat_encode(&in, &b);
	b.data[0] = PG_STAT_STRUCT_V + 1;
	b.data[1] = PG_STAT_STRUCT_V + 1;
	enc_reader_init(&r, b.data, b.len);
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), -1);
	cr_assert_not_null(strstr(cause, "compat_v"), "%s", cause);
	cr_assert(r.failed);
	free(cause);
	enc_buf_free(&b);
}

Test(pgrec, concatenated)
{
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause = NULL;
	uint32_t s;

	for (s = 0; s < 100; s++) {
		if (s % 2)
			typical(&in, s);
		else
			fill(&in, s);
		pg_stat_encode(&in, &b);
	}
	enc_reader_init(&r, b.data, b.len);
	for (s = 0; s < 100; s++) {
		cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0, "%u: %s", s,
		    cause);
		if (s % 2)
			typical(&in, s);
		else
			fill(&in, s);
		assert_stat_eq(&in, &out);
	}
	cr_assert_eq(r.left, 0);
	/* Past the last one: a clean failure. */
	cr_assert_eq(pg_stat_decode(&r, &out, &cause), -1);
	cr_assert_not_null(strstr(cause, "header truncated"), "%s", cause);
	free(cause);
	enc_buf_free(&b);
}

/*
 * Cold start decodes every record: 221,568 of them.  The figure goes to
 * stderr; the test checks each came back right.
 */
Test(pgrec, decode_speed)
{
	struct enc_buf b = { 0 };
	struct enc_reader r;
	struct pg_stat in, out;
	char *cause = NULL;
	uint32_t s, n = 221568;
	uint64_t objects = 0;
	double t0, t;

	for (s = 0; s < n; s++) {
		typical(&in, s);
		in.num_objects = s;
		pg_stat_encode(&in, &b);
	}
	t0 = now_ns();
	enc_reader_init(&r, b.data, b.len);
	for (s = 0; s < n; s++) {
		cr_assert_eq(pg_stat_decode(&r, &out, &cause), 0);
		cr_assert_eq(out.pgid.seed, s);
		objects += (uint64_t)out.num_objects;
	}
	t = now_ns() - t0;
	cr_assert_eq(r.left, 0);
	cr_assert_eq(objects, (uint64_t)n * (n - 1) / 2);
	fprintf(stderr, "pg_stat: decoded %u records (%zu bytes) in %.1f ms, "
	    "%.1f ns/record\n", n, b.len, t / 1e6, t / n);
	enc_buf_free(&b);
}

/* JSON. */

Test(pgjson, round_trip)
{
	struct pg_stat in, out;
	char *cause = NULL;
	json_t *j;
	uint32_t s;

	for (s = 0; s < 4; s++) {
		if (s % 2)
			typical(&in, s);
		else
			fill(&in, s);
		if (s == 2) {
			/* The JSON range: unsigned up to INT64_MAX. */
			in.reported_seq = INT64_MAX;
			in.version_v = UINT64_MAX;
			in.last_fresh = 253402300799999999LL; /* 9999-12-31 */
			in.last_change = 0;
		}
		j = pg_stat_to_json(&in);
		cr_assert_eq(pg_stat_from_json(j, &out, &cause), 0, "%s",
		    cause);
		assert_stat_eq(&in, &out);
		json_decref(j);
	}
}

/* The shape of Ceph's `pg dump -f json` entries. */
Test(pgjson, shape)
{
	struct pg_stat st;
	json_t *j, *sum, *up;

	typical(&st, 0x3f);
	st.state |= PG_STATE_SCRUBBING;
	j = pg_stat_to_json(&st);
	cr_assert_str_eq(json_string_value(json_object_get(j, "pgid")), "1.3f");
	cr_assert_str_eq(json_string_value(json_object_get(j, "state")),
	    "active+clean+scrubbing");
	cr_assert_str_eq(json_string_value(json_object_get(j, "version")),
	    "812'40211");
	cr_assert_eq(json_integer_value(json_object_get(j, "reported_seq")),
	    93112);
	cr_assert_eq(json_integer_value(json_object_get(j, "reported_epoch")),
	    820);
	cr_assert_str_eq(json_string_value(json_object_get(j, "last_fresh")),
	    "2026-11-30T19:45:01.123456+0000");
	cr_assert_str_eq(json_string_value(json_object_get(j,
	    "last_scrub_stamp")), "2026-11-29T19:45:01.123456+0000");
	cr_assert_eq(json_integer_value(json_object_get(j, "log_size")), 3000);
	cr_assert_eq(json_integer_value(json_object_get(j, "up_primary")),
	    0x3f);
	up = json_object_get(j, "up");
	cr_assert(json_is_array(up));
	cr_assert_eq(json_array_size(up), 3);
	cr_assert_eq(json_integer_value(json_array_get(up, 2)), 0x41);
	cr_assert_eq(json_array_size(json_object_get(j, "acting")), 3);
	sum = json_object_get(j, "stat_sum");
	cr_assert(json_is_object(sum));
	cr_assert_eq(json_object_size(sum), 31);
	cr_assert_eq(json_integer_value(json_object_get(sum, "num_objects")),
	    900);
	cr_assert_eq(json_integer_value(json_object_get(sum,
	    "num_object_copies")), 2700);
	/* Counters live under stat_sum only, as in Ceph. */
	cr_assert_null(json_object_get(j, "num_objects"));
	/* The scrubs' versions as Ceph's eversions, apart from the stamps. */
	cr_assert_str_eq(json_string_value(json_object_get(j, "last_scrub")),
	    "790'39000");
	cr_assert_str_eq(
	    json_string_value(json_object_get(j, "last_deep_scrub")),
	    "640'31000");
	cr_assert_str_eq(
	    json_string_value(json_object_get(j, "last_undegraded")),
	    "2026-11-30T19:45:01.123456+0000");
	/* 30 top-level keys: every other field. */
	cr_assert_eq(json_object_size(j), 30);
	json_decref(j);
}

/* A report may hold only what changed: pgid and state are enough. */
Test(pgjson, minimal_and_defaults)
{
	struct pg_stat st;
	char *cause = NULL;
	json_t *j;

	j = json_pack("{s:s, s:s}", "pgid", "2.a", "state", "clean+active");
	cr_assert_eq(pg_stat_from_json(j, &st, &cause), 0, "%s", cause);
	cr_assert_eq(st.pgid.pool, 2);
	cr_assert_eq(st.pgid.seed, 10);
	cr_assert_eq(st.state, PG_STATE_ACTIVE | PG_STATE_CLEAN);
	cr_assert_eq(st.up_len, 0);
	cr_assert_eq(st.up_primary, -1);
	cr_assert_eq(st.acting_primary, -1);
	cr_assert_eq(st.num_objects, 0);
	cr_assert_eq(st.last_fresh, 0);
	json_decref(j);

	/* Primaries default to the first of their sets; unknown keys pass. */
	j = json_pack("{s:s, s:s, s:[i,i], s:[i], s:{s:I}, s:b}", "pgid", "2.b",
	    "state", "active", "up", 4, 5, "acting", 6, "stat_sum",
	    "num_bytes", (json_int_t)77, "some_future_field", 1);
	cr_assert_eq(pg_stat_from_json(j, &st, &cause), 0, "%s", cause);
	cr_assert_eq(st.up_len, 2);
	cr_assert_eq(st.up_primary, 4);
	cr_assert_eq(st.acting_primary, 6);
	cr_assert_eq(st.num_bytes, 77);
	json_decref(j);

	j = json_pack("{s:s}", "state", "active");
	cr_assert_eq(pg_stat_from_json(j, &st, &cause), -1);
	cr_assert_not_null(strstr(cause, "'pgid' is missing"), "%s", cause);
	free(cause);
	json_decref(j);
	j = json_pack("{s:s}", "pgid", "1.0");
	cr_assert_eq(pg_stat_from_json(j, &st, &cause), -1);
	cr_assert_not_null(strstr(cause, "'state' is missing"), "%s", cause);
	free(cause);
	json_decref(j);
	j = json_pack("[]");
	cr_assert_eq(pg_stat_from_json(j, &st, &cause), -1);
	cr_assert_not_null(cause);
	free(cause);
	json_decref(j);
}

/* Each wrong value is refused, and the cause names its field. */
Test(pgjson, wrong_types)
{
	static const struct {
		const char *key, *value, *field;
	} bad[] = {
		{ "pgid", "13", "'pgid'" },
		{ "pgid", "\"1.zz\"", "'pgid'" },
		{ "state", "[\"active\"]", "'state'" },
		{ "state", "\"active+bogus\"", "'bogus'" },
		{ "version", "12", "'version'" },
		{ "version", "\"12-3\"", "'version'" },
		{ "version", "\"12'\"", "'version'" },
		{ "version", "\"4294967296'1\"", "'version'" },
		{ "version", "\"1'18446744073709551616\"", "'version'" },
		{ "version", "\"1'2x\"", "'version'" },
		{ "reported_seq", "\"5\"", "'reported_seq'" },
		{ "reported_seq", "-1", "'reported_seq'" },
		{ "reported_epoch", "1.5", "'reported_epoch'" },
		{ "reported_epoch", "4294967296", "'reported_epoch'" },
		{ "mapping_epoch", "-1", "'mapping_epoch'" },
		{ "created", "null", "'created'" },
		{ "last_epoch_clean", "true", "'last_epoch_clean'" },
		{ "parent_split_bits", "\"x\"", "'parent_split_bits'" },
		{ "snaptrimq_len", "{}", "'snaptrimq_len'" },
		{ "last_fresh", "12", "'last_fresh'" },
		{ "last_clean", "\"yesterday\"", "'last_clean'" },
		{ "last_deep_scrub_stamp", "\"2026-13-01T00:00:00.0+0000\"",
		    "'last_deep_scrub_stamp'" },
		{ "log_size", "\"3\"", "'log_size'" },
		{ "ondisk_log_size", "2.0", "'ondisk_log_size'" },
		{ "stat_sum", "[]", "'stat_sum'" },
		{ "stat_sum", "{\"num_bytes\": \"1\"}", "'stat_sum.num_bytes'" },
		{ "stat_sum", "{\"num_objects_repaired\": 0.5}",
		    "'stat_sum.num_objects_repaired'" },
		{ "up", "3", "'up'" },
		{ "up", "[1, \"2\"]", "'up'" },
		{ "up", "[1, 4294967296]", "'up'" },
		{ "up", "[0,1,2,3,4,5,6,7,8,9,10]", "'up'" },
		{ "acting", "{}", "'acting'" },
		{ "up_primary", "\"0\"", "'up_primary'" },
		{ "acting_primary", "2147483648", "'acting_primary'" },
	};
	struct pg_stat st;
	json_error_t err;
	char *cause;
	json_t *j, *v;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		j = json_pack("{s:s, s:s}", "pgid", "1.3f", "state", "active");
		v = json_loads(bad[i].value, JSON_DECODE_ANY, &err);
		cr_assert_not_null(v, "%s: %s", bad[i].value, err.text);
		json_object_set_new(j, bad[i].key, v);
		cause = NULL;
		cr_assert_eq(pg_stat_from_json(j, &st, &cause), -1, "%s = %s",
		    bad[i].key, bad[i].value);
		cr_assert_not_null(cause);
		cr_assert_not_null(strstr(cause, bad[i].field), "%s = %s: %s",
		    bad[i].key, bad[i].value, cause);
		free(cause);
		json_decref(j);
	}
}

/*
 * Stamps print like Ceph's utime_t and read back; 0 (never) prints as
 * Ceph prints it, "0.000000", not as a date in 1970.
 */
Test(pgjson, stamps)
{
	struct pg_stat st, out;
	char *cause = NULL;
	json_t *j;

	pg_stat_init(&st, (struct pg_id){ 1, 0 });
	st.last_change = 1796067901123456LL;
	st.last_active = 1796067901000001LL;
	st.last_clean = 0;
	j = pg_stat_to_json(&st);
	cr_assert_str_eq(json_string_value(json_object_get(j, "last_change")),
	    "2026-11-30T19:45:01.123456+0000");
	cr_assert_str_eq(json_string_value(json_object_get(j, "last_active")),
	    "2026-11-30T19:45:01.000001+0000");
	cr_assert_str_eq(json_string_value(json_object_get(j, "last_clean")),
	    "0.000000");
	cr_assert_str_eq(
	    json_string_value(json_object_get(j, "last_fullsized")),
	    "0.000000");
	out.last_clean = 5;
	cr_assert_eq(pg_stat_from_json(j, &out, &cause), 0, "%s", cause);
	cr_assert_eq(out.last_change, st.last_change);
	cr_assert_eq(out.last_active, st.last_active);
	cr_assert_eq(out.last_clean, 0);
	json_decref(j);

	/* The seconds form reads back; not past ten years, nor loosely. */
	{
		int64_t us = -1;
		char buf[STAMP_BUFSIZE];

		cr_assert_eq(stamp_parse("12.000500", &us), 0);
		cr_assert_eq(us, 12000500);
		cr_assert_str_eq(stamp_format(12000500, buf, sizeof buf),
		    "12.000500");
		cr_assert_eq(stamp_parse("315360000.000000", &us), -1);
		cr_assert_eq(stamp_parse("1.5", &us), -1);
		cr_assert_eq(stamp_parse("-1.000000", &us), -1);
		cr_assert_eq(stamp_parse("0.000000x", &us), -1);
	}

	/* "Z" is read as well, and fewer digits of fraction. */
	j = json_pack("{s:s, s:s, s:s}", "pgid", "1.0", "state", "active",
	    "last_change", "2026-11-30T19:45:01.5Z");
	cr_assert_eq(pg_stat_from_json(j, &out, &cause), 0, "%s", cause);
	cr_assert_eq(out.last_change, 1796067901500000LL);
	json_decref(j);
}

/* The text form: byte for byte what jansson writes of pg_stat_to_json(). */
static void
assert_text_is_json(struct pg_text *t, const struct pg_stat *st)
{
	json_t *j = pg_stat_to_json(st);
	char *want = json_dumps(j, JSON_COMPACT);

	enc_buf_reset(&t->buf);
	pg_text_stat(t, st);
	cr_assert_eq(t->buf.len, strlen(want), "length %zu, jansson %zu:\n"
	    "%.*s\n%s", t->buf.len, strlen(want), (int)t->buf.len,
	    (const char *)t->buf.data, want);
	cr_assert(memcmp(t->buf.data, want, t->buf.len) == 0,
	    "text differs:\n%.*s\n%s", (int)t->buf.len,
	    (const char *)t->buf.data, want);
	free(want);
	json_decref(j);
}

/* A reproducible 64-bit stream (splitmix64). */
static uint64_t
text_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

Test(pgtext, same_as_jansson)
{
	static const int64_t stamps[] = { 0, 1, -1, 999999, 1000000, -1000000,
	    -1000001, 1796067901123456LL, 253402300799999999LL,
	    253402300800000000LL, INT64_MAX, INT64_MIN, INT64_MIN + 1,
	    -62135596800000000LL, -62135596800000001LL };
	struct pg_text t;
	struct pg_stat st;
	uint64_t seed = 42;
	uint32_t s;
	size_t i, k;

	pg_text_init(&t);
	fill(&st, 0xffffffffU);
	st.pgid.pool = UINT32_MAX;
	assert_text_is_json(&t, &st);
	typical(&st, 0x3f);
	assert_text_is_json(&t, &st);
	/* Every stamp at an edge, in every stamp field. */
	for (i = 0; i < nitems(stamps); i++) {
		typical(&st, (uint32_t)i);
		st.last_fresh = st.last_change = st.last_active = stamps[i];
		st.last_peered = st.last_clean = stamps[i];
		st.last_became_active = st.last_unstale = stamps[i];
		st.last_scrub_stamp = st.last_undegraded = stamps[i];
		st.last_deep_scrub_stamp = stamps[nitems(stamps) - 1 - i];
		st.last_fullsized = stamps[nitems(stamps) - 1 - i];
		assert_text_is_json(&t, &st);
	}
	/* Random values everywhere, and every state bit alone and mixed. */
	for (s = 0; s < 3000; s++) {
		typical(&st, s);
		st.state = s < PG_STATE_NBITS ? 1U << s :
		    (uint32_t)text_rand(&seed);
		st.version_epoch = (uint32_t)text_rand(&seed);
		st.version_v = text_rand(&seed);
		st.last_scrub_epoch = (uint32_t)text_rand(&seed);
		st.last_deep_scrub_v = text_rand(&seed);
		st.reported_seq = text_rand(&seed) >> (s % 64);
		st.reported_epoch = (uint32_t)text_rand(&seed);
		st.snaptrimq_len = (uint32_t)text_rand(&seed);
		st.up_len = (uint8_t)(text_rand(&seed) % (PLACEMENT_MAX_SIZE + 1));
		st.acting_len = (uint8_t)(s % (PLACEMENT_MAX_SIZE + 1));
		for (k = 0; k < PLACEMENT_MAX_SIZE; k++) {
			st.up[k] = (int32_t)text_rand(&seed);
			st.acting[k] = (int32_t)(text_rand(&seed) % 512) - 1;
		}
		st.up_primary = (int32_t)text_rand(&seed);
		st.num_bytes = (int64_t)text_rand(&seed);
		st.num_objects_degraded = -(int64_t)(text_rand(&seed) >> 1);
		/* Stamps sometimes in one second, sometimes anywhere. */
		st.last_fresh = (int64_t)(text_rand(&seed) >> (s % 3 ? 10 : 0));
		st.last_clean = st.last_fresh - (int64_t)(text_rand(&seed) %
		    2000000);
		assert_text_is_json(&t, &st);
	}
	pg_text_free(&t);
}

/* The brief form: Ceph's dump_brief keys, the values of the full form. */
Test(pgtext, brief)
{
	struct pg_text t;
	struct pg_stat st;
	json_t *b, *full;
	json_error_t err;
	const char *key;
	json_t *v;

	pg_text_init(&t);
	typical(&st, 0x3f);
	st.acting_len = 2;
	st.acting_primary = -1;
	pg_text_brief(&t, &st);
	b = json_loadb((const char *)t.buf.data, t.buf.len, 0, &err);
	cr_assert_not_null(b, "%s", err.text);
	cr_assert_eq(json_object_size(b), 6);
	full = pg_stat_to_json(&st);
	json_object_foreach(b, key, v)
		cr_assert(json_equal(v, json_object_get(full, key)), "%s", key);
	cr_assert_str_eq(json_string_value(json_object_get(b, "pgid")), "1.3f");
	json_decref(b);
	json_decref(full);
	pg_text_free(&t);
}

/* Appends one after another; the text of each is whole and parses. */
Test(pgtext, appends_and_parses_back)
{
	struct pg_text t;
	struct pg_stat in, out;
	json_t *a;
	json_error_t err;
	char *cause = NULL;
	uint32_t s;

	pg_text_init(&t);
	enc_buf_put_u8(&t.buf, '[');
	for (s = 0; s < 100; s++) {
		if (s > 0)
			enc_buf_put_u8(&t.buf, ',');
		typical(&in, s);
		pg_text_stat(&t, &in);
	}
	enc_buf_put_u8(&t.buf, ']');
	a = json_loadb((const char *)t.buf.data, t.buf.len, 0, &err);
	cr_assert_not_null(a, "%s", err.text);
	cr_assert_eq(json_array_size(a), 100);
	for (s = 0; s < 100; s++) {
		typical(&in, s);
		cr_assert_eq(pg_stat_from_json(json_array_get(a, s), &out,
		    &cause), 0, "%s", cause);
		assert_stat_eq(&in, &out);
	}
	json_decref(a);
	pg_text_free(&t);
}

/* Not a bound (timings belong to mapmon-bench): the figure, for the log. */
Test(pgtext, speed_against_jansson)
{
	struct pg_text t;
	struct pg_stat st;
	uint32_t s, n = 20000;
	double t0, text_ns, jansson_ns;
	json_t *j;
	char *d;
	size_t total = 0, text_total = 0;

	/* A commit's worth at a time, into the same buffer, as the monitor. */
	pg_text_init(&t);
	t0 = now_ns();
	for (s = 0; s < n; s++) {
		if (s % 1000 == 0) {
			text_total += t.buf.len;
			enc_buf_reset(&t.buf);
		}
		typical(&st, s);
		st.num_objects = s;
		pg_text_stat(&t, &st);
	}
	text_total += t.buf.len;
	text_ns = now_ns() - t0;
	t0 = now_ns();
	for (s = 0; s < n; s++) {
		typical(&st, s);
		st.num_objects = s;
		j = pg_stat_to_json(&st);
		d = json_dumps(j, JSON_COMPACT);
		total += strlen(d);
		free(d);
		json_decref(j);
	}
	jansson_ns = now_ns() - t0;
	cr_assert_eq(total, text_total);
	fprintf(stderr, "pg_text: %u PGs, %zu bytes: %.0f ns/PG; jansson "
	    "object + dump: %.0f ns/PG\n", n, text_total, text_ns / n,
	    jansson_ns / n);
	pg_text_free(&t);
}

/*
 * Ceph's object hash (ceph_str_hash_rjenkins), with the raw seeds a
 * reference Ceph 16.2.15 gave in `osd map POOL OBJECT` (the names cover
 * every tail length of the 12-byte blocks, and none).
 */
Test(pg, object_names_hash_as_cephs_rjenkins)
{
	static const struct {
		const char *name;
		uint32_t seed;
	} v[] = {
		{ "a", 0x29eec818 },
		{ "ab", 0x9879ac41 },
		{ "foo", 0x7fc1f406 },
		{ "x y", 0xea7bc23e },
		{ "myobject", 0x5da41c62 },
		{ "abcdefghijk", 0xe52b8e4c },
		{ "abcdefghijkl", 0x0b1b3ea5 },
		{ "abcdefghijklm", 0x3122b031 },
		{ "rbd_data.1234", 0x624f9e4c },
		{ "rbd_header.10ab", 0xfc4607d9 },
		{ "abcdefghijklmnopqrstuvwx", 0xd6638b78 },
		{ "abcdefghijklmnopqrstuvwxy", 0x720b6730 },
		{ "object_with_a_longer_name_0001", 0xe07fcb3f },
	};
	size_t i;

	for (i = 0; i < sizeof v / sizeof v[0]; i++)
		cr_assert_eq(pg_str_hash_rjenkins(v[i].name, strlen(v[i].name)),
		    v[i].seed, "%s", v[i].name);
	/* Then folded by pg_num as Ceph's raw_pg_to_pg(): 1.2 of 8. */
	cr_assert_eq(pg_seed_fold(0x5da41c62, 8), 2);
	cr_assert_eq(pg_seed_fold(0x7fc1f406, 8), 6);
}
