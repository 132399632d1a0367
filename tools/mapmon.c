/*
 * mapmon.c: the command-line client (mapmon(8)).
 *
 * One connection per run.  The command words are parsed with the
 * monitor's own table (get_command_descriptions, fetched first on the same
 * connection, never cached on disk), so help and argument checking cannot
 * drift from the daemon.  `pg map` is computed here from a subscribed
 * osdmap, as any client holding the map may; `watch` streams the cluster
 * log and health; `raw` sends a command object as written.
 *
 * --connect-timeout bounds the connection and everything up to the reply
 * (for watch: up to the subscriptions' answers).
 *
 * The key (mapmon(8), AUTHENTICATION) is entity -n's (client.admin) in the
 * keyring of -k, else $MAPMON_KEYRING, else [auth] keyring of the config
 * given with -c or $MAPMON_CONF, else /etc/mapmon/client.admin.keyring;
 * a keyring named by -k or the environment must be there, the others may
 * be missing (the HELLO then offers no key).  A refused key exits 13.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/mapmon.h"
#include "common/stamp.h"
#include "conf/conf.h"
#include "map/pg.h"
#include "net/client.h"
#include "net/hunt.h"
#include "tools/cli_args.h"
#include "tools/mapmon_fmt.h"
#include "tools/osdmap_cache.h"

#define MAPMON_DEFAULT_CONF SYSCONFDIR "/mapmon/mapmon.conf"
/* Where mapmond --mkfs writes it by default ([auth] keyring). */
#define MAPMON_DEFAULT_KEYRING "/etc/mapmon/client.admin.keyring"
#define MAPMON_DEFAULT_ADDR "127.0.0.1:6788"
#define MAPMON_DEFAULT_TIMEOUT_MS 10000

/* Exit codes beyond a refused command's errno (mapmon(8), EXIT STATUS). */
#define MAPMON_EXIT_NOMON 111	/* ECONNREFUSED: no monitor answers */
#define MAPMON_EXIT_TIMEOUT 110	/* ETIMEDOUT */

enum mapmon_format { FORMAT_PLAIN, FORMAT_JSON, FORMAT_JSON_PRETTY };

static struct {
	const char *conf_path;
	const char *mon;
	enum mapmon_format format;
	int timeout_ms;
	int help;
	int version;
	int list_commands;
	int list_args;
	const char *name;     /* -n */
	const char *keyring;  /* -k */
	const char *tls_ca;   /* --tls-ca */
	int linearizable;     /* --linearizable */
	const char *out_file; /* -o: stdout goes there ("-": stdout) */
} opts = { NULL, NULL, FORMAT_PLAIN, MAPMON_DEFAULT_TIMEOUT_MS, 0, 0, 0, 0,
	NULL, NULL, NULL, 0, NULL };

/* A reply waited for; kept until the session ends (see mapmon_call). */
struct mapmon_wait {
	int done;
	int rc;
	char *status;
	json_t *data;
	struct mapmon_wait *next;
};

static struct {
	struct event_base *base;
	struct mclient *cl;
	char *addr;
	/* The monitors to try in turn (-m A,B,C; mon_host), addr among them. */
	char **addrs;
	size_t naddrs;
	size_t tried; /* of addrs, how many were tried */
	struct event *deadline;
	int timed_out;
	int conn_err;		/* the connection failed: its errno */
	char *conn_msg;
	struct mapmon_wait *waits;
	struct cli_table *table;
	struct osdmap_cache *cache;
	int stop;		/* SIGINT / SIGTERM during watch */
	struct event *sigint, *sigterm;
	char **words;		/* the command words */
	json_t *cmd;		/* the command object sent */
	char *who;		/* "mon.a", for cluster log lines */
} sess;

static void
mapmon_usage(FILE *f)
{
	fprintf(f,
	    "usage: mapmon [-c CONF] [-m HOST:PORT] [-n NAME] [-k KEYRING] "
	    "[--tls-ca FILE]\n"
	    "              [-f plain|json|json-pretty] [-o FILE] "
	    "[--connect-timeout S] COMMAND...\n"
	    "       mapmon -s | -w | -h | -v | --version\n"
	    "  -c CONF            config file for [mon] bind and [auth] "
	    "keyring "
	    "(default\n"
	    "                     $MAPMON_CONF or %s)\n"
	    "  -m HOST:PORT[,..]  the monitors, tried in turn (default "
	    "$MAPMON_MON, else\n"
	    "                     the config's [mon] mon_host or bind, "
	    "else %s)\n"
	    "  -n NAME            the entity to authenticate as (default "
	    "$MAPMON_NAME,\n"
	    "                     else client.admin)\n"
	    "  -k KEYRING         its keyring (default $MAPMON_KEYRING, else "
	    "the config's\n"
	    "                     [auth] keyring, else %s)\n"
	    "  --tls-ca FILE      TLS, checking the monitor with this CA "
	    "(default\n"
	    "                     $MAPMON_TLS_CA, else the config's [net] "
	    "tls_ca)\n"
	    "  -f FORMAT          plain (default), json or json-pretty\n"
	    "  -o FILE            write the output to FILE (created or "
	    "truncated first)\n"
	    "                     instead of standard output\n"
	    "  --connect-timeout S  give up after S seconds (default %d)\n"
	    "  --linearizable     a read that sees every change acknowledged "
	    "before it\n"
	    "  -s                 status\n"
	    "  -w                 watch the cluster log and health\n"
	    "  -h, --help         this help and the monitor's commands\n"
	    "  -v, --version      the version of mapmon\n",
	    MAPMON_DEFAULT_CONF, MAPMON_DEFAULT_ADDR, MAPMON_DEFAULT_KEYRING,
	    MAPMON_DEFAULT_TIMEOUT_MS / 1000);
}

/* Free everything the session holds and exit. */
static mapmon_dead void
mapmon_exit(int code)
{
	struct mapmon_wait *w, *next;

	fflush(stdout);
	if (sess.cl != NULL)
		mclient_free(sess.cl);
	osdmap_cache_free(sess.cache);
	for (w = sess.waits; w != NULL; w = next) {
		next = w->next;
		free(w->status);
		json_decref(w->data);
		free(w);
	}
	if (sess.deadline != NULL)
		event_free(sess.deadline);
	if (sess.sigint != NULL)
		event_free(sess.sigint);
	if (sess.sigterm != NULL)
		event_free(sess.sigterm);
	if (sess.base != NULL)
		event_base_free(sess.base);
	cli_table_free(sess.table);
	free(sess.addr);
	free(sess.conn_msg);
	free(sess.words);
	json_decref(sess.cmd);
	free(sess.who);
	exit(code);
}

