/*
 * test_cmd.c: the daemon's command table, dispatch and subscriptions,
 * through the real mapmond.
 *
 * Each test makes a data directory with `mapmond --mkfs` ([store] sync =
 * none, the backend TEST_BACKEND), starts `mapmond -d` on port 0, reads the
 * port it bound from its log, and drives it with the client library
 * (net/client.h): mclient_call() for commands, the asynchronous API for
 * subscriptions and binary requests, as client.admin with the key mkfs
 * wrote (MAPMON_KEYRING; raw sockets do the handshake by hand).  The
 * fixture always kills the daemon and removes the directory.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <event2/event.h>
#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "map/pg.h"
#include "daemon/sub.h"
#include "common/b64.h"
#include "net/client.h"
#include "net/frame.h"
#include "net/keyring.h"
#include "net/seal.h"

#ifndef TEST_BACKEND
#define TEST_BACKEND "lmdb"
#endif

#define CALL_TIMEOUT_MS 10000

struct daemon {
	char dir[64];
	char conf[128];
	char log[128];
	char addr[64];
	pid_t pid;
};

static struct daemon D;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *
mapmond_path(void)
{
	static char path[512];
	const char *b = getenv("top_builddir");

	snprintf(path, sizeof path, "%s/daemon/mapmond", b ? b : ".");
	return path;
}

/* Write the config: the test's defaults, then extra lines (a format). */
static void
write_conf(struct daemon *d, const char *extra)
{
	FILE *f = fopen(d->conf, "w");

	cr_assert_not_null(f);
	fprintf(f,
	    "[mon]\ndata = %s/data\n%s\n"
	    "propose_interval = 2ms\n"
	    /* The host's free space is not the test's: no MON_DISK_LOW. */
	    "data_avail_warn = 1\ndata_avail_crit = 0\n"
	    "%s\n[auth]\nkeyring = %s/keyring\n"
	    "[store]\nbackend = %s\nsync = none\n[log]\ndebug_mon = 1/5\n",
	    d->dir,
	    extra != NULL && strstr(extra, "bind") != NULL ?
		"" :
		"bind = 127.0.0.1:0",
	    extra ? extra : "", d->dir, TEST_BACKEND);
	fclose(f);
}

/* Run mapmond with args; its exit status (stdout/stderr to the log). */
static int
run_mapmond(struct daemon *d, const char *a1, const char *a2)
{
	pid_t pid;
	int st, fd;

	pid = fork();
	cr_assert(pid != -1);
	if (pid == 0) {
		fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(mapmond_path(), "mapmond", "-c", d->conf, a1, a2,
		    (char *)NULL);
		_exit(127);
	}
	cr_assert(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *
read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (f == NULL)
		return xstrdup("");
	buf = xcalloc(1, 1 << 20);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * Start the daemon; wait for its "listening on" line for the newest start
 * (the log is appended to across restarts).  Returns 0, or the exit status
 * when it exited first.
 */
static int
start_daemon(struct daemon *d)
{
	const char *p, *last;
	char *log;
	double deadline = now_s() + 10;
	size_t before;
	int st, fd;

	log = read_file(d->log);
	before = strlen(log);
	free(log);
	d->pid = fork();
	cr_assert(d->pid != -1);
	if (d->pid == 0) {
		fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(mapmond_path(), "mapmond", "-d", "-c", d->conf,
		    (char *)NULL);
		_exit(127);
	}
	while (now_s() < deadline) {
		if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
			d->pid = 0;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		}
		log = read_file(d->log);
		last = NULL;
		for (p = log + before; (p = strstr(p, "listening on ")) != NULL;
		    p++)
			last = p;
		if (last != NULL) {
			unsigned port = 0;

			if (sscanf(last, "listening on 127.0.0.1:%u", &port) ==
			    1) {
				snprintf(d->addr, sizeof d->addr,
				    "127.0.0.1:%u", port);
				free(log);
				return 0;
			}
		}
		free(log);
		usleep(10000);
	}
	cr_assert_fail("mapmond did not start listening within 10 s");
	return -1;
}

/* SIGTERM (or sig); the exit status, and the seconds it took. */
static int
stop_daemon(struct daemon *d, int sig, double *took)
{
	double t0 = now_s();
	int st;

	if (d->pid <= 0)
		return -1;
	kill(d->pid, sig);
	while (now_s() - t0 < 10) {
		if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
			d->pid = 0;
			if (took != NULL)
				*took = now_s() - t0;
			return WIFEXITED(st) ? WEXITSTATUS(st) :
			    128 + WTERMSIG(st);
		}
		usleep(5000);
	}
	kill(d->pid, SIGKILL);
	waitpid(d->pid, &st, 0);
	d->pid = 0;
	return -1;
}

static void
daemon_make(struct daemon *d, const char *extra)
{
	char path[160];

	memset(d, 0, sizeof *d);
	snprintf(d->dir, sizeof d->dir, "/tmp/test_cmd.XXXXXX");
	cr_assert_not_null(mkdtemp(d->dir));
	snprintf(d->conf, sizeof d->conf, "%s/mapmon.conf", d->dir);
	snprintf(d->log, sizeof d->log, "%s/log", d->dir);
	write_conf(d, extra);
	cr_assert_eq(run_mapmond(d, "--mkfs", NULL), 0, "mapmond --mkfs");
	/* Every client of the test is the admin (read at the first). */
	snprintf(path, sizeof path, "%s/keyring", d->dir);
	setenv("MAPMON_KEYRING", path, 1);
}

static void
daemon_destroy(struct daemon *d)
{
	char cmd[128];

	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
		d->pid = 0;
	}
	if (d->dir[0] != '\0') {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", d->dir);
	}
}

static void
setup(void)
{
	daemon_make(&D, NULL);
	cr_assert_eq(start_daemon(&D), 0, "mapmond started");
}

/*
 * Every test ends with a clean SIGTERM: exit 0 within 5 s, and nothing
 * from the sanitizers in the log (an ASan build reports leaks at exit).
 */
static void
teardown(void)
{
	double took = 0;
	char *log;
	int rc = 0, ran = D.pid > 0;

	if (ran)
		rc = stop_daemon(&D, SIGTERM, &took);
	log = read_file(D.log);
	if (ran && (rc != 0 || took >= 5.0))
		fprintf(stderr, "%s\n", log);
	cr_expect(!ran || rc == 0, "mapmond exited %d at SIGTERM", rc);
	cr_expect_lt(took, 5.0, "mapmond took %.1f s to stop", took);
	cr_expect(strstr(log, "Sanitizer") == NULL &&
	    strstr(log, "runtime error") == NULL, "sanitizer report:\n%s",
	    log);
	free(log);
	daemon_destroy(&D);
}

/*
 * One command, written as JSON text from fmt: *text (the caller frees it),
 * *data and *status as the monitor answered (the caller's), and rc.
 */
static int
vcall(char **text, json_t **data, char **status, const char *fmt, va_list ap)
{
	json_t *cmd;
	json_error_t err;
	int rc;

	xvasprintf(text, fmt, ap);
	cmd = json_loads(*text, 0, &err);
	cr_assert_not_null(cmd, "bad test JSON %s: %s", *text, err.text);
	*data = NULL;
	*status = NULL;
	rc = mclient_call(D.addr, CALL_TIMEOUT_MS, cmd, data, status);
	json_decref(cmd);
	return rc;
}

/* One command, written as JSON text; returns rc, *data and *status. */
static int
call(json_t **data, char **status, const char *fmt, ...)
{
	va_list ap;
	char *text, *st;
	json_t *d;
	int rc;

	va_start(ap, fmt);
	rc = vcall(&text, &d, &st, fmt, ap);
	va_end(ap);
	free(text);
	if (data != NULL)
		*data = d;
	else
		json_decref(d);
	if (status != NULL)
		*status = st;
	else
		free(st);
	return rc;
}

/* A command that must succeed; its data. */
static json_t *
ok(const char *fmt, ...)
{
	va_list ap;
	char *text, *st;
	json_t *d;
	int rc;

	va_start(ap, fmt);
	rc = vcall(&text, &d, &st, fmt, ap);
	va_end(ap);
	cr_assert_eq(rc, 0, "%s: rc %d: %s", text, rc, st);
	free(text);
	free(st);
	return d;
}

/*
 * A command answered rc 0 with status want exactly (Ceph's idempotent
 * answers say so in their status).
 */
static void
said(const char *want, const char *fmt, ...)
{
	va_list ap;
	char *text, *st;
	json_t *d;
	int rc;

	va_start(ap, fmt);
	rc = vcall(&text, &d, &st, fmt, ap);
	va_end(ap);
	cr_assert_eq(rc, 0, "%s: rc %d: %s", text, rc, st);
	cr_assert_str_eq(st != NULL ? st : "", want, "%s", text);
	json_decref(d);
	free(text);
	free(st);
}

/* A command that must be refused with rc and a status holding want. */
static void
refused(int want_rc, const char *want, const char *fmt, ...)
{
	va_list ap;
	char *text, *st;
	json_t *d;
	int rc;

	va_start(ap, fmt);
	rc = vcall(&text, &d, &st, fmt, ap);
	va_end(ap);
	cr_assert_eq(rc, want_rc, "%s: rc %d, wanted %d: %s", text, rc,
	    want_rc, st);
	cr_assert(st != NULL && strstr(st, want) != NULL,
	    "%s: status '%s' does not say '%s'", text, st, want);
	cr_assert_null(d);
	free(text);
	free(st);
}

static json_int_t
jint(json_t *o, const char *path)
{
	char buf[128], *tok, *save = NULL;
	json_t *v = o;

	snprintf(buf, sizeof buf, "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok != NULL;
	    tok = strtok_r(NULL, ".", &save))
		v = json_object_get(v, tok);
	cr_assert(json_is_integer(v), "%s is not an integer", path);
	return json_integer_value(v);
}

static const char *
jstr(json_t *o, const char *path)
{
	char buf[128], *tok, *save = NULL;
	json_t *v = o;

	snprintf(buf, sizeof buf, "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok != NULL;
	    tok = strtok_r(NULL, ".", &save))
		v = json_object_get(v, tok);
	cr_assert(json_is_string(v), "%s is not a string", path);
	return json_string_value(v);
}

/*
 * One OSD (0), booted, and pool "rbd" of pg_num PGs of size 1.  Past 750
 * PGs (250 per OSD, the OSDs counted as 3 at least), max_pg_per_osd is
 * raised first, as an operator would.
 */
static void
cluster_small(int pg_num)
{
	if (pg_num > 750)
		json_decref(ok("{\"prefix\":\"config set\",\"key\":"
		    "\"mon.max_pg_per_osd\",\"value\":\"%d\"}", pg_num));
	json_decref(ok("{\"prefix\":\"osd create\"}"));
	json_decref(ok("{\"prefix\":\"osd boot\",\"id\":0,"
	    "\"addr\":\"127.0.0.1:6800\"}"));
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"rbd\","
	    "\"pg_num\":%d,\"size\":1}", pg_num));
}

/* The count of PGs in a state, from `pg stat`. */
static json_int_t
pgs_in_state(const char *state)
{
	json_t *s = ok("{\"prefix\":\"pg stat\"}"), *v;
	json_int_t n = 0;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(s, "pg_summary"),
			       "num_pg_by_state"),
	    i, v)
		if (strcmp(jstr(v, "name"), state) == 0)
			n = jint(v, "num");
	json_decref(s);
	return n;
}

/* ------------------------------------------------- asynchronous client */

struct aclient {
	struct event_base *base;
	struct event *tick;
	struct mclient *c;
	json_t *pushes;
	int replies;
	int rc;
	char status[512];
	json_t *data;
};

static void
a_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

static void
a_push(void *arg, json_t *obj)
{
	struct aclient *a = arg;

	json_array_append(a->pushes, obj);
}

static void
a_reply(void *arg, int rc, const char *status, json_t *data)
{
	struct aclient *a = arg;

	a->replies++;
	a->rc = rc;
	snprintf(a->status, sizeof a->status, "%s", status ? status : "");
	json_decref(a->data);
	a->data = json_incref(data);
}

static void
a_open(struct aclient *a)
{
	struct timeval tv = { 0, 10000 };

	memset(a, 0, sizeof *a);
	a->base = event_base_new();
	a->tick = event_new(a->base, -1, EV_PERSIST, a_tick, NULL);
	event_add(a->tick, &tv);
	a->c = mclient_new(a->base, D.addr, 5000, NULL, NULL, NULL);
	a->pushes = json_array();
}

static void
a_close(struct aclient *a)
{
	mclient_free(a->c);
	event_free(a->tick);
	event_base_free(a->base);
	json_decref(a->pushes);
	json_decref(a->data);
}

/* Run the loop until replies >= r and pushes >= p, within ms. */
static int
a_wait(struct aclient *a, int r, size_t p, int ms)
{
	double deadline = now_s() + ms / 1000.0;

	while (now_s() < deadline) {
		if (a->replies >= r && json_array_size(a->pushes) >= p)
			return 1;
		event_base_loop(a->base, EVLOOP_ONCE);
	}
	return a->replies >= r && json_array_size(a->pushes) >= p;
}

static void
a_subscribe(struct aclient *a, const char *text)
{
	json_t *cmd = json_loads(text, 0, NULL);

	cr_assert_not_null(cmd);
	cr_assert_eq(mclient_subscribe(a->c, cmd, a_push, a_reply, a), 0);
	json_decref(cmd);
	cr_assert(a_wait(a, 1, 0, 5000), "no reply to %s", text);
	cr_assert_eq(a->rc, 0, "%s: %s", text, a->status);
}

/* The i-th push. */
static json_t *
a_push_at(struct aclient *a, size_t i)
{
	return json_array_get(a->pushes, i);
}

TestSuite(cmd, .init = setup, .fini = teardown, .timeout = 60);

/* ------------------------------------------------------------- table */

static const char *const every_prefix[] = {
	"get_command_descriptions",
	"status",
	"health",
	"health mute",
	"health unmute",
	"version",
	"mon stat",
	"mon dump",
	"quorum_status",
	"mon add",
	"mon rm",
	"mon remove",
	"mon sync",
	"osd create",
	"osd boot",
	"osd down",
	"osd in",
	"osd out",
	"osd reweight",
	"osd rm",
	"osd ls",
	"osd find",
	"osd tree",
	"osd dump",
	"osd getmap",
	"osd stat",
	"osd pause",
	"osd unpause",
	"osd set",
	"osd unset",
	"df",
	"osd df",
	"osd set-full-ratio",
	"osd set-backfillfull-ratio",
	"osd set-nearfull-ratio",
	"osd crush add-bucket",
	"osd crush move",
	"osd crush rm",
	"osd crush remove",
	"osd crush unlink",
	"osd crush add",
	"osd crush set",
	"osd crush create-or-move",
	"osd crush reweight",
	"osd crush set-device-class",
	"osd crush rm-device-class",
	"osd crush class ls",
	"osd crush tree",
	"osd crush dump",
	"osd crush rule create-replicated",
	"osd crush rule ls",
	"osd crush rule dump",
	"osd crush rule rm",
	"osd map",
	"osd pool create",
	"osd pool ls",
	"osd pool rename",
	"osd pool delete",
	"osd pool rm",
	"osd pool set",
	"osd pool get",
	"osd pool application enable",
	"osd pool application disable",
	"osd pool application get",
	"pg stat",
	"pg dump",
	"pg ls",
	"pg ls-by-pool",
	"pg ls-by-primary",
	"pg ls-by-osd",
	"pg query",
	"pg map",
	"pg dump_stuck",
	"osd beacon",
	"osd failure",
	"osd mark-me-down",
	"pg report",
	"log",
	"fsid",
	"report",
	"log last",
	"log dump",
	"config show",
	"config get",
	"config set",
	"config rm",
	"config dump",
	"perf dump",
	"store stat",
	"store compact",
	"auth add",
	"auth get-or-create",
	"auth get",
	"auth get-key",
	"auth ls",
	"auth caps",
	"auth rm",
	"auth rotate",
	"subscribe",
	"mon forward",
	"mon read_index",
};

static json_t *
find_desc(json_t *cmds, const char *prefix)
{
	json_t *v;
	size_t i;

	json_array_foreach(cmds, i, v)
		if (strcmp(jstr(v, "prefix"), prefix) == 0)
			return v;
	return NULL;
}

static int
has_flag(json_t *desc, const char *flag)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(desc, "flags"), i, v)
		if (strcmp(json_string_value(v), flag) == 0)
			return 1;
	return 0;
}

Test(cmd, mon_add_and_rm_alone_answer_as_ceph)
{
	json_t *d = ok("{\"prefix\":\"mon dump\"}");
	json_t *m0 = json_array_get(json_object_get(d, "mons"), 0);
	char name[64], addr[64], want[200];

	snprintf(name, sizeof name, "%s",
	    json_string_value(json_object_get(m0, "name")));
	snprintf(addr, sizeof addr, "%s",
	    json_string_value(json_object_get(m0, "addr")));
	json_decref(d);
	snprintf(want, sizeof want, "mon.%s at %s already exists", name, addr);
	said("mon.zz does not exist or has already been removed",
	    "{\"prefix\":\"mon rm\",\"name\":\"zz\"}");
	refused(-EINVAL, "refusing removal of last monitor",
	    "{\"prefix\":\"mon rm\",\"name\":\"%s\"}", name);
	refused(-EINVAL, "runs alone",
	    "{\"prefix\":\"mon add\",\"name\":\"b\",\"addr\":"
	    "\"127.0.0.1:7000\"}");
	refused(-EINVAL, "does not parse",
	    "{\"prefix\":\"mon add\",\"name\":\"b\",\"addr\":\"nope\"}");
	refused(-EEXIST, "already exists at address",
	    "{\"prefix\":\"mon add\",\"name\":\"%s\",\"addr\":"
	    "\"127.0.0.1:7000\"}",
	    name);
	said(want,
	    "{\"prefix\":\"mon add\",\"name\":\"%s\",\"addr\":"
	    "\"%s\"}",
	    name, addr);
}

