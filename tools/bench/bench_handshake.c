/*
 * bench_handshake.c: `mapmon-bench handshake`.
 *
 * A fresh mapmond (the set-up's store, [mon] max_connections raised to
 * hold every connection), then, per run:
 *
 *  - one at a time: --single connections, each timed from mclient_new()
 *    to its on_ready (TCP connect, both HELLOs, with a key both AUTH
 *    frames and the checks of both proofs), then closed;
 *  - all at once: --conns connections made together on one event loop,
 *    timed from the first mclient_new() to the last on_ready, held open
 *    until the last is ready.
 *
 * With --no-auth the monitor runs with [auth] required = false and the
 * clients offer no key: the same, less the handshake's cryptography.
 */
#include "config.h"

#include <sys/resource.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "net/client.h"
#include "tools/bench/bench_handshake.h"
#include "tools/bench/bench_util.h"

#define HS_TIMEOUT_MS 30000

struct hs_opts {
	const struct bench_setup *setup;
	int single;
	int conns;
	int runs;
	int no_auth;
	const char *outdir;
	char *mapmond;
	char *mon_conf;
};

/* One batch of connections on a loop, counted as they become ready. */
struct hs_batch {
	struct event_base *base;
	struct mclient **cl;
	int n;
	int ready;
	int failed;
	char *error;
	double t_last;
};

static void
hs_ready(void *arg, json_t *hello)
{
	struct hs_batch *b = arg;

	(void)hello;
	b->t_last = bench_now();
	if (++b->ready + b->failed == b->n)
		event_base_loopbreak(b->base);
}

static void
hs_error(void *arg, int err, const char *msg)
{
	struct hs_batch *b = arg;

	(void)err;
	if (b->error == NULL)
		b->error = xstrdup(msg);
	if (b->ready + ++b->failed == b->n)
		event_base_loopbreak(b->base);
}

/*
 * n connections to addr at once; the seconds from the first made to the
 * last ready, or -1 with *cause.
 */
static double
hs_batch(const char *addr, int n, char **cause)
{
	struct hs_batch b;
	double t0;
	int i;

	memset(&b, 0, sizeof b);
	if ((b.base = event_base_new()) == NULL)
		fatalx("event_base_new");
	b.n = n;
	b.cl = xcalloc((size_t)n, sizeof *b.cl);
	t0 = bench_now();
	for (i = 0; i < n; i++)
		b.cl[i] = mclient_new(b.base, addr, HS_TIMEOUT_MS, hs_ready,
		    hs_error, &b);
	event_base_dispatch(b.base);
	for (i = 0; i < n; i++)
		mclient_free(b.cl[i]);
	free(b.cl);
	event_base_free(b.base);
	if (b.failed > 0) {
		xasprintf(cause, "%d of %d connections failed: %s", b.failed, n,
		    b.error != NULL ? b.error : "?");
		free(b.error);
		return -1;
	}
	return b.t_last - t0;
}

/* The fd limit raised to hold n connections (a batch opens them all). */
static void
hs_fd_limit(int n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)n + 64 ? rl.rlim_max :
							     (rlim_t)n + 64;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static mapmon_dead void
hs_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
	    "usage: mapmon-bench handshake [--setup NAME] [--single N] "
	    "[--conns N]\n"
	    "           [--runs R] [--no-auth] [-o DIR] [--mapmond PATH] "
	    "[--mon-conf FILE]\n"
	    "  set-ups: %s\n",
	    bench_setup_names());
	exit(code);
}

/* One run: its single-connection latencies (ms) and the batch's seconds. */
static int
hs_run(const struct hs_opts *o, double *lat, double *batch, char **cause)
{
	struct bench_mon *bm;
	char *extra;
	double t;
	int i, rc = -1;

	xasprintf(&extra, "[mon]\nmax_connections = %d\n%s", o->conns + 64,
	    o->mon_conf != NULL ? o->mon_conf : "");
	bm = bench_mon_run(o->mapmond, o->setup, extra, o->no_auth, cause);
	free(extra);
	if (bm == NULL)
		return -1;
	for (i = 0; i < o->single; i++) {
		if ((t = hs_batch(bm->addr, 1, cause)) < 0)
			goto out;
		lat[i] = t * 1000;
	}
	if ((*batch = hs_batch(bm->addr, o->conns, cause)) < 0)
		goto out;
	rc = bench_mon_stop(bm, cause);
out:
	bench_mon_free(bm);
	return rc;
}

