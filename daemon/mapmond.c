/*
 * mapmond.c: the daemon's entry point: options, configuration, logging,
 * signals and the event loop.
 *
 * Start-up order: parse options, load the whole config (every error printed
 * as FILE:LINE, exit 78), set up logging from [log], then (unless -t) detach,
 * open the store and load the maps (cold start), listen on [mon] bind and
 * run the libevent loop.  SIGTERM/SIGINT stop accepting, let the commit in
 * progress finish, close the store and exit 0; SIGHUP reloads the config:
 * runtime keys are applied (log levels, monitor parameters, server limits),
 * the others are reported as needing a restart, and a bad file keeps the
 * running config.  `config set` applies a runtime key the same way.
 *
 * systemd (daemon/notify.h): STATUS= during the cold start, READY=1 on the
 * loop's first turn, RELOADING=1 and READY=1 around a SIGHUP, STOPPING=1,
 * the watchdog.  [metrics] bind serves /metrics (daemon/metrics.h) on the
 * same loop.  Shutdown: after the monitor has committed what was pending,
 * the loop runs on for at most MAPMOND_DRAIN_MS so that the last answers
 * reach their clients (requests arriving then are answered ESHUTDOWN),
 * then the store is closed; all of it within MAPMOND_STOP_MS of the
 * signal, or what is left is abandoned (see the end of main()).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "conf/conf.h"
#include "daemon/cmd.h"
#include "daemon/mapmond.h"
#include "daemon/metrics.h"
#include "mon/mon.h"
#include "mon/mon_conf.h"
#include "daemon/notify.h"
#include "daemon/quorum.h"
#include "mon/mon_quorum.h"
#include "net/client.h"
#include "net/keyring.h"
#include "net/server.h"
#include "net/tls.h"

static struct {
	const char *conf_path;	/* as given by -c or MAPMON_CONF, or NULL */
	int conf_explicit;	/* a missing file is an error */
	int foreground;
	int log_stderr;
	int configtest;
	int mkfs;
	const char *monmap_path;  /* --mkfs --monmap FILE */
	const char *keyring_path; /* --mkfs --keyring FILE */
	const char *join;	  /* --mkfs --join ADDR[,ADDR...] */
} opts;

static struct conf *mapmond_conf;
static struct event_base *mapmond_base;
static struct mon *mapmond_mon;
static struct server *mapmond_server;
static struct cmd_ctx *mapmond_cmd;
static struct metrics *mapmond_metrics;
static struct quorum *mapmond_quorum; /* several monitors, or NULL */
/* Shutting down: the monitor is gone, requests are refused. */
static int mapmond_stopping;
/*
 * SIGTERM or SIGINT came: the daemon exits by this stamp_mono() whatever
 * it is doing (mapmond(8)).
 */
static int64_t mapmond_stop_by;
#define MAPMOND_STOP_MS 4000

static void
mapmond_usage(FILE *f)
{
	fprintf(f,
	    "usage: mapmond [-dft] [-c file] [--mkfs [--monmap FILE "
	    "--keyring FILE | --join ADDR --keyring FILE]]\n"
	    "       mapmond --version | --help\n"
	    "  -c FILE    config file (default $MAPMON_CONF or %s)\n"
	    "  --mkfs     make a new store under [mon] data and exit\n"
	    "  --monmap FILE, --keyring FILE\n"
	    "             with --mkfs: join the quorum whose first monitor "
	    "wrote them\n"
	    "  --join ADDR[,ADDR...], --keyring FILE\n"
	    "             with --mkfs: a monitor added by mon add, which "
	    "copies a\n"
	    "             running monitor's store at its first start\n"
	    "  -f         stay in the foreground\n"
	    "  -d         stay in the foreground and log to stderr\n"
	    "  -t         check the config file and exit\n"
	    "  --version  print the version and exit\n",
	    MAPMOND_DEFAULT_CONF);
}

/*
 * Load the config file; print every error (to stderr at start, to the log
 * on reload).  A missing default file means
 * the built-in defaults; a missing file named by -c or MAPMON_CONF is an
 * error like any other.
 */
struct conf *
mapmond_conf_load(const char *path, int must_exist, int to_stderr)
{
	struct conf *c;
	char **errors;
	size_t i, nerrors;

	if (!must_exist && access(path, F_OK) == -1 && errno == ENOENT)
		return conf_new();
	c = conf_load(path, &errors, &nerrors);
	if (c == NULL) {
		for (i = 0; i < nerrors; i++) {
			if (to_stderr)
				fprintf(stderr, "%s\n", errors[i]);
			else
				log_warnx("%s", errors[i]);
		}
		conf_errors_free(errors, nerrors);
	}
	return c;
}

/* Set every subsystem's L/G levels from [log] debug_<subsys>. */
void
mapmond_apply_log_levels(const struct conf *c)
{
	char name[64];
	int i, key, file_level, gather_level;

	for (i = 0; i < LOG_NSUBSYS; i++) {
		snprintf(name, sizeof name, "log.debug_%s", log_subsys_names[i]);
		if ((key = conf_find(name)) == -1)
			fatalx("no config key %s for log subsystem %s", name,
			    log_subsys_names[i]);
		conf_loglevel(c, (enum conf_key)key, &file_level,
		    &gather_level);
		log_set_level((enum log_subsys)i, file_level, gather_level);
	}
}

static int
mapmond_open_log(const struct conf *c)
{
	char *cause;

	if (log_open(opts.log_stderr ? "stderr" : conf_str(c, CONF_LOG_FILE),
	    &cause) == -1) {
		log_warnx("%s", cause);
		free(cause);
		return -1;
	}
	return 0;
}

