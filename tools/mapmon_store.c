/*
 * mapmon_store.c: mapmon-store, the offline store tool.
 *
 * Every subcommand opens the store itself, so the store's lock refuses one
 * held by a running mapmond and every failure is one line on stderr.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/enc.h"
#include "common/mapmon.h"
#include "conf/conf.h"
#include "mon/keys.h"
#include "mon/mon.h"
#include "mon/mon_conf.h"
#include "mon/mon_verify.h"
#include "store/store.h"

#define EXIT_STORE 1		/* the store failed or refused */
#define EXIT_NOTFOUND 2		/* get: no such key */
#define EXPORT_FORMAT 1
#define IMPORT_BATCH_RECORDS 20000
#define IMPORT_BATCH_BYTES (8u << 20)

static const char *progname = "mapmon-store";

struct tool {
	struct conf *conf;
	struct store_options opts;
	char *data;		/* [mon] data or --data */
	char *path;		/* DATA/store */
	const char *backend;	/* --backend: the store's */
};

static mapmon_dead void
usage(void)
{
	fprintf(stderr,
	    "usage: %s [-c CONF] [--data DIR] [--backend NAME] SUBCOMMAND\n"
	    "subcommands:\n"
	    "  stat                      backend, size, records, statistics\n"
	    "  dump [--full] [PREFIX]    one line per record: KEY, length, "
	    "value hex\n"
	    "  get [--raw] KEY           one record's value (hex, or raw "
	    "bytes)\n"
	    "  scan                      timed full read of every record\n"
	    "  verify                    decode every record, check the "
	    "invariants\n"
	    "  compact                   compact the whole store\n"
	    "  copy --backend NAME DEST  copy into a new store in data "
	    "directory DEST\n"
	    "  export [FILE]             every record as JSON (stdout)\n"
	    "  import [FILE]             records from JSON (stdin)\n",
	    progname);
	exit(MAPMON_EXIT_USAGE);
}

static void
warnx_(const char *fmt, ...) printflike(1, 2);

static void
warnx_(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Load the config: -c must exist; the default file may be missing. */
static int
tool_conf(struct tool *t, const char *file)
{
	const char *env = getenv("MAPMON_CONF");
	char **errors;
	size_t nerrors, i;
	int must = file != NULL;

	if (file == NULL && env != NULL && *env != '\0') {
		file = env;
		must = 1;
	}
	if (file == NULL)
		file = SYSCONFDIR "/mapmon/mapmon.conf";
	if (!must && access(file, F_OK) == -1 && errno == ENOENT) {
		t->conf = conf_new();
		return 0;
	}
	if ((t->conf = conf_load(file, &errors, &nerrors)) == NULL) {
		for (i = 0; i < nerrors; i++)
			warnx_("%s", errors[i]);
		if (nerrors == 0)
			warnx_("%s: cannot load", file);
		conf_errors_free(errors, nerrors);
		return -1;
	}
	return 0;
}

/*
 * The store options from the config, as the daemon takes them, except that
 * the backend is recognised from the store's files (unless --backend) and
 * offline there is no compaction on open, which would slow every command.
 */
static void
tool_options(struct tool *t)
{
	mon_conf_store_options(t->conf, &t->opts);
	t->opts.backend = NULL;
	t->opts.leveldb.compact_on_start = 0;
}

/* Open the existing store; on failure say why in one line. */
static struct store *
tool_open(struct tool *t)
{
	struct store_options o = t->opts;
	struct store *s;
	char *cause = NULL;

	o.backend = t->backend;
	if (store_open(t->path, &o, 0, &s, &cause) != 0) {
		warnx_("%s", cause);
		free(cause);
		return NULL;
	}
	return s;
}

static int
tool_fail(struct store *s, int error, char *cause)
{
	warnx_("%s", cause != NULL ? cause : store_strerror(error));
	free(cause);
	store_close(s);
	return EXIT_STORE;
}

static void
hex_write(FILE *f, const void *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		putc_unlocked(hex[b[i] >> 4], f);
		putc_unlocked(hex[b[i] & 0xf], f);
	}
}

static int
cmd_stat(struct tool *t, int argc, mapmon_unused char **argv)
{
	struct store_stats st;
	struct store *s;
	char *cause = NULL, b1[32], b2[32];
	int error;

	if (argc != 1)
		usage();
	if ((s = tool_open(t)) == NULL)
		return EXIT_STORE;
	if ((error = store_stat(s, &st, &cause)) != 0)
		return tool_fail(s, error, cause);
	printf("path: %s\n", store_path(s));
	printf("backend: %s\n", st.backend);
	printf("format: %d\n", STORE_FORMAT);
	printf("disk bytes: %" PRIu64 " (%s)\n", st.disk_bytes,
	    bytes_format(st.disk_bytes, b1, sizeof b1));
	if (st.records >= 0)
		printf("records: %" PRId64 "\n", st.records);
	else
		printf("records: unknown (counting needs a scan)\n");
	if (st.map_size > 0)
		printf("map: %s used of %s\n", bytes_format(st.map_used, b1,
		    sizeof b1), bytes_format(st.map_size, b2, sizeof b2));
	if (st.text != NULL)
		printf("%s\n", st.text);
	store_stats_free(&st);
	store_close(s);
	return 0;
}