Test(cmd, descriptions_list_every_command)
{
	json_t *d = ok("{\"prefix\":\"get_command_descriptions\"}");
	json_t *cmds = json_object_get(d, "commands"), *e, *a;
	size_t i;

	cr_assert_eq(json_array_size(cmds), nitems(every_prefix));
	for (i = 0; i < nitems(every_prefix); i++) {
		e = find_desc(cmds, every_prefix[i]);
		cr_assert_not_null(e, "no description of '%s'",
		    every_prefix[i]);
		cr_assert(json_is_array(json_object_get(e, "args")));
		cr_assert(strlen(jstr(e, "help")) > 0);
		cr_assert(strncmp(jstr(e, "usage"), every_prefix[i],
		    strlen(every_prefix[i])) == 0);
		cr_assert(has_flag(e, "read") || has_flag(e, "write") ||
		    has_flag(e, "admin"), "%s has no read/write/admin flag",
		    every_prefix[i]);
	}
	cr_assert(has_flag(find_desc(cmds, "pg report"), "hidden"));
	cr_assert(has_flag(find_desc(cmds, "osd failure"), "hidden"));
	cr_assert(has_flag(find_desc(cmds, "osd failure"), "write"));
	cr_assert(has_flag(find_desc(cmds, "osd mark-me-down"), "hidden"));
	cr_assert(has_flag(find_desc(cmds, "subscribe"), "hidden"));
	cr_assert(!has_flag(find_desc(cmds, "status"), "hidden"));
	cr_assert(has_flag(find_desc(cmds, "config set"), "admin"));
	cr_assert(has_flag(find_desc(cmds, "osd create"), "write"));

	/* Ceph's order: NAME [PG_NUM [PGP_NUM]] [replicated] [RULE]. */
	e = find_desc(cmds, "osd pool create");
	a = json_array_get(json_object_get(e, "args"), 1);
	cr_assert_str_eq(jstr(a, "name"), "pg_num");
	cr_assert_str_eq(jstr(a, "type"), "int");
	cr_assert(!json_is_true(json_object_get(a, "required")));
	cr_assert_eq(jint(a, "min"), 0);
	a = json_array_get(json_object_get(e, "args"), 2);
	cr_assert_str_eq(jstr(a, "name"), "pgp_num");
	a = json_array_get(json_object_get(e, "args"), 3);
	cr_assert_str_eq(jstr(a, "name"), "pool_type");
	cr_assert_str_eq(jstr(a, "type"), "choice");
	a = json_array_get(json_object_get(e, "args"), 4);
	cr_assert_str_eq(jstr(a, "name"), "rule");
	a = json_array_get(json_object_get(e, "args"), 5);
	cr_assert_str_eq(jstr(a, "name"), "size");
	cr_assert_str_eq(jstr(a, "option"), "--size");
	e = find_desc(cmds, "osd down");
	a = json_array_get(json_object_get(e, "args"), 0);
	cr_assert_str_eq(jstr(a, "type"), "osds");
	cr_assert_eq(json_array_size(json_object_get(a, "choices")), 3);
	e = find_desc(cmds, "osd pool set");
	a = json_array_get(json_object_get(e, "args"), 2);
	cr_assert_str_eq(jstr(a, "type"), "value");
	e = find_desc(cmds, "osd pool delete");
	a = json_array_get(json_object_get(e, "args"), 2);
	cr_assert_str_eq(jstr(a, "type"), "flag");
	cr_assert_str_eq(jstr(a, "option"), "--yes-i-really-really-mean-it");
	/* Ceph's "pg ls [<pool:int>] [<states>...]", and mapmon's --pool. */
	e = find_desc(cmds, "pg ls");
	a = json_array_get(json_object_get(e, "args"), 0);
	cr_assert_str_eq(jstr(a, "name"), "pool");
	cr_assert_str_eq(jstr(a, "type"), "int");
	a = json_array_get(json_object_get(e, "args"), 1);
	cr_assert_str_eq(jstr(a, "type"), "strings");
	a = json_array_get(json_object_get(e, "args"), 2);
	cr_assert_str_eq(jstr(a, "option"), "--pool");
	/* Ceph's CephOsdName and CephChoices n=N. */
	e = find_desc(cmds, "pg ls-by-osd");
	a = json_array_get(json_object_get(e, "args"), 0);
	cr_assert_str_eq(jstr(a, "type"), "osd");
	e = find_desc(cmds, "pg dump_stuck");
	a = json_array_get(json_object_get(e, "args"), 0);
	cr_assert_str_eq(jstr(a, "type"), "strings");
	cr_assert_eq(json_array_size(json_object_get(a, "choices")), 5);
	e = find_desc(cmds, "osd set");
	a = json_array_get(json_object_get(e, "args"), 0);
	cr_assert_eq(json_array_size(json_object_get(a, "choices")), 5);
	json_decref(d);
}

/*
 * What a quorum adds, on one monitor: a read may ask to be linearizable
 * (one monitor is its own leader), the read index is 0, and a forward is
 * taken from mon. only (mapmon-protocol(7), FORWARDING; the quorum's
 * e2e test, mon_quorum.sh, forwards for real).
 */
Test(cmd, forward_and_linearizable_one_monitor)
{
	json_t *d;

	d = ok("{\"prefix\":\"osd stat\",\"linearizable\":true}");
	cr_assert(jint(d, "epoch") >= 1);
	json_decref(d);
	refused(-EINVAL, "\"linearizable\" must be a boolean",
	    "{\"prefix\":\"osd stat\",\"linearizable\":\"yes\"}");
	d = ok("{\"prefix\":\"mon read_index\"}");
	cr_assert_eq(jint(d, "index"), 0);
	json_decref(d);
	refused(-EACCES, "client.admin may not forward commands (mon. only)",
	    "{\"prefix\":\"mon forward\",\"cmd\":{\"prefix\":"
	    "\"osd create\"}}");
	refused(-EINVAL, "mon forward: missing argument 'cmd'",
	    "{\"prefix\":\"mon forward\"}");
	/* A bad command is EINVAL before the sender is looked at. */
	refused(-EINVAL, "mon forward: a command must be a JSON object",
	    "{\"prefix\":\"mon forward\",\"cmd\":\"1\"}");
	refused(-EINVAL, "is not a change",
	    "{\"prefix\":\"mon forward\",\"cmd\":{\"prefix\":"
	    "\"osd stat\"}}");
}

Test(cmd, unknown_command_suggests)
{
	refused(-EINVAL, "unknown command 'statuss'; did you mean 'status'?",
	    "{\"prefix\":\"statuss\"}");
	refused(-EINVAL, "did you mean 'osd pool create'",
	    "{\"prefix\":\"osd pool craete\"}");
	refused(-EINVAL, "unknown command 'frobnicate the cluster'",
	    "{\"prefix\":\"frobnicate the cluster\"}");
	refused(-EINVAL, "no \"prefix\"", "{\"pool\":\"x\"}");
	refused(-EINVAL, "\"prefix\" must be a string", "{\"prefix\":3}");
}

Test(cmd, strict_arguments)
{
	refused(-EINVAL, "osd create: unknown argument 'idd'",
	    "{\"prefix\":\"osd create\",\"idd\":1}");
	refused(-EINVAL, "status: unknown argument 'x' (it takes no",
	    "{\"prefix\":\"status\",\"x\":1}");
	refused(-EINVAL, "argument 'id' must be an integer, not a string",
	    "{\"prefix\":\"osd create\",\"id\":\"1\"}");
	refused(-EINVAL,
	    "argument 'id' must be an osd id (N or osd.N), not a "
	    "number",
	    "{\"prefix\":\"osd boot\",\"id\":1.5}");
	refused(-EINVAL, "missing argument 'pool'",
	    "{\"prefix\":\"osd pool create\",\"pg_num\":8}");
	refused(-EINVAL,
	    "argument 'pg_num' must be between 0 and 2147483647, "
	    "not -1",
	    "{\"prefix\":\"osd pool create\",\"pool\":\"p\","
	    "\"pg_num\":-1}");
	refused(-EINVAL, "argument 'pool' must be a string, not an integer",
	    "{\"prefix\":\"osd pool create\",\"pool\":1,\"pg_num\":1}");
	refused(-EINVAL, "argument 'weight' must be between 0 and 1",
	    "{\"prefix\":\"osd reweight\",\"id\":0,\"weight\":1.5}");
	refused(-EINVAL, "argument 'weight' must be a number",
	    "{\"prefix\":\"osd reweight\",\"id\":0,\"weight\":\"1\"}");
	refused(-EINVAL, "argument 'key' must be one of noout, noup",
	    "{\"prefix\":\"osd set\",\"key\":\"nosuch\"}");
	refused(-EINVAL, "argument 'ids' needs at least one",
	    "{\"prefix\":\"osd down\",\"ids\":[]}");
	refused(-EINVAL,
	    "argument 'ids' item 1 must be an osd id (N or "
	    "osd.N), not 'a'",
	    "{\"prefix\":\"osd down\",\"ids\":[0,\"a\"]}");
	refused(-EINVAL, "argument 'ids' item 0 must be between 0 and 65535",
	    "{\"prefix\":\"osd out\",\"ids\":[70000]}");
	refused(-EINVAL, "argument 'ids' must be an array",
	    "{\"prefix\":\"osd in\",\"ids\":3}");
	refused(-EINVAL, "argument 'states' item 0 must be a string",
	    "{\"prefix\":\"pg ls\",\"states\":[1]}");
	refused(-EINVAL, "must be a boolean", "{\"prefix\":\"osd pool "
	    "delete\",\"pool\":\"a\",\"yes_i_really_really_mean_it\":1}");
	refused(-EINVAL, "argument 'num' must be between 1 and 10000",
	    "{\"prefix\":\"log last\",\"num\":0}");
	refused(-EINVAL, "argument 'what' must be one of osdmap",
	    "{\"prefix\":\"subscribe\",\"what\":\"everything\"}");
	/* Bounds are exact past 2^53, where a double is not. */
	refused(-EINVAL, "argument 'start' must be between 0 and "
	    "9007199254740992, not 9007199254740993", "{\"prefix\":"
	    "\"subscribe\",\"what\":\"osdmap\",\"start\":9007199254740993}");
	/* A refusal is counted against its command. */
	{
		json_t *p = ok("{\"prefix\":\"perf dump\"}");

		cr_assert_eq(jint(p, "commands.osd create.errors"), 2);
		cr_assert_eq(jint(p, "commands.osd create.calls"), 2);
		json_decref(p);
	}
}

/* --------------------------------------------------------------- reads */

Test(cmd, hello_names_the_monitor)
{
	struct aclient a;
	json_t *h, *st;

	a_open(&a);
	while (!mclient_ready(a.c))
		cr_assert(event_base_loop(a.base, EVLOOP_ONCE) == 0);
	h = mclient_server_hello(a.c);
	cr_assert_eq(jint(h, "protocol"), 1);
	cr_assert_str_eq(jstr(h, "server"), "mapmon " PACKAGE_VERSION);
	cr_assert_str_eq(jstr(h, "mon"), "a");
	st = ok("{\"prefix\":\"status\"}");
	cr_assert_str_eq(jstr(h, "fsid"), jstr(st, "fsid"));
	json_decref(st);
	a_close(&a);
}

Test(cmd, status_health_version_mon)
{
	json_t *d;
	char *status;

	cluster_small(8);
	d = ok("{\"prefix\":\"status\"}");
	cr_assert_eq(strlen(jstr(d, "fsid")), 36);
	cr_assert_str_eq(jstr(d, "health.status"), "HEALTH_WARN");
	cr_assert(json_is_object(json_object_get(json_object_get(d, "health"),
	    "checks")));
	cr_assert_eq(jint(d, "monmap.epoch"), 1);
	cr_assert_eq(jint(d, "osdmap.num_osds"), 1);
	cr_assert_eq(jint(d, "osdmap.num_up_osds"), 1);
	cr_assert_eq(jint(d, "osdmap.num_in_osds"), 1);
	cr_assert_geq(jint(d, "osdmap.epoch"), 4);
	cr_assert_eq(jint(d, "pgmap.num_pgs"), 8);
	cr_assert_eq(jint(d, "pgmap.num_pools"), 1);
	cr_assert(json_is_integer(json_object_get(json_object_get(d, "pgmap"),
	    "num_objects")));
	cr_assert(json_is_integer(json_object_get(json_object_get(d, "pgmap"),
	    "data_bytes")));
	cr_assert_eq(json_array_size(json_object_get(json_object_get(d,
	    "pgmap"), "pgs_by_state")), 1);
	/* Ceph's one-monitor quorum at the top (seen on ceph 16.2.15). */
	cr_assert_eq(
	    json_integer_value(json_array_get(json_object_get(d, "quorum"), 0)),
	    0);
	cr_assert_str_eq(json_string_value(json_array_get(
			     json_object_get(d, "quorum_names"), 0)),
	    "a");
	cr_assert_eq(jint(d, "election_epoch"), 1);
	cr_assert(json_is_integer(json_object_get(d, "quorum_age")));
	/* Every PG creating: Ceph's unknown/inactive ratio beside. */
	cr_assert(json_is_number(json_object_get(json_object_get(d, "pgmap"),
	    "inactive_pgs_ratio")));
	/* The health of status is `health''s, without details. */
	cr_assert_null(json_object_get(
	    json_object_get(
		json_object_get(json_object_get(d, "health"), "checks"),
		"PG_AVAILABILITY"),
	    "detail"));
	json_decref(d);

	/* Ceph splits them: detail only with detail; "muted"; "mutes". */
	d = ok("{\"prefix\":\"health\"}");
	cr_assert_str_eq(jstr(d, "status"), "HEALTH_WARN");
	cr_assert_str_eq(jstr(d, "checks.PG_AVAILABILITY.severity"),
	    "HEALTH_WARN");
	cr_assert_eq(jint(d, "checks.PG_AVAILABILITY.summary.count"), 8);
	cr_assert_null(json_object_get(
	    json_object_get(json_object_get(d, "checks"), "PG_AVAILABILITY"),
	    "detail"));
	cr_assert(json_is_false(json_object_get(
	    json_object_get(json_object_get(d, "checks"), "PG_AVAILABILITY"),
	    "muted")));
	cr_assert_eq(json_array_size(json_object_get(d, "mutes")), 0);
	json_decref(d);
	d = ok("{\"prefix\":\"health\",\"detail\":\"detail\"}");
	cr_assert_eq(json_array_size(json_object_get(json_object_get(
	    json_object_get(d, "checks"), "PG_AVAILABILITY"), "detail")), 8);
	json_decref(d);
	refused(-EINVAL, "must be one of detail",
	    "{\"prefix\":\"health\",\"detail\":\"all\"}");

	/* Ceph's line: "ceph version 16.2.15 (...)". */
	cr_assert_eq(call(&d, &status, "{\"prefix\":\"version\"}"), 0);
	cr_assert_str_eq(jstr(d, "version"), "mapmon version " PACKAGE_VERSION);
	cr_assert_str_eq(status, "mapmon version " PACKAGE_VERSION);
	free(status);
	json_decref(d);

	/* Ceph's {"epoch", "num_mons", "leader", "quorum": [{rank, name}]}. */
	d = ok("{\"prefix\":\"mon stat\"}");
	cr_assert_eq(jint(d, "num_mons"), 1);
	cr_assert_str_eq(jstr(d, "leader"), "a");
	cr_assert_eq(
	    jint(json_array_get(json_object_get(d, "quorum"), 0), "rank"), 0);
	cr_assert_str_eq(
	    jstr(json_array_get(json_object_get(d, "quorum"), 0), "name"), "a");
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(d,
	    "quorum_names"), 0)), "a");
	json_decref(d);
	d = ok("{\"prefix\":\"mon dump\"}");
	cr_assert_eq(jint(d, "epoch"), 1);
	cr_assert_eq(json_array_size(json_object_get(d, "mons")), 1);
	/* Ceph's mon dump names the ranks in quorum: one monitor's own. */
	cr_assert_eq(json_array_size(json_object_get(d, "quorum")), 1);
	cr_assert_eq(
	    json_integer_value(json_array_get(json_object_get(d, "quorum"), 0)),
	    0);
	json_decref(d);
	refused(-EINVAL, "mon dump: unknown argument 'epoch'",
	    "{\"prefix\":\"mon dump\",\"epoch\":1}");
}

/* `health mute' and `log last' over the wire, as Ceph's. */
Test(cmd, health_mute_and_log_last)
{
	json_t *d, *e;
	size_t i;

	cluster_small(2);
	json_decref(ok("{\"prefix\":\"health mute\",\"code\":"
		       "\"PG_AVAILABILITY\",\"ttl\":\"1h\"}"));
	d = ok("{\"prefix\":\"health\"}");
	cr_assert(json_is_true(json_object_get(
	    json_object_get(json_object_get(d, "checks"), "PG_AVAILABILITY"),
	    "muted")));
	e = json_array_get(json_object_get(d, "mutes"), 0);
	cr_assert_str_eq(jstr(e, "code"), "PG_AVAILABILITY");
	cr_assert(json_is_string(json_object_get(e, "ttl")));
	cr_assert_eq(jint(e, "count"), 2);
	json_decref(d);
	refused(-ENOENT, "health alert NOSUCH is not currently raised",
	    "{\"prefix\":\"health mute\",\"code\":\"NOSUCH\"}");
	refused(-EINVAL, "invalid duration: soon (expected digit)",
	    "{\"prefix\":\"health mute\",\"code\":\"OSD_DOWN\","
	    "\"ttl\":\"soon\"}");
	json_decref(ok("{\"prefix\":\"health mute\",\"code\":\"NOSUCH\","
		       "\"sticky\":true}"));
	json_decref(ok("{\"prefix\":\"health unmute\"}"));
	d = ok("{\"prefix\":\"health\"}");
	cr_assert_eq(json_array_size(json_object_get(d, "mutes")), 0);
	json_decref(d);

	/* LogEntry::dump()'s keys; level and channel as Ceph filters. */
	d = ok("{\"prefix\":\"log last\",\"num\":5}");
	json_array_foreach(d, i, e) {
		cr_assert_str_eq(jstr(e, "channel"), "cluster");
		cr_assert_str_eq(jstr(e, "name"), "mon.a");
		cr_assert_str_eq(jstr(e, "rank"), "mon.0");
		cr_assert(json_is_integer(json_object_get(e, "seq")));
		cr_assert_eq(jstr(e, "priority")[0], '[');
	}
	json_decref(d);
	d = ok("{\"prefix\":\"log last\",\"level\":\"warn\"}");
	cr_assert_geq(json_array_size(d), 1);
	json_array_foreach(d, i, e)
		cr_assert_str_neq(jstr(e, "priority"), "[INF]");
	json_decref(d);
	d = ok("{\"prefix\":\"log last\",\"channel\":\"audit\"}");
	cr_assert_eq(json_array_size(d), 0);
	json_decref(d);
	refused(-EINVAL, "must be one of debug, info, sec, warn, error",
	    "{\"prefix\":\"log last\",\"level\":\"loud\"}");
}