/* What was wrong on one line, then the usage line; exit with code. */
static mapmon_dead void mapmon_usage_vexit(int, const char *, const char *,
    va_list) printflike(3, 0);

static void
mapmon_usage_vexit(int code, const char *usage, const char *fmt, va_list ap)
{
	fprintf(stderr, "mapmon: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	if (usage != NULL)
		fprintf(stderr, "usage: mapmon %s\n", usage);
	else
		fprintf(stderr, "usage: mapmon [-c CONF] [-m HOST:PORT] "
		    "[-f plain|json|json-pretty] [--connect-timeout S] "
		    "COMMAND... (mapmon -h lists the commands)\n");
	mapmon_exit(code);
}

/* A usage error of mapmon's own (an option, no command): 64. */
static mapmon_dead void mapmon_usage_error(const char *usage, const char *fmt,
    ...) printflike(2, 3);

static void
mapmon_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mapmon_usage_vexit(MAPMON_EXIT_USAGE, usage, fmt, ap);
}

/*
 * A command or its arguments refused: EINVAL (22), as Ceph's CLI exits on
 * an invalid command.
 */
static mapmon_dead void mapmon_invalid(const char *usage, const char *fmt, ...)
    printflike(2, 3);

static void
mapmon_invalid(const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mapmon_usage_vexit(EINVAL, usage, fmt, ap);
}

/* errno names, as ceph prints a refused command ("Error ENOENT: ..."). */
static const char *
mapmon_errno_name(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" },
		{ ENOENT, "ENOENT" },
		{ EIO, "EIO" },
		{ E2BIG, "E2BIG" },
		{ EAGAIN, "EAGAIN" },
		{ ENOMEM, "ENOMEM" },
		{ EACCES, "EACCES" },
		{ EBUSY, "EBUSY" },
		{ EEXIST, "EEXIST" },
		{ EINVAL, "EINVAL" },
		{ ENOSPC, "ENOSPC" },
		{ ERANGE, "ERANGE" },
		{ ENOSYS, "ENOSYS" },
		{ ENOTSUP, "ENOTSUP" },
		{ EMSGSIZE, "EMSGSIZE" },
		{ EPROTO, "EPROTO" },
		{ ECANCELED, "ECANCELED" },
		{ ETIMEDOUT, "ETIMEDOUT" },
		{ ECONNREFUSED, "ECONNREFUSED" },
		{ ECONNRESET, "ECONNRESET" },
		{ ENOTEMPTY, "ENOTEMPTY" },
		{ EROFS, "EROFS" },
		{ ELOOP, "ELOOP" },
	};
	size_t i;

	for (i = 0; i < nitems(names); i++)
		if (names[i].e == e)
			return names[i].name;
	return NULL;
}

/* A refused command: "Error ENOENT: status" and exit with the errno. */
static mapmon_dead void
mapmon_refused(int rc, const char *status)
{
	const char *name = mapmon_errno_name(-rc);

	if (name != NULL)
		fprintf(stderr, "Error %s: %s\n", name, status != NULL &&
		    *status != '\0' ? status : strerror(-rc));
	else
		fprintf(stderr, "Error %d: %s\n", rc, status != NULL &&
		    *status != '\0' ? status : strerror(-rc));
	mapmon_exit(-rc > 0 && -rc < 256 ? -rc : 1);
}

/*
 * The connection failed: 110 for a timeout, 111 for anything else (no
 * monitor answers at the address: refused, reset, unreachable, not the
 * protocol).  A monitor that answers it has too many connections refuses
 * with EBUSY, which exits as every refusal does (16).
 */
static mapmon_dead void
mapmon_conn_failed(int err, const char *msg)
{
	if (err == -EBUSY)
		mapmon_refused(err, msg);
	/* A refused key or handshake: one line and 13, as any EACCES. */
	if (err == -EACCES) {
		fprintf(stderr, "mapmon: %s\n",
		    msg != NULL ? msg : strerror(-err));
		mapmon_exit(EACCES);
	}
	fprintf(stderr, "mapmon: %s\n", msg != NULL ? msg :
	    strerror(-err));
	if (err == -ETIMEDOUT)
		mapmon_exit(MAPMON_EXIT_TIMEOUT);
	mapmon_exit(MAPMON_EXIT_NOMON);
}

static void
mapmon_on_error(void *arg, int err, const char *msg)
{
	(void)arg;
	sess.conn_err = err;
	free(sess.conn_msg);
	sess.conn_msg = xstrdup(msg != NULL ? msg : strerror(-err));
	event_base_loopbreak(sess.base);
}

static void
mapmon_on_deadline(evutil_socket_t fd, short events, void *arg)
{
	(void)fd;
	(void)events;
	(void)arg;
	sess.timed_out = 1;
	event_base_loopbreak(sess.base);
}

static mapmon_dead void
mapmon_timed_out(void)
{
	fprintf(stderr, "mapmon: no answer from the monitor at %s within "
	    "%d.%03d s\n", sess.addr, opts.timeout_ms / 1000,
	    opts.timeout_ms % 1000);
	mapmon_exit(MAPMON_EXIT_TIMEOUT);
}

static void
mapmon_connect(void)
{
	struct timeval tv;

	if ((sess.base = event_base_new()) == NULL) {
		fprintf(stderr, "mapmon: libevent cannot make an event base\n");
		mapmon_exit(MAPMON_EXIT_SOFTWARE);
	}
	sess.cl = mclient_new(sess.base, sess.addr, opts.timeout_ms, NULL,
	    mapmon_on_error, NULL);
	mclient_set_name(sess.cl,
	    opts.name != NULL ? opts.name : "client.admin");
	sess.deadline = evtimer_new(sess.base, mapmon_on_deadline, NULL);
	tv.tv_sec = opts.timeout_ms / 1000;
	tv.tv_usec = (opts.timeout_ms % 1000) * 1000;
	evtimer_add(sess.deadline, &tv);
}

static void
mapmon_on_reply(void *arg, int rc, const char *status, json_t *data)
{
	struct mapmon_wait *w = arg;

	if (w->done)
		return;
	w->done = 1;
	w->rc = rc;
	w->status = xstrdup(status != NULL ? status : "");
	w->data = json_incref(data);
	event_base_loopbreak(sess.base);
}

