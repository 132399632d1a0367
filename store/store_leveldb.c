/*
 * store_leveldb.c: the LevelDB backend (through its C API).
 *
 * Reopening after a failed write.  LevelDB keeps some write errors for
 * good: a failed memtable flush or compaction, or a failed sync of the
 * log, is stored in the DB (DBImpl::bg_error_) and every later write
 * returns it until the DB is closed and opened again, even once the disk
 * has room.  A failed append to the log without sync is not kept, but it
 * is no better: the log writer has counted the whole record while only
 * part of it reached the file, so the records written after it no longer
 * sit where the block format says, and the next recovery may drop them as
 * corrupt, acknowledged commits included.  So after any failed write the
 * handle is marked broken, and the next commit first closes the DB and
 * opens it again with the same options; the reopen replays the log, whose
 * torn last record is dropped as after a crash, and starts a new log.
 * Nothing committed is lost: the torn record is the batch that failed.
 *
 * The reopen writes the replayed log out as a table, so it needs free
 * space.  While the filesystem plainly lacks it (statvfs, against the
 * size of the logs), the old DB stays open for reads and the commit fails
 * again with STORE_E_NOSPC; the monitor's retry comes back.  Should the
 * open still fail, the handle keeps no DB (db NULL) until a later commit
 * opens it: reads then fail with STORE_E_IO naming the reason, never
 * touching a closed DB.
 *
 * Threads.  One thread commits (store.c serialises commits) and is the
 * only one to swap db; get, iterators, stat and compact may run on other
 * threads at the same time.  The rwlock guards db: the reopen holds it for
 * writing, and every reader holds it for reading while it uses db.  An
 * iterator holds it for reading from store_iter_new() to store_iter_free(),
 * since its LevelDB iterator and snapshot belong to the DB it came from;
 * so, as store.h asks anyway, free an iterator promptly, on the thread
 * that made it, and never commit to the store while holding one of its
 * iterators (the commit may need the write lock: a deadlock).  In the
 * monitor iterators live only during the cold start and in the offline
 * tool.  The lock prefers readers (glibc's default, made explicit), so a
 * thread may take it for reading again while a reopen waits, and a
 * reader waits only for a reopen in progress (a close and an open: the
 * replay of one log), which happens once per disk-full episode.
 */
#include "config.h"

#include <sys/statvfs.h>

#include <dirent.h>
#include <leveldb/c.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "store/store_backend.h"

struct store_leveldb {
	leveldb_t *db;			/* NULL after a failed reopen */
	leveldb_options_t *options;
	leveldb_cache_t *cache;
	leveldb_filterpolicy_t *filter;
	leveldb_readoptions_t *ropts;	/* gets: read-only, shared */
	leveldb_writeoptions_t *wopts;
	leveldb_writebatch_t *wb;	/* the committer's, reused */
	char *path;

	pthread_rwlock_t lock;		/* readers of db; reopen writes */
	/* Written under the write lock by the committer; read under lock. */
	char *broken;			/* the failed write's error */
	char *open_error;		/* why db is NULL */
	uint64_t reopens;		/* successful reopens */
};

struct store_leveldb_iter {
	struct store_leveldb *db;
	const leveldb_snapshot_t *snap;
	leveldb_readoptions_t *ropts;
	leveldb_iterator_t *it;
	uint8_t *lo;
	size_t lolen;
	int started;
};

/*
 * LevelDB reports errors as Status strings ("IO error: ...", "Corruption:
 * ...", "Invalid argument: ...", "Not implemented: ..."), with the
 * system's strerror inside for I/O.  The kind is read from those words:
 * ENOSPC's text first, then the Status prefix; anything else is I/O.
 */
