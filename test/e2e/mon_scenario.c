/*
 * mon_scenario.c: the monitor core's whole-cluster scenario (issue 4's
 * "done when"), through the C API on a real event loop and a real store:
 *
 *   mkfs; OSDs created and booted; pools with N PGs in all (creating); every
 *   PG reported by its primary through peering, active and active+clean;
 *   the derived figures checked against a recount; the monitor stopped and
 *   cold-started again; every PG stat, the osdmap and the figures compared
 *   with those before the restart; the store checked offline with
 *   mon_verify() (what `mapmon-store verify` runs).
 *
 *   mon_scenario [-b lmdb|leveldb] [-n PGS] [-o OSDS] [-p POOLS] [-s]
 *                [-k]
 *
 * -k keeps the data directory (its path is printed) for mapmon-store and
 * mapmond to use afterwards.
 * -s syncs every commit (the daemon's default; off by default here, as in
 * the other core tests).  Prints TAP, one case per step with its time, so
 * a failing step names itself.  make check runs it with 5,000 PGs on both
 * backends (test/e2e/mon_scenario.sh); the closing note of issue 4 quotes
 * 221,568 PGs over 256 OSDs.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/enc.h"
#include "common/log.h"
#include "common/mapmon.h"
#include "mon/mon.h"
#include "mon/mon_verify.h"
#include "map/osdmap.h"
#include "map/pgmap.h"
#include "map/placement.h"
#include "store/store.h"
#include "test/lib/mon_report_util.h"

static struct event_base *base;
static struct mon *mon;
static struct store_options so;
static struct mon_params params;
static char tmpdir[] = "/tmp/mon_scenario.XXXXXX";
static int ncase, nfailed;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
tap(int ok, double secs, const char *fmt, ...) printflike(3, 4);

static void
tap(int ok, double secs, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++ncase);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (secs >= 0)
		printf(" (%.3f s)", secs);
	printf("\n");
	fflush(stdout);
	if (!ok)
		nfailed++;
}

/* Answers of writes fired together: count them and keep the first error. */
struct answers {
	size_t waiting;
	int rc;
	char status[256];
};

static void
answers_cb(void *arg, int rc, const char *status, json_t *data)
{
	struct answers *a = arg;

	a->waiting--;
	if (rc != 0 && a->rc == 0) {
		a->rc = rc;
		snprintf(a->status, sizeof a->status, "%s", status);
	}
	json_decref(data);
}

/* Run the loop until every answer is in; 0, or -1 after 120 s. */
static int
wait_all(struct answers *a)
{
	struct timeval tv = { 0, 10000 };
	double deadline = now() + 120;

	while (a->waiting > 0 && now() < deadline) {
		event_base_loopexit(base, &tv);
		event_base_loop(base, EVLOOP_ONCE);
	}
	return a->waiting == 0 ? 0 : -1;
}

static int
open_mon(double *secs, char **cause)
{
	struct store *s;
	char *path;
	double t0 = now();

	path = mon_store_path(tmpdir);
	if (store_open(path, &so, 0, &s, cause) != 0) {
		free(path);
		return -1;
	}
	free(path);
	if ((mon = mon_open(base, s, &params, NULL, NULL, cause)) == NULL) {
		store_close(s);
		return -1;
	}
	*secs = now() - t0;
	return 0;
}

/* A report round's figures, and its answers. */
struct round {
	int64_t objects;
	struct answers *a;
};

static void
round_fill(struct pg_stat *st, int size, void *arg)
{
	const struct round *r = arg;

	st->num_objects = r->objects;
	st->num_bytes = r->objects * 4 * 1024 * 1024;
	st->num_object_copies = r->objects * size;
	st->num_write = r->objects;
	st->num_write_kb = r->objects * 4096;
}

static void
round_send(int32_t osd, const struct pg_stat *batch, size_t n, void *arg)
{
	struct round *r = arg;

	r->a->waiting++;
	mon_pg_report(mon, osd, batch, n, answers_cb, r->a);
}

/*
 * One report round: every PG of every pool, reported by its primary in
 * the given state, one report per OSD, all in flight at once.
 */
static int
report_round(uint32_t state, int64_t objects, struct answers *a)
{
	struct round r = { objects, a };

	memset(a, 0, sizeof *a);
	mon_report_util_all(mon, state, round_fill, round_send, &r);
	return wait_all(a);
}

