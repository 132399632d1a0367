/* log.c: subsystem levels, targets, the always-on lines, libevent routing. */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log_priv.h"

/*
 * A program that does not link libevent has no libevent messages to route:
 * the reference is weak so that common/libcommon.a does not pull libevent
 * into every program that logs.
 */
#pragma weak event_set_log_callback

const char *const log_subsys_names[LOG_NSUBSYS] = {
	[LOG_MON] = "mon",
	[LOG_OSD] = "osd",
	[LOG_PG] = "pg",
	[LOG_COMMIT] = "commit",
	[LOG_STORE] = "store",
	[LOG_NET] = "net",
	[LOG_CONF] = "conf",
	[LOG_CLIENT] = "client",
	[LOG_EVENT] = "event",
};

uint8_t log_max_level[LOG_NSUBSYS];
uint8_t log_file_level[LOG_NSUBSYS];
uint8_t log_gather_level[LOG_NSUBSYS];

/* Where written lines go. */
enum log_mode {
	LOG_TO_STDERR,
	LOG_TO_FILE,
	LOG_TO_SYSLOG,
};
static int log_mode = LOG_TO_STDERR;	/* atomic */
static int log_fd = STDERR_FILENO;	/* atomic */
static int log_filefd = -1;	/* the number files are dup3()ed onto */
static char *log_path;		/* file path, or NULL */
static char log_ident[64] = "mapmon";	/* openlog() keeps the pointer */
static pthread_mutex_t log_open_lock = PTHREAD_MUTEX_INITIALIZER;

static void
log_update_max(int s)
{
	int l = __atomic_load_n(&log_file_level[s], __ATOMIC_RELAXED);
	int g = __atomic_load_n(&log_gather_level[s], __ATOMIC_RELAXED);

	if (!log_gather_has_ring())
		g = 0;
	__atomic_store_n(&log_max_level[s], (uint8_t)(l > g ? l : g),
	    __ATOMIC_RELAXED);
}

void
log_init(const char *progname, size_t max_recent)
{
	int s;

	if (progname != NULL)
		snprintf(log_ident, sizeof log_ident, "%s", progname);
	log_gather_init(max_recent);
	for (s = 0; s < LOG_NSUBSYS; s++)
		log_update_max(s);
}

void
log_set_level(enum log_subsys s, int file_level, int gather_level)
{
	if ((unsigned)s >= LOG_NSUBSYS)
		return;
	if (file_level < 0)
		file_level = 0;
	if (file_level > LOG_LEVEL_MAX)
		file_level = LOG_LEVEL_MAX;
	if (gather_level < 0)
		gather_level = 0;
	if (gather_level > LOG_LEVEL_MAX)
		gather_level = LOG_LEVEL_MAX;
	__atomic_store_n(&log_file_level[s], (uint8_t)file_level,
	    __ATOMIC_RELAXED);
	__atomic_store_n(&log_gather_level[s], (uint8_t)gather_level,
	    __ATOMIC_RELAXED);
	log_update_max(s);
}

void
log_get_level(enum log_subsys s, int *file_level, int *gather_level)
{
	if ((unsigned)s >= LOG_NSUBSYS)
		return;
	if (file_level != NULL)
		*file_level = __atomic_load_n(&log_file_level[s],
		    __ATOMIC_RELAXED);
	if (gather_level != NULL)
		*gather_level = __atomic_load_n(&log_gather_level[s],
		    __ATOMIC_RELAXED);
}

int
log_subsys_find(const char *name)
{
	int s;

	for (s = 0; s < LOG_NSUBSYS; s++) {
		if (strcmp(name, log_subsys_names[s]) == 0)
			return s;
	}
	return -1;
}

/* Targets. */

