/* store_lmdb.c: the LMDB backend. */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/mapmon.h"
#include "store/store_backend.h"
#ifdef STORE_TEST_HOOKS
#include "store/store_test.h"
#endif

/*
 * An EIO from a commit with less than this left on the filesystem is a
 * full disk (store_lmdb_commit_error()): LMDB writes a commit's pages in
 * runs of up to some megabytes.
 */
#define STORE_LMDB_FULL_BYTES ((uint64_t)8 << 20)

/* The map never grows past this (1 TiB): a runaway writer stops here. */
#define STORE_LMDB_MAP_MAX ((uint64_t)1 << 40)

/*
 * Growing the map (mdb_env_set_mapsize) remaps the file: no transaction of
 * this process may be open then.  Every read transaction is held under
 * maplock shared; growth takes it exclusive.  A thread that holds a read
 * transaction itself (an iterator kept while committing) cannot wait for
 * the exclusive lock without deadlocking, so it only tries (and reports the
 * map full) — counted here per thread.
 */
static __thread int store_lmdb_reading;

struct store_lmdb {
	MDB_env *env;
	MDB_dbi dbi;
	char *path;
	int grow;
	uint64_t grown;
	pthread_rwlock_t maplock;
	/* What the environment was opened with, to open it again. */
	unsigned int flags;
	unsigned int max_readers;
	uint64_t map_size;
	/* The last transaction in the compacted copy (0: none made). */
	size_t copy_txnid;
};

struct store_lmdb_iter {
	struct store_lmdb *db;
	MDB_txn *txn;
	MDB_cursor *cursor;
	uint8_t *lo;
	size_t lolen;
	int started;
};

/* The store's kind of an LMDB or system error. */
static int
store_lmdb_kind(int rc)
{
	switch (rc) {
	case MDB_MAP_FULL:
		return STORE_E_MAPFULL;
	case ENOSPC:
		return STORE_E_NOSPC;
	case MDB_CORRUPTED:
	case MDB_PAGE_NOTFOUND:
	case MDB_INVALID:
	case MDB_VERSION_MISMATCH:
		return STORE_E_CORRUPT;
	case MDB_BAD_VALSIZE:
	case EINVAL:
		return STORE_E_INVAL;
	}
	return STORE_E_IO;
}

static int
store_lmdb_error(struct store_lmdb *db, const char *path, int rc,
    const char *what, char **cause)
{
	if (cause != NULL)
		xasprintf(cause, "%s: %s: %s", db != NULL ? db->path : path,
		    what, mdb_strerror(rc));
	return store_lmdb_kind(rc);
}

/*
 * LMDB turns a short write into EIO: on a filesystem that fills up in the
 * middle of a commit's pages, pwrite() writes part and the commit fails
 * with EIO, not ENOSPC.  When the store's filesystem has (almost) nothing
 * left, that EIO is a full disk, and is reported as one, so that the
 * monitor and the operator see ENOSPC as with any other write.
 */
static int
store_lmdb_commit_error(struct store_lmdb *db, int rc, char **cause)
{
	struct statvfs sv;

	if (rc == EIO && statvfs(db->path, &sv) == 0 &&
	    (uint64_t)sv.f_bavail * sv.f_frsize < STORE_LMDB_FULL_BYTES) {
		if (cause != NULL)
			xasprintf(cause,
			    "%s: commit: %s (a short write, with "
			    "%llu bytes left on the filesystem)",
			    db->path, strerror(ENOSPC),
			    (unsigned long long)sv.f_bavail * sv.f_frsize);
		return STORE_E_NOSPC;
	}
	return store_lmdb_error(db, NULL, rc, "commit", cause);
}

/*
 * With MDB_WRITEMAP a commit writes its pages into the mapped file, and a
 * page the filesystem cannot allocate then is a SIGBUS, not an error: so
 * the map's size is allocated on disk before LMDB may write there, at each
 * open and before each growth, where a full disk is an error like any
 * other.  0 or an errno.
 */
