/*
 * conf.h: the configuration of mapmon, one table of keys and an ini loader.
 *
 * Every key of mapmon.conf(5) is one row of conf_options[] (conf_table.c):
 * section, name, type, default, bounds, whether it may change at run time,
 * and a help line.  The loader, `mapmon config show|get|set`, the sample
 * conf/mapmon.conf and the man page all come from, or are tested against,
 * that table.
 *
 * Conventions (those of common/mapmon.h, and):
 *
 *  1. The loader never exits and never prints.  It parses the whole file and
 *     hands back every error as a "FILE:LINE: message" string ("FILE: message"
 *     where the error has no line: an unreadable file, a directory), so that
 *     a daemon can exit 78 (MAPMON_EXIT_CONFIG) at start, or keep its old
 *     configuration on SIGHUP.
 *  2. Values are held typed, in one unit each: sizes in bytes, durations in
 *     milliseconds, bools as 0/1, enums as an index into their choices,
 *     floats as doubles.
 *  3. The text forms are those of the file: sizes "64M" (K/M/G/T, 1024-based,
 *     case-insensitive, optional B), durations "20ms" (ms/s/m/h/d; a bare
 *     number only for 0), bools true/false/yes/no/on/off/1/0, log levels
 *     "L/G" (a bare "L" means L/L), addresses "HOST:PORT" ("[::1]:6788" for
 *     IPv6), floats in decimal ("0.75", "1e-3"; never nan, inf or hex).
 *     conf_format() writes the canonical form, which conf_set() parses
 *     back to the same value.
 *  4. A struct conf is a plain value: not shared, not locked; the daemon
 *     loads a new one on SIGHUP and compares it key by key with conf_equal().
 *  5. Asking a key for the wrong type (conf_int() of a string key) is a
 *     programming error: the answer is 0 (or NULL), never a crash.
 */
#ifndef CONF_H
#define CONF_H

#include <stddef.h>
#include <stdint.h>

/* The longest line a config file may hold, without its newline. */
#define CONF_LINE_MAX 1024
/* After this many errors the loader stops reading and says so. */
#define CONF_ERRORS_MAX 100
/* Highest debug level of a log subsystem ("L/G", each 0..20). */
#define CONF_LOGLEVEL_MAX 20

enum conf_type {
	CONF_INT,      /* a whole number */
	CONF_SIZE,     /* bytes, written with K/M/G/T suffixes */
	CONF_DURATION, /* milliseconds, written with ms/s/m/h/d */
	CONF_BOOL,     /* 0 or 1 */
	CONF_ENUM,     /* index into choices */
	CONF_STRING,   /* free text */
	CONF_ADDRESS,  /* "HOST:PORT" as written; "" where the default is "" */
	CONF_LOGLEVEL, /* "L/G": log file level / gather (memory ring) level */
	CONF_FLOAT,    /* a decimal number, as in 0.75 */
};