static int
cmd_dump(struct tool *t, int argc, char **argv)
{
	struct store_iter *it;
	struct store *s;
	const void *k, *v;
	size_t klen, vlen, plen = 0;
	uint8_t *prefix = NULL;
	char *cause = NULL, *e;
	int r, full = 0, i = 1;

	if (i < argc && strcmp(argv[i], "--full") == 0) {
		full = 1;
		i++;
	}
	if (argc - i > 1 || (i < argc && argv[i][0] == '-' && argv[i][1] == '-'))
		usage();
	if (i < argc && store_key_unescape(argv[i], &prefix, &plen,
	    &cause) != 0) {
		warnx_("%s", cause);
		free(cause);
		return MAPMON_EXIT_USAGE;
	}
	if ((s = tool_open(t)) == NULL) {
		free(prefix);
		return EXIT_STORE;
	}
	if ((it = store_iter_new(s, prefix, plen, NULL, 0, &cause)) == NULL) {
		free(prefix);
		return tool_fail(s, STORE_E_IO, cause);
	}
	while ((r = store_iter_next(it, &k, &klen, &v, &vlen)) == 1) {
		if (plen > 0 && (klen < plen || memcmp(k, prefix, plen) != 0))
			break;
		e = store_key_escape(k, klen);
		printf("%s\t%zu\t", e, vlen);
		free(e);
		hex_write(stdout, v, full || vlen <= 32 ? vlen : 32);
		if (!full && vlen > 32)
			fputs("...", stdout);
		putchar('\n');
	}
	free(prefix);
	if (r < 0) {
		cause = xstrdup(store_iter_cause(it) ? store_iter_cause(it) :
		    store_strerror(r));
		store_iter_free(it);
		return tool_fail(s, r, cause);
	}
	store_iter_free(it);
	store_close(s);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warnx_("writing the dump: %s", strerror(errno));
		return EXIT_STORE;
	}
	return 0;
}

static int
cmd_get(struct tool *t, int argc, char **argv)
{
	struct store *s;
	uint8_t *key;
	size_t klen, vlen;
	char *cause = NULL;
	void *v;
	int error, raw = 0, i = 1;

	if (i < argc && strcmp(argv[i], "--raw") == 0) {
		raw = 1;
		i++;
	}
	if (argc - i != 1)
		usage();
	if (store_key_unescape(argv[i], &key, &klen, &cause) != 0) {
		warnx_("%s", cause);
		free(cause);
		return MAPMON_EXIT_USAGE;
	}
	if ((s = tool_open(t)) == NULL) {
		free(key);
		return EXIT_STORE;
	}
	error = store_get(s, key, klen, &v, &vlen, &cause);
	free(key);
	if (error == STORE_NOTFOUND) {
		warnx_("%s: key %s: not found", store_path(s), argv[i]);
		store_close(s);
		return EXIT_NOTFOUND;
	}
	if (error != 0)
		return tool_fail(s, error, cause);
	if (raw)
		fwrite(v, 1, vlen, stdout);
	else {
		hex_write(stdout, v, vlen);
		putchar('\n');
	}
	free(v);
	store_close(s);
	return 0;
}

static int
cmd_scan(struct tool *t, int argc, mapmon_unused char **argv)
{
	struct store_iter *it;
	struct store *s;
	const void *k, *v;
	const uint8_t *p;
	size_t klen, vlen, i;
	uint64_t records = 0, bytes = 0, touch = 0;
	char *cause = NULL;
	double t0, secs;
	int r;

	if (argc != 1)
		usage();
	if ((s = tool_open(t)) == NULL)
		return EXIT_STORE;
	t0 = now();
	if ((it = store_iter_new(s, NULL, 0, NULL, 0, &cause)) == NULL)
		return tool_fail(s, STORE_E_IO, cause);
	while ((r = store_iter_next(it, &k, &klen, &v, &vlen)) == 1) {
		/* Touch every cache line, as a decoder would. */
		for (p = v, i = 0; i < vlen; i += 64)
			touch += p[i];
		records++;
		bytes += klen + vlen;
	}
	if (r < 0) {
		cause = xstrdup(store_iter_cause(it) ? store_iter_cause(it) :
		    store_strerror(r));
		store_iter_free(it);
		return tool_fail(s, r, cause);
	}
	store_iter_free(it);
	secs = now() - t0;
	printf("backend %s records %" PRIu64 " bytes %" PRIu64 " seconds %.6f "
	    "MB/s %.1f\n", store_backend_name(s), records, bytes, secs,
	    secs > 0 ? (double)bytes / secs / 1e6 : 0.0);
	store_close(s);
	/* Keeps the touching loop from being optimised away. */
	return touch == UINT64_MAX ? 0 : 0;
}

