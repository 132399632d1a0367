/* store_leveldb.c: the LevelDB backend (through its C API). */
#include "config.h"

#include <leveldb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "store/store.h"

struct store_leveldb {
	leveldb_t *db;
	leveldb_options_t *options;
	leveldb_cache_t *cache;
	leveldb_filterpolicy_t *filter;
	leveldb_readoptions_t *ropts;	/* gets: read-only, shared */
	leveldb_writeoptions_t *wopts;
	leveldb_writebatch_t *wb;	/* the committer's, reused */
	char *path;
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
	free(db->path);
	free(db);
}

static int
store_leveldb_open(const char *path, const struct store_options *opts,
    int create, void **handle, char **cause)
{
	struct store_leveldb *db;
	char *err = NULL;
	int error;

	db = xcalloc(1, sizeof *db);
	db->path = xstrdup(path);
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

static int
store_leveldb_get(void *handle, const void *key, size_t klen, void **val,
    size_t *vlen, char **cause)
{
	struct store_leveldb *db = handle;
	char *err = NULL, *v;
	size_t n = 0;

	v = leveldb_get(db->db, db->ropts, key, klen, &n, &err);
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
		store_batch_op(b, i, &op);
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

/*
 * LevelDB 1.23's C API has no DeleteRange: a range is turned into one
 * delete per key while the write batch is built.  The generic layer lets
 * one commit run at a time, so no other writer adds keys to the range
 * between that walk and the write.
 */
static int
store_leveldb_commit(void *handle, const struct store_batch *b, char **cause)
{
	struct store_leveldb *db = handle;
	struct store_op op;
	size_t i, n = store_batch_count(b);
	char *err = NULL;

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
	if (err != NULL)
		return store_leveldb_error(db->path, err, "commit", cause);
	return 0;
}

static int
store_leveldb_iter_new(void *handle, const void *lo, size_t lolen,
    void **ith, mapmon_unused char **cause)
{
	struct store_leveldb *db = handle;
	struct store_leveldb_iter *it;

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

	leveldb_iter_destroy(it->it);
	leveldb_readoptions_destroy(it->ropts);
	leveldb_release_snapshot(it->db->db, it->snap);
	free(it->lo);
	free(it);
}

static int
store_leveldb_stat(void *handle, struct store_stats *st,
    mapmon_unused char **cause)
{
	struct store_leveldb *db = handle;
	char *stats, *mem;

	/* LevelDB keeps no record count; counting would be a full scan. */
	st->records = -1;
	stats = leveldb_property_value(db->db, "leveldb.stats");
	mem = leveldb_property_value(db->db,
	    "leveldb.approximate-memory-usage");
	xasprintf(&st->text, "%sapproximate memory usage: %s bytes",
	    stats != NULL ? stats : "", mem != NULL ? mem : "?");
	leveldb_free(stats);
	leveldb_free(mem);
	return 0;
}

static int
store_leveldb_compact(void *handle, const void *lo, size_t lolen,
    const void *hi, size_t hilen, mapmon_unused char **cause)
{
	struct store_leveldb *db = handle;

	leveldb_compact_range(db->db, lo, lo != NULL ? lolen : 0, hi,
	    hi != NULL ? hilen : 0);
	return 0;
}

static int
store_leveldb_control(mapmon_unused void *handle, mapmon_unused int op,
    mapmon_unused void *arg)
{
	return STORE_E_NOTSUP;
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
	.control = store_leveldb_control,
};
