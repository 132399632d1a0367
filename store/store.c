/* store.c: the generic store layer: backends, lock, format record, batches. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "store/store_backend.h"

struct store {
	const struct store_backend *be;
	void *handle;
	char *path;
	int lockfd;			/* -1 for a wrapper */
	pthread_mutex_t commit_lock;	/* one commit at a time */
};

struct store_iter {
	struct store *store;
	void *ith;
	uint8_t *hi;			/* NULL: no upper bound */
	size_t hilen;
	int done;
	char *cause;
};

struct store_batch_op {
	enum store_op_type type;
	size_t koff, klen;
	size_t voff, vlen;
	int knull, vnull;		/* range bounds: open ends */
	store_value_fn *fn;		/* put: value written at commit */
	const void *arg;
};

struct store_batch {
	struct enc_buf data;
	struct store_batch_op *ops;
	size_t nops;
	size_t cap;
	size_t fn_bytes;		/* vlen of the store_batch_put_fn puts */
	/*
	 * Where store_batch_op() writes a put_fn value: a pointer, so that it
	 * can be written through a const batch (the backends get one).
	 */
	struct enc_buf *scratch;
};

/* The compiled-in backends, in preference order. */
static const struct store_backend *store_backends[] = {
	&store_lmdb_backend,
	&store_leveldb_backend,
};

static const struct store_backend *
store_find_backend(const char *name)
{
	size_t i;

	for (i = 0; i < nitems(store_backends); i++) {
		if (strcmp(store_backends[i]->name, name) == 0)
			return store_backends[i];
	}
	return NULL;
}

static char store_names[128];
static pthread_once_t store_names_once = PTHREAD_ONCE_INIT;

static void
store_names_init(void)
{
	size_t i, len = 0;

	for (i = 0; i < nitems(store_backends); i++) {
		len += (size_t)snprintf(store_names + len,
		    sizeof store_names - len, "%s%s", i > 0 ? ", " : "",
		    store_backends[i]->name);
		if (len >= sizeof store_names)
			break;
	}
}

const char *
store_backend_names(void)
{
	pthread_once(&store_names_once, store_names_init);
	return store_names;
}

int
store_backend_known(const char *name)
{
	return name != NULL && store_find_backend(name) != NULL;
}

void
store_options_defaults(struct store_options *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->backend = NULL;
	opts->sync = STORE_SYNC_COMMIT;
	opts->leveldb.write_buffer_size = 32 << 20;
	opts->leveldb.block_size = 64 << 10;
	opts->leveldb.cache_size = 64 << 20;
	opts->leveldb.compression = STORE_COMPRESSION_NONE;
	opts->leveldb.bloom_bits = 10;
	opts->leveldb.max_open_files = 1000;
	opts->leveldb.paranoid_checks = 0;
	opts->leveldb.compact_on_start = 0;
	opts->lmdb.map_size = (uint64_t)1 << 30;
	opts->lmdb.max_readers = 126;
	opts->lmdb.grow = 1;
}

const char *
store_strerror(int error)
{
	switch (error) {
	case 0:
		return "success";
	case STORE_NOTFOUND:
		return "not found";
	case STORE_E_IO:
		return "I/O error";
	case STORE_E_NOSPC:
		return "no space left on device";
	case STORE_E_MAPFULL:
		return "LMDB map full";
	case STORE_E_CORRUPT:
		return "corrupt store";
	case STORE_E_LOCKED:
		return "store in use";
	case STORE_E_VERSION:
		return "store format too new";
	case STORE_E_MISSING:
		return "no store";
	case STORE_E_INVAL:
		return "invalid argument";
	case STORE_E_NOTSUP:
		return "not supported";
	case STORE_E_EXISTS:
		return "store exists";
	}
	return "unknown store error";
}

static void
store_set_cause(char **cause, const char *fmt, ...) printflike(2, 3);

static void
store_set_cause(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (cause == NULL)
		return;
	va_start(ap, fmt);
	xvasprintf(cause, fmt, ap);
	va_end(ap);
}

