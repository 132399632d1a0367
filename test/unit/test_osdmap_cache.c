/*
 * test_osdmap_cache.c: the client's copy of the osdmap: full maps and
 * incrementals as the monitor pushes them (daemon/sub.h), gaps, duplicates,
 * bad messages, and placement that follows the map.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "common/mapmon.h"
#include "map/osdmap.h"
#include "map/placement.h"
#include "map/pg.h"
#include "tools/osdmap_cache.h"

/* The reference map the "monitor" holds, changed only by incrementals. */
static struct osdmap ref;
static struct osdmap_cache *cache;
static int updates;

static void
on_update(void *arg, const struct osdmap *m)
{
	(void)arg;
	(void)m;
	updates++;
}

static void
setup(void)
{
	struct osdmap_osd o;
	struct osdmap_pool p;
	int32_t i;

	osdmap_init(&ref);
	ref.epoch = 5;
	snprintf(ref.fsid, sizeof ref.fsid, "%s",
	    "7b5c7e4e-3f7e-4b7a-9d0e-1c2b3a4d5e6f");
	for (i = 0; i < 6; i++) {
		memset(&o, 0, sizeof o);
		o.id = i;
		o.up = o.in = 1;
		o.weight = OSDMAP_WEIGHT_ONE;
		o.reweight = OSDMAP_WEIGHT_ONE;
		o.up_from = 2;
		snprintf(o.addr, sizeof o.addr, "127.0.0.1:%d", 6800 + i);
		osdmap_set_osd(&ref, &o);
	}
	memset(&p, 0, sizeof p);
	p.id = 1;
	snprintf(p.name, sizeof p.name, "rbd");
	p.size = 3;
	p.min_size = 2;
	p.pg_num = 64;
	p.pgp_num = p.pg_num;
	p.created_epoch = 4;
	osdmap_set_pool(&ref, &p);
	ref.pool_max = 1;
	/* The cache never sends on this path: no client is needed. */
	cache = osdmap_cache_new(NULL, on_update, NULL, NULL);
	updates = 0;
}

static void
teardown(void)
{
	osdmap_cache_free(cache);
	osdmap_clear(&ref);
}

TestSuite(osdmap_cache, .init = setup, .fini = teardown);

/* {"what":"osdmap","epoch":E,"full":MAP}, as the monitor pushes it. */
static json_t *
full_push(const struct osdmap *m)
{
	return json_pack("{s:s, s:I, s:o}", "what", "osdmap", "epoch",
	    (json_int_t)m->epoch, "full", osdmap_to_json(m));
}

static json_t *
inc_push(const struct osdmap_inc *inc)
{
	return json_pack("{s:s, s:I, s:o}", "what", "osdmap", "epoch",
	    (json_int_t)inc->epoch, "inc", osdmap_inc_to_json(inc));
}

/* Apply msg to the cache; return its result, cause freed. */
static int
apply(json_t *msg)
{
	char *cause = NULL;
	int rv;

	rv = osdmap_cache_apply_json(cache, msg, &cause);
	if (rv == -1)
		cr_expect_not_null(cause);
	free(cause);
	json_decref(msg);
	return rv;
}

/* The next incremental of ref marking osd down (and apply it to ref). */
static json_t *
next_inc_down(int32_t osd)
{
	struct osdmap_inc inc;
	struct osdmap_osd o;
	char *cause = NULL;
	json_t *j;

	osdmap_inc_init(&inc, ref.epoch + 1);
	o = *osdmap_osd(&ref, osd);
	o.up = 0;
	o.down_at = ref.epoch + 1;
	osdmap_inc_set_osd(&inc, &o);
	j = inc_push(&inc);
	cr_assert_eq(osdmap_apply(&ref, &inc, &cause), 0, "%s", cause);
	osdmap_inc_clear(&inc);
	return j;
}

/* The cache's mapping of every PG equals the reference's placement. */
static void
expect_same_mappings(void)
{
	struct placement *pl = osdmap_placement(&ref);
	int32_t want[PLACEMENT_MAX_SIZE];
	json_t *j, *up;
	char *cause = NULL;
	uint32_t s;
	int n, k, rc;

	for (s = 0; s < 64; s++) {
		n = placement_map_pg(pl, 1, s, 3, want);
		j = osdmap_cache_pg_map_json(cache, 1, s, &rc, &cause);
		cr_assert_not_null(j, "%s", cause);
		cr_assert_eq(json_integer_value(json_object_get(j, "epoch")),
		    ref.epoch);
		up = json_object_get(j, "up");
		cr_assert_eq((int)json_array_size(up), n, "pg 1.%x", s);
		for (k = 0; k < n; k++)
			cr_assert_eq(json_integer_value(json_array_get(up,
			    (size_t)k)), want[k], "pg 1.%x", s);
		cr_assert_eq(json_integer_value(json_object_get(j,
		    "up_primary")), n > 0 ? want[0] : -1);
		cr_assert(json_equal(up, json_object_get(j, "acting")));
		json_decref(j);
	}
	placement_free(pl);
}

