/*
 * bench_filesize.c: `mapmon-bench filesize` (mapmon-bench(1)).
 *
 * Does the store file stay bounded under a long full-rate ingest?  A
 * fresh mapmond (the set-up's store, sync = commit), the simulated OSDs
 * of tools/bench/osd_sim.h bring N PGs to active+clean and then report
 * every PG again as soon as its previous report is answered (live
 * interval 0), for --duration seconds.  Every --interval seconds the
 * store's size on disk is sampled (LMDB: data.mdb; LevelDB: the regular
 * files of its directory), with the monitor's `store stat` (records,
 * LMDB's map in use) and the PG updates accepted since the last sample.
 *
 * Then the monitor is stopped and the live data measured offline with
 * mapmon-store: `scan` (the records' bytes: keys and values), `stat`
 * (LMDB's pages in the tree) and `compact` (LMDB: the compacted copy,
 * i.e. the pages the records take; LevelDB: a full compaction).  The
 * verdict compares the file at the stop with twice the live data (LMDB:
 * the compacted size; LevelDB: the records' bytes).  The live data is
 * known only after the stop: while the records grow (the pgmap
 * incrementals the monitor keeps), an earlier sample's multiple of it is
 * a lower bound.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/mapmon.h"
#include "net/client.h"
#include "tools/bench/bench_filesize.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/osd_sim.h"

/* At most this many samples are kept (an hour at one a second). */
#define FS_MAX_SAMPLES 3600

struct fs_opts {
	const struct bench_setup *setup;
	long pgs;
	struct bench_shape shape;
	double duration;
	double interval;
	const char *outdir;
	char *mapmond;
	char *mstore;
	char *mon_conf;
};

struct fs_sample {
	double t;	  /* seconds since the ingest started */
	double rate;	  /* PG updates/s accepted since the last */
	uint64_t file;	  /* bytes on disk */
	int64_t records;  /* `store stat` records; -1: not known */
	int64_t map_used; /* LMDB's map in use; -1: not known */
};

/* The run, on this thread's event loop after the bring-up. */
struct fs_run {
	const struct fs_opts *o;
	struct event_base *base;
	struct bench_up *up;
	struct bench_mon *bm;
	struct event *timer;
	int started;
	double t0;
	double t_last;
	uint64_t accepted_last;
	struct fs_sample *samples;
	size_t n;
	int asking; /* a `store stat` is out */
};

/* What the offline tools say once the monitor has stopped. */
struct fs_live {
	uint64_t records;
	uint64_t record_bytes; /* scan: keys and values */
	uint64_t before;       /* the file before compact */
	uint64_t compacted;    /* the file after compact */
	char pages[512];       /* stat's backend line (LMDB: its pages) */
};

static mapmon_dead void
fs_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
	    "usage: mapmon-bench filesize [--setup NAME] [--pgs N] "
	    "[--osds N] [--pools N]\n"
	    "           [--duration S] [--interval S] [--window W] "
	    "[--batch B] [-o DIR]\n"
	    "           [--mapmond PATH] [--mapmon-store PATH] "
	    "[--mon-conf FILE]\n"
	    "  set-ups: %s\n",
	    bench_setup_names());
	exit(code);
}

static int
fs_lmdb(const struct fs_opts *o)
{
	return strcmp(o->setup->backend, "lmdb") == 0;
}

static void
fs_store_stat(void *arg, int rc, const char *status, json_t *data)
{
	struct fs_run *r = arg;
	struct fs_sample *s;

	r->asking = 0;
	if (rc < 0) {
		bench_up_fail(r->up, "store stat: %s", status);
		return;
	}
	if (r->n == 0)
		return;
	s = &r->samples[r->n - 1];
	s->records = json_integer_value(json_object_get(data, "records"));
	s->map_used = json_integer_value(json_object_get(data, "map_used"));
	if (!fs_lmdb(r->o))
		s->map_used = -1;
}

