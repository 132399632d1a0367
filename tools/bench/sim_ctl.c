/* sim_ctl.c: failures on demand for osd-sim (see sim_ctl.h). */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/mapmon.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/osd_sim.h"
#include "tools/bench/sim_ctl.h"

/* The longest control line; a longer one is refused whole. */
#define SIM_CTL_LINE_MAX 1024

struct sim_ctl_timer {
	struct sim_ctl *ctl;
	struct event *ev;
	struct sim_ctl_at at;
};

struct sim_ctl {
	struct event_base *base;
	struct osd_sim *sim;
	FILE *out;
	FILE *err;

	struct sim_ctl_timer *timers;
	size_t ntimers;

	char *path; /* the FIFO, when we made it */
	int made;
	int fd;
	struct event *fifo_ev;
	char buf[SIM_CTL_LINE_MAX + 1];
	size_t len;
	int skipping; /* the rest of a line too long */
};

void
sim_ctl_parse_at(const char *opt, const char *arg, int revive,
    struct sim_ctl_at *at)
{
	const char *at_sign = strchr(arg, '@');
	char id[16];
	size_t n;

	n = at_sign != NULL ? (size_t)(at_sign - arg) : 0;
	if (at_sign == NULL || n == 0 || n >= sizeof id) {
		fprintf(stderr, "mapmon-bench: %s: '%s' is not ID@SECONDS\n",
		    opt, arg);
		exit(MAPMON_EXIT_USAGE);
	}
	memcpy(id, arg, n);
	id[n] = '\0';
	at->id = (int32_t)bench_arg_long(opt, id, 0, 65535);
	at->ms = bench_arg_seconds(opt, at_sign + 1, 0, 86400L * 365 * 1000);
	at->revive = revive;
}

void
sim_ctl_parse_host_at(const char *opt, const char *arg, int revive,
    struct sim_ctl_at *at)
{
	const char *at_sign = strchr(arg, '@');
	size_t n;

	n = at_sign != NULL ? (size_t)(at_sign - arg) : 0;
	if (at_sign == NULL || n == 0 || n >= sizeof at->host) {
		fprintf(stderr, "mapmon-bench: %s: '%s' is not HOST@SECONDS\n",
		    opt, arg);
		exit(MAPMON_EXIT_USAGE);
	}
	memset(at, 0, sizeof *at);
	memcpy(at->host, arg, n);
	at->ms = bench_arg_seconds(opt, at_sign + 1, 0, 86400L * 365 * 1000);
	at->revive = revive;
}

static void sim_ctl_say(struct sim_ctl *c, const char *fmt, ...)
    printflike(2, 3);

static void
sim_ctl_say(struct sim_ctl *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->out, "osd-sim: ");
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
	fflush(c->out);
}

static void sim_ctl_bad(struct sim_ctl *c, const char *fmt, ...)
    printflike(2, 3);

static void
sim_ctl_bad(struct sim_ctl *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->err, "mapmon-bench: osd-sim: control: ");
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
	fflush(c->err);
}

/* One action on one OSD; 0 or -1 (said why). */
static int
sim_ctl_act(struct sim_ctl *c, const char *verb, int32_t id)
{
	char *cause = NULL;
	int rc;

	if (strcmp(verb, "kill") == 0)
		rc = osd_sim_kill(c->sim, id, &cause);
	else if (strcmp(verb, "revive") == 0)
		rc = osd_sim_revive(c->sim, id, &cause);
	else
		rc = osd_sim_stop_osd(c->sim, id, &cause);
	if (rc == -1) {
		sim_ctl_bad(c, "%s %d: %s", verb, id, cause);
		free(cause);
		return -1;
	}
	sim_ctl_say(c, "osd.%d %s", id,
	    strcmp(verb, "kill") == 0	    ? "killed" :
		strcmp(verb, "revive") == 0 ? "revived" :
					      "stopping cleanly");
	return 0;
}

/*
 * Kill or revive (verb "kill" or "revive") every OSD of host, at once;
 * 0, or -1 (said why) when no OSD boots there.
 */
static int
sim_ctl_host(struct sim_ctl *c, const char *verb, const char *host)
{
	char name[32];
	int32_t id;
	int n = 0, rc = 0;

	for (id = 0; osd_sim_host(c->sim, id, name, sizeof name) == 0; id++) {
		if (strcmp(name, host) != 0)
			continue;
		n++;
		if (sim_ctl_act(c, verb, id) == -1)
			rc = -1;
	}
	if (n == 0) {
		sim_ctl_bad(c, "%s-host %s: no OSD boots at host %s%s", verb,
		    host, host,
		    osd_sim_host(c->sim, 0, name, sizeof name) == 0 ?
			"" :
			" (the simulator has no --hosts)");
		return -1;
	}
	sim_ctl_say(c, "host %s: %d osds %s", host, n,
	    strcmp(verb, "kill") == 0 ? "killed" : "revived");
	return rc;
}

