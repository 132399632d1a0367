/*
 * test_mon.c: the monitor core against a real store (compiled once per
 * backend, TEST_BACKEND), driven through its C API on a real event loop.
 *
 * Every write is answered through a callback; `call()` runs the loop until
 * that answer comes.  What a user would notice is asserted: the maps, the
 * derived figures against a recount, the health checks, the cluster log,
 * the state after a restart, what a failing disk does, and what the store
 * holds after trimming.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/keys.h"
#include "mon/mon.h"
#include "mon/mon_priv.h"
#include "mon/mon_verify.h"
#include "map/pgmap.h"
#include "map/placement.h"
#include "store/store_test.h"
#include "test/lib/mon_report_util.h"

#ifndef TEST_BACKEND
#define TEST_BACKEND "lmdb"
#endif

static char tmpdir[] = "/tmp/test_mon.XXXXXX";
static struct event_base *base;
static struct mon *mon;
static struct store *fault;	/* the fault wrapper mon runs on */
static struct mon_params params;

struct answer {
	int done;
	int rc;
	char status[512];
	json_t *data;
};

/* A mon_done_cb: a->data is its reference (mon.h), for the test to drop. */
static void
answer_cb(void *arg, int rc, const char *status, json_t *data)
{
	struct answer *a = arg;

	a->done = 1;
	a->rc = rc;
	snprintf(a->status, sizeof a->status, "%s", status ? status : "");
	a->data = data;
}

/* One turn of the loop, waiting at most 10 ms for something to happen. */
static void
turn(void)
{
	struct timeval tv = { 0, 10000 };

	event_base_loopexit(base, &tv);
	event_base_loop(base, EVLOOP_ONCE);
}

/* Run the loop until a is answered (or 20 s pass). */
static void
wait_for(struct answer *a)
{
	int i;

	for (i = 0; !a->done && i < 2000; i++)
		turn();
	cr_assert(a->done, "no answer within 20 s");
}

/* Run the loop until nothing is pending or in flight. */
static void
settle(void)
{
	int i;

	for (i = 0; !mon_idle(mon) && i < 2000; i++)
		turn();
	cr_assert(mon_idle(mon), "the monitor did not settle");
}

/* The test's store, opened as the monitor opens it. */
static struct store *
open_store(void)
{
	struct store_options so;
	struct store *s;
	char *path, *cause = NULL;
	int rc;

	store_options_defaults(&so);
	so.backend = TEST_BACKEND;
	so.sync = STORE_SYNC_NONE;
	path = mon_store_path(tmpdir);
	rc = store_open(path, &so, 0, &s, &cause);
	free(path);
	cr_assert_eq(rc, 0, "store_open: %s", cause ? cause : "?");
	return s;
}

static void
open_mon(void)
{
	char *cause = NULL;

	fault = store_fault_wrap(open_store());
	mon = mon_open(base, fault, &params, NULL, NULL, &cause);
	cr_assert_not_null(mon, "mon_open: %s", cause ? cause : "?");
}

static void
close_mon(void)
{
	mon_free(mon);
	mon = NULL;
}

static void
setup(void)
{
	struct store_options so;
	char *cause = NULL, *fsid = NULL;

	log_init("test_mon", 1000);
	cr_assert_not_null(mkdtemp(tmpdir));
	base = event_base_new();
	mon_params_defaults(&params);
	params.propose_interval_ms = 1;
	store_options_defaults(&so);
	so.backend = TEST_BACKEND;
	so.sync = STORE_SYNC_NONE;
	cr_assert_eq(mon_mkfs(tmpdir, &so, "a", "127.0.0.1:6788", &fsid,
	    &cause), 0, "mkfs: %s", cause ? cause : "?");
	cr_assert_eq(strlen(fsid), 36);
	free(fsid);
	open_mon();
}

static void
teardown(void)
{
	char cmd[128];

	if (mon != NULL)
		close_mon();
	event_base_free(base);
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	(void)!system(cmd);
}

TestSuite(mon, .init = setup, .fini = teardown, .timeout = 120);

/* Helpers that do one operation and return its rc. */
static int
osd_create(int32_t id, int32_t *got)
{
	struct answer a = { 0 };

	mon_osd_create(mon, id, answer_cb, &a);
	wait_for(&a);
	if (a.rc == 0 && got != NULL)
		*got = (int32_t)json_integer_value(json_object_get(a.data,
		    "osdid"));
	json_decref(a.data);
	return a.rc;
}

