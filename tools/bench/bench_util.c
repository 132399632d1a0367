/* bench_util.c: what the mapmon-bench subcommands share (bench_util.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/mapmon.h"
#include "net/client.h"
#include "store/store.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/osd_sim.h"

/* A whole decimal number within lo..hi, or exit 64 naming the option. */
long
bench_arg_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "mapmon-bench: %s: '%s' is not a number "
		    "from %ld to %ld\n", opt, s, lo, hi);
		exit(MAPMON_EXIT_USAGE);
	}
	return v;
}

int
bench_arg_mons(const char *s)
{
	long v = bench_arg_long("--mons", s, 1, BENCH_QUORUM_MAX);

	if (v % 2 == 0) {
		fprintf(stderr,
		    "mapmon-bench: --mons: %ld: a quorum is 1, 3 "
		    "or 5 monitors\n",
		    v);
		exit(MAPMON_EXIT_USAGE);
	}
	return (int)v;
}

/* Seconds, whole or decimal ("0.5", "20"), as milliseconds. */
long
bench_arg_seconds(const char *opt, const char *s, long lo_ms, long hi_ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v * 1000 >= lo_ms) ||
	    !(v * 1000 <= hi_ms) || strspn(s, "0123456789.") != strlen(s)) {
		fprintf(stderr,
		    "mapmon-bench: %s: '%s' is not a number of "
		    "seconds from %g to %g\n",
		    opt, s, lo_ms / 1000.0, hi_ms / 1000.0);
		exit(MAPMON_EXIT_USAGE);
	}
	return (long)(v * 1000 + 0.5);
}

/* Bytes with an optional K, M, G or T (1024-based, B optional). */
uint64_t
bench_arg_size(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	unsigned long long v;
	int shift = 0;

	errno = 0;
	v = s[0] >= '0' && s[0] <= '9' ? strtoull(s, &end, 10) : 0;
	if (s[0] >= '0' && s[0] <= '9' && errno == 0 && *end != '\0' &&
	    (u = strchr(units, end[0] & ~0x20)) != NULL) {
		shift = 10 * (int)(u - units + 1);
		end++;
		if ((*end & ~0x20) == 'B')
			end++;
	} else if (s[0] >= '0' && s[0] <= '9' && errno == 0 &&
	    (*end & ~0x20) == 'B')
		end++;
	if (s[0] < '0' || s[0] > '9' || errno != 0 || *end != '\0' ||
	    v > (hi >> shift) || (v << shift) < lo) {
		fprintf(stderr,
		    "mapmon-bench: %s: '%s' is not a size from "
		    "%llu to %llu bytes (a number, K, M, G or T after it)\n",
		    opt, s, (unsigned long long)lo, (unsigned long long)hi);
		exit(MAPMON_EXIT_USAGE);
	}
	return (uint64_t)v << shift;
}

/* A file's contents, or exit 64 naming the option. */
char *
bench_arg_file(const char *opt, const char *path)
{
	char *text, *cause = NULL;

	if ((text = bench_read_file(path, &cause)) == NULL) {
		fprintf(stderr, "mapmon-bench: %s: %s\n", opt, cause);
		free(cause);
		exit(MAPMON_EXIT_USAGE);
	}
	return text;
}

static const struct bench_setup bench_setups[] = {
	{ "lmdb", "lmdb", "[store]\nbackend = lmdb\n" },
	/* Commits written into the mapped file (mapmon.conf(5)). */
	{ "lmdb-writemap", "lmdb",
	    "[store]\nbackend = lmdb\n[store.lmdb]\nwritemap = true\n" },
	/* LevelDB's own defaults (leveldb/options.h). */
	{ "leveldb-defaults", "leveldb",
	    "[store]\nbackend = leveldb\n"
	    "[store.leveldb]\nwrite_buffer_size = 4M\nblock_size = 4K\n"
	    "cache_size = 0\ncompression = snappy\nbloom_bits = 0\n" },
	/* What Ceph set in 2013 to get 55,392 PGs up in 45 s. */
	{ "leveldb-2013", "leveldb",
	    "[store]\nbackend = leveldb\n"
	    "[store.leveldb]\nwrite_buffer_size = 32M\nblock_size = 4M\n"
	    "cache_size = 0\ncompression = none\nbloom_bits = 0\n" },
	{ "leveldb-mapmon", "leveldb", "[store]\nbackend = leveldb\n" },
};