/* [mon]'s connection limits. */
static void
mapmond_limits(const struct conf *c, struct server_limits *l)
{
	l->max_connections = (size_t)conf_int(c, CONF_MON_MAX_CONNECTIONS);
	l->max_frame = (size_t)conf_int(c, CONF_MON_MAX_FRAME);
	l->idle_timeout_ms = (int)conf_int(c, CONF_MON_IDLE_TIMEOUT);
	l->max_client_output = (size_t)conf_int(c,
	    CONF_MON_MAX_CLIENT_OUTPUT);
	/* The server raises it to max_frame plus a header if need be. */
	l->max_partial_input = (size_t)conf_int(c,
	    CONF_MON_MAX_PARTIAL_INPUT);
	l->auth_required = conf_int(c, CONF_AUTH_REQUIRED) != 0;
	l->auth_fail_delay_ms = (int)conf_int(c, CONF_AUTH_FAIL_DELAY);
	l->auth_fail_delay_max_ms = (int)conf_int(c, CONF_AUTH_FAIL_DELAY_MAX);
}

void
mapmond_apply_runtime(const struct conf *c)
{
	struct mon_params params;
	struct server_limits limits;
	char *cause;

	mapmond_apply_log_levels(c);
	/* A new [log] file: open it (-d keeps stderr). */
	if (!opts.log_stderr &&
	    strcmp(conf_str(c, CONF_LOG_FILE), log_target()) != 0) {
		if (log_open(conf_str(c, CONF_LOG_FILE), &cause) == -1) {
			log_warnx("%s; logging on to %s", cause, log_target());
			free(cause);
		} else
			log_info("logging to %s", log_target());
	}
	if (mapmond_mon != NULL) {
		mon_conf_params(c, &params);
		mon_set_params(mapmond_mon, &params);
	}
	if (mapmond_server != NULL) {
		mapmond_limits(c, &limits);
		server_set_limits(mapmond_server, &limits);
	}
}

static void
mapmond_apply_cb(void *arg)
{
	mapmond_apply_runtime(arg);
}

/* READY=1 with where the daemon serves as its status. */
static void
mapmond_notify_ready(void)
{
	char *status;

	if (mapmond_server == NULL)
		return;
	xasprintf(&status, "serving on port %u",
	    (unsigned)server_port(mapmond_server));
	notify_ready(status);
	free(status);
}

/*
 * The first turn of the loop: the listener is bound and the loop is
 * running, so a client that connects now is answered.
 */
static void
mapmond_ready_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	mapmond_notify_ready();
}

/*
 * SIGHUP: re-read the file.  A bad file keeps the running config.  Runtime
 * keys take effect; a changed restart-only key is reported, and keeps its
 * running value until the restart.
 */
static void
mapmond_reload(void)
{
	struct conf *nc;
	char name[128], *ov, *nv, *cause;
	int k, changed = 0;

	notify_reloading();
	log_info("SIGHUP: reloading %s", conf_path(mapmond_conf) ?
	    conf_path(mapmond_conf) : "(defaults)");
	if (conf_path(mapmond_conf) == NULL) {
		log_info("no config file in use; nothing to reload");
		goto reopen;
	}
	if ((nc = mapmond_conf_load(conf_path(mapmond_conf), 1, 0)) == NULL) {
		log_warnx("reload failed; keeping the running config");
		goto reopen;
	}
	for (k = 0; k < CONF_NKEYS; k++) {
		if (conf_equal(mapmond_conf, nc, (enum conf_key)k))
			continue;
		conf_fullname((enum conf_key)k, name, sizeof name);
		ov = conf_format(mapmond_conf, (enum conf_key)k);
		nv = conf_format(nc, (enum conf_key)k);
		if (conf_options[k].runtime) {
			if (conf_set(mapmond_conf, (enum conf_key)k, nv,
			    &cause) == -1) {
				log_warnx("reload: %s", cause);
				free(cause);
			} else {
				log_info("reload: %s changed from '%s' to "
				    "'%s'", name, ov, nv);
				changed++;
			}
		} else
			log_warnx("reload: %s changed from '%s' to '%s'; "
			    "it takes effect after a restart", name, ov, nv);
		free(ov);
		free(nv);
	}
	conf_free(nc);
	mapmond_apply_runtime(mapmond_conf);
	log_info("reload done: %d runtime key%s applied", changed,
	    changed == 1 ? "" : "s");
reopen:
	if (log_reopen(&cause) == -1) {
		log_warnx("%s", cause);
		free(cause);
	} else if (strcmp(log_target(), "stderr") != 0 &&
	    strcmp(log_target(), "syslog") != 0)
		log_info("SIGHUP: log file %s reopened", log_target());
	mapmond_notify_ready();
}

static void
mapmond_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)what;
	(void)arg;
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		if (mapmond_stop_by == 0)
			mapmond_stop_by = stamp_mono() + MAPMOND_STOP_MS * 1000;
		log_info("%s: shutting down", strsignal((int)sig));
		notify_stopping("shutting down");
		if (mapmond_server != NULL)
			server_stop_accepting(mapmond_server);
		metrics_free(mapmond_metrics);
		mapmond_metrics = NULL;
		event_base_loopbreak(mapmond_base);
		break;
	case SIGHUP:
		mapmond_reload();
		break;
	}
}

static int mapmond_mkfs_join(const struct conf *);
static int mapmond_mkfs_quorum(const struct conf *, const struct monmap_mon *,
    size_t);

/*
 * --mkfs: a new store under [mon] data, and the keyring of client.admin at
 * [auth] keyring.  The keyring is written first, as a new file, and
 * removed again when the store cannot be made: either both exist or
 * neither does (an admin key nobody holds would lock everyone out).
 */
