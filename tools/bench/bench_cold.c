/*
 * bench_cold.c: `mapmon-bench coldstart` (mapmon-bench(1)).
 *
 * For each store set-up and PG count, each run in its own temporary
 * directory with a generated config on a free 127.0.0.1 port:
 *
 *  bring-up  `mapmond --mkfs`, start it, boot the simulated OSDs (in this
 *            process, tools/bench/osd_sim.h, on this process's event loop), then
 *            create the pools (N PGs in all) and time from the first
 *            `osd pool create` sent until the monitor has committed every
 *            PG active+clean.  The end is the reply to the last report
 *            that made a PG active+clean (the monitor answers a report
 *            only once the commit holding it is durable and applied),
 *            confirmed by a `pg stat` showing N PGs, all active+clean; if
 *            that `pg stat` does not confirm it, it is asked again every
 *            5 ms and the end is the answer that does.
 *  restart   SIGTERM (waiting for the exit), `mapmon-store scan` of the
 *            same store, then exec mapmond again and time from just before
 *            the exec to READY=1 on a NOTIFY_SOCKET of ours, and to the
 *            first answered `status` (asked once READY=1 has come).
 *  memory    VmHWM of the monitor after the bring-up and after the restart.
 *
 * With --mons 3 (or 5) the monitor is a quorum on loopback
 * (bench_quorum_run()): the simulated OSDs hunt over the monitors' list,
 * the pools are made and `pg stat` asked through the first, and the
 * memory is the largest of the monitors'; no restart (a quorum's
 * follower restart is bench/quorum/restart.sh's).
 *
 * Then the 2013 failure at the store level (store/store.h directly, no
 * monitor): the same 3 N PG updates (peering, active, active+clean) in
 * commits of --commit-pgs updates, written either as the whole PG map in
 * one value per commit (what Ceph did in 2013) or as one record per
 * changed PG, through LevelDB with its defaults and with the 2013 tuning,
 * sync = commit; each case stops after --store-cap seconds and is then
 * reported as "> CAP s".
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "map/pg.h"
#include "net/client.h"
#include "store/store.h"
#include "tools/bench/bench_cold.h"
#include "tools/bench/bench_plot.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/osd_sim.h"

#define COLD_MAX_PGS 16
#define COLD_MAX_SETUPS 8

struct cold_opts {
	size_t npgs;
	long pgs[COLD_MAX_PGS];
	size_t nsetups;
	const struct bench_setup *setups[COLD_MAX_SETUPS];
	struct bench_shape shape;
	int runs;
	long commit_pgs;
	double store_cap;
	double timeout;
	int store2013;
	int restart;
	int mons; /* --mons: 1, or a quorum of 3 or 5 */
	const char *outdir;
	char *mapmond;
	char *mstore;
	char *mon_conf;		/* lines added to the generated config */
};

/* One run's figures (seconds, KiB); < 0: not measured. */
struct cold_run {
	double bringup;
	double ready;
	double status;
	double scan;		/* scan's own timing of the read */
	double scan_wall;	/* the whole mapmon-store process */
	double stop;
	double rss_up;
	double rss_restart;
	double anon_up;		/* RssAnon at the same moments */
	double anon_restart;
	double store; /* the store's bytes after the bring-up, KiB */
};
#define COLD_NFIELDS 11

static const char *const cold_fields[COLD_NFIELDS] = {
	"bringup_s",
	"ready_s",
	"status_s",
	"scan_s",
	"scan_wall_s",
	"stop_s",
	"rss_bringup_kb",
	"rss_restart_kb",
	"anon_bringup_kb",
	"anon_restart_kb",
	"store_kb",
};

struct cold_result {
	const struct bench_setup *setup;
	long pgs;
	int nruns;
	struct cold_run runs[16];
	struct cold_run med;
	char *error;
};

struct cold_store_result {
	const char *setup;
	long pgs;
	const char *layout;
	long commits;
	long commits_done;
	double seconds;
	int complete;
	double value_mb;	/* bytes of the largest commit */
};

static mapmon_dead void
cold_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
	    "usage: mapmon-bench coldstart [--pgs LIST] [--setups LIST] "
	    "[--osds N] [--hosts H] [--racks R]\n"
	    "           [--pools N] [--runs R] [-o DIR] [--mapmond PATH] "
	    "[--mapmon-store PATH]\n"
	    "           [--window W] [--batch B] [--commit-pgs K] "
	    "[--store-cap S]\n"
	    "           [--timeout S] [--no-store2013] [--no-restart] "
	    "[--mon-conf FILE]\n"
	    "           [--mons N]\n"
	    "  set-ups: %s\n",
	    bench_setup_names());
	exit(code);
}