/*
 * verify: three passes, each reporting every problem by its key, one line
 * each, and going on:
 *  1. every record has a known prefix, and the store layer's own records
 *     (prefix 0x00) decode;
 *  2. mon_verify(): the monitor's records decode and say what their keys
 *     say, epochs, versions and log entries are contiguous, and every PG of
 *     every pool has its record and no other;
 *  3. when those pass, the store is loaded as mapmond loads it at cold
 *     start (mon_open; nothing is written since the loop never runs) and
 *     the derived figures are compared with a recount.
 */
static const uint8_t verify_mon_prefixes[] = { KEYS_COMMIT, KEYS_MONMAP,
	KEYS_OSDMAP, KEYS_OSDMAP_INC, KEYS_PG, KEYS_PGINC, KEYS_LOG, KEYS_MUTES,
	KEYS_AUTH, KEYS_QUORUM, KEYS_STATFS };

struct verify_report {
	const char *path;
	uint64_t problems;
};

static void
verify_report_problem(void *arg, const char *problem)
{
	struct verify_report *vr = arg;

	vr->problems++;
	warnx_("%s: %s", vr->path, problem);
}

static int
verify_prefix_known(uint8_t prefix)
{
	size_t i;

	if (prefix == 0x00)
		return 1;
	for (i = 0; i < nitems(verify_mon_prefixes); i++)
		if (verify_mon_prefixes[i] == prefix)
			return 1;
	return 0;
}

/* Pass 1: the prefixes and the store layer's records. */
static int
verify_records(struct store *s, struct verify_report *vr, uint64_t *records)
{
	struct store_iter *it;
	const void *k, *v;
	size_t klen, vlen;
	char *cause = NULL, *e;
	int r, error;

	if ((it = store_iter_new(s, NULL, 0, NULL, 0, &cause)) == NULL) {
		warnx_("%s", cause);
		free(cause);
		return -1;
	}
	while ((r = store_iter_next(it, &k, &klen, &v, &vlen)) == 1) {
		(*records)++;
		if (!verify_prefix_known(*(const uint8_t *)k)) {
			e = store_key_escape(k, klen);
			xasprintf(&cause, "record %s: unknown kind of record", e);
			verify_report_problem(vr, cause);
			free(cause);
			free(e);
			cause = NULL;
			continue;
		}
		if (*(const uint8_t *)k != 0x00)
			continue;
		error = store_meta_check(k, klen, v, vlen, &cause);
		if (error == 0)
			continue;
		if (error == STORE_NOTFOUND) {
			e = store_key_escape(k, klen);
			xasprintf(&cause, "record %s: unknown store record", e);
			free(e);
		}
		verify_report_problem(vr, cause);
		free(cause);
		cause = NULL;
	}
	if (r < 0) {
		warnx_("%s", store_iter_cause(it) ? store_iter_cause(it) :
		    store_strerror(r));
		store_iter_free(it);
		return -1;
	}
	store_iter_free(it);
	return 0;
}

/* Pass 3: load as at cold start and recount.  Takes over s. */
static int
verify_derived(struct store *s, struct verify_report *vr)
{
	struct event_base *base;
	struct mon_params params;
	struct mon *m;
	char *cause = NULL, *line;

	if ((base = event_base_new()) == NULL) {
		warnx_("event_base_new failed");
		store_close(s);
		return -1;
	}
	mon_params_defaults(&params);
	if ((m = mon_open(base, s, &params, NULL, NULL, &cause)) == NULL) {
		xasprintf(&line, "cold start: %s", cause);
		verify_report_problem(vr, line);
		free(line);
		free(cause);
		store_close(s);
		event_base_free(base);
		return -1;
	}
	if (mon_check_derived(m, &cause) != 0) {
		xasprintf(&line, "derived figures: %s", cause);
		verify_report_problem(vr, line);
		free(line);
		free(cause);
	}
	mon_free(m);
	event_base_free(base);
	return 0;
}

/*
 * Every pass of verify on the open store s, which it takes over (closed
 * on return).  Prints the counts unless quiet; each problem is one line
 * on stderr.  Returns the number of problems, or -1 when the store could
 * not be read; *records gets the number of records.
 */