/* -------------------------------------------------------------- writes */

/* The beacon's JSON: its capacity is checked field by field. */
Test(cmd, osd_beacon_checks_its_capacity)
{
	json_decref(ok("{\"prefix\":\"osd create\"}"));
	refused(-EAGAIN, "osd.0 is down",
	    "{\"prefix\":\"osd beacon\","
	    "\"id\":0}");
	json_decref(ok("{\"prefix\":\"osd boot\",\"id\":0}"));
	json_decref(ok("{\"prefix\":\"osd beacon\",\"id\":0}"));
	json_decref(ok("{\"prefix\":\"osd beacon\",\"id\":0,\"statfs\":"
		       "{\"total\":100,\"used\":10,\"avail\":90}}"));
	refused(-EINVAL, "statfs: used 200 > total 100",
	    "{\"prefix\":\"osd beacon\",\"id\":0,\"statfs\":"
	    "{\"total\":100,\"used\":200,\"avail\":0}}");
	refused(-EINVAL, "statfs is not a JSON object",
	    "{\"prefix\":\"osd beacon\",\"id\":0,\"statfs\":7}");
	refused(-ENOENT, "osd.5 does not exist",
	    "{\"prefix\":\"osd beacon\",\"id\":5}");
}

/*
 * Failure reports and mark-me-down in their JSON forms: the answers'
 * data, what is refused (EINVAL) and what is ignored (rc 0), and a
 * mark-down by two reporters once the grace is set short at run time.
 */
Test(cmd, osd_failure_reports_and_mark_me_down)
{
	json_t *d;
	char *status = NULL;
	int i;

	for (i = 0; i < 4; i++) {
		json_decref(ok("{\"prefix\":\"osd create\"}"));
		json_decref(ok("{\"prefix\":\"osd boot\",\"id\":%d}", i));
	}
	d = ok("{\"prefix\":\"osd failure\",\"target\":0,\"reporter\":1,"
	       "\"failed_for\":21.5}");
	cr_assert_eq(jint(d, "reporters"), 1);
	cr_assert_eq(jint(d, "needed"), 2);
	cr_assert(json_is_false(json_object_get(d, "marked_down")));
	json_decref(d);
	cr_assert_eq(call(&d, &status,
			 "{\"prefix\":\"osd failure\","
			 "\"target\":0,\"reporter\":1,\"failed_for\":0,"
			 "\"cancel\":true}"),
	    0);
	cr_assert_str_eq(status, "osd.1 cancelled its report of osd.0");
	cr_assert_eq(jint(d, "reporters"), 0);
	free(status);
	json_decref(d);

	refused(-EINVAL, "osd.1 reported itself",
	    "{\"prefix\":\"osd failure\",\"target\":1,\"reporter\":1,"
	    "\"failed_for\":1}");
	refused(-EINVAL,
	    "argument 'failed_for' must be between 0 and 1e+09, not -1",
	    "{\"prefix\":\"osd failure\",\"target\":0,"
	    "\"reporter\":1,\"failed_for\":-1}");
	refused(-EINVAL, "argument 'failed_for' must be a number",
	    "{\"prefix\":\"osd failure\",\"target\":0,\"reporter\":1,"
	    "\"failed_for\":\"20\"}");
	refused(-EINVAL, "missing argument 'reporter'",
	    "{\"prefix\":\"osd failure\",\"target\":0,\"failed_for\":1}");
	refused(-EINVAL, "argument 'cancel' must be a boolean",
	    "{\"prefix\":\"osd failure\",\"target\":0,\"reporter\":1,"
	    "\"failed_for\":1,\"cancel\":1}");
	refused(-EINVAL, "argument 'target' must be between 0 and 65535",
	    "{\"prefix\":\"osd failure\",\"target\":-1,\"reporter\":1,"
	    "\"failed_for\":1}");
	cr_assert_eq(call(&d, &status,
			 "{\"prefix\":\"osd failure\","
			 "\"target\":9,\"reporter\":1,\"failed_for\":30}"),
	    0);
	cr_assert_str_eq(status,
	    "report of osd.9 ignored: osd.9 does not exist");
	cr_assert(json_is_true(json_object_get(d, "ignored")));
	free(status);
	json_decref(d);

	/* A short grace, set at run time: two reporters mark osd.0 down. */
	json_decref(ok("{\"prefix\":\"config set\",\"key\":"
		       "\"mon.osd_heartbeat_grace\",\"value\":\"100ms\"}"));
	usleep(150000); /* the grace the monitor gives after its start */
	json_decref(ok("{\"prefix\":\"osd failure\",\"target\":0,"
		       "\"reporter\":1,\"failed_for\":5}"));
	d = ok("{\"prefix\":\"osd failure\",\"target\":0,\"reporter\":2,"
	       "\"failed_for\":5}");
	cr_assert(json_is_true(json_object_get(d, "marked_down")));
	json_decref(d);
	for (i = 0; i < 100; i++) {
		d = ok("{\"prefix\":\"osd stat\"}");
		if (jint(d, "num_up_osds") == 3)
			i = 1000;
		json_decref(d);
		usleep(10000);
	}
	cr_assert_eq(i, 1001, "osd.0 not marked down");
	cr_assert_eq(call(&d, &status,
			 "{\"prefix\":\"osd failure\","
			 "\"target\":0,\"reporter\":1,\"failed_for\":6}"),
	    0);
	cr_assert_str_eq(status,
	    "report of osd.0 ignored: osd.0 is already down");
	free(status);
	json_decref(d);

	/* Mark-me-down: after the commit; then at once; unknown: ENOENT. */
	d = ok("{\"prefix\":\"osd mark-me-down\",\"id\":3}");
	cr_assert(json_is_true(json_object_get(d, "down")));
	json_decref(d);
	d = ok("{\"prefix\":\"osd stat\"}");
	cr_assert_eq(jint(d, "num_up_osds"), 2, "answered before the commit");
	json_decref(d);
	cr_assert_eq(
	    call(&d, &status, "{\"prefix\":\"osd mark-me-down\",\"id\":3}"), 0);
	cr_assert_str_eq(status, "osd.3 is already down");
	free(status);
	json_decref(d);
	refused(-ENOENT, "osd.7 does not exist",
	    "{\"prefix\":\"osd mark-me-down\",\"id\":7}");
	refused(-EINVAL, "missing argument 'id'",
	    "{\"prefix\":\"osd mark-me-down\"}");
	/* The ratio is a float key, set at run time. */
	d = ok("{\"prefix\":\"config set\",\"key\":"
	       "\"mon.osd_min_in_ratio\",\"value\":\"0.6\"}");
	cr_assert_str_eq(jstr(d, "value"), "0.6");
	json_decref(d);
	refused(-EINVAL,
	    "mon.osd_min_in_ratio: value 1.5 out of range: must be between 0 "
	    "and 1",
	    "{\"prefix\":\"config set\",\"key\":\"mon.osd_min_in_ratio\","
	    "\"value\":\"1.5\"}");
	refused(-EINVAL, "bad number 'most'",
	    "{\"prefix\":\"config set\",\"key\":\"mon.osd_min_in_ratio\","
	    "\"value\":\"most\"}");
	d = ok("{\"prefix\":\"config get\",\"key\":\"mon.osd_min_in_ratio\"}");
	cr_assert_str_eq(jstr(d, "value"), "0.6");
	json_decref(d);

	json_decref(ok("{\"prefix\":\"osd set\",\"key\":\"nodown\"}"));
	cr_assert_eq(
	    call(&d, &status, "{\"prefix\":\"osd mark-me-down\",\"id\":2}"), 0);
	cr_assert_str_eq(status, "osd.2 stays up: the nodown flag is set");
	cr_assert(json_is_false(json_object_get(d, "down")));
	free(status);
	json_decref(d);
}

/* Every key of keys (NULL-terminated) is in the object o. */
static void
has_keys(json_t *o, const char *what, const char *const *keys)
{
	cr_assert(json_is_object(o), "%s is not an object", what);
	for (; *keys != NULL; keys++)
		cr_assert_not_null(json_object_get(o, *keys), "%s has no '%s'",
		    what, *keys);
}

/* `df', `osd df' and the usage of `status' in Ceph's keys, from beacons. */
Test(cmd, capacity_in_cephs_keys)
{
	static const char *const df_stats[] = { "total_bytes",
		"total_avail_bytes", "total_used_bytes", "total_used_raw_bytes",
		"total_used_raw_ratio", "num_osds", NULL };
	static const char *const df_pool[] = { "name", "id", "stats", NULL };
	static const char *const df_pool_stats[] = { "stored", "objects",
		"kb_used", "bytes_used", "percent_used", "max_avail", NULL };
	static const char *const node[] = { "id", "name", "type", "type_id",
		"crush_weight", "depth", "reweight", "kb", "kb_used",
		"kb_used_data", "kb_used_omap", "kb_used_meta", "kb_avail",
		"utilization", "var", "pgs", "status", NULL };
	static const char *const summary[] = { "total_kb", "total_kb_used",
		"total_kb_used_data", "total_kb_used_omap",
		"total_kb_used_meta", "total_kb_avail", "average_utilization",
		"min_var", "max_var", "dev", NULL };
	json_t *d, *p, *n;
	char *st = NULL;

	cluster_small(8);
	json_decref(ok("{\"prefix\":\"osd beacon\",\"id\":0,\"statfs\":"
		       "{\"total\":107374182400,\"used\":21474836480,"
		       "\"avail\":85899345920,\"data\":20401094656,"
		       "\"omap\":536870912,\"meta\":536870912}}"));

	d = ok("{\"prefix\":\"df\"}");
	has_keys(json_object_get(d, "stats"), "stats", df_stats);
	cr_assert_eq(jint(d, "stats.total_bytes"), 107374182400);
	cr_assert_eq(jint(d, "stats.total_used_raw_bytes"), 21474836480);
	cr_assert_eq(jint(d, "stats.num_osds"), 1);
	cr_assert(json_is_object(json_object_get(d, "stats_by_class")));
	p = json_array_get(json_object_get(d, "pools"), 0);
	has_keys(p, "pools[0]", df_pool);
	has_keys(json_object_get(p, "stats"), "pools[0].stats", df_pool_stats);
	cr_assert_str_eq(jstr(p, "name"), "rbd");
	/* One OSD, size 1: (80 GiB - 5% of 100 GiB) raw. */
	cr_assert_eq(jint(p, "stats.max_avail"), 80530636800);
	json_decref(d);

	d = ok("{\"prefix\":\"osd df\"}");
	n = json_array_get(json_object_get(d, "nodes"), 0);
	has_keys(n, "nodes[0]", node);
	cr_assert_str_eq(jstr(n, "name"), "osd.0");
	cr_assert_eq(jint(n, "kb_used"), 20971520);
	cr_assert_eq(jint(n, "kb_used_omap"), 524288);
	cr_assert_eq(jint(n, "pgs"), 8);
	cr_assert_str_eq(jstr(n, "status"), "up");
	cr_assert(json_is_array(json_object_get(d, "stray")));
	has_keys(json_object_get(d, "summary"), "summary", summary);
	json_decref(d);

	d = ok("{\"prefix\":\"status\"}");
	cr_assert_eq(jint(d, "pgmap.bytes_total"), 107374182400);
	cr_assert_eq(jint(d, "pgmap.bytes_used"), 21474836480);
	cr_assert_eq(jint(d, "pgmap.bytes_avail"), 85899345920);
	json_decref(d);

	/* The full ratios: Ceph's words, the order kept. */
	cr_assert_eq(call(NULL, &st,
			 "{\"prefix\":\"osd set-full-ratio\","
			 "\"ratio\":0.97}"),
	    0);
	cr_assert_str_eq(st, "osd set-full-ratio 0.97");
	free(st);
	refused(-EINVAL, "nearfull_ratio <= backfillfull_ratio <= full_ratio",
	    "{\"prefix\":\"osd set-nearfull-ratio\",\"ratio\":0.98}");
	refused(-EINVAL, "must be between 0 and 1",
	    "{\"prefix\":\"osd set-backfillfull-ratio\",\"ratio\":1.5}");
	refused(-EINVAL, "must be a number",
	    "{\"prefix\":\"osd set-full-ratio\",\"ratio\":\"x\"}");
	json_decref(ok("{\"prefix\":\"osd set-nearfull-ratio\","
		       "\"ratio\":0.1}"));
	d = ok("{\"prefix\":\"osd dump\"}");
	cr_assert(json_real_value(json_object_get(d, "full_ratio")) == 0.97);
	cr_assert(
	    json_real_value(json_object_get(d, "backfillfull_ratio")) == 0.9);
	cr_assert(json_real_value(json_object_get(d, "nearfull_ratio")) == 0.1);
	json_decref(d);

	/* 20% used is past the nearfull ratio of 0.1 now. */
	d = ok("{\"prefix\":\"health\",\"detail\":\"detail\"}");
	cr_assert_str_eq(jstr(d, "checks.OSD_NEARFULL.summary.message"),
	    "1 nearfull osd(s)");
	cr_assert_str_eq(jstr(d, "checks.POOL_NEARFULL.summary.message"),
	    "1 pool(s) nearfull");
	json_decref(d);
}

Test(cmd, osd_lifecycle)
{
	json_t *d, *o;

	d = ok("{\"prefix\":\"osd create\"}");
	cr_assert_eq(jint(d, "osdid"), 0);
	json_decref(d);
	d = ok("{\"prefix\":\"osd create\",\"id\":5}");
	cr_assert_eq(jint(d, "osdid"), 5);
	json_decref(d);
	d = ok("{\"prefix\":\"osd create\"}");
	cr_assert_eq(jint(d, "osdid"), 1);
	json_decref(d);
	refused(-ENOENT, "osd.9", "{\"prefix\":\"osd boot\",\"id\":9}");
	json_decref(ok("{\"prefix\":\"osd boot\",\"id\":5,"
	    "\"addr\":\"10.0.0.5:6800\"}"));
	json_decref(ok("{\"prefix\":\"osd boot\",\"id\":0}"));

	d = ok("{\"prefix\":\"osd dump\"}");
	cr_assert_eq(json_array_size(json_object_get(d, "osds")), 3);
	o = json_array_get(json_object_get(d, "osds"), 2);
	cr_assert_eq(jint(o, "osd"), 5);
	cr_assert_eq(jint(o, "up"), 1);
	cr_assert_str_eq(jstr(o, "public_addr"), "10.0.0.5:6800");
	json_decref(d);

	json_decref(ok("{\"prefix\":\"osd down\",\"ids\":[5]}"));
	json_decref(ok("{\"prefix\":\"osd out\",\"ids\":[5, 0]}"));
	d = ok("{\"prefix\":\"osd stat\"}");
	cr_assert_eq(jint(d, "num_osds"), 3);
	cr_assert_eq(jint(d, "num_up_osds"), 1);
	cr_assert_eq(jint(d, "num_in_osds"), 0);
	json_decref(d);
	json_decref(ok("{\"prefix\":\"osd in\",\"ids\":[0]}"));
	/* A missing id is noted, not refused (seen on ceph 16.2.15). */
	said("osd.7 does not exist. ", "{\"prefix\":\"osd in\",\"ids\":[7]}");
	json_decref(ok("{\"prefix\":\"osd reweight\",\"id\":0,"
	    "\"weight\":0.5}"));
	refused(-ENOENT, "osd.8", "{\"prefix\":\"osd reweight\",\"id\":8,"
	    "\"weight\":0.5}");
	d = ok("{\"prefix\":\"osd tree\"}");
	/* The root, then host-0 (each OSD at a host of its own), osd.0. */
	cr_assert_str_eq(
	    jstr(json_array_get(json_object_get(d, "nodes"), 0), "name"),
	    "default");
	o = json_array_get(json_object_get(d, "nodes"), 2);
	cr_assert_str_eq(jstr(o, "name"), "osd.0");
	cr_assert_str_eq(jstr(o, "status"), "up");
	cr_assert_float_eq(json_number_value(json_object_get(o, "reweight")),
	    0.5, 1e-3);
	json_decref(d);

	said("removed osd.5", "{\"prefix\":\"osd rm\",\"ids\":[5]}");
	said("osd.5 does not exist. ", "{\"prefix\":\"osd rm\",\"ids\":[5]}");
	json_decref(ok("{\"prefix\":\"osd set\",\"key\":\"noout\"}"));
	d = ok("{\"prefix\":\"osd dump\"}");
	cr_assert_str_eq(jstr(d, "flags"), "noout");
	json_decref(d);
	json_decref(ok("{\"prefix\":\"osd unset\",\"key\":\"noout\"}"));
	d = ok("{\"prefix\":\"osd dump\"}");
	cr_assert_str_eq(jstr(d, "flags"), "");
	json_decref(d);
}

/*
 * The request forms Ceph's clients send (its MonCommands.h signatures, as
 * `ceph' and librados' mon_command write them): OSD ids as strings and
 * osd.N, "any" and "all" for every OSD, a "format" key, `osd pool set'
 * with its value as a string.
 */
