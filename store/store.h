/*
 * store.h: the key-value store under the monitor: what its users call to
 * open a store, read, write in batches, iterate and name keys.  The
 * backends' interface is store/store_backend.h (store/ only); the fault
 * injection that tests use is store/store_test.h (tests only).
 *
 * Conventions (those of common/mapmon.h, made precise for the store):
 *
 *  1. Every function that can fail returns an int: 0 on success, a negative
 *     STORE_E_* value on failure, and for lookups STORE_NOTFOUND (positive)
 *     when the key is absent.  Not-found is a result, never an error: it sets
 *     no cause.  Functions returning a pointer return NULL on failure and
 *     hand the kind of error out through an `int *error` where one is asked.
 *  2. A failing function that takes `char **cause` stores there a one-line
 *     message (xasprintf'd, the caller frees it) naming the store's path and,
 *     where there is one, the key (escaped as store_key_escape() does).  The
 *     cause may be NULL when the caller does not want the message.
 *  3. No errno value is ever returned.  The kinds are kept apart so that the
 *     monitor can answer its clients: STORE_E_NOSPC -> ENOSPC, STORE_E_IO ->
 *     EIO, STORE_E_MAPFULL (LMDB, growth off) -> ENOSPC.
 *  4. Keys are 1 to STORE_KEY_MAX bytes, compared bytewise (memcmp, a shorter
 *     key first when one is a prefix of the other) by every backend.  Values
 *     are 0 bytes or more with no limit in the store.  Both may hold NUL.
 *  5. Key prefix byte 0x00 belongs to the store layer (its format record
 *     "\x00format", u32 big-endian).  Every other prefix is the caller's.
 *  6. Threads: one thread may commit while others read (get, iterators,
 *     stat) at the same time.  Readers never wait for a commit's fsync.
 *     Iterators hold a snapshot (LMDB: a read transaction) and must be freed
 *     promptly, never kept across event-loop iterations, on the thread that
 *     made them; never commit from a thread that holds one (LevelDB: an
 *     iterator holds the read lock that a reopen after a failed write
 *     waits for).
 *  7. Memory handed out by a get is the caller's (free()); memory handed out
 *     by an iterator belongs to the iterator and is valid until the next call.
 */
#ifndef STORE_H
#define STORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/mapmon.h"

/* A lookup found no such key (a result, not an error). */
#define STORE_NOTFOUND 1

/* The store's own error kinds; every one is negative. */
enum store_error {
	STORE_E_IO = -1,	/* the backend or the filesystem failed */
	STORE_E_NOSPC = -2,	/* no space left on the device */
	STORE_E_MAPFULL = -3,	/* LMDB map full and growth is off */
	STORE_E_CORRUPT = -4,	/* a record or the backend's files are corrupt */
	STORE_E_LOCKED = -5,	/* another process holds the store */
	STORE_E_VERSION = -6,	/* the store's format is newer than ours */
	STORE_E_MISSING = -7,	/* no store at that path */
	STORE_E_INVAL = -8,	/* bad argument: key size, backend name, ... */
	STORE_E_NOTSUP = -9,	/* not supported by this backend */
	STORE_E_EXISTS = -10,	/* STORE_CREATE on a path that holds a store */
};

#define STORE_KEY_MAX 511	/* LMDB's limit, applied to every backend */
#define STORE_FORMAT 1		/* the format version this code writes */
#define STORE_FORMAT_KEY "\0format"
#define STORE_FORMAT_KEYLEN 7
#define STORE_LOCK_FILE "mapmon.lock"

/* Flags for store_open(). */
#define STORE_CREATE 0x1	/* make a new empty store; refuse an existing one */

enum store_sync {
	STORE_SYNC_COMMIT = 0,	/* every commit is durable when it returns */
	STORE_SYNC_NONE = 1,	/* no fsync at all (tests only) */
};

enum store_compression {
	STORE_COMPRESSION_NONE = 0,
	STORE_COMPRESSION_SNAPPY = 1,
};