static int
store_lmdb_reserve(struct store_lmdb *db, uint64_t size)
{
	mdb_filehandle_t fd;
	int rc;

	if ((db->flags & MDB_WRITEMAP) == 0)
		return 0;
	if ((rc = mdb_env_get_fd(db->env, &fd)) != 0)
		return rc;
	return posix_fallocate(fd, 0, (off_t)size);
}

static void
store_lmdb_free(struct store_lmdb *db)
{
	if (db->env != NULL)
		mdb_env_close(db->env);
	pthread_rwlock_destroy(&db->maplock);
	free(db->path);
	free(db);
}

/*
 * Open db's environment (db->env NULL) with the options it keeps; 0 or an
 * LMDB error (db->env is then NULL again).
 */
static int
store_lmdb_env_open(struct store_lmdb *db, int create)
{
	MDB_envinfo info;
	MDB_txn *txn;
	int rc, dead;

	if ((rc = mdb_env_create(&db->env)) != 0) {
		db->env = NULL;
		return rc;
	}
	if ((rc = mdb_env_set_maxreaders(db->env, db->max_readers)) != 0)
		goto fail;
	/* An existing file larger than this keeps its size (LMDB's rule). */
	if ((rc = mdb_env_set_mapsize(db->env, (size_t)db->map_size)) != 0)
		goto fail;
	if ((rc = mdb_env_open(db->env, db->path, db->flags, 0600)) != 0)
		goto fail;
	mdb_env_info(db->env, &info);
	if ((rc = store_lmdb_reserve(db, info.me_mapsize)) != 0)
		goto fail;
	/* Reader slots left by a process that died would pin old pages. */
	if ((rc = mdb_reader_check(db->env, &dead)) != 0)
		goto fail;
	if ((rc = mdb_txn_begin(db->env, NULL, create ? 0 : MDB_RDONLY,
	    &txn)) != 0)
		goto fail;
	if ((rc = mdb_dbi_open(txn, NULL, 0, &db->dbi)) != 0) {
		mdb_txn_abort(txn);
		goto fail;
	}
	if ((rc = create ? mdb_txn_commit(txn) : (mdb_txn_abort(txn), 0)) != 0)
		goto fail;
	return 0;

fail:
	mdb_env_close(db->env);
	db->env = NULL;
	return rc;
}

static int
store_lmdb_open(const char *path, const struct store_options *opts, int create,
    void **handle, char **cause)
{
	struct store_lmdb *db;
	int rc;

	db = xcalloc(1, sizeof *db);
	db->path = xstrdup(path);
	db->grow = opts->lmdb.grow;
	pthread_rwlock_init(&db->maplock, NULL);
	db->flags = MDB_NOTLS;
	if (opts->sync == STORE_SYNC_NONE)
		db->flags |= MDB_NOSYNC;
	if (opts->lmdb.writemap)
		db->flags |= MDB_WRITEMAP;
	db->max_readers = opts->lmdb.max_readers > 0 ? opts->lmdb.max_readers :
						       126;
	db->map_size = opts->lmdb.map_size;
	if ((rc = store_lmdb_env_open(db, create)) != 0) {
		rc = store_lmdb_error(NULL, path, rc, "open", cause);
		store_lmdb_free(db);
		return rc;
	}
	*handle = db;
	return 0;
}

static void
store_lmdb_close(void *handle)
{
	store_lmdb_free(handle);
}

/* Begin a read transaction under maplock; pair with store_lmdb_rdone. */
static int
store_lmdb_rbegin(struct store_lmdb *db, MDB_txn **txn)
{
	int rc;

	pthread_rwlock_rdlock(&db->maplock);
	if ((rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, txn)) != 0) {
		pthread_rwlock_unlock(&db->maplock);
		return rc;
	}
	store_lmdb_reading++;
	return 0;
}

