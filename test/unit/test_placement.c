/* test_placement.c: the straw2 placement function (mapmon-protocol(7)). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "common/mapmon.h"
#include "map/placement.h"

/* n OSDs 0..n-1, all eligible, at weight16 w. */
static struct placement *
equal_osds(size_t n, uint32_t w)
{
	struct placement_osd *o = xcalloc(n, sizeof *o);
	struct placement *pl;
	size_t i;

	for (i = 0; i < n; i++) {
		o[i].id = (int32_t)i;
		o[i].eligible = 1;
		o[i].weight16 = w;
	}
	pl = placement_new(o, n);
	free(o);
	return pl;
}

static int
contains(const int32_t *set, int n, int32_t id)
{
	int i;

	for (i = 0; i < n; i++) {
		if (set[i] == id)
			return 1;
	}
	return 0;
}

/* No OSD twice in a set. */
static void
assert_distinct(const int32_t *set, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++)
			cr_assert_neq(set[i], set[j], "osd.%d twice in a set",
			    set[i]);
	}
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * Computed once, and checked against an independent rendering (in Python)
 * of the description in mapmon-protocol(7).
 */
#define GOLD_EQ_1_0 10, 4, 12
#define GOLD_EQ_1_3F 14, 6, 12
#define GOLD_EQ_2_1234 11, 4, 2
#define GOLD_EQ_MAX 12, 13, 3
#define GOLD_UN_1_0 10, 12, 11
#define GOLD_UN_1_3F 14, 12, 6
#define GOLD_UN_7_ABC 15, 6, 13
#define GOLD_HASH_1_0_0 0xbff505763b60ad4eULL
#define GOLD_HASH_1_3F_5 0x58f83462a2416e35ULL
#define GOLD_HASH_MAX 0x7e686eac24cdbae2ULL
#define GOLD_LN_3E9 (-1541170474LL)
#define GOLD_DRAW_1 (-4539279369LL)
#define GOLD_DRAW_2_5 (-1815711747LL)

/*
 * Pinned values: a change to the hash, the table, the draw or the order
 * changes the cluster's placement, and clients computing it would
 * disagree with the monitor.  Such a change must be deliberate (and
 * documented in mapmon-protocol(7)); then update these.
 */
Test(placement, golden)
{
	static const struct {
		uint32_t pool, seed;
		int32_t up[3];
	} eq[] = {
		{ 1, 0x0, { GOLD_EQ_1_0 } },
		{ 1, 0x3f, { GOLD_EQ_1_3F } },
		{ 2, 0x1234, { GOLD_EQ_2_1234 } },
		{ 4294967295U, 4294967295U, { GOLD_EQ_MAX } },
	};
	static const struct {
		uint32_t pool, seed;
		int32_t up[3];
	} uneq[] = {
		{ 1, 0x0, { GOLD_UN_1_0 } },
		{ 1, 0x3f, { GOLD_UN_1_3F } },
		{ 7, 0xabc, { GOLD_UN_7_ABC } },
	};
	struct placement_osd o[16];
	struct placement *pl;
	int32_t up[3];
	size_t i;

	cr_assert_eq(placement_hash(1, 0, 0), GOLD_HASH_1_0_0);
	cr_assert_eq(placement_hash(1, 0x3f, 5), GOLD_HASH_1_3F_5);
	cr_assert_eq(placement_hash(4294967295U, 4294967295U, 65535),
	    GOLD_HASH_MAX);
	cr_assert_eq(placement_u(1, 0x3f, 5), (GOLD_HASH_1_3F_5 >> 32) + 1);
	cr_assert_eq(placement_ln(1), -32 * PLACEMENT_LN2_Q32);
	cr_assert_eq(placement_ln(1ULL << 32), 0);
	cr_assert_eq(placement_ln(3000000000ULL), GOLD_LN_3E9);
	cr_assert_eq(placement_draw(1, 0x3f, 5, 0x10000), GOLD_DRAW_1);
	cr_assert_eq(placement_draw(1, 0x3f, 5, 0x28000), GOLD_DRAW_2_5);

	pl = equal_osds(16, 0x10000);
	for (i = 0; i < nitems(eq); i++) {
		cr_assert_eq(placement_map_pg(pl, eq[i].pool, eq[i].seed, 3,
		    up), 3);
		cr_assert_arr_eq(up, eq[i].up, sizeof up, "%u.%x moved",
		    eq[i].pool, eq[i].seed);
	}
	placement_free(pl);

	/* Weights 1 to 16 (ids 0..15): the general path. */
	for (i = 0; i < 16; i++) {
		o[i].id = (int32_t)i;
		o[i].eligible = 1;
		o[i].weight16 = (uint32_t)(i + 1) * 0x10000;
	}
	pl = placement_new(o, 16);
	cr_assert_not(placement_equal_weights(pl));
	for (i = 0; i < nitems(uneq); i++) {
		cr_assert_eq(placement_map_pg(pl, uneq[i].pool, uneq[i].seed,
		    3, up), 3);
		cr_assert_arr_eq(up, uneq[i].up, sizeof up, "%u.%x moved",
		    uneq[i].pool, uneq[i].seed);
	}
	placement_free(pl);
}