double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
bench_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
bench_percentile(double *v, size_t n, double p)
{
	size_t k;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, bench_cmp_double);
	/* Nearest rank: the smallest value with p% at or below it. */
	k = (size_t)(p / 100 * (double)n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

char *
bench_find_program(const char *override, const char *env, const char *rel,
    char **cause)
{
	char self[PATH_MAX], *slash, *path;
	const char *e;
	ssize_t n;

	if (override != NULL)
		path = xstrdup(override);
	else if ((e = getenv(env)) != NULL && *e != '\0')
		path = xstrdup(e);
	else {
		if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <
		    0) {
			xasprintf(cause, "/proc/self/exe: %s", strerror(errno));
			return NULL;
		}
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL)
			*slash = '\0';
		xasprintf(&path, "%s/%s", self, rel);
	}
	if (access(path, X_OK) != 0) {
		xasprintf(cause, "%s: %s (set $%s or give its path)", path,
		    strerror(errno), env);
		free(path);
		return NULL;
	}
	return path;
}

const struct bench_setup *
bench_setup_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof bench_setups / sizeof bench_setups[0]; i++)
		if (strcmp(bench_setups[i].name, name) == 0)
			return &bench_setups[i];
	return NULL;
}

const char *
bench_setup_names(void)
{
	return "lmdb, lmdb-writemap, leveldb-defaults, leveldb-2013, "
	       "leveldb-mapmon";
}