static void
store_lmdb_rdone(struct store_lmdb *db, MDB_txn *txn)
{
	mdb_txn_abort(txn);
	store_lmdb_reading--;
	pthread_rwlock_unlock(&db->maplock);
}

static int
store_lmdb_get(void *handle, const void *key, size_t klen, void **val,
    size_t *vlen, char **cause)
{
	struct store_lmdb *db = handle;
	MDB_txn *txn;
	MDB_val k, v;
	int rc;

	if ((rc = store_lmdb_rbegin(db, &txn)) != 0)
		return store_lmdb_error(db, NULL, rc, "read", cause);
	k.mv_data = (void *)key;
	k.mv_size = klen;
	rc = mdb_get(txn, db->dbi, &k, &v);
	if (rc == 0) {
		*val = xmalloc(v.mv_size ? v.mv_size : 1);
		memcpy(*val, v.mv_data, v.mv_size);
		*vlen = v.mv_size;
	}
	store_lmdb_rdone(db, txn);
	if (rc == MDB_NOTFOUND)
		return STORE_NOTFOUND;
	if (rc != 0)
		return store_lmdb_error(db, NULL, rc, "get", cause);
	return 0;
}

/* Double the map; 0, or a store error when it cannot grow. */
static int
store_lmdb_grow(struct store_lmdb *db, char **cause)
{
	MDB_envinfo info;
	uint64_t size;
	int rc;

	if (!__atomic_load_n(&db->grow, __ATOMIC_RELAXED)) {
		if (cause != NULL)
			xasprintf(cause, "%s: LMDB map full (map_size reached, "
			    "growth off)", db->path);
		return STORE_E_MAPFULL;
	}
	if (store_lmdb_reading > 0) {
		if (pthread_rwlock_trywrlock(&db->maplock) != 0) {
			if (cause != NULL)
				xasprintf(cause, "%s: LMDB map full and it cannot "
				    "grow while this thread holds an iterator",
				    db->path);
			return STORE_E_MAPFULL;
		}
	} else
		pthread_rwlock_wrlock(&db->maplock);
	mdb_env_info(db->env, &info);
	size = (uint64_t)info.me_mapsize * 2;
	if (size > STORE_LMDB_MAP_MAX) {
		pthread_rwlock_unlock(&db->maplock);
		if (cause != NULL)
			xasprintf(cause, "%s: LMDB map full at %zu bytes",
			    db->path, info.me_mapsize);
		return STORE_E_MAPFULL;
	}
	if ((rc = store_lmdb_reserve(db, size)) != 0) {
		pthread_rwlock_unlock(&db->maplock);
		if (cause != NULL)
			xasprintf(cause,
			    "%s: growing the LMDB map to %llu "
			    "bytes: allocating them on disk (writemap): %s",
			    db->path, (unsigned long long)size, strerror(rc));
		return store_lmdb_kind(rc);
	}
	rc = mdb_env_set_mapsize(db->env, (size_t)size);
	pthread_rwlock_unlock(&db->maplock);
	if (rc != 0)
		return store_lmdb_error(db, NULL, rc, "growing the map", cause);
	db->grown++;
	return 0;
}

/* Delete lo <= k < hi with the cursor (of the write transaction). */
static int
store_lmdb_delete_range(MDB_cursor *cursor, const struct store_op *op)
{
	MDB_val k, v;
	int rc;

	if (op->key != NULL) {
		k.mv_data = (void *)op->key;
		k.mv_size = op->klen;
		rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE);
	} else
		rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST);
	while (rc == 0) {
		if (op->val != NULL && store_key_cmp(k.mv_data, k.mv_size,
		    op->val, op->vlen) >= 0)
			break;
		if ((rc = mdb_cursor_del(cursor, 0)) != 0)
			break;
		/* After a delete the cursor's next is the following key. */
		rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT);
	}
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/*
 * The order a batch is applied in: each run of puts and deletes between
 * two range deletes by key (a key's own operations in batch order, so its
 * last put wins), a range delete where it was.  All through one cursor: a
 * put or delete whose key is on the leaf page the cursor is on searches
 * that page alone (mdb_cursor_set() looks there first), so a commit of
 * 100,000 PG records spread over a table of 220,000 walks its leaves in
 * order instead of descending from the root, a cache miss a level, for
 * each (BENCHMARKS.md, "Store writes in key order").
 */
