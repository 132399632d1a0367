/*
 * mapmon_bench.c: mapmon-bench(1), the benchmarks: coldstart,
 * osd-sim, ingest, handshake, bigpool and log.  This file holds the
 * dispatch and osd-sim; the others are in bench_cold.c, bench_ingest.c,
 * bench_handshake.c, bench_bigpool.c and bench_log.c.
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

#include "common/mapmon.h"
#include "net/client.h"
#include "tools/bench/bench_bigpool.h"
#include "tools/bench/bench_cold.h"
#include "tools/bench/bench_handshake.h"
#include "tools/bench/bench_ingest.h"
#include "tools/bench/bench_log.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/osd_sim.h"

static mapmon_dead void
usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
	    "usage: mapmon-bench coldstart [options]\n"
	    "       mapmon-bench osd-sim -m ADDR --osds N [--until-clean] "
	    "[--duration S]\n"
	    "                    [--window W] [--batch B] [--interval MS] "
	    "[-qv]\n"
	    "       mapmon-bench ingest [options]\n"
	    "       mapmon-bench handshake [options]\n"
	    "       mapmon-bench bigpool [options]\n"
	    "       mapmon-bench log [ITERATIONS]\n"
	    "       mapmon-bench SUBCOMMAND -h    (the options of each)\n");
	exit(code);
}

/* osd-sim: the simulator on its own, until clean, a duration or a signal. */
struct sim_main {
	struct event_base *base;
	struct osd_sim *sim;
	struct mclient *admin;
	struct event *check_ev;
	struct event *status_ev;
	int until_clean;
	int verbose;		/* 0: -q, 1: default, 2: -v */
	int rc;
	int checking;
	double t0;
	uint64_t last_accepted;
	double last_t;
};

static void sim_main_check(struct sim_main *);

static void
sim_main_status(struct sim_main *sm)
{
	struct osd_sim_stats st;
	double t = bench_now();

	osd_sim_stats(sm->sim, &st);
	printf("osd-sim: epoch %u, %d osds up, %zu pgs, %zu active+clean, "
	    "%llu pg updates (%.0f/s)\n", st.epoch, st.osds_up, st.npgs,
	    st.nclean, (unsigned long long)st.pgs_accepted,
	    t > sm->last_t ? (double)(st.pgs_accepted - sm->last_accepted) /
	    (t - sm->last_t) : 0.0);
	fflush(stdout);
	sm->last_accepted = st.pgs_accepted;
	sm->last_t = t;
}

static void
sim_main_status_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sim_main_status(arg);
}

static void
sim_main_pg_stat(void *arg, int rc, const char *status, json_t *data)
{
	struct sim_main *sm = arg;
	json_t *by = json_object_get(data, "pgs_by_state"), *e;
	json_int_t num = json_integer_value(json_object_get(data, "num_pgs"));
	struct timeval tv = { 0, 5000 };

	sm->checking = 0;
	/*
	 * Cancelled: the admin client is being freed after a signal or the
	 * duration, which is not the monitor's failure.
	 */
	if (rc == -ECANCELED)
		return;
	if (rc < 0) {
		fprintf(stderr, "mapmon-bench: pg stat: %s\n", status);
		sm->rc = 1;
		event_base_loopbreak(sm->base);
		return;
	}
	e = json_array_get(by, 0);
	if (num > 0 && json_array_size(by) == 1 && strcmp(json_string_value(
	    json_object_get(e, "state_name")) ? json_string_value(
	    json_object_get(e, "state_name")) : "", "active+clean") == 0) {
		if (sm->verbose > 0) {
			printf("osd-sim: all %lld pgs active+clean after "
			    "%.3f s\n", (long long)num, bench_now() - sm->t0);
			fflush(stdout);
		}
		sm->rc = 0;
		event_base_loopbreak(sm->base);
		return;
	}
	/* Not yet (another client's PGs, a commit on its way): poll. */
	evtimer_add(sm->check_ev, &tv);
}

static void
sim_main_check(struct sim_main *sm)
{
	json_t *cmd;

	if (sm->checking)
		return;
	cmd = json_pack("{s:s}", "prefix", "pg stat");
	if (mclient_request(sm->admin, cmd, sim_main_pg_stat, sm) == 0)
		sm->checking = 1;
	json_decref(cmd);
}

static void
sim_main_check_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sim_main_check(arg);
}

static void
sim_main_event(void *arg, enum osd_sim_event ev, const char *msg)
{
	struct sim_main *sm = arg;
	struct osd_sim_stats st;

	switch (ev) {
	case OSD_SIM_BOOTED:
		osd_sim_stats(sm->sim, &st);
		if (sm->verbose > 0) {
			printf("osd-sim: %d osds up at epoch %u\n", st.osds_up,
			    st.epoch);
			fflush(stdout);
		}
		break;
	case OSD_SIM_CLEAN:
		if (sm->until_clean)
			sim_main_check(sm);
		else if (sm->verbose > 0) {
			osd_sim_stats(sm->sim, &st);
			printf("osd-sim: all %zu pgs active+clean\n", st.npgs);
			fflush(stdout);
		}
		break;
	case OSD_SIM_ERROR:
		fprintf(stderr, "mapmon-bench: osd-sim: %s\n", msg);
		osd_sim_stats(sm->sim, &st);
		if (st.dead) {
			sm->rc = 1;
			event_base_loopbreak(sm->base);
		}
		break;
	}
}