static int64_t
verify_store(struct store *s, int quiet, uint64_t *records)
{
	struct mon_verify_counts c;
	struct verify_report vr;
	char *path;

	*records = 0;
	/* store_path(s) dies with s; keep a copy for the messages. */
	path = xstrdup(store_path(s));
	vr.path = path;
	vr.problems = 0;
	if (verify_records(s, &vr, records) != 0) {
		store_close(s);
		free(path);
		return -1;
	}
	mon_verify(s, verify_report_problem, &vr, &c);
	if (!quiet) {
		printf("records: %" PRIu64 "\n", *records);
		printf("osdmap epoch %u: %" PRIu64 " full maps, %" PRIu64
		       " incrementals\n",
		    c.osdmap_epoch, c.osdmaps, c.incrementals);
		printf("pgmap version %" PRIu64 ": %" PRIu64
		       " PG records, %" PRIu64 " incrementals\n",
		    c.pgmap_version, c.pgs, c.pgincs);
		printf("cluster log entries: %" PRIu64 "\n", c.log_entries);
		printf("auth entities: %" PRIu64 "\n", c.auth_entities);
		printf("osd capacities: %" PRIu64 "\n", c.capacities);
	}
	if (vr.problems == 0) {
		verify_derived(s, &vr);
		if (vr.problems == 0 && !quiet)
			printf("derived figures: equal to a recount\n");
	} else
		store_close(s);
	free(path);
	return (int64_t)vr.problems;
}

static int
cmd_verify(struct tool *t, int argc, mapmon_unused char **argv)
{
	struct store *s;
	uint64_t records;
	int64_t problems;

	if (argc != 1)
		usage();
	if ((s = tool_open(t)) == NULL)
		return EXIT_STORE;
	if ((problems = verify_store(s, 0, &records)) < 0)
		return EXIT_STORE;
	printf("problems: %" PRId64 "\n", problems);
	return problems > 0 ? EXIT_STORE : 0;
}

static int
rm_one(const char *p, mapmon_unused const struct stat *sb,
    mapmon_unused int flag, mapmon_unused struct FTW *ftw)
{
	return remove(p);
}

/* The size of file DIR/name in bytes, or 0 when it cannot be read. */
static uint64_t
file_bytes(const char *dir, const char *name)
{
	struct stat sb;
	char *file;
	uint64_t n = 0;

	xasprintf(&file, "%s/%s", dir, name);
	if (stat(file, &sb) == 0)
		n = (uint64_t)sb.st_size;
	free(file);
	return n;
}

/*
 * LMDB: a compacted copy beside the store (DATA/store.compact), verified
 * as `verify` does, then swapped in with one rename while the store's
 * lock is held all along.  On any failure the store is left as it was and
 * the copy removed.  Returns 0 or EXIT_STORE; takes over s.
 */