struct store_lmdb_order {
	uint64_t head; /* the key's first 8 bytes, big-endian */
	uint64_t next; /* and the 8 after them */
	const uint8_t *key;
	size_t klen;
	size_t i;
};

static int
store_lmdb_order_cmp(const void *a, const void *b)
{
	const struct store_lmdb_order *x = a, *y = b;
	int c;

	/*
	 * Keys differ in their first 16 bytes (a PG's is 9): two compares,
	 * no call.  Not 8 alone: the PG keys of one pool share their first
	 * 8 bytes 256 at a time, and a sort of 100,000 of them called
	 * memcmp() for most compares.
	 */
	if (x->head != y->head)
		return x->head < y->head ? -1 : 1;
	if (x->next != y->next)
		return x->next < y->next ? -1 : 1;
	c = store_key_cmp(x->key, x->klen, y->key, y->klen);
	if (c != 0)
		return c;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Bytes from .. from + 7 of key, big-endian. */
static uint64_t
store_lmdb_head(const uint8_t *key, size_t klen, size_t from)
{
	uint64_t h = 0;
	size_t i;

	/* A shorter key is padded with zeros: still ordered as memcmp. */
	for (i = from; i < from + 8; i++)
		h = h << 8 | (i < klen ? key[i] : 0);
	return h;
}

static int
store_lmdb_apply(MDB_cursor *cursor, const struct store_batch *b,
    size_t *failed)
{
	struct store_lmdb_order *order;
	struct store_op op;
	MDB_val k, v;
	size_t i, j, run, n = store_batch_count(b);
	int rc = 0;

	order = xreallocarray(NULL, n > 0 ? n : 1, sizeof *order);
	for (i = 0; i < n && rc == 0; i = run) {
		store_batch_op_key(b, i, &op);
		if (op.type == STORE_OP_DELETE_RANGE) {
			*failed = i;
			rc = store_lmdb_delete_range(cursor, &op);
			run = i + 1;
			continue;
		}
		for (run = i; run < n; run++) {
			store_batch_op_key(b, run, &op);
			if (op.type == STORE_OP_DELETE_RANGE)
				break;
			order[run - i].head = store_lmdb_head(op.key, op.klen,
			    0);
			order[run - i].next = store_lmdb_head(op.key, op.klen,
			    8);
			order[run - i].key = op.key;
			order[run - i].klen = op.klen;
			order[run - i].i = run;
		}
		qsort(order, run - i, sizeof *order, store_lmdb_order_cmp);
		for (j = 0; j < run - i && rc == 0; j++) {
			store_batch_op(b, order[j].i, &op);
			*failed = order[j].i;
			k.mv_data = (void *)op.key;
			k.mv_size = op.klen;
			if (op.type == STORE_OP_PUT) {
				v.mv_data = (void *)op.val;
				v.mv_size = op.vlen;
				rc = mdb_cursor_put(cursor, &k, &v, 0);
				continue;
			}
			rc = mdb_cursor_get(cursor, &k, &v, MDB_SET);
			if (rc == 0)
				rc = mdb_cursor_del(cursor, 0);
			else if (rc == MDB_NOTFOUND)
				rc = 0;
		}
	}
	free(order);
	return rc;
}

static int
store_lmdb_commit(void *handle, const struct store_batch *b, char **cause)
{
	struct store_lmdb *db = handle;
	struct store_op op;
	MDB_txn *txn;
	MDB_cursor *cursor;
	size_t failed = 0;
	char *e, *what;
	int rc, error;

	for (;;) {
		rc = mdb_txn_begin(db->env, NULL, 0, &txn);
		if (rc == MDB_MAP_RESIZED) {
			/* Another process grew it: adopt its size. */
			pthread_rwlock_wrlock(&db->maplock);
			rc = mdb_env_set_mapsize(db->env, 0);
			pthread_rwlock_unlock(&db->maplock);
			if (rc == 0)
				continue;
		}
		if (rc != 0)
			return store_lmdb_error(db, NULL, rc, "write", cause);
		if ((rc = mdb_cursor_open(txn, db->dbi, &cursor)) != 0) {
			mdb_txn_abort(txn);
			return store_lmdb_error(db, NULL, rc, "cursor", cause);
		}
		rc = store_lmdb_apply(cursor, b, &failed);
		mdb_cursor_close(cursor);
		if (rc != 0) {
			mdb_txn_abort(txn);
			if (rc != MDB_MAP_FULL) {
				store_batch_op_key(b, failed, &op);
				e = op.key != NULL ? store_key_escape(op.key,
				    op.klen) : xstrdup("(first)");
				xasprintf(&what, "writing %s", e);
				error = store_lmdb_error(db, NULL, rc, what,
				    cause);
				free(what);
				free(e);
				return error;
			}
		} else if ((rc = mdb_txn_commit(txn)) != 0 &&
		    rc != MDB_MAP_FULL)
			return store_lmdb_commit_error(db, rc, cause);
		if (rc == 0)
			return 0;
		/* Map full: the transaction is gone; grow and retry it. */
		if ((error = store_lmdb_grow(db, cause)) != 0)
			return error;
	}
}

static int
store_lmdb_iter_new(void *handle, const void *lo, size_t lolen, void **ith,
    char **cause)
{
	struct store_lmdb *db = handle;
	struct store_lmdb_iter *it;
	int rc;

	it = xcalloc(1, sizeof *it);
	it->db = db;
	if ((rc = store_lmdb_rbegin(db, &it->txn)) != 0) {
		free(it);
		return store_lmdb_error(db, NULL, rc, "read", cause);
	}
	if ((rc = mdb_cursor_open(it->txn, db->dbi, &it->cursor)) != 0) {
		store_lmdb_rdone(db, it->txn);
		free(it);
		return store_lmdb_error(db, NULL, rc, "cursor", cause);
	}
	if (lo != NULL) {
		it->lo = xmalloc(lolen);
		memcpy(it->lo, lo, lolen);
		it->lolen = lolen;
	}
	*ith = it;
	return 0;
}

static int
store_lmdb_iter_next(void *ith, const void **key, size_t *klen,
    const void **val, size_t *vlen, char **cause)
{
	struct store_lmdb_iter *it = ith;
	MDB_val k, v;
	int rc;

	if (!it->started) {
		it->started = 1;
		if (it->lo != NULL) {
			k.mv_data = it->lo;
			k.mv_size = it->lolen;
			rc = mdb_cursor_get(it->cursor, &k, &v, MDB_SET_RANGE);
		} else
			rc = mdb_cursor_get(it->cursor, &k, &v, MDB_FIRST);
	} else
		rc = mdb_cursor_get(it->cursor, &k, &v, MDB_NEXT);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc != 0)
		return store_lmdb_error(it->db, NULL, rc, "iterating", cause);
	*key = k.mv_data;
	*klen = k.mv_size;
	*val = v.mv_data;
	*vlen = v.mv_size;
	return 1;
}