Test(cmd, ceph_request_forms)
{
	json_t *d;
	char *status = NULL;

	json_decref(ok("{\"prefix\":\"osd create\"}"));
	json_decref(ok("{\"prefix\":\"osd create\"}"));
	json_decref(ok("{\"prefix\":\"osd boot\",\"id\":\"osd.0\","
		       "\"addr\":\"127.0.0.1:6800\"}"));
	json_decref(ok("{\"prefix\":\"osd boot\",\"id\":\"1\","
		       "\"addr\":\"127.0.0.1:6801\",\"format\":\"json\"}"));
	said("marked out osd.0. marked out osd.1. ",
	    "{\"prefix\":\"osd out\","
	    "\"ids\":[\"0\",\"osd.1\"],\"format\":\"json-pretty\"}");
	said("marked in osd.0. marked in osd.1. ",
	    "{\"prefix\":\"osd in\","
	    "\"ids\":[\"any\"]}");
	said("marked down osd.0. marked down osd.1. ",
	    "{\"prefix\":"
	    "\"osd down\",\"ids\":[\"all\"]}");
	refused(-EINVAL, "argument 'ids' item 1 must be an osd id",
	    "{\"prefix\":\"osd down\",\"ids\":[\"0\",\"any\"]}");
	refused(-EINVAL, "\"format\" must be a string",
	    "{\"prefix\":\"status\",\"format\":1}");
	said("reweighted osd.1 to 0.5 (8000)",
	    "{\"prefix\":\"osd reweight\","
	    "\"id\":\"osd.1\",\"weight\":0.5}");
	/* config set as Ceph's clients send it (MonCommands.h). */
	said("",
	    "{\"prefix\":\"config set\",\"who\":\"mon\","
	    "\"name\":\"mon_allow_pool_delete\",\"value\":\"true\"}");
	d = ok("{\"prefix\":\"config get\",\"who\":\"mon.a\","
	       "\"name\":\"mon_allow_pool_delete\",\"format\":\"json\"}");
	cr_assert_str_eq(json_string_value(json_object_get(d, "value")),
	    "true");
	json_decref(d);
	said("",
	    "{\"prefix\":\"config rm\",\"who\":\"global\","
	    "\"name\":\"mon-allow-pool-delete\"}");
	d = ok("{\"prefix\":\"config get\",\"key\":"
	       "\"mon.mon_allow_pool_delete\"}");
	cr_assert_str_eq(json_string_value(json_object_get(d, "value")),
	    "false");
	json_decref(d);
	refused(-EINVAL,
	    "argument 'id' must be an osd id (N or osd.N), not "
	    "'osd.x'",
	    "{\"prefix\":\"osd reweight\",\"id\":\"osd.x\","
	    "\"weight\":0.5}");

	json_decref(
	    ok("{\"prefix\":\"osd pool create\",\"pool\":\"rbd\","
	       "\"pg_num\":8,\"pgp_num\":8,\"pool_type\":\"replicated\","
	       "\"rule\":\"replicated_rule\",\"size\":2}"));
	said("set pool 1 pg_num to 16",
	    "{\"prefix\":\"osd pool set\","
	    "\"pool\":\"rbd\",\"var\":\"pg_num\",\"val\":\"16\"}");
	said("set pool 1 pgp_num to 12",
	    "{\"prefix\":\"osd pool set\","
	    "\"pool\":\"rbd\",\"var\":\"pgp_num\",\"val\":12}");
	refused(-EINVAL, "argument 'val' must be a string or an integer",
	    "{\"prefix\":\"osd pool set\",\"pool\":\"rbd\",\"var\":\"size\","
	    "\"val\":true}");
	refused(-EOPNOTSUPP, "erasure",
	    "{\"prefix\":\"osd pool create\","
	    "\"pool\":\"ec\",\"pool_type\":\"erasure\"}");
	d = ok(
	    "{\"prefix\":\"osd pool get\",\"pool\":\"rbd\",\"var\":\"all\"}");
	cr_assert_eq(jint(d, "pg_num"), 16);
	cr_assert_eq(jint(d, "pgp_num"), 12);
	cr_assert_eq(jint(d, "size"), 2);
	cr_assert_eq(jint(d, "min_size"), 1);
	json_decref(d);

	/* The reads Ceph has that mapmon gained. */
	d = ok("{\"prefix\":\"osd ls\"}");
	cr_assert_eq(json_array_size(d), 2);
	json_decref(d);
	d = ok("{\"prefix\":\"osd find\",\"id\":\"osd.1\"}");
	cr_assert_eq(jint(d, "osd"), 1);
	cr_assert_str_eq(
	    jstr(
		json_array_get(
		    json_object_get(json_object_get(d, "addrs"), "addrvec"), 0),
		"addr"),
	    "127.0.0.1:6801");
	json_decref(d);
	refused(-ENOENT, "osd.9 does not exist",
	    "{\"prefix\":\"osd find\","
	    "\"id\":9}");
	d = ok("{\"prefix\":\"osd tree\",\"states\":[\"down\"]}");
	/* Two down OSDs, each with its host, and the root. */
	cr_assert_eq(json_array_size(json_object_get(d, "nodes")), 5);
	json_decref(d);
	d = ok("{\"prefix\":\"osd tree\",\"states\":[\"up\"]}");
	cr_assert_eq(json_array_size(json_object_get(d, "nodes")), 0);
	json_decref(d);
	d = ok("{\"prefix\":\"osd dump\",\"epoch\":2}");
	cr_assert_eq(jint(d, "epoch"), 2);
	cr_assert_eq(json_array_size(json_object_get(d, "osds")), 1);
	json_decref(d);
	refused(-ENOENT, "there is no map for epoch 999",
	    "{\"prefix\":\"osd getmap\",\"epoch\":999}");
	cr_assert_eq(call(&d, &status, "{\"prefix\":\"osd getmap\"}"), 0);
	cr_assert_eq(jint(d, "pool_max"), 1);
	cr_assert_not_null(strstr(status, "got osdmap epoch "), "%s", status);
	free(status);
	json_decref(d);
	said("pauserd,pausewr is set", "{\"prefix\":\"osd pause\"}");
	d = ok("{\"prefix\":\"osd dump\"}");
	cr_assert_str_eq(jstr(d, "flags"), "pauserd,pausewr");
	cr_assert_str_eq(json_string_value(json_array_get(
			     json_object_get(d, "flags_set"), 0)),
	    "pauserd");
	json_decref(d);
	said("pauserd,pausewr is unset", "{\"prefix\":\"osd unpause\"}");
	d = ok("{\"prefix\":\"fsid\"}");
	cr_assert_eq(strlen(jstr(d, "fsid")), 36);
	json_decref(d);
	said("",
	    "{\"prefix\":\"log\",\"logtext\":[\"hello\",\"from\","
	    "\"the\",\"operator\"]}");
	d = ok("{\"prefix\":\"log last\",\"num\":1}");
	cr_assert_str_eq(jstr(json_array_get(d, 0), "message"),
	    "hello from the operator");
	json_decref(d);
	d = ok("{\"prefix\":\"report\",\"tags\":[\"t1\"]}");
	cr_assert_str_eq(jstr(d, "tag"), "t1");
	cr_assert_eq(jint(d, "osdmap.max_osd"), 2);
	json_decref(d);
}

Test(cmd, pools)
{
	json_t *d;

	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"rbd\","
	    "\"pg_num\":16}"));
	said("pool 'rbd' already exists",
	    "{\"prefix\":\"osd pool create\","
	    "\"pool\":\"rbd\",\"pg_num\":16}");
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"data\","
		       "\"pg_num\":4,\"size\":2}"));
	d = ok("{\"prefix\":\"osd pool ls\"}");
	cr_assert_eq(json_array_size(d), 2);
	cr_assert_str_eq(json_string_value(json_array_get(d, 0)), "rbd");
	json_decref(d);
	d = ok("{\"prefix\":\"osd pool ls\",\"detail\":\"detail\"}");
	cr_assert_str_eq(jstr(json_array_get(d, 1), "pool_name"), "data");
	cr_assert_eq(jint(json_array_get(d, 1), "size"), 2);
	cr_assert_eq(jint(json_array_get(d, 1), "min_size"), 1);
	cr_assert_eq(jint(json_array_get(d, 0), "pg_num"), 16);
	json_decref(d);

	json_decref(ok("{\"prefix\":\"osd pool rename\",\"srcpool\":\"data\","
	    "\"destpool\":\"cold\"}"));
	refused(-EEXIST, "rbd", "{\"prefix\":\"osd pool rename\","
	    "\"srcpool\":\"cold\",\"destpool\":\"rbd\"}");
	refused(-ENOENT, "unrecognized pool 'data'",
	    "{\"prefix\":\"osd pool "
	    "rename\",\"srcpool\":\"data\",\"destpool\":\"x\"}");
	said("pool 'data' does not exist; pool 'cold' does -- assuming "
	     "successful rename",
	    "{\"prefix\":\"osd pool rename\","
	    "\"srcpool\":\"data\",\"destpool\":\"cold\"}");

	json_decref(ok("{\"prefix\":\"osd pool set\",\"pool\":\"cold\","
	    "\"var\":\"pg_num\",\"val\":8}"));
	d = ok("{\"prefix\":\"osd pool get\",\"pool\":\"cold\","
	    "\"var\":\"pg_num\"}");
	cr_assert_eq(jint(d, "pg_num"), 8);
	json_decref(d);
	cr_assert_eq(pgs_in_state("creating"), 24);
	refused(-ENOENT, "nosuch", "{\"prefix\":\"osd pool get\","
	    "\"pool\":\"nosuch\",\"var\":\"size\"}");
	refused(-EINVAL, "must be one of size, min_size, pg_num, pgp_num",
	    "{\"prefix\":\"osd pool get\",\"pool\":\"cold\","
	    "\"var\":\"nodelete\"}");

	refused(-EPERM, "", "{\"prefix\":\"osd pool delete\",\"pool\":\"cold\"}");
	/* Ceph's mon_allow_pool_delete: false until set at run time. */
	refused(-EPERM,
	    "you must first set the mon_allow_pool_delete config "
	    "option to true",
	    "{\"prefix\":\"osd pool delete\",\"pool\":"
	    "\"cold\",\"pool2\":\"cold\",\"yes_i_really_really_mean_it\":"
	    "true}");
	json_decref(ok("{\"prefix\":\"config set\",\"key\":"
		       "\"mon.mon_allow_pool_delete\",\"value\":\"true\"}"));
	json_decref(ok("{\"prefix\":\"osd pool delete\",\"pool\":\"cold\","
	    "\"pool2\":\"cold\",\"yes_i_really_really_mean_it\":true}"));
	said("pool 'cold' does not exist",
	    "{\"prefix\":\"osd pool rm\","
	    "\"pool\":\"cold\",\"pool2\":\"cold\","
	    "\"yes_i_really_really_mean_it\":true}");
	d = ok("{\"prefix\":\"osd pool ls\"}");
	cr_assert_eq(json_array_size(d), 1);
	json_decref(d);
	cr_assert_eq(pgs_in_state("creating"), 16);
}

Test(cmd, pg_reads)
{
	json_t *d;

	cluster_small(4);
	/* Ceph's {"pg_ready": true, "pg_summary": {...}}, mapmon's beside. */
	d = ok("{\"prefix\":\"pg stat\"}");
	cr_assert_eq(jint(d, "num_pgs"), 4);
	cr_assert(json_is_true(json_object_get(d, "pg_ready")));
	cr_assert_eq(jint(json_object_get(d, "pg_summary"), "num_pgs"), 4);
	json_decref(d);
	/* Ceph's dumpcontents, each part as PGMap dumps it. */
	d = ok("{\"prefix\":\"pg dump\",\"dumpcontents\":[\"pgs\"]}");
	cr_assert_eq(json_array_size(json_object_get(d, "pg_stats")), 4);
	json_decref(d);
	d = ok("{\"prefix\":\"pg dump\",\"dumpcontents\":[\"pools\"]}");
	cr_assert_eq(json_array_size(json_object_get(d, "pool_stats")), 1);
	json_decref(d);
	d = ok("{\"prefix\":\"pg dump\",\"dumpcontents\":[\"osds\"]}");
	cr_assert_eq(json_array_size(json_object_get(d, "osd_stats")), 1);
	json_decref(d);
	d = ok("{\"prefix\":\"pg dump\",\"dumpcontents\":[\"pgs_brief\"]}");
	cr_assert_eq(
	    json_object_size(json_array_get(json_object_get(d, "pg_stats"), 0)),
	    6);
	json_decref(d);
	d = ok("{\"prefix\":\"pg dump\",\"dumpcontents\":[\"sum\"]}");
	cr_assert_not_null(
	    json_object_get(json_object_get(d, "pg_map"), "pg_stats_sum"));
	cr_assert_null(
	    json_object_get(json_object_get(d, "pg_map"), "pg_stats"));
	json_decref(d);
	d = ok("{\"prefix\":\"pg dump\"}");
	cr_assert_eq(json_array_size(json_object_get(
			 json_object_get(d, "pg_map"), "pg_stats")),
	    4);
	cr_assert_eq(json_array_size(json_object_get(
			 json_object_get(d, "pg_map"), "osd_stats")),
	    1);
	json_decref(d);
	refused(-EINVAL, "must be one of all, summary",
	    "{\"prefix\":"
	    "\"pg dump\",\"dumpcontents\":[\"delta\"]}");
	/* pg ls: a pool by id (Ceph's), or by name with --pool. */
	d = ok("{\"prefix\":\"pg ls\",\"pool\":1,"
	       "\"states\":[\"creating\"]}");
	cr_assert_eq(json_array_size(json_object_get(d, "pg_stats")), 4);
	json_decref(d);
	d = ok("{\"prefix\":\"pg ls\",\"poolstr\":\"rbd\"}");
	cr_assert_eq(json_array_size(json_object_get(d, "pg_stats")), 4);
	json_decref(d);
	d = ok("{\"prefix\":\"pg ls\",\"states\":[\"active\"]}");
	cr_assert_eq(json_array_size(json_object_get(d, "pg_stats")), 0);
	json_decref(d);
	refused(-ENOENT, "pool nosuch does not exist",
	    "{\"prefix\":"
	    "\"pg ls\",\"poolstr\":\"nosuch\"}");
	refused(-ENOENT, "pool 9 does not exist",
	    "{\"prefix\":\"pg ls\","
	    "\"pool\":9}");
	refused(-EINVAL,
	    "'bogus' is not a valid pg state, available choices: "
	    "stale+creating+active",
	    "{\"prefix\":\"pg ls\","
	    "\"states\":[\"bogus\"]}");
	/* Ceph takes one word a state, never "active+clean". */
	refused(-EINVAL, "'active+clean' is not a valid pg state",
	    "{\"prefix\":\"pg ls\",\"states\":[\"active+clean\"]}");
	d = ok("{\"prefix\":\"pg ls-by-pool\",\"poolstr\":\"rbd\"}");
	cr_assert_eq(json_array_size(json_object_get(d, "pg_stats")), 4);
	json_decref(d);
	/* The OSD as Ceph's clients send it: 0, "0" or "osd.0". */
	d = ok("{\"prefix\":\"pg ls-by-osd\",\"osd\":\"osd.0\"}");
	cr_assert_eq(json_array_size(json_object_get(d, "pg_stats")), 4);
	json_decref(d);
	d = ok("{\"prefix\":\"pg ls-by-primary\",\"osd\":\"0\",\"pool\":1}");
	cr_assert_eq(json_array_size(json_object_get(d, "pg_stats")), 4);
	json_decref(d);
	refused(-EAGAIN, "osd 5 is not up",
	    "{\"prefix\":\"pg ls-by-osd\","
	    "\"osd\":5}");
	refused(-EINVAL, "argument 'osd' must be an osd id (N or osd.N)",
	    "{\"prefix\":\"pg ls-by-osd\",\"osd\":\"osd.x\"}");

	d = ok("{\"prefix\":\"pg query\",\"pgid\":\"1.3\"}");
	cr_assert_str_eq(jstr(d, "pgid"), "1.3");
	cr_assert_str_eq(jstr(d, "state"), "creating");
	json_decref(d);
	refused(-ENOENT, "1.4", "{\"prefix\":\"pg query\",\"pgid\":\"1.4\"}");
	refused(-EINVAL, "", "{\"prefix\":\"pg query\",\"pgid\":\"x.y\"}");
	d = ok("{\"prefix\":\"pg map\",\"pgid\":\"1.2\"}");
	cr_assert_str_eq(jstr(d, "pgid"), "1.2");
	cr_assert_eq(jint(d, "up_primary"), 0);
	cr_assert_eq(json_array_size(json_object_get(d, "acting")), 1);
	json_decref(d);
	refused(-ENOENT, "pg '2.0' does not exist",
	    "{\"prefix\":\"pg map\","
	    "\"pgid\":\"2.0\"}");
	/* Ceph's raw_pg_to_pg(): a seed past pg_num folds. */
	d = ok("{\"prefix\":\"pg map\",\"pgid\":\"1.6\"}");
	cr_assert_str_eq(jstr(d, "raw_pgid"), "1.6");
	cr_assert_str_eq(jstr(d, "pgid"), "1.2");
	json_decref(d);
	d = ok("{\"prefix\":\"pg dump_stuck\",\"stuckops\":"
	       "[\"inactive\"]}");
	cr_assert(json_is_array(json_object_get(d, "stuck_pg_stats")));
	cr_assert_eq(json_array_size(json_object_get(d, "stuck_pg_stats")), 0);
	json_decref(d);
	/* Threshold 0: every PG not active is stuck inactive. */
	d = ok("{\"prefix\":\"pg dump_stuck\",\"stuckops\":"
	       "[\"inactive\",\"stale\"],\"threshold\":0}");
	cr_assert_eq(json_array_size(json_object_get(d, "stuck_pg_stats")), 4);
	json_decref(d);
	refused(-EINVAL, "must be one of inactive, unclean, stale",
	    "{\"prefix\":\"pg dump_stuck\",\"stuckops\":[\"slow\"]}");
}