static int
compact_by_copy(struct tool *t, struct store *s, uint64_t *after)
{
	struct store_options o = t->opts;
	struct store_stats st;
	struct store *c;
	uint64_t records, copied;
	int64_t problems, want = -1;
	char *dir, *cause = NULL;
	int error;

	xasprintf(&dir, "%s.compact", t->path);
	/* Left by a compaction that was killed; ours, as we hold the lock. */
	if (store_detect(dir) != NULL || access(dir, F_OK) == 0) {
		warnx_("removing %s, left by an earlier compaction", dir);
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	if (store_stat(s, &st, NULL) == 0) {
		want = st.records;
		store_stats_free(&st);
	}
	if ((error = store_compact_copy(s, dir, &cause)) != 0) {
		free(dir);
		warnx_("%s (the store is untouched)", cause);
		free(cause);
		store_close(s);
		return EXIT_STORE;
	}
	o.backend = store_backend_name(s);
	if ((error = store_open(dir, &o, 0, &c, &cause)) != 0) {
		warnx_("the compacted copy: %s (the store is untouched)",
		    cause);
		free(cause);
		goto fail;
	}
	problems = verify_store(c, 1, &records);
	copied = records;
	if (problems != 0 || (want >= 0 && copied != (uint64_t)want)) {
		if (problems == 0)
			warnx_("%s: the compacted copy has %" PRIu64
			       " records, "
			       "the store %" PRId64 " (the store is untouched)",
			    dir, copied, want);
		else
			warnx_("%s: the compacted copy failed verify%s (the "
			       "store is untouched)",
			    dir,
			    problems < 0 ? "" : ": see the problems above");
		goto fail;
	}
	if ((error = store_compact_swap(s, dir, &cause)) != 0) {
		warnx_("%s", cause);
		free(cause);
		free(dir);
		store_close(s);
		return EXIT_STORE;
	}
	free(dir);
	*after = file_bytes(t->path, "data.mdb");
	store_close(s);
	return 0;

fail:
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	store_close(s);
	return EXIT_STORE;
}

static int
cmd_compact(struct tool *t, int argc, mapmon_unused char **argv)
{
	struct store_stats st;
	struct store *s;
	uint64_t before, after;
	char *cause = NULL, *path, b1[32], b2[32];
	double t0;
	int error, lmdb;

	if (argc != 1)
		usage();
	if ((s = tool_open(t)) == NULL)
		return EXIT_STORE;
	lmdb = strcmp(store_backend_name(s), "lmdb") == 0;
	path = xstrdup(store_path(s));
	t0 = now();
	if (lmdb) {
		before = file_bytes(t->path, "data.mdb");
		if (compact_by_copy(t, s, &after) != 0) {
			free(path);
			return EXIT_STORE;
		}
	} else {
		if ((error = store_stat(s, &st, &cause)) != 0) {
			free(path);
			return tool_fail(s, error, cause);
		}
		before = st.disk_bytes;
		store_stats_free(&st);
		if ((error = store_compact(s, NULL, 0, NULL, 0, &cause)) != 0 ||
		    (error = store_stat(s, &st, &cause)) != 0) {
			free(path);
			return tool_fail(s, error, cause);
		}
		after = st.disk_bytes;
		store_stats_free(&st);
		store_close(s);
	}
	printf("compacted %s (%s) in %.2f s: %s -> %s%s\n", path,
	    lmdb ? "lmdb" : "leveldb", now() - t0,
	    bytes_format(before, b1, sizeof b1),
	    bytes_format(after, b2, sizeof b2),
	    lmdb ? " (data.mdb; a verified compacted copy swapped in)" : "");
	free(path);
	return 0;
}

struct progress {
	int tty;
	double start;
};

static void
copy_progress(uint64_t done, int64_t total, void *arg)
{
	struct progress *p = arg;
	char bar[41];
	int n;

	if (!p->tty)
		return;
	if (total > 0) {
		n = (int)((double)done * 40 / (double)total);
		if (n > 40)
			n = 40;
		memset(bar, '#', (size_t)n);
		memset(bar + n, ' ', (size_t)(40 - n));
		bar[40] = '\0';
		fprintf(stderr, "\rcopying [%s] %3d%% %" PRIu64 "/%" PRId64,
		    bar, (int)((double)done * 100 / (double)total), done,
		    total);
	} else
		fprintf(stderr, "\rcopying %" PRIu64 " records", done);
	fflush(stderr);
}

/*
 * DEST is a data directory, as --data names one: the copy is made in
 * DEST/store, so that `mapmon-store --data DEST` and a monitor whose
 * [mon] data is DEST find it.  DEST is made when absent (and removed again
 * when the copy fails).
 */
static int
cmd_copy(struct tool *t, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 }
	};
	struct store_options o = t->opts;
	struct store *s, *d;
	struct store_stats st;
	struct progress p;
	const char *backend = NULL, *dest;
	char *cause = NULL, *path;
	int ch, error, made_dest = 0;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+b:", longopts, NULL)) != -1) {
		if (ch == 'b')
			backend = optarg;
		else
			usage();
	}
	if (backend == NULL || argc - optind != 1)
		usage();
	if (!store_backend_known(backend)) {
		warnx_("unknown store backend '%s' (compiled in: %s)", backend,
		    store_backend_names());
		return MAPMON_EXIT_USAGE;
	}
	if ((s = tool_open(t)) == NULL)
		return EXIT_STORE;
	dest = argv[optind];
	if (mkdir(dest, 0755) == 0)
		made_dest = 1;
	else if (errno != EEXIST) {
		warnx_("cannot make the data directory %s: %s", dest,
		    strerror(errno));
		store_close(s);
		return EXIT_STORE;
	}
	xasprintf(&path, "%s/store", dest);
	o.backend = backend;
	if ((error = store_open(path, &o, STORE_CREATE, &d, &cause)) != 0) {
		if (made_dest)
			rmdir(dest);
		free(path);
		return tool_fail(s, error, cause);
	}
	p.tty = isatty(STDERR_FILENO);
	p.start = now();
	error = store_copy(s, d, copy_progress, &p, &cause);
	if (p.tty)
		fputc('\n', stderr);
	if (error != 0) {
		store_close(d);
		/* A half-made copy is worth nothing: remove it. */
		nftw(made_dest ? dest : path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		free(path);
		return tool_fail(s, error, cause);
	}
	if (store_stat(d, &st, NULL) == 0) {
		printf("copied %s (%s) to %s (%s) in %.2f s", store_path(s),
		    store_backend_name(s), store_path(d), backend,
		    now() - p.start);
		if (st.records >= 0)
			printf(": %" PRId64 " records", st.records);
		putchar('\n');
		store_stats_free(&st);
	}
	store_close(d);
	store_close(s);
	free(path);
	return 0;
}