static void
store_lmdb_iter_free(void *ith)
{
	struct store_lmdb_iter *it = ith;

	mdb_cursor_close(it->cursor);
	store_lmdb_rdone(it->db, it->txn);
	free(it->lo);
	free(it);
}

static int
store_lmdb_stat(void *handle, struct store_stats *st, char **cause)
{
	struct store_lmdb *db = handle;
	MDB_envinfo info;
	MDB_stat ms;
	MDB_txn *txn;
	int rc;

	if ((rc = store_lmdb_rbegin(db, &txn)) != 0)
		return store_lmdb_error(db, NULL, rc, "read", cause);
	rc = mdb_stat(txn, db->dbi, &ms);
	if (rc == 0)
		rc = mdb_env_info(db->env, &info);
	store_lmdb_rdone(db, txn);
	if (rc != 0)
		return store_lmdb_error(db, NULL, rc, "stat", cause);
	st->records = (int64_t)ms.ms_entries;
	st->map_size = info.me_mapsize;
	st->map_used = ((uint64_t)info.me_last_pgno + 1) * ms.ms_psize;
	st->map_grown = db->grown;
	xasprintf(&st->text, "page size %u, depth %u, branch pages %zu, "
	    "leaf pages %zu, overflow pages %zu, entries %zu, last txn %zu, "
	    "readers %u of %u", ms.ms_psize, ms.ms_depth, ms.ms_branch_pages,
	    ms.ms_leaf_pages, ms.ms_overflow_pages, ms.ms_entries,
	    info.me_last_txnid, info.me_numreaders, info.me_maxreaders);
	return 0;
}

