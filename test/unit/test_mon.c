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
#include <math.h>
#include <pthread.h>
#include <sched.h>
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
	/* The host's free space is not the test's: no MON_DISK_LOW. */
	params.data_avail_warn = 1;
	params.data_avail_crit = 0;
	/* Pools are deleted in many cases; the refusal has its own. */
	params.allow_pool_delete = 1;
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

	mon_pool_create(mon, name, pg_num, 0, size, NULL, answer_cb, &a);
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

/* A thread's policy when started, and after mon_thread_normal(). */
struct thread_policy {
	int started, after;
};

static void *
thread_policy_main(void *arg)
{
	struct thread_policy *p = arg;

	p->started = sched_getscheduler(0);
	mon_thread_normal("test");
	p->after = sched_getscheduler(0);
	return NULL;
}

Test(mon, a_thread_of_a_realtime_loop_goes_back_to_normal_priority)
{
	struct sched_param sp;
	struct thread_policy p;
	pthread_t t;

	memset(&sp, 0, sizeof sp);
	sp.sched_priority = 1;
	if (sched_setscheduler(0, SCHED_RR, &sp) == -1)
		cr_skip_test("SCHED_RR: %s (mapmond falls back the same way)",
		    strerror(errno));
	cr_assert_eq(pthread_create(&t, NULL, thread_policy_main, &p), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_eq(p.started, SCHED_RR,
	    "a thread inherits the loop's policy");
	cr_assert_eq(p.after, SCHED_OTHER);
	cr_assert_eq(sched_getscheduler(0), SCHED_RR, "the loop keeps its own");
	sp.sched_priority = 0;
	cr_assert_eq(sched_setscheduler(0, SCHED_OTHER, &sp), 0);
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

		id = 1;
		mon_osd_rm(mon, &id, 1, answer_cb, &a);
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

	{
		int32_t id = 1;

		mon_osd_rm(mon, &id, 1, answer_cb, &a);
	}
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

/* ---- liveness: failure reports, mark-me-down, beacon timeout ---- */

/* Run the loop for ms milliseconds. */
static void
run_for(int64_t ms)
{
	int64_t end = stamp_mono() + ms * 1000;

	while (stamp_mono() < end)
		turn();
}

/* A failure report; it is answered at once.  Its rc (a has the rest). */
static int
failure(int32_t target, int32_t reporter, double failed_for, int cancel,
    struct answer *a)
{
	memset(a, 0, sizeof *a);
	mon_osd_failure(mon, target, reporter, failed_for, cancel, answer_cb,
	    a);
	cr_assert(a->done, "a failure report is answered at once");
	return a->rc;
}

static json_int_t
data_int(const struct answer *a, const char *key)
{
	json_t *v = json_object_get(a->data, key);

	cr_assert(json_is_integer(v), "no %s in the answer (%s)", key,
	    a->status);
	return json_integer_value(v);
}

static int
data_true(const struct answer *a, const char *key)
{
	return json_is_true(json_object_get(a->data, key));
}

/*
 * Short liveness parameters (grace_ms, two reporters), and the loop run
 * until the grace the monitor gives after its start is over.
 */
static void
live_params(int64_t grace_ms)
{
	params.osd_heartbeat_grace_ms = grace_ms;
	params.osd_min_down_reporters = 2;
	mon_set_params(mon, &params);
	while (stamp_mono() <= mon->start_mono + grace_ms * 1000)
		turn();
}

/* Whether osd id is up in the working map (what the next commit holds). */
static int
work_up(int32_t id)
{
	const struct osdmap_osd *o = osdmap_osd(&mon->work, id);

	return o != NULL && o->up;
}

static int
committed_up(int32_t id)
{
	const struct osdmap_osd *o = osdmap_osd(mon_osdmap(mon), id);

	return o != NULL && o->up;
}

/* Whether one of the committed cluster log's last lines holds text. */
static int
log_has(const char *text)
{
	json_t *a = mon_log_last_json(mon, 200), *e;
	size_t i;
	int found = 0;

	json_array_foreach(a, i, e)
		found |= strstr(
			     json_string_value(json_object_get(e, "message")),
			     text) != NULL;
	json_decref(a);
	return found;
}

/* How many committed cluster log lines start with text. */
static int
log_count(const char *text)
{
	json_t *a = mon_log_last_json(mon, 500), *e;
	size_t i;
	int n = 0;

	json_array_foreach(a, i, e)
		if (strncmp(json_string_value(json_object_get(e, "message")),
			text, strlen(text)) == 0)
			n++;
	json_decref(a);
	return n;
}

static int
committed_in(int32_t id)
{
	const struct osdmap_osd *o = osdmap_osd(mon_osdmap(mon), id);

	return o != NULL && o->in;
}

/* How many live reports the monitor holds, about every OSD. */
static uint32_t
reports_held(void)
{
	uint32_t i, n = 0;

	for (i = 0; i < mon->nlive; i++)
		n += mon->live[i].nreports;
	return n;
}

/*
 * The health check code as `health detail' shows it: its summary into sum
 * and its detail line i into line ("" when there is none); whether it is
 * raised.
 */
static int
health_check(const char *code, size_t i, char *sum, char *line, size_t len)
{
	json_t *h = mon_health_json(mon, 1), *c, *d;

	c = json_object_get(json_object_get(h, "checks"), code);
	sum[0] = line[0] = '\0';
	if (c != NULL) {
		snprintf(sum, len, "%s",
		    json_string_value(json_object_get(
			json_object_get(c, "summary"), "message")));
		d = json_array_get(json_object_get(c, "detail"), i);
		if (d != NULL)
			snprintf(line, len, "%s",
			    json_string_value(json_object_get(d, "message")));
	}
	json_decref(h);
	return c != NULL;
}

/* "osd.N is down since 2026-12-02T00:10:11" then rest, exactly. */
static void
assert_down_since(const char *line, int32_t id, const char *rest)
{
	char head[64];
	size_t n;

	n = (size_t)snprintf(head, sizeof head, "osd.%d is down since ", id);
	cr_assert(strncmp(line, head, n) == 0, "'%s'", line);
	cr_assert_eq(strlen(line), n + 19 + strlen(rest), "'%s'", line);
	cr_assert(line[n + 4] == '-' && line[n + 10] == 'T' &&
		line[n + 13] == ':',
	    "'%s': not a stamp", line);
	cr_assert_str_eq(line + n + 19, rest);
}

/*
 * Two distinct up reporters past the grace mark the target down, and only
 * it; one reporter, however long and often it reports, does not.
 */
Test(mon, two_reporters_mark_an_osd_down_one_does_not)
{
	struct answer a;
	uint32_t epoch;
	int i;

	make_osds(4);
	live_params(300);
	/* One reporter, repeating for three graces: nothing. */
	for (i = 0; i < 10; i++) {
		cr_assert_eq(failure(3, 1, 1.0 + 0.1 * i, 0, &a), 0, "%s",
		    a.status);
		cr_assert_eq(data_int(&a, "reporters"), 1);
		cr_assert_eq(data_int(&a, "counted"), 1);
		cr_assert_eq(data_int(&a, "needed"), 2);
		cr_assert(!data_true(&a, "marked_down"));
		json_decref(a.data);
		run_for(100);
	}
	cr_assert(work_up(3), "one reporter marked osd.3 down");
	cr_assert_not_null(strstr(a.status, "1 of 2 reporters"), "%s",
	    a.status);

	epoch = mon_osdmap(mon)->epoch;
	cr_assert_eq(failure(0, 1, 2.5, 0, &a), 0);
	cr_assert(!data_true(&a, "marked_down"));
	json_decref(a.data);
	cr_assert_eq(failure(0, 2, 3.0, 0, &a), 0);
	cr_assert_eq(data_int(&a, "reporters"), 2);
	cr_assert_eq(data_int(&a, "counted"), 2);
	cr_assert(data_true(&a, "marked_down"), "%s", a.status);
	cr_assert_str_eq(a.status,
	    "osd.0 reported failed by osd.2: marked down");
	json_decref(a.data);
	settle();
	cr_assert(!committed_up(0));
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1);
	cr_assert(log_has("osd.0 marked down: reported failed by osd.1, "
			  "osd.2 for 2.5 s"),
	    "the cluster log names the reporters");
	/* Health says since when and why. */
	{
		char sum[256], line[256];

		cr_assert(health_check("OSD_DOWN", 0, sum, line, sizeof sum));
		cr_assert_str_eq(sum, "1 osds down");
		assert_down_since(line, 0,
		    " (reported failed by osd.1, osd.2 for 2.5 s)");
	}
	/* Nothing a reporter sends marks down more than its target. */
	cr_assert(committed_up(1) && committed_up(2) && committed_up(3));
	/* The reports went with the target. */
	cr_assert_eq(mon_osd_live(mon, 0)->nreports, 0);
}

/* A cancelled report stops counting. */
Test(mon, a_cancelled_report_stops_counting)
{
	struct answer a;

	make_osds(3);
	live_params(1000);
	cr_assert_eq(failure(0, 1, 5.0, 0, &a), 0);
	json_decref(a.data);
	cr_assert_eq(failure(0, 1, 0, 1, &a), 0, "%s", a.status);
	cr_assert_str_eq(a.status, "osd.1 cancelled its report of osd.0");
	cr_assert_eq(data_int(&a, "reporters"), 0);
	json_decref(a.data);
	cr_assert_eq(failure(0, 2, 5.0, 0, &a), 0);
	cr_assert_eq(data_int(&a, "counted"), 1);
	cr_assert(!data_true(&a, "marked_down"));
	json_decref(a.data);
	run_for(50);
	cr_assert(work_up(0));
	/* A cancel without a report is a no-op, said so. */
	cr_assert_eq(failure(0, 1, 0, 1, &a), 0);
	cr_assert_str_eq(a.status, "osd.1 had no report of osd.0 to cancel");
	json_decref(a.data);
}

/* A report not repeated within the grace ages out. */
Test(mon, an_aged_out_report_stops_counting)
{
	struct answer a;

	make_osds(3);
	live_params(300);
	cr_assert_eq(failure(0, 1, 5.0, 0, &a), 0);
	json_decref(a.data);
	run_for(400);
	cr_assert_eq(failure(0, 2, 5.0, 0, &a), 0);
	cr_assert_eq(data_int(&a, "reporters"), 1, "the old report stands");
	cr_assert(!data_true(&a, "marked_down"));
	json_decref(a.data);
	cr_assert(work_up(0));
	/* Repeated, it counts again. */
	cr_assert_eq(failure(0, 1, 5.4, 0, &a), 0);
	cr_assert(data_true(&a, "marked_down"), "%s", a.status);
	json_decref(a.data);
}

/*
 * The grace is honoured to within a tick: reports that pass it between
 * two reports mark the target down when they pass it, not before, and not
 * a tick later (they would age out first here).
 */
Test(mon, the_grace_is_honoured_within_one_tick)
{
	struct answer a;
	int64_t t0, down_at = 0;

	make_osds(3);
	live_params(1000);
	t0 = stamp_mono();
	/* Failed for 0.5 s of a 1 s grace: they count from t0 + 0.5 s. */
	cr_assert_eq(failure(0, 1, 0.5, 0, &a), 0);
	json_decref(a.data);
	cr_assert_eq(failure(0, 2, 0.5, 0, &a), 0);
	cr_assert_eq(data_int(&a, "counted"), 0);
	json_decref(a.data);
	while (stamp_mono() - t0 < 2000000 && down_at == 0) {
		turn();
		if (!work_up(0))
			down_at = stamp_mono();
	}
	cr_assert_neq(down_at, 0, "osd.0 not marked down");
	cr_assert_geq(down_at - t0, 500000,
	    "marked down %lld us after the reports, before the grace",
	    (long long)(down_at - t0));
	cr_assert_leq(down_at - t0, 500000 + 1000000,
	    "marked down %lld us after the reports", (long long)(down_at - t0));
	settle();
	cr_assert(log_has("osd.0 marked down: reported failed by osd.1, "
			  "osd.2 for 1."));
}

/* A reporter marked down loses its reports; a boot clears those about it. */
Test(mon, reports_go_with_a_down_reporter_and_a_booted_target)
{
	struct answer a;

	make_osds(4);
	live_params(1000);
	cr_assert_eq(failure(0, 1, 5.0, 0, &a), 0);
	json_decref(a.data);
	cr_assert_eq(osd_down(1), 0);
	cr_assert_eq(osd_boot(1), 0);
	cr_assert_eq(failure(0, 2, 5.0, 0, &a), 0);
	cr_assert_eq(data_int(&a, "reporters"), 1, "osd.1's report was kept");
	cr_assert(!data_true(&a, "marked_down"));
	json_decref(a.data);

	/* osd.0 boots again, at a new address: the reports about it go. */
	cr_assert_eq(failure(3, 0, 5.0, 0, &a), 0);
	json_decref(a.data);
	memset(&a, 0, sizeof a);
	mon_osd_boot(mon, 0, "127.0.0.1:6801", answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_eq(mon_osd_live(mon, 0)->nreports, 0);
	cr_assert_eq(failure(0, 1, 5.0, 0, &a), 0);
	cr_assert_eq(data_int(&a, "reporters"), 1,
	    "a report from before the boot counted");
	cr_assert(!data_true(&a, "marked_down"));
	json_decref(a.data);

	/* osd.0 goes down: its own report of osd.3 goes with it. */
	cr_assert_eq(mon_osd_live(mon, 3)->nreports, 1);
	cr_assert_eq(osd_down(0), 0);
	cr_assert_eq(mon_osd_live(mon, 3)->nreports, 0);
	cr_assert_eq(failure(3, 2, 5.0, 0, &a), 0);
	cr_assert_eq(data_int(&a, "reporters"), 1);
	cr_assert(!data_true(&a, "marked_down"));
	json_decref(a.data);
}

/* nodown keeps a reported OSD up, its reports kept; unset, it goes down. */
Test(mon, nodown_keeps_reported_osds_up_until_unset)
{
	struct answer a;
	int i;

	make_osds(3);
	live_params(1000);
	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "nodown", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	cr_assert_eq(failure(0, 1, 5.0, 0, &a), 0);
	json_decref(a.data);
	cr_assert_eq(failure(0, 2, 5.0, 0, &a), 0);
	cr_assert(!data_true(&a, "marked_down"));
	cr_assert_str_eq(a.status,
	    "osd.0 reported failed by osd.2: it stays "
	    "up, the nodown flag is set");
	json_decref(a.data);
	run_for(150);
	cr_assert(committed_up(0) && work_up(0));
	cr_assert_eq(mon_osd_live(mon, 0)->nreports, 2, "the reports are kept");
	/* ... and shown, under OSDMAP_FLAGS. */
	{
		char sum[256], line[256];

		cr_assert_eq(failure(0, 1, 5.2, 0, &a), 0);
		json_decref(a.data);
		cr_assert_eq(failure(0, 2, 5.2, 0, &a), 0);
		json_decref(a.data);
		cr_assert(
		    health_check("OSDMAP_FLAGS", 0, sum, line, sizeof sum));
		cr_assert_str_eq(sum, "nodown flag(s) set");
		cr_assert_str_eq(line,
		    "osd.0 is kept up by nodown: reported failed by osd.1, "
		    "osd.2 for 5.2 s");
		cr_assert(!health_check("OSD_DOWN", 0, sum, line, sizeof sum));
	}

	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "nodown", 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	/* Unset: the standing reports mark it down, without a new one. */
	for (i = 0; i < 100 && work_up(0); i++)
		turn();
	cr_assert(!work_up(0), "osd.0 still up once nodown is unset");
	settle();
	cr_assert(!committed_up(0));
	{
		char sum[256], line[256];

		cr_assert(
		    !health_check("OSDMAP_FLAGS", 0, sum, line, sizeof sum),
		    "%s", sum);
	}
}

/* noup: an OSD the reports marked down cannot boot until it is unset. */
Test(mon, noup_keeps_a_reported_osd_down)
{
	struct answer a = { 0 };

	make_osds(3);
	live_params(1000);
	mon_osd_set_flag(mon, "noup", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(failure(0, 1, 5.0, 0, &a), 0);
	json_decref(a.data);
	cr_assert_eq(failure(0, 2, 5.0, 0, &a), 0);
	cr_assert(data_true(&a, "marked_down"), "%s", a.status);
	json_decref(a.data);
	settle();
	cr_assert(!committed_up(0));
	cr_assert_eq(osd_boot(0), -EBUSY);
	settle();
	cr_assert(!committed_up(0), "booted despite noup");
	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "noup", 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(osd_boot(0), 0);
	cr_assert(committed_up(0));
	cr_assert_eq(mon_osd_live(mon, 0)->nreports, 0);
}

/* An OSD stopping cleanly marks itself down, answered after the commit. */
Test(mon, mark_me_down_is_answered_after_the_commit)
{
	struct answer a = { 0 };
	uint32_t epoch;

	make_osds(2);
	epoch = mon_osdmap(mon)->epoch;
	mon_osd_mark_me_down(mon, 0, answer_cb, &a);
	cr_assert(!a.done, "answered before the commit");
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_str_eq(a.status, "osd.0 marked itself down");
	cr_assert(data_true(&a, "down"));
	json_decref(a.data);
	cr_assert(!committed_up(0), "answered before osd.0 is down");
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1);
	cr_assert(log_has("osd.0 marked itself down"));
	{
		char sum[256], line[256];

		cr_assert(health_check("OSD_DOWN", 0, sum, line, sizeof sum));
		assert_down_since(line, 0, " (marked itself down)");
	}

	/* Already down: at once. */
	memset(&a, 0, sizeof a);
	mon_osd_mark_me_down(mon, 0, answer_cb, &a);
	cr_assert(a.done);
	cr_assert_eq(a.rc, 0);
	cr_assert_str_eq(a.status, "osd.0 is already down");
	json_decref(a.data);
	memset(&a, 0, sizeof a);
	mon_osd_mark_me_down(mon, 7, answer_cb, &a);
	cr_assert_eq(a.rc, -ENOENT);

	/* nodown: it stays up, and is told so. */
	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "nodown", 1, answer_cb, &a);
	wait_for(&a);
	memset(&a, 0, sizeof a);
	mon_osd_mark_me_down(mon, 1, answer_cb, &a);
	cr_assert(a.done);
	cr_assert_eq(a.rc, 0);
	cr_assert_str_eq(a.status, "osd.1 stays up: the nodown flag is set");
	cr_assert(!data_true(&a, "down"));
	json_decref(a.data);
	settle();
	cr_assert(committed_up(1));
	/*
	 * Several flags, in Ceph's order (OSDMap::get_flag_string(): noup,
	 * nodown, noout, noin); counted one each.
	 */
	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "noout", 1, answer_cb, &a);
	wait_for(&a);
	{
		json_t *h = mon_health_json(mon, 0), *sum;

		sum = json_object_get(
		    json_object_get(json_object_get(h, "checks"),
			"OSDMAP_FLAGS"),
		    "summary");
		cr_assert_str_eq(
		    json_string_value(json_object_get(sum, "message")),
		    "nodown,noout flag(s) set");
		cr_assert_eq(json_integer_value(json_object_get(sum, "count")),
		    2);
		json_decref(h);
	}
}