static void
sim_main_admin_error(void *arg, int err, const char *msg)
{
	struct sim_main *sm = arg;

	fprintf(stderr, "mapmon-bench: %s (%s)\n", msg, strerror(-err));
	sm->rc = 1;
	event_base_loopbreak(sm->base);
}

static void
sim_main_stop(evutil_socket_t fd, short what, void *arg)
{
	struct sim_main *sm = arg;

	(void)fd;
	(void)what;
	event_base_loopbreak(sm->base);
}

static int
osd_sim_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "osds", required_argument, NULL, 'n' },
		{ "until-clean", no_argument, NULL, 'u' },
		{ "duration", required_argument, NULL, 'D' },
		{ "window", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct osd_sim_params p;
	struct sim_main sm;
	struct event *sig_int, *sig_term, *dur_ev = NULL;
	struct timeval tv;
	long duration = 0;
	char *cause = NULL;
	int ch;

	memset(&sm, 0, sizeof sm);
	sm.verbose = 1;
	sm.rc = 0;
	osd_sim_params_defaults(&p);
	p.addr = getenv("MAPMON_MON");
	if (p.addr == NULL)
		p.addr = "127.0.0.1:6788";
	while ((ch = getopt_long(argc, argv, "m:qvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			p.addr = optarg;
			break;
		case 'n':
			p.nosds = (int)bench_arg_long("--osds", optarg, 1,
			    65536);
			break;
		case 'u':
			sm.until_clean = 1;
			break;
		case 'D':
			duration = bench_arg_long("--duration", optarg, 0,
			    86400 * 365);
			break;
		case 'w':
			p.window = (int)bench_arg_long("--window", optarg, 1,
			    4096);
			break;
		case 'b':
			p.batch = (int)bench_arg_long("--batch", optarg, 1,
			    1 << 20);
			break;
		case 'i':
			p.live_interval_ms = (int)bench_arg_long("--interval",
			    optarg, 0, 3600000);
			break;
		case 'q':
			sm.verbose = 0;
			break;
		case 'v':
			sm.verbose = 2;
			break;
		case 'h':
			usage(0);
		default:
			usage(MAPMON_EXIT_USAGE);
		}
	}
	if (optind != argc)
		usage(MAPMON_EXIT_USAGE);
	signal(SIGPIPE, SIG_IGN);

	sm.base = event_base_new();
	sm.t0 = sm.last_t = bench_now();
	if ((sm.sim = osd_sim_new(sm.base, &p, sim_main_event, &sm,
	    &cause)) == NULL) {
		fprintf(stderr, "mapmon-bench: osd-sim: %s\n", cause);
		free(cause);
		event_base_free(sm.base);
		return MAPMON_EXIT_USAGE;
	}
	sm.admin = mclient_new(sm.base, p.addr, p.connect_timeout_ms, NULL,
	    sim_main_admin_error, &sm);
	sm.check_ev = evtimer_new(sm.base, sim_main_check_cb, &sm);
	sig_int = evsignal_new(sm.base, SIGINT, sim_main_stop, &sm);
	sig_term = evsignal_new(sm.base, SIGTERM, sim_main_stop, &sm);
	evsignal_add(sig_int, NULL);
	evsignal_add(sig_term, NULL);
	if (duration > 0) {
		dur_ev = evtimer_new(sm.base, sim_main_stop, &sm);
		tv.tv_sec = duration;
		tv.tv_usec = 0;
		evtimer_add(dur_ev, &tv);
		/* With --until-clean, the time running out is a failure. */
		if (sm.until_clean)
			sm.rc = 1;
	}
	if (sm.verbose > 0) {
		sm.status_ev = event_new(sm.base, -1, EV_PERSIST,
		    sim_main_status_cb, &sm);
		tv.tv_sec = sm.verbose > 1 ? 1 : 5;
		tv.tv_usec = 0;
		evtimer_add(sm.status_ev, &tv);
	}
	event_base_dispatch(sm.base);
	if (sm.until_clean && sm.rc == 1 && duration > 0)
		fprintf(stderr, "mapmon-bench: osd-sim: not every PG "
		    "active+clean\n");
	if (sm.verbose > 1)
		sim_main_status(&sm);

	osd_sim_free(sm.sim);
	mclient_free(sm.admin);
	event_free(sm.check_ev);
	if (sm.status_ev != NULL)
		event_free(sm.status_ev);
	if (dur_ev != NULL)
		event_free(dur_ev);
	event_free(sig_int);
	event_free(sig_term);
	event_base_free(sm.base);
	return sm.rc;
}

static int
log_main(int argc, char **argv)
{
	long n = 1000000;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "-h") == 0))
		usage(argc > 2 ? MAPMON_EXIT_USAGE : 0);
	if (argc == 2)
		n = bench_arg_long("ITERATIONS", argv[1], 1, 1000000000);
	return bench_log_run(stdout, (int)n) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		usage(MAPMON_EXIT_USAGE);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		usage(0);
	if (strcmp(argv[1], "osd-sim") == 0)
		return osd_sim_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "coldstart") == 0)
		return bench_cold_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "ingest") == 0)
		return bench_ingest_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "handshake") == 0)
		return bench_handshake_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "bigpool") == 0)
		return bench_bigpool_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "log") == 0)
		return log_main(argc - 1, argv + 1);
	fprintf(stderr, "mapmon-bench: unknown subcommand '%s'\n", argv[1]);
	usage(MAPMON_EXIT_USAGE);
}