static int
cmd_export(struct tool *t, int argc, char **argv)
{
	struct store_iter *it;
	struct store *s;
	const void *k, *v;
	size_t klen, vlen;
	uint64_t n = 0;
	char *cause = NULL;
	FILE *f = stdout;
	int r;

	if (argc > 2)
		usage();
	if ((s = tool_open(t)) == NULL)
		return EXIT_STORE;
	if (argc == 2 && strcmp(argv[1], "-") != 0 &&
	    (f = fopen(argv[1], "w")) == NULL) {
		warnx_("%s: %s", argv[1], strerror(errno));
		store_close(s);
		return EXIT_STORE;
	}
	if ((it = store_iter_new(s, NULL, 0, NULL, 0, &cause)) == NULL) {
		if (f != stdout)
			fclose(f);
		return tool_fail(s, STORE_E_IO, cause);
	}
	/* Streamed record by record: nothing is built in memory. */
	fprintf(f, "{\"format\":%d,\"backend\":\"%s\",\"records\":[",
	    EXPORT_FORMAT, store_backend_name(s));
	while ((r = store_iter_next(it, &k, &klen, &v, &vlen)) == 1) {
		fputs(n++ > 0 ? ",\n{\"key\":\"" : "\n{\"key\":\"", f);
		hex_write(f, k, klen);
		fputs("\",\"value\":\"", f);
		hex_write(f, v, vlen);
		fputs("\"}", f);
	}
	fputs("\n]}\n", f);
	if (r < 0) {
		cause = xstrdup(store_iter_cause(it) ? store_iter_cause(it) :
		    store_strerror(r));
		store_iter_free(it);
		if (f != stdout)
			fclose(f);
		return tool_fail(s, r, cause);
	}
	store_iter_free(it);
	store_close(s);
	if (fflush(f) != 0 || ferror(f) || (f != stdout && fclose(f) != 0)) {
		warnx_("%s: %s", argc == 2 ? argv[1] : "stdout",
		    strerror(errno));
		return EXIT_STORE;
	}
	if (f != stdout)
		fprintf(stderr, "exported %" PRIu64 " records to %s\n", n,
		    argv[1]);
	return 0;
}

/*
 * A small streaming reader for the export format: the whole file is never
 * held, so 220,000 records import in bounded memory.  It accepts JSON
 * whitespace anywhere, members in the order export writes them ("format"
 * before "records"), and strings with JSON's escapes.
 */
struct jr {
	FILE *f;
	const char *name;
	uint64_t off;
	char *err;
	struct enc_buf s;	/* the last string read */
};

static int
jr_getc(struct jr *r)
{
	int c = getc_unlocked(r->f);

	if (c != EOF)
		r->off++;
	return c;
}

static int
jr_fail(struct jr *r, const char *fmt, ...) printflike(2, 3);

static int
jr_fail(struct jr *r, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (r->err != NULL)
		return -1;
	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	xasprintf(&r->err, "%s: offset %" PRIu64 ": %s", r->name, r->off, msg);
	free(msg);
	return -1;
}

/* The next character that is not whitespace (consumed). */
static int
jr_next(struct jr *r)
{
	int c;

	do
		c = jr_getc(r);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	return c;
}

static int
jr_expect(struct jr *r, int want)
{
	int c = jr_next(r);

	if (c != want)
		return jr_fail(r, "expected '%c', found %s", want,
		    c == EOF ? "the end" : "something else");
	return 0;
}