/*
 * noout holds every automatic out back, logged once per OSD; unset, the
 * OSD goes out within a tick.
 */
Test(mon, noout_holds_the_automatic_out_back)
{
	struct answer a = { 0 };
	int i;

	make_osds(4);
	params.osd_down_out_interval_ms = 200;
	mon_set_params(mon, &params);
	mon_osd_set_flag(mon, "noout", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(osd_down(3), 0);
	run_for(1200);
	/* The rules looked at again (a parameter set): logged still once. */
	mon_set_params(mon, &params);
	run_for(1300);
	settle();
	cr_assert(committed_in(3), "out despite noout");
	cr_assert_eq(log_count("osd.3 not marked out: the noout flag is set"),
	    1, "the hold is logged once, not every tick");
	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "noout", 0, answer_cb, &a);
	wait_for(&a);
	for (i = 0; i < 250 && committed_in(3); i++)
		turn();
	cr_assert(!committed_in(3), "still in once noout is unset");
	cr_assert(log_has("osd.3 marked out after being down for "));
}

/*
 * osd_min_in_ratio: no automatic out that would leave fewer than that
 * fraction of the OSDs in; lowered, the held OSD goes out.
 */
Test(mon, min_in_ratio_holds_the_automatic_out_back)
{
	int i;

	make_osds(4);
	params.osd_down_out_interval_ms = 200;
	params.osd_min_in_ratio = 0.75;
	mon_set_params(mon, &params);
	cr_assert_eq(osd_down(2), 0);
	cr_assert_eq(osd_down(3), 0);
	run_for(1200);
	mon_set_params(mon, &params);
	run_for(1300);
	settle();
	/* 3 of 4 in is not under 0.75: osd.2 goes; 2 of 4 would be. */
	cr_assert(!committed_in(2), "osd.2 not marked out");
	cr_assert(committed_in(3), "osd.3 out, leaving 2 of 4 in");
	cr_assert_eq(log_count("osd.3 not marked out: 2 of 4 osds would be "
			       "in, under osd_min_in_ratio 0.75"),
	    1, "the hold is logged once");
	params.osd_min_in_ratio = 0.5;
	mon_set_params(mon, &params);
	for (i = 0; i < 250 && committed_in(3); i++)
		turn();
	cr_assert(!committed_in(3), "still in under a ratio of 0.5");
	cr_assert_eq(log_count("osd.3 marked out after being down for "), 1);
}

/* An up OSD with no beacon or PG report for osd_report_timeout goes down. */
Test(mon, an_osd_without_beacons_is_marked_down)
{
	struct answer a;
	int64_t t0;

	make_osds(3);
	params.osd_report_timeout_ms = 300;
	mon_set_params(mon, &params);
	t0 = stamp_mono();
	/* osd.0 beacons; osd.1 and osd.2 stay silent. */
	while (stamp_mono() - t0 < 1800000) {
		memset(&a, 0, sizeof a);
		mon_osd_beacon(mon, 0, NULL, answer_cb, &a);
		cr_assert_eq(a.rc, 0);
		run_for(50);
	}
	settle();
	cr_assert(committed_up(0), "a beaconing OSD was marked down");
	cr_assert(!committed_up(1) && !committed_up(2));
	cr_assert(log_has("osd.1 marked down: no beacon for "));
	cr_assert(log_has("osd.2 marked down: no beacon for "));
	cr_assert(!log_has("osd.0 marked down"));
}

/*
 * After a restart every OSD gets a fresh grace: reports count once the
 * grace has passed since the start, and beacons are awaited from the start.
 */
Test(mon, a_restart_starts_every_clock_afresh)
{
	struct answer a;
	int64_t start;
	int i;

	make_osds(4);
	params.osd_heartbeat_grace_ms = 400;
	params.osd_min_down_reporters = 2;
	params.osd_report_timeout_ms = 1200;
	close_mon();
	open_mon();
	start = mon->start_mono;
	/* Reports of a long failure, at once: not before the start's grace. */
	cr_assert_eq(failure(0, 1, 60.0, 0, &a), 0);
	json_decref(a.data);
	cr_assert_eq(failure(0, 2, 60.0, 0, &a), 0);
	cr_assert_eq(data_int(&a, "counted"), 0, "counted right after a start");
	json_decref(a.data);
	/* Repeated: up until the start's grace is over, then down. */
	while (stamp_mono() - start < 1400000 && work_up(0)) {
		cr_assert(stamp_mono() - start >= 400000 || work_up(0),
		    "marked down before the start's grace");
		if (failure(0, 1, 60.0, 0, &a) == 0)
			json_decref(a.data);
		if (failure(0, 2, 60.0, 0, &a) == 0)
			json_decref(a.data);
		run_for(20);
		cr_assert(stamp_mono() - start > 400000 || work_up(0),
		    "marked down before the start's grace");
	}
	cr_assert(!work_up(0), "osd.0 still up");

	/* osd.1 and osd.2 beacon; osd.3 is silent since the start. */
	for (i = 0; stamp_mono() - start < 1000000; i++) {
		mon_osd_beacon(mon, 1, NULL, answer_cb, &a);
		mon_osd_beacon(mon, 2, NULL, answer_cb, &a);
		run_for(50);
	}
	cr_assert(work_up(3), "osd.3 marked down before the timeout");
	while (stamp_mono() - start < 2500000 && work_up(3)) {
		mon_osd_beacon(mon, 1, NULL, answer_cb, &a);
		mon_osd_beacon(mon, 2, NULL, answer_cb, &a);
		run_for(50);
	}
	cr_assert(!work_up(3), "osd.3 still up past the timeout");
	cr_assert(work_up(1) && work_up(2));
	settle();
	cr_assert(log_has("osd.3 marked down: no beacon for "));
	{
		char sum[256], line[256];
		const char *end = " s since the monitor started)";

		cr_assert(health_check("OSD_DOWN", 1, sum, line, sizeof sum));
		cr_assert(strlen(line) > strlen(end) &&
			strcmp(line + strlen(line) - strlen(end), end) == 0,
		    "%s", line);
		cr_assert_not_null(strstr(line, " (no beacon for "), "%s",
		    line);
		/* Why is kept in memory only: after a restart, since when. */
		close_mon();
		open_mon();
		cr_assert(health_check("OSD_DOWN", 0, sum, line, sizeof sum));
		assert_down_since(line, 0, "");
		cr_assert(health_check("OSD_DOWN", 1, sum, line, sizeof sum));
		assert_down_since(line, 3, "");
	}
}

/* Bad reports: EINVAL when malformed, ignored (rc 0) when moot; never counted. */
Test(mon, bad_failure_reports_are_refused_or_ignored)
{
	struct answer a;

	make_osds(3);
	cr_assert_eq(osd_down(2), 0);
	cr_assert_eq(osd_create(-1, NULL), 0); /* osd.3: never booted */
	live_params(200);

	cr_assert_eq(failure(1, 1, 5.0, 0, &a), -EINVAL);
	cr_assert_str_eq(a.status,
	    "osd.1 reported itself: a failure report names another osd");
	cr_assert_eq(failure(0, 1, -1.0, 0, &a), -EINVAL);
	cr_assert_not_null(strstr(a.status, "failed_for -1 out of range"), "%s",
	    a.status);
	cr_assert_eq(failure(0, 1, NAN, 0, &a), -EINVAL);
	cr_assert_not_null(strstr(a.status, "failed_for"), "%s", a.status);
	cr_assert_eq(failure(0, 1, INFINITY, 0, &a), -EINVAL);
	cr_assert_eq(failure(0, 1, 2e9, 0, &a), -EINVAL);

	cr_assert_eq(failure(9, 1, 5.0, 0, &a), 0);
	cr_assert_str_eq(a.status,
	    "report of osd.9 ignored: osd.9 does not exist");
	cr_assert(data_true(&a, "ignored"));
	json_decref(a.data);
	cr_assert_eq(failure(2, 1, 5.0, 0, &a), 0);
	cr_assert_str_eq(a.status,
	    "report of osd.2 ignored: osd.2 is already down");
	json_decref(a.data);
	cr_assert_eq(failure(0, 9, 5.0, 0, &a), 0);
	cr_assert_str_eq(a.status,
	    "report of osd.0 ignored: reporter osd.9 does not exist");
	json_decref(a.data);
	cr_assert_eq(failure(0, 2, 5.0, 0, &a), 0);
	cr_assert_str_eq(a.status,
	    "report of osd.0 ignored: reporter osd.2 is down");
	json_decref(a.data);
	cr_assert_eq(failure(0, 3, 5.0, 0, &a), 0);
	cr_assert_str_eq(a.status,
	    "report of osd.0 ignored: reporter osd.3 is down");
	json_decref(a.data);
	cr_assert_eq(failure(3, 1, 5.0, 0, &a), 0);
	cr_assert_str_eq(a.status,
	    "report of osd.3 ignored: osd.3 is already down");
	json_decref(a.data);

	/* None of them is held, and nothing moved. */
	cr_assert_eq(reports_held(), 0);
	cr_assert_eq(mon->nfailing, 0);
	run_for(300);
	cr_assert(committed_up(0) && committed_up(1));
	/* A valid one after all that is the first. */
	cr_assert_eq(failure(0, 1, 5.0, 0, &a), 0);
	cr_assert_eq(data_int(&a, "reporters"), 1);
	json_decref(a.data);
}