static int
osd_boot(int32_t id)
{
	struct answer a = { 0 };

	mon_osd_boot(mon, id, "127.0.0.1:6800", answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	return a.rc;
}

static int
osd_down(int32_t id)
{
	struct answer a = { 0 };

	mon_osd_down(mon, &id, 1, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	return a.rc;
}

static int
pool_create(const char *name, int64_t pg_num, int64_t size)
{
	struct answer a = { 0 };

	mon_pool_create(mon, name, pg_num, size, 0, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	return a.rc;
}

/* Raise the PG limits out of the way of a large pool's test. */
static void
limits_raise(void)
{
	params.max_pool_pg_num = OSDMAP_PG_NUM_MAX;
	params.max_pg_per_osd = 1000000;
	mon_set_params(mon, &params);
}

static void
make_osds(int n)
{
	int32_t id;
	int i;

	for (i = 0; i < n; i++) {
		cr_assert_eq(osd_create(-1, &id), 0);
		cr_assert_eq(id, i);
		cr_assert_eq(osd_boot(id), 0);
	}
}

static void
check_derived(void)
{
	char *cause = NULL;

	cr_assert_eq(mon_check_derived(mon, &cause), 0, "%s", cause);
}

/* Run w to its end, no turn of the loop between slices; its data. */
static json_t *
walk_all(struct mon_pg_walk *w, char **status)
{
	struct pg_text t;
	json_error_t e;
	json_t *j;

	pg_text_init(&t);
	while (mon_pg_walk_next(w, &t, status) == 0)
		;
	mon_pg_walk_free(w);
	j = json_loadb((const char *)t.buf.data, t.buf.len, 0, &e);
	cr_assert_not_null(j, "the listing is not JSON: %s", e.text);
	pg_text_free(&t);
	return j;
}

static void
report_fill(struct pg_stat *st, int size, void *arg)
{
	int64_t objects = (int64_t)*(const uint64_t *)arg;

	st->num_objects = objects;
	st->num_bytes = objects * 4096;
	st->num_object_copies = objects * size;
}

/* One OSD's report, waited for: it must be accepted. */
static void
report_send(int32_t osd, const struct pg_stat *batch, size_t n,
    mapmon_unused void *arg)
{
	struct answer a;

	memset(&a, 0, sizeof a);
	mon_pg_report(mon, osd, batch, n, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "report from osd.%d: %s", osd, a.status);
	json_decref(a.data);
}

/*
 * Every PG of every pool reported by its primary in the given state: one
 * placement per PG, then one report per OSD.
 */
static void
report_all(uint32_t state, uint64_t objects)
{
	mon_report_util_all(mon, state, report_fill, report_send, &objects);
}

Test(mon, mkfs_gives_epoch_one_and_refuses_an_existing_store)
{
	struct store_options so;
	char *cause = NULL;

	cr_assert_eq(mon_osdmap(mon)->epoch, 1);
	cr_assert_eq(mon_osdmap(mon)->max_osd, 0);
	cr_assert_eq(mon_pgmap_version(mon), 0);
	cr_assert_str_eq(mon_osdmap(mon)->fsid, mon_monmap(mon)->fsid);
	store_options_defaults(&so);
	so.backend = TEST_BACKEND;
	close_mon();
	cr_assert_eq(mon_mkfs(tmpdir, &so, "a", "x", NULL, &cause), -1);
	cr_assert_not_null(strstr(cause, "store"), "%s", cause);
	free(cause);
	open_mon();
}

Test(mon, osd_ids_are_the_lowest_free)
{
	int32_t id;

	make_osds(3);
	cr_assert_eq(osd_create(1, NULL), -EEXIST);
	cr_assert_eq(osd_create(70000, NULL), -EINVAL);
	cr_assert_eq(osd_down(1), 0);
	{
		struct answer a = { 0 };

		mon_osd_rm(mon, 1, answer_cb, &a);
		wait_for(&a);
		cr_assert_eq(a.rc, 0, "%s", a.status);
	}
	cr_assert_eq(osd_create(-1, &id), 0);
	cr_assert_eq(id, 1);
	cr_assert_eq(osd_create(-1, &id), 0);
	cr_assert_eq(id, 3);
	cr_assert_eq(osd_create(10, &id), 0);
	cr_assert_eq(id, 10);
}

Test(mon, osd_lifecycle_and_refusals)
{
	const struct osdmap_osd *o;
	struct answer a = { 0 };
	uint32_t epoch;

	cr_assert_eq(osd_boot(0), -ENOENT);
	make_osds(2);
	o = osdmap_osd(mon_osdmap(mon), 0);
	cr_assert(o->up && o->in, "a booted new OSD is up and in");
	epoch = mon_osdmap(mon)->epoch;
	cr_assert_eq(osd_down(0), 0);
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1);
	o = osdmap_osd(mon_osdmap(mon), 0);
	cr_assert(!o->up && o->in);
	cr_assert_eq(o->down_at, epoch + 1);
	/* Already down: answered at once, no new epoch. */
	cr_assert_eq(osd_down(0), 0);
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1);

	mon_osd_rm(mon, 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EBUSY, "rm of an up osd: %s", a.status);

	memset(&a, 0, sizeof a);
	mon_osd_reweight(mon, 1, 1.5, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EINVAL);
	memset(&a, 0, sizeof a);
	mon_osd_reweight(mon, 1, 0.5, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	cr_assert_eq(osdmap_osd(mon_osdmap(mon), 1)->reweight, 0x8000);

	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "noup", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	cr_assert_eq(osd_boot(0), -EBUSY);
	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "nosuch", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EINVAL);
	cr_assert_not_null(strstr(a.status, "nosuch"));
}

/* A beacon restarts the OSD's report clock and keeps its capacity. */
Test(mon, beacon_records_liveness_and_capacity)
{
	struct statfs_osd st = { .total = 1000,
		.used = 300,
		.avail = 700,
		.data = 300 };
	struct mon_osd_live *l;
	struct answer a = { 0 };
	int64_t before;

	mon_osd_beacon(mon, 0, &st, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -ENOENT, "beacon of a missing osd: %s", a.status);
	make_osds(1);
	before = stamp_mono();
	memset(&a, 0, sizeof a);
	mon_osd_beacon(mon, 0, &st, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	l = mon_osd_live(mon, 0);
	cr_assert_geq(l->last_report_mono, before);
	cr_assert(l->has_statfs);
	cr_assert_eq(l->statfs.used, 300);
	/* One without capacity keeps the last capacity known. */
	memset(&a, 0, sizeof a);
	mon_osd_beacon(mon, 0, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	cr_assert_eq(mon_osd_live(mon, 0)->statfs.total, 1000);
	cr_assert_eq(osd_down(0), 0);
	memset(&a, 0, sizeof a);
	mon_osd_beacon(mon, 0, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EAGAIN, "beacon of a down osd: %s", a.status);
}

Test(mon, pool_create_places_every_pg_in_creating)
{
	const struct pgmap_pool *pp;
	const struct osdmap_pool *op;
	struct placement *pl;
	int32_t up[PLACEMENT_MAX_SIZE];
	uint32_t s;
	int n;

	make_osds(6);
	cr_assert_eq(pool_create("rbd", 128, 3), 0);
	op = osdmap_pool_by_name(mon_osdmap(mon), "rbd");
	cr_assert_not_null(op);
	cr_assert_eq(op->id, 1);
	cr_assert_eq(op->min_size, 2);
	cr_assert_eq(op->created_epoch, mon_osdmap(mon)->epoch);
	pp = pgmap_pool(mon_pgmap(mon), 1);
	cr_assert_not_null(pp);
	cr_assert_eq(pp->pg_num, 128);
	cr_assert_eq(pgmap_state_count(mon_pgmap(mon), PG_STATE_CREATING), 128);
	pl = osdmap_placement(mon_osdmap(mon));
	for (s = 0; s < 128; s++) {
		n = placement_map_pg(pl, 1, s, 3, up);
		cr_assert_eq(pp->pgs[s].up_len, n);
		cr_assert_eq(memcmp(pp->pgs[s].up, up, (size_t)n * 4), 0);
		cr_assert_eq(pp->pgs[s].acting_primary, up[0]);
	}
	placement_free(pl);
	check_derived();

	cr_assert_eq(pool_create("rbd", 8, 3), -EEXIST);
	cr_assert_eq(pool_create("bad name", 8, 3), -EINVAL);
	cr_assert_eq(pool_create("x", 0, 3), -EINVAL);
	cr_assert_eq(pool_create("x", 8, 11), -EINVAL);
	cr_assert_eq(pool_create("two", 16, 2), 0);
	cr_assert_eq(osdmap_pool_by_name(mon_osdmap(mon), "two")->id, 2);
}

/*
 * The PG limits count what is proposed and not yet committed: a create
 * waiting for its commit counts against the next, and is answered only
 * after it, while the refusal is answered at once, with nothing staged.
 */
Test(mon, pg_limits_count_pools_not_yet_committed)
{
	struct answer a = { 0 }, b = { 0 };

	/* No OSD is in: 250 x 3 = 750 PG replicas. */
	mon_pool_create(mon, "a", 200, 3, 0, answer_cb, &a);
	mon_pool_create(mon, "b", 51, 3, 0, answer_cb, &b);
	cr_assert(!a.done, "the first create waits for its commit");
	cr_assert(b.done, "the refusal is answered at once");
	cr_assert_eq(b.rc, -ERANGE);
	cr_assert_str_eq(b.status, "pg_num 51 size 3 would mean 753 total "
	    "pgs, which exceeds max 750 (mon_max_pg_per_osd 250 * "
	    "num_in_osds 3)");
	memset(&b, 0, sizeof b);
	mon_pool_create(mon, "b", 50, 3, 0, answer_cb, &b);
	wait_for(&a);
	wait_for(&b);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_eq(b.rc, 0, "the limit itself is allowed: %s", b.status);
	cr_assert_eq(mon_osdmap(mon)->npools, 2);
	cr_assert_eq(mon_pgmap(mon)->sums.num_pgs, 250);
	json_decref(a.data);
	json_decref(b.data);
}

/*
 * max_pgs counts the PGs of a pool whose removal is not yet committed:
 * the monitor holds them until then.
 */
Test(mon, max_pgs_counts_a_pool_being_removed)
{
	struct answer del = { 0 }, a = { 0 };

	params.max_pgs = 100;
	mon_set_params(mon, &params);
	cr_assert_eq(pool_create("c", 60, 1), 0);
	mon_pool_delete(mon, "c", "c", 1, answer_cb, &del);
	mon_pool_create(mon, "d", 60, 1, 0, answer_cb, &a);
	cr_assert(a.done && !del.done);
	cr_assert_eq(a.rc, -ERANGE);
	cr_assert_str_eq(a.status, "pg_num 60 would mean 120 pgs in all "
	    "pools, which exceeds max_pgs 100 (mon max_pgs, the monitor's "
	    "memory bound)");
	wait_for(&del);
	cr_assert_eq(del.rc, 0, "%s", del.status);
	cr_assert_eq(pool_create("d", 100, 1), 0, "the limit itself");
	cr_assert_eq(mon_pgmap(mon)->sums.num_pgs, 100);
	cr_assert_eq(pool_create("e", 1, 1), -ERANGE);
	params.max_pgs = 101;
	mon_set_params(mon, &params);
	cr_assert_eq(pool_create("e", 1, 1), 0, "raised at run time");
}

Test(mon, pg_num_grows_but_never_shrinks)
{
	struct answer a = { 0 };

	make_osds(3);
	cr_assert_eq(pool_create("p", 8, 3), 0);
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 10);
	settle();
	mon_pool_set(mon, "p", "pg_num", 4, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EINVAL);
	cr_assert_not_null(strstr(a.status, "shrink"), "%s", a.status);
	memset(&a, 0, sizeof a);
	mon_pool_set(mon, "p", "pg_num", 12, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_eq(pgmap_pool(mon_pgmap(mon), 1)->pg_num, 12);
	cr_assert_eq(pgmap_state_count(mon_pgmap(mon), PG_STATE_CREATING), 4);
	cr_assert_eq(pgmap_state_count(mon_pgmap(mon),
	    PG_STATE_ACTIVE | PG_STATE_CLEAN), 8);
	cr_assert_eq(mon_pgmap(mon)->sums.num_objects, 80);
	check_derived();
}

Test(mon, pool_delete_needs_confirmation_and_removes_its_pgs)
{
	struct answer a = { 0 };
	struct store_iter *it;
	const void *k, *v;
	size_t kl, vl, n = 0;
	uint8_t lo = KEYS_PG, hi = KEYS_PG + 1;

	make_osds(3);
	cr_assert_eq(pool_create("a", 16, 3), 0);
	cr_assert_eq(pool_create("b", 8, 3), 0);
	mon_pool_delete(mon, "a", "a", 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EPERM);
	memset(&a, 0, sizeof a);
	mon_pool_delete(mon, "a", "b", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EPERM);
	memset(&a, 0, sizeof a);
	mon_pool_delete(mon, "nope", "nope", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -ENOENT);
	memset(&a, 0, sizeof a);
	mon_pool_delete(mon, "a", "a", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_null(osdmap_pool_by_name(mon_osdmap(mon), "a"));
	cr_assert_null(pgmap_pool(mon_pgmap(mon), 1));
	cr_assert_eq(mon_pgmap(mon)->sums.num_pgs, 8);
	check_derived();
	it = store_iter_new(mon_store(mon), &lo, 1, &hi, 1, NULL);
	while (store_iter_next(it, &k, &kl, &v, &vl) == 1)
		n++;
	store_iter_free(it);
	cr_assert_eq(n, 8, "the deleted pool's PG records are gone");
	/* Ids are never reused. */
	cr_assert_eq(pool_create("c", 4, 3), 0);
	cr_assert_eq(osdmap_pool_by_name(mon_osdmap(mon), "c")->id, 3);
}

Test(mon, reports_move_pgs_to_active_clean_and_osd_down_makes_them_stale)
{
	const struct pgmap *pm;
	struct answer a = { 0 };
	uint64_t stale;

	make_osds(4);
	cr_assert_eq(pool_create("rbd", 64, 3), 0);
	report_all(PG_STATE_PEERING, 0);
	settle();
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 5);
	settle();
	pm = mon_pgmap(mon);
	cr_assert_eq(pgmap_state_count(pm, PG_STATE_ACTIVE | PG_STATE_CLEAN),
	    64);
	cr_assert_eq(pm->sums.num_objects, 64 * 5);
	cr_assert_eq(mon_health_status(mon), 0, "all active+clean is OK");
	check_derived();

	cr_assert_eq(osd_down(2), 0);
	settle();
	stale = pgmap_state_count(pm, PG_STATE_ACTIVE | PG_STATE_CLEAN |
	    PG_STATE_STALE);
	cr_assert_eq(stale, pm->osd[2].primary, "the down OSD's primaries "
	    "are stale");
	cr_assert_gt(stale, 0);
	cr_assert_eq(mon_health_status(mon), 1);
	check_derived();

	/* A report from a down OSD is refused. */
	mon_pg_report(mon, 2, &pgmap_pool(pm, 1)->pgs[0], 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EAGAIN);
}

Test(mon, health_checks_follow_the_state)
{
	json_t *h, *checks;

	make_osds(2);
	cr_assert_eq(pool_create("rbd", 16, 3), 0);
	h = mon_health_json(mon, 1);
	checks = json_object_get(h, "checks");
	cr_assert_str_eq(json_string_value(json_object_get(h, "status")),
	    "HEALTH_WARN");
	cr_assert_not_null(json_object_get(checks, "TOO_FEW_OSDS"));
	cr_assert_not_null(json_object_get(checks, "PG_AVAILABILITY"));
	cr_assert_null(json_object_get(checks, "OSD_DOWN"));
	json_decref(h);

	cr_assert_eq(osd_down(1), 0);
	h = mon_health_json(mon, 1);
	checks = json_object_get(h, "checks");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    json_object_get(checks, "OSD_DOWN"), "summary"), "message")),
	    "1 osds down");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(json_object_get(checks, "OSD_DOWN"), "detail"), 0),
	    "message")), "osd.1 is down");
	json_decref(h);
	settle();
	/* The change is in the cluster log. */
	h = mon_log_last_json(mon, 50);
	{
		size_t i;
		json_t *e;
		int found = 0;

		json_array_foreach(h, i, e)
			if (strstr(json_string_value(json_object_get(e,
			    "message")), "Health check failed") &&
			    strstr(json_string_value(json_object_get(e,
			    "message")), "OSD_DOWN"))
				found = 1;
		cr_assert(found, "OSD_DOWN logged");
	}
	json_decref(h);
}