Test(cmd, log_config_perf_store)
{
	json_t *d, *v;
	char *before;
	size_t i;
	int seen;

	cluster_small(2);
	/*
	 * The pool's line is among the last few: the health checks its PGs
	 * raise ("Health check failed: ... inactive") may commit after it.
	 */
	d = ok("{\"prefix\":\"log last\",\"num\":2}");
	cr_assert_eq(json_array_size(d), 2);
	json_decref(d);
	d = ok("{\"prefix\":\"log last\",\"num\":10}");
	seen = 0;
	json_array_foreach(d, i, v) {
		if (strcmp(jstr(v, "message"),
			"pool 'rbd' created with 2 pgs") != 0)
			continue;
		seen = 1;
		cr_assert_str_eq(jstr(v, "severity"), "INF");
		cr_assert(json_is_string(json_object_get(v, "stamp")));
	}
	cr_assert(seen, "no line of the pool's creation in the log");
	json_decref(d);
	d = ok("{\"prefix\":\"log last\"}");
	cr_assert_geq(json_array_size(d), 4);
	json_decref(d);

	d = ok("{\"prefix\":\"log dump\"}");
	seen = 0;
	json_array_foreach(d, i, v)
		if (strstr(jstr(v, "message"), "listening on") != NULL)
			seen = 1;
	cr_assert(seen, "log dump lacks the listening line");
	json_decref(d);

	d = ok("{\"prefix\":\"config show\"}");
	cr_assert_gt(json_array_size(d), 30);
	seen = 0;
	json_array_foreach(d, i, v) {
		cr_assert(json_is_string(json_object_get(v, "default")));
		cr_assert(json_is_boolean(json_object_get(v, "runtime")));
		if (strcmp(jstr(v, "name"), "store.sync") == 0) {
			cr_assert_str_eq(jstr(v, "value"), "none");
			cr_assert_str_eq(jstr(v, "default"), "commit");
			seen = 1;
		}
	}
	cr_assert(seen);
	json_decref(d);
	d = ok("{\"prefix\":\"config get\",\"key\":\"mon.propose_interval\"}");
	cr_assert_str_eq(jstr(d, "value"), "2ms");
	cr_assert(json_is_true(json_object_get(d, "runtime")));
	json_decref(d);
	refused(-ENOENT, "did you mean 'mon.propose_interval'",
	    "{\"prefix\":\"config get\",\"key\":\"mon.propose_intreval\"}");
	refused(-EINVAL, "store.backend cannot change at run time; edit the "
	    "file and restart", "{\"prefix\":\"config set\","
	    "\"key\":\"store.backend\",\"value\":\"leveldb\"}");
	refused(-EINVAL, "mon.min_epochs", "{\"prefix\":\"config set\","
	    "\"key\":\"mon.min_epochs\",\"value\":\"lots\"}");
	json_decref(ok("{\"prefix\":\"config set\",\"key\":\"mon.min_epochs\","
	    "\"value\":\"20\"}"));
	d = ok("{\"prefix\":\"config get\",\"key\":\"mon.min_epochs\"}");
	cr_assert_str_eq(jstr(d, "value"), "20");
	json_decref(d);
	/* A value the file would refuse beside the others, and kept out. */
	d = ok("{\"prefix\":\"config get\","
	    "\"key\":\"mon.max_partial_input\"}");
	before = xstrdup(jstr(d, "value"));
	json_decref(d);
	refused(-EINVAL, "mon.max_partial_input = 64K refused: "
	    "max_partial_input 64K is less than max_frame",
	    "{\"prefix\":\"config set\","
	    "\"key\":\"mon.max_partial_input\",\"value\":\"64K\"}");
	d = ok("{\"prefix\":\"config get\","
	    "\"key\":\"mon.max_partial_input\"}");
	cr_assert_str_eq(jstr(d, "value"), before);
	json_decref(d);
	free(before);

	d = ok("{\"prefix\":\"perf dump\"}");
	cr_assert_geq(jint(d, "mon.commits"), 3);
	cr_assert_geq(jint(d, "server.accepted"), 10);
	cr_assert_geq(jint(d, "log.gathered"), 1);
	cr_assert_eq(jint(d, "commands.osd pool create.calls"), 1);
	cr_assert_eq(jint(d, "commands.config get.errors"), 1);
	cr_assert_geq(jint(d, "commands.log last.total_us"), 1);
	/* Nothing partly received now (this request came whole). */
	cr_assert_eq(jint(d, "server.partial_bytes"), 0);
	cr_assert_eq(jint(d, "server.partial_granted"), 0);
	cr_assert_eq(jint(d, "server.partial_paused"), 0);
	json_decref(d);

	d = ok("{\"prefix\":\"store stat\"}");
	cr_assert_str_eq(jstr(d, "backend"), TEST_BACKEND);
	cr_assert_gt(jint(d, "bytes"), 0);
	cr_assert_geq(jint(d, "osdmap_last"), 4);
	json_decref(d);
	json_decref(ok("{\"prefix\":\"store compact\"}"));
	refused(-EINVAL, "store compact: unknown argument 'range'",
	    "{\"prefix\":\"store compact\",\"range\":\"all\"}");
	/* Still serving after the compaction. */
	cr_assert_eq(pgs_in_state("creating"), 2);
}

/* ----------------------------------------------------------- pg report */

/* The stats of the n PGs of pool 1, made active+clean by osd 0. */
static json_t *
clean_stats(int n, int seq)
{
	json_t *a = json_array(), *st;
	int i;

	for (i = 0; i < n; i++) {
		st = ok("{\"prefix\":\"pg query\",\"pgid\":\"1.%x\"}", i);
		json_object_set_new(st, "state",
		    json_string("active+clean"));
		json_object_set_new(st, "reported_seq", json_integer(seq));
		json_array_append_new(a, st);
	}
	return a;
}

Test(cmd, pg_report_json)
{
	json_t *pgs, *cmd, *d = NULL;
	char *st = NULL;
	int rc;

	cluster_small(4);
	pgs = clean_stats(4, 1);
	cmd = json_pack("{s:s, s:i, s:O}", "prefix", "pg report", "osd", 0,
	    "pgs", pgs);
	rc = mclient_call(D.addr, CALL_TIMEOUT_MS, cmd, &d, &st);
	cr_assert_eq(rc, 0, "%s", st);
	cr_assert_eq(jint(d, "accepted"), 4);
	cr_assert_eq(jint(d, "unknown"), 0);
	json_decref(d);
	free(st);
	json_decref(cmd);
	cr_assert_eq(pgs_in_state("active+clean"), 4);

	/* A bad entry is named by its index; nothing is applied. */
	json_object_set_new(json_array_get(pgs, 2), "state",
	    json_string("sleepy"));
	cmd = json_pack("{s:s, s:i, s:O}", "prefix", "pg report", "osd", 0,
	    "pgs", pgs);
	rc = mclient_call(D.addr, CALL_TIMEOUT_MS, cmd, NULL, &st);
	cr_assert_eq(rc, -EINVAL);
	cr_assert(strstr(st, "pgs[2]") != NULL, "%s", st);
	free(st);
	json_decref(cmd);
	refused(-EINVAL, "must be an array", "{\"prefix\":\"pg report\","
	    "\"osd\":0,\"pgs\":{}}");
	refused(-EINVAL, "pgs[0] must be an object", "{\"prefix\":"
	    "\"pg report\",\"osd\":0,\"pgs\":[3]}");
	refused(-ENOENT, "osd.3", "{\"prefix\":\"pg report\",\"osd\":3,"
	    "\"pgs\":[]}");
	json_decref(pgs);
}

static void
binary_call(struct aclient *a, const void *p, size_t len)
{
	int before = a->replies;

	cr_assert_eq(mclient_request_binary(a->c, p, len, a_reply, a), 0);
	cr_assert(a_wait(a, before + 1, 0, 5000), "no binary reply");
}

Test(cmd, pg_report_binary)
{
	struct enc_buf b = { 0 };
	struct pg_stat st;
	struct aclient a;
	int i;

	cluster_small(8);
	enc_buf_put_u16(&b, FRAME_BINARY_PG_REPORT);
	enc_buf_put_u32(&b, 0);
	enc_buf_put_u32(&b, 9);
	for (i = 0; i < 9; i++) {
		/* 1.8 does not exist: counted unknown. */
		pg_stat_init(&st, (struct pg_id){ 1, (uint32_t)i });
		st.state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
		st.reported_epoch = 10;
		st.reported_seq = 1;
		st.up_len = st.acting_len = 1;
		st.up[0] = st.acting[0] = 0;
		st.up_primary = st.acting_primary = 0;
		st.num_objects = 10;
		st.num_bytes = 4096;
		pg_stat_encode(&st, &b);
	}
	a_open(&a);
	binary_call(&a, b.data, b.len);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_eq(jint(a.data, "accepted"), 8);
	cr_assert_eq(jint(a.data, "unknown"), 1);
	cr_assert_eq(pgs_in_state("active+clean"), 8);
	{
		json_t *s = ok("{\"prefix\":\"pg stat\"}");

		cr_assert_eq(jint(s, "num_objects"), 80);
		cr_assert_eq(jint(s, "data_bytes"), 8 * 4096);
		json_decref(s);
	}

	/* Truncated in the last record. */
	binary_call(&a, b.data, b.len - 3);
	cr_assert_eq(a.rc, -EINVAL);
	cr_assert(strstr(a.status, "record 8") != NULL, "%s", a.status);
	/* A count the bytes cannot hold. */
	enc_put_be32(b.data + 6, 1000000);
	binary_call(&a, b.data, b.len);
	cr_assert_eq(a.rc, -EINVAL);
	cr_assert(strstr(a.status, "cannot fit") != NULL, "%s", a.status);
	/* Bytes after the last record. */
	enc_put_be32(b.data + 6, 8);
	binary_call(&a, b.data, b.len);
	cr_assert_eq(a.rc, -EINVAL);
	cr_assert(strstr(a.status, "after the 8 records") != NULL, "%s",
	    a.status);
	/* A header alone, too short. */
	binary_call(&a, b.data, 4);
	cr_assert_eq(a.rc, -EINVAL);
	/* An unknown opcode. */
	enc_put_be16(b.data, 77);
	binary_call(&a, b.data, b.len);
	cr_assert_eq(a.rc, -EOPNOTSUPP);
	a_close(&a);
	enc_buf_free(&b);
	/* Counted under pg report. */
	{
		json_t *p = ok("{\"prefix\":\"perf dump\"}");

		cr_assert_eq(jint(p, "commands.pg report.calls"), 5);
		cr_assert_eq(jint(p, "commands.pg report.errors"), 4);
		json_decref(p);
	}
}

/* A binary PG report as osd (its u32 id), of PG 1.0 with primary primary. */
static void
pgreport_one(struct enc_buf *b, uint32_t osd, int32_t primary)
{
	struct pg_stat st;

	enc_buf_reset(b);
	enc_buf_put_u16(b, FRAME_BINARY_PG_REPORT);
	enc_buf_put_u32(b, osd);
	enc_buf_put_u32(b, 1);
	pg_stat_init(&st, (struct pg_id){ 1, 0 });
	st.state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
	st.reported_epoch = 10;
	st.reported_seq = 1;
	st.up_len = st.acting_len = 1;
	st.up[0] = st.acting[0] = primary;
	st.up_primary = st.acting_primary = primary;
	pg_stat_encode(&st, b);
}

/*
 * allow profile osd acts for its own id only (mapmond(8), AUTHENTICATION;
 * Ceph's OSD profile lets an OSD send only its own messages): osd.3's key
 * cannot send osd.5's PG report, in the binary form (the id at byte 2 of
 * the body, checked before the body is decoded) as in the JSON form:
 * EACCES, and the PG is as it was; its own report goes through.
 */
Test(cmd, pg_report_binary_only_for_its_own_osd)
{
	struct enc_buf b = { 0 };
	struct aclient a;
	uint8_t key[SEAL_KEY_LEN];
	json_t *kr, *cmd;
	char *cause = NULL;
	int i;

	for (i = 0; i < 6; i++)
		json_decref(ok("{\"prefix\":\"osd create\"}"));
	json_decref(ok("{\"prefix\":\"osd boot\",\"id\":3,"
		       "\"addr\":\"127.0.0.1:6803\"}"));
	json_decref(ok("{\"prefix\":\"osd boot\",\"id\":5,"
		       "\"addr\":\"127.0.0.1:6805\"}"));
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"rbd\","
		       "\"pg_num\":1,\"size\":1}"));
	kr = ok("{\"prefix\":\"auth get-or-create\",\"entity\":\"osd.3\","
		"\"caps\":[\"mon\",\"allow profile osd\"]}");
	cr_assert_eq(b64_decode_exact(jstr(json_array_get(kr, 0), "key"), key,
			 sizeof key, &cause),
	    0, "%s", cause);
	json_decref(kr);

	a_open(&a);
	mclient_set_auth(a.c, "osd.3", key);
	pgreport_one(&b, 5, 5);
	binary_call(&a, b.data, b.len);
	cr_expect_eq(a.rc, -EACCES, "binary report as osd.5: %d %s", a.rc,
	    a.status);
	cr_expect(strstr(a.status,
		      "osd.3 may not run 'pg report': allow "
		      "profile osd acts for osd.3 only") != NULL,
	    "%s", a.status);
	/* The JSON form beside it, on the same connection. */
	cmd = json_pack("{s:s, s:i, s:[]}", "prefix", "pg report", "osd", 5,
	    "pgs");
	cr_assert_eq(mclient_request(a.c, cmd, a_reply, &a), 0);
	json_decref(cmd);
	cr_assert(a_wait(&a, 2, 0, 5000), "no reply to the JSON report");
	cr_expect_eq(a.rc, -EACCES, "JSON report as osd.5: %d %s", a.rc,
	    a.status);
	cr_expect_eq(pgs_in_state("active+clean"), 0,
	    "the refused report changed nothing");
	/* Its own: accepted. */
	pgreport_one(&b, 3, 3);
	binary_call(&a, b.data, b.len);
	cr_expect_eq(a.rc, 0, "binary report as osd.3: %d %s", a.rc, a.status);
	cr_expect_eq(jint(a.data, "accepted"), 1);
	cr_expect_eq(pgs_in_state("active+clean"), 1);
	a_close(&a);
	enc_buf_free(&b);
}

/*
 * Backpressure (mapmond(8), STORE AND COLD START): with propose_max_ops 4,
 * the first report of 8 PGs is sealed at once, the next fills the pending
 * proposal past 1.5 times that while its commit is written, and the
 * reports sent behind it wait unread.  Every one is answered and
 * applied in order: none is refused or lost, and the daemon counts the
 * waits.  A burst read whole between two commits waits for nothing, so
 * bursts are sent until one has waited, at most 5.
 */
Test(cmd, pg_reports_wait_while_the_pending_proposal_is_full)
{
	enum { NREPORTS = 40, NROUNDS = 5 };
	struct enc_buf b[NREPORTS];
	struct pg_stat st;
	struct aclient a;
	json_t *d;
	json_int_t held = 0;
	int i, k, round;

	cluster_small(8);
	d = ok("{\"prefix\":\"config set\",\"key\":\"mon.propose_max_ops\","
	       "\"value\":\"4\"}");
	json_decref(d);
	for (round = 0; round < NROUNDS && held == 0; round++) {
		memset(b, 0, sizeof b);
		a_open(&a);
		for (k = 0; k < NREPORTS; k++) {
			enc_buf_put_u16(&b[k], FRAME_BINARY_PG_REPORT);
			enc_buf_put_u32(&b[k], 0);
			enc_buf_put_u32(&b[k], 8);
			for (i = 0; i < 8; i++) {
				pg_stat_init(&st,
				    (struct pg_id){ 1, (uint32_t)i });
				st.state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
				st.reported_epoch = 10;
				st.reported_seq = (uint64_t)(round * NREPORTS +
				    k + 1);
				st.up_len = st.acting_len = 1;
				st.up[0] = st.acting[0] = 0;
				st.up_primary = st.acting_primary = 0;
				st.num_objects = (uint64_t)k;
				pg_stat_encode(&st, &b[k]);
			}
			cr_assert_eq(mclient_request_binary(a.c, b[k].data,
					 b[k].len, a_reply, &a),
			    0);
		}
		cr_assert(a_wait(&a, NREPORTS, 0, 20000),
		    "%d of %d reports answered", a.replies, NREPORTS);
		cr_assert_eq(a.rc, 0, "%s", a.status);
		cr_assert_eq(jint(a.data, "accepted"), 8);
		a_close(&a);
		for (k = 0; k < NREPORTS; k++)
			enc_buf_free(&b[k]);
		/* The last report, applied last, is what the map holds. */
		d = ok("{\"prefix\":\"pg stat\"}");
		cr_assert_eq(jint(d, "num_objects"), 8 * (NREPORTS - 1));
		json_decref(d);
		d = ok("{\"prefix\":\"perf dump\"}");
		held = jint(d, "server.pg_reports_held");
		cr_assert_eq(jint(d, "commands.pg report.calls"),
		    (round + 1) * NREPORTS);
		cr_assert_eq(jint(d, "commands.pg report.errors"), 0);
		json_decref(d);
	}
	cr_assert_gt(held, 0,
	    "no report waited for the full proposal in %d "
	    "bursts",
	    NROUNDS);
}

/* -------------------------------------------------------------- limits */

/* What a refusal must leave as it was. */
struct seen {
	json_int_t epoch, osds, pgs;
	char *pools;
};

static void
seen_now(struct seen *s)
{
	json_t *d;

	d = ok("{\"prefix\":\"osd stat\"}");
	s->epoch = jint(d, "epoch");
	s->osds = jint(d, "num_osds");
	json_decref(d);
	d = ok("{\"prefix\":\"pg stat\"}");
	s->pgs = jint(d, "num_pgs");
	json_decref(d);
	d = ok("{\"prefix\":\"osd pool ls\",\"detail\":\"detail\"}");
	s->pools = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(d);
}

/*
 * Nothing was staged since *before: a commit made now (noout set, then
 * cleared) is the only change, two epochs, and the OSDs, the pools and
 * the PGs are as they were.  Frees before's pools.
 */
static void
nothing_staged(struct seen *before)
{
	struct seen now;

	json_decref(ok("{\"prefix\":\"osd set\",\"key\":\"noout\"}"));
	json_decref(ok("{\"prefix\":\"osd unset\",\"key\":\"noout\"}"));
	seen_now(&now);
	cr_assert_eq(now.epoch, before->epoch + 2, "epoch %lld, then %lld",
	    (long long)before->epoch, (long long)now.epoch);
	cr_assert_eq(now.osds, before->osds);
	cr_assert_eq(now.pgs, before->pgs);
	cr_assert_str_eq(now.pools, before->pools);
	free(now.pools);
	free(before->pools);
}

