/*
 * cmd_fuzz.c: a command fuzzer driven by the daemon's own command table
 * (RELIABILITY.md), run against a real mapmond by test/e2e/cmd_fuzz.sh,
 * which numbers its TAP lines ("ok - ..." / "not ok - ...").
 *
 *	cmd_fuzz -m ADDR -p PID [-t SECONDS] [-s SEED] [-c CONNS] [-q DEPTH]
 *	    [-r RSS_MB] [-l LOG] [-n LAST] [-P MAX_PG_NUM]
 *
 * It reads the table with get_command_descriptions (mapmon-protocol(7))
 * and the config keys with `config show`, then for SECONDS (20) sends
 * commands made from the table over CONNS (4) connections of the client
 * library (net/client.h), DEPTH (4) in flight on each; a connection is
 * closed and replaced after 256 commands, so that subscriptions and
 * connections come and go.  Each command is, at random:
 *
 *  - valid (60%): every required argument and some optional ones, of the
 *    right type and within the bounds; OSD ids, pool names and PG ids
 *    mostly of things that may exist;
 *  - at a boundary (20%): one argument at its edge (an int at its min or
 *    max, a string empty, long, huge or not ASCII, a list empty or long,
 *    the optional arguments null), the others valid;
 *  - wrong (20%): what the generic checks of mapmon-protocol(7) refuse
 *    with EINVAL: an unknown prefix, a prefix that is not a string or is
 *    missing, a required argument missing, an unknown key, a value of the
 *    wrong JSON type, an int or float beyond its bounds, a word not among
 *    the choices, an empty list or a bad item in one.
 *
 * The table gives the types and bounds; the names give the meanings the
 * fuzzer aims at: "id", "ids", "osd" are OSD ids; "pool", "pool2",
 * "srcpool", "destpool" pool names (of a fixed set, so that creates,
 * renames and deletes meet); "pgid" PG ids; "pg_num" and `osd pool set`'s
 * "val" PG counts; "states" PG state words; "pgs" PG stats; "key" and
 * "value" config keys and values.  An argument of a type the fuzzer does
 * not know stops it at the start: a new type needs a generator here.
 *
 * `config set` never retunes the daemon under test: a key that exists gets
 * its current value, or, when that value is a number, a word no key
 * accepts (a tiny max_frame or idle_timeout would cut the probe: an
 * operator's choice, not a fault).  -P caps the PG counts sent (to work
 * on the rest while the daemon has no bound of its own); by default they
 * span the table's whole range.
 *
 * The commands come from one generator seeded by -s, in one order
 * whatever the timing, so a seed sends the same commands again (which
 * connection carries each, and so the daemon's order, may differ).
 *
 * Meanwhile a thread of its own sends `status` every 100 ms on another
 * connection, one at a time, and reads VmRSS and VmHWM from
 * /proc/PID/status.  The fuzzing stops early when the daemon is gone, its
 * RSS passes RSS_MB (1024), or a status has waited 10 s (then at once:
 * such a daemon would only grow while its replies were awaited).  After a
 * full run the replies still due are awaited (15 s at most) and the probe
 * goes on for one more second.  It checks that every command was answered, every wrong one
 * refused with EINVAL, every refusal says why, no connection was cut, the
 * daemon stayed up, each status came within 1 s (p50, p99 and max are
 * printed), the RSS stayed under RSS_MB, and each form of every command
 * was sent.  On any failure it prints the seed and the last commands
 * sent; LOG gets the last LAST (1000) with their rc.
 *
 * Exit: 0 when every check passed, 1 when one failed, 64 on a usage error.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/mapmon.h"
#include "net/client.h"

#define CF_MAXARGS 8
#define CF_TICK_MS 100		/* the probe's period, and the main tick */
#define CF_PROBE_LIMIT_MS 1000	/* a status must come back within this */
#define CF_STALL_MS 10000	/* a status waited this long: stop fuzzing */
#define CF_DRAIN_MS 15000	/* replies still due after the fuzzing */
#define CF_AFTER_MS 1000	/* the probe goes on this long after */
#define CF_CONNECT_MS 5000
#define CF_RECYCLE 256		/* commands on a connection, then a new one */
#define CF_TEXT_MAX 300		/* a command in the log, cut to this */
#define CF_SHOW_LAST 40		/* commands printed on a failure */
#define CF_EXAMPLES 5		/* examples of a failed check */

enum cf_type {
	CF_STRING,
	CF_INT,
	CF_FLOAT,
	CF_CHOICE,
	CF_STRINGS,
	CF_INTS,
	CF_FLAG,
	CF_JSON,
	CF_OSD,
	CF_OSDS,
	CF_VALUE
};
static const char *const cf_type_names[] = {
	[CF_STRING] = "string",
	[CF_INT] = "int",
	[CF_FLOAT] = "float",
	[CF_CHOICE] = "choice",
	[CF_STRINGS] = "strings",
	[CF_INTS] = "ints",
	[CF_FLAG] = "flag",
	[CF_JSON] = "json",
	[CF_OSD] = "osd",
	[CF_OSDS] = "osds",
	[CF_VALUE] = "value",
};

/* What an argument means, from its name (the header lists them). */
enum cf_kind {
	K_PLAIN, K_OSD, K_POOL, K_PGID, K_PGNUM, K_ADDR, K_CONFKEY,
	K_CONFVAL, K_STATES, K_PGS
};

enum cf_mode { CF_VALID, CF_EDGE, CF_WRONG, CF_NMODES };
static const char *const cf_mode_names[] = { "valid", "boundary", "wrong" };

struct cf_arg {
	char *name;
	enum cf_type type;
	enum cf_kind kind;
	int required, bounded;
	json_int_t imin, imax;
	double fmin, fmax;
	char **choices;
	size_t nchoices;
};

struct cf_cmd {
	char *prefix;
	struct cf_arg args[CF_MAXARGS];
	size_t nargs;
	uint64_t sent[CF_NMODES];
};

/* One command sent, kept in a ring for the log. */
struct cf_sent {
	uint64_t seq;		/* from 1; 0 is an empty slot */
	double t_ms;		/* since the start */
	int conn, mode, answered, rc;
	const char *how;	/* the wrong form, the argument at its edge, "" */
	char *text;
};

struct cf_conn {
	int idx;
	struct mclient *c;	/* NULL between connections */
	size_t inflight;
	unsigned sent;
};

/* A command in flight (freed at its reply, or at the end). */
struct cf_req {
	TAILQ_ENTRY(cf_req) entry;
	struct cf_conn *conn;
	uint64_t seq;
	int mode;
	const char *how;
};

/* A failed check's examples: the command and what came back. */
struct cf_examples {
	uint64_t count;
	char *line[CF_EXAMPLES];
};

enum cf_abort { CF_RUN, CF_GONE, CF_RSS, CF_STALL };
static const char *const cf_abort_names[] = {
	[CF_RUN] = "", [CF_GONE] = "the daemon is gone",
	[CF_RSS] = "its RSS passed the ceiling",
	[CF_STALL] = "a status waited 10 s",
};

/* The probe thread's own state; read by main after the join. */
struct cf_probe {
	pthread_t thread;
	struct event_base *base;
	struct event *tick;
	struct mclient *c;
	double sent_at;		/* of the status in flight, 0 when none */
	int late_counted;
	double *lat;
	size_t n, cap;
	uint64_t late, errors, cuts;
	long rss_kb, hwm_kb;	/* the largest seen */
	char *first_error;
	atomic_int stop;
};

static const char *cf_addr;
static pid_t cf_pid;
static int cf_seconds = 20, cf_nconns = 4, cf_depth = 4;
static long cf_rss_limit_mb = 1024;
static const char *cf_logpath;
static size_t cf_last = 1000;
static json_int_t cf_max_pg_num;	/* 0: the table's bound */
static uint64_t cf_seed;

static struct cf_cmd *cf_cmds;
static size_t cf_ncmds;
static char **cf_conf_names, **cf_conf_values;
static int *cf_conf_runtime;
static size_t cf_nconf;

static struct event_base *cf_base;
static struct cf_conn *cf_conns;
static struct cf_sent *cf_ring;
static TAILQ_HEAD(, cf_req) cf_reqs = TAILQ_HEAD_INITIALIZER(cf_reqs);
static uint64_t cf_seq;
static double cf_t0, cf_end, cf_stop_at, cf_drain_end, cf_done_at;
static int cf_stopping;
static atomic_int cf_abort;
static uint64_t cf_pools_made;	/* valid pool creates sent: ids to aim at */