static void
fs_timer(evutil_socket_t fd, short what, void *arg)
{
	struct fs_run *r = arg;
	struct osd_sim_stats st;
	struct fs_sample *s;
	json_t *cmd;
	char path[PATH_MAX];
	double t = bench_now();

	(void)fd;
	(void)what;
	osd_sim_stats(r->up->sim, &st);
	if (r->n < FS_MAX_SAMPLES) {
		s = &r->samples[r->n++];
		s->t = t - r->t0;
		s->rate = t > r->t_last ?
		    (double)(st.pgs_accepted - r->accepted_last) /
			(t - r->t_last) :
		    0;
		snprintf(path, sizeof path, "%s/store", r->bm->dir);
		s->file = bench_store_bytes(path, fs_lmdb(r->o));
		s->records = s->map_used = -1;
		/* One at a time: a slow answer leaves the next sample's blank. */
		if (!r->asking) {
			cmd = json_pack("{s:s}", "prefix", "store stat");
			if (mclient_request(r->up->admin, cmd, fs_store_stat,
				r) == 0)
				r->asking = 1;
			json_decref(cmd);
		}
	}
	r->t_last = t;
	r->accepted_last = st.pgs_accepted;
	/* A timer may fire a little early: half an interval of slack. */
	if (t - r->t0 >= r->o->duration - r->o->interval / 2)
		event_base_loopbreak(r->base);
}

/* Every PG active+clean: the ingest (already running) is timed from now. */
static void
fs_clean(mapmon_unused struct bench_up *up, void *arg)
{
	struct fs_run *r = arg;
	struct osd_sim_stats st;
	struct timeval tv;

	if (r->started)
		return;
	r->started = 1;
	osd_sim_stats(r->up->sim, &st);
	r->t0 = r->t_last = bench_now();
	r->accepted_last = st.pgs_accepted;
	tv.tv_sec = (time_t)r->o->interval;
	tv.tv_usec = (suseconds_t)((r->o->interval - (double)tv.tv_sec) * 1e6);
	event_add(r->timer, &tv);
	/* The first sample: the store right after the bring-up. */
	fs_timer(-1, 0, r);
}

/*
 * Run `mapmon-store -c CONF SUB` and call line() on each line of its
 * output; 0, or -1 with *cause (its last line) when it fails.
 */
static int
fs_tool(const struct fs_opts *o, struct bench_mon *bm, const char *sub,
    void (*line)(const char *, struct fs_live *), struct fs_live *live,
    char **cause)
{
	char *cmd, buf[1024], last[1024] = "";
	FILE *p;
	int st;

	xasprintf(&cmd, "'%s' -c '%s' %s 2>&1", o->mstore, bm->conf, sub);
	if ((p = popen(cmd, "r")) == NULL) {
		xasprintf(cause, "%s: %s", cmd, strerror(errno));
		free(cmd);
		return -1;
	}
	while (fgets(buf, sizeof buf, p) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(last, sizeof last, "%s", buf);
		line(buf, live);
	}
	st = pclose(p);
	if (st != 0) {
		xasprintf(cause, "%s: %s", cmd, last);
		free(cmd);
		return -1;
	}
	free(cmd);
	return 0;
}

static void
fs_scan_line(const char *l, struct fs_live *live)
{
	const char *at;

	if ((at = strstr(l, " records ")) != NULL)
		live->records = strtoull(at + 9, NULL, 10);
	if ((at = strstr(l, " bytes ")) != NULL)
		live->record_bytes = strtoull(at + 7, NULL, 10);
}

static void
fs_stat_line(const char *l, struct fs_live *live)
{
	if (strncmp(l, "page size ", 10) == 0 || strncmp(l, "Level", 5) == 0)
		snprintf(live->pages, sizeof live->pages, "%s", l);
}

static void
fs_ignore_line(mapmon_unused const char *l, mapmon_unused struct fs_live *live)
{
}

