/*
 * test_fault_mapfull.c: the monitor on an LMDB store whose map is full and
 * may not grow (RELIABILITY.md; store_options.lmdb.grow = 0).
 *
 * The monitor core runs on a 4 MiB map with growth off; one OSD reports
 * every PG of a pool, again and again, until a commit no longer fits.
 * Then: the writer gets ENOSPC, health has STORE_ERROR, status and reads
 * answer from the last acknowledged state, the next report is refused too.
 * "Space returns" when growth is turned back on (store_lmdb_set_grow): the
 * monitor's own retry then clears STORE_ERROR with no command, reports are
 * accepted, and after a clean stop the store verifies and holds the last
 * acknowledged report.  (A filesystem that fills up is fault_enospc.sh;
 * errors injected by the store wrapper are in test_mon.c.)
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "mon/mon.h"
#include "mon/mon_verify.h"
#include "store/store_test.h"

#define FAULT_MAP_SIZE (4 << 20)
#define FAULT_PG_NUM 1024
#define FAULT_MAX_REPORTS 400

static char tmpdir[] = "/tmp/fault_mapfull.XXXXXX";
static struct event_base *base;
static struct mon *mon;
static struct mon_params params;

struct answer {
	int done;
	int rc;
	char status[512];
};

static void
answer_cb(void *arg, int rc, const char *status, json_t *data)
{
	struct answer *a = arg;

	a->done = 1;
	a->rc = rc;
	snprintf(a->status, sizeof a->status, "%s", status ? status : "");
	json_decref(data);
}

static void
turn(void)
{
	struct timeval tv = { 0, 10000 };

	event_base_loopexit(base, &tv);
	event_base_loop(base, EVLOOP_ONCE);
}

/* Run the loop until a is answered, or 20 s. */
static void
wait_for(struct answer *a)
{
	int i;

	for (i = 0; !a->done && i < 2000; i++)
		turn();
	cr_assert(a->done, "no answer within 20 s");
}

static void
options(struct store_options *so, int grow)
{
	store_options_defaults(so);
	so->backend = "lmdb";
	so->sync = STORE_SYNC_NONE;
	so->lmdb.map_size = FAULT_MAP_SIZE;
	so->lmdb.grow = grow;
}

static struct store *
open_store(int grow)
{
	struct store_options so;
	struct store *s;
	char *path, *cause = NULL;
	int rc;

	options(&so, grow);
	path = mon_store_path(tmpdir);
	rc = store_open(path, &so, 0, &s, &cause);
	free(path);
	cr_assert_eq(rc, 0, "store_open: %s", cause ? cause : "?");
	return s;
}

static void
open_mon(int grow)
{
	char *cause = NULL;

	mon = mon_open(base, open_store(grow), &params, NULL, NULL, &cause);
	cr_assert_not_null(mon, "mon_open: %s", cause ? cause : "?");
}

static void
setup(void)
{
	struct store_options so;
	char *cause = NULL, *fsid = NULL;

	log_init("fault_mapfull", 1000);
	cr_assert_not_null(mkdtemp(tmpdir));
	base = event_base_new();
	mon_params_defaults(&params);
	params.propose_interval_ms = 1;
	/* FAULT_PG_NUM PGs on one OSD: past 250 per OSD, raised. */
	params.max_pg_per_osd = FAULT_PG_NUM;
	options(&so, 0);
	cr_assert_eq(mon_mkfs(tmpdir, &so, "a", "127.0.0.1:6788", &fsid,
	    &cause), 0, "mkfs: %s", cause ? cause : "?");
	free(fsid);
}

static void
teardown(void)
{
	char cmd[128];

	if (mon != NULL)
		mon_free(mon);
	mon = NULL;
	event_base_free(base);
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	(void)!system(cmd);
}

TestSuite(fault, .init = setup, .fini = teardown, .timeout = 300);

/* osd.0 up, and pool "fill" of FAULT_PG_NUM PGs of size 1. */
static void
make_cluster(void)
{
	struct answer a = { 0 };

	mon_osd_create(mon, 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "osd create: %s", a.status);
	memset(&a, 0, sizeof a);
	mon_osd_boot(mon, 0, "127.0.0.1:6800", answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "osd boot: %s", a.status);
	memset(&a, 0, sizeof a);
	mon_pool_create(mon, "fill", FAULT_PG_NUM, 0, 1, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "pool create: %s", a.status);
}

/* One report of every PG of pool 1 with reported_seq seq; its rc. */
static int
report(uint64_t seq)
{
	struct pg_stat *pgs;
	struct pg_id id;
	struct answer a = { 0 };
	uint32_t i;

	pgs = xcalloc(FAULT_PG_NUM, sizeof *pgs);
	for (i = 0; i < FAULT_PG_NUM; i++) {
		id.pool = 1;
		id.seed = i;
		pg_stat_init(&pgs[i], id);
		pgs[i].state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
		pgs[i].reported_epoch = mon_osdmap(mon)->epoch;
		pgs[i].reported_seq = seq;
		pgs[i].version_epoch = mon_osdmap(mon)->epoch;
		pgs[i].version_v = seq;
		pgs[i].up_len = pgs[i].acting_len = 1;
		pgs[i].up_primary = pgs[i].acting_primary = 0;
		pgs[i].num_objects = (int64_t)(seq + i);
		pgs[i].num_bytes = (int64_t)(seq * 4096 + i);
	}
	mon_pg_report(mon, 0, pgs, FAULT_PG_NUM, answer_cb, &a);
	free(pgs);
	wait_for(&a);
	return a.rc;
}