const char *
store_detect(const char *path)
{
	char file[PATH_MAX];
	struct stat sb;
	size_t i;

	for (i = 0; i < nitems(store_backends); i++) {
		if (snprintf(file, sizeof file, "%s/%s", path,
		    store_backends[i]->marker) >= (int)sizeof file)
			continue;
		if (stat(file, &sb) == 0 && S_ISREG(sb.st_mode))
			return store_backends[i]->name;
	}
	return NULL;
}

/* mkdir -p, the last component with mode 0700. */
static int
store_mkdirs(const char *path, char **cause)
{
	char *p, *s;
	struct stat sb;

	p = xstrdup(path);
	for (s = p + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) == -1 && errno != EEXIST) {
			store_set_cause(cause, "%s: %s", p, strerror(errno));
			free(p);
			return errno == ENOSPC ? STORE_E_NOSPC : STORE_E_IO;
		}
		*s = '/';
	}
	free(p);
	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		store_set_cause(cause, "%s: %s", path, strerror(errno));
		return errno == ENOSPC ? STORE_E_NOSPC : STORE_E_IO;
	}
	if (stat(path, &sb) == -1 || !S_ISDIR(sb.st_mode)) {
		store_set_cause(cause, "%s: not a directory", path);
		return STORE_E_IO;
	}
	return 0;
}

/*
 * Take the store's lock file.  flock locks belong to the open file
 * description, so a second open in this very process is refused too.
 */
static int
store_lock(const char *path, int *fdp, char **cause)
{
	char file[PATH_MAX], buf[32];
	ssize_t n;
	long pid;
	int fd;

	if (snprintf(file, sizeof file, "%s/%s", path, STORE_LOCK_FILE) >=
	    (int)sizeof file) {
		store_set_cause(cause, "%s: path too long", path);
		return STORE_E_INVAL;
	}
	fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd == -1) {
		store_set_cause(cause, "%s: %s", file, strerror(errno));
		return errno == ENOSPC ? STORE_E_NOSPC : STORE_E_IO;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK) {
			store_set_cause(cause, "%s: %s", file, strerror(errno));
			close(fd);
			return STORE_E_IO;
		}
		n = pread(fd, buf, sizeof buf - 1, 0);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		if (sscanf(buf, "%ld", &pid) == 1 && pid > 0)
			store_set_cause(cause, "%s: store is in use by process "
			    "%ld", path, pid);
		else
			store_set_cause(cause, "%s: store is in use by another "
			    "process", path);
		return STORE_E_LOCKED;
	}
	n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == -1 || pwrite(fd, buf, (size_t)n, 0) != n) {
		store_set_cause(cause, "%s: %s", file, strerror(errno));
		close(fd);
		return errno == ENOSPC ? STORE_E_NOSPC : STORE_E_IO;
	}
	*fdp = fd;
	return 0;
}

static void
store_unlock(int fd)
{
	if (fd == -1)
		return;
	/* Clear the pid first so a stale file names nobody. */
	(void)!ftruncate(fd, 0);
	close(fd);
}

/* Check (or, creating, write) the format record. */
static int
store_format(struct store *store, int create, char **cause)
{
	struct store_batch *b;
	uint8_t buf[4];
	char *msg;
	void *val;
	size_t vlen;
	uint32_t version;
	int error;

	if (create) {
		enc_put_be32(buf, STORE_FORMAT);
		b = store_batch_new();
		store_batch_put(b, STORE_FORMAT_KEY, STORE_FORMAT_KEYLEN, buf,
		    sizeof buf);
		error = store_commit(store, b, cause);
		store_batch_free(b);
		return error;
	}
	error = store_get(store, STORE_FORMAT_KEY, STORE_FORMAT_KEYLEN, &val,
	    &vlen, cause);
	if (error < 0)
		return error;
	if (error == STORE_NOTFOUND) {
		store_set_cause(cause, "%s: corrupt store: no format record "
		    "(key \\x00format)", store->path);
		return STORE_E_CORRUPT;
	}
	error = store_meta_check(STORE_FORMAT_KEY, STORE_FORMAT_KEYLEN, val,
	    vlen, &msg);
	if (error != 0) {
		store_set_cause(cause, "%s: %s", store->path, msg);
		free(msg);
		free(val);
		return STORE_E_CORRUPT;
	}
	version = enc_get_be32(val);
	free(val);
	if (version > STORE_FORMAT) {
		store_set_cause(cause, "%s: store format %u is newer than this "
		    "mapmon supports (%d)", store->path, version, STORE_FORMAT);
		return STORE_E_VERSION;
	}
	return 0;
}