static uint64_t cf_nsent, cf_nanswered, cf_nlost, cf_npushes, cf_nopened;
static uint64_t cf_rc_count[4096];	/* by -rc */
static uint64_t cf_wrong_sent;
static struct cf_examples cf_not_einval, cf_no_status, cf_cut;
static struct cf_probe cf_probe;

/* ------------------------------------------------------------------ */
/* output */

static int cf_failed;

static void
cf_vok(int cond, const char *skip, const char *fmt, va_list ap)
    printflike(3, 0);

/* A TAP line; with skip, "ok" and "# SKIP skip" whatever cond says. */
static void
cf_vok(int cond, const char *skip, const char *fmt, va_list ap)
{
	printf("%s - ", cond || skip != NULL ? "ok" : "not ok");
	vprintf(fmt, ap);
	if (skip != NULL)
		printf(" # SKIP %s", skip);
	printf("\n");
	fflush(stdout);
	if (!cond && skip == NULL)
		cf_failed++;
}

static void cf_ok(int, const char *, ...) printflike(2, 3);

static void
cf_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cf_vok(cond, NULL, fmt, ap);
	va_end(ap);
}

static void cf_ok_unless(int, const char *, const char *, ...)
    printflike(3, 4);

/* cf_ok(), or a skip when skip is not NULL. */
static void
cf_ok_unless(int cond, const char *skip, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cf_vok(cond, skip, fmt, ap);
	va_end(ap);
}

static void cf_diag(const char *, ...) printflike(1, 2);

static void
cf_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static double
cf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *
cf_errname(int rc)
{
	static _Thread_local char buf[16];

	switch (-rc) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case ENOSPC: return "ENOSPC";
	case EIO: return "EIO";
	case ERANGE: return "ERANGE";
	case E2BIG: return "E2BIG";
	case EAGAIN: return "EAGAIN";
	case ENOTEMPTY: return "ENOTEMPTY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EOVERFLOW: return "EOVERFLOW";
	case EFBIG: return "EFBIG";
	case ECANCELED: return "ECANCELED";
	case ECONNRESET: return "ECONNRESET";
	}
	snprintf(buf, sizeof buf, "E%d", -rc);
	return buf;
}

static void cf_example(struct cf_examples *, const char *, ...)
    printflike(2, 3);

static void
cf_example(struct cf_examples *e, const char *fmt, ...)
{
	va_list ap;

	if (e->count < CF_EXAMPLES) {
		va_start(ap, fmt);
		xvasprintf(&e->line[e->count], fmt, ap);
		va_end(ap);
	}
	e->count++;
}

static void
cf_examples_print(const struct cf_examples *e)
{
	uint64_t i;

	for (i = 0; i < e->count && i < CF_EXAMPLES; i++)
		cf_diag("  %s", e->line[i]);
	if (e->count > CF_EXAMPLES)
		cf_diag("  (and %" PRIu64 " more)", e->count - CF_EXAMPLES);
}

/* ------------------------------------------------------------------ */
/* random values */

static uint64_t cf_rng_state;