static double *
cold_field(struct cold_run *r, int i)
{
	double *f[COLD_NFIELDS] = { &r->bringup, &r->ready, &r->status,
		&r->scan, &r->scan_wall, &r->stop, &r->rss_up, &r->rss_restart,
		&r->anon_up, &r->anon_restart, &r->store };

	return f[i];
}

/*
 * The bring-up, on this process's event loop (bench_up_*): once the
 * simulator has every PG active+clean, `pg stat` confirms it.
 */
struct cold_up {
	struct bench_up *up;
	struct event *poll_ev;
	long target;
	double t_end;
	int checking;
};

static void cold_up_check(struct cold_up *);

static void
cold_up_pg_stat(void *arg, int rc, const char *status, json_t *data)
{
	struct cold_up *u = arg;
	json_t *by = json_object_get(data, "pgs_by_state"), *e;
	json_int_t num = json_integer_value(json_object_get(data, "num_pgs"));
	const char *name;
	struct timeval tv = { 0, 5000 };
	double t = bench_now();

	u->checking = 0;
	if (rc < 0) {
		bench_up_fail(u->up, "pg stat: %s", status);
		return;
	}
	e = json_array_get(by, 0);
	name = json_string_value(json_object_get(e, "state_name"));
	if (num == u->target && json_array_size(by) == 1 && name != NULL &&
	    strcmp(name, "active+clean") == 0) {
		u->t_end = u->t_end > 0 ? u->t_end : t;
		event_base_loopbreak(u->up->base);
		return;
	}
	/* The first check did not confirm: the end is a later answer. */
	u->t_end = 0;
	evtimer_add(u->poll_ev, &tv);
}

static void
cold_up_check(struct cold_up *u)
{
	json_t *cmd;

	if (u->checking)
		return;
	cmd = json_pack("{s:s}", "prefix", "pg stat");
	if (mclient_request(u->up->admin, cmd, cold_up_pg_stat, u) == 0)
		u->checking = 1;
	json_decref(cmd);
}

static void
cold_up_poll(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	cold_up_check(arg);
}

/* The simulator has every PG active+clean: the candidate end, confirmed. */
static void
cold_up_clean(mapmon_unused struct bench_up *up, void *arg)
{
	struct cold_up *u = arg;

	u->t_end = bench_now();
	cold_up_check(u);
}

/* Bring-up of N PGs on the running monitor; seconds, or -1 with *cause. */
static double
cold_bringup(const struct cold_opts *o, const char *addrs, long n, char **cause)
{
	struct bench_up_params p;
	struct event_base *base;
	struct cold_up u;
	double secs = -1;

	memset(&u, 0, sizeof u);
	memset(&p, 0, sizeof p);
	base = event_base_new();
	p.addr = addrs;
	p.shape = o->shape;
	p.live_interval_ms = -1;
	p.pgs = u.target = n;
	p.pool_prefix = "bench";
	p.timeout = o->timeout;
	p.on_clean = cold_up_clean;
	p.arg = &u;
	if ((u.up = bench_up_new(base, &p, cause)) == NULL) {
		event_base_free(base);
		return -1;
	}
	u.poll_ev = evtimer_new(base, cold_up_poll, &u);
	event_base_dispatch(base);
	if (u.up->error != NULL) {
		*cause = u.up->error;
		u.up->error = NULL;
	} else {
		secs = u.t_end - u.up->t0;
		/*
		 * The bring-up's phases (mapmon-bench(1)): the OSDs' boots
		 * before the clock starts, then the pools, then the PGs.
		 */
		bench_progress_done();
		fprintf(stderr,
		    "mapmon-bench: %ld PGs on %d OSDs: booted in "
		    "%.3f s (not counted), pools made in %.3f s, every PG "
		    "active+clean %.3f s after\n",
		    n, o->shape.osds, u.up->t0 - u.up->t_start,
		    u.up->t_created - u.up->t0, u.t_end - u.up->t_created);
	}
	bench_up_free(u.up);
	event_free(u.poll_ev);
	event_base_free(base);
	return secs;
}