Test(osdmap_cache, empty_until_a_full_map)
{
	char *cause = NULL;
	int rc = 0;

	cr_assert_null(osdmap_cache_map(cache));
	cr_assert_null(osdmap_cache_placement(cache));
	cr_assert_null(osdmap_cache_pg_map_json(cache, 1, 0, &rc, &cause));
	cr_assert_eq(rc, -EAGAIN);
	free(cause);
	/* An incremental without a map to apply it to is refused. */
	cr_assert_eq(apply(next_inc_down(1)), -1);
	cr_assert_null(osdmap_cache_map(cache));
	cr_assert_eq(updates, 0);
}

Test(osdmap_cache, full_map)
{
	cr_assert_eq(apply(full_push(&ref)), 1);
	cr_assert_not_null(osdmap_cache_map(cache));
	cr_assert_eq(osdmap_cache_map(cache)->epoch, 5);
	cr_assert_str_eq(osdmap_cache_map(cache)->fsid, ref.fsid);
	cr_assert_not_null(osdmap_pool_by_name(osdmap_cache_map(cache),
	    "rbd"));
	cr_assert_eq(updates, 0, "apply_json itself calls no callback");
	expect_same_mappings();
	/* The same map again, or an older one, is not news. */
	cr_assert_eq(apply(full_push(&ref)), 0);
	/* A bare map (not wrapped) is understood too. */
	ref.epoch = 6;
	cr_assert_eq(apply(osdmap_to_json(&ref)), 1);
	cr_assert_eq(osdmap_cache_map(cache)->epoch, 6);
}

Test(osdmap_cache, incrementals_follow_the_map)
{
	json_t *j;
	int32_t k;

	cr_assert_eq(apply(full_push(&ref)), 1);
	for (k = 0; k < 3; k++) {
		cr_assert_eq(apply(next_inc_down(k)), 1);
		cr_assert_eq(osdmap_cache_map(cache)->epoch, ref.epoch);
		cr_assert_eq(osdmap_osd(osdmap_cache_map(cache), k)->up, 0);
		expect_same_mappings();
	}
	/* The same incremental twice: the second is not news. */
	j = next_inc_down(4);
	cr_assert_eq(osdmap_cache_apply_json(cache, j, NULL), 1);
	cr_assert_eq(osdmap_cache_apply_json(cache, j, NULL), 0);
	json_decref(j);
	expect_same_mappings();
}

Test(osdmap_cache, a_gap_is_refused)
{
	json_t *skipped;

	cr_assert_eq(apply(full_push(&ref)), 1);
	skipped = next_inc_down(1);
	/* e7 without e6: refused, the map stays at e5. */
	cr_assert_eq(apply(next_inc_down(2)), -1);
	cr_assert_eq(osdmap_cache_map(cache)->epoch, 5);
	/* A full map of the current epoch closes the gap. */
	cr_assert_eq(apply(full_push(&ref)), 1);
	cr_assert_eq(osdmap_cache_map(cache)->epoch, 7);
	expect_same_mappings();
	json_decref(skipped);
}

Test(osdmap_cache, batches_of_incrementals)
{
	json_t *a, *b, *msg;

	cr_assert_eq(apply(full_push(&ref)), 1);
	a = next_inc_down(0);
	b = next_inc_down(5);
	msg = json_pack("{s:[O, O]}", "incrementals", json_object_get(a,
	    "inc"), json_object_get(b, "inc"));
	json_decref(a);
	json_decref(b);
	cr_assert_eq(apply(msg), 1);
	cr_assert_eq(osdmap_cache_map(cache)->epoch, 7);
	expect_same_mappings();
}

Test(osdmap_cache, bad_messages_leave_the_map)
{
	json_t *j;

	cr_assert_eq(apply(full_push(&ref)), 1);
	cr_assert_eq(apply(json_pack("[i]", 1)), -1);
	cr_assert_eq(apply(json_pack("{s:s}", "full", "x")), -1);
	j = next_inc_down(1);
	json_object_set_new(json_object_get(j, "inc"), "osds",
	    json_string("nope"));
	cr_assert_eq(apply(j), -1);
	cr_assert_eq(osdmap_cache_map(cache)->epoch, 5);
	/* A message with nothing for the map is not news, not an error. */
	cr_assert_eq(apply(json_pack("{s:s, s:i}", "what", "osdmap", "epoch",
	    5)), 0);
}