Test(mon, pool_create_places_every_pg_in_creating)
{
	const struct pgmap_pool *pp;
	const struct osdmap_pool *op;
	struct osdmap_place *pl;
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
	pl = osdmap_place_new(mon_osdmap(mon));
	cr_assert(osdmap_place_has_crush(pl));
	for (s = 0; s < 128; s++) {
		n = osdmap_place_pg(pl, 1, 0, s, 3, up);
		cr_assert_eq(pp->pgs[s].up_len, n);
		cr_assert_eq(memcmp(pp->pgs[s].up, up, (size_t)n * 4), 0);
		cr_assert_eq(pp->pgs[s].acting_primary, up[0]);
	}
	osdmap_place_free(pl);
	check_derived();

	/* An existing pool: rc 0, as Ceph answers it, and nothing made. */
	cr_assert_eq(pool_create("rbd", 8, 3), 0);
	cr_assert_eq(osdmap_pool_by_name(mon_osdmap(mon), "rbd")->pg_num, 128);
	cr_assert_eq(pool_create("bad name", 8, 3), -EINVAL);
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
	mon_pool_create(mon, "a", 200, 0, 3, NULL, answer_cb, &a);
	mon_pool_create(mon, "b", 51, 0, 3, NULL, answer_cb, &b);
	cr_assert(!a.done, "the first create waits for its commit");
	cr_assert(b.done, "the refusal is answered at once");
	cr_assert_eq(b.rc, -ERANGE);
	cr_assert_str_eq(b.status,
	    "pg_num 51 size 3 would mean 753 total "
	    "pgs, which exceeds max 750 (mon_max_pg_per_osd 250 * "
	    "num_in_osds 3)");
	memset(&b, 0, sizeof b);
	mon_pool_create(mon, "b", 50, 0, 3, NULL, answer_cb, &b);
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
	mon_pool_create(mon, "d", 60, 0, 1, NULL, answer_cb, &a);
	cr_assert(a.done && !del.done);
	cr_assert_eq(a.rc, -ERANGE);
	cr_assert_str_eq(a.status,
	    "pg_num 60 would mean 120 pgs in all "
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
	mon_pool_set(mon, "p", "pg_num", "4", 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EINVAL);
	cr_assert_not_null(strstr(a.status, "shrink"), "%s", a.status);
	memset(&a, 0, sizeof a);
	mon_pool_set(mon, "p", "pg_num", "12", 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_eq(pgmap_pool(mon_pgmap(mon), 1)->pg_num, 12);
	cr_assert_eq(pgmap_state_count(mon_pgmap(mon), PG_STATE_CREATING), 4);
	cr_assert_eq(
	    pgmap_state_count(mon_pgmap(mon), PG_STATE_ACTIVE | PG_STATE_CLEAN),
	    8);
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
	cr_assert_eq(a.rc, 0, "a pool that is gone: Ceph's rc 0");
	cr_assert_str_eq(a.status, "pool 'nope' does not exist");
	/* Ceph's mon_allow_pool_delete, false by default. */
	params.allow_pool_delete = 0;
	mon_set_params(mon, &params);
	memset(&a, 0, sizeof a);
	mon_pool_delete(mon, "a", "a", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EPERM);
	cr_assert_str_eq(a.status,
	    "pool deletion is disabled; you must first "
	    "set the mon_allow_pool_delete config option to true before you "
	    "can destroy a pool");
	cr_assert_not_null(osdmap_pool_by_name(mon_osdmap(mon), "a"));
	params.allow_pool_delete = 1;
	mon_set_params(mon, &params);
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
	json_t *h, *c;
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
	/*
	 * A pool with objects and no application: Ceph 16's POOL_APP check
	 * (PGMap::get_health_checks()), until one is enabled.
	 */
	cr_assert_eq(mon_health_status(mon), 1);
	h = mon_health_json(mon, 1);
	c = json_object_get(json_object_get(h, "checks"),
	    "POOL_APP_NOT_ENABLED");
	cr_assert_not_null(c, "POOL_APP_NOT_ENABLED");
	cr_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(c, "summary"), "message")),
	    "1 pool(s) do not have an application enabled");
	cr_assert_str_eq(
	    json_string_value(json_object_get(
		json_array_get(json_object_get(c, "detail"), 0), "message")),
	    "application not enabled on pool 'rbd'");
	json_decref(h);
	mon_pool_application(mon, 1, "rbd", "rbd", 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	json_decref(a.data);
	a.done = 0;
	settle();
	cr_assert_eq(mon_health_status(mon), 0, "all active+clean is OK");
	check_derived();

	cr_assert_eq(osd_down(2), 0);
	settle();
	stale = pgmap_state_count(pm,
	    PG_STATE_ACTIVE | PG_STATE_CLEAN | PG_STATE_STALE);
	cr_assert_eq(stale, pm->osd[2].primary,
	    "the down OSD's primaries "
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
	cr_assert_str_eq(
	    json_string_value(json_object_get(
		json_object_get(json_object_get(checks, "OSD_DOWN"), "summary"),
		"message")),
	    "1 osds down");
	assert_down_since(
	    json_string_value(json_object_get(
		json_array_get(
		    json_object_get(json_object_get(checks, "OSD_DOWN"),
			"detail"),
		    0),
		"message")),
	    1, " (marked down by command)");
	json_decref(h);
	settle();
	/* The change is in the cluster log. */
	h = mon_log_last_json(mon, 50);
	{
		size_t i;
		json_t *e;
		int found = 0;

		json_array_foreach(h, i, e)
			if (strstr(json_string_value(
				       json_object_get(e, "message")),
				"Health check failed") &&
			    strstr(json_string_value(
				       json_object_get(e, "message")),
				"OSD_DOWN"))
				found = 1;
		cr_assert(found, "OSD_DOWN logged");
	}
	json_decref(h);
}

/* 10 objects a PG, arg of them degraded. */
static void
report_fill_degraded(struct pg_stat *st, int size, void *arg)
{
	uint64_t objects = 10;

	report_fill(st, size, &objects);
	st->num_objects_degraded = (int64_t) * (const uint64_t *)arg;
}

static void
report_degraded(uint32_t state, uint64_t degraded)
{
	mon_report_util_all(mon, state, report_fill_degraded, report_send,
	    &degraded);
}

/*
 * PG_DEGRADED and PG_AVAILABILITY follow the states the OSDs report, in
 * Ceph's words: only the parts that are not 0, "1 pg" and "2 pgs".
 */
Test(mon, pg_health_follows_the_reported_states)
{
	const struct pgmap *pm = mon_pgmap(mon);
	struct pg_stat st;
	struct answer a = { 0 };
	char sum[256], line[256];

	make_osds(3);
	cr_assert_eq(pool_create("rbd", 16, 3), 0);
	report_degraded(PG_STATE_ACTIVE | PG_STATE_CLEAN, 0);
	cr_assert(!health_check("PG_AVAILABILITY", 0, sum, line, sizeof sum),
	    "%s", sum);
	cr_assert(!health_check("PG_DEGRADED", 0, sum, line, sizeof sum), "%s",
	    sum);

	report_degraded(
	    PG_STATE_ACTIVE | PG_STATE_UNDERSIZED | PG_STATE_DEGRADED, 1);
	cr_assert(health_check("PG_DEGRADED", 0, sum, line, sizeof sum));
	cr_assert_str_eq(sum,
	    "Degraded data redundancy: 16/480 objects "
	    "degraded (3.333%), 16 pgs degraded, 16 pgs undersized");
	cr_assert(!health_check("PG_AVAILABILITY", 0, sum, line, sizeof sum),
	    "%s", sum);

	report_degraded(PG_STATE_ACTIVE | PG_STATE_UNDERSIZED, 0);
	cr_assert(health_check("PG_DEGRADED", 0, sum, line, sizeof sum));
	cr_assert_str_eq(sum, "Degraded data redundancy: 16 pgs undersized");

	report_degraded(PG_STATE_ACTIVE | PG_STATE_CLEAN, 0);
	cr_assert(!health_check("PG_DEGRADED", 0, sum, line, sizeof sum), "%s",
	    sum);
	/*
	 * One PG peering: inactive and peering, as Ceph counts it, and its
	 * line Ceph's for a PG stuck peering.
	 */
	mon_settle(mon);
	st = pgmap_pool(pm, 1)->pgs[0];
	st.state = PG_STATE_PEERING;
	st.reported_seq++;
	mon_pg_report(mon, st.acting_primary, &st, 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
	cr_assert(health_check("PG_AVAILABILITY", 0, sum, line, sizeof sum));
	cr_assert_str_eq(sum,
	    "Reduced data availability: 1 pg inactive, 1 pg peering");
	cr_assert_eq(strncmp(line, "pg 1.0 is stuck peering for ", 28), 0, "%s",
	    line);
	cr_assert(strstr(line, "s, current state peering, last acting [") !=
		NULL,
	    "%s", line);
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
		cr_assert(ea.len == eb.len &&
			memcmp(ea.data, eb.data, ea.len) == 0,
		    "PG %s differs after restart", id);
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
				 sizeof now->pools[i].sums),
		    0);
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
	mon_report_util_all(mon, PG_STATE_ACTIVE | PG_STATE_CLEAN, report_fill,
	    report_nowait, b);
	if (out_osd >= 0)
		mon_osd_out(mon, &out_osd, 1, answer_cb, &b->answers[b->n++]);
	mon_set_params(mon, &params);
	mon_propose_now(mon);
	for (i = 0; mon->applying == NULL && i < 2000; i++)
		turn();
	cr_assert_not_null(mon->applying,
	    "the commit of %zu PGs was not "
	    "applied in slices",
	    mon->inflight ? mon->inflight->npgs : 0);
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
	cr_assert_eq(json_integer_value(json_object_get(
			 json_object_get(q, "stat_sum"), "num_objects")),
	    7);
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
	cr_assert_eq(mon_pg_dump_walk(mon, NULL, 0, &w, &status), 0);
	q = walk_all(w, &status);
	cr_assert_eq(json_integer_value(json_object_get(
			 json_object_get(q, "pg_map"), "version")),
	    (json_int_t)v0 + 1, "the summary is of the commit the PGs are");
	cr_assert_eq(
	    json_integer_value(json_object_get(
		json_object_get(json_object_get(json_object_get(q, "pg_map"),
				    "pg_stats_sum"),
		    "stat_sum"),
		"num_objects")),
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
	mon_pool_create(mon, "big", 4096, 0, 3, NULL, answer_cb, &a);
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
	mon_pool_set(mon, "big", "pg_num", "8192", 0, answer_cb, &a);
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
	mon_pool_create(mon, "held", 2048, 0, 3, NULL, answer_cb, &a);
	mon_propose_now(mon);
	cr_assert_not_null(mon->inflight);
	mon_pool_create(mon, "pending", 64, 0, 3, NULL, answer_cb, &b);
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
	mon_pool_create(mon, "late", 32, 0, 3, NULL, answer_cb, &a);
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
	cr_assert_eq(mon_pg_ls_walk(mon,
			 &(struct mon_pg_ls){ .pool_id = -1,
			     .osd = -1,
			     .states = (const char *[]){ "down" },
			     .nstates = 1 },
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
	cr_assert_eq(t.buf.len, strlen("{\"pg_ready\":true,\"pg_stats\":[]}"));
	cr_assert(memcmp(t.buf.data, "{\"pg_ready\":true,\"pg_stats\":[]}",
		      t.buf.len) == 0);
	free(status);
	status = NULL;
	mon_pg_walk_free(w);
	pg_text_free(&t);

	/*
	 * Every PG: a slice writes MON_PG_WALK_PGS at most; meanwhile PGs
	 * change, pool b goes and pool c comes.
	 */
	cr_assert_eq(mon_pg_ls_walk(mon,
			 &(struct mon_pg_ls){ .pool_id = -1, .osd = -1 }, &w,
			 &status),
	    0);
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
	cr_assert_eq(mon_pg_dump_walk(mon, (const char *[]){ "summary" }, 1, &w,
			 &status),
	    0);
	pg_text_init(&t);
	cr_assert_eq(mon_pg_walk_next(w, &t, &status), 1);
	cr_assert_str_eq(status, "dumped summary");
	free(status);
	mon_pg_walk_free(w);
	pg_text_free(&t);
	cr_assert_eq(
	    mon_pg_dump_walk(mon, (const char *[]){ "bogus" }, 1, &w, &status),
	    -EINVAL);
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
	mon_pool_create(mon, "rbd", 32, 0, 3, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -ENOSPC, "writer gets ENOSPC: %d %s", a.rc,
	    a.status);
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch, "state unchanged");
	cr_assert_null(osdmap_pool_by_name(mon_osdmap(mon), "rbd"));
	cr_assert_eq(mon_pgmap(mon)->sums.num_pgs, 0);
	h = mon_health_json(mon, 1);
	cr_assert_not_null(
	    json_object_get(json_object_get(h, "checks"), "STORE_ERROR"));
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

/*
 * A mark-down lost with a failed commit is decided again once the store
 * works: the OSD is up again in the working map, and the beacon timeout
 * looks at it again (nothing else would: it is the only OSD).
 */
Test(mon, a_mark_down_lost_to_a_failed_commit_is_made_again)
{
	int i;

	make_osds(1);
	params.osd_report_timeout_ms = 300;
	mon_set_params(mon, &params);
	cr_assert_eq(store_fault_arm(fault, STORE_E_NOSPC, -1), 0);
	for (i = 0; i < 300 && !mon->store_error; i++)
		turn();
	cr_assert(mon->store_error, "no commit failed");
	cr_assert(work_up(0), "the failed mark-down is still in the map");
	cr_assert_eq(store_fault_arm(fault, STORE_E_NOSPC, 0), 0);
	for (i = 0; i < 400 && committed_up(0); i++)
		turn();
	cr_assert(!committed_up(0), "osd.0 not marked down again");
	cr_assert(log_has("osd.0 marked down: no beacon for "));
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
			report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN,
			    (uint64_t)i);
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
	char name[16], val[16];
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
			mon_pool_create(mon, name, 1 + rnd(&seed, 64), 0,
			    1 + rnd(&seed, 3), NULL, answer_cb, &a);
			break;
		case 3:
			mon_pool_delete(mon, name, name, 1, answer_cb, &a);
			break;
		case 4:
			snprintf(val, sizeof val, "%u", 1 + rnd(&seed, 96));
			mon_pool_set(mon, name, "pg_num", val, 0, answer_cb,
			    &a);
			break;
		case 5:
			mon_osd_out(mon, &id, 1, answer_cb, &a);
			break;
		case 6:
			mon_osd_in(mon, &id, 1, answer_cb, &a);
			break;
		default:
			a.done = 1;
			report_all(rnd(&seed, 2) ?
				PG_STATE_ACTIVE | PG_STATE_CLEAN :
				PG_STATE_ACTIVE | PG_STATE_DEGRADED,
			    rnd(&seed, 1000));
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
				 "OSD_DOWN") != NULL,
		    down > 0);
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
	free(
	    key3); /* the key read before the restart; key3 is the status now */
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
	/* mon., client.admin, client.x: Ceph's auth ls leaves mon. out. */
	out = mon_auth_ls_json(mon);
	cr_expect_eq(json_array_size(json_object_get(out, "auth_dump")), 2);
	cr_expect_str_eq(
	    json_string_value(json_object_get(
		json_array_get(json_object_get(out, "auth_dump"), 0),
		"entity")),
	    "client.admin");
	json_decref(out);
	cr_expect_eq(mon_auth_get_json(mon, "mon.", &out, &status), 0,
	    "auth get mon. still gives its keyring");
	json_decref(out);
	free(status);
}

/* The names a commit's notify said it ended, joined by spaces. */
struct ended_seen {
	char text[256];
	int commits;
};

static void
ended_cb(void *arg, const struct mon_commit_info *info)
{
	struct ended_seen *e = arg;
	size_t i;

	e->commits++;
	for (i = 0; i < info->nauth_ended; i++) {
		strncat(e->text, info->auth_ended[i],
		    sizeof e->text - strlen(e->text) - 2);
		strcat(e->text, " ");
	}
}

/*
 * Every monitor closes its own sessions of an entity as it applies the
 * commit that removes it or gives it another key (mapmond(8),
 * AUTHENTICATION): the notify, which a follower's apply calls as the
 * leader's does, names exactly those; a caps change or a new entity ends
 * nothing (the caps are checked at each request).
 */
Test(mon, auth_commits_name_the_entities_whose_key_they_end)
{
	static const char *const r[] = { "mon", "allow r" };
	static const char *const rw[] = { "mon", "allow rw" };
	struct ended_seen seen;
	struct answer a;

	memset(&seen, 0, sizeof seen);
	mon_set_notify(mon, ended_cb, &seen);
	a = auth_do(AUTH_ADD, "client.a", r, 2);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	a = auth_do(AUTH_ADD, "client.b", r, 2);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	a = auth_do(AUTH_CAPS, "client.a", rw, 2);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_expect_str_eq(seen.text, "", "adds and caps end nothing");
	a = auth_do(AUTH_ROTATE, "client.a", NULL, 0);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
	cr_expect_str_eq(seen.text, "client.a ");
	a = auth_do(AUTH_RM, "client.b", NULL, 0);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_expect_str_eq(seen.text, "client.a client.b ");
	/* Removing what does not exist commits nothing, ends nothing. */
	a = auth_do(AUTH_RM, "client.b", NULL, 0);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	a = auth_do(AUTH_ADD, "client.c", r, 2);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_expect_str_eq(seen.text, "client.a client.b ");
	cr_expect_geq(seen.commits, 5);
	mon_set_notify(mon, NULL, NULL);
}

/*
 * A store installed whole (a follower's snapshot, mon_reload) is an apply
 * too: the notify names the entities it removed or gave another key,
 * whose sessions the daemon closes; one it adds ends nothing.
 */