/* One per key, in table order: CONF_<SECTION>_<KEY>, dots as underscores. */
enum conf_key {
	/* [mon] */
	CONF_MON_NAME,
	CONF_MON_DATA,
	CONF_MON_BIND,
	CONF_MON_MON_HOST,
	CONF_MON_ELECTION_TIMEOUT,
	CONF_MON_SNAPSHOT_THRESHOLD,
	CONF_MON_SNAPSHOT_TRAILING,
	CONF_MON_COMPRESS_ENTRIES,
	CONF_MON_SYNC_CHUNK_SIZE,
	CONF_MON_PROPOSE_INTERVAL,
	CONF_MON_PROPOSE_MAX_OPS,
	CONF_MON_MIN_EPOCHS,
	CONF_MON_PG_STALE_TIMEOUT,
	CONF_MON_PG_STUCK_THRESHOLD,
	CONF_MON_OSD_DOWN_OUT_INTERVAL,
	CONF_MON_OSD_HEARTBEAT_GRACE,
	CONF_MON_OSD_MIN_DOWN_REPORTERS,
	CONF_MON_OSD_REPORTER_SUBTREE_LEVEL,
	CONF_MON_OSD_REPORT_TIMEOUT,
	CONF_MON_OSD_MIN_IN_RATIO,
	CONF_MON_DATA_SIZE_WARN,
	CONF_MON_DATA_AVAIL_WARN,
	CONF_MON_DATA_AVAIL_CRIT,
	CONF_MON_LOG_MAX_ENTRIES,
	CONF_MON_MAX_POOL_PG_NUM,
	CONF_MON_MAX_PG_PER_OSD,
	CONF_MON_MAX_PGS,
	CONF_MON_MAX_OSD,
	CONF_MON_OSD_POOL_DEFAULT_PG_NUM,
	CONF_MON_OSD_POOL_DEFAULT_SIZE,
	CONF_MON_ALLOW_POOL_DELETE,
	CONF_MON_ALLOW_POOL_SIZE_ONE,
	CONF_MON_MAX_CONNECTIONS,
	CONF_MON_MAX_FRAME,
	CONF_MON_IDLE_TIMEOUT,
	CONF_MON_MAX_CLIENT_OUTPUT,
	CONF_MON_MAX_PARTIAL_INPUT,
	CONF_MON_REALTIME_PRIORITY,
	/* [store] */
	CONF_STORE_BACKEND,
	CONF_STORE_SYNC,
	/* [store.leveldb] */
	CONF_STORE_LEVELDB_WRITE_BUFFER_SIZE,
	CONF_STORE_LEVELDB_BLOCK_SIZE,
	CONF_STORE_LEVELDB_CACHE_SIZE,
	CONF_STORE_LEVELDB_COMPRESSION,
	CONF_STORE_LEVELDB_BLOOM_BITS,
	CONF_STORE_LEVELDB_MAX_OPEN_FILES,
	CONF_STORE_LEVELDB_PARANOID_CHECKS,
	CONF_STORE_LEVELDB_COMPACT_ON_START,
	/* [store.lmdb] */
	CONF_STORE_LMDB_MAP_SIZE,
	CONF_STORE_LMDB_MAX_READERS,
	CONF_STORE_LMDB_WRITEMAP,
	/* [log] */
	CONF_LOG_FILE,
	CONF_LOG_MAX_RECENT,
	CONF_LOG_DEBUG_MON,
	CONF_LOG_DEBUG_OSD,
	CONF_LOG_DEBUG_PG,
	CONF_LOG_DEBUG_COMMIT,
	CONF_LOG_DEBUG_STORE,
	CONF_LOG_DEBUG_NET,
	CONF_LOG_DEBUG_CONF,
	CONF_LOG_DEBUG_CLIENT,
	CONF_LOG_DEBUG_EVENT,
	/* [metrics] */
	CONF_METRICS_BIND,
	/* [osd] */
	CONF_OSD_BEACON_INTERVAL,
	/* [auth] */
	CONF_AUTH_REQUIRED,
	CONF_AUTH_ALLOW_INSECURE,
	CONF_AUTH_KEYRING,
	CONF_AUTH_FAIL_DELAY,
	CONF_AUTH_FAIL_DELAY_MAX,
	/* [net] */
	CONF_NET_TLS_CERT,
	CONF_NET_TLS_KEY,
	CONF_NET_TLS_CA,
	CONF_NKEYS
};

/* Index of each choice of the enum keys (conf_int() of that key). */
enum conf_store_backend { CONF_BACKEND_LMDB, CONF_BACKEND_LEVELDB };
enum conf_store_sync { CONF_SYNC_COMMIT, CONF_SYNC_NONE };
enum conf_leveldb_compression {
	CONF_COMPRESSION_NONE,
	CONF_COMPRESSION_SNAPPY
};

/*
 * One key.  min/max bound INT, SIZE (bytes), DURATION (milliseconds) and
 * each half of a LOGLEVEL; fmin/fmax bound a FLOAT; other types ignore
 * them.  def is written as the file would write it, in the canonical form
 * conf_format() produces.
 */
struct conf_option {
	const char *section; /* "mon", "store.leveldb" */
	const char *name;    /* "propose_interval" */
	enum conf_type type;
	const char *def;
	int64_t min, max;
	double fmin, fmax;
	const char *const *choices; /* CONF_ENUM only; NULL-terminated */
	int runtime;		    /* may change without a restart */
	const char *help;	    /* one line, no trailing full stop */
};

extern const struct conf_option conf_options[CONF_NKEYS];

/* The sections, in table order, NULL-terminated. */
extern const char *const conf_sections[];

struct conf;

/* conf_new: a configuration holding every default.  Never fails. */
struct conf *conf_new(void);

/*
 * conf_load: reads and checks the whole file at path.  Keys the file does not
 * set keep their defaults.  On success returns the new configuration and sets
 * *errors = NULL, *nerrors = 0.  On any error returns NULL and hands out every
 * error, in file order, as "FILE:LINE: message" (or "FILE: message" for an
 * error without a line); the caller frees them with conf_errors_free().  Stops
 * after CONF_ERRORS_MAX errors, with a last one saying so.  Never exits,
 * never prints.
 */
struct conf *conf_load(const char *path, char ***errors, size_t *nerrors);

/*
 * The bytes of a frame header, which max_partial_input must leave room for
 * beside max_frame (net/frame.h's FRAME_HEADER_SIZE; conf/ links no net/).
 */
#define CONF_FRAME_HEADER 16

/*
 * conf_check: the rules between keys, which conf_load() applies after the
 * keys themselves: [mon] max_partial_input must hold one frame of max_frame
 * and its header.  Returns 0, or -1 with *cause (caller frees) naming both
 * keys and their values, for a caller that changes keys one at a time
 * (`config set`) and wants to refuse what would not load.
 */
int conf_check(const struct conf *c, char **cause);

/* conf_errors_free: frees the n strings of errors and the array itself. */
void conf_errors_free(char **errors, size_t n);

/* conf_free: frees a configuration; NULL is allowed. */
void conf_free(struct conf *);

/* conf_copy: a new, independent configuration equal to c.  Caller frees. */
struct conf *conf_copy(const struct conf *c);