/* Same input, same sets: also whatever order the OSDs are listed in. */
Test(placement, deterministic)
{
	struct placement_osd o[40], r[40];
	struct placement *a, *b;
	int32_t ua[5], ub[5];
	uint32_t s;
	int i, na, nb;

	for (i = 0; i < 40; i++) {
		o[i].id = i * 3;
		o[i].eligible = 1;
		o[i].weight16 = (uint32_t)(0x8000 + 0x1000 * (i % 7));
		r[39 - i] = o[i];
	}
	a = placement_new(o, 40);
	b = placement_new(r, 40);
	cr_assert_eq(placement_eligible(a), 40);
	for (s = 0; s < 5000; s++) {
		na = placement_map_pg(a, 3, s, 5, ua);
		nb = placement_map_pg(b, 3, s, 5, ub);
		cr_assert_eq(na, 5);
		cr_assert_eq(nb, 5);
		cr_assert_arr_eq(ua, ub, sizeof ua);
		assert_distinct(ua, na);
		na = placement_map_pg(a, 3, s, 5, ub);
		cr_assert_arr_eq(ua, ub, sizeof ua);
	}
	placement_free(a);
	placement_free(b);
}

/*
 * The definition, done the slow and obvious way: every eligible OSD's
 * (draw, u, id) from the public functions, fully sorted.
 */
struct ref {
	int64_t draw;
	uint64_t u;
	int32_t id;
};

static int
ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->draw != y->draw)
		return x->draw > y->draw ? -1 : 1;
	if (x->u != y->u)
		return x->u > y->u ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Weights as a map may hold them, then at the extremes of 16.16, where the
 * general path's floating-point pre-filter is closest to its bounds.
 */
static uint32_t
ref_weight(int map, int i)
{
	static const uint32_t extreme[] = { 1, 2, 3, 0xffff, 0x10000,
	    0x10001, 0x7fffffff, 0xfffffffe, UINT32_MAX };

	if (map == 0)
		return (uint32_t)(i % 5) * 0x6000 + 0x2000;
	return extreme[i % nitems(extreme)];
}