/* Append ids a..b to a range list ("0-2,4"). */
static void
sim_ctl_range(char **list, int32_t a, int32_t b)
{
	char *s;

	if (a == b)
		xasprintf(&s, "%s%s%d", *list, **list ? "," : "", a);
	else
		xasprintf(&s, "%s%s%d-%d", *list, **list ? "," : "", a, b);
	free(*list);
	*list = s;
}

/* The ids whose info matches (state, or map up when state < 0). */
static char *
sim_ctl_ids(struct sim_ctl *c, int state, int up)
{
	struct osd_sim_osd_info info;
	char *list = xstrdup("");
	int32_t id, start = -1;
	int match;

	for (id = 0; osd_sim_osd(c->sim, id, &info) == 0; id++) {
		match = state >= 0 ? (int)info.state == state : info.up == up;
		if (match && start < 0)
			start = id;
		else if (!match && start >= 0) {
			sim_ctl_range(&list, start, id - 1);
			start = -1;
		}
	}
	if (start >= 0)
		sim_ctl_range(&list, start, id - 1);
	if (*list == '\0') {
		free(list);
		list = xstrdup("none");
	}
	return list;
}

static void
sim_ctl_status(struct sim_ctl *c)
{
	struct osd_sim_stats st;
	char *run, *killed, *stopped, *up, *down;

	osd_sim_stats(c->sim, &st);
	run = sim_ctl_ids(c, OSD_SIM_RUNNING, 0);
	killed = sim_ctl_ids(c, OSD_SIM_KILLED, 0);
	stopped = sim_ctl_ids(c, OSD_SIM_STOPPED_CLEANLY, 0);
	up = sim_ctl_ids(c, -1, 1);
	down = sim_ctl_ids(c, -1, 0);
	fprintf(c->out,
	    "osd-sim: status at epoch %u: %zu pgs reported, %zu "
	    "active+clean; %llu failure reports (%llu cancels), %llu "
	    "beacons, %llu boots sent\n",
	    st.epoch, st.npgs, st.nclean, (unsigned long long)st.failures_sent,
	    (unsigned long long)st.cancels_sent,
	    (unsigned long long)st.beacons_sent,
	    (unsigned long long)st.boots_sent);
	fprintf(c->out, "osd-sim: running %s; killed %s; stopped %s\n", run,
	    killed, stopped);
	fprintf(c->out, "osd-sim: up in the map %s; down %s\n", up, down);
	fflush(c->out);
	free(run);
	free(killed);
	free(stopped);
	free(up);
	free(down);
}

/* "3" or "osd.3"; -1 when it is neither. */
static int32_t
sim_ctl_id(const char *w)
{
	char *end;
	long v;

	if (strncmp(w, "osd.", 4) == 0)
		w += 4;
	if (*w < '0' || *w > '9')
		return -1;
	errno = 0;
	v = strtol(w, &end, 10);
	if (errno != 0 || *end != '\0' || v > 65535)
		return -1;
	return (int32_t)v;
}

int
sim_ctl_line(struct sim_ctl *c, const char *line)
{
	char copy[SIM_CTL_LINE_MAX + 1], *w, *verb, *save = NULL;
	int32_t id;
	int n = 0, rc = 0;

	if (strlen(line) > SIM_CTL_LINE_MAX) {
		sim_ctl_bad(c, "a line longer than %d bytes", SIM_CTL_LINE_MAX);
		return -1;
	}
	snprintf(copy, sizeof copy, "%s", line);
	verb = strtok_r(copy, " \t\r", &save);
	if (verb == NULL || *verb == '#')
		return 0;
	if (strcmp(verb, "status") == 0) {
		if (strtok_r(NULL, " \t\r", &save) != NULL) {
			sim_ctl_bad(c, "status takes nothing after it");
			return -1;
		}
		sim_ctl_status(c);
		return 0;
	}
	if (strcmp(verb, "kill-host") == 0 ||
	    strcmp(verb, "revive-host") == 0) {
		verb[strlen(verb) - 5] = '\0';
		for (w = strtok_r(NULL, " \t\r", &save); w != NULL;
		     w = strtok_r(NULL, " \t\r", &save), n++)
			if (sim_ctl_host(c, verb, w) == -1)
				rc = -1;
		if (n == 0) {
			sim_ctl_bad(c,
			    "%s-host: which hosts? (%s-host NAME...)", verb,
			    verb);
			return -1;
		}
		return rc;
	}
	if (strcmp(verb, "kill") != 0 && strcmp(verb, "revive") != 0 &&
	    strcmp(verb, "stop") != 0) {
		sim_ctl_bad(c,
		    "unknown command '%s' (kill, revive, stop, kill-host, "
		    "revive-host or status)",
		    verb);
		return -1;
	}
	/* Every id is checked before any is acted on. */
	for (w = strtok_r(NULL, " \t\r", &save); w != NULL;
	     w = strtok_r(NULL, " \t\r", &save)) {
		if (sim_ctl_id(w) < 0) {
			sim_ctl_bad(c,
			    "%s: '%s' is not an OSD id (a number "
			    "or osd.N)",
			    verb, w);
			return -1;
		}
		n++;
	}
	if (n == 0) {
		sim_ctl_bad(c, "%s: which OSDs? (%s ID...)", verb, verb);
		return -1;
	}
	snprintf(copy, sizeof copy, "%s", line);
	strtok_r(copy, " \t\r", &save);
	for (w = strtok_r(NULL, " \t\r", &save); w != NULL;
	     w = strtok_r(NULL, " \t\r", &save)) {
		id = sim_ctl_id(w);
		if (sim_ctl_act(c, verb, id) == -1)
			rc = -1;
	}
	return rc;
}

