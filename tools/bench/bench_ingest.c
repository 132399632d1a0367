/*
 * bench_ingest.c: `mapmon-bench ingest`.
 *
 * Per debug level setting and run: a fresh mapmond (the set-up's store,
 * sync = commit, [log] debug_* = the level for every subsystem), the
 * simulated OSDs of tools/bench/osd_sim.h bring N PGs to active+clean, then
 * report every PG again as soon as its previous report is answered (live
 * interval 0) with --window reports of up to --batch PGs in flight.  After
 * one second of warm-up the PG stats the monitor accepts (its replies'
 * "accepted", each reply sent after its commit is durable) are counted for
 * --duration seconds.  Meanwhile a second thread with its own connection
 * (bench_probe_start()) sends `status` every --probe-ms milliseconds, one
 * at a time, and times each from send to reply; that thread runs at
 * SCHED_FIFO where it may (not with --probe-normal), so that a reply's time
 * is the monitor's and not also the prober's own wait for a core on a
 * machine the simulated OSDs keep busy.  With --no-auth the
 * monitor does not require authentication and the clients offer no key
 * (what authentication costs is the difference).
 *
 * With --mons 3 (or 5) the monitor is a quorum (bench_quorum_run()): the
 * simulated OSDs hunt over the monitors' list as osd-sim does, the pools
 * are made through the first, and the probe asks a follower (the leader
 * named by quorum_status at the end of the warm-up), where a reply waits
 * for nothing but that monitor's own applied state.
 *
 * With --rate R the load, once every PG is active+clean, is R PG updates
 * a second offered, not as many as are answered: every PG is reported
 * again each pgs/R seconds, in slices of primary OSDs spread over that
 * interval (ingest_spread(), osd_sim_set_live()), as real OSDs' reports
 * come.  The warm-up is then at least INGEST_RATE_WARMUP_S, for the
 * reports queued at the bring-up's pace to drain.  A monitor that cannot
 * keep up answers fewer: the rate measured is what it accepted.  It
 * answers "at this many updates a second, how long does a read wait",
 * beside the saturated run's "how many, and then how long".
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/mapmon.h"
#include "net/client.h"
#include "tools/bench/bench_ingest.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/osd_sim.h"

#define INGEST_MAX_LEVELS 4
#define INGEST_MAX_RUNS 16
/* --rate: the most slices of the interval, the warm-up's least seconds. */
#define INGEST_SPREAD_MAX 100
#define INGEST_RATE_WARMUP_S 3

struct ingest_opts {
	const struct bench_setup *setup;
	long pgs;
	struct bench_shape shape;
	double duration;
	double warmup;
	int probe_ms;
	long rate;    /* --rate: PG updates/s offered; 0: as answered */
	int sim_nice; /* nice of the simulator's thread, measuring */
	int runs;
	size_t nlevels;
	char *levels[INGEST_MAX_LEVELS];
	const char *outdir;
	char *mapmond;
	char *mon_conf;		/* lines added to the generated config */
	int no_auth;		/* --no-auth */
	int mons;		/* --mons: 1, or a quorum of 3 or 5 */
	int probe_normal;	/* --probe-normal: no SCHED_FIFO for it */
};

struct ingest_result {
	const char *level;
	int nruns;
	double rate[INGEST_MAX_RUNS];
	double p50[INGEST_MAX_RUNS];
	double p99[INGEST_MAX_RUNS];
	double max[INGEST_MAX_RUNS];
	size_t samples[INGEST_MAX_RUNS];
	double commits[INGEST_MAX_RUNS];
	char probed[INGEST_MAX_RUNS]; /* mon.X probed ('a' alone) */
	char probe_priority[128];     /* bench_probe_priority(), last run */
	double med_rate, med_p50, med_p99, med_max;
	char *error;
};