int
log_open(const char *target, char **cause)
{
	int fd;

	if (target == NULL)
		target = "";
	pthread_mutex_lock(&log_open_lock);
	if (*target == '\0' || strcmp(target, "-") == 0 ||
	    strcmp(target, "stderr") == 0) {
		__atomic_store_n(&log_fd, STDERR_FILENO, __ATOMIC_RELEASE);
		__atomic_store_n(&log_mode, LOG_TO_STDERR, __ATOMIC_RELEASE);
		if (log_filefd != -1) {
			/* Let go of the file; late writers reach stderr. */
			dup3(STDERR_FILENO, log_filefd, O_CLOEXEC);
		}
		closelog();
		free(log_path);
		log_path = NULL;
	} else if (strcmp(target, "syslog") == 0) {
		openlog(log_ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		__atomic_store_n(&log_mode, LOG_TO_SYSLOG, __ATOMIC_RELEASE);
		free(log_path);
		log_path = NULL;
	} else {
		fd = open(target, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		    0640);
		if (fd == -1) {
			if (cause != NULL)
				xasprintf(cause, "open %s: %s", target,
				    strerror(errno));
			pthread_mutex_unlock(&log_open_lock);
			return -1;
		}
		/*
		 * Files always live at one descriptor number, replaced with
		 * dup3(): a writer that loaded the number just before a
		 * switch writes to the old or the new file, never to a
		 * descriptor closed and reused for something else.
		 */
		if (log_filefd == -1)
			log_filefd = fd;
		else {
			dup3(fd, log_filefd, O_CLOEXEC);
			close(fd);
		}
		if (__atomic_load_n(&log_mode, __ATOMIC_RELAXED) ==
		    LOG_TO_SYSLOG)
			closelog();
		__atomic_store_n(&log_fd, log_filefd, __ATOMIC_RELEASE);
		__atomic_store_n(&log_mode, LOG_TO_FILE, __ATOMIC_RELEASE);
		free(log_path);
		log_path = xstrdup(target);
	}
	pthread_mutex_unlock(&log_open_lock);
	return 0;
}

int
log_reopen(char **cause)
{
	int fd, rc = 0;

	pthread_mutex_lock(&log_open_lock);
	if (__atomic_load_n(&log_mode, __ATOMIC_RELAXED) == LOG_TO_FILE &&
	    log_path != NULL) {
		fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		    0640);
		if (fd == -1) {
			if (cause != NULL)
				xasprintf(cause, "reopen %s: %s", log_path,
				    strerror(errno));
			rc = -1;
		} else {
			dup3(fd, log_filefd, O_CLOEXEC);
			close(fd);
		}
	}
	pthread_mutex_unlock(&log_open_lock);
	return rc;
}

const char *
log_target(void)
{
	switch (__atomic_load_n(&log_mode, __ATOMIC_ACQUIRE)) {
	case LOG_TO_FILE:
		return log_path;
	case LOG_TO_SYSLOG:
		return "syslog";
	default:
		return "stderr";
	}
}

int
log_target_fd(void)
{
	if (__atomic_load_n(&log_mode, __ATOMIC_ACQUIRE) != LOG_TO_FILE)
		return -1;
	return __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
}

/* Writing. */

void
log_write_fd(int fd, const char *p, size_t n)
{
	ssize_t r;

	while (n > 0) {
		r = write(fd, p, n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return;	/* nowhere to report it */
		p += r;
		n -= (size_t)r;
	}
}

void
log_emit(const char *line, size_t len, enum log_prio prio)
{
	static const int prios[] = {
		[LOG_P_DEBUG] = LOG_DEBUG,
		[LOG_P_INFO] = LOG_INFO,
		[LOG_P_WARN] = LOG_WARNING,
		[LOG_P_CRIT] = LOG_CRIT,
	};

	if (__atomic_load_n(&log_mode, __ATOMIC_ACQUIRE) == LOG_TO_SYSLOG) {
		/* syslog stamps it: skip our time, keep thread and the rest. */
		syslog(prios[prio], "%.*s", (int)(len - LOG_STAMP_LEN - 1),
		    line + LOG_STAMP_LEN);
		return;
	}
	log_write_fd(__atomic_load_n(&log_fd, __ATOMIC_ACQUIRE), line, len);
}

/* The always-on lines. */

void
log_vline(enum log_prio prio, const char *fmt, va_list ap, int with_errno)
{
	char text[LOG_LINE_MAX];
	int saved_errno = errno, n;
	size_t len;

	n = vsnprintf(text, sizeof text, fmt, ap);
	len = n < 0 ? 0 : (size_t)n >= sizeof text ? sizeof text - 1
	    : (size_t)n;
	if (with_errno && len < sizeof text - 1) {
		n = snprintf(text + len, sizeof text - len, ": %s",
		    strerror(saved_errno));
		if (n > 0)
			len += (size_t)n;
		if (len >= sizeof text)
			len = sizeof text - 1;
	}
	log_gather_text(LOG_NOSUBSYS, 0, prio, text, len, 1,
	    log_gather_has_ring());
	errno = saved_errno;
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vline(LOG_P_WARN, fmt, ap, 1);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vline(LOG_P_WARN, fmt, ap, 0);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vline(LOG_P_INFO, fmt, ap, 0);
	va_end(ap);
}

/* libevent. */

static struct log_site log_event_sites[] = {
	{"%s", LOG_EVENT, 20, NULL},	/* EVENT_LOG_DEBUG */
	{"%s", LOG_EVENT, 5, NULL},	/* EVENT_LOG_MSG */
	{"%s", LOG_EVENT, 1, NULL},	/* EVENT_LOG_WARN */
	{"%s", LOG_EVENT, 0, NULL},	/* EVENT_LOG_ERR */
};

static void
log_event_cb(int severity, const char *msg)
{
	struct log_site *site;

	if (severity < EVENT_LOG_DEBUG || severity > EVENT_LOG_ERR)
		severity = EVENT_LOG_ERR;
	site = &log_event_sites[severity - EVENT_LOG_DEBUG];
	if (site->level <= log_max_level[LOG_EVENT])
		log_dout(site, msg);
}

void
log_event_callback_install(void)
{
	if (event_set_log_callback != NULL)
		event_set_log_callback(log_event_cb);
}