/* mapmon-store scan of the stopped monitor's store: its seconds, wall. */
static int
cold_scan(const struct cold_opts *o, struct bench_mon *bm, double *secs,
    double *wall, char **cause)
{
	char *cmd, line[512];
	double t0 = bench_now(), s = -1;
	FILE *p;
	char *at;
	int st;

	xasprintf(&cmd, "'%s' -c '%s' scan 2>&1", o->mstore, bm->conf);
	if ((p = popen(cmd, "r")) == NULL) {
		xasprintf(cause, "%s: %s", cmd, strerror(errno));
		free(cmd);
		return -1;
	}
	line[0] = '\0';
	while (fgets(line, sizeof line, p) != NULL)
		if ((at = strstr(line, " seconds ")) != NULL)
			s = strtod(at + 9, NULL);
	st = pclose(p);
	*wall = bench_now() - t0;
	if (st != 0 || s < 0) {
		xasprintf(cause, "%s: %s", cmd, line);
		free(cmd);
		return -1;
	}
	free(cmd);
	*secs = s;
	return 0;
}

/*
 * The bring-up on a quorum of o->mons monitors; the memory is the largest
 * of theirs (the leader's, as a rule).  0, or -1 with *cause.
 */
static int
cold_quorum(const struct cold_opts *o, const struct bench_setup *su,
    const char *extra, long n, struct cold_run *r, char **cause)
{
	struct bench_quorum *q;
	double kb;
	size_t i;

	if ((q = bench_quorum_run(o->mapmond, su, extra, (size_t)o->mons, 0,
		 cause)) == NULL)
		return -1;
	if ((r->bringup = cold_bringup(o, q->addrs, n, cause)) < 0) {
		bench_quorum_free(q);
		return -1;
	}
	for (i = 0; i < q->n; i++) {
		if ((kb = (double)bench_mon_hwm_kb(q->mon[i])) > r->rss_up)
			r->rss_up = kb;
		kb = (double)bench_mon_status_kb(q->mon[i], "RssAnon");
		if (kb > r->anon_up)
			r->anon_up = kb;
	}
	bench_quorum_free(q);
	return 0;
}

/* One run of set-up su with n PGs; 0, or -1 with *cause. */
static int
cold_one(const struct cold_opts *o, const struct bench_setup *su, long n,
    struct cold_run *r, char **cause)
{
	struct bench_mon *bm;
	char *extra, *store;
	double t;

	for (int i = 0; i < COLD_NFIELDS; i++)
		*cold_field(r, i) = -1;
	extra = bench_limits_conf(n, &o->shape, o->mon_conf);
	if (o->mons > 1) {
		t = cold_quorum(o, su, extra, n, r, cause);
		free(extra);
		return t < 0 ? -1 : 0;
	}
	bm = bench_mon_run(o->mapmond, su, extra, 0, cause);
	free(extra);
	if (bm == NULL)
		return -1;
	if ((r->bringup = cold_bringup(o, bm->addr, n, cause)) < 0)
		goto fail;
	r->rss_up = (double)bench_mon_hwm_kb(bm);
	r->anon_up = (double)bench_mon_status_kb(bm, "RssAnon");
	if (!o->restart) {
		bench_mon_free(bm);
		return 0;
	}
	t = bench_now();
	if (bench_mon_stop(bm, cause) == -1)
		goto fail;
	r->stop = bench_now() - t;
	xasprintf(&store, "%s/store", bm->dir);
	r->store = (double)bench_store_bytes(store,
		       strcmp(su->backend, "lmdb") == 0) /
	    1024;
	free(store);
	if (cold_scan(o, bm, &r->scan, &r->scan_wall, cause) == -1)
		goto fail;
	if (bench_mon_start(bm, cause) == -1 ||
	    bench_mon_wait_ready(bm, o->timeout, cause) == -1)
		goto fail;
	r->ready = bm->t_ready - bm->t_exec;
	if ((t = bench_mon_wait_status(bm, 60, cause)) < 0)
		goto fail;
	r->status = t - bm->t_exec;
	r->rss_restart = (double)bench_mon_hwm_kb(bm);
	r->anon_restart = (double)bench_mon_status_kb(bm, "RssAnon");
	if (bench_mon_stop(bm, cause) == -1)
		goto fail;
	bench_mon_free(bm);
	return 0;
fail:
	bench_mon_free(bm);
	return -1;
}

static void
cold_key(uint8_t *k, uint32_t pool, uint32_t seed)
{
	k[0] = 'p';
	enc_put_be32(k + 1, pool);
	enc_put_be32(k + 5, seed);
}