/* conf_path: the file c was loaded from (owned by c), NULL for conf_new(). */
const char *conf_path(const struct conf *c);

/*
 * conf_line: the line of the file that set key, or 0 when the key holds its
 * default (or was changed with conf_set()).
 */
int conf_line(const struct conf *c, enum conf_key key);

/*
 * conf_int: the value of an INT, SIZE (bytes), DURATION (milliseconds), BOOL
 * (0/1) or ENUM (index into choices) key.  0 for other types.
 */
int64_t conf_int(const struct conf *c, enum conf_key key);

/* conf_float: the value of a FLOAT key; 0 for other types. */
double conf_float(const struct conf *c, enum conf_key key);

/*
 * conf_str: the value of a STRING or ADDRESS key ("" when empty), or the
 * choice name of an ENUM key.  Owned by c, valid until c is changed or freed.
 * NULL for other types.
 */
const char *conf_str(const struct conf *c, enum conf_key key);

/*
 * conf_loglevel: the two halves of a LOGLEVEL key "L/G": the level up to
 * which entries are written out, and the level up to which they are gathered
 * into the in-memory ring.  Both 0 for other types.
 */
void conf_loglevel(const struct conf *c, enum conf_key key, int *file_level,
    int *gather_level);

/*
 * conf_find: the key named "section.key" ("mon.propose_interval",
 * "store.leveldb.block_size", "log.debug_mon"), or -1 when there is none
 * (not an error: no cause).
 */
int conf_find(const char *fullname);

/*
 * conf_fullname: writes "section.key" into buf (truncated to len, always
 * terminated when len > 0) and returns buf.
 */
const char *conf_fullname(enum conf_key key, char *buf, size_t len);

/*
 * conf_set: parses value as the file parser would (surrounding blanks and one
 * pair of double quotes stripped; no comments) and checks its type and
 * bounds.  On success stores it and returns 0.  On error returns -1, leaves c
 * unchanged and sets *cause to, for example, "mon.propose_interval: bad
 * duration 'x': give a unit, as in 20ms or 2s" (caller frees).  Does not look
 * at the runtime flag: whether a change may be applied live is the caller's
 * decision (conf_options[key].runtime).
 */
int conf_set(struct conf *c, enum conf_key key, const char *value,
    char **cause);

/*
 * conf_format: the value of key as the file would write it ("50ms", "64M",
 * "true", "lmdb", "1/5"; a string that needs them is put in double quotes).
 * conf_set() of the result gives back the same value.  Caller frees.
 */
char *conf_format(const struct conf *c, enum conf_key key);

/* conf_equal: 1 when a and b hold the same value for key, else 0. */
int conf_equal(const struct conf *a, const struct conf *b, enum conf_key key);

/*
 * conf_parse_address: splits "127.0.0.1:6788", "[::1]:6788" or
 * "localhost:6788" into host (without brackets) and port.  The host must be
 * an IPv4 or (bracketed) IPv6 literal or a valid host name; the port 0 to
 * 65535 (0: any free port).  Returns 0, or -1 with *cause (caller frees), for
 * example "expected HOST:PORT, as in 127.0.0.1:6788".  host is left untouched
 * on error; a host longer than hostlen - 1 is an error.
 */
int conf_parse_address(const char *s, char *host, size_t hostlen,
    uint16_t *port, char **cause);

/*
 * conf_bind_loopback: 1 when the address s ("HOST:PORT", as [mon] bind)
 * is on loopback only (127.0.0.0/8, ::1, localhost), 0 otherwise (every
 * address, another name, or an address that does not parse).
 */
int conf_bind_loopback(const char *s);

/*
 * conf_parse_size: parses "4096", "64K", "64M", "64MB", "1g", "2T" into
 * bytes (1024-based).  Returns 0, or -1 with *cause (caller frees).
 */
int conf_parse_size(const char *s, int64_t *out, char **cause);

/*
 * conf_parse_duration: parses "20ms", "2s", "10m", "1h", "1d" (or "0") into
 * milliseconds.  A bare number other than 0 is an error: the unit would be a
 * guess.  Returns 0, or -1 with *cause (caller frees).
 */
int conf_parse_duration(const char *s, int64_t *ms, char **cause);

/*
 * conf_parse_float: parses a decimal number ("0.75", "-2", "1e-3", ".5")
 * into *out; nan, inf, hex, blanks and a value past a double's range are
 * errors.  Returns 0, or -1 with *cause (caller frees).
 */
int conf_parse_float(const char *s, double *out, char **cause);

/*
 * conf_format_float: the shortest decimal text that parses back to d
 * ("0.75", "1", "1e-05").  Caller frees.
 */
char *conf_format_float(double d);

/*
 * conf_format_size: bytes in the largest unit that divides them exactly:
 * "64M", "1536K", "0".  Caller frees.
 */
char *conf_format_size(int64_t bytes);

/*
 * conf_format_duration: milliseconds in the largest unit that divides them
 * exactly: "20ms", "1m", "7d", "0".  Caller frees.
 */
char *conf_format_duration(int64_t ms);

#endif /* CONF_H */