static void
config_set(const char *key, const char *value)
{
	json_decref(ok("{\"prefix\":\"config set\",\"key\":\"%s\","
	    "\"value\":\"%s\"}", key, value));
}

/*
 * Append text to the config file, SIGHUP the daemon and wait until
 * `config get key` answers want.
 */
static void
sighup_until(const char *text, const char *key, const char *want)
{
	json_t *d;
	FILE *f;
	double deadline = now_s() + 5;
	int done = 0;

	f = fopen(D.conf, "a");
	cr_assert_not_null(f);
	fprintf(f, "%s", text);
	fclose(f);
	kill(D.pid, SIGHUP);
	while (!done && now_s() < deadline) {
		d = ok("{\"prefix\":\"config get\",\"key\":\"%s\"}", key);
		done = strcmp(jstr(d, "value"), want) == 0;
		json_decref(d);
		if (!done)
			usleep(20000);
	}
	cr_assert(done, "SIGHUP did not apply %s = %s", key, want);
}

/* n OSDs, booted (so in). */
static void
osds_up(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		json_decref(ok("{\"prefix\":\"osd create\"}"));
		json_decref(ok("{\"prefix\":\"osd boot\",\"id\":%d}", i));
	}
}

/* [mon] max_pool_pg_num: Ceph's refusal, the boundary, a raise. */
Test(cmd, limit_max_pool_pg_num)
{
	struct seen s;

	config_set("mon.max_pg_per_osd", "1000000");
	seen_now(&s);
	refused(-ERANGE, "'pg_num' must be greater than 0 and less than or "
	    "equal to 65536 (you may adjust 'mon max pool pg num' for higher "
	    "values)", "{\"prefix\":\"osd pool create\",\"pool\":\"p\","
	    "\"pg_num\":65537,\"size\":1}");
	nothing_staged(&s);

	config_set("mon.max_pool_pg_num", "100");
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"p\","
	    "\"pg_num\":100,\"size\":1}"));
	seen_now(&s);
	refused(-ERANGE, "less than or equal to 100 (", "{\"prefix\":"
	    "\"osd pool create\",\"pool\":\"q\",\"pg_num\":101,\"size\":1}");
	refused(-ERANGE, "less than or equal to 100 (", "{\"prefix\":"
	    "\"osd pool set\",\"pool\":\"p\",\"var\":\"pg_num\",\"val\":101}");
	nothing_staged(&s);
	/* Raised at run time, the same requests go through. */
	config_set("mon.max_pool_pg_num", "101");
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"q\","
	    "\"pg_num\":101,\"size\":1}"));
	json_decref(ok("{\"prefix\":\"osd pool set\",\"pool\":\"p\","
	    "\"var\":\"pg_num\",\"val\":101}"));
	cr_assert_eq(pgs_in_state("creating"), 202);
}

/* [mon] max_pg_per_osd: Ceph's check and message, OSDs in counted. */
Test(cmd, limit_max_pg_per_osd)
{
	struct seen s;

	/* No OSD in: counted as 3, so 750; the boundary is allowed. */
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"p\","
	    "\"pg_num\":250,\"size\":3}"));
	seen_now(&s);
	refused(-ERANGE, "pg_num 1 size 1 would mean 751 total pgs, which "
	    "exceeds max 750 (mon_max_pg_per_osd 250 * num_in_osds 3)",
	    "{\"prefix\":\"osd pool create\",\"pool\":\"q\",\"pg_num\":1,"
	    "\"size\":1}");
	refused(-ERANGE, "pool id 1 pg_num 251 size 3 would mean 753 total "
	    "pgs, which exceeds max 750 (mon_max_pg_per_osd 250 * num_in_osds "
	    "3)", "{\"prefix\":\"osd pool set\",\"pool\":\"p\","
	    "\"var\":\"pg_num\",\"val\":251}");
	refused(-ERANGE, "pool id 1 pg_num 250 size 4 would mean 1000 total "
	    "pgs, which exceeds max 750 (mon_max_pg_per_osd 250 * num_in_osds "
	    "3)", "{\"prefix\":\"osd pool set\",\"pool\":\"p\","
	    "\"var\":\"size\",\"val\":4}");
	nothing_staged(&s);

	/* Four OSDs in: 1000. */
	osds_up(4);
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"q\","
	    "\"pg_num\":250,\"size\":1}"));
	seen_now(&s);
	refused(-ERANGE, "pg_num 1 size 1 would mean 1001 total pgs, which "
	    "exceeds max 1000 (mon_max_pg_per_osd 250 * num_in_osds 4)",
	    "{\"prefix\":\"osd pool create\",\"pool\":\"r\",\"pg_num\":1,"
	    "\"size\":1}");
	nothing_staged(&s);
	/* A size that shrinks is not checked; a raise lets the create in. */
	json_decref(ok("{\"prefix\":\"osd pool set\",\"pool\":\"p\","
	    "\"var\":\"size\",\"val\":2}"));
	config_set("mon.max_pg_per_osd", "300");
	json_decref(ok("{\"prefix\":\"osd pool set\",\"pool\":\"p\","
	    "\"var\":\"size\",\"val\":3}"));
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"r\","
	    "\"pg_num\":1,\"size\":1}"));
}

/* [mon] max_pgs: the PGs of all pools, checked before anything is staged. */
Test(cmd, limit_max_pgs)
{
	struct seen s;
	json_t *d;

	d = ok("{\"prefix\":\"config get\",\"key\":\"mon.max_pgs\"}");
	cr_assert_str_eq(jstr(d, "value"), "262144");
	json_decref(d);
	config_set("mon.max_pg_per_osd", "1000000");
	config_set("mon.max_pgs", "1000");
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"p\","
	    "\"pg_num\":600,\"size\":1}"));
	seen_now(&s);
	refused(-ERANGE, "pg_num 401 would mean 1001 pgs in all pools, which "
	    "exceeds max_pgs 1000 (mon max_pgs, the monitor's memory bound)",
	    "{\"prefix\":\"osd pool create\",\"pool\":\"q\",\"pg_num\":401,"
	    "\"size\":1}");
	nothing_staged(&s);
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"q\","
	    "\"pg_num\":400,\"size\":1}"));
	seen_now(&s);
	refused(-ERANGE, "pool id 2 pg_num 401 would mean 1001 pgs in all "
	    "pools, which exceeds max_pgs 1000", "{\"prefix\":\"osd pool "
	    "set\",\"pool\":\"q\",\"var\":\"pg_num\",\"val\":401}");
	nothing_staged(&s);
	/* A size adds no PG; a raise lets the growth in. */
	json_decref(ok("{\"prefix\":\"osd pool set\",\"pool\":\"q\","
	    "\"var\":\"size\",\"val\":2}"));
	config_set("mon.max_pgs", "1001");
	json_decref(ok("{\"prefix\":\"osd pool set\",\"pool\":\"q\","
	    "\"var\":\"pg_num\",\"val\":401}"));
	cr_assert_eq(pgs_in_state("creating"), 1001);
}

/* [mon] max_osd bounds the ids; SIGHUP raises it like config set. */
Test(cmd, limit_max_osd)
{
	struct seen s;
	json_t *d;

	seen_now(&s);
	refused(-ERANGE, "cannot create osd.10000: max_osd would be 10001, "
	    "which is > mon max_osd (10000)", "{\"prefix\":\"osd create\","
	    "\"id\":10000}");
	refused(-ERANGE, "osd.65535", "{\"prefix\":\"osd create\","
	    "\"id\":65535}");
	nothing_staged(&s);
	d = ok("{\"prefix\":\"osd create\",\"id\":9999}");
	cr_assert_eq(jint(d, "osdid"), 9999);
	json_decref(d);

	/* The lowest free id past the limit: refused too. */
	config_set("mon.max_osd", "2");
	json_decref(ok("{\"prefix\":\"osd create\"}"));
	json_decref(ok("{\"prefix\":\"osd create\"}"));
	seen_now(&s);
	refused(-ERANGE, "cannot create osd.2: max_osd would be 3, which is > "
	    "mon max_osd (2)", "{\"prefix\":\"osd create\"}");
	nothing_staged(&s);
	sighup_until("[mon]\nmax_osd = 3\n", "mon.max_osd", "3");
	d = ok("{\"prefix\":\"osd create\"}");
	cr_assert_eq(jint(d, "osdid"), 2);
	json_decref(d);
}

/*
 * A PG report's up and acting ids index the monitor's per-OSD counts:
 * one beyond the id space is refused, whole, before anything is staged.
 */
Test(cmd, pg_report_osd_ids_are_osd_ids)
{
	json_t *pgs, *cmd;
	char *st = NULL;
	int rc;

	cluster_small(4);
	pgs = clean_stats(4, 1);
	json_object_set_new(json_array_get(pgs, 3), "acting",
	    json_pack("[i]", 70000));
	cmd = json_pack("{s:s, s:i, s:O}", "prefix", "pg report", "osd", 0,
	    "pgs", pgs);
	rc = mclient_call(D.addr, CALL_TIMEOUT_MS, cmd, NULL, &st);
	cr_assert_eq(rc, -EINVAL, "rc %d: %s", rc, st);
	cr_assert_str_eq(st, "pg 1.3: osd id 70000 out of range (-1 to "
	    "65535)");
	free(st);
	json_decref(cmd);
	cr_assert_eq(pgs_in_state("creating"), 4);
	json_object_set_new(json_array_get(pgs, 3), "acting",
	    json_pack("[i]", 0));
	json_object_set_new(json_array_get(pgs, 3), "up_primary",
	    json_integer(-2));
	cmd = json_pack("{s:s, s:i, s:O}", "prefix", "pg report", "osd", 0,
	    "pgs", pgs);
	rc = mclient_call(D.addr, CALL_TIMEOUT_MS, cmd, NULL, &st);
	cr_assert_eq(rc, -EINVAL, "rc %d: %s", rc, st);
	cr_assert(strstr(st, "osd id -2 out of range") != NULL, "%s", st);
	free(st);
	json_decref(cmd);
	json_object_set_new(json_array_get(pgs, 3), "up_primary",
	    json_integer(0));
	cmd = json_pack("{s:s, s:i, s:O}", "prefix", "pg report", "osd", 0,
	    "pgs", pgs);
	rc = mclient_call(D.addr, CALL_TIMEOUT_MS, cmd, NULL, &st);
	cr_assert_eq(rc, 0, "%s", st);
	free(st);
	json_decref(cmd);
	json_decref(pgs);
	cr_assert_eq(pgs_in_state("active+clean"), 4);
}

/* ------------------------------------------------------- subscriptions */

Test(cmd, subscribe_osdmap_full_then_incrementals)
{
	struct aclient a;
	json_t *p, *d;
	json_int_t epoch;

	d = ok("{\"prefix\":\"osd stat\"}");
	epoch = jint(d, "epoch");
	json_decref(d);
	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"osdmap\"}");
	cr_assert(a_wait(&a, 1, 1, 5000));
	p = a_push_at(&a, 0);
	cr_assert_str_eq(jstr(p, "what"), "osdmap");
	cr_assert_eq(jint(p, "epoch"), epoch);
	cr_assert_eq(jint(p, "full.epoch"), epoch);

	json_decref(ok("{\"prefix\":\"osd create\"}"));
	cr_assert(a_wait(&a, 1, 2, 5000), "no push for the new epoch");
	p = a_push_at(&a, 1);
	cr_assert_eq(jint(p, "epoch"), epoch + 1);
	cr_assert(json_is_object(json_object_get(p, "inc")));
	cr_assert_eq(jint(p, "inc.epoch"), epoch + 1);
	/* A read changes nothing: no push. */
	json_decref(ok("{\"prefix\":\"osd dump\"}"));
	cr_assert(!a_wait(&a, 1, 3, 200));
	a_close(&a);
}

Test(cmd, subscribe_osdmap_after_epoch)
{
	struct aclient a;
	json_t *d;
	json_int_t e0;
	size_t i;

	d = ok("{\"prefix\":\"osd stat\"}");
	e0 = jint(d, "epoch");
	json_decref(d);
	json_decref(ok("{\"prefix\":\"osd create\"}"));
	json_decref(ok("{\"prefix\":\"osd create\"}"));
	json_decref(ok("{\"prefix\":\"osd set\",\"key\":\"noup\"}"));
	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"osdmap\","
	    "\"start\":1}");
	cr_assert(a_wait(&a, 1, 3, 5000));
	cr_assert(!a_wait(&a, 1, 4, 200), "more than the 3 incrementals");
	for (i = 0; i < 3; i++) {
		cr_assert_eq(jint(a_push_at(&a, i), "epoch"),
		    e0 + 1 + (json_int_t)i);
		cr_assert_null(json_object_get(a_push_at(&a, i), "full"));
	}
	cr_assert_str_eq(jstr(a_push_at(&a, 2), "inc.new_flags"), "noup");
	a_close(&a);

	/* Up to date: nothing until the next change. */
	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"osdmap\","
	    "\"start\":4}");
	cr_assert(!a_wait(&a, 1, 1, 200));
	json_decref(ok("{\"prefix\":\"osd unset\",\"key\":\"noup\"}"));
	cr_assert(a_wait(&a, 1, 1, 5000));
	cr_assert_eq(jint(a_push_at(&a, 0), "epoch"), 5);
	a_close(&a);
}

Test(cmd, subscribe_osdmap_trimmed_start_gets_full)
{
	struct aclient a;
	json_t *d, *p;
	json_int_t epoch;
	int i;

	json_decref(ok("{\"prefix\":\"config set\",\"key\":\"mon.min_epochs\","
	    "\"value\":\"10\"}"));
	for (i = 0; i < 12; i++) {
		json_decref(ok("{\"prefix\":\"osd set\",\"key\":\"noout\"}"));
		json_decref(ok("{\"prefix\":\"osd unset\",\"key\":\"noout\"}"));
	}
	d = ok("{\"prefix\":\"store stat\"}");
	cr_assert_gt(jint(d, "osdmap_first"), 2, "nothing was trimmed");
	epoch = jint(d, "osdmap_last");
	json_decref(d);
	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"osdmap\","
	    "\"start\":1}");
	cr_assert(a_wait(&a, 1, 1, 5000));
	cr_assert(!a_wait(&a, 1, 2, 200), "more than the full map");
	p = a_push_at(&a, 0);
	cr_assert_eq(jint(p, "epoch"), epoch);
	cr_assert_eq(jint(p, "full.epoch"), epoch);
	a_close(&a);
}

/*
 * A subscription from an old epoch, whose incrementals are far more than
 * max_client_output: they are paced to the reader (in bursts, each once
 * the output has drained), so a reader that waits before reading is not
 * cut, and then has every epoch once, in order, with that of a commit
 * made during the catch-up in its place.
 */
Test(cmd, subscribe_osdmap_catch_up_is_paced)
{
	struct aclient a;
	json_t *d, *p;
	json_int_t e0, last;
	char ids[512];
	size_t i, want, off = 0;
	int n;

	/* 100 OSDs: marking them all out or in is an incremental of ~15K. */
	for (n = 0; n < 100; n++) {
		json_decref(ok("{\"prefix\":\"osd create\"}"));
		off += (size_t)snprintf(ids + off, sizeof ids - off, "%s%d",
		    n > 0 ? "," : "", n);
	}
	d = ok("{\"prefix\":\"osd stat\"}");
	e0 = jint(d, "epoch");
	json_decref(d);
	for (n = 0; n < 10; n++) {
		json_decref(ok("{\"prefix\":\"osd in\",\"ids\":[%s]}", ids));
		json_decref(ok("{\"prefix\":\"osd out\",\"ids\":[%s]}", ids));
	}
	config_set("mon.max_client_output", "64K");
	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"osdmap\","
	    "\"start\":1}");
	json_decref(ok("{\"prefix\":\"osd set\",\"key\":\"noout\"}"));
	d = ok("{\"prefix\":\"osd stat\"}");
	last = jint(d, "epoch");
	json_decref(d);
	cr_assert_eq(last, e0 + 21);
	want = (size_t)(last - 1);
	cr_assert(a_wait(&a, 1, want, 10000), "%zu of %zu epochs came",
	    json_array_size(a.pushes), want);
	cr_assert(!a_wait(&a, 1, want + 1, 200), "a push too many");
	json_array_foreach(a.pushes, i, p) {
		cr_assert_eq(jint(p, "epoch"), (json_int_t)i + 2);
		cr_assert(json_is_object(json_object_get(p, "inc")));
	}
	cr_assert_str_eq(jstr(a_push_at(&a, want - 1), "inc.new_flags"),
	    "noout");
	d = ok("{\"prefix\":\"perf dump\"}");
	cr_assert_eq(jint(d, "server.closed_slow"), 0);
	json_decref(d);
	a_close(&a);
}

/* A log subscription from seq 0: the kept entries, SUB_LOG_CHUNK a push. */
Test(cmd, subscribe_log_catch_up_in_chunks)
{
	struct aclient a;
	json_t *d, *p, *e;
	json_int_t last, prev, seq = 0;
	size_t i, j, want;
	int n;

	for (n = 0; n < 300; n++)
		json_decref(ok("{\"prefix\":\"osd %s\",\"key\":\"noout\"}",
		    n % 2 == 0 ? "set" : "unset"));
	/*
	 * The health lines of the last change (OSDMAP_FLAGS cleared) are
	 * committed after it: wait until the log stands still.
	 */
	last = -1;
	do {
		prev = last;
		usleep(100000);
		d = ok("{\"prefix\":\"log last\",\"num\":1}");
		last = jint(json_array_get(d, 0), "seq");
		json_decref(d);
	} while (last != prev);
	cr_assert_gt(last, SUB_LOG_CHUNK);
	want = ((size_t)last + SUB_LOG_CHUNK - 1) / SUB_LOG_CHUNK;
	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"log\","
	    "\"start\":0}");
	cr_assert(a_wait(&a, 1, want, 5000), "%zu of %zu pushes came",
	    json_array_size(a.pushes), want);
	cr_assert(!a_wait(&a, 1, want + 1, 200), "a push too many");
	json_array_foreach(a.pushes, i, p) {
		cr_assert_leq(json_array_size(json_object_get(p, "entries")),
		    SUB_LOG_CHUNK);
		json_array_foreach(json_object_get(p, "entries"), j, e)
			cr_assert_eq(jint(e, "seq"), ++seq);
	}
	cr_assert_eq(seq, last);
	a_close(&a);
}