static int
jr_hex4(struct jr *r)
{
	int i, c, v = 0;

	for (i = 0; i < 4; i++) {
		c = jr_getc(r);
		if (c >= '0' && c <= '9')
			v = v * 16 + c - '0';
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* A string whose opening quote was read, into r->s (NUL-terminated). */
static int
jr_string(struct jr *r)
{
	int c, u;

	enc_buf_reset(&r->s);
	for (;;) {
		c = jr_getc(r);
		if (c == EOF)
			return jr_fail(r, "unterminated string");
		if (c == '"')
			break;
		if (c < 0x20)
			return jr_fail(r, "control character in a string");
		if (c == '\\') {
			switch (c = jr_getc(r)) {
			case '"': case '\\': case '/':
				break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				/* Only what export could write: ASCII. */
				if ((u = jr_hex4(r)) < 1 || u > 0x7f)
					return jr_fail(r, "unsupported \\u "
					    "escape");
				c = u;
				break;
			default:
				return jr_fail(r, "bad escape in a string");
			}
		}
		enc_buf_put_u8(&r->s, (uint8_t)c);
	}
	enc_buf_put_u8(&r->s, '\0');
	r->s.len--;
	return 0;
}

/* A member name and its colon. */
static int
jr_name(struct jr *r)
{
	if (jr_expect(r, '"') != 0 || jr_string(r) != 0)
		return -1;
	return jr_expect(r, ':');
}

/* Decode r->s as hex into out (reset first). */
static int
jr_unhex(struct jr *r, struct enc_buf *out, const char *what)
{
	const char *p = (const char *)r->s.data;
	size_t i;
	int hi, lo;

	enc_buf_reset(out);
	if (r->s.len % 2 != 0)
		return jr_fail(r, "%s: odd number of hex digits", what);
	for (i = 0; i < r->s.len; i += 2) {
		hi = p[i] <= '9' ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10;
		lo = p[i + 1] <= '9' ? p[i + 1] - '0' :
		    (p[i + 1] | 0x20) - 'a' + 10;
		if (hi < 0 || hi > 15 || lo < 0 || lo > 15)
			return jr_fail(r, "%s: not hex", what);
		enc_buf_put_u8(out, (uint8_t)(hi << 4 | lo));
	}
	return 0;
}

/* One {"key":HEX,"value":HEX} record. */
static int
jr_record(struct jr *r, struct enc_buf *key, struct enc_buf *val)
{
	int c, havek = 0, havev = 0;

	for (;;) {
		if (jr_name(r) != 0)
			return -1;
		if (strcmp((char *)r->s.data, "key") == 0 && !havek) {
			if (jr_expect(r, '"') != 0 || jr_string(r) != 0 ||
			    jr_unhex(r, key, "key") != 0)
				return -1;
			havek = 1;
		} else if (strcmp((char *)r->s.data, "value") == 0 && !havev) {
			if (jr_expect(r, '"') != 0 || jr_string(r) != 0 ||
			    jr_unhex(r, val, "value") != 0)
				return -1;
			havev = 1;
		} else
			return jr_fail(r, "unexpected member in a record");
		c = jr_next(r);
		if (c == '}')
			break;
		if (c != ',')
			return jr_fail(r, "expected ',' or '}' in a record");
	}
	if (!havek || !havev)
		return jr_fail(r, "a record needs a \"key\" and a \"value\"");
	if (key->len == 0 || key->len > STORE_KEY_MAX)
		return jr_fail(r, "key of %zu bytes (1 to %d)", key->len,
		    STORE_KEY_MAX);
	return 0;
}

static int
import_commit(struct store *s, struct store_batch *b, char **cause)
{
	int error;

	if (store_batch_count(b) == 0)
		return 0;
	error = store_commit(s, b, cause);
	store_batch_clear(b);
	return error;
}

/* The export's format record must say what ours says. */
static int
import_meta(struct jr *r, const struct enc_buf *key, const struct enc_buf *val)
{
	char *cause = NULL;

	if (key->len == 0 || key->data[0] != 0x00)
		return 0;
	if (store_meta_check(key->data, key->len, val->data, val->len,
	    &cause) == STORE_E_CORRUPT) {
		jr_fail(r, "%s", cause);
		free(cause);
		return -1;
	}
	if (key->len == STORE_FORMAT_KEYLEN &&
	    memcmp(key->data, STORE_FORMAT_KEY, key->len) == 0 &&
	    enc_get_be32(val->data) != STORE_FORMAT)
		return jr_fail(r, "the records are of store format %u, this "
		    "mapmon-store writes %d", enc_get_be32(val->data),
		    STORE_FORMAT);
	return 0;
}

static int
cmd_import(struct tool *t, int argc, char **argv)
{
	struct store_options o = t->opts;
	struct enc_buf key = { 0 }, val = { 0 };
	struct store_batch *b;
	struct store *s;
	struct stat sb;
	struct jr r;
	uint64_t n = 0;
	char *cause = NULL;
	int c, error = 0, created = 0, format = 0, done = 0;
	int64_t num;

	if (argc > 2)
		usage();
	memset(&r, 0, sizeof r);
	r.f = stdin;
	r.name = "stdin";
	if (argc == 2 && strcmp(argv[1], "-") != 0) {
		if ((r.f = fopen(argv[1], "r")) == NULL) {
			warnx_("%s: %s", argv[1], strerror(errno));
			return EXIT_STORE;
		}
		r.name = argv[1];
	}
	/* A missing store is made, of --backend or [store] backend. */
	if (store_detect(t->path) == NULL &&
	    (stat(t->path, &sb) == -1 || S_ISDIR(sb.st_mode))) {
		o.backend = t->backend != NULL ? t->backend :
		    conf_str(t->conf, CONF_STORE_BACKEND);
		error = store_open(t->path, &o, STORE_CREATE, &s, &cause);
		created = error == 0;
	} else {
		o.backend = t->backend;
		error = store_open(t->path, &o, 0, &s, &cause);
	}
	if (error != 0) {
		if (r.f != stdin)
			fclose(r.f);
		return tool_fail(NULL, error, cause);
	}

	b = store_batch_new();
	if (jr_expect(&r, '{') != 0)
		goto out;
	for (;;) {
		if (jr_name(&r) != 0)
			goto out;
		if (strcmp((char *)r.s.data, "format") == 0) {
			num = 0;
			while ((c = jr_next(&r)) >= '0' && c <= '9' &&
			    num < 1000000)
				num = num * 10 + c - '0';
			if (num != EXPORT_FORMAT) {
				jr_fail(&r, "export format %" PRId64 " is not "
				    "one this mapmon-store reads (%d)", num,
				    EXPORT_FORMAT);
				goto out;
			}
			format = 1;
		} else if (strcmp((char *)r.s.data, "backend") == 0) {
			if (jr_expect(&r, '"') != 0 || jr_string(&r) != 0)
				goto out;
			c = jr_next(&r);
		} else if (strcmp((char *)r.s.data, "records") == 0 &&
		    format && !done) {
			if (jr_expect(&r, '[') != 0)
				goto out;
			c = jr_next(&r);
			if (c != ']') {
				ungetc(c, r.f);
				r.off--;
				for (;;) {
					if (jr_expect(&r, '{') != 0 ||
					    jr_record(&r, &key, &val) != 0 ||
					    import_meta(&r, &key, &val) != 0)
						goto out;
					store_batch_put(b, key.data, key.len,
					    val.data, val.len);
					n++;
					if ((store_batch_count(b) >=
					    IMPORT_BATCH_RECORDS ||
					    store_batch_bytes(b) >=
					    IMPORT_BATCH_BYTES) &&
					    (error = import_commit(s, b,
					    &cause)) != 0)
						goto out;
					c = jr_next(&r);
					if (c == ']')
						break;
					if (c != ',') {
						jr_fail(&r, "expected ',' or "
						    "']' after a record");
						goto out;
					}
				}
			}
			done = 1;
			c = jr_next(&r);
		} else {
			jr_fail(&r, "unexpected member \"%s\"%s",
			    (char *)r.s.data,
			    strcmp((char *)r.s.data, "records") == 0 ?
			    " (\"format\" must come first, once)" : "");
			goto out;
		}
		if (c == '}')
			break;
		if (c != ',') {
			jr_fail(&r, "expected ',' or '}'");
			goto out;
		}
	}
	if (!done) {
		jr_fail(&r, "no \"records\"");
		goto out;
	}
	if (jr_next(&r) != EOF) {
		jr_fail(&r, "data after the end");
		goto out;
	}
	error = import_commit(s, b, &cause);

out:
	store_batch_free(b);
	enc_buf_free(&key);
	enc_buf_free(&val);
	enc_buf_free(&r.s);
	if (r.f != stdin)
		fclose(r.f);
	if (r.err != NULL || error != 0) {
		store_close(s);
		if (created)
			nftw(t->path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		if (r.err != NULL) {
			warnx_("%s%s", r.err, created ? " (the new store was "
			    "removed)" : " (records before it were imported)");
			free(r.err);
			free(cause);
			return EXIT_STORE;
		}
		return tool_fail(NULL, error, cause);
	}
	fprintf(stderr, "imported %" PRIu64 " records into %s (%s)\n", n,
	    store_path(s), store_backend_name(s));
	store_close(s);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct tool *, int, char **);
} cmds[] = {
	{ "stat", cmd_stat },
	{ "dump", cmd_dump },
	{ "get", cmd_get },
	{ "scan", cmd_scan },
	{ "verify", cmd_verify },
	{ "compact", cmd_compact },
	{ "copy", cmd_copy },
	{ "export", cmd_export },
	{ "import", cmd_import },
};

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "data", required_argument, NULL, 'd' },
		{ "backend", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct tool t;
	const char *conffile = NULL, *data = NULL;
	size_t i;
	int ch, rc;

	memset(&t, 0, sizeof t);
	while ((ch = getopt_long(argc, argv, "+c:d:b:h", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			conffile = optarg;
			break;
		case 'd':
			data = optarg;
			break;
		case 'b':
			t.backend = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	for (i = 0; i < nitems(cmds); i++) {
		if (strcmp(argv[0], cmds[i].name) == 0)
			break;
	}
	if (i == nitems(cmds)) {
		warnx_("unknown subcommand '%s'", argv[0]);
		usage();
	}
	if (t.backend != NULL && !store_backend_known(t.backend)) {
		warnx_("unknown store backend '%s' (compiled in: %s)",
		    t.backend, store_backend_names());
		return MAPMON_EXIT_USAGE;
	}
	if (tool_conf(&t, conffile) != 0)
		return MAPMON_EXIT_CONFIG;
	tool_options(&t);
	t.data = xstrdup(data != NULL ? data : conf_str(t.conf, CONF_MON_DATA));
	xasprintf(&t.path, "%s/store", t.data);
	rc = cmds[i].fn(&t, argc, argv);
	free(t.path);
	free(t.data);
	conf_free(t.conf);
	return rc;
}