/* Everything a restart must give back, as bytes. */
static void
snapshot(struct enc_buf *b)
{
	const struct pgmap *pm = mon_pgmap(mon);
	size_t i, s;

	b->len = 0;
	osdmap_encode(mon_osdmap(mon), b);
	enc_buf_put_u64(b, pm->version);
	enc_buf_put_u64(b, pm->npools);
	for (i = 0; i < pm->npools; i++) {
		enc_buf_put_u32(b, pm->pools[i].id);
		enc_buf_put_u32(b, pm->pools[i].pg_num);
		for (s = 0; s < pm->pools[i].pg_num; s++)
			pg_stat_encode(&pm->pools[i].pgs[s], b);
		enc_buf_put_bytes(b, &pm->pools[i].sums,
		    sizeof pm->pools[i].sums);
	}
	enc_buf_put_bytes(b, &pm->sums, sizeof pm->sums);
}

static void
verify_problem(void *arg, const char *problem)
{
	(void)arg;
	printf("# %s\n", problem);
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(path);
}

static void
usage(void)
{
	fprintf(stderr, "usage: mon_scenario [-ks] [-b lmdb|leveldb] "
	    "[-n PGS] [-o OSDS] [-p POOLS]\n");
	exit(64);
}

int
main(int argc, char **argv)
{
	struct enc_buf before = { 0 }, after = { 0 };
	struct mon_verify_counts vc;
	struct mon_perf perf;
	struct answers a;
	struct store *s;
	const char *backend = "lmdb";
	long pgs = 5000, osds = 16, pools = 4, i, pg_num;
	char name[32], *cause = NULL, *fsid = NULL, *path;
	double t0, t_up, secs;
	int c, sync = 0, keep = 0, ok;

	while ((c = getopt(argc, argv, "b:kn:o:p:s")) != -1) {
		switch (c) {
		case 'b':
			backend = optarg;
			break;
		case 'n':
			pgs = strtol(optarg, NULL, 10);
			break;
		case 'o':
			osds = strtol(optarg, NULL, 10);
			break;
		case 'p':
			pools = strtol(optarg, NULL, 10);
			break;
		case 's':
			sync = 1;
			break;
		case 'k':
			keep = 1;
			break;
		default:
			usage();
		}
	}
	if (pgs < pools || pools < 1 || osds < 3 || argc != optind)
		usage();
	log_init("mon_scenario", 1000);
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	base = event_base_new();
	mon_params_defaults(&params);
	/* The PG limits this cluster needs, raised as an operator would. */
	if (params.max_pool_pg_num < pgs / pools + 1)
		params.max_pool_pg_num = pgs / pools + 1;
	if (params.max_pg_per_osd < (3 * pgs + osds - 1) / osds)
		params.max_pg_per_osd = (3 * pgs + osds - 1) / osds;
	if (params.max_pgs < pgs)
		params.max_pgs = pgs;
	store_options_defaults(&so);
	so.backend = backend;
	so.sync = sync ? STORE_SYNC_COMMIT : STORE_SYNC_NONE;
	printf("# %ld PGs in %ld pools over %ld OSDs, %s, sync %s\n", pgs,
	    pools, osds, backend, sync ? "commit" : "none");

	ok = mon_mkfs(tmpdir, &so, "a", "127.0.0.1:6788", &fsid, &cause) == 0;
	tap(ok, -1, "mkfs %s", ok ? fsid : cause);
	if (!ok || open_mon(&secs, &cause) != 0) {
		tap(0, -1, "open: %s", cause);
		goto out;
	}

	/* The OSDs, all created and booted in flight together. */
	t0 = now();
	memset(&a, 0, sizeof a);
	for (i = 0; i < osds; i++) {
		a.waiting++;
		mon_osd_create(mon, (int32_t)i, answers_cb, &a);
	}
	ok = wait_all(&a) == 0 && a.rc == 0;
	memset(&a, 0, sizeof a);
	for (i = 0; ok && i < osds; i++) {
		snprintf(name, sizeof name, "127.0.0.1:%ld", 6800 + i);
		a.waiting++;
		mon_osd_boot(mon, (int32_t)i, name, answers_cb, &a);
	}
	ok = ok && wait_all(&a) == 0 && a.rc == 0;
	tap(ok, now() - t0, "%ld OSDs created and booted%s%s", osds,
	    a.rc ? ": " : "", a.status);
	if (!ok)
		goto out;

	/* Bring-up, timed from the first pool create. */
	t_up = t0 = now();
	memset(&a, 0, sizeof a);
	for (i = 0; i < pools; i++) {
		pg_num = pgs / pools + (i < pgs % pools ? 1 : 0);
		snprintf(name, sizeof name, "pool%ld", i);
		a.waiting++;
		mon_pool_create(mon, name, pg_num, 0, 3, NULL, answers_cb, &a);
	}
	ok = wait_all(&a) == 0 && a.rc == 0 &&
	    mon_pgmap(mon)->sums.num_pgs == (uint64_t)pgs &&
	    pgmap_state_count(mon_pgmap(mon), PG_STATE_CREATING) ==
	    (uint64_t)pgs;
	tap(ok, now() - t0, "%ld pools created, %ld PGs creating%s%s", pools,
	    pgs, a.rc ? ": " : "", a.status);
	if (!ok)
		goto out;
	t0 = now();
	ok = report_round(PG_STATE_PEERING, 0, &a) == 0 && a.rc == 0;
	tap(ok, now() - t0, "every PG reported peering%s%s", a.rc ? ": " : "",
	    a.status);
	t0 = now();
	ok = ok && report_round(PG_STATE_ACTIVE, 0, &a) == 0 && a.rc == 0;
	tap(ok, now() - t0, "every PG reported active%s%s", a.rc ? ": " : "",
	    a.status);
	t0 = now();
	ok = ok && report_round(PG_STATE_ACTIVE | PG_STATE_CLEAN, 100, &a) ==
	    0 && a.rc == 0;
	ok = ok && pgmap_state_count(mon_pgmap(mon), PG_STATE_ACTIVE |
	    PG_STATE_CLEAN) == (uint64_t)pgs;
	tap(ok, now() - t0, "every PG reported active+clean%s%s",
	    a.rc ? ": " : "", a.status);
	tap(ok, now() - t_up, "bring-up: %ld PGs active+clean committed, "
	    "from the first pool create", pgs);
	mon_perf(mon, &perf);
	printf("# %llu commits, %.3f s in the committer (longest %.3f s), "
	    "%llu PG updates\n", (unsigned long long)perf.commits,
	    (double)perf.commit_us_total / 1e6,
	    (double)perf.commit_us_max / 1e6,
	    (unsigned long long)perf.pg_updates);
	if (!ok)
		goto out;

	t0 = now();
	ok = mon_check_derived(mon, &cause) == 0;
	tap(ok, now() - t0, "derived figures equal a recount%s%s",
	    ok ? "" : ": ", ok ? "" : cause);
	free(cause);
	cause = NULL;

	/* Restart: everything must come back as it was. */
	snapshot(&before);
	t0 = now();
	mon_free(mon);
	mon = NULL;
	tap(1, now() - t0, "monitor stopped");
	if (open_mon(&secs, &cause) != 0) {
		tap(0, -1, "cold start: %s", cause);
		goto out;
	}
	tap(1, secs, "cold start: %ld PGs loaded", pgs);
	snapshot(&after);
	ok = before.len == after.len &&
	    memcmp(before.data, after.data, before.len) == 0;
	tap(ok, -1, "osdmap, every PG stat and the figures are identical "
	    "after the restart (%zu bytes compared)", before.len);
	ok = mon_check_derived(mon, &cause) == 0;
	tap(ok, -1, "derived figures equal a recount after the restart%s%s",
	    ok ? "" : ": ", ok ? "" : cause);
	free(cause);
	cause = NULL;
	mon_free(mon);
	mon = NULL;

	/* Offline: the invariants of mapmon-store verify. */
	t0 = now();
	path = mon_store_path(tmpdir);
	if (store_open(path, &so, 0, &s, &cause) != 0) {
		tap(0, -1, "store_open: %s", cause);
		free(path);
		goto out;
	}
	free(path);
	ok = mon_verify(s, verify_problem, NULL, &vc) == 0 &&
	    vc.pgs == (uint64_t)pgs;
	store_close(s);
	tap(ok, now() - t0, "store invariants hold (%llu PG records, osdmap "
	    "epoch %u, pgmap version %llu)", (unsigned long long)vc.pgs,
	    vc.osdmap_epoch, (unsigned long long)vc.pgmap_version);

out:
	free(before.data);
	free(after.data);
	free(fsid);
	free(cause);
	if (mon != NULL)
		mon_free(mon);
	event_base_free(base);
	if (keep)
		printf("# kept %s\n", tmpdir);
	else
		nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	printf("1..%d\n", ncase);
	return nfailed > 0 ? 1 : 0;
}
