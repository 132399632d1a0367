/*
 * bench_place.c: the time to place every PG of a cluster with the flat
 * function (map/placement.h) and with the hierarchy's (map/crush.h), and
 * the time a client takes to place one PG.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "map/crush.h"
#include "map/osdmap.h"
#include "map/placement.h"
#include "tools/bench/bench_place.h"
#include "tools/bench/bench_util.h"

struct bench_place {
	long osds, hosts, racks, pgs, pools, size, runs, single;
	long per_pool_max; /* 0, or place only this many PGs a pool */
	int weighted;	   /* OSD weights 0.5 to 2, else all 1 */
	int down_tenth;	   /* every tenth OSD down */
	struct placement *flat;
	struct crush *crush;
	struct crush_osd_state *st;
	struct crush_placement *prepared;
};

/* What the placements return goes here, so no call can be dropped. */
static volatile uint32_t bench_place_sink;

static mapmon_dead void
bench_place_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
	    "usage: mapmon-bench placement [--osds N] [--hosts H] [--racks R] "
	    "[--pgs P]\n                              [--pools K] [--size S] "
	    "[--runs R] [--single N]\n");
	exit(code);
}

/*
 * Seconds of the monotonic clock, or of this thread's CPU time: on a
 * shared machine the CPU time is what the placement cost, the wall time
 * what other processes let it have.
 */
static double
bench_place_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
bench_place_now(void)
{
	return bench_place_clock(CLOCK_MONOTONIC);
}

struct bench_place_time {
	double cpu, wall;
};

static double
bench_place_weight(const struct bench_place *b, long osd)
{
	return b->weighted ? 0.5 + (double)(osd % 4) * 0.5 : 1.0;
}

/*
 * Both forms of the same cluster: OSD i in host i % hosts, and with racks
 * host h in rack h % racks, under the root.
 */
static void
bench_place_build(struct bench_place *b)
{
	struct placement_osd *po;
	char host[32], rack[32], *cause = NULL;
	const char *l[2] = { host, rack };
	long i;

	b->crush = crush_new_default();
	b->st = xcalloc((size_t)b->osds, sizeof *b->st);
	po = xcalloc((size_t)b->osds, sizeof *po);
	for (i = 0; i < b->osds; i++) {
		snprintf(host, sizeof host, "host=h%ld", i % b->hosts);
		snprintf(rack, sizeof rack, "rack=r%ld",
		    i % b->hosts % (b->racks ? b->racks : 1));
		if (crush_osd_add(b->crush, (int32_t)i,
			bench_place_weight(b, i), l, b->racks ? 2 : 1,
			&cause) != 0)
			fatalx("placement: %s", cause);
		b->st[i].up = !(b->down_tenth && i % 10 == 0);
		b->st[i].reweight = CRUSH_WEIGHT_ONE;
		po[i].id = (int32_t)i;
		po[i].eligible = b->st[i].up;
		po[i].weight16 = (uint32_t)(bench_place_weight(b, i) *
		    PLACEMENT_WEIGHT_ONE);
	}
	b->flat = placement_new(po, (size_t)b->osds);
	b->prepared = crush_placement_new(b->crush, b->st, (size_t)b->osds);
	free(po);
}

static void
bench_place_clear(struct bench_place *b)
{
	placement_free(b->flat);
	crush_placement_free(b->prepared);
	crush_free(b->crush);
	free(b->st);
	b->flat = NULL;
	b->prepared = NULL;
	b->crush = NULL;
	b->st = NULL;
}

enum bench_place_fn { BENCH_FLAT, BENCH_CRUSH, BENCH_CLIENT };

/*
 * One full map: the placement context made from the OSDs (as the monitor
 * does per epoch) and every PG of every pool placed.
 */
static struct bench_place_time
bench_place_full(struct bench_place *b, enum bench_place_fn fn)
{
	struct placement_osd *po = NULL;
	struct bench_place_time t;
	int32_t up[CRUSH_MAX_SIZE];
	long per = b->pgs / b->pools, p, s, i;
	double c0 = bench_place_clock(CLOCK_THREAD_CPUTIME_ID);
	double t0 = bench_place_now();

	if (fn == BENCH_FLAT) {
		po = xcalloc((size_t)b->osds, sizeof *po);
		for (i = 0; i < b->osds; i++) {
			po[i].id = (int32_t)i;
			po[i].eligible = b->st[i].up;
			po[i].weight16 = (uint32_t)(bench_place_weight(b, i) *
			    PLACEMENT_WEIGHT_ONE);
		}
		placement_free(b->flat);
		b->flat = placement_new(po, (size_t)b->osds);
		free(po);
	} else if (fn == BENCH_CRUSH) {
		crush_placement_free(b->prepared);
		b->prepared = crush_placement_new(b->crush, b->st,
		    (size_t)b->osds);
	}
	if (b->per_pool_max > 0 && per > b->per_pool_max)
		per = b->per_pool_max;
	for (p = 1; p <= b->pools; p++)
		for (s = 0; s < per; s++) {
			int n;

			if (fn == BENCH_FLAT)
				n = placement_map_pg(b->flat, (uint32_t)p,
				    (uint32_t)s, (unsigned)b->size, up);
			else if (fn == BENCH_CRUSH)
				n = crush_placement_map_pg(b->prepared, 0,
				    (uint32_t)p, (uint32_t)s, (unsigned)b->size,
				    up);
			else
				n = crush_map_pg(b->crush, 0, b->st,
				    (size_t)b->osds, (uint32_t)p, (uint32_t)s,
				    (unsigned)b->size, up);
			bench_place_sink += (uint32_t)n + (uint32_t)up[0];
		}
	t.wall = bench_place_now() - t0;
	t.cpu = bench_place_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
	return t;
}