/*
 * LMDB reuses freed pages in place, but never gives them back: the file
 * keeps its largest size.  Shrinking it takes a compacted copy
 * (store_lmdb_compact_copy() and store_lmdb_swap()), which the monitor
 * does not do while it runs; here there is nothing to do.
 */
static int
store_lmdb_compact(mapmon_unused void *handle, mapmon_unused const void *lo,
    mapmon_unused size_t lolen, mapmon_unused const void *hi,
    mapmon_unused size_t hilen, mapmon_unused char **cause)
{
	return 0;
}

/* fsync path (a file or a directory); 0 or an errno value. */
static int
store_lmdb_fsync(const char *path)
{
	int fd, e = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno;
	if (fsync(fd) == -1)
		e = errno;
	close(fd);
	return e;
}

/*
 * The error of a failed copy or swap on the filesystem of dir: an EIO
 * with (almost) nothing left on it is a full disk, as for a commit
 * (store_lmdb_commit_error()).
 */
static int
store_lmdb_file_error(struct store_lmdb *db, const char *dir, int rc,
    const char *what, char **cause)
{
	struct statvfs sv;

	if (rc == EIO && statvfs(dir, &sv) == 0 &&
	    (uint64_t)sv.f_bavail * sv.f_frsize < STORE_LMDB_FULL_BYTES)
		rc = ENOSPC;
	if (cause != NULL)
		xasprintf(cause, "%s: %s: %s", db->path, what,
		    mdb_strerror(rc));
	return store_lmdb_kind(rc);
}

static int
store_lmdb_compact_copy(void *handle, const char *dir, char **cause)
{
	struct store_lmdb *db = handle;
	MDB_envinfo info;
	char file[PATH_MAX], *what;
	int rc, error;

	if (snprintf(file, sizeof file, "%s/data.mdb", dir) >=
	    (int)sizeof file) {
		if (cause != NULL)
			xasprintf(cause, "%s: path too long", dir);
		return STORE_E_INVAL;
	}
	/* The copy reads in a transaction of its own: no remap meanwhile. */
	pthread_rwlock_rdlock(&db->maplock);
	mdb_env_info(db->env, &info);
	db->copy_txnid = info.me_last_txnid;
	rc = mdb_env_copy2(db->env, dir, MDB_CP_COMPACT);
	pthread_rwlock_unlock(&db->maplock);
	/*
	 * LMDB's copy is made with the umask's mode and not synced: it gets
	 * the store's own mode (0600, as at open), and the swap relies on it
	 * being on disk.
	 */
	if (rc == 0 && chmod(file, 0600) == -1)
		rc = errno;
	if (rc == 0 && (rc = store_lmdb_fsync(file)) == 0)
		rc = store_lmdb_fsync(dir);
	if (rc != 0) {
		db->copy_txnid = 0;
		xasprintf(&what, "writing a compacted copy into %s", dir);
		error = store_lmdb_file_error(db, dir, rc, what, cause);
		free(what);
		return error;
	}
	return 0;
}