/* splitmix64: any seed, 0 included, gives a good sequence. */
static uint64_t
cf_rand(void)
{
	uint64_t z = (cf_rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
cf_below(uint64_t n)
{
	return n == 0 ? 0 : cf_rand() % n;
}

static int
cf_pct(unsigned p)
{
	return cf_below(100) < p;
}

/* Uniform in [lo, hi], lo <= hi. */
static json_int_t
cf_uniform(json_int_t lo, json_int_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo;

	if (span == UINT64_MAX)
		return (json_int_t)cf_rand();
	return (json_int_t)((uint64_t)lo + cf_below(span + 1));
}

/*
 * In [lo, hi], each power of two of the distance from lo as likely as the
 * next: small values often, the far end still reached.
 */
static json_int_t
cf_logrange(json_int_t lo, json_int_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo, v;
	unsigned bits = 0, b;

	while (bits < 64 && (span >> bits) != 0)
		bits++;
	b = (unsigned)cf_below(bits + 1);
	v = b == 0 ? 0 : b >= 64 ? cf_rand() : cf_rand() & ((1ULL << b) - 1);
	if (v > span)
		v = span;
	return (json_int_t)((uint64_t)lo + v);
}

static const char *
cf_pick(const char *const *list, size_t n)
{
	return list[cf_below(n)];
}

#define CF_PICK(list) cf_pick((list), nitems(list))

/* Pool names: a fixed set, so that creates, renames and deletes meet. */
static const char *const cf_pool_names[] = {
	"fz0", "fz1", "fz2", "fz3", "fz4", "fz5", "fz6", "fz7", "fz8", "fz9",
	"fz-\xc3\xbc", "\xd0\xbf\xd1\x83\xd0\xbb", "\xe6\xb1\xa0",
	"\xf0\x9f\x90\x99",
};

/* Not ASCII, escapes, controls, marks and joiners. */
static const char *const cf_odd_texts[] = {
	"\xc3\xbc", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
	"\xf0\x9f\x90\x99\xf0\x9f\x92\xa5", "e\xcc\x81\xcc\x81\xcc\x81",
	"\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", "a\xe2\x80\x8b" "b",
	"\xef\xbb\xbf" "fz0", "\xe2\x80\xae" "0zf", "\"\\/\b\f\n\r\t",
	"\x01\x02\x1f\x7f", " ", "%s%n%x", "../../etc/passwd", "fz0 ",
	"FZ0", "null", "0", "-1", "1e999",
};

static const char *const cf_state_words[] = {
	"active", "clean", "active+clean", "peering", "creating", "stale",
	"down", "degraded", "undersized", "remapped", "scrubbing+deep",
	"active+clean+scrubbing+deep", "backfill_wait", "incomplete",
	"peered", "unknown", "recovering", "inconsistent",
};

static const char *const cf_bad_pgids[] = {
	"", "1", "1.", ".1", "1.g", "-1.0", "1.-1", "4294967296.0",
	"1.100000000", "0x1.0", " 1.0", "1.0 ", "1.0.0", "1..0", "1,0",
	"\xc2\xb9.0", "1.0\xc2\xa0", "99999999999999999999.0",
};

static json_t *
cf_word(void)
{
	char buf[16];
	size_t i, n = 1 + cf_below(8);

	for (i = 0; i < n; i++)
		buf[i] = (char)('a' + cf_below(26));
	buf[n] = '\0';
	return json_string(buf);
}

/* A string of len bytes: one letter again, or random letters. */
static json_t *
cf_long_string(size_t len)
{
	char *s = xmalloc(len + 1);
	char c = (char)('a' + cf_below(26));
	int same = cf_pct(50);
	json_t *v;
	size_t i;

	for (i = 0; i < len; i++)
		s[i] = same ? c : (char)('a' + cf_below(26));
	s[len] = '\0';
	v = json_stringn(s, len);
	free(s);
	return v;
}

/* A string at an edge: empty, odd, long, huge, with a NUL. */
static json_t *
cf_odd_string(void)
{
	static const size_t lens[] = { 63, 64, 65, 127, 128, 129, 255, 256,
		1024, 4096, 65536 };

	switch (cf_below(8)) {
	case 0:
		return json_string("");
	case 1:
	case 2:
		return json_string(CF_PICK(cf_odd_texts));
	case 3:
	case 4:
		return cf_long_string(lens[cf_below(nitems(lens))]);
	case 5:
		/* One in a hundred of these is a MiB. */
		return cf_long_string(cf_pct(1) ? 1 << 20 : 65536 +
		    cf_below(65536));
	case 6:
		return json_stringn("fz\0" "0", 4);
	default:
		return json_string(CF_PICK(cf_pool_names));
	}
}

static json_int_t
cf_clamp(json_int_t v, const struct cf_arg *a)
{
	if (!a->bounded)
		return v;
	return v < a->imin ? a->imin : v > a->imax ? a->imax : v;
}

/* The largest value worth sending: -P caps the PG counts. */
static json_int_t
cf_top(const struct cf_arg *a)
{
	json_int_t hi = a->bounded ? a->imax : INT64_MAX;

	if (a->kind == K_PGNUM && cf_max_pg_num > 0 && hi > cf_max_pg_num)
		hi = cf_max_pg_num;
	if (a->bounded && hi < a->imin)
		hi = a->imin;
	return hi;
}

static json_int_t
cf_valid_int(const struct cf_arg *a)
{
	json_int_t lo = a->bounded ? a->imin : -(1LL << 31), hi = cf_top(a);

	switch (a->kind) {
	case K_OSD:
		/* The eight OSDs of the script, and a few more. */
		if (cf_pct(85))
			return cf_clamp(cf_uniform(0, 11), a);
		return cf_logrange(lo, hi);
	case K_PGNUM:
		return cf_logrange(lo, hi);
	default:
		if (cf_pct(50))
			return cf_uniform(lo, lo + 16 < hi ? lo + 16 : hi);
		return cf_logrange(lo, hi);
	}
}

/* An OSD id as Ceph's clients send one: N, "N" or "osd.N". */
static json_t *
cf_osd_id(const struct cf_arg *a)
{
	json_int_t id = cf_valid_int(a);
	char buf[32];

	if (a->type == CF_INT || a->type == CF_INTS || cf_pct(60))
		return json_integer(id);
	snprintf(buf, sizeof buf,
	    cf_pct(50) ? "%" JSON_INTEGER_FORMAT : "osd.%" JSON_INTEGER_FORMAT,
	    id);
	return json_string(buf);
}

static json_t *
cf_osd_ids(size_t n, const struct cf_arg *a)
{
	json_t *v = json_array();
	size_t i;

	/* Ceph's words for every OSD, where the argument takes them. */
	if (a->nchoices > 0 && cf_pct(10)) {
		json_array_append_new(v,
		    json_string(a->choices[cf_below(a->nchoices)]));
		return v;
	}
	for (i = 0; i < n; i++)
		json_array_append_new(v, cf_osd_id(a));
	return v;
}

/* `osd pool set''s value: a number, as an integer or as text. */
static json_t *
cf_value(const struct cf_arg *a)
{
	json_int_t n = cf_logrange(0, cf_top(a));
	char buf[32];

	if (cf_pct(50))
		return json_integer(n);
	snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, n);
	return json_string(buf);
}

/* A PG id: mostly of a pool that may exist, seed in hex. */
static json_t *
cf_pgid(void)
{
	char buf[40];

	if (cf_pct(10))
		return json_string(CF_PICK(cf_bad_pgids));
	snprintf(buf, sizeof buf, "%" PRIu64 ".%" PRIx64,
	    cf_below(cf_pools_made + 3), (uint64_t)cf_logrange(0, 1 << 20));
	return json_string(buf);
}

/* One PG stat for `pg report`; extreme values at an edge. */
static json_t *
cf_pg_stat(int edge)
{
	static const json_int_t extremes[] = { -1, 0, INT32_MAX,
		(json_int_t)UINT32_MAX + 1, INT64_MAX, INT64_MIN };
	json_t *o = json_object(), *up;
	char buf[48];
	size_t i, n;

	json_object_set_new(o, "pgid", cf_pgid());
	json_object_set_new(o, "state", cf_pct(90) ?
	    json_string(CF_PICK(cf_state_words)) : cf_odd_string());
	if (cf_pct(50)) {
		snprintf(buf, sizeof buf, "%" PRIu64 "'%" PRIu64,
		    cf_below(1000), cf_below(100000));
		json_object_set_new(o, "version", json_string(buf));
	}
	if (cf_pct(50))
		json_object_set_new(o, "reported_seq", json_integer(edge ?
		    extremes[cf_below(nitems(extremes))] :
		    (json_int_t)cf_below(1 << 30)));
	if (cf_pct(50))
		json_object_set_new(o, "reported_epoch", json_integer(edge ?
		    extremes[cf_below(nitems(extremes))] :
		    (json_int_t)cf_below(1000)));
	if (cf_pct(40)) {
		up = json_array();
		n = edge ? cf_below(300) : cf_below(4);
		for (i = 0; i < n; i++)
			json_array_append_new(up,
			    json_integer((json_int_t)cf_below(12)));
		json_object_set(o, "up", up);
		json_object_set_new(o, "acting", up);
		json_object_set_new(o, "up_primary",
		    json_integer((json_int_t)cf_below(12) - 1));
	}
	if (cf_pct(40))
		json_object_set_new(o, "stat_sum", json_pack("{s:I, s:I}",
		    "num_bytes", edge ? extremes[cf_below(nitems(extremes))] :
		    (json_int_t)cf_below(1 << 30), "num_objects",
		    (json_int_t)cf_below(100000)));
	if (cf_pct(10))
		json_object_set_new(o, "not_a_field", json_true());
	return o;
}

static json_t *
cf_pg_stats(size_t n, int edge)
{
	json_t *v = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(v, cf_pg_stat(edge));
	return v;
}

static json_t *
cf_valid_string(const struct cf_arg *a)
{
	char buf[32];

	switch (a->kind) {
	case K_POOL:
		return cf_pct(90) ? json_string(CF_PICK(cf_pool_names)) :
		    cf_word();
	case K_PGID:
		return cf_pgid();
	case K_ADDR:
		snprintf(buf, sizeof buf, "127.0.0.1:%u",
		    6800 + (unsigned)cf_below(100));
		return json_string(buf);
	case K_CONFKEY:
		if (cf_nconf > 0 && cf_pct(90))
			return json_string(cf_conf_names[cf_below(cf_nconf)]);
		return cf_word();
	default:
		return cf_pct(80) ? cf_word() : json_string(
		    CF_PICK(cf_pool_names));
	}
}

static json_t *
cf_valid(const struct cf_arg *a)
{
	json_t *v;
	size_t i, n;

	switch (a->type) {
	case CF_STRING:
		return cf_valid_string(a);
	case CF_INT:
		return json_integer(cf_valid_int(a));
	case CF_FLOAT:
		if (!a->bounded)
			return json_real((double)cf_uniform(-1000000, 1000000) /
			    1000);
		return json_real(a->fmin + (a->fmax - a->fmin) *
		    (double)cf_below(1 << 20) / (double)(1 << 20));
	case CF_CHOICE:
		return json_string(a->choices[cf_below(a->nchoices)]);
	case CF_STRINGS:
		v = json_array();
		n = (a->required ? 1 : 0) + cf_below(3);
		for (i = 0; i < n; i++)
			json_array_append_new(v,
			    a->nchoices > 0 ?
				json_string(a->choices[cf_below(a->nchoices)]) :
				a->kind == K_STATES ?
				json_string(CF_PICK(cf_state_words)) :
				cf_word());
		return v;
	case CF_INTS:
	case CF_OSDS:
		return cf_osd_ids(1 + cf_below(4), a);
	case CF_OSD:
		return cf_osd_id(a);
	case CF_VALUE:
		return cf_value(a);
	case CF_FLAG:
		return json_boolean(cf_pct(90));
	case CF_JSON:
		return cf_pg_stats(1 + cf_below(8), 0);
	}
	return json_null();
}

/* A value at the argument's edge, still of its type. */
static json_t *
cf_edge(const struct cf_arg *a)
{
	json_t *v;
	size_t i, n;

	switch (a->type) {
	case CF_STRING:
		if (a->kind == K_PGID && cf_pct(50))
			return json_string(cf_pct(50) ? "4294967295.ffffffff" :
			    "0.0");
		return cf_odd_string();
	case CF_INT:
	case CF_OSD:
		if (!a->bounded)
			return json_integer(cf_pct(50) ? INT64_MIN : INT64_MAX);
		return json_integer(cf_pct(50) ? a->imin : cf_top(a));
	case CF_VALUE:
		return cf_pct(50) ?
		    json_integer(cf_pct(50) ? INT64_MIN : INT64_MAX) :
		    cf_odd_string();
	case CF_FLOAT:
		if (!a->bounded)
			return json_real(cf_pct(50) ? -1e308 : 1e308);
		return json_real(cf_pct(50) ? a->fmin : a->fmax);
	case CF_CHOICE:
		return json_string(a->choices[cf_pct(50) ? 0 :
		    a->nchoices - 1]);
	case CF_STRINGS:
		v = json_array();
		n = a->required || cf_pct(50) ? 256 + cf_below(768) : 0;
		for (i = 0; i < n; i++)
			json_array_append_new(v, cf_pct(50) ?
			    json_string(CF_PICK(cf_state_words)) :
			    cf_odd_string());
		return v;
	case CF_INTS:
	case CF_OSDS:
		v = json_array();
		n = 256 + cf_below(768);
		for (i = 0; i < n; i++)
			json_array_append_new(v, json_integer(cf_pct(50) ?
			    a->imin : cf_pct(50) ? a->imax :
			    cf_valid_int(a)));
		return v;
	case CF_FLAG:
		return json_false();
	case CF_JSON:
		return cf_pct(30) ? json_array() :
		    cf_pg_stats(cf_pct(50) ? 1 : 512 + cf_below(1536), 1);
	}
	return json_null();
}

/*
 * `config set`'s value for key: the current value; or, when that is a
 * number (and the key may change at run time), a word that no such key
 * accepts.  A key that cannot change, or does not exist, gets anything.
 */
static json_t *
cf_conf_value(const char *key, int edge)
{
	static const char *const refused[] = { "", "x", "\xc3\xbc", "--",
		"yes please", "1x", "-1", "1/5/7", "0x10" };
	size_t i;

	for (i = 0; i < cf_nconf; i++)
		if (strcmp(cf_conf_names[i], key) == 0)
			break;
	if (i == cf_nconf || !cf_conf_runtime[i])
		return edge ? cf_odd_string() : cf_word();
	if (!edge || cf_conf_values[i][0] < '0' || cf_conf_values[i][0] > '9')
		return json_string(cf_conf_values[i]);
	if (cf_pct(10))
		return cf_long_string(4096);
	return json_string(CF_PICK(refused));
}

/* ------------------------------------------------------------------ */
/* the commands */

static void
cf_fill_args(json_t *o, const struct cf_cmd *c, int edge_at, int some)
{
	const struct cf_arg *a;
	const char *key = NULL;
	size_t i;

	for (i = 0; i < c->nargs; i++) {
		a = &c->args[i];
		if ((int)i == edge_at)
			json_object_set_new(o, a->name, cf_edge(a));
		else if (a->required || cf_pct(some))
			json_object_set_new(o, a->name, cf_valid(a));
	}
	/* `config set`: the value follows the key. */
	for (i = 0; i < c->nargs; i++)
		if (c->args[i].kind == K_CONFKEY)
			key = json_string_value(json_object_get(o,
			    c->args[i].name));
	for (i = 0; i < c->nargs && key != NULL; i++)
		if (c->args[i].kind == K_CONFVAL)
			json_object_set_new(o, c->args[i].name,
			    cf_conf_value(key, (int)i == edge_at));
}

/* A JSON value of a type a does not take (null only where required). */
static json_t *
cf_wrong_type(const struct cf_arg *a)
{
	json_t *v = NULL;

	while (v == NULL) {
		switch (cf_below(8)) {
		case 0:
			if (a->type != CF_INT && a->type != CF_FLOAT &&
			    a->type != CF_OSD && a->type != CF_VALUE)
				v = json_integer(cf_pct(50) ? 1 : INT64_MAX);
			break;
		case 1:
			if (a->type != CF_FLOAT)
				v = json_real(cf_pct(50) ? 1.0 : 0.5);
			break;
		case 2:
			/* "1" is an OSD id and a value; "" is neither. */
			if (a->type != CF_STRING && a->type != CF_CHOICE &&
			    a->type != CF_VALUE)
				v = json_string(
				    a->type == CF_OSD || cf_pct(50) ? "" : "1");
			break;
		case 3:
			if (a->type != CF_FLAG)
				v = json_boolean(cf_pct(50));
			break;
		case 4:
			if (a->type != CF_STRINGS && a->type != CF_INTS &&
			    a->type != CF_JSON && a->type != CF_OSDS)
				v = json_pack("[i]", 1);
			break;
		case 5:
			v = json_pack("{s:i}", "a", 1);
			break;
		case 6:
			if (a->required)
				v = json_null();
			break;
		default:
			v = json_object();
			break;
		}
	}
	return v;
}

/* An int strictly outside [imin, imax]. */
static json_int_t
cf_out_of_bounds(const struct cf_arg *a)
{
	for (;;) {
		switch (cf_below(5)) {
		case 0:
			if (a->imin > INT64_MIN)
				return a->imin - 1;
			break;
		case 1:
			if (a->imax < INT64_MAX)
				return a->imax + 1;
			break;
		case 2:
			if (a->imin > INT64_MIN)
				return INT64_MIN;
			break;
		case 3:
			if (a->imax < INT64_MAX)
				return INT64_MAX;
			break;
		default:
			if (a->imin > INT64_MIN + 1000)
				return a->imin - 1000;
			break;
		}
	}
}

static int
cf_is_prefix(const char *s)
{
	size_t i;

	for (i = 0; i < cf_ncmds; i++)
		if (strcmp(cf_cmds[i].prefix, s) == 0)
			return 1;
	return 0;
}

static int
cf_is_arg(const struct cf_cmd *c, const char *s)
{
	size_t i;

	if (strcmp(s, "prefix") == 0)
		return 1;
	for (i = 0; i < c->nargs; i++)
		if (strcmp(c->args[i].name, s) == 0)
			return 1;
	return 0;
}

static int
cf_is_choice(const struct cf_arg *a, const char *s)
{
	size_t i;

	for (i = 0; i < a->nchoices; i++)
		if (strcmp(a->choices[i], s) == 0)
			return 1;
	return 0;
}

/* An index of c's arguments for which ok() holds, or -1. */
static int
cf_pick_arg(const struct cf_cmd *c, int (*ok)(const struct cf_arg *))
{
	int idx[CF_MAXARGS];
	size_t i, n = 0;

	for (i = 0; i < c->nargs; i++)
		if (ok(&c->args[i]))
			idx[n++] = (int)i;
	return n == 0 ? -1 : idx[cf_below(n)];
}

static int
cf_any(mapmon_unused const struct cf_arg *a)
{
	return 1;
}

static int
cf_required(const struct cf_arg *a)
{
	return a->required;
}

static int
cf_has_bounds(const struct cf_arg *a)
{
	return a->bounded &&
	    (a->type == CF_INT || a->type == CF_INTS || a->type == CF_FLOAT ||
		a->type == CF_OSD || a->type == CF_OSDS);
}

static int
cf_is_choice_arg(const struct cf_arg *a)
{
	return a->type == CF_CHOICE;
}

static int
cf_is_list(const struct cf_arg *a)
{
	return a->type == CF_STRINGS || a->type == CF_INTS ||
	    a->type == CF_JSON || a->type == CF_OSDS;
}

/* A prefix that is no command: a typo of one, or something else. */
static json_t *
cf_unknown_prefix(const struct cf_cmd *c)
{
	char *s;
	json_t *v;
	size_t len;

	switch (cf_below(4)) {
	case 0:
		s = xstrdup(c->prefix);
		len = strlen(s);
		s[cf_below(len)] = (char)('a' + cf_below(26));
		break;
	case 1:
		xasprintf(&s, "%s ", c->prefix);
		break;
	case 2:
		v = cf_odd_string();
		s = xstrndup(json_string_value(v), json_string_length(v));
		json_decref(v);
		break;
	default:
		xasprintf(&s, "%s %s", c->prefix, cf_pct(50) ? "x" : "ls");
		break;
	}
	if (cf_is_prefix(s)) {
		free(s);
		s = xstrdup("fz nothing");
	}
	v = json_string(s);
	free(s);
	return v;
}

/* A step that moves d off its value whatever its size (no libm here). */
static double
cf_beyond(double d)
{
	return (d < 0 ? -d : d) * 1e-12 + 1e-9;
}

/*
 * A command of c that the generic checks must refuse with EINVAL; *how
 * names the fault.
 */
static json_t *
cf_wrong(const struct cf_cmd *c, const char **how)
{
	const struct cf_arg *a;
	json_t *o = json_pack("{s:s}", "prefix", c->prefix), *v;
	char key[64];
	int i, pick;

	cf_fill_args(o, c, -1, 50);
	for (;;) {
		switch (cf_below(9)) {
		case 0:
			*how = "unknown prefix";
			json_object_set_new(o, "prefix", cf_unknown_prefix(c));
			return o;
		case 1:
			*how = "prefix not a string";
			json_object_set_new(o, "prefix", cf_pct(50) ?
			    json_integer(1) : json_pack("[s]", c->prefix));
			return o;
		case 2:
			*how = "no prefix";
			json_object_del(o, "prefix");
			return o;
		case 3:
			if ((i = cf_pick_arg(c, cf_required)) == -1)
				break;
			*how = "missing argument";
			if (cf_pct(50))
				json_object_del(o, c->args[i].name);
			else
				json_object_set_new(o, c->args[i].name,
				    json_null());
			return o;
		case 4:
			*how = "unknown key";
			pick = (int)cf_below(4);
			snprintf(key, sizeof key, "%s", pick == 0 ? "bogus" :
			    pick == 1 ? "Prefix" : pick == 2 ? "" : "pool_id");
			if (cf_is_arg(c, key))
				snprintf(key, sizeof key, "fz_%s", c->prefix);
			json_object_set_new(o, key, c->nargs == 0 ?
			    json_integer(1) :
			    cf_valid(&c->args[cf_below(c->nargs)]));
			return o;
		case 5:
			if ((i = cf_pick_arg(c, cf_any)) == -1)
				break;
			*how = "wrong type";
			json_object_set_new(o, c->args[i].name,
			    cf_wrong_type(&c->args[i]));
			return o;
		case 6:
			if ((i = cf_pick_arg(c, cf_has_bounds)) == -1)
				break;
			a = &c->args[i];
			*how = "out of bounds";
			if (a->type == CF_FLOAT) {
				/*
				 * Past the bound by more than its last digit:
				 * 1e9 + 1e-9 is 1e9 as a double.
				 */
				v = json_real(cf_pct(50) ?
					a->fmin - cf_beyond(a->fmin) :
					a->fmax + cf_beyond(a->fmax));
				if (cf_pct(30))
					json_real_set(v, cf_pct(50) ? -1e308 :
					    1e308);
			} else if (a->type == CF_INT || a->type == CF_OSD) {
				v = json_integer(cf_out_of_bounds(a));
			} else {
				v = cf_osd_ids(1 + cf_below(3), a);
				json_array_insert_new(v, cf_below(
				    json_array_size(v) + 1),
				    json_integer(cf_out_of_bounds(a)));
			}
			json_object_set_new(o, a->name, v);
			return o;
		case 7:
			if ((i = cf_pick_arg(c, cf_is_choice_arg)) == -1)
				break;
			a = &c->args[i];
			*how = "not a choice";
			v = cf_pct(50) ? cf_odd_string() : cf_word();
			if (cf_is_choice(a, json_string_value(v))) {
				json_decref(v);
				v = json_string("fz-none");
			}
			json_object_set_new(o, a->name, v);
			return o;
		default:
			if ((i = cf_pick_arg(c, cf_is_list)) == -1)
				break;
			a = &c->args[i];
			if (a->required && a->type != CF_JSON && cf_pct(30)) {
				*how = "empty list";
				json_object_set_new(o, a->name, json_array());
				return o;
			}
			*how = "bad item";
			v = a->type == CF_JSON ? cf_pg_stats(1 + cf_below(4), 0) :
			    cf_valid(a);
			if (a->type == CF_JSON)
				pick = cf_pct(50) ? 0 : 1;
			else
				pick = 2;
			json_array_insert_new(v,
			    cf_below(json_array_size(v) + 1),
			    pick == 0 ? json_integer(7) :
				pick == 1 ?
					json_pack("{s:s}", "state", "active") :
				a->type == CF_INTS ? json_string("1") :
				a->type == CF_OSDS ? json_string("osd.x") :
				cf_pct(50)	   ? json_integer(1) :
						     json_pack("[]"));
			json_object_set_new(o, a->name, v);
			return o;
		}
	}
}

/*
 * The first (command, form) pair not sent yet, in table order, or NULL
 * when every command went in every form: a slow build (a sanitizer, a
 * loaded machine) sends few commands in its seconds, and drawing alone
 * may then leave one out.
 */
static size_t cf_cover;

static struct cf_cmd *
cf_uncovered(int *mode)
{
	while (cf_cover < cf_ncmds * CF_NMODES &&
	    cf_cmds[cf_cover / CF_NMODES].sent[cf_cover % CF_NMODES] > 0)
		cf_cover++;
	if (cf_cover == cf_ncmds * CF_NMODES)
		return NULL;
	*mode = (int)(cf_cover % CF_NMODES);
	return &cf_cmds[cf_cover / CF_NMODES];
}

/*
 * The next command, its form in *mode and *how: every other one the
 * first pair not sent yet, while there is one, the others drawn.
 */
static json_t *
cf_next_command(int *mode, const char **how)
{
	struct cf_cmd *c = NULL;
	unsigned r;
	json_t *o;
	size_t i;

	*how = "";
	if (cf_pct(50))
		c = cf_uncovered(mode);
	if (c == NULL) {
		c = &cf_cmds[cf_below(cf_ncmds)];
		r = (unsigned)cf_below(100);
		*mode = r < 60 ? CF_VALID : r < 80 ? CF_EDGE : CF_WRONG;
	}
	c->sent[*mode]++;
	if (*mode == CF_WRONG)
		return cf_wrong(c, how);
	o = json_pack("{s:s}", "prefix", c->prefix);
	if (*mode == CF_VALID) {
		cf_fill_args(o, c, -1, 60);
		if (strcmp(c->prefix, "osd pool create") == 0)
			cf_pools_made++;
		/* A delete confirms itself as the man page asks, mostly. */
		for (i = 0; i < c->nargs; i++)
			if (c->args[i].type == CF_FLAG && cf_pct(80))
				json_object_set_new(o, c->args[i].name,
				    json_true());
		if (cf_is_arg(c, "pool2") && cf_pct(80))
			json_object_set(o, "pool2", json_object_get(o, "pool"));
		return o;
	}
	/* At an edge: one argument, or every optional one null. */
	i = cf_below(c->nargs + 1);
	if (i == c->nargs) {
		cf_fill_args(o, c, -1, 0);
		for (i = 0; i < c->nargs; i++)
			if (!c->args[i].required) {
				json_object_set_new(o, c->args[i].name,
				    json_null());
				*how = "optional-null";
			}
	} else {
		cf_fill_args(o, c, (int)i, 50);
		*how = c->args[i].name;
	}
	return o;
}

/* ------------------------------------------------------------------ */
/* the table */

static enum cf_kind
cf_kind_of(const char *name, enum cf_type t)
{
	static const struct {
		const char *name;
		enum cf_type type;
		enum cf_kind kind;
	} names[] = {
		{ "id", CF_INT, K_OSD },
		{ "osd", CF_INT, K_OSD },
		{ "ids", CF_INTS, K_OSD },
		{ "id", CF_OSD, K_OSD },
		{ "osd", CF_OSD, K_OSD },
		{ "ids", CF_OSDS, K_OSD },
		{ "pool", CF_STRING, K_POOL },
		{ "pool2", CF_STRING, K_POOL },
		{ "srcpool", CF_STRING, K_POOL },
		{ "destpool", CF_STRING, K_POOL },
		{ "pgid", CF_STRING, K_PGID },
		{ "pg_num", CF_INT, K_PGNUM },
		{ "val", CF_INT, K_PGNUM },
		{ "pgp_num", CF_INT, K_PGNUM },
		{ "val", CF_VALUE, K_PGNUM },
		{ "addr", CF_STRING, K_ADDR },
		{ "key", CF_STRING, K_CONFKEY },
		{ "value", CF_STRING, K_CONFVAL },
		{ "states", CF_STRINGS, K_STATES },
		{ "pgs", CF_JSON, K_PGS },
	};
	size_t i;

	for (i = 0; i < nitems(names); i++)
		if (names[i].type == t && strcmp(names[i].name, name) == 0)
			return names[i].kind;
	return K_PLAIN;
}

static int
cf_parse_arg(struct cf_arg *a, json_t *d, char **cause)
{
	const char *name, *type;
	json_t *min, *max, *choices, *ch;
	size_t i;

	name = json_string_value(json_object_get(d, "name"));
	type = json_string_value(json_object_get(d, "type"));
	if (name == NULL || type == NULL) {
		xasprintf(cause, "an argument without a name or a type");
		return -1;
	}
	for (i = 0; i < nitems(cf_type_names); i++)
		if (strcmp(cf_type_names[i], type) == 0)
			break;
	if (i == nitems(cf_type_names)) {
		xasprintf(cause, "argument '%s': type '%s' has no generator "
		    "here", name, type);
		return -1;
	}
	a->name = xstrdup(name);
	a->type = (enum cf_type)i;
	a->kind = cf_kind_of(name, a->type);
	a->required = json_is_true(json_object_get(d, "required"));
	min = json_object_get(d, "min");
	max = json_object_get(d, "max");
	if (json_is_number(min) && json_is_number(max)) {
		a->bounded = 1;
		a->fmin = json_number_value(min);
		a->fmax = json_number_value(max);
		a->imin = json_is_integer(min) ? json_integer_value(min) :
		    (json_int_t)a->fmin;
		a->imax = json_is_integer(max) ? json_integer_value(max) :
		    (json_int_t)a->fmax;
	}
	choices = json_object_get(d, "choices");
	if (a->type == CF_CHOICE && json_array_size(choices) == 0) {
		xasprintf(cause, "argument '%s': a choice without choices",
		    name);
		return -1;
	}
	a->nchoices = json_array_size(choices);
	a->choices = xcalloc(a->nchoices + 1, sizeof *a->choices);
	json_array_foreach(choices, i, ch)
		a->choices[i] = xstrdup(json_is_string(ch) ?
		    json_string_value(ch) : "");
	return 0;
}

static int
cf_parse_table(json_t *data, char **cause)
{
	json_t *cmds = json_object_get(data, "commands"), *d, *args, *ad;
	struct cf_cmd *c;
	const char *prefix;
	size_t i, j;

	if (json_array_size(cmds) == 0) {
		xasprintf(cause, "no \"commands\" in the descriptions");
		return -1;
	}
	cf_ncmds = json_array_size(cmds);
	cf_cmds = xcalloc(cf_ncmds, sizeof *cf_cmds);
	json_array_foreach(cmds, i, d) {
		c = &cf_cmds[i];
		if ((prefix = json_string_value(json_object_get(d,
		    "prefix"))) == NULL) {
			xasprintf(cause, "command %zu has no prefix", i);
			return -1;
		}
		c->prefix = xstrdup(prefix);
		args = json_object_get(d, "args");
		if (json_array_size(args) > CF_MAXARGS) {
			xasprintf(cause, "%s: more than %d arguments", prefix,
			    CF_MAXARGS);
			return -1;
		}
		json_array_foreach(args, j, ad) {
			if (cf_parse_arg(&c->args[j], ad, cause) == -1)
				return -1;
			c->nargs++;
		}
	}
	return 0;
}

static int
cf_parse_conf(json_t *data, char **cause)
{
	json_t *k;
	const char *name, *value;
	size_t i;

	if (!json_is_array(data)) {
		xasprintf(cause, "config show: not a list of keys");
		return -1;
	}
	cf_nconf = json_array_size(data);
	cf_conf_names = xcalloc(cf_nconf + 1, sizeof *cf_conf_names);
	cf_conf_values = xcalloc(cf_nconf + 1, sizeof *cf_conf_values);
	cf_conf_runtime = xcalloc(cf_nconf + 1, sizeof *cf_conf_runtime);
	json_array_foreach(data, i, k) {
		name = json_string_value(json_object_get(k, "name"));
		value = json_string_value(json_object_get(k, "value"));
		if (name == NULL || value == NULL) {
			xasprintf(cause, "config show: key %zu without a name "
			    "or a value", i);
			return -1;
		}
		cf_conf_names[i] = xstrdup(name);
		cf_conf_values[i] = xstrdup(value);
		cf_conf_runtime[i] = json_is_true(json_object_get(k,
		    "runtime"));
	}
	return 0;
}

/* One command, blocking; 0 with *data, or -1 after a "not ok" line. */
static int
cf_call(const char *prefix, json_t **data)
{
	json_t *cmd = json_pack("{s:s}", "prefix", prefix);
	char *status = NULL;
	int rc;

	rc = mclient_call(cf_addr, 10000, cmd, data, &status);
	json_decref(cmd);
	if (rc != 0) {
		cf_ok(0, "%s answers (rc %d: %s)", prefix, rc,
		    status ? status : "");
		free(status);
		return -1;
	}
	free(status);
	return 0;
}

/* ------------------------------------------------------------------ */
/* the probe thread */

/* VmRSS and VmHWM in KiB; -1 when the process is gone or a zombie. */
static int
cf_read_status(long *rss, long *hwm)
{
	char path[64], line[256], state = '?';
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)cf_pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	*rss = *hwm = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		(void)sscanf(line, "VmRSS: %ld kB", rss);
		(void)sscanf(line, "VmHWM: %ld kB", hwm);
		(void)sscanf(line, "State: %c", &state);
	}
	fclose(f);
	return state == 'Z' || state == 'X' ? -1 : 0;
}