static int
bench_place_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The medians (CPU and wall, each on its own) of b->runs full maps. */
static struct bench_place_time
bench_place_median(struct bench_place *b, enum bench_place_fn fn)
{
	double *c = xcalloc((size_t)b->runs, sizeof *c);
	double *w = xcalloc((size_t)b->runs, sizeof *w);
	struct bench_place_time t;
	long r;

	bench_place_full(b, fn); /* warm up: caches, page faults */
	for (r = 0; r < b->runs; r++) {
		t = bench_place_full(b, fn);
		c[r] = t.cpu;
		w[r] = t.wall;
	}
	qsort(c, (size_t)b->runs, sizeof *c, bench_place_cmp);
	qsort(w, (size_t)b->runs, sizeof *w, bench_place_cmp);
	t.cpu = c[b->runs / 2];
	t.wall = w[b->runs / 2];
	free(c);
	free(w);
	return t;
}

/*
 * A client's placement of one PG, crush_map_pg() on the map it holds:
 * b->single PGs of pool 1 timed one by one on the monotonic clock (each
 * time includes one clock_gettime(), about 20 ns); *p50, *p99 and *mean
 * in nanoseconds (the mean and the tail include preemption on a loaded
 * machine).
 */
static void
bench_place_single(struct bench_place *b, double *p50, double *p99,
    double *mean)
{
	double *t = xcalloc((size_t)b->single, sizeof *t), t0, t1, sum = 0;
	int32_t up[CRUSH_MAX_SIZE];
	long i;

	t0 = bench_place_now();
	for (i = 0; i < b->single; i++) {
		bench_place_sink += (uint32_t)crush_map_pg(b->crush, 0, b->st,
		    (size_t)b->osds, 1, (uint32_t)i, (unsigned)b->size, up);
		t1 = bench_place_now();
		t[i] = (t1 - t0) * 1e9;
		sum += t[i];
		t0 = t1;
	}
	qsort(t, (size_t)b->single, sizeof *t, bench_place_cmp);
	*p50 = t[b->single / 2];
	*p99 = t[b->single * 99 / 100];
	*mean = sum / (double)b->single;
	free(t);
}

/* The osdmap of the cluster, with b->st's states, as a client holds it. */
static void
bench_place_osdmap(const struct bench_place *b, struct osdmap *m)
{
	struct osdmap_osd o;
	struct osdmap_pool p;
	long i;

	osdmap_init(m);
	for (i = 0; i < b->osds; i++) {
		memset(&o, 0, sizeof o);
		o.id = (int32_t)i;
		o.up = b->st[i].up;
		o.in = 1;
		o.weight = OSDMAP_WEIGHT_ONE;
		o.reweight = b->st[i].reweight;
		osdmap_set_osd(m, &o);
	}
	for (i = 1; i <= b->pools; i++) {
		memset(&p, 0, sizeof p);
		p.id = (uint32_t)i;
		snprintf(p.name, sizeof p.name, "p%ld", i);
		p.size = (uint32_t)b->size;
		p.min_size = 1;
		p.pg_num = p.pgp_num = (uint32_t)(b->pgs / b->pools);
		osdmap_set_pool(m, &p);
	}
	m->pool_max = (uint32_t)b->pools;
	osdmap_set_crush(m, crush_hold(b->crush));
}

/*
 * What the monitor itself does at an epoch that moves PGs: the placement
 * prepared again (crush_placement_new(), per bucket whether an OSD under
 * it can take a copy), the only step of its own that grows with the OSDs;
 * the median of 101, in CPU microseconds.
 */