/* The load, on this thread's event loop, after the bring-up (bench_up_*). */
struct ingest_load {
	struct event_base *base;
	struct bench_up *up;
	struct event *timer;
	const struct ingest_opts *o;
	const char *addr;	/* the probe's: one monitor */
	struct bench_quorum *q; /* --mons > 1 */
	char probed;		/* the probed monitor's name */
	struct bench_probe *probe;
	int phase;		/* 0 bring-up, 1 warm-up, 2 measuring */
	double t_start;
	uint64_t start_accepted;
	double rate;
};

/* A quorum's probe goes to a follower: the first that is not the leader. */
static int
ingest_follower(struct ingest_load *l, char **cause)
{
	int leader;
	size_t i;

	if ((leader = bench_quorum_leader(l->q, 10, cause)) == -1)
		return -1;
	for (i = 0; i < l->q->n; i++)
		if ((int)i != leader)
			break;
	l->addr = l->q->mon[i]->addr;
	l->probed = (char)('a' + i);
	return 0;
}

static void
ingest_timer(evutil_socket_t fd, short what, void *arg)
{
	struct ingest_load *l = arg;
	struct osd_sim_stats st;
	struct timeval tv;
	char *cause = NULL;

	(void)fd;
	(void)what;
	osd_sim_stats(l->up->sim, &st);
	if (l->phase == 1) {
		/* Warm-up over: start counting and probing. */
		if (l->q != NULL && ingest_follower(l, &cause) == -1) {
			bench_up_fail(l->up, "%s", cause);
			free(cause);
			return;
		}
		l->phase = 2;
		l->t_start = bench_now();
		l->start_accepted = st.pgs_accepted;
		l->probe = bench_probe_start(l->addr, l->o->probe_ms,
		    !l->o->probe_normal, &cause);
		if (l->probe == NULL) {
			bench_up_fail(l->up, "%s", cause);
			free(cause);
			return;
		}
		/*
		 * The monitor and the probe's thread started at this
		 * thread's nice; only the simulator, on this thread, runs
		 * lower from here (Linux: a thread's own nice).
		 */
		if (l->o->sim_nice != 0 &&
		    setpriority(PRIO_PROCESS, 0, l->o->sim_nice) == -1) {
			bench_up_fail(l->up, "--sim-nice %d: setpriority: %s",
			    l->o->sim_nice, strerror(errno));
			return;
		}
		tv.tv_sec = (time_t)l->o->duration;
		tv.tv_usec = (suseconds_t)((l->o->duration -
		    (double)tv.tv_sec) * 1e6);
		evtimer_add(l->timer, &tv);
		return;
	}
	l->rate = (double)(st.pgs_accepted - l->start_accepted) /
	    (bench_now() - l->t_start);
	event_base_loopbreak(l->base);
}

/* --rate's interval: every PG reported once in it makes the rate. */
static int
ingest_interval_ms(const struct ingest_opts *o)
{
	double ms = (double)o->pgs * 1000.0 / (double)o->rate;

	return ms < 1 ? 1 : ms > 3600000 ? 3600000 : (int)(ms + 0.5);
}

/*
 * --rate's slices: the most, up to INGEST_SPREAD_MAX, that divide the
 * OSDs evenly (a slice is the primaries whose id modulo it is the slice's),
 * so each slice reports about as many PGs.
 */
static int
ingest_spread(const struct ingest_opts *o)
{
	int s;

	for (s = INGEST_SPREAD_MAX; s > 1; s--)
		if (o->shape.osds % s == 0)
			break;
	return s;
}

/* Every PG active+clean the first time: the warm-up starts. */
static void
ingest_clean(mapmon_unused struct bench_up *up, void *arg)
{
	struct ingest_load *l = arg;
	struct timeval tv;

	if (l->phase != 0)
		return;
	l->phase = 1;
	if (l->o->rate > 0)
		osd_sim_set_live(l->up->sim, ingest_interval_ms(l->o),
		    ingest_spread(l->o));
	tv.tv_sec = (time_t)l->o->warmup;
	tv.tv_usec = (suseconds_t)((l->o->warmup - (double)tv.tv_sec) * 1e6);
	evtimer_add(l->timer, &tv);
}

