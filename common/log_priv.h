/*
 * log_priv.h: the inside of the log, shared by common/log*.c only.
 *
 *   log.c         levels, targets (file, stderr, syslog) and writing to
 *                 them, the always-on lines, libevent's messages;
 *   log_gather.c  the ring of recent entries, the format parser, gathering
 *                 raw arguments (dout's hot path), the deferred formatter
 *                 and the readers of the ring;
 *   log_crash.c   fatal()/fatalx() and the crash handlers: the reporters
 *                 that dump the ring when the process dies.
 */
#ifndef LOG_PRIV_H
#define LOG_PRIV_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "common/log.h"

/* The subsystem of log_warn/log_warnx/log_info/fatal lines, shown "-". */
#define LOG_NOSUBSYS 0xff

/* "2026-11-30T19:45:01.123456Z ": where the thread id starts. */
#define LOG_STAMP_LEN 28

/* Line kinds for syslog priorities. */
enum log_prio {
	LOG_P_DEBUG,
	LOG_P_INFO,
	LOG_P_WARN,
	LOG_P_CRIT,
};

/*
 * The file (L) and gather (G) level per subsystem, in log.c; written only by
 * log_set_level(), read by log_dout() with relaxed atomic loads.
 */
extern uint8_t log_file_level[LOG_NSUBSYS];
extern uint8_t log_gather_level[LOG_NSUBSYS];

/* log.c */

/*
 * Writes all of p to fd, retrying after EINTR; gives up silently on any
 * other failure (there is nowhere to report it).  Async-signal-safe.
 */
void log_write_fd(int fd, const char *p, size_t n);

/*
 * Sends a finished line (prefix and newline included) to the target: one
 * write(2), or syslog(3) at prio's priority without the time stamp.
 */
void log_emit(const char *line, size_t len, enum log_prio prio);

/*
 * The descriptor of the file target, or -1 when the target is stderr or
 * syslog.  Async-signal-safe.
 */
int log_target_fd(void);

/*
 * An always-on line: formats fmt now, appends ": strerror(errno)" if
 * with_errno, writes it at level 0 with subsystem "-" and gathers it while
 * there is a ring.  Keeps errno.
 */
void log_vline(enum log_prio prio, const char *fmt, va_list ap,
    int with_errno) printflike(2, 0);

/* log_gather.c */

/*
 * Chooses the stamp clock (TSC or CLOCK_REALTIME) and replaces the ring
 * with a new one of max_recent entries (0: none).  Allocation failure is
 * fatal.  For log_init() only.
 */
void log_gather_init(size_t max_recent);

/* Whether there is a ring to gather into. */
int log_gather_has_ring(void);

/*
 * Writes (wfile) and/or gathers (wgather) an already formatted message of
 * n bytes, not escaped yet (it is escaped when formatted as a line).  A
 * gathered message is cut to the text of one slot, and when it is gathered
 * the written line gets that cut message too, without a cut mark.  Keeps no
 * pointer to text.
 */
void log_gather_text(int subsys, int level, enum log_prio prio,
    const char *text, size_t n, int wfile, int wgather);

/*
 * Writes the prefix of a line written now by this thread,
 * "2026-11-30T19:45:01.123456Z 1a2b - 0 ", into p (at least 64 bytes),
 * without locale, time zone or stdio; returns its length.  The crash
 * handler uses it.
 */
size_t log_gather_line_start(char *p, int subsys, int level);

#endif /* LOG_PRIV_H */