/* Same PG stats: every field, compared through their encoding. */
static void
assert_same_pgs(const struct pgmap_pool *a, const struct pgmap_pool *b)
{
	struct enc_buf ea = { 0 }, eb = { 0 };
	char id[32];
	uint32_t s;

	for (s = 0; s < a->pg_num; s++) {
		enc_buf_reset(&ea);
		enc_buf_reset(&eb);
		pg_stat_encode(&a->pgs[s], &ea);
		pg_stat_encode(&b->pgs[s], &eb);
		pg_id_format(a->pgs[s].pgid, id, sizeof id);
		cr_assert(ea.len == eb.len && memcmp(ea.data, eb.data,
		    ea.len) == 0, "PG %s differs after restart", id);
	}
	enc_buf_free(&ea);
	enc_buf_free(&eb);
}

/* Compare two monitors' states field by field. */
static void
assert_same_state(const struct osdmap *om, const struct pgmap *pm,
    json_t *osdjson)
{
	const struct pgmap *now = mon_pgmap(mon);
	json_t *j = osdmap_to_json(mon_osdmap(mon));
	size_t i;

	cr_assert(json_equal(j, osdjson), "osdmap differs after restart");
	json_decref(j);
	cr_assert_eq(mon_osdmap(mon)->epoch, om->epoch);
	cr_assert_eq(now->version, pm->version);
	cr_assert_eq(now->npools, pm->npools);
	for (i = 0; i < now->npools; i++) {
		cr_assert_eq(now->pools[i].pg_num, pm->pools[i].pg_num);
		assert_same_pgs(&now->pools[i], &pm->pools[i]);
		cr_assert_eq(memcmp(&now->pools[i].sums, &pm->pools[i].sums,
		    sizeof now->pools[i].sums), 0);
	}
	cr_assert_eq(memcmp(&now->sums, &pm->sums, sizeof now->sums), 0);
	check_derived();
}

Test(mon, restart_gives_back_the_same_state)
{
	struct pgmap copy;
	struct osdmap om;
	json_t *osdjson, *log1, *log2;
	size_t i;

	make_osds(5);
	cr_assert_eq(pool_create("rbd", 100, 3), 0);
	cr_assert_eq(pool_create("meta", 30, 2), 0);
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 7);
	cr_assert_eq(osd_down(4), 0);
	settle();
	osdmap_init(&om);
	osdmap_copy(&om, mon_osdmap(mon));
	osdjson = osdmap_to_json(mon_osdmap(mon));
	log1 = mon_log_last_json(mon, 1000);
	pgmap_init(&copy);
	copy = *mon_pgmap(mon);
	copy.pools = xcalloc(copy.npools, sizeof *copy.pools);
	for (i = 0; i < copy.npools; i++) {
		copy.pools[i] = mon_pgmap(mon)->pools[i];
		copy.pools[i].pgs = xreallocarray(NULL, copy.pools[i].pg_num,
		    sizeof *copy.pools[i].pgs);
		memcpy(copy.pools[i].pgs, mon_pgmap(mon)->pools[i].pgs,
		    copy.pools[i].pg_num * sizeof *copy.pools[i].pgs);
	}
	copy.states = NULL;
	copy.osd = NULL;
	copy.nstates = copy.nosds = 0;

	close_mon();
	open_mon();
	assert_same_state(&om, &copy, osdjson);
	log2 = mon_log_last_json(mon, 1000);
	cr_assert(json_equal(log1, log2), "cluster log differs");
	json_decref(log1);
	json_decref(log2);
	json_decref(osdjson);
	osdmap_clear(&om);
	pgmap_clear(&copy);
}

/*
 * Reports sent without waiting: answers[] are filled as they come.  objects
 * comes first: report_fill() reads it through the same argument.
 */
struct report_batch {
	uint64_t objects;
	struct answer answers[16];
	size_t n;
};

static void
report_nowait(int32_t osd, const struct pg_stat *batch, size_t n, void *arg)
{
	struct report_batch *b = arg;

	cr_assert_lt(b->n, nitems(b->answers));
	mon_pg_report(mon, osd, batch, n, answer_cb, &b->answers[b->n++]);
}

static size_t
reports_answered(const struct report_batch *b)
{
	size_t i, done = 0;

	for (i = 0; i < b->n; i++)
		done += b->answers[i].done;
	return done;
}