static int
mapmond_mkfs(const struct conf *c)
{
	static const char *const caps[] = { "mon", "allow *" };
	struct store_options so;
	struct keyring *kr;
	const char *data = conf_str(c, CONF_MON_DATA);
	const char *path = conf_str(c, CONF_AUTH_KEYRING);
	uint8_t key[KEYRING_KEY_LEN];
	struct monmap_mon mons[MONMAP_MAX_MONS];
	size_t nmons;
	char *fsid, *cause;
	int rc;

	if ((rc = quorum_configured(c, mons, &nmons, &cause)) == -1) {
		fprintf(stderr, "mapmond: --mkfs: %s\n", cause);
		free(cause);
		return MAPMON_EXIT_CONFIG;
	}
	if (rc == 1)
		return mapmond_mkfs_quorum(c, mons, nmons);
	if (opts.monmap_path != NULL || opts.keyring_path != NULL) {
		fprintf(stderr,
		    "mapmond: --mkfs: --monmap and --keyring make "
		    "a monitor of a quorum, and [mon] mon_host lists no "
		    "quorum\n");
		return MAPMON_EXIT_USAGE;
	}
	if (RAND_bytes(key, sizeof key) != 1) {
		fprintf(stderr,
		    "mapmond: --mkfs: cannot make the admin key: "
		    "the system's random generator failed\n");
		return 1;
	}
	kr = keyring_new();
	keyring_add(kr, "client.admin", key, caps, 1);
	rc = keyring_write(path, kr, &cause);
	keyring_free(kr);
	if (rc == -1) {
		OPENSSL_cleanse(key, sizeof key);
		fprintf(stderr, "mapmond: --mkfs: %s ([auth] keyring)\n",
		    cause);
		free(cause);
		return 1;
	}
	mon_conf_store_options(c, &so);
	rc = mon_mkfs_auth(data, &so, conf_str(c, CONF_MON_NAME),
	    conf_str(c, CONF_MON_BIND), key, &fsid, &cause);
	OPENSSL_cleanse(key, sizeof key);
	if (rc == -1) {
		unlink(path);
		fprintf(stderr, "mapmond: --mkfs: %s\n", cause);
		free(cause);
		return 1;
	}
	printf("mapmond: created a %s store in %s/store for cluster %s\n",
	    so.backend, data, fsid);
	printf("mapmond: wrote the keyring of client.admin to %s\n", path);
	free(fsid);
	return 0;
}

/* The monmap file the first monitor of a quorum writes for the others. */
static char *
mapmond_monmap_file(const struct conf *c)
{
	char *p;

	xasprintf(&p, "%s/monmap", conf_str(c, CONF_MON_DATA));
	return p;
}

/* Read a monmap file (mapmond --mkfs wrote it); -1 with a line on stderr. */
static int
mapmond_read_monmap(const char *path, struct monmap *mm)
{
	FILE *f;
	uint8_t buf[65536];
	size_t n;
	char *cause;

	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "mapmond: --monmap %s: %s\n", path,
		    strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	if (monmap_decode(buf, n, mm, &cause) == -1) {
		fprintf(stderr, "mapmond: --monmap %s: not a monmap: %s\n",
		    path, cause);
		free(cause);
		return -1;
	}
	return 0;
}

/*
 * The cluster's monmap from one of the monitors at addrs (`mon dump',
 * authenticated as client.admin with the keyring at kpath).  0, or -1
 * after saying why on stderr.
 */
static int
mapmond_fetch_monmap(const char *addrs, const char *kpath, struct monmap *mm)
{
	char *list = xstrdup(addrs), *save = NULL, *a, *status = NULL;
	char *cause = NULL;
	json_t *cmd, *data = NULL, *mons, *e;
	const char *fsid;
	size_t i;
	int rc = -1, got = 0;

	if (mclient_default_auth("client.admin", kpath, &cause) == -1) {
		fprintf(stderr, "mapmond: --mkfs --join: %s\n", cause);
		free(cause);
		free(list);
		return -1;
	}
	cmd = json_pack("{s:s, s:s}", "prefix", "mon dump", "format", "json");
	for (a = strtok_r(list, ",", &save); a != NULL && !got;
	     a = strtok_r(NULL, ",", &save)) {
		free(status);
		status = NULL;
		json_decref(data);
		data = NULL;
		if (mclient_call(a, 10000, cmd, &data, &status) == 0)
			got = 1;
		else
			fprintf(stderr, "mapmond: --mkfs --join: %s: %s\n", a,
			    status ? status : "no answer");
	}
	json_decref(cmd);
	free(list);
	free(status);
	if (!got)
		return -1;
	memset(mm, 0, sizeof *mm);
	fsid = json_string_value(json_object_get(data, "fsid"));
	mons = json_object_get(data, "mons");
	if (fsid == NULL || strlen(fsid) != 36 || !json_is_array(mons) ||
	    json_array_size(mons) == 0 ||
	    json_array_size(mons) > MONMAP_MAX_MONS) {
		fprintf(stderr,
		    "mapmond: --mkfs --join: mon dump gave no "
		    "monmap\n");
		goto out;
	}
	snprintf(mm->fsid, sizeof mm->fsid, "%s", fsid);
	mm->epoch = (uint32_t)json_integer_value(
	    json_object_get(data, "epoch"));
	mm->created = mm->modified = stamp_now();
	json_array_foreach(mons, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));
		const char *ad = json_string_value(json_object_get(e, "addr"));

		if (n == NULL || ad == NULL || strlen(n) >= MONMAP_NAME_MAX ||
		    strlen(ad) >= MONMAP_ADDR_MAX) {
			fprintf(stderr,
			    "mapmond: --mkfs --join: mon dump: "
			    "a monitor without name or addr\n");
			goto out;
		}
		snprintf(mm->mons[i].name, sizeof mm->mons[i].name, "%s", n);
		snprintf(mm->mons[i].addr, sizeof mm->mons[i].addr, "%s", ad);
	}
	mm->nmons = json_array_size(mons);
	rc = 0;