static void cf_probe_open(struct cf_probe *);

static void
cf_probe_reply(void *arg, int rc, const char *status,
    mapmon_unused json_t *data)
{
	struct cf_probe *p = arg;
	double t = cf_now_ms() - p->sent_at;

	if (!mclient_ready(p->c))
		return;		/* the connection's failure: cf_probe_error */
	p->sent_at = 0;
	if (rc != 0) {
		if (p->errors++ == 0)
			xasprintf(&p->first_error, "status: %s: %s",
			    cf_errname(rc), status);
		return;
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 1024;
		p->lat = xreallocarray(p->lat, p->cap, sizeof *p->lat);
	}
	p->lat[p->n++] = t;
}

static void
cf_probe_error(void *arg, int err, const char *msg)
{
	struct cf_probe *p = arg;

	p->cuts++;
	if (p->sent_at > 0)
		p->errors++;
	if (p->first_error == NULL)
		xasprintf(&p->first_error, "probe connection: %s: %s",
		    cf_errname(err), msg);
	p->sent_at = 0;
	mclient_free(p->c);
	p->c = NULL;
}

static void
cf_probe_open(struct cf_probe *p)
{
	p->late_counted = 0;
	p->sent_at = 0;
	p->c = mclient_new(p->base, cf_addr, CF_CONNECT_MS, NULL,
	    cf_probe_error, p);
	mclient_set_name(p->c, "client.probe");
}