/* The store-level 2013 reproduction of one set-up, N and layout. */
static int
cold_store2013(const struct cold_opts *o, const char *setup, long n,
    int whole, struct cold_store_result *res, char **cause)
{
	struct store_options so;
	struct store *s = NULL;
	struct store_batch *b;
	struct enc_buf one = { 0 }, all = { 0 };
	struct pg_stat *pgs;
	char tmpl[] = "/tmp/mapmon-bench-store.XXXXXX", *path;
	long updates = 3 * n, done = 0, k, i, pos;
	double t0, bytes = 0;
	int rc;

	store_options_defaults(&so);
	so.backend = "leveldb";
	so.sync = STORE_SYNC_COMMIT;
	so.leveldb.cache_size = 0;
	so.leveldb.bloom_bits = 0;
	if (strcmp(setup, "leveldb-defaults") == 0) {
		so.leveldb.write_buffer_size = 4 << 20;
		so.leveldb.block_size = 4 << 10;
		so.leveldb.compression = STORE_COMPRESSION_SNAPPY;
	} else {
		so.leveldb.write_buffer_size = 32 << 20;
		so.leveldb.block_size = 4 << 20;
		so.leveldb.compression = STORE_COMPRESSION_NONE;
	}
	if (mkdtemp(tmpl) == NULL) {
		xasprintf(cause, "mkdtemp: %s", strerror(errno));
		return -1;
	}
	xasprintf(&path, "%s/store", tmpl);
	if ((rc = store_open(path, &so, STORE_CREATE, &s, cause)) != 0) {
		free(path);
		bench_rmtree(tmpl);
		return -1;
	}
	free(path);

	memset(res, 0, sizeof *res);
	res->setup = setup;
	res->pgs = n;
	res->layout = whole ? "whole-map" : "per-pg";
	res->commits = (updates + o->commit_pgs - 1) / o->commit_pgs;
	pgs = xcalloc((size_t)n, sizeof *pgs);
	for (i = 0; i < n; i++) {
		pg_stat_init(&pgs[i], (struct pg_id){ 1 + (uint32_t)(i /
		    65536), (uint32_t)(i % 65536) });
		pgs[i].state = PG_STATE_CREATING;
		pgs[i].up_len = pgs[i].acting_len = 3;
		pgs[i].up_primary = pgs[i].acting_primary = 0;
	}
	b = store_batch_new();
	t0 = bench_now();
	rc = 0;
	while (done < updates) {
		if (bench_now() - t0 > o->store_cap)
			break;
		store_batch_clear(b);
		enc_buf_reset(&all);
		for (k = 0; k < o->commit_pgs && done < updates; k++, done++) {
			pos = done % n;
			pgs[pos].state = done < n ? PG_STATE_PEERING :
			    done < 2 * n ? PG_STATE_ACTIVE :
			    PG_STATE_ACTIVE | PG_STATE_CLEAN;
			pgs[pos].reported_seq++;
			if (!whole) {
				uint8_t key[9];

				enc_buf_reset(&one);
				pg_stat_encode(&pgs[pos], &one);
				cold_key(key, pgs[pos].pgid.pool,
				    pgs[pos].pgid.seed);
				store_batch_put(b, key, sizeof key, one.data,
				    one.len);
			}
		}
		if (whole) {
			for (i = 0; i < n; i++)
				pg_stat_encode(&pgs[i], &all);
			store_batch_put(b, "pgmap", 5, all.data, all.len);
		}
		if ((double)store_batch_bytes(b) > bytes)
			bytes = (double)store_batch_bytes(b);
		if ((rc = store_commit(s, b, cause)) != 0)
			break;
		res->commits_done++;
	}
	res->seconds = bench_now() - t0;
	res->complete = done == updates && rc == 0;
	res->value_mb = bytes / 1e6;
	store_batch_free(b);
	store_close(s);
	free(pgs);
	enc_buf_free(&one);
	enc_buf_free(&all);
	bench_rmtree(tmpl);
	return rc == 0 ? 0 : -1;
}

static int
cold_parse_pgs(struct cold_opts *o, char *arg)
{
	char *w, *save = NULL;

	o->npgs = 0;
	for (w = strtok_r(arg, ",", &save); w != NULL;
	    w = strtok_r(NULL, ",", &save)) {
		if (o->npgs == COLD_MAX_PGS)
			return -1;
		o->pgs[o->npgs++] = bench_arg_long("--pgs", w, 1, 16777216);
	}
	return o->npgs > 0 ? 0 : -1;
}