/*
 * Options, filled by the caller (from [store], [store.leveldb] and
 * [store.lmdb]); start from store_options_defaults().  The strings are
 * borrowed for the duration of store_open() only.
 */
struct store_options {
	const char *backend;	/* "lmdb", "leveldb"; NULL: recognise it */
	enum store_sync sync;
	struct {
		size_t write_buffer_size;
		size_t block_size;
		size_t cache_size;	/* LRU block cache, bytes; 0: none */
		enum store_compression compression;
		int bloom_bits;		/* bits per key; 0: no bloom filter */
		int max_open_files;
		int paranoid_checks;
		int compact_on_start;
	} leveldb;
	struct {
		uint64_t map_size;	/* initial map size, bytes */
		unsigned int max_readers;
		int grow;		/* grow the map when full (default 1) */
		int writemap;		/* MDB_WRITEMAP, the map reserved */
	} lmdb;
};

/* Fill *opts with the defaults (backend NULL: recognise it at open). */
void store_options_defaults(struct store_options *opts);

/* What store_stat() reports. */
struct store_stats {
	const char *backend;	/* static name */
	uint64_t disk_bytes;	/* sum of the regular files in the directory */
	int64_t records;	/* number of records, or -1 when not cheap */
	uint64_t map_size;	/* LMDB: current map size; else 0 */
	uint64_t map_used;	/* LMDB: bytes of the map in use; else 0 */
	uint64_t map_grown;	/* LMDB: times the map grew since open */
	char *text;		/* backend's own statistics text; may be NULL */
};

struct store;
struct store_iter;
struct store_batch;

/* The error kind's one-word-ish description ("no space left", ...). */
const char *store_strerror(int error);

/*
 * The compiled-in backends, comma separated ("lmdb, leveldb"); static.
 */
const char *store_backend_names(void);

/* Non-zero when a backend of that name is compiled in. */
int store_backend_known(const char *name);

/*
 * The backend whose files are in directory path (LMDB: data.mdb; LevelDB:
 * CURRENT), as a static name, or NULL when none is recognised.
 */
const char *store_detect(const char *path);

/*
 * Open the store in directory path.
 *
 * Without STORE_CREATE the store must exist: STORE_E_MISSING when the
 * directory holds no store.  The backend is recognised from the files;
 * opts->backend, when set, must name the same one (STORE_E_INVAL otherwise).
 * With STORE_CREATE the directory is made (mode 0700) and a new store of
 * opts->backend (required) is written with the format record; a path that
 * already holds a store is STORE_E_EXISTS.
 *
 * Only one process opens a store at a time: the lock file mapmon.lock in
 * the directory is held (flock) while it is open, with the holder's pid
 * written in it; a second open (in any process, this one too) gets
 * STORE_E_LOCKED "PATH: store is in use by process PID".  A store whose
 * format record is newer than STORE_FORMAT is STORE_E_VERSION, one whose
 * format record is missing or malformed is STORE_E_CORRUPT.  An unknown
 * backend name is STORE_E_INVAL listing store_backend_names().
 *
 * Returns 0 and sets *storep (free with store_close()), or an error.
 */
int store_open(const char *path, const struct store_options *opts, int flags,
    struct store **storep, char **cause);

/* Close the store and release its lock.  NULL is allowed. */
void store_close(struct store *store);

/* The path it was opened with, and the backend's static name. */
const char *store_path(const struct store *store);
const char *store_backend_name(const struct store *store);

/*
 * Look key up.  Returns 0 with *val (malloc'd, the caller frees it with
 * free(); never NULL, even for an empty value) and *vlen set,
 * STORE_NOTFOUND, or an error.  Safe while another thread commits.
 */
int store_get(struct store *store, const void *key, size_t klen, void **val,
    size_t *vlen, char **cause);

/*
 * A batch: operations collected in memory (the bytes are copied) and
 * applied atomically by store_commit(), in order, later operations winning
 * over earlier ones: a put after a delete_range of the same key stands, a
 * put before it is deleted.  Building a batch never fails; bad keys are
 * reported by store_commit().
 */