static void
cf_probe_tick(mapmon_unused evutil_socket_t fd, mapmon_unused short ev,
    void *arg)
{
	struct cf_probe *p = arg;
	json_t *cmd;
	double now = cf_now_ms();
	long rss, hwm;

	if (cf_read_status(&rss, &hwm) == -1) {
		atomic_store(&cf_abort, CF_GONE);
	} else {
		if (rss > p->rss_kb)
			p->rss_kb = rss;
		if (hwm > p->hwm_kb)
			p->hwm_kb = hwm;
		if (hwm > cf_rss_limit_mb * 1024 || rss > cf_rss_limit_mb *
		    1024)
			atomic_store(&cf_abort, CF_RSS);
	}
	if (p->sent_at > 0) {
		if (now - p->sent_at > CF_PROBE_LIMIT_MS && !p->late_counted) {
			p->late++;
			p->late_counted = 1;
		}
		if (now - p->sent_at > CF_STALL_MS)
			atomic_store(&cf_abort, CF_STALL);
	}
	if (atomic_load(&p->stop)) {
		event_base_loopbreak(p->base);
		return;
	}
	if (p->c == NULL && atomic_load(&cf_abort) != CF_GONE)
		cf_probe_open(p);
	if (p->c == NULL || p->sent_at > 0)
		return;
	cmd = json_pack("{s:s}", "prefix", "status");
	p->sent_at = now;
	p->late_counted = 0;
	if (mclient_request(p->c, cmd, cf_probe_reply, p) != 0)
		p->sent_at = 0;
	json_decref(cmd);
}