/*
 * Every PG reported with objects counters in one proposal (sealed by hand),
 * with osd out_osd marked out in it too unless it is -1, then turns of the
 * loop until the commit is being applied in slices.
 */
static void
report_all_until_applying(struct report_batch *b, uint64_t objects,
    int32_t out_osd)
{
	struct mon_params slow = params;
	int i;

	memset(b, 0, sizeof *b);
	b->objects = objects;
	slow.propose_interval_ms = 60000;
	mon_set_params(mon, &slow);
	mon_report_util_all(mon, PG_STATE_ACTIVE | PG_STATE_CLEAN,
	    report_fill, report_nowait, b);
	if (out_osd >= 0)
		mon_osd_out(mon, &out_osd, 1, answer_cb, &b->answers[b->n++]);
	mon_set_params(mon, &params);
	mon_propose_now(mon);
	for (i = 0; mon->applying == NULL && i < 2000; i++)
		turn();
	cr_assert_not_null(mon->applying, "the commit of %zu PGs was not "
	    "applied in slices", mon->inflight ? mon->inflight->npgs : 0);
}

Test(mon, a_large_commit_is_applied_in_slices_and_seen_only_when_whole)
{
	const struct pgmap *pm;
	struct report_batch b;
	struct pg_stat old;
	struct answer a = { 0 };
	struct mon_pg_walk *w;
	json_t *q;
	char *status = NULL;
	uint64_t v0;
	uint32_t e0;
	int64_t t0;
	size_t i;

	make_osds(4);
	limits_raise();
	cr_assert_eq(pool_create("big", 5000, 3), 0);
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 5);
	settle();
	pm = mon_pgmap(mon);
	v0 = mon_pgmap_version(mon);
	cr_assert_eq(pm->sums.num_objects, 5000 * 5);

	report_all_until_applying(&b, 7, -1);
	cr_assert_gt(b.n, 0);
	cr_assert_gt(mon->applying->npgs, 1024, "more than one slice");
	/* Unseen while applying: figures, version, answers. */
	cr_assert_eq(mon_pgmap_version(mon), v0);
	cr_assert_eq(pm->sums.num_objects, 5000 * 5);
	cr_assert_eq(reports_answered(&b), 0);
	cr_assert_not(mon_idle(mon));
	/* A report is checked against the applying stats, not the map's. */
	old = mon->applying->pgs[mon->applying->npgs - 1];
	old.reported_seq--;
	mon_pg_report(mon, old.acting_primary, &old, 1, answer_cb, &a);
	cr_assert(a.done, "a report with nothing newer is answered at once");
	cr_assert_eq(json_integer_value(json_object_get(a.data, "old")), 1,
	    "the report older than the applying commit's is dropped");
	json_decref(a.data);
	/* Reading a single PG finishes the apply first. */
	cr_assert_eq(mon_pg_query_json(mon, "1.0", &q, &status), 0);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(q,
	    "stat_sum"), "num_objects")), 7);
	json_decref(q);
	free(status);
	cr_assert_null(mon->applying);
	cr_assert_eq(reports_answered(&b), b.n);
	for (i = 0; i < b.n; i++) {
		cr_assert_eq(b.answers[i].rc, 0, "%s", b.answers[i].status);
		json_decref(b.answers[i].data);
	}
	cr_assert_eq(mon_pgmap_version(mon), v0 + 1);
	cr_assert_eq(pm->sums.num_objects, 5000 * 7);
	check_derived();

	/*
	 * Left to the loop, the slices end the same way; an osdmap change
	 * in the commit is seen at the end with the rest.
	 */
	e0 = mon_osdmap(mon)->epoch;
	report_all_until_applying(&b, 9, 3);
	cr_assert(mon->applying->has_inc);
	cr_assert_eq(mon_osdmap(mon)->epoch, e0);
	cr_assert(osdmap_osd(mon_osdmap(mon), 3)->in);
	for (i = 0; reports_answered(&b) < b.n && i < 2000; i++)
		turn();
	cr_assert_eq(reports_answered(&b), b.n);
	for (i = 0; i < b.n; i++) {
		cr_assert_eq(b.answers[i].rc, 0, "%s", b.answers[i].status);
		json_decref(b.answers[i].data);
	}
	cr_assert_null(mon->applying);
	cr_assert_eq(mon_osdmap(mon)->epoch, e0 + 1);
	cr_assert_not(osdmap_osd(mon_osdmap(mon), 3)->in);
	cr_assert_eq(pm->sums.num_objects, 5000 * 9);
	check_derived();
	/* The arrays kept for a next proposal go back once unused. */
	cr_assert_not_null(mon->spare_pgs.pgs);
	t0 = stamp_mono();
	while (mon->spare_pgs.pgs != NULL && stamp_mono() - t0 < 4000000)
		turn();
	cr_assert_null(mon->spare_pgs.pgs, "kept arrays not freed in 4 s");

	/* Stopping while applying finishes it: answered, and stored. */
	report_all_until_applying(&b, 11, -1);
	close_mon();
	cr_assert_eq(reports_answered(&b), b.n);
	for (i = 0; i < b.n; i++) {
		cr_assert_eq(b.answers[i].rc, 0, "%s", b.answers[i].status);
		json_decref(b.answers[i].data);
	}
	open_mon();
	cr_assert_eq(mon_pgmap(mon)->sums.num_objects, 5000 * 11);
	check_derived();

	/* pg dump while applying: its summary and its PGs of one commit. */
	v0 = mon_pgmap_version(mon);
	report_all_until_applying(&b, 13, -1);
	cr_assert_eq(mon_pg_dump_walk(mon, "all", &w, &status), 0);
	q = walk_all(w, &status);
	cr_assert_eq(json_integer_value(json_object_get(q, "version")),
	    (json_int_t)v0 + 1, "the summary is of the commit the PGs are");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(
	    json_object_get(q, "pg_stats_sum"), "stat_sum"), "num_objects")),
	    5000 * 13);
	json_decref(q);
	free(status);
	for (i = 0; i < b.n; i++)
		json_decref(b.answers[i].data);
}

static json_int_t
status_num_pgs(void)
{
	json_t *st = mon_status_json(mon);
	json_int_t n = json_integer_value(
	    json_object_get(json_object_get(st, "pgmap"), "num_pgs"));

	json_decref(st);
	return n;
}

/* Turns of the loop until a commit is being applied in slices. */
static void
wait_applying(void)
{
	int i;

	for (i = 0; mon->applying == NULL && i < 2000; i++)
		turn();
	cr_assert_not_null(mon->applying, "no commit applied in slices");
}

/*
 * The commit of the change a waits for is applied in slices: unanswered
 * while applying, status answering from the state before (pgs PGs), at
 * least turns turns of the loop until a is answered with rc 0, and the
 * version moved then.
 */
static void
applied_in_slices(struct answer *a, json_int_t pgs, int turns)
{
	uint64_t v;
	int n;

	wait_applying();
	v = mon_pgmap_version(mon);
	cr_assert_not(a->done, "answered before the apply is whole");
	cr_assert_eq(status_num_pgs(), pgs, "status meanwhile: as before");
	for (n = 0; !a->done && n < 2000; n++)
		turn();
	cr_assert(a->done, "no answer within 2,000 turns");
	cr_assert_geq(n, turns, "a slice a turn");
	cr_assert_eq(a->rc, 0, "%s", a->status);
	cr_assert_eq(mon_pgmap_version(mon), v + 1);
	json_decref(a->data);
	memset(a, 0, sizeof *a);
}

static void
verify_problem(mapmon_unused void *arg, const char *problem)
{
	cr_log_error("verify: %s", problem);
}

/* The store as mapmon-store verify sees it: no problem, npgs PG records. */
static void
verify_store(uint64_t npgs)
{
	struct mon_verify_counts counts;
	struct store *s = open_store();

	memset(&counts, 0, sizeof counts);
	cr_assert_eq(mon_verify(s, verify_problem, NULL, &counts), 0);
	cr_assert_eq(counts.pgs, npgs);
	store_close(s);
}