out:
	json_decref(data);
	return rc;
}

/*
 * --mkfs --join ADDR --keyring FILE: a monitor that `mon add' put in the
 * monmap.  Its store holds the cluster's monmap and keys; the file
 * [mon] data/join makes its first start copy a running monitor's store
 * before it applies anything (mapmond(8), Membership).
 */
static int
mapmond_mkfs_join(const struct conf *c)
{
	const char *data = conf_str(c, CONF_MON_DATA);
	const char *name = conf_str(c, CONF_MON_NAME);
	const char *bind = conf_str(c, CONF_MON_BIND);
	const struct keyring_entity *admin, *mon;
	struct keyring *kr = NULL;
	struct store_options so;
	struct monmap mm;
	uint8_t akey[KEYRING_KEY_LEN], mkey[KEYRING_KEY_LEN];
	char *cause = NULL, *marker;
	size_t i;
	int rc = 1, fd, tries;

	if (opts.keyring_path == NULL || opts.monmap_path != NULL) {
		fprintf(stderr,
		    "mapmond: --mkfs: --join goes with --keyring "
		    "(the keys of client.admin and mon.), not "
		    "--monmap\n");
		return MAPMON_EXIT_USAGE;
	}
	if (keyring_load(opts.keyring_path, &kr, &cause) == -1) {
		fprintf(stderr, "mapmond: --mkfs: --keyring: %s\n", cause);
		free(cause);
		return 1;
	}
	if ((admin = keyring_find(kr, "client.admin")) == NULL ||
	    (mon = keyring_find(kr, "mon.")) == NULL) {
		fprintf(stderr,
		    "mapmond: --mkfs: --keyring %s lacks the key "
		    "of %s\n",
		    opts.keyring_path, admin == NULL ? "client.admin" : "mon.");
		goto out;
	}
	memcpy(akey, admin->key, sizeof akey);
	memcpy(mkey, mon->key, sizeof mkey);
	/*
	 * A follower applies `mon add' a moment after the leader answered
	 * it: for 10 s the monmap is asked for again until it lists this
	 * monitor.
	 */
	for (tries = 0; tries < 50; tries++) {
		if (tries > 0)
			usleep(200 * 1000);
		if (mapmond_fetch_monmap(opts.join, opts.keyring_path, &mm) ==
		    -1)
			goto out;
		for (i = 0; i < mm.nmons; i++)
			if (strcmp(mm.mons[i].name, name) == 0)
				break;
		if (i < mm.nmons)
			break;
	}
	if (i == mm.nmons || strcmp(mm.mons[i].addr, bind) != 0) {
		fprintf(stderr,
		    "mapmond: --mkfs --join: mon.%s at %s is not in the "
		    "cluster's monmap (epoch %u, asked for 10 s): add it "
		    "first with mapmon mon add %s %s\n",
		    name, bind, mm.epoch, name, bind);
		goto out;
	}
	mon_conf_store_options(c, &so);
	if (mon_mkfs_quorum(data, &so, &mm, akey, mkey, &cause) == -1) {
		fprintf(stderr, "mapmond: --mkfs: %s\n", cause);
		free(cause);
		goto out;
	}
	marker = quorum_join_marker(c);
	if ((fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1 ||
	    fsync(fd) == -1) {
		fprintf(stderr, "mapmond: --mkfs: %s: %s\n", marker,
		    strerror(errno));
		free(marker);
		goto out;
	}
	close(fd);
	free(marker);
	printf("mapmond: created a %s store in %s/store for cluster %s, "
	       "monitor %s of %zu (monmap epoch %u): its first start copies "
	       "the store of a running monitor\n",
	    so.backend, data, mm.fsid, name, mm.nmons, mm.epoch);
	rc = 0;
out:
	OPENSSL_cleanse(akey, sizeof akey);
	OPENSSL_cleanse(mkey, sizeof mkey);
	keyring_free(kr);
	return rc;
}

/*
 * --mkfs of a monitor of a quorum, as Ceph's ceph-mon --mkfs: the first
 * (no --monmap) makes the fsid, the monmap of every monitor of mon_host,
 * the keys of client.admin and mon., writes the keyring to [auth] keyring
 * and the monmap to [mon] data/monmap; the others are made from those two
 * files (--monmap, --keyring), so that every store starts with the same
 * records.
 */
static int
mapmond_mkfs_quorum(const struct conf *c, const struct monmap_mon *mons,
    size_t nmons)
{
	static const char *const caps[] = { "mon", "allow *" };
	const char *data = conf_str(c, CONF_MON_DATA);
	const char *kpath = conf_str(c, CONF_AUTH_KEYRING);
	struct store_options so;
	struct monmap mm;
	struct keyring *kr = NULL;
	const struct keyring_entity *admin, *mon;
	uint8_t akey[KEYRING_KEY_LEN], mkey[KEYRING_KEY_LEN];
	struct enc_buf enc = { 0 };
	char *cause, *mpath = NULL;
	size_t i, j;
	int first = opts.monmap_path == NULL, wrote_keyring = 0, rc = 1;
	FILE *f;

	if (opts.join != NULL)
		return mapmond_mkfs_join(c);
	if ((opts.monmap_path == NULL) != (opts.keyring_path == NULL)) {
		fprintf(stderr,
		    "mapmond: --mkfs: --monmap and --keyring go "
		    "together\n");
		return MAPMON_EXIT_USAGE;
	}
	if (first) {
		if (monmap_create(&mm, mons[0].name, mons[0].addr, &cause) ==
		    -1) {
			fprintf(stderr, "mapmond: --mkfs: %s\n", cause);
			free(cause);
			return 1;
		}
		for (i = 1; i < nmons; i++)
			mm.mons[mm.nmons++] = mons[i];
		if (RAND_bytes(akey, sizeof akey) != 1 ||
		    RAND_bytes(mkey, sizeof mkey) != 1) {
			fprintf(stderr,
			    "mapmond: --mkfs: the system's random "
			    "generator failed\n");
			return 1;
		}
		kr = keyring_new();
		keyring_add(kr, "client.admin", akey, caps, 1);
		keyring_add(kr, "mon.", mkey, caps, 1);
		if (keyring_write(kpath, kr, &cause) == -1) {
			fprintf(stderr,
			    "mapmond: --mkfs: %s ([auth] "
			    "keyring)\n",
			    cause);
			free(cause);
			goto out;
		}
		wrote_keyring = 1;
	} else {
		if (mapmond_read_monmap(opts.monmap_path, &mm) == -1)
			goto out;
		/* The quorum is the monmap's: mon_host must say the same. */
		for (i = 0; i < nmons; i++) {
			for (j = 0; j < mm.nmons; j++)
				if (strcmp(mm.mons[j].name, mons[i].name) ==
					0 &&
				    strcmp(mm.mons[j].addr, mons[i].addr) == 0)
					break;
			if (j == mm.nmons || mm.nmons != nmons) {
				fprintf(stderr,
				    "mapmond: --mkfs: --monmap %s "
				    "does not list the monitors of [mon] "
				    "mon_host (%s=%s)\n",
				    opts.monmap_path, mons[i].name,
				    mons[i].addr);
				goto out;
			}
		}
		if (keyring_load(opts.keyring_path, &kr, &cause) == -1) {
			fprintf(stderr, "mapmond: --mkfs: --keyring: %s\n",
			    cause);
			free(cause);
			goto out;
		}
		if ((admin = keyring_find(kr, "client.admin")) == NULL ||
		    (mon = keyring_find(kr, "mon.")) == NULL) {
			fprintf(stderr,
			    "mapmond: --mkfs: --keyring %s lacks "
			    "the key of %s\n",
			    opts.keyring_path,
			    admin == NULL ? "client.admin" : "mon.");
			goto out;
		}
		memcpy(akey, admin->key, sizeof akey);
		memcpy(mkey, mon->key, sizeof mkey);
	}
	mon_conf_store_options(c, &so);
	if (mon_mkfs_quorum(data, &so, &mm, akey, mkey, &cause) == -1) {
		fprintf(stderr, "mapmond: --mkfs: %s\n", cause);
		free(cause);
		if (wrote_keyring)
			unlink(kpath);
		goto out;
	}
	if (first) {
		mpath = mapmond_monmap_file(c);
		monmap_encode(&mm, &enc);
		if ((f = fopen(mpath, "wbx")) == NULL ||
		    fwrite(enc.data, 1, enc.len, f) != enc.len ||
		    fclose(f) != 0) {
			fprintf(stderr, "mapmond: --mkfs: %s: %s\n", mpath,
			    strerror(errno));
			goto out;
		}
	}
	printf("mapmond: created a %s store in %s/store for cluster %s, "
	       "monitor %s of %zu\n",
	    so.backend, data, mm.fsid, conf_str(c, CONF_MON_NAME), mm.nmons);
	if (first)
		printf("mapmond: wrote the keyring of client.admin and mon. to "
		       "%s and the monmap to %s: make the other monitors with "
		       "mapmond --mkfs --monmap %s --keyring %s\n",
		    kpath, mpath, mpath, kpath);
	rc = 0;
out:
	OPENSSL_cleanse(akey, sizeof akey);
	OPENSSL_cleanse(mkey, sizeof mkey);
	keyring_free(kr);
	enc_buf_free(&enc);
	free(mpath);
	return rc;
}

static void
mapmond_progress(void *arg, const char *what, uint64_t done, uint64_t total)
{
	(void)arg;
	dout(LOG_MON, 1, "loading %s %llu/%llu", what,
	    (unsigned long long)done, (unsigned long long)total);
	notify_progress(what, done, total);
}

/* Open the store and load the maps; one line on stderr and NULL if not. */
static struct mon *
mapmond_start(const struct conf *c)
{
	struct store_options so;
	struct mon_params params;
	struct store *store;
	struct mon *m;
	char *path, *cause = NULL;
	int rc;

	mon_conf_store_options(c, &so);
	mon_conf_params(c, &params);
	path = mon_store_path(conf_str(c, CONF_MON_DATA));
	rc = store_open(path, &so, 0, &store, &cause);
	if (rc == STORE_E_MISSING) {
		log_warnx("no store in %s: run mapmond --mkfs first to make one",
		    path);
		free(cause);
		free(path);
		return NULL;
	}
	free(path);
	if (rc != 0) {
		log_warnx("%s", cause);
		free(cause);
		return NULL;
	}
	if (so.sync == STORE_SYNC_NONE)
		log_warnx("[store] sync = none: commits are not durable; use "
		    "this for tests only");
	if ((m = mon_open(mapmond_base, store, &params, mapmond_progress, NULL,
	    &cause)) == NULL) {
		log_warnx("%s", cause);
		free(cause);
		store_close(store);
		return NULL;
	}
	return m;
}

/*
 * [mon] mon_host lists several monitors: start the engine (quorum.h);
 * one line in the log and -1 if it cannot.
 */
static int
mapmond_quorum_start(const struct conf *c)
{
	struct monmap_mon mons[MONMAP_MAX_MONS];
	size_t n;
	char *cause = NULL;
	int rc;

	if ((rc = quorum_configured(c, mons, &n, &cause)) == -1) {
		log_warnx("%s", cause);
		free(cause);
		return -1;
	}
	if (rc == 0) {
		if (mon_monmap(mapmond_mon)->nmons > 1) {
			log_warnx("the store's monmap lists %zu monitors and "
				  "[mon] mon_host does not: give mon_host",
			    mon_monmap(mapmond_mon)->nmons);
			return -1;
		}
		return 0;
	}
	if ((mapmond_quorum = quorum_new(mapmond_base, mapmond_mon, c,
		 &cause)) == NULL) {
		log_warnx("quorum: %s", cause);
		free(cause);
		return -1;
	}
	return 0;
}

/* The server half of the HELLO: this monitor's name and the fsid. */
static void
mapmond_hello(void *arg, json_t **reply)
{
	const struct monmap *mm;

	(void)arg;
	if (mapmond_mon == NULL)
		return;
	mm = mon_monmap(mapmond_mon);
	json_object_set_new(*reply, "server",
	    json_string("mapmon " PACKAGE_VERSION));
	json_object_set_new(*reply, "mon",
	    json_string(conf_str(mapmond_conf, CONF_MON_NAME)));
	json_object_set_new(*reply, "fsid", json_string(mm->fsid));
}

/* An entity's key, for the handshake: the committed one. */
static int
mapmond_key(void *arg, const char *name, uint8_t *key)
{
	const struct mon_auth_entity *e;

	(void)arg;
	if (mapmond_mon == NULL ||
	    (e = mon_auth_find(mapmond_mon, name)) == NULL)
		return -1;
	memcpy(key, e->key, MON_AUTH_KEY_LEN);
	return 0;
}

/*
 * The command layer's callbacks, until shutdown.  Once the monitor is
 * gone (mapmond_stopping), requests still arriving on open connections
 * while the last answers drain are refused with ESHUTDOWN.
 */
static void
mapmond_request(void *arg, uint64_t conn_id, uint64_t req_id, json_t *cmd)
{
	if (mapmond_stopping) {
		server_reply(mapmond_server, conn_id, req_id, -ESHUTDOWN,
		    "the monitor is stopping", NULL);
		return;
	}
	cmd_request(arg, conn_id, req_id, cmd);
}

static void
mapmond_binary(void *arg, uint64_t conn_id, uint64_t req_id,
    const uint8_t *p, size_t len)
{
	if (mapmond_stopping) {
		server_reply(mapmond_server, conn_id, req_id, -ESHUTDOWN,
		    "the monitor is stopping", NULL);
		return;
	}
	cmd_binary(arg, conn_id, req_id, p, len);
}

static void
mapmond_closed(void *arg, uint64_t conn_id)
{
	/* After cmd_stop() there are no subscriptions left to drop. */
	if (!mapmond_stopping)
		cmd_closed(arg, conn_id);
}

/* [net] tls_cert and tls_key: TLS only; one line in the log and -1 if bad. */
static int
mapmond_tls(const struct conf *c)
{
	const char *cert = conf_str(c, CONF_NET_TLS_CERT);
	const char *key = conf_str(c, CONF_NET_TLS_KEY);
	SSL_CTX *ctx;
	char *cause = NULL;

	if (*cert == '\0' && *key == '\0')
		return 0;
	if (*cert == '\0' || *key == '\0') {
		log_warnx("[net] tls_cert and tls_key go together: one is "
			  "set without the other");
		return -1;
	}
	if ((ctx = tls_server_ctx(cert, key, &cause)) == NULL) {
		log_warnx("%s", cause);
		free(cause);
		return -1;
	}
	server_set_tls(mapmond_server, ctx);
	SSL_CTX_free(ctx);
	log_info("TLS only, with %s (TLS 1.2 at least)", cert);
	return 0;
}

/* Listen on [mon] bind; one line in the log and -1 if not. */
static int
mapmond_listen(const struct conf *c)
{
	static const struct server_ops ops = {
		.hello = mapmond_hello,
		.key = mapmond_key,
		.request = mapmond_request,
		.binary = mapmond_binary,
		.closed = mapmond_closed,
	};
	struct server_limits limits;
	const char *bind = conf_str(c, CONF_MON_BIND);
	char host[256], *cause = NULL;
	uint16_t port;

	if (conf_parse_address(bind, host, sizeof host, &port, &cause) == -1) {
		log_warnx("[mon] bind '%s': %s", bind, cause);
		free(cause);
		return -1;
	}
	/*
	 * Without authentication anyone who reaches the port may change the
	 * maps: beyond loopback, only when asked for, and said out loud.
	 */
	if (!conf_int(c, CONF_AUTH_REQUIRED) && !conf_bind_loopback(bind)) {
		if (!conf_int(c, CONF_AUTH_ALLOW_INSECURE)) {
			log_warnx(
			    "[mon] bind %s is not loopback and [auth] "
			    "required is off: refusing to serve it without "
			    "authentication (turn [auth] required on, or set "
			    "[auth] allow_insecure = true)",
			    bind);
			return -1;
		}
		log_warnx("serving %s without authentication: anyone who "
			  "can reach it may change the maps ([auth] "
			  "allow_insecure; health AUTH_INSECURE)",
		    bind);
	}
	mapmond_limits(c, &limits);
	mapmond_cmd = cmd_new(mapmond_base, mapmond_mon, mapmond_conf,
	    mapmond_apply_cb, mapmond_conf);
	mapmond_server = server_new(mapmond_base, host, port, &limits, &ops,
	    mapmond_cmd, &cause);
	if (mapmond_server == NULL) {
		log_warnx("cannot listen on %s: %s", bind, cause);
		free(cause);
		return -1;
	}
	cmd_set_server(mapmond_cmd, mapmond_server);
	if (mapmond_tls(c) == -1)
		return -1;
	log_info("listening on %s:%u", host,
	    (unsigned)server_port(mapmond_server));

	bind = conf_str(c, CONF_METRICS_BIND);
	if (*bind == '\0')
		return 0;
	if ((mapmond_metrics = metrics_new(mapmond_base, bind, mapmond_mon,
		 mapmond_server, cmd_forwarder(mapmond_cmd), &cause)) == NULL) {
		log_warnx("%s", cause);
		free(cause);
		return -1;
	}
	if (conf_parse_address(bind, host, sizeof host, &port, &cause) == -1)
		free(cause);	/* metrics_new() parsed it already */
	log_info("metrics on http://%s:%u/metrics", host,
	    (unsigned)metrics_port(mapmond_metrics));
	return 0;
}

/*
 * Shutdown, after the monitor has committed its last proposal: run the
 * loop until the answers queued for clients are written, for at most
 * MAPMOND_DRAIN_MS and never past the stop's deadline, whichever comes
 * first.
 */
#define MAPMOND_DRAIN_MS 1000
#define MAPMOND_DRAIN_TICK_MS 5

static void
mapmond_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	const int64_t *until = arg;

	(void)fd;
	(void)what;
	if (server_output_pending(mapmond_server) == 0 ||
	    stamp_mono() >= *until)
		event_base_loopbreak(mapmond_base);
}