static int
store_leveldb_kind(const char *err)
{
	if (strstr(err, "No space left on device") != NULL ||
	    strstr(err, "Disk quota exceeded") != NULL)
		return STORE_E_NOSPC;
	if (strncmp(err, "Corruption:", 11) == 0)
		return STORE_E_CORRUPT;
	if (strncmp(err, "Not implemented:", 16) == 0)
		return STORE_E_NOTSUP;
	if (strstr(err, "does not exist (create_if_missing is false)") != NULL)
		return STORE_E_MISSING;
	if (strstr(err, "exists (error_if_exists is true)") != NULL)
		return STORE_E_EXISTS;
	if (strncmp(err, "Invalid argument:", 17) == 0)
		return STORE_E_INVAL;
	if (strstr(err, "already held by process") != NULL)
		return STORE_E_LOCKED;
	return STORE_E_IO;
}

/* Turn err (freed here) into a kind and a cause. */
static int
store_leveldb_error(const char *path, char *err, const char *what,
    char **cause)
{
	int kind = store_leveldb_kind(err);

	if (cause != NULL)
		xasprintf(cause, "%s: %s: %s", path, what, err);
	leveldb_free(err);
	return kind;
}

static void
store_leveldb_free(struct store_leveldb *db)
{
	if (db->db != NULL)
		leveldb_close(db->db);
	if (db->wb != NULL)
		leveldb_writebatch_destroy(db->wb);
	if (db->ropts != NULL)
		leveldb_readoptions_destroy(db->ropts);
	if (db->wopts != NULL)
		leveldb_writeoptions_destroy(db->wopts);
	if (db->options != NULL)
		leveldb_options_destroy(db->options);
	if (db->filter != NULL)
		leveldb_filterpolicy_destroy(db->filter);
	if (db->cache != NULL)
		leveldb_cache_destroy(db->cache);
	pthread_rwlock_destroy(&db->lock);
	free(db->broken);
	free(db->open_error);
	free(db->path);
	free(db);
}

static int
store_leveldb_open(const char *path, const struct store_options *opts,
    int create, void **handle, char **cause)
{
	struct store_leveldb *db;
	pthread_rwlockattr_t attr;
	char *err = NULL;
	int error;

	db = xcalloc(1, sizeof *db);
	db->path = xstrdup(path);
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_READER_NP);
	pthread_rwlock_init(&db->lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	db->options = leveldb_options_create();
	leveldb_options_set_create_if_missing(db->options, create);
	leveldb_options_set_error_if_exists(db->options, create);
	leveldb_options_set_paranoid_checks(db->options,
	    opts->leveldb.paranoid_checks != 0);
	if (opts->leveldb.write_buffer_size > 0)
		leveldb_options_set_write_buffer_size(db->options,
		    opts->leveldb.write_buffer_size);
	if (opts->leveldb.block_size > 0)
		leveldb_options_set_block_size(db->options,
		    opts->leveldb.block_size);
	if (opts->leveldb.max_open_files > 0)
		leveldb_options_set_max_open_files(db->options,
		    opts->leveldb.max_open_files);
	if (opts->leveldb.cache_size > 0) {
		db->cache = leveldb_cache_create_lru(opts->leveldb.cache_size);
		leveldb_options_set_cache(db->options, db->cache);
	}
	if (opts->leveldb.bloom_bits > 0) {
		db->filter = leveldb_filterpolicy_create_bloom(
		    opts->leveldb.bloom_bits);
		leveldb_options_set_filter_policy(db->options, db->filter);
	}
	leveldb_options_set_compression(db->options,
	    opts->leveldb.compression == STORE_COMPRESSION_SNAPPY ?
	    leveldb_snappy_compression : leveldb_no_compression);

	db->ropts = leveldb_readoptions_create();
	leveldb_readoptions_set_verify_checksums(db->ropts,
	    opts->leveldb.paranoid_checks != 0);
	db->wopts = leveldb_writeoptions_create();
	leveldb_writeoptions_set_sync(db->wopts,
	    opts->sync == STORE_SYNC_COMMIT);
	db->wb = leveldb_writebatch_create();

	db->db = leveldb_open(db->options, path, &err);
	if (err != NULL) {
		db->db = NULL;
		error = store_leveldb_error(path, err, "open", cause);
		store_leveldb_free(db);
		return error;
	}
	if (opts->leveldb.compact_on_start)
		leveldb_compact_range(db->db, NULL, 0, NULL, 0);
	*handle = db;
	return 0;
}

