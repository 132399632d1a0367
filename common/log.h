/*
 * log.h: the daemon's own logging (mapmond(8), LOGGING).
 *
 * Every subsystem has two levels, written L/G as in Ceph: a dout() entry of
 * level <= L is formatted and written to the log target (a file, stderr or
 * syslog); one of level <= G is gathered into an in-memory ring of the
 * newest max_recent entries, which is written out between
 *
 *	--- begin dump of recent events ---
 *	--- end dump of recent events ---
 *
 * on a fatal signal, on fatal()/fatalx() and on request (`mapmon log dump`).
 *
 * Costs (measured by tools/bench/bench_log.c, `mapmon-bench log`):
 *  - A disabled dout() is one byte load, a compare and a not-taken branch;
 *    its arguments are not evaluated.
 *  - Gathering does not format: each call site owns a static descriptor
 *    (struct log_site) whose format string is parsed once, on first use, into
 *    the kinds of its arguments; gathering copies the raw argument values,
 *    and the bytes of string arguments, into a fixed-size ring slot.  The
 *    line is formatted only when dumped, or at once when the file level
 *    also wants it.
 *
 * Supported conversions for the unformatted path: d i u o x X c with the
 * length modifiers hh h l ll z j t, e E f F g G a A (double), p, s (the
 * bytes are copied, bounded by the precision when one is given, by
 * LOG_SLOT_DATA in all), %m and %%, with flags, width and precision
 * including `*`.  A format that uses anything else (%n, positional %1$d,
 * long double %Lf, wide %ls or %lc) or has more than LOG_MAXARGS arguments
 * is formatted eagerly at gather time instead: still correct, just slower.
 *
 * Line format (file, stderr, dump):
 *
 *	2026-11-30T19:45:01.123456Z 1a2b mon 5 text
 *
 * the UTC time with microseconds, the kernel thread id (gettid) in hex, the
 * subsystem ("-" for log_warn/log_warnx/log_info/fatal lines, which have
 * none), the level and the message.  Every %s argument is escaped when the
 * line is formatted (see log_escape), so client strings can be passed to
 * dout() as they are; control characters anywhere else in a message are
 * escaped too, so one entry is always one line.  Messages are cut at
 * LOG_LINE_MAX bytes, marked with "[...]".
 *
 * Stamps: a gathered entry keeps the raw TSC where the kernel's clocksource
 * is "tsc" (reading it costs a third of clock_gettime) and the dump converts
 * it to UTC; elsewhere, or with MAPMON_LOG_CLOCK=realtime in the
 * environment at log_init, it keeps CLOCK_REALTIME.  Written lines always
 * read CLOCK_REALTIME.
 *
 * Threads: dout() and the log_* functions may be called from any thread at
 * once.  A written line is one write(2) on an O_APPEND descriptor, so lines
 * never interleave.  log_init, log_open, log_reopen and log_set_level are
 * meant for the main thread (start-up, SIGHUP).
 */
#ifndef LOG_H
#define LOG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/mapmon.h"

enum log_subsys {
	LOG_MON,
	LOG_OSD,
	LOG_PG,
	LOG_COMMIT,
	LOG_STORE,
	LOG_NET,
	LOG_CONF,
	LOG_CLIENT,
	LOG_EVENT,
	LOG_NSUBSYS
};

/* "mon", "osd", ...: the config keys are debug_<name>. */
extern const char *const log_subsys_names[LOG_NSUBSYS];

/*
 * max(L, G) per subsystem (G counts only while there is a ring): the one
 * byte dout() tests.  Written only by log_set_level() and log_init().
 */
extern uint8_t log_max_level[LOG_NSUBSYS];

/* Levels are clamped to 0..LOG_LEVEL_MAX. */
#define LOG_LEVEL_MAX 99

/* Most arguments (counting `*` widths) one gathered entry keeps raw. */
#define LOG_MAXARGS 16

/* Bytes of string arguments one gathered entry keeps, all strings together. */
#define LOG_SLOT_DATA 344

/* Longest formatted line, newline included. */
#define LOG_LINE_MAX 4096

/*
 * A call site.  dout() declares one static per call; log_gather.c fills
 * `info` on first use (parsed argument kinds, published atomically) and
 * never frees it.  Not for use outside this header and common/log*.c.
 */
struct log_site {
	const char *fmt;
	uint8_t subsys;
	uint8_t level;
	void *info;
};

/* Checks the arguments against fmt at compile time; never called. */
static inline printflike(1, 2) void
log_check_format(mapmon_unused const char *fmt, ...)
{
}

/*
 * dout(subsys, level, fmt, ...): a debug entry.  subsys and level must be
 * constants and fmt a string literal.  When level is above both of the
 * subsystem's levels nothing is evaluated: neither the arguments nor
 * anything else.  (The test is written `level < max + 1` so that level 0
 * draws no -Wtype-limits warning; it compiles to the same compare.)
 */
