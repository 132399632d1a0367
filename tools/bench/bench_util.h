/*
 * bench_util.h: what the subcommands of mapmon-bench share: clocks,
 * statistics, finding the programs of the build tree, running mapmond in
 * a temporary directory with a generated config, its systemd notification
 * socket, its memory, and the progress bar.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/mapmon.h"

/*
 * A whole decimal number of option opt within lo..hi; otherwise prints
 * which and exits 64 (a usage error).
 */
long bench_arg_long(const char *opt, const char *s, long lo, long hi);
/* --mons: 1, 3 or 5 (BENCH_QUORUM_MAX), else a line and exit 64. */
int bench_arg_mons(const char *s);

/*
 * Seconds, whole or decimal ("0.5"), of option opt within lo_ms..hi_ms,
 * returned in milliseconds; otherwise prints which and exits 64.
 */
long bench_arg_seconds(const char *opt, const char *s, long lo_ms, long hi_ms);

/*
 * A size in bytes of option opt: a whole number with an optional K, M, G
 * or T (1024-based, case-insensitive, a B after it optional), within
 * lo..hi; otherwise prints which and exits 64.
 */
uint64_t bench_arg_size(const char *opt, const char *s, uint64_t lo,
    uint64_t hi);

/*
 * The contents of the file path given to option opt (malloc'd, the caller
 * frees); otherwise prints why and exits 64 (a usage error).
 */
char *bench_arg_file(const char *opt, const char *path);

/* Monotonic seconds. */
double bench_now(void);

/* The median of v[0..n) (v is sorted in place); 0 when n is 0. */
double bench_median(double *v, size_t n);

/* The p-th percentile (0..100, nearest rank) of v[0..n), sorted in place. */
double bench_percentile(double *v, size_t n, double p);

/*
 * The path of a program of the build tree: env (when set in the
 * environment), else DIR/rel where DIR is the folder of this program
 * (/proc/self/exe), e.g. rel = "../daemon/mapmond".  Returns a malloc'd path
 * (the caller frees) that is executable, or NULL with *cause saying where
 * it looked.
 */
char *bench_find_program(const char *override, const char *env,
    const char *rel, char **cause);

/* A store set-up of the cold start benchmark. */
struct bench_setup {
	const char *name;	/* "lmdb", "leveldb-defaults", ... */
	const char *backend;	/* "lmdb" or "leveldb" */
	const char *conf;	/* lines for the generated config */
};

/* The set-up of that name, or NULL. */
const struct bench_setup *bench_setup_find(const char *name);
/* Every set-up's name, comma separated (static). */
const char *bench_setup_names(void);

/*
 * A monitor: its temporary directory, config and address, and (while
 * running) its process.
 */
struct bench_mon {
	char *mapmond;		/* the program (borrowed) */
	char *dir;		/* temporary directory, removed by _free */
	char *conf;		/* dir/mapmon.conf */
	char *log;		/* dir/mapmond.log (its stderr) */
	char addr[64];		/* 127.0.0.1:PORT */
	int port;
	pid_t pid;		/* -1 when not running */
	int notify_fd;		/* our NOTIFY_SOCKET, a datagram socket */
	char *notify_path;
	double t_exec;		/* bench_now() just before the exec */
	double t_ready;		/* when READY=1 arrived; 0: not yet */
};

/*
 * Make a temporary directory, a free port, the notification socket, and
 * a config with [mon] data and bind, the set-up's [store] lines and extra
 * (more lines, may be NULL), then run `mapmond --mkfs`, and make the admin
 * key it wrote the one every client of the process offers
 * (mclient_default_auth()).  Returns NULL with *cause (the directory is
 * removed).
 */
struct bench_mon *bench_mon_new(char *mapmond, const struct bench_setup *,
    const char *extra, char **cause);

/*
 * bench_mon_new(), then bench_mon_start() and bench_mon_wait_ready() (60
 * s): a monitor ready to serve.  With no_auth its config has [auth]
 * required = false and every client made afterwards offers no key (what
 * authentication costs is the difference).  NULL with *cause (the
 * directory is removed).
 */
struct bench_mon *bench_mon_run(char *mapmond, const struct bench_setup *,
    const char *extra, int no_auth, char **cause);

/*
 * A quorum of monitors on loopback (SPEC §15), made as an operator would:
 * each with its own directory, `name` a, b, c... and the same mon_host;
 * `mapmond --mkfs` on the first, the others from its monmap and keyring;
 * every one started (as bench_mon_start()) and READY, then a leader
 * elected with all of them in quorum.  The first's admin key becomes the
 * default of every client (none with no_auth, as bench_mon_run()).
 */
#define BENCH_QUORUM_MAX 5
struct bench_quorum {
	size_t n;
	struct bench_mon *mon[BENCH_QUORUM_MAX];
	char *addrs; /* "ADDR,ADDR,...", for -m and osd_sim */
};

/* n from 1 to BENCH_QUORUM_MAX; NULL with *cause (all removed). */
struct bench_quorum *bench_quorum_run(char *mapmond, const struct bench_setup *,
    const char *extra, size_t n, int no_auth, char **cause);