static void
mapmond_drain(void)
{
	struct timeval tv = { 0, MAPMOND_DRAIN_TICK_MS * 1000 };
	struct event *ev;
	size_t pending;
	int64_t start = stamp_mono(), until;

	if (mapmond_server == NULL ||
	    (pending = server_output_pending(mapmond_server)) == 0)
		return;
	until = start + MAPMOND_DRAIN_MS * 1000;
	if (until > mapmond_stop_by)
		until = mapmond_stop_by;
	dout(LOG_MON, 1, "shutdown: %zu bytes of answers to send", pending);
	ev = event_new(mapmond_base, -1, EV_PERSIST, mapmond_drain_cb, &until);
	if (ev == NULL)
		fatalx("event_new failed");
	evtimer_add(ev, &tv);
	if (event_base_dispatch(mapmond_base) == -1)
		fatalx("event loop failed");
	event_free(ev);
	pending = server_output_pending(mapmond_server);
	if (pending != 0)
		log_warnx("shutdown: %zu bytes of answers not sent in %lld ms",
		    pending, (long long)(stamp_mono() - start) / 1000);
}

/*
 * The event loop at SCHED_RR ([mon] realtime_priority, mapmon.conf(5)),
 * set once the store is loaded, so that the load's long work runs at normal
 * priority.  The threads the loop starts afterwards share it: libuv's, which
 * make C-Raft's disk writes the loop waits on (with them at normal priority
 * three monitors on two cores took a fourth of the updates: BENCHMARKS.md),
 * and those that end its AIO contexts.  The threads of bulk work go back
 * to normal priority themselves (mon_thread_normal()): the committer, the
 * codec thread, a compaction, a store copy.
 */