/*
 * At a clean close, write the memtable out to a table: otherwise the next
 * open replays the log into a new table before it returns, which made the
 * restart of a 221,568-PG store spend about 1 s in leveldb_open.  LevelDB
 * compacts the memtable first in any range compaction; a range past every
 * key (the monitor's prefixes are letters) compacts nothing else.
 */
static void
store_leveldb_close(void *handle)
{
	static const char past[] = "\xff\xff\xff\xff";
	struct store_leveldb *db = handle;

	if (db->db != NULL)
		leveldb_compact_range(db->db, past, sizeof past - 1, past,
		    sizeof past - 1);
	store_leveldb_free(db);
}

/*
 * A reader found no DB: a reopen failed and no commit has opened it since.
 * Called with the read lock held.
 */
static int
store_leveldb_closed(struct store_leveldb *db, const char *what, char **cause)
{
	if (cause != NULL)
		xasprintf(cause, "%s: %s: the database is closed: reopening it "
		    "after a failed write failed (%s); the next commit tries "
		    "again", db->path, what, db->open_error != NULL ?
		    db->open_error : "?");
	return STORE_E_IO;
}

static int
store_leveldb_get(void *handle, const void *key, size_t klen, void **val,
    size_t *vlen, char **cause)
{
	struct store_leveldb *db = handle;
	char *err = NULL, *v;
	size_t n = 0;

	pthread_rwlock_rdlock(&db->lock);
	if (db->db == NULL) {
		int error = store_leveldb_closed(db, "get", cause);

		pthread_rwlock_unlock(&db->lock);
		return error;
	}
	v = leveldb_get(db->db, db->ropts, key, klen, &n, &err);
	pthread_rwlock_unlock(&db->lock);
	if (err != NULL) {
		free(v);
		return store_leveldb_error(db->path, err, "get", cause);
	}
	/*
	 * The trap: leveldb_get says "not found" as NULL with no error set,
	 * and "failed" as NULL with an error; only the error tells them
	 * apart.  A found empty value is malloc(0), which glibc never makes
	 * NULL; it is replaced with a one-byte buffer either way.
	 */
	if (v == NULL)
		return STORE_NOTFOUND;
	if (n == 0) {
		leveldb_free(v);
		v = xmalloc(1);
	}
	*val = v;
	*vlen = n;
	return 0;
}

/* Delete keys lo <= k < hi: those stored now, and earlier puts of b. */
static void
store_leveldb_delete_range(struct store_leveldb *db,
    const struct store_batch *b, size_t upto, const struct store_op *range)
{
	leveldb_readoptions_t *ropts;
	leveldb_iterator_t *it;
	struct store_op op;
	const char *k;
	size_t klen, i;

	ropts = leveldb_readoptions_create();
	leveldb_readoptions_set_fill_cache(ropts, 0);
	it = leveldb_create_iterator(db->db, ropts);
	if (range->key != NULL)
		leveldb_iter_seek(it, (const char *)range->key, range->klen);
	else
		leveldb_iter_seek_to_first(it);
	for (; leveldb_iter_valid(it); leveldb_iter_next(it)) {
		k = leveldb_iter_key(it, &klen);
		if (range->val != NULL &&
		    store_key_cmp(k, klen, range->val, range->vlen) >= 0)
			break;
		leveldb_writebatch_delete(db->wb, k, klen);
	}
	leveldb_iter_destroy(it);
	leveldb_readoptions_destroy(ropts);

	for (i = 0; i < upto; i++) {
		store_batch_op_key(b, i, &op);
		if (op.type != STORE_OP_PUT)
			continue;
		if (range->key != NULL &&
		    store_key_cmp(op.key, op.klen, range->key, range->klen) < 0)
			continue;
		if (range->val != NULL &&
		    store_key_cmp(op.key, op.klen, range->val, range->vlen) >= 0)
			continue;
		leveldb_writebatch_delete(db->wb, (const char *)op.key, op.klen);
	}
}