static int
cold_parse_setups(struct cold_opts *o, char *arg)
{
	char *w, *save = NULL;
	const struct bench_setup *su;

	o->nsetups = 0;
	for (w = strtok_r(arg, ",", &save); w != NULL;
	    w = strtok_r(NULL, ",", &save)) {
		if ((su = bench_setup_find(w)) == NULL) {
			fprintf(stderr, "mapmon-bench: --setups: unknown "
			    "set-up '%s' (%s)\n", w, bench_setup_names());
			exit(MAPMON_EXIT_USAGE);
		}
		if (o->nsetups == COLD_MAX_SETUPS)
			return -1;
		o->setups[o->nsetups++] = su;
	}
	return o->nsetups > 0 ? 0 : -1;
}

/* "1.234" or "-" for a figure not measured. */
static const char *
cold_fmt(char *buf, size_t len, double v, int prec)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", prec, v);
	return buf;
}

/* A figure in KiB as "12" MiB, or "-". */
static const char *
cold_fmt_mib(char *buf, size_t len, double kib)
{
	return cold_fmt(buf, len, kib < 0 ? -1 : kib / 1024, 0);
}

static void
cold_print(const struct cold_opts *o, struct cold_result *res, size_t nres,
    struct cold_store_result *sres, size_t nsres)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], h[32], x[32];
	char y[32];
	size_t i;

	printf("## mapmon-bench coldstart: bring-up and restart\n\n");
	if (o->mons > 1)
		printf("%d monitors on loopback, no restart; memory: the "
		       "largest monitor's; ",
		    o->mons);
	printf(
	    "%d simulated OSDs, %d pools of size 3; median of %d run%s; "
	    "times in seconds, memory in MiB (RSS: VmHWM, the peak; anon: "
	    "RssAnon, the anonymous part at that moment, without the store's "
	    "mapped file pages); store: its files' size in MiB after the "
	    "bring-up\n\n",
	    o->shape.osds, o->shape.pools, o->runs, o->runs == 1 ? "" : "s");
	printf("| set-up | PGs | bring-up | restart READY | restart status "
	       "| scan | scan (process) | RSS bring-up | RSS restart "
	       "| anon bring-up | anon restart | store |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	       "\n");
	for (i = 0; i < nres; i++) {
		if (res[i].error != NULL) {
			printf("| %s | %ld | failed: %s | | | | | | | | | |\n",
			    res[i].setup->name, res[i].pgs, res[i].error);
			continue;
		}
		printf("| %s | %ld | %s | %s | %s | %s | %s | %s | %s | %s "
		       "| %s | %s |\n",
		    res[i].setup->name, res[i].pgs,
		    cold_fmt(a, sizeof a, res[i].med.bringup, 3),
		    cold_fmt(b, sizeof b, res[i].med.ready, 3),
		    cold_fmt(c, sizeof c, res[i].med.status, 3),
		    cold_fmt(d, sizeof d, res[i].med.scan, 3),
		    cold_fmt(e, sizeof e, res[i].med.scan_wall, 3),
		    cold_fmt_mib(f, sizeof f, res[i].med.rss_up),
		    cold_fmt_mib(g, sizeof g, res[i].med.rss_restart),
		    cold_fmt_mib(h, sizeof h, res[i].med.anon_up),
		    cold_fmt_mib(x, sizeof x, res[i].med.anon_restart),
		    cold_fmt_mib(y, sizeof y, res[i].med.store));
	}
	if (nsres == 0)
		return;
	printf("\n## the 2013 failure at the store level\n\n");
	printf("LevelDB through store/store.h, sync = commit; 3 updates per PG "
	    "(peering, active, active+clean) in commits of %ld updates; each "
	    "case stops after %.0f s\n\n", o->commit_pgs, o->store_cap);
	printf("| set-up | PGs | layout | bytes per commit | commits | "
	    "seconds |\n|---|---:|---|---:|---:|---:|\n");
	for (i = 0; i < nsres; i++) {
		if (sres[i].complete)
			snprintf(a, sizeof a, "%.3f", sres[i].seconds);
		else
			snprintf(a, sizeof a, "> %.0f (%ld of %ld commits)",
			    sres[i].seconds, sres[i].commits_done,
			    sres[i].commits);
		printf("| %s | %ld | %s | %.1f MB | %ld | %s |\n",
		    sres[i].setup, sres[i].pgs, sres[i].layout,
		    sres[i].value_mb, sres[i].commits, a);
	}
}