static int
store_lmdb_swap(void *handle, const char *dir, char **cause)
{
	struct store_lmdb *db = handle;
	MDB_envinfo info;
	char from[PATH_MAX], to[PATH_MAX], *what;
	int rc, e;

	if (snprintf(from, sizeof from, "%s/data.mdb", dir) >=
		(int)sizeof from ||
	    snprintf(to, sizeof to, "%s/data.mdb", db->path) >=
		(int)sizeof to) {
		if (cause != NULL)
			xasprintf(cause, "%s: path too long", dir);
		return STORE_E_INVAL;
	}
	/* Exclusive: no read transaction of this process stays open. */
	pthread_rwlock_wrlock(&db->maplock);
	mdb_env_info(db->env, &info);
	if (db->copy_txnid == 0 || info.me_last_txnid != db->copy_txnid) {
		pthread_rwlock_unlock(&db->maplock);
		if (cause != NULL)
			xasprintf(cause, "%s: %s", db->path,
			    db->copy_txnid == 0 ?
				"no compacted copy was made" :
				"the store was "
				"written after its compacted copy was made");
		return STORE_E_INVAL;
	}
	/* Reopened with a map as large as it had grown. */
	if ((uint64_t)info.me_mapsize > db->map_size)
		db->map_size = info.me_mapsize;
	mdb_env_close(db->env);
	db->env = NULL;
	db->copy_txnid = 0;
	if (rename(from, to) == -1) {
		e = errno;
		rc = store_lmdb_env_open(db, 0);
		pthread_rwlock_unlock(&db->maplock);
		if (cause != NULL)
			xasprintf(cause, "%s: renaming %s to %s: %s%s",
			    db->path, from, to, strerror(e),
			    rc != 0 ?
				" (and the store could not be opened again)" :
				"");
		return e == ENOSPC ? STORE_E_NOSPC : STORE_E_IO;
	}
	/* The rename is durable once the directory is synced. */
	e = store_lmdb_fsync(db->path);
	rc = store_lmdb_env_open(db, 0);
	pthread_rwlock_unlock(&db->maplock);
	if (rc != 0) {
		xasprintf(&what, "opening the compacted copy swapped in");
		e = store_lmdb_file_error(db, db->path, rc, what, cause);
		free(what);
		return e;
	}
	if (e != 0) {
		if (cause != NULL)
			xasprintf(cause,
			    "%s: syncing the directory after the "
			    "swap: %s",
			    db->path, strerror(e));
		return STORE_E_IO;
	}
	return 0;
}

#ifdef STORE_TEST_HOOKS
int
store_lmdb_set_grow(struct store *store, int grow)
{
	struct store_lmdb *db;

	if ((db = store_get_handle(store, &store_lmdb_backend)) == NULL)
		return STORE_E_INVAL;
	__atomic_store_n(&db->grow, grow != 0, __ATOMIC_RELAXED);
	return 0;
}
#endif

const struct store_backend store_lmdb_backend = {
	.name = "lmdb",
	.marker = "data.mdb",
	.open = store_lmdb_open,
	.close = store_lmdb_close,
	.get = store_lmdb_get,
	.commit = store_lmdb_commit,
	.iter_new = store_lmdb_iter_new,
	.iter_next = store_lmdb_iter_next,
	.iter_free = store_lmdb_iter_free,
	.stat = store_lmdb_stat,
	.compact = store_lmdb_compact,
	.compact_copy = store_lmdb_compact_copy,
	.swap = store_lmdb_swap,
};