Test(mon, a_reloaded_store_names_the_entities_whose_key_it_ends)
{
	static const char *const r[] = { "mon", "allow r" };
	struct store_options so;
	struct ended_seen seen;
	struct answer a;
	char cmd[256], copy[128], *cause = NULL;

	cr_assert_eq(auth_do(AUTH_ADD, "client.a", r, 2).rc, 0);
	cr_assert_eq(auth_do(AUTH_ADD, "client.b", r, 2).rc, 0);
	settle();
	/* The store then: client.a with its first key, client.b. */
	close_mon();
	snprintf(copy, sizeof copy, "%s/then", tmpdir);
	snprintf(cmd, sizeof cmd, "cp -r %s/store %s", tmpdir, copy);
	cr_assert_eq(system(cmd), 0);
	open_mon();
	/* Now: client.a rotated, client.b removed, client.c added. */
	a = auth_do(AUTH_ROTATE, "client.a", NULL, 0);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
	cr_assert_eq(auth_do(AUTH_RM, "client.b", NULL, 0).rc, 0);
	cr_assert_eq(auth_do(AUTH_ADD, "client.c", r, 2).rc, 0);
	settle();

	memset(&seen, 0, sizeof seen);
	mon_set_notify(mon, ended_cb, &seen);
	store_options_defaults(&so);
	so.backend = TEST_BACKEND;
	so.sync = STORE_SYNC_NONE;
	cr_assert_eq(mon_reload(mon, copy, &so, &cause), 0, "%s", cause);
	cr_expect_eq(seen.commits, 1);
	cr_expect_str_eq(seen.text, "client.a client.c ",
	    "client.a has its first key again, client.c is gone");
	cr_expect_not_null(mon_auth_find(mon, "client.b"));
	mon_set_notify(mon, NULL, NULL);
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

/* ------------------------------------------------------------ capacity */

#define GIB (1ULL << 30)

/* A beacon of osd id with that capacity (bytes); its rc. */
static int
beacon(int32_t id, uint64_t total, uint64_t used, uint64_t avail)
{
	struct statfs_osd st = { .total = total,
		.used = used,
		.avail = avail,
		.data = used };
	struct answer a = { 0 };

	mon_osd_beacon(mon, id, &st, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	return a.rc;
}

/* One of the full ratios set; its rc, and its status in status. */
static int
set_ratio(enum mon_ratio which, double r, char *status, size_t len)
{
	struct answer a = { 0 };

	mon_osd_set_ratio(mon, which, r, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	if (status != NULL)
		snprintf(status, len, "%s", a.status);
	return a.rc;
}

static int
osd_op(void (*fn)(struct mon *, const int32_t *, size_t, mon_done_cb *, void *),
    int32_t id)
{
	struct answer a = { 0 };

	fn(mon, &id, 1, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	return a.rc;
}

static int
osd_rm(int32_t id)
{
	struct answer a = { 0 };

	mon_osd_rm(mon, &id, 1, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	return a.rc;
}

static int
osd_reweight(int32_t id, double w)
{
	struct answer a = { 0 };

	mon_osd_reweight(mon, id, w, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	return a.rc;
}

/* A number of a JSON object by a dotted path. */
static double
jnum(json_t *o, const char *path)
{
	char buf[128], *tok, *save = NULL;
	json_t *v = o;

	snprintf(buf, sizeof buf, "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok != NULL;
	     tok = strtok_r(NULL, ".", &save))
		v = json_object_get(v, tok);
	cr_assert(json_is_number(v), "%s is not a number", path);
	return json_number_value(v);
}

/* `df''s cluster figures: total and used raw bytes, counted OSDs. */
static void
assert_df(uint64_t total, uint64_t avail, uint64_t used, unsigned osds)
{
	json_t *df = mon_df_json(mon), *st = mon_status_json(mon);

	cr_assert_eq((uint64_t)jnum(df, "stats.total_bytes"), total);
	cr_assert_eq((uint64_t)jnum(df, "stats.total_avail_bytes"), avail);
	cr_assert_eq((uint64_t)jnum(df, "stats.total_used_bytes"), used);
	cr_assert_eq((uint64_t)jnum(df, "stats.total_used_raw_bytes"),
	    total - avail);
	cr_assert_eq((unsigned)jnum(df, "stats.num_osds"), osds);
	cr_assert_eq((uint64_t)jnum(st, "pgmap.bytes_total"), total);
	cr_assert_eq((uint64_t)jnum(st, "pgmap.bytes_avail"), avail);
	cr_assert_eq((uint64_t)jnum(st, "pgmap.bytes_used"), total - avail);
	json_decref(df);
	json_decref(st);
	check_derived();
}

/*
 * The sums follow the beacons and the map: an out OSD counts as zero, a
 * down one keeps its last figures, a removed one's are forgotten.
 */
Test(mon, capacity_follows_beacons_in_out_down_and_removal)
{
	int32_t id;

	make_osds(4);
	cr_assert_eq(pool_create("rbd", 16, 2), 0);
	assert_df(0, 0, 0, 0);
	cr_assert_eq(beacon(0, 100 * GIB, 20 * GIB, 80 * GIB), 0);
	cr_assert_eq(beacon(1, 100 * GIB, 50 * GIB, 50 * GIB), 0);
	cr_assert_eq(beacon(2, 200 * GIB, 10 * GIB, 189 * GIB), 0);
	assert_df(400 * GIB, 319 * GIB, 80 * GIB, 3);
	cr_assert_eq(beacon(1, 100 * GIB, 60 * GIB, 40 * GIB), 0);
	assert_df(400 * GIB, 309 * GIB, 90 * GIB, 3);

	cr_assert_eq(osd_op(mon_osd_out, 2), 0);
	assert_df(200 * GIB, 120 * GIB, 80 * GIB, 2);
	cr_assert_eq(osd_op(mon_osd_in, 2), 0);
	assert_df(400 * GIB, 309 * GIB, 90 * GIB, 3);
	cr_assert_eq(osd_reweight(2, 0), 0);
	assert_df(200 * GIB, 120 * GIB, 80 * GIB, 2);
	cr_assert_eq(osd_reweight(2, 0.5), 0);
	assert_df(400 * GIB, 309 * GIB, 90 * GIB, 3);

	cr_assert_eq(osd_down(0), 0);
	assert_df(400 * GIB, 309 * GIB, 90 * GIB, 3);
	cr_assert_eq(osd_rm(0), 0);
	assert_df(300 * GIB, 229 * GIB, 70 * GIB, 2);
	/* The id given again is a new OSD: nothing known of it. */
	cr_assert_eq(osd_create(-1, &id), 0);
	cr_assert_eq(id, 0);
	cr_assert_eq(osd_boot(0), 0);
	assert_df(300 * GIB, 229 * GIB, 70 * GIB, 2);
	cr_assert_eq(beacon(0, 10 * GIB, 1 * GIB, 9 * GIB), 0);
	assert_df(310 * GIB, 238 * GIB, 71 * GIB, 3);
}

Test(mon, df_and_osd_df_give_cephs_figures)
{
	json_t *df, *p, *odf, *n;
	double raw, want_raw, util[3] = { 30, 50, 10 }, avg = 25, dev = 0;
	json_int_t pgs = 0;
	size_t i;

	make_osds(3);
	cr_assert_eq(pool_create("rbd", 8, 2), 0);
	cr_assert_eq(pool_create("meta", 8, 3), 0);
	cr_assert_eq(beacon(0, 100 * GIB, 30 * GIB, 70 * GIB), 0);
	cr_assert_eq(beacon(1, 100 * GIB, 50 * GIB, 50 * GIB), 0);
	cr_assert_eq(beacon(2, 200 * GIB, 20 * GIB, 180 * GIB), 0);
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 10);
	settle();

	/*
	 * MAX AVAIL: each OSD may fill to full_ratio; osd.1 has the least
	 * room, 50 - 5 GiB, for a third of the weight: 135 GiB raw.
	 */
	want_raw = 3.0 * (50.0 - 0.05 * 100.0) * (double)GIB;
	df = mon_df_json(mon);
	cr_assert_eq(json_array_size(json_object_get(df, "pools")), 2);
	cr_assert_eq(json_object_size(json_object_get(df, "stats_by_class")), 0,
	    "no device classes yet");
	json_array_foreach(json_object_get(df, "pools"), i, p) {
		const char *name = json_string_value(
		    json_object_get(p, "name"));
		unsigned size = strcmp(name, "rbd") == 0 ? 2 : 3;
		double used = 8.0 * 10 * 4096 * size;

		cr_assert_eq(jnum(p, "id"), i + 1);
		cr_assert_eq(jnum(p, "pgs"), 8);
		cr_assert_eq(jnum(p, "stats.stored"), 8 * 10 * 4096);
		cr_assert_eq(jnum(p, "stats.objects"), 80);
		cr_assert_eq(jnum(p, "stats.bytes_used"), used);
		cr_assert_eq(jnum(p, "stats.kb_used"), used / 1024);
		raw = jnum(p, "stats.max_avail") * size;
		cr_assert(fabs(raw - want_raw) < 4096,
		    "%s: max_avail %.0f x "
		    "%u, want %.0f raw",
		    name, jnum(p, "stats.max_avail"), size, want_raw);
		cr_assert(fabs(jnum(p, "stats.percent_used") -
			      used / (used + want_raw)) < 1e-9);
	}
	json_decref(df);

	odf = mon_osd_df_json(mon);
	cr_assert_eq(json_array_size(json_object_get(odf, "nodes")), 3);
	cr_assert_eq(json_array_size(json_object_get(odf, "stray")), 0);
	json_array_foreach(json_object_get(odf, "nodes"), i, n) {
		cr_assert_eq(jnum(n, "id"), i);
		cr_assert_str_eq(json_string_value(json_object_get(n, "type")),
		    "osd");
		cr_assert_str_eq(
		    json_string_value(json_object_get(n, "status")), "up");
		cr_assert_null(json_object_get(n, "device_class"));
		cr_assert(fabs(jnum(n, "utilization") - util[i]) < 1e-9);
		cr_assert(fabs(jnum(n, "var") - util[i] / avg) < 1e-9);
		cr_assert_eq(jnum(n, "kb"), (i == 2 ? 200 : 100) * GIB / 1024);
		pgs += (json_int_t)jnum(n, "pgs");
		dev += (util[i] - avg) * (util[i] - avg);
	}
	cr_assert_eq(pgs, 8 * 2 + 8 * 3, "PGS counts every acting set");
	cr_assert_eq(jnum(odf, "summary.total_kb"), 400 * GIB / 1024);
	cr_assert_eq(jnum(odf, "summary.total_kb_used"), 100 * GIB / 1024);
	cr_assert_eq(jnum(odf, "summary.total_kb_avail"), 300 * GIB / 1024);
	cr_assert(fabs(jnum(odf, "summary.average_utilization") - avg) < 1e-9);
	cr_assert(fabs(jnum(odf, "summary.min_var") - 0.4) < 1e-9);
	cr_assert(fabs(jnum(odf, "summary.max_var") - 2.0) < 1e-9);
	cr_assert(fabs(jnum(odf, "summary.dev") - sqrt(dev / 3)) < 1e-9);
	json_decref(odf);
	check_derived();
}

/* The check of code in a health object, or NULL. */
static json_t *
health_json_check(json_t *h, const char *code)
{
	return json_object_get(json_object_get(h, "checks"), code);
}

static void
assert_check(json_t *h, const char *code, const char *severity,
    const char *summary, const char *detail)
{
	json_t *c = health_json_check(h, code), *d;
	size_t i;
	int found = 0;

	cr_assert_not_null(c, "%s is not raised", code);
	cr_assert_str_eq(json_string_value(json_object_get(c, "severity")),
	    severity);
	cr_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(c, "summary"), "message")),
	    summary);
	json_array_foreach(json_object_get(c, "detail"), i, d)
		found |= strcmp(
			     json_string_value(json_object_get(d, "message")),
			     detail) == 0;
	cr_assert(found, "%s has no detail '%s'", code, detail);
}

/* Turn the loop until the cluster log holds text (the health tick). */
static void
wait_for_log(const char *text)
{
	int i;

	for (i = 0; i < 500 && !log_has(text); i++) {
		turn();
		settle();
	}
	cr_assert(log_has(text), "the cluster log has no '%s'", text);
}

Test(mon, fullness_checks_are_raised_and_cleared)
{
	json_t *h;
	char st[512];
	static const char *const codes[] = { "OSD_FULL", "OSD_BACKFILLFULL",
		"OSD_NEARFULL", "POOL_FULL", "POOL_BACKFILLFULL",
		"POOL_NEARFULL" };
	size_t i;

	make_osds(3);
	cr_assert_eq(pool_create("rbd", 8, 3), 0);
	cr_assert_eq(pool_create("meta", 8, 3), 0);
	cr_assert_eq(beacon(0, 100 * GIB, 86 * GIB, 14 * GIB), 0);
	cr_assert_eq(beacon(1, 100 * GIB, 40 * GIB, 60 * GIB), 0);
	cr_assert_eq(beacon(2, 100 * GIB, 40 * GIB, 60 * GIB), 0);
	h = mon_health_json(mon, 1);
	assert_check(h, "OSD_NEARFULL", "HEALTH_WARN", "1 nearfull osd(s)",
	    "osd.0 is near full");
	assert_check(h, "POOL_NEARFULL", "HEALTH_WARN", "2 pool(s) nearfull",
	    "pool 'meta' is nearfull");
	cr_assert_null(health_json_check(h, "OSD_FULL"));
	json_decref(h);
	wait_for_log("Health check failed: 1 nearfull osd(s) (OSD_NEARFULL)");

	/* Used, not allocated, decides: raw use past 0.90. */
	cr_assert_eq(beacon(1, 100 * GIB, 80 * GIB, 9 * GIB), 0);
	h = mon_health_json(mon, 1);
	assert_check(h, "OSD_BACKFILLFULL", "HEALTH_WARN",
	    "1 backfillfull osd(s)", "osd.1 is backfill full");
	assert_check(h, "POOL_BACKFILLFULL", "HEALTH_WARN",
	    "2 pool(s) backfillfull", "pool 'rbd' is backfillfull");
	cr_assert_null(health_json_check(h, "POOL_NEARFULL"),
	    "a pool is in its worst check only");
	json_decref(h);

	cr_assert_eq(beacon(2, 100 * GIB, 96 * GIB, 4 * GIB), 0);
	h = mon_health_json(mon, 1);
	cr_assert_str_eq(json_string_value(json_object_get(h, "status")),
	    "HEALTH_ERR");
	assert_check(h, "OSD_FULL", "HEALTH_ERR", "1 full osd(s)",
	    "osd.2 is full");
	assert_check(h, "POOL_FULL", "HEALTH_WARN", "2 pool(s) full",
	    "pool 'rbd' is full (no space)");
	cr_assert_not_null(health_json_check(h, "OSD_BACKFILLFULL"));
	cr_assert_not_null(health_json_check(h, "OSD_NEARFULL"));
	cr_assert_null(health_json_check(h, "POOL_BACKFILLFULL"));
	json_decref(h);
	check_derived();
	wait_for_log("Health check failed: 1 full osd(s) (OSD_FULL)");

	/* A new ratio judges every OSD again, once it commits. */
	cr_assert_eq(set_ratio(MON_RATIO_FULL, 0.97, st, sizeof st), 0, "%s",
	    st);
	h = mon_health_json(mon, 1);
	cr_assert_null(health_json_check(h, "OSD_FULL"));
	assert_check(h, "OSD_BACKFILLFULL", "HEALTH_WARN",
	    "2 backfillfull osd(s)", "osd.2 is backfill full");
	json_decref(h);
	wait_for_log("Health check cleared: OSD_FULL");
	check_derived();

	/* Space given back clears them all. */
	for (i = 0; i < 3; i++)
		cr_assert_eq(beacon((int32_t)i, 100 * GIB, 10 * GIB, 90 * GIB),
		    0);
	h = mon_health_json(mon, 1);
	for (i = 0; i < nitems(codes); i++)
		cr_assert_null(health_json_check(h, codes[i]),
		    "%s still raised", codes[i]);
	json_decref(h);
	/* A down OSD keeps its last figures, and with them its state. */
	cr_assert_eq(beacon(1, 100 * GIB, 90 * GIB, 10 * GIB), 0);
	cr_assert_eq(osd_down(1), 0);
	h = mon_health_json(mon, 1);
	cr_assert_not_null(health_json_check(h, "OSD_NEARFULL"));
	json_decref(h);
	/* A removed one's go. */
	cr_assert_eq(osd_rm(1), 0);
	h = mon_health_json(mon, 1);
	cr_assert_null(health_json_check(h, "OSD_NEARFULL"));
	json_decref(h);
	check_derived();
}

Test(mon, full_ratios_keep_their_order_and_survive_a_restart)
{
	struct osdmap_inc inc;
	char st[512], *cause = NULL;
	uint32_t epoch;

	cr_assert_eq(mon_osdmap(mon)->full_ratio, 0.95);
	cr_assert_eq(mon_osdmap(mon)->backfillfull_ratio, 0.90);
	cr_assert_eq(mon_osdmap(mon)->nearfull_ratio, 0.85);
	epoch = mon_osdmap(mon)->epoch;

	cr_assert_eq(set_ratio(MON_RATIO_FULL, 0.8, st, sizeof st), -EINVAL);
	cr_assert_not_null(strstr(st,
			       "nearfull_ratio <= backfillfull_ratio "
			       "<= full_ratio"),
	    "%s", st);
	cr_assert_not_null(strstr(st, "0.85, 0.9, 0.8"), "%s", st);
	cr_assert_eq(set_ratio(MON_RATIO_NEARFULL, 0.95, st, sizeof st),
	    -EINVAL, "%s", st);
	cr_assert_eq(set_ratio(MON_RATIO_BACKFILLFULL, 0.96, st, sizeof st),
	    -EINVAL, "%s", st);
	cr_assert_eq(set_ratio(MON_RATIO_BACKFILLFULL, 0.84, st, sizeof st),
	    -EINVAL, "%s", st);
	cr_assert_eq(set_ratio(MON_RATIO_FULL, 1.2, st, sizeof st), -EINVAL);
	cr_assert_not_null(strstr(st, "from 0 to 1"), "%s", st);
	cr_assert_eq(set_ratio(MON_RATIO_NEARFULL, -0.1, st, sizeof st),
	    -EINVAL);
	cr_assert_eq(set_ratio(MON_RATIO_NEARFULL, NAN, st, sizeof st),
	    -EINVAL);
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch, "nothing was staged");

	cr_assert_eq(set_ratio(MON_RATIO_BACKFILLFULL, 0.92, st, sizeof st), 0,
	    "%s", st);
	cr_assert_str_eq(st, "osd set-backfillfull-ratio 0.92");
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1);
	cr_assert_eq(mon_osdmap(mon)->backfillfull_ratio, 0.92);
	cr_assert(log_has("backfillfull_ratio changed from 0.9 to 0.92"));
	/* The same again changes nothing. */
	cr_assert_eq(set_ratio(MON_RATIO_BACKFILLFULL, 0.92, st, sizeof st), 0);
	cr_assert_not_null(strstr(st, "already 0.92"), "%s", st);
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1);
	/* Equal neighbours are in order. */
	cr_assert_eq(set_ratio(MON_RATIO_FULL, 0.92, st, sizeof st), 0, "%s",
	    st);
	cr_assert_eq(set_ratio(MON_RATIO_NEARFULL, 0.5, st, sizeof st), 0, "%s",
	    st);

	cr_assert_eq(mon_osdmap_inc_get(mon, epoch + 1, &inc, &cause), 0, "%s",
	    cause);
	cr_assert_eq(inc.new_backfillfull_ratio, 0.92);
	cr_assert_lt(inc.new_full_ratio, 0);
	osdmap_inc_clear(&inc);

	close_mon();
	open_mon();
	cr_assert_eq(mon_osdmap(mon)->full_ratio, 0.92);
	cr_assert_eq(mon_osdmap(mon)->backfillfull_ratio, 0.92);
	cr_assert_eq(mon_osdmap(mon)->nearfull_ratio, 0.5);
	cr_assert_eq(mon_osdmap(mon)->struct_v, OSDMAP_STRUCT_V);
	settle();
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 3, "no epoch at start");
}

/*
 * An osdmap record (a full map or an incremental) of this version made one
 * of version v, as an older mapmon wrote it: version 5 appended the full
 * map's crush_version (4 bytes) and the pools' applications (a count,
 * then an id, a count and the names each: none here), version 4 the
 * hierarchy (a byte, then its record when there is one) and the pools'
 * rules (a count, then an id and a rule each), version 3 the pools'
 * pgp_num (as many), version 2 the three ratios (24 bytes) before them.
 */
static void
record_as_version(const uint8_t *key, size_t klen, int version)
{
	struct store *s = open_store();
	struct osdmap om;
	struct osdmap_inc inc;
	struct enc_buf cb = { 0 };
	void *val;
	size_t vlen, npools, cut;
	uint8_t *v;
	char *cause = NULL;

	cr_assert_eq(store_get(s, key, klen, &val, &vlen, &cause), 0, "%s",
	    cause ? cause : "missing");
	store_close(s);
	v = val;
	cr_assert_eq(v[0], 5);
	if (key[0] == KEYS_OSDMAP) {
		osdmap_init(&om);
		cr_assert_eq(osdmap_decode(val, vlen, &om, &cause), 0, "%s",
		    cause);
		npools = om.npools;
		if (om.crush != NULL)
			crush_encode(om.crush, &cb);
		osdmap_clear(&om);
	} else {
		cr_assert_eq(osdmap_inc_decode(val, vlen, &inc, &cause), 0,
		    "%s", cause);
		npools = inc.npools;
		if (inc.new_crush != NULL)
			crush_encode(inc.new_crush, &cb);
		osdmap_inc_clear(&inc);
	}
	cut = (key[0] == KEYS_OSDMAP ? 4 : 0) + 4 + 5 * npools;
	if (version < 4)
		cut += 1 + cb.len + 4 + 8 * npools;
	enc_buf_free(&cb);
	if (version < 3)
		cut += 4 + 8 * npools + (version < 2 ? 24 : 0);
	v[0] = (uint8_t)version;
	enc_put_be32(v + 2, (uint32_t)(vlen - cut - 6));
	store_change(key, klen, v, vlen - cut);
	free(val);
}