static void
bench_place_prepare(const struct bench_place *b)
{
	double t[101], c0;
	int r;

	for (r = 0; r < 101; r++) {
		c0 = bench_place_clock(CLOCK_THREAD_CPUTIME_ID);
		crush_placement_free(
		    crush_placement_new(b->crush, b->st, (size_t)b->osds));
		t[r] = bench_place_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
	}
	qsort(t, 101, sizeof *t, bench_place_cmp);
	printf("# the placement prepared alone (crush_placement_new), "
	       "median of 101: %.1f us\n",
	    t[50] * 1e6);
}

/*
 * After host 0 fails, what a holder of the previous map's up sets does
 * (osd-sim, a client): the map's placement prepared, the changed OSDs
 * found (osdmap_remap_new()), and only the PGs whose set held one of them
 * placed again; the others keep theirs, exactly (test_osdmap).  Prints its
 * row (the median of b->runs) and how many PGs were placed again.
 */
static void
bench_place_incremental(struct bench_place *b)
{
	struct osdmap before, after;
	struct osdmap_place *pl;
	struct osdmap_remap *rm;
	long per = b->pgs / b->pools, npg = per * b->pools, p, s, i, r;
	int32_t *ups = xcalloc((size_t)npg * CRUSH_MAX_SIZE, sizeof *ups);
	uint8_t *lens = xcalloc((size_t)npg, 1);
	double *c = xcalloc((size_t)b->runs, sizeof *c);
	double *w = xcalloc((size_t)b->runs, sizeof *w), c0, t0;
	long again = 0;
	int32_t up[CRUSH_MAX_SIZE];
	int n;

	bench_place_osdmap(b, &before);
	pl = osdmap_place_new(&before);
	for (p = 1, i = 0; p <= b->pools; p++)
		for (s = 0; s < per; s++, i++)
			lens[i] = (uint8_t)osdmap_place_pg(pl, (uint32_t)p, 0,
			    (uint32_t)s, (unsigned)b->size,
			    ups + i * CRUSH_MAX_SIZE);
	osdmap_place_free(pl);
	for (i = 0; i < b->osds; i += b->hosts)
		b->st[i].up = 0;
	bench_place_osdmap(b, &after);
	for (r = -1; r < b->runs; r++) { /* run -1 warms up */
		c0 = bench_place_clock(CLOCK_THREAD_CPUTIME_ID);
		t0 = bench_place_now();
		again = 0;
		if ((rm = osdmap_remap_new(&before, &after)) == NULL)
			fatalx("placement: a host down is not a remap");
		pl = osdmap_place_new(&after);
		for (p = 1, i = 0; p <= b->pools; p++)
			for (s = 0; s < per; s++, i++) {
				if (!osdmap_remap_moves(rm,
					ups + i * CRUSH_MAX_SIZE, lens[i]))
					continue;
				n = osdmap_place_pg(pl, (uint32_t)p, 0,
				    (uint32_t)s, (unsigned)b->size, up);
				bench_place_sink += (uint32_t)n +
				    (uint32_t)up[0];
				again++;
			}
		osdmap_place_free(pl);
		osdmap_remap_free(rm);
		if (r >= 0) {
			c[r] = bench_place_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
			w[r] = bench_place_now() - t0;
		}
	}
	qsort(c, (size_t)b->runs, sizeof *c, bench_place_cmp);
	qsort(w, (size_t)b->runs, sizeof *w, bench_place_cmp);
	printf("crush_host_down_incremental %.1f %.1f %.0f\n",
	    c[b->runs / 2] * 1e3, w[b->runs / 2] * 1e3,
	    c[b->runs / 2] * 1e9 / (double)npg);
	printf("# host down, incremental: %ld of %ld PGs placed again\n", again,
	    npg);
	bench_place_prepare(b);
	fflush(stdout);
	osdmap_clear(&after);
	osdmap_clear(&before);
	free(ups);
	free(lens);
	free(c);
	free(w);
}

static void
bench_place_row(struct bench_place *b, const char *name, enum bench_place_fn fn)
{
	struct bench_place_time t = bench_place_median(b, fn);
	long per = b->pgs / b->pools;

	if (b->per_pool_max > 0 && per > b->per_pool_max)
		per = b->per_pool_max;
	printf("%s %.1f %.1f %.0f\n", name, t.cpu * 1e3, t.wall * 1e3,
	    t.cpu * 1e9 / (double)(per * b->pools));
	fflush(stdout);
}