/* A new waiter, kept until the session ends (callbacks may come late). */
static struct mapmon_wait *
mapmon_wait_new(void)
{
	struct mapmon_wait *w;

	w = xcalloc(1, sizeof *w);
	w->next = sess.waits;
	sess.waits = w;
	return w;
}

/*
 * Send cmd and wait for its reply, without exiting: returns 0 with *w
 * answered, or -1 when the connection failed or the deadline passed
 * (sess.conn_err / sess.timed_out say which).
 */
static int
mapmon_try_call(const json_t *cmd, struct mapmon_wait **wp)
{
	struct mapmon_wait *w = mapmon_wait_new();

	*wp = w;
	if (mclient_request(sess.cl, cmd, mapmon_on_reply, w) == -1) {
		if (sess.conn_err == 0)
			sess.conn_err = -ECONNRESET;
		return -1;
	}
	while (!w->done && !sess.timed_out && sess.conn_err == 0)
		if (event_base_loop(sess.base, EVLOOP_ONCE) == -1) {
			sess.conn_err = -EIO;
			sess.conn_msg = xstrdup("the event loop failed");
		}
	/*
	 * A connection error reaches the waiting requests first, as their
	 * rc: a negative rc with the connection gone is the connection's.
	 */
	if (!w->done || (w->rc < 0 && sess.conn_err != 0))
		return -1;
	return 0;
}

/* Talk to the monitor at addr from now on (a new connection). */
static void
mapmon_switch(const char *addr)
{
	mclient_free(sess.cl);
	free(sess.addr);
	sess.addr = xstrdup(addr);
	free(sess.conn_msg);
	sess.conn_msg = NULL;
	sess.conn_err = 0;
	sess.cl = mclient_new(sess.base, sess.addr, opts.timeout_ms, NULL,
	    mapmon_on_error, NULL);
	mclient_set_name(sess.cl,
	    opts.name != NULL ? opts.name : "client.admin");
}

/* The next monitor of the list not tried yet; 0 when there is none. */
static int
mapmon_next_mon(void)
{
	if (sess.tried >= sess.naddrs)
		return 0;
	mapmon_switch(sess.addrs[sess.tried++]);
	return 1;
}

/* Redirections followed for one command in one round, at most. */
#define MAPMON_MAX_REDIRECTS 4
/* Pauses between rounds of a command refused for want of a quorum. */
#define MAPMON_PAUSE_FIRST_MS 50
#define MAPMON_PAUSE_MAX_MS 1000

static void
mapmon_on_pause(evutil_socket_t fd, short events, void *arg)
{
	(void)fd;
	(void)events;
	*(int *)arg = 1;
	event_base_loopbreak(sess.base);
}

/*
 * A refusal that changed nothing and came of the quorum's state (an
 * election, no leader known or reachable): the monitor marks it
 * "retry": true (mapmon-protocol(7), FORWARDING).
 */
static int
mapmon_retryable(const struct mapmon_wait *w)
{
	return w->rc == -EAGAIN &&
	    json_is_true(json_object_get(w->data, "retry"));
}

/*
 * Wait *pause_ms (doubled for the next round, up to a second), then start
 * a round of the monitors again from the first.  Returns 0 when the
 * deadline passed meanwhile.
 */
static int
mapmon_next_round(int *pause_ms)
{
	struct timeval tv;
	struct event *ev;
	int over = 0;

	tv.tv_sec = *pause_ms / 1000;
	tv.tv_usec = (*pause_ms % 1000) * 1000;
	if ((ev = evtimer_new(sess.base, mapmon_on_pause, &over)) == NULL) {
		fprintf(stderr, "mapmon: libevent cannot make a timer\n");
		mapmon_exit(MAPMON_EXIT_SOFTWARE);
	}
	evtimer_add(ev, &tv);
	while (!over && !sess.timed_out)
		if (event_base_loop(sess.base, EVLOOP_ONCE) == -1)
			break;
	event_free(ev);
	if (sess.timed_out || !over)
		return 0;
	if (*pause_ms < MAPMON_PAUSE_MAX_MS)
		*pause_ms = *pause_ms * 2 < MAPMON_PAUSE_MAX_MS ?
		    *pause_ms * 2 :
		    MAPMON_PAUSE_MAX_MS;
	/* One monitor whose connection still stands is asked again on it. */
	if (sess.naddrs <= 1 && sess.conn_err == 0)
		return 1;
	sess.tried = 0;
	return mapmon_next_mon();
}

/*
 * Send cmd and wait for its reply.  Returns the reply's rc, with *data (a
 * reference the session owns: valid until exit) and *status set; a lost
 * connection or the deadline exits the program (110, 111; 16 for a
 * monitor with too many connections).  With several monitors (-m A,B,C,
 * [mon] mon_host), one that cannot be reached is passed over for the next;
 * a follower's EAGAIN naming its leader sends the command there, and one
 * out of quorum to the next monitor.  When every monitor has refused for
 * want of a quorum, the round starts again after a pause, as Ceph's client
 * waits for a quorum, until the deadline; then the last such refusal is
 * the answer (mapmon(8), DESCRIPTION).
 */
static int
mapmon_call(const json_t *cmd, json_t **data, const char **status)
{
	struct mapmon_wait *w, *last = NULL;
	const char *leader;
	int redirects = 0, pause_ms = MAPMON_PAUSE_FIRST_MS;

	for (;;) {
		if (mapmon_try_call(cmd, &w) == -1) {
			if (sess.timed_out && last == NULL)
				mapmon_timed_out();
			if (!sess.timed_out && sess.conn_err != -EACCES &&
			    mapmon_next_mon())
				continue;
			if (last == NULL)
				mapmon_conn_failed(sess.conn_err,
				    sess.conn_msg);
			if (!sess.timed_out && mapmon_next_round(&pause_ms)) {
				redirects = 0;
				continue;
			}
			w = last;
			break;
		}
		if (mapmon_retryable(w))
			last = w;
		/*
		 * EAGAIN: a leader named (by a monitor older than
		 * forwarding) is followed; a monitor out of quorum, or
		 * whose leader is out of reach, is passed over for the
		 * next of the list.
		 */
		if (w->rc == -EAGAIN && redirects < MAPMON_MAX_REDIRECTS) {
			leader = json_string_value(
			    json_object_get(w->data, "leader_addr"));
			redirects++;
			if (leader != NULL && strcmp(leader, sess.addr) != 0) {
				mapmon_switch(leader);
				continue;
			}
			if (leader == NULL && mapmon_next_mon())
				continue;
		}
		if (mapmon_retryable(w) && mapmon_next_round(&pause_ms)) {
			redirects = 0;
			continue;
		}
		break;
	}
	*data = w->data;
	*status = w->status;
	return w->rc;
}