static void
record_as_version_1(const uint8_t *key, size_t klen)
{
	record_as_version(key, klen, 1);
}

/* Every osdmap and incremental of epochs 1 to epoch made as version v. */
static void
osdmaps_as_version(uint32_t epoch, int version)
{
	uint8_t key[KEYS_EPOCH_LEN];
	uint32_t e;

	for (e = 1; e <= epoch; e++) {
		keys_epoch(key, KEYS_OSDMAP, e);
		record_as_version(key, sizeof key, version);
		keys_epoch(key, KEYS_OSDMAP_INC, e);
		record_as_version(key, sizeof key, version);
	}
}

Test(mon, an_older_stores_osdmap_is_upgraded_by_the_first_commit)
{
	uint8_t key[KEYS_EPOCH_LEN];
	struct store *s;
	struct osdmap_inc inc;
	uint32_t epoch, e;
	void *val;
	size_t vlen;
	char *cause = NULL;

	make_osds(2);
	cr_assert_eq(pool_create("rbd", 8, 2), 0);
	settle();
	epoch = mon_osdmap(mon)->epoch;
	close_mon();
	/* Every full map and incremental kept, as an older mapmon left them. */
	for (e = 1; e <= epoch; e++) {
		keys_epoch(key, KEYS_OSDMAP, e);
		record_as_version_1(key, sizeof key);
		keys_epoch(key, KEYS_OSDMAP_INC, e);
		record_as_version_1(key, sizeof key);
	}
	verify_store(8);

	open_mon();
	cr_assert_eq(mon_osdmap(mon)->struct_v, 1);
	cr_assert_eq(mon_osdmap(mon)->full_ratio, OSDMAP_FULL_RATIO);
	cr_assert_eq(mon_osdmap(mon)->backfillfull_ratio,
	    OSDMAP_BACKFILLFULL_RATIO);
	cr_assert_eq(mon_osdmap(mon)->nearfull_ratio, OSDMAP_NEARFULL_RATIO);
	cr_assert_eq(mon_osdmap(mon)->max_osd, 2);
	settle();
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1,
	    "the first commit is the upgrade's epoch");
	cr_assert(log_has("osdmap upgraded from record version 1 to 5: the "
			  "default full ratios, pgp_num = pg_num"));
	/* The old incrementals still replay, changing no ratio. */
	cr_assert_eq(mon_osdmap_inc_get(mon, epoch, &inc, &cause), 0, "%s",
	    cause);
	cr_assert_lt(inc.new_full_ratio, 0);
	osdmap_inc_clear(&inc);
	cr_assert_eq(mon_osdmap_inc_get(mon, epoch + 1, &inc, &cause), 0, "%s",
	    cause);
	cr_assert_eq(inc.new_full_ratio, OSDMAP_FULL_RATIO);
	osdmap_inc_clear(&inc);
	close_mon();

	s = open_store();
	keys_epoch(key, KEYS_OSDMAP, epoch + 1);
	cr_assert_eq(store_get(s, key, sizeof key, &val, &vlen, &cause), 0);
	cr_assert_eq(((uint8_t *)val)[0], OSDMAP_STRUCT_V,
	    "the new epoch is written in the new version");
	free(val);
	store_close(s);
	verify_store(8);

	open_mon();
	cr_assert_eq(mon_osdmap(mon)->struct_v, OSDMAP_STRUCT_V);
	settle();
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1, "upgraded once");
	check_derived();
}

/* Random beacons and map changes: the kept figures equal a recount. */
Test(mon, capacity_figures_equal_a_recount_under_random_changes)
{
	struct answer a;
	unsigned seed = 7, op, i;
	uint64_t total, used;
	int32_t id;

	make_osds(10);
	cr_assert_eq(pool_create("rbd", 32, 3), 0);
	for (i = 0; i < 1500; i++) {
		memset(&a, 0, sizeof a);
		op = rnd(&seed, 12);
		id = (int32_t)rnd(&seed, 12);
		switch (op) {
		case 0:
			mon_osd_down(mon, &id, 1, answer_cb, &a);
			break;
		case 1:
			mon_osd_boot(mon, id, "127.0.0.1:1", answer_cb, &a);
			break;
		case 2:
			mon_osd_out(mon, &id, 1, answer_cb, &a);
			break;
		case 3:
			mon_osd_in(mon, &id, 1, answer_cb, &a);
			break;
		case 4:
			mon_osd_rm(mon, &id, 1, answer_cb, &a);
			break;
		case 5:
			mon_osd_create(mon, -1, answer_cb, &a);
			break;
		case 6:
			mon_osd_reweight(mon, id, rnd(&seed, 3) / 2.0,
			    answer_cb, &a);
			break;
		case 7:
			mon_osd_set_ratio(mon, (enum mon_ratio)rnd(&seed, 3),
			    0.5 + rnd(&seed, 50) / 100.0, answer_cb, &a);
			break;
		default:
			total = (1 + rnd(&seed, 100)) * GIB;
			used = total / 100 * rnd(&seed, 101);
			a.done = 1;
			(void)beacon(id, total, used,
			    total - used -
				(rnd(&seed, 2) ? 0 : (total - used) / 10));
			break;
		}
		wait_for(&a);
		json_decref(a.data);
		if (i % 50 == 0) {
			settle();
			check_derived();
		}
	}
	settle();
	check_derived();
}

/* -------------------------------------- health as Ceph raises and mutes it */

/* A report of PG 1.seed (its committed stat) in state, with scrub errors. */
static void
report_one(uint32_t seed, uint32_t state, int64_t scrub_errors)
{
	struct answer a = { 0 };
	struct pg_stat st;

	mon_settle(mon);
	st = pgmap_pool(mon_pgmap(mon), 1)->pgs[seed];
	st.state = state;
	st.num_scrub_errors = scrub_errors;
	st.reported_seq++;
	mon_pg_report(mon, st.acting_primary, &st, 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
}

/*
 * POOL_NO_REDUNDANCY (OSDMap::check_health()), PG_DAMAGED and
 * OSD_SCRUB_ERRORS (PGMap::get_health_checks()), in Ceph's words, the
 * last two errors; the checks listed by code, as Ceph's map of them.
 */
Test(mon, damage_scrub_errors_and_no_redundancy)
{
	char sum[256], line[256], want[128];
	const struct pg_stat *st;
	json_t *h;
	const char *key, *prev = "";
	json_t *v;

	make_osds(3);
	cr_assert_eq(pool_create("rbd", 8, 3), 0);
	cr_assert_eq(pool_create("scratch", 4, 1), 0);
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 1);
	cr_assert(health_check("POOL_NO_REDUNDANCY", 0, sum, line, sizeof sum));
	cr_assert_str_eq(sum, "1 pool(s) have no replicas configured");
	cr_assert_str_eq(line, "pool 'scratch' has no replicas configured");
	cr_assert_eq(mon_health_status(mon), 1);

	report_one(0, PG_STATE_ACTIVE | PG_STATE_CLEAN | PG_STATE_INCONSISTENT,
	    2);
	cr_assert(health_check("PG_DAMAGED", 0, sum, line, sizeof sum));
	cr_assert_str_eq(sum, "Possible data damage: 1 pg inconsistent");
	st = &pgmap_pool(mon_pgmap(mon), 1)->pgs[0];
	snprintf(want, sizeof want,
	    "pg 1.0 is active+clean+inconsistent, "
	    "acting [%d,%d,%d]",
	    st->acting[0], st->acting[1], st->acting[2]);
	cr_assert_str_eq(line, want);
	cr_assert(health_check("OSD_SCRUB_ERRORS", 0, sum, line, sizeof sum));
	cr_assert_str_eq(sum, "2 scrub errors");
	cr_assert_eq(mon_health_status(mon), 2);
	h = mon_health_json(mon, 0);
	cr_assert_str_eq(json_string_value(json_object_get(h, "status")),
	    "HEALTH_ERR");
	cr_assert_str_eq(json_string_value(json_object_get(
			     health_json_check(h, "PG_DAMAGED"), "severity")),
	    "HEALTH_ERR");
	json_object_foreach(json_object_get(h, "checks"), key, v) {
		cr_assert(strcmp(prev, key) < 0, "%s after %s", key, prev);
		prev = key;
	}
	json_decref(h);
	wait_for_log("Health check failed: Possible data damage: 1 pg "
		     "inconsistent (PG_DAMAGED)");

	/* Repaired: both clear, with Ceph's lines. */
	report_one(0, PG_STATE_ACTIVE | PG_STATE_CLEAN, 0);
	cr_assert(!health_check("PG_DAMAGED", 0, sum, line, sizeof sum));
	cr_assert(!health_check("OSD_SCRUB_ERRORS", 0, sum, line, sizeof sum));
	wait_for_log("Health check cleared: OSD_SCRUB_ERRORS (was: 2 scrub "
		     "errors)");
}

/*
 * A PG whose primary went down is stale: Ceph's line names how long and
 * its last acting set, "pg 1.3 is stuck stale for 2s, current state
 * stale+active+clean, last acting [0,2,1]".
 */
Test(mon, stale_pgs_are_stuck_with_their_last_acting_set)
{
	const struct pgmap_pool *pp;
	char sum[256], line[256], want[160], acting[64];
	uint32_t s, n = 0;
	json_t *h, *d, *v;
	size_t i;
	int found = 0;

	make_osds(3);
	cr_assert_eq(pool_create("rbd", 8, 3), 0);
	report_all(PG_STATE_ACTIVE | PG_STATE_CLEAN, 1);
	cr_assert_eq(osd_down(0), 0);
	settle();
	pp = pgmap_pool(mon_pgmap(mon), 1);
	for (s = 0; s < pp->pg_num; s++)
		n += (pp->pgs[s].state & PG_STATE_STALE) != 0;
	cr_assert_gt(n, 0, "osd.0 is the primary of no PG");
	cr_assert(health_check("PG_AVAILABILITY", 0, sum, line, sizeof sum));
	snprintf(want, sizeof want, "Reduced data availability: %u %s stale", n,
	    n == 1 ? "pg" : "pgs");
	cr_assert_str_eq(sum, want);
	h = mon_health_json(mon, 1);
	d = json_object_get(health_json_check(h, "PG_AVAILABILITY"), "detail");
	cr_assert_eq(json_array_size(d), n);
	for (s = 0; s < pp->pg_num; s++) {
		if (!(pp->pgs[s].state & PG_STATE_STALE))
			continue;
		snprintf(acting, sizeof acting, "[%d,%d,%d]",
		    pp->pgs[s].acting[0], pp->pgs[s].acting[1],
		    pp->pgs[s].acting[2]);
		snprintf(want, sizeof want, "pg 1.%x is stuck stale for ", s);
		json_array_foreach(d, i, v) {
			const char *msg = json_string_value(
			    json_object_get(v, "message"));

			if (strncmp(msg, want, strlen(want)) != 0)
				continue;
			cr_assert(strstr(msg,
				      ", current state "
				      "stale+active+clean, last acting ") !=
				NULL,
			    "%s", msg);
			cr_assert(strstr(msg, acting) != NULL, "%s", msg);
			found++;
		}
	}
	cr_assert_eq(found, (int)n);
	json_decref(h);
}

static int
health_mute(const char *code, const char *ttl, int sticky, char *status,
    size_t len)
{
	struct answer a = { 0 };

	mon_health_mute(mon, code, ttl, sticky, answer_cb, &a);
	wait_for(&a);
	if (status != NULL) {
		size_t k = strnlen(a.status, len - 1);

		memcpy(status, a.status, k);
		status[k] = '\0';
	}
	json_decref(a.data);
	return a.rc;
}

static int
health_unmute(const char *code)
{
	struct answer a = { 0 };

	mon_health_unmute(mon, code, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	return a.rc;
}

/* The mute of code in a health object's "mutes", or NULL. */
static json_t *
health_json_mute(json_t *h, const char *code)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(h, "mutes"), i, v)
		if (strcmp(json_string_value(json_object_get(v, "code")),
			code) == 0)
			return v;
	return NULL;
}

/*
 * As Ceph's HealthMonitor: a muted check stays listed, "muted": true, but
 * out of the status; the mute is kept across a restart; it ends when its
 * check grows, clears or its TTL passes (not a sticky one's check), each
 * with Ceph's cluster log line.
 */
Test(mon, mutes_as_cephs)
{
	char st[256];
	json_t *h, *mu;

	make_osds(3);
	cr_assert_eq(osd_down(2), 0);
	cr_assert_eq(mon_health_status(mon), 1);
	cr_assert_eq(health_mute("OSD_DOWN", NULL, 0, st, sizeof st), 0, "%s",
	    st);
	cr_assert_str_eq(st, "");
	/* Its host (of one OSD) is down too: Ceph's OSD_HOST_DOWN. */
	cr_assert_eq(mon_health_status(mon), 1);
	cr_assert_eq(health_mute("OSD_HOST_DOWN", NULL, 0, st, sizeof st), 0,
	    "%s", st);
	h = mon_health_json(mon, 0);
	cr_assert_str_eq(json_string_value(json_object_get(h, "status")),
	    "HEALTH_OK");
	cr_assert(json_is_true(
	    json_object_get(health_json_check(h, "OSD_DOWN"), "muted")));
	mu = health_json_mute(h, "OSD_DOWN");
	cr_assert_not_null(mu);
	cr_assert_str_eq(json_string_value(json_object_get(mu, "summary")),
	    "1 osds down");
	cr_assert_eq(json_integer_value(json_object_get(mu, "count")), 1);
	cr_assert(json_is_false(json_object_get(mu, "sticky")));
	cr_assert_null(json_object_get(mu, "ttl"));
	json_decref(h);
	cr_assert_eq(mon_health_status(mon), 0);

	/* Ceph's refusals. */
	cr_assert_eq(health_mute("NOSUCH", NULL, 0, st, sizeof st), -ENOENT);
	cr_assert_str_eq(st, "health alert NOSUCH is not currently raised");
	cr_assert_eq(health_mute("OSD_DOWN", "0", 0, st, sizeof st), -EINVAL);
	cr_assert_str_eq(st, "invalid duration: 0 (timespan = 0)");
	cr_assert_eq(health_mute("OSD_DOWN", "5x", 0, st, sizeof st), -EINVAL);
	cr_assert_str_eq(st, "invalid duration: 5x (unrecognized unit 'x')");
	cr_assert_eq(health_mute("", NULL, 0, st, sizeof st), -EINVAL);

	/* A sticky mute of what is not raised, kept across a restart. */
	cr_assert_eq(health_mute("NOSUCH", "1h", 1, st, sizeof st), 0, "%s",
	    st);
	settle();
	close_mon();
	open_mon();
	h = mon_health_json(mon, 0);
	cr_assert_not_null(health_json_mute(h, "OSD_DOWN"));
	mu = health_json_mute(h, "NOSUCH");
	cr_assert_not_null(mu);
	cr_assert(json_is_true(json_object_get(mu, "sticky")));
	cr_assert_str_eq(json_string_value(json_object_get(mu, "summary")), "");
	cr_assert_not_null(json_object_get(mu, "ttl"));
	json_decref(h);
	cr_assert_eq(mon_health_status(mon), 0);

	/* The check grows: the mute ends. */
	cr_assert_eq(osd_down(1), 0);
	wait_for_log("Health alert mute OSD_DOWN cleared (count increased "
		     "from 1 to 2)");
	cr_assert_eq(mon_health_status(mon), 1);

	/* The check clears: the mute ends. */
	cr_assert_eq(health_mute("OSD_DOWN", NULL, 0, st, sizeof st), 0);
	cr_assert_eq(osd_boot(1), 0);
	cr_assert_eq(osd_boot(2), 0);
	wait_for_log("Health alert mute OSD_DOWN cleared (health alert "
		     "cleared)");

	/* Its TTL passes: even a sticky one ends. */
	cr_assert_eq(health_mute("OTHER", "1s", 1, st, sizeof st), 0);
	wait_for_log("Health alert mute OTHER cleared (passed TTL ");
	h = mon_health_json(mon, 0);
	cr_assert_null(health_json_mute(h, "OTHER"));
	cr_assert_not_null(health_json_mute(h, "NOSUCH"));
	json_decref(h);

	/* Unmuting what is not muted is fine; no code unmutes all. */
	cr_assert_eq(health_unmute("NEVER"), 0);
	cr_assert_eq(health_unmute(NULL), 0);
	h = mon_health_json(mon, 0);
	cr_assert_eq(json_array_size(json_object_get(h, "mutes")), 0);
	json_decref(h);
	settle();
	close_mon();
	open_mon();
	h = mon_health_json(mon, 0);
	cr_assert_eq(json_array_size(json_object_get(h, "mutes")), 0);
	json_decref(h);
}