int
bench_place_main(int argc, char **argv)
{
	static const struct option longopts[] = { { "osds", required_argument,
						      NULL, 'n' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "racks", required_argument, NULL, 'R' },
		{ "pgs", required_argument, NULL, 'p' },
		{ "pools", required_argument, NULL, 'k' },
		{ "size", required_argument, NULL, 's' },
		{ "runs", required_argument, NULL, 'r' },
		{ "single", required_argument, NULL, '1' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct bench_place b;
	double p50, p99, mean;
	char name[64];
	long i;
	int ch, pass;

	memset(&b, 0, sizeof b);
	b.osds = 256;
	b.hosts = 32;
	b.pgs = 221568;
	b.pools = 4;
	b.size = 3;
	b.runs = 5;
	b.single = 200000;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			b.osds = bench_arg_long("--osds", optarg, 1,
			    CRUSH_MAX_DEVICES);
			break;
		case 'H':
			b.hosts = bench_arg_long("--hosts", optarg, 1, 65536);
			break;
		case 'R':
			b.racks = bench_arg_long("--racks", optarg, 1, 65536);
			break;
		case 'p':
			b.pgs = bench_arg_long("--pgs", optarg, 1, 1 << 26);
			break;
		case 'k':
			b.pools = bench_arg_long("--pools", optarg, 1, 1024);
			break;
		case 's':
			b.size = bench_arg_long("--size", optarg, 1,
			    CRUSH_MAX_SIZE);
			break;
		case 'r':
			b.runs = bench_arg_long("--runs", optarg, 1, 101);
			break;
		case '1':
			b.single = bench_arg_long("--single", optarg, 1,
			    1 << 26);
			break;
		case 'h':
			bench_place_usage(0);
		default:
			bench_place_usage(MAPMON_EXIT_USAGE);
		}
	}
	if (optind != argc)
		bench_place_usage(MAPMON_EXIT_USAGE);
	if (b.racks > b.hosts) {
		fprintf(stderr,
		    "mapmon-bench: placement: --racks %ld is above --hosts "
		    "%ld: every rack needs a host\n",
		    b.racks, b.hosts);
		return MAPMON_EXIT_USAGE;
	}
	if (b.pgs < b.pools) {
		fprintf(stderr,
		    "mapmon-bench: placement: --pgs %ld is below --pools %ld\n",
		    b.pgs, b.pools);
		return MAPMON_EXIT_USAGE;
	}
	if (b.racks > 0)
		snprintf(name, sizeof name, "in %ld racks", b.racks);
	else
		snprintf(name, sizeof name, "under the root");
	printf(
	    "# mapmon-bench placement: %ld OSDs in %ld hosts %s, %ld pools "
	    "of %ld PGs of size %ld;\n# full maps: median of %ld runs (CPU "
	    "time of the thread, wall time), the placement context made each "
	    "run\n",
	    b.osds, b.hosts, name, b.pools, b.pgs / b.pools, b.size, b.runs);
	printf("case cpu_ms wall_ms cpu_ns_per_pg\n");
	for (pass = 0; pass < 3; pass++) {
		const char *tag = pass == 0 ? "equal" :
		    pass == 1		    ? "weighted" :
					      "tenth_down";

		b.weighted = pass == 1;
		b.down_tenth = pass == 2;
		bench_place_build(&b);
		snprintf(name, sizeof name, "flat_%s", tag);
		bench_place_row(&b, name, BENCH_FLAT);
		snprintf(name, sizeof name, "crush_%s", tag);
		bench_place_row(&b, name, BENCH_CRUSH);
		snprintf(name, sizeof name, "crush_client_%s", tag);
		bench_place_row(&b, name, BENCH_CLIENT);
		if (pass == 0) {
			bench_place_single(&b, &p50, &p99, &mean);
			printf("# one PG, crush_map_pg, %ld PGs timed one by "
			       "one: p50 %.0f ns, p99 %.0f ns, mean %.0f ns\n",
			    b.single, p50, p99, mean);
		}
		bench_place_clear(&b);
	}
	/*
	 * One host down whole (its OSDs i with i mod hosts 0): the full
	 * remap the monitor and every client make after a host fails.
	 */
	b.weighted = 0;
	b.down_tenth = 0;
	bench_place_build(&b);
	for (i = 0; i < b.osds; i += b.hosts)
		b.st[i].up = 0;
	bench_place_row(&b, "crush_host_down", BENCH_CRUSH);
	bench_place_clear(&b);
	bench_place_build(&b);
	bench_place_incremental(&b);
	bench_place_clear(&b);
	/* Every OSD down (a cluster starting): nothing to place. */
	b.weighted = 0;
	b.down_tenth = 0;
	bench_place_build(&b);
	memset(b.st, 0, (size_t)b.osds * sizeof *b.st);
	bench_place_row(&b, "crush_all_down", BENCH_CRUSH);
	/*
	 * Without the prepared form every replica spends its 51 attempts:
	 * 1/64 of the PGs (ms_per_map is for those), to keep the run short.
	 */
	b.per_pool_max = b.pgs / b.pools / 64 > 0 ? b.pgs / b.pools / 64 : 1;
	bench_place_row(&b, "crush_client_all_down_64th", BENCH_CLIENT);
	bench_place_clear(&b);
	return 0;
}