#define dout(subsys, level, fmt, ...)                                       \
	do {                                                                \
		if (unlikely((level) < log_max_level[(subsys)] + 1)) {      \
			static struct log_site log_site_ = {                \
				(fmt), (subsys), (level), NULL};            \
			if (0)                                              \
				log_check_format(fmt, ##__VA_ARGS__);       \
			log_dout(&log_site_, ##__VA_ARGS__);                \
		}                                                           \
	} while (0)

/* The out-of-line half of dout(): writes and/or gathers.  Keeps errno. */
void log_dout(struct log_site *, ...);

/*
 * Sets the program name (the syslog ident) and makes a ring of max_recent
 * entries (0: no ring; gathering is then off whatever G says).  Called once
 * at start, before other threads log; calling it again drops the ring's
 * entries and makes a new one (only while no other thread logs).  Before
 * log_init, lines go to stderr and nothing is gathered.  Every level starts
 * at 0/0.
 */
void log_init(const char *progname, size_t max_recent);

/*
 * Directs written lines to target: "", "-" or "stderr" for stderr,
 * "syslog" for syslog(3) (facility daemon), anything else a file path,
 * opened O_WRONLY|O_APPEND|O_CREAT|O_CLOEXEC with mode 0640.  On failure
 * returns -1, stores the reason in *cause (caller frees; cause may be
 * NULL) and keeps the previous target.
 */
int log_open(const char *target, char **cause);

/*
 * Reopens the file target by its path, so after logrotate renamed the file,
 * new lines land in a new file at the old path (SIGHUP).  Does nothing and
 * returns 0 for stderr and syslog.  On failure returns -1 with *cause set
 * and keeps writing to the old file.
 */
int log_reopen(char **cause);

/* The target log_open last accepted ("stderr", "syslog" or the path). */
const char *log_target(void);

/* Sets a subsystem's file (L) and gather (G) levels, clamped to 0..99. */
void log_set_level(enum log_subsys, int file_level, int gather_level);

/* Reads them back (either pointer may be NULL). */
void log_get_level(enum log_subsys, int *file_level, int *gather_level);

/* "mon" -> LOG_MON; -1 for an unknown name. */
int log_subsys_find(const char *name);

/*
 * Always-on lines, written at level 0 with subsystem "-" and gathered while
 * there is a ring.  log_warn appends ": strerror(errno)"; all of them leave
 * errno as they found it.  They format at once (they are rare).
 */
void log_warn(const char *fmt, ...) printflike(1, 2);
void log_warnx(const char *fmt, ...) printflike(1, 2);
void log_info(const char *fmt, ...) printflike(1, 2);

/*
 * A broken invariant: logs the line (fatal adds strerror(errno)), dumps the
 * recent entries to the log target and stderr, and aborts.  Never for what
 * a client, a file or a disk can cause.
 */
mapmon_dead void fatal(const char *fmt, ...) printflike(1, 2);
mapmon_dead void fatalx(const char *fmt, ...) printflike(1, 2);

/*
 * Writes the begin marker, every gathered entry still in the ring, oldest
 * first, formatted as a line, and the end marker to fd.  An entry being
 * written at that moment by another thread is skipped, never shown torn.
 * Uses no locks and no allocation (the crash handler calls it).
 */
void log_dump_recent(int fd);

/* One gathered entry as log_recent_foreach shows it. */
struct log_entry_view {
	struct timespec stamp;	/* CLOCK_REALTIME when gathered */
	uint32_t tid;		/* kernel thread id */
	int subsys;		/* enum log_subsys, or -1 for "-" */
	const char *subsys_name; /* "mon", ..., or "-" */
	int level;
	const char *text;	/* the formatted, escaped message; no newline */
	size_t len;		/* strlen(text) */
};

/*
 * Calls cb for each gathered entry, oldest first, with the entry formatted.
 * The view and its text live until cb returns.  Skips entries being
 * written at that moment.
 */
void log_recent_foreach(void (*cb)(const struct log_entry_view *, void *),
    void *arg);

/*
 * Installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT (on an
 * alternate stack for the calling thread, so a stack overflow can still be
 * reported) that write the signal and the recent entries to the log target
 * and, if it is not stderr, to stderr; then the signal is raised again with
 * its default action, so the process dies of it (and dumps core).
 */
void log_install_crash_handlers(void);

/*
 * Routes libevent's own messages into subsystem "event": errors at level 0,
 * warnings at 1, messages at 5, debug at 20.
 */
void log_event_callback_install(void);

/*
 * Returns a copy of s (at most maxlen bytes of it) that is safe to show:
 * \n \r \t and \\ as those escapes, other control characters (C0, DEL, C1)
 * and bytes that are not valid UTF-8 as \xNN; valid UTF-8 is kept.  The
 * result is allocated; the caller frees it.  dout() needs no such call: it
 * escapes its %s arguments itself.
 */
char *log_escape(const char *s, size_t maxlen);

/* Entries gathered since log_init (metrics: log entries gathered). */
uint64_t log_gathered_count(void);

#endif /* LOG_H */