/*
 * As Ceph's Monitor::log_health(): a summary that changes alone is logged
 * as "Health check update" once a period (5 s) at most, the newest once
 * the period is over.
 */
Test(mon, health_updates_are_logged_once_a_period)
{
	int64_t end;
	int i;

	make_osds(4);
	cr_assert_eq(osd_down(0), 0);
	wait_for_log("Health check failed: 1 osds down (OSD_DOWN)");
	cr_assert_eq(osd_down(1), 0);
	cr_assert_eq(osd_down(2), 0);
	for (i = 0; i < 100; i++) {
		turn();
		settle();
	}
	cr_assert_eq(log_count("Health check update"), 0,
	    "an update logged within the period");
	/*
	 * The tick logs the newest summary, once.  Waited for by the clock
	 * (the period is 5 s): turns end early when other timers fire.
	 */
	end = stamp_mono() + 12 * 1000000;
	while (stamp_mono() < end &&
	    !log_has("Health check update: 3 osds down")) {
		turn();
		settle();
	}
	cr_assert(log_has("Health check update: 3 osds down (OSD_DOWN)"));
	/* And their hosts, one OSD each (Ceph's OSD_HOST_DOWN), once too. */
	end = stamp_mono() + 12 * 1000000;
	while (stamp_mono() < end &&
	    !log_has("Health check update: 3 hosts (3 osds) down "
		     "(OSD_HOST_DOWN)")) {
		turn();
		settle();
	}
	cr_assert_eq(log_count("Health check update: 3 osds down"), 1);
	cr_assert_eq(log_count("Health check update: 3 hosts (3 osds) down"),
	    1);
	cr_assert_eq(log_count("Health check update"), 2);
}

/* The PGs of a stuck type, for threshold seconds (mon_pg_dump_stuck_walk). */
static size_t
stuck_count(const char *type, int64_t threshold)
{
	struct mon_pg_walk *w;
	char *status = NULL;
	json_t *d;
	size_t n;

	cr_assert_eq(mon_pg_dump_stuck_walk(mon, (const char *[]){ type }, 1,
			 threshold, &w, &status),
	    0, "%s", status);
	d = walk_all(w, &status);
	cr_assert_str_eq(status, "ok");
	free(status);
	n = json_array_size(json_object_get(d, "stuck_pg_stats"));
	json_decref(d);
	return n;
}

/* A reporter that keeps neither last_fullsized nor last_undegraded. */
static void
report_fill_unstamped(struct pg_stat *st, int size, void *arg)
{
	report_fill(st, size, arg);
	st->last_fullsized = st->last_undegraded = 0;
}

static void
report_unstamped(uint32_t state)
{
	uint64_t objects = 1;

	mon_report_util_all(mon, state, report_fill_unstamped, report_send,
	    &objects);
}

/*
 * Ceph's stuck types, each since its own stamp: undersized since
 * last_fullsized, degraded since last_undegraded, both kept by the monitor
 * when a reporter sends none.
 */
Test(mon, stuck_undersized_and_degraded)
{
	const struct pg_stat *st;
	int64_t created;

	make_osds(3);
	cr_assert_eq(pool_create("rbd", 8, 3), 0);
	mon_settle(mon);
	created = pgmap_pool(mon_pgmap(mon), 1)->pgs[0].last_change;
	cr_assert_eq(pgmap_pool(mon_pgmap(mon), 1)->pgs[0].last_fullsized,
	    created);
	report_unstamped(
	    PG_STATE_ACTIVE | PG_STATE_UNDERSIZED | PG_STATE_DEGRADED);
	st = &pgmap_pool(mon_pgmap(mon), 1)->pgs[0];
	cr_assert_eq(st->last_fullsized, created, "kept while undersized");
	cr_assert_eq(st->last_undegraded, created, "kept while degraded");
	cr_assert_eq(stuck_count("undersized", 0), 8);
	cr_assert_eq(stuck_count("degraded", 0), 8);
	cr_assert_eq(stuck_count("unclean", 0), 8);
	cr_assert_eq(stuck_count("inactive", 0), 0);
	cr_assert_eq(stuck_count("stale", 0), 0);
	cr_assert_eq(stuck_count("undersized", 3600), 0);
	/* Longer than the clock has run, as a client may send: none. */
	cr_assert_eq(stuck_count("unclean", 550201614775819), 0);
	cr_assert_eq(stuck_count("unclean", INT64_MAX), 0);

	report_unstamped(PG_STATE_ACTIVE | PG_STATE_CLEAN);
	st = &pgmap_pool(mon_pgmap(mon), 1)->pgs[0];
	cr_assert_gt(st->last_fullsized, created);
	cr_assert_eq(st->last_fullsized, st->last_undegraded);
	cr_assert_eq(stuck_count("undersized", 0), 0);
	cr_assert_eq(stuck_count("unclean", 0), 0);
}

/* Ceph's LogEntry keys, and `log last''s level and channel. */
Test(mon, log_tail_as_cephs)
{
	json_t *a, *e;
	size_t i;

	make_osds(2);
	cr_assert_eq(osd_down(1), 0);
	wait_for_log("Health check failed: 1 osds down (OSD_DOWN)");
	a = mon_log_tail_json(mon, 20, MON_LOG_INFO, 1);
	cr_assert_geq(json_array_size(a), 3);
	e = json_array_get(a, json_array_size(a) - 1);
	cr_assert_str_eq(json_string_value(json_object_get(e, "name")),
	    "mon.a");
	cr_assert_str_eq(json_string_value(json_object_get(e, "rank")),
	    "mon.0");
	cr_assert_str_eq(json_string_value(json_object_get(e, "channel")),
	    "cluster");
	cr_assert_str_eq(json_string_value(json_object_get(e, "priority")),
	    "[WRN]");
	cr_assert(json_is_integer(json_object_get(e, "seq")));
	cr_assert_str_eq(
	    json_string_value(json_object_get(
		json_array_get(
		    json_object_get(json_object_get(e, "addrs"), "addrvec"), 0),
		"addr")),
	    "127.0.0.1:6788");
	json_decref(a);
	a = mon_log_tail_json(mon, 20, MON_LOG_WARN, 1);
	/* OSD_DOWN's and its host's OSD_HOST_DOWN's "Health check failed". */
	cr_assert_eq(json_array_size(a), 2);
	json_array_foreach(a, i, e)
		cr_assert_str_eq(
		    json_string_value(json_object_get(e, "severity")), "WRN");
	json_decref(a);
	a = mon_log_tail_json(mon, 1, MON_LOG_INFO, 1);
	cr_assert_eq(json_array_size(a), 1);
	json_decref(a);
	a = mon_log_tail_json(mon, 20, MON_LOG_INFO, 0);
	cr_assert_eq(json_array_size(a), 0);
	json_decref(a);
}

/* ---- Ceph's pool and OSD commands (mapmon(8), "Ceph fidelity") ---- */