/* Fetch the monitor's command table. */
static void
mapmon_fetch_table(void)
{
	const char *status;
	json_t *cmd, *data;
	char *cause = NULL;
	int rc;

	cmd = json_pack("{s:s}", "prefix", "get_command_descriptions");
	rc = mapmon_call(cmd, &data, &status);
	json_decref(cmd);
	if (rc < 0)
		mapmon_refused(rc, status);
	if ((sess.table = cli_table_from_json(data, &cause)) == NULL) {
		fprintf(stderr, "mapmon: the monitor's command table: %s\n",
		    cause);
		free(cause);
		mapmon_exit(MAPMON_EXIT_SOFTWARE);
	}
}

/* Print data as -f asks; plain output goes through the formatters. */
static void
mapmon_print(const char *prefix, const json_t *cmd, const json_t *data)
{
	char *s;

	/*
	 * Ceph's `config get WHO NAME` answers the value as text in every
	 * format (ConfigMonitor::preprocess_command()).
	 */
	if (opts.format == FORMAT_PLAIN ||
	    (strcmp(prefix, "config get") == 0 &&
		json_object_get(cmd, "name") != NULL)) {
		mapmon_fmt_plain(stdout, prefix, cmd, data);
		return;
	}
	if (data == NULL)
		return;
	s = json_dumps(data, JSON_ENCODE_ANY | (opts.format == FORMAT_JSON ?
	    JSON_COMPACT : JSON_INDENT(4)));
	if (s != NULL)
		printf("%s\n", s);
	free(s);
}

/*
 * The monitor's address: -m, else $MAPMON_MON, else [mon] bind of the
 * config (a wildcard bind is reached on loopback), else the default.
 */
static char *
mapmon_resolve_addr(void)
{
	const char *path, *bind;
	struct conf *c;
	char **errors, host[256], *addr, *cause = NULL;
	size_t i, nerrors;
	uint16_t port;
	int must_exist = 1;

	if (opts.mon != NULL)
		return xstrdup(opts.mon);
	if ((path = getenv("MAPMON_MON")) != NULL && *path != '\0')
		return xstrdup(path);
	if ((path = opts.conf_path) == NULL &&
	    ((path = getenv("MAPMON_CONF")) == NULL || *path == '\0')) {
		path = MAPMON_DEFAULT_CONF;
		must_exist = 0;
	}
	if (!must_exist && access(path, F_OK) == -1 && errno == ENOENT)
		return xstrdup(MAPMON_DEFAULT_ADDR);
	if ((c = conf_load(path, &errors, &nerrors)) == NULL) {
		for (i = 0; i < nerrors; i++)
			fprintf(stderr, "%s\n", errors[i]);
		conf_errors_free(errors, nerrors);
		mapmon_exit(MAPMON_EXIT_CONFIG);
	}
	/* A quorum: every monitor of mon_host, tried in turn. */
	if (*conf_str(c, CONF_MON_MON_HOST) != '\0') {
		addr = xstrdup(conf_str(c, CONF_MON_MON_HOST));
		conf_free(c);
		return addr;
	}
	bind = conf_str(c, CONF_MON_BIND);
	if (bind == NULL || *bind == '\0') {
		conf_free(c);
		return xstrdup(MAPMON_DEFAULT_ADDR);
	}
	if (conf_parse_address(bind, host, sizeof host, &port, &cause) == -1) {
		fprintf(stderr, "%s: [mon] bind: %s\n", path, cause);
		free(cause);
		conf_free(c);
		mapmon_exit(MAPMON_EXIT_CONFIG);
	}
	conf_free(c);
	if (strcmp(host, "0.0.0.0") == 0 || *host == '\0')
		xasprintf(&addr, "127.0.0.1:%u", port);
	else if (strcmp(host, "::") == 0)
		xasprintf(&addr, "[::1]:%u", port);
	else if (strchr(host, ':') != NULL)
		xasprintf(&addr, "[%s]:%u", host, port);
	else
		xasprintf(&addr, "%s:%u", host, port);
	return addr;
}

/*
 * The list of monitors to try: "A,B,C" (each HOST:PORT, or NAME=HOST:PORT
 * as mon_host writes them) into sess.addrs; list is freed.
 */
static void
mapmon_split_addrs(char *list)
{
	char *tok, *save = NULL, *eq;

	for (tok = strtok_r(list, ", \t", &save); tok != NULL;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if ((eq = strchr(tok, '=')) != NULL)
			tok = eq + 1;
		sess.addrs = xreallocarray(sess.addrs, sess.naddrs + 1,
		    sizeof *sess.addrs);
		sess.addrs[sess.naddrs++] = xstrdup(tok);
	}
	free(list);
	if (sess.naddrs == 0)
		mapmon_usage_error(NULL, "no monitor address given");
}

/*
 * A string key of the config given with -c or $MAPMON_CONF ([auth]
 * keyring, [net] tls_ca; malloc'd), or NULL when none is given; a config
 * that does not load exits 78.
 */
static char *
mapmon_conf_value(enum conf_key key)
{
	const char *path = opts.conf_path;
	struct conf *c;
	char **errors, *keyring;
	size_t i, nerrors;

	if (path == NULL &&
	    ((path = getenv("MAPMON_CONF")) == NULL || *path == '\0'))
		return NULL;
	if ((c = conf_load(path, &errors, &nerrors)) == NULL) {
		for (i = 0; i < nerrors; i++)
			fprintf(stderr, "%s\n", errors[i]);
		conf_errors_free(errors, nerrors);
		mapmon_exit(MAPMON_EXIT_CONFIG);
	}
	keyring = xstrdup(conf_str(c, key));
	conf_free(c);
	return keyring;
}

/*
 * The key every connection of this run offers (see the top of this
 * file).  A keyring named by -k or $MAPMON_KEYRING must be read; one of
 * the config or the default may be missing (no key), but not unreadable
 * or bad.  Failures exit 13 with the reason.
 */