/*
 * A pool that does not exist is Ceph's ENOENT "pg '2.0' does not exist";
 * a seed past pg_num names the PG it folds to, as Ceph's `pg map 1.1f'
 * of a pool of 8 PGs is "pg 1.1f (1.7)" (seen on ceph 16.2.15).
 */
Test(osdmap_cache, missing_and_raw_pgs)
{
	const struct osdmap_pool *p;
	char *cause = NULL, want[32];
	json_t *j, *k;
	int rc = 0;

	cr_assert_eq(apply(full_push(&ref)), 1);
	cr_assert_null(osdmap_cache_pg_map_json(cache, 2, 0, &rc, &cause));
	cr_assert_eq(rc, -ENOENT);
	cr_assert_str_eq(cause, "pg '2.0' does not exist");
	free(cause);
	cause = NULL;
	p = osdmap_pool(osdmap_cache_map(cache), 1);
	cr_assert_not_null(p);
	j = osdmap_cache_pg_map_json(cache, 1, p->pg_num + 3, &rc, &cause);
	cr_assert_not_null(j, "%s", cause);
	snprintf(want, sizeof want, "1.%x", p->pg_num + 3);
	cr_assert_str_eq(json_string_value(json_object_get(j, "raw_pgid")),
	    want);
	snprintf(want, sizeof want, "1.%x",
	    pg_seed_fold(p->pg_num + 3, p->pg_num));
	cr_assert_str_eq(json_string_value(json_object_get(j, "pgid")), want);
	k = osdmap_cache_pg_map_json(cache, 1,
	    pg_seed_fold(p->pg_num + 3, p->pg_num), &rc, &cause);
	cr_assert(
	    json_equal(json_object_get(j, "up"), json_object_get(k, "up")));
	json_decref(j);
	json_decref(k);
}

Test(osdmap_cache, placement_is_rebuilt_when_it_changes)
{
	const struct placement *before;

	cr_assert_eq(apply(full_push(&ref)), 1);
	before = osdmap_cache_placement(cache);
	cr_assert_not_null(before);
	cr_assert_eq(placement_eligible(before), 6);
	cr_assert_eq(apply(next_inc_down(3)), 1);
	cr_assert_eq(placement_eligible(osdmap_cache_placement(cache)), 5);
}

/*
 * What inc changes: placement at all (changes, as osdmap_cache rebuilds
 * its placement) and the up sets of PGs that exist (moves, as the monitor
 * re-places its creating PGs); inc is cleared and started again.
 */
static void
check_inc(struct osdmap_inc *inc, int changes, int moves, const char *what)
{
	cr_assert_eq(osdmap_inc_changes_placement(&ref, inc) != 0, changes,
	    "%s", what);
	cr_assert_eq(osdmap_inc_moves_pgs(&ref, inc) != 0, moves, "%s", what);
	osdmap_inc_clear(inc);
	osdmap_inc_init(inc, ref.epoch + 1);
}

/* A pool made, grown or removed changes placement but moves no PG. */
Test(osdmap_cache, what_moves_existing_pgs)
{
	struct osdmap_inc inc;
	struct osdmap_pool p = *osdmap_pool(&ref, 1);
	struct osdmap_osd o = *osdmap_osd(&ref, 2);

	osdmap_inc_init(&inc, ref.epoch + 1);
	check_inc(&inc, 0, 0, "nothing");
	p.id = 2;
	osdmap_inc_set_pool(&inc, &p);
	check_inc(&inc, 1, 0, "a new pool");
	p.id = 1;
	p.pg_num = 128;
	osdmap_inc_set_pool(&inc, &p);
	check_inc(&inc, 1, 0, "pg_num grown");
	osdmap_inc_remove_pool(&inc, 1);
	check_inc(&inc, 1, 0, "a pool removed");
	p.pg_num = 64;
	p.size = 2;
	osdmap_inc_set_pool(&inc, &p);
	check_inc(&inc, 1, 1, "a pool's size changed");
	o.up = 0;
	osdmap_inc_set_osd(&inc, &o);
	check_inc(&inc, 1, 1, "an OSD down");
	osdmap_inc_remove_osd(&inc, 5);
	check_inc(&inc, 1, 1, "an OSD removed");
	osdmap_inc_clear(&inc);
}