Test(mon, large_pools_are_made_grown_and_removed_a_slice_at_a_time)
{
	const struct pgmap *pm;
	const struct pgmap_pool *pp;
	const struct pg_stat *st;
	struct answer a = { 0 };
	uint64_t sliced;
	uint32_t s, id, want;

	/* Enough OSDs for Ceph's max_pg_per_osd (250) at the largest. */
	make_osds(110);
	cr_assert_eq(pool_create("small", 100, 3), 0);
	settle();
	pm = mon_pgmap(mon);

	/* Made: the commit is applied over many turns, seen once whole. */
	sliced = mon->perf.sliced_applies;
	mon_pool_create(mon, "big", 4096, 3, 0, answer_cb, &a);
	applied_in_slices(&a, 100, 4096 / 1024 - 1);
	cr_assert_eq(mon->perf.sliced_applies, sliced + 1);
	cr_assert_eq(status_num_pgs(), 4196);
	id = osdmap_pool_by_name(mon_osdmap(mon), "big")->id;
	pp = pgmap_pool(pm, id);
	cr_assert_eq(pp->pg_num, 4096);
	for (s = 0; s < 4096; s++) {
		st = &pp->pgs[s];
		cr_assert(st->pgid.pool == id && st->pgid.seed == s, "PG %u.%x",
		    id, s);
		cr_assert(st->state == PG_STATE_CREATING && st->up_len == 3,
		    "PG %u.%x", id, s);
	}
	check_derived();

	/* Grown: what the PGs had stays, the new ones are creating. */
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 3);
	settle();
	mon_pool_set(mon, "big", "pg_num", 8192, answer_cb, &a);
	applied_in_slices(&a, 4196, 8192 / 1024 - 1);
	cr_assert_eq(status_num_pgs(), 8292);
	pp = pgmap_pool(pm, id);
	cr_assert_eq(pp->pg_num, 8192);
	for (s = 0; s < 8192; s++) {
		st = &pp->pgs[s];
		want = PG_STATE_CREATING;
		if (s < 4096)
			want = PG_STATE_ACTIVE | PG_STATE_CLEAN;
		cr_assert(st->pgid.seed == s && st->state == want, "PG %u.%x",
		    id, s);
	}
	cr_assert_eq(pm->sums.num_objects, 4196 * 3);
	check_derived();

	/* Removed: its figures go when the apply is whole. */
	mon_pool_delete(mon, "big", "big", 1, answer_cb, &a);
	applied_in_slices(&a, 8292, 8192 / 1024 - 1);
	cr_assert_eq(status_num_pgs(), 100);
	cr_assert_null(pgmap_pool(pm, id));
	cr_assert_eq(pm->sums.num_objects, 100 * 3);
	check_derived();

	/* The store and a restart agree. */
	close_mon();
	verify_store(100);
	open_mon();
	cr_assert_eq(status_num_pgs(), 100);
	cr_assert_null(osdmap_pool_by_name(mon_osdmap(mon), "big"));
	check_derived();
}

Test(mon, a_stop_by_a_deadline_leaves_a_commit_that_does_not_finish)
{
	struct answer a = { 0 }, b = { 0 };
	int64_t t0;

	make_osds(30);
	cr_assert_eq(pool_create("kept", 64, 3), 0);
	settle();
	/* The disk stops answering while a pool creation is in flight. */
	store_fault_hold(fault, 1);
	mon_pool_create(mon, "held", 2048, 3, 0, answer_cb, &a);
	mon_propose_now(mon);
	cr_assert_not_null(mon->inflight);
	mon_pool_create(mon, "pending", 64, 3, 0, answer_cb, &b);
	t0 = stamp_mono();
	cr_assert_eq(mon_stop(mon, t0 + 200000), -1);
	cr_assert_geq(stamp_mono() - t0, 200000, "waited until the deadline");
	cr_assert_lt(stamp_mono() - t0, 2000000, "and not much longer");
	cr_assert_not(a.done, "the commit in flight is not answered");
	cr_assert(b.done, "what is pending is refused");
	cr_assert_eq(b.rc, -ESHUTDOWN);
	/* The disk answers again: mon_free() waits for the commit. */
	store_fault_hold(fault, 0);
	close_mon();
	cr_assert(a.done);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
	open_mon();
	cr_assert_not_null(osdmap_pool_by_name(mon_osdmap(mon), "held"));
	cr_assert_null(osdmap_pool_by_name(mon_osdmap(mon), "pending"));
	cr_assert_eq(status_num_pgs(), 64 + 2048);
	check_derived();
	/* With time enough, a stop commits everything and returns 0. */
	memset(&a, 0, sizeof a);
	mon_pool_create(mon, "late", 32, 3, 0, answer_cb, &a);
	cr_assert_eq(mon_stop(mon, stamp_mono() + 10000000), 0);
	cr_assert(a.done);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
	close_mon();
	open_mon();
	cr_assert_not_null(osdmap_pool_by_name(mon_osdmap(mon), "late"));
}

/* The count of PGs in text. */
static size_t
text_pgs(const struct enc_buf *b, size_t from)
{
	const char *p = (const char *)b->data + from,
		   *end = (const char *)b->data + b->len;
	size_t n = 0;

	while ((p = memmem(p, (size_t)(end - p), "\"pgid\"", 6)) != NULL) {
		n++;
		p += 6;
	}
	return n;
}

Test(mon, a_listing_is_written_in_slices_each_pg_once)
{
	struct mon_pg_walk *w;
	struct answer del = { 0 };
	struct pg_text t;
	json_t *d, *v, *a;
	char *status = NULL, id[PG_ID_BUFSIZE], last[PG_ID_BUFSIZE] = "";
	size_t before, i, slices = 0;
	struct pg_id pid, prev = { 0, 0 };
	int first = 1;

	make_osds(4);
	limits_raise();
	cr_assert_eq(pool_create("a", 20000, 3), 0);
	cr_assert_eq(pool_create("b", 100, 3), 0);

	/* No PG is down: every slice looks, none writes, until the end. */
	cr_assert_eq(mon_pg_ls_walk(mon, NULL, (const char *[]){ "down" }, 1,
			 &w, &status),
	    0);
	pg_text_init(&t);
	while (mon_pg_walk_next(w, &t, &status) == 0)
		slices++;
	cr_assert_geq(slices, 20100 / MON_PG_WALK_LOOK,
	    "looked at more than "
	    "%d PGs in a slice",
	    MON_PG_WALK_LOOK);
	cr_assert_str_eq(status, "listed 0 pgs");
	cr_assert_eq(t.buf.len, strlen("{\"pg_stats\":[]}"));
	cr_assert(memcmp(t.buf.data, "{\"pg_stats\":[]}", t.buf.len) == 0);
	free(status);
	status = NULL;
	mon_pg_walk_free(w);
	pg_text_free(&t);

	/*
	 * Every PG: a slice writes MON_PG_WALK_PGS at most; meanwhile PGs
	 * change, pool b goes and pool c comes.
	 */
	cr_assert_eq(mon_pg_ls_walk(mon, NULL, NULL, 0, &w, &status), 0);
	pg_text_init(&t);
	cr_assert_eq(mon_pg_walk_next(w, &t, &status), 0);
	cr_assert_eq(text_pgs(&t.buf, 0), MON_PG_WALK_PGS);
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 3);
	mon_pool_delete(mon, "b", "b", 1, answer_cb, &del);
	wait_for(&del);
	cr_assert_eq(del.rc, 0, "%s", del.status);
	cr_assert_eq(pool_create("c", 10, 3), 0);
	for (;;) {
		before = t.buf.len;
		if (mon_pg_walk_next(w, &t, &status) == 1)
			break;
		cr_assert_leq(text_pgs(&t.buf, before), MON_PG_WALK_PGS);
	}
	mon_pg_walk_free(w);
	cr_assert_str_eq(status, "listed 20010 pgs");
	free(status);
	status = NULL;
	d = json_loadb((const char *)t.buf.data, t.buf.len, 0, NULL);
	cr_assert_not_null(d, "the listing is not JSON");
	pg_text_free(&t);
	a = json_object_get(d, "pg_stats");
	cr_assert_eq(json_array_size(a), 20010);
	json_array_foreach(a, i, v) {
		snprintf(id, sizeof id, "%s",
		    json_string_value(json_object_get(v, "pgid")));
		cr_assert_eq(pg_id_parse(id, &pid, NULL), 0);
		cr_assert(first || pg_id_cmp(prev, pid) < 0, "%s after %s", id,
		    last);
		cr_assert_neq(pid.pool, 2,
		    "a PG of the pool deleted before "
		    "its turn");
		/* Pool a's, as they were when their slice was written. */
		if (pid.pool == 1)
			cr_assert_str_eq(
			    json_string_value(json_object_get(v, "state")),
			    i < MON_PG_WALK_PGS ? "creating" : "active+clean",
			    "%s", id);
		prev = pid;
		snprintf(last, sizeof last, "%s", id);
		first = 0;
	}
	json_decref(d);

	/* The small parts of pg dump are whole at the first call. */
	cr_assert_eq(mon_pg_dump_walk(mon, "summary", &w, &status), 0);
	pg_text_init(&t);
	cr_assert_eq(mon_pg_walk_next(w, &t, &status), 1);
	cr_assert_str_eq(status, "dumped summary");
	free(status);
	mon_pg_walk_free(w);
	pg_text_free(&t);
	cr_assert_eq(mon_pg_dump_walk(mon, "bogus", &w, &status), -EINVAL);
	free(status);
}