static void
mapmon_resolve_auth(void)
{
	const char *name = opts.name, *path = opts.keyring, *env;
	char *conf_keyring = NULL, *cause = NULL;
	int must = 1;

	if (name == NULL &&
	    ((name = getenv("MAPMON_NAME")) == NULL || *name == '\0'))
		name = "client.admin";
	if (path == NULL && (env = getenv("MAPMON_KEYRING")) != NULL &&
	    *env != '\0')
		path = env;
	if (path == NULL) {
		must = 0;
		conf_keyring = mapmon_conf_value(CONF_AUTH_KEYRING);
		path = conf_keyring != NULL ? conf_keyring :
					      MAPMON_DEFAULT_KEYRING;
	}
	if (!must && access(path, F_OK) == -1 && errno == ENOENT)
		(void)mclient_default_auth(NULL, NULL, NULL);
	else if (mclient_default_auth(name, path, &cause) == -1) {
		fprintf(stderr, "mapmon: %s\n", cause);
		free(cause);
		free(conf_keyring);
		mapmon_exit(EACCES);
	}
	free(conf_keyring);
}

/*
 * TLS with the monitor: the CA of --tls-ca, else $MAPMON_TLS_CA, else
 * [net] tls_ca of the config given with -c or $MAPMON_CONF; none: plain.
 * A CA that cannot be read exits 13.
 */
static void
mapmon_resolve_tls(void)
{
	const char *path = opts.tls_ca;
	char *conf_ca = NULL, *cause = NULL;

	if (path == NULL &&
	    ((path = getenv("MAPMON_TLS_CA")) == NULL || *path == '\0')) {
		conf_ca = mapmon_conf_value(CONF_NET_TLS_CA);
		path = conf_ca != NULL && *conf_ca != '\0' ? conf_ca : NULL;
	}
	if (mclient_default_tls(path, &cause) == -1) {
		fprintf(stderr, "mapmon: %s\n", cause);
		free(cause);
		free(conf_ca);
		mapmon_exit(EACCES);
	}
	free(conf_ca);
}

/* The value of an option: "-m X", "-mX", "--mon X" or "--mon=X". */
static const char *
mapmon_opt_value(int argc, char **argv, int *i, const char *shortname,
    const char *longname)
{
	const char *a = argv[*i];
	size_t len;

	if (shortname != NULL && strcmp(a, shortname) == 0)
		goto next;
	if (shortname != NULL && strncmp(a, shortname, 2) == 0 && a[2] != '\0')
		return a + 2;
	len = strlen(longname);
	if (strncmp(a, longname, len) == 0) {
		if (a[len] == '=')
			return a + len + 1;
		if (a[len] == '\0')
			goto next;
	}
	return NULL;
next:
	if (*i + 1 >= argc)
		mapmon_usage_error(NULL, "%s needs a value", a);
	return argv[++*i];
}

/* Is a an option with a value, named by shortname or longname? */
static int
mapmon_is_opt(const char *a, const char *shortname, const char *longname)
{
	size_t len = strlen(longname);

	if (shortname != NULL && strncmp(a, shortname, 2) == 0)
		return 1;
	return strncmp(a, longname, len) == 0 && (a[len] == '\0' ||
	    a[len] == '=');
}

static void
mapmon_set_format(const char *v)
{
	if (strcmp(v, "plain") == 0)
		opts.format = FORMAT_PLAIN;
	else if (strcmp(v, "json") == 0)
		opts.format = FORMAT_JSON;
	else if (strcmp(v, "json-pretty") == 0)
		opts.format = FORMAT_JSON_PRETTY;
	else
		mapmon_usage_error(NULL, "unknown format '%s': expected plain, "
		    "json or json-pretty", v);
}

static void
mapmon_set_timeout(const char *v)
{
	char *end;
	double s;

	s = strtod(v, &end);
	if (*v == '\0' || *end != '\0' || !isfinite(s) || s <= 0 ||
	    s > 86400)
		mapmon_usage_error(NULL, "--connect-timeout: '%s' is not a "
		    "number of seconds between 0 and 86400", v);
	opts.timeout_ms = (int)ceil(s * 1000);
}

/*
 * Take mapmon's own options from anywhere before "--"; everything else is
 * a command word, in order (a command's own options, such as --pool,
 * included).  -s and -w become the words "status" and "watch".
 */