static int
bench_rm_one(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/*
 * The store's bytes on disk: LMDB's data file; LevelDB's regular files
 * (tables, logs, manifest, its text LOG), as store_stat() counts them.
 */
uint64_t
bench_store_bytes(const char *dir, int lmdb)
{
	char file[PATH_MAX];
	struct stat sb;

	if (!lmdb)
		return store_dir_bytes(dir);
	snprintf(file, sizeof file, "%s/data.mdb", dir);
	return stat(file, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

void
bench_rmtree(const char *path)
{
	nftw(path, bench_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A port nothing listens on now (bound, read, closed: a small race). */
static int
bench_free_port(char **cause)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	int fd, port;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1) {
		xasprintf(cause, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		xasprintf(cause, "bind 127.0.0.1:0: %s", strerror(errno));
		close(fd);
		return -1;
	}
	port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* Whether 127.0.0.1:port can be bound now. */
static int
bench_port_free(int port)
{
	struct sockaddr_in sin;
	int fd, ok;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return 0;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	ok = bind(fd, (struct sockaddr *)&sin, sizeof sin) == 0;
	close(fd);
	return ok;
}

/*
 * A port P for a monitor of a quorum, whose engine listens on P + 1
 * (mapmond(8)): both free, below the kernel's ephemeral range (where the
 * monitors' own outgoing connections would take P + 1 from under it), and
 * neither next to one of avoid[n].
 */
static int
bench_free_port_pair(const int *avoid, size_t n, char **cause)
{
	static int seeded;
	FILE *f;
	int lo = 32768, port, tries;
	size_t i;

	if ((f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) !=
	    NULL) {
		if (fscanf(f, "%d", &lo) != 1 || lo < 11000)
			lo = 32768;
		fclose(f);
	}
	if (!seeded) {
		/* Two benches at once draw apart. */
		srandom((unsigned)getpid() ^ (unsigned)time(NULL));
		seeded = 1;
	}
	for (tries = 0; tries < 1000; tries++) {
		port = 10000 + (int)(random() % (lo - 10002));
		for (i = 0; i < n; i++)
			if (port >= avoid[i] - 2 && port <= avoid[i] + 2)
				break;
		if (i == n && bench_port_free(port) &&
		    bench_port_free(port + 1))
			return port;
	}
	xasprintf(cause, "no two free ports next to each other below %d", lo);
	return -1;
}

static int
bench_write_file(const char *path, const char *text, char **cause)
{
	FILE *f;

	if ((f = fopen(path, "w")) == NULL) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	fputs(text, f);
	if (fclose(f) != 0) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Run argv, its output into log; its exit status, -1 if it did not run. */
static int
bench_run(char *const argv[], const char *log)
{
	pid_t pid;
	int st, fd;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600)) !=
		    -1) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void
bench_shape_defaults(struct bench_shape *sh)
{
	sh->osds = 256;
	sh->pools = 4;
	sh->window = 256;
	sh->batch = 4096;
}

int
bench_shape_opt(struct bench_shape *sh, int ch, const char *arg)
{
	switch (ch) {
	case 'n':
		sh->osds = (int)bench_arg_long("--osds", arg, 3, 65536);
		return 1;
	case 'p':
		sh->pools = (int)bench_arg_long("--pools", arg, 1, 1000);
		return 1;
	case 'w':
		sh->window = (int)bench_arg_long("--window", arg, 1, 4096);
		return 1;
	case 'b':
		sh->batch = (int)bench_arg_long("--batch", arg, 1, 1 << 20);
		return 1;
	case BENCH_OPT_HOSTS:
		sh->hosts = (int)bench_arg_long("--hosts", arg, 1, 65536);
		return 1;
	case BENCH_OPT_RACKS:
		sh->racks = (int)bench_arg_long("--racks", arg, 1, 65536);
		return 1;
	}
	return 0;
}

void
bench_run_opts_defaults(struct bench_run_opts *ro)
{
	memset(ro, 0, sizeof *ro);
	ro->outdir = ".";
}

int
bench_run_opt(struct bench_run_opts *ro, int ch, const char *arg)
{
	switch (ch) {
	case 'M':
		ro->mapmond = arg;
		return 1;
	case 'C':
		free(ro->mon_conf);
		ro->mon_conf = bench_arg_file("--mon-conf", arg);
		return 1;
	case 'o':
		ro->outdir = arg;
		return 1;
	}
	return 0;
}

char *
bench_run_mapmond(const struct bench_run_opts *ro, int *code)
{
	char *path, *cause = NULL;

	path = bench_find_program(ro->mapmond, "MAPMOND", "../daemon/mapmond",
	    &cause);
	if (path == NULL) {
		fprintf(stderr, "mapmon-bench: %s\n", cause);
		free(cause);
		*code = 1;
		return NULL;
	}
	if (access(ro->outdir, W_OK) != 0) {
		fprintf(stderr, "mapmon-bench: -o %s: %s\n", ro->outdir,
		    strerror(errno));
		free(path);
		*code = MAPMON_EXIT_USAGE;
		return NULL;
	}
	return path;
}

static int bench_conf_sets(const char *text, const char *key);

/*
 * The directory, the address and the notification socket; no config yet.
 * pair_avoid non-NULL: a monitor of a quorum (bench_free_port_pair()).
 */
static struct bench_mon *
bench_mon_alloc(char *mapmond, const int *pair_avoid, size_t pair_n,
    char **cause)
{
	struct bench_mon *bm;
	struct sockaddr_un sun;
	const char *tmp = getenv("TMPDIR");
	char *tmpl;
	int port;

	/* Under $TMPDIR, as mktemp(1) does: a test keeps its runs apart. */
	xasprintf(&tmpl, "%s/mapmon-bench.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(tmpl) == NULL) {
		xasprintf(cause, "mkdtemp %s: %s", tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	bm = xcalloc(1, sizeof *bm);
	bm->pid = -1;
	bm->notify_fd = -1;
	bm->mapmond = mapmond;
	bm->dir = tmpl;
	xasprintf(&bm->conf, "%s/mapmon.conf", bm->dir);
	xasprintf(&bm->log, "%s/mapmond.log", bm->dir);
	xasprintf(&bm->notify_path, "%s/notify", bm->dir);

	port = pair_avoid != NULL ?
	    bench_free_port_pair(pair_avoid, pair_n, cause) :
	    bench_free_port(cause);
	if (port == -1)
		goto fail;
	bm->port = port;
	snprintf(bm->addr, sizeof bm->addr, "127.0.0.1:%d", port);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(bm->notify_path) >= sizeof sun.sun_path) {
		xasprintf(cause, "%s: path too long", bm->notify_path);
		goto fail;
	}
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", bm->notify_path);
	if ((bm->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) ==
	    -1 || bind(bm->notify_fd, (struct sockaddr *)&sun, sizeof sun) ==
	    -1) {
		xasprintf(cause, "%s: %s", bm->notify_path, strerror(errno));
		goto fail;
	}
	return bm;
fail:
	bench_mon_free(bm);
	return NULL;
}

/*
 * Its config: [auth] keyring, [mon] data and bind, mon_lines (a quorum's
 * name and mon_host; may be NULL), the set-up's lines, then extra.
 */
static int
bench_mon_configure(struct bench_mon *bm, const struct bench_setup *su,
    const char *keyring, const char *mon_lines, const char *extra, char **cause)
{
	char *text;
	int rc;

	/* The benchmarks delete the pools they made, as an operator would. */
	xasprintf(&text,
	    "[auth]\nkeyring = %s\n"
	    "[mon]\ndata = %s\nbind = %s\n%s%s%s%s",
	    keyring, bm->dir, bm->addr, mon_lines != NULL ? mon_lines : "",
	    extra != NULL && bench_conf_sets(extra, "mon_allow_pool_delete") ?
		"" :
		"mon_allow_pool_delete = true\n",
	    su->conf, extra != NULL ? extra : "");
	rc = bench_write_file(bm->conf, text, cause);
	free(text);
	return rc;
}

/* mapmond --mkfs, of a quorum's other monitors with --monmap --keyring. */
static int
bench_mon_mkfs(struct bench_mon *bm, const char *monmap, const char *keyring,
    char **cause)
{
	char *argv[9];
	int i = 0;

	argv[i++] = bm->mapmond;
	argv[i++] = (char *)"--mkfs";
	argv[i++] = (char *)"-c";
	argv[i++] = bm->conf;
	if (monmap != NULL) {
		argv[i++] = (char *)"--monmap";
		argv[i++] = (char *)monmap;
		argv[i++] = (char *)"--keyring";
		argv[i++] = (char *)keyring;
	}
	argv[i] = NULL;
	if (bench_run(argv, bm->log) != 0) {
		xasprintf(cause, "%s --mkfs failed (see %s)", bm->mapmond,
		    bm->log);
		return -1;
	}
	return 0;
}

struct bench_mon *
bench_mon_new(char *mapmond, const struct bench_setup *su, const char *extra,
    char **cause)
{
	struct bench_mon *bm;
	char *keyring;

	if ((bm = bench_mon_alloc(mapmond, NULL, 0, cause)) == NULL)
		return NULL;
	xasprintf(&keyring, "%s/client.admin.keyring", bm->dir);
	if (bench_mon_configure(bm, su, keyring, NULL, extra, cause) == -1 ||
	    bench_mon_mkfs(bm, NULL, NULL, cause) == -1 ||
	    /* The bench's clients are the admin, with the key mkfs wrote. */
	    mclient_default_auth("client.admin", keyring, cause) == -1) {
		free(keyring);
		bench_mon_free(bm);
		return NULL;
	}
	free(keyring);
	return bm;
}

struct bench_mon *
bench_mon_run(char *mapmond, const struct bench_setup *su, const char *extra,
    int no_auth, char **cause)
{
	struct bench_mon *bm;
	char *text = NULL;

	if (no_auth)
		xasprintf(&text, "%s[auth]\nrequired = false\n",
		    extra != NULL ? extra : "");
	bm = bench_mon_new(mapmond, su, no_auth ? text : extra, cause);
	free(text);
	if (bm == NULL)
		return NULL;
	/* bench_mon_new() made the admin's key the default: none. */
	if (no_auth)
		(void)mclient_default_auth(NULL, NULL, NULL);
	if (bench_mon_start(bm, cause) == -1 ||
	    bench_mon_wait_ready(bm, 60, cause) == -1) {
		bench_mon_free(bm);
		return NULL;
	}
	return bm;
}

struct bench_quorum *
bench_quorum_run(char *mapmond, const struct bench_setup *su, const char *extra,
    size_t n, int no_auth, char **cause)
{
	struct bench_quorum *q;
	int ports[BENCH_QUORUM_MAX];
	char *hosts = NULL, *more, *lines, *keyring = NULL, *monmap = NULL;
	char *text = NULL;
	size_t i;

	if (n < 1 || n > BENCH_QUORUM_MAX) {
		xasprintf(cause, "%zu monitors: 1 to %d", n, BENCH_QUORUM_MAX);
		return NULL;
	}
	q = xcalloc(1, sizeof *q);
	if (no_auth)
		xasprintf(&text, "%s[auth]\nrequired = false\n",
		    extra != NULL ? extra : "");
	for (i = 0; i < n; i++) {
		if ((q->mon[i] = bench_mon_alloc(mapmond, ports, i, cause)) ==
		    NULL)
			goto fail;
		ports[i] = q->mon[i]->port;
		q->n++;
		xasprintf(&more, "%s%s%c=%s", hosts != NULL ? hosts : "",
		    i > 0 ? "," : "", (int)('a' + i), q->mon[i]->addr);
		free(hosts);
		hosts = more;
		xasprintf(&more, "%s%s%s", q->addrs != NULL ? q->addrs : "",
		    i > 0 ? "," : "", q->mon[i]->addr);
		free(q->addrs);
		q->addrs = more;
	}
	/* Every monitor offers the first's keyring, as a deployment would. */
	xasprintf(&keyring, "%s/client.admin.keyring", q->mon[0]->dir);
	xasprintf(&monmap, "%s/monmap", q->mon[0]->dir);
	for (i = 0; i < n; i++) {
		xasprintf(&lines, "name = %c\nmon_host = %s\n", (int)('a' + i),
		    hosts);
		if (bench_mon_configure(q->mon[i], su, keyring, lines,
			no_auth ? text : extra, cause) == -1) {
			free(lines);
			goto fail;
		}
		free(lines);
		if (bench_mon_mkfs(q->mon[i], i > 0 ? monmap : NULL, keyring,
			cause) == -1)
			goto fail;
	}
	if (mclient_default_auth(no_auth ? NULL : "client.admin",
		no_auth ? NULL : keyring, cause) == -1)
		goto fail;
	for (i = 0; i < n; i++)
		if (bench_mon_start(q->mon[i], cause) == -1)
			goto fail;
	for (i = 0; i < n; i++)
		if (bench_mon_wait_ready(q->mon[i], 60, cause) == -1)
			goto fail;
	if (bench_quorum_leader(q, 60, cause) == -1)
		goto fail;
	free(hosts);
	free(keyring);
	free(monmap);
	free(text);
	return q;
fail:
	free(hosts);
	free(keyring);
	free(monmap);
	free(text);
	bench_quorum_free(q);
	return NULL;
}

int
bench_quorum_leader(const struct bench_quorum *q, double timeout, char **cause)
{
	double end = bench_now() + timeout;
	json_t *data;
	const char *leader;
	char *why = NULL;
	size_t i;
	int st;

	for (;;) {
		/* Asked of each in turn: one of them may be down. */
		for (i = 0; i < q->n; i++) {
			if (bench_call(q->mon[i]->addr,
				"{\"prefix\":\"quorum_status\"}", &data,
				&why) < 0) {
				free(why);
				why = NULL;
				continue;
			}
			leader = json_string_value(
			    json_object_get(data, "quorum_leader_name"));
			if (leader != NULL && leader[0] >= 'a' &&
			    leader[0] < 'a' + (int)q->n && leader[1] == '\0' &&
			    json_array_size(json_object_get(data,
				"quorum_names")) == q->n) {
				i = (size_t)(leader[0] - 'a');
				json_decref(data);
				return (int)i;
			}
			json_decref(data);
		}
		for (i = 0; i < q->n; i++)
			if (bench_mon_exited(q->mon[i], &st)) {
				xasprintf(cause, "mon.%c exited (see %s)",
				    (int)('a' + i), q->mon[i]->log);
				return -1;
			}
		if (bench_now() >= end)
			break;
		usleep(50000);
	}
	xasprintf(cause, "no leader with all %zu monitors in quorum in %.0f s",
	    q->n, timeout);
	return -1;
}

void
bench_quorum_free(struct bench_quorum *q)
{
	size_t i;

	if (q == NULL)
		return;
	for (i = 0; i < q->n; i++)
		bench_mon_free(q->mon[i]);
	free(q->addrs);
	free(q);
}

int
bench_mon_start(struct bench_mon *bm, char **cause)
{
	char buf[64];
	int fd;

	/* Anything left from an earlier start must not count as READY. */
	while (recv(bm->notify_fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
		continue;
	bm->t_ready = 0;
	bm->t_exec = bench_now();
	if ((bm->pid = fork()) == -1) {
		xasprintf(cause, "fork: %s", strerror(errno));
		return -1;
	}
	if (bm->pid == 0) {
		if ((fd = open(bm->log, O_WRONLY | O_CREAT | O_APPEND, 0600)) !=
		    -1) {
			dup2(fd, 2);
			close(fd);
		}
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			dup2(fd, 0);
			dup2(fd, 1);
			close(fd);
		}
		setenv("NOTIFY_SOCKET", bm->notify_path, 1);
		execl(bm->mapmond, bm->mapmond, "-d", "-c", bm->conf,
		    (char *)NULL);
		_exit(127);
	}
	return 0;
}

int
bench_mon_exited(struct bench_mon *bm, int *status)
{
	if (bm->pid == -1)
		return 1;
	if (waitpid(bm->pid, status, WNOHANG) == bm->pid) {
		bm->pid = -1;
		return 1;
	}
	return 0;
}

int
bench_mon_wait_ready(struct bench_mon *bm, double timeout, char **cause)
{
	struct pollfd pfd;
	char buf[4096];
	double end = bench_now() + timeout;
	ssize_t n;
	int st;

	pfd.fd = bm->notify_fd;
	pfd.events = POLLIN;
	while (bench_now() < end) {
		if (poll(&pfd, 1, 10) == 1) {
			/* The moment it arrived, before anything else. */
			double t = bench_now();

			n = recv(bm->notify_fd, buf, sizeof buf - 1, 0);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			if (strncmp(buf, "READY=1", 7) == 0 ||
			    strstr(buf, "\nREADY=1") != NULL) {
				bm->t_ready = t;
				return 0;
			}
			continue;
		}
		if (bench_mon_exited(bm, &st)) {
			xasprintf(cause, "mapmond exited before READY=1 (see "
			    "%s)", bm->log);
			return -1;
		}
	}
	xasprintf(cause, "no READY=1 from mapmond in %.0f s", timeout);
	return -1;
}

int
bench_call(const char *addr, const char *text, json_t **data, char **cause)
{
	json_error_t jerr;
	json_t *cmd;
	char *status = NULL;
	int rc;

	if (data != NULL)
		*data = NULL;
	if ((cmd = json_loads(text, 0, &jerr)) == NULL) {
		xasprintf(cause, "%s: %s", text, jerr.text);
		return -EINVAL;
	}
	rc = mclient_call(addr, 60000, cmd, data, &status);
	json_decref(cmd);
	if (rc < 0)
		xasprintf(cause, "%s: %s", text, status != NULL ? status :
		    strerror(-rc));
	free(status);
	return rc;
}

double
bench_mon_wait_status(struct bench_mon *bm, double timeout, char **cause)
{
	double end = bench_now() + timeout, t;
	char *why = NULL;
	int rc, st;

	while ((t = bench_now()) < end) {
		rc = bench_call(bm->addr, "{\"prefix\":\"status\"}", NULL,
		    &why);
		t = bench_now();
		if (rc == 0)
			return t;
		free(why);
		why = NULL;
		if (bench_mon_exited(bm, &st)) {
			xasprintf(cause, "mapmond exited (see %s)", bm->log);
			return -1;
		}
		usleep(1000);
	}
	xasprintf(cause, "no answer to status from %s in %.0f s", bm->addr,
	    timeout);
	return -1;
}

int
bench_mon_stop(struct bench_mon *bm, char **cause)
{
	int st;

	if (bm->pid == -1)
		return 0;
	kill(bm->pid, SIGTERM);
	while (waitpid(bm->pid, &st, 0) == -1)
		if (errno != EINTR) {
			xasprintf(cause, "waitpid: %s", strerror(errno));
			return -1;
		}
	bm->pid = -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		xasprintf(cause, "mapmond stopped with status %d (see %s)",
		    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
		    bm->log);
		return -1;
	}
	return 0;
}

long
bench_mon_status_kb(const struct bench_mon *bm, const char *field)
{
	char path[64], line[256];
	size_t len = strlen(field);
	FILE *f;
	long kb = -1;

	if (bm->pid == -1)
		return -1;
	snprintf(path, sizeof path, "/proc/%d/status", (int)bm->pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, field, len) == 0 && line[len] == ':') {
			kb = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

long
bench_mon_hwm_kb(const struct bench_mon *bm)
{
	return bench_mon_status_kb(bm, "VmHWM");
}

void
bench_mon_free(struct bench_mon *bm)
{
	int st;

	if (bm == NULL)
		return;
	if (bm->pid != -1) {
		kill(bm->pid, SIGKILL);
		waitpid(bm->pid, &st, 0);
	}
	if (bm->notify_fd != -1)
		close(bm->notify_fd);
	if (bm->dir != NULL && getenv("MAPMON_BENCH_KEEP") == NULL)
		bench_rmtree(bm->dir);
	free(bm->dir);
	free(bm->conf);
	free(bm->log);
	free(bm->notify_path);
	free(bm);
}

char *
bench_read_file(const char *path, char **cause)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, n;
	char tmp[4096];

	if ((f = fopen(path, "r")) == NULL) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
		buf = xrealloc(buf, len + n + 1);
		memcpy(buf + len, tmp, n);
		len += n;
	}
	if (ferror(f)) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (buf == NULL)
		buf = xcalloc(1, 1);
	buf[len] = '\0';
	return buf;
}

struct bench_probe {
	char *addr;
	int interval_ms;
	struct event_base *base;
	struct mclient *cl;
	struct event *tick;
	pthread_t thread;
	int running;
	volatile int stop;
	int waiting;
	double t_sent;
	double *sent;
	double *ms;
	size_t n;
	size_t cap;
	int failed;
	int realtime;
	char priority[128]; /* what the thread ran at */
};

static void
bench_probe_reply(void *arg, int rc, mapmon_unused const char *status,
    mapmon_unused json_t *data)
{
	struct bench_probe *pr = arg;
	double t = bench_now();

	pr->waiting = 0;
	if (rc < 0) {
		pr->failed = 1;
		return;
	}
	if (pr->n == pr->cap) {
		pr->cap = pr->cap ? pr->cap * 2 : 1024;
		pr->sent = xreallocarray(pr->sent, pr->cap, sizeof *pr->sent);
		pr->ms = xreallocarray(pr->ms, pr->cap, sizeof *pr->ms);
	}
	pr->sent[pr->n] = pr->t_sent;
	pr->ms[pr->n++] = (t - pr->t_sent) * 1e3;
}

static void
bench_probe_tick(mapmon_unused evutil_socket_t fd, mapmon_unused short what,
    void *arg)
{
	struct bench_probe *pr = arg;
	json_t *cmd;

	if (pr->stop || pr->failed) {
		event_base_loopbreak(pr->base);
		return;
	}
	if (pr->waiting || !mclient_ready(pr->cl))
		return;
	cmd = json_pack("{s:s}", "prefix", "status");
	pr->t_sent = bench_now();
	if (mclient_request(pr->cl, cmd, bench_probe_reply, pr) == 0)
		pr->waiting = 1;
	json_decref(cmd);
}

static void *
bench_probe_main(void *arg)
{
	struct bench_probe *pr = arg;
	struct sched_param sp;
	int error;

	snprintf(pr->priority, sizeof pr->priority, "normal priority");
	if (pr->realtime) {
		memset(&sp, 0, sizeof sp);
		sp.sched_priority = BENCH_PROBE_PRIORITY;
		error = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (error == 0)
			snprintf(pr->priority, sizeof pr->priority,
			    "SCHED_FIFO %d", BENCH_PROBE_PRIORITY);
		else
			snprintf(pr->priority, sizeof pr->priority,
			    "normal priority (SCHED_FIFO %d: %s)",
			    BENCH_PROBE_PRIORITY, strerror(error));
	}
	event_base_dispatch(pr->base);
	return NULL;
}

struct bench_probe *
bench_probe_start(const char *addr, int interval_ms, int realtime, char **cause)
{
	struct bench_probe *pr = xcalloc(1, sizeof *pr);
	struct timeval tv;
	int error;

	pr->addr = xstrdup(addr);
	pr->interval_ms = interval_ms;
	pr->realtime = realtime;
	pr->base = event_base_new();
	pr->cl = mclient_new(pr->base, pr->addr, 5000, NULL, NULL, NULL);
	mclient_set_name(pr->cl, "client.probe");
	pr->tick = event_new(pr->base, -1, EV_PERSIST, bench_probe_tick, pr);
	tv.tv_sec = interval_ms / 1000;
	tv.tv_usec = (interval_ms % 1000) * 1000;
	event_add(pr->tick, &tv);
	error = pthread_create(&pr->thread, NULL, bench_probe_main, pr);
	if (error != 0) {
		xasprintf(cause, "pthread_create: %s", strerror(error));
		bench_probe_free(pr);
		return NULL;
	}
	pr->running = 1;
	return pr;
}

size_t
bench_probe_stop(struct bench_probe *pr, const double **sent, const double **ms,
    int *failed)
{
	if (pr->running) {
		pr->stop = 1;
		pthread_join(pr->thread, NULL);
		pr->running = 0;
	}
	*sent = pr->sent;
	*ms = pr->ms;
	*failed = pr->failed;
	return pr->n;
}

const char *
bench_probe_priority(const struct bench_probe *pr)
{
	return pr->priority;
}

void
bench_probe_free(struct bench_probe *pr)
{
	const double *s, *m;
	int failed;

	if (pr == NULL)
		return;
	bench_probe_stop(pr, &s, &m, &failed);
	mclient_free(pr->cl);
	event_free(pr->tick);
	event_base_free(pr->base);
	free(pr->sent);
	free(pr->ms);
	free(pr->addr);
	free(pr);
}

static int bench_progress_shown;

void
bench_progress(const char *label, size_t done, size_t total)
{
	char bar[31];
	size_t fill, i;

	if (!isatty(STDERR_FILENO) || total == 0)
		return;
	fill = done * (sizeof bar - 1) / total;
	for (i = 0; i < sizeof bar - 1; i++)
		bar[i] = i < fill ? '#' : ' ';
	bar[sizeof bar - 1] = '\0';
	fprintf(stderr, "\r%-40.40s [%s] %zu/%zu", label, bar, done, total);
	fflush(stderr);
	bench_progress_shown = 1;
}

void
bench_progress_done(void)
{
	if (bench_progress_shown) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
		bench_progress_shown = 0;
	}
}

void
bench_up_fail(struct bench_up *up, const char *fmt, ...)
{
	va_list ap;

	if (up->error == NULL) {
		va_start(ap, fmt);
		xvasprintf(&up->error, fmt, ap);
		va_end(ap);
	}
	event_base_loopbreak(up->base);
}

static void
bench_up_created(void *arg, int rc, const char *status,
    mapmon_unused json_t *data)
{
	struct bench_up *up = arg;

	if (rc < 0)
		bench_up_fail(arg, "osd pool create: %s", status);
	else if (++up->ncreated == up->p.shape.pools)
		up->t_created = bench_now();
}

/* Whether the config text sets key (a line "key = ..."), in any section. */
static int
bench_conf_sets(const char *text, const char *key)
{
	const char *line = text;
	size_t n = strlen(key);

	while (line != NULL && *line != '\0') {
		line += strspn(line, " \t");
		if (strncmp(line, key, n) == 0 &&
		    line[n + strspn(line + n, " \t")] == '=')
			return 1;
		if ((line = strchr(line, '\n')) != NULL)
			line++;
	}
	return 0;
}

int
bench_conf_has(const char *text, const char *key)
{
	return text != NULL && bench_conf_sets(text, key);
}

char *
bench_limits_conf(long pgs, const struct bench_shape *s, const char *user)
{
	/* Pools of size 3, split as bench_up_create_pools() does. */
	long last = pgs - pgs / s->pools * (s->pools - 1);
	long in = s->osds > 3 ? s->osds : 3;
	const struct {
		const char *key;
		long def, need;
	} lim[] = {
		{ "max_pool_pg_num", 65536, last },
		{ "max_pg_per_osd", 250, (3 * pgs + in - 1) / in },
		{ "max_pgs", 262144, pgs },
		/* A session per simulated OSD, and the tools' own. */
		{ "max_connections", 1024, (long)s->osds + 64 },
	};
	char *text, *more;
	size_t i;

	text = xstrdup("[mon]\n");
	for (i = 0; i < nitems(lim); i++) {
		if (user != NULL && bench_conf_sets(user, lim[i].key))
			continue;
		xasprintf(&more, "%s%s = %ld\n", text, lim[i].key,
		    lim[i].need > lim[i].def ? lim[i].need : lim[i].def);
		free(text);
		text = more;
	}
	xasprintf(&more, "%s%s", text, user != NULL ? user : "");
	free(text);
	return more;
}

/* Every OSD is up: create the pools, N PGs in all; the clock starts. */
static void
bench_up_create_pools(struct bench_up *up)
{
	const struct bench_up_params *p = &up->p;
	long each = p->pgs / p->shape.pools, n;
	char name[64];
	json_t *cmd;
	int i;

	up->t0 = bench_now();
	for (i = 0; i < p->shape.pools; i++) {
		n = i == p->shape.pools - 1 ? p->pgs - each * i : each;
		snprintf(name, sizeof name, "%s%d", up->pool_prefix, i);
		cmd = json_pack("{s:s, s:s, s:I, s:i}", "prefix",
		    "osd pool create", "pool", name, "pg_num", (json_int_t)n,
		    "size", 3);
		mclient_request(up->admin, cmd, bench_up_created, up);
		json_decref(cmd);
	}
}

static void
bench_up_event(void *arg, enum osd_sim_event ev, const char *msg)
{
	struct bench_up *up = arg;
	struct osd_sim_stats st;

	osd_sim_stats(up->sim, &st);
	switch (ev) {
	case OSD_SIM_BOOTED:
		bench_up_create_pools(up);
		break;
	case OSD_SIM_CLEAN:
		if ((long)st.npgs == up->p.pgs && up->p.on_clean != NULL)
			up->p.on_clean(up, up->p.arg);
		break;
	case OSD_SIM_ERROR:
		if (st.dead)
			bench_up_fail(up, "osd-sim: %s", msg);
		break;
	case OSD_SIM_NOTICE:
	case OSD_SIM_STOPPED:
		break;
	}
}

static void
bench_up_admin_error(void *arg, int err, const char *msg)
{
	bench_up_fail(arg, "%s (%s)", msg, strerror(-err));
}

static void
bench_up_timeout(mapmon_unused evutil_socket_t fd, mapmon_unused short what,
    void *arg)
{
	struct bench_up *up = arg;

	bench_up_fail(up, "not all active+clean within %.0f s",
	    up->p.timeout);
}

struct bench_up *
bench_up_new(struct event_base *base, const struct bench_up_params *p,
    char **cause)
{
	struct osd_sim_params sp;
	struct bench_up *up;
	struct timeval tv;
	char *admin;

	up = xcalloc(1, sizeof *up);
	up->t_start = bench_now();
	up->base = base;
	up->p = *p;
	up->pool_prefix = xstrdup(p->pool_prefix);
	up->p.pool_prefix = up->pool_prefix;
	osd_sim_params_defaults(&sp);
	sp.addr = p->addr;
	sp.nosds = p->shape.osds;
	sp.hosts = p->shape.hosts;
	sp.racks = p->shape.racks;
	sp.window = p->shape.window;
	sp.batch = p->shape.batch;
	sp.live_interval_ms = p->live_interval_ms;
	if (p->heartbeat_grace_ms > 0)
		sp.heartbeat_grace_ms = p->heartbeat_grace_ms;
	sp.no_auth = p->no_auth;
	if ((up->sim = osd_sim_new(base, &sp, bench_up_event, up, cause)) ==
	    NULL) {
		free(up->pool_prefix);
		free(up);
		return NULL;
	}
	/* The pools are made through the first monitor (forwarded). */
	admin = xstrndup(p->addr, strcspn(p->addr, ","));
	up->admin = mclient_new(base, admin, 5000, NULL, bench_up_admin_error,
	    up);
	free(admin);
	mclient_set_name(up->admin, "client.bench");
	if (p->timeout > 0) {
		up->timeout_ev = evtimer_new(base, bench_up_timeout, up);
		tv.tv_sec = (time_t)p->timeout;
		tv.tv_usec = 0;
		evtimer_add(up->timeout_ev, &tv);
	}
	return up;
}

void
bench_up_free(struct bench_up *up)
{
	if (up == NULL)
		return;
	osd_sim_free(up->sim);
	mclient_free(up->admin);
	if (up->timeout_ev != NULL)
		event_free(up->timeout_ev);
	free(up->error);
	free(up->pool_prefix);
	free(up);
}
