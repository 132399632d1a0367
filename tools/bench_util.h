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

#include <jansson.h>

/*
 * A whole decimal number of option opt within lo..hi; otherwise prints
 * which and exits 64 (a usage error).
 */
long bench_arg_long(const char *opt, const char *s, long lo, long hi);

/* Monotonic seconds. */
double bench_now(void);

/* The median of v[0..n) (v is sorted in place); 0 when n is 0. */
double bench_median(double *v, size_t n);

/* The p-th percentile (0..100, nearest rank) of v[0..n), sorted in place. */
double bench_percentile(double *v, size_t n, double p);

/*
 * The path of a program of the build tree: env (when set in the
 * environment), else DIR/rel where DIR is the folder of this program
 * (/proc/self/exe), e.g. rel = "../mon/mapmond".  Returns a malloc'd path
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
	pid_t pid;		/* -1 when not running */
	int notify_fd;		/* our NOTIFY_SOCKET, a datagram socket */
	char *notify_path;
	double t_exec;		/* bench_now() just before the exec */
	double t_ready;		/* when READY=1 arrived; 0: not yet */
};

/*
 * Make a temporary directory, a free port, the notification socket, and
 * a config with [mon] data and bind, the set-up's [store] lines and extra
 * (more lines, may be NULL), then run `mapmond --mkfs`.  Returns NULL with
 * *cause (the directory is removed).
 */
struct bench_mon *bench_mon_new(char *mapmond, const struct bench_setup *,
    const char *extra, char **cause);

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

/* Remove a directory tree (best effort). */
void bench_rmtree(const char *path);

#endif /* BENCH_UTIL_H */