Test(mon, a_failed_commit_changes_nothing_and_recovers)
{
	struct answer a = { 0 };
	json_t *h;
	uint32_t epoch;
	int i;

	make_osds(3);
	epoch = mon_osdmap(mon)->epoch;
	cr_assert_eq(store_fault_arm(fault, STORE_E_NOSPC, -1), 0);
	mon_pool_create(mon, "rbd", 32, 3, 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -ENOSPC, "writer gets ENOSPC: %d %s", a.rc,
	    a.status);
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch, "state unchanged");
	cr_assert_null(osdmap_pool_by_name(mon_osdmap(mon), "rbd"));
	cr_assert_eq(mon_pgmap(mon)->sums.num_pgs, 0);
	h = mon_health_json(mon, 1);
	cr_assert_not_null(json_object_get(json_object_get(h, "checks"),
	    "STORE_ERROR"));
	cr_assert_str_eq(json_string_value(json_object_get(h, "status")),
	    "HEALTH_ERR");
	json_decref(h);
	/* Reads go on working. */
	h = mon_status_json(mon);
	cr_assert_not_null(h);
	json_decref(h);

	/* EIO too. */
	cr_assert_eq(store_fault_arm(fault, STORE_E_IO, -1), 0);
	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "noout", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EIO);

	/* The fault clears: the monitor's own retry succeeds. */
	cr_assert_eq(store_fault_arm(fault, STORE_E_IO, 0), 0);
	for (i = 0; i < 1000; i++) {
		turn();
		h = mon_health_json(mon, 0);
		if (json_object_get(json_object_get(h, "checks"),
		    "STORE_ERROR") == NULL) {
			json_decref(h);
			break;
		}
		json_decref(h);
	}
	cr_assert_lt(i, 1000, "STORE_ERROR cleared after the fault");
	cr_assert_eq(pool_create("rbd", 32, 3), 0);
	cr_assert_eq(mon_pgmap(mon)->sums.num_pgs, 32);
	check_derived();
}

/* Count the records of one prefix. */
static size_t
count_prefix(uint8_t prefix)
{
	struct store_iter *it;
	const void *k, *v;
	size_t kl, vl, n = 0;
	uint8_t lo = prefix, hi = (uint8_t)(prefix + 1);

	it = store_iter_new(mon_store(mon), &lo, 1, &hi, 1, NULL);
	cr_assert_not_null(it);
	while (store_iter_next(it, &k, &kl, &v, &vl) == 1)
		n++;
	store_iter_free(it);
	return n;
}

Test(mon, trimming_keeps_exactly_min_epochs)
{
	struct answer a;
	int i;

	params.min_epochs = 10;
	mon_set_params(mon, &params);
	make_osds(1);
	cr_assert_eq(pool_create("p", 4, 1), 0);
	for (i = 0; i < 150; i++) {
		memset(&a, 0, sizeof a);
		mon_osd_set_flag(mon, "noout", i % 2 == 0, answer_cb, &a);
		wait_for(&a);
		cr_assert_eq(a.rc, 0);
		if (i % 3 == 0)
			report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, (uint64_t)i);
	}
	settle();
	cr_assert_eq(count_prefix(KEYS_OSDMAP), 10);
	cr_assert_eq(count_prefix(KEYS_OSDMAP_INC), 10);
	cr_assert_leq(count_prefix(KEYS_PGINC), 10);
	/* And what remains is the newest, contiguous. */
	close_mon();
	open_mon();
	cr_assert_eq(mon_osdmap(mon)->epoch, 2 + 2 + 150);
}

/*
 * 140,000 PGs: more than two KEYS_PGINC_CHUNK chunks of a pgmap
 * incremental, and a PG range well over 1 MiB, in one commit.  (No
 * per-test .timeout: Criterion 2.4 leaks 48 bytes for one, which
 * LeakSanitizer reports.)
 */
Test(mon, no_store_value_is_over_one_mib)
{
	size_t put = 0, read = 0;

	make_osds(16);
	limits_raise();
	cr_assert_eq(pool_create("big", 140000, 3), 0);
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 3);
	settle();
	cr_assert_eq(store_fault_max_value_sizes(fault, &put, &read), 0);
	cr_assert_gt(put, 0);
	cr_assert_leq(put, KEYS_VALUE_MAX, "largest value written %zu", put);
	close_mon();
	open_mon();
	cr_assert_eq(store_fault_max_value_sizes(fault, &put, &read), 0);
	cr_assert_gt(read, 0);
	cr_assert_leq(read, KEYS_VALUE_MAX, "largest value read %zu", read);
	cr_assert_eq(mon_pgmap(mon)->sums.num_pgs, 140000);
	check_derived();
}

/*
 * Property test: 10,000 random operations; after each settle the derived
 * figures equal a recount and health matches the state.
 */
static unsigned
rnd(unsigned *seed, unsigned n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 8) % n;
}

Test(mon, random_operations_keep_figures_equal_to_a_recount)
{
	struct answer a;
	unsigned seed = 42, op, i;
	char name[16];
	int32_t id;
	json_t *h;

	make_osds(8);
	for (i = 0; i < 10000; i++) {
		memset(&a, 0, sizeof a);
		op = rnd(&seed, 10);
		id = (int32_t)rnd(&seed, 10);
		snprintf(name, sizeof name, "p%u", rnd(&seed, 6));
		switch (op) {
		case 0:
			mon_osd_down(mon, &id, 1, answer_cb, &a);
			break;
		case 1:
			mon_osd_boot(mon, id, "127.0.0.1:1", answer_cb, &a);
			break;
		case 2:
			mon_pool_create(mon, name, 1 + rnd(&seed, 64), 1 +
			    rnd(&seed, 3), 0, answer_cb, &a);
			break;
		case 3:
			mon_pool_delete(mon, name, name, 1, answer_cb, &a);
			break;
		case 4:
			mon_pool_set(mon, name, "pg_num", 1 + rnd(&seed, 96),
			    answer_cb, &a);
			break;
		case 5:
			mon_osd_out(mon, &id, 1, answer_cb, &a);
			break;
		case 6:
			mon_osd_in(mon, &id, 1, answer_cb, &a);
			break;
		default:
			a.done = 1;
			report_all(rnd(&seed, 2) ? PG_STATE_ACTIVE |
			    PG_STATE_CLEAN : PG_STATE_ACTIVE |
			    PG_STATE_DEGRADED, rnd(&seed, 1000));
			break;
		}
		wait_for(&a);
		json_decref(a.data);
		if (i % 500 == 0) {
			settle();
			check_derived();
		}
	}
	settle();
	check_derived();
	/* Health agrees with the state it describes. */
	h = mon_health_json(mon, 0);
	{
		unsigned down = 0;
		uint32_t k;
		const struct osdmap *om = mon_osdmap(mon);

		for (k = 0; k < om->max_osd; k++)
			down += om->osds[k].exists && !om->osds[k].up &&
			    om->osds[k].in;
		cr_assert_eq(json_object_get(json_object_get(h, "checks"),
		    "OSD_DOWN") != NULL, down > 0);
	}
	json_decref(h);
}

/* One change to the closed store: a put of val, or a delete (val NULL). */
static void
store_change(const uint8_t *key, size_t klen, const void *val, size_t vlen)
{
	struct store_batch *b;
	struct store *s = open_store();
	char *cause = NULL;

	b = store_batch_new();
	if (val != NULL)
		store_batch_put(b, key, klen, val, vlen);
	else
		store_batch_delete(b, key, klen);
	cr_assert_eq(store_commit(s, b, &cause), 0, "%s", cause);
	store_batch_free(b);
	store_close(s);
}

/*
 * A cold start of the store, which must be refused with a cause naming
 * want (a record's escaped key, or a PG).
 */
static void
cold_start_refused(const char *want, const char *why)
{
	struct store *s = open_store();
	struct mon *m;
	char *cause = NULL;

	m = mon_open(base, s, &params, NULL, NULL, &cause);
	cr_assert_null(m, "a cold start took a store with %s", why);
	cr_assert(cause != NULL && strstr(cause, want) != NULL,
	    "%s: the cause '%s' does not name '%s'", why, cause, want);
	free(cause);
	store_close(s);
}