static void *
cf_probe_main(void *arg)
{
	struct cf_probe *p = arg;
	struct timeval tv = { 0, CF_TICK_MS * 1000 };

	p->base = event_base_new();
	p->tick = event_new(p->base, -1, EV_PERSIST, cf_probe_tick, p);
	evtimer_add(p->tick, &tv);
	cf_probe_open(p);
	event_base_dispatch(p->base);
	/* A status still out at the end is late if it waited too long. */
	if (p->sent_at > 0 && cf_now_ms() - p->sent_at > CF_PROBE_LIMIT_MS &&
	    !p->late_counted)
		p->late++;
	mclient_free(p->c);
	event_free(p->tick);
	event_base_free(p->base);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* the fuzzing connections */

static void cf_conn_open(struct cf_conn *);
static void cf_fill(struct cf_conn *);

static struct cf_sent *
cf_slot(uint64_t seq)
{
	struct cf_sent *s = &cf_ring[seq % cf_last];

	return s->seq == seq ? s : NULL;
}

static void
cf_push(mapmon_unused void *arg, mapmon_unused json_t *obj)
{
	cf_npushes++;
}

static void
cf_reply(void *arg, int rc, const char *status, mapmon_unused json_t *data)
{
	struct cf_req *r = arg;
	struct cf_conn *c = r->conn;
	struct cf_sent *s = cf_slot(r->seq);
	const char *text = s != NULL ? s->text : "(gone from the log)";

	c->inflight--;
	TAILQ_REMOVE(&cf_reqs, r, entry);
	if (!mclient_ready(c->c)) {
		/* Not an answer: the connection failed (cf_conn_error). */
		cf_nlost++;
		free(r);
		return;
	}
	cf_nanswered++;
	cf_rc_count[rc <= 0 && rc > -4096 ? -rc : 0]++;
	if (s != NULL) {
		s->answered = 1;
		s->rc = rc;
	}
	if (r->mode == CF_WRONG && rc != -EINVAL)
		cf_example(&cf_not_einval, "#%" PRIu64 " (%s) rc %s: %s: %s",
		    r->seq, r->how, cf_errname(rc), status, text);
	if (rc < 0 && (status == NULL || status[0] == '\0'))
		cf_example(&cf_no_status, "#%" PRIu64 " rc %s: %s", r->seq,
		    cf_errname(rc), text);
	free(r);
	cf_fill(c);
}

static void
cf_conn_error(void *arg, int err, const char *msg)
{
	struct cf_conn *c = arg;

	if (atomic_load(&cf_abort) != CF_GONE)
		cf_example(&cf_cut, "connection %d, after %u commands: %s: %s",
		    c->idx, c->sent, cf_errname(err), msg);
	mclient_free(c->c);
	c->c = NULL;
	c->inflight = 0;
}

static void
cf_conn_ready(void *arg, mapmon_unused json_t *hello)
{
	cf_fill(arg);
}

static void
cf_conn_open(struct cf_conn *c)
{
	char name[32];

	snprintf(name, sizeof name, "client.fuzz%d", c->idx);
	c->c = mclient_new(cf_base, cf_addr, CF_CONNECT_MS, cf_conn_ready,
	    cf_conn_error, c);
	mclient_set_name(c->c, name);
	c->sent = 0;
	c->inflight = 0;
	cf_nopened++;
}

static void
cf_send(struct cf_conn *c)
{
	struct cf_sent *s;
	struct cf_req *r;
	json_t *cmd, *pv;
	char *text;
	int mode, rv;
	const char *how;
	size_t len;

	cmd = cf_next_command(&mode, &how);
	r = xcalloc(1, sizeof *r);
	r->conn = c;
	r->seq = ++cf_seq;
	r->mode = mode;
	r->how = how;
	if (mode == CF_WRONG)
		cf_wrong_sent++;

	s = &cf_ring[r->seq % cf_last];
	free(s->text);
	memset(s, 0, sizeof *s);
	s->seq = r->seq;
	s->t_ms = cf_now_ms() - cf_t0;
	s->conn = c->idx;
	s->mode = mode;
	s->how = how;
	text = json_dumps(cmd, JSON_COMPACT | JSON_ENSURE_ASCII);
	len = text != NULL ? strlen(text) : 0;
	if (len > CF_TEXT_MAX)
		xasprintf(&s->text, "%.*s... (%zu bytes)", CF_TEXT_MAX, text,
		    len);
	else
		s->text = xstrdup(text != NULL ? text : "(unprintable)");
	free(text);

	pv = json_object_get(cmd, "prefix");
	if (json_is_string(pv) && strcmp(json_string_value(pv),
	    "subscribe") == 0)
		rv = mclient_subscribe(c->c, cmd, cf_push, cf_reply, r);
	else
		rv = mclient_request(c->c, cmd, cf_reply, r);
	json_decref(cmd);
	if (rv != 0) {
		/* The client died under us: its error is on the way. */
		free(r);
		free(s->text);
		s->text = xstrdup("(not sent: the connection had failed)");
		return;
	}
	TAILQ_INSERT_TAIL(&cf_reqs, r, entry);
	c->inflight++;
	c->sent++;
	cf_nsent++;
}

static void
cf_fill(struct cf_conn *c)
{
	if (c->c == NULL || !mclient_ready(c->c))
		return;
	if (c->sent >= CF_RECYCLE) {
		if (c->inflight == 0 && !cf_stopping) {
			mclient_free(c->c);
			cf_conn_open(c);
		}
		return;
	}
	while (!cf_stopping && c->c != NULL && mclient_ready(c->c) &&
	    c->inflight < (size_t)cf_depth && c->sent < CF_RECYCLE)
		cf_send(c);
}

static size_t
cf_inflight(void)
{
	size_t n = 0;
	int i;

	for (i = 0; i < cf_nconns; i++)
		n += cf_conns[i].inflight;
	return n;
}

static void
cf_tick(mapmon_unused evutil_socket_t fd, mapmon_unused short ev,
    mapmon_unused void *arg)
{
	double now = cf_now_ms();
	int i;

	if (!cf_stopping && (now >= cf_end || atomic_load(&cf_abort) !=
	    CF_RUN)) {
		cf_stopping = 1;
		cf_stop_at = now;
		cf_drain_end = now + CF_DRAIN_MS;
	}
	/*
	 * Replies are awaited only after a full run: a daemon past its
	 * ceiling or not answering would only grow, and its replies with it.
	 */
	if (cf_stopping) {
		if (cf_inflight() == 0 || now >= cf_drain_end ||
		    atomic_load(&cf_abort) != CF_RUN)
			event_base_loopbreak(cf_base);
		return;
	}
	for (i = 0; i < cf_nconns; i++)
		if (cf_conns[i].c == NULL)
			cf_conn_open(&cf_conns[i]);
		else
			cf_fill(&cf_conns[i]);
}

/* ------------------------------------------------------------------ */
/* the report */

static int
cf_dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
cf_write_log(void)
{
	const struct cf_sent *s;
	uint64_t seq, first;
	FILE *f;

	if (cf_logpath == NULL)
		return;
	if ((f = fopen(cf_logpath, "w")) == NULL) {
		cf_diag("cannot write %s: %s", cf_logpath, strerror(errno));
		return;
	}
	fprintf(f, "# cmd_fuzz seed %" PRIu64 ": the last %zu commands sent "
	    "(seq, ms since the start, connection, form, rc)\n", cf_seed,
	    cf_last);
	first = cf_seq >= cf_last ? cf_seq - cf_last + 1 : 1;
	for (seq = first; seq <= cf_seq; seq++) {
		if ((s = cf_slot(seq)) == NULL)
			continue;
		fprintf(f, "%" PRIu64 " %.1f c%d %s%s%s %s %s\n", s->seq,
		    s->t_ms, s->conn, cf_mode_names[s->mode],
		    s->how[0] ? ":" : "", s->how,
		    s->answered ? cf_errname(s->rc) : "-", s->text);
	}
	fclose(f);
}

static void
cf_show_last(void)
{
	const struct cf_sent *s;
	uint64_t seq, n = cf_last < CF_SHOW_LAST ? cf_last : CF_SHOW_LAST;

	cf_diag("seed %" PRIu64 "; the last %" PRIu64 " commands sent "
	    "(seq, ms, connection, form, rc; %zu in %s):", cf_seed,
	    n < cf_seq ? n : cf_seq, cf_last, cf_logpath ? cf_logpath :
	    "no log");
	for (seq = cf_seq >= n ? cf_seq - n + 1 : 1; seq <= cf_seq; seq++)
		if ((s = cf_slot(seq)) != NULL)
			cf_diag("  %" PRIu64 " %.1f c%d %s%s%s %s %s", s->seq,
			    s->t_ms, s->conn, cf_mode_names[s->mode],
			    s->how[0] ? ":" : "", s->how,
			    s->answered ? cf_errname(s->rc) : "-", s->text);
}

static void
cf_report(int why)
{
	struct cf_probe *p = &cf_probe;
	char rcs[512] = "";
	double p50 = 0, p99 = 0, max = 0;
	uint64_t unanswered = cf_nsent - cf_nanswered;
	/* Coverage and replies are not judged after an early stop. */
	const char *early = why != CF_RUN ? "the fuzzing stopped early" : NULL;
	size_t i, off = 0, missing = 0;
	int m;

	if (why == CF_RUN)
		cf_ok(1, "the fuzzing ran its %d s (then %.1f s for the last "
		    "replies)", cf_seconds, (cf_done_at - cf_stop_at) / 1e3);
	else
		cf_ok(0, "the fuzzing ran its %d s: stopped after %.1f s, %s",
		    cf_seconds, (cf_stop_at - cf_t0) / 1e3,
		    cf_abort_names[why]);
	for (i = 0; i < cf_ncmds; i++)
		for (m = 0; m < CF_NMODES; m++)
			if (cf_cmds[i].sent[m] == 0) {
				if (missing++ < CF_EXAMPLES)
					cf_diag("  never sent: %s (%s)",
					    cf_cmds[i].prefix, cf_mode_names[m]);
			}
	cf_ok_unless(missing == 0, early, "every command of the table sent "
	    "valid, at a boundary and wrong (%zu commands; %" PRIu64 " sent, %"
	    PRIu64 " wrong)", cf_ncmds, cf_nsent, cf_wrong_sent);

	for (i = 0; i < nitems(cf_rc_count); i++)
		if (cf_rc_count[i] > 0 && off < sizeof rcs - 32)
			off += (size_t)snprintf(rcs + off, sizeof rcs - off,
			    "%s%s %" PRIu64, off ? ", " : "",
			    cf_errname(-(int)i), cf_rc_count[i]);
	cf_ok_unless(unanswered == 0, early, "every command answered: %"
	    PRIu64 " sent, %" PRIu64 " answered (%s)", cf_nsent, cf_nanswered,
	    rcs);
	if (unanswered > 0 && early == NULL)
		cf_diag("  %" PRIu64 " lost with their connection, %" PRIu64
		    " still due after %d s", cf_nlost, unanswered - cf_nlost,
		    CF_DRAIN_MS / 1000);
	cf_ok(cf_not_einval.count == 0, "every wrong command refused with "
	    "EINVAL (%" PRIu64 " of %" PRIu64 ")", cf_wrong_sent -
	    cf_not_einval.count, cf_wrong_sent);
	cf_examples_print(&cf_not_einval);
	cf_ok(cf_no_status.count == 0, "every refusal says why (a status)");
	cf_examples_print(&cf_no_status);
	cf_ok(cf_cut.count == 0, "no fuzzing connection was cut (%" PRIu64
	    " opened, %" PRIu64 " pushes read)", cf_nopened, cf_npushes);
	cf_examples_print(&cf_cut);
	cf_ok(why != CF_GONE, "the daemon stayed up");

	if (p->n > 0) {
		qsort(p->lat, p->n, sizeof *p->lat, cf_dcmp);
		p50 = p->lat[p->n / 2];
		p99 = p->lat[(size_t)((double)(p->n - 1) * 0.99)];
		max = p->lat[p->n - 1];
	}
	cf_ok(p->n > 0 && p->late == 0 && p->errors == 0 && p->cuts == 0 &&
	    max <= CF_PROBE_LIMIT_MS, "status every %d ms, each answered "
	    "within %d ms: %zu answered, p50 %.2f ms, p99 %.2f ms, max %.1f "
	    "ms", CF_TICK_MS, CF_PROBE_LIMIT_MS, p->n, p50, p99, max);
	if (p->late > 0 || p->errors > 0 || p->cuts > 0)
		cf_diag("  %" PRIu64 " late, %" PRIu64 " failed, connection "
		    "cut %" PRIu64 " times%s%s", p->late, p->errors, p->cuts,
		    p->first_error ? "; first: " : "",
		    p->first_error ? p->first_error : "");
	cf_ok(p->hwm_kb > 0 && p->hwm_kb <= cf_rss_limit_mb * 1024 &&
	    p->rss_kb <= cf_rss_limit_mb * 1024, "the daemon's RSS under %ld "
	    "MiB: VmRSS at most %.1f MiB, VmHWM %.1f MiB", cf_rss_limit_mb,
	    (double)p->rss_kb / 1024, (double)p->hwm_kb / 1024);
}

/* ------------------------------------------------------------------ */

static const char cf_usage[] =
    "usage: cmd_fuzz -m ADDR -p PID [-t SECONDS] [-s SEED] [-c CONNS]\n"
    "                [-q DEPTH] [-r RSS_MB] [-l LOG] [-n LAST] "
    "[-P MAX_PG_NUM]\n";

static long long
cf_number(const char *s, long long lo, long long hi)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "cmd_fuzz: bad number '%s' (%lld to %lld)\n",
		    s, lo, hi);
		exit(MAPMON_EXIT_USAGE);
	}
	return v;
}