/* One run at one debug level; 0 or -1 with *cause. */
static int
ingest_one(const struct ingest_opts *o, const char *level,
    struct ingest_result *res, int run, char **cause)
{
	static const char *const subsys[] = { "mon", "osd", "pg", "commit",
	    "store", "net", "conf", "client", "event" };
	struct bench_up_params p;
	struct ingest_load l;
	struct bench_mon *bm = NULL;
	struct bench_quorum *q = NULL;
	const double *sent, *lat;
	double *ms;
	char *extra, *more;
	size_t i, n = 0;
	int rc = -1, failed = 0;

	more = bench_limits_conf(o->pgs, &o->shape, o->mon_conf);
	xasprintf(&extra, "%s\n[log]\n", more);
	free(more);
	for (i = 0; i < sizeof subsys / sizeof subsys[0]; i++) {
		xasprintf(&more, "%sdebug_%s = %s\n", extra, subsys[i], level);
		free(extra);
		extra = more;
	}
	if (o->mons > 1)
		q = bench_quorum_run(o->mapmond, o->setup, extra,
		    (size_t)o->mons, o->no_auth, cause);
	else
		bm = bench_mon_run(o->mapmond, o->setup, extra, o->no_auth,
		    cause);
	free(extra);
	if (bm == NULL && q == NULL)
		return -1;

	memset(&l, 0, sizeof l);
	memset(&p, 0, sizeof p);
	l.o = o;
	l.base = event_base_new();
	l.q = q;
	l.addr = q != NULL ? q->addrs : bm->addr;
	l.probed = 'a';
	p.addr = l.addr;
	p.shape = o->shape;
	p.live_interval_ms = 0;
	p.pgs = o->pgs;
	p.pool_prefix = "ingest";
	p.no_auth = o->no_auth;
	p.on_clean = ingest_clean;
	p.arg = &l;
	l.timer = evtimer_new(l.base, ingest_timer, &l);
	if ((l.up = bench_up_new(l.base, &p, cause)) == NULL)
		goto out;
	event_base_dispatch(l.base);
	if (l.probe != NULL) {
		n = bench_probe_stop(l.probe, &sent, &lat, &failed);
		snprintf(res->probe_priority, sizeof res->probe_priority, "%s",
		    bench_probe_priority(l.probe));
	}
	/* Back to where it was, for the next run's monitor (root may). */
	if (o->sim_nice != 0 && setpriority(PRIO_PROCESS, 0, 0) == -1 &&
	    l.up->error == NULL)
		xasprintf(&l.up->error, "--sim-nice %d: back to nice 0: %s",
		    o->sim_nice, strerror(errno));
	if (l.up->error != NULL) {
		*cause = l.up->error;
		l.up->error = NULL;
		goto out;
	}
	if (failed || n == 0) {
		xasprintf(cause, "status probe: %s",
		    failed ? "a status failed" : "no answer during the load");
		goto out;
	}
	ms = xreallocarray(NULL, n, sizeof *ms);
	memcpy(ms, lat, n * sizeof *ms);
	res->rate[run] = l.rate;
	res->samples[run] = n;
	res->probed[run] = l.probed;
	res->max[run] = bench_percentile(ms, n, 100);
	res->p50[run] = bench_percentile(ms, n, 50);
	res->p99[run] = bench_percentile(ms, n, 99);
	free(ms);
	rc = 0;
out:
	bench_probe_free(l.probe);
	bench_up_free(l.up);
	event_free(l.timer);
	event_base_free(l.base);
	bench_mon_free(bm);
	bench_quorum_free(q);
	return rc;
}