static struct store *
store_alloc(const struct store_backend *be, void *handle, const char *path,
    int lockfd)
{
	struct store *store;

	store = xcalloc(1, sizeof *store);
	store->be = be;
	store->handle = handle;
	store->path = xstrdup(path);
	store->lockfd = lockfd;
	pthread_mutex_init(&store->commit_lock, NULL);
	return store;
}

int
store_open(const char *path, const struct store_options *opts, int flags,
    struct store **storep, char **cause)
{
	const struct store_backend *be = NULL;
	const char *found;
	struct store *store;
	struct stat sb;
	void *handle;
	int create = (flags & STORE_CREATE) != 0, fd = -1, error;

	*storep = NULL;
	if (path == NULL || *path == '\0') {
		store_set_cause(cause, "no store path given");
		return STORE_E_INVAL;
	}
	if (opts->backend != NULL && *opts->backend != '\0') {
		if ((be = store_find_backend(opts->backend)) == NULL) {
			store_set_cause(cause, "unknown store backend '%s' "
			    "(compiled in: %s)", opts->backend,
			    store_backend_names());
			return STORE_E_INVAL;
		}
	} else if (create) {
		store_set_cause(cause, "%s: no backend given to create the "
		    "store with (compiled in: %s)", path, store_backend_names());
		return STORE_E_INVAL;
	}

	if (create) {
		if ((found = store_detect(path)) != NULL) {
			store_set_cause(cause, "%s: a %s store already exists",
			    path, found);
			return STORE_E_EXISTS;
		}
		if ((error = store_mkdirs(path, cause)) != 0)
			return error;
	} else {
		if (stat(path, &sb) == -1 || !S_ISDIR(sb.st_mode) ||
		    (found = store_detect(path)) == NULL) {
			store_set_cause(cause, "%s: no store here", path);
			return STORE_E_MISSING;
		}
		if (be != NULL && be != store_find_backend(found)) {
			store_set_cause(cause, "%s: the store is %s, not %s",
			    path, found, be->name);
			return STORE_E_INVAL;
		}
		if (be == NULL)
			be = store_find_backend(found);
	}

	if ((error = store_lock(path, &fd, cause)) != 0)
		return error;
	/* Another creator may have won the race before the lock. */
	if (create && (found = store_detect(path)) != NULL) {
		store_set_cause(cause, "%s: a %s store already exists", path,
		    found);
		store_unlock(fd);
		return STORE_E_EXISTS;
	}
	if ((error = be->open(path, opts, create, &handle, cause)) != 0) {
		store_unlock(fd);
		return error;
	}
	store = store_alloc(be, handle, path, fd);
	if ((error = store_format(store, create, cause)) != 0) {
		store_close(store);
		return error;
	}
	*storep = store;
	return 0;
}

void
store_close(struct store *store)
{
	if (store == NULL)
		return;
	store->be->close(store->handle);
	store_unlock(store->lockfd);
	pthread_mutex_destroy(&store->commit_lock);
	free(store->path);
	free(store);
}

#ifdef STORE_TEST_HOOKS
struct store *
store_new_handle(const struct store_backend *be, void *handle,
    const char *path)
{
	return store_alloc(be, handle, path, -1);
}