static void
check_definition(int map)
{
	struct placement_osd o[50];
	struct ref ref[50];
	struct placement *pl;
	int32_t up[PLACEMENT_MAX_SIZE];
	uint32_t s;
	int i, k, n;

	for (i = 0; i < 50; i++) {
		o[i].id = 100 - 2 * i;	/* ids not in list order */
		o[i].eligible = i % 9 != 4;
		o[i].weight16 = ref_weight(map, i);
	}
	pl = placement_new(o, 50);
	for (s = 0; s < 3000; s++) {
		for (i = 0, k = 0; i < 50; i++) {
			if (!o[i].eligible)
				continue;
			ref[k].draw = placement_draw(9, s, o[i].id,
			    o[i].weight16);
			ref[k].u = placement_u(9, s, o[i].id);
			ref[k].id = o[i].id;
			cr_assert_leq(ref[k].draw, 0);
			cr_assert(ref[k].u >= 1 && ref[k].u <= (1ULL << 32));
			k++;
		}
		qsort(ref, (size_t)k, sizeof *ref, ref_cmp);
		n = placement_map_pg(pl, 9, s, 7, up);
		cr_assert_eq(n, 7);
		for (i = 0; i < n; i++)
			cr_assert_eq(up[i], ref[i].id, "map %d, 9.%x position "
			    "%d", map, s, i);
	}
	placement_free(pl);
}

Test(placement, matches_definition)
{
	check_definition(0);
	check_definition(1);
}

/* 100,000 PGs over 64 equal OSDs: every OSD within 10% of the mean. */
Test(placement, balance)
{
	struct placement *pl = equal_osds(64, 0x10000);
	uint32_t count[64] = { 0 }, s;
	int32_t up[3];
	double mean = 100000.0 * 3 / 64;
	int i, n;

	for (s = 0; s < 100000; s++) {
		n = placement_map_pg(pl, 1, s, 3, up);
		cr_assert_eq(n, 3);
		assert_distinct(up, n);
		for (i = 0; i < n; i++) {
			cr_assert(up[i] >= 0 && up[i] < 64);
			count[up[i]]++;
		}
	}
	/*
	 * Each count is binomial, sd = sqrt(300000 / 64 * 63 / 64) = 68, so
	 * 10% (469) is 6.9 sd: a failure means a biased hash, not bad luck.
	 */
	for (i = 0; i < 64; i++)
		cr_assert(fabs(count[i] - mean) <= 0.1 * mean,
		    "osd.%d holds %u PGs, mean %.1f", i, count[i], mean);
	placement_free(pl);
}

/* Removing an OSD moves only the PGs that had it. */
Test(placement, remove_one)
{
	struct placement *all = equal_osds(64, 0x10000);
	struct placement_osd o[64];
	struct placement *less;
	int32_t a[3], b[3];
	uint32_t s, had = 0;
	int i, j, na, nb;

	for (i = 0; i < 64; i++) {
		o[i].id = i;
		o[i].eligible = i != 17;	/* osd.17 goes down */
		o[i].weight16 = 0x10000;
	}
	less = placement_new(o, 64);
	for (s = 0; s < 100000; s++) {
		na = placement_map_pg(all, 2, s, 3, a);
		nb = placement_map_pg(less, 2, s, 3, b);
		cr_assert_eq(na, 3);
		cr_assert_eq(nb, 3);
		cr_assert_not(contains(b, nb, 17));
		if (!contains(a, na, 17)) {
			cr_assert_arr_eq(a, b, sizeof a, "2.%x moved", s);
			continue;
		}
		had++;
		/* The others keep their order; the next best comes last. */
		for (i = 0, j = 0; i < na; i++) {
			if (a[i] != 17)
				cr_assert_eq(b[j++], a[i], "2.%x reordered", s);
		}
		cr_assert_eq(j, 2);
		cr_assert_not(contains(a, na, b[2]));
	}
	/* 3/64 of the PGs held osd.17 (sd 66). */
	cr_assert(had > 4300 && had < 5100, "%u PGs held osd.17", had);
	placement_free(all);
	placement_free(less);
}