/* The run: samples into *samples (malloc'd), live figures into *live. */
static int
fs_one(const struct fs_opts *o, struct fs_sample **samples, size_t *n,
    struct fs_live *live, char **cause)
{
	struct bench_up_params p;
	struct fs_run r;
	char *extra, path[PATH_MAX];
	int rc = -1;

	memset(&r, 0, sizeof r);
	r.o = o;
	r.samples = xcalloc(FS_MAX_SAMPLES, sizeof *r.samples);
	extra = bench_limits_conf(o->pgs, &o->shape, o->mon_conf);
	r.bm = bench_mon_new(o->mapmond, o->setup, extra, cause);
	free(extra);
	if (r.bm == NULL) {
		free(r.samples);
		return -1;
	}
	if (bench_mon_start(r.bm, cause) == -1 ||
	    bench_mon_wait_ready(r.bm, 60, cause) == -1) {
		bench_mon_free(r.bm);
		free(r.samples);
		return -1;
	}
	memset(&p, 0, sizeof p);
	r.base = event_base_new();
	p.addr = r.bm->addr;
	p.shape = o->shape;
	p.live_interval_ms = 0;
	p.pgs = o->pgs;
	p.pool_prefix = "filesize";
	p.on_clean = fs_clean;
	p.arg = &r;
	r.timer = event_new(r.base, -1, EV_PERSIST, fs_timer, &r);
	if ((r.up = bench_up_new(r.base, &p, cause)) == NULL)
		goto out;
	event_base_dispatch(r.base);
	if (r.up->error != NULL) {
		*cause = r.up->error;
		r.up->error = NULL;
		goto out;
	}
	bench_up_free(r.up);
	r.up = NULL;
	if (bench_mon_stop(r.bm, cause) == -1)
		goto out;
	snprintf(path, sizeof path, "%s/store", r.bm->dir);
	if (fs_tool(o, r.bm, "scan", fs_scan_line, live, cause) == -1 ||
	    fs_tool(o, r.bm, "stat", fs_stat_line, live, cause) == -1)
		goto out;
	live->before = bench_store_bytes(path, fs_lmdb(o));
	if (fs_tool(o, r.bm, "compact", fs_ignore_line, live, cause) == -1)
		goto out;
	live->compacted = bench_store_bytes(path, fs_lmdb(o));
	rc = 0;
out:
	bench_up_free(r.up);
	event_free(r.timer);
	event_base_free(r.base);
	bench_mon_free(r.bm);
	if (rc == 0) {
		*samples = r.samples;
		*n = r.n;
	} else
		free(r.samples);
	return rc;
}

static double
mib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0);
}

static int
fs_write(const struct fs_opts *o, const struct fs_sample *s, size_t n,
    const struct fs_live *live, double max_ratio, double end_ratio)
{
	json_t *doc, *a;
	char *path;
	FILE *f;
	size_t i;
	int r;

	xasprintf(&path, "%s/filesize.csv", o->outdir);
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "mapmon-bench: %s: %s\n", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	fprintf(f, "t_s,pg_updates_per_s,file_bytes,records,map_used\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%.1f,%.0f,%llu,%lld,%lld\n", s[i].t, s[i].rate,
		    (unsigned long long)s[i].file, (long long)s[i].records,
		    (long long)s[i].map_used);
	fclose(f);
	free(path);

	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a,
		    json_pack("{s:f, s:f, s:I, s:I, s:I}", "t_s", s[i].t,
			"pg_updates_per_s", s[i].rate, "file_bytes",
			(json_int_t)s[i].file, "records",
			(json_int_t)s[i].records, "map_used",
			(json_int_t)s[i].map_used));
	doc = json_pack("{s:s, s:s, s:I, s:i, s:i, s:f, s:f, s:o, s:I, s:I, "
			"s:I, s:I, s:s, s:f, s:f}",
	    "setup", o->setup->name, "backend", o->setup->backend, "pgs",
	    (json_int_t)o->pgs, "osds", o->shape.osds, "pools", o->shape.pools,
	    "duration_s", o->duration, "interval_s", o->interval, "samples", a,
	    "live_records", (json_int_t)live->records, "live_record_bytes",
	    (json_int_t)live->record_bytes, "file_bytes_at_stop",
	    (json_int_t)live->before, "file_bytes_compacted",
	    (json_int_t)live->compacted, "store_stat", live->pages, "max_ratio",
	    max_ratio, "end_ratio", end_ratio);
	xasprintf(&path, "%s/filesize.json", o->outdir);
	r = json_dump_file(doc, path, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(doc);
	if (r != 0)
		fprintf(stderr, "mapmon-bench: %s: cannot write\n", path);
	free(path);
	return r == 0 ? 0 : -1;
}

