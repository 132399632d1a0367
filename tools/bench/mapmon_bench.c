/*
 * mapmon_bench.c: mapmon-bench(1), the benchmarks: coldstart,
 * osd-sim, ingest, filesize, handshake, bigpool, detect, log and
 * placement.  This file holds the dispatch and osd-sim; the others are in
 * bench_cold.c, bench_ingest.c, bench_filesize.c, bench_handshake.c,
 * bench_bigpool.c, bench_detect.c, bench_log.c and bench_place.c.
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
#include "conf/conf.h"
#include "net/client.h"
#include "net/hunt.h"
#include "tools/bench/bench_bigpool.h"
#include "tools/bench/bench_cold.h"
#include "tools/bench/bench_handshake.h"
#include "tools/bench/bench_detect.h"
#include "tools/bench/bench_filesize.h"
#include "tools/bench/bench_ingest.h"
#include "tools/bench/bench_log.h"
#include "tools/bench/bench_place.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/osd_sim.h"
#include "tools/bench/sim_ctl.h"

static mapmon_dead void
usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
	    "usage: mapmon-bench coldstart [options]\n"
	    "       mapmon-bench osd-sim [-c CONF] -m ADDR --osds N "
	    "[--until-clean] [--duration S]\n"
	    "                    [--window W] [--batch B] [--interval MS] "
	    "[-qv]\n"
	    "                    [--heartbeat-interval S] "
	    "[--heartbeat-grace S]\n"
	    "                    [--beacon-interval S] [--osd-size SIZE] "
	    "[--control FIFO]\n"
	    "                    [--fail ID@S]... [--revive ID@S]...\n"
	    "                    [--hosts H] [--racks R] [--fail-host "
	    "HOST@S]... "
	    "[--revive-host HOST@S]...\n"
	    "                    [--probe ADDR] [--probe-ms MS]\n"
	    "       mapmon-bench ingest [options]\n"
	    "       mapmon-bench filesize [options]\n"
	    "       mapmon-bench handshake [options]\n"
	    "       mapmon-bench bigpool [options]\n"
	    "       mapmon-bench detect [options]\n"
	    "       mapmon-bench log [ITERATIONS]\n"
	    "       mapmon-bench placement [options]\n"
	    "       mapmon-bench SUBCOMMAND -h    (the options of each)\n");
	exit(code);
}

/* osd-sim: the simulator on its own, until clean, a duration or a signal. */
struct sim_main {
	struct event_base *base;
	struct osd_sim *sim;
	struct hunt *admin; /* `pg stat` checks, on any monitor */
	size_t nmons;
	struct event *check_ev;
	struct event *status_ev;
	int nosds;
	int until_clean;
	int verbose;		/* 0: -q, 1: default, 2: -v */
	int rc;
	int checking;
	int stopping; /* the clean stop has begun */
	double t0;
	uint64_t last_accepted;
	double last_t;
};

/* How long a clean stop waits for the OSDs' mark-me-down answers. */
#define SIM_MAIN_STOP_MS 5000

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
	struct osd_sim_stats st;
	struct timeval tv = { 0, 5000 };

	sm->checking = 0;
	/*
	 * Cancelled: the admin client is being freed after a signal or the
	 * duration, which is not the monitor's failure.
	 */
	if (rc == -ECANCELED || sm->stopping)
		return;
	if (rc < 0) {
		fprintf(stderr, "mapmon-bench: pg stat: %s\n", status);
		sm->rc = 1;
		event_base_loopbreak(sm->base);
		return;
	}
	osd_sim_stats(sm->sim, &st);
	/* No PGs at all: clean once every OSD is up. */
	if (num == 0 && st.osds_up == sm->nosds) {
		if (sm->verbose > 0) {
			printf("osd-sim: no pgs; all %d osds up after %.3f s\n",
			    sm->nosds, bench_now() - sm->t0);
			fflush(stdout);
		}
		sm->rc = 0;
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
	/*
	 * Not yet (another client's PGs, a commit on its way): poll, but
	 * only while the simulator may still get there.
	 */
	if (num > 0 || st.osds_up < sm->nosds)
		return;
	evtimer_add(sm->check_ev, &tv);
}