int
main(int argc, char **argv)
{
	struct timeval tv = { 0, CF_TICK_MS * 1000 };
	struct event *tick;
	struct cf_req *r;
	json_t *data = NULL;
	char *cause = NULL, *end;
	int ch, i, why, have_seed = 0;

	while ((ch = getopt(argc, argv, "c:l:m:n:p:P:q:r:s:t:")) != -1) {
		switch (ch) {
		case 'c':
			cf_nconns = (int)cf_number(optarg, 1, 64);
			break;
		case 'l':
			cf_logpath = optarg;
			break;
		case 'm':
			cf_addr = optarg;
			break;
		case 'n':
			cf_last = (size_t)cf_number(optarg, 1, 1000000);
			break;
		case 'p':
			cf_pid = (pid_t)cf_number(optarg, 1, INT32_MAX);
			break;
		case 'P':
			cf_max_pg_num = cf_number(optarg, 1, INT64_MAX);
			break;
		case 'q':
			cf_depth = (int)cf_number(optarg, 1, 1024);
			break;
		case 'r':
			cf_rss_limit_mb = (long)cf_number(optarg, 1, 1 << 24);
			break;
		case 's':
			errno = 0;
			cf_seed = strtoull(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0') {
				fprintf(stderr, "cmd_fuzz: bad seed '%s'\n",
				    optarg);
				return MAPMON_EXIT_USAGE;
			}
			have_seed = 1;
			break;
		case 't':
			cf_seconds = (int)cf_number(optarg, 1, 86400);
			break;
		default:
			fputs(cf_usage, stderr);
			return MAPMON_EXIT_USAGE;
		}
	}
	if (cf_addr == NULL || cf_pid == 0 || optind != argc) {
		fputs(cf_usage, stderr);
		return MAPMON_EXIT_USAGE;
	}
	if (!have_seed)
		cf_seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	cf_rng_state = cf_seed;
	signal(SIGPIPE, SIG_IGN);
	cf_diag("seed %" PRIu64 ", %d s, %d connections x %d in flight, RSS "
	    "ceiling %ld MiB%s", cf_seed, cf_seconds, cf_nconns, cf_depth,
	    cf_rss_limit_mb, cf_max_pg_num > 0 ? ", PG counts capped (-P)" :
	    "");

	if (cf_call("get_command_descriptions", &data) == -1)
		return 1;
	if (cf_parse_table(data, &cause) == -1) {
		cf_ok(0, "the command table has what the fuzzer knows: %s",
		    cause);
		return 1;
	}
	json_decref(data);
	if (cf_call("config show", &data) == -1)
		return 1;
	if (cf_parse_conf(data, &cause) == -1) {
		cf_ok(0, "%s", cause);
		return 1;
	}
	json_decref(data);
	cf_ok(1, "the command table: %zu commands (get_command_descriptions), "
	    "%zu config keys", cf_ncmds, cf_nconf);

	cf_ring = xcalloc(cf_last, sizeof *cf_ring);
	cf_base = event_base_new();
	if (pthread_create(&cf_probe.thread, NULL, cf_probe_main,
	    &cf_probe) != 0) {
		cf_ok(0, "the probe thread starts");
		return 1;
	}
	cf_t0 = cf_now_ms();
	cf_end = cf_t0 + cf_seconds * 1e3;
	cf_conns = xcalloc((size_t)cf_nconns, sizeof *cf_conns);
	for (i = 0; i < cf_nconns; i++) {
		cf_conns[i].idx = i;
		cf_conn_open(&cf_conns[i]);
	}
	tick = event_new(cf_base, -1, EV_PERSIST, cf_tick, NULL);
	evtimer_add(tick, &tv);
	event_base_dispatch(cf_base);
	cf_done_at = cf_now_ms();
	why = atomic_load(&cf_abort);

	/* The probe goes on a little after a full run. */
	if (why == CF_RUN)
		usleep(CF_AFTER_MS * 1000);
	atomic_store(&cf_probe.stop, 1);
	pthread_join(cf_probe.thread, NULL);
	why = atomic_load(&cf_abort) == CF_GONE ? CF_GONE : why;

	cf_report(why);
	cf_write_log();
	if (cf_failed > 0)
		cf_show_last();

	/* Freed clients call no callback: what is still due is freed here. */
	for (i = 0; i < cf_nconns; i++)
		mclient_free(cf_conns[i].c);
	while ((r = TAILQ_FIRST(&cf_reqs)) != NULL) {
		TAILQ_REMOVE(&cf_reqs, r, entry);
		free(r);
	}
	event_free(tick);
	event_base_free(cf_base);
	return cf_failed > 0 ? 1 : 0;
}