/* Adding an OSD to 64 moves about 1/65 of the placements, all to it. */
Test(placement, add_one)
{
	struct placement *before = equal_osds(64, 0x10000);
	struct placement *after = equal_osds(65, 0x10000);
	int32_t a[3], b[3];
	uint32_t s, moved = 0, total = 0;
	double frac;
	int i, j, nb;

	for (s = 0; s < 100000; s++) {
		placement_map_pg(before, 5, s, 3, a);
		nb = placement_map_pg(after, 5, s, 3, b);
		cr_assert_eq(nb, 3);
		total += 3;
		if (!contains(b, nb, 64)) {
			cr_assert_arr_eq(a, b, sizeof a, "5.%x moved", s);
			continue;
		}
		/* osd.64 displaced the old last; the rest keep their order. */
		moved++;
		for (i = 0, j = 0; i < nb; i++) {
			if (b[i] != 64)
				cr_assert_eq(b[i], a[j++], "5.%x reordered", s);
		}
		cr_assert_eq(j, 2);
	}
	/*
	 * Exactly one placement moves per PG that gains osd.64: expected
	 * 100000 * 3/65 = 4615 of 300000 (1/65), sd 66.  10% either way is
	 * 7 sd: outside it the new OSD takes the wrong share.
	 */
	frac = (double)moved / total;
	cr_assert(fabs(frac - 1.0 / 65) <= 0.1 / 65,
	    "%u of %u placements moved (%.5f, expected %.5f)", moved, total,
	    frac, 1.0 / 65);
	placement_free(before);
	placement_free(after);
}

/* An OSD of weight 2 gets about twice the PGs of one of weight 1. */
Test(placement, weights)
{
	struct placement_osd o[64];
	struct placement *pl;
	uint32_t count[64] = { 0 }, s;
	int32_t up[3];
	double heavy = 0, light = 0, ratio;
	int i, n;

	for (i = 0; i < 64; i++) {
		o[i].id = i;
		o[i].eligible = 1;
		o[i].weight16 = i % 8 == 0 ? 0x20000 : 0x10000;
	}
	pl = placement_new(o, 64);
	cr_assert_not(placement_equal_weights(pl));
	for (s = 0; s < 200000; s++) {
		n = placement_map_pg(pl, 3, s, 3, up);
		cr_assert_eq(n, 3);
		for (i = 0; i < n; i++)
			count[up[i]]++;
	}
	for (i = 0; i < 64; i++) {
		if (i % 8 == 0)
			heavy += count[i] / 8.0;
		else
			light += count[i] / 56.0;
	}
	/*
	 * Straw2 gives the first choice in proportion to weight (2/72 vs
	 * 1/72); the later choices, without replacement, pull the ratio a
	 * little under 2 (1.96 for this map).  Sampling error on the ratio
	 * is under 1%.
	 */
	ratio = heavy / light;
	cr_assert(ratio > 1.90 && ratio < 2.02, "weight 2 vs 1: ratio %.3f",
	    ratio);

	/* First choices alone follow the weights exactly in expectation. */
	memset(count, 0, sizeof count);
	for (s = 0; s < 200000; s++) {
		placement_map_pg(pl, 4, s, 1, up);
		count[up[0]]++;
	}
	for (i = 0, heavy = light = 0; i < 64; i++) {
		if (i % 8 == 0)
			heavy += count[i] / 8.0;
		else
			light += count[i] / 56.0;
	}
	ratio = heavy / light;
	cr_assert(ratio > 1.92 && ratio < 2.08, "primaries: ratio %.3f", ratio);
	placement_free(pl);
}

/* Not eligible, weight 0, reweight 0, a negative id: never chosen. */
Test(placement, never_chosen)
{
	struct placement_osd o[20];
	struct placement *pl;
	int32_t up[10];
	uint32_t s;
	int i, n;

	for (i = 0; i < 20; i++) {
		o[i].id = i;
		o[i].eligible = 1;
		o[i].weight16 = 0x10000;
	}
	o[3].eligible = 0;			/* down or out */
	o[5].weight16 = 0;			/* crush weight 0 */
	o[7].weight16 = placement_weight16(1.0, 0.0); /* reweight 0 */
	o[9].id = -1;				/* no such OSD */
	pl = placement_new(o, 20);
	cr_assert_eq(placement_eligible(pl), 16);
	for (s = 0; s < 20000; s++) {
		n = placement_map_pg(pl, 1, s, 10, up);
		cr_assert_eq(n, 10);
		cr_assert_not(contains(up, n, 3));
		cr_assert_not(contains(up, n, 5));
		cr_assert_not(contains(up, n, 7));
		cr_assert_not(contains(up, n, -1));
		cr_assert_not(contains(up, n, 9));
	}
	placement_free(pl);
}