int
bench_handshake_main(int argc, char **argv)
{
	static const struct option longopts[] = { { "setup", required_argument,
						      NULL, 'S' },
		{ "single", required_argument, NULL, 's' },
		{ "conns", required_argument, NULL, 'c' },
		{ "runs", required_argument, NULL, 'r' },
		{ "no-auth", no_argument, NULL, 'A' },
		{ "mapmond", required_argument, NULL, 'M' },
		{ "mon-conf", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct bench_run_opts ro;
	struct hs_opts o;
	double *lat, batch = 0, p50, p99, max;
	char *cause = NULL, *path;
	FILE *f;
	int ch, code, r, failed = 0;

	memset(&o, 0, sizeof o);
	o.setup = bench_setup_find("lmdb");
	o.single = 1000;
	o.conns = 2000;
	o.runs = 1;
	bench_run_opts_defaults(&ro);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		if (bench_run_opt(&ro, ch, optarg))
			continue;
		switch (ch) {
		case 'S':
			if ((o.setup = bench_setup_find(optarg)) == NULL) {
				fprintf(stderr,
				    "mapmon-bench: --setup: "
				    "unknown set-up '%s'\n",
				    optarg);
				hs_usage(64);
			}
			break;
		case 's':
			o.single = (int)bench_arg_long("--single", optarg, 1,
			    1000000);
			break;
		case 'c':
			o.conns = (int)bench_arg_long("--conns", optarg, 1,
			    100000);
			break;
		case 'r':
			o.runs = (int)bench_arg_long("--runs", optarg, 1, 100);
			break;
		case 'A':
			o.no_auth = 1;
			break;
		case 'h':
			hs_usage(0);
		default:
			hs_usage(64);
		}
	}
	if (optind != argc)
		hs_usage(64);
	o.mon_conf = ro.mon_conf;
	o.outdir = ro.outdir;
	if ((o.mapmond = bench_run_mapmond(&ro, &code)) == NULL)
		return code;
	hs_fd_limit(o.conns);

	xasprintf(&path, "%s/handshake.csv", o.outdir);
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "mapmon-bench: %s: %s\n", path,
		    strerror(errno));
		free(path);
		return 1;
	}
	fprintf(f,
	    "auth,run,single,single_p50_ms,single_p99_ms,"
	    "single_max_ms,conns,conns_all_ready_s\n");
	printf("| auth | run | one handshake p50 ms | p99 ms | max ms | "
	       "%d at once, all ready s |\n|---|---:|---:|---:|---:|---:|\n",
	    o.conns);
	lat = xcalloc((size_t)o.single, sizeof *lat);
	for (r = 0; r < o.runs; r++) {
		if (hs_run(&o, lat, &batch, &cause) == -1) {
			fprintf(stderr, "mapmon-bench: handshake run %d: %s\n",
			    r + 1, cause);
			free(cause);
			cause = NULL;
			failed = 1;
			continue;
		}
		p50 = bench_percentile(lat, (size_t)o.single, 50);
		p99 = bench_percentile(lat, (size_t)o.single, 99);
		max = bench_percentile(lat, (size_t)o.single, 100);
		printf("| %s | %d | %.3f | %.3f | %.3f | %.3f |\n",
		    o.no_auth ? "off" : "on", r + 1, p50, p99, max, batch);
		fprintf(f, "%s,%d,%d,%.3f,%.3f,%.3f,%d,%.3f\n",
		    o.no_auth ? "off" : "on", r + 1, o.single, p50, p99, max,
		    o.conns, batch);
	}
	fclose(f);
	free(path);
	free(lat);
	free(o.mapmond);
	free(o.mon_conf);
	return failed;
}