Test(cmd, subscribe_pgmap)
{
	struct aclient a;
	json_t *p, *pgs, *cmd;
	int rc;

	cluster_small(4);
	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"pgmap\"}");
	cr_assert(a_wait(&a, 1, 1, 5000));
	p = a_push_at(&a, 0);
	cr_assert_str_eq(jstr(p, "what"), "pgmap");
	cr_assert(json_is_true(json_object_get(p, "full")));
	cr_assert(json_is_true(json_object_get(p, "last")));
	cr_assert_eq(json_array_size(json_object_get(p, "pg_stats")), 4);

	pgs = clean_stats(2, 1);
	cmd = json_pack("{s:s, s:i, s:o}", "prefix", "pg report", "osd", 0,
	    "pgs", pgs);
	rc = mclient_call(D.addr, CALL_TIMEOUT_MS, cmd, NULL, NULL);
	cr_assert_eq(rc, 0);
	json_decref(cmd);
	cr_assert(a_wait(&a, 1, 2, 5000), "no pgmap push for the report");
	p = a_push_at(&a, 1);
	cr_assert_null(json_object_get(p, "full"));
	cr_assert_gt(jint(p, "version"), 0);
	cr_assert_eq(json_array_size(json_object_get(p, "pg_stats")), 2);
	cr_assert_str_eq(jstr(json_array_get(json_object_get(p, "pg_stats"),
	    0), "state"), "active+clean");

	/* A new pool's PGs come in the push of its commit. */
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"two\","
	    "\"pg_num\":3,\"size\":1}"));
	cr_assert(a_wait(&a, 1, 3, 5000));
	p = a_push_at(&a, 2);
	cr_assert_eq(json_array_size(json_object_get(p, "pg_stats")), 3);
	a_close(&a);
}

/*
 * A subscriber resuming from a position (as net/hunt.h does on another
 * monitor): the pgmap from a kept version gets the PGs changed since, not
 * a snapshot; from the current version or a later one (a monitor behind
 * the one it left), nothing until the next change; so does the osdmap.
 */
Test(cmd, subscribe_resume_from_a_position)
{
	struct aclient a;
	json_t *p, *cmd, *d;
	json_int_t v0, e0;
	char *text;
	int rc;

	cluster_small(4);
	d = ok("{\"prefix\":\"pg stat\"}");
	v0 = jint(d, "version");
	json_decref(d);
	cmd = json_pack("{s:s, s:i, s:o}", "prefix", "pg report", "osd", 0,
	    "pgs", clean_stats(2, 1));
	rc = mclient_call(D.addr, CALL_TIMEOUT_MS, cmd, NULL, NULL);
	cr_assert_eq(rc, 0);
	json_decref(cmd);

	a_open(&a);
	xasprintf(&text,
	    "{\"prefix\":\"subscribe\",\"what\":\"pgmap\","
	    "\"start\":%lld}",
	    (long long)v0);
	a_subscribe(&a, text);
	free(text);
	cr_assert(a_wait(&a, 1, 1, 5000));
	cr_assert(!a_wait(&a, 1, 2, 200), "more than the one catch-up push");
	p = a_push_at(&a, 0);
	cr_assert_null(json_object_get(p, "full"), "a snapshot");
	cr_assert_eq(jint(p, "since"), v0);
	cr_assert_gt(jint(p, "version"), v0);
	cr_assert(json_is_true(json_object_get(p, "last")));
	cr_assert_eq(json_array_size(json_object_get(p, "pg_stats")), 2,
	    "not the 2 PGs reported");
	a_close(&a);

	d = ok("{\"prefix\":\"osd stat\"}");
	e0 = jint(d, "epoch");
	json_decref(d);
	a_open(&a);
	xasprintf(&text,
	    "{\"prefix\":\"subscribe\",\"what\":\"osdmap\","
	    "\"start\":%lld}",
	    (long long)e0 + 5);
	a_subscribe(&a, text);
	free(text);
	xasprintf(&text,
	    "{\"prefix\":\"subscribe\",\"what\":\"pgmap\","
	    "\"start\":%lld}",
	    (long long)v0 + 100);
	a_subscribe(&a, text);
	free(text);
	cr_assert(a_wait(&a, 2, 0, 5000));
	cr_assert(!a_wait(&a, 2, 1, 200),
	    "a push from a later epoch or version");
	json_decref(ok("{\"prefix\":\"osd set\",\"key\":\"noout\"}"));
	cr_assert(a_wait(&a, 2, 1, 5000));
	cr_assert_eq(jint(a_push_at(&a, 0), "epoch"), e0 + 1);
	a_close(&a);
}

Test(cmd, subscribe_pgmap_snapshot_in_chunks)
{
	struct aclient a;
	json_t *p;
	size_t i, n, total = 0;
	size_t want = (25000 + SUB_PG_CHUNK - 1) / SUB_PG_CHUNK;
	char pgid[32];

	cluster_small(25000);
	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"pgmap\"}");
	cr_assert(a_wait(&a, 1, want, 20000), "%zu of %zu chunks came",
	    json_array_size(a.pushes), want);
	for (i = 0; i < want; i++) {
		p = a_push_at(&a, i);
		cr_assert(json_is_true(json_object_get(p, "full")));
		n = json_array_size(json_object_get(p, "pg_stats"));
		cr_assert(n > 0 && n <= SUB_PG_CHUNK, "chunk %zu holds %zu PGs",
		    i, n);
		cr_assert_eq(jint(p, "version"), jint(a_push_at(&a, 0),
		    "version"), "no commit came in between");
		/* In seed order: none lost, none twice. */
		snprintf(pgid, sizeof pgid, "1.%zx", total);
		cr_assert_str_eq(jstr(json_array_get(json_object_get(p,
		    "pg_stats"), 0), "pgid"), pgid);
		total += n;
		cr_assert_eq(json_is_true(json_object_get(p, "last")),
		    i == want - 1);
	}
	cr_assert_eq(total, 25000);
	cr_assert(!a_wait(&a, 1, want + 1, 200), "a push after the last");
	a_close(&a);
}

/*
 * A commit during a snapshot: its push comes between the chunks, the
 * chunks after it carry the new version and the new pool's PGs, and
 * together they make the whole map.
 */
Test(cmd, subscribe_pgmap_commit_during_snapshot)
{
	struct aclient a;
	json_t *p;
	size_t i, n, full = 0, commits = 0, at = 0;
	json_int_t v0, vnew = 0;
	double deadline;
	int last = 0;

	cluster_small(25000);
	a_open(&a);
	/* The reply is read; the chunks wait in the kernel, unread. */
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"pgmap\"}");
	json_decref(ok("{\"prefix\":\"osd pool create\",\"pool\":\"two\","
	    "\"pg_num\":3,\"size\":1}"));
	deadline = now_s() + 20;
	while (!last && now_s() < deadline) {
		event_base_loop(a.base, EVLOOP_ONCE);
		n = json_array_size(a.pushes);
		last = n > 0 && json_is_true(json_object_get(a_push_at(&a,
		    n - 1), "last"));
	}
	cr_assert(last, "the snapshot did not end");
	v0 = jint(a_push_at(&a, 0), "version");
	json_array_foreach(a.pushes, i, p) {
		n = json_array_size(json_object_get(p, "pg_stats"));
		if (json_is_true(json_object_get(p, "full"))) {
			full += n;
			cr_assert_eq(jint(p, "version"), commits > 0 ? vnew :
			    v0, "chunk %zu has version %lld", i,
			    (long long)jint(p, "version"));
			continue;
		}
		commits++;
		at = i;
		vnew = jint(p, "version");
		cr_assert_gt(vnew, v0);
		cr_assert_eq(n, 3, "the commit's push holds the new PGs");
	}
	cr_assert_eq(commits, 1, "%zu commit pushes", commits);
	cr_assert(at > 0 && at < json_array_size(a.pushes) - 1, "the commit "
	    "came at push %zu, not between chunks", at);
	cr_assert_eq(full, 25003, "the chunks hold %zu PGs", full);
	a_close(&a);
}

Test(cmd, subscribe_log)
{
	struct aclient a;
	json_t *p, *e;
	int found = 0;
	size_t i, j;

	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"log\","
	    "\"start\":0}");
	cr_assert(a_wait(&a, 1, 1, 5000));
	p = a_push_at(&a, 0);
	cr_assert_str_eq(jstr(p, "what"), "log");
	e = json_array_get(json_object_get(p, "entries"), 0);
	cr_assert_eq(jint(e, "seq"), 1);
	cr_assert(strstr(jstr(e, "message"), "mkfs") != NULL);

	json_decref(ok("{\"prefix\":\"osd create\"}"));
	json_decref(ok("{\"prefix\":\"osd boot\",\"id\":0}"));
	cr_assert(a_wait(&a, 1, 3, 5000));
	json_array_foreach(a.pushes, i, p)
		json_array_foreach(json_object_get(p, "entries"), j, e) {
			cr_assert(json_is_string(json_object_get(e, "stamp")));
			cr_assert(json_is_string(json_object_get(e,
			    "severity")));
			if (strcmp(jstr(e, "message"), "osd.0 created") == 0)
				found = 1;
		}
	cr_assert(found, "no push of 'osd.0 created'");
	a_close(&a);

	/* Without start: only new entries. */
	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"log\"}");
	cr_assert(!a_wait(&a, 1, 1, 200));
	json_decref(ok("{\"prefix\":\"osd create\"}"));
	cr_assert(a_wait(&a, 1, 1, 5000));
	e = json_array_get(json_object_get(a_push_at(&a, 0), "entries"), 0);
	cr_assert_str_eq(jstr(e, "message"), "osd.1 created");
	a_close(&a);
}

/*
 * The health of a checks' object at its current evaluation: the code's
 * object in "health detail", or NULL; d holds it (the caller's).
 */
static json_t *
health_check(json_t **d, const char *code)
{
	*d = ok("{\"prefix\":\"health\",\"detail\":\"detail\"}");
	return json_object_get(json_object_get(*d, "checks"), code);
}

/* Wait up to 5 s for code to be raised (want 1) or cleared (want 0). */
static void
health_wait(const char *code, int want)
{
	json_t *d;
	int i;

	for (i = 0; i < 100; i++) {
		int raised = health_check(&d, code) != NULL;

		json_decref(d);
		if (raised == want)
			return;
		usleep(50000);
	}
	cr_assert_fail("%s still %s after 5 s", code,
	    want ? "not raised" : "raised");
}

/*
 * MON_DISK_LOW and MON_DISK_CRIT follow [mon] data_avail_warn and
 * data_avail_crit as Ceph's (mon_data_avail_warn/crit): thresholds above
 * any free space raise them, with Ceph's words; back down, they clear.
 */
Test(cmd, disk_low_and_crit_follow_their_thresholds)
{
	json_t *d, *c;

	json_decref(ok("{\"prefix\":\"config set\",\"key\":"
		       "\"mon.data_avail_warn\",\"value\":\"100\"}"));
	health_wait("MON_DISK_LOW", 1);
	c = health_check(&d, "MON_DISK_LOW");
	cr_assert_str_eq(jstr(c, "severity"), "HEALTH_WARN");
	cr_assert_str_eq(jstr(c, "summary.message"),
	    "mon a is low on available space");
	cr_assert(strncmp(json_string_value(json_object_get(
			      json_array_get(json_object_get(c, "detail"), 0),
			      "message")),
		      "mon.a has ", 10) == 0);
	json_decref(d);

	json_decref(ok("{\"prefix\":\"config set\",\"key\":"
		       "\"mon.data_avail_crit\",\"value\":\"100\"}"));
	health_wait("MON_DISK_CRIT", 1);
	c = health_check(&d, "MON_DISK_CRIT");
	cr_assert_str_eq(jstr(c, "severity"), "HEALTH_ERR");
	cr_assert_str_eq(jstr(c, "summary.message"),
	    "mon a is very low on available space");
	cr_assert_null(
	    json_object_get(json_object_get(d, "checks"), "MON_DISK_LOW"),
	    "LOW is not raised beside CRIT");
	cr_assert_str_eq(jstr(d, "status"), "HEALTH_ERR");
	json_decref(d);

	json_decref(ok("{\"prefix\":\"config set\",\"key\":"
		       "\"mon.data_avail_crit\",\"value\":\"0\"}"));
	json_decref(ok("{\"prefix\":\"config set\",\"key\":"
		       "\"mon.data_avail_warn\",\"value\":\"1\"}"));
	health_wait("MON_DISK_CRIT", 0);
	health_wait("MON_DISK_LOW", 0);
}

Test(cmd, subscribe_health)
{
	struct aclient a;
	json_t *p;

	a_open(&a);
	a_subscribe(&a, "{\"prefix\":\"subscribe\",\"what\":\"health\"}");
	cr_assert(a_wait(&a, 1, 1, 5000));
	p = a_push_at(&a, 0);
	cr_assert_str_eq(jstr(p, "what"), "health");
	cr_assert_str_eq(jstr(p, "health.status"), "HEALTH_OK");
	cluster_small(4);
	cr_assert(a_wait(&a, 1, 2, 5000), "no push for the health change");
	p = json_array_get(a.pushes, json_array_size(a.pushes) - 1);
	cr_assert_str_eq(jstr(p, "health.status"), "HEALTH_WARN");
	cr_assert_not_null(json_object_get(json_object_get(json_object_get(p,
	    "health"), "checks"), "PG_AVAILABILITY"));
	a_close(&a);
}

Test(cmd, subscriptions_per_connection_are_bounded)
{
	struct aclient a;
	json_t *cmd = json_pack("{s:s, s:s}", "prefix", "subscribe", "what",
	    "health");
	int i;

	a_open(&a);
	for (i = 0; i < 17; i++)
		cr_assert_eq(mclient_subscribe(a.c, cmd, a_push, a_reply, &a),
		    0);
	cr_assert(a_wait(&a, 17, 0, 5000));
	cr_assert_eq(a.rc, -EBUSY, "%s", a.status);
	json_decref(cmd);
	a_close(&a);
	/* The daemon dropped them with the connection. */
	cmd = ok("{\"prefix\":\"perf dump\"}");
	cr_assert_eq(jint(cmd, "subscriptions.active"), 0);
	json_decref(cmd);
}