static size_t
mapmon_parse_opts(int argc, char **argv, char **words)
{
	const char *a, *v;
	size_t n = 0;
	int i, rest = 0;

	for (i = 1; i < argc; i++) {
		a = argv[i];
		if (rest || a[0] != '-' || a[1] == '\0' ||
		    (a[1] >= '0' && a[1] <= '9')) {
			words[n++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			rest = 1;
			words[n++] = argv[i];
			continue;
		}
		if (mapmon_is_opt(a, "-c", "--conf")) {
			opts.conf_path = mapmon_opt_value(argc, argv, &i, "-c",
			    "--conf");
		} else if (mapmon_is_opt(a, "-m", "--mon")) {
			opts.mon = mapmon_opt_value(argc, argv, &i, "-m",
			    "--mon");
		} else if (mapmon_is_opt(a, "-n", "--name")) {
			opts.name = mapmon_opt_value(argc, argv, &i, "-n",
			    "--name");
		} else if (mapmon_is_opt(a, "-k", "--keyring")) {
			opts.keyring = mapmon_opt_value(argc, argv, &i, "-k",
			    "--keyring");
		} else if (mapmon_is_opt(a, NULL, "--tls-ca")) {
			opts.tls_ca = mapmon_opt_value(argc, argv, &i, NULL,
			    "--tls-ca");
		} else if (mapmon_is_opt(a, "-o", "--out-file")) {
			opts.out_file = mapmon_opt_value(argc, argv, &i, "-o",
			    "--out-file");
		} else if (mapmon_is_opt(a, "-f", "--format")) {
			v = mapmon_opt_value(argc, argv, &i, "-f", "--format");
			mapmon_set_format(v);
		} else if (mapmon_is_opt(a, NULL, "--connect-timeout")) {
			v = mapmon_opt_value(argc, argv, &i, NULL,
			    "--connect-timeout");
			mapmon_set_timeout(v);
		} else if (strcmp(a, "-s") == 0 || strcmp(a, "--status") == 0)
			words[n++] = (char *)"status";
		else if (strcmp(a, "-w") == 0 || strcmp(a, "--watch") == 0)
			words[n++] = (char *)"watch";
		else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			opts.help = 1;
		else if (strcmp(a, "--version") == 0 || strcmp(a, "-v") == 0)
			opts.version = 1;
		else if (strcmp(a, "--linearizable") == 0)
			opts.linearizable = 1;
		else if (strcmp(a, "--list-commands") == 0)
			opts.list_commands = 1;
		else if (strcmp(a, "--list-args") == 0)
			opts.list_args = 1;
		else if (a[1] != '-')
			mapmon_usage_error(NULL, "unknown option '%s'", a);
		else
			words[n++] = argv[i];	/* maybe the command's */
	}
	return n;
}

/* `mapmon -h`: the options, then the monitor's commands if it answers. */
static mapmon_dead void
mapmon_help(void)
{
	struct mapmon_wait *w;
	json_t *cmd;
	char *cause = NULL;
	int rv;

	mapmon_usage(stdout);
	fflush(stdout);
	mapmon_connect();
	cmd = json_pack("{s:s}", "prefix", "get_command_descriptions");
	rv = mapmon_try_call(cmd, &w);
	json_decref(cmd);
	if (rv == 0 && w->rc == 0 &&
	    (sess.table = cli_table_from_json(w->data, &cause)) == NULL) {
		printf("\nThe monitor at %s sent a command table that cannot "
		    "be read:\n%s\n", sess.addr, cause);
		free(cause);
		mapmon_exit(0);
	}
	if (rv == -1 || w->rc < 0) {
		/* Without a monitor there is no table: say how to reach one. */
		printf("\nThe commands come from the monitor, and none answers "
		    "at %s\n(%s).\nStart mapmond, or name the monitor with -m "
		    "HOST:PORT, $MAPMON_MON, or\n[mon] bind in the config file "
		    "(-c CONF, $MAPMON_CONF, %s).\n", sess.addr,
		    sess.timed_out ? "no answer in time" : sess.conn_msg ?
		    sess.conn_msg : w->status, MAPMON_DEFAULT_CONF);
		mapmon_exit(0);
	}
	printf("\nCommands (from the monitor at %s):\n", sess.addr);
	cli_table_print_help(sess.table, stdout, NULL, 0);
	printf("  watch\n\tprint cluster log events and health changes "
	    "until interrupted (-w)\n");
	printf("  raw JSON\n\tsend one command object as written and print "
	    "the reply's data\n");
	printf("  help [COMMAND...]\n\tshow the usage of the matching "
	    "commands\n");
	mapmon_exit(0);
}

/* Words as one string, for messages. */
static char *
mapmon_join(char *const *words, size_t n)
{
	char *s = xstrdup(""), *tmp;
	size_t i;

	for (i = 0; i < n; i++) {
		xasprintf(&tmp, "%s%s%s", s, i ? " " : "", words[i]);
		free(s);
		s = tmp;
	}
	return s;
}

/*
 * A mistyped command, as Ceph's CLI answers one: the closest signatures,
 * then EINVAL.
 */
#define MAPMON_CLOSEST 10
static mapmon_dead void
mapmon_no_command(char *const *words, size_t n)
{
	const struct cli_cmd *near[MAPMON_CLOSEST];
	size_t i, k;

	k = cli_table_closest(sess.table, words, n, near, nitems(near));
	if (k > 0) {
		fprintf(stderr,
		    "no valid command found; %zu closest "
		    "match%s:\n",
		    k, k == 1 ? "" : "es");
		for (i = 0; i < k; i++)
			fprintf(stderr, "%s\n", near[i]->usage);
	} else
		fprintf(stderr,
		    "no valid command found (mapmon -h lists "
		    "the commands)\n");
	fprintf(stderr, "Error EINVAL: invalid command\n");
	mapmon_exit(EINVAL);
}

/*
 * `mapmon help WORDS` and `mapmon WORDS --help`: the whole help of the
 * command WORDS name (its arguments' ranges and choices), else the usage
 * of every command they begin, else the closest ones.
 */
static mapmon_dead void
mapmon_help_words(char *const *words, size_t n)
{
	const struct cli_cmd *c;
	size_t used;

	if (n > 0 &&
	    (c = cli_table_match(sess.table, words, n, &used)) != NULL &&
	    (used == n || cli_table_continuations(sess.table, words, n) == 0)) {
		cli_cmd_print_help(c, stdout);
		mapmon_exit(0);
	}
	if (cli_table_print_help(sess.table, stdout, words, n) > 0)
		mapmon_exit(0);
	mapmon_no_command(words, n);
}

/* Match words against the table, or exit with a usage error. */
static const struct cli_cmd *
mapmon_match(char *const *words, size_t n, json_t **cmd)
{
	const struct cli_cmd *c;
	char *cause = NULL, *joined;
	size_t used, k;

	c = cli_table_match(sess.table, words, n, &used);
	if (c == NULL) {
		joined = mapmon_join(words, n);
		/* Incomplete ("osd pool"): say so and list what follows. */
		for (k = n; k > 0; k--)
			if (cli_table_continuations(sess.table, words, k) > 0)
				break;
		if (k > 0 && k == n) {
			/* EINVAL, as Ceph's CLI answers any unknown command. */
			fprintf(stderr, "mapmon: incomplete command '%s'; one "
			    "of:\n", joined);
			free(joined);
			cli_table_print_help(sess.table, stderr, words, k);
			mapmon_exit(EINVAL);
		}
		if (words[0][0] == '-')
			mapmon_usage_error(NULL, "unknown option '%s'",
			    words[0]);
		free(joined);
		mapmon_no_command(words, n);
	}
	if ((*cmd = cli_args_build(c, words + used, n - used, &cause)) ==
	    NULL) {
		fprintf(stderr, "mapmon: %s: %s\n", c->prefix, cause);
		fprintf(stderr, "usage: mapmon %s\n", c->usage);
		free(cause);
		mapmon_exit(EINVAL);
	}
	return c;
}

/* `raw JSON`: send the object as written, print the reply's data. */
static mapmon_dead void
mapmon_raw(char *const *words, size_t n)
{
	json_error_t err;
	const char *status;
	json_t *cmd, *data;
	int rc;

	if (n != 1)
		mapmon_invalid("raw JSON",
		    n == 0 ? "raw: missing the "
			     "command object" :
			     "raw: one JSON object expected, as one "
			     "argument");
	if ((cmd = json_loads(words[0], JSON_REJECT_DUPLICATES, &err)) ==
	    NULL)
		mapmon_invalid("raw JSON",
		    "raw: bad JSON at column %d: "
		    "%s",
		    err.column, err.text);
	if (!json_is_object(cmd)) {
		json_decref(cmd);
		mapmon_invalid("raw JSON", "raw: a JSON object expected");
	}
	rc = mapmon_call(cmd, &data, &status);
	json_decref(cmd);
	if (rc < 0)
		mapmon_refused(rc, status);
	if (data != NULL) {
		if (opts.format == FORMAT_JSON)
			mapmon_print("raw", NULL, data);
		else {
			opts.format = FORMAT_JSON_PRETTY;
			mapmon_print("raw", NULL, data);
		}
	}
	mapmon_exit(0);
}

/* Watch: print each push, as it arrives. */
static void
mapmon_watch_health(const json_t *health)
{
	char stamp[STAMP_BUFSIZE];

	if (opts.format != FORMAT_PLAIN) {
		mapmon_print("health", NULL, health);
		return;
	}
	printf("%s health: ", stamp_format(stamp_now(), stamp, sizeof stamp));
	mapmon_fmt_health_line(stdout, health);
}

static void
mapmon_watch_push(void *arg, json_t *obj)
{
	const char *what = json_string_value(json_object_get(obj, "what"));
	json_t *e;
	size_t i;

	(void)arg;
	if (what == NULL)
		return;
	if (strcmp(what, "log") == 0) {
		json_array_foreach(json_object_get(obj, "entries"), i, e) {
			if (opts.format == FORMAT_PLAIN)
				mapmon_fmt_log_entry(stdout, e, sess.who);
			else
				mapmon_print("log", NULL, e);
		}
	} else if (strcmp(what, "health") == 0)
		mapmon_watch_health(json_object_get(obj, "health"));
	fflush(stdout);
}

static void
mapmon_on_signal(evutil_socket_t fd, short events, void *arg)
{
	(void)fd;
	(void)events;
	(void)arg;
	sess.stop = 1;
	event_base_loopbreak(sess.base);
}

static const char *mapmon_who(void);

/* The watch's session: what happens to its monitors, on stderr. */
static void
mapmon_watch_event(void *arg, enum hunt_event ev, const char *addr, int err,
    const char *msg)
{
	int *lost = arg;

	switch (ev) {
	case HUNT_CONNECTED:
		if (*lost)
			fprintf(stderr,
			    "mapmon: watching through the monitor at %s\n",
			    addr);
		*lost = 0;
		break;
	case HUNT_LOST:
		*lost = 1;
		fprintf(stderr,
		    "mapmon: lost the monitor at %s (%s); hunting for "
		    "another\n",
		    addr, msg != NULL ? msg : strerror(-err));
		break;
	case HUNT_FAILED:
		/* A key refused: every monitor of the quorum knows it. */
		if (err == -EACCES)
			mapmon_conn_failed(err, msg);
		break;
	case HUNT_REFUSED:
		mapmon_refused(err, msg);
	}
	fflush(stderr);
}

/*
 * The newest cluster log entry's seq, for a watch that resumes on another
 * monitor with every entry after it; -1 when it cannot be had.
 */
static int64_t
mapmon_watch_seq(void)
{
	const char *status;
	json_t *cmd, *data, *e;
	int64_t seq = -1;

	cmd = json_pack("{s:s, s:i, s:s}", "prefix", "log last", "num", 1,
	    "level", "debug");
	if (mapmon_call(cmd, &data, &status) == 0) {
		e = json_array_get(data, json_array_size(data) - 1);
		seq = json_is_integer(json_object_get(e, "seq")) ?
		    (int64_t)json_integer_value(json_object_get(e, "seq")) :
		    0;
	}
	json_decref(cmd);
	return seq;
}

/*
 * Watch through every monitor given, in turn (net/hunt.h): when the one
 * watched is lost, the next that answers carries on from the last log
 * entry printed, with no entry missed or printed twice.  Only a signal,
 * or a refusal, ends it.
 */
static mapmon_dead void
mapmon_watch(size_t nargs)
{
	struct hunt *h;
	char *list = NULL, *t, *cause = NULL;
	int64_t seq;
	size_t i;
	int lost = 0;

	if (nargs > 0)
		mapmon_invalid("watch", "watch: takes no arguments");
	sess.sigint = evsignal_new(sess.base, SIGINT, mapmon_on_signal, NULL);
	sess.sigterm = evsignal_new(sess.base, SIGTERM, mapmon_on_signal,
	    NULL);
	evsignal_add(sess.sigint, NULL);
	evsignal_add(sess.sigterm, NULL);
	if (opts.format == FORMAT_PLAIN)
		mapmon_who();
	seq = mapmon_watch_seq();
	/* The monitor that answered first, then the others in their order. */
	list = xstrdup(sess.addr);
	for (i = 0; i < sess.naddrs; i++) {
		if (strcmp(sess.addrs[i], sess.addr) == 0)
			continue;
		xasprintf(&t, "%s,%s", list, sess.addrs[i]);
		free(list);
		list = t;
	}
	mclient_free(sess.cl);
	sess.cl = NULL;
	evtimer_del(sess.deadline);
	if ((h = hunt_new(sess.base, list, opts.timeout_ms, mapmon_watch_event,
		 &lost, &cause)) == NULL)
		mapmon_usage_error(NULL, "%s", cause);
	free(list);
	if (opts.name != NULL)
		hunt_set_name(h, opts.name);
	(void)hunt_subscribe(h, "log", seq, mapmon_watch_push, NULL);
	(void)hunt_subscribe(h, "health", -1, mapmon_watch_push, NULL);
	while (!sess.stop)
		event_base_loop(sess.base, EVLOOP_ONCE);
	hunt_free(h);
	mapmon_exit(0);
}

static int mapmon_map_ready;
static int mapmon_map_err;
static char *mapmon_map_msg;

static void
mapmon_map_update(void *arg, const struct osdmap *m)
{
	(void)arg;
	(void)m;
	mapmon_map_ready = 1;
	event_base_loopbreak(sess.base);
}

static void
mapmon_map_error(void *arg, int err, const char *msg)
{
	(void)arg;
	mapmon_map_err = err;
	free(mapmon_map_msg);
	mapmon_map_msg = xstrdup(msg);
	event_base_loopbreak(sess.base);
}

/* "mon.a": who writes the cluster log, for its lines. */
static const char *
mapmon_who(void)
{
	const char *status, *name;
	json_t *cmd, *data;

	if (sess.who != NULL)
		return sess.who;
	/* The monitor's HELLO names it; an older one is asked. */
	name = json_string_value(json_object_get(
	    mclient_server_hello(sess.cl), "mon"));
	if (name != NULL) {
		xasprintf(&sess.who, "mon.%s", name);
		return sess.who;
	}
	cmd = json_pack("{s:s}", "prefix", "mon stat");
	if (mapmon_call(cmd, &data, &status) == 0 &&
	    (name = json_string_value(json_array_get(json_object_get(data,
	    "quorum_names"), 0))) != NULL)
		xasprintf(&sess.who, "mon.%s", name);
	else
		sess.who = xstrdup("mon");
	json_decref(cmd);
	return sess.who;
}

/*
 * `pg map PGID`, computed here: subscribe to the osdmap, and map the PG
 * with the placement of the map received; no `pg map` round trip.
 */
static mapmon_dead void
mapmon_pg_map(const json_t *cmd)
{
	const char *pgid = json_string_value(json_object_get(cmd, "pgid"));
	struct pg_id id;
	json_t *data;
	char *cause = NULL;
	int rc;

	if (pg_id_parse(pgid != NULL ? pgid : "", &id, &cause) == -1) {
		fprintf(stderr, "Error EINVAL: %s\n", cause);
		free(cause);
		mapmon_exit(EINVAL);
	}
	sess.cache = osdmap_cache_new(sess.cl, mapmon_map_update,
	    mapmon_map_error, NULL);
	if (osdmap_cache_start(sess.cache) == -1)
		mapmon_conn_failed(sess.conn_err ? sess.conn_err :
		    -ECONNRESET, sess.conn_msg);
	while (!mapmon_map_ready && mapmon_map_err == 0) {
		if (sess.timed_out)
			mapmon_timed_out();
		if (sess.conn_err != 0)
			mapmon_conn_failed(sess.conn_err, sess.conn_msg);
		event_base_loop(sess.base, EVLOOP_ONCE);
	}
	if (!mapmon_map_ready) {
		if (sess.conn_err != 0)
			mapmon_conn_failed(sess.conn_err, sess.conn_msg);
		fprintf(stderr, "mapmon: %s\n", mapmon_map_msg);
		free(mapmon_map_msg);
		mapmon_exit(-mapmon_map_err > 0 && -mapmon_map_err < 256 ?
		    -mapmon_map_err : 1);
	}
	data = osdmap_cache_pg_map_json(sess.cache, id.pool, id.seed, &rc,
	    &cause);
	if (data == NULL) {
		fprintf(stderr, "Error %s: %s\n",
		    mapmon_errno_name(-rc) != NULL ?
		    mapmon_errno_name(-rc) : "", cause);
		free(cause);
		mapmon_exit(-rc);
	}
	mapmon_print("pg map", cmd, data);
	json_decref(data);
	mapmon_exit(0);
}

int
main(int argc, char **argv)
{
	const struct cli_cmd *c;
	const char *status;
	char **words, *host = NULL, *cause = NULL;
	json_t *data, *e;
	uint16_t port;
	size_t n, i;
	int rc;

	signal(SIGPIPE, SIG_IGN);
	words = sess.words = xcalloc((size_t)argc + 1, sizeof *words);
	n = mapmon_parse_opts(argc, argv, words);
	/*
	 * -o FILE, as ceph's: opened before the command is sent (a file that
	 * cannot be made stops it: exit 1), the output written there, the
	 * status still on standard error; "-" is standard output.
	 */
	if (opts.out_file != NULL && strcmp(opts.out_file, "-") != 0 &&
	    freopen(opts.out_file, "w", stdout) == NULL) {
		fprintf(stderr, "mapmon: can't open %s: %s\n", opts.out_file,
		    strerror(errno));
		mapmon_exit(1);
	}
	if (opts.version) {
		/* Ceph's line: "ceph version 16.2.15 ...". */
		printf("mapmon version %s\n", PACKAGE_VERSION);
		mapmon_exit(0);
	}
	mapmon_split_addrs(mapmon_resolve_addr());
	for (i = 0; i < sess.naddrs; i++) {
		if (mclient_parse_addr(sess.addrs[i], &host, &port, &cause) ==
		    -1)
			mapmon_usage_error(NULL, "%s", cause);
		free(host);
	}
	sess.addr = xstrdup(sess.addrs[0]);
	sess.tried = 1;
	mapmon_resolve_auth();
	mapmon_resolve_tls();
	if (opts.help && n == 0)
		mapmon_help();
	if (n == 0 && !opts.list_commands && !opts.list_args)
		mapmon_usage_error(NULL, "no command given");
	mapmon_connect();

	if (n > 0 && strcmp(words[0], "raw") == 0)
		mapmon_raw(words + 1, n - 1);
	if (n > 0 && strcmp(words[0], "watch") == 0)
		mapmon_watch(n - 1);

	mapmon_fetch_table();
	if (opts.list_commands) {
		for (i = 0; i < sess.table->ncmds; i++)
			if (!(sess.table->cmds[i].flags & CLI_CMD_HIDDEN))
				printf("%s\n", sess.table->cmds[i].prefix);
		printf("watch\nraw\nhelp\n");
		mapmon_exit(0);
	}
	if (opts.list_args) {
		cli_table_print_args(sess.table, stdout);
		mapmon_exit(0);
	}
	if (strcmp(words[0], "help") == 0)
		mapmon_help_words(words + 1, n - 1);
	if (opts.help)
		mapmon_help_words(words, n);

	c = mapmon_match(words, n, &sess.cmd);
	if (opts.linearizable)
		json_object_set_new(sess.cmd, "linearizable", json_true());
	/* As Ceph's CLI: the monitor words some answers for the form. */
	if (opts.format != FORMAT_PLAIN)
		json_object_set_new(sess.cmd, "format",
		    json_string(
			opts.format == FORMAT_JSON ? "json" : "json-pretty"));
	if (strcmp(c->prefix, "pg map") == 0)
		mapmon_pg_map(sess.cmd);
	rc = mapmon_call(sess.cmd, &data, &status);
	if (rc < 0)
		mapmon_refused(rc, status);
	if (c->flags & (CLI_CMD_WRITE | CLI_CMD_ADMIN)) {
		/* As ceph: the status on stderr, data only where meant. */
		if (*status != '\0')
			fprintf(stderr, "%s\n", status);
		if (opts.format != FORMAT_PLAIN ||
		    mapmon_fmt_data_for_stdout(c->prefix))
			mapmon_print(c->prefix, sess.cmd, data);
	} else if (opts.format == FORMAT_PLAIN &&
	    strcmp(c->prefix, "log last") == 0) {
		json_array_foreach(data, i, e)
			mapmon_fmt_log_entry(stdout, e, mapmon_who());
	} else {
		if (mapmon_fmt_status_to_stderr(c->prefix) && *status != '\0')
			fprintf(stderr, "%s\n", status);
		mapmon_print(c->prefix, sess.cmd, data);
	}
	mapmon_exit(0);
}