struct store_batch *store_batch_new(void);
void store_batch_free(struct store_batch *b);
/* Forget every operation; the batch can be used again. */
void store_batch_clear(struct store_batch *b);
void store_batch_put(struct store_batch *b, const void *key, size_t klen,
    const void *val, size_t vlen);
/*
 * A put whose value is written at commit time instead of copied now, so
 * that a large batch does not hold its values twice (once in the caller's
 * structures, once in the batch): fn(arg, out) appends exactly vlen bytes
 * to out (an empty buffer owned by the batch).  fn is called on the
 * committing thread while store_commit() runs, once per try (LMDB tries
 * again after growing a full map), and must write the same bytes each
 * time and never fail.  arg is borrowed: it must stay valid and unchanged
 * until the batch is cleared, freed, or committed for the last time.
 */
struct enc_buf;
typedef void store_value_fn(const void *arg, struct enc_buf *out);
void store_batch_put_fn(struct store_batch *b, const void *key, size_t klen,
    size_t vlen, store_value_fn *fn, const void *arg);
void store_batch_delete(struct store_batch *b, const void *key, size_t klen);
/*
 * Delete every key k with lo <= k < hi.  lo NULL (or lolen 0): from the
 * first key; hi NULL: to the last.  lo >= hi deletes nothing.
 */
void store_batch_delete_range(struct store_batch *b, const void *lo,
    size_t lolen, const void *hi, size_t hilen);
/*
 * Number of operations, and bytes of keys and values (a store_batch_put_fn
 * value counts its vlen).
 */
size_t store_batch_count(const struct store_batch *b);
size_t store_batch_bytes(const struct store_batch *b);

/*
 * Apply the batch atomically: every operation or none is visible, to
 * readers and after a crash.  With sync = commit the batch is on disk when
 * this returns 0.  Errors: STORE_E_INVAL (a key of 0 or more than
 * STORE_KEY_MAX bytes; nothing is written), STORE_E_NOSPC, STORE_E_IO,
 * STORE_E_MAPFULL (LMDB with growth off).  On LMDB a full map is grown
 * (doubled) and the transaction retried.  One thread commits at a time.
 */
int store_commit(struct store *store, const struct store_batch *b,
    char **cause);

/*
 * An ordered iterator over the keys lo <= k < hi of one consistent
 * snapshot: commits made after store_iter_new() are not seen.  lo NULL (or
 * lolen 0): from the first key; hi NULL: to the last.  Returns NULL on
 * error (cause set).  Free it promptly with store_iter_free().
 */
struct store_iter *store_iter_new(struct store *store, const void *lo,
    size_t lolen, const void *hi, size_t hilen, char **cause);
/*
 * The next record: 1 with *key, *klen, *val, *vlen set (memory owned by the
 * iterator, valid until the next call: LMDB hands out pointers into the
 * map, no copy), 0 at the end, or an error (then store_iter_cause()).
 */
int store_iter_next(struct store_iter *it, const void **key, size_t *klen,
    const void **val, size_t *vlen);
/* The message of the last error of store_iter_next(), or NULL; borrowed. */
const char *store_iter_cause(const struct store_iter *it);
void store_iter_free(struct store_iter *it);

/* The sum of the regular files' sizes in directory path (0 if none). */
uint64_t store_dir_bytes(const char *path);

/*
 * Statistics into *st (free its text with store_stats_free()).  disk_bytes
 * counts the files in the store's directory.
 */
int store_stat(struct store *store, struct store_stats *st, char **cause);
void store_stats_free(struct store_stats *st);

/*
 * Compact the keys lo <= k < hi (NULL bounds as in store_iter_new()) so
 * that deleted records give their space back.  LevelDB compacts the range;
 * LMDB reuses freed pages in place and has nothing to do (returns 0): its
 * file shrinks only through store_compact_copy() and store_compact_swap().
 */
int store_compact(struct store *store, const void *lo, size_t lolen,
    const void *hi, size_t hilen, char **cause);

