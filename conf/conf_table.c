/*
 * conf_table.c: every key of mapmon.conf(5), in the order of the man page and
 * the sample file.  A test holds the three together.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"

#define KIB ((int64_t)1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)
#define TIB (GIB * 1024)

#define SEC ((int64_t)1000)
#define MINUTE (SEC * 60)
#define HOUR (MINUTE * 60)
#define DAY (HOUR * 24)

const char *const conf_sections[] = { "mon", "store", "store.leveldb",
	"store.lmdb", "log", "metrics", "osd", "auth", "net", NULL };

static const char *const conf_backend_choices[] = { "lmdb", "leveldb", NULL };
static const char *const conf_sync_choices[] = { "commit", "none", NULL };
/* The placement hierarchy's types, lowest first (crush.h). */
static const char *const conf_crush_type_choices[] = { "osd", "host", "rack",
	"room", "datacenter", "root", NULL };
static const char *const conf_compression_choices[] = { "none", "snappy",
	NULL };

/* One debug_<subsys> key: "L/G", written to the log up to L, gathered to G. */
#define CONF_DEBUG(sub, what)                                                  \
	{                                                                      \
		.section = "log", .name = "debug_" sub,                        \
		.type = CONF_LOGLEVEL, .def = "1/5", .min = 0,                 \
		.max = CONF_LOGLEVEL_MAX, .runtime = 1,                        \
		.help = "log levels L/G of " what,                             \
	}