/* Fewer eligible OSDs than size: a short set of all of them. */
Test(placement, short_sets)
{
	struct placement_osd o[3] = {
		{ .id = 4, .eligible = 1, .weight16 = 0x10000 },
		{ .id = 8, .eligible = 0, .weight16 = 0x10000 },
		{ .id = 6, .eligible = 1, .weight16 = 0x20000 },
	};
	struct placement *pl = placement_new(o, 3), *none, *twelve;
	int32_t up[PLACEMENT_MAX_SIZE];
	uint32_t s;
	int n;

	for (s = 0; s < 1000; s++) {
		n = placement_map_pg(pl, 1, s, 3, up);
		cr_assert_eq(n, 2);
		cr_assert(contains(up, n, 4) && contains(up, n, 6));
		cr_assert_eq(placement_map_pg(pl, 1, s, 0, up), 0);
		cr_assert_eq(placement_map_pg(pl, 1, s, 1, up), 1);
	}
	placement_free(pl);

	none = placement_new(o, 0);
	cr_assert_eq(placement_eligible(none), 0);
	cr_assert_eq(placement_map_pg(none, 1, 0, 3, up), 0);
	cr_assert_eq(placement_map_pg_general(none, 1, 0, 3, up), 0);
	placement_free(none);
	placement_free(NULL);

	/* size past PLACEMENT_MAX_SIZE is cut to it. */
	twelve = equal_osds(12, 0x10000);
	cr_assert_eq(placement_map_pg(twelve, 1, 0, 200, up),
	    PLACEMENT_MAX_SIZE);
	assert_distinct(up, PLACEMENT_MAX_SIZE);
	cr_assert_eq(placement_map_pg(twelve, 1, 0, 12, up),
	    PLACEMENT_MAX_SIZE);
	placement_free(twelve);
}

/* A duplicate id counts once, with its first entry. */
Test(placement, duplicates)
{
	struct placement_osd o[3] = {
		{ .id = 2, .eligible = 1, .weight16 = 0x10000 },
		{ .id = 2, .eligible = 1, .weight16 = 0x90000 },
		{ .id = 3, .eligible = 1, .weight16 = 0x10000 },
	};
	struct placement *pl = placement_new(o, 3);
	int32_t up[3];

	cr_assert_eq(placement_eligible(pl), 2);
	cr_assert(placement_equal_weights(pl));
	cr_assert_eq(placement_map_pg(pl, 1, 0, 3, up), 2);
	placement_free(pl);
}

/* With equal weights the fast path gives the general path's sets. */
Test(placement, fast_equals_general)
{
	static const uint32_t weights[] = { 0x10000, 1, 12345, 0x30000,
	    UINT32_MAX };
	int32_t a[PLACEMENT_MAX_SIZE], b[PLACEMENT_MAX_SIZE];
	struct placement *pl;
	uint32_t s, pool;
	unsigned size;
	size_t w;
	int na, nb;

	for (w = 0; w < nitems(weights); w++) {
		pl = equal_osds(w == 0 ? 256 : 37, weights[w]);
		cr_assert(placement_equal_weights(pl));
		for (pool = 1; pool <= 3; pool++) {
			for (s = 0; s < (w == 0 ? 100000U : 10000U); s++) {
				size = 1 + (s + pool) % PLACEMENT_MAX_SIZE;
				na = placement_map_pg(pl, pool, s, size, a);
				nb = placement_map_pg_general(pl, pool, s,
				    size, b);
				cr_assert_eq(na, (int)size);
				cr_assert_eq(na, nb);
				cr_assert_arr_eq(a, b, (size_t)na * sizeof *a,
				    "%u.%x size %u, weight %#x", pool, s, size,
				    weights[w]);
			}
		}
		placement_free(pl);
	}
}