/* Each kind of bad PG record stops the cold start, naming it. */
Test(mon, cold_start_refuses_a_bad_pg_record)
{
	uint8_t key[KEYS_PG_LEN], other[KEYS_PG_LEN];
	struct enc_buf good = { 0 }, bad = { 0 };
	struct pg_stat st;
	char *k;

	make_osds(3);
	cr_assert_eq(pool_create("rbd", 16, 3), 0);
	settle();
	st = *pgmap_pg(mon_pgmap(mon), (struct pg_id){ 1, 5 });
	pg_stat_encode(&st, &good);
	close_mon();
	keys_pg(key, 1, 5);
	k = store_key_escape(key, sizeof key);

	store_change(key, sizeof key, "spoilt", 6);
	cold_start_refused(k, "a record that does not decode");

	st.pgid.seed = 9;
	pg_stat_encode(&st, &bad);
	store_change(key, sizeof key, bad.data, bad.len);
	cold_start_refused(k, "a record whose body is another PG's");

	store_change(key, sizeof key, NULL, 0);
	cold_start_refused("PG 1.5 of pool 'rbd' has no record",
	    "a PG record missing");

	/* Put right, it opens again; then a PG of a pool nobody made. */
	store_change(key, sizeof key, good.data, good.len);
	open_mon();
	close_mon();
	keys_pg(other, 7, 0);
	st.pgid = (struct pg_id){ 7, 0 };
	enc_buf_reset(&bad);
	pg_stat_encode(&st, &bad);
	store_change(other, sizeof other, bad.data, bad.len);
	free(k);
	k = store_key_escape(other, sizeof other);
	cold_start_refused(k, "a PG record of no pool");
	free(k);
	enc_buf_free(&good);
	enc_buf_free(&bad);
}

/* ---- authentication entities ---- */

/* An auth command of the core, waited for; its answer (data the caller's). */
enum auth_op { AUTH_ADD, AUTH_GOC, AUTH_CAPS, AUTH_RM, AUTH_ROTATE };

static struct answer
auth_do(enum auth_op op, const char *name, const char *const *caps,
    size_t ncaps)
{
	struct answer a;

	memset(&a, 0, sizeof a);
	switch (op) {
	case AUTH_ADD:
		mon_auth_add(mon, name, caps, ncaps, NULL, answer_cb, &a);
		break;
	case AUTH_GOC:
		mon_auth_get_or_create(mon, name, caps, ncaps, answer_cb, &a);
		break;
	case AUTH_CAPS:
		mon_auth_caps(mon, name, caps, ncaps, answer_cb, &a);
		break;
	case AUTH_RM:
		mon_auth_rm(mon, name, answer_cb, &a);
		break;
	case AUTH_ROTATE:
		mon_auth_rotate(mon, name, answer_cb, &a);
		break;
	}
	wait_for(&a);
	return a;
}

/* The "key" of the first entity of a keyring answer. */
static const char *
keyring_key(const json_t *data)
{
	return json_string_value(
	    json_object_get(json_array_get(data, 0), "key"));
}

Test(mon, mkfs_makes_the_admin_and_mon_entities)
{
	struct store_options so;
	const struct mon_auth_entity *e;
	uint8_t key[MON_AUTH_KEY_LEN];
	char dir[] = "/tmp/test_mon.XXXXXX", *cause = NULL, cmd[128];
	size_t i;

	/* The fixture's store: random admin key, both entities. */
	cr_assert_eq(mon_auth_count(mon), 2);
	cr_expect_str_eq(mon_auth_at(mon, 0)->name, "mon.");
	cr_expect_str_eq(mon_auth_at(mon, 1)->name, "client.admin");
	e = mon_auth_find(mon, "client.admin");
	cr_assert_not_null(e);
	cr_expect_eq(e->allow, MON_CAP_R | MON_CAP_W | MON_CAP_X);
	cr_expect_eq(e->ncaps, 1);
	cr_expect_str_eq(e->caps[0].service, "mon");
	cr_expect_str_eq(e->caps[0].cap, "allow *");
	cr_expect_eq(e->osd, -1);

	/* A given admin key is the one kept. */
	cr_assert_not_null(mkdtemp(dir));
	for (i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)(i * 7);
	store_options_defaults(&so);
	so.backend = TEST_BACKEND;
	so.sync = STORE_SYNC_NONE;
	cr_assert_eq(
	    mon_mkfs_auth(dir, &so, "a", "127.0.0.1:6788", key, NULL, &cause),
	    0, "%s", cause);
	close_mon();
	/* The fixture removes tmpdir: swap, and remove the first here. */
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	(void)!system(cmd);
	memcpy(tmpdir, dir, sizeof tmpdir);
	open_mon();
	e = mon_auth_find(mon, "client.admin");
	cr_assert_not_null(e);
	cr_expect_eq(memcmp(e->key, key, sizeof key), 0);
	cr_expect_not_null(mon_auth_find(mon, "mon."));
}

Test(mon, auth_changes_are_committed_and_survive_a_restart)
{
	static const char *const r[] = { "mon", "allow r" };
	static const char *const rw[] = { "mon", "allow rw" };
	static const char *const osd[] = { "osd", "allow *", "mon",
		"allow profile osd" };
	const struct mon_auth_entity *e;
	struct mon_verify_counts counts;
	struct answer a;
	char *key3 = NULL, *key3b = NULL;
	uint8_t k[MON_AUTH_KEY_LEN];

	a = auth_do(AUTH_ADD, "client.foo", r, 2);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_expect_str_eq(a.status, "added key for client.foo");
	e = mon_auth_find(mon, "client.foo");
	cr_assert_not_null(e);
	cr_expect_eq(e->allow, MON_CAP_R);

	a = auth_do(AUTH_GOC, "osd.3", osd, 4);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert(json_is_array(a.data) && json_array_size(a.data) == 1);
	cr_expect_str_eq(json_string_value(json_object_get(
			     json_array_get(a.data, 0), "entity")),
	    "osd.3");
	/* Caps in service order, as Ceph's map keeps them. */
	cr_expect_str_eq(
	    json_string_value(json_object_get(
		json_object_get(json_array_get(a.data, 0), "caps"), "mon")),
	    "allow profile osd");
	key3 = xstrdup(keyring_key(a.data));
	cr_expect_eq(strlen(key3), 44);
	json_decref(a.data);
	e = mon_auth_find(mon, "osd.3");
	cr_assert_not_null(e);
	cr_expect_eq(e->allow, MON_CAP_R | MON_CAP_OSD);
	cr_expect_eq(e->osd, 3);
	cr_expect_str_eq(e->caps[0].service, "mon");
	cr_expect_str_eq(e->caps[1].service, "osd");
	memcpy(k, e->key, sizeof k);

	/* Again: the same key, no change. */
	a = auth_do(AUTH_GOC, "osd.3", osd + 2, 2);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_expect_str_eq(keyring_key(a.data), key3);
	json_decref(a.data);

	a = auth_do(AUTH_ROTATE, "osd.3", NULL, 0);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_expect_str_eq(a.status, "rotated key for osd.3");
	key3b = xstrdup(keyring_key(a.data));
	cr_expect_str_neq(key3b, key3);
	json_decref(a.data);
	cr_expect_neq(memcmp(mon_auth_find(mon, "osd.3")->key, k, sizeof k), 0);

	a = auth_do(AUTH_CAPS, "client.foo", rw, 2);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_expect_str_eq(a.status, "updated caps for client.foo");
	cr_expect_eq(mon_auth_find(mon, "client.foo")->allow,
	    MON_CAP_R | MON_CAP_W);

	a = auth_do(AUTH_ADD, "client.gone", r, 2);
	cr_assert_eq(a.rc, 0);
	a = auth_do(AUTH_RM, "client.gone", NULL, 0);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_expect_str_eq(a.status, "updated");
	cr_expect_null(mon_auth_find(mon, "client.gone"));
	a = auth_do(AUTH_RM, "client.gone", NULL, 0);
	cr_expect_eq(a.rc, 0);
	cr_expect_str_eq(a.status, "entity client.gone does not exist");

	/* What was committed is what a restart loads. */
	close_mon();
	open_mon();
	cr_assert_eq(mon_auth_count(mon), 4);
	cr_expect_str_eq(mon_auth_at(mon, 0)->name, "mon.");
	cr_expect_str_eq(mon_auth_at(mon, 1)->name, "osd.3");
	cr_expect_str_eq(mon_auth_at(mon, 2)->name, "client.admin");
	cr_expect_str_eq(mon_auth_at(mon, 3)->name, "client.foo");
	e = mon_auth_find(mon, "osd.3");
	cr_assert_not_null(e);
	cr_expect_eq(e->allow, MON_CAP_R | MON_CAP_OSD);
	cr_expect_eq(e->osd, 3);
	a.data = NULL;
	cr_assert_eq(mon_auth_get_json(mon, "osd.3", &a.data, &key3), 0);
	free(key3);
	cr_expect_str_eq(keyring_key(a.data), key3b);
	json_decref(a.data);
	cr_expect_eq(mon_auth_find(mon, "client.foo")->allow,
	    MON_CAP_R | MON_CAP_W);
	cr_expect_null(mon_auth_find(mon, "client.gone"));
	cr_expect_eq(mon_verify(mon_store(mon), verify_problem, NULL, &counts),
	    0);
	cr_expect_eq(counts.auth_entities, 4);
	free(key3b);
}