void *
store_get_handle(const struct store *store, const struct store_backend *be)
{
	if (store == NULL || store->be != be)
		return NULL;
	return store->handle;
}
#endif

const char *
store_path(const struct store *store)
{
	return store->path;
}

const char *
store_backend_name(const struct store *store)
{
	return store->be->name;
}

static int
store_check_key(const struct store *store, const void *key, size_t klen,
    char **cause)
{
	char *e;

	if (klen >= 1 && klen <= STORE_KEY_MAX)
		return 0;
	if (klen == 0)
		store_set_cause(cause, "%s: empty key", store->path);
	else {
		e = store_key_escape(key, klen > 32 ? 32 : klen);
		store_set_cause(cause, "%s: key %s...: %zu bytes, longer than "
		    "%d", store->path, e, klen, STORE_KEY_MAX);
		free(e);
	}
	return STORE_E_INVAL;
}

int
store_get(struct store *store, const void *key, size_t klen, void **val,
    size_t *vlen, char **cause)
{
	int error;

	*val = NULL;
	*vlen = 0;
	if ((error = store_check_key(store, key, klen, cause)) != 0)
		return error;
	return store->be->get(store->handle, key, klen, val, vlen, cause);
}

struct store_batch *
store_batch_new(void)
{
	struct store_batch *b = xcalloc(1, sizeof *b);

	b->scratch = xcalloc(1, sizeof *b->scratch);
	return b;
}

void
store_batch_free(struct store_batch *b)
{
	if (b == NULL)
		return;
	enc_buf_free(&b->data);
	enc_buf_free(b->scratch);
	free(b->scratch);
	free(b->ops);
	free(b);
}

void
store_batch_clear(struct store_batch *b)
{
	enc_buf_reset(&b->data);
	b->nops = 0;
	b->fn_bytes = 0;
}

static struct store_batch_op *
store_batch_add(struct store_batch *b, enum store_op_type type,
    const void *k, size_t klen, const void *v, size_t vlen)
{
	struct store_batch_op *op;

	if (b->nops == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->ops = xreallocarray(b->ops, b->cap, sizeof *b->ops);
	}
	op = &b->ops[b->nops++];
	op->type = type;
	op->knull = k == NULL;
	op->vnull = v == NULL;
	op->koff = b->data.len;
	op->klen = klen;
	enc_buf_put_bytes(&b->data, k, k != NULL ? klen : 0);
	op->voff = b->data.len;
	op->vlen = vlen;
	enc_buf_put_bytes(&b->data, v, v != NULL ? vlen : 0);
	op->fn = NULL;
	op->arg = NULL;
	return op;
}

void
store_batch_put(struct store_batch *b, const void *key, size_t klen,
    const void *val, size_t vlen)
{
	store_batch_add(b, STORE_OP_PUT, key, klen, val, vlen);
	b->ops[b->nops - 1].vnull = 0;
}

void
store_batch_put_fn(struct store_batch *b, const void *key, size_t klen,
    size_t vlen, store_value_fn *fn, const void *arg)
{
	struct store_batch_op *op;

	op = store_batch_add(b, STORE_OP_PUT, key, klen, NULL, 0);
	op->vnull = 0;
	op->vlen = vlen;
	op->fn = fn;
	op->arg = arg;
	b->fn_bytes += vlen;
}

void
store_batch_delete(struct store_batch *b, const void *key, size_t klen)
{
	store_batch_add(b, STORE_OP_DELETE, key, klen, NULL, 0);
}

void
store_batch_delete_range(struct store_batch *b, const void *lo, size_t lolen,
    const void *hi, size_t hilen)
{
	if (lolen == 0)
		lo = NULL;
	store_batch_add(b, STORE_OP_DELETE_RANGE, lo, lo ? lolen : 0, hi,
	    hi ? hilen : 0);
}

size_t
store_batch_count(const struct store_batch *b)
{
	return b->nops;
}