/* Read exactly len bytes, at most chunk at a time: 0, or -1 on EOF/error. */
static int
raw_read(int fd, void *p, size_t len, size_t chunk)
{
	uint8_t *b = p;
	ssize_t n;

	while (len > 0) {
		n = recv(fd, b, len < chunk ? len : chunk, 0);
		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The session keys of a raw connection, by descriptor, once sealed. */
static struct {
	int on;
	struct seal tx, rx;
} raw_seal[1024];

/*
 * One frame, read chunk bytes at a time: its header in *h and its payload
 * (owned; opened when the connection is sealed), or NULL at EOF.
 */
static char *
raw_frame(int fd, struct frame_header *h, size_t chunk)
{
	uint8_t hdr[FRAME_HEADER_SIZE];
	char *p, *cause = NULL;

	if (raw_read(fd, hdr, sizeof hdr, sizeof hdr) == -1)
		return NULL;
	cr_assert_eq(
	    frame_decode_header(hdr, sizeof hdr, (size_t)1 << 30, h, &cause), 0,
	    "bad header from the daemon: %s", cause);
	p = xmalloc((size_t)h->len + 1);
	cr_assert_eq(raw_read(fd, p, h->len, chunk), 0, "a frame cut short");
	if (fd < (int)nitems(raw_seal) && raw_seal[fd].on) {
		cr_assert_eq(seal_open(&raw_seal[fd].rx, hdr, (uint8_t *)p,
				 h->len, &cause),
		    0, "%s", cause);
		h->len -= SEAL_TAG_LEN;
	}
	p[h->len] = '\0';
	return p;
}

/* Write one frame; sealed when the connection is. */
static void
raw_write_frame(int fd, uint8_t type, uint64_t id, const char *text)
{
	struct enc_buf b = { 0 };
	size_t n = strlen(text);
	char *cause = NULL;

	if (fd < (int)nitems(raw_seal) && raw_seal[fd].on) {
		frame_encode_header(enc_buf_reserve(&b, FRAME_HEADER_SIZE),
		    type, (uint32_t)(n + SEAL_TAG_LEN), id);
		cr_assert_eq(seal_frame(&raw_seal[fd].tx, b.data,
				 (const uint8_t *)text, n,
				 enc_buf_reserve(&b,
				     FRAME_HEADER_SIZE + n + SEAL_TAG_LEN) +
				     FRAME_HEADER_SIZE),
		    0);
		b.len = FRAME_HEADER_SIZE + n + SEAL_TAG_LEN;
	} else
		cr_assert_eq(frame_build(&b, type, id, text, n, &cause), 0);
	cr_assert_eq(write(fd, b.data, b.len), (ssize_t)b.len);
	enc_buf_free(&b);
}

/*
 * The handshake of mapmon-protocol(7) by hand, as client.admin with the
 * key mkfs wrote; the connection is then sealed.
 */
static void
raw_handshake(int fd, int parts)
{
	const struct keyring_entity *e;
	struct keyring *k;
	struct frame_header h;
	uint8_t nonce[SEAL_NONCE_LEN], th[SEAL_HASH_LEN], pr[SEAL_PROOF_LEN];
	uint8_t c2s[SEAL_KEY_LEN], s2c[SEAL_KEY_LEN];
	char path[160], hello[256], text[128], *b64, *p, *cause = NULL;

	snprintf(path, sizeof path, "%s/keyring", D.dir);
	cr_assert_eq(keyring_load(path, &k, &cause), 0, "%s", cause);
	cr_assert_not_null(e = keyring_find(k, "client.admin"));
	cr_assert_eq(seal_random(nonce, sizeof nonce), 0);
	b64 = b64_encode(nonce, sizeof nonce);
	snprintf(hello, sizeof hello,
	    "{\"protocol\":1,\"name\":"
	    "\"client.admin\",%s\"auth\":{\"nonce\":\"%s\",\"ciphers\":"
	    "[\"aes-256-gcm\"]}}",
	    parts ? "\"features\":[\"parts\"]," : "", b64);
	free(b64);
	raw_write_frame(fd, FRAME_HELLO, 0, hello);
	p = raw_frame(fd, &h, 4096);
	cr_assert_not_null(p, "no HELLO");
	cr_assert_eq(h.type, FRAME_HELLO);
	seal_transcript(th, hello, strlen(hello), p, h.len);
	free(p);
	seal_proof(pr, e->key, 0, th);
	b64 = b64_encode(pr, sizeof pr);
	snprintf(text, sizeof text, "{\"proof\":\"%s\"}", b64);
	free(b64);
	raw_write_frame(fd, FRAME_AUTH, 0, text);
	p = raw_frame(fd, &h, 4096);
	cr_assert_not_null(p, "no AUTH");
	cr_assert_eq(h.type, FRAME_AUTH, "refused: %s", p);
	free(p);
	seal_session_keys(e->key, th, c2s, s2c);
	keyring_free(k);
	cr_assert_eq(seal_init(&raw_seal[fd].tx, SEAL_AES_256_GCM, c2s, 1), 0);
	cr_assert_eq(seal_init(&raw_seal[fd].rx, SEAL_AES_256_GCM, s2c, 0), 0);
	raw_seal[fd].on = 1;
}

/*
 * A raw connection authenticated and sealed; parts offered when asked.
 */
static int
raw_open(int parts, int rcvbuf)
{
	struct sockaddr_in sin;
	struct timeval tv = { 20, 0 };
	unsigned port;
	int fd;

	cr_assert_eq(sscanf(D.addr, "127.0.0.1:%u", &port), 1);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert(fd != -1);
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	cr_assert_lt(fd, (int)nitems(raw_seal));
	/* A descriptor used before: its old session is over. */
	if (raw_seal[fd].on) {
		seal_clear(&raw_seal[fd].tx);
		seal_clear(&raw_seal[fd].rx);
		raw_seal[fd].on = 0;
	}
	raw_handshake(fd, parts);
	return fd;
}

/* Send request id on fd. */
static void
raw_request(int fd, uint64_t id, const char *text)
{
	raw_write_frame(fd, FRAME_REQUEST, id, text);
}

/* A raw connection that says HELLO and subscribes, then reads nothing. */
static int
raw_subscriber(const char *what)
{
	char text[128];
	int fd;

	fd = raw_open(0, 4096);
	snprintf(text, sizeof text,
	    "{\"prefix\":\"subscribe\",\"what\":\"%s\"}", what);
	raw_request(fd, 1, text);
	return fd;
}

Test(cmd, subscriber_that_does_not_read_is_cut)
{
	json_t *d;
	double deadline;
	int fd, cut = 0;

	char *log;

	cluster_small(20000);
	json_decref(ok("{\"prefix\":\"config set\","
	    "\"key\":\"mon.max_client_output\",\"value\":\"1M\"}"));
	/*
	 * The snapshot is paced to the reader, so it never passes 1M: the
	 * write-stall bound, idle_timeout, cuts it.
	 */
	json_decref(ok("{\"prefix\":\"config set\","
	    "\"key\":\"mon.idle_timeout\",\"value\":\"1s\"}"));
	fd = raw_subscriber("pgmap");
	deadline = now_s() + 10;
	/* Cut, and its subscription gone with it. */
	while (!cut && now_s() < deadline) {
		d = ok("{\"prefix\":\"perf dump\"}");
		cut = jint(d, "server.closed_slow") >= 1 &&
		    jint(d, "subscriptions.active") == 0;
		json_decref(d);
		if (!cut)
			usleep(20000);
	}
	cr_assert(cut, "the subscriber that does not read was not cut");
	log = read_file(D.log);
	cr_assert_not_null(strstr(log, "none taken for 1000 ms (idle_timeout): "
	    "disconnecting a client that does not read"), "no warning of the "
	    "stall in the log");
	free(log);
	/* Everyone else is served. */
	cr_assert_eq(pgs_in_state("creating"), 20000);
	close(fd);
}

/* -------------------------------------------------- large listings */

/*
 * A pool whose listings are some 20 MB: many pieces and parts, a third of
 * max_client_output.
 */
#define BIG_PGS 16384

/*
 * AddressSanitizer keeps freed memory in quarantine, so a daemon built with
 * it grows by what it freed: its VmHWM says nothing of the bound.
 */
#if defined(__SANITIZE_ADDRESS__)
#define HWM_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HWM_MEANINGFUL 0
#endif
#endif
#ifndef HWM_MEANINGFUL
#define HWM_MEANINGFUL 1
#endif

/* The daemon's VmHWM, in KiB. */
static long
daemon_hwm_kib(void)
{
	char path[64], *st, *p;
	long kib = -1;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)D.pid);
	st = read_file(path);
	if ((p = strstr(st, "VmHWM:")) != NULL)
		kib = strtol(p + 6, NULL, 10);
	free(st);
	cr_assert_gt(kib, 0, "no VmHWM in %s", path);
	return kib;
}

/*
 * Up to max frames (0: every one) of reply id on fd, read chunk bytes at
 * a time with pause_us after each, added to *all.  Returns the frames
 * read; *last tells whether the reply's last came.
 */
static int
raw_gather(int fd, uint64_t id, struct enc_buf *all, size_t chunk, int pause_us,
    int max, int *last)
{
	struct frame_header h;
	char *p;
	int frames = 0;

	*last = 0;
	while (!*last && (max == 0 || frames < max)) {
		p = raw_frame(fd, &h, chunk);
		cr_assert_not_null(p, "the reply ended after %d frames",
		    frames);
		cr_assert_eq(h.type, FRAME_REPLY);
		cr_assert_eq(h.id, id);
		frames++;
		*last = !(h.flags & FRAME_FLAG_MORE);
		enc_buf_put_bytes(all, p, h.len);
		free(p);
		if (pause_us > 0)
			usleep((useconds_t)pause_us);
	}
	return frames;
}

/* The reply (owned) to request id on fd, and its number of frames. */
static json_t *
raw_reply(int fd, uint64_t id, int *frames)
{
	struct enc_buf all = { 0 };
	char *cause = NULL;
	json_t *o;
	int last;

	*frames = raw_gather(fd, id, &all, 1 << 20, 0, 0, &last);
	o = frame_parse_json(all.data, all.len, &cause);
	cr_assert_not_null(o, "the reply is not JSON: %s", cause);
	enc_buf_free(&all);
	return o;
}

/* The PGs of a listing are pool 1's, seeds 0 .. n-1, each once, in order. */
static void
expect_every_pg(json_t *a, size_t n)
{
	char want[PG_ID_BUFSIZE];
	json_t *v;
	size_t i;

	cr_assert_eq(json_array_size(a), n, "%zu PGs, not %zu",
	    json_array_size(a), n);
	json_array_foreach(a, i, v) {
		snprintf(want, sizeof want, "1.%zx", i);
		cr_assert_str_eq(jstr(v, "pgid"), want);
	}
}

/*
 * The listings whose size grows with the PGs come whole through the client
 * library, every PG once, in parts on the wire (whole in one frame to a
 * client that does not take parts), and the daemon's memory does not grow
 * with them.
 */
Test(cmd, large_listings_come_whole_in_parts)
{
	json_t *d, *o;
	char *status = NULL;
	long hwm0, hwm1;
	int fd, frames;

	cluster_small(BIG_PGS);
	json_decref(ok("{\"prefix\":\"config set\","
		       "\"key\":\"mon.pg_stuck_threshold\",\"value\":\"1s\"}"));
	cr_assert_eq(pgs_in_state("creating"), BIG_PGS);
	hwm0 = daemon_hwm_kib();

	d = ok("{\"prefix\":\"pg dump\"}");
	expect_every_pg(
	    json_object_get(json_object_get(d, "pg_map"), "pg_stats"), BIG_PGS);
	cr_assert_eq(jint(d, "pg_map.pg_stats_sum.num_pgs"), BIG_PGS);
	cr_assert_eq(json_array_size(json_object_get(
			 json_object_get(d, "pg_map"), "osd_stats")),
	    1);
	json_decref(d);
	cr_assert_eq(call(&d, &status,
			 "{\"prefix\":\"pg ls\",\"poolstr\":"
			 "\"rbd\",\"states\":[\"creating\"]}"),
	    0);
	cr_assert_str_eq(status, "listed 16384 pgs");
	expect_every_pg(json_object_get(d, "pg_stats"), BIG_PGS);
	json_decref(d);
	free(status);
	/* Never clean, a second on: every PG is stuck unclean. */
	usleep(1100000);
	cr_assert_eq(call(&d, &status, "{\"prefix\":\"pg dump_stuck\"}"), 0);
	cr_assert_str_eq(status, "ok");
	expect_every_pg(json_object_get(d, "stuck_pg_stats"), BIG_PGS);
	json_decref(d);
	free(status);

	fd = raw_open(1, 0);
	raw_request(fd, 7,
	    "{\"prefix\":\"pg dump\","
	    "\"dumpcontents\":[\"pgs\"]}");
	o = raw_reply(fd, 7, &frames);
	cr_assert_geq(frames, 10, "%d frames", frames);
	cr_assert_eq(jint(o, "rc"), 0);
	cr_assert_str_eq(jstr(o, "status"), "dumped pgs");
	expect_every_pg(json_object_get(json_object_get(o, "data"), "pg_stats"),
	    BIG_PGS);
	json_decref(o);
	close(fd);

	/* Some 24 MB of text, four times: the daemon held a few at most. */
	hwm1 = daemon_hwm_kib();
	cr_assert(!HWM_MEANINGFUL || hwm1 - hwm0 < 12 * 1024,
	    "VmHWM grew from %ld to %ld KiB during the listings", hwm0, hwm1);

	/* Whole, in one frame, to a client that takes no parts. */
	fd = raw_open(0, 0);
	raw_request(fd, 8, "{\"prefix\":\"pg ls\"}");
	o = raw_reply(fd, 8, &frames);
	cr_assert_eq(frames, 1, "parts to a client that did not offer them");
	expect_every_pg(json_object_get(json_object_get(o, "data"), "pg_stats"),
	    BIG_PGS);
	json_decref(o);
	close(fd);
}

/*
 * A reader that reads slowly gets the whole listing, sent as it reads:
 * the daemon never queues much more than what the reader has taken.
 */
Test(cmd, slow_reader_gets_a_listing_paced)
{
	struct enc_buf all = { 0 };
	json_t *d, *o;
	json_int_t out0, queued;
	char *cause = NULL;
	int fd, last;

	cluster_small(BIG_PGS);
	d = ok("{\"prefix\":\"perf dump\"}");
	out0 = jint(d, "server.bytes_out");
	json_decref(d);
	fd = raw_open(1, 16384);
	raw_request(fd, 3,
	    "{\"prefix\":\"pg dump\","
	    "\"dumpcontents\":[\"pgs\"]}");
	/* Four parts, 4 KB at a time and 200 ms apart: some 3 MB. */
	raw_gather(fd, 3, &all, 4096, 200000, 4, &last);
	cr_assert(!last);
	d = ok("{\"prefix\":\"perf dump\"}");
	queued = jint(d, "server.bytes_out") - out0;
	json_decref(d);
	cr_assert_lt(queued, (json_int_t)all.len + 8 * 1024 * 1024,
	    "%lld bytes queued for a reader that took %zu", (long long)queued,
	    all.len);
	/* The rest, a part every 20 ms: the whole listing. */
	raw_gather(fd, 3, &all, 4096, 20000, 0, &last);
	o = frame_parse_json(all.data, all.len, &cause);
	cr_assert_not_null(o, "the reply is not JSON: %s", cause);
	enc_buf_free(&all);
	cr_assert_eq(jint(o, "rc"), 0);
	expect_every_pg(json_object_get(json_object_get(o, "data"), "pg_stats"),
	    BIG_PGS);
	json_decref(o);
	close(fd);
}

/*
 * Clients that go in the middle of a listing, closing or resetting: the
 * daemon ends their listings, frees them (the sanitizers' leak check at
 * the end says so) and answers everyone else.
 */
Test(cmd, client_gone_mid_listing_leaves_the_daemon_answering)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };
	struct frame_header h;
	json_t *d;
	double deadline;
	int fd, i, conns = 0;
	char *p;

	cluster_small(BIG_PGS);
	for (i = 0; i < 6; i++) {
		fd = raw_open(i % 3 != 2, 4096);
		raw_request(fd, 1,
		    i % 2 ? "{\"prefix\":\"pg ls\"}" :
			    "{\"prefix\":\"pg dump\"}");
		if (i % 3 != 2) {
			p = raw_frame(fd, &h, 4096);
			cr_assert_not_null(p);
			free(p);
		}
		if (i % 2)
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
		close(fd);
	}
	deadline = now_s() + 10;
	do {
		d = ok("{\"prefix\":\"perf dump\"}");
		conns = (int)jint(d, "server.connections");
		json_decref(d);
	} while (conns > 1 && now_s() < deadline && usleep(10000) == 0);
	cr_assert_eq(conns, 1, "%d connections left", conns);
	cr_assert_eq(pgs_in_state("creating"), BIG_PGS);
	d = ok("{\"prefix\":\"pg dump\",\"dumpcontents\":[\"summary\"]}");
	cr_assert_eq(jint(d, "pg_map.pg_stats_sum.num_pgs"), BIG_PGS);
	json_decref(d);
}

/* ----------------------------------------------------- daemon life */

Test(cmd, restart_keeps_the_maps)
{
	json_t *d;
	double took;
	char *fsid;

	cluster_small(16);
	d = ok("{\"prefix\":\"status\"}");
	fsid = xstrdup(jstr(d, "fsid"));
	json_decref(d);
	cr_assert_eq(stop_daemon(&D, SIGTERM, &took), 0);
	cr_assert_lt(took, 5.0);
	cr_assert_eq(start_daemon(&D), 0);
	d = ok("{\"prefix\":\"status\"}");
	cr_assert_str_eq(jstr(d, "fsid"), fsid);
	cr_assert_eq(jint(d, "pgmap.num_pgs"), 16);
	cr_assert_eq(jint(d, "osdmap.num_osds"), 1);
	json_decref(d);
	d = ok("{\"prefix\":\"osd pool ls\"}");
	cr_assert_str_eq(json_string_value(json_array_get(d, 0)), "rbd");
	json_decref(d);
	d = ok("{\"prefix\":\"log last\",\"num\":3}");
	{
		json_t *v;
		size_t i;
		int found = 0;

		json_array_foreach(d, i, v)
			if (strcmp(jstr(v, "message"),
			    "pool 'rbd' created with 16 pgs") == 0)
				found = 1;
		cr_assert(found, "the pool's log entry is gone");
	}
	json_decref(d);
	free(fsid);
}

/* Writes in flight at SIGTERM are committed before the exit. */
Test(cmd, sigterm_exits_0_quickly_after_pending_writes)
{
	struct aclient a;
	json_t *cmd;
	double took;
	int i;

	a_open(&a);
	for (i = 0; i < 20; i++) {
		cmd = json_pack("{s:s}", "prefix", "osd create");
		cr_assert_eq(mclient_request(a.c, cmd, a_reply, &a), 0);
		json_decref(cmd);
	}
	cr_assert(a_wait(&a, 20, 0, 5000));
	a_close(&a);
	cr_assert_eq(stop_daemon(&D, SIGTERM, &took), 0);
	cr_assert_lt(took, 5.0);
	cr_assert_eq(start_daemon(&D), 0);
	cmd = ok("{\"prefix\":\"osd stat\"}");
	cr_assert_eq(jint(cmd, "num_osds"), 20);
	json_decref(cmd);
	cr_assert_eq(stop_daemon(&D, SIGINT, &took), 0);
	cr_assert_lt(took, 5.0);
}

Test(cmd, sighup_and_config_set_change_debug_levels)
{
	json_t *d;

	d = ok("{\"prefix\":\"config get\",\"key\":\"log.debug_mon\"}");
	cr_assert_str_eq(jstr(d, "value"), "1/5");
	json_decref(d);
	sighup_until("debug_net = 4/6\n", "log.debug_net", "4/6");

	d = ok("{\"prefix\":\"config set\",\"key\":\"log.debug_mon\","
	    "\"value\":\"7/9\"}");
	cr_assert_str_eq(jstr(d, "value"), "7/9");
	json_decref(d);
	d = ok("{\"prefix\":\"config get\",\"key\":\"log.debug_mon\"}");
	cr_assert_str_eq(jstr(d, "value"), "7/9");
	json_decref(d);
	refused(-EINVAL, "log.debug_mon", "{\"prefix\":\"config set\","
	    "\"key\":\"log.debug_mon\",\"value\":\"7/900\"}");
	/* A runtime server limit takes effect: a tiny frame cap. */
	json_decref(ok("{\"prefix\":\"config set\",\"key\":\"mon.max_frame\","
	    "\"value\":\"4K\"}"));
	{
		json_t *cmd = json_pack("{s:s, s:s}", "prefix", "config get",
		    "key", "mon.max_frame");
		char big[8192];
		int rc;

		memset(big, 'x', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		json_object_set_new(cmd, "padding", json_string(big));
		rc = mclient_call(D.addr, CALL_TIMEOUT_MS, cmd, NULL, NULL);
		cr_assert_eq(rc, -EMSGSIZE, "rc %d", rc);
		json_decref(cmd);
	}
	/* The daemon wrote what changed in its log. */
	{
		char *log = read_file(D.log);

		cr_assert(strstr(log, "config set: log.debug_mon changed from "
		    "'1/5' to '7/9'") != NULL);
		cr_assert(strstr(log, "reload: log.debug_net changed") !=
		    NULL);
		free(log);
	}
}

Test(cmd, bind_failure_is_one_line_and_exit_1)
{
	struct daemon other;
	char extra[128], *log;
	int rc;

	snprintf(extra, sizeof extra, "bind = %s", D.addr);
	daemon_make(&other, NULL);
	write_conf(&other, extra);
	rc = start_daemon(&other);
	cr_assert_eq(rc, 1, "a second daemon on a bound port: %d", rc);
	log = read_file(other.log);
	cr_assert(strstr(log, "cannot listen on ") != NULL, "%s", log);
	free(log);
	daemon_destroy(&other);
}
