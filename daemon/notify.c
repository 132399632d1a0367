/*
 * notify.c: sd_notify(3) messages for a Type=notify unit.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "common/log.h"
#include "common/mapmon.h"
#include "daemon/notify.h"

static struct {
	int enabled;		/* built with systemd and NOTIFY_SOCKET set */
	int warned;		/* a failed send was logged */
	uint64_t watchdog_usec;	/* 0: no watchdog */
	uint64_t last_watchdog;	/* monotonic usec of the last WATCHDOG=1 */
	uint64_t last_progress;	/* monotonic usec of the last STATUS= */
	struct event *watchdog_ev;
} notify;

static uint64_t
notify_now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Send one message (several NAME=VALUE lines); log the first failure. */
static void
notify_send(const char *msg)
{
#ifdef HAVE_SYSTEMD
	int rc;

	if (!notify.enabled)
		return;
	if ((rc = sd_notify(0, msg)) < 0 && !notify.warned) {
		notify.warned = 1;
		log_warnx("sd_notify to %s failed: %s", getenv("NOTIFY_SOCKET"),
		    strerror(-rc));
	}
	dout(LOG_MON, 10, "sd_notify: %s", msg);
#else
	(void)msg;
#endif
}

static void
notify_watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	notify.last_watchdog = notify_now_usec();
	notify_send("WATCHDOG=1");
}

void
notify_init(struct event_base *base)
{
	struct timeval tv;

#ifdef HAVE_SYSTEMD
	uint64_t usec = 0;
	const char *sock = getenv("NOTIFY_SOCKET");

	if (!notify.enabled && sock != NULL && *sock != '\0') {
		notify.enabled = 1;
		if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
			notify.watchdog_usec = usec;
			log_info("systemd watchdog every %llu ms; pinging "
			    "every %llu ms", (unsigned long long)usec / 1000,
			    (unsigned long long)usec / 2000);
		}
	}
#endif
	if (base == NULL || notify.watchdog_usec == 0 ||
	    notify.watchdog_ev != NULL)
		return;
	notify.watchdog_ev = event_new(base, -1, EV_PERSIST,
	    notify_watchdog_cb, NULL);
	if (notify.watchdog_ev == NULL)
		fatalx("event_new failed");
	tv.tv_sec = (time_t)(notify.watchdog_usec / 2 / 1000000);
	tv.tv_usec = (suseconds_t)(notify.watchdog_usec / 2 % 1000000);
	evtimer_add(notify.watchdog_ev, &tv);
	/* The first ping at once: the cold start may have taken a while. */
	notify_watchdog_cb(-1, 0, NULL);
}

void
notify_free(void)
{
	if (notify.watchdog_ev != NULL)
		event_free(notify.watchdog_ev);
	memset(&notify, 0, sizeof notify);
}

void
notify_ready(const char *status)
{
	char *msg;

	if (!notify.enabled)
		return;
	if (status != NULL) {
		xasprintf(&msg, "READY=1\nSTATUS=%s", status);
		notify_send(msg);
		free(msg);
	} else
		notify_send("READY=1");
}

void
notify_status(const char *fmt, ...)
{
	va_list ap;
	char *text, *msg;

	if (!notify.enabled)
		return;
	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	xasprintf(&msg, "STATUS=%s", text);
	notify_send(msg);
	free(msg);
	free(text);
}

void
notify_progress(const char *what, uint64_t done, uint64_t total)
{
	uint64_t now;

	if (!notify.enabled)
		return;
	now = notify_now_usec();
	/* The loop is held by the cold start: ping the watchdog from here. */
	if (notify.watchdog_usec != 0 &&
	    now - notify.last_watchdog >= notify.watchdog_usec / 2) {
		notify.last_watchdog = now;
		notify_send("WATCHDOG=1");
	}
	if (done != 0 && done != total &&
	    now - notify.last_progress < NOTIFY_PROGRESS_MS * 1000)
		return;
	notify.last_progress = now;
	notify_status("loading %s %llu/%llu", what, (unsigned long long)done,
	    (unsigned long long)total);
}

void
notify_reloading(void)
{
	char msg[64];

	if (!notify.enabled)
		return;
	snprintf(msg, sizeof msg, "RELOADING=1\nMONOTONIC_USEC=%llu",
	    (unsigned long long)notify_now_usec());
	notify_send(msg);
}

void
notify_stopping(const char *text)
{
	char *msg;

	if (!notify.enabled)
		return;
	if (text != NULL) {
		xasprintf(&msg, "STOPPING=1\nSTATUS=%s", text);
		notify_send(msg);
		free(msg);
	} else
		notify_send("STOPPING=1");
}