static void
sim_ctl_fire(evutil_socket_t fd, short what, void *arg)
{
	struct sim_ctl_timer *t = arg;

	(void)fd;
	(void)what;
	if (t->at.host[0] != '\0')
		sim_ctl_host(t->ctl, t->at.revive ? "revive" : "kill",
		    t->at.host);
	else
		sim_ctl_act(t->ctl, t->at.revive ? "revive" : "kill", t->at.id);
}

struct sim_ctl *
sim_ctl_new(struct event_base *base, struct osd_sim *sim, FILE *out, FILE *err)
{
	struct sim_ctl *c = xcalloc(1, sizeof *c);

	c->base = base;
	c->sim = sim;
	c->out = out;
	c->err = err;
	c->fd = -1;
	return c;
}

void
sim_ctl_schedule(struct sim_ctl *c, const struct sim_ctl_at *at, size_t n)
{
	struct sim_ctl_timer *t;
	struct timeval tv;
	size_t i;

	/* Timers are never freed before sim_ctl_free(): no realloc after. */
	c->timers = xcalloc(n ? n : 1, sizeof *c->timers);
	c->ntimers = n;
	for (i = 0; i < n; i++) {
		t = &c->timers[i];
		t->ctl = c;
		t->at = at[i];
		t->ev = evtimer_new(c->base, sim_ctl_fire, t);
		tv.tv_sec = at[i].ms / 1000;
		tv.tv_usec = (at[i].ms % 1000) * 1000;
		evtimer_add(t->ev, &tv);
	}
}

static void
sim_ctl_read(evutil_socket_t fd, short what, void *arg)
{
	struct sim_ctl *c = arg;
	char *nl;
	ssize_t r;
	size_t used;

	(void)what;
	for (;;) {
		r = read(fd, c->buf + c->len, SIM_CTL_LINE_MAX - c->len);
		if (r <= 0) {
			if (r < 0 && errno != EAGAIN && errno != EINTR)
				sim_ctl_bad(c, "%s: %s", c->path,
				    strerror(errno));
			return;
		}
		c->len += (size_t)r;
		c->buf[c->len] = '\0';
		while ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
			*nl = '\0';
			if (!c->skipping)
				sim_ctl_line(c, c->buf);
			c->skipping = 0;
			used = (size_t)(nl - c->buf) + 1;
			memmove(c->buf, nl + 1, c->len - used);
			c->len -= used;
		}
		if (c->len == SIM_CTL_LINE_MAX) {
			if (!c->skipping)
				sim_ctl_bad(c, "a line longer than %d bytes",
				    SIM_CTL_LINE_MAX);
			c->skipping = 1;
			c->len = 0;
		}
	}
}

int
sim_ctl_fifo(struct sim_ctl *c, const char *path, char **cause)
{
	struct stat sb;

	if (mkfifo(path, 0600) == 0)
		c->made = 1;
	else if (errno != EEXIST) {
		xasprintf(cause, "%s: cannot make the FIFO: %s", path,
		    strerror(errno));
		return -1;
	} else if (stat(path, &sb) == -1 || !S_ISFIFO(sb.st_mode)) {
		xasprintf(cause, "%s exists and is not a FIFO", path);
		return -1;
	}
	/* Read and write: no end of file when a writer closes it. */
	if ((c->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)) == -1) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		if (c->made)
			unlink(path);
		c->made = 0;
		return -1;
	}
	c->path = xstrdup(path);
	c->fifo_ev = event_new(c->base, c->fd, EV_READ | EV_PERSIST,
	    sim_ctl_read, c);
	event_add(c->fifo_ev, NULL);
	return 0;
}

void
sim_ctl_free(struct sim_ctl *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->ntimers; i++)
		event_free(c->timers[i].ev);
	free(c->timers);
	if (c->fifo_ev != NULL)
		event_free(c->fifo_ev);
	if (c->fd != -1)
		close(c->fd);
	if (c->made)
		unlink(c->path);
	free(c->path);
	free(c);
}