/* mon_pool_set with the answer's status into st; its rc. */
static int
pool_set(const char *name, const char *key, const char *val, int sure, char *st,
    size_t len)
{
	struct answer a = { 0 };

	mon_pool_set(mon, name, key, val, sure, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	if (st != NULL)
		snprintf(st, len, "%s", a.status);
	return a.rc;
}

static const struct osdmap_pool *
pool_named(const char *name)
{
	const struct osdmap_pool *p = osdmap_pool_by_name(mon_osdmap(mon),
	    name);

	cr_assert_not_null(p, "pool '%s'", name);
	return p;
}

/*
 * A new size brings min_size = size - size/2, as Ceph's
 * prepare_command_pool_set() sets it (seen on ceph 16.2.15: size 2 -> 1,
 * 4 -> 2, 5 -> 3): after size 1 then 3, a 3-way pool needs two copies
 * again.
 */
Test(mon, size_sets_min_size_as_ceph)
{
	char st[512], v[16], want[64];
	int size;

	make_osds(3);
	cr_assert_eq(pool_create("p", 8, 3), 0);
	cr_assert_eq(pool_named("p")->min_size, 2);
	for (size = 2; size <= 10; size++) {
		snprintf(v, sizeof v, "%d", size);
		cr_assert_eq(pool_set("p", "size", v, 0, st, sizeof st), 0,
		    "%s", st);
		snprintf(want, sizeof want, "set pool 1 size to %d", size);
		cr_assert_str_eq(st, want);
		cr_assert_eq(pool_named("p")->size, (uint32_t)size);
		cr_assert_eq(pool_named("p")->min_size,
		    (uint32_t)(size - size / 2), "size %d", size);
	}
	params.allow_pool_size_one = 1;
	mon_set_params(mon, &params);
	cr_assert_eq(pool_set("p", "size", "1", 1, st, sizeof st), 0, "%s", st);
	cr_assert_eq(pool_named("p")->min_size, 1);
	cr_assert_eq(pool_set("p", "size", "3", 0, st, sizeof st), 0, "%s", st);
	cr_assert_str_eq(st, "set pool 1 size to 3");
	cr_assert_eq(pool_named("p")->min_size, 2, "min_size follows back up");
	/* The same value again: Ceph's words, rc 0, no new epoch. */
	{
		uint32_t epoch = mon_osdmap(mon)->epoch;

		cr_assert_eq(pool_set("p", "size", "3", 0, st, sizeof st), 0);
		cr_assert_str_eq(st, "set pool 1 size to 3");
		cr_assert_eq(mon_osdmap(mon)->epoch, epoch);
	}
	/* min_size stays within 1 .. size (Ceph's message). */
	cr_assert_eq(pool_set("p", "min_size", "4", 0, st, sizeof st), -EINVAL);
	cr_assert_str_eq(st,
	    "pool min_size must be between 1 and size, which "
	    "is set to 3");
	cr_assert_eq(pool_set("p", "size", "11", 0, st, sizeof st), -EINVAL);
	cr_assert_str_eq(st, "pool size must be between 1 and 10");
	cr_assert_eq(pool_set("p", "size", "0", 0, st, sizeof st), -EINVAL);
	cr_assert_eq(pool_set("p", "size", "three", 0, st, sizeof st), -EINVAL);
	cr_assert_str_eq(st,
	    "error parsing integer value 'three': Expected "
	    "option value to be integer, got 'three'");
	check_derived();
}

/*
 * Size 1 (seen on ceph 16.2.15): refused with EPERM while
 * mon_allow_pool_size_one is false, even with --yes-i-really-mean-it;
 * once it is true, refused without the flag.
 */
Test(mon, size_one_needs_the_option_and_the_flag)
{
	char st[512];

	make_osds(3);
	cr_assert_eq(pool_create("p", 8, 3), 0);
	cr_assert_eq(pool_set("p", "size", "1", 0, st, sizeof st), -EPERM);
	cr_assert_str_eq(st,
	    "configuring pool size as 1 is disabled by "
	    "default.");
	cr_assert_eq(pool_set("p", "size", "1", 1, st, sizeof st), -EPERM);
	cr_assert_str_eq(st,
	    "configuring pool size as 1 is disabled by "
	    "default.");
	params.allow_pool_size_one = 1;
	mon_set_params(mon, &params);
	cr_assert_eq(pool_set("p", "size", "1", 0, st, sizeof st), -EPERM);
	cr_assert_not_null(strstr(st, "pass the flag --yes-i-really-mean-it"),
	    "%s", st);
	cr_assert_eq(pool_named("p")->size, 3, "refused: nothing changed");
	cr_assert_eq(pool_set("p", "size", "1", 1, st, sizeof st), 0, "%s", st);
	cr_assert_eq(pool_named("p")->size, 1);
	/* A new pool of size 1 needs neither, as in Ceph. */
	cr_assert_eq(pool_create("one", 4, 1), 0);
}

/*
 * pgp_num: pg_num unless given; within 1 .. pg_num (Ceph's messages);
 * follows pg_num up unless it was set apart (seen on ceph 16.2.15); kept
 * across a restart.
 */
Test(mon, pgp_num_is_kept_beside_pg_num)
{
	struct answer a = { 0 };
	char st[512];

	make_osds(3);
	cr_assert_eq(pool_create("p", 8, 3), 0);
	cr_assert_eq(pool_named("p")->pgp_num, 8);
	mon_pool_create(mon, "q", 8, 4, 0, NULL, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_eq(pool_named("q")->pgp_num, 4);
	cr_assert_eq(pool_named("q")->size, 3, "osd_pool_default_size");
	memset(&a, 0, sizeof a);
	mon_pool_create(mon, "r", 4, 8, 0, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -ERANGE);
	cr_assert_str_eq(a.status,
	    "'pgp_num' must be greater than 0 and lower "
	    "or equal than 'pg_num', which in this case is 4");
	/* pg_num 0 is osd_pool_default_pg_num. */
	params.osd_pool_default_pg_num = 16;
	mon_set_params(mon, &params);
	cr_assert_eq(pool_create("d", 0, 3), 0);
	cr_assert_eq(pool_named("d")->pg_num, 16);
	cr_assert_eq(pool_named("d")->pgp_num, 16);

	cr_assert_eq(pool_set("p", "pgp_num", "9", 0, st, sizeof st), -EINVAL);
	cr_assert_str_eq(st, "specified pgp_num 9 > pg_num 8");
	cr_assert_eq(pool_set("p", "pgp_num", "0", 0, st, sizeof st), -EINVAL);
	cr_assert_str_eq(st, "specified pgp_num must > 0, but you set to 0");
	cr_assert_eq(pool_set("p", "pg_num", "16", 0, st, sizeof st), 0);
	cr_assert_eq(pool_named("p")->pgp_num, 16, "follows pg_num");
	cr_assert_eq(pool_set("q", "pg_num", "16", 0, st, sizeof st), 0);
	cr_assert_eq(pool_named("q")->pgp_num, 4, "set apart: stays");
	cr_assert_eq(pool_set("q", "pgp_num", "12", 0, st, sizeof st), 0);
	cr_assert_str_eq(st, "set pool 2 pgp_num to 12");
	cr_assert_eq(pool_set("p", "pg_num", "0", 0, st, sizeof st), -ERANGE);
	cr_assert_str_eq(st,
	    "'pg_num' must be greater than 0 and less than or "
	    "equal to 65536 (you may adjust 'mon max pool pg num' for higher "
	    "values)");
	cr_assert_eq(
	    pool_set("p", "crush_rule", "replicated_rule", 0, st, sizeof st), 0,
	    "%s", st);
	cr_assert_eq(pool_set("p", "crush_rule", "fast", 0, st, sizeof st),
	    -ENOENT);
	cr_assert_eq(pool_set("nosuch", "size", "2", 0, st, sizeof st),
	    -ENOENT);
	cr_assert_str_eq(st, "unrecognized pool 'nosuch'");
	close_mon();
	open_mon();
	cr_assert_eq(pool_named("q")->pgp_num, 12);
	cr_assert_eq(pool_named("q")->pg_num, 16);
	check_derived();
}

/* `osd pool get': one key, or all of them; Ceph's ENOENT words. */
Test(mon, pool_get_one_key_or_all)
{
	json_t *out = NULL;
	char *status = NULL;

	make_osds(3);
	cr_assert_eq(pool_create("p", 8, 3), 0);
	cr_assert_eq(mon_pool_get_json(mon, "p", "pgp_num", &out, &status), 0);
	cr_assert_str_eq(status, "pgp_num: 8");
	cr_assert_eq(json_integer_value(json_object_get(out, "pgp_num")), 8);
	cr_assert_eq(json_integer_value(json_object_get(out, "pool_id")), 1);
	cr_assert_null(json_object_get(out, "size"));
	json_decref(out);
	free(status);
	cr_assert_eq(mon_pool_get_json(mon, "p", "all", &out, &status), 0);
	cr_assert_eq(json_integer_value(json_object_get(out, "size")), 3);
	cr_assert_eq(json_integer_value(json_object_get(out, "min_size")), 2);
	cr_assert_str_eq(json_string_value(json_object_get(out, "crush_rule")),
	    "replicated_rule");
	json_decref(out);
	free(status);
	out = NULL;
	cr_assert_eq(mon_pool_get_json(mon, "q", "size", &out, &status),
	    -ENOENT);
	cr_assert_str_eq(status, "unrecognized pool 'q'");
	cr_assert_null(out);
	free(status);
}

/*
 * Ceph's idempotency of pools (seen on ceph 16.2.15): a pool created again
 * and a repeated rename are rc 0 with its notes; a rename to a name taken
 * is EEXIST, of a pool that is not there ENOENT.
 */
Test(mon, pool_idempotency_as_ceph)
{
	struct answer a = { 0 };

	make_osds(3);
	cr_assert_eq(pool_create("p2", 16, 3), 0);
	mon_pool_create(mon, "p2", 16, 0, 3, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	cr_assert_str_eq(a.status, "pool 'p2' already exists");
	cr_assert_eq(mon_osdmap(mon)->npools, 1);
	memset(&a, 0, sizeof a);
	mon_pool_rename(mon, "p2", "p3", answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_str_eq(a.status, "pool 'p2' renamed to 'p3'");
	memset(&a, 0, sizeof a);
	mon_pool_rename(mon, "p2", "p3", answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	cr_assert_str_eq(a.status,
	    "pool 'p2' does not exist; pool 'p3' does "
	    "-- assuming successful rename");
	memset(&a, 0, sizeof a);
	mon_pool_rename(mon, "nosuch", "p4", answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -ENOENT);
	cr_assert_str_eq(a.status, "unrecognized pool 'nosuch'");
	cr_assert_eq(pool_create("p5", 4, 3), 0);
	memset(&a, 0, sizeof a);
	mon_pool_rename(mon, "p5", "p3", answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EEXIST);
	cr_assert_str_eq(a.status, "pool 'p3' already exists");
}

/* mon_osd_* of a list; the status into st; its rc. */
static int
osd_list(
    void (*fn)(struct mon *, const int32_t *, size_t, mon_done_cb *, void *),
    const int32_t *ids, size_t n, char *st, size_t len)
{
	struct answer a = { 0 };

	fn(mon, ids, n, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	snprintf(st, len, "%s", a.status);
	return a.rc;
}

/*
 * `osd down|out|in|rm' of a list, a sentence per id as Ceph's
 * OSDMonitor::prepare_command_impl() writes them (seen on ceph 16.2.15),
 * and its any|all for every OSD.
 */
Test(mon, osd_lists_as_ceph)
{
	int32_t ids[] = { 0, 1, 7 }, all = MON_OSD_ALL, one = 1, bad = -5;
	char st[512];

	make_osds(3);
	cr_assert_eq(osd_list(mon_osd_out, ids, 2, st, sizeof st), 0);
	cr_assert_str_eq(st, "marked out osd.0. marked out osd.1. ");
	cr_assert(!osdmap_osd(mon_osdmap(mon), 1)->in);
	cr_assert_eq(osd_list(mon_osd_out, ids, 3, st, sizeof st), 0);
	cr_assert_str_eq(st,
	    "osd.0 is already out. osd.1 is already out. "
	    "osd.7 does not exist. ");
	cr_assert_eq(osd_list(mon_osd_in, &one, 1, st, sizeof st), 0);
	cr_assert_str_eq(st, "marked in osd.1. ");
	/* in any: the OSDs that are out, without the "already" notes. */
	cr_assert_eq(osd_list(mon_osd_in, &all, 1, st, sizeof st), 0);
	cr_assert_str_eq(st, "marked in osd.0. ");
	cr_assert_eq(osd_list(mon_osd_in, &all, 1, st, sizeof st), 0);
	cr_assert_str_eq(st, "");
	cr_assert_eq(osd_list(mon_osd_down, &all, 1, st, sizeof st), 0);
	cr_assert_str_eq(st,
	    "marked down osd.0. marked down osd.1. marked "
	    "down osd.2. ");
	cr_assert_eq(osd_list(mon_osd_down, ids, 3, st, sizeof st), 0);
	cr_assert_str_eq(st,
	    "osd.0 is already down. osd.1 is already down. "
	    "osd.7 does not exist. ");
	cr_assert_eq(osd_list(mon_osd_down, &bad, 1, st, sizeof st), -EINVAL);
	/* rm: every one down; "removed osd.0, osd.1", Ceph's words. */
	cr_assert_eq(osd_boot(2), 0);
	cr_assert_eq(osd_list(mon_osd_rm, &all, 1, st, sizeof st), -EBUSY);
	cr_assert_str_eq(st,
	    "osd.2 is still up; must be down before "
	    "removal. ");
	cr_assert_not_null(osdmap_osd(mon_osdmap(mon), 0), "none removed");
	cr_assert_eq(osd_list(mon_osd_rm, ids, 3, st, sizeof st), 0);
	cr_assert_str_eq(st, "removed osd.0, osd.1osd.7 does not exist. ");
	cr_assert_null(osdmap_osd(mon_osdmap(mon), 1));
	cr_assert_eq(osd_list(mon_osd_rm, ids, 1, st, sizeof st), 0);
	cr_assert_str_eq(st, "osd.0 does not exist. ");
	check_derived();
}

/*
 * An OSD that boots without an address keeps the one it has; an out OSD
 * weighs 0 in `osd dump', its reweight kept apart.
 */
Test(mon, osd_boot_keeps_its_address_and_out_weighs_zero)
{
	struct answer a = { 0 };
	int32_t id = 0;
	json_t *j, *o;

	make_osds(2);
	cr_assert_str_eq(osdmap_osd(mon_osdmap(mon), 0)->addr,
	    "127.0.0.1:6800");
	cr_assert_eq(osd_down(0), 0);
	mon_osd_boot(mon, 0, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert(osdmap_osd(mon_osdmap(mon), 0)->up);
	cr_assert_str_eq(osdmap_osd(mon_osdmap(mon), 0)->addr,
	    "127.0.0.1:6800");
	memset(&a, 0, sizeof a);
	mon_osd_reweight(mon, 0, 0.5, answer_cb, &a);
	wait_for(&a);
	cr_assert_str_eq(a.status, "reweighted osd.0 to 0.5 (8000)");
	cr_assert_eq(osd_op(mon_osd_out, id), 0);
	j = osdmap_to_json(mon_osdmap(mon));
	o = json_array_get(json_object_get(j, "osds"), 0);
	cr_assert_eq(json_real_value(json_object_get(o, "weight")), 0.0);
	cr_assert_eq(json_real_value(json_object_get(o, "reweight")), 0.5);
	json_decref(j);
	cr_assert_eq(osd_op(mon_osd_in, id), 0);
	cr_assert_eq(osdmap_osd(mon_osdmap(mon), 0)->reweight,
	    OSDMAP_WEIGHT_ONE / 2, "in again with its reweight");
}

/* "noup is set" whether it was or not; pause is Ceph's pair of words. */
Test(mon, flags_answer_in_cephs_words)
{
	struct answer a = { 0 };
	uint32_t epoch = mon_osdmap(mon)->epoch;

	mon_osd_set_flag(mon, "pause", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_str_eq(a.status, "pauserd,pausewr is set");
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1);
	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "pause", 1, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	cr_assert_str_eq(a.status, "pauserd,pausewr is set");
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1, "no new epoch");
	memset(&a, 0, sizeof a);
	mon_osd_set_flag(mon, "noup", 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_str_eq(a.status, "noup is unset");
}

/* `osd dump EPOCH' and the others read the kept epochs. */
Test(mon, older_epochs_are_read_from_the_store)
{
	struct osdmap om;
	char *status = NULL;
	uint32_t epoch;

	make_osds(2);
	epoch = mon_osdmap(mon)->epoch;
	cr_assert_eq(pool_create("p", 8, 3), 0);
	osdmap_init(&om);
	cr_assert_eq(mon_osdmap_at(mon, epoch, &om, &status), 0, "%s", status);
	cr_assert_eq(om.epoch, epoch);
	cr_assert_eq(om.npools, 0, "the pool came after");
	cr_assert_eq(om.max_osd, 2);
	cr_assert_eq(mon_osdmap_at(mon, 0, &om, &status), 0);
	cr_assert_eq(om.epoch, mon_osdmap(mon)->epoch);
	cr_assert_eq(om.npools, 1);
	cr_assert_eq(
	    mon_osdmap_at(mon, mon_osdmap(mon)->epoch + 1, &om, &status),
	    -ENOENT);
	cr_assert_str_eq(status, "there is no map for epoch 7");
	free(status);
	status = NULL;
	osdmap_clear(&om);
}

/* `log TEXT' commits the operator's line; a page of it at most. */
Test(mon, log_text_goes_into_the_cluster_log)
{
	struct answer a = { 0 };
	char big[MON_LOG_TEXT_MAX + 2];

	mon_log_text(mon, "hello from the operator", answer_cb, &a);
	cr_assert(!a.done, "answered after its commit");
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert(log_has("hello from the operator"));
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	memset(&a, 0, sizeof a);
	mon_log_text(mon, big, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EINVAL);
	cr_assert_not_null(strstr(a.status, "too long"), "%s", a.status);
}

/* `report': Ceph's keys of what mapmon has, and the tags. */
Test(mon, report_has_cephs_keys)
{
	static const char *const keys[] = { "cluster_fingerprint", "version",
		"timestamp", "tag", "health", "monmap_first_committed",
		"monmap_last_committed", "monmap", "quorum", "osdmap",
		"osdmap_first_committed", "osdmap_last_committed", "num_pg",
		"num_pg_active", "num_pg_unknown", "num_osd", "pool_sum",
		"osd_sum", "pool_stats", "osd_stats", "num_pg_by_state",
		"num_pg_by_osd" };
	const char *tags[] = { "before", "upgrade" };
	json_t *r;
	size_t i;

	make_osds(3);
	cr_assert_eq(pool_create("p", 8, 3), 0);
	r = mon_report_json(mon, tags, 2);
	for (i = 0; i < nitems(keys); i++)
		cr_assert_not_null(json_object_get(r, keys[i]), "%s", keys[i]);
	cr_assert_str_eq(json_string_value(json_object_get(r, "tag")),
	    "before upgrade");
	cr_assert_str_eq(
	    json_string_value(json_object_get(r, "cluster_fingerprint")),
	    mon_monmap(mon)->fsid);
	cr_assert_eq(json_integer_value(json_object_get(r, "num_pg")), 8);
	cr_assert_eq(json_integer_value(json_object_get(
			 json_object_get(r, "osdmap"), "epoch")),
	    mon_osdmap(mon)->epoch);
	cr_assert_eq(json_integer_value(json_object_get(r, "num_osd")), 3);
	json_decref(r);
}

/* TOO_FEW_OSDS's summary names the pool that needs the most OSDs. */
Test(mon, too_few_osds_names_the_worst_pool)
{
	json_t *h;
	const char *msg;

	make_osds(3);
	cr_assert_eq(pool_create("small", 4, 2), 0);
	cr_assert_eq(pool_create("big", 4, 5), 0);
	cr_assert_eq(pool_create("mid", 4, 4), 0);
	h = mon_health_json(mon, 1);
	msg = json_string_value(json_object_get(
	    json_object_get(
		json_object_get(json_object_get(h, "checks"), "TOO_FEW_OSDS"),
		"summary"),
	    "message"));
	cr_assert_str_eq(msg, "OSD count 3 < pool 'big' size 5");
	json_decref(h);
}

/* A store of an older mapmon (version 2 maps): pgp_num = pg_num. */
Test(mon, a_version_2_store_takes_pgp_num_from_pg_num)
{
	uint32_t epoch;

	make_osds(2);
	cr_assert_eq(pool_create("rbd", 8, 2), 0);
	settle();
	epoch = mon_osdmap(mon)->epoch;
	close_mon();
	osdmaps_as_version(epoch, 2);
	open_mon();
	cr_assert_eq(mon_osdmap(mon)->struct_v, 2);
	cr_assert_eq(pool_named("rbd")->pgp_num, 8);
	settle();
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1, "the upgrade's epoch");
	cr_assert(log_has("osdmap upgraded from record version 2 to 5: "
			  "pgp_num = pg_num"));
	close_mon();
	open_mon();
	cr_assert_eq(mon_osdmap(mon)->struct_v, OSDMAP_STRUCT_V);
	cr_assert_eq(pool_named("rbd")->pgp_num, 8);
	check_derived();
}

/*
 * A store of the release before applications (version 4 maps) opens with
 * no application on any pool and crush_version 1, its first commit writes
 * version 5, and a pool's applications are committed state from then on:
 * they survive a restart (Ceph keeps them in pg_pool_t, in the osdmap).
 */
Test(mon, a_version_4_store_opens_and_keeps_applications_after)
{
	struct answer a = { 0 };
	uint32_t epoch;

	make_osds(2);
	cr_assert_eq(pool_create("rbd", 8, 2), 0);
	settle();
	epoch = mon_osdmap(mon)->epoch;
	close_mon();
	osdmaps_as_version(epoch, 4);
	verify_store(8);
	open_mon();
	cr_assert_eq(mon_osdmap(mon)->struct_v, 4);
	cr_assert_eq(mon_osdmap(mon)->crush_version, 1);
	cr_assert_str_eq(pool_named("rbd")->apps[0], "");
	settle();
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1, "the upgrade's epoch");
	cr_assert(log_has("osdmap upgraded from record version 4 to 5"));

	mon_pool_application(mon, 1, "rbd", "rbd", 0, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, 0);
	json_decref(a.data);
	settle();
	cr_assert_str_eq(pool_named("rbd")->apps[0], "rbd");
	close_mon();
	verify_store(8);
	open_mon();
	cr_assert_eq(mon_osdmap(mon)->struct_v, OSDMAP_STRUCT_V);
	cr_assert_str_eq(pool_named("rbd")->apps[0], "rbd");
	cr_assert_eq(mon_osdmap(mon)->crush_version, 1);
	settle();
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 2, "upgraded once");
	check_derived();
}

/*
 * A store of the previous release (version 3 maps: no hierarchy) opens
 * placing flat, and its first commit puts every OSD under root default at
 * a host of its own, says so with the PGs it moves, and places by rule 0
 * from then on; the store verifies before and after.
 */
Test(mon, a_version_3_store_gets_the_hierarchy_in_its_first_commit)
{
	const struct pgmap_pool *pp;
	struct osdmap_place *pl;
	int32_t up[PLACEMENT_MAX_SIZE];
	uint32_t epoch, s;
	int32_t id;
	int n;

	make_osds(4);
	cr_assert_eq(pool_create("rbd", 32, 3), 0);
	settle();
	epoch = mon_osdmap(mon)->epoch;
	close_mon();
	osdmaps_as_version(epoch, 3);
	verify_store(32);
	open_mon();
	cr_assert_eq(mon_osdmap(mon)->struct_v, 3);
	cr_assert_null(mon_osdmap(mon)->crush, "placed flat until the commit");
	settle();
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1, "the upgrade's epoch");
	cr_assert(log_has("osdmap upgraded from record version 3 to 5"));
	cr_assert(log_has("osdmap upgraded: the placement hierarchy holds 4 "
			  "osds under root default, each at its own host "
			  "(host-ID), and pools use rule replicated_rule; "));
	cr_assert(log_has(" of 32 pgs move"));
	cr_assert_not_null(mon_osdmap(mon)->crush);
	for (id = 0; id < 4; id++) {
		struct crush_bucket_info bi;
		char want[16];

		cr_assert_eq(crush_bucket_get(mon_osdmap(mon)->crush,
				 crush_osd_parent(mon_osdmap(mon)->crush, id),
				 &bi),
		    0);
		snprintf(want, sizeof want, "host-%d", id);
		cr_assert_str_eq(bi.name, want);
		cr_assert_eq(bi.type, CRUSH_TYPE_HOST);
		cr_assert_eq(crush_osd_weight(mon_osdmap(mon)->crush, id),
		    CRUSH_WEIGHT_ONE);
	}
	/* The creating PGs follow the new placement: 3 distinct hosts. */
	pp = pgmap_pool(mon_pgmap(mon), 1);
	pl = osdmap_place_new(mon_osdmap(mon));
	for (s = 0; s < 32; s++) {
		n = osdmap_place_pg(pl, 1, 0, s, 3, up);
		cr_assert_eq(n, 3);
		cr_assert_eq(pp->pgs[s].up_len, 3);
		cr_assert_eq(memcmp(pp->pgs[s].up, up, sizeof *up * 3), 0);
	}
	osdmap_place_free(pl);
	close_mon();
	verify_store(32);
	open_mon();
	cr_assert_eq(mon_osdmap(mon)->struct_v, OSDMAP_STRUCT_V);
	settle();
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch + 1, "upgraded once");
	check_derived();
}

/* Boot OSD id at the location loc (nloc words); its rc. */
static int
osd_boot_at(int32_t id, const char *const *loc, size_t nloc)
{
	struct answer a = { 0 };

	mon_osd_boot_at(mon, id, "127.0.0.1:6800", loc, nloc, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	return a.rc;
}

/* A crush command's rc, its status into a. */
static int
crush_op(const struct mon_crush_req *q, struct answer *a)
{
	memset(a, 0, sizeof *a);
	mon_crush_op(mon, q, answer_cb, a);
	wait_for(a);
	json_decref(a->data);
	a->data = NULL;
	return a->rc;
}

/* OSDs 0 .. 2h-1, two a host: host=hK for K = 0 .. h-1. */
static void
make_hosts(int h)
{
	char loc[32];
	const char *l[1] = { loc };
	int32_t id;
	int i;

	for (i = 0; i < 2 * h; i++) {
		cr_assert_eq(osd_create(-1, &id), 0);
		snprintf(loc, sizeof loc, "host=h%d", i / 2);
		cr_assert_eq(osd_boot_at(id, l, 1), 0);
	}
	settle();
}

/* The host bucket an OSD is under in the committed map. */
static int32_t
host_of(int32_t osd)
{
	return crush_osd_parent(mon_osdmap(mon)->crush, osd);
}

/*
 * Every PG of pool 1 on distinct hosts, want copies each (the monitor's
 * creating PGs and the map's placement agree); returns how many PGs.
 */
static uint32_t
pgs_on_distinct_hosts(unsigned want)
{
	const struct pgmap_pool *pp = pgmap_pool(mon_pgmap(mon), 1);
	const struct osdmap_pool *op = osdmap_pool(mon_osdmap(mon), 1);
	struct osdmap_place *pl = osdmap_place_new(mon_osdmap(mon));
	int32_t up[PLACEMENT_MAX_SIZE];
	uint32_t s;
	int n, i, j;

	for (s = 0; s < op->pg_num; s++) {
		n = osdmap_place_pg(pl, 1, op->crush_rule, s, op->size, up);
		cr_assert_eq((unsigned)n, want, "pg 1.%x has %d copies", s, n);
		for (i = 0; i < n; i++)
			for (j = 0; j < i; j++)
				cr_assert_neq(host_of(up[i]), host_of(up[j]),
				    "pg 1.%x: osd.%d and osd.%d on one host", s,
				    up[i], up[j]);
		if (pp->pgs[s].state & PG_STATE_CREATING)
			cr_assert_eq(
			    memcmp(pp->pgs[s].up, up, (size_t)n * sizeof *up),
			    0, "pg 1.%x: the monitor's creating set", s);
	}
	osdmap_place_free(pl);
	return op->pg_num;
}

/*
 * Booting with a location places the OSD there (buckets made under root
 * default); a 3-way pool on 3 hosts of 2 OSDs never puts two copies on
 * one host, with a host down (2 copies: undersized, named by TOO_FEW_OSDS
 * with the rule and the count) and back.
 */
Test(mon, a_3_way_pool_on_3_hosts_never_puts_two_copies_on_one_host)
{
	struct crush_bucket_info bi;
	char sum[256], line[256];
	int32_t ids[2] = { 2, 3 };
	struct answer a = { 0 };

	make_hosts(3);
	cr_assert_eq(crush_bucket_get(mon_osdmap(mon)->crush, host_of(0), &bi),
	    0);
	cr_assert_str_eq(bi.name, "h0");
	cr_assert_eq(host_of(0), host_of(1));
	cr_assert_eq(crush_bucket_get(mon_osdmap(mon)->crush, bi.parent, &bi),
	    0);
	cr_assert_str_eq(bi.name, "default", "a host made under root default");
	cr_assert(log_has("osd.5 at host=h2"));
	cr_assert_eq(pool_create("rbd", 64, 3), 0);
	settle();
	pgs_on_distinct_hosts(3);
	cr_assert_not(health_check("TOO_FEW_OSDS", 0, sum, line, sizeof sum));

	/* Host h1 fails whole: two copies each, still on distinct hosts. */
	mon_osd_down(mon, ids, 2, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	settle();
	pgs_on_distinct_hosts(2);
	cr_assert(health_check("TOO_FEW_OSDS", 0, sum, line, sizeof sum));
	cr_assert_str_eq(sum,
	    "crush rule 'replicated_rule' host count 2 < "
	    "pool 'rbd' size 3");
	cr_assert_str_eq(line,
	    "pool 'rbd' has size 3 but its crush rule "
	    "'replicated_rule' finds only 2 hosts with an "
	    "osd up and in");

	/* It comes back: three copies on three hosts again. */
	cr_assert_eq(osd_boot(2), 0);
	cr_assert_eq(osd_boot(3), 0);
	settle();
	pgs_on_distinct_hosts(3);
	cr_assert_not(health_check("TOO_FEW_OSDS", 0, sum, line, sizeof sum));
	cr_assert_eq(host_of(2), host_of(3), "a location-less boot stays");
	check_derived();
}

/*
 * OSD_<TYPE>_DOWN as Ceph's OSDMap::check_health: a host whose OSDs are
 * all down (one down is not enough), the root once every OSD is, with
 * Ceph's summary and detail words; a host of OSDs out and down under an up
 * root says nothing.
 */
Test(mon, a_subtree_of_osds_all_down_is_named_as_cephs)
{
	char sum[256], line[256];
	int32_t h1[2] = { 2, 3 }, all[6] = { 0, 1, 2, 3, 4, 5 };
	struct answer a = { 0 };

	make_hosts(3);
	cr_assert_eq(osd_down(2), 0);
	settle();
	cr_assert(health_check("OSD_DOWN", 0, sum, line, sizeof sum));
	cr_assert_not(health_check("OSD_HOST_DOWN", 0, sum, line, sizeof sum),
	    "one OSD of two down: its host is up");

	cr_assert_eq(osd_down(3), 0);
	settle();
	cr_assert(health_check("OSD_HOST_DOWN", 0, sum, line, sizeof sum));
	cr_assert_str_eq(sum, "1 host (2 osds) down");
	cr_assert_str_eq(line, "host h1 (root=default) (2 osds) is down");
	cr_assert_not(health_check("OSD_ROOT_DOWN", 0, sum, line, sizeof sum));

	/* Out and down: not counted, nor is its host reported. */
	mon_osd_out(mon, h1, 2, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	settle();
	cr_assert_not(health_check("OSD_HOST_DOWN", 0, sum, line, sizeof sum));
	cr_assert_not(health_check("OSD_DOWN", 0, sum, line, sizeof sum));

	/* Every OSD down: the root, and under it every host. */
	memset(&a, 0, sizeof a);
	mon_osd_down(mon, all, 6, answer_cb, &a);
	wait_for(&a);
	json_decref(a.data);
	settle();
	cr_assert(health_check("OSD_ROOT_DOWN", 0, sum, line, sizeof sum));
	cr_assert_str_eq(sum, "1 root (6 osds) down");
	cr_assert_str_eq(line, "root default (6 osds) is down");
	cr_assert(health_check("OSD_HOST_DOWN", 2, sum, line, sizeof sum));
	cr_assert_str_eq(sum, "3 hosts (6 osds) down");
	cr_assert_str_eq(line, "host h2 (root=default) (2 osds) is down");
	check_derived();
}

/*
 * A boot storm: 12 OSDs booted at 4 hosts in one proposal (every boot
 * asked before any is answered) get the hierarchy, the crush weights and
 * the PGs' places of the same OSDs added one by one to a hierarchy of
 * their own.
 */
Test(mon, boots_in_one_proposal_place_as_one_by_one)
{
	struct answer a[12];
	struct crush *ref = crush_new_default();
	struct crush_osd_state st[12];
	const struct osdmap *om;
	const struct osdmap_pool *op;
	struct osdmap_place *pl;
	char locs[12][32], *cause = NULL;
	const char *l[12][1];
	int32_t id, up[PLACEMENT_MAX_SIZE], rup[PLACEMENT_MAX_SIZE];
	uint32_t epoch, s;
	int i, n, rn;

	for (i = 0; i < 12; i++) {
		cr_assert_eq(osd_create(-1, &id), 0);
		cr_assert_eq(id, i);
	}
	settle();
	epoch = mon_osdmap(mon)->epoch;
	memset(a, 0, sizeof a);
	for (i = 0; i < 12; i++) {
		snprintf(locs[i], sizeof locs[i], "host=s%d", i % 4);
		l[i][0] = locs[i];
		mon_osd_boot_at(mon, i, "127.0.0.1:6800", l[i], 1, answer_cb,
		    &a[i]);
		cr_assert_eq(
		    crush_osd_create_or_move(ref, i, 1.0, l[i], 1, &cause), 0,
		    "%s", cause ? cause : "");
	}
	for (i = 0; i < 12; i++) {
		wait_for(&a[i]);
		json_decref(a[i].data);
		cr_assert_eq(a[i].rc, 0, "boot %d: %s", i, a[i].status);
	}
	settle();
	om = mon_osdmap(mon);
	cr_assert_eq(om->epoch, epoch + 1, "the storm in one epoch");
	cr_assert_eq(crush_osd_parent(om->crush, 0),
	    crush_osd_parent(om->crush, 4), "osd.0 and osd.4 at host s0");
	for (i = 0; i < 12; i++) {
		cr_assert_eq(osdmap_osd(om, i)->weight,
		    (uint32_t)crush_osd_weight(om->crush, i),
		    "osd.%d crush_weight", i);
		cr_assert_eq(crush_osd_weight(om->crush, i),
		    crush_osd_weight(ref, i));
		st[i].up = 1;
		st[i].reweight = CRUSH_WEIGHT_ONE;
	}
	cr_assert_eq(pool_create("rbd", 256, 3), 0);
	settle();
	om = mon_osdmap(mon);
	op = osdmap_pool(om, 1);
	pl = osdmap_place_new(om);
	for (s = 0; s < op->pg_num; s++) {
		n = osdmap_place_pg(pl, 1, op->crush_rule, s, op->size, up);
		rn = crush_map_pg(ref, 0, st, 12, 1, s, op->size, rup);
		cr_assert_eq(n, 3);
		cr_assert_eq(n, rn);
		cr_assert_eq(memcmp(up, rup, (size_t)n * sizeof *up), 0,
		    "pg 1.%x placed as one by one", s);
	}
	osdmap_place_free(pl);
	crush_free(ref);
	check_derived();
}

/* A boot at a bad location is refused whole: not up, nothing placed. */
Test(mon, a_boot_at_a_bad_location_is_refused)
{
	const char *dup[] = { "host=a", "host=b" }, *bad[] = { "shelf=s1" };
	uint32_t epoch;
	int32_t id;

	cr_assert_eq(osd_create(-1, &id), 0);
	settle();
	epoch = mon_osdmap(mon)->epoch;
	cr_assert_eq(osd_boot_at(id, dup, 2), -EINVAL);
	cr_assert_eq(osd_boot_at(id, bad, 1), -EINVAL);
	settle();
	cr_assert_eq(mon_osdmap(mon)->epoch, epoch, "nothing committed");
	cr_assert_not(committed_up(id));
	cr_assert_not(crush_osd_exists(mon_osdmap(mon)->crush, id));
	/* Without a location: a host of its own. */
	cr_assert_eq(osd_boot(id), 0);
	settle();
	cr_assert(crush_osd_exists(mon_osdmap(mon)->crush, id));
}

/*
 * Every bad input to the hierarchy's commands is refused with Ceph's errno
 * and commits nothing; what is already so is rc 0 and commits nothing.
 */
Test(mon, bad_crush_commands_commit_nothing)
{
	const char *rack[] = { "rack=r1" }, *h1[] = { "host=h0" },
		   *self[] = { "rack=r1" }, *under[] = { "host=h1" };
	struct mon_crush_req q;
	struct answer a;
	uint32_t epoch;
	int32_t osds[1] = { 0 };
	size_t i;
	struct {
		struct mon_crush_req q;
		int rc;
		const char *says;
	} bad[] = {
		{ { MON_CRUSH_ADD_BUCKET, "x", "shelf", NULL, NULL, 0, NULL, 0,
		      NULL, 0 },
		    -EINVAL, "unknown bucket type 'shelf'" },
		{ { MON_CRUSH_ADD_BUCKET, "h0", "host", NULL, NULL, 0, NULL, 0,
		      NULL, 0 },
		    0, "bucket 'h0' already exists" },
		/* Ceph's CrushWrapper::insert_item: r1 is in its own
		 * subtree, EINVAL; under its own descendant, ELOOP (last). */
		{ { MON_CRUSH_MOVE, "r1", NULL, NULL, NULL, 0, self, 1, NULL,
		      0 },
		    -EINVAL, "cannot move 'r1' under itself" },
		{ { MON_CRUSH_MOVE, "r1", NULL, NULL, NULL, 0, under, 1, NULL,
		      0 },
		    -EINVAL, "r1" },
		{ { MON_CRUSH_REMOVE, "r1", NULL, NULL, NULL, 0, NULL, 0, NULL,
		      0 },
		    -ENOTEMPTY, "not empty" },
		{ { MON_CRUSH_REMOVE, "nosuch", NULL, NULL, NULL, 0, NULL, 0,
		      NULL, 0 },
		    0, "device 'nosuch' does not appear in the crush map" },
		{ { MON_CRUSH_ADD, "osd.0", NULL, NULL, NULL, -1, h1, 1, NULL,
		      0 },
		    -EINVAL, "weight" },
		{ { MON_CRUSH_ADD, "osd.0", NULL, NULL, NULL, NAN, h1, 1, NULL,
		      0 },
		    -EINVAL, "weight" },
		{ { MON_CRUSH_REWEIGHT, "osd.0", NULL, NULL, NULL, 2e6, NULL, 0,
		      NULL, 0 },
		    -EINVAL, "weight" },
		{ { MON_CRUSH_ADD, "osd.9", NULL, NULL, NULL, 1, h1, 1, NULL,
		      0 },
		    -ENOENT, "osd.9 does not exist" },
		{ { MON_CRUSH_RULE_CREATE, "r", NULL, "nosuch", NULL, 0, NULL,
		      0, NULL, 0 },
		    -ENOENT, "root item nosuch does not exist" },
		{ { MON_CRUSH_RULE_RM, "replicated_rule", NULL, NULL, NULL, 0,
		      NULL, 0, NULL, 0 },
		    -EBUSY, "in use" },
		{ { MON_CRUSH_SET_CLASS, NULL, NULL, NULL, "ssd", 0, NULL, 0,
		      osds, 1 },
		    0, "" },
		{ { MON_CRUSH_SET_CLASS, NULL, NULL, NULL, "hdd", 0, NULL, 0,
		      osds, 1 },
		    -EBUSY, "already bound to class 'ssd'" },
		{ { MON_CRUSH_MOVE, "r1", NULL, NULL, NULL, 0, h1, 1, NULL, 0 },
		    -ELOOP, "'h0' is beneath 'r1'" },
	};

	make_hosts(2);
	memset(&q, 0, sizeof q);
	q.op = MON_CRUSH_ADD_BUCKET;
	q.name = "r1";
	q.type = "rack";
	cr_assert_eq(crush_op(&q, &a), 0, "%s", a.status);
	q.op = MON_CRUSH_MOVE;
	q.name = "h0";
	q.loc = rack;
	q.nloc = 1;
	cr_assert_eq(crush_op(&q, &a), 0, "%s", a.status);
	bad[10].q.type = "host";
	cr_assert_eq(pool_create("rbd", 8, 2), 0);
	settle();
	for (i = 0; i < nitems(bad); i++) {
		epoch = mon_osdmap(mon)->epoch;
		cr_assert_eq(crush_op(&bad[i].q, &a), bad[i].rc, "case %zu: %s",
		    i, a.status);
		cr_assert_not_null(strstr(a.status, bad[i].says),
		    "case %zu: '%s'", i, a.status);
		settle();
		/* Case 12 is the one change (the class osd.0 gets). */
		if (i != 12)
			cr_assert_eq(mon_osdmap(mon)->epoch, epoch,
			    "case %zu committed", i);
	}
	cr_assert_str_eq(crush_osd_class(mon_osdmap(mon)->crush, 0), "ssd");
	check_derived();
}

/*
 * Failure reports count once per host ([mon] osd_reporter_subtree_level):
 * two OSDs of one host cannot mark a third down alone; one of another host
 * can with them.
 */
Test(mon, reporters_count_once_per_host)
{
	struct answer a;

	make_hosts(3);
	live_params(300);
	cr_assert_eq(failure(4, 0, 1.0, 0, &a), 0, "%s", a.status);
	json_decref(a.data);
	cr_assert_eq(failure(4, 1, 1.0, 0, &a), 0, "%s", a.status);
	cr_assert_eq(data_int(&a, "reporters"), 2);
	cr_assert_eq(data_int(&a, "counted"), 1, "osd.0 and osd.1: host h0");
	cr_assert(!data_true(&a, "marked_down"));
	json_decref(a.data);
	run_for(100);
	cr_assert(work_up(4), "two OSDs of one host marked osd.4 down");
	cr_assert_eq(failure(4, 2, 1.0, 0, &a), 0, "%s", a.status);
	cr_assert_eq(data_int(&a, "counted"), 2);
	cr_assert(data_true(&a, "marked_down"), "%s", a.status);
	json_decref(a.data);
	settle();

	/* At level osd, each OSD counts. */
	cr_assert_eq(osd_boot(4), 0);
	params.osd_reporter_subtree_level = CRUSH_TYPE_OSD;
	mon_set_params(mon, &params);
	cr_assert_eq(failure(5, 0, 1.0, 0, &a), 0, "%s", a.status);
	json_decref(a.data);
	cr_assert_eq(failure(5, 1, 1.0, 0, &a), 0, "%s", a.status);
	cr_assert(data_true(&a, "marked_down"), "%s", a.status);
	json_decref(a.data);
}