static int
cold_write(const struct cold_opts *o, struct cold_result *res, size_t nres,
    struct cold_store_result *sres, size_t nsres)
{
	struct bench_plot_series s[2 * COLD_MAX_SETUPS];
	double xs[2 * COLD_MAX_SETUPS][COLD_MAX_PGS];
	double ys[2 * COLD_MAX_SETUPS][COLD_MAX_PGS];
	char names[2 * COLD_MAX_SETUPS][64];
	json_t *doc, *runs, *meds, *st, *one;
	char *path, *cause = NULL;
	FILE *f;
	size_t i, j, ns = 0;
	int k, r;

	xasprintf(&path, "%s/coldstart.csv", o->outdir);
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "mapmon-bench: %s: %s\n", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	fprintf(f, "setup,pgs,run");
	for (k = 0; k < COLD_NFIELDS; k++)
		fprintf(f, ",%s", cold_fields[k]);
	fprintf(f, "\n");
	for (i = 0; i < nres; i++) {
		for (j = 0; j <= (size_t)res[i].nruns; j++) {
			struct cold_run *cr = j < (size_t)res[i].nruns ?
			    &res[i].runs[j] : &res[i].med;

			if (j < (size_t)res[i].nruns)
				fprintf(f, "%s,%ld,%zu", res[i].setup->name,
				    res[i].pgs, j + 1);
			else
				fprintf(f, "%s,%ld,median", res[i].setup->name,
				    res[i].pgs);
			for (k = 0; k < COLD_NFIELDS; k++)
				fprintf(f, ",%.6f", *cold_field(cr, k));
			fprintf(f, "\n");
		}
	}
	fclose(f);
	free(path);

	xasprintf(&path, "%s/store2013.csv", o->outdir);
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "setup,pgs,layout,commit_pgs,commits,commits_done,"
		    "complete,seconds,bytes_per_commit\n");
		for (i = 0; i < nsres; i++)
			fprintf(f, "%s,%ld,%s,%ld,%ld,%ld,%d,%.6f,%.0f\n",
			    sres[i].setup, sres[i].pgs, sres[i].layout,
			    o->commit_pgs, sres[i].commits,
			    sres[i].commits_done, sres[i].complete,
			    sres[i].seconds, sres[i].value_mb * 1e6);
		fclose(f);
	}
	free(path);

	doc = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:f}", "mons",
	    o->mons, "osds", o->shape.osds, "pools", o->shape.pools, "runs",
	    o->runs, "window", o->shape.window, "batch", o->shape.batch,
	    "commit_pgs", (json_int_t)o->commit_pgs, "store_cap_s",
	    o->store_cap);
	runs = json_array();
	meds = json_array();
	for (i = 0; i < nres; i++) {
		for (j = 0; j <= (size_t)res[i].nruns; j++) {
			struct cold_run *cr = j < (size_t)res[i].nruns ?
			    &res[i].runs[j] : &res[i].med;

			one = json_pack("{s:s, s:I}", "setup",
			    res[i].setup->name, "pgs", (json_int_t)res[i].pgs);
			if (res[i].error != NULL)
				json_object_set_new(one, "error",
				    json_string(res[i].error));
			for (k = 0; k < COLD_NFIELDS; k++)
				json_object_set_new(one, cold_fields[k],
				    *cold_field(cr, k) < 0 ? json_null() :
				    json_real(*cold_field(cr, k)));
			if (j < (size_t)res[i].nruns) {
				json_object_set_new(one, "run",
				    json_integer((json_int_t)j + 1));
				json_array_append_new(runs, one);
			} else
				json_array_append_new(meds, one);
		}
	}
	st = json_array();
	for (i = 0; i < nsres; i++)
		json_array_append_new(st, json_pack("{s:s, s:I, s:s, s:I, "
		    "s:I, s:b, s:f, s:f}", "setup", sres[i].setup, "pgs",
		    (json_int_t)sres[i].pgs, "layout", sres[i].layout,
		    "commits", (json_int_t)sres[i].commits, "commits_done",
		    (json_int_t)sres[i].commits_done, "complete",
		    sres[i].complete, "seconds", sres[i].seconds,
		    "bytes_per_commit", sres[i].value_mb * 1e6));
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(doc, "median", meds);
	json_object_set_new(doc, "store2013", st);
	xasprintf(&path, "%s/coldstart.json", o->outdir);
	r = json_dump_file(doc, path, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(doc);
	if (r != 0) {
		fprintf(stderr, "mapmon-bench: %s: cannot write\n", path);
		free(path);
		return -1;
	}
	free(path);

	/* The plot: bring-up and restart READY per set-up, against N. */
	for (k = 0; k < 2; k++) {
		for (i = 0; i < o->nsetups; i++) {
			size_t m = 0;

			for (j = 0; j < nres; j++) {
				if (res[j].setup != o->setups[i])
					continue;
				xs[ns][m] = (double)res[j].pgs;
				ys[ns][m] = res[j].error != NULL ? -1 : k == 0 ?
				    res[j].med.bringup : res[j].med.ready;
				m++;
			}
			snprintf(names[ns], sizeof names[ns], "%s %s",
			    o->setups[i]->name, k == 0 ? "bring-up" :
			    "restart READY");
			s[ns].name = names[ns];
			s[ns].colour = (int)i;
			s[ns].dashed = k == 1;
			s[ns].n = m;
			s[ns].x = xs[ns];
			s[ns].y = ys[ns];
			ns++;
		}
		if (!o->restart)
			break;
	}
	fflush(stdout);
	r = bench_plot(o->outdir, "coldstart", "mapmond cold start",
	    "PGs", "seconds (log scale)", s, ns, &cause);
	if (r == -1) {
		fprintf(stderr, "mapmon-bench: %s\n", cause);
		free(cause);
		return -1;
	}
	/* One line, either way: the plot never fails the run. */
	fprintf(stderr, "mapmon-bench: wrote %s/coldstart.{csv,json}, "
	    "store2013.csv and coldstart.{dat,gp%s}", o->outdir,
	    r == 1 ? ",svg" : "");
	if (r == 1)
		fprintf(stderr, " (drawn by gnuplot)\n");
	else {
		fprintf(stderr, "; no coldstart.svg: %s; `cd %s && gnuplot "
		    "coldstart.gp` draws it\n", cause, o->outdir);
		free(cause);
	}
	return 0;
}