static void
sim_main_check(struct sim_main *sm)
{
	json_t *cmd;

	if (sm->checking || sm->stopping)
		return;
	cmd = json_pack("{s:s}", "prefix", "pg stat");
	if (hunt_request(sm->admin, cmd, sim_main_pg_stat, sm) == 0)
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

/* A clean stop: every running OSD marks itself down, then the loop ends. */
static void
sim_main_stop_sim(struct sim_main *sm)
{
	if (sm->stopping) {
		/* A second signal: do not wait for the answers. */
		event_base_loopbreak(sm->base);
		return;
	}
	sm->stopping = 1;
	osd_sim_stop(sm->sim, SIM_MAIN_STOP_MS);
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
		/* A cluster without PGs is clean once they are up. */
		if (sm->until_clean && st.npgs == 0)
			sim_main_check(sm);
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
	case OSD_SIM_NOTICE:
		/* An OSD's event: told even with -q, as a daemon logs it. */
		printf("osd-sim: %s\n", msg);
		fflush(stdout);
		break;
	case OSD_SIM_STOPPED:
		if (msg != NULL)
			fprintf(stderr, "mapmon-bench: osd-sim: %s\n", msg);
		else if (sm->verbose > 0) {
			osd_sim_stats(sm->sim, &st);
			printf("osd-sim: stopped; the monitor answered every "
			       "mark-me-down\n");
			fflush(stdout);
		}
		event_base_loopbreak(sm->base);
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

/*
 * The check session's monitor: with one, its loss ends the run; with
 * several, the session carries on with another (net/hunt.h).
 */
static void
sim_main_admin_event(void *arg, enum hunt_event ev, const char *addr, int err,
    const char *msg)
{
	struct sim_main *sm = arg;

	(void)addr;
	if ((ev != HUNT_LOST && ev != HUNT_FAILED) || sm->nmons > 1)
		return;
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
	sim_main_stop_sim(sm);
}

/* --duration is over: a failure with --until-clean, else a clean stop. */
static void
sim_main_duration(evutil_socket_t fd, short what, void *arg)
{
	struct sim_main *sm = arg;

	(void)fd;
	(void)what;
	if (sm->until_clean) {
		fprintf(stderr,
		    "mapmon-bench: osd-sim: not every PG "
		    "active+clean\n");
		sm->rc = 1;
	}
	sim_main_stop_sim(sm);
}

/*
 * What an OSD reads of the config file: the monitor's [mon]
 * osd_heartbeat_grace, so that the simulated OSDs report after the grace
 * the monitor counts with (a real OSD reads the same key), and [osd]
 * beacon_interval; each only where the command line did not set it
 * (grace_ms or beacon_ms NULL).  0, or -1 after printing every error.
 */
static int
sim_main_conf(const char *path, int *grace_ms, int *beacon_ms)
{
	struct conf *c;
	char **errors;
	size_t nerrors, i;

	if ((c = conf_load(path, &errors, &nerrors)) == NULL) {
		for (i = 0; i < nerrors; i++)
			fprintf(stderr, "mapmon-bench: %s\n", errors[i]);
		conf_errors_free(errors, nerrors);
		return -1;
	}
	if (grace_ms != NULL)
		*grace_ms = (int)conf_int(c, CONF_MON_OSD_HEARTBEAT_GRACE);
	if (beacon_ms != NULL)
		*beacon_ms = (int)conf_int(c, CONF_OSD_BEACON_INTERVAL);
	conf_free(c);
	return 0;
}

/*
 * The `status' probe's latencies while the simulator ran: one line, or
 * -1 when a probe was refused or its connection lost.
 */
static int
sim_main_probe_report(struct bench_probe *probe, const char *addr)
{
	const double *sent, *ms;
	double *v;
	size_t n;
	int failed = 0;

	n = bench_probe_stop(probe, &sent, &ms, &failed);
	if (n == 0) {
		fprintf(stderr,
		    "mapmon-bench: osd-sim: status on %s: no "
		    "answer\n",
		    addr);
		return -1;
	}
	v = xreallocarray(NULL, n, sizeof *v);
	memcpy(v, ms, n * sizeof *v);
	printf("osd-sim: status on %s: %zu answers, p50 %.2f ms, p99 %.2f "
	       "ms, max %.2f ms%s\n",
	    addr, n, bench_percentile(v, n, 50), bench_percentile(v, n, 99),
	    bench_percentile(v, n, 100),
	    failed ? " (then refused or disconnected: probing stopped)" : "");
	free(v);
	return failed ? -1 : 0;
}

static int
osd_sim_main(int argc, char **argv)
{
	static const struct option longopts[] = { { "osds", required_argument,
						      NULL, 'n' },
		{ "until-clean", no_argument, NULL, 'u' },
		{ "duration", required_argument, NULL, 'D' },
		{ "window", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "interval", required_argument, NULL, 'i' },
		{ "heartbeat-interval", required_argument, NULL, 'H' },
		{ "heartbeat-grace", required_argument, NULL, 'G' },
		{ "beacon-interval", required_argument, NULL, 'B' },
		{ "osd-size", required_argument, NULL, 'S' },
		{ "fail", required_argument, NULL, 'F' },
		{ "revive", required_argument, NULL, 'R' },
		{ "hosts", required_argument, NULL, 'K' },
		{ "racks", required_argument, NULL, 'Q' },
		{ "fail-host", required_argument, NULL, 'f' },
		{ "revive-host", required_argument, NULL, 'r' },
		{ "control", required_argument, NULL, 'C' },
		{ "probe", required_argument, NULL, 'P' },
		{ "probe-ms", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct osd_sim_params p;
	struct sim_main sm;
	struct sim_ctl *ctl = NULL;
	struct sim_ctl_at *at = NULL;
	struct event *sig_int, *sig_term, *dur_ev = NULL;
	struct timeval tv;
	const char *control = NULL, *conf_path = NULL, *probe_addr = NULL;
	struct bench_probe *probe = NULL;
	int probe_ms = 100;
	size_t nat = 0, i;
	int grace_given = 0, beacon_given = 0;
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
	while (
	    (ch = getopt_long(argc, argv, "c:m:qvh", longopts, NULL)) != -1) {
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
		case 'H':
			p.heartbeat_interval_ms = (int)bench_arg_seconds(
			    "--heartbeat-interval", optarg, 10, 3600000);
			break;
		case 'G':
			p.heartbeat_grace_ms = (int)bench_arg_seconds(
			    "--heartbeat-grace", optarg, 100, 86400000);
			grace_given = 1;
			break;
		case 'c':
			conf_path = optarg;
			break;
		case 'B':
			p.beacon_interval_ms = (int)bench_arg_seconds(
			    "--beacon-interval", optarg, 10, 86400000);
			beacon_given = 1;
			break;
		case 'S':
			p.osd_size = bench_arg_size("--osd-size", optarg,
			    1ULL << 30, 1ULL << 50);
			break;
		case 'F':
		case 'R':
			at = xreallocarray(at, nat + 1, sizeof *at);
			memset(&at[nat], 0, sizeof *at);
			sim_ctl_parse_at(ch == 'F' ? "--fail" : "--revive",
			    optarg, ch == 'R', &at[nat++]);
			break;
		case 'f':
		case 'r':
			at = xreallocarray(at, nat + 1, sizeof *at);
			sim_ctl_parse_host_at(ch == 'f' ? "--fail-host" :
							  "--revive-host",
			    optarg, ch == 'r', &at[nat++]);
			break;
		case 'K':
			p.hosts = (int)bench_arg_long("--hosts", optarg, 1,
			    65536);
			break;
		case 'Q':
			p.racks = (int)bench_arg_long("--racks", optarg, 1,
			    65536);
			break;
		case 'C':
			control = optarg;
			break;
		case 'P':
			probe_addr = optarg;
			break;
		case 'p':
			probe_ms = (int)bench_arg_long("--probe-ms", optarg, 1,
			    60000);
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
	if (p.hosts > p.nosds) {
		fprintf(stderr,
		    "mapmon-bench: --hosts %d: more hosts than the "
		    "%d OSDs (--osds)\n",
		    p.hosts, p.nosds);
		free(at);
		return MAPMON_EXIT_USAGE;
	}
	if (p.racks > p.hosts) {
		fprintf(stderr,
		    "mapmon-bench: --racks %d: the racks hold hosts, and "
		    "there are %d (--hosts)\n",
		    p.racks, p.hosts);
		free(at);
		return MAPMON_EXIT_USAGE;
	}
	for (i = 0; i < nat; i++) {
		if (at[i].host[0] != '\0' && p.hosts == 0) {
			fprintf(stderr,
			    "mapmon-bench: %s %s@...: the OSDs have "
			    "no hosts (--hosts)\n",
			    at[i].revive ? "--revive-host" : "--fail-host",
			    at[i].host);
			free(at);
			return MAPMON_EXIT_USAGE;
		}
		if (at[i].host[0] == '\0' && at[i].id >= p.nosds) {
			fprintf(stderr,
			    "mapmon-bench: %s %d@...: the OSDs are "
			    "0 to %d (--osds)\n",
			    at[i].revive ? "--revive" : "--fail", at[i].id,
			    p.nosds - 1);
			free(at);
			return MAPMON_EXIT_USAGE;
		}
	}
	if (conf_path != NULL &&
	    sim_main_conf(conf_path, grace_given ? NULL : &p.heartbeat_grace_ms,
		beacon_given ? NULL : &p.beacon_interval_ms) == -1) {
		free(at);
		return MAPMON_EXIT_CONFIG;
	}
	sm.nosds = p.nosds;
	signal(SIGPIPE, SIG_IGN);

	sm.base = event_base_new();
	sm.t0 = sm.last_t = bench_now();
	if ((sm.sim = osd_sim_new(sm.base, &p, sim_main_event, &sm,
	    &cause)) == NULL) {
		fprintf(stderr, "mapmon-bench: osd-sim: %s\n", cause);
		free(cause);
		free(at);
		event_base_free(sm.base);
		return MAPMON_EXIT_USAGE;
	}
	ctl = sim_ctl_new(sm.base, sm.sim, stdout, stderr);
	sim_ctl_schedule(ctl, at, nat);
	free(at);
	if (control != NULL && sim_ctl_fifo(ctl, control, &cause) == -1) {
		fprintf(stderr, "mapmon-bench: osd-sim: --control %s\n", cause);
		free(cause);
		sim_ctl_free(ctl);
		osd_sim_free(sm.sim);
		event_base_free(sm.base);
		return 1;
	}
	{
		char **addrs;
		size_t k;

		if (hunt_parse(p.addr, &addrs, &sm.nmons, &cause) == 0) {
			for (k = 0; k < sm.nmons; k++)
				free(addrs[k]);
			free(addrs);
		}
	}
	/* osd_sim_new() took the same list: it parses. */
	sm.admin = hunt_new(sm.base, p.addr, p.connect_timeout_ms,
	    sim_main_admin_event, &sm, &cause);
	sm.check_ev = evtimer_new(sm.base, sim_main_check_cb, &sm);
	sig_int = evsignal_new(sm.base, SIGINT, sim_main_stop, &sm);
	sig_term = evsignal_new(sm.base, SIGTERM, sim_main_stop, &sm);
	evsignal_add(sig_int, NULL);
	evsignal_add(sig_term, NULL);
	if (duration > 0) {
		dur_ev = evtimer_new(sm.base, sim_main_duration, &sm);
		tv.tv_sec = duration;
		tv.tv_usec = 0;
		evtimer_add(dur_ev, &tv);
	}
	if (sm.verbose > 0) {
		sm.status_ev = event_new(sm.base, -1, EV_PERSIST,
		    sim_main_status_cb, &sm);
		tv.tv_sec = sm.verbose > 1 ? 1 : 5;
		tv.tv_usec = 0;
		evtimer_add(sm.status_ev, &tv);
	}
	if (probe_addr != NULL &&
	    (probe = bench_probe_start(probe_addr, probe_ms, 0, &cause)) ==
		NULL) {
		fprintf(stderr, "mapmon-bench: osd-sim: --probe %s: %s\n",
		    probe_addr, cause);
		free(cause);
		sm.rc = 1;
	} else
		event_base_dispatch(sm.base);
	if (sm.verbose > 1)
		sim_main_status(&sm);
	if (probe != NULL && sim_main_probe_report(probe, probe_addr) == -1)
		sm.rc = 1;
	bench_probe_free(probe);

	sim_ctl_free(ctl);
	osd_sim_free(sm.sim);
	hunt_free(sm.admin);
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
	if (strcmp(argv[1], "filesize") == 0)
		return bench_filesize_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "handshake") == 0)
		return bench_handshake_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "bigpool") == 0)
		return bench_bigpool_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "detect") == 0)
		return bench_detect_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "log") == 0)
		return log_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "placement") == 0)
		return bench_place_main(argc - 1, argv + 1);
	fprintf(stderr, "mapmon-bench: unknown subcommand '%s'\n", argv[1]);
	usage(MAPMON_EXIT_USAGE);
}