/*
 * The index in mon[] of the leader, once one with every monitor in its
 * quorum answers `quorum_status` (asked of each in turn, every 50 ms, at
 * most timeout seconds), or -1 with *cause.
 */
int bench_quorum_leader(const struct bench_quorum *, double timeout,
    char **cause);

/* Kill every monitor and remove their directories; NULL is allowed. */
void bench_quorum_free(struct bench_quorum *);

/*
 * Start mapmond -d -c CONF with NOTIFY_SOCKET set, stderr to the log.
 * Sets t_exec; returns 0 or -1 with *cause.
 */
int bench_mon_start(struct bench_mon *, char **cause);

/*
 * Wait for READY=1 on the notification socket (sets t_ready to the moment
 * it arrived), at most timeout seconds.  0, or -1 with *cause (the daemon
 * died, or the time ran out).
 */
int bench_mon_wait_ready(struct bench_mon *, double timeout, char **cause);

/*
 * Send `status` until one is answered (connection refused is retried
 * every millisecond), at most timeout seconds.  Returns the bench_now()
 * of the answer, or a negative value with *cause.
 */
double bench_mon_wait_status(struct bench_mon *, double timeout,
    char **cause);

/*
 * SIGTERM and wait for the exit.  0 when it exited 0, else -1 with *cause.
 */
int bench_mon_stop(struct bench_mon *, char **cause);

/*
 * Without waiting: 1 when the monitor has exited (it is reaped, pid becomes
 * -1, and *status, when it was running, gets its waitpid() status), else 0.
 */
int bench_mon_exited(struct bench_mon *, int *status);

/* VmHWM (peak RSS) of the running monitor in KiB, or -1. */
long bench_mon_hwm_kb(const struct bench_mon *);

/*
 * A field of the running monitor's /proc/PID/status in KiB ("RssAnon",
 * "RssFile", "VmHWM"), or -1.
 */
long bench_mon_status_kb(const struct bench_mon *, const char *field);

/* Kill (if running) and remove the directory; NULL is allowed. */
void bench_mon_free(struct bench_mon *);

/*
 * One command through a blocking client (mclient_call): rc, *data (a
 * reference the caller owns; may be NULL).  *cause on failure.
 */
int bench_call(const char *addr, const char *json, json_t **data,
    char **cause);

/*
 * A progress bar on stderr when it is a terminal (nothing otherwise):
 * "label [#####     ] 3/12".  bench_progress_done() ends the line.
 */
void bench_progress(const char *label, size_t done, size_t total);
void bench_progress_done(void);

/*
 * The contents of file path (malloc'd, NUL-terminated; the caller frees),
 * or NULL with *cause.
 */
char *bench_read_file(const char *path, char **cause);

/*
 * A `status' prober: a thread of its own, with its own event base and
 * connection ("client.probe"), sends `status' every interval_ms, one at a
 * time (a slow answer delays the next probe; probes do not pile up), and
 * keeps the send time (bench_now()) and latency of every answer.
 * bench_probe_start() returns NULL with *cause when the thread cannot be
 * made.  bench_probe_stop() ends the thread and returns how many answers
 * came, with *sent and *ms (borrowed until bench_probe_free()) holding
 * their send times and latencies in milliseconds, and *failed nonzero when
 * a status was refused or the connection lost (probing stopped there).
 * bench_probe_free() stops the thread if need be; NULL is allowed.
 *
 * With realtime set, the thread asks for SCHED_FIFO priority
 * BENCH_PROBE_PRIORITY, above mapmond's loop at its default SCHED_RR 1:
 * its figures are then the monitor's delay, not also the prober's own wait
 * for a core behind the simulated OSDs and the monitors' workers.
 * bench_probe_priority() says what the thread ran at ("SCHED_FIFO 2",
 * "normal priority", or normal with why SCHED_FIFO was refused), once
 * bench_probe_stop() has returned.
 */
#define BENCH_PROBE_PRIORITY 2
struct bench_probe;
struct bench_probe *bench_probe_start(const char *addr, int interval_ms,
    int realtime, char **cause);
size_t bench_probe_stop(struct bench_probe *, const double **sent,
    const double **ms, int *failed);
const char *bench_probe_priority(const struct bench_probe *);
void bench_probe_free(struct bench_probe *);

/* Remove a directory tree (best effort). */
/*
 * The bytes of the store in dir: LMDB's data file (with writemap, the map
 * allocated on disk); LevelDB's regular files, as store_stat() counts them.
 */
uint64_t bench_store_bytes(const char *dir, int lmdb);
void bench_rmtree(const char *path);

/*
 * The options of the benchmarks that run mapmond, besides their shape:
 * --mapmond PATH ('M'), --mon-conf FILE ('C': its lines go into the
 * generated config; read at once, exit 64 when it cannot be) and -o DIR
 * ('o').  bench_run_opt() takes them; 1 when ch was one of them.
 */