/* Bytes in the store's files whose name ends in suffix. */
static uint64_t
store_leveldb_bytes(const char *path, const char *suffix)
{
	struct dirent *de;
	struct stat sb;
	DIR *dir;
	char *file;
	size_t len, slen = strlen(suffix);
	uint64_t total = 0;

	if ((dir = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		len = strlen(de->d_name);
		if (len < slen || strcmp(de->d_name + len - slen, suffix) != 0)
			continue;
		xasprintf(&file, "%s/%s", path, de->d_name);
		if (stat(file, &sb) == 0 && S_ISREG(sb.st_mode))
			total += (uint64_t)sb.st_size;
		free(file);
	}
	closedir(dir);
	return total;
}

/*
 * Whether the filesystem plainly lacks the room a reopen needs: the open
 * writes the logs it replays out as a table (about their size; an eighth
 * more for the index and filters), writes a new MANIFEST and CURRENT, and
 * starts a new log: a few files (inodes) and a little more space.  0 when
 * there is room or statvfs cannot tell; else STORE_E_NOSPC with a cause.
 */
#define STORE_LEVELDB_REOPEN_FILES 8
#define STORE_LEVELDB_REOPEN_SLACK (64 << 10)

static int
store_leveldb_room(struct store_leveldb *db, char **cause)
{
	struct statvfs sv;
	uint64_t need, avail;

	if (statvfs(db->path, &sv) == -1)
		return 0;
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	need = store_leveldb_bytes(db->path, ".log");
	need += need / 8 + STORE_LEVELDB_REOPEN_SLACK;
	if (avail < need) {
		if (cause != NULL)
			xasprintf(cause, "%s: commit: reopening the database "
			    "after a failed write (%s) waits for free space: "
			    "%llu bytes free, about %llu needed", db->path,
			    db->broken, (unsigned long long)avail,
			    (unsigned long long)need);
		return STORE_E_NOSPC;
	}
	/* f_files 0: the filesystem counts no inodes. */
	if (sv.f_files != 0 && sv.f_favail < STORE_LEVELDB_REOPEN_FILES) {
		if (cause != NULL)
			xasprintf(cause, "%s: commit: reopening the database "
			    "after a failed write (%s) waits for free inodes: "
			    "%llu free, %d needed", db->path, db->broken,
			    (unsigned long long)sv.f_favail,
			    STORE_LEVELDB_REOPEN_FILES);
		return STORE_E_NOSPC;
	}
	return 0;
}

/*
 * Close the DB and open it again with the same options, to clear the
 * error a failed write left in it (see the top of the file).  The
 * committer calls it, with no iterator of its own open.  On failure the
 * handle stays broken (and keeps the old DB when it was not closed) and
 * the next commit tries again.
 */
static int
store_leveldb_reopen(struct store_leveldb *db, char **cause)
{
	leveldb_t *ldb;
	char *err = NULL, *why;
	int error;

	/* Keep the old DB for readers until the open has a chance. */
	if (db->db != NULL && (error = store_leveldb_room(db, cause)) != 0)
		return error;

	/* The store exists: never create, never refuse it as existing. */
	leveldb_options_set_create_if_missing(db->options, 0);
	leveldb_options_set_error_if_exists(db->options, 0);

	pthread_rwlock_wrlock(&db->lock);
	if (db->db != NULL) {
		leveldb_close(db->db);
		db->db = NULL;
	}
	ldb = leveldb_open(db->options, db->path, &err);
	if (err != NULL) {
		/* Say it once per distinct error, not at every retry. */
		if (db->open_error == NULL || strcmp(db->open_error, err) != 0)
			log_warnx("%s: reopening LevelDB after a failed write "
			    "(%s) failed: %s; reads fail until a commit opens "
			    "it", db->path, db->broken, err);
		free(db->open_error);
		db->open_error = xstrdup(err);
		pthread_rwlock_unlock(&db->lock);
		/* The commit's kinds: only space or I/O. */
		error = store_leveldb_kind(err) == STORE_E_NOSPC ?
		    STORE_E_NOSPC : STORE_E_IO;
		if (cause != NULL)
			xasprintf(cause, "%s: commit: reopening the database "
			    "after a failed write (%s): %s", db->path,
			    db->broken, err);
		leveldb_free(err);
		return error;
	}
	db->db = ldb;
	db->reopens++;
	why = db->broken;
	db->broken = NULL;
	free(db->open_error);
	db->open_error = NULL;
	pthread_rwlock_unlock(&db->lock);
	log_info("%s: LevelDB reopened after a failed write (%s)", db->path,
	    why);
	free(why);
	return 0;
}

/*
 * A write failed: mark the handle broken (every failed write, see the top
 * of the file), keeping the first error for the messages.
 */
static void
store_leveldb_broken(struct store_leveldb *db, const char *err)
{
	if (db->broken != NULL)
		return;
	pthread_rwlock_wrlock(&db->lock);
	db->broken = xstrdup(err);
	pthread_rwlock_unlock(&db->lock);
	log_warnx("%s: LevelDB write failed (%s); the database is reopened "
	    "before the next commit", db->path, err);
}

/*
 * LevelDB 1.23's C API has no DeleteRange: a range is turned into one
 * delete per key while the write batch is built.  The generic layer lets
 * one commit run at a time, so no other writer adds keys to the range
 * between that walk and the write.  The committer uses db without the
 * lock: it is the only thread that changes it.
 */
static int
store_leveldb_commit(void *handle, const struct store_batch *b, char **cause)
{
	struct store_leveldb *db = handle;
	struct store_op op;
	size_t i, n = store_batch_count(b);
	char *err = NULL;
	int error;

	if ((db->broken != NULL || db->db == NULL) &&
	    (error = store_leveldb_reopen(db, cause)) != 0)
		return error;

	leveldb_writebatch_clear(db->wb);
	for (i = 0; i < n; i++) {
		store_batch_op(b, i, &op);
		switch (op.type) {
		case STORE_OP_PUT:
			leveldb_writebatch_put(db->wb, (const char *)op.key,
			    op.klen, (const char *)op.val, op.vlen);
			break;
		case STORE_OP_DELETE:
			leveldb_writebatch_delete(db->wb, (const char *)op.key,
			    op.klen);
			break;
		case STORE_OP_DELETE_RANGE:
			store_leveldb_delete_range(db, b, i, &op);
			break;
		}
	}
	leveldb_write(db->db, db->wopts, db->wb, &err);
	leveldb_writebatch_clear(db->wb);
	if (err != NULL) {
		store_leveldb_broken(db, err);
		return store_leveldb_error(db->path, err, "commit", cause);
	}
	return 0;
}

/* The iterator keeps the read lock until store_leveldb_iter_free(). */
static int
store_leveldb_iter_new(void *handle, const void *lo, size_t lolen,
    void **ith, char **cause)
{
	struct store_leveldb *db = handle;
	struct store_leveldb_iter *it;
	int error;

	pthread_rwlock_rdlock(&db->lock);
	if (db->db == NULL) {
		error = store_leveldb_closed(db, "iterating", cause);
		pthread_rwlock_unlock(&db->lock);
		return error;
	}
	it = xcalloc(1, sizeof *it);
	it->db = db;
	it->snap = leveldb_create_snapshot(db->db);
	it->ropts = leveldb_readoptions_create();
	leveldb_readoptions_set_snapshot(it->ropts, it->snap);
	/* A long scan should not push the hot blocks out of the cache. */
	leveldb_readoptions_set_fill_cache(it->ropts, 0);
	it->it = leveldb_create_iterator(db->db, it->ropts);
	if (lo != NULL) {
		it->lo = xmalloc(lolen);
		memcpy(it->lo, lo, lolen);
		it->lolen = lolen;
	}
	*ith = it;
	return 0;
}

static int
store_leveldb_iter_next(void *ith, const void **key, size_t *klen,
    const void **val, size_t *vlen, char **cause)
{
	struct store_leveldb_iter *it = ith;
	char *err = NULL;

	if (!it->started) {
		it->started = 1;
		if (it->lo != NULL)
			leveldb_iter_seek(it->it, (const char *)it->lo,
			    it->lolen);
		else
			leveldb_iter_seek_to_first(it->it);
	} else
		leveldb_iter_next(it->it);
	if (!leveldb_iter_valid(it->it)) {
		leveldb_iter_get_error(it->it, &err);
		if (err != NULL)
			return store_leveldb_error(it->db->path, err,
			    "iterating", cause);
		return 0;
	}
	*key = leveldb_iter_key(it->it, klen);
	*val = leveldb_iter_value(it->it, vlen);
	return 1;
}

static void
store_leveldb_iter_free(void *ith)
{
	struct store_leveldb_iter *it = ith;
	struct store_leveldb *db = it->db;

	leveldb_iter_destroy(it->it);
	leveldb_readoptions_destroy(it->ropts);
	leveldb_release_snapshot(db->db, it->snap);
	free(it->lo);
	free(it);
	pthread_rwlock_unlock(&db->lock);
}

static int
store_leveldb_stat(void *handle, struct store_stats *st,
    mapmon_unused char **cause)
{
	struct store_leveldb *db = handle;
	char *stats = NULL, *mem = NULL, *state;

	/* LevelDB keeps no record count; counting would be a full scan. */
	st->records = -1;
	pthread_rwlock_rdlock(&db->lock);
	if (db->db != NULL) {
		stats = leveldb_property_value(db->db, "leveldb.stats");
		mem = leveldb_property_value(db->db,
		    "leveldb.approximate-memory-usage");
	}
	if (db->db == NULL)
		xasprintf(&state, "closed: reopening after a failed write "
		    "(%s) failed: %s\n", db->broken != NULL ? db->broken : "?",
		    db->open_error != NULL ? db->open_error : "?");
	else if (db->broken != NULL)
		xasprintf(&state, "a write failed (%s): to be reopened "
		    "before the next commit\n", db->broken);
	else
		state = xstrdup("");
	xasprintf(&st->text, "%s%sreopens after a failed write: %llu\n"
	    "approximate memory usage: %s bytes", state,
	    stats != NULL ? stats : "", (unsigned long long)db->reopens,
	    mem != NULL ? mem : "?");
	pthread_rwlock_unlock(&db->lock);
	free(state);
	leveldb_free(stats);
	leveldb_free(mem);
	return 0;
}

static int
store_leveldb_compact(void *handle, const void *lo, size_t lolen,
    const void *hi, size_t hilen, char **cause)
{
	struct store_leveldb *db = handle;
	int error = 0;

	pthread_rwlock_rdlock(&db->lock);
	if (db->db != NULL)
		leveldb_compact_range(db->db, lo, lo != NULL ? lolen : 0, hi,
		    hi != NULL ? hilen : 0);
	else
		error = store_leveldb_closed(db, "compact", cause);
	pthread_rwlock_unlock(&db->lock);
	return error;
}

const struct store_backend store_leveldb_backend = {
	.name = "leveldb",
	.marker = "CURRENT",
	.open = store_leveldb_open,
	.close = store_leveldb_close,
	.get = store_leveldb_get,
	.commit = store_leveldb_commit,
	.iter_new = store_leveldb_iter_new,
	.iter_next = store_leveldb_iter_next,
	.iter_free = store_leveldb_iter_free,
	.stat = store_leveldb_stat,
	.compact = store_leveldb_compact,
};