size_t
store_batch_bytes(const struct store_batch *b)
{
	return b->data.len + b->fn_bytes;
}

void
store_batch_op_key(const struct store_batch *b, size_t i, struct store_op *op)
{
	const struct store_batch_op *o = &b->ops[i];

	op->type = o->type;
	op->key = o->knull ? NULL : b->data.data + o->koff;
	op->klen = o->klen;
	op->val = o->vnull || o->fn != NULL ? NULL : b->data.data + o->voff;
	op->vlen = o->vlen;
}

void
store_batch_op(const struct store_batch *b, size_t i, struct store_op *op)
{
	const struct store_batch_op *o = &b->ops[i];

	store_batch_op_key(b, i, op);
	if (o->fn != NULL) {
		enc_buf_reset(b->scratch);
		o->fn(o->arg, b->scratch);
		/* What was written goes, even if fn broke its promise. */
		op->val = b->scratch->data;
		op->vlen = b->scratch->len;
	}
	/* A put of an empty value still gets a valid pointer. */
	if (op->type == STORE_OP_PUT && op->vlen == 0)
		op->val = (const uint8_t *)"";
}

int
store_commit(struct store *store, const struct store_batch *b, char **cause)
{
	struct store_op op;
	size_t i;
	int error;

	for (i = 0; i < b->nops; i++) {
		store_batch_op_key(b, i, &op);
		if (op.type == STORE_OP_DELETE_RANGE)
			continue;
		if ((error = store_check_key(store, op.key, op.klen,
		    cause)) != 0)
			return error;
	}
	if (b->nops == 0)
		return 0;
	pthread_mutex_lock(&store->commit_lock);
	error = store->be->commit(store->handle, b, cause);
	pthread_mutex_unlock(&store->commit_lock);
	return error;
}

struct store_iter *
store_iter_new(struct store *store, const void *lo, size_t lolen,
    const void *hi, size_t hilen, char **cause)
{
	struct store_iter *it;
	void *ith;

	if (lolen == 0)
		lo = NULL;
	if (store->be->iter_new(store->handle, lo, lolen, &ith, cause) != 0)
		return NULL;
	it = xcalloc(1, sizeof *it);
	it->store = store;
	it->ith = ith;
	if (hi != NULL) {
		it->hi = xmalloc(hilen ? hilen : 1);
		memcpy(it->hi, hi, hilen);
		it->hilen = hilen;
		/* An empty upper bound excludes everything. */
		if (hilen == 0)
			it->done = 1;
	}
	return it;
}

int
store_iter_next(struct store_iter *it, const void **key, size_t *klen,
    const void **val, size_t *vlen)
{
	int r;

	if (it->done)
		return 0;
	free(it->cause);
	it->cause = NULL;
	r = it->store->be->iter_next(it->ith, key, klen, val, vlen,
	    &it->cause);
	if (r < 0) {
		it->done = 1;
		return r;
	}
	if (r == 0 || (it->hi != NULL &&
	    store_key_cmp(*key, *klen, it->hi, it->hilen) >= 0)) {
		it->done = 1;
		return 0;
	}
	return 1;
}

const char *
store_iter_cause(const struct store_iter *it)
{
	return it->cause;
}

void
store_iter_free(struct store_iter *it)
{
	if (it == NULL)
		return;
	it->store->be->iter_free(it->ith);
	free(it->hi);
	free(it->cause);
	free(it);
}