struct bench_run_opts {
	const char *mapmond; /* NULL: $MAPMOND or the build tree's */
	char *mon_conf;	     /* malloc'd, or NULL */
	const char *outdir;  /* "." unless -o */
};
void bench_run_opts_defaults(struct bench_run_opts *);
int bench_run_opt(struct bench_run_opts *, int ch, const char *arg);
/*
 * Once the options are read: the mapmond to run (bench_find_program():
 * ro->mapmond, $MAPMOND or the build tree's; malloc'd), with -o checked
 * writable; or NULL after saying why on stderr, with *code the exit
 * status (1: no program, 64: -o not writable).
 */
char *bench_run_mapmond(const struct bench_run_opts *ro, int *code);

struct bench_up;

/*
 * Called each time the simulator has every PG of the bring-up active+clean
 * (its OSD_SIM_CLEAN with as many PGs as asked for); again after a later
 * clean, e.g. when the caller asked for more.
 */
typedef void bench_up_clean_cb(struct bench_up *, void *arg);

/*
 * The simulated cluster of coldstart and ingest, with their options:
 * bench_shape_opt() takes --osds ('n'), --pools ('p'), --window ('w'),
 * --batch ('b'), --hosts (BENCH_OPT_HOSTS) and --racks (BENCH_OPT_RACKS);
 * 1 when ch was one of them.
 */
#define BENCH_OPT_HOSTS 0x100
#define BENCH_OPT_RACKS 0x101
struct bench_shape {
	int osds;			/* simulated OSDs 0 .. osds-1 */
	int hosts;			/* osd_sim_params hosts (0: none) */
	int racks;			/* osd_sim_params racks (0: none) */
	int pools;			/* pools of size 3, >= 1 */
	int window;			/* osd_sim_params window, batch */
	int batch;
};
void bench_shape_defaults(struct bench_shape *);
int bench_shape_opt(struct bench_shape *, int ch, const char *arg);

/*
 * Whether the config text (may be NULL) sets key (a line "key = ..."), in
 * any section.
 */
int bench_conf_has(const char *text, const char *key);

/*
 * The extra config lines of a monitor for a bring-up of pgs PGs in shape:
 * a [mon] section with the limits of mapmon.conf(5) the bring-up needs
 * (max_pool_pg_num, max_pg_per_osd, max_pgs, and max_connections for a
 * session per simulated OSD and the tools' own), each its default unless
 * the bring-up needs more, raised as an operator would, then user (the
 * --mon-conf text, may be NULL), which keeps any of these keys it sets.
 * Malloc'd; the caller frees.
 */
char *bench_limits_conf(long pgs, const struct bench_shape *,
    const char *user);

struct bench_up_params {
	const char *addr; /* the monitors, "host:port[,...]" */
	struct bench_shape shape;
	int live_interval_ms;		/* osd_sim's: < 0 stop once clean */
	long pgs;			/* PGs in all, >= shape.pools */
	const char *pool_prefix;	/* pools PREFIX0, PREFIX1, ... */
	double timeout;			/* seconds; <= 0: none */
	int heartbeat_grace_ms;		/* osd_sim's; 0: its default */
	int no_auth;			/* osd_sim's: no key offered */
	bench_up_clean_cb *on_clean;
	void *arg;
};

/*
 * Bringing a simulated cluster up to active+clean, on the caller's event
 * base (the cold start and ingest benchmarks): the simulated OSDs of
 * tools/bench/osd_sim.h boot; once every one is up the clock starts (t0) and the
 * pools are created through an admin connection ("client.bench"), pgs PGs
 * in all split evenly, the last pool taking the rest; on_clean is called
 * as above.  The first failure is kept in error and breaks the loop: a
 * refused pool, the simulator's connection lost, the admin connection
 * lost, or timeout seconds passing before bench_up_free().
 */
struct bench_up {
	struct event_base *base;	/* borrowed */
	struct osd_sim *sim;		/* the simulator, for its counters */
	struct mclient *admin;		/* the caller may send on it too */
	double t0;			/* bench_now() at the first create */
	double t_start;			/* bench_now() at bench_up_new() */
	double t_created;		/* at the last pool's answer, or 0 */
	int ncreated;			/* pools answered */
	char *error;			/* the first failure, or NULL */
	struct bench_up_params p;	/* private from here on */
	char *pool_prefix;
	struct event *timeout_ev;
};

/*
 * Start a bring-up on base (the work happens in its event loop).  Returns
 * NULL with *cause when the simulator refuses p (osd_sim_new()); free the
 * result with bench_up_free().
 */
struct bench_up *bench_up_new(struct event_base *base,
    const struct bench_up_params *p, char **cause);

/*
 * Keep the failure (formatted; only the first is kept) in up->error and
 * break the event loop.
 */
void bench_up_fail(struct bench_up *, const char *fmt, ...) printflike(2, 3);

/*
 * Stop and free the simulator, the admin connection and the timeout;
 * up->error is freed too unless the caller took it (set it to NULL).  NULL
 * is allowed.
 */
void bench_up_free(struct bench_up *);

#endif /* BENCH_UTIL_H */