/* The committed reported_seq of PG 1.x. */
static int64_t
reported_seq(const char *pgid)
{
	json_t *out = NULL;
	char *status = NULL;
	int64_t seq;

	cr_assert_eq(mon_pg_query_json(mon, pgid, &out, &status), 0, "%s",
	    status ? status : "?");
	seq = json_integer_value(json_object_get(out, "reported_seq"));
	json_decref(out);
	free(status);
	return seq;
}

static int
has_store_error(void)
{
	json_t *h = mon_health_json(mon, 1);
	int yes;

	cr_assert_not_null(h);
	yes = json_object_get(json_object_get(h, "checks"), "STORE_ERROR") !=
	    NULL;
	json_decref(h);
	return yes;
}

static void
verify_problem(void *arg, const char *problem)
{
	(void)arg;
	cr_log_error("verify: %s", problem);
}

Test(fault, lmdb_map_full_without_growth)
{
	struct store_stats st;
	struct mon_verify_counts counts;
	struct store *s;
	json_t *j;
	uint64_t seq, last = 0;
	int rc = 0, i;
	char *cause = NULL;

	open_mon(0);
	make_cluster();
	for (seq = 1; seq <= FAULT_MAX_REPORTS; seq++) {
		if ((rc = report(seq)) != 0)
			break;
		last = seq;
	}
	cr_assert_eq(rc, -ENOSPC, "after %llu reports: rc %d, not ENOSPC",
	    (unsigned long long)last, rc);
	cr_assert_gt(last, 0, "not one report fitted the map");
	cr_log_info("%llu reports fitted a %d MiB map",
	    (unsigned long long)last, FAULT_MAP_SIZE >> 20);

	/* Refused, but everything reads. */
	cr_assert(has_store_error(), "no STORE_ERROR in health");
	j = mon_status_json(mon);
	cr_assert_not_null(j);
	json_decref(j);
	cr_assert_eq(reported_seq("1.0"), (int64_t)last);
	cr_assert_eq(reported_seq("1.3ff"), (int64_t)last);
	cr_assert_eq(report(last + 100), -ENOSPC);
	cr_assert_eq(store_stat(mon_store(mon), &st, &cause), 0, "%s", cause);
	cr_assert_eq(st.map_grown, 0);
	cr_assert_leq(st.map_size, FAULT_MAP_SIZE);
	store_stats_free(&st);

	/* Space returns: the monitor's own retry clears the error. */
	cr_assert_eq(store_lmdb_set_grow(mon_store(mon), 1), 0);
	for (i = 0; has_store_error() && i < 1500; i++)
		turn();
	cr_assert(!has_store_error(), "STORE_ERROR stays after growth is "
	    "back on");
	/* As many reports again as filled the map: it has to grow. */
	for (seq = last + 200; seq < 2 * last + 200; seq++)
		cr_assert_eq(report(seq), 0, "report %llu after recovery",
		    (unsigned long long)seq);
	last = seq - 1;
	cr_assert_eq(reported_seq("1.0"), (int64_t)last);
	cr_assert_eq(store_stat(mon_store(mon), &st, &cause), 0, "%s", cause);
	cr_assert_gt(st.map_grown, 0, "the map did not grow");
	store_stats_free(&st);

	/* Nothing half-applied, and the last acknowledged report stays. */
	mon_free(mon);
	mon = NULL;
	s = open_store(0);
	cr_assert_eq(mon_verify(s, verify_problem, NULL, &counts), 0,
	    "%llu problems", (unsigned long long)counts.problems);
	cr_assert_eq(counts.pgs, FAULT_PG_NUM);
	store_close(s);
	open_mon(0);
	cr_assert_eq(reported_seq("1.0"), (int64_t)last);
}

/* The same load with growth on (the default) never fails: the map grows. */
Test(fault, lmdb_map_grows_when_allowed)
{
	struct store_stats st;
	uint64_t seq;
	char *cause = NULL;
	int grown = 0;

	open_mon(1);
	make_cluster();
	for (seq = 1; seq <= FAULT_MAX_REPORTS && !grown; seq++) {
		cr_assert_eq(report(seq), 0, "report %llu",
		    (unsigned long long)seq);
		cr_assert_eq(store_stat(mon_store(mon), &st, &cause), 0, "%s",
		    cause);
		grown = st.map_grown > 0;
		store_stats_free(&st);
	}
	cr_assert(grown, "the map never grew in %d reports",
	    FAULT_MAX_REPORTS);
	cr_assert(!has_store_error());
}

Test(fault, set_grow_refuses_a_store_that_is_not_lmdb)
{
	struct store *s = store_fault_wrap(open_store(0));

	cr_assert_eq(store_lmdb_set_grow(s, 1), STORE_E_INVAL);
	cr_assert_eq(store_lmdb_set_grow(NULL, 1), STORE_E_INVAL);
	store_close(s);
}