static mapmon_dead void
ingest_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
	    "usage: mapmon-bench ingest [--setup NAME] [--pgs N] [--osds N] "
	    "[--pools N]\n"
	    "           [--duration S] [--window W] [--batch B] "
	    "[--probe-ms MS] [--runs R]\n"
	    "           [--levels L/G,...] [--no-auth] [--sim-nice N] "
	    "[--mons N] [--rate R]\n"
	    "           [--probe-normal] [-o DIR] [--mapmond PATH]\n"
	    "  set-ups: %s\n",
	    bench_setup_names());
	exit(code);
}

/* What the prober ran at, in the first level that ran. */
static const char *
ingest_probe_priority(const struct ingest_result *res,
    const struct ingest_opts *o)
{
	size_t i;

	for (i = 0; i < o->nlevels; i++)
		if (res[i].probe_priority[0] != '\0')
			return res[i].probe_priority;
	return "no run";
}

static int
ingest_write(const struct ingest_opts *o, struct ingest_result *res)
{
	json_t *doc, *a, *runs;
	char *path;
	FILE *f;
	size_t i;
	int r;

	xasprintf(&path, "%s/ingest.csv", o->outdir);
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "mapmon-bench: %s: %s\n", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	fprintf(f,
	    "levels,run,pg_updates_per_s,status_p50_ms,status_p99_ms,"
	    "status_max_ms,status_samples,status_on\n");
	for (i = 0; i < o->nlevels; i++) {
		for (r = 0; r < res[i].nruns; r++)
			fprintf(f, "%s,%d,%.0f,%.3f,%.3f,%.3f,%zu,mon.%c\n",
			    res[i].level, r + 1, res[i].rate[r], res[i].p50[r],
			    res[i].p99[r], res[i].max[r], res[i].samples[r],
			    res[i].probed[r]);
		if (res[i].nruns > 0)
			fprintf(f, "%s,median,%.0f,%.3f,%.3f,%.3f,,\n",
			    res[i].level, res[i].med_rate, res[i].med_p50,
			    res[i].med_p99, res[i].med_max);
	}
	fclose(f);
	free(path);

	doc = json_pack("{s:s, s:i, s:I, s:i, s:i, s:f, s:i, s:i, s:i, s:i, "
			"s:i, s:I, s:s}",
	    "setup", o->setup->name, "mons", o->mons, "pgs", (json_int_t)o->pgs,
	    "osds", o->shape.osds, "pools", o->shape.pools, "duration_s",
	    o->duration, "window", o->shape.window, "batch", o->shape.batch,
	    "probe_ms", o->probe_ms, "sim_nice", o->sim_nice, "runs", o->runs,
	    "rate", (json_int_t)o->rate, "probe_priority",
	    ingest_probe_priority(res, o));
	a = json_array();
	for (i = 0; i < o->nlevels; i++) {
		runs = json_array();
		for (r = 0; r < res[i].nruns; r++)
			json_array_append_new(runs,
			    json_pack("{s:f, s:f, s:f, "
				      "s:f, s:I, s:s#}",
				"pg_updates_per_s", res[i].rate[r],
				"status_p50_ms", res[i].p50[r], "status_p99_ms",
				res[i].p99[r], "status_max_ms", res[i].max[r],
				"status_samples", (json_int_t)res[i].samples[r],
				"status_on", &res[i].probed[r], (int)1));
		json_array_append_new(a, json_pack("{s:s, s:o, s:f, s:f, s:f, "
		    "s:f, s:o}", "levels", res[i].level, "runs", runs,
		    "pg_updates_per_s", res[i].med_rate, "status_p50_ms",
		    res[i].med_p50, "status_p99_ms", res[i].med_p99,
		    "status_max_ms", res[i].med_max, "error",
		    res[i].error != NULL ? json_string(res[i].error) :
		    json_null()));
	}
	json_object_set_new(doc, "levels", a);
	xasprintf(&path, "%s/ingest.json", o->outdir);
	r = json_dump_file(doc, path, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(doc);
	if (r != 0)
		fprintf(stderr, "mapmon-bench: %s: cannot write\n", path);
	free(path);
	return r == 0 ? 0 : -1;
}

int
bench_ingest_main(int argc, char **argv)
{
	static const struct option longopts[] = { { "setup", required_argument,
						      NULL, 'S' },
		{ "pgs", required_argument, NULL, 'P' },
		{ "osds", required_argument, NULL, 'n' },
		{ "pools", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'D' },
		{ "window", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "probe-ms", required_argument, NULL, 'i' },
		{ "sim-nice", required_argument, NULL, 'N' },
		{ "runs", required_argument, NULL, 'r' },
		{ "levels", required_argument, NULL, 'L' },
		{ "mapmond", required_argument, NULL, 'M' },
		{ "mon-conf", required_argument, NULL, 'C' },
		{ "no-auth", no_argument, NULL, 'A' },
		{ "mons", required_argument, NULL, 'm' },
		{ "rate", required_argument, NULL, 'R' },
		{ "probe-normal", no_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct ingest_opts o;
	struct ingest_result res[INGEST_MAX_LEVELS];
	struct bench_run_opts ro;
	char deflevels[] = "0/0,0/20", *levels = deflevels, *w, *save = NULL;
	char *cause = NULL, label[64];
	double v[INGEST_MAX_RUNS];
	size_t i, step = 0;
	int ch, code, r, failed = 0;

	memset(&o, 0, sizeof o);
	memset(res, 0, sizeof res);
	o.setup = bench_setup_find("lmdb");
	o.pgs = 55392;
	bench_shape_defaults(&o.shape);
	o.duration = 10;
	o.warmup = 1;
	o.probe_ms = 10;
	o.runs = 1;
	o.mons = 1;
	bench_run_opts_defaults(&ro);
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			if ((o.setup = bench_setup_find(optarg)) == NULL) {
				fprintf(stderr, "mapmon-bench: --setup: "
				    "unknown set-up '%s' (%s)\n", optarg,
				    bench_setup_names());
				return MAPMON_EXIT_USAGE;
			}
			break;
		case 'P':
			o.pgs = bench_arg_long("--pgs", optarg, 1, 16777216);
			break;
		case 'D':
			o.duration = (double)bench_arg_long("--duration",
			    optarg, 1, 3600);
			break;
		case 'i':
			o.probe_ms = (int)bench_arg_long("--probe-ms", optarg,
			    1, 10000);
			break;
		case 'N':
			o.sim_nice = (int)bench_arg_long("--sim-nice", optarg,
			    0, 19);
			break;
		case 'r':
			o.runs = (int)bench_arg_long("--runs", optarg, 1,
			    INGEST_MAX_RUNS);
			break;
		case 'L':
			levels = optarg;
			break;
		case 'A':
			o.no_auth = 1;
			break;
		case 'm':
			o.mons = bench_arg_mons(optarg);
			break;
		case 'R':
			o.rate = bench_arg_long("--rate", optarg, 1, 100000000);
			break;
		case 'Q':
			o.probe_normal = 1;
			break;
		case 'h':
			ingest_usage(0);
		default:
			if (!bench_shape_opt(&o.shape, ch, optarg) &&
			    !bench_run_opt(&ro, ch, optarg))
				ingest_usage(MAPMON_EXIT_USAGE);
		}
	}
	o.mon_conf = ro.mon_conf;
	o.outdir = ro.outdir;
	if (optind != argc || o.pgs < o.shape.pools)
		ingest_usage(MAPMON_EXIT_USAGE);
	if (o.rate > 0 && o.warmup < INGEST_RATE_WARMUP_S)
		o.warmup = INGEST_RATE_WARMUP_S;
	for (w = strtok_r(levels, ",", &save); w != NULL;
	    w = strtok_r(NULL, ",", &save)) {
		if (o.nlevels == INGEST_MAX_LEVELS ||
		    strspn(w, "0123456789/") != strlen(w) ||
		    strchr(w, '/') == NULL) {
			fprintf(stderr, "mapmon-bench: --levels: '%s' is not "
			    "L/G (at most %d of them)\n", w,
			    INGEST_MAX_LEVELS);
			return MAPMON_EXIT_USAGE;
		}
		o.levels[o.nlevels++] = w;
	}
	if (o.nlevels == 0)
		ingest_usage(MAPMON_EXIT_USAGE);
	if ((o.mapmond = bench_run_mapmond(&ro, &code)) == NULL)
		return code;
	signal(SIGPIPE, SIG_IGN);

	/* Runs alternate between the levels, so drift hits each alike. */
	for (i = 0; i < o.nlevels; i++)
		res[i].level = o.levels[i];
	for (r = 0; r < o.runs; r++) {
		for (i = 0; i < o.nlevels; i++) {
			if (res[i].error != NULL)
				continue;
			snprintf(label, sizeof label, "ingest %s run %d/%d",
			    o.levels[i], r + 1, o.runs);
			bench_progress(label, step++, (size_t)o.runs *
			    o.nlevels);
			if (ingest_one(&o, o.levels[i], &res[i], res[i].nruns,
			    &cause) == -1) {
				bench_progress_done();
				fprintf(stderr, "mapmon-bench: ingest %s: %s\n",
				    o.levels[i], cause);
				res[i].error = cause;
				cause = NULL;
				failed = 1;
				continue;
			}
			res[i].nruns++;
		}
	}
	bench_progress_done();
	for (i = 0; i < o.nlevels; i++) {
#define INGEST_MED(field, out) do {					\
	memcpy(v, res[i].field, sizeof v);				\
	res[i].out = bench_median(v, (size_t)res[i].nruns);		\
} while (0)
		INGEST_MED(rate, med_rate);
		INGEST_MED(p50, med_p50);
		INGEST_MED(p99, med_p99);
		INGEST_MED(max, med_max);
#undef INGEST_MED
	}

	printf("## mapmon-bench ingest\n\n");
	if (o.mons > 1)
		printf(
		    "%d monitors on loopback, `status` asked of a follower; ",
		    o.mons);
	printf("%s, sync = commit; %ld PGs in %d pools on %d simulated OSDs; "
	       "binary PG reports, %d in flight of up to %d PGs, ",
	    o.setup->name, o.pgs, o.shape.pools, o.shape.osds, o.shape.window,
	    o.shape.batch);
	if (o.rate > 0)
		printf("%ld PG updates/s offered (each PG every %d ms); ",
		    o.rate, ingest_interval_ms(&o));
	else
		printf("each PG again once answered; ");
	printf("%.0f s "
	       "measured after %.0f s of warm-up; `status` every %d ms on its "
	       "own connection, the prober at %s; simulated OSDs at nice %d; "
	       "median of %d run%s\n\n",
	    o.duration, o.warmup, o.probe_ms, ingest_probe_priority(res, &o),
	    o.sim_nice, o.runs, o.runs == 1 ? "" : "s");
	printf("| debug levels | PG updates/s | status p50 ms | status p99 ms "
	    "| status max ms |\n|---|---:|---:|---:|---:|\n");
	for (i = 0; i < o.nlevels; i++) {
		if (res[i].nruns == 0) {
			printf("| %s | failed: %s | | | |\n", res[i].level,
			    res[i].error);
			continue;
		}
		printf("| %s | %.0f | %.3f | %.3f | %.3f |\n", res[i].level,
		    res[i].med_rate, res[i].med_p50, res[i].med_p99,
		    res[i].med_max);
	}
	if (o.nlevels >= 2 && res[0].nruns > 0 && res[1].nruns > 0 &&
	    res[0].med_rate > 0)
		printf("\nrate at %s is %.1f%% of the rate at %s\n",
		    res[1].level, 100 * res[1].med_rate / res[0].med_rate,
		    res[0].level);
	fflush(stdout);
	if (ingest_write(&o, res) == -1)
		failed = 1;
	for (i = 0; i < o.nlevels; i++)
		free(res[i].error);
	free(o.mapmond);
	free(o.mon_conf);
	return failed ? 1 : 0;
}