/* The ln table is what its documented generator makes. */
Test(placement, ln_table)
{
	const uint32_t *t;
	size_t n, j;

	t = placement_ln_table(&n);
	cr_assert_eq(n, PLACEMENT_LN_TABLE_SIZE);
	cr_assert_eq(n, 1025);
	for (j = 0; j < n; j++)
		cr_assert_eq(t[j], (uint32_t)floor(log1p(j / 1024.0) *
		    4294967296.0 + 0.5), "entry %zu", j);
	cr_assert_eq(t[1024], PLACEMENT_LN2_Q32);
	for (j = 1; j < n; j++)
		cr_assert_gt(t[j], t[j - 1]);
}

/* placement_ln(): monotone, exact at the ends, close to ln. */
Test(placement, ln_values)
{
	uint64_t u, prevu = 1, x = 0x243f6a8885a308d3ULL;
	int64_t v, prev = placement_ln(1);
	double err, worst = 0;
	int k, i;

	cr_assert_eq(placement_ln(0), placement_ln(1));
	cr_assert_eq(placement_ln((1ULL << 32) + 5), 0);
	/* Every u up to 2^20, then around every power of two. */
	for (u = 2; u <= (1U << 20); u++) {
		v = placement_ln(u);
		cr_assert_geq(v, prev, "ln(%llu) < ln(%llu)",
		    (unsigned long long)u, (unsigned long long)prevu);
		prev = v;
		prevu = u;
	}
	for (k = 20; k <= 32; k++) {
		for (u = (1ULL << k) - 3000; u <= (1ULL << k) + 3000 &&
		    u <= (1ULL << 32); u++)
			cr_assert_geq(placement_ln(u + 1 > (1ULL << 32) ? u :
			    u + 1), placement_ln(u), "u %llu",
			    (unsigned long long)u);
	}
	/* Random u: close to the true value. */
	for (i = 0; i < 1000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		u = (x >> 32) + 1;
		v = placement_ln(u);
		err = fabs((double)v / 4294967296.0 - log((double)u /
		    4294967296.0));
		if (err > worst)
			worst = err;
		cr_assert_geq(placement_ln(u + 1 > (1ULL << 32) ? u : u + 1),
		    v);
	}
	cr_assert_lt(worst, 2e-7, "worst error %g", worst);
}

/* Pools and seeds over the whole 32-bit range. */
Test(placement, pool_seed_bounds)
{
	struct placement *pl = equal_osds(30, 0x10000);
	int32_t a[3], b[3];

	cr_assert_neq(placement_hash(1, 2, 0), placement_hash(2, 1, 0));
	cr_assert_neq(placement_hash(0, 0, 0), placement_hash(0, 0, 1));
	cr_assert_neq(placement_hash(UINT32_MAX, 0, 0),
	    placement_hash(0, UINT32_MAX, 0));
	cr_assert_eq(placement_map_pg(pl, UINT32_MAX, UINT32_MAX, 3, a), 3);
	assert_distinct(a, 3);
	cr_assert_eq(placement_map_pg(pl, 0, 0, 3, b), 3);
	assert_distinct(b, 3);
	cr_assert_eq(placement_map_pg(pl, UINT32_MAX, UINT32_MAX, 3, b), 3);
	cr_assert_arr_eq(a, b, sizeof a);
	/* An id beyond 16 bits hashes and maps as well. */
	cr_assert_neq(placement_hash(1, 1, INT32_MAX), placement_hash(1, 1, 0));
	placement_free(pl);
}