int
bench_cold_main(int argc, char **argv)
{
	static const struct option longopts[] = { { "pgs", required_argument,
						      NULL, 'P' },
		{ "setups", required_argument, NULL, 'S' },
		{ "osds", required_argument, NULL, 'n' },
		{ "hosts", required_argument, NULL, BENCH_OPT_HOSTS },
		{ "racks", required_argument, NULL, BENCH_OPT_RACKS },
		{ "pools", required_argument, NULL, 'p' },
		{ "runs", required_argument, NULL, 'r' },
		{ "window", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "commit-pgs", required_argument, NULL, 'k' },
		{ "store-cap", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "mapmond", required_argument, NULL, 'M' },
		{ "mapmon-store", required_argument, NULL, 'T' },
		{ "no-store2013", no_argument, NULL, 'N' },
		{ "no-restart", no_argument, NULL, 'R' },
		{ "mon-conf", required_argument, NULL, 'C' },
		{ "mons", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct cold_opts o;
	struct cold_result *res;
	struct cold_store_result *sres;
	struct bench_run_opts ro;
	const char *mstore = NULL;
	char defpgs[] = "55392,110784,221568", *cause = NULL;
	char defsetups[] = "lmdb,leveldb-defaults,leveldb-2013,leveldb-mapmon";
	char label[96];
	size_t nres = 0, nsres = 0, i, j, steps, step = 0;
	double v[16];
	int ch, code, r, k, failed = 0, layout;

	memset(&o, 0, sizeof o);
	bench_shape_defaults(&o.shape);
	o.runs = 1;
	o.commit_pgs = 4096;
	o.store_cap = 30;
	o.timeout = 600;
	o.store2013 = 1;
	o.restart = 1;
	o.mons = 1;
	bench_run_opts_defaults(&ro);
	cold_parse_pgs(&o, defpgs);
	cold_parse_setups(&o, defsetups);
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'P':
			if (cold_parse_pgs(&o, optarg) == -1)
				cold_usage(MAPMON_EXIT_USAGE);
			break;
		case 'S':
			if (cold_parse_setups(&o, optarg) == -1)
				cold_usage(MAPMON_EXIT_USAGE);
			break;
		case 'r':
			o.runs = (int)bench_arg_long("--runs", optarg, 1, 16);
			break;
		case 'k':
			o.commit_pgs = bench_arg_long("--commit-pgs", optarg,
			    1, 1 << 24);
			break;
		case 'c':
			o.store_cap = (double)bench_arg_long("--store-cap",
			    optarg, 1, 86400);
			break;
		case 't':
			o.timeout = (double)bench_arg_long("--timeout", optarg,
			    1, 86400);
			break;
		case 'T':
			mstore = optarg;
			break;
		case 'N':
			o.store2013 = 0;
			break;
		case 'm':
			o.mons = bench_arg_mons(optarg);
			break;
		case 'R':
			o.restart = 0;
			break;
		case 'h':
			cold_usage(0);
		default:
			if (!bench_shape_opt(&o.shape, ch, optarg) &&
			    !bench_run_opt(&ro, ch, optarg))
				cold_usage(MAPMON_EXIT_USAGE);
		}
	}
	o.mon_conf = ro.mon_conf;
	o.outdir = ro.outdir;
	if (optind != argc)
		cold_usage(MAPMON_EXIT_USAGE);
	if (o.shape.racks > 0 && o.shape.racks > o.shape.hosts) {
		fprintf(stderr,
		    "mapmon-bench: --racks %d: the racks hold hosts, and "
		    "there are %d (--hosts)\n",
		    o.shape.racks, o.shape.hosts);
		return MAPMON_EXIT_USAGE;
	}
	for (i = 0; i < o.npgs; i++)
		if (o.pgs[i] < o.shape.pools) {
			fprintf(stderr, "mapmon-bench: --pgs: %ld PGs cannot "
			    "fill %d pools\n", o.pgs[i], o.shape.pools);
			return MAPMON_EXIT_USAGE;
		}
	if (o.mons > 1)
		o.restart = 0; /* a quorum's restart: not measured here */
	if ((o.mapmond = bench_run_mapmond(&ro, &code)) == NULL)
		return code;
	if (o.restart)
		o.mstore = bench_find_program(mstore, "MAPMON_STORE",
		    "mapmon-store", &cause);
	if (o.restart && o.mstore == NULL) {
		fprintf(stderr, "mapmon-bench: %s\n", cause);
		free(cause);
		free(o.mapmond);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);

	res = xcalloc(o.nsetups * o.npgs, sizeof *res);
	sres = xcalloc(2 * 2 * o.npgs, sizeof *sres);
	steps = o.nsetups * o.npgs * (size_t)o.runs +
	    (o.store2013 ? 4 * o.npgs : 0);
	for (i = 0; i < o.nsetups; i++) {
		for (j = 0; j < o.npgs; j++) {
			struct cold_result *cr = &res[nres++];

			cr->setup = o.setups[i];
			cr->pgs = o.pgs[j];
			for (r = 0; r < o.runs && cr->error == NULL; r++) {
				snprintf(label, sizeof label, "%s %ld PGs run "
				    "%d/%d", cr->setup->name, cr->pgs, r + 1,
				    o.runs);
				bench_progress(label, step++, steps);
				if (cold_one(&o, cr->setup, cr->pgs,
				    &cr->runs[r], &cause) == -1) {
					cr->error = cause;
					cause = NULL;
					failed = 1;
					bench_progress_done();
					fprintf(stderr, "mapmon-bench: %s %ld: "
					    "%s\n", cr->setup->name, cr->pgs,
					    cr->error);
					break;
				}
				cr->nruns++;
			}
			for (k = 0; k < COLD_NFIELDS; k++) {
				size_t m = 0;

				for (r = 0; r < cr->nruns; r++)
					if (*cold_field(&cr->runs[r], k) >= 0)
						v[m++] = *cold_field(
						    &cr->runs[r], k);
				*cold_field(&cr->med, k) = m == 0 ? -1 :
				    bench_median(v, m);
			}
		}
	}
	for (j = 0; o.store2013 && j < o.npgs; j++) {
		static const char *const su[] = { "leveldb-defaults",
		    "leveldb-2013" };

		for (k = 0; k < 2; k++)
			for (layout = 1; layout >= 0; layout--) {
				snprintf(label, sizeof label, "store %s %ld %s",
				    su[k], o.pgs[j], layout ? "whole" :
				    "per-pg");
				bench_progress(label, step++, steps);
				if (cold_store2013(&o, su[k], o.pgs[j], layout,
				    &sres[nsres], &cause) == -1) {
					bench_progress_done();
					fprintf(stderr, "mapmon-bench: %s: "
					    "%s\n", label, cause);
					free(cause);
					cause = NULL;
					failed = 1;
				}
				nsres++;
			}
	}
	bench_progress_done();
	cold_print(&o, res, nres, sres, nsres);
	if (cold_write(&o, res, nres, sres, nsres) == -1)
		failed = 1;
	for (i = 0; i < nres; i++)
		free(res[i].error);
	free(res);
	free(sres);
	free(o.mapmond);
	free(o.mstore);
	free(o.mon_conf);
	return failed ? 1 : 0;
}