static void
mapmond_realtime(const struct conf *c)
{
	struct sched_param sp;
	int prio = (int)conf_int(c, CONF_MON_REALTIME_PRIORITY);

	if (prio == 0)
		return;
	memset(&sp, 0, sizeof sp);
	sp.sched_priority = prio;
	if (sched_setscheduler(0, SCHED_RR, &sp) == -1) {
		log_info("the event loop runs at normal priority: SCHED_RR "
			 "priority %d: %s (realtime_priority: it needs "
			 "CAP_SYS_NICE or RLIMIT_RTPRIO)",
		    prio, strerror(errno));
		return;
	}
	log_info("the event loop runs at SCHED_RR priority %d", prio);
}

static void
mapmond_detach(void)
{
	int fd;

	switch (fork()) {
	case -1:
		fatal("fork");
	case 0:
		break;
	default:
		_exit(0);
	}
	if (setsid() == -1)
		fatal("setsid");
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		(void)dup2(fd, STDIN_FILENO);
		(void)dup2(fd, STDOUT_FILENO);
		(void)dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ "mkfs", no_argument, NULL, 'M' },
		{ "monmap", required_argument, NULL, 'P' },
		{ "keyring", required_argument, NULL, 'K' },
		{ "join", required_argument, NULL, 'J' }, { NULL, 0, NULL, 0 }
	};
	struct event *ev_term, *ev_int, *ev_hup;
	const char *what;
	int ch, compacting, committing;

	log_init("mapmond", 0);
	if ((opts.conf_path = getenv("MAPMON_CONF")) != NULL &&
	    *opts.conf_path != '\0')
		opts.conf_explicit = 1;
	else
		opts.conf_path = MAPMOND_DEFAULT_CONF;

	while ((ch = getopt_long(argc, argv, "c:dfth", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			opts.conf_path = optarg;
			opts.conf_explicit = 1;
			break;
		case 'd':
			opts.foreground = opts.log_stderr = 1;
			break;
		case 'f':
			opts.foreground = 1;
			break;
		case 't':
			opts.configtest = 1;
			break;
		case 'M':
			opts.mkfs = 1;
			break;
		case 'P':
			opts.monmap_path = optarg;
			break;
		case 'K':
			opts.keyring_path = optarg;
			break;
		case 'J':
			opts.join = optarg;
			break;
		case 'V':
			printf("mapmond %s\n", PACKAGE_VERSION);
			return 0;
		case 'h':
			mapmond_usage(stdout);
			return 0;
		default:
			mapmond_usage(stderr);
			return MAPMON_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "mapmond: unexpected argument '%s'\n",
		    argv[optind]);
		mapmond_usage(stderr);
		return MAPMON_EXIT_USAGE;
	}

	mapmond_conf = mapmond_conf_load(opts.conf_path, opts.conf_explicit, 1);
	if (mapmond_conf == NULL)
		return MAPMON_EXIT_CONFIG;
	if (opts.configtest) {
		printf("mapmond: configuration %s OK\n",
		    conf_path(mapmond_conf) ? conf_path(mapmond_conf) :
		    "(built-in defaults; no file at " MAPMOND_DEFAULT_CONF ")");
		conf_free(mapmond_conf);
		return 0;
	}

	if ((opts.monmap_path != NULL || opts.keyring_path != NULL ||
		opts.join != NULL) &&
	    !opts.mkfs) {
		fprintf(stderr,
		    "mapmond: --monmap, --keyring and --join go with "
		    "--mkfs\n");
		mapmond_usage(stderr);
		conf_free(mapmond_conf);
		return MAPMON_EXIT_USAGE;
	}
	if (opts.mkfs) {
		int rc = mapmond_mkfs(mapmond_conf);

		conf_free(mapmond_conf);
		return rc;
	}

	log_init("mapmond", (size_t)conf_int(mapmond_conf, CONF_LOG_MAX_RECENT));
	mapmond_apply_log_levels(mapmond_conf);
	log_install_crash_handlers();
	if (mapmond_open_log(mapmond_conf) == -1)
		return MAPMON_EXIT_CONFIG;
	if (!opts.foreground)
		mapmond_detach();

	/* PG reports below commands and timers (net/server.h). */
	if ((mapmond_base = server_base_new()) == NULL)
		fatalx("cannot make the event base");
	log_event_callback_install();
	notify_init(mapmond_base);
	notify_status("loading the store");
	ev_term = evsignal_new(mapmond_base, SIGTERM, mapmond_signal, NULL);
	ev_int = evsignal_new(mapmond_base, SIGINT, mapmond_signal, NULL);
	ev_hup = evsignal_new(mapmond_base, SIGHUP, mapmond_signal, NULL);
	if (ev_term == NULL || ev_int == NULL || ev_hup == NULL ||
	    evsignal_add(ev_term, NULL) == -1 ||
	    evsignal_add(ev_int, NULL) == -1 || evsignal_add(ev_hup, NULL) == -1)
		fatalx("cannot install signal events");
	signal(SIGPIPE, SIG_IGN);

	if ((mapmond_mon = mapmond_start(mapmond_conf)) == NULL)
		return 1;
	if (mapmond_quorum_start(mapmond_conf) == -1) {
		mon_free(mapmond_mon);
		return 1;
	}
	if (mapmond_listen(mapmond_conf) == -1) {
		cmd_free(mapmond_cmd);
		server_free(mapmond_server);
		mon_free(mapmond_mon);
		return 1;
	}

	log_info("mapmond %s started (pid %ld, config %s)", PACKAGE_VERSION,
	    (long)getpid(), conf_path(mapmond_conf) ? conf_path(mapmond_conf) :
	    "built-in defaults");
	if (event_base_once(mapmond_base, -1, EV_TIMEOUT, mapmond_ready_cb,
	    NULL, &(struct timeval){ 0, 0 }) == -1)
		fatalx("event_base_once failed");
	mapmond_realtime(mapmond_conf);
	if (event_base_dispatch(mapmond_base) == -1)
		fatalx("event loop failed");

	/*
	 * The listener is closed; the commit in progress and what is pending
	 * are committed by mon_stop(), whose answers still reach the server's
	 * buffers, and sent by mapmond_drain().  The subscriptions and a
	 * running compaction end first, so that no push is built for a
	 * monitor being torn down and the store is not closed under the
	 * compaction.  Whatever is not done by mapmond_stop_by is left: the
	 * process exits without closing the store, which recovers at the
	 * next start as after a crash (nothing acknowledged is lost).
	 */
	if (mapmond_stop_by == 0)
		mapmond_stop_by = stamp_mono() + MAPMOND_STOP_MS * 1000;
	if (mapmond_server != NULL)
		server_stop_accepting(mapmond_server);
	metrics_free(mapmond_metrics);
	mapmond_metrics = NULL;
	compacting = cmd_stop(mapmond_cmd, mapmond_stop_by) == -1;
	mapmond_stopping = 1;
	committing = mon_stop(mapmond_mon, mapmond_stop_by) == -1;
	quorum_free(mapmond_quorum);
	mapmond_quorum = NULL;
	mapmond_drain();
	if (compacting || committing) {
		what = compacting ? "the compaction" : "an unanswered commit";
		/* Nothing acknowledged is lost: the store recovers. */
		log_warnx("shutdown: %s still runs: left", what);
		log_info("mapmond stopped");
		_exit(0);
	}
	mon_free(mapmond_mon);
	mapmond_mon = NULL;
	cmd_free(mapmond_cmd);
	server_free(mapmond_server);
	event_free(ev_term);
	event_free(ev_int);
	event_free(ev_hup);
	notify_free();
	event_base_free(mapmond_base);
	conf_free(mapmond_conf);
	log_info("mapmond stopped");
	return 0;
}
