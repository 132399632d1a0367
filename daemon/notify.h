/*
 * notify.h: the daemon's side of systemd's service notification protocol
 * (sd_notify(3)), for a unit of Type=notify.
 *
 * What the daemon tells the service manager, and when:
 *
 *	STATUS=loading pgs 120000/221568	during cold start (rate-limited)
 *	READY=1					store loaded, listener answering
 *	RELOADING=1 + MONOTONIC_USEC=		SIGHUP received, then READY=1
 *	STOPPING=1				SIGTERM/SIGINT received
 *	WATCHDOG=1				every half of WATCHDOG_USEC
 *
 * Everything goes through libsystemd's sd_notify() when the build has it
 * (HAVE_SYSTEMD); without it, or when the daemon was not started with
 * NOTIFY_SOCKET in its environment, every call does nothing and costs a
 * getenv().  Notification is best effort: the first failed send is logged
 * (log_warnx) and none ever stops the daemon.
 *
 * Threads: the loop thread only.  The module keeps one global state: there
 * is one daemon per process.
 */
#ifndef NOTIFY_H
#define NOTIFY_H

#include <stdint.h>

#include <event2/event.h>

#include "common/mapmon.h"

/* Fewest milliseconds between two cold start STATUS= lines. */
#define NOTIFY_PROGRESS_MS 20

/*
 * Look at the environment: whether NOTIFY_SOCKET is set and whether the
 * service manager asked for a watchdog (WATCHDOG_USEC, and WATCHDOG_PID
 * naming this process when set).  With a watchdog, a persistent timer on
 * base sends WATCHDOG=1 every half of the interval, and notify_progress()
 * sends it too while the loop is held by the cold start.  Call once, after
 * any fork (the watchdog belongs to the process systemd started), before the
 * other notify_* calls.  base may be NULL until the loop exists: call
 * notify_init() again with it then (the timer is added once).
 */
void notify_init(struct event_base *base);

/* Stop the watchdog timer; later notify_* calls do nothing. */
void notify_free(void);

/*
 * READY=1, with STATUS=status when status is not NULL.  Send it only when
 * the daemon answers requests: the service manager (and the benchmark that
 * times a restart) take READY=1 to mean exactly that.
 */
void notify_ready(const char *status);

/* STATUS=text (printf-formatted; one line). */
void notify_status(const char *fmt, ...) printflike(1, 2);

/*
 * Cold start progress as "STATUS=loading WHAT DONE/TOTAL": the first call
 * (done == 0) and the last (done == total) always go out, the others at
 * most every NOTIFY_PROGRESS_MS.  Fits mon_progress_cb (mon/mon.h).
 */
void notify_progress(const char *what, uint64_t done, uint64_t total);

/*
 * RELOADING=1 with MONOTONIC_USEC= (CLOCK_MONOTONIC now), as systemd wants
 * at the start of a reload; follow with notify_ready() when it is done.
 */
void notify_reloading(void);

/* STOPPING=1 (and STATUS=text when text is not NULL). */
void notify_stopping(const char *text);

#endif /* NOTIFY_H */