uint64_t
store_dir_bytes(const char *path)
{
	char file[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	uint64_t total = 0;
	DIR *d;

	if ((d = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (snprintf(file, sizeof file, "%s/%s", path, de->d_name) >=
		    (int)sizeof file)
			continue;
		if (stat(file, &sb) == 0 && S_ISREG(sb.st_mode))
			total += (uint64_t)sb.st_size;
	}
	closedir(d);
	return total;
}

int
store_stat(struct store *store, struct store_stats *st, char **cause)
{
	memset(st, 0, sizeof *st);
	st->backend = store->be->name;
	st->records = -1;
	st->disk_bytes = store_dir_bytes(store->path);
	return store->be->stat(store->handle, st, cause);
}

void
store_stats_free(struct store_stats *st)
{
	free(st->text);
	st->text = NULL;
}

int
store_compact(struct store *store, const void *lo, size_t lolen,
    const void *hi, size_t hilen, char **cause)
{
	if (lolen == 0)
		lo = NULL;
	return store->be->compact(store->handle, lo, lolen, hi, hilen, cause);
}

/* Remove the regular files of dir, then dir (best effort). */
static void
store_rmdir(const char *dir)
{
	char file[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (snprintf(file, sizeof file, "%s/%s", dir,
				de->d_name) < (int)sizeof file)
				(void)unlink(file);
		}
		closedir(d);
	}
	(void)rmdir(dir);
}

static int
store_no_copy(const struct store *store, char **cause)
{
	store_set_cause(cause,
	    "%s: the %s backend compacts in place; it has "
	    "no compacted copy",
	    store->path, store->be->name);
	return STORE_E_NOTSUP;
}

int
store_compact_copy(struct store *store, const char *dir, char **cause)
{
	int error;

	if (store->be->compact_copy == NULL)
		return store_no_copy(store, cause);
	if (mkdir(dir, 0700) == -1) {
		error = errno;
		store_set_cause(cause,
		    "%s: cannot make the directory of the "
		    "compacted copy: %s",
		    dir, strerror(error));
		return error == EEXIST ? STORE_E_EXISTS :
		    error == ENOSPC    ? STORE_E_NOSPC :
					 STORE_E_IO;
	}
	pthread_mutex_lock(&store->commit_lock);
	error = store->be->compact_copy(store->handle, dir, cause);
	pthread_mutex_unlock(&store->commit_lock);
	if (error != 0)
		store_rmdir(dir);
	return error;
}

int
store_compact_swap(struct store *store, const char *dir, char **cause)
{
	int error;

	if (store->be->swap == NULL)
		return store_no_copy(store, cause);
	pthread_mutex_lock(&store->commit_lock);
	error = store->be->swap(store->handle, dir, cause);
	pthread_mutex_unlock(&store->commit_lock);
	/* Swapped or not, what is left of the copy is of no use. */
	store_rmdir(dir);
	return error;
}

/* Copy in batches of at most this many bytes or records. */
#define STORE_COPY_BYTES (8u << 20)
#define STORE_COPY_RECORDS 20000

int
store_copy(struct store *src, struct store *dst, store_progress_cb progress,
    void *arg, char **cause)
{
	struct store_stats st;
	struct store_batch *b;
	struct store_iter *it;
	const void *k, *v;
	size_t klen, vlen;
	uint64_t done = 0;
	int64_t total = -1;
	int r, error = 0;

	if (store_stat(src, &st, NULL) == 0) {
		total = st.records;
		store_stats_free(&st);
	}
	if ((it = store_iter_new(src, NULL, 0, NULL, 0, cause)) == NULL)
		return STORE_E_IO;
	b = store_batch_new();
	for (;;) {
		r = store_iter_next(it, &k, &klen, &v, &vlen);
		if (r < 0) {
			store_set_cause(cause, "%s", store_iter_cause(it) ?
			    store_iter_cause(it) : store_strerror(r));
			error = r;
			break;
		}
		if (r == 1) {
			store_batch_put(b, k, klen, v, vlen);
			done++;
		}
		if (store_batch_count(b) > 0 && (r == 0 ||
		    store_batch_bytes(b) >= STORE_COPY_BYTES ||
		    store_batch_count(b) >= STORE_COPY_RECORDS)) {
			if ((error = store_commit(dst, b, cause)) != 0)
				break;
			store_batch_clear(b);
			if (progress != NULL)
				progress(done, total, arg);
		}
		if (r == 0)
			break;
	}
	store_batch_free(b);
	store_iter_free(it);
	return error;
}