int
bench_filesize_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "setup", required_argument, NULL, 'S' },
		{ "pgs", required_argument, NULL, 'P' },
		{ "osds", required_argument, NULL, 'n' },
		{ "pools", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'D' },
		{ "interval", required_argument, NULL, 'I' },
		{ "window", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "mapmond", required_argument, NULL, 'M' },
		{ "mapmon-store", required_argument, NULL, 'T' },
		{ "mon-conf", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fs_opts o;
	struct fs_live live;
	struct fs_sample *s = NULL;
	struct bench_run_opts ro;
	const char *mstore = NULL;
	char *cause = NULL;
	double live_bytes, ratio, max_ratio = 0, end_ratio;
	size_t i, n = 0;
	int ch, code, lmdb, ok;

	memset(&o, 0, sizeof o);
	memset(&live, 0, sizeof live);
	o.setup = bench_setup_find("lmdb");
	o.pgs = 55392;
	bench_shape_defaults(&o.shape);
	o.duration = 60;
	o.interval = 5;
	bench_run_opts_defaults(&ro);
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			if ((o.setup = bench_setup_find(optarg)) == NULL) {
				fprintf(stderr,
				    "mapmon-bench: --setup: "
				    "unknown set-up '%s' (%s)\n",
				    optarg, bench_setup_names());
				return MAPMON_EXIT_USAGE;
			}
			break;
		case 'P':
			o.pgs = bench_arg_long("--pgs", optarg, 1, 16777216);
			break;
		case 'D':
			o.duration = (double)bench_arg_seconds("--duration",
					 optarg, 1000, 24 * 3600 * 1000L) /
			    1000.0;
			break;
		case 'I':
			o.interval = (double)bench_arg_seconds("--interval",
					 optarg, 100, 3600 * 1000L) /
			    1000.0;
			break;
		case 'T':
			mstore = optarg;
			break;
		case 'h':
			fs_usage(0);
		default:
			if (!bench_shape_opt(&o.shape, ch, optarg) &&
			    !bench_run_opt(&ro, ch, optarg))
				fs_usage(MAPMON_EXIT_USAGE);
		}
	}
	o.mon_conf = ro.mon_conf;
	o.outdir = ro.outdir;
	if (optind != argc)
		fs_usage(MAPMON_EXIT_USAGE);
	if (o.pgs < o.shape.pools) {
		fprintf(stderr,
		    "mapmon-bench: --pgs: %ld PGs cannot fill %d "
		    "pools\n",
		    o.pgs, o.shape.pools);
		return MAPMON_EXIT_USAGE;
	}
	if (o.duration / o.interval > FS_MAX_SAMPLES) {
		fprintf(stderr,
		    "mapmon-bench: --duration / --interval: more "
		    "than %d samples\n",
		    FS_MAX_SAMPLES);
		return MAPMON_EXIT_USAGE;
	}
	if ((o.mapmond = bench_run_mapmond(&ro, &code)) == NULL)
		return code;
	if ((o.mstore = bench_find_program(mstore, "MAPMON_STORE",
		 "mapmon-store", &cause)) == NULL) {
		fprintf(stderr, "mapmon-bench: %s\n", cause);
		free(cause);
		free(o.mapmond);
		free(o.mon_conf);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	lmdb = fs_lmdb(&o);

	if (fs_one(&o, &s, &n, &live, &cause) == -1) {
		fprintf(stderr, "mapmon-bench: filesize: %s\n", cause);
		free(cause);
		free(o.mapmond);
		free(o.mstore);
		free(o.mon_conf);
		return 1;
	}

	/*
	 * The live data: LMDB's compacted file (the pages the records take,
	 * what the file could shrink to); LevelDB's records' bytes, as its
	 * fully compacted tables also hold each key's index entries.
	 */
	live_bytes = (double)(lmdb ? live.compacted : live.record_bytes);
	end_ratio = live_bytes > 0 ? (double)live.before / live_bytes : 0;
	printf("## mapmon-bench filesize\n\n");
	printf("%s, sync = commit; %ld PGs in %d pools on %d simulated OSDs; "
	       "binary PG reports, %d in flight of up to %d PGs, each PG "
	       "reported again as soon as its report is answered; %.0f s "
	       "sampled every %.0f s from the end of the bring-up\n\n",
	    o.setup->name, o.pgs, o.shape.pools, o.shape.osds, o.shape.window,
	    o.shape.batch, o.duration, o.interval);
	printf("After the stop: %llu records of %.1f MiB (keys and values, "
	       "`mapmon-store scan`); %s %.1f MiB, %.1f MiB after "
	       "`mapmon-store compact`%s%s\n\n",
	    (unsigned long long)live.records, mib(live.record_bytes),
	    lmdb ? "data.mdb" : "the directory", mib(live.before),
	    mib(live.compacted), live.pages[0] != '\0' && lmdb ? "; " : "",
	    lmdb ? live.pages : "");
	if (lmdb)
		printf("| t s | PG updates/s | data.mdb MiB | x live | records "
		       "| map used MiB |\n|---:|---:|---:|---:|---:|---:|\n");
	else
		printf("| t s | PG updates/s | directory MiB | x live |\n"
		       "|---:|---:|---:|---:|\n");
	for (i = 0; i < n; i++) {
		ratio = live_bytes > 0 ? (double)s[i].file / live_bytes : 0;
		if (ratio > max_ratio)
			max_ratio = ratio;
		printf("| %.0f | %.0f | %.1f | %.2f |%s", s[i].t, s[i].rate,
		    mib(s[i].file), ratio, lmdb ? " " : "");
		if (!lmdb)
			printf("\n");
		else if (s[i].records >= 0 && s[i].map_used >= 0)
			printf("%lld | %.1f |\n", (long long)s[i].records,
			    mib((uint64_t)s[i].map_used));
		else
			printf("| |\n");
	}
	printf(
	    "\nlive data (x live): %s %.1f MiB, measured after the stop; "
	    "while the records grow (pgmap incrementals are kept up to [mon] "
	    "min_epochs), an earlier sample's multiple of it is a lower "
	    "bound\n",
	    lmdb ? "the compacted data.mdb," : "the records' keys and values,",
	    live_bytes / (1024.0 * 1024.0));
	ok = end_ratio <= 2.0;
	printf("largest: %.2fx live; at the stop: %.2fx live: %s\n", max_ratio,
	    end_ratio,
	    ok ? (lmdb ? "within 2x at the stop" :
			 "within 2x at the stop, after its compactions") :
		 "more than 2x at the stop");
	fflush(stdout);
	code = fs_write(&o, s, n, &live, max_ratio, end_ratio) == 0 ? 0 : 1;
	free(s);
	free(o.mapmond);
	free(o.mstore);
	free(o.mon_conf);
	return code;
}