/* A table laid out by hand, a row a key. */
/* clang-format off */
const struct conf_option conf_options[CONF_NKEYS] = {
	/* [mon] */
	[CONF_MON_NAME] = {
	    .section = "mon", .name = "name", .type = CONF_STRING, .def = "a",
	    .help = "name of this monitor in the monmap" },
	[CONF_MON_DATA] = {
	    .section = "mon", .name = "data", .type = CONF_STRING,
	    .def = "/var/lib/mapmon",
	    .help = "directory of the monitor's store" },
	[CONF_MON_BIND] = {
	    .section = "mon", .name = "bind", .type = CONF_ADDRESS,
	    .def = "127.0.0.1:6788",
	    .help = "address and port the monitor listens on for clients and "
		    "OSDs" },
	[CONF_MON_MON_HOST] = {
	    .section = "mon", .name = "mon_host", .type = CONF_STRING,
	    .def = "",
	    .help = "the monitors of a quorum: NAME=HOST:PORT,... (none or "
		    "one: alone)" },
	[CONF_MON_ELECTION_TIMEOUT] = {
	    .section = "mon", .name = "election_timeout",
	    .type = CONF_DURATION, .def = "1s", .min = 50, .max = 60 * SEC,
	    .help = "a follower hearing no leader for 1 to 2 times this "
		    "calls an election" },
	[CONF_MON_SNAPSHOT_THRESHOLD] = {
	    .section = "mon", .name = "snapshot_threshold", .type = CONF_INT,
	    .def = "128", .min = 2, .max = 1000000,
	    .help = "replicated entries after which the raft log is compacted "
		    "behind a snapshot" },
	[CONF_MON_SNAPSHOT_TRAILING] = {
	    .section = "mon", .name = "snapshot_trailing", .type = CONF_INT,
	    .def = "128", .min = 1, .max = 1000000,
	    .help = "entries kept behind a snapshot; a monitor further behind "
		    "copies a store" },
	[CONF_MON_COMPRESS_ENTRIES] = {
	    .section = "mon", .name = "compress_entries", .type = CONF_BOOL,
	    .def = "true", .runtime = 1,
	    .help = "replicated entries of 4 KiB or more compressed "
		    "(Zstandard) when smaller" },
	[CONF_MON_SYNC_CHUNK_SIZE] = {
	    .section = "mon", .name = "sync_chunk_size", .type = CONF_SIZE,
	    .def = "1M", .min = 4 * KIB, .max = 64 * MIB, .runtime = 1,
	    .help = "bytes of records per chunk of a store copied to a "
		    "lagging or new monitor" },
	[CONF_MON_PROPOSE_INTERVAL] = {
	    .section = "mon", .name = "propose_interval",
	    .type = CONF_DURATION, .def = "20ms", .min = 1, .max = 10 * SEC,
	    .runtime = 1,
	    .help = "how long changes gather into a proposal before it is "
		    "committed" },
	[CONF_MON_PROPOSE_MAX_OPS] = {
	    .section = "mon", .name = "propose_max_ops", .type = CONF_INT,
	    .def = "65536", .min = 1, .max = 10000000, .runtime = 1,
	    .help = "changes that seal a proposal at once, before "
		    "propose_interval ends" },
	[CONF_MON_MIN_EPOCHS] = {
	    .section = "mon", .name = "min_epochs", .type = CONF_INT,
	    .def = "500", .min = 10, .max = 1000000, .runtime = 1,
	    .help = "osdmap epochs and pgmap incrementals kept before "
		    "trimming" },
	[CONF_MON_PG_STALE_TIMEOUT] = {
	    .section = "mon", .name = "pg_stale_timeout",
	    .type = CONF_DURATION, .def = "1m", .min = SEC, .max = DAY,
	    .runtime = 1,
	    .help = "a PG whose primary has not reported for this long is "
		    "marked stale" },
	[CONF_MON_PG_STUCK_THRESHOLD] = {
	    .section = "mon", .name = "pg_stuck_threshold",
	    .type = CONF_DURATION, .def = "1m", .min = 0, .max = 7 * DAY,
	    .runtime = 1,
	    .help = "a PG in a state this long is stuck in it (the "
		    "threshold of pg dump_stuck)" },
	[CONF_MON_OSD_DOWN_OUT_INTERVAL] = {
	    .section = "mon", .name = "osd_down_out_interval",
	    .type = CONF_DURATION, .def = "10m", .min = 0, .max = 7 * DAY,
	    .runtime = 1,
	    .help = "an OSD down for this long is marked out (0: never)" },
	[CONF_MON_OSD_HEARTBEAT_GRACE] = {
	    .section = "mon", .name = "osd_heartbeat_grace",
	    .type = CONF_DURATION, .def = "20s", .min = 100, .max = HOUR,
	    .runtime = 1,
	    .help = "failure reports count once the target has failed for "
		    "longer than this" },
	[CONF_MON_OSD_MIN_DOWN_REPORTERS] = {
	    .section = "mon", .name = "osd_min_down_reporters",
	    .type = CONF_INT, .def = "2", .min = 1, .max = 1000, .runtime = 1,
	    .help = "distinct up OSDs whose failure reports mark an OSD "
		    "down" },
	[CONF_MON_OSD_REPORTER_SUBTREE_LEVEL] = {
	    .section = "mon", .name = "osd_reporter_subtree_level",
	    .type = CONF_ENUM, .def = "host",
	    .choices = conf_crush_type_choices, .runtime = 1,
	    .help = "failure reporters of one bucket of this type count "
		    "once" },
	[CONF_MON_OSD_REPORT_TIMEOUT] = {
	    .section = "mon", .name = "osd_report_timeout",
	    .type = CONF_DURATION, .def = "15m", .min = SEC, .max = 7 * DAY,
	    .runtime = 1,
	    .help = "an up OSD without a beacon or PG report for this long "
		    "is marked down" },
	[CONF_MON_OSD_MIN_IN_RATIO] = {
	    .section = "mon", .name = "osd_min_in_ratio", .type = CONF_FLOAT,
	    .def = "0.75", .fmin = 0, .fmax = 1, .runtime = 1,
	    .help = "no automatic out that would leave fewer than this "
		    "fraction of OSDs in" },
	[CONF_MON_DATA_SIZE_WARN] = {
	    .section = "mon", .name = "data_size_warn", .type = CONF_SIZE,
	    .def = "15G", .min = MIB, .max = TIB, .runtime = 1,
	    .help = "raise MON_DISK_BIG when the store grows larger than "
		    "this" },
	[CONF_MON_DATA_AVAIL_WARN] = {
	    .section = "mon", .name = "data_avail_warn", .type = CONF_INT,
	    .def = "30", .min = 0, .max = 100, .runtime = 1,
	    .help = "raise MON_DISK_LOW below this percentage of free space "
		    "for the store" },
	[CONF_MON_DATA_AVAIL_CRIT] = {
	    .section = "mon", .name = "data_avail_crit", .type = CONF_INT,
	    .def = "5", .min = 0, .max = 100, .runtime = 1,
	    .help = "raise MON_DISK_CRIT below this percentage of free space "
		    "for the store" },
	[CONF_MON_LOG_MAX_ENTRIES] = {
	    .section = "mon", .name = "log_max_entries", .type = CONF_INT,
	    .def = "10000", .min = 1, .max = 1000000, .runtime = 1,
	    .help = "cluster log entries kept in the store" },
	[CONF_MON_MAX_POOL_PG_NUM] = {
	    .section = "mon", .name = "max_pool_pg_num", .type = CONF_INT,
	    .def = "65536", .min = 1, .max = 1048576, .runtime = 1,
	    .help = "largest pg_num of a pool; a larger one is refused" },
	[CONF_MON_MAX_PG_PER_OSD] = {
	    .section = "mon", .name = "max_pg_per_osd", .type = CONF_INT,
	    .def = "250", .min = 1, .max = 1000000, .runtime = 1,
	    .help = "pg_num x size of all pools per OSD in (3 at least); "
		    "more is refused" },
	[CONF_MON_MAX_PGS] = {
	    .section = "mon", .name = "max_pgs", .type = CONF_INT,
	    .def = "262144", .min = 1, .max = 100000000, .runtime = 1,
	    .help = "PGs of all pools together, the monitor's memory bound; "
		    "more are refused" },
	[CONF_MON_MAX_OSD] = {
	    .section = "mon", .name = "max_osd", .type = CONF_INT,
	    .def = "10000", .min = 1, .max = 65536, .runtime = 1,
	    .help = "OSD ids stay below this; osd create beyond it is "
		    "refused" },
	[CONF_MON_OSD_POOL_DEFAULT_PG_NUM] = {
	    .section = "mon", .name = "osd_pool_default_pg_num",
	    .type = CONF_INT, .def = "32", .min = 1, .max = 1048576,
	    .runtime = 1,
	    .help = "pg_num of a pool created without one" },
	[CONF_MON_OSD_POOL_DEFAULT_SIZE] = {
	    .section = "mon", .name = "osd_pool_default_size",
	    .type = CONF_INT, .def = "3", .min = 1, .max = 10, .runtime = 1,
	    .help = "size of a pool created without one" },
	[CONF_MON_ALLOW_POOL_DELETE] = {
	    .section = "mon", .name = "mon_allow_pool_delete",
	    .type = CONF_BOOL, .def = "false", .runtime = 1,
	    .help = "osd pool delete is refused unless this is true" },
	[CONF_MON_ALLOW_POOL_SIZE_ONE] = {
	    .section = "mon", .name = "mon_allow_pool_size_one",
	    .type = CONF_BOOL, .def = "false", .runtime = 1,
	    .help = "osd pool set size 1 is refused unless this is true" },
	[CONF_MON_MAX_CONNECTIONS] = {
	    .section = "mon", .name = "max_connections", .type = CONF_INT,
	    .def = "1024", .min = 1, .max = 1000000,
	    .help = "client connections accepted at once; more are refused" },
	[CONF_MON_MAX_FRAME] = {
	    .section = "mon", .name = "max_frame", .type = CONF_SIZE,
	    .def = "64M", .min = 4 * KIB, .max = GIB, .runtime = 1,
	    .help = "largest frame a client may send; a larger one closes the "
		    "connection" },
	[CONF_MON_IDLE_TIMEOUT] = {
	    .section = "mon", .name = "idle_timeout", .type = CONF_DURATION,
	    .def = "15m", .min = 0, .max = DAY, .runtime = 1,
	    .help = "a connection silent for this long is closed (0: never)" },
	[CONF_MON_MAX_CLIENT_OUTPUT] = {
	    .section = "mon", .name = "max_client_output", .type = CONF_SIZE,
	    .def = "64M", .min = 64 * KIB, .max = 4 * GIB, .runtime = 1,
	    .help = "unsent output a connection may hold; a slower reader is "
		    "dropped" },
	[CONF_MON_MAX_PARTIAL_INPUT] = {
	    .section = "mon", .name = "max_partial_input", .type = CONF_SIZE,
	    .def = "256M", .min = 64 * KIB, .max = 64 * GIB, .runtime = 1,
	    .help = "partly received frames held for all connections; more "
		    "wait to be read" },
	[CONF_MON_REALTIME_PRIORITY] = {
	    .section = "mon", .name = "realtime_priority", .type = CONF_INT,
	    .def = "1", .min = 0, .max = 99,
	    .help = "SCHED_RR priority of the thread that answers every "
		    "request (0: none)" },

	/* [store] */
	[CONF_STORE_BACKEND] = {
	    .section = "store", .name = "backend", .type = CONF_ENUM,
	    .def = "lmdb", .choices = conf_backend_choices,
	    .help = "key-value store backend of a new store" },
	[CONF_STORE_SYNC] = {
	    .section = "store", .name = "sync", .type = CONF_ENUM,
	    .def = "commit", .choices = conf_sync_choices,
	    .help = "commit: flush each commit to disk; none: never (tests "
		    "only)" },

	/* [store.leveldb] */
	[CONF_STORE_LEVELDB_WRITE_BUFFER_SIZE] = {
	    .section = "store.leveldb", .name = "write_buffer_size",
	    .type = CONF_SIZE, .def = "32M", .min = 64 * KIB, .max = GIB,
	    .help = "LevelDB memtable size, written out as a table when full" },
	[CONF_STORE_LEVELDB_BLOCK_SIZE] = {
	    .section = "store.leveldb", .name = "block_size",
	    .type = CONF_SIZE, .def = "64K", .min = KIB, .max = 64 * MIB,
	    .help = "LevelDB table block size, the unit of reads and "
		    "compression" },
	[CONF_STORE_LEVELDB_CACHE_SIZE] = {
	    .section = "store.leveldb", .name = "cache_size",
	    .type = CONF_SIZE, .def = "64M", .min = 0, .max = 16 * GIB,
	    .help = "LevelDB block cache (0: LevelDB's own 8M default)" },
	[CONF_STORE_LEVELDB_COMPRESSION] = {
	    .section = "store.leveldb", .name = "compression",
	    .type = CONF_ENUM, .def = "none",
	    .choices = conf_compression_choices,
	    .help = "LevelDB block compression" },
	[CONF_STORE_LEVELDB_BLOOM_BITS] = {
	    .section = "store.leveldb", .name = "bloom_bits", .type = CONF_INT,
	    .def = "10", .min = 0, .max = 64,
	    .help = "LevelDB bloom filter bits per key (0: no filter)" },
	[CONF_STORE_LEVELDB_MAX_OPEN_FILES] = {
	    .section = "store.leveldb", .name = "max_open_files",
	    .type = CONF_INT, .def = "1000", .min = 16, .max = 65536,
	    .help = "table files LevelDB keeps open" },
	[CONF_STORE_LEVELDB_PARANOID_CHECKS] = {
	    .section = "store.leveldb", .name = "paranoid_checks",
	    .type = CONF_BOOL, .def = "false",
	    .help = "LevelDB checks every read and stops at the first "
		    "corruption" },
	[CONF_STORE_LEVELDB_COMPACT_ON_START] = {
	    .section = "store.leveldb", .name = "compact_on_start",
	    .type = CONF_BOOL, .def = "false",
	    .help = "compact the whole LevelDB store before loading it" },

	/* [store.lmdb] */
	[CONF_STORE_LMDB_MAP_SIZE] = {
	    .section = "store.lmdb", .name = "map_size", .type = CONF_SIZE,
	    .def = "1G", .min = MIB, .max = TIB,
	    .help = "initial LMDB map size, grown automatically when full" },
	[CONF_STORE_LMDB_MAX_READERS] = {
	    .section = "store.lmdb", .name = "max_readers", .type = CONF_INT,
	    .def = "126", .min = 1, .max = 65536,
	    .help = "LMDB reader slots, one per concurrent read snapshot" },
	[CONF_STORE_LMDB_WRITEMAP] = {
	    .section = "store.lmdb", .name = "writemap", .type = CONF_BOOL,
	    .def = "false",
	    .help = "commits write into the mapped file, which takes map_size "
		    "on disk" },

	/* [log] */
	[CONF_LOG_FILE] = {
	    .section = "log", .name = "file", .type = CONF_STRING, .def = "",
	    .runtime = 1,
	    .help = "log file; empty: stderr or the journal; syslog: "
		    "syslog(3)" },
	[CONF_LOG_MAX_RECENT] = {
	    .section = "log", .name = "max_recent", .type = CONF_INT,
	    .def = "10000", .min = 0, .max = 10000000,
	    .help = "entries of the in-memory ring dumped on a crash or by "
		    "mapmon log dump" },
	[CONF_LOG_DEBUG_MON] = CONF_DEBUG("mon", "the monitor core"),
	[CONF_LOG_DEBUG_OSD] = CONF_DEBUG("osd", "OSD boot, up, down, in, out"),
	[CONF_LOG_DEBUG_PG] = CONF_DEBUG("pg", "PG reports and states"),
	[CONF_LOG_DEBUG_COMMIT] = CONF_DEBUG("commit",
	    "the proposal and commit pipeline"),
	[CONF_LOG_DEBUG_STORE] = CONF_DEBUG("store", "the key-value store"),
	[CONF_LOG_DEBUG_NET] = CONF_DEBUG("net",
	    "connections and framing"),
	[CONF_LOG_DEBUG_CONF] = CONF_DEBUG("conf", "configuration loading"),
	[CONF_LOG_DEBUG_CLIENT] = CONF_DEBUG("client",
	    "client commands and subscriptions"),
	[CONF_LOG_DEBUG_EVENT] = CONF_DEBUG("event", "libevent's own messages"),

	/* [metrics] */
	[CONF_METRICS_BIND] = {
	    .section = "metrics", .name = "bind", .type = CONF_ADDRESS,
	    .def = "",
	    .help = "address of the Prometheus /metrics endpoint (empty: "
		    "off)" },

	/* [osd] */
	[CONF_OSD_BEACON_INTERVAL] = {
	    .section = "osd", .name = "beacon_interval",
	    .type = CONF_DURATION, .def = "5s", .min = 10, .max = HOUR,
	    .help = "how often an OSD sends its beacon (OSDs read it; the "
		    "monitor does not)" },
	/* [auth] */
	[CONF_AUTH_REQUIRED] = {
	    .section = "auth", .name = "required", .type = CONF_BOOL,
	    .def = "true",
	    .help = "every client must authenticate; off: one without a key "
		    "may do anything" },
	[CONF_AUTH_ALLOW_INSECURE] = {
	    .section = "auth", .name = "allow_insecure", .type = CONF_BOOL,
	    .def = "false",
	    .help = "let a non-loopback bind run without auth (warns; "
		    "AUTH_INSECURE)" },
	[CONF_AUTH_KEYRING] = {
	    .section = "auth", .name = "keyring", .type = CONF_STRING,
	    .def = "/etc/mapmon/client.admin.keyring",
	    .help = "where mapmond --mkfs writes the client.admin keyring "
		    "(mode 0600)" },
	[CONF_AUTH_FAIL_DELAY] = {
	    .section = "auth", .name = "fail_delay", .type = CONF_DURATION,
	    .def = "200ms", .min = 0, .max = 10 * SEC, .runtime = 1,
	    .help = "delay of an address's next attempt after a failure, "
		    "doubled per failure" },
	[CONF_AUTH_FAIL_DELAY_MAX] = {
	    .section = "auth", .name = "fail_delay_max",
	    .type = CONF_DURATION, .def = "10s", .min = 0, .max = 10 * MINUTE,
	    .runtime = 1,
	    .help = "the longest delay after failed attempts from one "
		    "address" },

	/* [net] */
	[CONF_NET_TLS_CERT] = {
	    .section = "net", .name = "tls_cert", .type = CONF_STRING,
	    .def = "",
	    .help = "the monitor's TLS certificate chain, PEM (empty: no "
		    "TLS)" },
	[CONF_NET_TLS_KEY] = {
	    .section = "net", .name = "tls_key", .type = CONF_STRING,
	    .def = "",
	    .help = "the private key of tls_cert, PEM" },
	[CONF_NET_TLS_CA] = {
	    .section = "net", .name = "tls_ca", .type = CONF_STRING,
	    .def = "",
	    .help = "the CA that signed the monitors' certificates (clients "
		    "check with it)" },
};
/* clang-format on */