Test(mon, auth_refusals_say_why_as_ceph_does)
{
	static const char *const r[] = { "mon", "allow r" };
	static const char *const w[] = { "mon", "allow w" };
	static const char *const odd[] = { "mon" };
	static const char *const badcap[] = { "mon", "allow q" };
	static const char *const badtype[] = { "rgw", "allow *" };
	static const char *const two[] = { "mon", "allow r", "osd", "allow" };
	struct answer a;
	json_t *out = NULL;
	char *status = NULL;

	a = auth_do(AUTH_ADD, "bob", r, 2);
	cr_expect_eq(a.rc, -EINVAL);
	cr_expect(strstr(a.status, "bad entity name 'bob'") != NULL, "%s",
	    a.status);
	a = auth_do(AUTH_ADD, "osd.01", r, 2);
	cr_expect_eq(a.rc, -EINVAL);
	a = auth_do(AUTH_ADD, "osd.70000", r, 2);
	cr_expect_eq(a.rc, -EINVAL);
	a = auth_do(AUTH_ADD, "client.a b", r, 2);
	cr_expect_eq(a.rc, -EINVAL);
	a = auth_do(AUTH_ADD, "client.x", odd, 1);
	cr_expect_eq(a.rc, -EINVAL);
	cr_expect_str_eq(a.status,
	    "bad capabilities request; odd number of "
	    "arguments");
	a = auth_do(AUTH_ADD, "client.x", badcap, 2);
	cr_expect_eq(a.rc, -EINVAL);
	cr_expect(strstr(a.status, "'q' is not one of r, w, x") != NULL, "%s",
	    a.status);
	a = auth_do(AUTH_ADD, "client.x", badtype, 2);
	cr_expect_eq(a.rc, -EINVAL);
	cr_expect_str_eq(a.status, "unknown cap type 'rgw'");
	cr_expect_null(mon_auth_find(mon, "client.x"));

	cr_assert_eq(auth_do(AUTH_ADD, "client.x", r, 2).rc, 0);
	a = auth_do(AUTH_ADD, "client.x", r, 2);
	cr_expect_eq(a.rc, 0, "the same again is no change");
	a = auth_do(AUTH_ADD, "client.x", w, 2);
	cr_expect_eq(a.rc, -EINVAL);
	cr_expect_str_eq(a.status,
	    "entity client.x exists but cap mon does "
	    "not match");
	a = auth_do(AUTH_ADD, "client.x", two, 4);
	cr_expect_eq(a.rc, -EINVAL);
	cr_expect_str_eq(a.status,
	    "entity client.x exists but caps do not "
	    "match");
	a = auth_do(AUTH_GOC, "client.x", w, 2);
	cr_expect_eq(a.rc, -EINVAL);
	cr_expect_str_eq(a.status,
	    "key for client.x exists but cap mon does "
	    "not match");
	a = auth_do(AUTH_CAPS, "client.nobody", r, 2);
	cr_expect_eq(a.rc, -ENOENT);
	cr_expect_str_eq(a.status, "couldn't find entry client.nobody");
	a = auth_do(AUTH_ROTATE, "client.nobody", NULL, 0);
	cr_expect_eq(a.rc, -ENOENT);

	cr_expect_eq(mon_auth_get_json(mon, "client.nobody", &out, &status),
	    -ENOENT);
	cr_expect_str_eq(status, "failed to find client.nobody in keyring");
	free(status);
	cr_expect_eq(mon_auth_get_key_json(mon, "client.nobody", &out, &status),
	    -ENOENT);
	cr_expect_str_eq(status, "don't have client.nobody");
	free(status);
	cr_assert_eq(mon_auth_get_key_json(mon, "client.x", &out, &status), 0);
	cr_expect_eq(strlen(json_string_value(json_object_get(out, "key"))),
	    44);
	json_decref(out);
	free(status);
	out = mon_auth_ls_json(mon);
	cr_expect_eq(json_array_size(json_object_get(out, "auth_dump")), 3);
	json_decref(out);
}

Test(mon, auth_pending_entities_are_seen_by_the_next_writes)
{
	static const char *const p[] = { "mon", "allow profile osd" };
	struct answer a, b;

	/* Both in one proposal: the second sees the first's key. */
	params.propose_interval_ms = 200;
	mon_set_params(mon, &params);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	mon_auth_get_or_create(mon, "osd.1", p, 2, answer_cb, &a);
	mon_auth_get_or_create(mon, "osd.1", p, 2, answer_cb, &b);
	cr_expect_null(mon_auth_find(mon, "osd.1"), "not committed yet");
	wait_for(&a);
	wait_for(&b);
	cr_assert_eq(a.rc, 0);
	cr_assert_eq(b.rc, 0);
	cr_expect_str_eq(keyring_key(a.data), keyring_key(b.data));
	json_decref(a.data);
	json_decref(b.data);
	cr_expect_not_null(mon_auth_find(mon, "osd.1"));
}

Test(mon, auth_caps_grammar)
{
	static const struct {
		const char *service, *cap;
		int ok;
		unsigned allow;
	} v[] = {
		{ "mon", "allow r", 1, MON_CAP_R },
		{ "mon", "allow rw", 1, MON_CAP_R | MON_CAP_W },
		{ "mon", "allow rwx", 1, MON_CAP_R | MON_CAP_W | MON_CAP_X },
		{ "mon", "allow *", 1, MON_CAP_R | MON_CAP_W | MON_CAP_X },
		{ "mon", "allow*", 1, MON_CAP_R | MON_CAP_W | MON_CAP_X },
		{ "mon", "allow profile osd", 1, MON_CAP_R | MON_CAP_OSD },
		{ "mon", "allow r, allow w", 1, MON_CAP_R | MON_CAP_W },
		{ "mon", "allow r; allow profile osd", 1,
		    MON_CAP_R | MON_CAP_OSD },
		{ "mon", "", 1, 0 },
		{ "mon", "allow", 0, 0 },
		{ "mon", "deny r", 0, 0 },
		{ "mon", "allow profile mds", 0, 0 },
		{ "mon", "allow command status", 0, 0 },
		{ "mon", "allowr", 0, 0 },
		{ "osd", "allow *", 1, 0 },
		{ "mgr", "allow profile osd", 1, 0 },
		{ "osd", "rw", 0, 0 },
		{ "rgw", "allow", 0, 0 },
	};
	unsigned allow;
	char *cause = NULL;
	size_t i;
	int rc;

	for (i = 0; i < nitems(v); i++) {
		rc = mon_auth_cap_parse(v[i].service, v[i].cap, &allow, &cause);
		cr_expect_eq(rc == 0, v[i].ok, "%s '%s': %s", v[i].service,
		    v[i].cap, rc ? cause : "accepted");
		if (rc == 0)
			cr_expect_eq(allow, v[i].allow, "%s '%s': %#x",
			    v[i].service, v[i].cap, allow);
		free(cause);
		cause = NULL;
	}
	cr_expect_eq(mon_auth_name_check("mon.", &cause), 0);
	cr_expect_eq(mon_auth_name_check("osd.0", &cause), 0);
	cr_expect_eq(mon_auth_name_check("osd.65535", &cause), 0);
	cr_expect_eq(mon_auth_name_check("client.rgw.host-1_a@b", &cause), 0);
	cr_expect_eq(mon_auth_name_check("client.", &cause), -1);
	free(cause);
	cr_expect_eq(mon_auth_name_check("mon.a", &cause), -1);
	free(cause);
	cr_expect_eq(mon_auth_name_check("osd.-1", &cause), -1);
	free(cause);
}