/*
 * Compaction by copy, for a backend whose files never shrink (LMDB: freed
 * pages are reused but the file keeps its largest size), used offline by
 * `mapmon-store compact` (mapmon-store(8)).
 *
 * store_compact_copy: write a compacted copy of every record of store
 * (LMDB: mdb_env_copy2() with MDB_CP_COMPACT: only the pages in use,
 * renumbered) into the new directory dir (made with mode 0700; it must
 * not exist: STORE_E_EXISTS), its files synced.  The copy is a store that
 * store_open() opens (to verify it) and then closes again.  On failure dir
 * is removed, and store is untouched.
 *
 * store_compact_swap: put the copy in dir in place of store's files and
 * go on with it: the data file renamed over store's (one atomic rename,
 * then the directory synced), the store reopened; dir is removed, in
 * every case.  The
 * store's lock is held throughout, so no other process sees it between.
 * Refused (STORE_E_INVAL, nothing changed) when store_compact_copy() did
 * not make a copy of store or store was written since: the copy would
 * lose those records.  An error before the rename leaves store as it was;
 * after it (the message says the copy could not be
 * opened), the store holds the copy and must be closed.
 *
 * Both return STORE_E_NOTSUP (with a cause) for a backend that compacts
 * in place (LevelDB: store_compact()).  No iterator may be open.
 */
int store_compact_copy(struct store *store, const char *dir, char **cause);
int store_compact_swap(struct store *store, const char *dir, char **cause);

/*
 * Copy every record of src into dst (any backends), in batches of bounded
 * size, each committed atomically.  progress, when not NULL, is called
 * after each batch with the records copied so far and the total (or -1
 * when the source cannot count cheaply).  Records of the store layer's own
 * prefix are copied too; the format records match since both opened.
 */
typedef void (*store_progress_cb)(uint64_t done, int64_t total, void *arg);
int store_copy(struct store *src, struct store *dst, store_progress_cb progress,
    void *arg, char **cause);

/*
 * Keys and records (store_key.c).
 *
 * store_key_escape: key bytes as text for messages and dumps: the bytes
 * 0x21..0x7e other than '\' as they are, '\' as "\\", every other byte as
 * "\xNN".  The result is malloc'd (the caller frees it).
 *
 * store_key_unescape: the reverse; accepts what store_key_escape writes
 * (and any printable byte as itself).  Returns 0 with *out (malloc'd) and
 * *outlen, or STORE_E_INVAL with a cause for a bad escape.
 */
char *store_key_escape(const void *key, size_t klen);
int store_key_unescape(const char *text, uint8_t **out, size_t *outlen,
    char **cause);

/*
 * A key of a record kind: a prefix byte then fixed-width big-endian numbers
 * (enc.h), so byte order is numeric order.
 */
struct store_key {
	uint8_t data[64];
	size_t len;
};
void store_key_init(struct store_key *k, uint8_t prefix);
void store_key_u32(struct store_key *k, uint32_t v);
void store_key_u64(struct store_key *k, uint64_t v);

/* memcmp order over byte strings of different lengths. */
int store_key_cmp(const void *a, size_t alen, const void *b, size_t blen);

/*
 * A corrupt record's error: sets *cause (if not NULL) to "PATH: corrupt
 * record KEY: WHY", the key escaped as store_key_escape() does, WHY
 * formatted from fmt, and no "PATH: " when path is NULL; returns
 * STORE_E_CORRUPT.  store_meta_check() names the store layer's records
 * through it, and a caller that decodes its own records names them through
 * it too, so that every corrupt record is reported the same way.
 */
int store_key_corrupt(char **cause, const char *path, const void *key,
    size_t klen, const char *fmt, ...) printflike(5, 6);

/*
 * Decode the store layer's own record (key prefix 0x00): 0 when it is
 * well formed, STORE_E_CORRUPT (naming the key) when not, STORE_NOTFOUND
 * when the key is not one the store layer knows.  Used by verify.
 */
int store_meta_check(const void *key, size_t klen, const void *val,
    size_t vlen, char **cause);

#endif /* STORE_H */