Test(placement, weight16)
{
	cr_assert_eq(placement_weight16(1.0, 1.0), 0x10000);
	cr_assert_eq(placement_weight16(2.0, 0.5), 0x10000);
	cr_assert_eq(placement_weight16(1.0, 0.5), 0x8000);
	cr_assert_eq(placement_weight16(0.0, 1.0), 0);
	cr_assert_eq(placement_weight16(1.0, 0.0), 0);
	cr_assert_eq(placement_weight16(-1.0, 1.0), 0);
	cr_assert_eq(placement_weight16(NAN, 1.0), 0);
	cr_assert_eq(placement_weight16(1.0, NAN), 0);
	/* Each factor to 16.16 first: 0.3 * 65536 = 19660.8 -> 19661. */
	cr_assert_eq(placement_weight16(0.3, 1.0), 19661);
	cr_assert_eq(placement_weight16(1.0, 0.3), 19661);
	cr_assert_eq(placement_weight16(0.3, 0.3), (19661U * 19661U) >> 16);
	/* Then the product rounded down: 49152 * 58982 / 65536 = 44236.5. */
	cr_assert_eq(placement_weight16(0.75, 0.9), 44236);
	cr_assert_eq(placement_weight16_fixed(49152, 58982), 44236);
	/* Halves away from zero: 1.5 / 65536 -> 2, 0.5 / 65536 -> 1. */
	cr_assert_eq(placement_weight16(1.5 / 65536, 1.0), 2);
	cr_assert_eq(placement_weight16(0.5 / 65536, 1.0), 1);
	cr_assert_eq(placement_weight16(0.49 / 65536, 1.0), 0);
	/* A factor printed from 16.16 comes back exactly. */
	cr_assert_eq(placement_weight16(12345 / 65536.0, 54321 / 65536.0),
	    placement_weight16_fixed(12345, 54321));
	cr_assert_eq(placement_weight16(1e6, 1.0), UINT32_MAX);
	cr_assert_eq(placement_weight16(INFINITY, 1.0), UINT32_MAX);
	cr_assert_eq(placement_weight16_fixed(UINT32_MAX, UINT32_MAX),
	    UINT32_MAX);
	cr_assert_eq(placement_weight16_fixed(0, 0x10000), 0);
	cr_assert_eq(placement_weight16_fixed(1, 0x8000), 0);
	cr_assert_eq(placement_draw(1, 1, 1, 0), INT64_MIN);
}

/*
 * The monitor's worst case: every PG of a 221,568-PG cluster over 256 OSDs.
 * The figures go to stderr; the test checks the placement is complete and
 * balanced.
 */
Test(placement, speed)
{
	struct placement_osd o[256];
	struct placement *pl;
	static uint32_t count[256];
	int32_t up[3];
	uint32_t s, n = 221568;
	double t0, t_eq, t_un, sum = 0;
	int i, k;

	pl = equal_osds(256, 0x10000);
	memset(count, 0, sizeof count);
	t0 = now_ms();
	for (s = 0; s < n; s++) {
		k = placement_map_pg(pl, 1 + s % 4, s / 4, 3, up);
		for (i = 0; i < k; i++)
			count[up[i]]++;
	}
	t_eq = now_ms() - t0;
	for (i = 0; i < 256; i++) {
		sum += count[i];
		cr_assert(fabs(count[i] - 3.0 * n / 256) < 0.1 * 3.0 * n / 256,
		    "osd.%d: %u", i, count[i]);
	}
	cr_assert_eq(sum, 3.0 * n);
	placement_free(pl);

	for (i = 0; i < 256; i++) {
		o[i].id = i;
		o[i].eligible = 1;
		o[i].weight16 = 0x8000 + (uint32_t)(i % 16) * 0x1000;
	}
	pl = placement_new(o, 256);
	t0 = now_ms();
	for (s = 0, sum = 0; s < n; s++)
		sum += placement_map_pg(pl, 1 + s % 4, s / 4, 3, up);
	t_un = now_ms() - t0;
	cr_assert_eq(sum, 3.0 * n);
	placement_free(pl);
	fprintf(stderr, "placement: %u PGs over 256 OSDs, size 3: equal "
	    "weights %.1f ms (%.0f ns/PG), unequal %.1f ms (%.0f ns/PG)\n",
	    n, t_eq, t_eq * 1e6 / n, t_un, t_un * 1e6 / n);
}
